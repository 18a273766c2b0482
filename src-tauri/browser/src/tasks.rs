//! What the browser asks of tasks, which live in a crate above this one: a profile's rename or
//! delete reaches the tasks that name it, and a run paused for a page step the person did
//! carries on.

use futures::future::BoxFuture;

/// What the browser asks of tasks, which live in a crate above this one.
pub trait BrowserTasks: Send + Sync {
    /// Points every task that names `old` at `new`; returns their names.
    fn rename_profile<'a>(&'a self, old: &'a str, new: &'a str) -> BoxFuture<'a, Vec<String>>;
    /// The names of the tasks that name `profile`.
    fn tasks_using<'a>(&'a self, profile: &'a str) -> BoxFuture<'a, Vec<String>>;
    /// The person did the page step a task run paused for: the run carries on. `false` when
    /// the run no longer waits.
    fn resume_run<'a>(&'a self, task_id: &'a str, run_id: &'a str) -> BoxFuture<'a, bool>;
}

/// No tasks (tests of this crate, tools without the task area).
pub struct NoTasks;

impl BrowserTasks for NoTasks {
    fn rename_profile<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, Vec<String>> {
        Box::pin(async { Vec::new() })
    }
    fn tasks_using<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Vec<String>> {
        Box::pin(async { Vec::new() })
    }
    fn resume_run<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(async { false })
    }
}
