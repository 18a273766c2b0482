//! Settings over HTTP: round trip, PATCH merge rules, the 422 shape, live application and the
//! schema's descriptions.

use sentient_e2e::TestEngine;
use serde_json::{Value, json};

#[tokio::test]
async fn put_round_trips_the_whole_config() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (_, mut config) = t.client.get("/api/config").await?;
    config["ui"]["theme"] = json!("light");
    config["models"]["fallbacks"] = json!({"primary": ["ollama_chat/llama3.2:3b"]});
    let (status, body) = t.client.put("/api/config", config.clone()).await?;
    assert_eq!((status, body), (200, json!({"saved": true})));
    let (_, after) = t.client.get("/api/config").await?;
    assert_eq!(after, config);
    let yaml = std::fs::read_to_string(t.home().join("config.yaml"))?;
    assert!(yaml.contains("light"));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn patch_deep_merges_and_null_removes_inside_free_form_maps() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"fallbacks": {"primary": ["a/b"], "fast": ["c/d"]}, "fast": "ollama_chat/x"},
                   "tools": {"approvals": {"rules": {"gmail": "Never", "slack": "ask"}}}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["saved"], true);
    assert_eq!(
        body["config"]["tools"]["approvals"]["rules"]["gmail"],
        "never"
    );

    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"fallbacks": {"fast": null}, "fast": null},
                   "tools": {"approvals": {"rules": {"gmail": null}}}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let config = &body["config"];
    assert_eq!(config["models"]["fallbacks"], json!({"primary": ["a/b"]}));
    assert_eq!(config["models"]["fast"], Value::Null);
    assert_eq!(
        config["tools"]["approvals"]["rules"],
        json!({"slack": "ask"})
    );
    // Untouched sections keep their values.
    let (_, fresh) = t.client.get("/api/config").await?;
    assert_eq!(&fresh, config);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn invalid_settings_answer_422_with_loc_and_change_nothing() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (_, before) = t.client.get("/api/config").await?;
    let cases = [
        (
            json!({"ui": {"theme": "purple"}}),
            json!(["body", "ui", "theme"]),
        ),
        (
            json!({"ui": {"launch_at_login": "yes"}}),
            json!(["body", "ui", "launch_at_login"]),
        ),
        (
            json!({"ui": {"colour": "red"}}),
            json!(["body", "ui", "colour"]),
        ),
        (
            json!({"assistant": {"timezone": "Mars/Olympus"}}),
            json!(["body", "assistant", "timezone"]),
        ),
        (
            json!({"tools": {"approvals": {"rules": {"gmail": "sometimes"}}}}),
            json!(["body", "tools", "approvals", "rules", "gmail"]),
        ),
    ];
    for (patch, loc) in cases {
        let (status, body) = t.client.patch("/api/config", patch.clone()).await?;
        assert_eq!(status, 422, "{patch}");
        let first = &body["detail"][0];
        assert_eq!(first["loc"], loc, "{patch}: {body}");
        assert!(first["msg"].as_str().is_some_and(|m| !m.is_empty()));
        assert!(first["type"].is_string());
    }
    let (status, _) = t
        .client
        .put("/api/config", json!({"ui": {"theme": 3}}))
        .await?;
    assert_eq!(status, 422);
    let (status, _) = t
        .client
        .patch("/api/config", json!(["not", "an", "object"]))
        .await?;
    assert_eq!(status, 422);
    let (_, after) = t.client.get("/api/config").await?;
    assert_eq!(before, after);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn saving_publishes_config_updated_and_applies_live() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let mut watcher = t.engine.services().config().watch();
    let (status, _) = t
        .client
        .patch("/api/config", json!({"assistant": {"name": "Jarvis"}}))
        .await?;
    assert_eq!(status, 200);
    let event = ws.wait_for("config.updated").await?;
    assert_eq!(event["data"]["sections"], json!(["assistant"]));
    assert!(event["ts"].is_string());
    // Services see the change without a restart.
    assert!(watcher.has_changed()?);
    assert_eq!(watcher.borrow_and_update().assistant.name, "Jarvis");
    // New sockets greet with the new name at once.
    let mut fresh =
        sentient_e2e::WsClient::connect(&t.engine.services().url(), Some(t.client.token())).await?;
    assert_eq!(fresh.next_json().await?["assistant"], "Jarvis");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_schema_describes_every_field() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, schema) = t.client.get("/api/config/schema").await?;
    assert_eq!(status, 200);
    let sections = schema["properties"].as_object().expect("properties");
    for section in [
        "assistant",
        "ui",
        "models",
        "tasks",
        "chat",
        "tools",
        "subagents",
        "integrations",
        "proactivity",
        "memory",
        "dreaming",
        "user_model",
        "skills",
        "evolution",
        "voice",
        "browser",
        "sandbox",
        "nodes",
        "channels",
        "terminal",
    ] {
        let s = sections
            .get(section)
            .unwrap_or_else(|| panic!("section {section} missing"));
        assert!(
            s["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{section} has no description"
        );
    }
    t.stop().await;
    Ok(())
}
