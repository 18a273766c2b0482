//! Helpers from the window: a chat's helpers and Cancel on a running one; the same service calls
//! as `/api/sessions/{id}/subagents` and `/api/subagents/{id}/cancel` (contract section 10).

use sentient_engine::Engine;
use sentient_engine::domain::Subagent;
use sentient_engine::error::ApiError;
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_subagents(
    engine: State<'_, Engine>,
    session_id: String,
) -> Result<Vec<Subagent>, ApiError> {
    engine.services().sessions().get(&session_id).await?;
    Ok(engine
        .services()
        .subagents()
        .for_session(&session_id)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_subagent(engine: State<'_, Engine>, id: String) -> Result<Subagent, ApiError> {
    Ok(engine.services().subagents().cancel(&id).await?)
}
