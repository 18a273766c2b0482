//! Stop everything over HTTP (contract section 17).

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::stop::{StopRequest, StopResult, StopState};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(get_stop))
        .routes(routes!(stop_all))
        .routes(routes!(resume))
}

/// Whether Stop everything is on.
#[utoipa::path(get, path = "/api/stop", tag = "stop", responses((status = 200, body = StopState)))]
pub async fn get_stop(State(services): State<Services>) -> Json<StopState> {
    Json(services.stop().state())
}

/// Turns Stop everything on and cancels running work.
#[utoipa::path(
    post, path = "/api/stop-all", tag = "stop",
    request_body(content = StopRequest, description = "Optional; source defaults to desktop"),
    responses((status = 200, body = StopResult), (status = 422, body = crate::error::ErrorBody))
)]
pub async fn stop_all(
    State(services): State<Services>,
    JsonBody(body): JsonBody<StopRequest>,
) -> Result<Json<StopResult>, ApiError> {
    Ok(Json(
        services.stop().stop_all(body.source.as_deref()).await?,
    ))
}

/// Turns Stop everything off.
#[utoipa::path(
    post, path = "/api/resume", tag = "stop",
    request_body(content = StopRequest, description = "Optional; source defaults to desktop"),
    responses((status = 200, body = StopState), (status = 422, body = crate::error::ErrorBody))
)]
pub async fn resume(
    State(services): State<Services>,
    JsonBody(body): JsonBody<StopRequest>,
) -> Result<Json<StopState>, ApiError> {
    Ok(Json(services.stop().resume(body.source.as_deref()).await?))
}
