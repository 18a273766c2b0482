//! Script jobs (contract section 16, "Script jobs"; issue 36 part 2), with real Python and
//! bubblewrap, a loopback page the scripts read through `web_fetch`, the scripted model server
//! and a clock the tests move: "tell me when the page says in stock" becomes a watch that
//! alerts once with no model call per check; each condition, both thens, a webhook-triggered
//! job, failure and recovery told once each, approve's 409, the planner's one repair and its
//! failure, PATCH merging a partial script, `script/test`, and Stop everything ending a check.

use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, ensure};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse};
use chrono::{DateTime, Utc};
use sentient_e2e::sentient_engine::bus::DomainEvent;
use sentient_e2e::sentient_engine::clock::{Clock, ManualClock, SharedClock};
use sentient_e2e::sentient_engine::sync::MutexExt;
use sentient_e2e::{TestEngine, eventually, serve_on_loopback, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// A page the scripts read: its text, or a server error while `failing`.
#[derive(Clone, Default)]
struct Page {
    text: Arc<Mutex<String>>,
    failing: Arc<Mutex<bool>>,
}

impl Page {
    async fn serve(text: &str) -> Result<(Self, String)> {
        let page = Self::default();
        page.set(text);
        let app = axum::Router::new()
            .route("/item", axum::routing::get(item))
            .with_state(page.clone());
        let url = serve_on_loopback(app, "/item").await?;
        Ok((page, url))
    }

    fn set(&self, text: &str) {
        *self.text.lock_unpoisoned() = text.to_owned();
    }

    fn fail(&self, failing: bool) {
        *self.failing.lock_unpoisoned() = failing;
    }
}

async fn item(State(page): State<Page>) -> axum::response::Response {
    if *page.failing.lock_unpoisoned() {
        return (StatusCode::INTERNAL_SERVER_ERROR, "down").into_response();
    }
    let text = page.text.lock_unpoisoned().clone();
    Html(format!(
        "<html><head><title>Blue kettle</title></head><body><main><h1>Blue kettle</h1><p>{text}</p></main></body></html>"
    ))
    .into_response()
}

/// A script that reads the page and gives its paragraph.
fn read_page(url: &str) -> String {
    format!(
        "from sentient_tools import tools, result\npage = tools.web_fetch(url=\"{url}\")\nresult(page[\"content\"].splitlines()[-1].strip())\n"
    )
}

/// A script that raises an alert once the page says in stock.
fn in_stock_alert(url: &str) -> String {
    format!(
        "from sentient_tools import tools, result\ntext = tools.web_fetch(url=\"{url}\")[\"content\"].lower()\nif \"in stock\" in text and \"out of stock\" not in text:\n    result({{\"alert\": True, \"message\": \"The kettle is in stock.\"}})\n"
    )
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("valid time")
        .with_timezone(&Utc)
}

/// An engine on a clock the test moves (09:00 UTC), its models a new scripted server, tasks
/// waiting for approval.
async fn engine() -> Result<(ScriptedModel, ManualClock, TestEngine)> {
    let server = ScriptedModel::start().await;
    let clock = ManualClock::new(at("2026-12-07T09:00:00Z"));
    let shared: SharedClock = Arc::new(clock.clone());
    let t = TestEngine::start_with_clock(shared).await?;
    sentient_e2e::point_models_at(&t, &server).await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0},
                   "assistant": {"timezone": "UTC"},
                   "tasks": {"require_plan_approval": true}}),
        )
        .await?;
    ensure!(status == 200, "{body}");
    Ok((server, clock, t))
}

/// The planner's two answers for a watch: the refinement, then the plan with its script.
fn plan_watch(server: &ScriptedModel, name: &str, schedule: Value, script: Value) {
    server.push(Reply::text(
        json!({"name": name, "description": name, "priority": 1, "schedule": null}).to_string(),
    ));
    server.push(Reply::text(
        json!({"plan": [{"tool": "web_fetch", "description": "Read the page"}],
               "script": script, "schedule": schedule})
        .to_string(),
    ));
}

/// A script job made through the planner and approved; its id.
async fn approved_job(
    t: &TestEngine,
    server: &ScriptedModel,
    name: &str,
    schedule: Value,
    script: Value,
) -> Result<String> {
    plan_watch(server, name, schedule, script);
    let (status, task) = t.client.post("/api/tasks", json!({"prompt": name})).await?;
    ensure!(status == 200, "{task}");
    let id = task["task_id"].as_str().context("id")?.to_owned();
    wait_task(t, &id, |t| t["status"] == "approval_pending").await?;
    let (status, body) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    ensure!(status == 200, "approve: {status} {body}");
    Ok(id)
}

/// Moves the clock to the task's next time and lets the scheduler start its check; waits
/// until the check has written what it found (`last_run_at` moved on) and the task is back.
async fn check_due(t: &TestEngine, clock: &ManualClock, id: &str) -> Result<Value> {
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    let before = task["script"]["last_run_at"].clone();
    let next = task["next_execution_at"]
        .as_str()
        .context("the job has a next time")?;
    clock.set(at(next) + chrono::Duration::seconds(1));
    t.engine
        .tasks()
        .scheduler_tick(clock.now())
        .await
        .map_err(|e| anyhow::anyhow!(e.message()))?;
    wait_task(t, id, |t| {
        t["script"]["last_run_at"] != before && t["status"] != "processing"
    })
    .await
}

/// An engine with an hourly "Kettle price" watch (`changed`, `notify`) on a page that says
/// "Price 40", approved and checked once.
struct PriceWatch {
    _page: Page,
    url: String,
    _server: ScriptedModel,
    clock: ManualClock,
    t: TestEngine,
    job: String,
}

async fn price_watch() -> Result<PriceWatch> {
    let (page, url) = Page::serve("Price 40").await?;
    let (server, clock, t) = engine().await?;
    let job = approved_job(
        &t,
        &server,
        "Kettle price",
        json!({"type": "recurring", "frequency": "interval", "interval_minutes": 60}),
        json!({"code": read_page(&url), "condition": "changed", "then": "notify"}),
    )
    .await?;
    let task = check_due(&t, &clock, &job).await?;
    assert_eq!(task["script"]["last_result"], "Price 40");
    Ok(PriceWatch {
        _page: page,
        url,
        _server: server,
        clock,
        t,
        job,
    })
}

/// The task's notifications, oldest first: (event, title, message, payload).
async fn feed(t: &TestEngine, id: &str) -> Result<Vec<(String, String, String, Value)>> {
    let (_, list) = t.client.get("/api/notifications").await?;
    let mut found: Vec<_> = list["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n["task_id"] == id)
        .map(|n| {
            (
                n["payload"]["event"].as_str().unwrap_or("").to_owned(),
                n["title"].as_str().unwrap_or("").to_owned(),
                n["message"].as_str().unwrap_or("").to_owned(),
                n["payload"].clone(),
            )
        })
        .collect();
    found.reverse();
    Ok(found)
}

async fn events_of(t: &TestEngine, id: &str, event: &str) -> Result<Vec<Value>> {
    Ok(feed(t, id)
        .await?
        .into_iter()
        .filter(|n| n.0 == event)
        .map(|n| n.3)
        .collect())
}

/// Waits until the task's feed holds `n` notifications of `event` (they are sent just after the
/// check writes what it found), and fails if there are more.
async fn expect_events(t: &TestEngine, id: &str, event: &str, n: usize) -> Result<Vec<Value>> {
    let found = eventually(&format!("{n} {event} notifications"), || async {
        let found = events_of(t, id, event).await?;
        Ok((found.len() >= n).then_some(found))
    })
    .await?;
    ensure!(
        found.len() == n,
        "{} {event} notifications, not {n}: {found:#?}",
        found.len()
    );
    Ok(found)
}

#[tokio::test]
async fn tell_me_when_the_page_says_in_stock_alerts_once_with_no_model_call_per_check() -> Result<()>
{
    let (page, url) = Page::serve("Out of stock").await?;
    let (server, clock, t) = engine().await?;
    // The planner leaves the schedule to "now": a watch then checks every hour.
    plan_watch(
        &server,
        "Kettle back in stock",
        Value::Null,
        json!({"code": in_stock_alert(&url), "condition": "alert", "then": "notify"}),
    );
    let (_, task) = t
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "Tell me when the test page says in stock"}),
        )
        .await?;
    let id = task["task_id"].as_str().context("id")?.to_owned();
    let task = wait_task(&t, &id, |t| t["status"] == "approval_pending").await?;
    assert_eq!(task["task_type"], "script", "{task:#}");
    assert_eq!(task["script"]["condition"], "alert");
    assert_eq!(task["script"]["then"], "notify");
    assert_eq!(task["script"]["last_result"], Value::Null);
    assert!(
        task["script"]["code"]
            .as_str()
            .unwrap_or("")
            .contains("web_fetch")
    );
    assert_eq!(task["schedule"]["frequency"], "interval", "{task:#}");
    assert_eq!(task["schedule"]["interval_minutes"], 60);
    // The watch waits for approval like a plan.
    expect_events(&t, &id, "approval_needed", 1).await?;

    t.client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    let task = wait_task(&t, &id, |t| t["status"] == "active").await?;
    assert_eq!(
        task["next_execution_at"].as_str().map(|s| &s[..16]),
        Some("2026-12-07T10:00"),
        "{task:#}"
    );
    let model_calls = server.requests_to("/api/chat").len();

    let checked = check_due(&t, &clock, &id).await?;
    assert_eq!(checked["status"], "active");
    assert_eq!(checked["script"]["last_error"], Value::Null, "{checked:#}");
    assert_eq!(checked["runs"], json!([]), "a check is no run");
    assert!(events_of(&t, &id, "script_alert").await?.is_empty());

    page.set("In stock: ships tomorrow");
    let checked = check_due(&t, &clock, &id).await?;
    assert_eq!(checked["status"], "active");
    assert_eq!(checked["runs"], json!([]));
    let alerts = eventually("the alert", || async {
        let alerts = events_of(&t, &id, "script_alert").await?;
        Ok((!alerts.is_empty()).then_some(alerts))
    })
    .await?;
    assert_eq!(alerts.len(), 1, "{alerts:#?}");
    assert_eq!(alerts[0]["task_id"], id.as_str());
    assert_eq!(alerts[0]["result"]["alert"], true);
    let notes = feed(&t, &id).await?;
    let alert = notes
        .iter()
        .find(|n| n.0 == "script_alert")
        .context("alert")?;
    assert_eq!(
        alert.1, "Kettle back in stock",
        "titled with the task's name"
    );
    assert_eq!(alert.2, "The kettle is in stock.");
    assert_eq!(
        server.requests_to("/api/chat").len(),
        model_calls,
        "no model call for any check"
    );
    Ok(())
}

#[tokio::test]
async fn changed_and_every_run_act_on_their_values_and_failures_are_told_once_each_way()
-> Result<()> {
    let (page, url) = Page::serve("Price 40").await?;
    let (server, clock, t) = engine().await?;
    let every_30 = json!({"type": "recurring", "frequency": "interval", "interval_minutes": 30});
    let changed = approved_job(
        &t,
        &server,
        "Kettle price",
        every_30.clone(),
        json!({"code": read_page(&url), "condition": "changed", "then": "notify"}),
    )
    .await?;

    // The first value is only the baseline; the same value again is quiet.
    let task = check_due(&t, &clock, &changed).await?;
    assert_eq!(task["script"]["last_result"], "Price 40", "{task:#}");
    check_due(&t, &clock, &changed).await?;
    assert!(events_of(&t, &changed, "script_alert").await?.is_empty());
    page.set("Price 35");
    let task = check_due(&t, &clock, &changed).await?;
    assert_eq!(task["script"]["last_result"], "Price 35");
    let alerts = expect_events(&t, &changed, "script_alert", 1).await?;
    assert_eq!(alerts[0]["result"], "Price 35");
    let notes = feed(&t, &changed).await?;
    assert!(
        notes.iter().any(|n| n.2 == "It changed: Price 35"),
        "{notes:#?}"
    );

    // Two failures tell once, keep the last value, and the recovery tells once.
    page.fail(true);
    let task = check_due(&t, &clock, &changed).await?;
    assert_eq!(
        task["script"]["last_result"], "Price 35",
        "a failure keeps the value"
    );
    let why = task["script"]["last_error"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(why.contains("line"), "the error names the line: {why}");
    check_due(&t, &clock, &changed).await?;
    expect_events(&t, &changed, "script_failed", 1).await?;
    page.fail(false);
    let task = check_due(&t, &clock, &changed).await?;
    assert_eq!(task["script"]["last_error"], Value::Null);
    expect_events(&t, &changed, "script_recovered", 1).await?;
    check_due(&t, &clock, &changed).await?;
    expect_events(&t, &changed, "script_recovered", 1).await?;
    expect_events(&t, &changed, "script_failed", 1).await?;
    expect_events(&t, &changed, "script_alert", 1).await?;

    // Every run reports the same value each time; empty output stays quiet.
    let every = approved_job(
        &t,
        &server,
        "Kettle report",
        every_30,
        json!({"code": read_page(&url), "condition": "every_run", "then": "notify"}),
    )
    .await?;
    check_due(&t, &clock, &every).await?;
    check_due(&t, &clock, &every).await?;
    expect_events(&t, &every, "script_alert", 2).await?;
    let notes = feed(&t, &every).await?;
    assert!(
        notes
            .iter()
            .filter(|n| n.0 == "script_alert")
            .all(|n| n.2 == "Price 35")
    );
    let (status, _) = t
        .client
        .patch(
            &format!("/api/tasks/{every}"),
            json!({"script": {"code": "print('   ')"}}),
        )
        .await?;
    assert_eq!(status, 200);
    check_due(&t, &clock, &every).await?;
    expect_events(&t, &every, "script_alert", 2).await?;
    Ok(())
}

#[tokio::test]
async fn then_run_starts_a_model_run_told_the_value_and_a_webhook_job_reads_its_event() -> Result<()>
{
    let (_page, url) = Page::serve("Price 40").await?;
    let (server, clock, t) = engine().await?;
    let job = approved_job(
        &t,
        &server,
        "Kettle deal",
        json!({"type": "recurring", "frequency": "interval", "interval_minutes": 60}),
        json!({"code": read_page(&url), "condition": "every_run", "then": "run"}),
    )
    .await?;
    server.push(Reply::text("The kettle costs 40 now."));
    check_due(&t, &clock, &job).await?;
    let task = wait_task(&t, &job, |t| {
        t["runs"].as_array().is_some_and(|r| r.len() == 1) && t["runs"][0]["status"] == "completed"
    })
    .await?;
    let data = &task["runs"][0]["trigger_event_data"];
    assert_eq!(data["script_result"], "Price 40", "{task:#}");
    assert_eq!(data["message"], "Price 40");
    assert!(
        events_of(&t, &job, "script_alert").await?.is_empty(),
        "run, not notify"
    );

    // A webhook-triggered job gets the event as `trigger_event`.
    let hooked = approved_job(
        &t,
        &server,
        "Deploy alerts",
        json!({"type": "triggered", "source": "webhook", "event": "h1", "filter": {}}),
        json!({"code": "from sentient_tools import result\nif trigger_event['body']['status'] == 'failed':\n    result({'alert': True, 'message': 'Deploy ' + trigger_event['body']['app'] + ' failed'})\n",
               "condition": "alert", "then": "notify"}),
    )
    .await?;
    wait_task(&t, &hooked, |t| t["status"] == "active").await?;
    let calls = server.requests_to("/api/chat").len();
    for (id, status) in [("d1", "ok"), ("d2", "failed")] {
        t.engine.services().bus().publish(DomainEvent::SourceItems {
            source: "webhook".to_owned(),
            event: "h1".to_owned(),
            origin: "webhook".to_owned(),
            items: vec![json!({"id": id, "name": "Deploys", "body": {"status": status, "app": "shop"},
                               "received_at": "2026-12-07T09:00:00Z", "content_type": "application/json", "query": {}})],
        });
    }
    let alerts = eventually("the deploy alert", || async {
        let alerts = events_of(&t, &hooked, "script_alert").await?;
        Ok((!alerts.is_empty()).then_some(alerts))
    })
    .await?;
    assert_eq!(alerts[0]["result"]["message"], "Deploy shop failed");
    let task = wait_task(&t, &hooked, |t| {
        t["status"] == "active" && !t["script"]["last_run_at"].is_null()
    })
    .await?;
    assert_eq!(task["runs"], json!([]));
    expect_events(&t, &hooked, "script_alert", 1).await?;
    assert_eq!(server.requests_to("/api/chat").len(), calls);
    Ok(())
}

#[tokio::test]
async fn the_planner_gets_one_repair_and_approve_refuses_code_that_does_not_compile() -> Result<()>
{
    let (server, _clock, t) = engine().await?;
    let watch = |code: &str| json!({"code": code, "condition": "changed", "then": "notify"});
    // Broken, then fixed: the task waits with the fixed code.
    server.push(Reply::text(
        json!({"name": "Watch", "description": "Watch it", "priority": 1, "schedule": null})
            .to_string(),
    ));
    server.push(Reply::text(
        json!({"plan": [], "script": watch("print('a'")}).to_string(),
    ));
    server.push(Reply::text(
        json!({"plan": [], "script": watch("print('a')")}).to_string(),
    ));
    let (_, task) = t
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "Check every hour whether it changed"}),
        )
        .await?;
    let fixed = task["task_id"].as_str().context("id")?.to_owned();
    let task = wait_task(&t, &fixed, |t| t["status"] == "approval_pending").await?;
    assert_eq!(task["script"]["code"], "print('a')");
    assert_eq!(
        task["plan"][0]["tool"], "execute_code",
        "a step describes the script"
    );
    let repair = server.requests_to("/api/chat");
    let last = repair
        .last()
        .context("the repair request")?
        .body
        .to_string();
    assert!(
        last.contains("does not compile"),
        "the planner is told why: {last}"
    );

    // Broken twice: planning fails with a readable error.
    server.push(Reply::text(
        json!({"name": "Watch 2", "description": "Watch it", "priority": 1, "schedule": null})
            .to_string(),
    ));
    server.push(Reply::text(json!({"script": watch("if:")}).to_string()));
    server.push(Reply::text(json!({"script": watch("if:")}).to_string()));
    let (_, task) = t
        .client
        .post("/api/tasks", json!({"prompt": "Tell me when it changes"}))
        .await?;
    let broken = task["task_id"].as_str().context("id")?.to_owned();
    let task = wait_task(&t, &broken, |t| t["status"] == "error").await?;
    let error = task["error"].as_str().unwrap_or("");
    assert!(
        error.starts_with("The planner wrote a script for this watch that doesn't compile"),
        "{error}"
    );
    assert!(error.contains("line 1"), "{error}");
    expect_events(&t, &broken, "planning_failed", 1).await?;

    // Approve answers 409 for code that does not compile (written while no check could run).
    let (status, _) = t
        .client
        .patch(
            &format!("/api/tasks/{fixed}"),
            json!({"script": {"code": "while True print(1)"}}),
        )
        .await?;
    assert_eq!(
        status, 400,
        "a PATCH never stores code that does not compile"
    );
    let mut record = t
        .engine
        .tasks()
        .tasks()
        .store()
        .task(&fixed)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(script) = record.task.script.as_mut() {
        script.code = "while True print(1)".to_owned();
    }
    t.engine
        .tasks()
        .tasks()
        .store()
        .save(&record)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let (status, body) = t
        .client
        .post(&format!("/api/tasks/{fixed}/approve"), json!({}))
        .await?;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or("")
            .contains("syntax error on line 1"),
        "{body}"
    );
    let (_, task) = t.client.get(&format!("/api/tasks/{fixed}")).await?;
    assert_eq!(task["status"], "approval_pending", "nothing changed");
    Ok(())
}

#[tokio::test]
async fn patch_merges_a_partial_script_and_script_test_leaves_the_findings_alone() -> Result<()> {
    let PriceWatch {
        url, clock, t, job, ..
    } = price_watch().await?;
    let path = format!("/api/tasks/{job}");

    // `then` alone keeps what the checks found; a condition starts afresh.
    let (status, task) = t
        .client
        .patch(&path, json!({"script": {"then": "run"}}))
        .await?;
    assert_eq!(status, 200, "{task}");
    assert_eq!(task["script"]["then"], "run");
    assert_eq!(task["script"]["last_result"], "Price 40");
    let (_, task) = t
        .client
        .patch(&path, json!({"script": {"condition": "every_run"}}))
        .await?;
    assert_eq!(task["script"]["last_result"], Value::Null);
    assert_eq!(task["script"]["last_run_at"], Value::Null);
    assert_eq!(
        task["script"]["code"],
        read_page(&url).as_str(),
        "the code is kept"
    );

    // Wrong shapes and code that does not compile change nothing.
    for (body, words) in [
        (
            json!({"script": {"code": "def f(:\n  pass"}}),
            "syntax error on line 1",
        ),
        (
            json!({"script": {"condition": "sometimes"}}),
            "not a script condition",
        ),
        (json!({"script": {"then": "email"}}), "notify or run"),
        (json!({"script": "print(1)"}), "object"),
    ] {
        let (status, answer) = t.client.patch(&path, body.clone()).await?;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["detail"].as_str().unwrap_or("").contains(words),
            "{answer}"
        );
    }
    let (_, task) = t.client.get(&path).await?;
    assert_eq!(task["script"]["condition"], "every_run");

    // script/test: the stored script, or other code, run once without touching the findings.
    let check = check_due(&t, &clock, &job).await?;
    let found = check["script"].clone();
    let test = format!("{path}/script/test");
    let (status, result) = t.client.post(&test, json!({})).await?;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["result"], "Price 40");
    assert_eq!(result["tool_calls"], 1);
    let (_, result) = t
        .client
        .post(&test, json!({"code": "print('hello')"}))
        .await?;
    assert_eq!(result["stdout"], "hello\n");
    let (status, answer) = t.client.post(&test, json!({"code": "print("})).await?;
    assert_eq!(status, 400, "{answer}");
    let (_, task) = t.client.get(&path).await?;
    assert_eq!(task["script"], found, "tests leave the findings alone");

    // null makes it a normal task; a script on a normal task makes it a script job.
    let (_, task) = t.client.patch(&path, json!({"script": null})).await?;
    assert_eq!(
        (task["task_type"].clone(), task["script"].clone()),
        (json!("single"), Value::Null)
    );
    let (status, answer) = t.client.post(&test, json!({})).await?;
    assert_eq!(status, 409, "{answer}");
    let (status, _) = t
        .client
        .patch(&path, json!({"script": {"condition": "alert"}}))
        .await?;
    assert_eq!(status, 400, "a new script needs its code");
    let (_, task) = t
        .client
        .patch(
            &path,
            json!({"script": {"code": "print(1)", "condition": "alert"}}),
        )
        .await?;
    assert_eq!(task["task_type"], "script");
    assert_eq!(task["script"]["then"], "notify");
    let (status, _) = t
        .client
        .post("/api/tasks/nope/script/test", json!({}))
        .await?;
    assert_eq!(status, 404);
    Ok(())
}

#[tokio::test]
async fn stop_everything_ends_a_check_without_a_verdict() -> Result<()> {
    let (server, _clock, t) = engine().await?;
    let job = approved_job(
        &t,
        &server,
        "Slow watch",
        json!({"type": "recurring", "frequency": "interval", "interval_minutes": 60}),
        json!({"code": "import time\ntime.sleep(60)\nprint('late')\n", "condition": "every_run", "then": "notify"}),
    )
    .await?;
    let path = format!("/api/tasks/{job}");
    let (status, task) = t.client.post(&format!("{path}/run-now"), json!({})).await?;
    assert_eq!(status, 200, "{task}");
    assert_eq!(task["status"], "processing");
    let (status, _) = t.client.post(&format!("{path}/run-now"), json!({})).await?;
    assert_eq!(status, 409, "one check at a time");
    // Stopped while its script runs: the run's folder is there.
    let runs = t.engine.services().home().root().join("sandbox");
    eventually("the check's script running", || async {
        let running = std::fs::read_dir(&runs)
            .map(|d| {
                d.flatten()
                    .any(|e| e.path().join(".sentient/script.py").is_file())
            })
            .unwrap_or(false);
        Ok(running.then_some(()))
    })
    .await?;
    let (status, _) = t
        .client
        .post("/api/stop-all", json!({"source": "desktop"}))
        .await?;
    assert_eq!(status, 200);
    let task = wait_task(&t, &job, |t| t["status"] == "active").await?;
    assert_eq!(task["script"]["last_error"], Value::Null, "{task:#}");
    assert_eq!(task["script"]["last_run_at"], Value::Null);
    assert!(events_of(&t, &job, "script_failed").await?.is_empty());
    let (status, _) = t.client.post("/api/resume", json!({})).await?;
    assert_eq!(status, 200);
    Ok(())
}

#[tokio::test]
async fn update_task_changes_a_script_and_new_code_waits_for_approval_again() -> Result<()> {
    let PriceWatch { t, job, .. } = price_watch().await?;
    let call = |name: &'static str, args: Value| {
        let engine = t.engine.clone();
        async move {
            let ctx = engine.services().agent().tool_ctx("call_1");
            engine
                .services()
                .tools()
                .invoke(name, args, &ctx, 16_000)
                .await
        }
    };
    let read = call("get_task_status", json!({"task_id": job})).await;
    assert_eq!(
        read.value["script"]["last_result"], "Price 40",
        "{}",
        read.content
    );

    // What follows changes at once and keeps the findings; the job stays live.
    let then = call("update_task", json!({"task_id": job, "script_then": "run"})).await;
    assert!(!then.is_error, "{}", then.content);
    assert_eq!(then.value["script"]["then"], "run");
    assert_eq!(then.value["status"], "active");
    let wrong = call(
        "update_task",
        json!({"task_id": job, "script_condition": "often"}),
    )
    .await;
    assert!(
        wrong.is_error && wrong.content.contains("not a script condition"),
        "{}",
        wrong.content
    );
    let broken = call(
        "update_task",
        json!({"task_id": job, "script_code": "print("}),
    )
    .await;
    assert!(
        broken.is_error && broken.content.contains("syntax error"),
        "{}",
        broken.content
    );

    // New code from the assistant waits for the person's approval again.
    let before = events_of(&t, &job, "approval_needed").await?.len();
    let code = call(
        "update_task",
        json!({"task_id": job, "script_code": "print('Price 41')"}),
    )
    .await;
    assert!(!code.is_error, "{}", code.content);
    assert_eq!(code.value["status"], "approval_pending", "{}", code.content);
    assert_eq!(
        code.value["script"]["last_result"],
        Value::Null,
        "new code starts afresh"
    );
    let (_, task) = t.client.get(&format!("/api/tasks/{job}")).await?;
    assert_eq!(
        task["next_execution_at"],
        Value::Null,
        "it does not run meanwhile"
    );
    expect_events(&t, &job, "approval_needed", before + 1).await?;
    Ok(())
}
