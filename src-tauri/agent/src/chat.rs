//! A chat turn on the live channel: the user's message is saved, the loop runs with the chat
//! window as its approver, every delta and tool event goes to the socket in the contract's flat
//! shape (section 1), and the reply is saved. `chat.cancel`, Stop everything and approval
//! answers reach the running turn through this module.

use sentient_core::sync::MutexExt;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::approvals::Origin;
use super::compression::recent_window;
use super::run_loop::{ApprovalAnswer, ApprovalQuestion, Approver, LoopEvent, LoopInput, Steering};
use super::sessions::{MessageRow, NewMessage, StoredFunction, StoredToolCall};
use crate::Agent;
use crate::chat_events::ChatEvent;
use crate::chat_memory::{FinishedTurn, PromptMemory, merge_sources};
pub use crate::chat_state::ChatState;
use sentient_core::domain::DomainEvent;
use sentient_core::error::ApiError;
use sentient_llm::queue::JobKind;
use sentient_llm::types::Speaker;
use sentient_llm::{CallOptions, ChatRequest, Message, ModelRole, Reasoning, ToolCall};

/// `chat.send` (and `POST /api/chat`): omit `session_id` for a new chat; `attachments` are file
/// names from the files list; `client_id` is echoed on the turn's `session` event.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ChatSend {
    #[serde(default)]
    pub session_id: Option<String>,
    pub text: String,
    #[serde(default)]
    pub attachments: Vec<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
}

/// `approval.respond` (and `POST /api/approvals`): `decision` is allow, allow_session or deny.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ApprovalResponse {
    pub approval_id: String,
    /// allow, allow_session or deny (read as text, so any other word gets the same refusal on
    /// every door instead of a parse error).
    #[specta(type = ApprovalDecision)]
    pub decision: String,
}

/// The person's answer to an approval question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Allow,
    /// Allow this tool for the rest of the chat.
    AllowSession,
    Deny,
}

impl ApprovalDecision {
    /// The decision a word names; anything but allow, allow_session or deny is refused (never
    /// taken as deny, so a typo resolves nothing).
    pub fn parse(word: &str) -> Result<Self, BadApprovalDecision> {
        match word {
            "allow" => Ok(Self::Allow),
            "allow_session" => Ok(Self::AllowSession),
            "deny" => Ok(Self::Deny),
            _ => Err(BadApprovalDecision),
        }
    }
}

impl ApprovalResponse {
    /// The decision it names; see [`ApprovalDecision::parse`].
    pub fn decision(&self) -> Result<ApprovalDecision, BadApprovalDecision> {
        ApprovalDecision::parse(&self.decision)
    }
}

/// An approval answer with a word that is not a decision (400 on every door, and `/ws` says the
/// same sentence as an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("decision is allow, allow_session or deny.")]
pub struct BadApprovalDecision;

impl From<BadApprovalDecision> for ApiError {
    fn from(err: BadApprovalDecision) -> Self {
        ApiError::bad_request(err.to_string())
    }
}

/// Whether an approval answer reached a waiting question (`false`: nothing waits on that id).
#[derive(Debug, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Resolved {
    pub resolved: bool,
}

/// The chat's last question, answered again by Regenerate: its row and its seq.
#[derive(Debug, Clone)]
pub(crate) struct Again {
    pub(crate) question: MessageRow,
    pub(crate) seq: i64,
}

/// What Stop everything says to a message that was waiting behind a reply (section 17).
const DROPPED: &str = "Stopped. Your queued message wasn't sent.";

/// The steer queue of one chat, as the loop sees it.
struct ChatSteering {
    state: Arc<ChatState>,
    session_id: String,
}

impl Steering for ChatSteering {
    fn take(&self) -> Vec<String> {
        self.state
            .steers
            .lock_unpoisoned()
            .remove(&self.session_id)
            .unwrap_or_default()
    }
}

use sentient_core::store::new_id;

/// The chat window as the loop's approver: questions go out on the socket, answers come back
/// through `approval.respond`.
struct WindowApprover {
    state: Arc<ChatState>,
    out: mpsc::UnboundedSender<ChatEvent>,
    session_id: String,
    turn_id: String,
    cancel: CancellationToken,
}

impl Approver for WindowApprover {
    fn ask(&self, q: ApprovalQuestion) -> BoxFuture<'_, ApprovalAnswer> {
        Box::pin(async move {
            let approval_id = new_id();
            let rx = self.state.await_answer(&approval_id);
            let _ = self.out.send(ChatEvent::ApprovalRequest {
                session_id: self.session_id.clone(),
                turn_id: self.turn_id.clone(),
                approval_id: approval_id.clone(),
                call_id: q.call_id,
                name: q.name,
                arguments: q.arguments,
                risk: q.risk,
                reason: q.reason,
                risk_label: Some(q.risk_label),
                target: q.target,
                untrusted: q.untrusted,
            });
            let answer = tokio::select! {
                answer = rx => answer.unwrap_or(ApprovalAnswer::Deny),
                () = self.cancel.cancelled() => ApprovalAnswer::Deny,
            };
            self.state.forget_question(&approval_id);
            answer
        })
    }
}

/// A stored row back into a model message.
fn to_message(row: &MessageRow) -> Message {
    match row.role.as_str() {
        "assistant" => Message::assistant_calls(
            row.content.clone(),
            row.tool_calls
                .iter()
                .map(|c| ToolCall {
                    id: c.id.clone(),
                    name: c.function.name.clone(),
                    arguments: serde_json::from_str(&c.function.arguments)
                        .unwrap_or(Value::String(c.function.arguments.clone())),
                })
                .collect(),
        ),
        "tool" => {
            let call = ToolCall {
                id: row.tool_call_id.clone().unwrap_or_default(),
                name: row.name.clone().unwrap_or_default(),
                arguments: Value::Null,
            };
            Message::tool_result(&call, row.content.clone())
        }
        _ => Message::user(row.content.clone()),
    }
}

/// The last tool result a turn read, cut to a review note's snippet length: its readable text
/// (`content` or `text` of a JSON result, as web_fetch answers) rather than the JSON.
fn last_tool_result(added: &[Message]) -> Option<String> {
    let last = added
        .iter()
        .rev()
        .find(|m| m.role == sentient_llm::types::Speaker::Tool)?;
    let readable = serde_json::from_str::<Value>(&last.content)
        .ok()
        .and_then(|v| {
            ["content", "text"]
                .iter()
                .find_map(|k| v.get(k).and_then(Value::as_str).map(str::to_owned))
        })
        .unwrap_or_else(|| last.content.clone());
    Some(readable.trim().chars().take(400).collect())
}

/// How many tool calls a turn's added messages ran, and how many of their results were errors.
fn tool_counts(added: &[Message]) -> (u32, u32) {
    let results = added.iter().filter(|m| m.role == Speaker::Tool);
    let (mut calls, mut errors) = (0u32, 0u32);
    for m in results {
        calls += 1;
        let failed = serde_json::from_str::<Value>(&m.content)
            .ok()
            .is_some_and(|v| v.get("error").is_some());
        errors += u32::from(failed);
    }
    (calls, errors)
}

fn stored_message(message: &Message, thinking: Option<String>) -> NewMessage {
    use sentient_llm::types::Speaker;
    NewMessage {
        role: match message.role {
            Speaker::Tool => "tool",
            Speaker::User | Speaker::System => "user",
            Speaker::Assistant => "assistant",
        }
        .to_owned(),
        content: message.content.clone(),
        thinking,
        tool_calls: message
            .tool_calls
            .iter()
            .map(|c| StoredToolCall {
                id: c.id.clone(),
                kind: "function".to_owned(),
                function: StoredFunction {
                    name: c.name.clone(),
                    arguments: c.arguments.to_string(),
                },
            })
            .collect(),
        tool_call_id: message.tool_call_id.clone(),
        name: message.name.clone(),
        ..Default::default()
    }
}

impl Agent {
    /// Answers a waiting approval question (every door's `approval.respond`); a word that is
    /// not a decision is refused and resolves nothing.
    pub fn respond_to_approval(
        &self,
        response: &ApprovalResponse,
    ) -> Result<Resolved, BadApprovalDecision> {
        let decision = response.decision()?;
        Ok(Resolved {
            resolved: self.resolve_approval(&response.approval_id, decision),
        })
    }

    /// Answers a waiting approval question; `false` when there is none with that id.
    pub fn resolve_approval(&self, approval_id: &str, decision: ApprovalDecision) -> bool {
        let answer = match decision {
            ApprovalDecision::Allow => ApprovalAnswer::Allow,
            ApprovalDecision::AllowSession => ApprovalAnswer::AllowForChat,
            ApprovalDecision::Deny => ApprovalAnswer::Deny,
        };
        let waiting = self
            .chat_state()
            .approvals
            .lock_unpoisoned()
            .remove(approval_id);
        waiting.is_some_and(|tx| tx.send(answer).is_ok())
    }

    /// Queues `text` for the reply running in a chat; `false` when none is running.
    pub fn steer_chat(&self, session_id: &str, text: &str) -> bool {
        let state = self.chat_state();
        let running = state.running.lock_unpoisoned().contains_key(session_id);
        if running {
            state
                .steers
                .lock_unpoisoned()
                .entry(session_id.to_owned())
                .or_default()
                .push(text.to_owned());
        }
        running
    }

    /// Stops the reply running in a chat; `false` when none is.
    pub fn cancel_chat(&self, session_id: &str) -> bool {
        let running = self
            .chat_state()
            .running
            .lock_unpoisoned()
            .get(session_id)
            .cloned();
        running.map(|token| token.cancel()).is_some()
    }

    /// Runs a chat turn, sending its events to `out`. A turn for a chat whose reply is running
    /// waits for it (Stop everything drops it unsent). Steers that arrive after its last round
    /// become the next turn, run here one after the other.
    pub async fn chat_turn(&self, mut send: ChatSend, out: mpsc::UnboundedSender<ChatEvent>) {
        if send.text.trim().is_empty() {
            let _ = out.send(ChatEvent::error(
                &send.session_id.clone().unwrap_or_default(),
                &new_id(),
                "Type a message first.",
            ));
            return;
        }
        // A new chat is made here, before its lock, so no second turn can slip in first.
        if send.session_id.is_none() {
            match self.sessions().create("desktop").await {
                Ok(session) => send.session_id = Some(session.id),
                Err(e) => {
                    let _ = out.send(ChatEvent::error(
                        "",
                        &new_id(),
                        sentient_core::error::ApiError::from(e).message(),
                    ));
                    return;
                }
            }
        }
        let sid = send.session_id.clone().unwrap_or_default();
        let Some(_turn) = self.wait_for_turn(&sid, &send, &out).await else {
            return;
        };
        loop {
            let late = self.one_turn(send.clone(), None, out.clone()).await;
            if late.is_empty() {
                break;
            }
            send = ChatSend {
                text: late.join("\n"),
                attachments: Vec::new(),
                client_id: None,
                ..send
            };
        }
    }

    /// Takes the chat's turn lock, waiting behind a running reply. `None` when Stop everything
    /// (or shutdown) came first: the message is dropped, and the client hears so.
    async fn wait_for_turn(
        &self,
        sid: &str,
        send: &ChatSend,
        out: &mpsc::UnboundedSender<ChatEvent>,
    ) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let lock = self
            .chat_state()
            .turns
            .lock_unpoisoned()
            .entry(sid.to_owned())
            .or_default()
            .clone();
        if let Ok(guard) = lock.clone().try_lock_owned() {
            return Some(guard);
        }
        let job = self.stop().start_job("queued chat message");
        // A stop frees the lock and cancels this wait at once: the stop wins.
        let guard = tokio::select! {
            biased;
            () = job.token().cancelled() => None,
            guard = lock.lock_owned() => Some(guard),
        };
        match guard.filter(|_| !job.token().is_cancelled()) {
            Some(guard) => Some(guard),
            None => {
                let turn_id = new_id();
                let _ = out.send(ChatEvent::Error {
                    session_id: sid.to_owned(),
                    turn_id: turn_id.clone(),
                    message: DROPPED.to_owned(),
                    recoverable: true,
                    dropped: Some(true),
                    client_id: Some(send.client_id.clone()),
                });
                let _ = out.send(ChatEvent::Done {
                    session_id: sid.to_owned(),
                    turn_id,
                    content: String::new(),
                    message_id: None,
                    memory_sources: Vec::new(),
                    cancelled: Some(true),
                    dropped: Some(vec![send.text.clone()]),
                    client_id: Some(send.client_id.clone()),
                    versions: None,
                    version_index: None,
                });
                None
            }
        }
    }

    /// One turn; returns the steer messages that came too late for it. With `again` it is a new
    /// answer to the chat's last question (Regenerate): the question is not saved again, the
    /// model reads the chat as it was before that question, and the answer it replaces is kept
    /// as an earlier version.
    pub(crate) async fn one_turn(
        &self,
        send: ChatSend,
        again: Option<&Again>,
        out: mpsc::UnboundedSender<ChatEvent>,
    ) -> Vec<String> {
        let turn_id = new_id();
        let error = |session: &str, message: String| {
            let _ = out.send(ChatEvent::error(session, &turn_id, message));
        };
        let session = self
            .sessions()
            .get(send.session_id.as_deref().unwrap_or_default())
            .await;
        let session = match session {
            Ok(s) => s,
            Err(e) => {
                error(
                    send.session_id.as_deref().unwrap_or_default(),
                    sentient_core::error::ApiError::from(e).message(),
                );
                return Vec::new();
            }
        };
        let sid = session.id.clone();
        let _ = out.send(ChatEvent::Session {
            session_id: sid.clone(),
            turn_id: turn_id.clone(),
            client_id: send.client_id.clone(),
        });

        // The running summary stands in for older messages; the recent ones go word for word.
        let (summary, upto) = self.sessions().summary(&sid).await.unwrap_or_default();
        let after = self
            .sessions()
            .messages_after(&sid, upto)
            .await
            .unwrap_or_default();
        let config = self.config().current();
        // Failed turns are shown to the person, never to the model; a new answer to the last
        // question reads only what came before it.
        let after: Vec<(i64, MessageRow)> = after
            .into_iter()
            .filter(|(seq, row)| row.error.is_none() && again.is_none_or(|a| *seq < a.seq))
            .collect();
        let window = usize::try_from(config.chat.history_window).unwrap_or(30);
        let history: Vec<MessageRow> = recent_window(&after, window)
            .iter()
            .map(|(_, row)| row.clone())
            .collect();
        // The rows of this answer name the question they answer once it has versions.
        let mut answer_to = None;
        if let Some(again) = again {
            match self
                .sessions()
                .retire_answer(&sid, &again.question.id, again.seq)
                .await
            {
                Ok(tag) => answer_to = tag,
                Err(e) => {
                    error(&sid, sentient_core::error::ApiError::from(e).message());
                    return Vec::new();
                }
            }
        } else {
            let user = NewMessage {
                role: "user".to_owned(),
                content: send.text.clone(),
                attachments: send.attachments.clone(),
                ..Default::default()
            };
            let user_row = match self.sessions().append(&sid, user).await {
                Ok(row) => row,
                Err(e) => {
                    error(&sid, sentient_core::error::ApiError::from(e).message());
                    return Vec::new();
                }
            };
            // A standing "never"/"ask me first" becomes a rule proposal before the reply (#130).
            self.check_chat_rules(&sid, &user_row.id, &send.text).await;
        }
        let mut system = self.system_prompt();
        let remembered = match self.chat_memory() {
            Some(memory) => memory.for_prompt(&send.text).await,
            None => PromptMemory::default(),
        };
        if !remembered.section.is_empty() {
            system.push_str("\n\n");
            system.push_str(&remembered.section);
        }
        if !summary.trim().is_empty() {
            system.push_str("\n\n## Earlier in this chat\n");
            system.push_str(summary.trim());
        }
        let mut messages = vec![Message::system(system)];
        messages.extend(history.iter().map(to_message));
        messages.push(Message::user(send.text.clone()));

        let cancel = CancellationToken::new();
        let job = self.stop().start_job_within("chat reply", &cancel);
        self.chat_state()
            .running
            .lock_unpoisoned()
            .insert(sid.clone(), job.token().clone());
        let approver = WindowApprover {
            state: self.chat_state(),
            out: out.clone(),
            session_id: sid.clone(),
            turn_id: turn_id.clone(),
            cancel: job.token().clone(),
        };
        let steering = ChatSteering {
            state: self.chat_state(),
            session_id: sid.clone(),
        };
        let input = LoopInput {
            messages,
            opts: CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat)
                .with_model(send.model.clone())
                .with_cancel(job.token().clone()),
            origin: Origin::Chat,
            approver: Some(&approver),
            scoped_apps: Vec::new(),
            max_rounds: config.models.max_tool_rounds.max(1),
            tool_result_limit: usize::try_from(config.chat.tool_result_max_chars).unwrap_or(16_000),
            untrusted: session.untrusted.clone().filter(|u| !u.is_empty()),
            visited_hosts: session
                .visited_hosts
                .clone()
                .unwrap_or_default()
                .into_iter()
                .collect(),
            steering: Some(&steering),
            session_id: Some(sid.clone()),
            scope: None,
            repeat_nudge: true,
            browser_profile: Default::default(),
            tools_given: None,
        };
        let mut partial = String::new();
        let mut thinking = String::new();
        let result = self
            .run_loop(input, &mut |event| {
                // The reply so far: what a stopped reply keeps, and the thinking saved with it.
                match &event {
                    LoopEvent::TextDelta(text) => partial.push_str(text),
                    LoopEvent::ThinkingDelta(text) => thinking.push_str(text),
                    LoopEvent::ToolCall { .. } | LoopEvent::UserInterjection(_) => partial.clear(),
                    _ => {}
                }
                if let Some(chat_event) = ChatEvent::from_loop(&sid, &turn_id, event) {
                    let _ = out.send(chat_event);
                }
            })
            .await;
        self.chat_state().running.lock_unpoisoned().remove(&sid);
        drop(job);

        // What the reply had in mind: the prompt's facts, then what memory tools showed it.
        let remembered_now = merge_sources(remembered.sources, result.memory_sources.clone());
        let sources: Vec<serde_json::Value> = remembered_now
            .iter()
            .filter_map(|s| serde_json::to_value(s).ok())
            .collect();
        // Save what the run added; a stopped reply keeps what was already written.
        let mut message_id = None;
        let count = result.added.len();
        for (i, message) in result.added.iter().enumerate() {
            let thought = (i + 1 == count && !thinking.is_empty()).then(|| thinking.clone());
            let mut stored = stored_message(message, thought);
            stored.interjection = result.interjections.contains(&i);
            stored.answer_to.clone_from(&answer_to);
            // The reply's last message carries what it had in mind.
            if i + 1 == count && stored.role == "assistant" {
                stored.memory_sources = sources.clone();
            }
            let steer = stored.interjection;
            match self.sessions().append(&sid, stored).await {
                Ok(row) if row.role == "assistant" => message_id = Some(row.id),
                // Steers are checked for standing rules once saved (so a proposal names its
                // row), in the background so `done` is not held up.
                Ok(row) if steer => {
                    let (engine, sid) = (self.clone(), sid.clone());
                    tokio::spawn(async move {
                        engine.check_chat_rules(&sid, &row.id, &row.content).await;
                    });
                }
                _ => {}
            }
        }
        let mut content = result.text.clone();
        if result.cancelled() {
            content = format!("{} (stopped)", partial.trim_end())
                .trim_start()
                .to_owned();
            if let Ok(row) = self
                .sessions()
                .append(
                    &sid,
                    NewMessage {
                        role: "assistant".to_owned(),
                        content: content.clone(),
                        memory_sources: sources.clone(),
                        answer_to: answer_to.clone(),
                        ..Default::default()
                    },
                )
                .await
            {
                message_id = Some(row.id);
            }
        } else if let Some(message) = result.error() {
            // Saved with the chat, so a reopened chat still shows it with Try again.
            let failed = NewMessage {
                role: "assistant".to_owned(),
                error: Some(message.clone()),
                answer_to: answer_to.clone(),
                ..Default::default()
            };
            if let Ok(row) = self.sessions().append(&sid, failed).await {
                message_id = Some(row.id);
            }
            error(&sid, message);
        }
        match &result.untrusted {
            Some(app) => {
                let _ = self.sessions().mark_untrusted(&sid, app).await;
            }
            None => {
                let _ = self.sessions().mark_clean(&sid).await;
            }
        }
        for host in &result.visited_hosts {
            let _ = self.sessions().add_visited_host(&sid, host).await;
        }
        // Steers that arrived after the last round become the next turn; a stopped reply
        // never sends them.
        let late = steering.take();
        let (versions, version_index) = match &answer_to {
            Some((question, _)) => match self.sessions().versions_of(&sid, question).await {
                Ok((list, index)) => (Some(list), Some(index)),
                Err(_) => (None, None),
            },
            None => (None, None),
        };
        let _ = out.send(ChatEvent::Done {
            session_id: sid.clone(),
            turn_id: turn_id.clone(),
            content: content.clone(),
            message_id,
            memory_sources: remembered_now,
            cancelled: result.cancelled().then_some(true),
            dropped: (result.cancelled() && !late.is_empty()).then(|| late.clone()),
            client_id: None,
            versions,
            version_index,
        });
        if result.cancelled() {
            return Vec::new();
        }
        let (tool_calls, tool_errors) = tool_counts(&result.added);
        self.bus().publish(DomainEvent::ChatTurnCompleted {
            session_id: sid.clone(),
            turn_id: turn_id.clone(),
            tool_calls,
            tool_errors,
            skills_viewed: Vec::new(),
            user_text: send.text.clone(),
            reply: content.clone(),
        });
        // A question answered again was already read for memories the first time.
        if let Some(memory) = self.chat_memory().filter(|_| again.is_none()) {
            memory.after_turn(FinishedTurn {
                session_id: sid.clone(),
                user_text: send.text.clone(),
                untrusted: result
                    .untrusted
                    .clone()
                    .or_else(|| session.untrusted.clone())
                    .filter(|u| !u.is_empty()),
                outside_snippet: last_tool_result(&result.added),
            });
        }
        if result.error().is_none() {
            let engine = self.clone();
            let named = !session.title.is_empty() || !config.chat.auto_title;
            // Decided now, on this turn's messages, so a later turn never finds it half-done.
            let compress = self.chat_needs_compression(&sid).await;
            let (question, answer) = (send.text, content);
            tokio::spawn(async move {
                if !named {
                    engine.name_chat(&sid, &question, &answer).await;
                }
                if compress && let Err(error) = engine.compress_chat(&sid).await {
                    tracing::info!(%error, "the chat could not be summarized this time");
                }
            });
        }
        late
    }

    /// Gives a new chat a short title from its first exchange (the fast role), announced as
    /// `session.updated`. A failure leaves the chat untitled; the window shows its first words.
    async fn name_chat(&self, session_id: &str, question: &str, answer: &str) {
        let excerpt = |text: &str| text.chars().take(600).collect::<String>();
        let request = ChatRequest {
            messages: vec![
                Message::system(
                    "You name chats. Reply with a title of at most six words for the conversation below, and nothing else: no quotes, no full stop.",
                ),
                Message::user(format!(
                    "User: {}\n\nAssistant: {}",
                    excerpt(question),
                    excerpt(answer)
                )),
            ],
            max_tokens: Some(24),
            reasoning: Some(Reasoning::None),
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Fast, "titles", JobKind::Titles);
        match self.llm().complete(request, &opts).await {
            Ok(outcome) => {
                let title: String = outcome
                    .reply
                    .text
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default()
                    .trim()
                    .trim_matches(['"', '\'', '.', '*'])
                    .chars()
                    .take(80)
                    .collect();
                if !title.is_empty()
                    && let Err(error) = self.sessions().rename(session_id, &title).await
                {
                    tracing::warn!(%error, "could not save the chat's title");
                }
            }
            Err(error) => tracing::info!(%error, "no title for the chat this time"),
        }
    }
}
