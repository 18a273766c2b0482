//! The bit index's life in the store: nothing until memory is first searched, then built from
//! `facts_vec` on a task of its own (searches go on by words meanwhile), then kept in step with
//! every committed write. Writes that land during the build are queued and applied when it ends,
//! so the build never has to start over however busy the writer is.
//!
//! No SQL here: the store reads the rows and reports back with `finish`.

use std::sync::RwLock;

use sentient_core::sync::RwLockExt;
use tokio::sync::watch;

use crate::bits::BitIndex;

/// A committed write, as the index sees it.
#[derive(Debug, Clone)]
pub enum BitChange {
    /// A fact's vector as bits (`bits::quantize`'s layout).
    Put(i64, Vec<u8>),
    Remove(i64),
}

/// What the index is doing (for tests and the benchmark).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexState {
    /// Memory has not been searched since start: the index holds nothing.
    NotLoaded,
    Building,
    Ready {
        facts: usize,
        /// Heap bytes held (`BitIndex::resident_bytes`).
        bytes: usize,
    },
}

#[derive(Debug, Default)]
enum State {
    #[default]
    NotLoaded,
    Building {
        queued: Vec<BitChange>,
        ready: watch::Receiver<bool>,
    },
    Ready(BitIndex),
}

#[derive(Debug, Default)]
struct Inner {
    state: State,
    /// Counts new indexes (`reset`): a build started before one is thrown away.
    generation: u64,
}

/// The index behind its lock.
#[derive(Debug, Default)]
pub struct BitCache {
    inner: RwLock<Inner>,
}

/// A build this cache asked for; whoever runs it reports back with `BitCache::finish`.
#[derive(Debug)]
pub struct Build {
    generation: u64,
    done: watch::Sender<bool>,
}

/// What a search finds.
#[derive(Debug)]
pub enum Lookup {
    Found(Vec<i64>),
    /// A build is under way: `true` is sent when it ends.
    Wait(watch::Receiver<bool>),
    /// Nothing loaded: the caller runs this build, then waits like the others.
    Start(Build, watch::Receiver<bool>),
}

/// The `k` candidates the bits find for `query`: from `pool` times as many fewest bits away,
/// the best by the query's values (`BitIndex::nearest_rescored`).
fn candidates(index: &BitIndex, query: &[f32], k: usize, pool: usize) -> Vec<i64> {
    index.nearest_rescored(query, k, k.saturating_mul(pool))
}

fn apply(index: &mut BitIndex, change: BitChange) {
    match change {
        BitChange::Put(id, bytes) => index.put_bytes(id, &bytes),
        BitChange::Remove(id) => index.remove(id),
    }
}

impl BitCache {
    pub fn state(&self) -> IndexState {
        match &self.inner.read_unpoisoned().state {
            State::NotLoaded => IndexState::NotLoaded,
            State::Building { .. } => IndexState::Building,
            State::Ready(index) => IndexState::Ready {
                facts: index.len(),
                bytes: index.resident_bytes(),
            },
        }
    }

    /// Applies committed writes: to the index when it is loaded, to the queue while it is being
    /// built, nowhere when it is not loaded (the build will read them from the table).
    pub fn apply(&self, changes: impl IntoIterator<Item = BitChange>) {
        let mut inner = self.inner.write_unpoisoned();
        match &mut inner.state {
            State::NotLoaded => {}
            State::Building { queued, .. } => queued.extend(changes),
            State::Ready(index) => changes.into_iter().for_each(|c| apply(index, c)),
        }
    }

    /// A new, empty vector table: drop what is loaded (and any build under way).
    pub fn reset(&self) {
        let mut inner = self.inner.write_unpoisoned();
        inner.generation += 1;
        inner.state = State::NotLoaded;
    }

    /// The `k(facts)` nearest by bits when the index is ready, picked from `pool` times as many
    /// fewest bits away (`BitIndex::nearest_rescored`; `HAMMING_POOL` in search).
    pub fn nearest(
        &self,
        query: &[f32],
        k: impl Fn(usize) -> usize,
        pool: usize,
    ) -> Option<Vec<i64>> {
        match &self.inner.read_unpoisoned().state {
            State::Ready(index) => Some(candidates(index, query, k(index.len()), pool)),
            _ => None,
        }
    }

    /// Like `nearest`, or what to wait for, starting the build when nothing is loaded.
    /// While a build runs: the channel that turns `true` when it ends.
    pub fn build_under_way(&self) -> Option<watch::Receiver<bool>> {
        match &self.inner.read_unpoisoned().state {
            State::Building { ready, .. } => Some(ready.clone()),
            _ => None,
        }
    }

    pub fn nearest_or_build(
        &self,
        query: &[f32],
        k: impl Fn(usize) -> usize,
        pool: usize,
    ) -> Lookup {
        if let Some(found) = self.nearest(query, &k, pool) {
            return Lookup::Found(found);
        }
        let mut inner = self.inner.write_unpoisoned();
        let generation = inner.generation;
        match &inner.state {
            State::Ready(index) => Lookup::Found(candidates(index, query, k(index.len()), pool)),
            State::Building { ready, .. } => Lookup::Wait(ready.clone()),
            State::NotLoaded => {
                let (done, ready) = watch::channel(false);
                inner.state = State::Building {
                    queued: Vec::new(),
                    ready: ready.clone(),
                };
                Lookup::Start(Build { generation, done }, ready)
            }
        }
    }

    /// Ends a build: the queued writes go into the new index, which searches use from now on.
    /// A failed build leaves nothing loaded (the next search tries again).
    pub fn finish(&self, build: Build, built: Option<BitIndex>) {
        {
            let mut inner = self.inner.write_unpoisoned();
            if inner.generation == build.generation {
                let state = std::mem::take(&mut inner.state);
                inner.state = match (state, built) {
                    (State::Building { queued, .. }, Some(mut index)) => {
                        queued.into_iter().for_each(|c| apply(&mut index, c));
                        State::Ready(index)
                    }
                    // Failed, or reset and started again since: leave it to the next search.
                    (State::Building { .. }, None) => State::NotLoaded,
                    (other, _) => other,
                };
            }
        }
        let _ = build.done.send(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(sign: f32) -> Vec<f32> {
        vec![sign; 64]
    }

    fn wait_and_finish(cache: &BitCache, built: BitIndex) -> watch::Receiver<bool> {
        match cache.nearest_or_build(&v(1.0), |_| 3, 1) {
            Lookup::Start(build, ready) => {
                cache.finish(build, Some(built));
                ready
            }
            other => panic!("expected a build to start, got {other:?}"),
        }
    }

    #[test]
    fn nothing_is_held_until_the_first_search_and_writes_during_a_build_are_kept() {
        let cache = BitCache::default();
        // Writes before any search are not kept (the build reads them from the table).
        cache.apply([BitChange::Put(1, crate::bits::quantize(&v(1.0)))]);
        assert_eq!(cache.state(), IndexState::NotLoaded);
        assert!(cache.build_under_way().is_none());
        assert!(cache.nearest(&v(1.0), |_| 3, 1).is_none());

        let Lookup::Start(build, ready) = cache.nearest_or_build(&v(1.0), |_| 3, 1) else {
            panic!("the first search starts the build");
        };
        assert_eq!(cache.state(), IndexState::Building);
        assert!(cache.build_under_way().is_some());
        assert!(matches!(
            cache.nearest_or_build(&v(1.0), |_| 3, 1),
            Lookup::Wait(_)
        ));
        // Committed while the rows were read: applied after them.
        cache.apply([
            BitChange::Put(2, crate::bits::quantize(&v(1.0))),
            BitChange::Remove(1),
        ]);
        let mut built = BitIndex::new(64);
        built.put(1, &v(1.0));
        built.put(3, &v(-1.0));
        cache.finish(build, Some(built));
        assert!(*ready.borrow());
        assert!(matches!(cache.state(), IndexState::Ready { facts: 2, .. }));
        assert_eq!(cache.nearest(&v(1.0), |n| n, 1), Some(vec![2, 3]));
    }

    #[test]
    fn a_new_index_drops_the_old_one_and_a_build_it_outdated() {
        let cache = BitCache::default();
        let mut built = BitIndex::new(64);
        built.put(1, &v(1.0));
        wait_and_finish(&cache, built.clone());
        assert_eq!(cache.nearest(&v(1.0), |_| 3, 1), Some(vec![1]));
        cache.reset();
        assert_eq!(cache.state(), IndexState::NotLoaded);

        let Lookup::Start(outdated, _) = cache.nearest_or_build(&v(1.0), |_| 3, 1) else {
            panic!("a build starts");
        };
        cache.reset();
        // The old table's rows arrive after the reset: thrown away.
        cache.finish(outdated, Some(built));
        assert_eq!(cache.state(), IndexState::NotLoaded);
        // A failed build leaves nothing, and the next search starts another.
        let Lookup::Start(failed, ready) = cache.nearest_or_build(&v(1.0), |_| 3, 1) else {
            panic!("a build starts");
        };
        cache.finish(failed, None);
        assert!(*ready.borrow());
        assert_eq!(cache.state(), IndexState::NotLoaded);
        assert!(matches!(
            cache.nearest_or_build(&v(1.0), |_| 3, 1),
            Lookup::Start(..)
        ));
    }
}
