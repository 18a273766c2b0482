//! Summaries of past chats: every `memory.summarize_interval_minutes`, the parts of chats older
//! than `memory.summarize_after_minutes` are summarized `memory.summary_chunk_messages` messages
//! at a time (one fast-model call each). A summary keeps its chat's mark (`untrusted`), gets a
//! line in today's note, and `evolution_log` records `summary_created`.

use chrono::Duration;
use sentient_core::domain::JobKind;
use sentient_llm::types::{ChatRequest, Message};
use sentient_llm::{CallOptions, ModelRole};

use crate::error::MemoryError;
use crate::model::Summary;
use crate::service::MemoryService;
use sentient_core::store::parse_stamp;

/// Fewer messages than this are not worth a summary yet.
const MIN_MESSAGES: usize = 2;

impl MemoryService {
    /// Summarizes every chat part that is due; answers how many summaries were written.
    pub async fn summarize_due(&self) -> Result<usize, MemoryError> {
        let config = self.config().current().memory.clone();
        if !config.enabled || !config.summaries_enabled || !self.available() {
            return Ok(0);
        }
        let now = self.now();
        let before = now - Duration::minutes(i64::from(config.summarize_after_minutes));
        let chunk = i64::from(config.summary_chunk_messages.max(2));
        let mut written = 0;
        for (session_id, untrusted, after) in self.facts().chats_to_summarize().await? {
            let messages = self
                .facts()
                .messages_to_summarize(&session_id, after, before, chunk)
                .await?;
            if messages.len() < MIN_MESSAGES {
                continue;
            }
            let transcript: String = messages
                .iter()
                .map(|(_, role, content, _)| format!("{role}: {content}\n"))
                .collect();
            let Some(content) = self.summarize(&transcript).await else {
                // The model did not answer; the same part is tried again next time.
                continue;
            };
            let time = |i: usize| {
                messages
                    .get(i)
                    .and_then(|m| parse_stamp(&m.3))
                    .unwrap_or(now)
            };
            let summary = Summary {
                id: 0,
                content: content.clone(),
                start_at: time(0),
                end_at: time(messages.len() - 1),
                session_id: Some(session_id.clone()),
                untrusted,
            };
            let last_seq = messages.last().map_or(after, |m| m.0);
            let vector = self.embed(&content).await;
            self.facts()
                .insert_summary(&summary, last_seq, vector.as_deref(), now)
                .await?;
            self.notes()
                .append_daily(self.today(), &format!("- Summary of a chat: {content}"))?;
            written += 1;
        }
        Ok(written)
    }

    /// A few sentences about a part of a chat (the fast role); `None` when the model fails.
    async fn summarize(&self, transcript: &str) -> Option<String> {
        let system = "Summarize this part of a conversation between a person and their assistant in two to four \
            sentences: what was discussed, decided or asked for, and anything worth remembering later. \
            Write plain text, in the third person.";
        let request = ChatRequest {
            messages: vec![
                Message::system(system),
                Message::user(transcript.to_owned()),
            ],
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Fast, "memory", JobKind::Memory);
        match self.llm().complete(request, &opts).await {
            Ok(outcome) => Some(outcome.reply.text.trim().to_owned()).filter(|t| !t.is_empty()),
            Err(error) => {
                tracing::debug!(%error, "a chat part could not be summarized this time");
                None
            }
        }
    }
}
