//! Sentient's services below the engine: everything that is not the window or tasks.
//! [`Services`] opens the home folder, the settings, the database and the bus, builds the
//! services in order, starts the gateway and hands the services out. Tasks is plugged in by
//! `sentient-engine` at the point [`Services::start`] asks for it ([`AreaParts`] in,
//! [`PluggedArea`] out), so nothing here compiles against it and changing tasks never rebuilds
//! this crate. There are no globals, so tests run several engines side by side.

pub mod binary_pages;
pub mod bootstrap;
pub mod devices;
pub mod doctor;
pub mod gateway;
pub mod heap;
pub mod hooks;
pub mod models;
pub mod notifications;
pub mod onboarding;
pub mod start_timings;

// The layers below, under the names the doors, the shell and the tests use.
pub use sentient_agent as agent;
pub use sentient_agent::tools;
pub use sentient_browser as browser;
pub use sentient_core::{
    OkReply, VERSION, bus, clock, config, domain, error, files, home, logging, secrets, stop,
    store, sync,
};
pub use sentient_integrations as integrations;
pub use sentient_llm as llm;
pub use sentient_llm::system;
pub use sentient_memory as memory;
pub use sentient_node as node;
pub use sentient_sandbox as sandbox;
pub use sentient_subagents as subagents;
pub use sentient_terminal as terminal;

use sentient_core::sync::MutexExt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sentient_agent::{Agent, AgentParts};
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::bus::{DomainEvent, EventBus};
use crate::clock::{SharedClock, SystemClock};
use crate::config::{ConfigError, ConfigService};
use crate::devices::Devices;
use crate::home::{Home, HomeError};
use crate::llm::queue::{LocalQueue, QueueSettings, SystemPower};
use crate::llm::usage::UsageLedger;
use crate::llm::{LlmService, RetryPolicy};
use crate::notifications::NotificationService;
use crate::secrets::SecretsService;
use crate::stop::StopService;
use crate::store::{Store, StoreError};
use crate::system::HardwareCache;
use crate::tools::ToolRegistry;

/// How long shutdown waits for cancelled jobs to record how they ended.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// How to start an engine. Everything is optional; the defaults are the real product's.
#[derive(Clone, Default)]
pub struct EngineOptions {
    /// The home folder; `None` resolves `SENTIENT_HOME`, then `~/.sentient`.
    pub home: Option<PathBuf>,
    /// The gateway port; `None` uses `gateway.port` from the settings, `Some(0)` picks a free one.
    pub port: Option<u16>,
    /// The gateway token; `None` makes a random one for this launch.
    pub token: Option<String>,
    /// Where the built window is (`ui/dist`); `None` looks beside the sources.
    pub ui_dir: Option<PathBuf>,
    /// The clock; `None` is the wall clock.
    pub clock: Option<SharedClock>,
    /// How model calls retry passing failures; `None` is the product's policy.
    pub llm_retry: Option<RetryPolicy>,
    /// The keychain service secrets are stored under; `None` is the product's (`sentient`).
    /// Tests use their own so they never touch a person's real keys.
    pub keychain_service: Option<String>,
    /// Where environment-variable key fallbacks are read; `None` is the process environment.
    /// Tests pass their own so a developer's `ANTHROPIC_API_KEY` never leaks into them.
    pub env_lookup: Option<secrets::EnvLookup>,
    /// Where outside services are (Google, GitHub, ...); `None` is the real services. Tests
    /// point it at stand-ins on loopback.
    pub endpoints: Option<sentient_integrations::Endpoints>,
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("home", &self.home)
            .field("port", &self.port)
            .field("ui_dir", &self.ui_dir)
            .field("keychain_service", &self.keychain_service)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Home(#[from] HomeError),
    #[error("Sentient's settings could not be loaded: {0}")]
    Config(#[from] ConfigError),
    #[error("Sentient's database could not be opened: {0}")]
    Store(#[from] StoreError),
    #[error(
        "Port {port} on 127.0.0.1 is busy ({source}). Another Sentient may be running; pass --port 0 to pick a free port."
    )]
    Bind { port: u16, source: std::io::Error },
    #[error("Sentient's apps could not be loaded: {0}")]
    Integrations(String),
}

/// What [`Services::start`] hands a plugged-in area (tasks) when its turn comes.
pub struct AreaParts {
    pub agent: Agent,
    pub notifications: NotificationService,
    pub shutdown: CancellationToken,
    /// Script jobs' checks and compile checks, through the sandbox.
    pub scripts: Arc<dyn sentient_core::domain::script::ScriptRunner>,
}

/// What a plugged-in area brings back: its routes (behind the token, with their own state), what
/// the apps ask of tasks, and its start (schedules and triggers), which runs before the apps
/// start so a trigger hears their first events.
pub struct PluggedArea {
    pub routes: gateway::AreaRoutes,
    pub dependent_tasks: Arc<dyn sentient_integrations::DependentTasks>,
    /// What a browser profile's rename or delete asks of the tasks that name it.
    pub browser_tasks: Arc<dyn sentient_browser::BrowserTasks>,
    pub start: futures::future::BoxFuture<'static, ()>,
}

impl sentient_integrations::HookTriggers for hooks::HookService {
    fn hooks(
        &self,
    ) -> futures::future::BoxFuture<'_, Vec<sentient_core::domain::integration::Hook>> {
        Box::pin(async move { self.list("").await.unwrap_or_default() })
    }
}

/// `GET /api/health`.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Health {
    pub ok: bool,
    pub version: String,
    pub name: String,
}

/// What the engine owns. The handles every service shares (home, store, bus, settings, stop,
/// model layer, clock) live in the agent, and the engine reads them from there.
struct Inner {
    secrets: SecretsService,
    hardware: Arc<HardwareCache>,
    files: files::Files,
    agent: Agent,
    memory: sentient_memory::MemoryService,
    notifications: NotificationService,
    models: models::ModelService,
    hooks: hooks::HookService,
    integrations: sentient_integrations::IntegrationService,
    sandbox: sentient_sandbox::SandboxService,
    terminal: Arc<sentient_terminal::TerminalService>,
    subagents: Arc<sentient_subagents::SubagentService>,
    /// Sign-ins to model plans (OpenRouter), finished through the apps' loopback listener.
    plan_sign_ins: Arc<models::connect::PlanSignIns>,
    browser: sentient_browser::BrowserService,
    devices: Arc<Devices>,
    /// The LAN door: the TLS listener for devices and its mDNS announcement.
    lan: gateway::lan_runtime::LanRuntime,
    token: String,
    addr: SocketAddr,
    ui_dir: Option<PathBuf>,
    shutdown: CancellationToken,
    gateway: Mutex<Option<JoinHandle<()>>>,
}

/// A running engine; cheap to clone (every clone is the same engine).
#[derive(Clone)]
pub struct Services {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("home", &self.home().root())
            .field("addr", &self.inner.addr)
            .finish()
    }
}

impl Services {
    /// Opens everything and starts the gateway; returns once its socket listens (a request
    /// sent then is answered as soon as the routes, built alongside, are ready). `plug`
    /// builds the plugged-in area (tasks) once the agent and the notifications exist; what it
    /// returns first comes back beside the services.
    pub async fn start<T>(
        options: EngineOptions,
        plug: impl FnOnce(AreaParts) -> (T, PluggedArea) + Send,
    ) -> Result<(Self, T), StartError> {
        let mut timings = start_timings::StartTimings::new();
        let own_routes = gateway::RoutesUnderWay::start();
        let home = Home::resolve(options.home)?;
        home.ensure_layout()?;
        timings.step("home folder");
        let clock = options.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let bus = EventBus::new(clock.clone());
        // The database opens (on sqlx's own thread) while the settings are read and checked.
        let opening = {
            let (path, clock) = (home.database(), clock.clone());
            tokio::spawn(async move { Store::open(&path, clock).await })
        };
        let config = ConfigService::load(&home.config_file(), bus.clone())?;
        timings.step("settings (the database opening alongside)");
        let store = match opening.await {
            Ok(opened) => opened?,
            Err(failed) => std::panic::resume_unwind(failed.into_panic()),
        };
        timings.step("database and migrations");
        let stop = StopService::load(store.clone(), bus.clone(), clock.clone()).await?;
        timings.step("stop state");
        let secrets = SecretsService::with_file(
            options
                .keychain_service
                .unwrap_or_else(|| secrets::KEYCHAIN_SERVICE.to_owned()),
            config.clone(),
            bus.clone(),
            options.env_lookup.unwrap_or_else(secrets::process_env),
            home.secrets_file(),
        );
        let queue = {
            let bus = bus.clone();
            LocalQueue::new(
                queue_settings(&config.current()),
                Arc::new(SystemPower::new()),
                Arc::new(move |busy| bus.publish(DomainEvent::ModelBusy(busy))),
            )
        };
        let llm = LlmService::new(
            config.clone(),
            stop.clone(),
            Arc::new(secrets.clone()),
            UsageLedger::new(store.clone(), clock.clone()),
            queue,
            options.llm_retry.unwrap_or_default(),
        );
        let hardware = Arc::new(HardwareCache::new(llm.ollama_base()));
        let files = files::Files::new(home.clone());
        timings.step("secrets, model queue, llm");
        let shutdown = CancellationToken::new();
        // The services, bottom up; each gets only the handles it needs.
        let agent = Agent::new(AgentParts {
            home: home.clone(),
            store: store.clone(),
            bus: bus.clone(),
            config: config.clone(),
            stop: stop.clone(),
            llm: llm.clone(),
            clock: clock.clone(),
        });
        let notifications = NotificationService::new(store.clone(), clock.clone(), bus.clone());
        // Scripts call tools through the agent; tasks and the code app hold only weak handles.
        let sandbox = sentient_sandbox::SandboxService::new(agent.clone());
        let (plugged, area) = plug(AreaParts {
            agent: agent.clone(),
            notifications: notifications.clone(),
            shutdown: shutdown.clone(),
            scripts: Arc::new(sandbox.handle()),
        });
        timings.step("agent, notifications, tasks");
        let memory = sentient_memory::MemoryService::new(sentient_memory::MemoryParts {
            store: store.clone(),
            bus: bus.clone(),
            config: config.clone(),
            llm: llm.clone(),
            clock: clock.clone(),
            notifier: Arc::new(notifications.clone()),
            stop: stop.clone(),
            workspace: home.workspace(),
            local_date: local_date(agent.clone()),
        });
        agent.attach_memory(Arc::new(memory.clone()));
        agent.add_flush_hook(Arc::new(memory.clone()));
        let memory_tools = sentient_memory::tools::plugin(memory.clone(), agent.sessions().clone());
        if let Err(error) = agent.tools().register(memory_tools) {
            tracing::error!(%error, "the memory app could not be registered");
        }
        timings.step("memory");
        let models = models::ModelService::new(
            config.clone(),
            llm.clone(),
            hardware.clone(),
            store.clone(),
            stop.clone(),
            shutdown.clone(),
        );
        let seen = Arc::new(sentient_core::seen::SeenItems::new(
            store.clone(),
            clock.clone(),
        ));
        let hooks = hooks::HookService::new(
            hooks::Hooks::load(store.clone(), clock.clone(), seen.clone()).await?,
            bus.clone(),
            stop.clone(),
            config.clone(),
            clock.clone(),
        );
        let integrations = sentient_integrations::IntegrationService::new(
            sentient_integrations::IntegrationParts {
                store: store.clone(),
                bus: bus.clone(),
                config: config.clone(),
                secrets: secrets.clone(),
                stop: stop.clone(),
                clock: clock.clone(),
                tools: agent.tools().clone(),
                seen,
                endpoints: options.endpoints.unwrap_or_default(),
                hooks: Arc::new(hooks.clone()),
                tasks: area.dependent_tasks,
                shutdown: shutdown.clone(),
            },
        )
        .await
        .map_err(|e| StartError::Integrations(e.to_string()))?;
        let plan_sign_ins =
            models::connect::PlanSignIns::start(integrations.clone(), secrets.clone());
        timings.step("models, hooks, apps");
        // The browser starts on its first call; here only its app is listed.
        let browser = sentient_browser::BrowserService::new(sentient_browser::BrowserParts {
            home: home.clone(),
            config: config.clone(),
            bus: bus.clone(),
            shutdown: shutdown.clone(),
            tasks: area.browser_tasks.clone(),
        });
        if let Err(error) = agent
            .tools()
            .register(sentient_browser::tools::plugin(browser.clone()))
        {
            tracing::error!(%error, "the browser app could not be registered");
        }
        if let Err(error) = agent
            .tools()
            .register(sentient_sandbox::tools::plugin(sandbox.handle()))
        {
            tracing::error!(%error, "the code app could not be registered");
        }
        // Commands on this computer: the tool holds only a weak handle, like the code app's.
        let terminal = Arc::new(sentient_terminal::TerminalService::new(agent.clone()));
        if let Err(error) = agent
            .tools()
            .register(sentient_terminal::tools::plugin(&terminal))
        {
            tracing::error!(%error, "the terminal app could not be registered");
        }
        // Helpers: the tools hold only a weak handle, like the terminal's.
        let subagents = Arc::new(sentient_subagents::SubagentService::new(
            agent.clone(),
            Arc::new(notifications.clone()),
        ));
        if let Err(error) = agent
            .tools()
            .register(sentient_subagents::tools::plugin(&subagents))
        {
            tracing::error!(%error, "the helpers app could not be registered");
        }
        {
            // Off the start's path: a write only when an earlier start left one running.
            let subagents = subagents.clone();
            tokio::spawn(async move { subagents.settle_interrupted().await });
        }
        let devices = Arc::new(Devices::new(
            store.clone(),
            clock.clone(),
            bus.clone(),
            config.clone(),
            &home,
        ));
        let device_tools = devices::tools::plugin(devices::tools::DeviceToolDeps {
            devices: devices.clone(),
            config: config.clone(),
            llm: llm.clone(),
        });
        if let Err(error) = agent.tools().register(device_tools) {
            tracing::error!(%error, "the devices app could not be registered");
        }
        timings.step("code, devices");

        let home_tls = home.root().join("tls");
        let port = options.port.unwrap_or(config.current().gateway.port);
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|source| StartError::Bind { port, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { port, source })?;
        timings.step("bind");
        let token = options.token.unwrap_or_else(new_token);
        let ui_dir = options
            .ui_dir
            .or_else(default_ui_dir)
            .filter(|d| d.join("index.html").is_file());

        let services = Self {
            inner: Arc::new(Inner {
                secrets,
                hardware,
                files,
                agent,
                memory,
                notifications,
                models,
                hooks,
                integrations,
                sandbox,
                terminal,
                subagents,
                plan_sign_ins,
                browser,
                devices,
                lan: gateway::lan_runtime::LanRuntime::new(home_tls),
                token,
                addr,
                ui_dir,
                shutdown,
                gateway: Mutex::new(None),
            }),
        };
        services.follow_queue_settings();
        area.start.await;
        timings.step("task schedules and triggers");
        services.start_memory_upkeep();
        services.integrations().start().await;
        timings.step("upkeep timers, apps started");
        services
            .inner
            .devices
            .follow_events(services.shutdown_token());
        gateway::lan_runtime::follow_settings(&services);
        let shutdown = services.inner.shutdown.clone();
        let for_routes = services.clone();
        let server = tokio::spawn(async move {
            // The socket listens already and connections wait in its queue, so start does not
            // wait for the routes, which are still being built on their own thread.
            let built = tokio::task::spawn_blocking(move || {
                gateway::router(for_routes, own_routes, area.routes)
            })
            .await;
            let app = match built {
                Ok(app) => app,
                Err(error) => {
                    tracing::error!(%error, "the gateway's routes could not be built");
                    return;
                }
            };
            // Start's temporary memory (most of it the routes' OpenAPI parts) is free now and
            // its code has run: both go back, and again whenever the engine goes quiet.
            tokio::spawn(binary_pages::hand_back_now_and_when_quiet(shutdown.clone()));
            // Streamed replies and live events go out as written, not held for ACKs.
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let serving = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(shutdown.cancelled_owned());
            if let Err(error) = serving.await {
                tracing::error!(%error, "the gateway stopped with an error");
            }
        });
        *services.inner.gateway.lock_unpoisoned() = Some(server);
        timings.step("gateway listening, routes finishing alongside");
        timings.finish();
        tracing::info!(addr = %addr, home = %services.home().root().display(), "engine started");
        Ok((services, plugged))
    }

    /// Stops everything in reverse order and waits for it: the gateway (and its sockets),
    /// running jobs, then the database.
    pub async fn shutdown(&self) {
        self.inner.shutdown.cancel();
        // Tool servers' process trees end with the engine.
        self.integrations().shutdown().await;
        // The browser closes its tabs first, so site storage (sign-ins) is written.
        self.browser().close().await;
        let server = self.inner.gateway.lock_unpoisoned().take();
        if let Some(server) = server
            && let Err(error) = server.await
        {
            tracing::error!(%error, "the gateway task failed while stopping");
        }
        self.stop().halt_everything().await;
        // Cancelled jobs record how they ended (a run's last step, a task still to plan) before
        // the database closes.
        let left = self.stop().jobs_ended_within(SHUTDOWN_GRACE).await;
        if left > 0 {
            tracing::warn!(left, "jobs still going when the database closed");
        }
        self.inner.lan.stop().await;
        self.store().close().await;
        tracing::info!("engine stopped");
    }

    pub fn health(&self) -> Health {
        Health {
            ok: true,
            version: VERSION.to_owned(),
            name: "sentient".to_owned(),
        }
    }

    pub fn version(&self) -> &'static str {
        VERSION
    }
    pub fn home(&self) -> &Home {
        self.inner.agent.home()
    }
    pub fn store(&self) -> &Store {
        self.inner.agent.store()
    }
    pub fn bus(&self) -> &EventBus {
        self.inner.agent.bus()
    }
    pub fn config(&self) -> &ConfigService {
        self.inner.agent.config()
    }
    pub fn stop(&self) -> &StopService {
        self.inner.agent.stop()
    }
    pub fn llm(&self) -> &LlmService {
        self.inner.agent.llm()
    }
    pub fn hardware(&self) -> &HardwareCache {
        &self.inner.hardware
    }
    /// The agent: the loop, chats, rules from chat and the tool registry.
    pub fn agent(&self) -> &Agent {
        &self.inner.agent
    }
    pub fn sessions(&self) -> &agent::sessions::Sessions {
        self.inner.agent.sessions()
    }
    pub fn files(&self) -> &files::Files {
        &self.inner.files
    }
    /// Memory: facts, the review inbox, summaries and the notes files.
    pub fn memory(&self) -> &sentient_memory::MemoryService {
        &self.inner.memory
    }

    /// Memory's upkeep: every `memory.purge_interval_minutes`, expired short-term facts and held
    /// ones nobody reviewed in time are deleted and facts missing a vector get one; every
    /// `memory.summarize_interval_minutes`, older parts of chats are summarized (both skipped
    /// while Stop everything is on); a new embedding model re-indexes every fact.
    fn start_memory_upkeep(&self) {
        let minutes = self.config().current().memory.purge_interval_minutes.max(1);
        let memory = self.memory().clone();
        self.stop().run_every(
            "memory purge",
            std::time::Duration::from_secs(u64::from(minutes) * 60),
            true,
            self.shutdown_token(),
            move || {
                let memory = memory.clone();
                async move {
                    if let Err(error) = memory.purge().await {
                        tracing::warn!(%error, "the memory purge failed");
                    }
                    // Facts written while the embedding model was away get their vectors.
                    memory.reindex(CancellationToken::new()).await;
                }
            },
        );
        let every = self
            .config()
            .current()
            .memory
            .summarize_interval_minutes
            .max(1);
        let memory = self.memory().clone();
        self.stop().run_every(
            "memory summaries",
            std::time::Duration::from_secs(u64::from(every) * 60),
            true,
            self.shutdown_token(),
            move || {
                let memory = memory.clone();
                async move {
                    if let Err(error) = memory.summarize_due().await {
                        tracing::warn!(%error, "summarizing past chats failed");
                    }
                }
            },
        );
        self.memory().follow_embedding_model(self.shutdown_token());
    }
    /// Apps: the catalog, connections, MCP servers and change feeds.
    pub fn integrations(&self) -> &sentient_integrations::IntegrationService {
        &self.inner.integrations
    }
    /// The browser: profiles, pages and the `browser` app.
    pub fn browser(&self) -> &sentient_browser::BrowserService {
        &self.inner.browser
    }
    /// Code execution: scripts and the `execute_code` tool.
    pub fn sandbox(&self) -> &sentient_sandbox::SandboxService {
        &self.inner.sandbox
    }
    /// Sign-ins to model plans (section 3, "Connecting plans").
    pub fn plan_sign_ins(&self) -> &models::connect::PlanSignIns {
        &self.inner.plan_sign_ins
    }

    /// Helpers: `delegate_task`, what runs now, and cancelling one.
    pub fn subagents(&self) -> &sentient_subagents::SubagentService {
        &self.inner.subagents
    }

    /// Commands on this computer: `terminal_run`, what runs now, and stopping it.
    pub fn terminal(&self) -> &sentient_terminal::TerminalService {
        &self.inner.terminal
    }
    /// Webhooks: the hooks and their calls.
    pub fn hooks(&self) -> &hooks::HookService {
        &self.inner.hooks
    }
    /// Settings > Models: providers, local models, roles, setups, the check-up.
    pub fn models(&self) -> &models::ModelService {
        &self.inner.models
    }
    /// The notifications feed.
    pub fn notifications(&self) -> &NotificationService {
        &self.inner.notifications
    }
    /// Paired devices, their connections and the LAN listener.
    pub fn devices(&self) -> &Devices {
        &self.inner.devices
    }
    /// The LAN listener devices on the network connect through.
    pub fn lan(&self) -> &gateway::lan_runtime::LanRuntime {
        &self.inner.lan
    }
    /// `GET /api/nodes/lan`.
    pub fn lan_status(&self) -> devices::model::LanStatus {
        self.inner.lan.status(&self.config().current().nodes)
    }
    /// `POST /api/nodes/pairing`: a code, with the LAN listener's addresses while it runs.
    pub fn create_pairing(&self) -> Result<devices::model::Pairing, devices::DeviceError> {
        self.devices()
            .create_pairing(&self.lan_status(), self.addr())
    }
    /// The agent's apps and tools.
    pub fn tools(&self) -> &ToolRegistry {
        self.inner.agent.tools()
    }

    /// The local-model queue applies `models.local_queue` and friends as soon as they change.
    fn follow_queue_settings(&self) {
        let queue = self.llm().queue().clone();
        self.follow_config(false, move |current| {
            queue.update_settings(queue_settings(&current));
            async {}
        });
    }

    /// Runs `apply` with the settings every time they are saved (and once now when `now`),
    /// one at a time, until shutdown.
    pub(crate) fn follow_config<F, Fut>(&self, now: bool, mut apply: F)
    where
        F: FnMut(Arc<config::Config>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let mut settings = self.config().watch();
        let shutdown = self.shutdown_token();
        tokio::spawn(async move {
            if now {
                let current = settings.borrow_and_update().clone();
                apply(current).await;
            }
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    changed = settings.changed() => {
                        if changed.is_err() {
                            break;
                        }
                        let current = settings.borrow_and_update().clone();
                        apply(current).await;
                    }
                }
            }
        });
    }

    pub fn secrets(&self) -> &SecretsService {
        &self.inner.secrets
    }
    pub fn clock(&self) -> &SharedClock {
        self.inner.agent.clock()
    }
    pub fn token(&self) -> &str {
        &self.inner.token
    }
    pub fn addr(&self) -> SocketAddr {
        self.inner.addr
    }
    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.inner.addr)
    }
    /// The address that opens the window in a browser; the token rides in the fragment,
    /// which browsers never send to a server, so it never lands in a request log.
    pub fn web_url(&self) -> String {
        format!("{}/#token={}", self.url(), self.inner.token)
    }
    pub fn ui_dir(&self) -> Option<&Path> {
        self.inner.ui_dir.as_deref()
    }
    /// Fires when the engine begins shutting down; long-lived loops select on it.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.inner.shutdown.clone()
    }

    /// `GET /api/bootstrap`.
    pub async fn bootstrap(&self) -> Result<bootstrap::Bootstrap, error::ApiError> {
        let config = self.config().current();
        let a = &config.assistant;
        Ok(bootstrap::Bootstrap {
            version: self.version().to_owned(),
            home: self.home().root().display().to_string(),
            assistant: bootstrap::BootstrapAssistant {
                name: a.name.clone(),
                user_name: a.user_name.clone(),
                timezone: a.timezone.clone(),
                location: a.location.clone(),
                language: a.language.clone(),
                onboarding_complete: a.onboarding_complete,
            },
            models: self.models().roles(),
            memory_enabled: bootstrap::BUILT.memory && config.memory.enabled,
            unread_notifications: self.notifications().feed().unread().await?,
            ui: bootstrap::BootstrapUi {
                theme: config.ui.theme,
                accent: config.ui.accent.clone(),
                launch_at_login: config.ui.launch_at_login,
                minimize_to_tray: config.ui.minimize_to_tray,
            },
            features: bootstrap::BootstrapFeatures {
                voice: bootstrap::BUILT.voice && config.voice.enabled,
                proactivity: bootstrap::BUILT.proactivity && config.proactivity.enabled,
            },
            stop: self.stop().state(),
        })
    }
}

fn queue_settings(config: &config::Config) -> QueueSettings {
    QueueSettings {
        enabled: config.models.local_queue,
        background_quiet: std::time::Duration::from_secs(u64::from(
            config.models.background_quiet_s,
        )),
        background_on_battery: config.models.background_on_battery,
    }
}

/// The person's calendar date at a moment, in their time zone (`assistant.timezone`).
fn local_date(agent: Agent) -> sentient_memory::LocalDate {
    Arc::new(move |now| {
        agent.user_timezone().parse::<chrono_tz::Tz>().map_or_else(
            |_| now.date_naive(),
            |tz| now.with_timezone(&tz).date_naive(),
        )
    })
}

/// A fresh 256-bit token for this launch.
fn new_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// The built window beside the sources (a development checkout), or `SENTIENT_UI_DIR`.
fn default_ui_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SENTIENT_UI_DIR") {
        return Some(PathBuf::from(dir));
    }
    let beside_sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/dist");
    beside_sources.canonicalize().ok()
}
