//! The layers hold: every crate depends only on crates below it (the table here is the one in
//! docs/ARCHITECTURE.md), no crate below the engine names `Engine` or `sentient_engine`, and the
//! bus imports nothing but the domain types and the clock. A new area crate must be added to
//! the table, so its place is decided on purpose.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Each workspace crate and its layer; a crate may depend only on crates of a lower layer.
const LAYERS: &[(&str, u8)] = &[
    ("sentient-model-server", 0),
    ("sentient-mcp-test-server", 0),
    ("sentient-core", 0),
    ("sentient-llm", 1),
    ("sentient-node", 1),
    ("sentient-agent", 2),
    ("sentient-tasks", 3),
    ("sentient-memory", 3),
    ("sentient-integrations", 3),
    ("sentient-sandbox", 3),
    ("sentient-services", 4),
    ("sentient-engine", 5),
    ("sentient-desktop", 6),
    ("sentient-e2e", 6),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits in the workspace")
        .to_path_buf()
}

/// `cargo metadata` for the workspace's own packages.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// Where a violation would be: `(crate, dependency)` pairs whose arrow points up or sideways.
fn upward_dependencies(packages: &[Value]) -> Vec<String> {
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut wrong = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(&layer) = layers.get(name) else {
            wrong.push(format!(
                "{name} is not in the LAYERS table of tests/engine/layers.rs"
            ));
            continue;
        };
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let dep_name = dep["name"].as_str().unwrap_or_default();
            if let Some(&dep_layer) = layers.get(dep_name)
                && dep_layer >= layer
            {
                wrong.push(format!(
                    "{name} (layer {layer}) depends on {dep_name} (layer {dep_layer})"
                ));
            }
        }
    }
    wrong
}

/// Lines of code (comments left out) under `dir` that name the engine.
fn lines_naming_the_engine(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("read the crate's folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read a source file");
                for (i, line) in text.lines().enumerate() {
                    let code = line.trim_start();
                    if code.starts_with("//") {
                        continue;
                    }
                    let names_engine = code.contains("sentient_engine")
                        || code
                            .replace("base64::Engine", "")
                            .split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|word| word == "Engine");
                    if names_engine {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn every_crate_depends_only_on_crates_below_it() {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().expect("packages");
    assert!(packages.len() >= LAYERS.len(), "{packages:?}");
    let wrong = upward_dependencies(packages);
    assert!(
        wrong.is_empty(),
        "the layers are broken:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_finds_an_upward_dependency() {
    let packages = vec![serde_json::json!({
        "name": "sentient-agent",
        "dependencies": [{"name": "sentient-tasks"}, {"name": "sentient-core"}],
    })];
    assert_eq!(
        upward_dependencies(&packages),
        ["sentient-agent (layer 2) depends on sentient-tasks (layer 3)"]
    );
    let unknown = vec![serde_json::json!({"name": "sentient-browser", "dependencies": []})];
    assert_eq!(upward_dependencies(&unknown).len(), 1);
}

#[test]
fn no_crate_below_the_engine_names_it() {
    let root = workspace_root().join("src-tauri");
    let mut found = Vec::new();
    for (name, layer) in LAYERS {
        let Some(folder) = name.strip_prefix("sentient-") else {
            continue;
        };
        let src = root.join(folder).join("src");
        if *layer < 5 && src.is_dir() {
            found.extend(lines_naming_the_engine(&src));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Tasks is plugged into the services by the engine; were the services to depend on it, a change
/// to tasks would rebuild them and the gateway again.
#[test]
fn the_services_do_not_compile_against_tasks() {
    let metadata = metadata();
    let services = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "sentient-services")
        .expect("the services crate is in the workspace");
    let deps: Vec<&str> = services["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert!(deps.contains(&"sentient-agent"), "{deps:?}");
    assert!(!deps.contains(&"sentient-tasks"), "{deps:?}");
}

#[test]
fn the_bus_imports_only_domain_types_and_the_clock() {
    let bus = workspace_root().join("src-tauri/core/src/bus.rs");
    let text = std::fs::read_to_string(&bus).expect("bus.rs");
    let imports: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("use crate::") || l.contains(" use crate::"))
        .collect();
    assert!(!imports.is_empty(), "bus.rs uses the domain types");
    for line in imports {
        assert!(
            line.contains("crate::domain") || line.contains("crate::clock"),
            "bus.rs imports something above the domain: {line}"
        );
    }
}
