//! Answering a run's question (`POST .../answer`) and retrying a run that ended
//! (`POST .../retry`): the transcript rewritten, then the run carried on.

use serde_json::json;

use crate::TaskError;
use crate::executor::{Executor, RunStart};
use crate::limits::{Limit, Limits, says};
use crate::model::{ProgressMessage, RunStatus, TaskStatus};
use crate::parts::TaskParts;
use crate::questions::{KEEP_GOING, Questions, STUCK_OPTIONS, YES};
use crate::recall::{ANSWER_PREFIX, STUCK_ANSWER_PREFIX};
use crate::run_end::RunEnds;
use crate::run_scope::Stuck;
use sentient_llm::types::Speaker;
use sentient_llm::{Message, ToolCall};

/// The person's side of a run's question: answering it, and retrying a run that ended.
#[derive(Clone)]
pub(crate) struct Answers {
    parts: TaskParts,
}

impl Answers {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }
}

impl Answers {
    /// `POST /api/tasks/{id}/runs/{run_id}/answer`.
    pub async fn answer_run(
        &self,
        task_id: &str,
        run_id: &str,
        answer: &str,
    ) -> Result<super::model::Task, TaskError> {
        let answer = answer.trim().to_owned();
        if answer.is_empty() {
            return Err(TaskError::invalid("Type an answer first."));
        }
        let mut record = self.parts.tasks().store().run(task_id, run_id).await?;
        let stored = match (&record.run.status, &record.question) {
            (RunStatus::WaitingForUser, Some(q)) => q.clone(),
            _ => {
                return Err(TaskError::conflict(
                    "This run isn't waiting for an answer (it may have been answered or cancelled already).",
                ));
            }
        };
        let kind = stored["kind"].as_str().unwrap_or("question");
        self.parts
            .run_progress(
                task_id,
                run_id,
                ProgressMessage::new("info", format!("You answered: {answer}")),
            )
            .await;
        self.parts
            .settle_task_notifications_with(
                task_id,
                "question",
                Some(run_id),
                serde_json::Map::from_iter([
                    ("status".to_owned(), json!("answered")),
                    ("answer".to_owned(), json!(answer)),
                ]),
            )
            .await;
        let stop_error = stored["stop_error"].as_str().map(str::to_owned);
        if stored["untrusted_call"] == json!(true) {
            if !says(&answer, YES) && !says(&answer, "yes") {
                let error = stop_error.unwrap_or_default();
                return self.fail_waiting(task_id, run_id, error).await;
            }
            let call: ToolCall = serde_json::from_value(stored["held_call"].clone())
                .map_err(|e| TaskError::internal(&e))?;
            if let Some(reason) = self.run_held_call(&mut record, &call).await? {
                // The call came back with a step only the person can do (a password field):
                // the run asks about that instead of carrying on.
                record.question = None;
                self.parts.tasks().store().save_run(&record).await?;
                Questions::new(&self.parts)
                    .ask_stuck(task_id, run_id, &Stuck::Blocked(reason))
                    .await?;
                return self.parts.get_task(task_id).await;
            }
        } else if kind == "limit" {
            if !says(&answer, KEEP_GOING) {
                let error = stop_error.unwrap_or_default();
                return self.fail_waiting(task_id, run_id, error).await;
            }
            let mut limits: Limits = record
                .limits
                .as_ref()
                .and_then(|l| serde_json::from_value(l.clone()).ok())
                .unwrap_or_default();
            if let Some(limit) = stored["limit"].as_str().and_then(Limit::parse) {
                limits.raise(limit);
            }
            let asked = record.question_count();
            record.limits = serde_json::to_value(limits).ok();
            record.set_question_count(asked);
        } else if kind == "stuck" {
            if says(&answer, "Cancel") {
                let line = "Cancelled after getting stuck.";
                self.parts
                    .run_progress(task_id, run_id, ProgressMessage::new("info", line))
                    .await;
                RunEnds::new(&self.parts)
                    .finish_run(
                        task_id,
                        run_id,
                        RunStatus::Cancelled,
                        None,
                        Some(line.to_owned()),
                    )
                    .await?;
                return self.parts.get_task(task_id).await;
            }
            // A button's meaning is the engine's wording; typed words are the person's own.
            let note = if says(&answer, STUCK_OPTIONS[0]) {
                "The person chose to try again: try that step again, and differently if it fails the same way."
                    .to_owned()
            } else if says(&answer, STUCK_OPTIONS[1]) {
                "The person chose to skip it: skip that step, and say so in your final answer."
                    .to_owned()
            } else {
                format!("{STUCK_ANSWER_PREFIX}{answer}")
            };
            record.transcript.push(Message::user(note));
        } else {
            // The answer takes the place of the ask_user call's result.
            let call_id = stored["call_id"].as_str().unwrap_or_default();
            let text = format!("{ANSWER_PREFIX}{answer}");
            match record
                .transcript
                .iter_mut()
                .rev()
                .find(|m| m.role == Speaker::Tool && m.tool_call_id.as_deref() == Some(call_id))
            {
                Some(message) => message.content = text,
                None => record.transcript.push(Message::user(text)),
            }
        }
        record.question = None;
        record.run.status = RunStatus::Processing;
        self.parts.tasks().store().save_run(&record).await?;
        self.resume_run(task_id, run_id).await?;
        self.parts.get_task(task_id).await
    }

    /// Runs the call the person said yes to, exactly once: a note that it was started is saved
    /// first, so a restart in between never repeats it. Returns the step only the person can do
    /// when the result says so (`needs_user`).
    async fn run_held_call(
        &self,
        record: &mut super::store::RunRecord,
        call: &ToolCall,
    ) -> Result<Option<String>, TaskError> {
        let started = json!({"error": "The user said yes, but Sentient stopped while doing this, so it is not known whether it went through. Check before trying it again."}).to_string();
        set_result(&mut record.transcript, call, started);
        self.parts.tasks().store().save_run(record).await?;
        let mut ctx = self.parts.agent().tool_ctx(call.id.clone());
        // The person approved this very call, at the risk it has now; it acts in the task's
        // browser profile.
        ctx.approved_risk = self
            .parts
            .tools()
            .get(&call.name)
            .map(|tool| tool.risk_for(&call.arguments));
        let profile = self
            .parts
            .get_task(&record.task_id)
            .await
            .ok()
            .and_then(|t| t.browser_profile);
        ctx.browser_profile = std::sync::Arc::new(std::sync::Mutex::new(profile));
        // A page step the person must do is handed to them for this run.
        ctx.run = Some(std::sync::Arc::new(HeldCallOf {
            task_id: record.task_id.clone(),
            run_id: record.run.run_id.clone(),
        }));
        let limit = usize::try_from(self.parts.config().current().chat.tool_result_max_chars)
            .unwrap_or(16_000);
        let outcome = self
            .parts
            .tools()
            .invoke(&call.name, call.arguments.clone(), &ctx, limit)
            .await;
        let blocked = outcome
            .value
            .get("needs_user")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned);
        set_result(&mut record.transcript, call, outcome.content);
        Ok(blocked)
    }

    async fn fail_waiting(
        &self,
        task_id: &str,
        run_id: &str,
        error: String,
    ) -> Result<super::model::Task, TaskError> {
        self.parts
            .run_progress(
                task_id,
                run_id,
                ProgressMessage::new("error", error.clone()),
            )
            .await;
        RunEnds::new(&self.parts)
            .finish_run(task_id, run_id, RunStatus::Error, None, Some(error))
            .await?;
        self.parts.get_task(task_id).await
    }

    /// Continues a run from its transcript, as a new stretch of work.
    pub(crate) async fn resume_run(&self, task_id: &str, run_id: &str) -> Result<(), TaskError> {
        self.parts
            .change_task(task_id, |r, _| {
                r.task.status = TaskStatus::Processing;
                Ok(())
            })
            .await?;
        Executor::new(&self.parts).launch_run(task_id, run_id, false);
        Ok(())
    }

    /// `POST /api/tasks/{id}/runs/{run_id}/retry`: a new run that continues from the old one's
    /// transcript, told what went wrong; without a transcript it starts afresh.
    pub async fn retry_run(
        &self,
        task_id: &str,
        run_id: &str,
    ) -> Result<super::model::Task, TaskError> {
        let task = self.parts.get_task(task_id).await?;
        let old = self.parts.tasks().store().run(task_id, run_id).await?;
        if !matches!(old.run.status, RunStatus::Error | RunStatus::Cancelled) {
            return Err(TaskError::conflict(
                "Only a failed or cancelled run can be retried.",
            ));
        }
        if task.task_type == "swarm" {
            return Err(TaskError::conflict(
                "A swarm task can't retry one run; use Run now to start it again.",
            ));
        }
        let one_off = matches!(
            task.schedule,
            None | Some(super::model::Schedule::Once { .. })
        );
        if one_off && task.runs.iter().any(|r| r.status.is_live()) {
            return Err(TaskError::conflict("This task is already running."));
        }
        let mut transcript = old.transcript.clone();
        if !transcript.is_empty() {
            let what = old
                .run
                .error
                .clone()
                .unwrap_or_else(|| "it was cancelled".to_owned());
            transcript.push(Message::user(format!(
                "The previous attempt stopped: {what} Carry on from where it stopped; don't repeat steps that already finished."
            )));
        }
        // Notes the failed attempt saved stay pending for the retry: its transcript says "Saved.",
        // so the model will not save them again. Not when the person changed the notes since.
        let store = self.parts.tasks().store();
        let unchanged = store.notes().run_notepad_version(run_id).await?
            == store.notes().notepad_version(task_id).await?;
        let carried_notes = unchanged.then(|| saved_notes(&transcript)).flatten();
        // A retry that continues the transcript had the same memories in mind.
        let (retry, memory_sources) = if transcript.is_empty() {
            (None, Vec::new())
        } else {
            (Some(transcript), old.run.memory_sources.clone())
        };
        let start = RunStart {
            trigger_event_data: old.run.trigger_event_data.clone(),
            retry_of: Some(run_id.to_owned()),
            transcript: retry,
            carried_notes,
            memory_sources,
            by_person: false,
        };
        Executor::new(&self.parts)
            .start_run_from(task_id, start)
            .await?;
        self.parts.get_task(task_id).await
    }
}

/// The notes the last `task_notepad` call in `transcript` saved, if it was saved.
fn saved_notes(transcript: &[Message]) -> Option<String> {
    transcript.iter().rev().find_map(|m| {
        let call = m
            .tool_calls
            .iter()
            .rev()
            .find(|c| c.name == "task_notepad")?;
        let saved = transcript.iter().any(|r| {
            r.role == Speaker::Tool
                && r.tool_call_id.as_deref() == Some(call.id.as_str())
                && r.content.contains("Saved.")
        });
        let text = call.arguments.get("text")?.as_str()?;
        saved.then(|| text.trim().to_owned())
    })
}

/// Puts `content` as the result of `call` in a transcript (replacing its old result).
fn set_result(transcript: &mut Vec<Message>, call: &ToolCall, content: String) {
    match transcript
        .iter_mut()
        .rev()
        .find(|m| m.role == Speaker::Tool && m.tool_call_id.as_deref() == Some(call.id.as_str()))
    {
        Some(message) => message.content = content,
        None => transcript.push(Message::tool_result(call, content)),
    }
}

/// The run a held call belongs to, for the tools that name it (the browser's hand-off).
struct HeldCallOf {
    task_id: String,
    run_id: String,
}

impl sentient_agent::tools::RunScope for HeldCallOf {
    fn task_run(&self) -> Option<(String, String)> {
        Some((self.task_id.clone(), self.run_id.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_result_is_replaced_in_place() {
        let call = ToolCall {
            id: "c1".into(),
            name: "ask_user".into(),
            arguments: Value::Null,
        };
        let mut transcript = vec![Message::tool_result(&call, "waiting".to_owned())];
        set_result(&mut transcript, &call, "The person answered: Berlin".into());
        assert_eq!(transcript.len(), 1);
        assert_eq!(transcript[0].content, "The person answered: Berlin");
    }
}
