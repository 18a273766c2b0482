//! The agent: the one loop every surface shares ([`run_loop`]), what a model's tool calls may do
//! ([`approvals`]), the tools and their registry ([`tools`]), and chats on top of the loop:
//! turns, steering and queued messages ([`chat`]), Regenerate and answer versions
//! ([`chat_answers`]), rules from chat ([`chat_rules`]), transcripts
//! ([`sessions`]), the system prompt ([`prompt`]) and long-chat summaries ([`compression`]);
//! tool calls made by scripts go through the same decision ([`script_calls`]).
//!
//! [`Agent`] is the service ([`service`]): it holds exactly the handles the loop and chats need,
//! and nothing here knows the engine, tasks or any door. This file is only the crate's face, so
//! the files that add to `Agent` import it without any file circle.

pub mod approvals;
pub mod chat;
pub mod chat_answers;
pub mod chat_events;
pub mod chat_memory;
pub mod chat_rules;
pub mod chat_state;
pub mod compression;
pub mod prompt;
pub mod run_loop;
pub mod run_types;
pub mod script_calls;
pub mod service;
pub mod sessions;
pub mod tools;

pub use service::{Agent, AgentParts};
