//! Plain types that the loop, the tools and a chat's events share: a running tool's progress
//! kind, what a reply had in mind, and the answer to an approval question. A leaf (it imports
//! nothing from this crate), so the files that use them never import each other for them.

use serde::{Deserialize, Serialize};

/// What kind of progress a long tool reports before its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum ProgressKind {
    Stdout,
    Stderr,
    Status,
    /// A picture of what the tool is looking at (the browser's page); the update's text is a
    /// `data:image/jpeg;base64,...` address, which a chat event carries as `image`.
    Frame,
    /// A helper's step, with `{subagent_id, message}` in the update's data.
    Subagent,
}

/// What a reply had in mind; it lives in core because task runs carry it too.
pub use sentient_core::domain::MemorySource;

/// What the person answered to an approval question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalAnswer {
    Allow,
    /// Allow, and allow calls up to this risk for the rest of the chat.
    AllowForChat,
    Deny,
}
