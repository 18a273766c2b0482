//! Settings saves under load: CLIENTS clients each send SAVES `PATCH /api/config` calls, one after
//! another, to one engine on loopback (each changes a setting, so every call is a real save).
//! Prints the median and p99 wait. Saves are merged while the writer is busy (group commit), so
//! the wait is about one or two file flushes, not one per client in front.
//! Run with `npm run bench:config`.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use sentient_e2e::TestEngine;
use serde_json::json;

const CLIENTS: usize = 50;
const SAVES: usize = 20;
const LIMIT: Duration = Duration::from_secs(120);

#[tokio::main]
async fn main() -> Result<()> {
    let t = TestEngine::start().await?;
    let started = Instant::now();
    let clients = (0..CLIENTS).map(|c| {
        let client = t.client.clone();
        async move {
            let mut waits = Vec::with_capacity(SAVES);
            for n in 0..SAVES {
                if started.elapsed() > LIMIT {
                    break;
                }
                let sent = Instant::now();
                let (status, body) = client
                    .patch(
                        "/api/config",
                        json!({"assistant": {"location": format!("client {c} save {n}")}}),
                    )
                    .await?;
                if status != 200 {
                    bail!("a save answered {status}: {body}");
                }
                waits.push(sent.elapsed());
            }
            Ok(waits)
        }
    });
    let mut waits: Vec<Duration> = Vec::new();
    for result in futures::future::join_all(clients).await {
        waits.extend(result?);
    }
    let elapsed = started.elapsed();
    waits.sort();
    let at = |q: usize| waits[(waits.len() * q / 100).min(waits.len() - 1)];
    println!(
        "{} saves from {CLIENTS} clients in {:.1} s: median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        waits.len(),
        elapsed.as_secs_f64(),
        at(50).as_secs_f64() * 1e3,
        at(99).as_secs_f64() * 1e3,
        waits[waits.len() - 1].as_secs_f64() * 1e3,
    );
    t.stop().await;
    Ok(())
}
