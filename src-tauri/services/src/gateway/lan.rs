//! The LAN listener's app: only what devices on the network need — the device socket, the
//! voice socket (device tokens), the web device app, device uploads, the live view of a
//! browser page waiting for the person, and webhooks. Everything
//! else is a 404, and the gateway token opens nothing here.

use axum::Router;
use axum::extract::{Query, State, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::Services;
use crate::devices::Door;
use crate::error::ApiError;
use crate::gateway::routes::{hooks, nodes};

pub fn router(services: Services) -> Router {
    let app = Router::new()
        .route("/ws/node", get(nodes::node_socket))
        .route("/ws/voice", get(voice_socket))
        .route(
            "/node",
            get(|| async { axum::response::Redirect::permanent("/node/") }),
        )
        .route("/node/", get(nodes::web_index))
        .route("/node/app.js", get(nodes::web_script))
        .route("/node/style.css", get(nodes::web_style))
        .route(
            "/api/nodes/upload",
            post(nodes::upload).layer(nodes::upload_limit()),
        )
        .route("/api/nodes/browser/frame", get(nodes::browser_frame))
        .route("/api/nodes/browser/input", post(nodes::browser_input))
        .route("/hooks/{id}", post(hooks::call))
        .fallback(not_here)
        .layer(axum::Extension(Door::Lan))
        .with_state(services);
    super::with_layers(app, super::origin::Names::Lan)
}

async fn not_here() -> Response {
    ApiError::not_found("There is nothing here for devices on the network.").into_response()
}

#[derive(Debug, Deserialize)]
struct VoiceQuery {
    node_token: Option<String>,
}

/// `/ws/voice?node_token=`: the device is checked before the socket opens; voice itself is not
/// built yet, so a paired device hears that in words and the socket closes.
async fn voice_socket(
    State(services): State<Services>,
    Query(query): Query<VoiceQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let node = match query.node_token.as_deref() {
        Some(token) => services.devices().verify_token(token).await,
        None => None,
    };
    if node.is_none() {
        return ApiError::unauthorized(
            "Voice needs a paired device's token as ?node_token=. Pair the device first.",
        )
        .into_response();
    }
    upgrade.on_upgrade(|mut socket| async move {
        use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
        let error = serde_json::json!({
            "type": "error",
            "message": "Voice from devices isn't available in this version of Sentient yet.",
            "recoverable": false,
        });
        let _ = socket.send(Message::Text(error.to_string().into())).await;
        let _ = socket
            .send(Message::Close(Some(CloseFrame {
                code: 1000,
                reason: Utf8Bytes::from_static("voice unavailable"),
            })))
            .await;
    })
}
