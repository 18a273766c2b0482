//! The shapes memory hands out (contract section 7): a remembered fact (`Memory`), where a held
//! one came from (`ReviewNote`), the topics, the map, summaries of past chats and the notes files.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The v2 topic set, with what each covers (GET /api/memories/topics and the model's choices).
pub const TOPICS: [(&str, &str); 8] = [
    (
        "Personal Identity",
        "Name, age, where they live, languages, background.",
    ),
    (
        "Interests & Lifestyle",
        "Hobbies, tastes, habits, routines, food and travel.",
    ),
    (
        "Work & Learning",
        "Job, employer, projects, skills, studies.",
    ),
    (
        "Health & Wellbeing",
        "Health, fitness, diet, sleep, how they feel.",
    ),
    (
        "Relationships & Social Life",
        "Family, friends, partners, colleagues, pets.",
    ),
    ("Financial", "Money, budgets, accounts, purchases, bills."),
    (
        "Goals & Challenges",
        "Plans, ambitions, worries, problems to solve.",
    ),
    ("Miscellaneous", "Anything else worth remembering."),
];

/// The topic a fact gets when nothing else fits.
pub const DEFAULT_TOPIC: &str = "Miscellaneous";

/// Lasting facts, or ones that stop being true (a trip next week).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub enum MemoryType {
    #[serde(rename = "long-term")]
    LongTerm,
    #[serde(rename = "short-term")]
    ShortTerm,
}

impl MemoryType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::LongTerm => "long-term",
            Self::ShortTerm => "short-term",
        }
    }

    pub fn parse(text: &str) -> Self {
        if text == "short-term" {
            Self::ShortTerm
        } else {
            Self::LongTerm
        }
    }
}

/// Whether a fact is remembered, or waits in the review inbox.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum FactStatus {
    Active,
    Pending,
}

/// Where a held memory came from: `from` names the source in plain words ("Gmail", "resume.pdf"),
/// `snippet` is the text it came from (at most 400 characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ReviewNote {
    pub from: String,
    pub snippet: Option<String>,
    pub session_id: Option<String>,
}

/// Most characters of a review note's snippet.
pub const SNIPPET_CHARS: usize = 400;

impl ReviewNote {
    pub fn new(from: &str, snippet: Option<&str>, session_id: Option<&str>) -> Self {
        Self {
            from: from.trim().to_owned(),
            snippet: snippet
                .map(|s| s.chars().take(SNIPPET_CHARS).collect::<String>())
                .filter(|s| !s.trim().is_empty()),
            session_id: session_id.map(str::to_owned),
        }
    }
}

/// One remembered fact about the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Memory {
    pub id: i64,
    pub content: String,
    pub topics: Vec<String>,
    /// conversation, manual, onboarding, file:<name>, ...
    pub source: String,
    pub memory_type: MemoryType,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    /// The text before the last UPDATE.
    pub previous_content: Option<String>,
    pub status: FactStatus,
    pub review: Option<ReviewNote>,
    /// In a search (`?q=`): cosine similarity to the query; null outside a search and when the
    /// search used words only.
    #[serde(default)]
    pub similarity: Option<f64>,
    /// In a search: similarity + keyword weight × the share of the query's words present.
    #[serde(default)]
    pub score: Option<f64>,
}

/// What a write decided (POST /api/memories and every other way a fact is remembered).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum Action {
    Add,
    Update,
    Delete,
    Skip,
}

/// `POST /api/memories`: what happened, to which fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct WriteResult {
    pub action: Action,
    /// The fact added, changed, deleted or (for SKIP) the one that already says it.
    pub id: Option<i64>,
    pub content: String,
    /// `pending` when the fact waits for review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FactStatus>,
}

/// `POST /api/memories/import`: what the file gave. Every fact from a file waits for review, so
/// `added` and `pending` count the same facts and `updated` stays 0 (held facts never change others).
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ImportResult {
    pub added: u32,
    pub updated: u32,
    /// Facts already remembered (or already waiting) in the same words or meaning.
    pub skipped: u32,
    pub pending: u32,
    /// `file:<name>`.
    pub source: String,
}

/// `GET /api/memories/topics`: every topic with how many remembered facts it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TopicCount {
    pub name: String,
    pub description: String,
    pub count: i64,
}

/// A fact on the memory map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct GraphNode {
    pub id: i64,
    /// The content cut to 25 characters.
    pub label: String,
    /// The whole content.
    pub title: String,
    pub content: String,
    pub topics: Vec<String>,
    pub memory_type: MemoryType,
    pub source: String,
    pub created_at: DateTime<Utc>,
}

/// Two facts whose cosine similarity is at least `memory.graph_link_similarity` (`value`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct GraphLink {
    pub source: i64,
    pub target: i64,
    pub value: f64,
}

/// `GET /api/memories/graph`.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub links: Vec<GraphLink>,
}

/// A summary of an older part of a chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Summary {
    pub id: i64,
    pub content: String,
    pub start_at: DateTime<Utc>,
    pub end_at: DateTime<Utc>,
    pub session_id: Option<String>,
    /// The app whose content that chat read, else null (kept out of other chats).
    pub untrusted: Option<String>,
}

/// Fact or insight (insights arrive with the user model).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReviewKind {
    Fact,
    Insight,
}

/// One memory waiting in the review inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ReviewItem {
    pub kind: ReviewKind,
    #[schema(value_type = i64)]
    pub id: i64,
    pub text: String,
    pub source: String,
    pub from: String,
    pub snippet: Option<String>,
    pub session_id: Option<String>,
    pub created_at: DateTime<Utc>,
    /// created_at + memory.review_expire_days: when it is deleted unless reviewed.
    pub expires_at: DateTime<Utc>,
}

/// `GET /api/memories/review`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ReviewInbox {
    pub items: Vec<ReviewItem>,
    /// Every held memory, also beyond the first page.
    pub count: i64,
    pub expire_days: u32,
}

/// `GET /api/memories/workspace`: the notes files in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Workspace {
    pub soul: String,
    pub user: String,
    pub memory: String,
    /// Today's daily note (`workspace/memory/<date>.md`).
    pub today: String,
    pub yesterday: String,
}

/// A SOUL.md preset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PersonaPreset {
    pub id: String,
    pub name: String,
    pub description: String,
    pub soul_md: String,
}
