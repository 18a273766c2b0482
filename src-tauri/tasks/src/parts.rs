//! [`TaskParts`]: the one handle every part of tasks holds (the planner, a run, the scheduler,
//! questions, triggers): the agent (the loop, the prompt, the tools, the clock, the settings,
//! Stop everything), the tasks' own state and store, the feed through the narrow [`Notifier`],
//! and the engine's shutdown token, with the writes every part makes (a task changed, a progress
//! line), and the sandbox through the narrow [`ScriptRunner`]. It never reaches the service, so nothing below the service can call back up into it.

use sentient_core::sync::MutexExt;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use sentient_agent::Agent;
use sentient_agent::tools::ToolRegistry;
use sentient_core::bus::{DomainEvent, EventBus};
use sentient_core::clock::SharedClock;
use sentient_core::config::ConfigService;
use sentient_core::domain::notification::{NewNotification, Notification, Notifier};
use sentient_core::domain::script::ScriptRunner;
use sentient_core::stop::StopService;
use sentient_llm::LlmService;
use tokio_util::sync::CancellationToken;

use crate::error::TaskError;
use crate::model::{self, Task};
use crate::store::{TaskRecord, TaskStore, TaskStoreError, TaskWrite};

/// The tasks service: the store, one lock that serialises changes to tasks, and the tokens of
/// running runs and plannings (Cancel, Stop everything and shutdown reach them).
#[derive(Debug)]
pub struct Tasks {
    store: TaskStore,
    /// Held for every read-change-write of a task.
    pub(crate) changes: tokio::sync::Mutex<()>,
    /// Each with the number `track` gave it, so a job that ends after its successor started
    /// does not untrack the successor.
    running: Mutex<HashMap<String, (u64, CancellationToken)>>,
    next_job: std::sync::atomic::AtomicU64,
    /// Runs started with Run now, watched where they were started. Kept in memory: a run
    /// resumed after a restart has no one watching, so it tells the feed as usual.
    in_place: Mutex<HashSet<String>>,
}

impl Tasks {
    pub fn new(store: sentient_core::store::Store) -> Self {
        Self {
            store: TaskStore::new(store),
            changes: tokio::sync::Mutex::new(()),
            running: Mutex::new(HashMap::new()),
            next_job: std::sync::atomic::AtomicU64::new(0),
            in_place: Mutex::new(HashSet::new()),
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

    /// A fresh number for a job's key (a script check's).
    pub(crate) fn next_number(&self) -> u64 {
        self.next_job
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether any job whose key starts with `prefix` is running here.
    pub(crate) fn is_running_under(&self, prefix: &str) -> bool {
        self.running().keys().any(|k| k.starts_with(prefix))
    }

    /// Cancels every job whose key starts with `prefix`.
    pub(crate) fn cancel_under(&self, prefix: &str) {
        for (key, (_, token)) in self.running().iter() {
            if key.starts_with(prefix) {
                token.cancel();
            }
        }
    }

    /// Whether a run (or a task's planning) is running in this process.
    pub fn is_running(&self, key: &str) -> bool {
        self.running().contains_key(key)
    }

    /// Marks a run a person started with Run now.
    pub(crate) fn watch_in_place(&self, run_id: &str) {
        self.in_place.lock_unpoisoned().insert(run_id.to_owned());
    }

    /// Whether `run_id` was started with Run now; forgets it (asked once, when it ends).
    pub(crate) fn take_in_place(&self, run_id: &str) -> bool {
        self.in_place.lock_unpoisoned().remove(run_id)
    }

    /// Cancels a tracked run or planning; `false` when it is not running here.
    pub(crate) fn cancel(&self, key: &str) -> bool {
        self.running()
            .get(key)
            .map(|(_, token)| token.cancel())
            .is_some()
    }
}

struct PartsInner {
    agent: Agent,
    tasks: Tasks,
    notifier: Arc<dyn Notifier>,
    scripts: Arc<dyn ScriptRunner>,
    shutdown: CancellationToken,
}

/// What every part of tasks works with; cheap to clone (every clone is the same).
#[derive(Clone)]
pub struct TaskParts {
    inner: Arc<PartsInner>,
}

impl std::fmt::Debug for TaskParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskParts").finish_non_exhaustive()
    }
}

impl TaskParts {
    pub(crate) fn new(
        agent: Agent,
        notifier: Arc<dyn Notifier>,
        scripts: Arc<dyn ScriptRunner>,
        shutdown: CancellationToken,
    ) -> Self {
        let tasks = Tasks::new(agent.store().clone());
        Self {
            inner: Arc::new(PartsInner {
                agent,
                tasks,
                notifier,
                scripts,
                shutdown,
            }),
        }
    }

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

    pub async fn get_task(&self, task_id: &str) -> Result<Task, TaskError> {
        Ok(self.tasks().store().task_with_runs(task_id).await?)
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

    /// The agent runs go through.
    pub fn agent(&self) -> &Agent {
        &self.inner.agent
    }

    /// The tasks' own state: the store, the change lock, the running runs.
    pub fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// The task store.
    pub fn store(&self) -> &TaskStore {
        self.inner.tasks.store()
    }

    pub fn bus(&self) -> &EventBus {
        self.inner.agent.bus()
    }

    pub fn clock(&self) -> &SharedClock {
        self.inner.agent.clock()
    }

    pub fn config(&self) -> &ConfigService {
        self.inner.agent.config()
    }

    pub fn stop(&self) -> &StopService {
        self.inner.agent.stop()
    }

    pub fn llm(&self) -> &LlmService {
        self.inner.agent.llm()
    }

    pub fn tools(&self) -> &ToolRegistry {
        self.inner.agent.tools()
    }

    /// Fires when the engine begins shutting down; the scheduler and trigger loops end on it.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.inner.shutdown.clone()
    }

    /// The user's time zone by IANA name (the agent's reading of the setting).
    pub fn user_timezone(&self) -> String {
        self.inner.agent.user_timezone()
    }

    /// Puts a notification in the feed.
    pub async fn notify(&self, new: NewNotification) -> Result<Notification, TaskError> {
        Ok(self.inner.notifier.notify(new).await?)
    }

    /// The sandbox, for script jobs' checks and compile checks.
    pub(crate) fn scripts(&self) -> &dyn ScriptRunner {
        self.inner.scripts.as_ref()
    }

    /// The feed, for settling a task's notifications once the person answered them.
    pub(crate) fn notifier(&self) -> &dyn Notifier {
        self.inner.notifier.as_ref()
    }
}
