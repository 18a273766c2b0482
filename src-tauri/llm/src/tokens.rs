//! Token counts for the context meter (contract section 1): a local count with a bundled
//! tokenizer, because Ollama reports only the part of a prompt it had not cached. For models
//! that are not OpenAI's it is an estimate, which is all the meter needs.

use sentient_core::sync::MutexExt;
use serde::{Deserialize, Serialize};

use super::types::{Message, ToolSpec};

/// Tokens a prompt takes: every message's text and tool calls, plus the tool list.
pub fn count_prompt(messages: &[Message], tools: &[ToolSpec]) -> u32 {
    let mut total: usize = 0;
    for m in messages {
        // A few tokens of framing per message, as chat templates add.
        total += 4 + tokens_of(&m.content);
        for call in &m.tool_calls {
            total += tokens_of(&call.name) + tokens_of(&call.arguments.to_string());
        }
    }
    for t in tools {
        total +=
            tokens_of(&t.name) + tokens_of(&t.description) + tokens_of(&t.parameters.to_string());
    }
    u32::try_from(total).unwrap_or(u32::MAX)
}

/// Texts longer than this are remembered once counted.
const CACHE_FROM_BYTES: usize = 64;
/// Remembered counts before the memory is cleared and starts again.
const CACHE_ENTRIES: usize = 20_000;

/// The tokens of one text. A loop sends the same earlier messages and the same tool list every
/// round, so counts of longer texts are remembered by a hash of the text: each round then
/// encodes only what is new (a hash collision only skews an estimate).
fn tokens_of(text: &str) -> usize {
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    use std::sync::{LazyLock, Mutex};
    static COUNTED: LazyLock<Mutex<HashMap<u64, usize>>> = LazyLock::new(Mutex::default);
    let encode = |text: &str| {
        tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(text)
            .len()
    };
    if text.len() < CACHE_FROM_BYTES {
        return encode(text);
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let key = hasher.finish();
    let remembered = COUNTED.lock_unpoisoned().get(&key).copied();
    if let Some(count) = remembered {
        return count;
    }
    let count = encode(text);
    let mut counted = COUNTED.lock_unpoisoned();
    if counted.len() >= CACHE_ENTRIES {
        counted.clear();
    }
    counted.insert(key, count);
    count
}

/// How full the model's context is after a call. All `None` when the length is unknown.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ContextMeter {
    pub context_used: Option<u32>,
    pub context_length: Option<u32>,
    pub context_percent: Option<u32>,
    pub context_warning: Option<String>,
}

/// From this share of the context on, the meter warns.
pub const WARN_PERCENT: u32 = 85;

/// `used` = the larger of the reported and locally counted prompt, plus the reply.
pub fn meter(
    model_name: &str,
    local: bool,
    reported_prompt: u32,
    counted_prompt: u32,
    completion: u32,
    length: Option<u32>,
) -> ContextMeter {
    let Some(length) = length.filter(|l| *l > 0) else {
        return ContextMeter::default();
    };
    let used = reported_prompt
        .max(counted_prompt)
        .saturating_add(completion);
    let percent =
        u32::try_from((u64::from(used) * 100 + u64::from(length) / 2) / u64::from(length))
            .unwrap_or(u32::MAX);
    let warning = (percent >= WARN_PERCENT).then(|| {
        if local {
            format!(
                "This chat is getting long for {model_name} ({percent}% of what it reads at once). Older messages may be left out: start a new chat, or set a longer context length in Settings > Models."
            )
        } else {
            format!(
                "This chat is getting long for {model_name} ({percent}% of what it reads at once). Older messages may be left out, so a new chat works best."
            )
        }
    });
    ContextMeter {
        context_used: Some(used),
        context_length: Some(length),
        context_percent: Some(percent),
        context_warning: warning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_counts_equal_fresh_ones() {
        let long = "the same earlier message, sent again every round of the loop ".repeat(20);
        let fresh = tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(&long)
            .len();
        assert_eq!(tokens_of(&long), fresh);
        assert_eq!(tokens_of(&long), fresh, "the remembered count");
        assert_eq!(tokens_of("short"), 1);
    }

    #[test]
    fn counts_grow_with_text_and_tools() {
        let short = count_prompt(&[Message::user("hi")], &[]);
        let long = count_prompt(&[Message::user("hi ".repeat(200))], &[]);
        assert!(short > 0 && long > short + 150);
    }

    #[test]
    fn the_meter_uses_the_larger_prompt_and_warns_from_85_percent() {
        let m = meter("qwen3:8b", true, 1000, 6000, 1000, Some(8192));
        assert_eq!(m.context_used, Some(7000));
        assert_eq!(m.context_percent, Some(85));
        assert!(m.context_warning.as_deref().is_some_and(|w| w.starts_with(
            "This chat is getting long for qwen3:8b (85% of what it reads at once)."
        )));
        let calm = meter("qwen3:8b", true, 100, 50, 10, Some(8192));
        assert_eq!(calm.context_percent, Some(1));
        assert_eq!(calm.context_warning, None);
        assert_eq!(meter("lm", true, 1, 1, 1, None), ContextMeter::default());
    }
}
