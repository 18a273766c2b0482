//! `BrowserService`: which profile is open, opening and closing it (on the first call, on a
//! switch, after `browser.idle_minutes`), the status the routes show, and the last snapshot's
//! refs that the tools' risk checks read without waiting on the browser.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use sentient_core::bus::EventBus;
use sentient_core::config::{BrowserConfig, BrowserProfileKind, ConfigService};
use sentient_core::domain::DomainEvent;
use sentient_core::home::Home;

use crate::engine;
use crate::profiles::{self, DEFAULT_PROFILE};
use crate::snapshot::Element;

pub use sentient_core::domain::browser::{BrowserFrame, BrowserStatus, TabInfo};

/// One profile as `GET /api/browser/profiles` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ProfileInfo {
    pub name: String,
    /// `launch` or `attach`.
    pub kind: String,
    pub engine: String,
    pub endpoint: String,
    pub notes: String,
    pub running: bool,
}

/// `GET /api/browser/profiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ProfileList {
    /// The open profile, or null while the browser is closed.
    pub active: Option<String>,
    pub profiles: Vec<ProfileInfo>,
}

/// The refs of the last snapshot, for the checks that run before a call (risk, secret fields).
#[derive(Debug, Clone, Default)]
pub struct LastSnapshot {
    pub url: String,
    pub elements: HashMap<String, Element>,
}

/// The handles the browser needs.
pub struct BrowserParts {
    pub home: Home,
    pub config: ConfigService,
    pub bus: EventBus,
    pub shutdown: CancellationToken,
    /// What a profile's rename or delete asks of the tasks that name it.
    pub tasks: Arc<dyn crate::tasks::BrowserTasks>,
}

/// When the last picture of the page went out, and whether a trailing one is on its way.
#[derive(Debug, Default)]
struct FrameClock {
    last: Option<Instant>,
    trailing: bool,
}

/// At most one picture of the page a second.
const FRAME_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

#[derive(Clone)]
pub struct BrowserService {
    inner: Arc<Inner>,
}

struct Inner {
    home: Home,
    config: ConfigService,
    tasks: Arc<dyn crate::tasks::BrowserTasks>,
    bus: EventBus,
    #[cfg(feature = "browser")]
    session: tokio::sync::Mutex<Option<crate::session::Session>>,
    last_snapshot: Mutex<LastSnapshot>,
    last_used: Mutex<Instant>,
    /// The status last sent as `browser.updated`, so only changes go out.
    published: Mutex<Option<BrowserStatus>>,
    frames: Mutex<FrameClock>,
    downloads: crate::downloads::Downloads,
    /// A page waiting for the person, if one is.
    handoff: Mutex<Option<crate::handoff::Handoff>>,
    /// An idle watch is running (one serves every profile opened after it).
    watching: std::sync::atomic::AtomicBool,
    shutdown: CancellationToken,
}

impl BrowserService {
    /// Nothing starts here: the browser launches on the first call.
    pub fn new(parts: BrowserParts) -> Self {
        let downloads =
            crate::downloads::Downloads::new(parts.home.root().join("files").join("downloads"));
        Self {
            inner: Arc::new(Inner {
                home: parts.home,
                config: parts.config,
                tasks: parts.tasks,
                bus: parts.bus,
                #[cfg(feature = "browser")]
                session: tokio::sync::Mutex::new(None),
                last_snapshot: Mutex::new(LastSnapshot::default()),
                last_used: Mutex::new(Instant::now()),
                published: Mutex::new(None),
                frames: Mutex::new(FrameClock::default()),
                downloads,
                handoff: Mutex::new(None),
                watching: std::sync::atomic::AtomicBool::new(false),
                shutdown: parts.shutdown,
            }),
        }
    }

    pub fn settings(&self) -> std::sync::Arc<sentient_core::config::Config> {
        self.inner.config.current()
    }

    pub fn home(&self) -> &Home {
        &self.inner.home
    }

    /// The files the browser downloaded, waiting to be reported.
    pub fn downloads(&self) -> &crate::downloads::Downloads {
        &self.inner.downloads
    }

    pub(crate) fn config(&self) -> &ConfigService {
        &self.inner.config
    }

    pub(crate) fn tasks(&self) -> &Arc<dyn crate::tasks::BrowserTasks> {
        &self.inner.tasks
    }

    /// Why the assistant can't use a browser now, or `None` when it can.
    pub fn unavailable_reason(&self) -> Option<String> {
        let config = self.settings();
        let browser = &config.browser;
        if !browser.enabled {
            return Some("The browser is turned off in Settings > Browser.".to_owned());
        }
        if !cfg!(feature = "browser") {
            return Some("This build of Sentient has no browser.".to_owned());
        }
        let attachable = browser
            .profiles
            .values()
            .any(|p| p.kind == BrowserProfileKind::Attach);
        if engine::find(browser.engine).is_none() && !attachable {
            return Some(engine::missing_message(browser.engine));
        }
        None
    }

    /// The profile a call uses: the run's (or the call's) when given, else `default`. An
    /// unknown name is refused with the list of profiles.
    pub fn resolve_profile(&self, wanted: Option<&str>) -> Result<String, String> {
        let config = self.settings();
        let name = wanted
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or(DEFAULT_PROFILE);
        if name == DEFAULT_PROFILE || config.browser.profiles.contains_key(name) {
            return Ok(name.to_owned());
        }
        let mut names: Vec<&str> = config.browser.profiles.keys().map(String::as_str).collect();
        if !names.contains(&DEFAULT_PROFILE) {
            names.insert(0, DEFAULT_PROFILE);
        }
        Err(format!(
            "There is no browser profile called {name}. The profiles are: {}.",
            names.join(", ")
        ))
    }

    pub fn last_snapshot(&self) -> LastSnapshot {
        self.inner
            .last_snapshot
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default()
    }

    pub fn set_last_snapshot(&self, snapshot: LastSnapshot) {
        if let Ok(mut last) = self.inner.last_snapshot.lock() {
            *last = snapshot;
        }
    }

    /// The element a ref named in the last snapshot.
    pub fn element(&self, reference: &str) -> Option<Element> {
        self.inner
            .last_snapshot
            .lock()
            .ok()
            .and_then(|s| s.elements.get(reference.trim()).cloned())
    }

    fn touch(&self) {
        if let Ok(mut used) = self.inner.last_used.lock() {
            *used = Instant::now();
        }
    }

    fn idle_for(&self) -> std::time::Duration {
        self.inner
            .last_used
            .lock()
            .map(|u| u.elapsed())
            .unwrap_or_default()
    }

    /// The status while nothing is open.
    fn closed_status(&self) -> BrowserStatus {
        let config = self.settings();
        let error = self.unavailable_reason();
        BrowserStatus {
            available: error.is_none(),
            running: false,
            engine: engine::find(config.browser.engine).map(|i| i.engine.to_owned()),
            headless: config.browser.headless,
            tabs: Vec::new(),
            error,
            profile: DEFAULT_PROFILE.to_owned(),
            attached: false,
            needs_you: None,
        }
    }

    /// The page step waiting for the person, if one is.
    pub fn needs_you(&self) -> Option<sentient_core::domain::browser::NeedsYou> {
        self.inner
            .handoff
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|h| h.needs_you.clone()))
    }

    pub(crate) fn handoff_cell(&self) -> &Mutex<Option<crate::handoff::Handoff>> {
        &self.inner.handoff
    }

    #[cfg(feature = "browser")]
    pub(crate) fn session_cell(&self) -> &tokio::sync::Mutex<Option<crate::session::Session>> {
        &self.inner.session
    }

    /// Ends the hand-off without resuming anything (the browser closed, the assistant acts
    /// in the page again, or the person took too long).
    pub(crate) fn drop_handoff(&self) -> Option<crate::handoff::Handoff> {
        self.inner.handoff.lock().ok().and_then(|mut h| h.take())
    }

    /// The status the routes and the window show.
    pub async fn status(&self) -> BrowserStatus {
        #[cfg(feature = "browser")]
        {
            let session = self.inner.session.lock().await;
            self.status_with(session.as_ref()).await
        }
        #[cfg(not(feature = "browser"))]
        self.closed_status()
    }

    /// Sends `browser.updated` when `status` differs from the last one sent.
    pub(crate) fn publish_status(&self, status: BrowserStatus) {
        let changed = self
            .inner
            .published
            .lock()
            .map(|mut last| {
                let changed = last.as_ref() != Some(&status);
                *last = Some(status.clone());
                changed
            })
            .unwrap_or(false);
        if changed {
            self.inner.bus.publish(DomainEvent::BrowserUpdated(status));
        }
    }

    /// The open profile's name, if the browser runs.
    pub async fn active_profile(&self) -> Option<String> {
        #[cfg(feature = "browser")]
        {
            let session = self.inner.session.lock().await;
            session
                .as_ref()
                .filter(|s| s.alive())
                .map(|s| s.profile.clone())
        }
        #[cfg(not(feature = "browser"))]
        None
    }

    /// Every profile (`default` first), and which one is open.
    pub async fn profiles(&self) -> ProfileList {
        let config = self.settings();
        let active = self.active_profile().await;
        let mut profiles: Vec<ProfileInfo> = Vec::new();
        let mut named: Vec<(&String, &sentient_core::config::BrowserProfile)> =
            config.browser.profiles.iter().collect();
        named.sort_by_key(|(name, _)| (name.as_str() != DEFAULT_PROFILE, name.to_string()));
        if !config.browser.profiles.contains_key(DEFAULT_PROFILE) {
            profiles.push(ProfileInfo {
                name: DEFAULT_PROFILE.to_owned(),
                kind: "launch".to_owned(),
                engine: String::new(),
                endpoint: String::new(),
                notes: String::new(),
                running: active.as_deref() == Some(DEFAULT_PROFILE),
            });
        }
        for (name, profile) in named {
            profiles.push(ProfileInfo {
                name: name.clone(),
                kind: match profile.kind {
                    BrowserProfileKind::Launch => "launch",
                    BrowserProfileKind::Attach => "attach",
                }
                .to_owned(),
                engine: profile.engine.clone(),
                endpoint: profile.endpoint.clone(),
                notes: profile.notes.clone(),
                running: active.as_deref() == Some(name.as_str()),
            });
        }
        ProfileList { active, profiles }
    }

    /// A JPEG of the active tab (about 1024 px wide, quality 55), for the live view; `Err`
    /// when the browser isn't running.
    pub async fn screenshot_jpeg(&self) -> Result<Vec<u8>, String> {
        #[cfg(feature = "browser")]
        {
            let session = self.inner.session.lock().await;
            let open = session
                .as_ref()
                .filter(|s| s.alive())
                .ok_or_else(|| "The browser isn't running.".to_owned())?;
            open.screenshot(
                chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat::Jpeg,
                Some(55),
            )
            .await
        }
        #[cfg(not(feature = "browser"))]
        Err("The browser isn't running.".to_owned())
    }

    /// Stops the page loading after a cancelled call (Stop everything, a run's Cancel); the
    /// browser stays open.
    pub async fn stop_loading(&self) {
        #[cfg(feature = "browser")]
        {
            let waited =
                tokio::time::timeout(std::time::Duration::from_secs(2), self.inner.session.lock())
                    .await;
            if let Ok(mut session) = waited
                && let Some(open) = session.as_mut()
            {
                open.stop_loading().await;
            }
        }
    }

    /// Closes the open profile (an attached one is only disconnected).
    pub async fn close(&self) {
        #[cfg(feature = "browser")]
        {
            // The lock is held until the browser has quit, so a call coming in meanwhile
            // waits instead of finding the profile's folder still in use.
            let mut open = self.inner.session.lock().await;
            if let Some(session) = open.take() {
                session.close().await;
            }
            drop(open);
            self.drop_handoff();
        }
        self.set_last_snapshot(LastSnapshot::default());
        self.publish_status(self.closed_status());
    }

    /// Closes the browser after `browser.idle_minutes` without a call (never a window the
    /// person opened); checked every 30 seconds while one is open.
    #[cfg(feature = "browser")]
    fn watch_idle(&self) {
        use std::sync::atomic::Ordering;
        if self.inner.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        let service = self.clone();
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            service.idle_watch(shutdown).await;
            service.inner.watching.store(false, Ordering::SeqCst);
        });
    }

    /// Every 30 s while a profile is open (more often for an idle time under two minutes):
    /// closes it after `browser.idle_minutes` without a call (never a window the person
    /// opened), notices a browser that went away, and forgets downloads nobody reported.
    #[cfg(feature = "browser")]
    async fn idle_watch(&self, shutdown: CancellationToken) {
        loop {
            let minutes = self.settings().browser.idle_minutes;
            let every = if minutes > 0.0 {
                (minutes * 60.0 / 4.0).clamp(0.5, 30.0)
            } else {
                30.0
            };
            tokio::select! {
                () = shutdown.cancelled() => {
                    self.close().await;
                    return;
                }
                () = tokio::time::sleep(std::time::Duration::from_secs_f64(every)) => {}
            }
            self.inner.downloads.sweep();
            let minutes = self.settings().browser.idle_minutes;
            let ended = {
                let session = self.inner.session.lock().await;
                match session.as_ref() {
                    None => return,
                    Some(open) if !open.alive() => true,
                    Some(open) => {
                        !open.visible
                            && minutes > 0.0
                            && self.idle_for().as_secs_f64() >= minutes * 60.0
                    }
                }
            };
            if ended {
                tracing::info!("closing the browser after its idle time, or it went away");
                self.close().await;
                return;
            }
        }
    }
}

#[cfg(feature = "browser")]
pub(crate) fn tab_list(tabs: Vec<(String, String)>, active: usize) -> Vec<TabInfo> {
    tabs.into_iter()
        .enumerate()
        .map(|(index, (url, title))| TabInfo {
            index,
            url,
            title,
            active: index == active,
        })
        .collect()
}

/// The pictures taken while an acting tool runs; they stop when this is dropped (the action
/// ended, or its call was cancelled).
#[cfg(feature = "browser")]
pub(crate) struct FramesDuring(tokio::task::JoinHandle<()>);

#[cfg(feature = "browser")]
impl Drop for FramesDuring {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(feature = "browser")]
mod open {
    use super::*;
    use crate::session::{Launch, Session};
    use sentient_agent::tools::{ProgressKind, ToolCtx};

    impl BrowserService {
        /// The status with `session` open (or none).
        pub(crate) async fn status_with(&self, session: Option<&Session>) -> BrowserStatus {
            let mut status = self.closed_status();
            if let Some(session) = session.filter(|s| s.alive()) {
                let (tabs, active) = session.tabs().await;
                status.running = true;
                status.profile = session.profile.clone();
                status.attached = session.attached;
                status.engine = session.engine.map(str::to_owned);
                status.headless = !session.visible;
                status.tabs = tab_list(tabs, active);
                status.needs_you = self.needs_you();
            }
            status
        }

        /// A picture of the page after an acting tool (or the person's input in the live view):
        /// `browser.frame`, and with `browser.live_view` the call's `frame` progress; at most one
        /// a second, with a trailing one so the last state is shown.
        pub(crate) async fn send_frame(&self, session: &Session, ctx: Option<&ToolCtx>) {
            let wait = {
                let Ok(mut clock) = self.inner.frames.lock() else {
                    return;
                };
                match clock.last.map(|l| l.elapsed()) {
                    Some(since) if since < FRAME_EVERY => {
                        if clock.trailing {
                            return;
                        }
                        clock.trailing = true;
                        Some(FRAME_EVERY - since)
                    }
                    _ => {
                        clock.last = Some(Instant::now());
                        None
                    }
                }
            };
            match wait {
                None => {
                    if let Some(frame) = session.frame().await {
                        if let Some(ctx) = ctx
                            && self.settings().browser.live_view
                        {
                            ctx.progress(ProgressKind::Frame, frame.image.clone());
                        }
                        self.inner.bus.publish(DomainEvent::BrowserFrame(frame));
                    }
                }
                Some(wait) => {
                    let service = self.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(wait).await;
                        let session = service.inner.session.lock().await;
                        if let Ok(mut clock) = service.inner.frames.lock() {
                            clock.trailing = false;
                            clock.last = Some(Instant::now());
                        }
                        if let Some(frame) = match session.as_ref() {
                            Some(open) => open.frame().await,
                            None => None,
                        } {
                            service.inner.bus.publish(DomainEvent::BrowserFrame(frame));
                        }
                    });
                }
            }
        }

        /// While an acting tool runs (a slow page loading), a picture of the page each second:
        /// `browser.frame`, and with `browser.live_view` the call's `frame` progress, until the
        /// returned guard drops.
        pub(crate) async fn frames_during(
            &self,
            session: &Session,
            ctx: &ToolCtx,
        ) -> Option<FramesDuring> {
            let page = session.page().ok()?.clone();
            // Read before the action, while the page answers (it stops answering while it
            // navigates); a tab just opened may not know its size yet, and then the window's is
            // used rather than asking again mid-navigation.
            let size = crate::session::view_size(&page)
                .await
                .unwrap_or(crate::session::WINDOW_SIZE);
            let progress = ctx.progress.clone();
            let service = self.clone();
            Some(FramesDuring(tokio::spawn(async move {
                loop {
                    tokio::time::sleep(FRAME_EVERY).await;
                    let asked = Instant::now();
                    let Some(frame) = crate::session::frame_of(&page, Some(size)).await else {
                        tracing::debug!(
                            ms = asked.elapsed().as_millis() as u64,
                            "no live picture this time"
                        );
                        continue;
                    };
                    tracing::debug!(ms = asked.elapsed().as_millis() as u64, "a live picture");
                    if let Ok(mut clock) = service.inner.frames.lock() {
                        clock.last = Some(Instant::now());
                    }
                    if service.settings().browser.live_view {
                        progress(sentient_agent::tools::ProgressUpdate {
                            kind: ProgressKind::Frame,
                            text: frame.image.clone(),
                            data: None,
                        });
                    }
                    service.inner.bus.publish(DomainEvent::BrowserFrame(frame));
                }
            })))
        }

        /// Runs `work` on the open session of `profile`, opening or switching to it first.
        pub async fn with_session<T>(
            &self,
            profile: &str,
            work: impl AsyncFnOnce(&mut Session) -> Result<T, String>,
        ) -> Result<T, String> {
            if let Some(reason) = self.unavailable_reason() {
                return Err(reason);
            }
            self.touch();
            let mut guard = self.inner.session.lock().await;
            let reusable = guard
                .as_ref()
                .is_some_and(|s| s.alive() && s.profile == profile);
            if !reusable {
                if let Some(open) = guard.take() {
                    if open.visible && open.alive() && open.profile != profile {
                        let name = open.profile.clone();
                        *guard = Some(open);
                        return Err(format!(
                            "The browser window for the {name} profile is open for signing in. Ask the person to close it first, then try again."
                        ));
                    }
                    open.close().await;
                }
                self.set_last_snapshot(LastSnapshot::default());
                *guard = Some(self.start(profile, None).await?);
                self.watch_idle();
            }
            let session = guard.as_mut().ok_or("The browser closed. Try again.")?;
            let result = work(session).await;
            self.touch();
            let status = self.status_with(guard.as_ref()).await;
            self.publish_status(status);
            result
        }

        /// Starts `profile` hidden (or visible with `shown`), attached or launched.
        async fn start(&self, profile: &str, shown: Option<bool>) -> Result<Session, String> {
            let config = self.settings();
            let browser: &BrowserConfig = &config.browser;
            let settings = browser.profiles.get(profile).cloned().unwrap_or_default();
            let downloads = self.inner.downloads.clone();
            downloads.sweep();
            if settings.kind == BrowserProfileKind::Attach {
                let endpoint = profiles::normalize_endpoint(&settings.endpoint)?;
                return Session::attach(profile, &endpoint, downloads).await;
            }
            let wanted = engine::engine_for(&settings.engine, browser.engine);
            let installed = engine::find(wanted).ok_or_else(|| engine::missing_message(wanted))?;
            let root = self.inner.home.root().join("browser");
            let data_dir = if profile == DEFAULT_PROFILE {
                profiles::default_folder(&root)
            } else {
                profiles::folder(&root, profile)
            };
            let headless = shown.map_or(browser.headless, |shown| !shown);
            Session::launch(
                profile,
                installed.engine,
                Launch {
                    executable: &installed.path,
                    data_dir: &data_dir,
                    headless,
                    download_staging: root.join("downloads-in-progress"),
                },
                downloads,
            )
            .await
        }

        /// `POST /api/browser/open`: the profile relaunched as a visible window at `url`, for
        /// the person to sign in (an attached one opens `url` in Sentient's tab).
        pub async fn open_for_person(
            &self,
            url: Option<&str>,
            profile: Option<&str>,
        ) -> Result<BrowserStatus, String> {
            if let Some(reason) = self.unavailable_reason() {
                return Err(reason);
            }
            let mut guard = self.inner.session.lock().await;
            let open_profile = guard.as_ref().map(|s| s.profile.clone());
            let profile = self.resolve_profile(profile.or(open_profile.as_deref()))?;
            let mut target = url
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_owned);
            if let Some(url) = &target {
                crate::urls::check(url, &self.settings().browser)?;
            }
            if let Some(open) = guard.take() {
                if target.is_none()
                    && let Ok(page) = open.page()
                {
                    target = page
                        .url()
                        .await
                        .ok()
                        .flatten()
                        .filter(|u| u.starts_with("http"));
                }
                open.close().await;
            }
            self.set_last_snapshot(LastSnapshot::default());
            let session = self.start(&profile, Some(true)).await?;
            if let Some(url) = target.as_deref() {
                session.goto(url).await?;
            }
            let status = self.status_with(Some(&session)).await;
            *guard = Some(session);
            drop(guard);
            self.touch();
            self.publish_status(status.clone());
            Ok(status)
        }
    }
}
