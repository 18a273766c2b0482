//! A one-call task's run (see `fixed_call.rs` for what such a task keeps): the approved call
//! made through the registry, no model; only a Never rule or Read only stops it.

use serde_json::Value;

use crate::TaskError;
use crate::fixed_call::{FixedCall, INTERRUPTED_AFTER_CALL};
use crate::model::{ProgressMessage, RunResult, RunStatus, Task};
use crate::parts::TaskParts;
use crate::run_end::RunEnds;
use crate::run_text::{short, tool_result_line};
use sentient_agent::approvals::Origin;
use sentient_core::stop::Job;
use sentient_core::store::new_id;

/// The run's time limit passed before the call answered.
const TIMED_OUT: &str = "Stopped: the call did not finish within the run's time limit.";

/// A one-call task's run: the approved call made once, with no model.
#[derive(Clone)]
pub(crate) struct FixedRun {
    parts: TaskParts,
}

impl FixedRun {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }
}

impl FixedRun {
    /// A one-call task's run: the refusal check, the call, and its end (`tool_call`,
    /// `tool_result`, then `final_answer` or `error` in the progress log).
    pub(crate) async fn execute_fixed_call(
        &self,
        task: &Task,
        call: FixedCall,
        run_id: &str,
        job: &Job,
    ) -> Result<(), TaskError> {
        let task_id = task.task_id.as_str();
        let started_before = self
            .parts
            .tasks()
            .store()
            .events(run_id)
            .await?
            .iter()
            .any(|e| e.message.kind == "tool_call");
        if started_before {
            return RunEnds::new(&self.parts)
                .end_run_failed(task_id, run_id, INTERRUPTED_AFTER_CALL.to_owned())
                .await;
        }
        if job.token().is_cancelled() {
            return RunEnds::new(&self.parts)
                .end_run_cancelled(task_id, run_id)
                .await;
        }
        if let Some(refusal) = self
            .parts
            .agent()
            .approved_call_refusal(&call.tool, &call.arguments)
        {
            return RunEnds::new(&self.parts)
                .end_run_failed(task_id, run_id, refusal)
                .await;
        }

        self.parts
            .run_progress(
                task_id,
                run_id,
                ProgressMessage {
                    tool_name: Some(call.tool.clone()),
                    parameters: Some(call.arguments.clone()),
                    ..ProgressMessage::new("tool_call", format!("Using {}", call.tool))
                },
            )
            .await;
        let config = self.parts.config().current();
        let limit = usize::try_from(config.chat.tool_result_max_chars).unwrap_or(16_000);
        let minutes = u64::from(config.tasks.run_timeout_minutes.max(1));
        let mut ctx = self.parts.agent().tool_ctx(new_id());
        ctx.cancel = job.token().clone();
        ctx.origin = Origin::Task;
        let invoke = self
            .parts
            .tools()
            .invoke(&call.tool, call.arguments, &ctx, limit);
        let outcome = tokio::select! {
            outcome = invoke => outcome,
            () = job.token().cancelled() => return RunEnds::new(&self.parts).end_run_cancelled(task_id, run_id).await,
            () = tokio::time::sleep(std::time::Duration::from_secs(minutes * 60)) => {
                return RunEnds::new(&self.parts).end_run_failed(task_id, run_id, TIMED_OUT.to_owned()).await;
            }
        };
        self.parts
            .run_progress(
                task_id,
                run_id,
                ProgressMessage {
                    tool_name: Some(call.tool.clone()),
                    result: Some(short(&outcome.value)),
                    is_error: Some(outcome.is_error),
                    ..ProgressMessage::new("tool_result", tool_result_line(&call.tool, true))
                },
            )
            .await;
        if outcome.is_error {
            let error = outcome
                .value
                .get("error")
                .and_then(Value::as_str)
                .map_or(outcome.content, str::to_owned);
            return RunEnds::new(&self.parts)
                .end_run_failed(task_id, run_id, error)
                .await;
        }

        self.parts
            .run_progress(
                task_id,
                run_id,
                ProgressMessage::new("final_answer", call.done_text.clone()),
            )
            .await;
        let app = self.parts.tools().plugin_of(&call.tool);
        let result = RunResult {
            summary: call.done_text,
            tools_used: app.into_iter().collect(),
            ..RunResult::default()
        };
        RunEnds::new(&self.parts)
            .finish_run(task_id, run_id, RunStatus::Completed, Some(result), None)
            .await
    }
}
