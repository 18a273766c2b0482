//! `ui.launch_at_login`: kept in step with the setting, at start and whenever it changes
//! (autostart entry on Linux, Launch Agent on macOS, Run key on Windows).

use sentient_engine::Engine;
use tauri::AppHandle;
use tauri_plugin_autostart::ManagerExt;

pub fn follow_setting(app: AppHandle, engine: Engine) {
    let mut settings = engine.services().config().watch();
    let shutdown = engine.services().shutdown_token();
    tauri::async_runtime::spawn(async move {
        loop {
            let wanted = settings.borrow_and_update().ui.launch_at_login;
            apply(&app, wanted);
            tokio::select! {
                () = shutdown.cancelled() => break,
                changed = settings.changed() => if changed.is_err() { break },
            }
        }
    });
}

fn apply(app: &AppHandle, wanted: bool) {
    let launcher = app.autolaunch();
    let current = launcher.is_enabled().unwrap_or(!wanted);
    if current == wanted {
        return;
    }
    let result = if wanted {
        launcher.enable()
    } else {
        launcher.disable()
    };
    match result {
        Ok(()) => tracing::info!(launch_at_login = wanted, "login item updated"),
        Err(error) => tracing::warn!(%error, "could not change launching at login"),
    }
}
