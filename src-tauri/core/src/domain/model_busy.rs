//! What the local model is doing (the `model.busy` event) and who a model call is for.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Who a local model call is for, in priority order: earlier kinds go first.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A chat reply and everything it runs: tool calls, foreground subagents.
    Chat,
    /// Anything else a person is waiting for.
    #[default]
    Interactive,
    /// Task planning and runs, background subagents.
    Task,
    Suggestions,
    /// Memory notes after a reply, compression, the user model, dreams.
    Memory,
    Skills,
    Titles,
    Background,
}

impl JobKind {
    /// Task and below: work nobody is watching, which may be deferred.
    pub fn is_background(&self) -> bool {
        *self >= JobKind::Task
    }

    /// The wire name, as serde writes it.
    pub fn as_str(&self) -> &'static str {
        match self {
            JobKind::Chat => "chat",
            JobKind::Interactive => "interactive",
            JobKind::Task => "task",
            JobKind::Suggestions => "suggestions",
            JobKind::Memory => "memory",
            JobKind::Skills => "skills",
            JobKind::Titles => "titles",
            JobKind::Background => "background",
        }
    }
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the local model is doing: `GET /api/models/busy` and the `model.busy` event.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ModelBusy {
    /// A local call is running now.
    pub busy: bool,
    /// Who the running call is for; null when idle.
    pub job: Option<JobKind>,
    /// The running call's model, such as `ollama_chat/qwen3:8b`; null when idle.
    pub model: Option<String>,
    /// When the running call got the model; null when idle.
    pub since: Option<DateTime<Utc>>,
    /// Calls that go as soon as the model is free.
    pub waiting: u32,
    /// Background calls held back although the model may be free.
    pub deferred: u32,
    /// `chat` or `battery`; null when nothing is deferred.
    pub deferred_reason: Option<String>,
}

impl ModelBusy {
    /// Equal in everything but `since`: such a change is not worth an event.
    pub fn same_but_since(&self, other: &ModelBusy) -> bool {
        self.busy == other.busy
            && self.job == other.job
            && self.model == other.model
            && self.waiting == other.waiting
            && self.deferred == other.deferred
            && self.deferred_reason == other.deferred_reason
    }
}
