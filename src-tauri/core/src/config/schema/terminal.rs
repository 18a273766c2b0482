//! Settings section `terminal`.

use super::*;

/// Commands the assistant may run on this computer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct TerminalConfig {
    /// Let the assistant run commands on this computer.
    pub enabled: bool,
    /// Folders commands may run in; nothing runs until you add one.
    pub allowed_folders: Vec<String>,
    /// The folder a command starts in when none is given (empty uses the first allowed folder).
    pub default_folder: String,
    /// Commands that run without asking, matched by how they start.
    pub allowed_commands: Vec<String>,
    /// A command is stopped after running this many seconds.
    #[schemars(range(min = 5, max = 3600))]
    pub timeout_s: u32,
    /// Most characters of a command's output shown to the assistant, for its output and its errors each.
    #[schemars(range(min = 500, max = 1_000_000))]
    pub max_output_chars: u32,
}

impl Default for TerminalConfig {
    fn default() -> Self {
        Self {
            // Off by default: running commands is the most powerful thing the assistant can do.
            enabled: false,
            allowed_folders: Vec::new(),
            default_folder: String::new(),
            allowed_commands: strings(&["git status", "git diff", "git log", "ls", "dir", "pwd"]),
            timeout_s: 180,
            max_output_chars: 8000,
        }
    }
}
