//! Typed commands the window calls: a few lines each, each one engine service call. They take
//! the same request types and return the same response and error types as the HTTP routes.

pub mod browser;
pub mod chat;
pub mod config;
pub mod core;
pub mod devices;
pub mod files;
pub mod hooks;
pub mod integrations;
pub mod memory;
pub mod models;
pub mod notifications;
pub mod rules;
pub mod sandbox;
pub mod sessions;
pub mod stop;
pub mod subagents;
pub mod tasks;
pub mod terminal;
