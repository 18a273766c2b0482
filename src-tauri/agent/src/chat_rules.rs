//! Rules from chat (#130, contract section 2): when a message reads like a standing "never" or
//! "ask me first", Sentient proposes the matching lasting rule ("Make this a rule?") instead of
//! only remembering the words, which summarizing could lose. Only the user's answer creates a
//! rule: the fast model only maps words to rule keys, and code checks every key it names.
//!
//! Owns the `rule_proposals` table, the check on each user and steer message, and the
//! accept/decline decision. Until a proposal is answered (and while a check is still weighing),
//! its chat asks before every matched tool; `run_loop` reads that through [`Agent::chat_rule_keys`].

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::sessions::SessionError;
use crate::Agent;
use sentient_core::bus::DomainEvent;
use sentient_core::config::{ConfigError, RuleOrigin};
pub use sentient_core::domain::rules::{ProposalStatus, ProposedRule, RuleProposal, RuleTarget};
use sentient_core::error::ApiError;
use sentient_core::store::StoreError;
use sentient_llm::queue::JobKind;
use sentient_llm::{CallOptions, ModelRole};

/// How long a chat reply waits for the check before it goes on without it.
pub const CHECK_WAIT: Duration = Duration::from_secs(20);

/// The user's answer to a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    Accept,
    Decline,
}

/// `POST /api/rule-proposals/{id}` and the `decide_rule_proposal` command.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct RuleDecisionRequest {
    /// accept or decline (read as text, so any other word gets the same 400 on every door).
    #[specta(type = RuleDecision)]
    pub decision: String,
}

impl RuleDecisionRequest {
    /// The decision it names; anything but accept or decline is refused.
    pub fn decision(&self) -> Result<RuleDecision, ChatRuleError> {
        match self.decision.trim() {
            "accept" => Ok(RuleDecision::Accept),
            "decline" => Ok(RuleDecision::Decline),
            _ => Err(ChatRuleError::BadDecision),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ChatRuleError {
    #[error("decision is accept or decline.")]
    BadDecision,
    #[error("There is no rule suggestion with the id {0}.")]
    NotFound(String),
    #[error("This rule suggestion was already answered.")]
    Answered,
    #[error("Choose pending, accepted, declined or all.")]
    BadStatus,
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for ChatRuleError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Sql(e))
    }
}

impl From<ChatRuleError> for ApiError {
    fn from(err: ChatRuleError) -> Self {
        match err {
            ChatRuleError::NotFound(_) => ApiError::not_found(err.to_string()),
            ChatRuleError::Answered => ApiError::conflict(err.to_string()),
            ChatRuleError::BadStatus => ApiError::bad_request(err.to_string()),
            // 400 with one sentence on every door, as the contract answers bad input here.
            ChatRuleError::BadDecision => ApiError::bad_request(err.to_string()),
            ChatRuleError::Session(e) => e.into(),
            ChatRuleError::Config(e) => e.into(),
            ChatRuleError::Store(e) => ApiError::internal(&e),
        }
    }
}

mod matching;
pub mod state;

pub use matching::*;
pub use state::ChatRulesState;

// ---------------------------------------------------------------------------------------------
// The engine part: checks in flight, the table, the decision.

type ProposalRecord = (
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
);

fn time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

fn proposal_from(r: ProposalRecord) -> RuleProposal {
    RuleProposal {
        id: r.0,
        session_id: r.1,
        message_id: r.2,
        said: r.3,
        rule: if r.4 == "ask" {
            ProposedRule::Ask
        } else {
            ProposedRule::Never
        },
        keys: serde_json::from_str(&r.5).unwrap_or_default(),
        targets: serde_json::from_str(&r.6).unwrap_or_default(),
        status: ProposalStatus::parse(&r.7).unwrap_or(ProposalStatus::Pending),
        created_at: time(&r.8),
        decided_at: r.9.as_deref().map(time),
    }
}

use sentient_core::store::new_id;

impl Agent {
    /// Checks a user (or steer) message for a standing "never" or "ask me first" and saves a
    /// proposal when one fits, published as `rule_proposal.updated`. Waits at most 20 s; a
    /// slower check finishes in the background while the tools it weighs ask first in this
    /// chat. A message that fails the pre-filter or matches no tool costs nothing.
    pub async fn check_chat_rules(
        &self,
        session_id: &str,
        message_id: &str,
        text: &str,
    ) -> Option<RuleProposal> {
        self.check_chat_rules_within(session_id, message_id, text, CHECK_WAIT)
            .await
    }

    /// [`Agent::check_chat_rules`] waiting at most `wait`.
    pub async fn check_chat_rules_within(
        &self,
        session_id: &str,
        message_id: &str,
        text: &str,
        wait: Duration,
    ) -> Option<RuleProposal> {
        if !passes_prefilter(text) {
            return None;
        }
        let catalog = Catalog::from_registry(self.tools());
        let found = candidates(&catalog, text);
        if found.is_empty() {
            return None;
        }
        let weighing = self.chat_rules_state().weigh(session_id, found.keys());
        let engine = self.clone();
        let (sid, mid, text) = (
            session_id.to_owned(),
            message_id.to_owned(),
            text.to_owned(),
        );
        let check = tokio::spawn(async move {
            let proposal = engine.weigh_rule(&sid, &mid, &text, &catalog, &found).await;
            // Saved first, so the chat keeps asking without a gap; then the weighing ends.
            drop(weighing);
            if let Some(proposal) = &proposal {
                engine
                    .bus()
                    .publish(DomainEvent::RuleProposalUpdated(proposal.clone()));
            }
            proposal
        });
        match tokio::time::timeout(wait, check).await {
            Ok(Ok(proposal)) => proposal,
            Ok(Err(error)) => {
                tracing::warn!(%error, "the rule check stopped unexpectedly");
                None
            }
            Err(_) => {
                tracing::info!(session_id, "the rule check goes on in the background");
                None
            }
        }
    }

    async fn weigh_rule(
        &self,
        session_id: &str,
        message_id: &str,
        text: &str,
        catalog: &Catalog,
        found: &Candidates,
    ) -> Option<RuleProposal> {
        let opts = CallOptions::new(ModelRole::Fast, "chat_rules", JobKind::Chat);
        let reply = match self
            .llm()
            .complete(prompt(catalog, found, text), &opts)
            .await
        {
            Ok(outcome) => outcome.reply.text,
            Err(error) => {
                tracing::info!(%error, "no rule check for this message");
                return None;
            }
        };
        let Some(answer) = parse_answer(&reply) else {
            tracing::info!("the rule check's answer could not be read");
            return None;
        };
        let pending = match self.pending_proposals(session_id).await {
            Ok(list) => list,
            Err(error) => {
                tracing::warn!(%error, "could not read the chat's rule suggestions");
                return None;
            }
        };
        let config = self.config().current();
        let (rule, keys) = refine(
            catalog,
            found,
            text,
            &answer,
            &config.tools.approvals.rules,
            &pending,
        )?;
        let proposal = RuleProposal {
            id: new_id(),
            session_id: session_id.to_owned(),
            message_id: message_id.to_owned(),
            said: said_of(text),
            rule,
            targets: keys.iter().filter_map(|k| catalog.target(k)).collect(),
            keys,
            status: ProposalStatus::Pending,
            created_at: self.clock().now(),
            decided_at: None,
        };
        if let Err(error) = self.save_proposal(&proposal).await {
            tracing::warn!(%error, "could not save the rule suggestion");
            return None;
        }
        Some(proposal)
    }

    async fn save_proposal(&self, p: &RuleProposal) -> Result<(), ChatRuleError> {
        sqlx::query(
            "INSERT INTO rule_proposals (id, session_id, message_id, said, rule, keys, targets, status, created_at, decided_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
        )
        .bind(&p.id)
        .bind(&p.session_id)
        .bind(&p.message_id)
        .bind(&p.said)
        .bind(p.rule.as_str())
        .bind(serde_json::to_string(&p.keys).unwrap_or_else(|_| "[]".to_owned()))
        .bind(serde_json::to_string(&p.targets).unwrap_or_else(|_| "[]".to_owned()))
        .bind(p.status.as_str())
        .bind(p.created_at.to_rfc3339())
        .execute(self.store().pool())
        .await?;
        Ok(())
    }

    /// The keys and rules of a chat's unanswered proposals.
    async fn pending_proposals(
        &self,
        session_id: &str,
    ) -> Result<Vec<(Vec<String>, ProposedRule)>, ChatRuleError> {
        Ok(self
            .proposals_with(session_id, Some(ProposalStatus::Pending))
            .await?
            .into_iter()
            .map(|p| (p.keys, p.rule))
            .collect())
    }

    async fn proposals_with(
        &self,
        session_id: &str,
        status: Option<ProposalStatus>,
    ) -> Result<Vec<RuleProposal>, ChatRuleError> {
        let rows: Vec<ProposalRecord> = sqlx::query_as(
            "SELECT id, session_id, message_id, said, rule, keys, targets, status, created_at, decided_at FROM rule_proposals
             WHERE session_id = ? AND (? IS NULL OR status = ?) ORDER BY created_at, rowid",
        )
        .bind(session_id)
        .bind(status.map(ProposalStatus::as_str))
        .bind(status.map(ProposalStatus::as_str))
        .fetch_all(self.store().pool())
        .await?;
        Ok(rows.into_iter().map(proposal_from).collect())
    }

    /// Tools and apps that must ask first in a chat: the keys of its unanswered proposals and
    /// of checks still weighing. Read before every call of a chat's run.
    pub async fn chat_rule_keys(&self, session_id: &str) -> BTreeSet<String> {
        let mut keys = self.chat_rules_state().keys(session_id);
        match self.pending_proposals(session_id).await {
            Ok(pending) => keys.extend(pending.into_iter().flat_map(|(k, _)| k)),
            Err(error) => tracing::warn!(%error, "could not read the chat's rule suggestions"),
        }
        keys
    }

    /// A chat's proposals, oldest first: `status` is pending (the default), accepted,
    /// declined or all.
    pub async fn rule_proposals(
        &self,
        session_id: &str,
        status: Option<&str>,
    ) -> Result<Vec<RuleProposal>, ChatRuleError> {
        let status = match status.map(str::trim).unwrap_or("pending") {
            "all" => None,
            other => Some(ProposalStatus::parse(other).ok_or(ChatRuleError::BadStatus)?),
        };
        self.sessions().get(session_id).await?;
        self.proposals_with(session_id, status).await
    }

    async fn rule_proposal(&self, id: &str) -> Result<RuleProposal, ChatRuleError> {
        let row: Option<ProposalRecord> = sqlx::query_as(
            "SELECT id, session_id, message_id, said, rule, keys, targets, status, created_at, decided_at FROM rule_proposals WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(self.store().pool())
        .await?;
        row.map(proposal_from)
            .ok_or_else(|| ChatRuleError::NotFound(id.to_owned()))
    }

    /// Answers a proposal. Accept saves the rule where it tightens, with its origin note, in
    /// one settings change (`config.updated`); decline saves nothing. Either ends the chat's
    /// extra asking and publishes `rule_proposal.updated`.
    pub async fn decide_rule_proposal(
        &self,
        id: &str,
        decision: RuleDecision,
    ) -> Result<RuleProposal, ChatRuleError> {
        self.decide(id, decision).await
    }

    async fn decide(
        &self,
        id: &str,
        decision: RuleDecision,
    ) -> Result<RuleProposal, ChatRuleError> {
        let mut proposal = self.rule_proposal(id).await?;
        if proposal.status != ProposalStatus::Pending {
            return Err(ChatRuleError::Answered);
        }
        let status = match decision {
            RuleDecision::Accept => ProposalStatus::Accepted,
            RuleDecision::Decline => ProposalStatus::Declined,
        };
        let now = self.clock().now();
        // Claimed atomically, so two answers at once can't both win.
        let claimed = sqlx::query(
            "UPDATE rule_proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
        )
        .bind(status.as_str())
        .bind(now.to_rfc3339())
        .bind(id)
        .execute(self.store().pool())
        .await?;
        if claimed.rows_affected() == 0 {
            return Err(ChatRuleError::Answered);
        }
        if decision == RuleDecision::Accept {
            let catalog = Catalog::from_registry(self.tools());
            let origin = RuleOrigin {
                rule: proposal.rule.value(),
                said: proposal.said.clone(),
                at: now.to_rfc3339(),
                session_id: Some(proposal.session_id.clone()),
            };
            let (keys, rule) = (proposal.keys.clone(), proposal.rule);
            let saved = self
                .config()
                .update(|config| {
                    tighten(&mut config.tools.approvals, &catalog, &keys, rule, &origin);
                })
                .await;
            if let Err(error) = saved {
                // The rule was not saved, so the question stays open.
                sqlx::query(
                    "UPDATE rule_proposals SET status = 'pending', decided_at = NULL WHERE id = ?",
                )
                .bind(id)
                .execute(self.store().pool())
                .await?;
                return Err(error.into());
            }
        }
        proposal.status = status;
        proposal.decided_at = Some(now);
        self.bus()
            .publish(DomainEvent::RuleProposalUpdated(proposal.clone()));
        Ok(proposal)
    }
}
