//! What the server saw: every request (method, path, headers, JSON body) in arrival order,
//! and how many streaming clients went away before their answer ended. Tests read these to
//! check what the engine really sent (`options.num_ctx`, `think`, tools, API keys...).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;
use tokio::sync::Notify;

use crate::Shared;

/// One request as the server received it.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// `GET`, `POST`...
    pub method: String,
    /// The path without the query, e.g. `/api/chat`.
    pub path: String,
    /// The raw query string, if any.
    pub query: Option<String>,
    pub headers: HeaderMap,
    /// The body parsed as JSON; `Null` when empty, a JSON string holding the raw text when
    /// it is not JSON.
    pub body: Value,
}

impl Recorded {
    /// A header's value as text (names are case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// The request body, parsed once by [`record`] and handed to the handlers.
#[derive(Clone, Debug)]
pub(crate) struct JsonBody(pub(crate) Value);

#[derive(Default)]
pub(crate) struct Log {
    requests: std::sync::Mutex<Vec<Recorded>>,
    disconnects: AtomicUsize,
    changed: Notify,
}

impl Log {
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        crate::lock(&self.requests).clone()
    }

    pub(crate) fn request_count(&self) -> usize {
        crate::lock(&self.requests).len()
    }

    pub(crate) fn disconnects(&self) -> usize {
        self.disconnects.load(Ordering::SeqCst)
    }

    /// A client dropped a response before it ended (stalled, slow or mid-stream).
    pub(crate) fn client_gone(&self) {
        self.disconnects.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    fn add(&self, recorded: Recorded) {
        crate::lock(&self.requests).push(recorded);
        self.changed.notify_waiters();
    }

    /// Waits until `done()` holds, re-checking after every change.
    pub(crate) async fn wait_until(&self, done: impl Fn(&Self) -> bool) {
        loop {
            // Registered before the check, so a change in between is not missed.
            let changed = self.changed.notified();
            if done(self) {
                return;
            }
            changed.await;
        }
    }
}

/// Middleware: records the request, then passes it on with its body parsed.
pub(crate) async fn record(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    const LIMIT: usize = 64 * 1024 * 1024;
    let (mut parts, body) = request.into_parts();
    let bytes = to_bytes(body, LIMIT).await.unwrap_or_default();
    let json = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    shared.log.add(Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts.headers.clone(),
        body: json.clone(),
    });
    parts.extensions.insert(JsonBody(json));
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
