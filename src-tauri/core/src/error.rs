//! The one error shape both doors speak: HTTP answers `status` with `{"detail": ...}`, and a
//! Tauri command returns the same object as its typed error. Services keep their own
//! `thiserror` enums and convert into this at the door.

use serde::{Deserialize, Serialize};

/// One problem with one field of a request body (the contract's 422 item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FieldError {
    /// Where the problem is, e.g. `["body", "tools", "approvals", "rules", "gmail"]`.
    pub loc: Vec<String>,
    /// A plain sentence saying what is wrong.
    pub msg: String,
    /// A short machine-readable kind, e.g. `value_error`, `missing`, `extra_forbidden`.
    #[serde(rename = "type")]
    pub kind: String,
}

impl FieldError {
    pub fn new(loc: &[&str], msg: impl Into<String>, kind: &str) -> Self {
        Self {
            loc: loc.iter().map(|s| (*s).to_owned()).collect(),
            msg: msg.into(),
            kind: kind.to_owned(),
        }
    }
}

/// The `detail` of an error: a sentence, or for validation failures the list of field problems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ErrorDetail {
    Message(String),
    Fields(Vec<FieldError>),
}

/// An error as a person (or a script) sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ApiError {
    /// The HTTP status code this error answers with.
    pub status: u16,
    pub detail: ErrorDetail,
}

/// An error answer's body over HTTP, as the OpenAPI document shows it: `{"detail": …}` (the status
/// is the HTTP status; `ApiError` carries it for the window's typed commands).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub detail: ErrorDetail,
}

/// What a person is told when something broke inside; the real cause goes to the log only.
pub const INTERNAL_DETAIL: &str = "Something went wrong inside Sentient. Try again; if it keeps happening, the log has the details.";

impl ApiError {
    pub fn new(status: u16, detail: impl Into<String>) -> Self {
        Self {
            status,
            detail: ErrorDetail::Message(detail.into()),
        }
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(400, detail)
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(401, detail)
    }

    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(404, detail)
    }

    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(409, detail)
    }

    pub fn validation(fields: Vec<FieldError>) -> Self {
        Self {
            status: 422,
            detail: ErrorDetail::Fields(fields),
        }
    }

    /// A 500 whose cause is logged here and hidden from the caller.
    /// The same problem answered as 400 with one sentence, for routes whose contract answers bad
    /// input that way instead of 422 with a field list. Other statuses stay as they are.
    pub fn as_bad_request(self) -> Self {
        if self.status == 422 {
            Self::bad_request(self.message())
        } else {
            self
        }
    }

    pub fn internal(cause: &dyn std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(500, INTERNAL_DETAIL)
    }

    /// The detail as one sentence (field problems joined), for logs and notifications.
    pub fn message(&self) -> String {
        match &self.detail {
            ErrorDetail::Message(m) => m.clone(),
            ErrorDetail::Fields(fields) => fields_sentence(fields),
        }
    }
}

/// Field problems as one sentence, for logs, notifications and the services' own errors.
pub fn fields_sentence(fields: &[FieldError]) -> String {
    fields
        .iter()
        .map(|f| f.msg.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message())
    }
}

impl std::error::Error for ApiError {}

/// The HTTP door's answer: `status` with `{"detail": ...}` (the `http` feature, which the
/// gateway turns on; nothing else here knows HTTP).
#[cfg(feature = "http")]
impl axum::response::IntoResponse for ApiError {
    fn into_response(self) -> axum::response::Response {
        let status = axum::http::StatusCode::from_u16(self.status)
            .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        (
            status,
            axum::Json(serde_json::json!({ "detail": self.detail })),
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_serialises_as_sentence_or_list() {
        let plain = serde_json::to_value(ApiError::not_found("No such task.")).expect("json");
        assert_eq!(plain["detail"], "No such task.");
        let fields = serde_json::to_value(ApiError::validation(vec![FieldError::new(
            &["body", "ui", "theme"],
            "Pick dark, light or system.",
            "value_error",
        )]))
        .expect("json");
        assert_eq!(fields["detail"][0]["loc"][2], "theme");
        assert_eq!(fields["detail"][0]["type"], "value_error");
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let err = ApiError::internal(&"disk I/O error at /secret/path");
        assert_eq!(err.status, 500);
        assert!(!err.message().contains("/secret/path"));
    }
}
