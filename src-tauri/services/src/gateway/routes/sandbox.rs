//! Code execution over HTTP (contract section 11): whether scripts can run here, and a script
//! run whose tool calls may only look things up ("Run again", script jobs' tests).

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::error::{ApiError, ErrorBody};
use crate::gateway::body::JsonBody;
use crate::sandbox::{RunRequest, SandboxResult, SandboxStatus};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(run))
}

/// Whether code execution is on, the backend a run would use now, whether Docker answers and
/// which Python runs scripts.
#[utoipa::path(get, path = "/api/sandbox/status", tag = "sandbox",
    responses((status = 200, body = SandboxStatus)))]
pub async fn status(State(services): State<Services>) -> Json<SandboxStatus> {
    Json(services.sandbox().status().await)
}

/// Runs a script; its tool calls are limited to risk read whatever the approvals mode says. A
/// script that fails is still a 200 with `ok: false` and a plain `error`.
#[utoipa::path(post, path = "/api/sandbox/run", tag = "sandbox", request_body = RunRequest,
    responses((status = 200, body = SandboxResult), (status = 422, body = ErrorBody)))]
pub async fn run(
    State(services): State<Services>,
    JsonBody(body): JsonBody<RunRequest>,
) -> Result<Json<SandboxResult>, ApiError> {
    Ok(Json(services.sandbox().run_request(body).await?))
}
