//! Change feeds (contract sections 5 and 16): each connected app with a feed ([`Feed`]) keeps a
//! cursor and publishes what is new through the [`ItemsDoor`]. A failed sync never moves
//! the cursor and backs off, doubling up to 30 minutes; after 3 failures in a row the feed
//! counts as inactive (timer polling takes over). `GET /api/integrations/feeds` and
//! `POST /api/integrations/feeds/{source}/sync` read and drive them.

use sentient_core::sync::MutexExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row;
use tokio_util::sync::CancellationToken;

use sentient_core::store::{parse_stamp, stamp};

use crate::ctx::AppCtx;
use crate::emit::ItemsDoor;
pub use crate::emit::{default_event, seen_key};
use crate::error::IntegrationError;
pub use crate::feed::{Feed, IdleWait, SyncOutcome};

/// The longest wait between failed syncs.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30 * 60);
/// How often a waiting feed looks at the engine's clock again.
pub const CLOCK_CHECK: Duration = Duration::from_secs(1);
/// Failures in a row after which a feed no longer counts as keeping its source current.
pub const INACTIVE_AFTER: u32 = 3;

/// One feed as `GET /api/integrations/feeds` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FeedStatus {
    pub source: String,
    pub display_name: String,
    pub kind: String,
    pub connected: bool,
    pub active: bool,
    /// disconnected, off, starting, ok or error
    pub status: String,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub note: Option<String>,
    pub failures: u32,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub emitted: u64,
}

/// `POST /api/integrations/feeds/{source}/sync`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FeedSyncReply {
    pub ok: bool,
    pub emitted: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebaselined: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_in_s: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The apps' feeds and the ones running now.
pub struct Feeds {
    ctx: AppCtx,
    door: Arc<ItemsDoor>,
    /// The feeds this build has, in the order `GET /api/integrations/feeds` lists them.
    feeds: Vec<Arc<dyn Feed>>,
    running: Mutex<HashMap<String, CancellationToken>>,
    /// One sync of a source at a time (the loop and "Sync now").
    syncing: tokio::sync::Mutex<()>,
}

impl Feeds {
    pub fn new(ctx: AppCtx, door: Arc<ItemsDoor>, feeds: Vec<Arc<dyn Feed>>) -> Self {
        Self {
            ctx,
            door,
            feeds,
            running: Mutex::default(),
            syncing: tokio::sync::Mutex::new(()),
        }
    }

    /// The door new items go through.
    pub fn door(&self) -> &ItemsDoor {
        &self.door
    }

    fn feed(&self, source: &str) -> Option<&Arc<dyn Feed>> {
        self.feeds.iter().find(|f| f.source() == source)
    }

    pub fn stop(&self, source: &str) {
        if let Some(token) = self.running.lock_unpoisoned().remove(source) {
            token.cancel();
        }
    }

    fn is_running(&self, source: &str) -> bool {
        self.running.lock_unpoisoned().contains_key(source)
    }
}

/// A feed's saved row.
#[derive(Debug, Default, Clone)]
pub(crate) struct FeedRow {
    pub cursor: Option<Value>,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub note: Option<String>,
    pub failures: u32,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub emitted: u64,
}

/// The wait after `failures` failed syncs in a row: the interval doubled each time, at most 30 minutes.
pub fn backoff(interval: Duration, failures: u32) -> Duration {
    let doubled = interval.saturating_mul(2u32.saturating_pow(failures.min(16)));
    doubled.min(MAX_BACKOFF)
}

impl Feeds {
    pub(crate) async fn feed_row(&self, source: &str) -> Result<FeedRow, IntegrationError> {
        let row = sqlx::query("SELECT * FROM feed_state WHERE source = ?")
            .bind(source)
            .fetch_optional(self.ctx.store().pool())
            .await
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        let Some(row) = row else {
            return Ok(FeedRow::default());
        };
        let time = |k: &str| {
            row.get::<Option<String>, _>(k)
                .as_deref()
                .and_then(parse_stamp)
        };
        Ok(FeedRow {
            cursor: row
                .get::<Option<String>, _>("cursor")
                .and_then(|c| serde_json::from_str(&c).ok()),
            last_sync_at: time("last_sync_at"),
            last_success_at: time("last_success_at"),
            last_error: row.get("last_error"),
            note: row.get("note"),
            failures: u32::try_from(row.get::<i64, _>("failures")).unwrap_or(0),
            next_attempt_at: time("next_attempt_at"),
            emitted: u64::try_from(row.get::<i64, _>("emitted")).unwrap_or(0),
        })
    }

    async fn put_feed_row(&self, source: &str, row: &FeedRow) -> Result<(), IntegrationError> {
        sqlx::query(
            "INSERT INTO feed_state (source, cursor, last_sync_at, last_success_at, last_error, \
             note, failures, next_attempt_at, emitted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (source) DO UPDATE SET cursor = excluded.cursor, \
             last_sync_at = excluded.last_sync_at, last_success_at = excluded.last_success_at, \
             last_error = excluded.last_error, note = excluded.note, failures = excluded.failures, \
             next_attempt_at = excluded.next_attempt_at, emitted = excluded.emitted",
        )
        .bind(source)
        .bind(row.cursor.as_ref().map(Value::to_string))
        .bind(row.last_sync_at.map(stamp))
        .bind(row.last_success_at.map(stamp))
        .bind(&row.last_error)
        .bind(&row.note)
        .bind(i64::from(row.failures))
        .bind(row.next_attempt_at.map(stamp))
        .bind(i64::try_from(row.emitted).unwrap_or(i64::MAX))
        .execute(self.ctx.store().pool())
        .await
        .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        Ok(())
    }

    /// Forgets a source's cursor and seen record (on disconnect).
    pub(crate) async fn forget_feed(&self, source: &str) -> Result<(), IntegrationError> {
        sqlx::query("DELETE FROM feed_state WHERE source = ?")
            .bind(source)
            .execute(self.ctx.store().pool())
            .await
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        self.door.forget(source).await?;
        Ok(())
    }

    fn feed_interval(&self) -> Option<Duration> {
        let seconds = self.ctx.config().current().integrations.fast_sync_seconds;
        (seconds > 0).then(|| Duration::from_secs(u64::from(seconds)))
    }

    /// `feed_active`: a change feed keeps `source` current, so timer polling can skip it.
    pub async fn feed_active(&self, source: &str) -> bool {
        if !self.ctx.is_connected(source)
            || self.feed_interval().is_none()
            || !self.is_running(source)
        {
            return false;
        }
        self.feed_row(source)
            .await
            .is_ok_and(|row| row.failures < INACTIVE_AFTER)
    }

    /// `GET /api/integrations/feeds`.
    pub async fn feed_status(&self) -> Vec<FeedStatus> {
        let mut out = Vec::new();
        for feed in &self.feeds {
            let (source, name, kind) = (feed.source(), feed.display_name(), feed.kind());
            let row = self.feed_row(source).await.unwrap_or_default();
            let connected = self.ctx.is_connected(source);
            let running = self.is_running(source);
            let status = if !connected {
                "disconnected"
            } else if self.feed_interval().is_none() || !running {
                "off"
            } else if row.failures > 0 {
                "error"
            } else if row.last_success_at.is_none() {
                "starting"
            } else {
                "ok"
            };
            out.push(FeedStatus {
                source: source.to_owned(),
                display_name: name.to_owned(),
                kind: kind.to_owned(),
                connected,
                active: connected && running && row.failures < INACTIVE_AFTER,
                status: status.to_owned(),
                last_sync_at: row.last_sync_at,
                last_success_at: row.last_success_at,
                last_error: row.last_error,
                note: row.note,
                failures: row.failures,
                next_attempt_at: row.next_attempt_at,
                emitted: row.emitted,
            });
        }
        out
    }

    /// Runs one sync of `source` now and records how it went (`POST .../feeds/{source}/sync`).
    pub async fn sync_feed(&self, source: &str) -> Result<FeedSyncReply, IntegrationError> {
        let Some(feed) = self.feed(source).cloned() else {
            return Err(IntegrationError::NoFeed(source.to_owned()));
        };
        if !self.ctx.is_connected(source) {
            return Ok(FeedSyncReply {
                ok: false,
                emitted: 0,
                rebaselined: None,
                error: None,
                failures: None,
                retry_in_s: None,
                skipped: Some("not connected".to_owned()),
            });
        }
        if self.door.is_stopped() {
            // The cursor stays put, so what arrives meanwhile is announced after Resume.
            return Ok(FeedSyncReply {
                ok: false,
                emitted: 0,
                rebaselined: None,
                error: None,
                failures: None,
                retry_in_s: None,
                skipped: Some("stopped".to_owned()),
            });
        }
        let _one = self.syncing.lock().await;
        let mut row = self.feed_row(source).await?;
        let now = self.ctx.clock().now();
        row.last_sync_at = Some(now);
        let outcome = feed.sync(row.cursor.clone()).await;
        match outcome {
            Ok(outcome) => {
                // Published before the cursor moves: a crash in between repeats items, and the
                // seen record drops the repeats.
                let published = self.door.emit(source, "feed", outcome.items, None).await?;
                let emitted = published.len() as u64;
                row.cursor = Some(outcome.cursor);
                row.last_success_at = Some(now);
                row.last_error = None;
                row.failures = 0;
                row.next_attempt_at = Some(now + self.interval_or_default());
                if outcome.note.is_some() {
                    row.note = outcome.note;
                }
                row.emitted += emitted;
                self.put_feed_row(source, &row).await?;
                Ok(FeedSyncReply {
                    ok: true,
                    emitted,
                    rebaselined: Some(outcome.rebaselined),
                    error: None,
                    failures: None,
                    retry_in_s: None,
                    skipped: None,
                })
            }
            Err(error) => {
                row.failures += 1;
                row.last_error = Some(error.to_string());
                let wait = backoff(
                    self.feed_interval().unwrap_or(Duration::from_secs(60)),
                    row.failures - 1,
                );
                row.next_attempt_at = chrono::Duration::from_std(wait).ok().map(|w| now + w);
                self.put_feed_row(source, &row).await?;
                Ok(FeedSyncReply {
                    ok: false,
                    emitted: 0,
                    rebaselined: None,
                    error: Some(error.to_string()),
                    failures: Some(row.failures),
                    retry_in_s: Some(wait.as_secs()),
                    skipped: None,
                })
            }
        }
    }

    /// Starts the feeds of every connected app (at start).
    pub(crate) fn start_feeds(self: &Arc<Self>) {
        for source in self.feeds.iter().map(|f| f.source()) {
            if self.ctx.is_connected(source) {
                self.start_feed(source);
            }
        }
    }

    /// Starts (or restarts) `source`'s feed loop, when it has one and feeds are on.
    pub(crate) fn start_feed(self: &Arc<Self>, source: &str) {
        let Some(feed) = self.feed(source).cloned() else {
            return;
        };
        if self.feed_interval().is_none() {
            return;
        }
        let token = self.ctx.shutdown().child_token();
        if let Some(old) = self
            .running
            .lock_unpoisoned()
            .insert(source.to_owned(), token.clone())
        {
            old.cancel();
        }
        let feeds = self.clone();
        tokio::spawn(async move { feeds.run_feed(feed.as_ref(), &token).await });
    }

    /// One feed's loop. It keeps to the engine's clock: the next sync is due at the feed row's
    /// `next_attempt_at` (set by each sync from the same clock), and the loop looks at the clock
    /// every [`CLOCK_CHECK`], so a test's `ManualClock` moves feeds as it moves schedules. While
    /// Stop everything is on it only waits; a sync that fell due meanwhile runs after Resume.
    async fn run_feed(&self, feed: &dyn Feed, token: &CancellationToken) {
        let source = feed.source();
        let mut due = self.ctx.clock().now();
        loop {
            if token.is_cancelled() {
                return;
            }
            let now = self.ctx.clock().now();
            if self.door.is_stopped() || now < due {
                let left = (due - now).to_std().unwrap_or_default();
                tokio::select! {
                    () = token.cancelled() => return,
                    () = tokio::time::sleep(left.clamp(Duration::from_millis(1), CLOCK_CHECK)) => {}
                }
                continue;
            }
            due = match self.sync_feed(source).await {
                Ok(_) => self
                    .feed_row(source)
                    .await
                    .ok()
                    .and_then(|row| row.next_attempt_at),
                Err(error) => {
                    tracing::warn!(%error, source, "a change feed could not sync");
                    None
                }
            }
            .filter(|at| *at > now)
            .unwrap_or_else(|| now + self.interval_or_default());
            // IMAP waits in IDLE, so the server says when mail arrives; a change makes the next
            // sync due at once.
            let wait = (due - self.ctx.clock().now()).to_std().unwrap_or_default();
            if feed.wait_for_change(wait, token).await == IdleWait::Changed {
                due = self.ctx.clock().now();
            }
        }
    }

    fn interval_or_default(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.feed_interval().unwrap_or(Duration::from_secs(60)))
            .unwrap_or(chrono::Duration::minutes(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_half_an_hour() {
        let minute = Duration::from_secs(60);
        assert_eq!(backoff(minute, 0), minute);
        assert_eq!(backoff(minute, 1), Duration::from_secs(120));
        assert_eq!(backoff(minute, 3), Duration::from_secs(480));
        assert_eq!(backoff(minute, 10), MAX_BACKOFF);
        assert_eq!(backoff(minute, u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn seen_keys_name_what_makes_an_item_new() {
        let event = serde_json::json!({"id": "e1", "updated": "2026-12-01T10:00:00Z"});
        assert_eq!(seen_key("gcalendar", &event), "e1:2026-12-01T10:00:00Z");
        let mail = serde_json::json!({"id": "7", "message_id": "<a@b>"});
        assert_eq!(seen_key("email_imap", &mail), "<a@b>");
        assert_eq!(seen_key("gmail", &serde_json::json!({"id": "m1"})), "m1");
        assert_eq!(default_event("gcalendar"), "new_event");
        assert_eq!(default_event("email_imap"), "new_email");
    }
}
