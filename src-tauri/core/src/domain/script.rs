//! Scripts as other areas see them: one run's [`SandboxResult`], a script job's [`TaskScript`]
//! (contract sections 11 and 16), and the narrow [`ScriptRunner`] the sandbox offers tasks, so
//! tasks can run a watch job's check without compiling against the sandbox.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Where a script ran.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ScriptBackend {
    Process,
    Docker,
}

/// One script run (contract section 11, `SandboxResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SandboxResult {
    pub ok: bool,
    pub backend: ScriptBackend,
    /// What the script printed, line ends as `\n`, cut at `sandbox.max_output_chars`.
    pub stdout: String,
    pub stderr: String,
    /// The value given to `result(value)`; otherwise what it printed (`null` when it failed).
    #[schema(value_type = Value)]
    pub result: Value,
    /// Files the script wrote, relative to the files folder (`outputs/<run_id>/chart.png`).
    pub files_created: Vec<String>,
    /// Tool calls that ran (refused ones are not counted).
    pub tool_calls: u32,
    pub duration_ms: u32,
    /// A plain sentence when `ok` is false.
    pub error: Option<String>,
}

impl SandboxResult {
    /// A run that did not start, with the sentence saying why.
    pub fn refused(backend: ScriptBackend, error: impl Into<String>) -> Self {
        Self {
            ok: false,
            backend,
            stdout: String::new(),
            stderr: String::new(),
            result: Value::Null,
            files_created: Vec::new(),
            tool_calls: 0,
            duration_ms: 0,
            error: Some(error.into()),
        }
    }
}

/// When a script job acts on its check (contract section 16).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScriptCondition {
    /// The value differs from the last one (the first is only the baseline).
    #[default]
    Changed,
    /// The script called `result({"alert": true, "message": ...})`.
    Alert,
    /// Every check that gave a value ("Report every run").
    EveryRun,
}

/// What a script job does when its condition holds.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScriptThen {
    /// A task notification (`script_alert`).
    #[default]
    Notify,
    /// A normal model run, told the value.
    Run,
}

/// A condition or a then by its wire name (`"every_run"`, `"notify"`): the names serde gives them.
pub fn by_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(Value::String(name.to_owned())).ok()
}

/// A script job's script and what its checks found (`Task.script`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TaskScript {
    /// Python 3 using `from sentient_tools import tools, result` and read-only tools.
    pub code: String,
    #[serde(default)]
    pub condition: ScriptCondition,
    #[serde(default)]
    pub then: ScriptThen,
    /// The value of the last successful check that gave one (the baseline for `changed`).
    #[serde(default)]
    #[schema(value_type = Value)]
    #[specta(type = Option<Value>)]
    pub last_result: Value,
    #[serde(default)]
    pub last_run_at: Option<DateTime<Utc>>,
    /// Why the last check failed; `null` once one succeeds again.
    #[serde(default)]
    pub last_error: Option<String>,
}

impl TaskScript {
    pub fn new(code: String, condition: ScriptCondition, then: ScriptThen) -> Self {
        Self {
            code,
            condition,
            then,
            last_result: Value::Null,
            last_run_at: None,
            last_error: None,
        }
    }
}

/// What the sandbox offers tasks: a compile check and one check run.
#[async_trait::async_trait]
pub trait ScriptRunner: Send + Sync {
    /// The plain sentence saying why `code` does not compile (with its line), or `None` when it
    /// does (or when there is no Python here to ask; the check itself then says so).
    async fn compile_error(&self, code: &str) -> Option<String>;

    /// Runs `code` once as a task's check: only look-up tools, `trigger_event` as the script's
    /// `trigger_event` variable, stopped when `cancel` is.
    async fn check(
        &self,
        code: &str,
        trigger_event: Option<Value>,
        cancel: CancellationToken,
    ) -> SandboxResult;
}
