//! What probing the engine as an attacker and a careless client found (issue 15), kept as tests:
//! hostile search text, parallel uploads and saves, private files, foreign Origin and Host.

use anyhow::Result;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use sentient_e2e::{TestEngine, send};
use serde_json::{Value, json};

#[tokio::test]
async fn hostile_search_text_answers_results_or_an_empty_list() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, task) = t
        .client
        .post("/api/tasks", json!({"prompt": "Summarise the week"}))
        .await?;
    assert_eq!(status, 200, "{task}");
    let id = task["task_id"].as_str().expect("task id");
    let (status, body) = t
        .client
        .patch(
            &format!("/api/tasks/{id}"),
            json!({"notepad": "- weekly figures"}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    for q in [
        "%00",
        "a%00b",
        "%22",
        "*",
        "NEAR(a%20b)",
        "name:x",
        "-",
        "%01%7F",
        "(",
        "AND",
    ] {
        for path in ["/api/tasks?q=", "/api/sessions/search?q="] {
            let (status, body) = t.client.get(&format!("{path}{q}")).await?;
            assert_eq!(status, 200, "{path}{q}: {body}");
        }
    }
    let (_, found) = t.client.get("/api/tasks?q=weekly%00").await?;
    assert_eq!(
        found[0]["task_id"], id,
        "the word before the NUL still finds the task: {found}"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_nameless_import_is_refused_with_the_services_sentence() -> Result<()> {
    let t = TestEngine::start().await?;
    for name in ["", "   "] {
        let part = Part::bytes(b"I keep bees.".to_vec()).file_name(name.to_owned());
        let (status, body) = send(
            t.client
                .request(Method::POST, "/api/memories/import")
                .multipart(Form::new().part("file", part)),
        )
        .await?;
        assert_eq!(
            (status, body),
            (
                400,
                json!({"detail": "The file has no name, so Sentient can't tell what kind it is."})
            ),
            "{name:?}"
        );
    }
    t.stop().await;
    Ok(())
}

fn upload(t: &TestEngine, name: &str, bytes: &[u8]) -> reqwest::RequestBuilder {
    let part = Part::bytes(bytes.to_vec()).file_name(name.to_owned());
    t.client
        .request(Method::POST, "/api/files")
        .multipart(Form::new().part("file", part))
}

#[tokio::test]
async fn parallel_and_long_named_uploads_all_succeed() -> Result<()> {
    let t = TestEngine::start().await?;
    let answers = futures::future::join_all(
        (0..20).map(|i| send(upload(&t, "same.txt", format!("copy {i}").as_bytes()))),
    )
    .await;
    let mut names = std::collections::BTreeSet::new();
    for answer in answers {
        let (status, body) = answer?;
        assert_eq!(status, 200, "{body}");
        names.insert(body["name"].as_str().expect("name").to_owned());
    }
    assert_eq!(names.len(), 20, "distinct names: {names:?}");
    assert!(
        names.contains("same.txt") && names.contains("same (19).txt"),
        "{names:?}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(t.home().join("files/uploads"))?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary files stay: {leftovers:?}"
    );

    for length in [245, 255, 400] {
        let name = format!("{}.csv", "r".repeat(length));
        let (status, body) = send(upload(&t, &name, b"a,b")).await?;
        assert_eq!(status, 200, "a {length}-byte name: {body}");
        let saved = body["name"].as_str().expect("name");
        assert!(saved.len() <= 255 && saved.ends_with(".csv"), "{saved}");
        let read = t
            .client
            .request(Method::GET, &format!("/api/files/content/{saved}"))
            .send()
            .await?;
        assert_eq!(read.status(), 200, "{saved} reads back");
    }
    t.stop().await;
    Ok(())
}

/// Every folder under `root` is 0700 and every file 0600; lists what is not.
#[cfg(unix)]
fn loose_modes(root: &std::path::Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut loose = Vec::new();
    let mut folders = vec![root.to_owned()];
    while let Some(dir) = folders.pop() {
        let mode = std::fs::metadata(&dir).map_or(0, |m| m.permissions().mode() & 0o777);
        if mode != 0o700 {
            loose.push(format!("{} {mode:o}", dir.display()));
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                folders.push(entry.path());
            } else if meta.permissions().mode() & 0o777 != 0o600 {
                let mode = meta.permissions().mode() & 0o777;
                loose.push(format!("{} {mode:o}", entry.path().display()));
            }
        }
    }
    loose
}

/// A real `sentient serve` on a fresh home: 40 parallel onboardings and settings saves all
/// succeed, the home and everything in it is the owner's only, and temporary files a crash left
/// are gone at the next start.
#[cfg(unix)]
#[tokio::test]
async fn the_home_is_private_and_parallel_workspace_writes_succeed() -> Result<()> {
    use sentient_e2e::ServedEngine;
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let token = "private-home-token";
    let mut served = ServedEngine::start(&home, token).await?;
    let client = &served.client;
    let onboardings = futures::future::join_all((0..40).map(|i| {
        client.post(
            "/api/onboarding",
            json!({"user_name": format!("Person {i}"), "timezone": "UTC"}),
        )
    }))
    .await;
    for answer in onboardings {
        let (status, body) = answer?;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = send(
        client
            .request(Method::POST, "/api/files")
            .multipart(Form::new().part("file", Part::bytes(b"hi".to_vec()).file_name("a.txt"))),
    )
    .await?;
    assert_eq!(status, 200, "{body}");
    let user_md = std::fs::read_to_string(home.join("workspace/USER.md"))?;
    assert!(user_md.contains("Person"), "{user_md}");
    let loose = loose_modes(&home);
    assert!(loose.is_empty(), "not private: {loose:#?}");

    served.child.start_kill()?;
    served.child.wait().await?;
    std::fs::write(home.join(".config.yaml.4242.tmp"), "half a file")?;
    std::fs::write(home.join("workspace/.sentient-k1ll3d.tmp"), "half a file")?;
    let mut again = ServedEngine::start(&home, token).await?;
    let (status, _) = again.client.get("/api/config").await?;
    assert_eq!(status, 200);
    assert!(!home.join(".config.yaml.4242.tmp").exists());
    assert!(!home.join("workspace/.sentient-k1ll3d.tmp").exists());
    again.child.start_kill()?;
    again.child.wait().await?;
    Ok(())
}

/// The task's status, read until `done` says yes (at most 30 s).
async fn wait_status(client: &sentient_e2e::Client, id: &str, status: &str) -> Result<Value> {
    sentient_e2e::eventually(&format!("task {id} {status}"), || async {
        let (code, task) = client.get(&format!("/api/tasks/{id}")).await?;
        Ok((code == 200 && task["status"] == status).then_some(task))
    })
    .await
}

fn refinement() -> sentient_model_server::Reply {
    sentient_model_server::Reply::text(
        json!({"name": "Note", "description": "Write a note.", "priority": 1, "schedule": null})
            .to_string(),
    )
}

fn plan() -> sentient_model_server::Reply {
    sentient_model_server::Reply::text(
        json!({"plan": [{"tool": "time_now", "description": "Check the time"}]}).to_string(),
    )
}

/// A task whose planning a SIGTERM or a kill -9 interrupted is planned again at the next start;
/// one interrupted while Stop everything is on waits for Resume.
#[cfg(unix)]
#[tokio::test]
async fn a_task_interrupted_while_planning_is_planned_again() -> Result<()> {
    use sentient_e2e::ServedEngine;
    use sentient_model_server::{Reply, ScriptedModel};
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let token = "planning-restart-token";
    for (how, stopped) in [("TERM", false), ("KILL", false), ("KILL", true)] {
        let mut first = ServedEngine::start(&home, token).await?;
        sentient_e2e::point_served_models_at(&first.client, &server).await?;
        if stopped {
            // Planning is something the person starts, so it works while stopped.
            let (code, body) = first.client.post("/api/stop-all", json!({})).await?;
            assert_eq!(code, 200, "{body}");
        }
        let asked = server.requests_to("/api/chat").len();
        server.push(refinement());
        server.push(Reply::stall_after(1));
        let (code, created) = first
            .client
            .post("/api/tasks", json!({"prompt": "Write a note"}))
            .await?;
        assert_eq!(code, 200, "{created}");
        let id = created["task_id"].as_str().expect("id").to_owned();
        sentient_e2e::wait_chats(&server, asked + 2).await?;
        if how == "KILL" {
            first.child.start_kill()?;
            first.child.wait().await?;
        } else {
            let pid = first.child.id().expect("running").to_string();
            let status = std::process::Command::new("kill")
                .args(["-TERM", &pid])
                .status()?;
            assert!(status.success());
            first.child.wait().await?;
        }
        server.push(refinement());
        server.push(plan());
        let second = ServedEngine::start(&home, token).await?;
        if stopped {
            let (_, task) = second.client.get(&format!("/api/tasks/{id}")).await?;
            assert_eq!(
                task["status"], "planning",
                "nothing is planned while stopped: {task}"
            );
            let (code, body) = second.client.post("/api/resume", json!({})).await?;
            assert_eq!(code, 200, "{body}");
        }
        let planned = wait_status(&second.client, &id, "approval_pending").await?;
        assert_eq!(
            planned["plan"][0]["tool"], "time_now",
            "after {how}: {planned}"
        );
        let mut second = second;
        second.child.start_kill()?;
        second.child.wait().await?;
    }
    Ok(())
}

/// 50 clients save settings at once: every save succeeds with its own change in its answer, and
/// the saves waiting behind the writer are merged (fewer `config.updated` than saves).
#[tokio::test]
async fn settings_saves_from_fifty_clients_all_land() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let answers = futures::future::join_all((0..50).map(|i| {
        t.client.patch(
            "/api/config",
            json!({"assistant": {"location": format!("Place {i}")}}),
        )
    }))
    .await;
    for (i, answer) in answers.into_iter().enumerate() {
        let (status, body) = answer?;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["config"]["assistant"]["location"],
            format!("Place {i}")
        );
    }
    // A marker save after the burst: every event before it belongs to the burst.
    let (status, _) = t
        .client
        .patch("/api/config", json!({"ui": {"theme": "light"}}))
        .await?;
    assert_eq!(status, 200);
    let mut burst_events = 0;
    loop {
        let event = ws.wait_for("config.updated").await?;
        if event["data"]["sections"] == json!(["ui"]) {
            break;
        }
        burst_events += 1;
    }
    assert!((1..=50).contains(&burst_events), "{burst_events} events");
    let (_, config) = t.client.get("/api/config").await?;
    assert!(
        config["assistant"]["location"]
            .as_str()
            .is_some_and(|l| l.starts_with("Place ")),
        "{config}"
    );
    t.stop().await;
    Ok(())
}

/// Small refusals: a priority outside 0 to 2 and a script answer 400 with a sentence, and change
/// nothing.
#[tokio::test]
async fn bad_task_fields_answer_400_and_change_nothing() -> Result<()> {
    let t = TestEngine::start().await?;
    let (_, task) = t
        .client
        .post("/api/tasks", json!({"prompt": "Water the plants"}))
        .await?;
    let id = task["task_id"].as_str().expect("id");
    let before = task["priority"].clone();
    for priority in [-7, 3, 100] {
        let (status, body) = t
            .client
            .patch(&format!("/api/tasks/{id}"), json!({"priority": priority}))
            .await?;
        assert_eq!(status, 400, "{priority}: {body}");
        assert!(
            body["detail"]
                .as_str()
                .is_some_and(|d| d.contains("0 (low)")),
            "{body}"
        );
    }
    let (status, body) = t
        .client
        .patch(
            &format!("/api/tasks/{id}"),
            json!({"script": "print('hi')"}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["detail"],
        "script is an object with code, condition and then, or null."
    );
    let (_, after) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(after["priority"], before);
    assert_eq!(
        after["script"],
        Value::Null,
        "a wrong script changes nothing"
    );
    assert_eq!(after["task_type"], "single");
    let (status, _) = t
        .client
        .patch(&format!("/api/tasks/{id}"), json!({"priority": 2}))
        .await?;
    assert_eq!(status, 200);
    t.stop().await;
    Ok(())
}

/// A WebSocket upgrade to `/ws` with the token and `origin`, answered with its HTTP status.
async fn upgrade_status(t: &TestEngine, origin: Option<&str>) -> Result<u16> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let url = t
        .client
        .url(&format!("/ws?token={}", t.client.token()))
        .replacen("http://", "ws://", 1);
    let mut request = url.into_client_request()?;
    if let Some(origin) = origin {
        request.headers_mut().insert("origin", origin.parse()?);
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((_, response)) => Ok(response.status().as_u16()),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Ok(response.status().as_u16())
        }
        Err(other) => Err(other.into()),
    }
}

/// Requests addressed to another name, and sockets opened from a foreign page, answer 403 even
/// with the token; the window, scripts and pages on this computer get through.
#[tokio::test]
async fn foreign_hosts_and_origins_are_refused() -> Result<()> {
    let t = TestEngine::start().await?;
    let with_host = |host: &str| {
        t.client
            .request(Method::PATCH, "/api/config")
            .header("host", host)
            .json(&json!({"ui": {"theme": "light"}}))
    };
    let (status, body) = send(with_host("evil.example")).await?;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        body["detail"],
        "Sentient only answers requests addressed to this computer, not to evil.example."
    );
    let (status, _) = send(with_host("evil.example:80")).await?;
    assert_eq!(status, 403);
    let (_, config) = t.client.get("/api/config").await?;
    assert_ne!(
        config["ui"]["theme"], "light",
        "the refused save changed nothing"
    );
    let port = t.engine.services().addr().port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "[::1]".to_owned(),
    ] {
        let (status, body) = send(with_host(&host)).await?;
        assert_eq!(status, 200, "{host}: {body}");
    }

    assert_eq!(upgrade_status(&t, Some("http://evil.example")).await?, 403);
    assert_eq!(upgrade_status(&t, None).await?, 101);
    assert_eq!(upgrade_status(&t, Some("tauri://localhost")).await?, 101);
    let own = format!("http://127.0.0.1:{port}");
    assert_eq!(upgrade_status(&t, Some(&own)).await?, 101);

    // A foreign page's preflight learns nothing it could use.
    let preflight = t
        .client
        .anonymous(Method::OPTIONS, "/api/config")
        .header("origin", "http://evil.example")
        .header("access-control-request-method", "PATCH")
        .send()
        .await?;
    assert_eq!(preflight.status(), 403);
    assert!(
        !preflight
            .headers()
            .keys()
            .any(|k| k.as_str().starts_with("access-control-allow")),
        "{:?}",
        preflight.headers()
    );
    t.stop().await;
    Ok(())
}

/// One writer per kind of write, each waiting for its answer before the next: the last value it
/// saw acknowledged, and the one it was sending when the engine died.
#[derive(Default)]
struct Writes {
    acknowledged: Vec<String>,
    in_flight: Option<String>,
}

/// Writes of every kind go on while `sentient serve` is killed with SIGKILL; after a restart on
/// the same home every acknowledged write is there (hooks and chats made, settings and notes
/// saved, notifications marked read), and a write in flight is either there whole or not at all.
#[cfg(unix)]
#[tokio::test]
async fn every_acknowledged_write_survives_kill_9() -> Result<()> {
    use sentient_e2e::ServedEngine;
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home)?;
    // Models at a closed loopback port, not queued behind each other: planning fails at once
    // and leaves a notification.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    std::fs::write(
        home.join("config.yaml"),
        format!(
            "models:\n  local_queue: false\n  providers:\n    ollama_chat:\n      api_base: http://{closed}\n    ollama:\n      api_base: http://{closed}\n"
        ),
    )?;
    let token = "crash-burst-token";
    let mut first = ServedEngine::start(&home, token).await?;
    let client = first.client.clone();
    let (_, task) = client
        .post("/api/tasks", json!({"prompt": "Daily digest"}))
        .await?;
    let task_id = task["task_id"].as_str().expect("task").to_owned();
    for prompt in ["One", "Two", "Three"] {
        client.post("/api/tasks", json!({"prompt": prompt})).await?;
    }
    let notifications: Vec<String> = sentient_e2e::eventually("notifications", || async {
        let (_, list) = client.get("/api/notifications").await?;
        let ids: Vec<String> = list["notifications"]
            .as_array()
            .or_else(|| list.as_array())
            .map(|l| {
                l.iter()
                    .filter_map(|n| n["id"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Ok((ids.len() >= 3).then_some(ids))
    })
    .await?;

    let kinds = ["hook", "session", "config", "notepad", "read"];
    let writes: Arc<Mutex<Vec<Writes>>> = Arc::new(Mutex::new(
        kinds.iter().map(|_| Writes::default()).collect(),
    ));
    let writers: Vec<_> = kinds
        .iter()
        .enumerate()
        .map(|(k, kind)| {
            let (client, writes, task_id) = (client.clone(), writes.clone(), task_id.clone());
            let notifications = notifications.clone();
            let kind = *kind;
            tokio::spawn(async move {
                for n in 0.. {
                    let value = format!("{kind}-{n}");
                    let answer = match kind {
                        "hook" => client.post("/api/hooks", json!({"name": value})).await,
                        "session" => client.post("/api/sessions", json!({})).await,
                        "config" => {
                            client
                                .patch("/api/config", json!({"assistant": {"location": value}}))
                                .await
                        }
                        "notepad" => {
                            client
                                .patch(&format!("/api/tasks/{task_id}"), json!({"notepad": value}))
                                .await
                        }
                        _ => {
                            let Some(id) = notifications.get(n) else {
                                break;
                            };
                            client
                                .post(&format!("/api/notifications/{id}/read"), json!({}))
                                .await
                        }
                    };
                    let saved = match (&answer, kind) {
                        (Ok((200, body)), "hook") => body["id"].as_str().map(str::to_owned),
                        (Ok((200, body)), "session") => {
                            body["session_id"].as_str().map(str::to_owned)
                        }
                        (Ok((200, _)), "read") => notifications.get(n).cloned(),
                        (Ok((200, _)), _) => Some(value.clone()),
                        _ => None,
                    };
                    let mut all = writes.lock().expect("lock");
                    match saved {
                        Some(saved) => all[k].acknowledged.push(saved),
                        None => {
                            all[k].in_flight = Some(value);
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    // Let the writers get going, then kill the engine mid-burst.
    sentient_e2e::eventually("a burst of writes", || async {
        let all = writes.lock().expect("lock");
        Ok(all
            .iter()
            .take(4)
            .all(|w| w.acknowledged.len() >= 5)
            .then_some(()))
    })
    .await?;
    first.child.start_kill()?;
    first.child.wait().await?;
    for writer in writers {
        writer.await?;
    }

    let second = ServedEngine::start(&home, token).await?;
    let c = &second.client;
    let all = std::mem::take(&mut *writes.lock().expect("lock"));
    let (_, hooks) = c.get("/api/hooks").await?;
    let hook_ids: Vec<&str> = hooks
        .as_array()
        .expect("hooks")
        .iter()
        .filter_map(|h| h["id"].as_str())
        .collect();
    for id in &all[0].acknowledged {
        assert!(
            hook_ids.contains(&id.as_str()),
            "hook {id} was acknowledged and is gone"
        );
    }
    let (_, sessions) = c.get("/api/sessions?limit=1000").await?;
    let session_ids: Vec<String> = sessions
        .as_array()
        .or_else(|| sessions["sessions"].as_array())
        .expect("sessions")
        .iter()
        .filter_map(|s| {
            s["session_id"]
                .as_str()
                .or_else(|| s["id"].as_str())
                .map(str::to_owned)
        })
        .collect();
    for id in &all[1].acknowledged {
        assert!(
            session_ids.contains(id),
            "chat {id} was acknowledged and is gone"
        );
    }
    let last_or_in_flight = |w: &Writes, now: &str| {
        w.acknowledged.last().map(String::as_str) == Some(now)
            || w.in_flight.as_deref() == Some(now)
    };
    let (_, config) = c.get("/api/config").await?;
    let location = config["assistant"]["location"].as_str().unwrap_or_default();
    assert!(last_or_in_flight(&all[2], location), "settings: {location}");
    let (_, task) = c.get(&format!("/api/tasks/{task_id}")).await?;
    let notes = task["notepad"].as_str().unwrap_or_default();
    assert!(last_or_in_flight(&all[3], notes), "notes: {notes}");
    let (_, list) = c.get("/api/notifications").await?;
    let read: Vec<String> = list["notifications"]
        .as_array()
        .or_else(|| list.as_array())
        .expect("notifications")
        .iter()
        .filter(|n| n["read"] == true)
        .filter_map(|n| n["id"].as_str().map(str::to_owned))
        .collect();
    for id in &all[4].acknowledged {
        assert!(
            read.contains(id),
            "notification {id} was marked read and is unread again"
        );
    }
    let mut second = second;
    second.child.start_kill()?;
    second.child.wait().await?;
    Ok(())
}
