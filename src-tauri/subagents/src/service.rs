//! [`SubagentService`]: starting a helper on one goal, running it through the agent loop as
//! `Origin::Subagent` within its limits, what runs now, cancelling it, and what a background
//! helper leaves behind (a message in its chat and a notification).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use sentient_agent::Agent;
use sentient_agent::approvals::Origin;
use sentient_agent::run_loop::{LoopEnd, LoopEvent, LoopInput, LoopResult};
use sentient_agent::sessions::NewMessage;
use sentient_agent::tools::{ProgressKind, RunScope, ToolCtx};
use sentient_core::config::{SubagentRole, SubagentsConfig};
use sentient_core::domain::notification::Notifier;
use sentient_core::domain::task::{ProgressMessage, ProgressUpdate};
use sentient_core::domain::{DomainEvent, NewNotification, Subagent, SubagentStatus};
use sentient_core::store::{StoreError, new_id};
use sentient_core::sync::MutexExt;
use sentient_llm::queue::JobKind;
use sentient_llm::{CallOptions, Message, ModelRole, Usage};

use crate::store::SubagentStore;

/// What a helper is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct HelperRequest {
    pub goal: String,
    pub context: String,
    /// The only tools it may use (tool names or app ids); `None` for all it may be offered.
    pub tools: Option<Vec<String>>,
    pub background: bool,
}

/// What a finished helper reports to the chat that started it.
#[derive(Debug, Clone, PartialEq)]
pub struct HelperOutcome {
    pub helper: Subagent,
    /// Files it saved in Sentient's files folder.
    pub files_created: Vec<String>,
}

impl HelperOutcome {
    /// The tool result: `{subagent_id, status, summary, files_created}`, and `error` when it failed.
    pub fn to_value(&self) -> Value {
        let mut value = json!({
            "subagent_id": self.helper.subagent_id,
            "goal": self.helper.goal,
            "status": self.helper.status.as_str(),
            "summary": self.helper.summary.clone().unwrap_or_default(),
            "files_created": self.files_created,
        });
        if let Some(error) = &self.helper.error {
            value["error"] = json!(error);
        }
        value
    }
}

/// `POST /api/subagents/{id}/cancel` or a read found no such helper.
#[derive(Debug, thiserror::Error)]
pub enum SubagentError {
    #[error("There is no helper with the id {0}.")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<SubagentError> for sentient_core::error::ApiError {
    fn from(error: SubagentError) -> Self {
        match error {
            SubagentError::NotFound(_) => Self::not_found(error.to_string()),
            SubagentError::Store(cause) => Self::internal(&cause),
        }
    }
}

/// A running helper: how to stop it, and its log so far (for reads while it works).
struct Live {
    cancel: CancellationToken,
    events: Vec<ProgressUpdate>,
    /// Told once the helper's ending is saved (a cancel waits for it).
    saved: Arc<tokio::sync::Notify>,
}

struct Inner {
    agent: Agent,
    store: SubagentStore,
    notifier: Arc<dyn Notifier>,
    running: Mutex<BTreeMap<String, Live>>,
}

/// The helpers; cheap to clone.
#[derive(Clone)]
pub struct SubagentService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SubagentService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubagentService").finish_non_exhaustive()
    }
}

/// A helper's token and cost limits on cloud models (models on this computer don't count), and
/// the mark that it is a helper (so it can't start helpers).
#[derive(Debug)]
struct HelperScope {
    spent: sentient_llm::usage::CloudSpend,
    max_tokens: u64,
    max_cost: f64,
}

impl RunScope for HelperScope {
    fn before_call(&self) -> Option<String> {
        self.spent.limit_reached(self.max_tokens, self.max_cost)
    }

    fn after_call(&self, model: &str, usage: &Usage) {
        self.spent.add(model, usage);
    }

    fn is_helper(&self) -> bool {
        true
    }
}

/// `1000600` as `1,000,600`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

const KICKOFF: &str = "You are a helper working on one part of a bigger job for the user's chat. Work on the goal below with the tools you have. You can't send anything, run code or ask the user: if something like that is needed, say so in your summary. When you are done, answer with a short summary of what you found and did (and the files you saved, if any); that summary is all the chat will see.";

fn kickoff(goal: &str, context: &str) -> String {
    let mut text = format!("{KICKOFF}\n\nGoal: {goal}");
    if !context.trim().is_empty() {
        text.push_str(&format!(
            "\n\nWhat the chat knows that may help:\n{context}"
        ));
    }
    text
}

/// The plain sentence for a helper's ending that is not a summary; `None` when it answered.
/// `spent` is what the helper used on cloud models: (tokens, dollars).
fn ending_error(
    result: &LoopResult,
    config: &SubagentsConfig,
    spent: (u64, f64),
    timed_out: bool,
) -> Option<String> {
    if timed_out {
        return Some(format!(
            "Stopped after {} minutes without finishing.",
            config.timeout_minutes
        ));
    }
    match &result.end {
        LoopEnd::Answered if result.text.trim().is_empty() => {
            Some("Finished without a summary.".to_owned())
        }
        LoopEnd::Answered | LoopEnd::Cancelled | LoopEnd::Paused => None,
        LoopEnd::Budget { limit: None } => Some(format!(
            "Stopped after {} steps without finishing.",
            config.max_rounds
        )),
        LoopEnd::Budget { limit: Some(limit) } if limit == "cost_usd" => Some(format!(
            "Stopped after spending ${:.2} without finishing.",
            spent.1
        )),
        LoopEnd::Budget { .. } => Some(format!(
            "Stopped after using {} tokens without finishing.",
            grouped(spent.0)
        )),
        LoopEnd::Repeat { tool, .. } => Some(format!(
            "Stopped because it kept making the same {tool} call with the same result."
        )),
        LoopEnd::NeedsOk { question, .. } => Some(format!("Not done without your OK: {question}")),
        LoopEnd::Failed(error) => Some(error.clone()),
    }
}

fn short(text: &str, chars: usize) -> String {
    if text.chars().count() > chars {
        text.chars().take(chars).collect::<String>() + "…"
    } else {
        text.to_owned()
    }
}

impl SubagentService {
    pub fn new(agent: Agent, notifier: Arc<dyn Notifier>) -> Self {
        let store = SubagentStore::new(agent.store().clone());
        Self {
            inner: Arc::new(Inner {
                agent,
                store,
                notifier,
                running: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    fn settings(&self) -> SubagentsConfig {
        self.inner.agent.config().current().subagents.clone()
    }

    /// `subagents.enabled` as it is now.
    pub fn enabled(&self) -> bool {
        self.settings().enabled
    }

    /// Helpers still marked running from an earlier start end as errors.
    pub async fn settle_interrupted(&self) {
        let now = self.inner.agent.clock().now();
        match self.inner.store.settle_interrupted(now).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(helpers = n, "helpers cut off by the last close settled"),
            Err(error) => tracing::warn!(%error, "could not settle interrupted helpers"),
        }
    }

    /// One helper, with its log (the live one while it works).
    pub async fn get(&self, id: &str) -> Result<Subagent, SubagentError> {
        let mut helper = self
            .inner
            .store
            .get(id)
            .await?
            .ok_or_else(|| SubagentError::NotFound(id.to_owned()))?;
        if let Some(live) = self.inner.running.lock_unpoisoned().get(id) {
            helper.events = Some(live.events.clone());
        }
        Ok(helper)
    }

    /// A chat's helpers, newest first.
    pub async fn for_session(&self, session_id: &str) -> Result<Vec<Subagent>, SubagentError> {
        let mut helpers = self.inner.store.for_session(session_id).await?;
        let running = self.inner.running.lock_unpoisoned();
        for helper in &mut helpers {
            if let Some(live) = running.get(&helper.subagent_id) {
                helper.events = Some(live.events.clone());
            }
        }
        Ok(helpers)
    }

    /// Stops a running helper (it ends `cancelled`); a helper that already ended is returned
    /// as it is.
    pub async fn cancel(&self, id: &str) -> Result<Subagent, SubagentError> {
        let live = self
            .inner
            .running
            .lock_unpoisoned()
            .get(id)
            .map(|live| (live.cancel.clone(), live.saved.clone()));
        let Some((token, saved)) = live else {
            return self.get(id).await;
        };
        // Listening before the cancel, so the helper's "saved" can't come in between.
        let ended = saved.notified();
        tokio::pin!(ended);
        ended.as_mut().enable();
        token.cancel();
        if tokio::time::timeout(Duration::from_secs(10), ended)
            .await
            .is_err()
        {
            tracing::warn!(id, "a cancelled helper took long to save how it ended");
        }
        self.get(id).await
    }

    /// How many helpers run now.
    pub fn running(&self) -> usize {
        self.inner.running.lock_unpoisoned().len()
    }

    /// Saves a new helper as running, announces it, and gives its token: tied to the chat's
    /// reply for a foreground helper (the reply's stop ends it), its own for a background one;
    /// Stop everything ends both.
    async fn begin(
        &self,
        request: &HelperRequest,
        parent: &ToolCtx,
    ) -> Result<(Subagent, sentient_core::stop::Job), String> {
        let helper = Subagent {
            subagent_id: new_id(),
            session_id: parent.session_id.clone(),
            parent_call_id: parent.call_id.clone(),
            goal: request.goal.clone(),
            status: SubagentStatus::Running,
            background: request.background,
            summary: None,
            error: None,
            tool_calls: 0,
            started_at: self.inner.agent.clock().now(),
            finished_at: None,
            events: None,
        };
        self.inner.store.insert(&helper).await.map_err(|error| {
            tracing::warn!(%error, "a helper could not be saved");
            "The helper could not be started. Try again.".to_owned()
        })?;
        let stop = self.inner.agent.stop();
        let job = if request.background {
            stop.start_job("subagent")
        } else {
            stop.start_job_within("subagent", &parent.cancel)
        };
        self.inner.running.lock_unpoisoned().insert(
            helper.subagent_id.clone(),
            Live {
                cancel: job.token().clone(),
                events: Vec::new(),
                saved: Arc::new(tokio::sync::Notify::new()),
            },
        );
        self.publish(&helper);
        Ok((helper, job))
    }

    fn publish(&self, helper: &Subagent) {
        let mut event = helper.clone();
        event.events = None;
        self.inner
            .agent
            .bus()
            .publish(DomainEvent::SubagentUpdated(Box::new(event)));
    }

    /// Runs one helper to its end: foreground calls wait for it, background ones spawn it.
    async fn run(
        &self,
        mut helper: Subagent,
        job: sentient_core::stop::Job,
        request: HelperRequest,
        parent: ToolCtx,
    ) -> HelperOutcome {
        let config = self.settings();
        let agent = &self.inner.agent;
        let token = job.token().clone();
        let scope = Arc::new(HelperScope {
            spent: Default::default(),
            max_tokens: u64::from(config.max_tokens),
            max_cost: config.max_cost_usd,
        });
        let timed_out = Arc::new(AtomicBool::new(false));
        let timer = {
            let (token, flag) = (token.clone(), timed_out.clone());
            let limit = Duration::from_secs(u64::from(config.timeout_minutes.max(1)) * 60);
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                flag.store(true, Ordering::SeqCst);
                token.cancel();
            })
        };
        let role = match config.role {
            SubagentRole::Executor => ModelRole::Executor,
            SubagentRole::Primary => ModelRole::Primary,
            SubagentRole::Fast => ModelRole::Fast,
        };
        let job_kind = if request.background {
            JobKind::Task
        } else {
            JobKind::Chat
        };
        // Work nobody asked for stays that way in its helpers (they only look things up).
        let origin = if parent.origin.is_unprompted() {
            parent.origin
        } else {
            Origin::Subagent
        };
        let input = LoopInput {
            messages: vec![
                Message::system(agent.system_prompt()),
                Message::user(kickoff(&request.goal, &request.context)),
            ],
            opts: CallOptions::new(role, "subagent", job_kind).with_cancel(token.clone()),
            origin,
            approver: None,
            scoped_apps: Vec::new(),
            max_rounds: config.max_rounds.max(1),
            tool_result_limit: usize::try_from(agent.config().current().chat.tool_result_max_chars)
                .unwrap_or(16_000),
            untrusted: parent.mark.clone(),
            visited_hosts: BTreeSet::new(),
            steering: None,
            session_id: parent.session_id.clone(),
            scope: Some(scope.clone() as Arc<dyn RunScope>),
            repeat_nudge: false,
            browser_profile: parent.browser_profile.clone(),
            tools_given: request.tools.clone(),
        };
        let id = helper.subagent_id.clone();
        let mut calls: BTreeMap<String, Value> = BTreeMap::new();
        let mut files_created = Vec::new();
        let mut tool_calls = 0u32;
        let clock = agent.clock().clone();
        let result = agent
            .run_loop(input, &mut |event| {
                let line = match event {
                    LoopEvent::ToolCall {
                        call_id,
                        name,
                        arguments,
                    } => {
                        calls.insert(call_id, arguments.clone());
                        ProgressMessage {
                            tool_name: Some(name.clone()),
                            parameters: Some(arguments),
                            ..ProgressMessage::new("tool_call", format!("Using {name}"))
                        }
                    }
                    LoopEvent::ToolResult {
                        call_id,
                        name,
                        result,
                        is_error,
                        ran,
                        ..
                    } => {
                        if ran {
                            tool_calls += 1;
                        }
                        if ran
                            && !is_error
                            && name == "files_write"
                            && let Some(path) = calls
                                .get(&call_id)
                                .and_then(|a| a.get("path"))
                                .and_then(Value::as_str)
                        {
                            files_created.push(path.to_owned());
                        }
                        let text = match &result {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        let content = if ran {
                            format!("{name} finished")
                        } else {
                            format!("{name} was not done")
                        };
                        ProgressMessage {
                            tool_name: Some(name),
                            result: Some(short(&text, 600)),
                            is_error: Some(is_error),
                            ..ProgressMessage::new("tool_result", content)
                        }
                    }
                    _ => return,
                };
                let message = line.content.clone();
                if !request.background {
                    parent.progress_data(
                        ProgressKind::Subagent,
                        message.clone(),
                        json!({"subagent_id": id, "message": message}),
                    );
                }
                if let Some(live) = self.inner.running.lock_unpoisoned().get_mut(&id) {
                    live.events.push(ProgressUpdate {
                        timestamp: clock.now(),
                        message: line,
                    });
                }
            })
            .await;
        timer.abort();
        let timed_out = timed_out.load(Ordering::SeqCst);
        let live = self.inner.running.lock_unpoisoned().remove(&id);
        let (mut events, saved) = match live {
            Some(l) => (l.events, Some(l.saved)),
            None => (Vec::new(), None),
        };
        helper.tool_calls = tool_calls;
        helper.finished_at = Some(self.inner.agent.clock().now());
        if result.cancelled() && !timed_out {
            helper.status = SubagentStatus::Cancelled;
            helper.error = Some("Stopped.".to_owned());
        } else if let Some(error) = ending_error(
            &result,
            &config,
            (scope.spent.tokens(), scope.spent.dollars()),
            timed_out,
        ) {
            helper.status = SubagentStatus::Error;
            helper.error = Some(error);
            let partial = result.text.trim();
            if !partial.is_empty() {
                helper.summary = Some(partial.to_owned());
            }
        } else {
            helper.status = SubagentStatus::Completed;
            helper.summary = Some(result.text.trim().to_owned());
        }
        let last = match (&helper.summary, &helper.error) {
            (_, Some(error)) => ProgressMessage::new("error", error.clone()),
            (Some(summary), None) => ProgressMessage::new("final_answer", summary.clone()),
            (None, None) => ProgressMessage::new("info", "Ended."),
        };
        events.push(ProgressUpdate {
            timestamp: clock.now(),
            message: last,
        });
        drop(job);
        match self.inner.store.finish(&helper, &events).await {
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "a helper's ending could not be saved"),
        }
        self.publish(&helper);
        if let Some(saved) = saved {
            saved.notify_waiters();
        }
        if helper.background {
            self.report_background(&helper).await;
        }
        HelperOutcome {
            helper,
            files_created,
        }
    }

    /// A background helper's summary (or why it failed) joins its chat as an assistant message,
    /// and the feed gets a notification. A cancelled one leaves only its row.
    async fn report_background(&self, helper: &Subagent) {
        if helper.status == SubagentStatus::Cancelled {
            return;
        }
        let goal = short(&helper.goal, 80);
        let (title, text) = match (&helper.status, &helper.error) {
            (SubagentStatus::Completed, _) => (
                format!("A helper finished: {goal}"),
                helper.summary.clone().unwrap_or_default(),
            ),
            (_, error) => (
                format!("A helper couldn't finish: {goal}"),
                error.clone().unwrap_or_default(),
            ),
        };
        if let Some(session_id) = &helper.session_id {
            let message = NewMessage {
                role: "assistant".to_owned(),
                content: format!("**{title}**\n\n{text}"),
                ..Default::default()
            };
            if let Err(error) = self
                .inner
                .agent
                .sessions()
                .append(session_id, message)
                .await
            {
                tracing::info!(%error, "a helper's summary could not join its chat");
            }
        }
        let mut payload = Map::new();
        payload.insert("subagent_id".into(), json!(helper.subagent_id));
        payload.insert("session_id".into(), json!(helper.session_id));
        payload.insert("status".into(), json!(helper.status.as_str()));
        let kind = if helper.status == SubagentStatus::Completed {
            "info"
        } else {
            "error"
        };
        if let Err(error) = self
            .inner
            .notifier
            .notify(NewNotification {
                kind: kind.to_owned(),
                title,
                message: text,
                payload,
                task_id: None,
            })
            .await
        {
            tracing::warn!(%error, "a helper's notification could not be saved");
        }
    }

    /// `delegate_task`: a foreground helper's outcome, or a background helper's id at once.
    pub async fn delegate(
        &self,
        request: HelperRequest,
        parent: &ToolCtx,
    ) -> Result<Value, String> {
        let (helper, job) = self.begin(&request, parent).await?;
        if request.background {
            let id = helper.subagent_id.clone();
            let service = self.clone();
            // A background helper outlives the chat's reply, so its progress goes nowhere.
            let mut detached = parent.clone();
            detached.progress = Arc::new(|_| {});
            tokio::spawn(async move {
                service.run(helper, job, request, detached).await;
            });
            return Ok(json!({"subagent_id": id, "status": "running"}));
        }
        // On a task of its own: when the reply is stopped, the loop drops the call waiting
        // here, and the helper still sees its token cancelled and saves how it ended.
        let (service, parent) = (self.clone(), parent.clone());
        let run = tokio::spawn(async move { service.run(helper, job, request, parent).await });
        run.await
            .map(|outcome| outcome.to_value())
            .map_err(|error| {
                tracing::warn!(%error, "a helper's task ended early");
                "The helper stopped unexpectedly. Try again.".to_owned()
            })
    }

    /// `delegate_tasks`: every goal as a foreground helper, at most `subagents.max_concurrent`
    /// at a time; every outcome, in the goals' order.
    pub async fn delegate_many(
        &self,
        goals: Vec<(String, String)>,
        parent: &ToolCtx,
    ) -> Result<Value, String> {
        use futures::StreamExt;
        let limit = usize::try_from(self.settings().max_concurrent.max(1)).unwrap_or(1);
        let outcomes: Vec<Result<Value, String>> = futures::stream::iter(goals)
            .map(|(goal, context)| {
                let request = HelperRequest {
                    goal,
                    context,
                    tools: None,
                    background: false,
                };
                async move { self.delegate(request, parent).await }
            })
            .buffered(limit)
            .collect()
            .await;
        let results: Vec<Value> = outcomes
            .into_iter()
            .map(|o| o.unwrap_or_else(|error| json!({"status": "error", "error": error})))
            .collect();
        Ok(json!({"results": results}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_read_with_thousands_separators() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(1_000_600), "1,000,600");
    }

    fn ended(end: LoopEnd, text: &str) -> LoopResult {
        LoopResult {
            end,
            text: text.to_owned(),
            ..Default::default()
        }
    }

    #[test]
    fn each_limit_ends_a_helper_with_its_plain_sentence() {
        let config = SubagentsConfig::default();
        let cases = [
            (
                ended(LoopEnd::Budget { limit: None }, ""),
                (0, 0.0),
                false,
                "Stopped after 24 steps without finishing.",
            ),
            (
                ended(
                    LoopEnd::Budget {
                        limit: Some("tokens".into()),
                    },
                    "",
                ),
                (1_000_600, 0.0),
                false,
                "Stopped after using 1,000,600 tokens without finishing.",
            ),
            (
                ended(
                    LoopEnd::Budget {
                        limit: Some("cost_usd".into()),
                    },
                    "",
                ),
                (0, 2.03),
                false,
                "Stopped after spending $2.03 without finishing.",
            ),
            (
                ended(LoopEnd::Cancelled, ""),
                (0, 0.0),
                true,
                "Stopped after 20 minutes without finishing.",
            ),
            (
                ended(LoopEnd::Answered, "  "),
                (0, 0.0),
                false,
                "Finished without a summary.",
            ),
        ];
        for (result, spent, timed_out, sentence) in cases {
            assert_eq!(
                ending_error(&result, &config, spent, timed_out).as_deref(),
                Some(sentence)
            );
        }
        assert_eq!(
            ending_error(
                &ended(LoopEnd::Answered, "Found it."),
                &config,
                (0, 0.0),
                false
            ),
            None
        );
    }

    #[test]
    fn a_scope_counts_cloud_use_only_and_says_which_limit_ran_out() {
        let scope = HelperScope {
            spent: Default::default(),
            max_tokens: 1_000_000,
            max_cost: 2.0,
        };
        scope.after_call(
            "ollama/qwen3:8b",
            &Usage {
                prompt_tokens: 900_000,
                completion_tokens: 200_000,
                ..Default::default()
            },
        );
        assert_eq!(scope.before_call(), None, "local models don't count");
        scope.after_call(
            "openai/gpt-4o-mini",
            &Usage {
                prompt_tokens: 900_000,
                completion_tokens: 200_000,
                ..Default::default()
            },
        );
        assert_eq!(scope.before_call().as_deref(), Some("tokens"));
        assert!(scope.is_helper());
    }

    #[test]
    fn the_kickoff_carries_the_goal_and_any_context() {
        let bare = kickoff("Find the museum's hours", "  ");
        assert!(bare.ends_with("Goal: Find the museum's hours"));
        let with = kickoff("Find the hours", "They live in Pune.");
        assert!(with.contains("Goal: Find the hours"));
        assert!(with.contains("They live in Pune."));
    }
}
