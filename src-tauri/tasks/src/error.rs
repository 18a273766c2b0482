//! What can go wrong in the tasks service, in the service's own words. The service never picks an
//! HTTP status; the doors turn a [`TaskError`] into their answer (`From<TaskError> for ApiError`).

use sentient_core::error::{ApiError, FieldError, fields_sentence};

use crate::store::TaskStoreError;

#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// The request cannot be done as asked; the text says what to change.
    #[error("{0}")]
    Invalid(String),
    /// What it names is not there.
    #[error("{0}")]
    NotFound(String),
    /// Not now: the task is in a state that does not allow it.
    #[error("{0}")]
    Conflict(String),
    /// Fields of the request that do not fit, each with its own sentence.
    #[error("{}", fields_sentence(.0))]
    Fields(Vec<FieldError>),
    /// The planner model answered, but not in the shape asked for.
    #[error("{0}")]
    BadModelAnswer(String),
    /// Another service said no (the model layer, the settings, a chat); its answer is kept whole.
    #[error("{}", .0.message())]
    Service(ApiError),
    #[error(transparent)]
    Store(#[from] TaskStoreError),
    /// Something broke inside; the text is for the log only.
    #[error("{0}")]
    Internal(String),
}

impl TaskError {
    pub fn invalid(detail: impl Into<String>) -> Self {
        Self::Invalid(detail.into())
    }
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::NotFound(detail.into())
    }
    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::Conflict(detail.into())
    }
    pub fn validation(fields: Vec<FieldError>) -> Self {
        Self::Fields(fields)
    }
    /// A failure inside, logged where it is turned into an answer.
    pub fn internal(cause: &dyn std::fmt::Display) -> Self {
        Self::Internal(cause.to_string())
    }
    /// The sentence a person (or the model, for the task tools) reads.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl From<ApiError> for TaskError {
    fn from(error: ApiError) -> Self {
        Self::Service(error)
    }
}

impl From<sentient_core::domain::notification::NotifyError> for TaskError {
    fn from(error: sentient_core::domain::notification::NotifyError) -> Self {
        Self::Internal(error.to_string())
    }
}

impl From<sentient_llm::LlmError> for TaskError {
    fn from(error: sentient_llm::LlmError) -> Self {
        Self::Service(error.into())
    }
}

/// The doors' answer: 400, 404, 409, 422, 502, or a logged 500.
impl From<TaskError> for ApiError {
    fn from(error: TaskError) -> Self {
        match error {
            TaskError::Invalid(detail) => ApiError::bad_request(detail),
            TaskError::NotFound(detail) => ApiError::not_found(detail),
            TaskError::Conflict(detail) => ApiError::conflict(detail),
            TaskError::Fields(fields) => ApiError::validation(fields),
            TaskError::BadModelAnswer(detail) => ApiError::new(502, detail),
            TaskError::Service(error) => error,
            TaskError::Store(TaskStoreError::Store(e)) => ApiError::internal(&e),
            TaskError::Store(missing) => ApiError::not_found(missing.to_string()),
            TaskError::Internal(cause) => ApiError::internal(&cause),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doors_answer_with_the_contracts_statuses() {
        let status = |e: TaskError| ApiError::from(e).status;
        assert_eq!(status(TaskError::invalid("x")), 400);
        assert_eq!(status(TaskError::not_found("x")), 404);
        assert_eq!(status(TaskError::conflict("x")), 409);
        assert_eq!(status(TaskError::validation(Vec::new())), 422);
        assert_eq!(status(TaskError::BadModelAnswer("x".into())), 502);
        assert_eq!(status(TaskStoreError::NoTask("t".into()).into()), 404);
        assert_eq!(status(TaskError::internal(&"boom")), 500);
        let kept = ApiError::new(429, "Slow down.");
        assert_eq!(ApiError::from(TaskError::from(kept.clone())), kept);
    }
}
