//! Tool servers against our own MCP server (`tests/mcp-server`, rmcp's server side): over stdio
//! as a child process and over streamable HTTP. Its tools are listed with the risk their hints
//! give, run from a chat (text and structured results), a tool error and a slow call come back
//! as plain `{error}`s within `mcp_timeout_s`, Read only refuses the change and nothing is
//! saved, and removing the server ends its process.

use sentient_engine::sync::MutexExt;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use sentient_e2e::{TestEngine, mcp_test_server_binary};
use sentient_mcp_test_server::{NoteBook, Notes, serve_http};
use sentient_model_server::Reply;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::integrations::{chat, process_with, scripted, tool_result};

fn tool<'a>(server: &'a Value, mcp_name: &str) -> Result<&'a Value> {
    server["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["mcp_name"] == mcp_name))
        .with_context(|| format!("{mcp_name} in {server}"))
}

#[tokio::test]
async fn our_stdio_server_runs_from_chat_with_plain_errors_a_time_limit_read_only_and_an_end()
-> Result<()> {
    let t = TestEngine::start().await?;
    let model = scripted(&t).await?;
    let notes_dir = tempfile::tempdir()?;
    let notes_file = notes_dir.path().join("notes.txt");
    let marker = format!("SENTIENT_NOTES_TEST_{}", std::process::id());
    let bin = mcp_test_server_binary()?;
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "notes", "transport": "stdio", "command": bin, "args": [],
                   "env": {"NOTES_FILE": notes_file, "MARKER": marker}}),
        )
        .await?;
    assert_eq!(status, 200, "{server}");
    assert_eq!(server["status"], "connected", "{server}");
    assert!(process_with(&marker), "the server runs");
    let look_up = tool(&server, "look_up")?;
    assert_eq!(
        (look_up["name"].clone(), look_up["risk"].clone()),
        (json!("mcp_notes_look_up"), json!("read"))
    );
    assert_eq!(tool(&server, "save_note")?["risk"], "write");

    // A look-up answers with its text and its structured value.
    model.push(Reply::tool_call(
        "mcp_notes_look_up",
        json!({"word": "apple"}),
    ));
    model.push(Reply::text("Apple is there."));
    let events = chat(&t, "Is apple in my note book?").await?;
    let result = &tool_result(&events, "mcp_notes_look_up")?["result"];
    assert_eq!(result["content"], "apple: in the note book", "{result}");
    assert_eq!(
        result["structured"],
        json!({"word": "apple", "meaning": "apple is in the note book"})
    );

    // A change runs (approvals are off here) and reaches the server.
    model.push(Reply::tool_call(
        "mcp_notes_save_note",
        json!({"text": "buy milk"}),
    ));
    model.push(Reply::text("Saved."));
    let events = chat(&t, "Note: buy milk").await?;
    assert_eq!(
        tool_result(&events, "mcp_notes_save_note")?["result"]["content"],
        "Saved: buy milk"
    );
    assert_eq!(std::fs::read_to_string(&notes_file)?, "buy milk\n");

    // The server's own error comes back as the call's error.
    model.push(Reply::tool_call("mcp_notes_broken", json!({})));
    model.push(Reply::text("It is locked."));
    let events = chat(&t, "Try the broken one.").await?;
    let error = tool_result(&events, "mcp_notes_broken")?["result"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("The note book is locked."), "{error}");

    // A call that outlasts mcp_timeout_s ends with an error, not a hang.
    let (status, _) = t
        .client
        .patch("/api/config", json!({"integrations": {"mcp_timeout_s": 5}}))
        .await?;
    assert_eq!(status, 200);
    model.push(Reply::tool_call("mcp_notes_wait", json!({"seconds": 120})));
    model.push(Reply::text("It took too long."));
    let started = Instant::now();
    let events = chat(&t, "Wait a while.").await?;
    let result = &tool_result(&events, "mcp_notes_wait")?["result"];
    assert!(result["error"].is_string(), "{result}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the call was cut off at the time limit"
    );

    // Read only: the change is refused with the contract's sentence and nothing is saved.
    let (status, _) = t
        .client
        .post(
            "/api/integrations/mcp/notes/access",
            json!({"access": "read"}),
        )
        .await?;
    assert_eq!(status, 200);
    model.push(Reply::tool_call(
        "mcp_notes_save_note",
        json!({"text": "sell the car"}),
    ));
    model.push(Reply::text("I can't."));
    let events = chat(&t, "Note: sell the car").await?;
    assert_eq!(
        tool_result(&events, "mcp_notes_save_note")?["result"]["error"],
        "notes is set to Read only, so Sentient can look things up there but can't change, send or delete anything. \"Save note\" was not done. Change this in Integrations."
    );
    assert_eq!(std::fs::read_to_string(&notes_file)?, "buy milk\n");

    let (status, _) = t.client.delete("/api/integrations/mcp/notes").await?;
    assert_eq!(status, 200);
    sentient_e2e::eventually("the server process to end", || async {
        Ok((!process_with(&marker)).then_some(()))
    })
    .await?;
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn our_http_server_connects_and_its_tools_run_from_chat() -> Result<()> {
    let notes = Notes::default();
    let stop = CancellationToken::new();
    let url = serve_http(NoteBook::new(notes.clone(), None), stop.clone()).await?;
    let t = TestEngine::start().await?;
    let model = scripted(&t).await?;
    let (status, server) = t
        .client
        .post(
            "/api/integrations/mcp",
            json!({"name": "book", "transport": "http", "url": url}),
        )
        .await?;
    assert_eq!(status, 200, "{server}");
    assert_eq!(server["status"], "connected", "{server}");
    assert_eq!(server["auth"], "none");
    assert_eq!(tool(&server, "look_up")?["risk"], "read");

    model.push(Reply::tool_call(
        "mcp_book_save_note",
        json!({"text": "call mum"}),
    ));
    model.push(Reply::text("Saved."));
    let events = chat(&t, "Note: call mum").await?;
    assert_eq!(
        tool_result(&events, "mcp_book_save_note")?["result"]["content"],
        "Saved: call mum"
    );
    assert_eq!(*notes.lock_unpoisoned(), ["call mum"]);

    let (status, tested) = t
        .client
        .post("/api/integrations/mcp/book/test", json!({}))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(tested["ok"], true, "{tested}");

    // The server going away shows on its card instead of hanging the list.
    stop.cancel();
    let (status, tested) = t
        .client
        .post("/api/integrations/mcp/book/test", json!({}))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(tested["ok"], false, "{tested}");
    t.stop().await;
    Ok(())
}
