//! The one way the engine calls a model: pick the model from a role (with its fallbacks) or an
//! explicit choice (strict: no silent fallback), wait for the local model when it is busy,
//! retry passing failures, stream the reply, and record usage and the context meter.

use sentient_core::sync::MutexExt;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::error::LlmError;
use super::model_ref::ModelRef;
use super::provider::{HttpProvider, OllamaAdmin, Provider};
use super::queue::{JobKind, LocalQueue};
use super::tokens::{self, ContextMeter};
use super::types::{ChatRequest, Chunk, Reasoning, Reply, StopReason, Usage};
use super::usage::{self, UsageLedger};
use sentient_core::config::{Config, ConfigService};
use sentient_core::stop::StopService;

pub use sentient_core::secrets::{KeySource, NoKeys};

/// The jobs models do; each has its own model, fallbacks and settings.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ModelRole {
    Primary,
    Fast,
    Planner,
    Executor,
    Embedding,
    Vision,
    Voice,
}

impl ModelRole {
    pub const ALL: [ModelRole; 7] = [
        Self::Primary,
        Self::Fast,
        Self::Planner,
        Self::Executor,
        Self::Embedding,
        Self::Vision,
        Self::Voice,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Primary => "primary",
            Self::Fast => "fast",
            Self::Planner => "planner",
            Self::Executor => "executor",
            Self::Embedding => "embedding",
            Self::Vision => "vision",
            Self::Voice => "voice",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// The role's own model, `None` when it uses the main model.
    pub fn own_model(self, config: &Config) -> Option<String> {
        let m = &config.models;
        let own = match self {
            Self::Primary => Some(m.primary.clone()),
            Self::Fast => m.fast.clone(),
            Self::Planner => m.planner.clone(),
            Self::Executor => m.executor.clone(),
            Self::Embedding => m.embedding.clone(),
            Self::Vision => m.vision.clone(),
            Self::Voice => m.voice.clone(),
        };
        own.filter(|s| !s.trim().is_empty())
    }
}

/// Who a call is for and which model answers it.
#[derive(Debug, Clone)]
pub struct CallOptions {
    /// The role whose model (unless `model` is set) and settings are used.
    pub role: ModelRole,
    /// An explicit pick (per chat message, per task): strict, no fallback.
    pub model: Option<String>,
    /// Who the call is for, in the usage ledger: chat, task, memory, test, ...
    pub source: String,
    /// Its place in the local model's queue.
    pub job: JobKind,
    pub cancel: CancellationToken,
}

impl CallOptions {
    pub fn new(role: ModelRole, source: &str, job: JobKind) -> Self {
        Self {
            role,
            model: None,
            source: source.to_owned(),
            job,
            cancel: CancellationToken::new(),
        }
    }

    pub fn with_model(mut self, model: Option<String>) -> Self {
        self.model = model.filter(|m| !m.trim().is_empty());
        self
    }

    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }
}

/// A finished call.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// The model that answered (`provider/model`).
    pub model: String,
    pub reply: Reply,
    pub usage: Usage,
    pub meter: ContextMeter,
    /// Models tried before it, each with why it failed (shown as a note, logged).
    pub failed_before: Vec<(String, String)>,
}

/// How often and how patiently a passing failure is retried on the same model.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 2,
            backoff: Duration::from_millis(800),
        }
    }
}

struct Inner {
    /// Whether each Ollama model can think (from `/api/show`), asked once per model.
    ollama_models: std::sync::Mutex<std::collections::HashMap<String, OllamaModelFacts>>,
    config: ConfigService,
    stop: StopService,
    keys: Arc<dyn KeySource>,
    ledger: UsageLedger,
    queue: LocalQueue,
    http: crate::http::LazyClient,
    retry: RetryPolicy,
}

/// The model layer; cheap to clone.
#[derive(Clone)]
pub struct LlmService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LlmService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmService").finish_non_exhaustive()
    }
}

impl LlmService {
    pub fn new(
        config: ConfigService,
        stop: StopService,
        keys: Arc<dyn KeySource>,
        ledger: UsageLedger,
        queue: LocalQueue,
        retry: RetryPolicy,
    ) -> Self {
        let http = crate::http::LazyClient::new(None);
        Self {
            inner: Arc::new(Inner {
                ollama_models: std::sync::Mutex::new(std::collections::HashMap::new()),
                config,
                stop,
                keys,
                ledger,
                queue,
                http,
                retry,
            }),
        }
    }

    pub fn queue(&self) -> &LocalQueue {
        &self.inner.queue
    }

    pub fn ledger(&self) -> &UsageLedger {
        &self.inner.ledger
    }

    /// The models to try, in order: an explicit pick alone, or the role's model (the main
    /// model when it has none) followed by its fallbacks.
    pub fn chain(&self, opts: &CallOptions) -> Vec<String> {
        if let Some(model) = &opts.model {
            return vec![model.clone()];
        }
        let config = self.inner.config.current();
        let first = opts
            .role
            .own_model(&config)
            .unwrap_or_else(|| config.models.primary.clone());
        let mut chain = vec![first];
        if let Some(fallbacks) = config.models.fallbacks.get(opts.role.as_str()) {
            for f in fallbacks {
                if !chain.contains(f) {
                    chain.push(f.clone());
                }
            }
        }
        chain
    }

    /// The base URL a provider is reached at (settings, else its default).
    pub fn base_for(&self, provider: &str) -> Option<String> {
        self.inner
            .config
            .current()
            .models
            .providers
            .get(provider)
            .and_then(|p| p.api_base.clone())
            .filter(|b| !b.trim().is_empty())
    }

    /// Where Ollama's management API is (the configured address, or Ollama's default).
    pub fn ollama_base(&self) -> String {
        let base = self
            .base_for("ollama_chat")
            .or_else(|| self.base_for("ollama"))
            .unwrap_or_else(|| "http://localhost:11434".to_owned());
        base.trim_end_matches('/').to_owned()
    }

    /// Whether a model call has built the HTTP client yet (nothing does at start).
    pub fn http_client_built(&self) -> bool {
        self.inner.http.is_built()
    }

    /// The Ollama management API at the configured address.
    pub fn ollama(&self) -> OllamaAdmin {
        OllamaAdmin {
            base: self.ollama_base(),
            http: self.inner.http.get().clone(),
        }
    }

    pub async fn provider(&self, model: &ModelRef) -> HttpProvider {
        let key = if model.provider.local {
            None
        } else {
            self.inner.keys.api_key(model.provider.id).await
        };
        HttpProvider::new(
            model.clone(),
            self.base_for(model.provider.id),
            key,
            self.inner.http.get().clone(),
        )
    }

    /// What `/api/show` says about an Ollama model, asked once per model. When Ollama does not
    /// answer, nothing is known: `think` is then never sent blind, and the meter uses `num_ctx`.
    pub async fn ollama_facts(&self, name: &str) -> OllamaModelFacts {
        let known = self
            .inner
            .ollama_models
            .lock_unpoisoned()
            .get(name)
            .copied();
        if let Some(known) = known {
            return known;
        }
        let Ok(show) = self.ollama().show(name).await else {
            return OllamaModelFacts::default();
        };
        let facts = OllamaModelFacts {
            can_think: show["capabilities"]
                .as_array()
                .is_some_and(|c| c.iter().any(|v| v == "thinking")),
            max_context: show["model_info"].as_object().and_then(|info| {
                info.iter()
                    .find(|(key, _)| key.ends_with(".context_length"))
                    .and_then(|(_, v)| v.as_u64())
                    .and_then(|n| u32::try_from(n).ok())
            }),
        };
        self.inner
            .ollama_models
            .lock_unpoisoned()
            .insert(name.to_owned(), facts);
        facts
    }

    pub async fn has_key(&self, provider: &str) -> bool {
        self.inner.keys.api_key(provider).await.is_some()
    }

    /// The saved key for a cloud provider (the keychain, else its environment variable).
    pub async fn api_key(&self, provider: &str) -> Option<String> {
        self.inner.keys.api_key(provider).await
    }

    /// The shared HTTP client (built on first use).
    pub fn http(&self) -> reqwest::Client {
        self.inner.http.get().clone()
    }

    /// The role's settings applied to `req`.
    fn with_role_settings(
        &self,
        mut req: ChatRequest,
        role: ModelRole,
        model: &ModelRef,
    ) -> ChatRequest {
        let config = self.inner.config.current();
        let m = &config.models;
        if req.temperature.is_none() {
            req.temperature = m.temperature.get(role.as_str()).copied();
        }
        if req.reasoning.is_none() {
            req.reasoning = m
                .reasoning
                .get(role.as_str())
                .and_then(|r| Reasoning::parse(r));
        }
        if req.context_length.is_none() && model.uses_local_queue() {
            req.context_length = m
                .context_length_per_role
                .get(role.as_str())
                .copied()
                .or(m.context_length);
        }
        req
    }

    /// Calls a model and streams its reply to `on_chunk`. Falls back to the role's next model
    /// only when nothing has been streamed yet, and never for an explicit pick.
    pub async fn stream(
        &self,
        req: ChatRequest,
        opts: &CallOptions,
        on_chunk: &mut (dyn FnMut(&Chunk) + Send),
    ) -> Result<CallOutcome, LlmError> {
        let chain = self.chain(opts);
        let mut failed_before = Vec::new();
        let mut last_error = None;
        for model in chain {
            let span = tracing::info_span!("model_call", model = %model, source = %opts.source);
            let attempt = self
                .call_one(&model, req.clone(), opts, on_chunk)
                .instrument(span)
                .await;
            match attempt {
                Ok(mut outcome) => {
                    outcome.failed_before = failed_before;
                    return Ok(outcome);
                }
                Err(CallFailure { error, streamed }) => {
                    tracing::warn!(model = %model, error = %error, streamed, "model call failed");
                    if streamed || opts.model.is_some() || !error.allows_fallback() {
                        return Err(error);
                    }
                    failed_before.push((model, error.to_string()));
                    last_error = Some(error);
                }
            }
        }
        Err(last_error.unwrap_or(LlmError::BadModelName {
            model: String::new(),
        }))
    }

    /// The whole reply at once.
    pub async fn complete(
        &self,
        req: ChatRequest,
        opts: &CallOptions,
    ) -> Result<CallOutcome, LlmError> {
        self.stream(req, opts, &mut |_| {}).await
    }

    /// A JSON reply, parsed (code fences around it are tolerated).
    pub async fn json(
        &self,
        mut req: ChatRequest,
        opts: &CallOptions,
    ) -> Result<(serde_json::Value, CallOutcome), LlmError> {
        req.json = true;
        let outcome = self.complete(req, opts).await?;
        let text = outcome.reply.text.trim();
        let text = text
            .strip_prefix("```json")
            .or_else(|| text.strip_prefix("```"))
            .map(|t| t.trim_end_matches("```").trim())
            .unwrap_or(text);
        let provider = ModelRef::parse(&outcome.model)
            .map(|m| m.provider.id)
            .unwrap_or("model");
        let value = serde_json::from_str(text).map_err(|_| LlmError::Garbled {
            provider: provider.to_owned(),
        })?;
        Ok((value, outcome))
    }

    /// Vectors for `inputs` from the role's (or the explicit) embedding model.
    pub async fn embed(
        &self,
        inputs: Vec<String>,
        opts: &CallOptions,
    ) -> Result<(String, Vec<Vec<f32>>), LlmError> {
        let model = self.chain(opts).into_iter().next().unwrap_or_default();
        let parsed = ModelRef::parse(&model)?;
        // Stop everything reaches every model call through its job.
        let job = self
            .inner
            .stop
            .start_job_within("embedding call", &opts.cancel);
        let _permit = self
            .inner
            .queue
            .acquire(opts.job, &model, job.token())
            .await
            .map_err(|_| LlmError::Cancelled)?;
        let provider = self.provider(&parsed).await;
        let vectors = tokio::select! {
            () = job.token().cancelled() => return Err(LlmError::Cancelled),
            v = provider.embed(parsed.name.clone(), inputs.clone()) => v?,
        };
        let counted: u32 = inputs
            .iter()
            .map(|t| tokens::count_prompt(&[super::types::Message::user(t.clone())], &[]))
            .sum();
        let cost = usage::cost(&model, parsed.provider.local, counted, 0);
        if let Err(error) = self
            .inner
            .ledger
            .record(&model, &opts.source, counted, 0, cost)
            .await
        {
            tracing::warn!(%error, "could not record model usage");
        }
        Ok((model, vectors))
    }

    async fn call_one(
        &self,
        model: &str,
        req: ChatRequest,
        opts: &CallOptions,
        on_chunk: &mut (dyn FnMut(&Chunk) + Send),
    ) -> Result<CallOutcome, CallFailure> {
        let before = |error| CallFailure {
            error,
            streamed: false,
        };
        let parsed = ModelRef::parse(model).map_err(before)?;
        let mut req = self.with_role_settings(req, opts.role, &parsed);
        if parsed.uses_local_queue()
            && req.reasoning.is_some()
            && !self.ollama_facts(&parsed.name).await.can_think
        {
            // Ollama refuses `think` for models that cannot think; leave it out for them.
            req.reasoning = None;
        }
        // Counted here, not on a blocking thread: earlier messages and the tool list are
        // remembered (`tokens::count_prompt`), so a round encodes only its new text, which tool
        // results' length limit keeps small.
        let counted = tokens::count_prompt(&req.messages, &req.tools);
        // Stop everything reaches every model call through its job; so does the caller's token.
        let job = self.inner.stop.start_job_within("model call", &opts.cancel);
        let cancel = job.token().clone();
        let idle_limit = Duration::from_secs(u64::from(
            self.inner.config.current().models.request_timeout_s.max(1),
        ));
        let permit = self
            .inner
            .queue
            .acquire(opts.job, model, &cancel)
            .await
            .map_err(|_| before(LlmError::Cancelled))?;
        let provider = self.provider(&parsed).await;

        let mut attempt = 0;
        let mut chunks = loop {
            let started = tokio::select! {
                () = cancel.cancelled() => return Err(before(LlmError::Cancelled)),
                s = provider.stream(req.clone()) => s,
            };
            match started {
                Ok(chunks) => break chunks,
                Err(error) if error.is_transient() && attempt < self.inner.retry.attempts => {
                    attempt += 1;
                    let wait = match &error {
                        LlmError::RateLimited {
                            retry_after: Some(w),
                            ..
                        } => *w,
                        _ => self.inner.retry.backoff * attempt,
                    };
                    tracing::info!(%error, attempt, wait_ms = wait.as_millis() as u64, "retrying model call");
                    tokio::select! {
                        () = cancel.cancelled() => return Err(before(LlmError::Cancelled)),
                        () = tokio::time::sleep(wait) => {}
                    }
                }
                Err(error) => return Err(before(error)),
            }
        };

        let mut reply = Reply::default();
        let mut streamed = false;
        loop {
            let next = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(CallFailure { error: LlmError::Cancelled, streamed }),
                next = tokio::time::timeout(idle_limit, chunks.next()) => match next {
                    Ok(next) => next,
                    // A stream that goes quiet for longer than models.request_timeout_s is stuck.
                    Err(_) => {
                        tracing::warn!(model, seconds = idle_limit.as_secs(), "model stream went quiet");
                        return Err(CallFailure {
                            error: LlmError::Unavailable { provider: parsed.provider.id.to_owned() },
                            streamed,
                        });
                    }
                },
            };
            match next {
                Some(Ok(chunk)) => {
                    permit.touch();
                    if matches!(
                        chunk,
                        Chunk::Text(_) | Chunk::Thinking(_) | Chunk::ToolCall(_)
                    ) {
                        streamed = true;
                    }
                    on_chunk(&chunk);
                    let ended = matches!(chunk, Chunk::End(_));
                    reply.absorb(chunk);
                    if ended {
                        break;
                    }
                }
                // A stream that breaks because the call was stopped was stopped, not broken.
                Some(Err(_)) | None if cancel.is_cancelled() => {
                    return Err(CallFailure {
                        error: LlmError::Cancelled,
                        streamed,
                    });
                }
                Some(Err(error)) => return Err(CallFailure { error, streamed }),
                // A stream that stops without saying it is done was cut off.
                None => {
                    return Err(CallFailure {
                        error: LlmError::Unavailable {
                            provider: parsed.provider.id.to_owned(),
                        },
                        streamed,
                    });
                }
            }
        }
        drop(permit);

        let usage = reply.usage.unwrap_or_default();
        let length = if parsed.uses_local_queue() {
            // What the model reads at once: num_ctx as sent, capped at the model's maximum.
            let max = self.ollama_facts(&parsed.name).await.max_context;
            match (req.context_length, max) {
                (Some(sent), Some(max)) => Some(sent.min(max)),
                (sent, _) => sent,
            }
        } else {
            usage::price(model).map(|p| p.context)
        };
        let meter = tokens::meter(
            &parsed.name,
            parsed.provider.local,
            usage.prompt_tokens,
            counted,
            usage.completion_tokens,
            length,
        );
        let cost = usage::cost(
            model,
            parsed.provider.local,
            usage.prompt_tokens.max(counted),
            usage.completion_tokens,
        );
        if let Err(error) = self
            .inner
            .ledger
            .record(
                model,
                &opts.source,
                usage.prompt_tokens.max(counted),
                usage.completion_tokens,
                cost,
            )
            .await
        {
            tracing::warn!(%error, "could not record model usage");
        }
        if reply.stop.is_none() {
            reply.stop = Some(StopReason::Done);
        }
        Ok(CallOutcome {
            model: model.to_owned(),
            reply,
            usage,
            meter,
            failed_before: Vec::new(),
        })
    }
}

/// What Sentient learned about an Ollama model from `/api/show`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OllamaModelFacts {
    pub can_think: bool,
    /// The longest context the model supports (`<family>.context_length`).
    pub max_context: Option<u32>,
}

struct CallFailure {
    error: LlmError,
    /// Something already reached the caller, so another model must not start over.
    streamed: bool,
}
