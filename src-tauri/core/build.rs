//! Two jobs at build time:
//! - `sqlx::migrate!` embeds the migrations but cannot tell cargo about the folder, so a new
//!   migration file alone would not rebuild the store: this says so for it.
//! - The fresh-home template: every migration applied once here, to an empty database, which a
//!   first start writes out instead of running them (each `ALTER TABLE` re-reads the whole
//!   schema: running them took three quarters of a first start). `store::fresh` uses it.

use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

const MIGRATIONS: &str = "../../migrations";

fn main() {
    println!("cargo:rerun-if-changed={MIGRATIONS}");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let db = out.join("fresh.db");
    build_template(&db, &migrations());
    let bytes = std::fs::read(&db).expect("read the template back");
    let packed = miniz_oxide::deflate::compress_to_vec(&bytes, 9);
    std::fs::write(out.join("fresh.db.deflate"), packed).expect("write the packed template");
}

/// The migrations in the order sqlx applies them: `<version>_<description>.sql`, by version.
fn migrations() -> Vec<(i64, PathBuf)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(MIGRATIONS).expect("the migrations folder") {
        let path = entry.expect("a migrations entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(stem) = name.strip_suffix(".sql") else {
            continue;
        };
        assert!(
            !stem.ends_with(".up") && !stem.ends_with(".down"),
            "{name}: the fresh-home template knows only one-way migrations"
        );
        let version = stem
            .split_once('_')
            .and_then(|(v, _)| v.parse().ok())
            .unwrap_or_else(|| panic!("{name}: a migration is named <version>_<description>.sql"));
        found.push((version, path));
    }
    found.sort();
    found
}

/// Applies `migrations` to a new database at `path` in one transaction, records the last one's
/// version as `user_version` (what `store::fresh` reads back) and leaves the file in WAL mode,
/// as the engine opens it.
fn build_template(path: &Path, migrations: &[(i64, PathBuf)]) {
    let _ = std::fs::remove_file(path);
    let db = Database::create(path);
    db.exec("BEGIN", "begin");
    for (_, file) in migrations {
        let sql = std::fs::read_to_string(file).expect("read a migration");
        db.exec(&sql, &file.display().to_string());
    }
    let last = migrations.last().map_or(0, |(v, _)| *v);
    db.exec(&format!("PRAGMA user_version = {last}"), "user_version");
    db.exec("COMMIT", "commit");
    db.exec("PRAGMA journal_mode = WAL", "journal_mode");
}

/// The few calls of SQLite's C API the template needs (rusqlite would be a second SQLite
/// binding beside sqlx's, with its own `links` constraint).
struct Database(*mut libsqlite3_sys::sqlite3);

#[allow(unsafe_code)]
impl Database {
    fn create(path: &Path) -> Self {
        let name = CString::new(path.to_str().expect("OUT_DIR is UTF-8")).expect("no NUL");
        let mut handle = std::ptr::null_mut();
        // SAFETY: `name` is a NUL-terminated string that outlives the call; `handle` receives
        // the connection, closed in Drop.
        let code = unsafe {
            libsqlite3_sys::sqlite3_open_v2(
                name.as_ptr(),
                &mut handle,
                libsqlite3_sys::SQLITE_OPEN_READWRITE | libsqlite3_sys::SQLITE_OPEN_CREATE,
                std::ptr::null(),
            )
        };
        assert_eq!(
            code,
            libsqlite3_sys::SQLITE_OK,
            "open the template database"
        );
        Self(handle)
    }

    fn exec(&self, sql: &str, what: &str) {
        let sql = CString::new(sql).expect("SQL without NUL");
        let mut error: *mut std::os::raw::c_char = std::ptr::null_mut();
        // SAFETY: the connection is open; `sql` outlives the call; no callback is passed; a
        // message SQLite allocates is read once and freed with sqlite3_free.
        let code = unsafe {
            libsqlite3_sys::sqlite3_exec(
                self.0,
                sql.as_ptr(),
                None,
                std::ptr::null_mut(),
                &mut error,
            )
        };
        if code != libsqlite3_sys::SQLITE_OK {
            let message = if error.is_null() {
                format!("code {code}")
            } else {
                // SAFETY: SQLite set `error` to a NUL-terminated message it allocated.
                let text = unsafe { CStr::from_ptr(error) }
                    .to_string_lossy()
                    .into_owned();
                unsafe { libsqlite3_sys::sqlite3_free(error.cast()) };
                text
            };
            panic!("{what}: {message}");
        }
    }
}

#[allow(unsafe_code)]
impl Drop for Database {
    fn drop(&mut self) {
        // SAFETY: the handle came from sqlite3_open_v2 and is closed once.
        unsafe { libsqlite3_sys::sqlite3_close(self.0) };
    }
}
