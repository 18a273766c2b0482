//! The one agent loop: a model call, then the tool calls it asked for (each through the
//! approvals decision), then the next round, until the model answers in text, the budget runs
//! out, the same call repeats, or the run is stopped. Chat turns, task runs and subagents differ
//! only in the origin, who can be asked, and where the events go.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use futures::future::{BoxFuture, join_all};
use serde_json::{Value, json};

use super::approvals::{
    ApprovalRisk, ApprovalSettings, CallContext, Decision, HoldReason, Origin,
    ToolCall as Proposed, address_host,
};
use crate::Agent;
pub use crate::run_types::ApprovalAnswer;
use crate::tools::{ProgressUpdate, Risk, describe_call};
use sentient_llm::tokens::ContextMeter;
use sentient_llm::types::Speaker;
use sentient_llm::{CallOptions, ChatRequest, Chunk, LlmError, Message, ToolCall};

/// Progress reports from running tools, with the call they belong to.
type ProgressSender = tokio::sync::mpsc::UnboundedSender<(String, String, ProgressUpdate)>;

/// An approval question (the chat's `approval_request`).
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalQuestion {
    pub call_id: String,
    pub name: String,
    pub arguments: Value,
    pub risk: String,
    pub reason: String,
    pub risk_label: String,
    pub target: Option<String>,
    pub untrusted: Option<String>,
}

/// Who answers approval questions for this run (the chat window), if anybody.
pub trait Approver: Send + Sync {
    fn ask(&self, question: ApprovalQuestion) -> BoxFuture<'_, ApprovalAnswer>;
}

/// What the loop reports as it goes (the chat events of contract section 1).
#[derive(Debug, Clone, PartialEq)]
pub enum LoopEvent {
    ThinkingDelta(String),
    TextDelta(String),
    ToolCall {
        call_id: String,
        name: String,
        arguments: Value,
    },
    ToolResult {
        call_id: String,
        name: String,
        result: Value,
        is_error: bool,
        duration_ms: u32,
        /// False for a call that was refused or held for approval: its result is why it did not run.
        ran: bool,
    },
    ApprovalRequest(ApprovalQuestion),
    /// A steer message the model just received (`user_interjection`).
    UserInterjection(String),
    /// A running tool's progress (`tool_progress`).
    ToolProgress {
        call_id: String,
        name: String,
        update: ProgressUpdate,
    },
    Usage {
        model: String,
        prompt_tokens: u32,
        completion_tokens: u32,
        meter: ContextMeter,
    },
}

/// One run of the loop.
pub struct LoopInput<'a> {
    pub messages: Vec<Message>,
    pub opts: CallOptions,
    pub origin: Origin,
    /// The chat's window; `None` where nobody can be asked (task runs, subagents).
    pub approver: Option<&'a dyn Approver>,
    /// Scoped apps this run names (offered only when named).
    pub scoped_apps: Vec<String>,
    pub max_rounds: u32,
    /// How much of one tool result the model reads.
    pub tool_result_limit: usize,
    /// The app whose content this run (or chat) already read.
    pub untrusted: Option<String>,
    pub visited_hosts: BTreeSet<String>,
    /// Messages the person sent while the reply runs (steering), taken at each round.
    pub steering: Option<&'a dyn Steering>,
    /// The chat this run belongs to: rules proposed there and not yet answered make the tools
    /// they cover ask first (read again before every call, so an answer applies at once).
    pub session_id: Option<String>,
    /// The task run's questions, limits and pauses; `None` for chats and other runs.
    pub scope: Option<std::sync::Arc<dyn crate::tools::RunScope>>,
    /// When the loop breaker trips, tell the model once to try something else before ending
    /// (chat turns); unattended runs (tasks, swarm workers) end at once.
    pub repeat_nudge: bool,
    /// The run's browser profile, shared by its calls (a task run starts with the task's).
    pub browser_profile: crate::tools::RunBrowserProfile,
    /// The only tools this run may use, by tool name or app id (a helper given `tools`);
    /// `None` for every tool the run may be offered.
    pub tools_given: Option<Vec<String>>,
}

/// Where steer messages for a running reply wait until the next round takes them.
pub trait Steering: Send + Sync {
    fn take(&self) -> Vec<String>;
}

/// How a run of the loop ended: exactly one of these.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum LoopEnd {
    /// The model gave its final answer (`LoopResult::text`).
    #[default]
    Answered,
    /// Stop everything, the run's Cancel or shutdown ended it.
    Cancelled,
    /// The run's scope paused it after a round (a question to the person).
    Paused,
    /// A held call needs the person's OK (outside content): the question to ask, and the first
    /// such call, to run once they say yes.
    NeedsOk { question: String, call: ToolCall },
    /// The rounds ran out (`limit: None`), or a limit the scope reported before a model call
    /// (`seconds`, `tokens`, `cost_usd`).
    Budget { limit: Option<String> },
    /// The same call with the same result came back `times` times in a row
    /// (`tools.repeated_call_limit`), after the nudge where the run asked for one. `error` is the
    /// result's error when the repeated result was one.
    Repeat {
        tool: String,
        times: u32,
        error: Option<String>,
    },
    /// A model call or a decision failed; the sentence for the person.
    Failed(String),
}

/// What a run of the loop did, and how it ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoopResult {
    pub text: String,
    /// Everything the run added to the conversation, in order (assistant and tool messages).
    pub added: Vec<Message>,
    pub end: LoopEnd,
    /// Calls that were not run because nobody could approve them.
    pub held: Vec<String>,
    /// Model calls made.
    pub rounds: u32,
    pub tool_result_limit: usize,
    pub untrusted: Option<String>,
    pub visited_hosts: BTreeSet<String>,
    /// Positions in `added` of the steer messages the model received (saved as interjections).
    pub interjections: Vec<usize>,
    /// Memories that memory tools showed the model (`via: "tool"`), in the order they came.
    pub memory_sources: Vec<crate::run_types::MemorySource>,
}

impl LoopResult {
    /// The sentence for an ending that is an error: a failure, or `Stopped.` for a cancel.
    pub fn error(&self) -> Option<String> {
        match &self.end {
            LoopEnd::Failed(error) => Some(error.clone()),
            LoopEnd::Cancelled => Some(LlmError::Cancelled.to_string()),
            _ => None,
        }
    }
    pub fn cancelled(&self) -> bool {
        self.end == LoopEnd::Cancelled
    }
    pub fn stopped_by_budget(&self) -> bool {
        matches!(self.end, LoopEnd::Budget { .. })
    }
    pub fn stopped_by_repeat(&self) -> bool {
        matches!(self.end, LoopEnd::Repeat { .. })
    }
}

/// The loop breaker: the same tool with the same arguments getting the same result `limit`
/// times in a row (a different result starts the count again; a limit of 0 turns it off).
#[derive(Debug, Default)]
struct RepeatBreaker {
    limit: u32,
    /// The last call (name, arguments, result) and how many times in a row it came.
    last: Option<(String, String, String, u32)>,
}

impl RepeatBreaker {
    fn new(limit: u32) -> Self {
        Self { limit, last: None }
    }

    /// Counts one finished call; the ending when it has now repeated `limit` times.
    fn count(&mut self, call: &ToolCall, result: &str) -> Option<LoopEnd> {
        if self.limit == 0 {
            return None;
        }
        let arguments = call.arguments.to_string();
        let times = match &self.last {
            Some((name, args, res, n))
                if *name == call.name && *args == arguments && res == result =>
            {
                n + 1
            }
            _ => 1,
        };
        self.last = Some((call.name.clone(), arguments, result.to_owned(), times));
        (times >= self.limit).then(|| LoopEnd::Repeat {
            tool: call.name.clone(),
            times,
            error: serde_json::from_str::<Value>(result)
                .ok()
                .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned)),
        })
    }
}

/// The helpers' app: never offered to a helper (no nesting).
pub const SUBAGENTS_APP: &str = "subagents";

const REPEAT_NUDGE: &str = "You have made the same tool call several times with the same arguments and got the same result. Do not call it again: answer now with what you have, or say plainly what is missing.";

pub(crate) fn approval_risk(risk: Risk) -> ApprovalRisk {
    match risk {
        Risk::Read => ApprovalRisk::Read,
        Risk::Write => ApprovalRisk::Write,
        Risk::Send => ApprovalRisk::Send,
        Risk::Exec => ApprovalRisk::Exec,
    }
}

/// A call waiting to run, with what the approvals decision needs to know.
pub(crate) struct Planned {
    pub(crate) call: ToolCall,
    pub(crate) proposed: Proposed,
    pub(crate) untrusted_output: bool,
    pub(crate) display_name: String,
}

impl Agent {
    /// Runs the loop; `on_event` hears every delta, tool call, result, question and usage.
    /// Each round: check the budget, call the model ([`Agent::call_model`]), and either take
    /// its answer or run its calls ([`Agent::run_calls`]), then see whether the round ends the
    /// run (a held call, a pause, the repeat breaker).
    pub async fn run_loop(
        &self,
        mut input: LoopInput<'_>,
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) -> LoopResult {
        let apps = self.app_names();
        let (progress_tx, progress_rx) = tokio::sync::mpsc::unbounded_channel();
        let mut state = LoopState {
            result: LoopResult {
                tool_result_limit: input.tool_result_limit,
                untrusted: input.untrusted.clone(),
                visited_hosts: input.visited_hosts.clone(),
                ..Default::default()
            },
            messages: std::mem::take(&mut input.messages),
            chat_grant: None,
            progress_tx,
            progress_rx,
            needs_ok: None,
        };
        let mut breaker = RepeatBreaker::new(self.config().current().tools.repeated_call_limit);
        let mut nudged = false;

        for round in 0.. {
            if round >= input.max_rounds {
                state.result.end = LoopEnd::Budget { limit: None };
                break;
            }
            if let Some(limit) = input.scope.as_ref().and_then(|s| s.before_call()) {
                state.result.end = LoopEnd::Budget { limit: Some(limit) };
                break;
            }
            let outcome = match self.call_model(&input, &state.messages, on_event).await {
                Ok(outcome) => outcome,
                Err(end) => {
                    state.result.end = end;
                    break;
                }
            };
            state.result.rounds += 1;
            let reply = outcome.reply;
            let assistant = Message::assistant_calls(reply.text.clone(), reply.tool_calls.clone());
            let round_start = state.messages.len();
            state.messages.push(assistant.clone());
            state.result.added.push(assistant);
            if reply.tool_calls.is_empty() {
                state.result.text = reply.text;
                // A steer that came in while this answer streamed continues the same turn.
                if round + 1 < input.max_rounds && state.take_steers(input.steering, on_event) {
                    continue;
                }
                break;
            }

            let planned: Vec<Planned> = reply
                .tool_calls
                .iter()
                .map(|call| self.plan(call, &apps))
                .collect();
            if let Err(end) = self.run_calls(&planned, &input, &mut state, on_event).await {
                state.result.end = end;
                return state.result;
            }
            if let Some((question, call)) = state.needs_ok.take() {
                state.result.end = LoopEnd::NeedsOk { question, call };
                break;
            }
            if input
                .scope
                .as_ref()
                .is_some_and(|s| s.after_round(&state.messages[round_start..]))
            {
                state.result.end = LoopEnd::Paused;
                break;
            }
            state.take_steers(input.steering, on_event);
            // The breaker counts this round's calls against their results.
            let repeated = state.messages[round_start..]
                .iter()
                .filter(|m| m.role == Speaker::Tool)
                .filter_map(|m| {
                    let call = reply
                        .tool_calls
                        .iter()
                        .find(|c| Some(&c.id) == m.tool_call_id.as_ref())?;
                    breaker.count(call, &m.content)
                })
                .last();
            if let Some(end) = repeated {
                if !input.repeat_nudge || nudged {
                    state.result.end = end;
                    break;
                }
                nudged = true;
                state.messages.push(Message::user(REPEAT_NUDGE));
            }
        }
        let mut result = state.result;
        if result.text.is_empty() {
            result.text = result
                .added
                .iter()
                .rev()
                .find(|m| !m.content.is_empty() && m.tool_calls.is_empty())
                .map(|m| m.content.clone())
                .unwrap_or_default();
        }
        result
    }

    /// One model call with the tools this round may offer; its deltas go to `on_event` as they
    /// stream. A failure is the loop's ending.
    async fn call_model(
        &self,
        input: &LoopInput<'_>,
        messages: &[Message],
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) -> Result<sentient_llm::CallOutcome, LoopEnd> {
        // Rules are read again each round, so one saved mid-turn hides its tool at once.
        let settings = ApprovalSettings::from_config(&self.config().current());
        let scoped: Vec<&str> = input.scoped_apps.iter().map(String::as_str).collect();
        let request = ChatRequest {
            messages: messages.to_vec(),
            tools: self
                .offered_tools(&settings, &scoped, input.origin)
                .into_iter()
                .filter(|spec| self.not_given(&spec.name, input).is_none())
                .collect(),
            ..Default::default()
        };
        let scope = input.scope.clone();
        let mut on_chunk = |chunk: &Chunk| match chunk {
            Chunk::Text(t) => {
                if let Some(s) = &scope {
                    s.activity();
                }
                on_event(LoopEvent::TextDelta(t.clone()));
            }
            Chunk::Thinking(t) => {
                if let Some(s) = &scope {
                    s.activity();
                }
                on_event(LoopEvent::ThinkingDelta(t.clone()));
            }
            _ => {}
        };
        let outcome = match self.llm().stream(request, &input.opts, &mut on_chunk).await {
            Ok(outcome) => outcome,
            Err(LlmError::Cancelled) => return Err(LoopEnd::Cancelled),
            Err(error) => return Err(LoopEnd::Failed(error.to_string())),
        };
        if let Some(s) = &input.scope {
            s.after_call(&outcome.model, &outcome.usage);
        }
        on_event(LoopEvent::Usage {
            model: outcome.model.clone(),
            prompt_tokens: outcome.usage.prompt_tokens,
            completion_tokens: outcome.usage.completion_tokens,
            meter: outcome.meter.clone(),
        });
        Ok(outcome)
    }

    /// Runs a round's calls in order, each as the approvals decide: consecutive reads that need
    /// nobody's OK side by side, the others one at a time (asking where the person must say
    /// yes). A call that cannot be decided ends the loop (`Err`).
    async fn run_calls(
        &self,
        planned: &[Planned],
        input: &LoopInput<'_>,
        state: &mut LoopState,
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) -> Result<(), LoopEnd> {
        let mut index = 0;
        while index < planned.len() {
            // A tool this run was not given does not run (a helper's narrowed list, nesting).
            if let Some(error) = self.not_given(&planned[index].call.name, input) {
                let p = &planned[index];
                index += 1;
                on_event(LoopEvent::ToolCall {
                    call_id: p.call.id.clone(),
                    name: p.call.name.clone(),
                    arguments: p.call.arguments.clone(),
                });
                state.answer_call(p, json!({"error": error}), on_event);
                continue;
            }
            // Read right before the calls run: a rule saved or answered while an earlier
            // call waited applies to this one.
            let settings = ApprovalSettings::from_config(&self.config().current());
            let pending_rule_keys = match &input.session_id {
                Some(session_id) => self.chat_rule_keys(session_id).await,
                None => BTreeSet::new(),
            };
            let context = CallContext {
                origin: input.origin,
                can_ask: input.approver.is_some(),
                chat_grant: state.chat_grant,
                untrusted: state.result.untrusted.clone(),
                visited_hosts: state.result.visited_hosts.clone(),
                pending_rule_keys,
            };
            // Consecutive reads that need nobody's OK run side by side; results keep their order.
            let mut batch = Vec::new();
            while index < planned.len()
                && self.not_given(&planned[index].call.name, input).is_none()
                && planned[index].proposed.risk == ApprovalRisk::Read
                && settings.decide(&planned[index].proposed, &context) == Decision::Run
            {
                batch.push(&planned[index]);
                index += 1;
            }
            if !batch.is_empty() {
                for p in &batch {
                    on_event(LoopEvent::ToolCall {
                        call_id: p.call.id.clone(),
                        name: p.call.name.clone(),
                        arguments: p.call.arguments.clone(),
                    });
                }
                let mark = state.result.untrusted.clone();
                let work = join_all(
                    batch
                        .iter()
                        .map(|p| self.run_tool(p, input, mark.clone(), &state.progress_tx)),
                );
                let runs = relay_progress(work, &mut state.progress_rx, on_event).await;
                for (p, ran) in batch.iter().zip(runs) {
                    state.finish_call(p, ran, true, on_event);
                }
                continue;
            }
            let p = &planned[index];
            index += 1;
            on_event(LoopEvent::ToolCall {
                call_id: p.call.id.clone(),
                name: p.call.name.clone(),
                arguments: p.call.arguments.clone(),
            });
            match settings.decide(&p.proposed, &context) {
                Decision::Run => self.execute_call(p, input, state, on_event).await,
                Decision::Ask {
                    reason,
                    risk_label,
                    target,
                    untrusted,
                    ..
                } => {
                    let question = ApprovalQuestion {
                        call_id: p.call.id.clone(),
                        name: p.call.name.clone(),
                        arguments: p.call.arguments.clone(),
                        risk: p.proposed.risk.as_str().to_owned(),
                        reason: reason.as_str().to_owned(),
                        risk_label,
                        target,
                        untrusted,
                    };
                    on_event(LoopEvent::ApprovalRequest(question.clone()));
                    let answer = match input.approver {
                        Some(approver) => approver.ask(question).await,
                        None => ApprovalAnswer::Deny,
                    };
                    match answer {
                        ApprovalAnswer::Deny => state.answer_call(
                            p,
                            json!({"error": "The user declined this action.", "declined": true}),
                            on_event,
                        ),
                        allowed => {
                            // Read again after the wait: an app switched to Read only (or a Never
                            // rule saved) meanwhile refuses the call, whatever the answer was.
                            let now = ApprovalSettings::from_config(&self.config().current());
                            if let Decision::Refuse { result_error } =
                                now.decide(&p.proposed, &context)
                            {
                                state.answer_call(p, json!({"error": result_error}), on_event);
                                continue;
                            }
                            if allowed == ApprovalAnswer::AllowForChat {
                                state.chat_grant = state.chat_grant.max(Some(p.proposed.risk));
                            }
                            self.execute_call(p, input, state, on_event).await;
                        }
                    }
                }
                Decision::Refuse { result_error } => {
                    state.answer_call(p, json!({"error": result_error}), on_event);
                }
                Decision::Hold {
                    reason,
                    result_error,
                } => {
                    state.result.held.push(p.call.name.clone());
                    if let HoldReason::NeedsOk { question } = reason
                        && state.needs_ok.is_none()
                    {
                        state.needs_ok = Some((question, p.call.clone()));
                    }
                    state.answer_call(p, json!({"error": result_error}), on_event);
                }
                Decision::Fail { error } => return Err(LoopEnd::Failed(error)),
            }
        }
        Ok(())
    }

    /// Runs one call that may run (decided, or approved by the person) and records its result.
    async fn execute_call(
        &self,
        p: &Planned,
        input: &LoopInput<'_>,
        state: &mut LoopState,
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) {
        let work = self.run_tool(p, input, state.result.untrusted.clone(), &state.progress_tx);
        let output = relay_progress(work, &mut state.progress_rx, on_event).await;
        state.finish_call(p, output, true, on_event);
    }

    /// The tools this run may be offered under `settings`.
    fn offered_tools(
        &self,
        settings: &ApprovalSettings,
        scoped: &[&str],
        origin: Origin,
    ) -> Vec<sentient_llm::ToolSpec> {
        self.tools()
            .offered(scoped)
            .into_iter()
            .filter(|spec| {
                let plugin = self.tools().plugin_of(&spec.name).unwrap_or_default();
                let tool = self.tools().get(&spec.name);
                let risk = tool.as_ref().map_or(Risk::Read, |t| t.def().risk);
                let varies = tool.as_ref().is_some_and(|t| t.risk_varies());
                settings.is_offered(&spec.name, &plugin, approval_risk(risk), varies, origin)
            })
            .collect()
    }

    /// Why `tool` may not run in this run, if it may not: helpers never start helpers, and a
    /// helper given `tools` uses only those (by tool name or app id).
    fn not_given(&self, tool: &str, input: &LoopInput<'_>) -> Option<String> {
        let app = self.tools().plugin_of(tool).unwrap_or_default();
        if input.origin == Origin::Subagent && app == SUBAGENTS_APP {
            return Some(format!(
                "Helpers can't start other helpers, so {tool} was not done. Do this part yourself, or say in your summary what is left."
            ));
        }
        let given = input.tools_given.as_ref()?;
        (!given.iter().any(|g| g == tool || *g == app)).then(|| {
            format!(
                "{tool} isn't one of the tools this helper was given ({}), so it was not done.",
                given.join(", ")
            )
        })
    }

    /// Each app's display name by its id, for the approvals' wording.
    pub(crate) fn app_names(&self) -> BTreeMap<String, String> {
        self.tools()
            .catalog()
            .into_iter()
            .map(|p| (p.id, p.display_name))
            .collect()
    }

    /// Why a call the person already approved may not run now (a Never rule, or a Read only
    /// connection for a call above read), read from the settings as they are at this moment;
    /// `None` when it may. One-call tasks ask this right before their call.
    pub fn approved_call_refusal(&self, name: &str, arguments: &Value) -> Option<String> {
        let apps = self.app_names();
        let call = ToolCall {
            id: String::new(),
            name: name.to_owned(),
            arguments: arguments.clone(),
        };
        let planned = self.plan(&call, &apps);
        ApprovalSettings::from_config(&self.config().current()).refuses_approved(&planned.proposed)
    }

    pub(crate) fn plan(&self, call: &ToolCall, apps: &BTreeMap<String, String>) -> Planned {
        let plugin = self.tools().plugin_of(&call.name).unwrap_or_default();
        let display_name = apps.get(&plugin).cloned().unwrap_or_default();
        match self.tools().get(&call.name) {
            Some(tool) => {
                let def = tool.def();
                let (risk, description) = describe_call(tool.as_ref(), &call.arguments);
                let mut proposed =
                    Proposed::new(&call.name, &plugin, &display_name, approval_risk(risk));
                proposed.internal = def.internal;
                proposed.risk_raised = risk > def.risk;
                proposed.allow_for_chat = def.allow_for_chat;
                proposed.risk_label = description.risk_label;
                proposed.target = description.target;
                proposed.exfiltrates = tool.exfiltrates_for(&call.arguments);
                proposed.urls = tool.urls(&call.arguments);
                Planned {
                    call: call.clone(),
                    proposed,
                    untrusted_output: def.untrusted_output,
                    display_name,
                }
            }
            // An unknown tool runs through the registry, which answers with a plain error.
            None => Planned {
                call: call.clone(),
                proposed: Proposed::new(&call.name, "", "", ApprovalRisk::Read),
                untrusted_output: false,
                display_name,
            },
        }
    }

    async fn run_tool(
        &self,
        planned: &Planned,
        input: &LoopInput<'_>,
        mark: Option<String>,
        progress: &ProgressSender,
    ) -> Ran {
        let (call, approved) = (&planned.call, planned.proposed.risk);
        let scope = &input.scope;
        let app = if planned.display_name.is_empty() {
            call.name.as_str()
        } else {
            planned.display_name.as_str()
        };
        if let Some(s) = scope {
            s.call_started(app);
        }
        let mut ctx = self.tool_ctx(call.id.clone());
        ctx.cancel = input.opts.cancel.clone();
        ctx.run = scope.clone();
        ctx.origin = input.origin;
        ctx.mark = mark.filter(|m| !m.is_empty());
        ctx.session_id = input.session_id.clone();
        ctx.browser_profile = input.browser_profile.clone();
        ctx.approved_risk = Some(match approved {
            ApprovalRisk::Read => Risk::Read,
            ApprovalRisk::Write => Risk::Write,
            ApprovalRisk::Send => Risk::Send,
            ApprovalRisk::Exec => Risk::Exec,
        });
        let (sender, call_id, name) = (progress.clone(), call.id.clone(), call.name.clone());
        let watcher = scope.clone();
        ctx.progress = std::sync::Arc::new(move |update| {
            if let Some(s) = &watcher {
                s.activity();
            }
            let _ = sender.send((call_id.clone(), name.clone(), update));
        });
        let started = Instant::now();
        let outcome = self
            .tools()
            .invoke(
                &call.name,
                call.arguments.clone(),
                &ctx,
                input.tool_result_limit,
            )
            .await;
        let ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
        if let Some(s) = scope {
            s.call_ended(app);
            s.activity();
        }
        Ran {
            value: outcome.value,
            content: outcome.content,
            is_error: outcome.is_error,
            duration_ms: ms,
            memory_sources: outcome.memory_sources,
            marks_run: outcome.marks_run,
        }
    }
}

/// What running a tool gave: its result, the text the model reads, whether it failed, how
/// long it took, the memories it showed and the mark it brings.
struct Ran {
    value: Value,
    content: String,
    is_error: bool,
    duration_ms: u32,
    memory_sources: Vec<crate::run_types::MemorySource>,
    marks_run: Option<String>,
}

/// What one run of the loop keeps between its steps: the conversation so far, the result
/// being built, the chat's "allow for this chat" grant, the tools' progress channel and the
/// call a round held for the person's OK.
struct LoopState {
    messages: Vec<Message>,
    result: LoopResult,
    chat_grant: Option<ApprovalRisk>,
    progress_tx: ProgressSender,
    progress_rx: tokio::sync::mpsc::UnboundedReceiver<(String, String, ProgressUpdate)>,
    needs_ok: Option<(String, ToolCall)>,
}

impl LoopState {
    /// Records a call's result: the outside-content mark and visited hosts, the `tool_result`
    /// event and the tool message.
    fn finish_call(
        &mut self,
        p: &Planned,
        outcome: Ran,
        ran: bool,
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) {
        let Ran {
            value,
            content,
            is_error,
            duration_ms,
            memory_sources,
            marks_run,
        } = outcome;
        if !is_error {
            // Outside content marks the run; nothing the model says afterwards clears it.
            let unmarked = self.result.untrusted.as_deref().is_none_or(str::is_empty);
            if unmarked && p.untrusted_output {
                self.result.untrusted = Some(p.display_name.clone());
            } else if unmarked && marks_run.is_some() {
                self.result.untrusted = marks_run;
            }
            self.result.memory_sources.extend(memory_sources);
            for url in &p.proposed.urls {
                let host = address_host(url);
                if !host.is_empty() {
                    self.result.visited_hosts.insert(host);
                }
            }
        }
        on_event(LoopEvent::ToolResult {
            call_id: p.call.id.clone(),
            name: p.call.name.clone(),
            result: value,
            is_error,
            duration_ms,
            ran,
        });
        let message = Message::tool_result(&p.call, content);
        self.messages.push(message.clone());
        self.result.added.push(message);
    }

    /// A call that did not run: its error answer is the result the model reads.
    fn answer_call(
        &mut self,
        p: &Planned,
        value: Value,
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) {
        let ran = Ran {
            content: value.to_string(),
            value,
            is_error: true,
            duration_ms: 0,
            memory_sources: Vec::new(),
            marks_run: None,
        };
        self.finish_call(p, ran, false, on_event);
    }

    /// Gives the model the steer messages that arrived since the last round; `true` when any did.
    fn take_steers(
        &mut self,
        steering: Option<&dyn Steering>,
        on_event: &mut (dyn FnMut(LoopEvent) + Send),
    ) -> bool {
        let Some(steering) = steering else {
            return false;
        };
        let steers = steering.take();
        for text in &steers {
            on_event(LoopEvent::UserInterjection(text.clone()));
            let message = Message::user(text.clone());
            self.messages.push(message.clone());
            self.result.interjections.push(self.result.added.len());
            self.result.added.push(message);
        }
        !steers.is_empty()
    }
}

/// Awaits `work` while passing on the progress its tools report, as it happens.
async fn relay_progress<T>(
    work: impl std::future::Future<Output = T>,
    progress: &mut tokio::sync::mpsc::UnboundedReceiver<(String, String, ProgressUpdate)>,
    on_event: &mut (dyn FnMut(LoopEvent) + Send),
) -> T {
    let mut work = std::pin::pin!(work);
    let done = loop {
        tokio::select! {
            done = &mut work => break done,
            Some((call_id, name, update)) = progress.recv() => on_event(LoopEvent::ToolProgress { call_id, name, update }),
        }
    };
    while let Ok((call_id, name, update)) = progress.try_recv() {
        on_event(LoopEvent::ToolProgress {
            call_id,
            name,
            update,
        });
    }
    done
}

#[cfg(test)]
mod tests {
    use super::address_host;

    #[test]
    fn hosts_come_from_addresses() {
        assert_eq!(
            address_host("https://User@Example.com:8443/a?b#c"),
            "example.com"
        );
        assert_eq!(address_host("http://127.0.0.1/x"), "127.0.0.1");
        assert_eq!(address_host(""), "");
    }
}
