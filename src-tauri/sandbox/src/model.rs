//! What crosses the doors: a script run's result, the status, and the run request.

use serde::{Deserialize, Serialize};

// A run's result sits with the domain types, so tasks can name it without the sandbox.
pub use sentient_core::domain::script::{SandboxResult, ScriptBackend};

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
