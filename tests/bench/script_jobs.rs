//! A script job's check with no model (issue 36): from Check now to the task back `active` with
//! what the check found, for a watch that reads a loopback page through `web_fetch` inside the
//! sandbox (bubblewrap where it works) and compares it with the last value. CHECKS checks; prints
//! the median and the slowest. Run with `npm run bench:script-jobs`.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use serde_json::json;

use sentient_e2e::sentient_engine::bus::DomainEvent;
use sentient_e2e::sentient_engine::tasks::model::{PlanStep, TaskStatus};
use sentient_e2e::sentient_engine::tasks::store::TaskRecord;
use sentient_e2e::{TestEngine, serve_on_loopback};

const CHECKS: usize = 30;

fn median(mut values: Vec<Duration>) -> f64 {
    values.sort();
    values[values.len() / 2].as_secs_f64() * 1000.0
}

/// A task saved straight into the store, live every hour; the script comes by PATCH.
async fn task(t: &TestEngine) -> Result<String> {
    let now = t.engine.services().clock().now();
    let schedule = serde_json::from_value(
        json!({"type": "recurring", "frequency": "interval", "interval_minutes": 60, "timezone": "UTC"}),
    )?;
    let mut task = sentient_e2e::task_row(
        "bench-watch".to_owned(),
        "Kettle price",
        Some(schedule),
        TaskStatus::Active,
        None,
        now,
    );
    task.description = "Tell me when the kettle's price changes.".to_owned();
    task.plan = vec![PlanStep {
        tool: "execute_code".into(),
        description: "Check the page with a short script".into(),
    }];
    let id = task.task_id.clone();
    t.engine
        .tasks()
        .store()
        .insert(&TaskRecord {
            task,
            prompt: "Tell me when the kettle's price changes.".to_owned(),
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(id)
}

#[tokio::main]
async fn main() -> Result<()> {
    let app = axum::Router::new().route(
        "/kettle",
        axum::routing::get(|| async {
            axum::response::Html("<html><head><title>Kettle</title></head><body><main><h1>Blue kettle</h1><p>Price 40</p></main></body></html>")
        }),
    );
    let url = serve_on_loopback(app, "/kettle").await?;
    let t = TestEngine::start().await?;
    let id = task(&t).await?;
    let code = format!(
        "from sentient_tools import tools, result\nresult(tools.web_fetch(url=\"{url}\")[\"content\"].splitlines()[-1])\n"
    );
    let (status, body) = t
        .client
        .patch(
            &format!("/api/tasks/{id}"),
            json!({"script": {"code": code, "condition": "changed"}}),
        )
        .await?;
    ensure!(status == 200, "{body}");
    let (_, sandbox) = t.client.get("/api/sandbox/status").await?;
    let mut times = Vec::new();
    for _ in 0..CHECKS {
        let mut events = t.engine.services().bus().subscribe();
        let started = Instant::now();
        t.engine
            .tasks()
            .run_task_now(&id)
            .await
            .map_err(|e| anyhow::anyhow!(e.message()))?;
        let task = loop {
            let envelope = events.recv().await.context("the bus closed")?;
            if let DomainEvent::TaskUpdated(task) = envelope.event
                && task.task_id == id
                && task.status == TaskStatus::Active
            {
                break task;
            }
        };
        times.push(started.elapsed());
        let script = task.script.context("the script")?;
        ensure!(script.last_error.is_none(), "{script:?}");
        ensure!(script.last_result == "Price 40", "{script:?}");
    }
    let slowest = times.iter().max().copied().unwrap_or_default();
    println!(
        "{CHECKS} checks ({}contained, backend {}): median {:.1} ms, slowest {:.1} ms",
        if sandbox["contained"] == true {
            ""
        } else {
            "not "
        },
        sandbox["backend"],
        median(times),
        slowest.as_secs_f64() * 1000.0
    );
    t.stop().await;
    Ok(())
}
