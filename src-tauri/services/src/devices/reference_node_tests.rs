//! `sentient node` (the reference device in `sentient-node`) against this engine's real LAN
//! listener and certificate, with a fake engine behind the socket: pairing, answering, pinning.

use std::time::Duration;

use sentient_node::reference_node::{NodeOptions, load_token, run};
use serde_json::{Value, json};

/// A fake engine on the real LAN listener: pairs, invokes, expects a ping, then says
/// `replaced`; a token in hello is answered with `revoked`.
fn fake_engine(seen: tokio::sync::mpsc::UnboundedSender<Value>) -> axum::Router {
    use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
    async fn next_json(socket: &mut WebSocket) -> Option<Value> {
        while let Some(Ok(msg)) = socket.recv().await {
            if let WsMessage::Text(text) = msg {
                return serde_json::from_str(text.as_str()).ok();
            }
        }
        None
    }
    async fn send(socket: &mut WebSocket, value: Value) {
        let _ = socket.send(WsMessage::Text(value.to_string().into())).await;
    }
    async fn close(socket: &mut WebSocket, code: u16) {
        let _ = socket
            .send(WsMessage::Close(Some(axum::extract::ws::CloseFrame {
                code,
                reason: "".into(),
            })))
            .await;
    }
    axum::Router::new().route(
        "/ws/node",
        axum::routing::get(move |ws: WebSocketUpgrade| {
            let seen = seen.clone();
            async move {
                ws.on_upgrade(move |mut socket| async move {
                    let Some(hello) = next_json(&mut socket).await else {
                        return;
                    };
                    let _ = seen.send(hello.clone());
                    if hello.get("token").is_some() {
                        send(&mut socket, json!({"type":"error","code":"revoked","message":"This device was removed."})).await;
                        close(&mut socket, 4401).await;
                        return;
                    }
                    send(&mut socket, json!({"type":"welcome","protocol":1,"node_id":"n1","name":"Test",
                        "assistant":"Sentient","keepalive_s":1,"idle_timeout_s":180,"token":"tok-1"})).await;
                    send(&mut socket, json!({"type":"invoke","id":"i1","capability":"display.text",
                        "params":{"text":"Turn left"},"timeout_ms":20000})).await;
                    for _ in 0..2 {
                        let Some(msg) = next_json(&mut socket).await else {
                            return;
                        };
                        let _ = seen.send(msg);
                    }
                    send(&mut socket, json!({"type":"error","code":"replaced","message":"Connected again elsewhere."})).await;
                    close(&mut socket, 4409).await;
                })
            }
        }),
    )
}

#[tokio::test]
async fn pairs_answers_pings_and_pins_against_a_fake_engine() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cert = crate::gateway::tls::load_or_create(&dir.path().join("tls")).expect("cert");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let lan = crate::gateway::lan_listener::LanListener::new();
    let addr = lan
        .start("127.0.0.1:0".parse().expect("addr"), fake_engine(tx), &cert)
        .await
        .expect("start");
    let url = format!("wss://127.0.0.1:{}/ws/node", addr.port());
    let token_file = dir.path().join("token.json");
    let link = format!(
        "sentient://pair?url={}&code=123456&fp={}",
        url.replace(':', "%3A").replace('/', "%2F"),
        cert.fingerprint.to_uppercase()
    );
    let opts = NodeOptions {
        url: link,
        name: "Test".into(),
        token_file: Some(token_file.clone()),
        ..NodeOptions::default()
    };
    let run_once = |opts: NodeOptions| async move {
        let mut lines = Vec::new();
        let result = tokio::time::timeout(
            Duration::from_secs(20),
            run(opts, tokio::io::BufReader::new(tokio::io::empty()), |l| {
                lines.push(l)
            }),
        )
        .await
        .expect("the node finished in time");
        (result, lines)
    };

    // First start: pairs with the code, shows the text, pings, then stops on `replaced`.
    let (result, lines) = run_once(opts.clone()).await;
    let err = result.expect_err("replaced is fatal");
    assert!(err.contains("elsewhere"), "{err}");
    assert!(
        lines.iter().any(|l| l == "[display] Turn left"),
        "{lines:?}"
    );
    let hello = rx.recv().await.expect("hello");
    assert_eq!(hello["pair_code"], "123456");
    assert_eq!(hello["kind"], "custom");
    let result_msg = rx.recv().await.expect("result");
    assert_eq!(
        result_msg,
        json!({"type":"result","id":"i1","ok":true,"data":{"shown":true}})
    );
    assert_eq!(rx.recv().await.expect("ping")["type"], "ping");
    let stored = load_token(&token_file, &url).expect("token kept");
    assert_eq!(stored.token, "tok-1");
    assert_eq!(
        stored.fingerprint.as_deref(),
        Some(cert.fingerprint.as_str())
    );

    // Second start: the stored token is revoked, so it is deleted and the code is used again.
    let (result, _) = run_once(opts.clone()).await;
    assert!(result.is_err());
    assert_eq!(rx.recv().await.expect("hello")["token"], "tok-1");
    assert_eq!(rx.recv().await.expect("hello")["pair_code"], "123456");

    // A wrong fingerprint stops before anything is sent.
    let (result, _) = run_once(NodeOptions {
        url: url.clone(),
        fingerprint: Some("0".repeat(64)),
        ..opts.clone()
    })
    .await;
    let err = result.expect_err("pinning");
    assert!(err.contains("different certificate"), "{err}");

    // wss without any fingerprint is refused unless --insecure.
    let bare = NodeOptions {
        url: url.clone(),
        token_file: Some(dir.path().join("none.json")),
        code: Some("1".into()),
        ..NodeOptions::default()
    };
    let err = run_once(bare.clone()).await.0.expect_err("no fingerprint");
    assert!(err.contains("--fingerprint"), "{err}");
    lan.stop().await;
    while let Ok(extra) = rx.try_recv() {
        assert_ne!(
            extra["type"], "hello",
            "nothing reaches the engine without pinning"
        );
    }
}
