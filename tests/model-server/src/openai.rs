//! OpenAI-compatible chat completions (what OpenAI, OpenRouter, LM Studio, vLLM and
//! Ollama's `/v1` speak). Streaming (`stream: true`) is server-sent events: `data: {chunk}`
//! lines, a role-only first chunk, reasoning in `delta.reasoning_content` (or
//! `delta.reasoning`), tool calls as fragments keyed by `index` (the first carries `id`
//! and `name` with empty arguments), a chunk with `finish_reason`, a usage chunk with
//! `choices: []` only when `stream_options.include_usage` is true, then `data: [DONE]`.
//! `stream` defaults to false: one `chat.completion` object. Errors are
//! `{"error": {"message", "type", "param", "code"}}`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::record::JsonBody;
use crate::script::{self, EXHAUSTED, ErrorReply, Frame, Kind, Part, Reply};
use crate::{ReasoningField, Shared, json_response, lock, model_of, now_unix};

fn error(
    status: u16,
    message: &str,
    kind: &str,
    code: Option<&str>,
    retry_after: Option<u64>,
) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    json_response(status, &body, retry_after)
}

fn model_not_found(model: &str) -> Response {
    error(
        404,
        &format!("The model `{model}` does not exist or you do not have access to it."),
        "invalid_request_error",
        Some("model_not_found"),
        None,
    )
}

fn scripted_error(e: &ErrorReply, model: &str) -> Response {
    let (message, kind, code) = match e.status {
        400 => ("Invalid request.".to_owned(), "invalid_request_error", None),
        401 => (
            "Incorrect API key provided.".to_owned(),
            "invalid_request_error",
            Some("invalid_api_key"),
        ),
        402 => (
            "Insufficient credits: this account has run out of credits.".to_owned(),
            "insufficient_quota",
            Some("insufficient_quota"),
        ),
        403 => (
            "You are not allowed to use this model.".to_owned(),
            "permission_error",
            Some("permission_denied"),
        ),
        404 => (
            format!("The model `{model}` does not exist or you do not have access to it."),
            "invalid_request_error",
            Some("model_not_found"),
        ),
        429 => (
            format!("Rate limit reached for {model}. Please try again later."),
            "requests",
            Some("rate_limit_exceeded"),
        ),
        503 => (
            "The server is overloaded, please try again later.".to_owned(),
            "server_error",
            Some("service_unavailable"),
        ),
        _ => (
            "The server had an error while processing your request.".to_owned(),
            "server_error",
            None,
        ),
    };
    let message = e.message.clone().unwrap_or(message);
    error(e.status, &message, kind, code, e.retry_after)
}

/// `POST /v1/chat/completions`.
pub(crate) async fn chat(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    let model = model_of(&body);
    if model.is_empty() {
        return error(
            400,
            "you must provide a model parameter",
            "invalid_request_error",
            None,
            None,
        );
    }
    if shared.model(&model).is_none() {
        return model_not_found(&model);
    }
    let Some(reply) = shared.script.next() else {
        return error(
            500,
            EXHAUSTED,
            "server_error",
            Some("script_exhausted"),
            None,
        );
    };
    let parts = match &reply.kind {
        Kind::Error(e) => return scripted_error(e, &model),
        Kind::Content(parts) => parts.clone(),
    };
    let usage = reply.usage_for(&parts, &body);
    let usage = json!({
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    });
    let pacing = shared.pacing(&reply);
    let reasoning_key = match lock(&shared.config).reasoning_field {
        ReasoningField::ReasoningContent => "reasoning_content",
        ReasoningField::Reasoning => "reasoning",
    };
    let id = format!("chatcmpl-{}", shared.next_id());
    let created = now_unix();
    let has_calls = parts.iter().any(|p| matches!(p, Part::ToolCall { .. }));
    let finish = match (reply.truncated, has_calls) {
        (true, _) => "length",
        (false, true) => "tool_calls",
        (false, false) => "stop",
    };
    let call_ids: Vec<String> = parts
        .iter()
        .filter(|p| matches!(p, Part::ToolCall { .. }))
        .map(|_| format!("call_{}", shared.next_call_id()))
        .collect();

    if body["stream"].as_bool() != Some(true) {
        if !script::hold(&pacing, Reply::chunk_count(&parts)).await {
            return error(500, "server stopped", "server_error", None, None);
        }
        let text = script::joined(&parts, false);
        let has_text = parts.iter().any(|p| matches!(p, Part::Text(_)));
        let mut message = json!({
            "role": "assistant",
            "content": if has_text { json!(text) } else { Value::Null },
            "refusal": null,
        });
        let thinking = script::joined(&parts, true);
        if !thinking.is_empty() {
            message[reasoning_key] = json!(thinking);
        }
        if has_calls {
            let calls: Vec<Value> = parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall { name, arguments } => Some((name, arguments)),
                    _ => None,
                })
                .zip(&call_ids)
                .map(|((name, arguments), id)| {
                    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
                })
                .collect();
            message["tool_calls"] = Value::Array(calls);
        }
        let answer = json!({
            "id": id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
            "usage": usage,
        });
        return json_response(200, &answer, None);
    }

    let include_usage = body["stream_options"]["include_usage"].as_bool() == Some(true);
    let chunk = |delta: Value, finish_reason: Value| {
        let mut chunk = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
        });
        // With include_usage, OpenAI puts `usage: null` on every chunk but the last.
        if include_usage {
            chunk["usage"] = Value::Null;
        }
        Event::default().data(chunk.to_string())
    };
    let mut frames = vec![Frame::framing(chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    ))];
    let mut call_index = 0usize;
    for part in &parts {
        match part {
            Part::Thinking(text) => frames.extend(
                script::text_chunks(text)
                    .into_iter()
                    .map(|c| Frame::content(chunk(json!({ reasoning_key: c }), Value::Null))),
            ),
            Part::Text(text) => frames.extend(
                script::text_chunks(text)
                    .into_iter()
                    .map(|c| Frame::content(chunk(json!({ "content": c }), Value::Null))),
            ),
            Part::ToolCall { name, arguments } => {
                let index = call_index;
                frames.push(Frame::framing(chunk(
                    json!({"tool_calls": [{
                        "index": index,
                        "id": call_ids[index],
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }]}),
                    Value::Null,
                )));
                frames.extend(script::argument_fragments(arguments).into_iter().map(|f| {
                    Frame::content(chunk(
                        json!({"tool_calls": [{"index": index, "function": {"arguments": f}}]}),
                        Value::Null,
                    ))
                }));
                call_index += 1;
            }
        }
    }
    frames.push(Frame::closing(chunk(json!({}), json!(finish))));
    if include_usage {
        let last = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_scripted",
            "choices": [],
            "usage": usage,
        });
        frames.push(Frame::closing(Event::default().data(last.to_string())));
    }
    frames.push(Frame::closing(Event::default().data("[DONE]")));
    Sse::new(script::play(frames, pacing).map(Ok::<_, Infallible>)).into_response()
}

/// `GET /v1/models` (OpenAI's shape).
pub(crate) async fn models(State(shared): State<Arc<Shared>>) -> Response {
    let data: Vec<Value> = shared
        .models()
        .iter()
        .map(|m| json!({"id": m.name(), "object": "model", "created": 1_748_779_200, "owned_by": "library"}))
        .collect();
    json_response(200, &json!({"object": "list", "data": data}), None)
}

/// `POST /v1/embeddings {model, input: string | string[], dimensions?}`.
pub(crate) async fn embeddings(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    let model = model_of(&body);
    if model.is_empty() {
        return error(
            400,
            "you must provide a model parameter",
            "invalid_request_error",
            None,
            None,
        );
    }
    if shared.model(&model).is_none() {
        return model_not_found(&model);
    }
    let Some(inputs) = crate::embedding_inputs(&body["input"]) else {
        return error(
            400,
            "'input' must be a string or an array of strings",
            "invalid_request_error",
            None,
            None,
        );
    };
    if let Some(status) = shared.embedding_failure() {
        return error(
            status,
            "the embedding model failed",
            "server_error",
            None,
            None,
        );
    }
    shared.mark_used(&model, None);
    let dim = body["dimensions"]
        .as_u64()
        .and_then(|d| usize::try_from(d).ok())
        .filter(|d| *d > 0)
        .unwrap_or_else(|| shared.embedding_dim());
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "embedding": shared.embedding_of(text, dim), "index": index}))
        .collect();
    let tokens: usize = inputs
        .iter()
        .map(|t| t.split_whitespace().count().max(1))
        .sum();
    json_response(
        200,
        &json!({
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }),
        None,
    )
}
