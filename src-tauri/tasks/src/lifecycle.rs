//! The life cycle behind the routes: create, change, approve, decline, archive, delete, Run now,
//! cancel, and the queries. A person's change that settles planning goes through
//! `TaskParts::person_changes_task`.

use std::sync::Arc;

use sentient_agent::Agent;
use sentient_core::domain::notification::Notifier;
use sentient_core::domain::script::{SandboxResult, ScriptRunner};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::executor::{Executor, RunStart};
use crate::fixed_call::ApprovedCall;
use crate::model::{self, PlanStep, RunStatus, Schedule, Task, TaskChatLine, TaskStatus};
use crate::planner::{Planner, Refinement};
use crate::requests::{NewTask, PRIORITIES, TaskPatch, check_deliver_to, provisional_name};
use crate::run_end::RunEnds;
use crate::script_jobs::{ScriptJobs, check_compiles, merge_script};
use crate::service::TaskService;
use crate::store::{TaskRecord, TaskStoreError};
use crate::task_row::{go_live, new_task_row, next_due};
use crate::{TaskError, brief, continuity, schedule};
use sentient_core::bus::DomainEvent;

impl TaskService {
    /// The service, with the task apps (tasks, notes between runs, the brief, conversation
    /// search) registered on the agent's registry.
    pub fn new(
        agent: Agent,
        notifier: Arc<dyn Notifier>,
        scripts: Arc<dyn ScriptRunner>,
        shutdown: CancellationToken,
    ) -> Self {
        let service = Self::assemble(agent, notifier, scripts, shutdown);
        for plugin in crate::tools::plugins(&service.handle()) {
            if let Err(error) = service.parts().tools().register(plugin) {
                tracing::error!(%error, "a task app could not be registered");
            }
        }
        service
    }

    pub async fn list_tasks(&self) -> Result<Vec<Task>, TaskError> {
        Ok(self.parts().tasks().store().list().await?)
    }

    /// Tasks whose name, description, brief or notes match `q`, best first (`GET /api/tasks?q=`).
    pub async fn search_tasks(&self, q: &str) -> Result<Vec<Task>, TaskError> {
        let mut found = Vec::new();
        for id in self.parts().tasks().store().search_tasks(q).await? {
            match self.parts().tasks().store().task_with_runs(&id).await {
                Ok(task) => found.push(task),
                Err(TaskStoreError::NoTask(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(found)
    }

    fn check_browser_profile(&self, profile: Option<String>) -> Result<Option<String>, TaskError> {
        let Some(name) = profile.map(|p| p.trim().to_owned()) else {
            return Ok(None);
        };
        if name.is_empty() || name == "default" {
            return Ok(None);
        }
        if self
            .parts()
            .config()
            .current()
            .browser
            .profiles
            .contains_key(&name)
        {
            Ok(Some(name))
        } else {
            Err(TaskError::invalid(format!(
                "There is no browser profile named \"{name}\". Pick one from Settings > Browser, or leave it empty for the default."
            )))
        }
    }

    /// `POST /api/tasks`: saves the task as `planning` and plans it in the background.
    pub async fn create_task(&self, new: NewTask) -> Result<Task, TaskError> {
        let prompt = new.prompt.trim().to_owned();
        if prompt.is_empty() {
            return Err(TaskError::invalid(
                "Describe the task first: the prompt is empty.",
            ));
        }
        let browser_profile = self.check_browser_profile(new.browser_profile)?;
        let now = self.parts().clock().now();
        let mut task = new_task_row(
            provisional_name(&prompt),
            prompt.clone(),
            TaskStatus::Planning,
            now,
        );
        task.assignee = new.assignee.unwrap_or_else(|| "ai".to_owned());
        if new.is_swarm {
            task.task_type = "swarm".to_owned();
        }
        task.model = new.model.filter(|m| !m.trim().is_empty());
        task.browser_profile = browser_profile;
        let id = task.task_id.clone();
        self.parts()
            .tasks()
            .store()
            .insert(&TaskRecord { task, prompt })
            .await?;
        self.parts().announce_task(&id).await;
        Planner::new(self.parts()).start_planning(&id);
        self.parts().get_task(&id).await
    }

    /// `PATCH /api/tasks/{id}`.
    pub async fn patch_task(&self, task_id: &str, patch: TaskPatch) -> Result<Task, TaskError> {
        // A partial script merged into the task's own, checked before anything is written.
        let script = match &patch.script {
            None => None,
            Some(None) => Some(None),
            Some(Some(change)) => {
                let current = self.parts().get_task(task_id).await?.script;
                let merged = merge_script(current.as_ref(), change)?;
                check_compiles(self.parts(), &merged.code).await?;
                Some(Some(merged))
            }
        };
        if let Some(priority) = patch.priority
            && !PRIORITIES.contains(&priority)
        {
            return Err(TaskError::invalid(format!(
                "Priority is 0 (low), 1 (normal) or 2 (high), not {priority}."
            )));
        }
        let default_tz = self.parts().user_timezone();
        let browser_profile = match patch.browser_profile {
            Some(p) => Some(self.check_browser_profile(p)?),
            None => None,
        };
        let deliver_to = match patch.deliver_to {
            Some(d) => Some(check_deliver_to(d)?),
            None => None,
        };
        let schedule = match &patch.schedule {
            Some(raw) => Some(
                schedule::parse_schedule(raw, &default_tz)
                    .map_err(|e| TaskError::invalid(e.to_string()))?,
            ),
            None => None,
        };
        let status = match patch.status.as_deref() {
            Some(s) => Some(
                TaskStatus::parse(s)
                    .ok_or_else(|| TaskError::invalid(format!("\"{s}\" is not a task status.")))?,
            ),
            None => None,
        };
        if let Some(name) = &patch.name
            && name.trim().is_empty()
        {
            return Err(TaskError::invalid("A task needs a name."));
        }
        let config = self.parts().config().current();
        let notepad = match &patch.notepad {
            Some(text) => Some(continuity::check_notepad(
                text.clone().map(Value::String).as_ref(),
                config.tasks.continuity.notepad_chars,
            )?),
            None => None,
        };
        let brief_cap = usize::try_from(config.tasks.brief_chars).unwrap_or(1500);
        let forget = patch.forget_earlier_runs == Some(true);
        let person_wrote_notes = notepad.is_some() || forget;
        // The plan, schedule or status a person sets is what planning would have produced.
        let settles_planning = patch.plan.is_some() || schedule.is_some() || status.is_some();
        let change = |record: &mut TaskRecord, now| {
            let task = &mut record.task;
            let mut recompute = false;
            if let Some(name) = patch.name {
                task.name = name.trim().to_owned();
            }
            if let Some(description) = patch.description {
                task.description = description;
            }
            if let Some(priority) = patch.priority {
                task.priority = priority;
            }
            if let Some(schedule) = schedule {
                task.schedule = Some(schedule);
                recompute = true;
            }
            if let Some(plan) = patch.plan {
                task.plan = plan;
            }
            if let Some(enabled) = patch.enabled {
                recompute |= enabled && !task.enabled;
                task.enabled = enabled;
                if !enabled {
                    task.next_execution_at = None;
                }
            }
            if let Some(status) = status {
                recompute |= matches!(status, TaskStatus::Active | TaskStatus::Pending);
                task.status = status;
            }
            if let Some(model) = patch.model {
                task.model = model.filter(|m| !m.trim().is_empty());
            }
            if let Some(profile) = browser_profile {
                task.browser_profile = profile;
            }
            if let Some(deliver_to) = deliver_to {
                task.deliver_to = deliver_to;
            }
            if let Some(script) = script {
                task.task_type = match script {
                    Some(_) => "script",
                    None if task.task_type == "script" => "single",
                    None => task.task_type.as_str(),
                }
                .to_owned();
                task.script = script;
            }
            if let Some(notes) = notepad {
                // The person's own words: no outside content in them.
                task.notepad = notes;
                task.notepad_untrusted = None;
            }
            if let Some(changes) = &patch.brief {
                let current = task.brief.clone().unwrap_or_default();
                let next = brief::apply(&current, changes, brief::Author::User, brief_cap, now)
                    .map_err(TaskError::Invalid)?;
                task.brief = Some(next);
            }
            if recompute && task.enabled {
                task.next_execution_at = next_due(task, now);
            }
            Ok(())
        };
        let script_gone = matches!(patch.script, Some(None));
        if settles_planning {
            self.parts().person_changes_task(task_id, change).await?;
        } else {
            self.parts().change_task(task_id, change).await?;
        }
        if script_gone {
            ScriptJobs::new(self.parts()).cancel_checks(task_id);
        }
        // A run that started before the person's edit or Clear can no longer write the notes.
        if person_wrote_notes {
            let forget_from = forget.then(|| self.parts().clock().now());
            self.parts()
                .tasks()
                .store()
                .notes()
                .bump_notepad_version(task_id, forget_from)
                .await?;
        }
        self.parts().get_task(task_id).await
    }

    /// `DELETE /api/tasks/{id}`: cancels its runs and planning, then deletes it.
    pub async fn delete_task(&self, task_id: &str) -> Result<(), TaskError> {
        let task = self.parts().get_task(task_id).await?;
        for run in task.runs.iter().filter(|r| r.status.is_live()) {
            self.parts().tasks().cancel(&run.run_id);
        }
        {
            let _one_at_a_time = self.parts().tasks().changes.lock().await;
            self.parts().tasks().store().delete(task_id).await?;
        }
        // Planning ends once the row is gone, so whatever it writes on its way out finds nothing.
        self.parts().tasks().cancel(task_id);
        ScriptJobs::new(self.parts()).cancel_checks(task_id);
        // The feed keeps what happened, but says the task is gone and offers nothing for it.
        self.parts().notifier().task_deleted(task_id).await;
        self.parts().bus().publish(DomainEvent::TaskDeleted {
            task_id: task_id.to_owned(),
        });
        Ok(())
    }

    /// `POST /api/tasks/{id}/approve`.
    pub async fn approve_task(&self, task_id: &str) -> Result<Task, TaskError> {
        // A script job's code must compile before it may run on its own.
        if let Some(script) = self.parts().get_task(task_id).await?.script
            && let Err(problem) = check_compiles(self.parts(), &script.code).await
        {
            return Err(TaskError::conflict(format!(
                "{} Fix the script before approving.",
                problem.message()
            )));
        }
        self.parts()
            .person_changes_task(task_id, |record, now| {
                let task = &mut record.task;
                if task.status != TaskStatus::ApprovalPending {
                    return Err(TaskError::conflict(format!(
                        "Only a plan waiting for approval can be approved; this task is {}.",
                        task.status.as_str().replace('_', " ")
                    )));
                }
                if task.plan.is_empty() {
                    return Err(TaskError::conflict(
                        "This task has no plan yet, so there is nothing to approve.",
                    ));
                }
                go_live(task, now);
                Ok(())
            })
            .await?;
        self.parts()
            .settle_task_notifications(task_id, "approval_needed", "approved")
            .await;
        self.parts().settle_planning_failed(task_id).await;
        self.parts().get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/decline`.
    pub async fn decline_task(&self, task_id: &str) -> Result<Task, TaskError> {
        self.parts()
            .person_changes_task(task_id, |record, _| {
                let task = &mut record.task;
                if !matches!(
                    task.status,
                    TaskStatus::ApprovalPending | TaskStatus::ClarificationPending
                ) {
                    return Err(TaskError::conflict(format!(
                        "Only a plan waiting for approval can be declined; this task is {}.",
                        task.status.as_str().replace('_', " ")
                    )));
                }
                task.status = TaskStatus::Declined;
                task.next_execution_at = None;
                Ok(())
            })
            .await?;
        self.parts()
            .settle_task_notifications(task_id, "approval_needed", "declined")
            .await;
        self.parts().get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/archive`.
    pub async fn archive_task(&self, task_id: &str) -> Result<Task, TaskError> {
        let task = self.parts().get_task(task_id).await?;
        if task.runs.iter().any(|r| r.status == RunStatus::Processing) {
            return Err(TaskError::conflict(
                "This task is running; cancel its run first, then archive it.",
            ));
        }
        self.parts()
            .person_changes_task(task_id, |record, _| {
                record.task.status = TaskStatus::Archived;
                record.task.next_execution_at = None;
                Ok(())
            })
            .await?;
        self.parts().get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/rerun`: a new copy of the task, planned afresh.
    pub async fn rerun_task(&self, task_id: &str) -> Result<Task, TaskError> {
        let original = self.parts().tasks().store().task(task_id).await?;
        let mut copy = self
            .create_task(NewTask {
                prompt: original.prompt.clone(),
                is_swarm: original.task.task_type == "swarm",
                assignee: Some(original.task.assignee.clone()),
                model: original.task.model.clone(),
                browser_profile: original.task.browser_profile.clone(),
            })
            .await?;
        let deliver_to = original.task.deliver_to.clone();
        self.parts()
            .change_task(&copy.task_id, |record, _| {
                record.task.deliver_to = deliver_to;
                Ok(())
            })
            .await?;
        copy = self.parts().get_task(&copy.task_id).await?;
        Ok(copy)
    }

    /// `POST /api/tasks/{id}/run-now`: starts a run at once.
    pub async fn run_task_now(&self, task_id: &str) -> Result<Task, TaskError> {
        let task = self.parts().get_task(task_id).await?;
        let live = task.runs.iter().any(|r| r.status.is_live());
        let one_off = matches!(task.schedule, None | Some(Schedule::Once { .. }));
        if task.plan.is_empty() {
            return Err(TaskError::conflict(
                "This task has no plan yet; wait for planning to finish.",
            ));
        }
        if matches!(
            task.status,
            TaskStatus::Planning
                | TaskStatus::ClarificationPending
                | TaskStatus::ApprovalPending
                | TaskStatus::Declined
                | TaskStatus::Archived
        ) {
            return Err(TaskError::conflict(format!(
                "A task that is {} can't run now.",
                task.status.as_str().replace('_', " ")
            )));
        }
        if one_off && live {
            return Err(TaskError::conflict(
                "This task is already running or waiting for your answer.",
            ));
        }
        // Run now on a script job is a check now.
        if task.script.is_some() {
            if ScriptJobs::new(self.parts()).is_checking(task_id) {
                return Err(TaskError::conflict(
                    "This task is already checking; wait for the check to finish.",
                ));
            }
            ScriptJobs::new(self.parts())
                .start_check(task_id, None, true)
                .await?;
            return self.parts().get_task(task_id).await;
        }
        let start = RunStart {
            by_person: true,
            ..RunStart::default()
        };
        Executor::new(self.parts())
            .start_run_from(task_id, start)
            .await?;
        self.parts().get_task(task_id).await
    }

    /// The assistant gave a script job new code (`update_task`): with
    /// `tasks.require_plan_approval` it waits for the person's approval again, with the feed told.
    pub async fn script_needs_approval(&self, task_id: &str) -> Result<Task, TaskError> {
        if !self.parts().config().current().tasks.require_plan_approval {
            return self.parts().get_task(task_id).await;
        }
        let (task, _) = self
            .parts()
            .person_changes_task(task_id, |record, _| {
                record.task.status = TaskStatus::ApprovalPending;
                record.task.next_execution_at = None;
                Ok(record.task.clone())
            })
            .await?;
        ScriptJobs::new(self.parts()).cancel_checks(task_id);
        let message = crate::notify::plan_summary(&task.description, &task.plan);
        self.parts()
            .notify_task(
                &task,
                "approval_needed",
                format!("{} needs your approval", task.name),
                message,
                Map::new(),
            )
            .await;
        self.parts().get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/script/test`: the task's script, or `code`, run once as a check
    /// would run it, without touching what its checks found.
    pub async fn test_script(
        &self,
        task_id: &str,
        code: Option<String>,
    ) -> Result<SandboxResult, TaskError> {
        let task = self.parts().get_task(task_id).await?;
        let code = match code.filter(|c| !c.trim().is_empty()) {
            Some(code) => code,
            None => match task.script {
                Some(script) => script.code,
                None => {
                    return Err(TaskError::conflict(
                        "This task has no script to test. Send the code to test with the request.",
                    ));
                }
            },
        };
        check_compiles(self.parts(), &code).await?;
        Ok(self
            .parts()
            .scripts()
            .check(&code, None, CancellationToken::new())
            .await)
    }

    /// `POST /api/tasks/{id}/runs/{run_id}/cancel`.
    pub async fn cancel_run(&self, task_id: &str, run_id: &str) -> Result<Task, TaskError> {
        let record = self.parts().tasks().store().run(task_id, run_id).await?;
        if !record.run.status.is_live() {
            return Err(TaskError::conflict(
                "This run has already finished, so there is nothing to cancel.",
            ));
        }
        // A working run stops at its next step and records itself; a waiting one ends here.
        if !self.parts().tasks().cancel(run_id) {
            RunEnds::new(self.parts())
                .finish_run(
                    task_id,
                    run_id,
                    RunStatus::Cancelled,
                    None,
                    Some("Cancelled.".to_owned()),
                )
                .await?;
        } else {
            self.wait_for_run_end(task_id, run_id).await;
        }
        self.parts().get_task(task_id).await
    }

    /// Waits (at most 5 s) until a cancelled run has ended and its task has moved on, so the
    /// answer to Cancel shows both.
    async fn wait_for_run_end(&self, task_id: &str, run_id: &str) {
        // Subscribed before the first look, so an end that lands in between is not missed.
        let mut events = self.parts().bus().subscribe();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let Ok(task) = self.parts().get_task(task_id).await else {
                return;
            };
            let this_live = task
                .runs
                .iter()
                .any(|r| r.run_id == run_id && r.status.is_live());
            let others_live = task
                .runs
                .iter()
                .any(|r| r.run_id != run_id && r.status.is_live());
            if !this_live && (task.status != TaskStatus::Processing || others_live) {
                return;
            }
            // Look again when this task changes or its run ends.
            loop {
                match tokio::time::timeout_at(deadline, events.recv()).await {
                    Err(_) | Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => return,
                    Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => break,
                    Ok(Ok(envelope)) => match envelope.event {
                        DomainEvent::TaskUpdated(changed) if changed.task_id == task_id => break,
                        DomainEvent::TaskRunFinished { run_id: ended, .. } if ended == run_id => {
                            break;
                        }
                        _ => {}
                    },
                }
            }
        }
    }

    /// `GET /api/tasks/{id}/runs/{run_id}/events`.
    pub async fn run_events(
        &self,
        task_id: &str,
        run_id: &str,
    ) -> Result<Vec<model::ProgressUpdate>, TaskError> {
        self.parts().tasks().store().run(task_id, run_id).await?;
        Ok(self.parts().tasks().store().events(run_id).await?)
    }

    /// `POST /api/tasks/preview`.
    pub async fn preview_task(&self, prompt: &str) -> Result<Refinement, TaskError> {
        if prompt.trim().is_empty() {
            return Err(TaskError::invalid(
                "Describe the task first: the prompt is empty.",
            ));
        }
        Planner::new(self.parts())
            .refine_task(prompt.trim(), &CancellationToken::new())
            .await
    }

    /// `POST /api/tasks/{id}/clarifications`: saves the answers and plans again.
    pub async fn answer_clarifications(
        &self,
        task_id: &str,
        answers: Vec<(String, String)>,
    ) -> Result<Task, TaskError> {
        let (_, generation) = self
            .parts()
            .person_changes_task(task_id, |r, _| {
                let task = &mut r.task;
                if task.status != TaskStatus::ClarificationPending
                    || task.clarifying_questions.is_empty()
                {
                    return Err(TaskError::conflict(
                        "This task has no questions waiting for answers.",
                    ));
                }
                for (id, answer) in &answers {
                    let question = task
                        .clarifying_questions
                        .iter_mut()
                        .find(|q| &q.question_id == id)
                        .ok_or_else(|| {
                            TaskError::invalid(format!("This task has no question {id}."))
                        })?;
                    question.answer = Some(answer.trim().to_owned());
                }
                task.status = TaskStatus::Planning;
                Ok(())
            })
            .await?;
        Planner::new(self.parts()).start_planning_with(task_id, generation, false);
        self.parts().get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/chat`: a change request; the task is planned again.
    pub async fn task_chat(&self, task_id: &str, message: &str) -> Result<Task, TaskError> {
        let message = message.trim().to_owned();
        if message.is_empty() {
            return Err(TaskError::invalid("Type what should change first."));
        }
        let (_, generation) = self.parts().person_changes_task(task_id, |r, now| {
            let task = &mut r.task;
            if matches!(
                task.status,
                TaskStatus::Processing | TaskStatus::WaitingForUser | TaskStatus::Planning
            ) {
                return Err(TaskError::conflict(
                    "This task is busy; ask for the change once its run has finished or its question is answered.",
                ));
            }
            task.chat_history.push(TaskChatLine {
                role: "user".to_owned(),
                content: message,
                timestamp: now,
            });
            task.status = TaskStatus::Planning;
            task.next_execution_at = None;
            Ok(())
        })
        .await?;
        Planner::new(self.parts()).start_planning_with(task_id, generation, false);
        self.parts().get_task(task_id).await
    }

    /// Saves an already approved call as a task: once (created `pending`, its run starts at
    /// once) or on a recurring schedule (created `active` with its next run worked out).
    pub async fn create_approved_call(&self, call: ApprovedCall) -> Result<Task, TaskError> {
        let name = call.name.trim().to_owned();
        if name.is_empty() {
            return Err(TaskError::invalid("A one-call task needs a name."));
        }
        if self.parts().tools().get(&call.tool).is_none() {
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
        let now = self.parts().clock().now();
        let description = call.description.unwrap_or_else(|| call.step.clone());
        let mut task = new_task_row(name, description.clone(), TaskStatus::Pending, now);
        task.schedule = call.schedule;
        task.plan = vec![PlanStep {
            tool: call.tool.clone(),
            description: call.step,
        }];
        task.original_context = context;
        go_live(&mut task, now);
        let recurring = task.status == TaskStatus::Active;
        if !recurring {
            // Runs now, not when the scheduler next looks.
            task.next_execution_at = None;
        }
        let id = task.task_id.clone();
        self.parts()
            .tasks()
            .store()
            .insert(&TaskRecord {
                task,
                prompt: description,
            })
            .await?;
        self.parts().announce_task(&id).await;
        if !recurring {
            Executor::new(self.parts())
                .start_run_from(&id, RunStart::default())
                .await?;
        }
        self.parts().get_task(&id).await
    }

    /// Turns off every enabled task that uses the app `app`: triggered by it, or with a plan
    /// step using one of its tools (`plugin_of` names a tool's app). Each gets a `disabled`
    /// notification saying why. Returns the names of the tasks turned off.
    pub async fn disable_tasks_using(
        &self,
        app: &str,
        app_name: &str,
        plugin_of: impl Fn(&str) -> Option<String>,
    ) -> Vec<String> {
        let tasks = match self.list_tasks().await {
            Ok(tasks) => tasks,
            Err(error) => {
                tracing::warn!(error = %error.message(), app, "tasks using a disconnected app could not be listed");
                return Vec::new();
            }
        };
        let mut names = Vec::new();
        for task in tasks.into_iter().filter(|t| t.enabled) {
            let triggered = matches!(&task.schedule, Some(crate::model::Schedule::Triggered { source, .. }) if source == app);
            let planned = task
                .plan
                .iter()
                .any(|step| plugin_of(&step.tool).as_deref() == Some(app));
            if !triggered && !planned {
                continue;
            }
            let patch = TaskPatch {
                enabled: Some(false),
                ..TaskPatch::default()
            };
            match self.patch_task(&task.task_id, patch).await {
                Ok(task) => {
                    self.parts().notify_task(
                        &task,
                        "disabled",
                        format!("Turned off '{}'", task.name),
                        format!(
                            "{app_name} was disconnected, so '{}' can't run. Connect {app_name} again in Integrations, then turn the task back on.",
                            task.name
                        ),
                        Map::new(),
                    )
                    .await;
                    names.push(task.name);
                }
                Err(error) => {
                    tracing::warn!(error = %error.message(), task_id = %task.task_id, "a task using a disconnected app could not be turned off");
                }
            }
        }
        names
    }
}
