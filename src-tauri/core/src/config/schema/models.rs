//! Settings section `models`.

use super::*;

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
