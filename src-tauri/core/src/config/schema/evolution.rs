//! Settings section `evolution`.

use super::*;

/// How Sentient learns new skills and keeps them working.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct EvolutionConfig {
    /// After chats and task runs, look for procedures worth saving as skills.
    pub review_enabled: bool,
    /// Look over a chat once it has been idle this many minutes.
    #[schemars(range(min = 1))]
    pub review_idle_minutes: u32,
    /// Only look over work that used at least this many tools.
    #[schemars(range(min = 1))]
    pub min_tool_calls_for_review: u32,
    /// Now and then retire unused skills and combine duplicates.
    pub curator_enabled: bool,
    /// How often, in hours, unused and duplicate skills are tidied up.
    #[schemars(range(min = 1))]
    pub curator_interval_hours: u32,
    /// Skills unused for this many days are marked stale.
    #[schemars(range(min = 1))]
    pub stale_after_days: u32,
    /// Stale skills unused for this many days are archived.
    #[schemars(range(min = 1))]
    pub archive_after_days: u32,
    /// Suggest combining skills that do nearly the same thing, for your review.
    pub curator_merge_suggestions: bool,
    /// Keep the notes about you and about what Sentient remembers (USER.md and MEMORY.md) up to date.
    pub user_profile_updates: bool,
    /// How often, in hours, those notes are refreshed.
    #[schemars(range(min = 1))]
    pub profile_update_hours: u32,
    /// When a skill fails in use or you correct its result, draft a fix for your review.
    pub skill_repair: bool,
    /// Hours to wait between fixes proposed for the same skill.
    #[schemars(range(max = 168))]
    pub repair_cooldown_hours: u32,
}

impl Default for EvolutionConfig {
    fn default() -> Self {
        Self {
            review_enabled: true,
            review_idle_minutes: 10,
            min_tool_calls_for_review: 3,
            curator_enabled: true,
            curator_interval_hours: 168,
            stale_after_days: 14,
            archive_after_days: 30,
            curator_merge_suggestions: true,
            user_profile_updates: true,
            profile_update_hours: 24,
            skill_repair: true,
            repair_cooldown_hours: 6,
        }
    }
}
