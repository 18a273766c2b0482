//! The architecture page stays true to the code: its folder layout names every Rust source file
//! of the engine's crates and the shell, and nothing that is gone. A file added, moved or removed
//! without the page fails here, which is how the layout went stale before.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, as paths relative to it with `/` separators.
fn rust_files(dir: &Path, base: &Path, out: &mut BTreeSet<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(base).expect("under the base");
            out.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The files the layout names: a line at column 0 ending in `/src/` (then a crate's name) opens
/// that crate's folder; an indented line whose first word ends in `.rs` names a file in it.
fn listed_files(layout: &str) -> BTreeSet<String> {
    let mut listed = BTreeSet::new();
    let mut folder: Option<String> = None;
    for line in layout.lines() {
        let first = line.split_whitespace().next().unwrap_or_default();
        if !line.starts_with(' ') && first.starts_with("src-tauri/") && first.ends_with("src/") {
            folder = Some(first.to_owned());
        } else if line.starts_with("  ")
            && first.ends_with(".rs")
            && let Some(folder) = &folder
        {
            listed.insert(format!("{folder}{first}"));
        } else if !line.starts_with(' ') && !line.trim().is_empty() {
            folder = None;
        }
    }
    listed
}

/// The first fenced block under `## Folder layout`.
fn folder_layout(page: &str) -> &str {
    let section = page
        .split_once("\n## Folder layout\n")
        .expect("docs/ARCHITECTURE.md has a Folder layout section")
        .1;
    let block = section
        .split_once("```\n")
        .expect("the section has a fenced block")
        .1;
    block.split_once("```").expect("the block is closed").0
}

#[test]
fn the_folder_layout_names_every_source_file_and_nothing_else() {
    let root = workspace_root();
    let page = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("read the page");
    let listed = listed_files(folder_layout(&page));

    let mut actual = BTreeSet::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root.join("src-tauri"))
        .expect("read src-tauri")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.join("src"))
        .collect();
    folders.push(root.join("src-tauri/src"));
    for folder in folders {
        let mut files = BTreeSet::new();
        rust_files(&folder, &folder, &mut files);
        let prefix = folder
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        actual.extend(files.into_iter().map(|f| format!("{prefix}/{f}")));
    }

    let missing: Vec<_> = actual.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&actual).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "docs/ARCHITECTURE.md's folder layout is out of date.\nNot listed: {missing:#?}\nListed but gone: {gone:#?}"
    );
}

#[test]
fn the_layout_reader_sees_files_under_their_crate_only() {
    let layout = "src-tauri/core/src/     sentient-core\n  lib.rs   the face\n  config/merge.rs  merge\nui/   the window\n  main.rs  not a crate file\n";
    let listed = listed_files(layout);
    let expected: BTreeSet<String> = [
        "src-tauri/core/src/lib.rs",
        "src-tauri/core/src/config/merge.rs",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(listed, expected);
}
