//! Model presets over HTTP: the built-ins, applying one with what it still needs, one-step
//! undo, saving, renaming and deleting the user's own, and noticing a role changed by hand.
//! Ollama is the scripted model server; no model is ever called.

use anyhow::Result;
use sentient_e2e::TestEngine;
use sentient_model_server::{ModelInfo, ScriptedModel};
use serde_json::{Value, json};

/// An engine whose Ollama is `ollama_base`.
async fn engine_on(ollama_base: &str) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"providers": {
                "ollama_chat": {"api_base": ollama_base},
                "ollama": {"api_base": ollama_base},
            }}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    Ok(t)
}

async fn set_key(t: &TestEngine, provider: &str) -> Result<()> {
    let (status, body) = t
        .client
        .put(
            &format!("/api/secrets/{provider}"),
            json!({"value": format!("test-key-{provider}")}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    Ok(())
}

async fn models_config(t: &TestEngine) -> Result<Value> {
    let (status, config) = t.client.get("/api/config").await?;
    assert_eq!(status, 200, "{config}");
    Ok(config["models"].clone())
}

async fn presets(t: &TestEngine) -> Result<Value> {
    let (status, body) = t.client.get("/api/models/presets").await?;
    assert_eq!(status, 200, "{body}");
    Ok(body)
}

fn names(list: &Value) -> Vec<String> {
    list["presets"]
        .as_array()
        .map(|p| {
            p.iter()
                .filter_map(|p| p["name"].as_str())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The model "Local only" gives primary and fast on this computer.
async fn local_model(t: &TestEngine) -> Result<(String, u64)> {
    let (status, hardware) = t.client.get("/api/system/hardware").await?;
    assert_eq!(status, 200, "{hardware}");
    let rec = &hardware["recommendation"];
    Ok(if rec["cloud_first"] == true {
        ("ollama_chat/qwen3:8b".to_owned(), 8192)
    } else {
        (
            rec["model"].as_str().unwrap_or_default().to_owned(),
            rec["context_length"].as_u64().unwrap_or_default(),
        )
    })
}

#[tokio::test]
async fn built_ins_come_first_and_cloud_needs_a_key() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_on(&server.base_url()).await?;
    let list = presets(&t).await?;
    assert_eq!(names(&list), ["Local only", "Cloud", "Mixed"]);
    assert_eq!(list["active"], Value::Null);
    assert_eq!(list["modified"], false);
    assert_eq!(list["can_undo"], false);
    assert_eq!(list["undo_preset"], Value::Null);
    let local = &list["presets"][0];
    assert_eq!(local["builtin"], true);
    assert_eq!(local["available"], true);
    assert_eq!(local["fallbacks"], json!({}));
    for p in &list["presets"].as_array().expect("list")[1..] {
        assert_eq!(p["available"], false, "{p}");
        assert_eq!(p["provider"], Value::Null);
        assert_eq!(
            p["reason"],
            "Add a key for Anthropic, OpenAI or OpenRouter in Settings > Models to use cloud models."
        );
    }
    // Unavailable setups are refused, unknown ones not found.
    let (status, body) = t
        .client
        .post("/api/models/presets/Cloud/apply", json!({}))
        .await?;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("Add a key")
    );
    let (status, body) = t
        .client
        .post("/api/models/presets/Nope/apply", json!({}))
        .await?;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["detail"], "There is no model setup called Nope.");

    // With a key, Cloud and Mixed use that provider (OpenRouter here: the only key).
    set_key(&t, "openrouter").await?;
    let list = presets(&t).await?;
    let cloud = &list["presets"][1];
    assert_eq!(cloud["available"], true, "{cloud}");
    assert_eq!(cloud["reason"], Value::Null);
    assert_eq!(cloud["provider"], "openrouter");
    assert!(
        cloud["roles"]["primary"]
            .as_str()
            .unwrap_or_default()
            .starts_with("openrouter/")
    );
    assert!(cloud["roles"].get("embedding").is_none(), "{cloud}");
    let mixed = &list["presets"][2];
    assert_eq!(mixed["provider"], "openrouter");
    assert_eq!(mixed["roles"]["fast"], "ollama_chat/qwen3:8b");
    assert_eq!(mixed["roles"]["embedding"], "ollama/nomic-embed-text");
    Ok(())
}

#[tokio::test]
async fn local_only_names_the_model_to_download() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![ModelInfo::new("nomic-embed-text")]);
    let t = engine_on(&server.base_url()).await?;
    // Start from something else, so Local only has roles to change.
    set_key(&t, "anthropic").await?;
    let (status, body) = t
        .client
        .put(
            "/api/models/roles",
            json!({"primary": "anthropic/claude-sonnet-5", "fast": null}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let (model, context_length) = local_model(&t).await?;
    let name = model.trim_start_matches("ollama_chat/").to_owned();

    // Names match without case (and the space travels encoded).
    let (status, body) = t
        .client
        .post("/api/models/presets/local%20ONLY/apply", json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["preset"]["name"], "Local only");
    assert_eq!(body["preset"]["active"], true);
    assert_eq!(body["can_undo"], true);
    assert_eq!(
        body["changed"],
        json!([
            {"role": "primary", "from": "anthropic/claude-sonnet-5", "to": model},
            {"role": "fast", "from": null, "to": model},
        ])
    );
    assert_eq!(
        body["missing"],
        json!([{
            "kind": "pull_model",
            "roles": ["primary", "fast"],
            "model": model,
            "provider": "ollama_chat",
            "detail": format!("{name} is not downloaded in Ollama yet."),
            "fix": format!("Download {name} in Settings > Models, or run ollama pull {name} in a terminal."),
            "action": {"kind": "pull_model", "name": name, "label": format!("Download {name}")},
        }])
    );
    let models = models_config(&t).await?;
    assert_eq!(models["primary"], model.as_str());
    assert_eq!(models["context_length"], context_length);
    assert_eq!(models["active_preset"], "Local only");

    // Once downloaded, nothing is missing; applying again changes nothing.
    server.set_models(vec![
        ModelInfo::new("nomic-embed-text"),
        ModelInfo::new(name.as_str()),
    ]);
    let (status, body) = t
        .client
        .post("/api/models/presets/Local%20only/apply", json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["missing"], json!([]));
    assert_eq!(body["changed"], json!([]));
    // The undo still goes back to before the first switch.
    let list = presets(&t).await?;
    assert_eq!(list["can_undo"], true);
    let (status, body) = t.client.post("/api/models/presets/undo", json!({})).await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        models_config(&t).await?["primary"],
        "anthropic/claude-sonnet-5"
    );
    Ok(())
}

#[tokio::test]
async fn a_silent_ollama_is_reported_without_a_fix_button() -> Result<()> {
    // Nothing listens on port 9 of the loopback address.
    let t = engine_on("http://127.0.0.1:9").await?;
    let (status, body) = t
        .client
        .post("/api/models/presets/Local%20only/apply", json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let missing = body["missing"].as_array().expect("missing");
    assert_eq!(missing.len(), 2, "{body}");
    for m in missing {
        assert_eq!(m["kind"], "start_ollama", "{m}");
        assert_eq!(m["action"], Value::Null);
        assert!(
            m["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("Ollama is not answering")
        );
    }
    assert_eq!(missing[1]["model"], "ollama/nomic-embed-text");
    assert_eq!(missing[1]["roles"], json!(["embedding"]));
    Ok(())
}

#[tokio::test]
async fn cloud_switches_in_one_save_and_undoes_exactly_once() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b"),
        ModelInfo::new("nomic-embed-text"),
    ]);
    let t = engine_on(&server.base_url()).await?;
    // A setup with a vision model, backups and its own reading lengths to put back later.
    let (status, body) = t
        .client
        .put("/api/models/roles", json!({"vision": "ollama_chat/llava"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let (status, body) = t
        .client
        .put(
            "/api/models/fallbacks",
            json!({"primary": ["ollama_chat/qwen3:4b"]}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"context_length_per_role": {"planner": 16384}}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let original = models_config(&t).await?;
    set_key(&t, "openai").await?;

    let mut ws = t.ws().await?;
    let (status, body) = t
        .client
        .post("/api/models/presets/Cloud/apply", json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["preset"]["name"], "Cloud");
    assert_eq!(body["preset"]["provider"], "openai");
    assert_eq!(
        body["changed"],
        json!([
            {"role": "primary", "from": "ollama_chat/qwen3:8b", "to": "openai/gpt-5"},
            {"role": "fast", "from": "ollama_chat/qwen3:8b", "to": "openai/gpt-5-mini"},
            {"role": "vision", "from": "ollama_chat/llava", "to": null},
        ])
    );
    // The key is set and the embedding model is downloaded.
    assert_eq!(body["missing"], json!([]));
    assert_eq!(body["can_undo"], true);
    let event = ws.wait_for("config.updated").await?;
    assert_eq!(event["data"]["sections"], json!(["models"]));
    // One save: the next settings event is the next change, not a second half of the switch.
    let (status, _) = t
        .client
        .patch("/api/config", json!({"assistant": {"name": "Jarvis"}}))
        .await?;
    assert_eq!(status, 200);
    let event = ws.wait_for("config.updated").await?;
    assert_eq!(event["data"]["sections"], json!(["assistant"]));

    let models = models_config(&t).await?;
    assert_eq!(models["primary"], "openai/gpt-5");
    assert_eq!(models["fast"], "openai/gpt-5-mini");
    assert_eq!(models["embedding"], "ollama/nomic-embed-text");
    assert_eq!(models["fallbacks"], json!({}));
    assert_eq!(models["active_preset"], "Cloud");
    let list = presets(&t).await?;
    assert_eq!(list["active"], "Cloud");
    assert_eq!(list["modified"], false);
    assert_eq!(list["can_undo"], true);
    assert_eq!(list["undo_preset"], Value::Null);
    assert_eq!(list["presets"][1]["active"], true);

    let (status, body) = t.client.post("/api/models/presets/undo", json!({})).await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["preset"], Value::Null);
    assert_eq!(body["can_undo"], false);
    assert_eq!(
        body["changed"],
        json!([
            {"role": "primary", "from": "openai/gpt-5", "to": "ollama_chat/qwen3:8b"},
            {"role": "fast", "from": "openai/gpt-5-mini", "to": "ollama_chat/qwen3:8b"},
            {"role": "vision", "from": null, "to": "ollama_chat/llava"},
        ])
    );
    let event = ws.wait_for("config.updated").await?;
    assert_eq!(event["data"]["sections"], json!(["models"]));
    assert_eq!(models_config(&t).await?, original);
    let list = presets(&t).await?;
    assert_eq!(list["active"], Value::Null);
    assert_eq!(list["can_undo"], false);

    let (status, body) = t.client.post("/api/models/presets/undo", json!({})).await?;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["detail"], "There is no model switch to undo.");
    Ok(())
}

#[tokio::test]
async fn saved_setups_are_named_renamed_and_deleted() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_on(&server.base_url()).await?;
    let long = "x".repeat(41);
    for bad in ["Local only", "mixed", "", "  ", "a/b", long.as_str()] {
        let (status, body) = t
            .client
            .post("/api/models/presets", json!({"name": bad}))
            .await?;
        assert_eq!(status, 400, "{bad:?}: {body}");
        assert!(body["detail"].is_string(), "{body}");
    }

    let (status, work) = t
        .client
        .post("/api/models/presets", json!({"name": "Work"}))
        .await?;
    assert_eq!(status, 200, "{work}");
    assert_eq!(work["name"], "Work");
    assert_eq!(work["builtin"], false);
    assert_eq!(work["available"], true);
    assert_eq!(work["active"], true);
    assert_eq!(work["roles"]["primary"], "ollama_chat/qwen3:8b");
    assert_eq!(work["roles"]["planner"], Value::Null);
    assert_eq!(work["reasoning"]["primary"], "medium");
    assert_eq!(work["context_length"], 8192);
    let models = models_config(&t).await?;
    assert_eq!(models["active_preset"], "Work");
    assert_eq!(
        models["presets"]["Work"]["roles"]["fast"],
        "ollama_chat/qwen3:8b"
    );
    let list = presets(&t).await?;
    assert_eq!(names(&list), ["Local only", "Cloud", "Mixed", "Work"]);
    assert_eq!(list["active"], "Work");

    // Taken without case, unless replacing.
    let (status, body) = t
        .client
        .post("/api/models/presets", json!({"name": "work"}))
        .await?;
    assert_eq!(status, 409, "{body}");
    let (status, body) = t
        .client
        .put("/api/models/roles", json!({"fast": "ollama_chat/qwen3:4b"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let (status, body) = t
        .client
        .post(
            "/api/models/presets",
            json!({"name": "work", "overwrite": true}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["roles"]["fast"], "ollama_chat/qwen3:4b");
    let (status, body) = t
        .client
        .post("/api/models/presets", json!({"name": "Home"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        names(&presets(&t).await?),
        ["Local only", "Cloud", "Mixed", "Home", "work"]
    );

    // Renaming.
    let (status, body) = t
        .client
        .patch("/api/models/presets/Cloud", json!({"name": "Sky"}))
        .await?;
    assert_eq!(status, 400, "{body}");
    let (status, body) = t
        .client
        .patch("/api/models/presets/Nope", json!({"name": "Sky"}))
        .await?;
    assert_eq!(status, 404, "{body}");
    let (status, body) = t
        .client
        .patch("/api/models/presets/work", json!({"name": "HOME"}))
        .await?;
    assert_eq!(status, 409, "{body}");
    let (status, body) = t
        .client
        .patch("/api/models/presets/work", json!({"name": "Local Only"}))
        .await?;
    assert_eq!(status, 400, "{body}");
    let (status, body) = t
        .client
        .patch("/api/models/presets/home", json!({"name": "Office"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["name"], "Office");
    // Home was saved last, so it was active, and the active setup follows the rename.
    assert_eq!(body["active"], true);
    let list = presets(&t).await?;
    assert_eq!(
        names(&list),
        ["Local only", "Cloud", "Mixed", "Office", "work"]
    );
    assert_eq!(list["active"], "Office");
    // A new spelling of its own name is fine.
    let (status, body) = t
        .client
        .patch("/api/models/presets/WORK", json!({"name": "Work"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["active"], false);

    // Deleting.
    let before = models_config(&t).await?;
    let (status, body) = delete(&t, "/api/models/presets/Mixed").await?;
    assert_eq!(status, 400, "{body}");
    let (status, body) = delete(&t, "/api/models/presets/Nope").await?;
    assert_eq!(status, 404, "{body}");
    let (status, body) = delete(&t, "/api/models/presets/office").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"ok": true}));
    let after = models_config(&t).await?;
    assert_eq!(after["primary"], before["primary"]);
    assert_eq!(after["fast"], before["fast"]);
    assert_eq!(after["active_preset"], Value::Null);
    assert!(after["presets"].get("Office").is_none());
    assert_eq!(
        names(&presets(&t).await?),
        ["Local only", "Cloud", "Mixed", "Work"]
    );
    Ok(())
}

#[tokio::test]
async fn a_role_changed_by_hand_marks_the_setup_modified() -> Result<()> {
    let server = ScriptedModel::start().await;
    // Every model named here is downloaded, so a new main model takes no role along (issue 32).
    server.set_models(
        ["qwen3:4b", "qwen3:8b", "qwen3:14b", "nomic-embed-text"]
            .into_iter()
            .map(ModelInfo::new)
            .collect(),
    );
    let t = engine_on(&server.base_url()).await?;
    // A saved setup that sets only the fast role: everything else keeps its value.
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"presets": {"Quick": {"roles": {"fast": "ollama_chat/qwen3:4b"}}}}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let (status, body) = t
        .client
        .post("/api/models/presets/quick/apply", json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["changed"],
        json!([{"role": "fast", "from": "ollama_chat/qwen3:8b", "to": "ollama_chat/qwen3:4b"}])
    );
    let models = models_config(&t).await?;
    assert_eq!(models["primary"], "ollama_chat/qwen3:8b");
    assert_eq!(models["reasoning"]["primary"], "medium");
    assert_eq!(models["context_length"], 8192);
    let list = presets(&t).await?;
    assert_eq!(list["active"], "Quick");
    assert_eq!(list["modified"], false);

    // A role the setup doesn't set can change freely.
    let (status, body) = t
        .client
        .put(
            "/api/models/roles",
            json!({"primary": "ollama_chat/qwen3:14b"}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(presets(&t).await?["modified"], false);
    // One it sets can't.
    let (status, body) = t
        .client
        .put("/api/models/roles", json!({"fast": "ollama_chat/qwen3:8b"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let list = presets(&t).await?;
    assert_eq!(list["active"], "Quick");
    assert_eq!(list["modified"], true);

    // Applying it again puts it right.
    let (status, body) = t
        .client
        .post("/api/models/presets/Quick/apply", json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(presets(&t).await?["modified"], false);
    Ok(())
}

/// `DELETE` with the bearer token (the harness has no helper for it).
async fn delete(t: &TestEngine, path: &str) -> Result<(u16, Value)> {
    sentient_e2e::send(t.client.request(reqwest::Method::DELETE, path)).await
}
