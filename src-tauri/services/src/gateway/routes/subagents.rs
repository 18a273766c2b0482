//! Helpers over HTTP (contract section 10, "Subagents"): a chat's helpers, one helper with its
//! log, and cancelling one.

use axum::Json;
use axum::extract::{Path, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::error::{ApiError, ErrorBody};
use sentient_core::domain::Subagent;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(for_session))
        .routes(routes!(one))
        .routes(routes!(cancel))
}

/// A chat's helpers, newest first, each with its log.
#[utoipa::path(get, path = "/api/sessions/{id}/subagents", tag = "chat",
    responses((status = 200, body = Vec<Subagent>), (status = 404, body = ErrorBody)))]
pub async fn for_session(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Vec<Subagent>>, ApiError> {
    // An unknown chat is a 404, not an empty list.
    services.sessions().get(&id).await?;
    Ok(Json(services.subagents().for_session(&id).await?))
}

/// One helper with its log.
#[utoipa::path(get, path = "/api/subagents/{id}", tag = "chat",
    responses((status = 200, body = Subagent), (status = 404, body = ErrorBody)))]
pub async fn one(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Subagent>, ApiError> {
    Ok(Json(services.subagents().get(&id).await?))
}

/// Stops a running helper (it ends `cancelled`); one that already ended is answered as it is.
#[utoipa::path(post, path = "/api/subagents/{id}/cancel", tag = "chat",
    responses((status = 200, body = Subagent), (status = 404, body = ErrorBody)))]
pub async fn cancel(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Subagent>, ApiError> {
    Ok(Json(services.subagents().cancel(&id).await?))
}
