//! The home folder (`~/.sentient`, or `SENTIENT_HOME`, or `--home`) and its on-disk layout.

use std::path::{Path, PathBuf};

/// Files the assistant reads as its own notes; created once, then the user's to edit.
const SOUL_MD: &str = "# Who Sentient is\n\nA friendly, capable personal assistant that runs on this computer. \
It is honest about what it does not know, asks before doing anything that cannot be undone, \
and keeps the user's data on the user's machine.\n";
const USER_MD: &str = "# About the user\n\nNothing yet. Sentient fills this in after onboarding.\n";
const MEMORY_MD: &str = "# Things to remember\n\n";

#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    #[error("Sentient could not find your home folder; set SENTIENT_HOME or pass --home.")]
    NoHomeDir,
    #[error(
        "Sentient could not create or write {path}: {source}. Check the folder's permissions or pick another with --home."
    )]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The resolved home folder with a path for every part of the layout.
#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// `explicit` (from `--home`) wins, then `SENTIENT_HOME`, then `~/.sentient`.
    pub fn resolve(explicit: Option<PathBuf>) -> Result<Self, HomeError> {
        if let Some(root) = explicit {
            return Ok(Self { root });
        }
        if let Some(root) = std::env::var_os("SENTIENT_HOME").filter(|v| !v.is_empty()) {
            return Ok(Self {
                root: PathBuf::from(root),
            });
        }
        let home = dirs::home_dir().ok_or(HomeError::NoHomeDir)?;
        Ok(Self {
            root: home.join(".sentient"),
        })
    }

    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Creates every folder and the starter notes that are missing (never overwriting), makes the
    /// home private (0700, its files 0600), and removes temporary files a crash left behind.
    pub fn ensure_layout(&self) -> Result<(), HomeError> {
        private_by_default();
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| HomeError::Io { path, source }
        };
        for dir in [
            self.root.clone(),
            self.workspace(),
            self.root.join("skills"),
            self.uploads(),
            self.screens(),
            self.outputs(),
            self.root.join("models"),
            self.logs(),
            self.tmp(),
        ] {
            create_private_dir(&dir).map_err(io(&dir))?;
        }
        let tightened = self.tighten().map_err(io(&self.root))?;
        if tightened > 0 {
            tracing::info!(
                home = %self.root.display(),
                tightened,
                "made the home folder private: only you can read it now (folders 0700, files 0600)"
            );
        }
        for (name, text) in [
            ("SOUL.md", SOUL_MD),
            ("USER.md", USER_MD),
            ("MEMORY.md", MEMORY_MD),
        ] {
            let path = self.workspace().join(name);
            if !path.exists() {
                write_atomically(&path, text.as_bytes()).map_err(io(&path))?;
            }
        }
        let removed = self.remove_leftover_temp_files();
        if removed > 0 {
            tracing::info!(removed, "removed temporary files left by an earlier crash");
        }
        Ok(())
    }

    /// Folders Sentient writes its own files in: the ones to make private and to clear of
    /// leftover temporary files. Not the person's uploads one by one: the private home already
    /// keeps others out of them.
    fn own_folders(&self) -> [PathBuf; 7] {
        [
            self.root.clone(),
            self.workspace(),
            self.uploads(),
            self.screens(),
            self.outputs(),
            self.logs(),
            self.root.join("tls"),
        ]
    }

    /// An existing home made private: its own folders 0700 and the files in them 0600.
    /// Says how many it changed.
    fn tighten(&self) -> std::io::Result<usize> {
        let mut changed = 0;
        #[cfg(unix)]
        for dir in self.own_folders() {
            use std::os::unix::fs::PermissionsExt;
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            changed += usize::from(set_mode(&dir, 0o700)?);
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_file() {
                    changed += usize::from(set_mode(&entry.path(), 0o600)?);
                } else if kind.is_dir() && entry.metadata()?.permissions().mode() & 0o077 != 0 {
                    changed += usize::from(set_mode(&entry.path(), 0o700)?);
                }
            }
        }
        Ok(changed)
    }

    /// Removes `.sentient-*.tmp` (and the older `.<name>.<pid>.tmp`) files that a crash left in
    /// Sentient's own folders; says how many.
    pub fn remove_leftover_temp_files(&self) -> usize {
        let mut removed = 0;
        for dir in self.own_folders() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let leftover = name.starts_with('.') && name.ends_with(TEMP_SUFFIX);
                if leftover
                    && entry.file_type().is_ok_and(|k| k.is_file())
                    && std::fs::remove_file(entry.path()).is_ok()
                {
                    removed += 1;
                }
            }
        }
        removed
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn config_file(&self) -> PathBuf {
        self.root.join("config.yaml")
    }
    pub fn database(&self) -> PathBuf {
        self.root.join("sentient.db")
    }
    pub fn workspace(&self) -> PathBuf {
        self.root.join("workspace")
    }
    pub fn user_md(&self) -> PathBuf {
        self.workspace().join("USER.md")
    }
    pub fn uploads(&self) -> PathBuf {
        self.root.join("files").join("uploads")
    }
    /// Screen captures the window attaches to a chat.
    pub fn screens(&self) -> PathBuf {
        self.root.join("files").join("screens")
    }
    pub fn outputs(&self) -> PathBuf {
        self.root.join("files").join("outputs")
    }
    /// The private key file, used only where there is no keychain and the person chose it.
    pub fn secrets_file(&self) -> PathBuf {
        self.root.join(crate::secret_file::FILE_NAME)
    }
    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }
    pub fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }
}

/// The name every temporary file Sentient writes starts and ends with, so that what a crash
/// leaves behind can be found and removed at the next start.
const TEMP_PREFIX: &str = ".sentient-";
const TEMP_SUFFIX: &str = ".tmp";

/// A new temporary file beside `dir`'s files: a unique short name (so two writers never share
/// one and a long target name cannot make it too long), readable only by the owner.
fn temp_file_in(dir: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    use std::io::Write;
    let mut file = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    Ok(file)
}

/// Writes `bytes` to `path` so that a crash leaves either the old file or the new one, never half.
/// The file is the owner's only (0600 on Unix), as everything in the home is.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    temp_file_in(dir, bytes)?
        .persist(path)
        .map(drop)
        .map_err(|e| e.error)
}

/// Writes `bytes` whole under the first of `names` that is free in `dir`, and says which one.
/// Choosing the name and creating the file are one step (the file appears complete, never
/// replacing another), so parallel writers of the same name each get their own.
pub fn write_new_atomically(
    dir: &Path,
    names: impl IntoIterator<Item = String>,
    bytes: &[u8],
) -> std::io::Result<String> {
    let mut file = temp_file_in(dir, bytes)?;
    for name in names {
        match file.persist_noclobber(dir.join(&name)) {
            Ok(_) => return Ok(name),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => file = e.file,
            Err(e) => return Err(e.error),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "every name is taken",
    ))
}

/// Makes files and folders this process creates the owner's only from the start (umask 077),
/// as an SSH or GPG folder is: the home holds chats, memories and the person's profile.
fn private_by_default() {
    #[cfg(unix)]
    {
        use rustix::fs::Mode;
        rustix::process::umask(Mode::from_raw_mode(0o077));
    }
}

/// Creates `dir` and its parents, each the owner's only.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Sets `path`'s permission bits to `mode` when they differ; says whether it changed them.
#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if current == mode {
        return Ok(false);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_created_and_notes_are_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path().join("h"));
        home.ensure_layout().expect("layout");
        for part in [
            "workspace/SOUL.md",
            "workspace/USER.md",
            "workspace/MEMORY.md",
            "skills",
            "files/uploads",
            "files/outputs",
            "models",
            "logs",
            "tmp",
        ] {
            assert!(home.root().join(part).exists(), "{part} missing");
        }
        std::fs::write(home.user_md(), "mine").expect("write");
        home.ensure_layout().expect("layout again");
        assert_eq!(
            std::fs::read_to_string(home.user_md()).expect("read"),
            "mine"
        );
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.yaml");
        write_atomically(&path, b"a: 1\n").expect("first");
        write_atomically(&path, b"b: 2\n").expect("second");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "b: 2\n");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
        assert_eq!(leftovers.len(), 1, "no temp file is left behind");
        let long = dir.path().join(format!("{}.md", "n".repeat(250)));
        write_atomically(&long, b"x").expect("a 253-byte name still has room for the temp file");
    }

    #[test]
    fn parallel_writers_of_one_name_each_get_their_own() {
        let dir = tempfile::tempdir().expect("tempdir");
        let names = |_| (0..100).map(|n| format!("same-{n}.txt"));
        let chosen: Vec<String> = std::thread::scope(|scope| {
            let writers: Vec<_> = (0..20)
                .map(|i| {
                    let dir = dir.path();
                    scope.spawn(move || {
                        write_new_atomically(dir, names(i), format!("{i}").as_bytes())
                    })
                })
                .collect();
            writers
                .into_iter()
                .map(|w| w.join().expect("thread").expect("written"))
                .collect()
        });
        let distinct: std::collections::BTreeSet<_> = chosen.iter().collect();
        assert_eq!(distinct.len(), 20, "{chosen:?}");
        let on_disk = std::fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(on_disk, 20, "no temporary file is left behind");
        std::fs::write(dir.path().join("only.txt"), "old").expect("write");
        let err = write_new_atomically(dir.path(), ["only.txt".to_owned()], b"new")
            .expect_err("the one name is taken");
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("only.txt")).expect("read"),
            "old",
            "a taken name is never replaced"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_home_is_private_and_crash_leftovers_go_at_start() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("h");
        std::fs::create_dir_all(root.join("workspace")).expect("mkdir");
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::write(root.join("config.yaml"), "a: 1\n").expect("write");
        std::fs::set_permissions(
            root.join("config.yaml"),
            std::fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        std::fs::write(root.join(".config.yaml.4242.tmp"), "half").expect("write");
        std::fs::write(root.join("workspace/.sentient-AbC123.tmp"), "half").expect("write");
        let home = Home::at(&root);
        home.ensure_layout().expect("layout");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o700, "an existing home is tightened");
        assert_eq!(mode(&root.join("config.yaml")), 0o600);
        assert_eq!(mode(&home.user_md()), 0o600, "starter notes are private");
        assert_eq!(mode(&home.logs()), 0o700);
        assert!(!root.join(".config.yaml.4242.tmp").exists());
        assert!(!root.join("workspace/.sentient-AbC123.tmp").exists());
        write_atomically(&root.join("config.yaml"), b"b: 2\n").expect("write");
        assert_eq!(
            mode(&root.join("config.yaml")),
            0o600,
            "rewrites stay private"
        );
    }
}
