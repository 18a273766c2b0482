//! Hybrid search, the pure part: vector neighbours and FTS5 matches merged by reciprocal rank
//! fusion, then ranked by the contract's score (similarity + keyword weight × share of the
//! query's words present). The store runs the two queries; everything here is plain data.

use std::collections::HashMap;

/// Reciprocal rank fusion's constant: ranks deep in a list still count, but less.
pub const RRF_K: f64 = 60.0;

/// How many neighbours each of the two searches brings.
pub const PER_SEARCH: usize = 50;

/// A fact found by either search.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: i64,
    /// Σ 1 / (RRF_K + rank) over the searches that found it (rank from 1).
    pub fused: f64,
    /// Cosine similarity when the vector search found it.
    pub similarity: Option<f64>,
}

/// Merges vector hits (`(id, cosine similarity)`, best first) and keyword hits (ids, best first)
/// into at most `keep` candidates, best fused rank first (ties: smaller id first, so the order
/// is stable).
pub fn fuse(vector: &[(i64, f64)], keyword: &[i64], keep: usize) -> Vec<Candidate> {
    let mut by_id: HashMap<i64, Candidate> = HashMap::new();
    for (rank, (id, similarity)) in vector.iter().enumerate() {
        let entry = by_id.entry(*id).or_insert(Candidate {
            id: *id,
            fused: 0.0,
            similarity: None,
        });
        entry.fused += 1.0 / (RRF_K + rank as f64 + 1.0);
        entry.similarity = Some(*similarity);
    }
    for (rank, id) in keyword.iter().enumerate() {
        let entry = by_id.entry(*id).or_insert(Candidate {
            id: *id,
            fused: 0.0,
            similarity: None,
        });
        entry.fused += 1.0 / (RRF_K + rank as f64 + 1.0);
    }
    let mut merged: Vec<Candidate> = by_id.into_values().collect();
    merged.sort_by(|a, b| b.fused.total_cmp(&a.fused).then(a.id.cmp(&b.id)));
    merged.truncate(keep);
    merged
}

/// The words of a text as search compares them: lowercase runs of letters and digits.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The share (0 to 1) of the query's distinct words that appear in `content`.
pub fn word_share(query: &str, content: &str) -> f64 {
    let mut wanted = words(query);
    wanted.sort();
    wanted.dedup();
    if wanted.is_empty() {
        return 0.0;
    }
    let present: std::collections::HashSet<String> = words(content).into_iter().collect();
    let found = wanted.iter().filter(|w| present.contains(*w)).count();
    found as f64 / wanted.len() as f64
}

/// The contract's score: similarity (0 when unknown) + keyword weight × word share.
pub fn score(similarity: Option<f64>, keyword_weight: f64, share: f64) -> f64 {
    similarity.unwrap_or(0.0) + keyword_weight * share
}

/// Cosine similarity of two vectors (0 for empty or zero vectors, or different lengths).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// A vector as sqlite-vec stores it: little-endian float32s.
pub fn vector_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector back (trailing bytes that make no whole float are ignored).
pub fn vector_from_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Recall@k of `found` against the exact answer `truth` (both best first): the share of the true
/// top k that were found in the top k. For judging quantized indexes.
pub fn recall_at(truth: &[i64], found: &[i64], k: usize) -> f64 {
    let truth: std::collections::HashSet<i64> = truth.iter().take(k).copied().collect();
    if truth.is_empty() {
        return 1.0;
    }
    let hit = found.iter().take(k).filter(|id| truth.contains(id)).count();
    hit as f64 / truth.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_both_searches_found_ranks_above_one_found_by_one() {
        let vector = [(1, 0.9), (2, 0.8), (3, 0.7)];
        let keyword = [3, 4];
        let fused = fuse(&vector, &keyword, 10);
        let ids: Vec<i64> = fused.iter().map(|c| c.id).collect();
        // 3 is third by vector and first by words: 1/63 + 1/61 beats 1/61 alone.
        assert_eq!(ids, vec![3, 1, 2, 4]);
        assert_eq!(fused[0].similarity, Some(0.7));
        assert_eq!(
            fused[3].similarity, None,
            "a words-only hit has no similarity yet"
        );
        let expected = 1.0 / 63.0 + 1.0 / 61.0;
        assert!((fused[0].fused - expected).abs() < 1e-12);
    }

    #[test]
    fn fusion_keeps_only_the_best_candidates() {
        let vector: Vec<(i64, f64)> = (0..50).map(|i| (i, 1.0 - i as f64 / 100.0)).collect();
        let keyword: Vec<i64> = (25..75).collect();
        let fused = fuse(&vector, &keyword, 24);
        assert_eq!(fused.len(), 24);
        // Those in both lists come first.
        assert!(fused.iter().take(10).all(|c| (25..50).contains(&c.id)));
        assert!(fuse(&[], &[], 5).is_empty());
    }

    #[test]
    fn word_share_counts_distinct_query_words_case_blind() {
        assert_eq!(
            word_share("Where does my sister live", "Sister Meera lives in Lisbon"),
            0.2
        );
        assert_eq!(word_share("lisbon LISBON", "sister lives in Lisbon."), 1.0);
        assert_eq!(word_share("", "anything"), 0.0);
        assert_eq!(word_share("?!", "anything"), 0.0);
    }

    #[test]
    fn the_score_is_similarity_plus_weighted_share() {
        assert!((score(Some(0.5), 0.15, 1.0) - 0.65).abs() < 1e-12);
        assert!((score(None, 0.15, 0.5) - 0.075).abs() < 1e-12);
    }

    #[test]
    fn cosine_of_known_vectors() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-9);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-9);
        assert!((cosine(&[1.0, 1.0], &[1.0, 0.0]) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn vectors_round_trip_through_bytes() {
        let v = vec![0.25f32, -1.5, 3.0];
        assert_eq!(vector_bytes(&v).len(), 12);
        assert_eq!(vector_from_bytes(&vector_bytes(&v)), v);
    }

    #[test]
    fn recall_compares_top_k() {
        assert_eq!(recall_at(&[1, 2, 3, 4], &[2, 1, 9, 8], 2), 1.0);
        assert_eq!(recall_at(&[1, 2, 3, 4], &[1, 9, 3, 8], 4), 0.5);
    }
}
