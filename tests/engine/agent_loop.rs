//! The agent loop against the scripted model server: multi-round tool use, approvals (ask,
//! allow for this chat, deny), lasting rules, work nobody asked for, parallel reads, outside
//! content marking, the repeated-call breaker and the round budget.

use std::collections::BTreeSet;
use std::sync::Mutex;

use anyhow::Result;
use futures::future::BoxFuture;
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::agent::approvals::Origin;
use sentient_e2e::sentient_engine::agent::run_loop::{
    ApprovalAnswer, ApprovalQuestion, Approver, LoopEnd, LoopEvent, LoopInput, LoopResult,
};
use sentient_e2e::sentient_engine::llm::queue::JobKind;
use sentient_e2e::sentient_engine::llm::{CallOptions, Message, ModelRole};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// Answers approval questions from a list and remembers what it was asked.
struct Scripted {
    answers: Mutex<Vec<ApprovalAnswer>>,
    asked: Mutex<Vec<ApprovalQuestion>>,
}

impl Scripted {
    fn new(answers: Vec<ApprovalAnswer>) -> Self {
        Self {
            answers: Mutex::new(answers),
            asked: Mutex::new(Vec::new()),
        }
    }
}

impl Approver for Scripted {
    fn ask(&self, question: ApprovalQuestion) -> BoxFuture<'_, ApprovalAnswer> {
        self.asked.lock().expect("lock").push(question);
        let answer = self
            .answers
            .lock()
            .expect("lock")
            .pop()
            .unwrap_or(ApprovalAnswer::Deny);
        Box::pin(async move { answer })
    }
}

async fn engine(server: &ScriptedModel) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    sentient_e2e::point_models_at(&t, server).await?;
    Ok(t)
}

async fn run(
    t: &TestEngine,
    origin: Origin,
    approver: Option<&dyn Approver>,
    max_rounds: u32,
) -> (LoopResult, Vec<LoopEvent>) {
    let mut events = Vec::new();
    let input = LoopInput {
        messages: vec![Message::system("You are Sentient."), Message::user("do it")],
        opts: CallOptions::new(ModelRole::Primary, "chat", JobKind::Chat)
            .with_model(Some("ollama_chat/qwen3:8b".into())),
        origin,
        approver,
        scoped_apps: Vec::new(),
        max_rounds,
        tool_result_limit: 16_000,
        untrusted: None,
        visited_hosts: BTreeSet::new(),
        steering: None,
        session_id: None,
        scope: None,
        repeat_nudge: origin == Origin::Chat,
        browser_profile: Default::default(),
        tools_given: None,
    };
    let result = t
        .engine
        .services()
        .agent()
        .run_loop(input, &mut |e| events.push(e))
        .await;
    (result, events)
}

fn results(events: &[LoopEvent]) -> Vec<(String, Value, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolResult {
                name,
                result,
                is_error,
                ..
            } => Some((name.clone(), result.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn tools_run_round_after_round_until_the_model_answers() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(
        Reply::thinking("need the time")
            .then_tool_call("time_now", json!({"timezone": "Asia/Kolkata"})),
    );
    server.push(Reply::tool_call("files_list", json!({})));
    server.push(Reply::text(
        "It is evening in Pune and your files folder has three folders.",
    ));
    let (result, events) = run(&t, Origin::Chat, None, 12).await;
    assert_eq!(result.error(), None);
    assert_eq!(
        result.text,
        "It is evening in Pune and your files folder has three folders."
    );
    let results = results(&events);
    assert_eq!(
        results.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["time_now", "files_list"]
    );
    assert_eq!(results[0].1["timezone"], "Asia/Kolkata");
    assert!(!results[0].2);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, LoopEvent::ThinkingDelta(t) if t.contains("need")))
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, LoopEvent::Usage { .. }))
            .count(),
        3
    );
    // The model saw each result: round two's request carries the time_now result.
    let sent = server.requests_to("/api/chat");
    let second = sent[1].body["messages"].as_array().expect("messages");
    assert!(second.iter().any(|m| {
        m["role"] == "tool"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.contains("Asia/Kolkata"))
    }));
    // time, files, web (6 tools), the tasks app (5), memory (7), the built-in weather (2),
    // maps (3), news (2) and charts (1), the browser (13), execute_code and the helpers (2); the
    // scoped run tools are not offered.
    assert_eq!(
        sent[0].body["tools"].as_array().map(Vec::len),
        Some(42),
        "every built-in tool that isn't scoped is offered"
    );
    // What the run adds: assistant, tool, assistant, tool, assistant.
    let roles: Vec<_> = result
        .added
        .iter()
        .map(|m| format!("{:?}", m.role))
        .collect();
    assert_eq!(
        roles,
        ["Assistant", "Tool", "Assistant", "Tool", "Assistant"]
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn writes_ask_in_chat_and_the_answer_decides() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    // Denied first, then allowed for the rest of the chat, which covers the second write.
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/a.txt", "content": "A"}),
    ));
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/b.txt", "content": "B"}),
    ));
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/c.txt", "content": "C"}),
    ));
    server.push(Reply::text("done"));
    let approver = Scripted::new(vec![ApprovalAnswer::AllowForChat, ApprovalAnswer::Deny]);
    let (result, events) = run(&t, Origin::Chat, Some(&approver), 12).await;
    assert_eq!(result.text, "done");
    let asked = approver.asked.lock().expect("lock").clone();
    assert_eq!(
        asked.len(),
        2,
        "the third write is covered by Allow for this chat"
    );
    assert_eq!(asked[0].name, "files_write");
    assert_eq!(asked[0].risk, "write");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, LoopEvent::ApprovalRequest(_)))
    );
    let results = results(&events);
    assert_eq!(results[0].1["declined"], true);
    assert!(
        !t.home().join("files/outputs/a.txt").exists(),
        "a declined write changes nothing"
    );
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/b.txt"))?,
        "B"
    );
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/c.txt"))?,
        "C"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn never_rules_hide_and_refuse_and_unprompted_work_may_only_read() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    t.client
        .patch(
            "/api/config",
            json!({"tools": {"approvals": {"rules": {"web": "never"}}}}),
        )
        .await?;
    server.push(Reply::tool_call(
        "web_fetch",
        json!({"url": "http://127.0.0.1:9/"}),
    ));
    server.push(Reply::text("ok"));
    let (_, events) = run(&t, Origin::Chat, None, 12).await;
    let offered: Vec<String> = server.requests_to("/api/chat")[0].body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect();
    assert!(
        !offered
            .iter()
            .any(|n| n.starts_with("web_") || n == "internet_search"),
        "never-tools are not offered: {offered:?}"
    );
    let refused = &results(&events)[0];
    assert!(refused.2);
    assert!(
        refused.1["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("You've set Sentient to never use")),
        "{refused:?}"
    );

    // Work nobody asked for: the write is held, not run.
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/x.txt", "content": "x"}),
    ));
    server.push(Reply::text("held"));
    let (result, _) = run(&t, Origin::Proactive, None, 12).await;
    assert_eq!(result.held, ["files_write"]);
    assert!(!t.home().join("files/outputs/x.txt").exists());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn parallel_reads_keep_the_models_order() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(Reply::tool_calls(vec![
        ("time_now", json!({"timezone": "UTC"})),
        ("files_list", json!({})),
        ("time_now", json!({"timezone": "Asia/Tokyo"})),
    ]));
    server.push(Reply::text("three answers"));
    let (result, events) = run(&t, Origin::Chat, None, 12).await;
    assert_eq!(result.text, "three answers");
    let results = results(&events);
    assert_eq!(
        results.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["time_now", "files_list", "time_now"]
    );
    assert_eq!(results[0].1["timezone"], "UTC");
    assert_eq!(results[2].1["timezone"], "Asia/Tokyo");
    let tool_messages: Vec<_> = result
        .added
        .iter()
        .filter_map(|m| m.tool_call_id.clone())
        .collect();
    let call_ids: Vec<_> = result.added[0]
        .tool_calls
        .iter()
        .map(|c| c.id.clone())
        .collect();
    assert_eq!(tool_messages, call_ids, "results answer the calls in order");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_stuck_model_is_nudged_then_stopped_and_the_budget_holds() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    for _ in 0..6 {
        server.push(Reply::tool_call("files_list", json!({})));
    }
    let (result, _) = run(&t, Origin::Chat, None, 12).await;
    assert!(result.stopped_by_repeat());
    assert!(!result.stopped_by_budget());
    let sent = server.requests_to("/api/chat");
    let nudged = sent.iter().any(|r| {
        r.body["messages"].as_array().is_some_and(|m| {
            m.iter().any(|m| {
                m["content"]
                    .as_str()
                    .is_some_and(|c| c.contains("same tool call several times"))
            })
        })
    });
    assert!(nudged, "the model was told before it was stopped");
    assert_eq!(sent.len(), 4, "three repeats, one nudged round, then stop");

    for zone in ["UTC", "Asia/Tokyo", "Europe/Paris"] {
        server.push(Reply::tool_call("time_now", json!({"timezone": zone})));
    }
    let (result, _) = run(&t, Origin::Task, None, 2).await;
    assert!(result.stopped_by_budget());
    t.stop().await;
    Ok(())
}

/// The breaker counts the same call with the same result (`tools.repeated_call_limit` times,
/// 0 = off); a different result starts again; unattended runs stop without a nudge and say
/// whether the repeated result was an error.
#[tokio::test]
async fn the_loop_breaker_follows_its_setting_and_the_results() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let asked = || server.requests_to("/api/chat").len();

    // A task run: three identical results end it at once, no nudge.
    for _ in 0..3 {
        server.push(Reply::tool_call("files_list", json!({})));
    }
    let before = asked();
    let (result, _) = run(&t, Origin::Task, None, 12).await;
    assert_eq!(
        result.end,
        LoopEnd::Repeat {
            tool: "files_list".into(),
            times: 3,
            error: None
        }
    );
    assert_eq!(
        asked() - before,
        3,
        "stopped after the third, without a nudge"
    );

    // The same call with a different result in between starts the count again.
    server
        .push(Reply::tool_call("files_list", json!({})))
        .push(Reply::tool_call("files_list", json!({})))
        .push(Reply::tool_call(
            "files_write",
            json!({"path": "outputs/a.txt", "content": "a"}),
        ))
        .push(Reply::tool_call("files_list", json!({})))
        .push(Reply::tool_call("files_list", json!({})))
        .push(Reply::text("listed"));
    let (result, _) = run(&t, Origin::Task, None, 12).await;
    assert_eq!(result.end, LoopEnd::Answered, "{:?}", result.end);
    assert_eq!(result.text, "listed");

    // The same error each time is reported as one.
    for _ in 0..3 {
        server.push(Reply::tool_call(
            "files_read",
            json!({"path": "outputs/missing.txt"}),
        ));
    }
    let (result, _) = run(&t, Origin::Task, None, 12).await;
    match &result.end {
        LoopEnd::Repeat {
            tool,
            times: 3,
            error: Some(error),
        } => {
            assert_eq!(tool, "files_read");
            assert!(!error.is_empty());
        }
        other => panic!("expected a repeated error, got {other:?}"),
    }

    // 0 turns it off; 2 trips it sooner.
    t.client
        .patch("/api/config", json!({"tools": {"repeated_call_limit": 0}}))
        .await?;
    for _ in 0..5 {
        server.push(Reply::tool_call("files_list", json!({})));
    }
    server.push(Reply::text("five lists"));
    let (result, _) = run(&t, Origin::Task, None, 12).await;
    assert_eq!(result.end, LoopEnd::Answered, "{:?}", result.end);
    t.client
        .patch("/api/config", json!({"tools": {"repeated_call_limit": 2}}))
        .await?;
    server
        .push(Reply::tool_call("files_list", json!({})))
        .push(Reply::tool_call("files_list", json!({})));
    let (result, _) = run(&t, Origin::Task, None, 12).await;
    assert!(
        matches!(result.end, LoopEnd::Repeat { times: 2, .. }),
        "{:?}",
        result.end
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn reading_the_web_marks_the_run_as_having_read_outside_content() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    // A page served on loopback stands in for the web.
    let page = axum::Router::new().route(
        "/",
        axum::routing::get(|| async {
            axum::response::Html(
                "<html><title>News</title><body><p>Hello from the page.</p></body></html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, page).await });
    server.push(Reply::tool_call(
        "web_fetch",
        json!({"url": format!("http://{addr}/")}),
    ));
    server.push(Reply::text("read it"));
    let (result, events) = run(&t, Origin::Chat, None, 12).await;
    assert!(!results(&events)[0].2, "{events:?}");
    assert_eq!(result.untrusted.as_deref(), Some("Web"));
    // The fetch reported what it was doing while it ran, before its result.
    let progress = events.iter().position(|e| matches!(e, LoopEvent::ToolProgress { name, update, .. } if name == "web_fetch" && update.text.contains("127.0.0.1")));
    let finished = events
        .iter()
        .position(|e| matches!(e, LoopEvent::ToolResult { .. }));
    assert!(progress.is_some() && progress < finished, "{events:?}");
    assert!(result.visited_hosts.contains("127.0.0.1"));
    t.stop().await;
    Ok(())
}
