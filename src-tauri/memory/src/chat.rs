//! Memory in chats: before a reply, "What I remember about you" (the best matching remembered
//! facts) and today's and yesterday's notes go into the system prompt, and those facts become
//! the reply's memory sources (`via: "prompt"`). After a reply, one fast-model call picks out
//! lasting facts about the person from their message and remembers each (source
//! `conversation`); in a chat that read outside content they are held for review.

use sentient_agent::chat_events::MemorySource;
use sentient_agent::chat_memory::{ChatMemory, FinishedTurn, PromptMemory};
use sentient_core::domain::JobKind;
use sentient_llm::types::{ChatRequest, Message};
use sentient_llm::{CallOptions, ModelRole};
use serde_json::Value;

use crate::model::ReviewNote;
use crate::service::MemoryService;

/// Most memory sources one reply records (contract section 2).
pub const MAX_SOURCES: usize = 40;
/// Most facts learned from one message.
const MAX_LEARNED: usize = 5;

/// `text` cut to `budget` characters, marked when cut.
fn within(text: &str, budget: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= budget {
        return text.to_owned();
    }
    let cut: String = text.chars().take(budget).collect();
    format!("{cut}…")
}

impl MemoryService {
    /// The prompt section and its sources for a message (nothing when memory is off).
    pub async fn prompt_memory(&self, text: &str) -> PromptMemory {
        let config = self.config().current().memory.clone();
        if !config.enabled {
            return PromptMemory::default();
        }
        let top = usize::try_from(config.facts_top_k).unwrap_or(8);
        let facts = match self.recall(text, top).await {
            Ok(facts) => facts,
            Err(error) => {
                tracing::warn!(%error, "memory recall failed; the reply goes without it");
                Vec::new()
            }
        };
        let mut section = String::new();
        if !facts.is_empty() {
            section.push_str("## What I remember about you\n");
            for fact in &facts {
                section.push_str(&format!("- {}\n", fact.content));
            }
        }
        let budget = usize::try_from(config.workspace_budget_chars).unwrap_or(6000);
        if let Ok(notes) = self.workspace() {
            for (title, text) in [
                ("Today's notes", notes.today),
                ("Yesterday's notes", notes.yesterday),
            ] {
                if !text.trim().is_empty() {
                    section.push_str(&format!("\n## {title}\n{}\n", within(&text, budget)));
                }
            }
        }
        let sources = facts
            .into_iter()
            .take(MAX_SOURCES)
            .map(|f| MemorySource {
                kind: "fact".into(),
                id: Value::from(f.id),
                text: f.content,
                source: f.source,
                via: "prompt".into(),
            })
            .collect();
        PromptMemory {
            section: section.trim().to_owned(),
            sources,
        }
    }

    /// Lasting facts about the person in `text`, as short third-person sentences (one fast-model
    /// call; none when the model fails).
    pub async fn facts_in(&self, text: &str) -> Vec<String> {
        let system = "You pick out lasting facts about the user from what they wrote to their assistant. \
            Write each as one short third-person sentence about the user or someone in their life \
            (\"User lives in Pune\", \"User's sister Meera lives in Lisbon\"). Only what the user states \
            about themselves and their life: no questions, requests, opinions about the assistant or \
            passing moods. Answer with JSON only: {\"facts\": [\"...\"]}, an empty list when there are none.";
        let request = ChatRequest {
            messages: vec![Message::system(system), Message::user(text.to_owned())],
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Fast, "memory", JobKind::Memory);
        match self.llm().json(request, &opts).await {
            Ok((answer, _)) => answer
                .get("facts")
                .and_then(Value::as_array)
                .map(|list| {
                    list.iter()
                        .filter_map(Value::as_str)
                        .map(str::trim)
                        .filter(|f| !f.is_empty())
                        .take(MAX_LEARNED)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            Err(error) => {
                tracing::debug!(%error, "no facts learned from this message");
                Vec::new()
            }
        }
    }

    /// Remembers the lasting facts in a text the person wrote about themselves (the first-run
    /// answers), with `source`; answers how many were written. Nothing when memory is off.
    pub async fn learn_from_text(&self, text: &str, source: &str) -> usize {
        let config = self.config().current().memory.clone();
        if !config.enabled || !self.available() || text.trim().is_empty() {
            return 0;
        }
        let mut learned = 0;
        for fact in self.facts_in(text).await {
            match self.remember(&fact, source, None).await {
                Ok(_) => learned += 1,
                Err(error) => tracing::warn!(%error, "a fact could not be remembered"),
            }
        }
        learned
    }

    /// Learns from one finished turn (memory on and `memory.extract_after_turn`).
    pub async fn learn_from_turn(&self, turn: &FinishedTurn) -> usize {
        let config = self.config().current().memory.clone();
        if !config.enabled || !config.extract_after_turn || !self.available() {
            return 0;
        }
        let review = turn.untrusted.as_deref().map(|app| {
            ReviewNote::new(app, turn.outside_snippet.as_deref(), Some(&turn.session_id))
        });
        let mut learned = 0;
        for fact in self.facts_in(&turn.user_text).await {
            match self.remember(&fact, "conversation", review.clone()).await {
                Ok(_) => learned += 1,
                Err(error) => tracing::warn!(%error, "a fact from a chat could not be remembered"),
            }
        }
        learned
    }
}

#[async_trait::async_trait]
impl ChatMemory for MemoryService {
    async fn for_prompt(&self, text: &str) -> PromptMemory {
        self.prompt_memory(text).await
    }

    fn after_turn(&self, turn: FinishedTurn) {
        let memory = self.clone();
        tokio::spawn(async move {
            memory.learn_from_turn(&turn).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_cut_to_their_budget() {
        assert_eq!(within("  short  ", 10), "short");
        assert_eq!(within("abcdefghij", 4), "abcd…");
    }
}
