//! Group commit for accepted webhook calls: every call is on disk (`synchronous = FULL`, so
//! the commit is synced) before its caller gets an answer, and calls that arrive together share
//! one transaction and one sync. One writer task per engine; it ends with the engine.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use tokio::sync::{mpsc, oneshot};

use crate::clock::SharedClock;
use crate::store::Store;

/// Most calls one commit carries.
const MAX_BATCH: usize = 512;
/// How many calls may wait for the writer before callers wait to queue.
const QUEUE: usize = 4096;
/// How long accepted calls are kept.
pub const KEEP_DAYS: i64 = 30;

/// One accepted call as it is stored.
#[derive(Debug, Clone)]
pub struct CallRow {
    pub id: String,
    pub hook_id: String,
    pub received_at: DateTime<Utc>,
    /// The item, as JSON text.
    pub item: String,
}

struct Pending {
    row: CallRow,
    done: oneshot::Sender<Result<(), String>>,
}

#[derive(Debug, Clone)]
pub struct Writer {
    tx: mpsc::Sender<Pending>,
}

impl Writer {
    pub fn start(store: Store, clock: SharedClock) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(store, clock, rx));
        Self { tx }
    }

    /// Stores `row` and returns once its transaction is committed and synced.
    pub async fn write(&self, row: CallRow) -> Result<(), String> {
        let (done, answer) = oneshot::channel();
        self.tx
            .send(Pending { row, done })
            .await
            .map_err(|_| "the webhook writer has stopped".to_owned())?;
        answer
            .await
            .map_err(|_| "the webhook writer has stopped".to_owned())?
    }
}

async fn run(store: Store, clock: SharedClock, mut rx: mpsc::Receiver<Pending>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut last_prune: Option<DateTime<Utc>> = None;
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let now = clock.now();
        let prune = last_prune.is_none_or(|at| now - at > Duration::hours(1));
        let result = commit(&store, &batch, prune.then_some(now))
            .await
            .map_err(|e| e.to_string());
        match &result {
            Ok(()) if prune => last_prune = Some(now),
            Ok(()) => {}
            Err(error) => tracing::error!(%error, calls = batch.len(), "webhook calls not stored"),
        }
        for pending in batch.drain(..) {
            let _ = pending.done.send(result.clone());
        }
    }
}

/// One transaction for the whole batch: the calls, each hook's counters, and now and then the
/// pruning of calls older than 30 days.
async fn commit(
    store: &Store,
    batch: &[Pending],
    prune_at: Option<DateTime<Utc>>,
) -> Result<(), sqlx::Error> {
    let mut conn = store.pool().acquire().await?;
    // This connection syncs its commits; the pool's others keep the store's setting.
    sqlx::query("PRAGMA synchronous = FULL")
        .execute(&mut *conn)
        .await?;
    let result = async {
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        let mut per_hook: HashMap<&str, (i64, DateTime<Utc>)> = HashMap::new();
        for Pending { row, .. } in batch {
            sqlx::query(
                "INSERT INTO hook_calls (id, hook_id, received_at, item) VALUES (?, ?, ?, ?)",
            )
            .bind(&row.id)
            .bind(&row.hook_id)
            .bind(super::stamp(row.received_at))
            .bind(&row.item)
            .execute(&mut *tx)
            .await?;
            let entry = per_hook
                .entry(row.hook_id.as_str())
                .or_insert((0, row.received_at));
            entry.0 += 1;
            entry.1 = entry.1.max(row.received_at);
        }
        for (hook_id, (calls, last)) in per_hook {
            sqlx::query(
                "UPDATE hooks SET calls = calls + ?, \
                 last_called_at = MAX(COALESCE(last_called_at, ''), ?) WHERE id = ?",
            )
            .bind(calls)
            .bind(super::stamp(last))
            .bind(hook_id)
            .execute(&mut *tx)
            .await?;
        }
        if let Some(now) = prune_at {
            sqlx::query("DELETE FROM hook_calls WHERE received_at < ?")
                .bind(super::stamp(now - Duration::days(KEEP_DAYS)))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await
    }
    .await;
    let reset = sqlx::query("PRAGMA synchronous = NORMAL")
        .execute(&mut *conn)
        .await;
    result?;
    reset.map(|_| ())
}
