//! Secrets over HTTP, run twice by `bash tests/setup/secrets-both-stores.sh`: against the real
//! Secret Service (gnome-keyring in a private D-Bus session, `tests/setup/with-keyring.sh`),
//! and with `SENTIENT_E2E_SECRETS_STORE=file` and no Secret Service on the bus, where every
//! engine first chooses the private key file. The product keeps every setup's keys under one
//! keychain service, so tests that store something use their own provider (added through the
//! settings) and never collide. Some checks run this binary again in a child process, because
//! what they test is chosen once per process: the logs (at trace level) and a keychain that is
//! not there.

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, ensure};
use sentient_e2e::sentient_engine::secrets::{CHATGPT, INTEGRATION_SECRETS};
use sentient_e2e::{TestEngine, WsClient, send};
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
    "the store can't be used: run under bash tests/setup/secrets-both-stores.sh";

/// Set to `file` for the run against the private key file.
const STORE_MODE: &str = "SENTIENT_E2E_SECRETS_STORE";

/// Whether this run keeps keys in the private file (else in the keychain).
fn file_mode() -> bool {
    std::env::var(STORE_MODE).is_ok_and(|v| v == "file")
}

/// The `source` of a saved key in this run.
fn saved() -> &'static str {
    if file_mode() { "file" } else { "keychain" }
}

/// An engine whose saved keys go to this run's store: in file mode it has no keychain and
/// chooses the private file first, as a person does at the first save.
async fn start() -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    if file_mode() {
        choose_file(&t).await?;
    }
    Ok(t)
}

/// Chooses the private file through the route, checking what the window is shown first.
async fn choose_file(t: &TestEngine) -> Result<()> {
    let (status, before) = t.client.get("/api/secrets/store").await?;
    ensure!(status == 200, "store: {status} {before}");
    ensure!(
        before["keychain"] == "missing",
        "file mode needs no Secret Service on the bus: {before}"
    );
    ensure!(
        before["store"] == "keychain" && before["file_possible"] == true,
        "{before}"
    );
    let (status, body) = t
        .client
        .put("/api/secrets/store", json!({"store": "file"}))
        .await?;
    ensure!(status == 200, "choose the file: {status} {body}");
    ensure!(
        body["moved"] == 0 && body["status"]["store"] == "file",
        "{body}"
    );
    Ok(())
}

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

/// The value as another Secret Service client sees it, when `secret-tool` is installed and
/// this run uses the keychain.
fn secret_tool_lookup(service: &str, name: &str) -> Option<String> {
    if file_mode() {
        return None;
    }
    let out = std::process::Command::new("secret-tool")
        .args(["lookup", "service", service, "username", name])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::test]
async fn every_provider_and_integration_is_listed_without_values() -> Result<()> {
    let t = start().await?;
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
    assert!(doc["paths"]["/api/secrets/store"]["get"].is_object());
    assert!(doc["paths"]["/api/secrets/store"]["put"].is_object());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_saved_key_is_set_from_the_keychain_and_never_shown_or_written_down() -> Result<()> {
    let t = start().await?;
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
        json!({"name": name, "set": true, "source": saved(), "kind": "provider"})
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

use crate::child::{is_child, run_in_child};

#[tokio::test]
async fn secret_values_never_reach_the_logs() -> Result<()> {
    // Everything logged, down to trace and including the keychain's own D-Bus traffic.
    run_in_child(module_path!(), "logs_child", &[("SENTIENT_LOG", "trace")]).await
}

#[tokio::test]
#[ignore = "run by secret_values_never_reach_the_logs"]
async fn logs_child() -> Result<()> {
    if !is_child("logs_child") {
        return Ok(());
    }
    let t = start().await?;
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
    let t = start().await?;
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
    assert_eq!(entry(&list(&t).await?, &name)?["source"], saved());
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
    let t = start().await?;
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
    let t = start().await?;
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
    let t = start().await?;
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

/// A session bus that leads nowhere: no keychain for the child process.
const NO_BUS: &[(&str, &str)] = &[
    (
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/sentient-e2e/bus",
    ),
    ("XDG_RUNTIME_DIR", "/nonexistent/sentient-e2e"),
];

/// The keychain is chosen once per process, so a process whose session bus leads nowhere
/// is the only way to see it missing.
#[tokio::test]
async fn without_a_keychain_saving_offers_the_choice_and_variables_still_work() -> Result<()> {
    run_in_child(module_path!(), "no_keychain_child", NO_BUS).await
}

#[tokio::test]
#[ignore = "run by without_a_keychain_saving_offers_the_choice_and_variables_still_work"]
async fn no_keychain_child() -> Result<()> {
    if !is_child("no_keychain_child") {
        return Ok(());
    }
    // Nothing chosen yet: the first save is where the person meets the choice.
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
    assert!(detail.contains("private file"), "{detail}");
    assert!(detail.contains("environment variable"), "{detail}");
    let (status, _) = delete(&t, "anthropic").await?;
    assert_eq!(status, 500);

    // What the window shows next: the keychain is missing, how to install one, and that the
    // private file can be chosen; nothing is in a file until it is.
    let (status, store) = t.client.get("/api/secrets/store").await?;
    assert_eq!(status, 200);
    assert_eq!(store["store"], "keychain");
    assert_eq!(store["keychain"], "missing");
    assert_eq!(store["file"], Value::Null);
    assert_eq!(store["file_possible"], true);
    assert_eq!(store["can_move_to_keychain"], false);
    let install = store["install_command"].as_str().context("a command")?;
    assert!(install.contains("gnome-keyring"), "{install}");
    assert!(!t.home().join("secrets.enc").exists());
    // Choosing the keychain, already the store, changes nothing; a bad choice is a 422.
    let (status, body) = t
        .client
        .put("/api/secrets/store", json!({"store": "keychain"}))
        .await?;
    assert_eq!((status, &body["moved"]), (200, &json!(0)), "{body}");
    for bad in [json!({"store": "cloud"}), json!({}), json!({"store": 1})] {
        let (status, body) = t.client.put("/api/secrets/store", bad).await?;
        assert_eq!(status, 422, "{body}");
        assert!(
            body["detail"].is_string() || body["detail"].is_array(),
            "{body}"
        );
    }

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

/// The file's mode and bytes, as the file store writes them (in a process with no keychain).
#[tokio::test]
async fn the_private_file_is_the_owners_only_holds_nothing_readable_and_survives_a_restart()
-> Result<()> {
    run_in_child(module_path!(), "private_file_child", NO_BUS).await
}

#[tokio::test]
#[ignore = "run by the_private_file_is_the_owners_only_holds_nothing_readable_and_survives_a_restart"]
async fn private_file_child() -> Result<()> {
    if !is_child("private_file_child") {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let t = TestEngine::start_in(&home).await?;
    let mut ws = t.ws().await?;
    choose_file(&t).await?;
    secrets_updated(&mut ws).await?;
    let file = home.join("secrets.enc");
    let (_, store) = t.client.get("/api/secrets/store").await?;
    assert_eq!(store["file"], file.display().to_string());
    assert_eq!(store["can_move_to_keychain"], false);

    let provider = own_provider(&t, &unique("SENTIENT_E2E_UNSET_")).await?;
    let (key, token, engine_value) = (
        unique("sk-e2e-filed-"),
        unique("ghp_e2efiled"),
        unique("oauth-e2e-filed-"),
    );
    let (status, body) = t
        .client
        .put(&format!("/api/secrets/{provider}"), json!({"value": key}))
        .await?;
    assert_eq!((status, &body), (200, &json!({"ok": true})));
    let (status, _) = t
        .client
        .put("/api/secrets/github", json!({"value": token}))
        .await?;
    assert_eq!(status, 200);
    let secrets = t.engine.services().secrets();
    secrets
        .write_entry("mcp:files:oauth", &engine_value)
        .await?;

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)?.permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }
    let bytes = std::fs::read(&file)?;
    for plain in [
        key.as_str(),
        token.as_str(),
        engine_value.as_str(),
        provider.as_str(),
        "mcp:files:oauth",
    ] {
        // Neither as is nor in the hex the envelope uses for its fields.
        let hexed: String = plain.bytes().map(|b| format!("{b:02x}")).collect();
        for form in [plain.to_owned(), hexed] {
            assert!(
                !bytes.windows(form.len()).any(|w| w == form.as_bytes()),
                "{plain} is readable in the file"
            );
        }
    }
    let listed = list(&t).await?;
    assert_eq!(entry(&listed, &provider)?["source"], "file");
    assert_eq!(entry(&listed, "github")?["source"], "file");
    t.stop().await;

    // Started again on the same home, the file is still the store and opens.
    let t = TestEngine::start_in(&home).await?;
    let (_, store) = t.client.get("/api/secrets/store").await?;
    assert_eq!(store["store"], "file");
    let secrets = t.engine.services().secrets();
    assert_eq!(secrets.get(&provider).await?, Some(key.clone()));
    assert_eq!(secrets.get("github").await?, Some(token.clone()));
    assert_eq!(
        secrets.read_entry("mcp:files:oauth").await?,
        Some(engine_value.clone())
    );
    // The keychain is still missing: nothing can move there yet.
    let (status, body) = t
        .client
        .put("/api/secrets/store", json!({"store": "keychain"}))
        .await?;
    assert_eq!(status, 409);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("still can't be used")),
        "{body}"
    );
    assert_eq!(secrets.get(&provider).await?, Some(key.clone()));

    // The file, changed by one byte, does not open: the store says so and never guesses.
    let mut envelope: Value = serde_json::from_slice(&std::fs::read(&file)?)?;
    let data = envelope["data"].as_str().context("data")?.to_owned();
    let flipped = if data.starts_with('0') { "1" } else { "0" };
    envelope["data"] = format!("{flipped}{}", &data[1..]).into();
    std::fs::write(&file, envelope.to_string())?;
    let (status, body) = t
        .client
        .put(
            &format!("/api/secrets/{provider}"),
            json!({"value": "sk-x"}),
        )
        .await?;
    assert_eq!(status, 500);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("can't be opened on this computer")),
        "{body}"
    );
    t.stop().await;
    assert_eq!(files_containing(&home, &key)?, Vec::<String>::new());
    assert_eq!(files_containing(&home, &token)?, Vec::<String>::new());
    drop(dir);
    Ok(())
}

/// Where the keys-move child keeps its home, for the parent to start on.
const MOVE_HOME: &str = "SENTIENT_E2E_MOVE_HOME";

/// Keys saved in the private file on a computer with no keychain move into the keychain once
/// one appears: the file is written by a child with no bus, then this process (which has the
/// keychain) starts on the same home and moves them.
#[tokio::test]
async fn keys_move_from_the_file_to_a_keychain_that_appeared() -> Result<()> {
    if file_mode() {
        // Needs a keychain to move to: the keychain run covers it.
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let mut env = NO_BUS.to_vec();
    let home_text = home.display().to_string();
    env.push((MOVE_HOME, &home_text));
    run_in_child(module_path!(), "file_for_moving_child", &env).await?;
    let values: Value = serde_json::from_slice(&std::fs::read(dir.path().join("values.json"))?)?;
    let provider = values["provider"].as_str().context("provider")?.to_owned();
    let key = values["key"].as_str().context("key")?.to_owned();
    let long = values["long"].as_str().context("long")?.to_owned();

    let t = TestEngine::start_in(&home).await?;
    let mut ws = t.ws().await?;
    // The settings came along with the home, so the child's provider is known here.
    let (status, store) = t.client.get("/api/secrets/store").await?;
    assert_eq!(status, 200, "{RUN_UNDER}");
    assert_eq!(store["store"], "file");
    assert_eq!(store["keychain"], "available", "{RUN_UNDER}");
    assert_eq!(store["can_move_to_keychain"], true);
    assert_eq!(store["file_possible"], false);
    assert_eq!(entry(&list(&t).await?, &provider)?["source"], "file");

    let (status, body) = t
        .client
        .put("/api/secrets/store", json!({"store": "keychain"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["moved"], 3, "{body}");
    assert_eq!(body["status"]["store"], "keychain");
    assert_eq!(body["status"]["file"], Value::Null);
    secrets_updated(&mut ws).await?;
    assert!(!home.join("secrets.enc").exists(), "the file is gone");

    let secrets = t.engine.services().secrets();
    let service = secrets.service().to_owned();
    assert_eq!(entry(&list(&t).await?, &provider)?["source"], "keychain");
    assert_eq!(secrets.get(&provider).await?, Some(key.clone()));
    assert_eq!(secrets.get("slack").await?, Some(format!("{key}-slack")));
    assert_eq!(
        secrets.read_entry("mcp:files:oauth").await?,
        Some(long.clone())
    );
    if let Some(seen) = secret_tool_lookup(&service, &provider) {
        assert_eq!(seen, key);
        // A long entry of the engine's own is split as the keychain needs.
        assert_eq!(
            secret_tool_lookup(&service, "mcp:files:oauth")
                .unwrap_or_default()
                .len(),
            1000
        );
    }
    // With a keychain that works, the file can't be chosen again, and choosing the keychain
    // again moves nothing.
    let (status, body) = t
        .client
        .put("/api/secrets/store", json!({"store": "file"}))
        .await?;
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        body["detail"],
        "This computer has a keychain, so keys stay there. A private file is only for computers without one."
    );
    let (status, body) = t
        .client
        .put("/api/secrets/store", json!({"store": "keychain"}))
        .await?;
    assert_eq!((status, &body["moved"]), (200, &json!(0)));

    for name in [provider.as_str(), "slack"] {
        assert_eq!(delete(&t, name).await?.0, 200);
    }
    secrets.delete_entry("mcp:files:oauth").await?;
    t.stop().await;
    Ok(())
}

#[tokio::test]
#[ignore = "run by keys_move_from_the_file_to_a_keychain_that_appeared"]
async fn file_for_moving_child() -> Result<()> {
    if !is_child("file_for_moving_child") {
        return Ok(());
    }
    let home = std::path::PathBuf::from(std::env::var(MOVE_HOME)?);
    let t = TestEngine::start_in(&home).await?;
    choose_file(&t).await?;
    let provider = own_provider(&t, &unique("SENTIENT_E2E_UNSET_")).await?;
    let key = unique("sk-e2e-moving-");
    let long: String = (0..2500)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for (name, value) in [
        (provider.clone(), key.clone()),
        ("slack".into(), format!("{key}-slack")),
    ] {
        let (status, body) = t
            .client
            .put(&format!("/api/secrets/{name}"), json!({"value": value}))
            .await?;
        ensure!(status == 200, "save {name}: {status} {body}");
    }
    t.engine
        .services()
        .secrets()
        .write_entry("mcp:files:oauth", &long)
        .await?;
    t.stop().await;
    let parent = home.parent().context("the home's folder")?;
    std::fs::write(
        parent.join("values.json"),
        json!({"provider": provider, "key": key, "long": long}).to_string(),
    )?;
    Ok(())
}

#[tokio::test]
async fn the_engines_own_entries_are_kept_in_parts_and_removed_whole() -> Result<()> {
    let t = start().await?;
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
