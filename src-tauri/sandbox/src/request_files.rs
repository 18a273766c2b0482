//! Request files: how a script in a container reaches its bridge without a network. The runner
//! writes `<name>.json` ({method, path, token, body}) into the run's request folder (as a
//! `.tmp` first, then renamed, so a request is never read half written); Sentient answers each
//! with `<name>.answer` ({status, body}), made the same way. Each request goes through the
//! same routes, token check included, as the socket's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// How often the folder is looked at: a tool call costs at most this much more than over a
/// socket.
const LOOK_EVERY: Duration = Duration::from_millis(5);
/// The biggest request read (the routes' own body limit applies after).
const MOST_REQUEST_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Deserialize)]
struct Request {
    #[serde(default = "get")]
    method: String,
    path: String,
    #[serde(default)]
    token: String,
    #[serde(default)]
    body: Option<Value>,
}

fn get() -> String {
    "GET".to_owned()
}

/// Answers the requests that appear in `folder` until `stop`.
pub async fn serve(folder: PathBuf, app: Router, stop: CancellationToken) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(LOOK_EVERY) => {}
        }
        for request in waiting(&folder) {
            let app = app.clone();
            tokio::spawn(async move {
                if let Err(error) = answer(&request, app).await {
                    tracing::warn!(%error, "a script's request file could not be answered");
                }
            });
        }
    }
}

/// The requests written completely, each taken (renamed) so it is answered once.
fn waiting(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut taken = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            let claimed = path.with_extension("taken");
            if std::fs::rename(&path, &claimed).is_ok() {
                taken.push(claimed);
            }
        }
    }
    taken
}

async fn answer(claimed: &Path, app: Router) -> std::io::Result<()> {
    let (status, body) = match read(claimed) {
        Ok(request) => respond(request, app).await,
        Err(error) => (400, json!({"error": error})),
    };
    let _ = std::fs::remove_file(claimed);
    let text = serde_json::to_vec(&json!({"status": status, "body": body}))?;
    let temporary = claimed.with_extension("answer.tmp");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, claimed.with_extension("answer"))
}

fn read(claimed: &Path) -> Result<Request, String> {
    let size = std::fs::metadata(claimed).map_err(|e| e.to_string())?.len();
    if size > MOST_REQUEST_BYTES {
        return Err("The request is too large.".to_owned());
    }
    let text = std::fs::read(claimed).map_err(|e| e.to_string())?;
    serde_json::from_slice(&text).map_err(|e| format!("The request could not be read: {e}"))
}

async fn respond(request: Request, app: Router) -> (u16, Value) {
    let body = match &request.body {
        Some(value) => Body::from(value.to_string()),
        None => Body::empty(),
    };
    let built = axum::http::Request::builder()
        .method(request.method.as_str())
        .uri(request.path.as_str())
        .header(
            axum::http::header::AUTHORIZATION,
            format!("Bearer {}", request.token),
        )
        .header(axum::http::header::CONTENT_TYPE, "application/json")
        .body(body);
    let Ok(built) = built else {
        return (400, json!({"error": "The request could not be read."}));
    };
    let Ok(response) = app.oneshot(built).await;
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap_or_default();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::post;

    #[tokio::test]
    async fn a_request_file_gets_an_answer_file_through_the_routes() {
        let folder = tempfile::tempdir().expect("a folder");
        let app = Router::new().route(
            "/echo",
            post(|headers: axum::http::HeaderMap, body: String| async move {
                let token = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                axum::Json(json!({"token": token, "got": body}))
            }),
        );
        let stop = CancellationToken::new();
        let server = tokio::spawn(serve(folder.path().to_owned(), app, stop.clone()));
        let request = json!({"method": "POST", "path": "/echo", "token": "t1", "body": {"a": 1}});
        std::fs::write(folder.path().join("r1.tmp"), request.to_string()).expect("written");
        std::fs::rename(folder.path().join("r1.tmp"), folder.path().join("r1.json"))
            .expect("renamed");
        let answer_file = folder.path().join("r1.answer");
        let mut waited = 0;
        while !answer_file.exists() && waited < 400 {
            tokio::time::sleep(Duration::from_millis(10)).await;
            waited += 1;
        }
        let answer: Value =
            serde_json::from_slice(&std::fs::read(&answer_file).expect("an answer")).expect("json");
        assert_eq!(answer["status"], 200);
        assert_eq!(answer["body"]["token"], "Bearer t1");
        assert_eq!(answer["body"]["got"], r#"{"a":1}"#);
        // The request was taken and removed; nothing else is left but the answer.
        let names: Vec<_> = std::fs::read_dir(folder.path())
            .expect("listed")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["r1.answer"]);
        stop.cancel();
        server.await.expect("stopped");
    }
}
