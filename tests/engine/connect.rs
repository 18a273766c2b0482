//! Connecting plans (contract section 3): a saved key checked with a request that spends
//! nothing, and each provider's model list, against stand-ins for OpenRouter, Anthropic and
//! Nous on loopback that speak their real answers and refuse a wrong key.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;
use axum::Json;
use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

use sentient_e2e::{TestEngine, serve_on_loopback};

const GOOD: &str = "sk-good";

fn bearer_ok(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer sk-good")
}

/// OpenRouter (`/api/v1/key`, the public `/api/v1/models`), Anthropic (`/v1/models` with
/// `x-api-key`) and Nous (`/v1/models`), counting model list reads.
async fn stand_ins() -> Result<(String, Arc<AtomicUsize>)> {
    let reads = Arc::new(AtomicUsize::new(0));
    let counted = reads.clone();
    let app = Router::new()
        .route(
            "/openrouter/api/v1/key",
            get(|headers: HeaderMap| async move {
                if !bearer_ok(&headers) {
                    return (StatusCode::UNAUTHORIZED, Json(json!({"error": {"message": "No auth credentials found", "code": 401}}))).into_response();
                }
                Json(json!({"data": {"label": "sk-or-v1-goo...", "usage": 0.5, "limit": 5.0, "limit_remaining": 4.5, "is_free_tier": false}})).into_response()
            }),
        )
        .route(
            "/openrouter/api/v1/models",
            get(move || {
                let counted = counted.clone();
                async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    Json(json!({"data": [
                        {"id": "meta-llama/llama-4-maverick:free", "name": "Meta: Llama 4 Maverick (free)", "context_length": 128000,
                         "pricing": {"prompt": "0", "completion": "0"}, "supported_parameters": ["tools", "tool_choice"]},
                        {"id": "anthropic/claude-sonnet-5", "name": "Anthropic: Claude Sonnet 5", "context_length": 200000,
                         "pricing": {"prompt": "0.000003", "completion": "0.000015"}, "supported_parameters": ["tools"]}
                    ]}))
                }
            }),
        )
        .route(
            "/anthropic/v1/models",
            get(|headers: HeaderMap| async move {
                let key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
                let version = headers.get("anthropic-version").is_some();
                if key != Some(GOOD) || !version {
                    return (StatusCode::UNAUTHORIZED, Json(json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}))).into_response();
                }
                Json(json!({"data": [{"type": "model", "id": "claude-sonnet-5", "display_name": "Claude Sonnet 5", "created_at": "2026-09-01T00:00:00Z"}], "has_more": false})).into_response()
            }),
        )
        .route(
            "/nous/v1/models",
            get(|headers: HeaderMap| async move {
                if !bearer_ok(&headers) {
                    return StatusCode::UNAUTHORIZED.into_response();
                }
                Json(json!({"object": "list", "data": [{"id": "Hermes-4-70B", "object": "model"}, {"id": "Hermes-4-405B", "object": "model"}]})).into_response()
            }),
        );
    let base = serve_on_loopback(app, "").await?;
    Ok((base, reads))
}

async fn engine() -> Result<(TestEngine, Arc<AtomicUsize>)> {
    let t = TestEngine::start().await?;
    let (base, reads) = stand_ins().await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"providers": {
                "openrouter": {"api_base": format!("{base}/openrouter/api/v1")},
                "anthropic": {"api_base": format!("{base}/anthropic")},
                "nous": {"api_base": format!("{base}/nous/v1")}
            }}}),
        )
        .await?;
    anyhow::ensure!(status == 200, "{body}");
    Ok((t, reads))
}

async fn save_key(t: &TestEngine, provider: &str, key: &str) -> Result<()> {
    let (status, body) = t
        .client
        .put(&format!("/api/secrets/{provider}"), json!({"value": key}))
        .await?;
    anyhow::ensure!(status == 200, "{body}");
    Ok(())
}

async fn check(t: &TestEngine, provider: &str) -> Result<(u16, Value)> {
    t.client
        .post(&format!("/api/models/connect/{provider}/check"), json!({}))
        .await
}

#[tokio::test]
async fn a_saved_key_is_checked_with_a_free_request_and_a_wrong_one_is_named() -> Result<()> {
    let (t, _) = engine().await?;
    // No key yet: a plain sentence, not an error status.
    let (status, answer) = check(&t, "anthropic").await?;
    assert_eq!(status, 200);
    assert_eq!(answer["ok"], false);
    assert!(
        answer["error"]
            .as_str()
            .is_some_and(|e| e.contains("No Anthropic key is saved yet")),
        "{answer}"
    );

    for provider in ["anthropic", "openrouter", "nous"] {
        save_key(&t, provider, "sk-wrong").await?;
        let (_, refused) = check(&t, provider).await?;
        assert_eq!(refused["ok"], false, "{provider}: {refused}");
        assert!(
            refused["error"]
                .as_str()
                .is_some_and(|e| e.contains("didn't accept this key")),
            "{refused}"
        );
        assert!(refused.get("detail").is_none());
        save_key(&t, provider, GOOD).await?;
    }
    let (_, openrouter) = check(&t, "openrouter").await?;
    assert_eq!(
        openrouter,
        json!({"ok": true, "detail": "Your OpenRouter key works, with $4.50 of its limit left."})
    );
    let (_, claude) = check(&t, "anthropic").await?;
    assert_eq!(claude["ok"], true, "{claude}");
    let (_, nous) = check(&t, "nous").await?;
    assert_eq!(
        nous,
        json!({"ok": true, "detail": "Your Nous Portal key works: 2 models are available."})
    );
    // ChatGPT is a sign-in this version doesn't have yet: said plainly.
    let (_, chatgpt) = check(&t, "chatgpt").await?;
    assert_eq!(chatgpt["ok"], false);
    // Providers without a check are 404s.
    for provider in ["openai", "ollama", "nope"] {
        let (status, body) = check(&t, provider).await?;
        assert_eq!(status, 404, "{provider}: {body}");
        assert!(body["detail"].is_string());
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn model_lists_are_read_cached_and_read_again_after_a_key_change() -> Result<()> {
    let (t, reads) = engine().await?;
    // OpenRouter's list is public: no key needed.
    let (status, list) = t.client.get("/api/models/catalog/openrouter").await?;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        list,
        json!([
            {"id": "openrouter/meta-llama/llama-4-maverick:free", "label": "Meta: Llama 4 Maverick (free)", "free": true, "tools": true, "context_length": 128000},
            {"id": "openrouter/anthropic/claude-sonnet-5", "label": "Anthropic: Claude Sonnet 5", "free": false, "tools": true, "context_length": 200000}
        ])
    );
    // Cached: a second ask reads nothing.
    t.client.get("/api/models/catalog/openrouter").await?;
    assert_eq!(reads.load(Ordering::SeqCst), 1);
    // Saving a key reads it again.
    save_key(&t, "openrouter", GOOD).await?;
    t.client.get("/api/models/catalog/openrouter").await?;
    assert_eq!(reads.load(Ordering::SeqCst), 2);

    // The others need their key: 502 with a plain detail until then.
    let (status, body) = t.client.get("/api/models/catalog/anthropic").await?;
    assert_eq!(status, 502, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("No Anthropic key")),
        "{body}"
    );
    save_key(&t, "anthropic", "sk-wrong").await?;
    let (status, body) = t.client.get("/api/models/catalog/anthropic").await?;
    assert_eq!(status, 502);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("didn't accept the saved key"))
    );
    save_key(&t, "anthropic", GOOD).await?;
    let (status, claude) = t.client.get("/api/models/catalog/anthropic").await?;
    assert_eq!(status, 200, "{claude}");
    assert_eq!(
        claude,
        json!([{"id": "anthropic/claude-sonnet-5", "label": "Claude Sonnet 5", "free": false, "tools": true, "context_length": null}])
    );
    save_key(&t, "nous", GOOD).await?;
    let (_, nous) = t.client.get("/api/models/catalog/nous").await?;
    assert_eq!(nous[1]["id"], "nous/Hermes-4-405B");
    let (status, _) = t.client.get("/api/models/catalog/chatgpt").await?;
    assert_eq!(status, 502);
    let (status, body) = t.client.get("/api/models/catalog/openai").await?;
    assert_eq!(status, 404, "{body}");
    t.stop().await;
    Ok(())
}

/// OpenRouter's key exchange: the code `good-code` with the verifier whose S256 challenge the
/// sign-in page was given gives a key, once.
async fn openrouter_sign_in_stand_in(challenge: Arc<std::sync::Mutex<String>>) -> Result<String> {
    let app = Router::new().route(
        "/api/v1/auth/keys",
        axum::routing::post(move |Json(body): Json<Value>| {
            let challenge = challenge.clone();
            async move {
                let verifier = body["code_verifier"].as_str().unwrap_or_default();
                let expected = challenge.lock().map(|c| c.clone()).unwrap_or_default();
                let ok = body["code"] == "good-code"
                    && body["code_challenge_method"] == "S256"
                    && sentient_e2e::sentient_engine::integrations::oauth::challenge_of(verifier)
                        == expected;
                if !ok {
                    return (
                        StatusCode::FORBIDDEN,
                        Json(json!({"error": {"message": "Invalid code"}})),
                    )
                        .into_response();
                }
                Json(json!({"key": "sk-or-v1-from-sign-in", "user_id": "user_1"})).into_response()
            }
        }),
    );
    serve_on_loopback(app, "").await
}

fn query_of(url: &str, name: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

#[tokio::test]
async fn openrouter_connects_by_signing_in_and_a_forged_or_reused_state_stores_nothing()
-> Result<()> {
    let challenge = Arc::new(std::sync::Mutex::new(String::new()));
    let keys = openrouter_sign_in_stand_in(challenge.clone()).await?;
    let t =
        TestEngine::start_with_endpoints(sentient_e2e::sentient_engine::integrations::Endpoints {
            openrouter_auth: format!("{keys}/auth"),
            openrouter_keys: format!("{keys}/api/v1/auth/keys"),
            ..Default::default()
        })
        .await?;
    let (status, started) = t
        .client
        .post("/api/models/connect/openrouter", json!({}))
        .await?;
    assert_eq!(status, 200, "{started}");
    let auth_url = started["auth_url"].as_str().unwrap_or_default().to_owned();
    let state = started["state"].as_str().unwrap_or_default().to_owned();
    assert!(auth_url.starts_with(&format!("{keys}/auth?")), "{auth_url}");
    assert_eq!(
        query_of(&auth_url, "code_challenge_method").as_deref(),
        Some("S256")
    );
    let callback = query_of(&auth_url, "callback_url").unwrap_or_default();
    assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
    assert_eq!(
        query_of(&callback, "state").as_deref(),
        Some(state.as_str())
    );
    *challenge.lock().expect("lock") = query_of(&auth_url, "code_challenge").unwrap_or_default();
    let (_, waiting) = t
        .client
        .get(&format!("/api/models/connect/openrouter/{state}"))
        .await?;
    assert_eq!(waiting, json!({"status": "waiting", "error": null}));

    // A forged state is refused and stores nothing.
    let browser = reqwest::Client::builder().no_proxy().build()?;
    let port_base = callback.split("?").next().unwrap_or_default().to_owned();
    let forged = browser
        .get(format!("{port_base}?state=forged&code=good-code"))
        .send()
        .await?;
    assert_eq!(forged.status(), 400);
    let (_, secrets) = t.client.get("/api/secrets").await?;
    let openrouter_set = |secrets: &Value| {
        secrets
            .as_array()
            .and_then(|s| s.iter().find(|e| e["name"] == "openrouter"))
            .map(|e| e["set"] == true)
            .unwrap_or(false)
    };
    assert!(!openrouter_set(&secrets));

    // The browser comes back to the callback OpenRouter was given, with the code added.
    let back = browser
        .get(format!("{callback}&code=good-code"))
        .send()
        .await?;
    assert_eq!(back.status(), 200);
    assert!(back.text().await?.contains("You're connected"));
    let (_, done) = t
        .client
        .get(&format!("/api/models/connect/openrouter/{state}"))
        .await?;
    assert_eq!(done, json!({"status": "connected", "error": null}));
    let (_, secrets) = t.client.get("/api/secrets").await?;
    assert!(openrouter_set(&secrets), "{secrets}");
    // The same state again is refused.
    let again = browser
        .get(format!("{callback}&code=good-code"))
        .send()
        .await?;
    assert_eq!(again.status(), 400);

    // A code OpenRouter refuses ends the sign-in failed, with a sentence.
    t.client.delete("/api/secrets/openrouter").await?;
    let (_, second) = t
        .client
        .post("/api/models/connect/openrouter", json!({}))
        .await?;
    let second_state = second["state"].as_str().unwrap_or_default().to_owned();
    let second_callback = query_of(
        second["auth_url"].as_str().unwrap_or_default(),
        "callback_url",
    )
    .unwrap_or_default();
    *challenge.lock().expect("lock") = query_of(
        second["auth_url"].as_str().unwrap_or_default(),
        "code_challenge",
    )
    .unwrap_or_default();
    let refused = browser
        .get(format!("{second_callback}&code=stolen-code"))
        .send()
        .await?;
    assert_eq!(refused.status(), 400);
    let (_, failed) = t
        .client
        .get(&format!("/api/models/connect/openrouter/{second_state}"))
        .await?;
    assert_eq!(failed["status"], "failed");
    assert!(
        failed["error"]
            .as_str()
            .is_some_and(|e| e.contains("OpenRouter didn't accept the sign-in")),
        "{failed}"
    );
    let (_, secrets) = t.client.get("/api/secrets").await?;
    assert!(!openrouter_set(&secrets));
    // An unknown sign-in is a 404; OpenRouter's key check still answers at its own address.
    let (status, _) = t.client.get("/api/models/connect/openrouter/nope").await?;
    assert_eq!(status, 404);
    let (status, check) = t
        .client
        .post("/api/models/connect/openrouter/check", json!({}))
        .await?;
    assert_eq!(status, 200, "{check}");
    assert_eq!(check["ok"], false);
    t.stop().await;
    Ok(())
}
