//! Settings section `tasks`.

use super::*;

/// What a repeating task remembers from its earlier runs, so it reports only what is new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ContinuityConfig {
    /// Repeating tasks remember their earlier runs and keep notes between them.
    pub enabled: bool,
    /// Longest the notes a repeating task keeps between runs may be, in characters.
    #[schemars(range(min = 100, max = 20_000))]
    pub notepad_chars: u32,
    /// How many earlier finished runs a repeating task is reminded of (0 turns reminders off).
    #[schemars(range(max = 20))]
    pub runs: u32,
    /// Longest each remembered earlier answer may be, in characters.
    #[schemars(range(min = 50, max = 5000))]
    pub answer_chars: u32,
    /// Also let tasks started by an event (a new email, a webhook) remember earlier runs.
    pub triggered: bool,
}

impl Default for ContinuityConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            notepad_chars: 1500,
            runs: 3,
            answer_chars: 400,
            triggered: false,
        }
    }
}

/// How long-running and scheduled tasks are planned, run and limited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct TasksConfig {
    /// How often, in seconds, Sentient checks for tasks that are due.
    #[schemars(range(min = 5, max = 3600))]
    pub tick_seconds: u32,
    /// How many task runs may work at the same time.
    #[schemars(range(min = 1, max = 16))]
    pub max_concurrent_runs: u32,
    /// Minutes of work after which a run asks whether to keep going (time waiting for your answer doesn't count).
    #[schemars(range(min = 1))]
    pub run_timeout_minutes: u32,
    /// Steps after which a run asks whether to keep going.
    #[schemars(range(min = 1, max = 200))]
    pub max_tool_rounds: u32,
    /// Tokens used on a cloud model after which a run asks whether to keep going (0 means no limit).
    pub max_tokens_per_run: u32,
    /// US dollars spent on a cloud model after which a run asks whether to keep going (0 means no limit).
    #[schemars(range(min = 0.0))]
    pub max_cost_per_run_usd: f64,
    /// Most questions one run may ask you before it has to manage on its own.
    #[schemars(range(min = 0, max = 20))]
    pub max_questions_per_run: u32,
    /// New task plans wait for your approval before they run.
    pub require_plan_approval: bool,
    /// Most helpers one swarm task may run side by side.
    #[schemars(range(min = 1, max = 50))]
    pub swarm_max_agents: u32,
    /// When Sentient restarts, continue runs that were in progress instead of marking them failed.
    pub resume_interrupted_runs: bool,
    /// A run that shows no sign of work for this many minutes stops and asks you what to do (0 turns this off).
    pub stuck_after_minutes: u32,
    /// A run whose step fails with the same error this many times in a row stops and asks you what to do (0 turns this off).
    #[schemars(range(max = 50))]
    pub stuck_after_repeated_errors: u32,
    /// A task missed while the computer was off runs once if it is less than this many hours late (0 always skips it).
    #[schemars(range(max = 168))]
    pub catch_up_window_hours: u32,
    /// What a repeating task remembers from its earlier runs.
    pub continuity: ContinuityConfig,
    /// Longest a task's brief may be, in characters, once written out.
    #[schemars(range(min = 200, max = 20_000))]
    pub brief_chars: u32,
}

impl Default for TasksConfig {
    fn default() -> Self {
        Self {
            tick_seconds: 30,
            max_concurrent_runs: 2,
            run_timeout_minutes: 30,
            max_tool_rounds: 40,
            max_tokens_per_run: 2_000_000,
            max_cost_per_run_usd: 5.0,
            max_questions_per_run: 5,
            require_plan_approval: true,
            swarm_max_agents: 5,
            resume_interrupted_runs: true,
            stuck_after_minutes: 10,
            stuck_after_repeated_errors: 5,
            catch_up_window_hours: 12,
            continuity: ContinuityConfig::default(),
            brief_chars: 1500,
        }
    }
}
