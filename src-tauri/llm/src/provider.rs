//! The provider trait and its one HTTP implementation: `stream` a chat call as chunks,
//! `complete` it (collected), or `embed` texts. The vendor differences live in `formats/`.

use std::pin::Pin;

use futures::future::BoxFuture;
use futures::{Stream, StreamExt, stream};
use serde_json::{Value, json};

use super::error::LlmError;
use super::formats::{anthropic, ollama, openai};
use super::model_ref::{ModelRef, WireFormat};
use super::transport;
use super::types::{ChatRequest, Chunk, Reply};

pub type ChunkStream = Pin<Box<dyn Stream<Item = Result<Chunk, LlmError>> + Send>>;

/// A model provider.
pub trait Provider: Send + Sync {
    /// Starts a call; the stream yields text, thinking, whole tool calls, usage, then the end.
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChunkStream, LlmError>>;

    /// Vectors for `inputs`, in order.
    fn embed(
        &self,
        model: String,
        inputs: Vec<String>,
    ) -> BoxFuture<'_, Result<Vec<Vec<f32>>, LlmError>>;

    /// The whole reply at once.
    fn complete(&self, req: ChatRequest) -> BoxFuture<'_, Result<Reply, LlmError>> {
        Box::pin(async move {
            let mut chunks = self.stream(req).await?;
            let mut reply = Reply::default();
            while let Some(chunk) = chunks.next().await {
                reply.absorb(chunk?);
            }
            Ok(reply)
        })
    }
}

/// Runs each line or event of a streamed body through a format's decoder; transport errors
/// pass through as they are.
fn decoded<I: Send + 'static>(
    items: impl Stream<Item = Result<I, LlmError>> + Send + 'static,
    mut feed: impl FnMut(I) -> Vec<Result<Chunk, LlmError>> + Send + 'static,
) -> ChunkStream {
    Box::pin(items.flat_map(move |item| {
        stream::iter(match item {
            Ok(item) => feed(item),
            Err(e) => vec![Err(e)],
        })
    }))
}

/// A provider reached over HTTP in one of the three wire formats.
#[derive(Clone)]
pub struct HttpProvider {
    model: ModelRef,
    base: String,
    key: Option<String>,
    http: reqwest::Client,
}

impl std::fmt::Debug for HttpProvider {
    // The key stays out of every debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpProvider")
            .field("model", &self.model.full())
            .field("base", &self.base)
            .field("key_set", &self.key.is_some())
            .finish()
    }
}

impl HttpProvider {
    pub fn new(
        model: ModelRef,
        base: Option<String>,
        key: Option<String>,
        http: reqwest::Client,
    ) -> Self {
        let base = base
            .filter(|b| !b.trim().is_empty())
            .unwrap_or_else(|| model.provider.default_base.to_owned())
            .trim_end_matches('/')
            .to_owned();
        Self {
            model,
            base,
            key,
            http,
        }
    }

    fn id(&self) -> &'static str {
        self.model.provider.id
    }

    fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        match self.model.provider.format {
            WireFormat::Anthropic => {
                if let Some(key) = &self.key {
                    headers.push(("x-api-key", key.clone()));
                }
                headers.push(("anthropic-version", "2023-06-01".to_owned()));
            }
            WireFormat::OpenAi => {
                if let Some(key) = &self.key {
                    headers.push(("authorization", format!("Bearer {key}")));
                }
                if self.id() == "openrouter" {
                    // OpenRouter shows these on the user's activity page.
                    headers.push(("http-referer", "https://sentient.local".to_owned()));
                    headers.push(("x-title", "Sentient".to_owned()));
                }
            }
            WireFormat::Ollama => {}
        }
        headers
    }

    fn require_key(&self) -> Result<(), LlmError> {
        if !self.model.provider.local && self.key.is_none() {
            return Err(LlmError::NoKey {
                provider: self.id().to_owned(),
            });
        }
        Ok(())
    }
}

impl Provider for HttpProvider {
    fn stream(&self, mut req: ChatRequest) -> BoxFuture<'_, Result<ChunkStream, LlmError>> {
        Box::pin(async move {
            self.require_key()?;
            req.model = self.model.name.clone();
            let provider = self.id();
            let model = self.model.name.clone();
            let headers = self.headers();
            let (url, body) = match self.model.provider.format {
                WireFormat::Ollama => (
                    format!("{}/api/chat", self.base),
                    ollama::encode(&req, true),
                ),
                WireFormat::OpenAi => (
                    format!("{}/chat/completions", self.base),
                    openai::encode(&req, true),
                ),
                WireFormat::Anthropic => (
                    format!("{}/v1/messages", self.base),
                    anthropic::encode(&req, true),
                ),
            };
            let response =
                transport::post_json(&self.http, provider, &model, &url, &headers, &body).await?;
            let stream = match self.model.provider.format {
                WireFormat::Ollama => {
                    let mut decoder = ollama::Decoder::default();
                    decoded(
                        transport::ndjson_lines(provider, response),
                        move |line: String| decoder.feed(provider, &model, &line),
                    )
                }
                WireFormat::OpenAi => {
                    let mut decoder = openai::Decoder::default();
                    decoded(transport::sse_events(provider, response), move |event| {
                        decoder.feed(provider, &event.data)
                    })
                }
                WireFormat::Anthropic => {
                    let mut decoder = anthropic::Decoder::default();
                    decoded(transport::sse_events(provider, response), move |event| {
                        decoder.feed(provider, &event.event, &event.data)
                    })
                }
            };
            Ok(stream)
        })
    }

    fn embed(
        &self,
        model: String,
        inputs: Vec<String>,
    ) -> BoxFuture<'_, Result<Vec<Vec<f32>>, LlmError>> {
        Box::pin(async move {
            self.require_key()?;
            let provider = self.id();
            let headers = self.headers();
            let (url, body) = match self.model.provider.format {
                WireFormat::Ollama => (
                    format!("{}/api/embed", self.base),
                    ollama::encode_embed(&model, &inputs),
                ),
                WireFormat::OpenAi => (
                    format!("{}/embeddings", self.base),
                    openai::encode_embed(&model, &inputs),
                ),
                WireFormat::Anthropic => {
                    return Err(LlmError::Refused {
                        provider: provider.to_owned(),
                        message: "Anthropic has no embedding models; pick an Ollama or OpenAI one"
                            .to_owned(),
                    });
                }
            };
            let response =
                transport::post_json(&self.http, provider, &model, &url, &headers, &body).await?;
            let value: Value = response.json().await.map_err(|_| LlmError::Garbled {
                provider: provider.to_owned(),
            })?;
            let vectors = match self.model.provider.format {
                WireFormat::Ollama => ollama::decode_embed(&value),
                _ => openai::decode_embed(&value),
            };
            vectors.ok_or(LlmError::Garbled {
                provider: provider.to_owned(),
            })
        })
    }
}

/// Ollama's management API (`/api/tags`, `/api/show`, `/api/ps`, `/api/pull`).
#[derive(Clone)]
pub struct OllamaAdmin {
    pub base: String,
    pub http: reqwest::Client,
}

impl OllamaAdmin {
    pub async fn get(&self, path: &str) -> Result<Value, LlmError> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|_| LlmError::Unavailable {
                provider: "ollama".to_owned(),
            })?;
        let response = transport::check("ollama", "", response).await?;
        response.json().await.map_err(|_| LlmError::Garbled {
            provider: "ollama".to_owned(),
        })
    }

    pub async fn show(&self, name: &str) -> Result<Value, LlmError> {
        let response = transport::post_json(
            &self.http,
            "ollama",
            name,
            &format!("{}/api/show", self.base),
            &[],
            &json!({"model": name}),
        )
        .await?;
        response.json().await.map_err(|_| LlmError::Garbled {
            provider: "ollama".to_owned(),
        })
    }

    /// Starts a pull; the lines are Ollama's progress objects.
    pub async fn pull(&self, name: &str) -> Result<transport::Lines, LlmError> {
        let response = transport::post_json(
            &self.http,
            "ollama",
            name,
            &format!("{}/api/pull", self.base),
            &[],
            &json!({"model": name, "stream": true}),
        )
        .await?;
        Ok(transport::ndjson_lines("ollama", response))
    }
}
