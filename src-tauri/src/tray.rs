//! The tray icon and its menu: Open Sentient, Stop everything / Resume (the label follows the
//! state, whoever changed it), Quit. The tooltip says how many notifications are unread
//! ("Sentient — 3 unread"), following every `notification.*` event.

use sentient_engine::Engine;
use sentient_engine::bus::DomainEvent;
use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime};

fn stop_label(stopped: bool) -> &'static str {
    if stopped { "Resume" } else { "Stop everything" }
}

/// The tray's tooltip for this many unread notifications.
fn tooltip_text(unread: u32) -> String {
    if unread == 0 {
        "Sentient".to_owned()
    } else {
        format!("Sentient \u{2014} {unread} unread")
    }
}

/// How many notifications are unread in the whole feed (0 when the feed can't be read).
async fn unread_count(engine: &Engine) -> u32 {
    match engine
        .services()
        .notifications()
        .list_notifications(Some(1), true)
        .await
    {
        Ok(list) => list.unread,
        Err(error) => {
            tracing::warn!(%error, "could not count unread notifications for the tray");
            0
        }
    }
}

/// Whether an event changes the unread count.
fn changes_unread(event: &DomainEvent) -> bool {
    matches!(
        event,
        DomainEvent::NotificationNew(_)
            | DomainEvent::NotificationUpdated(_)
            | DomainEvent::NotificationRead { .. }
            | DomainEvent::NotificationDeleted { .. }
    )
}

pub fn build(app: &AppHandle, engine: &Engine) -> tauri::Result<()> {
    let open = MenuItem::with_id(app, "open", "Open Sentient", true, None::<&str>)?;
    let stop = MenuItem::with_id(
        app,
        "stop",
        stop_label(engine.services().stop().is_stopped()),
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
    let tray = tray.build(app)?;

    // Keep the label in step with every change (window, hotkey, devices, the API), and the
    // tooltip with the unread count.
    let mut events = engine.services().bus().subscribe();
    let shutdown = engine.services().shutdown_token();
    let engine = engine.clone();
    tauri::async_runtime::spawn(async move {
        let _ = tray.set_tooltip(Some(tooltip_text(unread_count(&engine).await)));
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                received = events.recv() => match received {
                    Ok(envelope) => {
                        if let DomainEvent::StopUpdated(state) = &envelope.event {
                            let _ = stop.set_text(stop_label(state.stopped));
                        } else if changes_unread(&envelope.event) {
                            let text = tooltip_text(unread_count(&engine).await);
                            let _ = tray.set_tooltip(Some(text));
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
        let result = if engine.services().stop().is_stopped() {
            engine
                .services()
                .stop()
                .resume(Some("tray"))
                .await
                .map(|_| ())
        } else {
            engine
                .services()
                .stop()
                .stop_all(Some("tray"))
                .await
                .map(|_| ())
        };
        if let Err(error) = result {
            tracing::error!(%error, "tray stop/resume failed");
        }
    });
}

#[cfg(test)]
mod tests {
    use sentient_engine::bus::DomainEvent;
    use sentient_engine::notifications::NewNotification;

    use crate::test_support::{engine_and_app, next_stop_state};

    use super::{changes_unread, stop_label, toggle_stop, tooltip_text, unread_count};

    #[test]
    fn the_tooltip_counts_unread_notifications() {
        assert_eq!(tooltip_text(0), "Sentient");
        assert_eq!(tooltip_text(3), "Sentient \u{2014} 3 unread");
    }

    #[test]
    fn the_unread_count_follows_the_feed() {
        let (_home, engine, _app) = engine_and_app();
        tauri::async_runtime::block_on(async {
            assert_eq!(unread_count(&engine).await, 0);
            let mut ids = Vec::new();
            for title in ["One", "Two"] {
                let n = engine
                    .services()
                    .notifications()
                    .notify(NewNotification {
                        kind: "info".into(),
                        title: title.into(),
                        ..Default::default()
                    })
                    .await
                    .expect("notify");
                ids.push(n.id);
            }
            assert_eq!(unread_count(&engine).await, 2);
            engine
                .services()
                .notifications()
                .read_notification(&ids[0])
                .await
                .expect("read");
            assert_eq!(unread_count(&engine).await, 1);
            engine
                .services()
                .notifications()
                .read_all_notifications()
                .await
                .expect("read all");
            assert_eq!(unread_count(&engine).await, 0);
            engine.services().shutdown().await;
        });
    }

    #[test]
    fn only_notification_events_change_the_count() {
        assert!(changes_unread(&DomainEvent::NotificationRead { id: None }));
        assert!(changes_unread(&DomainEvent::NotificationDeleted {
            id: None
        }));
        assert!(!changes_unread(&DomainEvent::StopUpdated(
            sentient_engine::stop::StopState::default()
        )));
    }

    #[test]
    fn the_tray_item_stops_then_resumes_with_source_tray() {
        let (_home, engine, app) = engine_and_app();
        let mut events = engine.services().bus().subscribe();
        toggle_stop(app.handle());
        let stopped = next_stop_state(&mut events);
        assert!(stopped.stopped);
        assert_eq!(stopped.source.as_deref(), Some("tray"));
        toggle_stop(app.handle());
        let resumed = next_stop_state(&mut events);
        assert!(!resumed.stopped);
        assert_eq!(resumed.source.as_deref(), Some("tray"));
        tauri::async_runtime::block_on(engine.services().shutdown());
    }

    #[test]
    fn the_label_offers_the_opposite_of_the_state() {
        assert_eq!(stop_label(false), "Stop everything");
        assert_eq!(stop_label(true), "Resume");
    }
}
