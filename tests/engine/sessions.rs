//! Chats over HTTP: create, list, transcript rows in the contract's shape, search, rename and
//! delete.

use anyhow::Result;
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::agent::sessions::{NewMessage, StoredFunction, StoredToolCall};
use serde_json::{Value, json};

#[tokio::test]
async fn a_chat_lives_through_create_list_messages_search_rename_and_delete() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = t.ws().await?;
    let (status, created) = t.client.post("/api/sessions", json!({})).await?;
    assert_eq!(status, 200);
    let id = created["session_id"].as_str().expect("id").to_owned();

    let (_, list) = t.client.get("/api/sessions").await?;
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["channel"], "desktop");
    assert_eq!(
        list[0]["untrusted"],
        Value::Null,
        "null before the first turn"
    );
    assert_eq!(list[0]["visited_hosts"], Value::Null);

    let chats = t.engine.services().sessions();
    chats
        .append(
            &id,
            NewMessage {
                role: "user".into(),
                content: "When is my sister's birthday?".into(),
                ..Default::default()
            },
        )
        .await?;
    let call = StoredToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: StoredFunction {
            name: "memory_recall".into(),
            arguments: "{\"query\":\"sister\"}".into(),
        },
    };
    chats
        .append(
            &id,
            NewMessage {
                role: "assistant".into(),
                content: String::new(),
                thinking: Some("look it up".into()),
                tool_calls: vec![call],
                ..Default::default()
            },
        )
        .await?;
    chats
        .append(
            &id,
            NewMessage {
                role: "tool".into(),
                content: "Sister: Meera, 12 March".into(),
                tool_call_id: Some("call_1".into()),
                name: Some("memory_recall".into()),
                ..Default::default()
            },
        )
        .await?;
    chats
        .append(
            &id,
            NewMessage {
                role: "assistant".into(),
                content: "Meera's birthday is on 12 March.".into(),
                ..Default::default()
            },
        )
        .await?;

    let (status, rows) = t
        .client
        .get(&format!("/api/sessions/{id}/messages"))
        .await?;
    assert_eq!(status, 200);
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), 4);
    let keys: Vec<&str> = {
        let mut k: Vec<&str> = rows[1]
            .as_object()
            .expect("row")
            .keys()
            .map(String::as_str)
            .collect();
        k.sort_unstable();
        k
    };
    assert_eq!(
        keys,
        // The contract's fields, plus a failed turn's `error` and a regenerated answer's
        // `versions` and `version_index` (issue 32).
        [
            "attachments",
            "content",
            "created_at",
            "error",
            "id",
            "interjection",
            "memory_sources",
            "name",
            "role",
            "thinking",
            "tool_call_id",
            "tool_calls",
            "version_index",
            "versions"
        ]
    );
    assert_eq!(
        rows[1]["tool_calls"][0],
        json!({"id": "call_1", "type": "function", "function": {"name": "memory_recall", "arguments": "{\"query\":\"sister\"}"}})
    );
    assert_eq!(rows[1]["thinking"], "look it up");
    assert_eq!(rows[2]["tool_call_id"], "call_1");
    assert_eq!(rows[2]["name"], "memory_recall");
    let (_, last_two) = t
        .client
        .get(&format!("/api/sessions/{id}/messages?limit=2"))
        .await?;
    assert_eq!(last_two[1]["content"], "Meera's birthday is on 12 March.");

    let (status, hits) = t
        .client
        .get("/api/sessions/search?q=birthday%20Meera")
        .await?;
    assert_eq!(status, 200);
    let hits = hits.as_array().expect("hits");
    assert!(!hits.is_empty());
    assert_eq!(hits[0]["session_id"], id.as_str());
    assert!(
        hits[0]["snippet"]
            .as_str()
            .is_some_and(|s| s.contains('[') && s.contains(']')),
        "{hits:?}"
    );
    // Search syntax in what a person types can't break the query.
    let (status, _) = t
        .client
        .get("/api/sessions/search?q=%22birthday%20OR%20(")
        .await?;
    assert_eq!(status, 200);
    let (status, body) = t.client.get("/api/sessions/search?q=%20").await?;
    assert_eq!(status, 422, "{body}");

    let (status, ok) = t
        .client
        .patch(
            &format!("/api/sessions/{id}"),
            json!({"title": "Birthdays"}),
        )
        .await?;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let event = ws.wait_for("session.updated").await?;
    assert_eq!(
        event["data"],
        json!({"session_id": id, "title": "Birthdays"})
    );
    let (status, _) = t
        .client
        .patch(&format!("/api/sessions/{id}"), json!({"title": "  "}))
        .await?;
    assert_eq!(status, 400);
    let (status, _) = t
        .client
        .patch(
            &format!("/api/sessions/{id}"),
            json!({"title": ["not", "text"]}),
        )
        .await?;
    assert_eq!(status, 400, "a body that does not parse");
    let (status, _) = t
        .client
        .patch("/api/sessions/nope", json!({"title": "x"}))
        .await?;
    assert_eq!(status, 404);

    let (status, _) = t
        .client
        .request(reqwest::Method::DELETE, &format!("/api/sessions/{id}"))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))?;
    assert_eq!(status, 200);
    let (status, body) = t
        .client
        .get(&format!("/api/sessions/{id}/messages"))
        .await?;
    assert_eq!(status, 404);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("There is no chat"))
    );
    let (_, hits) = t.client.get("/api/sessions/search?q=birthday").await?;
    assert_eq!(hits, json!([]), "deleted messages leave the index too");
    t.stop().await;
    Ok(())
}
