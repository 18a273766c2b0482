//! Sentient's apps (contract section 5): the catalog, where each connection stands, Read only,
//! privacy filters, code masking, MCP servers, email over IMAP, GitHub, and what new items
//! from them publish on `source.items` (section 16).
//!
//! - [`catalog`]: the apps Sentient knows and how each is set up.
//! - [`IntegrationService`]: connect, disconnect, test, access and filters, and the Integration
//!   objects the routes answer with.
//! - [`mcp`]: outside tool servers, each app `mcp_<server>` in the tool registry.
//! - [`email_imap`], [`github`]: the apps themselves (their tools and checks).
//! - [`feeds`]: change feeds, and [`IntegrationService::emit_items`], the one door to
//!   `source.items` (seen record, privacy filters, code masking, Stop everything).

pub mod builtins;
pub mod catalog;
pub mod email_imap;
pub mod endpoints;
pub mod error;
pub mod feeds;
pub mod gcalendar;
pub mod github;
pub mod gmail;
pub mod google;
pub mod mcp;
pub mod oauth;
pub mod privacy;
pub mod redact;
mod state;
pub mod threads;

use sentient_core::sync::RwLockExt;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use sentient_agent::tools::ToolRegistry;
use sentient_core::bus::{DomainEvent, EventBus};
use sentient_core::clock::SharedClock;
use sentient_core::config::ConfigService;
use sentient_core::domain::integration::{Hook, Integration};
use sentient_core::secrets::SecretsService;
use sentient_core::seen::SeenItems;
use sentient_core::stop::StopService;
use sentient_core::store::Store;

pub use endpoints::Endpoints;
pub use error::IntegrationError;
pub use privacy::FilterLists;
pub use sentient_core::domain::integration::Integration as IntegrationInfo;

use catalog::{AuthType, Entry};
use state::{AppState, StateStore};

/// What the service asks of webhooks: the hooks, whose triggers the webhook app lists.
pub trait HookTriggers: Send + Sync {
    fn hooks(&self) -> BoxFuture<'_, Vec<Hook>>;
}

/// What the service asks of tasks when an app goes away.
pub trait DependentTasks: Send + Sync {
    /// Turns off every task whose plan or trigger uses `app` (each gets a `disabled`
    /// notification); returns their names.
    fn disable_tasks_using<'a>(&'a self, app: &'a str) -> BoxFuture<'a, Vec<String>>;
}

/// The handles the service needs.
pub struct IntegrationParts {
    pub store: Store,
    pub bus: EventBus,
    pub config: ConfigService,
    pub secrets: SecretsService,
    pub stop: StopService,
    pub clock: SharedClock,
    pub tools: ToolRegistry,
    pub seen: Arc<SeenItems>,
    pub endpoints: Endpoints,
    pub hooks: Arc<dyn HookTriggers>,
    pub tasks: Arc<dyn DependentTasks>,
    pub shutdown: CancellationToken,
}

struct Inner {
    parts: IntegrationParts,
    states: StateStore,
    /// Apps being connected or changed, one change per app at a time.
    changing: tokio::sync::Mutex<()>,
    mcp: mcp::McpManager,
    imap: email_imap::EmailImap,
    feeds: feeds::Feeds,
    oauth: oauth::OAuthListener,
    polls: threads::Polls,
    builtins: builtins::Builtins,
    /// Connection flags tools read for `available()` (hide_disconnected_tools).
    connected: RwLock<HashMap<String, bool>>,
}

/// The apps as a service; cheap to clone.
#[derive(Clone)]
pub struct IntegrationService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for IntegrationService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntegrationService").finish_non_exhaustive()
    }
}

/// `POST /api/integrations/{id}/connect`.
#[derive(Debug, Clone, Default, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectRequest {
    #[serde(default)]
    #[specta(type = std::collections::BTreeMap<String, String>)]
    #[schema(value_type = Object)]
    pub fields: Map<String, Value>,
    #[serde(default)]
    pub access: Option<String>,
}

/// What a connect answers: the Integration (keys and manual setups), or where to sign in.
#[derive(Debug, Clone, Serialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ConnectAnswer {
    Done(Box<Integration>),
    SignIn {
        auth_url: String,
        state: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        user_code: Option<String>,
    },
}

/// `POST /api/integrations/{id}/test`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct IntegrationTest {
    pub ok: bool,
    pub detail: String,
}

/// `PUT /api/integrations/{id}/access`.
#[derive(Debug, Clone, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct AccessRequest {
    #[specta(type = String)]
    #[schema(value_type = String)]
    pub access: Value,
}

/// The plain sentence for an app this version can't connect.
pub fn not_available(display_name: &str) -> String {
    format!("{display_name} isn't available in this version of Sentient yet.")
}

/// Reads an access choice: `read` or `read_write`; anything else is the route's 422.
pub fn parse_access(value: &Value) -> Result<bool, IntegrationError> {
    match value.as_str() {
        Some("read") => Ok(true),
        Some("read_write") => Ok(false),
        _ => Err(IntegrationError::BadAccess),
    }
}

impl IntegrationService {
    pub async fn new(parts: IntegrationParts) -> Result<Self, IntegrationError> {
        let states = StateStore::load(parts.store.clone(), parts.clock.clone()).await?;
        let cache = builtins::cache::Cache::new(parts.store.clone(), parts.clock.clone());
        let connected = RwLock::new(
            states
                .all()
                .into_iter()
                .map(|(id, s)| (id, s.status == "connected"))
                .collect(),
        );
        let service = Self {
            inner: Arc::new_cyclic(|weak| Inner {
                mcp: mcp::McpManager::new(weak.clone()),
                imap: email_imap::EmailImap::new(weak.clone()),
                feeds: feeds::Feeds::default(),
                oauth: oauth::OAuthListener::new(weak.clone()),
                polls: threads::Polls::default(),
                builtins: builtins::Builtins::new(cache),
                parts,
                states,
                changing: tokio::sync::Mutex::new(()),
                connected,
            }),
        };
        service.register_app_tools();
        Ok(service)
    }

    fn from_inner(inner: Arc<Inner>) -> Self {
        Self { inner }
    }

    pub fn parts(&self) -> &IntegrationParts {
        &self.inner.parts
    }

    pub fn mcp(&self) -> &mcp::McpManager {
        &self.inner.mcp
    }

    pub fn email_imap(&self) -> &email_imap::EmailImap {
        &self.inner.imap
    }

    pub(crate) fn builtins(&self) -> &builtins::Builtins {
        &self.inner.builtins
    }

    pub(crate) fn feeds(&self) -> &feeds::Feeds {
        &self.inner.feeds
    }

    /// Starts what runs in the background: MCP servers that are on, and the change feeds of
    /// connected apps.
    pub async fn start(&self) {
        self.mcp().start_all().await;
        self.start_feeds();
    }

    /// Stops MCP servers (their whole process trees) and feeds; called on quit.
    pub async fn shutdown(&self) {
        self.mcp().stop_all().await;
    }

    fn register_app_tools(&self) {
        for plugin in [
            gmail::plugin(self.clone()),
            gcalendar::plugin(self.clone()),
            email_imap::tools::plugin(self.clone()),
            github::tools::plugin(self.clone()),
        ]
        .into_iter()
        .chain(builtins::plugins(self))
        {
            if let Err(error) = self.parts().tools.register(plugin) {
                tracing::error!(%error, "an app's tools could not be registered");
            }
        }
        // Web search uses a keyed alternative while one is connected.
        if let Err(error) = self
            .parts()
            .tools
            .replace(builtins::search_tool::web_plugin(self.clone()))
        {
            tracing::error!(%error, "web search could not take its keyed alternatives");
        }
    }

    /// Whether an app is connected now (tools read this for `available()`).
    pub fn is_connected(&self, id: &str) -> bool {
        self.inner
            .connected
            .read_unpoisoned()
            .get(id)
            .copied()
            .unwrap_or(false)
    }

    /// Whether an app's tools may be offered to the model now: it is connected, or
    /// `integrations.hide_disconnected_tools` is off.
    pub fn offers(&self, app: &str) -> bool {
        !self
            .parts()
            .config
            .current()
            .integrations
            .hide_disconnected_tools
            || self.is_connected(app)
    }

    /// One HTTP client setup for every app's calls (a time limit, Sentient's user agent).
    pub(crate) fn http() -> reqwest::Client {
        reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(20))
            .user_agent(concat!("Sentient/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default()
    }

    pub(crate) fn state(&self, id: &str) -> AppState {
        self.inner.states.get(id)
    }

    /// Saves where an app stands and tells every window.
    pub(crate) async fn set_state(&self, id: &str, state: AppState) {
        self.inner
            .connected
            .write_unpoisoned()
            .insert(id.to_owned(), state.status == "connected");
        if let Err(error) = self.inner.states.put(id, &state).await {
            tracing::warn!(%error, app = id, "an app's state could not be saved");
        }
        self.announce(id).await;
    }

    /// Publishes `integration.updated` with the app as it is now.
    pub async fn announce(&self, id: &str) {
        match self.get(id).await {
            Ok(integration) => self
                .parts()
                .bus
                .publish(DomainEvent::IntegrationUpdated(Box::new(integration))),
            Err(error) => tracing::debug!(%error, app = id, "no integration to announce"),
        }
    }

    /// Every app as the Integrations page lists it: the catalog, then each MCP server.
    pub async fn list(&self) -> Vec<Integration> {
        let mut out = Vec::new();
        for entry in catalog::entries() {
            out.push(self.integration(&entry).await);
        }
        out.push(self.webhook().await);
        out.extend(self.mcp().integrations());
        out
    }

    /// One app; 404 for an id nobody knows.
    pub async fn get(&self, id: &str) -> Result<Integration, IntegrationError> {
        if id == "webhook" {
            return Ok(self.webhook().await);
        }
        if let Some(entry) = catalog::entry(id) {
            return Ok(self.integration(&entry).await);
        }
        self.mcp()
            .integration(id)
            .ok_or_else(|| IntegrationError::UnknownApp(id.to_owned()))
    }

    async fn webhook(&self) -> Integration {
        let hooks = self.parts().hooks.hooks().await;
        let mut webhook = sentient_core::domain::integration::webhook_integration(&hooks);
        webhook.access = self.access_of("webhook").to_owned();
        webhook
    }

    pub(crate) fn access_of(&self, id: &str) -> &'static str {
        if self
            .parts()
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

    /// The registry's non-internal tools of an app.
    pub(crate) fn tools_of(
        &self,
        entry: &Entry,
    ) -> Vec<sentient_core::domain::tool_info::ToolInfo> {
        let catalog = self.parts().tools.catalog();
        match entry.tool_names {
            Some(names) => catalog
                .into_iter()
                .flat_map(|p| p.tools)
                .filter(|t| names.contains(&t.name.as_str()))
                .collect(),
            None => catalog
                .into_iter()
                .find(|p| p.id == entry.id)
                .map(|p| p.tools)
                .unwrap_or_default(),
        }
    }

    async fn integration(&self, entry: &Entry) -> Integration {
        let state = if entry.auth_type == AuthType::Builtin {
            AppState::connected(None)
        } else if entry.available {
            self.state(entry.id)
        } else {
            AppState::default()
        };
        let saved_client =
            matches!(entry.id, "gmail" | "gcalendar") && google::has_client(self).await;
        Integration {
            id: entry.id.to_owned(),
            display_name: entry.display_name.to_owned(),
            description: entry.description.to_owned(),
            category: entry.category.to_owned(),
            icon: entry.icon.to_owned(),
            auth_type: entry.auth_type.as_str().to_owned(),
            connected: state.status == "connected",
            account_label: state.account_label.clone(),
            status: state.status.clone(),
            error: state.error.clone(),
            setup: entry.setup(saved_client),
            privacy_filters: entry.filters(),
            triggers: entry.triggers.clone(),
            alternative_for: builtins::keyed::alternative_for(entry.id).map(str::to_owned),
            access: self.access_of(entry.id).to_owned(),
            tools: if entry.available {
                self.tools_of(entry)
            } else {
                Vec::new()
            },
        }
    }

    /// Saves Read only on or off for an app (the routes' `access`), then tells every window.
    pub async fn set_access(
        &self,
        id: &str,
        access: &Value,
    ) -> Result<Integration, IntegrationError> {
        let read_only = parse_access(access)?;
        self.get(id).await?;
        self.save_access(id, read_only).await?;
        self.announce(id).await;
        self.get(id).await
    }

    pub(crate) async fn save_access(
        &self,
        id: &str,
        read_only: bool,
    ) -> Result<(), IntegrationError> {
        let listed = self.access_of(id) == "read";
        if listed == read_only {
            return Ok(());
        }
        let id = id.to_owned();
        self.parts()
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

    /// Connects an app (`POST /api/integrations/{id}/connect`); `access` is saved first.
    pub async fn connect(
        &self,
        id: &str,
        request: ConnectRequest,
    ) -> Result<ConnectAnswer, IntegrationError> {
        let entry =
            catalog::entry(id).ok_or_else(|| IntegrationError::UnknownApp(id.to_owned()))?;
        if let Some(access) = &request.access {
            let read_only = parse_access(&Value::String(access.clone()))?;
            self.save_access(id, read_only).await?;
        }
        if !entry.available {
            return Err(IntegrationError::Invalid(not_available(entry.display_name)));
        }
        if entry.auth_type == AuthType::Builtin {
            return Ok(ConnectAnswer::Done(Box::new(self.get(id).await?)));
        }
        let _one_at_a_time = self.inner.changing.lock().await;
        let before = self.state(id);
        self.set_state(id, AppState::connecting(before.account_label.clone()))
            .await;
        if id == "github" && github::wants_device_flow(self, &request.fields) {
            return match github::start_device_flow(self).await {
                Ok(sign_in) => Ok(sign_in),
                Err(error) => {
                    self.set_state(
                        id,
                        AppState::failed(error.to_string(), before.account_label),
                    )
                    .await;
                    Err(error)
                }
            };
        }
        if matches!(id, "gmail" | "gcalendar") {
            return match google::start_sign_in(self, id, &request.fields).await {
                Ok(sign_in) => Ok(sign_in),
                Err(error) => {
                    self.set_state(
                        id,
                        AppState::failed(error.to_string(), before.account_label),
                    )
                    .await;
                    Err(error)
                }
            };
        }
        let outcome = match id {
            "email_imap" => self.email_imap().connect(&request.fields).await,
            "github" => github::connect(self, &request.fields).await,
            id if builtins::keyed::alternative_for(id).is_some() => {
                builtins::keyed::connect(self, id, &request.fields).await
            }
            _ => Err(IntegrationError::Invalid(format!(
                "Signing in to {} isn't available in this version of Sentient yet.",
                entry.display_name
            ))),
        };
        match outcome {
            Ok(account) => {
                self.set_state(id, AppState::connected(account)).await;
                self.start_feed(id);
                Ok(ConnectAnswer::Done(Box::new(self.get(id).await?)))
            }
            Err(error) => {
                // A failed attempt leaves an earlier working connection's secrets alone, but
                // the app shows what went wrong.
                self.set_state(
                    id,
                    AppState::failed(error.to_string(), before.account_label),
                )
                .await;
                Err(error)
            }
        }
    }

    /// Disconnects an app: its tokens are deleted, its cursors forgotten and the tasks that
    /// use it turned off.
    pub async fn disconnect(&self, id: &str) -> Result<Integration, IntegrationError> {
        let entry = catalog::entry(id);
        if let Some(name) = mcp::server_of(id) {
            self.mcp().set_enabled(name, &Value::Bool(false)).await?;
            return self.get(id).await;
        }
        let entry = entry.ok_or_else(|| IntegrationError::UnknownApp(id.to_owned()))?;
        if entry.auth_type == AuthType::Builtin {
            return self.get(id).await;
        }
        let _one_at_a_time = self.inner.changing.lock().await;
        self.feeds().stop(id);
        match id {
            "email_imap" => self.email_imap().forget().await?,
            "github" => github::forget(self).await?,
            "gmail" | "gcalendar" => google::forget(self, id).await?,
            id if builtins::keyed::alternative_for(id).is_some() => {
                builtins::keyed::forget(self, id).await?;
            }
            _ => {}
        }
        self.forget_feed(id).await?;
        self.set_state(id, AppState::default()).await;
        let paused = self.parts().tasks.disable_tasks_using(id).await;
        if !paused.is_empty() {
            tracing::info!(
                app = id,
                tasks = paused.len(),
                "tasks using a disconnected app were turned off"
            );
        }
        self.get(id).await
    }

    /// Checks a connection with one cheap request (`POST /api/integrations/{id}/test`).
    pub async fn test(&self, id: &str) -> Result<IntegrationTest, IntegrationError> {
        let integration = self.get(id).await?;
        if integration.auth_type == "builtin" {
            return Ok(IntegrationTest {
                ok: true,
                detail: format!("{} is built in and always on.", integration.display_name),
            });
        }
        if let Some(name) = mcp::server_of(id) {
            let tested = self.mcp().test(name).await?;
            return Ok(IntegrationTest {
                ok: tested.ok,
                detail: tested.error.unwrap_or_else(|| {
                    format!("Connected; the server offers {} tools.", tested.tools.len())
                }),
            });
        }
        if !integration.connected {
            return Ok(IntegrationTest {
                ok: false,
                detail: format!("{} isn't connected.", integration.display_name),
            });
        }
        let checked = match id {
            "email_imap" => self.email_imap().test().await,
            "github" => github::test(self).await,
            "gmail" | "gcalendar" => google::test(self, id).await,
            id if builtins::keyed::alternative_for(id).is_some() => {
                builtins::keyed::test(self, id).await
            }
            _ => Err(IntegrationError::Invalid(not_available(
                &integration.display_name,
            ))),
        };
        Ok(match checked {
            Ok(detail) => IntegrationTest { ok: true, detail },
            Err(error) => IntegrationTest {
                ok: false,
                detail: error.to_string(),
            },
        })
    }

    /// An app's privacy filters; 400 for an app that takes none.
    pub async fn privacy_filters(&self, id: &str) -> Result<FilterLists, IntegrationError> {
        let integration = self.get(id).await?;
        if !integration.privacy_filters.supported {
            return Err(IntegrationError::NoPrivacyFilters(integration.display_name));
        }
        Ok(self.inner.states.filters(id).await?)
    }

    pub async fn set_privacy_filters(
        &self,
        id: &str,
        filters: FilterLists,
    ) -> Result<(), IntegrationError> {
        let integration = self.get(id).await?;
        if !integration.privacy_filters.supported {
            return Err(IntegrationError::NoPrivacyFilters(integration.display_name));
        }
        let filters = filters.cleaned().map_err(IntegrationError::Invalid)?;
        self.inner.states.put_filters(id, &filters).await?;
        self.announce(id).await;
        Ok(())
    }

    /// Items the filters let through, masked: what a tool result of `source` may show.
    pub async fn screen(&self, source: &str, items: Vec<Value>) -> Vec<Value> {
        let filters = self.inner.states.filters(source).await.unwrap_or_default();
        let mask = self
            .parts()
            .config
            .current()
            .integrations
            .hide_one_time_codes;
        items
            .into_iter()
            .filter(|item| !filters.hides(item))
            .map(|mut item| {
                if mask && matches!(source, "gmail" | "email_imap") {
                    redact::mask_item(&mut item);
                }
                item
            })
            .collect()
    }

    /// Publishes new items of `source` once each as `source.items` (contract section 16):
    /// filtered items are recorded as seen and left out, the rest masked. Nothing is
    /// published while Stop everything is on (the items stay unseen for the next sync).
    /// Returns the items published.
    pub async fn emit_items(
        &self,
        source: &str,
        origin: &str,
        items: Vec<Value>,
        event: Option<&str>,
    ) -> Result<Vec<Value>, IntegrationError> {
        if self.parts().stop.is_stopped() || items.is_empty() {
            return Ok(Vec::new());
        }
        let filters = self.inner.states.filters(source).await?;
        let mask = self
            .parts()
            .config
            .current()
            .integrations
            .hide_one_time_codes;
        let mut by_event: Vec<(String, Vec<Value>)> = Vec::new();
        for mut item in items {
            let key = feeds::seen_key(source, &item);
            if self.parts().seen.seen_before(source, &key).await? || filters.hides(&item) {
                continue;
            }
            if mask && matches!(source, "gmail" | "email_imap") {
                redact::mask_item(&mut item);
            }
            let name = event
                .map(str::to_owned)
                .or_else(|| item.get("event").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_else(|| feeds::default_event(source).to_owned());
            match by_event.iter_mut().find(|(e, _)| *e == name) {
                Some((_, list)) => list.push(item),
                None => by_event.push((name, vec![item])),
            }
        }
        let mut published = Vec::new();
        for (event, items) in by_event {
            self.parts().bus.publish(DomainEvent::SourceItems {
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
