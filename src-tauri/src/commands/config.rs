//! Settings.

use sentient_engine::Engine;
use sentient_engine::config::{Config, ConfigService, SavedConfig};
use sentient_engine::error::ApiError;
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn get_config(engine: State<'_, Engine>) -> Result<Config, ApiError> {
    Ok((*engine.services().config().current()).clone())
}

/// The JSON schema of the settings (`GET /api/config/schema`): every field's description, its
/// range and its choices, so Settings builds its forms from it.
#[tauri::command]
#[specta::specta]
pub async fn config_schema() -> Result<serde_json::Value, ApiError> {
    Ok(ConfigService::schema())
}

#[tauri::command]
#[specta::specta]
pub async fn patch_config(
    engine: State<'_, Engine>,
    patch: serde_json::Value,
) -> Result<SavedConfig, ApiError> {
    engine
        .services()
        .config()
        .patch_saved(patch)
        .await
        .map_err(ApiError::from)
}
