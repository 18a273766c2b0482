//! The notifications feed (contract section 6): the `Notifications` store (migration
//! `0007_notifications.sql`) and the [`NotificationService`] behind `/api/notifications`, which
//! other areas reach through the [`Notifier`] trait. Every change is published on the bus
//! (`notification.new`, `.updated`, `.read`, `.deleted`), so windows, sockets and the desktop's
//! native pop-up follow it. What tasks send lives with tasks (`sentient_tasks::notify`).

use chrono::{DateTime, SubsecRound, Utc};
use serde_json::{Map, Value};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::bus::{DomainEvent, EventBus};
use crate::clock::SharedClock;
use crate::error::ApiError;
use crate::store::{Store, StoreError};
pub use sentient_core::domain::notification::{
    NewNotification, Notification, NotificationList, Notifier, NotifyError,
};

/// How many notifications one listing returns unless asked otherwise, and at most.
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 500;

#[derive(Debug, thiserror::Error)]
pub enum NotificationError {
    #[error("There is no notification with the id {0}.")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for NotificationError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Sql(e))
    }
}

impl From<NotificationError> for ApiError {
    fn from(err: NotificationError) -> Self {
        match err {
            NotificationError::NotFound(_) => ApiError::not_found(err.to_string()),
            NotificationError::Store(e) => ApiError::internal(&e),
        }
    }
}

/// The listing's size: the default when not given, otherwise between 1 and [`MAX_LIMIT`].
pub fn clamp_limit(limit: Option<u32>) -> u32 {
    limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT)
}

/// A shallow merge: each key of `changes` replaces the payload's (a `null` is kept as a value,
/// because the contract's payloads use `null` as one, e.g. a suggestion's `task_id`).
pub fn merge_payload(payload: &mut Map<String, Value>, changes: &Map<String, Value>) {
    for (key, value) in changes {
        payload.insert(key.clone(), value.clone());
    }
}

use sentient_core::store::change_one;
use sentient_core::store::stamp;

fn from_row(row: &SqliteRow) -> Notification {
    let payload: String = row.get("payload");
    let created: String = row.get("created_at");
    Notification {
        id: row.get("id"),
        kind: row.get("kind"),
        title: row.get("title"),
        message: row.get("message"),
        payload: serde_json::from_str(&payload).unwrap_or_default(),
        task_id: row.get("task_id"),
        read: row.get::<i64, _>("read") != 0,
        created_at: DateTime::parse_from_rfc3339(&created)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default(),
    }
}

/// The columns every read selects, as a literal so queries stay static strings.
macro_rules! select {
    ($rest:literal) => {
        concat!(
            "SELECT id, kind, title, message, payload, task_id, read, created_at FROM notifications ",
            $rest
        )
    };
}

/// The feed in SQLite. Payload changes are read-merge-write, serialised by one lock so two
/// changes to the same notification never lose each other's keys.
#[derive(Debug)]
pub struct Notifications {
    store: Store,
    clock: SharedClock,
    changes: tokio::sync::Mutex<()>,
}

impl Notifications {
    pub fn new(store: Store, clock: SharedClock) -> Self {
        Self {
            store,
            clock,
            changes: tokio::sync::Mutex::new(()),
        }
    }

    fn pool(&self) -> &sqlx::SqlitePool {
        self.store.pool()
    }

    /// Saves a new, unread notification stamped now.
    pub async fn insert(&self, new: NewNotification) -> Result<Notification, NotificationError> {
        let notification = Notification {
            id: crate::store::new_id(),
            kind: new.kind,
            title: new.title,
            message: new.message,
            payload: new.payload,
            task_id: new.task_id,
            read: false,
            // Stored to the microsecond; the event must say exactly what a later read will.
            created_at: self.clock.now().trunc_subsecs(6),
        };
        sqlx::query(
            "INSERT INTO notifications (id, kind, title, message, payload, task_id, read, created_at)
             VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
        )
        .bind(&notification.id)
        .bind(&notification.kind)
        .bind(&notification.title)
        .bind(&notification.message)
        .bind(Value::Object(notification.payload.clone()).to_string())
        .bind(&notification.task_id)
        .bind(stamp(notification.created_at))
        .execute(self.pool())
        .await?;
        Ok(notification)
    }

    pub async fn get(&self, id: &str) -> Result<Notification, NotificationError> {
        sqlx::query(select!("WHERE id = ?"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .map(|row| from_row(&row))
            .ok_or_else(|| NotificationError::NotFound(id.to_owned()))
    }

    /// Newest first (ties in the order they were saved), with the feed's unread count.
    pub async fn list(
        &self,
        limit: u32,
        unread_only: bool,
    ) -> Result<NotificationList, NotificationError> {
        // One read transaction, so the count agrees with the list it comes with.
        let mut read = self.pool().begin().await?;
        let rows = sqlx::query(select!(
            "WHERE (? = 0 OR read = 0) ORDER BY created_at DESC, rowid DESC LIMIT ?"
        ))
        .bind(i64::from(unread_only))
        .bind(i64::from(limit))
        .fetch_all(&mut *read)
        .await?;
        let unread = count_unread(&mut *read).await?;
        read.commit().await?;
        Ok(NotificationList {
            notifications: rows.iter().map(from_row).collect(),
            unread,
        })
    }

    pub async fn unread(&self) -> Result<u32, NotificationError> {
        count_unread(self.pool()).await
    }

    pub async fn mark_read(&self, id: &str) -> Result<(), NotificationError> {
        change_one(
            self.pool(),
            sqlx::query("UPDATE notifications SET read = 1 WHERE id = ?").bind(id),
            || NotificationError::NotFound(id.to_owned()),
        )
        .await
    }

    /// Marks every notification read; returns how many were unread.
    pub async fn mark_all_read(&self) -> Result<u64, NotificationError> {
        let done = sqlx::query("UPDATE notifications SET read = 1 WHERE read = 0")
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }

    pub async fn delete(&self, id: &str) -> Result<(), NotificationError> {
        change_one(
            self.pool(),
            sqlx::query("DELETE FROM notifications WHERE id = ?").bind(id),
            || NotificationError::NotFound(id.to_owned()),
        )
        .await
    }

    /// Empties the feed; returns how many were deleted.
    pub async fn delete_all(&self) -> Result<u64, NotificationError> {
        let done = sqlx::query("DELETE FROM notifications")
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }

    /// Merges `changes` into one notification's payload (and marks it read when `mark_read`).
    pub async fn update_payload(
        &self,
        id: &str,
        changes: &Map<String, Value>,
        mark_read: bool,
    ) -> Result<Notification, NotificationError> {
        let _one_at_a_time = self.changes.lock().await;
        let mut tx = self.store.begin_write().await?;
        let row = sqlx::query(select!("WHERE id = ?"))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| NotificationError::NotFound(id.to_owned()))?;
        let changed = Self::merge_row(&mut tx, &row, changes, mark_read).await?;
        tx.commit().await?;
        Ok(changed)
    }

    /// Merges `changes` into every notification of `task_id` whose `payload.event` is `event`
    /// (and whose `payload.run_id` is `run_id`, when given) and which has no `payload.status`
    /// yet (still waiting on the person), in one transaction.
    pub async fn settle_task(
        &self,
        task_id: &str,
        event: &str,
        run_id: Option<&str>,
        changes: &Map<String, Value>,
        mark_read: bool,
    ) -> Result<Vec<Notification>, NotificationError> {
        let _one_at_a_time = self.changes.lock().await;
        let mut tx = self.store.begin_write().await?;
        let rows = sqlx::query(select!(
            "WHERE task_id = ? AND json_extract(payload, '$.event') = ?
               AND json_extract(payload, '$.status') IS NULL
               AND (?3 IS NULL OR json_extract(payload, '$.run_id') = ?3)
             ORDER BY created_at, rowid"
        ))
        .bind(task_id)
        .bind(event)
        .bind(run_id)
        .fetch_all(&mut *tx)
        .await?;
        let mut settled = Vec::with_capacity(rows.len());
        for row in &rows {
            settled.push(Self::merge_row(&mut tx, row, changes, mark_read).await?);
        }
        tx.commit().await?;
        Ok(settled)
    }

    /// Merges `changes` into every notification of `task_id`, whatever it was about, and marks
    /// them read, in one transaction (the task was deleted: nothing they offer can work now).
    pub async fn update_task(
        &self,
        task_id: &str,
        changes: &Map<String, Value>,
    ) -> Result<Vec<Notification>, NotificationError> {
        let _one_at_a_time = self.changes.lock().await;
        let mut tx = self.store.begin_write().await?;
        let rows = sqlx::query(select!("WHERE task_id = ? ORDER BY created_at, rowid"))
            .bind(task_id)
            .fetch_all(&mut *tx)
            .await?;
        let mut changed = Vec::with_capacity(rows.len());
        for row in &rows {
            changed.push(Self::merge_row(&mut tx, row, changes, true).await?);
        }
        tx.commit().await?;
        Ok(changed)
    }

    async fn merge_row(
        tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
        row: &SqliteRow,
        changes: &Map<String, Value>,
        mark_read: bool,
    ) -> Result<Notification, NotificationError> {
        let mut notification = from_row(row);
        merge_payload(&mut notification.payload, changes);
        notification.read |= mark_read;
        sqlx::query("UPDATE notifications SET payload = ?, read = ? WHERE id = ?")
            .bind(Value::Object(notification.payload.clone()).to_string())
            .bind(i64::from(notification.read))
            .bind(&notification.id)
            .execute(&mut **tx)
            .await?;
        Ok(notification)
    }
}

/// The notifications feed as a service: the store plus the events every change publishes.
/// Other areas reach it through the [`Notifier`] trait.
#[derive(Debug, Clone)]
pub struct NotificationService {
    feed: std::sync::Arc<Notifications>,
    bus: EventBus,
}

impl NotificationService {
    pub fn new(store: Store, clock: SharedClock, bus: EventBus) -> Self {
        Self {
            feed: std::sync::Arc::new(Notifications::new(store, clock)),
            bus,
        }
    }

    /// The feed's store.
    pub fn feed(&self) -> &Notifications {
        &self.feed
    }

    /// Saves a notification and publishes `notification.new` (windows, sockets, the desktop's
    /// pop-up and, later, paired chats hear it).
    pub async fn notify(&self, new: NewNotification) -> Result<Notification, NotificationError> {
        let notification = self.feed.insert(new).await?;
        tracing::info!(
            id = %notification.id,
            kind = %notification.kind,
            task_id = notification.task_id.as_deref().unwrap_or(""),
            "notification"
        );
        self.bus
            .publish(DomainEvent::NotificationNew(notification.clone()));
        Ok(notification)
    }

    /// `GET /api/notifications`.
    pub async fn list_notifications(
        &self,
        limit: Option<u32>,
        unread_only: bool,
    ) -> Result<NotificationList, NotificationError> {
        self.feed.list(clamp_limit(limit), unread_only).await
    }

    /// `POST /api/notifications/{id}/read`.
    pub async fn read_notification(&self, id: &str) -> Result<(), NotificationError> {
        self.feed.mark_read(id).await?;
        self.bus.publish(DomainEvent::NotificationRead {
            id: Some(id.to_owned()),
        });
        Ok(())
    }

    /// `POST /api/notifications/read-all`.
    pub async fn read_all_notifications(&self) -> Result<(), NotificationError> {
        self.feed.mark_all_read().await?;
        self.bus.publish(DomainEvent::NotificationRead { id: None });
        Ok(())
    }

    /// `DELETE /api/notifications/{id}`.
    pub async fn delete_notification(&self, id: &str) -> Result<(), NotificationError> {
        self.feed.delete(id).await?;
        self.bus.publish(DomainEvent::NotificationDeleted {
            id: Some(id.to_owned()),
        });
        Ok(())
    }

    /// `DELETE /api/notifications`.
    pub async fn delete_all_notifications(&self) -> Result<(), NotificationError> {
        self.feed.delete_all().await?;
        self.bus
            .publish(DomainEvent::NotificationDeleted { id: None });
        Ok(())
    }

    /// Merges `changes` into a notification's payload and publishes `notification.updated`
    /// with the whole notification (a suggestion approved, a plan approved, a question answered).
    pub async fn update_notification_payload(
        &self,
        id: &str,
        changes: Map<String, Value>,
    ) -> Result<Notification, NotificationError> {
        let notification = self.feed.update_payload(id, &changes, false).await?;
        self.bus
            .publish(DomainEvent::NotificationUpdated(notification.clone()));
        Ok(notification)
    }
}

#[async_trait::async_trait]
impl Notifier for NotificationService {
    async fn notify(&self, new: NewNotification) -> Result<Notification, NotifyError> {
        NotificationService::notify(self, new)
            .await
            .map_err(|e| NotifyError(e.to_string()))
    }

    async fn settle_task(
        &self,
        task_id: &str,
        event: &str,
        run_id: Option<&str>,
        changes: Map<String, Value>,
    ) -> Vec<Notification> {
        match self
            .feed
            .settle_task(task_id, event, run_id, &changes, true)
            .await
        {
            Ok(settled) => {
                for notification in &settled {
                    self.bus
                        .publish(DomainEvent::NotificationUpdated(notification.clone()));
                }
                settled
            }
            Err(error) => {
                tracing::warn!(%error, task_id, event, "the task's notifications could not be settled");
                Vec::new()
            }
        }
    }

    async fn task_deleted(&self, task_id: &str) -> Vec<Notification> {
        let mut changes = Map::new();
        changes.insert("task_deleted".to_owned(), Value::Bool(true));
        match self.feed.update_task(task_id, &changes).await {
            Ok(changed) => {
                for notification in &changed {
                    self.bus
                        .publish(DomainEvent::NotificationUpdated(notification.clone()));
                }
                changed
            }
            Err(error) => {
                tracing::warn!(%error, task_id, "the deleted task's notifications could not be marked");
                Vec::new()
            }
        }
    }
}

async fn count_unread(db: impl sqlx::SqliteExecutor<'_>) -> Result<u32, NotificationError> {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM notifications WHERE read = 0")
        .fetch_one(db)
        .await?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::clock::SystemClock;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    async fn feed() -> (tempfile::TempDir, Notifications) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("s.db"), Arc::new(SystemClock))
            .await
            .expect("open");
        (dir, Notifications::new(store, Arc::new(SystemClock)))
    }

    fn new(title: &str, task_id: Option<&str>, payload: Value) -> NewNotification {
        NewNotification {
            kind: "task".into(),
            title: title.into(),
            message: "**markdown**".into(),
            payload: object(payload),
            task_id: task_id.map(str::to_owned),
        }
    }

    #[test]
    fn limits_are_clamped_and_payloads_merge_shallowly() {
        assert_eq!(clamp_limit(None), DEFAULT_LIMIT);
        assert_eq!(clamp_limit(Some(0)), 1);
        assert_eq!(clamp_limit(Some(100_000)), MAX_LIMIT);
        let mut payload = object(json!({"event": "question", "nested": {"a": 1}, "task_id": "t"}));
        merge_payload(
            &mut payload,
            &object(json!({"status": "answered", "nested": {"b": 2}, "task_id": null})),
        );
        assert_eq!(
            Value::Object(payload),
            json!({"event": "question", "nested": {"b": 2}, "task_id": null, "status": "answered"})
        );
    }

    #[tokio::test]
    async fn the_unread_count_agrees_with_the_list_while_notifications_arrive() {
        let (_dir, feed) = feed().await;
        let feed = Arc::new(feed);
        let writer = feed.clone();
        let arriving = tokio::spawn(async move {
            for n in 0..40 {
                writer
                    .insert(new(&format!("n{n}"), None, json!({})))
                    .await
                    .expect("insert");
                tokio::task::yield_now().await;
            }
        });
        let mut reads = 0;
        while !arriving.is_finished() || reads == 0 {
            let list = feed.list(100, true).await.expect("list");
            assert_eq!(
                u32::try_from(list.notifications.len()).ok(),
                Some(list.unread),
                "read {reads}"
            );
            reads += 1;
        }
        arriving.await.expect("writer");
        assert_eq!(feed.list(100, true).await.expect("list").unread, 40);
    }

    #[tokio::test]
    async fn the_feed_lists_newest_first_counts_unread_and_forgets() {
        let (_dir, feed) = feed().await;
        let first = feed.insert(new("one", None, json!({}))).await.expect("one");
        let second = feed
            .insert(new("two", Some("t1"), json!({"event": "approval_needed"})))
            .await
            .expect("two");
        let got = feed.get(&second.id).await.expect("get");
        assert_eq!(got, second);
        assert_eq!(got.payload["event"], "approval_needed");

        let list = feed.list(10, false).await.expect("list");
        let titles: Vec<&str> = list
            .notifications
            .iter()
            .map(|n| n.title.as_str())
            .collect();
        assert_eq!(titles, ["two", "one"]);
        assert_eq!(list.unread, 2);
        assert_eq!(
            feed.list(1, false).await.expect("list").notifications.len(),
            1
        );

        feed.mark_read(&first.id).await.expect("read");
        let list = feed.list(10, true).await.expect("unread only");
        assert_eq!(list.notifications.len(), 1);
        assert_eq!(list.notifications[0].id, second.id);
        assert_eq!(list.unread, 1);
        assert!(matches!(
            feed.mark_read("nope").await,
            Err(NotificationError::NotFound(_))
        ));
        assert_eq!(feed.mark_all_read().await.expect("all"), 1);
        assert_eq!(feed.unread().await.expect("unread"), 0);

        feed.delete(&first.id).await.expect("delete");
        assert!(matches!(
            feed.delete(&first.id).await,
            Err(NotificationError::NotFound(_))
        ));
        assert_eq!(feed.delete_all().await.expect("delete all"), 1);
        assert!(
            feed.list(10, false)
                .await
                .expect("list")
                .notifications
                .is_empty()
        );
    }

    #[tokio::test]
    async fn settling_changes_only_the_waiting_notifications_of_that_task_and_event() {
        let (_dir, feed) = feed().await;
        let waiting = feed
            .insert(new(
                "plan",
                Some("t1"),
                json!({"task_id": "t1", "event": "approval_needed"}),
            ))
            .await
            .expect("insert");
        let done = feed
            .insert(new(
                "old plan",
                Some("t1"),
                json!({"task_id": "t1", "event": "approval_needed", "status": "declined"}),
            ))
            .await
            .expect("insert");
        let other_event = feed
            .insert(new(
                "q",
                Some("t1"),
                json!({"task_id": "t1", "event": "clarification_needed"}),
            ))
            .await
            .expect("insert");
        let other_task = feed
            .insert(new(
                "plan",
                Some("t2"),
                json!({"task_id": "t2", "event": "approval_needed"}),
            ))
            .await
            .expect("insert");

        let settled = feed
            .settle_task(
                "t1",
                "approval_needed",
                None,
                &object(json!({"status": "approved"})),
                true,
            )
            .await
            .expect("settle");
        assert_eq!(settled.len(), 1);
        assert_eq!(settled[0].id, waiting.id);
        assert_eq!(settled[0].payload["status"], "approved");
        assert!(settled[0].read);
        assert_eq!(feed.get(&waiting.id).await.expect("get"), settled[0]);
        assert_eq!(
            feed.get(&done.id).await.expect("get").payload["status"],
            "declined"
        );
        assert!(
            feed.get(&other_event.id)
                .await
                .expect("get")
                .payload
                .get("status")
                .is_none()
        );
        assert!(
            feed.get(&other_task.id)
                .await
                .expect("get")
                .payload
                .get("status")
                .is_none()
        );
        // Nothing is left waiting, so settling again changes nothing.
        assert!(
            feed.settle_task(
                "t1",
                "approval_needed",
                None,
                &object(json!({"status": "x"})),
                true
            )
            .await
            .expect("settle")
            .is_empty()
        );

        let updated = feed
            .update_payload(
                &other_event.id,
                &object(json!({"status": "answered"})),
                false,
            )
            .await
            .expect("update");
        assert_eq!(updated.payload["event"], "clarification_needed");
        assert_eq!(updated.payload["status"], "answered");
        assert!(!updated.read);
        assert!(matches!(
            feed.update_payload("nope", &Map::new(), false).await,
            Err(NotificationError::NotFound(_))
        ));

        // Questions are settled per run.
        for run in ["r1", "r2"] {
            feed.insert(new(
                "q",
                Some("t3"),
                json!({"task_id": "t3", "event": "question", "run_id": run}),
            ))
            .await
            .expect("insert");
        }
        let answered = object(json!({"status": "answered", "answer": "Berlin"}));
        let settled = feed
            .settle_task("t3", "question", Some("r2"), &answered, true)
            .await
            .expect("settle");
        assert_eq!(settled.len(), 1);
        assert_eq!(settled[0].payload["run_id"], "r2");
        assert_eq!(settled[0].payload["answer"], "Berlin");
        let left = feed
            .settle_task("t3", "question", None, &answered, true)
            .await
            .expect("settle");
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].payload["run_id"], "r1");
    }
}
