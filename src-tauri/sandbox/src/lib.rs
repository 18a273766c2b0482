//! Code execution (contract section 11): short Python scripts the assistant writes, each run in
//! a process of its own ([`process`]) in a folder of its own: on Linux inside bubblewrap
//! ([`containment`]: no home, no network, only its own processes), or in a container
//! ([`docker`]). A script calls Sentient's tools through an endpoint of its run with a one-time
//! token ([`bridge`]: a Unix socket in its folder, or [`request_files`] for a container), where
//! every call is decided by the agent as a script's call (`sentient_agent::script_calls`).
//! Output is streamed and capped ([`output`]), files the script writes are kept ([`files`]),
//! and [`tools`] is the `execute_code` tool. [`SandboxService`] is the service; it holds only
//! the agent.

pub mod bridge;
pub mod containment;
pub mod docker;
pub mod error;
pub mod files;
pub mod model;
pub mod output;
pub mod process;
pub mod python;
pub mod request_files;
pub mod service;
pub mod tools;

use std::sync::Arc;

use sentient_agent::tools::ProgressKind;

pub use error::SandboxError;
pub use model::{RunRequest, SandboxResult, SandboxStatus, ScriptBackend};
pub use service::{RunOptions, SandboxHandle, SandboxService};

/// Where a run's output goes as it arrives: the stream and a piece of text.
pub type OutputFn = Arc<dyn Fn(ProgressKind, String) + Send + Sync>;

/// The runner scripts import (`from sentient_tools import tools, result`).
pub const SENTIENT_TOOLS_PY: &str = include_str!("sentient_tools.py");
