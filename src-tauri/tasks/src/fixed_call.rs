//! One-call tasks (contract section 4, "Already approved one-call tasks"): a call the person has
//! already approved (a follow-up's Send, the Daily Brief) kept as a task whose run makes exactly
//! that call with exactly those arguments: no planner, no executor model. Only a Never rule and
//! a Read only connection, read right before the call, still stop it.

use serde_json::{Map, Value, json};

use crate::model::{RunStatus, Schedule, Task};

/// What a one-call task is made from (`create_approved_call`).
#[derive(Debug, Clone)]
pub struct ApprovedCall {
    /// The task's name, e.g. "Send reply to Priya: ...".
    pub name: String,
    pub tool: String,
    pub arguments: Value,
    /// The one plan step's words.
    pub step: String,
    pub description: Option<String>,
    /// Who made it (`original_context.source`), e.g. "follow_up" or "brief".
    pub source: String,
    /// More context kept with the task; `fixed_call` and `source` are added to it.
    pub original_context: Map<String, Value>,
    /// The run's result when the call succeeds ("Sent reply to Priya: ...").
    pub done_text: String,
    /// A recurring schedule makes the same call at each run; `None` runs it once, now.
    pub schedule: Option<Schedule>,
    /// A finished run sends no "Task completed" notification (the tool sends its own).
    pub quiet: bool,
}

/// The call a one-call task makes, as kept in `original_context.fixed_call`.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedCall {
    pub tool: String,
    pub arguments: Value,
    pub done_text: String,
    pub quiet: bool,
}

impl FixedCall {
    /// The task's fixed call, when it is a one-call task.
    pub fn of(task: &Task) -> Option<Self> {
        let call = task.original_context.get("fixed_call")?;
        Some(Self {
            tool: call.get("tool")?.as_str()?.to_owned(),
            arguments: call.get("arguments").cloned().unwrap_or_else(|| json!({})),
            done_text: call
                .get("done_text")
                .and_then(Value::as_str)
                .unwrap_or("Done.")
                .to_owned(),
            quiet: call.get("quiet").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

/// A run that a restart interrupted after its call began is not repeated: the call may have
/// been made (an email sent), so the person checks.
pub const INTERRUPTED_AFTER_CALL: &str = "Sentient restarted while this call was being made, so it was not made again. Check whether it was done before you run the task again.";

/// Whether a finished run of `task` keeps its "Task completed" notification to itself (a quiet
/// one-call task: its tool sends its own). Failures always notify.
pub fn quiet_when_done(task: &Task, status: RunStatus) -> bool {
    status == RunStatus::Completed && FixedCall::of(task).is_some_and(|c| c.quiet)
}
