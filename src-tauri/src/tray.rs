//! The tray icon and its menu: Open Sentient, Stop everything / Resume (the label follows the
//! state, whoever changed it), Quit.

use sentient_engine::Engine;
use sentient_engine::bus::DomainEvent;
use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime};

fn stop_label(stopped: bool) -> &'static str {
    if stopped { "Resume" } else { "Stop everything" }
}

pub fn build(app: &AppHandle, engine: &Engine) -> tauri::Result<()> {
    let open = MenuItem::with_id(app, "open", "Open Sentient", true, None::<&str>)?;
    let stop = MenuItem::with_id(
        app,
        "stop",
        stop_label(engine.stop().is_stopped()),
        true,
        None::<&str>,
    )?;
    let quit = MenuItem::with_id(app, "quit", "Quit Sentient", true, None::<&str>)?;
    let menu = Menu::with_items(app, &[&open, &stop, &quit])?;
    let mut tray = TrayIconBuilder::with_id("sentient")
        .tooltip("Sentient")
        .menu(&menu)
        .on_menu_event(|app, event| match event.id().as_ref() {
            "open" => crate::show_main_window(app),
            "stop" => toggle_stop(app),
            "quit" => app.exit(0),
            _ => {}
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;

    // Keep the label in step with every change (window, hotkey, devices, the API).
    let mut events = engine.bus().subscribe();
    let shutdown = engine.shutdown_token();
    tauri::async_runtime::spawn(async move {
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                received = events.recv() => match received {
                    Ok(envelope) => {
                        if let DomainEvent::StopUpdated(state) = envelope.event {
                            let _ = stop.set_text(stop_label(state.stopped));
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
            }
        }
    });
    Ok(())
}

/// The tray's Stop everything / Resume item, with `source: "tray"`.
pub fn toggle_stop<R: Runtime>(app: &AppHandle<R>) {
    let Some(engine) = app.try_state::<Engine>().map(|e| e.inner().clone()) else {
        return;
    };
    tauri::async_runtime::spawn(async move {
        let result = if engine.stop().is_stopped() {
            engine.stop().resume(Some("tray")).await.map(|_| ())
        } else {
            engine.stop().stop_all(Some("tray")).await.map(|_| ())
        };
        if let Err(error) = result {
            tracing::error!(%error, "tray stop/resume failed");
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::test_support::{engine_and_app, next_stop_state};

    use super::{stop_label, toggle_stop};

    #[test]
    fn the_tray_item_stops_then_resumes_with_source_tray() {
        let (_home, engine, app) = engine_and_app();
        let mut events = engine.bus().subscribe();
        toggle_stop(app.handle());
        let stopped = next_stop_state(&mut events);
        assert!(stopped.stopped);
        assert_eq!(stopped.source.as_deref(), Some("tray"));
        toggle_stop(app.handle());
        let resumed = next_stop_state(&mut events);
        assert!(!resumed.stopped);
        assert_eq!(resumed.source.as_deref(), Some("tray"));
        tauri::async_runtime::block_on(engine.shutdown());
    }

    #[test]
    fn the_label_offers_the_opposite_of_the_state() {
        assert_eq!(stop_label(false), "Stop everything");
        assert_eq!(stop_label(true), "Resume");
    }
}
