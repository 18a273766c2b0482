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
    ("sentient-browser", 3),
    ("sentient-terminal", 3),
    ("sentient-subagents", 3),
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
    for (path, text) in source_files(dir) {
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
    let unknown = vec![serde_json::json!({"name": "sentient-voice", "dependencies": []})];
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

// ---- The shape inside a crate (issue 31): no type with too many methods, no file circle. ----

/// The most methods one type may have in a crate listed in [`CAPPED_METHODS`].
const MAX_METHODS: usize = 40;

/// Crates (folders under src-tauri) whose types are held to [`MAX_METHODS`]. Add a crate once
/// its split has landed.
const CAPPED_METHODS: &[&str] = &["tasks", "integrations"];

/// Crates (folders under src-tauri) whose files may not import each other in a circle.
const NO_FILE_CIRCLES: &[&str] = &["tasks", "memory", "agent", "integrations"];

/// Types allowed more than [`MAX_METHODS`] methods: `(crate, type, why)`.
const METHOD_EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// Every `.rs` file under `dir`, as `(path, text)`.
fn source_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("read a source folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read a source file");
                files.push((path, text));
            }
        }
    }
    files.sort();
    files
}

/// The code of a line without its `//` comment (doc comments name paths they don't import).
fn code_of(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// Methods per type in the inherent `impl` blocks of `files` (rustfmt layout: a block ends at
/// the `}` with the indent of its `impl` line; its methods are the `fn`s one level in). Trait
/// impls are left out: their size is the trait's.
fn methods_per_type(files: &[(PathBuf, String)]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (_, text) in files {
        let mut open: Option<(usize, String)> = None;
        for line in text.lines() {
            let code = code_of(line);
            let indent = code.len() - code.trim_start().len();
            let trimmed = code.trim();
            if let Some((at, name)) = &open {
                if indent == *at && trimmed == "}" {
                    open = None;
                } else if indent == at + 4 {
                    let words: Vec<&str> = trimmed
                        .split(|c: char| c.is_whitespace() || c == '(')
                        .collect();
                    if let Some(i) = words.iter().position(|w| *w == "fn")
                        && words[..i].iter().all(|w| {
                            [
                                "pub",
                                "pub(crate)",
                                "pub(super)",
                                "async",
                                "const",
                                "unsafe",
                            ]
                            .contains(w)
                        })
                    {
                        *counts.entry(name.clone()).or_insert(0) += 1;
                    }
                }
                continue;
            }
            let Some(rest) = trimmed.strip_prefix("impl") else {
                continue;
            };
            if !(rest.starts_with(' ') || rest.starts_with('<')) || !trimmed.ends_with('{') {
                continue;
            }
            // `impl<T> Name<T> {`: the type is the first word after the generics; `for` means a trait impl.
            let rest = if rest.starts_with('<') {
                let mut depth = 0;
                let end = rest
                    .char_indices()
                    .find(|(_, c)| {
                        match c {
                            '<' => depth += 1,
                            '>' => depth -= 1,
                            _ => {}
                        }
                        depth == 0
                    })
                    .map_or(rest.len(), |(i, _)| i + 1);
                &rest[end..]
            } else {
                rest
            };
            if rest.split_whitespace().any(|w| w == "for") {
                continue;
            }
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                open = Some((indent, name));
            }
        }
    }
    counts
}

/// The module a file of a crate's `src` is: `lib.rs` is the root (""), `a/b.rs` and
/// `a/b/mod.rs` are `a::b`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("a file under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The paths a file names from its own crate: `crate::a::b`, `super::c` and each item of
/// `crate::{a::X, b}`, as segments (`super` resolved against `module`).
fn crate_paths(module: &str, text: &str) -> Vec<Vec<String>> {
    // A file's tests sit in a `#[cfg(test)] mod tests` one level down, where `super::` is the file
    // itself: they end what is read (the project keeps them last).
    let text = text.split("\n#[cfg(test)]").next().unwrap_or(text);
    let code: String = text.lines().map(|l| format!("{}\n", code_of(l))).collect();
    let mut paths = Vec::new();
    for base in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(base) {
            let at = from + i;
            from = at + base.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &code[from..];
            let prefix: Vec<String> = if base == "super::" {
                let mut parent: Vec<String> = module
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                parent.pop();
                while let Some(further) = rest.strip_prefix("super::") {
                    parent.pop();
                    rest = further;
                }
                parent
            } else {
                Vec::new()
            };
            let items: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end]
                    .split(',')
                    .map(|s| s.trim().to_owned())
                    .collect()
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(rest.len());
                vec![rest[..end].to_owned()]
            };
            for item in items {
                let mut segments = prefix.clone();
                segments.extend(
                    item.split("::")
                        .map(str::trim)
                        .filter(|s| !s.is_empty() && *s != "self" && *s != "{")
                        .map(str::to_owned),
                );
                paths.push(segments);
            }
        }
    }
    paths
}

/// The file-to-file import graph of a crate's `src` (a name the root re-exports counts as the
/// module it comes from; a file naming itself is no edge).
fn import_graph(src: &Path) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let files = source_files(src);
    let modules: std::collections::BTreeSet<String> =
        files.iter().map(|(p, _)| module_of(src, p)).collect();
    // `pub use a::Name;` / `pub use a::{X, Y};` in the root: Name comes from a.
    let mut reexported: BTreeMap<String, String> = BTreeMap::new();
    if let Some((_, root)) = files.iter().find(|(p, _)| module_of(src, p).is_empty()) {
        for line in root.lines().map(code_of) {
            let Some(rest) = line
                .trim()
                .strip_prefix("pub use ")
                .or_else(|| line.trim().strip_prefix("pub(crate) use "))
            else {
                continue;
            };
            let Some((module, names)) = rest.split_once("::") else {
                continue;
            };
            for name in names
                .trim_matches(|c| c == '{' || c == '}' || c == ';')
                .split(',')
            {
                let name = name.trim().rsplit(' ').next().unwrap_or_default();
                let name = name.rsplit("::").next().unwrap_or_default();
                if !name.is_empty() {
                    reexported.insert(name.to_owned(), module.trim().to_owned());
                }
            }
        }
    }
    let mut graph = BTreeMap::new();
    for (path, text) in &files {
        let from = module_of(src, path);
        let mut to = std::collections::BTreeSet::new();
        for segments in crate_paths(&from, text) {
            let mut target = String::new();
            for i in 1..=segments.len() {
                let candidate = segments[..i].join("::");
                if modules.contains(&candidate) {
                    target = candidate;
                }
            }
            if target.is_empty()
                && let Some(module) = segments.first().and_then(|s| reexported.get(s))
            {
                target = module.clone();
            }
            if !target.is_empty() && target != from {
                to.insert(target);
            }
        }
        graph.insert(from, to);
    }
    graph
}

/// The circles in a graph: each strongly connected group of more than one module, sorted.
fn circles(graph: &BTreeMap<String, std::collections::BTreeSet<String>>) -> Vec<Vec<String>> {
    // Reachability by a walk from every module: small graphs, so plain and clear beats clever.
    let reach = |start: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![start.to_owned()];
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&String, std::collections::BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut found: Vec<Vec<String>> = Vec::new();
    for m in graph.keys() {
        let mut group: Vec<String> = graph
            .keys()
            .filter(|o| *o != m && reachable[m].contains(*o) && reachable[o].contains(m))
            .cloned()
            .collect();
        if group.is_empty() {
            continue;
        }
        group.push(m.clone());
        group.sort();
        if !found.contains(&group) {
            found.push(group);
        }
    }
    found
}

#[test]
fn no_type_has_more_than_forty_methods() {
    let root = workspace_root().join("src-tauri");
    let mut over = Vec::new();
    for krate in CAPPED_METHODS {
        let src = root.join(krate).join("src");
        assert!(src.is_dir(), "{} is not a crate folder", src.display());
        for (name, count) in methods_per_type(&source_files(&src)) {
            let excepted = METHOD_EXCEPTIONS
                .iter()
                .any(|(c, t, _)| c == krate && *t == name);
            if count > MAX_METHODS && !excepted {
                over.push(format!("{krate}: {name} has {count} methods"));
            }
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let root = workspace_root().join("src-tauri");
    let mut found = Vec::new();
    for krate in NO_FILE_CIRCLES {
        let src = root.join(krate).join("src");
        assert!(src.is_dir(), "{} is not a crate folder", src.display());
        let graph = import_graph(&src);
        assert!(graph.len() > 1, "{krate} has files to check");
        for circle in circles(&graph) {
            found.push(format!("{krate}: {}", circle.join(" ⇄ ")));
        }
    }
    assert!(found.is_empty(), "files in a circle:\n{}", found.join("\n"));
}

#[test]
fn the_shape_checks_find_what_they_look_for() {
    let dir = tempfile::tempdir().expect("temp folder");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).expect("folders");
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).expect("write");
    write(
        "lib.rs",
        "pub mod a;\npub mod b;\npub mod c;\npub use c::Leaf;\n",
    );
    write(
        "a.rs",
        "pub mod inner;\nuse crate::b::B;\n/// crate::c::Leaf in a comment is no import\n",
    );
    write("a/inner.rs", "use super::super::c;\n");
    write("b.rs", "use crate::{a::A, Leaf};\n");
    // A file's own tests may use anything: they are not the file's imports.
    write(
        "c.rs",
        "pub struct Leaf;\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::b::B;\n}\n",
    );
    let graph = import_graph(&src);
    let set = |names: &[&str]| -> std::collections::BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    };
    assert_eq!(graph["a"], set(&["b"]));
    assert_eq!(graph["a::inner"], set(&["c"]));
    assert_eq!(graph["b"], set(&["a", "c"]));
    assert_eq!(graph["c"], set(&[]));
    assert_eq!(circles(&graph), [vec!["a".to_owned(), "b".to_owned()]]);

    let many: String = (0..41)
        .map(|i| format!("    pub async fn m{i}(&self) {{}}\n"))
        .collect();
    let text = format!(
        "impl<T> Big<T> {{\n{many}}}\n\nimpl std::fmt::Debug for Big<u8> {{\n    fn fmt(&self) {{}}\n}}\n\nimpl Small {{\n    fn one(&self) {{\n        fn nested() {{}}\n    }}\n}}\n"
    );
    let counts = methods_per_type(&[(PathBuf::from("x.rs"), text)]);
    assert_eq!(counts.get("Big"), Some(&41));
    assert_eq!(counts.get("Small"), Some(&1));
}
