//! Ollama's native API. `/api/chat` streams NDJSON (one JSON object a line, `stream`
//! defaults to true) ending with a `done: true` line that carries `done_reason` and the
//! token counts; tool calls arrive complete, arguments as an object. Errors are
//! `{"error": "..."}` with the status. Also the model-management endpoints an app uses to
//! list, inspect, pull and embed.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Extension;
use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::record::JsonBody;
use crate::script::{self, EXHAUSTED, ErrorReply, Frame, Kind, Pacing, Part, Reply};
use crate::{ModelInfo, Shared, json_response, lock, model_of, now_rfc3339};

/// The version `/api/version` reports (one with `thinking`, tool-call ids and `/api/embed`).
const VERSION: &str = "0.12.6";

/// Ollama's text for a model it does not have, on `/api/chat` and `/api/embed`.
fn not_found(model: &str) -> String {
    format!("model {} not found, try pulling it first", go_quote(model))
}

/// Go's `%q` for ordinary names: the name in double quotes, JSON-style escapes.
fn go_quote(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

fn error(status: u16, message: &str) -> Response {
    json_response(status, &json!({ "error": message }), None)
}

fn scripted_error(e: &ErrorReply, model: &str) -> Response {
    let message = e.message.clone().unwrap_or_else(|| match e.status {
        400 => "invalid request".to_owned(),
        401 => "unauthorized".to_owned(),
        402 => "payment required: this account has no credits left".to_owned(),
        403 => "forbidden".to_owned(),
        404 => not_found(model),
        429 => "too many requests: rate limit exceeded".to_owned(),
        503 => "server busy, please try again.  maximum pending requests exceeded".to_owned(),
        _ => "internal server error".to_owned(),
    });
    json_response(e.status, &json!({ "error": message }), e.retry_after)
}

/// NDJSON body from frames; `created_at` is stamped as each line goes out, and the `done`
/// line gets the real elapsed time as `total_duration`.
fn ndjson(frames: Vec<Frame<Value>>, pacing: Pacing, shared: Arc<Shared>) -> Response {
    let started = Instant::now();
    let lines = script::play(frames, pacing).map(move |mut line| {
        if line.get("model").is_some() {
            line["created_at"] = json!(now_rfc3339());
        }
        if line["done"] == json!(true) {
            line["total_duration"] = json!(nanos(started.elapsed()));
        }
        if line["status"] == json!("success")
            && let Some(name) = line.as_object_mut().and_then(|o| o.remove("_pulled"))
        {
            add_pulled(&shared, name.as_str().unwrap_or_default());
        }
        Ok::<_, Infallible>(format!("{line}\n"))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response()
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// `POST /api/chat`.
pub(crate) async fn chat(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    let model = model_of(&body);
    if model.is_empty() {
        return error(400, "model is required");
    }
    if shared.model(&model).is_none() {
        return error(404, &not_found(&model));
    }
    shared.mark_used(&model, body["options"]["num_ctx"].as_u64());
    let Some(reply) = shared.script.next() else {
        return error(500, EXHAUSTED);
    };
    let parts = match &reply.kind {
        Kind::Error(e) => return scripted_error(e, &model),
        Kind::Content(parts) => parts.clone(),
    };
    let usage = reply.usage_for(&parts, &body);
    let pacing = shared.pacing(&reply);
    let calls = tool_calls(&shared, &parts);
    let done = json!({
        "model": model,
        "created_at": "",
        "message": {"role": "assistant", "content": ""},
        "done": true,
        "done_reason": if reply.truncated { "length" } else { "stop" },
        "total_duration": 0,
        "load_duration": 1_000_000,
        "prompt_eval_count": usage.prompt_tokens,
        "prompt_eval_duration": u64::from(usage.prompt_tokens) * 100_000,
        "eval_count": usage.completion_tokens,
        "eval_duration": u64::from(usage.completion_tokens) * 10_000_000,
    });

    if body["stream"].as_bool() == Some(false) {
        if !script::hold(&pacing, Reply::chunk_count(&parts)).await {
            return error(500, "server stopped");
        }
        let mut message = json!({"role": "assistant", "content": script::joined(&parts, false)});
        let thinking = script::joined(&parts, true);
        if !thinking.is_empty() {
            message["thinking"] = json!(thinking);
        }
        if !calls.is_empty() {
            message["tool_calls"] = Value::Array(calls);
        }
        let mut whole = done;
        whole["message"] = message;
        whole["created_at"] = json!(now_rfc3339());
        whole["total_duration"] = json!(nanos(Duration::from_millis(50)));
        return json_response(200, &whole, None);
    }

    let line = |message: Value| json!({"model": model, "created_at": "", "message": message, "done": false});
    let mut frames = Vec::new();
    let mut calls = calls.into_iter();
    let mut pending_calls = Vec::new();
    for part in &parts {
        if !matches!(part, Part::ToolCall { .. }) && !pending_calls.is_empty() {
            frames.push(Frame::content(line(
                json!({"role": "assistant", "content": "", "tool_calls": std::mem::take(&mut pending_calls)}),
            )));
        }
        match part {
            Part::Thinking(text) => frames.extend(script::text_chunks(text).into_iter().map(|c| {
                Frame::content(line(
                    json!({"role": "assistant", "content": "", "thinking": c}),
                ))
            })),
            Part::Text(text) => frames.extend(
                script::text_chunks(text)
                    .into_iter()
                    .map(|c| Frame::content(line(json!({"role": "assistant", "content": c})))),
            ),
            // Consecutive calls go out together in one message, as Ollama's parsers emit them.
            Part::ToolCall { .. } => pending_calls.extend(calls.next()),
        }
    }
    if !pending_calls.is_empty() {
        frames.push(Frame::content(line(
            json!({"role": "assistant", "content": "", "tool_calls": pending_calls}),
        )));
    }
    frames.push(Frame::closing(done));
    ndjson(frames, pacing, shared)
}

/// The reply's tool calls in Ollama's shape: complete, arguments as an object, with the
/// `id` and `function.index` recent Ollama versions add.
fn tool_calls(shared: &Shared, parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .filter_map(|part| match part {
            Part::ToolCall { name, arguments } => Some((name, arguments)),
            _ => None,
        })
        .enumerate()
        .map(|(index, (name, arguments))| {
            json!({
                "id": format!("call_{}", shared.next_call_id()),
                "function": {"index": index, "name": name, "arguments": arguments},
            })
        })
        .collect()
}

fn details(model: &ModelInfo) -> Value {
    json!({
        "parent_model": "",
        "format": "gguf",
        "family": model.family,
        "families": [model.family],
        "parameter_size": model.parameter_size,
        "quantization_level": model.quantization_level,
    })
}

/// A fixed modification time, so listings are stable.
const MODIFIED_AT: &str = "2025-06-01T12:00:00.000000000Z";

/// `GET /api/version`.
pub(crate) async fn version() -> Response {
    json_response(200, &json!({ "version": VERSION }), None)
}

/// `GET /api/tags`: the models from `set_models` (none before it).
pub(crate) async fn tags(State(shared): State<Arc<Shared>>) -> Response {
    let models: Vec<Value> = shared
        .models()
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "model": m.name,
                "modified_at": MODIFIED_AT,
                "size": m.size,
                "digest": m.digest(),
                "details": details(m),
            })
        })
        .collect();
    json_response(200, &json!({ "models": models }), None)
}

/// `"8B"` → 8e9, `"567M"` → 5.67e8; 7e9 when unreadable.
fn parameter_count(size: &str) -> u64 {
    let size = size.trim();
    let (number, scale) = match size.chars().last() {
        Some('B' | 'b') => (&size[..size.len() - 1], 1e9),
        Some('M' | 'm') => (&size[..size.len() - 1], 1e6),
        _ => (size, 1.0),
    };
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    number
        .parse::<f64>()
        .map(|n| (n * scale) as u64)
        .unwrap_or(7_000_000_000)
}

/// `POST /api/show {model}` (or the older `name`).
pub(crate) async fn show(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    let name = body["model"]
        .as_str()
        .filter(|m| !m.is_empty())
        .or_else(|| body["name"].as_str())
        .unwrap_or_default()
        .to_owned();
    if name.is_empty() {
        return error(400, "model is required");
    }
    let Some(model) = shared.model(&name) else {
        return error(404, &format!("model '{name}' not found"));
    };
    let family = &model.family;
    let mut info = serde_json::Map::new();
    info.insert("general.architecture".into(), json!(family));
    info.insert(
        "general.parameter_count".into(),
        json!(parameter_count(&model.parameter_size)),
    );
    info.insert(
        format!("{family}.context_length"),
        json!(model.context_length),
    );
    info.insert(
        format!("{family}.embedding_length"),
        json!(shared.embedding_dim()),
    );
    let answer = json!({
        "license": "",
        "modelfile": format!("# Modelfile generated by \"ollama show\"\nFROM {name}\n"),
        "parameters": "",
        "template": "{{ .Prompt }}",
        "details": details(&model),
        "model_info": info,
        "capabilities": model.capabilities,
        "modified_at": MODIFIED_AT,
    });
    json_response(200, &answer, None)
}

/// `GET /api/ps`: models marked loaded, then those chat or embed requests used; the context
/// is the `num_ctx` last requested (else 4096, Ollama's default, capped by the model).
pub(crate) async fn ps(State(shared): State<Arc<Shared>>) -> Response {
    let (set, used) = {
        let config = lock(&shared.config);
        (config.models.clone(), config.used.clone())
    };
    let mut loaded: Vec<(ModelInfo, Option<u64>)> = set
        .iter()
        .flatten()
        .filter(|m| m.loaded)
        .map(|m| (m.clone(), None))
        .collect();
    for (name, num_ctx) in used {
        let model = match &set {
            None => ModelInfo::new(&name),
            Some(models) => match models.iter().find(|m| m.matches(&name)) {
                Some(m) => m.clone(),
                None => continue,
            },
        };
        loaded.retain(|(m, _)| m.name != model.name);
        loaded.push((model, num_ctx));
    }
    let expires_at = (chrono::Utc::now() + chrono::Duration::minutes(5))
        .to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
    let models: Vec<Value> = loaded
        .iter()
        .map(|(m, num_ctx)| {
            json!({
                "name": m.name,
                "model": m.name,
                "size": m.size,
                "digest": m.digest(),
                "details": details(m),
                "expires_at": expires_at,
                "size_vram": m.size,
                "context_length": num_ctx.unwrap_or(m.context_length.min(4096)),
            })
        })
        .collect();
    json_response(200, &json!({ "models": models }), None)
}

/// A pulled model joins `/api/tags` when models were set (otherwise every name exists).
fn add_pulled(shared: &Shared, name: &str) {
    let mut config = lock(&shared.config);
    if let Some(models) = &mut config.models
        && !models.iter().any(|m| m.matches(name))
    {
        models.push(ModelInfo::new(name));
    }
}

/// `POST /api/pull {model|name, stream}`: progress lines for one layer, then `success`.
/// A name from `set_unpullable` fails the way Ollama does: inside the stream after
/// `pulling manifest` (status 200), or as a 500 when not streaming.
pub(crate) async fn pull(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    const MISSING: &str = "pull model manifest: file does not exist";
    let name = body["model"]
        .as_str()
        .filter(|m| !m.is_empty())
        .or_else(|| body["name"].as_str())
        .unwrap_or_default()
        .to_owned();
    if name.is_empty() {
        return error(400, "invalid model name");
    }
    let unpullable = lock(&shared.config).unpullable.contains(&name);
    let stream = body["stream"].as_bool() != Some(false);
    if !stream {
        if unpullable {
            return error(500, MISSING);
        }
        add_pulled(&shared, &name);
        return json_response(200, &json!({ "status": "success" }), None);
    }
    let mut frames = vec![Frame::framing(json!({"status": "pulling manifest"}))];
    if unpullable {
        frames.push(Frame::closing(json!({ "error": MISSING })));
    } else {
        let digest = ModelInfo::new(&name).digest();
        let status = format!("pulling {}", &digest[..12]);
        let total: u64 = 4_000_000_000;
        frames.push(Frame::content(
            json!({"status": status, "digest": format!("sha256:{digest}"), "total": total}),
        ));
        for quarter in 1..=4u64 {
            frames.push(Frame::content(json!({
                "status": status,
                "digest": format!("sha256:{digest}"),
                "total": total,
                "completed": total / 4 * quarter,
            })));
        }
        frames.push(Frame::closing(json!({"status": "verifying sha256 digest"})));
        frames.push(Frame::closing(json!({"status": "writing manifest"})));
        frames.push(Frame::closing(
            json!({"status": "success", "_pulled": name}),
        ));
    }
    let pacing = Pacing {
        delay: lock(&shared.config).pull_delay,
        stall_after: None,
        log: shared.log.clone(),
        shutdown: shared.shutdown.clone(),
    };
    ndjson(frames, pacing, shared)
}

/// `POST /api/embed {model, input: string | string[]}`.
pub(crate) async fn embed(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    let model = model_of(&body);
    if model.is_empty() {
        return error(400, "model is required");
    }
    if shared.model(&model).is_none() {
        return error(404, &not_found(&model));
    }
    let Some(inputs) = crate::embedding_inputs(&body["input"]) else {
        return error(400, "invalid input type");
    };
    if let Some(status) = shared.embedding_failure() {
        return error(status, "the embedding model failed");
    }
    shared.mark_used(&model, body["options"]["num_ctx"].as_u64());
    let dim = body["dimensions"]
        .as_u64()
        .and_then(|d| usize::try_from(d).ok())
        .filter(|d| *d > 0)
        .unwrap_or_else(|| shared.embedding_dim());
    let embeddings: Vec<Vec<f32>> = inputs.iter().map(|t| shared.embedding_of(t, dim)).collect();
    let tokens: usize = inputs
        .iter()
        .map(|t| t.split_whitespace().count().max(1))
        .sum();
    json_response(
        200,
        &json!({
            "model": model,
            "embeddings": embeddings,
            "total_duration": 20_000_000,
            "load_duration": 1_000_000,
            "prompt_eval_count": tokens,
        }),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_counts_read_sizes() {
        assert_eq!(parameter_count("8B"), 8_000_000_000);
        assert_eq!(parameter_count("567M"), 567_000_000);
        assert_eq!(parameter_count("huge"), 7_000_000_000);
    }

    #[test]
    fn not_found_is_ollamas_text() {
        assert_eq!(
            not_found("qwen3:8b"),
            r#"model "qwen3:8b" not found, try pulling it first"#
        );
    }
}
