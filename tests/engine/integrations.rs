//! Apps (issue 17, contract section 5) over real HTTP on loopback: the catalog and its routes'
//! answers, Read only and privacy filters, GitHub against a loopback stand-in that speaks its
//! REST shapes, and real MCP servers from npm (`@modelcontextprotocol/server-everything` over
//! stdio and streamable HTTP) whose tools run from a chat.

use sentient_engine::sync::MutexExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::{TestEngine, WAIT, point_models_at, serve_on_loopback};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn everything_server() -> PathBuf {
    repo_root().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn by_id<'a>(list: &'a Value, id: &str) -> Result<&'a Value> {
    list.as_array()
        .and_then(|l| l.iter().find(|i| i["id"] == id))
        .with_context(|| format!("{id} in {list}"))
}

/// Sends `text` in a new chat, answering every approval with `decision`, and returns the
/// chat's events up to `done`.
pub(crate) async fn chat(t: &TestEngine, text: &str) -> Result<Vec<Value>> {
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": text}))
        .await?;
    let mut events = Vec::new();
    loop {
        let event = tokio::time::timeout(WAIT * 3, ws.next_json()).await??;
        let done = event["type"] == "done";
        events.push(event);
        if done {
            return Ok(events);
        }
    }
}

pub(crate) fn tool_result<'a>(events: &'a [Value], name: &str) -> Result<&'a Value> {
    events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == name)
        .with_context(|| format!("a {name} result in {events:?}"))
}

#[tokio::test]
async fn the_catalog_lists_every_app_with_honest_states() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, list) = t.client.get("/api/integrations").await?;
    assert_eq!(status, 200);
    for id in [
        "gmail",
        "gcalendar",
        "email_imap",
        "github",
        "slack",
        "notion",
        "internet_search",
        "web",
        "webhook",
    ] {
        by_id(&list, id)?;
    }
    for id in ["slack", "notion"] {
        let app = by_id(&list, id)?;
        assert_eq!(app["connected"], false);
        assert_eq!(app["status"], "disconnected");
        assert_eq!(app["tools"], json!([]));
        let (status, body) = t
            .client
            .post(
                &format!("/api/integrations/{id}/connect"),
                json!({"fields": {"token": "x"}}),
            )
            .await?;
        assert_eq!(status, 400);
        let name = app["display_name"].as_str().unwrap_or_default();
        assert_eq!(
            body["detail"],
            format!("{name} isn't available in this version of Sentient yet.")
        );
    }
    for (id, tool) in [("internet_search", "internet_search"), ("web", "web_fetch")] {
        let app = by_id(&list, id)?;
        assert_eq!(app["connected"], true, "{app}");
        assert_eq!(app["auth_type"], "builtin");
        assert!(
            app["tools"]
                .as_array()
                .is_some_and(|t| t.iter().any(|x| x["name"] == tool)),
            "{app}"
        );
    }
    let github = by_id(&list, "github")?;
    assert_eq!(github["auth_type"], "api_key");
    assert_eq!(github["access"], "read_write");
    assert!(
        github["tools"].as_array().is_some_and(|t| t.len() == 5),
        "{github}"
    );
    let imap = by_id(&list, "email_imap")?;
    assert_eq!(
        imap["privacy_filters"],
        json!({"supported": true, "fields": ["keywords", "emails", "labels"]})
    );
    assert_eq!(
        imap["triggers"],
        json!([{"event": "new_email", "label": "New email"}])
    );
    let gcal = by_id(&list, "gcalendar")?;
    assert_eq!(
        gcal["triggers"],
        json!([{"event": "new_event", "label": "New event"}, {"event": "updated_event", "label": "Changed event"}])
    );

    let (status, body) = t.client.get("/api/integrations/nope").await?;
    assert_eq!(status, 404, "{body}");
    assert!(body["detail"].is_string());
    let (status, _) = t
        .client
        .post("/api/integrations/nope/connect", json!({"fields": {}}))
        .await?;
    assert_eq!(status, 404);
    let (status, body) = t
        .client
        .post("/api/integrations/web/test", json!({}))
        .await?;
    assert_eq!((status, &body["ok"]), (200, &json!(true)));
    let (status, body) = t
        .client
        .post("/api/integrations/github/test", json!({}))
        .await?;
    assert_eq!((status, &body["ok"]), (200, &json!(false)), "{body}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn read_only_and_privacy_filters_are_kept_and_bad_input_changes_nothing() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let (status, body) = t
        .client
        .put(
            "/api/integrations/github/access",
            json!({"access": "write"}),
        )
        .await?;
    assert_eq!(status, 422, "{body}");
    let (status, _) = t
        .client
        .put("/api/integrations/nope/access", json!({"access": "read"}))
        .await?;
    assert_eq!(status, 404);
    let (status, body) = t
        .client
        .put("/api/integrations/github/access", json!({"access": "read"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["access"], "read");
    let updated = ws.wait_for("integration.updated").await?;
    assert_eq!(updated["data"]["id"], "github");
    assert_eq!(updated["data"]["access"], "read");
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(config["integrations"]["read_only"], json!(["github"]));

    // access is saved before anything connects, even when the connect then fails.
    let (status, body) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": {"host": ""}, "access": "read"}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    // Without a server, the address is what the servers are found from.
    assert_eq!(body["detail"], "Enter your email address.");
    let (_, imap) = t.client.get("/api/integrations/email_imap").await?;
    assert_eq!(imap["access"], "read");
    assert_eq!(imap["status"], "error");
    assert_eq!(imap["error"], body["detail"]);

    let (status, filters) = t
        .client
        .get("/api/integrations/email_imap/privacy-filters")
        .await?;
    assert_eq!(
        (status, filters),
        (200, json!({"keywords": [], "emails": [], "labels": []}))
    );
    let (status, body) = t
        .client
        .put(
            "/api/integrations/email_imap/privacy-filters",
            json!({"keywords": [" Lab Results ", "lab results"], "emails": ["@clinic.example"], "labels": []}),
        )
        .await?;
    assert_eq!((status, body), (200, json!({"ok": true})));
    let (_, filters) = t
        .client
        .get("/api/integrations/email_imap/privacy-filters")
        .await?;
    assert_eq!(
        filters,
        json!({"keywords": ["lab results"], "emails": ["@clinic.example"], "labels": []})
    );
    let (status, _) = t
        .client
        .put(
            "/api/integrations/email_imap/privacy-filters",
            json!({"keywords": "x"}),
        )
        .await?;
    assert_eq!(status, 422);
    let (status, body) = t
        .client
        .put(
            "/api/integrations/github/privacy-filters",
            json!({"keywords": []}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    let (status, _) = t
        .client
        .get("/api/integrations/github/privacy-filters")
        .await?;
    assert_eq!(status, 400);
    let (_, filters) = t
        .client
        .get("/api/integrations/email_imap/privacy-filters")
        .await?;
    assert_eq!(
        filters["keywords"],
        json!(["lab results"]),
        "a refused change changed nothing"
    );
    t.stop().await;
    Ok(())
}

/// What the GitHub stand-in saw.
#[derive(Default)]
pub(crate) struct GithubLog {
    /// Method, path, Authorization header and body of each request.
    pub(crate) requests: Vec<(String, String, Option<String>, Value)>,
}

pub(crate) type Log = Arc<Mutex<GithubLog>>;

fn record(log: &Log, method: &str, path: &str, headers: &HeaderMap, body: Value) {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    log.lock_unpoisoned()
        .requests
        .push((method.to_owned(), path.to_owned(), auth, body));
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer ghp_good")
}

fn issue(number: u64, title: &str) -> Value {
    json!({
        "number": number, "title": title, "state": "open", "user": {"login": "octo"},
        "labels": [{"name": "bug"}], "comments": 1, "created_at": "2026-11-30T10:00:00Z",
        "updated_at": "2026-12-01T10:00:00Z", "html_url": format!("https://github.com/o/r/issues/{number}"),
        "repository_url": "https://api.github.com/repos/o/r", "body": "It crashes.",
    })
}

/// GitHub's REST API as far as the tools use it; any token but `ghp_good` gets 401.
pub(crate) async fn github_stand_in(log: Log) -> Result<String> {
    let unauthorized = || {
        (
            axum::http::StatusCode::UNAUTHORIZED,
            Json(json!({"message": "Bad credentials"})),
        )
    };
    let app = Router::new()
        .route(
            "/user",
            get({
                move |State(log): State<Log>, headers: HeaderMap| async move {
                    record(&log, "GET", "/user", &headers, Value::Null);
                    if authorized(&headers) {
                        (axum::http::StatusCode::OK, Json(json!({"login": "octo"})))
                    } else {
                        unauthorized()
                    }
                }
            }),
        )
        .route(
            "/search/issues",
            get(
                move |State(log): State<Log>,
                      headers: HeaderMap,
                      axum::extract::Query(q): axum::extract::Query<Vec<(String, String)>>| async move {
                    record(&log, "GET", "/search/issues", &headers, json!(q));
                    Json(json!({"total_count": 1, "items": [issue(7, "App crashes on start")]}))
                },
            ),
        )
        .route(
            "/repos/{owner}/{repo}/issues",
            post(
                move |State(log): State<Log>,
                      Path((o, r)): Path<(String, String)>,
                      headers: HeaderMap,
                      Json(body): Json<Value>| async move {
                    record(&log, "POST", &format!("/repos/{o}/{r}/issues"), &headers, body.clone());
                    Json(issue(8, body["title"].as_str().unwrap_or_default()))
                },
            ),
        )
        .route(
            "/repos/{owner}/{repo}/issues/{n}",
            patch(
                move |State(log): State<Log>,
                      Path((o, r, n)): Path<(String, String, u64)>,
                      headers: HeaderMap,
                      Json(body): Json<Value>| async move {
                    record(&log, "PATCH", &format!("/repos/{o}/{r}/issues/{n}"), &headers, body);
                    Json(issue(n, "changed"))
                },
            ),
        )
        .with_state(log);
    serve_on_loopback(app, "").await
}

pub(crate) async fn scripted(t: &TestEngine) -> Result<ScriptedModel> {
    let server = ScriptedModel::start().await;
    point_models_at(t, &server).await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"chat": {"auto_title": false}, "memory": {"extract_after_turn": false},
                   "models": {"background_quiet_s": 0}, "tools": {"approvals": {"mode": "off"}}}),
        )
        .await?;
    anyhow::ensure!(status == 200, "config: {status} {body}");
    Ok(server)
}

#[tokio::test]
async fn github_connects_with_a_checked_token_its_tools_run_and_read_only_refuses_changes()
-> Result<()> {
    let log: Log = Arc::default();
    let api = github_stand_in(log.clone()).await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        ..Endpoints::default()
    })
    .await?;
    let model = scripted(&t).await?;

    let (status, body) = t
        .client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_bad"}}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["detail"],
        "GitHub didn't accept the token. Create a new one and connect again."
    );
    let (_, github) = t.client.get("/api/integrations/github").await?;
    assert_eq!(
        (github["status"].clone(), github["connected"].clone()),
        (json!("error"), json!(false))
    );

    let (status, body) = t
        .client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_good"}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["connected"], true);
    assert_eq!(body["account_label"], "octo");
    let (_, secrets) = t.client.get("/api/secrets").await?;
    let saved = secrets
        .as_array()
        .and_then(|l| l.iter().find(|s| s["name"] == "github"))
        .context("github secret")?;
    assert_eq!(saved["set"], true, "{saved}");
    let (_, tested) = t
        .client
        .post("/api/integrations/github/test", json!({}))
        .await?;
    assert_eq!(
        tested,
        json!({"ok": true, "detail": "Connected to GitHub as octo."})
    );

    model.push(Reply::tool_call(
        "github_search_issues",
        json!({"query": "crash", "repo": "o/r"}),
    ));
    model.push(Reply::text("Found one."));
    let events = chat(&t, "Any crash issues in o/r?").await?;
    let result = tool_result(&events, "github_search_issues")?;
    assert_eq!(result["result"]["items"][0]["number"], 7, "{result}");
    assert_eq!(result["result"]["items"][0]["repo"], "o/r");
    let q = log
        .lock_unpoisoned()
        .requests
        .iter()
        .find(|r| r.1 == "/search/issues")
        .map(|r| (r.2.clone(), r.3.clone()))
        .context("search request")?;
    assert_eq!(q.0.as_deref(), Some("Bearer ghp_good"));
    assert_eq!(q.1[0], json!(["q", "crash repo:o/r"]));

    // Read only: the change is refused with the contract's sentence, even with approvals off.
    let (status, _) = t
        .client
        .put("/api/integrations/github/access", json!({"access": "read"}))
        .await?;
    assert_eq!(status, 200);
    model.push(Reply::tool_call(
        "github_update_issue",
        json!({"repo": "o/r", "number": 7, "state": "closed"}),
    ));
    model.push(Reply::text("I can't."));
    let events = chat(&t, "Close issue 7.").await?;
    let result = tool_result(&events, "github_update_issue")?;
    assert_eq!(
        result["result"]["error"],
        "GitHub is set to Read only, so Sentient can look things up there but can't change, send or delete anything. \"Update issue\" was not done. Change this in Integrations."
    );
    assert!(
        !log.lock_unpoisoned()
            .requests
            .iter()
            .any(|r| r.0 == "PATCH"),
        "nothing reached GitHub"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn disconnecting_deletes_the_token_and_turns_off_tasks_that_use_the_app() -> Result<()> {
    let log: Log = Arc::default();
    let api = github_stand_in(log.clone()).await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        ..Endpoints::default()
    })
    .await?;
    let model = scripted(&t).await?;
    let (status, _) = t
        .client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_good"}}),
        )
        .await?;
    assert_eq!(status, 200);
    let name = "Bug digest";
    model.push(Reply::text(
        json!({"name": name, "description": "List new bugs", "priority": 1,
               "schedule": {"type": "recurring", "frequency": "daily", "time": "09:00"}})
        .to_string(),
    ));
    model.push(Reply::text(
        json!({"plan": [{"tool": "github_search_issues", "description": "Find new bugs"}]})
            .to_string(),
    ));
    let (status, created) = t
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "Every morning list new bugs"}),
        )
        .await?;
    assert_eq!(status, 200, "{created}");
    let task_id = created["task_id"].as_str().context("task id")?.to_owned();
    sentient_e2e::wait_task(&t, &task_id, |t| {
        t["plan"].as_array().is_some_and(|p| !p.is_empty())
    })
    .await?;
    let (_, before) = t.client.get(&format!("/api/tasks/{task_id}")).await?;
    assert_eq!(before["enabled"], true, "{before}");
    let (status, github) = t
        .client
        .post("/api/integrations/github/disconnect", json!({}))
        .await?;
    assert_eq!(status, 200, "{github}");
    assert_eq!(github["connected"], false);
    assert_eq!(github["status"], "disconnected");
    let (_, task) = t.client.get(&format!("/api/tasks/{task_id}")).await?;
    assert_eq!(task["enabled"], false, "{task}");
    let (_, notes) = t.client.get("/api/notifications").await?;
    assert!(
        notes["notifications"].as_array().is_some_and(|n| n
            .iter()
            .any(|x| x["payload"]["event"] == "disabled" && x["task_id"] == task_id.as_str())),
        "{notes}"
    );
    let (_, secrets) = t.client.get("/api/secrets").await?;
    let saved = secrets
        .as_array()
        .and_then(|l| l.iter().find(|s| s["name"] == "github"))
        .context("github secret")?;
    assert_eq!(saved["set"], false, "the token is gone: {saved}");
    t.stop().await;
    Ok(())
}

/// Whether a process whose environment holds `marker` is running.
pub(crate) fn process_with(marker: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        std::fs::read(entry.path().join("environ"))
            .is_ok_and(|env| env.windows(marker.len()).any(|w| w == marker.as_bytes()))
    })
}

#[tokio::test]
async fn a_stdio_server_from_npm_runs_from_chat_read_only_refuses_its_write_tool_and_remove_ends_it()
-> Result<()> {
    let t = TestEngine::start().await?;
    let model = scripted(&t).await?;
    let marker = format!("SENTIENT_MCP_TEST_{}", std::process::id());
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "everything", "transport": "stdio", "command": "node",
                   "args": [everything_server(), "stdio"], "env": {"MARKER": marker}}),
        )
        .await?;
    assert_eq!(status, 200, "{server}");
    assert_eq!(server["status"], "connected", "{server}");
    assert_eq!(server["env_keys"], json!(["MARKER"]));
    assert_eq!(server["missing_values"], json!([]));
    assert!(server.get("env").is_none(), "values are never shown");
    let tools = server["tools"].as_array().context("tools")?;
    let echo = tools
        .iter()
        .find(|x| x["mcp_name"] == "echo")
        .context("echo")?;
    assert_eq!(echo["name"], "mcp_everything_echo");
    assert_eq!(echo["risk"], "read");
    let write = tools
        .iter()
        .find(|x| x["risk"] == "write")
        .context("a write tool")?;
    assert!(process_with(&marker), "the server runs");
    // The env value is in the keychain, never in the settings file.
    let settings = std::fs::read_to_string(t.home().join("config.yaml"))?;
    assert!(
        settings.contains("everything") && !settings.contains(&marker),
        "{settings}"
    );
    let stored = t
        .engine
        .services()
        .secrets()
        .read_entry("mcp:everything")
        .await?;
    assert!(stored.is_some_and(|v| v.contains(&marker)));

    let (_, apps) = t.client.get("/api/integrations").await?;
    let app = by_id(&apps, "mcp_everything")?;
    assert_eq!(
        (app["auth_type"].clone(), app["connected"].clone()),
        (json!("mcp"), json!(true))
    );

    model.push(Reply::tool_call(
        "mcp_everything_echo",
        json!({"message": "hello there"}),
    ));
    model.push(Reply::text("It said hello."));
    let events = chat(&t, "Echo hello there.").await?;
    let result = tool_result(&events, "mcp_everything_echo")?;
    assert_eq!(result["result"]["content"], "Echo: hello there", "{result}");

    let (status, body) = t
        .client
        .post(
            "/api/integrations/mcp/everything/access",
            json!({"access": "read"}),
        )
        .await?;
    assert_eq!((status, &body["access"]), (200, &json!("read")), "{body}");
    let write_name = write["name"].as_str().context("name")?;
    model.push(Reply::tool_call(write_name, json!({})));
    model.push(Reply::text("Refused."));
    let events = chat(&t, "Toggle it.").await?;
    let result = tool_result(&events, write_name)?;
    let error = result["result"]["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("everything is set to Read only, so Sentient can look things up there but can't change, send or delete anything.")
            && error.ends_with("was not done. Change this in Integrations."),
        "{result}"
    );

    let (status, tested) = t
        .client
        .post("/api/integrations/mcp/everything/test", json!({}))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(tested["ok"], true, "{tested}");
    assert!(
        tested["tools"]
            .as_array()
            .is_some_and(|l| l.iter().any(|n| n == "mcp_everything_echo"))
    );

    let (status, body) = t.client.delete("/api/integrations/mcp/everything").await?;
    assert_eq!((status, body), (200, json!({"ok": true})));
    sentient_e2e::eventually("the server process to end", || async {
        Ok((!process_with(&marker)).then_some(()))
    })
    .await?;
    let (_, list) = t.client.get("/api/integrations/mcp").await?;
    assert_eq!(list, json!([]));
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(
        config["integrations"]["read_only"],
        json!([]),
        "its Read only setting is gone"
    );
    let (status, _) = t.client.delete("/api/integrations/mcp/everything").await?;
    assert_eq!(status, 404);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn an_http_server_from_npm_connects_and_bad_servers_are_refused_plainly() -> Result<()> {
    let t = TestEngine::start().await?;
    // server-everything over streamable HTTP on a free loopback port.
    let (mut child, url) = sentient_e2e::everything_over_http().await?;
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "remote", "transport": "http", "url": url}),
        )
        .await?;
    assert_eq!(status, 200, "{server}");
    assert_eq!(server["status"], "connected", "{server}");
    assert_eq!(server["auth"], "none");
    assert!(
        server["tools"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x["name"] == "mcp_remote_get-sum"))
    );

    let (status, off) = t
        .client
        .post(
            "/api/integrations/mcp/remote/enabled",
            json!({"enabled": false}),
        )
        .await?;
    assert_eq!(status, 200);
    assert_eq!(
        (off["enabled"].clone(), off["status"].clone()),
        (json!(false), json!("disabled"))
    );
    let (status, _) = t
        .client
        .post(
            "/api/integrations/mcp/remote/enabled",
            json!({"enabled": "no"}),
        )
        .await?;
    assert_eq!(status, 422);
    let (status, _) = t
        .client
        .post(
            "/api/integrations/mcp/ghost/enabled",
            json!({"enabled": true}),
        )
        .await?;
    assert_eq!(status, 404);
    let (status, body) = t
        .client
        .post(
            "/api/integrations/mcp/remote/values",
            json!({"values": {"X-Key": "k"}}),
        )
        .await?;
    assert_eq!(status, 400, "a name the server doesn't list: {body}");
    let (status, _) = t
        .client
        .post(
            "/api/integrations/mcp/remote/values",
            json!({"values": {}, "enable": "yes"}),
        )
        .await?;
    assert_eq!(status, 422);

    for (bad, why) in [
        (
            json!({"name": "bad name", "transport": "stdio", "command": "node"}),
            "name",
        ),
        (json!({"name": "s", "transport": "stdio"}), "no command"),
        (
            json!({"name": "s", "transport": "stdio", "command": "node", "headers": {"A": "b"}}),
            "stdio headers",
        ),
        (
            json!({"name": "s", "transport": "stdio", "command": "node", "auth": "oauth"}),
            "stdio oauth",
        ),
        (json!({"name": "s", "transport": "http"}), "no url"),
        (
            json!({"name": "s", "transport": "http", "url": "https://x.example/mcp", "auth": "headers"}),
            "headers without headers",
        ),
        (
            json!({"name": "s", "transport": "http", "url": "https://x.example/mcp", "headers": {"Bad Name": "v"}}),
            "header name",
        ),
        (
            json!({"name": "s", "transport": "http", "url": "https://x.example/mcp", "headers": {"A": "v\nw"}}),
            "line break",
        ),
        (
            json!({"name": "s", "transport": "http", "url": "http://x.example/mcp", "headers": {"A": "v"}}),
            "plain http elsewhere",
        ),
        (json!({"name": "s", "transport": "ftp"}), "transport"),
        (
            json!({"name": "s", "transport": "stdio", "command": "node", "colour": "red"}),
            "unknown field",
        ),
    ] {
        let (status, body) = t.client.post("/api/integrations/mcp", bad).await?;
        assert_eq!(status, 400, "{why}: {body}");
        assert!(body["detail"].is_string(), "{why}: {body}");
    }
    let (_, list) = t.client.get("/api/integrations/mcp").await?;
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(1),
        "refused servers changed nothing: {list}"
    );

    let (status, body) = t
        .client
        .post("/api/integrations/mcp/remote/sign-in", json!({}))
        .await?;
    assert_eq!(status, 400, "{body}");
    let (status, _) = t
        .client
        .post("/api/integrations/mcp/ghost/sign-in", json!({}))
        .await?;
    assert_eq!(status, 404);
    t.stop().await;
    let _ = child.kill().await;
    Ok(())
}

#[tokio::test]
async fn a_server_that_does_not_start_says_why_and_a_slow_one_never_holds_up_health() -> Result<()>
{
    let t = TestEngine::start().await?;
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "broken", "transport": "stdio", "command": "/nonexistent/program"}),
        )
        .await?;
    assert_eq!(status, 200, "{server}");
    assert_eq!(server["status"], "error");
    assert!(
        server["error"]
            .as_str()
            .is_some_and(|e| e.contains("could not be started")),
        "{server}"
    );

    // A program that never answers: adding it waits (up to 15 s), but health answers at once.
    let adding = {
        let client = t.client.clone();
        tokio::spawn(async move {
            client
                .post(
                    "/api/integrations/mcp",
                    json!({"name": "silent", "transport": "stdio", "command": "sleep", "args": ["60"]}),
                )
                .await
        })
    };
    // Wait until the engine is connecting to it (it is saved and listed).
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, list) = t.client.get("/api/integrations/mcp").await?;
        let connecting = list.as_array().is_some_and(|l| {
            l.iter()
                .any(|s| s["name"] == "silent" && s["status"] == "connecting")
        });
        if connecting {
            break;
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "the silent server was never listed: {list}"
        );
        tokio::time::sleep(sentient_e2e::POLL).await;
    }
    let started = std::time::Instant::now();
    let (status, _) = t.client.get("/api/health").await?;
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "health took {:?}",
        started.elapsed()
    );
    let (_, list) = t.client.get("/api/integrations/mcp").await?;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the list waited on the server"
    );
    assert!(list.as_array().is_some_and(|l| l.len() == 2), "{list}");
    adding.abort();
    t.stop().await;
    Ok(())
}

/// The tool names the model was offered in its latest request.
fn offered(model: &ScriptedModel) -> Vec<String> {
    model
        .requests_to("/api/chat")
        .last()
        .and_then(|r| r.body["tools"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_disconnected_apps_tools_are_listed_but_not_offered_and_read_only_hides_its_changes()
-> Result<()> {
    let log: Log = Arc::default();
    let api = github_stand_in(log).await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        ..Endpoints::default()
    })
    .await?;
    let model = scripted(&t).await?;
    model.push(Reply::text("Hi."));
    chat(&t, "Hello").await?;
    let names = offered(&model);
    assert!(names.iter().any(|n| n == "time_now"), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("github_") || n.starts_with("gmail_")),
        "{names:?}"
    );

    t.client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_good"}}),
        )
        .await?;
    model.push(Reply::text("Hi."));
    chat(&t, "Hello again").await?;
    let names = offered(&model);
    assert!(
        names.iter().any(|n| n == "github_create_issue"),
        "{names:?}"
    );

    t.client
        .put("/api/integrations/github/access", json!({"access": "read"}))
        .await?;
    model.push(Reply::text("Hi."));
    chat(&t, "And again").await?;
    let names = offered(&model);
    assert!(
        names.iter().any(|n| n == "github_search_issues"),
        "{names:?}"
    );
    assert!(
        !names
            .iter()
            .any(|n| n == "github_create_issue" || n == "github_comment"),
        "{names:?}"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn switching_to_read_only_while_a_change_waits_for_approval_refuses_it() -> Result<()> {
    let log: Log = Arc::default();
    let api = github_stand_in(log.clone()).await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        ..Endpoints::default()
    })
    .await?;
    let model = scripted(&t).await?;
    t.client
        .patch(
            "/api/config",
            json!({"tools": {"approvals": {"mode": "ask"}}}),
        )
        .await?;
    t.client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_good"}}),
        )
        .await?;
    model.push(Reply::tool_call(
        "github_create_issue",
        json!({"repo": "o/r", "title": "Crash"}),
    ));
    model.push(Reply::text("Done."));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "File a crash issue."}))
        .await?;
    let question = ws.wait_for("approval_request").await?;
    assert_eq!(question["name"], "github_create_issue");
    let (status, _) = t
        .client
        .put("/api/integrations/github/access", json!({"access": "read"}))
        .await?;
    assert_eq!(status, 200);
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "allow"}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    assert!(
        result["result"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("GitHub is set to Read only")),
        "{result}"
    );
    assert!(
        !log.lock_unpoisoned().requests.iter().any(|r| r.0 == "POST"),
        "nothing reached GitHub"
    );
    t.stop().await;
    Ok(())
}

fn filesystem_server() -> PathBuf {
    repo_root().join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
}

#[tokio::test]
async fn the_npm_filesystem_server_reads_from_chat_and_its_writes_follow_read_only() -> Result<()> {
    let t = TestEngine::start().await?;
    let model = scripted(&t).await?;
    let shared = tempfile::tempdir()?;
    let folder = shared.path().canonicalize()?;
    std::fs::write(folder.join("notes.txt"), "Buy oat milk.")?;
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "files", "transport": "stdio", "command": "node",
                   "args": [filesystem_server(), folder]}),
        )
        .await?;
    assert_eq!(
        (status, server["status"].clone()),
        (200, json!("connected")),
        "{server}"
    );
    let tools = server["tools"].as_array().context("tools")?;
    let risk = |name: &str| {
        tools
            .iter()
            .find(|x| x["mcp_name"] == name)
            .map(|x| x["risk"].clone())
    };
    assert_eq!(
        risk("read_text_file"),
        Some(json!("read")),
        "the server marks reads read-only"
    );
    assert_eq!(risk("write_file"), Some(json!("write")));

    let path = folder.join("notes.txt");
    model.push(Reply::tool_call(
        "mcp_files_read_text_file",
        json!({"path": path}),
    ));
    model.push(Reply::text("Oat milk."));
    let events = chat(&t, "What do my notes say?").await?;
    let result = tool_result(&events, "mcp_files_read_text_file")?;
    assert!(
        result["result"]["content"]
            .as_str()
            .is_some_and(|c| c.contains("Buy oat milk.")),
        "{result}"
    );

    t.client
        .post(
            "/api/integrations/mcp/files/access",
            json!({"access": "read"}),
        )
        .await?;
    let target = folder.join("new.txt");
    model.push(Reply::tool_call(
        "mcp_files_write_file",
        json!({"path": target, "content": "x"}),
    ));
    model.push(Reply::text("Refused."));
    let events = chat(&t, "Write a file.").await?;
    let result = tool_result(&events, "mcp_files_write_file")?;
    assert!(
        result["result"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("files is set to Read only")),
        "{result}"
    );
    assert!(!target.exists(), "nothing was written");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_tool_call_that_takes_too_long_ends_with_a_plain_error() -> Result<()> {
    let t = TestEngine::start().await?;
    t.client
        .patch("/api/config", json!({"integrations": {"mcp_timeout_s": 5}}))
        .await?;
    let (_, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "everything", "transport": "stdio", "command": "node", "args": [everything_server(), "stdio"]}),
        )
        .await?;
    assert_eq!(server["status"], "connected", "{server}");
    let tools = t.engine.services().agent().tools().clone();
    let ctx = t.engine.services().agent().tool_ctx("slow-1");
    let started = std::time::Instant::now();
    let result = tools
        .invoke(
            "mcp_everything_trigger-long-running-operation",
            json!({"duration": 30, "steps": 2}),
            &ctx,
            10_000,
        )
        .await;
    assert!(result.is_error, "{}", result.content);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        result.value["error"]
            .as_str()
            .is_some_and(|e| e.contains("didn't answer within 5 seconds")),
        "{}",
        result.value
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn githubs_device_flow_shows_a_code_slows_down_when_asked_and_connects() -> Result<()> {
    #[derive(Default)]
    struct Device {
        polls: Vec<std::time::Instant>,
    }
    let device: Arc<Mutex<Device>> = Arc::default();
    let log: Log = Arc::default();
    let api = github_stand_in(log).await?;
    let web = {
        let device = device.clone();
        let app = Router::new()
            .route(
                "/login/device/code",
                post(|axum::extract::Form(form): axum::extract::Form<Vec<(String, String)>>| async move {
                    assert!(form.contains(&("client_id".to_owned(), "Iv1.test".to_owned())));
                    Json(json!({"device_code": "dc", "user_code": "WDJB-MJHT",
                        "verification_uri": "https://github.com/login/device", "expires_in": 900, "interval": 1}))
                }),
            )
            .route(
                "/login/oauth/access_token",
                post(move || {
                    let device = device.clone();
                    async move {
                        let mut d = device.lock_unpoisoned();
                        d.polls.push(std::time::Instant::now());
                        Json(match d.polls.len() {
                            1 => json!({"error": "authorization_pending"}),
                            2 => json!({"error": "slow_down", "interval": 2}),
                            _ => json!({"access_token": "ghp_good", "token_type": "bearer"}),
                        })
                    }
                }),
            );
        serve_on_loopback(app, "").await?
    };
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        github_web: web,
        ..Endpoints::default()
    })
    .await?;
    t.client
        .patch(
            "/api/config",
            json!({"integrations": {"github_oauth_client_id": "Iv1.test"}}),
        )
        .await?;
    let mut ws = t.ws().await?;
    let (status, answer) = t
        .client
        .post("/api/integrations/github/connect", json!({"fields": {}}))
        .await?;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["user_code"], "WDJB-MJHT");
    assert_eq!(answer["auth_url"], "https://github.com/login/device");
    assert!(answer["state"].is_string());
    loop {
        let event = tokio::time::timeout(WAIT, ws.wait_for("integration.updated")).await??;
        if event["data"]["id"] == "github" && event["data"]["connected"] == true {
            assert_eq!(event["data"]["account_label"], "octo");
            break;
        }
    }
    let polls = device.lock_unpoisoned().polls.clone();
    assert_eq!(polls.len(), 3);
    assert!(
        polls[2] - polls[1] >= Duration::from_millis(1900),
        "slow_down was honoured: {:?}",
        polls[2] - polls[1]
    );
    let saved = t.engine.services().secrets().get("github").await?;
    assert_eq!(saved.as_deref(), Some("ghp_good"));
    t.stop().await;
    Ok(())
}
