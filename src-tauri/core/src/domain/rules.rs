//! "Make this a rule?" cards from chat messages (#130, contract section 2).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use schemars::JsonSchema;

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

/// The rule a proposal asks for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProposedRule {
    Never,
    Ask,
}

impl ProposedRule {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::Ask => "ask",
        }
    }

    pub fn value(self) -> RuleValue {
        match self {
            Self::Never => RuleValue::Never,
            Self::Ask => RuleValue::Ask,
        }
    }
}

/// Where a proposal stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProposalStatus {
    Pending,
    Accepted,
    Declined,
}

impl ProposalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Accepted => "accepted",
            Self::Declined => "declined",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "pending" => Some(Self::Pending),
            "accepted" => Some(Self::Accepted),
            "declined" => Some(Self::Declined),
            _ => None,
        }
    }
}

/// One tool or app a proposal would set a rule for, as the card shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RuleTarget {
    /// The rule key: a tool name or an app id.
    pub key: String,
    /// The app's display name, e.g. "Gmail".
    pub app: String,
    /// The tool's plain name, e.g. "Trash"; null for a whole app.
    pub tool: Option<String>,
    /// "Gmail > Trash" for a tool, "Gmail" for a whole app.
    pub label: String,
}

/// A "Make this a rule?" card from a chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RuleProposal {
    pub id: String,
    pub session_id: String,
    /// The user (or steer) message it came from.
    pub message_id: String,
    /// The user's matching words (at most 300 characters).
    pub said: String,
    pub rule: ProposedRule,
    /// Tool names or app ids, as `tools.approvals.rules` keys.
    pub keys: Vec<String>,
    pub targets: Vec<RuleTarget>,
    pub status: ProposalStatus,
    pub created_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}
