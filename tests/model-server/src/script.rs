//! The script: the replies the scripted model gives, one per chat request, in order, and the
//! pacing machinery that streams a rendered reply (chunk delays, stalls, noticing that the
//! client went away). Replies are format-neutral; `ollama`, `openai` and `anthropic` render
//! them into each provider's wire format.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::record::Log;

/// One scripted answer to one chat request (`/api/chat`, `/v1/chat/completions` or
/// `/v1/messages`), whichever of them the client calls.
///
/// Build it from a constructor and chain the rest:
/// `Reply::thinking("Let me see").then_text("It is 12°C").usage(120, 8)`.
#[derive(Clone, Debug)]
pub struct Reply {
    pub(crate) kind: Kind,
    pub(crate) usage: Option<Usage>,
    pub(crate) chunk_delay: Duration,
    pub(crate) stall_after: Option<usize>,
    pub(crate) truncated: bool,
}

#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Content(Vec<Part>),
    Error(ErrorReply),
}

/// A piece of an answer, in the order the model "produces" it.
#[derive(Clone, Debug)]
pub(crate) enum Part {
    Thinking(String),
    Text(String),
    ToolCall { name: String, arguments: Value },
}

/// Token counts a reply reports; see [`Reply::usage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

impl Reply {
    fn content(parts: Vec<Part>) -> Self {
        Self {
            kind: Kind::Content(parts),
            usage: None,
            chunk_delay: Duration::ZERO,
            stall_after: None,
            truncated: false,
        }
    }

    /// Plain assistant text, streamed word by word.
    pub fn text(text: impl Into<String>) -> Self {
        Self::content(vec![Part::Text(text.into())])
    }

    /// Reasoning text (Ollama `message.thinking`, OpenAI-compatible `delta.reasoning_content`,
    /// Anthropic `thinking` block); chain [`Reply::then_text`] for the answer.
    pub fn thinking(text: impl Into<String>) -> Self {
        Self::content(vec![Part::Thinking(text.into())])
    }

    /// One tool call. Formats that stream arguments (OpenAI, Anthropic) send the arguments'
    /// JSON text in small fragments; Ollama sends the complete call with an object.
    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Self::content(Vec::new()).then_tool_call(name, arguments)
    }

    /// Several tool calls in one turn (parallel tool calls).
    pub fn tool_calls<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        calls
            .into_iter()
            .fold(Self::content(Vec::new()), |reply, (name, arguments)| {
                reply.then_tool_call(name, arguments)
            })
    }

    /// Text whose content is `value` serialized as compact JSON (for structured output).
    pub fn json(value: Value) -> Self {
        Self::text(value.to_string())
    }

    /// An error status with the provider's error body; see [`ErrorReply`].
    pub fn error(status: u16) -> ErrorReply {
        ErrorReply {
            status,
            message: None,
            retry_after: None,
        }
    }

    /// A text reply that sends `chunks` content chunks and then never finishes: the
    /// connection stays open until the client goes away (or the server is dropped).
    pub fn stall_after(chunks: usize) -> Self {
        let words: Vec<String> = (1..=chunks + 3).map(|i| format!("part{i}")).collect();
        Self::text(words.join(" ")).stalls_after(chunks)
    }

    /// Appends reasoning text.
    pub fn then_thinking(mut self, text: impl Into<String>) -> Self {
        self.push_part(Part::Thinking(text.into()));
        self
    }

    /// Appends answer text.
    pub fn then_text(mut self, text: impl Into<String>) -> Self {
        self.push_part(Part::Text(text.into()));
        self
    }

    /// Appends a tool call.
    pub fn then_tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.push_part(Part::ToolCall {
            name: name.into(),
            arguments,
        });
        self
    }

    /// The token counts to report instead of the estimate (prompt = characters of the
    /// request's messages / 4, completion = content chunks × 2).
    pub fn usage(mut self, prompt_tokens: u32, completion_tokens: u32) -> Self {
        self.usage = Some(Usage {
            prompt_tokens,
            completion_tokens,
        });
        self
    }

    /// Waits this long before every content chunk (a non-streamed answer waits for all of
    /// them before it is sent).
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Sends only the first `chunks` content chunks (after the format's opening frames), then
    /// holds the connection open without finishing until the client goes away. A
    /// non-streamed request gets no answer at all.
    pub fn stalls_after(mut self, chunks: usize) -> Self {
        self.stall_after = Some(chunks);
        self
    }

    /// Ends as if the output limit was hit: Ollama `done_reason: "length"`, OpenAI
    /// `finish_reason: "length"`, Anthropic `stop_reason: "max_tokens"`.
    pub fn truncated(mut self) -> Self {
        self.truncated = true;
        self
    }

    fn push_part(&mut self, part: Part) {
        // Chaining onto an error turns it into content: the last constructor wins.
        match &mut self.kind {
            Kind::Content(parts) => parts.push(part),
            Kind::Error(_) => self.kind = Kind::Content(vec![part]),
        }
    }
}

/// A scripted error: the status plus the body the provider sends with it. Made by
/// [`Reply::error`]; push it like any reply.
#[derive(Clone, Debug)]
pub struct ErrorReply {
    pub(crate) status: u16,
    pub(crate) message: Option<String>,
    pub(crate) retry_after: Option<u64>,
}

impl ErrorReply {
    /// The error message instead of the provider's usual one for this status.
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Adds a `Retry-After: <seconds>` header.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }
}

impl From<ErrorReply> for Reply {
    fn from(error: ErrorReply) -> Self {
        Self {
            kind: Kind::Error(error),
            usage: None,
            chunk_delay: Duration::ZERO,
            stall_after: None,
            truncated: false,
        }
    }
}

/// The queue of replies, shared by every endpoint.
#[derive(Default)]
pub(crate) struct Script {
    replies: std::sync::Mutex<VecDeque<Reply>>,
}

impl Script {
    pub(crate) fn push(&self, reply: Reply) {
        crate::lock(&self.replies).push_back(reply);
    }

    pub(crate) fn next(&self) -> Option<Reply> {
        crate::lock(&self.replies).pop_front()
    }

    pub(crate) fn len(&self) -> usize {
        crate::lock(&self.replies).len()
    }
}

/// The message a request gets when the script has no reply left (status 500).
pub(crate) const EXHAUSTED: &str =
    "script exhausted: the scripted model has no reply left for this request";

// ---- chunking -------------------------------------------------------------------------

/// Text split the way a model streams it: word by word, whitespace kept with the word
/// before it, so the chunks concatenate back to the text.
pub(crate) fn text_chunks(text: &str) -> Vec<String> {
    if text.is_empty() {
        return vec![String::new()];
    }
    text.split_inclusive(char::is_whitespace)
        .map(str::to_owned)
        .collect()
}

/// Tool-call arguments as compact JSON text cut into fragments of a few characters (never
/// inside a UTF-8 character), as streaming providers send them.
pub(crate) fn argument_fragments(arguments: &Value) -> Vec<String> {
    const FRAGMENT: usize = 5;
    let chars: Vec<char> = arguments.to_string().chars().collect();
    chars.chunks(FRAGMENT).map(|c| c.iter().collect()).collect()
}

impl Reply {
    /// How many content chunks the reply streams, counted the same way for every format
    /// (text and thinking words plus argument fragments), so default usage agrees.
    pub(crate) fn chunk_count(parts: &[Part]) -> usize {
        parts
            .iter()
            .map(|part| match part {
                Part::Thinking(t) | Part::Text(t) => text_chunks(t).len(),
                Part::ToolCall { arguments, .. } => argument_fragments(arguments).len(),
            })
            .sum()
    }

    /// The usage to report for `parts` answering `request`.
    pub(crate) fn usage_for(&self, parts: &[Part], request: &Value) -> Usage {
        self.usage.unwrap_or_else(|| Usage {
            prompt_tokens: estimate_prompt_tokens(request),
            completion_tokens: u32::try_from(Self::chunk_count(parts) * 2).unwrap_or(u32::MAX),
        })
    }
}

/// About four characters a token, over every string in `messages` and `system`.
fn estimate_prompt_tokens(request: &Value) -> u32 {
    fn chars(value: &Value) -> usize {
        match value {
            Value::String(s) => s.chars().count(),
            Value::Array(items) => items.iter().map(chars).sum(),
            Value::Object(map) => map.values().map(chars).sum(),
            _ => 0,
        }
    }
    let total = chars(&request["messages"]) + chars(&request["system"]);
    u32::try_from(total / 4).unwrap_or(u32::MAX).max(1)
}

/// Concatenated text of the given kind, for non-streamed answers.
pub(crate) fn joined(parts: &[Part], thinking: bool) -> String {
    parts
        .iter()
        .filter_map(|part| match (part, thinking) {
            (Part::Thinking(t), true) | (Part::Text(t), false) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

// ---- pacing ---------------------------------------------------------------------------

/// What a rendered frame is, for pacing: delays and stalls apply to content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Opening or in-between framing (Anthropic `message_start`, a role-only chunk...).
    Framing,
    /// One content chunk: a word of text or thinking, an argument fragment, a tool call.
    Content,
    /// Closing frames (Ollama's `done` line, `finish_reason`, usage, `[DONE]`, `message_stop`).
    Closing,
}

pub(crate) struct Frame<T> {
    pub(crate) item: T,
    pub(crate) role: Role,
}

impl<T> Frame<T> {
    pub(crate) fn framing(item: T) -> Self {
        Self {
            item,
            role: Role::Framing,
        }
    }
    pub(crate) fn content(item: T) -> Self {
        Self {
            item,
            role: Role::Content,
        }
    }
    pub(crate) fn closing(item: T) -> Self {
        Self {
            item,
            role: Role::Closing,
        }
    }
}

/// How a reply is paced: the reply's delay and stall, the server's log (to count clients
/// that went away) and its shutdown token (so a stall ends when the server is dropped).
#[derive(Clone)]
pub(crate) struct Pacing {
    pub(crate) delay: Duration,
    pub(crate) stall_after: Option<usize>,
    pub(crate) log: Arc<Log>,
    pub(crate) shutdown: CancellationToken,
}

/// Streams `frames` with the reply's pacing. A task produces the frames into a small
/// channel so that a stalled or slow stream notices when the client drops the response.
pub(crate) fn play<T: Send + 'static>(
    frames: Vec<Frame<T>>,
    pacing: Pacing,
) -> impl Stream<Item = T> + Send + 'static {
    let (tx, rx) = mpsc::channel::<T>(1);
    tokio::spawn(async move {
        let mut sent = 0usize;
        for frame in frames {
            let stall_here = match (frame.role, pacing.stall_after) {
                (Role::Content, Some(n)) => sent >= n,
                (Role::Closing, Some(_)) => true,
                _ => false,
            };
            if stall_here {
                tokio::select! {
                    () = tx.closed() => pacing.log.client_gone(),
                    () = pacing.shutdown.cancelled() => {}
                }
                return;
            }
            if frame.role == Role::Content {
                if !pacing.delay.is_zero() {
                    tokio::select! {
                        () = tokio::time::sleep(pacing.delay) => {}
                        () = tx.closed() => {
                            pacing.log.client_gone();
                            return;
                        }
                        () = pacing.shutdown.cancelled() => return,
                    }
                }
                sent += 1;
            }
            if tx.send(frame.item).await.is_err() {
                pacing.log.client_gone();
                return;
            }
        }
    });
    futures::stream::unfold(rx, |mut rx| async move {
        let item = rx.recv().await?;
        Some((item, rx))
    })
}

/// Pacing for a non-streamed answer: waits the delays of all `chunks`; a stalled reply
/// waits until the client goes away (hyper then drops this future) or the server stops.
/// Returns false when the answer must not be sent.
pub(crate) async fn hold(pacing: &Pacing, chunks: usize) -> bool {
    if pacing.stall_after.is_some() {
        /// Counts the client leaving: the handler future is dropped mid-wait.
        struct Gone(Arc<Log>, bool);
        impl Drop for Gone {
            fn drop(&mut self) {
                if self.1 {
                    self.0.client_gone();
                }
            }
        }
        let mut gone = Gone(pacing.log.clone(), true);
        pacing.shutdown.cancelled().await;
        gone.1 = false;
        return false;
    }
    let total = pacing
        .delay
        .saturating_mul(u32::try_from(chunks).unwrap_or(u32::MAX));
    if !total.is_zero() {
        tokio::select! {
            () = tokio::time::sleep(total) => {}
            () = pacing.shutdown.cancelled() => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_chunks_rejoin_and_keep_utf8() {
        let text = "It is 12°C\nand sunny ";
        let chunks = text_chunks(text);
        assert_eq!(chunks, vec!["It ", "is ", "12°C\n", "and ", "sunny "]);
        assert_eq!(chunks.concat(), text);
        assert_eq!(text_chunks(""), vec![String::new()]);
    }

    #[test]
    fn argument_fragments_rejoin_to_the_object() {
        let args = json!({"name": "Pune", "note": "°°°°°°"});
        let fragments = argument_fragments(&args);
        assert!(fragments.len() > 3);
        let back: Value = serde_json::from_str(&fragments.concat()).expect("valid JSON");
        assert_eq!(back, args);
    }

    #[test]
    fn chaining_builds_parts_in_order() {
        let reply = Reply::thinking("hmm")
            .then_text("a b")
            .then_tool_call("f", json!({}));
        let Kind::Content(parts) = &reply.kind else {
            panic!("content expected");
        };
        assert!(matches!(&parts[0], Part::Thinking(t) if t == "hmm"));
        assert!(matches!(&parts[1], Part::Text(t) if t == "a b"));
        assert!(matches!(&parts[2], Part::ToolCall { name, .. } if name == "f"));
        // 1 thinking word + 2 text words + 1 fragment ("{}").
        assert_eq!(Reply::chunk_count(parts), 4);
    }

    #[test]
    fn default_usage_estimates_from_the_request() {
        let request = json!({"messages": [{"role": "user", "content": "x".repeat(40)}]});
        let reply = Reply::text("one two three");
        let Kind::Content(parts) = &reply.kind else {
            panic!("content expected");
        };
        // "user" (4) + 40 characters = 44 / 4.
        assert_eq!(
            reply.usage_for(parts, &request),
            Usage {
                prompt_tokens: 11,
                completion_tokens: 6
            }
        );
        assert_eq!(
            reply.clone().usage(5, 7).usage_for(parts, &request),
            Usage {
                prompt_tokens: 5,
                completion_tokens: 7
            }
        );
    }
}
