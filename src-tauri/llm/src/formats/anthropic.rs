//! Anthropic Messages streamed as server-sent events. The system prompt and the tool list are
//! marked for prompt caching (they repeat on every round of a loop); tool input arrives as JSON
//! fragments and is assembled here.

use serde_json::{Value, json};

use crate::error::LlmError;
use crate::types::{ChatRequest, Chunk, Reasoning, Speaker, StopReason, ToolCall, Usage};

/// Anthropic requires a reply budget; this is generous for chat and tool rounds.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

pub fn encode(req: &ChatRequest, stream: bool) -> Value {
    let system: Vec<String> = req
        .messages
        .iter()
        .filter(|m| m.role == Speaker::System)
        .map(|m| m.content.clone())
        .collect();
    let mut messages: Vec<Value> = Vec::new();
    for m in req.messages.iter().filter(|m| m.role != Speaker::System) {
        match m.role {
            Speaker::Tool => {
                let block = json!({"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content});
                // Results of one round go back together in a single user turn.
                let merged = messages.last_mut().filter(|last| {
                    last["role"] == "user"
                        && last["content"]
                            .as_array()
                            .is_some_and(|c| c.iter().all(|b| b["type"] == "tool_result"))
                });
                match merged.and_then(|last| last["content"].as_array_mut()) {
                    Some(blocks) => blocks.push(block),
                    None => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
            Speaker::Assistant if !m.tool_calls.is_empty() => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": m.content}));
                }
                for c in &m.tool_calls {
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}));
                }
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Speaker::Assistant => messages.push(json!({"role": "assistant", "content": m.content})),
            _ if !m.images.is_empty() => {
                // Anthropic reads pictures best before the question about them.
                let mut blocks: Vec<Value> = m
                    .images
                    .iter()
                    .map(|i| json!({"type": "image", "source": {"type": "base64", "media_type": i.mime, "data": i.base64}}))
                    .collect();
                blocks.push(json!({"type": "text", "text": m.content}));
                messages.push(json!({"role": "user", "content": blocks}));
            }
            _ => messages.push(json!({"role": "user", "content": m.content})),
        }
    }
    let mut body = json!({
        "model": req.model,
        "max_tokens": req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages,
        "stream": stream,
    });
    if !system.is_empty() {
        body["system"] = json!([{"type": "text", "text": system.join("\n\n"), "cache_control": {"type": "ephemeral"}}]);
    }
    if !req.tools.is_empty() {
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        // A cache mark on the last tool caches the whole list before it.
        if let Some(last) = tools.last_mut() {
            last["cache_control"] = json!({"type": "ephemeral"});
        }
        body["tools"] = Value::Array(tools);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(budget) = req.reasoning.and_then(thinking_budget) {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        // Thinking needs room beyond its budget.
        let max = body["max_tokens"]
            .as_u64()
            .unwrap_or(u64::from(DEFAULT_MAX_TOKENS));
        body["max_tokens"] = json!(max.max(u64::from(budget) + 4096));
    }
    body
}

fn thinking_budget(reasoning: Reasoning) -> Option<u32> {
    match reasoning {
        Reasoning::None => None,
        Reasoning::Low => Some(2048),
        Reasoning::Medium => Some(8192),
        Reasoning::High => Some(24576),
    }
}

#[derive(Debug, Default)]
struct OpenTool {
    id: String,
    name: String,
    json: String,
}

/// Reads events into chunks.
#[derive(Debug, Default)]
pub struct Decoder {
    tool: Option<OpenTool>,
    usage: Usage,
    stop: Option<StopReason>,
}

impl Decoder {
    pub fn feed(
        &mut self,
        provider: &str,
        event: &str,
        data: &str,
    ) -> Vec<Result<Chunk, LlmError>> {
        if event == "ping" || data.trim().is_empty() {
            return Vec::new();
        }
        let Ok(value) = serde_json::from_str::<Value>(data) else {
            tracing::warn!(provider, event, "unreadable Anthropic event");
            return vec![Err(LlmError::Garbled {
                provider: provider.to_owned(),
            })];
        };
        let count = |v: Option<&Value>| {
            v.and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0)
        };
        match value.get("type").and_then(Value::as_str).unwrap_or(event) {
            "message_start" => {
                let usage = value.pointer("/message/usage");
                let cached = count(usage.and_then(|u| u.get("cache_read_input_tokens")));
                let created = count(usage.and_then(|u| u.get("cache_creation_input_tokens")));
                self.usage.prompt_tokens =
                    count(usage.and_then(|u| u.get("input_tokens"))) + cached + created;
                self.usage.cached_tokens = cached;
                Vec::new()
            }
            "content_block_start" => {
                let block = value.get("content_block");
                if block.and_then(|b| b.get("type")).and_then(Value::as_str) == Some("tool_use") {
                    self.tool = Some(OpenTool {
                        id: block
                            .and_then(|b| b.get("id"))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        name: block
                            .and_then(|b| b.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        json: String::new(),
                    });
                }
                Vec::new()
            }
            "content_block_delta" => {
                let delta = value.get("delta");
                let text = |key: &str| {
                    delta
                        .and_then(|d| d.get(key))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => vec![Ok(Chunk::Text(text("text")))],
                    Some("thinking_delta") => vec![Ok(Chunk::Thinking(text("thinking")))],
                    Some("input_json_delta") => {
                        if let Some(tool) = self.tool.as_mut() {
                            tool.json.push_str(&text("partial_json"));
                        }
                        Vec::new()
                    }
                    _ => Vec::new(),
                }
            }
            "content_block_stop" => match self.tool.take() {
                Some(tool) => {
                    let arguments = if tool.json.trim().is_empty() {
                        json!({})
                    } else {
                        serde_json::from_str(&tool.json).unwrap_or(Value::String(tool.json))
                    };
                    vec![Ok(Chunk::ToolCall(ToolCall {
                        id: tool.id,
                        name: tool.name,
                        arguments,
                    }))]
                }
                None => Vec::new(),
            },
            "message_delta" => {
                self.usage.completion_tokens = count(value.pointer("/usage/output_tokens"));
                self.stop = value
                    .pointer("/delta/stop_reason")
                    .and_then(Value::as_str)
                    .map(|r| match r {
                        "end_turn" | "stop_sequence" => StopReason::Done,
                        "tool_use" => StopReason::ToolCalls,
                        "max_tokens" => StopReason::Length,
                        other => StopReason::Other(other.to_owned()),
                    });
                Vec::new()
            }
            "message_stop" => vec![
                Ok(Chunk::Usage(self.usage)),
                Ok(Chunk::End(self.stop.take().unwrap_or(StopReason::Done))),
            ],
            "error" => {
                let kind = value
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                tracing::warn!(provider, kind, "Anthropic error inside the stream");
                let status = match kind {
                    "rate_limit_error" => 429,
                    "authentication_error" => 401,
                    "overloaded_error" => 529,
                    "not_found_error" => 404,
                    _ => 500,
                };
                vec![Err(LlmError::from_status(provider, "", status, None, data))]
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Message, ToolSpec};

    #[test]
    fn pictures_go_with_the_text_as_content_parts() {
        let image = crate::types::Image {
            mime: "image/jpeg".into(),
            base64: "/9j/2Q==".into(),
        };
        let req = ChatRequest {
            model: "vision".into(),
            messages: vec![crate::types::Message::user_with_images(
                "What is this?",
                vec![image],
            )],
            ..Default::default()
        };
        let body = encode(&req, false);
        assert_eq!(
            body["messages"][0]["content"][0],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/2Q=="}})
        );
        assert_eq!(
            body["messages"][0]["content"][1],
            json!({"type": "text", "text": "What is this?"})
        );
    }

    #[test]
    fn system_and_tools_are_cached_and_tool_results_merge_into_one_user_turn() {
        let a = ToolCall {
            id: "t1".into(),
            name: "a".into(),
            arguments: json!({}),
        };
        let b = ToolCall {
            id: "t2".into(),
            name: "b".into(),
            arguments: json!({"x": 1}),
        };
        let req = ChatRequest {
            model: "claude-sonnet-5".into(),
            messages: vec![
                Message::system("You are Sentient."),
                Message::user("go"),
                Message::assistant_calls("On it", vec![a.clone(), b.clone()]),
                Message::tool_result(&a, "ra"),
                Message::tool_result(&b, "rb"),
            ],
            tools: vec![
                ToolSpec {
                    name: "a".into(),
                    description: "A".into(),
                    parameters: json!({"type": "object"}),
                },
                ToolSpec {
                    name: "b".into(),
                    description: "B".into(),
                    parameters: json!({"type": "object"}),
                },
            ],
            reasoning: Some(Reasoning::Low),
            ..Default::default()
        };
        let body = encode(&req, true);
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["messages"][1]["content"][1]["type"], "tool_use");
        assert_eq!(body["messages"].as_array().map(Vec::len), Some(3));
        assert_eq!(body["messages"][2]["content"][1]["tool_use_id"], "t2");
        assert_eq!(body["thinking"]["budget_tokens"], 2048);
    }

    #[test]
    fn events_become_thinking_text_a_whole_tool_call_usage_and_end() {
        let mut d = Decoder::default();
        let mut out = Vec::new();
        for (event, data) in [
            (
                "message_start",
                r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":90}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"plan"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            ("ping", r#"{"type":"ping"}"#),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":1}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"find_city","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"name\": \"Pu"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ne\"}"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":2}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":22}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ] {
            out.extend(
                d.feed("anthropic", event, data)
                    .into_iter()
                    .map(|c| c.expect("chunk")),
            );
        }
        assert_eq!(
            out,
            vec![
                Chunk::Thinking("plan".into()),
                Chunk::Text("Hi".into()),
                Chunk::ToolCall(ToolCall {
                    id: "toolu_1".into(),
                    name: "find_city".into(),
                    arguments: json!({"name": "Pune"})
                }),
                Chunk::Usage(Usage {
                    prompt_tokens: 100,
                    completion_tokens: 22,
                    cached_tokens: 90
                }),
                Chunk::End(StopReason::ToolCalls),
            ]
        );
    }
}
