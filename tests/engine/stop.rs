//! Stop everything over HTTP: the state, its event, bootstrap, repeated stops and bad input.

use sentient_e2e::TestEngine;
use serde_json::json;

#[tokio::test]
async fn stop_and_resume_over_http_reach_live_clients() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let job = t.engine.services().stop().start_job("test work");

    let (status, stopped) = t
        .client
        .post("/api/stop-all", json!({"source": "hotkey"}))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(stopped["stopped"], true);
    assert_eq!(stopped["source"], "hotkey");
    assert_eq!(stopped["cancelled"], 1);
    assert!(job.is_cancelled());
    let event = ws.wait_for("stop.updated").await?;
    assert_eq!(event["data"]["stopped"], true);
    assert_eq!(event["data"]["stopped_at"], stopped["stopped_at"]);

    let (_, state) = t.client.get("/api/stop").await?;
    assert_eq!(state["stopped"], true);
    let (_, b) = t.client.get("/api/bootstrap").await?;
    assert_eq!(b["stop"]["stopped"], true);

    let (status, resumed) = t.client.post("/api/resume", json!({})).await?;
    assert_eq!(status, 200);
    assert_eq!(
        resumed,
        json!({"stopped": false, "stopped_at": null, "source": "desktop"})
    );
    let event = ws.wait_for("stop.updated").await?;
    assert_eq!(event["data"]["stopped"], false);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn an_empty_body_means_desktop_and_a_second_stop_keeps_the_first() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let first = t
        .client
        .request(reqwest::Method::POST, "/api/stop-all")
        .send()
        .await?;
    assert_eq!(first.status(), 200);
    let first: serde_json::Value = first.json().await?;
    assert_eq!(first["source"], "desktop");
    let (_, second) = t
        .client
        .post("/api/stop-all", json!({"source": "tray"}))
        .await?;
    assert_eq!(second["stopped_at"], first["stopped_at"]);
    assert_eq!(second["source"], "desktop");
    assert_eq!(second["cancelled"], 0);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn an_unknown_source_is_refused_and_changes_nothing() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .post("/api/stop-all", json!({"source": "the moon"}))
        .await?;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "source"]));
    let (_, state) = t.client.get("/api/stop").await?;
    assert_eq!(state["stopped"], false);
    t.stop().await;
    Ok(())
}
