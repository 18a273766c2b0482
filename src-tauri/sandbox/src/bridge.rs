//! The endpoint one script run reaches Sentient's tools through ([`Door`]: a Unix socket in the
//! run's folder, request files for a container, or `127.0.0.1` on a free port where there are
//! no Unix sockets), for this run only, behind a one-time token compared in constant time
//! (anything else gets 403). Each call goes to [`Agent::run_script_call`], which decides it with the settings
//! as they are at that moment; this side only counts calls against `sandbox.max_tool_calls`
//! and keeps what the script reported (its `result(...)` and its error).

use sentient_core::sync::MutexExt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use sentient_agent::Agent;
use sentient_agent::script_calls::{ScriptCallOutcome, ScriptPolicy, ScriptRun};

/// Results and arguments can be large (a whole page of text); the script is local.
const MOST_BODY_BYTES: usize = 64 * 1024 * 1024;

/// What the script's runner reports when the script could not finish.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ScriptFailure {
    /// `syntax`, `runtime` or `exit`.
    pub kind: String,
    pub line: Option<u32>,
    pub message: String,
    /// The failing line's text, when known.
    #[serde(default)]
    pub code: String,
}

/// One run's side of the endpoint.
pub struct Bridge {
    agent: Agent,
    run: ScriptRun,
    policy: ScriptPolicy,
    token: String,
    max_calls: u32,
    /// Calls that ran or are running; a refused call gives its place back.
    used: AtomicU32,
    result: Mutex<Option<Value>>,
    failure: Mutex<Option<ScriptFailure>>,
}

impl Bridge {
    pub fn new(agent: Agent, run: ScriptRun, policy: ScriptPolicy, max_calls: u32) -> Self {
        Self {
            agent,
            run,
            policy,
            token: hex::encode(rand::random::<[u8; 32]>()),
            max_calls,
            used: AtomicU32::new(0),
            result: Mutex::new(None),
            failure: Mutex::new(None),
        }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Tool calls that ran.
    pub fn tool_calls(&self) -> u32 {
        self.used.load(Ordering::SeqCst)
    }

    /// The value the script gave `result(...)`, if it did.
    pub fn result(&self) -> Option<Value> {
        self.result.lock_unpoisoned().clone()
    }

    /// What the runner reported when the script failed, if it did.
    pub fn failure(&self) -> Option<ScriptFailure> {
        self.failure.lock_unpoisoned().clone()
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        let given = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        bool::from(given.as_bytes().ct_eq(self.token.as_bytes()))
    }

    /// Takes a place for one call; `false` once `max_calls` have run.
    fn reserve(&self) -> bool {
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.max_calls).then_some(n + 1)
            })
            .is_ok()
    }
}

/// How a run's script reaches its bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Door {
    /// `127.0.0.1` on a free port (systems without Unix sockets).
    Loopback,
    /// A Unix socket at this path in the run's folder: it works without a network, so a
    /// contained script (with none) reaches it, and nothing else on the computer can connect
    /// without reaching into the folder.
    Socket(std::path::PathBuf),
    /// Request files in this folder of the run's folder (a container, which shares only the
    /// folder).
    Files(std::path::PathBuf),
}

/// The endpoint while it serves; [`Endpoint::close`] ends it.
pub struct Endpoint {
    /// For the script, once its folder is mapped: `http://127.0.0.1:<port>`, or the socket's
    /// or the request folder's path outside.
    pub door: Door,
    pub url: String,
    stop: CancellationToken,
    server: tokio::task::JoinHandle<()>,
}

impl Endpoint {
    /// Stops taking calls; calls still running end with the run's token.
    pub fn close(self) {
        self.stop.cancel();
        self.server.abort();
    }
}

fn router(bridge: Arc<Bridge>) -> Router {
    Router::new()
        .route("/call", post(call))
        .route("/available", get(available))
        .route("/result", post(set_result))
        .route("/error", post(report_failure))
        .layer(DefaultBodyLimit::max(MOST_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            bridge.clone(),
            require_token,
        ))
        .with_state(bridge)
}

/// Serves `bridge` through `door`.
pub async fn serve(bridge: Arc<Bridge>, door: Door) -> std::io::Result<Endpoint> {
    let app = router(bridge);
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let (url, server) = match &door {
        Door::Loopback => {
            let listener =
                tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
            let url = format!("http://{}", listener.local_addr()?);
            (url, spawn_serving(listener, app, stopped))
        }
        #[cfg(unix)]
        Door::Socket(path) => {
            let listener = tokio::net::UnixListener::bind(path)?;
            (
                path.display().to_string(),
                spawn_serving(listener, app, stopped),
            )
        }
        #[cfg(not(unix))]
        Door::Socket(_) => {
            return Err(std::io::Error::other(
                "Unix sockets aren't available on this system",
            ));
        }
        Door::Files(folder) => {
            std::fs::create_dir_all(folder)?;
            let server = tokio::spawn(crate::request_files::serve(folder.clone(), app, stopped));
            (folder.display().to_string(), server)
        }
    };
    Ok(Endpoint {
        door,
        url,
        stop,
        server,
    })
}

/// Serves `app` on `listener` (loopback TCP or a Unix socket) until `stop`.
fn spawn_serving<L>(
    listener: L,
    app: Router,
    stop: CancellationToken,
) -> tokio::task::JoinHandle<()>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    tokio::spawn(async move {
        let serving = axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned());
        if let Err(error) = serving.await {
            tracing::warn!(%error, "a script's tool endpoint stopped with an error");
        }
    })
}

/// Every request, before its body is read: the run's token or 403.
async fn require_token(
    State(bridge): State<Arc<Bridge>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if bridge.authorized(request.headers()) {
        next.run(request).await
    } else {
        forbidden()
    }
}

fn forbidden() -> Response {
    (
        StatusCode::FORBIDDEN,
        Json(json!({"error": "This endpoint belongs to another script run."})),
    )
        .into_response()
}

#[derive(Debug, Deserialize)]
struct CallBody {
    name: String,
    #[serde(default)]
    arguments: Value,
}

async fn call(State(bridge): State<Arc<Bridge>>, Json(body): Json<CallBody>) -> Response {
    if !bridge.reserve() {
        let most = bridge.max_calls;
        return Json(json!({
            "ok": false,
            "refused": true,
            "error": format!("This script has already made {most} tool calls, the most one script may make (Settings > Scripts). Do the rest in another step."),
        }))
        .into_response();
    }
    let outcome = bridge
        .agent
        .run_script_call(&bridge.run, &bridge.policy, &body.name, body.arguments)
        .await;
    if !outcome.ran() {
        bridge.used.fetch_sub(1, Ordering::SeqCst);
    }
    let answer = match outcome {
        ScriptCallOutcome::Ran(value) => json!({"ok": true, "value": value}),
        ScriptCallOutcome::Refused(error) => json!({"ok": false, "refused": true, "error": error}),
        ScriptCallOutcome::Failed(error) => {
            json!({"ok": false, "refused": false, "error": error})
        }
    };
    Json(answer).into_response()
}

async fn available(State(bridge): State<Arc<Bridge>>) -> Response {
    Json(json!({"tools": bridge.agent.script_tool_names(&bridge.policy)})).into_response()
}

#[derive(Debug, Deserialize)]
struct ResultBody {
    #[serde(default)]
    value: Value,
}

async fn set_result(State(bridge): State<Arc<Bridge>>, Json(body): Json<ResultBody>) -> Response {
    *bridge.result.lock_unpoisoned() = Some(body.value);
    Json(json!({"ok": true})).into_response()
}

async fn report_failure(
    State(bridge): State<Arc<Bridge>>,
    Json(body): Json<ScriptFailure>,
) -> Response {
    *bridge.failure.lock_unpoisoned() = Some(body);
    Json(json!({"ok": true})).into_response()
}
