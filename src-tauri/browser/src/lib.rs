//! The web browser the assistant uses for sites without their own app (contract section 12):
//! named profiles of an installed Edge, Chrome or Chromium driven over CDP (chromiumoxide,
//! behind the `browser` feature), page snapshots whose refs name the elements to act on, and
//! the `browser` app's tools with their safety rules. Nothing starts until the first call.
//!
//! - [`engine`]: which installed browser a profile drives.
//! - [`profiles`]: profile names, attach addresses and folders; [`profile_changes`]: adding,
//!   renaming and deleting them.
//! - [`urls`]: which addresses the browser may open.
//! - [`snapshot`]: a page as the model reads it; `collector.js` marks the elements.
//! - [`tasks`]: what the browser asks of tasks (profile renames, resuming a paused run).
//! - [`safety`]: secret fields, card numbers, CAPTCHAs, clicks that buy, send or delete.
//! - [`keys`]: key names as the model writes them.
//! - [`downloads`]: files the browser downloads, saved to Files and reported on results.
//! - [`handoff`]: a page handed to the person (a password, a code, a CAPTCHA) and back.
//! - [`service`]: the open profile, its status, opening and closing it.
//! - `session`: one open profile over CDP (with the `browser` feature).
//! - `actions`: what each tool does in the page; [`tools`]: the app and its tools.

mod actions;
pub mod downloads;
pub mod engine;
pub mod handoff;
pub mod keys;
pub mod profile_changes;
pub mod profiles;
pub mod safety;
pub mod service;
#[cfg(feature = "browser")]
mod session;
pub mod snapshot;
pub mod tasks;
pub mod tools;
pub mod urls;

pub use actions::related_paragraphs;
pub use handoff::PersonInput;
pub use profile_changes::{NewProfile, OpenRequest, ProfileChange};
pub use service::{
    BrowserFrame, BrowserParts, BrowserService, BrowserStatus, ProfileInfo, ProfileList, TabInfo,
};
pub use tasks::{BrowserTasks, NoTasks};
