//! The floor for the desktop app's idle memory (issue 33): one Tauri window showing a blank
//! page, built from the same Tauri and WebKitGTK as the app, with no engine, tray or plugins.
//! `bash tests/bench/idle-memory.sh` measures the app beside it; the difference is what
//! Sentient itself adds to a window.

fn main() {
    let mut context = tauri::generate_context!();
    // Not the app's window (which loads the whole interface): a blank one.
    context.config_mut().app.windows.clear();
    let built = tauri::Builder::default()
        // A page of its own, served by the app as the real window's are (about:blank would need
        // no web process, and every real page has one).
        .register_uri_scheme_protocol("floor", |_, _| {
            tauri::http::Response::builder()
                .header("Content-Type", "text/html")
                .body(b"<!doctype html><title>Empty</title>".to_vec())
                .unwrap_or_default()
        })
        .setup(|app| {
            let blank = tauri::WebviewUrl::External("floor://localhost/".parse()?);
            tauri::WebviewWindowBuilder::new(app, "floor", blank)
                .title("Empty window")
                .inner_size(1200.0, 800.0)
                .build()?;
            Ok(())
        })
        .run(context);
    if let Err(error) = built {
        eprintln!("the empty window could not start: {error}");
        std::process::exit(1);
    }
}
