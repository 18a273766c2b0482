//! The HTTP routes, one file per area. Each handler only translates: body in, one service
//! call, answer out.

pub mod browser;
pub mod chat;
pub mod checkup;
pub mod config;
pub mod core;
pub mod files;
pub mod hooks;
pub mod integrations;
pub mod memory;
pub mod models;
pub mod nodes;
pub mod notifications;
pub mod openapi;
pub mod presets;
pub mod rules;
pub mod sandbox;
pub mod secrets;
pub mod sessions;
pub mod stop;
pub mod subagents;
pub mod terminal;
pub mod tools;

use utoipa_axum::router::OpenApiRouter;

use crate::Services;

/// Routes anyone on this computer may call.
pub fn open() -> OpenApiRouter<Services> {
    core::open().merge(hooks::open()).merge(nodes::open())
}

/// Routes behind the token.
pub fn protected() -> OpenApiRouter<Services> {
    core::protected()
        .merge(config::routes())
        .merge(stop::routes())
        .merge(secrets::routes())
        .merge(models::routes())
        .merge(presets::routes())
        .merge(checkup::routes())
        .merge(sessions::routes())
        .merge(files::routes())
        .merge(chat::routes())
        .merge(tools::routes())
        .merge(rules::routes())
        .merge(notifications::routes())
        .merge(hooks::routes())
        .merge(nodes::routes())
        .merge(memory::routes())
        .merge(integrations::routes())
        .merge(sandbox::routes())
        .merge(terminal::routes())
        .merge(subagents::routes())
        .merge(browser::routes())
}
