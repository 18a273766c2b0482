//! Tasks and runs in SQLite: one row per task and per run with JSON columns for the contract's
//! nested objects, and the full progress log of each run in its own table. Changes to one task
//! are read-modify-write inside a transaction; the service serialises them per engine.

use chrono::{DateTime, Utc};
use sentient_agent::chat_memory::merge_sources;
use sentient_core::domain::MemorySource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use super::model::{
    DeliverTo, PendingQuestion, ProgressUpdate, Run, RunResult, RunStatus, Schedule, Task,
    TaskStatus,
};
use sentient_core::store::{Store, StoreError};
use sentient_llm::Message;

/// How many progress updates a run embeds; the rest are behind `.../events`.
pub const EMBEDDED_UPDATES: i64 = 200;

/// A task with the fields the API never shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    pub task: Task,
    /// What the user asked for, word for word.
    pub prompt: String,
}

/// A task the scheduler found due, with the exact stored due time its claim checks.
#[derive(Debug, Clone, PartialEq)]
pub struct DueTask {
    pub record: TaskRecord,
    pub due_at: DateTime<Utc>,
    stamp: String,
}

/// How a claim to run went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// The task is ours and its run row exists.
    Claimed,
    /// Every run slot is taken; the task stays due.
    NoSlot,
    /// Someone else claimed or changed it first.
    Gone,
}

/// A run with its checkpoint and the parts of its question the API never shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub task_id: String,
    pub run: Run,
    pub transcript: Vec<Message>,
    /// The stored question with its hidden fields (`kind` details, `stop_error`, ...).
    pub question: Option<Value>,
    pub limits: Option<Value>,
    /// The app whose content the run read, once it ended (remembered answers keep it).
    pub untrusted: Option<String>,
}

impl RunRecord {
    /// A new run, working from `now`.
    pub fn start(
        task_id: &str,
        plan: Vec<super::model::PlanStep>,
        trigger_event_data: Option<Value>,
        retry_of: Option<String>,
        transcript: Vec<Message>,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            task_id: task_id.to_owned(),
            run: Run {
                run_id: sentient_core::store::new_id(),
                status: RunStatus::Processing,
                created_at: now,
                execution_start_time: Some(now),
                finished_at: None,
                plan,
                trigger_event_data,
                progress_updates: Vec::new(),
                result: None,
                error: None,
                retry_of,
                pending_question: None,
                last_activity_at: Some(now),
                memory_sources: Vec::new(),
                brief_updated: false,
            },
            transcript,
            question: None,
            limits: None,
            untrusted: None,
        }
    }

    /// Questions this run has asked so far (kept beside its limits, across pauses).
    pub fn question_count(&self) -> u32 {
        self.limits
            .as_ref()
            .and_then(|l| l.get("questions_asked"))
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0)
    }

    pub fn set_question_count(&mut self, count: u32) {
        if let Some(Value::Object(limits)) = &mut self.limits {
            limits.insert("questions_asked".to_owned(), Value::from(count));
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TaskStoreError {
    #[error("There is no task with the id {0}.")]
    NoTask(String),
    #[error("This task has no run with the id {0}.")]
    NoRun(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for TaskStoreError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Sql(e))
    }
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

fn parse<T: DeserializeOwned + Default>(text: Option<String>) -> T {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn time(text: Option<String>) -> Option<DateTime<Utc>> {
    text.as_deref().and_then(sentient_core::store::parse_stamp)
}

use sentient_core::store::change_one;
use sentient_core::store::stamp as stamp_at;

fn stamp(t: Option<DateTime<Utc>>) -> Option<String> {
    t.map(stamp_at)
}

/// A run's last `limit` progress updates, oldest first, read on `conn` (a snapshot's when it
/// is in a transaction).
async fn events_in(
    conn: &mut sqlx::SqliteConnection,
    run_id: &str,
    limit: i64,
) -> Result<Vec<ProgressUpdate>, TaskStoreError> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT timestamp, message FROM (SELECT id, timestamp, message FROM task_run_events WHERE run_id = ?
                                         ORDER BY id DESC LIMIT ?) ORDER BY id",
    )
    .bind(run_id)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(timestamp, message)| {
            Some(ProgressUpdate {
                timestamp: time(Some(timestamp))?,
                message: serde_json::from_str(&message).ok()?,
            })
        })
        .collect())
}

/// The API's view of a stored question: only `{question, options, asked_at, kind, reason}`.
pub fn shown_question(stored: &Value) -> Option<PendingQuestion> {
    serde_json::from_value(stored.clone()).ok()
}

type TaskQuery<'q> = sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>;

/// The columns every task update writes: all but its id, creation time and generation.
macro_rules! task_columns {
    () => {
        "UPDATE tasks SET name = ?, description = ?, prompt = ?, status = ?, priority = ?,
    assignee = ?, task_type = ?, schedule = ?, script = ?, plan = ?, chat_history = ?, clarifying_questions = ?,
    swarm_details = ?, enabled = ?, model = ?, browser_profile = ?, deliver_to = ?, original_context = ?,
    error = ?, next_execution_at = ?, last_execution_at = ?, updated_at = ?, notepad = ?, notepad_untrusted = ?,
    brief = ?"
    };
}

/// Writes every column of a task but its id, creation time and generation.
const UPDATE_TASK: &str = concat!(task_columns!(), " WHERE id = ? RETURNING generation");
/// The same, for a person's change: the generation moves on.
const UPDATE_TASK_BY_PERSON: &str = concat!(
    task_columns!(),
    ", generation = generation + 1 WHERE id = ? RETURNING generation"
);
/// The same, only while the task is still at the generation given last.
const UPDATE_TASK_SINCE: &str = concat!(
    task_columns!(),
    " WHERE id = ? AND generation = ? RETURNING generation"
);

/// Who writes a task back, which decides the statement (see `migrations/0017`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskWrite {
    /// Work that belongs to the task as it is (a run's steps, notes, the swarm's lines).
    Background,
    /// A person's change that settles what planning would produce: the generation moves on.
    Person,
    /// Planning's outcome: written only while the task is still at this generation.
    Since(i64),
}

/// A new task's generation (the column's default).
pub const FIRST_GENERATION: i64 = 0;

/// Saves a run: inserts it, or writes every field back (the one statement for `save_run` and
/// the scheduler's claim, so the two never drift apart).
/// Saves a run. Its memory sources are written only when the row is new: later ones are added
/// by [`TaskStore::add_memory_sources`], so a save from an older copy never drops them. A new row records the version of its task's notes then (the notes it starts
/// from), whatever its transcript; saving it again never changes that, so a retry or a run
/// resumed after a restart keeps the version it started with.
fn upsert_run(record: &RunRecord) -> TaskQuery<'_> {
    let r = &record.run;
    sqlx::query(
        "INSERT INTO task_runs (id, task_id, status, created_at, execution_start_time, finished_at, plan,
                                trigger_event_data, result, error, retry_of, pending_question, last_activity_at,
                                memory_sources, transcript, limits, untrusted, brief_updated, notepad_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                 (SELECT notepad_version FROM tasks WHERE id = ?))
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, execution_start_time = excluded.execution_start_time,
             finished_at = excluded.finished_at, plan = excluded.plan, trigger_event_data = excluded.trigger_event_data,
             result = excluded.result, error = excluded.error, retry_of = excluded.retry_of,
             pending_question = excluded.pending_question, last_activity_at = excluded.last_activity_at,
             transcript = excluded.transcript, limits = excluded.limits,
             untrusted = excluded.untrusted, brief_updated = excluded.brief_updated",
    )
    .bind(&r.run_id)
    .bind(&record.task_id)
    .bind(r.status.as_str())
    .bind(stamp_at(r.created_at))
    .bind(stamp(r.execution_start_time))
    .bind(stamp(r.finished_at))
    .bind(json(&r.plan))
    .bind(r.trigger_event_data.as_ref().map(json))
    .bind(r.result.as_ref().map(json))
    .bind(&r.error)
    .bind(&r.retry_of)
    .bind(record.question.as_ref().map(json))
    .bind(stamp(r.last_activity_at))
    .bind(json(&r.memory_sources))
    .bind(json(&record.transcript))
    .bind(record.limits.as_ref().map(json))
    .bind(&record.untrusted)
    .bind(i64::from(r.brief_updated))
    .bind(&record.task_id)
}

/// Binds the columns both task statements start with (name … updated_at), in that order.
fn bind_task<'q>(query: TaskQuery<'q>, record: &'q TaskRecord) -> TaskQuery<'q> {
    let t = &record.task;
    query
        .bind(&t.name)
        .bind(&t.description)
        .bind(&record.prompt)
        .bind(t.status.as_str())
        .bind(i64::from(t.priority))
        .bind(&t.assignee)
        .bind(&t.task_type)
        .bind(t.schedule.as_ref().map(json))
        .bind(t.script.as_ref().map(json))
        .bind(json(&t.plan))
        .bind(json(&t.chat_history))
        .bind(json(&t.clarifying_questions))
        .bind(t.swarm_details.as_ref().map(json))
        .bind(i64::from(t.enabled))
        .bind(&t.model)
        .bind(&t.browser_profile)
        .bind(json(&t.deliver_to))
        .bind(json(&t.original_context))
        .bind(&t.error)
        .bind(stamp(t.next_execution_at))
        .bind(stamp(t.last_execution_at))
        .bind(stamp_at(t.updated_at))
        .bind(&t.notepad)
        .bind(&t.notepad_untrusted)
        .bind(t.brief.as_ref().map(json))
}

#[derive(Debug, Clone)]
pub struct TaskStore {
    pub(super) store: Store,
}

impl TaskStore {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The columns of notes between runs (the person's versions and a run's pending notes).
    pub fn notes(&self) -> TaskNotes<'_> {
        TaskNotes(self)
    }

    fn task_from(row: &SqliteRow) -> TaskRecord {
        let status: String = row.get("status");
        let schedule: Option<String> = row.get("schedule");
        TaskRecord {
            prompt: row.get("prompt"),
            task: Task {
                task_id: row.get("id"),
                name: row.get("name"),
                description: row.get("description"),
                status: TaskStatus::parse(&status).unwrap_or(TaskStatus::Error),
                priority: row.get::<i64, _>("priority").try_into().unwrap_or(1),
                assignee: row.get("assignee"),
                task_type: row.get("task_type"),
                schedule: schedule.and_then(|s| serde_json::from_str::<Schedule>(&s).ok()),
                script: row
                    .get::<Option<String>, _>("script")
                    .and_then(|s| serde_json::from_str(&s).ok()),
                plan: parse(row.get("plan")),
                runs: Vec::new(),
                chat_history: parse(row.get("chat_history")),
                clarifying_questions: parse(row.get("clarifying_questions")),
                swarm_details: row
                    .get::<Option<String>, _>("swarm_details")
                    .and_then(|s| serde_json::from_str(&s).ok()),
                enabled: row.get::<i64, _>("enabled") != 0,
                model: row.get("model"),
                browser_profile: row.get("browser_profile"),
                // Read strictly: a setting that can't be read keeps notifications in the app.
                deliver_to: DeliverTo::stored(
                    row.get::<Option<String>, _>("deliver_to")
                        .and_then(|s| serde_json::from_str(&s).ok()),
                ),
                original_context: row
                    .get::<Option<String>, _>("original_context")
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or_default(),
                error: row.get("error"),
                next_execution_at: time(row.get("next_execution_at")),
                last_execution_at: time(row.get("last_execution_at")),
                created_at: time(row.get("created_at")).unwrap_or_default(),
                updated_at: time(row.get("updated_at")).unwrap_or_default(),
                notepad: row.get("notepad"),
                notepad_untrusted: row.get("notepad_untrusted"),
                brief: row
                    .get::<Option<String>, _>("brief")
                    .and_then(|s| serde_json::from_str(&s).ok()),
            },
        }
    }

    fn run_from(row: &SqliteRow) -> RunRecord {
        let status: String = row.get("status");
        let question: Option<Value> = row
            .get::<Option<String>, _>("pending_question")
            .and_then(|s| serde_json::from_str(&s).ok());
        RunRecord {
            task_id: row.get("task_id"),
            transcript: parse(row.get("transcript")),
            limits: row
                .get::<Option<String>, _>("limits")
                .and_then(|s| serde_json::from_str(&s).ok()),
            run: Run {
                run_id: row.get("id"),
                status: RunStatus::parse(&status).unwrap_or(RunStatus::Error),
                created_at: time(row.get("created_at")).unwrap_or_default(),
                execution_start_time: time(row.get("execution_start_time")),
                finished_at: time(row.get("finished_at")),
                plan: parse(row.get("plan")),
                trigger_event_data: row
                    .get::<Option<String>, _>("trigger_event_data")
                    .and_then(|s| serde_json::from_str(&s).ok()),
                progress_updates: Vec::new(),
                result: row
                    .get::<Option<String>, _>("result")
                    .and_then(|s| serde_json::from_str::<RunResult>(&s).ok()),
                error: row.get("error"),
                retry_of: row.get("retry_of"),
                pending_question: question.as_ref().and_then(shown_question),
                last_activity_at: time(row.get("last_activity_at")),
                memory_sources: parse(row.get("memory_sources")),
                brief_updated: row.get::<i64, _>("brief_updated") != 0,
            },
            untrusted: row.get("untrusted"),
            question,
        }
    }

    /// Saves a new task (its runs are saved on their own).
    pub async fn insert(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        const INSERT: &str = "INSERT INTO tasks (name, description, prompt, status, priority, assignee, task_type, schedule,
            script, plan, chat_history, clarifying_questions, swarm_details, enabled, model, browser_profile, deliver_to,
            original_context, error, next_execution_at, last_execution_at, updated_at, notepad, notepad_untrusted, brief,
            created_at, id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        bind_task(sqlx::query(INSERT), record)
            .bind(stamp_at(record.task.created_at))
            .bind(&record.task.task_id)
            .execute(self.store.pool())
            .await?;
        self.index_task(record).await
    }

    /// Writes every field of a task back (the caller read it, changed it and holds the lock).
    /// Saves an ended run and, in the same write transaction, its task as `change` leaves it
    /// (`change` is told whether another run of the task is still live). Nobody ever reads the
    /// run ended while its task still says it works on it.
    pub async fn finish_run(
        &self,
        run: &RunRecord,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut TaskRecord, bool),
    ) -> Result<(), TaskStoreError> {
        let mut tx = self.store.begin_write().await?;
        let row = sqlx::query("SELECT * FROM tasks WHERE id = ?")
            .bind(&run.task_id)
            .fetch_optional(&mut *tx)
            .await?;
        let mut task = row
            .as_ref()
            .map(Self::task_from)
            .ok_or_else(|| TaskStoreError::NoTask(run.task_id.clone()))?;
        let others: Vec<(String,)> =
            sqlx::query_as("SELECT status FROM task_runs WHERE task_id = ? AND id != ?")
                .bind(&run.task_id)
                .bind(&run.run.run_id)
                .fetch_all(&mut *tx)
                .await?;
        let still_live = others
            .iter()
            .any(|(status,)| RunStatus::parse(status).is_some_and(RunStatus::is_live));
        upsert_run(run).execute(&mut *tx).await?;
        change(&mut task, still_live);
        task.task.updated_at = now;
        bind_task(sqlx::query(UPDATE_TASK), &task)
            .bind(&task.task.task_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.index_transcript(&run.run.run_id, &run.transcript)
            .await
    }

    pub async fn save(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        match self.save_as(record, TaskWrite::Background).await? {
            Some(_) => Ok(()),
            None => Err(TaskStoreError::NoTask(record.task.task_id.clone())),
        }
    }

    /// Writes every field of a task back as `write` says, in one statement, and gives the
    /// task's generation after it; `None` when nothing was written (the task is gone, or with
    /// [`TaskWrite::Since`] a person changed it since).
    pub async fn save_as(
        &self,
        record: &TaskRecord,
        write: TaskWrite,
    ) -> Result<Option<i64>, TaskStoreError> {
        let query = match write {
            TaskWrite::Background => {
                bind_task(sqlx::query(UPDATE_TASK), record).bind(&record.task.task_id)
            }
            TaskWrite::Person => {
                bind_task(sqlx::query(UPDATE_TASK_BY_PERSON), record).bind(&record.task.task_id)
            }
            TaskWrite::Since(generation) => bind_task(sqlx::query(UPDATE_TASK_SINCE), record)
                .bind(&record.task.task_id)
                .bind(generation),
        };
        let written = query.fetch_optional(self.store.pool()).await?;
        let Some(row) = written else {
            return Ok(None);
        };
        self.index_task(record).await?;
        Ok(Some(row.get::<i64, _>("generation")))
    }

    /// The generation of a task that is still `planning` (planning left by a restart starts
    /// from it), or `None` when it is gone or a person settled it.
    pub async fn planning_generation(&self, id: &str) -> Result<Option<i64>, TaskStoreError> {
        let row: Option<(i64,)> =
            sqlx::query_as("SELECT generation FROM tasks WHERE id = ? AND status = 'planning'")
                .bind(id)
                .fetch_optional(self.store.pool())
                .await?;
        Ok(row.map(|r| r.0))
    }

    /// One task without its runs.
    pub async fn task(&self, id: &str) -> Result<TaskRecord, TaskStoreError> {
        let row = sqlx::query("SELECT * FROM tasks WHERE id = ?")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?;
        row.as_ref()
            .map(Self::task_from)
            .ok_or_else(|| TaskStoreError::NoTask(id.to_owned()))
    }

    /// One task with its runs (oldest first), each with its latest progress updates, read in
    /// one snapshot: a run's end and its task's new status are one write, and reading them apart
    /// could show a finished run under a task still "processing".
    pub async fn task_with_runs(&self, id: &str) -> Result<Task, TaskStoreError> {
        let mut read = self.store.pool().begin().await?;
        let row = sqlx::query("SELECT * FROM tasks WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *read)
            .await?;
        let mut task = row
            .as_ref()
            .map(Self::task_from)
            .ok_or_else(|| TaskStoreError::NoTask(id.to_owned()))?
            .task;
        task.runs = Self::runs_in(&mut read, id).await?;
        Ok(task)
    }

    /// Every task, newest first, with runs, in one snapshot (as `task_with_runs`).
    pub async fn list(&self) -> Result<Vec<Task>, TaskStoreError> {
        let mut read = self.store.pool().begin().await?;
        let rows = sqlx::query("SELECT * FROM tasks ORDER BY created_at DESC")
            .fetch_all(&mut *read)
            .await?;
        let mut tasks = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut task = Self::task_from(row).task;
            task.runs = Self::runs_in(&mut read, &task.task_id).await?;
            tasks.push(task);
        }
        Ok(tasks)
    }

    /// Tasks with `status`, oldest first, without their runs (for restarts).
    pub async fn tasks_with_status(&self, status: TaskStatus) -> Result<Vec<Task>, TaskStoreError> {
        let rows = sqlx::query("SELECT * FROM tasks WHERE status = ? ORDER BY created_at")
            .bind(status.as_str())
            .fetch_all(self.store.pool())
            .await?;
        Ok(rows.iter().map(|row| Self::task_from(row).task).collect())
    }

    pub async fn delete(&self, id: &str) -> Result<(), TaskStoreError> {
        change_one(
            self.store.pool(),
            sqlx::query("DELETE FROM tasks WHERE id = ?").bind(id),
            || TaskStoreError::NoTask(id.to_owned()),
        )
        .await?;
        self.unindex_task(id).await
    }

    /// The runs of a task, oldest first, each with its latest progress updates.
    pub async fn runs_of(&self, task_id: &str) -> Result<Vec<Run>, TaskStoreError> {
        let mut read = self.store.pool().begin().await?;
        Self::runs_in(&mut read, task_id).await
    }

    async fn runs_in(
        conn: &mut sqlx::SqliteConnection,
        task_id: &str,
    ) -> Result<Vec<Run>, TaskStoreError> {
        let rows =
            sqlx::query("SELECT * FROM task_runs WHERE task_id = ? ORDER BY created_at, rowid")
                .bind(task_id)
                .fetch_all(&mut *conn)
                .await?;
        let mut runs = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut run = Self::run_from(row).run;
            run.progress_updates = events_in(conn, &run.run_id, EMBEDDED_UPDATES).await?;
            runs.push(run);
        }
        Ok(runs)
    }

    /// Records whose status is one of `statuses` (for restarts and the scheduler).
    pub async fn runs_with_status(
        &self,
        statuses: &[RunStatus],
    ) -> Result<Vec<RunRecord>, TaskStoreError> {
        let mut found = Vec::new();
        for status in statuses {
            let rows = sqlx::query("SELECT * FROM task_runs WHERE status = ? ORDER BY created_at")
                .bind(status.as_str())
                .fetch_all(self.store.pool())
                .await?;
            found.extend(rows.iter().map(Self::run_from));
        }
        Ok(found)
    }

    pub async fn run(&self, task_id: &str, run_id: &str) -> Result<RunRecord, TaskStoreError> {
        let row = sqlx::query("SELECT * FROM task_runs WHERE id = ? AND task_id = ?")
            .bind(run_id)
            .bind(task_id)
            .fetch_optional(self.store.pool())
            .await?;
        let mut record = row
            .as_ref()
            .map(Self::run_from)
            .ok_or_else(|| TaskStoreError::NoRun(run_id.to_owned()))?;
        record.run.progress_updates = self.latest_events(run_id).await?;
        Ok(record)
    }

    /// Saves a new run or writes every field of an existing one back.
    pub async fn save_run(&self, record: &RunRecord) -> Result<(), TaskStoreError> {
        upsert_run(record).execute(self.store.pool()).await?;
        self.index_transcript(&record.run.run_id, &record.transcript)
            .await
    }

    /// Adds memories a run had in mind to the ones it already has (each once, at most 40).
    pub async fn add_memory_sources(
        &self,
        run_id: &str,
        more: &[MemorySource],
    ) -> Result<(), TaskStoreError> {
        if more.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin_write().await?;
        let saved: Option<(String,)> =
            sqlx::query_as("SELECT memory_sources FROM task_runs WHERE id = ?")
                .bind(run_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((saved,)) = saved else {
            return Err(TaskStoreError::NoRun(run_id.to_owned()));
        };
        let sources: Vec<MemorySource> = serde_json::from_str(&saved).unwrap_or_default();
        let merged = merge_sources(sources, more.iter().cloned());
        sqlx::query("UPDATE task_runs SET memory_sources = ? WHERE id = ?")
            .bind(json(&merged))
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Saves a run's transcript alone (the checkpoint after each round).
    pub async fn save_transcript(
        &self,
        run_id: &str,
        transcript: &[Message],
    ) -> Result<(), TaskStoreError> {
        sqlx::query("UPDATE task_runs SET transcript = ? WHERE id = ?")
            .bind(json(&transcript))
            .bind(run_id)
            .execute(self.store.pool())
            .await?;
        self.index_transcript(run_id, transcript).await
    }

    /// The run updated its task's brief.
    pub async fn mark_brief_updated(&self, run_id: &str) -> Result<(), TaskStoreError> {
        sqlx::query("UPDATE task_runs SET brief_updated = 1 WHERE id = ?")
            .bind(run_id)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }

    /// The outside-content mark a run ended with.
    pub async fn run_untrusted(&self, run_id: &str) -> Result<Option<String>, TaskStoreError> {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT untrusted FROM task_runs WHERE id = ?")
                .bind(run_id)
                .fetch_optional(self.store.pool())
                .await?;
        Ok(row.and_then(|r| r.0).filter(|u| !u.is_empty()))
    }

    /// Adds a line to a run's progress log and moves its `last_activity_at`.
    pub async fn add_event(
        &self,
        run_id: &str,
        update: &ProgressUpdate,
    ) -> Result<(), TaskStoreError> {
        let mut tx = self.store.begin_write().await?;
        let event = sqlx::query(
            "INSERT INTO task_run_events (run_id, timestamp, message) VALUES (?, ?, ?)",
        )
        .bind(run_id)
        .bind(stamp_at(update.timestamp))
        .bind(json(&update.message))
        .execute(&mut *tx)
        .await?
        .last_insert_rowid();
        sqlx::query("UPDATE task_runs SET last_activity_at = ? WHERE id = ?")
            .bind(stamp_at(update.timestamp))
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.index_event(run_id, event, update).await
    }

    /// A run's whole progress log, oldest first.
    pub async fn events(&self, run_id: &str) -> Result<Vec<ProgressUpdate>, TaskStoreError> {
        self.events_limited(run_id, i64::MAX).await
    }

    async fn latest_events(&self, run_id: &str) -> Result<Vec<ProgressUpdate>, TaskStoreError> {
        self.events_limited(run_id, EMBEDDED_UPDATES).await
    }

    async fn events_limited(
        &self,
        run_id: &str,
        limit: i64,
    ) -> Result<Vec<ProgressUpdate>, TaskStoreError> {
        let mut conn = self.store.pool().acquire().await?;
        events_in(&mut conn, run_id, limit).await
    }

    /// The tasks due at `now` (enabled, pending or active), earliest first, at most `limit`.
    /// Reading claims nothing: [`TaskStore::claim_to_run`] and [`TaskStore::claim_to_skip`]
    /// do, each in one transaction.
    pub async fn due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<DueTask>, TaskStoreError> {
        let rows = sqlx::query(
            "SELECT * FROM tasks
             WHERE next_execution_at IS NOT NULL AND next_execution_at <= ? AND enabled = 1
                   AND status IN ('pending', 'active')
             ORDER BY next_execution_at, priority LIMIT ?",
        )
        .bind(stamp_at(now))
        .bind(i64::from(limit))
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .iter()
            .filter_map(|row| {
                let stamp: String = row.get("next_execution_at");
                let due_at = time(Some(stamp.clone()))?;
                Some(DueTask {
                    record: Self::task_from(row),
                    due_at,
                    stamp,
                })
            })
            .collect())
    }

    /// The earliest time a task falls due after `now`, so the scheduler can wake up for it.
    pub async fn next_due_after(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, TaskStoreError> {
        let (next,): (Option<String>,) = sqlx::query_as(
            "SELECT MIN(next_execution_at) FROM tasks
             WHERE next_execution_at IS NOT NULL AND next_execution_at > ? AND enabled = 1
                   AND status IN ('pending', 'active')",
        )
        .bind(stamp_at(now))
        .fetch_one(self.store.pool())
        .await?;
        Ok(time(next))
    }

    /// How many runs are working right now (`processing`; a run waiting for an answer isn't).
    pub async fn working_runs(&self) -> Result<u32, TaskStoreError> {
        let (count,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM task_runs WHERE status = 'processing'")
                .fetch_one(self.store.pool())
                .await?;
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    /// Whether the task has a run that still works or waits for an answer.
    pub async fn has_live_run(&self, task_id: &str) -> Result<bool, TaskStoreError> {
        let found: Option<(i64,)> = sqlx::query_as(
            "SELECT 1 FROM task_runs WHERE task_id = ? AND status IN ('processing', 'waiting_for_user')
             LIMIT 1",
        )
        .bind(task_id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(found.is_some())
    }

    /// Claims a due task and creates its run in one transaction: the task moves to
    /// `processing` with its next time (`next`, or none) only while it still holds the due time
    /// read and fewer than `max_working` runs work, and the run row is written with it. So a
    /// task is started once however many schedulers tick, and a crash can't leave a task
    /// claimed without its run (a `processing` run is resumed at the next start).
    pub async fn claim_to_run(
        &self,
        due: &DueTask,
        next: Option<DateTime<Utc>>,
        run: &RunRecord,
        max_working: u32,
    ) -> Result<Claim, TaskStoreError> {
        let now = run.run.created_at;
        let mut tx = self.store.begin_write().await?;
        // The write comes first, so the transaction takes SQLite's write lock at once (waiting
        // under the busy timeout) instead of failing on an upgrade from a read.
        let claimed = sqlx::query(
            "UPDATE tasks SET next_execution_at = ?, status = 'processing', last_execution_at = ?,
                              error = NULL, updated_at = ?
             WHERE id = ? AND next_execution_at = ? AND enabled = 1 AND status IN ('pending', 'active')
                   AND (SELECT COUNT(*) FROM task_runs WHERE status = 'processing') < ?",
        )
        .bind(stamp(next))
        .bind(stamp_at(now))
        .bind(stamp_at(now))
        .bind(&due.record.task.task_id)
        .bind(&due.stamp)
        .bind(i64::from(max_working))
        .execute(&mut *tx)
        .await?;
        if claimed.rows_affected() == 0 {
            tx.rollback().await?;
            let (still_due,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM tasks WHERE id = ? AND next_execution_at = ? AND enabled = 1
                 AND status IN ('pending', 'active')",
            )
            .bind(&due.record.task.task_id)
            .bind(&due.stamp)
            .fetch_one(self.store.pool())
            .await?;
            return Ok(if still_due == 1 {
                Claim::NoSlot
            } else {
                Claim::Gone
            });
        }
        upsert_run(run).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(Claim::Claimed)
    }

    /// Claims a due task without running it: a recurring task moves to `next`, a one-off one
    /// ends as `status` with `error`. Only while it still holds the due time read.
    pub async fn claim_to_skip(
        &self,
        due: &DueTask,
        next: Option<DateTime<Utc>>,
        status: TaskStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, TaskStoreError> {
        let done = sqlx::query(
            "UPDATE tasks SET next_execution_at = ?, status = ?, error = COALESCE(?, error), updated_at = ?
             WHERE id = ? AND next_execution_at = ? AND enabled = 1 AND status IN ('pending', 'active')",
        )
        .bind(stamp(next))
        .bind(status.as_str())
        .bind(error)
        .bind(stamp_at(now))
        .bind(&due.record.task.task_id)
        .bind(&due.stamp)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }
    /// Claims a due script job for a check (no run row: a check is not a run): it moves to
    /// `next` and shows `processing`. Only while it still holds the due time read.
    pub async fn claim_to_check(
        &self,
        due: &DueTask,
        next: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<bool, TaskStoreError> {
        let done = sqlx::query(
            "UPDATE tasks SET next_execution_at = ?, status = 'processing', last_execution_at = ?,
                              error = NULL, updated_at = ?
             WHERE id = ? AND next_execution_at = ? AND enabled = 1 AND status IN ('pending', 'active')",
        )
        .bind(stamp(next))
        .bind(stamp_at(now))
        .bind(stamp_at(now))
        .bind(&due.record.task.task_id)
        .bind(&due.stamp)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Script jobs left `processing` by a check a restart interrupted (no run of theirs is
    /// live) go back: repeating and triggered ones to `active`, a one-off one to `pending`,
    /// due now, so its check runs again. Returns their ids.
    pub async fn settle_interrupted_checks(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, TaskStoreError> {
        let ids: Vec<(String,)> = sqlx::query_as(
            "UPDATE tasks SET
                 status = CASE WHEN json_extract(schedule, '$.type') IN ('recurring', 'triggered')
                               THEN 'active' ELSE 'pending' END,
                 next_execution_at = CASE WHEN json_extract(schedule, '$.type') IN ('recurring', 'triggered')
                               THEN next_execution_at ELSE COALESCE(next_execution_at, ?) END,
                 updated_at = ?
             WHERE task_type = 'script' AND status = 'processing'
               AND NOT EXISTS (SELECT 1 FROM task_runs r WHERE r.task_id = tasks.id
                               AND r.status IN ('processing', 'waiting_for_user'))
             RETURNING id",
        )
        .bind(stamp_at(now))
        .bind(stamp_at(now))
        .fetch_all(self.store.pool())
        .await?;
        Ok(ids.into_iter().map(|(id,)| id).collect())
    }
}

/// Notes between runs, as the task and run rows keep them: the version every edit or Clear by
/// the person bumps, the version a run started from, and the notes a run saved but has not
/// committed yet.
#[derive(Debug, Clone, Copy)]
pub struct TaskNotes<'a>(&'a TaskStore);

impl TaskNotes<'_> {
    /// The version of a task's notes: every edit or Clear by the person bumps it.
    pub async fn notepad_version(&self, task_id: &str) -> Result<i64, TaskStoreError> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT notepad_version FROM tasks WHERE id = ?")
            .bind(task_id)
            .fetch_optional(self.0.store.pool())
            .await?;
        row.map(|r| r.0)
            .ok_or_else(|| TaskStoreError::NoTask(task_id.to_owned()))
    }

    /// Records an edit or Clear by the person (and, with `forget`, that runs finished before
    /// `now` are no longer remembered).
    pub async fn bump_notepad_version(
        &self,
        task_id: &str,
        forget: Option<DateTime<Utc>>,
    ) -> Result<(), TaskStoreError> {
        sqlx::query(
            "UPDATE tasks SET notepad_version = notepad_version + 1, forget_before = COALESCE(?, forget_before)
             WHERE id = ?",
        )
        .bind(stamp(forget))
        .bind(task_id)
        .execute(self.0.store.pool())
        .await?;
        Ok(())
    }

    pub async fn forget_before(
        &self,
        task_id: &str,
    ) -> Result<Option<DateTime<Utc>>, TaskStoreError> {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT forget_before FROM tasks WHERE id = ?")
                .bind(task_id)
                .fetch_optional(self.0.store.pool())
                .await?;
        Ok(row.and_then(|r| time(r.0)))
    }

    /// The notes version a run started with.
    pub async fn run_notepad_version(&self, run_id: &str) -> Result<i64, TaskStoreError> {
        let row: Option<(i64,)> =
            sqlx::query_as("SELECT notepad_version FROM task_runs WHERE id = ?")
                .bind(run_id)
                .fetch_optional(self.0.store.pool())
                .await?;
        row.map(|r| r.0)
            .ok_or_else(|| TaskStoreError::NoRun(run_id.to_owned()))
    }

    pub async fn pending_notepad(&self, run_id: &str) -> Result<Option<String>, TaskStoreError> {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT pending_notepad FROM task_runs WHERE id = ?")
                .bind(run_id)
                .fetch_optional(self.0.store.pool())
                .await?;
        Ok(row.and_then(|r| r.0))
    }

    pub async fn set_pending_notepad(
        &self,
        run_id: &str,
        text: Option<&str>,
    ) -> Result<(), TaskStoreError> {
        sqlx::query("UPDATE task_runs SET pending_notepad = ? WHERE id = ?")
            .bind(text)
            .bind(run_id)
            .execute(self.0.store.pool())
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PlanStep;

    async fn store_with_a_task() -> (tempfile::TempDir, TaskStore, TaskRecord) {
        let dir = tempfile::tempdir().expect("temp folder");
        let clock: sentient_core::clock::SharedClock =
            std::sync::Arc::new(sentient_core::clock::SystemClock);
        let store = Store::open(&dir.path().join("sentient.db"), clock)
            .await
            .expect("store");
        let tasks = TaskStore::new(store);
        let task = crate::task_row::new_task_row(
            "Water the plants".to_owned(),
            "water the plants every morning".to_owned(),
            TaskStatus::Planning,
            Utc::now(),
        );
        let record = TaskRecord {
            task,
            prompt: "water the plants every morning".to_owned(),
        };
        tasks.insert(&record).await.expect("inserted");
        (dir, tasks, record)
    }

    #[tokio::test]
    async fn planning_outcome_written_after_a_persons_change_is_dropped() {
        let (_dir, tasks, record) = store_with_a_task().await;
        let id = record.task.task_id.clone();
        // Planning starts from the new task's generation; the person then sets a plan and
        // approves it (two changes), while the planner still works.
        let started = FIRST_GENERATION;
        let mut person = record.clone();
        person.task.plan = vec![PlanStep {
            tool: "none".to_owned(),
            description: "Water them".to_owned(),
        }];
        person.task.status = TaskStatus::ApprovalPending;
        assert_eq!(
            tasks.save_as(&person, TaskWrite::Person).await.ok(),
            Some(Some(started + 1))
        );
        person.task.status = TaskStatus::Active;
        assert_eq!(
            tasks.save_as(&person, TaskWrite::Person).await.ok(),
            Some(Some(started + 2))
        );
        // The planner's late outcome (a failure here) is not written.
        let mut late = record.clone();
        late.task.status = TaskStatus::Error;
        late.task.error = Some("Ollama isn't answering.".to_owned());
        assert_eq!(
            tasks.save_as(&late, TaskWrite::Since(started)).await.ok(),
            Some(None)
        );
        let now = tasks.task(&id).await.expect("task").task;
        assert_eq!(now.status, TaskStatus::Active);
        assert_eq!(now.error, None);
        assert_eq!(now.plan, person.task.plan);
        // Work that belongs to the task as it is neither waits for nor moves the generation.
        assert_eq!(
            tasks.save_as(&person, TaskWrite::Background).await.ok(),
            Some(Some(started + 2))
        );
        // Planning that starts from the current generation writes.
        assert_eq!(
            tasks
                .save_as(&person, TaskWrite::Since(started + 2))
                .await
                .ok(),
            Some(Some(started + 2))
        );
        assert_eq!(tasks.planning_generation(&id).await.ok(), Some(None));
    }

    #[tokio::test]
    async fn a_deleted_task_takes_no_planning_outcome() {
        let (_dir, tasks, record) = store_with_a_task().await;
        assert_eq!(
            tasks.planning_generation(&record.task.task_id).await.ok(),
            Some(Some(FIRST_GENERATION))
        );
        tasks.delete(&record.task.task_id).await.expect("deleted");
        assert_eq!(
            tasks
                .save_as(&record, TaskWrite::Since(FIRST_GENERATION))
                .await
                .ok(),
            Some(None)
        );
        assert!(matches!(
            tasks.save(&record).await,
            Err(TaskStoreError::NoTask(_))
        ));
    }
}
