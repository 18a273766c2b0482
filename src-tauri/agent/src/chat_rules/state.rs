//! Rule checks still weighing a chat's message: the keys they weigh ask first until they finish.
//! A leaf, so the agent can hold it without importing the chat rules that use it.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use sentient_core::sync::MutexExt;

/// Checks still weighing, by chat: the keys they weigh ask first until they finish.
#[derive(Debug, Default)]
pub struct ChatRulesState {
    weighing: Mutex<HashMap<String, HashMap<u64, BTreeSet<String>>>>,
    next: AtomicU64,
}

impl ChatRulesState {
    pub(crate) fn weigh(self: &Arc<Self>, session_id: &str, keys: BTreeSet<String>) -> Weighing {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.weighing
            .lock_unpoisoned()
            .entry(session_id.to_owned())
            .or_default()
            .insert(id, keys);
        Weighing {
            state: Arc::clone(self),
            session_id: session_id.to_owned(),
            id,
        }
    }

    pub(crate) fn keys(&self, session_id: &str) -> BTreeSet<String> {
        self.weighing
            .lock_unpoisoned()
            .get(session_id)
            .map(|checks| checks.values().flatten().cloned().collect())
            .unwrap_or_default()
    }
}

/// A check in flight; its keys stop asking when it ends, however it ends.
pub(crate) struct Weighing {
    state: Arc<ChatRulesState>,
    session_id: String,
    id: u64,
}

impl Drop for Weighing {
    fn drop(&mut self) {
        let mut weighing = self.state.weighing.lock_unpoisoned();
        if let Some(checks) = weighing.get_mut(&self.session_id) {
            checks.remove(&self.id);
            if checks.is_empty() {
                weighing.remove(&self.session_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighing_keys_clear_when_the_check_ends() {
        let state = Arc::new(ChatRulesState::default());
        let first = state.weigh("s1", ["files_write".to_owned()].into());
        let second = state.weigh("s1", ["web".to_owned()].into());
        assert_eq!(state.keys("s1").len(), 2);
        assert!(state.keys("s2").is_empty());
        drop(first);
        assert_eq!(state.keys("s1"), BTreeSet::from(["web".to_owned()]));
        drop(second);
        assert!(state.keys("s1").is_empty());
    }
}
