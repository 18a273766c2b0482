//! The memory app's tools (issue 16, contract sections 2, 7 and 10) in real chats over loopback:
//! what memory_recall showed the model becomes the reply's memory sources (only the rows within
//! the tool result limit, after the prompt's, each once); memory_remember is held in a marked
//! chat and for work nobody asked for; memory_forget asks first; the history tools mark a run
//! that finds a marked chat, and the semantic one leaves marked summaries out.

use anyhow::{Context, Result};
use chrono::Utc;
use sentient_e2e::sentient_engine::agent::approvals::Origin;
use sentient_e2e::sentient_engine::memory::model::Summary;
use sentient_e2e::{TestEngine, point_models_at, serve_on_loopback};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

const DIM: usize = 768;

/// A unit vector `e0 + weight × e_axis`: close to `e0` (the query) and far enough from the
/// others that no two facts count as the same.
fn near_query(axis: usize, weight: f32) -> Vec<f32> {
    let mut v = vec![0.0f32; DIM];
    v[0] = 1.0;
    v[axis] = weight;
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / norm).collect()
}

fn query_vector() -> Vec<f32> {
    near_query(1, 0.0)
}

fn decision(topics: &[&str]) -> Reply {
    Reply::json(json!({
        "action": "ADD", "target": null, "topics": topics,
        "memory_type": "long-term", "expires_at": null,
    }))
}

/// An engine whose models the scripted server answers, with no titles or learning after a
/// turn (they would take the scripted replies) and no wait for background work.
async fn started(extra: Value) -> Result<(ScriptedModel, TestEngine)> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    point_models_at(&t, &server).await?;
    let mut patch = json!({
        "chat": {"auto_title": false},
        "memory": {"extract_after_turn": false},
        "models": {"background_quiet_s": 0},
    });
    merge(&mut patch, extra);
    let (status, body) = t.client.patch("/api/config", patch).await?;
    anyhow::ensure!(status == 200, "config: {status} {body}");
    Ok((server, t))
}

fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, value) => *slot = value,
    }
}

async fn remember(t: &TestEngine, server: &ScriptedModel, content: &str) -> Result<i64> {
    server.push(decision(&["Relationships & Social Life"]));
    let (status, body) = t
        .client
        .post("/api/memories", json!({"content": content}))
        .await?;
    anyhow::ensure!(status == 200 && body["action"] == "ADD", "{status} {body}");
    body["id"].as_i64().context("id")
}

/// Sends `text` in a chat (a new one without `session`) and collects its events up to `done`.
async fn chat(t: &TestEngine, text: &str, session: Option<&str>) -> Result<Vec<Value>> {
    let mut ws = t.ws().await?;
    let mut send = json!({"type": "chat.send", "text": text});
    if let Some(session) = session {
        send["session_id"] = json!(session);
    }
    ws.send_json(send).await?;
    let mut events = Vec::new();
    loop {
        let event = ws.next_json().await?;
        let done = event["type"] == "done";
        events.push(event);
        if done {
            return Ok(events);
        }
    }
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn done(events: &[Value]) -> Result<&Value> {
    events
        .last()
        .filter(|e| e["type"] == "done")
        .context("done")
}

async fn facts(t: &TestEngine) -> Result<Vec<Value>> {
    let (_, list) = t.client.get("/api/memories").await?;
    Ok(list.as_array().cloned().unwrap_or_default())
}

async fn inbox(t: &TestEngine) -> Result<Value> {
    let (status, inbox) = t.client.get("/api/memories/review").await?;
    anyhow::ensure!(status == 200, "{status} {inbox}");
    Ok(inbox)
}

/// A chat's outside-content mark, as the chat list shows it.
async fn mark_of(t: &TestEngine, session: &str) -> Result<Value> {
    let (status, list) = t.client.get("/api/sessions").await?;
    anyhow::ensure!(status == 200, "{status} {list}");
    let chat = list
        .as_array()
        .and_then(|l| l.iter().find(|s| s["id"] == session))
        .with_context(|| format!("chat {session} in {list}"))?;
    Ok(chat["untrusted"].clone())
}

#[tokio::test]
async fn recalled_rows_the_model_read_become_memory_sources_after_the_prompts() -> Result<()> {
    // One fact in the prompt; the tool result limit at its least (1,000 characters).
    let (server, t) = started(json!({
        "memory": {"facts_top_k": 1},
        "chat": {"tool_result_max_chars": 1000},
    }))
    .await?;
    let mut ids = Vec::new();
    for i in 1..=5 {
        // About 400 characters a row, so the limit cuts the third.
        let fact = format!(
            "User's friend number {i} {} lives by the sea",
            "and sails every summer ".repeat(15)
        );
        server.set_embedding(&fact, near_query(i + 1, 0.4 + 0.1 * i as f32));
        ids.push(remember(&t, &server, &fact).await?);
    }
    let question = "Which of my pals sail?";
    server.set_embedding(question, query_vector());
    server.set_embedding("pals", query_vector());
    server.push(Reply::tool_call("memory_recall", json!({"query": "pals"})));
    server.push(Reply::text("Your first two friends sail."));
    let events = chat(&t, question, None).await?;
    let result = of_type(&events, "tool_result");
    assert_eq!(result.len(), 1, "{events:?}");
    assert_eq!(result[0]["is_error"], false, "{}", result[0]);
    let rows = result[0]["result"].as_array().context("rows")?;
    assert_eq!(rows.len(), 5, "the whole result goes to the window");
    assert!(rows[0]["similarity"].is_number() && rows[0]["topics"].is_array());

    let sources = done(&events)?["memory_sources"]
        .as_array()
        .context("sources")?
        .clone();
    let seen: Vec<(i64, &str)> = sources
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().unwrap_or(0),
                s["via"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // The prompt's fact first (the tool showing it again does not repeat it), then the one
    // further row the model read in full; rows past the limit do not count.
    assert_eq!(
        seen,
        vec![(ids[0], "prompt"), (ids[1], "tool")],
        "{sources:?}"
    );
    assert!(sources.iter().all(|s| s["kind"] == "fact"));

    let session = done(&events)?["session_id"].as_str().context("session")?;
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{session}/messages"))
        .await?;
    let rows = rows.as_array().context("messages")?;
    let last = rows.last().context("last")?;
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["memory_sources"], json!(sources));
    // Every other row has none.
    assert!(
        rows[..rows.len() - 1]
            .iter()
            .all(|r| r["memory_sources"] == json!([]))
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_fact_the_model_saves_is_held_when_the_chat_read_a_page_or_nobody_asked() -> Result<()> {
    let (server, t) = started(json!({})).await?;
    server.set_embedding("User plays the cello", axis(9));
    server.set_embedding("cello", axis(9));
    // A clean chat: remembered at once, from the conversation.
    server.push(Reply::tool_call(
        "memory_remember",
        json!({"fact": "User plays the cello"}),
    ));
    server.push(decision(&["Interests & Lifestyle"]));
    server.push(Reply::text("Lovely."));
    let events = chat(&t, "I play the cello.", None).await?;
    let result = of_type(&events, "tool_result");
    assert_eq!(result[0]["result"]["action"], "ADD", "{events:?}");
    let list = facts(&t).await?;
    let cello = list
        .iter()
        .find(|f| f["content"] == "User plays the cello")
        .context("the clean fact")?;
    assert_eq!(
        (cello["status"].as_str(), cello["source"].as_str()),
        (Some("active"), Some("conversation"))
    );

    // A chat that read a loopback page: held, and the model is told it waits for review.
    let url = serve_on_loopback(
        axum::Router::new().route(
            "/p.html",
            axum::routing::get(|| async { axum::response::Html("<p>The user has a dog.</p>") }),
        ),
        "/p.html",
    )
    .await?;
    server.push(Reply::tool_call("web_fetch", json!({"url": url})));
    server.push(Reply::tool_call(
        "memory_remember",
        json!({"fact": "User has a dog called Rex"}),
    ));
    server.push(decision(&["Interests & Lifestyle"]));
    server.push(Reply::text("Noted."));
    let events = chat(&t, "Read that page about me.", None).await?;
    let results = of_type(&events, "tool_result");
    let saved = &results.last().context("remember result")?["result"];
    assert_eq!(saved["status"], "pending", "{saved}");
    assert!(
        saved["message"]
            .as_str()
            .is_some_and(|m| m.contains("review"))
    );
    let inbox_now = inbox(&t).await?;
    assert_eq!(inbox_now["count"], 1, "{inbox_now}");
    let item = &inbox_now["items"][0];
    assert_eq!(item["text"], "User has a dog called Rex");
    assert_eq!(item["from"], "Web");
    assert_eq!(item["session_id"], done(&events)?["session_id"]);
    assert!(
        !facts(&t)
            .await?
            .iter()
            .any(|f| f["content"] == "User has a dog called Rex")
    );
    // Nor do the memory tools find it, though they find the clean one.
    let agent = t.engine.services().agent();
    let clean = agent
        .tools()
        .invoke(
            "memory_recall",
            json!({"query": "cello"}),
            &agent.tool_ctx("call-clean"),
            16_000,
        )
        .await;
    assert!(
        clean.content.contains("User plays the cello"),
        "{}",
        clean.content
    );
    for (tool, args) in [
        ("memory_recall", json!({"query": "dog called Rex"})),
        (
            "memory_search_by_source",
            json!({"query": "dog called Rex", "source": "conversation"}),
        ),
    ] {
        let outcome = agent
            .tools()
            .invoke(tool, args, &agent.tool_ctx("call-held"), 16_000)
            .await;
        assert!(!outcome.is_error, "{tool}: {}", outcome.content);
        assert!(
            !outcome.content.contains("Rex"),
            "{tool} found a held fact: {}",
            outcome.content
        );
    }

    // Work nobody asked for (a proactive look-up) is held too.
    let mut ctx = agent.tool_ctx("call-proactive");
    ctx.origin = Origin::Proactive;
    server.push(decision(&["Work & Learning"]));
    let outcome = agent
        .tools()
        .invoke(
            "memory_remember",
            json!({"fact": "User starts a new job in May"}),
            &ctx,
            16_000,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.content);
    assert_eq!(outcome.value["status"], "pending");
    let inbox_now = inbox(&t).await?;
    assert_eq!(inbox_now["count"], 2);
    assert_eq!(inbox_now["items"][0]["from"], "a proactive check");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn forgetting_a_fact_asks_first_and_a_no_keeps_it() -> Result<()> {
    let (server, t) = started(json!({})).await?;
    let id = remember(&t, &server, "User's cat is called Miso").await?;
    for (decision, kept) in [("deny", true), ("allow", false)] {
        server.push(Reply::tool_call("memory_forget", json!({"fact_id": id})));
        server.push(Reply::text("Done."));
        let mut ws = t.ws().await?;
        ws.send_json(json!({"type": "chat.send", "text": "Forget my cat's name."}))
            .await?;
        let question = ws.wait_for("approval_request").await?;
        assert_eq!(question["name"], "memory_forget");
        assert_eq!(question["risk"], "send");
        assert_eq!(question["target"], format!("Memory #{id}"));
        ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": decision}))
            .await?;
        let result = ws.wait_for("tool_result").await?;
        ws.wait_for("done").await?;
        let still = facts(&t).await?.iter().any(|f| f["id"] == id);
        assert_eq!(still, kept, "{decision}: {result}");
        if !kept {
            assert_eq!(result["result"], json!({"deleted": true, "id": id}));
        }
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn history_found_in_a_marked_chat_marks_the_run_and_marked_summaries_stay_out() -> Result<()>
{
    // Dates are read in the assistant's zone; UTC here, whatever this computer's zone.
    let (server, t) = started(json!({"assistant": {"timezone": "UTC"}})).await?;
    // Chat A reads a page, so it is marked.
    let url = serve_on_loopback(
        axum::Router::new().route(
            "/k.html",
            axum::routing::get(|| async { axum::response::Html("<p>Kayak rentals.</p>") }),
        ),
        "/k.html",
    )
    .await?;
    server.push(Reply::tool_call("web_fetch", json!({"url": url})));
    server.push(Reply::text("The kayak shop opens at nine."));
    let a = chat(&t, "When does the kayak shop open?", None).await?;
    let chat_a = done(&a)?["session_id"].as_str().context("a")?.to_owned();

    // Chat B is clean until it finds chat A's words.
    server.push(Reply::text("Hello."));
    let b = chat(&t, "Hi.", None).await?;
    let chat_b = done(&b)?["session_id"].as_str().context("b")?.to_owned();
    // Clean after its first turn: "" (null is for a chat with no turn yet).
    assert_eq!(mark_of(&t, &chat_b).await?, "");
    server.push(Reply::tool_call(
        "memory_search_history",
        json!({"query": "kayak"}),
    ));
    server.push(Reply::text("You asked about the kayak shop."));
    let events = chat(&t, "What did I ask about kayaks?", Some(&chat_b)).await?;
    let result = &of_type(&events, "tool_result")[0]["result"];
    let hits = result.as_array().context("hits")?;
    assert!(
        hits.iter()
            .any(|h| h["session_id"] == chat_a.as_str() && h["role"] == "user"),
        "{result}"
    );
    assert_eq!(mark_of(&t, &chat_b).await?, "Web");

    // By date: a bad date is a plain error; today finds the day's messages.
    let today = Utc::now().format("%Y-%m-%d").to_string();
    server.push(Reply::tool_call(
        "history_time_search",
        json!({"start_date": "last spring", "end_date": today}),
    ));
    server.push(Reply::tool_call(
        "history_time_search",
        json!({"start_date": today, "end_date": today}),
    ));
    server.push(Reply::text("Here is today."));
    let events = chat(&t, "What did we talk about today?", None).await?;
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["is_error"], true);
    assert!(
        results[0]["result"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("YYYY-MM-DD")),
        "{}",
        results[0]
    );
    assert_eq!(results[1]["is_error"], false);
    let day = results[1]["result"].as_array().context("today")?;
    assert!(day.iter().any(|h| h["text"] == "Hi."), "{day:?}");

    // By meaning: summaries of marked chats are left out before ranking.
    let memory = t.engine.services().memory();
    assert!(memory.embed("start the index").await.is_some());
    let now = Utc::now();
    let summary = |content: &str, session: Option<&str>, untrusted: Option<&str>| Summary {
        id: 0,
        content: content.to_owned(),
        start_at: now,
        end_at: now,
        session_id: session.map(str::to_owned),
        untrusted: untrusted.map(str::to_owned),
    };
    let vector = query_vector();
    for (text, session, mark) in [
        (
            "Planned a kayak trip from a newsletter",
            None,
            Some("Gmail"),
        ),
        ("Asked about kayak shop hours", Some(chat_a.as_str()), None),
        ("Talked about kayaking with friends", None, None),
    ] {
        memory
            .facts()
            .insert_summary(&summary(text, session, mark), 0, Some(&vector), now)
            .await?;
    }
    server.set_embedding("kayak plans", vector.clone());
    let outcome = t
        .engine
        .services()
        .agent()
        .tools()
        .invoke(
            "history_semantic_search",
            json!({"query": "kayak plans"}),
            &t.engine.services().agent().tool_ctx("call-semantic"),
            16_000,
        )
        .await;
    assert!(!outcome.is_error, "{}", outcome.content);
    let found: Vec<&str> = outcome
        .value
        .as_array()
        .context("summaries")?
        .iter()
        .filter_map(|s| s["content"].as_str())
        .collect();
    // The newsletter's summary is marked, and so is chat A's (its chat read a page).
    assert_eq!(found, vec!["Talked about kayaking with friends"]);
    t.stop().await;
    Ok(())
}

/// A unit vector along one axis.
fn axis(n: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; DIM];
    v[n] = 1.0;
    v
}

fn run_sources(run: &Value) -> Vec<(i64, String)> {
    run["memory_sources"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|s| {
                    (
                        s["id"].as_i64().unwrap_or(0),
                        s["via"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_task_run_keeps_the_memories_it_had_in_mind_and_its_retry_carries_them() -> Result<()> {
    let (server, t) = started(json!({})).await?;
    let meera = "User's sister Meera lives in Lisbon";
    let ana = "User's friend Ana lives in Porto";
    server.set_embedding(meera, axis(3));
    server.set_embedding(ana, axis(4));
    let meera_id = remember(&t, &server, meera).await?;
    let ana_id = remember(&t, &server, ana).await?;

    // The task's own words bring Meera into the executor's prompt.
    let name = "Plan a visit to my sister";
    server.set_embedding(&format!("{name}\n{name}"), axis(3));
    server.set_embedding("friends in Porto", axis(4));
    server.push(Reply::text(
        json!({"name": name, "description": name, "priority": 1, "schedule": {"type": "once"}})
            .to_string(),
    ));
    server.push(Reply::text(
        json!({"plan": [{"tool": "memory_recall", "description": "Recall friends"}]}).to_string(),
    ));
    let (_, created) = t.client.post("/api/tasks", json!({"prompt": name})).await?;
    let id = created["task_id"].as_str().context("task id")?.to_owned();
    sentient_e2e::wait_task(&t, &id, |t| t["status"] == "approval_pending").await?;

    // The first attempt recalls Ana with the tool, then its model fails.
    server.push(Reply::tool_call(
        "memory_recall",
        json!({"query": "friends in Porto"}),
    ));
    server.push(Reply::error(401).message("invalid api key"));
    t.client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    let (status, body) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let ended = |n: usize| {
        move |t: &Value| {
            t["runs"].as_array().is_some_and(|r| {
                r.len() == n
                    && r.last().is_some_and(|r| {
                        r["status"] != "processing" && r["status"] != "waiting_for_user"
                    })
            })
        }
    };
    let task = sentient_e2e::wait_task(&t, &id, ended(1)).await?;
    let first = &task["runs"][0];
    assert_eq!(first["status"], "error", "{first}");
    let expected = vec![(meera_id, "prompt".to_owned()), (ana_id, "tool".to_owned())];
    assert_eq!(run_sources(first), expected, "{first}");
    let executor = server
        .requests_to("/api/chat")
        .into_iter()
        .map(|r| r.body)
        .find(|b| {
            b["messages"][1]["content"]
                .as_str()
                .is_some_and(|c| c.contains("Do the task now with your tools"))
        })
        .context("the executor's request")?;
    let system = executor["messages"][0]["content"].as_str().unwrap_or("");
    assert!(
        system.contains("## What I remember about you") && system.contains(meera),
        "{system}"
    );
    assert!(
        !system.contains(ana),
        "only the task's own words recall: {system}"
    );

    // A Retry continues the transcript, so it starts with the same memories in mind.
    let failed = first["run_id"].as_str().context("run id")?;
    server.push(Reply::text("Meera is in Lisbon and Ana in Porto."));
    let (status, body) = t
        .client
        .post(&format!("/api/tasks/{id}/runs/{failed}/retry"), json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let task = sentient_e2e::wait_task(&t, &id, ended(2)).await?;
    let retry = &task["runs"][1];
    assert_eq!(retry["status"], "completed", "{retry}");
    assert_eq!(run_sources(retry), expected);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_stopped_reply_still_says_what_it_had_in_mind() -> Result<()> {
    let (server, t) = started(json!({})).await?;
    let fact = "User's sister Meera lives in Lisbon";
    server.set_embedding(fact, axis(7));
    let id = remember(&t, &server, fact).await?;
    let question = "Tell me about my sister";
    server.set_embedding(question, axis(7));
    server.push(Reply::stall_after(1));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": question}))
        .await?;
    let session = ws.wait_for("session").await?["session_id"].clone();
    ws.wait_for("text_delta").await?;
    ws.send_json(json!({"type": "chat.cancel", "session_id": session}))
        .await?;
    let done = ws.wait_for("done").await?;
    assert_eq!(done["cancelled"], true, "{done}");
    let sources =
        json!([{"kind": "fact", "id": id, "text": fact, "source": "manual", "via": "prompt"}]);
    assert_eq!(done["memory_sources"], sources);
    let (_, rows) = t
        .client
        .get(&format!(
            "/api/sessions/{}/messages",
            session.as_str().unwrap_or_default()
        ))
        .await?;
    let last = rows.as_array().and_then(|r| r.last()).context("rows")?;
    assert!(
        last["content"]
            .as_str()
            .is_some_and(|c| c.ends_with("(stopped)")),
        "{last}"
    );
    assert_eq!(last["memory_sources"], sources);
    t.stop().await;
    Ok(())
}
