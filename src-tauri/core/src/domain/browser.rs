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
    /// A step in the page only the person can do, waiting for them (beyond the contract: the
    /// hand-off to the window or a paired phone); null when nothing waits.
    pub needs_you: Option<NeedsYou>,
}

/// A page waiting for the person: a password, a one-time code, a CAPTCHA. They do it in the
/// live view (the window or a paired phone) or in Open browser; when the page moves on, a
/// task run that paused for it carries on by itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NeedsYou {
    pub id: String,
    /// Why, in plain words: `the page asks for a one-time code`.
    pub reason: String,
    pub url: String,
    pub title: String,
    /// The task run that paused for it, if a task run asked.
    pub task_id: Option<String>,
    pub run_id: Option<String>,
    pub since: chrono::DateTime<chrono::Utc>,
}

/// A picture of the active tab after the assistant acted in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BrowserFrame {
    pub url: String,
    pub title: String,
    /// `data:image/jpeg;base64,...`, about 1024 px wide.
    pub image: String,
}
