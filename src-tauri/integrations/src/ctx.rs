//! [`AppCtx`]: the narrow handle every app, built-in and feed holds instead of the whole
//! service: the store, the keychain, the endpoints table, where each app stands with its
//! privacy filters, Settings and the clock, and an HTTP client. What changes an app's state
//! tells every window through the `announce` hook the service gives it, so no app sees the
//! service itself.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use sentient_core::clock::SharedClock;
use sentient_core::config::ConfigService;
use sentient_core::secrets::SecretsService;
use sentient_core::store::Store;

use crate::endpoints::Endpoints;
use crate::error::IntegrationError;
use crate::privacy::FilterLists;
use crate::state::{AppState, StateStore};

/// Publishes `integration.updated` for an app id (the service's, which knows the whole object).
pub type Announce = Arc<dyn Fn(String) -> BoxFuture<'static, ()> + Send + Sync>;

/// The handles an [`AppCtx`] is made of.
pub struct CtxParts {
    pub store: Store,
    pub secrets: SecretsService,
    pub endpoints: Endpoints,
    pub config: ConfigService,
    pub clock: SharedClock,
    pub shutdown: CancellationToken,
    pub states: StateStore,
    pub announce: Announce,
}

/// What an app may reach; cheap to clone.
#[derive(Clone)]
pub struct AppCtx {
    parts: Arc<CtxParts>,
}

impl std::fmt::Debug for AppCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCtx").finish_non_exhaustive()
    }
}

/// One HTTP client setup for every app's calls (a time limit, Sentient's user agent). Each
/// call gets its own client, so no connection is kept between apps' calls.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(20))
        .user_agent(concat!("Sentient/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_default()
}

/// Reads an access choice: `read` or `read_write`; anything else is the route's 422.
pub fn parse_access(value: &Value) -> Result<bool, IntegrationError> {
    match value.as_str() {
        Some("read") => Ok(true),
        Some("read_write") => Ok(false),
        _ => Err(IntegrationError::BadAccess),
    }
}

impl AppCtx {
    pub fn new(parts: CtxParts) -> Self {
        Self {
            parts: Arc::new(parts),
        }
    }

    pub fn store(&self) -> &Store {
        &self.parts.store
    }

    pub fn secrets(&self) -> &SecretsService {
        &self.parts.secrets
    }

    pub fn endpoints(&self) -> &Endpoints {
        &self.parts.endpoints
    }

    pub fn config(&self) -> &ConfigService {
        &self.parts.config
    }

    pub fn clock(&self) -> &SharedClock {
        &self.parts.clock
    }

    /// Cancelled when the engine stops; background work of apps ends with it.
    pub fn shutdown(&self) -> &CancellationToken {
        &self.parts.shutdown
    }

    /// See [`http_client`].
    pub fn http(&self) -> reqwest::Client {
        http_client()
    }

    /// Where an app's connection stands.
    pub fn state(&self, id: &str) -> AppState {
        self.parts.states.get(id)
    }

    /// Every saved state (at start, for the feeds to run).
    pub fn states(&self) -> Vec<(String, AppState)> {
        self.parts.states.all()
    }

    /// Whether an app is connected now (tools read this for `available()`).
    pub fn is_connected(&self, id: &str) -> bool {
        self.state(id).status == "connected"
    }

    /// Saves where an app stands and tells every window.
    pub async fn set_state(&self, id: &str, state: AppState) {
        if let Err(error) = self.parts.states.put(id, &state).await {
            tracing::warn!(%error, app = id, "an app's state could not be saved");
        }
        self.announce(id).await;
    }

    /// Publishes `integration.updated` with the app as it is now.
    pub async fn announce(&self, id: &str) {
        (self.parts.announce)(id.to_owned()).await;
    }

    /// Whether an app's tools may be offered to the model now: it is connected, or
    /// `integrations.hide_disconnected_tools` is off.
    pub fn offers(&self, app: &str) -> bool {
        !self
            .parts
            .config
            .current()
            .integrations
            .hide_disconnected_tools
            || self.is_connected(app)
    }

    /// `read` while the app is Read only, else `read_write`.
    pub fn access_of(&self, id: &str) -> &'static str {
        if self
            .parts
            .config
            .current()
            .integrations
            .read_only
            .iter()
            .any(|r| r == id)
        {
            "read"
        } else {
            "read_write"
        }
    }

    /// Saves Read only on or off for an app (a no-op when it already is).
    pub async fn save_access(&self, id: &str, read_only: bool) -> Result<(), IntegrationError> {
        let listed = self.access_of(id) == "read";
        if listed == read_only {
            return Ok(());
        }
        let id = id.to_owned();
        self.parts
            .config
            .update(move |config| {
                let list = &mut config.integrations.read_only;
                list.retain(|r| *r != id);
                if read_only {
                    list.push(id);
                }
            })
            .await
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        Ok(())
    }

    /// An app's privacy filters as saved.
    pub async fn filters(&self, id: &str) -> Result<FilterLists, IntegrationError> {
        Ok(self.parts.states.filters(id).await?)
    }

    pub async fn put_filters(
        &self,
        id: &str,
        filters: &FilterLists,
    ) -> Result<(), IntegrationError> {
        Ok(self.parts.states.put_filters(id, filters).await?)
    }

    /// Whether one-time codes in mail are masked (`integrations.hide_one_time_codes`).
    pub fn masks_codes(&self) -> bool {
        self.parts.config.current().integrations.hide_one_time_codes
    }

    /// Items the filters let through, masked: what a tool result of `source` may show.
    pub async fn screen(&self, source: &str, items: Vec<Value>) -> Vec<Value> {
        let filters = self.filters(source).await.unwrap_or_default();
        let mask = self.masks_codes();
        items
            .into_iter()
            .filter(|item| !filters.hides(item))
            .map(|mut item| {
                if mask && matches!(source, "gmail" | "email_imap") {
                    crate::redact::mask_item(&mut item);
                }
                item
            })
            .collect()
    }
}
