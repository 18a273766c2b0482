//! Limits on a run (contract section 4, "Limits on a run"): steps, active time, tokens and
//! spend on cloud models, checked deterministically before each model call. A run that reaches
//! one asks "Keep going / Stop here"; keeping going raises that limit by its base amount.

use serde::{Deserialize, Serialize};

use sentient_core::config::TasksConfig;

/// Model prefixes whose tokens and cost are not counted (they run on the user's own machine).
const LOCAL_PREFIXES: [&str; 6] = [
    "ollama/",
    "ollama_chat/",
    "lm_studio/",
    "llamafile/",
    "vllm/",
    "hosted_vllm/",
];

pub fn is_local_model(model: &str) -> bool {
    LOCAL_PREFIXES.iter().any(|p| model.starts_with(p))
}

/// One amount of each kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Amounts {
    pub steps: u32,
    pub seconds: f64,
    pub tokens: u64,
    pub cost_usd: f64,
}

/// `task_runs.limits`: the limits a run started with, the ones it has now, and what it used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    pub base: Amounts,
    pub max: Amounts,
    pub used: Amounts,
}

/// Which limit was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Steps,
    Seconds,
    Tokens,
    Cost,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Steps => "steps",
            Self::Seconds => "seconds",
            Self::Tokens => "tokens",
            Self::Cost => "cost_usd",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Steps, Self::Seconds, Self::Tokens, Self::Cost]
            .into_iter()
            .find(|l| l.as_str() == text)
    }
}

/// 2000400 → "2,000,400".
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

fn minutes(seconds: f64) -> u64 {
    (seconds / 60.0).round() as u64
}

const SETTINGS: &str = "The limits for one run are in Settings > Tasks.";

impl Limits {
    pub fn from_config(tasks: &TasksConfig) -> Self {
        let base = Amounts {
            steps: tasks.max_tool_rounds,
            seconds: f64::from(tasks.run_timeout_minutes) * 60.0,
            tokens: u64::from(tasks.max_tokens_per_run),
            cost_usd: tasks.max_cost_per_run_usd,
        };
        Self {
            base,
            max: base,
            used: Amounts::default(),
        }
    }

    /// The limit reached before a model call, if any (0 turns a token or cost limit off).
    pub fn reached(&self) -> Option<Limit> {
        if self.max.seconds > 0.0 && self.used.seconds >= self.max.seconds {
            return Some(Limit::Seconds);
        }
        if self.max.tokens > 0 && self.used.tokens >= self.max.tokens {
            return Some(Limit::Tokens);
        }
        if self.max.cost_usd > 0.0 && self.used.cost_usd >= self.max.cost_usd {
            return Some(Limit::Cost);
        }
        None
    }

    /// Steps left before the step limit.
    pub fn steps_left(&self) -> u32 {
        self.max.steps.saturating_sub(self.used.steps)
    }

    /// "Keep going": raises the limit by its base amount, for this run only.
    pub fn raise(&mut self, limit: Limit) {
        match limit {
            Limit::Steps => self.max.steps = self.max.steps.saturating_add(self.base.steps),
            Limit::Seconds => self.max.seconds += self.base.seconds,
            Limit::Tokens => self.max.tokens = self.max.tokens.saturating_add(self.base.tokens),
            Limit::Cost => self.max.cost_usd += self.base.cost_usd,
        }
    }

    /// The question a run asks at its limit, with the contract's words.
    pub fn question(&self, limit: Limit) -> String {
        match limit {
            Limit::Steps => format!(
                "This task has used {} steps and isn't finished yet. Keep going for another {} steps, or stop here?",
                self.used.steps, self.base.steps
            ),
            Limit::Seconds => format!(
                "This task has been working for {} minutes and isn't finished yet. Keep going for another {} minutes, or stop here?",
                minutes(self.used.seconds),
                minutes(self.base.seconds)
            ),
            Limit::Tokens => format!(
                "This task has used {} tokens of your {} token limit and isn't finished yet. Keep going for another {} tokens, or stop here?",
                grouped(self.used.tokens),
                grouped(self.max.tokens),
                grouped(self.base.tokens)
            ),
            Limit::Cost => format!(
                "This task has used ${:.2} of your ${:.2} limit and isn't finished yet. Keep going for another ${:.2}, or stop here?",
                self.used.cost_usd, self.max.cost_usd, self.base.cost_usd
            ),
        }
    }

    /// The run's error after "Stop here".
    pub fn stop_error(&self, limit: Limit) -> String {
        match limit {
            Limit::Steps => format!(
                "Stopped after {} steps without finishing. {SETTINGS}",
                self.used.steps
            ),
            Limit::Seconds => format!(
                "Stopped after {} minutes without finishing. {SETTINGS}",
                minutes(self.used.seconds)
            ),
            Limit::Tokens => format!(
                "Stopped after using {} tokens without finishing. The limit for one run is {} tokens. {SETTINGS}",
                grouped(self.used.tokens),
                grouped(self.max.tokens)
            ),
            Limit::Cost => format!(
                "Stopped after spending about ${:.2} on the model without finishing. The limit for one run is ${:.2}. {SETTINGS}",
                self.used.cost_usd, self.max.cost_usd
            ),
        }
    }
}

/// "Keep going" in any case, with surrounding spaces and a final `.` or `!` ignored.
pub fn says(answer: &str, words: &str) -> bool {
    answer
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .eq_ignore_ascii_case(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits::from_config(&TasksConfig::default())
    }

    #[test]
    fn questions_and_errors_use_the_contracts_words() {
        let mut l = limits();
        l.used.steps = 40;
        assert_eq!(
            l.question(Limit::Steps),
            "This task has used 40 steps and isn't finished yet. Keep going for another 40 steps, or stop here?"
        );
        assert_eq!(
            l.stop_error(Limit::Steps),
            "Stopped after 40 steps without finishing. The limits for one run are in Settings > Tasks."
        );
        l.used.tokens = 2_000_400;
        assert_eq!(
            l.question(Limit::Tokens),
            "This task has used 2,000,400 tokens of your 2,000,000 token limit and isn't finished yet. Keep going for another 2,000,000 tokens, or stop here?"
        );
        l.used.cost_usd = 5.02;
        assert_eq!(
            l.question(Limit::Cost),
            "This task has used $5.02 of your $5.00 limit and isn't finished yet. Keep going for another $5.00, or stop here?"
        );
        l.used.seconds = 1800.0;
        assert_eq!(
            l.stop_error(Limit::Seconds),
            "Stopped after 30 minutes without finishing. The limits for one run are in Settings > Tasks."
        );
    }

    #[test]
    fn limits_are_reached_raised_and_zero_turns_them_off() {
        let mut l = limits();
        assert_eq!(l.reached(), None);
        l.used.tokens = 2_000_000;
        assert_eq!(l.reached(), Some(Limit::Tokens));
        l.raise(Limit::Tokens);
        assert_eq!(l.max.tokens, 4_000_000);
        assert_eq!(l.reached(), None);
        l.max.tokens = 0;
        l.used.tokens = u64::MAX;
        assert_eq!(l.reached(), None);
        l.used.steps = 39;
        assert_eq!(l.steps_left(), 1);
    }

    #[test]
    fn answers_are_read_forgivingly_and_local_models_are_told_apart() {
        assert!(says("  keep going! ", "Keep going"));
        assert!(says("KEEP GOING.", "Keep going"));
        assert!(!says("keep going please", "Keep going"));
        assert!(is_local_model("ollama_chat/qwen3:8b"));
        assert!(is_local_model("lm_studio/x"));
        assert!(!is_local_model("anthropic/claude-sonnet-4"));
    }
}
