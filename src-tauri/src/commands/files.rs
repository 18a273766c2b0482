//! Files from the window: uploads (chat attachments, screen captures) and the list, the same
//! service calls as `/api/files`.

use sentient_engine::Engine;
use sentient_engine::error::ApiError;
use sentient_engine::files::{FileInfo, UploadSource};
use serde::Deserialize;
use tauri::State;

/// One upload: the file's name and bytes, and where it came from (upload or screen).
#[derive(Debug, Deserialize, specta::Type)]
pub struct UploadBody {
    pub name: String,
    pub bytes: Vec<u8>,
    #[serde(default)]
    pub source: Option<String>,
}

/// Saves a file under `files/` and says the name it got (a taken name gets (1), (2)...).
#[tauri::command]
#[specta::specta]
pub async fn upload_file(
    engine: State<'_, Engine>,
    body: UploadBody,
) -> Result<FileInfo, ApiError> {
    let source = UploadSource::parse(body.source.as_deref())?;
    Ok(engine
        .services()
        .files()
        .save(&body.name, &body.bytes, source)
        .await?)
}

/// Every stored file, newest first.
#[tauri::command]
#[specta::specta]
pub async fn list_files(engine: State<'_, Engine>) -> Result<Vec<FileInfo>, ApiError> {
    Ok(engine.services().files().list().await?)
}

/// A file's bytes (`GET /api/files/content/{name}`), for pictures the chat shows.
#[tauri::command]
#[specta::specta]
pub async fn file_content(engine: State<'_, Engine>, name: String) -> Result<Vec<u8>, ApiError> {
    Ok(engine.services().files().read(&name).await?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use tauri::Manager;

    #[test]
    fn an_upload_is_saved_listed_and_a_taken_name_gets_a_number() {
        let (dir, _engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let body = || UploadBody {
                name: "list.txt".to_owned(),
                bytes: b"milk".to_vec(),
                source: None,
            };
            let first = upload_file(state.clone(), body()).await.expect("upload");
            assert_eq!(first.name, "list.txt");
            assert!((first.size - 4.0).abs() < f64::EPSILON);
            let second = upload_file(state.clone(), body()).await.expect("upload");
            assert_eq!(second.name, "list (1).txt");
            assert_eq!(
                std::fs::read(dir.path().join("files/uploads/list.txt")).expect("saved"),
                b"milk"
            );
            let names: Vec<String> = list_files(state.clone())
                .await
                .expect("list")
                .into_iter()
                .map(|f| f.name)
                .collect();
            assert!(names.contains(&"list.txt".to_owned()), "{names:?}");
            assert!(names.contains(&"list (1).txt".to_owned()), "{names:?}");
            let bytes = file_content(state.clone(), "list.txt".to_owned())
                .await
                .expect("content");
            assert_eq!(bytes, b"milk");
            let missing = file_content(state.clone(), "nope.txt".to_owned()).await;
            assert_eq!(missing.expect_err("missing").status, 404);

            let bad = upload_file(
                state.clone(),
                UploadBody {
                    source: Some("camera".to_owned()),
                    ..body()
                },
            )
            .await;
            assert_eq!(bad.expect_err("bad source").status, 422);
            let huge = upload_file(
                state.clone(),
                UploadBody {
                    bytes: vec![0; sentient_engine::files::MAX_UPLOAD_BYTES + 1],
                    ..body()
                },
            )
            .await
            .expect_err("too large");
            assert_eq!(huge.status, 413);
            assert_eq!(list_files(state.clone()).await.expect("list").len(), 2);
        });
    }
}
