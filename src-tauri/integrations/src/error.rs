//! What can go wrong with an app, as plain sentences, and the HTTP status each answers with.

use sentient_core::error::{ApiError, FieldError};
use sentient_core::secrets::SecretsError;
use sentient_core::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntegrationError {
    #[error("There is no app called \"{0}\".")]
    UnknownApp(String),
    #[error("There is no tool server called \"{0}\".")]
    UnknownServer(String),
    #[error("{0} has no change feed.")]
    NoFeed(String),
    /// Bad input or a check that failed; the text says what to do.
    #[error("{0}")]
    Invalid(String),
    #[error("access must be \"read\" or \"read_write\".")]
    BadAccess,
    #[error("enabled must be true or false.")]
    BadEnabled,
    #[error("enable must be true or false.")]
    BadEnable,
    #[error("{0} doesn't take privacy filters.")]
    NoPrivacyFilters(String),
    /// The outside service failed (unreachable, refused, timed out); the text says which.
    #[error("{0}")]
    Service(String),
    #[error("{0}")]
    Keychain(String),
    /// Something broke inside; the text goes to the log only.
    #[error("{0}")]
    Internal(String),
}

impl From<StoreError> for IntegrationError {
    fn from(error: StoreError) -> Self {
        Self::Internal(error.to_string())
    }
}

impl From<SecretsError> for IntegrationError {
    fn from(error: SecretsError) -> Self {
        match error {
            // Sentences only the person can act on are shown, the private file's too.
            SecretsError::NoKeychain
            | SecretsError::KeychainLocked
            | SecretsError::KeychainTimeout
            | SecretsError::FileWontOpen(_) => Self::Keychain(error.to_string()),
            other => Self::Internal(other.to_string()),
        }
    }
}

impl From<IntegrationError> for ApiError {
    fn from(error: IntegrationError) -> Self {
        match &error {
            IntegrationError::UnknownApp(_)
            | IntegrationError::UnknownServer(_)
            | IntegrationError::NoFeed(_) => ApiError::not_found(error.to_string()),
            IntegrationError::Invalid(_)
            | IntegrationError::NoPrivacyFilters(_)
            | IntegrationError::Service(_) => ApiError::bad_request(error.to_string()),
            IntegrationError::BadAccess => ApiError::validation(vec![FieldError::new(
                &["body", "access"],
                error.to_string(),
                "value_error",
            )]),
            IntegrationError::BadEnabled => ApiError::validation(vec![FieldError::new(
                &["body", "enabled"],
                error.to_string(),
                "bool_type",
            )]),
            IntegrationError::BadEnable => ApiError::validation(vec![FieldError::new(
                &["body", "enable"],
                error.to_string(),
                "bool_type",
            )]),
            IntegrationError::Keychain(_) => ApiError::new(500, error.to_string()),
            IntegrationError::Internal(cause) => ApiError::internal(cause),
        }
    }
}
