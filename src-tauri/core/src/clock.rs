//! Where the engine reads the time from. Services never call `Utc::now()` directly so that
//! tests can move time for schedules, limits, catch-up and rate limits.

use crate::sync::MutexExt;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};

/// A source of "now".
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

/// The real wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that only moves when a test moves it.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<Mutex<DateTime<Utc>>>,
}

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        Self {
            now: Arc::new(Mutex::new(start)),
        }
    }

    pub fn set(&self, to: DateTime<Utc>) {
        *self.now.lock_unpoisoned() = to;
    }

    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock_unpoisoned();
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock_unpoisoned()
    }
}

/// Shared handle the engine hands to every service.
pub type SharedClock = Arc<dyn Clock>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .expect("valid date");
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(Duration::minutes(5));
        assert_eq!(clock.now(), start + Duration::minutes(5));
    }
}
