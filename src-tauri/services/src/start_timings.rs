//! How long each step of [`crate::Services::start`] took, for finding where start-up goes.
//! `SENTIENT_START_TIMINGS=1` prints them to stderr when the gateway listens; they are always
//! logged at debug level.

use std::time::{Duration, Instant};

/// The steps so far, each with the time since the previous one.
pub struct StartTimings {
    began: Instant,
    last: Instant,
    steps: Vec<(&'static str, Duration)>,
}

impl Default for StartTimings {
    fn default() -> Self {
        Self::new()
    }
}

impl StartTimings {
    pub fn new() -> Self {
        let now = Instant::now();
        Self {
            began: now,
            last: now,
            steps: Vec::with_capacity(24),
        }
    }

    /// Ends the step called `name`.
    pub fn step(&mut self, name: &'static str) {
        let now = Instant::now();
        self.steps.push((name, now - self.last));
        self.last = now;
    }

    pub fn steps(&self) -> &[(&'static str, Duration)] {
        &self.steps
    }

    pub fn total(&self) -> Duration {
        self.last - self.began
    }

    /// One line per step, then the total, in microseconds.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for (name, took) in &self.steps {
            out.push_str(&format!("start: {:>7} µs  {name}\n", took.as_micros()));
        }
        out.push_str(&format!(
            "start: {:>7} µs  total\n",
            self.total().as_micros()
        ));
        out
    }

    /// Logs the steps, and prints them when `SENTIENT_START_TIMINGS` is set.
    pub fn finish(&self) {
        for (name, took) in &self.steps {
            tracing::debug!(step = name, micros = took.as_micros() as u64, "start step");
        }
        if std::env::var_os("SENTIENT_START_TIMINGS").is_some() {
            eprint!("{}", self.report());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_add_up_to_the_total() {
        let mut timings = StartTimings::new();
        std::thread::sleep(Duration::from_millis(2));
        timings.step("first");
        timings.step("second");
        let sum: Duration = timings.steps().iter().map(|(_, d)| *d).sum();
        assert_eq!(sum, timings.total());
        assert!(timings.steps()[0].1 >= Duration::from_millis(2));
        let report = timings.report();
        assert!(report.contains("µs  first\n") && report.contains("µs  second\n"));
        assert!(report.ends_with("µs  total\n"));
    }
}
