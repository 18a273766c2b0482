//! The Task and Run objects exactly as the contract spells them (section 4), shared by the
//! store, the routes, the typed commands and the window.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a task is in its life.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Planning,
    ClarificationPending,
    ApprovalPending,
    Pending,
    Active,
    Processing,
    WaitingForUser,
    Completed,
    CompletedWithErrors,
    Error,
    Declined,
    Cancelled,
    Archived,
}

impl TaskStatus {
    pub const ALL: [Self; 13] = [
        Self::Planning,
        Self::ClarificationPending,
        Self::ApprovalPending,
        Self::Pending,
        Self::Active,
        Self::Processing,
        Self::WaitingForUser,
        Self::Completed,
        Self::CompletedWithErrors,
        Self::Error,
        Self::Declined,
        Self::Cancelled,
        Self::Archived,
    ];

    /// The wire name, e.g. `approval_pending`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planning => "planning",
            Self::ClarificationPending => "clarification_pending",
            Self::ApprovalPending => "approval_pending",
            Self::Pending => "pending",
            Self::Active => "active",
            Self::Processing => "processing",
            Self::WaitingForUser => "waiting_for_user",
            Self::Completed => "completed",
            Self::CompletedWithErrors => "completed_with_errors",
            Self::Error => "error",
            Self::Declined => "declined",
            Self::Cancelled => "cancelled",
            Self::Archived => "archived",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// Where a run is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Processing,
    WaitingForUser,
    Completed,
    CompletedWithErrors,
    Error,
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Processing => "processing",
            Self::WaitingForUser => "waiting_for_user",
            Self::Completed => "completed",
            Self::CompletedWithErrors => "completed_with_errors",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Processing,
            Self::WaitingForUser,
            Self::Completed,
            Self::CompletedWithErrors,
            Self::Error,
            Self::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// A run that still works or waits (its task can't be approved, rerun or chatted with).
    pub fn is_live(self) -> bool {
        matches!(self, Self::Processing | Self::WaitingForUser)
    }
}

/// What a missed scheduled run does (section 4, "Missed runs"); absent means auto.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CatchUp {
    Run,
    Skip,
}

/// How often a recurring task runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Frequency {
    Daily,
    Weekly,
    Interval,
}

/// When a task runs. Times are wall-clock times in `timezone` (an IANA name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Schedule {
    /// Once, at `run_at` (`YYYY-MM-DDTHH:MM` local), or as soon as approved when null.
    Once {
        run_at: Option<String>,
        timezone: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        catch_up: Option<CatchUp>,
    },
    /// Daily or weekly at `time` (`HH:MM`) on `days` (weekly), or every `interval_minutes`.
    Recurring {
        frequency: Frequency,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        days: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interval_minutes: Option<u32>,
        timezone: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        catch_up: Option<CatchUp>,
    },
    /// When an outside event arrives (`source.items`, the webhooks issue).
    Triggered {
        source: String,
        event: String,
        #[serde(default)]
        #[schema(value_type = Object)]
        #[specta(type = std::collections::BTreeMap<String, String>)]
        filter: Map<String, Value>,
        timezone: String,
    },
}

impl Schedule {
    /// Recurring (daily, weekly or interval): the schedules whose runs remember (issue 7).
    pub fn is_recurring(&self) -> bool {
        matches!(self, Self::Recurring { .. })
    }

    pub fn is_triggered(&self) -> bool {
        matches!(self, Self::Triggered { .. })
    }
}

/// One step of a plan: the tool (or app) it uses and what it does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PlanStep {
    pub tool: String,
    pub description: String,
}

/// A line of the task's own chat (change requests and replanning answers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TaskChatLine {
    /// user or assistant.
    pub role: String,
    pub content: String,
    pub timestamp: DateTime<Utc>,
}

/// A question the planner needs answered before it can plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ClarifyingQuestion {
    pub question_id: String,
    pub text: String,
    pub answer: Option<String>,
}

/// One line of a run's progress log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ProgressUpdate {
    pub timestamp: DateTime<Utc>,
    pub message: ProgressMessage,
}

/// What a progress line says.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ProgressMessage {
    /// info, thought, tool_call, tool_result, final_answer or error.
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub parameters: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl ProgressMessage {
    pub fn new(kind: &str, content: impl Into<String>) -> Self {
        Self {
            kind: kind.to_owned(),
            content: content.into(),
            ..Self::default()
        }
    }
}

/// A link a run made or found.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ResultLink {
    pub url: String,
    pub description: String,
}

/// A file a run made.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ResultFile {
    pub filename: String,
    pub description: String,
}

/// What a finished run hands back, written by the model at the end.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct RunResult {
    /// Markdown.
    pub summary: String,
    #[serde(default)]
    pub links_created: Vec<ResultLink>,
    #[serde(default)]
    pub links_found: Vec<ResultLink>,
    #[serde(default)]
    pub files_created: Vec<ResultFile>,
    #[serde(default)]
    pub tools_used: Vec<String>,
}

/// The question a waiting run asks (the API shows only these fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PendingQuestion {
    pub question: String,
    pub options: Vec<String>,
    pub asked_at: DateTime<Utc>,
    /// question, limit or stuck.
    pub kind: String,
    pub reason: Option<String>,
}

/// One run of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Run {
    pub run_id: String,
    pub status: RunStatus,
    pub created_at: DateTime<Utc>,
    pub execution_start_time: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub plan: Vec<PlanStep>,
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub trigger_event_data: Option<Value>,
    /// The most recent 200 progress updates; the whole log is at `.../events`.
    pub progress_updates: Vec<ProgressUpdate>,
    pub result: Option<RunResult>,
    pub error: Option<String>,
    pub retry_of: Option<String>,
    pub pending_question: Option<PendingQuestion>,
    pub last_activity_at: Option<DateTime<Utc>>,
    #[schema(value_type = Vec<Object>)]
    #[specta(type = Vec<std::collections::BTreeMap<String, String>>)]
    pub memory_sources: Vec<Value>,
    /// The run updated the task's brief (to measure whether runs keep it).
    #[serde(default)]
    pub brief_updated: bool,
}

/// The task's brief: what it is doing, kept short by the runs and by the person. Each field is
/// short text; fields the person wrote are listed in `user_fields` and runs may not change them.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct TaskBrief {
    #[serde(default)]
    pub goal: Option<String>,
    #[serde(default)]
    pub constraints: Option<String>,
    #[serde(default)]
    pub decisions: Option<String>,
    #[serde(default)]
    pub done: Option<String>,
    #[serde(default)]
    pub open: Option<String>,
    #[serde(default)]
    pub current_focus: Option<String>,
    #[serde(default, rename = "where")]
    pub where_: Option<String>,
    #[serde(default)]
    pub risks: Option<String>,
    #[serde(default)]
    pub updated_at: Option<DateTime<Utc>>,
    /// agent or user.
    #[serde(default)]
    pub updated_by: Option<String>,
    /// Fields the person wrote.
    #[serde(default)]
    pub user_fields: Vec<String>,
}

/// A task (contract section 4, with v2's field names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Task {
    pub task_id: String,
    pub name: String,
    pub description: String,
    pub status: TaskStatus,
    pub priority: i32,
    pub assignee: String,
    /// single, swarm or script.
    pub task_type: String,
    pub schedule: Option<Schedule>,
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub script: Option<Value>,
    pub plan: Vec<PlanStep>,
    pub runs: Vec<Run>,
    pub chat_history: Vec<TaskChatLine>,
    pub clarifying_questions: Vec<ClarifyingQuestion>,
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub swarm_details: Option<Value>,
    pub enabled: bool,
    pub model: Option<String>,
    pub browser_profile: Option<String>,
    /// "default", "desktop" or a list of `{channel, chat_id}`.
    #[schema(value_type = Value)]
    #[specta(type = String)]
    pub deliver_to: Value,
    #[schema(value_type = Object)]
    #[specta(type = std::collections::BTreeMap<String, String>)]
    pub original_context: Value,
    pub error: Option<String>,
    pub next_execution_at: Option<DateTime<Utc>>,
    pub last_execution_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Notes between runs of a repeating task (at most `tasks.continuity.notepad_chars`).
    #[serde(default)]
    pub notepad: Option<String>,
    /// The app whose content shaped the notes (outside content), null when clean.
    #[serde(default)]
    pub notepad_untrusted: Option<String>,
    #[serde(default)]
    pub brief: Option<TaskBrief>,
}
