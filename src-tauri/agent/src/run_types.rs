//! Plain types that the loop, the tools and a chat's events share: a running tool's progress
//! kind, what a reply had in mind, and the answer to an approval question. A leaf (it imports
//! nothing from this crate), so the files that use them never import each other for them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What kind of progress a long tool reports before its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum ProgressKind {
    Stdout,
    Stderr,
    Status,
}

/// What a reply had in mind (memory; filled in once memory is built, `[]` until then).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct MemorySource {
    /// `fact` or `insight`.
    pub kind: String,
    /// The fact's or insight's id.
    pub id: Value,
    pub text: String,
    pub source: String,
    /// `prompt` or `tool`.
    pub via: String,
}

/// What the person answered to an approval question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalAnswer {
    Allow,
    /// Allow, and allow calls up to this risk for the rest of the chat.
    AllowForChat,
    Deny,
}
