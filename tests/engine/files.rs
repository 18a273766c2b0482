//! Files over HTTP: upload (with numbered names for taken ones and screen captures), list,
//! content, delete, and the limits.

use anyhow::Result;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use sentient_e2e::{TestEngine, send};
use serde_json::json;

fn form(name: &str, bytes: &[u8], source: Option<&str>) -> Form {
    let form = Form::new().part(
        "file",
        Part::bytes(bytes.to_vec()).file_name(name.to_owned()),
    );
    match source {
        Some(s) => form.text("source", s.to_owned()),
        None => form,
    }
}

#[tokio::test]
async fn upload_list_read_and_delete() -> Result<()> {
    let t = TestEngine::start().await?;
    let upload = |name: &str, bytes: &[u8], source: Option<&str>| {
        t.client
            .request(Method::POST, "/api/files")
            .multipart(form(name, bytes, source))
    };
    let (status, first) = send(upload("notes.txt", b"first", None)).await?;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["name"], "notes.txt");
    assert_eq!(first["size"], 5.0);
    assert_eq!(first["mime"], "text/plain");
    let (_, second) = send(upload("notes.txt", b"second", None)).await?;
    assert_eq!(second["name"], "notes (1).txt");
    let (_, screen) = send(upload("Inbox - Mail.png", b"\x89PNG", Some("screen"))).await?;
    assert_eq!(screen["name"], "screens/Inbox - Mail.png");
    assert!(t.home().join("files/screens/Inbox - Mail.png").exists());
    assert!(t.home().join("files/uploads/notes (1).txt").exists());

    let (_, list) = t.client.get("/api/files").await?;
    let names: Vec<&str> = list
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    for expected in ["notes.txt", "notes (1).txt", "screens/Inbox - Mail.png"] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }

    let response = t
        .client
        .request(Method::GET, "/api/files/content/notes%20(1).txt")
        .send()
        .await?;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/plain");
    assert_eq!(response.bytes().await?.as_ref(), b"second");
    let response = t
        .client
        .request(
            Method::GET,
            "/api/files/content/screens/Inbox%20-%20Mail.png",
        )
        .send()
        .await?;
    assert_eq!(response.status(), 200);

    let (status, ok) = send(t.client.request(Method::DELETE, "/api/files/notes.txt")).await?;
    assert_eq!((status, ok), (200, json!({"ok": true})));
    let (status, body) = send(t.client.request(Method::DELETE, "/api/files/notes.txt")).await?;
    assert_eq!(status, 404);
    assert_eq!(body["detail"], "There is no file called notes.txt.");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn bad_uploads_and_escaping_names_are_refused() -> Result<()> {
    let t = TestEngine::start().await?;
    let no_file = Form::new().text("source", "upload");
    let (status, body) = send(
        t.client
            .request(Method::POST, "/api/files")
            .multipart(no_file),
    )
    .await?;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["msg"], "Attach a file to upload.");
    let (status, _) = send(t.client.request(Method::POST, "/api/files").multipart(form(
        "a.txt",
        b"x",
        Some("camera"),
    )))
    .await?;
    assert_eq!(status, 422);
    // Bigger than the API's usual 2 MB limit is fine for uploads.
    let three_mb = vec![b'a'; 3 * 1024 * 1024];
    let (status, big) = send(
        t.client
            .request(Method::POST, "/api/files")
            .multipart(form("big.txt", &three_mb, None)),
    )
    .await?;
    assert_eq!(status, 200, "{big}");
    // Over 50 MB: the same sentence as the window's door, and nothing is kept.
    let over = vec![b'a'; 50 * 1024 * 1024 + 1];
    let (status, body) = send(
        t.client
            .request(Method::POST, "/api/files")
            .multipart(form("huge.txt", &over, None)),
    )
    .await?;
    assert_eq!(status, 413, "{body}");
    assert_eq!(
        body["detail"],
        "The file is too large. Files can be at most 50 MB."
    );
    let (_, list) = t.client.get("/api/files").await?;
    assert!(
        !list.to_string().contains("huge"),
        "an oversized upload was kept: {list}"
    );
    for path in [
        "/api/files/content/..%2Fconfig.yaml",
        "/api/files/content/workspace/USER.md",
        "/api/files/content/screens/..%2F..%2Fsentient.db",
    ] {
        let (status, _) = send(t.client.request(Method::GET, path)).await?;
        assert!(status == 404 || status == 422, "{path}: {status}");
    }
    assert!(
        t.home().join("config.yaml").exists(),
        "nothing outside files/ was touched"
    );
    t.stop().await;
    Ok(())
}
