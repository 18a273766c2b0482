//! The browser's routes (contract section 12) on a real engine: nothing starts with the engine,
//! the status and profiles in the contract's shapes, and the 409s for what can't be opened.
//! A scripted chat fills a served checkout and buys only after Allow; the tools one by one are
//! exercised against real Chromium in src-tauri/browser/tests.

use std::sync::{Arc, Mutex};

use anyhow::Result;
use sentient_e2e::{TestEngine, WAIT, serve_on_loopback};
use sentient_engine::sync::MutexExt;
use sentient_model_server::Reply;
use serde_json::{Value, json};

#[tokio::test]
async fn the_browser_waits_for_its_first_call_and_its_routes_answer_in_the_contract_shapes()
-> Result<()> {
    let t = TestEngine::start().await?;

    // Starting the engine starts no browser.
    let (status, body) = t.client.get("/api/browser/status").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["running"], false);
    assert_eq!(body["profile"], "default");
    assert_eq!(body["attached"], false);
    assert_eq!(body["tabs"], json!([]));
    assert_eq!(body["headless"], true);
    for key in ["available", "engine", "error"] {
        assert!(body.get(key).is_some(), "{key} missing from {body}");
    }
    assert!(!t.engine.services().browser().status().await.running);

    let (status, body) = t.client.get("/api/browser/profiles").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["active"], serde_json::Value::Null);
    assert_eq!(body["profiles"][0]["name"], "default");
    assert_eq!(body["profiles"][0]["kind"], "launch");
    assert_eq!(body["profiles"][0]["running"], false);

    // The browser app is listed with its tools.
    let (status, tools) = t.client.get("/api/tools").await?;
    assert_eq!(status, 200);
    assert!(tools.to_string().contains("browser_snapshot"), "{tools}");

    let (status, body) = t.client.get("/api/browser/screenshot").await?;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["detail"], "The browser isn't running.");

    let (status, body) = t
        .client
        .post("/api/browser/open", json!({"profile": "nope"}))
        .await?;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("no browser profile called nope"),
        "{body}"
    );
    let (status, body) = t
        .client
        .post("/api/browser/open", json!({"url": "file:///etc/passwd"}))
        .await?;
    assert_eq!(status, 409, "{body}");
    let (status, _) = t
        .client
        .post("/api/browser/open", json!({"address": "x"}))
        .await?;
    assert_eq!(status, 422);

    // Turned off: not available, said in plain words, and nothing opens.
    let (status, body) = t
        .client
        .patch("/api/config", json!({"browser": {"enabled": false}}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let (_, body) = t.client.get("/api/browser/status").await?;
    assert_eq!(body["available"], false);
    assert_eq!(
        body["error"],
        "The browser is turned off in Settings > Browser."
    );
    let (status, body) = t.client.post("/api/browser/open", json!({})).await?;
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        body["detail"],
        "The browser is turned off in Settings > Browser."
    );
    assert!(!t.engine.services().browser().status().await.running);
    Ok(())
}

#[tokio::test]
async fn profiles_are_added_renamed_with_their_folder_and_tasks_and_deleted() -> Result<()> {
    use sentient_e2e::sentient_engine::tasks::TaskPatch;
    use sentient_e2e::sentient_engine::tasks::model::TaskStatus;

    let t = TestEngine::start().await?;
    let (status, body) = t
        .client
        .post(
            "/api/browser/profiles",
            json!({"name": "X growth", "notes": "the second account"}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let names: Vec<&str> = body["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["default", "x-growth"]);
    assert_eq!(body["profiles"][1]["notes"], "the second account");

    // Every 409 the contract names.
    for (request, says) in [
        (
            json!({"name": "x growth"}),
            "already have a browser profile called x-growth",
        ),
        (
            json!({"name": "default"}),
            "already have a browser profile called default",
        ),
        (json!({"name": "!!!"}), "can't be a profile name"),
        (
            json!({"name": "mine", "kind": "attach"}),
            "debugging address",
        ),
        (
            json!({"name": "far", "kind": "attach", "endpoint": "http://192.168.1.9:9222"}),
            "isn't on this computer",
        ),
        (
            json!({"name": "odd", "engine": "firefox"}),
            "isn't a browser Sentient can use",
        ),
    ] {
        let (status, body) = t
            .client
            .post("/api/browser/profiles", request.clone())
            .await?;
        assert_eq!(status, 409, "{request} gave {body}");
        assert!(
            body["detail"].as_str().unwrap_or_default().contains(says),
            "{request} gave {body}"
        );
    }
    let (status, body) = t
        .client
        .post(
            "/api/browser/profiles",
            json!({"name": "Mine", "kind": "attach", "endpoint": "9333"}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let mine = body["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .find(|p| p["name"] == "mine")
        .cloned();
    assert_eq!(
        mine.as_ref().map(|p| p["endpoint"].clone()),
        Some(json!("http://127.0.0.1:9333"))
    );
    assert_eq!(mine.map(|p| p["kind"].clone()), Some(json!("attach")));

    // A rename moves the folder (its sign-ins) and the tasks that name the profile.
    let folder = t.home().join("browser/profiles/x-growth");
    std::fs::create_dir_all(&folder)?;
    std::fs::write(folder.join("Cookies"), "signed in")?;
    let task =
        crate::task_scheduler::insert(&t, "Post the weekly update", None, TaskStatus::Active, None)
            .await?;
    let patch = TaskPatch {
        browser_profile: Some(Some("x-growth".to_owned())),
        ..TaskPatch::default()
    };
    t.engine
        .tasks()
        .patch_task(&task, patch)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let (status, body) = t
        .client
        .patch("/api/browser/profiles/x-growth", json!({"name": "Growth"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    assert!(t.home().join("browser/profiles/growth/Cookies").is_file());
    assert!(!folder.exists());
    let (_, moved) = t.client.get(&format!("/api/tasks/{task}")).await?;
    assert_eq!(moved["browser_profile"], "growth", "{moved}");
    let (_, settings) = t.client.get("/api/config").await?;
    assert!(settings["browser"]["profiles"].get("x-growth").is_none());
    assert_eq!(
        settings["browser"]["profiles"]["growth"]["notes"],
        "the second account"
    );

    for (path, request, says) in [
        (
            "/api/browser/profiles/default",
            json!({"name": "main"}),
            "can't be renamed",
        ),
        (
            "/api/browser/profiles/growth",
            json!({"name": "mine"}),
            "already have",
        ),
        (
            "/api/browser/profiles/nope",
            json!({"notes": "x"}),
            "no browser profile called nope",
        ),
        (
            "/api/browser/profiles/mine",
            json!({"endpoint": "10.0.0.2:9222"}),
            "isn't on this computer",
        ),
    ] {
        let (status, body) = t.client.patch(path, request.clone()).await?;
        assert_eq!(status, 409, "{path} {request} gave {body}");
        assert!(
            body["detail"].as_str().unwrap_or_default().contains(says),
            "{path} {request} gave {body}"
        );
    }
    let (status, _) = t
        .client
        .patch("/api/browser/profiles/growth", json!({"colour": "red"}))
        .await?;
    assert_eq!(status, 422);

    // A delete takes the folder; default can't go; the task keeps naming it.
    let (status, body) = t.client.delete("/api/browser/profiles/default").await?;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["detail"], "The default profile can't be deleted.");
    let (status, body) = t.client.delete("/api/browser/profiles/growth").await?;
    assert_eq!(status, 200, "{body}");
    assert!(!t.home().join("browser/profiles/growth").exists());
    let (status, _) = t.client.delete("/api/browser/profiles/growth").await?;
    assert_eq!(status, 409);
    let (_, kept) = t.client.get(&format!("/api/tasks/{task}")).await?;
    assert_eq!(kept["browser_profile"], "growth");
    Ok(())
}

/// The checkout the scripted run fills: an address, a password it must not type, and Place
/// order; `/done` records the form as it was sent.
async fn checkout_site(sent: Arc<Mutex<Vec<String>>>) -> Result<String> {
    use axum::extract::RawQuery;
    use axum::response::Html;
    use axum::routing::get;

    let page = r#"<html><head><title>Checkout</title></head><body>
<form action="/done" method="get">
<label for="a">Address</label><input id="a" name="address">
<label for="p">Password</label><input id="p" name="pw" type="password">
<button type="submit">Place order</button>
</form></body></html>"#;
    let app = axum::Router::new()
        .route("/checkout", get(move || async move { Html(page) }))
        .route(
            "/done",
            get(move |RawQuery(query): RawQuery| async move {
                sent.lock_unpoisoned().push(query.unwrap_or_default());
                Html("<title>Thanks</title><p>Order placed</p>")
            }),
        );
    serve_on_loopback(app, "").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_run_fills_the_checkout_and_buys_only_after_allow() -> Result<()> {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let site = checkout_site(sent.clone()).await?;
    let t = TestEngine::start().await?;
    let server = crate::integrations::scripted(&t).await?;
    server.push(Reply::tool_call(
        "browser_open",
        json!({"url": format!("{site}/checkout")}),
    ));
    server.push(Reply::tool_call(
        "browser_type",
        json!({"ref": "e1", "text": "1 Hill Road"}),
    ));
    server.push(Reply::tool_call(
        "browser_type",
        json!({"ref": "e2", "text": "hunter2"}),
    ));
    server.push(Reply::tool_call("browser_click", json!({"ref": "e3"})));
    server.push(Reply::text("Your order is placed."));

    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Order it to 1 Hill Road."}))
        .await?;
    let mut purchase_asked = false;
    let mut results = Vec::new();
    loop {
        let event = tokio::time::timeout(WAIT * 3, ws.next_json()).await??;
        match event["type"].as_str() {
            Some("approval_request") => {
                if event["name"] == "browser_click" {
                    // Approvals are off, yet the purchase asks, and nothing is bought meanwhile.
                    assert_eq!(event["risk_label"], "Purchase", "{event}");
                    assert!(sent.lock_unpoisoned().is_empty(), "bought before Allow");
                    purchase_asked = true;
                }
                ws.send_json(json!({"type": "approval.respond", "approval_id": event["approval_id"], "decision": "allow"}))
                    .await?;
            }
            Some("tool_result") => results.push(event),
            Some("done") => break,
            _ => {}
        }
    }
    assert!(purchase_asked, "Place order asked first");
    let by_name =
        |name: &str| -> Vec<&Value> { results.iter().filter(|r| r["name"] == name).collect() };
    let typed = by_name("browser_type");
    assert_eq!(typed.len(), 2, "{results:?}");
    assert_eq!(
        typed[1]["result"]["needs_user"], "the page asks for your password",
        "{:?}",
        typed[1]
    );
    let clicked = by_name("browser_click");
    assert_eq!(clicked[0]["result"]["ok"], true, "{:?}", clicked[0]);
    // The form went once, with the address and an empty password.
    let sent = sent.lock_unpoisoned().clone();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].contains("address=1+Hill+Road"), "{sent:?}");
    assert!(
        sent[0].contains("pw=&") || sent[0].ends_with("pw="),
        "{sent:?}"
    );
    t.engine.services().browser().close().await;
    Ok(())
}

/// A task run that reaches a password field: typing after reading the page first waits for the
/// person's OK (outside content), and once allowed the field is refused and the run pauses as
/// stuck, naming what the page wants; nothing was typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_run_pauses_at_a_password_field_and_says_what_the_page_wants() -> Result<()> {
    use crate::task_questions::{approved_task, engine, last_run};
    use sentient_e2e::wait_task;
    use sentient_model_server::ScriptedModel;

    let sent = Arc::new(Mutex::new(Vec::new()));
    let site = checkout_site(sent.clone()).await?;
    let server = ScriptedModel::start().await;
    let t = engine(&server, json!({})).await?;
    let id = approved_task(&t, &server, "Sign in to the shop").await?;
    server.push(Reply::tool_call(
        "browser_open",
        json!({"url": format!("{site}/checkout")}),
    ));
    server.push(Reply::tool_call(
        "browser_type",
        json!({"ref": "e2", "text": "hunter2"}),
    ));
    // Typing after reading the page waits for the person, who says yes.
    run_and_allow_typing(&t, &id).await?;

    // The field is the person's: the run asks, naming it.
    let task = wait_task(&t, &id, |t| {
        t["status"] == "waiting_for_user" && last_run(t)["pending_question"]["kind"] == "stuck"
    })
    .await?;
    let question = &last_run(&task)["pending_question"];
    assert_eq!(
        question["reason"], "the page asks for your password",
        "{question}"
    );
    assert_eq!(
        question["question"],
        "I'm stuck: the page asks for your password. What should I do?"
    );
    assert!(sent.lock_unpoisoned().is_empty(), "nothing was submitted");
    t.engine.services().browser().close().await;
    t.stop().await;
    Ok(())
}

/// Runs the task now; its typing after reading a page waits for the person's OK (outside
/// content), which is given. Returns the run's id.
async fn run_and_allow_typing(t: &TestEngine, id: &str) -> Result<String> {
    use crate::task_questions::last_run;
    use sentient_e2e::wait_task;

    let (_, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    let run_id = last_run(&task)["run_id"].as_str().expect("run").to_owned();
    let task = wait_task(t, id, |t| t["status"] == "waiting_for_user").await?;
    let held = &last_run(&task)["pending_question"];
    assert_eq!(
        held["options"],
        json!(["Yes, go ahead", "No, stop the task"]),
        "{held}"
    );
    t.client
        .post(
            &format!("/api/tasks/{id}/runs/{run_id}/answer"),
            json!({"answer": "Yes, go ahead"}),
        )
        .await?;
    Ok(run_id)
}

/// A sign-in page asking for a one-time code (the whole top half is the field, so a tap in the
/// live view lands on it); `/welcome` records what was sent.
async fn code_site(sent: Arc<Mutex<Vec<String>>>) -> Result<String> {
    use axum::extract::RawQuery;
    use axum::response::Html;
    use axum::routing::get;

    let page = r#"<html><head><title>Verify it's you</title></head><body>
<form action="/welcome" method="get">
<label for="otp">Code</label>
<input id="otp" name="otp" autocomplete="one-time-code" style="position:absolute;left:0;top:0;width:100%;height:50%;font-size:40px">
</form></body></html>"#;
    let app = axum::Router::new()
        .route("/login", get(move || async move { Html(page) }))
        .route(
            "/welcome",
            get(move |RawQuery(query): RawQuery| async move {
                sent.lock_unpoisoned().push(query.unwrap_or_default());
                Html("<title>Welcome</title><p>Signed in</p>")
            }),
        );
    serve_on_loopback(app, "").await
}

/// The hand-off: a task run meets a one-time-code field and pauses; a phone paired over the
/// LAN door hears about it, shows the page, taps the field and types the code through the
/// live view, and the run carries on by itself. The code reaches no model request, no
/// transcript and no log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_types_the_code_through_the_live_view_and_the_run_carries_on() -> Result<()> {
    use crate::devices::{lan_on, lan_socket, next_of_type, pair, say};
    use crate::task_questions::{approved_task, engine, last_run};
    use sentient_e2e::sentient_engine::node::pinned;
    use sentient_e2e::wait_task;
    use sentient_model_server::ScriptedModel;

    const CODE: &str = "482913";
    let sent = Arc::new(Mutex::new(Vec::new()));
    let site = code_site(sent.clone()).await?;
    let server = ScriptedModel::start().await;
    let t = engine(&server, json!({})).await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let mut phone = lan_socket(port, &fingerprint).await?;
    let (_, token) = pair(&t, &mut phone, "Ana's phone", &["notify.show"]).await?;
    let lan = reqwest::Client::builder()
        .use_preconfigured_tls((*pinned::client_config(Some(&fingerprint))).clone())
        .build()?;
    let door = format!("https://127.0.0.1:{port}");

    let id = approved_task(&t, &server, "Sign in to the shop").await?;
    server.push(Reply::tool_call(
        "browser_open",
        json!({"url": format!("{site}/login")}),
    ));
    server.push(Reply::tool_call(
        "browser_type",
        json!({"ref": "e1", "text": "000000"}),
    ));
    server.push(Reply::tool_call("browser_snapshot", json!({})));
    server.push(Reply::text("You're signed in."));
    // Typing after reading a page waits for the person's OK first (outside content).
    run_and_allow_typing(&t, &id).await?;

    // The phone is told, with an Open action for its live view.
    let notice = next_of_type(&mut phone, "invoke").await?;
    assert_eq!(notice["capability"], "notify.show", "{notice}");
    assert_eq!(notice["params"]["action"]["kind"], "browser_live_view");
    assert!(
        notice["params"]["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("The page asks for a one-time code on 127.0.0.1"),
        "{notice}"
    );
    say(
        &mut phone,
        json!({"type": "result", "id": notice["id"], "ok": true, "data": {"shown": true}}),
    )
    .await?;
    let task = wait_task(&t, &id, |t| {
        t["status"] == "waiting_for_user" && last_run(t)["pending_question"]["kind"] == "stuck"
    })
    .await?;
    assert_eq!(
        last_run(&task)["pending_question"]["reason"],
        "the page asks for a one-time code"
    );
    let (_, status) = t.client.get("/api/browser/status").await?;
    assert_eq!(status["needs_you"]["task_id"], id.as_str(), "{status}");

    // Only with the device's token.
    let refused = lan
        .get(format!("{door}/api/nodes/browser/frame"))
        .send()
        .await?;
    assert_eq!(refused.status(), 401);
    let picture = lan
        .get(format!("{door}/api/nodes/browser/frame"))
        .bearer_auth(&token)
        .send()
        .await?;
    assert_eq!(picture.status(), 200);
    assert_eq!(picture.headers()["content-type"], "image/jpeg");
    assert_eq!(&picture.bytes().await?[..2], &[0xFF, 0xD8]);
    let input = |body: Value| {
        lan.post(format!("{door}/api/nodes/browser/input"))
            .bearer_auth(&token)
            .json(&body)
            .send()
    };
    let bad = input(json!({"kind": "tap", "x": 3, "y": 0.2})).await?;
    assert_eq!(bad.status(), 400);
    assert!(
        input(json!({"kind": "tap", "x": 0.5, "y": 0.25}))
            .await?
            .status()
            .is_success()
    );
    assert!(
        input(json!({"kind": "text", "text": CODE}))
            .await?
            .status()
            .is_success()
    );

    // The page moved on (the field filled), so the run carries on by itself and finishes.
    let task = wait_task(&t, &id, |t| last_run(t)["status"] == "completed").await?;
    assert_eq!(
        last_run(&task)["result"]["summary"],
        "You're signed in.",
        "{task}"
    );
    let gone = lan
        .get(format!("{door}/api/nodes/browser/frame"))
        .bearer_auth(&token)
        .send()
        .await?;
    assert_eq!(gone.status(), 409, "the phone's view closes");

    // The code is nowhere but the page: not in a model request, the task, the database or a log.
    for request in server.requests() {
        assert!(
            !request.body.to_string().contains(CODE),
            "a model request had the code"
        );
    }
    assert!(!task.to_string().contains(CODE));
    t.engine.services().browser().close().await;
    let home = t.home().to_path_buf();
    let _kept = t.stop().await;
    for entry in walk(&home)? {
        if entry.starts_with(home.join("browser")) {
            continue; // the browser's own profile is the person's, as after typing it themselves
        }
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !bytes.windows(CODE.len()).any(|w| w == CODE.as_bytes()),
            "{} holds the code",
            entry.display()
        );
    }
    Ok(())
}

/// Every file under `root`.
fn walk(root: &std::path::Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    Ok(files)
}

/// Stop everything while the browser waits on a slow page: the call ends at once with
/// `Stopped.`, the page stops loading, and the browser stays open for the next call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_everything_ends_a_slow_page_load_and_the_browser_stays() -> Result<()> {
    use axum::response::Html;
    use axum::routing::get;

    let app = axum::Router::new()
        .route(
            "/quick",
            get(|| async { Html("<title>Quick</title><p>Here</p>") }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(20)).await;
                Html("<title>Slow</title><p>At last</p>")
            }),
        );
    let site = serve_on_loopback(app, "").await?;
    let t = TestEngine::start().await?;
    let server = crate::integrations::scripted(&t).await?;
    server.push(Reply::tool_call(
        "browser_open",
        json!({"url": format!("{site}/quick")}),
    ));
    server.push(Reply::tool_call(
        "browser_open",
        json!({"url": format!("{site}/slow")}),
    ));

    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Open the slow page."}))
        .await?;
    let mut calls = 0;
    let stopped_at = loop {
        let event = tokio::time::timeout(WAIT * 3, ws.next_json()).await??;
        if event["type"] == "tool_call" && event["name"] == "browser_open" {
            calls += 1;
            if calls == 2 {
                // Give the page time to be on its way, then stop everything.
                tokio::time::sleep(std::time::Duration::from_millis(800)).await;
                let (status, _) = t
                    .client
                    .post("/api/stop-all", json!({"source": "desktop"}))
                    .await?;
                assert_eq!(status, 200);
                break std::time::Instant::now();
            }
        }
    };
    let mut ended = None;
    loop {
        let event = tokio::time::timeout(WAIT, ws.next_json()).await??;
        match event["type"].as_str() {
            Some("tool_result") if event["name"] == "browser_open" => {
                assert_eq!(event["is_error"], true, "{event}");
                assert!(event["result"].to_string().contains("Stopped"), "{event}");
                ended = Some(stopped_at.elapsed());
            }
            Some("done" | "error" | "cancelled") => break,
            _ => {}
        }
    }
    let ended = ended.expect("the call ended with a result");
    assert!(
        ended < std::time::Duration::from_secs(3),
        "the call ended {ended:?} after Stop everything"
    );
    // The browser stays, on the page it had, and not still loading the slow one.
    let (_, status) = t.client.get("/api/browser/status").await?;
    assert_eq!(status["running"], true, "{status}");
    let tabs = status["tabs"].as_array().cloned().unwrap_or_default();
    assert!(
        tabs.iter()
            .all(|t| !t["url"].as_str().unwrap_or_default().ends_with("/slow")),
        "{status}"
    );
    // The next call is not held up behind the abandoned page.
    t.client.post("/api/resume", json!({})).await?;
    server.push(Reply::tool_call(
        "browser_open",
        json!({"url": format!("{site}/quick")}),
    ));
    server.push(Reply::text("Open again."));
    let started = std::time::Instant::now();
    ws.send_json(json!({"type": "chat.send", "text": "Open the quick page."}))
        .await?;
    let mut reopened = false;
    loop {
        let event = tokio::time::timeout(WAIT, ws.next_json()).await??;
        if event["type"] == "tool_result" {
            assert_eq!(event["result"]["title"], "Quick", "{event}");
            reopened = true;
        }
        if event["type"] == "done" {
            break;
        }
    }
    assert!(reopened, "the second turn opened the page");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "the next page took {:?}",
        started.elapsed()
    );
    let closing = std::time::Instant::now();
    t.engine.services().browser().close().await;
    assert!(closing.elapsed() < std::time::Duration::from_secs(8));
    Ok(())
}
