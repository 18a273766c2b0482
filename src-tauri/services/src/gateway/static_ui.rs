//! Serves the built window (`ui/dist`) at `/`, so `sentient serve` is also a web app for
//! headless machines and tests. Unknown `/api` paths stay JSON 404s; any other unknown path
//! gets `index.html` so the window's own navigation works after a reload.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::ServeDir;

use crate::Services;
use crate::error::ApiError;

const NOT_BUILT: &str = "<!doctype html><meta charset=utf-8><title>Sentient</title>\
<body style=\"font-family:sans-serif;max-width:40em;margin:4em auto\"><h1>Sentient is running</h1>\
<p>The window has not been built on this computer yet. Run <code>npm run ui:build</code> in Sentient's folder, then reload this page.</p>";

pub async fn fallback(State(services): State<Services>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    if path == "/api" || path.starts_with("/api/") || path == "/ws" || path.starts_with("/hooks/") {
        return ApiError::not_found(format!(
            "There is nothing at {path}. Check the path against /api/openapi.json."
        ))
        .into_response();
    }
    let Some(dir) = services.ui_dir() else {
        return (StatusCode::OK, Html(NOT_BUILT)).into_response();
    };
    let index = dir.join("index.html");
    let served = ServeDir::new(dir)
        .append_index_html_on_directories(true)
        .oneshot(request)
        .await;
    match served {
        Ok(response) if response.status() != StatusCode::NOT_FOUND => response.map(Body::new),
        _ => match tokio::fs::read(&index).await {
            Ok(bytes) => {
                ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response()
            }
            Err(_) => (StatusCode::OK, Html(NOT_BUILT)).into_response(),
        },
    }
}
