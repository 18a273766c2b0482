//! Chat from the window: a turn streams its events (the contract's flat chat events, section 1)
//! through a channel, the same events `/ws` sends; steering, stopping a reply, answering an
//! approval question, and the tools list.

use sentient_engine::Engine;
use sentient_engine::agent::chat::{ApprovalResponse, ChatSend, Resolved};
use sentient_engine::agent::chat_events::ChatEvent;
use sentient_engine::error::ApiError;
use sentient_engine::tools::PluginInfo;
use serde::{Deserialize, Serialize};
use tauri::State;
use tauri::ipc::Channel;

/// `chat.steer`: words for the reply running in a chat.
#[derive(Debug, Deserialize, specta::Type)]
pub struct ChatSteerBody {
    pub session_id: String,
    pub text: String,
    #[serde(default)]
    pub client_id: Option<String>,
}

/// Whether a steer was queued for the running reply (false: no reply was running).
#[derive(Debug, Serialize, Deserialize, specta::Type)]
pub struct SteerAck {
    pub queued: bool,
}

/// Whether a running reply was asked to stop (false: none was running).
#[derive(Debug, Serialize, Deserialize, specta::Type)]
pub struct CancelAck {
    pub cancelled: bool,
}

/// Runs a chat turn, sending each event through `on_event`; returns when the turn (and any turn
/// made of steers that came too late for it) has ended.
#[tauri::command]
#[specta::specta]
pub async fn chat_send(
    engine: State<'_, Engine>,
    body: ChatSend,
    on_event: Channel<ChatEvent>,
) -> Result<(), ApiError> {
    let send = body;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let engine = engine.inner().clone();
    // The turn runs on its own task so a window that goes away never stops it half-saved.
    let turn = tokio::spawn(async move { engine.services().agent().chat_turn(send, tx).await });
    while let Some(event) = rx.recv().await {
        if on_event.send(event).is_err() {
            break;
        }
    }
    let _ = turn.await;
    Ok(())
}

#[tauri::command]
#[specta::specta]
pub async fn chat_steer(
    engine: State<'_, Engine>,
    body: ChatSteerBody,
) -> Result<SteerAck, ApiError> {
    Ok(SteerAck {
        queued: engine
            .services()
            .agent()
            .steer_chat(&body.session_id, &body.text),
    })
}

#[tauri::command]
#[specta::specta]
pub async fn chat_cancel(
    engine: State<'_, Engine>,
    session_id: String,
) -> Result<CancelAck, ApiError> {
    Ok(CancelAck {
        cancelled: engine.services().agent().cancel_chat(&session_id),
    })
}

#[tauri::command]
#[specta::specta]
pub async fn approval_respond(
    engine: State<'_, Engine>,
    body: ApprovalResponse,
) -> Result<Resolved, ApiError> {
    Ok(engine.services().agent().respond_to_approval(&body)?)
}

/// Every app with its tools and their risk (as `GET /api/tools`).
#[tauri::command]
#[specta::specta]
pub async fn list_tools(engine: State<'_, Engine>) -> Result<Vec<PluginInfo>, ApiError> {
    Ok(engine.services().tools().catalog())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::Value;

    use super::*;
    use crate::test_support::engine_and_app;
    use tauri::Manager;
    use tauri::ipc::InvokeResponseBody;

    /// A channel that keeps what it is sent.
    fn recording_channel() -> (Channel<ChatEvent>, Arc<Mutex<Vec<Value>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = seen.clone();
        let channel = Channel::new(move |body| {
            if let InvokeResponseBody::Json(text) = body {
                keep.lock()
                    .expect("lock")
                    .push(serde_json::from_str(&text).expect("json"));
            }
            Ok(())
        });
        (channel, seen)
    }

    #[test]
    fn an_empty_message_streams_the_plain_error_and_ends() {
        let (_dir, _engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        let (channel, seen) = recording_channel();
        tauri::async_runtime::block_on(chat_send(
            state,
            ChatSend {
                session_id: None,
                text: "   ".to_owned(),
                attachments: Vec::new(),
                model: None,
                client_id: Some("c1".to_owned()),
            },
            channel,
        ))
        .expect("send");
        let seen = seen.lock().expect("lock");
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0]["type"], "error");
        assert_eq!(seen[0]["message"], "Type a message first.");
    }

    #[test]
    fn an_unknown_decision_is_refused_as_over_http_and_resolves_nothing() {
        use sentient_engine::agent::run_loop::ApprovalAnswer;
        let (_dir, engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        let mut answer = engine.services().agent().chat_state().await_answer("q1");
        tauri::async_runtime::block_on(async {
            let respond = |decision: &str| {
                approval_respond(
                    state.clone(),
                    ApprovalResponse {
                        approval_id: "q1".to_owned(),
                        decision: decision.to_owned(),
                    },
                )
            };
            let refused = respond("maybe").await.expect_err("unknown word");
            assert_eq!(
                (refused.status, refused.message()),
                (400, "decision is allow, allow_session or deny.".to_owned())
            );
            assert!(answer.try_recv().is_err(), "the question still waits");
            let resolved = respond("deny").await.expect("deny");
            assert!(resolved.resolved);
        });
        assert_eq!(answer.try_recv(), Ok(ApprovalAnswer::Deny));
    }

    #[test]
    fn steer_cancel_and_approval_say_when_nothing_was_waiting() {
        let (_dir, _engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let ack = chat_steer(
                state.clone(),
                ChatSteerBody {
                    session_id: "nope".to_owned(),
                    text: "also eggs".to_owned(),
                    client_id: None,
                },
            )
            .await
            .expect("steer");
            assert!(!ack.queued);
            let cancel = chat_cancel(state.clone(), "nope".to_owned())
                .await
                .expect("cancel");
            assert!(!cancel.cancelled);
            let answer = approval_respond(
                state.clone(),
                ApprovalResponse {
                    approval_id: "nope".to_owned(),
                    decision: "allow".to_owned(),
                },
            )
            .await
            .expect("respond");
            assert!(!answer.resolved);
            let tools = list_tools(state.clone()).await.expect("tools");
            assert!(
                tools
                    .iter()
                    .flat_map(|p| &p.tools)
                    .any(|t| t.name == "files_write"),
                "the built-in files tools are listed"
            );
        });
    }
}
