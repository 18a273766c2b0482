//! The model check-up (`POST /api/models/checkup`) against the scripted model server: a healthy
//! local main model, a model that can't use tools, a model that isn't downloaded, a cloud model
//! without a key, two roles sharing one model's tests, roles that use the main model, and the
//! NDJSON lines themselves.

use anyhow::{Context, Result};
use sentient_e2e::TestEngine;
use sentient_model_server::{ModelInfo, Reply, ScriptedModel};
use serde_json::{Value, json};

const QWEN: &str = "ollama_chat/qwen3:8b";

/// An engine whose Ollama and Anthropic point at `server`.
async fn engine_with(server: &ScriptedModel) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    sentient_e2e::point_models_at(&t, server).await?;
    Ok(t)
}

/// Runs the check-up; returns the content type and every line, checked for the contract's
/// order: `start`, then per role its `step`s followed by its `role` line, then `done`.
async fn checkup(t: &TestEngine, body: Value) -> Result<(String, Vec<Value>)> {
    let response = t
        .client
        .request(reqwest::Method::POST, "/api/models/checkup")
        .json(&body)
        .send()
        .await?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await?;
    assert_eq!(status, 200, "{text}");
    let lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).with_context(|| format!("not JSON: {l}")))
        .collect::<Result<Vec<_>>>()?;
    assert_order(&lines);
    Ok((content_type, lines))
}

fn assert_order(lines: &[Value]) {
    assert_eq!(lines.first().map(|l| &l["type"]), Some(&json!("start")));
    assert_eq!(lines.last().map(|l| &l["type"]), Some(&json!("done")));
    let starts = lines.iter().filter(|l| l["type"] == "start").count();
    let dones = lines.iter().filter(|l| l["type"] == "done").count();
    assert_eq!((starts, dones), (1, 1));
    let announced: Vec<&Value> = lines[0]["roles"]
        .as_array()
        .map(|r| r.iter().map(|r| &r["role"]).collect())
        .unwrap_or_default();
    let finished: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "role")
        .map(|l| &l["role"])
        .collect();
    assert_eq!(
        announced, finished,
        "every announced role finishes, in order"
    );
    // Steps belong to the role being checked, which finishes before the next one starts.
    let mut current: Option<&Value> = None;
    let mut done_roles = Vec::new();
    for line in &lines[1..lines.len() - 1] {
        match line["type"].as_str() {
            Some("step") => {
                assert!(
                    !done_roles.contains(&&line["role"]),
                    "step after its role: {line}"
                );
                assert!(line["label"].as_str().is_some_and(|l| !l.is_empty()));
                current = Some(&line["role"]);
            }
            Some("role") => {
                if line["inherits"].is_null() {
                    assert_eq!(
                        current,
                        Some(&line["role"]),
                        "a checked role had steps first"
                    );
                }
                done_roles.push(&line["role"]);
            }
            other => panic!("unexpected line {other:?}"),
        }
    }
    let done = &lines[lines.len() - 1];
    let role_lines: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] == "role")
        .map(|l| {
            let mut l = l.clone();
            l.as_object_mut().map(|o| o.remove("type"));
            l
        })
        .collect();
    assert_eq!(
        done["roles"],
        json!(role_lines),
        "done repeats the role results"
    );
}

fn role<'a>(lines: &'a [Value], name: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["type"] == "role" && l["role"] == name)
        .unwrap_or(&Value::Null)
}

fn check<'a>(role: &'a Value, id: &str) -> &'a Value {
    role["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == id))
        .unwrap_or(&Value::Null)
}

fn ids(role: &Value) -> Vec<&str> {
    role["checks"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default()
}

/// The model the check-up's fixes name on this computer.
async fn fix_model(t: &TestEngine) -> Result<String> {
    let (_, hardware) = t.client.get("/api/system/hardware").await?;
    let rec = &hardware["recommendation"];
    Ok(if rec["cloud_first"] == true {
        "qwen3:8b".to_owned()
    } else {
        rec["name"].as_str().unwrap_or_default().to_owned()
    })
}

#[tokio::test]
async fn a_healthy_local_main_model_passes_every_check() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b")
            .capabilities(&["completion", "tools", "thinking"])
            .context_length(40960),
    ]);
    let t = engine_with(&server).await?;
    let (_, config_before) = t.client.get("/api/config").await?;
    server
        .push(Reply::thinking("A greeting, then.").then_text("Hello! Nice to meet you."))
        .push(Reply::tool_call("find_city", json!({"name": "Pune"})))
        .push(Reply::tool_call(
            "get_weather",
            json!({"city": "Pune", "country": "India"}),
        ));

    let (content_type, lines) = checkup(&t, json!({"roles": {"primary": QWEN}})).await?;
    assert_eq!(content_type, "application/x-ndjson");
    assert_eq!(
        lines[0]["roles"],
        json!([{"role": "primary", "model": QWEN}])
    );
    assert!(lines[0]["hardware"]["recommendation"]["model"].is_string());
    let labels: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "step")
        .filter_map(|l| l["label"].as_str())
        .collect();
    assert!(labels.contains(&"Trying a tool call"), "{labels:?}");

    let primary = role(&lines, "primary");
    assert_eq!(primary["model"], QWEN);
    assert_eq!(primary["provider"], "ollama_chat");
    assert_eq!(primary["local"], true);
    assert_eq!(primary["inherits"], Value::Null);
    assert_eq!(
        ids(primary),
        vec![
            "connection",
            "reply",
            "tools",
            "chain",
            "thinking",
            "context",
            "gpu"
        ]
    );
    for c in primary["checks"].as_array().into_iter().flatten() {
        assert_eq!(c["status"], "pass", "{c}");
        assert!(c["label"].as_str().is_some_and(|l| !l.is_empty()), "{c}");
        assert!(c.get("fix").is_none() && c.get("action").is_none(), "{c}");
    }
    assert_eq!(primary["status"], "pass");
    assert_eq!(lines.last().map(|l| &l["status"]), Some(&json!("pass")));
    assert!(
        check(primary, "reply")["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Hello! Nice to meet you."))
    );
    assert!(
        check(primary, "context")["detail"]
            .as_str()
            .is_some_and(|d| d.contains("8,192") && d.contains("40,960"))
    );

    // What the model was sent: the role's settings, the tool, then the tool's result back.
    let chats = server.requests_to("/api/chat");
    assert_eq!(chats.len(), 3);
    assert_eq!(chats[0].body["think"], true, "primary reasons at medium");
    assert_eq!(chats[0].body["options"]["num_ctx"], 8192);
    assert_eq!(chats[1].body["tools"][0]["function"]["name"], "find_city");
    let sent = chats[2].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        sent.iter()
            .any(|m| m["role"] == "tool"
                && m["content"].as_str().is_some_and(|c| c.contains("India"))),
        "{sent:?}"
    );
    assert!(
        sent.iter()
            .any(|m| m["tool_calls"][0]["function"]["name"] == "find_city"),
        "{sent:?}"
    );
    assert_eq!(server.pending(), 0);

    // Informational only: the settings are as they were.
    let (_, config_after) = t.client.get("/api/config").await?;
    assert_eq!(config_before, config_after);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_model_without_tools_fails_with_the_recommended_model_as_its_fix() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("gemma3:1b")
            .capabilities(&["completion"])
            .context_length(32768),
    ]);
    let t = engine_with(&server).await?;
    server
        .push(Reply::text("Hello!"))
        .push(Reply::text("Pune is a city in India."));

    let (_, lines) = checkup(&t, json!({"roles": {"primary": "ollama_chat/gemma3:1b"}})).await?;
    let primary = role(&lines, "primary");
    assert_eq!(check(primary, "reply")["status"], "pass");
    let tools = check(primary, "tools");
    assert_eq!(tools["status"], "fail", "{tools}");
    assert!(
        tools["detail"]
            .as_str()
            .is_some_and(|d| d.contains("instead of calling the tool")),
        "{tools}"
    );
    let name = fix_model(&t).await?;
    assert_eq!(
        tools["action"],
        json!({"kind": "use_model", "role": "primary", "model": format!("ollama_chat/{name}"), "label": format!("Use {name}")})
    );
    assert!(
        tools["fix"]
            .as_str()
            .is_some_and(|f| f.contains(name.as_str())),
        "{tools}"
    );
    // The chain test needs a first tool call; no thinking check for a model that can't think.
    assert_eq!(check(primary, "chain")["status"], "skip");
    assert_eq!(
        ids(primary),
        vec!["connection", "reply", "tools", "chain", "context", "gpu"]
    );
    assert_eq!(primary["status"], "fail");
    assert_eq!(lines.last().map(|l| &l["status"]), Some(&json!("fail")));
    assert_eq!(server.requests_to("/api/chat").len(), 2);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_model_not_downloaded_fails_its_connection_and_offers_the_download() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![ModelInfo::new("qwen3:8b")]);
    let t = engine_with(&server).await?;

    let (_, lines) = checkup(&t, json!({"roles": {"fast": "ollama_chat/llama3.2:3b"}})).await?;
    let fast = role(&lines, "fast");
    assert_eq!(ids(fast), vec!["connection"], "nothing else runs: {fast}");
    let connection = check(fast, "connection");
    assert_eq!(connection["status"], "fail");
    assert!(
        connection["detail"]
            .as_str()
            .is_some_and(|d| d.contains("llama3.2:3b isn't downloaded")),
        "{connection}"
    );
    assert_eq!(
        connection["action"],
        json!({"kind": "pull_model", "name": "llama3.2:3b", "label": "Download llama3.2:3b"})
    );
    assert_eq!(fast["status"], "fail");
    assert!(server.requests_to("/api/chat").is_empty());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_cloud_model_without_a_key_needs_one_and_gets_no_ollama_checks() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    let body = json!({"roles": {"planner": "anthropic/claude-haiku-4-5"}});

    let (_, lines) = checkup(&t, body.clone()).await?;
    let planner = role(&lines, "planner");
    assert_eq!(planner["provider"], "anthropic");
    assert_eq!(planner["local"], false);
    assert_eq!(ids(planner), vec!["connection"]);
    let connection = check(planner, "connection");
    assert_eq!(connection["status"], "fail");
    assert_eq!(connection["action"]["kind"], "add_key");
    assert_eq!(connection["action"]["provider"], "anthropic");
    assert!(connection["action"]["label"].is_string());
    assert!(connection["fix"].is_string());

    // With a key it is called, and only the planner's checks run: no thinking, context or gpu.
    let (status, _) = t
        .client
        .put("/api/secrets/anthropic", json!({"value": "test-key"}))
        .await?;
    assert_eq!(status, 200);
    server
        .push(Reply::text("Hello."))
        .push(Reply::json(json!({"city": "Pune", "ok": true})));
    let (_, lines) = checkup(&t, body).await?;
    let planner = role(&lines, "planner");
    assert_eq!(ids(planner), vec!["connection", "reply", "json"]);
    assert_eq!(planner["status"], "pass", "{planner}");
    assert_eq!(server.requests_to("/v1/messages").len(), 2);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn two_roles_with_one_model_and_the_same_settings_share_its_tests() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b")
            .capabilities(&["completion", "tools"])
            .context_length(40960),
    ]);
    let t = engine_with(&server).await?;
    // The executor reasons like the main model, so the tests would go the same way.
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"reasoning": {"executor": "medium"}}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    server
        .push(Reply::text("Hello!"))
        .push(Reply::tool_call("find_city", json!({"name": "Pune"})))
        .push(Reply::tool_call(
            "get_weather",
            json!({"city": "Pune", "country": "India"}),
        ));

    let (_, lines) = checkup(&t, json!({"roles": {"executor": QWEN, "primary": QWEN}})).await?;
    assert_eq!(
        lines[0]["roles"],
        json!([{"role": "primary", "model": QWEN}, {"role": "executor", "model": QWEN}])
    );
    assert_eq!(
        server.requests_to("/api/chat").len(),
        3,
        "each test ran once"
    );
    let executor = role(&lines, "executor");
    assert_eq!(
        ids(executor),
        vec!["connection", "reply", "tools", "chain", "context", "gpu"]
    );
    for id in ["reply", "tools", "chain"] {
        let c = check(executor, id);
        assert_eq!(c["status"], "pass", "{c}");
        assert!(
            c["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("Same as primary.")),
            "{c}"
        );
        assert!(
            !check(role(&lines, "primary"), id)["detail"]
                .as_str()
                .unwrap_or_default()
                .starts_with("Same as"),
        );
    }
    assert_eq!(executor["status"], "pass");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_saved_roles_are_checked_and_roles_without_a_model_inherit_the_main_one() -> Result<()>
{
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b")
            .capabilities(&["completion", "tools"])
            .context_length(40960),
    ]);
    let t = engine_with(&server).await?;
    let (status, body) = t
        .client
        .put(
            "/api/models/roles",
            json!({"primary": QWEN, "fast": null, "embedding": null}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    server
        .push(Reply::text("Hello!"))
        .push(Reply::tool_call("find_city", json!({"name": "Pune"})))
        .push(Reply::tool_call(
            "get_weather",
            json!({"city": "Pune", "country": "India"}),
        ));

    // No body at all: every role as saved.
    let response = t
        .client
        .request(reqwest::Method::POST, "/api/models/checkup")
        .send()
        .await?;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("application/x-ndjson")
    );
    let lines: Vec<Value> = response
        .text()
        .await?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_order(&lines);
    let start = &lines[0]["roles"];
    assert_eq!(start.as_array().map(Vec::len), Some(7));
    assert_eq!(start[0], json!({"role": "primary", "model": QWEN}));
    for (i, name) in [
        "fast",
        "planner",
        "executor",
        "embedding",
        "vision",
        "voice",
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(start[i + 1], json!({"role": name, "model": null}));
        let r = role(&lines, name);
        assert_eq!(r["inherits"], "primary", "{r}");
        assert_eq!(r["status"], "skip", "{r}");
        assert_eq!(r["checks"], json!([]), "{r}");
        assert!(
            !lines
                .iter()
                .any(|l| l["type"] == "step" && l["role"] == *name),
            "no steps for {name}"
        );
    }
    assert_eq!(role(&lines, "primary")["status"], "pass");
    assert_eq!(lines.last().map(|l| &l["status"]), Some(&json!("pass")));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn an_unknown_role_is_refused_before_anything_runs() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine_with(&server).await?;
    let (status, body) = t
        .client
        .post("/api/models/checkup", json!({"roles": {"brain": QWEN}}))
        .await?;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("brain is not a role.")),
        "{body}"
    );
    assert!(server.requests().is_empty());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn stop_everything_ends_a_running_check_up_and_frees_the_model() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b").capabilities(&["completion", "tools"]),
    ]);
    let t = engine_with(&server).await?;
    // The short reply starts and then hangs, like a stuck model.
    server.push(Reply::text("never finishing reply").stalls_after(1));
    let request = t
        .client
        .request(reqwest::Method::POST, "/api/models/checkup")
        .json(&json!({"roles": {"primary": QWEN}}));
    let running = tokio::spawn(async move { request.send().await?.text().await });
    // Wait for the stuck chat (after the connection check's lookups).
    wait_for_chat(&server).await?;
    assert_eq!(server.requests_to("/api/chat").len(), 1);
    let (_, stopped) = t.client.post("/api/stop-all", json!({})).await?;
    assert!(
        stopped["cancelled"].as_u64().is_some_and(|n| n >= 1),
        "{stopped}"
    );
    let text = running.await??;
    assert!(
        text.lines().next().is_some_and(|l| l.contains("\"start\"")),
        "{text}"
    );
    assert!(
        !text.contains("\"done\""),
        "a stopped check-up doesn't finish: {text}"
    );
    tokio::time::timeout(sentient_e2e::WAIT, server.wait_for_disconnects(1)).await?;
    let (_, busy) = t.client.get("/api/models/busy").await?;
    assert_eq!(busy["busy"], false);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_the_running_model_call() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b").capabilities(&["completion", "tools"]),
    ]);
    let t = engine_with(&server).await?;
    server.push(Reply::text("never finishing reply").stalls_after(1));
    let request = t
        .client
        .request(reqwest::Method::POST, "/api/models/checkup")
        .json(&json!({"roles": {"primary": QWEN}}));
    let running = tokio::spawn(async move { request.send().await?.text().await });
    wait_for_chat(&server).await?;
    running.abort();
    tokio::time::timeout(sentient_e2e::WAIT, server.wait_for_disconnects(1)).await?;
    let (_, busy) = t.client.get("/api/models/busy").await?;
    assert_eq!(busy["busy"], false);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_model_that_does_not_answer_skips_its_other_model_tests() -> Result<()> {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("qwen3:8b").capabilities(&["completion", "tools"]),
    ]);
    let t = engine_with(&server).await?;
    // Down on the first try and on the one retry.
    server.push(Reply::error(503)).push(Reply::error(503));

    let (_, lines) = checkup(&t, json!({"roles": {"executor": QWEN}})).await?;
    let executor = role(&lines, "executor");
    let reply = check(executor, "reply");
    assert_eq!(reply["status"], "fail", "{reply}");
    assert!(
        reply["detail"].as_str().is_some_and(|d| d.ends_with('.')),
        "{reply}"
    );
    for id in ["tools", "chain"] {
        assert_eq!(check(executor, id)["status"], "skip", "{executor}");
    }
    assert_eq!(executor["status"], "fail");
    assert_eq!(server.requests_to("/api/chat").len(), 2);
    t.stop().await;
    Ok(())
}

/// Waits until the scripted server has seen a chat request, however many lookups came first.
async fn wait_for_chat(server: &ScriptedModel) -> Result<()> {
    tokio::time::timeout(sentient_e2e::WAIT, async {
        let mut seen = 0;
        while server.requests_to("/api/chat").is_empty() {
            seen += 1;
            server.wait_for_requests(seen).await;
        }
    })
    .await?;
    Ok(())
}
