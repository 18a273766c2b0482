//! Typed commands the window calls: a few lines each, each one engine service call. They take
//! the same request types and return the same response and error types as the HTTP routes.

pub mod config;
pub mod core;
pub mod models;
pub mod stop;
