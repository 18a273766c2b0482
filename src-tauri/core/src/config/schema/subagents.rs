//! Settings section `subagents`.

use super::*;

/// Which model role a helper uses.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SubagentRole {
    /// The model that carries out long tasks.
    #[default]
    Executor,
    /// The main model.
    Primary,
    /// The quick model for small jobs.
    Fast,
}

/// Helpers the assistant can start to work on parts of a job alongside the chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct SubagentsConfig {
    /// Let the assistant hand parts of a job to helpers that run alongside the chat.
    pub enabled: bool,
    /// How many helpers may run at the same time.
    #[schemars(range(min = 1, max = 16))]
    pub max_concurrent: u32,
    /// Most steps one helper may take.
    #[schemars(range(min = 1, max = 200))]
    pub max_rounds: u32,
    /// Which model role helpers use.
    pub role: SubagentRole,
    /// A helper is stopped after working this many minutes.
    #[schemars(range(min = 1))]
    pub timeout_minutes: u32,
    /// A helper is stopped after using this many tokens on a cloud model (0 means no limit).
    pub max_tokens: u32,
    /// A helper is stopped after spending about this many US dollars on a cloud model (0 means no limit).
    #[schemars(range(min = 0.0))]
    pub max_cost_usd: f64,
}

impl Default for SubagentsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_concurrent: 3,
            max_rounds: 24,
            role: SubagentRole::Executor,
            timeout_minutes: 20,
            max_tokens: 1_000_000,
            max_cost_usd: 2.0,
        }
    }
}
