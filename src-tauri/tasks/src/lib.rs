//! Tasks: work a person asks for once, now, on a schedule or when something happens (contract
//! section 4). The service owns the life cycle (planning → approval → pending/active → runs);
//! the store keeps tasks and runs; `planner` turns a prompt into a name, schedule and plan;
//! `executor` runs a plan through the one agent loop; `scheduler` starts runs that are due.

pub mod brief;
pub mod continuity;
pub mod error;
pub mod executor;
pub mod fixed_call;
pub mod limits;
pub mod notify;
pub mod planner;
pub mod questions;
pub mod recall;
pub mod requests;
pub mod run_scope;
pub mod schedule;
pub mod schedule_words;
pub mod scheduler;
pub mod service;
pub mod store;
pub mod swarm;
pub mod tools;
pub mod triggers;

pub use error::TaskError;
/// The Task and Run objects, which sit with the other domain types at the bottom.
pub use sentient_core::domain::task as model;
pub use service::{TaskHandle, TaskService};

use sentient_core::sync::MutexExt;
use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use model::{PlanStep, RunStatus, Schedule, Task, TaskStatus};
use sentient_core::bus::DomainEvent;
use store::{RunRecord, TaskRecord, TaskStore, TaskStoreError, TaskWrite};

/// The tasks service: the store, one lock that serialises changes to tasks, and the tokens of
/// running runs and plannings (Cancel, Stop everything and shutdown reach them).
#[derive(Debug)]
pub struct Tasks {
    store: TaskStore,
    changes: tokio::sync::Mutex<()>,
    /// Each with the number `track` gave it, so a job that ends after its successor started
    /// does not untrack the successor.
    running: Mutex<HashMap<String, (u64, CancellationToken)>>,
    next_job: std::sync::atomic::AtomicU64,
    /// What the scheduler remembers between ticks (`tasks/scheduler.rs`).
    pub(crate) scheduler: scheduler::SchedulerState,
}

impl Tasks {
    pub fn new(store: sentient_core::store::Store) -> Self {
        Self {
            store: TaskStore::new(store),
            changes: tokio::sync::Mutex::new(()),
            running: Mutex::new(HashMap::new()),
            next_job: std::sync::atomic::AtomicU64::new(0),
            scheduler: scheduler::SchedulerState::default(),
        }
    }

    pub fn store(&self) -> &TaskStore {
        &self.store
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u64, CancellationToken)>> {
        self.running.lock_unpoisoned()
    }

    /// Registers a running run (or a planning, keyed by task id) so it can be cancelled; gives
    /// the number `untrack` takes.
    pub(crate) fn track(&self, key: &str, token: CancellationToken) -> u64 {
        let job = self
            .next_job
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.running().insert(key.to_owned(), (job, token));
        job
    }

    /// Forgets job `job` under `key`, unless another job took the key since.
    pub(crate) fn untrack(&self, key: &str, job: u64) {
        let mut running = self.running();
        if running.get(key).is_some_and(|(current, _)| *current == job) {
            running.remove(key);
        }
    }

    /// Whether a run (or a task's planning) is running in this process.
    pub fn is_running(&self, key: &str) -> bool {
        self.running().contains_key(key)
    }

    /// Cancels a tracked run or planning; `false` when it is not running here.
    pub(crate) fn cancel(&self, key: &str) -> bool {
        self.running()
            .get(key)
            .map(|(_, token)| token.cancel())
            .is_some()
    }
}

/// `POST /api/tasks`.
#[derive(Debug, Clone, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NewTask {
    pub prompt: String,
    #[serde(default)]
    pub is_swarm: bool,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub browser_profile: Option<String>,
}

/// `PATCH /api/tasks/{id}`: any of these fields.
#[derive(Debug, Clone, Default, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub priority: Option<i32>,
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub schedule: Option<Value>,
    pub plan: Option<Vec<PlanStep>>,
    pub enabled: Option<bool>,
    pub status: Option<String>,
    /// A model string, or null/"" for the executor role's model.
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub model: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub browser_profile: Option<Option<String>>,
    #[schema(value_type = Option<Value>)]
    #[specta(type = Option<String>)]
    #[serde(default, deserialize_with = "present")]
    pub deliver_to: Option<Option<Value>>,
    /// Notes between runs: text (trimmed, at most `tasks.continuity.notepad_chars`), or null/"" to clear.
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub notepad: Option<Option<String>>,
    /// With a Clear: runs finished before now are no longer remembered either.
    pub forget_earlier_runs: Option<bool>,
    /// Brief fields the person writes (field → text, or null/"" to clear); runs may not change them.
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, Option<String>>>)]
    pub brief: Option<serde_json::Map<String, Value>>,
    /// A script for a script task (contract section 4). Script tasks are not built yet: any value
    /// is refused with a 400 that says so (not a 422 for an unknown field).
    #[schema(value_type = Option<Object>)]
    #[specta(skip)]
    #[serde(default, deserialize_with = "present")]
    pub script: Option<Option<Value>>,
}

/// What `PATCH /api/tasks/{id}` says to a script until script tasks exist.
pub const NO_SCRIPT_TASKS: &str =
    "Script tasks are not available yet. Describe what the task should do in its prompt instead.";

/// Priorities a task can have: 0 (low) to 2 (high).
pub const PRIORITIES: std::ops::RangeInclusive<i32> = 0..=2;

/// Tells "absent" (None) from "null" (Some(None)).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

pub(crate) use sentient_core::store::new_id;

/// The first words of a prompt, as a name until the planner gives a better one.
fn provisional_name(prompt: &str) -> String {
    let words: Vec<&str> = prompt.split_whitespace().take(8).collect();
    let mut name = words.join(" ");
    if name.chars().count() > 60 {
        name = name.chars().take(60).collect::<String>() + "…";
    }
    name
}

/// `deliver_to`: "default" (or null), "desktop", or up to 10 `{channel, chat_id}`; an empty
/// list is "desktop".
pub fn check_deliver_to(value: Option<Value>) -> Result<Value, TaskError> {
    const CHANNELS: [&str; 3] = ["telegram", "discord", "whatsapp"];
    match value {
        None | Some(Value::Null) => Ok(json!("default")),
        Some(Value::String(s)) if s == "default" || s == "desktop" => Ok(Value::String(s)),
        Some(Value::Array(list)) if list.is_empty() => Ok(json!("desktop")),
        Some(Value::Array(list)) if list.len() <= 10 => {
            let mut chats = Vec::new();
            for item in list {
                let channel = item
                    .get("channel")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let chat_id = item
                    .get("chat_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !CHANNELS.contains(&channel) {
                    return Err(TaskError::invalid(format!(
                        "deliver_to names an unknown channel \"{channel}\"; use telegram, discord or whatsapp."
                    )));
                }
                if chat_id.trim().is_empty() {
                    return Err(TaskError::invalid("Each deliver_to entry needs a chat_id."));
                }
                chats.push(json!({"channel": channel, "chat_id": chat_id.trim()}));
            }
            Ok(Value::Array(chats))
        }
        Some(Value::Array(_)) => Err(TaskError::invalid("deliver_to can list at most 10 chats.")),
        Some(_) => Err(TaskError::invalid(
            "deliver_to is \"default\", \"desktop\" or a list of {channel, chat_id}.",
        )),
    }
}

/// How a run starts: what triggered it, what it retries and continues, the notes and
/// memories it carries, and whether a person started it (Run now settles planning).
#[derive(Debug, Default)]
pub(crate) struct RunStart {
    pub trigger_event_data: Option<Value>,
    pub retry_of: Option<String>,
    pub transcript: Option<Vec<sentient_llm::Message>>,
    /// Notes a failed attempt saved, pending for this run as if it had saved them itself
    /// (they become the task's notes when it finishes well).
    pub carried_notes: Option<String>,
    pub memory_sources: Vec<Value>,
    pub by_person: bool,
}

impl TaskService {
    /// Publishes the task as it is now (`task.updated`).
    pub(crate) async fn announce_task(&self, task_id: &str) {
        match self.tasks().store().task_with_runs(task_id).await {
            Ok(task) => self.bus().publish(DomainEvent::TaskUpdated(Box::new(task))),
            Err(error) => tracing::warn!(%error, task_id, "could not read the task to announce it"),
        }
    }

    /// Reads a task, changes it and saves it, holding the service's lock, then announces it.
    /// For work that belongs to the task as it is; a person's change goes through
    /// [`TaskService::person_changes_task`], planning's outcome through `write_task_locked`.
    pub(crate) async fn change_task<T>(
        &self,
        task_id: &str,
        change: impl FnOnce(&mut TaskRecord, DateTime<Utc>) -> Result<T, TaskError>,
    ) -> Result<T, TaskError> {
        let written = {
            let _one_at_a_time = self.tasks().changes.lock().await;
            self.write_task_locked(task_id, TaskWrite::Background, change)
                .await?
        };
        let (out, _) = written.ok_or_else(|| TaskStoreError::NoTask(task_id.to_owned()))?;
        self.announce_task(task_id).await;
        Ok(out)
    }

    /// A person's change that settles what planning would produce: it ends the task's
    /// planning, if any, and moves the task's generation on, so nothing that planning does
    /// afterwards is written. Gives the new generation too.
    pub(crate) async fn person_changes_task<T>(
        &self,
        task_id: &str,
        change: impl FnOnce(&mut TaskRecord, DateTime<Utc>) -> Result<T, TaskError>,
    ) -> Result<(T, i64), TaskError> {
        let written = {
            let _one_at_a_time = self.tasks().changes.lock().await;
            self.write_task_locked(task_id, TaskWrite::Person, change)
                .await?
        };
        let written = written.ok_or_else(|| TaskStoreError::NoTask(task_id.to_owned()))?;
        self.tasks().cancel(task_id);
        self.announce_task(task_id).await;
        Ok(written)
    }

    /// The read, change and write of a task, for a caller that holds `tasks().changes`.
    /// `None` when nothing was written (see [`store::TaskStore::save_as`]).
    pub(crate) async fn write_task_locked<T>(
        &self,
        task_id: &str,
        write: TaskWrite,
        change: impl FnOnce(&mut TaskRecord, DateTime<Utc>) -> Result<T, TaskError>,
    ) -> Result<Option<(T, i64)>, TaskError> {
        let mut record = self.tasks().store().task(task_id).await?;
        let now = self.clock().now();
        let out = change(&mut record, now)?;
        record.task.updated_at = now;
        let generation = self.tasks().store().save_as(&record, write).await?;
        Ok(generation.map(|g| (out, g)))
    }

    pub async fn list_tasks(&self) -> Result<Vec<Task>, TaskError> {
        Ok(self.tasks().store().list().await?)
    }

    /// Tasks whose name, description, brief or notes match `q`, best first (`GET /api/tasks?q=`).
    pub async fn search_tasks(&self, q: &str) -> Result<Vec<Task>, TaskError> {
        let mut found = Vec::new();
        for id in self.tasks().store().search_tasks(q).await? {
            match self.tasks().store().task_with_runs(&id).await {
                Ok(task) => found.push(task),
                Err(TaskStoreError::NoTask(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(found)
    }

    pub async fn get_task(&self, task_id: &str) -> Result<Task, TaskError> {
        Ok(self.tasks().store().task_with_runs(task_id).await?)
    }

    fn check_browser_profile(&self, profile: Option<String>) -> Result<Option<String>, TaskError> {
        let Some(name) = profile.map(|p| p.trim().to_owned()) else {
            return Ok(None);
        };
        if name.is_empty() || name == "default" {
            return Ok(None);
        }
        if self.config().current().browser.profiles.contains_key(&name) {
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
        let now = self.clock().now();
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
        self.tasks()
            .store()
            .insert(&TaskRecord { task, prompt })
            .await?;
        self.announce_task(&id).await;
        self.start_planning(&id);
        self.get_task(&id).await
    }

    /// `PATCH /api/tasks/{id}`.
    pub async fn patch_task(&self, task_id: &str, patch: TaskPatch) -> Result<Task, TaskError> {
        if patch.script.is_some() {
            return Err(TaskError::invalid(NO_SCRIPT_TASKS));
        }
        if let Some(priority) = patch.priority
            && !PRIORITIES.contains(&priority)
        {
            return Err(TaskError::invalid(format!(
                "Priority is 0 (low), 1 (normal) or 2 (high), not {priority}."
            )));
        }
        let default_tz = self.user_timezone();
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
        let config = self.config().current();
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
        if settles_planning {
            self.person_changes_task(task_id, change).await?;
        } else {
            self.change_task(task_id, change).await?;
        }
        // A run that started before the person's edit or Clear can no longer write the notes.
        if person_wrote_notes {
            let forget_from = forget.then(|| self.clock().now());
            self.tasks()
                .store()
                .bump_notepad_version(task_id, forget_from)
                .await?;
        }
        self.get_task(task_id).await
    }

    /// `DELETE /api/tasks/{id}`: cancels its runs and planning, then deletes it.
    pub async fn delete_task(&self, task_id: &str) -> Result<(), TaskError> {
        let task = self.get_task(task_id).await?;
        for run in task.runs.iter().filter(|r| r.status.is_live()) {
            self.tasks().cancel(&run.run_id);
        }
        {
            let _one_at_a_time = self.tasks().changes.lock().await;
            self.tasks().store().delete(task_id).await?;
        }
        // Planning ends once the row is gone, so whatever it writes on its way out finds nothing.
        self.tasks().cancel(task_id);
        self.bus().publish(DomainEvent::TaskDeleted {
            task_id: task_id.to_owned(),
        });
        Ok(())
    }

    /// `POST /api/tasks/{id}/approve`.
    pub async fn approve_task(&self, task_id: &str) -> Result<Task, TaskError> {
        self.person_changes_task(task_id, |record, now| {
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
        self.settle_task_notifications(task_id, "approval_needed", "approved")
            .await;
        self.get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/decline`.
    pub async fn decline_task(&self, task_id: &str) -> Result<Task, TaskError> {
        self.person_changes_task(task_id, |record, _| {
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
        self.settle_task_notifications(task_id, "approval_needed", "declined")
            .await;
        self.get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/archive`.
    pub async fn archive_task(&self, task_id: &str) -> Result<Task, TaskError> {
        let task = self.get_task(task_id).await?;
        if task.runs.iter().any(|r| r.status == RunStatus::Processing) {
            return Err(TaskError::conflict(
                "This task is running; cancel its run first, then archive it.",
            ));
        }
        self.person_changes_task(task_id, |record, _| {
            record.task.status = TaskStatus::Archived;
            record.task.next_execution_at = None;
            Ok(())
        })
        .await?;
        self.get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/rerun`: a new copy of the task, planned afresh.
    pub async fn rerun_task(&self, task_id: &str) -> Result<Task, TaskError> {
        let original = self.tasks().store().task(task_id).await?;
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
        self.change_task(&copy.task_id, |record, _| {
            record.task.deliver_to = deliver_to;
            Ok(())
        })
        .await?;
        copy = self.get_task(&copy.task_id).await?;
        Ok(copy)
    }

    /// `POST /api/tasks/{id}/run-now`: starts a run at once.
    pub async fn run_task_now(&self, task_id: &str) -> Result<Task, TaskError> {
        let task = self.get_task(task_id).await?;
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
        let start = RunStart {
            by_person: true,
            ..RunStart::default()
        };
        self.start_run_from(task_id, start).await?;
        self.get_task(task_id).await
    }

    /// `POST /api/tasks/{id}/runs/{run_id}/cancel`.
    pub async fn cancel_run(&self, task_id: &str, run_id: &str) -> Result<Task, TaskError> {
        let record = self.tasks().store().run(task_id, run_id).await?;
        if !record.run.status.is_live() {
            return Err(TaskError::conflict(
                "This run has already finished, so there is nothing to cancel.",
            ));
        }
        // A working run stops at its next step and records itself; a waiting one ends here.
        if !self.tasks().cancel(run_id) {
            self.finish_run(
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
        self.get_task(task_id).await
    }

    /// Waits (at most 5 s) until a cancelled run has ended and its task has moved on, so the
    /// answer to Cancel shows both.
    async fn wait_for_run_end(&self, task_id: &str, run_id: &str) {
        // Subscribed before the first look, so an end that lands in between is not missed.
        let mut events = self.bus().subscribe();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let Ok(task) = self.get_task(task_id).await else {
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
        self.tasks().store().run(task_id, run_id).await?;
        Ok(self.tasks().store().events(run_id).await?)
    }

    /// Adds a progress line to a run and tells the windows (`task.run_progress`).
    pub(crate) async fn run_progress(
        &self,
        task_id: &str,
        run_id: &str,
        message: model::ProgressMessage,
    ) {
        let update = model::ProgressUpdate {
            timestamp: self.clock().now(),
            message,
        };
        if let Err(error) = self.tasks().store().add_event(run_id, &update).await {
            tracing::warn!(%error, run_id, "could not save a progress line");
        }
        self.bus().publish(DomainEvent::TaskRunProgress {
            task_id: task_id.to_owned(),
            run_id: run_id.to_owned(),
            update,
        });
    }

    /// Creates a run as `start` says and starts it; returns its id.
    pub(crate) async fn start_run_from(
        &self,
        task_id: &str,
        start: RunStart,
    ) -> Result<String, TaskError> {
        let now = self.clock().now();
        let plan = self.tasks().store().task(task_id).await?.task.plan;
        let mut record = RunRecord::start(
            task_id,
            plan,
            start.trigger_event_data,
            start.retry_of,
            start.transcript.unwrap_or_default(),
            now,
        );
        record.run.memory_sources = start.memory_sources;
        let run_id = record.run.run_id.clone();
        self.tasks().store().save_run(&record).await?;
        if let Some(notes) = start.carried_notes {
            self.tasks()
                .store()
                .set_pending_notepad(&run_id, Some(&notes))
                .await?;
        }
        let processing = |r: &mut TaskRecord, now| {
            r.task.status = TaskStatus::Processing;
            r.task.last_execution_at = Some(now);
            r.task.error = None;
            Ok(())
        };
        if start.by_person {
            self.person_changes_task(task_id, processing).await?;
        } else {
            self.change_task(task_id, processing).await?;
        }
        self.launch_run(task_id, &run_id, false);
        Ok(run_id)
    }

    /// Starts working on a run whose row exists, as a Stop-everything job under the engine's
    /// shutdown token (`execute_run` picks the swarm path for swarm tasks). With `announce` it
    /// first publishes the task as it is now. Every path that starts or resumes a run comes here.
    pub(crate) fn launch_run(&self, task_id: &str, run_id: &str, announce: bool) {
        let job = self
            .stop()
            .start_job_within("task run", &self.shutdown_token());
        let tracked = self.tasks().track(run_id, job.token().clone());
        let engine = self.clone();
        let (task_id, run_id) = (task_id.to_owned(), run_id.to_owned());
        tokio::spawn(async move {
            if announce {
                engine.announce_task(&task_id).await;
            }
            engine.execute_run(&task_id, &run_id, job).await;
            engine.tasks().untrack(&run_id, tracked);
        });
    }

    /// Ends a run as failed, with `error` as its last progress line.
    pub(crate) async fn end_run_failed(
        &self,
        task_id: &str,
        run_id: &str,
        error: String,
    ) -> Result<(), TaskError> {
        self.run_progress(
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
        let line = if self.stop().is_stopped() {
            "Run stopped by Stop everything."
        } else {
            "Cancelled."
        };
        self.run_progress(task_id, run_id, model::ProgressMessage::new("info", line))
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
        let now = self.clock().now();
        let summary = result.as_ref().map(|r| r.summary.clone());
        let mut record = self.tasks().store().run(task_id, run_id).await?;
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
            self.commit_notepad(task_id, run_id, record.untrusted.clone())
                .await?;
        } else {
            self.drop_pending_notepad(task_id, run_id).await?;
        }
        // The run's end and its task's new status are one write, under the same lock as
        // every other task change.
        {
            let _one_at_a_time = self.tasks().changes.lock().await;
            // The task's own time, read now: the notes committed above stamped it later than
            // the run's end, and the window keeps whichever version of a task is newest.
            let now = self.clock().now();
            self.tasks()
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
        self.announce_task(task_id).await;
        self.bus().publish(DomainEvent::TaskRunFinished {
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
            self.settle_task_notifications_with(
                task_id,
                "question",
                Some(run_id),
                serde_json::Map::from_iter([("status".to_owned(), json!("cancelled"))]),
            )
            .await;
        }
        Ok(())
    }
}

/// The next time a live task is due: a one-off task without a time runs now.
fn next_due(task: &Task, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
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
        deliver_to: json!("default"),
        original_context: json!({"source": "manual_creation"}),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliver_to_takes_the_contract_shapes_only() {
        assert_eq!(check_deliver_to(None).ok(), Some(json!("default")));
        assert_eq!(
            check_deliver_to(Some(json!([]))).ok(),
            Some(json!("desktop"))
        );
        assert_eq!(
            check_deliver_to(Some(json!([{"channel": "telegram", "chat_id": " 42 "}]))).ok(),
            Some(json!([{"channel": "telegram", "chat_id": "42"}]))
        );
        assert!(check_deliver_to(Some(json!("email"))).is_err());
        assert!(check_deliver_to(Some(json!([{"channel": "fax", "chat_id": "1"}]))).is_err());
        assert!(check_deliver_to(Some(json!([{"channel": "discord"}]))).is_err());
        let eleven: Vec<Value> = (0..11)
            .map(|i| json!({"channel": "discord", "chat_id": i.to_string()}))
            .collect();
        assert!(check_deliver_to(Some(Value::Array(eleven))).is_err());
    }

    #[test]
    fn names_come_from_the_first_words() {
        assert_eq!(
            provisional_name("Every morning send me the three top headlines about Rust please"),
            "Every morning send me the three top headlines"
        );
    }
}
