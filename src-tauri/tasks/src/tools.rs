//! The task apps, registered by [`crate::TaskService::new`]: `tasks` (chat tools that make and
//! change tasks), and a run's own memory: notes between runs, the brief and conversation search.
//! Each tool keeps a [`TaskHandle`] to the service it works on.

pub mod task_memory;
pub mod tasks;

use sentient_agent::tools::Plugin;

use crate::TaskHandle;

/// Every task app, in the order `GET /api/tools` lists them.
pub fn plugins(handle: &TaskHandle) -> Vec<Plugin> {
    vec![
        tasks::plugin(handle.clone()),
        task_memory::notepad_plugin(handle),
        task_memory::brief_plugin(handle),
        task_memory::conversation_plugin(handle),
    ]
}
