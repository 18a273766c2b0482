//! One-call tasks (contract section 4, "Already approved one-call tasks"): a call the person has
//! already approved (a follow-up's Send, the Daily Brief) kept as a task whose run makes exactly
//! that call with exactly those arguments: no planner, no executor model. Only a Never rule and
//! a Read only connection, read right before the call, still stop it.

use serde_json::{Map, Value, json};

use crate::executor::{short, tool_result_line};
use crate::model::{PlanStep, ProgressMessage, RunResult, RunStatus, Schedule, Task, TaskStatus};
use crate::store::TaskRecord;
use crate::{TaskError, TaskService, go_live, new_task_row};
use sentient_agent::approvals::Origin;
use sentient_core::stop::Job;
use sentient_core::store::new_id;

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

/// The run's time limit passed before the call answered.
const TIMED_OUT: &str = "Stopped: the call did not finish within the run's time limit.";

impl TaskService {
    /// Saves an already approved call as a task: once (created `pending`, its run starts at
    /// once) or on a recurring schedule (created `active` with its next run worked out).
    pub async fn create_approved_call(&self, call: ApprovedCall) -> Result<Task, TaskError> {
        let name = call.name.trim().to_owned();
        if name.is_empty() {
            return Err(TaskError::invalid("A one-call task needs a name."));
        }
        if self.tools().get(&call.tool).is_none() {
            return Err(TaskError::invalid(format!(
                "There is no tool called \"{}\".",
                call.tool
            )));
        }
        if !call.arguments.is_object() {
            return Err(TaskError::invalid(
                "A one-call task's arguments must be an object.",
            ));
        }
        if let Some(schedule) = &call.schedule
            && !matches!(schedule, Schedule::Once { .. })
            && !schedule.is_recurring()
        {
            return Err(TaskError::invalid(
                "A one-call task runs once or on a repeating schedule.",
            ));
        }
        let mut context = call.original_context;
        context.insert("source".to_owned(), json!(call.source));
        context.insert(
            "fixed_call".to_owned(),
            json!({
                "tool": call.tool,
                "arguments": call.arguments,
                "done_text": call.done_text,
                "quiet": call.quiet,
            }),
        );
        let now = self.clock().now();
        let description = call.description.unwrap_or_else(|| call.step.clone());
        let mut task = new_task_row(name, description.clone(), TaskStatus::Pending, now);
        task.schedule = call.schedule;
        task.plan = vec![PlanStep {
            tool: call.tool.clone(),
            description: call.step,
        }];
        task.original_context = Value::Object(context);
        go_live(&mut task, now);
        let recurring = task.status == TaskStatus::Active;
        if !recurring {
            // Runs now, not when the scheduler next looks.
            task.next_execution_at = None;
        }
        let id = task.task_id.clone();
        self.tasks()
            .store()
            .insert(&TaskRecord {
                task,
                prompt: description,
            })
            .await?;
        self.announce_task(&id).await;
        if !recurring {
            self.start_run_from(&id, crate::RunStart::default()).await?;
        }
        self.get_task(&id).await
    }

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
            .tasks()
            .store()
            .events(run_id)
            .await?
            .iter()
            .any(|e| e.message.kind == "tool_call");
        if started_before {
            return self
                .end_run_failed(task_id, run_id, INTERRUPTED_AFTER_CALL.to_owned())
                .await;
        }
        if job.token().is_cancelled() {
            return self.end_run_cancelled(task_id, run_id).await;
        }
        if let Some(refusal) = self
            .agent()
            .approved_call_refusal(&call.tool, &call.arguments)
        {
            return self.end_run_failed(task_id, run_id, refusal).await;
        }

        self.run_progress(
            task_id,
            run_id,
            ProgressMessage {
                tool_name: Some(call.tool.clone()),
                parameters: Some(call.arguments.clone()),
                ..ProgressMessage::new("tool_call", format!("Using {}", call.tool))
            },
        )
        .await;
        let config = self.config().current();
        let limit = usize::try_from(config.chat.tool_result_max_chars).unwrap_or(16_000);
        let minutes = u64::from(config.tasks.run_timeout_minutes.max(1));
        let mut ctx = self.agent().tool_ctx(new_id());
        ctx.cancel = job.token().clone();
        ctx.origin = Origin::Task;
        let invoke = self.tools().invoke(&call.tool, call.arguments, &ctx, limit);
        let outcome = tokio::select! {
            outcome = invoke => outcome,
            () = job.token().cancelled() => return self.end_run_cancelled(task_id, run_id).await,
            () = tokio::time::sleep(std::time::Duration::from_secs(minutes * 60)) => {
                return self.end_run_failed(task_id, run_id, TIMED_OUT.to_owned()).await;
            }
        };
        self.run_progress(
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
            return self.end_run_failed(task_id, run_id, error).await;
        }

        self.run_progress(
            task_id,
            run_id,
            ProgressMessage::new("final_answer", call.done_text.clone()),
        )
        .await;
        let app = self.tools().plugin_of(&call.tool);
        let result = RunResult {
            summary: call.done_text,
            tools_used: app.into_iter().collect(),
            ..RunResult::default()
        };
        self.finish_run(task_id, run_id, RunStatus::Completed, Some(result), None)
            .await
    }
}

/// Whether a finished run of `task` keeps its "Task completed" notification to itself (a quiet
/// one-call task: its tool sends its own). Failures always notify.
pub fn quiet_when_done(task: &Task, status: RunStatus) -> bool {
    status == RunStatus::Completed && FixedCall::of(task).is_some_and(|c| c.quiet)
}
