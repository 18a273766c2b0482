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
    assert_eq!(status, 422);
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
    // Titles are background work, held back for the quiet period after a reply; none here.
    t.client
        .patch("/api/config", json!({"models": {"background_quiet_s": 0}}))
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
