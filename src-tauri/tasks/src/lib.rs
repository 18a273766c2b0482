//! Tasks: work a person asks for once, now, on a schedule or when something happens (contract
//! section 4). [`TaskService`] is what the doors and other areas call (`service.rs`, the life
//! cycle in `lifecycle.rs`); the parts do the work, each holding one [`parts::TaskParts`]:
//! `planner` turns a prompt into a name, schedule and plan; `executor` carries a run through the
//! one agent loop (`fixed_run` and `swarm` for one-call and swarm tasks) and `run_end` ends it;
//! `questions` asks the person and `answers` carries on; `scheduler` and `triggers` start runs
//! that are due, and `script_jobs` runs the watch checks that need no model. The store keeps tasks and runs.

pub mod answers;
pub mod brief;
pub mod continuity;
pub mod error;
pub mod executor;
pub mod fixed_call;
pub mod fixed_run;
pub mod lifecycle;
pub mod limits;
pub mod notify;
pub mod parts;
pub mod planner;
pub mod questions;
pub mod recall;
pub mod requests;
pub mod run_end;
pub mod run_scope;
pub mod run_text;
pub mod schedule;
pub mod schedule_words;
pub mod scheduler;
pub mod script_jobs;
pub mod service;
pub mod store;
pub mod swarm;
pub mod task_row;
pub mod tools;
pub mod triggers;

pub use error::TaskError;
pub use parts::Tasks;
pub use requests::{
    NewTask, PRIORITIES, ScheduleInput, ScriptChange, ScriptTestRequest, TaskPatch,
    check_deliver_to,
};
/// The Task and Run objects, which sit with the other domain types at the bottom.
pub use sentient_core::domain::task as model;
pub use service::{TaskHandle, TaskService};
