//! Ollama's native API: `/api/chat` streamed as NDJSON, with `num_ctx`, `think`, tools and
//! complete tool calls; plus `/api/embed`.

use serde_json::{Map, Value, json};

use crate::error::LlmError;
use crate::types::{ChatRequest, Chunk, Reasoning, Speaker, StopReason, ToolCall, Usage};

/// The `/api/chat` body for `req`.
pub fn encode(req: &ChatRequest, stream: bool) -> Value {
    let messages: Vec<Value> = req
        .messages
        .iter()
        .map(|m| {
            let mut out = Map::new();
            out.insert("role".into(), json!(speaker(m.role)));
            out.insert("content".into(), json!(m.content));
            if !m.images.is_empty() {
                let images: Vec<&str> = m.images.iter().map(|i| i.base64.as_str()).collect();
                out.insert("images".into(), json!(images));
            }
            if !m.tool_calls.is_empty() {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                    .collect();
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            if m.role == Speaker::Tool
                && let Some(name) = &m.name
            {
                out.insert("tool_name".into(), json!(name));
            }
            Value::Object(out)
        })
        .collect();
    let mut body = json!({"model": req.model, "messages": messages, "stream": stream});
    if !req.tools.is_empty() {
        body["tools"] = Value::Array(
            req.tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect(),
        );
    }
    let mut options = Map::new();
    if let Some(n) = req.context_length {
        options.insert("num_ctx".into(), json!(n));
    }
    if let Some(t) = req.temperature {
        options.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.max_tokens {
        options.insert("num_predict".into(), json!(n));
    }
    if !options.is_empty() {
        body["options"] = Value::Object(options);
    }
    if let Some(reasoning) = req.reasoning {
        body["think"] = json!(reasoning != Reasoning::None);
    }
    if req.json {
        body["format"] = json!("json");
    }
    body
}

fn speaker(role: Speaker) -> &'static str {
    match role {
        Speaker::System => "system",
        Speaker::User => "user",
        Speaker::Assistant => "assistant",
        Speaker::Tool => "tool",
    }
}

/// Reads `/api/chat` NDJSON lines into chunks.
#[derive(Debug, Default)]
pub struct Decoder {
    calls: usize,
}

impl Decoder {
    pub fn feed(
        &mut self,
        provider: &str,
        model: &str,
        line: &str,
    ) -> Vec<Result<Chunk, LlmError>> {
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            tracing::warn!(provider, line = %line.chars().take(500).collect::<String>(), "unreadable Ollama line");
            return vec![Err(LlmError::Garbled {
                provider: provider.to_owned(),
            })];
        };
        if let Some(error) = value.get("error").and_then(Value::as_str) {
            tracing::warn!(provider, error, "Ollama error in stream");
            let status = if error.contains("not found") {
                404
            } else {
                500
            };
            return vec![Err(LlmError::from_status(
                provider, model, status, None, error,
            ))];
        }
        let mut out = Vec::new();
        let message = value.get("message");
        if let Some(thinking) = message
            .and_then(|m| m.get("thinking"))
            .and_then(Value::as_str)
            && !thinking.is_empty()
        {
            out.push(Ok(Chunk::Thinking(thinking.to_owned())));
        }
        if let Some(text) = message
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            && !text.is_empty()
        {
            out.push(Ok(Chunk::Text(text.to_owned())));
        }
        if let Some(calls) = message
            .and_then(|m| m.get("tool_calls"))
            .and_then(Value::as_array)
        {
            for call in calls {
                let function = call.get("function");
                let name = function
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let arguments = function
                    .and_then(|f| f.get("arguments"))
                    .cloned()
                    .unwrap_or(json!({}));
                // Some models send arguments as a JSON string; the loop wants the object.
                let arguments = match arguments {
                    Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                    other => other,
                };
                self.calls += 1;
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("call_{}", self.calls));
                out.push(Ok(Chunk::ToolCall(ToolCall {
                    id,
                    name: name.to_owned(),
                    arguments,
                })));
            }
        }
        if value.get("done").and_then(Value::as_bool) == Some(true) {
            let count = |key: &str| {
                value
                    .get(key)
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0)
            };
            out.push(Ok(Chunk::Usage(Usage {
                prompt_tokens: count("prompt_eval_count"),
                completion_tokens: count("eval_count"),
                cached_tokens: 0,
            })));
            let reason = match value.get("done_reason").and_then(Value::as_str) {
                _ if self.calls > 0 => StopReason::ToolCalls,
                Some("length") => StopReason::Length,
                Some("stop") | None => StopReason::Done,
                Some(other) => StopReason::Other(other.to_owned()),
            };
            out.push(Ok(Chunk::End(reason)));
        }
        out
    }
}

/// The `/api/embed` body.
pub fn encode_embed(model: &str, inputs: &[String]) -> Value {
    json!({"model": model, "input": inputs})
}

/// Vectors from an `/api/embed` answer.
pub fn decode_embed(value: &Value) -> Option<Vec<Vec<f32>>> {
    value
        .get("embeddings")?
        .as_array()?
        .iter()
        .map(vector)
        .collect()
}

pub(crate) fn vector(v: &Value) -> Option<Vec<f32>> {
    #[allow(clippy::cast_possible_truncation)]
    v.as_array()?
        .iter()
        .map(|x| x.as_f64().map(|f| f as f32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Message, ToolSpec};

    #[test]
    fn pictures_go_as_base64_images_beside_the_text() {
        let image = crate::types::Image {
            mime: "image/jpeg".into(),
            base64: "/9j/2Q==".into(),
        };
        let req = ChatRequest {
            model: "llava".into(),
            messages: vec![Message::user_with_images("What is this?", vec![image])],
            ..Default::default()
        };
        let body = encode(&req, false);
        assert_eq!(body["messages"][0]["content"], "What is this?");
        assert_eq!(body["messages"][0]["images"], json!(["/9j/2Q=="]));
        let plain = encode(
            &ChatRequest {
                messages: vec![Message::user("hi")],
                ..req
            },
            false,
        );
        assert!(plain["messages"][0].get("images").is_none());
    }

    #[test]
    fn request_carries_num_ctx_think_tools_and_tool_results() {
        let call = ToolCall {
            id: "c1".into(),
            name: "find_city".into(),
            arguments: json!({"name": "Pune"}),
        };
        let req = ChatRequest {
            model: "qwen3:8b".into(),
            messages: vec![
                Message::system("be brief"),
                Message::user("weather?"),
                Message::assistant_calls("", vec![call.clone()]),
                Message::tool_result(&call, "{\"city\":\"Pune\"}"),
            ],
            tools: vec![ToolSpec {
                name: "find_city".into(),
                description: "Find a city".into(),
                parameters: json!({"type": "object"}),
            }],
            context_length: Some(8192),
            reasoning: Some(Reasoning::None),
            temperature: Some(0.2),
            ..Default::default()
        };
        let body = encode(&req, true);
        assert_eq!(body["options"]["num_ctx"], 8192);
        assert_eq!(body["options"]["temperature"], 0.2);
        assert_eq!(body["think"], false);
        assert_eq!(body["stream"], true);
        assert_eq!(body["tools"][0]["function"]["name"], "find_city");
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["arguments"]["name"],
            "Pune"
        );
        assert_eq!(body["messages"][3]["role"], "tool");
        assert_eq!(body["messages"][3]["tool_name"], "find_city");
    }

    #[test]
    fn stream_lines_become_thinking_text_tool_calls_usage_and_end() {
        let mut d = Decoder::default();
        let mut chunks = Vec::new();
        for line in [
            r#"{"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}"#,
            r#"{"message":{"role":"assistant","content":"Hel"},"done":false}"#,
            r#"{"message":{"role":"assistant","content":"lo"},"done":false}"#,
            r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"find_city","arguments":{"name":"Pune"}}}]},"done":false}"#,
            r#"{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":31,"eval_count":7}"#,
        ] {
            chunks.extend(
                d.feed("ollama_chat", "qwen3:8b", line)
                    .into_iter()
                    .map(|c| c.expect("chunk")),
            );
        }
        assert_eq!(chunks[0], Chunk::Thinking("hmm".into()));
        assert_eq!(chunks[1], Chunk::Text("Hel".into()));
        assert_eq!(chunks[2], Chunk::Text("lo".into()));
        assert_eq!(
            chunks[3],
            Chunk::ToolCall(ToolCall {
                id: "call_1".into(),
                name: "find_city".into(),
                arguments: json!({"name": "Pune"})
            })
        );
        assert_eq!(
            chunks[4],
            Chunk::Usage(Usage {
                prompt_tokens: 31,
                completion_tokens: 7,
                cached_tokens: 0
            })
        );
        assert_eq!(chunks[5], Chunk::End(StopReason::ToolCalls));
    }

    #[test]
    fn an_error_line_is_a_plain_error() {
        let mut d = Decoder::default();
        let out = d.feed(
            "ollama_chat",
            "nope:1b",
            r#"{"error":"model \"nope:1b\" not found, try pulling it first"}"#,
        );
        assert!(matches!(&out[0], Err(LlmError::ModelMissing { .. })));
    }
}
