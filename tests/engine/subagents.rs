//! Helpers (contract section 10, "Subagents") with the scripted model: a foreground helper's
//! summary, files and live progress in the chat; a background helper's summary joining the chat
//! with a notification; `delegate_tasks`; what a helper may not do (send or run code, start
//! helpers, tools it was not given); its step limit; cancel by the route and Stop everything;
//! the routes' 404s; and a helper cut off by a restart.

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};

use sentient_e2e::{TestEngine, WAIT, eventually};
use sentient_model_server::{Reply, ScriptedModel};

use crate::integrations::{chat, scripted, tool_result};

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn session_of(events: &[Value]) -> Result<String> {
    events
        .iter()
        .find_map(|e| e["session_id"].as_str())
        .map(str::to_owned)
        .context("no session id in the events")
}

async fn engine() -> Result<(TestEngine, ScriptedModel)> {
    let t = TestEngine::start().await?;
    let model = scripted(&t).await?;
    Ok((t, model))
}

async fn helpers_of(t: &TestEngine, session: &str) -> Result<Vec<Value>> {
    let (status, list) = t
        .client
        .get(&format!("/api/sessions/{session}/subagents"))
        .await?;
    ensure!(status == 200, "{status} {list}");
    Ok(list.as_array().cloned().unwrap_or_default())
}

/// The acceptance's first half: a foreground helper works with its own tools, the chat sees
/// its steps as `tool_progress` of kind `subagent`, and the parent gets its summary and files.
#[tokio::test]
async fn a_foreground_helper_reports_its_summary_files_and_steps() -> Result<()> {
    let (t, model) = engine().await?;
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Write the packing list", "context": "Two nights in Pune."}),
    ));
    model.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/packing.md", "content": "- toothbrush"}),
    ));
    model.push(Reply::text("Saved a packing list for two nights."));
    model.push(Reply::text("Your helper saved the packing list."));
    let events = chat(&t, "Make me a packing list").await?;
    let session = session_of(&events)?;

    let delegated = tool_result(&events, "delegate_task")?;
    let result = &delegated["result"];
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["summary"], "Saved a packing list for two nights.");
    assert_eq!(result["files_created"], json!(["outputs/packing.md"]));
    let id = result["subagent_id"].as_str().context("id")?.to_owned();
    assert!(t.home().join("files/outputs/packing.md").exists());

    // The helper's steps reached the chat while it worked.
    let steps: Vec<&Value> = of_type(&events, "tool_progress")
        .into_iter()
        .filter(|e| e["kind"] == "subagent")
        .collect();
    ensure!(!steps.is_empty(), "no subagent progress: {events:#?}");
    for step in &steps {
        assert_eq!(step["data"]["subagent_id"], id.as_str());
        assert_eq!(step["call_id"], delegated["call_id"]);
        assert!(
            step["data"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    // The helper was told the goal and the context, and used the executor's tools.
    let helper_request = model
        .requests_to("/api/chat")
        .into_iter()
        .nth(1)
        .context("the helper's first request")?;
    let body = helper_request.body.to_string();
    assert!(body.contains("Write the packing list") && body.contains("Two nights in Pune."));
    assert!(
        !body.contains("\"delegate_task\""),
        "a helper is never offered helpers"
    );

    // Its row, with its log, and the updates without it.
    let list = helpers_of(&t, &session).await?;
    assert_eq!(list.len(), 1, "{list:?}");
    let helper = &list[0];
    assert_eq!(helper["subagent_id"], id.as_str());
    assert_eq!(helper["goal"], "Write the packing list");
    assert_eq!(helper["status"], "completed");
    assert_eq!(helper["background"], false);
    assert_eq!(helper["tool_calls"], 1);
    assert_eq!(helper["parent_call_id"], delegated["call_id"]);
    assert!(helper["finished_at"].is_string());
    let log = helper["events"].as_array().context("events")?;
    assert!(
        log.iter()
            .any(|e| e["message"]["type"] == "tool_call"
                && e["message"]["tool_name"] == "files_write")
    );
    assert_eq!(
        log.last().context("last")?["message"]["type"],
        "final_answer"
    );
    let (status, one) = t.client.get(&format!("/api/subagents/{id}")).await?;
    assert_eq!(status, 200);
    assert_eq!(one["summary"], "Saved a packing list for two nights.");
    let updates = of_type(&events, "subagent.updated");
    let statuses: Vec<&str> = updates
        .iter()
        .filter_map(|e| e["data"]["status"].as_str())
        .collect();
    assert_eq!(statuses, ["running", "completed"], "{updates:?}");
    assert!(updates.iter().all(|e| e["data"].get("events").is_none()));
    t.stop().await;
    Ok(())
}

/// The acceptance: a background helper answers at once, and its summary reaches the chat as an
/// assistant message with a notification once it ends.
#[tokio::test]
async fn a_background_helpers_summary_joins_the_chat_with_a_notification() -> Result<()> {
    let (t, model) = engine().await?;
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Compare three train times", "background": true}),
    ));
    model.push(Reply::text(
        "I've asked a helper; I'll tell you when it's done.",
    ));
    model.push(Reply::text("The 07:10 train is the fastest."));
    let events = chat(&t, "Find me the fastest train").await?;
    let session = session_of(&events)?;
    let result = &tool_result(&events, "delegate_task")?["result"];
    assert_eq!(result["status"], "running", "{result}");
    let id = result["subagent_id"].as_str().context("id")?.to_owned();

    let helper = eventually("the helper finishing", || async {
        let (_, h) = t.client.get(&format!("/api/subagents/{id}")).await?;
        Ok((h["status"] == "completed").then_some(h))
    })
    .await?;
    assert_eq!(helper["summary"], "The 07:10 train is the fastest.");
    assert_eq!(helper["background"], true);
    let messages = eventually("the summary in the chat", || async {
        let (_, m) = t
            .client
            .get(&format!("/api/sessions/{session}/messages"))
            .await?;
        let found = m.as_array().cloned().unwrap_or_default();
        Ok(found
            .iter()
            .any(|m| {
                m["role"] == "assistant"
                    && m["content"]
                        .as_str()
                        .is_some_and(|c| c.contains("The 07:10 train is the fastest."))
            })
            .then_some(found))
    })
    .await?;
    assert!(messages.len() >= 3, "{messages:?}");
    let notification = eventually("the notification", || async {
        let (_, feed) = t.client.get("/api/notifications").await?;
        Ok(feed["notifications"].as_array().and_then(|n| {
            n.iter()
                .find(|n| n["payload"]["subagent_id"] == id.as_str())
                .cloned()
        }))
    })
    .await?;
    assert!(
        notification["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("A helper finished"))
    );
    assert_eq!(notification["message"], "The 07:10 train is the fastest.");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn delegate_tasks_runs_every_goal_and_returns_every_summary() -> Result<()> {
    let (t, model) = engine().await?;
    t.client
        .patch("/api/config", json!({"subagents": {"max_concurrent": 2}}))
        .await?;
    model.push(Reply::tool_call(
        "delegate_tasks",
        json!({"tasks": [{"goal": "Hotels in Goa"}, {"goal": "Flights to Goa", "context": "From Pune"}]}),
    ));
    model.push(Reply::text("Found it."));
    model.push(Reply::text("Found it."));
    model.push(Reply::text("Both parts are done."));
    let events = chat(&t, "Plan my Goa trip").await?;
    let session = session_of(&events)?;
    let result = &tool_result(&events, "delegate_tasks")?["result"];
    let results = result["results"].as_array().context("results")?;
    assert_eq!(results.len(), 2, "{result}");
    assert_eq!(results[0]["goal"], "Hotels in Goa");
    assert_eq!(results[1]["goal"], "Flights to Goa");
    assert!(
        results
            .iter()
            .all(|r| r["status"] == "completed" && r["summary"] == "Found it.")
    );
    assert_eq!(helpers_of(&t, &session).await?.len(), 2);
    // Too many goals at once is a plain error and starts nothing.
    model.push(Reply::tool_call(
        "delegate_tasks",
        json!({"tasks": (0..11).map(|i| json!({"goal": format!("part {i}")})).collect::<Vec<_>>()}),
    ));
    model.push(Reply::text("Too many."));
    let events = chat(&t, "Split it in eleven").await?;
    let refused = &tool_result(&events, "delegate_tasks")?["result"];
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("at most 10")),
        "{refused}"
    );
    t.stop().await;
    Ok(())
}

/// A helper can't run code, start helpers, or use a tool it was not given; each refusal is a
/// result it reads (nothing runs), and it still ends with its summary.
#[tokio::test]
async fn a_helper_is_refused_code_nesting_and_tools_it_was_not_given() -> Result<()> {
    let (t, model) = engine().await?;
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Check the clock"}),
    ));
    model.push(Reply::tool_calls([
        ("execute_code", json!({"code": "print(1)"})),
        ("delegate_task", json!({"goal": "go deeper"})),
        ("time_now", json!({})),
    ]));
    model.push(Reply::text("It is morning; I couldn't run code."));
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Check the clock again", "tools": ["time_now"]}),
    ));
    model.push(Reply::tool_calls([
        (
            "files_write",
            json!({"path": "outputs/x.md", "content": "x"}),
        ),
        ("time_now", json!({})),
    ]));
    model.push(Reply::text("Still morning; I couldn't write files."));
    model.push(Reply::text("Done."));
    let events = chat(&t, "What time is it, roughly?").await?;
    let session = session_of(&events)?;
    let list = helpers_of(&t, &session).await?;
    assert_eq!(list.len(), 2, "no nested helper was started: {list:?}");
    // Newest first: the narrowed helper, then the first one.
    let (narrowed, first) = (&list[0], &list[1]);
    let result_of = |helper: &Value, tool: &str| {
        helper["events"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["message"]["type"] == "tool_result" && e["message"]["tool_name"] == tool)
            .map(|e| {
                e["message"]["result"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .unwrap_or_default()
    };
    assert_eq!(first["status"], "completed", "{first}");
    assert!(
        result_of(first, "execute_code").contains("Subagents can't send anything or run code"),
        "{first}"
    );
    assert!(result_of(first, "delegate_task").contains("Helpers can't start other helpers"));
    assert_eq!(first["tool_calls"], 1, "only time_now ran");
    assert_eq!(narrowed["status"], "completed", "{narrowed}");
    assert!(
        result_of(narrowed, "files_write").contains("isn't one of the tools this helper was given")
    );
    assert!(!t.home().join("files/outputs/x.md").exists());
    // Only the given tool was offered to the narrowed helper.
    let offered = &model.requests_to("/api/chat")[4].body["tools"];
    let names: Vec<&str> = offered
        .as_array()
        .context("tools")?
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["time_now"]);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_helper_that_runs_out_of_steps_ends_with_the_contracts_sentence() -> Result<()> {
    let (t, model) = engine().await?;
    t.client
        .patch(
            "/api/config",
            json!({"subagents": {"max_rounds": 2}, "tools": {"repeated_call_limit": 0}}),
        )
        .await?;
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Keep checking"}),
    ));
    model.push(Reply::tool_call("time_now", json!({})));
    model.push(Reply::tool_call("time_now", json!({})));
    model.push(Reply::text("The helper ran out of steps."));
    let events = chat(&t, "Keep checking the time").await?;
    let result = &tool_result(&events, "delegate_task")?["result"];
    assert_eq!(result["status"], "error", "{result}");
    assert_eq!(result["error"], "Stopped after 2 steps without finishing.");
    t.stop().await;
    Ok(())
}

/// A background helper stops on the route's cancel; another on Stop everything; both end
/// `cancelled`, and neither adds anything to the chat.
#[tokio::test]
async fn cancel_and_stop_everything_end_running_helpers() -> Result<()> {
    let (t, model) = engine().await?;
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "A slow look-up", "background": true}),
    ));
    model.push(Reply::text("Started."));
    // The helper's answer never ends by itself.
    model.push(Reply::text("Still thinking").stalls_after(1));
    let events = chat(&t, "Look it up slowly").await?;
    let session = session_of(&events)?;
    let id = of_type(&events, "tool_result")[0]["result"]["subagent_id"]
        .as_str()
        .context("id")?
        .to_owned();
    eventually("the helper asking the model", || async {
        Ok((model.requests_to("/api/chat").len() >= 3).then_some(()))
    })
    .await?;
    let (status, cancelled) = t
        .client
        .post(&format!("/api/subagents/{id}/cancel"), json!({}))
        .await?;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    // Cancelling again answers the helper as it is.
    let (status, again) = t
        .client
        .post(&format!("/api/subagents/{id}/cancel"), json!({}))
        .await?;
    assert_eq!((status, &again["status"]), (200, &json!("cancelled")));

    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Another slow look-up", "background": true}),
    ));
    model.push(Reply::text("Started again."));
    model.push(Reply::text("Still thinking").stalls_after(1));
    let events = chat(&t, "And another").await?;
    let second = of_type(&events, "tool_result")[0]["result"]["subagent_id"]
        .as_str()
        .context("id")?
        .to_owned();
    eventually("the second helper asking the model", || async {
        Ok((model.requests_to("/api/chat").len() >= 6).then_some(()))
    })
    .await?;
    let (status, _) = t.client.post("/api/stop-all", json!({})).await?;
    assert_eq!(status, 200);
    eventually("Stop everything ending the helper", || async {
        let (_, h) = t.client.get(&format!("/api/subagents/{second}")).await?;
        Ok((h["status"] == "cancelled").then_some(()))
    })
    .await?;
    t.client.post("/api/resume", json!({})).await?;
    let (_, messages) = t
        .client
        .get(&format!("/api/sessions/{session}/messages"))
        .await?;
    assert!(
        !messages.to_string().contains("A helper"),
        "a cancelled helper adds nothing to the chat: {messages}"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn unknown_helpers_and_chats_are_404s() -> Result<()> {
    let t = TestEngine::start().await?;
    for (path, post) in [
        ("/api/subagents/nope", false),
        ("/api/subagents/nope/cancel", true),
        ("/api/sessions/nope/subagents", false),
    ] {
        let (status, body) = if post {
            t.client.post(path, json!({})).await?
        } else {
            t.client.get(path).await?
        };
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body["detail"].is_string(), "{body}");
    }
    t.stop().await;
    Ok(())
}

/// A helper still marked running when Sentient closed ends as an error at the next start.
#[tokio::test]
async fn a_helper_cut_off_by_a_restart_is_settled_at_start() -> Result<()> {
    let home = tempfile::tempdir()?;
    let t = TestEngine::start_in(home.path()).await?;
    let session = t.engine.services().sessions().create("desktop").await?;
    sqlx::query(
        "INSERT INTO subagents (subagent_id, session_id, goal, status, started_at) VALUES ('h1', ?, 'Left running', 'running', '2026-12-08T00:00:00Z')",
    )
    .bind(&session.id)
    .execute(t.engine.services().store().pool())
    .await?;
    t.stop().await;
    let t = TestEngine::start_in(home.path()).await?;
    let helper = eventually("the helper settled", || async {
        let (_, h) = t.client.get("/api/subagents/h1").await?;
        Ok((h["status"] == "error").then_some(h))
    })
    .await?;
    assert_eq!(
        helper["error"],
        "Sentient was closed while this helper worked, so it did not finish."
    );
    t.stop().await;
    Ok(())
}

/// Stopping the chat's reply stops its foreground helper (it ends `cancelled`).
#[tokio::test]
async fn stopping_the_reply_stops_its_foreground_helper() -> Result<()> {
    let (t, model) = engine().await?;
    model.push(Reply::tool_call(
        "delegate_task",
        json!({"goal": "Read slowly"}),
    ));
    model.push(Reply::text("Reading").stalls_after(1));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Read it slowly"}))
        .await?;
    let session = loop {
        let event = tokio::time::timeout(WAIT * 3, ws.next_json()).await??;
        if event["type"] == "subagent.updated" && event["data"]["status"] == "running" {
            break event["data"]["session_id"]
                .as_str()
                .context("session")?
                .to_owned();
        }
    };
    eventually("the helper asking the model", || async {
        Ok((model.requests_to("/api/chat").len() >= 2).then_some(()))
    })
    .await?;
    ws.send_json(json!({"type": "chat.cancel", "session_id": session}))
        .await?;
    ws.wait_for("done").await?;
    let list = match eventually("the helper cancelled", || async {
        let list = helpers_of(&t, &session).await?;
        Ok((list.first().is_some_and(|h| h["status"] == "cancelled")).then_some(list))
    })
    .await
    {
        Ok(list) => list,
        Err(error) => anyhow::bail!("{error}: {:#}", json!(helpers_of(&t, &session).await?)),
    };
    assert_eq!(list[0]["error"], "Stopped.");
    t.stop().await;
    Ok(())
}

/// Each finished chat turn publishes `chat.turn_completed` with its tool calls and errors.
#[tokio::test]
async fn a_finished_turn_publishes_chat_turn_completed() -> Result<()> {
    let (t, model) = engine().await?;
    model.push(Reply::tool_calls([
        ("time_now", json!({})),
        ("files_read", json!({"path": "missing.txt"})),
    ]));
    model.push(Reply::text("It's early, and that file isn't there."));
    let mut ws = t.ws().await?;
    ws.send_json(
        json!({"type": "chat.send", "text": "What time is it, and what's in missing.txt?"}),
    )
    .await?;
    // Published just after the turn's `done`.
    let done = ws.wait_for("done").await?;
    let turn = ws.wait_for("chat.turn_completed").await?;
    let data = &turn["data"];
    assert_eq!(data["session_id"], done["session_id"]);
    assert_eq!(data["tool_calls"], 2);
    assert_eq!(data["tool_errors"], 1);
    assert_eq!(data["skills_viewed"], json!([]));
    assert_eq!(
        data["user_text"],
        "What time is it, and what's in missing.txt?"
    );
    assert_eq!(data["reply"], "It's early, and that file isn't there.");
    assert!(data["turn_id"].is_string());
    t.stop().await;
    Ok(())
}
