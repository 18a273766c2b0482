//! A chat turn over `/ws` against the scripted model server: the session event, streamed text,
//! a tool call that asks for approval and runs once allowed, `done` with the saved message id,
//! the stored rows, and cancelling a reply that hangs.

use anyhow::Result;
use sentient_e2e::TestEngine;
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

async fn engine(server: &ScriptedModel) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    sentient_e2e::point_models_at(&t, server).await?;
    t.client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b"}}),
        )
        .await?;
    Ok(t)
}

#[tokio::test]
async fn a_turn_streams_asks_for_approval_runs_the_tool_and_is_saved() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::text("I'll save that.").then_tool_call(
        "files_write",
        json!({"path": "outputs/note.txt", "content": "milk"}),
    ));
    server.push(Reply::text("Saved your note."));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Remember: buy milk", "client_id": "c1"}))
        .await?;

    let session = ws.wait_for("session").await?;
    assert_eq!(session["client_id"], "c1");
    let sid = session["session_id"]
        .as_str()
        .expect("session id")
        .to_owned();
    let question = ws.wait_for("approval_request").await?;
    assert_eq!(question["name"], "files_write");
    assert_eq!(question["risk"], "write");
    assert_eq!(question["session_id"], sid.as_str());
    // A word that is not a decision is refused with the HTTP door's sentence and resolves
    // nothing: the question still waits for the real answer below.
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "maybe"})).await?;
    let refused = ws.wait_for("error").await?;
    assert_eq!(
        refused,
        json!({"type": "error", "message": "decision is allow, allow_session or deny.", "recoverable": true})
    );
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "allow"})).await?;
    let ack = ws.wait_for("approval.ack").await?;
    assert_eq!(ack["resolved"], true);
    let result = ws.wait_for("tool_result").await?;
    assert_eq!(result["is_error"], false);
    let mut text = String::new();
    let done = loop {
        let event = ws.next_json().await?;
        match event["type"].as_str() {
            Some("text_delta") => text.push_str(event["text"].as_str().unwrap_or_default()),
            Some("done") => break event,
            _ => {}
        }
    };
    assert_eq!(text, "Saved your note.");
    assert_eq!(done["content"], "Saved your note.");
    assert_eq!(done["memory_sources"], json!([]));
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/note.txt"))?,
        "milk"
    );

    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    let rows = rows.as_array().expect("rows");
    let roles: Vec<&str> = rows.iter().filter_map(|r| r["role"].as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(rows[1]["tool_calls"][0]["function"]["name"], "files_write");
    assert_eq!(rows[2]["tool_call_id"], rows[1]["tool_calls"][0]["id"]);
    assert_eq!(rows[3]["id"], done["message_id"]);
    // The model saw the system prompt with the user's notes and the time.
    let first = &server.requests_to("/api/chat")[0].body["messages"][0];
    assert_eq!(first["role"], "system");
    assert!(
        first["content"]
            .as_str()
            .is_some_and(|c| c.contains("It is now"))
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn cancelling_keeps_the_partial_reply_marked_stopped() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::text("Here is a long answer that never ends").stalls_after(2));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Tell me everything"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    ws.wait_for("text_delta").await?;
    ws.send_json(json!({"type": "chat.cancel", "session_id": sid}))
        .await?;
    let done = ws.wait_for("done").await?;
    assert_eq!(done["cancelled"], true);
    let content = done["content"].as_str().unwrap_or_default();
    assert!(content.ends_with("(stopped)"), "{content}");
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    let last: &Value = rows.as_array().and_then(|r| r.last()).expect("rows");
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"], content);
    assert_eq!(last["id"], done["message_id"]);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_http_fallback_streams_a_turn_and_approvals_answer_over_http() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/http.txt", "content": "via http"}),
    ));
    server.push(Reply::text("Written."));
    let response = t
        .client
        .request(reqwest::Method::POST, "/api/chat")
        .json(&json!({"text": "write it"}))
        .send()
        .await?;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let mut body = response.bytes_stream();
    let mut buffer = String::new();
    let mut lines: Vec<Value> = Vec::new();
    use futures::StreamExt;
    while let Some(part) = body.next().await {
        buffer.push_str(&String::from_utf8_lossy(&part?));
        while let Some(end) = buffer.find('\n') {
            let line: Value = serde_json::from_str(&buffer[..end])?;
            buffer.drain(..=end);
            if line["type"] == "approval_request" {
                // An unknown word: 400 with the sentence every door says, and nothing resolved
                // (the allow below still finds the question waiting).
                let (status, refused) = t
                    .client
                    .post(
                        "/api/approvals",
                        json!({"approval_id": line["approval_id"], "decision": "Allow!"}),
                    )
                    .await?;
                assert_eq!(
                    (status, refused),
                    (
                        400,
                        json!({"detail": "decision is allow, allow_session or deny."})
                    )
                );
                let (status, answer) = t
                    .client
                    .post(
                        "/api/approvals",
                        json!({"approval_id": line["approval_id"], "decision": "allow"}),
                    )
                    .await?;
                assert_eq!((status, answer), (200, json!({"resolved": true})));
            }
            lines.push(line);
        }
    }
    assert_eq!(
        lines.first().map(|l| l["type"].clone()),
        Some(json!("session"))
    );
    assert_eq!(lines.last().map(|l| l["type"].clone()), Some(json!("done")));
    assert_eq!(
        lines.last().map(|l| l["content"].clone()),
        Some(json!("Written."))
    );
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/http.txt"))?,
        "via http"
    );

    let (status, _) = t
        .client
        .post(
            "/api/approvals",
            json!({"approval_id": "nope", "decision": "maybe"}),
        )
        .await?;
    // The contract answers bad input here with 400 and one sentence.
    assert_eq!(status, 400);
    let (status, body) = t
        .client
        .post("/api/approvals", json!({"approval_id": "nope"}))
        .await?;
    assert_eq!(status, 400, "a body that does not parse: {body}");
    assert!(body["detail"].is_string(), "{body}");
    let (status, answer) = t
        .client
        .post(
            "/api/approvals",
            json!({"approval_id": "nope", "decision": "deny"}),
        )
        .await?;
    assert_eq!((status, answer), (200, json!({"resolved": false})));
    let (status, _) = t.client.post("/api/chat", json!({"text": " "})).await?;
    assert_eq!(status, 422);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_new_chat_gets_a_title_from_the_fast_model() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    // Titles are background work, held back for the quiet period after a reply; none here. Every
    // model call is scripted, so memory does not learn from the turn (that would be one more).
    t.client
        .patch(
            "/api/config",
            json!({"models": {"background_quiet_s": 0}, "memory": {"extract_after_turn": false}}),
        )
        .await?;
    server.push(Reply::text("Paris is the capital of France."));
    server.push(Reply::text("\"Capital of France.\""));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "What is the capital of France?"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    ws.wait_for("done").await?;
    let named = ws.wait_for("session.updated").await?;
    assert_eq!(
        named["data"],
        json!({"session_id": sid, "title": "Capital of France"})
    );
    let asked = &server.requests_to("/api/chat")[1].body;
    assert!(
        asked["messages"][1]["content"]
            .as_str()
            .is_some_and(|c| c.contains("capital of France"))
    );
    let (_, usage) = t.client.get("/api/usage").await?;
    let sources: Vec<&str> = usage["by_source"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|s| s["source"].as_str())
        .collect();
    assert!(sources.contains(&"titles"), "{sources:?}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_steer_reaches_the_next_round_and_is_saved_as_an_interjection() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/list.txt", "content": "eggs"}),
    ));
    server.push(Reply::text("Saved eggs, and added bread as you asked."));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Write my shopping list"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    // While the reply waits for approval, the person adds something.
    let question = ws.wait_for("approval_request").await?;
    ws.send_json(json!({"type": "chat.steer", "session_id": sid, "text": "also add bread", "client_id": "s1"})).await?;
    let ack = ws.wait_for("steer_ack").await?;
    assert_eq!(ack["queued"], true);
    assert_eq!(ack["client_id"], "s1");
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "allow"})).await?;
    let interjection = ws.wait_for("user_interjection").await?;
    assert_eq!(interjection["text"], "also add bread");
    let done = ws.wait_for("done").await?;
    assert_eq!(done["content"], "Saved eggs, and added bread as you asked.");
    // The model read the steer in its next round.
    let second = &server.requests_to("/api/chat")[1].body["messages"];
    assert!(second.as_array().is_some_and(|m| {
        m.iter()
            .any(|m| m["role"] == "user" && m["content"] == "also add bread")
    }));
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    let steer = rows
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["content"] == "also add bread")
        .cloned()
        .expect("steer row");
    assert_eq!(steer["role"], "user");
    assert_eq!(steer["interjection"], true);

    // With no reply running, a steer is an ordinary new turn.
    server.push(Reply::text("Anything else?"));
    ws.send_json(json!({"type": "chat.steer", "session_id": sid, "text": "thanks"}))
        .await?;
    assert_eq!(ws.wait_for("steer_ack").await?["queued"], false);
    assert_eq!(ws.wait_for("done").await?["content"], "Anything else?");
    t.stop().await;
    Ok(())
}

/// Reads socket events until `n` `done` events have arrived; returns every event seen.
async fn until_done(ws: &mut sentient_e2e::WsClient, n: usize) -> Result<Vec<Value>> {
    let mut seen = Vec::new();
    let mut dones = 0;
    while dones < n {
        let event = ws.next_json().await?;
        if event["type"] == "done" {
            dones += 1;
        }
        seen.push(event);
    }
    Ok(seen)
}

#[tokio::test]
async fn stop_everything_drops_queued_messages_and_unsent_steers() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::text("Here is a long answer that never ends").stalls_after(2));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Tell me everything", "client_id": "c1"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    ws.wait_for("text_delta").await?;
    // A steer the reply has not picked up yet, and a message with an attachment queued behind it.
    ws.send_json(json!({"type": "chat.steer", "session_id": sid, "text": "and the weather", "client_id": "s1"}))
        .await?;
    assert_eq!(ws.wait_for("steer_ack").await?["queued"], true);
    ws.send_json(
        json!({"type": "chat.send", "session_id": sid, "text": "look at this",
                        "attachments": ["uploads/photo.png"], "client_id": "q1"}),
    )
    .await?;
    // Wait until the queued turn is waiting behind the reply.
    sentient_e2e::eventually("the queued turn to wait", || async {
        Ok((t
            .engine
            .services()
            .stop()
            .running_jobs("queued chat message")
            == 1)
            .then_some(()))
    })
    .await?;
    assert_eq!(
        t.engine
            .services()
            .stop()
            .running_jobs("queued chat message"),
        1
    );
    let (status, _) = t
        .client
        .post("/api/stop-all", json!({"source": "desktop"}))
        .await?;
    assert_eq!(status, 200);

    let events = until_done(&mut ws, 2).await?;
    let stopped = events
        .iter()
        .find(|e| e["type"] == "done" && e["client_id"].is_null())
        .expect("the stopped reply's done");
    assert_eq!(stopped["cancelled"], true);
    assert_eq!(stopped["dropped"], json!(["and the weather"]));
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .expect("the dropped message's error");
    assert_eq!(
        error["message"],
        "Stopped. Your queued message wasn't sent."
    );
    assert_eq!(error["dropped"], true);
    assert_eq!(error["client_id"], "q1");
    let dropped = events
        .iter()
        .find(|e| e["type"] == "done" && e["client_id"] == "q1")
        .expect("the dropped message's done");
    assert_eq!(dropped["cancelled"], true);
    assert_eq!(dropped["dropped"], json!(["look at this"]));
    assert_eq!(dropped["session_id"], sid.as_str());

    // Nothing queued was sent to the model or saved.
    assert_eq!(server.requests_to("/api/chat").len(), 1);
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    let contents: Vec<&str> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["content"].as_str())
        .collect();
    assert_eq!(contents.len(), 2, "{contents:?}");
    assert_eq!(contents[0], "Tell me everything");
    assert!(contents[1].ends_with("(stopped)"), "{contents:?}");

    // Messages sent after the stop work as usual.
    server.push(Reply::text("Still here."));
    ws.send_json(json!({"type": "chat.send", "session_id": sid, "text": "hello?"}))
        .await?;
    assert_eq!(ws.wait_for("done").await?["content"], "Still here.");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_message_with_attachments_waits_for_the_running_reply_and_http_steers() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/a.txt", "content": "a"}),
    ));
    server.push(Reply::text("First done."));
    server.push(Reply::text("Second answer."));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "write a"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let question = ws.wait_for("approval_request").await?;

    // Over HTTP, a message for the running reply steers it: one steer_ack line.
    let response = t
        .client
        .request(reqwest::Method::POST, "/api/chat")
        .json(&json!({"session_id": sid, "text": "call it a.txt"}))
        .send()
        .await?;
    assert_eq!(response.status(), 200);
    let body = response.text().await?;
    let lines: Vec<Value> = body
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(
        lines,
        [json!({"type": "steer_ack", "session_id": sid, "queued": true})]
    );

    // A message with an attachment never steers: it waits for its own turn.
    ws.send_json(
        json!({"type": "chat.send", "session_id": sid, "text": "and this file",
                        "attachments": ["uploads/b.txt"], "client_id": "q2"}),
    )
    .await?;
    for _ in 0..400 {
        if t.engine
            .services()
            .stop()
            .running_jobs("queued chat message")
            == 1
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        t.engine
            .services()
            .stop()
            .running_jobs("queued chat message"),
        1
    );
    assert_eq!(server.requests_to("/api/chat").len(), 1);
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "allow"})).await?;
    let events = until_done(&mut ws, 2).await?;
    let dones: Vec<&Value> = events.iter().filter(|e| e["type"] == "done").collect();
    assert_eq!(dones[0]["content"], "First done.");
    assert_eq!(dones[1]["content"], "Second answer.");
    let session = events
        .iter()
        .find(|e| e["type"] == "session")
        .expect("the queued turn's session event");
    assert_eq!(session["client_id"], "q2");
    // The queued turn read the whole first reply, steer included.
    let third = &server.requests_to("/api/chat")[2].body["messages"];
    let said: Vec<&str> = third
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(said.contains(&"call it a.txt"), "{said:?}");
    assert!(said.contains(&"First done."), "{said:?}");
    assert_eq!(said.last(), Some(&"and this file"));
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    let last_user = rows
        .as_array()
        .expect("rows")
        .iter()
        .rfind(|r| r["role"] == "user")
        .cloned()
        .expect("user row");
    assert_eq!(last_user["attachments"], json!(["uploads/b.txt"]));
    t.stop().await;
    Ok(())
}

/// Remembers what each flush was given.
struct Recorder(std::sync::Mutex<Vec<String>>);

impl sentient_engine::agent::compression::ConversationFlush for Recorder {
    fn flush<'a>(
        &'a self,
        _session_id: &'a str,
        transcript: &'a str,
        _untrusted: Option<&'a str>,
    ) -> futures::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            self.0.lock().expect("recorder").push(transcript.to_owned());
        })
    }
}

#[tokio::test]
async fn a_long_chat_is_summarized_and_replies_read_the_summary() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    t.client
        .patch(
            "/api/config",
            json!({"models": {"background_quiet_s": 0},
                   // Every model call is scripted: no learning from the turns or the fold.
                   "memory": {"extract_after_turn": false, "flush_enabled": false},
                   "chat": {"compress_after_messages": 10, "history_window": 4, "auto_title": false},
                   "integrations": {"read_only": ["web"]}}),
        )
        .await?;
    let flushed = std::sync::Arc::new(Recorder(std::sync::Mutex::new(Vec::new())));
    t.engine.services().agent().add_flush_hook(flushed.clone());
    let mut ws = t.ws().await?;
    let mut sid = Value::Null;
    for n in 1..=6 {
        server.push(Reply::text(format!("Answer {n}.")));
        ws.send_json(json!({"type": "chat.send", "session_id": sid, "text": format!("Question {n}: I like tea.")}))
            .await?;
        let done = ws.wait_for("done").await?;
        sid = done["session_id"].clone();
        if n < 6 {
            continue;
        }
        // Twelve messages are past the limit of ten: the older ones are folded by the fast model.
        server.push(Reply::text("The user likes tea and asked six questions."));
        for _ in 0..200 {
            if server.requests_to("/api/chat").len() >= 7 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    }
    let folded = &server.requests_to("/api/chat")[6].body["messages"][1]["content"];
    let folded = folded.as_str().expect("summary request");
    assert!(folded.contains("User: Question 1: I like tea."), "{folded}");
    assert!(folded.contains("Assistant: Answer 4."), "{folded}");
    assert!(!folded.contains("Question 5"), "{folded}");
    // The hook read the same part first.
    let hook_saw = flushed.0.lock().expect("recorder").clone();
    assert_eq!(hook_saw.len(), 1);
    assert!(
        hook_saw[0].starts_with("User: Question 1"),
        "{}",
        hook_saw[0]
    );

    // The next reply reads the summary and only the recent messages.
    let summarized = async {
        loop {
            let (summary, _) = t
                .engine
                .services()
                .sessions()
                .summary(sid.as_str().unwrap_or_default())
                .await?;
            if !summary.is_empty() {
                return anyhow::Ok(summary);
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let summary = tokio::time::timeout(std::time::Duration::from_secs(5), summarized).await??;
    assert_eq!(summary, "The user likes tea and asked six questions.");
    server.push(Reply::text("Answer 7."));
    ws.send_json(json!({"type": "chat.send", "session_id": sid, "text": "Question 7"}))
        .await?;
    ws.wait_for("done").await?;
    let asked = &server.requests_to("/api/chat")[7].body["messages"];
    let asked = asked.as_array().expect("messages");
    let system = asked[0]["content"].as_str().unwrap_or_default();
    assert!(
        system.contains("## Earlier in this chat\nThe user likes tea"),
        "{system}"
    );
    // Connected apps set to Read only are named for the model.
    assert!(system.contains("set to Read only: Web."), "{system}");
    let said: Vec<&str> = asked[1..]
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(
        said,
        [
            "Question 5: I like tea.",
            "Answer 5.",
            "Question 6: I like tea.",
            "Answer 6.",
            "Question 7"
        ]
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_steer_that_states_a_standing_rule_is_proposed_from_its_saved_row() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    // No title call to take the rule check's scripted answer.
    t.client
        .patch("/api/config", json!({"chat": {"auto_title": false}}))
        .await?;
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/plan.txt", "content": "draft"}),
    ));
    server.push(Reply::text("Saved the draft."));
    // The fast role's answer to the rule check that follows the turn.
    server.push(Reply::text(
        json!({"keys": ["files_write"], "rule": "never"}).to_string(),
    ));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Draft my plan"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let question = ws.wait_for("approval_request").await?;
    ws.send_json(
        json!({"type": "chat.steer", "session_id": sid, "text": "Never write to my files again."}),
    )
    .await?;
    ws.wait_for("steer_ack").await?;
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "allow"})).await?;
    // The check runs in the background once the steer is saved: its card may come before or
    // after the reply's `done`.
    let (mut done, mut proposal) = (false, None);
    while !done || proposal.is_none() {
        let event = ws.next_json().await?;
        match event["type"].as_str() {
            Some("done") => done = true,
            Some("rule_proposal.updated") => proposal = Some(event),
            _ => {}
        }
    }
    let proposal = proposal.unwrap_or_default();
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    let steer = rows
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["interjection"] == true)
        .cloned()
        .expect("steer row");
    assert_eq!(proposal["data"]["message_id"], steer["id"]);
    assert_eq!(proposal["data"]["keys"], json!(["files_write"]));
    assert_eq!(proposal["data"]["rule"], "never");
    t.stop().await;
    Ok(())
}
