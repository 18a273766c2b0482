//! Where `BitIndex` keeps its vectors' bits: each vector's first [`HEAD_WORDS`] words (its
//! head) in one array and the rest (its tail) in another, slot by slot. A large index is scanned
//! by the heads alone first (a sixth of the bytes at 768 dimensions; the scan is bound by how
//! fast memory is read), and only the best few thousand are then counted in full. Split this way
//! the index holds no more than it did as whole rows.

/// Words in a vector's head: 128 bits, enough to keep the true nearest among the few thousand
/// best heads (`npm run bench:recall` at a million facts: the same recall@10 as whole rows).
pub const HEAD_WORDS: usize = 2;

/// Heads and tails of every slot's bits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitRows {
    head_words: usize,
    tail_words: usize,
    heads: Vec<u64>,
    tails: Vec<u64>,
}

impl SplitRows {
    /// Rows of `words` words: a head of `HEAD_WORDS` and the rest as the tail, or (a vector no
    /// longer than a head) all head.
    pub fn new(words: usize) -> Self {
        let head_words = words.min(HEAD_WORDS);
        Self {
            head_words,
            tail_words: words - head_words,
            ..Self::default()
        }
    }

    pub fn head_words(&self) -> usize {
        self.head_words
    }

    pub fn tail_words(&self) -> usize {
        self.tail_words
    }

    pub fn head(&self, slot: usize) -> &[u64] {
        &self.heads[slot * self.head_words..(slot + 1) * self.head_words]
    }

    pub fn tail(&self, slot: usize) -> &[u64] {
        &self.tails[slot * self.tail_words..(slot + 1) * self.tail_words]
    }

    /// The heads of `slots`, one after another.
    pub fn heads(&self, slots: std::ops::Range<usize>) -> &[u64] {
        &self.heads[slots.start * self.head_words..slots.end * self.head_words]
    }

    /// The tails of `slots`, one after another.
    pub fn tails(&self, slots: std::ops::Range<usize>) -> &[u64] {
        &self.tails[slots.start * self.tail_words..slots.end * self.tail_words]
    }

    /// Replaces a slot's bits with `packed` (a whole row).
    pub fn set(&mut self, slot: usize, packed: &[u64]) {
        let (head, tail) = packed.split_at(self.head_words);
        let (h, t) = (self.head_words, self.tail_words);
        self.heads[slot * h..(slot + 1) * h].copy_from_slice(head);
        self.tails[slot * t..(slot + 1) * t].copy_from_slice(tail);
    }

    /// Appends a slot.
    pub fn push(&mut self, packed: &[u64]) {
        let (head, tail) = packed.split_at(self.head_words);
        self.heads.extend_from_slice(head);
        self.tails.extend_from_slice(tail);
    }

    /// Inserts a slot before `slot`; the later ones move up one.
    pub fn insert(&mut self, slot: usize, packed: &[u64]) {
        let (head, tail) = packed.split_at(self.head_words);
        let (h, t) = (self.head_words, self.tail_words);
        self.heads.splice(slot * h..slot * h, head.iter().copied());
        self.tails.splice(slot * t..slot * t, tail.iter().copied());
    }

    /// Copies slot `from`'s bits over slot `to`'s.
    pub fn copy(&mut self, from: usize, to: usize) {
        let (h, t) = (self.head_words, self.tail_words);
        self.heads.copy_within(from * h..(from + 1) * h, to * h);
        self.tails.copy_within(from * t..(from + 1) * t, to * t);
    }

    /// Keeps the first `slots` slots, or adds zeroed ones up to `slots`.
    pub fn resize(&mut self, slots: usize) {
        self.heads.resize(slots * self.head_words, 0);
        self.tails.resize(slots * self.tail_words, 0);
    }

    /// Room for `more` slots beyond those held, and no more.
    pub fn reserve_exact(&mut self, more: usize) {
        self.heads.reserve_exact(more * self.head_words);
        self.tails.reserve_exact(more * self.tail_words);
    }

    /// Gives back room beyond `slots` slots.
    pub fn shrink_to(&mut self, slots: usize) {
        self.heads.shrink_to(slots * self.head_words);
        self.tails.shrink_to(slots * self.tail_words);
    }

    /// Heap bytes held.
    pub fn resident_bytes(&self) -> usize {
        (self.heads.capacity() + self.tails.capacity()) * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_splits_into_head_and_tail_and_comes_back_whole() {
        let mut rows = SplitRows::new(5);
        assert_eq!((rows.head_words(), rows.tail_words()), (2, 3));
        rows.push(&[1, 2, 3, 4, 5]);
        rows.push(&[6, 7, 8, 9, 10]);
        rows.insert(1, &[11, 12, 13, 14, 15]);
        assert_eq!(
            (rows.head(1), rows.tail(1)),
            (&[11, 12][..], &[13, 14, 15][..])
        );
        assert_eq!(rows.head(2), &[6, 7]);
        rows.copy(2, 0);
        rows.set(1, &[0, 0, 0, 0, 1]);
        assert_eq!(rows.heads(0..3), &[6, 7, 0, 0, 6, 7]);
        assert_eq!(rows.tails(1..3), &[0, 0, 1, 8, 9, 10]);
        rows.resize(1);
        assert_eq!(rows.tails(0..1), &[8, 9, 10]);
    }

    #[test]
    fn a_short_vector_is_all_head() {
        let mut rows = SplitRows::new(1);
        rows.push(&[9]);
        assert_eq!((rows.head(0), rows.tail(0)), (&[9][..], &[][..]));
    }
}
