//! Logs: human-readable lines on stderr and a daily rolling file of JSON lines in `logs/`. Set up once by
//! each binary (the subscriber is process-wide); the engine itself only emits `tracing` events.
//! Never log a token or a secret.

use std::path::Path;

use tracing::Level;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the file writer flushing; drop it last.
pub struct LogGuard {
    _file: tracing_appender::non_blocking::WorkerGuard,
}

/// Default levels: our own info, chatty dependencies quieter. `SENTIENT_LOG` overrides.
const DEFAULT_FILTER: &str = "info,sqlx=warn,hyper=warn,tungstenite=warn";

/// Log lines that may wait for the file writer before new ones are dropped.
const LOG_LINES_WAITING: usize = 4096;

/// [`DEFAULT_FILTER`] as plain per-target levels.
fn default_targets() -> Targets {
    DEFAULT_FILTER
        .parse()
        .unwrap_or_else(|_| Targets::new().with_default(Level::INFO))
}

pub fn init(logs_dir: &Path) -> LogGuard {
    let appender = tracing_appender::rolling::daily(logs_dir, "sentient.log");
    // 4,096 waiting lines is plenty for a desktop assistant; the default 128,000 reserves 4 MB of
    // memory at start that an idle engine never uses.
    let (file_writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_LINES_WAITING)
        .finish(appender);
    // The default needs no EnvFilter: parsing one compiles its directive regexes, which took a
    // large part of start-up. `SENTIENT_LOG` (span and field filters included) still gets one.
    // One filter for both outputs; `Option`s of layers are layers.
    let custom = std::env::var("SENTIENT_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .and_then(|v| EnvFilter::try_new(v).ok());
    let default = custom.is_none().then(default_targets);
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    // JSON lines in the file: structured fields for tools, and its own field formatter, so the
    // colours of the stderr layer never leak into the file.
    let file = tracing_subscriber::fmt::layer()
        .json()
        .with_writer(file_writer);
    // A second init (tests, embedding) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(custom)
        .with(default)
        .with(stderr)
        .with(file)
        .try_init();
    LogGuard { _file: guard }
}
