//! Runs that wait for the person (contract section 4, "Tasks that ask you a question", "Limits
//! on a run", "Stuck runs", and the held call after outside content): the pause, the question
//! stored on the run with the parts the API never shows. What each answer does is in
//! `answers.rs`.

use serde_json::{Value, json};

use super::limits::{Limit, Limits};
use super::model::{ProgressMessage, RunStatus, TaskStatus};
use super::run_scope::{Asked, Stuck};
use crate::TaskError;
use crate::parts::TaskParts;
use sentient_llm::ToolCall;

pub(crate) const KEEP_GOING: &str = "Keep going";
const STOP_HERE: &str = "Stop here";
pub(crate) const YES: &str = "Yes, go ahead";
const NO: &str = "No, stop the task";
pub(crate) const STUCK_OPTIONS: [&str; 3] = ["Try again", "Skip this step", "Cancel"];

/// Says what the held call would do, e.g. `web_fetch(url: https://…)`.
fn call_details(call: &ToolCall) -> String {
    let details = match &call.arguments {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let v: String = v.chars().take(80).collect();
                format!("{k}: {v}")
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    format!("{}({details})", call.name)
}

/// Asking the person from a run: a question, a limit reached, being stuck, a held call; the run
/// waits with its question stored.
#[derive(Clone)]
pub(crate) struct Questions {
    parts: TaskParts,
}

impl Questions {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }
}

impl Questions {
    /// Pauses a run on a question: stored on the run, run and task `waiting_for_user` (the task
    /// only when no other run of it works), the log says so.
    async fn pause_run(&self, task_id: &str, run_id: &str, stored: Value) -> Result<(), TaskError> {
        let question = stored["question"].as_str().unwrap_or_default().to_owned();
        let mut record = self.parts.tasks().store().run(task_id, run_id).await?;
        record.run.status = RunStatus::WaitingForUser;
        record.question = Some(stored);
        self.parts.tasks().store().save_run(&record).await?;
        self.parts
            .run_progress(
                task_id,
                run_id,
                ProgressMessage::new("info", format!("Waiting for your answer: {question}")),
            )
            .await;
        let others_working = self
            .parts
            .tasks()
            .store()
            .runs_of(task_id)
            .await?
            .iter()
            .any(|r| r.run_id != run_id && r.status == RunStatus::Processing);
        self.parts
            .change_task(task_id, |r, _| {
                if !others_working {
                    r.task.status = TaskStatus::WaitingForUser;
                }
                Ok(())
            })
            .await?;
        self.notify_question(task_id, run_id).await;
        Ok(())
    }

    /// "<name> needs your answer" (or "<name> is stuck"), with the question and its options.
    async fn notify_question(&self, task_id: &str, run_id: &str) {
        let Ok(record) = self.parts.tasks().store().run(task_id, run_id).await else {
            return;
        };
        let Ok(task) = self.parts.get_task(task_id).await else {
            return;
        };
        let Some(stored) = record.question else {
            return;
        };
        let question = stored["question"].as_str().unwrap_or_default().to_owned();
        let mut extra = serde_json::Map::new();
        extra.insert("run_id".to_owned(), json!(run_id));
        extra.insert("question".to_owned(), json!(question));
        extra.insert("options".to_owned(), stored["options"].clone());
        let (title, message) = if stored["kind"] == "stuck" {
            let reason = stored["reason"].as_str().unwrap_or_default().to_owned();
            extra.insert("stuck".to_owned(), json!(true));
            extra.insert("reason".to_owned(), json!(reason));
            (
                format!("{} is stuck", task.name),
                format!(
                    "Sentient is stuck on '{}': {reason}. Open it to help or cancel.",
                    task.name
                ),
            )
        } else {
            (format!("{} needs your answer", task.name), question)
        };
        self.parts
            .notify_task(&task, "question", title, message, extra)
            .await;
    }

    fn stored_question(&self, question: &str, options: &[&str], kind: &str) -> Value {
        json!({"question": question, "options": options, "asked_at": self.parts.clock().now(), "kind": kind, "reason": null})
    }

    pub(crate) async fn ask_question(
        &self,
        task_id: &str,
        run_id: &str,
        asked: Asked,
    ) -> Result<(), TaskError> {
        let mut stored = json!({"question": asked.question, "options": asked.options,
                                "asked_at": self.parts.clock().now(), "kind": "question", "reason": null});
        stored["call_id"] = json!(asked.call_id);
        self.pause_run(task_id, run_id, stored).await
    }

    pub(crate) async fn ask_limit(
        &self,
        task_id: &str,
        run_id: &str,
        limits: &Limits,
        limit: Limit,
    ) -> Result<(), TaskError> {
        let mut stored =
            self.stored_question(&limits.question(limit), &[KEEP_GOING, STOP_HERE], "limit");
        stored["limit"] = json!(limit.as_str());
        stored["stop_error"] = json!(limits.stop_error(limit));
        self.pause_run(task_id, run_id, stored).await
    }

    pub(crate) async fn ask_stuck(
        &self,
        task_id: &str,
        run_id: &str,
        stuck: &Stuck,
    ) -> Result<(), TaskError> {
        let reason = stuck.reason();
        let question = format!("I'm stuck: {reason}. What should I do?");
        let mut stored = self.stored_question(&question, &STUCK_OPTIONS, "stuck");
        stored["reason"] = json!(reason);
        stored["stuck"] = json!(stuck.kind());
        self.pause_run(task_id, run_id, stored).await
    }

    /// A call that would send something out after the run read outside content: the run asks
    /// before it runs, and runs it exactly once on "Yes, go ahead".
    pub(crate) async fn ask_held_call(
        &self,
        task_id: &str,
        run_id: &str,
        untrusted: Option<&str>,
        call: &ToolCall,
    ) -> Result<(), TaskError> {
        let app = untrusted
            .filter(|a| !a.is_empty())
            .unwrap_or("outside content");
        let question = format!(
            "This task read content from {app}, so it checks with you before anything leaves Sentient. OK to use {}?",
            call_details(call)
        );
        let mut stored = self.stored_question(&question, &[YES, NO], "question");
        stored["untrusted_call"] = json!(true);
        stored["held_call"] =
            json!({"id": call.id, "name": call.name, "arguments": call.arguments});
        stored["stop_error"] = json!("You said no, so the task stopped without doing that step.");
        self.pause_run(task_id, run_id, stored).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_calls_are_described_with_their_details() {
        let call = ToolCall {
            id: "1".into(),
            name: "web_fetch".into(),
            arguments: json!({"url": "https://example.org/?q=secret"}),
        };
        assert_eq!(
            call_details(&call),
            "web_fetch(url: https://example.org/?q=secret)"
        );
    }
}
