//! [`IntegrationService`]: what the routes and other areas call (connect, disconnect, test,
//! access and filters, the Integration objects, feeds, polls and tool servers). It builds each
//! app with the narrow [`AppCtx`] and keeps only what it owns: the apps' parts and one change
//! per app at a time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use futures::future::BoxFuture;
use serde_json::Value;
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
use sentient_core::sync::MutexExt;

use crate::builtins::{self, Builtins};
use crate::catalog::{self, AuthType, Entry};
use crate::ctx::{AppCtx, CtxParts, parse_access};
#[cfg(feature = "email")]
use crate::email_imap::EmailImap;
use crate::emit::ItemsDoor;
use crate::endpoints::Endpoints;
use crate::error::IntegrationError;
#[cfg(any(feature = "email", feature = "google"))]
use crate::feed::Feed;
use crate::feeds::{FeedStatus, FeedSyncReply, Feeds};
#[cfg(feature = "google")]
use crate::gcalendar::CalendarFeed;
#[cfg(feature = "github")]
use crate::github;
#[cfg(feature = "google")]
use crate::gmail::GmailFeed;
#[cfg(feature = "google")]
use crate::google;
#[cfg(feature = "mcp")]
use crate::mcp::{self, McpManager};
#[cfg(any(feature = "google", feature = "mcp"))]
use crate::oauth::{OAuthListener, Pending, SignIns};
use crate::privacy::FilterLists;
use crate::state::{AppState, StateStore};
use crate::threads::{PollStatus, Polls, RecentThreads};
use crate::wire::{ConnectAnswer, ConnectRequest, IntegrationTest, MailServers, not_available};

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
    apps: AppCtx,
    bus: EventBus,
    tools: ToolRegistry,
    hooks: Arc<dyn HookTriggers>,
    tasks: Arc<dyn DependentTasks>,
    /// Apps being connected or changed, one change per app at a time.
    changing: tokio::sync::Mutex<()>,
    /// Each app's state before a connect still unfinished, for a cancel to go back to.
    attempts: Mutex<HashMap<String, AppState>>,
    #[cfg(feature = "mcp")]
    mcp: McpManager,
    #[cfg(feature = "email")]
    imap: Arc<EmailImap>,
    feeds: Arc<Feeds>,
    #[cfg(feature = "google")]
    oauth: OAuthListener,
    /// Who finishes sign-ins to model plans (`plan:` apps, section 3): the models service.
    #[cfg(feature = "google")]
    plan_sign_ins: Mutex<Option<Weak<dyn SignIns>>>,
    polls: Polls,
    builtins: Arc<Builtins>,
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

impl IntegrationService {
    pub async fn new(parts: IntegrationParts) -> Result<Self, IntegrationError> {
        let states = StateStore::load(parts.store.clone(), parts.clock.clone()).await?;
        let IntegrationParts {
            store,
            bus,
            config,
            secrets,
            stop,
            clock,
            tools,
            seen,
            endpoints,
            hooks,
            tasks,
            shutdown,
        } = parts;
        let inner = Arc::new_cyclic(|weak: &Weak<Inner>| {
            let announcer = weak.clone();
            let apps = AppCtx::new(CtxParts {
                store,
                secrets,
                endpoints,
                config,
                clock,
                shutdown,
                states,
                announce: Arc::new(move |id: String| -> BoxFuture<'static, ()> {
                    let service = announcer
                        .upgrade()
                        .map(|inner| IntegrationService { inner });
                    Box::pin(async move {
                        if let Some(service) = service {
                            service.announce(&id).await;
                        }
                    })
                }),
            });
            #[cfg(any(feature = "google", feature = "mcp"))]
            let oauth = {
                let sign_ins: Weak<dyn SignIns> = weak.clone();
                OAuthListener::new(apps.clone(), sign_ins)
            };
            let door = Arc::new(ItemsDoor::new(apps.clone(), seen, stop, bus.clone()));
            #[cfg(feature = "email")]
            let imap = Arc::new(EmailImap::new(apps.clone()));
            // In the order `GET /api/integrations/feeds` lists them.
            #[cfg(any(feature = "email", feature = "google"))]
            let app_feeds: Vec<Arc<dyn Feed>> = vec![
                #[cfg(feature = "google")]
                Arc::new(GmailFeed { apps: apps.clone() }),
                #[cfg(feature = "google")]
                Arc::new(CalendarFeed { apps: apps.clone() }),
                #[cfg(feature = "email")]
                imap.clone(),
            ];
            #[cfg(not(any(feature = "email", feature = "google")))]
            let app_feeds = Vec::new();
            Inner {
                #[cfg(feature = "mcp")]
                mcp: McpManager::new(apps.clone(), tools.clone(), oauth.clone()),
                feeds: Arc::new(Feeds::new(apps.clone(), door.clone(), app_feeds)),
                polls: Polls::new(
                    apps.clone(),
                    door,
                    #[cfg(feature = "email")]
                    imap.clone(),
                ),
                builtins: Arc::new(Builtins::new(apps.clone())),
                #[cfg(feature = "email")]
                imap,
                #[cfg(feature = "google")]
                oauth,
                #[cfg(feature = "google")]
                plan_sign_ins: Mutex::default(),
                apps,
                bus,
                tools,
                hooks,
                tasks,
                changing: tokio::sync::Mutex::new(()),
                attempts: Mutex::default(),
            }
        });
        let service = Self { inner };
        service.register_app_tools();
        Ok(service)
    }

    /// Starts a sign-in to a model plan (`app` is `plan:<provider>:<id>`) on the shared loopback
    /// listener: the callback address with the sign-in's `state` in it (OpenRouter hands the
    /// code back to that address as it was given), the `state`, and the PKCE pair.
    #[cfg(feature = "google")]
    pub async fn begin_plan_sign_in(
        &self,
        app: &str,
    ) -> Result<(String, String, crate::oauth::Pkce), IntegrationError> {
        let redirect = self.inner.oauth.redirect_uri().await?;
        let pkce = crate::oauth::Pkce::new();
        let state = self
            .inner
            .oauth
            .begin(app, pkce.verifier.clone(), redirect.clone());
        Ok((format!("{redirect}?state={state}"), state, pkce))
    }

    /// Who finishes the `plan:` sign-ins (the models service, which outlives this).
    #[cfg(feature = "google")]
    pub fn set_plan_sign_ins(&self, handler: Weak<dyn SignIns>) {
        *self.inner.plan_sign_ins.lock_unpoisoned() = Some(handler);
    }

    /// The apps' narrow handle.
    pub fn apps(&self) -> &AppCtx {
        &self.inner.apps
    }

    #[cfg(feature = "mcp")]
    pub fn mcp(&self) -> &McpManager {
        &self.inner.mcp
    }

    #[cfg(feature = "email")]
    pub fn email_imap(&self) -> &EmailImap {
        &self.inner.imap
    }

    /// Starts what runs in the background: MCP servers that are on, and the change feeds of
    /// connected apps.
    pub async fn start(&self) {
        #[cfg(feature = "mcp")]
        self.mcp().start_all().await;
        self.inner.feeds.start_feeds();
    }

    /// Stops MCP servers (their whole process trees) and feeds; called on quit.
    pub async fn shutdown(&self) {
        #[cfg(feature = "mcp")]
        self.mcp().stop_all().await;
    }

    fn register_app_tools(&self) {
        #[cfg(any(feature = "email", feature = "google", feature = "github"))]
        let apps = self.apps();
        let app_plugins = vec![
            #[cfg(feature = "google")]
            crate::gmail::plugin(apps.clone()),
            #[cfg(feature = "google")]
            crate::gcalendar::plugin(apps.clone()),
            #[cfg(feature = "email")]
            crate::email_imap::tools::plugin(apps.clone(), self.inner.imap.clone()),
            #[cfg(feature = "github")]
            github::tools::plugin(apps.clone()),
        ];
        for plugin in app_plugins
            .into_iter()
            .chain(builtins::plugins(&self.inner.builtins))
        {
            if let Err(error) = self.inner.tools.register(plugin) {
                tracing::error!(%error, "an app's tools could not be registered");
            }
        }
        // Web search uses a keyed alternative while one is connected.
        if let Err(error) = self.inner.tools.replace(builtins::search_tool::web_plugin(
            self.inner.builtins.clone(),
        )) {
            tracing::error!(%error, "web search could not take its keyed alternatives");
        }
    }

    /// Whether an app is connected now.
    pub fn is_connected(&self, id: &str) -> bool {
        self.apps().is_connected(id)
    }

    /// Publishes `integration.updated` with the app as it is now.
    pub async fn announce(&self, id: &str) {
        match self.get(id).await {
            Ok(integration) => {
                // However a connect finished (here, or a sign-in in the background), there is
                // nothing left for a cancel to go back to.
                if integration.connected {
                    self.inner.attempts.lock_unpoisoned().remove(id);
                }
                self.inner
                    .bus
                    .publish(DomainEvent::IntegrationUpdated(Box::new(integration)));
            }
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
        #[cfg(feature = "mcp")]
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
        #[cfg(feature = "mcp")]
        if let Some(integration) = self.mcp().integration(id) {
            return Ok(integration);
        }
        Err(IntegrationError::UnknownApp(id.to_owned()))
    }

    async fn webhook(&self) -> Integration {
        let hooks = self.inner.hooks.hooks().await;
        let mut webhook = sentient_core::domain::integration::webhook_integration(&hooks);
        webhook.access = self.apps().access_of("webhook").to_owned();
        webhook
    }

    /// The registry's non-internal tools of an app.
    fn tools_of(&self, entry: &Entry) -> Vec<sentient_core::domain::tool_info::ToolInfo> {
        let catalog = self.inner.tools.catalog();
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
            self.apps().state(entry.id)
        } else {
            AppState::default()
        };
        #[cfg(feature = "google")]
        let saved_client =
            matches!(entry.id, "gmail" | "gcalendar") && google::has_client(self.apps()).await;
        #[cfg(not(feature = "google"))]
        let saved_client = false;
        #[allow(unused_mut)]
        let mut setup = entry.setup(saved_client);
        #[cfg(feature = "google")]
        if matches!(entry.id, "gmail" | "gcalendar") && google::has_built_in_client() {
            google::BUILT_IN_STEPS.clone_into(&mut setup.instructions_md);
        }
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
            setup,
            privacy_filters: entry.filters(),
            triggers: entry.triggers.clone(),
            alternative_for: builtins::keyed::alternative_for(entry.id).map(str::to_owned),
            access: self.apps().access_of(entry.id).to_owned(),
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
        self.apps().save_access(id, read_only).await?;
        self.announce(id).await;
        self.get(id).await
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
            self.apps().save_access(id, read_only).await?;
        }
        if !entry.available {
            return Err(IntegrationError::Invalid(not_available(entry.display_name)));
        }
        if entry.auth_type == AuthType::Builtin {
            return Ok(ConnectAnswer::Done(Box::new(self.get(id).await?)));
        }
        let _one_at_a_time = self.inner.changing.lock().await;
        let apps = self.apps();
        let before = apps.state(id);
        // A retry after a failed attempt still goes back to the state before the first one.
        self.inner
            .attempts
            .lock_unpoisoned()
            .entry(id.to_owned())
            .or_insert_with(|| before.clone());
        apps.set_state(id, AppState::connecting(before.account_label.clone()))
            .await;
        #[cfg(feature = "github")]
        if id == "github" && github::wants_device_flow(apps, &request.fields) {
            return match github::start_device_flow(apps).await {
                Ok(sign_in) => Ok(sign_in),
                Err(error) => {
                    apps.set_state(
                        id,
                        AppState::failed(error.to_string(), before.account_label),
                    )
                    .await;
                    Err(error)
                }
            };
        }
        #[cfg(feature = "google")]
        if matches!(id, "gmail" | "gcalendar") {
            return match google::start_sign_in(apps, &self.inner.oauth, id, &request.fields).await {
                Ok(sign_in) => Ok(sign_in),
                Err(error) => {
                    apps.set_state(
                        id,
                        AppState::failed(error.to_string(), before.account_label),
                    )
                    .await;
                    Err(error)
                }
            };
        }
        let outcome = match id {
            #[cfg(feature = "email")]
            "email_imap" => self.email_imap().connect(&request.fields).await,
            #[cfg(feature = "github")]
            "github" => github::connect(apps, &request.fields).await,
            id if builtins::keyed::alternative_for(id).is_some() => {
                builtins::keyed::connect(apps, id, &request.fields).await
            }
            _ => Err(IntegrationError::Invalid(format!(
                "Signing in to {} isn't available in this version of Sentient yet.",
                entry.display_name
            ))),
        };
        match outcome {
            Ok(account) => {
                apps.set_state(id, AppState::connected(account)).await;
                self.inner.feeds.start_feed(id);
                Ok(ConnectAnswer::Done(Box::new(self.get(id).await?)))
            }
            Err(error) => {
                // A failed attempt leaves an earlier working connection's secrets alone, but
                // the app shows what went wrong.
                apps.set_state(
                    id,
                    AppState::failed(error.to_string(), before.account_label),
                )
                .await;
                Err(error)
            }
        }
    }

    /// A connect the person gave up on (`POST /api/integrations/{id}/cancel`): a sign-in
    /// still waiting for the browser is dropped and the app goes back to how it was before
    /// (connected, or Not connected), never to Error.
    pub async fn cancel_connect(&self, id: &str) -> Result<Integration, IntegrationError> {
        let entry =
            catalog::entry(id).ok_or_else(|| IntegrationError::UnknownApp(id.to_owned()))?;
        if entry.auth_type != AuthType::Builtin {
            let _one_at_a_time = self.inner.changing.lock().await;
            #[cfg(feature = "google")]
            self.inner.oauth.cancel(id);
            self.inner.restore(id).await;
        }
        self.get(id).await
    }

    /// The servers of a mail address (`GET /api/integrations/email/discover`).
    pub async fn discover_email(&self, address: &str) -> Result<MailServers, IntegrationError> {
        #[cfg(feature = "email")]
        return self.email_imap().discover(address).await;
        #[cfg(not(feature = "email"))]
        {
            let _ = address;
            Err(IntegrationError::Invalid(not_available("Email (IMAP)")))
        }
    }

    /// Disconnects an app: its tokens are deleted, its cursors forgotten and the tasks that
    /// use it turned off.
    pub async fn disconnect(&self, id: &str) -> Result<Integration, IntegrationError> {
        #[cfg(feature = "mcp")]
        if let Some(name) = mcp::server_of(id) {
            self.mcp().set_enabled(name, &Value::Bool(false)).await?;
            return self.get(id).await;
        }
        let entry =
            catalog::entry(id).ok_or_else(|| IntegrationError::UnknownApp(id.to_owned()))?;
        if entry.auth_type == AuthType::Builtin {
            return self.get(id).await;
        }
        let _one_at_a_time = self.inner.changing.lock().await;
        self.inner.attempts.lock_unpoisoned().remove(id);
        self.inner.feeds.stop(id);
        let apps = self.apps();
        match id {
            #[cfg(feature = "email")]
            "email_imap" => self.email_imap().forget().await?,
            #[cfg(feature = "github")]
            "github" => github::forget(apps).await?,
            #[cfg(feature = "google")]
            "gmail" | "gcalendar" => google::forget(apps, &self.inner.oauth, id).await?,
            id if builtins::keyed::alternative_for(id).is_some() => {
                builtins::keyed::forget(apps, id).await?;
            }
            _ => {}
        }
        self.inner.feeds.forget_feed(id).await?;
        apps.set_state(id, AppState::default()).await;
        let paused = self.inner.tasks.disable_tasks_using(id).await;
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
        #[cfg(feature = "mcp")]
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
            #[cfg(feature = "email")]
            "email_imap" => self.email_imap().test().await,
            #[cfg(feature = "github")]
            "github" => github::test(self.apps()).await,
            #[cfg(feature = "google")]
            "gmail" | "gcalendar" => google::test(self.apps(), id).await,
            id if builtins::keyed::alternative_for(id).is_some() => {
                builtins::keyed::test(self.apps(), id).await
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
        self.apps().filters(id).await
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
        let filters = filters
            .cleaned()
            .map_err(|error| IntegrationError::Invalid(error.to_string()))?;
        self.apps().put_filters(id, &filters).await?;
        self.announce(id).await;
        Ok(())
    }

    /// Items the filters let through, masked: what a tool result of `source` may show.
    pub async fn screen(&self, source: &str, items: Vec<Value>) -> Vec<Value> {
        self.apps().screen(source, items).await
    }

    /// Publishes new items of `source` once each as `source.items` (see [`ItemsDoor::emit`]).
    pub async fn emit_items(
        &self,
        source: &str,
        origin: &str,
        items: Vec<Value>,
        event: Option<&str>,
    ) -> Result<Vec<Value>, IntegrationError> {
        self.inner
            .feeds
            .door()
            .emit(source, origin, items, event)
            .await
    }

    /// `GET /api/integrations/feeds`.
    pub async fn feed_status(&self) -> Vec<FeedStatus> {
        self.inner.feeds.feed_status().await
    }

    /// `POST /api/integrations/feeds/{source}/sync`.
    pub async fn sync_feed(&self, source: &str) -> Result<FeedSyncReply, IntegrationError> {
        self.inner.feeds.sync_feed(source).await
    }

    /// A change feed keeps `source` current, so timer polling can skip it.
    pub async fn feed_active(&self, source: &str) -> bool {
        self.inner.feeds.feed_active(source).await
    }

    /// See [`Polls::poll_source`].
    pub async fn poll_source(
        &self,
        source: &str,
        since: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<Vec<Value>, IntegrationError> {
        self.inner.polls.poll_source(source, since).await
    }

    pub fn poll_status(&self, source: &str) -> PollStatus {
        self.inner.polls.poll_status(source)
    }

    /// See [`Polls::recent_threads`].
    pub async fn recent_threads(
        &self,
        source: &str,
        newer_than_days: i64,
        idle_days: i64,
        limit: usize,
    ) -> Result<RecentThreads, IntegrationError> {
        self.inner
            .polls
            .recent_threads(source, newer_than_days, idle_days, limit)
            .await
    }
}

impl Inner {
    /// Puts an app whose connect was cancelled back as it was before the attempt. An app
    /// with no attempt on record is left alone unless it is stuck connecting (an attempt
    /// from before a restart).
    async fn restore(&self, id: &str) {
        let before = self.attempts.lock_unpoisoned().remove(id);
        let now = self.apps.state(id);
        let back = match before {
            Some(before) if before.status == "connected" || before.status == "error" => before,
            Some(_) => AppState::default(),
            None if now.status == "connecting" => AppState::default(),
            None => return,
        };
        self.apps.set_state(id, back).await;
    }
}

#[cfg(feature = "google")]
impl Inner {
    fn plan_handler(&self) -> Option<Arc<dyn SignIns>> {
        self.plan_sign_ins.lock_unpoisoned().as_ref()?.upgrade()
    }
}

/// The browser's return, for every app that signs in through the loopback listener.
#[cfg(any(feature = "google", feature = "mcp"))]
impl SignIns for Inner {
    fn finish<'a>(
        &'a self,
        pending: &'a Pending,
        code: &'a str,
    ) -> BoxFuture<'a, Result<(), IntegrationError>> {
        Box::pin(async move {
            #[cfg(feature = "google")]
            if pending.app.starts_with("plan:") {
                return match self.plan_handler() {
                    Some(handler) => handler.finish(pending, code).await,
                    None => Err(IntegrationError::UnknownApp(pending.app.clone())),
                };
            }
            #[cfg(feature = "mcp")]
            if let Some(server) = pending.app.strip_prefix("mcp:") {
                return self.mcp.finish_sign_in(server, pending, code).await;
            }
            #[cfg(feature = "google")]
            {
                google::finish_sign_in(&self.apps, pending, code).await?;
                self.feeds.start_feed(&pending.app);
                Ok(())
            }
            #[cfg(not(feature = "google"))]
            {
                let _ = code;
                Err(IntegrationError::UnknownApp(pending.app.clone()))
            }
        })
    }

    fn cancelled<'a>(&'a self, app: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            #[cfg(feature = "google")]
            if app.starts_with("plan:") {
                if let Some(handler) = self.plan_handler() {
                    handler.cancelled(app).await;
                }
                return;
            }
            #[cfg(feature = "mcp")]
            if let Some(server) = app.strip_prefix("mcp:") {
                self.mcp
                    .sign_in_failed(server, "The sign-in was cancelled.")
                    .await;
                return;
            }
            self.restore(app).await;
        })
    }

    fn failed<'a>(&'a self, app: &'a str, text: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            #[cfg(feature = "google")]
            if app.starts_with("plan:") {
                if let Some(handler) = self.plan_handler() {
                    handler.failed(app, text).await;
                }
                return;
            }
            #[cfg(feature = "mcp")]
            if let Some(server) = app.strip_prefix("mcp:") {
                self.mcp.sign_in_failed(server, text).await;
                return;
            }
            let label = self.apps.state(app).account_label;
            self.apps
                .set_state(app, AppState::failed(text.to_owned(), label))
                .await;
        })
    }
}
