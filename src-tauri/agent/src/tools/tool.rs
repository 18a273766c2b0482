//! What a tool is, what a call gets and gives back, and the apps tools belong to. A leaf of
//! `tools`: the registry and the built-in apps import it, and it imports none of them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use sentient_core::clock::{SharedClock, SystemClock};
use sentient_core::home::Home;

use crate::approvals::Origin;
use crate::run_types::MemorySource;
pub use crate::run_types::ProgressKind;

pub use sentient_core::domain::tool_info::{CallDescription, Risk, ToolInfo};

/// A tool's fixed description.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments, derived from the tool's argument type.
    pub parameters: Value,
    /// The risk of a call unless [`Tool::risk_for`] says otherwise.
    pub risk: Risk,
    /// The result can carry text someone else wrote (a web page, an email).
    pub untrusted_output: bool,
    /// A call can move data out of the computer below risk send.
    pub exfiltrates: bool,
    /// The engine's own tool: never listed in `GET /api/tools`.
    pub internal: bool,
    /// "Allow for this chat" may cover this tool.
    pub allow_for_chat: bool,
}

impl ToolDef {
    /// A definition whose parameters are the JSON schema of `Args`; everything else off,
    /// `allow_for_chat` on.
    pub fn new<Args: JsonSchema>(name: &str, description: &str, risk: Risk) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters: schema_of::<Args>(),
            risk,
            untrusted_output: false,
            exfiltrates: false,
            internal: false,
            allow_for_chat: true,
        }
    }

    pub fn untrusted_output(mut self) -> Self {
        self.untrusted_output = true;
        self
    }

    pub fn exfiltrates(mut self) -> Self {
        self.exfiltrates = true;
        self
    }

    pub fn internal(mut self) -> Self {
        self.internal = true;
        self
    }

    pub fn not_for_chat(mut self) -> Self {
        self.allow_for_chat = false;
        self
    }
}

/// The JSON schema of an argument type, without the `$schema` and `title` keys models don't need.
pub fn schema_of<Args: JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(Args).to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

/// Reads a call's arguments into the tool's argument type. A missing body (`null`) counts as
/// `{}`, so tools whose arguments are all optional can be called without any.
pub fn parse_args<Args: DeserializeOwned>(args: Value) -> Result<Args, ToolError> {
    let args = if args.is_null() {
        Value::Object(serde_json::Map::new())
    } else {
        args
    };
    serde_json::from_value(args).map_err(|e| ToolError::InvalidArguments(e.to_string()))
}

/// What a finished call returns: a string, or JSON the model reads as compact text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    pub value: Value,
    /// Memories the result shows the model, each with where its row ends in the text the model
    /// reads (in characters): only rows within the run's tool result limit count as read.
    pub memory_sources: Vec<(usize, MemorySource)>,
    /// The result came from a chat that read outside content: the run is marked with this app,
    /// as if it had read the content itself.
    pub marks_run: Option<String>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            value: Value::String(text.into()),
            ..Self::default()
        }
    }

    pub fn json(value: impl Serialize) -> Result<Self, ToolError> {
        serde_json::to_value(value)
            .map(|value| Self {
                value,
                ..Self::default()
            })
            .map_err(|e| ToolError::Failed(format!("The tool's answer could not be encoded: {e}")))
    }

    /// A list of rows, each showing one memory: the value is the array of rows, and each
    /// memory source records where its row ends in the array's compact text.
    pub fn memory_rows(rows: Vec<(Value, MemorySource)>) -> Self {
        // `[` then each row's text, with a comma between rows.
        let mut end = 1;
        let mut values = Vec::with_capacity(rows.len());
        let mut memory_sources = Vec::with_capacity(rows.len());
        for (i, (row, source)) in rows.into_iter().enumerate() {
            end += usize::from(i > 0) + row.to_string().chars().count();
            values.push(row);
            memory_sources.push((end, source));
        }
        Self {
            value: Value::Array(values),
            memory_sources,
            marks_run: None,
        }
    }

    /// Marks the run with `app` (see [`ToolOutput::marks_run`]).
    pub fn marking_run(mut self, app: Option<String>) -> Self {
        self.marks_run = app.filter(|a| !a.is_empty());
        self
    }
}

/// Why a call gave no result. Each is a plain sentence for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments don't fit the tool's argument type; the text is serde's message.
    #[error("{0}")]
    InvalidArguments(String),
    /// The call ran and failed; the text says why and, where possible, what to do.
    #[error("{0}")]
    Failed(String),
    /// Stop everything, the run's Cancel or shutdown ended the call.
    #[error("Stopped.")]
    Cancelled,
}

/// One progress report (the contract's `tool_progress` event, minus the call's id and name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ProgressUpdate {
    pub kind: ProgressKind,
    pub text: String,
    /// Structured details (a helper's `{subagent_id, message}`), sent as the event's `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub data: Option<serde_json::Value>,
}

/// Where progress reports go; outside a chat turn it drops them.
pub type ProgressFn = Arc<dyn Fn(ProgressUpdate) + Send + Sync>;

/// Web settings of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct WebSettings {
    /// The search page queried with `?q=`; DuckDuckGo's HTML page unless a test points it elsewhere.
    pub search_url: String,
    /// Longest page text `web_fetch` returns, in characters (`integrations.web_fetch_max_chars`).
    pub fetch_max_chars: usize,
    /// Most bytes of a page that are downloaded; the rest is not read.
    pub fetch_max_bytes: usize,
    /// How long one page or search may take in all.
    pub timeout: Duration,
}

pub const DUCKDUCKGO_HTML: &str = "https://html.duckduckgo.com/html/";

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            search_url: DUCKDUCKGO_HTML.to_owned(),
            fetch_max_chars: 20_000,
            fetch_max_bytes: 2 * 1024 * 1024,
            timeout: Duration::from_secs(20),
        }
    }
}

/// What a task run adds to its loop and its tools: questions to the person, limits checked
/// before each model call, and a pause after a round. Chats and other runs have none; the
/// defaults say so.
pub trait RunScope: Send + Sync {
    /// `ask_user`: records the question for this run; the loop pauses after the round.
    fn ask_user(
        &self,
        _call_id: &str,
        _question: &str,
        _options: Vec<String>,
    ) -> Result<(), String> {
        Err(
            "ask_user only works inside a task run. Ask the person in your reply instead."
                .to_owned(),
        )
    }
    /// Checked before each model call: the limit (`steps`, `seconds`, `tokens`, `cost_usd`)
    /// the run has reached, which ends the loop.
    fn before_call(&self) -> Option<String> {
        None
    }
    /// Each model call's model and usage, for token and cost limits.
    fn after_call(&self, _model: &str, _usage: &sentient_llm::Usage) {}
    /// Checked after each round of tool results with what the round added; `true` pauses.
    fn after_round(&self, _round: &[sentient_llm::Message]) -> bool {
        false
    }
    /// The run showed a sign of work (streamed text, a tool's progress or result).
    fn activity(&self) {}
    /// A call to the app named `app` (its display name) started; the stuck check names the
    /// app that went silent.
    fn call_started(&self, _app: &str) {}
    /// That call ended.
    fn call_ended(&self, _app: &str) {}
    /// The task and run ids, for tools that work on the run's own task.
    fn task_run(&self) -> Option<(String, String)> {
        None
    }
    /// The run remembers earlier runs and may keep notes (`task_notepad`).
    fn keeps_notes(&self) -> bool {
        false
    }
    /// The run is a helper's (a subagent's): it may not start helpers of its own.
    fn is_helper(&self) -> bool {
        false
    }
}

/// The browser profile a run uses (contract section 12): the task's when its run starts, then a
/// skill's or a `profile` argument's, the latest winning for the rest of the run or chat turn.
/// Shared by the run's calls.
pub type RunBrowserProfile = Arc<std::sync::Mutex<Option<String>>>;

/// Everything one call needs. Built per call: the call's id, where files are, the HTTP client,
/// the cancellation token and where progress goes.
#[derive(Clone)]
pub struct ToolCtx {
    pub call_id: String,
    pub home: Home,
    pub http: reqwest::Client,
    pub cancel: CancellationToken,
    pub progress: ProgressFn,
    pub clock: SharedClock,
    /// The assistant's time zone setting (`assistant.timezone`): a zone name or `auto`.
    pub timezone: String,
    pub web: WebSettings,
    /// The task run this call belongs to, if any (`ask_user` needs one).
    pub run: Option<Arc<dyn RunScope>>,
    /// Who started the run (a chat, a task, work nobody asked for).
    pub origin: Origin,
    /// The app whose content the run has read so far (its outside-content mark), if any.
    pub mark: Option<String>,
    /// The chat the run belongs to, if any.
    pub session_id: Option<String>,
    /// The browser profile of the run (see [`RunBrowserProfile`]).
    pub browser_profile: RunBrowserProfile,
    /// The risk the approvals step judged this call at; `None` when no approval step ran (a
    /// call made straight through the registry). A tool whose risk depends on the page checks
    /// it again at call time against this.
    pub approved_risk: Option<Risk>,
}

impl std::fmt::Debug for ToolCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCtx")
            .field("call_id", &self.call_id)
            .field("home", &self.home.root())
            .field("timezone", &self.timezone)
            .field("web", &self.web)
            .field("origin", &self.origin)
            .field("mark", &self.mark)
            .finish_non_exhaustive()
    }
}

impl ToolCtx {
    /// A context with the defaults: wall clock, time zone `auto`, a fresh token, progress dropped.
    pub fn new(home: Home, http: reqwest::Client, call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            home,
            http,
            cancel: CancellationToken::new(),
            progress: Arc::new(|_| {}),
            clock: Arc::new(SystemClock),
            timezone: "auto".to_owned(),
            web: WebSettings::default(),
            run: None,
            origin: Origin::Chat,
            mark: None,
            session_id: None,
            browser_profile: RunBrowserProfile::default(),
            approved_risk: None,
        }
    }

    /// The folder the files tools may touch: `<home>/files`.
    pub fn files_root(&self) -> PathBuf {
        self.home.root().join("files")
    }

    /// Sends a progress report for this call.
    pub fn progress(&self, kind: ProgressKind, text: impl Into<String>) {
        (self.progress)(ProgressUpdate {
            kind,
            text: text.into(),
            data: None,
        });
    }

    /// Sends a progress report with structured details (the event's `data`).
    pub fn progress_data(&self, kind: ProgressKind, text: impl Into<String>, data: Value) {
        (self.progress)(ProgressUpdate {
            kind,
            text: text.into(),
            data: Some(data),
        });
    }
}

/// One tool. The fixed facts are in [`ToolDef`]; the hooks have defaults that use them.
pub trait Tool: Send + Sync {
    fn def(&self) -> &ToolDef;

    /// Runs one call. The first step reads `args` with [`parse_args`], so arguments that don't
    /// fit come back as [`ToolError::InvalidArguments`] before anything is done.
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;

    /// The risk of this call (a per-call `risk_fn`); the tool's risk unless overridden.
    fn risk_for(&self, _args: &Value) -> Risk {
        self.def().risk
    }

    /// Whether [`Tool::risk_for`] can answer differently per call (a browser-like tool, an MCP
    /// tool that runs other tools by slug): a Read only app still offers such a tool and
    /// refuses only its calls above read.
    fn risk_varies(&self) -> bool {
        false
    }

    /// Whether this call can move data out of the computer below risk send; the tool's flag
    /// unless it depends on the arguments (an event that invites people).
    fn exfiltrates_for(&self, _args: &Value) -> bool {
        self.def().exfiltrates
    }

    /// Words for an approval question about this call (`describe_fn`).
    fn describe(&self, _args: &Value) -> Option<CallDescription> {
        None
    }

    /// Whether `GET /api/tools` lists this tool now: a tool of an area that is turned off (the
    /// terminal) is neither offered nor listed.
    fn listed(&self) -> bool {
        true
    }

    /// Whether the model may be offered this tool right now (device tools need an online
    /// device that can do what they do).
    fn available(&self) -> bool {
        true
    }

    /// A shorter version of a result too long for the run's limit, keeping its main parts
    /// (`shorten_fn`); `None` lets the result be cut at the limit as it is.
    fn shorten(&self, _result: &Value) -> Option<Value> {
        None
    }

    /// The web addresses this call loads (`url_fn`).
    fn urls(&self, _args: &Value) -> Vec<String> {
        Vec::new()
    }
}

/// How an approval question words a call: the tool's own description where it gives one, the
/// effective risk's default wording (`Looks something up`, `Changes something`, ...) otherwise.
pub fn describe_call(tool: &dyn Tool, args: &Value) -> (Risk, CallDescription) {
    let risk = tool.risk_for(args);
    let own = tool.describe(args);
    let target = own.as_ref().and_then(|d| d.target.clone());
    let risk_label = own
        .and_then(|d| d.risk_label)
        .unwrap_or_else(|| risk.default_label().to_owned());
    (
        risk,
        CallDescription {
            risk_label: Some(risk_label),
            target,
        },
    )
}

/// An app: a group of tools shown together in Settings and named by approval rules.
#[derive(Clone)]
pub struct Plugin {
    pub id: String,
    pub display_name: String,
    pub description: String,
    pub category: String,
    pub icon: String,
    /// How the app signs in: `none` for the built-ins.
    pub auth: String,
    /// Words that help pick this app's tools for a message.
    pub selection_hint: String,
    /// Offered to the model only when the run names it.
    pub scoped: bool,
    pub tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("id", &self.id)
            .field("scoped", &self.scoped)
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| t.def().name.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Runs blocking file or parsing work off the async threads; a panic there becomes a plain failure.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        tracing::error!(error = %e, "a tool's background work failed");
        ToolError::Failed("The tool failed unexpectedly. Try again.".to_owned())
    })?
}
