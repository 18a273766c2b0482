//! What crosses the doors: a command's result, the status, and a stop request.

use serde::{Deserialize, Serialize};

/// One command (contract section 18, `TerminalResult`). A refused command has `ok: false`, the
/// sentence in `error`, and nothing else filled in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TerminalResult {
    /// True when the command ran and its exit code was 0.
    pub ok: bool,
    pub command: String,
    /// The folder it ran in (empty when refused before one was found).
    pub cwd: String,
    /// `bash`, `zsh`, `sh`, `pwsh` or `powershell`; empty when refused.
    pub shell: String,
    pub exit_code: Option<i32>,
    /// Its output, the start and the end kept within `terminal.max_output_chars`.
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub stopped: bool,
    pub duration_ms: u64,
    /// When output was cut, the whole of it under the files folder (`outputs/terminal-<id>.txt`).
    pub output_file: Option<String>,
    /// A plain sentence for a refusal, a timeout, a stop or a shell that could not start.
    pub error: Option<String>,
}

impl TerminalResult {
    /// A command that did not run, with the sentence saying why.
    pub fn refused(command: &str, error: impl Into<String>) -> Self {
        Self {
            ok: false,
            command: command.to_owned(),
            cwd: String::new(),
            shell: String::new(),
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
            stopped: false,
            duration_ms: 0,
            output_file: None,
            error: Some(error.into()),
        }
    }
}

/// A command running now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunningCommand {
    /// This run's id (unique per command).
    pub id: String,
    /// The tool call that started it.
    pub call_id: String,
    pub command: String,
    pub cwd: String,
    /// RFC 3339.
    pub started_at: String,
}

/// `GET /api/terminal/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TerminalStatus {
    pub enabled: bool,
    /// `pwsh`, `powershell`, `bash`, `zsh` or `sh`; null when none was found.
    pub shell: Option<String>,
    pub shell_path: Option<String>,
    pub allowed_folders: Vec<String>,
    /// Where a command without a folder would start; null when none can.
    pub default_folder: Option<String>,
    /// What is never run, whatever the settings say.
    pub blocked: Vec<String>,
    pub running: Vec<RunningCommand>,
}

/// `POST /api/terminal/stop`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct StopRequest {
    /// A run's id or the tool call's id.
    pub id: String,
}

/// Whether a command was running under that id and is being stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct StopAnswer {
    pub stopped: bool,
}
