//! What goes into a model call and what comes out, independent of any vendor's wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Speaker,
    pub content: String,
    /// Calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool result: the tool's name (Ollama wants it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Pictures sent with a user message, for models that can look at them (the vision role).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
}

/// A picture in a message: its type (`image/jpeg`, `image/png`) and base64 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    pub mime: String,
    pub base64: String,
}

impl Message {
    fn new(role: Speaker, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            images: Vec::new(),
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Speaker::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Speaker::User, content)
    }
    /// A user message with pictures.
    pub fn user_with_images(content: impl Into<String>, images: Vec<Image>) -> Self {
        Self {
            images,
            ..Self::new(Speaker::User, content)
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Speaker::Assistant, content)
    }
    pub fn assistant_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::new(Speaker::Assistant, content)
        }
    }
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call.id.clone()),
            name: Some(call.name.clone()),
            ..Self::new(Speaker::Tool, content)
        }
    }
}

/// A tool offered to the model: a name, what it does, and JSON-schema arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// A complete tool call (fragments already assembled).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// How hard the model thinks before answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reasoning {
    None,
    Low,
    Medium,
    High,
}

impl Reasoning {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Some(Self::None),
            "low" => Some(Self::Low),
            "medium" => Some(Self::Medium),
            "high" => Some(Self::High),
            _ => None,
        }
    }
}

/// One model call, before it is put in a vendor's format.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    /// The vendor's own model name (`qwen3:8b`, `claude-sonnet-5`), without the provider prefix.
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub temperature: Option<f64>,
    pub reasoning: Option<Reasoning>,
    /// How many tokens a local model reads at once (Ollama `num_ctx`).
    pub context_length: Option<u32>,
    pub max_tokens: Option<u32>,
    /// Ask for a JSON object as the reply.
    pub json: bool,
}

/// Tokens a call used, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    /// Prompt tokens read from the provider's cache (Anthropic), included in `prompt_tokens`.
    pub cached_tokens: u32,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Done,
    ToolCalls,
    Length,
    Other(String),
}

/// One piece of a streamed reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    Text(String),
    Thinking(String),
    /// A whole tool call; streamed fragments are assembled before this is sent.
    ToolCall(ToolCall),
    Usage(Usage),
    End(StopReason),
}

/// A finished reply, collected from its chunks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    pub text: String,
    pub thinking: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    pub stop: Option<StopReason>,
}

impl Reply {
    pub fn absorb(&mut self, chunk: Chunk) {
        match chunk {
            Chunk::Text(t) => self.text.push_str(&t),
            Chunk::Thinking(t) => self.thinking.push_str(&t),
            Chunk::ToolCall(call) => self.tool_calls.push(call),
            Chunk::Usage(u) => self.usage = Some(u),
            Chunk::End(reason) => self.stop = Some(reason),
        }
    }
}
