//! What running chats share with the agent that holds them: approval questions waiting on a
//! person, running replies, steers, the per-chat turn locks, and the summarizer's flush hooks.
//! A leaf, so the agent can hold it without importing the chat code that uses it.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use sentient_core::sync::MutexExt;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::run_types::ApprovalAnswer;

/// Replies waiting on a person, and running turns by chat.
#[derive(Debug, Default)]
pub struct ChatState {
    pub(crate) approvals: Mutex<HashMap<String, oneshot::Sender<ApprovalAnswer>>>,
    pub(crate) running: Mutex<HashMap<String, CancellationToken>>,
    /// Steer messages waiting for the running reply's next round, by chat.
    pub(crate) steers: Mutex<HashMap<String, Vec<String>>>,
    /// One turn at a time per chat: a message queued behind a running reply waits on its lock.
    pub(crate) turns: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    pub(crate) compression: Compression,
}

impl ChatState {
    /// Registers an approval question under its id; the receiver gets the person's answer
    /// (through any door's `approval.respond`).
    pub fn await_answer(&self, approval_id: &str) -> oneshot::Receiver<ApprovalAnswer> {
        let (tx, rx) = oneshot::channel();
        self.approvals
            .lock_unpoisoned()
            .insert(approval_id.to_owned(), tx);
        rx
    }

    /// Drops a question nobody needs an answer to any more.
    pub fn forget_question(&self, approval_id: &str) {
        self.approvals.lock_unpoisoned().remove(approval_id);
    }
}

/// Reads the part of a chat about to be folded into its summary (contract section 10: memory
/// flushes durable facts here).
pub trait ConversationFlush: Send + Sync {
    /// `untrusted` is the app whose content the chat read, when it is marked.
    fn flush<'a>(
        &'a self,
        session_id: &'a str,
        transcript: &'a str,
        untrusted: Option<&'a str>,
    ) -> BoxFuture<'a, ()>;
}

/// The flush hooks, and the chats being compressed now (one compression per chat at a time).
#[derive(Default)]
pub struct Compression {
    pub(crate) hooks: Mutex<Vec<Arc<dyn ConversationFlush>>>,
    pub(crate) running: Mutex<HashSet<String>>,
}

impl fmt::Debug for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hooks = self.hooks.lock().map(|h| h.len()).unwrap_or_default();
        f.debug_struct("Compression")
            .field("hooks", &hooks)
            .finish_non_exhaustive()
    }
}
