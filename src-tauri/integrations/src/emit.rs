//! The one door to `source.items` (contract section 16): the seen record, privacy filters,
//! code masking and Stop everything, for feeds and polls alike.

use std::sync::Arc;

use serde_json::Value;

use sentient_core::bus::{DomainEvent, EventBus};
use sentient_core::seen::SeenItems;
use sentient_core::stop::StopService;

use crate::ctx::AppCtx;
use crate::error::IntegrationError;

/// The key an item is recorded under in the seen record.
pub fn seen_key(source: &str, item: &Value) -> String {
    let text = |k: &str| match item.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    match source {
        // A changed event is new again: its key carries when it changed.
        "gcalendar" => format!("{}:{}", text("id"), text("updated")),
        "email_imap" => {
            let id = text("message_id");
            if id.is_empty() {
                format!("{}:{}", text("labels"), text("id"))
            } else {
                id
            }
        }
        _ => text("id"),
    }
}

/// The trigger event a source's items start when none is named.
pub fn default_event(source: &str) -> &'static str {
    match source {
        "gcalendar" => "new_event",
        _ => "new_email",
    }
}

/// Publishes new items once each.
pub struct ItemsDoor {
    ctx: AppCtx,
    seen: Arc<SeenItems>,
    stop: StopService,
    bus: EventBus,
}

impl ItemsDoor {
    pub fn new(ctx: AppCtx, seen: Arc<SeenItems>, stop: StopService, bus: EventBus) -> Self {
        Self {
            ctx,
            seen,
            stop,
            bus,
        }
    }

    /// Whether Stop everything is on.
    pub fn is_stopped(&self) -> bool {
        self.stop.is_stopped()
    }

    /// Forgets what of `source` was seen (on disconnect).
    pub async fn forget(&self, source: &str) -> Result<(), IntegrationError> {
        self.seen.forget(source).await?;
        Ok(())
    }

    /// Publishes new items of `source` once each as `source.items`: filtered items are
    /// recorded as seen and left out, the rest masked. Nothing is published while Stop
    /// everything is on (the items stay unseen for the next sync). Returns the items published.
    pub async fn emit(
        &self,
        source: &str,
        origin: &str,
        items: Vec<Value>,
        event: Option<&str>,
    ) -> Result<Vec<Value>, IntegrationError> {
        if self.stop.is_stopped() || items.is_empty() {
            return Ok(Vec::new());
        }
        let filters = self.ctx.filters(source).await?;
        let mask = self.ctx.masks_codes();
        let mut by_event: Vec<(String, Vec<Value>)> = Vec::new();
        for mut item in items {
            let key = seen_key(source, &item);
            if self.seen.seen_before(source, &key).await? || filters.hides(&item) {
                continue;
            }
            if mask && matches!(source, "gmail" | "email_imap") {
                crate::redact::mask_item(&mut item);
            }
            let name = event
                .map(str::to_owned)
                .or_else(|| item.get("event").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_else(|| default_event(source).to_owned());
            match by_event.iter_mut().find(|(e, _)| *e == name) {
                Some((_, list)) => list.push(item),
                None => by_event.push((name, vec![item])),
            }
        }
        let mut published = Vec::new();
        for (event, items) in by_event {
            self.bus.publish(DomainEvent::SourceItems {
                source: source.to_owned(),
                event,
                origin: origin.to_owned(),
                items: items.clone(),
            });
            published.extend(items);
        }
        Ok(published)
    }
}
