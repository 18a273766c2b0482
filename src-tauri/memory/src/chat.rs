//! Memory in chats: before a reply, "What I remember about you" (the best matching remembered
//! facts) and today's and yesterday's notes go into the system prompt, and those facts become
//! the reply's memory sources (`via: "prompt"`). After a reply, one fast-model call picks out
//! lasting facts about the person from their message and remembers each (source
//! `conversation`); in a chat that read outside content they are held for review.

use futures::future::BoxFuture;
use sentient_agent::chat_events::MemorySource;
use sentient_agent::chat_memory::{ChatMemory, FinishedTurn, PromptMemory};
use sentient_agent::compression::ConversationFlush;
use sentient_core::domain::JobKind;
use sentient_llm::types::{ChatRequest, Message};
use sentient_llm::{CallOptions, ModelRole};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::model::{ReviewNote, WriteResult};
use crate::service::MemoryService;

pub use sentient_agent::chat_memory::MAX_MEMORY_SOURCES as MAX_SOURCES;
/// Most facts learned from one message.
const MAX_LEARNED: usize = 5;

const FROM_MESSAGE: &str = "You pick out lasting facts about the user from what they wrote to their assistant. \
    Write each as one short third-person sentence about the user or someone in their life \
    (\"User lives in Pune\", \"User's sister Meera lives in Lisbon\"). Only what the user states \
    about themselves and their life: no questions, requests, opinions about the assistant or \
    passing moods. Answer with JSON only: {\"facts\": [\"...\"]}, an empty list when there are none.";

const FROM_CONVERSATION: &str = "You keep the lasting facts of a conversation between a user and \
    their assistant before its older part is summarized away. Pick out what is durable about the \
    user and the people in their life (where they live, work, family, preferences, plans with a date) \
    as short third-person sentences (\"User's sister Meera lives in Lisbon\"). Only what the user \
    said or confirmed, not the assistant's guesses; no small talk. Answer with JSON only: \
    {\"facts\": [\"...\"]}, an empty list when there are none.";

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
        self.extract(FROM_MESSAGE, text, MAX_LEARNED, &CancellationToken::new())
            .await
    }

    /// One fast-model call that answers `{"facts": [...]}` for `text` under `system`: at most
    /// `most` facts, none when the model fails or `cancel` fires (Stop everything).
    async fn extract(
        &self,
        system: &str,
        text: &str,
        most: usize,
        cancel: &CancellationToken,
    ) -> Vec<String> {
        self.try_extract(system, text, most, cancel)
            .await
            .unwrap_or_else(|error| {
                tracing::debug!(%error, "no facts learned this time");
                Vec::new()
            })
    }

    /// [`MemoryService::extract`], saying why the model gave nothing.
    pub(crate) async fn try_extract(
        &self,
        system: &str,
        text: &str,
        most: usize,
        cancel: &CancellationToken,
    ) -> Result<Vec<String>, sentient_llm::LlmError> {
        let request = ChatRequest {
            messages: vec![Message::system(system), Message::user(text.to_owned())],
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Fast, "memory", JobKind::Memory)
            .with_cancel(cancel.clone());
        let (answer, _) = self.llm().json(request, &opts).await?;
        Ok(answer
            .get("facts")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .take(most)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Remembers each fact through the normal decision, held with `review`; stops when `job`
    /// is cancelled. Answers what each write did.
    pub(crate) async fn remember_all(
        &self,
        facts: Vec<String>,
        source: &str,
        review: Option<ReviewNote>,
        job: &sentient_core::stop::Job,
    ) -> Vec<WriteResult> {
        let mut written = Vec::new();
        for fact in facts {
            if job.is_cancelled() {
                break;
            }
            match self.remember(&fact, source, review.clone()).await {
                Ok(result) => written.push(result),
                Err(error) => tracing::warn!(%error, "a fact from a chat could not be remembered"),
            }
        }
        written
    }

    /// Before a long chat's older turns are folded into its summary: one extraction call over
    /// what the person and the assistant said (tool and system lines dropped, the newest
    /// `memory.flush_max_chars`), at most `memory.flush_max_facts` facts through the normal
    /// decision, held with `review` when the chat read outside content.
    pub async fn flush_conversation(
        &self,
        transcript: &str,
        user_name: &str,
        review: Option<ReviewNote>,
    ) -> Vec<WriteResult> {
        let config = self.config().current().memory.clone();
        if !config.enabled || !config.flush_enabled || !self.available() || self.stop().is_stopped()
        {
            return Vec::new();
        }
        let said = spoken_lines(
            transcript,
            usize::try_from(config.flush_max_chars).unwrap_or(6000),
        );
        if said.is_empty() {
            return Vec::new();
        }
        let who = if user_name.trim().is_empty() {
            "the user".to_owned()
        } else {
            format!("the user ({})", user_name.trim())
        };
        let system =
            format!("{FROM_CONVERSATION} The user is {who}; still write \"User ...\" for them.");
        let job = self.stop().start_job("memory flush");
        let most = usize::try_from(config.flush_max_facts).unwrap_or(8);
        let facts = self.extract(&system, &said, most, job.token()).await;
        self.remember_all(facts, "conversation", review, &job).await
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

    /// Learns from one finished turn (memory on and `memory.extract_after_turn`), as a
    /// Stop-everything job: nothing is learned while stopped, and a stop ends it.
    pub async fn learn_from_turn(&self, turn: &FinishedTurn) -> usize {
        let config = self.config().current().memory.clone();
        if !config.enabled
            || !config.extract_after_turn
            || !self.available()
            || self.stop().is_stopped()
        {
            return 0;
        }
        let review = turn.untrusted.as_deref().map(|app| {
            ReviewNote::new(app, turn.outside_snippet.as_deref(), Some(&turn.session_id))
        });
        let job = self.stop().start_job("memory learning");
        let facts = self
            .extract(FROM_MESSAGE, &turn.user_text, MAX_LEARNED, job.token())
            .await;
        self.remember_all(facts, "conversation", review, &job)
            .await
            .len()
    }
}

/// The person's and the assistant's lines of a transcript (`User: ...`, `Assistant: ...`), the
/// newest that fit in `budget` characters, oldest first.
fn spoken_lines(transcript: &str, budget: usize) -> String {
    let mut total = 0;
    let mut kept: Vec<&str> = transcript
        .lines()
        .filter(|l| l.starts_with("User: ") || l.starts_with("Assistant: "))
        .rev()
        .take_while(|l| {
            total += l.chars().count() + 1;
            total <= budget
        })
        .collect();
    kept.reverse();
    kept.join("\n")
}

impl ConversationFlush for MemoryService {
    fn flush<'a>(
        &'a self,
        session_id: &'a str,
        transcript: &'a str,
        untrusted: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let review = untrusted
                .filter(|app| !app.is_empty())
                .map(|app| ReviewNote::new(app, None, Some(session_id)));
            let user_name = self.config().current().assistant.user_name.clone();
            let written = self
                .flush_conversation(transcript, &user_name, review)
                .await;
            tracing::debug!(
                facts = written.len(),
                "durable facts kept before compression"
            );
        })
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
    fn a_flush_reads_only_what_was_said_and_the_newest_first() {
        let transcript = "User: I live in Pune\nAssistant used web_fetch.\nResult of web_fetch: a page\n\
                          Assistant: Noted\nUser: My sister is Meera";
        assert_eq!(
            spoken_lines(transcript, 1000),
            "User: I live in Pune\nAssistant: Noted\nUser: My sister is Meera"
        );
        assert_eq!(spoken_lines(transcript, 25), "User: My sister is Meera");
    }

    #[test]
    fn notes_are_cut_to_their_budget() {
        assert_eq!(within("  short  ", 10), "short");
        assert_eq!(within("abcdefghij", 4), "abcd…");
    }
}
