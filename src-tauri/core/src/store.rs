//! The one SQLite database (`sentient.db`): the pool, the migrations from the top-level
//! `migrations/` folder (embedded at compile time), the `meta` key/value table, and sqlite-vec
//! (vector search for memory), loaded into every connection.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::SqlitePool;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::clock::SharedClock;

mod fresh;

static MIGRATOR: Migrator = sqlx::migrate!("../../migrations");

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the database could not be opened: {0}")]
    Open(#[source] sqlx::Error),
    #[error("the database could not be created: {0}")]
    Create(#[source] std::io::Error),
    #[error("the database could not be brought up to date: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("stored value for {key} is not valid: {source}")]
    Decode {
        key: String,
        source: serde_json::Error,
    },
}

/// How much of the database file each connection maps (the file's pages are shared, not
/// copied per connection).
pub const MMAP_BYTES: u64 = 256 * 1024 * 1024;

/// Handle to the database; cheap to clone.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    clock: SharedClock,
    /// sqlite-vec's version when it loaded (`vec_version()`), else `None`: memory then searches
    /// words only and refuses writes.
    vector_extension: Option<String>,
}

/// Set to `off` to start without sqlite-vec (how a build without it behaves; for tests and
/// for telling a broken extension apart from a broken database).
pub const VECTOR_EXTENSION_ENV: &str = "SENTIENT_SQLITE_VEC";

/// Registers sqlite-vec with SQLite once per process, before any connection opens, so every
/// connection of the pool has `vec0` and `vec_version()`.
fn register_vector_extension() {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    REGISTER.call_once(|| {
        if std::env::var(VECTOR_EXTENSION_ENV).is_ok_and(|v| v == "off") {
            return;
        }
        load_sqlite_vec();
    });
}

// The one unsafe block: SQLite's C API takes the extension's entry point as a function pointer.
// `sqlite3_vec_init` is sqlite-vec's statically linked entry point with exactly the signature
// auto-extensions are called with; SQLite calls it for each new connection.
#[allow(unsafe_code)]
fn load_sqlite_vec() {
    type EntryPoint = unsafe extern "C" fn(
        *mut libsqlite3_sys::sqlite3,
        *mut *mut std::os::raw::c_char,
        *const libsqlite3_sys::sqlite3_api_routines,
    ) -> std::os::raw::c_int;
    // SAFETY: see above; the pointer is to a function with the EntryPoint ABI and lives forever.
    let code = unsafe {
        let entry: EntryPoint =
            std::mem::transmute::<*const (), EntryPoint>(sqlite_vec::sqlite3_vec_init as *const ());
        libsqlite3_sys::sqlite3_auto_extension(Some(entry))
    };
    if code != libsqlite3_sys::SQLITE_OK {
        tracing::warn!(
            code,
            "sqlite-vec could not be registered; memory searches words only"
        );
    }
}

/// What `sentient doctor` reports about the database.
#[derive(Debug, Clone, Serialize)]
pub struct StoreHealth {
    pub integrity: String,
    pub applied_migrations: usize,
    pub known_migrations: usize,
}

impl Store {
    /// Opens the database with WAL, foreign keys and a busy timeout, creating it from the
    /// built-in template when missing, then applies every migration not yet applied.
    pub async fn open(path: &Path, clock: SharedClock) -> Result<Self, StoreError> {
        fresh::write_if_missing(path).map_err(StoreError::Create)?;
        let store = Self::connect(path, clock).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Applies the pending migrations in one write transaction (each one a savepoint inside
    /// it), so a fresh home commits once instead of once per migration, and a crash part way
    /// leaves the database as it was.
    async fn migrate(&self) -> Result<(), StoreError> {
        if self.up_to_date().await {
            return Ok(());
        }
        let mut tx = self.begin_write().await?;
        if let Some(last) = fresh::unrecorded(&mut tx).await? {
            // The template holds these already: record them without running them, and clear
            // its mark so the file is the one the migrations would have made.
            MIGRATOR.run_direct(Some(last), &mut *tx, true).await?;
            sqlx::query("PRAGMA user_version = 0")
                .execute(&mut *tx)
                .await?;
        }
        MIGRATOR.run_direct(None, &mut *tx, false).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Whether every known migration is recorded as applied, as built: one read, where finding
    /// that out through sqlx's migrator takes a write transaction (most starts; a few
    /// milliseconds). Anything else (a missing table, a failed or unknown migration, another
    /// checksum) goes through the migrator, which applies or explains.
    async fn up_to_date(&self) -> bool {
        let recorded: Result<Vec<(i64, bool, Vec<u8>)>, _> = sqlx::query_as(
            "SELECT version, success, checksum FROM _sqlx_migrations ORDER BY version",
        )
        .fetch_all(&self.pool)
        .await;
        recorded.is_ok_and(|recorded| {
            recorded.len() == MIGRATOR.iter().count()
                && recorded.iter().zip(MIGRATOR.iter()).all(
                    |((version, success, checksum), known)| {
                        *success && *version == known.version && checksum[..] == known.checksum[..]
                    },
                )
        })
    }

    /// Opens without migrating (for `sentient doctor`, which must only look).
    pub async fn connect(path: &Path, clock: SharedClock) -> Result<Self, StoreError> {
        register_vector_extension();
        let options = SqliteConnectOptions::from_str("sqlite://")
            .map_err(StoreError::Open)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5))
            // Reads come straight from the file's mapping rather than being copied through
            // each connection's small page cache (memory search scans megabytes of vectors).
            .pragma("mmap_size", MMAP_BYTES.to_string());
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await
            .map_err(StoreError::Open)?;
        let vector_extension = sqlx::query_scalar::<_, String>("SELECT vec_version()")
            .fetch_one(&pool)
            .await
            .ok();
        if vector_extension.is_none() {
            tracing::warn!(
                "sqlite-vec is not loaded; memory searches words only and can't be changed"
            );
        }
        Ok(Self {
            pool,
            clock,
            vector_extension,
        })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// sqlite-vec's version, or `None` when it did not load.
    pub fn vector_extension(&self) -> Option<&str> {
        self.vector_extension.as_deref()
    }

    /// Starts a write transaction that takes SQLite's write lock at once. A deferred one that
    /// reads first fails at once (not after the busy timeout) when another write lands before
    /// its own, which two runs ending together would hit.
    pub async fn begin_write(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
        self.pool.begin_with("BEGIN IMMEDIATE").await
    }

    /// Reads a JSON value stored under `key` in `meta`.
    pub async fn meta_get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, StoreError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT value FROM meta WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|(text,)| {
            serde_json::from_str(&text).map_err(|source| StoreError::Decode {
                key: key.to_owned(),
                source,
            })
        })
        .transpose()
    }

    /// Stores `value` as JSON under `key`, replacing what was there.
    pub async fn meta_set<T: Serialize + ?Sized>(
        &self,
        key: &str,
        value: &T,
    ) -> Result<(), StoreError> {
        let text = serde_json::to_string(value).map_err(|source| StoreError::Decode {
            key: key.to_owned(),
            source,
        })?;
        sqlx::query(
            "INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(text)
        .bind(self.clock.now().to_rfc3339())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn meta_delete(&self, key: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM meta WHERE key = ?")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// SQLite's own integrity check plus how many migrations are applied out of those known.
    pub async fn health(&self) -> Result<StoreHealth, StoreError> {
        let (integrity,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&self.pool)
            .await?;
        let has_table: Option<(String,)> = sqlx::query_as(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
        )
        .fetch_optional(&self.pool)
        .await?;
        let applied = if has_table.is_some() {
            let (n,): (i64,) =
                sqlx::query_as("SELECT COUNT(*) FROM _sqlx_migrations WHERE success = 1")
                    .fetch_one(&self.pool)
                    .await?;
            usize::try_from(n).unwrap_or(0)
        } else {
            0
        };
        Ok(StoreHealth {
            integrity,
            applied_migrations: applied,
            known_migrations: MIGRATOR.iter().count(),
        })
    }

    /// Waits for in-flight queries and closes every connection (checkpointing the WAL).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// One query, as the store's helpers take it.
pub type Query<'q> = sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>;

/// Update or delete one row by its id, else not found: runs `query` (on the pool or inside a
/// transaction) and answers `missing()` when it changed no row.
pub async fn change_one<'c, X, E>(
    executor: X,
    query: Query<'_>,
    missing: impl FnOnce() -> E,
) -> Result<(), E>
where
    X: sqlx::Executor<'c, Database = sqlx::Sqlite>,
    E: From<sqlx::Error>,
{
    let done = query.execute(executor).await?;
    if done.rows_affected() == 0 {
        return Err(missing());
    }
    Ok(())
}

/// A new random id for a stored row: 24 hex characters (96 bits).
pub fn new_id() -> String {
    hex::encode(rand::random::<[u8; 12]>())
}

/// Times as stored: RFC 3339 UTC with microseconds, one fixed width, so text order is time order.
pub fn stamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A stored time back; `None` for text that is not one.
pub fn parse_stamp(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

/// Text a person or model typed, made safe to put after FTS5's `MATCH`: every word becomes a quoted
/// phrase (so quotes, `*`, `-`, `AND`, `NEAR(…)` and column filters are plain words), and NUL and
/// other control characters, which end an FTS5 string early, become spaces. Every FTS5 query built
/// from user text goes through here. `None` when nothing searchable is left (answer an empty list).
pub fn fts5_match(text: &str) -> Option<String> {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let phrases: Vec<String> = cleaned
        .split_whitespace()
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect();
    (!phrases.is_empty()).then(|| phrases.join(" "))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::SystemClock;

    #[tokio::test]
    async fn opens_with_wal_and_foreign_keys_and_migrates() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("s.db"), Arc::new(SystemClock))
            .await
            .expect("open");
        let (mode,): (String,) = sqlx::query_as("PRAGMA journal_mode")
            .fetch_one(store.pool())
            .await
            .expect("pragma");
        assert_eq!(mode, "wal");
        let (fk,): (i64,) = sqlx::query_as("PRAGMA foreign_keys")
            .fetch_one(store.pool())
            .await
            .expect("pragma");
        assert_eq!(fk, 1);
        let health = store.health().await.expect("health");
        assert_eq!(health.integrity, "ok");
        assert_eq!(health.applied_migrations, health.known_migrations);
        assert!(health.known_migrations >= 1);
    }

    #[tokio::test]
    async fn a_migration_that_fails_leaves_the_database_as_it_was() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        {
            // A table in the way of the second migration, in an otherwise empty database.
            let store = Store::connect(&path, Arc::new(SystemClock))
                .await
                .expect("connect");
            sqlx::query("CREATE TABLE model_usage (x INTEGER)")
                .execute(store.pool())
                .await
                .expect("create");
            store.close().await;
        }
        let failed = Store::open(&path, Arc::new(SystemClock)).await;
        assert!(matches!(failed, Err(StoreError::Migrate(_))), "{failed:?}");
        let store = Store::connect(&path, Arc::new(SystemClock))
            .await
            .expect("connect");
        let tables: Vec<(String,)> =
            sqlx::query_as("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .fetch_all(store.pool())
                .await
                .expect("tables");
        // Not even the first migration or sqlx's own bookkeeping table stayed.
        assert_eq!(tables, vec![("model_usage".to_owned(),)]);
    }

    #[tokio::test]
    async fn reopening_applies_nothing_twice_and_keeps_the_data() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let store = Store::open(&path, Arc::new(SystemClock))
            .await
            .expect("open");
        store.meta_set("kept", &7).await.expect("set");
        store.close().await;
        let store = Store::open(&path, Arc::new(SystemClock))
            .await
            .expect("reopen");
        assert_eq!(store.meta_get::<i32>("kept").await.expect("get"), Some(7));
        let health = store.health().await.expect("health");
        assert_eq!(health.applied_migrations, health.known_migrations);
    }

    /// Everything that tells two databases' schemas apart, sqlx's bookkeeping included.
    async fn shape(store: &Store) -> Vec<String> {
        let mut shape: Vec<String> = sqlx::query_as::<_, (String, String, String, Option<String>)>(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name",
        )
        .fetch_all(store.pool())
        .await
        .expect("schema")
        .into_iter()
        .map(|row| format!("{row:?}"))
        .collect();
        let recorded: Vec<(i64, String, bool, Vec<u8>)> = sqlx::query_as(
            "SELECT version, description, success, checksum FROM _sqlx_migrations ORDER BY version",
        )
        .fetch_all(store.pool())
        .await
        .expect("migrations");
        shape.extend(recorded.iter().map(|row| format!("{row:?}")));
        let settings: (i64, i64, i64, String, String) = sqlx::query_as(
            "SELECT p.page_size, a.auto_vacuum, u.user_version, e.encoding, j.journal_mode \
             FROM pragma_page_size p, pragma_auto_vacuum a, pragma_user_version u, \
             pragma_encoding e, pragma_journal_mode j",
        )
        .fetch_one(store.pool())
        .await
        .expect("pragmas");
        shape.push(format!("{settings:?}"));
        shape
    }

    #[tokio::test]
    async fn a_fresh_home_gets_the_database_the_migrations_make_without_running_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let from_template = dir.path().join("template.db");
        let by_migrations = dir.path().join("migrations.db");
        // An empty file is an empty database that exists: the migrations run on it.
        std::fs::File::create(&by_migrations).expect("empty file");

        let a = Store::open(&from_template, Arc::new(SystemClock))
            .await
            .expect("open from the template");
        let b = Store::open(&by_migrations, Arc::new(SystemClock))
            .await
            .expect("open by migrations");

        let (a_shape, b_shape) = (shape(&a).await, shape(&b).await);
        assert!(a_shape.len() > MIGRATOR.iter().count() * 2, "{a_shape:?}");
        assert_eq!(a_shape, b_shape);
        // sqlx records a run migration's duration and a skipped one's as -1: the fresh home's
        // were recorded, not run.
        let ran: Vec<(i64,)> =
            sqlx::query_as("SELECT execution_time FROM _sqlx_migrations WHERE execution_time >= 0")
                .fetch_all(a.pool())
                .await
                .expect("times");
        assert!(ran.is_empty(), "{ran:?}");
        let health = a.health().await.expect("health");
        assert_eq!(health.integrity, "ok");
        assert_eq!(health.applied_migrations, health.known_migrations);
    }

    #[tokio::test]
    async fn a_first_start_that_stopped_after_writing_the_template_finishes_the_next_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        assert!(fresh::write_if_missing(&path).expect("write"));
        assert!(!fresh::write_if_missing(&path).expect("written already"));

        let store = Store::open(&path, Arc::new(SystemClock))
            .await
            .expect("open");
        let health = store.health().await.expect("health");
        assert_eq!(health.applied_migrations, health.known_migrations);
        store
            .meta_set("kept", &1)
            .await
            .expect("a table the template made");
        store.close().await;
        // Recorded once: the next open runs and records nothing.
        let store = Store::open(&path, Arc::new(SystemClock))
            .await
            .expect("reopen");
        assert_eq!(store.meta_get::<i32>("kept").await.expect("get"), Some(1));
    }

    #[tokio::test]
    async fn a_migration_recorded_otherwise_than_built_is_not_taken_as_up_to_date() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let store = Store::open(&path, Arc::new(SystemClock))
            .await
            .expect("open");
        assert!(store.up_to_date().await);
        // A migration file edited after it ran: the checksum it ran with differs.
        sqlx::query("UPDATE _sqlx_migrations SET checksum = x'00' WHERE version = 1")
            .execute(store.pool())
            .await
            .expect("change the record");
        assert!(!store.up_to_date().await);
        store.close().await;
        let reopened = Store::open(&path, Arc::new(SystemClock)).await;
        assert!(
            matches!(reopened, Err(StoreError::Migrate(_))),
            "{reopened:?}"
        );
    }

    #[tokio::test]
    async fn meta_round_trip_and_overwrite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("s.db"), Arc::new(SystemClock))
            .await
            .expect("open");
        assert_eq!(store.meta_get::<i32>("missing").await.expect("get"), None);
        store.meta_set("answer", &41).await.expect("set");
        store.meta_set("answer", &42).await.expect("set again");
        assert_eq!(
            store.meta_get::<i32>("answer").await.expect("get"),
            Some(42)
        );
        store.meta_delete("answer").await.expect("delete");
        assert_eq!(store.meta_get::<i32>("answer").await.expect("get"), None);
    }

    #[test]
    fn search_words_are_quoted_so_fts_syntax_cannot_break_the_query() {
        assert_eq!(
            fts5_match("no \"flights\" before 9").as_deref(),
            Some("\"no\" \"\"\"flights\"\"\" \"before\" \"9\"")
        );
        assert_eq!(
            fts5_match(r#"sister's "birthday OR"#).as_deref(),
            Some(r#""sister's" """birthday" "OR""#)
        );
        assert_eq!(fts5_match("   "), None);
    }

    #[tokio::test]
    async fn any_text_is_a_safe_fts5_query() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("s.db"), Arc::new(SystemClock))
            .await
            .expect("open");
        sqlx::query("CREATE VIRTUAL TABLE probe USING fts5(body)")
            .execute(store.pool())
            .await
            .expect("create");
        sqlx::query("INSERT INTO probe(body) VALUES ('weekly report on rust prices')")
            .execute(store.pool())
            .await
            .expect("insert");
        let hostile = [
            "\0",
            "a\0b",
            "\"",
            "\"\"\"",
            "'",
            "*",
            "-",
            "^",
            "rust*",
            "NEAR(a b)",
            "body:rust",
            "AND",
            "OR NOT",
            "(",
            ")",
            "\u{1}\u{7f}",
            "a\"b",
            "{body}: x",
            "\\",
            "🙂",
            "+-+",
        ];
        for text in hostile {
            let Some(query) = fts5_match(text) else {
                continue;
            };
            let result: Result<Vec<(i64,)>, _> =
                sqlx::query_as("SELECT rowid FROM probe WHERE probe MATCH ?")
                    .bind(&query)
                    .fetch_all(store.pool())
                    .await;
            assert!(result.is_ok(), "{text:?} as {query:?}: {result:?}");
        }
        assert_eq!(fts5_match("  \0 \t "), None);
        let hit: Vec<(i64,)> = sqlx::query_as("SELECT rowid FROM probe WHERE probe MATCH ?")
            .bind(fts5_match("Rust\0 report").expect("words"))
            .fetch_all(store.pool())
            .await
            .expect("search");
        assert_eq!(hit.len(), 1, "the words around a NUL still find the row");
    }
}
