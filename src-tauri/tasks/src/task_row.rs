//! A task's row: a new row's defaults, and `go_live` with the next due time. Pure, below
//! everything that writes tasks.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::model::{DeliverTo, Schedule, Task, TaskStatus};
use crate::schedule;
use sentient_core::store::new_id;

/// The next time a live task is due: a one-off task without a time runs now.
pub(crate) fn next_due(task: &Task, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match &task.schedule {
        None | Some(Schedule::Once { run_at: None, .. }) => Some(now),
        Some(s) => schedule::next_run(s, now),
    }
}

/// An approved (or auto-approved) task goes live: one-off tasks wait as `pending`, the others
/// are `active`.
pub(crate) fn go_live(task: &mut Task, now: DateTime<Utc>) {
    let one_off = matches!(task.schedule, None | Some(Schedule::Once { .. }));
    task.status = if one_off {
        TaskStatus::Pending
    } else {
        TaskStatus::Active
    };
    task.error = None;
    task.next_execution_at = if task.enabled {
        next_due(task, now)
    } else {
        None
    };
}

/// A new task's row with nothing set beyond its name, description and status: normal priority,
/// the assistant as assignee, no plan, schedule or runs yet, enabled, made `now`.
pub(crate) fn new_task_row(
    name: String,
    description: String,
    status: TaskStatus,
    now: DateTime<Utc>,
) -> Task {
    Task {
        task_id: new_id(),
        name,
        description,
        status,
        priority: 1,
        assignee: "ai".to_owned(),
        task_type: "single".to_owned(),
        schedule: None,
        script: None,
        plan: Vec::new(),
        runs: Vec::new(),
        chat_history: Vec::new(),
        clarifying_questions: Vec::new(),
        swarm_details: None,
        enabled: true,
        model: None,
        browser_profile: None,
        deliver_to: DeliverTo::DEFAULT,
        original_context: [("source".to_owned(), json!("manual_creation"))]
            .into_iter()
            .collect(),
        error: None,
        next_execution_at: None,
        last_execution_at: None,
        created_at: now,
        updated_at: now,
        notepad: None,
        notepad_untrusted: None,
        brief: None,
    }
}
