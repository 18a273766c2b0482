//! Rules from chat over HTTP (contract section 2, "Rules from chat", #130): a chat's
//! "Make this a rule?" cards and the user's answer.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::agent::chat_rules::{RuleDecisionRequest, RuleProposal};
use crate::error::ApiError;
use crate::gateway::body::PlainBody;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(decide))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct StatusQuery {
    /// pending (the default), accepted, declined or all.
    status: Option<String>,
}

/// A chat's rule suggestions, oldest first.
#[utoipa::path(get, path = "/api/sessions/{id}/rule-proposals", tag = "chat", params(StatusQuery),
    responses((status = 200, body = Vec<RuleProposal>), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list(
    State(services): State<Services>,
    Path(id): Path<String>,
    Query(q): Query<StatusQuery>,
) -> Result<Json<Vec<RuleProposal>>, ApiError> {
    Ok(Json(
        services
            .agent()
            .rule_proposals(&id, q.status.as_deref())
            .await?,
    ))
}

/// Answers a rule suggestion: accept saves the rule, decline saves nothing.
#[utoipa::path(post, path = "/api/rule-proposals/{id}", tag = "chat", request_body = RuleDecisionRequest,
    responses((status = 200, body = RuleProposal), (status = 404, body = crate::error::ErrorBody),
              (status = 409, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody)))]
pub async fn decide(
    State(services): State<Services>,
    Path(id): Path<String>,
    PlainBody(body): PlainBody<RuleDecisionRequest>,
) -> Result<Json<RuleProposal>, ApiError> {
    let decision = body.decision()?;
    Ok(Json(
        services.agent().decide_rule_proposal(&id, decision).await?,
    ))
}
