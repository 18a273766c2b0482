//! Settings section `memory`.

use super::*;

/// What Sentient remembers about you and how it recalls it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct MemoryConfig {
    /// Let Sentient remember things about you from one chat to the next.
    pub enabled: bool,
    /// How many remembered facts are brought into each reply.
    #[schemars(range(max = 50))]
    pub facts_top_k: u32,
    /// How closely, from 0 to 1, a fact must match a message to be recalled.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_similarity: f64,
    /// Above this match, from 0 to 1, a new fact counts as a duplicate and is skipped; keep it high.
    #[schemars(range(min = 0.5, max = 1.0))]
    pub duplicate_similarity: f64,
    /// Learn facts about you from each message in the background.
    pub extract_after_turn: bool,
    /// Most characters taken from each of Sentient's notes files (such as USER.md) into a reply.
    #[schemars(range(min = 500))]
    pub workspace_budget_chars: u32,
    /// How closely, from 0 to 1, two memories must match to be linked in the memory map.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub graph_link_similarity: f64,
    /// Conversation parts older than this many minutes are summarized into memories of past chats.
    #[schemars(range(min = 5))]
    pub summarize_after_minutes: u32,
    /// How many messages go into one summary of a past chat.
    #[schemars(range(min = 6))]
    pub summary_chunk_messages: u32,
    /// Summarize older conversations into memories of past chats in the background.
    pub summaries_enabled: bool,
    /// How often, in minutes, Sentient looks for conversations to summarize.
    #[schemars(range(min = 1))]
    pub summarize_interval_minutes: u32,
    /// How often, in minutes, short-term memories that have expired are deleted.
    #[schemars(range(min = 5))]
    pub purge_interval_minutes: u32,
    /// Characters read at a time when learning facts from a document you import.
    #[schemars(range(min = 500, max = 20_000))]
    pub import_chunk_chars: u32,
    /// Before old parts of a long chat are summarized, save the lasting facts they contain.
    pub flush_enabled: bool,
    /// Most characters of a chat read when saving facts before it is summarized.
    #[schemars(range(min = 500, max = 50_000))]
    pub flush_max_chars: u32,
    /// Most facts saved from one chat before it is summarized.
    #[schemars(range(max = 50))]
    pub flush_max_facts: u32,
    /// How much matching words add to a memory's rank when searching, from 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub keyword_weight: f64,
    /// Days a memory waiting for your review is kept before it is deleted.
    #[schemars(range(min = 1, max = 365))]
    pub review_expire_days: u32,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            facts_top_k: 8,
            min_similarity: 0.35,
            // Embedding models score contradictions (Pune vs Mumbai) as very similar, so only
            // near-identical wording may skip the model's decision.
            duplicate_similarity: 0.98,
            extract_after_turn: true,
            workspace_budget_chars: 6000,
            graph_link_similarity: 0.80,
            summarize_after_minutes: 60,
            summary_chunk_messages: 30,
            summaries_enabled: true,
            summarize_interval_minutes: 5,
            purge_interval_minutes: 60,
            import_chunk_chars: 4000,
            flush_enabled: true,
            flush_max_chars: 6000,
            flush_max_facts: 8,
            keyword_weight: 0.15,
            review_expire_days: 30,
        }
    }
}
