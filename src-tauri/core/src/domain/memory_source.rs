//! What a reply or a task run had in mind (contract section 2, "Memory sources"). Here at the
//! bottom because chat turns (agent) and task runs (the `Run` object) both carry it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One memory a reply or run had in mind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct MemorySource {
    /// `fact` or `insight`.
    pub kind: String,
    /// The fact's id (a number) or the insight's (text).
    pub id: Value,
    pub text: String,
    pub source: String,
    /// `prompt` or `tool`.
    pub via: String,
}
