//! Memory (issue 16, contract section 7) over real HTTP on loopback, with real SQLite and
//! sqlite-vec: the CUD rules, duplicates skipped without a model call, hybrid search and its
//! words-only fallback, held facts and the review inbox, expiry on a manual clock, the map,
//! the notes files, re-indexing for a new embedding model, and memory without sqlite-vec.

use std::sync::Arc;

use anyhow::{Context, Result};
use chrono::{Duration, Utc};
use sentient_e2e::sentient_engine::agent::chat_memory::FinishedTurn;
use sentient_e2e::sentient_engine::clock::ManualClock;
use sentient_e2e::sentient_engine::memory::ReviewNote;
use sentient_e2e::{ServedEngine, TestEngine, engine_binary, eventually, point_models_at};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// Requests that asked a model to write (chat, in any of the three wire formats).
fn chat_requests(server: &ScriptedModel) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| {
            matches!(
                r.path.as_str(),
                "/api/chat" | "/v1/chat/completions" | "/v1/messages"
            )
        })
        .count()
}

/// The fast model's CUD answer.
fn decision(action: &str, target: Option<i64>, topics: &[&str]) -> Reply {
    Reply::json(json!({
        "action": action, "target": target, "topics": topics,
        "memory_type": "long-term", "expires_at": null,
    }))
}

/// A unit vector of the embedding model's default length pointing mostly along `axis`.
fn along(axis: usize, lean: f32) -> Vec<f32> {
    let mut v = vec![0.0f32; 768];
    v[axis] = 1.0;
    v[axis + 1] = lean;
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / norm).collect()
}

/// A scripted model server and an engine whose models it answers.
async fn started() -> Result<(ScriptedModel, TestEngine)> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    point_models_at(&t, &server).await?;
    Ok((server, t))
}

async fn remember(t: &TestEngine, content: &str) -> Result<Value> {
    let (status, body) = t
        .client
        .post("/api/memories", json!({"content": content}))
        .await?;
    anyhow::ensure!(
        status == 200,
        "POST /api/memories {content}: {status} {body}"
    );
    Ok(body)
}

async fn memories(t: &TestEngine, query: &str) -> Result<Vec<Value>> {
    let (status, body) = t.client.get(&format!("/api/memories{query}")).await?;
    anyhow::ensure!(status == 200, "{status} {body}");
    Ok(body.as_array().cloned().unwrap_or_default())
}

fn contents(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_new_home_replaces_the_old_and_duplicates_skip_without_asking_the_model() -> Result<()> {
    let (server, t) = started().await?;
    let mut ws = t.ws().await?;

    server.push(decision("ADD", None, &["Personal Identity"]));
    let pune = remember(&t, "User lives in Pune").await?;
    assert_eq!(pune["action"], "ADD");
    let id = pune["id"].as_i64().context("id")?;
    let added = ws.wait_for("memory.updated").await?;
    assert_eq!(added["data"]["action"], "ADD");
    assert_eq!(added["data"]["id"], id);

    // The model says ADD; the rules make a new home replace the old one, keeping its id.
    server.push(decision("ADD", None, &["Personal Identity"]));
    let moved = remember(&t, "User moved to Bengaluru").await?;
    assert_eq!(
        (moved["action"].as_str(), moved["id"].as_i64()),
        (Some("UPDATE"), Some(id))
    );
    let list = memories(&t, "").await?;
    assert_eq!(contents(&list), ["User moved to Bengaluru"]);
    assert_eq!(list[0]["previous_content"], "User lives in Pune");
    assert_eq!(list[0]["source"], "manual");
    assert_eq!(list[0]["status"], "active");
    assert_eq!(list[0]["topics"], json!(["Personal Identity"]));

    // The same words again, and words whose vector is all but the same: SKIP, no model call.
    server.set_embedding("User's sister Meera lives in Lisbon", along(3, 0.0));
    server.set_embedding(
        "Meera, the user's sister, is living in Lisbon",
        along(3, 0.05),
    );
    server.push(decision("ADD", None, &["Relationships & Social Life"]));
    let meera = remember(&t, "User's sister Meera lives in Lisbon").await?;
    assert_eq!(meera["action"], "ADD");
    let before = chat_requests(&server);
    let again = remember(&t, "user moved to  Bengaluru").await?;
    assert_eq!(
        (again["action"].as_str(), again["id"].as_i64()),
        (Some("SKIP"), Some(id))
    );
    let near = remember(&t, "Meera, the user's sister, is living in Lisbon").await?;
    assert_eq!(
        (near["action"].as_str(), near["id"].clone()),
        (Some("SKIP"), meera["id"].clone())
    );
    assert_eq!(
        chat_requests(&server),
        before,
        "duplicates are decided without the model"
    );

    // The sister's home is not the user's: a different person is added, not an update.
    server.push(decision(
        "UPDATE",
        Some(id),
        &["Relationships & Social Life"],
    ));
    let brother = remember(&t, "User's brother lives in Porto").await?;
    assert_eq!(brother["action"], "ADD");
    assert_eq!(memories(&t, "").await?.len(), 3);

    // The model may only act on facts it was shown, and a bad answer still saves the fact.
    server.push(Reply::text("not json"));
    let tea = remember(&t, "User likes oolong tea").await?;
    assert_eq!(tea["action"], "ADD");
    let listed = memories(&t, "?source=manual&limit=2").await?;
    assert_eq!(
        contents(&listed),
        ["User likes oolong tea", "User's brother lives in Porto"]
    );
    let listed = memories(&t, "?topic=Miscellaneous").await?;
    assert_eq!(contents(&listed), ["User likes oolong tea"]);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn bad_input_answers_the_contracts_codes_and_changes_nothing() -> Result<()> {
    let (server, t) = started().await?;
    for body in [json!({"content": ""}), json!({"content": "   "})] {
        let (status, err) = t.client.post("/api/memories", body).await?;
        assert_eq!(status, 400, "{err}");
        assert!(
            err["detail"].as_str().is_some_and(|d| d.contains("empty")),
            "{err}"
        );
    }
    let (status, _) = t
        .client
        .post("/api/memories", json!({"content": 5}))
        .await?;
    assert_eq!(status, 422);
    let (status, err) = t
        .client
        .put("/api/memories/999", json!({"content": "x"}))
        .await?;
    assert_eq!(status, 404, "{err}");
    let (status, _) = t.client.delete("/api/memories/999").await?;
    assert_eq!(status, 404);
    let (status, _) = t.client.get("/api/memories?limit=0").await?;
    assert_eq!(status, 400);
    let (status, _) = t.client.get("/api/memories?limit=abc").await?;
    assert_eq!(status, 400);
    let (status, _) = t.client.get("/api/memories/summaries?limit=-1").await?;
    assert_eq!(status, 400);
    let (status, _) = t
        .client
        .put("/api/memories/workspace/config", json!({"content": "x"}))
        .await?;
    assert_eq!(status, 400);
    assert!(memories(&t, "").await?.is_empty());

    server.push(decision("ADD", None, &["Work & Learning"]));
    let fact = remember(&t, "User works as a nurse").await?;
    let id = fact["id"].as_i64().context("id")?;
    let (status, _) = t
        .client
        .put(&format!("/api/memories/{id}"), json!({"content": ""}))
        .await?;
    assert_eq!(status, 400);
    server.push(decision("ADD", None, &["Work & Learning"]));
    let (status, edited) = t
        .client
        .put(
            &format!("/api/memories/{id}"),
            json!({"content": "User works as a midwife"}),
        )
        .await?;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(
        (edited["id"].as_i64(), edited["previous_content"].as_str()),
        (Some(id), Some("User works as a nurse"))
    );
    let (status, gone) = t.client.delete(&format!("/api/memories/{id}")).await?;
    assert_eq!((status, gone), (200, json!({"deleted": true})));
    assert!(memories(&t, "").await?.is_empty());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn search_is_hybrid_and_falls_back_to_words_when_embeddings_fail() -> Result<()> {
    let (server, t) = started().await?;
    server.set_embedding("User's sister Meera lives in Lisbon", along(10, 0.0));
    server.set_embedding("User plays the cello", along(20, 0.0));
    server.set_embedding("where does my sister live", along(10, 0.3));
    for (fact, topic) in [
        (
            "User's sister Meera lives in Lisbon",
            "Relationships & Social Life",
        ),
        ("User plays the cello", "Interests & Lifestyle"),
    ] {
        server.push(decision("ADD", None, &[topic]));
        remember(&t, fact).await?;
    }
    let found = memories(&t, "?q=where%20does%20my%20sister%20live&limit=5").await?;
    assert_eq!(
        contents(&found).first().map(String::as_str),
        Some("User's sister Meera lives in Lisbon")
    );
    let similarity = found[0]["similarity"].as_f64().context("similarity")?;
    assert!(similarity > 0.9, "{similarity}");
    let score = found[0]["score"].as_f64().context("score")?;
    // "sister" is one of the query's five words: similarity + 0.15 × 1/5.
    assert!(
        (score - (similarity + 0.03)).abs() < 1e-9,
        "{score} vs {similarity}"
    );

    // The embedding model fails: the same search by words, similarity null.
    server.fail_embeddings(500);
    let found = memories(&t, "?q=cello").await?;
    assert_eq!(contents(&found), ["User plays the cello"]);
    assert!(found[0]["similarity"].is_null(), "{}", found[0]);
    assert!((found[0]["score"].as_f64().context("score")? - 0.15).abs() < 1e-9);
    // A fact remembered meanwhile has no vector until the model answers again.
    server.push(decision("ADD", None, &["Interests & Lifestyle"]));
    let piano = remember(&t, "User is learning the piano").await?;
    assert_eq!(piano["action"], "ADD");
    server.answer_embeddings();
    let missing = t
        .engine
        .services()
        .memory()
        .facts()
        .ids_without_vector(10)
        .await?;
    assert_eq!(missing, vec![piano["id"].as_i64().context("id")?]);
    assert_eq!(
        t.engine
            .services()
            .memory()
            .reindex(Default::default())
            .await,
        1
    );
    assert!(
        t.engine
            .services()
            .memory()
            .facts()
            .ids_without_vector(10)
            .await?
            .is_empty()
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn held_facts_wait_in_review_and_only_approval_lets_them_in() -> Result<()> {
    let (server, t) = started().await?;
    let memory = t.engine.services().memory();
    let page = ReviewNote::new(
        "a web page",
        Some("…the user, who lives in Oslo, …"),
        Some("s1"),
    );
    let mut held = Vec::new();
    for claim in ["User lives in Oslo", "User owns a boat", "User likes jazz"] {
        server.push(decision("ADD", None, &["Personal Identity"]));
        let written = memory
            .remember(claim, "conversation", Some(page.clone()))
            .await?;
        assert_eq!(
            written.status.map(|s| format!("{s:?}")),
            Some("Pending".to_owned())
        );
        held.push(written.id.context("id")?);
    }
    // A held fact never changes a remembered one: the model's UPDATE is ignored.
    server.push(decision("ADD", None, &["Personal Identity"]));
    let home = remember(&t, "User lives in Pune").await?;
    server.push(decision(
        "UPDATE",
        home["id"].as_i64(),
        &["Personal Identity"],
    ));
    let other = memory
        .remember("User moved to Oslo", "conversation", Some(page.clone()))
        .await?;
    assert_eq!(format!("{:?}", other.action), "Add");
    held.push(other.id.context("id")?);

    // Absent from the list, search, topics and the map.
    assert_eq!(contents(&memories(&t, "").await?), ["User lives in Pune"]);
    let searched = contents(&memories(&t, "?q=Oslo%20boat%20jazz").await?);
    assert!(
        searched.iter().all(|c| c == "User lives in Pune"),
        "{searched:?}"
    );
    let (_, topics) = t.client.get("/api/memories/topics").await?;
    let identity = topics
        .as_array()
        .and_then(|all| all.iter().find(|t| t["name"] == "Personal Identity"))
        .context("topic")?;
    assert_eq!(identity["count"], 1);
    let (_, graph) = t.client.get("/api/memories/graph").await?;
    assert_eq!(graph["nodes"].as_array().map(Vec::len), Some(1));

    let (status, inbox) = t.client.get("/api/memories/review").await?;
    assert_eq!(status, 200);
    assert_eq!(
        (inbox["count"].as_i64(), inbox["expire_days"].as_i64()),
        (Some(4), Some(30))
    );
    let first = &inbox["items"][0];
    assert_eq!(
        (first["kind"].as_str(), first["from"].as_str()),
        (Some("fact"), Some("a web page"))
    );
    assert_eq!(first["snippet"], "…the user, who lives in Oslo, …");
    assert_eq!(first["session_id"], "s1");

    // Approve in the person's own words: active, with the old text as previous_content.
    let (status, ok) = t
        .client
        .post(
            &format!("/api/memories/review/fact/{}/approve", held[1]),
            json!({"content": "User owns a small sailing boat"}),
        )
        .await?;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let boat = memories(&t, "?q=boat").await?;
    assert_eq!(contents(&boat), ["User owns a small sailing boat"]);
    assert_eq!(boat[0]["previous_content"], "User owns a boat");
    assert!(
        boat[0]["similarity"].is_number(),
        "approval gives the fact its vector"
    );
    // Approving in words already remembered merges into that fact.
    let (status, _) = t
        .client
        .post(
            &format!("/api/memories/review/fact/{}/approve", held[3]),
            json!({"content": "User lives in Pune"}),
        )
        .await?;
    assert_eq!(status, 200);
    assert_eq!(memories(&t, "?q=Pune").await?.len(), 1);
    // Discard, then 404 for what no longer waits, 400 for a bad kind or empty words.
    let (status, _) = t
        .client
        .delete(&format!("/api/memories/review/fact/{}", held[2]))
        .await?;
    assert_eq!(status, 200);
    let (status, _) = t
        .client
        .delete(&format!("/api/memories/review/fact/{}", held[2]))
        .await?;
    assert_eq!(status, 404);
    let (status, _) = t
        .client
        .post(
            &format!("/api/memories/review/fact/{}/approve", held[1]),
            json!({}),
        )
        .await?;
    assert_eq!(status, 404, "an approved fact no longer waits");
    let (status, _) = t
        .client
        .post(
            &format!("/api/memories/review/memo/{}/approve", held[0]),
            json!({}),
        )
        .await?;
    assert_eq!(status, 400);
    let (status, _) = t
        .client
        .post(
            &format!("/api/memories/review/fact/{}/approve", held[0]),
            json!({"content": " "}),
        )
        .await?;
    assert_eq!(status, 400);
    let (status, _) = t
        .client
        .post("/api/memories/review/approve-all", json!({}))
        .await?;
    assert_eq!(status, 400);
    let (status, n) = t
        .client
        .post(
            "/api/memories/review/approve-all",
            json!({"from": "a web page"}),
        )
        .await?;
    assert_eq!((status, n), (200, json!({"approved": 1})));
    assert!(contents(&memories(&t, "").await?).contains(&"User lives in Oslo".to_owned()));
    let (_, inbox) = t.client.get("/api/memories/review").await?;
    assert_eq!(inbox["count"], 0);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn short_term_facts_expire_and_unreviewed_ones_are_dropped_with_a_notification() -> Result<()>
{
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let server = ScriptedModel::start().await;
    let t = TestEngine::start_with_clock(clock.clone()).await?;
    point_models_at(&t, &server).await?;
    let tomorrow = (clock_now(&clock) + Duration::days(1)).to_rfc3339();
    server.push(Reply::json(json!({
        "action": "ADD", "topics": ["Interests & Lifestyle"],
        "memory_type": "short-term", "expires_at": tomorrow,
    })));
    let trip = remember(&t, "User is in Rome this week").await?;
    assert_eq!(memories(&t, "").await?[0]["memory_type"], "short-term");
    server.push(decision("ADD", None, &["Personal Identity"]));
    t.engine
        .services()
        .memory()
        .remember(
            "User has a dog",
            "conversation",
            Some(ReviewNote::new("Gmail", None, None)),
        )
        .await?;

    clock.advance(Duration::days(2));
    assert!(
        memories(&t, "").await?.is_empty(),
        "an expired fact is not listed"
    );
    let mut ws = t.ws().await?;
    assert_eq!(t.engine.services().memory().purge().await?, (1, 0));
    let purged = ws.wait_for("memory.updated").await?;
    assert_eq!(
        purged["data"],
        json!({"action": "DELETE", "id": null, "reason": "expired", "count": 1})
    );
    assert!(
        t.engine
            .services()
            .memory()
            .facts()
            .get(trip["id"].as_i64().context("id")?)
            .await?
            .is_none()
    );

    clock.advance(Duration::days(30));
    assert_eq!(t.engine.services().memory().purge().await?, (0, 1));
    let dropped = ws.wait_for("memory.updated").await?;
    assert_eq!(dropped["data"]["reason"], "review_expired");
    let (_, feed) = t.client.get("/api/notifications").await?;
    let note = &feed["notifications"][0];
    assert_eq!(
        (note["title"].as_str(), note["kind"].as_str()),
        (Some("Memory review"), Some("info"))
    );
    t.stop().await;
    Ok(())
}

fn clock_now(clock: &ManualClock) -> chrono::DateTime<Utc> {
    use sentient_e2e::sentient_engine::clock::Clock;
    clock.now()
}

#[tokio::test]
async fn the_map_links_close_facts_and_the_notes_files_round_trip() -> Result<()> {
    let (server, t) = started().await?;
    server.set_embedding("User runs marathons", along(30, 0.1));
    server.set_embedding("User trains for a marathon every spring", along(30, 0.7));
    server.set_embedding("User collects stamps", along(40, 0.0));
    for fact in [
        "User runs marathons",
        "User trains for a marathon every spring",
        "User collects stamps",
    ] {
        server.push(decision("ADD", None, &["Health & Wellbeing"]));
        assert_eq!(remember(&t, fact).await?["action"], "ADD");
    }
    let (status, graph) = t.client.get("/api/memories/graph").await?;
    assert_eq!(status, 200);
    let nodes = graph["nodes"].as_array().context("nodes")?;
    assert_eq!(nodes.len(), 3);
    let stamps = nodes
        .iter()
        .find(|n| n["content"] == "User collects stamps")
        .context("node")?;
    assert_eq!(stamps["label"], "User collects stamps");
    let long = nodes
        .iter()
        .find(|n| n["title"] == "User trains for a marathon every spring")
        .context("node")?;
    assert_eq!(long["label"].as_str().map(|l| l.chars().count()), Some(25));
    let links = graph["links"].as_array().context("links")?;
    assert_eq!(links.len(), 1, "{graph}");
    assert!(links[0]["value"].as_f64().is_some_and(|v| v >= 0.8));
    let (_, topics) = t.client.get("/api/memories/topics").await?;
    let topics = topics.as_array().context("topics")?;
    assert_eq!(topics.len(), 8);
    assert!(
        topics
            .iter()
            .any(|t| t["name"] == "Health & Wellbeing" && t["count"] == 3)
    );

    let (status, saved) = t
        .client
        .put(
            "/api/memories/workspace/user",
            json!({"content": "# Ana\nLikes maps."}),
        )
        .await?;
    assert_eq!((status, saved), (200, json!({"saved": true})));
    let (_, notes) = t.client.get("/api/memories/workspace").await?;
    assert_eq!(notes["user"], "# Ana\nLikes maps.");
    assert!(
        notes["today"].is_string() && notes["yesterday"].is_string() && notes["soul"].is_string()
    );
    assert_eq!(
        std::fs::read_to_string(t.home().join("workspace/USER.md"))?,
        "# Ana\nLikes maps."
    );
    let (_, personas) = t.client.get("/api/memories/personas").await?;
    let ids: Vec<&str> = personas
        .as_array()
        .context("personas")?
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(ids, ["friendly", "professional", "concise"]);
    let (status, summaries) = t.client.get("/api/memories/summaries?limit=5").await?;
    assert_eq!((status, summaries), (200, json!([])));

    let (status, gone) = t.client.delete("/api/memories/source/manual").await?;
    assert_eq!((status, gone), (200, json!({"deleted": 3})));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_new_embedding_model_reindexes_every_fact_and_summary() -> Result<()> {
    let (server, t) = started().await?;
    for fact in ["User speaks Portuguese", "User bakes bread on Sundays"] {
        server.push(decision("ADD", None, &["Interests & Lifestyle"]));
        remember(&t, fact).await?;
    }
    let memory = t.engine.services().memory();
    assert_eq!(
        memory.facts().index_info().await.map(|i| i.dimension),
        Some(768)
    );
    // A past chat's summary, with its vector for the old model.
    let now = Utc::now();
    let old_vector = memory
        .embed("Talked about baking bread")
        .await
        .context("vector")?;
    let summary = sentient_e2e::sentient_engine::memory::model::Summary {
        id: 0,
        content: "Talked about baking bread".into(),
        start_at: now,
        end_at: now,
        session_id: None,
        untrusted: None,
    };
    memory
        .facts()
        .insert_summary(&summary, 0, Some(&old_vector), now)
        .await?;
    server.set_embedding_dim(32);
    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"embedding": "ollama/other-embed"}}),
        )
        .await?;
    assert_eq!(status, 200);
    eventually("the index remade for the new model", || async {
        let info = memory.facts().index_info().await;
        let missing = memory.facts().ids_without_vector(10).await?;
        let summaries = memory.facts().summaries_without_vector(10).await?;
        Ok((info.as_ref().map(|i| (i.model.as_str(), i.dimension))
            == Some(("ollama/other-embed", 32))
            && missing.is_empty()
            && summaries.is_empty())
        .then_some(()))
    })
    .await?;
    let found = memories(&t, "?q=bread").await?;
    assert!(found[0]["similarity"].is_number(), "{}", found[0]);
    // The summary is found by meaning again, not by words only.
    let by_meaning = memory.search_summaries("baking bread", 5).await?;
    assert_eq!(by_meaning.len(), 1);
    assert!(by_meaning[0].1.is_some(), "{by_meaning:?}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn without_sqlite_vec_reads_are_empty_writes_answer_503_and_doctor_says_why() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let engine =
        ServedEngine::start_with_env(&home, "t0k3n", &[("SENTIENT_SQLITE_VEC", "off")]).await?;
    let client = &engine.client;
    let (status, list) = client.get("/api/memories").await?;
    assert_eq!((status, list), (200, json!([])));
    let (status, graph) = client.get("/api/memories/graph").await?;
    assert_eq!((status, graph), (200, json!({"nodes": [], "links": []})));
    let (_, topics) = client.get("/api/memories/topics").await?;
    assert!(
        topics
            .as_array()
            .is_some_and(|all| all.len() == 8 && all.iter().all(|t| t["count"] == 0))
    );
    let (status, err) = client
        .post("/api/memories", json!({"content": "User likes tea"}))
        .await?;
    assert_eq!(status, 503, "{err}");
    assert!(
        err["detail"]
            .as_str()
            .is_some_and(|d| d.contains("sentient doctor")),
        "{err}"
    );
    let (status, _) = client
        .put("/api/memories/1", json!({"content": "x"}))
        .await?;
    assert_eq!(status, 503);
    let (status, _) = client.delete("/api/memories/source/manual").await?;
    assert_eq!(status, 503);
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"I live in Pune.".to_vec()).file_name("about.txt"),
    );
    let (status, _) = sentient_e2e::send(
        client
            .request(reqwest::Method::POST, "/api/memories/import")
            .multipart(form),
    )
    .await?;
    assert_eq!(status, 503);
    drop(engine);

    let out = tokio::process::Command::new(engine_binary()?)
        .args(["doctor", "--home"])
        .arg(&home)
        .env("SENTIENT_SQLITE_VEC", "off")
        .output()
        .await?;
    let report = String::from_utf8_lossy(&out.stdout);
    let line = report
        .lines()
        .find(|l| l.contains("memory search"))
        .context("a memory search line")?;
    assert!(line.contains("did not load"), "{report}");
    Ok(())
}

/// A page on loopback that says things about the user.
async fn page_about_the_user() -> Result<String> {
    let app = axum::Router::new().route(
        "/about.html",
        axum::routing::get(|| async {
            axum::response::Html(
                "<html><body><h1>About</h1><p>The user owns a boat called Gull.</p></body></html>",
            )
        }),
    );
    sentient_e2e::serve_on_loopback(app, "/about.html").await
}

/// Sends one message in a new chat and waits for its `done`.
async fn chat(t: &TestEngine, text: &str) -> Result<Value> {
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": text}))
        .await?;
    ws.wait_for("done").await
}

/// The system prompt of the last chat request that carries `marker` in its last message.
fn prompt_of(server: &ScriptedModel, marker: &str) -> Option<String> {
    server
        .requests_to("/api/chat")
        .into_iter()
        .map(|r| r.body)
        .rfind(|b| {
            b["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .is_some_and(|c| c.contains(marker))
        })
        .and_then(|b| b["messages"][0]["content"].as_str().map(str::to_owned))
}

#[tokio::test]
async fn what_one_chat_learns_the_next_one_remembers_and_outside_claims_wait_for_review()
-> Result<()> {
    let (server, t) = started().await?;
    // Titles would race the memory calls for the scripted replies.
    // Background model work otherwise waits 30 s after a reply for a local model.
    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"chat": {"auto_title": false}, "models": {"background_quiet_s": 0}}),
        )
        .await?;
    assert_eq!(status, 200);
    let meera = "User's sister Meera lives in Lisbon";
    server.set_embedding(meera, along(50, 0.0));
    server.set_embedding("Where does my sister live now?", along(50, 0.4));

    // 1. Told once in a chat: extracted after the reply and remembered from the conversation.
    server.push(Reply::text("How lovely!"));
    server.push(Reply::json(json!({"facts": [meera]})));
    server.push(decision("ADD", None, &["Relationships & Social Life"]));
    chat(&t, "My sister Meera moved to Lisbon last month.").await?;
    let learned = eventually("the fact learned from the chat", || async {
        let list = memories(&t, "").await?;
        Ok(list.iter().find(|m| m["content"] == meera).cloned())
    })
    .await?;
    assert_eq!(learned["source"], "conversation");
    assert_eq!(learned["status"], "active");

    // 2. A new chat has it in mind: in the system prompt, and as the reply's memory source.
    server.push(Reply::text("She lives in Lisbon."));
    server.push(Reply::json(json!({"facts": []})));
    let done = chat(&t, "Where does my sister live now?").await?;
    let prompt =
        prompt_of(&server, "Where does my sister live now?").context("the reply's request")?;
    assert!(
        prompt.contains("## What I remember about you") && prompt.contains(meera),
        "{prompt}"
    );
    let sources = done["memory_sources"]
        .as_array()
        .context("memory_sources")?;
    assert_eq!(sources.len(), 1, "{done}");
    assert_eq!(sources[0]["kind"], "fact");
    assert_eq!(sources[0]["id"], learned["id"]);
    assert_eq!(
        (sources[0]["text"].as_str(), sources[0]["via"].as_str()),
        (Some(meera), Some("prompt"))
    );
    assert_eq!(sources[0]["source"], "conversation");
    let session = done["session_id"].as_str().context("session")?;
    let (_, rows) = t
        .client
        .get(&format!("/api/sessions/{session}/messages"))
        .await?;
    let last = rows.as_array().and_then(|r| r.last()).context("rows")?;
    assert_eq!(last["memory_sources"], done["memory_sources"]);

    // 3. "I moved to Bengaluru" replaces where the person lived, keeping the old words.
    server.push(decision("ADD", None, &["Personal Identity"]));
    let pune = remember(&t, "User lives in Pune").await?;
    server.push(Reply::text("Congratulations on the move!"));
    server.push(Reply::json(json!({"facts": ["User moved to Bengaluru"]})));
    server.push(decision("ADD", None, &["Personal Identity"]));
    chat(&t, "I moved to Bengaluru last week.").await?;
    let moved = eventually("the home updated", || async {
        let list = memories(&t, "").await?;
        Ok(list
            .iter()
            .find(|m| m["id"] == pune["id"] && m["content"] == "User moved to Bengaluru")
            .cloned())
    })
    .await?;
    assert_eq!(moved["previous_content"], "User lives in Pune");

    // 4. A chat that read a loopback page: what it learned waits in Review, out of prompts.
    let url = page_about_the_user().await?;
    let boat = "User owns a boat called Gull";
    server.set_embedding(boat, along(60, 0.0));
    server.set_embedding("Tell me about my boat", along(60, 0.3));
    server.push(Reply::tool_call("web_fetch", json!({"url": url})));
    server.push(Reply::text("The page says you own a boat."));
    server.push(Reply::json(json!({"facts": [boat]})));
    server.push(decision("ADD", None, &["Interests & Lifestyle"]));
    chat(&t, &format!("What does {url} say about me?")).await?;
    let inbox = eventually("the claim held for review", || async {
        let (_, inbox) = t.client.get("/api/memories/review").await?;
        Ok((inbox["count"] == 1).then_some(inbox))
    })
    .await?;
    let item = &inbox["items"][0];
    assert_eq!(item["text"], boat);
    assert!(
        item["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("boat called Gull")),
        "{item}"
    );
    assert!(item["session_id"].is_string());
    assert!(!contents(&memories(&t, "?q=boat").await?).contains(&boat.to_owned()));
    server.push(Reply::text("I don't know about a boat."));
    server.push(Reply::json(json!({"facts": []})));
    let before = chat(&t, "Tell me about my boat").await?;
    let prompt = prompt_of(&server, "Tell me about my boat").context("request")?;
    assert!(
        !prompt.contains(boat),
        "a held claim never reaches a prompt: {prompt}"
    );
    assert_eq!(before["memory_sources"], json!([]));

    // Approved, it does.
    let id = item["id"].as_i64().context("id")?;
    let (status, _) = t
        .client
        .post(
            &format!("/api/memories/review/fact/{id}/approve"),
            json!({}),
        )
        .await?;
    assert_eq!(status, 200);
    server.push(Reply::text("You own a boat called Gull."));
    server.push(Reply::json(json!({"facts": []})));
    let after = chat(&t, "Tell me about my boat").await?;
    let prompt = prompt_of(&server, "Tell me about my boat").context("request")?;
    assert!(prompt.contains(boat), "{prompt}");
    assert_eq!(after["memory_sources"][0]["id"], id);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn with_memory_off_nothing_is_learned_or_recalled() -> Result<()> {
    let (server, t) = started().await?;
    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"chat": {"auto_title": false}, "memory": {"enabled": false}}),
        )
        .await?;
    assert_eq!(status, 200);
    // The routes still work.
    server.push(decision("ADD", None, &["Personal Identity"]));
    assert_eq!(remember(&t, "User lives in Pune").await?["action"], "ADD");
    server.push(Reply::text("Noted."));
    let done = chat(&t, "I live in Pune, remember?").await?;
    assert_eq!(done["memory_sources"], json!([]));
    let prompt = prompt_of(&server, "I live in Pune, remember?").context("request")?;
    assert!(!prompt.contains("What I remember about you"), "{prompt}");
    // Learning from a turn makes no model call at all.
    let before = chat_requests(&server);
    let turn = FinishedTurn {
        session_id: done["session_id"].as_str().unwrap_or_default().to_owned(),
        user_text: "I live in Pune, remember?".into(),
        untrusted: None,
        outside_snippet: None,
    };
    assert_eq!(t.engine.services().memory().learn_from_turn(&turn).await, 0);
    assert_eq!(chat_requests(&server), before);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn onboarding_answers_become_facts_and_a_name_alone_asks_no_model() -> Result<()> {
    let (server, t) = started().await?;
    let (status, _) = t
        .client
        .patch("/api/config", json!({"models": {"background_quiet_s": 0}}))
        .await?;
    assert_eq!(status, 200);
    let before = chat_requests(&server);
    let (status, _) = t
        .client
        .post("/api/onboarding", json!({"user_name": "Ana"}))
        .await?;
    assert_eq!(status, 200);
    server.push(Reply::json(
        json!({"facts": ["User works as a nurse in Porto"]}),
    ));
    server.push(decision("ADD", None, &["Work & Learning"]));
    let (status, _) = t
        .client
        .post(
            "/api/onboarding",
            json!({"user_name": "Ana", "professional_context": "I'm a nurse in Porto."}),
        )
        .await?;
    assert_eq!(status, 200);
    let seeded = eventually("the onboarding fact", || async {
        let list = memories(&t, "").await?;
        Ok(list
            .into_iter()
            .find(|m| m["content"] == "User works as a nurse in Porto"))
    })
    .await?;
    assert_eq!(seeded["source"], "onboarding");
    // Two calls: the facts in the answers and the decision; the name-only answers made none.
    assert_eq!(chat_requests(&server), before + 2);
    let asked = server
        .requests_to("/api/chat")
        .into_iter()
        .map(|r| r.body.to_string())
        .find(|b| b.contains("About my work"));
    assert!(asked.is_some_and(|b| b.contains("nurse in Porto")));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn older_parts_of_chats_are_summarized_with_their_mark_and_noted_today() -> Result<()> {
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let server = ScriptedModel::start().await;
    let t = TestEngine::start_with_clock(clock.clone()).await?;
    point_models_at(&t, &server).await?;
    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"chat": {"auto_title": false}, "memory": {"extract_after_turn": false}}),
        )
        .await?;
    assert_eq!(status, 200);
    server.push(Reply::text("Porto in May is lovely."));
    let done = chat(&t, "I'm planning a trip to Porto in May.").await?;
    let session = done["session_id"].as_str().context("session")?.to_owned();
    // Too recent: nothing is due.
    assert_eq!(t.engine.services().memory().summarize_due().await?, 0);
    clock.advance(Duration::hours(2));
    server.push(Reply::text("Ana is planning a trip to Porto in May."));
    assert_eq!(t.engine.services().memory().summarize_due().await?, 1);
    // Summarized once: the same part is not summarized again.
    assert_eq!(t.engine.services().memory().summarize_due().await?, 0);
    let (_, list) = t.client.get("/api/memories/summaries").await?;
    let summary = &list[0];
    assert_eq!(
        summary["content"],
        "Ana is planning a trip to Porto in May."
    );
    assert_eq!(summary["session_id"], session.as_str());
    assert!(summary["untrusted"].is_null());
    let (_, notes) = t.client.get("/api/memories/workspace").await?;
    assert!(
        notes["today"]
            .as_str()
            .is_some_and(|n| n.contains("Summary of a chat: Ana is planning")),
        "{notes}"
    );
    let logged: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM evolution_log WHERE kind = 'summary_created'")
            .fetch_one(t.engine.services().store().pool())
            .await?;
    assert_eq!(logged, 1);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_vector_index_holds_nothing_until_memory_is_first_searched() -> Result<()> {
    use sentient_e2e::sentient_engine::memory::bit_cache::IndexState;
    use sentient_e2e::sentient_engine::memory::codes::CodeState;
    use sentient_e2e::sentient_engine::memory::model::MemoryType;
    use sentient_e2e::sentient_engine::memory::store::NewFact;

    let (server, t) = started().await?;
    let memory = t.engine.services().memory();
    assert_eq!(memory.facts().vector_index(), IndexState::NotLoaded);
    assert_eq!(memory.facts().vector_codes(), CodeState::NotLoaded);
    // The vector tables made and facts written with their vectors, as an import does: still
    // nothing held (writes go to SQLite only until a search needs the index).
    server.set_embedding("User plays the cello", along(20, 0.0));
    server.set_embedding("cello lessons", along(20, 0.2));
    memory
        .embed("User plays the cello")
        .await
        .context("vector")?;
    let facts: Vec<(NewFact, Option<Vec<f32>>)> = (0..40)
        .map(|i| {
            let (content, vector) = if i == 0 {
                ("User plays the cello".to_owned(), along(20, 0.0))
            } else {
                (format!("User visited place number {i}"), along(30 + i, 0.5))
            };
            let fact = NewFact {
                content,
                topics: vec!["Interests & Lifestyle".into()],
                source: "manual".into(),
                memory_type: MemoryType::LongTerm,
                expires_at: None,
                review: None,
            };
            (fact, Some(vector))
        })
        .collect();
    memory.facts().insert_many(&facts, Utc::now()).await?;
    // Listing is not searching.
    assert!(!memories(&t, "").await?.is_empty());
    assert_eq!(memory.facts().vector_index(), IndexState::NotLoaded);
    assert_eq!(memory.facts().vector_codes(), CodeState::NotLoaded);

    // The first search builds it and finds the fact by meaning ("lessons" is not in it).
    let found = memories(&t, "?q=cello%20lessons&limit=3").await?;
    assert_eq!(
        contents(&found).first().map(String::as_str),
        Some("User plays the cello")
    );
    assert!(found[0]["similarity"].as_f64().context("similarity")? > 0.9);
    let IndexState::Ready { facts, bytes } = memory.facts().vector_index() else {
        anyhow::bail!("not built: {:?}", memory.facts().vector_index());
    };
    assert_eq!(facts, 40);
    // 768 bits and an id per fact, with room for more.
    assert!((40 * 104..1_000_000).contains(&bytes), "{bytes} bytes");
    // Then the int8 codes' file, from the stored vectors.
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        memory.facts().vector_codes_built(),
    )
    .await
    .context("the codes were not made")?;
    assert!(matches!(
        memory.facts().vector_codes(),
        CodeState::Ready { facts: 40, .. }
    ));
    t.stop().await;
    Ok(())
}
