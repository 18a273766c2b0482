//! The model check-up over HTTP (contract section 3, `POST /api/models/checkup`).

use axum::body::Body;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::models::checkup::{CheckupLine, CheckupRequest};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new().routes(routes!(checkup))
}

/// Tries each role's model, one role at a time, streaming NDJSON lines: `start`, `step`s and
/// a `role` per role, then `done`. Informational only; it never changes the settings.
#[utoipa::path(post, path = "/api/models/checkup", tag = "models", request_body = CheckupRequest,
    responses((status = 200, description = "NDJSON lines (CheckupLine)", body = CheckupLine, content_type = "application/x-ndjson"),
              (status = 400, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn checkup(
    State(services): State<Services>,
    JsonBody(body): JsonBody<CheckupRequest>,
) -> Result<Response, ApiError> {
    let lines = services.models().checkup(body).await?.map(|line| {
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        Ok::<_, std::convert::Infallible>(text)
    });
    Ok((
        [(CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response())
}
