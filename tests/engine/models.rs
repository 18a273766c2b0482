//! The model layer against the scripted model server: each wire format's streaming, fallbacks
//! and strict picks, the plain-sentence errors, usage, the context meter, downloads, and the
//! models routes.

use anyhow::Result;
use futures::StreamExt;
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::llm::queue::JobKind;
use sentient_e2e::sentient_engine::llm::{
    CallOptions, ChatRequest, Chunk, LlmError, Message, ModelRole, ToolSpec,
};
use sentient_model_server::{ModelInfo, Reply, ScriptedModel};
use serde_json::{Value, json};

/// An engine whose Ollama, OpenAI, Anthropic and LM Studio all point at `server`, with keys set.
async fn engine_with(server: &ScriptedModel) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    sentient_e2e::point_models_at(&t, server).await?;
    for provider in ["openai", "anthropic"] {
        let (status, body) = t
            .client
            .put(
                &format!("/api/secrets/{provider}"),
                json!({"value": format!("test-key-{provider}")}),
            )
            .await?;
        assert_eq!(status, 200, "{body}");
    }
    Ok(t)
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "find_city".into(),
        description: "Find a city".into(),
        parameters: json!({"type": "object", "properties": {"name": {"type": "string"}}}),
    }]
}

/// Streams one call with an explicit model and returns the chunks and the outcome.
async fn call(
    t: &TestEngine,
    model: &str,
) -> Result<(Vec<Chunk>, sentient_e2e::sentient_engine::llm::CallOutcome)> {
    let mut chunks = Vec::new();
    let opts = CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat)
        .with_model(Some(model.to_owned()));
    let req = ChatRequest {
        messages: vec![
            Message::system("be brief"),
            Message::user("weather in Pune?"),
        ],
        tools: tools(),
        ..Default::default()
    };
    let outcome = t
        .engine
        .services()
        .llm()
        .stream(req, &opts, &mut |c| chunks.push(c.clone()))
        .await?;
    Ok((chunks, outcome))
}

#[tokio::test]
async fn every_wire_format_streams_thinking_text_and_whole_tool_calls() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    for model in [
        "ollama_chat/qwen3:8b",
        "openai/gpt-5-mini",
        "anthropic/claude-haiku-4-5",
        "lm_studio/local-model",
    ] {
        server.push(
            Reply::thinking("Let me look")
                .then_text("Checking Pune")
                .then_tool_call("find_city", json!({"name": "Pune", "country": "IN"}))
                .usage(120, 9),
        );
        let (chunks, outcome) = call(&t, model).await?;
        assert_eq!(outcome.model, model);
        assert_eq!(outcome.reply.thinking, "Let me look", "{model}");
        assert_eq!(outcome.reply.text, "Checking Pune", "{model}");
        assert_eq!(outcome.reply.tool_calls.len(), 1, "{model}");
        assert_eq!(outcome.reply.tool_calls[0].name, "find_city");
        assert_eq!(
            outcome.reply.tool_calls[0].arguments,
            json!({"name": "Pune", "country": "IN"}),
            "{model}"
        );
        assert_eq!(
            (outcome.usage.prompt_tokens, outcome.usage.completion_tokens),
            (120, 9),
            "{model}"
        );
        // Text arrives in pieces as it streams, not as one block at the end.
        assert!(
            chunks
                .iter()
                .filter(|c| matches!(c, Chunk::Text(_)))
                .count()
                >= 2,
            "{model}: {chunks:?}"
        );
        assert!(matches!(chunks.last(), Some(Chunk::End(_))));
    }
    // What each provider was sent: the right path, headers and the tool list.
    let anthropic = server.requests_to("/v1/messages");
    assert_eq!(anthropic[0].header("x-api-key"), Some("test-key-anthropic"));
    assert_eq!(
        anthropic[0].body["tools"][0]["cache_control"]["type"],
        "ephemeral"
    );
    assert_eq!(
        anthropic[0].body["system"][0]["cache_control"]["type"],
        "ephemeral"
    );
    let openai = server.requests_to("/v1/chat/completions");
    assert_eq!(
        openai[0].header("authorization"),
        Some("Bearer test-key-openai")
    );
    assert_eq!(openai[0].body["stream_options"]["include_usage"], true);
    assert_eq!(
        openai[1].header("authorization"),
        None,
        "LM Studio needs no key"
    );
    let ollama = server.requests_to("/api/chat");
    assert_eq!(ollama[0].body["tools"][0]["function"]["name"], "find_city");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn role_settings_reach_the_wire_num_ctx_think_temperature() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b").capabilities(&["completion", "tools", "thinking"]),
        ModelInfo::new("llama3.2:3b").capabilities(&["completion", "tools"]),
    ]);
    let t = engine_with(&server).await?;
    t.client
        .patch("/api/config", json!({"models": {"context_length": 4096, "context_length_per_role": {"executor": 16384},
                                                 "reasoning": {"primary": "none", "executor": "high"}, "temperature": {"executor": 0.3}}}))
        .await?;
    server.push(Reply::text("a"));
    server.push(Reply::text("b"));
    for role in [ModelRole::Primary, ModelRole::Executor] {
        let opts = CallOptions::new(role, "task", JobKind::Task)
            .with_model(Some("ollama_chat/qwen3:8b".into()));
        t.engine
            .services()
            .llm()
            .complete(
                ChatRequest {
                    messages: vec![Message::user("hi")],
                    ..Default::default()
                },
                &opts,
            )
            .await?;
    }
    let sent = server.requests_to("/api/chat");
    assert_eq!(sent[0].body["options"]["num_ctx"], 4096);
    assert_eq!(sent[0].body["think"], false);
    assert_eq!(sent[1].body["options"]["num_ctx"], 16384);
    assert_eq!(sent[1].body["think"], true);
    assert_eq!(sent[1].body["options"]["temperature"], 0.3);
    // A model that cannot think is never sent `think` (Ollama would refuse the call).
    server.push(Reply::text("c"));
    let opts = CallOptions::new(ModelRole::Executor, "task", JobKind::Task)
        .with_model(Some("ollama_chat/llama3.2:3b".into()));
    t.engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user("hi")],
                ..Default::default()
            },
            &opts,
        )
        .await?;
    let sent = server.requests_to("/api/chat");
    assert!(sent[2].body.get("think").is_none(), "{}", sent[2].body);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_role_falls_back_but_an_explicit_pick_never_does() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    t.client
        .patch("/api/config", json!({"models": {"primary": "ollama_chat/broken:1b", "fallbacks": {"primary": ["anthropic/claude-haiku-4-5"]}}}))
        .await?;
    // The main model is down (and still down on the one retry); the fallback answers.
    server
        .push(Reply::error(503))
        .push(Reply::error(503))
        .push(Reply::text("from the fallback"));
    let opts = CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat);
    let outcome = t
        .engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user("hi")],
                ..Default::default()
            },
            &opts,
        )
        .await?;
    assert_eq!(outcome.model, "anthropic/claude-haiku-4-5");
    assert_eq!(outcome.reply.text, "from the fallback");
    assert_eq!(outcome.failed_before.len(), 1);
    assert_eq!(
        server.requests_to("/api/chat").len(),
        2,
        "one try and one retry on the main model"
    );

    // The same failure with the model picked explicitly: no fallback, a plain error.
    server.push(Reply::error(503)).push(Reply::error(503));
    let strict = opts
        .clone()
        .with_model(Some("ollama_chat/broken:1b".into()));
    let err = t
        .engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user("hi")],
                ..Default::default()
            },
            &strict,
        )
        .await
        .expect_err("strict");
    // Ollama answered, with an error of its own: it is running, so the advice is not to start it.
    assert!(matches!(err, LlmError::ServerError { status: 503, .. }));
    assert_eq!(
        err.to_string(),
        "Ollama is running but had an error of its own (HTTP 503); it may have run out of memory loading the model. Try again, restart Ollama, or pick a smaller model in Settings > Models."
    );
    assert_eq!(
        server.requests_to("/v1/messages").len(),
        1,
        "the fallback was not asked again"
    );
    assert_eq!(server.pending(), 0);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn provider_refusals_become_plain_sentences_and_the_raw_reply_stays_out() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    let cases: Vec<(Reply, &str, &str)> = vec![
        (
            Reply::error(429)
                .message("secret-raw: free-models-per-day")
                .retry_after(30)
                .into(),
            "openai/gpt-5-mini",
            "too many requests",
        ),
        (
            Reply::error(402).message("secret-raw").into(),
            "openai/gpt-5-mini",
            "no credits left",
        ),
        (
            Reply::error(401).message("secret-raw").into(),
            "anthropic/claude-haiku-4-5",
            "turned down the saved key",
        ),
        (
            Reply::error(404).message("secret-raw").into(),
            "ollama_chat/qwen3:8b",
            "isn't downloaded in Ollama yet",
        ),
    ];
    for (reply, model, expected) in cases {
        server.push(reply);
        let (status, body) = t
            .client
            .post("/api/models/test", json!({"model": model}))
            .await?;
        assert_eq!(status, 200);
        assert_eq!(body["ok"], false, "{model}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.contains(expected), "{model}: {error}");
        assert!(
            !error.contains("secret-raw"),
            "the provider's raw reply leaked: {error}"
        );
    }
    // A model nobody has a key for says so.
    let (_, body) = t
        .client
        .post(
            "/api/models/test",
            json!({"model": "openrouter/meta-llama/llama-4-maverick:free"}),
        )
        .await?;
    assert_eq!(
        body["error"],
        "There is no key for OpenRouter yet. Add one in Settings > Models."
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_test_route_reports_tool_support_and_usage_is_recorded() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    server.push(Reply::tool_call("find_city", json!({"name": "Pune"})).usage(40, 6));
    server.push(Reply::text("Pune is in India.").usage(40, 6));
    let (_, with_tools) = t
        .client
        .post("/api/models/test", json!({"model": "ollama_chat/qwen3:8b"}))
        .await?;
    assert_eq!(with_tools["ok"], true);
    assert_eq!(with_tools["supports_tools"], true);
    let (_, without) = t
        .client
        .post(
            "/api/models/test",
            json!({"model": "anthropic/claude-haiku-4-5"}),
        )
        .await?;
    assert_eq!(without["supports_tools"], false);
    assert_eq!(without["reply"], "Pune is in India.");
    assert!(without["latency_ms"].is_number());

    let (status, usage) = t.client.get("/api/usage?days=7").await?;
    assert_eq!(status, 200);
    assert!(
        usage["totals"]["prompt_tokens"]
            .as_u64()
            .is_some_and(|n| n >= 80)
    );
    let models: Vec<&str> = usage["by_model"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|m| m["model"].as_str())
        .collect();
    assert!(
        models.contains(&"ollama_chat/qwen3:8b") && models.contains(&"anthropic/claude-haiku-4-5")
    );
    let haiku = usage["by_model"]
        .as_array()
        .expect("list")
        .iter()
        .find(|m| m["model"] == "anthropic/claude-haiku-4-5")
        .expect("haiku");
    assert!(
        haiku["cost_usd"].as_f64().is_some_and(|c| c > 0.0),
        "a known price gives a cost"
    );
    assert_eq!(usage["by_source"][0]["source"], "test");
    assert_eq!(usage["by_day"].as_array().map(Vec::len), Some(1));

    let (status, bad) = t
        .client
        .post("/api/models/test", json!({"model": "qwen3:8b"}))
        .await?;
    assert_eq!(status, 422);
    assert_eq!(bad["detail"][0]["loc"], json!(["body", "model"]));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_context_meter_counts_against_num_ctx() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    t.client
        .patch("/api/config", json!({"models": {"context_length": 2048}}))
        .await?;
    // Ollama reports only the uncached part of the prompt; the local count is larger.
    server.push(Reply::text("ok").usage(10, 5));
    let long = "word ".repeat(1800);
    let opts = CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat)
        .with_model(Some("ollama_chat/qwen3:8b".into()));
    let outcome = t
        .engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user(long)],
                ..Default::default()
            },
            &opts,
        )
        .await?;
    let meter = outcome.meter;
    assert_eq!(meter.context_length, Some(2048));
    let used = meter.context_used.expect("used");
    assert!(used > 1800 && used < 2048, "{used}");
    assert!(meter.context_percent.is_some_and(|p| p >= 85));
    assert!(
        meter
            .context_warning
            .as_deref()
            .is_some_and(|w| w.contains("getting long for qwen3:8b"))
    );
    // An unknown context window gives no numbers at all.
    server.push(Reply::text("ok"));
    let lm = opts.clone().with_model(Some("lm_studio/some-model".into()));
    let outcome = t
        .engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user("hi")],
                ..Default::default()
            },
            &lm,
        )
        .await?;
    assert_eq!(outcome.meter.context_length, None);
    assert_eq!(outcome.meter.context_percent, None);
    // num_ctx above what the model supports is capped at the model's maximum.
    server.set_models(vec![ModelInfo::new("tiny:1b").context_length(1024)]);
    t.client
        .patch("/api/config", json!({"models": {"context_length": 8192}}))
        .await?;
    server.push(Reply::text("ok"));
    let tiny = opts.clone().with_model(Some("ollama_chat/tiny:1b".into()));
    let outcome = t
        .engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user("hi")],
                ..Default::default()
            },
            &tiny,
        )
        .await?;
    assert_eq!(outcome.meter.context_length, Some(1024));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn local_models_pull_progress_and_embeddings() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b")
            .capabilities(&["completion", "tools", "thinking"])
            .family("qwen3")
            .parameter_size("8.2B"),
        ModelInfo::new("nomic-embed-text")
            .capabilities(&["embedding"])
            .family("nomic-bert"),
    ]);
    server.set_unpullable(&["nope:1b"]);
    server.set_embedding_dim(64);
    let t = engine_with(&server).await?;

    let (_, local) = t.client.get("/api/models/local").await?;
    assert_eq!(local["ollama"]["reachable"], true);
    let names: Vec<&str> = local["ollama"]["models"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert!(names.contains(&"qwen3:8b"));
    let qwen = &local["ollama"]["models"]
        .as_array()
        .expect("list")
        .iter()
        .find(|m| m["name"] == "qwen3:8b")
        .cloned()
        .expect("qwen");
    assert_eq!(
        qwen["capabilities"],
        json!(["completion", "tools", "thinking"])
    );
    assert_eq!(qwen["is_embedding"], false);

    let (_, emb) = t
        .client
        .post(
            "/api/models/test-embedding",
            json!({"model": "ollama/nomic-embed-text"}),
        )
        .await?;
    assert_eq!(emb, json!({"ok": true, "dim": 64, "error": null}));

    let response = t
        .client
        .request(reqwest::Method::POST, "/api/models/ollama/pull")
        .json(&json!({"name": "llama3.2:1b"}))
        .send()
        .await?;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let mut lines = Vec::new();
    let mut body = response.bytes_stream();
    let mut text = String::new();
    while let Some(part) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&part?));
    }
    for line in text.lines() {
        lines.push(serde_json::from_str::<Value>(line)?);
    }
    assert_eq!(
        lines.first().map(|l| l["status"].clone()),
        Some(json!("pulling manifest"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l["total"].is_number() && l["completed"].is_number()),
        "progress has totals"
    );
    assert_eq!(
        lines.last().map(|l| l["status"].clone()),
        Some(json!("success"))
    );

    let response = t
        .client
        .request(reqwest::Method::POST, "/api/models/ollama/pull")
        .json(&json!({"name": "nope:1b"}))
        .send()
        .await?;
    let text = response.text().await?;
    let last: Value = serde_json::from_str(text.lines().last().unwrap_or("{}"))?;
    assert_eq!(last["status"], "error");
    assert!(
        last["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("Ollama could not download it"))
    );

    let (status, _) = t
        .client
        .post("/api/models/ollama/pull", json!({"name": ""}))
        .await?;
    assert_eq!(status, 422);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn ollama_not_running_is_said_plainly() -> Result<()> {
    let t = TestEngine::start().await?;
    // Nothing listens on this port.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    t.client.patch("/api/config", json!({"models": {"providers": {"ollama_chat": {"api_base": format!("http://{closed}")}}}})).await?;
    let (_, local) = t.client.get("/api/models/local").await?;
    assert_eq!(local["ollama"], json!({"reachable": false, "models": []}));
    let (_, test) = t
        .client
        .post("/api/models/test", json!({"model": "ollama_chat/qwen3:8b"}))
        .await?;
    assert_eq!(
        test["error"],
        "Ollama isn't answering. Start Ollama (or install it from ollama.com), then try again."
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn roles_fallbacks_providers_and_hardware_routes() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let (status, roles) = t
        .client
        .put(
            "/api/models/roles",
            json!({"fast": "anthropic/claude-haiku-4-5", "planner": null}),
        )
        .await?;
    assert_eq!(status, 200, "{roles}");
    assert_eq!(roles["fast"], "anthropic/claude-haiku-4-5");
    assert_eq!(roles["planner"], Value::Null);
    assert_eq!(
        ws.wait_for("config.updated").await?["data"]["sections"],
        json!(["models"])
    );

    let (status, bad) = t
        .client
        .put(
            "/api/models/roles",
            json!({"primary": "", "chef": "x/y", "fast": "nope"}),
        )
        .await?;
    assert_eq!(status, 422);
    assert_eq!(bad["detail"].as_array().map(Vec::len), Some(3));
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(
        config["models"]["fast"], "anthropic/claude-haiku-4-5",
        "a refused change changes nothing"
    );

    let (status, ok) = t
        .client
        .put(
            "/api/models/fallbacks",
            json!({"primary": ["anthropic/claude-haiku-4-5", "openai/gpt-5-mini"]}),
        )
        .await?;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(
        config["models"]["fallbacks"]["primary"][1],
        "openai/gpt-5-mini"
    );
    let (status, _) = t
        .client
        .put("/api/models/fallbacks", json!({"primary": ["no-provider"]}))
        .await?;
    assert_eq!(status, 422);

    let (_, providers) = t.client.get("/api/models/providers").await?;
    let anthropic = providers
        .as_array()
        .expect("list")
        .iter()
        .find(|p| p["id"] == "anthropic")
        .cloned()
        .expect("anthropic");
    assert_eq!(anthropic["kind"], "cloud");
    assert_eq!(anthropic["key_required"], true);
    assert_eq!(anthropic["key_set"], false);
    assert!(
        anthropic["suggested"]
            .as_array()
            .is_some_and(|s| !s.is_empty())
    );
    let ollama = providers
        .as_array()
        .expect("list")
        .iter()
        .find(|p| p["id"] == "ollama_chat")
        .cloned()
        .expect("ollama");
    assert_eq!(
        (ollama["kind"].clone(), ollama["key_required"].clone()),
        (json!("local"), json!(false))
    );

    let (_, busy) = t.client.get("/api/models/busy").await?;
    assert_eq!(busy["busy"], false);
    assert_eq!(busy["waiting"], 0);

    let (status, hw) = t.client.get("/api/system/hardware").await?;
    assert_eq!(status, 200);
    assert!(hw["summary"].is_string());
    assert!(
        hw["recommendation"]["model"]
            .as_str()
            .is_some_and(|m| m.starts_with("ollama_chat/"))
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_running_local_call_is_announced_as_model_busy() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    let mut ws = t.ws().await?;
    // Slow enough (about 0.6 s) that the 0.2 s debounce publishes the busy state.
    server.push(
        Reply::text("one two three four five six")
            .chunk_delay(std::time::Duration::from_millis(100)),
    );
    let engine = t.engine.clone();
    let call = tokio::spawn(async move {
        let opts = CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat)
            .with_model(Some("ollama_chat/qwen3:8b".into()));
        engine
            .services()
            .llm()
            .complete(
                ChatRequest {
                    messages: vec![Message::user("count")],
                    ..Default::default()
                },
                &opts,
            )
            .await
    });
    let busy = ws.wait_for("model.busy").await?;
    assert_eq!(busy["data"]["busy"], true);
    assert_eq!(busy["data"]["job"], "chat");
    assert_eq!(busy["data"]["model"], "ollama_chat/qwen3:8b");
    let (status, now) = t.client.get("/api/models/busy").await?;
    assert_eq!(status, 200);
    assert_eq!(now["busy"], true);
    call.await??;
    let idle = ws.wait_for("model.busy").await?;
    assert_eq!(idle["data"]["busy"], false);
    assert_eq!(idle["data"]["job"], Value::Null);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn stop_everything_cancels_a_running_model_call_and_frees_the_model() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    // A stream that sends two chunks and then hangs, like a stuck model.
    server.push(Reply::text("never finishing reply").stalls_after(2));
    let engine = t.engine.clone();
    let (first_tx, first_rx) = tokio::sync::oneshot::channel();
    let call = tokio::spawn(async move {
        let mut first = Some(first_tx);
        let opts = CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat)
            .with_model(Some("ollama_chat/qwen3:8b".into()));
        let req = ChatRequest {
            messages: vec![Message::user("go")],
            ..Default::default()
        };
        engine
            .services()
            .llm()
            .stream(req, &opts, &mut |c| {
                if matches!(c, Chunk::Text(_))
                    && let Some(tx) = first.take()
                {
                    let _ = tx.send(());
                }
            })
            .await
    });
    first_rx.await?;
    let (_, stopped) = t.client.post("/api/stop-all", json!({})).await?;
    assert!(
        stopped["cancelled"].as_u64().is_some_and(|n| n >= 1),
        "{stopped}"
    );
    let result = call.await?;
    assert!(matches!(result, Err(LlmError::Cancelled)), "{result:?}");
    // The model is free again and the provider saw the client go away.
    tokio::time::timeout(sentient_e2e::WAIT, server.wait_for_disconnects(1)).await?;
    let (_, busy) = t.client.get("/api/models/busy").await?;
    assert_eq!(busy["busy"], false);
    t.stop().await;
    Ok(())
}

// ------------------------------------------------------------ the model you already have (issue 32)

/// Ollama with two downloaded models, the smaller one able to use tools.
fn two_downloaded() -> Vec<ModelInfo> {
    vec![
        ModelInfo::new("llama3.2:3b")
            .capabilities(&["completion"])
            .family("llama"),
        ModelInfo::new("qwen3:4b")
            .capabilities(&["completion", "tools", "thinking"])
            .family("qwen3")
            .parameter_size("4B"),
    ]
}

/// The roles onboarding's one click sends: the pick for the main model, every other chat job
/// on the main model, and the embedding model when one is downloaded.
fn one_click(pick: &Value) -> Value {
    let mut roles = json!({"primary": pick["primary"], "fast": null, "planner": null,
        "executor": null, "vision": null, "voice": null});
    if !pick["embedding"].is_null() {
        roles["embedding"] = pick["embedding"].clone();
    }
    roles
}

#[tokio::test]
async fn one_click_sets_every_role_from_the_models_already_downloaded() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(two_downloaded());
    let t = engine_with(&server).await?;

    let (status, local) = t.client.get("/api/models/local").await?;
    assert_eq!(status, 200, "{local}");
    let tools: Vec<(&str, bool)> = local["ollama"]["models"]
        .as_array()
        .expect("list")
        .iter()
        .map(|m| {
            let caps = m["capabilities"].as_array().expect("capabilities");
            (
                m["name"].as_str().unwrap_or_default(),
                caps.contains(&json!("tools")),
            )
        })
        .collect();
    assert_eq!(tools, vec![("llama3.2:3b", false), ("qwen3:4b", true)]);
    // The one that can use tools, although the other is as big.
    assert_eq!(
        local["pick"],
        json!({"primary": "ollama_chat/qwen3:4b", "embedding": null, "tools": true})
    );

    let (status, roles) = t
        .client
        .put("/api/models/roles", one_click(&local["pick"]))
        .await?;
    assert_eq!(status, 200, "{roles}");
    assert_eq!(roles["primary"], "ollama_chat/qwen3:4b");
    for role in ["fast", "planner", "executor", "vision", "voice"] {
        assert_eq!(roles[role], Value::Null, "{role} uses the main model");
    }

    // Quick jobs (whose default, qwen3:8b, was never downloaded) now answer with the pick.
    server.push(Reply::text("Hello from qwen"));
    let opts = CallOptions::new(ModelRole::Fast, "titles", JobKind::Interactive);
    let outcome = t
        .engine
        .services()
        .llm()
        .complete(
            ChatRequest {
                messages: vec![Message::user("Say hello")],
                ..Default::default()
            },
            &opts,
        )
        .await?;
    assert_eq!(outcome.model, "ollama_chat/qwen3:4b");
    assert_eq!(outcome.reply.text, "Hello from qwen");
    assert!(
        server.requests_to("/api/pull").is_empty(),
        "nothing was downloaded"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn roles_on_a_model_that_is_not_downloaded_follow_the_main_model() -> Result<()> {
    let server = ScriptedModel::start().await;
    let mut models = two_downloaded();
    models.push(
        ModelInfo::new("mxbai-embed-large")
            .capabilities(&["embedding"])
            .family("bert"),
    );
    server.set_models(models);
    let t = engine_with(&server).await?;
    // The defaults (fast qwen3:8b, embedding nomic-embed-text) are not downloaded; the planner
    // is on a downloaded model and the executor on a cloud one, so those two stay.
    let (status, body) = t
        .client
        .put(
            "/api/models/roles",
            json!({"planner": "ollama_chat/llama3.2:3b", "executor": "openai/gpt-5-mini"}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body.get("followed"),
        None,
        "only a new main model takes roles along"
    );

    let (status, roles) = t
        .client
        .put(
            "/api/models/roles",
            json!({"primary": "ollama_chat/qwen3:4b"}),
        )
        .await?;
    assert_eq!(status, 200, "{roles}");
    assert_eq!(roles["fast"], Value::Null);
    assert_eq!(roles["embedding"], "ollama/mxbai-embed-large");
    assert_eq!(roles["planner"], "ollama_chat/llama3.2:3b");
    assert_eq!(roles["executor"], "openai/gpt-5-mini");
    assert_eq!(
        roles["followed"],
        json!([
            {"role": "fast", "from": "ollama_chat/qwen3:8b", "to": null},
            {"role": "embedding", "from": "ollama/nomic-embed-text", "to": "ollama/mxbai-embed-large"},
        ])
    );
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(config["models"]["fast"], Value::Null);

    // The check-up says why quick jobs changed (an inherited role calls no model).
    let response = t
        .client
        .request(reqwest::Method::POST, "/api/models/checkup")
        .json(&json!({"roles": {"fast": null}}))
        .send()
        .await?;
    assert_eq!(response.status(), 200);
    let text = response.text().await?;
    let fast = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["type"] == "role" && l["role"] == "fast")
        .expect("a line for fast");
    assert_eq!(fast["inherits"], "primary");
    assert_eq!(fast["checks"][0]["id"], "followed");
    assert_eq!(
        fast["checks"][0]["detail"],
        "qwen3:8b isn't downloaded, so this job uses the main model (qwen3:4b) since you picked it."
    );

    // Set by hand (even to the main model), the role is the person's choice and the note goes.
    let (status, _) = t
        .client
        .put("/api/models/roles", json!({"fast": null}))
        .await?;
    assert_eq!(status, 200);
    let response = t
        .client
        .request(reqwest::Method::POST, "/api/models/checkup")
        .json(&json!({"roles": {"fast": null}}))
        .send()
        .await?;
    let text = response.text().await?;
    assert!(text.contains("\"inherits\":\"primary\""), "{text}");
    assert!(!text.contains("\"followed\""), "{text}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn an_address_on_another_port_is_checked_before_it_is_saved() -> Result<()> {
    // Ollama elsewhere: the scripted server on a port of its own, never the usual 11434.
    let server = ScriptedModel::start().await;
    server.set_models(two_downloaded());
    let t = TestEngine::start().await?;
    let (_, before) = t.client.get("/api/config").await?;

    // Nothing listens on this port: a plain 400, nothing saved.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let (status, body) = t
        .client
        .put(
            "/api/models/local/address",
            json!({"provider": "ollama", "api_base": format!("http://{closed}")}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["detail"],
        format!(
            "Nothing answered at http://{closed}: check the address, and that Ollama is running there and accepts connections from this computer."
        )
    );
    // Something that isn't Ollama.
    let other = sentient_e2e::serve_on_loopback(
        axum::Router::new().route("/api/tags", axum::routing::get(|| async { "hello" })),
        "",
    )
    .await?;
    let (status, body) = t
        .client
        .put(
            "/api/models/local/address",
            json!({"provider": "ollama", "api_base": other}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("isn't Ollama"),
        "{body}"
    );
    // Input that can't be an address, or a provider without one: 422 in the contract's shape.
    for bad in [
        json!({"provider": "ollama", "api_base": "ftp://box"}),
        json!({"provider": "anthropic", "api_base": "http://127.0.0.1:1"}),
        json!({"api_base": "http://127.0.0.1:1"}),
    ] {
        let (status, body) = t
            .client
            .put("/api/models/local/address", bad.clone())
            .await?;
        assert_eq!(status, 422, "{bad} -> {body}");
    }
    let (_, unchanged) = t.client.get("/api/config").await?;
    assert_eq!(
        unchanged["models"]["providers"],
        before["models"]["providers"]
    );

    // Written without the scheme, as people do: saved for both Ollama providers.
    let port = server
        .base_url()
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_owned();
    let (status, ollama) = t
        .client
        .put(
            "/api/models/local/address",
            json!({"provider": "ollama", "api_base": format!("127.0.0.1:{port}/")}),
        )
        .await?;
    assert_eq!(status, 200, "{ollama}");
    assert_eq!(ollama["reachable"], true);
    assert_eq!(ollama["models"].as_array().map(Vec::len), Some(2));
    let (_, config) = t.client.get("/api/config").await?;
    for id in ["ollama", "ollama_chat"] {
        assert_eq!(
            config["models"]["providers"][id]["api_base"],
            server.base_url()
        );
    }
    let (_, local) = t.client.get("/api/models/local").await?;
    assert_eq!(local["pick"]["primary"], "ollama_chat/qwen3:4b");

    // LM Studio's address without its /v1 is found with it.
    let (status, lm) = t
        .client
        .put(
            "/api/models/local/address",
            json!({"provider": "lm_studio", "api_base": server.base_url()}),
        )
        .await?;
    assert_eq!(status, 200, "{lm}");
    assert_eq!(lm["reachable"], true);
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(
        config["models"]["providers"]["lm_studio"]["api_base"],
        server.openai_url()
    );
    t.stop().await;
    Ok(())
}
