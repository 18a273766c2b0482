//! What a chat asks of memory, as a narrow trait: the memory area implements it and the engine
//! attaches it at start, so the agent never names the memory crate (which sits above it).
//! Before a reply: what to remember about the person for this message (a prompt section and
//! the sources it used). After a reply: the person's words, to learn from in the background.

use crate::run_types::MemorySource;

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

/// Most memory sources one reply or run records (contract section 2).
pub const MAX_MEMORY_SOURCES: usize = 40;

/// `more` added after `sources`: each memory once (the first mention wins), at most
/// [`MAX_MEMORY_SOURCES`].
pub fn merge_sources(
    mut sources: Vec<MemorySource>,
    more: impl IntoIterator<Item = MemorySource>,
) -> Vec<MemorySource> {
    for source in more {
        if sources.len() >= MAX_MEMORY_SOURCES {
            break;
        }
        if !sources
            .iter()
            .any(|s| s.kind == source.kind && s.id == source.id)
        {
            sources.push(source);
        }
    }
    sources.truncate(MAX_MEMORY_SOURCES);
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: i64, via: &str) -> MemorySource {
        MemorySource {
            kind: "fact".into(),
            id: id.into(),
            text: format!("fact {id}"),
            source: "manual".into(),
            via: via.into(),
        }
    }

    #[test]
    fn the_first_mention_wins_and_the_list_stops_at_forty() {
        let merged = merge_sources(vec![fact(1, "prompt")], [fact(1, "tool"), fact(2, "tool")]);
        assert_eq!(merged, vec![fact(1, "prompt"), fact(2, "tool")]);
        let many = merge_sources(Vec::new(), (0..60).map(|i| fact(i, "tool")));
        assert_eq!(many.len(), MAX_MEMORY_SOURCES);
        assert_eq!(many.last().map(|s| s.id.clone()), Some(39.into()));
        let insight = MemorySource {
            kind: "insight".into(),
            ..fact(1, "prompt")
        };
        assert_eq!(merge_sources(vec![fact(1, "prompt")], [insight]).len(), 2);
    }
}
