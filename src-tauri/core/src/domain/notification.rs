//! Notifications in the feed (contract section 1, "Notifications"): the object windows list, and
//! what a service hands to the feed to add one.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One entry in the notifications feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Notification {
    pub id: String,
    /// info, task, approval, proactive, skill, error or brief.
    pub kind: String,
    pub title: String,
    /// Markdown.
    pub message: String,
    #[schema(value_type = Object)]
    #[specta(type = std::collections::BTreeMap<String, String>)]
    pub payload: serde_json::Map<String, serde_json::Value>,
    pub task_id: Option<String>,
    pub read: bool,
    pub created_at: DateTime<Utc>,
}

/// What a service hands to [`Notifier::notify`]; the feed adds the id, `read` and the time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewNotification {
    pub kind: String,
    pub title: String,
    pub message: String,
    pub payload: Map<String, Value>,
    pub task_id: Option<String>,
}

/// `GET /api/notifications`: newest first, and how many are unread in the whole feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NotificationList {
    pub notifications: Vec<Notification>,
    pub unread: u32,
}

/// The feed could not save a notification; the cause is for the log.
#[derive(Debug, thiserror::Error)]
#[error("the notification could not be saved: {0}")]
pub struct NotifyError(pub String);

impl From<NotifyError> for crate::error::ApiError {
    fn from(error: NotifyError) -> Self {
        crate::error::ApiError::internal(&error)
    }
}

/// What services ask of the notifications feed; the engine's feed implements it, so a service
/// can tell the person something without knowing the feed's store or its routes.
#[async_trait::async_trait]
pub trait Notifier: Send + Sync {
    /// Saves a notification and publishes `notification.new`.
    async fn notify(&self, new: NewNotification) -> Result<Notification, NotifyError>;

    /// Merges `changes` into every notification of `task_id` whose `payload.event` is `event`
    /// (and whose `payload.run_id` is `run_id`, when given) that has no `payload.status` yet,
    /// marks them read and publishes `notification.updated` for each. Returns the changed ones;
    /// a failure is logged and changes nothing.
    async fn settle_task(
        &self,
        task_id: &str,
        event: &str,
        run_id: Option<&str>,
        changes: Map<String, Value>,
    ) -> Vec<Notification>;

    /// `task_id` was deleted: every notification about it gains `payload.task_deleted = true`
    /// and is marked read (nothing it offers can work now), with `notification.updated` for
    /// each. Returns the changed ones; a failure is logged and changes nothing.
    async fn task_deleted(&self, task_id: &str) -> Vec<Notification>;
}
