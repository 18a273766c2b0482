//! Anthropic Messages (`POST /v1/messages`). Streaming (`stream: true`) is named
//! server-sent events: `message_start` (input tokens), a `ping`, then per content block
//! `content_block_start` / `content_block_delta` (`text_delta`, `thinking_delta` then a
//! `signature_delta`, `input_json_delta` fragments of a tool call's input) /
//! `content_block_stop`, then `message_delta` (stop reason, output tokens) and
//! `message_stop`. `stream` defaults to false: one `message` object. Errors are
//! `{"type": "error", "error": {"type", "message"}, "request_id"}`.

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
use crate::{Shared, json_response, model_of};

/// The signature a thinking block ends with (opaque to clients, echoed back by them).
const SIGNATURE: &str = "c2NyaXB0ZWQtdGhpbmtpbmctc2lnbmF0dXJl";

fn error(
    shared: &Shared,
    status: u16,
    kind: &str,
    message: &str,
    retry_after: Option<u64>,
) -> Response {
    let body = json!({
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": format!("req_scripted_{}", shared.next_id()),
    });
    json_response(status, &body, retry_after)
}

fn scripted_error(shared: &Shared, e: &ErrorReply, model: &str) -> Response {
    let (kind, message) = match e.status {
        400 => ("invalid_request_error", "Invalid request.".to_owned()),
        401 => ("authentication_error", "invalid x-api-key".to_owned()),
        402 => (
            "billing_error",
            "Your credit balance is too low to access the Anthropic API.".to_owned(),
        ),
        403 => (
            "permission_error",
            "Your API key does not have permission to use the specified resource.".to_owned(),
        ),
        404 => ("not_found_error", format!("model: {model}")),
        413 => (
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.".to_owned(),
        ),
        429 => (
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit.".to_owned(),
        ),
        529 | 503 => ("overloaded_error", "Overloaded".to_owned()),
        _ => ("api_error", "Internal server error".to_owned()),
    };
    let message = e.message.clone().unwrap_or(message);
    error(shared, e.status, kind, &message, e.retry_after)
}

fn event(name: &str, data: &Value) -> Event {
    Event::default().event(name).data(data.to_string())
}

/// `POST /v1/messages`.
pub(crate) async fn messages(
    State(shared): State<Arc<Shared>>,
    Extension(JsonBody(body)): Extension<JsonBody>,
) -> Response {
    let model = model_of(&body);
    if model.is_empty() {
        return error(
            &shared,
            400,
            "invalid_request_error",
            "model: Field required",
            None,
        );
    }
    if shared.model(&model).is_none() {
        return error(
            &shared,
            404,
            "not_found_error",
            &format!("model: {model}"),
            None,
        );
    }
    let Some(reply) = shared.script.next() else {
        return error(&shared, 500, "api_error", EXHAUSTED, None);
    };
    let parts = match &reply.kind {
        Kind::Error(e) => return scripted_error(&shared, e, &model),
        Kind::Content(parts) => parts.clone(),
    };
    let usage = reply.usage_for(&parts, &body);
    let pacing = shared.pacing(&reply);
    let id = format!("msg_scripted_{}", shared.next_id());
    let has_calls = parts.iter().any(|p| matches!(p, Part::ToolCall { .. }));
    let stop_reason = match (reply.truncated, has_calls) {
        (true, _) => "max_tokens",
        (false, true) => "tool_use",
        (false, false) => "end_turn",
    };
    let tool_ids: Vec<String> = parts
        .iter()
        .map(|p| match p {
            Part::ToolCall { .. } => format!("toolu_{}", shared.next_call_id()),
            _ => String::new(),
        })
        .collect();

    if body["stream"].as_bool() != Some(true) {
        if !script::hold(&pacing, Reply::chunk_count(&parts)).await {
            return error(&shared, 500, "api_error", "server stopped", None);
        }
        let content: Vec<Value> = parts
            .iter()
            .zip(&tool_ids)
            .map(|(part, tool_id)| match part {
                Part::Thinking(t) => {
                    json!({"type": "thinking", "thinking": t, "signature": SIGNATURE})
                }
                Part::Text(t) => json!({"type": "text", "text": t}),
                Part::ToolCall { name, arguments } => {
                    json!({"type": "tool_use", "id": tool_id, "name": name, "input": arguments})
                }
            })
            .collect();
        let answer = json!({
            "id": id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.prompt_tokens,
                "output_tokens": usage.completion_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        });
        return json_response(200, &answer, None);
    }

    let mut frames = vec![
        Frame::framing(event(
            "message_start",
            &json!({"type": "message_start", "message": {
                "id": id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": usage.prompt_tokens,
                    "output_tokens": 1,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            }}),
        )),
        Frame::framing(event("ping", &json!({"type": "ping"}))),
    ];
    let delta = |index: usize, delta: Value| {
        event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    for (index, (part, tool_id)) in parts.iter().zip(&tool_ids).enumerate() {
        let block = match part {
            Part::Thinking(_) => json!({"type": "thinking", "thinking": "", "signature": ""}),
            Part::Text(_) => json!({"type": "text", "text": ""}),
            Part::ToolCall { name, .. } => {
                json!({"type": "tool_use", "id": tool_id, "name": name, "input": {}})
            }
        };
        frames.push(Frame::framing(event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        )));
        match part {
            Part::Thinking(text) => {
                frames.extend(script::text_chunks(text).into_iter().map(|c| {
                    Frame::content(delta(
                        index,
                        json!({"type": "thinking_delta", "thinking": c}),
                    ))
                }));
                frames.push(Frame::framing(delta(
                    index,
                    json!({"type": "signature_delta", "signature": SIGNATURE}),
                )));
            }
            Part::Text(text) => {
                frames.extend(script::text_chunks(text).into_iter().map(|c| {
                    Frame::content(delta(index, json!({"type": "text_delta", "text": c})))
                }));
            }
            Part::ToolCall { arguments, .. } => {
                frames.push(Frame::framing(delta(
                    index,
                    json!({"type": "input_json_delta", "partial_json": ""}),
                )));
                frames.extend(script::argument_fragments(arguments).into_iter().map(|f| {
                    Frame::content(delta(
                        index,
                        json!({"type": "input_json_delta", "partial_json": f}),
                    ))
                }));
            }
        }
        frames.push(Frame::framing(event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        )));
    }
    frames.push(Frame::closing(event(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": {"output_tokens": usage.completion_tokens},
        }),
    )));
    frames.push(Frame::closing(event(
        "message_stop",
        &json!({"type": "message_stop"}),
    )));
    Sse::new(script::play(frames, pacing).map(Ok::<_, Infallible>)).into_response()
}

/// `GET /v1/models` in Anthropic's shape.
pub(crate) async fn models(State(shared): State<Arc<Shared>>) -> Response {
    let data: Vec<Value> = shared
        .models()
        .iter()
        .map(|m| {
            json!({
                "type": "model",
                "id": m.name(),
                "display_name": m.name(),
                "created_at": "2025-06-01T12:00:00Z",
            })
        })
        .collect();
    let first = data.first().map(|m| m["id"].clone()).unwrap_or(Value::Null);
    let last = data.last().map(|m| m["id"].clone()).unwrap_or(Value::Null);
    json_response(
        200,
        &json!({"data": data, "has_more": false, "first_id": first, "last_id": last}),
        None,
    )
}
