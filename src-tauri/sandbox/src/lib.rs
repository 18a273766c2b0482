//! Code execution (contract section 11): short Python scripts the assistant writes, each run in
//! a process of its own ([`process`]) in a folder of its own, calling Sentient's tools through
//! a loopback endpoint with a one-time token ([`bridge`]), where every call is decided by the
//! agent as a script's call (`sentient_agent::script_calls`). Output is streamed and capped
//! ([`output`]), files the script writes are kept ([`files`]), and [`tools`] is the
//! `execute_code` tool. [`SandboxService`] is the service; it holds only the agent.
//!
//! Only the process backend exists; a `docker` setting answers with a plain sentence.

pub mod bridge;
pub mod error;
pub mod files;
pub mod model;
pub mod output;
pub mod process;
pub mod python;
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
