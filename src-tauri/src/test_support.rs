//! What the shell's tests share: a real engine in a temporary home, managed by tauri's mock
//! app, and a way to wait for the next Stop everything change.

use std::time::Duration;

use sentient_engine::bus::{DomainEvent, Envelope};
use sentient_engine::stop::StopState;
use sentient_engine::{Engine, EngineOptions};
use tauri::Manager;
use tauri::test::MockRuntime;
use tokio::sync::broadcast::Receiver;

/// An engine on a temporary home (kept alive by the returned folder) and a mock app.
pub fn engine_and_app() -> (tempfile::TempDir, Engine, tauri::App<MockRuntime>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = tauri::async_runtime::block_on(Engine::start(EngineOptions {
        home: Some(dir.path().to_owned()),
        port: Some(0),
        ..Default::default()
    }))
    .expect("engine");
    let app = tauri::test::mock_app();
    app.manage(engine.clone());
    (dir, engine, app)
}

/// The next `stop.updated` on the bus (other events are a test failure).
pub fn next_stop_state(events: &mut Receiver<Envelope>) -> StopState {
    let envelope = tauri::async_runtime::block_on(async {
        tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("in time")
            .expect("event")
    });
    match envelope.event {
        DomainEvent::StopUpdated(state) => state,
        other => panic!("expected stop.updated, got {other:?}"),
    }
}
