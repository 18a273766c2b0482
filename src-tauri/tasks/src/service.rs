//! [`TaskService`]: the tasks area as one service. It holds the agent (for the loop, the prompt
//! and the tools), the tasks' own state and store, the notifications feed through the narrow
//! [`Notifier`], and the engine's shutdown token; every task method is written on it, in the
//! file of the step it belongs to (planning in `planner.rs`, runs in `executor.rs`, ...).

use std::sync::{Arc, Weak};

use crate::TaskError;
use sentient_agent::Agent;
use sentient_agent::tools::ToolRegistry;
use sentient_core::bus::EventBus;
use sentient_core::clock::SharedClock;
use sentient_core::config::ConfigService;
use sentient_core::domain::notification::{NewNotification, Notification, Notifier};
use sentient_core::stop::StopService;
use sentient_llm::LlmService;
use tokio_util::sync::CancellationToken;

use crate::Tasks;

struct Inner {
    agent: Agent,
    tasks: Tasks,
    notifier: Arc<dyn Notifier>,
    shutdown: CancellationToken,
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
    /// The service, with the task apps (tasks, notes between runs, the brief, conversation
    /// search) registered on the agent's registry.
    pub fn new(agent: Agent, notifier: Arc<dyn Notifier>, shutdown: CancellationToken) -> Self {
        let tasks = Tasks::new(agent.store().clone());
        let service = Self {
            inner: Arc::new(Inner {
                agent,
                tasks,
                notifier,
                shutdown,
            }),
        };
        for plugin in crate::tools::plugins(&service.handle()) {
            if let Err(error) = service.tools().register(plugin) {
                tracing::error!(%error, "a task app could not be registered");
            }
        }
        service
    }

    /// A handle for tools and other long-lived holders.
    pub fn handle(&self) -> TaskHandle {
        TaskHandle(Arc::downgrade(&self.inner))
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
    pub fn store(&self) -> &crate::store::TaskStore {
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
    /// The feed, for settling a task's notifications once the person answered them.
    pub(crate) fn notifier(&self) -> &dyn Notifier {
        self.inner.notifier.as_ref()
    }
}
