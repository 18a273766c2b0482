//! The desktop app as the built-in device `desktop` (contract section 13): at start the shell
//! connects to its own engine's `/ws/node?token=<gateway token>` (no pairing), advertises
//! `screen.capture` where this computer's screen can be read, answers those invokes with a PNG,
//! keeps the connection alive with pings and connects again after a drop.
//!
//! The protocol side (welcome, errors, stop_state, pong and what each error code means) is
//! the reference node's, from `sentient-node`; only invokes and reconnecting differ here.
//! `nodes.allow_desktop_screen` is enforced by the engine (it answers `not_allowed` itself).

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use futures::{SinkExt, StreamExt};
use sentient_engine::Engine;
use sentient_node::reference_node::{self, Effect, ErrorPolicy};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// The capability this node offers when the screen can be read.
pub const SCREEN_CAPTURE: &str = "screen.capture";

/// How the node reads the screen; tests pass their own.
pub trait Screen: Send + Sync + 'static {
    /// Why there is no screen to capture, or `None` when there is. Blocking.
    fn unavailable(&self) -> Option<String>;
    /// The whole screen as PNG bytes. Blocking.
    fn capture_png(&self) -> Result<Vec<u8>, String>;
}

/// This computer's screen (X11; see [`crate::screen`]).
pub struct SystemScreen;

impl Screen for SystemScreen {
    fn unavailable(&self) -> Option<String> {
        crate::screen::unavailable()
    }
    fn capture_png(&self) -> Result<Vec<u8>, String> {
        crate::screen::capture_png()
    }
}

/// Connects the app as node `desktop` until the engine shuts down.
pub fn start(engine: Engine, screen: Arc<dyn Screen>) {
    tauri::async_runtime::spawn(run(engine, screen));
}

/// What ended one connection.
#[derive(Debug, PartialEq)]
enum Ended {
    Shutdown,
    /// Try again after the usual backoff.
    Dropped,
    /// Try again after at least this long (or sooner when the device settings change).
    WaitAtLeast(Duration),
}

/// The connection loop: connect, serve, and after a drop connect again (1 s, 2 s, 4 s … 30 s).
pub async fn run(engine: Engine, screen: Arc<dyn Screen>) {
    let shutdown = engine.services().shutdown_token();
    let mut settings = engine.services().config().watch();
    let mut failures: u32 = 0;
    loop {
        // The device settings this attempt ran under: a change while connecting or connected
        // (devices turned back on) must still cut the wait that follows short.
        let nodes_at_connect = settings.borrow_and_update().nodes.clone();
        let ended = tokio::select! {
            () = shutdown.cancelled() => Ended::Shutdown,
            ended = connect_once(&engine, screen.clone(), &mut failures) => ended,
        };
        let wait = match ended {
            Ended::Shutdown => return,
            Ended::Dropped => {
                failures = failures.saturating_add(1);
                backoff(failures)
            }
            Ended::WaitAtLeast(wait) => {
                failures = failures.saturating_add(1);
                wait.max(backoff(failures))
            }
        };
        tracing::debug!(
            wait_ms = wait.as_millis() as u64,
            "the desktop node reconnects"
        );
        // Turning devices back on (or any device setting) wakes the wait early.
        let sleep = tokio::time::sleep(wait);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = &mut sleep => break,
                changed = settings.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if settings.borrow_and_update().nodes != nodes_at_connect {
                        failures = 0;
                        break;
                    }
                }
            }
        }
    }
}

/// The node socket on the engine's own gateway, authenticated with the gateway token.
fn socket_url(engine: &Engine) -> String {
    let base = engine.services().url().replacen("http://", "ws://", 1);
    let token: String = engine
        .services()
        .token()
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("{base}/ws/node?token={token}")
}

/// The `hello` of the built-in node.
fn hello(capabilities: &[&str]) -> Value {
    json!({
        "type": "hello",
        "protocol": 1,
        "name": "This computer",
        "kind": "desktop",
        "platform": std::env::consts::OS,
        "app_version": env!("CARGO_PKG_VERSION"),
        "capabilities": capabilities,
    })
}

async fn connect_once(engine: &Engine, screen: Arc<dyn Screen>, failures: &mut u32) -> Ended {
    let shutdown = engine.services().shutdown_token();
    let probe = screen.clone();
    let unavailable = tokio::task::spawn_blocking(move || probe.unavailable())
        .await
        .unwrap_or_else(|e| Some(format!("the screen check failed ({e})")));
    let capabilities: Vec<&str> = match &unavailable {
        None => vec![SCREEN_CAPTURE],
        Some(why) => {
            tracing::info!(%why, "this computer's screen can't be captured");
            vec![]
        }
    };

    let (socket, _) = match tokio_tungstenite::connect_async(socket_url(engine)).await {
        Ok(connected) => connected,
        Err(error) => {
            tracing::warn!(%error, "the desktop node could not connect");
            return Ended::Dropped;
        }
    };
    let (mut sink, mut incoming) = socket.split();
    if sink
        .send(Message::text(hello(&capabilities).to_string()))
        .await
        .is_err()
    {
        return Ended::Dropped;
    }

    // Answers computed off the socket loop (captures) come back through here.
    let (answers_tx, mut answers) = mpsc::channel::<Value>(8);
    let mut keepalive: Option<tokio::time::Interval> = None;
    loop {
        let tick = async {
            match keepalive.as_mut() {
                Some(interval) => {
                    interval.tick().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = shutdown.cancelled() => {
                let _ = sink.send(Message::Close(None)).await;
                break Ended::Shutdown;
            }
            Some(answer) = answers.recv() => {
                if sink.send(Message::text(answer.to_string())).await.is_err() {
                    break Ended::Dropped;
                }
            }
            () = tick => {
                if sink.send(Message::text(json!({"type": "ping"}).to_string())).await.is_err() {
                    break Ended::Dropped;
                }
            }
            frame = incoming.next() => {
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text.to_string(),
                    Some(Ok(Message::Close(frame))) => break closed(frame.map(|f| u16::from(f.code))),
                    Some(Ok(_)) => continue,
                    Some(Err(error)) => {
                        tracing::info!(%error, "the desktop node's connection dropped");
                        break Ended::Dropped;
                    }
                    None => break Ended::Dropped,
                };
                let message: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                if message.get("type").and_then(Value::as_str) == Some("invoke") {
                    answer_invoke(&message, unavailable.is_none(), &screen, &answers_tx);
                    continue;
                }
                let mut stop = None;
                for effect in reference_node::handle_message(&text, None) {
                    match effect {
                        Effect::Welcome { keepalive_s, .. } => {
                            *failures = 0;
                            let period = Duration::from_secs(keepalive_s);
                            keepalive = Some(tokio::time::interval_at(
                                tokio::time::Instant::now() + period,
                                period,
                            ));
                            tracing::info!(capabilities = ?capabilities, "this computer is connected as the device desktop");
                        }
                        Effect::Error { code, message } => {
                            tracing::info!(%code, %message, "the engine refused the desktop node");
                            stop = after_error(&code);
                        }
                        Effect::Print(line) => tracing::debug!("{line}"),
                        Effect::Send(reply) => {
                            let _ = answers_tx.try_send(reply);
                        }
                    }
                }
                if let Some(ended) = stop {
                    break ended;
                }
            }
        }
    }
}

/// What an `error` message means for the built-in node, following the device protocol.
fn after_error(code: &str) -> Option<Ended> {
    match reference_node::error_policy(code) {
        ErrorPolicy::Continue => None,
        ErrorPolicy::ReconnectAfter(wait) => Some(Ended::WaitAtLeast(wait)),
        // The gateway token never expires while the app runs; a refusal is a passing state.
        ErrorPolicy::ForgetToken => Some(Ended::Dropped),
        // `replaced`: something else connected as the desktop; don't fight over the slot.
        ErrorPolicy::Stop => Some(Ended::WaitAtLeast(Duration::from_secs(300))),
    }
}

/// A close without an `error` message first still follows the close code.
fn closed(code: Option<u16>) -> Ended {
    match code {
        Some(4403) => Ended::WaitAtLeast(Duration::from_secs(120)),
        Some(4409) => Ended::WaitAtLeast(Duration::from_secs(300)),
        _ => Ended::Dropped,
    }
}

/// Answers one invoke: a capture runs on a blocking thread, anything else is unsupported.
fn answer_invoke(
    message: &Value,
    can_capture: bool,
    screen: &Arc<dyn Screen>,
    answers: &mpsc::Sender<Value>,
) {
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let capability = message
        .get("capability")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let answers = answers.clone();
    if capability != SCREEN_CAPTURE || !can_capture {
        let reply = failed(
            &id,
            "unsupported",
            &format!("This computer can't do {capability}."),
        );
        tauri::async_runtime::spawn(async move {
            let _ = answers.send(reply).await;
        });
        return;
    }
    let screen = screen.clone();
    tauri::async_runtime::spawn(async move {
        let captured = tokio::task::spawn_blocking(move || screen.capture_png())
            .await
            .unwrap_or_else(|e| Err(format!("The screen capture stopped unexpectedly ({e}).")));
        let reply = match captured {
            Ok(png) => json!({
                "type": "result",
                "id": id,
                "ok": true,
                "data": {
                    "mime": "image/png",
                    "base64": base64::engine::general_purpose::STANDARD.encode(png),
                },
            }),
            Err(message) => failed(&id, "capture_failed", &message),
        };
        let _ = answers.send(reply).await;
    });
}

fn failed(id: &Value, code: &str, message: &str) -> Value {
    json!({
        "type": "result",
        "id": id,
        "ok": false,
        "error": {"code": code, "message": message},
    })
}

/// 1 s, 2 s, 4 s … capped at 30 s, plus 0-50 % jitter (device protocol §8).
fn backoff(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let base = 2u64
        .saturating_pow(failures.saturating_sub(1).min(5))
        .min(30);
    let jitter = rand_fraction() * 0.5;
    Duration::from_secs_f64(base as f64 * (1.0 + jitter))
}

/// A fraction in [0, 1) from the clock: jitter only has to differ between computers.
fn rand_fraction() -> f64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    f64::from(nanos % 1000) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A screen that hands out a fixed PNG and counts captures.
    struct FakeScreen {
        png: Vec<u8>,
        captures: AtomicUsize,
        available: bool,
    }

    impl Screen for FakeScreen {
        fn unavailable(&self) -> Option<String> {
            (!self.available).then(|| "no screen in this test".to_owned())
        }
        fn capture_png(&self) -> Result<Vec<u8>, String> {
            self.captures.fetch_add(1, Ordering::SeqCst);
            Ok(self.png.clone())
        }
    }

    fn fake(available: bool) -> Arc<FakeScreen> {
        Arc::new(FakeScreen {
            png: b"\x89PNG\r\n\x1a\nfake".to_vec(),
            captures: AtomicUsize::new(0),
            available,
        })
    }

    async fn until_online(engine: &Engine, capabilities: &[&str]) {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let Ok(node) = engine.services().devices().get("desktop").await
                    && node.online
                    && node.capabilities == capabilities
                {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the desktop node came online in time");
    }

    async fn capture(engine: &Engine) -> Value {
        let reply = engine
            .services()
            .devices()
            .invoke(
                "desktop",
                SCREEN_CAPTURE,
                serde_json::Map::new(),
                Some(Duration::from_secs(10)),
                None,
            )
            .await
            .expect("invoke");
        serde_json::to_value(reply).expect("reply")
    }

    #[test]
    fn the_app_is_the_desktop_node_and_captures_its_screen() {
        let (_dir, engine, _app) = engine_and_app();
        let screen = fake(true);
        tauri::async_runtime::block_on(async {
            start(engine.clone(), screen.clone());
            until_online(&engine, &[SCREEN_CAPTURE]).await;
            let node = engine
                .services()
                .devices()
                .get("desktop")
                .await
                .expect("node");
            assert_eq!(node.kind, "desktop");
            assert_eq!(node.name, "This computer");

            let reply = capture(&engine).await;
            assert_eq!(reply["ok"], true, "{reply}");
            assert_eq!(reply["data"]["mime"], "image/png");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(reply["data"]["base64"].as_str().expect("base64"))
                .expect("valid base64");
            assert_eq!(bytes, screen.png);
            assert_eq!(screen.captures.load(Ordering::SeqCst), 1);

            // Something the desktop doesn't offer is refused by the engine without asking it.
            let other = engine
                .services()
                .devices()
                .invoke(
                    "desktop",
                    "camera.photo",
                    serde_json::Map::new(),
                    Some(Duration::from_secs(5)),
                    None,
                )
                .await
                .expect("invoke");
            assert_eq!(
                serde_json::to_value(other).expect("json")["code"],
                "unsupported"
            );

            // Turned off in Settings: the engine answers not_allowed and the screen is not read.
            let mut patch = serde_json::Map::new();
            patch.insert("nodes".into(), json!({"allow_desktop_screen": false}));
            engine
                .services()
                .config()
                .patch(Value::Object(patch))
                .await
                .expect("patch");
            let reply = capture(&engine).await;
            assert_eq!(reply["ok"], false);
            assert_eq!(reply["code"], "not_allowed");
            assert_eq!(screen.captures.load(Ordering::SeqCst), 1);
        });
        tauri::async_runtime::block_on(engine.services().shutdown());
    }

    #[test]
    fn without_a_screen_it_connects_without_screen_capture() {
        let (_dir, engine, _app) = engine_and_app();
        let screen = fake(false);
        tauri::async_runtime::block_on(async {
            start(engine.clone(), screen.clone());
            until_online(&engine, &[]).await;
            let reply = capture(&engine).await;
            assert_eq!(reply["code"], "unsupported");
            assert_eq!(screen.captures.load(Ordering::SeqCst), 0);
        });
        tauri::async_runtime::block_on(engine.services().shutdown());
    }

    #[test]
    fn it_connects_again_after_a_drop() {
        let (_dir, engine, _app) = engine_and_app();
        tauri::async_runtime::block_on(async {
            start(engine.clone(), fake(true));
            until_online(&engine, &[SCREEN_CAPTURE]).await;
            // Devices turned off: the engine refuses (disabled) and the node waits;
            // turning them on again wakes it at once instead of after two minutes.
            let mut patch = serde_json::Map::new();
            patch.insert("nodes".into(), json!({"enabled": false}));
            engine
                .services()
                .config()
                .patch(Value::Object(patch))
                .await
                .expect("patch");
            // The live connection is kicked by a replacement attempt that is refused.
            engine
                .services()
                .devices()
                .close_door(sentient_engine::devices::Door::Local);
            tokio::time::timeout(Duration::from_secs(10), async {
                while engine
                    .services()
                    .devices()
                    .get("desktop")
                    .await
                    .is_ok_and(|n| n.online)
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
            .await
            .expect("the desktop node went offline");
            let mut patch = serde_json::Map::new();
            patch.insert("nodes".into(), json!({"enabled": true}));
            engine
                .services()
                .config()
                .patch(Value::Object(patch))
                .await
                .expect("patch");
            until_online(&engine, &[SCREEN_CAPTURE]).await;
        });
        tauri::async_runtime::block_on(engine.services().shutdown());
    }

    #[test]
    fn the_url_carries_the_gateway_token() {
        let (_dir, engine, _app) = engine_and_app();
        let url = socket_url(&engine);
        assert!(url.starts_with("ws://127.0.0.1:"), "{url}");
        assert!(
            url.ends_with(&format!("/ws/node?token={}", engine.services().token())),
            "{url}"
        );
        tauri::async_runtime::block_on(engine.services().shutdown());
    }

    #[test]
    fn errors_and_close_codes_follow_the_protocol() {
        assert_eq!(after_error("protocol"), None);
        assert_eq!(
            after_error("disabled"),
            Some(Ended::WaitAtLeast(Duration::from_secs(120)))
        );
        assert_eq!(after_error("bad_token"), Some(Ended::Dropped));
        assert_eq!(
            after_error("replaced"),
            Some(Ended::WaitAtLeast(Duration::from_secs(300)))
        );
        assert_eq!(closed(None), Ended::Dropped);
        assert_eq!(closed(Some(1006)), Ended::Dropped);
        assert_eq!(
            closed(Some(4403)),
            Ended::WaitAtLeast(Duration::from_secs(120))
        );
        for failures in 1..8 {
            let wait = backoff(failures).as_secs_f64();
            assert!((1.0..=45.0).contains(&wait), "{failures}: {wait}");
        }
        assert_eq!(backoff(0), Duration::ZERO);
    }
}
