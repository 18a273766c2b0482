//! The engine end-to-end tests: real engines over real HTTP and WebSocket on loopback, one module
//! per area, linked into one test binary (the engine is linked once, not once per area).

mod agent_loop;
mod builtins;
mod chat;
mod chat_rules;
mod checkup;
mod config;
mod devices;
mod email_imap;
mod files;
mod gateway;
mod google;
mod hardening;
mod hooks;
mod integrations;
mod layers;
mod lifecycle;
mod live;
mod mcp_sign_in;
mod memory;
mod memory_import;
mod memory_learning;
mod memory_tools;
mod models;
mod notifications;
mod presets;
mod secrets;
mod sessions;
mod stop;
mod task_memory;
mod task_questions;
mod task_scheduler;
mod task_swarm;
mod task_triggers;
mod tasks;
mod tools;
