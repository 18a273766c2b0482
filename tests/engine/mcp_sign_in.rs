//! Signing in to a remote tool server (issue 17, the MCP authorization spec): the npm
//! server-everything over streamable HTTP behind a loopback gate that speaks the spec's wire
//! formats: protected resource metadata (RFC 9728), authorization server metadata (RFC 8414),
//! client registration (RFC 7591), PKCE S256 with `resource` (RFC 8707), a 401 with
//! `WWW-Authenticate` for a missing or stale token, and refresh.

use sentient_engine::sync::MutexExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::{Form, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use futures::StreamExt;
use sentient_e2e::sentient_engine::integrations::oauth::challenge_of;
use sentient_e2e::{TestEngine, serve_on_loopback};
use serde_json::{Value, json};

#[derive(Default)]
struct Gate {
    base: String,
    upstream: String,
    /// The one access token the gate accepts now.
    valid: String,
    codes: HashMap<String, String>,
    registrations: Vec<Value>,
    grants: Vec<String>,
    resources: Vec<String>,
}

type Shared = Arc<Mutex<Gate>>;

fn lock(g: &Shared) -> std::sync::MutexGuard<'_, Gate> {
    g.lock_unpoisoned()
}

async fn resource_meta(State(g): State<Shared>) -> Json<Value> {
    let base = lock(&g).base.clone();
    Json(
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [format!("{base}/as")], "scopes_supported": ["tools"]}),
    )
}

async fn server_meta(State(g): State<Shared>) -> Json<Value> {
    let base = lock(&g).base.clone();
    Json(
        json!({"issuer": format!("{base}/as"), "authorization_endpoint": format!("{base}/as/authorize"),
                "token_endpoint": format!("{base}/as/token"), "registration_endpoint": format!("{base}/as/register"),
                "code_challenge_methods_supported": ["S256"], "response_types_supported": ["code"]}),
    )
}

async fn register(State(g): State<Shared>, Json(body): Json<Value>) -> Json<Value> {
    let mut g = lock(&g);
    g.registrations.push(body);
    Json(json!({"client_id": format!("client-{}", g.registrations.len())}))
}

async fn authorize(State(g): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut g = lock(&g);
    g.resources
        .push(q.get("resource").cloned().unwrap_or_default());
    let code = format!("code-{}", g.codes.len());
    g.codes.insert(
        code.clone(),
        q.get("code_challenge").cloned().unwrap_or_default(),
    );
    let redirect = q.get("redirect_uri").cloned().unwrap_or_default();
    let state = q.get("state").cloned().unwrap_or_default();
    Redirect::to(&format!("{redirect}?code={code}&state={state}")).into_response()
}

async fn token(State(g): State<Shared>, Form(form): Form<HashMap<String, String>>) -> Response {
    let mut g = lock(&g);
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    g.grants.push(grant.clone());
    let resource_ok = form.get("resource") == Some(&format!("{}/mcp", g.base));
    match grant.as_str() {
        "authorization_code" if resource_ok => {
            let challenge = g
                .codes
                .remove(form.get("code").map_or("", String::as_str))
                .unwrap_or_default();
            if challenge_of(form.get("code_verifier").map_or("", String::as_str)) != challenge {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "invalid_grant"})),
                )
                    .into_response();
            }
            g.valid = "tok-1".to_owned();
            Json(json!({"access_token": "tok-1", "refresh_token": "r1", "expires_in": 3600, "token_type": "Bearer"})).into_response()
        }
        "refresh_token"
            if resource_ok && form.get("refresh_token").map(String::as_str) == Some("r1") =>
        {
            g.valid = "tok-2".to_owned();
            Json(json!({"access_token": "tok-2", "expires_in": 3600, "token_type": "Bearer"}))
                .into_response()
        }
        _ => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response(),
    }
}

/// `/mcp`: a valid bearer passes through to server-everything, anything else gets the 401.
async fn gate(State(g): State<Shared>, headers: HeaderMap, request: Request) -> Response {
    let (base, upstream, valid) = {
        let g = lock(&g);
        (g.base.clone(), g.upstream.clone(), g.valid.clone())
    };
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if valid.is_empty() || bearer != format!("Bearer {valid}") {
        let challenge =
            format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"");
        return (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", challenge)],
            "sign in",
        )
            .into_response();
    }
    let method = request.method().clone();
    let Ok(body) = axum::body::to_bytes(request.into_body(), 1 << 20).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let mut forward = reqwest::Client::new().request(method, &upstream).body(body);
    for name in [
        "content-type",
        "accept",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
    ] {
        if let Some(value) = headers.get(name) {
            forward = forward.header(name, value.as_bytes());
        }
    }
    let Ok(answer) = forward.send().await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let mut response = Response::builder().status(answer.status().as_u16());
    for name in ["content-type", "mcp-session-id"] {
        if let Some(value) = answer.headers().get(name) {
            response = response.header(name, value.as_bytes());
        }
    }
    let stream = answer
        .bytes_stream()
        .map(|chunk| chunk.map_err(std::io::Error::other));
    response
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

fn everything() -> String {
    format!(
        "{}/../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        env!("CARGO_MANIFEST_DIR")
    )
}

async fn server(t: &TestEngine, name: &str) -> Result<Value> {
    let (_, list) = t.client.get("/api/integrations/mcp").await?;
    list.as_array()
        .and_then(|l| l.iter().find(|s| s["name"] == name))
        .cloned()
        .with_context(|| format!("{name} in {list}"))
}

/// The gate on a free loopback port in front of `upstream`; answers its state and base address.
async fn start_gate(upstream: &str) -> Result<(Shared, String)> {
    let shared: Shared = Arc::default();
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_meta),
        )
        .route("/.well-known/oauth-protected-resource", get(resource_meta))
        .route(
            "/.well-known/oauth-authorization-server/as",
            get(server_meta),
        )
        .route("/as/register", post(register))
        .route("/as/authorize", get(authorize))
        .route("/as/token", post(token))
        .route("/mcp", any(gate))
        .with_state(shared.clone());
    let base = serve_on_loopback(app, "").await?;
    {
        let mut g = lock(&shared);
        g.base = base.clone();
        g.upstream = upstream.to_owned();
    }
    Ok((shared, base))
}

/// Follows a sign-in's `auth_url` as a browser would, through the gate's redirect to the
/// engine's callback page, and answers that page's text.
async fn finish_in_browser(auth_url: &str) -> Result<String> {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let back = browser.get(auth_url).send().await?;
    let callback = back
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .context("redirect")?
        .to_owned();
    let page = browser.get(&callback).send().await?;
    anyhow::ensure!(page.status().as_u16() == 200, "callback {}", page.status());
    Ok(page.text().await?)
}

#[tokio::test]
async fn a_remote_server_is_signed_in_to_through_discovery_registration_and_pkce() -> Result<()> {
    let (mut child, upstream) = sentient_e2e::everything_over_http().await?;
    let (shared, base) = start_gate(&upstream).await?;
    let url = format!("{base}/mcp");

    let t = TestEngine::start().await?;
    let (status, added) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "secure", "transport": "http", "url": url}),
        )
        .await?;
    assert_eq!(status, 200, "{added}");
    assert_eq!(added["status"], "needs_sign_in", "{added}");
    assert_eq!(added["error"], "This server asks you to sign in.");
    assert_eq!(
        (added["signed_in"].clone(), added["signing_in"].clone()),
        (json!(false), json!(false))
    );

    let (status, started) = t
        .client
        .post("/api/integrations/mcp/secure/sign-in", json!({}))
        .await?;
    assert_eq!(status, 200, "{started}");
    let auth_url = started["auth_url"].as_str().context("auth_url")?.to_owned();
    assert!(
        auth_url.starts_with(&format!("{base}/as/authorize?")),
        "{auth_url}"
    );
    assert!(
        auth_url.contains("code_challenge_method=S256") && auth_url.contains("resource="),
        "{auth_url}"
    );
    assert_eq!(server(&t, "secure").await?["signing_in"], true);
    {
        let g = lock(&shared);
        assert_eq!(g.registrations.len(), 1);
        assert_eq!(g.registrations[0]["client_name"], "Sentient");
        assert_eq!(g.registrations[0]["token_endpoint_auth_method"], "none");
    }

    assert!(
        finish_in_browser(&auth_url)
            .await?
            .contains("You're connected")
    );
    assert_eq!(lock(&shared).resources, std::slice::from_ref(&url));

    let signed = server(&t, "secure").await?;
    assert_eq!(signed["status"], "connected", "{signed}");
    assert_eq!(
        (
            signed["auth"].clone(),
            signed["signed_in"].clone(),
            signed["signing_in"].clone()
        ),
        (json!("oauth"), json!(true), json!(false))
    );
    assert!(
        signed["tools"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x["name"] == "mcp_secure_echo")),
        "{signed}"
    );
    let stored = t
        .engine
        .services()
        .secrets()
        .read_entry("mcp:secure:oauth")
        .await?
        .context("tokens")?;
    let stored: Value = serde_json::from_str(&stored)?;
    assert_eq!(stored["server_url"], url.as_str());
    assert_eq!(
        stored["metadata"]["token_endpoint"],
        format!("{base}/as/token")
    );

    // The token goes stale: one refresh, then connected again.
    lock(&shared).valid = "revoked".to_owned();
    let (_, tested) = t
        .client
        .post("/api/integrations/mcp/secure/test", json!({}))
        .await?;
    assert_eq!(tested["ok"], true, "{tested}");
    assert!(lock(&shared).grants.contains(&"refresh_token".to_owned()));

    // Sign out: the tokens go, the registration stays, the server needs a sign-in.
    let (status, out) = t
        .client
        .post("/api/integrations/mcp/secure/sign-out", json!({}))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(
        (out["status"].clone(), out["signed_in"].clone()),
        (json!("needs_sign_in"), json!(false)),
        "{out}"
    );
    assert_eq!(out["error"], "Sign in to use this server.");
    assert_eq!(
        t.engine
            .services()
            .secrets()
            .read_entry("mcp:secure:oauth")
            .await?,
        None
    );
    assert!(
        t.engine
            .services()
            .secrets()
            .read_entry("mcp:secure:client")
            .await?
            .is_some()
    );
    let (_, again) = t
        .client
        .post("/api/integrations/mcp/secure/sign-in", json!({}))
        .await?;
    assert!(again["auth_url"].is_string());
    assert_eq!(
        lock(&shared).registrations.len(),
        1,
        "the registration is reused"
    );

    // A server that never asked for a sign-in, and a local program, are refused.
    let (_, _) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "open", "transport": "http", "url": upstream}),
        )
        .await?;
    let (status, body) = t
        .client
        .post("/api/integrations/mcp/open/sign-in", json!({}))
        .await?;
    assert_eq!(status, 400, "{body}");
    let (_, _) = t
        .client
        .post("/api/integrations/mcp", json!({"name": "local", "transport": "stdio", "command": "node", "args": [everything(), "stdio"]}))
        .await?;
    let (status, _) = t
        .client
        .post("/api/integrations/mcp/local/sign-in", json!({}))
        .await?;
    assert_eq!(status, 400);

    // Removing it deletes the sign-in and the registration too.
    t.client.delete("/api/integrations/mcp/secure").await?;
    assert_eq!(
        t.engine
            .services()
            .secrets()
            .read_entry("mcp:secure:client")
            .await?,
        None
    );
    t.stop().await;
    let _ = child.kill().await;
    Ok(())
}

#[tokio::test]
async fn our_own_server_behind_a_sign_in_runs_its_tools_once_signed_in() -> Result<()> {
    use sentient_mcp_test_server::{NoteBook, Notes, serve_http};
    let notes = Notes::default();
    let stop = tokio_util::sync::CancellationToken::new();
    let upstream = serve_http(NoteBook::new(notes.clone(), None), stop.clone()).await?;
    let (shared, base) = start_gate(&upstream).await?;
    let t = TestEngine::start().await?;
    let (status, added) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "book", "transport": "http", "url": format!("{base}/mcp")}),
        )
        .await?;
    assert_eq!(status, 200, "{added}");
    assert_eq!(added["status"], "needs_sign_in", "{added}");
    assert_eq!(added["tools"], json!([]), "no tools before the sign-in");

    let (_, started) = t
        .client
        .post("/api/integrations/mcp/book/sign-in", json!({}))
        .await?;
    let auth_url = started["auth_url"].as_str().context("auth_url")?;
    assert!(
        finish_in_browser(auth_url)
            .await?
            .contains("You're connected")
    );
    let signed = server(&t, "book").await?;
    assert_eq!(signed["status"], "connected", "{signed}");
    assert!(
        signed["tools"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x["name"] == "mcp_book_save_note")),
        "{signed}"
    );
    assert_eq!(lock(&shared).grants, ["authorization_code"]);

    // A tool call goes through the gate with the token and reaches our server.
    let tool = t
        .engine
        .services()
        .tools()
        .get("mcp_book_save_note")
        .context("the tool is registered")?;
    let ctx = t.engine.services().agent().tool_ctx("call-1");
    tool.call(json!({"text": "signed in"}), &ctx)
        .await
        .map_err(|e| anyhow::anyhow!("the call failed: {e}"))?;
    assert_eq!(*notes.lock_unpoisoned(), ["signed in"]);
    t.stop().await;
    stop.cancel();
    Ok(())
}
