//! The database a fresh home starts with: core's build script applies every migration to an
//! empty database and embeds it here, compressed. A first start writes it out (a third of a
//! megabyte) instead of running the migrations, whose `ALTER TABLE`s each re-read the whole
//! schema. sqlx's own bookkeeping is then filled in from the embedded migrations (`skip`), so
//! the result is the database the migrations would have made; a test compares the two.

use std::path::Path;

use sqlx::SqliteConnection;

static TEMPLATE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/fresh.db.deflate"));

/// Writes the template as `path` when no database is there yet; says whether it did. The file
/// appears whole or not at all, and never replaces one that appeared meanwhile.
pub(super) fn write_if_missing(path: &Path) -> std::io::Result<bool> {
    if path.try_exists()? {
        return Ok(false);
    }
    let bytes = miniz_oxide::inflate::decompress_to_vec(TEMPLATE)
        .map_err(|e| std::io::Error::other(format!("the built-in database is damaged: {e}")))?;
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(false);
    };
    let name = name.to_string_lossy().into_owned();
    match crate::home::write_new_atomically(dir, [name], &bytes) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// The last migration a database made from the template holds but sqlx has not recorded yet:
/// the template's `user_version`, while sqlx's table is missing. `None` for every other
/// database (one the migrations made, or an empty file). Read on every open, so a start that
/// crashed between writing the template and recording it finishes the job the next time.
pub(super) async fn unrecorded(conn: &mut SqliteConnection) -> Result<Option<i64>, sqlx::Error> {
    let recorded: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(&mut *conn)
    .await?;
    if recorded {
        return Ok(None);
    }
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&mut *conn)
        .await?;
    Ok((version > 0).then_some(version))
}
