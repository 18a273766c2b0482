//! Versions of an answer (issue 32). Regenerate sets the chat's last answer aside as an earlier
//! version instead of sending the question again, and the person can flip between versions.
//! Only the shown version's rows have `hidden = 0`, so everything that lists, searches or sends
//! the transcript to a model reads that version alone. A failed attempt is never kept as a
//! version once another answer is asked for.

use std::collections::HashMap;

use super::{
    MessageRecord, MessageRow, MessageVersion, SessionError, Sessions, message_from, time,
};

/// The versions of one answer and which of them is shown.
type Versions = (Vec<MessageVersion>, u32);

impl Sessions {
    /// The chat's last question (the newest shown user message that is not a steer) and its seq.
    pub async fn last_question(
        &self,
        session_id: &str,
    ) -> Result<Option<(i64, MessageRow)>, SessionError> {
        self.get(session_id).await?;
        let (seq,): (Option<i64>,) = sqlx::query_as(
            "SELECT MAX(seq) FROM chat_messages
             WHERE session_id = ? AND role = 'user' AND interjection = 0 AND hidden = 0",
        )
        .bind(session_id)
        .fetch_one(self.store.pool())
        .await?;
        let Some(seq) = seq else {
            return Ok(None);
        };
        let record: Option<MessageRecord> = sqlx::query_as(concat!(
            "SELECT ",
            message_columns!(),
            " FROM chat_messages WHERE session_id = ? AND seq = ?"
        ))
        .bind(session_id)
        .bind(seq)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(record.map(|r| (seq, message_from(r))))
    }

    /// Sets the answer to the chat's last question aside before a new one is written: a good
    /// answer becomes a hidden earlier version, a failed one is dropped. Answers what the new
    /// answer's rows are tagged with (question id and version), or `None` when no earlier version
    /// is kept (the new answer is then a plain one).
    pub async fn retire_answer(
        &self,
        session_id: &str,
        question_id: &str,
        question_seq: i64,
    ) -> Result<Option<(String, i64)>, SessionError> {
        let mut tx = self.store.begin_write().await?;
        // The answer as first written carries no tag yet: it becomes version 1 (or the next).
        let untagged: Vec<(String, bool)> = sqlx::query_as(
            "SELECT id, error IS NOT NULL FROM chat_messages
             WHERE session_id = ? AND seq > ? AND hidden = 0 AND answer_to IS NULL",
        )
        .bind(session_id)
        .bind(question_seq)
        .fetch_all(&mut *tx)
        .await?;
        if untagged.iter().any(|(_, failed)| *failed) {
            sqlx::query(
                "DELETE FROM chat_messages WHERE session_id = ? AND seq > ? AND hidden = 0 AND answer_to IS NULL",
            )
            .bind(session_id)
            .bind(question_seq)
            .execute(&mut *tx)
            .await?;
        } else if !untagged.is_empty() {
            sqlx::query(
                "UPDATE chat_messages SET answer_to = ?,
                     version = (SELECT COALESCE(MAX(version), 0) + 1 FROM chat_messages WHERE session_id = ? AND answer_to = ?)
                 WHERE session_id = ? AND seq > ? AND hidden = 0 AND answer_to IS NULL",
            )
            .bind(question_id)
            .bind(session_id)
            .bind(question_id)
            .bind(session_id)
            .bind(question_seq)
            .execute(&mut *tx)
            .await?;
        }
        // Failed versions go; the rest are hidden until flipped back to.
        sqlx::query(
            "DELETE FROM chat_messages WHERE session_id = ? AND answer_to = ? AND version IN
                 (SELECT version FROM chat_messages WHERE session_id = ? AND answer_to = ? AND error IS NOT NULL)",
        )
        .bind(session_id)
        .bind(question_id)
        .bind(session_id)
        .bind(question_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE chat_messages SET hidden = 1 WHERE session_id = ? AND answer_to = ?")
            .bind(session_id)
            .bind(question_id)
            .execute(&mut *tx)
            .await?;
        let (kept, last): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(DISTINCT version), COALESCE(MAX(version), 0) FROM chat_messages
             WHERE session_id = ? AND answer_to = ?",
        )
        .bind(session_id)
        .bind(question_id)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok((kept > 0).then(|| (question_id.to_owned(), last + 1)))
    }

    /// Shows version `index` (0 = the oldest) of the answer that `message_id` belongs to; from
    /// now on the model reads that version.
    pub async fn show_version(
        &self,
        session_id: &str,
        message_id: &str,
        index: u32,
    ) -> Result<(), SessionError> {
        self.get(session_id).await?;
        let mut tx = self.store.begin_write().await?;
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT answer_to FROM chat_messages WHERE id = ? AND session_id = ?")
                .bind(message_id)
                .bind(session_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((answer_to,)) = row else {
            return Err(SessionError::MessageNotFound(message_id.to_owned()));
        };
        let Some(question) = answer_to else {
            return Err(SessionError::Conflict(
                "This answer has no other versions.".to_owned(),
            ));
        };
        let versions: Vec<(i64,)> = sqlx::query_as(
            "SELECT DISTINCT version FROM chat_messages WHERE session_id = ? AND answer_to = ? ORDER BY version",
        )
        .bind(session_id)
        .bind(&question)
        .fetch_all(&mut *tx)
        .await?;
        let Some((version,)) = usize::try_from(index).ok().and_then(|i| versions.get(i)) else {
            return Err(SessionError::Invalid(format!(
                "This answer has {} versions; index is 0 to {}.",
                versions.len(),
                versions.len().saturating_sub(1)
            )));
        };
        sqlx::query(
            "UPDATE chat_messages SET hidden = (version != ?) WHERE session_id = ? AND answer_to = ?",
        )
        .bind(version)
        .bind(session_id)
        .bind(&question)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The versions of the answer to `question_id` and which is shown (`[]` when it has none).
    pub async fn versions_of(
        &self,
        session_id: &str,
        question_id: &str,
    ) -> Result<Versions, SessionError> {
        Ok(self
            .answer_versions(session_id)
            .await?
            .remove(question_id)
            .unwrap_or_default())
    }

    /// Puts each regenerated answer's versions on its last shown row in `rows`.
    pub(super) async fn attach_versions(
        &self,
        session_id: &str,
        rows: &mut [MessageRow],
    ) -> Result<(), SessionError> {
        let tagged: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, answer_to FROM chat_messages WHERE session_id = ? AND hidden = 0 AND answer_to IS NOT NULL",
        )
        .bind(session_id)
        .fetch_all(self.store.pool())
        .await?;
        if tagged.is_empty() {
            return Ok(());
        }
        let answer_of: HashMap<String, String> = tagged.into_iter().collect();
        let mut versions = self.answer_versions(session_id).await?;
        for row in rows.iter_mut().rev() {
            let Some(question) = answer_of.get(&row.id) else {
                continue;
            };
            // Walking backwards, the first row met of an answer is its last.
            if let Some((list, index)) = versions.remove(question) {
                row.versions = list;
                row.version_index = index;
            }
        }
        Ok(())
    }

    /// Every regenerated answer of the chat: its versions in order, and the shown one's index.
    async fn answer_versions(
        &self,
        session_id: &str,
    ) -> Result<HashMap<String, Versions>, SessionError> {
        type VersionRow = (String, i64, bool, String, String, Option<String>, String);
        let rows: Vec<VersionRow> = sqlx::query_as(
            "SELECT answer_to, version, hidden, role, content, error, created_at FROM chat_messages
             WHERE session_id = ? AND answer_to IS NOT NULL ORDER BY answer_to, version, seq",
        )
        .bind(session_id)
        .fetch_all(self.store.pool())
        .await?;
        let mut out: HashMap<String, Versions> = HashMap::new();
        let mut last: Option<(String, i64)> = None;
        for (question, version, hidden, role, content, error, created_at) in rows {
            let (list, index) = out.entry(question.clone()).or_default();
            let key = Some((question, version));
            if last != key {
                list.push(MessageVersion {
                    content: String::new(),
                    error: None,
                    created_at: time(&created_at),
                });
                last = key;
            }
            let at = list.len() - 1;
            if !hidden {
                *index = u32::try_from(at).unwrap_or_default();
            }
            if let Some(current) = list.last_mut() {
                // A version reads as its last assistant message, and fails if any row failed.
                if role == "assistant" {
                    current.content = content;
                    current.created_at = time(&created_at);
                }
                current.error = current.error.take().or(error);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::NewMessage;
    use super::super::tests::sessions;
    use super::*;

    fn said(role: &str, content: &str) -> NewMessage {
        NewMessage {
            role: role.into(),
            content: content.into(),
            ..Default::default()
        }
    }

    fn shown(rows: &[MessageRow]) -> Vec<(&str, &str)> {
        rows.iter()
            .map(|r| (r.role.as_str(), r.content.as_str()))
            .collect()
    }

    #[tokio::test]
    async fn an_earlier_answer_flips_in_place_and_only_the_shown_version_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = sessions(dir.path()).await;
        let chat = s.create("desktop").await.expect("create");
        s.append(&chat.id, said("user", "Q1")).await.expect("q1");
        s.append(&chat.id, said("assistant", "A1"))
            .await
            .expect("a1");
        let (seq, question) = s
            .last_question(&chat.id)
            .await
            .expect("read")
            .expect("a question");
        let tag = s
            .retire_answer(&chat.id, &question.id, seq)
            .await
            .expect("retire");
        assert_eq!(tag, Some((question.id.clone(), 2)));
        let again = s
            .append(
                &chat.id,
                NewMessage {
                    answer_to: tag,
                    ..said("assistant", "A1 again")
                },
            )
            .await
            .expect("a1 again");
        s.append(&chat.id, said("user", "Q2")).await.expect("q2");
        s.append(&chat.id, said("assistant", "A2"))
            .await
            .expect("a2");

        // Flipping the earlier answer keeps the later turn where it was.
        s.show_version(&chat.id, &again.id, 0).await.expect("flip");
        let rows = s.messages(&chat.id, 500).await.expect("rows");
        assert_eq!(
            shown(&rows),
            [
                ("user", "Q1"),
                ("assistant", "A1"),
                ("user", "Q2"),
                ("assistant", "A2")
            ]
        );
        let versions: Vec<&str> = rows[1]
            .versions
            .iter()
            .map(|v| v.content.as_str())
            .collect();
        assert_eq!(
            (versions, rows[1].version_index),
            (vec!["A1", "A1 again"], 0)
        );
        assert!(rows[3].versions.is_empty());
        let read = s.messages_after(&chat.id, 0).await.expect("read");
        let read: Vec<MessageRow> = read.into_iter().map(|(_, r)| r).collect();
        assert_eq!(shown(&read), shown(&rows), "the model reads what is shown");
        let err = s
            .show_version(&chat.id, &again.id, 2)
            .await
            .expect_err("no third version");
        assert!(matches!(err, SessionError::Invalid(_)), "{err:?}");
    }

    #[tokio::test]
    async fn a_failed_answer_is_dropped_not_kept_and_an_empty_chat_has_no_question() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = sessions(dir.path()).await;
        let chat = s.create("desktop").await.expect("create");
        assert!(s.last_question(&chat.id).await.expect("read").is_none());
        s.append(&chat.id, said("user", "Hi")).await.expect("q");
        s.append(
            &chat.id,
            NewMessage {
                error: Some("Ollama isn't running.".into()),
                ..said("assistant", "")
            },
        )
        .await
        .expect("failed");
        let (seq, question) = s
            .last_question(&chat.id)
            .await
            .expect("read")
            .expect("a question");
        let tag = s
            .retire_answer(&chat.id, &question.id, seq)
            .await
            .expect("retire");
        assert_eq!(tag, None, "nothing kept, so the new answer is a plain one");
        let rows = s.messages(&chat.id, 500).await.expect("rows");
        assert_eq!(shown(&rows), [("user", "Hi")]);
        assert!(
            s.versions_of(&chat.id, &question.id)
                .await
                .expect("versions")
                .0
                .is_empty()
        );
    }
}
