//! Bodies and answers of the memory routes, used by both doors (HTTP and the window's commands).

use serde::{Deserialize, Serialize};

/// `POST /api/memories`.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NewMemoryRequest {
    pub content: String,
    /// Defaults to manual.
    #[serde(default)]
    pub source: Option<String>,
}

/// `PUT /api/memories/{id}` and `PUT /api/memories/workspace/{name}`.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ContentRequest {
    pub content: String,
}

/// `POST /api/memories/review/{kind}/{id}/approve`: with `content`, saved in these words.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ApproveRequest {
    #[serde(default)]
    pub content: Option<String>,
}

/// `POST /api/memories/review/approve-all`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ApproveAllRequest {
    /// The `from` of the memories to approve ("Gmail", "resume.pdf").
    #[serde(default)]
    pub from: Option<String>,
}

/// `{deleted: true}` for one memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Deleted {
    pub deleted: bool,
}

/// `{deleted: n}` for a source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DeletedCount {
    pub deleted: i64,
}

/// `{approved: n}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Approved {
    pub approved: i64,
}

/// `{saved: true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Saved {
    pub saved: bool,
}
