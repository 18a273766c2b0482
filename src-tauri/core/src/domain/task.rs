//! The Task and Run objects exactly as the contract spells them (section 4), shared by the
//! store, the routes, the typed commands and the window.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::MemorySource;

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
    pub memory_sources: Vec<MemorySource>,
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

/// Where a task's notifications go besides the app (contract section 4, "Where results go"):
/// "default", "desktop" or a list of `{channel, chat_id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum DeliverTo {
    Mode(DeliveryMode),
    Chats(Vec<DeliveryChat>),
}

impl DeliverTo {
    pub const DEFAULT: Self = Self::Mode(DeliveryMode::Default);
    pub const DESKTOP: Self = Self::Mode(DeliveryMode::Desktop);
    /// The messaging apps a chat can be on.
    pub const CHANNELS: [&str; 3] = ["telegram", "discord", "whatsapp"];
    pub const MAX_CHATS: usize = 10;

    /// Reads `deliver_to` as a change sends it: "default" (or null), "desktop", or up to 10
    /// `{channel, chat_id}` (chat ids trimmed); an empty list is "desktop".
    pub fn read(value: Option<Value>) -> Result<Self, DeliverToError> {
        match value {
            None | Some(Value::Null) => Ok(Self::DEFAULT),
            Some(Value::String(s)) if s == "default" => Ok(Self::DEFAULT),
            Some(Value::String(s)) if s == "desktop" => Ok(Self::DESKTOP),
            Some(Value::Array(list)) if list.is_empty() => Ok(Self::DESKTOP),
            Some(Value::Array(list)) if list.len() <= Self::MAX_CHATS => list
                .iter()
                .map(|item| {
                    let text = |key| item.get(key).and_then(Value::as_str).unwrap_or_default();
                    let (channel, chat_id) = (text("channel"), text("chat_id").trim());
                    if !Self::CHANNELS.contains(&channel) {
                        return Err(DeliverToError::UnknownChannel(channel.to_owned()));
                    }
                    if chat_id.is_empty() {
                        return Err(DeliverToError::NoChatId);
                    }
                    Ok(DeliveryChat {
                        channel: channel.to_owned(),
                        chat_id: chat_id.to_owned(),
                    })
                })
                .collect::<Result<_, _>>()
                .map(Self::Chats),
            Some(Value::Array(_)) => Err(DeliverToError::TooMany),
            Some(_) => Err(DeliverToError::WrongShape),
        }
    }

    /// Reads a stored `deliver_to` strictly: anything it can't read keeps the notifications in
    /// the app ("desktop"), so nothing goes to a messaging app by mistake.
    pub fn stored(value: Option<Value>) -> Self {
        value
            .and_then(|v| Self::read(Some(v)).ok())
            .unwrap_or(Self::DESKTOP)
    }
}

/// Why a `deliver_to` was refused, in the sentence the 400 answer carries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeliverToError {
    #[error("deliver_to names an unknown channel \"{0}\"; use telegram, discord or whatsapp.")]
    UnknownChannel(String),
    #[error("Each deliver_to entry needs a chat_id.")]
    NoChatId,
    #[error("deliver_to can list at most 10 chats.")]
    TooMany,
    #[error("deliver_to is \"default\", \"desktop\" or a list of {{channel, chat_id}}.")]
    WrongShape,
}

impl Default for DeliverTo {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// "default": paired chats with delivery on; "desktop": the app only.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryMode {
    Default,
    Desktop,
}

/// One paired chat a task's notifications go to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DeliveryChat {
    /// telegram, discord or whatsapp.
    pub channel: String,
    pub chat_id: String,
}

/// A swarm run's helpers as they work (null for single tasks).
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(default)]
pub struct SwarmDetails {
    pub goal: String,
    /// The parts the planner split the goal into, one per helper.
    pub items: Vec<String>,
    pub total_agents: u32,
    /// Helpers that finished (either way).
    pub completed_agents: u32,
    pub progress_updates: Vec<SwarmUpdate>,
    /// The helpers' outcomes, in item order.
    pub aggregated_results: Vec<SwarmResult>,
}

/// What a helper (`agent-N`) or the `aggregator` did, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SwarmUpdate {
    pub worker_id: String,
    pub timestamp: DateTime<Utc>,
    pub status: SwarmStatus,
    pub message: String,
}

/// Where a helper or the aggregator is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SwarmStatus {
    Processing,
    Completed,
    Error,
    Aggregating,
}

/// One helper's outcome: its `result` when it completed, its `error` when it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SwarmResult {
    pub worker_id: String,
    pub item: String,
    pub status: SwarmStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The item's place in `items` (from 0).
    pub index: u32,
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
    /// The script of a script job (`task_type: "script"`), else null.
    pub script: Option<super::script::TaskScript>,
    pub plan: Vec<PlanStep>,
    pub runs: Vec<Run>,
    pub chat_history: Vec<TaskChatLine>,
    pub clarifying_questions: Vec<ClarifyingQuestion>,
    pub swarm_details: Option<SwarmDetails>,
    pub enabled: bool,
    pub model: Option<String>,
    pub browser_profile: Option<String>,
    pub deliver_to: DeliverTo,
    /// Where the task came from (`source`) and what it carries: `fixed_call`, `imported_from`, …
    #[schema(value_type = Object)]
    #[specta(type = std::collections::BTreeMap<String, Value>)]
    pub original_context: Map<String, Value>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A task as the contract spells it (section 4), with the typed fields set or unset.
    fn sample(swarm_details: Value, deliver_to: Value, memory_sources: Value) -> Value {
        json!({
            "task_id": "a1", "name": "Weekly inbox digest", "description": "Sum up the week.",
            "status": "completed", "priority": 1, "assignee": "ai", "task_type": "swarm",
            "schedule": null, "script": null,
            "plan": [{"tool": "gmail", "description": "Fetch unread emails"}],
            "runs": [{
                "run_id": "r1", "status": "completed", "created_at": "2026-09-16T09:00:00Z",
                "execution_start_time": "2026-09-16T09:00:00Z",
                "finished_at": "2026-09-16T09:05:00Z", "plan": [], "trigger_event_data": null,
                "progress_updates": [], "result": null, "error": null, "retry_of": null,
                "pending_question": null, "last_activity_at": null,
                "memory_sources": memory_sources, "brief_updated": false
            }],
            "chat_history": [], "clarifying_questions": [],
            "swarm_details": swarm_details,
            "enabled": true, "model": null, "browser_profile": null,
            "deliver_to": deliver_to,
            "original_context": {"source": "manual_creation"},
            "error": null, "next_execution_at": null, "last_execution_at": null,
            "created_at": "2026-09-16T08:00:00Z", "updated_at": "2026-09-16T09:05:00Z",
            "notepad": null, "notepad_untrusted": null, "brief": null
        })
    }

    fn round_trip(wire: Value) {
        let task: Task = serde_json::from_value(wire.clone()).expect("reads as a Task");
        assert_eq!(serde_json::to_value(&task).expect("writes"), wire);
    }

    #[test]
    fn typed_fields_keep_the_contract_json() {
        let swarm = json!({
            "goal": "Compare three cities", "items": ["Paris", "Rome"],
            "total_agents": 2, "completed_agents": 2,
            "progress_updates": [
                {"worker_id": "agent-1", "timestamp": "2026-09-16T09:01:00Z",
                 "status": "processing", "message": "Working on: Paris"},
                {"worker_id": "aggregator", "timestamp": "2026-09-16T09:04:00Z",
                 "status": "aggregating", "message": "Putting together the results of 1 helper."}
            ],
            "aggregated_results": [
                {"worker_id": "agent-1", "item": "Paris", "status": "completed",
                 "result": "Sunny.", "index": 0},
                {"worker_id": "agent-2", "item": "Rome", "status": "error",
                 "error": "The model refused.", "index": 1}
            ]
        });
        let chats = json!([
            {"channel": "telegram", "chat_id": "42"},
            {"channel": "whatsapp", "chat_id": "self"}
        ]);
        let sources = json!([
            {"kind": "fact", "id": 7, "text": "Likes tea", "source": "conversation", "via": "prompt"},
            {"kind": "insight", "id": "i-3", "text": "Early riser", "source": "inferred", "via": "tool"}
        ]);
        // Every field set, then every field unset (null, "default", []), then the other modes.
        round_trip(sample(swarm, chats, sources));
        round_trip(sample(Value::Null, json!("default"), json!([])));
        round_trip(sample(Value::Null, json!("desktop"), json!([])));

        let task: Task = serde_json::from_value(sample(Value::Null, json!("desktop"), json!([])))
            .expect("reads");
        assert_eq!(task.deliver_to, DeliverTo::DESKTOP);
        assert_eq!(task.swarm_details, None);
        assert!(task.runs[0].memory_sources.is_empty());
    }

    #[test]
    fn deliver_to_refuses_other_shapes() {
        for wrong in [json!("email"), json!(null), json!({"channel": "telegram"})] {
            assert!(
                serde_json::from_value::<DeliverTo>(wrong.clone()).is_err(),
                "{wrong}"
            );
        }
        assert_eq!(DeliverTo::default(), DeliverTo::DEFAULT);
    }

    #[test]
    fn delivery_is_read_strictly_and_falls_back_to_the_desktop() {
        let read = |stored| serde_json::to_value(DeliverTo::stored(stored)).expect("serialises");
        assert_eq!(read(Some(json!("default"))), json!("default"));
        assert_eq!(read(Some(Value::Null)), json!("default"));
        assert_eq!(read(Some(json!("desktop"))), json!("desktop"));
        assert_eq!(read(Some(json!([]))), json!("desktop"));
        let chats = json!([{"channel": "telegram", "chat_id": "42"}]);
        assert_eq!(read(Some(chats.clone())), chats);
        assert_eq!(read(Some(json!("email"))), json!("desktop"));
        assert_eq!(read(Some(json!([{"channel": "fax"}]))), json!("desktop"));
        assert_eq!(read(None), json!("desktop"));
    }

    #[test]
    fn swarm_details_saved_in_part_still_read() {
        let details: SwarmDetails =
            serde_json::from_value(json!({"goal": "G", "completed_agents": 1})).expect("reads");
        assert_eq!(details.goal, "G");
        assert_eq!(details.completed_agents, 1);
        assert!(details.items.is_empty() && details.aggregated_results.is_empty());
    }
}
