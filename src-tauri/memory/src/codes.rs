//! The second pass of vector search: every fact's vector as int8 codes, one byte a dimension,
//! scaled so its largest value is 127. The bit pass hands on hundreds of candidates at a million
//! facts; ranking them by these codes and reading float32 only for the best few (`exact_rank_size`)
//! saves most of a search's reads: a float32 row of `fact_vectors` costs about 10 µs to find in
//! SQLite with its pages cached and 40–70 µs without, a code here about 1 µs (`npm run
//! bench:recall`, docs/benchmarks.md "Memory search").
//!
//! The codes live in a `CodeFile`: a file of its own beside the database, made from
//! `fact_vectors` after the first search's bit index and kept in step with every write, read with
//! positional reads. It is not mapped, so its pages are the system's file cache, not this
//! process's memory (768 MB at a million facts); only the map from fact to row is (19 MB).
//! The file is unnamed and goes when the engine stops: SQLite stays the store of record.
//!
//! No SQL here: the store reads the rows and hands them over.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::RwLock;

use sentient_core::sync::RwLockExt;

/// A vector's code: `round(value / largest * 127)` for each element (all zero for a zero vector).
pub fn encode(vector: &[f32]) -> Vec<u8> {
    let largest = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
    if !largest.is_normal() {
        return vec![0; vector.len()];
    }
    let scale = 127.0 / largest;
    vector
        .iter()
        // In -127..=127 by construction, so the cast neither wraps nor saturates.
        .map(|v| ((v * scale).round() as i8).to_le_bytes()[0])
        .collect()
}

/// How near a code puts its vector to `query`: the cosine of the angle between `query` and the
/// decoded vector times `query`'s length (the same for every code of one search, so the order
/// is the cosine's). None for a code of another length (a re-index under way) or all zeros.
pub fn estimate(query: &[f32], code: &[u8]) -> Option<f32> {
    if code.len() != query.len() {
        return None;
    }
    let (mut dot, mut norm) = (0f32, 0f32);
    for (q, c) in query.iter().zip(code) {
        let c = f32::from(i8::from_le_bytes([*c]));
        dot += q * c;
        norm += c * c;
    }
    (norm > 0.0).then(|| dot / norm.sqrt())
}

/// How many of the code-ranked candidates are then ranked by float32, for `k` neighbours: half
/// as many again as asked, so the last of the `k` is not decided by a code's rounding.
pub fn exact_rank_size(k: usize) -> usize {
    k + k / 2
}

/// The codes of every fact with a vector, a row of `dimension` bytes each, by fact id.
#[derive(Debug)]
pub struct CodeFile {
    file: File,
    dimension: usize,
    /// Fact id to row, both as 32 bits (half the map of 64-bit ones: 19 MB at a million facts).
    /// A fact whose id does not fit (past four billion) gets no code, and float32 ranks it.
    rows: HashMap<u32, u32>,
    /// Rows of removed facts, used again first.
    free: Vec<u32>,
    next: u32,
}

impl CodeFile {
    /// An empty, unnamed file in `folder` (the database's, so it is on the same disk and not in
    /// a memory-backed temporary folder), with room in its map for `facts` and an eighth more
    /// (growing a map of a million by doubling would leave the old one's pages behind).
    pub fn new(folder: &Path, dimension: usize, facts: usize) -> std::io::Result<Self> {
        Ok(Self {
            file: tempfile::tempfile_in(folder)?,
            dimension,
            rows: HashMap::with_capacity(facts + facts / 8),
            free: Vec::new(),
            next: 0,
        })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Bytes held in this process's memory (the map), not counting the file.
    pub fn resident_bytes(&self) -> usize {
        // hashbrown: a key, a value and a control byte a bucket; `capacity` is seven eighths of
        // the buckets.
        self.rows.capacity() * 8 / 7 * (std::mem::size_of::<(u32, u32)>() + 1)
            + self.free.capacity() * std::mem::size_of::<u32>()
    }

    /// Sets a fact's code from its vector, replacing any it had. A vector of another length (a
    /// re-index under way) drops the fact instead: search then ranks it by float32.
    pub fn put(&mut self, id: i64, vector: &[f32]) -> std::io::Result<()> {
        let Ok(key) = u32::try_from(id) else {
            return Ok(());
        };
        if vector.len() != self.dimension {
            self.remove(id);
            return Ok(());
        }
        let row = match self.rows.get(&key) {
            Some(row) => *row,
            None => {
                let row = match self.free.pop() {
                    Some(row) => row,
                    None if self.next < u32::MAX => {
                        self.next += 1;
                        self.next - 1
                    }
                    None => return Ok(()),
                };
                self.rows.insert(key, row);
                row
            }
        };
        write_at(&self.file, &encode(vector), self.offset(row))
    }

    fn offset(&self, row: u32) -> u64 {
        u64::from(row) * self.dimension as u64
    }

    /// `put`, unless the fact already has a code (written since the vectors being read for a
    /// build were, so newer).
    pub fn put_if_absent(&mut self, id: i64, vector: &[f32]) -> std::io::Result<()> {
        if u32::try_from(id).is_ok_and(|key| self.rows.contains_key(&key)) {
            return Ok(());
        }
        self.put(id, vector)
    }

    pub fn remove(&mut self, id: i64) {
        let removed = u32::try_from(id)
            .ok()
            .and_then(|key| self.rows.remove(&key));
        if let Some(row) = removed {
            self.free.push(row);
        }
    }

    /// Each of `ids` that has a code, with it.
    pub fn read(&self, ids: &[i64]) -> std::io::Result<Vec<(i64, Vec<u8>)>> {
        let mut found = Vec::with_capacity(ids.len());
        for id in ids {
            let row = u32::try_from(*id).ok().and_then(|key| self.rows.get(&key));
            if let Some(row) = row {
                let mut code = vec![0u8; self.dimension];
                read_at(&self.file, &mut code, self.offset(*row))?;
                found.push((*id, code));
            }
        }
        Ok(found)
    }
}

/// What the codes' file is doing (for tests and the benchmark).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeState {
    /// Not made since start (or since a new index): search reads float32 for every candidate.
    NotLoaded,
    /// Being filled from `fact_vectors`; writes already go to it.
    Building {
        facts: usize,
    },
    Ready {
        facts: usize,
        bytes: usize,
    },
}

#[derive(Debug, Default)]
struct Slot {
    /// Counts files (`CodeCache::start`, `reset`): a build's rows for an older one are dropped.
    generation: u64,
    file: Option<CodeFile>,
}

/// The codes' file behind its lock, with the life of a build: started by the store after the
/// bit index's build, filled a batch at a time, kept in step with every committed write.
#[derive(Debug)]
pub struct CodeCache {
    slot: RwLock<Slot>,
    /// Whether the file in the slot is made (its build ended); `built` waits on it.
    ready: tokio::sync::watch::Sender<bool>,
}

impl Default for CodeCache {
    fn default() -> Self {
        Self {
            slot: RwLock::default(),
            ready: tokio::sync::watch::channel(false).0,
        }
    }
}

/// A committed write, as the codes see it: a fact's new vector, or None when it lost it.
pub type CodeChange<'v> = (i64, Option<&'v [f32]>);

impl CodeCache {
    pub fn state(&self) -> CodeState {
        let slot = self.slot.read_unpoisoned();
        match (&slot.file, *self.ready.borrow()) {
            (None, _) => CodeState::NotLoaded,
            (Some(file), false) => CodeState::Building { facts: file.len() },
            (Some(file), true) => CodeState::Ready {
                facts: file.len(),
                bytes: file.resident_bytes(),
            },
        }
    }

    /// Puts a new, empty file in place (writes go to it from now on); answers the build's
    /// generation for `fill` and `finish`.
    pub fn start(&self, file: CodeFile) -> u64 {
        let mut slot = self.slot.write_unpoisoned();
        slot.generation += 1;
        slot.file = Some(file);
        self.ready.send_replace(false);
        slot.generation
    }

    /// A build's batch of stored vectors; false when the file was replaced or dropped since
    /// (the build stops).
    pub fn fill(&self, generation: u64, rows: &[(i64, Vec<f32>)]) -> bool {
        let mut slot = self.slot.write_unpoisoned();
        if slot.generation != generation {
            return false;
        }
        let Some(file) = slot.file.as_mut() else {
            return false;
        };
        let written = rows
            .iter()
            .try_for_each(|(id, vector)| file.put_if_absent(*id, vector));
        if let Err(error) = written {
            tracing::warn!(%error, "memory's vector codes could not be written; searching without them");
            slot.file = None;
            self.ready.send_replace(false);
            return false;
        }
        true
    }

    pub fn finish(&self, generation: u64) {
        // The write lock, so that no `start` or `reset` comes between the check and the send.
        let slot = self.slot.write_unpoisoned();
        if slot.generation == generation && slot.file.is_some() {
            self.ready.send_replace(true);
        }
    }

    /// Returns once a file is made.
    pub async fn built(&self) {
        let mut ready = self.ready.subscribe();
        let _ = ready.wait_for(|made| *made).await;
    }

    /// A new vector table: the file goes (and any build stops).
    pub fn reset(&self) {
        let mut slot = self.slot.write_unpoisoned();
        slot.generation += 1;
        slot.file = None;
        self.ready.send_replace(false);
    }

    /// Applies committed writes (nothing while no file is made: its build reads the table).
    pub fn apply(&self, changes: &[CodeChange<'_>]) {
        let mut slot = self.slot.write_unpoisoned();
        let Some(file) = slot.file.as_mut() else {
            return;
        };
        let written = changes.iter().try_for_each(|(id, vector)| match vector {
            Some(vector) => file.put(*id, vector),
            None => {
                file.remove(*id);
                Ok(())
            }
        });
        if let Err(error) = written {
            tracing::warn!(%error, "memory's vector codes could not be written; searching without them");
            slot.file = None;
            self.ready.send_replace(false);
        }
    }

    /// The `n` of `candidates` their codes put nearest to `query`, best first, then every one
    /// without a code (not reached by the build yet, or no file at all): float32 decides those.
    pub fn best(&self, query: &[f32], candidates: &[i64], n: usize) -> Vec<i64> {
        let slot = self.slot.read_unpoisoned();
        let stored: HashMap<i64, Vec<u8>> = match slot.file.as_ref().map(|f| f.read(candidates)) {
            Some(Ok(rows)) => rows.into_iter().collect(),
            Some(Err(error)) => {
                tracing::warn!(%error, "memory's vector codes could not be read");
                HashMap::new()
            }
            None => HashMap::new(),
        };
        drop(slot);
        let mut scored = Vec::with_capacity(stored.len());
        let mut uncoded = Vec::new();
        for id in candidates {
            match stored.get(id).and_then(|code| estimate(query, code)) {
                Some(estimate) => scored.push((estimate, *id)),
                None => uncoded.push(*id),
            }
        }
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(n);
        scored
            .into_iter()
            .map(|(_, id)| id)
            .chain(uncoded)
            .collect()
    }
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(unix)]
fn read_at(file: &File, bytes: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, bytes, offset)
}

#[cfg(windows)]
fn write_at(file: &File, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, bytes, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        bytes = &bytes[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn read_at(file: &File, mut bytes: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(file, bytes, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes = &mut bytes[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (na * nb)
    }

    /// Deterministic values in -1..1 (xorshift), so the checks need no crate.
    fn vectors(seed: u64, count: usize, dimension: usize) -> Vec<Vec<f32>> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 20_001) as f32 / 10_000.0 - 1.0
        };
        (0..count)
            .map(|_| (0..dimension).map(|_| next()).collect())
            .collect()
    }

    #[test]
    fn a_code_keeps_the_largest_value_at_127_and_the_signs() {
        let code = encode(&[0.5, -0.25, 0.0, -0.5, 0.001]);
        let values: Vec<i8> = code.iter().map(|b| i8::from_le_bytes([*b])).collect();
        assert_eq!(values, vec![127, -64, 0, -127, 0]);
        assert_eq!(encode(&[0.0, 0.0]), vec![0, 0]);
        assert_eq!(estimate(&[1.0, 1.0], &encode(&[0.0, 0.0])), None);
        assert_eq!(estimate(&[1.0, 1.0, 1.0], &encode(&[0.5, 0.5])), None);
    }

    #[test]
    fn the_estimate_is_the_cosine_to_within_rounding() {
        let all = vectors(0x5EED_0041, 200, 768);
        let query = &all[0];
        let query_length = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        for vector in &all[1..] {
            let estimated = estimate(query, &encode(vector)).unwrap_or(f32::NAN) / query_length;
            assert!(
                (estimated - cosine(query, vector)).abs() < 0.005,
                "{estimated} against {}",
                cosine(query, vector)
            );
        }
    }

    #[test]
    fn ranking_by_codes_then_exactly_finds_the_exact_top_ten() {
        // The search's own steps on a small corpus against brute force: every code-ranked top
        // `exact_rank_size(10)`, ranked by float32, gives exactly the float32 top 10.
        let all = vectors(0x5EED_0042, 2_001, 256);
        for query in all.iter().take(20) {
            let mut exact: Vec<(f32, usize)> = all
                .iter()
                .enumerate()
                .map(|(i, v)| (cosine(query, v), i))
                .collect();
            exact.sort_by(|a, b| b.0.total_cmp(&a.0));
            let mut by_code: Vec<(f32, usize)> = all
                .iter()
                .enumerate()
                .map(|(i, v)| (estimate(query, &encode(v)).unwrap_or(f32::MIN), i))
                .collect();
            by_code.sort_by(|a, b| b.0.total_cmp(&a.0));
            let mut reranked: Vec<(f32, usize)> = by_code[..exact_rank_size(10)]
                .iter()
                .map(|(_, i)| (cosine(query, &all[*i]), *i))
                .collect();
            reranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            let want: Vec<usize> = exact[..10].iter().map(|(_, i)| *i).collect();
            let got: Vec<usize> = reranked[..10].iter().map(|(_, i)| *i).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn the_file_keeps_each_facts_code_through_puts_updates_and_removes() {
        let folder = tempfile::tempdir().expect("folder");
        let mut file = CodeFile::new(folder.path(), 4, 2).expect("file");
        let a = [0.5, -0.5, 0.25, 0.0];
        let b = [-1.0, 0.0, 0.0, 1.0];
        file.put(7, &a).expect("put");
        file.put(9, &b).expect("put");
        assert_eq!(
            file.read(&[9, 8, 7]).expect("read"),
            vec![(9, encode(&b)), (7, encode(&a))]
        );
        // An update replaces in place; a removed fact's row is used again.
        file.put(7, &b).expect("update");
        file.remove(9);
        file.put(11, &a).expect("put");
        assert_eq!(file.len(), 2);
        assert_eq!(
            file.read(&[7, 9, 11]).expect("read"),
            vec![(7, encode(&b)), (11, encode(&a))]
        );
        // A build's older vector does not replace a newer code; another length drops the fact.
        file.put_if_absent(7, &a).expect("build");
        assert_eq!(file.read(&[7]).expect("read"), vec![(7, encode(&b))]);
        file.put(11, &[1.0, 2.0]).expect("other length");
        assert_eq!(file.read(&[11]).expect("read"), vec![]);
        // An id past 32 bits gets no code (float32 ranks it).
        let far = i64::from(u32::MAX) + 1;
        file.put(far, &a).expect("far");
        assert_eq!(file.read(&[far]).expect("read"), vec![]);
        assert!(file.resident_bytes() > 0);
    }
}
