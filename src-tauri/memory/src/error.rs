//! What can go wrong in memory, and the contract's status for each (picked here, at the edge).

use sentient_core::error::ApiError;

/// What a person sees when sqlite-vec did not load.
pub const UNAVAILABLE_DETAIL: &str = "Memory can't be changed right now because its search extension did not load. Run `sentient doctor` to see why.";

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// Bad input: a sentence saying what to change.
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    /// sqlite-vec is missing: reads answer empty, writes refuse.
    #[error("{UNAVAILABLE_DETAIL}")]
    Unavailable,
    #[error("memory's database failed: {0}")]
    Store(#[from] sqlx::Error),
    #[error("a notes file could not be read or written: {0}")]
    Io(#[from] std::io::Error),
    /// A document that can't be imported (wrong type, too large, unreadable, no text).
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The model needed for the work did not answer: a sentence saying what to do.
    #[error("{0}")]
    ModelFailed(String),
}

/// Why a file could not be imported. Each message is a sentence for the person; the `String`
/// is the file's name as they know it.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("The file has no name, so Sentient can't tell what kind it is.")]
    NoName,
    #[error(
        "Sentient can import PDF, Word (.docx), text and Markdown files; {0} is none of these."
    )]
    UnsupportedType(String),
    #[error(
        "The file is larger than 20 MB. Split it into smaller files and import them one by one."
    )]
    TooLarge,
    #[error("Sentient could not read {0}: it may be damaged or protected by a password.")]
    Unreadable(String),
    #[error(
        "Sentient found no text in {0}. If it is a scan, its pages are pictures of text, which Sentient cannot read yet."
    )]
    Empty(String),
}

impl From<ImportError> for ApiError {
    fn from(error: ImportError) -> Self {
        let status = match error {
            ImportError::TooLarge => 413,
            _ => 400,
        };
        ApiError::new(status, error.to_string())
    }
}

impl MemoryError {
    pub fn invalid(detail: impl Into<String>) -> Self {
        Self::Invalid(detail.into())
    }
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::NotFound(detail.into())
    }
}

impl From<MemoryError> for ApiError {
    fn from(error: MemoryError) -> Self {
        match error {
            MemoryError::Invalid(detail) => ApiError::bad_request(detail),
            MemoryError::NotFound(detail) => ApiError::not_found(detail),
            MemoryError::Unavailable => ApiError::new(503, UNAVAILABLE_DETAIL),
            MemoryError::Store(e) => ApiError::internal(&e),
            MemoryError::Io(e) => ApiError::internal(&e),
            MemoryError::Import(e) => ApiError::from(e),
            MemoryError::ModelFailed(detail) => ApiError::new(503, detail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doors_answer_with_the_contracts_statuses() {
        let status = |e: MemoryError| ApiError::from(e).status;
        assert_eq!(status(MemoryError::invalid("x")), 400);
        assert_eq!(status(MemoryError::not_found("x")), 404);
        assert_eq!(status(MemoryError::Unavailable), 503);
        assert_eq!(status(MemoryError::Import(ImportError::TooLarge)), 413);
        assert_eq!(status(MemoryError::ModelFailed("x".into())), 503);
        assert_eq!(status(MemoryError::Store(sqlx::Error::RowNotFound)), 500);
    }
}
