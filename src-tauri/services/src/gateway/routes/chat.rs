//! Chat over plain HTTP (contract section 2): the NDJSON fallback of a `/ws` chat turn, and
//! answering approval questions without a socket.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::agent::chat::{ApprovalResponse, ChatSend, Resolved};
use crate::agent::chat_answers::Regeneration;
use crate::agent::chat_events::ChatEvent;
use crate::error::{ApiError, FieldError};
use crate::gateway::body::{JsonBody, PlainBody};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(chat))
        .routes(routes!(approvals))
        .routes(routes!(regenerate))
}

/// The NDJSON answer of a turn: one line per event, ending when the turn drops its sender.
fn ndjson(rx: tokio::sync::mpsc::UnboundedReceiver<ChatEvent>) -> Response {
    let lines = futures::stream::unfold(rx, |mut rx| async move {
        let event = rx.recv().await?;
        let line = format!("{}\n", event.to_value());
        Some((Ok::<_, std::convert::Infallible>(line), rx))
    });
    (
        [(CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response()
}

/// `POST /api/sessions/{id}/regenerate`: `model` overrides the main model for this answer.
#[derive(Debug, Default, serde::Deserialize, utoipa::ToSchema)]
pub struct RegenerateBody {
    #[serde(default)]
    pub model: Option<String>,
}

/// Writes a new answer to the chat's last message in place of the last answer (which is kept as
/// an earlier version) and streams the turn's events as NDJSON, as `POST /api/chat` does. The
/// question is not sent again.
#[utoipa::path(post, path = "/api/sessions/{id}/regenerate", tag = "chat", request_body = RegenerateBody,
    responses((status = 200, description = "NDJSON chat events", content_type = "application/x-ndjson"),
              (status = 404, body = crate::error::ErrorBody),
              (status = 409, description = "Nothing to regenerate yet, or a reply is running", body = crate::error::ErrorBody),
              (status = 422, body = crate::error::ErrorBody)))]
pub async fn regenerate(
    State(services): State<Services>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<RegenerateBody>,
) -> Result<Response, ApiError> {
    let regeneration: Regeneration = services.agent().answers().regenerate(&id).await?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move { regeneration.run(body.model, None, tx).await });
    Ok(ndjson(rx))
}

/// Runs one chat turn and streams its events as NDJSON; the first line is `{type: "session"}`.
/// For a chat whose reply is running (and no attachments) it steers that reply instead and
/// answers one `steer_ack` line.
#[utoipa::path(post, path = "/api/chat", tag = "chat", request_body = ChatSend,
    responses((status = 200, description = "NDJSON chat events", content_type = "application/x-ndjson"),
              (status = 422, body = crate::error::ErrorBody)))]
pub async fn chat(
    State(services): State<Services>,
    JsonBody(body): JsonBody<ChatSend>,
) -> Result<Response, ApiError> {
    if body.text.trim().is_empty() {
        return Err(ApiError::validation(vec![FieldError::new(
            &["body", "text"],
            "Type a message first.",
            "missing",
        )]));
    }
    // A message for a chat whose reply is running steers it (attachments never do).
    if let Some(sid) = body.session_id.as_deref()
        && body.attachments.is_empty()
        && services.agent().steer_chat(sid, &body.text)
    {
        let ack = ChatEvent::SteerAck {
            session_id: Some(sid.to_owned()),
            queued: true,
            client_id: None,
        }
        .to_value();
        return Ok(([(CONTENT_TYPE, "application/x-ndjson")], format!("{ack}\n")).into_response());
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    // The HTTP answer is the caller's own stream, so there is nothing to echo an id for.
    let send = ChatSend {
        client_id: None,
        ..body
    };
    tokio::spawn(async move { services.agent().chat_turn(send, tx).await });
    // The stream ends when the turn drops its sender, after `done`.
    Ok(ndjson(rx))
}

/// Answers an approval question (the HTTP twin of `approval.respond`).
#[utoipa::path(post, path = "/api/approvals", tag = "chat", request_body = ApprovalResponse,
    responses((status = 200, body = Resolved), (status = 400, body = crate::error::ErrorBody)))]
pub async fn approvals(
    State(services): State<Services>,
    PlainBody(body): PlainBody<ApprovalResponse>,
) -> Result<Json<Resolved>, ApiError> {
    Ok(Json(services.agent().respond_to_approval(&body)?))
}
