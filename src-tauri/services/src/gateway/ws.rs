//! `WS /ws`: the live channel. Sends `hello` on connect, answers `ping`, and forwards every
//! domain event. Each client reads from its own bounded queue; one that falls too far behind
//! (or stops reading) is closed with 1013 and a log line, so it never slows the bus or others.

use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::agent::chat::{ApprovalResponse, ChatSend};
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
        (status = 401, description = "Missing or wrong token", body = crate::error::ErrorBody)
    )
)]
pub async fn live_channel(State(services): State<Services>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| serve(services, socket))
}

async fn serve(services: Services, socket: WebSocket) {
    // Subscribe before saying hello so no event published in between is missed.
    let mut events = services.bus().subscribe();
    let (mut sink, mut incoming) = socket.split();
    let hello = Reply::Hello {
        version: services.version().to_owned(),
        assistant: services.config().current().assistant.name.clone(),
    };
    if send(&mut sink, hello.to_text()).await.is_err() {
        return;
    }
    let shutdown = services.shutdown_token();
    // Chat turns run on their own tasks and send their events here.
    let (chat_tx, mut chat_rx) = tokio::sync::mpsc::unbounded_channel::<ChatEvent>();
    loop {
        tokio::select! {
            // Shutdown first: once it began, what the areas publish while they close (the
            // browser's last status) is not sent, and the client hears the engine go away.
            biased;
            () = shutdown.cancelled() => {
                let _ = close(&mut sink, CLOSE_GOING_AWAY, "Sentient is shutting down.").await;
                break;
            }
            Some(chat_event) = chat_rx.recv() => {
                if send(&mut sink, chat_event.to_value().to_string()).await.is_err() {
                    break;
                }
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

/// A message a client sends on the live channel (contract section 1), by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum Inbound {
    #[serde(rename = "chat.send")]
    ChatSend(ChatSend),
    #[serde(rename = "chat.steer")]
    ChatSteer(ChatSend),
    /// A new answer to the chat's last message in place of the last answer.
    #[serde(rename = "chat.regenerate")]
    ChatRegenerate {
        #[serde(default, deserialize_with = "text_or_empty")]
        session_id: String,
        #[serde(default)]
        model: Option<String>,
        #[serde(default)]
        client_id: Option<String>,
    },
    #[serde(rename = "chat.cancel")]
    ChatCancel {
        #[serde(default, deserialize_with = "text_or_empty")]
        session_id: String,
    },
    #[serde(rename = "approval.respond")]
    ApprovalRespond {
        #[serde(default, deserialize_with = "text_or_empty")]
        approval_id: String,
        #[serde(default, deserialize_with = "text_or_empty")]
        decision: String,
    },
    #[serde(rename = "ping")]
    Ping,
    /// Any other type: answered with a plain error naming it.
    #[serde(other)]
    Unknown,
}

/// A field read as text, or `""` when it is missing or not text (such a message is answered as
/// if the field were empty, never dropped).
fn text_or_empty<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(value.as_str().unwrap_or_default().to_owned())
}

/// What the live channel says back to a client message (chat events aside, which are
/// [`ChatEvent`]s).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
enum Reply {
    #[serde(rename = "hello")]
    Hello { version: String, assistant: String },
    #[serde(rename = "pong")]
    Pong,
    #[serde(rename = "approval.ack")]
    ApprovalAck { approval_id: String, resolved: bool },
    #[serde(rename = "error")]
    Error { message: String, recoverable: bool },
}

impl Reply {
    /// A plain, recoverable error.
    fn error(message: impl Into<String>) -> Self {
        Self::Error {
            message: message.into(),
            recoverable: true,
        }
    }

    fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Handles a client message: chat messages start or steer work, the rest is answered at once.
fn handle(
    services: &Services,
    text: &str,
    chat: &tokio::sync::mpsc::UnboundedSender<ChatEvent>,
) -> Option<String> {
    let message = match read(text) {
        Ok(message) => message,
        Err(reply) => return Some(reply.to_text()),
    };
    match message {
        Inbound::ChatSend(send) => chat_message(services, send, false, chat),
        Inbound::ChatSteer(send) => chat_message(services, send, true, chat),
        Inbound::ChatRegenerate {
            session_id,
            model,
            client_id,
        } => {
            if session_id.is_empty() {
                return Some(
                    Reply::error("chat.regenerate needs the chat's session_id.").to_text(),
                );
            }
            let (services, out) = (services.clone(), chat.clone());
            tokio::spawn(async move {
                match services.agent().answers().regenerate(&session_id).await {
                    Ok(regeneration) => regeneration.run(model, client_id, out).await,
                    // The HTTP door's 404/409 sentence, as the turn's error (no turn started).
                    Err(refusal) => {
                        let _ = out.send(ChatEvent::Error {
                            session_id,
                            turn_id: String::new(),
                            message: crate::error::ApiError::from(refusal).message(),
                            recoverable: true,
                            dropped: None,
                            client_id: Some(client_id),
                        });
                    }
                }
            });
            None
        }
        Inbound::ChatCancel { session_id } => {
            services.agent().cancel_chat(&session_id);
            None
        }
        Inbound::ApprovalRespond {
            approval_id,
            decision,
        } => {
            let response = ApprovalResponse {
                approval_id,
                decision,
            };
            let reply = match services.agent().respond_to_approval(&response) {
                Ok(answer) => Reply::ApprovalAck {
                    approval_id: response.approval_id,
                    resolved: answer.resolved,
                },
                // The same sentence as the other doors' 400; nothing is resolved.
                Err(refusal) => Reply::error(refusal.to_string()),
            };
            Some(reply.to_text())
        }
        Inbound::Ping | Inbound::Unknown => answer(text),
    }
}

/// A chat message starts a turn, or steers the chat's running reply (a `chat.send` with
/// attachments never steers).
fn chat_message(
    services: &Services,
    send: ChatSend,
    steer: bool,
    chat: &tokio::sync::mpsc::UnboundedSender<ChatEvent>,
) -> Option<String> {
    let steered = (steer || send.attachments.is_empty())
        && send
            .session_id
            .as_deref()
            .is_some_and(|sid| services.agent().steer_chat(sid, &send.text));
    if steered {
        let ack = ChatEvent::SteerAck {
            session_id: send.session_id,
            queued: true,
            client_id: Some(send.client_id),
        };
        return Some(ack.to_value().to_string());
    }
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

/// A client message, or the error to answer it with: not JSON, no type, or a chat message
/// without its text.
fn read(text: &str) -> Result<Inbound, Reply> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|_| Reply::error("That message is not valid JSON."))?;
    if !value.get("type").is_some_and(serde_json::Value::is_string) {
        return Err(Reply::error("A message needs a type."));
    }
    serde_json::from_value(value).map_err(|_| Reply::error("chat.send needs the message text."))
}

/// What the engine says back to a client message that needs no engine work, if anything.
fn answer(text: &str) -> Option<String> {
    let reply = match read(text) {
        Err(reply) => reply,
        Ok(Inbound::Ping) => Reply::Pong,
        Ok(_) => {
            let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
            let kind = value["type"].as_str().unwrap_or_default();
            Reply::error(format!("Sentient does not handle {kind} messages yet."))
        }
    };
    Some(reply.to_text())
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
    use super::{Inbound, Reply, answer, read};

    #[test]
    fn messages_are_read_by_type_and_missing_fields_read_as_empty() {
        assert!(matches!(
            read(r#"{"type":"chat.send","text":"hi","client_id":"c1"}"#),
            Ok(Inbound::ChatSend(send)) if send.text == "hi" && send.client_id.as_deref() == Some("c1")
        ));
        assert!(matches!(
            read(r#"{"type":"chat.steer","session_id":"s","text":"also eggs"}"#),
            Ok(Inbound::ChatSteer(send)) if send.session_id.as_deref() == Some("s")
        ));
        assert!(matches!(
            read(r#"{"type":"chat.regenerate","session_id":"s","client_id":"c2"}"#),
            Ok(Inbound::ChatRegenerate { session_id, model: None, client_id })
                if session_id == "s" && client_id.as_deref() == Some("c2")
        ));
        assert!(matches!(
            read(r#"{"type":"chat.cancel"}"#),
            Ok(Inbound::ChatCancel { session_id }) if session_id.is_empty()
        ));
        assert!(matches!(
            read(r#"{"type":"approval.respond","approval_id":5,"decision":"deny"}"#),
            Ok(Inbound::ApprovalRespond { approval_id, decision })
                if approval_id.is_empty() && decision == "deny"
        ));
        assert!(matches!(
            read(r#"{"type":"ping","n":1}"#),
            Ok(Inbound::Ping)
        ));
        assert!(matches!(read(r#"{"type":"dance"}"#), Ok(Inbound::Unknown)));
        assert_eq!(
            read(r#"{"type":"chat.send"}"#).err(),
            Some(Reply::error("chat.send needs the message text."))
        );
        assert_eq!(
            read(r#"{"type":5}"#).err(),
            Some(Reply::error("A message needs a type."))
        );
    }

    #[test]
    fn replies_keep_the_wire_shape() {
        let hello = Reply::Hello {
            version: "0.1.0".to_owned(),
            assistant: "Sentient".to_owned(),
        };
        assert_eq!(
            serde_json::to_value(&hello).expect("json"),
            serde_json::json!({"type": "hello", "version": "0.1.0", "assistant": "Sentient"})
        );
        let ack = Reply::ApprovalAck {
            approval_id: "a1".to_owned(),
            resolved: false,
        };
        assert_eq!(
            serde_json::to_value(&ack).expect("json"),
            serde_json::json!({"type": "approval.ack", "approval_id": "a1", "resolved": false})
        );
        assert_eq!(
            serde_json::to_value(Reply::error("No.")).expect("json"),
            serde_json::json!({"type": "error", "message": "No.", "recoverable": true})
        );
    }

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
