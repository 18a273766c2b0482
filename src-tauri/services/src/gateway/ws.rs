//! `WS /ws`: the live channel. Sends `hello` on connect, answers `ping`, and forwards every
//! domain event. Each client reads from its own bounded queue; one that falls too far behind
//! (or stops reading) is closed with 1013 and a log line, so it never slows the bus or others.

use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures::{SinkExt, StreamExt};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::agent::chat_events::ChatEvent;

/// Close code for a client that could not keep up ("try again later").
pub const CLOSE_TOO_SLOW: u16 = 1013;
/// Close code when the engine shuts down.
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// A single send that takes longer than this means the client stopped reading.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new().routes(routes!(live_channel))
}

/// The live channel (upgrade to WebSocket; token as `?token=`).
#[utoipa::path(
    get,
    path = "/ws",
    tag = "live",
    params(("token" = String, Query, description = "The gateway token")),
    responses(
        (status = 101, description = "Switching to WebSocket: hello, then every domain event"),
        (status = 401, description = "Missing or wrong token", body = crate::error::ApiError)
    )
)]
pub async fn live_channel(State(services): State<Services>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| serve(services, socket))
}

async fn serve(services: Services, socket: WebSocket) {
    // Subscribe before saying hello so no event published in between is missed.
    let mut events = services.bus().subscribe();
    let (mut sink, mut incoming) = socket.split();
    let hello = json!({
        "type": "hello",
        "version": services.version(),
        "assistant": services.config().current().assistant.name,
    });
    if send(&mut sink, hello.to_string()).await.is_err() {
        return;
    }
    let shutdown = services.shutdown_token();
    // Chat turns run on their own tasks and send their events here.
    let (chat_tx, mut chat_rx) = tokio::sync::mpsc::unbounded_channel::<ChatEvent>();
    loop {
        tokio::select! {
            Some(chat_event) = chat_rx.recv() => {
                if send(&mut sink, chat_event.to_value().to_string()).await.is_err() {
                    break;
                }
            }
            () = shutdown.cancelled() => {
                let _ = close(&mut sink, CLOSE_GOING_AWAY, "Sentient is shutting down.").await;
                break;
            }
            message = incoming.next() => match message {
                Some(Ok(Message::Text(text))) => {
                    if let Some(reply) = handle(&services, &text, &chat_tx)
                        && send(&mut sink, reply).await.is_err()
                    {
                        break;
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            event = events.recv() => match event {
                Ok(envelope) => {
                    let Ok(text) = serde_json::to_string(&envelope) else { continue };
                    if send(&mut sink, text).await.is_err() {
                        tracing::warn!("live client stopped reading; closing it");
                        break;
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "live client fell too far behind; closing it");
                    let _ = close(&mut sink, CLOSE_TOO_SLOW, "Too far behind; reconnect to catch up.").await;
                    break;
                }
                Err(RecvError::Closed) => break,
            },
        }
    }
}

/// Handles a client message: chat messages start or steer work, the rest is answered at once.
fn handle(
    services: &Services,
    text: &str,
    chat: &tokio::sync::mpsc::UnboundedSender<ChatEvent>,
) -> Option<String> {
    let message: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    match message.get("type").and_then(|t| t.as_str()) {
        Some(kind @ ("chat.send" | "chat.steer")) => {
            let steer = kind == "chat.steer";
            match serde_json::from_value::<crate::agent::chat::ChatSend>(message) {
                // A message for a chat whose reply is running steers it (attachments never do).
                Ok(send)
                    if (steer || send.attachments.is_empty())
                        && send
                            .session_id
                            .as_deref()
                            .is_some_and(|sid| services.agent().steer_chat(sid, &send.text)) =>
                {
                    Some(
                        ChatEvent::SteerAck {
                            session_id: send.session_id,
                            queued: true,
                            client_id: Some(send.client_id),
                        }
                        .to_value()
                        .to_string(),
                    )
                }
                Ok(send) => {
                    if steer {
                        let _ = chat.send(ChatEvent::SteerAck {
                            session_id: send.session_id.clone(),
                            queued: false,
                            client_id: Some(send.client_id.clone()),
                        });
                    }
                    let (services, out) = (services.clone(), chat.clone());
                    tokio::spawn(async move { services.agent().chat_turn(send, out).await });
                    None
                }
                Err(_) => Some(
                    json!({"type": "error", "message": "chat.send needs the message text.", "recoverable": true}).to_string(),
                ),
            }
        }
        Some("chat.cancel") => {
            let session = message
                .get("session_id")
                .and_then(|s| s.as_str())
                .unwrap_or_default();
            services.agent().cancel_chat(session);
            None
        }
        Some("approval.respond") => {
            let id = message
                .get("approval_id")
                .and_then(|s| s.as_str())
                .unwrap_or_default();
            let decision = message
                .get("decision")
                .and_then(|s| s.as_str())
                .unwrap_or_default();
            let resolved = services.agent().resolve_approval(id, decision);
            Some(
                json!({"type": "approval.ack", "approval_id": id, "resolved": resolved})
                    .to_string(),
            )
        }
        _ => answer(text),
    }
}

/// What the engine says back to a client message that needs no engine work, if anything.
fn answer(text: &str) -> Option<String> {
    let message: serde_json::Value = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(_) => {
            return Some(
                json!({"type": "error", "message": "That message is not valid JSON.", "recoverable": true})
                    .to_string(),
            );
        }
    };
    match message.get("type").and_then(|t| t.as_str()) {
        Some("ping") => Some(json!({"type": "pong"}).to_string()),
        Some(other) => Some(
            json!({
                "type": "error",
                "message": format!("Sentient does not handle {other} messages yet."),
                "recoverable": true
            })
            .to_string(),
        ),
        None => Some(
            json!({"type": "error", "message": "A message needs a type.", "recoverable": true})
                .to_string(),
        ),
    }
}

type Sink = futures::stream::SplitSink<WebSocket, Message>;

async fn send(sink: &mut Sink, text: String) -> Result<(), ()> {
    match tokio::time::timeout(
        SEND_TIMEOUT,
        sink.send(Message::Text(Utf8Bytes::from(text))),
    )
    .await
    {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

async fn close(sink: &mut Sink, code: u16, reason: &'static str) -> Result<(), ()> {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    };
    match tokio::time::timeout(
        Duration::from_secs(2),
        sink.send(Message::Close(Some(frame))),
    )
    .await
    {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::answer;

    #[test]
    fn ping_is_answered_and_unknown_messages_get_a_plain_error() {
        assert_eq!(
            answer(r#"{"type":"ping"}"#).as_deref(),
            Some(r#"{"type":"pong"}"#)
        );
        let unknown: serde_json::Value =
            serde_json::from_str(&answer(r#"{"type":"dance"}"#).expect("reply")).expect("json");
        assert_eq!(unknown["type"], "error");
        assert_eq!(unknown["recoverable"], true);
        assert!(
            answer("not json")
                .expect("reply")
                .contains("not valid JSON")
        );
    }
}
