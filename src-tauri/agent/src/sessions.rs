//! Chats (sessions) and their transcripts: one row per message in the contract's shape, a
//! full-text index for search, and the outside-content mark a chat keeps (section 10).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use sentient_core::bus::{DomainEvent, EventBus};
use sentient_core::clock::SharedClock;
use sentient_core::error::{ApiError, FieldError};
use sentient_core::store::{Store, StoreError, fts5_match};

/// A chat as the list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Session {
    pub id: String,
    pub title: String,
    pub channel: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The app whose content this chat read ("" when clean), null before its first turn.
    pub untrusted: Option<String>,
    /// Web hosts the chat loaded, null when none.
    pub visited_hosts: Option<Vec<String>>,
}

/// A tool call as stored with an assistant message (OpenAI's shape, as the contract shows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct StoredToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub function: StoredFunction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct StoredFunction {
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
}

/// One transcript row (contract section 2, "Sessions").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct MessageRow {
    pub id: String,
    /// user, assistant or tool.
    pub role: String,
    pub content: String,
    pub thinking: Option<String>,
    pub tool_calls: Vec<StoredToolCall>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
    pub attachments: Vec<String>,
    pub interjection: bool,
    /// What the reply had in mind (memory, a later issue); `[]` until then.
    #[schema(value_type = Vec<Object>)]
    #[specta(type = Vec<std::collections::BTreeMap<String, String>>)]
    pub memory_sources: Vec<Value>,
    pub created_at: DateTime<Utc>,
    /// Why the turn failed: a failed turn is saved as an assistant row with no content and this
    /// sentence, so a reopened chat still offers Try again. Null on every other row.
    pub error: Option<String>,
    /// Every version of a regenerated answer, oldest first, on the answer's last row; `[]` on
    /// every other row (and on answers never regenerated).
    pub versions: Vec<MessageVersion>,
    /// Which of `versions` is the one shown (and the one the model reads); 0 without versions.
    pub version_index: u32,
}

/// One version of a regenerated answer, as its flipper shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct MessageVersion {
    /// The version's reply text (its last assistant message).
    pub content: String,
    /// Set when that attempt failed.
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A message to add to a transcript.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewMessage {
    pub role: String,
    pub content: String,
    pub thinking: Option<String>,
    pub tool_calls: Vec<StoredToolCall>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
    pub attachments: Vec<String>,
    pub interjection: bool,
    pub memory_sources: Vec<Value>,
    /// A failed turn's sentence (see [`MessageRow::error`]).
    pub error: Option<String>,
    /// The question (user message id) and version this row answers, for a regenerated answer.
    pub answer_to: Option<(String, i64)>,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SearchHit {
    pub session_id: String,
    pub message_id: String,
    pub role: String,
    /// The matching words in context, marked with [ and ].
    pub snippet: String,
    pub created_at: DateTime<Utc>,
}

/// A message found in past chats (the history tools), with its chat's title and mark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryHit {
    pub session_id: String,
    pub title: String,
    pub role: String,
    /// The message's words (at most [`HISTORY_TEXT_CHARS`] characters).
    pub text: String,
    pub created_at: DateTime<Utc>,
    /// The app whose content that chat read, if it is marked.
    #[serde(skip)]
    pub untrusted: Option<String>,
}

/// Longest stretch of one message a history tool returns.
pub const HISTORY_TEXT_CHARS: usize = 600;

type HistoryRecord = (String, String, String, String, String, Option<String>);

fn history_hit(r: HistoryRecord) -> HistoryHit {
    let mut text: String = r.3.chars().take(HISTORY_TEXT_CHARS).collect();
    if text.len() < r.3.len() {
        text.push('…');
    }
    HistoryHit {
        session_id: r.0,
        title: r.1,
        role: r.2,
        text,
        created_at: time(&r.4),
        untrusted: r.5.filter(|u| !u.is_empty()),
    }
}

/// `POST /api/sessions` and `create_session`: the new chat's id.
#[derive(Debug, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Created {
    pub session_id: String,
}

/// `PATCH /api/sessions/{id}` and `rename_session`: the chat's new title.
#[derive(Debug, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct Rename {
    pub title: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("There is no chat with the id {0}.")]
    NotFound(String),
    #[error("There is no message with the id {0} in this chat.")]
    MessageNotFound(String),
    /// A chat title that can't be used (400 on every door, as the contract answers bad input).
    #[error("{0}")]
    Invalid(String),
    #[error("Type something to search for.")]
    EmptySearch,
    /// The chat is not in a state that allows it (409): nothing to regenerate, a reply running.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for SessionError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Sql(e))
    }
}

impl From<SessionError> for ApiError {
    fn from(err: SessionError) -> Self {
        match err {
            SessionError::NotFound(_) | SessionError::MessageNotFound(_) => {
                ApiError::not_found(err.to_string())
            }
            SessionError::Invalid(msg) => ApiError::bad_request(msg),
            SessionError::Conflict(msg) => ApiError::conflict(msg),
            SessionError::EmptySearch => ApiError::validation(vec![FieldError::new(
                &["query", "q"],
                err.to_string(),
                "missing",
            )]),
            SessionError::Store(e) => ApiError::internal(&e),
        }
    }
}

const MAX_TITLE: usize = 200;

type SessionRecord = (
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);
pub(crate) type MessageRecord = (
    String,
    String,
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    String,
    i64,
    String,
    String,
    Option<String>,
);

/// A message record led by its seq.
type SeqMessageRecord = (
    i64,
    String,
    String,
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    String,
    i64,
    String,
    String,
    Option<String>,
);

/// The columns of a [`MessageRecord`], in order (a macro, so queries stay literal SQL).
macro_rules! message_columns {
    () => {
        "id, role, content, thinking, tool_calls, tool_call_id, name, attachments, interjection, \
         memory_sources, created_at, error"
    };
}

// After the macro, which it uses.
mod versions;

pub(crate) fn time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

fn session_from(r: SessionRecord) -> Session {
    Session {
        id: r.0,
        title: r.1,
        channel: r.2,
        created_at: time(&r.3),
        updated_at: time(&r.4),
        untrusted: r.5,
        visited_hosts: r.6.and_then(|v| serde_json::from_str(&v).ok()),
    }
}

pub(crate) fn message_from(r: MessageRecord) -> MessageRow {
    MessageRow {
        id: r.0,
        role: r.1,
        content: r.2,
        thinking: r.3,
        tool_calls: serde_json::from_str(&r.4).unwrap_or_default(),
        tool_call_id: r.5,
        name: r.6,
        attachments: serde_json::from_str(&r.7).unwrap_or_default(),
        interjection: r.8 != 0,
        memory_sources: serde_json::from_str(&r.9).unwrap_or_default(),
        created_at: time(&r.10),
        error: r.11,
        versions: Vec::new(),
        version_index: 0,
    }
}

/// JSON text for the list columns (lists of plain data always serialize).
fn json_text<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "[]".to_owned())
}

use sentient_core::store::change_one;
use sentient_core::store::new_id;

/// The chats service; cheap to clone.
#[derive(Debug, Clone)]
pub struct Sessions {
    store: Store,
    bus: EventBus,
    clock: SharedClock,
}

impl Sessions {
    pub fn new(store: Store, bus: EventBus, clock: SharedClock) -> Self {
        Self { store, bus, clock }
    }

    pub async fn create(&self, channel: &str) -> Result<Session, SessionError> {
        let id = new_id();
        let now = self.clock.now().to_rfc3339();
        sqlx::query("INSERT INTO chat_sessions (id, title, channel, created_at, updated_at) VALUES (?, '', ?, ?, ?)")
            .bind(&id)
            .bind(channel)
            .bind(&now)
            .bind(&now)
            .execute(self.store.pool())
            .await?;
        self.get(&id).await
    }

    pub async fn get(&self, id: &str) -> Result<Session, SessionError> {
        let row: Option<SessionRecord> = sqlx::query_as(
            "SELECT id, title, channel, created_at, updated_at, untrusted, visited_hosts FROM chat_sessions WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(self.store.pool())
        .await?;
        row.map(session_from)
            .ok_or_else(|| SessionError::NotFound(id.to_owned()))
    }

    /// Newest first.
    pub async fn list(&self, limit: u32) -> Result<Vec<Session>, SessionError> {
        let rows: Vec<SessionRecord> = sqlx::query_as(
            "SELECT id, title, channel, created_at, updated_at, untrusted, visited_hosts FROM chat_sessions
             ORDER BY updated_at DESC, rowid DESC LIMIT ?",
        )
        .bind(i64::from(limit.clamp(1, 1000)))
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(session_from).collect())
    }

    pub async fn rename(&self, id: &str, title: &str) -> Result<(), SessionError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(SessionError::Invalid("Give the chat a title.".to_owned()));
        }
        if title.chars().count() > MAX_TITLE {
            return Err(SessionError::Invalid(
                "A chat title can be at most 200 characters.".to_owned(),
            ));
        }
        change_one(
            self.store.pool(),
            sqlx::query("UPDATE chat_sessions SET title = ? WHERE id = ?")
                .bind(title)
                .bind(id),
            || SessionError::NotFound(id.to_owned()),
        )
        .await?;
        self.bus.publish(DomainEvent::SessionUpdated {
            session_id: id.to_owned(),
            title: title.to_owned(),
        });
        Ok(())
    }

    /// Deletes the chat and its transcript.
    pub async fn delete(&self, id: &str) -> Result<(), SessionError> {
        change_one(
            self.store.pool(),
            sqlx::query("DELETE FROM chat_sessions WHERE id = ?").bind(id),
            || SessionError::NotFound(id.to_owned()),
        )
        .await
    }

    /// Adds a message at the end of the transcript (and moves the chat to the top of the list).
    pub async fn append(
        &self,
        session_id: &str,
        message: NewMessage,
    ) -> Result<MessageRow, SessionError> {
        let id = new_id();
        let now = self.clock.now().to_rfc3339();
        let mut tx = self.store.begin_write().await?;
        let exists: Option<(String,)> = sqlx::query_as("SELECT id FROM chat_sessions WHERE id = ?")
            .bind(session_id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(SessionError::NotFound(session_id.to_owned()));
        }
        sqlx::query(
            "INSERT INTO chat_messages (id, session_id, seq, role, content, thinking, tool_calls, tool_call_id, name,
                                        attachments, interjection, memory_sources, created_at, error, answer_to, version)
             VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM chat_messages WHERE session_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(session_id)
        .bind(session_id)
        .bind(&message.role)
        .bind(&message.content)
        .bind(&message.thinking)
        .bind(json_text(&message.tool_calls))
        .bind(&message.tool_call_id)
        .bind(&message.name)
        .bind(json_text(&message.attachments))
        .bind(i64::from(message.interjection))
        .bind(json_text(&message.memory_sources))
        .bind(&now)
        .bind(&message.error)
        .bind(message.answer_to.as_ref().map(|(q, _)| q))
        .bind(message.answer_to.as_ref().map_or(0, |(_, v)| *v))
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE chat_sessions SET updated_at = ? WHERE id = ?")
            .bind(&now)
            .bind(session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let row: MessageRecord = sqlx::query_as(concat!(
            "SELECT ",
            message_columns!(),
            " FROM chat_messages WHERE id = ?"
        ))
        .bind(&id)
        .fetch_one(self.store.pool())
        .await?;
        Ok(message_from(row))
    }

    /// The last `limit` messages shown, oldest first; a regenerated answer's last row carries
    /// its versions.
    pub async fn messages(
        &self,
        session_id: &str,
        limit: u32,
    ) -> Result<Vec<MessageRow>, SessionError> {
        self.get(session_id).await?;
        let rows: Vec<MessageRecord> = sqlx::query_as(concat!(
            "SELECT ",
            message_columns!(),
            "
             FROM (SELECT * FROM chat_messages WHERE session_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT ?)
             ORDER BY seq"
        ))
        .bind(session_id)
        .bind(i64::from(limit.clamp(1, 5000)))
        .fetch_all(self.store.pool())
        .await?;
        let mut rows: Vec<MessageRow> = rows.into_iter().map(message_from).collect();
        self.attach_versions(session_id, &mut rows).await?;
        Ok(rows)
    }

    /// The chat's running summary (empty when it has none) and the seq of the last message it
    /// covers (0 when none).
    pub async fn summary(&self, session_id: &str) -> Result<(String, i64), SessionError> {
        let row: Option<(Option<String>, i64)> =
            sqlx::query_as("SELECT summary, summary_upto FROM chat_sessions WHERE id = ?")
                .bind(session_id)
                .fetch_optional(self.store.pool())
                .await?;
        row.map(|(summary, upto)| (summary.unwrap_or_default(), upto))
            .ok_or_else(|| SessionError::NotFound(session_id.to_owned()))
    }

    /// Replaces the running summary; it now covers every message up to seq `upto`.
    pub async fn save_summary(
        &self,
        session_id: &str,
        summary: &str,
        upto: i64,
    ) -> Result<(), SessionError> {
        change_one(
            self.store.pool(),
            sqlx::query("UPDATE chat_sessions SET summary = ?, summary_upto = ? WHERE id = ?")
                .bind(summary)
                .bind(upto)
                .bind(session_id),
            || SessionError::NotFound(session_id.to_owned()),
        )
        .await
    }

    /// Every message after seq `after`, oldest first, each with its seq.
    pub async fn messages_after(
        &self,
        session_id: &str,
        after: i64,
    ) -> Result<Vec<(i64, MessageRow)>, SessionError> {
        let rows: Vec<SeqMessageRecord> = sqlx::query_as(concat!(
            "SELECT seq, ",
            message_columns!(),
            "
             FROM chat_messages WHERE session_id = ? AND seq > ? AND hidden = 0 ORDER BY seq"
        ))
        .bind(session_id)
        .bind(after)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let seq = r.0;
                (
                    seq,
                    message_from((
                        r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, r.10, r.11, r.12,
                    )),
                )
            })
            .collect())
    }

    /// Messages whose words match `q`, best first.
    /// Messages that contain the words, best match first; empty words are refused.
    pub async fn search(&self, q: &str) -> Result<Vec<SearchHit>, SessionError> {
        if q.trim().is_empty() {
            return Err(SessionError::EmptySearch);
        }
        let Some(query) = fts5_match(q) else {
            return Ok(Vec::new());
        };
        let rows: Vec<(String, String, String, String, String)> = sqlx::query_as(
            "SELECT m.session_id, m.id, m.role, snippet(chat_messages_fts, 0, '[', ']', '…', 12), m.created_at
             FROM chat_messages_fts JOIN chat_messages m ON m.rowid = chat_messages_fts.rowid
             WHERE chat_messages_fts MATCH ? AND m.hidden = 0 ORDER BY rank LIMIT 50",
        )
        .bind(query)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(session_id, message_id, role, snippet, created_at)| SearchHit {
                    session_id,
                    message_id,
                    role,
                    snippet,
                    created_at: time(&created_at),
                },
            )
            .collect())
    }

    /// What the person and the assistant said in past chats that matches `q`, best first (tool
    /// calls and results left out).
    pub async fn history_search(
        &self,
        q: &str,
        limit: u32,
    ) -> Result<Vec<HistoryHit>, SessionError> {
        let Some(query) = fts5_match(q) else {
            return Ok(Vec::new());
        };
        let rows: Vec<HistoryRecord> = sqlx::query_as(
            "SELECT m.session_id, s.title, m.role, m.content, m.created_at, s.untrusted
             FROM chat_messages_fts JOIN chat_messages m ON m.rowid = chat_messages_fts.rowid
             JOIN chat_sessions s ON s.id = m.session_id
             WHERE chat_messages_fts MATCH ? AND m.role IN ('user', 'assistant') AND m.content != ''
               AND m.hidden = 0
             ORDER BY rank LIMIT ?",
        )
        .bind(query)
        .bind(i64::from(limit.clamp(1, 200)))
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(history_hit).collect())
    }

    /// What the person and the assistant said from `start` up to (not including) `end`,
    /// oldest first.
    pub async fn history_between(
        &self,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<HistoryHit>, SessionError> {
        // Both sides written the way messages are stamped, so text order is time order.
        let rows: Vec<HistoryRecord> = sqlx::query_as(
            "SELECT m.session_id, s.title, m.role, m.content, m.created_at, s.untrusted
             FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
             WHERE m.created_at >= ? AND m.created_at < ? AND m.role IN ('user', 'assistant')
               AND m.content != '' AND m.hidden = 0
             ORDER BY m.created_at, m.seq LIMIT ?",
        )
        .bind(start.to_rfc3339())
        .bind(end.to_rfc3339())
        .bind(i64::from(limit.clamp(1, 1000)))
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(history_hit).collect())
    }

    /// Records that the chat had a turn that read no outside content: its mark becomes `""`
    /// (clean) where it was `null` (no turn yet), as the chat list shows it. A mark stays.
    pub async fn mark_clean(&self, id: &str) -> Result<(), SessionError> {
        sqlx::query("UPDATE chat_sessions SET untrusted = '' WHERE id = ? AND untrusted IS NULL")
            .bind(id)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }

    /// Marks the chat as having read content from `app` (section 10). The mark never clears.
    pub async fn mark_untrusted(&self, id: &str, app: &str) -> Result<(), SessionError> {
        sqlx::query(
            "UPDATE chat_sessions SET untrusted = CASE WHEN untrusted IS NULL OR untrusted = '' THEN ? ELSE untrusted END
             WHERE id = ?",
        )
        .bind(app)
        .bind(id)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Records a web host the chat loaded.
    pub async fn add_visited_host(&self, id: &str, host: &str) -> Result<(), SessionError> {
        let session = self.get(id).await?;
        let mut hosts = session.visited_hosts.unwrap_or_default();
        if !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_owned());
        }
        sqlx::query("UPDATE chat_sessions SET visited_hosts = ? WHERE id = ?")
            .bind(serde_json::to_string(&hosts).unwrap_or_else(|_| "[]".to_owned()))
            .bind(id)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use sentient_core::clock::SystemClock;

    /// Sessions over a real SQLite file in `dir` (also for `versions`' tests).
    pub(super) async fn sessions(dir: &std::path::Path) -> Sessions {
        let clock: SharedClock = Arc::new(SystemClock);
        let store = Store::open(&dir.join("s.db"), clock.clone())
            .await
            .expect("store");
        Sessions::new(store, EventBus::new(clock.clone()), clock)
    }

    #[tokio::test]
    async fn append_keeps_order_and_the_row_shape() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = sessions(dir.path()).await;
        let chat = s.create("desktop").await.expect("create");
        s.append(
            &chat.id,
            NewMessage {
                role: "user".into(),
                content: "hi".into(),
                attachments: vec!["a.pdf".into()],
                ..Default::default()
            },
        )
        .await
        .expect("user");
        let call = StoredToolCall {
            id: "call_1".into(),
            kind: "function".into(),
            function: StoredFunction {
                name: "time_now".into(),
                arguments: "{}".into(),
            },
        };
        s.append(
            &chat.id,
            NewMessage {
                role: "assistant".into(),
                content: String::new(),
                tool_calls: vec![call.clone()],
                ..Default::default()
            },
        )
        .await
        .expect("assistant");
        s.append(
            &chat.id,
            NewMessage {
                role: "tool".into(),
                content: "12:00".into(),
                tool_call_id: Some("call_1".into()),
                name: Some("time_now".into()),
                ..Default::default()
            },
        )
        .await
        .expect("tool");
        let rows = s.messages(&chat.id, 500).await.expect("rows");
        assert_eq!(
            rows.iter().map(|r| r.role.as_str()).collect::<Vec<_>>(),
            ["user", "assistant", "tool"]
        );
        assert_eq!(rows[0].attachments, ["a.pdf"]);
        assert_eq!(rows[1].tool_calls, [call]);
        assert_eq!(rows[2].tool_call_id.as_deref(), Some("call_1"));
        let wire = serde_json::to_value(&rows[1]).expect("json");
        assert_eq!(wire["tool_calls"][0]["type"], "function");
        assert_eq!(wire["memory_sources"], serde_json::json!([]));
        assert_eq!(wire["interjection"], false);
        // The last two, still oldest first.
        let tail = s.messages(&chat.id, 2).await.expect("tail");
        assert_eq!(
            tail.iter().map(|r| r.role.as_str()).collect::<Vec<_>>(),
            ["assistant", "tool"]
        );
    }

    #[tokio::test]
    async fn the_untrusted_mark_sticks_and_hosts_accumulate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = sessions(dir.path()).await;
        let chat = s.create("desktop").await.expect("create");
        assert_eq!(chat.untrusted, None);
        s.mark_untrusted(&chat.id, "Gmail").await.expect("mark");
        s.mark_untrusted(&chat.id, "Slack")
            .await
            .expect("mark again");
        s.add_visited_host(&chat.id, "example.com")
            .await
            .expect("host");
        s.add_visited_host(&chat.id, "example.com")
            .await
            .expect("host again");
        let chat = s.get(&chat.id).await.expect("get");
        assert_eq!(chat.untrusted.as_deref(), Some("Gmail"));
        assert_eq!(chat.visited_hosts, Some(vec!["example.com".to_owned()]));
    }
}
