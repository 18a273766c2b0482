//! Health, bootstrap and onboarding (contract section 2).

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::bootstrap::Bootstrap;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::onboarding::{OnboardingDone, OnboardingRequest};
use crate::{Health, Services};

pub fn open() -> OpenApiRouter<Services> {
    OpenApiRouter::new().routes(routes!(health))
}

pub fn protected() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(bootstrap))
        .routes(routes!(onboarding))
}

/// Is the engine up? Needs no token.
#[utoipa::path(get, path = "/api/health", tag = "core", security(()), responses((status = 200, body = Health)))]
pub async fn health(State(services): State<Services>) -> Json<Health> {
    Json(services.health())
}

/// Everything the window needs on launch.
#[utoipa::path(get, path = "/api/bootstrap", tag = "core", responses((status = 200, body = Bootstrap)))]
pub async fn bootstrap(State(services): State<Services>) -> Result<Json<Bootstrap>, ApiError> {
    Ok(Json(services.bootstrap().await?))
}

/// Saves the first-run answers, writes USER.md and marks onboarding complete.
#[utoipa::path(
    post, path = "/api/onboarding", tag = "core",
    request_body = OnboardingRequest,
    responses((status = 200, body = OnboardingDone), (status = 422, body = crate::error::ErrorBody))
)]
pub async fn onboarding(
    State(services): State<Services>,
    JsonBody(body): JsonBody<OnboardingRequest>,
) -> Result<Json<OnboardingDone>, ApiError> {
    Ok(Json(
        crate::onboarding::complete(services.config(), services.home(), services.memory(), body)
            .await?,
    ))
}
