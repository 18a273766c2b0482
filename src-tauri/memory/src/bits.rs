//! The first pass of vector search, in memory: every remembered fact's vector as bits (one per
//! dimension, set when the value is positive, as sqlite-vec's `vec_quantize_binary` makes them),
//! compared with the query's bits by Hamming distance. sqlite-vec's `vec0` table `facts_vec`
//! keeps the same bits on disk and this copy is loaded from it; scanning the copy is what makes
//! search fast (`npm run bench:recall`: 100,000 facts in about 2 ms, where the `vec0` KNN takes
//! 15 ms, most of it picking its top k by repeated linear scans).
//!
//! Pure: no SQL and no locks. `MemoryStore` keeps one behind a lock and applies each committed
//! write to it.

use std::collections::BinaryHeap;
use std::ops::Range;

use crate::bit_rows::SplitRows;

/// Vectors as bits, by fact id. Slots are kept in ascending id order (facts get growing ids, so
/// new ones append), which finds a fact by binary search instead of a map: at a million facts a
/// map from id to slot would cost another 35 MB. A removed fact's slot stays, marked dead, until
/// a quarter of the slots are dead.
#[derive(Debug, Clone, Default)]
pub struct BitIndex {
    /// 64-bit words per vector.
    words: usize,
    /// Fact ids, ascending, one per slot.
    ids: Vec<i64>,
    /// Each slot's bits, heads apart from tails (`bit_rows`).
    bits: SplitRows,
    /// Whether each slot still holds a fact.
    live: Vec<bool>,
    dead: usize,
}

/// A vector's bits as `vec_quantize_binary` lays them out: element `i` is bit `i % 8` of byte
/// `i / 8`, set when the element is positive.
pub fn quantize(vector: &[f32]) -> Vec<u8> {
    let mut bytes = vec![0u8; vector.len().div_ceil(8)];
    for (i, value) in vector.iter().enumerate() {
        if *value > 0.0 {
            bytes[i / 8] |= 1 << (i % 8);
        }
    }
    bytes
}

impl BitIndex {
    /// An empty index for vectors of `dimension` elements.
    pub fn new(dimension: usize) -> Self {
        let words = dimension.div_ceil(64);
        Self {
            words,
            bits: SplitRows::new(words),
            ..Self::default()
        }
    }

    /// Facts in the index.
    pub fn len(&self) -> usize {
        self.ids.len() - self.dead
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the index holds on the heap (what it adds to the process's resident memory).
    pub fn resident_bytes(&self) -> usize {
        self.ids.capacity() * std::mem::size_of::<i64>()
            + self.bits.resident_bytes()
            + self.live.capacity()
    }

    fn pack(&self, bytes: &[u8]) -> Vec<u64> {
        let mut packed = vec![0u64; self.words];
        for (i, byte) in bytes.iter().enumerate().take(self.words * 8) {
            packed[i / 8] |= u64::from(*byte) << ((i % 8) * 8);
        }
        packed
    }

    /// Room for more slots in steps of an eighth: `Vec`'s doubling would leave up to half of a
    /// hundred megabytes unused.
    fn reserve_one(&mut self) {
        if self.ids.len() == self.ids.capacity() {
            let more = (self.ids.len() / 8).max(1024);
            self.ids.reserve_exact(more);
            self.live.reserve_exact(more);
            self.bits.reserve_exact(more);
        }
    }

    /// Sets a fact's bits (as bytes, `quantize`'s layout), replacing any it had.
    pub fn put_bytes(&mut self, id: i64, bytes: &[u8]) {
        let packed = self.pack(bytes);
        match self.ids.binary_search(&id) {
            Ok(slot) => {
                self.bits.set(slot, &packed);
                if !self.live[slot] {
                    self.live[slot] = true;
                    self.dead -= 1;
                }
            }
            Err(slot) => {
                self.reserve_one();
                if slot == self.ids.len() {
                    self.ids.push(id);
                    self.live.push(true);
                    self.bits.push(&packed);
                } else {
                    // An older id (a fact embedded again): the slots after it move up one.
                    self.ids.insert(slot, id);
                    self.live.insert(slot, true);
                    self.bits.insert(slot, &packed);
                }
            }
        }
    }

    /// Sets a fact's bits from its float vector.
    pub fn put(&mut self, id: i64, vector: &[f32]) {
        self.put_bytes(id, &quantize(vector));
    }

    /// Drops a fact (nothing when it has no bits here).
    pub fn remove(&mut self, id: i64) {
        let Ok(slot) = self.ids.binary_search(&id) else {
            return;
        };
        if !self.live[slot] {
            return;
        }
        self.live[slot] = false;
        self.dead += 1;
        if self.dead > 64 && self.dead * 4 > self.ids.len() {
            self.compact();
        }
    }

    /// Drops the dead slots, keeping the order.
    fn compact(&mut self) {
        let mut kept = 0;
        for slot in 0..self.ids.len() {
            if self.live[slot] {
                if kept != slot {
                    self.ids[kept] = self.ids[slot];
                    self.bits.copy(slot, kept);
                }
                kept += 1;
            }
        }
        self.ids.truncate(kept);
        self.bits.resize(kept);
        self.live.clear();
        self.live.resize(kept, true);
        self.dead = 0;
        self.ids.shrink_to(kept + kept / 8);
        self.bits.shrink_to(kept + kept / 8);
        self.live.shrink_to(kept + kept / 8);
    }

    /// An empty index with room for `facts` vectors (a build that knows about how many).
    pub fn with_capacity(dimension: usize, facts: usize) -> Self {
        let mut index = Self::new(dimension);
        index.ids.reserve_exact(facts);
        index.live.reserve_exact(facts);
        index.bits.reserve_exact(facts);
        index
    }

    /// Gives back room a build reserved beyond an eighth more than it holds.
    pub fn trim(&mut self) {
        let keep = self.ids.len() + self.ids.len() / 8;
        self.ids.shrink_to(keep);
        self.live.shrink_to(keep);
        self.bits.shrink_to(keep);
    }

    /// One row of a build (rows come in any order, as `facts_vec` hands them out): appended
    /// when its id is the largest so far, else kept in `late` for `merge_late`.
    pub fn push_row(&mut self, id: i64, bytes: &[u8], late: &mut Vec<(i64, Vec<u64>)>) {
        if self.ids.last().is_none_or(|last| *last < id) {
            let packed = self.pack(bytes);
            self.reserve_one();
            self.ids.push(id);
            self.live.push(true);
            self.bits.push(&packed);
        } else {
            late.push((id, self.pack(bytes)));
        }
    }

    /// Merges the rows `push_row` kept aside (from the back, so nothing is copied twice).
    pub fn merge_late(&mut self, mut late: Vec<(i64, Vec<u64>)>) {
        if late.is_empty() {
            return;
        }
        late.sort_unstable_by_key(|(id, _)| *id);
        late.dedup_by_key(|(id, _)| *id);
        let old = self.ids.len();
        let total = old + late.len();
        self.ids.resize(total, 0);
        self.live.resize(total, true);
        self.bits.resize(total);
        let (mut a, mut out) = (old, total);
        while let Some((id, packed)) = late.pop() {
            // Slots of the first part with larger ids move to the end first.
            while a > 0 && self.ids[a - 1] > id {
                a -= 1;
                out -= 1;
                self.ids[out] = self.ids[a];
                self.live[out] = self.live[a];
                self.bits.copy(a, out);
            }
            out -= 1;
            self.ids[out] = id;
            self.live[out] = true;
            self.bits.set(out, &packed);
        }
    }

    /// The ids of the `k` vectors fewest bits away from `query`, nearest first (ties by id).
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<i64> {
        self.fewest_bits_away(query, k)
            .into_iter()
            .map(|slot| self.ids[slot])
            .collect()
    }

    /// The ids of the `k` vectors the bits put nearest to `query`, best first: the `pool`
    /// fewest bits away, re-ordered by the sum of the query's own values where each has its
    /// bits set. That estimate keeps the query's magnitudes, which its sign bits throw away,
    /// so it orders the near ones far better than bit counts (hundreds tie at a million
    /// facts), and fewer candidates need their float32 vectors read.
    pub fn nearest_rescored(&self, query: &[f32], k: usize, pool: usize) -> Vec<i64> {
        let slots = self.fewest_bits_away(query, pool.max(k));
        let sums = ByteSums::new(query, self.words);
        let mut scored: Vec<(f32, i64)> = slots
            .into_iter()
            .map(|slot| {
                let estimate =
                    sums.estimate(self.bits.head(slot).iter().chain(self.bits.tail(slot)));
                (estimate, self.ids[slot])
            })
            .collect();
        scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(k);
        scored.into_iter().map(|(_, id)| id).collect()
    }

    /// The slots of the `k` live vectors fewest bits away from `query`, nearest first (ties by
    /// id). A large index is scanned in parts on several threads at once, heads first
    /// (`head_first`).
    fn fewest_bits_away(&self, query: &[f32], k: usize) -> Vec<usize> {
        let threads = scan_threads(self.ids.len());
        if self.ids.len() >= HEAD_FIRST_FROM
            && self.bits.tail_words() >= 2 * self.bits.head_words()
            && self.len() > k.saturating_mul(HEAD_SHORTLIST)
        {
            self.head_first(query, k, threads)
        } else {
            self.fewest_bits_away_in(query, k, threads)
        }
    }

    /// `fewest_bits_away` on `threads` threads, counting every bit of every slot.
    fn fewest_bits_away_in(&self, query: &[f32], k: usize, threads: usize) -> Vec<usize> {
        if k == 0 || self.words == 0 {
            return Vec::new();
        }
        let wanted = self.pack(&quantize(query));
        let parts = self.parts(threads);
        let mut best: Vec<(u32, i64, usize)> = if threads <= 1 {
            self.scan(&wanted, 0..self.ids.len(), k)
        } else {
            std::thread::scope(|scope| {
                let scans: Vec<_> = parts
                    .map(|slots| {
                        let wanted = &wanted;
                        scope.spawn(move || self.scan(wanted, slots, k))
                    })
                    .collect();
                scans.into_iter().flat_map(joined).collect()
            })
        };
        best.sort_unstable();
        best.truncate(k);
        best.into_iter().map(|(_, _, slot)| slot).collect()
    }

    /// The slots of about the `k` live vectors fewest bits away from `query`, found by their
    /// heads first: every head's distance, then the `HEAD_SHORTLIST × k` nearest heads counted in
    /// full and the `k` fewest bits away of those kept. Reading a sixth of the bytes (the scan
    /// waits on memory, not on counting) this takes about half the time of counting every bit
    /// at a million facts, and finds the same recall@10 (`npm run bench:recall`).
    fn head_first(&self, query: &[f32], k: usize, threads: usize) -> Vec<usize> {
        if k == 0 || self.words == 0 {
            return Vec::new();
        }
        let wanted = self.pack(&quantize(query));
        let (wanted_head, wanted_tail) = wanted.split_at(self.bits.head_words());
        let shortlist = k.saturating_mul(HEAD_SHORTLIST);
        let slots = self.ids.len();
        let part = self.part_len(threads);
        // Each slot's head distance (at most 128: a byte), a dead slot's `DEAD`.
        let mut distances = vec![DEAD; slots];
        let counts: Vec<[u32; 256]> = std::thread::scope(|scope| {
            let parts: Vec<_> = distances
                .chunks_mut(part)
                .enumerate()
                .map(|(n, out)| {
                    scope.spawn(move || self.head_distances(wanted_head, n * part, out))
                })
                .collect();
            parts.into_iter().map(joined).collect()
        });
        // The smallest distance `cut` with at least `shortlist` heads at or below it.
        let (mut below, mut cut) = (0usize, 0u8);
        while cut < DEAD - 1 {
            let at: usize = counts.iter().map(|c| c[usize::from(cut)] as usize).sum();
            if below + at >= shortlist {
                break;
            }
            below += at;
            cut += 1;
        }
        let found: Vec<(Vec<usize>, Vec<usize>)> = std::thread::scope(|scope| {
            let parts: Vec<_> = distances
                .chunks(part)
                .enumerate()
                .map(|(n, distances)| {
                    scope.spawn(move || {
                        let (mut nearer, mut at) = (Vec::new(), Vec::new());
                        for (offset, &distance) in distances.iter().enumerate() {
                            if distance < cut {
                                nearer.push(n * part + offset);
                            } else if distance == cut {
                                at.push(n * part + offset);
                            }
                        }
                        (nearer, at)
                    })
                })
                .collect();
            parts.into_iter().map(joined).collect()
        });
        // All nearer than the cut, then those at it in slot (id) order up to the shortlist.
        let at_cut = shortlist.saturating_sub(below);
        let shortlisted = found
            .iter()
            .flat_map(|(nearer, _)| nearer)
            .chain(found.iter().flat_map(|(_, at)| at).take(at_cut));
        let mut best: Vec<(u32, i64, usize)> = shortlisted
            .map(|&slot| {
                let distance = u32::from(distances[slot])
                    + self
                        .bits
                        .tail(slot)
                        .iter()
                        .zip(wanted_tail)
                        .map(|(a, b)| (a ^ b).count_ones())
                        .sum::<u32>();
                (distance, self.ids[slot], slot)
            })
            .collect();
        best.sort_unstable();
        best.truncate(k);
        best.into_iter().map(|(_, _, slot)| slot).collect()
    }

    /// Head distances of the slots from `first` on into `out` (`DEAD` for a dead slot), and how
    /// many live slots are at each distance.
    fn head_distances(&self, wanted_head: &[u64], first: usize, out: &mut [u8]) -> [u32; 256] {
        let mut counts = [0u32; 256];
        let mut block = vec![0u32; SCAN_BLOCK];
        for (n, out) in out.chunks_mut(SCAN_BLOCK).enumerate() {
            let start = first + n * SCAN_BLOCK;
            let slots = start..start + out.len();
            let block = &mut block[..out.len()];
            hamming_distances(self.bits.heads(slots.clone()), wanted_head, block);
            for ((out, &distance), live) in out.iter_mut().zip(block.iter()).zip(&self.live[slots])
            {
                if *live {
                    let distance = distance.min(u32::from(DEAD - 1)) as u8;
                    *out = distance;
                    counts[usize::from(distance)] += 1;
                }
            }
        }
        counts
    }

    /// Slots in each thread's part of a scan: whole scan blocks.
    fn part_len(&self, threads: usize) -> usize {
        self.ids
            .len()
            .div_ceil(threads.max(1))
            .next_multiple_of(SCAN_BLOCK)
            .max(SCAN_BLOCK)
    }

    /// The slots split into one range per thread.
    fn parts(&self, threads: usize) -> impl Iterator<Item = Range<usize>> {
        let slots = self.ids.len();
        let part = self.part_len(threads);
        (0..slots)
            .step_by(part)
            .map(move |first| first..(first + part).min(slots))
    }

    /// The `k` live slots in `slots` fewest bits away from `wanted`, as (distance, id, slot).
    fn scan(&self, wanted: &[u64], slots: Range<usize>, k: usize) -> Vec<(u32, i64, usize)> {
        let (wanted_head, wanted_tail) = wanted.split_at(self.bits.head_words());
        // The k best so far, worst on top.
        let mut best: BinaryHeap<(u32, i64, usize)> = BinaryHeap::with_capacity(k + 1);
        // Distances a block of slots at a time: the counting loop then has no branch in it and
        // runs on the processor's population-count instructions (see `hamming_distances`).
        let mut distances = vec![0u32; SCAN_BLOCK];
        let mut tail_distances = vec![0u32; SCAN_BLOCK];
        for first in slots.clone().step_by(SCAN_BLOCK) {
            let block = first..(first + SCAN_BLOCK).min(slots.end);
            let distances = &mut distances[..block.len()];
            let tail_distances = &mut tail_distances[..block.len()];
            hamming_distances(self.bits.heads(block.clone()), wanted_head, distances);
            hamming_distances(self.bits.tails(block.clone()), wanted_tail, tail_distances);
            for (offset, (&head, &tail)) in distances.iter().zip(tail_distances.iter()).enumerate()
            {
                let distance = head + tail;
                if best.len() == k && best.peek().is_some_and(|&(worst, ..)| distance > worst) {
                    continue;
                }
                let slot = first + offset;
                if !self.live[slot] {
                    continue;
                }
                let entry = (distance, self.ids[slot], slot);
                if best.len() < k {
                    best.push(entry);
                } else if best.peek().is_some_and(|&worst| entry < worst) {
                    best.pop();
                    best.push(entry);
                }
            }
        }
        best.into_vec()
    }
}

/// A scoped thread's result, or its panic passed on.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// A dead slot's head distance in `head_first` (a live head's is at most 128).
const DEAD: u8 = u8::MAX;

/// From this many slots a search reads heads first (`BitIndex::head_first`); below it every bit
/// is counted, which is exact and takes a few milliseconds (100,000 facts: about 2 ms).
const HEAD_FIRST_FROM: usize = 131_072;

/// Heads kept for the full count per slot wanted: 4 × the 2,400 a million facts asks for. Two
/// times found the same recall@10 at a million facts; four leaves room for closer data.
const HEAD_SHORTLIST: usize = 4;

/// How many times the candidates asked for the Hamming pass keeps for `nearest_rescored` to
/// pick from (`npm run bench:recall` measured the choice; docs/benchmarks.md, "Memory search").
pub const HAMMING_POOL: usize = 4;

/// Below this many slots one thread scans the whole index (a thread costs more than it saves).
const PARALLEL_FROM: usize = 131_072;

/// Threads a scan of `slots` uses: one for a small index, else one per core up to four.
fn scan_threads(slots: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    if slots < PARALLEL_FROM {
        return 1;
    }
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    cores.clamp(1, 4)
}

/// For each byte of a vector's bits and each of its 256 values, the sum of the query's values at
/// the set bits: a vector's estimate is then one look-up per byte (96 for 768 dimensions).
struct ByteSums {
    sums: Vec<f32>,
}

impl ByteSums {
    fn new(query: &[f32], words: usize) -> Self {
        let bytes = words * 8;
        let mut sums = vec![0f32; bytes * 256];
        for (byte, table) in sums.chunks_exact_mut(256).enumerate() {
            // Each value adds its lowest set bit's element to the value without that bit.
            for value in 1..256usize {
                let lowest = value.trailing_zeros() as usize;
                let element = query.get(byte * 8 + lowest).copied().unwrap_or(0.0);
                table[value] = table[value & (value - 1)] + element;
            }
        }
        Self { sums }
    }

    fn estimate<'a>(&self, bits: impl Iterator<Item = &'a u64>) -> f32 {
        let mut total = 0.0;
        for (word, value) in bits.enumerate() {
            for (byte, value) in value.to_le_bytes().into_iter().enumerate() {
                total += self.sums[(word * 8 + byte) * 256 + usize::from(value)];
            }
        }
        total
    }
}

/// Slots whose distances are counted before the best are picked from them (16 KB of counts).
const SCAN_BLOCK: usize = 4096;

/// The Hamming distance of each vector in `stored` (`wanted.len()` words each) to `wanted`.
/// Built for several instruction sets and picked at run time (the `multiversion` crate): the
/// default x86-64 target has no `popcnt`, and without it `count_ones` is a dozen shifts and
/// masks a word; with AVX-512's `vpopcntq` or AVX2 the loop counts several words at once.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vpopcntdq",
    "x86_64+avx2+popcnt",
    "x86_64+popcnt",
    "aarch64+neon",
))]
fn hamming_distances(stored: &[u64], wanted: &[u64], out: &mut [u32]) {
    match wanted.len() {
        // No tail (a vector of at most a head's words).
        0 => out.fill(0),
        // A head, and the tails of 768 and 1,024 dimensions (nomic-embed-text and most local
        // models): a fixed length unrolls.
        2 => fixed_distances::<2>(stored, wanted, out),
        10 => fixed_distances::<10>(stored, wanted, out),
        14 => fixed_distances::<14>(stored, wanted, out),
        words => {
            for (vector, distance) in stored.chunks_exact(words).zip(out.iter_mut()) {
                *distance = vector
                    .iter()
                    .zip(wanted)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
            }
        }
    }
}

/// `hamming_distances` for vectors of exactly `N` words; inlined into each version above, so
/// it is compiled for that version's instructions.
#[inline(always)]
fn fixed_distances<const N: usize>(stored: &[u64], wanted: &[u64], out: &mut [u32]) {
    let Ok(wanted) = <&[u64; N]>::try_from(wanted) else {
        return;
    };
    for (vector, distance) in stored.chunks_exact(N).zip(out.iter_mut()) {
        let mut sum = 0;
        for (a, b) in vector.iter().zip(wanted) {
            sum += (a ^ b).count_ones();
        }
        *distance = sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn signs(pattern: &[i8]) -> Vec<f32> {
        pattern.iter().map(|&s| f32::from(s)).collect()
    }

    /// A small deterministic generator (xorshift), so the brute-force checks need no crate.
    struct Xorshift(u64);
    impl Xorshift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn vector(&mut self, dimension: usize) -> Vec<f32> {
            (0..dimension)
                .map(|_| (self.below(2001) as f32 - 1000.0) / 1000.0)
                .collect()
        }
    }

    /// Every stored vector ranked by Hamming distance to `query`, ties by id: the exact answer.
    fn brute_force(stored: &HashMap<i64, Vec<u8>>, query: &[f32], k: usize) -> Vec<i64> {
        let wanted = quantize(query);
        let mut all: Vec<(u32, i64)> = stored
            .iter()
            .map(|(id, bytes)| {
                let distance = bytes
                    .iter()
                    .zip(&wanted)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
                (distance, *id)
            })
            .collect();
        all.sort_unstable();
        all.into_iter().take(k).map(|(_, id)| id).collect()
    }

    #[test]
    fn the_index_agrees_with_brute_force_through_puts_updates_and_removes() {
        let mut rng = Xorshift(0x5EED_1234_ABCD_0001);
        for dimension in [64, 200, 768, 1024] {
            let mut index = BitIndex::new(dimension);
            let mut stored: HashMap<i64, Vec<u8>> = HashMap::new();
            for step in 0..1_500 {
                // Mostly new facts, some updates of old ones (any id), some removals.
                let id = match rng.below(10) {
                    0..=5 => 1_000 + step,
                    _ => 1_000 + rng.below(step as u64 + 1) as i64,
                };
                if rng.below(4) == 0 {
                    index.remove(id);
                    stored.remove(&id);
                } else {
                    let v = rng.vector(dimension);
                    index.put(id, &v);
                    stored.insert(id, quantize(&v));
                }
                assert_eq!(index.len(), stored.len());
                if step % 50 == 0 {
                    let query = rng.vector(dimension);
                    for k in [1, 10, 100] {
                        // Seen at once: every write is in the very next search.
                        assert_eq!(
                            index.nearest(&query, k),
                            brute_force(&stored, &query, k),
                            "dimension {dimension}, step {step}, k {k}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn rows_in_any_order_build_the_index_they_would_in_order() {
        let mut rng = Xorshift(0xFEED_0000_0000_0042);
        let mut rows: Vec<(i64, Vec<u8>)> = (0..400)
            .map(|i| (i * 3 + 1, quantize(&rng.vector(96))))
            .collect();
        let build = |rows: &[(i64, Vec<u8>)]| {
            let mut index = BitIndex::with_capacity(96, 100);
            let mut late = Vec::new();
            for (id, bytes) in rows {
                index.push_row(*id, bytes, &mut late);
            }
            index.merge_late(late);
            index.trim();
            index
        };
        let in_order = build(&rows);
        // Swap some rows out of place, as vec0 hands out rows written again.
        for _ in 0..60 {
            let (a, b) = (rng.below(400) as usize, rng.below(400) as usize);
            rows.swap(a, b);
        }
        let shuffled = build(&rows);
        assert_eq!(shuffled.len(), 400);
        assert_eq!(shuffled.ids, in_order.ids);
        assert_eq!(shuffled.bits, in_order.bits);
        let stored: HashMap<i64, Vec<u8>> = rows.into_iter().collect();
        let query = rng.vector(96);
        assert_eq!(
            shuffled.nearest(&query, 25),
            brute_force(&stored, &query, 25)
        );
    }

    #[test]
    fn removing_most_facts_gives_the_memory_back() {
        let mut index = BitIndex::new(768);
        for id in 0..10_000 {
            index.put(id, &[if id % 2 == 0 { 1.0 } else { -1.0 }; 768]);
        }
        let full = index.resident_bytes();
        assert!(full >= 10_000 * 96, "{full} bytes");
        for id in 0..9_000 {
            index.remove(id);
        }
        assert_eq!(index.len(), 1_000);
        assert!(
            index.resident_bytes() < full / 4,
            "{} bytes",
            index.resident_bytes()
        );
        assert_eq!(index.nearest(&[1.0; 768], 3), vec![9_000, 9_002, 9_004]);
    }

    #[test]
    fn bits_follow_the_sign_lowest_bit_first() {
        assert_eq!(
            quantize(&signs(&[1, -1, 1, 1, -1, -1, -1, -1, 1])),
            vec![0b1101, 0b1]
        );
        assert_eq!(quantize(&[0.0, -0.5]), vec![0]);
    }

    /// Every stored vector ranked by the sum of `query`'s values at its set bits, ties by id.
    fn brute_force_rescored(stored: &HashMap<i64, Vec<u8>>, query: &[f32], k: usize) -> Vec<i64> {
        let mut all: Vec<(f32, i64)> = stored
            .iter()
            .map(|(id, bytes)| {
                let sum = (0..query.len())
                    .filter(|i| bytes[i / 8] & (1 << (i % 8)) != 0)
                    .map(|i| query[i])
                    .sum();
                (sum, *id)
            })
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|(_, id)| id).collect()
    }

    /// An index of `facts` random vectors (ids from 0), with each one's bits beside it.
    fn random_index(
        rng: &mut Xorshift,
        facts: i64,
        dimension: usize,
    ) -> (BitIndex, HashMap<i64, Vec<u8>>) {
        let mut index = BitIndex::new(dimension);
        let mut stored = HashMap::new();
        for id in 0..facts {
            let v = rng.vector(dimension);
            index.put(id, &v);
            stored.insert(id, quantize(&v));
        }
        (index, stored)
    }

    #[test]
    fn rescoring_ranks_by_the_query_values_at_each_vectors_set_bits() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        let (index, stored) = random_index(&mut rng, 300, 100);
        for _ in 0..20 {
            let query = rng.vector(100);
            // A pool of every vector: the order is the estimate's alone.
            assert_eq!(
                index.nearest_rescored(&query, 10, 300),
                brute_force_rescored(&stored, &query, 10)
            );
            // A pool of exactly k: the same vectors as the Hamming pass, in another order.
            let mut rescored = index.nearest_rescored(&query, 10, 10);
            let mut hamming = index.nearest(&query, 10);
            rescored.sort_unstable();
            hamming.sort_unstable();
            assert_eq!(rescored, hamming);
        }
    }

    #[test]
    fn rescoring_finds_more_of_the_true_nearest_than_bit_counts() {
        let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
        let mut index = BitIndex::new(64);
        let vectors: Vec<Vec<f32>> = (0..3000).map(|_| rng.vector(64)).collect();
        for (id, v) in vectors.iter().enumerate() {
            index.put(id as i64, v);
        }
        let (mut by_bits, mut rescored) = (0, 0);
        for _ in 0..40 {
            let query = rng.vector(64);
            let mut exact: Vec<(f64, i64)> = vectors
                .iter()
                .enumerate()
                .map(|(id, v)| (crate::search::cosine(&query, v), id as i64))
                .collect();
            exact.sort_by(|a, b| b.0.total_cmp(&a.0));
            let truth: Vec<i64> = exact.iter().take(10).map(|(_, id)| *id).collect();
            let hits = |found: Vec<i64>| found.iter().filter(|id| truth.contains(id)).count();
            by_bits += hits(index.nearest(&query, 20));
            rescored += hits(index.nearest_rescored(&query, 20, 160));
        }
        assert!(
            rescored > by_bits + by_bits / 10,
            "true top-10 found in 20 candidates: {rescored} rescored, {by_bits} by bits alone"
        );
    }

    #[test]
    fn a_scan_in_parts_on_several_threads_finds_what_one_finds() {
        let mut rng = Xorshift(0x1234_5678_9abc_def1);
        let (mut index, mut stored) = random_index(&mut rng, 10_000, 64);
        for id in (0..10_000i64).step_by(7) {
            index.remove(id);
            stored.remove(&id);
        }
        for _ in 0..5 {
            let query = rng.vector(64);
            let one = index.fewest_bits_away_in(&query, 25, 1);
            let three = index.fewest_bits_away_in(&query, 25, 3);
            assert_eq!(one, three);
            let ids: Vec<i64> = three.iter().map(|&slot| index.ids[slot]).collect();
            assert_eq!(ids, brute_force(&stored, &query, 25));
        }
    }

    /// `around` with uniform noise of up to `amount` in every element.
    fn noisy(rng: &mut Xorshift, around: &[f32], amount: f32) -> Vec<f32> {
        around
            .iter()
            .map(|x| x + amount * (rng.below(2001) as f32 - 1000.0) / 1000.0)
            .collect()
    }

    /// The bench's data at a fiftieth of its size (`tests/bench/memory_search.rs`: 64 topics of
    /// 16 subtopics, its noise in proportion to a topic's values), each query near one fact. Heads
    /// first relies on what it shows: a query's near facts stand apart from the rest in their
    /// heads too, so a shortlist several times the facts alike holds them (a subtopic here is 20
    /// facts, and the shortlist 192 heads for 48 candidates; at a million facts 1,000 and 9,600
    /// for 2,400).
    #[test]
    fn heads_first_find_what_counting_every_bit_finds() {
        let mut rng = Xorshift(0x4EAD_F175_7000_0001);
        let topics: Vec<Vec<f32>> = (0..64).map(|_| rng.vector(768)).collect();
        let subtopics: Vec<Vec<f32>> = (0..1_024)
            .map(|n| noisy(&mut rng, &topics[n / 16], 0.8))
            .collect();
        let mut index = BitIndex::new(768);
        let mut stored = HashMap::new();
        let mut vectors = Vec::new();
        for id in 0..20_000i64 {
            let v = noisy(&mut rng, &subtopics[id as usize % 1_024], 0.48);
            index.put(id, &v);
            stored.insert(id, quantize(&v));
            vectors.push(v);
        }
        for id in (0..20_000i64).step_by(5) {
            index.remove(id);
            stored.remove(&id);
        }
        let (mut found, mut wanted) = (0, 0);
        for n in 0..10 {
            let query = noisy(&mut rng, &vectors[n * 1_999 + 1], 0.48);
            // The ten fewest bits away among the 48 heads first hands on.
            let exact = brute_force(&stored, &query, 10);
            let heads: Vec<i64> = index
                .head_first(&query, 48, 2)
                .into_iter()
                .map(|slot| index.ids[slot])
                .collect();
            assert_eq!(heads.len(), 48);
            assert!(
                heads.iter().all(|id| stored.contains_key(id)),
                "a removed fact"
            );
            found += heads.iter().filter(|id| exact.contains(id)).count();
            wanted += exact.len();
            // A shortlist holding every fact counts every bit: the exact answer.
            let all: Vec<i64> = index
                .head_first(&query, stored.len(), 2)
                .into_iter()
                .map(|slot| index.ids[slot])
                .collect();
            assert_eq!(all, brute_force(&stored, &query, stored.len()));
        }
        assert!(found * 100 >= wanted * 95, "{found} of {wanted} found");
        // A fact written again is found by its new bits at once.
        let query = noisy(&mut rng, &subtopics[7], 0.48);
        index.put(3, &query);
        assert_eq!(index.ids[index.head_first(&query, 10, 2)[0]], 3);
    }

    #[test]
    fn the_nearest_are_the_fewest_bits_away() {
        let mut index = BitIndex::new(128);
        let base: Vec<f32> = (0..128)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        // Fact n differs from `base` in its first n elements.
        for n in 0..10i64 {
            let mut v = base.clone();
            for x in v.iter_mut().take(n as usize) {
                *x = -*x;
            }
            index.put(100 + n, &v);
        }
        assert_eq!(index.len(), 10);
        assert_eq!(index.nearest(&base, 3), vec![100, 101, 102]);
        assert_eq!(index.nearest(&base, 50).len(), 10);
        assert!(index.nearest(&base, 0).is_empty());
    }

    #[test]
    fn replacing_and_removing_keep_every_other_vector_in_its_place() {
        let mut index = BitIndex::new(64);
        let a = vec![1.0f32; 64];
        let b = vec![-1.0f32; 64];
        index.put(1, &a);
        index.put(2, &b);
        index.put(3, &a);
        // 1 and 3 are a; 2 is b.
        assert_eq!(index.nearest(&b, 1), vec![2]);
        index.put(2, &a);
        assert_eq!(index.len(), 3);
        index.put(3, &b);
        index.remove(1);
        index.remove(1);
        assert_eq!(index.len(), 2);
        assert_eq!(index.nearest(&b, 1), vec![3]);
        assert_eq!(index.nearest(&a, 1), vec![2]);
        index.remove(2);
        index.remove(3);
        assert!(index.is_empty());
        assert!(index.nearest(&a, 5).is_empty());
    }
}
