//! One open profile: the browser process (or the connection to a browser the person started),
//! the tabs Sentient follows, and the page actions, over CDP through chromiumoxide.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::{
    CancelDownloadParams, DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::input::{DispatchKeyEventParams, DispatchKeyEventType};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, DialogType, EventJavascriptDialogOpening, GetNavigationHistoryParams,
    HandleJavaScriptDialogParams, NavigateToHistoryEntryParams,
};
use chromiumoxide::page::ScreenshotParams;
use chromiumoxide::{Browser, BrowserConfig, Page};
use futures::StreamExt;
use serde_json::Value;
use tokio::task::JoinHandle;

use crate::downloads::{CANCEL_LIMIT, Downloads};
use crate::snapshot::{COLLECTOR, PageFacts};

/// Why a page action failed, as a sentence for the model.
pub type ActionError = String;

/// How long one page action may take before it is given up.
const ACTION_TIMEOUT: Duration = Duration::from_secs(30);
/// The browser window's size in CSS pixels: the live view's picture when a page can't say its own.
pub(crate) const WINDOW_SIZE: (f64, f64) = (1280.0, 900.0);
/// How long the page may take to say its size: it says nothing while a navigation is on its way.
const SIZE_WAIT: Duration = Duration::from_secs(2);
/// How long the first tab of a launched browser may take to settle on a blank page.
const SETTLE_WAIT: Duration = Duration::from_secs(5);
/// How long one picture of a page may take.
const FRAME_WAIT: Duration = Duration::from_secs(3);

/// An open profile.
pub struct Session {
    pub profile: String,
    /// `msedge`, `chrome` or `chromium` for a launched browser; `None` while attached.
    pub engine: Option<&'static str>,
    pub attached: bool,
    /// Opened by the person to sign in: visible, never closed by a switch.
    pub visible: bool,
    /// Shared with the download watch, which cancels saves that run too long.
    browser: Arc<Browser>,
    handler: JoinHandle<()>,
    downloads_watch: Option<JoinHandle<()>>,
    /// The tabs Sentient follows, in the order they opened.
    tabs: Vec<Page>,
    /// Their target ids (a tab's main frame has the same id), for the download watch.
    own_targets: Arc<Mutex<Vec<String>>>,
    active: usize,
    /// Dialogs the pages showed since the last action asked.
    dialogs: Arc<Mutex<Vec<String>>>,
    /// Whether a `confirm()` is accepted now: only during a click approved as send.
    accept_confirm: Arc<AtomicBool>,
}

/// How a launched browser starts.
pub struct Launch<'a> {
    pub executable: &'a Path,
    pub data_dir: &'a Path,
    pub headless: bool,
    /// Where the browser writes downloads before they move to Files (emptied at launch).
    pub download_staging: PathBuf,
}

impl Session {
    /// Starts the installed browser on `launch.data_dir` with one tab.
    pub async fn launch(
        profile: &str,
        engine: &'static str,
        launch: Launch<'_>,
        downloads: Downloads,
    ) -> Result<Self, ActionError> {
        std::fs::create_dir_all(launch.data_dir)
            .map_err(|e| format!("The browser profile's folder could not be made ({e})."))?;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(launch.executable)
            .user_data_dir(launch.data_dir)
            .respect_https_errors()
            .window_size(WINDOW_SIZE.0 as u32, WINDOW_SIZE.1 as u32)
            .viewport(None)
            .launch_timeout(Duration::from_secs(20))
            // chromiumoxide adds the leading dashes itself: a flag written with them reached
            // Chromium as `----flag` and was ignored.
            // Site storage (where many sites keep a sign-in) is written within a second.
            .arg("enable-aggressive-domstorage-flushing")
            .arg("no-first-run")
            .arg("no-default-browser-check")
            // The omnibox drop-downs are web pages in renderers of their own, loaded ahead even in
            // a hidden browser (about 60 MB); without them Chromium draws its native drop-down.
            .arg((
                "disable-features",
                &[
                    "WebUIOmniboxPopup",
                    "WebUIOmniboxAimPopup",
                    "WebUIOmniboxFullPopup",
                    "SpareRendererForSitePerProcess",
                ][..],
            ))
            // The network service in the browser's own process, one process fewer (about 16 MB).
            // chromiumoxide asks for `NetworkServiceInProcess`, a name Chromium no longer reads.
            .arg(("enable-features", &["NetworkServiceInProcess2"][..]))
            // Pages' scripts kept small over fast, as on low-memory phones (about 5 MB less).
            .arg(("js-flags", "--optimize-for-size"));
        if launch.headless {
            // A hidden browser composites in software: no emulated GPU (SwiftShader) in the GPU
            // process, about 14 MB less; pages that need WebGL fall back or show nothing.
            builder = builder
                .arg("disable-gpu")
                .arg("disable-software-rasterizer");
        } else {
            builder = builder.with_head();
        }
        if running_as_root() {
            // Chromium refuses its own sandbox for root (containers, CI machines).
            builder = builder.no_sandbox();
        }
        let config = builder
            .build()
            .map_err(|e| format!("The browser could not be set up: {e}"))?;
        let (browser, handler) = Browser::launch(config).await.map_err(|e| {
            let detail = e.to_string();
            tracing::warn!(error = %detail, "the browser did not start");
            launch_failure(&detail, launch.headless)
        })?;
        let mut session = Self::around(profile, Some(engine), false, browser, handler);
        session.visible = !launch.headless;
        let page = session.adopt_first_tab().await?;
        // The first tab may still be on its way to its start page. A navigation that cuts that
        // short leaves a tab that never drew anything, and pictures of it never come back (the
        // live view stays empty), so it first settles on a page of its own.
        if tokio::time::timeout(SETTLE_WAIT, page.goto("about:blank"))
            .await
            .is_err()
        {
            tracing::info!("the browser's first tab took long to settle");
        }
        session.follow(page).await;
        session
            .watch_downloads(downloads, Some(launch.download_staging))
            .await;
        Ok(session)
    }

    /// Connects to a browser the person started with remote debugging, and opens Sentient's
    /// own tab in it (their tabs are never followed).
    pub async fn attach(
        profile: &str,
        endpoint: &str,
        downloads: Downloads,
    ) -> Result<Self, ActionError> {
        let socket = debugger_socket(endpoint).await?;
        let (browser, handler) = Browser::connect(socket).await.map_err(|e| {
            format!("Sentient could not connect to the browser at {endpoint} ({e}). Check that it runs with --remote-debugging-port.")
        })?;
        let mut session = Self::around(profile, None, true, browser, handler);
        let page = session
            .browser
            .new_page("about:blank")
            .await
            .map_err(|e| format!("Sentient could not open its tab: {e}"))?;
        session.follow(page).await;
        session.watch_downloads(downloads, None).await;
        Ok(session)
    }

    fn around(
        profile: &str,
        engine: Option<&'static str>,
        attached: bool,
        browser: Browser,
        mut handler: chromiumoxide::Handler,
    ) -> Self {
        let handler = tokio::spawn(async move {
            // The connection's messages; a single bad message is no reason to stop reading.
            while let Some(message) = handler.next().await {
                if let Err(error) = message {
                    tracing::debug!(%error, "a browser message could not be read");
                }
            }
        });
        Self {
            profile: profile.to_owned(),
            engine,
            attached,
            visible: false,
            browser: Arc::new(browser),
            handler,
            downloads_watch: None,
            tabs: Vec::new(),
            own_targets: Arc::new(Mutex::new(Vec::new())),
            active: 0,
            dialogs: Arc::new(Mutex::new(Vec::new())),
            accept_confirm: Arc::new(AtomicBool::new(false)),
        }
    }

    async fn adopt_first_tab(&self) -> Result<Page, ActionError> {
        for _ in 0..20 {
            if let Ok(pages) = self.browser.pages().await
                && let Some(page) = pages.into_iter().next()
            {
                return Ok(page);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.browser
            .new_page("about:blank")
            .await
            .map_err(|e| format!("The browser opened no tab: {e}"))
    }

    /// Follows `page`: its dialogs are answered by the rules, and it becomes the active tab.
    async fn follow(&mut self, page: Page) {
        if let Ok(mut dialogs) = page.event_listener::<EventJavascriptDialogOpening>().await {
            let (page_for_answers, seen, accept_confirm) = (
                page.clone(),
                self.dialogs.clone(),
                self.accept_confirm.clone(),
            );
            tokio::spawn(async move {
                while let Some(dialog) = dialogs.next().await {
                    let accept = match dialog.r#type {
                        DialogType::Alert | DialogType::Beforeunload => true,
                        DialogType::Confirm => accept_confirm.load(Ordering::SeqCst),
                        DialogType::Prompt => false,
                    };
                    let kind = match dialog.r#type {
                        DialogType::Alert => "alert",
                        DialogType::Confirm => "confirm",
                        DialogType::Prompt => "prompt",
                        DialogType::Beforeunload => "beforeunload",
                    };
                    let answer = if accept { "accepted" } else { "dismissed" };
                    if let Ok(mut seen) = seen.lock() {
                        seen.push(format!("{kind} ({answer}): {}", dialog.message));
                    }
                    let _ = page_for_answers
                        .execute(HandleJavaScriptDialogParams::new(accept))
                        .await;
                }
            });
        }
        if let Ok(mut own) = self.own_targets.lock() {
            own.push(page.target_id().as_ref().to_owned());
        }
        self.tabs.push(page);
        self.active = self.tabs.len() - 1;
    }

    /// Downloads go to Files. A launched browser saves them into `staging` (named by the
    /// browser's id) and they move from there; a browser the person runs keeps its own
    /// downloads, and only those started in Sentient's tabs are copied. A save still running
    /// after the limit is cancelled.
    async fn watch_downloads(&mut self, downloads: Downloads, staging: Option<PathBuf>) {
        let behavior = match &staging {
            Some(folder) => {
                let _ = std::fs::remove_dir_all(folder);
                let _ = std::fs::create_dir_all(folder);
                SetDownloadBehaviorParams::builder()
                    .behavior(SetDownloadBehaviorBehavior::AllowAndName)
                    .download_path(folder.to_string_lossy().into_owned())
                    .events_enabled(true)
                    .build()
            }
            None => SetDownloadBehaviorParams::builder()
                .behavior(SetDownloadBehaviorBehavior::Default)
                .events_enabled(true)
                .build(),
        };
        let Ok(behavior) = behavior else { return };
        if let Err(error) = self.browser.execute(behavior).await {
            tracing::warn!(%error, "the browser would not report its downloads");
            return;
        }
        let (Ok(mut begins), Ok(mut steps)) = (
            self.browser
                .event_listener::<EventDownloadWillBegin>()
                .await,
            self.browser.event_listener::<EventDownloadProgress>().await,
        ) else {
            return;
        };
        let browser = self.browser.clone();
        let own = self.own_targets.clone();
        self.downloads_watch = Some(tokio::spawn(async move {
            let mut deadlines: HashMap<String, tokio::time::Instant> = HashMap::new();
            loop {
                let next = deadlines.values().min().copied();
                tokio::select! {
                    Some(begin) = begins.next() => {
                        let ours = staging.is_some()
                            || own.lock().is_ok_and(|o| o.iter().any(|t| t == begin.frame_id.as_ref()));
                        if ours {
                            downloads.began(&begin.guid, &begin.suggested_filename);
                            deadlines.insert(
                                begin.guid.clone(),
                                tokio::time::Instant::now() + downloads.limit(),
                            );
                        }
                    }
                    Some(step) = steps.next() => {
                        if !deadlines.contains_key(&step.guid) {
                            continue;
                        }
                        match step.state {
                            DownloadProgressState::InProgress => {}
                            DownloadProgressState::Completed => {
                                deadlines.remove(&step.guid);
                                let file = match &staging {
                                    Some(folder) => Some(folder.join(&step.guid)),
                                    None => step.file_path.clone().map(PathBuf::from),
                                };
                                let Some(file) = file else {
                                    downloads.failed(&step.guid, |name| format!("The browser saved {name} but didn't say where, so it isn't in Files."));
                                    continue;
                                };
                                let (saving, keep) = (downloads.clone(), staging.is_none());
                                // Saves run side by side.
                                tokio::spawn(async move {
                                    saving.finished(&step.guid, file, keep).await;
                                });
                            }
                            DownloadProgressState::Canceled => {
                                deadlines.remove(&step.guid);
                                downloads.failed(&step.guid, |name| format!("The download of {name} failed or was cancelled in the browser."));
                            }
                        }
                    }
                    () = tokio::time::sleep_until(next.unwrap_or_else(tokio::time::Instant::now)), if next.is_some() => {
                        let now = tokio::time::Instant::now();
                        let due: Vec<String> = deadlines
                            .iter()
                            .filter(|(_, at)| **at <= now)
                            .map(|(id, _)| id.clone())
                            .collect();
                        for id in due {
                            deadlines.remove(&id);
                            let cancel = tokio::time::timeout(
                                CANCEL_LIMIT,
                                browser.execute(CancelDownloadParams::new(id.clone())),
                            )
                            .await;
                            let problem = match cancel {
                                Ok(Ok(_)) => None,
                                Ok(Err(e)) => Some(e.to_string()),
                                Err(_) => Some("it didn't answer within 5 seconds".to_owned()),
                            };
                            let limit = spoken_duration(downloads.limit());
                            downloads.failed(&id, |name| match problem {
                                None => format!("The download of {name} took longer than {limit}, so it was stopped."),
                                Some(why) => format!("The download of {name} took longer than {limit}, and the browser could not be asked to stop it ({why})."),
                            });
                        }
                    }
                    else => break,
                }
            }
        }));
    }

    pub fn page(&self) -> Result<&Page, ActionError> {
        self.tabs
            .get(self.active)
            .ok_or_else(|| "The browser has no open tab. Open a page with browser_open.".to_owned())
    }

    /// Picks up tabs that the followed tabs opened (a link with target=_blank); the newest
    /// becomes active. Returns whether one was found.
    pub async fn pick_up_new_tabs(&mut self) -> bool {
        let Ok(pages) = self.browser.pages().await else {
            return false;
        };
        let known: Vec<_> = self.tabs.iter().map(|p| p.target_id().clone()).collect();
        let mut found = false;
        for page in pages {
            if known.contains(page.target_id()) {
                continue;
            }
            let opened_by_ours = page
                .opener_id()
                .as_ref()
                .is_some_and(|opener| known.contains(opener));
            if opened_by_ours || (!self.attached && page.opener_id().is_some()) {
                // Edge shows its downloads in a page of its own; that is no tab of the run's.
                let url = page.url().await.ok().flatten().unwrap_or_default();
                if is_downloads_hub(&url) {
                    continue;
                }
                self.follow(page).await;
                found = true;
            }
        }
        found
    }

    pub fn take_dialogs(&self) -> Vec<String> {
        self.dialogs
            .lock()
            .map(|mut d| std::mem::take(&mut *d))
            .unwrap_or_default()
    }

    pub fn accept_confirms(&self, accept: bool) {
        self.accept_confirm.store(accept, Ordering::SeqCst);
    }

    /// Whether the browser process or connection is still there.
    pub fn alive(&self) -> bool {
        !self.handler.is_finished()
    }

    pub async fn goto(&self, url: &str) -> Result<(), ActionError> {
        let page = self.page()?;
        timed(page.goto(url))
            .await?
            .map_err(|e| format!("The page {url} did not open: {e}"))?;
        Ok(())
    }

    pub async fn facts(&self) -> Result<PageFacts, ActionError> {
        let page = self.page()?;
        let text: String = self.eval_text(page, COLLECTOR).await?;
        serde_json::from_str(&text).map_err(|e| format!("The page could not be read: {e}"))
    }

    async fn eval_text(&self, page: &Page, script: &str) -> Result<String, ActionError> {
        let result = timed(page.evaluate(script))
            .await?
            .map_err(|e| format!("The page could not be read: {e}"))?;
        let value: Value = result.into_value().unwrap_or(Value::Null);
        Ok(match value {
            Value::String(text) => text,
            other => other.to_string(),
        })
    }

    /// Runs `function` (a JS function taking the element) on the element with `reference`;
    /// its result as JSON. A missing element is a stale ref.
    pub async fn on_element(&self, reference: &str, function: &str) -> Result<Value, ActionError> {
        let page = self.page()?;
        let element = page
            .find_element(format!("[data-sentient-ref=\"{reference}\"]"))
            .await
            .map_err(|_| stale(reference))?;
        // Objects come back by reference over CDP; as JSON text they come back by value.
        let wrapped = format!(
            "function() {{ const r = ({function}).call(this); return JSON.stringify(r === undefined ? null : r); }}"
        );
        let returned = timed(element.call_js_fn(wrapped, true))
            .await?
            .map_err(|e| format!("The page did not respond: {e}"))?;
        Ok(match returned.result.value {
            Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::Null),
            Some(other) => other,
            None => Value::Null,
        })
    }

    pub async fn click(&self, reference: &str) -> Result<(), ActionError> {
        let page = self.page()?;
        let element = page
            .find_element(format!("[data-sentient-ref=\"{reference}\"]"))
            .await
            .map_err(|_| stale(reference))?;
        timed(element.click())
            .await?
            .map_err(|e| format!("The element {reference} could not be clicked ({e}). Take a new snapshot; it may be hidden or covered."))?;
        Ok(())
    }

    /// Replaces the field's text with `text`, typed key by key like a person.
    pub async fn type_into(&self, reference: &str, text: &str) -> Result<(), ActionError> {
        let page = self.page()?;
        let element = page
            .find_element(format!("[data-sentient-ref=\"{reference}\"]"))
            .await
            .map_err(|_| stale(reference))?;
        timed(element.call_js_fn(
            "function() { this.focus(); if ('value' in this) { this.value = ''; } else if (this.isContentEditable) { this.textContent = ''; } this.dispatchEvent(new Event('input', {bubbles: true})); }",
            false,
        ))
        .await?
        .map_err(|e| format!("The field {reference} could not be cleared: {e}"))?;
        timed(element.type_str(text))
            .await?
            .map_err(|e| format!("Typing into {reference} failed: {e}"))?;
        Ok(())
    }

    /// Presses `key` (a key name such as `Enter`, with `ctrl`, `alt`, `shift`, `meta` before it
    /// joined by `+`) in the focused element.
    pub async fn press(&self, key: &str) -> Result<(), ActionError> {
        let page = self.page()?;
        let (modifiers, name) = crate::keys::parse(key)?;
        let definition = chromiumoxide::keys::get_key_definition(&name)
            .ok_or_else(|| format!("{key} isn't a key Sentient knows. Use names such as Enter, Escape, Tab, PageDown or ctrl+a."))?;
        let mut base = DispatchKeyEventParams::builder()
            .key(definition.key)
            .code(definition.code)
            .windows_virtual_key_code(definition.key_code)
            .native_virtual_key_code(definition.key_code)
            .modifiers(modifiers);
        let text = definition
            .text
            .map(str::to_owned)
            .or_else(|| (definition.key.chars().count() == 1).then(|| definition.key.to_owned()));
        let down_type = match (&text, modifiers) {
            (Some(text), 0) => {
                base = base.text(text.clone());
                DispatchKeyEventType::KeyDown
            }
            _ => DispatchKeyEventType::RawKeyDown,
        };
        let down = base
            .clone()
            .r#type(down_type)
            .build()
            .map_err(|e| e.to_string())?;
        let up = base
            .r#type(DispatchKeyEventType::KeyUp)
            .build()
            .map_err(|e| e.to_string())?;
        timed(page.execute(down))
            .await?
            .map_err(|e| format!("The key could not be pressed: {e}"))?;
        timed(page.execute(up))
            .await?
            .map_err(|e| format!("The key could not be pressed: {e}"))?;
        Ok(())
    }

    /// A tap where the person touched the live view: `x` and `y` are shares of the visible
    /// page's width and height.
    pub async fn tap(&self, x: f64, y: f64) -> Result<(), ActionError> {
        use chromiumoxide::cdp::browser_protocol::input::{
            DispatchMouseEventParams, DispatchMouseEventType, MouseButton,
        };
        let page = self.page()?;
        let (width, height) = view_size(page)
            .await
            .ok_or_else(|| "The page didn't say how large it is. Try again.".to_owned())?;
        let (at_x, at_y) = (x * width, y * height);
        for kind in [
            DispatchMouseEventType::MousePressed,
            DispatchMouseEventType::MouseReleased,
        ] {
            let event = DispatchMouseEventParams::builder()
                .r#type(kind)
                .x(at_x)
                .y(at_y)
                .button(MouseButton::Left)
                .click_count(1)
                .build()
                .map_err(|e| e.to_string())?;
            timed(page.execute(event))
                .await?
                .map_err(|e| format!("The tap didn't reach the page: {e}"))?;
        }
        Ok(())
    }

    /// Stops the active tab loading (the browser does it, so a page that is still on its way
    /// stops too; a script in the page would wait for it).
    pub async fn stop_loading(&mut self) {
        use chromiumoxide::cdp::browser_protocol::page::StopLoadingParams;
        use chromiumoxide::cdp::browser_protocol::target::CloseTargetParams;
        let Ok(page) = self.page() else { return };
        let answers = tokio::time::timeout(Duration::from_millis(500), page.evaluate("1"))
            .await
            .is_ok_and(|r| r.is_ok());
        if answers {
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                page.execute(StopLoadingParams::default()),
            )
            .await;
            return;
        }
        // The page doesn't answer: a new page is on its way, and the browser holds the page's
        // messages (a stop among them) until it arrives, while chromiumoxide keeps the tab's
        // next navigation waiting behind it. So the tab is closed and a fresh one takes its
        // place.
        let stuck = self.tabs.remove(self.active);
        if let Ok(mut own) = self.own_targets.lock() {
            own.retain(|t| t != stuck.target_id().as_ref());
        }
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            self.browser
                .execute(CloseTargetParams::new(stuck.target_id().clone())),
        )
        .await;
        match tokio::time::timeout(
            Duration::from_secs(10),
            self.browser.new_page("about:blank"),
        )
        .await
        {
            Ok(Ok(fresh)) => self.follow(fresh).await,
            _ => self.active = self.tabs.len().saturating_sub(1),
        }
    }

    /// Text the person typed in the live view, inserted into the focused field as it is.
    pub async fn insert_text(&self, text: &str) -> Result<(), ActionError> {
        use chromiumoxide::cdp::browser_protocol::input::InsertTextParams;
        let page = self.page()?;
        timed(page.execute(InsertTextParams::new(text)))
            .await?
            .map_err(|_| {
                "The text didn't reach the page. Tap the field, then try again.".to_owned()
            })?;
        Ok(())
    }

    pub async fn evaluate(&self, script: &str) -> Result<Value, ActionError> {
        let page = self.page()?;
        let text = self.eval_text(page, script).await?;
        Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// Goes one step back in the tab's history; `false` when there is nothing to go back to.
    pub async fn back(&self) -> Result<bool, ActionError> {
        let page = self.page()?;
        let history = timed(page.execute(GetNavigationHistoryParams::default()))
            .await?
            .map_err(|e| format!("The tab's history could not be read: {e}"))?;
        let index = usize::try_from(history.current_index).unwrap_or(0);
        if index == 0 {
            return Ok(false);
        }
        let Some(entry) = history.entries.get(index - 1) else {
            return Ok(false);
        };
        timed(page.execute(NavigateToHistoryEntryParams::new(entry.id)))
            .await?
            .map_err(|e| format!("Going back failed: {e}"))?;
        self.wait_until_loaded(&entry.url).await;
        Ok(true)
    }

    /// Waits (up to 10 s) until the tab shows `url` and its document has loaded.
    async fn wait_until_loaded(&self, url: &str) {
        let Ok(page) = self.page() else { return };
        for _ in 0..100 {
            let here = page.url().await.ok().flatten().unwrap_or_default();
            let ready = page
                .evaluate("document.readyState")
                .await
                .ok()
                .and_then(|r| r.into_value::<String>().ok());
            if here == url && ready.as_deref() == Some("complete") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn html(&self) -> Result<String, ActionError> {
        timed(self.page()?.content())
            .await?
            .map_err(|e| format!("The page could not be read: {e}"))
    }

    pub async fn screenshot(
        &self,
        format: CaptureScreenshotFormat,
        quality: Option<i64>,
    ) -> Result<Vec<u8>, ActionError> {
        let mut params = ScreenshotParams::builder().format(format);
        if let Some(quality) = quality {
            params = params.quality(quality);
        }
        timed(self.page()?.screenshot(params.build()))
            .await?
            .map_err(|e| format!("The screenshot failed: {e}"))
    }

    /// A JPEG of the active tab about 1024 px wide at quality 55, as a frame for the live view.
    pub async fn frame(&self) -> Option<crate::service::BrowserFrame> {
        frame_of(self.page().ok()?, None).await
    }

    /// Every followed tab: (url, title), and which is active.
    pub async fn tabs(&self) -> (Vec<(String, String)>, usize) {
        let mut tabs = Vec::with_capacity(self.tabs.len());
        for page in &self.tabs {
            let url = page.url().await.ok().flatten().unwrap_or_default();
            let title = title_of(page).await;
            tabs.push((url, title));
        }
        (tabs, self.active)
    }

    pub fn switch_to(&mut self, index: usize) -> Result<(), ActionError> {
        if index >= self.tabs.len() {
            return Err(format!(
                "There is no tab {index}. browser_tabs lists the open tabs, counting from 0."
            ));
        }
        self.active = index;
        Ok(())
    }

    /// Ends the session: a launched browser closes its tabs with their unload handlers first
    /// (so site storage is written), waits 1.5 s and quits; an attached one only disconnects
    /// (its tabs stay, Sentient's own tab is closed).
    pub async fn close(mut self) {
        if let Some(watch) = self.downloads_watch.take() {
            watch.abort();
            let _ = watch.await;
        }
        if self.attached {
            for page in std::mem::take(&mut self.tabs) {
                let _ = timed(page.close()).await;
            }
        } else {
            for page in &self.tabs {
                // Leaving the page runs its beforeunload and unload handlers (a prompt is
                // accepted by the dialog rules).
                let _ = timed(page.goto("about:blank")).await;
            }
            tokio::time::sleep(Duration::from_millis(1500)).await;
            // The download watch has ended, so the browser has no other holder.
            if let Some(browser) = Arc::get_mut(&mut self.browser) {
                let _ = timed(browser.close()).await;
                let _ = timed(browser.wait()).await;
            }
        }
        self.handler.abort();
    }
}

/// The visible size of `page` in CSS pixels.
pub(crate) async fn view_size(page: &Page) -> Option<(f64, f64)> {
    use chromiumoxide::cdp::browser_protocol::page::GetLayoutMetricsParams;
    let metrics = tokio::time::timeout(SIZE_WAIT, page.execute(GetLayoutMetricsParams::default()))
        .await
        .ok()?
        .ok()?;
    let view = &metrics.result.css_visual_viewport;
    Some((
        Some(view.client_width).filter(|w| *w > 0.0)?,
        Some(view.client_height).filter(|h| *h > 0.0)?,
    ))
}

/// A JPEG of `page` about 1024 px wide at quality 55, as a frame for the live view. `size` is
/// the page's visible size when known: the page answers nothing while a navigation is on its
/// way (the browser holds its messages), but the picture comes from the browser.
pub(crate) async fn frame_of(
    page: &Page,
    size: Option<(f64, f64)>,
) -> Option<crate::service::BrowserFrame> {
    use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotParams, Viewport};
    let (width, height) = match size {
        Some(size) => size,
        None => view_size(page).await.unwrap_or(WINDOW_SIZE),
    };
    let params = CaptureScreenshotParams::builder()
        .format(CaptureScreenshotFormat::Jpeg)
        .quality(55)
        .clip(Viewport {
            x: 0.0,
            y: 0.0,
            width,
            height,
            scale: (1024.0 / width).min(1.0),
        })
        .build();
    // A picture that takes longer is no use to a live view; the next one is asked for instead.
    let shot = tokio::time::timeout(FRAME_WAIT, page.execute(params))
        .await
        .ok()?
        .ok()?;
    // CDP sends the picture as base64 already.
    let encoded: &str = shot.data.as_ref();
    let image = format!("data:image/jpeg;base64,{encoded}");
    let url = page.url().await.ok().flatten().unwrap_or_default();
    let title = title_of(page).await;
    Some(crate::service::BrowserFrame { url, title, image })
}

/// The page's title, or nothing while a page is on its way (reading it needs the page's
/// script, which the browser holds back until the new page arrives).
pub(crate) async fn title_of(page: &Page) -> String {
    tokio::time::timeout(Duration::from_millis(500), page.get_title())
        .await
        .ok()
        .and_then(Result::ok)
        .flatten()
        .unwrap_or_default()
}

/// The browser's DevTools socket named by `endpoint`'s `/json/version`; refused unless it is on
/// this computer too (a DevTools port can point its socket anywhere).
async fn debugger_socket(endpoint: &str) -> Result<String, ActionError> {
    let unreachable = |e: &dyn std::fmt::Display| {
        format!(
            "Sentient could not reach the browser at {endpoint} ({e}). Check that it runs with --remote-debugging-port."
        )
    };
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .map_err(|e| unreachable(&e))?;
    let version: Value = client
        .get(format!("{endpoint}/json/version"))
        .send()
        .await
        .map_err(|e| unreachable(&e))?
        .json()
        .await
        .map_err(|e| unreachable(&e))?;
    let socket = version["webSocketDebuggerUrl"]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("The browser at {endpoint} gave no debugging socket. Check that it runs with --remote-debugging-port."))?;
    let host = url::Url::parse(socket)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    if !crate::profiles::is_this_computer(&host) {
        return Err(format!(
            "The browser at {endpoint} points its debugging socket at {host}, which isn't on this computer, so Sentient won't connect."
        ));
    }
    Ok(socket.to_owned())
}

/// A failed launch in one plain sentence (the browser's own output goes to the log).
fn launch_failure(detail: &str, headless: bool) -> String {
    let no_screen = detail.contains("Missing X server")
        || detail.contains("$DISPLAY")
        || detail.contains("platform failed to initialize");
    if no_screen && !headless {
        return "The browser can't show a window here: this computer has no screen Sentient can use (no desktop session). Sign in from a desktop session, or use the browser hidden.".to_owned();
    }
    if detail.contains("ProcessSingleton") || detail.contains("profile appears to be in use") {
        return "The browser profile is in use by another browser window. Close that window, then try again.".to_owned();
    }
    "The browser did not start. Check that it opens on its own on this computer, then try again; the log has the details.".to_owned()
}

/// Edge's own downloads page, which it opens as a tab when a download starts.
fn is_downloads_hub(url: &str) -> bool {
    url.starts_with("edge://downloads") || url.starts_with("chrome://downloads")
}

/// "2 minutes", "30 seconds".
fn spoken_duration(limit: Duration) -> String {
    let seconds = limit.as_secs().max(1);
    match (seconds % 60, seconds / 60) {
        (0, 1) => "a minute".to_owned(),
        (0, minutes) => format!("{minutes} minutes"),
        (_, _) if seconds == 1 => "a second".to_owned(),
        _ => format!("{seconds} seconds"),
    }
}

fn stale(reference: &str) -> String {
    format!(
        "The element {reference} is no longer on the page (the page changed since the last snapshot). Call browser_snapshot and use the new refs."
    )
}

async fn timed<T>(work: impl std::future::Future<Output = T>) -> Result<T, ActionError> {
    tokio::time::timeout(ACTION_TIMEOUT, work)
        .await
        .map_err(|_| "The page didn't respond within 30 seconds.".to_owned())
}

fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        std::fs::metadata("/proc/self")
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                m.uid() == 0
            })
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::launch_failure;

    #[test]
    fn a_failed_launch_is_one_plain_sentence() {
        let no_display = "Browser process exited ... ERROR:ui/ozone/platform/x11/ozone_platform_x11.cc:257] Missing X server or $DISPLAY";
        let said = launch_failure(no_display, false);
        assert!(
            said.starts_with("The browser can't show a window here"),
            "{said}"
        );
        assert!(!said.contains("ozone"));
        let other = launch_failure("exited with status 1", true);
        assert!(other.starts_with("The browser did not start."), "{other}");
        let busy = launch_failure("ProcessSingleton: profile appears to be in use", true);
        assert!(busy.contains("in use by another browser window"), "{busy}");
    }
}
