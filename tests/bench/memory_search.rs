//! Memory search at scale: 100,000 generated facts with 768-dimension vectors in a real SQLite
//! file with sqlite-vec, then 1,000 queries (after a warm-up) through the store's own hybrid
//! search (what `?q=` and recall run: a bit first pass in memory, a float32 rank, FTS5 on the
//! telling words, fusion), its vector search alone, FTS5 alone, and float32 brute force for
//! comparison, with the vector search's recall@10 against brute force. Also insert throughput
//! (batched, vectors and words, no model calls), the database size, and two variants: the same
//! bits through sqlite-vec's own KNN, and an int8 first pass. Vectors come in topics and
//! subtopics (64 × 16, plus noise) and texts from a 5,000-word made-up vocabulary, so neighbours
//! and word matches mean something.
//! Run with `npm run bench:recall` (a release build; FACTS and QUERIES can be lowered).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use chrono::Utc;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sentient_e2e::sentient_engine::clock::SystemClock;
use sentient_e2e::sentient_engine::memory::model::MemoryType;
use sentient_e2e::sentient_engine::memory::search::{cosine, recall_at, vector_bytes};
use sentient_e2e::sentient_engine::memory::store::{
    FIRST_PASS, HybridQuery, IndexInfo, ListFilter, MemoryStore, NewFact,
};
use sentient_e2e::sentient_engine::store::Store;

const DIM: usize = 768;
const CLUSTERS: usize = 64;
/// Subtopics per topic (about 100 facts each at 100,000 facts).
const SUBTOPICS: usize = 16;
const BATCH: usize = 1_000;
const WARM_UP: usize = 50;
/// One query in this many is also answered by float32 brute force (recall, its latency) and
/// by the int8 variant: both take a quarter of a second each at 100,000 facts.
const TRUTH_EVERY: usize = 10;
/// Candidates the int8 variant hands to the float32 rank (RERANK overrides).
const RERANK_DEFAULT: usize = 800;

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v
        .iter()
        .map(|x| x * x)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

fn noisy(rng: &mut StdRng, around: &[f32], amount: f32) -> Vec<f32> {
    unit(
        around
            .iter()
            .map(|x| x + amount * (rng.random::<f32>() * 2.0 - 1.0))
            .collect(),
    )
}

const WHO: [&str; 8] = [
    "User",
    "User's sister",
    "User's brother",
    "User's partner",
    "User's friend Ana",
    "User's mother",
    "User's colleague Raj",
    "User's neighbour",
];
const DOES: [&str; 8] = [
    "likes",
    "lives near",
    "works at",
    "visits",
    "is learning",
    "collects",
    "plays",
    "avoids",
];
const WHAT: [&str; 16] = [
    "green tea",
    "the cello",
    "Lisbon",
    "a bakery",
    "mountain bikes",
    "old maps",
    "Portuguese",
    "chess",
    "jazz records",
    "the harbour",
    "sourdough bread",
    "running shoes",
    "a library",
    "sushi",
    "watercolours",
    "sailing",
];

/// Pronounceable made-up words (names, places, things), so texts have a real vocabulary's spread
/// and a search's words match a few facts, not a tenth of them.
fn made_up_words(rng: &mut StdRng, n: usize) -> Vec<String> {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mi", "ra", "ten", "vo", "sel", "du", "bri", "an", "po", "rek", "sa", "lin",
        "tor", "ve", "mu", "gal", "es", "ni", "dor", "pha", "qui", "zel",
    ];
    (0..n)
        .map(|_| {
            (0..rng.random_range(2..4))
                .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
                .collect::<String>()
        })
        .collect()
}

fn fact_text(rng: &mut StdRng, vocabulary: &[String], i: usize) -> String {
    let who = WHO[rng.random_range(0..WHO.len())];
    let does = DOES[rng.random_range(0..DOES.len())];
    let what = WHAT[rng.random_range(0..WHAT.len())];
    let word = |rng: &mut StdRng| vocabulary[rng.random_range(0..vocabulary.len())].clone();
    let (a, b) = (word(rng), word(rng));
    format!(
        "{who} {a} {does} {what} in {b} since {} (note {i})",
        1990 + rng.random_range(0..35)
    )
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{name:<32} p50 {:>8.2} ms   p99 {:>8.2} ms   ({} queries)",
        percentile(&times, 0.50).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.len()
    );
}

#[tokio::main]
async fn main() -> Result<()> {
    let facts_n = env_count("FACTS", 100_000);
    let rerank = env_count("RERANK", RERANK_DEFAULT);
    let queries_n = env_count("QUERIES", 1_000);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("sentient.db");
    let store = Store::open(&path, Arc::new(SystemClock)).await?;
    anyhow::ensure!(
        store.vector_extension().is_some(),
        "sqlite-vec did not load"
    );
    let facts = MemoryStore::new(store.clone());
    let now = Utc::now();
    facts
        .create_index(
            &IndexInfo {
                model: "bench/embed".into(),
                dimension: DIM,
            },
            now,
        )
        .await?;

    let mut rng = StdRng::seed_from_u64(7);
    // Topics, each with subtopics near it, each fact near its subtopic: neighbours come in
    // graded rings, as with a real embedding model (a uniform cloud has no true neighbours).
    let centroids: Vec<Vec<f32>> = (0..CLUSTERS)
        .map(|_| unit((0..DIM).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect()))
        .collect();
    let subtopics: Vec<Vec<f32>> = (0..CLUSTERS * SUBTOPICS)
        .map(|i| noisy(&mut rng, &centroids[i / SUBTOPICS], 0.05))
        .collect();
    let vocabulary = made_up_words(&mut rng, 5_000);
    let mut kept: Vec<(String, Vec<f32>)> = Vec::new();
    let started = Instant::now();
    let mut batch = Vec::with_capacity(BATCH);
    for i in 0..facts_n {
        let text = fact_text(&mut rng, &vocabulary, i);
        let vector = noisy(&mut rng, &subtopics[i % subtopics.len()], 0.03);
        if i % (facts_n / 2_000).max(1) == 0 {
            kept.push((text.clone(), vector.clone()));
        }
        batch.push((
            NewFact {
                content: text,
                topics: vec!["Miscellaneous".into()],
                source: "bench".into(),
                memory_type: MemoryType::LongTerm,
                expires_at: None,
                review: None,
            },
            Some(vector),
        ));
        if batch.len() == BATCH {
            facts.insert_many(&batch, now).await?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        facts.insert_many(&batch, now).await?;
    }
    let took = started.elapsed();
    println!(
        "inserted {facts_n} facts (vector + words, batches of {BATCH}) in {:.1} s: {:.0} facts/s",
        took.as_secs_f64(),
        facts_n as f64 / took.as_secs_f64()
    );
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(store.pool())
        .await?;
    let size: u64 = std::fs::read_dir(dir.path())?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!("database size: {:.0} MB", size as f64 / 1e6);

    // Queries: near a kept fact (its vector with noise), with three of its words.
    let queries: Vec<(String, Vec<f32>)> = (0..queries_n + WARM_UP)
        .map(|_| {
            let (text, vector) = &kept[rng.random_range(0..kept.len())];
            // Two of its words and one of the common ones, as a person would type.
            let words: Vec<&str> = text.split_whitespace().skip(1).step_by(2).take(3).collect();
            (words.join(" "), noisy(&mut rng, vector, 0.03))
        })
        .collect();
    let filter = ListFilter::default();

    // The exact answer: float32 brute force over every vector (sqlite-vec, cosine).
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE VIRTUAL TABLE bench_float USING vec0(embedding float[{DIM}] distance_metric=cosine)"
    )))
    .execute(store.pool())
    .await?;
    sqlx::query(
        "INSERT INTO bench_float (rowid, embedding) SELECT id, embedding FROM fact_vectors",
    )
    .execute(store.pool())
    .await?;
    let exact = |vector: Vec<u8>, k: usize| {
        let pool = store.pool().clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT rowid FROM bench_float WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            )
            .bind(vector)
            .bind(k as i64)
            .fetch_all(&pool)
            .await
        }
    };

    let mut hybrid = Vec::new();
    let mut vector_only = Vec::new();
    let mut keyword_only = Vec::new();
    let mut brute = Vec::new();
    let mut vec0_bits = Vec::new();
    let mut vec0_recall = 0.0;
    let mut recall = 0.0;
    for (n, (text, vector)) in queries.iter().enumerate() {
        let t = Instant::now();
        let found = facts
            .hybrid(&HybridQuery {
                text,
                vector: Some(vector),
                limit: 8,
                filter: &filter,
                keyword_weight: 0.15,
                min_similarity: 0.35,
                now,
            })
            .await?;
        let h = t.elapsed();
        let t = Instant::now();
        let near = facts.nearest(vector, 50, now).await?;
        let v = t.elapsed();
        let t = Instant::now();
        let _words = facts.keyword_ids(text, 50, Some(now)).await?;
        let k = t.elapsed();
        // The variant this replaced: sqlite-vec's own KNN over the same bits.
        if n >= WARM_UP && (n - WARM_UP).is_multiple_of(TRUTH_EVERY) {
            let t = Instant::now();
            let first: Vec<i64> = sqlx::query_scalar(
                "SELECT rowid FROM facts_vec WHERE embedding MATCH vec_quantize_binary(?) AND k = ?",
            )
            .bind(vector_bytes(vector))
            .bind(FIRST_PASS as i64)
            .fetch_all(store.pool())
            .await?;
            let stored = facts.vectors(&first).await?;
            let mut ranked: Vec<(i64, f64)> = stored
                .iter()
                .map(|(id, v)| (*id, cosine(vector, v)))
                .collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
            vec0_bits.push(t.elapsed());
            let top: Vec<i64> = ranked.iter().take(10).map(|(id, _)| *id).collect();
            vec0_recall += recall_at(&exact(vector_bytes(vector), 10).await?, &top, 10);
        }
        anyhow::ensure!(
            !found.is_empty() && !near.is_empty(),
            "a query found nothing"
        );
        if n >= WARM_UP {
            hybrid.push(h);
            vector_only.push(v);
            keyword_only.push(k);
            // Brute force is slow: every TRUTH_EVERY-th query is also answered exactly.
            if (n - WARM_UP).is_multiple_of(TRUTH_EVERY) {
                let t = Instant::now();
                let truth = exact(vector_bytes(vector), 50).await?;
                brute.push(t.elapsed());
                let ids: Vec<i64> = near.iter().map(|(id, _)| *id).collect();
                recall += recall_at(&truth, &ids, 10);
            }
        }
    }
    let measured = brute.len().max(1) as f64;
    report("hybrid (what search runs)", hybrid);
    report("vector only (bits, then float32)", vector_only);
    report("keyword only (FTS5 top 50)", keyword_only);
    let vec0_measured = vec0_bits.len().max(1) as f64;
    report(&format!("vec0 bit KNN ({FIRST_PASS}) + float32"), vec0_bits);
    println!(
        "vec0 bit variant recall@10 against float32: {:.3}",
        vec0_recall / vec0_measured
    );
    report("float32 brute force (k=50)", brute);
    println!(
        "vector search recall@10 against float32 brute force: {:.3} ({FIRST_PASS} candidates from the bit pass)",
        recall / measured
    );

    // Another variant: int8 vectors for the first pass, then the same float32 rank.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE VIRTUAL TABLE bench_int8 USING vec0(embedding int8[{DIM}])"
    )))
    .execute(store.pool())
    .await?;
    sqlx::query(
        "INSERT INTO bench_int8 (rowid, embedding) SELECT id, vec_quantize_int8(embedding, 'unit') FROM fact_vectors",
    )
    .execute(store.pool())
    .await?;
    let mut times = Vec::new();
    let mut recall = 0.0;
    for (n, (_, vector)) in queries.iter().enumerate().step_by(TRUTH_EVERY) {
        let t = Instant::now();
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT rowid FROM bench_int8 WHERE embedding MATCH vec_quantize_int8(?, 'unit') AND k = ? ORDER BY distance",
        )
        .bind(vector_bytes(vector))
        .bind(rerank as i64)
        .fetch_all(store.pool())
        .await?;
        let stored = facts.vectors(&ids).await?;
        let mut ranked: Vec<(i64, f64)> = stored
            .iter()
            .map(|(id, v)| (*id, cosine(vector, v)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let top: Vec<i64> = ranked.iter().take(10).map(|(id, _)| *id).collect();
        let took = t.elapsed();
        if n >= WARM_UP {
            times.push(took);
            recall += recall_at(&exact(vector_bytes(vector), 10).await?, &top, 10);
        }
    }
    let measured = times.len().max(1) as f64;
    report(&format!("int8 first pass ({rerank}) + float32"), times);
    println!(
        "int8 variant recall@10 against float32: {:.3}",
        recall / measured
    );
    store.close().await;
    Ok(())
}
