//! The first pass of vector search, in memory: every remembered fact's vector as bits (one per
//! dimension, set when the value is positive, as sqlite-vec's `vec_quantize_binary` makes them),
//! compared with the query's bits by Hamming distance. sqlite-vec's `vec0` table `facts_vec`
//! keeps the same bits on disk and this copy is loaded from it; scanning the copy is what makes
//! search fast (`npm run bench:recall`: 100,000 facts in about 2 ms, where the `vec0` KNN takes
//! 15 ms, most of it picking its top k by repeated linear scans).
//!
//! Pure: no SQL and no locks. `MemoryStore` keeps one behind a lock and applies each committed
//! write to it.

use std::collections::{BinaryHeap, HashMap};

/// Vectors as bits, by fact id.
#[derive(Debug, Clone, Default)]
pub struct BitIndex {
    /// 64-bit words per vector.
    words: usize,
    ids: Vec<i64>,
    bits: Vec<u64>,
    slot_of: HashMap<i64, usize>,
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
        Self {
            words: dimension.div_ceil(64),
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Sets a fact's bits (as bytes, `quantize`'s layout), replacing any it had.
    pub fn put_bytes(&mut self, id: i64, bytes: &[u8]) {
        let mut packed = vec![0u64; self.words];
        for (i, byte) in bytes.iter().enumerate().take(self.words * 8) {
            packed[i / 8] |= u64::from(*byte) << ((i % 8) * 8);
        }
        match self.slot_of.get(&id) {
            Some(&slot) => {
                self.bits[slot * self.words..(slot + 1) * self.words].copy_from_slice(&packed);
            }
            None => {
                self.slot_of.insert(id, self.ids.len());
                self.ids.push(id);
                self.bits.extend_from_slice(&packed);
            }
        }
    }

    /// Sets a fact's bits from its float vector.
    pub fn put(&mut self, id: i64, vector: &[f32]) {
        self.put_bytes(id, &quantize(vector));
    }

    /// Drops a fact (nothing when it has no bits here).
    pub fn remove(&mut self, id: i64) {
        let Some(slot) = self.slot_of.remove(&id) else {
            return;
        };
        let last = self.ids.len() - 1;
        if slot != last {
            // The last vector moves into the freed slot.
            let moved = self.ids[last];
            self.ids[slot] = moved;
            self.slot_of.insert(moved, slot);
            let (head, tail) = self.bits.split_at_mut(last * self.words);
            head[slot * self.words..(slot + 1) * self.words].copy_from_slice(&tail[..self.words]);
        }
        self.ids.pop();
        self.bits.truncate(last * self.words);
    }

    /// The ids of the `k` vectors fewest bits away from `query`, nearest first (ties by id).
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<i64> {
        if k == 0 || self.words == 0 {
            return Vec::new();
        }
        let mut probe = Self::new(query.len());
        probe.put(0, query);
        let wanted = &probe.bits[..self.words.min(probe.words)];
        // The k best so far, worst on top.
        let mut best: BinaryHeap<(u32, i64)> = BinaryHeap::with_capacity(k + 1);
        for (slot, stored) in self.bits.chunks_exact(self.words).enumerate() {
            let distance: u32 = stored
                .iter()
                .zip(wanted)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum();
            let id = self.ids[slot];
            if best.len() < k {
                best.push((distance, id));
            } else if best.peek().is_some_and(|&worst| (distance, id) < worst) {
                best.pop();
                best.push((distance, id));
            }
        }
        let mut found: Vec<(u32, i64)> = best.into_vec();
        found.sort_unstable();
        found.into_iter().map(|(_, id)| id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs(pattern: &[i8]) -> Vec<f32> {
        pattern.iter().map(|&s| f32::from(s)).collect()
    }

    #[test]
    fn bits_follow_the_sign_lowest_bit_first() {
        assert_eq!(
            quantize(&signs(&[1, -1, 1, 1, -1, -1, -1, -1, 1])),
            vec![0b1101, 0b1]
        );
        assert_eq!(quantize(&[0.0, -0.5]), vec![0]);
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
