//! Locks that survive a panic elsewhere. A thread that panicked while holding one of our
//! `std::sync` locks leaves data that is still whole (every critical section here is a plain
//! read or assignment), so the engine keeps going with it instead of panicking in turn.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `lock_unpoisoned` on a `Mutex`: the guard, poisoned or not.
pub trait MutexExt<T: ?Sized> {
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> MutexExt<T> for Mutex<T> {
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `read_unpoisoned` and `write_unpoisoned` on an `RwLock`: the guard, poisoned or not.
pub trait RwLockExt<T: ?Sized> {
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T>;
    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> RwLockExt<T> for RwLock<T> {
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_lock_poisoned_by_a_panic_still_hands_out_its_value() {
        let shared = Arc::new(Mutex::new(1));
        let rw = Arc::new(RwLock::new(2));
        let (m, r) = (shared.clone(), rw.clone());
        let _ = std::thread::spawn(move || {
            let _g = m.lock().expect("fresh lock");
            let _w = r.write().expect("fresh lock");
            panic!("poison both");
        })
        .join();
        assert!(shared.is_poisoned() && rw.is_poisoned());
        *shared.lock_unpoisoned() += 1;
        *rw.write_unpoisoned() += 1;
        assert_eq!(*shared.lock_unpoisoned(), 2);
        assert_eq!(*rw.read_unpoisoned(), 3);
    }
}
