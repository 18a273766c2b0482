//! Domain events (contract section 1): every change a window, socket or device follows, with a
//! dotted `type` and its payload in `data`. The bus stamps and carries them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::browser::{BrowserFrame, BrowserStatus};
use super::integration::Integration;
use super::memory_change::MemoryChange;
use super::model_busy::ModelBusy;
use super::node::Node;
use super::notification::Notification;
use super::rules::RuleProposal;
use super::stop_state::StopState;
use super::subagent::Subagent;
use super::task::{ProgressUpdate, Task};

/// Domain events: dotted `type`, payload in `data` (contract section 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", content = "data")]
pub enum DomainEvent {
    /// A memory was added, changed or deleted, or many at once (section 7).
    #[serde(rename = "memory.updated")]
    MemoryUpdated(MemoryChange),
    /// Settings were saved; `sections` are the top-level config sections that changed.
    #[serde(rename = "config.updated")]
    ConfigUpdated { sections: Vec<String> },
    /// Stop everything was turned on or off.
    #[serde(rename = "stop.updated")]
    StopUpdated(StopState),
    /// A chat was renamed (by the user or by its automatic title).
    #[serde(rename = "session.updated")]
    SessionUpdated { session_id: String, title: String },
    /// What the local model is doing changed.
    #[serde(rename = "model.busy")]
    ModelBusy(ModelBusy),
    /// A new entry in the notifications feed.
    #[serde(rename = "notification.new")]
    NotificationNew(Notification),
    /// A notification's payload changed (a plan approved or declined, a question answered, a
    /// suggestion handled or expired); the whole notification.
    #[serde(rename = "notification.updated")]
    NotificationUpdated(Notification),
    /// Notifications were marked read: one, or all when `id` is null.
    #[serde(rename = "notification.read")]
    NotificationRead { id: Option<String> },
    /// Notifications were deleted: one, or all when `id` is null.
    #[serde(rename = "notification.deleted")]
    NotificationDeleted { id: Option<String> },
    /// A "Make this a rule?" card from a chat message, new or answered (#130).
    #[serde(rename = "rule_proposal.updated")]
    RuleProposalUpdated(RuleProposal),
    /// A task changed (the whole task, runs included).
    #[serde(rename = "task.updated")]
    TaskUpdated(Box<Task>),
    /// A task was deleted.
    #[serde(rename = "task.deleted")]
    TaskDeleted { task_id: String },
    /// A run added a line to its progress log.
    #[serde(rename = "task.run_progress")]
    TaskRunProgress {
        task_id: String,
        run_id: String,
        update: ProgressUpdate,
    },
    /// New items from outside (a webhook call, later change feeds and polls), each published
    /// exactly once; triggered tasks and proactivity follow it.
    #[serde(rename = "source.items")]
    SourceItems {
        /// webhook, gmail, gcalendar, ...
        source: String,
        /// For webhooks, the hook id.
        event: String,
        /// poll, feed or webhook.
        origin: String,
        #[specta(type = Vec<std::collections::BTreeMap<String, String>>)]
        items: Vec<serde_json::Value>,
    },
    /// An integration changed (for webhooks: a hook was created or deleted, so its triggers did).
    #[serde(rename = "integration.updated")]
    IntegrationUpdated(Box<Integration>),
    /// A working run is alive (the model is writing), at most every 10 s.
    #[serde(rename = "task.run_activity")]
    TaskRunActivity {
        task_id: String,
        run_id: String,
        last_activity_at: DateTime<Utc>,
    },
    /// The running run's context meter after each model call (not stored).
    #[serde(rename = "task.run_context")]
    TaskRunContext {
        task_id: String,
        run_id: String,
        used: Option<u32>,
        length: Option<u32>,
        percent: Option<u32>,
        warning: Option<String>,
    },
    /// A device paired, connected, went away, was renamed or reported its battery.
    #[serde(rename = "node.updated")]
    NodeUpdated(Box<Node>),
    /// A device was removed.
    #[serde(rename = "node.deleted")]
    NodeDeleted { node_id: String },
    /// A device sent an event (a button press, a wake word, a gesture, ...).
    #[serde(rename = "node.event")]
    NodeEvent {
        node_id: String,
        event: String,
        #[specta(type = std::collections::BTreeMap<String, String>)]
        data: serde_json::Value,
    },
    /// A run ended (for services that follow runs; the window reads `task.updated`).
    #[serde(rename = "task.run_finished")]
    TaskRunFinished {
        task_id: String,
        run_id: String,
        status: String,
        /// Tool calls in the run that answered with an error (for self-improvement, section 15).
        tool_errors: u32,
        /// Skills the run read (empty until skills exist, section 8).
        skills_viewed: Vec<String>,
        /// The run updated its task's brief (to measure whether runs keep it).
        brief_updated: bool,
    },
    /// The browser started or stopped, or its tabs, address or title changed (section 12).
    #[serde(rename = "browser.updated")]
    BrowserUpdated(BrowserStatus),
    /// A picture of the page after the assistant acted in it, at most one a second.
    #[serde(rename = "browser.frame")]
    BrowserFrame(BrowserFrame),
    /// A helper started, ended or was cancelled (section 10); without its log.
    #[serde(rename = "subagent.updated")]
    SubagentUpdated(Box<Subagent>),
    /// A chat turn ended (for services that learn from turns: the user model, skills).
    #[serde(rename = "chat.turn_completed")]
    ChatTurnCompleted {
        session_id: String,
        turn_id: String,
        /// Tool calls the turn ran.
        tool_calls: u32,
        /// Of those, calls that answered with an error.
        tool_errors: u32,
        /// Skills the turn read (empty until skills exist, section 8).
        skills_viewed: Vec<String>,
        user_text: String,
        reply: String,
    },
}

impl DomainEvent {
    /// The wire name, e.g. `config.updated`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::ConfigUpdated { .. } => "config.updated",
            Self::MemoryUpdated(_) => "memory.updated",
            Self::StopUpdated(_) => "stop.updated",
            Self::NotificationNew(_) => "notification.new",
            Self::NotificationUpdated(_) => "notification.updated",
            Self::NotificationRead { .. } => "notification.read",
            Self::NotificationDeleted { .. } => "notification.deleted",
            Self::ModelBusy(_) => "model.busy",
            Self::SessionUpdated { .. } => "session.updated",
            Self::RuleProposalUpdated(_) => "rule_proposal.updated",
            Self::TaskUpdated(_) => "task.updated",
            Self::TaskDeleted { .. } => "task.deleted",
            Self::TaskRunProgress { .. } => "task.run_progress",
            Self::TaskRunFinished { .. } => "task.run_finished",
            Self::TaskRunActivity { .. } => "task.run_activity",
            Self::SourceItems { .. } => "source.items",
            Self::IntegrationUpdated(_) => "integration.updated",
            Self::TaskRunContext { .. } => "task.run_context",
            Self::NodeUpdated(_) => "node.updated",
            Self::NodeDeleted { .. } => "node.deleted",
            Self::NodeEvent { .. } => "node.event",
            Self::BrowserUpdated(_) => "browser.updated",
            Self::BrowserFrame(_) => "browser.frame",
            Self::SubagentUpdated(_) => "subagent.updated",
            Self::ChatTurnCompleted { .. } => "chat.turn_completed",
        }
    }
}
