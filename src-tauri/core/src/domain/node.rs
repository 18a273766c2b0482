//! What the devices service hands out (contract section 13): the Node object, pairing and LAN
//! answers, invoke requests and replies, and the protocol's fixed words (capabilities, close
//! codes, error codes).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version devices speak (devices-protocol.md).
pub const PROTOCOL: u32 = 1;

/// The built-in node of the desktop app itself.
pub const DESKTOP_NODE_ID: &str = "desktop";

/// How often devices ping (`welcome.keepalive_s`).
pub const KEEPALIVE_S: u32 = 60;

/// Every capability a device may offer.
pub const CAPABILITIES: &[&str] = &[
    "camera.photo",
    "screen.capture",
    "location.get",
    "notify.show",
    "display.text",
    "display.card",
    "audio.play",
    "audio.pcm",
    "speak",
    "mic.stream",
    "clipboard.read",
    "clipboard.write",
    "button.events",
    "battery",
];

/// Device kinds a `hello` may name (`desktop` is reserved for the desktop app).
pub const KINDS: &[&str] = &["phone", "glasses", "desktop", "watch", "custom"];

/// Close codes of the protocol (section 7).
pub mod close {
    pub const UNAUTHORIZED: u16 = 4401;
    pub const RATE_LIMITED: u16 = 4429;
    pub const DISABLED: u16 = 4403;
    pub const PROTOCOL: u16 = 4400;
    pub const REPLACED: u16 = 4409;
    /// A device silent for `nodes.idle_timeout_s`; a normal close.
    pub const IDLE: u16 = 1000;
    pub const GOING_AWAY: u16 = 1001;
}

/// A phone, a pair of glasses, a watch, another computer, or the desktop app itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Node {
    pub node_id: String,
    pub name: String,
    /// phone, glasses, desktop, watch or custom.
    pub kind: String,
    pub platform: String,
    pub app_version: String,
    pub capabilities: Vec<String>,
    pub online: bool,
    /// `lan` (the LAN listener), `local` (the loopback gateway), or null while offline.
    pub connection: Option<String>,
    pub last_seen_at: Option<DateTime<Utc>>,
    /// 0 to 100.
    pub battery: Option<u8>,
    pub charging: Option<bool>,
    pub worn: Option<bool>,
    pub created_at: DateTime<Utc>,
}

/// `POST /api/nodes/pairing`: a single-use code for 10 minutes and how a device reaches us.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Pairing {
    pub code: String,
    pub expires_at: DateTime<Utc>,
    pub lan_enabled: bool,
    /// The LAN `wss://` node URLs when the listener runs, else the gateway's `ws://` URL.
    pub urls: Vec<String>,
    /// Opens the web device app with the code in the fragment.
    pub web_url: String,
    /// SHA-256 of the LAN certificate; null when the LAN listener is not running.
    pub fingerprint: Option<String>,
    /// `sentient://pair?url=...&code=...&fp=...` for apps and firmware that scan.
    pub qr: String,
    /// An inline SVG QR code of `web_url`.
    pub qr_svg: String,
}

/// `GET /api/nodes/lan`: the LAN listener's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LanStatus {
    /// `nodes.lan_enabled`.
    pub enabled: bool,
    pub running: bool,
    pub port: u16,
    pub urls: Vec<String>,
    pub web_urls: Vec<String>,
    pub fingerprint: Option<String>,
    /// Announced over mDNS right now.
    pub mdns: bool,
    /// Why the listener or the announcement is not running, in a sentence.
    pub error: Option<String>,
}

/// `PATCH /api/nodes/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RenameNode {
    pub name: String,
}

/// `POST /api/nodes/{id}/invoke`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct InvokeRequest {
    pub capability: String,
    #[serde(default)]
    #[schema(value_type = Object)]
    #[specta(type = std::collections::BTreeMap<String, String>)]
    pub params: serde_json::Map<String, Value>,
    /// How long to wait for the device; `nodes.invoke_timeout_s` when left out.
    #[serde(default)]
    pub timeout_ms: Option<u32>,
}

/// What a device answered, or why it could not: `code` is offline, unsupported, timeout,
/// not_allowed, bad_upload or the device's own code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct InvokeReply {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
    pub data: Option<Value>,
    /// A plain sentence, or the device's `{code, message}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<String>)]
    pub error: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl InvokeReply {
    pub fn ok(data: Value) -> Self {
        Self {
            ok: true,
            data: Some(data),
            error: None,
            code: None,
        }
    }

    pub fn failed(code: &str, message: impl Into<String>) -> Self {
        Self {
            ok: false,
            data: None,
            error: Some(Value::String(message.into())),
            code: Some(code.to_owned()),
        }
    }

    /// The error's words, whether the device sent a string or `{code, message}`.
    pub fn error_message(&self) -> String {
        match &self.error {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Object(o)) => o
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("The device could not do it.")
                .to_owned(),
            _ => "The device could not do it.".to_owned(),
        }
    }
}

/// `POST /api/nodes/upload`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct UploadReply {
    pub upload_id: String,
    pub mime: String,
    pub size: u64,
}

/// A device's `hello`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Hello {
    #[serde(default)]
    pub protocol: Option<u32>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub platform: String,
    #[serde(default)]
    pub app_version: String,
    #[serde(default)]
    pub capabilities: Vec<String>,
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub pair_code: Option<String>,
    #[serde(default)]
    pub state: Option<DeviceState>,
}

/// Battery, charging and worn, from `state` messages and `hello.state`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct DeviceState {
    #[serde(default)]
    pub battery: Option<f64>,
    #[serde(default)]
    pub charging: Option<bool>,
    #[serde(default)]
    pub worn: Option<bool>,
}

/// A device's `result`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResultMessage {
    pub id: String,
    #[serde(default)]
    pub ok: bool,
    #[serde(default)]
    pub data: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
}

/// A device's `event`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EventMessage {
    pub event: String,
    #[serde(default)]
    pub data: Value,
}

/// Whether a node's `capability` counts for the device tools: the desktop app itself only
/// for screen captures (its notifications and the rest are the window's own).
pub fn counts_for(node_id: &str, capability: &str) -> bool {
    node_id != DESKTOP_NODE_ID || capability == "screen.capture"
}

/// An event name devices may send: `[a-z0-9_.-]{1,40}`.
pub fn valid_event_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-')
        })
}

/// Only capabilities the protocol knows, each once, in the order given.
pub fn known_capabilities(given: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cap in given {
        if CAPABILITIES.contains(&cap.as_str()) && !out.contains(cap) {
            out.push(cap.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_follow_the_protocol() {
        assert!(valid_event_name("button"));
        assert!(valid_event_name("notification_action"));
        assert!(valid_event_name("a.b-c_9"));
        assert!(!valid_event_name(""));
        assert!(!valid_event_name("Button"));
        assert!(!valid_event_name(&"x".repeat(41)));
        assert!(!valid_event_name("with space"));
    }

    #[test]
    fn unknown_and_repeated_capabilities_are_dropped() {
        let given = vec![
            "display.text".to_owned(),
            "teleport".to_owned(),
            "display.text".to_owned(),
            "camera.photo".to_owned(),
        ];
        assert_eq!(
            known_capabilities(&given),
            vec!["display.text".to_owned(), "camera.photo".to_owned()]
        );
    }

    #[test]
    fn device_errors_read_as_words_either_way() {
        let mut reply = InvokeReply::failed("timeout", "It took too long.");
        assert_eq!(reply.error_message(), "It took too long.");
        reply.error = Some(
            serde_json::json!({"code": "permission_denied", "message": "Camera permission was denied."}),
        );
        assert_eq!(reply.error_message(), "Camera permission was denied.");
    }
}
