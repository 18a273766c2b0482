//! Commands on this computer from the window: the terminal's status with what runs now, and
//! Stop on a running command; the same service calls as `/api/terminal/*` (contract section 18).

use sentient_engine::Engine;
use sentient_engine::error::ApiError;
use sentient_engine::terminal::{StopAnswer, StopRequest, TerminalStatus};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn terminal_status(engine: State<'_, Engine>) -> Result<TerminalStatus, ApiError> {
    Ok(engine.services().terminal().status())
}

#[tauri::command]
#[specta::specta]
pub async fn terminal_stop(
    engine: State<'_, Engine>,
    body: StopRequest,
) -> Result<StopAnswer, ApiError> {
    Ok(StopAnswer {
        stopped: engine.services().terminal().stop_command(body.id.trim()),
    })
}
