//! Settings section `user_model`.

use super::*;

/// The picture Sentient builds of your preferences, goals and style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct UserModelConfig {
    /// Build an evolving picture of your preferences, goals and style.
    pub enabled: bool,
    /// Which model role updates this picture and answers questions about you.
    pub role: String,
    /// Update the picture after this many chat replies.
    #[schemars(range(min = 1, max = 500))]
    pub refresh_after_turns: u32,
    /// Automatic updates happen at most once per this many hours.
    #[schemars(range(min = 0.0, max = 720.0))]
    pub min_refresh_hours: f64,
    /// Most changes one update may make.
    #[schemars(range(min = 1, max = 50))]
    pub max_operations: u32,
    /// Stop adding guessed insights beyond this many.
    #[schemars(range(min = 5, max = 1000))]
    pub max_active_insights: u32,
    /// Most questions about you waiting for your answer at once.
    #[schemars(range(max = 50))]
    pub max_open_questions: u32,
    /// How much confidence, from 0 to 0.5, an insight gains when new evidence supports it.
    #[schemars(range(min = 0.0, max = 0.5))]
    pub support_step: f64,
    /// How much confidence, from 0 to 1, an insight loses when new evidence contradicts it.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub contradict_step: f64,
    /// An insight whose confidence drops below this is marked disputed and you are asked about it.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dispute_below: f64,
    /// Most characters about you added to each reply's instructions.
    #[schemars(range(max = 4000))]
    pub context_max_chars: u32,
    /// How closely, from 0 to 1, an insight must match a message to count as relevant; keep it high.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub context_min_similarity: f64,
    /// Recent messages of yours read in one update.
    #[schemars(range(max = 200))]
    pub recent_messages: u32,
    /// New or changed facts read in one update.
    #[schemars(range(max = 200))]
    pub recent_facts: u32,
    /// Summaries of past chats read in one update.
    #[schemars(range(max = 50))]
    pub recent_summaries: u32,
}

impl Default for UserModelConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            role: "fast".to_owned(),
            refresh_after_turns: 12,
            min_refresh_hours: 24.0,
            max_operations: 8,
            max_active_insights: 80,
            max_open_questions: 5,
            support_step: 0.1,
            contradict_step: 0.2,
            dispute_below: 0.35,
            context_max_chars: 600,
            // Local embedding models score unrelated text around 0.65.
            context_min_similarity: 0.7,
            recent_messages: 30,
            recent_facts: 25,
            recent_summaries: 5,
        }
    }
}
