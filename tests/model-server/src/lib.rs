//! The scripted model server: an in-process HTTP server on `127.0.0.1` (port 0) that stands
//! in for real model providers in tests. No model can run on the machines that run the
//! tests, so every test that involves a model talks to this instead, through the engine's
//! real adapters. It therefore speaks the providers' real wire formats:
//!
//! - **Ollama** native API at the root: `POST /api/chat` (NDJSON stream or one object),
//!   `GET /api/tags`, `POST /api/show`, `GET /api/ps`, `POST /api/pull`, `POST /api/embed`,
//!   `GET /api/version`.
//! - **OpenAI-compatible** at `/v1`: `POST /v1/chat/completions` (server-sent events or one
//!   `chat.completion`), `GET /v1/models`, `POST /v1/embeddings`.
//! - **Anthropic Messages** at `/v1`: `POST /v1/messages` (events or one message), and
//!   `GET /v1/models` in Anthropic's shape when the request carries `anthropic-version`.
//!
//! One script per server, shared by all three: whichever chat endpoint the client calls,
//! the next [`Reply`] is rendered in that endpoint's format. When the script is empty a chat
//! request gets a **500** whose provider-shaped error says `script exhausted`, so a test
//! that makes more model calls than it scripted fails loudly instead of getting a made-up
//! answer. Model listings, embeddings and pulls are not scripted: they answer from
//! [`ScriptedModel::set_models`], [`ScriptedModel::set_embedding_dim`] and
//! [`ScriptedModel::set_unpullable`].
//!
//! ```no_run
//! # async fn demo() {
//! use sentient_model_server::{Reply, ScriptedModel};
//! use serde_json::json;
//!
//! let server = ScriptedModel::start().await;
//! server
//!     .push(Reply::tool_call("find_city", json!({"name": "Pune"})))
//!     .push(Reply::thinking("Let me see").then_text("It is 12°C").usage(120, 8))
//!     .push(Reply::error(429).message("Rate limit exceeded").retry_after(30));
//! // point the engine at server.base_url() (Ollama) or server.openai_url() ...
//! let body = &server.last_request().expect("a request").body;
//! # let _ = body;
//! # }
//! ```

mod anthropic;
mod ollama;
mod openai;
mod record;
mod script;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use record::Recorded;
pub use script::{ErrorReply, Reply, Usage};

use record::Log;
use script::{Pacing, Script};

/// Which field OpenAI-compatible streams carry reasoning text in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReasoningField {
    /// `delta.reasoning_content` / `message.reasoning_content` (vLLM, LM Studio, DeepSeek).
    #[default]
    ReasoningContent,
    /// `delta.reasoning` / `message.reasoning` (OpenRouter).
    Reasoning,
}

/// A model the server claims to have, for `/api/tags`, `/api/show`, `/api/ps` and
/// `/v1/models`, and for deciding which chat requests name an unknown model.
#[derive(Clone, Debug)]
pub struct ModelInfo {
    name: String,
    family: String,
    parameter_size: String,
    quantization_level: String,
    size: u64,
    capabilities: Vec<String>,
    context_length: u64,
    loaded: bool,
}

impl ModelInfo {
    /// A model called `name` (Ollama style, e.g. `qwen3:8b`) with plausible details:
    /// family from the name, `completion` capability, context length 32768, not loaded.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let base = name.rsplit('/').next().unwrap_or(&name);
        let (stem, tag) = base.split_once(':').unwrap_or((base, "latest"));
        let family = stem.split(['.', '-']).next().unwrap_or(stem).to_owned();
        let parameter_size = if tag.ends_with('b') && tag.starts_with(|c: char| c.is_ascii_digit())
        {
            tag.to_uppercase()
        } else {
            "7B".to_owned()
        };
        Self {
            name,
            family,
            parameter_size,
            quantization_level: "Q4_K_M".to_owned(),
            size: 5_000_000_000,
            capabilities: vec!["completion".to_owned()],
            context_length: 32_768,
            loaded: false,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Ollama's capabilities, e.g. `&["completion", "tools", "thinking"]` or `&["embedding"]`.
    pub fn capabilities(mut self, capabilities: &[&str]) -> Self {
        self.capabilities = capabilities.iter().map(|c| (*c).to_owned()).collect();
        self
    }

    /// The model's maximum context (`model_info["<family>.context_length"]`).
    pub fn context_length(mut self, tokens: u64) -> Self {
        self.context_length = tokens;
        self
    }

    pub fn family(mut self, family: impl Into<String>) -> Self {
        self.family = family.into();
        self
    }

    pub fn parameter_size(mut self, size: impl Into<String>) -> Self {
        self.parameter_size = size.into();
        self
    }

    pub fn quantization_level(mut self, level: impl Into<String>) -> Self {
        self.quantization_level = level.into();
        self
    }

    /// Size on disk in bytes (also the `/api/ps` size).
    pub fn size(mut self, bytes: u64) -> Self {
        self.size = bytes;
        self
    }

    /// Lists the model in `/api/ps` from the start (models also appear there once a chat
    /// or embed request has used them).
    pub fn loaded(mut self, loaded: bool) -> Self {
        self.loaded = loaded;
        self
    }

    fn matches(&self, requested: &str) -> bool {
        let with_tag = |n: &str| {
            if n.contains(':') {
                n.to_owned()
            } else {
                format!("{n}:latest")
            }
        };
        self.name == requested || with_tag(&self.name) == with_tag(requested)
    }

    /// A stable fake `sha256` digest (64 hex digits) from the name.
    fn digest(&self) -> String {
        (0u64..4)
            .map(|seed| {
                let mut h = DefaultHasher::new();
                (seed, &self.name).hash(&mut h);
                format!("{:016x}", h.finish())
            })
            .collect()
    }
}

/// Settings the tests change while the server runs.
struct Config {
    /// `None` until `set_models`: then every model name is accepted.
    models: Option<Vec<ModelInfo>>,
    unpullable: Vec<String>,
    /// Wait before each progress line of a pull (`set_pull_delay`; none by default).
    pull_delay: Duration,
    embedding_dim: usize,
    /// Vectors a test fixed for exact texts (`set_embedding`).
    fixed_embeddings: std::collections::HashMap<String, Vec<f32>>,
    /// While set, embedding requests fail with this status (`fail_embeddings`).
    embedding_failure: Option<u16>,
    reasoning_field: ReasoningField,
    /// Models used by chat/embed since start, with the `num_ctx` last asked for.
    used: Vec<(String, Option<u64>)>,
}

/// State shared by the handlers.
pub(crate) struct Shared {
    script: Script,
    log: Arc<Log>,
    config: Mutex<Config>,
    ids: AtomicU64,
    call_ids: AtomicU64,
    shutdown: CancellationToken,
}

impl Shared {
    /// The model called `name`, or `None` when models were set and it is not among them.
    fn model(&self, name: &str) -> Option<ModelInfo> {
        match &lock(&self.config).models {
            None => Some(ModelInfo::new(name)),
            Some(models) => models.iter().find(|m| m.matches(name)).cloned(),
        }
    }

    fn models(&self) -> Vec<ModelInfo> {
        lock(&self.config).models.clone().unwrap_or_default()
    }

    /// Remembers that `name` was loaded (for `/api/ps`).
    fn mark_used(&self, name: &str, num_ctx: Option<u64>) {
        let mut config = lock(&self.config);
        config.used.retain(|(n, _)| n != name);
        config.used.push((name.to_owned(), num_ctx));
    }

    /// A fresh number for message and request ids (`chatcmpl-1`, `msg_scripted_2`...).
    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// A fresh number for tool-call ids, counting from 1 over the server's life, so the
    /// first call is `call_1` (Ollama, OpenAI) or `toolu_1` (Anthropic).
    fn next_call_id(&self) -> u64 {
        self.call_ids.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn pacing(&self, reply: &Reply) -> Pacing {
        Pacing {
            delay: reply.chunk_delay,
            stall_after: reply.stall_after,
            log: self.log.clone(),
            shutdown: self.shutdown.clone(),
        }
    }

    fn embedding_dim(&self) -> usize {
        lock(&self.config).embedding_dim
    }

    /// The vector for `text`: the one a test fixed, else the deterministic bag of words.
    pub(crate) fn embedding_of(&self, text: &str, dim: usize) -> Vec<f32> {
        lock(&self.config)
            .fixed_embeddings
            .get(text)
            .cloned()
            .unwrap_or_else(|| embed(text, dim))
    }

    /// The status embedding requests fail with, while a test says so.
    pub(crate) fn embedding_failure(&self) -> Option<u16> {
        lock(&self.config).embedding_failure
    }
}

/// A running scripted model server. Dropping it stops the server and ends stalled streams.
pub struct ScriptedModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl ScriptedModel {
    /// Starts a server on `127.0.0.1` with a free port.
    ///
    /// # Panics
    /// When no loopback port can be bound (the machine is broken for every test anyway).
    pub async fn start() -> Self {
        Self::try_start()
            .await
            .expect("bind the scripted model server on 127.0.0.1")
    }

    /// Like [`ScriptedModel::start`], returning the bind error instead of panicking.
    pub async fn try_start() -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script: Script::default(),
            log: Arc::new(Log::default()),
            config: Mutex::new(Config {
                models: None,
                unpullable: Vec::new(),
                pull_delay: Duration::ZERO,
                embedding_dim: 768,
                fixed_embeddings: std::collections::HashMap::new(),
                embedding_failure: None,
                reasoning_field: ReasoningField::default(),
                used: Vec::new(),
            }),
            ids: AtomicU64::new(0),
            call_ids: AtomicU64::new(0),
            shutdown: CancellationToken::new(),
        });
        let app = router(shared.clone());
        let shutdown = shared.shutdown.clone();
        tokio::spawn(async move {
            // An error here means the listener died; requests then fail visibly.
            // Real model servers flush each token at once; without TCP_NODELAY small writes wait
            // for the client's delayed ACK and every stream gains ~40 ms.
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
        });
        Ok(Self { addr, shared })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: Ollama's base URL, and Anthropic's (its paths start `/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL OpenAI-compatible clients expect.
    pub fn openai_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    /// Same as [`ScriptedModel::base_url`]; named for readability at call sites.
    pub fn anthropic_url(&self) -> String {
        self.base_url()
    }

    /// Queues the next reply. Returns `self` so a script reads as one chain.
    pub fn push(&self, reply: impl Into<Reply>) -> &Self {
        self.shared.script.push(reply.into());
        self
    }

    /// Replies not yet used.
    pub fn pending(&self) -> usize {
        self.shared.script.len()
    }

    /// The models the server has. From then on a chat, show or embed request for any
    /// other model gets the provider's 404 (before, every name is accepted and listings are
    /// empty). A 404 does not use up a scripted reply.
    pub fn set_models(&self, models: Vec<ModelInfo>) {
        lock(&self.shared.config).models = Some(models);
    }

    /// Model names whose `/api/pull` fails with Ollama's
    /// `pull model manifest: file does not exist`.
    pub fn set_unpullable(&self, names: &[&str]) {
        lock(&self.shared.config).unpullable = names.iter().map(|n| (*n).to_owned()).collect();
    }

    /// Waits this long before each progress line of a streamed `/api/pull`, so a window can
    /// show the download going.
    pub fn set_pull_delay(&self, delay: Duration) {
        lock(&self.shared.config).pull_delay = delay;
    }

    /// Length of the vectors `/api/embed` and `/v1/embeddings` return (default 768).
    pub fn set_embedding_dim(&self, dim: usize) {
        lock(&self.shared.config).embedding_dim = dim;
    }

    /// From now on `text` (exactly) embeds to `vector`, on both embedding routes.
    pub fn set_embedding(&self, text: &str, vector: Vec<f32>) {
        lock(&self.shared.config)
            .fixed_embeddings
            .insert(text.to_owned(), vector);
    }

    /// From now on embedding requests fail with `status` (as a provider that is down would).
    pub fn fail_embeddings(&self, status: u16) {
        lock(&self.shared.config).embedding_failure = Some(status);
    }

    /// Embedding requests answer again.
    pub fn answer_embeddings(&self) {
        lock(&self.shared.config).embedding_failure = None;
    }

    /// Where OpenAI-compatible answers put reasoning text (default `reasoning_content`).
    pub fn set_reasoning_field(&self, field: ReasoningField) {
        lock(&self.shared.config).reasoning_field = field;
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.requests()
    }

    /// Requests whose path is `path` (e.g. `/api/chat`).
    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    pub fn last_request(&self) -> Option<Recorded> {
        self.requests().pop()
    }

    /// Waits until at least `n` requests have arrived (wrap it in a timeout).
    pub async fn wait_for_requests(&self, n: usize) {
        self.shared
            .log
            .wait_until(|log| log.request_count() >= n)
            .await;
    }

    /// How many clients dropped an answer before it ended (a stalled or slow stream, or a
    /// non-streamed stalled request).
    pub fn disconnects(&self) -> usize {
        self.shared.log.disconnects()
    }

    /// Waits until at least `n` clients went away mid-answer (wrap it in a timeout).
    pub async fn wait_for_disconnects(&self, n: usize) {
        self.shared
            .log
            .wait_until(|log| log.disconnects() >= n)
            .await;
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.shared.shutdown.cancel();
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(|| async { "Ollama is running" }))
        .route("/api/version", get(ollama::version))
        .route("/api/chat", post(ollama::chat))
        .route("/api/tags", get(ollama::tags))
        .route("/api/show", post(ollama::show))
        .route("/api/ps", get(ollama::ps))
        .route("/api/pull", post(ollama::pull))
        .route("/api/embed", post(ollama::embed))
        .route("/v1/chat/completions", post(openai::chat))
        .route("/v1/models", get(models_v1))
        .route("/v1/embeddings", post(openai::embeddings))
        .route("/v1/messages", post(anthropic::messages))
        .fallback(|| async { (StatusCode::NOT_FOUND, "404 page not found") })
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            record::record,
        ))
        .with_state(shared)
}

/// `GET /v1/models` is both OpenAI's and Anthropic's; Anthropic clients send
/// `anthropic-version`.
async fn models_v1(state: axum::extract::State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if headers.contains_key("anthropic-version") {
        anthropic::models(state).await
    } else {
        openai::models(state).await
    }
}

// ---- helpers shared by the formats ---------------------------------------------------

/// Locks a mutex, shrugging off poisoning: a panicking test must not cascade here.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A JSON response with `status`, plus `Retry-After` when given.
pub(crate) fn json_response(status: u16, body: &Value, retry_after: Option<u64>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body.to_string(),
    )
        .into_response();
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// Now, as RFC 3339 with nanoseconds (Ollama's `created_at`).
pub(crate) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}

pub(crate) fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The request's `model`, or `""`.
pub(crate) fn model_of(body: &Value) -> String {
    body["model"].as_str().unwrap_or_default().to_owned()
}

/// Inputs of an embedding request: a string or an array of strings.
pub(crate) fn embedding_inputs(input: &Value) -> Option<Vec<String>> {
    match input {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    }
}

/// A deterministic unit vector for `text`: hashed bag of lowercase words, so equal texts
/// give equal vectors and texts sharing words have a higher cosine than unrelated ones.
pub(crate) fn embed(text: &str, dim: usize) -> Vec<f32> {
    let dim = dim.max(1);
    let mut vector = vec![0f32; dim];
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let words = if words.is_empty() {
        vec![String::new()]
    } else {
        words
    };
    for word in &words {
        let mut h = DefaultHasher::new();
        word.hash(&mut h);
        let hash = h.finish();
        let index = usize::try_from(hash % dim as u64).unwrap_or(0);
        vector[index] += if hash & (1 << 63) == 0 { 1.0 } else { -1.0 };
    }
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    } else {
        vector[0] = 1.0;
    }
    vector
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_match_with_and_without_latest() {
        let model = ModelInfo::new("llama3.2");
        assert!(model.matches("llama3.2:latest"));
        assert!(model.matches("llama3.2"));
        assert!(!model.matches("llama3.2:1b"));
        assert_eq!(model.family, "llama3");
        assert_eq!(ModelInfo::new("qwen3:8b").parameter_size, "8B");
        assert_eq!(ModelInfo::new("qwen3:8b").digest().len(), 64);
    }

    #[test]
    fn embeddings_are_unit_length_and_word_sensitive() {
        let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let a = embed("The cat sat on the mat", 64);
        let b = embed("the CAT sat", 64);
        let c = embed("quantum chromodynamics lecture", 64);
        assert!((cos(&a, &a) - 1.0).abs() < 1e-5);
        assert_eq!(a, embed("The cat sat on the mat", 64));
        assert!(cos(&a, &b) > cos(&a, &c));
        assert_eq!(embed("", 8).len(), 8);
    }
}
