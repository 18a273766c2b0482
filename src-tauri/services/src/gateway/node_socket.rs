//! `WS /ws/node`: one device connection (devices-protocol.md §4). `hello` first (within 15 s),
//! then invokes out and results, events, state and pings in. The engine never pings; a device
//! silent for `nodes.idle_timeout_s` on the engine's clock is closed.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use base64::Engine as _;
use chrono::{DateTime, Utc};
use futures::stream::SplitSink;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};

use crate::Services;
use crate::devices::model::{
    self, DeviceState, EventMessage, Hello, InvokeReply, KEEPALIVE_S, Node, PROTOCOL,
    ResultMessage, close,
};
use crate::devices::{Connection, Outgoing, Peer, Refusal};

/// How long a device has to say `hello`.
pub const HELLO_WITHIN: Duration = Duration::from_secs(15);
/// How often the idle check looks at the clock.
const IDLE_CHECK_EVERY: Duration = Duration::from_millis(500);
/// Largest message a device may send (a photo in one binary frame).
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

type Sink = SplitSink<WebSocket, Message>;

async fn refuse(sink: &mut Sink, refusal: &Refusal) {
    let error = json!({"type": "error", "code": refusal.code, "message": refusal.message});
    let _ = sink.send(Message::Text(error.to_string().into())).await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: refusal.close,
            reason: Utf8Bytes::from(refusal.code),
        })))
        .await;
}

async fn say(sink: &mut Sink, value: &Value) -> bool {
    sink.send(Message::Text(value.to_string().into()))
        .await
        .is_ok()
}

fn apply_state(node: &mut Node, state: DeviceState) {
    if let Some(battery) = state.battery {
        node.battery = Some(battery.clamp(0.0, 100.0).round() as u8);
    }
    if state.charging.is_some() {
        node.charging = state.charging;
    }
    if state.worn.is_some() {
        node.worn = state.worn;
    }
}

/// Serves one device from its first message to its close.
pub async fn serve(services: Services, socket: WebSocket, peer: Peer) {
    let (mut sink, mut incoming) = socket.split();
    if !services.config().current().nodes.enabled {
        refuse(&mut sink, &Refusal::disabled()).await;
        return;
    }
    let first = tokio::time::timeout(HELLO_WITHIN, incoming.next()).await;
    let hello: Option<Hello> = match first {
        Ok(Some(Ok(Message::Text(text)))) => serde_json::from_str::<Value>(&text)
            .ok()
            .filter(|v| v.get("type").and_then(Value::as_str) == Some("hello"))
            .and_then(|v| serde_json::from_value(v).ok()),
        _ => None,
    };
    let Some(hello) = hello else {
        refuse(
            &mut sink,
            &Refusal::protocol("The first message must be hello, within 15 seconds."),
        )
        .await;
        return;
    };
    if hello.protocol.is_some_and(|p| p != PROTOCOL) {
        refuse(
            &mut sink,
            &Refusal::protocol("Sentient speaks device protocol 1. Update the device's app."),
        )
        .await;
        return;
    }
    let devices = services.devices();
    let admitted = match devices.admit(&hello, peer, services.clock().now()).await {
        Ok(admitted) => admitted,
        Err(refusal) => {
            tracing::info!(code = refusal.code, address = %peer.address, "a device was refused");
            refuse(&mut sink, &refusal).await;
            return;
        }
    };
    let mut node = admitted.node;
    node.capabilities = model::known_capabilities(&hello.capabilities);
    if !hello.platform.is_empty() {
        node.platform = hello.platform.clone();
    }
    if !hello.app_version.is_empty() {
        node.app_version = hello.app_version.clone();
    }
    if let Some(state) = hello.state {
        apply_state(&mut node, state);
    }
    node.last_seen_at = Some(services.clock().now());
    let (conn, mut outgoing) = devices.attach(&node.node_id, peer.door, node.capabilities.clone());

    let settings = services.config().current();
    let mut welcome = json!({
        "type": "welcome",
        "protocol": PROTOCOL,
        "node_id": node.node_id,
        "name": node.name,
        "assistant": settings.assistant.name,
        "server_version": services.version(),
        "keepalive_s": KEEPALIVE_S,
        "idle_timeout_s": settings.nodes.idle_timeout_s,
        "stopped": services.stop().is_stopped(),
    });
    if let Some(token) = &admitted.token {
        welcome["token"] = Value::String(token.clone());
    }
    if !say(&mut sink, &welcome).await {
        devices.detach(&conn, &node.name).await;
        return;
    }
    devices.save_and_publish(&node).await;
    tracing::info!(node_id = %node.node_id, door = conn.door.connection(), "a device connected");

    let mut session = Session {
        services: services.clone(),
        conn: conn.clone(),
        node,
        last_activity: services.clock().now(),
        awaiting_binary: None,
    };
    let idle_limit = chrono::Duration::seconds(i64::from(settings.nodes.idle_timeout_s));
    let mut idle_check = tokio::time::interval(IDLE_CHECK_EVERY);
    let shutdown = services.shutdown_token();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => {
                let _ = sink.send(Message::Close(Some(CloseFrame {
                    code: close::GOING_AWAY,
                    reason: Utf8Bytes::from_static("Sentient is shutting down."),
                }))).await;
                break;
            }
            _ = idle_check.tick() => {
                if services.clock().now() - session.last_activity >= idle_limit {
                    tracing::info!(node_id = %session.node.node_id, "a silent device was disconnected");
                    let _ = sink.send(Message::Close(Some(CloseFrame {
                        code: close::IDLE,
                        reason: Utf8Bytes::from_static("idle"),
                    }))).await;
                    break;
                }
                devices.idle_checked();
            }
            out = outgoing.recv() => match out {
                Some(Outgoing::Text(text)) => {
                    if sink.send(Message::Text(text.into())).await.is_err() { break; }
                }
                Some(Outgoing::Binary(bytes)) => {
                    if sink.send(Message::Binary(bytes.into())).await.is_err() { break; }
                }
                Some(Outgoing::Close(refusal)) => {
                    refuse(&mut sink, &refusal).await;
                    break;
                }
                None => break,
            },
            message = incoming.next() => {
                let Some(Ok(message)) = message else { break };
                session.last_activity = services.clock().now();
                let reply = match message {
                    Message::Text(text) => session.on_text(&text).await,
                    Message::Binary(bytes) => session.on_binary(bytes.to_vec()).await,
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                if let Some(reply) = reply && !say(&mut sink, &reply).await {
                    break;
                }
            }
        }
    }
    let name = session.node.name.clone();
    devices.detach(&conn, &name).await;
    tracing::info!(node_id = %session.node.node_id, "a device disconnected");
}

struct Session {
    services: Services,
    conn: Arc<Connection>,
    node: Node,
    last_activity: DateTime<Utc>,
    /// A result that said a binary frame follows: its id and data.
    awaiting_binary: Option<(String, Value)>,
}

fn error(code: &str, message: &str) -> Value {
    json!({"type": "error", "code": code, "message": message})
}

impl Session {
    async fn on_text(&mut self, text: &str) -> Option<Value> {
        if let Some((id, _)) = self.awaiting_binary.take() {
            self.conn.settle(
                &id,
                InvokeReply::failed(
                    "bad_upload",
                    "The device said a photo would follow, but sent something else.",
                ),
            );
        }
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            return Some(error(
                "protocol",
                "Messages must be JSON objects with a type.",
            ));
        };
        let kind = message.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "ping" => Some(
                json!({"type": "pong", "ts": message.get("ts").cloned().unwrap_or(Value::Null)}),
            ),
            "hello" => {
                let hello: Hello = serde_json::from_value(message).unwrap_or_default();
                self.node.capabilities = model::known_capabilities(&hello.capabilities);
                self.conn.set_capabilities(self.node.capabilities.clone());
                if let Some(state) = hello.state {
                    apply_state(&mut self.node, state);
                }
                self.touch_and_publish().await;
                None
            }
            "state" => {
                let state: DeviceState = serde_json::from_value(message).unwrap_or_default();
                apply_state(&mut self.node, state);
                self.touch_and_publish().await;
                None
            }
            "event" => match serde_json::from_value::<EventMessage>(message) {
                Ok(event) if model::valid_event_name(&event.event) => {
                    match event.event.as_str() {
                        "battery" => {
                            let state = DeviceState {
                                battery: event.data.get("level").and_then(Value::as_f64),
                                charging: event.data.get("charging").and_then(Value::as_bool),
                                worn: None,
                            };
                            apply_state(&mut self.node, state);
                            self.touch_and_publish().await;
                        }
                        "presence" => {
                            self.node.worn = event.data.get("worn").and_then(Value::as_bool);
                            self.touch_and_publish().await;
                        }
                        _ => {}
                    }
                    self.services.devices().publish_event(
                        &self.node.node_id,
                        &event.event,
                        event.data,
                    );
                    None
                }
                _ => Some(error(
                    "protocol",
                    "An event needs a name of 1 to 40 characters: a-z, 0-9, _ . or -.",
                )),
            },
            "result" => match serde_json::from_value::<ResultMessage>(message) {
                Ok(result) => {
                    self.on_result(result).await;
                    None
                }
                Err(_) => Some(error("protocol", "A result needs the invoke's id.")),
            },
            "stop_all" | "resume" => {
                let services = self.services.clone();
                let stop = kind == "stop_all";
                // Stopping cancels work and may take a moment; the socket keeps reading meanwhile.
                tokio::spawn(async move {
                    let outcome = if stop {
                        services.stop().stop_all(Some("device")).await.map(|_| ())
                    } else {
                        services.stop().resume(Some("device")).await.map(|_| ())
                    };
                    if let Err(error) = outcome {
                        tracing::error!(%error, "Stop everything from a device failed");
                    }
                });
                None
            }
            other => Some(error(
                "unknown_type",
                &format!("Sentient doesn't know the message type \"{other}\"; it was ignored."),
            )),
        }
    }

    async fn on_binary(&mut self, bytes: Vec<u8>) -> Option<Value> {
        let Some((id, mut data)) = self.awaiting_binary.take() else {
            return Some(error(
                "protocol",
                "A binary frame may only follow a result that says binary: true.",
            ));
        };
        if let Some(object) = data.as_object_mut() {
            object.remove("binary");
            object.insert(
                "base64".to_owned(),
                Value::String(base64::engine::general_purpose::STANDARD.encode(&bytes)),
            );
        }
        self.conn.settle(&id, InvokeReply::ok(data));
        None
    }

    async fn on_result(&mut self, result: ResultMessage) {
        if !result.ok {
            let code = match &result.error {
                Some(Value::Object(o)) => o.get("code").and_then(Value::as_str).map(str::to_owned),
                _ => None,
            }
            .unwrap_or_else(|| "device_error".to_owned());
            self.conn.settle(
                &result.id,
                InvokeReply {
                    ok: false,
                    data: None,
                    error: result
                        .error
                        .or_else(|| Some(Value::String("The device could not do it.".to_owned()))),
                    code: Some(code),
                },
            );
            return;
        }
        let data = result.data.unwrap_or(Value::Null);
        if data.get("binary").and_then(Value::as_bool) == Some(true) {
            self.awaiting_binary = Some((result.id, data));
            return;
        }
        let reply = match self
            .services
            .devices()
            .resolve_upload(&self.node.node_id, data)
            .await
        {
            Ok(data) => InvokeReply::ok(data),
            Err(failed) => failed,
        };
        self.conn.settle(&result.id, reply);
    }

    async fn touch_and_publish(&mut self) {
        self.node.last_seen_at = Some(self.services.clock().now());
        self.services.devices().save_and_publish(&self.node).await;
    }
}
