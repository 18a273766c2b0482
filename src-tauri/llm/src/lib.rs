//! The model layer: providers and their wire formats, roles with fallbacks, the local-model
//! queue, usage and cost, and the context meter. Everything that calls a model goes through
//! [`LlmService`]. Also what this computer can run (`system`: memory, graphics, the recommended
//! local model).

pub mod catalog;
pub mod error;
pub mod formats;
pub mod http;
pub mod model_ref;
pub mod provider;
pub mod queue;
pub mod service;
pub mod system;
pub mod tokens;
pub mod transport;
pub mod types;
pub mod usage;

pub use error::LlmError;
pub use model_ref::{ModelRef, PROVIDERS, WireFormat};
pub use service::{
    CallOptions, CallOutcome, KeySource, LlmService, ModelRole, NoKeys, RetryPolicy,
};
pub use types::{
    ChatRequest, Chunk, Message, Reasoning, Reply, StopReason, ToolCall, ToolSpec, Usage,
};
