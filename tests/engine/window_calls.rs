//! The window's calls against the engine's own route list: every HTTP entry of `CALLS` in
//! `ui/src/api/calls.ts` (method and path, path parameters as `{}`) must be an operation of the
//! OpenAPI document a real engine serves, so a typo, a moved route or a wrong method in the window
//! fails here instead of in a person's window.

use sentient_e2e::TestEngine;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// One request the window sends: `POST /api/tasks/{}/approve`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Call {
    method: String,
    path: String,
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

/// The text of a string literal (`'…'`) or template (`` `…` ``) starting at `text[0]`, with each
/// `${…}` kept as written, and the rest of `text` after it.
fn literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| matches!(c, '\'' | '`'))?;
    let mut out = String::new();
    let mut depth = 0usize;
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if depth == 0 && c == quote {
            return Some((out, &text[i + c.len_utf8()..]));
        }
        if quote == '`' && depth == 0 && c == '$' && chars.peek().map(|&(_, n)| n) == Some('{') {
            chars.next();
            depth = 1;
            out.push_str("${");
            continue;
        }
        if depth > 0 {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
        }
        out.push(c);
    }
    None
}

/// `const runPath = (…) => `…`;` helpers: a name whose call builds a path, and its template.
fn path_helpers(source: &str) -> Vec<(String, String)> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("const ")?;
            let (name, rest) = rest.split_once(" = (")?;
            let (_, body) = rest.split_once(") => ")?;
            let (template, _) = literal(body.trim())?;
            template
                .starts_with('/')
                .then(|| (name.to_owned(), template))
        })
        .collect()
}

/// A template's path with each `${…}` that is a whole segment as `{}`, a helper's call expanded,
/// and the query (`?…`, or the `queryString(…)` the memory list builds it with) left out. Any
/// other placeholder is an error, so a new shape is read on purpose rather than guessed.
fn normalise(template: &str, helpers: &[(String, String)]) -> Result<String, String> {
    let mut text = template.to_owned();
    for (name, body) in helpers {
        while let Some(start) = text.find(&format!("${{{name}(")) {
            let end = start + text[start..].find(')').ok_or("an unclosed helper call")? + 2;
            text.replace_range(start..end, body);
        }
    }
    if let Some(at) = text.find("${queryString(") {
        let tail = &text[at..];
        if !tail.ends_with(")}") || tail[2..].contains("${") {
            return Err(format!("queryString(…) is not the end of `{template}`"));
        }
        text.truncate(at);
    }
    let path = text.split('?').next().unwrap_or_default();
    path.split('/')
        .map(|segment| {
            if segment.starts_with("${") && segment.ends_with('}') {
                Ok("{}".to_owned())
            } else if segment.contains("${") || segment.contains('{') {
                Err(format!(
                    "`{segment}` in `{template}` mixes text and a value"
                ))
            } else {
                Ok(segment.to_owned())
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|segments| segments.join("/"))
}

/// Every `http: METHOD(path…)` of the `CALLS` table. Fails if an `http:` entry can't be read.
fn window_calls(source: &str) -> Result<Vec<Call>, String> {
    let table = source
        .split_once("export const CALLS = {")
        .ok_or("no `export const CALLS = {` in calls.ts")?
        .1;
    let helpers = path_helpers(source);
    let mut calls = Vec::new();
    for (at, key) in table.match_indices("http:") {
        let after = table[at + key.len()..].trim_start();
        let method = METHODS
            .iter()
            .find(|m| after.starts_with(&format!("{m}(")))
            .ok_or_else(|| format!("an http entry that isn't METHOD(…): {}", first_line(after)))?;
        let (template, _) = literal(after[method.len() + 1..].trim_start())
            .ok_or_else(|| format!("a path that isn't a string: {}", first_line(after)))?;
        calls.push(Call {
            method: (*method).to_owned(),
            path: normalise(&template, &helpers)?,
        });
    }
    Ok(calls)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Every operation of an OpenAPI document, path parameters as `{}`.
fn documented(doc: &Value) -> BTreeSet<Call> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        let path = path
            .split('/')
            .map(|s| if s.starts_with('{') { "{}" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        for method in METHODS {
            if item.get(method.to_lowercase()).is_some() {
                ops.insert(Call {
                    method: method.to_owned(),
                    path: path.clone(),
                });
            }
        }
    }
    ops
}

/// The window's calls the document doesn't have, each with what the document has at that path.
fn undocumented(calls: &[Call], doc: &BTreeSet<Call>) -> Vec<String> {
    calls
        .iter()
        .filter(|call| !doc.contains(call))
        .map(|call| {
            let there: Vec<&str> = doc
                .iter()
                .filter(|op| op.path == call.path)
                .map(|op| op.method.as_str())
                .collect();
            if there.is_empty() {
                format!("{call}: no such path")
            } else {
                format!("{call}: the path takes {}", there.join(", "))
            }
        })
        .collect()
}

fn calls_ts() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/api/calls.ts");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[tokio::test]
async fn every_window_call_is_an_operation_of_the_openapi_document() -> anyhow::Result<()> {
    let source = calls_ts();
    // Every `http:` of the table is read, or this fails.
    let calls = window_calls(&source).map_err(anyhow::Error::msg)?;
    assert!(calls.len() > 90, "too few calls read: {}", calls.len());

    let t = TestEngine::start().await?;
    let (status, doc) = t.client.get("/api/openapi.json").await?;
    t.stop().await;
    assert_eq!(status, 200);
    let ops = documented(&doc);
    assert!(
        ops.len() > 90,
        "too few operations documented: {}",
        ops.len()
    );
    assert_eq!(undocumented(&calls, &ops), Vec::<String>::new());
    Ok(())
}

#[test]
fn the_reader_finds_every_form_of_an_entry() {
    let source = r#"
const enc = encodeURIComponent;
const runPath = (taskId: string, runId: string) => `/api/tasks/${enc(taskId)}/runs/${enc(runId)}`;
export const CALLS = {
  health: (): Doors<Health> => ({ http: GET('/api/health'), tauri: () => commands.health() }),
  hardware: (refresh = false): Doors<Hardware> => ({
    http: GET(`/api/system/hardware?refresh=${refresh ? 'true' : 'false'}`),
  }),
  renamePreset: (name: string, newName: string): Doors<Preset> => ({
    http: PATCH(`/api/models/presets/${enc(name)}`, { name: newName }),
  }),
  cancelRun: (id: string, runId: string): Doors<Task> => ({
    http: POST(`${runPath(id, runId)}/cancel`),
  }),
  listMemories: (query: MemoryQuery = {}): Doors<Memory[]> => ({
    http: GET(`/api/memories${queryString(query)}`),
  }),
  approveReviewItem: (kind: ReviewKind, id: number | string): Doors<OkReply> => ({
    http: POST(`/api/memories/review/${kind}/${enc(String(id))}/approve`, {}),
  }),
};
"#;
    let read: Vec<String> = window_calls(source)
        .expect("read")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        read,
        [
            "GET /api/health",
            "GET /api/system/hardware",
            "PATCH /api/models/presets/{}",
            "POST /api/tasks/{}/runs/{}/cancel",
            "GET /api/memories",
            "POST /api/memories/review/{}/{}/approve",
        ]
    );
}

#[test]
fn the_reader_refuses_an_entry_it_cannot_read() {
    for bad in [
        "export const CALLS = { a: () => ({ http: request('/api/a') }) };",
        "export const CALLS = { a: () => ({ http: GET(path) }) };",
        "export const CALLS = { a: (id) => ({ http: GET(`/api/a/x${id}`) }) };",
    ] {
        assert!(window_calls(bad).is_err(), "read {bad}");
    }
}

#[test]
fn the_check_names_an_unknown_path_and_a_wrong_method() {
    let doc = serde_json::json!({"paths": {
        "/api/tasks/{task_id}": {"get": {}, "patch": {}},
        "/api/health": {"get": {}},
    }});
    let calls = [
        Call {
            method: "GET".into(),
            path: "/api/health".into(),
        },
        Call {
            method: "PATCH".into(),
            path: "/api/tasks/{}".into(),
        },
        Call {
            method: "PUT".into(),
            path: "/api/tasks/{}".into(),
        },
        Call {
            method: "GET".into(),
            path: "/api/task/{}".into(),
        },
    ];
    assert_eq!(
        undocumented(&calls, &documented(&doc)),
        [
            "PUT /api/tasks/{}: the path takes GET, PATCH",
            "GET /api/task/{}: no such path",
        ]
    );
}
