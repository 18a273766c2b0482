//! [`TaskService`]: what the doors and the other areas call on tasks (the life cycle in
//! `lifecycle.rs`, the queries, the tools' [`TaskHandle`], starting the scheduler and the
//! triggers). The work itself is done by the parts, each holding only [`TaskParts`]: the
//! `Planner`, the `Executor` and the [`TaskRun`] it carries, `RunEnds`, `Questions` and
//! `Answers`, the `Scheduler` and `Triggers`.
//!
//! [`TaskRun`]: crate::executor::TaskRun

use sentient_core::domain::script::ScriptRunner;
use std::sync::{Arc, Weak};

use chrono::{DateTime, Utc};
use sentient_agent::Agent;
use sentient_core::domain::notification::{Notification, Notifier};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::answers::Answers;
use crate::error::TaskError;
use crate::model::{RunStatus, Task};
use crate::parts::{TaskParts, Tasks};
use crate::run_end::RunEnds;
use crate::scheduler::{Scheduler, SchedulerState};
use crate::store::TaskStore;
use crate::triggers::Triggers;

struct Inner {
    parts: TaskParts,
    /// What the scheduler remembers between ticks.
    scheduler: Arc<SchedulerState>,
}

/// The tasks service; cheap to clone (every clone is the same service).
#[derive(Clone)]
pub struct TaskService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for TaskService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskService").finish_non_exhaustive()
    }
}

/// A handle the task tools keep: it does not keep the service alive, so the registry (which
/// the service's agent owns) and the service do not hold each other for ever.
#[derive(Clone)]
pub struct TaskHandle(Weak<Inner>);

impl TaskHandle {
    /// The service, while the engine that made it is running.
    pub fn get(&self) -> Option<TaskService> {
        self.0.upgrade().map(|inner| TaskService { inner })
    }
}

impl TaskService {
    /// The service on its parts, with nothing registered yet (see `TaskService::new`).
    pub(crate) fn assemble(
        agent: Agent,
        notifier: Arc<dyn Notifier>,
        scripts: Arc<dyn ScriptRunner>,
        shutdown: CancellationToken,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                parts: TaskParts::new(agent, notifier, scripts, shutdown),
                scheduler: Arc::new(SchedulerState::default()),
            }),
        }
    }

    /// A handle for tools and other long-lived holders.
    pub fn handle(&self) -> TaskHandle {
        TaskHandle(Arc::downgrade(&self.inner))
    }

    /// What the parts of tasks share.
    pub(crate) fn parts(&self) -> &TaskParts {
        &self.inner.parts
    }

    /// The tasks' own state: the store, the change lock, the running runs and plannings.
    pub fn tasks(&self) -> &Tasks {
        self.inner.parts.tasks()
    }

    /// The task store.
    pub fn store(&self) -> &TaskStore {
        self.inner.parts.store()
    }

    fn scheduler(&self) -> Scheduler {
        Scheduler::new(&self.inner.parts, &self.inner.scheduler)
    }

    pub async fn get_task(&self, task_id: &str) -> Result<Task, TaskError> {
        self.parts().get_task(task_id).await
    }

    /// Starts the scheduler until shutdown, after dealing with runs a restart interrupted. Reads
    /// what was left unfinished before it returns, so call it before the gateway serves.
    pub async fn start_scheduler(&self) {
        self.scheduler().start_scheduler().await;
    }

    /// One scheduler tick at `now`: the ids of the tasks it started.
    pub async fn scheduler_tick(&self, now: DateTime<Utc>) -> Result<Vec<String>, TaskError> {
        self.scheduler().scheduler_tick(now).await
    }

    /// Starts listening for `source.items` until shutdown.
    pub fn start_triggers(&self) {
        Triggers::new(self.parts()).start_triggers();
    }

    /// Starts the triggered tasks `items` of `source`/`event` are for: the ids of the runs.
    pub async fn fire_triggers(
        &self,
        source: &str,
        event: &str,
        items: &[Value],
    ) -> Result<Vec<String>, TaskError> {
        Triggers::new(self.parts())
            .fire_triggers(source, event, items)
            .await
    }

    /// `POST /api/tasks/{id}/runs/{run_id}/answer`.
    pub async fn answer_run(
        &self,
        task_id: &str,
        run_id: &str,
        answer: &str,
    ) -> Result<Task, TaskError> {
        Answers::new(self.parts())
            .answer_run(task_id, run_id, answer)
            .await
    }

    /// `POST /api/tasks/{id}/runs/{run_id}/retry`.
    pub async fn retry_run(&self, task_id: &str, run_id: &str) -> Result<Task, TaskError> {
        Answers::new(self.parts()).retry_run(task_id, run_id).await
    }

    /// The notification a run's end sends (see [`RunEnds::notify_run_finished`]).
    pub async fn notify_run_finished(
        &self,
        task_id: &str,
        run_id: &str,
        status: RunStatus,
        summary: Option<&str>,
        error: Option<&str>,
    ) -> Option<Notification> {
        RunEnds::new(self.parts())
            .notify_run_finished(task_id, run_id, status, summary, error)
            .await
    }

    /// Settles the task's `event` notifications with `payload.status = status`.
    pub async fn settle_task_notifications(
        &self,
        task_id: &str,
        event: &str,
        status: &str,
    ) -> Vec<Notification> {
        self.parts()
            .settle_task_notifications(task_id, event, status)
            .await
    }

    /// Where a task's notifications go besides the app.
    pub async fn delivery_for(&self, task_id: &str) -> crate::model::DeliverTo {
        self.parts().delivery_for(task_id).await
    }
}
