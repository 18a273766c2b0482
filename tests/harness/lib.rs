//! The test harness: starts a real engine in this process (fresh home, port 0, known token)
//! and gives back an HTTP client and a WebSocket client that collects events. Tests share
//! nothing, so they run in parallel.

pub mod mail_servers;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use futures::{SinkExt, StreamExt};
use sentient_engine::llm::RetryPolicy;
use sentient_engine::{Engine, EngineOptions};

/// The one environment variable test engines see, and its value (for key fallbacks).
pub const TEST_ENV_KEY: &str = "SENTIENT_TEST_API_KEY";
pub const TEST_ENV_VALUE: &str = "sk-from-the-test-environment";

/// Numbers engines within this test process (keychain service names).
static NEXT_ENGINE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

pub use sentient_engine;

/// How long a test waits for anything before failing (never a sleep: an upper bound).
pub const WAIT: Duration = Duration::from_secs(10);

/// How often a wait with a deadline checks its condition again (see [`eventually`]).
pub const POLL: Duration = Duration::from_millis(25);

/// A running engine with its own home folder.
pub struct TestEngine {
    pub engine: Engine,
    pub client: Client,
    home: PathBuf,
    _dir: Option<tempfile::TempDir>,
}

impl TestEngine {
    /// A new engine in a fresh temporary home.
    pub async fn start() -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().join("home");
        let mut started = Self::start_in(&home).await?;
        started._dir = Some(dir);
        Ok(started)
    }

    /// An engine on `home` (which the caller keeps), e.g. to restart on the same data.
    pub async fn start_in(home: &Path) -> Result<Self> {
        Self::start_in_with_clock(home, None).await
    }

    /// A new engine in a fresh temporary home that reads the time from `clock` (a
    /// `ManualClock` moves schedules, catch-up and sleep detection as the test says).
    pub async fn start_with_clock(clock: sentient_engine::clock::SharedClock) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().join("home");
        let mut started = Self::start_in_with_clock(&home, Some(clock)).await?;
        started._dir = Some(dir);
        Ok(started)
    }

    /// An engine on `home` with its own clock (`None`: the wall clock).
    pub async fn start_in_with_clock(
        home: &Path,
        clock: Option<sentient_engine::clock::SharedClock>,
    ) -> Result<Self> {
        Self::start_configured(home, clock, None).await
    }

    /// A new engine in a fresh temporary home whose outside services are at `endpoints`.
    pub async fn start_with_endpoints(
        endpoints: sentient_engine::integrations::Endpoints,
    ) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().join("home");
        let mut started = Self::start_configured(&home, None, Some(endpoints)).await?;
        started._dir = Some(dir);
        Ok(started)
    }

    /// A new engine in a fresh temporary home whose model calls are retried as `retry` says
    /// (the others retry once after 5 ms), for tests of what happens between attempts.
    pub async fn start_with_retry(retry: RetryPolicy) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().join("home");
        let mut started = Self::start_retrying(&home, None, None, retry).await?;
        started._dir = Some(dir);
        Ok(started)
    }

    /// An engine on `home` with its own clock and endpoints (`None`: the defaults).
    pub async fn start_configured(
        home: &Path,
        clock: Option<sentient_engine::clock::SharedClock>,
        endpoints: Option<sentient_engine::integrations::Endpoints>,
    ) -> Result<Self> {
        // Model tests should not wait on real back-off times.
        let retry = RetryPolicy {
            attempts: 1,
            backoff: std::time::Duration::from_millis(5),
        };
        Self::start_retrying(home, clock, endpoints, retry).await
    }

    async fn start_retrying(
        home: &Path,
        clock: Option<sentient_engine::clock::SharedClock>,
        endpoints: Option<sentient_engine::integrations::Endpoints>,
        retry: RetryPolicy,
    ) -> Result<Self> {
        let token = format!("test-token-{}", std::process::id());
        let engine = Engine::start(EngineOptions {
            home: Some(home.to_owned()),
            clock,
            port: Some(0),
            token: Some(token.clone()),
            ui_dir: Some(home.join("no-ui")),
            llm_retry: Some(retry),
            // A keychain service of its own, so tests never read or change real keys.
            keychain_service: Some(format!(
                "sentient-test-{}-{}",
                std::process::id(),
                NEXT_ENGINE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            )),
            // Key fallbacks see one fixed test variable, never a developer's real keys.
            env_lookup: Some(std::sync::Arc::new(|name: &str| {
                (name == TEST_ENV_KEY).then(|| TEST_ENV_VALUE.to_owned())
            })),
            endpoints,
        })
        .await
        .context("engine start")?;
        let client = Client::new(engine.services().url(), token);
        Ok(Self {
            engine,
            client,
            home: home.to_owned(),
            _dir: None,
        })
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// A WebSocket connected to `/ws` with the right token, past its `hello`.
    pub async fn ws(&self) -> Result<WsClient> {
        let mut ws =
            WsClient::connect(&self.engine.services().url(), Some(self.client.token())).await?;
        let hello = ws.next_json().await?;
        if hello["type"] != "hello" {
            bail!("expected hello first, got {hello}");
        }
        Ok(ws)
    }

    /// Shuts the engine down and keeps the temporary home alive for inspection.
    pub async fn stop(self) -> Option<tempfile::TempDir> {
        self.engine.services().shutdown().await;
        self._dir
    }
}

/// An HTTP client that knows the base URL and the token.
#[derive(Clone)]
pub struct Client {
    base: String,
    token: String,
    http: reqwest::Client,
}

impl Client {
    pub fn new(base: String, token: String) -> Self {
        let http = reqwest::Client::builder()
            .timeout(WAIT)
            .no_proxy()
            .build()
            .unwrap_or_default();
        Self { base, token, http }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A request with the bearer token.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .bearer_auth(&self.token)
    }

    /// A request without any token.
    pub fn anonymous(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http.request(method, self.url(path))
    }

    pub async fn get(&self, path: &str) -> Result<(u16, Value)> {
        send(self.request(reqwest::Method::GET, path)).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Result<(u16, Value)> {
        send(self.request(reqwest::Method::POST, path).json(&body)).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Result<(u16, Value)> {
        send(self.request(reqwest::Method::PUT, path).json(&body)).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Result<(u16, Value)> {
        send(self.request(reqwest::Method::PATCH, path).json(&body)).await
    }

    pub async fn delete(&self, path: &str) -> Result<(u16, Value)> {
        send(self.request(reqwest::Method::DELETE, path)).await
    }
}

/// Sends and returns the status with the JSON body (`Null` when the body is empty).
pub async fn send(request: reqwest::RequestBuilder) -> Result<(u16, Value)> {
    let response = request.send().await.context("request")?;
    let status = response.status().as_u16();
    let text = response.text().await?;
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).with_context(|| format!("not JSON ({status}): {text}"))?
    };
    Ok((status, body))
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A `/ws` client that reads JSON messages with a time limit.
pub struct WsClient {
    socket: Socket,
}

impl WsClient {
    pub async fn connect(base: &str, token: Option<&str>) -> Result<Self> {
        let ws_base = base.replacen("http://", "ws://", 1);
        let url = match token {
            Some(t) => format!("{ws_base}/ws?token={t}"),
            None => format!("{ws_base}/ws"),
        };
        let (socket, _) = tokio_tungstenite::connect_async(url).await?;
        Ok(Self { socket })
    }

    pub async fn send_json(&mut self, value: Value) -> Result<()> {
        self.socket.send(Message::text(value.to_string())).await?;
        Ok(())
    }

    /// The next message, or an error when the socket closes (with its close code) or
    /// nothing comes within [`WAIT`].
    pub async fn next_message(&mut self) -> Result<Message> {
        loop {
            let message = tokio::time::timeout(WAIT, self.socket.next())
                .await
                .context("timed out waiting for a socket message")?
                .context("socket ended")??;
            match message {
                Message::Ping(_) | Message::Pong(_) => continue,
                other => return Ok(other),
            }
        }
    }

    /// The next JSON text message.
    pub async fn next_json(&mut self) -> Result<Value> {
        match self.next_message().await? {
            Message::Text(text) => Ok(serde_json::from_str(text.as_str())?),
            Message::Close(frame) => bail!("socket closed: {frame:?}"),
            other => bail!("unexpected message {other:?}"),
        }
    }

    /// Skips messages until one of `kind` arrives.
    pub async fn wait_for(&mut self, kind: &str) -> Result<Value> {
        loop {
            let message = self.next_json().await?;
            if message["type"] == kind {
                return Ok(message);
            }
        }
    }

    pub fn into_inner(self) -> Socket {
        self.socket
    }
}

/// An engine whose models are the scripted server, with `ollama_chat/qwen3:8b` as the main model,
/// no quiet wait before background work (task work runs at once in tests) and the person in
/// `timezone`: what the task suites start from.
pub async fn task_engine(
    server: &sentient_model_server::ScriptedModel,
    timezone: &str,
) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    point_models_at(&t, server).await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            serde_json::json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0},
                               "assistant": {"timezone": timezone}}),
        )
        .await?;
    if status != 200 {
        bail!("could not set the task suites' settings: {status} {body}");
    }
    Ok(t)
}

/// Points Ollama, LM Studio, OpenAI and Anthropic at the scripted model server, so every model
/// call of `t` is answered by its script.
pub async fn point_models_at(
    t: &TestEngine,
    server: &sentient_model_server::ScriptedModel,
) -> Result<()> {
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            serde_json::json!({"models": {"providers": {
                "ollama_chat": {"api_base": server.base_url()},
                "ollama": {"api_base": server.base_url()},
                "openai": {"api_base": server.openai_url()},
                "lm_studio": {"api_base": server.openai_url()},
                "anthropic": {"api_base": server.anthropic_url()},
            }}}),
        )
        .await?;
    if status != 200 {
        bail!("could not point the models at the scripted server: {status} {body}");
    }
    Ok(())
}

/// Serves `app` on a free loopback port; answers `http://127.0.0.1:<port><path>`.
pub async fn serve_on_loopback(app: axum::Router, path: &str) -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://127.0.0.1:{}{path}", listener.local_addr()?.port());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(url)
}

/// Polls `check` every 25 ms until it gives `Some`, for at most [`WAIT`]; the error names
/// `what` did not happen. Tests wait for outcomes with this, never with a fixed sleep.
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(value) = check().await? {
            return Ok(value);
        }
        if tokio::time::Instant::now() >= deadline {
            bail!("{what} did not happen within {WAIT:?}");
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Polls `check` every 25 ms for `span` and fails as soon as it gives `false`: the way a
/// test shows that something does *not* happen (a feed that is not due yet stays still).
pub async fn stays<F, Fut>(what: &str, span: Duration, mut check: F) -> Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<bool>>,
{
    let end = tokio::time::Instant::now() + span;
    while tokio::time::Instant::now() < end {
        if !check().await? {
            bail!("{what} did not hold for {span:?}");
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(())
}

/// `GET /api/tasks/{id}` until `done` holds for it; the error shows the task as it was.
pub async fn wait_task(t: &TestEngine, id: &str, done: impl Fn(&Value) -> bool) -> Result<Value> {
    let path = format!("/api/tasks/{id}");
    let reached = eventually("the task reaching the state", || async {
        let (status, task) = t.client.get(&path).await?;
        Ok((status == 200 && done(&task)).then_some(task))
    })
    .await;
    match reached {
        Ok(task) => Ok(task),
        Err(_) => {
            let (_, task) = t.client.get(&path).await?;
            bail!("the task never got there: {task:#}")
        }
    }
}

/// Waits until the scripted model server has had `n` chat requests.
pub async fn wait_chats(server: &sentient_model_server::ScriptedModel, n: usize) -> Result<()> {
    let arrived = eventually("the chat requests", || async {
        Ok((server.requests_to("/api/chat").len() >= n).then_some(()))
    })
    .await;
    if arrived.is_err() {
        bail!(
            "the model got {} chat requests, not {n}",
            server.requests_to("/api/chat").len()
        );
    }
    Ok(())
}

/// Points a served engine's models (main model, Ollama for chat and admin) at the scripted server,
/// with no quiet wait for background work and UTC as the time zone.
pub async fn point_served_models_at(
    client: &Client,
    server: &sentient_model_server::ScriptedModel,
) -> Result<()> {
    let (code, body) = client
        .patch(
            "/api/config",
            serde_json::json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0,
                              "providers": {"ollama_chat": {"api_base": server.base_url()},
                                            "ollama": {"api_base": server.base_url()}}},
                   "assistant": {"timezone": "UTC"}}),
        )
        .await?;
    anyhow::ensure!(code == 200, "{body}");
    Ok(())
}

/// `sentient serve` as a child process on `home`, with its ready line read.
pub struct ServedEngine {
    pub child: tokio::process::Child,
    pub client: Client,
}

/// Where cargo builds: `CARGO_TARGET_DIR`, else the folder the test command uses.
fn build_folder() -> PathBuf {
    std::env::var("CARGO_TARGET_DIR").map_or_else(
        |_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/sentient-target"),
        PathBuf::from,
    )
}

/// The `sentient` binary tests start: `SENTIENT_BIN`, else the debug build in the build folder.
pub fn engine_binary() -> Result<PathBuf> {
    if let Ok(bin) = std::env::var("SENTIENT_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let target = build_folder();
    let bin = target.join("debug/sentient");
    anyhow::ensure!(
        bin.is_file(),
        "No engine binary at {}. Build it (cargo build -p sentient-engine --bin sentient) or set SENTIENT_BIN.",
        bin.display()
    );
    Ok(bin)
}

/// The in-repo MCP test server's binary (`tests/mcp-server`): `SENTIENT_MCP_TEST_SERVER_BIN`, else
/// the debug build in the build folder.
pub fn mcp_test_server_binary() -> Result<PathBuf> {
    if let Ok(bin) = std::env::var("SENTIENT_MCP_TEST_SERVER_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let target = build_folder();
    let bin = target.join("debug/sentient-mcp-test-server");
    anyhow::ensure!(
        bin.is_file(),
        "No MCP test server at {}. Build it (cargo build -p sentient-mcp-test-server) or set SENTIENT_MCP_TEST_SERVER_BIN.",
        bin.display()
    );
    Ok(bin)
}

impl ServedEngine {
    /// `sentient serve` on `home` with `token`, once it has printed its ready line.
    pub async fn start(home: &Path, token: &str) -> Result<Self> {
        Self::start_with_env(home, token, &[]).await
    }

    /// [`ServedEngine::start`] with extra environment variables for the engine.
    pub async fn start_with_env(home: &Path, token: &str, env: &[(&str, &str)]) -> Result<Self> {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(engine_binary()?)
            .args(["serve", "--home"])
            .arg(home)
            .args(["--port", "0", "--token", token])
            .env("SENTIENT_UI_DIR", home.join("no-ui"))
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child.stdout.take().context("stdout")?;
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .context("no ready line within 30 s")??
            .context("the engine exited before it was ready")?;
        // Keep draining stdout so the engine never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let ready: Value = serde_json::from_str(&line).with_context(|| line.clone())?;
        let url = ready["url"].as_str().context("url")?.to_owned();
        let client = Client::new(url, token.to_owned());
        Ok(Self { child, client })
    }
}

/// A file of an npm package the test command installs (e.g. an MCP server's entry point).
pub fn npm_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../node_modules")
        .join(relative)
}

/// The npm `server-everything` MCP server over streamable HTTP on a free loopback port, once it
/// accepts connections; the child ends when dropped. Returns it with its `/mcp` address.
pub async fn everything_over_http() -> Result<(tokio::process::Child, String)> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let child = tokio::process::Command::new("node")
        .arg(npm_file(
            "@modelcontextprotocol/server-everything/dist/index.js",
        ))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    eventually("the HTTP tool server accepting connections", || async {
        Ok(tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()
            .map(|_| ()))
    })
    .await?;
    Ok((child, format!("http://127.0.0.1:{port}/mcp")))
}

/// A live task's row for saving straight into the store (tests and benches that need many tasks,
/// or one without planning): `name`, `schedule`, `status` and `next_execution_at` as given, one
/// plan step `time_now`, everything else as a new task has it.
pub fn task_row(
    task_id: String,
    name: &str,
    schedule: Option<sentient_engine::tasks::model::Schedule>,
    status: sentient_engine::tasks::model::TaskStatus,
    next: Option<chrono::DateTime<chrono::Utc>>,
    now: chrono::DateTime<chrono::Utc>,
) -> sentient_engine::tasks::model::Task {
    use sentient_engine::tasks::model::{DeliverTo, PlanStep, Task};
    Task {
        task_id,
        name: name.to_owned(),
        description: format!("{name}, please."),
        status,
        priority: 1,
        assignee: "ai".into(),
        task_type: "single".into(),
        schedule,
        script: None,
        plan: vec![PlanStep {
            tool: "time_now".into(),
            description: "Check the time".into(),
        }],
        runs: Vec::new(),
        chat_history: Vec::new(),
        clarifying_questions: Vec::new(),
        swarm_details: None,
        enabled: true,
        model: None,
        browser_profile: None,
        deliver_to: DeliverTo::DEFAULT,
        original_context: [("source".to_owned(), serde_json::json!("manual_creation"))]
            .into_iter()
            .collect(),
        error: None,
        next_execution_at: next,
        last_execution_at: None,
        created_at: now,
        updated_at: now,
        notepad: None,
        notepad_untrusted: None,
        brief: None,
    }
}
