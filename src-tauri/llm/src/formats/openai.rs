//! OpenAI-compatible chat completions streamed as server-sent events: OpenAI, OpenRouter,
//! LM Studio, vLLM and Nous. Tool calls arrive as fragments keyed by index and are assembled
//! here; usage comes last when `stream_options.include_usage` is on.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::error::LlmError;
use crate::types::{ChatRequest, Chunk, Reasoning, Speaker, StopReason, ToolCall, Usage};

pub fn encode(req: &ChatRequest, stream: bool) -> Value {
    let messages: Vec<Value> = req
        .messages
        .iter()
        .map(|m| {
            let mut out = Map::new();
            let role = match m.role {
                Speaker::System => "system",
                Speaker::User => "user",
                Speaker::Assistant => "assistant",
                Speaker::Tool => "tool",
            };
            out.insert("role".into(), json!(role));
            if m.images.is_empty() {
                out.insert("content".into(), json!(m.content));
            } else {
                // Pictures go as content parts beside the text, each a data URL.
                let mut parts = vec![json!({"type": "text", "text": m.content})];
                parts.extend(m.images.iter().map(|i| {
                    json!({"type": "image_url", "image_url": {"url": format!("data:{};base64,{}", i.mime, i.base64)}})
                }));
                out.insert("content".into(), Value::Array(parts));
            }
            if !m.tool_calls.is_empty() {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments.to_string()}}))
                    .collect();
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            if let Some(id) = &m.tool_call_id {
                out.insert("tool_call_id".into(), json!(id));
            }
            Value::Object(out)
        })
        .collect();
    let mut body = json!({"model": req.model, "messages": messages, "stream": stream});
    if stream {
        body["stream_options"] = json!({"include_usage": true});
    }
    if !req.tools.is_empty() {
        body["tools"] = Value::Array(
            req.tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect(),
        );
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(n) = req.max_tokens {
        body["max_tokens"] = json!(n);
    }
    if let Some(effort) = req.reasoning.filter(|r| *r != Reasoning::None) {
        body["reasoning_effort"] = json!(match effort {
            Reasoning::Low => "low",
            Reasoning::High => "high",
            _ => "medium",
        });
    }
    if req.json {
        body["response_format"] = json!({"type": "json_object"});
    }
    body
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Reads `data:` payloads into chunks, assembling tool-call fragments.
#[derive(Debug, Default)]
pub struct Decoder {
    calls: BTreeMap<u64, PartialCall>,
    finish: Option<StopReason>,
    ended: bool,
}

impl Decoder {
    pub fn feed(&mut self, provider: &str, data: &str) -> Vec<Result<Chunk, LlmError>> {
        let data = data.trim();
        if data.is_empty() || self.ended {
            return Vec::new();
        }
        if data == "[DONE]" {
            self.ended = true;
            let mut out = self.flush_calls();
            out.push(Ok(Chunk::End(
                self.finish.take().unwrap_or(StopReason::Done),
            )));
            return out;
        }
        let Ok(value) = serde_json::from_str::<Value>(data) else {
            tracing::warn!(provider, data = %data.chars().take(500).collect::<String>(), "unreadable SSE data");
            return vec![Err(LlmError::Garbled {
                provider: provider.to_owned(),
            })];
        };
        if value.get("error").is_some() {
            tracing::warn!(provider, error = %value["error"], "error inside the stream");
            let status = value
                .pointer("/error/code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500);
            return vec![Err(LlmError::from_status(provider, "", status, None, data))];
        }
        let mut out = Vec::new();
        if let Some(choice) = value
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            for key in ["reasoning_content", "reasoning"] {
                if let Some(t) = delta.and_then(|d| d.get(key)).and_then(Value::as_str)
                    && !t.is_empty()
                {
                    out.push(Ok(Chunk::Thinking(t.to_owned())));
                }
            }
            if let Some(t) = delta.and_then(|d| d.get("content")).and_then(Value::as_str)
                && !t.is_empty()
            {
                out.push(Ok(Chunk::Text(t.to_owned())));
            }
            if let Some(fragments) = delta
                .and_then(|d| d.get("tool_calls"))
                .and_then(Value::as_array)
            {
                for (position, fragment) in fragments.iter().enumerate() {
                    let index = fragment
                        .get("index")
                        .and_then(Value::as_u64)
                        .unwrap_or(position as u64);
                    let call = self.calls.entry(index).or_default();
                    if let Some(id) = fragment.get("id").and_then(Value::as_str) {
                        call.id = id.to_owned();
                    }
                    if let Some(f) = fragment.get("function") {
                        if let Some(name) = f.get("name").and_then(Value::as_str) {
                            call.name.push_str(name);
                        }
                        match f.get("arguments") {
                            Some(Value::String(part)) => call.arguments.push_str(part),
                            Some(Value::Object(obj)) => {
                                call.arguments = Value::Object(obj.clone()).to_string()
                            }
                            _ => {}
                        }
                    }
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish = Some(match reason {
                    "stop" => StopReason::Done,
                    "tool_calls" | "function_call" => StopReason::ToolCalls,
                    "length" => StopReason::Length,
                    other => StopReason::Other(other.to_owned()),
                });
                out.extend(self.flush_calls());
            }
        }
        if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
            let count = |key: &str| {
                usage
                    .get(key)
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0)
            };
            out.push(Ok(Chunk::Usage(Usage {
                prompt_tokens: count("prompt_tokens"),
                completion_tokens: count("completion_tokens"),
                cached_tokens: usage
                    .pointer("/prompt_tokens_details/cached_tokens")
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0),
            })));
        }
        out
    }

    fn flush_calls(&mut self) -> Vec<Result<Chunk, LlmError>> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .map(|(index, call)| {
                let arguments = if call.arguments.trim().is_empty() {
                    json!({})
                } else {
                    // Invalid JSON stays a string so the loop can tell the model what was wrong.
                    serde_json::from_str(&call.arguments).unwrap_or(Value::String(call.arguments))
                };
                let id = if call.id.is_empty() {
                    format!("call_{index}")
                } else {
                    call.id
                };
                Ok(Chunk::ToolCall(ToolCall {
                    id,
                    name: call.name,
                    arguments,
                }))
            })
            .collect()
    }
}

pub fn encode_embed(model: &str, inputs: &[String]) -> Value {
    json!({"model": model, "input": inputs})
}

pub fn decode_embed(value: &Value) -> Option<Vec<Vec<f32>>> {
    value
        .get("data")?
        .as_array()?
        .iter()
        .map(|item| super::ollama::vector(item.get("embedding")?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Message;

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
            json!({"type": "text", "text": "What is this?"})
        );
        assert_eq!(
            body["messages"][0]["content"][1],
            json!({"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/2Q=="}})
        );
    }

    #[test]
    fn request_asks_for_usage_and_sends_tool_arguments_as_text() {
        let call = ToolCall {
            id: "call_9".into(),
            name: "f".into(),
            arguments: json!({"a": 1}),
        };
        let req = ChatRequest {
            model: "gpt-5-mini".into(),
            messages: vec![
                Message::assistant_calls("", vec![call.clone()]),
                Message::tool_result(&call, "done"),
            ],
            reasoning: Some(Reasoning::High),
            json: true,
            ..Default::default()
        };
        let body = encode(&req, true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(
            body["messages"][0]["tool_calls"][0]["function"]["arguments"],
            "{\"a\":1}"
        );
        assert_eq!(body["messages"][1]["tool_call_id"], "call_9");
        assert_eq!(body["reasoning_effort"], "high");
        assert_eq!(body["response_format"]["type"], "json_object");
    }

    #[test]
    fn fragments_assemble_into_whole_tool_calls_then_usage_then_end() {
        let mut d = Decoder::default();
        let mut out = Vec::new();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"think"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Sure"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"find_city","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"na"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"me\":\"Pune\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":9,"total_tokens":59}}"#,
            "[DONE]",
        ] {
            out.extend(
                d.feed("openai", data)
                    .into_iter()
                    .map(|c| c.expect("chunk")),
            );
        }
        assert_eq!(
            out,
            vec![
                Chunk::Thinking("think".into()),
                Chunk::Text("Sure".into()),
                Chunk::ToolCall(ToolCall {
                    id: "call_1".into(),
                    name: "find_city".into(),
                    arguments: json!({"name": "Pune"})
                }),
                Chunk::Usage(Usage {
                    prompt_tokens: 50,
                    completion_tokens: 9,
                    cached_tokens: 0
                }),
                Chunk::End(StopReason::ToolCalls),
            ]
        );
    }
}
