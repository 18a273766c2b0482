//! The request bodies of the task routes, shared by both doors (the HTTP routes and the typed
//! commands), with the checks that belong to the request itself.

use serde::{Deserialize, Serialize};

use crate::TaskError;

/// `POST /api/tasks/preview`: the prompt to make sense of.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct PreviewRequest {
    pub prompt: String,
}

/// `POST /api/tasks/{id}/chat`: a change to the task, in the person's words.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct TaskChatRequest {
    pub message: String,
}

/// One answer to one of the planner's questions.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ClarificationAnswer {
    pub question_id: String,
    pub answer_text: String,
}

/// `POST /api/tasks/{id}/clarifications`.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ClarificationsRequest {
    pub answers: Vec<ClarificationAnswer>,
}

impl ClarificationsRequest {
    /// The answers as `(question id, text)`; every question needs a non-blank answer.
    pub fn checked(self) -> Result<Vec<(String, String)>, TaskError> {
        if self.answers.is_empty() || self.answers.iter().any(|a| a.answer_text.trim().is_empty()) {
            return Err(TaskError::invalid("Answer each question before sending."));
        }
        Ok(self
            .answers
            .into_iter()
            .map(|a| (a.question_id, a.answer_text))
            .collect())
    }
}

/// `POST /api/tasks/{id}/runs/{run_id}/answer`: the answer to a waiting run's question.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct RunAnswerRequest {
    pub answer: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_question_needs_an_answer() {
        let answer = |text: &str| ClarificationAnswer {
            question_id: "q1".into(),
            answer_text: text.into(),
        };
        let none = ClarificationsRequest { answers: vec![] };
        assert!(matches!(none.checked(), Err(TaskError::Invalid(_))));
        let blank = ClarificationsRequest {
            answers: vec![answer("  ")],
        };
        assert!(matches!(blank.checked(), Err(TaskError::Invalid(_))));
        let given = ClarificationsRequest {
            answers: vec![answer("Lisbon")],
        };
        assert_eq!(
            given.checked().expect("answered"),
            [("q1".to_owned(), "Lisbon".to_owned())]
        );
    }
}
