//! What tasks leave in the feed, and that it stays true (issue 32): Run now shows its result in
//! place, so only its failure reaches the feed; a "Couldn't plan" notice is settled once the
//! task has a plan that is approved; a deleted task's notices say so; and reading a
//! notification never moves it.

use anyhow::Result;
use sentient_e2e::sentient_engine::tasks::model::RunStatus;
use sentient_e2e::{TestEngine, eventually, stays, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};
use std::time::Duration;

async fn engine(server: &ScriptedModel) -> Result<TestEngine> {
    sentient_e2e::task_engine(server, "Europe/Berlin").await
}

fn refinement(name: &str, schedule: Value) -> Reply {
    Reply::text(
        json!({"name": name, "description": name, "priority": 1, "schedule": schedule}).to_string(),
    )
}

fn plan() -> Reply {
    Reply::text(
        json!({"plan": [{"tool": "web_fetch", "description": "Read the news page"}]}).to_string(),
    )
}

/// The task's notifications, newest first: (event, payload, read).
async fn feed_of(t: &TestEngine, task_id: &str) -> Result<Vec<(String, Value, bool)>> {
    let (_, list) = t.client.get("/api/notifications").await?;
    Ok(list["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n["task_id"] == task_id)
        .map(|n| {
            (
                n["payload"]["event"].as_str().unwrap_or("").to_owned(),
                n["payload"].clone(),
                n["read"] == true,
            )
        })
        .collect())
}

async fn events_of(t: &TestEngine, task_id: &str) -> Result<Vec<String>> {
    Ok(feed_of(t, task_id)
        .await?
        .into_iter()
        .map(|(event, _, _)| event)
        .collect())
}

fn runs_ended(n: usize) -> impl Fn(&Value) -> bool {
    move |task: &Value| {
        let runs = task["runs"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        runs.len() == n
            && runs
                .last()
                .is_some_and(|r| r["status"] != "processing" && r["status"] != "waiting_for_user")
    }
}

#[tokio::test]
async fn run_now_shows_its_result_in_place_and_only_a_failure_reaches_the_feed() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(refinement(
        "Library news",
        json!({"type": "recurring", "frequency": "daily", "time": "08:00"}),
    ));
    server.push(plan());
    let (_, created) = t
        .client
        .post("/api/tasks", json!({"prompt": "Library news"}))
        .await?;
    let id = created["task_id"].as_str().unwrap_or_default().to_owned();
    wait_task(&t, &id, |t| t["status"] == "approval_pending").await?;
    let (code, _) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    assert_eq!(code, 200);

    // Run now that finishes: its result is on the run, and the feed gets no "Task completed".
    server.push(Reply::text("The reading room reopens on Monday."));
    let (code, body) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!(code, 200, "{body}");
    let done = wait_task(&t, &id, runs_ended(1)).await?;
    assert_eq!(done["runs"][0]["status"], "completed", "{done}");
    assert_eq!(
        done["runs"][0]["result"]["summary"],
        "The reading room reopens on Monday."
    );
    stays(
        "no Task completed for Run now",
        Duration::from_millis(500),
        || async {
            Ok(!events_of(&t, &id)
                .await?
                .contains(&"run_completed".to_owned()))
        },
    )
    .await?;

    // Run now that fails still says so in the feed.
    server.push(Reply::error(400));
    t.client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    let done = wait_task(&t, &id, runs_ended(2)).await?;
    assert_eq!(done["runs"][1]["status"], "error", "{done}");
    eventually("the run_failed notification", || async {
        Ok(events_of(&t, &id)
            .await?
            .contains(&"run_failed".to_owned())
            .then_some(()))
    })
    .await?;

    // A run nobody started by hand (the scheduler's, a trigger's) still tells the feed.
    let sent = t
        .engine
        .tasks()
        .notify_run_finished(
            &id,
            "scheduled-run",
            RunStatus::Completed,
            Some("Done."),
            None,
        )
        .await;
    assert_eq!(
        sent.map(|n| n.title),
        Some("Task completed: Library news".to_owned())
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_fixed_and_approved_plan_settles_couldnt_plan_and_a_deleted_task_says_so() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(refinement("News digest", Value::Null));
    server.push(Reply::text("Sure! I would love to plan that for you."));
    let (_, created) = t
        .client
        .post("/api/tasks", json!({"prompt": "Send me a news digest"}))
        .await?;
    let id = created["task_id"].as_str().unwrap_or_default().to_owned();
    wait_task(&t, &id, |t| t["status"] == "error").await?;
    let failed = eventually("the planning_failed notification", || async {
        Ok(feed_of(&t, &id)
            .await?
            .into_iter()
            .find(|(event, _, _)| event == "planning_failed"))
    })
    .await?;
    assert_eq!(failed.1, json!({"task_id": id, "event": "planning_failed"}));
    assert!(!failed.2, "unread while it still needs fixing");

    // Asked again, it plans; the notice waits until the plan is approved.
    server.push(plan());
    let (code, _) = t
        .client
        .post(
            &format!("/api/tasks/{id}/chat"),
            json!({"message": "Please try planning this again."}),
        )
        .await?;
    assert_eq!(code, 200);
    wait_task(&t, &id, |t| t["status"] == "approval_pending").await?;
    let notice = |feed: Vec<(String, Value, bool)>| {
        feed.into_iter()
            .find(|(event, _, _)| event == "planning_failed")
    };
    assert_eq!(
        notice(feed_of(&t, &id).await?).map(|(_, p, _)| p["status"].clone()),
        Some(Value::Null)
    );
    let mut ws = t.ws().await?;
    let (code, _) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    assert_eq!(code, 200);
    let (_, payload, read) = notice(feed_of(&t, &id).await?).expect("still in the feed");
    assert_eq!(payload["status"], "fixed");
    assert!(read, "a fixed task's notice no longer asks for anything");
    let updated = ws.wait_for("notification.updated").await?;
    assert_eq!(updated["data"]["task_id"], id.as_str());

    // Deleted: every notice about it says so and is read; the feed keeps them, in order.
    let (_, before) = t.client.get("/api/notifications").await?;
    let (code, _) = sentient_e2e::send(
        t.client
            .request(reqwest::Method::DELETE, &format!("/api/tasks/{id}")),
    )
    .await?;
    assert_eq!(code, 200);
    let feed = feed_of(&t, &id).await?;
    assert!(feed.len() >= 2, "{feed:?}");
    assert!(
        feed.iter()
            .all(|(_, payload, read)| payload["task_deleted"] == true && *read),
        "{feed:?}"
    );
    let (_, after) = t.client.get("/api/notifications").await?;
    let ids = |list: &Value| -> Vec<Value> {
        list["notifications"]
            .as_array()
            .map(|l| l.iter().map(|n| n["id"].clone()).collect())
            .unwrap_or_default()
    };
    assert_eq!(ids(&before), ids(&after));
    // Another task's notices are left as they were.
    let other = t
        .engine
        .services()
        .notifications()
        .notify(
            sentient_e2e::sentient_engine::notifications::NewNotification {
                kind: "task".into(),
                title: "Other".into(),
                message: String::new(),
                payload: serde_json::Map::from_iter([("event".to_owned(), json!("run_failed"))]),
                task_id: Some("another-task".into()),
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    assert!(t.engine.tasks().delete_task(&id).await.is_err(), "gone");
    let (_, list) = t.client.get("/api/notifications").await?;
    let kept = list["notifications"]
        .as_array()
        .and_then(|l| l.iter().find(|n| n["id"] == other.id.as_str()).cloned())
        .expect("kept");
    assert_eq!(kept["payload"]["task_deleted"], Value::Null);
    assert_eq!(kept["read"], false);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn reading_a_notification_never_moves_it() -> Result<()> {
    let t = TestEngine::start().await?;
    let feed = t.engine.services().notifications();
    let mut ids = Vec::new();
    for title in ["04:06", "04:15", "04:20"] {
        let n = feed
            .notify(
                sentient_e2e::sentient_engine::notifications::NewNotification {
                    kind: "info".into(),
                    title: title.into(),
                    message: String::new(),
                    payload: serde_json::Map::new(),
                    task_id: None,
                },
            )
            .await
            .map_err(|e| anyhow::anyhow!(e.to_string()))?;
        ids.push(n.id);
    }
    let titles = |list: &Value| -> Vec<String> {
        list["notifications"]
            .as_array()
            .map(|l| {
                l.iter()
                    .filter_map(|n| n["title"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    // Read the middle one, then the newest: the order is still newest first.
    for id in [&ids[1], &ids[2]] {
        let (code, _) = t
            .client
            .post(&format!("/api/notifications/{id}/read"), json!({}))
            .await?;
        assert_eq!(code, 200);
        let (_, list) = t.client.get("/api/notifications").await?;
        assert_eq!(titles(&list), ["04:20", "04:15", "04:06"]);
    }
    t.stop().await;
    Ok(())
}
