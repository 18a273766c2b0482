//! Files the browser downloads (contract section 12): each is saved under `downloads/` in
//! Sentient's Files folder with a name no other save takes, and reported on the next browser
//! result: `downloads` (saved, as paths in Files), `downloads_in_progress` (file names) and
//! `download_errors` (sentences). A save may take 120 s at most; then the browser is asked to
//! cancel it. This ledger knows nothing of CDP: the open session feeds it the browser's events.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Notify;

/// How long one save may take before the browser is asked to cancel it.
pub const SAVE_LIMIT: Duration = Duration::from_secs(120);
/// How long the browser gets to confirm a cancel.
pub const CANCEL_LIMIT: Duration = Duration::from_secs(5);
/// How long a saved download nobody reported is kept in the ledger.
pub const UNREPORTED_KEPT: Duration = Duration::from_secs(5 * 60);

/// The downloads the browser started, shared by every session of the service.
#[derive(Clone)]
pub struct Downloads {
    ledger: Arc<Mutex<Ledger>>,
    /// Woken when a download begins or ends.
    changed: Arc<Notify>,
    /// `files/downloads`.
    folder: PathBuf,
    /// Only one save picks its name at a time.
    naming: Arc<Mutex<()>>,
    limit: Arc<Mutex<Duration>>,
}

#[derive(Default)]
struct Ledger {
    /// By the browser's id for the download: the name it suggested.
    active: HashMap<String, String>,
    /// Saved and not reported yet: the path in Files and when it was saved.
    saved: Vec<(String, Instant)>,
    errors: Vec<String>,
    /// How many downloads ever began, so an action can tell whether one of its own did.
    begun: u64,
    /// Browser calls running now: the ledger is not swept under them.
    busy: usize,
}

/// What a browser result adds about downloads; empty lists are left out.
#[derive(Debug, Default, PartialEq)]
pub struct Report {
    pub downloads: Vec<String>,
    pub in_progress: Vec<String>,
    pub errors: Vec<String>,
}

impl Report {
    /// Adds the non-empty lists to a result object.
    pub fn add_to(self, result: &mut Value) {
        let Some(object) = result.as_object_mut() else {
            return;
        };
        if !self.downloads.is_empty() {
            object.insert("downloads".into(), json!(self.downloads));
        }
        if !self.in_progress.is_empty() {
            object.insert("downloads_in_progress".into(), json!(self.in_progress));
        }
        if !self.errors.is_empty() {
            object.insert("download_errors".into(), json!(self.errors));
        }
    }
}

/// A browser call in flight; the ledger is not swept while one runs.
pub struct Busy(Downloads);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.with(|l| l.busy = l.busy.saturating_sub(1));
    }
}

impl Downloads {
    /// Saves go into `folder` (`files/downloads`).
    pub fn new(folder: PathBuf) -> Self {
        Self {
            ledger: Arc::new(Mutex::new(Ledger::default())),
            changed: Arc::new(Notify::new()),
            folder,
            naming: Arc::new(Mutex::new(())),
            limit: Arc::new(Mutex::new(SAVE_LIMIT)),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Ledger) -> T) -> T {
        let mut ledger = self.ledger.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut ledger)
    }

    /// How long one save may take (120 s; tests shorten it).
    pub fn limit(&self) -> Duration {
        *self.limit.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set_limit(&self, limit: Duration) {
        *self.limit.lock().unwrap_or_else(|p| p.into_inner()) = limit;
    }

    /// Marks a browser call as running until the returned guard drops.
    pub fn busy(&self) -> Busy {
        self.with(|l| l.busy += 1);
        Busy(self.clone())
    }

    /// How many downloads have begun so far.
    pub fn begun(&self) -> u64 {
        self.with(|l| l.begun)
    }

    pub fn is_active(&self, id: &str) -> bool {
        self.with(|l| l.active.contains_key(id))
    }

    /// The browser began a download with this id and suggested name.
    pub fn began(&self, id: &str, suggested: &str) {
        self.with(|l| {
            l.active.insert(id.to_owned(), suggested.to_owned());
            l.begun += 1;
        });
        self.changed.notify_waiters();
    }

    /// The browser finished a download into `file`: it is moved (or, from a browser the person
    /// runs, copied) into the downloads folder under a free name. `false` when the id isn't
    /// active (it was already given up).
    pub async fn finished(&self, id: &str, file: PathBuf, keep_original: bool) -> bool {
        let Some(suggested) = self.with(|l| l.active.get(id).cloned()) else {
            return false;
        };
        let saved = self.save(&suggested, &file, keep_original).await;
        self.with(|l| {
            l.active.remove(id);
            match saved {
                Ok(path) => l.saved.push((path, Instant::now())),
                Err(sentence) => l.errors.push(sentence),
            }
        });
        self.changed.notify_waiters();
        true
    }

    /// A download ended without a file: `sentence` says why. Ignored when it is not active.
    pub fn failed(&self, id: &str, sentence: impl FnOnce(&str) -> String) {
        let removed = self.with(|l| {
            let name = l.active.remove(id)?;
            l.errors.push(sentence(&name));
            Some(())
        });
        if removed.is_some() {
            self.changed.notify_waiters();
        }
    }

    /// Resolves once a download began after `since`.
    pub async fn wait_for_begin(&self, since: u64) {
        loop {
            let changed = self.changed.notified();
            if self.begun() > since {
                return;
            }
            changed.await;
        }
    }

    /// Waits up to `window` after an action: returns early once a download began after
    /// `since` and every active download has ended; otherwise when the window is over.
    pub async fn settle(&self, since: u64, window: Duration) {
        let deadline = tokio::time::Instant::now() + window;
        loop {
            let changed = self.changed.notified();
            let done = self.with(|l| l.begun > since && l.active.is_empty());
            if done {
                return;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return;
            }
        }
    }

    /// What the next result reports: saved ones and errors are reported once; those still
    /// running are listed by name each time.
    pub fn report(&self) -> Report {
        self.with(|l| {
            let mut in_progress: Vec<String> = l.active.values().cloned().collect();
            in_progress.sort();
            Report {
                downloads: std::mem::take(&mut l.saved)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect(),
                in_progress,
                errors: std::mem::take(&mut l.errors),
            }
        })
    }

    /// Forgets saved downloads no result reported within five minutes (the files stay in
    /// Files), unless a browser call is running and may still report them.
    pub fn sweep(&self) {
        self.with(|l| {
            if l.busy == 0 {
                l.saved.retain(|(_, at)| at.elapsed() < UNREPORTED_KEPT);
            }
        });
    }

    /// Reserves a free name under the naming lock (an empty file holds it), then moves the
    /// file there outside the lock so saves run side by side.
    async fn save(
        &self,
        suggested: &str,
        file: &Path,
        keep_original: bool,
    ) -> Result<String, String> {
        let name = clean_name(suggested);
        let could_not =
            |e: &dyn std::fmt::Display| format!("{name} could not be saved to Files ({e}).");
        std::fs::create_dir_all(&self.folder).map_err(|e| could_not(&e))?;
        let target = {
            let _naming = self.naming.lock().unwrap_or_else(|p| p.into_inner());
            reserve(&self.folder, &name).map_err(|e| could_not(&e))?
        };
        let moved = if keep_original {
            tokio::fs::copy(file, &target).await.map(|_| ())
        } else {
            match tokio::fs::rename(file, &target).await {
                Ok(()) => Ok(()),
                // Another disk: copy, then remove the browser's file.
                Err(_) => match tokio::fs::copy(file, &target).await {
                    Ok(_) => tokio::fs::remove_file(file).await,
                    Err(e) => Err(e),
                },
            }
        };
        if let Err(e) = moved {
            let _ = std::fs::remove_file(&target);
            return Err(could_not(&e));
        }
        let saved = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(name);
        Ok(format!("downloads/{saved}"))
    }
}

/// The browser's suggested name made safe for a folder: no folders, no hidden or empty name.
pub fn clean_name(suggested: &str) -> String {
    let last = suggested.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .map(|c| {
            if c.is_control() || ":*?\"<>|".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim().trim_start_matches('.').trim().to_owned();
    if cleaned.is_empty() {
        "download".to_owned()
    } else {
        cleaned.chars().take(150).collect()
    }
}

/// Creates `name`, or `name (2)`, `name (3)`… before the extension, whichever is free first.
fn reserve(folder: &Path, name: &str) -> std::io::Result<PathBuf> {
    let (stem, extension) = match name.rfind('.') {
        Some(dot) if dot > 0 => (&name[..dot], &name[dot..]),
        _ => (name, ""),
    };
    for n in 1..10_000 {
        let candidate = if n == 1 {
            name.to_owned()
        } else {
            format!("{stem} ({n}){extension}")
        };
        let path = folder.join(candidate);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_their_folders_and_hidden_dots() {
        assert_eq!(clean_name("../../etc/passwd"), "passwd");
        assert_eq!(clean_name("C:\\x\\report.pdf"), "report.pdf");
        assert_eq!(clean_name(".bashrc"), "bashrc");
        assert_eq!(clean_name(""), "download");
        assert_eq!(clean_name("a:b?.txt"), "a_b_.txt");
    }

    #[tokio::test]
    async fn saves_take_free_names_and_are_reported_once() {
        let dir = tempfile::tempdir().expect("test setup");
        let downloads = Downloads::new(dir.path().join("downloads"));
        for (id, body) in [("a", "one"), ("b", "two")] {
            downloads.began(id, "report.pdf");
            let file = dir.path().join(id);
            std::fs::write(&file, body).expect("test setup");
            assert!(downloads.finished(id, file.clone(), false).await);
            assert!(!file.exists(), "moved, not copied");
        }
        let report = downloads.report();
        assert_eq!(
            report.downloads,
            vec!["downloads/report.pdf", "downloads/report (2).pdf"]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("downloads/report (2).pdf"))
                .expect("test setup"),
            "two"
        );
        assert_eq!(downloads.report(), Report::default(), "reported once");
    }

    #[tokio::test]
    async fn running_and_failed_downloads_are_listed() {
        let dir = tempfile::tempdir().expect("test setup");
        let downloads = Downloads::new(dir.path().join("downloads"));
        downloads.began("slow", "big.zip");
        downloads.began("bad", "broken.bin");
        downloads.failed("bad", |name| format!("{name} failed."));
        downloads.failed("bad", |name| format!("{name} failed twice."));
        let mut result = json!({"ok": true});
        downloads.report().add_to(&mut result);
        assert_eq!(result["downloads_in_progress"], json!(["big.zip"]));
        assert_eq!(result["download_errors"], json!(["broken.bin failed."]));
        assert!(result.get("downloads").is_none());
        // A file that vanished before it could be moved is an error, not a result.
        assert!(
            downloads
                .finished("slow", dir.path().join("gone"), false)
                .await
        );
        let report = downloads.report();
        assert!(report.in_progress.is_empty());
        assert!(
            report.errors[0].starts_with("big.zip could not be saved"),
            "{report:?}"
        );
    }

    #[tokio::test]
    async fn settle_returns_once_a_new_download_has_ended() {
        let dir = tempfile::tempdir().expect("test setup");
        let downloads = Downloads::new(dir.path().join("downloads"));
        let since = downloads.begun();
        let waiting = downloads.clone();
        let started = Instant::now();
        let settle =
            tokio::spawn(async move { waiting.settle(since, Duration::from_secs(5)).await });
        downloads.began("x", "x.txt");
        let file = dir.path().join("x");
        std::fs::write(&file, "x").expect("test setup");
        downloads.finished("x", file, false).await;
        settle.await.expect("test setup");
        assert!(started.elapsed() < Duration::from_secs(4));
        // Without a download the whole window passes.
        let started = Instant::now();
        downloads
            .settle(downloads.begun(), Duration::from_millis(200))
            .await;
        assert!(started.elapsed() >= Duration::from_millis(190));
    }

    #[test]
    fn unreported_saves_are_kept_while_a_call_runs() {
        let downloads = Downloads::new(PathBuf::from("/nonexistent"));
        let old = Instant::now()
            .checked_sub(UNREPORTED_KEPT + Duration::from_secs(1))
            .expect("test setup");
        downloads.with(|l| l.saved.push(("downloads/a".into(), old)));
        let busy = downloads.busy();
        downloads.sweep();
        assert_eq!(downloads.with(|l| l.saved.len()), 1);
        drop(busy);
        downloads.sweep();
        assert_eq!(downloads.with(|l| l.saved.len()), 0);
    }
}
