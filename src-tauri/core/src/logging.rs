//! Logs: human-readable lines on stderr and a daily rolling file of JSON lines in `logs/`. Set up once by
//! each binary (the subscriber is process-wide); the engine itself only emits `tracing` events.
//! Never log a token or a secret.

use std::path::Path;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the file writer flushing; drop it last.
pub struct LogGuard {
    _file: tracing_appender::non_blocking::WorkerGuard,
}

/// Default levels: our own info, chatty dependencies quieter. `SENTIENT_LOG` overrides.
const DEFAULT_FILTER: &str = "info,sqlx=warn,hyper=warn,tungstenite=warn";

pub fn init(logs_dir: &Path) -> LogGuard {
    let appender = tracing_appender::rolling::daily(logs_dir, "sentient.log");
    let (file_writer, guard) = tracing_appender::non_blocking(appender);
    let filter = || {
        EnvFilter::try_from_env("SENTIENT_LOG").unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER))
    };
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter());
    // JSON lines in the file: structured fields for tools, and its own field formatter, so the
    // colours of the stderr layer never leak into the file.
    let file = tracing_subscriber::fmt::layer()
        .json()
        .with_writer(file_writer)
        .with_filter(filter());
    // A second init (tests, embedding) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .try_init();
    LogGuard { _file: guard }
}

use tracing_subscriber::Layer as _;
