//! The `subagents` table: one row a helper, written when it starts and when it ends (its log
//! with it). A helper that was running when Sentient closed is settled as an error at start.

use chrono::{DateTime, Utc};

use sentient_core::domain::task::ProgressUpdate;
use sentient_core::domain::{Subagent, SubagentStatus};
use sentient_core::store::{Store, StoreError, parse_stamp, stamp};

/// The sentence a helper cut off by a restart ends with.
pub const INTERRUPTED: &str = "Sentient was closed while this helper worked, so it did not finish.";

type Row = (
    String,
    Option<String>,
    String,
    String,
    String,
    i64,
    Option<String>,
    Option<String>,
    i64,
    String,
    Option<String>,
    String,
);

macro_rules! columns {
    () => {
        "subagent_id, session_id, parent_call_id, goal, status, background, summary, error, tool_calls, started_at, finished_at, events"
    };
}

fn from_row(row: Row, with_events: bool) -> Subagent {
    let (
        id,
        session_id,
        parent_call_id,
        goal,
        status,
        background,
        summary,
        error,
        calls,
        started,
        finished,
        events,
    ) = row;
    Subagent {
        subagent_id: id,
        session_id,
        parent_call_id,
        goal,
        status: SubagentStatus::parse(&status),
        background: background != 0,
        summary,
        error,
        tool_calls: u32::try_from(calls).unwrap_or(0),
        started_at: parse_stamp(&started).unwrap_or_default(),
        finished_at: finished.as_deref().and_then(parse_stamp),
        events: with_events.then(|| serde_json::from_str(&events).unwrap_or_default()),
    }
}

/// The helpers' rows; cheap to clone.
#[derive(Clone, Debug)]
pub struct SubagentStore {
    store: Store,
}

impl SubagentStore {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Saves a helper as it starts.
    pub async fn insert(&self, helper: &Subagent) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO subagents (subagent_id, session_id, parent_call_id, goal, status, background, tool_calls, started_at)
             VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
        )
        .bind(&helper.subagent_id)
        .bind(&helper.session_id)
        .bind(&helper.parent_call_id)
        .bind(&helper.goal)
        .bind(helper.status.as_str())
        .bind(i64::from(helper.background))
        .bind(stamp(helper.started_at))
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Saves how a helper ended, with its log; only a running helper changes (a cancel that
    /// came first keeps its ending). `false` when it had already ended.
    pub async fn finish(
        &self,
        helper: &Subagent,
        events: &[ProgressUpdate],
    ) -> Result<bool, StoreError> {
        let events = serde_json::to_string(events).unwrap_or_else(|_| "[]".to_owned());
        let done = sqlx::query(
            "UPDATE subagents SET status = ?, summary = ?, error = ?, tool_calls = ?, finished_at = ?, events = ?
             WHERE subagent_id = ? AND status = 'running'",
        )
        .bind(helper.status.as_str())
        .bind(&helper.summary)
        .bind(&helper.error)
        .bind(i64::from(helper.tool_calls))
        .bind(helper.finished_at.map(stamp))
        .bind(events)
        .bind(&helper.subagent_id)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn get(&self, id: &str) -> Result<Option<Subagent>, StoreError> {
        let row: Option<Row> = sqlx::query_as(concat!(
            "SELECT ",
            columns!(),
            " FROM subagents WHERE subagent_id = ?"
        ))
        .bind(id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.map(|r| from_row(r, true)))
    }

    /// A chat's helpers, newest first.
    pub async fn for_session(&self, session_id: &str) -> Result<Vec<Subagent>, StoreError> {
        let rows: Vec<Row> = sqlx::query_as(concat!(
            "SELECT ",
            columns!(),
            " FROM subagents WHERE session_id = ? ORDER BY started_at DESC, rowid DESC"
        ))
        .bind(session_id)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(|r| from_row(r, true)).collect())
    }

    /// Helpers still marked running from an earlier start end as errors; how many.
    pub async fn settle_interrupted(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE subagents SET status = 'error', error = ?, finished_at = ? WHERE status = 'running'",
        )
        .bind(INTERRUPTED)
        .bind(stamp(now))
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected())
    }
}
