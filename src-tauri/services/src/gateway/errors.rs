//! Every error the gateway gives is JSON `{"detail": ...}` with its status: service errors,
//! unknown routes, wrong methods, oversized bodies and panics alike.

use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::http::{Response as HttpResponse, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::{ApiError, INTERNAL_DETAIL};

/// Turns any error response that is not already JSON (axum's own 404/405/413 and friends)
/// into the contract's shape with a plain sentence.
pub async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !status.is_client_error() && !status.is_server_error() || is_json {
        return response;
    }
    let detail = match status {
        StatusCode::NOT_FOUND => {
            "There is nothing at this address. Check the path against /api/openapi.json."
        }
        StatusCode::METHOD_NOT_ALLOWED => {
            "This address does not accept that method. Check /api/openapi.json for the right one."
        }
        StatusCode::PAYLOAD_TOO_LARGE => "The request is too large. Send less at once.",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            "Send the body as JSON with Content-Type: application/json."
        }
        s if s.is_server_error() => INTERNAL_DETAIL,
        _ => "The request could not be handled. Check it against /api/openapi.json.",
    };
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(CONTENT_TYPE);
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    let mut fresh = ApiError::new(status.as_u16(), detail).into_response();
    for (name, value) in parts.headers {
        if let Some(name) = name {
            fresh.headers_mut().insert(name, value);
        }
    }
    fresh
}

/// A panic in a handler becomes a logged 500, never a dropped connection.
pub fn panic_response(cause: Box<dyn std::any::Any + Send + 'static>) -> HttpResponse<Body> {
    let message = cause
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| cause.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    tracing::error!(panic = message, "a request handler panicked");
    let body = serde_json::json!({ "detail": INTERNAL_DETAIL }).to_string();
    let mut response = HttpResponse::new(Body::from(body));
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response.headers_mut().insert(
        CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    response
}
