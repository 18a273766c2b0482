//! Memory over HTTP (contract section 7): facts, topics, the map, the review inbox, summaries of
//! past chats and the notes files. Each handler is one call into the memory service.

use axum::Json;
use axum::extract::{DefaultBodyLimit, Multipart, Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::error::{ApiError, ErrorBody};
use crate::gateway::body::JsonBody;
use crate::memory::ListQuery;
use crate::memory::import::MAX_IMPORT_BYTES;
use crate::memory::model::{
    Graph, ImportResult, Memory, PersonaPreset, ReviewInbox, Summary, TopicCount, Workspace,
    WriteResult,
};
use crate::memory::requests::{
    ApproveAllRequest, ApproveRequest, Approved, ContentRequest, Deleted, DeletedCount,
    NewMemoryRequest, Saved,
};

pub fn routes() -> OpenApiRouter<Services> {
    // A document may be larger than the rest of the API allows; the import checks 20 MB itself.
    let import = OpenApiRouter::new()
        .routes(routes!(import))
        .layer(DefaultBodyLimit::max(MAX_IMPORT_BYTES + 64 * 1024));
    OpenApiRouter::new()
        .merge(import)
        .routes(routes!(list, create))
        .routes(routes!(topics))
        .routes(routes!(graph))
        .routes(routes!(update, delete))
        .routes(routes!(delete_source))
        .routes(routes!(summaries))
        .routes(routes!(workspace))
        .routes(routes!(save_workspace))
        .routes(routes!(personas))
        .routes(routes!(review))
        .routes(routes!(approve))
        .routes(routes!(discard))
        .routes(routes!(approve_all))
}

const TOO_LARGE: &str =
    "The file is larger than 20 MB. Split it into smaller files and import them one by one.";

/// Learns facts from a document (multipart field `file`: PDF, Word .docx, text or Markdown); every
/// fact waits for review.
#[utoipa::path(post, path = "/api/memories/import", tag = "memory",
    request_body(content_type = "multipart/form-data", description = "file"),
    responses((status = 200, body = ImportResult), (status = 400, body = ErrorBody),
        (status = 413, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn import(
    State(services): State<Services>,
    mut form: Multipart,
) -> Result<Json<ImportResult>, ApiError> {
    let unreadable = || ApiError::bad_request("The upload could not be read. Try again.");
    let mut file = None;
    loop {
        let field = match form.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) if e.status().as_u16() == 413 => return Err(ApiError::new(413, TOO_LARGE)),
            Err(_) => return Err(unreadable()),
        };
        if field.name() == Some("file") {
            let name = field.file_name().unwrap_or_default().to_owned();
            let bytes = field.bytes().await.map_err(|e| {
                if e.status().as_u16() == 413 {
                    ApiError::new(413, TOO_LARGE)
                } else {
                    unreadable()
                }
            })?;
            file = Some((name, bytes.to_vec()));
        }
    }
    let (name, bytes) =
        file.ok_or_else(|| ApiError::bad_request("Attach a file to import (field file)."))?;
    Ok(Json(services.memory().import(&name, bytes).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct MemoriesQuery {
    /// Only facts with this topic.
    topic: Option<String>,
    /// Search: vector neighbours and word matches, best first (words only without embeddings).
    q: Option<String>,
    /// Only facts from this source (manual, conversation, file:<name>, ...).
    source: Option<String>,
    /// How many at most (default 100, at most 1000).
    limit: Option<i64>,
    offset: Option<i64>,
}

/// Remembered facts, newest first (held and expired ones left out); with `q`, the best matches.
#[utoipa::path(get, path = "/api/memories", tag = "memory", params(MemoriesQuery),
    responses((status = 200, body = Vec<Memory>), (status = 400, body = ErrorBody)))]
pub async fn list(
    State(services): State<Services>,
    Query(q): Query<MemoriesQuery>,
) -> Result<Json<Vec<Memory>>, ApiError> {
    Ok(Json(
        services
            .memory()
            .list(ListQuery {
                topic: q.topic,
                q: q.q,
                source: q.source,
                limit: q.limit,
                offset: q.offset,
            })
            .await?,
    ))
}

/// Remembers a fact through the CUD decision (a duplicate answers SKIP with the existing id).
#[utoipa::path(post, path = "/api/memories", tag = "memory", request_body = NewMemoryRequest,
    responses((status = 200, body = WriteResult), (status = 400, body = ErrorBody),
        (status = 503, body = ErrorBody)))]
pub async fn create(
    State(services): State<Services>,
    JsonBody(body): JsonBody<NewMemoryRequest>,
) -> Result<Json<WriteResult>, ApiError> {
    let source = body.source.unwrap_or_default();
    Ok(Json(
        services
            .memory()
            .remember(&body.content, &source, None)
            .await?,
    ))
}

/// Every topic with how many remembered facts it has.
#[utoipa::path(get, path = "/api/memories/topics", tag = "memory",
    responses((status = 200, body = Vec<TopicCount>)))]
pub async fn topics(State(services): State<Services>) -> Result<Json<Vec<TopicCount>>, ApiError> {
    Ok(Json(services.memory().topics().await?))
}

/// The memory map: facts, linked where they are close in meaning.
#[utoipa::path(get, path = "/api/memories/graph", tag = "memory",
    responses((status = 200, body = Graph)))]
pub async fn graph(State(services): State<Services>) -> Result<Json<Graph>, ApiError> {
    Ok(Json(services.memory().graph().await?))
}

/// New words for a fact (the old ones kept as previous_content).
#[utoipa::path(put, path = "/api/memories/{id}", tag = "memory", request_body = ContentRequest,
    params(("id" = i64, Path, description = "The memory's id")),
    responses((status = 200, body = Memory), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn update(
    State(services): State<Services>,
    Path(id): Path<i64>,
    JsonBody(body): JsonBody<ContentRequest>,
) -> Result<Json<Memory>, ApiError> {
    Ok(Json(services.memory().update(id, &body.content).await?))
}

/// Forgets one fact.
#[utoipa::path(delete, path = "/api/memories/{id}", tag = "memory",
    params(("id" = i64, Path, description = "The memory's id")),
    responses((status = 200, body = Deleted), (status = 404, body = ErrorBody),
        (status = 503, body = ErrorBody)))]
pub async fn delete(
    State(services): State<Services>,
    Path(id): Path<i64>,
) -> Result<Json<Deleted>, ApiError> {
    services.memory().delete(id).await?;
    Ok(Json(Deleted { deleted: true }))
}

/// Forgets every fact from a source, held ones too.
#[utoipa::path(delete, path = "/api/memories/source/{source}", tag = "memory",
    params(("source" = String, Path, description = "manual, conversation, file:<name>, ...")),
    responses((status = 200, body = DeletedCount), (status = 503, body = ErrorBody)))]
pub async fn delete_source(
    State(services): State<Services>,
    Path(source): Path<String>,
) -> Result<Json<DeletedCount>, ApiError> {
    let deleted = services.memory().delete_source(&source).await?;
    Ok(Json(DeletedCount { deleted }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct LimitQuery {
    /// How many at most (default 50, at most 1000).
    limit: Option<i64>,
}

/// Summaries of older parts of chats, newest first, each with its chat's mark.
#[utoipa::path(get, path = "/api/memories/summaries", tag = "memory", params(LimitQuery),
    responses((status = 200, body = Vec<Summary>), (status = 400, body = ErrorBody)))]
pub async fn summaries(
    State(services): State<Services>,
    Query(q): Query<LimitQuery>,
) -> Result<Json<Vec<Summary>>, ApiError> {
    Ok(Json(services.memory().summaries(q.limit).await?))
}

/// The notes files in full: SOUL.md, USER.md, MEMORY.md, today's and yesterday's notes.
#[utoipa::path(get, path = "/api/memories/workspace", tag = "memory",
    responses((status = 200, body = Workspace)))]
pub async fn workspace(State(services): State<Services>) -> Result<Json<Workspace>, ApiError> {
    Ok(Json(services.memory().workspace()?))
}

/// Saves SOUL.md, USER.md or MEMORY.md.
#[utoipa::path(put, path = "/api/memories/workspace/{name}", tag = "memory",
    request_body = ContentRequest,
    params(("name" = String, Path, description = "soul, user or memory")),
    responses((status = 200, body = Saved), (status = 400, body = ErrorBody)))]
pub async fn save_workspace(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<ContentRequest>,
) -> Result<Json<Saved>, ApiError> {
    services.memory().save_workspace(&name, &body.content)?;
    Ok(Json(Saved { saved: true }))
}

/// SOUL.md presets with the assistant's and the user's names.
#[utoipa::path(get, path = "/api/memories/personas", tag = "memory",
    responses((status = 200, body = Vec<PersonaPreset>)))]
pub async fn personas(State(services): State<Services>) -> Json<Vec<PersonaPreset>> {
    Json(services.memory().personas())
}

/// Memories waiting for review, newest first.
#[utoipa::path(get, path = "/api/memories/review", tag = "memory",
    responses((status = 200, body = ReviewInbox)))]
pub async fn review(State(services): State<Services>) -> Result<Json<ReviewInbox>, ApiError> {
    Ok(Json(services.memory().review_inbox().await?))
}

/// Approves a held memory, in new words when `content` is given.
#[utoipa::path(post, path = "/api/memories/review/{kind}/{id}/approve", tag = "memory",
    request_body = ApproveRequest,
    params(("kind" = String, Path, description = "fact or insight"),
        ("id" = String, Path, description = "The memory's id")),
    responses((status = 200, body = OkReply), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn approve(
    State(services): State<Services>,
    Path((kind, id)): Path<(String, String)>,
    JsonBody(body): JsonBody<ApproveRequest>,
) -> Result<Json<OkReply>, ApiError> {
    services
        .memory()
        .approve(&kind, &id, body.content.as_deref())
        .await?;
    Ok(Json(OkReply::yes()))
}

/// Discards a held memory.
#[utoipa::path(delete, path = "/api/memories/review/{kind}/{id}", tag = "memory",
    params(("kind" = String, Path, description = "fact or insight"),
        ("id" = String, Path, description = "The memory's id")),
    responses((status = 200, body = OkReply), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn discard(
    State(services): State<Services>,
    Path((kind, id)): Path<(String, String)>,
) -> Result<Json<OkReply>, ApiError> {
    services.memory().discard(&kind, &id).await?;
    Ok(Json(OkReply::yes()))
}

/// Approves every held memory from one place.
#[utoipa::path(post, path = "/api/memories/review/approve-all", tag = "memory",
    request_body = ApproveAllRequest,
    responses((status = 200, body = Approved), (status = 400, body = ErrorBody),
        (status = 503, body = ErrorBody)))]
pub async fn approve_all(
    State(services): State<Services>,
    JsonBody(body): JsonBody<ApproveAllRequest>,
) -> Result<Json<Approved>, ApiError> {
    let approved = services
        .memory()
        .approve_all(body.from.as_deref().unwrap_or_default())
        .await?;
    Ok(Json(Approved { approved }))
}
