//! The notifications feed over HTTP (contract section 6). Each handler is one call into the
//! notifications service; every change is also published on `/ws`.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::error::ApiError;
use crate::notifications::NotificationList;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list, delete_all))
        .routes(routes!(read_all))
        .routes(routes!(read))
        .routes(routes!(delete))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// How many at most (default 50, at most 500).
    limit: Option<u32>,
    /// Only the unread ones.
    unread_only: Option<bool>,
}

/// The feed, newest first, with the number of unread notifications in the whole feed.
#[utoipa::path(get, path = "/api/notifications", tag = "notifications", params(ListQuery),
    responses((status = 200, body = NotificationList)))]
pub async fn list(
    State(services): State<Services>,
    Query(q): Query<ListQuery>,
) -> Result<Json<NotificationList>, ApiError> {
    Ok(Json(
        services
            .notifications()
            .list_notifications(q.limit, q.unread_only.unwrap_or(false))
            .await?,
    ))
}

/// Marks one notification read (`notification.read` with its id).
#[utoipa::path(post, path = "/api/notifications/{id}/read", tag = "notifications",
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn read(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.notifications().read_notification(&id).await?;
    Ok(Json(OkReply::yes()))
}

/// Marks every notification read (`notification.read` with `id: null`).
#[utoipa::path(post, path = "/api/notifications/read-all", tag = "notifications",
    responses((status = 200, body = OkReply)))]
pub async fn read_all(State(services): State<Services>) -> Result<Json<OkReply>, ApiError> {
    services.notifications().read_all_notifications().await?;
    Ok(Json(OkReply::yes()))
}

/// Deletes one notification (`notification.deleted` with its id).
#[utoipa::path(delete, path = "/api/notifications/{id}", tag = "notifications",
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.notifications().delete_notification(&id).await?;
    Ok(Json(OkReply::yes()))
}

/// Empties the feed (`notification.deleted` with `id: null`).
#[utoipa::path(delete, path = "/api/notifications", tag = "notifications",
    responses((status = 200, body = OkReply)))]
pub async fn delete_all(State(services): State<Services>) -> Result<Json<OkReply>, ApiError> {
    services.notifications().delete_all_notifications().await?;
    Ok(Json(OkReply::yes()))
}
