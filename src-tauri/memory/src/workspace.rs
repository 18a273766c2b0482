//! The notes files in the home's `workspace/`: SOUL.md (who the assistant is), USER.md (who the
//! user is), MEMORY.md (what it keeps in mind), and the daily notes `memory/<YYYY-MM-DD>.md`.
//! Also the SOUL.md presets (personas).

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use sentient_core::home::write_atomically;

use crate::error::MemoryError;
use crate::model::{PersonaPreset, Workspace};

/// The three files a person edits, by the name routes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotesFile {
    Soul,
    User,
    Memory,
}

impl NotesFile {
    pub fn parse(name: &str) -> Result<Self, MemoryError> {
        match name {
            "soul" => Ok(Self::Soul),
            "user" => Ok(Self::User),
            "memory" => Ok(Self::Memory),
            other => Err(MemoryError::invalid(format!(
                "\"{other}\" is not a notes file: use soul, user or memory."
            ))),
        }
    }

    pub fn file_name(self) -> &'static str {
        match self {
            Self::Soul => "SOUL.md",
            Self::User => "USER.md",
            Self::Memory => "MEMORY.md",
        }
    }
}

/// Most characters a notes file may hold (a prompt takes only the first part anyway).
pub const MAX_NOTES_CHARS: usize = 100_000;

/// The workspace folder and its files.
#[derive(Debug, Clone)]
pub struct Notes {
    dir: PathBuf,
}

fn read(path: &Path) -> Result<String, MemoryError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e.into()),
    }
}

impl Notes {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    pub fn daily_note(&self, date: NaiveDate) -> PathBuf {
        self.dir
            .join("memory")
            .join(format!("{}.md", date.format("%Y-%m-%d")))
    }

    /// Every file in full (not cut to the prompt's budget).
    pub fn read_all(&self, today: NaiveDate) -> Result<Workspace, MemoryError> {
        let yesterday = today.pred_opt().unwrap_or(today);
        Ok(Workspace {
            soul: read(&self.dir.join(NotesFile::Soul.file_name()))?,
            user: read(&self.dir.join(NotesFile::User.file_name()))?,
            memory: read(&self.dir.join(NotesFile::Memory.file_name()))?,
            today: read(&self.daily_note(today))?,
            yesterday: read(&self.daily_note(yesterday))?,
        })
    }

    pub fn save(&self, file: NotesFile, content: &str) -> Result<(), MemoryError> {
        if content.chars().count() > MAX_NOTES_CHARS {
            return Err(MemoryError::invalid(format!(
                "{} can hold at most {MAX_NOTES_CHARS} characters.",
                file.file_name()
            )));
        }
        std::fs::create_dir_all(&self.dir)?;
        write_atomically(&self.dir.join(file.file_name()), content.as_bytes())?;
        Ok(())
    }

    /// Adds a line to the day's note (summaries of past chats write here).
    pub fn append_daily(&self, date: NaiveDate, line: &str) -> Result<(), MemoryError> {
        let path = self.daily_note(date);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut text = read(&path)?;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(line.trim_end());
        text.push('\n');
        write_atomically(&path, text.as_bytes())?;
        Ok(())
    }
}

/// The SOUL.md presets, with the assistant's and the user's names filled in.
pub fn personas(assistant: &str, user: &str) -> Vec<PersonaPreset> {
    let user = if user.trim().is_empty() {
        "the user"
    } else {
        user.trim()
    };
    let preset = |id: &str, name: &str, description: &str, manner: &str| PersonaPreset {
        id: id.to_owned(),
        name: name.to_owned(),
        description: description.to_owned(),
        soul_md: format!(
            "# {assistant}\n\nYou are {assistant}, {user}'s personal assistant.\n\n{manner}\n"
        ),
    };
    vec![
        preset(
            "friendly",
            "Friendly",
            "Warm and conversational.",
            &format!(
                "Be warm and easy to talk to. Use {user}'s name now and then, show interest in what they tell you, and keep a light touch. Be honest when you don't know something."
            ),
        ),
        preset(
            "professional",
            "Professional",
            "Polished and businesslike.",
            "Be polished and precise. Lead with the answer, use complete sentences and a neutral tone, and flag risks and open questions clearly.",
        ),
        preset(
            "concise",
            "Concise",
            "Short, to-the-point answers.",
            "Be brief. Answer in as few words as do the job, use lists for steps, and skip pleasantries unless asked.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_round_trip_and_missing_ones_read_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notes = Notes::new(dir.path().join("workspace"));
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).expect("date");
        assert_eq!(notes.read_all(day).expect("read").soul, "");
        notes.save(NotesFile::Soul, "# Me").expect("save");
        notes
            .append_daily(day, "- talked about Lisbon")
            .expect("append");
        notes
            .append_daily(day.pred_opt().expect("day"), "- earlier")
            .expect("append");
        let all = notes.read_all(day).expect("read");
        assert_eq!(all.soul, "# Me");
        assert_eq!(all.today, "- talked about Lisbon\n");
        assert_eq!(all.yesterday, "- earlier\n");
    }

    #[test]
    fn only_the_three_files_have_names() {
        assert_eq!(
            NotesFile::parse("user").expect("user").file_name(),
            "USER.md"
        );
        assert!(NotesFile::parse("../config").is_err());
    }

    #[test]
    fn personas_name_both_people() {
        let all = personas("Nova", "Ana");
        let ids: Vec<&str> = all.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["friendly", "professional", "concise"]);
        assert!(
            all.iter()
                .all(|p| p.soul_md.contains("Nova") && p.soul_md.contains("Ana"))
        );
    }
}
