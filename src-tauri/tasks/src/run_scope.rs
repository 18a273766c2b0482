//! What one stretch of a task run lets its loop and tools do: `ask_user` questions (one per
//! round, at most `tasks.max_questions_per_run`), limits checked before each model call, the
//! signs that the run is stuck (the same error again and again, a step only the person can do),
//! and when it last showed activity.

use sentient_core::sync::MutexExt;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

use super::limits::{Limit, Limits, is_local_model};
use sentient_agent::tools::RunScope;
use sentient_llm::types::Speaker;
use sentient_llm::{Message, Usage};

/// A question `ask_user` asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub call_id: String,
    pub question: String,
    pub options: Vec<String>,
}

/// Why a run is stuck.
#[derive(Debug, Clone, PartialEq)]
pub enum Stuck {
    /// No sign of work for this many minutes, while the model or the named app worked.
    Stalled { minutes: u32, app: Option<String> },
    /// `<App>` keeps failing with the same error.
    Errors(String),
    /// A step only the person can do.
    Blocked(String),
}

impl Stuck {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stalled { .. } => "stalled",
            Self::Errors(_) => "errors",
            Self::Blocked(_) => "blocked",
        }
    }

    pub fn reason(&self) -> String {
        match self {
            Self::Stalled { minutes, app } => {
                let span = if *minutes == 1 {
                    "1 minute".to_owned()
                } else {
                    format!("{minutes} minutes")
                };
                match app {
                    Some(app) => format!("{app} hasn't responded for {span}"),
                    None => format!("the AI model hasn't answered for {span}"),
                }
            }
            Self::Errors(reason) | Self::Blocked(reason) => reason.clone(),
        }
    }
}

#[derive(Debug)]
struct State {
    limits: Limits,
    asked: Option<Asked>,
    questions: u32,
    /// The tool, the error and how many times in a row.
    error_streak: Option<(String, String, u32)>,
    stuck: Option<Stuck>,
    last_activity: Instant,
    /// The apps whose calls are running now (one entry a call).
    calls_running: Vec<String>,
    /// A call ran on past the time limit's grace and was cut off.
    past_deadline: bool,
}

#[derive(Debug)]
pub struct TaskRunScope {
    task_id: String,
    run_id: String,
    keeps_notes: bool,
    /// Where each finished round goes, to be saved as the run's checkpoint.
    checkpoints: Mutex<Option<tokio::sync::mpsc::UnboundedSender<Vec<Message>>>>,
    state: Mutex<State>,
    stretch_started: Instant,
    seconds_before: f64,
    max_questions: u32,
    repeated_errors: u32,
}

impl TaskRunScope {
    /// A stretch of work starting now, with what earlier stretches used and asked.
    pub fn new(
        limits: Limits,
        questions_asked: u32,
        max_questions: u32,
        repeated_errors: u32,
    ) -> Self {
        let now = Instant::now();
        Self {
            task_id: String::new(),
            run_id: String::new(),
            keeps_notes: false,
            checkpoints: Mutex::new(None),
            state: Mutex::new(State {
                limits,
                asked: None,
                questions: questions_asked,
                error_streak: None,
                stuck: None,
                last_activity: now,
                calls_running: Vec::new(),
                past_deadline: false,
            }),
            stretch_started: now,
            seconds_before: limits.used.seconds,
            max_questions,
            repeated_errors,
        }
    }

    /// The run this scope belongs to, and whether it keeps notes between runs.
    pub fn for_run(mut self, task_id: &str, run_id: &str, keeps_notes: bool) -> Self {
        self.task_id = task_id.to_owned();
        self.run_id = run_id.to_owned();
        self.keeps_notes = keeps_notes;
        self
    }

    /// Sends every finished round to `tx`, so a crash never loses a finished step.
    pub fn with_checkpoints(self, tx: tokio::sync::mpsc::UnboundedSender<Vec<Message>>) -> Self {
        *self.checkpoints.lock_unpoisoned() = Some(tx);
        self
    }

    /// No more checkpoints: the saver finishes what it has and stops.
    pub fn close_checkpoints(&self) {
        self.checkpoints.lock_unpoisoned().take();
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock_unpoisoned()
    }

    /// The limits with this stretch's working time counted.
    pub fn limits(&self) -> Limits {
        let mut limits = self.state().limits;
        limits.used.seconds = self.seconds_before + self.stretch_started.elapsed().as_secs_f64();
        limits
    }

    pub fn asked(&self) -> Option<Asked> {
        self.state().asked.clone()
    }

    pub fn questions(&self) -> u32 {
        self.state().questions
    }

    pub fn stuck(&self) -> Option<Stuck> {
        self.state().stuck.clone()
    }

    /// Marks the run stalled (the watchdog saw no activity for `minutes`).
    pub fn stall(&self, minutes: u32) {
        let mut state = self.state();
        let app = state.calls_running.first().cloned();
        state.stuck.get_or_insert(Stuck::Stalled { minutes, app });
    }

    /// Marks that a call ran on past the time limit's grace and was cut off.
    pub fn cut_off(&self) {
        self.state().past_deadline = true;
    }

    pub fn past_deadline(&self) -> bool {
        self.state().past_deadline
    }

    /// How long since the last sign of work.
    pub fn quiet_for(&self) -> std::time::Duration {
        self.state().last_activity.elapsed()
    }

    /// Reads the tool results of a round for the signs of being stuck.
    fn watch_results(&self, round: &[Message]) {
        let mut state = self.state();
        for message in round.iter().filter(|m| m.role == Speaker::Tool) {
            let value: Value = serde_json::from_str(&message.content).unwrap_or(Value::Null);
            if let Some(reason) = value.get("needs_user").and_then(Value::as_str) {
                state.stuck = Some(Stuck::Blocked(reason.to_owned()));
                continue;
            }
            let tool = message.name.clone().unwrap_or_default();
            match value.get("error").and_then(Value::as_str) {
                Some(error) => {
                    let count = match &state.error_streak {
                        Some((t, e, n)) if *t == tool && e == error => n + 1,
                        _ => 1,
                    };
                    state.error_streak = Some((tool.clone(), error.to_owned(), count));
                    if self.repeated_errors > 0 && count >= self.repeated_errors {
                        state.stuck = Some(Stuck::Errors(format!(
                            "{tool} keeps failing with the same error: {error}"
                        )));
                    }
                }
                None => state.error_streak = None,
            }
        }
    }
}

impl RunScope for TaskRunScope {
    fn ask_user(&self, call_id: &str, question: &str, options: Vec<String>) -> Result<(), String> {
        let mut state = self.state();
        if state.asked.is_some() {
            return Err(
                "One question at a time: wait for the answer to the question you already asked."
                    .to_owned(),
            );
        }
        if state.questions >= self.max_questions {
            return Err(format!(
                "This run has already asked {} questions, the most it may. Decide on your own and say in your final answer what you assumed.",
                state.questions
            ));
        }
        state.questions += 1;
        state.asked = Some(Asked {
            call_id: call_id.to_owned(),
            question: question.to_owned(),
            options,
        });
        Ok(())
    }

    fn before_call(&self) -> Option<String> {
        self.limits()
            .reached()
            .map(|l: Limit| l.as_str().to_owned())
    }

    fn after_call(&self, model: &str, usage: &Usage) {
        let mut state = self.state();
        state.limits.used.steps += 1;
        if !is_local_model(model) {
            state.limits.used.tokens +=
                u64::from(usage.prompt_tokens) + u64::from(usage.completion_tokens);
            let cost = sentient_llm::usage::cost(
                model,
                false,
                usage.prompt_tokens,
                usage.completion_tokens,
            );
            state.limits.used.cost_usd += cost.unwrap_or(0.0);
        }
        state.last_activity = Instant::now();
    }

    fn after_round(&self, round: &[Message]) -> bool {
        if let Some(tx) = self.checkpoints.lock_unpoisoned().as_ref() {
            let _ = tx.send(round.to_vec());
        }
        self.watch_results(round);
        let state = self.state();
        state.asked.is_some() || state.stuck.is_some()
    }

    fn activity(&self) {
        self.state().last_activity = Instant::now();
    }

    fn call_started(&self, app: &str) {
        self.state().calls_running.push(app.to_owned());
    }

    fn call_ended(&self, app: &str) {
        let mut state = self.state();
        if let Some(at) = state.calls_running.iter().position(|a| a == app) {
            state.calls_running.remove(at);
        }
    }

    fn task_run(&self) -> Option<(String, String)> {
        (!self.run_id.is_empty()).then(|| (self.task_id.clone(), self.run_id.clone()))
    }

    fn keeps_notes(&self) -> bool {
        self.keeps_notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sentient_core::config::TasksConfig;
    use sentient_llm::ToolCall;

    fn scope() -> TaskRunScope {
        TaskRunScope::new(Limits::from_config(&TasksConfig::default()), 0, 2, 3)
    }

    fn result(name: &str, content: &str) -> Message {
        Message::tool_result(
            &ToolCall {
                id: "c".into(),
                name: name.into(),
                arguments: Value::Null,
            },
            content.to_owned(),
        )
    }

    #[test]
    fn a_stall_names_the_app_whose_call_went_silent() {
        let s = scope();
        s.call_started("Browser");
        s.stall(10);
        let stuck = s.stuck().expect("stuck");
        assert_eq!(stuck.kind(), "stalled");
        assert_eq!(stuck.reason(), "Browser hasn't responded for 10 minutes");
        // Between calls it is the model that went quiet.
        let s = scope();
        s.call_started("Browser");
        s.call_ended("Browser");
        s.stall(1);
        assert_eq!(
            s.stuck().expect("stuck").reason(),
            "the AI model hasn't answered for 1 minute"
        );
    }

    #[test]
    fn one_question_at_a_time_and_at_most_the_runs_share() {
        let s = scope();
        assert!(s.ask_user("c1", "Which flight?", vec![]).is_ok());
        assert!(s.ask_user("c2", "And the seat?", vec![]).is_err());
        assert!(s.after_round(&[]));
        let s = TaskRunScope::new(Limits::default(), 2, 2, 3);
        assert!(
            s.ask_user("c1", "Again?", vec![])
                .expect_err("no more questions")
                .contains("already asked 2 questions")
        );
    }

    #[test]
    fn the_same_error_again_and_again_means_stuck() {
        let s = scope();
        let failing = result(
            "restaurant_book",
            r#"{"error": "The booking server said no"}"#,
        );
        assert!(!s.after_round(&[failing.clone(), failing.clone()]));
        assert!(s.after_round(std::slice::from_ref(&failing)));
        assert_eq!(
            s.stuck().map(|k| k.reason()),
            Some(
                "restaurant_book keeps failing with the same error: The booking server said no"
                    .to_owned()
            )
        );
        let s = scope();
        assert!(s.after_round(&[result(
            "browser_type",
            r#"{"error": "x", "needs_user": "the page asks for your password"}"#
        )]));
        assert_eq!(s.stuck().map(|k| k.kind()), Some("blocked"));
    }

    #[test]
    fn cloud_tokens_count_and_local_ones_do_not() {
        let s = scope();
        let usage = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 1_000_000,
            cached_tokens: 0,
        };
        s.after_call("ollama_chat/qwen3:8b", &usage);
        assert_eq!(s.limits().used.tokens, 0);
        assert_eq!(s.limits().used.steps, 1);
        s.after_call("anthropic/claude-sonnet-4-5", &usage);
        assert_eq!(s.limits().used.tokens, 2_000_000);
        assert_eq!(s.before_call().as_deref(), Some("tokens"));
    }
}
