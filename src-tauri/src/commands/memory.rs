//! Memory from the window: facts, search, topics, the map, the review inbox, summaries of past
//! chats, the notes files and importing a document; the same service calls as `/api/memories`
//! (contract section 7).

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::error::ApiError;
use sentient_engine::memory::ListQuery;
use sentient_engine::memory::model::{
    Graph, ImportResult, Memory, PersonaPreset, ReviewInbox, Summary, TopicCount, Workspace,
    WriteResult,
};
use sentient_engine::memory::requests::{
    ApproveAllRequest, ApproveRequest, Approved, ContentRequest, Deleted, DeletedCount,
    NewMemoryRequest, Saved,
};
use serde::Deserialize;
use tauri::State;

/// Remembered facts, newest first; with `q`, the hybrid search's best first.
#[tauri::command]
#[specta::specta]
pub async fn list_memories(
    engine: State<'_, Engine>,
    topic: Option<String>,
    q: Option<String>,
    source: Option<String>,
    limit: Option<i64>,
    offset: Option<i64>,
) -> Result<Vec<Memory>, ApiError> {
    Ok(engine
        .services()
        .memory()
        .list(ListQuery {
            topic,
            q,
            source,
            limit,
            offset,
        })
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn create_memory(
    engine: State<'_, Engine>,
    body: NewMemoryRequest,
) -> Result<WriteResult, ApiError> {
    let source = body.source.unwrap_or_default();
    Ok(engine
        .services()
        .memory()
        .remember(&body.content, &source, None)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn update_memory(
    engine: State<'_, Engine>,
    id: i64,
    body: ContentRequest,
) -> Result<Memory, ApiError> {
    Ok(engine.services().memory().update(id, &body.content).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_memory(engine: State<'_, Engine>, id: i64) -> Result<Deleted, ApiError> {
    engine.services().memory().delete(id).await?;
    Ok(Deleted { deleted: true })
}

#[tauri::command]
#[specta::specta]
pub async fn delete_memory_source(
    engine: State<'_, Engine>,
    source: String,
) -> Result<DeletedCount, ApiError> {
    let deleted = engine.services().memory().delete_source(&source).await?;
    Ok(DeletedCount { deleted })
}

#[tauri::command]
#[specta::specta]
pub async fn memory_topics(engine: State<'_, Engine>) -> Result<Vec<TopicCount>, ApiError> {
    Ok(engine.services().memory().topics().await?)
}

#[tauri::command]
#[specta::specta]
pub async fn memory_graph(engine: State<'_, Engine>) -> Result<Graph, ApiError> {
    Ok(engine.services().memory().graph().await?)
}

#[tauri::command]
#[specta::specta]
pub async fn memory_summaries(
    engine: State<'_, Engine>,
    limit: Option<i64>,
) -> Result<Vec<Summary>, ApiError> {
    Ok(engine.services().memory().summaries(limit).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn memory_workspace(engine: State<'_, Engine>) -> Result<Workspace, ApiError> {
    Ok(engine.services().memory().workspace()?)
}

#[tauri::command]
#[specta::specta]
pub async fn save_memory_workspace(
    engine: State<'_, Engine>,
    name: String,
    body: ContentRequest,
) -> Result<Saved, ApiError> {
    engine
        .services()
        .memory()
        .save_workspace(&name, &body.content)?;
    Ok(Saved { saved: true })
}

#[tauri::command]
#[specta::specta]
pub async fn memory_personas(engine: State<'_, Engine>) -> Result<Vec<PersonaPreset>, ApiError> {
    Ok(engine.services().memory().personas())
}

#[tauri::command]
#[specta::specta]
pub async fn memory_review(engine: State<'_, Engine>) -> Result<ReviewInbox, ApiError> {
    Ok(engine.services().memory().review_inbox().await?)
}

#[tauri::command]
#[specta::specta]
pub async fn approve_memory(
    engine: State<'_, Engine>,
    kind: String,
    id: String,
    body: ApproveRequest,
) -> Result<OkReply, ApiError> {
    engine
        .services()
        .memory()
        .approve(&kind, &id, body.content.as_deref())
        .await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn discard_memory(
    engine: State<'_, Engine>,
    kind: String,
    id: String,
) -> Result<OkReply, ApiError> {
    engine.services().memory().discard(&kind, &id).await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn approve_all_memories(
    engine: State<'_, Engine>,
    body: ApproveAllRequest,
) -> Result<Approved, ApiError> {
    let approved = engine
        .services()
        .memory()
        .approve_all(body.from.as_deref().unwrap_or_default())
        .await?;
    Ok(Approved { approved })
}

/// A document to learn from: its name (the extension says what kind it is) and its bytes.
#[derive(Debug, Deserialize, specta::Type)]
pub struct ImportMemoriesBody {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Reads facts from a PDF, Word (.docx), text or Markdown file (at most 20 MB) with the model;
/// every fact waits in Review. The same call as `POST /api/memories/import`.
#[tauri::command]
#[specta::specta]
pub async fn import_memories(
    engine: State<'_, Engine>,
    body: ImportMemoriesBody,
) -> Result<ImportResult, ApiError> {
    Ok(engine
        .services()
        .memory()
        .import(&body.name, body.bytes)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use sentient_engine::error::ErrorDetail;
    use sentient_engine::memory::import::MAX_IMPORT_BYTES;
    use tauri::Manager;

    #[test]
    fn an_import_refuses_what_it_cannot_read_with_a_sentence_naming_the_file() {
        let (_dir, _engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let refused = |name: &str, bytes: Vec<u8>| {
                let body = ImportMemoriesBody {
                    name: name.to_owned(),
                    bytes,
                };
                let state = state.clone();
                async move {
                    let error = import_memories(state, body).await.expect_err("refused");
                    match error.detail {
                        ErrorDetail::Message(detail) => (error.status, detail),
                        ErrorDetail::Fields(fields) => panic!("a sentence, not {fields:?}"),
                    }
                }
            };

            let (status, detail) = refused("budget.xls", b"a,b".to_vec()).await;
            assert_eq!(status, 400);
            assert!(detail.contains("budget.xls"), "{detail}");
            assert!(
                detail.contains("PDF, Word (.docx), text and Markdown"),
                "{detail}"
            );

            let (status, detail) = refused("C:\\Users\\ada\\blank.txt", b"  \r\n ".to_vec()).await;
            assert_eq!(status, 400);
            assert!(detail.contains("found no text in blank.txt"), "{detail}");

            let (status, detail) = refused("broken.docx", b"not a zip".to_vec()).await;
            assert_eq!(status, 400);
            assert!(detail.contains("could not read broken.docx"), "{detail}");

            let (status, detail) = refused("  ", b"I keep bees.".to_vec()).await;
            assert_eq!(status, 400);
            assert!(detail.contains("no name"), "{detail}");

            let (status, detail) = refused("huge.txt", vec![b'a'; MAX_IMPORT_BYTES + 1]).await;
            assert_eq!(status, 413);
            assert!(detail.contains("larger than 20 MB"), "{detail}");

            // Nothing was read, so nothing waits for review.
            let inbox = memory_review(state.clone()).await.expect("review");
            assert!(inbox.items.is_empty(), "{inbox:?}");
        });
    }
}
