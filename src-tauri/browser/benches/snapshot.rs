//! The browser's benchmark (issue 34): time to `browser_snapshot` of a mid-size page (about
//! 2,000 elements, 300 of them interactive, 60 KB of text) with the browser warm, the first
//! call including the launch, and the memory of the browser's process tree with one tab on that
//! page, then after closing it. Against the installed Chromium, pages served on loopback,
//! bounded in count. Run with `npm run bench:browser` (a release build).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use sentient_agent::tools::ToolCtx;
use sentient_browser::{BrowserParts, BrowserService, NoTasks};
use sentient_core::bus::EventBus;
use sentient_core::clock::SystemClock;
use sentient_core::config::ConfigService;
use sentient_core::home::Home;

const WARM_RUNS: usize = 40;
const LAUNCH_RUNS: usize = 3;

/// About 2,000 elements: 300 interactive (links, buttons, fields, lists) among paragraphs
/// holding about 60 KB of text.
fn mid_size_page() -> String {
    let mut page = String::from("<html><head><title>Catalogue</title></head><body><nav>");
    for i in 0..60 {
        page.push_str(&format!("<a href=\"/section/{i}\">Section {i}</a> "));
    }
    page.push_str("</nav><main>");
    let sentence =
        "This item ships in two days and comes with a one year warranty for the whole family. ";
    for i in 0..240 {
        page.push_str(&format!(
            "<article><h2>Item {i}</h2><p>{}</p><p><span>Price</span> <b>{}.99</b></p>",
            sentence.repeat(3),
            10 + i
        ));
        match i % 4 {
            0 => page.push_str(&format!("<button>Add item {i}</button>")),
            1 => page.push_str(&format!("<label for=q{i}>Quantity {i}</label><input id=q{i} value=1>")),
            2 => page.push_str(&format!("<select aria-label=\"Size {i}\"><option>S</option><option>M</option><option>L</option></select>")),
            _ => page.push_str(&format!("<a href=\"/item/{i}\">Details {i}</a>")),
        }
        page.push_str("<ul><li>One</li><li>Two</li></ul></article>");
    }
    page.push_str("</main></body></html>");
    page
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

/// The PSS of every process below `pid` (the browser's tree), in MB.
fn tree_pss_mb(pid: u32) -> f64 {
    let mut total_kb = 0u64;
    let mut stack = vec![pid];
    while let Some(parent) = stack.pop() {
        let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
            .unwrap_or_default();
        for child in children
            .split_whitespace()
            .filter_map(|c| c.parse::<u32>().ok())
        {
            let rollup =
                std::fs::read_to_string(format!("/proc/{child}/smaps_rollup")).unwrap_or_default();
            total_kb += rollup
                .lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
            stack.push(child);
        }
    }
    total_kb as f64 / 1024.0
}

/// PSS and its anonymous part per process of the tree below `pid`, named by Chromium's
/// `--type` (the browser process has none), in MB.
fn tree_breakdown(pid: u32) -> Vec<(String, f64, f64)> {
    let mut rows = Vec::new();
    let mut stack = vec![pid];
    while let Some(parent) = stack.pop() {
        let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
            .unwrap_or_default();
        for child in children
            .split_whitespace()
            .filter_map(|c| c.parse::<u32>().ok())
        {
            let rollup =
                std::fs::read_to_string(format!("/proc/{child}/smaps_rollup")).unwrap_or_default();
            let field = |name: &str| {
                rollup
                    .lines()
                    .find(|l| l.starts_with(name))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0)
                    / 1024.0
            };
            let cmdline = std::fs::read_to_string(format!("/proc/{child}/cmdline"))
                .unwrap_or_default()
                .replace('\0', " ");
            let kind = cmdline
                .split(' ')
                .find_map(|a| a.strip_prefix("--type="))
                .unwrap_or("browser");
            let sub = cmdline
                .split(' ')
                .find_map(|a| a.strip_prefix("--utility-sub-type="))
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            rows.push((format!("{kind}{sub}"), field("Pss:"), field("Pss_Anon:")));
            stack.push(child);
        }
    }
    rows
}

async fn service() -> (BrowserService, tempfile::TempDir) {
    let home_dir = tempfile::tempdir().expect("home");
    let home = Home::at(home_dir.path());
    let bus = EventBus::new(Arc::new(SystemClock));
    let config = ConfigService::load(&home.config_file(), bus.clone()).expect("config");
    config
        .patch(json!({"browser": {"max_snapshot_chars": 200000}}))
        .await
        .expect("settings");
    let service = BrowserService::new(BrowserParts {
        home,
        config,
        bus,
        shutdown: CancellationToken::new(),
        tasks: Arc::new(NoTasks),
    });
    (service, home_dir)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let page = mid_size_page();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/page", listener.local_addr().expect("addr"));
    let app = Router::new().route("/page", get(move || async move { Html(page) }));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });

    let mut first_calls = Vec::new();
    let mut snapshots = Vec::new();
    let mut text_kb = 0;
    let mut lines = 0;
    let mut memory = Vec::new();
    let mut after_close = Vec::new();
    for _ in 0..LAUNCH_RUNS {
        let (service, home) = service().await;
        let plugin = sentient_browser::tools::plugin(service.clone());
        let tool = |name: &str| {
            plugin
                .tools
                .iter()
                .find(|t| t.def().name == name)
                .cloned()
                .expect("tool")
        };
        let ctx = ToolCtx::new(Home::at(home.path()), reqwest::Client::new(), "bench");
        let started = Instant::now();
        tool("browser_open")
            .call(json!({"url": url}), &ctx)
            .await
            .expect("open");
        first_calls.push(started.elapsed());
        for _ in 0..WARM_RUNS {
            let started = Instant::now();
            let snapshot = tool("browser_snapshot")
                .call(json!({}), &ctx)
                .await
                .expect("snapshot");
            snapshots.push(started.elapsed());
            let text = snapshot.value["text"].as_str().unwrap_or_default();
            text_kb = text.len() / 1024;
            lines = text.lines().filter(|l| l.starts_with("[e")).count();
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        memory.push(tree_pss_mb(std::process::id()));
        if memory.len() == 1 {
            for (kind, pss, anon) in tree_breakdown(std::process::id()) {
                println!("  {kind}: {pss:.0} MB PSS, {anon:.0} MB of it anonymous");
            }
        }
        service.close().await;
        let closed = Instant::now();
        while tree_pss_mb(std::process::id()) > 0.0 && closed.elapsed() < Duration::from_secs(5) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        after_close.push((closed.elapsed(), tree_pss_mb(std::process::id())));
    }
    snapshots.sort();
    first_calls.sort();
    println!("page: {lines} elements with refs, snapshot text {text_kb} KB");
    println!(
        "browser_snapshot, warm ({} calls): p50 {:.0} ms, p95 {:.0} ms",
        snapshots.len(),
        percentile(&snapshots, 0.5).as_secs_f64() * 1000.0,
        percentile(&snapshots, 0.95).as_secs_f64() * 1000.0
    );
    println!(
        "first call including the launch ({} runs): median {:.0} ms, max {:.0} ms",
        first_calls.len(),
        percentile(&first_calls, 0.5).as_secs_f64() * 1000.0,
        first_calls.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    );
    println!(
        "browser process tree PSS, one tab on the page: {}",
        memory
            .iter()
            .map(|m| format!("{m:.0} MB"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "after closing: {}",
        after_close
            .iter()
            .map(|(t, m)| format!("{m:.1} MB left after {:.1} s", t.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    );
}
