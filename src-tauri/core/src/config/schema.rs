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

mod assistant;
mod browser;
mod channels;
mod chat;
mod dreaming;
mod evolution;
mod gateway;
mod integrations;
mod memory;
mod models;
mod nodes;
mod proactivity;
mod sandbox;
mod skills;
mod subagents;
mod tasks;
mod terminal;
mod tools;
mod ui;
mod user_model;
mod voice;

pub use assistant::*;
pub use browser::*;
pub use channels::*;
pub use chat::*;
pub use dreaming::*;
pub use evolution::*;
pub use gateway::*;
pub use integrations::*;
pub use memory::*;
pub use models::*;
pub use nodes::*;
pub use proactivity::*;
pub use sandbox::*;
pub use skills::*;
pub use subagents::*;
pub use tasks::*;
pub use terminal::*;
pub use tools::*;
pub use ui::*;
pub use user_model::*;
pub use voice::*;

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
    /// What Sentient remembers about you and how it recalls it.
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
    /// The web browser the assistant can use for sites without an integration.
    pub browser: BrowserConfig,
    /// Short Python scripts the assistant writes and runs.
    pub sandbox: SandboxConfig,
    /// Phones, smart glasses and other devices connected to Sentient.
    pub nodes: NodesConfig,
    /// Not used yet (it arrives in a later version). Telegram, Discord and WhatsApp chats with Sentient.
    pub channels: ChannelsConfig,
    /// Commands the assistant may run on this computer.
    pub terminal: TerminalConfig,
    /// The local connection the Sentient window and your scripts use to reach the engine.
    pub gateway: GatewayConfig,
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
    /// The settings' JSON schema, made once (building it takes milliseconds, and every save
    /// checks against it).
    pub fn json_schema() -> &'static serde_json::Value {
        static SCHEMA: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
            serde_json::to_value(schemars::schema_for!(Config)).unwrap_or_default()
        });
        &SCHEMA
    }

    pub fn problems(&self) -> Vec<FieldError> {
        let mut found = Vec::new();
        if let Ok(value) = serde_json::to_value(self) {
            let schema = Config::json_schema();
            check_ranges(schema, schema, &value, &mut Vec::new(), &mut found, 0);
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
