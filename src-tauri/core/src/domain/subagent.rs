//! A helper the assistant started to work on part of a job (contract section 10): what the
//! Helpers list, `GET /api/subagents/{id}` and `subagent.updated` show.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::task::ProgressUpdate;

/// Where a helper stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SubagentStatus {
    Running,
    Completed,
    Error,
    Cancelled,
}

impl SubagentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
        }
    }

    /// Reads a stored status; anything unknown is an error.
    pub fn parse(text: &str) -> Self {
        match text {
            "running" => Self::Running,
            "completed" => Self::Completed,
            "cancelled" => Self::Cancelled,
            _ => Self::Error,
        }
    }
}

/// One helper: its goal, where it stands, what it found and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Subagent {
    pub subagent_id: String,
    /// The chat that started it (null for a helper started outside a chat).
    pub session_id: Option<String>,
    /// The `delegate_task` / `delegate_tasks` call that started it.
    pub parent_call_id: String,
    pub goal: String,
    pub status: SubagentStatus,
    /// It works on while the chat goes on; its summary joins the chat when it ends.
    pub background: bool,
    pub summary: Option<String>,
    pub error: Option<String>,
    /// Tool calls it ran.
    pub tool_calls: u32,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Its log (left out of `subagent.updated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<ProgressUpdate>>,
}
