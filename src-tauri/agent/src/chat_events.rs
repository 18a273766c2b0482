//! The chat events of contract section 1, as a turn streams them: one typed enum, serialised flat
//! (`{"type": "text_delta", "session_id", "turn_id", "text"}`), so both doors send the same thing
//! and the window's types are generated from it. Fields that only some events of a type carry are
//! left out when absent, exactly as the contract shows them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::run_loop::LoopEvent;
pub use crate::run_types::{MemorySource, ProgressKind};
use crate::sessions::MessageVersion;

/// One chat event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChatEvent {
    /// The turn started in this chat (a new chat gets its id here).
    Session {
        session_id: String,
        turn_id: String,
        client_id: Option<String>,
    },
    ThinkingDelta {
        session_id: String,
        turn_id: String,
        text: String,
    },
    TextDelta {
        session_id: String,
        turn_id: String,
        text: String,
    },
    ToolCall {
        session_id: String,
        turn_id: String,
        call_id: String,
        name: String,
        arguments: Value,
    },
    /// A running tool's progress.
    ToolProgress {
        session_id: String,
        turn_id: String,
        call_id: String,
        name: String,
        kind: ProgressKind,
        text: String,
        /// The picture of a `frame` progress (`data:image/jpeg;base64,...`).
        #[serde(skip_serializing_if = "Option::is_none")]
        image: Option<String>,
        /// Structured details: a helper's `{subagent_id, message}` (kind `subagent`).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
        data: Option<serde_json::Value>,
    },
    ToolResult {
        session_id: String,
        turn_id: String,
        call_id: String,
        name: String,
        result: Value,
        is_error: bool,
        duration_ms: u32,
    },
    /// A call waits for the person's OK (answered with `approval`).
    ApprovalRequest {
        session_id: String,
        turn_id: String,
        approval_id: String,
        call_id: String,
        name: String,
        arguments: Value,
        /// read, write, send or exec.
        risk: String,
        reason: String,
        risk_label: Option<String>,
        target: Option<String>,
        untrusted: Option<String>,
    },
    /// A steer message the model just received.
    UserInterjection {
        session_id: String,
        turn_id: String,
        text: String,
    },
    /// A message for a running reply: steered into it (`queued`) or run as the next turn.
    SteerAck {
        /// Null for a steer that named no chat (it starts one).
        session_id: Option<String>,
        queued: bool,
        /// Echoed on the socket (null when the client gave none); the HTTP answer has none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[specta(type = Option<Option<String>>)]
        client_id: Option<Option<String>>,
    },
    /// After each model call: tokens and how full the model's context is.
    Usage {
        session_id: String,
        turn_id: String,
        model: String,
        prompt_tokens: u32,
        completion_tokens: u32,
        context_used: Option<u32>,
        context_length: Option<u32>,
        context_percent: Option<u32>,
        context_warning: Option<String>,
    },
    Error {
        session_id: String,
        turn_id: String,
        message: String,
        recoverable: bool,
        /// A queued message that Stop everything dropped unsent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dropped: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[specta(type = Option<Option<String>>)]
        client_id: Option<Option<String>>,
    },
    /// The turn ended; `content` is the whole reply.
    Done {
        session_id: String,
        turn_id: String,
        content: String,
        message_id: Option<String>,
        memory_sources: Vec<MemorySource>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cancelled: Option<bool>,
        /// Steer messages that were never sent because the reply was stopped.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dropped: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[specta(type = Option<Option<String>>)]
        client_id: Option<Option<String>>,
        /// A regenerated answer's versions, oldest first (as the messages list shows them).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        versions: Option<Vec<MessageVersion>>,
        /// Which of `versions` this reply is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version_index: Option<u32>,
    },
}

impl ChatEvent {
    /// A recoverable error of a turn.
    pub fn error(session_id: &str, turn_id: &str, message: impl Into<String>) -> Self {
        Self::Error {
            session_id: session_id.to_owned(),
            turn_id: turn_id.to_owned(),
            message: message.into(),
            recoverable: true,
            dropped: None,
            client_id: None,
        }
    }

    /// A loop event of a chat turn as the chat event the window gets; `None` for an approval
    /// question, which the window approver sends itself with its approval id.
    pub fn from_loop(session_id: &str, turn_id: &str, event: LoopEvent) -> Option<Self> {
        let (session_id, turn_id) = (session_id.to_owned(), turn_id.to_owned());
        Some(match event {
            LoopEvent::TextDelta(text) => Self::TextDelta {
                session_id,
                turn_id,
                text,
            },
            LoopEvent::ThinkingDelta(text) => Self::ThinkingDelta {
                session_id,
                turn_id,
                text,
            },
            LoopEvent::ToolCall {
                call_id,
                name,
                arguments,
            } => Self::ToolCall {
                session_id,
                turn_id,
                call_id,
                name,
                arguments,
            },
            LoopEvent::ToolResult {
                call_id,
                name,
                result,
                is_error,
                duration_ms,
                ..
            } => Self::ToolResult {
                session_id,
                turn_id,
                call_id,
                name,
                result,
                is_error,
                duration_ms,
            },
            LoopEvent::UserInterjection(text) => Self::UserInterjection {
                session_id,
                turn_id,
                text,
            },
            LoopEvent::ToolProgress {
                call_id,
                name,
                update,
            } => {
                let (text, image) = if update.kind == ProgressKind::Frame {
                    (String::new(), Some(update.text))
                } else {
                    (update.text, None)
                };
                Self::ToolProgress {
                    session_id,
                    turn_id,
                    call_id,
                    name,
                    kind: update.kind,
                    text,
                    image,
                    data: update.data,
                }
            }
            LoopEvent::ApprovalRequest(_) => return None,
            LoopEvent::Usage {
                model,
                prompt_tokens,
                completion_tokens,
                meter,
            } => Self::Usage {
                session_id,
                turn_id,
                model,
                prompt_tokens,
                completion_tokens,
                context_used: meter.context_used,
                context_length: meter.context_length,
                context_percent: meter.context_percent,
                context_warning: meter.context_warning,
            },
        })
    }

    /// The event as JSON (never fails: every field is plain data).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_are_flat_with_the_contracts_fields() {
        let event = ChatEvent::TextDelta {
            session_id: "s".into(),
            turn_id: "t".into(),
            text: "Hi".into(),
        };
        assert_eq!(
            event.to_value(),
            json!({"type": "text_delta", "session_id": "s", "turn_id": "t", "text": "Hi"})
        );
        assert_eq!(
            ChatEvent::error("s", "t", "No.").to_value(),
            json!({"type": "error", "session_id": "s", "turn_id": "t", "message": "No.", "recoverable": true})
        );
        let ack = ChatEvent::SteerAck {
            session_id: Some("s".into()),
            queued: false,
            client_id: Some(None),
        };
        assert_eq!(
            ack.to_value(),
            json!({"type": "steer_ack", "session_id": "s", "queued": false, "client_id": null})
        );
        let done = ChatEvent::Done {
            session_id: "s".into(),
            turn_id: "t".into(),
            content: "x".into(),
            message_id: None,
            memory_sources: Vec::new(),
            cancelled: None,
            dropped: None,
            client_id: None,
            versions: None,
            version_index: None,
        };
        assert_eq!(
            done.to_value(),
            json!({"type": "done", "session_id": "s", "turn_id": "t", "content": "x", "message_id": null, "memory_sources": []})
        );
    }
}
