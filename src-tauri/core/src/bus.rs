//! The event bus: every domain event goes through here to every window, socket and device.
//! A broadcast channel gives each listener its own bounded queue, so a slow listener only
//! falls behind itself (and is told so) and never holds up the publisher or the others.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::clock::SharedClock;
pub use crate::domain::events::DomainEvent;

/// How many events one listener may fall behind before it is dropped.
pub const LISTENER_QUEUE: usize = 1024;

/// What travels on the wire: `{"type", "data", "ts"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Envelope {
    #[serde(flatten)]
    pub event: DomainEvent,
    pub ts: DateTime<Utc>,
}

/// The engine's one bus; cheap to clone.
#[derive(Debug, Clone)]
pub struct EventBus {
    tx: broadcast::Sender<Envelope>,
    clock: SharedClock,
}

impl EventBus {
    pub fn new(clock: SharedClock) -> Self {
        let (tx, _) = broadcast::channel(LISTENER_QUEUE);
        Self { tx, clock }
    }

    /// Stamps and sends `event` to every listener; never waits on any of them.
    pub fn publish(&self, event: DomainEvent) {
        tracing::debug!(event = event.kind(), "publish");
        let envelope = Envelope {
            event,
            ts: self.clock.now(),
        };
        // No listener is fine: nobody is watching right now.
        let _ = self.tx.send(envelope);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Envelope> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::SystemClock;

    #[tokio::test]
    async fn envelope_has_type_data_ts() {
        let bus = EventBus::new(Arc::new(SystemClock));
        let mut rx = bus.subscribe();
        bus.publish(DomainEvent::ConfigUpdated {
            sections: vec!["ui".into()],
        });
        let got = rx.recv().await.expect("event");
        let wire = serde_json::to_value(&got).expect("json");
        assert_eq!(wire["type"], "config.updated");
        assert_eq!(wire["data"]["sections"][0], "ui");
        assert!(wire["ts"].is_string());
    }

    #[tokio::test]
    async fn a_listener_that_falls_behind_is_told_and_others_are_not() {
        let bus = EventBus::new(Arc::new(SystemClock));
        let mut slow = bus.subscribe();
        let mut fast = bus.subscribe();
        for i in 0..(LISTENER_QUEUE + 10) {
            bus.publish(DomainEvent::ConfigUpdated {
                sections: vec![i.to_string()],
            });
            fast.recv().await.expect("fast keeps up");
        }
        assert!(matches!(
            slow.recv().await,
            Err(broadcast::error::RecvError::Lagged(_))
        ));
    }
}
