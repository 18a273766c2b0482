//! Scripts from the window: whether they can run here, and "Run again" (a run whose tool calls
//! may only look things up); the same service calls as `/api/sandbox/*` (contract section 11).

use sentient_engine::Engine;
use sentient_engine::error::ApiError;
use sentient_engine::sandbox::{RunRequest, SandboxResult, SandboxStatus};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn sandbox_status(engine: State<'_, Engine>) -> Result<SandboxStatus, ApiError> {
    Ok(engine.services().sandbox().status().await)
}

#[tauri::command]
#[specta::specta]
pub async fn run_script(
    engine: State<'_, Engine>,
    body: RunRequest,
) -> Result<SandboxResult, ApiError> {
    Ok(engine.services().sandbox().run_request(body).await?)
}
