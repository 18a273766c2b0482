//! What crosses the doors: a script run's result, the status, and the run request.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// `GET /api/sandbox/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SandboxStatus {
    pub enabled: bool,
    /// The backend a run would use now.
    pub backend: ScriptBackend,
    pub docker_available: bool,
    /// The Python scripts run with, e.g. `3.12.1`; `null` when none was found.
    pub python_version: Option<String>,
    /// Whether a script runs contained now (bubblewrap or Docker): away from the person's files,
    /// Sentient's home and the network.
    pub contained: bool,
    /// One plain sentence when scripts can't run contained here (what to install or turn on),
    /// or run uncontained; `null` when all is well.
    pub note: Option<String>,
}

/// `POST /api/sandbox/run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunRequest {
    /// The Python 3 script to run.
    pub code: String,
}
