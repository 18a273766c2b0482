//! Commands on this computer over HTTP (contract section 18): the terminal's status with what
//! runs now, and stopping one command.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::error::ErrorBody;
use crate::gateway::body::JsonBody;
use crate::terminal::{StopAnswer, StopRequest, TerminalStatus};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(stop))
}

/// Whether commands may run, the shell, the allowed folders, what is never run, and the
/// commands running now.
#[utoipa::path(get, path = "/api/terminal/status", tag = "terminal",
    responses((status = 200, body = TerminalStatus)))]
pub async fn status(State(services): State<Services>) -> Json<TerminalStatus> {
    Json(services.terminal().status())
}

/// Stops the command with this run id or tool call id; the tool then returns what it printed
/// so far with `stopped: true`.
#[utoipa::path(post, path = "/api/terminal/stop", tag = "terminal", request_body = StopRequest,
    responses((status = 200, body = StopAnswer), (status = 422, body = ErrorBody)))]
pub async fn stop(
    State(services): State<Services>,
    JsonBody(body): JsonBody<StopRequest>,
) -> Json<StopAnswer> {
    Json(StopAnswer {
        stopped: services.terminal().stop_command(body.id.trim()),
    })
}
