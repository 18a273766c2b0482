//! Settings section `dreaming`.

use super::*;

/// The nightly clean-up of memories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct DreamingConfig {
    /// Tidy up memory overnight: merge duplicates and settle facts that contradict each other.
    pub enabled: bool,
    /// The local time the nightly clean-up may start, as HH:MM.
    pub time: String,
    /// Only clean up when you have not chatted for this many minutes.
    #[schemars(range(max = 1440))]
    pub require_idle_minutes: u32,
    /// Which model role merges memories and checks contradictions.
    pub role: String,
    /// Most recent facts looked at in one night.
    #[schemars(range(min = 10, max = 20_000))]
    pub max_facts: u32,
    /// Most model calls one night's clean-up may make.
    #[schemars(range(max = 500))]
    pub max_model_calls: u32,
    /// How closely, from 0 to 1, two facts must match to be considered duplicates.
    #[schemars(range(min = 0.5, max = 1.0))]
    pub merge_similarity: f64,
    /// Share of meaningful words, from 0 to 1, two facts must have in common to be merged.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub merge_min_overlap: f64,
    /// How closely, from 0 to 1, two facts about broad topics (routine, belongings, health) must match to be checked for a contradiction.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub contradiction_similarity: f64,
    /// Short-term facts recalled at least this many times become long-term.
    #[schemars(range(min = 1, max = 1000))]
    pub promote_min_recalls: u32,
    /// Refresh the picture of your preferences as part of each night's clean-up.
    pub refresh_user_model: bool,
    /// Send a notification when a night's clean-up changed something meaningful.
    pub notify: bool,
}

impl Default for DreamingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            time: "03:00".to_owned(),
            require_idle_minutes: 30,
            role: "fast".to_owned(),
            max_facts: 500,
            max_model_calls: 20,
            merge_similarity: 0.9,
            merge_min_overlap: 0.6,
            contradiction_similarity: 0.5,
            promote_min_recalls: 3,
            refresh_user_model: true,
            notify: true,
        }
    }
}
