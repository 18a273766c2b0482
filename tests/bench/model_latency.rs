//! How much time the engine adds between asking a model and the first streamed token, and what
//! the local-model queue costs per call. Both against the scripted model server on loopback,
//! bounded in count. Run with `npm run bench:models` (a release build).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::agent::approvals::Origin;
use sentient_e2e::sentient_engine::agent::run_loop::LoopInput;
use sentient_e2e::sentient_engine::llm::queue::{JobKind, LocalQueue, PowerSource, QueueSettings};
use sentient_e2e::sentient_engine::llm::{CallOptions, ChatRequest, Chunk, Message, ModelRole};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ROUNDS: usize = 300;
const QUEUE_ROUNDS: usize = 20_000;
const LOOP_RUNS: usize = 30;
const LOOP_ROUNDS: usize = 10;
const ZONES: [&str; LOOP_ROUNDS] = [
    "UTC",
    "Europe/London",
    "Europe/Paris",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "America/New_York",
    "America/Chicago",
    "Australia/Sydney",
    "Africa/Cairo",
    "America/Sao_Paulo",
];

struct OnMains;
impl PowerSource for OnMains {
    fn on_battery(&self) -> bool {
        false
    }
}

fn median(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let p95 = samples[samples.len() * 95 / 100];
    (samples[samples.len() / 2], p95)
}

fn body(model: &str) -> serde_json::Value {
    json!({"model": model, "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "Say hello."}], "stream": true})
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    t.client
        .patch(
            "/api/config",
            json!({"models": {"providers": {"ollama_chat": {"api_base": server.base_url()}}}}),
        )
        .await?;
    let http = reqwest::Client::builder().no_proxy().build()?;

    // Baseline: a plain client straight to the scripted server, time to the first text line.
    let mut direct = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS + 20 {
        server.push(Reply::text("Hello there, friend."));
        let started = Instant::now();
        let response = http
            .post(format!("{}/api/chat", server.base_url()))
            .json(&body("qwen3:8b"))
            .send()
            .await?;
        let mut stream = response.bytes_stream();
        let mut first = None;
        while let Some(part) = stream.next().await {
            if first.is_none() && String::from_utf8_lossy(&part?).contains("\"content\":\"Hello") {
                first = Some(started.elapsed());
            }
        }
        direct.push(first.unwrap_or_default());
    }
    let direct: Vec<Duration> = direct.into_iter().skip(20).collect();

    // Through the engine: role settings, token count, queue, provider, decoder, usage ledger.
    let mut engine = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS + 20 {
        server.push(Reply::text("Hello there, friend."));
        let opts = CallOptions::new(ModelRole::Primary, "bench", JobKind::Chat)
            .with_model(Some("ollama_chat/qwen3:8b".into()));
        let req = ChatRequest {
            messages: vec![Message::system("be brief"), Message::user("Say hello.")],
            ..Default::default()
        };
        let started = Instant::now();
        let mut first = None;
        t.engine
            .services()
            .llm()
            .stream(req, &opts, &mut |chunk| {
                if first.is_none() && matches!(chunk, Chunk::Text(_)) {
                    first = Some(started.elapsed());
                }
            })
            .await?;
        engine.push(first.unwrap_or_default());
    }
    let engine: Vec<Duration> = engine.into_iter().skip(20).collect();

    // The queue alone: an uncontended acquire and release of the local model.
    let queue = LocalQueue::new(
        QueueSettings::default(),
        Arc::new(OnMains),
        Arc::new(|_| {}),
    );
    let cancel = CancellationToken::new();
    let started = Instant::now();
    for _ in 0..QUEUE_ROUNDS {
        let permit = queue
            .acquire(JobKind::Interactive, "ollama_chat/qwen3:8b", &cancel)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        permit.touch();
        drop(permit);
    }
    let per_call = started.elapsed() / u32::try_from(QUEUE_ROUNDS)?;

    // The loop: ROUND_RUNS runs of LOOP_ROUNDS tool rounds plus the answer, against the same
    // number of direct calls with the same replies; the difference per round is the loop's own work.
    let mut per_round = Vec::with_capacity(LOOP_RUNS);
    for _ in 0..LOOP_RUNS + 3 {
        // Different arguments each round, so the repeated-call breaker stays out of it.
        for zone in ZONES.iter().take(LOOP_ROUNDS) {
            server.push(Reply::tool_call("time_now", json!({"timezone": zone})));
        }
        server.push(Reply::text("done"));
        let input = LoopInput {
            messages: vec![
                Message::system("be brief"),
                Message::user("what time is it?"),
            ],
            opts: CallOptions::new(ModelRole::Primary, "bench", JobKind::Chat)
                .with_model(Some("ollama_chat/qwen3:8b".into())),
            origin: Origin::Chat,
            approver: None,
            scoped_apps: Vec::new(),
            max_rounds: 100,
            tool_result_limit: 16_000,
            untrusted: None,
            visited_hosts: Default::default(),
            steering: None,
            session_id: None,
            scope: None,
            repeat_nudge: true,
            browser_profile: Default::default(),
            tools_given: None,
        };
        let started = Instant::now();
        let result = t
            .engine
            .services()
            .agent()
            .run_loop(input, &mut |_| {})
            .await;
        let through_loop = started.elapsed();
        anyhow::ensure!(
            result.text == "done",
            "loop did not finish: {:?}",
            result.error()
        );

        // Different arguments each round, so the repeated-call breaker stays out of it.
        for zone in ZONES.iter().take(LOOP_ROUNDS) {
            server.push(Reply::tool_call("time_now", json!({"timezone": zone})));
        }
        server.push(Reply::text("done"));
        let started = Instant::now();
        for _ in 0..=LOOP_ROUNDS {
            let response = http
                .post(format!("{}/api/chat", server.base_url()))
                .json(&body("qwen3:8b"))
                .send()
                .await?;
            response.bytes().await?;
        }
        let direct_calls = started.elapsed();
        per_round.push(through_loop.saturating_sub(direct_calls) / u32::try_from(LOOP_ROUNDS + 1)?);
    }
    let per_round: Vec<Duration> = per_round.into_iter().skip(3).collect();
    let (r_med, r_p95) = median(per_round);

    let (d_med, d_p95) = median(direct);
    let (e_med, e_p95) = median(engine);
    println!(
        "time to first streamed token, scripted Ollama on loopback ({ROUNDS} calls each, after 20 warm-up calls)"
    );
    println!(
        "  direct HTTP client      median {:>8.3} ms   p95 {:>8.3} ms",
        d_med.as_secs_f64() * 1e3,
        d_p95.as_secs_f64() * 1e3
    );
    println!(
        "  through the engine      median {:>8.3} ms   p95 {:>8.3} ms",
        e_med.as_secs_f64() * 1e3,
        e_p95.as_secs_f64() * 1e3
    );
    println!(
        "  added by the engine     median {:>8.3} ms",
        (e_med.as_secs_f64() - d_med.as_secs_f64()) * 1e3
    );
    println!(
        "agent loop, engine work per round excluding the model ({LOOP_RUNS} runs of {LOOP_ROUNDS} tool rounds + answer): median {:.3} ms   p95 {:.3} ms",
        r_med.as_secs_f64() * 1e3,
        r_p95.as_secs_f64() * 1e3
    );
    println!(
        "local-model queue, uncontended acquire + release ({QUEUE_ROUNDS} calls): {:.2} µs per call",
        per_call.as_secs_f64() * 1e6
    );
    t.stop().await;
    Ok(())
}
