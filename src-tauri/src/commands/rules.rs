//! Rules from chat: a chat's "Make this a rule?" cards and the person's answer, the same service
//! calls as `/api/sessions/{id}/rule-proposals` and `/api/rule-proposals/{id}`.

use sentient_engine::Engine;
use sentient_engine::agent::chat_rules::{RuleDecisionRequest, RuleProposal};
use sentient_engine::error::ApiError;
use tauri::State;

/// A chat's proposals, oldest first; `status` is pending (the default), accepted, declined or all.
#[tauri::command]
#[specta::specta]
pub async fn rule_proposals(
    engine: State<'_, Engine>,
    session_id: String,
    status: Option<String>,
) -> Result<Vec<RuleProposal>, ApiError> {
    engine
        .services()
        .agent()
        .rule_proposals(&session_id, status.as_deref())
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn decide_rule_proposal(
    engine: State<'_, Engine>,
    id: String,
    body: RuleDecisionRequest,
) -> Result<RuleProposal, ApiError> {
    let decision = body.decision()?;
    engine
        .services()
        .agent()
        .decide_rule_proposal(&id, decision)
        .await
        .map_err(ApiError::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use tauri::Manager;

    #[test]
    fn a_new_chat_has_no_proposals_and_unknown_ones_cannot_be_answered() {
        let (_dir, engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let session = engine
                .services()
                .sessions()
                .create("desktop")
                .await
                .expect("chat");
            let pending = rule_proposals(state.clone(), session.id.clone(), None)
                .await
                .expect("list");
            assert!(pending.is_empty());
            let all = rule_proposals(state.clone(), session.id.clone(), Some("all".to_owned()))
                .await
                .expect("list");
            assert!(all.is_empty());
            let missing = rule_proposals(state.clone(), "nope".to_owned(), None).await;
            assert_eq!(missing.expect_err("unknown chat").status, 404);
            let unknown = decide_rule_proposal(
                state.clone(),
                "nope".to_owned(),
                RuleDecisionRequest {
                    decision: "accept".to_owned(),
                },
            )
            .await;
            assert_eq!(unknown.expect_err("unknown proposal").status, 404);
            // A word that is not a decision: the HTTP route's 400 and sentence.
            let bad = decide_rule_proposal(
                state.clone(),
                "nope".to_owned(),
                RuleDecisionRequest {
                    decision: "maybe".to_owned(),
                },
            )
            .await
            .expect_err("unknown word");
            assert_eq!(
                (bad.status, bad.message()),
                (400, "decision is accept or decline.".to_owned())
            );
        });
    }
}
