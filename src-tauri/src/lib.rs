//! The desktop shell: starts the engine in-process, then gives it a window, a tray menu, the
//! global Stop hotkey and native notifications. No business logic lives here; every action is
//! one engine service call.

mod autostart;
pub mod bindings;
pub mod commands;
pub mod desktop_node;
mod events;
mod hotkey;
mod screen;
#[cfg(test)]
mod test_support;
mod tray;

use sentient_engine::home::Home;
use sentient_engine::{Engine, EngineOptions, logging};
use tauri::{Manager, RunEvent, WindowEvent};
use tauri_plugin_window_state::StateFlags;

/// The window's label in tauri.conf.json.
pub const MAIN_WINDOW: &str = "main";

/// Brings the main window to the front (tray, second launch, notification click).
pub fn show_main_window<R: tauri::Runtime>(app: &tauri::AppHandle<R>) {
    if let Some(window) = app.get_webview_window(MAIN_WINDOW) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Runs the app until the user quits.
pub fn run() {
    let home = match Home::resolve(None).and_then(|h| h.ensure_layout().map(|()| h)) {
        Ok(home) => home,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    };
    let _logs = logging::init(&home.logs());
    let specta = bindings::builder::<tauri::Wry>();

    let app = tauri::Builder::default()
        // First, so a second launch only focuses the running window.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            show_main_window(app);
        }))
        .plugin(
            tauri_plugin_window_state::Builder::default()
                // Remember size and place; the window stays hidden until the engine is up.
                .with_state_flags(StateFlags::all() & !StateFlags::VISIBLE)
                .build(),
        )
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            None,
        ))
        .plugin(hotkey::plugin())
        .invoke_handler(specta.invoke_handler())
        .setup(move |app| {
            let options = EngineOptions {
                home: Some(home.root().to_owned()),
                port: std::env::var("SENTIENT_PORT")
                    .ok()
                    .and_then(|p| p.parse().ok()),
                token: std::env::var("SENTIENT_TOKEN")
                    .ok()
                    .filter(|t| !t.is_empty()),
                ..Default::default()
            };
            let engine = tauri::async_runtime::block_on(Engine::start(options))?;
            announce_ready(&engine);
            app.manage(engine.clone());
            events::forward(app.handle().clone(), engine.clone(), events::native_pop_up);
            tray::build(app.handle(), &engine)?;
            hotkey::register(app.handle());
            autostart::follow_setting(app.handle().clone(), engine.clone());
            desktop_node::start(
                engine.clone(),
                std::sync::Arc::new(desktop_node::SystemScreen),
            );
            stop_on_terminate(app.handle().clone());
            show_main_window(app.handle());
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::CloseRequested { api, .. } = event {
                let to_tray = window
                    .app_handle()
                    .try_state::<Engine>()
                    .is_some_and(|engine| engine.services().config().current().ui.minimize_to_tray);
                if to_tray {
                    api.prevent_close();
                    let _ = window.hide();
                }
            }
        })
        .build(tauri::generate_context!());

    let app = match app {
        Ok(app) => app,
        Err(error) => {
            tracing::error!(%error, "the window could not start");
            eprintln!("Sentient's window could not start: {error}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let RunEvent::Exit = event
            && let Some(engine) = handle.try_state::<Engine>()
        {
            tauri::async_runtime::block_on(engine.services().shutdown());
        }
    });
}

/// The same ready line `sentient serve` prints, so scripts find the port and token.
fn announce_ready(engine: &Engine) {
    use std::io::Write;
    let ready = serde_json::json!({
        "url": engine.services().url(),
        "token": engine.services().token(),
        "home": engine.services().home().root().display().to_string(),
        "web_url": engine.services().web_url(),
    });
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{ready}");
    let _ = stdout.flush();
}

/// SIGTERM (a session ending, a test) quits like the tray's Quit: the engine shuts down cleanly.
fn stop_on_terminate(app: tauri::AppHandle) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            term.recv().await;
            tracing::info!("terminate signal: quitting");
            app.exit(0);
        }
    });
    #[cfg(not(unix))]
    let _ = app;
}
