//! Rules from chat (#130) against the scripted model server: a standing "never" in a chat
//! message becomes a proposal through the fast role, is published and listed, makes the matched
//! tool ask first until answered (even under an Allow rule with approvals off), and accept saves
//! the rule with its origin while decline saves nothing. Messages that fail the pre-filter
//! never reach a model.

use std::time::Duration;

use anyhow::Result;
use sentient_e2e::{TestEngine, WAIT};
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

/// A titled chat, so no background title call takes a scripted reply.
async fn chat(t: &TestEngine) -> Result<String> {
    let (_, created) = t.client.post("/api/sessions", json!({})).await?;
    let sid = created["session_id"].as_str().expect("id").to_owned();
    t.client
        .patch(&format!("/api/sessions/{sid}"), json!({"title": "Rules"}))
        .await?;
    Ok(sid)
}

/// The next bus event of `kind`, skipping others (model.busy and the like).
async fn next_of(
    events: &mut tokio::sync::broadcast::Receiver<sentient_e2e::sentient_engine::bus::Envelope>,
    kind: &str,
) -> Result<Value> {
    loop {
        let envelope = tokio::time::timeout(WAIT, events.recv()).await??;
        if envelope.event.kind() == kind {
            return Ok(serde_json::to_value(&envelope)?);
        }
    }
}

fn rules_of(config: &Value) -> Value {
    config["tools"]["approvals"]["rules"].clone()
}

#[tokio::test]
async fn a_never_from_chat_is_proposed_asks_first_and_accept_saves_the_rule() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    // Even an Allow rule with approvals off asks while the proposal waits.
    t.client
        .patch(
            "/api/config",
            json!({"tools": {"approvals": {"mode": "off", "rules": {"files_write": "allow"}}}}),
        )
        .await?;
    let sid = chat(&t).await?;
    // The fast role maps the words to the whole Files app; code narrows it to Files > Write.
    server.push(Reply::json(json!({"keys": ["files"], "rule": "never"})));
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/x.txt", "content": "hi"}),
    ));
    server.push(Reply::text("I won't write it."));
    let mut ws = t.ws().await?;
    ws.send_json(
        json!({"type": "chat.send", "session_id": sid, "text": "Never write to my files."}),
    )
    .await?;

    let proposed = ws.wait_for("rule_proposal.updated").await?;
    let p = &proposed["data"];
    assert_eq!(p["session_id"], sid.as_str());
    assert_eq!(p["rule"], "never");
    assert_eq!(p["keys"], json!(["files_write"]));
    assert_eq!(
        p["targets"],
        json!([{"key": "files_write", "app": "Files", "tool": "Write", "label": "Files > Write"}])
    );
    assert_eq!(p["said"], "Never write to my files");
    assert_eq!(p["status"], "pending");
    assert_eq!(p["decided_at"], Value::Null);
    let id = p["id"].as_str().expect("id").to_owned();

    let question = ws.wait_for("approval_request").await?;
    assert_eq!(question["name"], "files_write");
    assert_eq!(question["reason"], "pending_rule");
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "deny"})).await?;
    let result = ws.wait_for("tool_result").await?;
    assert_eq!(result["is_error"], true);
    ws.wait_for("done").await?;
    assert!(!t.home().join("files/outputs/x.txt").exists());

    // The check was one fast-role call before the reply, and read the user's words.
    let calls = server.requests_to("/api/chat");
    assert_eq!(calls.len(), 3);
    let check = calls[0].body["messages"].to_string();
    assert!(check.contains("Never write to my files"), "{check}");
    assert!(check.contains("files_write"), "{check}");

    // Listed for the chat, tied to the user's message.
    let (status, listed) = t
        .client
        .get(&format!("/api/sessions/{sid}/rule-proposals"))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!(listed[0], *p);
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    assert_eq!(rows[0]["role"], "user");
    assert_eq!(p["message_id"], rows[0]["id"]);
    assert!(
        t.engine
            .services()
            .agent()
            .chat_rule_keys(&sid)
            .await
            .contains("files_write")
    );

    // Accept: one settings change with the rule and its origin, then the card's update.
    let (status, accepted) = t
        .client
        .post(
            &format!("/api/rule-proposals/{id}"),
            json!({"decision": "accept"}),
        )
        .await?;
    assert_eq!(status, 200, "{accepted}");
    assert_eq!(accepted["status"], "accepted");
    assert!(accepted["decided_at"].is_string());
    let updated = ws.wait_for("config.updated").await?;
    assert_eq!(updated["data"]["sections"], json!(["tools"]));
    let answered = ws.wait_for("rule_proposal.updated").await?;
    assert_eq!(answered["data"]["status"], "accepted");
    let (_, config) = t.client.get("/api/config").await?;
    assert_eq!(rules_of(&config)["files_write"], "never");
    let origin = &config["tools"]["approvals"]["rule_origins"]["files_write"];
    assert_eq!(origin["rule"], "never");
    assert_eq!(origin["said"], "Never write to my files");
    assert_eq!(origin["session_id"], sid.as_str());
    assert!(origin["at"].as_str().is_some_and(|a| !a.is_empty()));
    assert!(
        t.engine
            .services()
            .agent()
            .chat_rule_keys(&sid)
            .await
            .is_empty()
    );

    // Answered once: 409; unknown: 404; other decisions: 422.
    let (status, body) = t
        .client
        .post(
            &format!("/api/rule-proposals/{id}"),
            json!({"decision": "decline"}),
        )
        .await?;
    assert_eq!(status, 409);
    assert_eq!(body["detail"], "This rule suggestion was already answered.");
    let (status, _) = t
        .client
        .post("/api/rule-proposals/nope", json!({"decision": "accept"}))
        .await?;
    assert_eq!(status, 404);
    let (status, body) = t
        .client
        .post(
            &format!("/api/rule-proposals/{id}"),
            json!({"decision": "maybe"}),
        )
        .await?;
    assert_eq!(status, 400);
    assert_eq!(body["detail"], "decision is accept or decline.");
    let (status, body) = t
        .client
        .post(&format!("/api/rule-proposals/{id}"), json!({"decision": 5}))
        .await?;
    assert_eq!(status, 400, "a body that does not parse: {body}");

    // Lists by status; other statuses are a 400, an unknown chat a 404.
    for (query, count) in [
        ("", 0),
        ("?status=accepted", 1),
        ("?status=all", 1),
        ("?status=declined", 0),
    ] {
        let (status, listed) = t
            .client
            .get(&format!("/api/sessions/{sid}/rule-proposals{query}"))
            .await?;
        assert_eq!(
            (status, listed.as_array().map(Vec::len)),
            (200, Some(count)),
            "{query}"
        );
    }
    let (status, _) = t
        .client
        .get(&format!("/api/sessions/{sid}/rule-proposals?status=maybe"))
        .await?;
    assert_eq!(status, 400);
    let (status, _) = t.client.get("/api/sessions/nope/rule-proposals").await?;
    assert_eq!(status, 404);

    // The Never rule now hides the tool, and a call made anyway is refused.
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/x.txt", "content": "hi"}),
    ));
    server.push(Reply::text("That is switched off."));
    ws.send_json(json!({"type": "chat.send", "session_id": sid, "text": "Try once more"}))
        .await?;
    let refused = ws.wait_for("tool_result").await?;
    assert_eq!(refused["is_error"], true);
    assert!(
        refused["result"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("You've set Sentient to never use")),
        "{refused}"
    );
    ws.wait_for("done").await?;
    let calls = server.requests_to("/api/chat");
    assert_eq!(
        calls.len(),
        5,
        "no rule check for a message without a trigger"
    );
    let offered: Vec<&str> = calls[3].body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert!(!offered.contains(&"files_write"), "{offered:?}");
    assert!(offered.contains(&"files_read"), "{offered:?}");
    assert!(!t.home().join("files/outputs/x.txt").exists());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_condition_makes_the_rule_ask_and_decline_saves_nothing() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let sid = chat(&t).await?;
    let (_, before) = t.client.get("/api/config").await?;
    let message = t
        .engine
        .services()
        .sessions()
        .append(
            &sid,
            sentient_e2e::sentient_engine::agent::sessions::NewMessage {
                role: "user".to_owned(),
                content: "Don't search the web without asking me".to_owned(),
                ..Default::default()
            },
        )
        .await?;
    // The model says never; the words name a condition, so code makes it ask.
    server.push(Reply::json(
        json!({"keys": ["internet_search"], "rule": "never"}),
    ));
    let proposal = t
        .engine
        .services()
        .agent()
        .check_chat_rules(&sid, &message.id, &message.content)
        .await
        .expect("a proposal");
    assert_eq!(proposal.keys, ["internet_search"]);
    assert_eq!(proposal.targets[0].label, "Web > Internet search");
    assert_eq!(
        serde_json::to_value(proposal.rule)?,
        json!("ask"),
        "{proposal:?}"
    );
    assert!(
        t.engine
            .services()
            .agent()
            .chat_rule_keys(&sid)
            .await
            .contains("internet_search")
    );

    // The same words again: the pending proposal already covers them, so nothing new.
    server.push(Reply::json(
        json!({"keys": ["internet_search"], "rule": "ask"}),
    ));
    assert_eq!(
        t.engine
            .services()
            .agent()
            .check_chat_rules(&sid, &message.id, &message.content)
            .await,
        None
    );

    let mut events = t.engine.services().bus().subscribe();
    let (status, declined) = t
        .client
        .post(
            &format!("/api/rule-proposals/{}", proposal.id),
            json!({"decision": "decline"}),
        )
        .await?;
    assert_eq!(status, 200);
    assert_eq!(declined["status"], "declined");
    let event = next_of(&mut events, "rule_proposal.updated").await?;
    assert_eq!(event["data"]["status"], "declined");
    let (_, after) = t.client.get("/api/config").await?;
    assert_eq!(rules_of(&after), rules_of(&before));
    assert_eq!(
        after["tools"]["approvals"]["rule_origins"],
        json!({}),
        "decline saves nothing"
    );
    assert!(
        t.engine
            .services()
            .agent()
            .chat_rule_keys(&sid)
            .await
            .is_empty()
    );
    let (_, listed) = t
        .client
        .get(&format!(
            "/api/sessions/{sid}/rule-proposals?status=declined"
        ))
        .await?;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn messages_without_a_trigger_or_a_matching_tool_never_call_a_model() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let sid = chat(&t).await?;
    for text in [
        "What is the capital of France?",
        "Don't ask me again, just do it",
        "Stop asking and write the file",
        "Never go to the moon",
    ] {
        assert_eq!(
            t.engine
                .services()
                .agent()
                .check_chat_rules(&sid, "m1", text)
                .await,
            None
        );
    }
    // An answer that names nothing the message could mean makes no proposal either.
    server.push(Reply::json(
        json!({"keys": ["weather_forecast"], "rule": "never"}),
    ));
    assert_eq!(
        t.engine
            .services()
            .agent()
            .check_chat_rules(&sid, "m2", "never read my files")
            .await,
        None
    );
    assert_eq!(server.requests_to("/api/chat").len(), 1);
    let (_, listed) = t
        .client
        .get(&format!("/api/sessions/{sid}/rule-proposals?status=all"))
        .await?;
    assert_eq!(listed, json!([]));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_slow_check_finishes_in_the_background_and_its_tools_ask_meanwhile() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let sid = chat(&t).await?;
    let mut events = t.engine.services().bus().subscribe();
    server.push(
        Reply::text(r#"{"keys": ["files_read"], "rule": "never"}"#)
            .chunk_delay(Duration::from_millis(200)),
    );
    let waited = t
        .engine
        .services()
        .agent()
        .check_chat_rules_within(&sid, "m1", "never read my files", Duration::from_millis(20))
        .await;
    assert_eq!(waited, None);
    // Still weighing: its candidate tools ask first in this chat.
    let weighing = t.engine.services().agent().chat_rule_keys(&sid).await;
    assert!(weighing.contains("files_read"), "{weighing:?}");
    let wire = next_of(&mut events, "rule_proposal.updated").await?;
    assert_eq!(wire["data"]["keys"], json!(["files_read"]));
    // Done weighing: only the proposal's own keys ask now.
    assert_eq!(
        t.engine.services().agent().chat_rule_keys(&sid).await,
        ["files_read".to_owned()].into()
    );
    // Deleting the chat deletes its proposals.
    t.client
        .request(reqwest::Method::DELETE, &format!("/api/sessions/{sid}"))
        .send()
        .await?;
    let id = wire["data"]["id"].as_str().expect("id");
    let (status, _) = t
        .client
        .post(
            &format!("/api/rule-proposals/{id}"),
            json!({"decision": "accept"}),
        )
        .await?;
    assert_eq!(status, 404);
    t.stop().await;
    Ok(())
}
