//! Model presets over HTTP (contract section 3, "Model presets"): list, apply, undo, save,
//! rename and delete. The work is in `models::presets`; these only translate.

use axum::Json;
use axum::extract::{Path, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::models::presets::{
    Preset, PresetList, PresetSwitch, RenamePresetRequest, SavePresetRequest,
};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list_presets, save_preset))
        .routes(routes!(apply_preset))
        .routes(routes!(undo_preset))
        .routes(routes!(rename_preset, delete_preset))
}

/// Every model setup, built-ins first, with the active one and whether a switch can be undone.
#[utoipa::path(get, path = "/api/models/presets", tag = "models",
    responses((status = 200, body = PresetList)))]
pub async fn list_presets(State(services): State<Services>) -> Result<Json<PresetList>, ApiError> {
    Ok(Json(services.models().model_presets().await?))
}

/// Switches every role to a setup in one save, and says what its models still need.
#[utoipa::path(post, path = "/api/models/presets/{name}/apply", tag = "models",
    params(("name" = String, Path, description = "The setup's name, matched without case")),
    responses(
        (status = 200, body = PresetSwitch),
        (status = 404, body = crate::error::ErrorBody, description = "No setup by that name"),
        (status = 409, body = crate::error::ErrorBody, description = "The setup can't be used now (e.g. no cloud key)")
    ))]
pub async fn apply_preset(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<PresetSwitch>, ApiError> {
    Ok(Json(services.models().apply_model_preset(&name).await?))
}

/// Puts back the setup from before the last switch (one step only).
#[utoipa::path(post, path = "/api/models/presets/undo", tag = "models",
    responses(
        (status = 200, body = PresetSwitch),
        (status = 409, body = crate::error::ErrorBody, description = "Nothing to undo")
    ))]
pub async fn undo_preset(State(services): State<Services>) -> Result<Json<PresetSwitch>, ApiError> {
    Ok(Json(services.models().undo_model_preset().await?))
}

/// Saves the current roles, fallbacks, reasoning and context lengths as a setup and makes it active.
#[utoipa::path(post, path = "/api/models/presets", tag = "models", request_body = SavePresetRequest,
    responses(
        (status = 200, body = Preset),
        (status = 400, body = crate::error::ErrorBody, description = "A bad or built-in name"),
        (status = 409, body = crate::error::ErrorBody, description = "The name is taken (send overwrite: true to replace it)")
    ))]
pub async fn save_preset(
    State(services): State<Services>,
    JsonBody(body): JsonBody<SavePresetRequest>,
) -> Result<Json<Preset>, ApiError> {
    Ok(Json(services.models().save_model_preset(body).await?))
}

/// Renames a saved setup; if it is active it stays active.
#[utoipa::path(patch, path = "/api/models/presets/{name}", tag = "models",
    params(("name" = String, Path, description = "The setup's name, matched without case")),
    request_body = RenamePresetRequest,
    responses(
        (status = 200, body = Preset),
        (status = 400, body = crate::error::ErrorBody, description = "A built-in setup, or a bad new name"),
        (status = 404, body = crate::error::ErrorBody, description = "No setup by that name"),
        (status = 409, body = crate::error::ErrorBody, description = "Another setup has the new name")
    ))]
pub async fn rename_preset(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<RenamePresetRequest>,
) -> Result<Json<Preset>, ApiError> {
    Ok(Json(
        services.models().rename_model_preset(&name, body).await?,
    ))
}

/// Forgets a saved setup; the models stay as they are.
#[utoipa::path(delete, path = "/api/models/presets/{name}", tag = "models",
    params(("name" = String, Path, description = "The setup's name, matched without case")),
    responses(
        (status = 200, body = OkReply),
        (status = 400, body = crate::error::ErrorBody, description = "A built-in setup"),
        (status = 404, body = crate::error::ErrorBody, description = "No setup by that name")
    ))]
pub async fn delete_preset(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.models().delete_model_preset(&name).await?;
    Ok(Json(OkReply::yes()))
}
