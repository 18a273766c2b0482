//! Helpers (contract section 10, "Subagents"): the app `subagents` with `delegate_task` and
//! `delegate_tasks`. A helper runs the agent loop on one goal as `Origin::Subagent` (it can't
//! send, run code, ask or start helpers) within `subagents.*` limits, in the chat's reply or
//! beside it. [`store`] keeps one row a helper with its log; [`service`] starts, runs, lists
//! and cancels them; [`tools`] is the app.

pub mod service;
pub mod store;
pub mod tools;

pub use service::{HelperOutcome, HelperRequest, SubagentError, SubagentService};
pub use store::SubagentStore;
