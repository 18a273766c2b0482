//! The engine's bus reaches the window as the Tauri event `sentient://event`, with the same
//! `{type, data, ts}` envelope `/ws` sends. New notifications also pop up natively while the
//! window is hidden or in the background; clicking one opens the window.

use sentient_engine::Engine;
use sentient_engine::bus::DomainEvent;
use sentient_engine::notifications::Notification;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tokio::sync::broadcast::error::RecvError;

/// The Tauri event name the window listens to.
pub const EVENT_NAME: &str = "sentient://event";

/// Passes every bus event to the window; `pop_up` shows a notification natively (injected so
/// tests can see what would have popped up).
pub fn forward<R, P>(app: AppHandle<R>, engine: Engine, pop_up: P)
where
    R: Runtime,
    P: Fn(&AppHandle<R>, Notification) + Send + Sync + 'static,
{
    let mut events = engine.services().bus().subscribe();
    let shutdown = engine.services().shutdown_token();
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
                pop_up(&app, notification.clone());
            }
            if let Err(error) = app.emit(EVENT_NAME, &envelope) {
                tracing::warn!(%error, "could not pass an event to the window");
            }
        }
    });
}

/// Whether the user is looking at the window right now.
fn window_in_front<R: Runtime>(app: &AppHandle<R>) -> bool {
    app.get_webview_window(crate::MAIN_WINDOW).is_some_and(|w| {
        w.is_visible().unwrap_or(false)
            && w.is_focused().unwrap_or(false)
            && !w.is_minimized().unwrap_or(false)
    })
}

/// The desktop's own notification (notify-rust); clicking it opens the window.
pub fn native_pop_up(app: &AppHandle, notification: Notification) {
    let app = app.clone();
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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use sentient_engine::notifications::Notification;
    use tauri::Listener;

    use super::*;

    fn notification() -> Notification {
        Notification {
            id: "n1".into(),
            kind: "task".into(),
            title: "Morning news needs your answer".into(),
            message: "Which topics?".into(),
            payload: Default::default(),
            task_id: None,
            read: false,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn bus_events_reach_the_window_and_notifications_pop_up_when_it_is_hidden() {
        let (_home, engine, app) = crate::test_support::engine_and_app();
        let (tx, rx) = std::sync::mpsc::channel::<serde_json::Value>();
        app.listen(EVENT_NAME, move |event| {
            let _ = tx.send(serde_json::from_str(event.payload()).expect("json payload"));
        });
        let popped = Arc::new(Mutex::new(Vec::new()));
        let seen = popped.clone();
        forward(app.handle().clone(), engine.clone(), move |_, n| {
            seen.lock().expect("lock").push(n.title);
        });

        engine.services().bus().publish(DomainEvent::ConfigUpdated {
            sections: vec!["ui".into()],
        });
        let got = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("config event");
        assert_eq!(got["type"], "config.updated");
        assert_eq!(got["data"]["sections"][0], "ui");
        assert!(got["ts"].is_string());

        engine
            .services()
            .bus()
            .publish(DomainEvent::NotificationNew(notification()));
        let got = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("notification event");
        assert_eq!(got["type"], "notification.new");
        assert_eq!(got["data"]["title"], "Morning news needs your answer");
        // No window is in front in this app, so it popped up natively too.
        assert_eq!(
            *popped.lock().expect("lock"),
            vec!["Morning news needs your answer".to_owned()]
        );
        tauri::async_runtime::block_on(engine.services().shutdown());
    }
}
