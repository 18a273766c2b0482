//! Regenerate and failed turns (issue 32) over real HTTP and `/ws` against the scripted model
//! server: a new answer replaces the last one without sending the question again, the old answer
//! stays as a version the person can flip back to (and the model reads only the shown one), the
//! doors refuse with 404 and 409, and a failed turn is saved with its error so a reopened chat
//! (a restarted engine on the same home) still offers Try again.

use anyhow::Result;
use futures::StreamExt;
use sentient_e2e::TestEngine;
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

async fn engine_in(home: &std::path::Path, server: &ScriptedModel) -> Result<TestEngine> {
    let t = TestEngine::start_in(home).await?;
    sentient_e2e::point_models_at(&t, server).await?;
    // No title call after the first reply, so every scripted reply goes to the chat.
    t.client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b"}, "chat": {"auto_title": false}}),
        )
        .await?;
    Ok(t)
}

/// Every line of an NDJSON answer (the stream ends after the turn's `done`).
async fn ndjson(response: reqwest::Response) -> Result<Vec<Value>> {
    let mut body = response.bytes_stream();
    let mut text = String::new();
    while let Some(part) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&part?));
    }
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Ok(serde_json::from_str(l)?))
        .collect()
}

async fn post_stream(t: &TestEngine, path: &str, body: Value) -> Result<reqwest::Response> {
    Ok(t.client
        .request(reqwest::Method::POST, path)
        .json(&body)
        .send()
        .await?)
}

/// The roles and words the model was sent in its latest chat request (system prompt left out).
fn last_prompt(server: &ScriptedModel) -> Vec<(String, String)> {
    let requests = server.requests_to("/api/chat");
    let last = requests.last().expect("a chat request");
    last.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(r, c)| ((*r).to_owned(), (*c).to_owned()))
        .collect()
}

async fn rows(t: &TestEngine, sid: &str) -> Result<Vec<Value>> {
    let (status, rows) = t
        .client
        .get(&format!("/api/sessions/{sid}/messages"))
        .await?;
    assert_eq!(status, 200, "{rows}");
    Ok(rows.as_array().cloned().unwrap_or_default())
}

fn contents(versions: &Value) -> Vec<String> {
    versions
        .as_array()
        .map(|list| {
            list.iter()
                .map(|v| v["content"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn regenerate_over_http_replaces_the_answer_and_keeps_the_old_one_as_a_version() -> Result<()>
{
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let t = engine_in(dir.path(), &server).await?;
    server.push(Reply::text("Paris."));
    let first =
        ndjson(post_stream(&t, "/api/chat", json!({"text": "Capital of France?"})).await?).await?;
    let sid = first[0]["session_id"].as_str().expect("session").to_owned();

    server.push(Reply::text("Paris, of course."));
    let response = post_stream(&t, &format!("/api/sessions/{sid}/regenerate"), json!({})).await?;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let lines = ndjson(response).await?;
    assert_eq!(lines[0]["type"], "session");
    let done = lines.last().expect("done");
    assert_eq!(done["type"], "done");
    assert_eq!(done["content"], "Paris, of course.");
    assert_eq!(contents(&done["versions"]), ["Paris.", "Paris, of course."]);
    assert_eq!(done["version_index"], 1);
    // The question went to the model once, and its earlier answer not at all.
    assert_eq!(
        last_prompt(&server),
        pairs(&[("user", "Capital of France?")])
    );

    // The transcript (and so a reload) shows the question once and the new answer in place.
    let shown = rows(&t, &sid).await?;
    let roles: Vec<&str> = shown.iter().filter_map(|r| r["role"].as_str()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(shown[1]["content"], "Paris, of course.");
    assert_eq!(shown[1]["id"], done["message_id"]);
    assert_eq!(
        contents(&shown[1]["versions"]),
        ["Paris.", "Paris, of course."]
    );
    assert_eq!(shown[1]["version_index"], 1);
    assert_eq!(shown[0]["versions"], json!([]));
    // A search finds only the shown version.
    let (_, hits) = t.client.get("/api/sessions/search?q=course").await?;
    assert_eq!(hits.as_array().map(Vec::len), Some(1));

    // Flipping back shows the first answer, and the next question's model reads that one.
    let (status, flipped) = t
        .client
        .post(
            &format!(
                "/api/sessions/{sid}/messages/{}/version",
                shown[1]["id"].as_str().unwrap_or_default()
            ),
            json!({"index": 0}),
        )
        .await?;
    assert_eq!(status, 200, "{flipped}");
    assert_eq!(flipped[1]["content"], "Paris.");
    assert_eq!(flipped[1]["version_index"], 0);
    assert_eq!(rows(&t, &sid).await?[1]["content"], "Paris.");
    let (_, hits) = t.client.get("/api/sessions/search?q=course").await?;
    assert_eq!(hits, json!([]));
    server.push(Reply::text("Lyon."));
    ndjson(
        post_stream(
            &t,
            "/api/chat",
            json!({"text": "And the second city?", "session_id": sid}),
        )
        .await?,
    )
    .await?;
    assert_eq!(
        last_prompt(&server),
        pairs(&[
            ("user", "Capital of France?"),
            ("assistant", "Paris."),
            ("user", "And the second city?")
        ])
    );

    // Versions survive a restart on the same home.
    t.stop().await;
    let t = engine_in(dir.path(), &server).await?;
    let shown = rows(&t, &sid).await?;
    let roles: Vec<&str> = shown.iter().filter_map(|r| r["role"].as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(
        contents(&shown[1]["versions"]),
        ["Paris.", "Paris, of course."]
    );
    assert_eq!(shown[1]["version_index"], 0);
    assert_eq!(shown[3]["versions"], json!([]));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_doors_refuse_with_404_409_and_400_in_plain_words() -> Result<()> {
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let t = engine_in(dir.path(), &server).await?;
    let regenerate = |sid: &str| format!("/api/sessions/{sid}/regenerate");

    let (status, body) = t.client.post(&regenerate("nope"), json!({})).await?;
    assert_eq!(
        (status, body),
        (404, json!({"detail": "There is no chat with the id nope."}))
    );
    let (_, created) = t.client.post("/api/sessions", json!({})).await?;
    let empty = created["session_id"].as_str().expect("id").to_owned();
    let (status, body) = t.client.post(&regenerate(&empty), json!({})).await?;
    assert_eq!(
        (status, body),
        (
            409,
            json!({"detail": "There is no answer to regenerate in this chat yet."})
        )
    );
    let (status, _) = t
        .client
        .post(&regenerate(&empty), json!({"model": 5}))
        .await?;
    assert_eq!(status, 422);

    // A reply being written: Regenerate and a version flip wait for nothing, they say so.
    server.push(Reply::text("A long answer that never ends").stalls_after(2));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Tell me everything"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    ws.wait_for("text_delta").await?;
    let (status, body) = t.client.post(&regenerate(&sid), json!({})).await?;
    assert_eq!(
        (status, body),
        (
            409,
            json!({"detail": "A reply is being written in this chat. Wait for it to finish, or stop it first."})
        )
    );
    ws.send_json(json!({"type": "chat.cancel", "session_id": sid}))
        .await?;
    let done = ws.wait_for("done").await?;
    assert_eq!(done["cancelled"], true);

    // Versions: an unknown message, an answer without versions, an index past the end.
    let version = |message: &str| format!("/api/sessions/{sid}/messages/{message}/version");
    let (status, body) = t.client.post(&version("nope"), json!({"index": 0})).await?;
    assert_eq!(
        (status, body),
        (
            404,
            json!({"detail": "There is no message with the id nope in this chat."})
        )
    );
    let stopped = done["message_id"].as_str().expect("kept").to_owned();
    let (status, body) = t
        .client
        .post(&version(&stopped), json!({"index": 0}))
        .await?;
    assert_eq!(
        (status, body),
        (409, json!({"detail": "This answer has no other versions."}))
    );
    // A stopped answer is an answer: Regenerate keeps it as version 1.
    server.push(Reply::text("The short version."));
    let lines = ndjson(post_stream(&t, &regenerate(&sid), json!({})).await?).await?;
    let done = lines.last().expect("done");
    assert_eq!(done["versions"].as_array().map(Vec::len), Some(2));
    assert!(contents(&done["versions"])[0].ends_with("(stopped)"));
    let (status, body) = t
        .client
        .post(&version(&stopped), json!({"index": 2}))
        .await?;
    assert_eq!(
        (status, body),
        (
            400,
            json!({"detail": "This answer has 2 versions; index is 0 to 1."})
        )
    );
    let (status, _) = t.client.post(&version(&stopped), json!({})).await?;
    assert_eq!(status, 400);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn regenerate_over_ws_streams_in_place_and_a_failed_attempt_is_never_kept() -> Result<()> {
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let t = engine_in(dir.path(), &server).await?;
    let mut ws = t.ws().await?;
    server.push(Reply::text("Green."));
    ws.send_json(json!({"type": "chat.send", "text": "Pick a colour", "client_id": "c1"}))
        .await?;
    let sid = ws.wait_for("session").await?["session_id"]
        .as_str()
        .expect("id")
        .to_owned();
    ws.wait_for("done").await?;

    server.push(Reply::text("Blue."));
    ws.send_json(json!({"type": "chat.regenerate", "session_id": sid, "client_id": "r1"}))
        .await?;
    let session = ws.wait_for("session").await?;
    assert_eq!(session["client_id"], "r1");
    assert_eq!(session["session_id"], sid.as_str());
    let done = ws.wait_for("done").await?;
    assert_eq!(done["content"], "Blue.");
    assert_eq!(contents(&done["versions"]), ["Green.", "Blue."]);
    assert_eq!(last_prompt(&server), pairs(&[("user", "Pick a colour")]));

    // The model is gone on the next try: the attempt shows as version 3 with its error...
    server.push(Reply::error(404));
    ws.send_json(json!({"type": "chat.regenerate", "session_id": sid, "client_id": "r2"}))
        .await?;
    let error = ws.wait_for("error").await?;
    let message = error["message"].as_str().expect("sentence").to_owned();
    assert!(!message.is_empty());
    let done = ws.wait_for("done").await?;
    assert_eq!(done["version_index"], 2);
    assert_eq!(done["versions"][2]["error"], message.as_str());
    let shown = rows(&t, &sid).await?;
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[1]["error"], message.as_str());
    assert_eq!(shown[1]["content"], "");

    // ...and Try again replaces it: the failed attempt is dropped, the good ones stay.
    server.push(Reply::text("Red."));
    ws.send_json(json!({"type": "chat.regenerate", "session_id": sid, "client_id": "r3"}))
        .await?;
    let done = ws.wait_for("done").await?;
    assert_eq!(contents(&done["versions"]), ["Green.", "Blue.", "Red."]);
    assert_eq!(done["versions"][2]["error"], Value::Null);
    assert_eq!(last_prompt(&server), pairs(&[("user", "Pick a colour")]));

    // Refusals come back as the turn's error with the client's id, and nothing runs.
    ws.send_json(json!({"type": "chat.regenerate", "session_id": "nope", "client_id": "r4"}))
        .await?;
    let refused = ws.wait_for("error").await?;
    assert_eq!(refused["message"], "There is no chat with the id nope.");
    assert_eq!(refused["client_id"], "r4");
    assert_eq!(refused["session_id"], "nope");
    ws.send_json(json!({"type": "chat.regenerate"})).await?;
    let refused = ws.wait_for("error").await?;
    assert_eq!(
        refused["message"],
        "chat.regenerate needs the chat's session_id."
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_failed_turn_is_saved_with_its_error_and_try_again_answers_it_after_a_restart()
-> Result<()> {
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let t = engine_in(dir.path(), &server).await?;
    server.push(Reply::error(404));
    let lines = ndjson(post_stream(&t, "/api/chat", json!({"text": "Hello there"})).await?).await?;
    let sid = lines[0]["session_id"].as_str().expect("session").to_owned();
    let error = lines
        .iter()
        .find(|l| l["type"] == "error")
        .expect("the error line")["message"]
        .clone();
    let done = lines.last().expect("done");
    assert_eq!(done["type"], "done");

    // The chat reopened in a new engine still holds the error on an assistant row.
    t.stop().await;
    let t = engine_in(dir.path(), &server).await?;
    let shown = rows(&t, &sid).await?;
    let roles: Vec<&str> = shown.iter().filter_map(|r| r["role"].as_str()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(shown[1]["error"], error);
    assert_eq!(shown[1]["content"], "");
    assert_eq!(shown[1]["id"], done["message_id"]);
    assert_eq!(shown[0]["error"], Value::Null);

    // A new question after the failure: the model never sees the failed turn as an answer.
    server.push(Reply::text("Hi!"));
    ndjson(
        post_stream(
            &t,
            "/api/chat",
            json!({"text": "Are you there?", "session_id": sid}),
        )
        .await?,
    )
    .await?;
    assert_eq!(
        last_prompt(&server),
        pairs(&[("user", "Hello there"), ("user", "Are you there?")])
    );

    // Try again on a chat whose last turn failed: the question is answered, not sent twice.
    let (_, created) = t.client.post("/api/sessions", json!({})).await?;
    let fresh = created["session_id"].as_str().expect("id").to_owned();
    server.push(Reply::error(404));
    ndjson(
        post_stream(
            &t,
            "/api/chat",
            json!({"text": "Still there?", "session_id": fresh}),
        )
        .await?,
    )
    .await?;
    server.push(Reply::text("Yes."));
    let lines =
        ndjson(post_stream(&t, &format!("/api/sessions/{fresh}/regenerate"), json!({})).await?)
            .await?;
    let done = lines.last().expect("done");
    assert_eq!(done["content"], "Yes.");
    // A failed attempt is not a version worth keeping.
    assert_eq!(done.get("versions"), None);
    assert_eq!(last_prompt(&server), pairs(&[("user", "Still there?")]));
    let shown = rows(&t, &fresh).await?;
    let seen: Vec<(&str, &str)> = shown
        .iter()
        .map(|r| {
            (
                r["role"].as_str().unwrap_or_default(),
                r["content"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(seen, [("user", "Still there?"), ("assistant", "Yes.")]);
    assert_eq!(shown[1]["error"], Value::Null);
    t.stop().await;
    Ok(())
}
