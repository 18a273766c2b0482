//! Gmail and Google Calendar (issue 17) against loopback stand-ins that speak Google's wire
//! formats: the OAuth sign-in through the shared loopback listener (the stand-in checks the PKCE
//! verifier against the S256 challenge), one client shared by both apps, tokens refreshed before
//! they expire, Gmail's history feed (404 re-baselines with a note) starting a triggered task
//! with its code masked, Calendar's sync tokens (new and changed events, 410 resyncs), the
//! tools and Read only.

use sentient_engine::sync::MutexExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use sentient_e2e::sentient_engine::clock::ManualClock;
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::sentient_engine::integrations::feeds::CLOCK_CHECK;
use sentient_e2e::sentient_engine::integrations::oauth::challenge_of;
use sentient_e2e::{TestEngine, eventually, point_models_at, serve_on_loopback, stays, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

const CLIENT_ID: &str = "123456789012-sentienttest.apps.googleusercontent.com";
const SECRET: &str = "GOCSPX-sentient-test-secret-0000000";

#[derive(Default)]
struct Google {
    /// code → (challenge, redirect_uri)
    codes: HashMap<String, (String, String)>,
    grants: Vec<String>,
    history_expired: bool,
    history_failing: bool,
    history_calls: usize,
    new_mail: bool,
    mail_during_stop: bool,
    calendar_gone: bool,
    new_event: bool,
    sent: Vec<Value>,
    drafts: Vec<Value>,
}

type Shared = Arc<Mutex<Google>>;

fn lock(g: &Shared) -> std::sync::MutexGuard<'_, Google> {
    g.lock_unpoisoned()
}

/// A message sent a day ago.
fn raw_mail(subject: &str, body: &str) -> String {
    let date = (chrono::Utc::now() - chrono::Duration::days(1)).to_rfc2822();
    let text = format!(
        "Message-ID: <{subject}@bank.example>\r\nFrom: Bank <alerts@bank.example>\r\nTo: me@example.com\r\n\
         Subject: {subject}\r\nDate: {date}\r\nContent-Type: text/plain\r\n\r\n{body}\r\n"
    );
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

async fn auth(State(g): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let code = format!("code-{}", lock(&g).codes.len());
    let redirect = q.get("redirect_uri").cloned().unwrap_or_default();
    assert_eq!(
        q.get("code_challenge_method").map(String::as_str),
        Some("S256")
    );
    lock(&g).codes.insert(
        code.clone(),
        (
            q.get("code_challenge").cloned().unwrap_or_default(),
            redirect.clone(),
        ),
    );
    let state = q.get("state").cloned().unwrap_or_default();
    Redirect::to(&format!("{redirect}?code={code}&state={state}")).into_response()
}

async fn token(State(g): State<Shared>, Form(form): Form<HashMap<String, String>>) -> Response {
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    lock(&g).grants.push(grant.clone());
    if form.get("client_secret").map(String::as_str) != Some(SECRET) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    match grant.as_str() {
        "authorization_code" => {
            let code = form.get("code").cloned().unwrap_or_default();
            let Some((challenge, redirect)) = lock(&g).codes.remove(&code) else {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "invalid_grant"})),
                )
                    .into_response();
            };
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            if challenge_of(&verifier) != challenge || form.get("redirect_uri") != Some(&redirect) {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "invalid_grant"})),
                )
                    .into_response();
            }
            // Expires within the refresh margin, so the first API call refreshes it.
            Json(json!({"access_token": "at-1", "refresh_token": "rt", "expires_in": 30}))
                .into_response()
        }
        "refresh_token" if form.get("refresh_token").map(String::as_str) == Some("rt") => {
            Json(json!({"access_token": "at-2", "expires_in": 3600})).into_response()
        }
        _ => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response(),
    }
}

fn message(id: &str, subject: &str, body: &str) -> Value {
    json!({"id": id, "threadId": format!("t-{id}"), "labelIds": ["INBOX", "UNREAD"],
           "snippet": body, "raw": raw_mail(subject, body)})
}

async fn gmail_get(
    State(g): State<Shared>,
    Path(rest): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let mut g = lock(&g);
    match rest.as_str() {
        "profile" => {
            Json(json!({"emailAddress": "me@example.com", "historyId": "100"})).into_response()
        }
        "messages" => Json(json!({"messages": [{"id": "m1", "threadId": "t-m1"}]})).into_response(),
        "messages/m1" => Json(message("m1", "Lunch", "Lunch on Friday?")).into_response(),
        "messages/m2" => Json(message(
            "m2",
            "Your sign-in code",
            "Your verification code is 739201.",
        ))
        .into_response(),
        "messages/m3" => {
            Json(message("m3", "Invoice", "Your invoice is attached.")).into_response()
        }
        "threads" => Json(json!({"threads": [{"id": "t-m1"}]})).into_response(),
        "threads/t-m1" => Json(json!({"id": "t-m1", "messages": [{"id": "m1"}]})).into_response(),
        "history" => {
            g.history_calls += 1;
            if g.history_failing {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(json!({"error": {"message": "Backend Error"}})),
                )
                    .into_response();
            }
            if g.history_expired {
                return (
                    StatusCode::NOT_FOUND,
                    Json(json!({"error": {"message": "Requested entity was not found."}})),
                )
                    .into_response();
            }
            let start = q.get("startHistoryId").cloned().unwrap_or_default();
            if g.new_mail && start == "100" {
                Json(json!({"history": [{"messagesAdded": [{"message": {"id": "m2"}}]}], "historyId": "101"})).into_response()
            } else if g.mail_during_stop && start == "101" {
                Json(json!({"history": [{"messagesAdded": [{"message": {"id": "m3"}}]}], "historyId": "102"})).into_response()
            } else {
                Json(json!({"historyId": start})).into_response()
            }
        }
        _ => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": {"message": "Not found"}})),
        )
            .into_response(),
    }
}

async fn gmail_post(
    State(g): State<Shared>,
    Path(rest): Path<String>,
    Json(body): Json<Value>,
) -> Json<Value> {
    let mut g = lock(&g);
    if rest == "drafts" {
        g.drafts.push(body);
        Json(json!({"id": "d1"}))
    } else {
        g.sent.push(body);
        Json(json!({"id": "s1"}))
    }
}

fn event(id: &str, created: &str, updated: &str) -> Value {
    json!({"id": id, "summary": "Planning", "status": "confirmed", "created": created, "updated": updated,
           "start": {"dateTime": "2099-01-01T10:00:00Z"}, "end": {"dateTime": "2099-01-01T11:00:00Z"},
           "htmlLink": "https://calendar.example/e"})
}

async fn events(State(g): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let g = lock(&g);
    match q.get("syncToken").map(String::as_str) {
        None => Json(json!({"items": [event("old", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")], "nextSyncToken": "s1"})).into_response(),
        Some(_) if g.calendar_gone => (StatusCode::GONE, Json(json!({"error": {"message": "Sync token is no longer valid"}}))).into_response(),
        Some("s1") if g.new_event => Json(json!({"items": [
            event("fresh", "2026-12-02T10:00:00Z", "2026-12-02T10:01:00Z"),
            event("moved", "2026-11-01T10:00:00Z", "2026-12-02T10:01:00Z"),
            json!({"id": "gone", "status": "cancelled", "updated": "2026-12-02T10:01:00Z"}),
        ], "nextSyncToken": "s2"})).into_response(),
        Some(token) => Json(json!({"items": [], "nextSyncToken": token})).into_response(),
    }
}

async fn stand_in(g: Shared) -> Result<String> {
    let app = Router::new()
        .route("/auth", get(auth))
        .route("/token", post(token))
        .route(
            "/gmail/v1/users/me/{*rest}",
            get(gmail_get).post(gmail_post),
        )
        .route(
            "/calendar/v3/users/me/calendarList/primary",
            get(|| async { Json(json!({"id": "me@example.com"})) }),
        )
        .route("/calendar/v3/calendars/primary/events", get(events))
        .with_state(g);
    serve_on_loopback(app, "").await
}

fn google_endpoints(base: &str) -> Endpoints {
    Endpoints {
        google_auth: format!("{base}/auth"),
        google_token: format!("{base}/token"),
        gmail: format!("{base}/gmail/v1"),
        calendar: format!("{base}/calendar/v3"),
        ..Endpoints::default()
    }
}

/// Connects `app` and follows the sign-in link as the person's browser would.
async fn sign_in(t: &TestEngine, app: &str, fields: Value) -> Result<(String, String)> {
    let (status, answer) = t
        .client
        .post(
            &format!("/api/integrations/{app}/connect"),
            json!({"fields": fields}),
        )
        .await?;
    anyhow::ensure!(status == 200, "{status} {answer}");
    let (_, now) = t.client.get(&format!("/api/integrations/{app}")).await?;
    assert_eq!(now["status"], "connecting");
    let auth_url = answer["auth_url"].as_str().context("auth_url")?.to_owned();
    assert!(answer["state"].is_string());
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let to_callback = browser.get(&auth_url).send().await?;
    let callback = to_callback
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .context("the provider redirects back")?
        .to_owned();
    assert!(
        callback.starts_with("http://127.0.0.1:") && callback.contains("/oauth/callback?"),
        "{callback}"
    );
    let page = browser.get(&callback).send().await?;
    let ok = page.status().as_u16();
    let text = page.text().await?;
    Ok((format!("{ok} {text}"), callback))
}

#[tokio::test]
async fn gmail_and_calendar_sign_in_once_sync_their_changes_and_run_their_tools() -> Result<()> {
    let google: Shared = Arc::default();
    let base = stand_in(google.clone()).await?;
    let t = TestEngine::start_with_endpoints(google_endpoints(&base)).await?;
    let model = ScriptedModel::start().await;
    point_models_at(&t, &model).await?;
    t.client
        .patch(
            "/api/config",
            json!({"chat": {"auto_title": false}, "memory": {"extract_after_turn": false},
                   "models": {"background_quiet_s": 0, "local_queue": false},
                   "tools": {"approvals": {"mode": "off"}}, "integrations": {"fast_sync_seconds": 0}}),
        )
        .await?;

    let (_, gmail) = t.client.get("/api/integrations/gmail").await?;
    assert!(
        gmail["setup"]["fields"]
            .as_array()
            .is_some_and(|f| f.iter().all(|x| x["required"] == true))
    );
    let (status, body) = t
        .client
        .post("/api/integrations/gmail/connect", json!({"fields": {}}))
        .await?;
    assert_eq!(status, 400, "no client yet: {body}");

    let (page, callback) = sign_in(
        &t,
        "gmail",
        json!({"client_id": CLIENT_ID, "client_secret": SECRET}),
    )
    .await?;
    assert!(
        page.starts_with("200") && page.contains("You're connected"),
        "{page}"
    );
    let (_, gmail) = t.client.get("/api/integrations/gmail").await?;
    assert_eq!(
        (gmail["connected"].clone(), gmail["account_label"].clone()),
        (json!(true), json!("me@example.com")),
        "{gmail}"
    );
    assert!(
        lock(&google).grants.contains(&"refresh_token".to_owned()),
        "a token expiring within a minute is refreshed"
    );

    // The same state again, or a made-up one, is refused.
    let browser = reqwest::Client::new();
    let again = browser.get(&callback).send().await?;
    assert_eq!(again.status().as_u16(), 400);
    assert!(again.text().await?.contains("Connection failed"));
    let forged = callback.split('?').next().unwrap_or_default().to_owned() + "?code=x&state=forged";
    assert_eq!(browser.get(&forged).send().await?.status().as_u16(), 400);

    // Calendar shares the client: its fields are optional now and {fields: {}} connects.
    let (_, gcal) = t.client.get("/api/integrations/gcalendar").await?;
    assert!(
        gcal["setup"]["fields"]
            .as_array()
            .is_some_and(|f| f.iter().all(|x| x["required"] == false)),
        "{gcal}"
    );
    let (page, _) = sign_in(&t, "gcalendar", json!({})).await?;
    assert!(page.contains("You're connected"), "{page}");

    // Gmail's feed: a baseline, then a new message starts the triggered task once, masked.
    model.push(Reply::text(
        json!({"name": "Mail watch", "description": "Mail watch", "priority": 1,
               "schedule": {"type": "triggered", "source": "gmail", "event": "new_email"}})
        .to_string(),
    ));
    model.push(Reply::text(
        json!({"plan": [{"tool": "gmail_read", "description": "Read it"}]}).to_string(),
    ));
    let (_, task) = t
        .client
        .post("/api/tasks", json!({"prompt": "Mail watch"}))
        .await?;
    let id = task["task_id"].as_str().context("id")?.to_owned();
    wait_task(&t, &id, |t| t["status"] == "approval_pending").await?;
    t.client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    wait_task(&t, &id, |t| t["status"] == "active").await?;
    let (_, first) = t
        .client
        .post("/api/integrations/feeds/gmail/sync", json!({}))
        .await?;
    assert_eq!(
        first,
        json!({"ok": true, "emitted": 0, "rebaselined": true})
    );
    lock(&google).new_mail = true;
    model.push(Reply::text("Seen."));
    let (_, synced) = t
        .client
        .post("/api/integrations/feeds/gmail/sync", json!({}))
        .await?;
    assert_eq!(
        (synced["emitted"].clone(), synced["rebaselined"].clone()),
        (json!(1), json!(false)),
        "{synced}"
    );
    let task = wait_task(&t, &id, |t| {
        t["runs"].as_array().is_some_and(|r| !r.is_empty())
    })
    .await?;
    let item = &task["runs"][0]["trigger_event_data"];
    assert_eq!(item["id"], "m2");
    assert_eq!(item["thread_id"], "t-m2");
    let body = item["body"].as_str().unwrap_or_default();
    assert!(
        body.contains("[one-time code hidden]") && !body.contains("739201"),
        "{item}"
    );
    let (_, again) = t
        .client
        .post("/api/integrations/feeds/gmail/sync", json!({}))
        .await?;
    assert_eq!(again["emitted"], 0, "{again}");
    lock(&google).history_expired = true;
    let (_, rebased) = t
        .client
        .post("/api/integrations/feeds/gmail/sync", json!({}))
        .await?;
    assert_eq!(rebased["rebaselined"], true, "{rebased}");
    let (_, feeds) = t.client.get("/api/integrations/feeds").await?;
    let gmail_feed = feeds
        .as_array()
        .and_then(|l| l.iter().find(|f| f["source"] == "gmail"))
        .context("feed")?;
    assert!(
        gmail_feed["note"]
            .as_str()
            .is_some_and(|n| n.contains("expired")),
        "{gmail_feed}"
    );
    assert_eq!(gmail_feed["kind"], "gmail_history");

    // Calendar: baseline, then a new and a moved event; cancelled skipped; 410 resyncs.
    let (_, first) = t
        .client
        .post("/api/integrations/feeds/gcalendar/sync", json!({}))
        .await?;
    assert_eq!(first["rebaselined"], true);
    lock(&google).new_event = true;
    let mut ws = t.ws().await?;
    let (_, synced) = t
        .client
        .post("/api/integrations/feeds/gcalendar/sync", json!({}))
        .await?;
    assert_eq!(synced["emitted"], 2, "{synced}");
    let mut events = Vec::new();
    while events.len() < 2 {
        let published = ws.wait_for("source.items").await?;
        events.push((
            published["data"]["event"].clone(),
            published["data"]["items"][0]["id"].clone(),
        ));
    }
    events.sort_by_key(|e| e.0.to_string());
    assert_eq!(
        events,
        [
            (json!("new_event"), json!("fresh")),
            (json!("updated_event"), json!("moved"))
        ]
    );
    lock(&google).calendar_gone = true;
    let (_, resynced) = t
        .client
        .post("/api/integrations/feeds/gcalendar/sync", json!({}))
        .await?;
    assert_eq!(
        (resynced["ok"].clone(), resynced["rebaselined"].clone()),
        (json!(true), json!(true)),
        "{resynced}"
    );

    // Tools: search, then Read only refuses sending.
    model.push(Reply::tool_call("gmail_search", json!({"query": "lunch"})));
    model.push(Reply::text("Lunch on Friday."));
    ws.send_json(json!({"type": "chat.send", "text": "Any mail about lunch?"}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    assert_eq!(result["result"][0]["subject"], "Lunch", "{result}");
    assert_eq!(
        result["result"][0]["url"],
        "https://mail.google.com/mail/u/0/#all/m1"
    );
    model.push(Reply::tool_call(
        "gmail_create_draft",
        json!({"to": ["jane@example.com"], "subject": "Hi", "body": "Hello"}),
    ));
    model.push(Reply::text("Drafted."));
    ws.send_json(json!({"type": "chat.send", "text": "Draft hi to Jane."}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    assert_eq!(result["result"]["ok"], true, "{result}");
    assert!(lock(&google).drafts[0]["message"]["raw"].is_string());
    t.client
        .put("/api/integrations/gmail/access", json!({"access": "read"}))
        .await?;
    model.push(Reply::tool_call(
        "gmail_send_email",
        json!({"to": ["jane@example.com"], "subject": "Hi", "body": "Hello"}),
    ));
    model.push(Reply::text("Can't."));
    ws.send_json(json!({"type": "chat.send", "text": "Send hi to Jane."}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    assert!(
        result["result"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("Gmail is set to Read only")),
        "{result}"
    );
    assert!(lock(&google).sent.is_empty(), "nothing was sent");

    // What follow-ups and proactivity read.
    let quiet = t
        .engine
        .services()
        .integrations()
        .recent_threads("gmail", 14, 0, 40)
        .await?;
    assert_eq!(quiet.addresses, ["me@example.com"]);
    assert_eq!(quiet.threads.len(), 1, "{:?}", quiet.threads);
    assert_eq!(quiet.threads[0]["thread_id"], "t-m1");
    assert_eq!(quiet.threads[0]["messages"][0]["from_me"], false);
    let busy = t
        .engine
        .services()
        .integrations()
        .recent_threads("gmail", 14, 3, 40)
        .await?;
    assert!(
        busy.threads.is_empty(),
        "a thread newer than the idle cutoff is left out"
    );
    let polled = t
        .engine
        .services()
        .integrations()
        .poll_source("gmail", None)
        .await?;
    assert_eq!(polled.len(), 1);
    assert_eq!(polled[0]["id"], "m1");
    assert!(
        t.engine
            .services()
            .integrations()
            .poll_source("gmail", None)
            .await?
            .is_empty(),
        "each item once"
    );
    assert!(
        t.engine
            .services()
            .integrations()
            .poll_status("gmail")
            .last_poll_at
            .is_some()
    );

    let (_, tested) = t
        .client
        .post("/api/integrations/gcalendar/test", json!({}))
        .await?;
    assert_eq!(
        tested,
        json!({"ok": true, "detail": "Connected to Google Calendar as me@example.com."})
    );
    let (_, gone) = t
        .client
        .post("/api/integrations/gmail/disconnect", json!({}))
        .await?;
    assert_eq!(gone["connected"], false);
    assert_eq!(
        t.engine
            .services()
            .secrets()
            .read_entry("gmail:oauth")
            .await?,
        None,
        "the tokens are deleted"
    );
    assert!(
        t.engine
            .services()
            .secrets()
            .read_entry("gcalendar:oauth")
            .await?
            .is_some(),
        "Calendar keeps its own"
    );
    t.stop().await;
    Ok(())
}

async fn gmail_feed(t: &TestEngine) -> Result<Value> {
    let (_, feeds) = t.client.get("/api/integrations/feeds").await?;
    feeds
        .as_array()
        .and_then(|l| l.iter().find(|f| f["source"] == "gmail"))
        .cloned()
        .context("gmail feed")
}

/// The time a feed field names, for comparing with the clock.
fn time_of(value: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    value
        .as_str()
        .and_then(|text| chrono::DateTime::parse_from_rfc3339(text).ok())
        .map(|at| at.with_timezone(&chrono::Utc))
}

/// Waits until the Gmail feed shows `done`; the error shows the feed as it was.
async fn feed_until(t: &TestEngine, what: &str, done: impl Fn(&Value) -> bool) -> Result<Value> {
    eventually(what, || async {
        let feed = gmail_feed(t).await?;
        Ok(done(&feed).then_some(feed))
    })
    .await
    .with_context(|| what.to_owned())
}

#[tokio::test]
async fn a_feed_syncs_on_the_engine_clock_backs_off_and_waits_out_stop_everything() -> Result<()> {
    let google: Shared = Arc::default();
    let base = stand_in(google.clone()).await?;
    let start = chrono::DateTime::parse_from_rfc3339("2026-12-02T09:00:00Z")?.to_utc();
    let clock = ManualClock::new(start);
    let dir = tempfile::tempdir()?;
    let t = TestEngine::start_configured(
        &dir.path().join("home"),
        Some(Arc::new(clock.clone())),
        Some(google_endpoints(&base)),
    )
    .await?;
    t.client
        .patch(
            "/api/config",
            json!({"integrations": {"fast_sync_seconds": 60}}),
        )
        .await?;
    let (page, _) = sign_in(
        &t,
        "gmail",
        json!({"client_id": CLIENT_ID, "client_secret": SECRET}),
    )
    .await?;
    assert!(page.contains("You're connected"), "{page}");
    let at = |seconds: i64| Some(start + chrono::Duration::seconds(seconds));

    // The baseline runs at once and sets the next sync a minute later by the engine's clock.
    let feed = feed_until(&t, "the baseline", |f| f["status"] == "ok").await?;
    assert_eq!(time_of(&feed["last_sync_at"]), at(0), "{feed}");
    assert_eq!(time_of(&feed["next_attempt_at"]), at(60), "{feed}");
    lock(&google).new_mail = true;
    let mut ws = t.ws().await?;
    clock.advance(chrono::Duration::seconds(59));
    stays("no sync before it is due", 2 * CLOCK_CHECK, || async {
        Ok(lock(&google).history_calls == 0)
    })
    .await?;
    clock.advance(chrono::Duration::seconds(1));
    let published = ws.wait_for("source.items").await?;
    assert_eq!(published["data"]["source"], "gmail", "{published}");
    assert_eq!(published["data"]["items"][0]["id"], "m2", "{published}");
    let feed = feed_until(&t, "the sync at one minute", |f| f["emitted"] == 1).await?;
    assert_eq!(time_of(&feed["last_sync_at"]), at(60), "{feed}");

    // Failures back off, doubling: due again after 1, 2, then 4 minutes; after 3 the feed is
    // no longer active, so timer polling would take over.
    lock(&google).history_failing = true;
    clock.advance(chrono::Duration::seconds(60));
    let feed = feed_until(&t, "the first failure", |f| f["failures"] == 1).await?;
    assert_eq!(
        (feed["status"].clone(), feed["active"].clone()),
        (json!("error"), json!(true)),
        "{feed}"
    );
    assert_eq!(time_of(&feed["next_attempt_at"]), at(180), "{feed}");
    clock.advance(chrono::Duration::seconds(60));
    let feed = feed_until(&t, "the second failure", |f| f["failures"] == 2).await?;
    assert_eq!(time_of(&feed["next_attempt_at"]), at(300), "{feed}");
    let calls = lock(&google).history_calls;
    clock.advance(chrono::Duration::seconds(60));
    stays(
        "no retry before the back-off ends",
        2 * CLOCK_CHECK,
        || async { Ok(lock(&google).history_calls == calls) },
    )
    .await?;
    clock.advance(chrono::Duration::seconds(60));
    let feed = feed_until(&t, "the third failure", |f| f["failures"] == 3).await?;
    assert_eq!(feed["active"], false, "{feed}");
    assert_eq!(time_of(&feed["next_attempt_at"]), at(540), "{feed}");
    lock(&google).history_failing = false;
    clock.advance(chrono::Duration::seconds(240));
    let feed = feed_until(&t, "the recovery", |f| f["failures"] == 0).await?;
    assert_eq!(
        (feed["status"].clone(), feed["active"].clone()),
        (json!("ok"), json!(true)),
        "{feed}"
    );
    assert_eq!(time_of(&feed["last_success_at"]), at(540), "{feed}");

    // Stop everything: nothing syncs however late it gets; after Resume the overdue sync runs
    // at once and announces what arrived meanwhile, once.
    t.client.post("/api/stop-all", json!({})).await?;
    lock(&google).mail_during_stop = true;
    let calls = lock(&google).history_calls;
    clock.advance(chrono::Duration::seconds(180));
    stays("no sync while stopped", 2 * CLOCK_CHECK, || async {
        Ok(lock(&google).history_calls == calls)
    })
    .await?;
    t.client.post("/api/resume", json!({})).await?;
    let published = ws.wait_for("source.items").await?;
    assert_eq!(published["data"]["items"][0]["id"], "m3", "{published}");
    let feed = feed_until(&t, "the sync after Resume", |f| f["emitted"] == 2).await?;
    assert_eq!(time_of(&feed["last_sync_at"]), at(720), "{feed}");
    Ok(())
}

#[tokio::test]
async fn a_pasted_client_is_checked_step_by_step_and_a_declined_sign_in_is_not_an_error()
-> Result<()> {
    let google: Shared = Arc::default();
    let base = stand_in(google.clone()).await?;
    let t = TestEngine::start_with_endpoints(google_endpoints(&base)).await?;
    let connect = |fields: Value| {
        let t = &t;
        async move {
            t.client
                .post("/api/integrations/gmail/connect", json!({"fields": fields}))
                .await
        }
    };

    // Each wrong value is named with the setup step to go back to.
    for (fields, said) in [
        (
            json!({"client_id": "my-project", "client_secret": SECRET}),
            "Step 4: that isn't a Google client ID.",
        ),
        (
            json!({"client_id": SECRET, "client_secret": CLIENT_ID}),
            "Step 4: the client ID and the secret are swapped",
        ),
        (
            json!({"client_id": CLIENT_ID, "client_secret": "hunter2"}),
            "Step 4: that isn't a Google client secret.",
        ),
        (
            json!({"client_id": CLIENT_ID, "client_secret": "GOCSPX-not-the-secret-of-this-one0"}),
            "Step 4: Google doesn't know this client ID and secret together.",
        ),
    ] {
        let (status, body) = connect(fields).await?;
        assert_eq!(status, 400, "{body}");
        let detail = body["detail"].as_str().unwrap_or_default();
        assert!(detail.starts_with(said), "{detail}");
    }
    // Only the last one needed Google (a test sign-in), and nothing was saved.
    assert_eq!(lock(&google).grants, ["authorization_code"]);
    let (_, gmail) = t.client.get("/api/integrations/gmail").await?;
    assert_eq!(gmail["setup"]["fields"][0]["required"], true);

    // Declining on Google's page puts the card back to Not connected, not Error.
    let (status, answer) =
        connect(json!({"client_id": CLIENT_ID, "client_secret": SECRET})).await?;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        lock(&google).grants.len(),
        2,
        "the good client was tried too"
    );
    let auth_url = reqwest::Url::parse(answer["auth_url"].as_str().context("auth_url")?)?;
    let redirect = auth_url
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .map(|(_, v)| v.into_owned())
        .context("redirect_uri")?;
    let state = answer["state"].as_str().context("state")?;
    let (_, gmail) = t.client.get("/api/integrations/gmail").await?;
    assert_eq!(gmail["status"], "connecting");
    let page = reqwest::get(format!("{redirect}?error=access_denied&state={state}")).await?;
    assert_eq!(page.status().as_u16(), 400);
    assert!(
        page.text()
            .await?
            .contains("The sign-in was cancelled. Nothing was changed.")
    );
    let (_, gmail) = t.client.get("/api/integrations/gmail").await?;
    assert_eq!(gmail["status"], "disconnected", "{gmail}");
    assert_eq!(gmail["error"], Value::Null);

    // The window's Cancel while the browser is still open does the same and drops the sign-in.
    let (status, answer) = connect(json!({})).await?;
    assert_eq!(status, 200, "the saved client signs in: {answer}");
    let state = answer["state"].as_str().context("state")?;
    let (status, gmail) = t
        .client
        .post("/api/integrations/gmail/cancel", json!({}))
        .await?;
    assert_eq!(status, 200, "{gmail}");
    assert_eq!(gmail["status"], "disconnected");
    assert_eq!(gmail["error"], Value::Null);
    let late = reqwest::get(format!("{redirect}?code=code-0&state={state}")).await?;
    assert_eq!(late.status().as_u16(), 400);
    assert!(late.text().await?.contains("is not waiting any more"));
    let (_, gmail) = t.client.get("/api/integrations/gmail").await?;
    assert_eq!(gmail["status"], "disconnected");
    Ok(())
}
