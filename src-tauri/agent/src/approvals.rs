//! Whether a tool call runs, asks, is refused, is held or fails its run (contract sections 2,
//! 5, 10 and 11; ADRs 0016, 0017, 0018). Pure: every input is plain data, so the agent loop,
//! task runs, subagents and the script bridge all share one decision and tests need no engine.
//!
//! The order matters and follows the contract: a Never rule and a Read only connection refuse
//! first, then work nobody asked for may only read, then Ask rules, then outside content, then
//! purchases, then Allow rules, "Allow for this chat" and finally the approvals mode. A rule
//! proposed from the chat and not yet answered (#130) asks like an Ask rule, after the refusals.

use std::collections::{BTreeMap, BTreeSet};

use sentient_core::config::{ApprovalMode, Config, RuleValue};

/// Where the settings are changed, as the refusal texts say it.
const SETTINGS_HINT: &str = "Change this in Settings > Approvals & safety.";
/// The approval wording (`risk_label`) of a call that spends money.
pub const PURCHASE_LABEL: &str = "Purchase";
/// Work nobody asked for may change Sentient's own things, except plan more work: a task
/// would later run its plan on its own.
const UNPROMPTED_BLOCKED_PLUGINS: &[&str] = &["tasks"];
/// An address "carries data" past these lengths: room to smuggle text out.
const MAX_CLEAN_PATH: usize = 100;
const MAX_CLEAN_FRAGMENT: usize = 40;

/// A call's effective risk, lowest to highest. The tools module has its own `Risk`; this one
/// keeps the decision free of it until the two are connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ApprovalRisk {
    Read,
    Write,
    Send,
    Exec,
}

impl ApprovalRisk {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Send => "send",
            Self::Exec => "exec",
        }
    }

    /// The approval wording when the tool gives none.
    pub fn default_label(self) -> &'static str {
        match self {
            Self::Read => "Looks something up",
            Self::Write => "Changes something",
            Self::Send => "Sends",
            Self::Exec => "Runs code",
        }
    }
}

impl From<&str> for ApprovalRisk {
    /// A risk that can't be read counts as the highest, like a risk function that fails.
    fn from(value: &str) -> Self {
        match value.trim().to_ascii_lowercase().as_str() {
            "read" => Self::Read,
            "write" => Self::Write,
            "send" => Self::Send,
            _ => Self::Exec,
        }
    }
}

/// Who the call is for: a person waiting on it, an unattended run, or work nobody asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    Chat,
    Voice,
    Channel,
    /// A task run.
    Task,
    /// A swarm worker: like a task run, it fails on an Ask rule.
    Swarm,
    Subagent,
    Script,
    Proactive,
    Heartbeat,
    Followups,
    Dreaming,
    Background,
}

impl Origin {
    /// The origin named by the contract's strings; `None` for a name it does not know.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "chat" | "user" => Self::Chat,
            "voice" => Self::Voice,
            "channel" => Self::Channel,
            "task" => Self::Task,
            "swarm" => Self::Swarm,
            "subagent" => Self::Subagent,
            "script" => Self::Script,
            "proactive" => Self::Proactive,
            "heartbeat" => Self::Heartbeat,
            "followups" => Self::Followups,
            "dreaming" => Self::Dreaming,
            "background" => Self::Background,
            _ => return None,
        })
    }

    /// Work nobody asked for (`UNPROMPTED_ORIGINS`): it may only look things up.
    pub fn is_unprompted(self) -> bool {
        matches!(
            self,
            Self::Proactive | Self::Heartbeat | Self::Followups | Self::Dreaming | Self::Background
        )
    }
}

/// One tool call, with what the tool says about it for these arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The tool's name, e.g. `slack_post_message`.
    pub name: String,
    /// Its plugin (app) id, e.g. `slack`.
    pub plugin: String,
    /// The app's display name, e.g. `Slack` (empty when unknown).
    pub app: String,
    /// The tool's plain name, e.g. `Post message`.
    pub title: String,
    /// The effective risk of this call.
    pub risk: ApprovalRisk,
    /// A Sentient-internal tool (its writes change only Sentient's own things).
    pub internal: bool,
    /// The tool's per-call risk function raised this call above the tool's declared risk.
    pub risk_raised: bool,
    /// "Allow for this chat" may cover it (false for tools declared `allow_for_chat=False`).
    pub allow_for_chat: bool,
    /// The approval wording, e.g. "Purchase"; `None` uses the risk's default wording.
    pub risk_label: Option<String>,
    /// A short label of what is acted on, e.g. "Place order".
    pub target: Option<String>,
    /// The call can move data out below send (typing into a page, an invite to other people).
    pub exfiltrates: bool,
    /// Web addresses the call would load.
    pub urls: Vec<String>,
}

impl ToolCall {
    /// A call with the plain name worked out from the tool's name and no extras.
    pub fn new(name: &str, plugin: &str, app: &str, risk: ApprovalRisk) -> Self {
        Self {
            name: name.to_owned(),
            plugin: plugin.to_owned(),
            app: app.to_owned(),
            title: tool_title(name, plugin),
            risk,
            internal: false,
            risk_raised: false,
            allow_for_chat: true,
            risk_label: None,
            target: None,
            exfiltrates: false,
            urls: Vec::new(),
        }
    }

    /// Effective risk send or higher with the approval wording "Purchase".
    pub fn is_purchase(&self) -> bool {
        self.risk >= ApprovalRisk::Send && self.risk_label.as_deref() == Some(PURCHASE_LABEL)
    }

    /// Effective risk send/exec or exfiltrating (`rules.sends_out`).
    pub fn sends_out(&self) -> bool {
        self.risk >= ApprovalRisk::Send || self.exfiltrates
    }

    fn label(&self) -> String {
        self.risk_label
            .clone()
            .unwrap_or_else(|| self.risk.default_label().to_owned())
    }

    /// The plain name for messages: `"Post message" in Slack`.
    fn tool_label(&self) -> String {
        let title = format!("\"{}\"", self.title);
        if self.app.is_empty() {
            title
        } else {
            format!("{title} in {}", self.app)
        }
    }
}

/// The settings the decision reads; read again before every call so a change applies at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalSettings {
    pub mode: ApprovalMode,
    /// `tools.approvals.rules`: tool name or plugin id → rule.
    pub rules: BTreeMap<String, RuleValue>,
    /// `browser.confirm_purchases`.
    pub confirm_purchases: bool,
    /// `integrations.read_only`: plugin ids set to Read only.
    pub read_only: BTreeSet<String>,
}

impl Default for ApprovalSettings {
    fn default() -> Self {
        Self {
            mode: ApprovalMode::Ask,
            rules: BTreeMap::new(),
            confirm_purchases: true,
            read_only: BTreeSet::new(),
        }
    }
}

/// The run a call is made in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallContext {
    pub origin: Origin,
    /// Someone can answer an approval question now (chat, voice, channels).
    pub can_ask: bool,
    /// "Allow for this chat": the highest risk the user approved for this tool in this chat.
    pub chat_grant: Option<ApprovalRisk>,
    /// The app whose content this run read (`ToolContext.untrusted`), if any.
    pub untrusted: Option<String>,
    /// Web hosts this run or chat already loaded.
    pub visited_hosts: BTreeSet<String>,
    /// Tool names and app ids a rule proposed in this chat covers while it waits for the
    /// user's answer (or is still being weighed): they ask first, whatever else says.
    pub pending_rule_keys: BTreeSet<String>,
}

impl CallContext {
    /// A clean context for `origin`; chats, voice and channels can ask, nothing else can.
    pub fn new(origin: Origin) -> Self {
        Self {
            origin,
            can_ask: matches!(origin, Origin::Chat | Origin::Voice | Origin::Channel),
            chat_grant: None,
            untrusted: None,
            visited_hosts: BTreeSet::new(),
            pending_rule_keys: BTreeSet::new(),
        }
    }

    /// Whether a rule proposed in this chat and not yet answered covers the call.
    fn rule_pending_for(&self, call: &ToolCall) -> bool {
        self.pending_rule_keys.contains(&call.name)
            || (!call.plugin.is_empty() && self.pending_rule_keys.contains(&call.plugin))
    }

    fn mark(&self) -> Option<&str> {
        self.untrusted.as_deref().filter(|app| !app.is_empty())
    }
}

/// Why an approval question is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskReason {
    /// The user's own Ask rule.
    Rule,
    /// The run read outside content and this call could send data out.
    OutsideContent,
    /// A purchase, which asks in every mode.
    Purchase,
    /// The approvals mode asks for this risk.
    Mode,
    /// A rule proposed from this chat waits for the user's answer.
    PendingRule,
}

impl AskReason {
    /// The `reason` an approval request carries.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Rule => "rule",
            Self::OutsideContent => "outside_content",
            Self::Purchase => "purchase",
            Self::Mode => "mode",
            Self::PendingRule => "pending_rule",
        }
    }
}

/// Why a call was held instead of run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldReason {
    /// Work nobody asked for may only look things up (listed in `LoopResult.held`).
    Unprompted,
    /// Outside content was read and nobody can be asked now (`LoopResult.needs_ok`); the
    /// question is what a task run asks the user.
    NeedsOk { question: String },
}

/// What happens to a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Run,
    /// Send an approval request and run only on a yes.
    Ask {
        reason: AskReason,
        risk_label: String,
        target: Option<String>,
        /// The outside-content reason shown on the card.
        untrusted: Option<String>,
        /// Whether the card may offer "Allow for this chat".
        offer_allow_for_chat: bool,
    },
    /// Not run; the tool result is `{error: result_error}`.
    Refuse {
        result_error: String,
    },
    /// Not run and kept for the user; the tool result is `{error: result_error}`.
    Hold {
        reason: HoldReason,
        result_error: String,
    },
    /// Not run, and the whole run fails with this error.
    Fail {
        error: String,
    },
}

impl ApprovalSettings {
    /// The settings in `config`.
    pub fn from_config(config: &Config) -> Self {
        Self {
            mode: config.tools.approvals.mode,
            rules: config.tools.approvals.rules.clone(),
            confirm_purchases: config.browser.confirm_purchases,
            read_only: config.integrations.read_only.iter().cloned().collect(),
        }
    }

    /// A tool's lasting rule: its own rule beats its plugin's rule.
    pub fn rule_for(&self, tool: &str, plugin: &str) -> Option<RuleValue> {
        self.rules
            .get(tool)
            .or_else(|| self.rules.get(plugin))
            .copied()
    }

    /// Tools the model is not offered: Never rules, and tools of a Read only connection whose
    /// risk is above read and can't change per call (those stay offered; only their calls above
    /// read are refused).
    pub fn is_hidden(
        &self,
        tool: &str,
        plugin: &str,
        declared_risk: ApprovalRisk,
        risk_varies: bool,
    ) -> bool {
        self.rule_for(tool, plugin) == Some(RuleValue::Never)
            || (self.read_only.contains(plugin)
                && declared_risk > ApprovalRisk::Read
                && !risk_varies)
    }

    /// Whether the tool is offered to a run of `origin`: hidden tools never are, and work
    /// nobody asked for leaves Ask tools out because nobody is there to answer.
    pub fn is_offered(
        &self,
        tool: &str,
        plugin: &str,
        declared_risk: ApprovalRisk,
        risk_varies: bool,
        origin: Origin,
    ) -> bool {
        let hidden = self.is_hidden(tool, plugin, declared_risk, risk_varies);
        let left_out =
            origin.is_unprompted() && self.rule_for(tool, plugin) == Some(RuleValue::Ask);
        !hidden && !left_out
    }

    /// The name refusals use: the app's name when the rule is the app's, else the tool's plain
    /// name and app.
    fn rule_label(&self, call: &ToolCall) -> String {
        if !self.rules.contains_key(&call.name) && self.rules.contains_key(&call.plugin) {
            if call.app.is_empty() {
                call.plugin.clone()
            } else {
                call.app.clone()
            }
        } else {
            call.tool_label()
        }
    }

    /// What still stops a call the person has already approved (a one-call task): a Never rule,
    /// or a Read only connection for anything above read. The mode and Ask rules were answered
    /// by that approval. `None` when the call may run.
    pub fn refuses_approved(&self, call: &ToolCall) -> Option<String> {
        // A Never rule wins over everything; checked before the unprompted limit too, so a
        // held call never suggests a tool the user banned.
        if self.rule_for(&call.name, &call.plugin) == Some(RuleValue::Never) {
            return Some(never_message(&self.rule_label(call)));
        }
        // A Read only connection works like Never for everything above read, whatever the
        // mode, an Allow rule or "Allow for this chat" say.
        (self.read_only.contains(&call.plugin) && call.risk > ApprovalRisk::Read)
            .then(|| read_only_message(call))
    }

    /// Decides one call.
    pub fn decide(&self, call: &ToolCall, ctx: &CallContext) -> Decision {
        if let Some(result_error) = self.refuses_approved(call) {
            return Decision::Refuse { result_error };
        }
        let rule = self.rule_for(&call.name, &call.plugin);
        // Work nobody asked for may only look things up, before rules and modes, so an Allow
        // rule never lifts it.
        if ctx.origin.is_unprompted() && !unprompted_allows(call) {
            return Decision::Hold {
                reason: HoldReason::Unprompted,
                result_error: unprompted_message(&call.tool_label()),
            };
        }
        // Subagents never send or run code; the parent chat can ask for that instead.
        if ctx.origin == Origin::Subagent && call.risk >= ApprovalRisk::Send {
            return Decision::Refuse {
                result_error: subagent_message(&call.tool_label()),
            };
        }
        // Scripts refuse purchases in every mode, whatever browser.confirm_purchases says.
        if ctx.origin == Origin::Script && call.is_purchase() {
            return Decision::Refuse {
                result_error: script_purchase_message(&call.name),
            };
        }

        let outside = self.outside_content(call, ctx);

        // An Ask rule asks every time: in mode off, after "Allow for this chat", for reads.
        if rule == Some(RuleValue::Ask) {
            if ctx.can_ask {
                return Decision::Ask {
                    reason: AskReason::Rule,
                    risk_label: call.label(),
                    target: call.target.clone(),
                    untrusted: outside.map(|(reason, _)| reason),
                    offer_allow_for_chat: false,
                };
            }
            let label = self.rule_label(call);
            return match ctx.origin {
                Origin::Task | Origin::Swarm => Decision::Fail {
                    error: unattended_ask_message(&label),
                },
                origin => Decision::Refuse {
                    result_error: refused_ask_message(&label, origin),
                },
            };
        }
        // A rule the user was offered in this chat asks until they answer it, even under an
        // Allow rule, in mode off and after "Allow for this chat"; it only ever adds a question.
        if ctx.rule_pending_for(call) {
            if ctx.can_ask {
                return Decision::Ask {
                    reason: AskReason::PendingRule,
                    risk_label: call.label(),
                    target: call.target.clone(),
                    untrusted: outside.map(|(reason, _)| reason),
                    offer_allow_for_chat: false,
                };
            }
            return Decision::Refuse {
                result_error: pending_rule_message(&call.tool_label(), ctx.origin),
            };
        }

        // After outside content, anything that could send data out needs the user, whatever
        // the mode, Allow rules or "Allow for this chat" say.
        if let Some((reason, source)) = outside {
            if ctx.can_ask {
                return Decision::Ask {
                    reason: AskReason::OutsideContent,
                    risk_label: call.label(),
                    target: call.target.clone(),
                    untrusted: Some(reason),
                    offer_allow_for_chat: false,
                };
            }
            let label = call.tool_label();
            return Decision::Hold {
                reason: HoldReason::NeedsOk {
                    question: untrusted_question(&label, &source, call.target.as_deref()),
                },
                result_error: untrusted_hold_message(&label, &source),
            };
        }

        // Scripts can't ask, so they only read (and change Sentient's own things) unless the
        // approvals mode is off; an Allow rule does not widen that.
        if ctx.origin == Origin::Script {
            let quiet = call.risk == ApprovalRisk::Read
                || (call.risk == ApprovalRisk::Write && call.internal);
            return if quiet || self.mode == ApprovalMode::Off {
                Decision::Run
            } else {
                Decision::Refuse {
                    result_error: script_message(&call.name),
                }
            };
        }

        // Purchases ask in every mode, off included, and under an Allow rule.
        if self.confirm_purchases && call.is_purchase() {
            return if ctx.can_ask {
                Decision::Ask {
                    reason: AskReason::Purchase,
                    risk_label: call.label(),
                    target: call.target.clone(),
                    untrusted: None,
                    offer_allow_for_chat: false,
                }
            } else {
                Decision::Refuse {
                    result_error: purchase_unattended_message(&call.tool_label()),
                }
            };
        }

        if rule == Some(RuleValue::Allow) {
            return Decision::Run;
        }
        // The mode is about asking; where nobody can be asked (an approved task plan, a
        // subagent's look-ups and changes) there is no question to put.
        if !ctx.can_ask {
            return Decision::Run;
        }
        if self.chat_grant_covers(call, ctx) {
            return Decision::Run;
        }
        let asks = match self.mode {
            ApprovalMode::Off => false,
            ApprovalMode::Ask => match call.risk {
                ApprovalRisk::Read => false,
                ApprovalRisk::Write => !call.internal,
                ApprovalRisk::Send | ApprovalRisk::Exec => true,
            },
            ApprovalMode::Always => true,
        };
        if asks {
            Decision::Ask {
                reason: AskReason::Mode,
                risk_label: call.label(),
                target: call.target.clone(),
                untrusted: None,
                offer_allow_for_chat: offers_allow_for_chat(call),
            }
        } else {
            Decision::Run
        }
    }

    /// "Allow for this chat" covers the tool up to the approved risk, never a call whose risk
    /// function raised it to send/exec, and never a tool that opted out.
    fn chat_grant_covers(&self, call: &ToolCall, ctx: &CallContext) -> bool {
        offers_allow_for_chat(call) && ctx.chat_grant.is_some_and(|granted| call.risk <= granted)
    }

    /// With the mark set: the card's reason and the mark's source when this call could carry
    /// data out, either by sending or by loading an address on a new host.
    fn outside_content(&self, call: &ToolCall, ctx: &CallContext) -> Option<(String, String)> {
        let source = ctx.mark()?;
        if call.sends_out() {
            return Some((untrusted_reason(source), source.to_owned()));
        }
        call.urls.iter().find_map(|url| {
            let host = address_host(url);
            let known = !host.is_empty() && ctx.visited_hosts.contains(&host);
            (!known && address_carries_data(url)).then(|| {
                let shown = if host.is_empty() { url.trim() } else { &host };
                (untrusted_address_reason(source, shown), source.to_owned())
            })
        })
    }
}

/// Whether a mode question may offer "Allow for this chat" for this call.
fn offers_allow_for_chat(call: &ToolCall) -> bool {
    call.allow_for_chat && !(call.risk_raised && call.risk >= ApprovalRisk::Send)
}

/// Work nobody asked for may look things up and change Sentient's own things (an internal
/// tool at write), never plan more work, send, buy or run code.
fn unprompted_allows(call: &ToolCall) -> bool {
    match call.risk {
        ApprovalRisk::Read => true,
        ApprovalRisk::Write => {
            call.internal && !UNPROMPTED_BLOCKED_PLUGINS.contains(&call.plugin.as_str())
        }
        ApprovalRisk::Send | ApprovalRisk::Exec => false,
    }
}

/// A tool's plain name without its app prefix: `slack_post_message` → "Post message".
pub fn tool_title(name: &str, plugin: &str) -> String {
    let short = name
        .strip_prefix(plugin)
        .and_then(|rest| rest.strip_prefix('_'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name);
    let words = short
        .split(['_', '-'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let words = if words.is_empty() {
        name.to_owned()
    } else {
        words
    };
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The lower-case host of a web address; an address without a scheme counts as https.
pub fn address_host(url: &str) -> String {
    parse_address(url)
        .and_then(|parsed| {
            parsed
                .host_str()
                .map(|h| h.trim_end_matches('.').to_lowercase())
        })
        .unwrap_or_default()
}

/// True when an address could carry text to its site: a query string, a path over 100
/// characters, a fragment over 40, a user name or password, an address cut short ("…"), or
/// one that can't be read at all.
pub fn address_carries_data(url: &str) -> bool {
    if url.contains('…') {
        // A link the page snapshot shortened: the hidden part could hold anything.
        return true;
    }
    let Some(parsed) = parse_address(url) else {
        return true;
    };
    parsed.query().is_some_and(|q| !q.is_empty())
        || !parsed.username().is_empty()
        || parsed.password().is_some()
        || parsed.path().len() > MAX_CLEAN_PATH
        || parsed
            .fragment()
            .is_some_and(|f| f.len() > MAX_CLEAN_FRAGMENT)
}

fn parse_address(url: &str) -> Option<reqwest::Url> {
    let text = url.trim();
    if text.is_empty() {
        return None;
    }
    let full = if text.contains("://") {
        text.to_owned()
    } else {
        format!("https://{text}")
    };
    reqwest::Url::parse(&full).ok()
}

fn never_message(label: &str) -> String {
    format!("You've set Sentient to never use {label}. {SETTINGS_HINT}")
}

fn unattended_ask_message(label: &str) -> String {
    format!(
        "{label} is set to Ask, and tasks can't ask yet. Change it in Settings > Approvals & safety."
    )
}

/// Subagents, scripts and other runs nobody can answer in refuse an Ask tool (not in the
/// contract's words: it names no text for these).
fn refused_ask_message(label: &str, origin: Origin) -> String {
    let who = match origin {
        Origin::Subagent => "subagents can't ask you",
        Origin::Script => "scripts can't ask you",
        _ => "nobody can be asked here",
    };
    format!("{label} is set to Ask, and {who}, so it was not done. {SETTINGS_HINT}")
}

/// A call matched by an unanswered rule proposal where nobody can be asked (a subagent of the
/// chat): not in the contract's words, which name no text for it.
fn pending_rule_message(label: &str, origin: Origin) -> String {
    let who = match origin {
        Origin::Subagent => "subagents can't ask",
        _ => "nobody can be asked here",
    };
    format!(
        "The user was asked in this chat whether to make a rule about {label}, and {who}, so it was not done until they answer."
    )
}

fn read_only_message(call: &ToolCall) -> String {
    let app = if call.app.is_empty() {
        &call.plugin
    } else {
        &call.app
    };
    format!(
        "{app} is set to Read only, so Sentient can look things up there but can't change, send or delete anything. \"{}\" was not done. Change this in Integrations.",
        call.title
    )
}

fn unprompted_message(label: &str) -> String {
    format!(
        "Nobody asked for this work, so Sentient can only look things up. {label} was not done. If it would help, suggest it to the user instead."
    )
}

fn subagent_message(label: &str) -> String {
    format!(
        "Subagents can't send anything or run code, so {label} was not done. Say in your summary what should be done, so the chat can ask the user."
    )
}

fn script_message(tool: &str) -> String {
    format!(
        "Scripts can only look things up. Call {tool} directly instead, so Sentient can ask the user first."
    )
}

fn script_purchase_message(tool: &str) -> String {
    format!(
        "Scripts can't buy or pay for anything. Call {tool} directly instead, so the user can confirm it."
    )
}

fn purchase_unattended_message(label: &str) -> String {
    format!(
        "{label} would spend money, and nobody can be asked to confirm it here, so it was not done. Ask the user to do it from a chat."
    )
}

fn untrusted_reason(source: &str) -> String {
    format!(
        "Sentient read content from {source} in this chat, so it checks with you before sending anything."
    )
}

fn untrusted_address_reason(source: &str, host: &str) -> String {
    format!(
        "Sentient read content from {source} in this chat, and this address could carry your data to {host}, so it checks with you first."
    )
}

fn untrusted_hold_message(label: &str, source: &str) -> String {
    format!(
        "Not done: this run read content from {source}, so {label} needs the user's OK first. If it is still needed after the user answers, call it again; otherwise finish and say it is waiting for the user's OK."
    )
}

fn untrusted_question(label: &str, source: &str, target: Option<&str>) -> String {
    let detail = target
        .filter(|t| !t.trim().is_empty())
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    format!(
        "This task read content from {source}, so it checks with you before anything leaves Sentient. OK to use {label}{detail}?"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: ApprovalRisk = ApprovalRisk::Read;
    const W: ApprovalRisk = ApprovalRisk::Write;
    const S: ApprovalRisk = ApprovalRisk::Send;
    const X: ApprovalRisk = ApprovalRisk::Exec;
    const OFF: ApprovalMode = ApprovalMode::Off;
    const ASK: ApprovalMode = ApprovalMode::Ask;
    const ALWAYS: ApprovalMode = ApprovalMode::Always;
    const MODES: [ApprovalMode; 3] = [OFF, ASK, ALWAYS];
    const RISKS: [ApprovalRisk; 4] = [R, W, S, X];
    const UNPROMPTED: [Origin; 5] = [
        Origin::Proactive,
        Origin::Heartbeat,
        Origin::Followups,
        Origin::Dreaming,
        Origin::Background,
    ];
    const NEVER_SLACK: &str =
        "You've set Sentient to never use Slack. Change this in Settings > Approvals & safety.";
    const NEVER_POST: &str = "You've set Sentient to never use \"Post message\" in Slack. Change this in Settings > Approvals & safety.";
    const GMAIL_REASON: &str = "Sentient read content from Gmail in this chat, so it checks with you before sending anything.";

    fn settings(mode: ApprovalMode, rules: &[(&str, RuleValue)]) -> ApprovalSettings {
        ApprovalSettings {
            mode,
            rules: rules.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
            ..ApprovalSettings::default()
        }
    }

    fn post(risk: ApprovalRisk) -> ToolCall {
        ToolCall::new("slack_post_message", "slack", "Slack", risk)
    }

    fn purchase() -> ToolCall {
        ToolCall {
            risk_label: Some(PURCHASE_LABEL.to_owned()),
            target: Some("Place order".to_owned()),
            risk_raised: true,
            ..ToolCall::new("browser_click", "browser", "Browser", S)
        }
    }

    fn fetch(url: &str) -> ToolCall {
        ToolCall {
            urls: vec![url.to_owned()],
            ..ToolCall::new("web_fetch", "web", "Web", R)
        }
    }

    fn ctx(origin: Origin) -> CallContext {
        CallContext::new(origin)
    }

    fn marked(origin: Origin, app: &str) -> CallContext {
        CallContext {
            untrusted: Some(app.to_owned()),
            ..CallContext::new(origin)
        }
    }

    fn granted(risk: ApprovalRisk) -> CallContext {
        CallContext {
            chat_grant: Some(risk),
            ..CallContext::new(Origin::Chat)
        }
    }

    fn reason_of(decision: &Decision) -> Option<AskReason> {
        match decision {
            Decision::Ask { reason, .. } => Some(*reason),
            _ => None,
        }
    }

    fn refusal(decision: &Decision) -> &str {
        match decision {
            Decision::Refuse { result_error } => result_error,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn risks_read_from_strings_and_unknown_counts_as_exec() {
        for (text, risk) in [
            ("read", R),
            ("write", W),
            ("send", S),
            ("exec", X),
            (" Send ", S),
            ("WRITE", W),
            ("delete", X),
            ("", X),
        ] {
            assert_eq!(ApprovalRisk::from(text), risk, "{text:?}");
        }
        assert!(R < W && W < S && S < X);
        for risk in RISKS {
            assert_eq!(ApprovalRisk::from(risk.as_str()), risk);
        }
    }

    #[test]
    fn origins_parse_and_only_the_five_are_unprompted() {
        for (text, origin, unprompted) in [
            ("chat", Origin::Chat, false),
            ("user", Origin::Chat, false),
            ("voice", Origin::Voice, false),
            ("channel", Origin::Channel, false),
            ("task", Origin::Task, false),
            ("swarm", Origin::Swarm, false),
            ("subagent", Origin::Subagent, false),
            ("script", Origin::Script, false),
            ("proactive", Origin::Proactive, true),
            ("heartbeat", Origin::Heartbeat, true),
            ("followups", Origin::Followups, true),
            ("dreaming", Origin::Dreaming, true),
            ("background", Origin::Background, true),
        ] {
            assert_eq!(Origin::parse(text), Some(origin), "{text}");
            assert_eq!(origin.is_unprompted(), unprompted, "{text}");
        }
        assert_eq!(Origin::parse("elsewhere"), None);
    }

    #[test]
    fn only_people_facing_origins_can_ask_by_default() {
        for (origin, can_ask) in [
            (Origin::Chat, true),
            (Origin::Voice, true),
            (Origin::Channel, true),
            (Origin::Task, false),
            (Origin::Swarm, false),
            (Origin::Subagent, false),
            (Origin::Script, false),
            (Origin::Proactive, false),
        ] {
            assert_eq!(CallContext::new(origin).can_ask, can_ask, "{origin:?}");
        }
    }

    #[test]
    fn tool_titles_drop_the_app_prefix() {
        for (name, plugin, title) in [
            ("slack_post_message", "slack", "Post message"),
            ("gmail_send_email", "gmail", "Send email"),
            ("mcp_files_delete", "mcp_files", "Delete"),
            ("execute_code", "code", "Execute code"),
            ("web-fetch", "web", "Web fetch"),
            ("slack", "slack", "Slack"),
            ("slack_", "slack", "Slack"),
        ] {
            assert_eq!(tool_title(name, plugin), title, "{name}");
        }
    }

    #[test]
    fn a_tools_own_rule_beats_its_plugins_rule() {
        use RuleValue::{Allow, Ask, Never};
        for (rules, expected) in [
            (vec![], None),
            (vec![("slack", Never)], Some(Never)),
            (vec![("slack_post_message", Ask)], Some(Ask)),
            (
                vec![("slack", Never), ("slack_post_message", Allow)],
                Some(Allow),
            ),
            (
                vec![("slack", Allow), ("slack_post_message", Never)],
                Some(Never),
            ),
            (vec![("gmail", Never)], None),
        ] {
            let s = settings(ASK, &rules);
            assert_eq!(
                s.rule_for("slack_post_message", "slack"),
                expected,
                "{rules:?}"
            );
        }
    }

    #[test]
    fn never_rules_and_read_only_connections_hide_tools() {
        use RuleValue::{Allow, Ask, Never};
        let mut s = settings(
            ASK,
            &[
                ("slack", Never),
                ("slack_read", Allow),
                ("gmail_send_email", Never),
                ("notion", Ask),
            ],
        );
        s.read_only.insert("github".to_owned());
        for (tool, plugin, risk, varies, hidden) in [
            ("slack_post_message", "slack", S, false, true),
            ("slack_read", "slack", R, false, false),
            ("gmail_send_email", "gmail", S, false, true),
            ("gmail_search", "gmail", R, false, false),
            ("notion_update", "notion", W, false, false),
            ("github_update_issue", "github", W, false, true),
            ("github_search", "github", R, false, false),
            ("github_run", "github", X, true, false),
        ] {
            assert_eq!(s.is_hidden(tool, plugin, risk, varies), hidden, "{tool}");
        }
        // Proactive look-ups leave Ask tools out; a chat still gets them.
        assert!(!s.is_offered("notion_update", "notion", W, false, Origin::Proactive));
        assert!(s.is_offered("notion_update", "notion", W, false, Origin::Chat));
        assert!(s.is_offered("slack_read", "slack", R, false, Origin::Chat));
        assert!(!s.is_offered("slack_post_message", "slack", S, false, Origin::Chat));
    }

    #[test]
    fn never_refuses_everywhere_with_the_contract_text() {
        let by_app = settings(ASK, &[("slack", RuleValue::Never)]);
        let by_tool = settings(ASK, &[("slack_post_message", RuleValue::Never)]);
        let origins = [
            Origin::Chat,
            Origin::Voice,
            Origin::Channel,
            Origin::Task,
            Origin::Swarm,
            Origin::Subagent,
            Origin::Script,
            Origin::Proactive,
            Origin::Background,
        ];
        for mode in MODES {
            for risk in RISKS {
                for origin in origins {
                    let mut app = by_app.clone();
                    app.mode = mode;
                    let mut tool = by_tool.clone();
                    tool.mode = mode;
                    let c = CallContext {
                        chat_grant: Some(X),
                        untrusted: Some("Gmail".to_owned()),
                        ..ctx(origin)
                    };
                    assert_eq!(refusal(&app.decide(&post(risk), &c)), NEVER_SLACK);
                    assert_eq!(refusal(&tool.decide(&post(risk), &c)), NEVER_POST);
                }
            }
        }
        // Without a display name the plugin id and a bare title stand in.
        let nameless = ToolCall::new("slack_post_message", "slack", "", S);
        assert_eq!(
            refusal(&by_app.decide(&nameless, &ctx(Origin::Chat))),
            "You've set Sentient to never use slack. Change this in Settings > Approvals & safety."
        );
        assert_eq!(
            refusal(&by_tool.decide(&nameless, &ctx(Origin::Chat))),
            "You've set Sentient to never use \"Post message\". Change this in Settings > Approvals & safety."
        );
    }

    #[test]
    fn ask_rules_ask_every_time_where_someone_can_be_asked() {
        for key in ["slack", "slack_post_message"] {
            for mode in MODES {
                let s = settings(mode, &[(key, RuleValue::Ask)]);
                for risk in RISKS {
                    for c in [
                        ctx(Origin::Chat),
                        ctx(Origin::Voice),
                        ctx(Origin::Channel),
                        granted(X),
                    ] {
                        let decision = s.decide(&post(risk), &c);
                        assert_eq!(
                            decision,
                            Decision::Ask {
                                reason: AskReason::Rule,
                                risk_label: risk.default_label().to_owned(),
                                target: None,
                                untrusted: None,
                                offer_allow_for_chat: false,
                            },
                            "{key} {mode:?} {risk:?}"
                        );
                    }
                }
            }
        }
        // An Ask rule also wins over a purchase's own question.
        let s = settings(OFF, &[("browser", RuleValue::Ask)]);
        assert_eq!(
            reason_of(&s.decide(&purchase(), &ctx(Origin::Chat))),
            Some(AskReason::Rule)
        );
    }

    #[test]
    fn ask_rules_where_nobody_can_be_asked() {
        let s = settings(OFF, &[("files", RuleValue::Ask)]);
        let write = ToolCall::new("file_write", "files", "Files", W);
        let stopped = "Files is set to Ask, and tasks can't ask yet. Change it in Settings > Approvals & safety.";
        for origin in [Origin::Task, Origin::Swarm] {
            assert_eq!(
                s.decide(&write, &ctx(origin)),
                Decision::Fail {
                    error: stopped.to_owned()
                }
            );
        }
        for (origin, text) in [
            (
                Origin::Subagent,
                "Files is set to Ask, and subagents can't ask you, so it was not done. Change this in Settings > Approvals & safety.",
            ),
            (
                Origin::Script,
                "Files is set to Ask, and scripts can't ask you, so it was not done. Change this in Settings > Approvals & safety.",
            ),
            (
                Origin::Proactive,
                "Files is set to Ask, and nobody can be asked here, so it was not done. Change this in Settings > Approvals & safety.",
            ),
        ] {
            let read = ToolCall::new("file_read", "files", "Files", R);
            assert_eq!(refusal(&s.decide(&read, &ctx(origin))), text, "{origin:?}");
        }
        // A chat with nobody to answer does not run it either.
        let silent = CallContext {
            can_ask: false,
            ..ctx(Origin::Chat)
        };
        assert!(matches!(s.decide(&write, &silent), Decision::Refuse { .. }));
        // A tool's own Ask rule names the tool.
        let own = settings(OFF, &[("file_write", RuleValue::Ask)]);
        assert_eq!(
            own.decide(&write, &ctx(Origin::Task)),
            Decision::Fail {
                error: "\"File write\" in Files is set to Ask, and tasks can't ask yet. Change it in Settings > Approvals & safety.".to_owned()
            }
        );
    }

    #[test]
    fn allow_rules_skip_the_question_in_every_mode() {
        for key in ["slack", "slack_post_message"] {
            for mode in MODES {
                let s = settings(mode, &[(key, RuleValue::Allow)]);
                for risk in RISKS {
                    assert_eq!(
                        s.decide(&post(risk), &ctx(Origin::Chat)),
                        Decision::Run,
                        "{mode:?} {risk:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn purchases_ask_in_every_mode_even_under_allow_and_chat_grants() {
        let place_order = Decision::Ask {
            reason: AskReason::Purchase,
            risk_label: "Purchase".to_owned(),
            target: Some("Place order".to_owned()),
            untrusted: None,
            offer_allow_for_chat: false,
        };
        for mode in MODES {
            for rules in [
                vec![],
                vec![("browser", RuleValue::Allow)],
                vec![("browser_click", RuleValue::Allow)],
            ] {
                let s = settings(mode, &rules);
                for c in [ctx(Origin::Chat), granted(X), ctx(Origin::Voice)] {
                    assert_eq!(s.decide(&purchase(), &c), place_order, "{mode:?} {rules:?}");
                }
            }
        }
        // Exec with the Purchase wording is a purchase too; a write with it is not.
        let exec = ToolCall {
            risk: X,
            ..purchase()
        };
        assert_eq!(
            reason_of(&settings(OFF, &[]).decide(&exec, &ctx(Origin::Chat))),
            Some(AskReason::Purchase)
        );
        let write = ToolCall {
            risk: W,
            ..purchase()
        };
        assert!(!write.is_purchase());
        assert_eq!(
            settings(OFF, &[]).decide(&write, &ctx(Origin::Chat)),
            Decision::Run
        );
        // Another wording at send is an ordinary send.
        let sends = ToolCall {
            risk_label: Some("Sends".to_owned()),
            ..purchase()
        };
        assert_eq!(
            settings(OFF, &[]).decide(&sends, &ctx(Origin::Chat)),
            Decision::Run
        );
    }

    #[test]
    fn confirm_purchases_off_makes_purchases_ordinary_sends() {
        for (mode, rules, expected) in [
            (OFF, vec![], None),
            (ASK, vec![], Some(AskReason::Mode)),
            (ALWAYS, vec![], Some(AskReason::Mode)),
            (ASK, vec![("browser", RuleValue::Allow)], None),
        ] {
            let s = ApprovalSettings {
                confirm_purchases: false,
                ..settings(mode, &rules)
            };
            assert_eq!(
                reason_of(&s.decide(&purchase(), &ctx(Origin::Chat))),
                expected,
                "{mode:?}"
            );
        }
    }

    #[test]
    fn scripts_and_unattended_runs_never_buy() {
        for confirm in [true, false] {
            for mode in MODES {
                let s = ApprovalSettings {
                    confirm_purchases: confirm,
                    ..settings(mode, &[("browser", RuleValue::Allow)])
                };
                assert_eq!(
                    refusal(&s.decide(&purchase(), &ctx(Origin::Script))),
                    "Scripts can't buy or pay for anything. Call browser_click directly instead, so the user can confirm it."
                );
            }
        }
        let s = settings(OFF, &[]);
        assert_eq!(
            refusal(&s.decide(&purchase(), &ctx(Origin::Task))),
            "\"Click\" in Browser would spend money, and nobody can be asked to confirm it here, so it was not done. Ask the user to do it from a chat."
        );
    }

    #[test]
    fn modes_decide_when_no_rule_does() {
        // (mode, risk, internal, asks)
        for (mode, risk, internal, asks) in [
            (OFF, R, false, false),
            (OFF, W, false, false),
            (OFF, S, false, false),
            (OFF, X, false, false),
            (ASK, R, false, false),
            (ASK, W, false, true),
            (ASK, W, true, false),
            (ASK, S, false, true),
            (ASK, S, true, true),
            (ASK, X, true, true),
            (ALWAYS, R, false, true),
            (ALWAYS, W, true, true),
            (ALWAYS, S, false, true),
            (ALWAYS, X, false, true),
        ] {
            let call = ToolCall {
                internal,
                ..post(risk)
            };
            let expected = if asks {
                Decision::Ask {
                    reason: AskReason::Mode,
                    risk_label: risk.default_label().to_owned(),
                    target: None,
                    untrusted: None,
                    offer_allow_for_chat: true,
                }
            } else {
                Decision::Run
            };
            assert_eq!(
                settings(mode, &[]).decide(&call, &ctx(Origin::Chat)),
                expected,
                "{mode:?} {risk:?} {internal}"
            );
        }
    }

    #[test]
    fn asks_carry_the_tools_wording_and_target() {
        let call = ToolCall {
            risk_label: Some("Deletes".to_owned()),
            target: Some("Inbox".to_owned()),
            ..ToolCall::new("gmail_trash", "gmail", "Gmail", W)
        };
        assert_eq!(
            settings(ASK, &[]).decide(&call, &ctx(Origin::Chat)),
            Decision::Ask {
                reason: AskReason::Mode,
                risk_label: "Deletes".to_owned(),
                target: Some("Inbox".to_owned()),
                untrusted: None,
                offer_allow_for_chat: true,
            }
        );
        for (risk, label) in [
            (R, "Looks something up"),
            (W, "Changes something"),
            (S, "Sends"),
            (X, "Runs code"),
        ] {
            assert_eq!(risk.default_label(), label);
        }
    }

    #[test]
    fn allow_for_this_chat_covers_up_to_the_approved_risk() {
        // (grant, call risk, runs) in mode always, where every call would ask.
        for (grant, risk, runs) in [
            (R, R, true),
            (R, W, false),
            (W, R, true),
            (W, W, true),
            (W, S, false),
            (S, S, true),
            (S, X, false),
            (X, X, true),
        ] {
            let decision = settings(ALWAYS, &[]).decide(&post(risk), &granted(grant));
            assert_eq!(decision == Decision::Run, runs, "{grant:?} {risk:?}");
            if !runs {
                assert_eq!(reason_of(&decision), Some(AskReason::Mode));
            }
        }
    }

    #[test]
    fn allow_for_this_chat_never_covers_raised_risks_or_tools_that_opt_out() {
        let s = settings(ASK, &[]);
        let raised = ToolCall {
            risk_raised: true,
            ..post(S)
        };
        let raised_write = ToolCall {
            risk_raised: true,
            ..post(W)
        };
        let opted_out = ToolCall {
            allow_for_chat: false,
            ..ToolCall::new("terminal_run", "terminal", "Terminal", X)
        };
        for (call, covered) in [(&raised, false), (&raised_write, true), (&opted_out, false)] {
            let decision = s.decide(call, &granted(X));
            assert_eq!(decision == Decision::Run, covered, "{}", call.name);
        }
        for call in [&raised, &opted_out] {
            assert!(matches!(
                s.decide(call, &ctx(Origin::Chat)),
                Decision::Ask {
                    reason: AskReason::Mode,
                    offer_allow_for_chat: false,
                    ..
                }
            ));
        }
    }

    #[test]
    fn unprompted_work_may_only_read() {
        let tasks_write = ToolCall {
            internal: true,
            ..ToolCall::new("tasks_create", "tasks", "Tasks", W)
        };
        let memory_write = ToolCall {
            internal: true,
            ..ToolCall::new("memory_remember", "memory", "Memory", W)
        };
        let held = |label: &str| Decision::Hold {
            reason: HoldReason::Unprompted,
            result_error: format!(
                "Nobody asked for this work, so Sentient can only look things up. {label} was not done. If it would help, suggest it to the user instead."
            ),
        };
        for origin in UNPROMPTED {
            for mode in MODES {
                // An Allow rule never lifts the limit; mode off neither.
                for rules in [vec![], vec![("slack", RuleValue::Allow)]] {
                    let s = settings(mode, &rules);
                    let c = ctx(origin);
                    assert_eq!(s.decide(&post(R), &c), Decision::Run);
                    assert_eq!(s.decide(&memory_write, &c), Decision::Run);
                    assert_eq!(s.decide(&tasks_write, &c), held("\"Create\" in Tasks"));
                    for risk in [W, S, X] {
                        assert_eq!(
                            s.decide(&post(risk), &c),
                            held("\"Post message\" in Slack"),
                            "{origin:?} {mode:?} {risk:?}"
                        );
                    }
                    let internal_send = ToolCall {
                        internal: true,
                        ..post(S)
                    };
                    assert_eq!(
                        s.decide(&internal_send, &c),
                        held("\"Post message\" in Slack")
                    );
                }
            }
        }
    }

    #[test]
    fn outside_content_makes_every_send_ask_whatever_else_says() {
        let untrusted_ask = |risk: ApprovalRisk| Decision::Ask {
            reason: AskReason::OutsideContent,
            risk_label: risk.default_label().to_owned(),
            target: None,
            untrusted: Some(GMAIL_REASON.to_owned()),
            offer_allow_for_chat: false,
        };
        for mode in MODES {
            for rules in [vec![], vec![("slack", RuleValue::Allow)]] {
                let s = settings(mode, &rules);
                for c in [
                    marked(Origin::Chat, "Gmail"),
                    marked(Origin::Voice, "Gmail"),
                    CallContext {
                        chat_grant: Some(X),
                        ..marked(Origin::Channel, "Gmail")
                    },
                ] {
                    for risk in [S, X] {
                        assert_eq!(
                            s.decide(&post(risk), &c),
                            untrusted_ask(risk),
                            "{mode:?} {rules:?}"
                        );
                    }
                    let typing = ToolCall {
                        exfiltrates: true,
                        ..ToolCall::new("slack_post_message", "slack", "Slack", W)
                    };
                    assert_eq!(s.decide(&typing, &c), untrusted_ask(W));
                }
            }
        }
        // Calls that can't send out are not touched by the mark.
        let s = settings(OFF, &[]);
        assert_eq!(
            s.decide(&post(W), &marked(Origin::Chat, "Gmail")),
            Decision::Run
        );
        assert_eq!(
            s.decide(&post(R), &marked(Origin::Chat, "Gmail")),
            Decision::Run
        );
        // An empty mark is a clean chat.
        assert_eq!(s.decide(&post(S), &marked(Origin::Chat, "")), Decision::Run);
        // An Ask rule still asks, now with the outside-content reason on the card.
        let rule = settings(OFF, &[("slack", RuleValue::Ask)]);
        assert_eq!(
            rule.decide(&post(S), &marked(Origin::Chat, "Gmail")),
            Decision::Ask {
                reason: AskReason::Rule,
                risk_label: "Sends".to_owned(),
                target: None,
                untrusted: Some(GMAIL_REASON.to_owned()),
                offer_allow_for_chat: false,
            }
        );
        // A marked purchase asks once, with the outside-content reason.
        assert_eq!(
            reason_of(&s.decide(&purchase(), &marked(Origin::Chat, "Gmail"))),
            Some(AskReason::OutsideContent)
        );
    }

    #[test]
    fn never_rules_and_the_unprompted_limit_come_before_outside_content() {
        let never = settings(OFF, &[("slack", RuleValue::Never)]);
        assert_eq!(
            refusal(&never.decide(&post(S), &marked(Origin::Chat, "Gmail"))),
            NEVER_SLACK
        );
        let s = settings(OFF, &[]);
        assert!(matches!(
            s.decide(&post(S), &marked(Origin::Proactive, "Gmail")),
            Decision::Hold {
                reason: HoldReason::Unprompted,
                ..
            }
        ));
    }

    #[test]
    fn outside_content_holds_sends_where_nobody_can_be_asked() {
        let call = ToolCall {
            target: Some("#general".to_owned()),
            ..post(S)
        };
        let expected = Decision::Hold {
            reason: HoldReason::NeedsOk {
                question: "This task read content from Webhooks, so it checks with you before anything leaves Sentient. OK to use \"Post message\" in Slack (#general)?".to_owned(),
            },
            result_error: "Not done: this run read content from Webhooks, so \"Post message\" in Slack needs the user's OK first. If it is still needed after the user answers, call it again; otherwise finish and say it is waiting for the user's OK.".to_owned(),
        };
        for mode in MODES {
            for rules in [vec![], vec![("slack", RuleValue::Allow)]] {
                let s = settings(mode, &rules);
                for origin in [Origin::Task, Origin::Swarm, Origin::Script] {
                    assert_eq!(
                        s.decide(&call, &marked(origin, "Webhooks")),
                        expected,
                        "{origin:?} {mode:?}"
                    );
                }
            }
        }
        // Subagents never send at all; their exfiltrating writes are held.
        let typing = ToolCall {
            exfiltrates: true,
            ..post(W)
        };
        assert!(matches!(
            settings(OFF, &[]).decide(&typing, &marked(Origin::Subagent, "Gmail")),
            Decision::Hold {
                reason: HoldReason::NeedsOk { .. },
                ..
            }
        ));
        // Without a target the question names only the tool.
        assert!(matches!(
            settings(OFF, &[]).decide(&post(S), &marked(Origin::Task, "Gmail")),
            Decision::Hold { reason: HoldReason::NeedsOk { question }, .. }
                if question.ends_with("OK to use \"Post message\" in Slack?")
        ));
    }

    #[test]
    fn addresses_that_could_carry_data_to_a_new_host_ask_when_marked() {
        let s = settings(OFF, &[("web", RuleValue::Allow)]);
        let visited = CallContext {
            visited_hosts: ["example.com".to_owned()].into(),
            ..marked(Origin::Chat, "Gmail")
        };
        let long_path = format!("https://evil.example/{}", "a".repeat(101));
        let long_fragment = format!("https://evil.example/#{}", "a".repeat(41));
        for (url, asks) in [
            ("https://evil.example/?q=secret", true),
            (long_path.as_str(), true),
            (long_fragment.as_str(), true),
            ("https://someone@evil.example/", true),
            ("https://evil.example/read…", true),
            ("evil.example/?q=1", true),
            ("https://evil.example/docs", false),
            ("https://evil.example/#top", false),
            ("https://example.com/?q=secret", false),
            ("https://EXAMPLE.com./?q=secret", false),
        ] {
            let decision = s.decide(&fetch(url), &visited);
            if asks {
                assert_eq!(
                    decision,
                    Decision::Ask {
                        reason: AskReason::OutsideContent,
                        risk_label: "Looks something up".to_owned(),
                        target: None,
                        untrusted: Some(
                            "Sentient read content from Gmail in this chat, and this address could carry your data to evil.example, so it checks with you first.".to_owned()
                        ),
                        offer_allow_for_chat: false,
                    },
                    "{url}"
                );
            } else {
                assert_eq!(decision, Decision::Run, "{url}");
            }
        }
        // Clean chats load anything.
        assert_eq!(
            s.decide(&fetch("https://evil.example/?q=secret"), &ctx(Origin::Chat)),
            Decision::Run
        );
        // A task run is held instead.
        assert!(matches!(
            s.decide(&fetch("https://evil.example/?q=secret"), &marked(Origin::Task, "Gmail")),
            Decision::Hold { reason: HoldReason::NeedsOk { .. }, result_error } if result_error.contains("\"Fetch\" in Web")
        ));
        // Any one of several addresses is enough.
        let many = ToolCall {
            urls: vec![
                "https://example.com/".to_owned(),
                "https://evil.example/?q=1".to_owned(),
            ],
            ..fetch("")
        };
        assert_eq!(
            reason_of(&s.decide(&many, &visited)),
            Some(AskReason::OutsideContent)
        );
    }

    #[test]
    fn address_helpers() {
        for (url, host) in [
            ("https://Example.COM/path", "example.com"),
            ("example.com/path", "example.com"),
            ("http://example.com.:8080/", "example.com"),
            ("", ""),
            ("https://", ""),
        ] {
            assert_eq!(address_host(url), host, "{url}");
        }
        let path_100 = format!("https://a.example/{}", "p".repeat(99));
        let path_101 = format!("https://a.example/{}", "p".repeat(100));
        let frag_40 = format!("https://a.example/#{}", "f".repeat(40));
        let frag_41 = format!("https://a.example/#{}", "f".repeat(41));
        for (url, carries) in [
            ("https://a.example/", false),
            ("https://a.example/?", false),
            ("https://a.example/?x=1", true),
            ("https://user:pw@a.example/", true),
            ("https://:pw@a.example/", true),
            ("https://a.example/see…", true),
            ("http://[not an address", true),
            (path_100.as_str(), false),
            (path_101.as_str(), true),
            (frag_40.as_str(), false),
            (frag_41.as_str(), true),
        ] {
            assert_eq!(address_carries_data(url), carries, "{url}");
        }
    }

    #[test]
    fn read_only_connections_refuse_changes_whatever_else_says() {
        let text = "GitHub is set to Read only, so Sentient can look things up there but can't change, send or delete anything. \"Update issue\" was not done. Change this in Integrations.";
        for mode in MODES {
            for rules in [
                vec![],
                vec![("github", RuleValue::Allow)],
                vec![("github_update_issue", RuleValue::Allow)],
            ] {
                let mut s = settings(mode, &rules);
                s.read_only.insert("github".to_owned());
                for origin in [Origin::Chat, Origin::Task, Origin::Script, Origin::Subagent] {
                    let c = CallContext {
                        chat_grant: Some(X),
                        ..ctx(origin)
                    };
                    for risk in [W, S, X] {
                        let call = ToolCall::new("github_update_issue", "github", "GitHub", risk);
                        assert_eq!(refusal(&s.decide(&call, &c)), text, "{mode:?} {origin:?}");
                    }
                    let look = ToolCall::new("github_search", "github", "GitHub", R);
                    assert_eq!(s.decide(&look, &c), Decision::Run);
                }
            }
        }
    }

    #[test]
    fn scripts_only_read_unless_the_mode_is_off() {
        let refused = "Scripts can only look things up. Call slack_post_message directly instead, so Sentient can ask the user first.";
        // (mode, risk, internal, runs)
        for (mode, risk, internal, runs) in [
            (ASK, R, false, true),
            (ASK, W, true, true),
            (ASK, W, false, false),
            (ASK, S, false, false),
            (ASK, X, false, false),
            (ALWAYS, R, false, true),
            (ALWAYS, W, true, true),
            (ALWAYS, W, false, false),
            (OFF, W, false, true),
            (OFF, S, false, true),
            (OFF, X, false, true),
        ] {
            for rules in [vec![], vec![("slack", RuleValue::Allow)]] {
                let call = ToolCall {
                    internal,
                    ..post(risk)
                };
                let decision = settings(mode, &rules).decide(&call, &ctx(Origin::Script));
                if runs {
                    assert_eq!(decision, Decision::Run, "{mode:?} {risk:?}");
                } else {
                    assert_eq!(refusal(&decision), refused, "{mode:?} {risk:?} {rules:?}");
                }
            }
        }
    }

    #[test]
    fn subagents_never_send_or_run_code() {
        for mode in MODES {
            let s = settings(mode, &[("slack", RuleValue::Allow)]);
            for risk in [S, X] {
                assert_eq!(
                    refusal(&s.decide(&post(risk), &ctx(Origin::Subagent))),
                    "Subagents can't send anything or run code, so \"Post message\" in Slack was not done. Say in your summary what should be done, so the chat can ask the user."
                );
            }
            assert_eq!(
                settings(mode, &[]).decide(&post(W), &ctx(Origin::Subagent)),
                Decision::Run
            );
            assert_eq!(
                settings(mode, &[]).decide(&post(R), &ctx(Origin::Subagent)),
                Decision::Run
            );
        }
    }

    #[test]
    fn runs_nobody_can_be_asked_in_do_not_ask_for_the_mode() {
        for origin in [Origin::Task, Origin::Swarm] {
            for risk in RISKS {
                assert_eq!(
                    settings(ALWAYS, &[]).decide(&post(risk), &ctx(origin)),
                    Decision::Run
                );
            }
        }
    }

    #[test]
    fn settings_come_from_the_config() {
        let mut config = Config::default();
        config.tools.approvals.mode = ALWAYS;
        config
            .tools
            .approvals
            .rules
            .insert("slack".to_owned(), RuleValue::Never);
        config.browser.confirm_purchases = false;
        config.integrations.read_only.push("github".to_owned());
        let s = ApprovalSettings::from_config(&config);
        assert_eq!(s.mode, ALWAYS);
        assert_eq!(
            s.rule_for("slack_post_message", "slack"),
            Some(RuleValue::Never)
        );
        assert!(!s.confirm_purchases);
        assert!(s.read_only.contains("github"));
        let defaults = ApprovalSettings::from_config(&Config::default());
        assert_eq!(defaults, ApprovalSettings::default());
    }

    fn pending(keys: &[&str], origin: Origin) -> CallContext {
        CallContext {
            pending_rule_keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            ..ctx(origin)
        }
    }

    #[test]
    fn a_pending_rule_proposal_asks_whatever_the_mode_allow_rules_or_grants_say() {
        let asks = |risk: ApprovalRisk| Decision::Ask {
            reason: AskReason::PendingRule,
            risk_label: risk.default_label().to_owned(),
            target: None,
            untrusted: None,
            offer_allow_for_chat: false,
        };
        for key in ["slack", "slack_post_message"] {
            for mode in MODES {
                for rules in [vec![], vec![("slack", RuleValue::Allow)]] {
                    let s = settings(mode, &rules);
                    for risk in RISKS {
                        let mut c = pending(&[key], Origin::Chat);
                        assert_eq!(s.decide(&post(risk), &c), asks(risk), "{key} {mode:?}");
                        c.chat_grant = Some(X);
                        assert_eq!(s.decide(&post(risk), &c), asks(risk), "granted");
                    }
                }
            }
        }
        // Other tools and apps are not touched.
        let s = settings(OFF, &[]);
        let gmail = ToolCall::new("gmail_send_email", "gmail", "Gmail", S);
        assert_eq!(
            s.decide(&gmail, &pending(&["slack"], Origin::Chat)),
            Decision::Run
        );
        assert_eq!(
            reason_of(&s.decide(&post(R), &pending(&["slack_post_message"], Origin::Voice))),
            Some(AskReason::PendingRule)
        );
    }

    #[test]
    fn refusals_come_before_a_pending_rule_and_nobody_to_ask_refuses() {
        let never = settings(OFF, &[("slack", RuleValue::Never)]);
        assert_eq!(
            refusal(&never.decide(&post(W), &pending(&["slack"], Origin::Chat))),
            NEVER_SLACK
        );
        // An Ask rule keeps its own reason.
        let ask = settings(OFF, &[("slack", RuleValue::Ask)]);
        assert_eq!(
            reason_of(&ask.decide(&post(R), &pending(&["slack"], Origin::Chat))),
            Some(AskReason::Rule)
        );
        // Work nobody asked for is held before anything else.
        let s = settings(OFF, &[]);
        assert!(matches!(
            s.decide(&post(S), &pending(&["slack"], Origin::Proactive)),
            Decision::Hold { .. }
        ));
        // A subagent of the chat refuses the call, even a read.
        assert_eq!(
            refusal(&s.decide(&post(R), &pending(&["slack"], Origin::Subagent))),
            "The user was asked in this chat whether to make a rule about \"Post message\" in Slack, and subagents can't ask, so it was not done until they answer."
        );
        assert!(matches!(
            s.decide(&post(R), &pending(&["slack"], Origin::Script)),
            Decision::Refuse { .. }
        ));
        // Outside content rides along on the question.
        let mut marked = pending(&["slack"], Origin::Chat);
        marked.untrusted = Some("Gmail".to_owned());
        match s.decide(&post(S), &marked) {
            Decision::Ask {
                reason, untrusted, ..
            } => {
                assert_eq!(reason, AskReason::PendingRule);
                assert_eq!(untrusted.as_deref(), Some(GMAIL_REASON));
            }
            other => panic!("expected a question, got {other:?}"),
        }
    }

    #[test]
    fn ask_reasons_have_wire_names() {
        for (reason, name) in [
            (AskReason::Rule, "rule"),
            (AskReason::OutsideContent, "outside_content"),
            (AskReason::Purchase, "purchase"),
            (AskReason::Mode, "mode"),
            (AskReason::PendingRule, "pending_rule"),
        ] {
            assert_eq!(reason.as_str(), name);
        }
    }
}
