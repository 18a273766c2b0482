//! What the browser shows the window and the live channel (contract section 12): its status
//! (`GET /api/browser/status`, `browser.updated`) and a picture of the page (`browser.frame`).

use serde::{Deserialize, Serialize};

/// One tab as the status and `browser_tabs` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TabInfo {
    pub index: usize,
    pub url: String,
    pub title: String,
    pub active: bool,
}

/// The browser's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BrowserStatus {
    /// The assistant can use a browser now (on in Settings, and one installed or attachable).
    pub available: bool,
    pub running: bool,
    /// `msedge`, `chrome` or `chromium`; null while attached or when none is installed.
    pub engine: Option<String>,
    pub headless: bool,
    pub tabs: Vec<TabInfo>,
    /// Why the browser can't be used, in plain words.
    pub error: Option<String>,
    /// The open profile; `default` while closed.
    pub profile: String,
    pub attached: bool,
}

/// A picture of the active tab after the assistant acted in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BrowserFrame {
    pub url: String,
    pub title: String,
    /// `data:image/jpeg;base64,...`, about 1024 px wide.
    pub image: String,
}
