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

    /// Creates every folder and the starter notes that are missing; never overwrites.
    pub fn ensure_layout(&self) -> Result<(), HomeError> {
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
            std::fs::create_dir_all(&dir).map_err(|source| HomeError::Io { path: dir, source })?;
        }
        for (name, text) in [
            ("SOUL.md", SOUL_MD),
            ("USER.md", USER_MD),
            ("MEMORY.md", MEMORY_MD),
        ] {
            let path = self.workspace().join(name);
            if !path.exists() {
                std::fs::write(&path, text).map_err(|source| HomeError::Io { path, source })?;
            }
        }
        Ok(())
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
    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }
    pub fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }
}

/// Writes `bytes` to `path` so that a crash leaves either the old file or the new one, never half.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_as(path, bytes, false)
}

/// [`write_atomically`] for secrets (a private key, a device token): on Unix only the owner
/// may read the file, from the moment it exists.
pub fn write_private_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_as(path, bytes, true)
}

fn write_atomically_as(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    {
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)
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
    }
}
