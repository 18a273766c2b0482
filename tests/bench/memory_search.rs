//! Memory search at scale: generated facts (100,000 by default, FACTS) with 768-dimension vectors
//! in a real SQLite file with sqlite-vec, then queries (QUERIES, after a warm-up) through the
//! store's own hybrid search (what `?q=` and recall run: a bit first pass in memory over a number
//! of candidates that grows with the corpus, their int8 codes, a float32 rank of the best of those,
//! FTS5 on the telling words, fusion).
//! Two query sets: "words", each near one fact with three of its words, and "paraphrase", near
//! one fact with three words it does not have (the answer must come from the vector side).
//! Recall@10 of the hybrid search against the same hybrid search over exact float32 neighbours,
//! and of its vector half against float32 brute force; the bit index's build time and resident
//! size; insert throughput (batched, no model calls); the database size; and the options
//! compared: other candidate counts, sqlite-vec's own KNN over the same bits, an int8 first pass.
//! Vectors come in topics and subtopics (64 × 16, plus noise) and texts from a 5,000-word
//! made-up vocabulary, so neighbours and word matches mean something.
//! Run with `npm run bench:recall` (a release build; FACTS and QUERIES can be lowered).
//! `FACTS_DB=<folder>` keeps the database there and, on a later run with the same FACTS, reuses
//! it instead of inserting again (the same seed makes the same facts and queries): for trying
//! a change to search at a million facts without half an hour of inserts. `ALTERNATIVES=0` skips
//! the sqlite-vec KNN and int8 comparisons (over a second a query each at a million facts).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use chrono::Utc;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sentient_e2e::sentient_engine::clock::SystemClock;
use sentient_e2e::sentient_engine::memory::bit_cache::IndexState;
use sentient_e2e::sentient_engine::memory::bits::HAMMING_POOL;
use sentient_e2e::sentient_engine::memory::codes::{CodeState, exact_rank_size};
use sentient_e2e::sentient_engine::memory::model::MemoryType;
use sentient_e2e::sentient_engine::memory::search::{PER_SEARCH, cosine, recall_at, vector_bytes};
use sentient_e2e::sentient_engine::memory::store::{
    FIRST_PASS, HybridQuery, IndexInfo, ListFilter, MemoryStore, NewFact, first_pass_size,
};
use sentient_e2e::sentient_engine::store::Store;

const DIM: usize = 768;
const CLUSTERS: usize = 64;
/// Subtopics per topic (about 100 facts each at 100,000 facts).
const SUBTOPICS: usize = 16;
const BATCH: usize = 1_000;
const WARM_UP: usize = 50;
/// One query in this many is also answered exactly (float32 cosine against every fact: recall)
/// and by the int8 variant (a quarter of a second a query at 100,000 facts).
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

/// The `PER_SEARCH` facts nearest each query by float32 cosine, as `(id, similarity)`, nearest
/// first, keyed as asked: every fact made again by `next_fact` from `rng` (the state the inserts
/// started from), fact i having id `ids[i]`. Vectors are unit length, so cosine is the dot product.
fn exact_answers(
    asked: &[((usize, usize), &[f32])],
    ids: &[i64],
    mut rng: StdRng,
    next_fact: impl Fn(&mut StdRng, usize) -> (String, Vec<f32>),
) -> HashMap<(usize, usize), Vec<(i64, f64)>> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Per query the best so far, worst on top (similarity as ordered bits: all are finite).
    let mut best: Vec<BinaryHeap<(Reverse<u32>, i64)>> = vec![BinaryHeap::new(); asked.len()];
    let ordered = |x: f32| {
        let bits = x.to_bits();
        if x.is_sign_negative() {
            !bits
        } else {
            bits | 1 << 31
        }
    };
    let unordered = |bits: u32| {
        f32::from_bits(if bits & 1 << 31 != 0 {
            bits & !(1 << 31)
        } else {
            !bits
        })
    };
    for (i, &id) in ids.iter().enumerate() {
        let (_, vector) = next_fact(&mut rng, i);
        for ((_, query), heap) in asked.iter().zip(best.iter_mut()) {
            let dot: f32 = vector.iter().zip(*query).map(|(a, b)| a * b).sum();
            let entry = (Reverse(ordered(dot)), id);
            if heap.len() < PER_SEARCH {
                heap.push(entry);
            } else if heap.peek().is_some_and(|worst| entry < *worst) {
                heap.pop();
                heap.push(entry);
            }
        }
    }
    asked
        .iter()
        .zip(best)
        .map(|((key, _), heap)| {
            let found = heap
                .into_sorted_vec()
                .into_iter()
                .map(|(Reverse(dot), id)| (id, f64::from(unordered(dot))))
                .collect();
            (*key, found)
        })
        .collect()
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

/// This process's resident anonymous memory (heap), in bytes: file pages SQLite maps are not
/// counted, so the difference across the build is the index.
fn resident_anon() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("RssAnon:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// One query: its text, its vector, and the fact it was made from.
struct Query {
    text: String,
    vector: Vec<f32>,
    fact: i64,
}

/// What one query set measured.
#[derive(Default)]
struct SetResults {
    hybrid: Vec<Duration>,
    /// The same search at once again: its rows are now in SQLite's and the system's caches, so
    /// the difference is what reading them from the file costs.
    hybrid_again: Vec<Duration>,
    /// The word search alone (`keyword_ids`), after the hybrid: a paraphrase's ordinary words
    /// match more facts than a fact's own rare ones.
    words_half: Vec<Duration>,
    /// Recall@10 of the hybrid search against hybrid over exact neighbours, summed.
    hybrid_recall: f64,
    /// Queries whose own fact was in the hybrid top 10.
    found_own: usize,
    truths: usize,
}

#[tokio::main]
async fn main() -> Result<()> {
    let facts_n = env_count("FACTS", 100_000);
    let rerank = env_count("RERANK", RERANK_DEFAULT);
    let queries_n = env_count("QUERIES", 1_000);
    let scratch = tempfile::tempdir()?;
    let dir = match std::env::var_os("FACTS_DB") {
        Some(kept) if !kept.is_empty() => std::path::PathBuf::from(kept),
        _ => scratch.path().to_owned(),
    };
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("sentient.db");
    let reuse = path.exists();
    let store = Store::open(&path, Arc::new(SystemClock)).await?;
    anyhow::ensure!(
        store.vector_extension().is_some(),
        "sqlite-vec did not load"
    );
    let facts = MemoryStore::new(store.clone());
    let now = Utc::now();
    let stored: i64 = if reuse {
        sqlx::query_scalar("SELECT COUNT(*) FROM facts")
            .fetch_one(store.pool())
            .await?
    } else {
        0
    };
    let reuse = reuse && usize::try_from(stored).ok() == Some(facts_n);
    anyhow::ensure!(
        reuse || stored == 0,
        "{} holds {stored} facts, not FACTS={facts_n}: remove it or point FACTS_DB elsewhere",
        path.display()
    );
    if !reuse {
        facts
            .create_index(
                &IndexInfo {
                    model: "bench/embed".into(),
                    dimension: DIM,
                },
                now,
            )
            .await?;
    }

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
    let mut kept: Vec<(usize, String, Vec<f32>)> = Vec::new();
    let mut ids: Vec<i64> = Vec::with_capacity(facts_n);
    let started = Instant::now();
    let mut batch = Vec::with_capacity(BATCH);
    // Fact i's text and vector: made once to insert, and once more (the same generator from the
    // same state) to find the exact answers.
    let next_fact = |rng: &mut StdRng, i: usize| {
        let text = fact_text(rng, &vocabulary, i);
        let vector = noisy(rng, &subtopics[i % subtopics.len()], 0.03);
        (text, vector)
    };
    let replay = rng.clone();
    for i in 0..facts_n {
        let (text, vector) = next_fact(&mut rng, i);
        if i % (facts_n / 2_000).max(1) == 0 {
            kept.push((i, text.clone(), vector.clone()));
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
            if !reuse {
                ids.extend(facts.insert_many(&batch, now).await?);
            }
            batch.clear();
        }
    }
    if !batch.is_empty() && !reuse {
        ids.extend(facts.insert_many(&batch, now).await?);
    }
    let took = started.elapsed();
    if reuse {
        ids = sqlx::query_scalar("SELECT id FROM facts ORDER BY id")
            .fetch_all(store.pool())
            .await?;
        println!("reused the {facts_n} facts in {}", path.display());
    } else {
        println!(
            "inserted {facts_n} facts (vector + words, batches of {BATCH}) in {:.1} s: {:.0} facts/s",
            took.as_secs_f64(),
            facts_n as f64 / took.as_secs_f64()
        );
    }
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(store.pool())
        .await?;
    let size: u64 = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!("database size: {:.0} MB", size as f64 / 1e6);

    // The bit index: nothing held after the writes; the first search starts its build (and
    // goes on by words while it runs); measured until it is ready.
    anyhow::ensure!(
        facts.vector_index() == IndexState::NotLoaded,
        "the writes loaded the index"
    );
    let before = resident_anon();
    let t = Instant::now();
    facts.nearest(&kept[0].2, 10, now).await?;
    facts.vector_index_built().await;
    let IndexState::Ready {
        facts: indexed,
        bytes: index_bytes,
    } = facts.vector_index()
    else {
        anyhow::bail!("the bit index was not built: {:?}", facts.vector_index());
    };
    let build = t.elapsed();
    let after = resident_anon();
    println!(
        "bit index: built in {:.2} s on the first search, {indexed} facts, {:.1} MB held ({:.1} MB more resident heap)",
        build.as_secs_f64(),
        index_bytes as f64 / 1e6,
        after.saturating_sub(before) as f64 / 1e6
    );
    // The int8 codes' file, made after the bit index (searches meanwhile read float32 for the
    // candidates without a code); the queries below wait for it.
    let t = Instant::now();
    facts.vector_codes_built().await;
    let CodeState::Ready {
        facts: coded,
        bytes,
    } = facts.vector_codes()
    else {
        anyhow::bail!("the codes' file was not made: {:?}", facts.vector_codes());
    };
    let codes = (coded, bytes);
    let after_codes = resident_anon();
    println!(
        "int8 codes: made in {:.2} s after the bit index, {} facts, {:.0} MB on disk, {:.1} MB held ({:.1} MB more resident heap)",
        t.elapsed().as_secs_f64(),
        codes.0,
        (codes.0 * DIM) as f64 / 1e6,
        codes.1 as f64 / 1e6,
        after_codes.saturating_sub(after) as f64 / 1e6
    );

    // Two query sets, each near a kept fact (its vector with noise): "words" with three of its
    // words (two of its own and a common one, as a person would type), "paraphrase" with three
    // made-up words it does not have, so only the vector side can find it.
    let make_query = |rng: &mut StdRng, paraphrase: bool| {
        let (i, text, vector) = &kept[rng.random_range(0..kept.len())];
        let text = if paraphrase {
            let own: Vec<&str> = text.split_whitespace().collect();
            let mut words = Vec::new();
            while words.len() < 3 {
                let word = &vocabulary[rng.random_range(0..vocabulary.len())];
                if !own.contains(&word.as_str()) && !words.contains(word) {
                    words.push(word.clone());
                }
            }
            words.join(" ")
        } else {
            let words: Vec<&str> = text.split_whitespace().skip(1).step_by(2).take(3).collect();
            words.join(" ")
        };
        Query {
            text,
            vector: noisy(rng, vector, 0.03),
            fact: ids[*i],
        }
    };
    let sets: Vec<(&str, Vec<Query>)> = vec![
        (
            "words",
            (0..queries_n + WARM_UP)
                .map(|_| make_query(&mut rng, false))
                .collect(),
        ),
        (
            "paraphrase",
            (0..queries_n / 2 + WARM_UP)
                .map(|_| make_query(&mut rng, true))
                .collect(),
        ),
    ];
    let filter = ListFilter::default();
    fn hybrid_query<'a>(
        q: &'a Query,
        filter: &'a ListFilter,
        now: chrono::DateTime<Utc>,
    ) -> HybridQuery<'a> {
        HybridQuery {
            text: &q.text,
            vector: Some(&q.vector),
            limit: 10,
            filter,
            keyword_weight: 0.15,
            min_similarity: 0.35,
            now,
        }
    }

    let top_ids = |found: &[(i64, f64)], k: usize| -> Vec<i64> {
        found.iter().take(k).map(|(id, _)| *id).collect()
    };

    let mut vector_only = Vec::new();
    let mut rank_only = Vec::new();
    let mut vec0_bits = Vec::new();
    let mut vec0_recall = 0.0;
    let mut recall = 0.0;
    // Other candidate counts for the float32 rank: recall@10 and time of the vector search.
    let counts = [100usize, 200, 300, 400, 600, 800];
    let alternatives = env_count("ALTERNATIVES", 1) != 0;
    let mut by_count: Vec<(f64, Vec<Duration>)> = vec![(0.0, Vec::new()); counts.len()];
    let mut by_bits_alone = by_count.clone();
    let mut truths: Vec<(Vec<f32>, Vec<i64>)> = Vec::new();
    let mut results: Vec<(&str, SetResults)> = Vec::new();
    let with_truth = |n: usize| n >= WARM_UP && (n - WARM_UP).is_multiple_of(TRUTH_EVERY);
    // The exact neighbours (float32 cosine against every fact) for one query in TRUTH_EVERY,
    // found in this process from the facts made again, not read from the database: a 3 GB
    // float32 table beside the facts, read whole for each answer, pushed the facts' own pages
    // out of the page cache (about 5 GB here), and the searches then paid for reads no person's
    // search would.
    let t = Instant::now();
    let asked: Vec<((usize, usize), &[f32])> = sets
        .iter()
        .enumerate()
        .flat_map(|(s, (_, queries))| {
            queries
                .iter()
                .enumerate()
                .filter(|(n, _)| with_truth(*n))
                .map(move |(n, q)| ((s, n), q.vector.as_slice()))
        })
        .collect();
    let mut answers = exact_answers(&asked, &ids, replay, next_fact);
    println!(
        "exact answers: {} queries against every fact in {:.1} s",
        asked.len(),
        t.elapsed().as_secs_f64()
    );
    for (s, (name, queries)) in sets.iter().enumerate() {
        let mut set = SetResults::default();
        for (n, q) in queries.iter().enumerate() {
            let t = Instant::now();
            let found = facts.hybrid(&hybrid_query(q, &filter, now)).await?;
            let h = t.elapsed();
            anyhow::ensure!(!found.is_empty(), "a query found nothing");
            let t = Instant::now();
            facts.hybrid(&hybrid_query(q, &filter, now)).await?;
            let again = t.elapsed();
            let measured = n >= WARM_UP;
            let with_truth = with_truth(n);
            if measured {
                set.hybrid.push(h);
                set.hybrid_again.push(again);
                let found_ids: Vec<i64> = found.iter().map(|m| m.id).collect();
                set.found_own += usize::from(found_ids.contains(&q.fact));
            }
            let truth = answers.remove(&(s, n)).unwrap_or_default();
            let t = Instant::now();
            let words = facts.keyword_ids(&q.text, PER_SEARCH, Some(now)).await?;
            let k = t.elapsed();
            if measured {
                set.words_half.push(k);
            }
            if *name == "words" {
                let t = Instant::now();
                let near = facts.nearest(&q.vector, PER_SEARCH, now).await?;
                let v = t.elapsed();
                anyhow::ensure!(!near.is_empty(), "a vector search found nothing");
                // The hybrid's last step alone: fusion, the word-only hits' vectors, the facts.
                let t = Instant::now();
                facts
                    .rank_hybrid(&hybrid_query(q, &filter, now), &near, &words)
                    .await?;
                let r = t.elapsed();
                if measured {
                    vector_only.push(v);
                    rank_only.push(r);
                }
                if with_truth {
                    recall += recall_at(&top_ids(&truth, 10), &top_ids(&near, 10), 10);
                    truths.push((q.vector.clone(), top_ids(&truth, 10)));
                }
            }
            if with_truth {
                // The same hybrid search over the exact neighbours: what it should answer.
                let should = facts
                    .rank_hybrid(&hybrid_query(q, &filter, now), &truth, &words)
                    .await?;
                let should: Vec<i64> = should.iter().map(|m| m.id).collect();
                let got: Vec<i64> = found.iter().map(|m| m.id).collect();
                set.hybrid_recall += recall_at(&should, &got, 10);
                set.truths += 1;
            }
        }
        results.push((name, set));
    }
    for (vector, truth) in &truths {
        for (slot, count) in counts.iter().enumerate() {
            let t = Instant::now();
            let near = facts.nearest_among(vector, 10, |_| *count, now).await?;
            by_count[slot].1.push(t.elapsed());
            by_count[slot].0 += recall_at(truth, &top_ids(&near, 10), 10);
            // The same number by bit counts alone (a pool of exactly that many).
            let t = Instant::now();
            let near = facts
                .nearest_among_pool(vector, 10, |_| *count, 1, now)
                .await?;
            by_bits_alone[slot].1.push(t.elapsed());
            by_bits_alone[slot].0 += recall_at(truth, &top_ids(&near, 10), 10);
        }
        if !alternatives {
            continue;
        }
        // The variant an earlier version used: sqlite-vec's own KNN over the same bits.
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
        vec0_recall += recall_at(truth, &top_ids(&ranked, 10), 10);
    }
    let measured = truths.len().max(1) as f64;
    for (name, set) in results {
        report(&format!("hybrid, {name} queries"), set.hybrid.clone());
        report("  the same again, rows cached", set.hybrid_again.clone());
        report("  its words alone (FTS5 top 50)", set.words_half.clone());
        println!(
            "  recall@10 against hybrid over exact neighbours: {:.3} ({} queries); own fact in the top 10: {:.3}",
            set.hybrid_recall / set.truths.max(1) as f64,
            set.truths,
            set.found_own as f64 / set.hybrid.len().max(1) as f64
        );
    }
    report("vector only (bits, int8 codes, then float32)", vector_only);
    println!(
        "  recall@10 against float32 brute force: {:.3} ({} candidates at {} facts)",
        recall / measured,
        first_pass_size(indexed),
        indexed
    );
    report(
        "rank only (fusion, word-only hits' vectors, the facts)",
        rank_only,
    );
    for (count, (hits, times)) in counts.iter().zip(by_count) {
        report(
            &format!(
                "bits, {HAMMING_POOL}x rescored, {count} candidates (int8 codes, then float32 of {})",
                exact_rank_size(10).min(*count)
            ),
            times,
        );
        println!("  recall@10 against float32: {:.3}", hits / measured);
    }
    for (count, (hits, times)) in counts.iter().zip(by_bits_alone) {
        report(&format!("bits alone, {count} candidates"), times);
        println!("  recall@10 against float32: {:.3}", hits / measured);
    }
    if !alternatives {
        store.close().await;
        return Ok(());
    }
    report(&format!("vec0 bit KNN ({FIRST_PASS}) + float32"), vec0_bits);
    println!("  recall@10 against float32: {:.3}", vec0_recall / measured);

    // Another variant: int8 vectors for the first pass, then the same float32 rank.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE VIRTUAL TABLE IF NOT EXISTS bench_int8 USING vec0(embedding int8[{DIM}])"
    )))
    .execute(store.pool())
    .await?;
    sqlx::query(
        "INSERT INTO bench_int8 (rowid, embedding) SELECT id, vec_int8(vec_quantize_int8(embedding, 'unit')) \
         FROM fact_vectors WHERE NOT EXISTS (SELECT 1 FROM bench_int8)",
    )
    .execute(store.pool())
    .await?;
    let mut times = Vec::new();
    let mut recall = 0.0;
    for (vector, truth) in &truths {
        let t = Instant::now();
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT rowid FROM bench_int8 WHERE embedding MATCH vec_int8(vec_quantize_int8(?, 'unit')) AND k = ? ORDER BY distance",
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
        times.push(t.elapsed());
        recall += recall_at(truth, &top_ids(&ranked, 10), 10);
    }
    report(&format!("int8 first pass ({rerank}) + float32"), times);
    println!("  recall@10 against float32: {:.3}", recall / measured);
    store.close().await;
    Ok(())
}
