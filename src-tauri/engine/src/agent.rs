//! The agent: how Sentient decides what a model's tool calls may do. For now this holds the
//! approvals decision ([`approvals`]); the loop that uses it lives elsewhere until it moves here.

pub mod approvals;
pub mod chat;
pub mod prompt;
pub mod run_loop;
pub mod sessions;
