//! Files a person attaches to chats (uploads and screen captures) and files the assistant
//! writes (outputs), all under the home's `files/` folder. Names are what the API shows:
//! `report.pdf` for an upload, `screens/<name>` and `outputs/<name>` for the others.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, FieldError};
use crate::home::Home;

/// A stored file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FileInfo {
    pub name: String,
    /// Bytes.
    pub size: f64,
    pub mime: String,
    pub modified_at: DateTime<Utc>,
}

/// Where an upload comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UploadSource {
    #[default]
    Upload,
    Screen,
}

impl UploadSource {
    /// The `source` a door was sent (missing or blank is an upload).
    pub fn parse(raw: Option<&str>) -> Result<Self, FilesError> {
        match raw.map(str::trim) {
            None | Some("" | "upload") => Ok(Self::Upload),
            Some("screen") => Ok(Self::Screen),
            Some(_) => Err(FilesError::BadSource),
        }
    }
}

/// The largest upload accepted.
pub const MAX_UPLOAD_BYTES: usize = 50 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("There is no file called {0}.")]
    NotFound(String),
    #[error("{0} is not a file name Sentient can use. Use a plain name such as report.pdf.")]
    BadName(String),
    #[error("source is upload or screen.")]
    BadSource,
    /// Over [`MAX_UPLOAD_BYTES`]; the HTTP door also answers this when its body limit stops
    /// the upload before it is read whole.
    #[error("The file is too large. Files can be at most 50 MB.")]
    TooLarge,
    #[error("the file could not be saved or read: {0}")]
    Io(#[from] std::io::Error),
}

impl From<FilesError> for ApiError {
    fn from(err: FilesError) -> Self {
        match err {
            FilesError::NotFound(_) => ApiError::not_found(err.to_string()),
            FilesError::BadName(_) => ApiError::validation(vec![FieldError::new(
                &["body", "file"],
                err.to_string(),
                "value_error",
            )]),
            FilesError::BadSource => ApiError::validation(vec![FieldError::new(
                &["body", "source"],
                err.to_string(),
                "value_error",
            )]),
            FilesError::TooLarge => ApiError::new(413, err.to_string()),
            FilesError::Io(e) => ApiError::internal(&e),
        }
    }
}

/// The files of one home; cheap to clone.
#[derive(Debug, Clone)]
pub struct Files {
    home: Home,
}

/// Keeps only the last part of a name and refuses anything that could leave the folder.
fn plain_name(raw: &str) -> Result<String, FilesError> {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    if last.is_empty()
        || last == "."
        || last == ".."
        || last.starts_with('.')
        || last.chars().any(char::is_control)
    {
        return Err(FilesError::BadName(raw.to_owned()));
    }
    Ok(last.to_owned())
}

/// Longest name kept, in bytes: room for " (123)" within the 255 bytes file systems allow.
const MAX_NAME_BYTES: usize = 200;
/// The longest ending still treated as an extension when a name is cut.
const MAX_EXTENSION_BYTES: usize = 16;

/// `report.pdf` split into `report` and `.pdf`; a name without a dot (or only a leading one) has
/// no extension.
fn stem_and_extension(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(dot) if dot > 0 => name.split_at(dot),
        _ => (name, ""),
    }
}

/// A name cut to [`MAX_NAME_BYTES`] at a character boundary, keeping a short extension.
fn cut_to_safe_length(name: &str) -> String {
    if name.len() <= MAX_NAME_BYTES {
        return name.to_owned();
    }
    let (stem, ext) = stem_and_extension(name);
    let ext = if ext.len() <= MAX_EXTENSION_BYTES {
        ext
    } else {
        ""
    };
    let mut end = MAX_NAME_BYTES - ext.len();
    let stem = if ext.is_empty() { name } else { stem };
    while !stem.is_char_boundary(end.min(stem.len())) {
        end -= 1;
    }
    format!("{}{ext}", &stem[..end.min(stem.len())])
}

/// `report.pdf`, then `report (1).pdf`, `report (2).pdf`, ...: the names an upload may take.
fn candidate_names(name: &str) -> impl Iterator<Item = String> + '_ {
    let (stem, ext) = stem_and_extension(name);
    std::iter::once(name.to_owned()).chain((1..10_000).map(move |n| format!("{stem} ({n}){ext}")))
}

impl Files {
    pub fn new(home: Home) -> Self {
        Self { home }
    }

    /// The folder and file name an API name points at.
    fn locate(&self, name: &str) -> Result<(PathBuf, String), FilesError> {
        let (dir, rest) = match name.split_once('/') {
            Some(("screens", rest)) => (self.home.screens(), rest),
            // The assistant's tools save in folders of their own (outputs/charts/...).
            Some(("outputs", rest)) => {
                let mut dir = self.home.outputs();
                let mut parts: Vec<&str> = rest.split('/').collect();
                let file = parts.pop().unwrap_or_default();
                for folder in parts {
                    if plain_name(folder).ok().as_deref() != Some(folder) {
                        return Err(FilesError::BadName(name.to_owned()));
                    }
                    dir.push(folder);
                }
                (dir, file)
            }
            Some(_) => return Err(FilesError::BadName(name.to_owned())),
            None => (self.home.uploads(), name),
        };
        let plain = plain_name(rest)?;
        if plain != rest {
            return Err(FilesError::BadName(name.to_owned()));
        }
        Ok((dir, plain))
    }

    /// Saves an upload under a free name and says what it is called.
    pub async fn save(
        &self,
        raw_name: &str,
        bytes: &[u8],
        source: UploadSource,
    ) -> Result<FileInfo, FilesError> {
        if bytes.len() > MAX_UPLOAD_BYTES {
            return Err(FilesError::TooLarge);
        }
        let name = cut_to_safe_length(&plain_name(raw_name)?);
        let (dir, prefix) = match source {
            UploadSource::Upload => (self.home.uploads(), ""),
            UploadSource::Screen => (self.home.screens(), "screens/"),
        };
        tokio::fs::create_dir_all(&dir).await?;
        let bytes = bytes.to_vec();
        let name = tokio::task::spawn_blocking(move || {
            crate::home::write_new_atomically(&dir, candidate_names(&name), &bytes)
        })
        .await
        .map_err(std::io::Error::other)??;
        self.info(&format!("{prefix}{name}")).await
    }

    pub async fn info(&self, name: &str) -> Result<FileInfo, FilesError> {
        let (dir, file) = self.locate(name)?;
        let meta = tokio::fs::metadata(dir.join(&file))
            .await
            .map_err(|_| FilesError::NotFound(name.to_owned()))?;
        if !meta.is_file() {
            return Err(FilesError::NotFound(name.to_owned()));
        }
        #[allow(clippy::cast_precision_loss)]
        let size = meta.len() as f64;
        Ok(FileInfo {
            name: name.to_owned(),
            size,
            mime: mime_guess::from_path(&file)
                .first_or_octet_stream()
                .essence_str()
                .to_owned(),
            modified_at: meta
                .modified()
                .map(DateTime::<Utc>::from)
                .unwrap_or_default(),
        })
    }

    /// Every upload, screen capture and output (with the outputs' own folders), newest first.
    pub async fn list(&self) -> Result<Vec<FileInfo>, FilesError> {
        let mut out = Vec::new();
        let mut folders = vec![
            (self.home.uploads(), String::new()),
            (self.home.screens(), "screens/".to_owned()),
            (self.home.outputs(), "outputs/".to_owned()),
        ];
        while let Some((dir, prefix)) = folders.pop() {
            let Ok(mut entries) = tokio::fs::read_dir(&dir).await else {
                continue;
            };
            while let Some(entry) = entries.next_entry().await? {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                if prefix.starts_with("outputs/") && entry.file_type().await?.is_dir() {
                    folders.push((entry.path(), format!("{prefix}{name}/")));
                } else if let Ok(info) = self.info(&format!("{prefix}{name}")).await {
                    out.push(info);
                }
            }
        }
        out.sort_by(|a, b| {
            b.modified_at
                .cmp(&a.modified_at)
                .then_with(|| a.name.cmp(&b.name))
        });
        Ok(out)
    }

    /// The bytes and the type of a file.
    pub async fn read(&self, name: &str) -> Result<(Vec<u8>, String), FilesError> {
        let info = self.info(name).await?;
        let (dir, file) = self.locate(name)?;
        Ok((tokio::fs::read(dir.join(file)).await?, info.mime))
    }

    pub async fn delete(&self, name: &str) -> Result<(), FilesError> {
        self.info(name).await?;
        let (dir, file) = self.locate(name)?;
        tokio::fs::remove_file(dir.join(file)).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> (tempfile::TempDir, Files) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        home.ensure_layout().expect("layout");
        (dir, Files::new(home))
    }

    #[tokio::test]
    async fn taken_names_get_numbers_and_screens_get_their_prefix() {
        let (_dir, f) = files();
        assert_eq!(
            f.save("report.pdf", b"1", UploadSource::Upload)
                .await
                .expect("one")
                .name,
            "report.pdf"
        );
        assert_eq!(
            f.save("report.pdf", b"2", UploadSource::Upload)
                .await
                .expect("two")
                .name,
            "report (1).pdf"
        );
        assert_eq!(
            f.save("C:\\Users\\me\\report.pdf", b"3", UploadSource::Upload)
                .await
                .expect("three")
                .name,
            "report (2).pdf"
        );
        let shot = f
            .save("Inbox - Mail.png", b"png", UploadSource::Screen)
            .await
            .expect("screen");
        assert_eq!(shot.name, "screens/Inbox - Mail.png");
        assert_eq!(shot.mime, "image/png");
        let (bytes, mime) = f.read("report (1).pdf").await.expect("read");
        assert_eq!(
            (bytes.as_slice(), mime.as_str()),
            (b"2".as_slice(), "application/pdf")
        );
        assert_eq!(f.list().await.expect("list").len(), 4);
    }

    #[tokio::test]
    async fn an_upload_over_the_limit_or_with_an_unknown_source_is_refused_and_nothing_saved() {
        let (_dir, f) = files();
        let big = vec![0_u8; MAX_UPLOAD_BYTES + 1];
        let refused = f.save("big.bin", &big, UploadSource::Upload).await;
        assert!(matches!(refused, Err(FilesError::TooLarge)), "{refused:?}");
        assert_eq!(ApiError::from(FilesError::TooLarge).status, 413);
        assert!(f.list().await.expect("list").is_empty());

        assert_eq!(
            UploadSource::parse(None).expect("none"),
            UploadSource::Upload
        );
        assert_eq!(
            UploadSource::parse(Some(" ")).expect("blank"),
            UploadSource::Upload
        );
        assert_eq!(
            UploadSource::parse(Some("screen")).expect("screen"),
            UploadSource::Screen
        );
        let bad = UploadSource::parse(Some("camera")).expect_err("camera");
        let api = ApiError::from(bad);
        assert_eq!(api.status, 422);
        assert!(
            format!("{api:?}").contains("source is upload or screen."),
            "{api:?}"
        );
    }

    #[tokio::test]
    async fn long_names_are_cut_keeping_the_extension() {
        let (_dir, f) = files();
        let long = format!("{}.pdf", "é".repeat(150));
        let saved = f
            .save(&long, b"1", UploadSource::Upload)
            .await
            .expect("saved");
        assert!(saved.name.len() <= MAX_NAME_BYTES, "{}", saved.name.len());
        assert!(saved.name.ends_with(".pdf"), "{}", saved.name);
        let again = f
            .save(&long, b"2", UploadSource::Upload)
            .await
            .expect("saved");
        assert!(again.name.ends_with(" (1).pdf"), "{}", again.name);
        let no_extension = "x".repeat(300);
        let saved = f
            .save(&no_extension, b"3", UploadSource::Upload)
            .await
            .expect("saved");
        assert_eq!(saved.name, "x".repeat(MAX_NAME_BYTES));
    }

    #[tokio::test]
    async fn names_cannot_leave_the_files_folder() {
        let (_dir, f) = files();
        for bad in [
            "../config.yaml",
            "screens/../../sentient.db",
            "workspace/USER.md",
            ".hidden",
            "",
        ] {
            assert!(f.read(bad).await.is_err(), "{bad}");
            assert!(f.delete(bad).await.is_err(), "{bad}");
        }
        assert!(matches!(
            f.save("..", b"x", UploadSource::Upload).await,
            Err(FilesError::BadName(_))
        ));
        assert!(matches!(
            f.delete("missing.txt").await,
            Err(FilesError::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn outputs_keep_their_folders_and_stay_inside() {
        let (dir, f) = files();
        let charts = dir.path().join("files/outputs/charts");
        std::fs::create_dir_all(&charts).expect("folder");
        std::fs::write(charts.join("sales.png"), b"png").expect("write");
        let (bytes, mime) = f.read("outputs/charts/sales.png").await.expect("read");
        assert_eq!(
            (bytes.as_slice(), mime.as_str()),
            (&b"png"[..], "image/png")
        );
        let listed: Vec<String> = f
            .list()
            .await
            .expect("list")
            .into_iter()
            .map(|i| i.name)
            .collect();
        assert!(
            listed.contains(&"outputs/charts/sales.png".to_owned()),
            "{listed:?}"
        );
        for bad in [
            "outputs/../sentient.db",
            "outputs/charts/../../config.yaml",
            "outputs/.git/config",
            "outputs/charts/",
            "screens/charts/sales.png",
        ] {
            assert!(f.read(bad).await.is_err(), "{bad}");
        }
    }
}
