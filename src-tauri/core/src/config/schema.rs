//! The typed configuration of the whole product, saved as YAML in `~/.sentient/config.yaml`.
//!
//! This module owns the shape of every setting, its default and the checks a parsed value must
//! still pass ([`Config::problems`]); loading, saving and patching live beside it. Every field
//! carries a doc comment because the Settings screen is generated from the JSON schema, and
//! schemars turns those comments into each field's `description`; a setting without one would
//! show up unexplained to the user.
//!
//! Every struct is `#[serde(default)]` and none denies unknown fields, so an empty file, a file
//! from an older version and a file with settings we no longer know all still load.
//! Integers are at most 32 bits wide because the TypeScript binding generator refuses 64-bit ones.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::FieldError;

/// Names of the model roles, in the order Settings and the check-up list them.
pub const MODEL_ROLE_NAMES: [&str; 7] = [
    "primary",
    "fast",
    "planner",
    "executor",
    "embedding",
    "vision",
    "voice",
];

/// Claude Code model names offered when `models.experimental_claude_code` is on.
pub const CLAUDE_CODE_MODELS: [&str; 2] = ["claude-code/sonnet", "claude-code/opus"];

/// Names of the generated model presets; users can't save their own under these names.
pub const BUILTIN_PRESET_NAMES: [&str; 3] = ["Local only", "Cloud", "Mixed"];

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

// ------------------------------------------------------------------------------------ root

/// Everything you can change about Sentient.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct Config {
    /// Who the assistant is and who it is talking to.
    pub assistant: AssistantConfig,
    /// How the Sentient window looks and behaves.
    pub ui: UiConfig,
    /// Which AI models do which job, and how Sentient connects to them.
    pub models: ModelsConfig,
    /// How long-running and scheduled tasks are planned, run and limited.
    pub tasks: TasksConfig,
    /// How chat conversations are handled.
    pub chat: ChatConfig,
    /// Which tools the assistant may use and when it asks you first.
    pub tools: ToolsConfig,
    /// Not used yet (it arrives in a later version). Helpers the assistant can start to work on parts of a job alongside the chat.
    pub subagents: SubagentsConfig,
    /// Connected apps, web services, MCP servers and webhooks.
    pub integrations: IntegrationsConfig,
    /// Not used yet (it arrives in a later version). Suggestions Sentient makes on its own, follow-ups and the Daily Brief.
    pub proactivity: ProactivityConfig,
    /// Not used yet (it arrives in a later version). What Sentient remembers about you and how it recalls it.
    pub memory: MemoryConfig,
    /// Not used yet (it arrives in a later version). The nightly clean-up of memories.
    pub dreaming: DreamingConfig,
    /// Not used yet (it arrives in a later version). The picture Sentient builds of your preferences, goals and style.
    pub user_model: UserModelConfig,
    /// Not used yet (it arrives in a later version). Skills: saved step-by-step procedures Sentient can follow.
    pub skills: SkillsConfig,
    /// Not used yet (it arrives in a later version). How Sentient learns new skills and keeps them working.
    pub evolution: EvolutionConfig,
    /// Not used yet (it arrives in a later version). Talking to Sentient: speech recognition, spoken replies and the wake word.
    pub voice: VoiceConfig,
    /// Not used yet (it arrives in a later version). The web browser the assistant can use for sites without an integration.
    pub browser: BrowserConfig,
    /// Not used yet (it arrives in a later version). Short Python scripts the assistant writes and runs.
    pub sandbox: SandboxConfig,
    /// Phones, smart glasses and other devices connected to Sentient.
    pub nodes: NodesConfig,
    /// Not used yet (it arrives in a later version). Telegram, Discord and WhatsApp chats with Sentient.
    pub channels: ChannelsConfig,
    /// Not used yet (it arrives in a later version). Commands the assistant may run on this computer.
    pub terminal: TerminalConfig,
    /// The local connection the Sentient window and your scripts use to reach the engine.
    pub gateway: GatewayConfig,
}

// ------------------------------------------------------------------------------- assistant

/// The assistant's personality style.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Persona {
    /// Warm and conversational.
    #[default]
    Friendly,
    /// Polished and businesslike.
    Professional,
    /// Short, to-the-point answers.
    Concise,
    /// Your own description of how the assistant should behave.
    Custom,
}

/// Who the assistant is and who it is talking to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct AssistantConfig {
    /// What the assistant calls itself.
    pub name: String,
    /// How the assistant addresses you.
    pub user_name: String,
    /// Your time zone, such as Asia/Kolkata, or auto to use this computer's time zone.
    pub timezone: String,
    /// Your city and country, used for the weather, maps and local answers.
    pub location: String,
    /// The language the assistant replies in, as a short code such as en or de.
    pub language: String,
    /// Whether the first-run setup has been finished.
    pub onboarding_complete: bool,
    /// The assistant's personality style.
    pub persona: Persona,
    /// How the assistant should behave when the personality style is custom.
    pub custom_persona: String,
    /// A few words about your work, so the assistant understands your professional life.
    pub professional_context: String,
    /// A few words about your life outside work, so the assistant understands you better.
    pub personal_context: String,
}

impl Default for AssistantConfig {
    fn default() -> Self {
        Self {
            name: "Sentient".to_owned(),
            user_name: String::new(),
            timezone: "auto".to_owned(),
            location: String::new(),
            language: "en".to_owned(),
            onboarding_complete: false,
            persona: Persona::Friendly,
            custom_persona: String::new(),
            professional_context: String::new(),
            personal_context: String::new(),
        }
    }
}

// -------------------------------------------------------------------------------------- ui

/// The colour scheme of the window.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// Light text on a dark background.
    #[default]
    Dark,
    /// Dark text on a light background.
    Light,
    /// Follow this computer's light or dark setting.
    System,
}

/// How the Sentient window looks and behaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct UiConfig {
    /// The colour scheme of the window.
    pub theme: Theme,
    /// The highlight colour: sentient (amber), violet, blue, emerald or rose.
    pub accent: String,
    /// Start Sentient when you log in to this computer.
    pub launch_at_login: bool,
    /// Closing the window keeps Sentient running in the system tray.
    pub minimize_to_tray: bool,
}

impl Default for UiConfig {
    fn default() -> Self {
        Self {
            theme: Theme::Dark,
            accent: "sentient".to_owned(),
            launch_at_login: false,
            minimize_to_tray: true,
        }
    }
}

// ---------------------------------------------------------------------------------- models

/// Connection details for one AI model provider; its key lives in the keychain, never here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ProviderSettings {
    /// A different web address for this provider, for local servers or proxies; empty uses the usual one.
    pub api_base: Option<String>,
    /// The environment variable that holds this provider's key when it is not saved in the keychain.
    pub api_key_env: Option<String>,
}

impl ProviderSettings {
    fn base(url: &str) -> Self {
        Self {
            api_base: Some(url.to_owned()),
            api_key_env: None,
        }
    }

    fn key_env(name: &str) -> Self {
        Self {
            api_base: None,
            api_key_env: Some(name.to_owned()),
        }
    }
}

/// A saved model setup you can switch to in one step; anything left out keeps its current value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ModelPreset {
    /// The model for each role; a role left out keeps its model and an empty one uses the main model.
    pub roles: BTreeMap<String, Option<String>>,
    /// Backup models for each role, replacing the current backups when set.
    pub fallbacks: Option<BTreeMap<String, Vec<String>>>,
    /// How hard each role thinks before answering, replacing the current setting when set.
    pub reasoning: Option<BTreeMap<String, String>>,
    /// How much text (in tokens) a local model reads at once, replacing the current length when set.
    #[schemars(range(min = 2048, max = 1_048_576))]
    pub context_length: Option<u32>,
    /// A reading length for particular roles, replacing the current per-role lengths when set.
    pub context_length_per_role: Option<BTreeMap<String, u32>>,
}

/// Which AI models do which job, and how Sentient connects to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ModelsConfig {
    /// The main model you chat with and that uses tools, written as provider/model (for example ollama_chat/qwen3:8b).
    pub primary: String,
    /// A quick model for small background jobs such as memory notes, summaries and titles; empty uses the main model.
    pub fast: Option<String>,
    /// The model that plans tasks; empty uses the main model.
    pub planner: Option<String>,
    /// The model that carries out long tasks; empty uses the main model.
    pub executor: Option<String>,
    /// The model that turns text into numbers for memory search; changing it re-indexes your memories.
    pub embedding: Option<String>,
    /// The model used when you attach a picture; empty uses the main model.
    pub vision: Option<String>,
    /// The model for spoken conversations, where speed matters most; empty uses the main model.
    pub voice: Option<String>,
    /// Backup models for each role, tried in order when the role's own model fails.
    pub fallbacks: BTreeMap<String, Vec<String>>,
    /// How hard each role thinks before answering: none, low, medium or high (none is fastest).
    pub reasoning: BTreeMap<String, String>,
    /// An optional creativity setting (temperature) for each role; lower is more predictable.
    pub temperature: BTreeMap<String, f64>,
    /// How much text (in tokens) a local model reads at once; bigger sees more but needs more graphics memory, and cloud models ignore it.
    #[schemars(range(min = 2048, max = 1_048_576))]
    pub context_length: Option<u32>,
    /// A different reading length for particular roles, replacing the one above for that role.
    pub context_length_per_role: BTreeMap<String, u32>,
    /// Connection settings for each AI provider, by provider name.
    pub providers: BTreeMap<String, ProviderSettings>,
    /// Let a local model do one job at a time, so chat replies go first and nothing overloads this computer.
    pub local_queue: bool,
    /// Seconds after a chat reply before background work may use the local model again.
    #[schemars(range(max = 3600))]
    pub background_quiet_s: u32,
    /// Let background work use the local model while this computer runs on battery.
    pub background_on_battery: bool,
    /// The app id used for Sign in with ChatGPT; empty turns the ChatGPT sign-in off.
    pub chatgpt_client_id: String,
    /// Experimental: let Claude models answer your chats through your own Claude Code install and login.
    pub experimental_claude_code: bool,
    /// The model setup you chose last, shown with a check in the model menu.
    pub active_preset: Option<String>,
    /// Your own saved model setups, by name (the built-in Local only, Cloud and Mixed setups are not stored here).
    pub presets: BTreeMap<String, ModelPreset>,
    /// Most rounds of tool use in one chat reply before the assistant has to answer.
    #[schemars(range(min = 1, max = 100))]
    pub max_tool_rounds: u32,
    /// Seconds to wait for one answer from a model before giving up.
    #[schemars(range(min = 10))]
    pub request_timeout_s: u32,
}

impl Default for ModelsConfig {
    fn default() -> Self {
        let reasoning = [
            ("primary", "medium"),
            ("fast", "none"),
            ("planner", "none"),
            ("executor", "none"),
            ("voice", "none"),
        ]
        .into_iter()
        .map(|(role, effort)| (role.to_owned(), effort.to_owned()))
        .collect();
        let providers = [
            ("ollama", ProviderSettings::base("http://localhost:11434")),
            (
                "ollama_chat",
                ProviderSettings::base("http://localhost:11434"),
            ),
            (
                "lm_studio",
                ProviderSettings::base("http://localhost:1234/v1"),
            ),
            ("openai", ProviderSettings::key_env("OPENAI_API_KEY")),
            ("anthropic", ProviderSettings::key_env("ANTHROPIC_API_KEY")),
            ("gemini", ProviderSettings::key_env("GEMINI_API_KEY")),
            (
                "openrouter",
                ProviderSettings::key_env("OPENROUTER_API_KEY"),
            ),
            ("nous", ProviderSettings::key_env("NOUS_API_KEY")),
            ("groq", ProviderSettings::key_env("GROQ_API_KEY")),
            ("mistral", ProviderSettings::key_env("MISTRAL_API_KEY")),
            ("deepseek", ProviderSettings::key_env("DEEPSEEK_API_KEY")),
            ("xai", ProviderSettings::key_env("XAI_API_KEY")),
        ]
        .into_iter()
        .map(|(name, settings)| (name.to_owned(), settings))
        .collect();
        Self {
            primary: "ollama_chat/qwen3:8b".to_owned(),
            fast: Some("ollama_chat/qwen3:8b".to_owned()),
            planner: None,
            executor: None,
            embedding: Some("ollama/nomic-embed-text".to_owned()),
            vision: None,
            voice: None,
            fallbacks: BTreeMap::new(),
            reasoning,
            temperature: BTreeMap::new(),
            // Ollama's own default of 4096 quietly cuts off long tasks; 8192 still keeps
            // qwen3:8b entirely on an 8 GB graphics card.
            context_length: Some(8192),
            context_length_per_role: BTreeMap::new(),
            providers,
            local_queue: true,
            background_quiet_s: 30,
            background_on_battery: false,
            chatgpt_client_id: "dynamic_agent_client".to_owned(),
            experimental_claude_code: false,
            active_preset: None,
            presets: BTreeMap::new(),
            max_tool_rounds: 12,
            request_timeout_s: 180,
        }
    }
}

// ----------------------------------------------------------------------------------- tasks

/// What a repeating task remembers from its earlier runs, so it reports only what is new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ContinuityConfig {
    /// Repeating tasks remember their earlier runs and keep notes between them.
    pub enabled: bool,
    /// Longest the notes a repeating task keeps between runs may be, in characters.
    #[schemars(range(min = 100, max = 20_000))]
    pub notepad_chars: u32,
    /// How many earlier finished runs a repeating task is reminded of (0 turns reminders off).
    #[schemars(range(max = 20))]
    pub runs: u32,
    /// Longest each remembered earlier answer may be, in characters.
    #[schemars(range(min = 50, max = 5000))]
    pub answer_chars: u32,
    /// Also let tasks started by an event (a new email, a webhook) remember earlier runs.
    pub triggered: bool,
}

impl Default for ContinuityConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            notepad_chars: 1500,
            runs: 3,
            answer_chars: 400,
            triggered: false,
        }
    }
}

/// How long-running and scheduled tasks are planned, run and limited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct TasksConfig {
    /// How often, in seconds, Sentient checks for tasks that are due.
    #[schemars(range(min = 5, max = 3600))]
    pub tick_seconds: u32,
    /// How many task runs may work at the same time.
    #[schemars(range(min = 1, max = 16))]
    pub max_concurrent_runs: u32,
    /// Minutes of work after which a run asks whether to keep going (time waiting for your answer doesn't count).
    #[schemars(range(min = 1))]
    pub run_timeout_minutes: u32,
    /// Steps after which a run asks whether to keep going.
    #[schemars(range(min = 1, max = 200))]
    pub max_tool_rounds: u32,
    /// Tokens used on a cloud model after which a run asks whether to keep going (0 means no limit).
    pub max_tokens_per_run: u32,
    /// US dollars spent on a cloud model after which a run asks whether to keep going (0 means no limit).
    #[schemars(range(min = 0.0))]
    pub max_cost_per_run_usd: f64,
    /// Most questions one run may ask you before it has to manage on its own.
    #[schemars(range(min = 0, max = 20))]
    pub max_questions_per_run: u32,
    /// New task plans wait for your approval before they run.
    pub require_plan_approval: bool,
    /// Most helpers one swarm task may run side by side.
    #[schemars(range(min = 1, max = 50))]
    pub swarm_max_agents: u32,
    /// When Sentient restarts, continue runs that were in progress instead of marking them failed.
    pub resume_interrupted_runs: bool,
    /// A run that shows no sign of work for this many minutes stops and asks you what to do (0 turns this off).
    pub stuck_after_minutes: u32,
    /// A run whose step fails with the same error this many times in a row stops and asks you what to do (0 turns this off).
    #[schemars(range(max = 50))]
    pub stuck_after_repeated_errors: u32,
    /// A task missed while the computer was off runs once if it is less than this many hours late (0 always skips it).
    #[schemars(range(max = 168))]
    pub catch_up_window_hours: u32,
    /// What a repeating task remembers from its earlier runs.
    pub continuity: ContinuityConfig,
    /// Longest a task's brief may be, in characters, once written out.
    #[schemars(range(min = 200, max = 20_000))]
    pub brief_chars: u32,
}

impl Default for TasksConfig {
    fn default() -> Self {
        Self {
            tick_seconds: 30,
            max_concurrent_runs: 2,
            run_timeout_minutes: 30,
            max_tool_rounds: 40,
            max_tokens_per_run: 2_000_000,
            max_cost_per_run_usd: 5.0,
            max_questions_per_run: 5,
            require_plan_approval: true,
            swarm_max_agents: 5,
            resume_interrupted_runs: true,
            stuck_after_minutes: 10,
            stuck_after_repeated_errors: 5,
            catch_up_window_hours: 12,
            continuity: ContinuityConfig::default(),
            brief_chars: 1500,
        }
    }
}

// ------------------------------------------------------------------------------------ chat

/// Which tools are offered to the model on each message.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolSelection {
    /// Offer only the tools that fit the message when there are too many, which helps small local models.
    #[default]
    Auto,
    /// Always offer every tool.
    All,
}

/// How chat conversations are handled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ChatConfig {
    /// How many recent messages are sent to the model with each reply.
    #[schemars(range(min = 2))]
    pub history_window: u32,
    /// After this many messages, older parts of a long chat are summarized to keep it manageable.
    #[schemars(range(min = 10))]
    pub compress_after_messages: u32,
    /// Show the model's reasoning in a block you can open.
    pub show_thinking: bool,
    /// Name new chats automatically from their first exchange.
    pub auto_title: bool,
    /// Which tools are offered to the model on each message.
    pub tool_selection: ToolSelection,
    /// Most tools offered at once to a model running on this computer.
    #[schemars(range(min = 3, max = 200))]
    pub max_tools_local: u32,
    /// Most tools offered at once to a cloud model.
    #[schemars(range(min = 3, max = 500))]
    pub max_tools_cloud: u32,
    /// Longest tool result the model reads, in characters; longer ones are cut and saved in full to a file.
    #[schemars(range(min = 1000, max = 1_000_000))]
    pub tool_result_max_chars: u32,
    /// Largest share of the model's reading length one tool result may fill.
    #[schemars(range(min = 0.01, max = 1.0))]
    pub tool_result_context_share: f64,
    /// Run look-ups the model asks for in the same step at the same time.
    pub parallel_read_tools: bool,
}

impl Default for ChatConfig {
    fn default() -> Self {
        Self {
            history_window: 30,
            compress_after_messages: 60,
            show_thinking: true,
            auto_title: true,
            tool_selection: ToolSelection::Auto,
            max_tools_local: 12,
            max_tools_cloud: 64,
            tool_result_max_chars: 16_000,
            tool_result_context_share: 0.25,
            parallel_read_tools: true,
        }
    }
}

// ----------------------------------------------------------------------------------- tools

/// When the assistant asks before using a tool.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Never ask (purchases and your own Ask rules still ask).
    Off,
    /// Ask before changing things outside Sentient, sending, deleting or running code.
    #[default]
    Ask,
    /// Ask before every tool use.
    Always,
}

/// A lasting rule for one app or tool.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum RuleValue {
    /// Go ahead without asking (purchases still ask).
    Allow,
    /// Always ask first, whatever the approval mode says.
    #[default]
    Ask,
    /// Sentient can't use it at all.
    Never,
}

/// The chat message a lasting rule was made from, so Settings can show where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct RuleOrigin {
    /// The rule your message asked for.
    pub rule: RuleValue,
    /// Your own words that asked for the rule.
    pub said: String,
    /// When you made the rule.
    pub at: String,
    /// The chat the message was in.
    pub session_id: Option<String>,
}

impl Default for RuleOrigin {
    fn default() -> Self {
        Self {
            rule: RuleValue::Ask,
            said: String::new(),
            at: String::new(),
            session_id: None,
        }
    }
}

/// When the assistant asks you before acting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ApprovalsConfig {
    /// When the assistant asks before using a tool.
    pub mode: ApprovalMode,
    /// Honor "Allow for this chat" answers for the rest of that chat.
    pub remember_session: bool,
    /// Seconds an approval question waits for your answer before it counts as a no.
    #[schemars(range(min = 10))]
    pub timeout_s: u32,
    /// Lasting rules for apps and tools, by tool name or app id; a tool's own rule beats its app's rule.
    pub rules: BTreeMap<String, RuleValue>,
    /// Where each lasting rule came from when you made it from a chat message.
    pub rule_origins: BTreeMap<String, RuleOrigin>,
}

impl Default for ApprovalsConfig {
    fn default() -> Self {
        Self {
            mode: ApprovalMode::Ask,
            remember_session: true,
            timeout_s: 600,
            rules: BTreeMap::new(),
            rule_origins: BTreeMap::new(),
        }
    }
}

/// Which tools the assistant may use and when it asks you first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ToolsConfig {
    /// When the assistant asks you before acting.
    pub approvals: ApprovalsConfig,
    /// Tools or apps hidden from the assistant.
    pub disabled: Vec<String>,
    /// Stop when the assistant repeats the same step with the same details and result this many times (0 turns this off).
    #[schemars(range(max = 20))]
    pub repeated_call_limit: u32,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self {
            approvals: ApprovalsConfig::default(),
            disabled: Vec::new(),
            repeated_call_limit: 3,
        }
    }
}

// ------------------------------------------------------------------------------- subagents

/// Which model role a helper uses.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SubagentRole {
    /// The model that carries out long tasks.
    #[default]
    Executor,
    /// The main model.
    Primary,
    /// The quick model for small jobs.
    Fast,
}

/// Helpers the assistant can start to work on parts of a job alongside the chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct SubagentsConfig {
    /// Let the assistant hand parts of a job to helpers that run alongside the chat.
    pub enabled: bool,
    /// How many helpers may run at the same time.
    #[schemars(range(min = 1, max = 16))]
    pub max_concurrent: u32,
    /// Most steps one helper may take.
    #[schemars(range(min = 1, max = 200))]
    pub max_rounds: u32,
    /// Which model role helpers use.
    pub role: SubagentRole,
    /// A helper is stopped after working this many minutes.
    #[schemars(range(min = 1))]
    pub timeout_minutes: u32,
    /// A helper is stopped after using this many tokens on a cloud model (0 means no limit).
    pub max_tokens: u32,
    /// A helper is stopped after spending about this many US dollars on a cloud model (0 means no limit).
    #[schemars(range(min = 0.0))]
    pub max_cost_usd: f64,
}

impl Default for SubagentsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_concurrent: 3,
            max_rounds: 24,
            role: SubagentRole::Executor,
            timeout_minutes: 20,
            max_tokens: 1_000_000,
            max_cost_usd: 2.0,
        }
    }
}

// ---------------------------------------------------------------------------- integrations

/// Which service answers web searches.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SearchProvider {
    /// DuckDuckGo, which needs no key.
    #[default]
    Duckduckgo,
    /// Brave Search, which needs a key.
    Brave,
    /// Google Programmable Search, which needs a key.
    GoogleCse,
    /// Your own SearXNG server.
    Searxng,
}

/// Which service answers weather questions.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum WeatherProvider {
    /// Open-Meteo, which needs no key.
    #[default]
    OpenMeteo,
    /// AccuWeather, which needs a key.
    Accuweather,
}

/// How Sentient talks to an outside tool server.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A program Sentient starts on this computer.
    #[default]
    Stdio,
    /// A server reached at a web address.
    Http,
}

/// How Sentient proves who you are to a server reached at a web address.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum McpAuth {
    /// No sign-in.
    #[default]
    None,
    /// Fixed headers, such as an access key, sent with every request.
    Headers,
    /// A browser sign-in.
    Oauth,
}

/// One outside tool server (MCP); secret values live in the keychain, only their names are here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct McpServerConfig {
    /// Whether Sentient starts the server as a program here or reaches it at a web address.
    pub transport: McpTransport,
    /// The program to start, for a server that runs on this computer.
    pub command: String,
    /// The words passed to that program when it starts.
    pub args: Vec<String>,
    /// The web address of the server, for a server reached online.
    pub url: String,
    /// Names of the settings the program needs; their values are kept in the keychain.
    pub env_keys: Vec<String>,
    /// Names of the headers sent to the server; their values are kept in the keychain.
    pub header_keys: Vec<String>,
    /// How Sentient proves who you are to a server reached at a web address.
    pub auth: McpAuth,
    /// Whether the server is turned on.
    pub enabled: bool,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        Self {
            transport: McpTransport::Stdio,
            command: String::new(),
            args: Vec::new(),
            url: String::new(),
            env_keys: Vec::new(),
            header_keys: Vec::new(),
            auth: McpAuth::None,
            enabled: true,
        }
    }
}

/// Connected apps, web services, MCP servers and webhooks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct IntegrationsConfig {
    /// The port on this computer that app sign-ins return to (0 picks a free one).
    pub oauth_redirect_port: u16,
    /// Which service answers web searches.
    pub search_provider: SearchProvider,
    /// The web address of your SearXNG server, when web search uses SearXNG.
    pub searxng_url: String,
    /// Which service answers weather questions.
    pub weather_provider: WeatherProvider,
    /// Outside tool servers (MCP) by name; their passwords and sign-ins live in the keychain.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Only show the assistant tools of apps that are connected, which keeps small local models focused.
    pub hide_disconnected_tools: bool,
    /// Apps set to Read only: Sentient can look things up there but can't change, send or delete anything.
    pub read_only: Vec<String>,
    /// Two-letter country code for top news headlines (empty guesses from your location).
    pub news_country: String,
    /// Longest page text the web page reader gives the assistant, in characters.
    #[schemars(range(min = 1000, max = 200_000))]
    pub web_fetch_max_chars: u32,
    /// An optional GitHub app id that turns on "Sign in with GitHub" instead of pasting a token.
    pub github_oauth_client_id: String,
    /// Seconds to wait for one answer from an outside tool server (MCP).
    #[schemars(range(min = 5, max = 600))]
    pub mcp_timeout_s: u32,
    /// How often, in seconds, Gmail, Google Calendar and IMAP email are checked for changes (0 turns this off).
    #[schemars(range(max = 3600))]
    pub fast_sync_seconds: u32,
    /// Hide one-time codes, sign-in links and password reset links in your email before the assistant reads it.
    pub hide_one_time_codes: bool,
    /// Largest message, in kilobytes, one of your webhooks accepts.
    #[schemars(range(min = 1, max = 10_240))]
    pub webhook_max_body_kb: u32,
    /// Most calls one webhook accepts per minute, so a leaked address can't flood Sentient (0 turns the limit off).
    #[schemars(range(max = 6000))]
    pub webhook_rate_limit_per_minute: u32,
}

impl Default for IntegrationsConfig {
    fn default() -> Self {
        Self {
            oauth_redirect_port: 0,
            search_provider: SearchProvider::Duckduckgo,
            searxng_url: String::new(),
            weather_provider: WeatherProvider::OpenMeteo,
            mcp_servers: BTreeMap::new(),
            hide_disconnected_tools: true,
            read_only: Vec::new(),
            news_country: String::new(),
            web_fetch_max_chars: 20_000,
            github_oauth_client_id: String::new(),
            mcp_timeout_s: 60,
            fast_sync_seconds: 60,
            hide_one_time_codes: true,
            webhook_max_body_kb: 256,
            webhook_rate_limit_per_minute: 30,
        }
    }
}

// ----------------------------------------------------------------------------- proactivity

/// Which model role decides whether something deserves a suggestion.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ReasonerRole {
    /// The quick model for small jobs.
    #[default]
    Fast,
    /// The main model.
    Primary,
}

/// Once a day, look for email conversations still waiting on a reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct FollowUpsConfig {
    /// Once a day, find emails still waiting on a reply and offer a ready draft; nothing is sent without your approval.
    pub enabled: bool,
    /// Which connected email accounts are checked: gmail, email_imap or both.
    pub sources: Vec<String>,
    /// Suggest a reply when an email to you has had no answer for this many days.
    #[schemars(range(min = 1, max = 60))]
    pub waiting_on_you_days: u32,
    /// Suggest a nudge when your own question has had no answer for this many days.
    #[schemars(range(min = 1, max = 60))]
    pub waiting_on_them_days: u32,
    /// Leave conversations alone once they have been quiet for longer than this many days.
    #[schemars(range(min = 2, max = 180))]
    pub max_age_days: u32,
    /// Most follow-up suggestions from one daily check.
    #[schemars(range(min = 1, max = 20))]
    pub max_suggestions: u32,
}

impl Default for FollowUpsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            sources: strings(&["gmail", "email_imap"]),
            waiting_on_you_days: 3,
            waiting_on_them_days: 4,
            max_age_days: 21,
            max_suggestions: 3,
        }
    }
}

/// What the Daily Brief and the Evening Brief include.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct BriefConfig {
    /// Whether you asked for the Daily Brief; the brief itself is a task you can pause or delete in Tasks.
    pub enabled: bool,
    /// What the morning brief includes: calendar, email, tasks, weather and news; leave one out to turn it off.
    pub sections: Vec<String>,
    /// What the Evening Brief includes: done, sent, files, waiting and tomorrow; leave one out to turn it off.
    pub evening_sections: Vec<String>,
    /// Most lines in one brief.
    #[schemars(range(min = 1, max = 20))]
    pub max_items: u32,
    /// Topics for the news section, such as climate or cricket; no topics means no news.
    pub news_topics: Vec<String>,
    /// Let the quick model shorten each unread email to one line; when off, the sender and subject are shown.
    pub summarize_emails: bool,
}

impl Default for BriefConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            sections: strings(&["calendar", "email", "tasks", "weather"]),
            evening_sections: strings(&["done", "sent", "files", "waiting", "tomorrow"]),
            max_items: 7,
            news_topics: Vec::new(),
            summarize_emails: true,
        }
    }
}

/// Suggestions Sentient makes on its own, follow-ups and the Daily Brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ProactivityConfig {
    /// Let Sentient watch your connected apps and suggest things to do.
    pub enabled: bool,
    /// How often, in minutes, connected apps without live updates are checked for new items.
    #[schemars(range(min = 1))]
    pub poll_interval_minutes: u32,
    /// How sure Sentient must be, from 0 to 1, before it shows a suggestion.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub base_confidence_threshold: f64,
    /// Hours with no suggestions, such as 22:00-07:00; suggestions made then arrive when they end.
    pub quiet_hours: String,
    /// Minutes between check-ins that look for something worth mentioning (0 turns them off).
    pub heartbeat_minutes: u32,
    /// Which connected apps are watched for new items.
    pub sources: Vec<String>,
    /// Which model role decides whether something deserves a suggestion.
    pub reasoner_role: ReasonerRole,
    /// How many look-ups across your connected apps happen before deciding on a suggestion (0 skips them).
    #[schemars(range(max = 10))]
    pub context_agent_rounds: u32,
    /// When an app is newly connected, how many hours back its first check looks.
    #[schemars(range(max = 168))]
    pub first_poll_lookback_hours: u32,
    /// Most new items handled from one app in one check.
    #[schemars(range(min = 1, max = 200))]
    pub max_items_per_poll: u32,
    /// Most check-in suggestions per day.
    #[schemars(range(min = 1, max = 24))]
    pub heartbeat_daily_cap: u32,
    /// Hours after which a suggestion you have not acted on expires.
    #[schemars(range(min = 1, max = 720))]
    pub suggestion_ttl_hours: u32,
    /// Also suggest things to do when one of your webhooks is called and no task handles it.
    pub webhook_suggestions: bool,
    /// Notice emails waiting on a reply and offer a draft.
    pub followups: FollowUpsConfig,
    /// Your Daily Brief and Evening Brief.
    pub brief: BriefConfig,
}

impl Default for ProactivityConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            poll_interval_minutes: 10,
            base_confidence_threshold: 0.70,
            quiet_hours: String::new(),
            heartbeat_minutes: 0,
            sources: strings(&["gmail", "gcalendar"]),
            reasoner_role: ReasonerRole::Fast,
            context_agent_rounds: 3,
            first_poll_lookback_hours: 6,
            max_items_per_poll: 20,
            heartbeat_daily_cap: 3,
            suggestion_ttl_hours: 48,
            webhook_suggestions: true,
            followups: FollowUpsConfig::default(),
            brief: BriefConfig::default(),
        }
    }
}

// ---------------------------------------------------------------------------------- memory

/// What Sentient remembers about you and how it recalls it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct MemoryConfig {
    /// Let Sentient remember things about you from one chat to the next.
    pub enabled: bool,
    /// How many remembered facts are brought into each reply.
    #[schemars(range(max = 50))]
    pub facts_top_k: u32,
    /// How closely, from 0 to 1, a fact must match a message to be recalled.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_similarity: f64,
    /// Above this match, from 0 to 1, a new fact counts as a duplicate and is skipped; keep it high.
    #[schemars(range(min = 0.5, max = 1.0))]
    pub duplicate_similarity: f64,
    /// Learn facts about you from each message in the background.
    pub extract_after_turn: bool,
    /// Most characters taken from each of Sentient's notes files (such as USER.md) into a reply.
    #[schemars(range(min = 500))]
    pub workspace_budget_chars: u32,
    /// How closely, from 0 to 1, two memories must match to be linked in the memory map.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub graph_link_similarity: f64,
    /// Conversation parts older than this many minutes are summarized into memories of past chats.
    #[schemars(range(min = 5))]
    pub summarize_after_minutes: u32,
    /// How many messages go into one summary of a past chat.
    #[schemars(range(min = 6))]
    pub summary_chunk_messages: u32,
    /// Summarize older conversations into memories of past chats in the background.
    pub summaries_enabled: bool,
    /// How often, in minutes, Sentient looks for conversations to summarize.
    #[schemars(range(min = 1))]
    pub summarize_interval_minutes: u32,
    /// How often, in minutes, short-term memories that have expired are deleted.
    #[schemars(range(min = 5))]
    pub purge_interval_minutes: u32,
    /// Characters read at a time when learning facts from a document you import.
    #[schemars(range(min = 500, max = 20_000))]
    pub import_chunk_chars: u32,
    /// Before old parts of a long chat are summarized, save the lasting facts they contain.
    pub flush_enabled: bool,
    /// Most characters of a chat read when saving facts before it is summarized.
    #[schemars(range(min = 500, max = 50_000))]
    pub flush_max_chars: u32,
    /// Most facts saved from one chat before it is summarized.
    #[schemars(range(max = 50))]
    pub flush_max_facts: u32,
    /// How much matching words add to a memory's rank when searching, from 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub keyword_weight: f64,
    /// Days a memory waiting for your review is kept before it is deleted.
    #[schemars(range(min = 1, max = 365))]
    pub review_expire_days: u32,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            facts_top_k: 8,
            min_similarity: 0.35,
            // Embedding models score contradictions (Pune vs Mumbai) as very similar, so only
            // near-identical wording may skip the model's decision.
            duplicate_similarity: 0.98,
            extract_after_turn: true,
            workspace_budget_chars: 6000,
            graph_link_similarity: 0.80,
            summarize_after_minutes: 60,
            summary_chunk_messages: 30,
            summaries_enabled: true,
            summarize_interval_minutes: 5,
            purge_interval_minutes: 60,
            import_chunk_chars: 4000,
            flush_enabled: true,
            flush_max_chars: 6000,
            flush_max_facts: 8,
            keyword_weight: 0.15,
            review_expire_days: 30,
        }
    }
}

// -------------------------------------------------------------------------------- dreaming

/// The nightly clean-up of memories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct DreamingConfig {
    /// Tidy up memory overnight: merge duplicates and settle facts that contradict each other.
    pub enabled: bool,
    /// The local time the nightly clean-up may start, as HH:MM.
    pub time: String,
    /// Only clean up when you have not chatted for this many minutes.
    #[schemars(range(max = 1440))]
    pub require_idle_minutes: u32,
    /// Which model role merges memories and checks contradictions.
    pub role: String,
    /// Most recent facts looked at in one night.
    #[schemars(range(min = 10, max = 20_000))]
    pub max_facts: u32,
    /// Most model calls one night's clean-up may make.
    #[schemars(range(max = 500))]
    pub max_model_calls: u32,
    /// How closely, from 0 to 1, two facts must match to be considered duplicates.
    #[schemars(range(min = 0.5, max = 1.0))]
    pub merge_similarity: f64,
    /// Share of meaningful words, from 0 to 1, two facts must have in common to be merged.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub merge_min_overlap: f64,
    /// How closely, from 0 to 1, two facts about broad topics (routine, belongings, health) must match to be checked for a contradiction.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub contradiction_similarity: f64,
    /// Short-term facts recalled at least this many times become long-term.
    #[schemars(range(min = 1, max = 1000))]
    pub promote_min_recalls: u32,
    /// Refresh the picture of your preferences as part of each night's clean-up.
    pub refresh_user_model: bool,
    /// Send a notification when a night's clean-up changed something meaningful.
    pub notify: bool,
}

impl Default for DreamingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            time: "03:00".to_owned(),
            require_idle_minutes: 30,
            role: "fast".to_owned(),
            max_facts: 500,
            max_model_calls: 20,
            merge_similarity: 0.9,
            merge_min_overlap: 0.6,
            contradiction_similarity: 0.5,
            promote_min_recalls: 3,
            refresh_user_model: true,
            notify: true,
        }
    }
}

// ------------------------------------------------------------------------------ user_model

/// The picture Sentient builds of your preferences, goals and style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct UserModelConfig {
    /// Build an evolving picture of your preferences, goals and style.
    pub enabled: bool,
    /// Which model role updates this picture and answers questions about you.
    pub role: String,
    /// Update the picture after this many chat replies.
    #[schemars(range(min = 1, max = 500))]
    pub refresh_after_turns: u32,
    /// Automatic updates happen at most once per this many hours.
    #[schemars(range(min = 0.0, max = 720.0))]
    pub min_refresh_hours: f64,
    /// Most changes one update may make.
    #[schemars(range(min = 1, max = 50))]
    pub max_operations: u32,
    /// Stop adding guessed insights beyond this many.
    #[schemars(range(min = 5, max = 1000))]
    pub max_active_insights: u32,
    /// Most questions about you waiting for your answer at once.
    #[schemars(range(max = 50))]
    pub max_open_questions: u32,
    /// How much confidence, from 0 to 0.5, an insight gains when new evidence supports it.
    #[schemars(range(min = 0.0, max = 0.5))]
    pub support_step: f64,
    /// How much confidence, from 0 to 1, an insight loses when new evidence contradicts it.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub contradict_step: f64,
    /// An insight whose confidence drops below this is marked disputed and you are asked about it.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dispute_below: f64,
    /// Most characters about you added to each reply's instructions.
    #[schemars(range(max = 4000))]
    pub context_max_chars: u32,
    /// How closely, from 0 to 1, an insight must match a message to count as relevant; keep it high.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub context_min_similarity: f64,
    /// Recent messages of yours read in one update.
    #[schemars(range(max = 200))]
    pub recent_messages: u32,
    /// New or changed facts read in one update.
    #[schemars(range(max = 200))]
    pub recent_facts: u32,
    /// Summaries of past chats read in one update.
    #[schemars(range(max = 50))]
    pub recent_summaries: u32,
}

impl Default for UserModelConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            role: "fast".to_owned(),
            refresh_after_turns: 12,
            min_refresh_hours: 24.0,
            max_operations: 8,
            max_active_insights: 80,
            max_open_questions: 5,
            support_step: 0.1,
            contradict_step: 0.2,
            dispute_below: 0.35,
            context_max_chars: 600,
            // Local embedding models score unrelated text around 0.65.
            context_min_similarity: 0.7,
            recent_messages: 30,
            recent_facts: 25,
            recent_summaries: 5,
        }
    }
}

// ---------------------------------------------------------------------------------- skills

/// Skills: saved step-by-step procedures Sentient can follow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct SkillsConfig {
    /// Extra folders on this computer to load skills from.
    pub extra_dirs: Vec<String>,
    /// Skills Sentient writes for itself wait for your review before they are used.
    pub write_approval: bool,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        Self {
            extra_dirs: Vec::new(),
            write_approval: true,
        }
    }
}

// ------------------------------------------------------------------------------- evolution

/// How Sentient learns new skills and keeps them working.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct EvolutionConfig {
    /// After chats and task runs, look for procedures worth saving as skills.
    pub review_enabled: bool,
    /// Look over a chat once it has been idle this many minutes.
    #[schemars(range(min = 1))]
    pub review_idle_minutes: u32,
    /// Only look over work that used at least this many tools.
    #[schemars(range(min = 1))]
    pub min_tool_calls_for_review: u32,
    /// Now and then retire unused skills and combine duplicates.
    pub curator_enabled: bool,
    /// How often, in hours, unused and duplicate skills are tidied up.
    #[schemars(range(min = 1))]
    pub curator_interval_hours: u32,
    /// Skills unused for this many days are marked stale.
    #[schemars(range(min = 1))]
    pub stale_after_days: u32,
    /// Stale skills unused for this many days are archived.
    #[schemars(range(min = 1))]
    pub archive_after_days: u32,
    /// Suggest combining skills that do nearly the same thing, for your review.
    pub curator_merge_suggestions: bool,
    /// Keep the notes about you and about what Sentient remembers (USER.md and MEMORY.md) up to date.
    pub user_profile_updates: bool,
    /// How often, in hours, those notes are refreshed.
    #[schemars(range(min = 1))]
    pub profile_update_hours: u32,
    /// When a skill fails in use or you correct its result, draft a fix for your review.
    pub skill_repair: bool,
    /// Hours to wait between fixes proposed for the same skill.
    #[schemars(range(max = 168))]
    pub repair_cooldown_hours: u32,
}

impl Default for EvolutionConfig {
    fn default() -> Self {
        Self {
            review_enabled: true,
            review_idle_minutes: 10,
            min_tool_calls_for_review: 3,
            curator_enabled: true,
            curator_interval_hours: 168,
            stale_after_days: 14,
            archive_after_days: 30,
            curator_merge_suggestions: true,
            user_profile_updates: true,
            profile_update_hours: 24,
            skill_repair: true,
            repair_cooldown_hours: 6,
        }
    }
}

// ----------------------------------------------------------------------------------- voice

/// Which engine turns your speech into text.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SttProvider {
    /// Whisper running on this computer, with nothing sent online.
    #[default]
    FasterWhisper,
    /// OpenAI's online speech recognition, which needs a key.
    Openai,
    /// Deepgram's online speech recognition, which needs a key.
    Deepgram,
    /// ElevenLabs' online speech recognition, which needs a key.
    Elevenlabs,
}

/// Where speech recognition on this computer runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SttDevice {
    /// Small models on the processor, keeping the graphics card free; large ones try the graphics card first.
    #[default]
    Auto,
    /// Always the processor.
    Cpu,
    /// Always the NVIDIA graphics card.
    Cuda,
}

/// Which engine speaks replies aloud.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum TtsProvider {
    /// This computer's own voices, with no download.
    #[default]
    System,
    /// Kokoro, a natural-sounding voice that runs on this computer after a download.
    Kokoro,
    /// OpenAI's online voices, which need a key.
    Openai,
    /// ElevenLabs' online voices, which need a key.
    Elevenlabs,
}

/// Size and precision of the Kokoro voice model.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum KokoroVariant {
    /// The smallest download (88 MB), but about four times slower.
    Int8,
    /// A middle size, best on graphics cards.
    Fp16,
    /// The largest download (310 MB) and the fastest on a processor.
    #[default]
    Fp32,
}

/// How the wake word is heard.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum WakeEngine {
    /// A tiny speech model that understands any phrase.
    #[default]
    Whisper,
    /// A lighter always-on listener for a few ready-made phrases or your own model.
    Openwakeword,
}

/// The small speech model that listens for the wake word.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
pub enum WakeWhisperModel {
    /// The smallest model, for any language.
    #[serde(rename = "tiny")]
    Tiny,
    /// The smallest model, English only.
    #[serde(rename = "tiny.en")]
    TinyEn,
    /// A small model for any language, much better than tiny at hearing the greeting.
    #[default]
    #[serde(rename = "base")]
    Base,
    /// A small model, English only.
    #[serde(rename = "base.en")]
    BaseEn,
}

/// How dictated text is cleaned up before it is typed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum DictationCleanup {
    /// Exactly what was heard.
    Raw,
    /// Remove filler sounds, fix spacing and add capitals and full stops, without a model.
    #[default]
    Tidy,
    /// Tidy, then let the quick model fix punctuation without changing any words.
    Polish,
}

/// Push to talk and dictation into any app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct DictationConfig {
    /// How dictated text is cleaned up before it is typed.
    pub cleanup: DictationCleanup,
    /// The language you dictate in, as a short code; empty follows the speech recognition language.
    pub language: String,
}

impl Default for DictationConfig {
    fn default() -> Self {
        Self {
            cleanup: DictationCleanup::Tidy,
            language: String::new(),
        }
    }
}

/// Talking to Sentient: speech recognition, spoken replies and the wake word.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct VoiceConfig {
    /// Let you talk to Sentient and hear its replies spoken aloud.
    pub enabled: bool,
    /// Which engine turns your speech into text.
    pub stt_provider: SttProvider,
    /// The speech recognition model: tiny, base, small, medium or large-v3 on this computer, or an online model name.
    pub stt_model: String,
    /// Where speech recognition on this computer runs.
    pub stt_device: SttDevice,
    /// The language you speak, as a short code; empty follows the reply language and auto detects it.
    pub stt_language: String,
    /// Which engine speaks replies aloud.
    pub tts_provider: TtsProvider,
    /// The voice used for spoken replies (empty uses the engine's default voice).
    pub tts_voice: String,
    /// How fast replies are spoken, where 1 is normal speed.
    #[schemars(range(min = 0.5, max = 2.0))]
    pub tts_speed: f64,
    /// The online voice model name (empty uses the provider's usual one).
    pub tts_model: String,
    /// Size and precision of the Kokoro voice model.
    pub kokoro_variant: KokoroVariant,
    /// Milliseconds of silence that end what you are saying.
    #[schemars(range(min = 200, max = 3000))]
    pub vad_silence_ms: u32,
    /// Sounds shorter than this many milliseconds, such as coughs and clicks, are ignored.
    #[schemars(range(min = 50, max = 2000))]
    pub vad_min_speech_ms: u32,
    /// Seconds after which a long stretch of speech is cut off and answered.
    #[schemars(range(min = 3.0, max = 120.0))]
    pub vad_max_utterance_s: f64,
    /// Talking while Sentient speaks interrupts it (works best with headphones).
    pub barge_in: bool,
    /// Start speaking the first part of a reply once it is this many characters long (0 waits for the whole first sentence).
    #[schemars(range(max = 240))]
    pub tts_first_clause_chars: u32,
    /// Load the speech models when Sentient starts, so the first spoken reply is quicker but memory is used even if you never talk.
    pub preload_on_start: bool,
    /// The phrase that wakes hands-free voice, such as on smart glasses or in talk mode.
    pub wake_word: String,
    /// How the wake word is heard.
    pub wake_engine: WakeEngine,
    /// How easily the wake word triggers, from 0 to 1; higher also wakes by mistake more often.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub wake_sensitivity: f64,
    /// For the lighter listener: a ready-made phrase model or the path of your own model file (empty derives it from the wake word).
    pub wake_model: String,
    /// The small speech model that listens for the wake word.
    pub wake_whisper_model: WakeWhisperModel,
    /// Play a short chime when the wake word is heard.
    pub wake_earcon: bool,
    /// Seconds after a spoken reply during which you can carry on without the wake word.
    #[schemars(range(min = 0.0, max = 120.0))]
    pub follow_up_seconds: f64,
    /// Push to talk and dictation into any app.
    pub dictation: DictationConfig,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            stt_provider: SttProvider::FasterWhisper,
            stt_model: "base".to_owned(),
            stt_device: SttDevice::Auto,
            stt_language: String::new(),
            tts_provider: TtsProvider::System,
            tts_voice: String::new(),
            tts_speed: 1.0,
            tts_model: String::new(),
            kokoro_variant: KokoroVariant::Fp32,
            vad_silence_ms: 700,
            vad_min_speech_ms: 250,
            vad_max_utterance_s: 30.0,
            barge_in: true,
            tts_first_clause_chars: 40,
            preload_on_start: false,
            wake_word: "hey sentient".to_owned(),
            wake_engine: WakeEngine::Whisper,
            wake_sensitivity: 0.5,
            wake_model: String::new(),
            wake_whisper_model: WakeWhisperModel::Base,
            wake_earcon: true,
            follow_up_seconds: 8.0,
            dictation: DictationConfig::default(),
        }
    }
}

// --------------------------------------------------------------------------------- browser

/// Which installed browser the assistant drives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum BrowserEngine {
    /// Microsoft Edge if installed, else Google Chrome.
    #[default]
    Auto,
    /// Microsoft Edge.
    Msedge,
    /// Google Chrome.
    Chrome,
    /// Chromium.
    Chromium,
}

/// How a browser profile is opened.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum BrowserProfileKind {
    /// Sentient starts its own browser with this profile's own sign-ins.
    #[default]
    Launch,
    /// Sentient connects to a browser you started yourself with remote debugging on.
    Attach,
}

/// A named browser profile with its own sign-ins, so different tasks can act as different people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct BrowserProfile {
    /// Whether Sentient starts this browser itself or connects to one you started.
    pub kind: BrowserProfileKind,
    /// Which browser this profile uses: auto, msedge, chrome or chromium (empty uses the browser chosen above).
    pub engine: String,
    /// For a connected browser, its debugging address on this computer, such as http://127.0.0.1:9333.
    pub endpoint: String,
    /// Your own notes about what this profile is for.
    pub notes: String,
}

impl Default for BrowserProfile {
    fn default() -> Self {
        Self {
            kind: BrowserProfileKind::Launch,
            engine: String::new(),
            endpoint: String::new(),
            notes: String::new(),
        }
    }
}

/// The web browser the assistant can use for sites without an integration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct BrowserConfig {
    /// Let the assistant use a web browser for sites without an integration.
    pub enabled: bool,
    /// Which installed browser the assistant drives.
    pub engine: BrowserEngine,
    /// Keep the browser window hidden; the live view still shows what it does.
    pub headless: bool,
    /// Close the hidden browser after this many minutes without use (0 keeps it open).
    #[schemars(range(min = 0.0, max = 1440.0))]
    pub idle_minutes: f64,
    /// Only let the assistant visit these sites, such as amazon.in; empty allows every site.
    pub allow_domains: Vec<String>,
    /// Sites the assistant must never open, including their subdomains.
    pub block_domains: Vec<String>,
    /// Longest description of a page (buttons, fields and text) given to the assistant, in characters.
    #[schemars(range(min = 1000, max = 200_000))]
    pub max_snapshot_chars: u32,
    /// Longest readable page text given to the assistant when it reads a page, in characters.
    #[schemars(range(min = 1000, max = 500_000))]
    pub max_extract_chars: u32,
    /// Always ask before anything that looks like buying or paying, in every approval mode.
    pub confirm_purchases: bool,
    /// Show small pictures of the page in the chat while the assistant uses the browser.
    pub live_view: bool,
    /// Named browser profiles, each with its own sign-ins; the default profile always exists.
    pub profiles: BTreeMap<String, BrowserProfile>,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        let mut profiles = BTreeMap::new();
        profiles.insert("default".to_owned(), BrowserProfile::default());
        Self {
            enabled: true,
            engine: BrowserEngine::Auto,
            headless: true,
            idle_minutes: 10.0,
            allow_domains: Vec::new(),
            block_domains: Vec::new(),
            max_snapshot_chars: 12_000,
            max_extract_chars: 20_000,
            confirm_purchases: true,
            live_view: true,
            profiles,
        }
    }
}

// --------------------------------------------------------------------------------- sandbox

/// Where scripts run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SandboxBackend {
    /// Docker when it is running, otherwise a separate process on this computer.
    #[default]
    Auto,
    /// A separate process on this computer in its own folder.
    Process,
    /// A Docker container.
    Docker,
}

/// Short Python scripts the assistant writes and runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct SandboxConfig {
    /// Let the assistant write and run short Python scripts that use its tools.
    pub enabled: bool,
    /// Where scripts run.
    pub backend: SandboxBackend,
    /// A script is stopped after running this many seconds.
    #[schemars(range(min = 5, max = 3600))]
    pub timeout_s: u32,
    /// Most characters of a script's output kept, for its output and its errors each.
    #[schemars(range(min = 1000, max = 1_000_000))]
    pub max_output_chars: u32,
    /// Most tool uses one script may make before further ones are refused.
    #[schemars(range(max = 10_000))]
    pub max_tool_calls: u32,
    /// How many scripts may run at the same time.
    #[schemars(range(min = 1, max = 16))]
    pub max_concurrent_runs: u32,
    /// Most files copied from one script run into your files folder.
    #[schemars(range(max = 1000))]
    pub max_files: u32,
    /// Files a script creates that are larger than this many megabytes are not copied.
    #[schemars(range(min = 1, max = 2048))]
    pub max_file_mb: u32,
    /// Keep each run's working folder afterwards, to help track down problems.
    pub keep_workdirs: bool,
    /// The container image scripts run in with Docker.
    pub docker_image: String,
    /// Memory limit, in megabytes, for a script in Docker.
    #[schemars(range(min = 64, max = 65_536))]
    pub docker_memory_mb: u32,
    /// How many processor cores a script in Docker may use.
    #[schemars(range(min = 0.1, max = 64.0))]
    pub docker_cpus: f64,
    /// Let scripts in Docker reach the internet; when off they can only use Sentient's tools.
    pub allow_network_in_docker: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            backend: SandboxBackend::Auto,
            timeout_s: 120,
            max_output_chars: 20_000,
            max_tool_calls: 200,
            max_concurrent_runs: 2,
            max_files: 50,
            max_file_mb: 25,
            keep_workdirs: false,
            docker_image: "python:3.12-slim".to_owned(),
            docker_memory_mb: 512,
            docker_cpus: 1.0,
            allow_network_in_docker: false,
        }
    }
}

// ----------------------------------------------------------------------------------- nodes

/// Phones, smart glasses and other devices connected to Sentient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct NodesConfig {
    /// Allow phones, glasses and other devices to connect to Sentient.
    pub enabled: bool,
    /// Accept devices on your local network (encrypted, and each needs a pairing code).
    pub lan_enabled: bool,
    /// The port devices on your network connect to.
    #[schemars(range(min = 1024))]
    pub lan_port: u16,
    /// Announce Sentient on your network so devices find it without typing an address.
    pub mdns_enabled: bool,
    /// Ask before the assistant takes a photo or captures a screen with one of your devices.
    pub camera_requires_approval: bool,
    /// Let the assistant capture this computer's screen through the desktop app when you ask.
    pub allow_desktop_screen: bool,
    /// Seconds to wait for a device to answer a request.
    #[schemars(range(min = 2, max = 120))]
    pub invoke_timeout_s: u32,
    /// A device that sends nothing for this many seconds is treated as disconnected.
    #[schemars(range(min = 30, max = 3600))]
    pub idle_timeout_s: u32,
}

impl Default for NodesConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            lan_enabled: false,
            lan_port: 7778,
            mdns_enabled: true,
            camera_requires_approval: true,
            allow_desktop_screen: true,
            invoke_timeout_s: 20,
            idle_timeout_s: 180,
        }
    }
}

// -------------------------------------------------------------------------------- channels

/// Settings for one messaging app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ChannelAppConfig {
    /// Allow this messaging app to be connected and used.
    pub enabled: bool,
    /// Newly paired chats also receive task results, plans to approve and suggestions.
    pub deliver_default: bool,
    /// Show the reply as it is written by updating the message, instead of sending it at the end.
    pub stream_edits: bool,
    /// Fewest seconds between message updates while a reply is being written.
    #[schemars(range(min = 0.3, max = 10.0))]
    pub edit_interval_s: f64,
    /// When you send a voice note, also answer with a spoken audio message.
    pub voice_replies: bool,
    /// Briefly show what the assistant is doing, such as "Searching the web...".
    pub show_tool_activity: bool,
}

impl Default for ChannelAppConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            deliver_default: true,
            stream_edits: true,
            edit_interval_s: 1.0,
            voice_replies: false,
            show_tool_activity: true,
        }
    }
}

/// Telegram, Discord and WhatsApp chats with Sentient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ChannelsConfig {
    /// Let paired messaging apps talk to Sentient.
    pub enabled: bool,
    /// Telegram bot settings.
    pub telegram: ChannelAppConfig,
    /// Discord bot settings (direct messages only).
    pub discord: ChannelAppConfig,
    /// WhatsApp settings, linked to your own account.
    pub whatsapp: ChannelAppConfig,
    /// Minutes a pairing code stays valid after it is shown.
    #[schemars(range(min = 1, max = 60))]
    pub pairing_code_minutes: u32,
    /// Wrong codes allowed before the current pairing code is cancelled.
    #[schemars(range(min = 1, max = 20))]
    pub pairing_max_attempts: u32,
    /// Send finished and failed task results, and questions from running tasks, to your chats.
    pub deliver_task_results: bool,
    /// Send task plans that wait for your approval, with Approve buttons.
    pub deliver_plans: bool,
    /// Send suggestions, with Approve and Dismiss buttons.
    pub deliver_suggestions: bool,
    /// Send a summary when a helper working in the background finishes.
    pub deliver_subagents: bool,
    /// Send your Daily Brief and Evening Brief.
    pub deliver_briefs: bool,
}

impl Default for ChannelsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            telegram: ChannelAppConfig::default(),
            discord: ChannelAppConfig::default(),
            // WhatsApp limits how often a linked device may edit messages.
            whatsapp: ChannelAppConfig {
                edit_interval_s: 2.0,
                ..ChannelAppConfig::default()
            },
            pairing_code_minutes: 10,
            pairing_max_attempts: 5,
            deliver_task_results: true,
            deliver_plans: true,
            deliver_suggestions: true,
            deliver_subagents: true,
            deliver_briefs: true,
        }
    }
}

// -------------------------------------------------------------------------------- terminal

/// Commands the assistant may run on this computer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct TerminalConfig {
    /// Let the assistant run commands on this computer.
    pub enabled: bool,
    /// Folders commands may run in; nothing runs until you add one.
    pub allowed_folders: Vec<String>,
    /// The folder a command starts in when none is given (empty uses the first allowed folder).
    pub default_folder: String,
    /// Commands that run without asking, matched by how they start.
    pub allowed_commands: Vec<String>,
    /// A command is stopped after running this many seconds.
    #[schemars(range(min = 5, max = 3600))]
    pub timeout_s: u32,
    /// Most characters of a command's output shown to the assistant, for its output and its errors each.
    #[schemars(range(min = 500, max = 1_000_000))]
    pub max_output_chars: u32,
}

impl Default for TerminalConfig {
    fn default() -> Self {
        Self {
            // Off by default: running commands is the most powerful thing the assistant can do.
            enabled: false,
            allowed_folders: Vec::new(),
            default_folder: String::new(),
            allowed_commands: strings(&["git status", "git diff", "git log", "ls", "dir", "pwd"]),
            timeout_s: 180,
            max_output_chars: 8000,
        }
    }
}

// --------------------------------------------------------------------------------- gateway

/// The local connection the Sentient window and your scripts use to reach the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct GatewayConfig {
    /// The port on this computer the engine listens on (0 picks a free one); only this computer can connect.
    pub port: u16,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self { port: 7777 }
    }
}

// ------------------------------------------------------------------------------ validation

/// The `type` of every item `problems` reports, as in the contract's 422 details.
const VALUE_ERROR: &str = "value_error";

const REASONING_EFFORTS: [&str; 4] = ["none", "low", "medium", "high"];
const MORNING_SECTIONS: [&str; 5] = ["calendar", "email", "tasks", "weather", "news"];
const EVENING_SECTIONS: [&str; 5] = ["done", "sent", "files", "waiting", "tomorrow"];
const FOLLOW_UP_SOURCES: [&str; 2] = ["gmail", "email_imap"];
const PROFILE_ENGINES: [&str; 5] = ["", "auto", "msedge", "chrome", "chromium"];
const CONTEXT_LENGTH_MIN: u32 = 2048;
const CONTEXT_LENGTH_MAX: u32 = 1_048_576;
const MAX_NEWS_TOPICS: usize = 5;

impl Config {
    /// Every setting that parsed but is out of range or badly formed, as the contract's
    /// validation items (`loc` starts with `body`, like any request body problem).
    ///
    /// Number limits come from the `range` attributes above through the JSON schema, so the
    /// limits the Settings screen shows and the ones enforced here can't drift apart.
    pub fn problems(&self) -> Vec<FieldError> {
        let mut found = Vec::new();
        if let (Ok(schema), Ok(value)) = (
            serde_json::to_value(schemars::schema_for!(Config)),
            serde_json::to_value(self),
        ) {
            check_ranges(&schema, &schema, &value, &mut Vec::new(), &mut found, 0);
        }
        self.assistant_problems(&mut found);
        self.models.problems(&mut found);
        self.tools.approvals.problems(&mut found);
        self.proactivity.problems(&mut found);
        self.browser.problems(&mut found);
        if !is_clock_time(&self.dreaming.time) {
            found.push(problem(
                &["dreaming", "time"],
                "Write the time as HH:MM, for example 03:00.",
            ));
        }
        found
    }
}

fn problem(at: &[&str], msg: impl Into<String>) -> FieldError {
    let mut loc = vec!["body".to_owned()];
    loc.extend(at.iter().map(|part| (*part).to_owned()));
    FieldError {
        loc,
        msg: msg.into(),
        kind: VALUE_ERROR.to_owned(),
    }
}

/// Walks the settings beside their schema and reports numbers outside `minimum`/`maximum`.
fn check_ranges(
    root: &serde_json::Value,
    node: &serde_json::Value,
    value: &serde_json::Value,
    at: &mut Vec<String>,
    found: &mut Vec<FieldError>,
    depth: u32,
) {
    use serde_json::Value;
    // Config has no recursive types; the bound only guards against a malformed schema.
    if depth > 16 {
        return;
    }
    let node = match node.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .rsplit('/')
            .next()
            .and_then(|name| root.get("$defs").and_then(|defs| defs.get(name)))
            .unwrap_or(node),
        None => node,
    };
    match value {
        Value::Number(number) => {
            if let Some(number) = number.as_f64() {
                check_number(node, number, at, found);
            }
        }
        Value::Object(entries) => {
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").filter(|v| v.is_object());
            for (key, inner) in entries {
                let child = properties.and_then(|p| p.get(key)).or(additional);
                if let Some(child) = child {
                    at.push(key.clone());
                    check_ranges(root, child, inner, at, found, depth + 1);
                    at.pop();
                }
            }
        }
        Value::Array(items) => {
            if let Some(child) = node.get("items") {
                for (index, inner) in items.iter().enumerate() {
                    at.push(index.to_string());
                    check_ranges(root, child, inner, at, found, depth + 1);
                    at.pop();
                }
            }
        }
        _ => {}
    }
    // An optional setting's limits sit in one branch of its anyOf, next to the null branch.
    if !matches!(value, Value::Null) {
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                for branch in branches {
                    check_ranges(root, branch, value, at, found, depth + 1);
                }
            }
        }
    }
}

fn check_number(node: &serde_json::Value, number: f64, at: &[String], found: &mut Vec<FieldError>) {
    let loc: Vec<&str> = at.iter().map(String::as_str).collect();
    let name = loc.join(".");
    let bound = |key: &str| {
        node.get(key)
            .and_then(|b| b.as_f64().map(|f| (f, b.clone())))
    };
    if let Some((min, shown)) = bound("minimum")
        && number < min
    {
        found.push(problem(&loc, format!("{name} must be at least {shown}.")));
    }
    if let Some((max, shown)) = bound("maximum")
        && number > max
    {
        found.push(problem(&loc, format!("{name} must be at most {shown}.")));
    }
}

/// `HH:MM` on a 24-hour clock.
fn is_clock_time(text: &str) -> bool {
    let Some((hours, minutes)) = text.split_once(':') else {
        return false;
    };
    let two_digits = |part: &str| part.len() == 2 && part.bytes().all(|b| b.is_ascii_digit());
    two_digits(hours)
        && two_digits(minutes)
        && hours.parse::<u32>().is_ok_and(|h| h < 24)
        && minutes.parse::<u32>().is_ok_and(|m| m < 60)
}

impl ModelsConfig {
    fn problems(&self, found: &mut Vec<FieldError>) {
        if self.primary.trim().is_empty() {
            found.push(problem(&["models", "primary"], "Choose a main model."));
        }
        for (role, effort) in &self.reasoning {
            if !REASONING_EFFORTS.contains(&effort.as_str()) {
                found.push(problem(
                    &["models", "reasoning", role],
                    "Choose none, low, medium or high.",
                ));
            }
        }
        check_context_lengths(
            &["models", "context_length_per_role"],
            &self.context_length_per_role,
            found,
        );
        for (name, preset) in &self.presets {
            let at = ["models", "presets", name.as_str()];
            let length = name.chars().count();
            if length == 0 || length > 40 || name.contains('/') {
                found.push(problem(
                    &at,
                    "A model setup's name must be 1 to 40 characters long, without slashes.",
                ));
            }
            if BUILTIN_PRESET_NAMES
                .iter()
                .any(|builtin| builtin.eq_ignore_ascii_case(name))
            {
                found.push(problem(
                    &at,
                    format!("{name} is a built-in model setup; pick another name."),
                ));
            }
            for (role, model) in &preset.roles {
                if !MODEL_ROLE_NAMES.contains(&role.as_str()) {
                    found.push(problem(
                        &["models", "presets", name, "roles", role],
                        format!("{role} is not a model role."),
                    ));
                } else if role == "primary" && model.as_deref().is_none_or(|m| m.trim().is_empty())
                {
                    found.push(problem(
                        &["models", "presets", name, "roles", role],
                        "A model setup can't leave the main model empty.",
                    ));
                }
            }
            if let Some(lengths) = &preset.context_length_per_role {
                check_context_lengths(
                    &["models", "presets", name, "context_length_per_role"],
                    lengths,
                    found,
                );
            }
        }
    }
}

fn check_context_lengths(
    at: &[&str],
    lengths: &BTreeMap<String, u32>,
    found: &mut Vec<FieldError>,
) {
    for (role, length) in lengths {
        if !(CONTEXT_LENGTH_MIN..=CONTEXT_LENGTH_MAX).contains(length) {
            let mut loc = at.to_vec();
            loc.push(role);
            found.push(problem(
                &loc,
                format!("A context length must be between {CONTEXT_LENGTH_MIN} and {CONTEXT_LENGTH_MAX} tokens."),
            ));
        }
    }
}

impl ApprovalsConfig {
    fn problems(&self, found: &mut Vec<FieldError>) {
        for key in self.rules.keys() {
            if key.trim().is_empty() {
                found.push(problem(
                    &["tools", "approvals", "rules", key],
                    "A rule needs a tool name or an app id.",
                ));
            }
        }
    }
}

impl ProactivityConfig {
    fn problems(&self, found: &mut Vec<FieldError>) {
        if !self.quiet_hours.trim().is_empty() {
            let well_formed = self
                .quiet_hours
                .split_once('-')
                .is_some_and(|(from, to)| is_clock_time(from.trim()) && is_clock_time(to.trim()));
            if !well_formed {
                found.push(problem(
                    &["proactivity", "quiet_hours"],
                    "Write quiet hours as HH:MM-HH:MM, for example 22:00-07:00, or leave them empty.",
                ));
            }
        }
        unknown_choices(&["proactivity", "sources"], &self.sources, None, found);
        unknown_choices(
            &["proactivity", "followups", "sources"],
            &self.followups.sources,
            Some(&FOLLOW_UP_SOURCES),
            found,
        );
        unknown_choices(
            &["proactivity", "brief", "sections"],
            &self.brief.sections,
            Some(&MORNING_SECTIONS),
            found,
        );
        unknown_choices(
            &["proactivity", "brief", "evening_sections"],
            &self.brief.evening_sections,
            Some(&EVENING_SECTIONS),
            found,
        );
        if self.brief.news_topics.len() > MAX_NEWS_TOPICS {
            found.push(problem(
                &["proactivity", "brief", "news_topics"],
                format!("Pick at most {MAX_NEWS_TOPICS} news topics."),
            ));
        }
    }
}

/// Reports blank entries, and with `allowed` also entries that are not one of its choices.
fn unknown_choices(
    at: &[&str],
    items: &[String],
    allowed: Option<&[&str]>,
    found: &mut Vec<FieldError>,
) {
    for (index, item) in items.iter().enumerate() {
        let known = allowed.is_none_or(|choices| choices.contains(&item.as_str()));
        if item.trim().is_empty() || !known {
            let index = index.to_string();
            let mut loc = at.to_vec();
            loc.push(&index);
            let msg = match allowed {
                Some(choices) => format!("{item:?} is not one of {}.", choices.join(", ")),
                None => "This entry is empty.".to_owned(),
            };
            found.push(problem(&loc, msg));
        }
    }
}

impl BrowserConfig {
    fn problems(&self, found: &mut Vec<FieldError>) {
        match self.profiles.get("default") {
            None => found.push(problem(
                &["browser", "profiles"],
                "The default browser profile can't be removed.",
            )),
            Some(profile) if profile.kind != BrowserProfileKind::Launch => found.push(problem(
                &["browser", "profiles", "default", "kind"],
                "The default browser profile is always one Sentient starts itself.",
            )),
            Some(_) => {}
        }
        for (name, profile) in &self.profiles {
            let good_name = !name.is_empty()
                && name.len() <= 40
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !good_name {
                found.push(problem(
                    &["browser", "profiles", name],
                    "A profile name uses up to 40 lowercase letters, numbers and dashes.",
                ));
            }
            if !PROFILE_ENGINES.contains(&profile.engine.as_str()) {
                found.push(problem(
                    &["browser", "profiles", name, "engine"],
                    "Choose auto, msedge, chrome or chromium, or leave it empty.",
                ));
            }
            if profile.kind == BrowserProfileKind::Attach && profile.endpoint.trim().is_empty() {
                found.push(problem(
                    &["browser", "profiles", name, "endpoint"],
                    "A profile that connects to your own browser needs its debugging address.",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_round_trips_through_json() {
        let config = Config::default();
        let json = serde_json::to_string(&config).expect("default config serialises");
        let back: Config = serde_json::from_str(&json).expect("serialised config parses");
        assert_eq!(back, config);
    }

    #[test]
    fn empty_object_gives_the_defaults() {
        let config: Config = serde_json::from_str("{}").expect("empty object parses");
        assert_eq!(config, Config::default());
    }

    #[test]
    fn partial_object_keeps_every_other_default() {
        let config: Config = serde_json::from_str(r#"{"tasks":{"continuity":{"runs":5}}}"#)
            .expect("partial object parses");
        let mut expected = Config::default();
        expected.tasks.continuity.runs = 5;
        assert_eq!(config, expected);
    }

    #[test]
    fn unknown_keys_are_ignored() {
        let config: Config =
            serde_json::from_str(r#"{"gatway":{"port":1},"ui":{"theme":"light","old":1}}"#)
                .expect("unknown keys are ignored");
        let mut expected = Config::default();
        expected.ui.theme = Theme::Light;
        assert_eq!(config, expected);
    }

    #[test]
    fn defaults_have_no_problems() {
        assert_eq!(Config::default().problems(), Vec::new());
    }

    #[test]
    fn out_of_range_numbers_are_named() {
        let config: Config = serde_json::from_str(
            r#"{"tasks":{"tick_seconds":1,"continuity":{"runs":99}},
                "chat":{"tool_result_context_share":2.0},
                "models":{"context_length":100,"context_length_per_role":{"executor":10}}}"#,
        )
        .expect("parses");
        let locs: Vec<String> = config
            .problems()
            .into_iter()
            .map(|p| p.loc.join("."))
            .collect();
        for expected in [
            "body.models.context_length",
            "body.models.context_length_per_role.executor",
            "body.tasks.tick_seconds",
            "body.tasks.continuity.runs",
            "body.chat.tool_result_context_share",
        ] {
            assert!(
                locs_contains(&locs, expected),
                "{expected} missing from {locs:?}"
            );
        }
        assert_eq!(locs.len(), 5, "{locs:?}");
    }

    fn locs_contains(locs: &[String], loc: &str) -> bool {
        locs.iter().any(|l| l == loc)
    }

    #[test]
    fn badly_formed_settings_are_named() {
        let config: Config = serde_json::from_str(
            r#"{"dreaming":{"time":"3am"},
                "proactivity":{"quiet_hours":"late","brief":{"sections":["calendar","horoscope"]}},
                "browser":{"profiles":{"Work Stuff":{"kind":"attach"}}},
                "models":{"presets":{"cloud":{"roles":{"primary":null}}}}}"#,
        )
        .expect("parses");
        let locs: Vec<String> = config
            .problems()
            .into_iter()
            .map(|p| p.loc.join("."))
            .collect();
        for expected in [
            "body.dreaming.time",
            "body.proactivity.quiet_hours",
            "body.proactivity.brief.sections.1",
            "body.browser.profiles",
            "body.browser.profiles.Work Stuff",
            "body.browser.profiles.Work Stuff.endpoint",
            "body.models.presets.cloud",
            "body.models.presets.cloud.roles.primary",
        ] {
            assert!(
                locs_contains(&locs, expected),
                "{expected} missing from {locs:?}"
            );
        }
    }

    #[test]
    fn choices_use_the_contract_spelling() {
        let config: Config = serde_json::from_str(
            r#"{"tools":{"approvals":{"mode":"always","rules":{"gmail":"never","slack":"allow"}}},
                "voice":{"wake_whisper_model":"tiny.en"},
                "browser":{"profiles":{"work":{"kind":"attach","engine":""}}}}"#,
        )
        .expect("contract spellings parse");
        assert_eq!(config.tools.approvals.mode, ApprovalMode::Always);
        assert_eq!(
            config.tools.approvals.rules.get("gmail"),
            Some(&RuleValue::Never)
        );
        assert_eq!(config.voice.wake_whisper_model, WakeWhisperModel::TinyEn);
        assert_eq!(
            config.browser.profiles.get("work").map(|p| p.kind),
            Some(BrowserProfileKind::Attach)
        );
    }
}
