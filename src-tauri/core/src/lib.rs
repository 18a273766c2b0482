//! Sentient's bottom layer: what every service stands on. The domain types that cross services
//! and doors, the event bus, the clock, the error shape, the home folder, the store, the
//! settings, Stop everything and the secrets. Nothing here knows a service above it.

/// The JSON body extractors every HTTP route uses (the `http` feature).
#[cfg(feature = "http")]
pub mod body;
pub mod bus;
pub mod clock;
pub mod config;
pub mod domain;
pub mod error;
pub mod files;
pub mod home;
pub mod logging;
pub mod programs;
pub mod secret_file;
pub mod secrets;
pub mod seen;
pub mod stop;
pub mod store;
pub mod sync;

use serde::{Deserialize, Serialize};

/// The engine's version, shown in health, hello and bootstrap.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The contract's plain `{ok: true}` answer, shared by every route that has nothing else to say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct OkReply {
    pub ok: bool,
}

impl OkReply {
    pub const fn yes() -> Self {
        Self { ok: true }
    }
}
