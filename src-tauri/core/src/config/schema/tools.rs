//! Settings section `tools`.

use super::*;

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

/// A lasting rule is a domain type (rule proposals name it too); settings keep it here as well.
pub use crate::domain::rules::RuleValue;

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
