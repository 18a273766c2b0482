//! Chat from the window: a turn streams its events (the contract's flat chat events, section 1)
//! through a channel, the same events `/ws` sends; steering, stopping a reply, answering an
//! approval question, and the tools list.

use sentient_engine::Engine;
use sentient_engine::agent::chat::{ApprovalResponse, ChatSend, Resolved};
use sentient_engine::agent::chat_answers::ChatRegenerate;
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

/// Writes a new answer to the chat's last message in place of the last one (kept as an earlier
/// version), sending each event through `on_event`. Refused before anything streams, as over
/// HTTP: 404 for an unknown chat, 409 with nothing to regenerate or a reply running.
#[tauri::command]
#[specta::specta]
pub async fn chat_regenerate(
    engine: State<'_, Engine>,
    body: ChatRegenerate,
    on_event: Channel<ChatEvent>,
) -> Result<(), ApiError> {
    let engine = engine.inner().clone();
    let regeneration = engine
        .services()
        .agent()
        .answers()
        .regenerate(&body.session_id)
        .await?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let turn = tokio::spawn(regeneration.run(body.model, body.client_id, tx));
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
    use sentient_engine::agent::chat_answers::ShowVersion;
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

    /// Runs `chat_send` or `chat_regenerate` to its end and answers what it streamed.
    fn streamed(
        run: impl FnOnce(Channel<ChatEvent>) -> Result<(), ApiError>,
    ) -> Result<Vec<Value>, ApiError> {
        let (channel, seen) = recording_channel();
        run(channel)?;
        Ok(seen.lock().expect("lock").clone())
    }

    #[test]
    fn regenerate_answers_again_in_place_and_refuses_as_over_http() {
        use sentient_model_server::{Reply, ScriptedModel};
        let (_dir, engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        let server = tauri::async_runtime::block_on(ScriptedModel::start());
        tauri::async_runtime::block_on(crate::commands::config::patch_config(
            state.clone(),
            serde_json::json!({
                "models": {"primary": "ollama_chat/qwen3:8b", "providers": {"ollama_chat": {"api_base": server.base_url()}}},
                "chat": {"auto_title": false},
            }),
        ))
        .expect("point the main model at the scripted server");
        let regenerate = |session_id: &str, channel| {
            tauri::async_runtime::block_on(chat_regenerate(
                state.clone(),
                ChatRegenerate {
                    session_id: session_id.to_owned(),
                    model: None,
                    client_id: Some("r1".to_owned()),
                },
                channel,
            ))
        };

        let refused = streamed(|c| regenerate("nope", c)).expect_err("unknown chat");
        assert_eq!(
            (refused.status, refused.message()),
            (404, "There is no chat with the id nope.".to_owned())
        );
        let empty = tauri::async_runtime::block_on(engine.services().sessions().create("desktop"))
            .expect("chat");
        let refused = streamed(|c| regenerate(&empty.id, c)).expect_err("nothing to regenerate");
        assert_eq!(
            (refused.status, refused.message()),
            (
                409,
                "There is no answer to regenerate in this chat yet.".to_owned()
            )
        );

        server.push(Reply::text("Green."));
        let first = streamed(|c| {
            tauri::async_runtime::block_on(chat_send(
                state.clone(),
                ChatSend {
                    session_id: Some(empty.id.clone()),
                    text: "Pick a colour".to_owned(),
                    attachments: Vec::new(),
                    model: None,
                    client_id: None,
                },
                c,
            ))
        })
        .expect("send");
        assert_eq!(
            first.last().map(|e| e["content"].clone()),
            Some("Green.".into())
        );

        server.push(Reply::text("Blue."));
        let events = streamed(|c| regenerate(&empty.id, c)).expect("regenerate");
        assert_eq!(events[0]["type"], "session");
        assert_eq!(events[0]["client_id"], "r1");
        let done = events.last().expect("done");
        assert_eq!(done["content"], "Blue.");
        assert_eq!(done["version_index"], 1);
        assert_eq!(done["versions"][0]["content"], "Green.");
        // The model read the question once and no earlier answer.
        let requests = server.requests_to("/api/chat");
        let sent = &requests.last().expect("request").body["messages"];
        let roles: Vec<&str> = sent
            .as_array()
            .expect("messages")
            .iter()
            .filter_map(|m| m["role"].as_str())
            .collect();
        assert_eq!(roles, ["system", "user"]);
        let rows =
            tauri::async_runtime::block_on(engine.services().sessions().messages(&empty.id, 500))
                .expect("rows");
        let shown: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.role.as_str(), r.content.as_str()))
            .collect();
        assert_eq!(shown, [("user", "Pick a colour"), ("assistant", "Blue.")]);

        // The same chat's versions through the window's command.
        let flipped = tauri::async_runtime::block_on(super::super::sessions::show_answer_version(
            state.clone(),
            empty.id.clone(),
            rows[1].id.clone(),
            ShowVersion { index: 0 },
        ))
        .expect("flip");
        assert_eq!(flipped[1].content, "Green.");
        assert_eq!(flipped[1].version_index, 0);
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
