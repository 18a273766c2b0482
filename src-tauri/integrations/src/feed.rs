//! What a change feed is (contract section 16), as a leaf the apps and the feed runner
//! ([`crate::feeds`]) both import: the [`Feed`] trait Gmail, Calendar and email (IMAP)
//! implement, what one sync found, and how a wait for the next change ended.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::IntegrationError;

/// What one sync found.
#[derive(Debug, Default)]
pub struct SyncOutcome {
    pub items: Vec<Value>,
    pub cursor: Value,
    pub rebaselined: bool,
    pub note: Option<String>,
}

/// How a wait in IDLE ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleWait {
    /// The server reported a change.
    Changed,
    /// The time ran out or the feed was cancelled.
    Waited,
    /// The server has no IDLE, or it could not be set up.
    Unavailable,
}

/// One app's change feed.
#[async_trait]
pub trait Feed: Send + Sync {
    /// The source it publishes as (`gmail`, `gcalendar`, `email_imap`).
    fn source(&self) -> &'static str;
    /// The name `GET /api/integrations/feeds` shows.
    fn display_name(&self) -> &'static str;
    /// How it learns of changes (`gmail_history`, `calendar_sync_token`, `imap_idle`).
    fn kind(&self) -> &'static str;
    /// One sync from `cursor` (none the first time): the new items and the next cursor.
    async fn sync(&self, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError>;
    /// Waits until the source says something changed, `wait` passes or `cancel` fires. A feed
    /// the server can't wake answers [`IdleWait::Unavailable`] at once, and the runner waits
    /// on the engine's clock.
    async fn wait_for_change(&self, wait: Duration, cancel: &CancellationToken) -> IdleWait {
        let _ = (wait, cancel);
        IdleWait::Unavailable
    }
}
