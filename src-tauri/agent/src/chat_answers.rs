//! Regenerate and answer versions (issue 32). Regenerate writes a new answer to the chat's last
//! message in place of the last one: the question is not sent again, the model reads the chat
//! as it was before that question, and the replaced answer stays as an earlier version the
//! person can flip back to (stored as `sessions/versions.rs` describes). Every door checks first
//! (404 for an unknown chat, 409 with nothing to regenerate or a reply running) and then streams
//! the turn's events exactly as `chat.send` does.

use serde::{Deserialize, Serialize};
use tokio::sync::OwnedMutexGuard;
use tokio::sync::mpsc;

use crate::Agent;
use crate::chat::{Again, ChatSend};
use crate::chat_events::ChatEvent;
use crate::sessions::{MessageRow, SessionError};
use sentient_core::sync::MutexExt;

/// `chat.regenerate` (and `POST /api/sessions/{id}/regenerate`): a new answer to the chat's last
/// message. `model` overrides the main model for this answer; `client_id` is echoed on the
/// turn's `session` event.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ChatRegenerate {
    pub session_id: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
}

/// `POST /api/sessions/{id}/messages/{message_id}/version`: which version of an answer to show.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ShowVersion {
    /// 0 is the oldest version (the `versions` list's order).
    pub index: u32,
}

/// What a reply running in the chat says to Regenerate and to a version flip.
const BUSY: &str =
    "A reply is being written in this chat. Wait for it to finish, or stop it first.";
const NOTHING: &str = "There is no answer to regenerate in this chat yet.";
/// Longest wait for a finished reply's last saving (or a queued turn) before saying it is busy.
const SETTLING: std::time::Duration = std::time::Duration::from_secs(5);

/// A chat's answers: asking for a new one, and choosing which version is shown.
pub struct Answers<'a> {
    agent: &'a Agent,
}

/// A regeneration that passed its checks. It holds the chat's turn lock, so nothing else starts
/// in that chat before it has run.
pub struct Regeneration {
    agent: Agent,
    _turn: OwnedMutexGuard<()>,
    session_id: String,
    again: Again,
}

impl Agent {
    /// Regenerate and versions of this chat's answers.
    pub fn answers(&self) -> Answers<'_> {
        Answers { agent: self }
    }
}

impl Answers<'_> {
    /// The chat's turn lock. A reply being written is a 409, never a wait; the lock is only
    /// waited for while a finished reply does its last saving (a `done` is sent just before).
    async fn take_turn(&self, session_id: &str) -> Result<OwnedMutexGuard<()>, SessionError> {
        let state = self.agent.chat_state();
        let busy = || SessionError::Conflict(BUSY.to_owned());
        if state.running.lock_unpoisoned().contains_key(session_id) {
            return Err(busy());
        }
        let lock = state
            .turns
            .lock_unpoisoned()
            .entry(session_id.to_owned())
            .or_default()
            .clone();
        tokio::time::timeout(SETTLING, lock.lock_owned())
            .await
            .map_err(|_| busy())
    }

    /// Checks that the chat has a last message to answer again and no reply running.
    pub async fn regenerate(&self, session_id: &str) -> Result<Regeneration, SessionError> {
        self.agent.sessions().get(session_id).await?;
        let turn = self.take_turn(session_id).await?;
        let Some((seq, question)) = self.agent.sessions().last_question(session_id).await? else {
            return Err(SessionError::Conflict(NOTHING.to_owned()));
        };
        Ok(Regeneration {
            agent: self.agent.clone(),
            _turn: turn,
            session_id: session_id.to_owned(),
            again: Again { question, seq },
        })
    }

    /// Shows version `index` of the answer `message_id` belongs to, and answers the transcript
    /// as the messages list does (at most `limit` rows).
    pub async fn show_version(
        &self,
        session_id: &str,
        message_id: &str,
        index: u32,
        limit: u32,
    ) -> Result<Vec<MessageRow>, SessionError> {
        self.agent.sessions().get(session_id).await?;
        let _turn = self.take_turn(session_id).await?;
        self.agent
            .sessions()
            .show_version(session_id, message_id, index)
            .await?;
        self.agent.sessions().messages(session_id, limit).await
    }
}

impl Regeneration {
    /// Writes the new answer, sending its events to `out`. Steers that arrive too late for it
    /// become ordinary turns after it, as after any reply.
    pub async fn run(
        self,
        model: Option<String>,
        client_id: Option<String>,
        out: mpsc::UnboundedSender<ChatEvent>,
    ) {
        let mut send = ChatSend {
            session_id: Some(self.session_id.clone()),
            text: self.again.question.content.clone(),
            attachments: self.again.question.attachments.clone(),
            model,
            client_id,
        };
        let mut late = self
            .agent
            .one_turn(send.clone(), Some(&self.again), out.clone())
            .await;
        while !late.is_empty() {
            send = ChatSend {
                text: late.join("\n"),
                attachments: Vec::new(),
                client_id: None,
                ..send
            };
            late = self.agent.one_turn(send.clone(), None, out.clone()).await;
        }
    }
}
