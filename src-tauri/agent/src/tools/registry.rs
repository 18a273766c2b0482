//! The registry of apps and tools: what is offered to the model, what Settings lists, and the
//! one place a call runs (arguments checked, cancellation watched, long results cut and saved).

use sentient_core::sync::RwLockExt;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::tool::{Plugin, Tool, ToolCtx, ToolError, ToolInfo};
use sentient_llm::types::ToolSpec;

/// One app as `GET /api/tools` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PluginInfo {
    pub id: String,
    pub display_name: String,
    pub description: String,
    pub category: String,
    pub icon: String,
    pub auth: String,
    pub selection_hint: String,
    pub tools: Vec<ToolInfo>,
}

/// The outcome of one call, ready for the model and for the chat's `tool_result` event.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub name: String,
    /// The whole result: the tool's value, or `{error, schema?}`.
    pub value: Value,
    /// What the model reads: the value as text, cut to the limit with a note saying so.
    pub content: String,
    pub is_error: bool,
    /// Where the whole text was saved when it was cut.
    pub saved_to: Option<std::path::PathBuf>,
    /// The memories among the rows the model read (those within the limit).
    pub memory_sources: Vec<crate::run_types::MemorySource>,
    /// The app the result marks the run with (see `ToolOutput::marks_run`).
    pub marks_run: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("A tool called {0} is already registered.")]
    DuplicateTool(String),
    #[error("An app called {0} is already registered.")]
    DuplicatePlugin(String),
}

#[derive(Default)]
struct Inner {
    plugins: Vec<Arc<Plugin>>,
    by_name: HashMap<String, Arc<dyn Tool>>,
}

/// Every app and tool; cheap to clone (every clone is the same registry).
#[derive(Clone)]
pub struct ToolRegistry {
    inner: Arc<RwLock<Inner>>,
    http: sentient_llm::http::LazyClient,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("plugins", &self.read().plugins)
            .finish()
    }
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolRegistry {
    /// An empty registry with its own HTTP client for the web tools.
    pub fn new() -> Self {
        let http = sentient_llm::http::LazyClient::new(Some(super::web::USER_AGENT));
        Self {
            inner: Arc::new(RwLock::new(Inner::default())),
            http,
        }
    }

    /// A registry with these apps (tests and tools that need a few).
    pub fn with_plugins(plugins: impl IntoIterator<Item = Plugin>) -> Self {
        let registry = Self::new();
        for plugin in plugins {
            if let Err(error) = registry.register(plugin) {
                tracing::error!(%error, "an app could not be registered");
            }
        }
        registry
    }

    /// Whether a tool call has built the shared HTTP client yet (nothing does at start).
    pub fn http_client_built(&self) -> bool {
        self.http.is_built()
    }

    /// The HTTP client calls share (connection reuse, one user agent).
    pub fn http(&self) -> &reqwest::Client {
        self.http.get()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read_unpoisoned()
    }

    /// Adds an app; refused when the app's id or one of its tool names is taken.
    pub fn register(&self, plugin: Plugin) -> Result<(), RegistryError> {
        let mut inner = self.inner.write_unpoisoned();
        if inner.plugins.iter().any(|p| p.id == plugin.id) {
            return Err(RegistryError::DuplicatePlugin(plugin.id));
        }
        let mut seen = std::collections::HashSet::new();
        for tool in &plugin.tools {
            let name = &tool.def().name;
            if inner.by_name.contains_key(name) || !seen.insert(name.clone()) {
                return Err(RegistryError::DuplicateTool(name.clone()));
            }
        }
        for tool in &plugin.tools {
            inner
                .by_name
                .insert(tool.def().name.clone(), Arc::clone(tool));
        }
        inner.plugins.push(Arc::new(plugin));
        Ok(())
    }

    /// Puts `plugin` in place of the app with the same id, keeping its place in the list (an MCP
    /// server whose tools changed, web search with a key), or adds it. Refused, changing nothing,
    /// when one of its tool names belongs to another app.
    pub fn replace(&self, plugin: Plugin) -> Result<(), RegistryError> {
        let mut inner = self.inner.write_unpoisoned();
        let mut seen = std::collections::HashSet::new();
        for tool in &plugin.tools {
            let name = &tool.def().name;
            let owner = inner
                .plugins
                .iter()
                .find(|p| p.tools.iter().any(|t| t.def().name == *name));
            if owner.is_some_and(|p| p.id != plugin.id) || !seen.insert(name.clone()) {
                return Err(RegistryError::DuplicateTool(name.clone()));
            }
        }
        let place = inner.plugins.iter().position(|p| p.id == plugin.id);
        remove_from(&mut inner, &plugin.id);
        for tool in &plugin.tools {
            inner
                .by_name
                .insert(tool.def().name.clone(), Arc::clone(tool));
        }
        match place {
            Some(at) => inner.plugins.insert(at, Arc::new(plugin)),
            None => inner.plugins.push(Arc::new(plugin)),
        }
        Ok(())
    }

    /// Takes an app and its tools out; `false` when there was none.
    pub fn remove(&self, id: &str) -> bool {
        let mut inner = self.inner.write_unpoisoned();
        remove_from(&mut inner, id)
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.read().by_name.get(name).cloned()
    }

    /// The id of the app a tool belongs to.
    pub fn plugin_of(&self, name: &str) -> Option<String> {
        self.read()
            .plugins
            .iter()
            .find(|p| p.tools.iter().any(|t| t.def().name == name))
            .map(|p| p.id.clone())
    }

    /// The tools to offer the model: every tool of every app, except scoped apps the run did
    /// not name. Internal tools are offered (the engine's own helpers); they are only left out
    /// of Settings' listing.
    pub fn offered(&self, scoped_plugins_named: &[&str]) -> Vec<ToolSpec> {
        self.read()
            .plugins
            .iter()
            .filter(|p| !p.scoped || scoped_plugins_named.contains(&p.id.as_str()))
            .flat_map(|p| p.tools.iter())
            .filter(|t| t.available())
            .map(|t| {
                let def = t.def();
                ToolSpec {
                    name: def.name.clone(),
                    description: def.description.clone(),
                    parameters: def.parameters.clone(),
                }
            })
            .collect()
    }

    /// Every app with its non-internal tools that are listed now, for `GET /api/tools`. Apps
    /// with no such tool are left out.
    pub fn catalog(&self) -> Vec<PluginInfo> {
        self.read()
            .plugins
            .iter()
            .filter_map(|p| {
                let tools: Vec<ToolInfo> = p
                    .tools
                    .iter()
                    .filter(|t| t.listed())
                    .map(|t| t.def())
                    .filter(|d| !d.internal)
                    .map(|d| ToolInfo {
                        name: d.name.clone(),
                        description: d.description.clone(),
                        risk: d.risk,
                    })
                    .collect();
                (!tools.is_empty()).then(|| PluginInfo {
                    id: p.id.clone(),
                    display_name: p.display_name.clone(),
                    description: p.description.clone(),
                    category: p.category.clone(),
                    icon: p.icon.clone(),
                    auth: p.auth.clone(),
                    selection_hint: p.selection_hint.clone(),
                    tools,
                })
            })
            .collect()
    }

    /// Runs one call. Arguments that don't fit the tool's type come back as
    /// `{error: "Invalid arguments for <tool>: ...", schema}`; other failures as `{error}`.
    /// A result longer than `limit` characters is saved whole to
    /// `files/outputs/tool-<call_id>.txt` and the model reads its start and a note.
    pub async fn invoke(&self, name: &str, args: Value, ctx: &ToolCtx, limit: usize) -> ToolResult {
        let Some(tool) = self.get(name) else {
            return error_result(
                ctx,
                name,
                json!({"error": format!("There is no tool called {name}.")}),
            );
        };
        let outcome = tokio::select! {
            () = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
            outcome = tool.call(args, ctx) => outcome,
        };
        match outcome {
            Ok(output) => {
                let text = match &output.value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                // A tool that can shorten its own long result is read in that form.
                let shortened = (text.chars().count() > limit)
                    .then(|| tool.shorten(&output.value))
                    .flatten();
                let (content, saved_to) = match shortened {
                    Some(short) => shorten(ctx, text, &short, limit).await,
                    None => cut(ctx, text, limit).await,
                };
                // A row the cut reached was not read in full, so it does not count.
                let memory_sources = output
                    .memory_sources
                    .into_iter()
                    .filter(|(ends_at, _)| *ends_at <= limit)
                    .map(|(_, source)| source)
                    .collect();
                ToolResult {
                    call_id: ctx.call_id.clone(),
                    name: name.to_owned(),
                    value: output.value,
                    content,
                    is_error: false,
                    saved_to,
                    memory_sources,
                    marks_run: output.marks_run,
                }
            }
            Err(ToolError::InvalidArguments(message)) => error_result(
                ctx,
                name,
                json!({
                    "error": format!("Invalid arguments for {name}: {message}"),
                    "schema": tool.def().parameters,
                }),
            ),
            Err(error) => error_result(ctx, name, json!({"error": error.to_string()})),
        }
    }
}

fn remove_from(inner: &mut Inner, id: &str) -> bool {
    let Some(at) = inner.plugins.iter().position(|p| p.id == id) else {
        return false;
    };
    let plugin = inner.plugins.remove(at);
    for tool in &plugin.tools {
        inner.by_name.remove(&tool.def().name);
    }
    true
}

fn error_result(ctx: &ToolCtx, name: &str, value: Value) -> ToolResult {
    ToolResult {
        call_id: ctx.call_id.clone(),
        name: name.to_owned(),
        content: value.to_string(),
        value,
        is_error: true,
        saved_to: None,
        memory_sources: Vec::new(),
        marks_run: None,
    }
}

/// The file name a call's saved result gets: `tool-<call_id>.txt`, with anything but letters,
/// digits, `-` and `_` in the id replaced so an id can never point outside the folder.
pub fn saved_result_name(call_id: &str) -> String {
    let safe: String = call_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("tool-{safe}.txt")
}

/// Saves a long result whole under `files/outputs/tool-<call_id>.txt`; the file's name, or
/// `None` when it could not be saved.
async fn save_whole(ctx: &ToolCtx, text: String) -> Option<(String, std::path::PathBuf)> {
    let name = saved_result_name(&ctx.call_id);
    let path = ctx.home.outputs().join(&name);
    let saving = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            sentient_core::home::write_atomically(&path, text.as_bytes())
        })
        .await
    };
    let cause = match saving {
        Ok(Ok(())) => return Some((name, path)),
        Ok(Err(e)) => e.to_string(),
        Err(e) => e.to_string(),
    };
    tracing::warn!(error = %cause, path = %path.display(), "a long tool result could not be saved");
    None
}

/// Where the whole result went, for the model's note.
fn saved_note(saved: &Option<(String, std::path::PathBuf)>) -> String {
    match saved {
        Some((name, _)) => format!("The full result is saved as files/outputs/{name}."),
        None => "The full result could not be saved.".to_owned(),
    }
}

/// Cuts `text` to `limit` characters, saving the whole text first. Returns what the model reads.
async fn cut(ctx: &ToolCtx, text: String, limit: usize) -> (String, Option<std::path::PathBuf>) {
    let total = text.chars().count();
    if total <= limit {
        return (text, None);
    }
    let head: String = text.chars().take(limit).collect();
    let saved = save_whole(ctx, text).await;
    (
        format!(
            "{head}\n\n[Result cut: this is only the first {limit} of {total} characters. {}]",
            saved_note(&saved)
        ),
        saved.map(|(_, path)| path),
    )
}

/// The tool's shorter version of a long result, saving the whole one first; still cut at
/// `limit` when the shorter one is long too.
async fn shorten(
    ctx: &ToolCtx,
    text: String,
    short: &Value,
    limit: usize,
) -> (String, Option<std::path::PathBuf>) {
    let total = text.chars().count();
    let short = match short {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let saved = save_whole(ctx, text).await;
    let short_total = short.chars().count();
    let body = if short_total > limit {
        let head: String = short.chars().take(limit).collect();
        format!(
            "{head}\n\n[Result cut: this is only the first {limit} of {short_total} characters of the shortened result.]"
        )
    } else {
        short
    };
    (
        format!(
            "{body}\n\n[Result shortened from {total} characters to its main parts. {}]",
            saved_note(&saved)
        ),
        saved.map(|(_, path)| path),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{Risk, ToolDef, ToolOutput, parse_args};
    use futures::future::BoxFuture;
    use schemars::JsonSchema;
    use sentient_core::home::Home;

    #[derive(Deserialize, JsonSchema)]
    struct EchoArgs {
        /// What to say back.
        text: String,
        times: Option<u32>,
    }

    struct Echo(ToolDef);

    impl Tool for Echo {
        fn def(&self) -> &ToolDef {
            &self.0
        }
        fn call<'a>(
            &'a self,
            args: Value,
            _ctx: &'a ToolCtx,
        ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
            Box::pin(async move {
                let args: EchoArgs = parse_args(args)?;
                Ok(ToolOutput::text(
                    args.text.repeat(args.times.unwrap_or(1) as usize),
                ))
            })
        }
    }

    struct Forever(ToolDef);

    impl Tool for Forever {
        fn def(&self) -> &ToolDef {
            &self.0
        }
        fn call<'a>(
            &'a self,
            _args: Value,
            _ctx: &'a ToolCtx,
        ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
            Box::pin(futures::future::pending())
        }
    }

    fn plugin(id: &str, scoped: bool, tools: Vec<Arc<dyn Tool>>) -> Plugin {
        Plugin {
            id: id.to_owned(),
            display_name: id.to_uppercase(),
            description: format!("The {id} app."),
            category: "test".to_owned(),
            icon: "box".to_owned(),
            auth: "none".to_owned(),
            selection_hint: String::new(),
            scoped,
            tools,
        }
    }

    fn echo(name: &str) -> ToolDef {
        ToolDef::new::<EchoArgs>(name, "Says the text back.", Risk::Read)
    }

    fn ctx(dir: &tempfile::TempDir, call_id: &str) -> ToolCtx {
        let home = Home::at(dir.path());
        home.ensure_layout().expect("layout");
        ToolCtx::new(home, reqwest::Client::new(), call_id)
    }

    fn registry() -> ToolRegistry {
        let registry = ToolRegistry::new();
        registry
            .register(plugin("echo", false, vec![Arc::new(Echo(echo("echo")))]))
            .expect("echo");
        registry
            .register(plugin(
                "engine",
                false,
                vec![Arc::new(Echo(echo("remember").internal()))],
            ))
            .expect("engine");
        registry
            .register(plugin(
                "deep",
                true,
                vec![
                    Arc::new(Echo(echo("deep_echo"))),
                    Arc::new(Forever(echo("forever"))),
                ],
            ))
            .expect("deep");
        registry
    }

    fn names(specs: &[ToolSpec]) -> Vec<&str> {
        specs.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn scoped_apps_are_offered_only_when_named_and_internal_tools_are_not_listed() {
        let registry = registry();
        assert_eq!(names(&registry.offered(&[])), ["echo", "remember"]);
        assert_eq!(
            names(&registry.offered(&["deep"])),
            ["echo", "remember", "deep_echo", "forever"]
        );
        let catalog = registry.catalog();
        let ids: Vec<&str> = catalog.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            ids,
            ["echo", "deep"],
            "the engine app has only internal tools"
        );
        assert_eq!(catalog[0].tools[0].risk, Risk::Read);
        assert_eq!(registry.plugin_of("deep_echo").as_deref(), Some("deep"));
        let schema = &registry.offered(&[])[0].parameters;
        assert_eq!(schema["required"], json!(["text"]));
        assert!(schema.get("$schema").is_none());
    }

    #[test]
    fn names_are_unique() {
        let registry = registry();
        assert_eq!(
            registry.register(plugin("other", false, vec![Arc::new(Echo(echo("echo")))])),
            Err(RegistryError::DuplicateTool("echo".to_owned()))
        );
        assert_eq!(
            registry.register(plugin("echo", false, vec![])),
            Err(RegistryError::DuplicatePlugin("echo".to_owned()))
        );
        assert!(registry.get("echo").is_some());
        assert!(registry.get("nothing").is_none());
    }

    #[test]
    fn an_app_can_be_replaced_and_removed() {
        let registry = registry();
        registry
            .replace(plugin("echo", false, vec![Arc::new(Echo(echo("echo2")))]))
            .expect("replace");
        assert!(registry.get("echo").is_none());
        assert!(registry.get("echo2").is_some());
        assert_eq!(registry.plugin_of("echo2").as_deref(), Some("echo"));
        assert_eq!(
            registry.replace(plugin(
                "other",
                false,
                vec![Arc::new(Echo(echo("deep_echo")))]
            )),
            Err(RegistryError::DuplicateTool("deep_echo".to_owned()))
        );
        assert!(
            registry.get("deep_echo").is_some(),
            "a refused replace changes nothing"
        );
        assert!(registry.remove("echo"));
        assert!(!registry.remove("echo"));
        assert!(registry.get("echo2").is_none());
        registry
            .register(plugin("echo", false, vec![Arc::new(Echo(echo("echo")))]))
            .expect("the id is free again");
    }

    #[tokio::test]
    async fn invalid_arguments_come_back_with_the_schema() {
        let dir = tempfile::tempdir().expect("dir");
        let registry = registry();
        let ctx = ctx(&dir, "c1");
        let result = registry
            .invoke("echo", json!({"times": 2}), &ctx, 1000)
            .await;
        assert!(result.is_error);
        assert_eq!(
            result.value["error"],
            "Invalid arguments for echo: missing field `text`"
        );
        assert_eq!(
            result.value["schema"],
            registry.get("echo").expect("echo").def().parameters
        );
        assert_eq!(
            result.value["schema"]["properties"]["text"]["type"],
            "string"
        );
        assert_eq!(
            serde_json::from_str::<Value>(&result.content).expect("json"),
            result.value
        );

        let result = registry
            .invoke("echo", json!({"text": 5}), &ctx, 1000)
            .await;
        assert_eq!(
            result.value["error"],
            "Invalid arguments for echo: invalid type: integer `5`, expected a string"
        );

        let result = registry.invoke("nope", json!({}), &ctx, 1000).await;
        assert!(result.is_error);
        assert_eq!(
            result.value,
            json!({"error": "There is no tool called nope."})
        );
    }

    #[tokio::test]
    async fn long_results_are_cut_and_saved_whole() {
        let dir = tempfile::tempdir().expect("dir");
        let registry = registry();
        let ctx = ctx(&dir, "call/../9");
        let short = registry
            .invoke("echo", json!({"text": "hi"}), &ctx, 10)
            .await;
        assert_eq!(short.content, "hi");
        assert!(short.saved_to.is_none());

        let result = registry
            .invoke("echo", json!({"text": "abcdé", "times": 10}), &ctx, 12)
            .await;
        assert!(!result.is_error);
        let path = result.saved_to.clone().expect("saved");
        assert_eq!(path, dir.path().join("files/outputs/tool-call____9.txt"));
        let whole = std::fs::read_to_string(&path).expect("read");
        assert_eq!(whole, "abcdé".repeat(10));
        assert_eq!(result.value, Value::String(whole));
        assert_eq!(
            result.content,
            "abcdéabcdéab\n\n[Result cut: this is only the first 12 of 50 characters. \
             The full result is saved as files/outputs/tool-call____9.txt.]"
        );
    }

    /// Echo that keeps only the first word of a long result.
    struct FirstWord(Echo);

    impl Tool for FirstWord {
        fn def(&self) -> &ToolDef {
            self.0.def()
        }
        fn call<'a>(
            &'a self,
            args: Value,
            ctx: &'a ToolCtx,
        ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
            self.0.call(args, ctx)
        }
        fn shorten(&self, result: &Value) -> Option<Value> {
            let text = result.as_str()?;
            Some(json!(text.split(' ').next().unwrap_or_default()))
        }
    }

    #[tokio::test]
    async fn a_tool_that_shortens_its_long_result_is_read_shortened_and_saved_whole() {
        let dir = tempfile::tempdir().expect("dir");
        let registry = ToolRegistry::new();
        registry
            .register(plugin(
                "words",
                false,
                vec![Arc::new(FirstWord(Echo(ToolDef::new::<EchoArgs>(
                    "first_word",
                    "Echo, shortened.",
                    Risk::Read,
                ))))],
            ))
            .expect("register");
        let ctx = ctx(&dir, "w1");
        // Short enough: read as it is.
        let fits = registry
            .invoke("first_word", json!({"text": "one two"}), &ctx, 100)
            .await;
        assert_eq!(fits.content, "one two");
        let long = registry
            .invoke(
                "first_word",
                json!({"text": "alpha beta ", "times": 10}),
                &ctx,
                20,
            )
            .await;
        assert_eq!(
            long.content,
            "alpha\n\n[Result shortened from 110 characters to its main parts. \
             The full result is saved as files/outputs/tool-w1.txt.]"
        );
        let whole = std::fs::read_to_string(long.saved_to.expect("saved")).expect("read");
        assert_eq!(whole, "alpha beta ".repeat(10));
        // The tool_result event still carries the whole value.
        assert_eq!(long.value, json!("alpha beta ".repeat(10)));
        // A shortened result still longer than the limit is cut too.
        let cut = registry
            .invoke(
                "first_word",
                json!({"text": "abcdefghijklmnop ", "times": 3}),
                &ctx,
                5,
            )
            .await;
        assert!(
            cut.content.starts_with("abcde\n\n[Result cut: this is only the first 5 of 16 characters of the shortened result.]"),
            "{}",
            cut.content
        );
    }

    #[tokio::test]
    async fn a_cancelled_call_stops() {
        let dir = tempfile::tempdir().expect("dir");
        let registry = registry();
        let ctx = ctx(&dir, "c2");
        ctx.cancel.cancel();
        let result = registry.invoke("forever", json!({}), &ctx, 100).await;
        assert!(result.is_error);
        assert_eq!(result.value, json!({"error": "Stopped."}));
    }

    #[test]
    fn risks_are_ordered_and_lowercase() {
        assert!(Risk::Read < Risk::Write && Risk::Write < Risk::Send && Risk::Send < Risk::Exec);
        assert_eq!(serde_json::to_value(Risk::Exec).expect("json"), "exec");
        assert_eq!(Risk::Write.default_label(), "Changes something");
    }
}
