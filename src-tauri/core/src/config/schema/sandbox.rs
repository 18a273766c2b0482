//! Settings section `sandbox`.

use super::*;

/// Where scripts run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SandboxBackend {
    /// The best this computer has: today a separate process in its own folder.
    #[default]
    Auto,
    /// A separate process on this computer in its own folder.
    Process,
    /// Not used yet (it arrives in a later version). A Docker container.
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
    /// Not used yet (it arrives in a later version). The container image scripts run in with Docker.
    pub docker_image: String,
    /// Not used yet (it arrives in a later version). Memory limit, in megabytes, for a script in Docker.
    #[schemars(range(min = 64, max = 65_536))]
    pub docker_memory_mb: u32,
    /// Not used yet (it arrives in a later version). How many processor cores a script in Docker may use.
    #[schemars(range(min = 0.1, max = 64.0))]
    pub docker_cpus: f64,
    /// Not used yet (it arrives in a later version). Let scripts in Docker reach the internet; when off they can only use Sentient's tools.
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
            docker_image: "python:3.12-slim".to_owned(),
            docker_memory_mb: 512,
            docker_cpus: 1.0,
            allow_network_in_docker: false,
        }
    }
}
