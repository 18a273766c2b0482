//! The agent: the one loop every surface shares ([`run_loop`]), what a model's tool calls may do
//! ([`approvals`]), and chats on top of it: turns, steering and queued messages ([`chat`]),
//! transcripts ([`sessions`]), the system prompt ([`prompt`]) and long-chat summaries
//! ([`compression`]).

pub mod approvals;
pub mod chat;
pub mod chat_rules;
pub mod compression;
pub mod prompt;
pub mod run_loop;
pub mod sessions;
