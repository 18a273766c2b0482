//! Engines start side by side, keep their data across a restart, and shut down cleanly.

use sentient_e2e::TestEngine;
use serde_json::json;

#[tokio::test]
async fn data_survives_a_restart_on_the_same_home() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let first = TestEngine::start_in(&home).await?;
    first
        .client
        .post("/api/onboarding", json!({"user_name": "Grace"}))
        .await?;
    first
        .client
        .patch("/api/config", json!({"ui": {"theme": "light"}}))
        .await?;
    first
        .client
        .post("/api/stop-all", json!({"source": "tray"}))
        .await?;
    first
        .engine
        .services()
        .store()
        .meta_set("test.marker", &json!({"kept": true}))
        .await?;
    first.stop().await;

    let second = TestEngine::start_in(&home).await?;
    let (_, b) = second.client.get("/api/bootstrap").await?;
    assert_eq!(b["assistant"]["user_name"], "Grace");
    assert_eq!(b["assistant"]["onboarding_complete"], true);
    assert_eq!(b["ui"]["theme"], "light");
    assert_eq!(b["stop"]["stopped"], true);
    assert_eq!(b["stop"]["source"], "tray");
    let marker: Option<serde_json::Value> = second
        .engine
        .services()
        .store()
        .meta_get("test.marker")
        .await?;
    assert_eq!(marker, Some(json!({"kept": true})));
    second.stop().await;
    Ok(())
}

#[tokio::test]
async fn several_engines_run_side_by_side_without_sharing() -> anyhow::Result<()> {
    let a = TestEngine::start().await?;
    let b = TestEngine::start().await?;
    assert_ne!(a.engine.services().addr(), b.engine.services().addr());
    a.client
        .patch("/api/config", json!({"assistant": {"name": "Alpha"}}))
        .await?;
    let (_, b_config) = b.client.get("/api/config").await?;
    assert_eq!(b_config["assistant"]["name"], "Sentient");
    a.client.post("/api/stop-all", json!({})).await?;
    let (_, b_stop) = b.client.get("/api/stop").await?;
    assert_eq!(b_stop["stopped"], false);
    a.stop().await;
    b.stop().await;
    Ok(())
}

#[tokio::test]
async fn shutdown_closes_sockets_and_frees_the_port() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let addr = t.engine.services().addr();
    let mut ws = t.ws().await?;
    let dir = t.stop().await;
    // The socket hears the engine go away instead of hanging.
    let ended = ws.next_json().await;
    assert!(ended.is_err());
    assert!(
        std::net::TcpListener::bind(addr).is_ok(),
        "port still held after shutdown"
    );
    drop(dir);
    Ok(())
}
