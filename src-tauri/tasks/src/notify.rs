//! What tasks put in the feed (contract section 4, "Task notification payload.event"): kind
//! `task`, the task's id, `payload {task_id, event, ...}`; where a task's notifications go
//! besides the app (`delivery_for`, "Where results go"); and settling a notification once the
//! person has answered it elsewhere (a plan approved or declined, a question answered).

use serde_json::{Map, Value, json};

use sentient_core::domain::notification::{NewNotification, Notification};

use crate::model::{ClarifyingQuestion, DeliverTo, PlanStep, RunStatus, Task};
use crate::parts::TaskParts;

/// `{task_id, event, ...extra}`; `extra` cannot change the first two.
pub fn task_payload(task_id: &str, event: &str, extra: Map<String, Value>) -> Map<String, Value> {
    let mut payload = extra;
    payload.insert("task_id".to_owned(), json!(task_id));
    payload.insert("event".to_owned(), json!(event));
    payload
}

/// The plan in a few lines of markdown: the task's description, then its numbered steps.
pub fn plan_summary(description: &str, plan: &[PlanStep]) -> String {
    let steps: Vec<String> = plan
        .iter()
        .enumerate()
        .map(|(i, step)| format!("{}. {}", i + 1, step.description))
        .collect();
    let description = description.trim();
    if description.is_empty() {
        steps.join("\n")
    } else {
        format!("{description}\n\n{}", steps.join("\n"))
    }
}

/// The planner's questions, one per line.
pub fn questions_summary(questions: &[ClarifyingQuestion]) -> String {
    questions
        .iter()
        .map(|q| format!("- {}", q.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a finished run tells the person: `(event, title, message)`, or nothing for a run the
/// person cancelled (or one still going).
pub fn run_notification(
    name: &str,
    status: RunStatus,
    summary: Option<&str>,
    error: Option<&str>,
) -> Option<(&'static str, String, String)> {
    let summary = summary.map(str::trim).filter(|s| !s.is_empty());
    match status {
        RunStatus::Completed | RunStatus::CompletedWithErrors => Some((
            "run_completed",
            format!("Task completed: {name}"),
            summary.unwrap_or("The task finished.").to_owned(),
        )),
        RunStatus::Error => Some((
            "run_failed",
            format!("Task failed: {name}"),
            error
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .unwrap_or("The run stopped with an error.")
                .to_owned(),
        )),
        RunStatus::Cancelled | RunStatus::Processing | RunStatus::WaitingForUser => None,
    }
}

impl TaskParts {
    /// Sends a task notification: kind `task`, the task's id, `payload {task_id, event, ...extra}`.
    /// A feed that can't save it is logged rather than failing the task's own work.
    pub async fn notify_task(
        &self,
        task: &Task,
        event: &str,
        title: String,
        message: String,
        extra: Map<String, Value>,
    ) -> Option<Notification> {
        let new = NewNotification {
            kind: "task".to_owned(),
            title,
            message,
            payload: task_payload(&task.task_id, event, extra),
            task_id: Some(task.task_id.clone()),
        };
        match self.notify(new).await {
            Ok(notification) => Some(notification),
            Err(error) => {
                tracing::warn!(error = %error.message(), task_id = %task.task_id, event, "the task notification was not saved");
                None
            }
        }
    }

    /// Where a task's notifications go besides the app: "default", "desktop" or
    /// `[{channel, chat_id}]` (contract section 4, "Where results go"). A task that can't be
    /// read answers "desktop", so nothing goes to a messaging app by mistake.
    pub async fn delivery_for(&self, task_id: &str) -> DeliverTo {
        match self.tasks().store().task(task_id).await {
            // Read strictly when it was loaded (`DeliverTo::stored`).
            Ok(record) => record.task.deliver_to,
            Err(error) => {
                tracing::info!(%error, task_id, "the task's delivery setting could not be read");
                DeliverTo::DESKTOP
            }
        }
    }

    /// The person answered what a task's notifications asked (`event`, e.g. `approval_needed`)
    /// somewhere: each of them still without `payload.status` gains `payload.status = status`,
    /// is marked read, and is published as `notification.updated`. Returns the changed ones.
    pub async fn settle_task_notifications(
        &self,
        task_id: &str,
        event: &str,
        status: &str,
    ) -> Vec<Notification> {
        let mut changes = Map::new();
        changes.insert("status".to_owned(), json!(status));
        self.settle_task_notifications_with(task_id, event, None, changes)
            .await
    }

    /// The task has a working plan now: its "Couldn't plan" notices gain `status: "fixed"` and
    /// are marked read, so the feed no longer asks the person to fix it.
    pub async fn settle_planning_failed(&self, task_id: &str) -> Vec<Notification> {
        self.settle_task_notifications(task_id, "planning_failed", "fixed")
            .await
    }

    /// Like [`TaskParts::settle_task_notifications`] with any payload changes, for one run's
    /// notifications when `run_id` is given (e.g. a question's `{status: "answered", answer}`).
    pub async fn settle_task_notifications_with(
        &self,
        task_id: &str,
        event: &str,
        run_id: Option<&str>,
        changes: Map<String, Value>,
    ) -> Vec<Notification> {
        self.notifier()
            .settle_task(task_id, event, run_id, changes)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_always_names_the_task_and_event() {
        let mut extra = Map::new();
        extra.insert("run_id".into(), json!("r1"));
        extra.insert("event".into(), json!("sneaky"));
        let payload = task_payload("t1", "run_failed", extra);
        assert_eq!(
            Value::Object(payload),
            json!({"task_id": "t1", "event": "run_failed", "run_id": "r1"})
        );
    }

    #[test]
    fn summaries_are_short_markdown() {
        let plan = vec![
            PlanStep {
                tool: "web_fetch".into(),
                description: "Read the page".into(),
            },
            PlanStep {
                tool: "files_write".into(),
                description: "Save the headlines".into(),
            },
        ];
        assert_eq!(
            plan_summary("Three headlines.", &plan),
            "Three headlines.\n\n1. Read the page\n2. Save the headlines"
        );
        assert_eq!(plan_summary(" ", &plan[..1]), "1. Read the page");
        let questions = vec![ClarifyingQuestion {
            question_id: "q1".into(),
            text: "Which city?".into(),
            answer: None,
        }];
        assert_eq!(questions_summary(&questions), "- Which city?");
    }

    #[test]
    fn runs_say_how_they_ended_and_cancelled_ones_stay_quiet() {
        let (event, title, message) = run_notification(
            "News",
            RunStatus::Completed,
            Some(" Three headlines. "),
            None,
        )
        .expect("completed");
        assert_eq!(
            (event, title.as_str(), message.as_str()),
            ("run_completed", "Task completed: News", "Three headlines.")
        );
        let (event, title, message) =
            run_notification("News", RunStatus::Error, None, Some("The model is down."))
                .expect("failed");
        assert_eq!(
            (event, title.as_str(), message.as_str()),
            ("run_failed", "Task failed: News", "The model is down.")
        );
        assert_eq!(
            run_notification("News", RunStatus::CompletedWithErrors, None, None)
                .map(|(e, _, m)| (e, m)),
            Some(("run_completed", "The task finished.".to_owned()))
        );
        assert!(run_notification("News", RunStatus::Cancelled, None, None).is_none());
        assert!(run_notification("News", RunStatus::WaitingForUser, None, None).is_none());
    }
}
