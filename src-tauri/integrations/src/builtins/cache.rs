//! Providers' answers kept in SQLite for a short while (`builtin_cache`): weather 10 minutes per
//! place, place look-ups a day, news a few minutes. Rows are keyed by a hash of the request's
//! address, so an API key in the address is never written to the database.

use chrono::Duration;
use sha2::{Digest, Sha256};
use sqlx::Row;

use sentient_core::clock::SharedClock;
use sentient_core::store::{Store, parse_stamp, stamp};

/// How long each kind of answer is kept.
pub const WEATHER_FOR: Duration = Duration::minutes(10);
pub const PLACES_FOR: Duration = Duration::days(1);
pub const NEWS_FOR: Duration = Duration::minutes(5);

/// The cache over the engine's one database.
#[derive(Clone)]
pub struct Cache {
    store: Store,
    clock: SharedClock,
}

/// The row key of a request: a hash of its address and anything else that changes the answer.
pub fn key_of(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl Cache {
    pub fn new(store: Store, clock: SharedClock) -> Self {
        Self { store, clock }
    }

    /// The kept answer for `key`, while it is fresh.
    pub async fn get(&self, key: &str) -> Option<String> {
        let row = sqlx::query("SELECT body, expires_at FROM builtin_cache WHERE key = ?")
            .bind(key)
            .fetch_optional(self.store.pool())
            .await
            .ok()??;
        let expires = parse_stamp(row.get::<&str, _>("expires_at"))?;
        (expires > self.clock.now()).then(|| row.get("body"))
    }

    /// Keeps `body` for `ttl`; old rows go at the same time. A write that fails only costs a
    /// request later, so it is logged, not returned.
    pub async fn put(&self, key: &str, body: &str, ttl: Duration) {
        let now = self.clock.now();
        let result = async {
            sqlx::query("DELETE FROM builtin_cache WHERE expires_at <= ?")
                .bind(stamp(now))
                .execute(self.store.pool())
                .await?;
            sqlx::query(
                "INSERT INTO builtin_cache (key, body, expires_at) VALUES (?, ?, ?) \
                 ON CONFLICT(key) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at",
            )
            .bind(key)
            .bind(body)
            .bind(stamp(now + ttl))
            .execute(self.store.pool())
            .await
        }
        .await;
        if let Err(error) = result {
            tracing::warn!(%error, "a built-in app's answer could not be kept");
        }
    }
}
