//! A tool as the window and the apps list it, and how much a call can change.

use serde::{Deserialize, Serialize};

/// One tool as `GET /api/tools` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub risk: Risk,
}

/// How much a call can change or reveal, lowest first. Approvals compare these.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Only looks something up.
    Read,
    /// Changes something on this computer or in an app.
    Write,
    /// Sends something to someone, or posts it.
    Send,
    /// Runs code.
    Exec,
}

impl Risk {
    /// The approval wording used when a tool does not describe its calls itself.
    pub fn default_label(self) -> &'static str {
        match self {
            Self::Read => "Looks something up",
            Self::Write => "Changes something",
            Self::Send => "Sends",
            Self::Exec => "Runs code",
        }
    }
}

/// What one call does, in words for an approval question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CallDescription {
    /// E.g. "Purchase", "Deletes", "Sends"; `None` uses the risk's default wording.
    pub risk_label: Option<String>,
    /// A short label of what is acted on, e.g. a file name or a web host.
    pub target: Option<String>,
}
