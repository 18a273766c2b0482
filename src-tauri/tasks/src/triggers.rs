//! Triggered tasks (contract sections 4 and 16): a task whose schedule is
//! `{type: "triggered", source, event, filter}` runs once for every new outside item that the
//! `source.items` domain event brings for its source and event, whatever the origin (a webhook
//! call, a change feed or a poll).
//!
//! - The filter picks items: every key must match (JSON equality, strings case-sensitive). A
//!   key names an item field (`name`), a dotted path (`body.status`) or, for webhook items, a
//!   field of the JSON body directly (`status` is `body.status` when the item has no
//!   top-level `status`). An empty filter takes every item.
//! - Each task handles an item id at most once, whichever path delivers it: the first
//!   delivery inserts `(task_id, item_id)` into `task_trigger_items` and starts the run, later
//!   ones find the row and do nothing.
//! - Each item gets its own run, also while an earlier run works or waits for an answer; the
//!   run's `trigger_event_data` is the item, so it starts marked with outside content.
//! - Only enabled tasks that are `active`, `processing` or `waiting_for_user` take events.
//!   Nothing fires while Stop everything is on, and items that arrive then are not handled
//!   later (nothing is recorded for them).
//! - A triggered task whose other run waits for an answer goes back to `waiting_for_user`
//!   when the runs started meanwhile end.

use serde_json::{Map, Value};
use tokio::sync::broadcast::error::RecvError;

use super::model::{Schedule, TaskStatus};
use crate::TaskError;
use crate::executor::Executor;
use crate::executor::RunStart;
use crate::parts::TaskParts;
use crate::script_jobs::ScriptJobs;
use sentient_core::bus::DomainEvent;

/// The task statuses that take events.
pub const ACCEPTING: [TaskStatus; 3] = [
    TaskStatus::Active,
    TaskStatus::Processing,
    TaskStatus::WaitingForUser,
];

/// One `source.items` event, as the worker handles it.
struct Delivery {
    source: String,
    event: String,
    items: Vec<Value>,
}

/// Whether `item` passes `filter`: every key matches (an empty filter takes everything).
pub fn filter_matches(filter: &Map<String, Value>, item: &Value) -> bool {
    filter
        .iter()
        .all(|(key, want)| field(item, key).is_some_and(|got| same(got, want)))
}

/// The item's field `key`: a top-level field or dotted path, else (webhook items) the same in
/// the JSON body.
fn field<'a>(item: &'a Value, key: &str) -> Option<&'a Value> {
    path(item, key).or_else(|| {
        item.get("body")
            .filter(|body| body.is_object())
            .and_then(|body| path(body, key))
    })
}

/// `key` in `value`: the key itself (it may contain dots), else a dotted path through objects
/// (and arrays by index).
fn path<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    if let Some(found) = value.get(key) {
        return Some(found);
    }
    if !key.contains('.') {
        return None;
    }
    key.split('.').try_fold(value, |at, part| match at {
        Value::Object(map) => map.get(part),
        Value::Array(list) => part.parse::<usize>().ok().and_then(|i| list.get(i)),
        _ => None,
    })
}

/// JSON equality, with numbers compared by value (`1` matches `1.0`).
fn same(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        _ => got == want,
    }
}

/// The item's id as text (a number counts), or none when it has no usable id.
/// The key an item is handled once by: an email's Message-ID when it has one (IMAP UIDs repeat
/// across folders), else its id.
fn item_id(item: &Value) -> Option<String> {
    if let Some(Value::String(id)) = item.get("message_id")
        && !id.is_empty()
    {
        return Some(id.clone());
    }
    match item.get("id")? {
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Triggered tasks: the `source.items` listener and one run per new item.
#[derive(Clone)]
pub(crate) struct Triggers {
    parts: TaskParts,
}

impl Triggers {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }
}

impl Triggers {
    /// Starts the triggered-task listener until shutdown: it follows `source.items` (and the
    /// end of runs, to put a task back to waiting for its answer).
    pub fn start_triggers(&self) {
        // Subscribed now, so no event published after start is missed.
        let mut events = self.parts.bus().subscribe();
        let shutdown = self.parts.shutdown_token();
        // The bus listener only hands deliveries on, so it never falls behind a burst of
        // webhook calls; the worker handles them one at a time, in order.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Delivery>();
        let engine = self.clone();
        let stop_listening = shutdown.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stop_listening.cancelled() => return,
                    event = events.recv() => match event {
                        Ok(envelope) => match envelope.event {
                            DomainEvent::SourceItems { source, event, items, .. } => {
                                let sent = tx.send(Delivery { source, event, items });
                                if sent.is_err() {
                                    return;
                                }
                            }
                            DomainEvent::TaskRunFinished { task_id, .. } => {
                                let engine = engine.clone();
                                tokio::spawn(async move {
                                    if let Err(error) = engine.settle_triggered_task(&task_id).await {
                                        tracing::warn!(error = %error.message(), task_id, "could not update a triggered task after its run");
                                    }
                                });
                            }
                            _ => {}
                        },
                        Err(RecvError::Lagged(missed)) => {
                            tracing::warn!(missed, "the triggered-task listener fell behind the bus; some events were not seen");
                        }
                        Err(RecvError::Closed) => return,
                    },
                }
            }
        });
        let engine = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    delivery = rx.recv() => {
                        let Some(delivery) = delivery else { return };
                        if let Err(error) = engine
                            .fire_triggers(&delivery.source, &delivery.event, &delivery.items)
                            .await
                        {
                            tracing::warn!(error = %error.message(), source = delivery.source, "could not start triggered tasks");
                        }
                    }
                }
            }
        });
    }

    /// Starts a run of every matching triggered task for each item it has not handled yet;
    /// returns the ids of the runs started. Nothing starts while Stop everything is on.
    pub async fn fire_triggers(
        &self,
        source: &str,
        event: &str,
        items: &[Value],
    ) -> Result<Vec<String>, TaskError> {
        let mut started = Vec::new();
        if items.is_empty() || self.parts.stop().is_stopped() {
            return Ok(started);
        }
        let pool = self.parts.tasks().store().store.pool().clone();
        let ids: Vec<(String,)> = sqlx::query_as(
            "SELECT id FROM tasks
             WHERE enabled = 1 AND status IN ('active', 'processing', 'waiting_for_user')
               AND json_extract(schedule, '$.type') = 'triggered'
               AND json_extract(schedule, '$.source') = ? AND json_extract(schedule, '$.event') = ?
             ORDER BY created_at, id",
        )
        .bind(source)
        .bind(event)
        .fetch_all(&pool)
        .await
        .map_err(|e| TaskError::internal(&e))?;
        for (task_id,) in ids {
            for item in items {
                // Read again for every item: the task may have been paused or changed meanwhile.
                let record = match self.parts.tasks().store().task(&task_id).await {
                    Ok(record) => record,
                    Err(super::store::TaskStoreError::NoTask(_)) => break,
                    Err(e) => return Err(e.into()),
                };
                let task = &record.task;
                let Some(Schedule::Triggered {
                    source: s,
                    event: e,
                    filter,
                    ..
                }) = &task.schedule
                else {
                    break;
                };
                if s != source || e != event || !task.enabled || !ACCEPTING.contains(&task.status) {
                    break;
                }
                if !filter_matches(filter, item) {
                    continue;
                }
                if self.parts.stop().is_stopped() {
                    return Ok(started);
                }
                let key = item_id(item);
                if let Some(key) = &key {
                    let now = self.parts.clock().now().to_rfc3339();
                    let claimed = sqlx::query(
                        "INSERT OR IGNORE INTO task_trigger_items (task_id, item_id, handled_at) VALUES (?, ?, ?)",
                    )
                    .bind(&task_id)
                    .bind(key)
                    .bind(now)
                    .execute(&pool)
                    .await
                    .map_err(|e| TaskError::internal(&e))?;
                    if claimed.rows_affected() == 0 {
                        continue;
                    }
                }
                // A script job checks the event with its script instead of starting a run.
                if task.task_type == "script" && task.script.is_some() {
                    if let Err(error) = ScriptJobs::new(&self.parts)
                        .start_check(&task_id, Some(item.clone()), false)
                        .await
                    {
                        tracing::warn!(error = %error.message(), task_id, "could not start a triggered script check");
                    }
                    continue;
                }
                match Executor::new(&self.parts)
                    .start_run_from(
                        &task_id,
                        RunStart {
                            trigger_event_data: Some(item.clone()),
                            ..RunStart::default()
                        },
                    )
                    .await
                {
                    Ok(run_id) => {
                        tracing::info!(task_id, run_id, source, event, "a triggered task started");
                        if let Some(key) = &key {
                            sqlx::query(
                                "UPDATE task_trigger_items SET run_id = ? WHERE task_id = ? AND item_id = ?",
                            )
                            .bind(&run_id)
                            .bind(&task_id)
                            .bind(key)
                            .execute(&pool)
                            .await
                            .map_err(|e| TaskError::internal(&e))?;
                        }
                        started.push(run_id);
                    }
                    Err(error) => {
                        // Not handled after all: a later delivery of the item may try again.
                        if let Some(key) = &key {
                            let _ = sqlx::query(
                                "DELETE FROM task_trigger_items WHERE task_id = ? AND item_id = ? AND run_id IS NULL",
                            )
                            .bind(&task_id)
                            .bind(key)
                            .execute(&pool)
                            .await;
                        }
                        tracing::warn!(error = %error.message(), task_id, "could not start a triggered run");
                    }
                }
            }
        }
        Ok(started)
    }

    /// After a run of a triggered task ends: when the task still shows `processing` but its
    /// only live runs wait for an answer, it goes back to `waiting_for_user`.
    async fn settle_triggered_task(&self, task_id: &str) -> Result<(), TaskError> {
        let changed = {
            let _one_at_a_time = self.parts.tasks().changes.lock().await;
            let mut record = match self.parts.tasks().store().task(task_id).await {
                Ok(record) => record,
                Err(super::store::TaskStoreError::NoTask(_)) => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            let triggered = record
                .task
                .schedule
                .as_ref()
                .is_some_and(Schedule::is_triggered);
            if !triggered || record.task.status != TaskStatus::Processing {
                return Ok(());
            }
            let live: Vec<(String,)> = sqlx::query_as(
                "SELECT DISTINCT status FROM task_runs
                 WHERE task_id = ? AND status IN ('processing', 'waiting_for_user')",
            )
            .bind(task_id)
            .fetch_all(self.parts.tasks().store().store.pool())
            .await
            .map_err(|e| TaskError::internal(&e))?;
            if live.len() != 1 || live[0].0 != "waiting_for_user" {
                return Ok(());
            }
            record.task.status = TaskStatus::WaitingForUser;
            record.task.updated_at = self.parts.clock().now();
            self.parts.tasks().store().save(&record).await?;
            true
        };
        if changed {
            self.parts.announce_task(task_id).await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn filter(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn hook_item(body: Value) -> Value {
        json!({"id": "w1", "name": "CI", "body": body, "received_at": "2025-01-01T00:00:00Z",
               "content_type": "application/json", "query": {}})
    }

    #[test]
    fn an_empty_filter_takes_everything() {
        assert!(filter_matches(&Map::new(), &hook_item(json!({}))));
        assert!(filter_matches(&Map::new(), &json!({"id": "x"})));
        assert!(filter_matches(&Map::new(), &json!(null)));
    }

    #[test]
    fn a_body_field_can_be_named_directly_or_by_its_path() {
        let item = hook_item(json!({"status": "failed", "build": {"number": 7}}));
        assert!(filter_matches(&filter(json!({"status": "failed"})), &item));
        assert!(filter_matches(
            &filter(json!({"body.status": "failed"})),
            &item
        ));
        assert!(filter_matches(&filter(json!({"build.number": 7})), &item));
        assert!(filter_matches(
            &filter(json!({"body.build.number": 7.0})),
            &item
        ));
        assert!(!filter_matches(&filter(json!({"status": "passed"})), &item));
        assert!(!filter_matches(
            &filter(json!({"body.status": "passed"})),
            &item
        ));
        assert!(!filter_matches(&filter(json!({"missing": "x"})), &item));
    }

    #[test]
    fn item_fields_match_and_win_over_body_fields() {
        let item = hook_item(json!({"name": "from the body", "status": "failed"}));
        assert!(filter_matches(&filter(json!({"name": "CI"})), &item));
        assert!(!filter_matches(
            &filter(json!({"name": "from the body"})),
            &item
        ));
        assert!(filter_matches(
            &filter(json!({"body.name": "from the body"})),
            &item
        ));
        assert!(filter_matches(&filter(json!({"id": "w1"})), &item));
    }

    #[test]
    fn every_key_must_match_with_json_equality() {
        let item =
            hook_item(json!({"status": "failed", "branch": "main", "count": 2, "ok": false}));
        assert!(filter_matches(
            &filter(json!({"status": "failed", "name": "CI", "body.branch": "main"})),
            &item
        ));
        assert!(!filter_matches(
            &filter(json!({"status": "failed", "branch": "dev"})),
            &item
        ));
        // Strings compare case-sensitively; types must agree.
        assert!(!filter_matches(&filter(json!({"status": "Failed"})), &item));
        assert!(!filter_matches(&filter(json!({"count": "2"})), &item));
        assert!(filter_matches(
            &filter(json!({"count": 2, "ok": false})),
            &item
        ));
        assert!(!filter_matches(&filter(json!({"ok": null})), &item));
        assert!(filter_matches(
            &filter(
                json!({"body": {"status": "failed", "branch": "main", "count": 2, "ok": false}})
            ),
            &item
        ));
    }

    #[test]
    fn non_object_bodies_and_arrays() {
        let text = hook_item(json!("status=failed"));
        assert!(!filter_matches(&filter(json!({"status": "failed"})), &text));
        assert!(filter_matches(
            &filter(json!({"body": "status=failed"})),
            &text
        ));
        let list = hook_item(json!({"jobs": [{"state": "red"}]}));
        assert!(filter_matches(
            &filter(json!({"jobs.0.state": "red"})),
            &list
        ));
        assert!(!filter_matches(
            &filter(json!({"jobs.1.state": "red"})),
            &list
        ));
        // Other sources' items match their own fields.
        let mail = json!({"id": "m1", "from": "boss@example.com", "subject": "Hi"});
        assert!(filter_matches(
            &filter(json!({"from": "boss@example.com"})),
            &mail
        ));
        assert!(!filter_matches(
            &filter(json!({"from": "other@example.com"})),
            &mail
        ));
    }

    #[test]
    fn item_ids_are_text_or_numbers() {
        assert_eq!(item_id(&json!({"id": "abc"})).as_deref(), Some("abc"));
        assert_eq!(item_id(&json!({"id": 42})).as_deref(), Some("42"));
        assert_eq!(item_id(&json!({"id": ""})), None);
        assert_eq!(item_id(&json!({"name": "x"})), None);
        assert_eq!(
            item_id(&json!({"id": "1", "message_id": "<a@b>"})).as_deref(),
            Some("<a@b>")
        );
    }
}
