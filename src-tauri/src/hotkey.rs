//! The global Stop hotkey: Ctrl+Alt+Shift+S (Cmd+Alt+Shift+S on macOS). It only ever stops,
//! never resumes, so a stray press cannot restart work.

use sentient_engine::Engine;
use tauri::plugin::TauriPlugin;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_global_shortcut::{Code, GlobalShortcutExt, Modifiers, Shortcut, ShortcutState};

pub fn stop_shortcut() -> Shortcut {
    #[cfg(target_os = "macos")]
    let primary = Modifiers::SUPER;
    #[cfg(not(target_os = "macos"))]
    let primary = Modifiers::CONTROL;
    Shortcut::new(
        Some(primary | Modifiers::ALT | Modifiers::SHIFT),
        Code::KeyS,
    )
}

pub fn plugin<R: Runtime>() -> TauriPlugin<R> {
    tauri_plugin_global_shortcut::Builder::new()
        .with_handler(|app, shortcut, event| {
            if event.state == ShortcutState::Pressed && *shortcut == stop_shortcut() {
                stop_from_hotkey(app);
            }
        })
        .build()
}

/// Registers the hotkey; where the system does not allow global shortcuts (Wayland) the
/// title bar and tray still work, so this only logs.
pub fn register<R: Runtime>(app: &AppHandle<R>) {
    if let Err(error) = app.global_shortcut().register(stop_shortcut()) {
        tracing::warn!(%error, "the global Stop hotkey could not be registered; use the title bar or the tray");
    }
}

pub fn stop_from_hotkey<R: Runtime>(app: &AppHandle<R>) {
    let Some(engine) = app.try_state::<Engine>().map(|e| e.inner().clone()) else {
        return;
    };
    tauri::async_runtime::spawn(async move {
        if let Err(error) = engine.services().stop().stop_all(Some("hotkey")).await {
            tracing::error!(%error, "hotkey stop failed");
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::test_support::{engine_and_app, next_stop_state};

    use super::*;

    #[test]
    fn the_shortcut_is_ctrl_alt_shift_s() {
        let expected = if cfg!(target_os = "macos") {
            Modifiers::SUPER
        } else {
            Modifiers::CONTROL
        };
        assert_eq!(
            stop_shortcut(),
            Shortcut::new(
                Some(expected | Modifiers::ALT | Modifiers::SHIFT),
                Code::KeyS
            )
        );
    }

    #[test]
    fn the_hotkey_only_stops_even_when_pressed_twice() {
        let (_home, engine, app) = engine_and_app();
        let mut events = engine.services().bus().subscribe();
        for _ in 0..2 {
            stop_from_hotkey(app.handle());
            let state = next_stop_state(&mut events);
            // The second press keeps Sentient stopped; it never resumes.
            assert!(state.stopped);
            assert_eq!(state.source.as_deref(), Some("hotkey"));
        }
        tauri::async_runtime::block_on(engine.services().shutdown());
    }
}
