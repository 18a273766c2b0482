//! What a chat asks of memory, as a narrow trait: the memory area implements it and the engine
//! attaches it at start, so the agent never names the memory crate (which sits above it).
//! Before a reply: what to remember about the person for this message (a prompt section and
//! the sources it used). After a reply: the person's words, to learn from in the background.

use crate::chat_events::MemorySource;

/// The memory part of a turn's system prompt, and the memories in it (`via: "prompt"`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptMemory {
    /// Markdown with its own headings; empty when there is nothing to add.
    pub section: String,
    pub sources: Vec<MemorySource>,
}

/// A chat turn that ended with a reply (not stopped).
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedTurn {
    pub session_id: String,
    /// What the person wrote.
    pub user_text: String,
    /// The app whose content the chat read, when it is marked: what is learned is then held
    /// for review.
    pub untrusted: Option<String>,
    /// The last outside tool result of the turn (what a held fact came from), at most 400
    /// characters.
    pub outside_snippet: Option<String>,
}

#[async_trait::async_trait]
pub trait ChatMemory: Send + Sync {
    /// What to remember for a reply to `text`.
    async fn for_prompt(&self, text: &str) -> PromptMemory;
    /// Learns from a finished turn; returns at once (the work runs in the background).
    fn after_turn(&self, turn: FinishedTurn);
}
