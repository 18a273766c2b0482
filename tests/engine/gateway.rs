//! The gateway's promises: health is open, everything else needs the token, every error is
//! JSON `{"detail"}`, and the OpenAPI document lists every route.

use reqwest::Method;
use sentient_e2e::{TestEngine, send};
use serde_json::{Value, json};

#[tokio::test]
async fn health_is_open() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = send(t.client.anonymous(Method::GET, "/api/health")).await?;
    assert_eq!(status, 200);
    assert_eq!(body["ok"], true);
    assert_eq!(body["name"], "sentient");
    assert!(body["version"].as_str().is_some_and(|v| !v.is_empty()));
    t.stop().await;
    Ok(())
}

/// Every (method, path) the OpenAPI document lists, with path parameters filled in.
async fn every_route(t: &TestEngine) -> anyhow::Result<Vec<(Method, String)>> {
    let (status, doc) = t.client.get("/api/openapi.json").await?;
    assert_eq!(status, 200);
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let filled: String = path
            .split('/')
            .map(|part| if part.starts_with('{') { "x" } else { part })
            .collect::<Vec<_>>()
            .join("/");
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                routes.push((
                    Method::from_bytes(method.to_uppercase().as_bytes())?,
                    filled.clone(),
                ));
            }
        }
    }
    Ok(routes)
}

#[tokio::test]
async fn every_route_but_health_refuses_a_missing_or_wrong_token() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let routes = every_route(&t).await?;
    assert!(routes.len() >= 10, "too few routes listed: {routes:?}");
    for (method, path) in routes {
        // Webhooks are called with their own secret instead (tests/engine/hooks.rs), and
        // devices say who they are inside the device socket (tests/engine/devices.rs).
        if path == "/api/health" || path.starts_with("/hooks/") || path == "/ws/node" {
            continue;
        }
        let (status, body) = send(t.client.anonymous(method.clone(), &path)).await?;
        assert_eq!(status, 401, "{method} {path} without a token");
        assert!(
            body["detail"].as_str().is_some_and(|d| d.contains("token")),
            "{method} {path}: {body}"
        );
        let wrong = t
            .client
            .anonymous(method.clone(), &path)
            .bearer_auth("not-the-token");
        let (status, _) = send(wrong).await?;
        assert_eq!(status, 401, "{method} {path} with a wrong token");
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn openapi_lists_every_route_of_this_issue() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let listed: Vec<String> = every_route(&t)
        .await?
        .into_iter()
        .map(|(m, p)| format!("{m} {p}"))
        .collect();
    for expected in [
        "GET /api/health",
        "GET /api/bootstrap",
        "POST /api/onboarding",
        "GET /api/config",
        "PUT /api/config",
        "PATCH /api/config",
        "GET /api/config/schema",
        "GET /api/stop",
        "POST /api/stop-all",
        "POST /api/resume",
        "GET /api/openapi.json",
        "GET /ws",
    ] {
        assert!(
            listed.contains(&expected.to_owned()),
            "{expected} missing from {listed:?}"
        );
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn unknown_routes_wrong_methods_and_big_bodies_answer_json() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t.client.get("/api/no-such-thing").await?;
    assert_eq!(status, 404);
    assert!(body["detail"].is_string());

    let (status, body) = send(t.client.request(Method::DELETE, "/api/bootstrap")).await?;
    assert_eq!(status, 405);
    assert!(body["detail"].is_string());

    let huge = "x".repeat(3 * 1024 * 1024);
    let (status, body) = t
        .client
        .patch("/api/config", json!({"assistant": {"location": huge}}))
        .await?;
    assert_eq!(status, 413);
    assert!(body["detail"].is_string());

    let bad = t
        .client
        .request(Method::POST, "/api/onboarding")
        .header("content-type", "application/json")
        .body("{not json");
    let (status, body) = send(bad).await?;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["type"], "json_invalid");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn bootstrap_has_the_whole_contract_shape() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, b) = t.client.get("/api/bootstrap").await?;
    assert_eq!(status, 200);
    assert_eq!(b["home"], t.home().display().to_string());
    assert_eq!(b["assistant"]["name"], "Sentient");
    assert_eq!(b["assistant"]["onboarding_complete"], false);
    for key in ["user_name", "timezone", "location", "language"] {
        assert!(b["assistant"][key].is_string(), "assistant.{key}");
    }
    assert!(b["models"]["primary"].is_string());
    for role in [
        "fast",
        "planner",
        "executor",
        "embedding",
        "vision",
        "voice",
    ] {
        assert!(b["models"].get(role).is_some(), "models.{role}");
    }
    assert!(b["memory_enabled"].is_boolean());
    assert_eq!(b["unread_notifications"], 0);
    for key in ["theme", "accent", "launch_at_login", "minimize_to_tray"] {
        assert!(b["ui"].get(key).is_some(), "ui.{key}");
    }
    assert!(b["features"]["voice"].is_boolean() && b["features"]["proactivity"].is_boolean());
    assert_eq!(
        b["stop"],
        json!({"stopped": false, "stopped_at": null, "source": null})
    );
    t.stop().await;
    Ok(())
}

/// The bootstrap reports only what is built: memory, voice and proactivity are not, so their
/// switches read false even when the settings turn them on; the unread count is the feed's.
#[tokio::test]
async fn bootstrap_reports_only_what_is_built() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"memory": {"enabled": true}, "voice": {"enabled": true}, "proactivity": {"enabled": true}}),
        )
        .await?;
    assert_eq!(status, 200);
    t.engine
        .services()
        .notifications()
        .notify(
            sentient_e2e::sentient_engine::notifications::NewNotification {
                kind: "info".to_owned(),
                title: "Hello".to_owned(),
                message: "One unread.".to_owned(),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    let (status, b) = t.client.get("/api/bootstrap").await?;
    assert_eq!(status, 200);
    // Memory is built: the switch follows `memory.enabled`.
    assert_eq!(b["memory_enabled"], true);
    assert_eq!(b["features"], json!({"voice": false, "proactivity": false}));
    assert_eq!(b["unread_notifications"], 1);
    let (status, _) = t
        .client
        .patch("/api/config", json!({"memory": {"enabled": false}}))
        .await?;
    assert_eq!(status, 200);
    let (_, b) = t.client.get("/api/bootstrap").await?;
    assert_eq!(b["memory_enabled"], false);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn onboarding_saves_answers_writes_user_md_and_completes() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .post(
            "/api/onboarding",
            json!({"user_name": "Ada", "assistant_name": "Babbage", "timezone": "Europe/London",
                   "location": "London", "professional_context": "Mathematician", "persona": "concise"}),
        )
        .await?;
    assert_eq!((status, body), (200, json!({"ok": true})));
    let (_, b) = t.client.get("/api/bootstrap").await?;
    assert_eq!(b["assistant"]["user_name"], "Ada");
    assert_eq!(b["assistant"]["name"], "Babbage");
    assert_eq!(b["assistant"]["timezone"], "Europe/London");
    assert_eq!(b["assistant"]["onboarding_complete"], true);
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(config["assistant"]["persona"], "concise");
    let user_md = std::fs::read_to_string(t.home().join("workspace/USER.md"))?;
    assert!(
        user_md.contains("Ada") && user_md.contains("London") && user_md.contains("Mathematician")
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn bad_onboarding_is_refused_and_changes_nothing() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let before_md = std::fs::read_to_string(t.home().join("workspace/USER.md"))?;
    let (_, before) = t.client.get("/api/config").await?;
    let (status, body) = t
        .client
        .post(
            "/api/onboarding",
            json!({"user_name": "", "timezone": "Nowhere/Land"}),
        )
        .await?;
    assert_eq!(status, 422);
    let locs: Vec<Value> = body["detail"]
        .as_array()
        .expect("list")
        .iter()
        .map(|d| d["loc"].clone())
        .collect();
    assert_eq!(
        locs,
        [json!(["body", "user_name"]), json!(["body", "timezone"])]
    );
    let (_, after) = t.client.get("/api/config").await?;
    assert_eq!(before, after);
    assert_eq!(
        before_md,
        std::fs::read_to_string(t.home().join("workspace/USER.md"))?
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_home_layout_is_created() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    for part in [
        "config.yaml",
        "sentient.db",
        "workspace/SOUL.md",
        "workspace/USER.md",
        "workspace/MEMORY.md",
        "skills",
        "files/uploads",
        "files/outputs",
        "models",
        "logs",
        "tmp",
    ] {
        assert!(t.home().join(part).exists(), "{part} missing");
    }
    t.stop().await;
    Ok(())
}

/// The schema at a `$ref` (`#/components/schemas/...`) of the document, or the schema itself.
fn resolved<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let pointer = reference.trim_start_matches('#');
            resolved(
                doc,
                doc.pointer(pointer).expect("the $ref is in the document"),
            )
        }
        None => schema,
    }
}

/// Whether `value` matches `schema`, for the parts of JSON Schema the error bodies use: `$ref`,
/// `type`, `required`, `properties` (no others allowed), `items`, `oneOf` and `anyOf`.
fn matches_schema(doc: &Value, schema: &Value, value: &Value) -> bool {
    let schema = resolved(doc, schema);
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema[key].as_array() {
            return options.iter().any(|s| matches_schema(doc, s, value));
        }
    }
    let type_ok = match schema["type"].as_str() {
        Some("object") => value.is_object(),
        Some("string") => value.is_string(),
        Some("array") => value.is_array(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        _ => true,
    };
    if !type_ok {
        return false;
    }
    if let (Some(object), Some(properties)) = (value.as_object(), schema["properties"].as_object())
    {
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        let has_required = required
            .iter()
            .filter_map(Value::as_str)
            .all(|k| object.contains_key(k));
        let known = object
            .iter()
            .all(|(k, v)| properties.get(k).is_some_and(|s| matches_schema(doc, s, v)));
        return has_required && known;
    }
    if let (Some(items), Some(schema_items)) = (value.as_array(), schema.get("items")) {
        return items.iter().all(|v| matches_schema(doc, schema_items, v));
    }
    true
}

#[tokio::test]
async fn the_live_channels_401_body_matches_its_documented_schema() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (_, doc) = t.client.get("/api/openapi.json").await?;
    let schema =
        &doc["paths"]["/ws"]["get"]["responses"]["401"]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "GET /ws documents its 401 body");
    let (status, body) = send(t.client.anonymous(Method::GET, "/ws")).await?;
    assert_eq!(status, 401);
    assert!(
        matches_schema(&doc, schema, &body),
        "{body} against {schema}"
    );
    // The check tells shapes apart: a field the schema does not name (the old shape's `status`)
    // or a bare sentence does not match.
    assert!(!matches_schema(
        &doc,
        schema,
        &json!({"detail": "x", "status": 401})
    ));
    assert!(!matches_schema(&doc, schema, &json!("x")));
    t.stop().await;
    Ok(())
}
