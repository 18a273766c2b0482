//! A run's end: its row and its task's next status in one transaction, the notes it wrote
//! settled first, then `task.run_finished`, `task.updated` and the feed.

use serde_json::{Map, Value, json};

use crate::TaskError;
use crate::model::{self, ProgressMessage, RunStatus, TaskStatus};
use crate::notify::run_notification;
use crate::parts::TaskParts;
use crate::schedule;
use sentient_core::bus::DomainEvent;
use sentient_core::domain::notification::Notification;

/// How a run ends: its row, its task's next status (one transaction), the notes it wrote, the
/// bus and the feed.
#[derive(Clone)]
pub(crate) struct RunEnds {
    parts: TaskParts,
}

impl RunEnds {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }
}

impl RunEnds {
    /// Ends a run as failed, with `error` as its last progress line.
    pub(crate) async fn end_run_failed(
        &self,
        task_id: &str,
        run_id: &str,
        error: String,
    ) -> Result<(), TaskError> {
        self.parts
            .run_progress(
                task_id,
                run_id,
                model::ProgressMessage::new("error", error.clone()),
            )
            .await;
        self.finish_run(task_id, run_id, RunStatus::Error, None, Some(error))
            .await
    }

    /// Ends a run as cancelled; its last line says whether Stop everything or the person did it.
    pub(crate) async fn end_run_cancelled(
        &self,
        task_id: &str,
        run_id: &str,
    ) -> Result<(), TaskError> {
        let line = if self.parts.stop().is_stopped() {
            "Run stopped by Stop everything."
        } else {
            "Cancelled."
        };
        self.parts
            .run_progress(task_id, run_id, model::ProgressMessage::new("info", line))
            .await;
        self.finish_run(
            task_id,
            run_id,
            RunStatus::Cancelled,
            None,
            Some(line.to_owned()),
        )
        .await
    }

    /// Ends a run: saves its status, result and error, then moves the task on.
    pub(crate) async fn finish_run(
        &self,
        task_id: &str,
        run_id: &str,
        status: RunStatus,
        result: Option<model::RunResult>,
        error: Option<String>,
    ) -> Result<(), TaskError> {
        let now = self.parts.clock().now();
        let summary = result.as_ref().map(|r| r.summary.clone());
        let mut record = self.parts.tasks().store().run(task_id, run_id).await?;
        let was_waiting = record.run.status == RunStatus::WaitingForUser;
        record.run.status = status;
        record.run.finished_at = Some(now);
        record.run.result = result;
        record.run.error = error.clone();
        record.question = None;
        // Notes a run wrote count only once it recorded its final answer; they are settled
        // before the run shows as ended, so whoever sees it ended sees its notes.
        if matches!(
            status,
            RunStatus::Completed | RunStatus::CompletedWithErrors
        ) {
            self.parts
                .commit_notepad(task_id, run_id, record.untrusted.clone())
                .await?;
        } else {
            self.parts.drop_pending_notepad(task_id, run_id).await?;
        }
        // The run's end and its task's new status are one write, under the same lock as
        // every other task change.
        {
            let _one_at_a_time = self.parts.tasks().changes.lock().await;
            // The task's own time, read now: the notes committed above stamped it later than
            // the run's end, and the window keeps whichever version of a task is newest.
            let now = self.parts.clock().now();
            self.parts
                .tasks()
                .store()
                .finish_run(&record, now, |r, still_live| {
                    let task = &mut r.task;
                    if still_live || task.status == TaskStatus::Archived {
                        return;
                    }
                    let repeats = task
                        .schedule
                        .as_ref()
                        .is_some_and(|s| s.is_recurring() || s.is_triggered());
                    task.status = if repeats && task.enabled {
                        TaskStatus::Active
                    } else {
                        match status {
                            RunStatus::Completed => TaskStatus::Completed,
                            RunStatus::CompletedWithErrors => TaskStatus::CompletedWithErrors,
                            RunStatus::Cancelled => TaskStatus::Cancelled,
                            _ => TaskStatus::Error,
                        }
                    };
                    if status == RunStatus::Error {
                        task.error = error.clone();
                    }
                    if repeats && task.enabled && task.next_execution_at.is_none() {
                        task.next_execution_at = task
                            .schedule
                            .as_ref()
                            .and_then(|s| schedule::next_run(s, now));
                    }
                })
                .await?;
        }
        self.parts.announce_task(task_id).await;
        self.parts.bus().publish(DomainEvent::TaskRunFinished {
            task_id: task_id.to_owned(),
            run_id: run_id.to_owned(),
            status: status.as_str().to_owned(),
            tool_errors: tool_errors(&record.transcript),
            skills_viewed: Vec::new(),
            brief_updated: record.run.brief_updated,
        });
        // Every way a run ends leaves a notification (a cancelled run shows its status instead).
        self.notify_run_finished(
            task_id,
            run_id,
            status,
            summary.as_deref(),
            error.as_deref(),
        )
        .await;
        if was_waiting {
            self.parts
                .settle_task_notifications_with(
                    task_id,
                    "question",
                    Some(run_id),
                    serde_json::Map::from_iter([("status".to_owned(), json!("cancelled"))]),
                )
                .await;
        }
        Ok(())
    }

    /// A run (plain or swarm) that broke inside Sentient: the cause goes to the log, the person
    /// reads a plain line, and the run ends as an error.
    pub(crate) async fn fail_inside(&self, task_id: &str, run_id: &str, error: &crate::TaskError) {
        tracing::warn!(error = %error.message(), task_id, run_id, "a run failed inside Sentient");
        let message = "Something went wrong inside Sentient while running this task.";
        self.parts
            .run_progress(task_id, run_id, ProgressMessage::new("error", message))
            .await;
        let _ = self
            .finish_run(
                task_id,
                run_id,
                RunStatus::Error,
                None,
                Some(message.to_owned()),
            )
            .await;
    }

    /// A run ended: `run_completed` (with `run_id` and the result's `summary`) or `run_failed`
    /// (with `run_id`); a cancelled run sends nothing. Reads the task itself, so the caller
    /// needs only the ids and the outcome.
    pub async fn notify_run_finished(
        &self,
        task_id: &str,
        run_id: &str,
        status: RunStatus,
        summary: Option<&str>,
        error: Option<&str>,
    ) -> Option<Notification> {
        let in_place = self.parts.tasks().take_in_place(run_id);
        let task = match self.parts.tasks().store().task(task_id).await {
            Ok(record) => record.task,
            Err(error) => {
                tracing::info!(%error, task_id, "the task went away before its run could be announced");
                return None;
            }
        };
        if crate::fixed_call::quiet_when_done(&task, status) {
            return None;
        }
        // Run now shows its result where it was started; a failure still tells the feed.
        if in_place
            && matches!(
                status,
                RunStatus::Completed | RunStatus::CompletedWithErrors
            )
        {
            return None;
        }
        let (event, title, message) = run_notification(&task.name, status, summary, error)?;
        let mut extra = Map::new();
        extra.insert("run_id".to_owned(), json!(run_id));
        if event == "run_completed"
            && let Some(summary) = summary
        {
            extra.insert("summary".to_owned(), json!(summary));
        }
        self.parts
            .notify_task(&task, event, title, message, extra)
            .await
    }
}

/// How many tool results in `transcript` are errors (`{"error": …}`).
fn tool_errors(transcript: &[sentient_llm::Message]) -> u32 {
    let errors = transcript
        .iter()
        .filter(|m| m.role == sentient_llm::types::Speaker::Tool)
        .filter(|m| {
            serde_json::from_str::<Value>(&m.content)
                .is_ok_and(|v| v.get("error").is_some_and(|e| !e.is_null()))
        })
        .count();
    u32::try_from(errors).unwrap_or(u32::MAX)
}
