//! Memory learning in the background (issue 16, contract sections 7 and 10): durable facts are
//! kept before a long chat is folded into its summary (held when the chat read outside
//! content), and Stop everything ends an extraction that is under way.

use std::time::Duration;

use anyhow::{Context, Result};
use sentient_e2e::{TestEngine, eventually, point_models_at};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

fn decision() -> Reply {
    Reply::json(json!({
        "action": "ADD", "target": null, "topics": ["Interests & Lifestyle"],
        "memory_type": "long-term", "expires_at": null,
    }))
}

async fn started(config: Value) -> Result<(ScriptedModel, TestEngine)> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    point_models_at(&t, &server).await?;
    let (status, body) = t.client.patch("/api/config", config).await?;
    anyhow::ensure!(status == 200, "config: {status} {body}");
    Ok((server, t))
}

/// Six turns in one chat, the last of which makes it long enough to fold; `before_last` runs
/// before the sixth (to mark the chat), and `fold` answers the model calls after it.
async fn long_chat(
    t: &TestEngine,
    server: &ScriptedModel,
    topic: &str,
    before_last: impl AsyncFn(&str) -> Result<()>,
    fold: Vec<Reply>,
) -> Result<String> {
    let mut fold = Some(fold);
    let mut ws = t.ws().await?;
    let mut sid = Value::Null;
    for n in 1..=6 {
        if n == 6 {
            before_last(sid.as_str().unwrap_or_default()).await?;
        }
        server.push(Reply::text(format!("Answer {n}.")));
        if n == 6 {
            for reply in fold.take().unwrap_or_default() {
                server.push(reply);
            }
        }
        ws.send_json(
            json!({"type": "chat.send", "session_id": sid, "text": format!("{topic} {n}")}),
        )
        .await?;
        sid = ws.wait_for("done").await?["session_id"].clone();
    }
    sid.as_str().map(str::to_owned).context("chat id")
}

/// The fast-model request whose system prompt keeps facts before a fold.
fn flush_request(server: &ScriptedModel, topic: &str) -> Option<String> {
    server
        .requests_to("/api/chat")
        .into_iter()
        .map(|r| r.body)
        .find(|b| {
            b["messages"][0]["content"]
                .as_str()
                .is_some_and(|s| s.contains("before its older part is summarized"))
                && b["messages"][1]["content"]
                    .as_str()
                    .is_some_and(|c| c.contains(topic))
        })
        .and_then(|b| b["messages"][1]["content"].as_str().map(str::to_owned))
}

#[tokio::test]
async fn durable_facts_are_kept_before_a_long_chat_is_folded() -> Result<()> {
    let (server, t) = started(json!({
        "models": {"background_quiet_s": 0},
        "memory": {"extract_after_turn": false, "flush_max_facts": 1},
        "chat": {"compress_after_messages": 10, "history_window": 4, "auto_title": false},
    }))
    .await?;

    // A clean chat: the fact is remembered at once; only the first of two is kept (the limit).
    let fold = vec![
        Reply::json(json!({"facts": ["User likes green tea", "User has a cat"]})),
        decision(),
        Reply::text("The user talked about tea."),
    ];
    let clean = long_chat(&t, &server, "Tea question", async |_| Ok(()), fold).await?;
    let kept = eventually("the fact kept before the fold", || async {
        let (_, list) = t.client.get("/api/memories").await?;
        Ok(list
            .as_array()
            .and_then(|l| l.iter().find(|m| m["content"] == "User likes green tea"))
            .cloned())
    })
    .await?;
    assert_eq!(kept["source"], "conversation");
    assert_eq!(kept["status"], "active");
    let read = flush_request(&server, "Tea question").context("the flush request")?;
    assert!(read.starts_with("User: Tea question 1"), "{read}");
    assert!(read.contains("Assistant: Answer 1."), "{read}");
    eventually("the chat's summary", || async {
        let (summary, _) = t.engine.services().sessions().summary(&clean).await?;
        Ok((!summary.is_empty()).then_some(()))
    })
    .await?;
    let (_, list) = t.client.get("/api/memories").await?;
    assert!(
        !list
            .as_array()
            .is_some_and(|l| l.iter().any(|m| m["content"] == "User has a cat")),
        "{list}"
    );

    // A chat that read outside content: what its fold keeps waits for review.
    let fold = vec![
        Reply::json(json!({"facts": ["User sails on Sundays"]})),
        decision(),
        Reply::text("The user talked about sailing."),
    ];
    let sessions = t.engine.services().sessions().clone();
    let mark = async |sid: &str| {
        sessions.mark_untrusted(sid, "Gmail").await?;
        Ok(())
    };
    let marked = long_chat(&t, &server, "Sailing question", mark, fold).await?;
    let inbox = eventually("the held fact", || async {
        let (_, inbox) = t.client.get("/api/memories/review").await?;
        Ok((inbox["count"] == 1).then_some(inbox))
    })
    .await?;
    let item = &inbox["items"][0];
    assert_eq!(item["text"], "User sails on Sundays");
    assert_eq!(item["from"], "Gmail");
    assert_eq!(item["session_id"], marked.as_str());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn stop_everything_ends_an_extraction_under_way() -> Result<()> {
    let (server, t) = started(json!({
        "models": {"background_quiet_s": 0},
        "chat": {"auto_title": false},
    }))
    .await?;
    server.push(Reply::text("Lovely."));
    // The extraction after the turn never answers on its own.
    server.push(Reply::json(json!({"facts": ["User plays chess"]})).stalls_after(0));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "I play chess every week."}))
        .await?;
    ws.wait_for("done").await?;
    eventually("the extraction asked", || async {
        Ok((server.requests_to("/api/chat").len() >= 2).then_some(()))
    })
    .await?;
    let before = server.disconnects();
    let (status, stopped) = t.client.post("/api/stop-all", json!({})).await?;
    assert_eq!(status, 200, "{stopped}");
    eventually("the extraction dropped", || async {
        Ok((server.disconnects() > before).then_some(()))
    })
    .await?;
    // Nothing was learned, and nothing is left running.
    assert_eq!(
        t.engine
            .services()
            .stop()
            .jobs_ended_within(Duration::from_secs(5))
            .await,
        0
    );
    let (_, list) = t.client.get("/api/memories").await?;
    assert_eq!(list, json!([]));

    // While stopped, a finished turn learns nothing and asks no model.
    let asked = server.requests_to("/api/chat").len();
    let turn = sentient_e2e::sentient_engine::agent::chat_memory::FinishedTurn {
        session_id: "none".into(),
        user_text: "I play chess every week.".into(),
        untrusted: None,
        outside_snippet: None,
    };
    assert_eq!(t.engine.services().memory().learn_from_turn(&turn).await, 0);
    assert_eq!(server.requests_to("/api/chat").len(), asked);
    t.stop().await;
    Ok(())
}
