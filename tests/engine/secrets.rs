//! Secrets over HTTP against the real Secret Service (gnome-keyring in a private D-Bus
//! session): run with `bash tests/setup/with-keyring.sh cargo test -p sentient-e2e --test
//! secrets`. The product keeps every setup's keys under one keychain service, so tests that
//! store something use their own provider (added through the settings) and never collide.
//! Two checks run this binary again in a child process, because what they test is chosen
//! once per process: the logs (at trace level) and a keychain that is not there.

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, ensure};
use sentient_e2e::sentient_engine::secrets::{CHATGPT, INTEGRATION_SECRETS};
use sentient_e2e::{TestEngine, WAIT, WsClient, send};
use serde_json::{Value, json};

const PROVIDERS: &[&str] = &[
    "anthropic",
    "openai",
    "openrouter",
    "nous",
    "gemini",
    "groq",
    "mistral",
    "deepseek",
    "xai",
];

const RUN_UNDER: &str =
    "the Secret Service is not reachable: run under bash tests/setup/with-keyring.sh";

/// Something no other test (or run) uses.
fn unique(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{prefix}{}x{nanos}x{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Adds a provider of this test's own whose key variable is `env`.
async fn own_provider(t: &TestEngine, env: &str) -> Result<String> {
    let id = unique("e2e");
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"providers": {&id: {"api_key_env": env}}}}),
        )
        .await?;
    ensure!(status == 200, "settings patch: {status} {body}");
    Ok(id)
}

async fn list(t: &TestEngine) -> Result<Vec<Value>> {
    let (status, body) = t.client.get("/api/secrets").await?;
    ensure!(status == 200, "list: {status} {body}");
    Ok(body.as_array().context("a list")?.clone())
}

fn entry<'a>(list: &'a [Value], name: &str) -> Result<&'a Value> {
    list.iter()
        .find(|e| e["name"] == name)
        .with_context(|| format!("{name} is listed"))
}

async fn delete(t: &TestEngine, name: &str) -> Result<(u16, Value)> {
    send(
        t.client
            .request(reqwest::Method::DELETE, &format!("/api/secrets/{name}")),
    )
    .await
}

/// Waits for `config.updated {sections: ["secrets"]}`, skipping other settings changes.
async fn secrets_updated(ws: &mut WsClient) -> Result<()> {
    loop {
        let event = ws.wait_for("config.updated").await?;
        if event["data"]["sections"] == json!(["secrets"]) {
            return Ok(());
        }
    }
}

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Result<Vec<String>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir)? {
            let path = item?.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path)?
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
            {
                found.push(path.display().to_string());
            }
        }
    }
    Ok(found)
}

/// The value as another Secret Service client sees it, when `secret-tool` is installed.
fn secret_tool_lookup(service: &str, name: &str) -> Option<String> {
    let out = std::process::Command::new("secret-tool")
        .args(["lookup", "service", service, "username", name])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::test]
async fn every_provider_and_integration_is_listed_without_values() -> Result<()> {
    let t = TestEngine::start().await?;
    let list = list(&t).await?;
    for name in PROVIDERS {
        let e = entry(&list, name)?;
        assert_eq!(e["kind"], "provider", "{e}");
        // Nothing is saved here; a key can only come from this process's own variable.
        let var = format!("{}_API_KEY", name.to_uppercase());
        if std::env::var(&var).is_ok_and(|v| !v.trim().is_empty()) {
            assert_eq!(e["source"], "env", "{e}");
        } else {
            assert_eq!(e["set"], false, "{e}");
            assert_eq!(e["source"], Value::Null, "{e}");
        }
        assert_eq!(
            e.as_object().map(|o| o.len()),
            Some(4),
            "only name, set, source, kind: {e}"
        );
    }
    let chatgpt = entry(&list, CHATGPT)?;
    assert_eq!(chatgpt["kind"], "provider");
    assert_eq!(chatgpt["set"], false);
    for name in INTEGRATION_SECRETS {
        assert_eq!(entry(&list, name)?["kind"], "integration");
    }
    // Local model servers take no key.
    assert!(entry(&list, "ollama").is_err());

    let (status, _) = send(t.client.anonymous(reqwest::Method::GET, "/api/secrets")).await?;
    assert_eq!(status, 401);
    let (_, doc) = t.client.get("/api/openapi.json").await?;
    assert!(doc["paths"]["/api/secrets"]["get"].is_object());
    assert!(doc["paths"]["/api/secrets/{name}"]["put"].is_object());
    assert!(doc["paths"]["/api/secrets/{name}"]["delete"].is_object());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_saved_key_is_set_from_the_keychain_and_never_shown_or_written_down() -> Result<()> {
    let t = TestEngine::start().await?;
    let name = own_provider(&t, &unique("SENTIENT_E2E_UNSET_")).await?;
    let value = unique("sk-e2e-secret-");
    let mut ws = t.ws().await?;

    let (status, body) = t
        .client
        .put(
            &format!("/api/secrets/{name}"),
            json!({"value": format!("  {value}\n")}),
        )
        .await?;
    assert_ne!(status, 500, "{RUN_UNDER}: {body}");
    assert_eq!((status, &body), (200, &json!({"ok": true})));
    secrets_updated(&mut ws).await?;

    let (_, raw) = t.client.get("/api/secrets").await?;
    assert!(!raw.to_string().contains(&value));
    let e = entry(raw.as_array().context("a list")?, &name)?.clone();
    assert_eq!(
        e,
        json!({"name": name, "set": true, "source": "keychain", "kind": "provider"})
    );
    // Stored for real, trimmed, where any Secret Service client finds it.
    assert_eq!(
        t.engine.services().secrets().get(&name).await?,
        Some(value.clone())
    );
    if let Some(seen) = secret_tool_lookup(t.engine.services().secrets().service(), &name) {
        assert_eq!(seen, value);
    }

    let (_, config) = t.client.get("/api/config").await?;
    assert!(!config.to_string().contains(&value));
    let (_, bootstrap) = t.client.get("/api/bootstrap").await?;
    assert!(!bootstrap.to_string().contains(&value));

    let (status, body) = delete(&t, &name).await?;
    assert_eq!((status, &body), (200, &json!({"ok": true})));
    secrets_updated(&mut ws).await?;
    let e = entry(&list(&t).await?, &name)?.clone();
    assert_eq!((&e["set"], &e["source"]), (&json!(false), &Value::Null));
    assert_eq!(t.engine.services().secrets().get(&name).await?, None);
    // Removing it again is fine.
    let (status, _) = delete(&t, &name).await?;
    assert_eq!(status, 200);

    // Settings, database (with its journal), anything else: the value is nowhere at home.
    let home = t.home().to_owned();
    let dir = t.stop().await;
    assert_eq!(files_containing(&home, &value)?, Vec::<String>::new());
    drop(dir);
    Ok(())
}

/// Runs the ignored test `name` in a fresh process of this binary with `env` added, its
/// output kept unless it fails. Used where a process-wide choice is under test: the log
/// subscriber, and the keychain (chosen once per process).
async fn run_in_child(name: &str, env: &[(&str, &str)]) -> Result<()> {
    // Test names are paths from the binary's root (`secrets::logs_child`).
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let full_name = format!("{module}::{name}");
    let mut command = tokio::process::Command::new(std::env::current_exe()?);
    command
        .args([
            full_name.as_str(),
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, name)
        .kill_on_drop(true);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = tokio::time::timeout(WAIT * 6, command.output())
        .await
        .with_context(|| format!("{name} took too long"))??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// Set to the child test's name in the child, so a plain `--ignored` run skips them.
const CHILD: &str = "SENTIENT_E2E_CHILD";

fn is_child(name: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|v| v == name)
}

#[tokio::test]
async fn secret_values_never_reach_the_logs() -> Result<()> {
    // Everything logged, down to trace and including the keychain's own D-Bus traffic.
    run_in_child("logs_child", &[("SENTIENT_LOG", "trace")]).await
}

#[tokio::test]
#[ignore = "run by secret_values_never_reach_the_logs"]
async fn logs_child() -> Result<()> {
    if !is_child("logs_child") {
        return Ok(());
    }
    let t = TestEngine::start().await?;
    let logs_dir = t.engine.services().home().logs();
    let logs = sentient_e2e::sentient_engine::logging::init(&logs_dir);
    let name = own_provider(&t, &unique("SENTIENT_E2E_UNSET_")).await?;
    let value = unique("sk-e2e-logged-");
    let (status, body) = t
        .client
        .put(&format!("/api/secrets/{name}"), json!({"value": value}))
        .await?;
    assert_eq!(status, 200, "{RUN_UNDER}: {body}");
    assert_eq!(
        t.engine.services().secrets().get(&name).await?,
        Some(value.clone())
    );
    list(&t).await?;
    assert_eq!(delete(&t, &name).await?.0, 200);
    let home = t.home().to_owned();
    let dir = t.stop().await;
    drop(logs);
    assert!(
        !files_containing(&logs_dir, &name)?.is_empty(),
        "the logs were written (they name the secret)"
    );
    assert_eq!(files_containing(&home, &value)?, Vec::<String>::new());
    drop(dir);
    Ok(())
}

#[tokio::test]
async fn the_environment_variable_is_the_fallback_and_the_keychain_wins() -> Result<()> {
    let t = TestEngine::start().await?;
    // Test engines see one fixed variable; nothing touches the process environment.
    let path = sentient_e2e::TEST_ENV_VALUE.to_owned();
    let name = own_provider(&t, sentient_e2e::TEST_ENV_KEY).await?;
    let e = entry(&list(&t).await?, &name)?.clone();
    assert_eq!((&e["set"], &e["source"]), (&json!(true), &json!("env")));
    assert_eq!(
        t.engine.services().secrets().get(&name).await?,
        Some(path.clone())
    );

    let value = unique("sk-e2e-wins-");
    let (status, body) = t
        .client
        .put(&format!("/api/secrets/{name}"), json!({"value": value}))
        .await?;
    assert_eq!(status, 200, "{RUN_UNDER}: {body}");
    assert_eq!(entry(&list(&t).await?, &name)?["source"], "keychain");
    assert_eq!(t.engine.services().secrets().get(&name).await?, Some(value));

    let (status, _) = delete(&t, &name).await?;
    assert_eq!(status, 200);
    assert_eq!(entry(&list(&t).await?, &name)?["source"], "env");
    assert_eq!(t.engine.services().secrets().get(&name).await?, Some(path));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn chatgpt_is_a_sign_in_not_a_key() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .put("/api/secrets/chatgpt", json!({"value": "sk-not-a-sign-in"}))
        .await?;
    assert_eq!(status, 400);
    assert_eq!(
        body["detail"],
        "ChatGPT is connected by signing in, not with a key. Use Connect ChatGPT in Settings > Models."
    );
    assert_eq!(entry(&list(&t).await?, CHATGPT)?["set"], false);
    // Signing out when not signed in is fine.
    let (status, body) = delete(&t, CHATGPT).await?;
    assert_eq!((status, &body), (200, &json!({"ok": true})), "{RUN_UNDER}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn unknown_names_are_not_found() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .put("/api/secrets/no_such_thing", json!({"value": "x"}))
        .await?;
    assert_eq!(status, 404);
    assert_eq!(
        body["detail"],
        "Sentient has no secret called no_such_thing."
    );
    let (status, body) = delete(&t, "ollama").await?;
    assert_eq!(status, 404);
    assert_eq!(body["detail"], "Sentient has no secret called ollama.");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn an_empty_or_oversized_value_is_refused_and_nothing_is_stored() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let name = own_provider(&t, &unique("SENTIENT_E2E_UNSET_")).await?;
    let path = format!("/api/secrets/{name}");
    for bad in [json!({"value": ""}), json!({"value": " \n\t "})] {
        let (status, body) = t.client.put(&path, bad).await?;
        assert_eq!(status, 400);
        assert_eq!(
            body["detail"],
            "The key is empty. Paste the whole key and try again."
        );
    }
    let (status, body) = t
        .client
        .put(&path, json!({"value": "k".repeat(10_001)}))
        .await?;
    assert_eq!(status, 400);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("10,000"))
    );
    let (status, _) = t.client.put(&path, json!({})).await?;
    assert_eq!(status, 422);
    let (status, _) = t.client.put(&path, json!({"value": 42})).await?;
    assert_eq!(status, 422);
    assert_eq!(entry(&list(&t).await?, &name)?["set"], false);
    assert_eq!(t.engine.services().secrets().get(&name).await?, None);

    // Nothing was saved, so no window was told to refresh: the next secrets event is this one.
    let (status, _) = t.client.put(&path, json!({"value": "sk-real"})).await?;
    assert_eq!(status, 200, "{RUN_UNDER}");
    let event = loop {
        let event = ws.wait_for("config.updated").await?;
        if event["data"]["sections"] != json!(["models"]) {
            break event;
        }
    };
    assert_eq!(event["data"]["sections"], json!(["secrets"]));
    let (status, _) = delete(&t, &name).await?;
    assert_eq!(status, 200);
    t.stop().await;
    Ok(())
}

/// The keychain is chosen once per process, so a process whose session bus leads nowhere
/// is the only way to see it missing.
#[tokio::test]
async fn without_a_keychain_saving_says_how_to_fix_it_and_variables_still_work() -> Result<()> {
    run_in_child(
        "no_keychain_child",
        &[
            (
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/sentient-e2e/bus",
            ),
            ("XDG_RUNTIME_DIR", "/nonexistent/sentient-e2e"),
        ],
    )
    .await
}

#[tokio::test]
#[ignore = "run by without_a_keychain_saving_says_how_to_fix_it_and_variables_still_work"]
async fn no_keychain_child() -> Result<()> {
    if !is_child("no_keychain_child") {
        return Ok(());
    }
    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .put(
            "/api/secrets/anthropic",
            json!({"value": "sk-nowhere-to-go"}),
        )
        .await?;
    assert_eq!(status, 500);
    let detail = body["detail"].as_str().context("a sentence")?;
    assert!(
        detail.contains("can't reach this computer's keychain"),
        "{detail}"
    );
    assert!(detail.contains("gnome-keyring"), "{detail}");
    assert!(detail.contains("environment variable"), "{detail}");
    let (status, _) = delete(&t, "anthropic").await?;
    assert_eq!(status, 500);

    // Listing still works, and a provider's variable still supplies its key.
    let name = own_provider(&t, sentient_e2e::TEST_ENV_KEY).await?;
    let list = list(&t).await?;
    assert_eq!(entry(&list, &name)?["source"], "env");
    assert_eq!(entry(&list, CHATGPT)?["set"], false);
    assert_eq!(
        t.engine.services().secrets().get(&name).await?,
        Some(sentient_e2e::TEST_ENV_VALUE.to_owned())
    );
    // With neither, the keychain's problem is the answer.
    assert!(t.engine.services().secrets().get(CHATGPT).await.is_err());
    // Nothing was written anywhere instead.
    let home = t.home().to_owned();
    let dir = t.stop().await;
    assert_eq!(
        files_containing(&home, "sk-nowhere-to-go")?,
        Vec::<String>::new()
    );
    drop(dir);
    Ok(())
}

#[tokio::test]
async fn the_engines_own_entries_are_kept_in_parts_and_removed_whole() -> Result<()> {
    let t = TestEngine::start().await?;
    let secrets = t.engine.services().secrets();
    let service = secrets.service().to_owned();
    let long: String = (0..2500)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    secrets.write_entry("mcp:files:oauth", &long).await?;
    assert_eq!(
        secrets.read_entry("mcp:files:oauth").await?.as_deref(),
        Some(long.as_str())
    );
    if secret_tool_lookup(&service, "mcp:files:oauth").is_some() {
        let part = |n: &str| secret_tool_lookup(&service, n).unwrap_or_default();
        assert_eq!(part("mcp:files:oauth").len(), 1000);
        assert_eq!(part("mcp:files:oauth:1").len(), 1000);
        assert_eq!(part("mcp:files:oauth:2").len(), 500);
    }
    // A shorter value leaves no stale parts behind.
    secrets.write_entry("mcp:files:oauth", "short").await?;
    assert_eq!(
        secrets.read_entry("mcp:files:oauth").await?.as_deref(),
        Some("short")
    );
    if secret_tool_lookup(&service, "mcp:files:oauth").is_some() {
        assert_eq!(
            secret_tool_lookup(&service, "mcp:files:oauth:1").unwrap_or_default(),
            ""
        );
    }
    secrets.write_entry("mcp:files:oauth", &long).await?;
    secrets.delete_entry("mcp:files:oauth").await?;
    assert_eq!(secrets.read_entry("mcp:files:oauth").await?, None);
    secrets.delete_entry("mcp:files:oauth").await?;
    // Not listed in Settings, unlike the keys a person types.
    let list = list(&t).await?;
    assert!(
        !list
            .iter()
            .any(|s| s["name"].as_str().is_some_and(|n| n.starts_with("mcp:")))
    );
    t.stop().await;
    Ok(())
}
