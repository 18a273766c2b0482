//! Long chats: once a chat holds more than `chat.compress_after_messages` messages past its
//! running summary, the older ones are folded into that summary by the fast model, and each
//! reply reads the summary plus the recent messages (`chat.history_window`). Flush hooks (the
//! memory package, later) read the folded part first, so durable facts outlive it.

use sentient_core::sync::MutexExt;
use std::sync::Arc;

use super::sessions::MessageRow;
use crate::Agent;
use sentient_llm::queue::JobKind;
use sentient_llm::{CallOptions, ChatRequest, Message, ModelRole, Reasoning};

pub use crate::chat_state::{Compression, ConversationFlush};

/// Longest stretch of one message the summarizer reads.
const MESSAGE_CHARS: usize = 2000;
/// Longest transcript one summary call reads; older lines beyond it are left to the summary.
const TRANSCRIPT_CHARS: usize = 24_000;

const SUMMARIZER: &str = "You keep the running summary of a chat between a person and their assistant. \
Write the new summary from the summary so far and the new messages: keep every fact, decision, preference, \
open question and promise; drop greetings and small talk. Plain text, at most 250 words, nothing else.";

/// The index of the first message kept word for word: the user message (not a steer) at or after
/// `len - keep`, else the last one before it. `None` when nothing should be folded.
pub fn split_point(
    rows: &[(i64, MessageRow)],
    compress_after: usize,
    keep: usize,
) -> Option<usize> {
    if rows.len() <= compress_after {
        return None;
    }
    let at = user_boundary(rows, rows.len().saturating_sub(keep));
    (at > 0).then_some(at)
}

/// The recent messages sent with a reply: at most `window`, starting at a user message so a tool
/// result never arrives without the call that asked for it.
pub fn recent_window(rows: &[(i64, MessageRow)], window: usize) -> &[(i64, MessageRow)] {
    if rows.len() <= window {
        return rows;
    }
    let at = user_boundary(rows, rows.len() - window);
    &rows[at..]
}

fn user_boundary(rows: &[(i64, MessageRow)], from: usize) -> usize {
    let starts_turn = |r: &(i64, MessageRow)| r.1.role == "user" && !r.1.interjection;
    rows.iter()
        .skip(from)
        .position(starts_turn)
        .map(|i| from + i)
        .or_else(|| rows[..from.min(rows.len())].iter().rposition(starts_turn))
        .unwrap_or(0)
}

/// The folded messages as plain lines for the summarizer; long results are shortened.
pub fn transcript(rows: &[(i64, MessageRow)]) -> String {
    let cut = |text: &str| -> String {
        let mut short: String = text.chars().take(MESSAGE_CHARS).collect();
        if short.len() < text.len() {
            short.push_str(" …");
        }
        short
    };
    let lines: Vec<String> = rows
        .iter()
        .filter_map(|(_, row)| match row.role.as_str() {
            "user" => Some(format!("User: {}", cut(&row.content))),
            "assistant" if !row.tool_calls.is_empty() => {
                let names: Vec<&str> = row
                    .tool_calls
                    .iter()
                    .map(|c| c.function.name.as_str())
                    .collect();
                let said = row.content.trim();
                Some(if said.is_empty() {
                    format!("Assistant used {}.", names.join(", "))
                } else {
                    format!("Assistant: {} (used {})", cut(said), names.join(", "))
                })
            }
            "assistant" => Some(format!("Assistant: {}", cut(&row.content))),
            "tool" => Some(format!(
                "Result of {}: {}",
                row.name.as_deref().unwrap_or("a tool"),
                cut(&row.content)
            )),
            _ => None,
        })
        .collect();
    // Keep the newest lines when the whole is too long; the summary so far covers the rest.
    let mut total = 0;
    let mut kept: Vec<String> = lines
        .into_iter()
        .rev()
        .take_while(|line| {
            total += line.len() + 1;
            total <= TRANSCRIPT_CHARS
        })
        .collect();
    kept.reverse();
    kept.join("\n")
}

/// Why a chat could not be summarized this time (it is tried again after a later turn).
#[derive(Debug, thiserror::Error)]
pub enum CompressionError {
    #[error(transparent)]
    Session(#[from] super::sessions::SessionError),
    #[error(transparent)]
    Model(#[from] sentient_llm::LlmError),
}

impl Agent {
    /// Adds a hook that reads the part of each chat about to be summarized.
    pub fn add_flush_hook(&self, hook: Arc<dyn ConversationFlush>) {
        self.chat_state()
            .compression
            .hooks
            .lock_unpoisoned()
            .push(hook);
    }

    /// Whether a chat has grown past `chat.compress_after_messages` since its summary.
    pub async fn chat_needs_compression(&self, session_id: &str) -> bool {
        let config = self.config().current();
        let Ok((_, upto)) = self.sessions().summary(session_id).await else {
            return false;
        };
        let after = self
            .sessions()
            .messages_after(session_id, upto)
            .await
            .map_or(0, |rows| rows.len());
        after > usize::try_from(config.chat.compress_after_messages).unwrap_or(60)
    }

    /// Folds a long chat's older messages into its running summary. `Ok(false)` when the chat
    /// is short enough, or already being compressed.
    pub async fn compress_chat(&self, session_id: &str) -> Result<bool, CompressionError> {
        let state = self.chat_state();
        let fresh = state
            .compression
            .running
            .lock_unpoisoned()
            .insert(session_id.to_owned());
        if !fresh {
            return Ok(false);
        }
        let result = self.compress_now(session_id).await;
        state
            .compression
            .running
            .lock_unpoisoned()
            .remove(session_id);
        result
    }

    async fn compress_now(&self, session_id: &str) -> Result<bool, CompressionError> {
        let config = self.config().current();
        let (summary, upto) = self.sessions().summary(session_id).await?;
        let rows = self.sessions().messages_after(session_id, upto).await?;
        let compress_after = usize::try_from(config.chat.compress_after_messages).unwrap_or(60);
        let keep = usize::try_from(config.chat.history_window).unwrap_or(30);
        let Some(split) = split_point(&rows, compress_after, keep) else {
            return Ok(false);
        };
        let older = &rows[..split];
        let text = transcript(older);
        let hooks = self
            .chat_state()
            .compression
            .hooks
            .lock_unpoisoned()
            .clone();
        let untrusted = self
            .sessions()
            .get(session_id)
            .await?
            .untrusted
            .filter(|u| !u.is_empty());
        for hook in hooks {
            hook.flush(session_id, &text, untrusted.as_deref()).await;
        }
        let so_far = if summary.trim().is_empty() {
            "(none yet)"
        } else {
            summary.trim()
        };
        let request = ChatRequest {
            messages: vec![
                Message::system(SUMMARIZER),
                Message::user(format!(
                    "Summary so far:\n{so_far}\n\nNew messages:\n{text}"
                )),
            ],
            max_tokens: Some(600),
            reasoning: Some(Reasoning::None),
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Fast, "compression", JobKind::Memory);
        let outcome = self.llm().complete(request, &opts).await?;
        let new_summary = outcome.reply.text.trim();
        if new_summary.is_empty() {
            return Ok(false);
        }
        let last = older.last().map_or(upto, |(seq, _)| *seq);
        self.sessions()
            .save_summary(session_id, new_summary, last)
            .await?;
        tracing::info!(session_id, folded = older.len(), "chat summarized");
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(role: &str, content: &str) -> MessageRow {
        MessageRow {
            id: content.to_owned(),
            role: role.to_owned(),
            content: content.to_owned(),
            thinking: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            attachments: Vec::new(),
            interjection: false,
            memory_sources: Vec::new(),
            created_at: chrono::DateTime::default(),
            error: None,
            versions: Vec::new(),
            version_index: 0,
        }
    }

    fn chat(roles: &[&str]) -> Vec<(i64, MessageRow)> {
        roles
            .iter()
            .enumerate()
            .map(|(i, r)| (i as i64 + 1, row(r, &format!("m{}", i + 1))))
            .collect()
    }

    #[test]
    fn short_chats_are_not_folded() {
        let rows = chat(&["user", "assistant", "user", "assistant"]);
        assert_eq!(split_point(&rows, 10, 2), None);
    }

    #[test]
    fn the_kept_part_starts_at_a_user_message() {
        // 12 messages, keep 3: the tail would start at a tool result, so it moves to the next turn.
        let rows = chat(&[
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
        ]);
        // From index 9 on there is no user message, so the last one before it (index 8) starts the kept part.
        assert_eq!(split_point(&rows, 10, 3), Some(8));
        let window = recent_window(&rows, 3);
        assert_eq!(window[0].1.content, "m9");
    }

    #[test]
    fn steers_never_start_the_window() {
        let mut rows = chat(&[
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
        ]);
        rows[4].1.interjection = true;
        // A window of 2 would start at the steer (index 4); it starts at the turn before.
        assert_eq!(recent_window(&rows, 2)[0].1.content, "m3");
    }

    #[test]
    fn the_transcript_names_tools_and_keeps_the_newest_lines() {
        let mut rows = chat(&["user", "assistant", "tool", "assistant"]);
        rows[1].1.content = String::new();
        rows[1].1.tool_calls = vec![super::super::sessions::StoredToolCall {
            id: "c1".into(),
            kind: "function".into(),
            function: super::super::sessions::StoredFunction {
                name: "web_fetch".into(),
                arguments: "{}".into(),
            },
        }];
        rows[2].1.name = Some("web_fetch".into());
        let text = transcript(&rows);
        assert_eq!(
            text,
            "User: m1\nAssistant used web_fetch.\nResult of web_fetch: m3\nAssistant: m4"
        );
        let long: Vec<(i64, MessageRow)> = (0..40)
            .map(|i| (i, row("user", &"x".repeat(1500))))
            .collect();
        assert!(transcript(&long).len() <= TRANSCRIPT_CHARS);
    }
}
