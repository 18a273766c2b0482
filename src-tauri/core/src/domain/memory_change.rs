//! The payload of `memory.updated` (contract section 1): one fact added, changed or deleted, or
//! many at once (`id` null, with `count`) after an import, a delete by source or a purge.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type)]
pub struct MemoryChange {
    /// ADD, UPDATE or DELETE.
    pub action: String,
    /// The fact; null for a bulk change.
    pub id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// `pending` when the fact waits in the review inbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// approved, discarded, review_expired, expired, merged, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How many facts a bulk change touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    /// The fact that already said it (an approval in the same words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<i64>,
}
