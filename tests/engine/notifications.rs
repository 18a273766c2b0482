//! The notifications feed against a real engine: every route and its errors, the events on
//! `/ws`, unread counts, the feed surviving a restart, and the notifications planning sends
//! (a plan waiting for approval, questions, a planner that answers garbage), settled once the
//! plan is approved.

use anyhow::{Result, bail};
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::notifications::NewNotification;
use sentient_e2e::sentient_engine::tasks::model::RunStatus;
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Map, Value, json};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn notify(
    t: &TestEngine,
    title: &str,
    task_id: Option<&str>,
    payload: Value,
) -> Result<Value> {
    let saved = t
        .engine
        .services()
        .notifications()
        .notify(NewNotification {
            kind: "info".into(),
            title: title.into(),
            message: format!("About **{title}**."),
            payload: object(payload),
            task_id: task_id.map(str::to_owned),
        })
        .await
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    Ok(serde_json::to_value(saved)?)
}

fn titles(list: &Value) -> Vec<&str> {
    list["notifications"]
        .as_array()
        .map(|l| l.iter().filter_map(|n| n["title"].as_str()).collect())
        .unwrap_or_default()
}

async fn delete(t: &TestEngine, path: &str) -> Result<(u16, Value)> {
    sentient_e2e::send(t.client.request(reqwest::Method::DELETE, path)).await
}

#[tokio::test]
async fn the_feed_lists_reads_and_deletes_with_events() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;

    let (code, empty) = t.client.get("/api/notifications").await?;
    assert_eq!(code, 200);
    assert_eq!(empty, json!({"notifications": [], "unread": 0}));

    let first = notify(&t, "First", None, json!({})).await?;
    let event = ws.wait_for("notification.new").await?;
    assert_eq!(event["data"], first);
    assert_eq!(first["kind"], "info");
    assert_eq!(first["read"], false);
    assert_eq!(first["task_id"], Value::Null);
    assert!(first["created_at"].is_string());
    let second = notify(&t, "Second", Some("t1"), json!({"event": "x", "n": 2})).await?;
    ws.wait_for("notification.new").await?;
    notify(&t, "Third", None, json!({})).await?;
    ws.wait_for("notification.new").await?;

    let (code, list) = t.client.get("/api/notifications").await?;
    assert_eq!(code, 200);
    assert_eq!(titles(&list), ["Third", "Second", "First"]);
    assert_eq!(list["unread"], 3);
    assert_eq!(list["notifications"][1], second);
    let (_, list) = t.client.get("/api/notifications?limit=2").await?;
    assert_eq!(titles(&list), ["Third", "Second"]);
    assert_eq!(list["unread"], 3, "the count is the whole feed's");

    // Read one.
    let id = first["id"].as_str().expect("id");
    let (code, body) = t
        .client
        .post(&format!("/api/notifications/{id}/read"), json!({}))
        .await?;
    assert_eq!((code, &body), (200, &json!({"ok": true})));
    let event = ws.wait_for("notification.read").await?;
    assert_eq!(event["data"], json!({"id": id}));
    let (_, list) = t.client.get("/api/notifications?unread_only=true").await?;
    assert_eq!(titles(&list), ["Third", "Second"]);
    assert_eq!(list["unread"], 2);
    let (_, list) = t.client.get("/api/notifications?unread_only=false").await?;
    assert_eq!(list["notifications"][2]["read"], true);

    // A payload change is published whole.
    let changed = t
        .engine
        .services()
        .notifications()
        .update_notification_payload(
            second["id"].as_str().expect("id"),
            object(json!({"status": "approved", "n": 3})),
        )
        .await
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    let event = ws.wait_for("notification.updated").await?;
    assert_eq!(event["data"], serde_json::to_value(&changed)?);
    assert_eq!(
        event["data"]["payload"],
        json!({"event": "x", "n": 3, "status": "approved"})
    );
    let missing = t
        .engine
        .services()
        .notifications()
        .update_notification_payload("nope", Map::new())
        .await;
    assert_eq!(
        missing
            .err()
            .map(|e| sentient_e2e::sentient_engine::error::ApiError::from(e).status),
        Some(404)
    );

    // Read all.
    let (code, _) = t
        .client
        .post("/api/notifications/read-all", json!({}))
        .await?;
    assert_eq!(code, 200);
    let event = ws.wait_for("notification.read").await?;
    assert_eq!(event["data"], json!({"id": null}));
    let (_, list) = t.client.get("/api/notifications?unread_only=true").await?;
    assert_eq!(list, json!({"notifications": [], "unread": 0}));

    // Delete one, then all.
    let id = second["id"].as_str().expect("id");
    let (code, body) = delete(&t, &format!("/api/notifications/{id}")).await?;
    assert_eq!((code, &body), (200, &json!({"ok": true})));
    let event = ws.wait_for("notification.deleted").await?;
    assert_eq!(event["data"], json!({"id": id}));
    let (_, list) = t.client.get("/api/notifications").await?;
    assert_eq!(titles(&list), ["Third", "First"]);
    let (code, _) = delete(&t, "/api/notifications").await?;
    assert_eq!(code, 200);
    let event = ws.wait_for("notification.deleted").await?;
    assert_eq!(event["data"], json!({"id": null}));
    let (_, list) = t.client.get("/api/notifications").await?;
    assert_eq!(list, json!({"notifications": [], "unread": 0}));

    // Errors: plain sentences, nothing changes.
    let (code, body) = t
        .client
        .post("/api/notifications/nope/read", json!({}))
        .await?;
    assert_eq!(code, 404, "{body}");
    assert!(body["detail"].as_str().is_some_and(|d| d.contains("nope")));
    let (code, body) = delete(&t, "/api/notifications/nope").await?;
    assert_eq!(code, 404, "{body}");
    assert!(body["detail"].is_string());
    let (code, body) = t.client.get("/api/notifications?unread_only=maybe").await?;
    assert_eq!(code, 400, "{body}");
    assert!(body["detail"].is_string());
    let (code, body) = t.client.get("/api/notifications?limit=-1").await?;
    assert_eq!(code, 400, "{body}");
    // Empty lists and already-read feeds are fine to clear again.
    let (code, _) = t
        .client
        .post("/api/notifications/read-all", json!({}))
        .await?;
    assert_eq!(code, 200);
    let (code, _) = delete(&t, "/api/notifications").await?;
    assert_eq!(code, 200);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn limits_are_clamped_and_the_feed_outlives_a_restart() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let t = TestEngine::start_in(&home).await?;
    for i in 0..3 {
        notify(&t, &format!("N{i}"), None, json!({"i": i})).await?;
    }
    let (_, list) = t.client.get("/api/notifications?limit=0").await?;
    assert_eq!(titles(&list), ["N2"], "at least one");
    let (_, list) = t.client.get("/api/notifications?limit=100000").await?;
    assert_eq!(list["notifications"].as_array().map(Vec::len), Some(3));
    let id = list["notifications"][0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    t.client
        .post(&format!("/api/notifications/{id}/read"), json!({}))
        .await?;
    t.stop().await;

    let t = TestEngine::start_in(&home).await?;
    let (_, again) = t.client.get("/api/notifications").await?;
    assert_eq!(titles(&again), ["N2", "N1", "N0"]);
    assert_eq!(again["unread"], 2);
    assert_eq!(again["notifications"][0]["read"], true);
    assert_eq!(again["notifications"][2]["payload"], json!({"i": 0}));
    t.stop().await;
    Ok(())
}

async fn engine(server: &ScriptedModel) -> Result<TestEngine> {
    sentient_e2e::task_engine(server, "Europe/Berlin").await
}

fn refinement(name: &str) -> Reply {
    Reply::text(
        json!({"name": name, "description": format!("{name}, please."), "priority": 1, "schedule": null})
            .to_string(),
    )
}

/// Waits for a notification with `payload.event == event` in the feed.
async fn wait_notification(t: &TestEngine, event: &str) -> Result<Value> {
    sentient_e2e::eventually(&format!("a {event} notification"), || async {
        let (_, list) = t.client.get("/api/notifications").await?;
        Ok(list["notifications"]
            .as_array()
            .and_then(|l| l.iter().find(|n| n["payload"]["event"] == event))
            .cloned())
    })
    .await
}

async fn create_task(t: &TestEngine, prompt: &str) -> Result<String> {
    let (code, task) = t
        .client
        .post("/api/tasks", json!({"prompt": prompt}))
        .await?;
    if code != 200 {
        bail!("create failed: {code} {task}");
    }
    Ok(task["task_id"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn a_plan_waiting_for_approval_notifies_and_approving_settles_it() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let mut ws = t.ws().await?;
    server.push(refinement("Shopping note"));
    server.push(Reply::text(
        json!({"plan": [{"tool": "files_write", "description": "Write the list to a file"}]})
            .to_string(),
    ));
    let id = create_task(&t, "Write my shopping list: milk").await?;

    let event = ws.wait_for("notification.new").await?;
    let n = &event["data"];
    assert_eq!(n["kind"], "task");
    assert_eq!(n["task_id"], id.as_str());
    assert_eq!(n["title"], "Shopping note needs your approval");
    assert_eq!(
        n["message"],
        "Shopping note, please.\n\n1. Write the list to a file"
    );
    assert_eq!(
        n["payload"],
        json!({"task_id": id, "event": "approval_needed"})
    );
    assert_eq!(n["read"], false);
    let (_, list) = t.client.get("/api/notifications").await?;
    assert_eq!(list["unread"], 1);
    assert_eq!(&list["notifications"][0], n);

    // Approving settles it: payload.status "approved", read, published whole.
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    assert_eq!(code, 200, "{task}");
    t.engine
        .tasks()
        .settle_task_notifications(&id, "approval_needed", "approved")
        .await;
    let event = ws.wait_for("notification.updated").await?;
    assert_eq!(event["data"]["id"], n["id"]);
    assert_eq!(event["data"]["payload"]["status"], "approved");
    assert_eq!(event["data"]["read"], true);
    let (_, list) = t.client.get("/api/notifications").await?;
    assert_eq!(list["unread"], 0);
    assert_eq!(
        list["notifications"][0]["payload"],
        json!({"task_id": id, "event": "approval_needed", "status": "approved"})
    );
    // Settled once: nothing left waiting, nothing published again.
    assert!(
        t.engine
            .tasks()
            .settle_task_notifications(&id, "approval_needed", "declined")
            .await
            .is_empty()
    );

    // Where its notifications go besides the app, as JSON.
    let wire = |d| serde_json::to_value(d).expect("serialises");
    assert_eq!(
        wire(t.engine.tasks().delivery_for(&id).await),
        json!("default")
    );
    let chats = json!([{"channel": "telegram", "chat_id": "42"}]);
    let (code, _) = t
        .client
        .patch(&format!("/api/tasks/{id}"), json!({"deliver_to": chats}))
        .await?;
    assert_eq!(code, 200);
    assert_eq!(wire(t.engine.tasks().delivery_for(&id).await), chats);
    t.client
        .patch(
            &format!("/api/tasks/{id}"),
            json!({"deliver_to": "desktop"}),
        )
        .await?;
    assert_eq!(
        wire(t.engine.tasks().delivery_for(&id).await),
        json!("desktop")
    );
    assert_eq!(
        wire(t.engine.tasks().delivery_for("no-such-task").await),
        json!("desktop")
    );

    // The run helper the tasks service calls when a run ends.
    let sent = t
        .engine
        .tasks()
        .notify_run_finished(
            &id,
            "r1",
            RunStatus::Completed,
            Some("Your list is saved."),
            None,
        )
        .await
        .expect("run_completed");
    assert_eq!(sent.title, "Task completed: Shopping note");
    assert_eq!(sent.message, "Your list is saved.");
    assert_eq!(
        Value::Object(sent.payload),
        json!({"task_id": id, "event": "run_completed", "run_id": "r1", "summary": "Your list is saved."})
    );
    let event = ws.wait_for("notification.new").await?;
    assert_eq!(event["data"]["payload"]["event"], "run_completed");
    let sent = t
        .engine
        .tasks()
        .notify_run_finished(
            &id,
            "r2",
            RunStatus::Error,
            None,
            Some("The model is down."),
        )
        .await
        .expect("run_failed");
    assert_eq!(sent.title, "Task failed: Shopping note");
    assert_eq!(sent.message, "The model is down.");
    assert_eq!(
        Value::Object(sent.payload),
        json!({"task_id": id, "event": "run_failed", "run_id": "r2"})
    );
    assert!(
        t.engine
            .tasks()
            .notify_run_finished(&id, "r3", RunStatus::Cancelled, None, None)
            .await
            .is_none()
    );
    assert!(
        t.engine
            .tasks()
            .notify_run_finished("no-such-task", "r4", RunStatus::Completed, None, None)
            .await
            .is_none()
    );
    let (_, list) = t.client.get("/api/notifications").await?;
    assert_eq!(list["notifications"].as_array().map(Vec::len), Some(3));
    assert_eq!(list["unread"], 2);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn questions_from_the_planner_notify() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(refinement("Weather report"));
    server.push(Reply::text(
        json!({"clarifying_questions": ["Which city?", "Celsius or Fahrenheit?"]}).to_string(),
    ));
    let id = create_task(&t, "Tell me the weather every morning").await?;
    let n = wait_notification(&t, "clarification_needed").await?;
    assert_eq!(n["kind"], "task");
    assert_eq!(n["task_id"], id.as_str());
    assert_eq!(n["title"], "Weather report needs a few details");
    assert_eq!(n["message"], "- Which city?\n- Celsius or Fahrenheit?");
    assert_eq!(
        n["payload"],
        json!({"task_id": id, "event": "clarification_needed"})
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_planner_that_answers_garbage_sends_planning_failed() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(refinement("News digest"));
    server.push(Reply::text("Sure! I would love to plan that for you."));
    let id = create_task(&t, "Send me a news digest").await?;
    let n = wait_notification(&t, "planning_failed").await?;
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(task["status"], "error");
    assert_eq!(n["kind"], "task");
    assert_eq!(n["task_id"], id.as_str());
    assert_eq!(n["title"], "Couldn't plan News digest");
    assert_eq!(n["message"], task["error"]);
    assert!(
        n["message"]
            .as_str()
            .is_some_and(|m| m.contains("wrong shape"))
    );
    assert_eq!(
        n["payload"],
        json!({"task_id": id, "event": "planning_failed"})
    );
    // Only the failure was sent.
    let (_, list) = t.client.get("/api/notifications").await?;
    assert_eq!(list["notifications"].as_array().map(Vec::len), Some(1));
    t.stop().await;
    Ok(())
}
