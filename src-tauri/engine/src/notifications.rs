//! The Notification object (contract section 6). The feed that stores and serves them is its
//! own service (a later issue); the object lives here so the bus and the desktop's native
//! notifications already speak it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One entry in the notifications feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Notification {
    pub id: String,
    /// info, task, approval, proactive, skill, error or brief.
    pub kind: String,
    pub title: String,
    /// Markdown.
    pub message: String,
    #[schema(value_type = Object)]
    #[specta(type = std::collections::BTreeMap<String, String>)]
    pub payload: serde_json::Map<String, serde_json::Value>,
    pub task_id: Option<String>,
    pub read: bool,
    pub created_at: DateTime<Utc>,
}
