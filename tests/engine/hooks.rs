//! Webhooks against a real engine: the hooks routes, every status of `POST /hooks/{id}` and
//! the order of its checks, the per-hook rate limit on a manual clock, body kinds and the size
//! limit, `source.items` published exactly once under concurrent calls, nothing published while
//! stopped, the secret never in the log, and the shared "already seen" record.

use std::collections::HashSet;
use std::sync::Arc;

use anyhow::{Result, bail};
use chrono::{Duration, TimeZone, Utc};
use reqwest::Method;
use sentient_e2e::sentient_engine::bus::{DomainEvent, Envelope};
use sentient_e2e::sentient_engine::clock::ManualClock;
use sentient_e2e::{TestEngine, WAIT, send};
use serde_json::{Value, json};
use tokio::sync::broadcast;

/// Makes a hook and returns (id, secret).
async fn hook(t: &TestEngine, name: &str) -> Result<(String, String)> {
    let (status, body) = t.client.post("/api/hooks", json!({ "name": name })).await?;
    if status != 200 {
        bail!("create hook: {status} {body}");
    }
    Ok((
        body["id"].as_str().unwrap_or_default().to_owned(),
        body["secret"].as_str().unwrap_or_default().to_owned(),
    ))
}

fn call(t: &TestEngine, id: &str, secret: Option<&str>) -> reqwest::RequestBuilder {
    let request = t.client.anonymous(Method::POST, &format!("/hooks/{id}"));
    match secret {
        Some(secret) => request.header("X-Sentient-Secret", secret),
        None => request,
    }
}

async fn limits(t: &TestEngine, per_minute: u32, max_kb: u32) -> Result<()> {
    t.engine
        .services()
        .config()
        .patch(json!({"integrations": {
            "webhook_rate_limit_per_minute": per_minute,
            "webhook_max_body_kb": max_kb,
        }}))
        .await?;
    Ok(())
}

/// The next `source.items` event's items.
async fn next_items(rx: &mut broadcast::Receiver<Envelope>) -> Result<(String, Vec<Value>)> {
    loop {
        let envelope = tokio::time::timeout(WAIT, rx.recv()).await??;
        if let DomainEvent::SourceItems {
            source,
            event,
            origin,
            items,
        } = envelope.event
        {
            assert_eq!(source, "webhook");
            assert_eq!(origin, "webhook");
            return Ok((event, items));
        }
    }
}

/// No `source.items` is waiting on the bus.
fn none_waiting(rx: &mut broadcast::Receiver<Envelope>) -> bool {
    while let Ok(envelope) = rx.try_recv() {
        if matches!(envelope.event, DomainEvent::SourceItems { .. }) {
            return false;
        }
    }
    true
}

#[tokio::test]
async fn hooks_routes_list_create_delete_and_their_errors() -> Result<()> {
    let t = TestEngine::start().await?;
    let port = t.engine.services().addr().port();
    for bad in [
        json!({"name": "   "}),
        json!({}),
        json!({"name": "x".repeat(81)}),
    ] {
        let (status, body) = t.client.post("/api/hooks", bad).await?;
        assert_eq!(status, 400, "{body}");
        assert!(
            body["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("1 to 80")
        );
    }
    let (status, created) = t
        .client
        .post("/api/hooks", json!({"name": "  CI builds  "}))
        .await?;
    assert_eq!(status, 200);
    let id = created["id"].as_str().unwrap_or_default().to_owned();
    assert_eq!(created["name"], "CI builds");
    assert_eq!(created["calls"], 0);
    assert_eq!(created["last_called_at"], Value::Null);
    assert!(created["secret"].as_str().unwrap_or_default().len() >= 32);
    assert_eq!(
        created["url"],
        format!("http://127.0.0.1:{port}/hooks/{id}")
    );
    // 80 characters is still fine.
    let (status, _) = t
        .client
        .post("/api/hooks", json!({"name": "é".repeat(80)}))
        .await?;
    assert_eq!(status, 200);

    let (status, list) = t.client.get("/api/hooks").await?;
    assert_eq!(status, 200);
    let listed = list.as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["url"], created["url"]);
    // The secret is shown once only.
    assert!(listed.iter().all(|h| h.get("secret").is_none()));
    // The url follows the loopback name the request came in on.
    let (_, by_name) = send(
        t.client
            .request(Method::GET, "/api/hooks")
            .header("Host", format!("localhost:{port}")),
    )
    .await?;
    assert_eq!(
        by_name[0]["url"],
        format!("http://localhost:{port}/hooks/{id}")
    );

    // Behind the token.
    let (status, _) = send(t.client.anonymous(Method::GET, "/api/hooks")).await?;
    assert_eq!(status, 401);
    let (status, _) = send(
        t.client
            .anonymous(Method::POST, "/api/hooks")
            .json(&json!({"name": "x"})),
    )
    .await?;
    assert_eq!(status, 401);

    let (status, body) = send(t.client.request(Method::DELETE, "/api/hooks/nope")).await?;
    assert_eq!(status, 404);
    assert!(body["detail"].as_str().is_some());
    let (status, body) = send(
        t.client
            .request(Method::DELETE, &format!("/api/hooks/{id}")),
    )
    .await?;
    assert_eq!((status, body), (200, json!({"ok": true})));
    let (_, list) = t.client.get("/api/hooks").await?;
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    // A deleted hook's door is closed.
    let (status, _) = send(call(&t, &id, created["secret"].as_str())).await?;
    assert_eq!(status, 404);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn every_status_in_the_contracts_order() -> Result<()> {
    let t = TestEngine::start().await?;
    let (id, secret) = hook(&t, "order").await?;
    let mut rx = t.engine.services().bus().subscribe();

    // 404 before anything else, even with no secret at all.
    let (status, body) = send(call(&t, "unknown", None).body("{")).await?;
    assert_eq!(status, 404, "{body}");
    // 401: missing, wrong, or wrong in the header even when the query has the right one.
    let (status, body) = send(call(&t, &id, None)).await?;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("secret")
    );
    let (status, _) = send(call(&t, &id, Some("wrong"))).await?;
    assert_eq!(status, 401);
    let (status, _) = send(
        t.client
            .anonymous(Method::POST, &format!("/hooks/{id}?secret={secret}"))
            .header("X-Sentient-Secret", "wrong"),
    )
    .await?;
    assert_eq!(status, 401);
    // No bearer token is needed, and a bearer token is no secret.
    let (status, _) = send(
        t.client
            .request(Method::POST, &format!("/hooks/{id}"))
            .body("hi"),
    )
    .await?;
    assert_eq!(status, 401);

    // 401 comes before 503; 503 while stopped, with Retry-After: 60.
    t.engine.services().stop().stop_all(None).await?;
    let (status, _) = send(call(&t, &id, Some("wrong"))).await?;
    assert_eq!(status, 401);
    let response = call(&t, &id, Some(&secret)).body("{").send().await?;
    assert_eq!(response.status().as_u16(), 503);
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("60")
    );
    t.engine.services().stop().resume(None).await?;

    // 429 before 413 and 400: a budget of one call.
    limits(&t, 1, 1).await?;
    let (status, _) = send(call(&t, &id, Some(&secret))).await?;
    assert_eq!(status, 200);
    let response = call(&t, &id, Some(&secret))
        .header("Content-Type", "application/json")
        .body("x".repeat(5000))
        .send()
        .await?;
    assert_eq!(response.status().as_u16(), 429);
    let retry: u64 = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_default();
    assert!((1..=60).contains(&retry), "Retry-After {retry}");

    // 413 before 400; no limit on calls now.
    limits(&t, 0, 1).await?;
    let (status, body) = send(
        call(&t, &id, Some(&secret))
            .header("Content-Type", "application/json")
            .body("x".repeat(1025)),
    )
    .await?;
    assert_eq!(status, 413, "{body}");
    // Also when the length is not announced up front.
    let chunks = futures::stream::iter((0..3).map(|_| Ok::<_, std::io::Error>(bytes_of(600))));
    let (status, _) =
        send(call(&t, &id, Some(&secret)).body(reqwest::Body::wrap_stream(chunks))).await?;
    assert_eq!(status, 413);
    let (status, body) = send(
        call(&t, &id, Some(&secret))
            .header("Content-Type", "application/json")
            .body("{not json"),
    )
    .await?;
    assert_eq!(status, 400, "{body}");
    assert!(body["detail"].as_str().unwrap_or_default().contains("JSON"));
    // Exactly 1 KB is accepted.
    let (status, _) = send(call(&t, &id, Some(&secret)).body("y".repeat(1024))).await?;
    assert_eq!(status, 200);

    // Only the two accepted calls were published and counted.
    let (event, _) = next_items(&mut rx).await?;
    assert_eq!(event, id);
    next_items(&mut rx).await?;
    assert!(none_waiting(&mut rx));
    let (_, list) = t.client.get("/api/hooks").await?;
    assert_eq!(list[0]["calls"], 2);
    assert!(list[0]["last_called_at"].is_string());
    t.stop().await;
    Ok(())
}

fn bytes_of(n: usize) -> Vec<u8> {
    vec![b'z'; n]
}

#[tokio::test]
async fn the_rate_limit_refills_with_the_clock_and_ignores_wrong_secrets() -> Result<()> {
    let start = Utc
        .with_ymd_and_hms(2026, 3, 1, 9, 0, 0)
        .single()
        .unwrap_or_default();
    let clock = ManualClock::new(start);
    let t = TestEngine::start_with_clock(Arc::new(clock.clone())).await?;
    limits(&t, 3, 256).await?;
    let (id, secret) = hook(&t, "limited").await?;
    let (other, other_secret) = hook(&t, "other").await?;
    // Wrong secrets never use up the budget.
    for _ in 0..10 {
        let (status, _) = send(call(&t, &id, Some("wrong"))).await?;
        assert_eq!(status, 401);
    }
    for _ in 0..3 {
        let (status, _) = send(call(&t, &id, Some(&secret))).await?;
        assert_eq!(status, 200);
    }
    let response = call(&t, &id, Some(&secret)).send().await?;
    assert_eq!(response.status().as_u16(), 429);
    // 3 a minute: one more every 20 seconds.
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("20")
    );
    // Each hook has its own bucket.
    let (status, _) = send(call(&t, &other, Some(&other_secret))).await?;
    assert_eq!(status, 200);
    clock.advance(Duration::seconds(15));
    let response = call(&t, &id, Some(&secret)).send().await?;
    assert_eq!(response.status().as_u16(), 429);
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("5")
    );
    clock.advance(Duration::seconds(5));
    let (status, _) = send(call(&t, &id, Some(&secret))).await?;
    assert_eq!(status, 200);
    let (status, _) = send(call(&t, &id, Some(&secret))).await?;
    assert_eq!(status, 429);
    // Refused calls are not counted.
    let (_, list) = t.client.get("/api/hooks").await?;
    assert_eq!(list[0]["calls"], 4);
    assert_eq!(list[1]["calls"], 1);
    // 0 turns the limit off.
    limits(&t, 0, 256).await?;
    for _ in 0..5 {
        let (status, _) = send(call(&t, &id, Some(&secret))).await?;
        assert_eq!(status, 200);
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn each_body_kind_becomes_an_item() -> Result<()> {
    let t = TestEngine::start().await?;
    let (id, secret) = hook(&t, "Home hub").await?;
    let mut rx = t.engine.services().bus().subscribe();

    let (status, reply) = send(
        t.client
            .anonymous(Method::POST, &format!("/hooks/{id}?secret={secret}&run=7"))
            .json(&json!({"status": "failed", "n": 2})),
    )
    .await?;
    assert_eq!(status, 200);
    assert_eq!(reply["ok"], true);
    let (event, items) = next_items(&mut rx).await?;
    assert_eq!(event, id);
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(item["id"], reply["item_id"]);
    assert_eq!(item["name"], "Home hub");
    assert_eq!(item["body"], json!({"status": "failed", "n": 2}));
    assert_eq!(item["content_type"], "application/json");
    // The secret never travels on.
    assert_eq!(item["query"], json!({"run": "7"}));
    assert!(item["received_at"].is_string());

    let (status, _) = send(
        call(&t, &id, Some(&secret))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("a=1&b=two+words"),
    )
    .await?;
    assert_eq!(status, 200);
    let (_, items) = next_items(&mut rx).await?;
    assert_eq!(items[0]["body"], json!({"a": "1", "b": "two words"}));

    let form = reqwest::multipart::Form::new().text("note", "hello").part(
        "file",
        reqwest::multipart::Part::bytes(vec![7u8; 1234])
            .file_name("log.bin")
            .mime_str("application/octet-stream")?,
    );
    let (status, _) = send(call(&t, &id, Some(&secret)).multipart(form)).await?;
    assert_eq!(status, 200);
    let (_, items) = next_items(&mut rx).await?;
    assert_eq!(
        items[0]["body"],
        json!({"note": "hello", "file": {
            "filename": "log.bin", "content_type": "application/octet-stream", "size": 1234
        }})
    );

    let (status, _) = send(
        call(&t, &id, Some(&secret))
            .header("Content-Type", "text/plain")
            .body("build 42 failed"),
    )
    .await?;
    assert_eq!(status, 200);
    let (_, items) = next_items(&mut rx).await?;
    assert_eq!(items[0]["body"], "build 42 failed");
    assert_eq!(items[0]["content_type"], "text/plain");

    let (status, _) = send(call(&t, &id, Some(&secret))).await?;
    assert_eq!(status, 200);
    let (_, items) = next_items(&mut rx).await?;
    assert_eq!(items[0]["body"], Value::Null);
    assert_eq!(items[0]["content_type"], Value::Null);
    t.stop().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_are_each_published_exactly_once() -> Result<()> {
    let t = TestEngine::start().await?;
    limits(&t, 0, 256).await?;
    let (id, secret) = hook(&t, "burst").await?;
    let mut rx = t.engine.services().bus().subscribe();
    const N: usize = 64;
    let calls = (0..N).map(|i| send(call(&t, &id, Some(&secret)).json(&json!({ "n": i }))));
    let replies = futures::future::try_join_all(calls).await?;
    let mut answered = HashSet::new();
    for (status, reply) in replies {
        assert_eq!(status, 200, "{reply}");
        answered.insert(reply["item_id"].as_str().unwrap_or_default().to_owned());
    }
    assert_eq!(answered.len(), N);
    let mut published = HashSet::new();
    let mut bodies = HashSet::new();
    for _ in 0..N {
        let (_, items) = next_items(&mut rx).await?;
        assert_eq!(items.len(), 1);
        assert!(
            published.insert(items[0]["id"].as_str().unwrap_or_default().to_owned()),
            "published twice"
        );
        bodies.insert(items[0]["body"]["n"].as_u64().unwrap_or(u64::MAX));
    }
    assert_eq!(published, answered);
    assert_eq!(bodies.len(), N);
    // Every publish happens before its answer, so a second copy would already be waiting.
    assert!(none_waiting(&mut rx));
    let (_, list) = t.client.get("/api/hooks").await?;
    assert_eq!(list[0]["calls"], N);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn nothing_is_published_or_counted_while_stopped() -> Result<()> {
    let t = TestEngine::start().await?;
    let (id, secret) = hook(&t, "stopped").await?;
    let mut rx = t.engine.services().bus().subscribe();
    t.engine.services().stop().stop_all(None).await?;
    for _ in 0..3 {
        let (status, body) = send(call(&t, &id, Some(&secret)).json(&json!({"a": 1}))).await?;
        assert_eq!(status, 503);
        assert!(
            body["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("Resume")
        );
    }
    assert!(none_waiting(&mut rx));
    let (_, list) = t.client.get("/api/hooks").await?;
    assert_eq!(list[0]["calls"], 0);
    assert_eq!(list[0]["last_called_at"], Value::Null);
    // After Resume the same call goes through.
    t.engine.services().stop().resume(None).await?;
    let (status, _) = send(call(&t, &id, Some(&secret)).json(&json!({"a": 1}))).await?;
    assert_eq!(status, 200);
    next_items(&mut rx).await?;
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_secret_never_reaches_the_log() -> Result<()> {
    let logs = tempfile::tempdir()?;
    // The engine's own logging setup (the process-wide subscriber), writing JSON lines.
    let guard = sentient_e2e::sentient_engine::logging::init(logs.path());
    let t = TestEngine::start().await?;
    let (id, secret) = hook(&t, "logged").await?;
    for secret in [secret.as_str(), "wrong-secret-value-1234567890"] {
        let _ = send(
            t.client
                .anonymous(Method::POST, &format!("/hooks/{id}?secret={secret}&x=1"))
                .body("hi"),
        )
        .await?;
        let _ = send(call(&t, &id, Some(secret)).body("hi")).await?;
    }
    t.stop().await;
    drop(guard);
    let mut text = String::new();
    for entry in std::fs::read_dir(logs.path())? {
        text.push_str(&std::fs::read_to_string(entry?.path())?);
    }
    // The request was logged (its path), its secret was not.
    assert!(text.contains(&format!("/hooks/{id}")), "no request logged");
    assert!(!text.contains(&secret));
    assert!(!text.contains("wrong-secret-value"));
    assert!(!text.contains("secret="));
    Ok(())
}

#[tokio::test]
async fn openapi_lists_the_hooks_routes() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, doc) = t.client.get("/api/openapi.json").await?;
    assert_eq!(status, 200);
    assert!(doc["paths"]["/api/hooks"]["get"].is_object());
    assert!(doc["paths"]["/api/hooks"]["post"].is_object());
    assert!(doc["paths"]["/api/hooks/{id}"]["delete"].is_object());
    let open = &doc["paths"]["/hooks/{id}"]["post"];
    assert!(open.is_object());
    for code in ["200", "400", "401", "404", "413", "429", "503"] {
        assert!(open["responses"][code].is_object(), "missing {code}");
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_seen_record_keeps_keys_thirty_days() -> Result<()> {
    let start = Utc
        .with_ymd_and_hms(2026, 3, 1, 9, 0, 0)
        .single()
        .unwrap_or_default();
    let clock = ManualClock::new(start);
    let t = TestEngine::start_with_clock(Arc::new(clock.clone())).await?;
    assert!(!t.engine.services().hooks().seen_before("gmail", "m1").await);
    assert!(t.engine.services().hooks().seen_before("gmail", "m1").await);
    // Sources do not share keys.
    assert!(
        !t.engine
            .services()
            .hooks()
            .seen_before("gcalendar", "m1")
            .await
    );
    clock.advance(Duration::days(29));
    assert!(t.engine.services().hooks().seen_before("gmail", "m1").await);
    clock.advance(Duration::days(2));
    assert!(!t.engine.services().hooks().seen_before("gmail", "m1").await);
    assert!(t.engine.services().hooks().seen_before("gmail", "m1").await);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn creating_and_deleting_hooks_updates_the_webhook_integrations_triggers() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let (_, created) = t
        .client
        .post("/api/hooks", json!({"name": "Deploy alerts"}))
        .await?;
    let id = created["id"].as_str().unwrap_or_default().to_owned();
    let updated = ws.wait_for("integration.updated").await?;
    assert_eq!(updated["data"]["id"], "webhook");
    assert_eq!(updated["data"]["connected"], true);
    assert_eq!(
        updated["data"]["triggers"],
        json!([{"event": id, "label": "When \"Deploy alerts\" is called"}])
    );
    let (status, _) = send(
        t.client
            .request(Method::DELETE, &format!("/api/hooks/{id}")),
    )
    .await?;
    assert_eq!(status, 200);
    let updated = ws.wait_for("integration.updated").await?;
    assert_eq!(updated["data"]["triggers"], json!([]));
    t.stop().await;
    Ok(())
}
