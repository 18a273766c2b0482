//! Sentient's apps (contract section 5): the catalog, where each connection stands, Read only,
//! privacy filters, code masking, MCP servers, email over IMAP, GitHub, and what new items
//! from them publish on `source.items` (section 16).
//!
//! - [`catalog`]: the apps Sentient knows and how each is set up.
//! - [`IntegrationService`] ([`service`]): connect, disconnect, test, access and filters, and
//!   the Integration objects the routes answer with.
//! - [`ctx::AppCtx`]: the narrow handle each app, built-in and feed holds (store, keychain,
//!   endpoints, states and privacy filters, an HTTP client), never the whole service.
//! - [`mcp`]: outside tool servers, each app `mcp_<server>` in the tool registry.
//! - [`email_imap`], [`github`], [`gmail`], [`gcalendar`], [`builtins`]: the apps themselves.
//! - [`feed`]: what a change feed is; [`feeds`] runs them; [`emit`] is the one door to
//!   `source.items` (seen record, privacy filters, code masking, Stop everything).

pub mod builtins;
pub mod catalog;
pub mod ctx;
#[cfg(feature = "email")]
pub mod email_imap;
pub mod emit;
pub mod endpoints;
pub mod error;
pub mod feed;
pub mod feeds;
#[cfg(feature = "google")]
pub mod gcalendar;
#[cfg(feature = "github")]
pub mod github;
#[cfg(feature = "google")]
pub mod gmail;
#[cfg(feature = "google")]
pub mod google;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(any(feature = "google", feature = "mcp"))]
pub mod oauth;
pub mod privacy;
pub mod redact;
pub mod service;
mod state;
pub mod threads;
pub mod wire;

pub use ctx::{AppCtx, parse_access};
pub use endpoints::Endpoints;
pub use error::IntegrationError;
pub use privacy::FilterLists;
pub use sentient_core::domain::integration::Integration as IntegrationInfo;
pub use service::{DependentTasks, HookTriggers, IntegrationParts, IntegrationService};
pub use wire::{
    AccessRequest, ConnectAnswer, ConnectRequest, IntegrationTest, MailServers, not_available,
};
