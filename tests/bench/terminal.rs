//! What `terminal_run` adds to a command (issue 36): RUNS calls of `true` through the terminal
//! service (the checks, the person's shell, the scrubbed environment, the output readers and the
//! sweep for the run's marker) against the same `sh -c true` spawned bare, alternating. Prints the
//! medians. Run with `npm run bench:terminal`.

use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::agent::approvals::Origin;

const RUNS: usize = 50;

fn median(mut values: Vec<Duration>) -> f64 {
    values.sort();
    values[values.len() / 2].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() -> Result<()> {
    let t = TestEngine::start().await?;
    let folder = tempfile::tempdir()?;
    let folder = std::fs::canonicalize(folder.path())?.display().to_string();
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"terminal": {"enabled": true, "allowed_folders": [folder], "allowed_commands": ["true"]}}),
        )
        .await?;
    ensure!(status == 200, "{body}");
    let terminal = t.engine.services().terminal().clone();
    let (mut through, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let started = Instant::now();
        let r = terminal
            .run(
                "true",
                None,
                Origin::Chat,
                "bench",
                &CancellationToken::new(),
                None,
            )
            .await;
        through.push(started.elapsed());
        ensure!(r.ok, "{r:?}");
        let started = Instant::now();
        let status = tokio::process::Command::new("sh")
            .args(["-c", "true"])
            .status()
            .await?;
        bare.push(started.elapsed());
        ensure!(status.success());
    }
    let (through, bare) = (median(through), median(bare));
    println!(
        "{RUNS} runs each, alternating: terminal_run(\"true\") {through:.2} ms, sh -c true {bare:.2} ms, overhead {:.2} ms",
        through - bare
    );
    t.stop().await;
    Ok(())
}
