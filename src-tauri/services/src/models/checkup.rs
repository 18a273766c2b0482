//! The model check-up (contract section 3, `POST /api/models/checkup`): every role's model is
//! tried the way Sentient will use it, one role at a time, and each finding comes back as a
//! plain sentence with a fix the window can offer.
//!
//! It is informational only: nothing here changes the settings. The pure parts (which checks
//! apply to which role, the key that lets two roles share one model's tests, how statuses add
//! up, the table `sentient doctor --models` prints) are separate from the part that calls the
//! models, so they are tested without any model.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::time::{Duration, Instant};

use futures::Stream;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{ModelError, ModelService};
use crate::config::Config;
use crate::llm::error::provider_label;
use crate::llm::queue::JobKind;
use crate::llm::{
    CallOptions, CallOutcome, ChatRequest, LlmError, Message, ModelRef, ModelRole, Reasoning,
    Reply, ToolCall, ToolSpec, WireFormat,
};
use crate::system::{Hardware, Recommendation, RunsOn};

/// How long any one step may take before it counts as failed.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// Who the model calls are for, in the usage ledger.
const SOURCE: &str = "checkup";

/// The model named in fixes when the computer only fits a small one (which can't use tools).
const FALLBACK_MODEL: &str = "qwen3:8b";
const FALLBACK_CONTEXT: u32 = 8192;

/// The model sized for this computer may keep this share on the graphics card at its
/// recommended length and still pass (qwen3:8b at 8,192 tokens keeps about 90% on 8 GB).
const RECOMMENDED_GPU_SHARE: f64 = 0.85;

// ------------------------------------------------------------------------------------ types

/// How one check (or a role, or the whole check-up) went.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
    Skip,
}

impl CheckStatus {
    /// How bad it is: skip < pass < warn < fail.
    fn rank(self) -> u8 {
        match self {
            Self::Skip => 0,
            Self::Pass => 1,
            Self::Warn => 2,
            Self::Fail => 3,
        }
    }

    /// The worst of `statuses`; `Skip` when there are none.
    pub fn worst(statuses: impl IntoIterator<Item = Self>) -> Self {
        statuses
            .into_iter()
            .max_by_key(|s| s.rank())
            .unwrap_or(Self::Skip)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Warn => "warn",
            Self::Fail => "fail",
            Self::Skip => "skip",
        }
    }
}

/// A one-click fix the window may offer next to a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckAction {
    /// `PUT /api/models/roles {role: model}`.
    UseModel {
        role: ModelRole,
        model: String,
        label: String,
    },
    /// `POST /api/models/ollama/pull {name}`.
    PullModel { name: String, label: String },
    /// `models.reasoning[role] = value`.
    SetReasoning {
        role: ModelRole,
        value: String,
        label: String,
    },
    /// `models.context_length`, or `models.context_length_per_role[role]` when role is set.
    SetContextLength {
        value: u32,
        role: Option<ModelRole>,
        label: String,
    },
    /// `PUT /api/secrets/{provider}`.
    AddKey { provider: String, label: String },
    /// Start (or install) Ollama.
    StartOllama { label: String },
}

impl CheckAction {
    /// The same fix for another role (a reused test's fix belongs to the role it is shown on).
    fn for_role(self, role: ModelRole) -> Self {
        match self {
            Self::UseModel { model, label, .. } => Self::UseModel { role, model, label },
            Self::SetReasoning { value, label, .. } => Self::SetReasoning { role, value, label },
            Self::SetContextLength {
                value,
                role: Some(_),
                label,
            } => Self::SetContextLength {
                value,
                role: Some(role),
                label,
            },
            other => other,
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Check {
    /// connection, reply, tools, chain, json, thinking, context, gpu or embedding.
    pub id: String,
    pub label: String,
    pub status: CheckStatus,
    /// What was found, in plain sentences.
    pub detail: String,
    /// What to do about it, in plain sentences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<CheckAction>,
}

impl Check {
    fn new(id: CheckId, status: CheckStatus, detail: impl Into<String>) -> Self {
        Self {
            id: id.as_str().to_owned(),
            label: id.label().to_owned(),
            status,
            detail: detail.into(),
            fix: None,
            action: None,
        }
    }

    fn pass(id: CheckId, detail: impl Into<String>) -> Self {
        Self::new(id, CheckStatus::Pass, detail)
    }

    fn warn(id: CheckId, detail: impl Into<String>) -> Self {
        Self::new(id, CheckStatus::Warn, detail)
    }

    fn fail(id: CheckId, detail: impl Into<String>) -> Self {
        Self::new(id, CheckStatus::Fail, detail)
    }

    fn skip(id: CheckId, detail: impl Into<String>) -> Self {
        Self::new(id, CheckStatus::Skip, detail)
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    fn action(mut self, action: Option<CheckAction>) -> Self {
        self.action = action;
        self
    }
}

/// A role and the model the check-up tries for it (`null` = it uses the main model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RolePick {
    pub role: ModelRole,
    pub model: Option<String>,
}

/// A finished role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RoleResult {
    pub role: ModelRole,
    /// The model tried; null for a role that uses the main model.
    pub model: Option<String>,
    /// The provider id (e.g. "ollama_chat"), null when the model can't be read.
    pub provider: Option<String>,
    /// Runs on this computer.
    pub local: bool,
    /// "primary" for a role with no model of its own.
    pub inherits: Option<String>,
    pub status: CheckStatus,
    pub checks: Vec<Check>,
}

/// One NDJSON line of `POST /api/models/checkup`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CheckupLine {
    /// First: the roles about to be checked and what this computer can run.
    Start {
        roles: Vec<RolePick>,
        hardware: Hardware,
    },
    /// Progress, e.g. "Trying a tool call".
    Step { role: ModelRole, label: String },
    /// A role is finished.
    Role(RoleResult),
    /// Last: the worst role's status and every role again.
    Done {
        status: CheckStatus,
        roles: Vec<RoleResult>,
    },
}

/// `POST /api/models/checkup`'s body.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CheckupRequest {
    /// Only these roles, with these models (null = the role uses the main model). Left out:
    /// every role as saved.
    #[serde(default)]
    pub roles: Option<BTreeMap<String, Option<String>>>,
}

// ------------------------------------------------------------------------------- the checks

/// The checks, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckId {
    Connection,
    Reply,
    Tools,
    Chain,
    Json,
    Thinking,
    Context,
    Gpu,
    Embedding,
}

/// One check of the check-up: its wire name, its label, the line shown while it runs, and the
/// roles and models it applies to.
pub struct CheckSpec {
    pub id: CheckId,
    pub name: &'static str,
    pub label: &'static str,
    /// The progress line shown while it runs.
    pub step: &'static str,
    /// Whether it applies to a role on a model of a kind. Thinking further needs a model that
    /// can think, which only Ollama's `/api/show` tells.
    pub applies: fn(ModelRole, ModelKind) -> bool,
}

/// Every check, in the order they run (and in [`CheckId`]'s order).
pub const CHECKS: [CheckSpec; 9] = [
    CheckSpec {
        id: CheckId::Connection,
        name: "connection",
        label: "Connection",
        step: "Checking the connection",
        applies: |_, _| true,
    },
    CheckSpec {
        id: CheckId::Reply,
        name: "reply",
        label: "Short reply",
        step: "Asking for a short reply",
        applies: |role, _| role != ModelRole::Embedding,
    },
    CheckSpec {
        id: CheckId::Tools,
        name: "tools",
        label: "Tool use",
        step: "Trying a tool call",
        applies: |role, _| uses_tools(role),
    },
    CheckSpec {
        id: CheckId::Chain,
        name: "chain",
        label: "Two tool calls in a row",
        step: "Trying a second tool call with the first one's result",
        applies: |role, _| matches!(role, ModelRole::Primary | ModelRole::Executor),
    },
    CheckSpec {
        id: CheckId::Json,
        name: "json",
        label: "JSON reply",
        step: "Asking for a JSON reply",
        applies: |role, _| matches!(role, ModelRole::Fast | ModelRole::Planner),
    },
    CheckSpec {
        id: CheckId::Thinking,
        name: "thinking",
        label: "Thinking",
        step: "Checking whether it thinks as set",
        applies: ollama_chat_model,
    },
    CheckSpec {
        id: CheckId::Context,
        name: "context",
        label: "Context length",
        step: "Comparing the context length with the model's maximum",
        applies: ollama_chat_model,
    },
    CheckSpec {
        id: CheckId::Gpu,
        name: "gpu",
        label: "Graphics card",
        step: "Checking how much of it runs on the graphics card",
        applies: ollama_chat_model,
    },
    CheckSpec {
        id: CheckId::Embedding,
        name: "embedding",
        label: "Embeddings",
        step: "Trying an embedding",
        applies: |role, _| role == ModelRole::Embedding,
    },
];

/// The Ollama-only checks apply to an Ollama model in any role but embedding.
fn ollama_chat_model(role: ModelRole, kind: ModelKind) -> bool {
    kind == ModelKind::Ollama && role != ModelRole::Embedding
}

impl CheckId {
    pub const ALL: [CheckId; 9] = [
        Self::Connection,
        Self::Reply,
        Self::Tools,
        Self::Chain,
        Self::Json,
        Self::Thinking,
        Self::Context,
        Self::Gpu,
        Self::Embedding,
    ];

    /// This check's row of [`CHECKS`].
    pub fn spec(self) -> &'static CheckSpec {
        &CHECKS[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The progress line shown while it runs.
    pub fn step(self) -> &'static str {
        self.spec().step
    }

    /// A test that calls the model and is shared by roles with the same test settings.
    pub fn is_model_test(self) -> bool {
        matches!(self, Self::Reply | Self::Tools | Self::Chain | Self::Json)
    }
}

/// Where a model runs, as far as the checks care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// Ollama (`ollama/`, `ollama_chat/`): the Ollama checks apply.
    Ollama,
    /// LM Studio, vLLM: local, but no Ollama checks.
    OtherLocal,
    Cloud,
}

impl ModelKind {
    pub fn of(model: &ModelRef) -> Self {
        if model.provider.format == WireFormat::Ollama {
            Self::Ollama
        } else if model.provider.local {
            Self::OtherLocal
        } else {
            Self::Cloud
        }
    }
}

/// Roles that call tools.
pub fn uses_tools(role: ModelRole) -> bool {
    matches!(
        role,
        ModelRole::Primary
            | ModelRole::Fast
            | ModelRole::Executor
            | ModelRole::Vision
            | ModelRole::Voice
    )
}

/// Whether `check` applies to `role` on a model of `kind` (its row of [`CHECKS`]).
pub fn applies(check: CheckId, role: ModelRole, kind: ModelKind) -> bool {
    (check.spec().applies)(role, kind)
}

/// The checks for `role` on a model of `kind`, in order.
pub fn checks_for(role: ModelRole, kind: ModelKind) -> Vec<CheckId> {
    CheckId::ALL
        .into_iter()
        .filter(|c| applies(*c, role, kind))
        .collect()
}

/// What the model tests depend on besides the model: two roles with equal keys share them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TestKey {
    pub model: String,
    pub api_base: Option<String>,
    pub reasoning: Option<String>,
    /// Only for models that read it (Ollama's `num_ctx`).
    pub context_length: Option<u32>,
    /// The temperature's bits (a float has no equality of its own).
    pub temperature: Option<u64>,
}

/// The context length `role` reads at (its own, else the shared one).
pub fn role_context_length(config: &Config, role: ModelRole) -> Option<u32> {
    let m = &config.models;
    m.context_length_per_role
        .get(role.as_str())
        .copied()
        .or(m.context_length)
}

pub fn test_key(config: &Config, role: ModelRole, model: &str) -> TestKey {
    let m = &config.models;
    let parsed = ModelRef::parse(model).ok();
    let api_base = parsed.as_ref().and_then(|p| {
        m.providers
            .get(p.provider.id)
            .and_then(|s| s.api_base.clone())
            .map(|b| b.trim().trim_end_matches('/').to_owned())
            .filter(|b| !b.is_empty())
            .or_else(|| Some(p.provider.default_base.to_owned()))
    });
    let reads_context = parsed.as_ref().is_some_and(ModelRef::uses_local_queue);
    TestKey {
        model: model.trim().to_owned(),
        api_base,
        reasoning: m
            .reasoning
            .get(role.as_str())
            .and_then(|r| Reasoning::parse(r))
            .map(|r| format!("{r:?}").to_ascii_lowercase()),
        context_length: if reads_context {
            role_context_length(config, role)
        } else {
            None
        },
        temperature: m.temperature.get(role.as_str()).map(|t| t.to_bits()),
    }
}

/// The roles to check, in the usual order, each with its model (`None` = uses the main model).
/// An unknown role is a 400.
pub fn picks(
    config: &Config,
    roles: Option<&BTreeMap<String, Option<String>>>,
) -> Result<Vec<RolePick>, ModelError> {
    let clean = |m: Option<&String>| m.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    match roles {
        None => Ok(ModelRole::ALL
            .into_iter()
            .map(|role| RolePick {
                role,
                model: role.own_model(config),
            })
            .collect()),
        Some(roles) => {
            if let Some(unknown) = roles.keys().find(|r| ModelRole::parse(r).is_none()) {
                return Err(ModelError::UnknownRole(unknown.clone()));
            }
            Ok(ModelRole::ALL
                .into_iter()
                .filter_map(|role| {
                    let model = roles.get(role.as_str())?;
                    let model = clean(model.as_ref()).or_else(|| {
                        // The main model can't inherit from itself: it is the saved one.
                        (role == ModelRole::Primary).then(|| config.models.primary.clone())
                    });
                    Some(RolePick { role, model })
                })
                .collect())
        }
    }
}

/// A role with no model of its own.
pub fn inherited(role: ModelRole) -> RoleResult {
    RoleResult {
        role,
        model: None,
        provider: None,
        local: false,
        inherits: Some(ModelRole::Primary.as_str().to_owned()),
        status: CheckStatus::Skip,
        checks: Vec::new(),
    }
}

/// The model a fix suggests: the one sized for this computer, or qwen3:8b when it only fits a
/// small one (which can't use tools well).
pub fn fix_model(rec: &Recommendation) -> (String, u32) {
    if rec.cloud_first {
        (FALLBACK_MODEL.to_owned(), FALLBACK_CONTEXT)
    } else {
        (rec.name.clone(), rec.context_length)
    }
}

/// Ollama names match with and without `:latest`.
pub fn same_ollama_name(a: &str, b: &str) -> bool {
    let tagged = |n: &str| {
        let n = n.trim();
        if n.contains(':') {
            n.to_owned()
        } else {
            format!("{n}:latest")
        }
    };
    tagged(a) == tagged(b)
}

/// 8192 as "8,192".
pub fn thousands(value: u32) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The context check from its numbers: the role reads `length` tokens (or Ollama's default
/// when `None`), the model can read `max`; `is_recommended` when the role uses the model
/// sized for this computer.
pub fn context_check(
    role: ModelRole,
    name: &str,
    length: Option<u32>,
    per_role: bool,
    max: Option<u32>,
    is_recommended: bool,
    rec: &Recommendation,
) -> Check {
    let id = CheckId::Context;
    let target = per_role.then_some(role);
    let Some(length) = length else {
        return match max {
            Some(max) => Check::pass(
                id,
                format!(
                    "Sentient leaves the context length to Ollama's own default; {name} can read up to {} tokens.",
                    thousands(max)
                ),
            ),
            None => Check::skip(
                id,
                "Sentient leaves the context length to Ollama's own default, and Ollama didn't say how much the model can read.",
            ),
        };
    };
    if let Some(max) = max
        && length > max
    {
        let value = if is_recommended {
            rec.context_length.min(max)
        } else {
            max
        };
        return Check::warn(
            id,
            format!(
                "Sentient asks {name} to read {} tokens at a time, but it can only read {}.",
                thousands(length),
                thousands(max)
            ),
        )
        .fix(format!(
            "Set the context length to {} tokens or less.",
            thousands(value)
        ))
        .action(Some(CheckAction::SetContextLength {
            value,
            role: target,
            label: format!("Use {} tokens", thousands(value)),
        }));
    }
    if is_recommended && rec.runs_on == RunsOn::Graphics && length > rec.context_length {
        return Check::warn(
            id,
            format!(
                "{name} reads {} tokens at a time, more than this computer's graphics card holds with it ({}), so part of it runs on the processor and replies are slower.",
                thousands(length),
                thousands(rec.context_length)
            ),
        )
        .fix(format!(
            "Set the context length to {} tokens, the length sized for this computer.",
            thousands(rec.context_length)
        ))
        .action(Some(CheckAction::SetContextLength {
            value: rec.context_length,
            role: target,
            label: format!("Use {} tokens", thousands(rec.context_length)),
        }));
    }
    match max {
        Some(max) => Check::pass(
            id,
            format!(
                "Sentient asks it to read {} tokens at a time; it can read up to {}.",
                thousands(length),
                thousands(max)
            ),
        ),
        None => Check::pass(
            id,
            format!(
                "Sentient asks it to read {} tokens at a time; Ollama didn't say its maximum.",
                thousands(length)
            ),
        ),
    }
}

/// The graphics card check from Ollama's `/api/ps` numbers (bytes).
#[allow(clippy::too_many_arguments)]
pub fn gpu_check(
    role: ModelRole,
    name: &str,
    size: f64,
    size_vram: f64,
    length: Option<u32>,
    per_role: bool,
    is_recommended: bool,
    rec: &Recommendation,
) -> Check {
    let id = CheckId::Gpu;
    if size.is_nan() || size <= 0.0 {
        return Check::skip(id, "Ollama didn't say how big the loaded model is.");
    }
    let share = (size_vram / size).clamp(0.0, 1.0);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let percent = (share * 100.0).round() as u32;
    if share >= 0.995 {
        return Check::pass(id, format!("All of {name} runs on the graphics card."));
    }
    let within_length = length.is_none_or(|l| l <= rec.context_length);
    if is_recommended && within_length && share >= RECOMMENDED_GPU_SHARE {
        return Check::pass(
            id,
            format!(
                "{percent}% of {name} runs on the graphics card, as expected for the model sized for this computer."
            ),
        );
    }
    let detail = if size_vram <= 0.0 {
        format!("All of {name} runs on the processor, so replies are slow.")
    } else {
        format!(
            "Only {percent}% of {name} fits on the graphics card; the rest runs on the processor, so replies are slower."
        )
    };
    let value = match length {
        Some(l) if rec.context_length < l => Some(rec.context_length),
        Some(l) if FALLBACK_CONTEXT < l => Some(FALLBACK_CONTEXT),
        _ => None,
    };
    let mut fix = format!(
        "The model sized for this computer is {}, reading {} tokens at a time.",
        rec.name,
        thousands(rec.context_length)
    );
    if value.is_some() {
        fix.push_str(" A shorter context length keeps more of the model on the graphics card.");
    }
    if rec.runs_on != RunsOn::Graphics {
        fix.push_str(" No graphics card here fits it, so a cloud model answers much faster.");
    }
    Check::warn(id, detail)
        .fix(fix)
        .action(value.map(|value| CheckAction::SetContextLength {
            value,
            role: per_role.then_some(role),
            label: format!("Use {} tokens", thousands(value)),
        }))
}

/// The thinking check: whether thinking appeared matches the role's reasoning setting.
pub fn thinking_check(role: ModelRole, name: &str, setting: Option<&str>, thought: bool) -> Check {
    let id = CheckId::Thinking;
    let parsed = setting.and_then(Reasoning::parse);
    match (parsed, thought) {
        (None, true) => Check::pass(
            id,
            "This role has no reasoning setting, so the model decides; it thought before answering.",
        ),
        (None, false) => Check::pass(
            id,
            "This role has no reasoning setting, so the model decides; it answered without thinking.",
        ),
        (Some(Reasoning::None), false) => {
            Check::pass(id, "Reasoning is off for this role, and it answered without thinking.")
        }
        (Some(Reasoning::None), true) => Check::warn(
            id,
            format!("Reasoning is off for this role, but {name} still thought before answering, which makes replies slower."),
        )
        .fix("Update Ollama; older versions ignore the setting."),
        (Some(_), true) => Check::pass(
            id,
            format!(
                "Reasoning is {} for this role, and it thought before answering.",
                setting.unwrap_or_default().trim().to_ascii_lowercase()
            ),
        ),
        (Some(_), false) => Check::warn(
            id,
            format!(
                "Reasoning is {} for this role, but {name} answered without thinking.",
                setting.unwrap_or_default().trim().to_ascii_lowercase()
            ),
        )
        .fix("Update Ollama so it can turn thinking on, or turn reasoning off for this role to match.")
        .action(Some(CheckAction::SetReasoning {
            role,
            value: "none".to_owned(),
            label: "Turn reasoning off".to_owned(),
        })),
    }
}

/// A role's result from its checks.
pub fn role_result(role: ModelRole, model: &str, checks: Vec<Check>) -> RoleResult {
    let parsed = ModelRef::parse(model).ok();
    RoleResult {
        role,
        model: Some(model.to_owned()),
        provider: parsed.as_ref().map(|p| p.provider.id.to_owned()),
        local: parsed.as_ref().is_some_and(|p| p.provider.local),
        inherits: None,
        status: CheckStatus::worst(checks.iter().map(|c| c.status)),
        checks,
    }
}

/// The check-up as the aligned table `sentient doctor --models` prints.
pub fn table(status: CheckStatus, roles: &[RoleResult]) -> String {
    fn word(s: CheckStatus) -> &'static str {
        match s {
            CheckStatus::Pass => "ok",
            CheckStatus::Warn => "WARN",
            CheckStatus::Fail => "FAIL",
            CheckStatus::Skip => "skip",
        }
    }
    let model_of = |r: &RoleResult| {
        r.model
            .clone()
            .unwrap_or_else(|| format!("(uses {})", r.inherits.as_deref().unwrap_or("primary")))
    };
    let role_w = roles
        .iter()
        .map(|r| r.role.as_str().len())
        .chain(["ROLE".len()])
        .max()
        .unwrap_or(4);
    let model_w = roles
        .iter()
        .map(|r| model_of(r).len())
        .chain(["MODEL".len()])
        .max()
        .unwrap_or(5);
    let label_w = roles
        .iter()
        .flat_map(|r| r.checks.iter().map(|c| c.label.len()))
        .max()
        .unwrap_or(0);
    let mut out = format!("{:<role_w$}  {:<model_w$}  STATUS\n", "ROLE", "MODEL");
    for r in roles {
        out.push_str(&format!(
            "{:<role_w$}  {:<model_w$}  {}\n",
            r.role.as_str(),
            model_of(r),
            word(r.status)
        ));
        for c in &r.checks {
            out.push_str(&format!(
                "    {:<label_w$}  {:<4}  {}\n",
                c.label,
                word(c.status),
                c.detail
            ));
            if let Some(fix) = &c.fix {
                out.push_str(&format!("    {:<label_w$}        Fix: {fix}\n", ""));
            }
        }
    }
    out.push_str(&format!("\nModel check-up: {}\n", word(status)));
    out
}

// ------------------------------------------------------------------------------ the running

/// The client went away, Stop everything was pressed or the engine is stopping: stop checking.
struct Gone;

/// Why a step gave no answer.
enum StepError {
    Llm(LlmError),
    Timeout,
}

impl StepError {
    fn sentence(&self, name: &str) -> String {
        match self {
            Self::Llm(e) => e.to_string(),
            Self::Timeout => format!(
                "{name} didn't answer within {} seconds.",
                STEP_TIMEOUT.as_secs()
            ),
        }
    }
}

async fn timed<T>(
    fut: impl Future<Output = Result<T, LlmError>>,
) -> Result<(T, Duration), StepError> {
    let started = Instant::now();
    match tokio::time::timeout(STEP_TIMEOUT, fut).await {
        Ok(Ok(value)) => Ok((value, started.elapsed())),
        Ok(Err(e)) => Err(StepError::Llm(e)),
        Err(_) => Err(StepError::Timeout),
    }
}

/// A model test's result, kept for roles that share it.
#[derive(Clone)]
struct Tested {
    role: ModelRole,
    check: Check,
    /// The reply it got (the thinking check and the chain test read it).
    reply: Option<Reply>,
}

/// The role being checked.
struct Subject {
    role: ModelRole,
    model: ModelRef,
    full: String,
    kind: ModelKind,
    key: TestKey,
}

struct Run {
    services: ModelService,
    config: std::sync::Arc<Config>,
    hardware: Hardware,
    tx: mpsc::Sender<CheckupLine>,
    cancel: CancellationToken,
    tested: HashMap<TestKey, BTreeMap<CheckId, Tested>>,
}

impl ModelService {
    /// `POST /api/models/checkup`: the check-up's lines as they come. An unknown role is a
    /// 400 before anything starts; the stream ends after `done`, or early (without `done`)
    /// when Stop everything cancels it. Dropping the stream cancels the model call running.
    pub async fn checkup(
        &self,
        req: CheckupRequest,
    ) -> Result<impl Stream<Item = CheckupLine> + Send + 'static, ModelError> {
        let config = self.config().current();
        let picks = picks(&config, req.roles.as_ref())?;
        let (tx, rx) = mpsc::channel::<CheckupLine>(16);
        // Stop everything, the engine stopping and the client leaving all end it.
        let job = self
            .stop()
            .start_job_within("checkup", &self.shutdown_token());
        let cancel = job.token().clone();
        {
            let (tx, cancel) = (tx.clone(), cancel.clone());
            tokio::spawn(async move {
                tokio::select! {
                    () = tx.closed() => cancel.cancel(),
                    () = cancel.cancelled() => {}
                }
            });
        }
        let services = self.clone();
        tokio::spawn(async move {
            let _job = job;
            let hardware = services.hardware().get(false).await;
            let mut run = Run {
                services,
                config,
                hardware,
                tx,
                cancel: cancel.clone(),
                tested: HashMap::new(),
            };
            if run.all(picks).await.is_err() {
                tracing::info!("the model check-up stopped early");
            }
            cancel.cancel();
        });
        Ok(futures::stream::unfold(rx, |mut rx| async move {
            let line = rx.recv().await?;
            Some((line, rx))
        }))
    }
}

impl Run {
    async fn send(&self, line: CheckupLine) -> Result<(), Gone> {
        if self.cancel.is_cancelled() {
            return Err(Gone);
        }
        self.tx.send(line).await.map_err(|_| {
            self.cancel.cancel();
            Gone
        })
    }

    async fn step(&self, role: ModelRole, check: CheckId) -> Result<(), Gone> {
        self.send(CheckupLine::Step {
            role,
            label: check.step().to_owned(),
        })
        .await
    }

    async fn all(&mut self, picks: Vec<RolePick>) -> Result<(), Gone> {
        self.send(CheckupLine::Start {
            roles: picks.clone(),
            hardware: self.hardware.clone(),
        })
        .await?;
        let mut results = Vec::new();
        for pick in picks {
            let mut result = match &pick.model {
                None => inherited(pick.role),
                Some(model) => self.role(pick.role, model).await?,
            };
            // A role that followed a new main model says so first (issue 32).
            if let Some(note) = self.services.followed_check(pick.role, &self.config).await {
                result.checks.insert(0, note);
            }
            self.send(CheckupLine::Role(result.clone())).await?;
            results.push(result);
        }
        self.send(CheckupLine::Done {
            status: CheckStatus::worst(results.iter().map(|r| r.status)),
            roles: results,
        })
        .await
    }

    fn opts(&self, role: ModelRole, model: &str) -> CallOptions {
        CallOptions::new(role, SOURCE, JobKind::Interactive)
            .with_model(Some(model.to_owned()))
            .with_cancel(self.cancel.child_token())
    }

    async fn role(&mut self, role: ModelRole, model: &str) -> Result<RoleResult, Gone> {
        self.step(role, CheckId::Connection).await?;
        let parsed = match ModelRef::parse(model) {
            Ok(parsed) => parsed,
            Err(error) => {
                let check = unreadable_model(role, model, &error);
                return Ok(role_result(role, model, vec![check]));
            }
        };
        let subject = Subject {
            role,
            kind: ModelKind::of(&parsed),
            full: parsed.full(),
            key: test_key(&self.config, role, model),
            model: parsed,
        };
        let connection = self.connection(&subject).await;
        let connected = connection.status != CheckStatus::Fail;
        let mut checks = vec![connection];
        if !connected {
            return Ok(role_result(role, model, checks));
        }
        let mut reply: Option<Reply> = None;
        let mut first_call: Option<ToolCall> = None;
        let mut tools_ok = false;
        let mut show: Option<Value> = None;
        let mut answered = true;
        for id in checks_for(role, subject.kind) {
            if id == CheckId::Connection {
                continue;
            }
            if id == CheckId::Thinking {
                if show.is_none() {
                    show = self.show(&subject).await;
                }
                if !can_think(show.as_ref()) {
                    continue;
                }
            }
            self.step(role, id).await?;
            let check = match id {
                // A model that didn't answer the short reply would only time out again.
                CheckId::Tools | CheckId::Chain | CheckId::Json if !answered => Check::skip(
                    id,
                    "Skipped because the model didn't answer the short reply.",
                ),
                CheckId::Reply => {
                    let tested = self.model_test(&subject, id).await;
                    reply = tested.reply.clone();
                    answered = reply.is_some();
                    tested.check
                }
                CheckId::Tools => {
                    let tested = self.model_test(&subject, id).await;
                    first_call = tested
                        .reply
                        .as_ref()
                        .and_then(|r| r.tool_calls.iter().find(|c| c.name == "find_city").cloned());
                    tools_ok = tested.check.status == CheckStatus::Pass;
                    tested.check
                }
                CheckId::Chain => {
                    if tools_ok && first_call.is_some() {
                        self.model_test_with(&subject, id, first_call.as_ref())
                            .await
                            .check
                    } else {
                        Check::skip(id, "Skipped because the first tool call didn't work.")
                    }
                }
                CheckId::Json => self.model_test(&subject, id).await.check,
                CheckId::Thinking => match &reply {
                    Some(reply) => thinking_check(
                        role,
                        &subject.model.name,
                        self.config
                            .models
                            .reasoning
                            .get(role.as_str())
                            .map(String::as_str),
                        !reply.thinking.trim().is_empty(),
                    ),
                    None => Check::skip(id, "Skipped because the model didn't answer."),
                },
                CheckId::Context => {
                    if show.is_none() {
                        show = self.show(&subject).await;
                    }
                    self.context(&subject, show.as_ref())
                }
                CheckId::Gpu => self.gpu(&subject).await,
                CheckId::Embedding => self.embedding(&subject).await,
                CheckId::Connection => continue,
            };
            checks.push(check);
        }
        Ok(role_result(role, model, checks))
    }

    // ---------------------------------------------------------------------- connection

    async fn connection(&self, s: &Subject) -> Check {
        let id = CheckId::Connection;
        let name = &s.model.name;
        let provider = s.model.provider.id;
        let label = provider_label(provider);
        match s.kind {
            ModelKind::Cloud => {
                if self.services.llm().has_key(provider).await {
                    Check::pass(id, format!("A key for {label} is set."))
                } else {
                    Check::fail(id, format!("There is no key for {label} yet."))
                        .fix(format!("Add a {label} key in Settings > Models."))
                        .action(Some(CheckAction::AddKey {
                            provider: provider.to_owned(),
                            label: format!("Add a {label} key"),
                        }))
                }
            }
            ModelKind::Ollama => {
                let admin = self.admin(s);
                match tokio::time::timeout(STEP_TIMEOUT, admin.get("/api/tags")).await {
                    Ok(Ok(tags)) => {
                        let listed = tags["models"].as_array().is_some_and(|models| {
                            models.iter().any(|m| {
                                ["name", "model"].iter().any(|k| {
                                    m[*k].as_str().is_some_and(|n| same_ollama_name(n, name))
                                })
                            })
                        });
                        if listed {
                            Check::pass(
                                id,
                                format!("Ollama is running and {name} is downloaded."),
                            )
                        } else {
                            Check::fail(
                                id,
                                format!("Ollama is running, but {name} isn't downloaded yet."),
                            )
                            .fix(format!(
                                "Download it in Settings > Models, or run: ollama pull {name}"
                            ))
                            .action(Some(CheckAction::PullModel {
                                name: name.clone(),
                                label: format!("Download {name}"),
                            }))
                        }
                    }
                    Ok(Err(LlmError::Unavailable { .. })) | Err(_) => Check::fail(
                        id,
                        format!("Ollama isn't answering at {}.", admin.base),
                    )
                    .fix("Start Ollama (or install it from ollama.com), then run the check-up again.")
                    .action(Some(CheckAction::StartOllama {
                        label: "Start Ollama".to_owned(),
                    })),
                    Ok(Err(error)) => Check::fail(id, error.to_string()),
                }
            }
            ModelKind::OtherLocal => {
                let base = self
                    .services
                    .llm()
                    .base_for(provider)
                    .unwrap_or_else(|| s.model.provider.default_base.to_owned());
                let url = format!("{}/models", base.trim_end_matches('/'));
                let answer = reqwest::Client::new()
                    .get(&url)
                    .timeout(Duration::from_secs(10))
                    .send()
                    .await;
                match answer {
                    Ok(r) if r.status().is_success() => {
                        let listed: Value = r.json().await.unwrap_or(Value::Null);
                        let ids: Vec<&str> = listed["data"]
                            .as_array()
                            .map(|d| d.iter().filter_map(|m| m["id"].as_str()).collect())
                            .unwrap_or_default();
                        if ids.is_empty() || ids.contains(&name.as_str()) {
                            Check::pass(id, format!("{label} is running."))
                        } else {
                            Check::fail(
                                id,
                                format!("{label} is running, but it has no model called {name}."),
                            )
                            .fix(format!(
                                "Download or load {name} in {label}, then run the check-up again."
                            ))
                        }
                    }
                    _ => Check::fail(
                        id,
                        LlmError::Unavailable {
                            provider: provider.to_owned(),
                        }
                        .to_string(),
                    ),
                }
            }
        }
    }

    /// Ollama's management API at the address this model's provider uses.
    fn admin(&self, s: &Subject) -> crate::llm::provider::OllamaAdmin {
        let mut admin = self.services.llm().ollama();
        if let Some(base) = self.services.llm().base_for(s.model.provider.id) {
            base.trim_end_matches('/').clone_into(&mut admin.base);
        }
        admin
    }

    async fn show(&self, s: &Subject) -> Option<Value> {
        let admin = self.admin(s);
        match tokio::time::timeout(STEP_TIMEOUT, admin.show(&s.model.name)).await {
            Ok(Ok(show)) => Some(show),
            _ => None,
        }
    }

    // ----------------------------------------------------------------------- model tests

    async fn model_test(&mut self, s: &Subject, id: CheckId) -> Tested {
        self.model_test_with(s, id, None).await
    }

    /// A model test, run once per model and settings; a later role gets the first one's
    /// result with "Same as <role>." in front.
    async fn model_test_with(
        &mut self,
        s: &Subject,
        id: CheckId,
        call: Option<&ToolCall>,
    ) -> Tested {
        if let Some(done) = self.tested.get(&s.key).and_then(|t| t.get(&id)) {
            let mut check = done.check.clone();
            check.detail = format!("Same as {}. {}", done.role.as_str(), check.detail);
            check.action = check.action.map(|a| a.for_role(s.role));
            return Tested {
                role: done.role,
                check,
                reply: done.reply.clone(),
            };
        }
        let (check, reply) = match id {
            CheckId::Reply => self.reply(s).await,
            CheckId::Tools => self.tools(s).await,
            CheckId::Chain => self.chain(s, call).await,
            _ => self.json(s).await,
        };
        let tested = Tested {
            role: s.role,
            check,
            reply,
        };
        self.tested
            .entry(s.key.clone())
            .or_default()
            .insert(id, tested.clone());
        tested
    }

    async fn complete(
        &self,
        s: &Subject,
        req: ChatRequest,
    ) -> Result<(CallOutcome, Duration), StepError> {
        let opts = self.opts(s.role, &s.full);
        timed(self.services.llm().complete(req, &opts)).await
    }

    async fn reply(&self, s: &Subject) -> (Check, Option<Reply>) {
        let id = CheckId::Reply;
        let req = ChatRequest {
            messages: vec![
                Message::system("You are being tested. Follow the instruction exactly."),
                Message::user("Say hello in one short sentence."),
            ],
            max_tokens: Some(2048),
            ..Default::default()
        };
        match self.complete(s, req).await {
            Ok((outcome, took)) => {
                let text = outcome.reply.text.trim();
                if text.is_empty() {
                    (
                        Check::fail(id, format!("{} sent an empty answer.", s.model.name))
                            .fix("Try again; if it keeps happening, pick another model for this role in Settings > Models."),
                        Some(outcome.reply),
                    )
                } else {
                    (
                        Check::pass(
                            id,
                            format!("It answered in {}: “{}”", seconds(took), excerpt(text)),
                        ),
                        Some(outcome.reply),
                    )
                }
            }
            Err(error) => (self.failed(s, id, &error), None),
        }
    }

    async fn tools(&self, s: &Subject) -> (Check, Option<Reply>) {
        let id = CheckId::Tools;
        let req = ChatRequest {
            messages: vec![
                Message::system("You are being tested. Follow the instruction exactly."),
                Message::user("Use the find_city tool to look up Pune. Do not answer in text."),
            ],
            tools: vec![super::find_city_tool()],
            max_tokens: Some(2048),
            ..Default::default()
        };
        match self.complete(s, req).await {
            Ok((outcome, took)) => {
                let called = outcome
                    .reply
                    .tool_calls
                    .iter()
                    .find(|c| c.name == "find_city");
                let check = match called {
                    Some(call) => Check::pass(
                        id,
                        format!(
                            "It called find_city for {} in {}.",
                            arguments_text(&call.arguments),
                            seconds(took)
                        ),
                    ),
                    None => self.tool_failure(
                        s,
                        id,
                        if outcome.reply.tool_calls.is_empty() {
                            "It answered in text instead of calling the tool, so it can't use Sentient's tools.".to_owned()
                        } else {
                            "It called a tool that wasn't offered, so it can't use Sentient's tools reliably.".to_owned()
                        },
                    ),
                };
                (check, Some(outcome.reply))
            }
            Err(StepError::Llm(e)) if refuses_tools(&e) => (
                self.tool_failure(
                    s,
                    id,
                    format!(
                        "{} can't use tools, so it can't do this role's work.",
                        s.model.name
                    ),
                ),
                None,
            ),
            Err(error) => (self.failed(s, id, &error), None),
        }
    }

    async fn chain(&self, s: &Subject, first: Option<&ToolCall>) -> (Check, Option<Reply>) {
        let id = CheckId::Chain;
        let Some(first) = first else {
            return (
                Check::skip(id, "Skipped because the first tool call didn't work."),
                None,
            );
        };
        let req = ChatRequest {
            messages: vec![
                Message::system("You are being tested. Follow the instruction exactly."),
                Message::user(
                    "Use the find_city tool to look up Pune, then use the get_weather tool with the city and country it returns. Do not answer in text.",
                ),
                Message::assistant_calls("", vec![first.clone()]),
                Message::tool_result(
                    first,
                    json!({"city": "Pune", "country": "India", "latitude": 18.52, "longitude": 73.86}).to_string(),
                ),
            ],
            tools: vec![super::find_city_tool(), get_weather_tool()],
            max_tokens: Some(2048),
            ..Default::default()
        };
        match self.complete(s, req).await {
            Ok((outcome, took)) => {
                let called = outcome
                    .reply
                    .tool_calls
                    .iter()
                    .find(|c| c.name == "get_weather");
                let check = match called {
                    Some(call) => {
                        let args = call.arguments.to_string().to_ascii_lowercase();
                        if args.contains("pune") || args.contains("india") {
                            Check::pass(
                                id,
                                format!(
                                    "It used the first result and called get_weather for {} in {}.",
                                    arguments_text(&call.arguments),
                                    seconds(took)
                                ),
                            )
                        } else {
                            let (fix, action) = self.recommended_fix(s);
                            Check::warn(
                                id,
                                format!(
                                    "It called get_weather for {}, which isn't the city the first call found.",
                                    arguments_text(&call.arguments)
                                ),
                            )
                            .fix(fix)
                            .action(action)
                        }
                    }
                    None => self.tool_failure(
                        s,
                        id,
                        "It stopped after the first tool call instead of using its result, so it can't finish tasks that take several steps.".to_owned(),
                    ),
                };
                (check, Some(outcome.reply))
            }
            Err(error) => (self.failed(s, id, &error), None),
        }
    }

    async fn json(&self, s: &Subject) -> (Check, Option<Reply>) {
        let id = CheckId::Json;
        let req = ChatRequest {
            messages: vec![
                Message::system("You are being tested. Reply with JSON only."),
                Message::user(
                    "Reply with a JSON object with two keys: \"city\" set to \"Pune\" and \"ok\" set to true.",
                ),
            ],
            max_tokens: Some(2048),
            ..Default::default()
        };
        let opts = self.opts(s.role, &s.full);
        match timed(self.services.llm().json(req, &opts)).await {
            Ok(((value, outcome), took)) if value.is_object() => (
                Check::pass(id, format!("It sent valid JSON in {}.", seconds(took))),
                Some(outcome.reply),
            ),
            Ok(((_, outcome), _)) => (
                Check::fail(id, "It sent JSON, but not the object it was asked for.")
                    .fix(json_fix(&self.hardware.recommendation)),
                Some(outcome.reply),
            ),
            Err(StepError::Llm(LlmError::Garbled { .. })) => (
                Check::fail(
                    id,
                    format!(
                        "{} didn't send valid JSON, which this role needs.",
                        s.model.name
                    ),
                )
                .fix(json_fix(&self.hardware.recommendation)),
                None,
            ),
            Err(error) => (self.failed(s, id, &error), None),
        }
    }

    /// A failed tool check: the fix is the model sized for this computer.
    fn tool_failure(&self, s: &Subject, id: CheckId, detail: String) -> Check {
        let (fix, action) = self.recommended_fix(s);
        Check::fail(id, detail).fix(fix).action(action)
    }

    fn recommended_fix(&self, s: &Subject) -> (String, Option<CheckAction>) {
        let (name, _) = fix_model(&self.hardware.recommendation);
        let model = format!("ollama_chat/{name}");
        if s.kind == ModelKind::Ollama && same_ollama_name(&s.model.name, &name) {
            return (
                "Run the check-up again; if it keeps failing, pick a cloud model for this role in Settings > Models.".to_owned(),
                None,
            );
        }
        (
            format!("Use {name} for this role; it uses tools well and fits this computer."),
            Some(CheckAction::UseModel {
                role: s.role,
                model,
                label: format!("Use {name}"),
            }),
        )
    }

    /// A step that got no answer: the error's sentence, with a fix where one is known.
    fn failed(&self, s: &Subject, id: CheckId, error: &StepError) -> Check {
        let name = &s.model.name;
        let check = Check::fail(id, error.sentence(name));
        match error {
            StepError::Timeout => check.fix(
                "It may still be loading. Run the check-up again in a minute; if it stays this slow, pick a smaller model.",
            ),
            StepError::Llm(LlmError::ModelMissing { .. }) if s.kind == ModelKind::Ollama => {
                check.action(Some(CheckAction::PullModel {
                    name: name.clone(),
                    label: format!("Download {name}"),
                }))
            }
            StepError::Llm(LlmError::NoKey { provider } | LlmError::BadKey { provider }) => {
                check.action(Some(CheckAction::AddKey {
                    provider: provider.clone(),
                    label: format!("Add a {} key", provider_label(provider)),
                }))
            }
            StepError::Llm(LlmError::Unavailable { .. }) if s.kind == ModelKind::Ollama => {
                check.action(Some(CheckAction::StartOllama {
                    label: "Start Ollama".to_owned(),
                }))
            }
            _ => check,
        }
    }

    // ------------------------------------------------------------------- Ollama's numbers

    fn context(&self, s: &Subject, show: Option<&Value>) -> Check {
        let rec = &self.hardware.recommendation;
        context_check(
            s.role,
            &s.model.name,
            role_context_length(&self.config, s.role),
            self.config
                .models
                .context_length_per_role
                .contains_key(s.role.as_str()),
            show.and_then(model_max),
            same_ollama_name(&s.model.name, &rec.name),
            rec,
        )
    }

    async fn gpu(&self, s: &Subject) -> Check {
        let id = CheckId::Gpu;
        let admin = self.admin(s);
        let ps = match tokio::time::timeout(STEP_TIMEOUT, admin.get("/api/ps")).await {
            Ok(Ok(ps)) => ps,
            _ => return Check::skip(id, "Ollama didn't say which models are loaded."),
        };
        let entry = ps["models"].as_array().and_then(|models| {
            models.iter().find(|m| {
                ["name", "model"].iter().any(|k| {
                    m[*k]
                        .as_str()
                        .is_some_and(|n| same_ollama_name(n, &s.model.name))
                })
            })
        });
        let Some(entry) = entry else {
            return Check::skip(
                id,
                format!(
                    "{} isn't loaded in Ollama right now, so Sentient can't tell where it runs.",
                    s.model.name
                ),
            );
        };
        let rec = &self.hardware.recommendation;
        let length = role_context_length(&self.config, s.role).or_else(|| {
            entry["context_length"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
        });
        gpu_check(
            s.role,
            &s.model.name,
            entry["size"].as_f64().unwrap_or(0.0),
            entry["size_vram"].as_f64().unwrap_or(0.0),
            length,
            self.config
                .models
                .context_length_per_role
                .contains_key(s.role.as_str()),
            same_ollama_name(&s.model.name, &rec.name),
            rec,
        )
    }

    async fn embedding(&self, s: &Subject) -> Check {
        let id = CheckId::Embedding;
        let opts = self.opts(s.role, &s.full);
        let call = self.services.llm().embed(
            vec!["Sentient checks that embeddings work.".to_owned()],
            &opts,
        );
        match timed(call).await {
            Ok(((_, vectors), took)) => match vectors.first().map(Vec::len) {
                Some(dim) if dim > 0 => Check::pass(
                    id,
                    format!(
                        "It returned a vector of {} numbers in {}.",
                        thousands(u32::try_from(dim).unwrap_or(u32::MAX)),
                        seconds(took)
                    ),
                ),
                _ => Check::fail(id, "It returned no vector, so memory search can't work.")
                    .fix("Pick an embedding model, for example ollama/nomic-embed-text, in Settings > Models."),
            },
            Err(error) => self.failed(s, id, &error),
        }
    }
}

/// A model string this build can't read: a fail without calling anything. Claude Code models
/// are only ever called by a chat, so the check-up reports them without calling them.
fn unreadable_model(role: ModelRole, model: &str, error: &LlmError) -> Check {
    let id = CheckId::Connection;
    if model.trim().starts_with("claude-code/") {
        return if matches!(
            role,
            ModelRole::Primary | ModelRole::Voice | ModelRole::Vision
        ) {
            Check::skip(
                id,
                "Claude Code answers chats through your own Claude Code login; the check-up doesn't call it. Send a chat message to try it.",
            )
        } else {
            Check::fail(
                id,
                "Claude Code only answers your chats, so it can't do this role's work.",
            )
            .fix("Pick another model for this role in Settings > Models.")
        };
    }
    Check::fail(id, error.to_string()).fix("Pick another model for this role in Settings > Models.")
}

/// Whether Ollama's `/api/show` lists the thinking capability.
fn can_think(show: Option<&Value>) -> bool {
    show.is_some_and(|s| {
        s["capabilities"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c == "thinking"))
    })
}

/// Whether a refusal says the model can't use tools (Ollama: "... does not support tools").
fn refuses_tools(error: &LlmError) -> bool {
    matches!(error, LlmError::Refused { message, .. }
        if message.to_ascii_lowercase().contains("support tools"))
}

fn json_fix(rec: &Recommendation) -> String {
    let (name, _) = fix_model(rec);
    format!(
        "Pick a model that writes JSON reliably for this role in Settings > Models, for example {name}."
    )
}

/// The second tool of the chain test.
fn get_weather_tool() -> ToolSpec {
    ToolSpec {
        name: "get_weather".to_owned(),
        description: "Get the current weather for a city.".to_owned(),
        parameters: json!({"type": "object", "properties": {
            "city": {"type": "string", "description": "The city's name"},
            "country": {"type": "string", "description": "The city's country"}
        }, "required": ["city"]}),
    }
}

/// The model's maximum context from `/api/show`: `model_info["<family>.context_length"]`.
pub fn model_max(show: &Value) -> Option<u32> {
    let info = show["model_info"].as_object()?;
    let family = info
        .get("general.architecture")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let value = family
        .and_then(|f| info.get(&format!("{f}.context_length")))
        .or_else(|| {
            info.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .map(|(_, v)| v)
        })?;
    value.as_u64().and_then(|n| u32::try_from(n).ok())
}

fn seconds(took: Duration) -> String {
    let s = took.as_secs_f64();
    if s < 0.1 {
        "under a tenth of a second".to_owned()
    } else if (s - 1.0).abs() < 0.05 {
        "1 second".to_owned()
    } else {
        format!("{s:.1} seconds")
    }
}

/// A tool call's arguments as words: its text values joined ("Pune, India"), else the JSON.
fn arguments_text(arguments: &Value) -> String {
    let words: Vec<String> = match arguments {
        Value::Object(map) => map
            .values()
            .filter_map(|v| match v {
                Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        Value::String(s) => vec![s.trim().to_owned()],
        _ => Vec::new(),
    };
    if words.is_empty() {
        "nothing it could use".to_owned()
    } else {
        excerpt(&words.join(", "))
    }
}

/// The first words of a reply, for a detail line.
fn excerpt(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 80 {
        format!("{}…", one_line.chars().take(80).collect::<String>())
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_check_once_in_order() {
        for (i, id) in CheckId::ALL.into_iter().enumerate() {
            assert_eq!(CHECKS[i].id, id, "row {i}");
            assert_eq!(id.spec().id, id);
        }
        let names: std::collections::BTreeSet<_> = CHECKS.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), CHECKS.len());
    }
    use crate::system::hardware::LOCAL_MODEL_TIERS;

    fn rec(tier: usize) -> Recommendation {
        LOCAL_MODEL_TIERS[tier].recommendation(false)
    }

    fn gpu_8() -> Recommendation {
        let r = rec(3);
        assert_eq!(r.tier, "gpu_8");
        r
    }

    #[test]
    fn statuses_add_up_to_the_worst() {
        use CheckStatus::*;
        assert_eq!(CheckStatus::worst([]), Skip);
        assert_eq!(CheckStatus::worst([Skip, Pass, Skip]), Pass);
        assert_eq!(CheckStatus::worst([Pass, Warn, Pass]), Warn);
        assert_eq!(CheckStatus::worst([Warn, Fail, Pass, Skip]), Fail);
        let checks = vec![
            Check::pass(CheckId::Connection, "ok"),
            Check::warn(CheckId::Gpu, "slow"),
        ];
        let result = role_result(ModelRole::Primary, "ollama_chat/qwen3:8b", checks);
        assert_eq!(result.status, Warn);
        assert_eq!(result.provider.as_deref(), Some("ollama_chat"));
        assert!(result.local);
        assert_eq!(inherited(ModelRole::Fast).status, Skip);
        assert_eq!(
            inherited(ModelRole::Fast).inherits.as_deref(),
            Some("primary")
        );
    }

    #[test]
    fn checks_apply_to_the_roles_that_use_them() {
        use CheckId::*;
        use ModelKind::*;
        assert_eq!(
            checks_for(ModelRole::Primary, Ollama),
            vec![Connection, Reply, Tools, Chain, Thinking, Context, Gpu]
        );
        assert_eq!(
            checks_for(ModelRole::Fast, Ollama),
            vec![Connection, Reply, Tools, Json, Thinking, Context, Gpu]
        );
        assert_eq!(
            checks_for(ModelRole::Planner, Cloud),
            vec![Connection, Reply, Json]
        );
        assert_eq!(
            checks_for(ModelRole::Executor, OtherLocal),
            vec![Connection, Reply, Tools, Chain]
        );
        assert_eq!(
            checks_for(ModelRole::Embedding, Ollama),
            vec![Connection, Embedding]
        );
        for role in [ModelRole::Vision, ModelRole::Voice] {
            assert_eq!(checks_for(role, Cloud), vec![Connection, Reply, Tools]);
        }
        assert!(CheckId::ALL.iter().filter(|c| c.is_model_test()).count() == 4);
    }

    #[test]
    fn the_test_key_follows_the_settings_tests_depend_on() {
        let mut config = Config::default();
        let m = "ollama_chat/qwen3:8b";
        // Defaults: fast and executor both reason "none"; primary reasons "medium".
        assert_eq!(
            test_key(&config, ModelRole::Fast, m),
            test_key(&config, ModelRole::Executor, m)
        );
        assert_ne!(
            test_key(&config, ModelRole::Primary, m),
            test_key(&config, ModelRole::Executor, m)
        );
        config
            .models
            .reasoning
            .insert("executor".into(), "medium".into());
        assert_eq!(
            test_key(&config, ModelRole::Primary, m),
            test_key(&config, ModelRole::Executor, m)
        );
        config
            .models
            .context_length_per_role
            .insert("executor".into(), 16384);
        assert_ne!(
            test_key(&config, ModelRole::Primary, m),
            test_key(&config, ModelRole::Executor, m)
        );
        // A cloud model ignores the context length.
        let cloud = "anthropic/claude-haiku-4-5";
        assert_eq!(
            test_key(&config, ModelRole::Primary, cloud),
            test_key(&config, ModelRole::Executor, cloud)
        );
        config.models.temperature.insert("executor".into(), 0.2);
        assert_ne!(
            test_key(&config, ModelRole::Primary, cloud),
            test_key(&config, ModelRole::Executor, cloud)
        );
        // Another address for the provider is another server.
        let before = test_key(&config, ModelRole::Primary, m);
        config
            .models
            .providers
            .entry("ollama_chat".into())
            .or_default()
            .api_base = Some("http://10.0.0.2:11434".into());
        assert_ne!(before, test_key(&config, ModelRole::Primary, m));
    }

    #[test]
    fn picks_keep_the_role_order_and_reject_unknown_roles() {
        let config = Config::default();
        let all = picks(&config, None).expect("picks");
        assert_eq!(all.len(), 7);
        assert_eq!(all[0].model.as_deref(), Some("ollama_chat/qwen3:8b"));
        assert_eq!(all[2].role, ModelRole::Planner);
        assert_eq!(all[2].model, None);
        let asked: BTreeMap<String, Option<String>> = [
            (
                "planner".to_owned(),
                Some("anthropic/claude-haiku-4-5".to_owned()),
            ),
            ("primary".to_owned(), None),
            ("voice".to_owned(), Some(" ".to_owned())),
        ]
        .into_iter()
        .collect();
        let some = picks(&config, Some(&asked)).expect("picks");
        let roles: Vec<_> = some.iter().map(|p| p.role).collect();
        assert_eq!(
            roles,
            vec![ModelRole::Primary, ModelRole::Planner, ModelRole::Voice]
        );
        assert_eq!(some[0].model.as_deref(), Some("ollama_chat/qwen3:8b"));
        assert_eq!(some[2].model, None);
        let bad: BTreeMap<String, Option<String>> =
            [("brain".to_owned(), None)].into_iter().collect();
        let error =
            crate::error::ApiError::from(picks(&config, Some(&bad)).expect_err("unknown role"));
        assert_eq!(error.status, 400);
        assert!(error.message().contains("brain is not a role"));
    }

    #[test]
    fn context_warns_past_the_model_maximum_and_past_the_card() {
        let r = gpu_8();
        let fits = context_check(
            ModelRole::Primary,
            "qwen3:8b",
            Some(8192),
            false,
            Some(40960),
            true,
            &r,
        );
        assert_eq!(fits.status, CheckStatus::Pass);
        let too_long = context_check(
            ModelRole::Fast,
            "llama3.2",
            Some(65536),
            true,
            Some(32768),
            false,
            &r,
        );
        assert_eq!(too_long.status, CheckStatus::Warn);
        assert!(too_long.detail.contains("65,536") && too_long.detail.contains("32,768"));
        assert_eq!(
            too_long.action,
            Some(CheckAction::SetContextLength {
                value: 32768,
                role: Some(ModelRole::Fast),
                label: "Use 32,768 tokens".into()
            })
        );
        let past_card = context_check(
            ModelRole::Primary,
            "qwen3:8b",
            Some(16384),
            false,
            Some(40960),
            true,
            &r,
        );
        assert_eq!(past_card.status, CheckStatus::Warn);
        assert!(matches!(
            past_card.action,
            Some(CheckAction::SetContextLength {
                value: 8192,
                role: None,
                ..
            })
        ));
        // The same length on a model not sized for this computer is its own business.
        let other = context_check(
            ModelRole::Primary,
            "mistral",
            Some(16384),
            false,
            Some(32768),
            false,
            &r,
        );
        assert_eq!(other.status, CheckStatus::Pass);
        let unknown = context_check(ModelRole::Primary, "x", None, false, None, false, &r);
        assert_eq!(unknown.status, CheckStatus::Skip);
    }

    #[test]
    fn gpu_passes_the_recommended_model_at_85_percent_only() {
        let r = gpu_8();
        let gb = 1e9;
        let all = gpu_check(
            ModelRole::Primary,
            "qwen3:8b",
            6.0 * gb,
            6.0 * gb,
            Some(8192),
            false,
            true,
            &r,
        );
        assert_eq!(all.status, CheckStatus::Pass);
        let ninety = gpu_check(
            ModelRole::Primary,
            "qwen3:8b",
            6.0 * gb,
            5.4 * gb,
            Some(8192),
            false,
            true,
            &r,
        );
        assert_eq!(ninety.status, CheckStatus::Pass, "{}", ninety.detail);
        // Past the recommended length the exception no longer holds; the fix shortens it.
        let longer = gpu_check(
            ModelRole::Primary,
            "qwen3:8b",
            6.0 * gb,
            5.4 * gb,
            Some(16384),
            false,
            true,
            &r,
        );
        assert_eq!(longer.status, CheckStatus::Warn);
        assert!(
            longer
                .fix
                .as_deref()
                .is_some_and(|f| f.contains("qwen3:8b") && f.contains("8,192"))
        );
        assert!(matches!(
            longer.action,
            Some(CheckAction::SetContextLength { value: 8192, .. })
        ));
        // Another model gets no exception; at 8,192 tokens there's nothing shorter to offer.
        let other = gpu_check(
            ModelRole::Primary,
            "mistral",
            6.0 * gb,
            5.4 * gb,
            Some(8192),
            false,
            false,
            &r,
        );
        assert_eq!(other.status, CheckStatus::Warn);
        assert!(other.detail.contains("90%"));
        assert_eq!(other.action, None);
        let cpu = gpu_check(
            ModelRole::Fast,
            "qwen3:8b",
            6.0 * gb,
            0.0,
            Some(32768),
            true,
            false,
            &r,
        );
        assert!(cpu.detail.contains("runs on the processor"));
        assert!(matches!(
            cpu.action,
            Some(CheckAction::SetContextLength {
                value: 8192,
                role: Some(ModelRole::Fast),
                ..
            })
        ));
    }

    #[test]
    fn thinking_must_match_the_reasoning_setting() {
        let t = |setting, thought| {
            thinking_check(ModelRole::Primary, "qwen3:8b", setting, thought).status
        };
        assert_eq!(t(Some("medium"), true), CheckStatus::Pass);
        assert_eq!(t(Some("none"), false), CheckStatus::Pass);
        assert_eq!(t(Some("none"), true), CheckStatus::Warn);
        assert_eq!(t(None, true), CheckStatus::Pass);
        let off = thinking_check(ModelRole::Voice, "qwen3:8b", Some("high"), false);
        assert_eq!(off.status, CheckStatus::Warn);
        assert!(matches!(
            off.action,
            Some(CheckAction::SetReasoning {
                role: ModelRole::Voice,
                ..
            })
        ));
    }

    #[test]
    fn fixes_name_qwen3_8b_when_the_computer_only_fits_a_small_model() {
        let small = rec(5);
        assert!(small.cloud_first);
        assert_eq!(fix_model(&small), ("qwen3:8b".to_owned(), 8192));
        assert_eq!(fix_model(&rec(1)).0, "qwen3:14b");
    }

    #[test]
    fn lines_and_actions_have_the_contract_shape() {
        let check = Check::fail(
            CheckId::Connection,
            "Ollama is running, but qwen3:8b isn't downloaded yet.",
        )
        .action(Some(CheckAction::PullModel {
            name: "qwen3:8b".into(),
            label: "Download qwen3:8b".into(),
        }));
        let line = CheckupLine::Role(role_result(
            ModelRole::Primary,
            "ollama_chat/qwen3:8b",
            vec![check],
        ));
        let v = serde_json::to_value(&line).expect("json");
        assert_eq!(v["type"], "role");
        assert_eq!(v["role"], "primary");
        assert_eq!(v["status"], "fail");
        assert_eq!(v["inherits"], Value::Null);
        assert_eq!(v["checks"][0]["action"]["kind"], "pull_model");
        assert!(v["checks"][0].get("fix").is_none());
        let step = serde_json::to_value(CheckupLine::Step {
            role: ModelRole::Fast,
            label: "x".into(),
        })
        .expect("json");
        assert_eq!(step, json!({"type": "step", "role": "fast", "label": "x"}));
        let length = serde_json::to_value(CheckAction::SetContextLength {
            value: 8192,
            role: None,
            label: "l".into(),
        })
        .expect("json");
        assert_eq!(
            length,
            json!({"kind": "set_context_length", "value": 8192, "role": null, "label": "l"})
        );
        // A reused fix moves to the role it is shown on.
        let moved = CheckAction::UseModel {
            role: ModelRole::Primary,
            model: "m".into(),
            label: "l".into(),
        }
        .for_role(ModelRole::Executor);
        assert!(matches!(
            moved,
            CheckAction::UseModel {
                role: ModelRole::Executor,
                ..
            }
        ));
    }

    #[test]
    fn the_table_shows_roles_checks_and_fixes() {
        let failed = role_result(
            ModelRole::Primary,
            "ollama_chat/qwen3:8b",
            vec![
                Check::fail(
                    CheckId::Connection,
                    "Ollama isn't answering at http://127.0.0.1:9.",
                )
                .fix("Start Ollama."),
            ],
        );
        let text = table(CheckStatus::Fail, &[failed, inherited(ModelRole::Planner)]);
        assert!(text.starts_with("ROLE"));
        assert!(text.contains("primary  ollama_chat/qwen3:8b  FAIL"));
        assert!(text.contains("Connection  FAIL  Ollama isn't answering"));
        assert!(text.contains("Fix: Start Ollama."));
        assert!(text.contains("planner  (uses primary)"));
        assert!(text.trim_end().ends_with("Model check-up: FAIL"));
    }

    #[test]
    fn numbers_read_like_people_write_them() {
        assert_eq!(thousands(8192), "8,192");
        assert_eq!(thousands(1_048_576), "1,048,576");
        assert_eq!(thousands(512), "512");
        assert!(same_ollama_name(
            "nomic-embed-text",
            "nomic-embed-text:latest"
        ));
        assert!(!same_ollama_name("qwen3:8b", "qwen3:4b"));
        let show =
            json!({"model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}});
        assert_eq!(model_max(&show), Some(40960));
        assert_eq!(
            model_max(&json!({"model_info": {"llama.context_length": 131072}})),
            Some(131072)
        );
        assert_eq!(model_max(&json!({})), None);
    }
}
