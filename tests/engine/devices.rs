//! Paired devices against a real engine: the node protocol over loopback TLS with the
//! certificate's fingerprint pinned (the gateway's plain socket only for the desktop node and
//! "devices turned off", which also stops the LAN listener) (pairing, every refusal and close code, token reuse after
//! a restart, revocation, a replaced connection, the idle timeout on a manual clock), invokes
//! answered with JSON, a binary frame and an upload, Stop everything from a device reaching
//! every device while one never reads, the LAN listener serving only the device paths, and the
//! device tools offered only while a device can use them.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::{SinkExt, StreamExt};
use reqwest::Method;
use sentient_e2e::sentient_engine::clock::ManualClock;
use sentient_e2e::sentient_engine::node::pinned;
use sentient_e2e::{TestEngine, WAIT, eventually, point_models_at, send};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

pub(crate) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A free TCP port on this computer for the LAN listener.
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("0.0.0.0:0")?;
    Ok(listener.local_addr()?.port())
}

/// Turns the LAN listener on (without mDNS) and returns its port and fingerprint.
pub(crate) async fn lan_on(t: &TestEngine) -> Result<(u16, String)> {
    let port = free_port()?;
    t.engine
        .services()
        .config()
        .patch(json!({"nodes": {"lan_enabled": true, "lan_port": port, "mdns_enabled": false}}))
        .await?;
    wait_lan(t, true).await
}

/// Waits until the LAN listener is running (or not) and returns its port and fingerprint.
async fn wait_lan(t: &TestEngine, running: bool) -> Result<(u16, String)> {
    let lan = eventually("the LAN listener changing state", || async {
        let (_, lan) = t.client.get("/api/nodes/lan").await?;
        Ok((lan["running"] == running).then_some(lan))
    })
    .await?;
    let port = u16::try_from(lan["port"].as_u64().unwrap_or_default())?;
    Ok((
        port,
        lan["fingerprint"].as_str().unwrap_or_default().to_owned(),
    ))
}

async fn connect(url: &str, fingerprint: Option<&str>) -> Result<Socket> {
    let connector = Connector::Rustls(pinned::client_config(fingerprint));
    let (socket, _) =
        tokio_tungstenite::connect_async_tls_with_config(url, None, false, Some(connector))
            .await
            .with_context(|| format!("connect {url}"))?;
    Ok(socket)
}

pub(crate) async fn lan_socket(port: u16, fingerprint: &str) -> Result<Socket> {
    connect(
        &format!("wss://127.0.0.1:{port}/ws/node"),
        Some(fingerprint),
    )
    .await
}

async fn gateway_socket(t: &TestEngine, query: &str) -> Result<Socket> {
    let base = t.engine.services().url().replace("http://", "ws://");
    connect(&format!("{base}/ws/node{query}"), None).await
}

pub(crate) async fn say(ws: &mut Socket, value: Value) -> Result<()> {
    ws.send(Message::Text(value.to_string().into())).await?;
    Ok(())
}

/// The next text message as JSON.
async fn next_json(ws: &mut Socket) -> Result<Value> {
    loop {
        let message = tokio::time::timeout(WAIT, ws.next())
            .await
            .context("no message in time")?
            .context("socket ended")??;
        match message {
            Message::Text(text) => return Ok(serde_json::from_str(&text)?),
            Message::Close(frame) => bail!("closed: {frame:?}"),
            _ => {}
        }
    }
}

/// Reads until the close frame and returns its code.
async fn close_code(ws: &mut Socket) -> Result<u16> {
    loop {
        let message = tokio::time::timeout(WAIT, ws.next())
            .await
            .context("no close in time")?;
        match message {
            Some(Ok(Message::Close(Some(frame)))) => return Ok(u16::from(frame.code)),
            Some(Ok(Message::Close(None))) | None => bail!("closed without a code"),
            Some(Err(e)) => bail!("socket error before the close frame: {e}"),
            Some(Ok(_)) => {}
        }
    }
}

fn hello(name: &str, capabilities: &[&str], auth: Value) -> Value {
    let mut hello = json!({
        "type": "hello", "protocol": 1, "name": name, "kind": "phone",
        "platform": "test", "app_version": "1.0", "capabilities": capabilities,
    });
    if let (Some(target), Some(auth)) = (hello.as_object_mut(), auth.as_object()) {
        target.extend(auth.clone());
    }
    hello
}

async fn pairing_code(t: &TestEngine) -> Result<String> {
    let (status, pairing) = t.client.post("/api/nodes/pairing", json!({})).await?;
    if status != 200 {
        bail!("pairing: {status} {pairing}");
    }
    Ok(pairing["code"].as_str().unwrap_or_default().to_owned())
}

/// Pairs a device on `ws`; returns (node_id, token).
pub(crate) async fn pair(
    t: &TestEngine,
    ws: &mut Socket,
    name: &str,
    caps: &[&str],
) -> Result<(String, String)> {
    let code = pairing_code(t).await?;
    say(ws, hello(name, caps, json!({"pair_code": code}))).await?;
    let welcome = next_json(ws).await?;
    if welcome["type"] != "welcome" {
        bail!("expected welcome, got {welcome}");
    }
    Ok((
        welcome["node_id"].as_str().unwrap_or_default().to_owned(),
        welcome["token"].as_str().unwrap_or_default().to_owned(),
    ))
}

/// Reads past anything else (a stop_state, an invoke) to the next message of type `kind`.
pub(crate) async fn next_of_type(ws: &mut Socket, kind: &str) -> Result<Value> {
    loop {
        let message = next_json(ws).await?;
        if message["type"] == kind {
            return Ok(message);
        }
    }
}

async fn next_stop_state(ws: &mut Socket) -> Result<Value> {
    next_of_type(ws, "stop_state").await
}

#[tokio::test]
async fn a_device_pairs_over_pinned_tls_and_its_token_works_after_a_restart() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let t = TestEngine::start_in(&home).await?;
    let (port, fingerprint) = lan_on(&t).await?;
    assert_eq!(fingerprint.len(), 64);

    let (status, pairing) = t.client.post("/api/nodes/pairing", json!({})).await?;
    assert_eq!(status, 200, "{pairing}");
    let code = pairing["code"].as_str().unwrap_or_default().to_owned();
    assert_eq!(code.len(), 6);
    assert_eq!(pairing["lan_enabled"], true);
    assert_eq!(pairing["fingerprint"], fingerprint.as_str());
    assert!(
        pairing["urls"][0]
            .as_str()
            .unwrap_or_default()
            .starts_with("wss://")
    );
    assert!(
        pairing["web_url"]
            .as_str()
            .unwrap_or_default()
            .ends_with(&format!(":{port}/node/#code={code}"))
    );
    assert!(
        pairing["qr"]
            .as_str()
            .unwrap_or_default()
            .starts_with("sentient://pair?url=wss%3A%2F%2F")
    );
    assert!(
        pairing["qr_svg"]
            .as_str()
            .unwrap_or_default()
            .contains("<svg")
    );

    // A certificate other than the one shown is refused before anything is sent.
    let wrong = "00".repeat(32);
    assert!(lan_socket(port, &wrong).await.is_err());

    let mut ws = lan_socket(port, &fingerprint).await?;
    let mut events = t.engine.services().bus().subscribe();
    say(
        &mut ws,
        hello(
            "Ana's phone",
            &["notify.show", "teleport"],
            json!({"pair_code": code, "state": {"battery": 81, "charging": false}}),
        ),
    )
    .await?;
    let welcome = next_json(&mut ws).await?;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    assert_eq!(welcome["protocol"], 1);
    assert_eq!(welcome["keepalive_s"], 60);
    assert_eq!(welcome["idle_timeout_s"], 180);
    assert_eq!(welcome["stopped"], false);
    let node_id = welcome["node_id"].as_str().unwrap_or_default().to_owned();
    let token = welcome["token"].as_str().unwrap_or_default().to_owned();
    assert!(token.len() >= 32);

    // node.updated tells the window, and the list shows it online on the LAN.
    let updated = tokio::time::timeout(WAIT, async {
        loop {
            let envelope = events.recv().await?;
            let wire = serde_json::to_value(&envelope)?;
            if wire["type"] == "node.updated" && wire["data"]["node_id"] == node_id.as_str() {
                return anyhow::Ok(wire["data"].clone());
            }
        }
    })
    .await??;
    assert_eq!(updated["online"], true);
    let (_, nodes) = t.client.get("/api/nodes").await?;
    let node = &nodes[0];
    assert_eq!(node["node_id"], node_id.as_str());
    assert_eq!(node["connection"], "lan");
    assert_eq!(node["battery"], 81);
    assert_eq!(node["charging"], false);
    assert_eq!(node["capabilities"], json!(["notify.show"]));

    // The code was single use.
    let mut again = lan_socket(port, &fingerprint).await?;
    say(&mut again, hello("Other", &[], json!({"pair_code": code}))).await?;
    assert_eq!(next_json(&mut again).await?["code"], "bad_code");
    assert_eq!(close_code(&mut again).await?, 4401);

    // Only the token's hash is kept.
    drop(ws);
    t.engine.services().shutdown().await;
    let db = std::fs::read(home.join("sentient.db"))?;
    let wal = std::fs::read(home.join("sentient.db-wal")).unwrap_or_default();
    let needle = token.as_bytes();
    assert!(!db.windows(needle.len()).any(|w| w == needle));
    assert!(!wal.windows(needle.len()).any(|w| w == needle));

    // After a restart the listener comes back with the same certificate and the token works.
    let t = TestEngine::start_in(&home).await?;
    let (port_after, fingerprint_after) = wait_lan(&t, true).await?;
    assert_eq!(
        (port_after, fingerprint_after.as_str()),
        (port, fingerprint.as_str())
    );
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(
        &mut ws,
        hello("Ana's phone", &["notify.show"], json!({"token": token})),
    )
    .await?;
    let welcome = next_json(&mut ws).await?;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    assert_eq!(welcome["node_id"], node_id.as_str());
    assert!(
        welcome.get("token").is_none(),
        "a token only on first pairing"
    );
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn every_refusal_has_its_code_and_close_code() -> Result<()> {
    let t = TestEngine::start().await?;
    let (port, fingerprint) = lan_on(&t).await?;

    // The first message must be hello.
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(&mut ws, json!({"type": "ping"})).await?;
    let error = next_json(&mut ws).await?;
    assert_eq!(
        (error["type"].as_str(), error["code"].as_str()),
        (Some("error"), Some("protocol"))
    );
    assert_eq!(close_code(&mut ws).await?, 4400);

    // Neither token nor code.
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(&mut ws, hello("Phone", &[], json!({}))).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "pairing_required");
    assert_eq!(close_code(&mut ws).await?, 4401);

    // A token nobody issued.
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(
        &mut ws,
        hello("Phone", &[], json!({"token": "not-a-token"})),
    )
    .await?;
    let error = next_json(&mut ws).await?;
    assert_eq!(error["code"], "bad_token");
    assert_eq!(
        error["message"],
        "This device is no longer paired. Pair it again with a new code."
    );
    assert_eq!(close_code(&mut ws).await?, 4401);

    // A wrong code.
    pairing_code(&t).await?;
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(
        &mut ws,
        hello("Phone", &[], json!({"pair_code": "999999x"})),
    )
    .await?;
    assert_eq!(next_json(&mut ws).await?["code"], "bad_code");
    assert_eq!(close_code(&mut ws).await?, 4401);

    // Replaced: the same device connecting again closes the older connection.
    let mut first = lan_socket(port, &fingerprint).await?;
    let (node_id, token) = pair(&t, &mut first, "Glasses", &["display.text"]).await?;
    let mut second = lan_socket(port, &fingerprint).await?;
    say(
        &mut second,
        hello("Glasses", &["display.text"], json!({"token": token})),
    )
    .await?;
    assert_eq!(next_json(&mut second).await?["type"], "welcome");
    assert_eq!(next_json_until_error(&mut first).await?["code"], "replaced");
    assert_eq!(close_code(&mut first).await?, 4409);

    // Revoked: removing the device closes it, and its token is refused as revoked.
    let mut events = t.engine.services().bus().subscribe();
    let (status, _) = send(
        t.client
            .request(Method::DELETE, &format!("/api/nodes/{node_id}")),
    )
    .await?;
    assert_eq!(status, 200);
    assert_eq!(next_json_until_error(&mut second).await?["code"], "revoked");
    assert_eq!(close_code(&mut second).await?, 4401);
    let deleted = tokio::time::timeout(WAIT, async {
        loop {
            let wire = serde_json::to_value(events.recv().await?)?;
            if wire["type"] == "node.deleted" {
                return anyhow::Ok(wire["data"].clone());
            }
        }
    })
    .await??;
    assert_eq!(deleted["node_id"], node_id.as_str());
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(&mut ws, hello("Glasses", &[], json!({"token": token}))).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "revoked");
    assert_eq!(close_code(&mut ws).await?, 4401);
    let (status, _) = t.client.get(&format!("/api/nodes/{node_id}")).await?;
    assert_eq!(status, 404);

    // The desktop app connects with the gateway token and can't be removed.
    let mut desktop = gateway_socket(&t, &format!("?token={}", t.client.token())).await?;
    say(&mut desktop, json!({"type": "hello", "protocol": 1, "name": "Desktop", "kind": "desktop", "capabilities": ["screen.capture"]})).await?;
    let welcome = next_json(&mut desktop).await?;
    assert_eq!(welcome["node_id"], "desktop");
    let (status, body) = send(t.client.request(Method::DELETE, "/api/nodes/desktop")).await?;
    assert_eq!(status, 400, "{body}");
    assert!(body["detail"].is_string());

    // Rename validates its input and changes nothing on a bad name.
    let (status, body) = t
        .client
        .patch("/api/nodes/desktop", json!({"name": "  "}))
        .await?;
    assert_eq!(status, 400, "{body}");
    let (status, body) = t
        .client
        .patch("/api/nodes/desktop", json!({"name": 7}))
        .await?;
    assert_eq!(status, 400, "a body that does not parse: {body}");
    let (status, body) = t
        .client
        .patch("/api/nodes/desktop", json!({"name": "Work laptop"}))
        .await?;
    assert_eq!((status, body["name"].as_str()), (200, Some("Work laptop")));

    // Devices turned off: disabled, 4403.
    t.engine
        .services()
        .config()
        .patch(json!({"nodes": {"enabled": false}}))
        .await?;
    let mut ws = gateway_socket(&t, "").await?;
    say(&mut ws, hello("Phone", &[], json!({"token": token}))).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "disabled");
    assert_eq!(close_code(&mut ws).await?, 4403);
    t.engine.services().shutdown().await;
    Ok(())
}

async fn next_json_until_error(ws: &mut Socket) -> Result<Value> {
    next_of_type(ws, "error").await
}

#[tokio::test]
async fn five_wrong_codes_a_minute_rate_limit_that_address() -> Result<()> {
    let t = TestEngine::start().await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let code = pairing_code(&t).await?;
    for _ in 0..5 {
        let mut ws = lan_socket(port, &fingerprint).await?;
        say(
            &mut ws,
            hello("Guess", &[], json!({"pair_code": "000000x"})),
        )
        .await?;
        assert_eq!(next_json(&mut ws).await?["code"], "bad_code");
    }
    // Even the right code waits now.
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(&mut ws, hello("Phone", &[], json!({"pair_code": code}))).await?;
    let error = next_json(&mut ws).await?;
    assert_eq!(error["code"], "rate_limited", "{error}");
    assert_eq!(close_code(&mut ws).await?, 4429);
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn a_silent_device_is_closed_after_the_idle_timeout_on_the_engines_clock() -> Result<()> {
    let clock = ManualClock::new(chrono::Utc::now());
    let t = TestEngine::start_with_clock(Arc::new(clock.clone())).await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let mut ws = lan_socket(port, &fingerprint).await?;
    let (node_id, _) = pair(&t, &mut ws, "Watch", &[]).await?;

    // Pings keep it alive.
    clock.advance(chrono::Duration::seconds(120));
    say(&mut ws, json!({"type": "ping", "ts": 7})).await?;
    assert_eq!(next_json(&mut ws).await?, json!({"type": "pong", "ts": 7}));
    clock.advance(chrono::Duration::seconds(120));
    // Two idle checks after this point: the second began after the advance, so it saw the time.
    let checks = t.engine.services().devices().idle_checks();
    eventually("an idle check at the new time", || async {
        Ok((t.engine.services().devices().idle_checks() >= checks + 2).then_some(()))
    })
    .await?;
    say(&mut ws, json!({"type": "ping"})).await?;
    assert_eq!(next_json(&mut ws).await?["type"], "pong");

    // 180 s of silence closes it.
    clock.advance(chrono::Duration::seconds(181));
    assert_eq!(close_code(&mut ws).await?, 1000);
    let path = format!("/api/nodes/{node_id}");
    let node = eventually("the device going offline", || async {
        let (_, node) = t.client.get(&path).await?;
        Ok((node["online"] == false).then_some(node))
    })
    .await?;
    assert!(node["connection"].is_null());
    t.engine.services().shutdown().await;
    Ok(())
}

/// Answers invokes like a phone: display.text with JSON, camera.photo with a binary frame
/// the first time and an upload the second time, location.get with a permission error, and
/// never answers notify.show.
async fn phone(
    mut ws: Socket,
    upload_url: String,
    token: String,
    fingerprint: Option<String>,
) -> Result<()> {
    let http = match fingerprint {
        Some(fp) => reqwest::Client::builder()
            .use_preconfigured_tls((*pinned::client_config(Some(&fp))).clone())
            .build()?,
        None => reqwest::Client::new(),
    };
    let mut photos = 0;
    while let Some(message) = ws.next().await {
        let Message::Text(text) = message? else {
            continue;
        };
        let invoke: Value = serde_json::from_str(&text)?;
        if invoke["type"] != "invoke" {
            continue;
        }
        let id = invoke["id"].clone();
        match invoke["capability"].as_str() {
            Some("display.text") => {
                assert_eq!(invoke["params"]["text"], "Turn left");
                say(
                    &mut ws,
                    json!({"type": "result", "id": id, "ok": true, "data": {"shown": true}}),
                )
                .await?;
            }
            Some("camera.photo") if photos == 0 => {
                photos += 1;
                say(&mut ws, json!({"type": "result", "id": id, "ok": true, "data": {"mime": "image/jpeg", "binary": true, "width": 2, "height": 1}})).await?;
                ws.send(Message::Binary(vec![0xff, 0xd8, 0xff, 0xd9].into()))
                    .await?;
            }
            Some("camera.photo") => {
                let (status, uploaded) = send(
                    http.post(&upload_url)
                        .bearer_auth(&token)
                        .header("Content-Type", "image/jpeg")
                        .body(vec![1_u8, 2, 3]),
                )
                .await?;
                assert_eq!(status, 200, "{uploaded}");
                assert_eq!(uploaded["size"], 3);
                say(&mut ws, json!({"type": "result", "id": id, "ok": true, "data": {"mime": "image/jpeg", "upload_id": uploaded["upload_id"]}})).await?;
            }
            Some("location.get") => {
                say(&mut ws, json!({"type": "result", "id": id, "ok": false, "error": {"code": "permission_denied", "message": "Location permission was denied."}})).await?;
            }
            _ => {}
        }
    }
    Ok(())
}

#[tokio::test]
async fn invokes_come_back_as_json_a_binary_frame_or_an_upload() -> Result<()> {
    let t = TestEngine::start().await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let mut ws = lan_socket(port, &fingerprint).await?;
    let caps = [
        "display.text",
        "camera.photo",
        "location.get",
        "notify.show",
    ];
    let (node_id, token) = pair(&t, &mut ws, "Phone", &caps).await?;
    let upload_url = format!("https://127.0.0.1:{port}/api/nodes/upload");

    // Uploads need the device's own token.
    let lan_http = reqwest::Client::builder()
        .use_preconfigured_tls((*pinned::client_config(Some(&fingerprint))).clone())
        .build()?;
    let (status, body) = send(lan_http.post(&upload_url).body(vec![1_u8])).await?;
    assert_eq!(status, 401, "{body}");
    let (status, _) = send(
        lan_http
            .post(&upload_url)
            .bearer_auth(t.client.token())
            .body(vec![1_u8]),
    )
    .await?;
    assert_eq!(status, 401, "the gateway token is not a device token");

    let device = tokio::spawn(phone(ws, upload_url, token, Some(fingerprint.clone())));
    let invoke_path = format!("/api/nodes/{node_id}/invoke");
    let invoke = |capability: &str, params: Value, timeout_ms: Option<u32>| {
        let mut body = json!({"capability": capability, "params": params});
        if let Some(ms) = timeout_ms {
            body["timeout_ms"] = json!(ms);
        }
        t.client.post(&invoke_path, body)
    };

    let (status, reply) = invoke("display.text", json!({"text": "Turn left"}), None).await?;
    assert_eq!(status, 200);
    assert_eq!(reply, json!({"ok": true, "data": {"shown": true}}));

    let (_, reply) = invoke("camera.photo", json!({}), None).await?;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["data"]["base64"], "/9j/2Q==");
    assert_eq!(reply["data"]["width"], 2);
    assert!(reply["data"].get("binary").is_none());

    let (_, reply) = invoke("camera.photo", json!({}), None).await?;
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["data"]["base64"], "AQID");
    assert!(reply["data"].get("upload_id").is_none());

    let (_, reply) = invoke("location.get", json!({}), None).await?;
    assert_eq!(reply["ok"], false);
    assert_eq!(reply["code"], "permission_denied");
    assert_eq!(reply["error"]["message"], "Location permission was denied.");

    let (_, reply) = invoke("notify.show", json!({"text": "hi"}), Some(600)).await?;
    assert_eq!(
        (reply["ok"].as_bool(), reply["code"].as_str()),
        (Some(false), Some("timeout"))
    );

    let (_, reply) = invoke("speak", json!({"text": "hi"}), None).await?;
    assert_eq!(reply["code"], "unsupported");

    let (status, body) = invoke("", json!({}), None).await?;
    assert_eq!(status, 422, "{body}");
    let (status, _) = t
        .client
        .post("/api/nodes/nope/invoke", json!({"capability": "speak"}))
        .await?;
    assert_eq!(status, 404);

    device.abort();
    eventually("invokes answering offline", || async {
        let (_, reply) = invoke("display.text", json!({"text": "Turn left"}), None).await?;
        Ok((reply["code"] == "offline").then_some(()))
    })
    .await?;
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn stop_everything_from_a_device_reaches_every_device_while_one_never_reads() -> Result<()> {
    let t = TestEngine::start().await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let mut a = lan_socket(port, &fingerprint).await?;
    pair(&t, &mut a, "Phone", &["notify.show"]).await?;
    let mut b = lan_socket(port, &fingerprint).await?;
    pair(&t, &mut b, "Glasses", &["display.text"]).await?;
    let mut desktop = gateway_socket(&t, &format!("?token={}", t.client.token())).await?;
    say(&mut desktop, json!({"type": "hello", "protocol": 1, "name": "Desktop", "kind": "desktop", "capabilities": []})).await?;
    assert_eq!(next_json(&mut desktop).await?["type"], "welcome");
    // This one never reads another message.
    let mut stuck = lan_socket(port, &fingerprint).await?;
    pair(&t, &mut stuck, "Stuck watch", &[]).await?;

    let pressed = Instant::now();
    say(&mut a, json!({"type": "stop_all"})).await?;
    for ws in [&mut a, &mut b, &mut desktop] {
        let state = next_stop_state(ws).await?;
        assert_eq!(state["stopped"], true);
        assert_eq!(state["source"], "device");
        assert!(state["stopped_at"].is_string());
    }
    let took = pressed.elapsed();
    assert!(took < Duration::from_secs(2), "stop_state took {took:?}");
    let (_, stop) = t.client.get("/api/stop").await?;
    assert_eq!(
        (stop["stopped"].as_bool(), stop["source"].as_str()),
        (Some(true), Some("device"))
    );

    // A device that connects while stopped hears it in its welcome.
    let mut late = lan_socket(port, &fingerprint).await?;
    let code = pairing_code(&t).await?;
    say(&mut late, hello("Late", &[], json!({"pair_code": code}))).await?;
    assert_eq!(next_json(&mut late).await?["stopped"], true);

    // Stop again while stopped: the sender hears the unchanged state.
    say(&mut b, json!({"type": "stop_all"})).await?;
    assert_eq!(next_stop_state(&mut b).await?["stopped"], true);

    // Resume from a device reaches the others too, stop from the window reaches devices.
    say(&mut b, json!({"type": "resume"})).await?;
    // `a` first hears the repeated stop, then the resume.
    assert_eq!(next_stop_state(&mut a).await?["stopped"], true);
    assert_eq!(next_stop_state(&mut a).await?["stopped"], false);
    let (_, stop) = t.client.get("/api/stop").await?;
    assert_eq!(stop["stopped"], false);
    t.client.post("/api/stop-all", json!({})).await?;
    let state = next_stop_state(&mut a).await?;
    assert_eq!(
        (state["stopped"].as_bool(), state["source"].as_str()),
        (Some(true), Some("desktop"))
    );
    drop(stuck);
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn the_lan_listener_serves_only_device_paths_and_refuses_the_gateway_token() -> Result<()> {
    let t = TestEngine::start().await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let lan = reqwest::Client::builder()
        .use_preconfigured_tls((*pinned::client_config(Some(&fingerprint))).clone())
        .build()?;
    let base = format!("https://127.0.0.1:{port}");
    let token = t.client.token().to_owned();

    for path in [
        "/api/health",
        "/api/bootstrap",
        "/api/nodes",
        "/api/openapi.json",
        "/",
        "/index.html",
        "/ws",
        "/api/nodes/pairing",
    ] {
        let (status, body) = send(lan.get(format!("{base}{path}")).bearer_auth(&token)).await?;
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body["detail"].is_string(), "{path}");
    }
    let (status, _) = send(
        lan.post(format!("{base}/api/nodes/pairing"))
            .bearer_auth(&token),
    )
    .await?;
    assert_eq!(status, 404);
    let (status, _) = send(lan.post(format!("{base}/api/stop-all")).bearer_auth(&token)).await?;
    assert_eq!(status, 404);

    let page = lan.get(format!("{base}/node/")).send().await?;
    assert_eq!(page.status(), 200);
    assert!(page.text().await?.contains("<html"));

    // The gateway token opens nothing on the socket either.
    let mut ws = connect(
        &format!("wss://127.0.0.1:{port}/ws/node?token={token}"),
        Some(&fingerprint),
    )
    .await?;
    say(&mut ws, hello("Sneaky", &[], json!({}))).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "pairing_required");
    let mut ws = lan_socket(port, &fingerprint).await?;
    say(&mut ws, hello("Sneaky", &[], json!({"token": token}))).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "bad_token");
    assert_eq!(close_code(&mut ws).await?, 4401);

    // The voice socket checks the device token first.
    let refused = connect(
        &format!("wss://127.0.0.1:{port}/ws/voice?node_token={token}"),
        Some(&fingerprint),
    )
    .await;
    assert!(refused.is_err());
    let mut phone = lan_socket(port, &fingerprint).await?;
    let (_, device_token) = pair(&t, &mut phone, "Phone", &["mic.stream"]).await?;
    let mut voice = connect(
        &format!("wss://127.0.0.1:{port}/ws/voice?node_token={device_token}"),
        Some(&fingerprint),
    )
    .await?;
    let said = next_json(&mut voice).await?;
    assert_eq!(said["type"], "error");
    assert_eq!(said["recoverable"], false);

    // Webhooks work on the LAN listener.
    let (_, hook) = t
        .client
        .post("/api/hooks", json!({"name": "Doorbell"}))
        .await?;
    let id = hook["id"].as_str().unwrap_or_default();
    let (status, body) = send(
        lan.post(format!("{base}/hooks/{id}"))
            .header(
                "X-Sentient-Secret",
                hook["secret"].as_str().unwrap_or_default(),
            )
            .json(&json!({"ring": true})),
    )
    .await?;
    assert_eq!(status, 200, "{body}");

    // Turning the setting off closes the port, live.
    t.engine
        .services()
        .config()
        .patch(json!({"nodes": {"lan_enabled": false}}))
        .await?;
    wait_lan(&t, false).await?;
    // Devices connected through it are told and closed.
    assert_eq!(next_json_until_error(&mut phone).await?["code"], "disabled");
    assert_eq!(close_code(&mut phone).await?, 4403);
    assert!(
        TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .is_err()
    );
    let (_, pairing) = t.client.post("/api/nodes/pairing", json!({})).await?;
    assert!(pairing["fingerprint"].is_null());
    assert!(
        pairing["urls"][0]
            .as_str()
            .unwrap_or_default()
            .starts_with("ws://127.0.0.1:")
    );
    assert!(
        pairing["web_url"]
            .as_str()
            .unwrap_or_default()
            .contains("/node/#code=")
    );
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn device_tools_are_offered_only_while_a_device_can_use_them() -> Result<()> {
    let t = TestEngine::start().await?;
    let offered = |t: &TestEngine| -> Vec<String> {
        t.engine
            .services()
            .tools()
            .offered(&[])
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    assert!(!offered(&t).iter().any(|n| n.starts_with("device_")));

    let mut ws = gateway_socket(&t, "").await?;
    pair(
        &t,
        &mut ws,
        "Phone",
        &["notify.show", "camera.photo", "location.get"],
    )
    .await?;
    let names = offered(&t);
    for tool in [
        "device_list",
        "device_notify",
        "device_take_photo",
        "device_get_location",
    ] {
        assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n == "device_display" || n == "device_speak")
    );

    // A photo asks first while the setting is on.
    let photo = t
        .engine
        .services()
        .tools()
        .get("device_take_photo")
        .context("photo tool")?;
    assert_eq!(
        photo.risk_for(&json!({})),
        sentient_e2e::sentient_engine::tools::Risk::Send
    );
    t.engine
        .services()
        .config()
        .patch(json!({"nodes": {"camera_requires_approval": false}}))
        .await?;
    assert_eq!(
        photo.risk_for(&json!({})),
        sentient_e2e::sentient_engine::tools::Risk::Read
    );

    // device_notify reaches the phone, and the photo is saved under files/outputs/devices.
    let phone_task = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(Ok(message)) = ws.next().await {
            let Message::Text(text) = message else {
                continue;
            };
            let invoke: Value = serde_json::from_str(&text)?;
            if invoke["type"] != "invoke" {
                continue;
            }
            seen.push(invoke.clone());
            let data = match invoke["capability"].as_str() {
                Some("camera.photo") => json!({"mime": "image/jpeg", "base64": "/9j/2Q=="}),
                Some("location.get") => {
                    json!({"lat": 38.72, "lon": -9.14, "accuracy_m": 12, "label": "Lisbon"})
                }
                _ => json!({"shown": true}),
            };
            say(
                &mut ws,
                json!({"type": "result", "id": invoke["id"], "ok": true, "data": data}),
            )
            .await?;
            if seen.len() == 4 {
                break;
            }
        }
        anyhow::Ok(seen)
    });
    let ctx = t.engine.services().agent().tool_ctx("call-1");
    let result = t
        .engine
        .services()
        .tools()
        .invoke(
            "device_notify",
            json!({"text": "Milk is on the list"}),
            &ctx,
            10_000,
        )
        .await;
    assert!(!result.is_error, "{:?}", result.value);
    assert_eq!(result.value, json!({"ok": true, "device": "Phone"}));
    let result = t
        .engine
        .services()
        .tools()
        .invoke(
            "device_take_photo",
            json!({"question": "What is on the table?"}),
            &ctx,
            10_000,
        )
        .await;
    assert!(!result.is_error, "{:?}", result.value);
    let file = result.value["file"].as_str().unwrap_or_default().to_owned();
    assert!(file.starts_with("files/outputs/devices/photo-"), "{file}");
    assert_eq!(
        std::fs::read(t.home().join(&file))?,
        vec![0xff, 0xd8, 0xff, 0xd9]
    );
    assert!(result.value["note"].is_string());
    let result = t
        .engine
        .services()
        .tools()
        .invoke(
            "device_get_location",
            json!({"device": "phone"}),
            &ctx,
            10_000,
        )
        .await;
    assert_eq!(result.value["lat"], 38.72, "{:?}", result.value);
    assert_eq!(result.value["label"], "Lisbon");
    assert!(
        result.value["map"]
            .as_str()
            .unwrap_or_default()
            .starts_with("https://www.openstreetmap.org/")
    );

    // With a vision model chosen, the question about the photo is answered from the picture.
    let vision = ScriptedModel::start().await;
    point_models_at(&t, &vision).await?;
    t.engine
        .services()
        .config()
        .patch(json!({"models": {"vision": "ollama_chat/llava:7b"}}))
        .await?;
    vision.push(Reply::text("A carton of milk on a wooden table."));
    let result = t
        .engine
        .services()
        .tools()
        .invoke(
            "device_take_photo",
            json!({"question": "What is on the table?"}),
            &ctx,
            10_000,
        )
        .await;
    assert_eq!(
        result.value["description"], "A carton of milk on a wooden table.",
        "{:?}",
        result.value
    );
    assert!(result.value.get("note").is_none());
    let asked = vision.requests_to("/api/chat");
    let message = &asked[0].body["messages"][1];
    assert_eq!(message["content"], "What is on the table?");
    assert_eq!(message["images"], json!(["/9j/2Q=="]));
    assert_eq!(asked[0].body["model"], "llava:7b");

    let seen = tokio::time::timeout(WAIT, phone_task).await???;
    assert_eq!(seen[0]["capability"], "notify.show");
    assert_eq!(seen[0]["params"]["text"], "Milk is on the list");

    // A device that isn't there is a plain error.
    let result = t
        .engine
        .services()
        .tools()
        .invoke(
            "device_notify",
            json!({"text": "hi", "device": "Toaster"}),
            &ctx,
            10_000,
        )
        .await;
    assert!(result.is_error);
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn the_reference_node_pairs_from_the_link_answers_and_presses_stop() -> Result<()> {
    use sentient_e2e::sentient_engine::node::reference_node::{self, NodeOptions};
    use tokio::io::AsyncWriteExt;

    let t = TestEngine::start().await?;
    lan_on(&t).await?;
    let (_, pairing) = t.client.post("/api/nodes/pairing", json!({})).await?;
    let link = pairing["qr"].as_str().unwrap_or_default().to_owned();
    let dir = tempfile::tempdir()?;
    let options = NodeOptions {
        url: link,
        name: "Desk PC".to_owned(),
        location: Some((38.72, -9.14)),
        token_file: Some(dir.path().join("token.json")),
        ..NodeOptions::default()
    };
    let (mut keyboard, input) = tokio::io::duplex(1024);
    let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    let node = tokio::spawn(reference_node::run(
        options,
        tokio::io::BufReader::new(input),
        move |line| {
            let _ = lines_tx.send(line);
        },
    ));

    let listed = eventually("the reference node coming online", || async {
        let (_, nodes) = t.client.get("/api/nodes").await?;
        Ok(nodes
            .as_array()
            .into_iter()
            .flatten()
            .find(|n| n["name"] == "Desk PC" && n["online"] == true)
            .cloned())
    })
    .await?;
    assert_eq!(listed["connection"], "lan");
    let node_id = listed["node_id"].as_str().unwrap_or_default().to_owned();
    let path = format!("/api/nodes/{node_id}/invoke");
    let (_, shown) = t
        .client
        .post(
            &path,
            json!({"capability": "display.text", "params": {"text": "Hello from the window"}}),
        )
        .await?;
    assert_eq!(shown["ok"], true, "{shown}");
    let (_, place) = t
        .client
        .post(&path, json!({"capability": "location.get", "params": {}}))
        .await?;
    assert_eq!(
        (place["data"]["lat"].as_f64(), place["data"]["lon"].as_f64()),
        (Some(38.72), Some(-9.14))
    );

    // `s` on the keyboard is Stop everything from the device.
    keyboard.write_all(b"s\n").await?;
    let stop = eventually("the node's stop", || async {
        let (_, stop) = t.client.get("/api/stop").await?;
        Ok((stop["stopped"] == true).then_some(stop))
    })
    .await?;
    assert_eq!(stop["source"], "device");
    keyboard.write_all(b"q\n").await?;
    let finished = tokio::time::timeout(WAIT, node).await??;
    assert!(finished.is_ok(), "{finished:?}");
    let mut said = Vec::new();
    while let Ok(line) = lines.try_recv() {
        said.push(line);
    }
    assert!(
        said.iter().any(|l| l.contains("Hello from the window")),
        "{said:?}"
    );
    assert!(dir.path().join("token.json").exists());
    t.engine.services().shutdown().await;
    Ok(())
}

#[tokio::test]
async fn events_state_and_unknown_messages_from_a_device() -> Result<()> {
    let t = TestEngine::start().await?;
    let (port, fingerprint) = lan_on(&t).await?;
    let mut ws = lan_socket(port, &fingerprint).await?;
    let (node_id, _) = pair(&t, &mut ws, "Glasses", &["button.events", "battery"]).await?;
    let mut events = t.engine.services().bus().subscribe();

    say(
        &mut ws,
        json!({"type": "event", "event": "button", "data": {"action": "press"}}),
    )
    .await?;
    say(
        &mut ws,
        json!({"type": "state", "battery": 64, "charging": true, "worn": true}),
    )
    .await?;
    let (mut pressed, mut charged) = (None, None);
    tokio::time::timeout(WAIT, async {
        while pressed.is_none() || charged.is_none() {
            let wire = serde_json::to_value(events.recv().await?)?;
            match wire["type"].as_str() {
                Some("node.event") => pressed = Some(wire["data"].clone()),
                Some("node.updated") if wire["data"]["battery"] == 64 => {
                    charged = Some(wire["data"].clone());
                }
                _ => {}
            }
        }
        anyhow::Ok(())
    })
    .await??;
    assert_eq!(
        pressed,
        Some(json!({"node_id": node_id, "event": "button", "data": {"action": "press"}}))
    );
    let charged = charged.unwrap_or_default();
    assert_eq!(
        (charged["charging"].as_bool(), charged["worn"].as_bool()),
        (Some(true), Some(true))
    );

    // Mistakes after hello are answered and the connection stays.
    say(&mut ws, json!({"type": "teleport"})).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "unknown_type");
    say(&mut ws, json!({"type": "event", "event": "Bad Name"})).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "protocol");
    ws.send(Message::Binary(vec![1_u8, 2].into())).await?;
    assert_eq!(next_json(&mut ws).await?["code"], "protocol");
    say(&mut ws, json!({"type": "ping", "ts": 1})).await?;
    assert_eq!(next_json(&mut ws).await?["type"], "pong");

    // A second hello updates what it can do.
    say(&mut ws, hello("Glasses", &["display.text"], json!({}))).await?;
    let path = format!("/api/nodes/{node_id}");
    let node = eventually("the capabilities changing", || async {
        let (_, node) = t.client.get(&path).await?;
        Ok((node["capabilities"] == json!(["display.text"])).then_some(node))
    })
    .await?;
    assert_eq!(node["battery"], 64);
    t.engine.services().shutdown().await;
    Ok(())
}
