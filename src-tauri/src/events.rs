//! The engine's bus reaches the window as the Tauri event `sentient://event`, with the same
//! `{type, data, ts}` envelope `/ws` sends. New notifications also pop up natively while the
//! window is hidden or in the background; clicking one opens the window.

use sentient_engine::Engine;
use sentient_engine::bus::DomainEvent;
use sentient_engine::notifications::Notification;
use tauri::{AppHandle, Emitter, Manager};
use tokio::sync::broadcast::error::RecvError;

/// The Tauri event name the window listens to.
pub const EVENT_NAME: &str = "sentient://event";

pub fn forward(app: AppHandle, engine: Engine) {
    let mut events = engine.bus().subscribe();
    let shutdown = engine.shutdown_token();
    tauri::async_runtime::spawn(async move {
        loop {
            let envelope = tokio::select! {
                () = shutdown.cancelled() => break,
                received = events.recv() => match received {
                    Ok(envelope) => envelope,
                    // The window refetches on its own; skipping ahead is fine.
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "window fell behind the event bus");
                        continue;
                    }
                    Err(RecvError::Closed) => break,
                },
            };
            if let DomainEvent::NotificationNew(notification) = &envelope.event
                && !window_in_front(&app)
            {
                pop_up(app.clone(), notification.clone());
            }
            if let Err(error) = app.emit(EVENT_NAME, &envelope) {
                tracing::warn!(%error, "could not pass an event to the window");
            }
        }
    });
}

/// Whether the user is looking at the window right now.
fn window_in_front(app: &AppHandle) -> bool {
    app.get_webview_window(crate::MAIN_WINDOW).is_some_and(|w| {
        w.is_visible().unwrap_or(false)
            && w.is_focused().unwrap_or(false)
            && !w.is_minimized().unwrap_or(false)
    })
}

fn pop_up(app: AppHandle, notification: Notification) {
    // Showing and waiting for a click block, so they get their own thread.
    tauri::async_runtime::spawn_blocking(move || {
        let mut native = notify_rust::Notification::new();
        native
            .appname("Sentient")
            .summary(&notification.title)
            .body(&notification.message);
        #[cfg(all(unix, not(target_os = "macos")))]
        native.action("default", "Open Sentient");
        match native.show() {
            #[cfg(all(unix, not(target_os = "macos")))]
            Ok(handle) => handle.wait_for_action(|action| {
                if action == "default" {
                    crate::show_main_window(&app);
                }
            }),
            #[cfg(not(all(unix, not(target_os = "macos"))))]
            Ok(_) => {
                let _ = app;
            }
            Err(error) => tracing::warn!(%error, "no desktop notification service answered"),
        }
    });
}
