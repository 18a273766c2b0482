//! Chats over HTTP (contract section 2, "Sessions").

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::agent::chat_answers::ShowVersion;
use crate::agent::sessions::{Created, MessageRow, Rename, SearchHit, Session};
use crate::error::ApiError;
use crate::gateway::body::PlainBody;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(search))
        .routes(routes!(rename, delete))
        .routes(routes!(messages))
        .routes(routes!(show_version))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct LimitQuery {
    /// How many at most.
    limit: Option<u32>,
}

/// Chats, newest first.
#[utoipa::path(get, path = "/api/sessions", tag = "chat", params(LimitQuery), responses((status = 200, body = Vec<Session>)))]
pub async fn list(
    State(services): State<Services>,
    Query(q): Query<LimitQuery>,
) -> Result<Json<Vec<Session>>, ApiError> {
    Ok(Json(
        services.sessions().list(q.limit.unwrap_or(100)).await?,
    ))
}

/// Starts a new, empty chat.
#[utoipa::path(post, path = "/api/sessions", tag = "chat", responses((status = 200, body = Created)))]
pub async fn create(State(services): State<Services>) -> Result<Json<Created>, ApiError> {
    let session = services.sessions().create("desktop").await?;
    Ok(Json(Created {
        session_id: session.id,
    }))
}

/// Renames a chat.
#[utoipa::path(patch, path = "/api/sessions/{id}", tag = "chat", request_body = Rename,
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody)))]
pub async fn rename(
    State(services): State<Services>,
    Path(id): Path<String>,
    PlainBody(body): PlainBody<Rename>,
) -> Result<Json<OkReply>, ApiError> {
    services.sessions().rename(&id, &body.title).await?;
    Ok(Json(OkReply::yes()))
}

/// Deletes a chat and its messages.
#[utoipa::path(delete, path = "/api/sessions/{id}", tag = "chat",
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.sessions().delete(&id).await?;
    Ok(Json(OkReply::yes()))
}

/// The transcript, oldest first (the last `limit` rows, default 500).
#[utoipa::path(get, path = "/api/sessions/{id}/messages", tag = "chat", params(LimitQuery),
    responses((status = 200, body = Vec<MessageRow>), (status = 404, body = crate::error::ErrorBody)))]
pub async fn messages(
    State(services): State<Services>,
    Path(id): Path<String>,
    Query(q): Query<LimitQuery>,
) -> Result<Json<Vec<MessageRow>>, ApiError> {
    Ok(Json(
        services
            .sessions()
            .messages(&id, q.limit.unwrap_or(500))
            .await?,
    ))
}

/// Shows another version of a regenerated answer (`message_id` is any row of that answer); the
/// model reads that version from now on. Answers the transcript as the messages list does.
#[utoipa::path(post, path = "/api/sessions/{id}/messages/{message_id}/version", tag = "chat",
    request_body = ShowVersion,
    responses((status = 200, body = Vec<MessageRow>),
              (status = 400, description = "No such version", body = crate::error::ErrorBody),
              (status = 404, body = crate::error::ErrorBody),
              (status = 409, description = "The answer has no versions, or a reply is running", body = crate::error::ErrorBody)))]
pub async fn show_version(
    State(services): State<Services>,
    Path((id, message_id)): Path<(String, String)>,
    PlainBody(body): PlainBody<ShowVersion>,
) -> Result<Json<Vec<MessageRow>>, ApiError> {
    Ok(Json(
        services
            .agent()
            .answers()
            .show_version(&id, &message_id, body.index, 500)
            .await?,
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct SearchQuery {
    /// The words to look for.
    q: Option<String>,
}

/// Messages that contain the words, best match first, with a snippet.
#[utoipa::path(get, path = "/api/sessions/search", tag = "chat", params(SearchQuery),
    responses((status = 200, body = Vec<SearchHit>), (status = 422, body = crate::error::ErrorBody)))]
pub async fn search(
    State(services): State<Services>,
    Query(q): Query<SearchQuery>,
) -> Result<Json<Vec<SearchHit>>, ApiError> {
    let words = q.q.unwrap_or_default();
    Ok(Json(services.sessions().search(&words).await?))
}
