//! The shared "already seen" record (`seen_items`): the keys of items already published per
//! source (a webhook call, a Gmail message, a calendar event's `<id>:<updated>`), so a change
//! feed, a poll and a push never publish the same item twice.

use crate::sync::MutexExt;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

use crate::clock::SharedClock;
use crate::store::{Store, StoreError, stamp};

/// How long a key counts as seen; older keys are new again and are pruned now and then.
pub const SEEN_DAYS: i64 = 30;

/// The seen record; one per engine, shared by everything that publishes `source.items`.
#[derive(Debug)]
pub struct SeenItems {
    store: Store,
    clock: SharedClock,
    last_prune: Mutex<Option<DateTime<Utc>>>,
}

impl SeenItems {
    pub fn new(store: Store, clock: SharedClock) -> Self {
        Self {
            store,
            clock,
            last_prune: Mutex::default(),
        }
    }

    /// Records `key` for `source` and says whether it was already recorded within 30 days.
    pub async fn seen_before(&self, source: &str, key: &str) -> Result<bool, StoreError> {
        let now = self.clock.now();
        let cutoff = stamp(now - Duration::days(SEEN_DAYS));
        let prune = {
            let mut last = self.last_prune.lock_unpoisoned();
            let due = last.is_none_or(|at| now - at > Duration::hours(1) || now < at);
            if due {
                *last = Some(now);
            }
            due
        };
        if prune {
            sqlx::query("DELETE FROM seen_items WHERE seen_at < ?")
                .bind(&cutoff)
                .execute(self.store.pool())
                .await?;
        }
        // Inserted, or an expired key renewed: new. Untouched: seen within 30 days.
        let changed = sqlx::query(
            "INSERT INTO seen_items (source, key, seen_at) VALUES (?, ?, ?) \
             ON CONFLICT (source, key) DO UPDATE SET seen_at = excluded.seen_at \
             WHERE seen_items.seen_at < ?",
        )
        .bind(source)
        .bind(key)
        .bind(stamp(now))
        .bind(&cutoff)
        .execute(self.store.pool())
        .await?
        .rows_affected();
        Ok(changed == 0)
    }

    /// Forgets every key of `source` (an app was disconnected: its cursors start over).
    pub async fn forget(&self, source: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM seen_items WHERE source = ?")
            .bind(source)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }
}
