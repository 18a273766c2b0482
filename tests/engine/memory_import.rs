//! Importing documents into memory (issue 16, contract section 7): real PDF, Word, text and
//! Markdown files over multipart on loopback; every fact waits for review with the file as its
//! `from`; other types answer 400, over 20 MB 413, a model that never answers 503.

use anyhow::{Context, Result};
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use sentient_e2e::{TestEngine, point_models_at, send};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

const RESUME_DOCX: &[u8] = include_bytes!("../fixtures/memory/resume.docx");
const HOBBIES_PDF: &[u8] = include_bytes!("../fixtures/memory/hobbies.pdf");

fn decision() -> Reply {
    Reply::json(json!({
        "action": "ADD", "target": null, "topics": ["Work & Learning"],
        "memory_type": "long-term", "expires_at": null,
    }))
}

async fn import(t: &TestEngine, name: &str, bytes: &[u8]) -> Result<(u16, Value)> {
    let form = Form::new().part(
        "file",
        Part::bytes(bytes.to_vec()).file_name(name.to_owned()),
    );
    send(
        t.client
            .request(Method::POST, "/api/memories/import")
            .multipart(form),
    )
    .await
}

/// The user message of the extraction request that read `marker`.
fn read_text(server: &ScriptedModel, marker: &str) -> Option<String> {
    server
        .requests_to("/api/chat")
        .into_iter()
        .filter_map(|r| r.body["messages"][1]["content"].as_str().map(str::to_owned))
        .find(|c| c.contains(marker))
}

#[tokio::test]
async fn each_kind_of_document_gives_facts_that_wait_for_review() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    point_models_at(&t, &server).await?;

    // Word: the text of its paragraphs is read.
    server.push(Reply::json(json!({"facts": [
        "User worked at Infosys in Pune from 2019 to 2023", "User is called Asha Rao"]})));
    server.push(decision());
    server.push(decision());
    let (status, body) = import(&t, "resume.docx", RESUME_DOCX).await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"added": 2, "updated": 0, "skipped": 0, "pending": 2, "source": "file:resume.docx"})
    );
    let read = read_text(&server, "Infosys").context("the docx text")?;
    assert!(
        read.contains("Curriculum vitae of Asha Rao\nWorked at Infosys"),
        "{read}"
    );

    // PDF.
    server.push(Reply::json(json!({"facts": ["User plays the veena"]})));
    server.push(decision());
    let (status, body) = import(&t, "hobbies.pdf", HOBBIES_PDF).await?;
    assert_eq!((status, body["pending"].clone()), (200, json!(1)), "{body}");
    assert!(read_text(&server, "Asha Rao plays the veena").is_some());

    // Markdown in two chunks (the setting's least), and one fact already waiting is skipped.
    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"memory": {"import_chunk_chars": 500}}),
        )
        .await?;
    assert_eq!(status, 200);
    let notes = format!(
        "# Notes\n\n{}\n\n{}",
        "Asha keeps bees on the roof of her building in Pune. ".repeat(6),
        "She plays the veena on Sunday evenings with her teacher. ".repeat(6)
    );
    server.push(Reply::json(json!({"facts": ["User keeps bees"]})));
    server.push(decision());
    server.push(Reply::json(json!({"facts": ["User plays the veena"]})));
    let (status, body) = import(&t, "notes.md", notes.as_bytes()).await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["added"].clone(), body["skipped"].clone()),
        (json!(1), json!(1))
    );

    // Text.
    server.push(Reply::json(json!({"facts": []})));
    let (status, body) = import(
        &t,
        "empty-ish.txt",
        b"\xEF\xBB\xBFJust a shopping list: milk.",
    )
    .await?;
    assert_eq!((status, body["added"].clone()), (200, json!(0)), "{body}");

    // Everything waits in Review, from the file, with the part it came from; none is in the list.
    let (_, inbox) = t.client.get("/api/memories/review").await?;
    assert_eq!(inbox["count"], 4, "{inbox}");
    let items = inbox["items"].as_array().context("items")?;
    let veena = items
        .iter()
        .find(|i| i["text"] == "User plays the veena")
        .context("the veena fact")?;
    assert_eq!(veena["from"], "hobbies.pdf");
    assert_eq!(veena["source"], "file:hobbies.pdf");
    assert!(
        veena["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("plays the veena")),
        "{veena}"
    );
    let (_, list) = t.client.get("/api/memories").await?;
    assert_eq!(list, json!([]));

    // Approve all from the résumé: they join memory.
    let (status, approved) = t
        .client
        .post(
            "/api/memories/review/approve-all",
            json!({"from": "resume.docx"}),
        )
        .await?;
    assert_eq!((status, approved), (200, json!({"approved": 2})));
    let (_, list) = t
        .client
        .get("/api/memories?source=file:resume.docx")
        .await?;
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn bad_files_are_refused_and_change_nothing() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = TestEngine::start().await?;
    point_models_at(&t, &server).await?;
    let asked = || server.requests_to("/api/chat").len();
    let before = asked();

    let (status, err) = import(&t, "budget.xls", b"\xD0\xCF\x11\xE0").await?;
    assert_eq!(status, 400, "{err}");
    assert!(
        err["detail"]
            .as_str()
            .is_some_and(|d| d.contains("PDF") && d.contains("budget.xls")),
        "{err}"
    );
    let (status, err) = import(&t, "broken.pdf", b"not a pdf at all").await?;
    assert_eq!(status, 400, "{err}");
    assert!(
        err["detail"]
            .as_str()
            .is_some_and(|d| d.contains("broken.pdf"))
    );
    let (status, err) = import(&t, "broken.docx", b"PK\x03\x04 not really").await?;
    assert_eq!(status, 400, "{err}");
    let (status, err) = import(&t, "blank.txt", b"   \n\n ").await?;
    assert_eq!(status, 400, "{err}");
    let big = vec![b'a'; 20 * 1024 * 1024 + 1];
    let (status, err) = import(&t, "big.txt", &big).await?;
    assert_eq!(status, 413, "{err}");
    assert!(err["detail"].as_str().is_some_and(|d| d.contains("20 MB")));
    let (status, err) = send(
        t.client
            .request(Method::POST, "/api/memories/import")
            .multipart(Form::new().text("note", "no file")),
    )
    .await?;
    assert_eq!(status, 400, "{err}");
    assert_eq!(asked(), before, "no model was asked");

    // A model that fails on every part: 503 with the reason, and nothing kept.
    server.push(Reply::error(500));
    server.push(Reply::error(500));
    let (status, err) = import(&t, "about.txt", b"I live in Pune.").await?;
    assert_eq!(status, 503, "{err}");
    assert!(
        err["detail"]
            .as_str()
            .is_some_and(|d| d.contains("about.txt")),
        "{err}"
    );
    let (_, inbox) = t.client.get("/api/memories/review").await?;
    assert_eq!(inbox["count"], 0);
    t.stop().await;
    Ok(())
}
