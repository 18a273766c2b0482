//! `sentient doctor --models` as a person runs it: the model check-up against the home's saved
//! settings, printed as a table, exit code 1 when a check fails. One run points Ollama at a
//! closed port; the other at a tiny stand-in that answers like a healthy Ollama.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Command, Output};

use axum::Json;
use axum::Router;
use axum::routing::{get, post};
use serde_json::{Value, json};

/// Saves settings whose Ollama (chat and embeddings) is at `base`.
fn home_with_ollama_at(home: &Path, base: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(home)?;
    std::fs::write(
        home.join("config.yaml"),
        format!(
            "models:\n  providers:\n    ollama_chat:\n      api_base: {base}\n    ollama:\n      api_base: {base}\n"
        ),
    )?;
    Ok(())
}

fn doctor_models(home: &Path) -> anyhow::Result<Output> {
    Ok(Command::new(env!("CARGO_BIN_EXE_sentient"))
        .args(["doctor", "--models", "--home"])
        .arg(home)
        .env_remove("SENTIENT_PORT")
        .output()?)
}

#[test]
fn doctor_models_reports_ollama_not_answering_and_exits_1() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    // A port that was free a moment ago: nothing answers there.
    let closed = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?;
    let base = format!("http://{closed}");
    home_with_ollama_at(&home, &base)?;

    let output = doctor_models(&home)?;
    let table = String::from_utf8(output.stdout)?;
    let progress = String::from_utf8(output.stderr)?;
    eprintln!("{table}");
    assert_eq!(output.status.code(), Some(1), "{table}\n{progress}");
    assert!(table.starts_with("ROLE"), "{table}");
    let primary = table
        .lines()
        .find(|l| l.starts_with("primary"))
        .ok_or_else(|| anyhow::anyhow!("no primary line in {table}"))?;
    assert!(
        primary.contains("ollama_chat/qwen3:8b") && primary.ends_with("FAIL"),
        "{primary}"
    );
    assert!(
        table.contains(&format!(
            "Connection  FAIL  Ollama isn't answering at {base}."
        )),
        "{table}"
    );
    assert!(table.contains("Fix: Start Ollama"), "{table}");
    // A connection failure stops the rest of the role.
    assert!(!table.contains("Short reply"), "{table}");
    assert!(
        table.lines().any(|l| l.starts_with("planner")
            && l.contains("(uses primary)")
            && l.ends_with("skip")),
        "{table}"
    );
    assert!(table.contains("ollama/nomic-embed-text"), "{table}");
    assert!(
        table.trim_end().ends_with("Model check-up: FAIL"),
        "{table}"
    );
    assert!(
        progress.contains("primary: Checking the connection"),
        "{progress}"
    );
    Ok(())
}

/// A stand-in for a healthy Ollama with qwen3:8b and nomic-embed-text: it calls whichever
/// test tool it is offered (get_weather once find_city has answered), writes JSON when asked
/// for it, and otherwise says hello.
async fn healthy_ollama() -> anyhow::Result<SocketAddr> {
    async fn chat(Json(body): Json<Value>) -> String {
        let offered = |name: &str| {
            body["tools"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == name))
        };
        let answered = body["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
        let message = if offered("get_weather") && answered {
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Pune", "country": "India"}}}]})
        } else if offered("find_city") {
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "find_city", "arguments": {"name": "Pune"}}}]})
        } else if body["format"] == "json" {
            json!({"role": "assistant", "content": "{\"city\": \"Pune\", \"ok\": true}"})
        } else {
            json!({"role": "assistant", "content": "Hello there."})
        };
        let line = json!({"model": body["model"], "message": message, "done": true,
                          "done_reason": "stop", "prompt_eval_count": 30, "eval_count": 5});
        format!("{line}\n")
    }
    let models = || {
        json!([
            {"name": "qwen3:8b", "model": "qwen3:8b", "size": 5_000_000_000_u64, "size_vram": 5_000_000_000_u64, "context_length": 8192},
            {"name": "nomic-embed-text:latest", "model": "nomic-embed-text:latest", "size": 300_000_000_u64, "size_vram": 300_000_000_u64}
        ])
    };
    let app = Router::new()
        .route("/api/tags", get(move || async move { Json(json!({"models": models()})) }))
        .route("/api/ps", get(move || async move { Json(json!({"models": models()})) }))
        .route(
            "/api/show",
            post(|| async {
                Json(json!({"capabilities": ["completion", "tools"],
                            "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}}))
            }),
        )
        .route("/api/chat", post(chat))
        .route(
            "/api/embed",
            post(|| async { Json(json!({"embeddings": [[0.1, 0.2, 0.3]]})) }),
        );
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(addr)
}

#[test]
fn doctor_models_passes_against_a_healthy_ollama() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let addr = runtime.block_on(healthy_ollama())?;
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    home_with_ollama_at(&home, &format!("http://{addr}"))?;

    let output = doctor_models(&home)?;
    let table = String::from_utf8(output.stdout)?;
    eprintln!("{table}");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{table}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for label in [
        "Connection",
        "Short reply",
        "Tool use",
        "Two tool calls in a row",
        "JSON reply",
        "Context length",
        "Graphics card",
        "Embeddings",
    ] {
        assert!(
            table
                .lines()
                .any(|l| l.trim_start().starts_with(label) && l.contains("  ok  ")),
            "{label} did not pass:\n{table}"
        );
    }
    assert!(!table.contains("FAIL"), "{table}");
    assert!(table.trim_end().ends_with("Model check-up: ok"), "{table}");
    Ok(())
}
