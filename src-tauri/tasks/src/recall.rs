//! Finding things again (issue 7): the task list's search over names, descriptions, briefs and
//! notes (`GET /api/tasks?q=`, `search_tasks`), and each task's own conversation (its chat and
//! answers, its runs' transcripts and logs) for the run tools `search_task_conversation` and
//! `read_task_conversation`, so a run finds what the person already said instead of asking again.
//! Both are FTS5 indexes the store keeps as it writes; refs look like `chat:3`,
//! `run:<run_id>:12` (a transcript message) and `log:<run_id>:40` (a progress line).

use serde::Serialize;
use serde_json::{Value, json};

use super::model::ProgressUpdate;
use super::store::{TaskRecord, TaskStore, TaskStoreError};
use sentient_core::store::fts5_match;
use sentient_llm::Message;
use sentient_llm::types::Speaker;

/// Most results one search returns, and the longest excerpt.
pub const MAX_RESULTS: u32 = 20;
const EXCERPT_CHARS: usize = 300;
/// Longest text one read returns per entry, and most entries either side of the ref.
const READ_CHARS: usize = 800;
const MAX_AROUND: u32 = 10;

fn clip(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_owned()
    } else {
        text.chars().take(chars).collect::<String>() + " …"
    }
}

/// A parsed ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    Chat(u32),
    Message { run_id: String, index: u32 },
    Log { run_id: String, event: i64 },
}

pub fn parse_ref(text: &str) -> Option<Ref> {
    let parts: Vec<&str> = text.trim().split(':').collect();
    match parts.as_slice() {
        ["chat", n] => n.parse().ok().map(Ref::Chat),
        ["run", run, i] => i.parse().ok().map(|index| Ref::Message {
            run_id: (*run).to_owned(),
            index,
        }),
        ["log", run, e] => e.parse().ok().map(|event| Ref::Log {
            run_id: (*run).to_owned(),
            event,
        }),
        _ => None,
    }
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    #[serde(rename = "ref")]
    pub reference: String,
    pub source: String,
    pub author: String,
    pub excerpt: String,
    /// The app whose content the run had read (a hit from such a run may quote someone else's
    /// words); absent for the task chat and runs that read none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside_content: Option<String>,
}

/// How the engine words the person's answers inside a run's transcript: an `ask_user` call's
/// result, and the note added after a stuck question.
pub(crate) const ANSWER_PREFIX: &str = "The person answered: ";
pub(crate) const STUCK_ANSWER_PREFIX: &str = "The person says: ";

/// Who wrote a transcript message, and the words to index. Only what the person typed is
/// `user`: their answers to the run's questions. Every other user-role message is the engine's
/// own (kickoffs, nudges, reminders, resume and retry notes) and is `system`; the system prompt
/// and other tool results (which may be someone else's words) are left out.
fn author_of<'m>(message: &'m Message, transcript: &[Message]) -> Option<(&'static str, &'m str)> {
    match message.role {
        Speaker::Assistant => Some(("agent", message.content.as_str())),
        Speaker::User => Some(match message.content.strip_prefix(STUCK_ANSWER_PREFIX) {
            Some(answer) => ("user", answer),
            None => ("system", message.content.as_str()),
        }),
        Speaker::Tool => {
            let call_id = message.tool_call_id.as_deref()?;
            let asked = transcript
                .iter()
                .flat_map(|m| m.tool_calls.iter())
                .any(|c| c.id == call_id && c.name == "ask_user");
            let answer = message.content.strip_prefix(ANSWER_PREFIX)?;
            asked.then_some(("user", answer))
        }
        Speaker::System => None,
    }
}

impl TaskStore {
    /// Keeps the task list's search row and the task's chat lines in the conversation index.
    pub(crate) async fn index_task(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let t = &record.task;
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM task_search WHERE task_id = ?")
            .bind(&t.task_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO task_search (task_id, name, description, brief, notepad) VALUES (?, ?, ?, ?, ?)")
            .bind(&t.task_id)
            .bind(&t.name)
            .bind(format!("{}\n{}", t.description, record.prompt))
            .bind(t.brief.as_ref().map(super::brief::render).unwrap_or_default())
            .bind(t.notepad.clone().unwrap_or_default())
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM task_conversation WHERE task_id = ? AND source = 'chat'")
            .bind(&t.task_id)
            .execute(&mut *tx)
            .await?;
        let mut lines: Vec<(String, &str, String)> = Vec::new();
        lines.push(("chat:0".to_owned(), "user", record.prompt.clone()));
        for (i, line) in t.chat_history.iter().enumerate() {
            let author = if line.role == "user" { "user" } else { "agent" };
            lines.push((format!("chat:{}", i + 1), author, line.content.clone()));
        }
        let base = t.chat_history.len() + 1;
        for (i, q) in t.clarifying_questions.iter().enumerate() {
            if let Some(answer) = &q.answer {
                lines.push((
                    format!("chat:{}", base + i),
                    "user",
                    format!("Q: {}\nA: {answer}", q.text),
                ));
            }
        }
        for (reference, author, text) in lines {
            sqlx::query("INSERT INTO task_conversation (task_id, ref, source, author, text) VALUES (?, ?, 'chat', ?, ?)")
                .bind(&t.task_id)
                .bind(reference)
                .bind(author)
                .bind(text)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Indexes every run's transcript again when the index was made by an older version (one
    /// that called the engine's own messages the person's). Says how many runs it indexed.
    pub async fn reindex_old_transcripts(&self) -> Result<usize, TaskStoreError> {
        const KEY: &str = "tasks.conversation_index_version";
        const VERSION: i64 = 2;
        let had = self.store.meta_get::<i64>(KEY).await?.unwrap_or(1);
        if had >= VERSION {
            return Ok(0);
        }
        let runs: Vec<(String, String)> =
            sqlx::query_as("SELECT id, transcript FROM task_runs WHERE transcript != '[]'")
                .fetch_all(self.store.pool())
                .await?;
        for (run_id, transcript) in &runs {
            let transcript: Vec<Message> = serde_json::from_str(transcript).unwrap_or_default();
            self.index_transcript(run_id, &transcript).await?;
        }
        self.store.meta_set(KEY, &VERSION).await?;
        Ok(runs.len())
    }

    /// Indexes a run's transcript again (what the person and the model said).
    pub(crate) async fn index_transcript(
        &self,
        run_id: &str,
        transcript: &[Message],
    ) -> Result<(), TaskStoreError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT task_id FROM task_runs WHERE id = ?")
            .bind(run_id)
            .fetch_optional(self.store.pool())
            .await?;
        let Some((task_id,)) = row else { return Ok(()) };
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM task_conversation WHERE task_id = ? AND ref LIKE ?")
            .bind(&task_id)
            .bind(format!("run:{run_id}:%"))
            .execute(&mut *tx)
            .await?;
        for (i, message) in transcript.iter().enumerate() {
            let Some((author, text)) = author_of(message, transcript) else {
                continue;
            };
            if text.trim().is_empty() {
                continue;
            }
            sqlx::query("INSERT INTO task_conversation (task_id, ref, source, author, text) VALUES (?, ?, 'runs', ?, ?)")
                .bind(&task_id)
                .bind(format!("run:{run_id}:{i}"))
                .bind(author)
                .bind(text)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Indexes one progress line (tool results are left out: they may be someone else's words).
    pub(crate) async fn index_event(
        &self,
        run_id: &str,
        event: i64,
        update: &ProgressUpdate,
    ) -> Result<(), TaskStoreError> {
        if update.message.kind == "tool_result" || update.message.content.trim().is_empty() {
            return Ok(());
        }
        sqlx::query(
            "INSERT INTO task_conversation (task_id, ref, source, author, text)
             SELECT task_id, ?, 'runs', 'system', ? FROM task_runs WHERE id = ?",
        )
        .bind(format!("log:{run_id}:{event}"))
        .bind(&update.message.content)
        .bind(run_id)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn unindex_task(&self, task_id: &str) -> Result<(), TaskStoreError> {
        for table in [
            "DELETE FROM task_search WHERE task_id = ?",
            "DELETE FROM task_conversation WHERE task_id = ?",
        ] {
            sqlx::query(table)
                .bind(task_id)
                .execute(self.store.pool())
                .await?;
        }
        Ok(())
    }

    /// Task ids whose name, description, brief or notes match `q`, best first.
    pub async fn search_tasks(&self, q: &str) -> Result<Vec<String>, TaskStoreError> {
        let Some(query) = fts5_match(q) else {
            return Ok(Vec::new());
        };
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT task_id FROM task_search WHERE task_search MATCH ? ORDER BY rank LIMIT 200",
        )
        .bind(query)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }

    /// Search within one task's conversation.
    pub async fn search_conversation(
        &self,
        task_id: &str,
        q: &str,
        source: Option<&str>,
        author: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Hit>, TaskStoreError> {
        let Some(query) = fts5_match(q) else {
            return Ok(Vec::new());
        };
        let rows: Vec<(String, String, String, String)> = sqlx::query_as(
            "SELECT ref, source, author, snippet(task_conversation, 4, '[', ']', '…', 24)
             FROM task_conversation
             WHERE task_conversation MATCH ? AND task_id = ? AND (? IS NULL OR source = ?) AND (? IS NULL OR author = ?)
             ORDER BY rank LIMIT ?",
        )
        .bind(query)
        .bind(task_id)
        .bind(source)
        .bind(source)
        .bind(author)
        .bind(author)
        .bind(i64::from(limit.clamp(1, MAX_RESULTS)))
        .fetch_all(self.store.pool())
        .await?;
        let mut hits = Vec::with_capacity(rows.len());
        for (reference, source, author, excerpt) in rows {
            let outside_content = match parse_ref(&reference) {
                Some(Ref::Message { run_id, .. } | Ref::Log { run_id, .. }) => {
                    self.run_untrusted(&run_id).await?
                }
                _ => None,
            };
            hits.push(Hit {
                reference,
                source,
                author,
                excerpt: clip(&excerpt, EXCERPT_CHARS),
                outside_content,
            });
        }
        Ok(hits)
    }

    /// Entries around a ref of this task, each cut short; `None` when the ref isn't this task's.
    pub async fn read_conversation(
        &self,
        task_id: &str,
        reference: &Ref,
        before: u32,
        after: u32,
    ) -> Result<Option<Value>, TaskStoreError> {
        let (before, after) = (
            i64::from(before.min(MAX_AROUND)),
            i64::from(after.min(MAX_AROUND)),
        );
        let entry = |r: String, author: &str, text: &str| json!({"ref": r, "author": author, "text": clip(text, READ_CHARS)});
        match reference {
            Ref::Chat(n) => {
                let rows: Vec<(String, String, String)> = sqlx::query_as(
                    "SELECT ref, author, text FROM task_conversation WHERE task_id = ? AND source = 'chat'",
                )
                .bind(task_id)
                .fetch_all(self.store.pool())
                .await?;
                let n = i64::from(*n);
                let mut around: Vec<(i64, Value)> = rows
                    .into_iter()
                    .filter_map(|(r, a, t)| {
                        let i: i64 = r.strip_prefix("chat:")?.parse().ok()?;
                        (i >= n - before && i <= n + after).then(|| (i, entry(r, &a, &t)))
                    })
                    .collect();
                around.sort_by_key(|(i, _)| *i);
                Ok((!around.is_empty()).then(
                    || json!({"entries": around.into_iter().map(|(_, v)| v).collect::<Vec<_>>()}),
                ))
            }
            Ref::Message { run_id, index } => {
                let Ok(record) = self.run(task_id, run_id).await else {
                    return Ok(None);
                };
                let index = i64::from(*index);
                let entries: Vec<Value> = record
                    .transcript
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| {
                        let i = i64::try_from(*i).unwrap_or(i64::MAX);
                        i >= index - before && i <= index + after && i > 0
                    })
                    .filter_map(|(i, m)| {
                        let (author, text) = author_of(m, &record.transcript)?;
                        Some(entry(format!("run:{run_id}:{i}"), author, text))
                    })
                    .collect();
                let mut read = json!({"entries": entries});
                if let Some(app) = record.untrusted.filter(|u| !u.is_empty()) {
                    read["outside_content"] = json!(app);
                }
                Ok(Some(read))
            }
            Ref::Log { run_id, event } => {
                if self.run(task_id, run_id).await.is_err() {
                    return Ok(None);
                }
                let rows: Vec<(i64, String)> = sqlx::query_as(
                    "SELECT id, message FROM task_run_events WHERE run_id = ? AND id BETWEEN ? AND ? ORDER BY id",
                )
                .bind(run_id)
                .bind(event - before)
                .bind(event + after)
                .fetch_all(self.store.pool())
                .await?;
                let entries: Vec<Value> = rows
                    .into_iter()
                    .filter_map(|(id, message)| {
                        let message: Value = serde_json::from_str(&message).ok()?;
                        // Tool results stay out, as in the index.
                        (message["type"] != "tool_result").then(|| {
                            entry(
                                format!("log:{run_id}:{id}"),
                                "system",
                                message["content"].as_str().unwrap_or_default(),
                            )
                        })
                    })
                    .collect();
                Ok(Some(json!({"entries": entries})))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_parse_and_anything_else_is_refused() {
        assert_eq!(parse_ref("chat:12"), Some(Ref::Chat(12)));
        assert_eq!(
            parse_ref("run:abc:42"),
            Some(Ref::Message {
                run_id: "abc".into(),
                index: 42
            })
        );
        assert_eq!(
            parse_ref("log:abc:7"),
            Some(Ref::Log {
                run_id: "abc".into(),
                event: 7
            })
        );
        assert_eq!(parse_ref("run:abc"), None);
        assert_eq!(parse_ref("chat:x"), None);
        assert_eq!(parse_ref("task:other:1"), None);
    }
}
