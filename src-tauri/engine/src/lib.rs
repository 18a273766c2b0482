//! Sentient's engine: everything that is not the window. [`Engine`] is the composition root:
//! it starts the services (`sentient-services`: the home folder, settings, database, bus, every
//! service and the gateway) and plugs tasks into them. Tasks is plugged in from here rather than
//! built inside the services so the services never compile against it: a change to tasks
//! rebuilds only tasks and this small crate. There are no globals, so tests run several engines
//! side by side.

pub mod task_routes;

use std::sync::Arc;

use sentient_tasks::TaskService;

// Everything below, under the names the doors, the shell and the tests use.
pub use sentient_services::*;
pub use sentient_tasks as tasks;

/// A running engine: the services with tasks plugged in. Cheap to clone (every clone is the same
/// engine); the services' accessors are reached through it (`engine.services().store()`, `engine.services().bus()`, ...).
#[derive(Clone)]
pub struct Engine {
    services: Services,
    tasks: TaskService,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Engine").field(&self.services).finish()
    }
}

impl Engine {
    /// Opens everything and starts the gateway; returns once its socket listens.
    pub async fn start(options: EngineOptions) -> Result<Self, StartError> {
        let (services, tasks) = Services::start(options, plug_tasks).await?;
        Ok(Self { services, tasks })
    }

    /// Everything but tasks: the settings, the store, the bus, every other area and the gateway.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// Tasks and their runs.
    pub fn tasks(&self) -> &TaskService {
        &self.tasks
    }
}

/// Builds the task service from the parts the services hand over, with what the services need
/// from it: its routes, what the apps ask of it, and its schedules and triggers to start.
fn plug_tasks(parts: AreaParts) -> (TaskService, PluggedArea) {
    let tools = parts.agent.tools().clone();
    let tasks = TaskService::new(
        parts.agent,
        Arc::new(parts.notifications),
        parts.scripts,
        parts.shutdown,
    );
    let starting = tasks.clone();
    let area = PluggedArea {
        routes: {
            let tasks = tasks.clone();
            Arc::new(move || task_routes::routes().with_state(tasks.clone()))
        },
        dependent_tasks: Arc::new(AppTasks {
            tasks: tasks.clone(),
            tools,
        }),
        browser_tasks: Arc::new(TasksForBrowser(tasks.clone())),
        start: Box::pin(async move {
            starting.start_scheduler().await;
            starting.start_triggers();
        }),
    };
    (tasks, area)
}

/// What the apps ask of tasks: turning off the ones that use a disconnected app.
struct AppTasks {
    tasks: TaskService,
    tools: tools::ToolRegistry,
}

impl integrations::DependentTasks for AppTasks {
    fn disable_tasks_using<'a>(
        &'a self,
        app: &'a str,
    ) -> futures::future::BoxFuture<'a, Vec<String>> {
        Box::pin(async move {
            let name = integrations::catalog::entry(app)
                .map_or_else(|| app.to_owned(), |e| e.display_name.to_owned());
            let tools = self.tools.clone();
            self.tasks
                .disable_tasks_using(app, &name, move |tool| tools.plugin_of(tool))
                .await
        })
    }
}

/// What browser profiles ask of tasks: following a renamed profile, naming the ones that use one.
struct TasksForBrowser(TaskService);

impl browser::BrowserTasks for TasksForBrowser {
    fn rename_profile<'a>(
        &'a self,
        old: &'a str,
        new: &'a str,
    ) -> futures::future::BoxFuture<'a, Vec<String>> {
        Box::pin(async move {
            let mut moved = Vec::new();
            for task in self.tasks_naming(old).await {
                let patch = sentient_tasks::TaskPatch {
                    browser_profile: Some(Some(new.to_owned())),
                    ..Default::default()
                };
                match self.0.patch_task(&task.task_id, patch).await {
                    Ok(_) => moved.push(task.name),
                    Err(error) => {
                        tracing::warn!(%error, task = %task.task_id, "a task could not follow its renamed browser profile");
                    }
                }
            }
            moved
        })
    }

    fn tasks_using<'a>(&'a self, profile: &'a str) -> futures::future::BoxFuture<'a, Vec<String>> {
        Box::pin(async move {
            self.tasks_naming(profile)
                .await
                .into_iter()
                .map(|t| t.name)
                .collect()
        })
    }

    /// Answers the run's stuck question for the person, who did the page step themselves;
    /// only a run paused as stuck (never one waiting on a question of its own).
    fn resume_run<'a>(
        &'a self,
        task_id: &'a str,
        run_id: &'a str,
    ) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(async move {
            let Ok(task) = self.0.get_task(task_id).await else {
                return false;
            };
            let stuck = task.runs.iter().any(|r| {
                r.run_id == run_id
                    && r.pending_question
                        .as_ref()
                        .is_some_and(|q| q.kind == "stuck")
            });
            stuck
                && self
                    .0
                    .answer_run(task_id, run_id, PERSON_DID_THE_PAGE_STEP)
                    .await
                    .is_ok()
        })
    }
}

/// The note a run gets when the person did the page step it paused for.
const PERSON_DID_THE_PAGE_STEP: &str =
    "I did that step in the browser myself. Carry on from the page as it is now.";

impl TasksForBrowser {
    async fn tasks_naming(&self, profile: &str) -> Vec<sentient_core::domain::task::Task> {
        self.0
            .list_tasks()
            .await
            .unwrap_or_default()
            .into_iter()
            .filter(|t| t.browser_profile.as_deref() == Some(profile))
            .collect()
    }
}
