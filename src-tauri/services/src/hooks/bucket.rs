//! The token bucket that keeps one webhook to `webhook_rate_limit_per_minute` calls a minute.
//! Time comes from the engine's clock, so tests can refill a bucket by moving the clock.

use chrono::{DateTime, Utc};

/// One hook's bucket: how many calls it may still make right now, as of `at`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    tokens: f64,
    at: DateTime<Utc>,
}

impl Bucket {
    /// A full bucket: a hook may make a minute's worth of calls at once.
    pub fn full(per_minute: u32, now: DateTime<Utc>) -> Self {
        Self {
            tokens: f64::from(per_minute),
            at: now,
        }
    }

    /// Takes one call from the bucket, or says in how many whole seconds (at least 1) the
    /// next one will be allowed. A refused call takes nothing.
    pub fn take(&mut self, per_minute: u32, now: DateTime<Utc>) -> Result<(), u64> {
        let capacity = f64::from(per_minute);
        let per_second = capacity / 60.0;
        // A clock moved backwards refills nothing (and takes nothing away).
        let elapsed = (now - self.at)
            .num_microseconds()
            .unwrap_or(i64::MAX)
            .max(0);
        #[allow(clippy::cast_precision_loss)]
        let elapsed = elapsed as f64 / 1_000_000.0;
        self.tokens = (self.tokens + elapsed * per_second).min(capacity);
        if now > self.at {
            self.at = now;
        }
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - self.tokens) / per_second).ceil().max(1.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Err(wait as u64)
    }
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone};

    use super::*;

    #[test]
    fn refuses_after_a_minutes_worth_and_refills_with_time() {
        let start = Utc
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .single()
            .expect("time");
        let mut bucket = Bucket::full(3, start);
        for _ in 0..3 {
            assert_eq!(bucket.take(3, start), Ok(()));
        }
        // 3 a minute refills one every 20 s.
        assert_eq!(bucket.take(3, start), Err(20));
        assert_eq!(bucket.take(3, start + Duration::seconds(15)), Err(5));
        assert_eq!(bucket.take(3, start + Duration::seconds(20)), Ok(()));
        assert!(bucket.take(3, start + Duration::seconds(20)).is_err());
        // Never more than a minute's worth, however long the hook was quiet.
        let later = start + Duration::hours(5);
        for _ in 0..3 {
            assert_eq!(bucket.take(3, later), Ok(()));
        }
        assert!(bucket.take(3, later).is_err());
    }
}
