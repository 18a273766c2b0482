//! What one scheduler tick costs with 10,000 active recurring tasks in the store (nothing due,
//! and a few due), and how long after its due time a run starts (its run row exists) when the
//! scheduler is left to itself. Runs started here get no model answer (the scripted server's
//! script is empty), so they end at once; only claims and run rows are measured. Run with
//! `npm run bench:tasks` (a release build).

use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use chrono::{DateTime, Utc};
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::tasks::model::TaskStatus;
use sentient_e2e::sentient_engine::tasks::schedule::parse_schedule;
use sentient_e2e::sentient_engine::tasks::store::TaskRecord;
use sentient_model_server::ScriptedModel;
use serde_json::json;

const TASKS: usize = 10_000;
const IDLE_TICKS: usize = 200;
const DUE_BATCHES: usize = 20;
const DUE_PER_BATCH: usize = 8;
const TIMED_STARTS: usize = 20;

fn stats(mut samples: Vec<Duration>) -> (Duration, Duration, Duration) {
    samples.sort();
    (
        samples[samples.len() / 2],
        samples[samples.len() * 95 / 100],
        samples[samples.len() - 1],
    )
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn recurring(t: &TestEngine, i: usize, next: DateTime<Utc>) -> Result<TaskRecord> {
    let now = t.engine.services().clock().now();
    let time = format!("{:02}:{:02}", (i / 60) % 24, i % 60);
    let schedule = parse_schedule(
        &json!({"type": "recurring", "frequency": "daily", "time": time, "timezone": "Europe/Berlin"}),
        "UTC",
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut task = sentient_e2e::task_row(
        format!("bench-{i:05}"),
        &format!("Task {i}"),
        Some(schedule),
        TaskStatus::Active,
        Some(next),
        now,
    );
    task.description = "A benchmark task.".into();
    Ok(TaskRecord {
        prompt: format!("Task {i}"),
        task,
    })
}

async fn insert(t: &TestEngine, record: &TaskRecord) -> Result<()> {
    t.engine
        .tasks()
        .store()
        .insert(record)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
}

async fn tick(t: &TestEngine) -> Result<(Duration, usize)> {
    let start = Instant::now();
    let started = t
        .engine
        .tasks()
        .scheduler_tick(t.engine.services().clock().now())
        .await
        .map_err(|e| anyhow::anyhow!(e.message()))?;
    Ok((start.elapsed(), started.len()))
}

async fn idle(t: &TestEngine) -> Result<()> {
    for _ in 0..500 {
        let working = t
            .engine
            .tasks()
            .store()
            .working_runs()
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        if working == 0 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    anyhow::bail!("runs kept working")
}

#[tokio::main]
async fn main() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    sentient_e2e::point_models_at(&t, &server).await?;
    let (code, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0},
                   "tasks": {"max_concurrent_runs": 16}}),
        )
        .await?;
    ensure!(code == 200, "{body}");

    // 10,000 active daily tasks, none due for the next hour.
    let now = t.engine.services().clock().now();
    let filling = Instant::now();
    for i in 0..TASKS {
        let next = now + chrono::Duration::hours(1) + chrono::Duration::seconds(i as i64 * 7);
        insert(&t, &recurring(&t, i, next)?).await?;
    }
    println!(
        "{TASKS} active recurring tasks saved in {:.1} s",
        filling.elapsed().as_secs_f64()
    );

    // A tick with nothing due.
    for _ in 0..20 {
        tick(&t).await?;
    }
    let mut samples = Vec::new();
    for _ in 0..IDLE_TICKS {
        let (took, started) = tick(&t).await?;
        ensure!(started == 0);
        samples.push(took);
    }
    let (median, p95, max) = stats(samples);
    println!(
        "tick, nothing due ({IDLE_TICKS} ticks): median {}, p95 {}, max {}",
        ms(median),
        ms(p95),
        ms(max)
    );

    // A tick that claims a few due tasks and writes their runs.
    let mut samples = Vec::new();
    let mut n = TASKS;
    for _ in 0..DUE_BATCHES {
        idle(&t).await?;
        let due = t.engine.services().clock().now() - chrono::Duration::seconds(1);
        for _ in 0..DUE_PER_BATCH {
            insert(&t, &recurring(&t, n, due)?).await?;
            n += 1;
        }
        let (took, started) = tick(&t).await?;
        ensure!(started == DUE_PER_BATCH, "started {started}");
        samples.push(took);
    }
    let (median, p95, max) = stats(samples);
    println!(
        "tick, {DUE_PER_BATCH} due ({DUE_BATCHES} ticks): median {}, p95 {}, max {}",
        ms(median),
        ms(p95),
        ms(max)
    );
    idle(&t).await?;

    // From due time to run row, with the scheduler left to itself: tasks fall due every
    // 250 ms; the scheduler sleeps until the next due time instead of a whole tick.
    let first = t.engine.services().clock().now() + chrono::Duration::seconds(2);
    let mut timed = Vec::new();
    for k in 0..TIMED_STARTS {
        let due = first + chrono::Duration::milliseconds(250 * k as i64);
        let record = recurring(&t, n, due)?;
        timed.push((record.task.task_id.clone(), due));
        insert(&t, &record).await?;
        n += 1;
    }
    // Resume wakes the scheduler at once, so it sees the new times (a task saved through the
    // API is seen at the next tick at the latest).
    t.client.post("/api/stop-all", json!({})).await?;
    t.client.post("/api/resume", json!({})).await?;
    let mut delays = Vec::new();
    for (id, due) in &timed {
        let mut found = None;
        for _ in 0..1000 {
            let runs = t
                .engine
                .tasks()
                .store()
                .runs_of(id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if let Some(run) = runs.first() {
                found = Some(run.created_at);
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let created = found.context("a timed task never started")?;
        delays.push((created - *due).to_std().unwrap_or_default());
    }
    let (median, p95, max) = stats(delays);
    println!(
        "due time to run row ({TIMED_STARTS} runs, 10,000 other tasks): median {}, p95 {}, max {}",
        ms(median),
        ms(p95),
        ms(max)
    );
    t.stop().await;
    Ok(())
}
