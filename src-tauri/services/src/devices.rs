//! Devices (contract section 13, devices-protocol.md): phones, glasses and other computers
//! paired over the LAN, and the desktop app itself. [`Devices`] keeps the paired devices
//! (`store`), the live connections and their pending invokes, the pairing codes (`pairing`)
//! and uploads (`uploads`), and its `tools` (the `devices` app). The doors are the gateway's:
//! `gateway/node_socket.rs` speaks the protocol on `/ws/node`, and the LAN listener, its
//! certificate and its announcement are `gateway/{lan_listener,lan_runtime,tls,mdns}.rs`. The
//! device side (`sentient node`) is the `sentient-node` crate.

pub mod pairing;
pub mod store;
pub mod tools;
pub mod uploads;

/// Devices and the node protocol's wire types sit with the other domain types.
pub use sentient_core::domain::node as model;
#[cfg(test)]
mod reference_node_tests;

use sentient_core::sync::MutexExt;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::bus::{DomainEvent, EventBus};
use crate::clock::SharedClock;
use crate::error::{ApiError, FieldError};
use crate::stop::StopState;
use crate::store::{Store, StoreError};
use model::{DESKTOP_NODE_ID, InvokeReply, InvokeRequest, Node, close};
use pairing::{CodeCheck, PairingCodes};
use store::{NodeStore, TokenCheck};
use uploads::Uploads;

/// How long each device gets to take a `stop_state` before it is skipped.
pub const STOP_STATE_SEND_LIMIT: Duration = Duration::from_secs(2);
/// How many messages may wait for one device before sends to it wait.
const OUTGOING_QUEUE: usize = 64;
/// The longest name a device may have.
pub const MAX_NAME_CHARS: usize = 60;

/// Which door a device came in through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// The loopback gateway.
    Local,
    /// The LAN listener.
    Lan,
}

impl Door {
    pub fn connection(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Lan => "lan",
        }
    }
}

/// Something to send to one device.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    Text(String),
    Binary(Vec<u8>),
    /// Say `{type: error, code, message}`, then close with the refusal's close code.
    Close(Refusal),
}

/// One live device connection.
#[derive(Debug)]
pub struct Connection {
    pub id: u64,
    pub node_id: String,
    pub door: Door,
    tx: mpsc::Sender<Outgoing>,
    pending: Mutex<HashMap<String, oneshot::Sender<InvokeReply>>>,
    capabilities: Mutex<Vec<String>>,
}

impl Connection {
    pub fn capabilities(&self) -> Vec<String> {
        self.capabilities.lock_unpoisoned().clone()
    }

    pub fn set_capabilities(&self, capabilities: Vec<String>) {
        *self.capabilities.lock_unpoisoned() = capabilities;
    }

    /// Hands a device's `result` to the invoke waiting for it; a late answer is dropped.
    pub fn settle(&self, id: &str, reply: InvokeReply) -> bool {
        let waiter = self.pending.lock_unpoisoned().remove(id);
        waiter.is_some_and(|w| w.send(reply).is_ok())
    }

    /// Ends every waiting invoke: the device went away.
    fn fail_pending(&self, name: &str) {
        let waiting: Vec<_> = self.pending.lock_unpoisoned().drain().collect();
        for (_, waiter) in waiting {
            let _ = waiter.send(InvokeReply::failed(
                "offline",
                format!("{name} disconnected before it answered."),
            ));
        }
    }

    pub async fn send(&self, message: Outgoing) -> bool {
        self.tx.send(message).await.is_ok()
    }
}

/// Why a device could not connect: the protocol's code, its words and the close code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub close: u16,
}

impl Refusal {
    fn new(code: &'static str, message: &str, close: u16) -> Self {
        Self {
            code,
            message: message.to_owned(),
            close,
        }
    }
    pub fn pairing_required() -> Self {
        Self::new(
            "pairing_required",
            "This device isn't paired yet. In Sentient open Devices, choose Pair a device, and enter the code it shows.",
            close::UNAUTHORIZED,
        )
    }
    pub fn bad_code() -> Self {
        Self::new(
            "bad_code",
            "That code is wrong or has expired. Get a new one in Sentient under Devices > Pair a device.",
            close::UNAUTHORIZED,
        )
    }
    pub fn bad_token() -> Self {
        Self::new(
            "bad_token",
            "This device is no longer paired. Pair it again with a new code.",
            close::UNAUTHORIZED,
        )
    }
    pub fn revoked() -> Self {
        Self::new(
            "revoked",
            "This device was removed in Sentient. Pair it again with a new code.",
            close::UNAUTHORIZED,
        )
    }
    pub fn rate_limited() -> Self {
        Self::new(
            "rate_limited",
            "Too many wrong codes from this device. Wait a minute, then try again.",
            close::RATE_LIMITED,
        )
    }
    pub fn disabled() -> Self {
        Self::new(
            "disabled",
            "Devices are turned off in Sentient. Turn on Devices in Settings, then connect again.",
            close::DISABLED,
        )
    }
    pub fn protocol(message: &str) -> Self {
        Self::new("protocol", message, close::PROTOCOL)
    }
    pub fn lan_off() -> Self {
        Self::new(
            "disabled",
            "Sentient stopped accepting devices on your network. Turn it back on in Sentient's settings to connect.",
            close::DISABLED,
        )
    }
    pub fn replaced() -> Self {
        Self::new(
            "replaced",
            "This device connected to Sentient again from somewhere else, so this connection was closed.",
            close::REPLACED,
        )
    }
}

/// Who is connecting, as the door saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    pub address: IpAddr,
    pub door: Door,
    /// Came in on the gateway with the gateway token: the desktop app itself.
    pub desktop: bool,
}

/// A device let in: who it is and, on first pairing, its new token.
#[derive(Debug, Clone, PartialEq)]
pub struct Admitted {
    pub node: Node,
    pub token: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("There is no device with the id {0}.")]
    NotFound(String),
    #[error("The desktop app is always connected to itself and can't be removed.")]
    Desktop,
    #[error("{0}")]
    InvalidName(String),
    #[error("{0}")]
    InvalidRequest(String),
    #[error("The pairing QR code could not be made: {0}")]
    Qr(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DeviceError> for ApiError {
    fn from(err: DeviceError) -> Self {
        match err {
            DeviceError::NotFound(_) => ApiError::not_found(err.to_string()),
            DeviceError::Desktop => ApiError::bad_request(err.to_string()),
            DeviceError::InvalidName(msg) => {
                ApiError::validation(vec![FieldError::new(&["body", "name"], msg, "value_error")])
            }
            DeviceError::InvalidRequest(msg) => ApiError::validation(vec![FieldError::new(
                &["body", "capability"],
                msg,
                "value_error",
            )]),
            DeviceError::Qr(_) => ApiError::internal(&err),
            DeviceError::Store(e) => ApiError::internal(&e),
        }
    }
}

/// The devices service; one per engine.
#[derive(Debug)]
pub struct Devices {
    nodes: NodeStore,
    clock: SharedClock,
    bus: EventBus,
    connections: Arc<Mutex<HashMap<String, Arc<Connection>>>>,
    config: crate::config::ConfigService,
    next_connection: AtomicU64,
    codes: Mutex<PairingCodes>,
    uploads: Uploads,
    /// Idle checks done by every socket so far, so a test can wait for one instead of sleeping.
    idle_checks: AtomicU64,
}

impl Devices {
    pub fn new(
        store: Store,
        clock: SharedClock,
        bus: EventBus,
        config: crate::config::ConfigService,
        home: &crate::home::Home,
    ) -> Self {
        Self {
            nodes: NodeStore::new(store),
            clock,
            bus,
            connections: Arc::default(),
            config,
            next_connection: AtomicU64::new(1),
            codes: Mutex::new(PairingCodes::default()),
            uploads: Uploads::new(home.tmp().join("node-uploads")),
            idle_checks: AtomicU64::new(0),
        }
    }

    /// How many idle checks the device sockets have done (each looks at the engine's clock).
    pub fn idle_checks(&self) -> u64 {
        self.idle_checks.load(Ordering::Relaxed)
    }

    pub(crate) fn idle_checked(&self) {
        self.idle_checks.fetch_add(1, Ordering::Relaxed);
    }

    fn live(&self, node_id: &str) -> Option<Arc<Connection>> {
        self.connections.lock_unpoisoned().get(node_id).cloned()
    }

    /// A stored node with its live state.
    fn with_live(&self, mut node: Node) -> Node {
        if let Some(conn) = self.live(&node.node_id) {
            node.online = true;
            node.connection = Some(conn.door.connection().to_owned());
            node.capabilities = conn.capabilities();
        } else {
            node.online = false;
            node.connection = None;
        }
        node
    }

    /// Every device, online first, then by name.
    pub async fn list(&self) -> Result<Vec<Node>, DeviceError> {
        let mut nodes: Vec<Node> = self
            .nodes
            .list()
            .await?
            .into_iter()
            .map(|n| self.with_live(n))
            .collect();
        nodes.sort_by(|a, b| {
            b.online
                .cmp(&a.online)
                .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
        });
        Ok(nodes)
    }

    pub async fn get(&self, node_id: &str) -> Result<Node, DeviceError> {
        self.nodes
            .get(node_id)
            .await?
            .map(|n| self.with_live(n))
            .ok_or_else(|| DeviceError::NotFound(node_id.to_owned()))
    }

    /// What the device tools need to know without an engine at hand.
    pub fn presence(&self) -> Presence {
        Presence {
            connections: self.connections.clone(),
            config: self.config.clone(),
        }
    }

    pub async fn rename(&self, node_id: &str, name: &str) -> Result<Node, DeviceError> {
        let name = checked_name(name)?;
        let mut node = self.get(node_id).await?;
        self.nodes.rename(node_id, &name).await?;
        node.name = name;
        self.publish(&node);
        Ok(node)
    }

    /// Removes a device: its token stops working and its connection is closed.
    pub async fn remove(&self, node_id: &str) -> Result<(), DeviceError> {
        if node_id == DESKTOP_NODE_ID {
            return Err(DeviceError::Desktop);
        }
        if !self.nodes.revoke(node_id, self.clock.now()).await? {
            return Err(DeviceError::NotFound(node_id.to_owned()));
        }
        let conn = self.connections.lock_unpoisoned().remove(node_id);
        if let Some(conn) = conn {
            conn.fail_pending("The device");
            let _ = conn.tx.try_send(Outgoing::Close(Refusal::revoked()));
        }
        self.bus.publish(DomainEvent::NodeDeleted {
            node_id: node_id.to_owned(),
        });
        Ok(())
    }

    /// The device behind a token, if it is paired (`app.nodes.verify_token`).
    pub async fn verify_token(&self, token: &str) -> Option<Node> {
        match self.nodes.check_token(token).await {
            Ok(TokenCheck::Paired(node)) => Some(self.with_live(node)),
            _ => None,
        }
    }

    /// Decides whether a `hello` may connect: the desktop app, a paired token, or a code.
    pub async fn admit(
        &self,
        hello: &model::Hello,
        peer: Peer,
        now: DateTime<Utc>,
    ) -> Result<Admitted, Refusal> {
        if peer.desktop {
            return self.admit_desktop(hello, now).await;
        }
        let mut refusal = None;
        if let Some(token) = hello.token.as_deref().filter(|t| !t.is_empty()) {
            match self.nodes.check_token(token).await {
                Ok(TokenCheck::Paired(node)) => {
                    return Ok(Admitted { node, token: None });
                }
                Ok(TokenCheck::Revoked) => refusal = Some(Refusal::revoked()),
                Ok(TokenCheck::Unknown) => refusal = Some(Refusal::bad_token()),
                Err(error) => {
                    tracing::error!(%error, "a device token could not be checked");
                    refusal = Some(Refusal::bad_token());
                }
            }
        }
        let Some(code) = hello.pair_code.as_deref().filter(|c| !c.is_empty()) else {
            return Err(refusal.unwrap_or_else(Refusal::pairing_required));
        };
        let check = self.codes.lock_unpoisoned().redeem(code, peer.address, now);
        match check {
            CodeCheck::RateLimited => Err(Refusal::rate_limited()),
            CodeCheck::Wrong => Err(Refusal::bad_code()),
            CodeCheck::Accepted => {
                let token = hex::encode(rand::random::<[u8; 32]>());
                let kind =
                    if hello.kind == "desktop" || !model::KINDS.contains(&hello.kind.as_str()) {
                        "custom".to_owned()
                    } else {
                        hello.kind.clone()
                    };
                let name = checked_name(&hello.name).unwrap_or_else(|_| "New device".to_owned());
                let node = new_node(
                    hex::encode(rand::random::<[u8; 8]>()),
                    name,
                    kind,
                    hello,
                    now,
                );
                self.nodes
                    .insert(&node, Some(&token))
                    .await
                    .map_err(|error| {
                        tracing::error!(%error, "a new device could not be saved");
                        Refusal::bad_code()
                    })?;
                tracing::info!(node_id = %node.node_id, name = %node.name, "a device paired");
                Ok(Admitted {
                    node,
                    token: Some(token),
                })
            }
        }
    }

    async fn admit_desktop(
        &self,
        hello: &model::Hello,
        now: DateTime<Utc>,
    ) -> Result<Admitted, Refusal> {
        let existing = self.nodes.get(DESKTOP_NODE_ID).await.ok().flatten();
        let node = existing.unwrap_or_else(|| {
            new_node(
                DESKTOP_NODE_ID.to_owned(),
                "This computer".to_owned(),
                "desktop".to_owned(),
                hello,
                now,
            )
        });
        self.nodes.insert(&node, None).await.map_err(|error| {
            tracing::error!(%error, "the desktop node could not be saved");
            Refusal::protocol("Sentient could not save this device. Try again.")
        })?;
        Ok(Admitted { node, token: None })
    }

    /// Makes `node` the live connection for its id; an older connection of the same device
    /// is told it was replaced and closed.
    pub fn attach(
        &self,
        node_id: &str,
        door: Door,
        capabilities: Vec<String>,
    ) -> (Arc<Connection>, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(OUTGOING_QUEUE);
        let conn = Arc::new(Connection {
            id: self.next_connection.fetch_add(1, Ordering::Relaxed),
            node_id: node_id.to_owned(),
            door,
            tx,
            pending: Mutex::new(HashMap::new()),
            capabilities: Mutex::new(capabilities),
        });
        let old = self
            .connections
            .lock_unpoisoned()
            .insert(node_id.to_owned(), conn.clone());
        if let Some(old) = old {
            old.fail_pending("The device");
            let _ = old.tx.try_send(Outgoing::Close(Refusal::replaced()));
        }
        (conn, rx)
    }

    /// The connection ended; the device is offline unless a newer connection replaced it.
    pub async fn detach(&self, conn: &Connection, name: &str) {
        conn.fail_pending(name);
        let removed = {
            let mut live = self.connections.lock_unpoisoned();
            if live.get(&conn.node_id).is_some_and(|c| c.id == conn.id) {
                live.remove(&conn.node_id);
                true
            } else {
                false
            }
        };
        if removed && let Ok(mut node) = self.get(&conn.node_id).await {
            node.last_seen_at = Some(self.clock.now());
            if let Err(error) = self.nodes.update(&node).await {
                tracing::warn!(%error, "a device's last-seen time could not be saved");
            }
            self.publish(&self.with_live(node));
        }
    }

    /// Saves what a connected device said about itself and tells the window.
    pub async fn save_and_publish(&self, node: &Node) {
        if let Err(error) = self.nodes.update(node).await {
            tracing::warn!(%error, node_id = %node.node_id, "a device's state could not be saved");
        }
        // Read back, so a rename made meanwhile is what the window sees.
        match self.get(&node.node_id).await {
            Ok(saved) => self.publish(&saved),
            Err(error) => tracing::warn!(%error, "a device could not be read back"),
        }
    }

    fn publish(&self, node: &Node) {
        self.bus
            .publish(DomainEvent::NodeUpdated(Box::new(node.clone())));
    }

    pub fn publish_event(&self, node_id: &str, event: &str, data: Value) {
        self.bus.publish(DomainEvent::NodeEvent {
            node_id: node_id.to_owned(),
            event: event.to_owned(),
            data,
        });
    }

    /// Asks a device to do something and waits for its answer (`app.nodes.invoke`).
    /// `payload` goes as one binary frame after the invoke (`audio.pcm`).
    pub async fn invoke(
        &self,
        node_id: &str,
        capability: &str,
        mut params: serde_json::Map<String, Value>,
        timeout: Option<Duration>,
        payload: Option<Vec<u8>>,
    ) -> Result<InvokeReply, DeviceError> {
        let settings = self.config.current().nodes.clone();
        let timeout =
            timeout.unwrap_or_else(|| Duration::from_secs(u64::from(settings.invoke_timeout_s)));
        if capability.trim().is_empty() {
            return Err(DeviceError::InvalidRequest(
                "Say which capability to use, e.g. notify.show.".to_owned(),
            ));
        }
        let node = self.get(node_id).await?;
        let Some(conn) = self.live(node_id) else {
            return Ok(InvokeReply::failed(
                "offline",
                format!(
                    "{} is offline. Open Sentient on it and try again.",
                    node.name
                ),
            ));
        };
        if node_id == DESKTOP_NODE_ID
            && capability == "screen.capture"
            && !settings.allow_desktop_screen
        {
            return Ok(InvokeReply::failed(
                "not_allowed",
                "Capturing this computer's screen is turned off in Settings > Devices.",
            ));
        }
        if !conn.capabilities().iter().any(|c| c == capability) {
            return Ok(InvokeReply::failed(
                "unsupported",
                format!("{} can't do {capability}.", node.name),
            ));
        }
        let id = hex::encode(rand::random::<[u8; 6]>());
        let (tx, rx) = oneshot::channel();
        conn.pending.lock_unpoisoned().insert(id.clone(), tx);
        if let Some(bytes) = &payload {
            params.insert("binary".to_owned(), Value::Bool(true));
            params.insert("bytes".to_owned(), json!(bytes.len()));
        }
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let message = json!({
            "type": "invoke",
            "id": id,
            "capability": capability,
            "params": params,
            "timeout_ms": timeout_ms,
        });
        let sent = async {
            conn.send(Outgoing::Text(message.to_string())).await
                && match payload {
                    Some(bytes) => conn.send(Outgoing::Binary(bytes)).await,
                    None => true,
                }
        };
        let outcome = tokio::time::timeout(timeout, async {
            if !sent.await {
                return InvokeReply::failed(
                    "offline",
                    format!("{} disconnected before it answered.", node.name),
                );
            }
            rx.await.unwrap_or_else(|_| {
                InvokeReply::failed(
                    "offline",
                    format!("{} disconnected before it answered.", node.name),
                )
            })
        })
        .await;
        conn.pending.lock_unpoisoned().remove(&id);
        Ok(outcome.unwrap_or_else(|_| {
            InvokeReply::failed(
                "timeout",
                format!(
                    "{} didn't answer within {} seconds.",
                    node.name,
                    timeout.as_secs().max(1)
                ),
            )
        }))
    }

    /// Turns a device's `result` data into what callers read: a binary frame or an upload
    /// becomes `base64`.
    pub async fn resolve_upload(
        &self,
        node_id: &str,
        mut data: Value,
    ) -> Result<Value, InvokeReply> {
        let Some(upload_id) = data
            .get("upload_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Ok(data);
        };
        let Some(upload) = self
            .uploads
            .take(&upload_id, node_id, self.clock.now())
            .await
        else {
            return Err(InvokeReply::failed(
                "bad_upload",
                "The device's upload was not found; it may have expired or been used already.",
            ));
        };
        if let Some(object) = data.as_object_mut() {
            object.remove("upload_id");
            object.insert(
                "base64".to_owned(),
                Value::String(base64::engine::general_purpose::STANDARD.encode(&upload.bytes)),
            );
            object
                .entry("mime".to_owned())
                .or_insert(Value::String(upload.mime));
        }
        Ok(data)
    }

    /// Keeps an upload from a device (`POST /api/nodes/upload`).
    pub async fn upload(&self, node_id: &str, mime: &str, bytes: &[u8]) -> std::io::Result<String> {
        self.uploads
            .put(node_id, mime, bytes, self.clock.now())
            .await
    }

    /// A new pairing code.
    pub fn issue_code(&self) -> (String, DateTime<Utc>) {
        self.codes.lock_unpoisoned().issue(self.clock.now())
    }

    /// Closes every connection that came through `door` (the LAN listener was turned off;
    /// its server does not track upgraded sockets).
    pub fn close_door(&self, door: Door) {
        let closing: Vec<Arc<Connection>> = self
            .connections
            .lock_unpoisoned()
            .values()
            .filter(|c| c.door == door)
            .cloned()
            .collect();
        for conn in closing {
            let _ = conn.tx.try_send(Outgoing::Close(Refusal::lan_off()));
        }
    }

    /// Tells every connected device that can show a notification that a browser page waits
    /// for the person, with an Open action for its live view (`action.kind: browser_live_view`,
    /// beyond the protocol; other devices ignore it).
    pub async fn tell_about_handoff(&self, needs_you: &sentient_core::domain::browser::NeedsYou) {
        let targets: Vec<String> = self
            .connections
            .lock_unpoisoned()
            .values()
            .filter(|c| c.capabilities().iter().any(|k| k == "notify.show"))
            .map(|c| c.node_id.clone())
            .collect();
        let params = handoff_notice(needs_you);
        let sends = targets.iter().map(|node_id| {
            self.invoke(
                node_id,
                "notify.show",
                params.clone(),
                Some(Duration::from_secs(10)),
                None,
            )
        });
        for reply in futures::future::join_all(sends).await {
            if let Err(error) = reply {
                tracing::warn!(%error, "a device did not hear that the browser needs the person");
            }
        }
    }

    /// Sends `stop_state` to every connected device, side by side; each gets at most
    /// [`STOP_STATE_SEND_LIMIT`], so a device that does not read never holds up the others.
    pub async fn broadcast_stop_state(&self, state: &StopState) -> usize {
        let message = stop_state_message(state);
        let targets: Vec<Arc<Connection>> = self
            .connections
            .lock_unpoisoned()
            .values()
            .cloned()
            .collect();
        send_to_all(&targets, &message).await
    }
}

/// The `notify.show` params for a page waiting for the person.
fn handoff_notice(
    needs_you: &sentient_core::domain::browser::NeedsYou,
) -> serde_json::Map<String, Value> {
    let mut reason = needs_you.reason.clone();
    if let Some(first) = reason.get(..1) {
        reason = first.to_uppercase() + &reason[1..];
    }
    let site = reqwest::Url::parse(&needs_you.url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let on = if site.is_empty() {
        String::new()
    } else {
        format!(" on {site}")
    };
    let params = serde_json::json!({
        "title": "Sentient needs you in the browser",
        "text": format!("{reason}{on}. Tap Open to do it from here; Sentient carries on once the page moves on."),
        "tag": "browser-needs-you",
        "action": {"kind": "browser_live_view", "label": "Open"},
    });
    params.as_object().cloned().unwrap_or_default()
}

/// Sends `message` to every connection side by side, giving each at most
/// [`STOP_STATE_SEND_LIMIT`]; returns how many took it.
async fn send_to_all(targets: &[Arc<Connection>], message: &str) -> usize {
    let sends = targets.iter().map(|conn| async move {
        let sent = tokio::time::timeout(
            STOP_STATE_SEND_LIMIT,
            conn.send(Outgoing::Text(message.to_owned())),
        )
        .await;
        let taken = matches!(sent, Ok(true));
        if !taken {
            tracing::warn!(node_id = %conn.node_id, "a device did not take the stop state in time");
        }
        taken
    });
    futures::future::join_all(sends)
        .await
        .into_iter()
        .filter(|taken| *taken)
        .count()
}

/// Which capabilities are online and the device settings, for the device tools (which are
/// offered only while a device can use them, and whose risk follows a setting).
#[derive(Clone)]
pub struct Presence {
    connections: Arc<Mutex<HashMap<String, Arc<Connection>>>>,
    config: crate::config::ConfigService,
}

impl std::fmt::Debug for Presence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Presence").finish_non_exhaustive()
    }
}

impl Presence {
    /// Whether an online device offers `capability` (the desktop counts only for screens).
    pub fn capability_online(&self, capability: &str) -> bool {
        self.connections.lock_unpoisoned().values().any(|c| {
            model::counts_for(&c.node_id, capability)
                && c.capabilities().iter().any(|k| k == capability)
        })
    }

    pub fn settings(&self) -> crate::config::NodesConfig {
        self.config.current().nodes.clone()
    }
}

/// `{type: stop_state, stopped, stopped_at, source}`.
pub fn stop_state_message(state: &StopState) -> String {
    json!({
        "type": "stop_state",
        "stopped": state.stopped,
        "stopped_at": state.stopped_at,
        "source": state.source,
    })
    .to_string()
}

/// A device seen for the first time, as its `hello` describes it.
fn new_node(
    node_id: String,
    name: String,
    kind: String,
    hello: &model::Hello,
    now: DateTime<Utc>,
) -> Node {
    Node {
        node_id,
        name,
        kind,
        platform: hello.platform.clone(),
        app_version: hello.app_version.clone(),
        capabilities: model::known_capabilities(&hello.capabilities),
        online: false,
        connection: None,
        last_seen_at: Some(now),
        battery: None,
        charging: None,
        worn: None,
        created_at: now,
    }
}

fn checked_name(name: &str) -> Result<String, DeviceError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(DeviceError::InvalidName(
            "Give the device a name.".to_owned(),
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(DeviceError::InvalidName(format!(
            "Use a name of at most {MAX_NAME_CHARS} characters."
        )));
    }
    Ok(name.to_owned())
}

impl Devices {
    /// `POST /api/nodes/{id}/invoke`: the timeout defaults to `nodes.invoke_timeout_s`.
    pub async fn invoke_request(
        &self,
        id: &str,
        request: InvokeRequest,
    ) -> Result<InvokeReply, DeviceError> {
        let timeout = request
            .timeout_ms
            .map(|ms| Duration::from_millis(u64::from(ms.clamp(500, 120_000))));
        self.invoke(id, request.capability.trim(), request.params, timeout, None)
            .await
    }

    /// A pairing code with every way a device can use it: the LAN listener's addresses while
    /// it runs (`lan`), else the gateway's own (`gateway`, loopback only).
    pub fn create_pairing(
        &self,
        lan: &model::LanStatus,
        gateway: std::net::SocketAddr,
    ) -> Result<model::Pairing, DeviceError> {
        let (code, expires_at) = self.issue_code();
        let (urls, web_url, fingerprint) = if lan.running {
            let web = lan.web_urls.first().cloned().unwrap_or_default();
            (
                lan.urls.clone(),
                format!("{web}#code={code}"),
                lan.fingerprint.clone(),
            )
        } else {
            (
                vec![format!("ws://{gateway}/ws/node")],
                format!("http://{gateway}/node/#code={code}"),
                None,
            )
        };
        let qr = pairing::pair_link(
            urls.first().map_or("", String::as_str),
            &code,
            fingerprint.as_deref(),
        );
        let qr_svg = pairing::qr_svg(&web_url).map_err(|e| DeviceError::Qr(e.to_string()))?;
        Ok(model::Pairing {
            code,
            expires_at,
            lan_enabled: lan.enabled,
            urls,
            web_url,
            fingerprint,
            qr,
            qr_svg,
        })
    }

    /// Follows the bus: devices hear `stop_state` after Stop everything has cancelled the work,
    /// and a `notify.show` with an Open action when a browser page waits for the person.
    pub fn follow_events(self: &Arc<Self>, shutdown: tokio_util::sync::CancellationToken) {
        let mut events = self.bus.subscribe();
        let devices = self.clone();
        tokio::spawn(async move {
            let mut told: Option<String> = None;
            loop {
                let event = tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.recv() => event,
                };
                match event {
                    Ok(envelope) => {
                        match envelope.event {
                            DomainEvent::StopUpdated(state) => {
                                let devices = devices.clone();
                                // Its own task, so a slow fan-out never makes this listener lag.
                                tokio::spawn(async move {
                                    devices.broadcast_stop_state(&state).await;
                                });
                            }
                            DomainEvent::BrowserUpdated(status) => {
                                let waiting = status.needs_you;
                                if let Some(needs_you) = &waiting
                                    && told.as_deref() != Some(needs_you.id.as_str())
                                {
                                    let (devices, needs_you) = (devices.clone(), needs_you.clone());
                                    tokio::spawn(async move {
                                        devices.tell_about_handoff(&needs_you).await;
                                    });
                                }
                                told = waiting.map(|n| n.id);
                            }
                            _ => {}
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "the devices service fell behind the bus");
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection(id: u64, capacity: usize) -> (Arc<Connection>, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(capacity);
        let conn = Arc::new(Connection {
            id,
            node_id: format!("node-{id}"),
            door: Door::Lan,
            tx,
            pending: Mutex::new(HashMap::new()),
            capabilities: Mutex::new(Vec::new()),
        });
        (conn, rx)
    }

    #[tokio::test(start_paused = true)]
    async fn a_device_that_takes_nothing_never_holds_up_the_others() {
        let (quick, mut quick_rx) = connection(1, 4);
        let (stuck, _stuck_rx) = connection(2, 1);
        let (other, mut other_rx) = connection(3, 4);
        // The stuck device's queue is full: it stopped reading long ago.
        assert!(stuck.send(Outgoing::Text("old".to_owned())).await);
        let started = tokio::time::Instant::now();
        let taken = send_to_all(&[quick, stuck, other], "stop").await;
        assert_eq!(taken, 2);
        assert_eq!(started.elapsed(), STOP_STATE_SEND_LIMIT);
        assert_eq!(
            quick_rx.try_recv().ok(),
            Some(Outgoing::Text("stop".to_owned()))
        );
        assert_eq!(
            other_rx.try_recv().ok(),
            Some(Outgoing::Text("stop".to_owned()))
        );
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(
            checked_name("  Ana's phone ").ok(),
            Some("Ana's phone".to_owned())
        );
        assert!(checked_name("   ").is_err());
        assert!(checked_name(&"x".repeat(MAX_NAME_CHARS + 1)).is_err());
    }
}
