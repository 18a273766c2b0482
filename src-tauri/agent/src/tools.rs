//! The agent's tools: what a tool is ([`Tool`], [`ToolDef`], [`Risk`]), what a call gets
//! ([`ToolCtx`]) and gives back ([`ToolOutput`], [`ToolError`]) and the apps they belong to
//! ([`Plugin`]), all in [`tool`]; the [`ToolRegistry`] that offers them to the model, lists them
//! for `GET /api/tools` and runs calls; and the built-in apps: `time`, `files`, `web` and
//! `ask_user`. This file is only the face, so the built-ins import [`tool`] and never this file.

pub mod files;
pub mod registry;
pub mod task_questions;
pub mod time;
pub mod tool;
pub mod web;

pub use registry::{PluginInfo, RegistryError, ToolRegistry, ToolResult};
pub use tool::*;

/// The agent's own apps, registered by [`crate::Agent::new`]: time, files, web and `ask_user`.
pub fn plain_plugins() -> Vec<Plugin> {
    vec![
        time::plugin(),
        files::plugin(),
        web::plugin(),
        task_questions::plugin(),
    ]
}
