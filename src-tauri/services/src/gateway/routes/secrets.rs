//! Secrets over HTTP (contract section 3): which keys are set, and saving or removing one.
//! A value goes in and never comes back out.

use axum::Json;
use axum::extract::{Path, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::secrets::{SecretInfo, SecretValue, StoreChanged, StoreChoice, StoreStatus};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list_secrets))
        .routes(routes!(secrets_store, choose_secrets_store))
        .routes(routes!(put_secret, delete_secret))
}

/// Where saved keys are kept (keychain or private file) and whether the keychain works now;
/// it asks the keychain again each time, so a window's "Check again" is this call.
#[utoipa::path(
    get, path = "/api/secrets/store", tag = "secrets",
    responses((status = 200, body = StoreStatus))
)]
pub async fn secrets_store(State(services): State<Services>) -> Json<StoreStatus> {
    Json(services.secrets().store_status().await)
}

/// Chooses where keys are kept: `file` where there is no keychain, `keychain` to move every
/// key from the private file into a keychain that has appeared.
#[utoipa::path(
    put, path = "/api/secrets/store", tag = "secrets",
    request_body = StoreChoice,
    responses(
        (status = 200, body = StoreChanged),
        (status = 409, body = crate::error::ErrorBody, description = "The keychain works (file), still can't be used (keychain), or no machine id"),
        (status = 500, body = crate::error::ErrorBody, description = "The private file can't be opened; the detail says what to do")
    )
)]
pub async fn choose_secrets_store(
    State(services): State<Services>,
    JsonBody(body): JsonBody<StoreChoice>,
) -> Result<Json<StoreChanged>, ApiError> {
    Ok(Json(services.secrets().choose_store(body.store).await?))
}

/// Every provider and integration secret: whether it is set and where from, never its value.
#[utoipa::path(
    get, path = "/api/secrets", tag = "secrets",
    responses((status = 200, body = Vec<SecretInfo>))
)]
pub async fn list_secrets(State(services): State<Services>) -> Json<Vec<SecretInfo>> {
    Json(services.secrets().list().await)
}

/// Saves a key in this computer's keychain (or the private file, where that was chosen). The
/// ChatGPT sign-in can't be typed in.
#[utoipa::path(
    put, path = "/api/secrets/{name}", tag = "secrets",
    params(("name" = String, Path, description = "The secret's name, e.g. anthropic")),
    request_body = SecretValue,
    responses(
        (status = 200, body = OkReply),
        (status = 400, body = crate::error::ErrorBody, description = "Empty or too long, or chatgpt"),
        (status = 404, body = crate::error::ErrorBody, description = "No secret by that name"),
        (status = 500, body = crate::error::ErrorBody, description = "The keychain can't be used; the detail says how to fix it (GET /api/secrets/store says whether a private file can be chosen)")
    )
)]
pub async fn put_secret(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<SecretValue>,
) -> Result<Json<OkReply>, ApiError> {
    services.secrets().put(&name, &body.value).await?;
    Ok(Json(OkReply::yes()))
}

/// Removes a key from the keychain (for chatgpt, the stored sign-in); one that is not set is fine.
#[utoipa::path(
    delete, path = "/api/secrets/{name}", tag = "secrets",
    params(("name" = String, Path, description = "The secret's name, e.g. anthropic")),
    responses(
        (status = 200, body = OkReply),
        (status = 404, body = crate::error::ErrorBody, description = "No secret by that name"),
        (status = 500, body = crate::error::ErrorBody, description = "The keychain can't be used; the detail says how to fix it")
    )
)]
pub async fn delete_secret(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.secrets().delete(&name).await?;
    Ok(Json(OkReply::yes()))
}
