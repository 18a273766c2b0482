//! Stop everything from the window (source defaults to desktop).

use sentient_engine::Engine;
use sentient_engine::error::ApiError;
use sentient_engine::stop::{StopResult, StopState};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn get_stop(engine: State<'_, Engine>) -> Result<StopState, ApiError> {
    Ok(engine.services().stop().state())
}

#[tauri::command]
#[specta::specta]
pub async fn stop_all(
    engine: State<'_, Engine>,
    source: Option<String>,
) -> Result<StopResult, ApiError> {
    Ok(engine.services().stop().stop_all(source.as_deref()).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn resume(
    engine: State<'_, Engine>,
    source: Option<String>,
) -> Result<StopState, ApiError> {
    Ok(engine.services().stop().resume(source.as_deref()).await?)
}
