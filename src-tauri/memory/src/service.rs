//! The memory service: remembering (the CUD decision), hybrid search, the review inbox, the
//! map, summaries, the notes files, and the vector index kept in step with the embedding model.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sentient_core::bus::{DomainEvent, EventBus};
use sentient_core::clock::SharedClock;
use sentient_core::config::ConfigService;
use sentient_core::domain::notification::{NewNotification, Notifier};
use sentient_core::domain::{JobKind, MemoryChange};
use sentient_core::stop::StopService;
use sentient_core::store::Store;
use sentient_llm::types::{ChatRequest, Message};
use sentient_llm::{CallOptions, LlmService, ModelRole};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::decide::{Decision, Proposal, settle};
use crate::error::MemoryError;
use crate::model::{
    Action, DEFAULT_TOPIC, FactStatus, Graph, GraphLink, GraphNode, Memory, MemoryType,
    ReviewInbox, ReviewItem, ReviewKind, ReviewNote, Summary, TOPICS, TopicCount, Workspace,
    WriteResult,
};
use crate::search::cosine;
use crate::store::{HybridQuery, IndexInfo, ListFilter, MemoryStore, NewFact};
use crate::workspace::{Notes, NotesFile, personas};

/// The person's calendar date at a moment (their time zone), for the daily notes.
pub type LocalDate = Arc<dyn Fn(DateTime<Utc>) -> NaiveDate + Send + Sync>;

/// Most characters of one fact.
pub const MAX_FACT_CHARS: usize = 2_000;
/// Most facts on the memory map (the newest).
pub const GRAPH_NODES: i64 = 500;
/// Most held facts the review inbox lists.
pub const REVIEW_PAGE: i64 = 500;
/// How many similar facts the CUD decision is shown.
const SHOWN_NEAREST: usize = 5;
/// How many facts about the same person and attribute are added by keyword.
const SHOWN_SAME_ATTRIBUTE: usize = 3;

/// What memory is built from.
pub struct MemoryParts {
    pub store: Store,
    pub bus: EventBus,
    pub config: ConfigService,
    pub llm: LlmService,
    pub clock: SharedClock,
    pub notifier: Arc<dyn Notifier>,
    /// Background model work (learning from chats) is a Stop-everything job.
    pub stop: StopService,
    /// The home's `workspace/` folder.
    pub workspace: PathBuf,
    pub local_date: LocalDate,
}

struct Inner {
    facts: MemoryStore,
    bus: EventBus,
    config: ConfigService,
    llm: LlmService,
    clock: SharedClock,
    notifier: Arc<dyn Notifier>,
    stop: StopService,
    notes: Notes,
    local_date: LocalDate,
    /// Held while facts are being given vectors, so two re-index passes never overlap.
    reindexing: tokio::sync::Mutex<()>,
}

/// Memory; cheap to clone.
#[derive(Clone)]
pub struct MemoryService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MemoryService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryService").finish_non_exhaustive()
    }
}

/// `GET /api/memories`' query.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub topic: Option<String>,
    pub q: Option<String>,
    pub source: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// Most results a search ranks (a page past them is empty).
const MAX_SEARCH: usize = 5_000;

/// Default and largest page of the facts list.
const DEFAULT_LIMIT: i64 = 100;
const MAX_LIMIT: i64 = 1_000;

fn change(action: &str, id: Option<i64>) -> MemoryChange {
    MemoryChange {
        action: action.to_owned(),
        id,
        ..MemoryChange::default()
    }
}

impl MemoryService {
    pub fn new(parts: MemoryParts) -> Self {
        Self {
            inner: Arc::new(Inner {
                facts: MemoryStore::new(parts.store),
                bus: parts.bus,
                config: parts.config,
                llm: parts.llm,
                clock: parts.clock,
                notifier: parts.notifier,
                stop: parts.stop,
                notes: Notes::new(parts.workspace),
                local_date: parts.local_date,
                reindexing: tokio::sync::Mutex::new(()),
            }),
        }
    }

    pub fn facts(&self) -> &MemoryStore {
        &self.inner.facts
    }

    pub fn config(&self) -> &ConfigService {
        &self.inner.config
    }

    pub fn llm(&self) -> &LlmService {
        &self.inner.llm
    }

    pub fn stop(&self) -> &StopService {
        &self.inner.stop
    }

    /// The engine's clock's time (a test's manual clock moves it).
    pub fn now(&self) -> DateTime<Utc> {
        self.inner.clock.now()
    }

    /// Whether sqlite-vec loaded; without it reads answer empty and writes refuse.
    pub fn available(&self) -> bool {
        self.inner.facts.store().vector_extension().is_some()
    }

    /// Writes refuse with 503 while sqlite-vec is missing.
    pub(crate) fn writable(&self) -> Result<(), MemoryError> {
        if self.available() {
            Ok(())
        } else {
            Err(MemoryError::Unavailable)
        }
    }

    fn publish(&self, change: MemoryChange) {
        self.inner.bus.publish(DomainEvent::MemoryUpdated(change));
    }

    // ---- reading ----

    /// `GET /api/memories`: newest first, or with `q` the hybrid search's best first.
    pub async fn list(&self, query: ListQuery) -> Result<Vec<Memory>, MemoryError> {
        if !self.available() {
            return Ok(Vec::new());
        }
        let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(MemoryError::invalid(format!(
                "limit must be between 1 and {MAX_LIMIT}."
            )));
        }
        let offset = query.offset.unwrap_or(0);
        if offset < 0 {
            return Err(MemoryError::invalid("offset can't be negative."));
        }
        let filter = ListFilter {
            topic: query.topic.filter(|t| !t.trim().is_empty()),
            source: query.source.filter(|s| !s.trim().is_empty()),
            limit,
            offset,
        };
        match query.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            None => Ok(self.inner.facts.list(&filter, self.now()).await?),
            Some(q) => {
                let wanted = usize::try_from(offset.saturating_add(limit)).unwrap_or(usize::MAX);
                let mut found = self.search(q, wanted.min(MAX_SEARCH), &filter).await?;
                Ok(found.split_off((offset as usize).min(found.len())))
            }
        }
    }

    /// The query's vector, when the embedding model answers (and the index is ready for it).
    async fn query_vector(&self, text: &str) -> Option<Vec<f32>> {
        self.inner.facts.index_info().await?;
        self.embed(text).await
    }

    /// Hybrid search over remembered facts: vector neighbours (at least `memory.min_similarity`
    /// close) and word matches, fused, then ranked by the contract's score. Words only
    /// (similarity null) without embeddings.
    pub async fn search(
        &self,
        query: &str,
        limit: usize,
        filter: &ListFilter,
    ) -> Result<Vec<Memory>, MemoryError> {
        let memory = self.inner.config.current().memory.clone();
        let vector = self.query_vector(query).await;
        Ok(self
            .inner
            .facts
            .hybrid(&HybridQuery {
                text: query,
                vector: vector.as_deref(),
                limit,
                filter,
                keyword_weight: memory.keyword_weight,
                min_similarity: memory.min_similarity,
                now: self.now(),
            })
            .await?)
    }

    /// Facts for a prompt: the best `limit` at similarity ≥ `memory.min_similarity` (by words
    /// only when there are no vectors), each counted as recalled.
    pub async fn recall(&self, text: &str, limit: usize) -> Result<Vec<Memory>, MemoryError> {
        self.recall_from(text, limit, None).await
    }

    /// [`MemoryService::recall`] among the facts of one source (`memory_search_by_source`).
    pub async fn recall_from(
        &self,
        text: &str,
        limit: usize,
        source: Option<&str>,
    ) -> Result<Vec<Memory>, MemoryError> {
        if !self.available() || text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let min = self.inner.config.current().memory.min_similarity;
        let filter = ListFilter {
            source: source.map(str::to_owned),
            ..ListFilter::default()
        };
        let mut found = self.search(text, limit, &filter).await?;
        // In a prompt even a fact with the words must be close in meaning, when that is known.
        found.retain(|f| f.similarity.is_none_or(|s| s >= min));
        let ids: Vec<i64> = found.iter().map(|f| f.id).collect();
        self.inner.facts.count_recalls(&ids, self.now()).await?;
        Ok(found)
    }

    /// `GET /api/memories/topics`: every topic of the v2 set with its count.
    pub async fn topics(&self) -> Result<Vec<TopicCount>, MemoryError> {
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        if self.available() {
            for (_, topics) in self.inner.facts.remembered_topics(self.now()).await? {
                for topic in topics {
                    *counts.entry(topic).or_default() += 1;
                }
            }
        }
        Ok(TOPICS
            .iter()
            .map(|(name, description)| TopicCount {
                name: (*name).to_owned(),
                description: (*description).to_owned(),
                count: counts.get(*name).copied().unwrap_or(0),
            })
            .collect())
    }

    /// `GET /api/memories/graph`: the newest facts, linked where their vectors are close.
    pub async fn graph(&self) -> Result<Graph, MemoryError> {
        if !self.available() {
            return Ok(Graph::default());
        }
        let threshold = self.inner.config.current().memory.graph_link_similarity;
        let facts = self
            .inner
            .facts
            .newest_remembered(self.now(), GRAPH_NODES)
            .await?;
        let ids: Vec<i64> = facts.iter().map(|f| f.id).collect();
        let vectors = if self.inner.facts.index_info().await.is_some() {
            self.inner.facts.vectors(&ids).await?
        } else {
            Default::default()
        };
        let mut links = Vec::new();
        for (i, a) in ids.iter().enumerate() {
            let Some(va) = vectors.get(a) else { continue };
            for b in &ids[i + 1..] {
                if let Some(vb) = vectors.get(b) {
                    let value = cosine(va, vb);
                    if value >= threshold {
                        links.push(GraphLink {
                            source: *a,
                            target: *b,
                            value,
                        });
                    }
                }
            }
        }
        let nodes = facts
            .into_iter()
            .map(|f| GraphNode {
                id: f.id,
                label: f.content.chars().take(25).collect(),
                title: f.content.clone(),
                content: f.content,
                topics: f.topics,
                memory_type: f.memory_type,
                source: f.source,
                created_at: f.created_at,
            })
            .collect();
        Ok(Graph { nodes, links })
    }

    /// `GET /api/memories/summaries`, newest first.
    /// Past chats' summaries closest to `query` (`history_semantic_search`): only chats that
    /// never read outside content; by meaning when embeddings answer, else by shared words.
    pub async fn search_summaries(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(Summary, Option<f64>)>, MemoryError> {
        if !self.available() || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let limit = limit.clamp(1, 50);
        let vector = self.query_vector(query).await;
        let found = self
            .inner
            .facts
            .clean_summaries(vector.as_deref(), limit as i64)
            .await?;
        if found
            .first()
            .is_some_and(|(_, similarity)| similarity.is_some())
        {
            return Ok(found);
        }
        let mut ranked: Vec<(Summary, f64)> = found
            .into_iter()
            .map(|(summary, _)| {
                let share = crate::search::word_share(query, &summary.content);
                (summary, share)
            })
            .filter(|(_, share)| *share > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.end_at.cmp(&a.0.end_at)));
        Ok(ranked
            .into_iter()
            .take(limit)
            .map(|(summary, _)| (summary, None))
            .collect())
    }

    pub async fn summaries(&self, limit: Option<i64>) -> Result<Vec<Summary>, MemoryError> {
        let limit = limit.unwrap_or(50);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(MemoryError::invalid(format!(
                "limit must be between 1 and {MAX_LIMIT}."
            )));
        }
        Ok(self.inner.facts.summaries(limit).await?)
    }

    // ---- remembering ----

    /// Remembers `content`: skips a duplicate without asking the model, else one fast-model
    /// call decides ADD, UPDATE, DELETE or SKIP against the nearest facts and those about the
    /// same person and attribute, held to the rules in `decide`. With `review` the fact is held
    /// (`pending`): it never changes another fact, and duplicates of any fact are skipped.
    pub async fn remember(
        &self,
        content: &str,
        source: &str,
        review: Option<ReviewNote>,
    ) -> Result<WriteResult, MemoryError> {
        self.writable()?;
        let content = content.trim();
        if content.is_empty() {
            return Err(MemoryError::invalid(
                "Say what to remember: the fact is empty.",
            ));
        }
        if content.chars().count() > MAX_FACT_CHARS {
            return Err(MemoryError::invalid(format!(
                "A fact can be at most {MAX_FACT_CHARS} characters."
            )));
        }
        let source = if source.trim().is_empty() {
            "manual"
        } else {
            source.trim()
        };
        let held = review.is_some();
        let skip = |id: i64| WriteResult {
            action: Action::Skip,
            id: Some(id),
            content: content.to_owned(),
            status: None,
        };
        // The same words already remembered (or, for a held fact, held too): nothing to do.
        if let Some(same) = self.inner.facts.same_words(content, held).await? {
            return Ok(skip(same.id));
        }
        let vector = self.embed(content).await;
        let now = self.now();
        let config = self.inner.config.current().memory.clone();
        let near = match &vector {
            Some(v) => self.inner.facts.nearest(v, SHOWN_NEAREST, now).await?,
            None => Vec::new(),
        };
        if let Some((id, _)) = near.iter().find(|(_, s)| *s >= config.duplicate_similarity) {
            return Ok(skip(*id));
        }
        // What the model is shown: the nearest facts, and by keyword up to 3 more.
        let mut shown_ids: Vec<i64> = near.iter().map(|(id, _)| *id).collect();
        for id in self
            .inner
            .facts
            .keyword_ids(content, SHOWN_SAME_ATTRIBUTE * 3, Some(now))
            .await?
        {
            if shown_ids.len() >= SHOWN_NEAREST + SHOWN_SAME_ATTRIBUTE {
                break;
            }
            if !shown_ids.contains(&id) {
                shown_ids.push(id);
            }
        }
        let shown = self.inner.facts.get_many(&shown_ids).await?;
        let analysis = self.analyze(content, &shown, now).await;
        let decision = if held {
            // Held facts only ever add (or are skipped as already said).
            match settle(content, &shown, None) {
                d @ Decision {
                    action: Action::Skip,
                    ..
                } => d,
                _ => Decision {
                    action: Action::Add,
                    target: None,
                },
            }
        } else {
            settle(content, &shown, analysis.proposal.clone())
        };
        let fact = NewFact {
            content: content.to_owned(),
            topics: analysis.topics.clone(),
            source: source.to_owned(),
            memory_type: analysis.memory_type,
            expires_at: analysis.expires_at,
            review,
        };
        match (decision.action, decision.target) {
            (Action::Skip, Some(id)) => Ok(skip(id)),
            (Action::Update, Some(id)) => {
                self.inner
                    .facts
                    .update(
                        id,
                        content,
                        &fact.topics,
                        fact.memory_type,
                        fact.expires_at,
                        now,
                    )
                    .await?;
                if let Some(v) = &vector {
                    self.inner.facts.put_vector(id, v).await?;
                }
                self.publish(MemoryChange {
                    content: Some(content.to_owned()),
                    ..change("UPDATE", Some(id))
                });
                Ok(WriteResult {
                    action: Action::Update,
                    id: Some(id),
                    content: content.to_owned(),
                    status: None,
                })
            }
            (Action::Delete, Some(id)) => {
                self.inner.facts.delete(id).await?;
                self.publish(change("DELETE", Some(id)));
                Ok(WriteResult {
                    action: Action::Delete,
                    id: Some(id),
                    content: content.to_owned(),
                    status: None,
                })
            }
            _ => {
                let id = self.inner.facts.insert(&fact, now).await?;
                if !held && let Some(v) = &vector {
                    self.inner.facts.put_vector(id, v).await?;
                }
                let status = held.then_some(FactStatus::Pending);
                self.publish(MemoryChange {
                    content: Some(content.to_owned()),
                    status: held.then(|| "pending".to_owned()),
                    ..change("ADD", Some(id))
                });
                Ok(WriteResult {
                    action: Action::Add,
                    id: Some(id),
                    content: content.to_owned(),
                    status,
                })
            }
        }
    }

    /// `PUT /api/memories/{id}`: new words, the old kept as `previous_content`, analysed again
    /// and given a fresh vector.
    pub async fn update(&self, id: i64, content: &str) -> Result<Memory, MemoryError> {
        self.writable()?;
        let content = content.trim();
        if content.is_empty() {
            return Err(MemoryError::invalid("The fact can't be empty."));
        }
        if content.chars().count() > MAX_FACT_CHARS {
            return Err(MemoryError::invalid(format!(
                "A fact can be at most {MAX_FACT_CHARS} characters."
            )));
        }
        let Some(old) = self.inner.facts.get(id).await? else {
            return Err(no_memory(id));
        };
        let now = self.now();
        let analysis = self.analyze(content, &[], now).await;
        self.inner
            .facts
            .update(
                id,
                content,
                &analysis.topics,
                analysis.memory_type,
                analysis.expires_at,
                now,
            )
            .await?;
        if old.status == FactStatus::Active {
            match self.embed(content).await {
                Some(v) => self.inner.facts.put_vector(id, &v).await?,
                // An old vector would find the fact by words it no longer has.
                None => self.inner.facts.delete_vector(id).await?,
            }
        }
        self.publish(MemoryChange {
            content: Some(content.to_owned()),
            ..change("UPDATE", Some(id))
        });
        self.inner.facts.get(id).await?.ok_or_else(|| no_memory(id))
    }

    /// `DELETE /api/memories/{id}`.
    pub async fn delete(&self, id: i64) -> Result<(), MemoryError> {
        self.writable()?;
        if !self.inner.facts.delete(id).await? {
            return Err(no_memory(id));
        }
        self.publish(change("DELETE", Some(id)));
        Ok(())
    }

    /// `DELETE /api/memories/source/{source}`: every fact of it, held ones too.
    pub async fn delete_source(&self, source: &str) -> Result<i64, MemoryError> {
        self.writable()?;
        let deleted = self.inner.facts.delete_source(source).await?.len() as i64;
        if deleted > 0 {
            self.publish(MemoryChange {
                source: Some(source.to_owned()),
                count: Some(deleted),
                ..change("DELETE", None)
            });
        }
        Ok(deleted)
    }

    // ---- the review inbox ----

    /// `GET /api/memories/review`: held memories, newest first.
    pub async fn review_inbox(&self) -> Result<ReviewInbox, MemoryError> {
        let expire_days = self.inner.config.current().memory.review_expire_days;
        let (held, count) = self.inner.facts.held(REVIEW_PAGE).await?;
        let items = held
            .into_iter()
            .map(|f| {
                let note = f.review.clone().unwrap_or(ReviewNote {
                    from: f.source.clone(),
                    snippet: None,
                    session_id: None,
                });
                ReviewItem {
                    kind: ReviewKind::Fact,
                    id: f.id,
                    text: f.content,
                    source: f.source,
                    from: note.from,
                    snippet: note.snippet,
                    session_id: note.session_id,
                    created_at: f.created_at,
                    expires_at: f.created_at + Duration::days(i64::from(expire_days)),
                }
            })
            .collect();
        Ok(ReviewInbox {
            items,
            count,
            expire_days,
        })
    }

    fn fact_kind(kind: &str) -> Result<ReviewKind, MemoryError> {
        match kind {
            "fact" => Ok(ReviewKind::Fact),
            "insight" => Ok(ReviewKind::Insight),
            other => Err(MemoryError::invalid(format!(
                "\"{other}\" is not a kind of memory: use fact or insight."
            ))),
        }
    }

    async fn held_fact(&self, kind: &str, id: &str) -> Result<Memory, MemoryError> {
        let not_waiting = || MemoryError::not_found("That memory is not waiting for review.");
        match Self::fact_kind(kind)? {
            // Insights arrive with the user model; none waits yet.
            ReviewKind::Insight => Err(not_waiting()),
            ReviewKind::Fact => {
                let id: i64 = id.parse().map_err(|_| not_waiting())?;
                match self.inner.facts.get(id).await? {
                    Some(f) if f.status == FactStatus::Pending => Ok(f),
                    _ => Err(not_waiting()),
                }
            }
        }
    }

    /// Approves a held memory: it becomes active and gets its vector. With `content` it is
    /// saved in the person's words first. One already remembered in the same words is not added
    /// twice: the held one is removed (`merged_into` names the other).
    pub async fn approve(
        &self,
        kind: &str,
        id: &str,
        content: Option<&str>,
    ) -> Result<(), MemoryError> {
        if let Some(text) = content
            && text.trim().is_empty()
        {
            Self::fact_kind(kind)?;
            return Err(MemoryError::invalid("The memory can't be empty."));
        }
        let fact = self.held_fact(kind, id).await?;
        self.writable()?;
        self.approve_fact(fact, content).await
    }

    async fn approve_fact(&self, fact: Memory, content: Option<&str>) -> Result<(), MemoryError> {
        let now = self.now();
        let text = content.map(str::trim).unwrap_or(&fact.content).to_owned();
        if let Some(same) = self.inner.facts.same_words(&text, false).await?
            && same.id != fact.id
        {
            self.inner.facts.delete(fact.id).await?;
            self.publish(MemoryChange {
                reason: Some("approved".into()),
                merged_into: Some(same.id),
                ..change("DELETE", Some(fact.id))
            });
            return Ok(());
        }
        if text != fact.content {
            self.inner
                .facts
                .update(
                    fact.id,
                    &text,
                    &fact.topics,
                    fact.memory_type,
                    fact.expires_at,
                    now,
                )
                .await?;
        }
        self.inner.facts.activate(fact.id, now).await?;
        if let Some(v) = self.embed(&text).await {
            self.inner.facts.put_vector(fact.id, &v).await?;
        }
        self.publish(MemoryChange {
            content: Some(text),
            reason: Some("approved".into()),
            ..change("ADD", Some(fact.id))
        });
        Ok(())
    }

    /// Discards a held memory.
    pub async fn discard(&self, kind: &str, id: &str) -> Result<(), MemoryError> {
        let fact = self.held_fact(kind, id).await?;
        self.writable()?;
        self.inner.facts.delete(fact.id).await?;
        self.publish(MemoryChange {
            reason: Some("discarded".into()),
            ..change("DELETE", Some(fact.id))
        });
        Ok(())
    }

    /// Approves every held memory from `from` (beyond the first page too).
    pub async fn approve_all(&self, from: &str) -> Result<i64, MemoryError> {
        let from = from.trim();
        if from.is_empty() {
            return Err(MemoryError::invalid(
                "Say whose memories to approve: from is missing.",
            ));
        }
        self.writable()?;
        let mut approved = 0;
        for id in self.inner.facts.held_from(from).await? {
            if let Some(fact) = self.inner.facts.get(id).await?
                && fact.status == FactStatus::Pending
            {
                self.approve_fact(fact, None).await?;
                approved += 1;
            }
        }
        Ok(approved)
    }

    // ---- upkeep ----

    /// Deletes expired short-term facts, and held ones nobody reviewed within
    /// `memory.review_expire_days` (telling the person in an info notification).
    pub async fn purge(&self) -> Result<(i64, i64), MemoryError> {
        if !self.available() {
            return Ok((0, 0));
        }
        let now = self.now();
        let expired = self.inner.facts.delete_expired(now).await?.len() as i64;
        if expired > 0 {
            self.publish(MemoryChange {
                reason: Some("expired".into()),
                count: Some(expired),
                ..change("DELETE", None)
            });
        }
        let days = self.inner.config.current().memory.review_expire_days;
        let cutoff = now - Duration::days(i64::from(days));
        let unreviewed = self.inner.facts.delete_held_before(cutoff).await?.len() as i64;
        if unreviewed > 0 {
            self.publish(MemoryChange {
                reason: Some("review_expired".into()),
                count: Some(unreviewed),
                ..change("DELETE", None)
            });
            let message = if unreviewed == 1 {
                format!("1 memory waited for your review for {days} days and was deleted.")
            } else {
                format!(
                    "{unreviewed} memories waited for your review for {days} days and were deleted."
                )
            };
            if let Err(error) = self
                .inner
                .notifier
                .notify(NewNotification {
                    kind: "info".into(),
                    title: "Memory review".into(),
                    message,
                    ..NewNotification::default()
                })
                .await
            {
                tracing::warn!(%error, "the memory review notification could not be saved");
            }
        }
        Ok((expired, unreviewed))
    }

    // ---- the notes files ----

    pub fn today(&self) -> NaiveDate {
        (self.inner.local_date)(self.now())
    }

    pub fn workspace(&self) -> Result<Workspace, MemoryError> {
        self.inner.notes.read_all(self.today())
    }

    pub fn save_workspace(&self, name: &str, content: &str) -> Result<(), MemoryError> {
        self.inner.notes.save(NotesFile::parse(name)?, content)
    }

    pub fn notes(&self) -> &Notes {
        &self.inner.notes
    }

    pub fn personas(&self) -> Vec<crate::model::PersonaPreset> {
        let config = self.inner.config.current();
        personas(&config.assistant.name, &config.assistant.user_name)
    }

    // ---- the model ----

    /// A vector for `text` from the embedding role, keeping the index in step: a new model or
    /// vector length remakes the vector tables and gives every fact a new vector in the
    /// background. `None` when the model does not answer.
    pub async fn embed(&self, text: &str) -> Option<Vec<f32>> {
        if !self.available() {
            return None;
        }
        let opts = CallOptions::new(ModelRole::Embedding, "memory", JobKind::Memory);
        let (model, mut vectors) = match self.inner.llm.embed(vec![text.to_owned()], &opts).await {
            Ok(answer) => answer,
            Err(error) => {
                tracing::debug!(%error, "no embedding; memory searches words only");
                return None;
            }
        };
        let vector = vectors.pop().filter(|v| !v.is_empty())?;
        let info = IndexInfo {
            model,
            dimension: vector.len(),
        };
        if self.inner.facts.index_info().await.as_ref() != Some(&info) {
            if let Err(error) = self.inner.facts.create_index(&info, self.now()).await {
                tracing::warn!(%error, "the memory vector index could not be made");
                return None;
            }
            tracing::info!(model = %info.model, dimension = info.dimension, "memory vector index made; re-indexing facts");
            let service = self.clone();
            tokio::spawn(async move { service.reindex(CancellationToken::new()).await });
        }
        Some(vector)
    }

    /// Follows `models.embedding`: a new model remakes the index for its vectors and re-embeds
    /// every fact in the background (searches use words only until that is done).
    pub fn follow_embedding_model(&self, cancel: CancellationToken) {
        let mut settings = self.inner.config.watch();
        let service = self.clone();
        tokio::spawn(async move {
            let mut current = settings.borrow().models.embedding.clone();
            loop {
                tokio::select! {
                    () = cancel.cancelled() => break,
                    changed = settings.changed() => if changed.is_err() { break },
                }
                let next = settings.borrow().models.embedding.clone();
                if next != current {
                    current = next;
                    // One embedding tells the model and its vector length; `embed` does the rest.
                    let _ = service.embed("memory index").await;
                }
            }
        });
    }

    /// Gives every remembered fact without a vector one, a batch at a time. Returns how many.
    pub async fn reindex(&self, cancel: CancellationToken) -> usize {
        let _one_at_a_time = self.inner.reindexing.lock().await;
        let mut done = 0;
        let mut failed: HashSet<i64> = HashSet::new();
        loop {
            if cancel.is_cancelled() {
                break;
            }
            let ids = match self.inner.facts.ids_without_vector(64).await {
                Ok(ids) => ids,
                Err(error) => {
                    tracing::warn!(%error, "re-indexing memory stopped");
                    break;
                }
            };
            let ids: Vec<i64> = ids.into_iter().filter(|id| !failed.contains(id)).collect();
            if ids.is_empty() {
                break;
            }
            let Ok(facts) = self.inner.facts.get_many(&ids).await else {
                break;
            };
            let texts: Vec<String> = facts.iter().map(|f| f.content.clone()).collect();
            let opts = CallOptions::new(ModelRole::Embedding, "memory", JobKind::Memory)
                .with_cancel(cancel.clone());
            let vectors = match self.inner.llm.embed(texts, &opts).await {
                Ok((_, vectors)) if vectors.len() == facts.len() => vectors,
                _ => {
                    tracing::debug!("the embedding model did not answer; re-indexing waits");
                    break;
                }
            };
            let dimension = self.inner.facts.index_info().await.map(|i| i.dimension);
            for (fact, vector) in facts.iter().zip(vectors) {
                if Some(vector.len()) != dimension
                    || self.inner.facts.put_vector(fact.id, &vector).await.is_err()
                {
                    failed.insert(fact.id);
                    continue;
                }
                done += 1;
            }
        }
        let summaries = self.reindex_summaries(&cancel).await;
        if summaries > 0 {
            tracing::info!(summaries, "past chats' summaries given vectors again");
        }
        done
    }

    /// Gives summaries without a vector one (after the facts, which search needs more); answers
    /// how many were done.
    async fn reindex_summaries(&self, cancel: &CancellationToken) -> usize {
        let mut done = 0;
        let mut failed: HashSet<i64> = HashSet::new();
        while !cancel.is_cancelled() {
            let Ok(found) = self.inner.facts.summaries_without_vector(32).await else {
                break;
            };
            let found: Vec<(i64, String)> = found
                .into_iter()
                .filter(|(id, _)| !failed.contains(id))
                .collect();
            if found.is_empty() {
                break;
            }
            let texts: Vec<String> = found.iter().map(|(_, text)| text.clone()).collect();
            let opts = CallOptions::new(ModelRole::Embedding, "memory", JobKind::Memory)
                .with_cancel(cancel.clone());
            let vectors = match self.inner.llm.embed(texts, &opts).await {
                Ok((_, vectors)) if vectors.len() == found.len() => vectors,
                _ => break,
            };
            let dimension = self.inner.facts.index_info().await.map(|i| i.dimension);
            for ((id, _), vector) in found.iter().zip(vectors) {
                if Some(vector.len()) != dimension
                    || self
                        .inner
                        .facts
                        .put_summary_vector(*id, &vector)
                        .await
                        .is_err()
                {
                    failed.insert(*id);
                    continue;
                }
                done += 1;
            }
        }
        done
    }

    /// One fast-model call: topics, lasting or short-term (with when it stops being true), and
    /// the proposed CUD action against `shown`. A model that fails or answers nonsense leaves the
    /// proposal empty (the rules then decide alone) and the topics at Miscellaneous.
    async fn analyze(&self, content: &str, shown: &[Memory], now: DateTime<Utc>) -> Analysis {
        let existing: Vec<Value> = shown
            .iter()
            .map(|f| serde_json::json!({"id": f.id, "content": f.content}))
            .collect();
        let topics: Vec<&str> = TOPICS.iter().map(|(name, _)| *name).collect();
        let system = format!(
            "You keep a personal assistant's memory of facts about the user. Decide what to do with a NEW fact, given EXISTING facts.\n\
             Answer with JSON only: {{\"action\": \"ADD\"|\"UPDATE\"|\"DELETE\"|\"SKIP\", \"target\": <id of the existing fact acted on, or null>, \"topics\": [one or more of {topics:?}], \"memory_type\": \"long-term\"|\"short-term\", \"expires_at\": <ISO 8601 UTC time a short-term fact stops being true, or null>}}.\n\
             UPDATE when the new fact changes an existing one about the same person and the same thing (a new home replaces the old). DELETE when it says an existing fact is no longer true and adds nothing. SKIP when an existing fact already says it. Otherwise ADD.\n\
             Short-term facts are true only for a while (a trip, plans this week). It is now {}.",
            now.to_rfc3339()
        );
        let user = format!("NEW: {content}\nEXISTING: {}", Value::Array(existing));
        let request = ChatRequest {
            messages: vec![Message::system(system), Message::user(user)],
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Fast, "memory", JobKind::Memory);
        match self.inner.llm.json(request, &opts).await {
            Ok((answer, _)) => Analysis::from_answer(&answer, now),
            Err(error) => {
                tracing::debug!(%error, "the memory decision had no model answer");
                Analysis::fallback()
            }
        }
    }
}

fn no_memory(id: i64) -> MemoryError {
    MemoryError::not_found(format!("There is no memory {id}."))
}

/// What the model made of a fact.
#[derive(Debug, Clone)]
struct Analysis {
    proposal: Option<Proposal>,
    topics: Vec<String>,
    memory_type: MemoryType,
    expires_at: Option<DateTime<Utc>>,
}

impl Analysis {
    fn fallback() -> Self {
        Self {
            proposal: None,
            topics: vec![DEFAULT_TOPIC.to_owned()],
            memory_type: MemoryType::LongTerm,
            expires_at: None,
        }
    }

    /// Reads the model's JSON, keeping only what is valid: known topics, an action it may take,
    /// and an expiry in the future (else the fact is lasting).
    fn from_answer(answer: &Value, now: DateTime<Utc>) -> Self {
        let action = match answer.get("action").and_then(Value::as_str) {
            Some(a) if a.eq_ignore_ascii_case("update") => Some(Action::Update),
            Some(a) if a.eq_ignore_ascii_case("delete") => Some(Action::Delete),
            Some(a) if a.eq_ignore_ascii_case("skip") => Some(Action::Skip),
            Some(a) if a.eq_ignore_ascii_case("add") => Some(Action::Add),
            _ => None,
        };
        let target = answer.get("target").and_then(|t| {
            t.as_i64()
                .or_else(|| t.as_str().and_then(|s| s.trim().parse().ok()))
        });
        let mut topics: Vec<String> = answer
            .get("topics")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .filter_map(|t| {
                        TOPICS
                            .iter()
                            .find(|(name, _)| name.eq_ignore_ascii_case(t.trim()))
                            .map(|(name, _)| (*name).to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default();
        topics.dedup();
        if topics.is_empty() {
            topics.push(DEFAULT_TOPIC.to_owned());
        }
        let expires_at = answer
            .get("expires_at")
            .and_then(Value::as_str)
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
            .filter(|t| *t > now);
        let short = answer.get("memory_type").and_then(Value::as_str) == Some("short-term");
        let (memory_type, expires_at) = match (short, expires_at) {
            (true, Some(at)) => (MemoryType::ShortTerm, Some(at)),
            _ => (MemoryType::LongTerm, None),
        };
        Self {
            proposal: action.map(|action| Proposal { action, target }),
            topics,
            memory_type,
            expires_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_models_answer_is_kept_only_where_valid() {
        let now = Utc::now();
        let later = (now + Duration::days(3)).to_rfc3339();
        let a = Analysis::from_answer(
            &serde_json::json!({"action": "update", "target": "4", "topics": ["work & learning", "Astrology"], "memory_type": "short-term", "expires_at": later}),
            now,
        );
        assert_eq!(
            a.proposal,
            Some(Proposal {
                action: Action::Update,
                target: Some(4)
            })
        );
        assert_eq!(a.topics, vec!["Work & Learning".to_owned()]);
        assert_eq!(a.memory_type, MemoryType::ShortTerm);
        let past = (now - Duration::days(1)).to_rfc3339();
        let b = Analysis::from_answer(
            &serde_json::json!({"action": "maybe", "memory_type": "short-term", "expires_at": past}),
            now,
        );
        assert_eq!(b.proposal, None);
        assert_eq!(b.topics, vec![DEFAULT_TOPIC.to_owned()]);
        assert_eq!((b.memory_type, b.expires_at), (MemoryType::LongTerm, None));
    }
}
