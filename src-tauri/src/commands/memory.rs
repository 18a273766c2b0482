//! Memory from the window: facts, search, topics, the map, the review inbox, summaries of past
//! chats and the notes files; the same service calls as `/api/memories` (contract section 7).

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::error::ApiError;
use sentient_engine::memory::ListQuery;
use sentient_engine::memory::model::{
    Graph, Memory, PersonaPreset, ReviewInbox, Summary, TopicCount, Workspace, WriteResult,
};
use sentient_engine::memory::requests::{
    ApproveAllRequest, ApproveRequest, Approved, ContentRequest, Deleted, DeletedCount,
    NewMemoryRequest, Saved,
};
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
    Ok(engine.memory().update(id, &body.content).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_memory(engine: State<'_, Engine>, id: i64) -> Result<Deleted, ApiError> {
    engine.memory().delete(id).await?;
    Ok(Deleted { deleted: true })
}

#[tauri::command]
#[specta::specta]
pub async fn delete_memory_source(
    engine: State<'_, Engine>,
    source: String,
) -> Result<DeletedCount, ApiError> {
    let deleted = engine.memory().delete_source(&source).await?;
    Ok(DeletedCount { deleted })
}

#[tauri::command]
#[specta::specta]
pub async fn memory_topics(engine: State<'_, Engine>) -> Result<Vec<TopicCount>, ApiError> {
    Ok(engine.memory().topics().await?)
}

#[tauri::command]
#[specta::specta]
pub async fn memory_graph(engine: State<'_, Engine>) -> Result<Graph, ApiError> {
    Ok(engine.memory().graph().await?)
}

#[tauri::command]
#[specta::specta]
pub async fn memory_summaries(
    engine: State<'_, Engine>,
    limit: Option<i64>,
) -> Result<Vec<Summary>, ApiError> {
    Ok(engine.memory().summaries(limit).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn memory_workspace(engine: State<'_, Engine>) -> Result<Workspace, ApiError> {
    Ok(engine.memory().workspace()?)
}

#[tauri::command]
#[specta::specta]
pub async fn save_memory_workspace(
    engine: State<'_, Engine>,
    name: String,
    body: ContentRequest,
) -> Result<Saved, ApiError> {
    engine.memory().save_workspace(&name, &body.content)?;
    Ok(Saved { saved: true })
}

#[tauri::command]
#[specta::specta]
pub async fn memory_personas(engine: State<'_, Engine>) -> Result<Vec<PersonaPreset>, ApiError> {
    Ok(engine.memory().personas())
}

#[tauri::command]
#[specta::specta]
pub async fn memory_review(engine: State<'_, Engine>) -> Result<ReviewInbox, ApiError> {
    Ok(engine.memory().review_inbox().await?)
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
    engine.memory().discard(&kind, &id).await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn approve_all_memories(
    engine: State<'_, Engine>,
    body: ApproveAllRequest,
) -> Result<Approved, ApiError> {
    let approved = engine
        .memory()
        .approve_all(body.from.as_deref().unwrap_or_default())
        .await?;
    Ok(Approved { approved })
}
