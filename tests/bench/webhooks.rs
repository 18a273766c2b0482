//! Webhook calls per second on loopback: a release engine's `POST /hooks/{id}` (secret check,
//! rate limit off, the call stored with a synced group commit before its answer, then published
//! on `source.items`) side by side with a minimal Python endpoint doing the same secret check and
//! synced SQLite insert (`webhooks_python.py`, standard-library ThreadingHTTPServer). Both get
//! the same load from this process: CALLS calls, CONCURRENCY at a time, at most LIMIT each.
//! Afterwards the stored rows are counted, so "accepted" is also "durably stored".
//! Run with `npm run bench:webhooks`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::StreamExt;
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::bus::DomainEvent;
use serde_json::json;

const CALLS: usize = 20_000;
const CONCURRENCY: usize = 64;
const LIMIT: Duration = Duration::from_secs(90);

struct Outcome {
    accepted: usize,
    refused: usize,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
}

impl Outcome {
    fn per_second(&self) -> f64 {
        self.accepted as f64 / self.elapsed.as_secs_f64()
    }
}

/// Sends CALLS calls with CONCURRENCY in flight; stops early at LIMIT.
async fn load(url: String, secret: String) -> Result<Outcome> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CONCURRENCY)
        .build()?;
    let started = Instant::now();
    let url = Arc::new(url);
    let secret = Arc::new(secret);
    let mut latencies = Vec::with_capacity(CALLS);
    let mut refused = 0;
    let mut calls = futures::stream::iter(0..CALLS)
        .map(|i| {
            let (client, url, secret) = (client.clone(), url.clone(), secret.clone());
            async move {
                if started.elapsed() > LIMIT {
                    return None;
                }
                let sent = Instant::now();
                let ok = client
                    .post(url.as_str())
                    .header("X-Sentient-Secret", secret.as_str())
                    .json(&json!({"build": i, "status": "failed", "branch": "main"}))
                    .send()
                    .await
                    .map(|r| r.status().is_success())
                    .unwrap_or(false);
                Some((ok, sent.elapsed()))
            }
        })
        .buffer_unordered(CONCURRENCY);
    while let Some(result) = calls.next().await {
        match result {
            Some((true, latency)) => latencies.push(latency),
            Some((false, _)) => refused += 1,
            None => {}
        }
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let at = |q: usize| {
        latencies
            .get((latencies.len() * q / 100).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    Ok(Outcome {
        accepted: latencies.len(),
        refused,
        elapsed,
        p50: at(50),
        p99: at(99),
    })
}

fn report(name: &str, outcome: &Outcome, stored: usize) {
    println!(
        "{name:<34} {:>6} accepted ({} refused, {stored} stored) in {:>5.2} s = {:>7.0} calls/s, p50 {:>6.2} ms, p99 {:>6.2} ms",
        outcome.accepted,
        outcome.refused,
        outcome.elapsed.as_secs_f64(),
        outcome.per_second(),
        outcome.p50.as_secs_f64() * 1000.0,
        outcome.p99.as_secs_f64() * 1000.0,
    );
}

async fn sentient() -> Result<Outcome> {
    let t = TestEngine::start().await?;
    t.engine
        .services()
        .config()
        .patch(json!({"integrations": {"webhook_rate_limit_per_minute": 0}}))
        .await?;
    let hook = t
        .engine
        .services()
        .hooks()
        .store()
        .create("bench", &t.engine.services().url())
        .await?;
    // Count what is published, as a listener would.
    let mut rx = t.engine.services().bus().subscribe();
    let published = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = published.clone();
    let listener = tokio::spawn(async move {
        loop {
            let seen = match rx.recv().await {
                Ok(envelope) => match envelope.event {
                    DomainEvent::SourceItems { items, .. } => items.len(),
                    _ => 0,
                },
                // A listener that falls behind still learns how many it missed.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    usize::try_from(n).unwrap_or_default()
                }
                Err(_) => break,
            };
            counter.fetch_add(seen, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let outcome = load(hook.url.clone(), hook.secret.clone()).await?;
    let stored: i64 = stored_calls(&t).await?;
    report("Sentient (Rust, group commit)", &outcome, stored as usize);
    if stored as usize != outcome.accepted {
        bail!("{} accepted but {stored} stored", outcome.accepted);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    listener.abort();
    println!(
        "{:<34} {} items published on source.items",
        "",
        published.load(std::sync::atomic::Ordering::Relaxed)
    );
    t.stop().await;
    Ok(outcome)
}

async fn stored_calls(t: &TestEngine) -> Result<i64> {
    let (_, list) = t.client.get("/api/hooks").await?;
    list[0]["calls"].as_i64().context("calls")
}

/// One Python endpoint: `script` run by `python` (the `PYTHON` variable, default python3).
async fn python(script: &str, label: &str) -> Result<Option<Outcome>> {
    let dir = tempfile::tempdir()?;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bench")
        .join(script);
    let secret = "python-bench-secret";
    let interpreter = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut child = match Command::new(&interpreter)
        .arg(&script)
        .arg(dir.path().join("hooks.db"))
        .arg(secret)
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            println!("{label} skipped: {interpreter} could not start ({error})");
            return Ok(None);
        }
    };
    let stdout = child.stdout.take().context("python stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let port: u16 = line
        .trim()
        .strip_prefix("PORT ")
        .and_then(|p| p.parse().ok())
        .with_context(|| {
            format!("{label} did not say its port (is it installed for {interpreter}?)")
        })?;
    let base = format!("http://127.0.0.1:{port}");
    let result = load(format!("{base}/hooks/bench"), secret.to_owned()).await;
    let stored = reqwest::get(format!("{base}/count"))
        .await?
        .json::<serde_json::Value>()
        .await?["count"]
        .as_u64()
        .unwrap_or_default() as usize;
    let _ = child.kill();
    let _ = child.wait();
    let outcome = result?;
    report(label, &outcome, stored);
    Ok(Some(outcome))
}

#[tokio::main]
async fn main() -> Result<()> {
    println!(
        "{CALLS} webhook calls, {CONCURRENCY} at a time, loopback, {} cores; each call stored with a synced commit before its answer",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let rust = sentient().await?;
    for (script, label) in [
        ("webhooks_fastapi.py", "Python (FastAPI + uvicorn)"),
        ("webhooks_python.py", "Python (http.server + sqlite3)"),
    ] {
        match python(script, label).await {
            Ok(Some(py)) => println!(
                "Sentient / {label}: {:.1}x calls/s",
                rust.per_second() / py.per_second().max(f64::MIN_POSITIVE)
            ),
            Ok(None) => {}
            Err(error) => println!("{label} skipped: {error:#}"),
        }
    }
    Ok(())
}
