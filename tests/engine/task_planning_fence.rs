//! Issue 42: a person's change that settles what planning would produce (a plan, schedule or
//! status set by PATCH, approve, decline, delete, Run now) ends the planning job in whatever
//! phase it is (a model call, the wait between retries, handling the failure), and nothing the
//! job does afterwards touches the task: no status, error or plan written, no `planning_failed`
//! or `approval_needed` notification. The engines here retry a failed model call twice, so the
//! planner spends real time between attempts.

use std::time::Duration;

use anyhow::Result;
use sentient_e2e::sentient_engine::llm::RetryPolicy;
use sentient_e2e::{TestEngine, eventually, stays, wait_chats, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

const RETRY: RetryPolicy = RetryPolicy {
    attempts: 2,
    backoff: Duration::from_millis(150),
};

/// How long one model call takes to fail when every attempt fails at once: the waits between
/// the attempts (`backoff × attempt`), plus room for the attempts themselves.
fn retry_span() -> Duration {
    let waits: u32 = (1..=RETRY.attempts).sum();
    RETRY.backoff * waits + Duration::from_millis(200)
}

/// An engine whose models are at `api_base`, with plan approval on (the default).
async fn engine_at(api_base: &str) -> Result<TestEngine> {
    let t = TestEngine::start_with_retry(RETRY).await?;
    let (code, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0,
                              "providers": {"ollama_chat": {"api_base": api_base},
                                            "ollama": {"api_base": api_base}}},
                   "assistant": {"timezone": "Europe/Berlin"}}),
        )
        .await?;
    anyhow::ensure!(code == 200, "{body}");
    Ok(t)
}

/// A loopback address where nothing listens (a newcomer without Ollama).
fn nothing_listens() -> Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    drop(listener);
    Ok(format!("http://127.0.0.1:{port}"))
}

/// The model server answering 503 to every attempt of the first `calls` model calls.
fn unavailable(server: &ScriptedModel, calls: u32) {
    for _ in 0..calls * (RETRY.attempts + 1) {
        server.push(Reply::error(503).message("Ollama is restarting"));
    }
}

async fn create(t: &TestEngine) -> Result<String> {
    let (code, task) = t
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "water the plants every morning"}),
        )
        .await?;
    anyhow::ensure!(code == 200 && task["status"] == "planning", "{task}");
    Ok(task["task_id"].as_str().unwrap_or_default().to_owned())
}

fn persons_plan() -> Value {
    json!([{"tool": "none", "description": "Remind me to water the plants"}])
}

/// The person's own plan and daily schedule, set while planning still runs.
async fn set_plan(t: &TestEngine, id: &str, status: &str) -> Result<Value> {
    let (code, task) = t
        .client
        .patch(
            &format!("/api/tasks/{id}"),
            json!({"plan": persons_plan(),
                   "schedule": {"type": "recurring", "frequency": "daily", "time": "07:00"},
                   "status": status}),
        )
        .await?;
    anyhow::ensure!(code == 200, "{task}");
    Ok(task)
}

/// Waits until the task's planning job has ended (it is forgotten only after its last write).
async fn planning_ended(t: &TestEngine, id: &str) -> Result<()> {
    eventually("the planning job ending", || async {
        Ok((!t.engine.tasks().tasks().is_running(id)).then_some(()))
    })
    .await
}

/// The feed's events for the task, in order.
async fn feed_events(t: &TestEngine, id: &str) -> Result<Vec<String>> {
    let (_, list) = t.client.get("/api/notifications").await?;
    Ok(list["notifications"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["task_id"] == id)
        .filter_map(|n| n["payload"]["event"].as_str().map(str::to_owned))
        .collect())
}

async fn approve(t: &TestEngine, id: &str) -> Result<()> {
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    anyhow::ensure!(code == 200 && task["status"] == "active", "{task}");
    Ok(())
}

#[tokio::test]
async fn a_plan_approved_while_the_model_is_unreachable_stays_active() -> Result<()> {
    let t = engine_at(&nothing_listens()?).await?;
    let id = create(&t).await?;
    set_plan(&t, &id, "approval_pending").await?;
    approve(&t, &id).await?;
    planning_ended(&t, &id).await?;
    // However long the planner would have gone on retrying, the task stays as the person left it.
    let path = format!("/api/tasks/{id}");
    stays("the approved task", retry_span() * 2, || async {
        let (_, task) = t.client.get(&path).await?;
        Ok(task["status"] == "active" && task["error"].is_null())
    })
    .await?;
    let (_, task) = t.client.get(&path).await?;
    assert_eq!(task["plan"], persons_plan());
    assert_eq!(task["schedule"]["type"], "recurring");
    assert_eq!(task["schedule"]["time"], "07:00");
    assert!(task["next_execution_at"].is_string(), "{task}");
    assert_eq!(feed_events(&t, &id).await?, Vec::<String>::new());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_plan_approved_between_retries_stays_active() -> Result<()> {
    let server = ScriptedModel::start().await;
    unavailable(&server, 2);
    let t = engine_at(&server.base_url()).await?;
    let id = create(&t).await?;
    // The first attempt failed: the planner now waits to try again.
    wait_chats(&server, 1).await?;
    set_plan(&t, &id, "approval_pending").await?;
    approve(&t, &id).await?;
    planning_ended(&t, &id).await?;
    let task = wait_task(&t, &id, |t| t["status"] == "active").await?;
    assert_eq!(task["plan"], persons_plan());
    assert!(task["error"].is_null(), "{task}");
    assert_eq!(feed_events(&t, &id).await?, Vec::<String>::new());
    // The job ended there: no further attempts were made for it.
    let asked = server.requests_to("/api/chat").len();
    assert!(
        asked < 2 * (RETRY.attempts as usize + 1),
        "{asked} model calls"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_plan_declined_between_retries_stays_declined() -> Result<()> {
    let server = ScriptedModel::start().await;
    unavailable(&server, 2);
    let t = engine_at(&server.base_url()).await?;
    let id = create(&t).await?;
    wait_chats(&server, 1).await?;
    set_plan(&t, &id, "approval_pending").await?;
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/decline"), json!({}))
        .await?;
    assert_eq!((code, &task["status"]), (200, &json!("declined")));
    planning_ended(&t, &id).await?;
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(task["status"], "declined");
    assert_eq!(task["plan"], persons_plan());
    assert!(task["error"].is_null(), "{task}");
    assert_eq!(feed_events(&t, &id).await?, Vec::<String>::new());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_task_deleted_between_retries_stays_gone() -> Result<()> {
    let server = ScriptedModel::start().await;
    unavailable(&server, 2);
    let t = engine_at(&server.base_url()).await?;
    let id = create(&t).await?;
    wait_chats(&server, 1).await?;
    let (code, _) = t.client.delete(&format!("/api/tasks/{id}")).await?;
    assert_eq!(code, 200);
    planning_ended(&t, &id).await?;
    let (code, _) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(code, 404);
    assert_eq!(feed_events(&t, &id).await?, Vec::<String>::new());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_task_run_now_between_retries_keeps_the_persons_plan() -> Result<()> {
    let server = ScriptedModel::start().await;
    unavailable(&server, 2);
    let t = engine_at(&server.base_url()).await?;
    let id = create(&t).await?;
    wait_chats(&server, 1).await?;
    set_plan(&t, &id, "active").await?;
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!(code, 200, "{task}");
    planning_ended(&t, &id).await?;
    // The run ends (its model answers with errors too) and the daily task is live again.
    let task = wait_task(&t, &id, |t| {
        t["status"] == "active"
            && t["runs"]
                .as_array()
                .is_some_and(|r| r.len() == 1 && r[0]["status"] == "error")
    })
    .await?;
    assert_eq!(task["plan"], persons_plan());
    // The feed's entry is written just after the run ends: waited for, not read once.
    let events = eventually("the run's failure in the feed", || async {
        let events = feed_events(&t, &id).await?;
        Ok(events.iter().any(|e| e == "run_failed").then_some(events))
    })
    .await?;
    assert!(!events.iter().any(|e| e == "planning_failed"), "{events:?}");
    assert_eq!(events, vec!["run_failed".to_owned()]);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_plan_held_back_by_the_model_is_dropped_after_the_persons_change() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.push(Reply::text(
        json!({"name": "Water the plants", "description": "Water them.", "priority": 1,
               "schedule": null})
        .to_string(),
    ));
    // The planner's answer is held back, word by word, until long after the person's change.
    server.push(
        Reply::text(
            json!({"plan": [{"tool": "none", "description": "The planner's own step"}]})
                .to_string(),
        )
        .chunk_delay(Duration::from_millis(300)),
    );
    let t = engine_at(&server.base_url()).await?;
    let id = create(&t).await?;
    wait_task(&t, &id, |t| t["name"] == "Water the plants").await?;
    wait_chats(&server, 2).await?;
    set_plan(&t, &id, "approval_pending").await?;
    approve(&t, &id).await?;
    planning_ended(&t, &id).await?;
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(task["status"], "active");
    assert_eq!(task["plan"], persons_plan());
    assert_eq!(feed_events(&t, &id).await?, Vec::<String>::new());
    t.stop().await;
    Ok(())
}
