//! Settings section `sandbox`.

use super::*;

/// Where scripts run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SandboxBackend {
    /// Docker when it is running, otherwise a contained process on this computer.
    #[default]
    Auto,
    /// A process on this computer, contained: it sees only its own folder and the system, and has no network.
    Process,
    /// A Docker container.
    Docker,
}

/// Short Python scripts the assistant writes and runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct SandboxConfig {
    /// Let the assistant write and run short Python scripts that use its tools.
    pub enabled: bool,
    /// Where scripts run.
    pub backend: SandboxBackend,
    /// A script is stopped after running this many seconds.
    #[schemars(range(min = 5, max = 3600))]
    pub timeout_s: u32,
    /// Most characters of a script's output kept, for its output and its errors each.
    #[schemars(range(min = 1000, max = 1_000_000))]
    pub max_output_chars: u32,
    /// Most tool uses one script may make before further ones are refused.
    #[schemars(range(max = 10_000))]
    pub max_tool_calls: u32,
    /// How many scripts may run at the same time.
    #[schemars(range(min = 1, max = 16))]
    pub max_concurrent_runs: u32,
    /// Most files copied from one script run into your files folder.
    #[schemars(range(max = 1000))]
    pub max_files: u32,
    /// Files a script creates that are larger than this many megabytes are not copied.
    #[schemars(range(min = 1, max = 2048))]
    pub max_file_mb: u32,
    /// Keep each run's working folder afterwards, to help track down problems.
    pub keep_workdirs: bool,
    /// Most memory, in megabytes, one script may use on this computer.
    #[schemars(range(min = 64, max = 65_536))]
    pub memory_mb: u32,
    /// Most processes one script may run at once on this computer.
    #[schemars(range(min = 4, max = 4096))]
    pub max_processes: u32,
    /// Largest file, in megabytes, a script may write.
    #[schemars(range(min = 1, max = 65_536))]
    pub max_file_size_mb: u32,
    /// Run scripts as a plain process when they can't be contained (bubblewrap missing or not allowed to start). Such a script can read your files and reach the internet.
    pub allow_uncontained: bool,
    /// The container image scripts run in with Docker.
    pub docker_image: String,
    /// Memory limit, in megabytes, for a script in Docker.
    #[schemars(range(min = 64, max = 65_536))]
    pub docker_memory_mb: u32,
    /// How many processor cores a script in Docker may use.
    #[schemars(range(min = 0.1, max = 64.0))]
    pub docker_cpus: f64,
    /// Let scripts in Docker reach the internet; when off they can only use Sentient's tools.
    pub allow_network_in_docker: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            backend: SandboxBackend::Auto,
            timeout_s: 120,
            max_output_chars: 20_000,
            max_tool_calls: 200,
            max_concurrent_runs: 2,
            max_files: 50,
            max_file_mb: 25,
            keep_workdirs: false,
            memory_mb: 1024,
            max_processes: 64,
            max_file_size_mb: 512,
            allow_uncontained: false,
            docker_image: "python:3.12-slim".to_owned(),
            docker_memory_mb: 512,
            docker_cpus: 1.0,
            allow_network_in_docker: false,
        }
    }
}
