//! What the sandbox's doors can refuse before a script runs. A script that fails is not an
//! error here: its `SandboxResult` says so with `ok: false`.

use sentient_core::error::{ApiError, FieldError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("Write some code to run.")]
    EmptyCode,
}

impl From<SandboxError> for ApiError {
    fn from(error: SandboxError) -> Self {
        match error {
            SandboxError::EmptyCode => ApiError::validation(vec![FieldError::new(
                &["body", "code"],
                error.to_string(),
                "value_error",
            )]),
        }
    }
}
