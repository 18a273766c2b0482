fn main() {
    // Each capability file, by name: a directory entry alone does not catch edits inside it.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    if let Ok(entries) = std::fs::read_dir("src-tauri/capabilities") {
        for entry in entries.flatten() {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
    }
    let attributes =
        tauri_build::Attributes::new().capabilities_path_pattern("./src-tauri/capabilities/**/*");
    if let Err(error) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri build step failed: {error:#}");
        std::process::exit(1);
    }
}
