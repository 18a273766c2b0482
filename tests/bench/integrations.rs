//! Apps' speed (issue 17) on loopback, in a release engine:
//! - an empty change-feed sync of Email (IMAP) against Debian's Dovecot (`POST
//!   /api/integrations/feeds/email_imap/sync`, nothing new): SYNCS syncs, p50/p99;
//! - the overhead of a stdio MCP tool call: `mcp_everything_echo` of the npm server through the
//!   tool registry, CALLS calls, p50/p99 (the server's own work is an echo);
//! - `/api/health` while a tool server that never answers is being added: HEALTH_CHECKS calls.
//!
//! Run with `npm run bench:integrations`.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use sentient_e2e::mail_servers::Dovecot;
use sentient_e2e::sentient_engine::agent::tools::ToolCtx;
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::{TestEngine, WAIT};
use serde_json::json;

const SYNCS: usize = 200;
const CALLS: usize = 500;
const HEALTH_CHECKS: usize = 200;

fn quantiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let at = |q: usize| {
        times
            .get((times.len() * q / 100).min(times.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    (at(50), at(99))
}

async fn empty_feed_sync() -> Result<()> {
    if !Dovecot::available() {
        println!("empty feed sync: skipped (Dovecot is not installed)");
        return Ok(());
    }
    let dovecot = Dovecot::start(true, &[])?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        trusted_certificates: vec![dovecot.cert_pem.clone()],
        ..Endpoints::default()
    })
    .await?;
    // Feeds off, so only the measured syncs run.
    t.client
        .patch(
            "/api/config",
            json!({"integrations": {"fast_sync_seconds": 0}}),
        )
        .await?;
    let (status, body) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": {"host": "127.0.0.1", "port": dovecot.port.to_string(),
                              "username": dovecot.user, "password": dovecot.password}}),
        )
        .await?;
    ensure!(status == 200, "connect: {status} {body}");
    let (_, first) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    ensure!(first["ok"] == true, "{first}");
    let mut times = Vec::with_capacity(SYNCS);
    for _ in 0..SYNCS {
        let started = Instant::now();
        let (_, reply) = t
            .client
            .post("/api/integrations/feeds/email_imap/sync", json!({}))
            .await?;
        times.push(started.elapsed());
        ensure!(reply["ok"] == true && reply["emitted"] == 0, "{reply}");
    }
    let (p50, p99) = quantiles(times);
    println!(
        "empty feed sync (IMAP, {SYNCS} syncs): p50 {p50:.2} ms, p99 {p99:.2} ms (target < 50 ms)"
    );
    t.stop().await;
    Ok(())
}

fn everything() -> String {
    format!(
        "{}/../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        env!("CARGO_MANIFEST_DIR")
    )
}

async fn stdio_overhead() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "everything", "transport": "stdio", "command": "node", "args": [everything(), "stdio"]}),
        )
        .await?;
    ensure!(status == 200 && server["status"] == "connected", "{server}");
    let tools = t.engine.services().agent().tools().clone();
    let ctx = ToolCtx::new(
        t.engine.services().home().clone(),
        reqwest::Client::new(),
        "bench",
    );
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let started = Instant::now();
        let result = tools
            .invoke(
                "mcp_everything_echo",
                json!({"message": format!("hi {i}")}),
                &ctx,
                10_000,
            )
            .await;
        times.push(started.elapsed());
        ensure!(!result.is_error, "{}", result.content);
    }
    let (p50, p99) = quantiles(times);
    println!(
        "stdio MCP tool call ({CALLS} calls of echo): p50 {p50:.2} ms, p99 {p99:.2} ms (target p50 < 20 ms)"
    );
    t.stop().await;
    Ok(())
}

async fn health_while_a_server_hangs() -> Result<()> {
    let t = TestEngine::start().await?;
    let client = t.client.clone();
    let adding = tokio::spawn(async move {
        client
            .post(
                "/api/integrations/mcp",
                json!({"name": "silent", "transport": "stdio", "command": "sleep", "args": ["60"]}),
            )
            .await
    });
    // Measure once the engine is connecting to it.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, list) = t.client.get("/api/integrations/mcp").await?;
        if list
            .as_array()
            .is_some_and(|l| l.iter().any(|s| s["status"] == "connecting"))
        {
            break;
        }
        ensure!(
            tokio::time::Instant::now() < deadline,
            "the silent server was never listed"
        );
        tokio::time::sleep(sentient_e2e::POLL).await;
    }
    let mut times = Vec::with_capacity(HEALTH_CHECKS);
    for _ in 0..HEALTH_CHECKS {
        let started = Instant::now();
        let (status, _) = t.client.get("/api/health").await?;
        times.push(started.elapsed());
        ensure!(status == 200);
    }
    let (p50, p99) = quantiles(times);
    ensure!(
        !adding.is_finished(),
        "the silent server was expected to still be connecting"
    );
    println!(
        "/api/health while a tool server hangs ({HEALTH_CHECKS} calls): p50 {p50:.2} ms, p99 {p99:.2} ms"
    );
    adding.abort();
    t.stop().await;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    tokio::time::timeout(WAIT * 30, async {
        empty_feed_sync().await.context("empty feed sync")?;
        stdio_overhead().await.context("stdio overhead")?;
        health_while_a_server_hangs().await.context("health")
    })
    .await
    .context("the benchmark took too long")?
}
