//! The `files` app: list, read and write files inside `<home>/files/` and nowhere else.
//! Paths are relative to that folder; absolute paths, `..` and symbolic links that lead out
//! are refused with a plain sentence.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tool::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, blocking,
    parse_args,
};

/// Files bigger than this are not read at all.
pub const READ_MAX_BYTES: u64 = 20 * 1024 * 1024;

pub fn plugin() -> Plugin {
    Plugin {
        id: "files".to_owned(),
        display_name: "Files".to_owned(),
        description: "Read and write files in Sentient's files folder.".to_owned(),
        category: "built_in".to_owned(),
        icon: "folder".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "file files folder read write save note document upload output list"
            .to_owned(),
        scoped: false,
        tools: vec![
            Arc::new(FilesList::new()),
            Arc::new(FilesRead::new()),
            Arc::new(FilesWrite::new()),
        ],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// The folder to list, relative to Sentient's files folder (for example uploads); leave it out for the top.
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// The file to read, relative to Sentient's files folder (for example uploads/notes.txt).
    pub path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// Where to save, relative to Sentient's files folder (for example outputs/summary.md); missing folders are made.
    pub path: String,
    /// The whole text to save; an existing file is replaced.
    pub content: String,
}

/// One entry of a folder listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    /// `file`, `folder` or `link`.
    pub kind: String,
    /// Bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// Turns the model's path into one relative to the files folder, or says why it can't be used.
pub fn relative(path: &str) -> Result<PathBuf, ToolError> {
    let trimmed = path.trim();
    let as_path = Path::new(trimmed);
    let outside = || {
        ToolError::Failed(format!(
            "{trimmed} is outside Sentient's files folder. Use a path inside it, such as uploads/notes.txt."
        ))
    };
    if trimmed.starts_with('/') || trimmed.starts_with('\\') || as_path.has_root() {
        return Err(outside());
    }
    let mut clean = PathBuf::new();
    for part in as_path.components() {
        match part {
            Component::Normal(name) => clean.push(name),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(outside());
            }
        }
    }
    Ok(clean)
}

fn io_failure(shown: &str, error: &std::io::Error) -> ToolError {
    match error.kind() {
        std::io::ErrorKind::NotFound => ToolError::Failed(format!(
            "There is nothing called {shown} in Sentient's files folder. List the folder to see what is there."
        )),
        std::io::ErrorKind::PermissionDenied => {
            ToolError::Failed(format!("Sentient isn't allowed to open {shown}."))
        }
        _ => ToolError::Failed(format!("{shown} could not be used: {error}.")),
    }
}

fn escaped(shown: &str) -> ToolError {
    ToolError::Failed(format!(
        "{shown} leads outside Sentient's files folder through a link, so it can't be used."
    ))
}

/// The canonical files folder, made if missing.
fn root(ctx_root: &Path) -> Result<PathBuf, ToolError> {
    std::fs::create_dir_all(ctx_root)
        .and_then(|()| ctx_root.canonicalize())
        .map_err(|e| io_failure("the files folder", &e))
}

/// An existing path inside the files folder, links resolved and checked.
fn existing(ctx_root: &Path, rel: &Path, shown: &str) -> Result<PathBuf, ToolError> {
    let root = root(ctx_root)?;
    let real = root
        .join(rel)
        .canonicalize()
        .map_err(|e| io_failure(shown, &e))?;
    if !real.starts_with(&root) {
        return Err(escaped(shown));
    }
    Ok(real)
}

/// Where a new or replaced file goes: its nearest existing folder must be inside the files
/// folder once links are resolved, and a link in its place must point inside too.
fn writable(ctx_root: &Path, rel: &Path, shown: &str) -> Result<PathBuf, ToolError> {
    let root = root(ctx_root)?;
    let target = root.join(rel);
    if target == root {
        return Err(ToolError::Failed(
            "Give a file name to write, such as outputs/notes.txt.".to_owned(),
        ));
    }
    let mut ancestor = target.parent();
    while let Some(dir) = ancestor {
        if dir.symlink_metadata().is_ok() {
            let real = dir.canonicalize().map_err(|e| io_failure(shown, &e))?;
            if !real.starts_with(&root) {
                return Err(escaped(shown));
            }
            break;
        }
        ancestor = dir.parent();
    }
    if let Ok(meta) = target.symlink_metadata() {
        if meta.file_type().is_symlink() {
            let real = target.canonicalize().map_err(|_| escaped(shown))?;
            if !real.starts_with(&root) {
                return Err(escaped(shown));
            }
        } else if meta.is_dir() {
            return Err(ToolError::Failed(format!(
                "{shown} is a folder. Pick a file name inside it."
            )));
        }
    }
    Ok(target)
}

fn shown(rel: &Path) -> String {
    let text = rel.to_string_lossy().replace('\\', "/");
    if text.is_empty() {
        "the files folder".to_owned()
    } else {
        text
    }
}

pub fn list(files_root: &Path, path: Option<&str>) -> Result<Value, ToolError> {
    let rel = relative(path.unwrap_or(""))?;
    let shown = shown(&rel);
    let dir = existing(files_root, &rel, &shown)?;
    if !dir.is_dir() {
        return Err(ToolError::Failed(format!(
            "{shown} is a file, not a folder. Read it with files_read."
        )));
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| io_failure(&shown, &e))? {
        let entry = entry.map_err(|e| io_failure(&shown, &e))?;
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        let (kind, size) = if meta.file_type().is_symlink() {
            ("link", None)
        } else if meta.is_dir() {
            ("folder", None)
        } else {
            ("file", Some(meta.len()))
        };
        entries.push(Entry {
            name: entry.file_name().to_string_lossy().into_owned(),
            kind: kind.to_owned(),
            size,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(serde_json::json!({"path": shown, "entries": entries}))
}

pub fn read(files_root: &Path, path: &str) -> Result<String, ToolError> {
    let rel = relative(path)?;
    let shown = shown(&rel);
    let file = existing(files_root, &rel, &shown)?;
    let meta = file.metadata().map_err(|e| io_failure(&shown, &e))?;
    if meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{shown} is a folder. List it with files_list."
        )));
    }
    if meta.len() > READ_MAX_BYTES {
        return Err(ToolError::Failed(format!(
            "{shown} is {} MB, too big to read as text (the limit is 20 MB).",
            meta.len() / (1024 * 1024)
        )));
    }
    let bytes = std::fs::read(&file).map_err(|e| io_failure(&shown, &e))?;
    String::from_utf8(bytes).map_err(|_| {
        ToolError::Failed(format!(
            "{shown} isn't a text file, so it can't be read as text."
        ))
    })
}

pub fn write(files_root: &Path, path: &str, content: &str) -> Result<Value, ToolError> {
    let rel = relative(path)?;
    let shown = shown(&rel);
    let target = writable(files_root, &rel, &shown)?;
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_failure(&shown, &e))?;
    }
    sentient_core::home::write_atomically(&target, content.as_bytes())
        .map_err(|e| io_failure(&shown, &e))?;
    Ok(serde_json::json!({"path": shown, "bytes": content.len()}))
}

pub struct FilesList {
    def: ToolDef,
}

impl FilesList {
    fn new() -> Self {
        Self {
            def: ToolDef::new::<ListArgs>(
                "files_list",
                "List the files and folders in Sentient's files folder (uploads holds what the user shared, outputs what Sentient made).",
                Risk::Read,
            ),
        }
    }
}

impl Tool for FilesList {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: ListArgs = parse_args(args)?;
            let root = ctx.files_root();
            let listing = blocking(move || list(&root, args.path.as_deref())).await?;
            Ok(ToolOutput {
                value: listing,
                ..ToolOutput::default()
            })
        })
    }
}

pub struct FilesRead {
    def: ToolDef,
}

impl FilesRead {
    fn new() -> Self {
        Self {
            def: ToolDef::new::<ReadArgs>(
                "files_read",
                "Read a text file from Sentient's files folder.",
                Risk::Read,
            ),
        }
    }
}

impl Tool for FilesRead {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: ReadArgs = parse_args(args)?;
            let root = ctx.files_root();
            let text = blocking(move || read(&root, &args.path)).await?;
            Ok(ToolOutput::text(text))
        })
    }
}

pub struct FilesWrite {
    def: ToolDef,
}

impl FilesWrite {
    fn new() -> Self {
        Self {
            def: ToolDef::new::<WriteArgs>(
                "files_write",
                "Save text as a file in Sentient's files folder, replacing a file of the same name.",
                Risk::Write,
            ),
        }
    }
}

impl Tool for FilesWrite {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: WriteArgs = parse_args(args)?;
            let root = ctx.files_root();
            let saved = blocking(move || write(&root, &args.path, &args.content)).await?;
            Ok(ToolOutput {
                value: saved,
                ..ToolOutput::default()
            })
        })
    }
    fn describe(&self, args: &Value) -> Option<CallDescription> {
        Some(CallDescription {
            risk_label: Some("Saves a file".to_owned()),
            target: args.get("path").and_then(Value::as_str).map(str::to_owned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolRegistry;
    use sentient_core::home::Home;
    use serde_json::json;

    fn setup() -> (tempfile::TempDir, ToolCtx) {
        let dir = tempfile::tempdir().expect("dir");
        let home = Home::at(dir.path().join("home"));
        home.ensure_layout().expect("layout");
        let ctx = ToolCtx::new(home, reqwest::Client::new(), "f1");
        (dir, ctx)
    }

    async fn run(ctx: &ToolCtx, name: &str, args: Value) -> (bool, Value) {
        let result = ToolRegistry::with_plugins(crate::tools::plain_plugins())
            .invoke(name, args, ctx, 100_000)
            .await;
        (result.is_error, result.value)
    }

    #[tokio::test]
    async fn write_read_and_list() {
        let (_dir, ctx) = setup();
        let (err, saved) = run(
            &ctx,
            "files_write",
            json!({"path": "outputs/notes/today.md", "content": "héllo"}),
        )
        .await;
        assert!(!err, "{saved}");
        assert_eq!(saved, json!({"path": "outputs/notes/today.md", "bytes": 6}));
        assert_eq!(
            std::fs::read_to_string(ctx.files_root().join("outputs/notes/today.md")).expect("file"),
            "héllo"
        );
        let (_, text) = run(
            &ctx,
            "files_read",
            json!({"path": "./outputs/notes/today.md"}),
        )
        .await;
        assert_eq!(text, "héllo");
        let (_, listing) = run(&ctx, "files_list", json!({})).await;
        assert_eq!(
            listing,
            json!({"path": "the files folder", "entries": [
                {"name": "outputs", "kind": "folder"}, {"name": "screens", "kind": "folder"},
                {"name": "uploads", "kind": "folder"}]})
        );
        let (_, listing) = run(&ctx, "files_list", json!({"path": "outputs/notes"})).await;
        assert_eq!(
            listing["entries"],
            json!([{"name": "today.md", "kind": "file", "size": 6}])
        );
    }

    #[tokio::test]
    async fn paths_outside_are_refused() {
        let (dir, ctx) = setup();
        std::fs::write(dir.path().join("secret.txt"), "top secret").expect("secret");
        let outside =
            "is outside Sentient's files folder. Use a path inside it, such as uploads/notes.txt.";
        for (tool, args) in [
            ("files_read", json!({"path": "../secret.txt"})),
            ("files_read", json!({"path": "uploads/../../secret.txt"})),
            ("files_read", json!({"path": dir.path().join("secret.txt")})),
            (
                "files_write",
                json!({"path": "../evil.txt", "content": "x"}),
            ),
            (
                "files_write",
                json!({"path": "/tmp/evil.txt", "content": "x"}),
            ),
            ("files_list", json!({"path": ".."})),
        ] {
            let (err, value) = run(&ctx, tool, args.clone()).await;
            assert!(err, "{tool} {args}");
            let message = value["error"].as_str().expect("error");
            assert!(message.ends_with(outside), "{message}");
        }
        assert!(!dir.path().join("home/evil.txt").exists());
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn links_that_lead_out_are_refused() {
        let (dir, ctx) = setup();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).expect("elsewhere");
        std::fs::write(elsewhere.join("secret.txt"), "top secret").expect("secret");
        let files = ctx.files_root();
        std::os::unix::fs::symlink(&elsewhere, files.join("door")).expect("dir link");
        std::os::unix::fs::symlink(elsewhere.join("secret.txt"), files.join("peek.txt"))
            .expect("file link");
        let through_link =
            "leads outside Sentient's files folder through a link, so it can't be used.";
        for (tool, args) in [
            ("files_read", json!({"path": "door/secret.txt"})),
            ("files_read", json!({"path": "peek.txt"})),
            ("files_list", json!({"path": "door"})),
            (
                "files_write",
                json!({"path": "door/new.txt", "content": "x"}),
            ),
            (
                "files_write",
                json!({"path": "door/deeper/new.txt", "content": "x"}),
            ),
            ("files_write", json!({"path": "peek.txt", "content": "x"})),
        ] {
            let (err, value) = run(&ctx, tool, args.clone()).await;
            assert!(err, "{tool} {args}");
            let message = value["error"].as_str().expect("error");
            assert!(message.ends_with(through_link), "{tool} {args}: {message}");
        }
        assert_eq!(
            std::fs::read_to_string(elsewhere.join("secret.txt")).expect("secret"),
            "top secret"
        );
        assert!(!elsewhere.join("new.txt").exists());
        assert!(!elsewhere.join("deeper").exists());

        // A link that stays inside is fine.
        std::os::unix::fs::symlink(files.join("uploads"), files.join("up")).expect("inner link");
        let (err, _) = run(
            &ctx,
            "files_write",
            json!({"path": "up/a.txt", "content": "ok"}),
        )
        .await;
        assert!(!err);
        let (_, text) = run(&ctx, "files_read", json!({"path": "uploads/a.txt"})).await;
        assert_eq!(text, "ok");
    }

    #[tokio::test]
    async fn plain_errors_for_missing_folders_and_binary_files() {
        let (_dir, ctx) = setup();
        let (err, value) = run(&ctx, "files_read", json!({"path": "nope.txt"})).await;
        assert!(err);
        assert_eq!(
            value["error"],
            "There is nothing called nope.txt in Sentient's files folder. List the folder to see what is there."
        );
        std::fs::write(ctx.files_root().join("uploads/pic.bin"), [0xff, 0xfe, 0x00]).expect("bin");
        let (_, value) = run(&ctx, "files_read", json!({"path": "uploads/pic.bin"})).await;
        assert_eq!(
            value["error"],
            "uploads/pic.bin isn't a text file, so it can't be read as text."
        );
        let (_, value) = run(&ctx, "files_read", json!({"path": "uploads"})).await;
        assert_eq!(
            value["error"],
            "uploads is a folder. List it with files_list."
        );
        let (_, value) = run(
            &ctx,
            "files_write",
            json!({"path": "uploads", "content": "x"}),
        )
        .await;
        assert_eq!(
            value["error"],
            "uploads is a folder. Pick a file name inside it."
        );
        let (_, value) = run(&ctx, "files_write", json!({"path": "uploads/x.txt"})).await;
        assert_eq!(
            value["error"],
            "Invalid arguments for files_write: missing field `content`"
        );
    }

    #[test]
    fn write_describes_itself() {
        let tool = FilesWrite::new();
        assert_eq!(tool.def().risk, Risk::Write);
        let (risk, wording) = crate::tools::describe_call(&tool, &json!({"path": "b.md"}));
        assert_eq!(risk, Risk::Write);
        assert_eq!(wording.risk_label.as_deref(), Some("Saves a file"));
        assert_eq!(
            tool.describe(&json!({"path": "outputs/a.md"})),
            Some(CallDescription {
                risk_label: Some("Saves a file".to_owned()),
                target: Some("outputs/a.md".to_owned()),
            })
        );
    }
}
