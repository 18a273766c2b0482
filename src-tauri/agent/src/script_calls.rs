//! Tool calls a script makes (contract section 11). Each call is planned and decided like one
//! the loop makes, as a run nobody can be asked in, with the settings read again at that moment:
//! a rule saved or an app switched to Read only while a script runs applies to its next call.
//! The sandbox's bridge is the only caller; nothing here knows processes or HTTP.

use sentient_core::sync::MutexExt;
use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use sentient_core::config::{ApprovalMode, RuleValue};
use sentient_llm::ToolCall;

use crate::Agent;
use crate::approvals::{
    ApprovalRisk, ApprovalSettings, CallContext, Decision, Origin, address_host,
};
use crate::run_loop::approval_risk;

/// Apps no script may use, in any approvals mode: a script can't start another script, a
/// subagent, speech or a shell command.
pub const SCRIPT_BLOCKED_APPS: &[&str] = &["code", "subagents", "voice", "terminal"];

/// What one script run may call, on top of the approvals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptPolicy {
    /// Only calls of effective risk read run (`POST /api/sandbox/run`, script jobs).
    pub read_only: bool,
    /// Tool names or app ids the script may call; `None` is every tool the approvals allow.
    pub allowed_tools: Option<Vec<String>>,
}

impl ScriptPolicy {
    fn allows(&self, name: &str, plugin: &str) -> bool {
        self.allowed_tools.as_ref().is_none_or(|keys| {
            keys.iter()
                .any(|k| k == name || (!plugin.is_empty() && k == plugin))
        })
    }
}

/// How one call from a script ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptCallOutcome {
    /// The tool ran; its JSON result (which may itself hold an `error`).
    Ran(Value),
    /// It did not run; the sentence says why (the script gets `ToolRefused`).
    Refused(String),
    /// It ran and failed; the sentence is the tool's error (the script gets `ToolError`).
    Failed(String),
}

impl ScriptCallOutcome {
    /// Whether the tool ran (a failure ran too); refused calls don't count against the limit.
    pub fn ran(&self) -> bool {
        !matches!(self, Self::Refused(_))
    }
}

/// One script run as its calls see it: the chat it belongs to, its token, and the outside
/// content read so far (the calling run's mark, then what the script's own reads brought in),
/// so a script can't read a page and then send it on where a chat would have asked.
#[derive(Debug)]
pub struct ScriptRun {
    pub session_id: Option<String>,
    pub cancel: CancellationToken,
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    mark: Option<String>,
    hosts: BTreeSet<String>,
}

impl ScriptRun {
    pub fn new(
        session_id: Option<String>,
        cancel: CancellationToken,
        mark: Option<String>,
    ) -> Self {
        Self {
            session_id,
            cancel,
            seen: Mutex::new(Seen {
                mark: mark.filter(|m| !m.is_empty()),
                hosts: BTreeSet::new(),
            }),
        }
    }

    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.seen.lock_unpoisoned()
    }
}

/// Whether a tool of this declared risk can run from a script at all (before rules and apps).
fn script_may_run(risk: ApprovalRisk, internal: bool, mode: ApprovalMode, read_only: bool) -> bool {
    risk == ApprovalRisk::Read
        || (!read_only && (mode == ApprovalMode::Off || (risk == ApprovalRisk::Write && internal)))
}

impl Agent {
    /// Runs one tool call a script made: the script policy, then the approvals decision as a
    /// script (read from the settings now), then the tool through the registry with a
    /// script's context. The whole result comes back, never cut.
    pub async fn run_script_call(
        &self,
        run: &ScriptRun,
        policy: &ScriptPolicy,
        name: &str,
        arguments: Value,
    ) -> ScriptCallOutcome {
        if self.tools().get(name).is_none() {
            return ScriptCallOutcome::Failed(format!(
                "There is no tool called {name}. tools.available() lists the tools a script can use."
            ));
        }
        let plugin = self.tools().plugin_of(name).unwrap_or_default();
        if SCRIPT_BLOCKED_APPS.contains(&plugin.as_str()) {
            return ScriptCallOutcome::Refused(format!(
                "{name} can't be used inside a script. Call it directly instead."
            ));
        }
        if !policy.allows(name, &plugin) {
            return ScriptCallOutcome::Refused(format!(
                "This script may not use {name}, so it was not done."
            ));
        }
        let call = ToolCall {
            id: format!("script-{}", hex::encode(rand::random::<[u8; 6]>())),
            name: name.to_owned(),
            arguments,
        };
        let planned = self.plan(&call, &self.app_names());
        // Read at this call, never cached for the run: a switch made meanwhile applies now.
        let settings = ApprovalSettings::from_config(&self.config().current());
        let pending_rule_keys = match &run.session_id {
            Some(session_id) => self.chat_rule_keys(session_id).await,
            None => BTreeSet::new(),
        };
        let (untrusted, visited_hosts) = {
            let seen = run.seen();
            (seen.mark.clone(), seen.hosts.clone())
        };
        let context = CallContext {
            origin: Origin::Script,
            can_ask: false,
            chat_grant: None,
            untrusted: untrusted.clone(),
            visited_hosts,
            pending_rule_keys,
        };
        match settings.decide(&planned.proposed, &context) {
            Decision::Run => {}
            Decision::Refuse { result_error } | Decision::Hold { result_error, .. } => {
                return ScriptCallOutcome::Refused(result_error);
            }
            Decision::Fail { error } => return ScriptCallOutcome::Refused(error),
            // Nobody can answer inside a script (`can_ask` is false), so this is not reached.
            Decision::Ask { .. } => {
                return ScriptCallOutcome::Refused(format!(
                    "Scripts can't ask the user, so {name} was not done. Call it directly instead."
                ));
            }
        }
        if policy.read_only && planned.proposed.risk > ApprovalRisk::Read {
            return ScriptCallOutcome::Refused(format!(
                "This script may only look things up, so {name} was not done."
            ));
        }

        let mut ctx = self.tool_ctx(call.id.clone());
        ctx.cancel = run.cancel.clone();
        ctx.origin = Origin::Script;
        ctx.mark = untrusted;
        ctx.session_id = run.session_id.clone();
        let outcome = self
            .tools()
            .invoke(name, call.arguments.clone(), &ctx, usize::MAX)
            .await;
        if outcome.is_error {
            let error = outcome
                .value
                .get("error")
                .and_then(Value::as_str)
                .map_or_else(|| outcome.value.to_string(), str::to_owned);
            return ScriptCallOutcome::Failed(error);
        }
        let mut seen = run.seen();
        if seen.mark.is_none() {
            if planned.untrusted_output && !planned.display_name.is_empty() {
                seen.mark = Some(planned.display_name.clone());
            } else if let Some(app) = outcome.marks_run.filter(|a| !a.is_empty()) {
                seen.mark = Some(app);
            }
        }
        for url in &planned.proposed.urls {
            let host = address_host(url);
            if !host.is_empty() {
                seen.hosts.insert(host);
            }
        }
        ScriptCallOutcome::Ran(outcome.value)
    }

    /// The tools a script may call now (`tools.available()`): those offered to a script, minus
    /// Never rules and Read only apps' changes (hidden), Ask rules, the apps scripts can't use,
    /// tools outside the run's list, and tools whose declared risk a script can't run.
    pub fn script_tool_names(&self, policy: &ScriptPolicy) -> Vec<String> {
        let settings = ApprovalSettings::from_config(&self.config().current());
        self.tools()
            .offered(&[])
            .into_iter()
            .filter_map(|spec| {
                let tool = self.tools().get(&spec.name)?;
                let plugin = self.tools().plugin_of(&spec.name).unwrap_or_default();
                let def = tool.def();
                let risk = approval_risk(def.risk);
                let varies = tool.risk_varies();
                let callable = !SCRIPT_BLOCKED_APPS.contains(&plugin.as_str())
                    && policy.allows(&spec.name, &plugin)
                    && settings.is_offered(&spec.name, &plugin, risk, varies, Origin::Script)
                    && settings.rule_for(&spec.name, &plugin) != Some(RuleValue::Ask)
                    // A tool whose risk depends on its arguments may still run a look-up.
                    && (varies
                        || script_may_run(risk, def.internal, settings.mode, policy.read_only));
                callable.then_some(spec.name)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_run_reads_and_own_changes_unless_the_mode_is_off() {
        use ApprovalMode::{Ask, Off};
        use ApprovalRisk::{Exec, Read, Send, Write};
        assert!(script_may_run(Read, false, Ask, true));
        assert!(script_may_run(Write, true, Ask, false));
        assert!(
            !script_may_run(Write, true, Ask, true),
            "read only: reads only"
        );
        assert!(!script_may_run(Write, false, Ask, false));
        assert!(!script_may_run(Send, true, Ask, false));
        assert!(script_may_run(Exec, false, Off, false));
        assert!(!script_may_run(Exec, false, Off, true));
    }

    #[test]
    fn a_run_list_names_tools_or_apps() {
        let every = ScriptPolicy::default();
        assert!(every.allows("github_create_issue", "github"));
        let list = ScriptPolicy {
            read_only: false,
            allowed_tools: Some(vec!["time_now".to_owned(), "github".to_owned()]),
        };
        assert!(list.allows("time_now", "time"));
        assert!(list.allows("github_search_issues", "github"));
        assert!(!list.allows("files_read", "files"));
        assert!(!list.allows("files_read", ""));
        let outcome = ScriptCallOutcome::Refused("no".to_owned());
        assert!(!outcome.ran());
        assert!(ScriptCallOutcome::Failed("broke".to_owned()).ran());
    }
}
