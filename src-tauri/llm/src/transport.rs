//! The HTTP part every vendor shares: send a JSON body, turn refusals and unreachable servers
//! into [`LlmError`]s (logging the raw reply), and split a streamed body into NDJSON lines or
//! server-sent events.

use std::pin::Pin;
use std::time::Duration;

use futures::{Stream, TryStreamExt};
use serde_json::Value;
use tokio_util::codec::{FramedRead, LinesCodec};
use tokio_util::io::StreamReader;

use super::error::LlmError;

pub type Lines = Pin<Box<dyn Stream<Item = Result<String, LlmError>> + Send>>;
pub type Events = Pin<Box<dyn Stream<Item = Result<eventsource_stream::Event, LlmError>> + Send>>;

/// POSTs `body` and returns the response once it says 2xx.
pub async fn post_json(
    http: &reqwest::Client,
    provider: &str,
    model: &str,
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
) -> Result<reqwest::Response, LlmError> {
    let mut request = http.post(url).json(body);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.map_err(|error| {
        tracing::warn!(provider, %error, "model provider unreachable");
        LlmError::Unavailable {
            provider: provider.to_owned(),
        }
    })?;
    check(provider, model, response).await
}

/// Passes a 2xx response through; anything else becomes its plain-sentence error.
pub async fn check(
    provider: &str,
    model: &str,
    response: reqwest::Response,
) -> Result<reqwest::Response, LlmError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let body = response.text().await.unwrap_or_default();
    tracing::warn!(provider, model, status = status.as_u16(), body = %body.chars().take(2000).collect::<String>(), "model provider refused a call");
    Err(LlmError::from_status(
        provider,
        model,
        status.as_u16(),
        retry_after,
        &body,
    ))
}

/// The body as NDJSON lines (Ollama).
pub fn ndjson_lines(provider: &str, response: reqwest::Response) -> Lines {
    let provider = provider.to_owned();
    let bytes = response.bytes_stream().map_err(std::io::Error::other);
    let reader = StreamReader::new(bytes);
    Box::pin(
        FramedRead::new(reader, LinesCodec::new_with_max_length(8 * 1024 * 1024)).map_err(
            move |error| {
                tracing::warn!(provider = %provider, %error, "model stream broke");
                LlmError::Unavailable {
                    provider: provider.clone(),
                }
            },
        ),
    )
}

/// The body as server-sent events (OpenAI-compatible, Anthropic).
pub fn sse_events(provider: &str, response: reqwest::Response) -> Events {
    use eventsource_stream::Eventsource;
    let provider = provider.to_owned();
    Box::pin(response.bytes_stream().eventsource().map_err(move |error| {
        tracing::warn!(provider = %provider, %error, "model stream broke");
        LlmError::Unavailable {
            provider: provider.clone(),
        }
    }))
}
