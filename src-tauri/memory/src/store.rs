//! Memory's tables: `facts` with its FTS5 index (kept by triggers), the sqlite-vec tables
//! `facts_vec` and `summaries_vec` (made when the embedding model first answers, because their
//! dimension is the model's), `summaries` and `evolution_log`. Only this file writes SQL.

use futures::TryStreamExt;
use sentient_core::sync::MutexExt;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sentient_core::store::{Store, fts5_match, parse_stamp, stamp};
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::bit_cache::{BitCache, BitChange, IndexState, Lookup};
use crate::bits::{BitIndex, HAMMING_POOL, quantize};
use crate::codes::{self, CodeCache, CodeChange, CodeFile, CodeState};
use crate::model::{FactStatus, Memory, MemoryType, ReviewNote, Summary};
use crate::search::{PER_SEARCH, cosine, fuse, score, vector_bytes, vector_from_bytes, word_share};

/// Meta key of the vector index: which model made its vectors, and their length.
pub const INDEX_META_KEY: &str = "memory.index";

/// What the vectors in `facts_vec` were made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexInfo {
    pub model: String,
    pub dimension: usize,
}

/// A fact to store.
#[derive(Debug, Clone)]
pub struct NewFact {
    pub content: String,
    pub topics: Vec<String>,
    pub source: String,
    pub memory_type: MemoryType,
    pub expires_at: Option<DateTime<Utc>>,
    /// `Some` holds the fact for review.
    pub review: Option<ReviewNote>,
}

/// One hybrid search.
#[derive(Debug, Clone)]
pub struct HybridQuery<'a> {
    pub text: &'a str,
    /// The query's vector; `None` searches words only.
    pub vector: Option<&'a [f32]>,
    pub limit: usize,
    pub filter: &'a ListFilter,
    pub keyword_weight: f64,
    pub min_similarity: f64,
    pub now: DateTime<Utc>,
}

/// Which facts a list shows.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub topic: Option<String>,
    pub source: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// Handle to memory's tables; cheap to clone (clones share the bits cache and the codes).
#[derive(Debug, Clone)]
pub struct MemoryStore {
    store: Store,
    bits: Arc<BitCache>,
    codes: Arc<CodeCache>,
    terms: Arc<std::sync::Mutex<TermCache>>,
}

/// How many facts contained each word when it was last counted, and how many facts there were.
#[derive(Debug, Default)]
struct TermCache {
    docs: HashMap<String, i64>,
    facts: i64,
}

/// The words a search looks for, and whether FTS5 ranks their matches.
#[derive(Debug)]
struct TellingWords {
    words: String,
    by_rank: bool,
    /// In a large memory, the words with how many facts have each, rarest first (empty in a
    /// small one, whose counts are not looked up).
    counts: Vec<(String, i64)>,
}

impl TellingWords {
    /// Whether FTS5 would score more matches than is quick (`RANK_ALL_UP_TO`): then
    /// `hits_with_most_words` picks them instead. Counts are known only in a large memory.
    fn too_many_to_score(&self) -> bool {
        self.by_rank && self.counts.iter().map(|(_, n)| n).sum::<i64>() > RANK_ALL_UP_TO
    }
}

/// Up to this many facts with any of the words, FTS5 ranks them all (about 4 µs a fact: its
/// bm25 reads each one's length); past it, `hits_with_most_words` finds the best without.
pub const RANK_ALL_UP_TO: i64 = 1_000;

/// Words of a long query paired in `hits_with_most_words` (the rarest; 15 pairs).
const PAIRED_WORDS: usize = 6;

/// Most words whose counts are kept.
const TERM_CACHE_WORDS: usize = 20_000;

const FACT_COLUMNS: &str = "id, content, topics, source, memory_type, created_at, updated_at, \
     expires_at, previous_content, status, review_from, review_snippet, review_session_id";

/// Remembered and still true at `now`: active, and not an expired short-term fact.
const REMEMBERED: &str = "status = 'active' AND (expires_at IS NULL OR expires_at > ?)";

/// SQL built here from constants, `?` placeholders and numbers only (never from input), which
/// sqlx asks to be said out loud.
fn safe(sql: String) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(sql)
}

fn fact_from_row(row: &sqlx::sqlite::SqliteRow) -> Memory {
    let time = |name: &str| {
        row.try_get::<String, _>(name)
            .ok()
            .and_then(|t| parse_stamp(&t))
    };
    let topics: Vec<String> = row
        .try_get::<String, _>("topics")
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let status = if row
        .try_get::<String, _>("status")
        .is_ok_and(|s| s == "pending")
    {
        FactStatus::Pending
    } else {
        FactStatus::Active
    };
    let review = row
        .try_get::<Option<String>, _>("review_from")
        .ok()
        .flatten()
        .map(|from| ReviewNote {
            from,
            snippet: row.try_get("review_snippet").ok().flatten(),
            session_id: row.try_get("review_session_id").ok().flatten(),
        });
    let created_at = time("created_at").unwrap_or_default();
    Memory {
        id: row.try_get("id").unwrap_or_default(),
        content: row.try_get("content").unwrap_or_default(),
        topics,
        source: row.try_get("source").unwrap_or_default(),
        memory_type: MemoryType::parse(
            &row.try_get::<String, _>("memory_type").unwrap_or_default(),
        ),
        created_at,
        updated_at: time("updated_at").unwrap_or(created_at),
        expires_at: row
            .try_get::<Option<String>, _>("expires_at")
            .ok()
            .flatten()
            .and_then(|t| parse_stamp(&t)),
        previous_content: row.try_get("previous_content").ok().flatten(),
        status,
        review,
        similarity: None,
        score: None,
    }
}

impl MemoryStore {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            bits: Arc::default(),
            codes: Arc::default(),
            terms: Arc::default(),
        }
    }

    /// Applies committed writes to the bit index (see `bit_cache`) and the codes' file: each
    /// fact's new vector, or None when it lost it.
    fn vectors_changed(&self, changes: &[CodeChange<'_>]) {
        self.codes.apply(changes);
        self.bits
            .apply(changes.iter().map(|(id, vector)| match vector {
                Some(vector) => BitChange::Put(*id, quantize(vector)),
                None => BitChange::Remove(*id),
            }));
    }

    /// What the codes' file is doing: made after the bit index, on the first search.
    pub fn vector_codes(&self) -> CodeState {
        self.codes.state()
    }

    /// Returns once the codes' file is made (it never is until memory is first searched).
    pub async fn vector_codes_built(&self) {
        self.codes.built().await;
    }

    /// What the bit index is doing: nothing is held until memory is first searched.
    pub fn vector_index(&self) -> IndexState {
        self.bits.state()
    }

    /// Returns once a build of the bit index under way has ended (at once when none runs).
    pub async fn vector_index_built(&self) {
        if let Some(mut ready) = self.bits.build_under_way() {
            let _ = ready.wait_for(|done| *done).await;
        }
    }

    /// The `k` facts fewest bits away, waiting for the index to be built from `facts_vec` when it
    /// is not loaded yet (for tests: searches use `bit_candidates_within`).
    #[cfg(test)]
    async fn bit_candidates(
        &self,
        query: &[f32],
        k: usize,
        dimension: usize,
    ) -> Result<Vec<i64>, sqlx::Error> {
        Ok(self
            .bit_candidates_within(query, |_| k, HAMMING_POOL, dimension, None)
            .await
            .unwrap_or_default())
    }

    /// Like `bit_candidates`, `size(facts in the index)` of them picked from `pool` times as
    /// many fewest bits away, but waiting at most `wait` for a build: `None` when the index is
    /// not ready by then (the search goes on by words; the build goes on by itself).
    async fn bit_candidates_within(
        &self,
        query: &[f32],
        size: impl Fn(usize) -> usize,
        pool: usize,
        dimension: usize,
        wait: Option<Duration>,
    ) -> Option<Vec<i64>> {
        let mut ready = match self.bits.nearest_or_build(query, &size, pool) {
            Lookup::Found(ids) => return Some(ids),
            Lookup::Wait(ready) => ready,
            Lookup::Start(build, ready) => {
                let facts = self.clone();
                tokio::spawn(async move {
                    let built = match facts.load_bits(dimension).await {
                        Ok(index) => Some(index),
                        Err(error) => {
                            tracing::warn!(%error, "memory's vector index could not be built");
                            None
                        }
                    };
                    facts.bits.finish(build, built);
                    if let Err(error) = facts.build_codes(dimension).await {
                        tracing::warn!(%error, "memory's vector codes could not be made");
                    }
                });
                ready
            }
        };
        let built = ready.wait_for(|done| *done);
        match wait {
            Some(wait) => {
                let _ = tokio::time::timeout(wait, built).await;
            }
            None => {
                let _ = built.await;
            }
        }
        self.bits.nearest(query, size, pool)
    }

    /// Reads every fact's bits from `facts_vec` into a new index, row by row (no copy of the
    /// whole table in between).
    async fn load_bits(&self, dimension: usize) -> Result<BitIndex, sqlx::Error> {
        // Room for every fact (only facts have vectors), counted on the smallest index rather
        // than the 3 KB rows of `fact_vectors`.
        let facts: i64 = sqlx::query_scalar("SELECT count(*) FROM facts")
            .fetch_one(self.store.pool())
            .await?;
        let mut index = BitIndex::with_capacity(dimension, usize::try_from(facts).unwrap_or(0));
        let mut late = Vec::new();
        let mut rows =
            sqlx::query_as::<_, (i64, Vec<u8>)>("SELECT rowid, embedding FROM facts_vec")
                .fetch(self.store.pool());
        while let Some((id, bytes)) = rows.try_next().await? {
            index.push_row(id, &bytes, &mut late);
        }
        drop(rows);
        index.merge_late(late);
        index.trim();
        Ok(index)
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub async fn insert(&self, fact: &NewFact, at: DateTime<Utc>) -> Result<i64, sqlx::Error> {
        let ids = self.insert_many(&[(fact.clone(), None)], at).await?;
        ids.first().copied().ok_or(sqlx::Error::RowNotFound)
    }

    /// Stores many facts (each with its vector, when it has one) in one transaction; answers
    /// their ids in order. For imports and the search benchmark.
    pub async fn insert_many(
        &self,
        facts: &[(NewFact, Option<Vec<f32>>)],
        at: DateTime<Utc>,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let at = stamp(at);
        let mut tx = self.store.begin_write().await?;
        let mut ids = Vec::with_capacity(facts.len());
        // Many rows a statement: each statement is a round trip to SQLite's own thread, which
        // made one a row most of an import's time.
        for part in facts.chunks(ROWS_PER_STATEMENT) {
            let mut insert = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
                "INSERT INTO facts (content, topics, source, memory_type, created_at, updated_at, \
                 expires_at, status, review_from, review_snippet, review_session_id) ",
            );
            insert.push_values(part, |mut row, (fact, _)| {
                let review = fact.review.as_ref();
                row.push_bind(fact.content.clone())
                    .push_bind(serde_json::to_string(&fact.topics).unwrap_or_else(|_| "[]".into()))
                    .push_bind(fact.source.clone())
                    .push_bind(fact.memory_type.as_str())
                    .push_bind(at.clone())
                    .push_bind(at.clone())
                    .push_bind(fact.expires_at.map(stamp))
                    .push_bind(if review.is_some() {
                        "pending"
                    } else {
                        "active"
                    })
                    .push_bind(review.map(|r| r.from.clone()))
                    .push_bind(review.and_then(|r| r.snippet.clone()))
                    .push_bind(review.and_then(|r| r.session_id.clone()));
            });
            insert.push(" RETURNING id");
            let mut made: Vec<i64> = insert.build_query_scalar().fetch_all(&mut *tx).await?;
            // Rows get growing ids in the order given (AUTOINCREMENT, one writer), whatever
            // order RETURNING lists them in.
            made.sort_unstable();
            ids.extend(made);
        }
        let vectors: Vec<(i64, &[f32])> = facts
            .iter()
            .zip(&ids)
            .filter_map(|((fact, vector), id)| {
                let vector = vector.as_deref().filter(|_| fact.review.is_none())?;
                Some((*id, vector))
            })
            .collect();
        write_vectors(&mut tx, &vectors).await?;
        // The words in one statement for the whole batch (FTS5 writes a segment per statement).
        sqlx::query(
            "INSERT INTO facts_fts (rowid, content) \
             SELECT id, content FROM facts WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(id_list(&ids))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        let changed: Vec<CodeChange<'_>> = vectors.iter().map(|(id, v)| (*id, Some(*v))).collect();
        self.vectors_changed(&changed);
        Ok(ids)
    }

    pub async fn get(&self, id: i64) -> Result<Option<Memory>, sqlx::Error> {
        let row = sqlx::query(safe(format!(
            "SELECT {FACT_COLUMNS} FROM facts WHERE id = ?"
        )))
        .bind(id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(fact_from_row))
    }

    /// Facts by id, in the order asked (missing ones left out).
    pub async fn get_many(&self, ids: &[i64]) -> Result<Vec<Memory>, sqlx::Error> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query(safe(format!(
            "SELECT {FACT_COLUMNS} FROM facts WHERE id IN (SELECT value FROM json_each(?))"
        )))
        .bind(id_list(ids))
        .fetch_all(self.store.pool())
        .await?;
        let mut by_id: HashMap<i64, Memory> =
            rows.iter().map(fact_from_row).map(|m| (m.id, m)).collect();
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }

    /// Remembered facts, newest first.
    pub async fn list(
        &self,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> Result<Vec<Memory>, sqlx::Error> {
        let mut sql = format!("SELECT {FACT_COLUMNS} FROM facts WHERE {REMEMBERED}");
        if filter.source.is_some() {
            sql.push_str(" AND source = ?");
        }
        if filter.topic.is_some() {
            sql.push_str(" AND EXISTS (SELECT 1 FROM json_each(facts.topics) WHERE value = ?)");
        }
        sql.push_str(" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?");
        let mut query = sqlx::query(safe(sql)).bind(stamp(now));
        if let Some(source) = &filter.source {
            query = query.bind(source);
        }
        if let Some(topic) = &filter.topic {
            query = query.bind(topic);
        }
        let rows = query
            .bind(filter.limit)
            .bind(filter.offset)
            .fetch_all(self.store.pool())
            .await?;
        Ok(rows.iter().map(fact_from_row).collect())
    }

    /// Every remembered fact id with its topics (for the topic counts and the map).
    pub async fn remembered_topics(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(i64, Vec<String>)>, sqlx::Error> {
        let rows = sqlx::query(safe(format!(
            "SELECT id, topics FROM facts WHERE {REMEMBERED}"
        )))
        .bind(stamp(now))
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| {
                let topics = r
                    .try_get::<String, _>("topics")
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default();
                (r.try_get("id").unwrap_or_default(), topics)
            })
            .collect())
    }

    /// The newest remembered facts (for the map).
    pub async fn newest_remembered(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Memory>, sqlx::Error> {
        self.list(
            &ListFilter {
                limit,
                ..ListFilter::default()
            },
            now,
        )
        .await
    }

    /// Ids of facts whose words match `query`, best first. `remembered_at` keeps to remembered
    /// facts; `None` searches every fact (pending ones too, for duplicate checks).
    pub async fn keyword_ids(
        &self,
        query: &str,
        limit: usize,
        remembered_at: Option<DateTime<Utc>>,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let telling = self.telling_words(query).await?;
        let Some(matcher) = fts5_match(&telling.words) else {
            return Ok(Vec::new());
        };
        // FTS5's own order, rowids only, and then whether each is still remembered, asked of the
        // best first and of more only when some of those were not: reading a fact's row costs
        // tens of microseconds when it is out of the page cache (a million facts), and joining
        // `facts` to every hit read all `limit × 4` (24 ms against 6 for FTS5 alone).
        let hits: Vec<i64> = if telling.too_many_to_score() {
            self.hits_with_most_words(&telling.counts, limit * 4)
                .await?
        } else {
            // Any of the words, not all: FTS5 joins phrases with AND unless told OR.
            let matcher = matcher.split("\" \"").collect::<Vec<_>>().join("\" OR \"");
            // FTS5 ranks its own top hits first (`ORDER BY rank LIMIT`), or for a word most facts
            // have, hands over the newest (`rowid DESC`, which stops early); held or expired ones
            // are dropped after, so it is asked for a few more than wanted.
            let order = if telling.by_rank {
                "rank"
            } else {
                "rowid DESC"
            };
            sqlx::query_scalar(safe(format!(
                "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY {order} LIMIT ?"
            )))
            .bind(matcher)
            .bind((limit * 4) as i64)
            .fetch_all(self.store.pool())
            .await?
        };
        match remembered_at {
            Some(now) => self.keep_remembered(hits, |id| *id, limit, now).await,
            None => Ok(hits.into_iter().take(limit).collect()),
        }
    }

    /// Up to `wanted` facts with the most of these words (rarest first, with their counts),
    /// without scoring every fact with any of them: those with two or more, ranked by FTS5, then
    /// those with one, word by word from the rarest, newest first (a single word: its newest).
    /// What a search finally ranks by is similarity plus the share of the query's words a fact
    /// has (`search::score`), so which of the many facts with one word come first barely matters, and scoring them all cost 14 ms
    /// at a million facts for three words in 1,700 facts each (3 ms this way).
    async fn hits_with_most_words(
        &self,
        counts: &[(String, i64)],
        wanted: usize,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let phrases: Vec<String> = counts
            .iter()
            .take(PAIRED_WORDS)
            .filter_map(|(word, _)| fts5_match(word))
            .collect();
        let pairs: Vec<String> = phrases
            .iter()
            .enumerate()
            .flat_map(|(n, a)| {
                phrases[n + 1..]
                    .iter()
                    .map(move |b| format!("({a} AND {b})"))
            })
            .collect();
        let mut hits: Vec<i64> = if pairs.is_empty() {
            Vec::new()
        } else {
            sqlx::query_scalar(
                "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rank LIMIT ?",
            )
            .bind(pairs.join(" OR "))
            .bind(wanted as i64)
            .fetch_all(self.store.pool())
            .await?
        };
        let mut seen: std::collections::HashSet<i64> = hits.iter().copied().collect();
        for (word, _) in counts {
            if hits.len() >= wanted {
                break;
            }
            let Some(phrase) = fts5_match(word) else {
                continue;
            };
            // Asked for as many as could still be wanted, since some may be among the hits.
            let newest: Vec<i64> = sqlx::query_scalar(
                "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            )
            .bind(phrase)
            .bind(wanted as i64)
            .fetch_all(self.store.pool())
            .await?;
            for id in newest {
                if hits.len() < wanted && seen.insert(id) {
                    hits.push(id);
                }
            }
        }
        Ok(hits)
    }

    /// The query's words that tell facts apart: in a large memory, words that more than
    /// [`COMMON_SHARE`] of the facts contain are left out (FTS5 would score every one of those
    /// facts for a word that barely moves the ranking). When every word is that common, the
    /// rarest stays and `by_rank` is false: the newest matches are taken instead of scoring them
    /// all. Small memories search every word, by rank.
    async fn telling_words(&self, query: &str) -> Result<TellingWords, sqlx::Error> {
        let mut words = crate::search::words(query);
        words.sort();
        words.dedup();
        let every = |words: &[String]| TellingWords {
            words: words.join(" "),
            by_rank: true,
            counts: Vec::new(),
        };
        if words.is_empty() {
            return Ok(every(&words));
        }
        // The highest id stands in for the count (deleted facts only make it generous).
        let facts: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM facts")
            .fetch_one(self.store.pool())
            .await?;
        if facts < COMMON_FROM {
            return Ok(every(&words));
        }
        let counts = self.term_counts(&words, facts).await?;
        let common = (facts as f64 * COMMON_SHARE) as i64;
        let count = |w: &String| counts.get(w).copied().unwrap_or(0);
        let telling: Vec<String> = words
            .iter()
            .filter(|w| count(w) <= common)
            .cloned()
            .collect();
        if telling.is_empty() {
            return Ok(TellingWords {
                words: words
                    .iter()
                    .min_by_key(|w| count(w))
                    .cloned()
                    .unwrap_or_default(),
                by_rank: false,
                counts: Vec::new(),
            });
        }
        let mut counts: Vec<(String, i64)> =
            telling.iter().map(|w| (w.clone(), count(w))).collect();
        counts.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        Ok(TellingWords {
            counts,
            ..every(&telling)
        })
    }

    /// How many facts contain each word. Counting a common word reads its whole posting list,
    /// so counts are kept until the number of facts moves by a tenth (a share is all they are
    /// used for).
    async fn term_counts(
        &self,
        words: &[String],
        facts: i64,
    ) -> Result<HashMap<String, i64>, sqlx::Error> {
        let mut known = HashMap::new();
        let mut missing = Vec::new();
        {
            let mut cache = self.terms.lock_unpoisoned();
            let drifted = (facts - cache.facts).abs() * 10 > cache.facts;
            if drifted || cache.docs.len() > TERM_CACHE_WORDS {
                cache.docs.clear();
                cache.facts = facts;
            }
            for word in words {
                match cache.docs.get(word) {
                    Some(n) => {
                        known.insert(word.clone(), *n);
                    }
                    None => missing.push(word.clone()),
                }
            }
        }
        if missing.is_empty() {
            return Ok(known);
        }
        // One lookup per word: fts5vocab answers `term = ?` from its index, but walks the whole
        // vocabulary for an IN list.
        let mut conn = self.store.pool().acquire().await?;
        let mut found = Vec::with_capacity(missing.len());
        for word in missing {
            let doc: Option<i64> =
                sqlx::query_scalar("SELECT doc FROM facts_fts_terms WHERE term = ?")
                    .bind(&word)
                    .fetch_optional(&mut *conn)
                    .await?;
            found.push((word, doc.unwrap_or(0)));
        }
        let mut cache = self.terms.lock_unpoisoned();
        for (word, n) in found {
            cache.docs.insert(word.clone(), n);
            known.insert(word, n);
        }
        Ok(known)
    }

    /// A fact with exactly these words (case-blind, spaces squeezed): a remembered one, or with
    /// `include_held` a held one too.
    pub async fn same_words(
        &self,
        content: &str,
        include_held: bool,
    ) -> Result<Option<Memory>, sqlx::Error> {
        let wanted = normalize(content);
        for id in self.keyword_ids(content, 20, None).await? {
            if let Some(fact) = self.get(id).await?
                && (include_held || fact.status == FactStatus::Active)
                && normalize(&fact.content) == wanted
            {
                return Ok(Some(fact));
            }
        }
        Ok(None)
    }

    /// Replaces a fact's text (keeping the old as `previous_content`) and its analysis.
    pub async fn update(
        &self,
        id: i64,
        content: &str,
        topics: &[String],
        memory_type: MemoryType,
        expires_at: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE facts SET previous_content = CASE WHEN content = ?1 THEN previous_content ELSE content END, \
             content = ?1, topics = ?2, memory_type = ?3, expires_at = ?4, updated_at = ?5 WHERE id = ?6",
        )
        .bind(content)
        .bind(serde_json::to_string(topics).unwrap_or_else(|_| "[]".into()))
        .bind(memory_type.as_str())
        .bind(expires_at.map(stamp))
        .bind(stamp(at))
        .bind(id)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Makes a held fact remembered (its review note stays, saying where it came from).
    pub async fn activate(&self, id: i64, at: DateTime<Utc>) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE facts SET status = 'active', updated_at = ? WHERE id = ? AND status = 'pending'",
        )
        .bind(stamp(at))
        .bind(id)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Deletes a fact and its vector; false when there was none.
    pub async fn delete(&self, id: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.store.begin_write().await?;
        let done = sqlx::query("DELETE FROM facts WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // fact_vectors follows by its foreign key; the vec0 table has none.
        if self.has_vector_table(&mut *tx).await? {
            sqlx::query("DELETE FROM facts_vec WHERE rowid = ?")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        self.vectors_changed(&[(id, None)]);
        Ok(done.rows_affected() > 0)
    }

    /// Deletes every fact matching `condition` (a SQL condition over `facts` with one `?`),
    /// vectors too; answers the ids deleted.
    async fn delete_where(&self, condition: &str, value: &str) -> Result<Vec<i64>, sqlx::Error> {
        let mut tx = self.store.begin_write().await?;
        let ids: Vec<i64> = sqlx::query_scalar(safe(format!(
            "DELETE FROM facts WHERE {condition} RETURNING id"
        )))
        .bind(value)
        .fetch_all(&mut *tx)
        .await?;
        if !ids.is_empty() && self.has_vector_table(&mut *tx).await? {
            for id in &ids {
                sqlx::query("DELETE FROM facts_vec WHERE rowid = ?")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        let changed: Vec<CodeChange<'_>> = ids.iter().map(|id| (*id, None)).collect();
        self.vectors_changed(&changed);
        Ok(ids)
    }

    /// Every fact of a source, held ones too.
    pub async fn delete_source(&self, source: &str) -> Result<Vec<i64>, sqlx::Error> {
        self.delete_where("source = ?", source).await
    }

    /// Short-term facts whose time has passed.
    pub async fn delete_expired(&self, now: DateTime<Utc>) -> Result<Vec<i64>, sqlx::Error> {
        self.delete_where(
            "status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?",
            &stamp(now),
        )
        .await
    }

    /// Held facts created before `before` (nobody reviewed them in time).
    pub async fn delete_held_before(&self, before: DateTime<Utc>) -> Result<Vec<i64>, sqlx::Error> {
        self.delete_where("status = 'pending' AND created_at < ?", &stamp(before))
            .await
    }

    /// Held facts, newest first (at most `limit`), and how many there are in all.
    pub async fn held(&self, limit: i64) -> Result<(Vec<Memory>, i64), sqlx::Error> {
        // One read transaction: a fact held between the two reads would otherwise be counted
        // but missing from the page.
        let mut read = self.store.pool().begin().await?;
        let rows = sqlx::query(safe(format!(
            "SELECT {FACT_COLUMNS} FROM facts WHERE status = 'pending' \
             ORDER BY created_at DESC, id DESC LIMIT ?"
        )))
        .bind(limit)
        .fetch_all(&mut *read)
        .await?;
        let (count,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM facts WHERE status = 'pending'")
                .fetch_one(&mut *read)
                .await?;
        read.commit().await?;
        Ok((rows.iter().map(fact_from_row).collect(), count))
    }

    /// Ids of every held fact whose review note names `from`.
    pub async fn held_from(&self, from: &str) -> Result<Vec<i64>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT id FROM facts WHERE status = 'pending' AND review_from = ? ORDER BY id",
        )
        .bind(from)
        .fetch_all(self.store.pool())
        .await
    }

    /// Counts recalls (the prompt and memory_recall): `recall_count`, `last_recalled_at`.
    pub async fn count_recalls(&self, ids: &[i64], at: DateTime<Utc>) -> Result<(), sqlx::Error> {
        if ids.is_empty() {
            return Ok(());
        }
        sqlx::query(
            "UPDATE facts SET recall_count = recall_count + 1, last_recalled_at = ? \
             WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(stamp(at))
        .bind(id_list(ids))
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Ids of remembered facts that have no vector yet (new index, or made while the embedding
    /// model did not answer).
    pub async fn ids_without_vector(&self, limit: i64) -> Result<Vec<i64>, sqlx::Error> {
        let mut conn = self.store.pool().acquire().await?;
        if !self.has_vector_table(&mut *conn).await? {
            return Ok(Vec::new());
        }
        sqlx::query_scalar(
            "SELECT id FROM facts WHERE status = 'active' \
             AND id NOT IN (SELECT id FROM fact_vectors) ORDER BY id LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&mut *conn)
        .await
    }

    /// Summaries without a vector (a new embedding model remade the tables), oldest first.
    pub async fn summaries_without_vector(
        &self,
        limit: i64,
    ) -> Result<Vec<(i64, String)>, sqlx::Error> {
        let mut conn = self.store.pool().acquire().await?;
        if !self.has_vector_table(&mut *conn).await? {
            return Ok(Vec::new());
        }
        sqlx::query_as(
            "SELECT id, content FROM summaries \
             WHERE id NOT IN (SELECT rowid FROM summaries_vec) ORDER BY id LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&mut *conn)
        .await
    }

    /// Stores (replacing) a summary's vector.
    pub async fn put_summary_vector(&self, id: i64, vector: &[f32]) -> Result<(), sqlx::Error> {
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM summaries_vec WHERE rowid = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO summaries_vec (rowid, embedding) VALUES (?, ?)")
            .bind(id)
            .bind(vector_bytes(vector))
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Hybrid search: vector neighbours (at least `min_similarity` close) and word matches,
    /// fused by reciprocal rank, then ranked by the contract's score. Without a query vector it
    /// searches words only and similarity stays null.
    pub async fn hybrid(&self, q: &HybridQuery<'_>) -> Result<Vec<Memory>, sqlx::Error> {
        // Both searches at once: the words on a task of their own (so the in-memory bit scan
        // here never holds them up), each on its own connection.
        // The bit scan first, alone: it keeps every core busy for a few milliseconds, and the word
        // search beside it only slowed both (bench:recall, 2 cores, a million facts: 30 ms
        // together against 27 one after the other). The words then run while the candidates'
        // rows are read, which waits on SQLite more than on the processor.
        let first = match q.vector {
            Some(v) => {
                self.first_pass(v, PER_SEARCH, first_pass_size, HAMMING_POOL)
                    .await?
            }
            None => None,
        };
        let keyword = {
            let (facts, text, now) = (self.clone(), q.text.to_owned(), q.now);
            tokio::spawn(async move { facts.keyword_ids(&text, PER_SEARCH, Some(now)).await })
        };
        let near = match (q.vector, first) {
            (Some(v), Some(first)) => self.rank_exactly(v, first, PER_SEARCH, q.now).await?,
            _ => Vec::new(),
        };
        let words = keyword
            .await
            .map_err(|e| sqlx::Error::Protocol(format!("the word search failed: {e}")))??;
        self.rank_hybrid(q, &near, &words).await
    }

    /// Hybrid search's second half: vector neighbours (`(id, similarity)`, best first) and word
    /// matches (ids, best first) fused and scored. Public so that the benchmark can rank exact
    /// neighbours the same way and compare.
    pub async fn rank_hybrid(
        &self,
        q: &HybridQuery<'_>,
        near: &[(i64, f64)],
        words: &[i64],
    ) -> Result<Vec<Memory>, sqlx::Error> {
        let mut candidates = fuse(near, words, q.limit.saturating_mul(3));
        // Word-only hits get their similarity from their stored vector.
        if let Some(v) = q.vector {
            let missing: Vec<i64> = candidates
                .iter()
                .filter(|c| c.similarity.is_none())
                .map(|c| c.id)
                .collect();
            let stored = self.vectors(&missing).await?;
            for c in &mut candidates {
                if c.similarity.is_none() {
                    c.similarity = stored.get(&c.id).map(|s| cosine(v, s));
                }
            }
        }
        // A neighbour by meaning alone must be close enough; a fact with the words always counts.
        candidates.retain(|c| {
            words.contains(&c.id) || c.similarity.is_some_and(|s| s >= q.min_similarity)
        });
        let ids: Vec<i64> = candidates.iter().map(|c| c.id).collect();
        let mut facts = self.get_many(&ids).await?;
        facts.retain(|f| {
            q.filter.source.as_ref().is_none_or(|s| &f.source == s)
                && q.filter.topic.as_ref().is_none_or(|t| f.topics.contains(t))
        });
        for fact in &mut facts {
            let similarity = candidates
                .iter()
                .find(|c| c.id == fact.id)
                .and_then(|c| c.similarity);
            fact.similarity = similarity;
            fact.score = Some(score(
                similarity,
                q.keyword_weight,
                word_share(q.text, &fact.content),
            ));
        }
        // Best score first; the fused rank (the order of `facts`) breaks ties.
        facts.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
        facts.truncate(q.limit);
        Ok(facts)
    }

    // ---- the vector index ----

    pub async fn index_info(&self) -> Option<IndexInfo> {
        self.store.meta_get(INDEX_META_KEY).await.ok().flatten()
    }

    async fn has_vector_table<'c, X>(&self, executor: X) -> Result<bool, sqlx::Error>
    where
        X: sqlx::Executor<'c, Database = sqlx::Sqlite>,
    {
        let found: Option<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'facts_vec'",
        )
        .fetch_optional(executor)
        .await?;
        Ok(found.is_some())
    }

    /// Makes (or remakes, dropping the old vectors) the vector tables for `info`.
    pub async fn create_index(
        &self,
        info: &IndexInfo,
        at: DateTime<Utc>,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.store.begin_write().await?;
        for table in ["facts_vec", "summaries_vec"] {
            sqlx::query(safe(format!("DROP TABLE IF EXISTS {table}")))
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(safe(format!(
            "CREATE VIRTUAL TABLE facts_vec USING vec0(embedding {})",
            first_pass_column(info.dimension)
        )))
        .execute(&mut *tx)
        .await?;
        sqlx::query(safe(format!(
            "CREATE VIRTUAL TABLE summaries_vec USING vec0(embedding float[{}] distance_metric=cosine)",
            info.dimension
        )))
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM fact_vectors")
            .execute(&mut *tx)
            .await?;
        let text = serde_json::to_string(info).unwrap_or_default();
        sqlx::query(
            "INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) \
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(INDEX_META_KEY)
        .bind(text)
        .bind(stamp(at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        // Built again (empty, then with the new vectors) on the next search.
        self.bits.reset();
        self.codes.reset();
        Ok(())
    }

    /// Stores (replacing) a fact's vector.
    pub async fn put_vector(&self, id: i64, vector: &[f32]) -> Result<(), sqlx::Error> {
        let mut tx = self.store.begin_write().await?;
        // vec0 has no upsert.
        sqlx::query("DELETE FROM facts_vec WHERE rowid = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        write_vectors(&mut tx, &[(id, vector)]).await?;
        tx.commit().await?;
        self.vectors_changed(&[(id, Some(vector))]);
        Ok(())
    }

    pub async fn delete_vector(&self, id: i64) -> Result<(), sqlx::Error> {
        let mut conn = self.store.pool().acquire().await?;
        // Out of the cache first: a search between the two deletes must not find it.
        self.vectors_changed(&[(id, None)]);
        if self.has_vector_table(&mut *conn).await? {
            sqlx::query("DELETE FROM facts_vec WHERE rowid = ?")
                .bind(id)
                .execute(&mut *conn)
                .await?;
        }
        sqlx::query("DELETE FROM fact_vectors WHERE id = ?")
            .bind(id)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// The `k` nearest vectors to `query` as `(id, cosine similarity)`, nearest first. A first
    /// pass over the vectors as bits (32 times smaller than float32: Hamming distance, then the
    /// best of those re-ordered by the query's values) picks `first_pass_size` candidates; their
    /// float32 vectors, read by id, are then ranked exactly.
    /// Pending facts have no vector, so they are never among them; expired ones are left out
    /// here. While the bit index is being built (the first search after start, a second or so
    /// at a million facts) this answers nothing and search goes by words.
    pub async fn nearest(
        &self,
        query: &[f32],
        k: usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<(i64, f64)>, sqlx::Error> {
        self.nearest_among(query, k, first_pass_size, now).await
    }

    /// `nearest` with another number of candidates for the float32 rank (`size(facts)`, at
    /// least `k`): for the benchmark, which measures what each number costs and finds.
    pub async fn nearest_among(
        &self,
        query: &[f32],
        k: usize,
        size: impl Fn(usize) -> usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<(i64, f64)>, sqlx::Error> {
        self.nearest_among_pool(query, k, size, HAMMING_POOL, now)
            .await
    }

    /// `nearest_among` with the candidates picked from `pool` times as many fewest bits away
    /// (1: by bit counts alone): for the benchmark.
    pub async fn nearest_among_pool(
        &self,
        query: &[f32],
        k: usize,
        size: impl Fn(usize) -> usize,
        pool: usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<(i64, f64)>, sqlx::Error> {
        match self.first_pass(query, k, size, pool).await? {
            Some(first) => self.rank_exactly(query, first, k, now).await,
            None => Ok(Vec::new()),
        }
    }

    /// The vector search's first pass: the candidates for the exact rank, from the bits (or
    /// sqlite-vec's own search for a dimension that isn't whole bytes). None while there is no
    /// index or its bits are still being built.
    async fn first_pass(
        &self,
        query: &[f32],
        k: usize,
        size: impl Fn(usize) -> usize,
        pool: usize,
    ) -> Result<Option<Vec<i64>>, sqlx::Error> {
        let Some(info) = self.index_info().await else {
            return Ok(None);
        };
        let first: Vec<i64> = if info.dimension.is_multiple_of(8) && query.len() == info.dimension {
            match self
                .bit_candidates_within(
                    query,
                    |facts| size(facts).max(k),
                    pool,
                    info.dimension,
                    Some(BUILD_WAIT),
                )
                .await
            {
                Some(ids) => ids,
                None => return Ok(None),
            }
        } else {
            sqlx::query_scalar(safe(format!(
                "SELECT rowid FROM facts_vec WHERE embedding MATCH {} AND k = ?",
                first_pass_value(info.dimension)
            )))
            .bind(vector_bytes(query))
            .bind(FIRST_PASS.max(k) as i64)
            .fetch_all(self.store.pool())
            .await?
        };
        Ok(Some(first))
    }

    /// The first pass's candidates ranked by their float32 vectors: the `k` nearest that are
    /// remembered at `now`, as `(id, cosine similarity)`, nearest first.
    async fn rank_exactly(
        &self,
        query: &[f32],
        first: Vec<i64>,
        k: usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<(i64, f64)>, sqlx::Error> {
        // Many candidates (a large memory's) are ranked by their int8 codes first, and only the
        // best of those read as float32 (a row out of the page cache costs tens of microseconds).
        // A small memory's hundred are read as they are: all cached, the codes only add a pass
        // (bench:recall at 100,000 facts: 6.6 ms with it, 5.5 without).
        let exact = codes::exact_rank_size(k);
        let first = if first.len() > FIRST_PASS.max(exact) {
            self.codes.best(query, &first, exact)
        } else {
            first
        };
        // The candidates' similarities, in one query per part: two parts at once on their own
        // connections when there are more than a few (the reads wait on the disk).
        // By id alone; whether each is still remembered is asked only of the best (below),
        // which saves a lookup in `facts` for each of those that rank lower.
        let parts = if first.len() > PER_SEARCH { 2 } else { 1 };
        let query_bytes = vector_bytes(query);
        let reads = first
            .chunks(first.len().div_ceil(parts).max(1))
            .map(|part| self.similarities(part, &query_bytes));
        let mut ranked: Vec<(i64, f64)> = futures::future::try_join_all(reads)
            .await?
            .into_iter()
            .flatten()
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        self.keep_remembered(ranked, |(id, _)| *id, k, now).await
    }

    /// Makes the codes' file after the bit index's build: every stored vector, read a batch at
    /// a time in id order (each batch its own read, so no snapshot is held for the whole table),
    /// while writes already go to the file. Nothing for a database without a folder (in memory).
    async fn build_codes(&self, dimension: usize) -> Result<(), sqlx::Error> {
        let file: Option<String> =
            sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                .fetch_optional(self.store.pool())
                .await?;
        let Some(folder) = file
            .filter(|f| !f.is_empty())
            .and_then(|f| std::path::Path::new(&f).parent().map(|p| p.to_owned()))
        else {
            return Ok(());
        };
        let facts = match self.bits.state() {
            IndexState::Ready { facts, .. } => facts,
            _ => 0,
        };
        let generation = match CodeFile::new(&folder, dimension, facts) {
            Ok(file) => self.codes.start(file),
            Err(error) => {
                tracing::warn!(%error, "memory's vector codes' file could not be made");
                return Ok(());
            }
        };
        let mut after = i64::MIN;
        loop {
            let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as(
                "SELECT id, embedding FROM fact_vectors WHERE id > ? ORDER BY id LIMIT ?",
            )
            .bind(after)
            .bind(CODE_BUILD_BATCH)
            .fetch_all(self.store.pool())
            .await?;
            let Some((last, _)) = rows.last() else { break };
            after = *last;
            let vectors: Vec<(i64, Vec<f32>)> = rows
                .iter()
                .map(|(id, bytes)| (*id, vector_from_bytes(bytes)))
                .collect();
            if !self.codes.fill(generation, &vectors) {
                return Ok(());
            }
        }
        self.codes.finish(generation);
        Ok(())
    }

    /// The first `k` of `ranked` (best first) that are remembered at `now`: active and not
    /// expired. Asked a few more than `k` at a time, since nearly every fact with a vector is.
    async fn keep_remembered<T: Copy>(
        &self,
        ranked: Vec<T>,
        id_of: impl Fn(&T) -> i64,
        k: usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<T>, sqlx::Error> {
        let mut kept = Vec::with_capacity(k);
        let step = k + k / 4 + 8;
        for part in ranked.chunks(step) {
            if kept.len() >= k {
                break;
            }
            let ids: Vec<i64> = part.iter().map(&id_of).collect();
            let remembered: std::collections::HashSet<i64> =
                self.remembered(&ids, now).await?.into_iter().collect();
            kept.extend(part.iter().filter(|hit| remembered.contains(&id_of(hit))));
        }
        kept.truncate(k);
        Ok(kept)
    }

    /// Which of these facts are remembered at `now`. Looked up by id: `+status` keeps SQLite off
    /// the status index, which would walk every active fact (10 ms at 100,000) to find these.
    async fn remembered(&self, ids: &[i64], now: DateTime<Utc>) -> Result<Vec<i64>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT id FROM facts WHERE id IN (SELECT value FROM json_each(?)) \
             AND +status = 'active' AND (expires_at IS NULL OR expires_at > ?)",
        )
        .bind(id_list(ids))
        .bind(stamp(now))
        .fetch_all(self.store.pool())
        .await
    }

    /// The stored float32 vectors (as bytes) of these facts, in id order (the order the
    /// table's pages are in).
    /// The cosine similarity of `query` (float32 bytes) to each of these facts' stored vectors,
    /// computed inside SQLite by sqlite-vec, so the 3 KB vectors are not copied out (a little
    /// faster; the time is in finding each row). Vectors of another length (a re-index under
    /// way) are left out.
    async fn similarities(
        &self,
        ids: &[i64],
        query: &[u8],
    ) -> Result<Vec<(i64, f64)>, sqlx::Error> {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sqlx::query_as(
            "SELECT id, 1.0 - vec_distance_cosine(embedding, ?1) FROM fact_vectors \
             WHERE id IN (SELECT value FROM json_each(?2)) AND length(embedding) = length(?1)",
        )
        .bind(query)
        .bind(id_list(&sorted))
        .fetch_all(self.store.pool())
        .await
    }

    async fn stored_vectors(&self, ids: &[i64]) -> Result<Vec<(i64, Vec<u8>)>, sqlx::Error> {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sqlx::query_as(
            "SELECT id, embedding FROM fact_vectors WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(id_list(&sorted))
        .fetch_all(self.store.pool())
        .await
    }

    /// The stored float32 vectors of these facts.
    pub async fn vectors(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<f32>>, sqlx::Error> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let rows = self.stored_vectors(ids).await?;
        Ok(rows
            .into_iter()
            .map(|(id, bytes)| (id, vector_from_bytes(&bytes)))
            .collect())
    }

    // ---- summaries of past chats ----

    /// For each chat: its id, its mark, and the last message already summarized.
    pub async fn chats_to_summarize(
        &self,
    ) -> Result<Vec<(String, Option<String>, i64)>, sqlx::Error> {
        sqlx::query_as(
            "SELECT s.id, NULLIF(s.untrusted, ''), \
             COALESCE((SELECT MAX(last_seq) FROM summaries WHERE session_id = s.id), 0) \
             FROM chat_sessions s ORDER BY s.updated_at",
        )
        .fetch_all(self.store.pool())
        .await
    }

    /// Up to `limit` of a chat's user and assistant messages after `after_seq`, written before
    /// `before`, oldest first: `(seq, role, content, created_at)`.
    pub async fn messages_to_summarize(
        &self,
        session_id: &str,
        after_seq: i64,
        before: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(i64, String, String, String)>, sqlx::Error> {
        sqlx::query_as(
            "SELECT seq, role, content, created_at FROM chat_messages \
             WHERE session_id = ? AND seq > ? AND created_at <= ? AND role IN ('user', 'assistant') \
             AND interjection = 0 AND hidden = 0 ORDER BY seq LIMIT ?",
        )
        .bind(session_id)
        .bind(after_seq)
        .bind(stamp(before))
        .bind(limit)
        .fetch_all(self.store.pool())
        .await
    }

    /// Saves a summary (with its vector when there is one) and logs it in `evolution_log`.
    pub async fn insert_summary(
        &self,
        summary: &Summary,
        last_seq: i64,
        vector: Option<&[f32]>,
        at: DateTime<Utc>,
    ) -> Result<i64, sqlx::Error> {
        let mut tx = self.store.begin_write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO summaries (content, start_at, end_at, session_id, untrusted, last_seq, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(&summary.content)
        .bind(stamp(summary.start_at))
        .bind(stamp(summary.end_at))
        .bind(&summary.session_id)
        .bind(&summary.untrusted)
        .bind(last_seq)
        .bind(stamp(at))
        .fetch_one(&mut *tx)
        .await?;
        if let Some(vector) = vector
            && self
                .index_info()
                .await
                .is_some_and(|i| i.dimension == vector.len())
        {
            sqlx::query("INSERT INTO summaries_vec (rowid, embedding) VALUES (?, ?)")
                .bind(id)
                .bind(vector_bytes(vector))
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT INTO evolution_log (kind, detail, created_at) VALUES ('summary_created', ?, ?)",
        )
        .bind(serde_json::json!({"summary_id": id, "session_id": summary.session_id}).to_string())
        .bind(stamp(at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    pub async fn summaries(&self, limit: i64) -> Result<Vec<Summary>, sqlx::Error> {
        let rows = sqlx::query(safe(format!(
            "SELECT {SUMMARY_COLUMNS} FROM summaries \
             LEFT JOIN chat_sessions ON chat_sessions.id = summaries.session_id \
             ORDER BY summaries.end_at DESC, summaries.id DESC LIMIT ?"
        )))
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.iter().map(summary_from).collect())
    }

    /// Summaries of chats that never read outside content (left out before ranking, so they
    /// never crowd out clean ones), nearest to `vector` first, with their similarity. Without a
    /// vector (or vectors): the newest [`WORD_RANKED_SUMMARIES`], unranked, for a word match.
    pub async fn clean_summaries(
        &self,
        vector: Option<&[f32]>,
        limit: i64,
    ) -> Result<Vec<(Summary, Option<f64>)>, sqlx::Error> {
        const CLEAN: &str = "COALESCE(summaries.untrusted, '') = '' \
             AND COALESCE(chat_sessions.untrusted, '') = ''";
        let indexed = match (vector, self.index_info().await) {
            (Some(v), Some(info)) if info.dimension == v.len() => Some(v),
            _ => None,
        };
        if let Some(vector) = indexed {
            let rows = sqlx::query(safe(format!(
                "SELECT {SUMMARY_COLUMNS}, vec_distance_cosine(summaries_vec.embedding, ?) AS distance \
                 FROM summaries JOIN summaries_vec ON summaries_vec.rowid = summaries.id \
                 LEFT JOIN chat_sessions ON chat_sessions.id = summaries.session_id \
                 WHERE {CLEAN} ORDER BY distance, summaries.id DESC LIMIT ?"
            )))
            .bind(vector_bytes(vector))
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?;
            return Ok(rows
                .iter()
                .map(|r| {
                    let distance: f64 = r.try_get("distance").unwrap_or(1.0);
                    (summary_from(r), Some(1.0 - distance))
                })
                .collect());
        }
        let rows = sqlx::query(safe(format!(
            "SELECT {SUMMARY_COLUMNS} FROM summaries \
             LEFT JOIN chat_sessions ON chat_sessions.id = summaries.session_id \
             WHERE {CLEAN} ORDER BY summaries.end_at DESC LIMIT ?"
        )))
        .bind(WORD_RANKED_SUMMARIES)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.iter().map(|r| (summary_from(r), None)).collect())
    }
}

/// How many of the newest clean summaries a word match looks through.
pub const WORD_RANKED_SUMMARIES: i64 = 2_000;

/// A summary's columns, its mark taken from its chat when it has none of its own.
const SUMMARY_COLUMNS: &str = "summaries.id, summaries.content, summaries.start_at, \
    summaries.end_at, summaries.session_id, \
    COALESCE(summaries.untrusted, NULLIF(chat_sessions.untrusted, '')) AS untrusted";

fn summary_from(r: &sqlx::sqlite::SqliteRow) -> Summary {
    let time = |name: &str| {
        r.try_get::<String, _>(name)
            .ok()
            .and_then(|t| parse_stamp(&t))
            .unwrap_or_default()
    };
    Summary {
        id: r.try_get("id").unwrap_or_default(),
        content: r.try_get("content").unwrap_or_default(),
        start_at: time("start_at"),
        end_at: time("end_at"),
        session_id: r.try_get("session_id").ok().flatten(),
        untrusted: r
            .try_get::<Option<String>, _>("untrusted")
            .ok()
            .flatten()
            .filter(|u| !u.is_empty()),
    }
}

/// A word in more than this share of the facts is too common to search by (see `telling_words`).
pub const COMMON_SHARE: f64 = 0.02;
/// Below this many facts every word is searched.
pub const COMMON_FROM: i64 = 2_000;

/// How many candidates the bit search hands to the exact float32 rank at least
/// (`npm run bench:recall` measures recall@10 and time against exact float32 search).
pub const FIRST_PASS: usize = 100;

/// Facts per further candidate: the number handed on grows with the corpus, because the facts
/// about as near to a query as its true top ten grow with it. Bit counts alone could not order
/// those (recall@10 at a million facts: 0.49 with 100 candidates, 0.99 with 800); re-ordered by
/// the query's values (`BitIndex::nearest_rescored`), far fewer are needed (docs/benchmarks.md,
/// "Memory search").
pub const FACTS_PER_CANDIDATE: usize = 1_667;

/// Vectors read at a time while the codes' file is made.
const CODE_BUILD_BATCH: i64 = 1_000;

/// How long a search waits for the bit index's build before going on by words alone: a small
/// memory is built well within it, a million facts take longer.
pub const BUILD_WAIT: Duration = Duration::from_millis(250);

/// Candidates the bit pass hands to the float32 rank for a corpus of `facts`.
pub fn first_pass_size(facts: usize) -> usize {
    FIRST_PASS.max(facts / FACTS_PER_CANDIDATE)
}

/// The first-pass column: bits when the dimension is a whole number of bytes (every embedding
/// model's is), else float32.
fn first_pass_column(dimension: usize) -> String {
    if dimension.is_multiple_of(8) {
        format!("bit[{dimension}]")
    } else {
        format!("float[{dimension}] distance_metric=cosine")
    }
}

/// How a float32 query is matched against that column.
fn first_pass_value(dimension: usize) -> &'static str {
    if dimension.is_multiple_of(8) {
        "vec_quantize_binary(?)"
    } else {
        "?"
    }
}

/// Ids as a JSON array, for `IN (SELECT value FROM json_each(?))` (one bound value, any length).
fn id_list(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())
}

/// Rows a multi-row statement writes at a time (the facts' 11 values each stay well under SQLite's
/// 32,766 bound values a statement).
const ROWS_PER_STATEMENT: usize = 500;

/// Writes facts' vectors: bits (or float32) for the first pass, float32 by id for the codes'
/// file and the exact rank; many rows a statement.
async fn write_vectors(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    vectors: &[(i64, &[f32])],
) -> Result<(), sqlx::Error> {
    for part in vectors.chunks(ROWS_PER_STATEMENT) {
        // The dimension is the same for every fact of one index.
        let Some(dimension) = part.first().map(|(_, v)| v.len()) else {
            continue;
        };
        let as_bits = dimension.is_multiple_of(8);
        let rows: Vec<(i64, Vec<u8>)> = part
            .iter()
            .map(|(id, vector)| (*id, vector_bytes(vector)))
            .collect();
        let mut bits =
            sqlx::QueryBuilder::<sqlx::Sqlite>::new("INSERT INTO facts_vec (rowid, embedding) ");
        bits.push_values(&rows, |mut row, (id, bytes)| {
            row.push_bind(*id);
            // As `first_pass_value` matches them.
            if as_bits {
                row.push("vec_quantize_binary(")
                    .push_bind_unseparated(bytes.clone())
                    .push_unseparated(")");
            } else {
                row.push_bind(bytes.clone());
            }
        });
        bits.build().execute(&mut **tx).await?;
        let mut floats = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT OR REPLACE INTO fact_vectors (id, embedding) ",
        );
        floats.push_values(rows, |mut row, (id, bytes)| {
            row.push_bind(id).push_bind(bytes);
        });
        floats.build().execute(&mut **tx).await?;
    }
    Ok(())
}

/// Text as duplicate checks compare it: lowercase, words only, single spaces.
pub fn normalize(text: &str) -> String {
    crate::search::words(text).join(" ")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use sentient_core::clock::SystemClock;

    async fn open() -> (tempfile::TempDir, MemoryStore) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("m.db"), Arc::new(SystemClock))
            .await
            .expect("open");
        assert!(store.vector_extension().is_some(), "sqlite-vec loads");
        (dir, MemoryStore::new(store))
    }

    /// A store with a vector index of `dimension`.
    async fn open_indexed(dimension: usize) -> (tempfile::TempDir, MemoryStore) {
        let (dir, facts) = open().await;
        let info = IndexInfo {
            model: "test/embed".into(),
            dimension,
        };
        facts.create_index(&info, Utc::now()).await.expect("index");
        (dir, facts)
    }

    fn fact(content: &str, review: Option<ReviewNote>) -> NewFact {
        NewFact {
            content: content.into(),
            topics: vec!["Personal Identity".into()],
            source: "manual".into(),
            memory_type: MemoryType::LongTerm,
            expires_at: None,
            review,
        }
    }

    /// A unit-ish vector of 64 elements whose signs follow `seed`'s bits.
    fn signed(seed: u64) -> Vec<f32> {
        (0..64)
            .map(|i| if seed >> i & 1 == 1 { 0.5 } else { -0.5 })
            .collect()
    }

    #[tokio::test]
    async fn in_a_large_memory_words_most_facts_have_are_not_searched_by() {
        let (_dir, facts) = open().await;
        let now = Utc::now();
        // Every fact says "user"; each has its own number word; one says "zebra".
        let mut batch: Vec<(NewFact, Option<Vec<f32>>)> = (0..COMMON_FROM + 100)
            .map(|i| (fact(&format!("user item{i}"), None), None))
            .collect();
        batch[7].0.content = "user rides a zebra".into();
        let ids = facts.insert_many(&batch, now).await.expect("insert");
        let telling = facts.telling_words("User ZEBRA").await.expect("words");
        assert_eq!((telling.words.as_str(), telling.by_rank), ("zebra", true));
        let found = facts
            .keyword_ids("user zebra", 5, Some(now))
            .await
            .expect("search");
        assert_eq!(found, vec![ids[7]]);
        // Only common words: the rarest, newest matches first (not every match scored).
        let telling = facts.telling_words("user").await.expect("words");
        assert_eq!((telling.words.as_str(), telling.by_rank), ("user", false));
        let newest = facts
            .keyword_ids("user", 3, Some(now))
            .await
            .expect("search");
        let last = ids.len() - 1;
        assert_eq!(newest, vec![ids[last], ids[last - 1], ids[last - 2]]);
        // A small memory searches every word, ranked.
        let (_small_dir, small) = open().await;
        small
            .insert(&fact("user rides a zebra", None), now)
            .await
            .expect("insert");
        let telling = small.telling_words("user zebra").await.expect("words");
        assert_eq!(
            (telling.words.as_str(), telling.by_rank),
            ("user zebra", true)
        );
    }

    #[test]
    fn only_a_ranked_search_past_a_thousand_matches_skips_scoring_them_all() {
        let words = |counts: &[i64], by_rank: bool| TellingWords {
            words: String::new(),
            by_rank,
            counts: counts.iter().map(|n| (format!("w{n}"), *n)).collect(),
        };
        assert!(words(&[600, 500], true).too_many_to_score());
        assert!(words(&[RANK_ALL_UP_TO + 1], true).too_many_to_score());
        assert!(!words(&[RANK_ALL_UP_TO], true).too_many_to_score());
        assert!(!words(&[600, 500], false).too_many_to_score());
        // A small memory looks up no counts: FTS5 scores every match.
        assert!(!words(&[], true).too_many_to_score());
    }

    /// Past `RANK_ALL_UP_TO` matches: facts with two or more of the words first, then the
    /// rest word by word from the rarest, newest first, each fact once.
    #[tokio::test]
    async fn many_matches_hand_over_the_facts_with_the_most_words_first() {
        let (_dir, facts) = open().await;
        let now = Utc::now();
        let mut contents = vec!["alpha beta gamma".to_owned(), "alpha beta".to_owned()];
        contents.extend((0..5).map(|i| format!("alpha x{i}")));
        contents.extend((0..5).map(|i| format!("beta y{i}")));
        contents.extend((0..3).map(|i| format!("gamma z{i}")));
        let batch: Vec<(NewFact, Option<Vec<f32>>)> =
            contents.iter().map(|c| (fact(c, None), None)).collect();
        let ids = facts.insert_many(&batch, now).await.expect("insert");
        let counts = vec![
            ("gamma".to_owned(), 4),
            ("alpha".to_owned(), 7),
            ("beta".to_owned(), 7),
        ];
        let hits = facts
            .hits_with_most_words(&counts, 8)
            .await
            .expect("search");
        let mut two_or_more = hits[..2].to_vec();
        two_or_more.sort_unstable();
        assert_eq!(two_or_more, vec![ids[0], ids[1]]);
        // Then gamma's other facts (the rarest word), newest first, then alpha's.
        assert_eq!(
            hits[2..],
            [ids[14], ids[13], ids[12], ids[6], ids[5], ids[4]]
        );
        // Asked for more than there are: every fact with any of the words, once.
        let all = facts
            .hits_with_most_words(&counts, 100)
            .await
            .expect("search");
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, ids);
        // One word in many facts: its newest.
        let one = facts
            .hits_with_most_words(&counts[1..2], 3)
            .await
            .expect("search");
        assert_eq!(one, vec![ids[6], ids[5], ids[4]]);
    }

    #[tokio::test]
    async fn the_bits_in_memory_match_sqlite_vec_and_follow_every_write() {
        let (_dir, facts) = open_indexed(64).await;
        let v = signed(0xDEAD_BEEF_0123_4567);
        let theirs: Vec<u8> = sqlx::query_scalar("SELECT vec_quantize_binary(?)")
            .bind(vector_bytes(&v))
            .fetch_one(facts.store().pool())
            .await
            .expect("quantize");
        assert_eq!(crate::bits::quantize(&v), theirs);

        let now = Utc::now();
        let seeds = [0u64, 0b1, 0b11, 0b111, u64::MAX];
        let batch: Vec<(NewFact, Option<Vec<f32>>)> = seeds
            .iter()
            .map(|s| (fact(&format!("fact {s}"), None), Some(signed(*s))))
            .collect();
        let ids = facts.insert_many(&batch, now).await.expect("insert");
        // Loaded from facts_vec by a fresh handle: the same order as vec0's own KNN.
        let fresh = MemoryStore::new(facts.store().clone());
        let from_cache = fresh.bit_candidates(&signed(0), 3, 64).await.expect("bits");
        let from_vec0: Vec<i64> = sqlx::query_scalar(
            "SELECT rowid FROM facts_vec WHERE embedding MATCH vec_quantize_binary(?) AND k = 3",
        )
        .bind(vector_bytes(&signed(0)))
        .fetch_all(facts.store().pool())
        .await
        .expect("vec0");
        assert_eq!(from_cache, from_vec0);
        assert_eq!(from_cache, ids[..3].to_vec());

        // Writes through one handle reach the cache it shares with its clones.
        let clone = fresh.clone();
        clone.put_vector(ids[4], &signed(0)).await.expect("put");
        assert_eq!(
            fresh.bit_candidates(&signed(0), 1, 64).await.ok(),
            Some(vec![ids[0]])
        );
        fresh.delete(ids[0]).await.expect("delete");
        let near = fresh.nearest(&signed(0), 2, now).await.expect("nearest");
        assert_eq!(
            near.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            vec![ids[4], ids[1]]
        );
        fresh.delete_vector(ids[4]).await.expect("delete vector");
        assert_eq!(
            fresh.bit_candidates(&signed(0), 1, 64).await.ok(),
            Some(vec![ids[1]])
        );
        // A new index starts empty.
        let info = IndexInfo {
            model: "other/embed".into(),
            dimension: 64,
        };
        fresh.create_index(&info, now).await.expect("reindex");
        assert_eq!(
            fresh.bit_candidates(&signed(0), 3, 64).await.ok(),
            Some(vec![])
        );
    }

    /// Vectors of `dimension` values in -1..1 from a small deterministic generator (xorshift).
    fn random_vectors(mut state: u64, dimension: usize) -> impl FnMut() -> Vec<f32> {
        move || {
            (0..dimension)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 2001) as f32 / 1000.0 - 1.0
                })
                .collect()
        }
    }

    /// Stores `count` facts with the next random vectors; answers their ids and the vectors by id.
    async fn store_random(
        facts: &MemoryStore,
        random_vector: &mut impl FnMut() -> Vec<f32>,
        count: usize,
        now: DateTime<Utc>,
    ) -> (Vec<i64>, HashMap<i64, Vec<f32>>) {
        let batch: Vec<(NewFact, Option<Vec<f32>>)> = (0..count)
            .map(|i| (fact(&format!("fact {i}"), None), Some(random_vector())))
            .collect();
        let ids = facts.insert_many(&batch, now).await.expect("insert");
        let stored = ids
            .iter()
            .zip(&batch)
            .filter_map(|(id, (_, v))| Some((*id, v.clone()?)))
            .collect();
        (ids, stored)
    }

    /// The exact answer: every stored vector by cosine similarity to `query`, best first.
    fn exact_top(stored: &HashMap<i64, Vec<f32>>, query: &[f32], k: usize) -> Vec<i64> {
        let mut all: Vec<(f64, i64)> = stored
            .iter()
            .map(|(id, v)| (cosine(query, v), *id))
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|(_, id)| id).collect()
    }

    /// A small memory (up to `FIRST_PASS` facts: all of them are candidates) is searched exactly,
    /// on random vectors too, and every write is seen by the next search.
    #[tokio::test]
    async fn vector_search_finds_the_exact_top_ten_and_sees_every_write_at_once() {
        let (_dir, facts) = open_indexed(64).await;
        let now = Utc::now();
        let mut random_vector = random_vectors(0x1234_5678_9ABC_DEF1, 64);
        let (_, mut stored) = store_random(&facts, &mut random_vector, FIRST_PASS, now).await;
        assert_eq!(facts.vector_index(), IndexState::NotLoaded);
        let found_ids = |found: Vec<(i64, f64)>| found.into_iter().map(|(id, _)| id).collect();
        for round in 0..5 {
            let query = random_vector();
            let found: Vec<i64> = found_ids(facts.nearest(&query, 10, now).await.expect("knn"));
            assert_eq!(found, exact_top(&stored, &query, 10), "round {round}");
            // The best moves away, the second is deleted, a new fact matches the query exactly.
            let away: Vec<f32> = query.iter().map(|x| -x).collect();
            facts.put_vector(found[0], &away).await.expect("update");
            stored.insert(found[0], away);
            facts.delete(found[1]).await.expect("delete");
            stored.remove(&found[1]);
            let added = facts
                .insert_many(
                    &[(fact(&format!("new {round}"), None), Some(query.clone()))],
                    now,
                )
                .await
                .expect("add")[0];
            stored.insert(added, query.clone());
            let after: Vec<i64> = found_ids(facts.nearest(&query, 10, now).await.expect("knn"));
            assert_eq!(after[0], added);
            assert_eq!(
                after,
                exact_top(&stored, &query, 10),
                "round {round}, after writes"
            );
        }
        assert!(matches!(
            facts.vector_index(),
            IndexState::Ready {
                facts: FIRST_PASS,
                ..
            }
        ));
    }

    /// The codes' file: nothing until the first search, then made from the stored vectors
    /// beside the bit index; search is exact before, during and after, and every write reaches it.
    #[tokio::test]
    async fn the_codes_file_is_made_after_the_first_search_and_follows_every_write() {
        let (_dir, facts) = open_indexed(64).await;
        let now = Utc::now();
        let mut random_vector = random_vectors(0x0041_C0DE_5EED_0001, 64);
        // More than the first pass's fixed hundred, so the codes pass runs.
        let (ids, mut stored) = store_random(&facts, &mut random_vector, 3 * FIRST_PASS, now).await;
        assert_eq!(facts.vector_codes(), CodeState::NotLoaded);
        // Every fact a candidate, so what is checked is the codes' pass, not the bits'.
        let nearest = |query: Vec<f32>| {
            let facts = &facts;
            async move {
                let found = facts
                    .nearest_among(&query, 10, |facts| facts, now)
                    .await
                    .expect("knn");
                found.into_iter().map(|(id, _)| id).collect::<Vec<i64>>()
            }
        };
        let query = random_vector();
        let found = nearest(query.clone()).await;
        assert_eq!(found, exact_top(&stored, &query, 10));
        tokio::time::timeout(Duration::from_secs(10), facts.vector_codes_built())
            .await
            .expect("the codes were made");
        assert!(matches!(
            facts.vector_codes(),
            CodeState::Ready { facts: n, bytes } if n == 3 * FIRST_PASS && bytes > 0
        ));
        for _ in 0..5 {
            let query = random_vector();
            let found = nearest(query.clone()).await;
            assert_eq!(found, exact_top(&stored, &query, 10));
        }
        // Writes reach the codes at once: a fact given the query's own vector comes first, the
        // one that was first goes with its vector, and a new fact near the query is found.
        let query = random_vector();
        let before = nearest(query.clone()).await;
        facts.put_vector(before[9], &query).await.expect("update");
        stored.insert(before[9], query.clone());
        facts.delete_vector(before[0]).await.expect("delete vector");
        stored.remove(&before[0]);
        let mut near = query.clone();
        near[0] += 0.5;
        let added = facts
            .insert_many(&[(fact("new", None), Some(near.clone()))], now)
            .await
            .expect("add")[0];
        stored.insert(added, near);
        let after = nearest(query.clone()).await;
        assert_eq!(after[0], before[9]);
        assert!(after.contains(&added) && !after.contains(&before[0]));
        assert_eq!(after, exact_top(&stored, &query, 10));
        assert!(matches!(
            facts.vector_codes(),
            CodeState::Ready { facts: n, .. } if n == stored.len()
        ));
        facts.delete(ids[0]).await.expect("delete");
        let info = IndexInfo {
            model: "other/embed".into(),
            dimension: 64,
        };
        facts.create_index(&info, now).await.expect("reindex");
        assert_eq!(facts.vector_codes(), CodeState::NotLoaded);
    }

    #[tokio::test]
    async fn facts_are_found_by_words_and_by_vector_and_held_ones_by_neither() {
        let (_dir, facts) = open_indexed(3).await;
        let now = Utc::now();
        let lisbon = facts
            .insert(&fact("Sister Meera lives in Lisbon", None), now)
            .await
            .expect("insert");
        let tea = facts
            .insert(&fact("User likes green tea", None), now)
            .await
            .expect("insert");
        let held = facts
            .insert(
                &fact(
                    "User lives in Lisbon too",
                    Some(ReviewNote::new("a web page", None, None)),
                ),
                now,
            )
            .await
            .expect("insert");
        facts
            .put_vector(lisbon, &[1.0, 0.0, 0.0])
            .await
            .expect("vector");
        facts
            .put_vector(tea, &[0.0, 1.0, 0.0])
            .await
            .expect("vector");

        let near = facts.nearest(&[0.9, 0.1, 0.0], 5, now).await.expect("knn");
        assert_eq!(near.first().map(|(id, _)| *id), Some(lisbon));
        assert!(
            near[0].1 > 0.99 && near[0].1 <= 1.0 + 1e-9,
            "cosine similarity {}",
            near[0].1
        );

        let words = facts
            .keyword_ids("where is lisbon", 10, Some(now))
            .await
            .expect("fts");
        assert_eq!(words, vec![lisbon], "the held fact is not found");
        let any = facts.keyword_ids("lisbon", 10, None).await.expect("fts");
        assert!(any.contains(&held));

        let listed = facts
            .list(
                &ListFilter {
                    limit: 10,
                    ..Default::default()
                },
                now,
            )
            .await
            .expect("list");
        assert_eq!(
            listed.iter().map(|f| f.id).collect::<Vec<_>>(),
            vec![tea, lisbon]
        );
        let (inbox, count) = facts.held(10).await.expect("held");
        assert_eq!((inbox.len(), count), (1, 1));
        assert_eq!(
            inbox[0].review.as_ref().map(|r| r.from.as_str()),
            Some("a web page")
        );
    }

    #[tokio::test]
    async fn the_held_count_agrees_with_the_page_while_facts_are_held() {
        let (_dir, facts) = open().await;
        let writer = facts.clone();
        let holding = tokio::spawn(async move {
            for n in 0..40 {
                let note = ReviewNote::new("a web page", None, None);
                writer
                    .insert(&fact(&format!("Held fact {n}"), Some(note)), Utc::now())
                    .await
                    .expect("insert");
                tokio::task::yield_now().await;
            }
        });
        let mut reads = 0;
        while !holding.is_finished() || reads == 0 {
            let (page, count) = facts.held(100).await.expect("held");
            assert_eq!(i64::try_from(page.len()).ok(), Some(count), "read {reads}");
            reads += 1;
        }
        holding.await.expect("writer");
        let (page, count) = facts.held(100).await.expect("held");
        assert_eq!((page.len(), count), (40, 40));
    }

    #[tokio::test]
    async fn updates_keep_the_old_words_and_deletes_take_the_vector() {
        let (_dir, facts) = open_indexed(2).await;
        let now = Utc::now();
        let id = facts
            .insert(&fact("User lives in Pune", None), now)
            .await
            .expect("insert");
        facts.put_vector(id, &[1.0, 0.0]).await.expect("vector");
        facts
            .update(
                id,
                "User lives in Bengaluru",
                &["Personal Identity".into()],
                MemoryType::LongTerm,
                None,
                now,
            )
            .await
            .expect("update");
        let got = facts.get(id).await.expect("get").expect("fact");
        assert_eq!(got.content, "User lives in Bengaluru");
        assert_eq!(got.previous_content.as_deref(), Some("User lives in Pune"));
        assert_eq!(
            facts.keyword_ids("Pune", 5, Some(now)).await.expect("fts"),
            Vec::<i64>::new()
        );
        assert!(facts.delete(id).await.expect("delete"));
        assert!(facts.vectors(&[id]).await.expect("vectors").is_empty());
        assert!(!facts.delete(id).await.expect("delete again"));
    }

    #[tokio::test]
    async fn expired_short_term_facts_are_not_remembered() {
        let (_dir, facts) = open().await;
        let now = Utc::now();
        let mut trip = fact("User is in Rome this week", None);
        trip.memory_type = MemoryType::ShortTerm;
        trip.expires_at = Some(now - chrono::Duration::hours(1));
        facts
            .insert(&trip, now - chrono::Duration::days(2))
            .await
            .expect("insert");
        let listed = facts
            .list(
                &ListFilter {
                    limit: 10,
                    ..Default::default()
                },
                now,
            )
            .await
            .expect("list");
        assert!(listed.is_empty());
        assert_eq!(facts.delete_expired(now).await.expect("purge").len(), 1);
    }
}
