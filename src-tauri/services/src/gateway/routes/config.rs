//! Settings over HTTP (contract section 2, "Config").

use axum::Json;
use axum::extract::State;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::config::{Config, ConfigService, Saved, SavedConfig};
use crate::error::ApiError;
use crate::gateway::body::JsonBody;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(get_config, put_config, patch_config))
        .routes(routes!(config_schema))
}

/// Every setting.
#[utoipa::path(get, path = "/api/config", tag = "config", responses((status = 200, body = Object)))]
pub async fn get_config(State(services): State<Services>) -> Json<Config> {
    Json((*services.config().current()).clone())
}

/// The JSON schema of the settings; every field has a description.
#[utoipa::path(get, path = "/api/config/schema", tag = "config", responses((status = 200, body = Object)))]
pub async fn config_schema() -> Json<Value> {
    Json(ConfigService::schema())
}

/// Replaces every setting; applied at once.
#[utoipa::path(
    put, path = "/api/config", tag = "config",
    request_body(content = Object, description = "The full settings object"),
    responses((status = 200, body = Saved), (status = 422, body = crate::error::ErrorBody))
)]
pub async fn put_config(
    State(services): State<Services>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Json<Saved>, ApiError> {
    services.config().put(body).await?;
    Ok(Json(Saved { saved: true }))
}

/// Deep-merges a partial settings object; inside free-form maps a null removes an entry.
#[utoipa::path(
    patch, path = "/api/config", tag = "config",
    request_body(content = Object, description = "Any part of the settings object"),
    responses((status = 200, body = SavedConfig), (status = 422, body = crate::error::ErrorBody))
)]
pub async fn patch_config(
    State(services): State<Services>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Json<SavedConfig>, ApiError> {
    Ok(Json(services.config().patch_saved(body).await?))
}
