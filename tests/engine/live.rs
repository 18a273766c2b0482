//! The live channel: hello, ping, the token, and a slow client that must not hold up others.

use futures::StreamExt;
use sentient_e2e::{TestEngine, WsClient};
use sentient_engine::bus::DomainEvent;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn hello_then_pong() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let mut ws = WsClient::connect(&t.engine.services().url(), Some(t.client.token())).await?;
    let hello = ws.next_json().await?;
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["assistant"], "Sentient");
    assert_eq!(hello["version"], t.engine.services().version());
    ws.send_json(json!({"type": "ping"})).await?;
    assert_eq!(ws.next_json().await?, json!({"type": "pong"}));
    ws.send_json(json!({"type": "chat.dance"})).await?;
    let reply = ws.next_json().await?;
    assert_eq!(reply["type"], "error");
    assert_eq!(reply["recoverable"], true);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn sockets_need_the_token() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    assert!(
        WsClient::connect(&t.engine.services().url(), None)
            .await
            .is_err()
    );
    assert!(
        WsClient::connect(&t.engine.services().url(), Some("wrong"))
            .await
            .is_err()
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_slow_client_does_not_delay_a_fast_one_and_is_dropped() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let slow = t.ws().await?;
    let mut fast = t.ws().await?;
    // Big events fill the slow client's socket buffers quickly; it never reads.
    let filler = "x".repeat(8 * 1024);
    let batches = 40;
    let per_batch = 100;
    for batch in 0..batches {
        for i in 0..per_batch {
            t.engine
                .services()
                .bus()
                .publish(DomainEvent::ConfigUpdated {
                    sections: vec![format!("{batch}-{i}"), filler.clone()],
                });
        }
        // The fast client receives every event of the batch, in order, within the time limit.
        for i in 0..per_batch {
            let event = fast.wait_for("config.updated").await?;
            assert_eq!(event["data"]["sections"][0], format!("{batch}-{i}"));
        }
    }
    // The slow client got what fit in its buffers, then a close frame saying it fell behind.
    let mut socket = slow.into_inner();
    let mut close_code = None;
    while let Some(message) = tokio::time::timeout(sentient_e2e::WAIT, socket.next()).await? {
        match message {
            Ok(Message::Close(frame)) => {
                close_code = frame.map(|f| u16::from(f.code));
                break;
            }
            Ok(_) => continue,
            Err(_) => break,
        }
    }
    assert_eq!(
        close_code,
        Some(sentient_engine::gateway::ws::CLOSE_TOO_SLOW)
    );
    t.stop().await;
    Ok(())
}
