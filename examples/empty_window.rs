//! The floor for the desktop app's idle memory (issue 33): one Tauri window showing a blank
//! page, built from the same Tauri and WebKitGTK as the app, with no engine, tray or plugins.
//! `bash tests/bench/idle-memory.sh` measures the app beside it; the difference is what
//! Sentient itself adds to a window.

fn main() {
    let mut context = tauri::generate_context!();
    // Not the app's window (which loads the whole interface): a blank one.
    context.config_mut().app.windows.clear();
    let built = tauri::Builder::default()
        .setup(|app| {
            let blank = tauri::WebviewUrl::External("about:blank".parse()?);
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
