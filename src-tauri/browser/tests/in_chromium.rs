//! The browser tools against Debian's chromium on pages served on loopback: the snapshot's
//! lines, typing, picking and clicking, the fields it never types into, the purchase and
//! confirm rules, new tabs, a redirect to a blocked site, CAPTCHAs, extract and screenshots.
//! One browser serves the whole walk (each launch costs about a second). Also: the launch flags
//! and the processes a hidden browser starts, which set its memory.
#![cfg(feature = "browser")]

use std::sync::Arc;

use axum::Router;
use axum::response::{Html, Redirect};
use axum::routing::get;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use sentient_agent::tools::{Plugin, ProgressKind, ProgressUpdate, Risk, ToolCtx};
use sentient_browser::{BrowserParts, BrowserService};
use sentient_core::bus::EventBus;
use sentient_core::clock::SystemClock;
use sentient_core::config::ConfigService;
use sentient_core::domain::DomainEvent;
use sentient_core::home::Home;

const FORM: &str = r#"<html><head><title>Sign up</title></head><body>
<h1>Join the club</h1>
<form id="signup" action="/thanks">
  <label for="name">Your name</label><input id="name" name="name" type="text">
  <label for="country">Country</label><select id="country" name="country"><option>India</option><option>Japan</option></select>
  <label><input type="checkbox" name="news"> Send me news</label>
  <button type="button" disabled>Later</button>
  <button type="submit">Join</button>
</form>
<a href="/docs">Docs</a>
<p>Members get early tickets.</p>
</body></html>"#;

const LOGIN: &str = r#"<html><head><title>Log in</title></head><body><form>
<label for="u">Email</label><input id="u" name="email" type="email">
<label for="p">Password</label><input id="p" name="pw" type="password">
<label for="c">Code</label><input id="c" name="code" autocomplete="one-time-code">
<textarea name="message" placeholder="Write a message"></textarea>
</form></body></html>"#;

const CHECKOUT: &str = r#"<html><head><title>Checkout</title></head><body>
<form action="/done" method="get">
<label for="addr">Address</label><input id="addr" name="address">
<label for="cc">Card number</label><input id="cc" name="cardnumber" autocomplete="cc-number">
<button type="submit">Place order</button>
</form></body></html>"#;

const DIALOGS: &str = r#"<html><head><title>Items</title></head><body>
<p id="state">kept</p>
<button onclick="if (confirm('Delete this item?')) { document.getElementById('state').textContent = 'deleted'; }">Delete item</button>
<button onclick="alert('Saved!')">Show note</button>
<a href="/docs" target="_blank">Open docs in a new tab</a>
</body></html>"#;

const CAPTCHA: &str = r#"<html><head><title>Check</title></head><body><p>Please verify you are human.</p><div class="g-recaptcha"></div></body></html>"#;

const ARTICLE: &str = r#"<html><head><title>Museum</title></head><body><nav>Home | Shop</nav>
<article><h1>Visiting the museum</h1>
<p>Opening hours are 9 to 5 on weekdays, and the galleries are quiet in the morning.</p>
<p>Parking costs two pounds for the whole day at the west gate.</p>
<p>On Sunday the opening hours are 10 to 4, and entry is free for children.</p>
</article><footer>Contact</footer></body></html>"#;

async fn serve() -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let app =
        Router::new()
            .route("/form", get(|| async { Html(FORM) }))
            .route("/login", get(|| async { Html(LOGIN) }))
            .route("/checkout", get(|| async { Html(CHECKOUT) }))
            .route(
                "/done",
                get(|| async { Html("<title>Thanks</title><p>Order placed</p>") }),
            )
            .route("/dialogs", get(|| async { Html(DIALOGS) }))
            .route(
                "/docs",
                get(|| async { Html("<title>Docs</title><p>The docs</p>") }),
            )
            .route("/captcha", get(|| async { Html(CAPTCHA) }))
            .route("/article", get(|| async { Html(ARTICLE) }))
            .route(
                "/dl/report",
                get(|| async { download("report.pdf", 1, std::time::Duration::ZERO, false) }),
            )
        // A DevTools port that points its socket at another computer.
        .route(
            "/json/version",
            get(|| async {
                axum::Json(json!({"webSocketDebuggerUrl": "ws://192.168.1.20:9222/devtools/browser/x"}))
            }),
        )
            .route(
                "/away",
                get(move || async move {
                    Redirect::temporary(&format!("http://localhost:{port}/form"))
                }),
            );
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serve");
    });
    (format!("http://127.0.0.1:{port}"), server)
}

struct Walk {
    plugin: Plugin,
    ctx: ToolCtx,
    service: BrowserService,
    /// The `frame` progress the calls sent.
    frames: Arc<std::sync::Mutex<Vec<String>>>,
    bus: EventBus,
}

/// A call context whose `frame` progress lands in the returned list.
fn ctx_with_frames(home: &Home) -> (ToolCtx, Arc<std::sync::Mutex<Vec<String>>>) {
    let frames = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut ctx = ToolCtx::new(home.clone(), reqwest_client(), "call-1");
    let sink = frames.clone();
    ctx.progress = Arc::new(move |update: ProgressUpdate| {
        if update.kind == ProgressKind::Frame {
            sink.lock().expect("frames").push(update.text);
        }
    });
    (ctx, frames)
}

impl Walk {
    fn tool(&self, name: &str) -> Arc<dyn sentient_agent::tools::Tool> {
        self.plugin
            .tools
            .iter()
            .find(|t| t.def().name == name)
            .cloned()
            .unwrap_or_else(|| panic!("no tool {name}"))
    }

    /// Calls `name` as the run loop would: with the risk approvals would have judged it at.
    async fn call(&mut self, name: &str, args: Value) -> Result<Value, String> {
        let tool = self.tool(name);
        self.ctx.approved_risk = Some(tool.risk_for(&args));
        tool.call(args, &self.ctx)
            .await
            .map(|o| o.value)
            .map_err(|e| e.to_string())
    }

    async fn call_approved_as(
        &mut self,
        name: &str,
        args: Value,
        approved: Risk,
    ) -> Result<Value, String> {
        let tool = self.tool(name);
        self.ctx.approved_risk = Some(approved);
        tool.call(args, &self.ctx)
            .await
            .map(|o| o.value)
            .map_err(|e| e.to_string())
    }

    /// Clicks the element whose snapshot line (in `text`) contains `needle`.
    async fn click_on(&mut self, text: &str, needle: &str) -> Value {
        self.call(
            "browser_click",
            json!({"ref": Self::reference(text, needle)}),
        )
        .await
        .unwrap_or_else(|e| panic!("clicking {needle}: {e}"))
    }

    /// The ref of the snapshot line that contains `needle`.
    fn reference(text: &str, needle: &str) -> String {
        let line = text
            .lines()
            .find(|l| l.starts_with("[e") && l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle} in\n{text}"));
        line[1..line.find(']').expect("ref end")].to_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_read_and_act_in_real_pages_within_the_safety_rules() {
    if sentient_browser::engine::find(sentient_core::config::BrowserEngine::Auto).is_none() {
        panic!(
            "these tests need Chromium (Debian's chromium package); the README's test command installs it"
        );
    }
    let (base, server) = serve().await;
    let home_dir = tempfile::tempdir().expect("home");
    let home = Home::at(home_dir.path());
    let bus = EventBus::new(Arc::new(SystemClock));
    let mut events = bus.subscribe();
    let config = ConfigService::load(&home.config_file(), bus.clone()).expect("config");
    config
        .patch(json!({"browser": {"block_domains": ["localhost"], "max_snapshot_chars": 5000}}))
        .await
        .expect("settings");
    let shutdown = CancellationToken::new();
    let service = BrowserService::new(BrowserParts {
        home: home.clone(),
        config,
        bus: bus.clone(),
        shutdown: shutdown.clone(),
        tasks: Arc::new(sentient_browser::NoTasks),
    });
    let plugin = sentient_browser::tools::plugin(service.clone());
    assert!(plugin.tools.iter().all(|t| t.def().untrusted_output));
    assert!(plugin.tools.iter().all(|t| t.available()));
    let (ctx, frames) = ctx_with_frames(&home);
    let mut walk = Walk {
        plugin,
        ctx,
        service,
        frames,
        bus,
    };

    // Nothing runs until the first call.
    assert!(!walk.service.status().await.running);

    // The form's snapshot, line by line.
    let opened = walk
        .call("browser_open", json!({"url": format!("{base}/form")}))
        .await
        .expect("open");
    let text = opened["text"].as_str().expect("text");
    assert_eq!(opened["profile"], "default");
    assert_eq!(opened["title"], "Sign up");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Page: Sign up");
    assert_eq!(lines[1], format!("URL: {base}/form"));
    assert!(lines[2].starts_with("Scroll: "), "{}", lines[2]);
    assert_eq!(lines[3], "[e1] textbox \"Your name\" value=\"\"");
    assert_eq!(
        lines[4],
        "[e2] combobox \"Country\" value=\"India\" options: India | Japan"
    );
    assert_eq!(lines[5], "[e3] checkbox \"Send me news\"");
    assert_eq!(lines[6], "[e4] button \"Later\" disabled");
    assert_eq!(lines[7], "[e5] button \"Join\"");
    assert_eq!(lines[8], "[e6] link \"Docs\" -> /docs");
    assert!(text.contains("Members get early tickets."), "{text}");
    let status = walk.service.status().await;
    assert!(status.running && status.headless && !status.attached);
    // The start went out as browser.updated, and a picture of the page as browser.frame; the
    // call's own progress carried the same picture (live view is on by default).
    let mut updated = None;
    let mut frame = None;
    while let Ok(envelope) = events.try_recv() {
        match envelope.event {
            DomainEvent::BrowserUpdated(s) => updated = Some(s),
            DomainEvent::BrowserFrame(f) => frame = Some(f),
            _ => {}
        }
    }
    let updated = updated.expect("browser.updated");
    assert!(updated.running);
    assert_eq!(updated.tabs[0].url, format!("{base}/form"));
    let frame = frame.expect("browser.frame");
    assert_eq!(frame.title, "Sign up");
    assert!(
        frame.image.starts_with("data:image/jpeg;base64,/9j/"),
        "a JPEG"
    );
    let pictures = walk.frames.lock().expect("frames").clone();
    assert_eq!(pictures.len(), 1);
    assert_eq!(pictures[0], frame.image);
    assert_eq!(status.engine.as_deref(), Some("chromium"));

    // Typing, picking and ticking show in the next snapshot.
    let typed = walk
        .call("browser_type", json!({"ref": "e1", "text": "Asha"}))
        .await
        .expect("type");
    assert_eq!(typed["typed_into"], "Your name");
    assert_eq!(typed["submitted"], false);
    let picked = walk
        .call("browser_select", json!({"ref": "e2", "option": "Japan"}))
        .await
        .expect("select");
    assert_eq!(picked["selected"], "Japan");
    let missing = walk
        .call("browser_select", json!({"ref": "e2", "option": "Peru"}))
        .await
        .expect_err("no Peru");
    assert!(missing.contains("India | Japan"), "{missing}");
    walk.call("browser_click", json!({"ref": "e3"}))
        .await
        .expect("tick");
    let again = walk
        .call("browser_snapshot", json!({}))
        .await
        .expect("snapshot");
    let text = again["text"].as_str().expect("text");
    assert!(
        text.contains("[e1] textbox \"Your name\" value=\"Asha\""),
        "{text}"
    );
    assert!(
        text.contains("[e2] combobox \"Country\" value=\"Japan\""),
        "{text}"
    );
    assert!(
        text.contains("[e3] checkbox \"Send me news\" checked"),
        "{text}"
    );

    // A navigation makes the refs stale.
    walk.call("browser_click", json!({"ref": "e6"}))
        .await
        .expect("docs link");
    let stale = walk
        .call("browser_click", json!({"ref": "e5"}))
        .await
        .expect_err("stale");
    assert!(stale.contains("browser_snapshot"), "{stale}");
    let back = walk.call("browser_back", json!({})).await.expect("back");
    assert_eq!(back["url"], format!("{base}/form"));

    // Secret fields and card numbers are the person's to type.
    let login = walk
        .call("browser_open", json!({"url": format!("{base}/login")}))
        .await
        .expect("login");
    let text = login["text"].as_str().expect("text").to_owned();
    let password = Walk::reference(&text, "\"Password\"");
    let refused = walk
        .call("browser_type", json!({"ref": password, "text": "hunter2"}))
        .await
        .expect("answer");
    assert_eq!(refused["needs_user"], "the page asks for your password");
    assert!(
        refused["error"]
            .as_str()
            .expect("error")
            .contains("password")
    );
    let code = Walk::reference(&text, "\"Code\"");
    let refused = walk
        .call("browser_type", json!({"ref": code, "text": "123456"}))
        .await
        .expect("answer");
    assert_eq!(refused["needs_user"], "the page asks for a one-time code");
    let email = Walk::reference(&text, "\"Email\"");
    let refused = walk
        .call(
            "browser_type",
            json!({"ref": email, "text": "card 4111 1111 1111 1111"}),
        )
        .await
        .expect("answer");
    assert_eq!(refused["needs_user"], "the page needs your card number");
    let after = walk
        .call("browser_snapshot", json!({}))
        .await
        .expect("snapshot");
    let after = after["text"].as_str().expect("text");
    assert!(
        after.contains("\"Password\" value=\"\""),
        "nothing was typed: {after}"
    );
    // Enter in a message box sends.
    let message = Walk::reference(after, "Write a message");
    let submit = json!({"ref": message, "text": "hi", "submit": true});
    assert_eq!(walk.tool("browser_type").risk_for(&submit), Risk::Send);
    assert_eq!(
        walk.tool("browser_type")
            .risk_for(&json!({"ref": message, "text": "hi"})),
        Risk::Write
    );

    // Place order is a purchase: rated send with the Purchase label, refused when approvals
    // rated it lower, clicked when they rated it send.
    let checkout = walk
        .call("browser_open", json!({"url": format!("{base}/checkout")}))
        .await
        .expect("checkout");
    let text = checkout["text"].as_str().expect("text").to_owned();
    let address = Walk::reference(&text, "\"Address\"");
    walk.call(
        "browser_type",
        json!({"ref": address, "text": "1 Hill Road"}),
    )
    .await
    .expect("address");
    let card = Walk::reference(&text, "\"Card number\"");
    let refused = walk
        .call(
            "browser_type",
            json!({"ref": card, "text": "4111111111111111"}),
        )
        .await
        .expect("answer");
    assert_eq!(refused["needs_user"], "the page asks for your card details");
    let order = Walk::reference(&text, "Place order");
    let click = json!({"ref": order});
    let tool = walk.tool("browser_click");
    assert_eq!(tool.risk_for(&click), Risk::Send);
    assert_eq!(
        tool.describe(&click).and_then(|d| d.risk_label).as_deref(),
        Some(sentient_agent::approvals::PURCHASE_LABEL)
    );
    let refused = walk
        .call_approved_as("browser_click", click.clone(), Risk::Write)
        .await
        .expect_err("not approved");
    assert!(refused.contains("buys or pays"), "{refused}");
    assert!(!walk.service.status().await.tabs[0].url.contains("/done"));
    let clicked = walk
        .call("browser_click", click)
        .await
        .expect("approved click");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let done = walk
        .call("browser_snapshot", json!({}))
        .await
        .expect("done");
    assert!(
        done["url"].as_str().expect("url").contains("/done"),
        "{clicked} {done}"
    );

    // confirm() is accepted only for a click approved as send; alerts are accepted and listed.
    let page = walk
        .call("browser_open", json!({"url": format!("{base}/dialogs")}))
        .await
        .expect("dialogs");
    let text = page["text"].as_str().expect("text").to_owned();
    let delete = Walk::reference(&text, "Delete item");
    assert_eq!(
        walk.tool("browser_click").risk_for(&json!({"ref": delete})),
        Risk::Send
    );
    let deleted = walk
        .call("browser_click", json!({"ref": delete}))
        .await
        .expect("delete");
    assert!(
        deleted["dialogs"][0]
            .as_str()
            .expect("dialog")
            .starts_with("confirm (accepted)"),
        "{deleted}"
    );
    let note = Walk::reference(&text, "Show note");
    let noted = walk
        .call("browser_click", json!({"ref": note}))
        .await
        .expect("note");
    assert!(
        noted["dialogs"][0]
            .as_str()
            .expect("dialog")
            .starts_with("alert (accepted): Saved!"),
        "{noted}"
    );
    let read = walk
        .call("browser_snapshot", json!({}))
        .await
        .expect("snapshot");
    assert!(read["text"].as_str().expect("text").contains("deleted"));

    // A link that opens a new tab makes that tab the active one.
    let text = read["text"].as_str().expect("text").to_owned();
    let link = Walk::reference(&text, "new tab");
    let opened = walk
        .call("browser_click", json!({"ref": link}))
        .await
        .expect("new tab");
    assert_eq!(opened["new_tab"], true, "{opened}");
    let tabs = walk.call("browser_tabs", json!({})).await.expect("tabs");
    assert_eq!(tabs["tabs"].as_array().expect("tabs").len(), 2, "{tabs}");
    assert_eq!(tabs["tabs"][1]["active"], true);
    let switched = walk
        .call("browser_switch_tab", json!({"index": 0}))
        .await
        .expect("switch");
    assert!(switched["url"].as_str().expect("url").ends_with("/dialogs"));

    // A redirect onto a blocked site is refused, and so is opening one.
    let refused = walk
        .call("browser_open", json!({"url": format!("{base}/away")}))
        .await
        .expect_err("blocked");
    assert!(refused.contains("blocked"), "{refused}");
    let refused = walk
        .call("browser_open", json!({"url": "file:///etc/passwd"}))
        .await
        .expect_err("file");
    assert!(refused.contains("http and https"), "{refused}");

    // A CAPTCHA is the person's.
    let check = walk
        .call("browser_open", json!({"url": format!("{base}/captcha")}))
        .await
        .expect("captcha");
    assert_eq!(
        check["needs_user"], "the site wants proof that you're a person (a CAPTCHA)",
        "{check}"
    );

    // Extract: the main text, or the paragraphs that answer a question.
    walk.call("browser_open", json!({"url": format!("{base}/article")}))
        .await
        .expect("article");
    let all = walk
        .call("browser_extract", json!({}))
        .await
        .expect("extract");
    let content = all["content"].as_str().expect("content");
    assert!(content.contains("Parking costs"), "{content}");
    assert!(!content.contains("Home | Shop"), "{content}");
    let answer = walk
        .call(
            "browser_extract",
            json!({"question": "Sunday opening hours"}),
        )
        .await
        .expect("extract");
    assert_eq!(answer["question"], "Sunday opening hours");
    let content = answer["content"].as_str().expect("content");
    assert!(
        content.contains("On Sunday the opening hours are 10 to 4"),
        "{content}"
    );
    assert!(!content.contains("Parking"), "{content}");

    // Screenshots land in the outputs folder.
    let shot = walk
        .call("browser_screenshot", json!({}))
        .await
        .expect("screenshot");
    let file = shot["file"].as_str().expect("file");
    assert!(
        file.starts_with("outputs/browser/screenshot-") && file.ends_with(".png"),
        "{file}"
    );
    let bytes = std::fs::read(home.root().join("files").join(file)).expect("saved");
    assert!(bytes.starts_with(b"\x89PNG"));

    // An unknown profile is refused with the list; close ends the browser.
    let unknown = walk
        .call(
            "browser_open",
            json!({"url": format!("{base}/form"), "profile": "nope"}),
        )
        .await
        .expect_err("unknown");
    assert!(unknown.contains("The profiles are: default"), "{unknown}");
    let closed = walk.call("browser_close", json!({})).await.expect("close");
    assert_eq!(closed["ok"], true);
    assert!(!walk.service.status().await.running);
    let mut last = None;
    while let Ok(envelope) = events.try_recv() {
        if let DomainEvent::BrowserUpdated(s) = envelope.event {
            last = Some(s);
        }
    }
    assert_eq!(
        last.map(|s| s.running),
        Some(false),
        "the close went out as browser.updated"
    );
    shutdown.cancel();
    server.abort();
}

/// A chromium the person started with remote debugging, showing one tab of their own.
struct PersonsBrowser {
    child: std::process::Child,
    port: u16,
    _data: tempfile::TempDir,
}

impl PersonsBrowser {
    async fn start(page: &str) -> Self {
        let data = tempfile::tempdir().expect("data");
        // Their own downloads go to a folder of theirs, asked for by nobody.
        std::fs::create_dir_all(data.path().join("Default")).expect("profile");
        std::fs::write(
            data.path().join("Default").join("Preferences"),
            json!({"download": {
                "default_directory": data.path().join("Downloads"),
                "prompt_for_download": false,
            }})
            .to_string(),
        )
        .expect("preferences");
        let installed = sentient_browser::engine::find(sentient_core::config::BrowserEngine::Auto)
            .expect("a browser");
        let mut child = std::process::Command::new(installed.path)
            .args([
                "--headless",
                "--no-sandbox",
                "--remote-debugging-port=0",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", data.path().display()))
            .arg(page)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromium starts");
        // Chromium writes the port it took into the profile folder.
        let file = data.path().join("DevToolsActivePort");
        for _ in 0..200 {
            if let Some(port) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                return Self {
                    child,
                    port,
                    _data: data,
                };
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("chromium wrote no DevToolsActivePort");
    }

    async fn tab_urls(&self) -> Vec<String> {
        let list: Value = reqwest_client()
            .get(format!("http://127.0.0.1:{}/json/list", self.port))
            .send()
            .await
            .expect("the person's browser answers")
            .json()
            .await
            .expect("json");
        list.as_array()
            .expect("tabs")
            .iter()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["url"].as_str().map(str::to_owned))
            .collect()
    }
}

impl Drop for PersonsBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_browser_gets_a_tab_of_ours_and_is_only_disconnected() {
    let (base, server) = serve().await;
    let persons = PersonsBrowser::start(&format!("{base}/docs")).await;
    let home_dir = tempfile::tempdir().expect("home");
    let home = Home::at(home_dir.path());
    let bus = EventBus::new(Arc::new(SystemClock));
    let config = ConfigService::load(&home.config_file(), bus.clone()).expect("config");
    config
        .patch(json!({"browser": {"profiles": {
            "mine": {"kind": "attach", "endpoint": format!("http://127.0.0.1:{}", persons.port)},
            "elsewhere": {"kind": "attach", "endpoint": base.clone()},
        }}}))
        .await
        .expect("settings");
    let service = BrowserService::new(BrowserParts {
        home: home.clone(),
        config,
        bus: bus.clone(),
        shutdown: CancellationToken::new(),
        tasks: Arc::new(sentient_browser::NoTasks),
    });
    let plugin = sentient_browser::tools::plugin(service.clone());
    let (ctx, frames) = ctx_with_frames(&home);
    let mut walk = Walk {
        plugin,
        ctx,
        service,
        frames,
        bus,
    };

    let opened = walk
        .call(
            "browser_open",
            json!({"url": format!("{base}/form"), "profile": "mine"}),
        )
        .await
        .expect("open in the person's browser");
    assert_eq!(opened["profile"], "mine");
    // The rest of the run keeps to that profile.
    let tabs = walk.call("browser_tabs", json!({})).await.expect("tabs");
    assert_eq!(tabs["profile"], "mine");
    let listed = tabs["tabs"].as_array().expect("tabs");
    assert_eq!(
        listed.len(),
        1,
        "only Sentient's own tab is followed: {tabs}"
    );
    assert!(listed[0]["url"].as_str().expect("url").ends_with("/form"));
    let status = walk.service.status().await;
    assert!(status.attached && status.running);
    assert_eq!(status.engine, None);
    assert!(
        persons
            .tab_urls()
            .await
            .iter()
            .any(|u| u.ends_with("/form"))
    );

    // A download in Sentient's tab is copied into Files; the person's browser keeps its own.
    let downloaded = walk
        .call("browser_open", json!({"url": format!("{base}/dl/report")}))
        .await
        .expect("a download in the person's browser");
    assert_eq!(
        saved_download(&mut walk, &downloaded, "report.pdf").await,
        json!(["downloads/report.pdf"])
    );
    assert!(home_dir.path().join("files/downloads/report.pdf").exists());

    // Closing only disconnects: the person's browser and their tab stay, Sentient's tab goes.
    walk.call("browser_close", json!({})).await.expect("close");
    let left = persons.tab_urls().await;
    assert!(left.iter().any(|u| u.ends_with("/docs")), "{left:?}");
    assert!(!left.iter().any(|u| u.ends_with("/form")), "{left:?}");

    // A DevTools port whose socket points at another computer is refused.
    let refused = walk
        .call(
            "browser_open",
            json!({"url": format!("{base}/form"), "profile": "elsewhere"}),
        )
        .await
        .expect_err("refused");
    assert!(refused.contains("isn't on this computer"), "{refused}");
    server.abort();
}

fn reqwest_client() -> reqwest::Client {
    reqwest::Client::new()
}

const FILES: &str = r#"<html><head><title>Files</title></head><body>
<a href="/dl/report">Instant report</a>
<a href="/dl/slow">Slow archive</a>
<a href="/dl/broken">Broken file</a>
<a href="/dl/endless">Endless log</a>
</body></html>"#;

const STORE: &str = r#"<html><head><title>Shop</title></head><body>
<p id="who"></p>
<button onclick="localStorage.setItem('signed_in', 'yes'); document.getElementById('who').textContent = 'Signed in: yes';">Sign in</button>
<script>document.getElementById('who').textContent = 'Signed in: ' + (localStorage.getItem('signed_in') || 'no');</script>
</body></html>"#;

const CODE: &str = r#"<html><head><title>Verify</title></head><body><form action="/welcome">
<label for="otp">Code</label>
<input id="otp" name="otp" autocomplete="one-time-code" style="position:absolute;left:0;top:0;width:100%;height:50%;font-size:40px">
</form></body></html>"#;

/// A download answer: `chunks` pieces of `body` sent `gap` apart, then the end, or a broken
/// connection when `break_off`.
fn download(
    name: &str,
    chunks: usize,
    gap: std::time::Duration,
    break_off: bool,
) -> axum::response::Response {
    let stream = futures::stream::unfold(0usize, move |sent| async move {
        if sent == chunks {
            return None;
        }
        if sent > 0 {
            tokio::time::sleep(gap).await;
        }
        if break_off && sent == 1 {
            return Some((Err(std::io::Error::other("connection lost")), sent + 1));
        }
        Some((Ok(axum::body::Bytes::from(vec![b'x'; 1024])), sent + 1))
    });
    axum::response::Response::builder()
        .header("content-type", "application/octet-stream")
        .header(
            "content-disposition",
            format!("attachment; filename=\"{name}\""),
        )
        .header("content-length", (chunks * 1024).to_string())
        .body(axum::body::Body::from_stream(stream))
        .expect("response")
}

async fn serve_files() -> (String, tokio::task::JoinHandle<()>) {
    use std::time::Duration;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let app = Router::new()
        .route("/files", get(|| async { Html(FILES) }))
        .route("/store", get(|| async { Html(STORE) }))
        .route("/code", get(|| async { Html(CODE) }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
                Html("<title>Timetable</title><p>Every hour</p>")
            }),
        )
        .route(
            "/dl/report",
            get(|| async { download("report.pdf", 1, Duration::ZERO, false) }),
        )
        .route(
            "/dl/slow",
            get(|| async { download("archive.zip", 8, Duration::from_millis(250), false) }),
        )
        .route(
            "/dl/broken",
            get(|| async { download("broken.bin", 8, Duration::from_millis(100), true) }),
        )
        .route(
            "/dl/endless",
            get(|| async { download("endless.log", 120, Duration::from_millis(500), false) }),
        );
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serve");
    });
    (format!("http://127.0.0.1:{port}"), server)
}

async fn walk_with(settings: Value) -> (Walk, tempfile::TempDir) {
    walk_with_tasks(settings, Arc::new(sentient_browser::NoTasks)).await
}

/// A walk whose browser asks `tasks` about the tasks (a resumed run, a renamed profile).
async fn walk_with_tasks(
    settings: Value,
    tasks: Arc<dyn sentient_browser::BrowserTasks>,
) -> (Walk, tempfile::TempDir) {
    let home_dir = tempfile::tempdir().expect("home");
    let home = Home::at(home_dir.path());
    let bus = EventBus::new(Arc::new(SystemClock));
    let config = ConfigService::load(&home.config_file(), bus.clone()).expect("config");
    config.patch(settings).await.expect("settings");
    let service = BrowserService::new(BrowserParts {
        home: home.clone(),
        config,
        bus: bus.clone(),
        shutdown: CancellationToken::new(),
        tasks,
    });
    let plugin = sentient_browser::tools::plugin(service.clone());
    let (ctx, frames) = ctx_with_frames(&home);
    (
        Walk {
            plugin,
            ctx,
            service,
            frames,
            bus,
        },
        home_dir,
    )
}

/// What the download `result` started was saved as: reported by `result` itself (it started and
/// ended within the action's 0.3 s), or, on a busy machine, listed there by `name` as still
/// arriving and reported by a later result.
async fn saved_download(walk: &mut Walk, result: &Value, name: &str) -> Value {
    if let Some(saved) = result.get("downloads") {
        return saved.clone();
    }
    assert_eq!(result["downloads_in_progress"], json!([name]), "{result}");
    snapshot_until(walk, "downloads").await["downloads"].clone()
}

/// Calls `browser_snapshot` until its result has `field`, for up to 10 s.
async fn snapshot_until(walk: &mut Walk, field: &str) -> Value {
    for _ in 0..40 {
        let result = walk
            .call("browser_snapshot", json!({}))
            .await
            .expect("snapshot");
        if result.get(field).is_some() {
            return result;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    panic!("no {field} reported within 10 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_are_saved_to_files_and_reported_on_results() {
    let (base, server) = serve_files().await;
    let (mut walk, home_dir) = walk_with(json!({"browser": {}})).await;
    let saved = home_dir.path().join("files").join("downloads");

    let page = walk
        .call("browser_open", json!({"url": format!("{base}/files")}))
        .await
        .expect("open");
    assert!(page.get("downloads").is_none(), "{page}");
    let text = page["text"].as_str().expect("text").to_owned();

    // An instant download is saved and reported (by the click that started it, unless the
    // machine is too busy to finish it within the click's 0.3 s).
    let clicked = walk.click_on(&text, "Instant report").await;
    assert_eq!(
        saved_download(&mut walk, &clicked, "report.pdf").await,
        json!(["downloads/report.pdf"])
    );
    assert_eq!(
        std::fs::read(saved.join("report.pdf"))
            .expect("saved")
            .len(),
        1024
    );
    // The same name again is saved beside it.
    let again = walk.click_on(&text, "Instant report").await;
    assert_eq!(
        saved_download(&mut walk, &again, "report.pdf").await,
        json!(["downloads/report (2).pdf"])
    );

    // A slow one is listed by name while it runs, and reported by a later result.
    let slow = walk.click_on(&text, "Slow archive").await;
    assert_eq!(
        slow["downloads_in_progress"],
        json!(["archive.zip"]),
        "{slow}"
    );
    assert!(slow.get("downloads").is_none());
    let later = snapshot_until(&mut walk, "downloads").await;
    assert_eq!(
        later["downloads"],
        json!(["downloads/archive.zip"]),
        "{later}"
    );
    assert_eq!(
        std::fs::read(saved.join("archive.zip"))
            .expect("saved")
            .len(),
        8 * 1024
    );

    // A broken connection is a download error beside an ordinary result.
    walk.click_on(&text, "Broken file").await;
    let failed = snapshot_until(&mut walk, "download_errors").await;
    let errors = failed["download_errors"].to_string();
    assert!(errors.contains("broken.bin"), "{failed}");
    assert!(
        failed["text"].as_str().is_some(),
        "the snapshot itself is kept"
    );
    assert!(!saved.join("broken.bin").exists());

    // A save over the limit is cancelled in the browser.
    walk.service
        .downloads()
        .set_limit(std::time::Duration::from_secs(2));
    walk.click_on(&text, "Endless log").await;
    let stopped = snapshot_until(&mut walk, "download_errors").await;
    let errors = stopped["download_errors"].to_string();
    assert!(
        errors.contains("endless.log took longer than 2 seconds, so it was stopped"),
        "{stopped}"
    );
    assert!(!saved.join("endless.log").exists());

    // An address that downloads directly is a normal result, not a failed navigation.
    let direct = walk
        .call("browser_open", json!({"url": format!("{base}/dl/report")}))
        .await
        .expect("a download is no error");
    assert_eq!(
        saved_download(&mut walk, &direct, "report.pdf").await,
        json!(["downloads/report (3).pdf"])
    );
    assert!(direct["text"].as_str().is_some());

    // Nothing the browser wrote is left outside Files.
    let staging = home_dir
        .path()
        .join("browser")
        .join("downloads-in-progress");
    let left: Vec<_> = std::fs::read_dir(&staging)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    walk.service.close().await;
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_kept_in_site_storage_survives_an_idle_close() {
    let (base, server) = serve_files().await;
    // About a second of idle time, so the idle close comes within the test.
    let (mut walk, _home) = walk_with(json!({"browser": {"idle_minutes": 0.02}})).await;
    let page = walk
        .call("browser_open", json!({"url": format!("{base}/store")}))
        .await
        .expect("open");
    assert!(
        page["text"]
            .as_str()
            .expect("text")
            .contains("Signed in: no")
    );
    let text = page["text"].as_str().expect("text").to_owned();
    walk.call(
        "browser_click",
        json!({"ref": Walk::reference(&text, "Sign in")}),
    )
    .await
    .expect("sign in");

    let mut closed = false;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        if !walk.service.status().await.running {
            closed = true;
            break;
        }
    }
    assert!(closed, "the idle browser closed itself");

    let reopened = walk
        .call("browser_open", json!({"url": format!("{base}/store")}))
        .await
        .expect("open again");
    assert!(
        reopened["text"]
            .as_str()
            .expect("text")
            .contains("Signed in: yes"),
        "{reopened}"
    );
    walk.service.close().await;
    server.abort();
}

/// The task the test's run belongs to, and the runs the browser resumed.
#[derive(Default)]
struct RecordedResumes(std::sync::Mutex<Vec<(String, String)>>);

impl sentient_browser::BrowserTasks for RecordedResumes {
    fn rename_profile<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
    ) -> futures::future::BoxFuture<'a, Vec<String>> {
        Box::pin(async { Vec::new() })
    }
    fn tasks_using<'a>(&'a self, _: &'a str) -> futures::future::BoxFuture<'a, Vec<String>> {
        Box::pin(async { Vec::new() })
    }
    fn resume_run<'a>(
        &'a self,
        task_id: &'a str,
        run_id: &'a str,
    ) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(async move {
            self.0
                .lock()
                .expect("resumes")
                .push((task_id.to_owned(), run_id.to_owned()));
            true
        })
    }
}

struct TaskRunOf;

impl sentient_agent::tools::RunScope for TaskRunOf {
    fn task_run(&self) -> Option<(String, String)> {
        Some(("task-1".to_owned(), "run-1".to_owned()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_handed_to_the_person_resumes_the_run_once_it_moves_on() {
    use sentient_browser::handoff::PersonInput;
    let (base, server) = serve_files().await;
    let resumes = Arc::new(RecordedResumes::default());
    let (mut walk, _home) = walk_with_tasks(json!({"browser": {}}), resumes.clone()).await;
    walk.ctx.run = Some(Arc::new(TaskRunOf));
    let mut events = walk.bus.subscribe();
    assert!(
        walk.service.live_frame().await.is_err(),
        "no picture while nothing waits"
    );
    let page = walk
        .call("browser_open", json!({"url": format!("{base}/code")}))
        .await
        .expect("open");
    let text = page["text"].as_str().expect("text").to_owned();
    let refused = walk
        .call(
            "browser_type",
            json!({"ref": Walk::reference(&text, "Code"), "text": "999999"}),
        )
        .await
        .expect("a result");
    assert_eq!(refused["needs_user"], "the page asks for a one-time code");

    let waiting = walk
        .service
        .needs_you()
        .expect("the page waits for the person");
    assert_eq!(waiting.reason, "the page asks for a one-time code");
    assert_eq!(waiting.task_id.as_deref(), Some("task-1"));
    assert_eq!(waiting.run_id.as_deref(), Some("run-1"));
    assert!(waiting.url.ends_with("/code"));
    let mut announced = false;
    while let Ok(envelope) = events.try_recv() {
        if let DomainEvent::BrowserUpdated(status) = envelope.event
            && status.needs_you.as_ref().map(|n| &n.id) == Some(&waiting.id)
        {
            announced = true;
        }
    }
    assert!(announced, "browser.updated carries needs_you");
    let picture = walk.service.live_frame().await.expect("a picture");
    assert_eq!(&picture[..2], &[0xFF, 0xD8], "a JPEG");

    // Bad input changes nothing.
    let outside = PersonInput {
        kind: "tap".into(),
        x: Some(2.0),
        y: Some(0.5),
        ..Default::default()
    };
    assert!(outside.check().is_err());

    // The person taps the field and types the code; the run is resumed once it stays filled.
    let tap = PersonInput {
        kind: "tap".into(),
        x: Some(0.5),
        y: Some(0.25),
        ..Default::default()
    };
    walk.service
        .person_input(tap.check().expect("a tap"))
        .await
        .expect("tapped");
    let code = PersonInput {
        kind: "text".into(),
        text: Some("123456".into()),
        ..Default::default()
    };
    walk.service
        .person_input(code.check().expect("text"))
        .await
        .expect("typed");
    let resumed = || !resumes.0.lock().expect("resumes").is_empty();
    for _ in 0..100 {
        if walk.service.needs_you().is_none() && resumed() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(walk.service.needs_you().is_none(), "the hand-off ended");
    assert_eq!(
        resumes.0.lock().expect("resumes").clone(),
        vec![("task-1".to_owned(), "run-1".to_owned())]
    );
    // The code is in the page (the person's doing), never in a result the model saw.
    let after = walk
        .call("browser_snapshot", json!({}))
        .await
        .expect("snapshot");
    let seen = after["text"].as_str().expect("text");
    assert!(seen.contains("textbox \"Code\" value=\"••••\""), "{after}");
    assert!(!seen.contains("123456"), "{after}");
    assert!(
        walk.service
            .person_input(sentient_browser::handoff::Input::Key("enter".into()))
            .await
            .is_err(),
        "input only while something waits"
    );
    walk.service.close().await;
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_page_shows_live_while_it_opens() {
    let (base, server) = serve_files().await;
    let (mut walk, _home) = walk_with(json!({"browser": {}})).await;
    // The browser is started first, so the pictures are of the page loading.
    walk.call("browser_open", json!({"url": format!("{base}/store")}))
        .await
        .expect("open");
    walk.frames.lock().expect("frames").clear();
    let opened = walk
        .call("browser_open", json!({"url": format!("{base}/slow")}))
        .await
        .expect("slow page");
    assert_eq!(opened["title"], "Timetable");
    let frames = walk.frames.lock().expect("frames").clone();
    assert!(
        frames.len() >= 2,
        "a picture each second while the page loaded, then the last one: {}",
        frames.len()
    );
    assert!(
        frames
            .iter()
            .all(|f| f.starts_with("data:image/jpeg;base64,"))
    );
    walk.service.close().await;
    server.abort();
}

/// The processes under `root` (itself first), read from /proc.
#[cfg(target_os = "linux")]
fn process_tree(root: u32) -> Vec<(u32, Vec<String>)> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The parent is the second field after the command name's closing bracket.
        let after_name = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
        if let Some(ppid) = after_name
            .split(' ')
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
        {
            parents.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut next = 0;
    while next < tree.len() {
        let parent = tree[next];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        next += 1;
    }
    tree.into_iter()
        .map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            // Chromium's child processes rewrite their command line as one spaced string.
            let args = cmdline
                .split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .flat_map(|a| {
                    String::from_utf8_lossy(a)
                        .split(' ')
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect();
            (pid, args)
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_browser_starts_lean_one_renderer_and_no_omnibox_pages() {
    let (base, server) = serve_files().await;
    let (mut walk, home_dir) = walk_with(json!({"browser": {}})).await;
    walk.call("browser_open", json!({"url": format!("{base}/files")}))
        .await
        .expect("open");
    let profile_dir = home_dir
        .path()
        .join("browser")
        .join("profiles")
        .join("default");
    let data_dir_arg = format!("--user-data-dir={}", profile_dir.display());
    // The browser process: the one given our profile folder and no process type.
    let browser = std::fs::read_dir("/proc")
        .expect("proc")
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .find(|pid| {
            let tree = process_tree(*pid);
            let args = &tree[0].1;
            args.contains(&data_dir_arg) && !args.iter().any(|a| a.starts_with("--type="))
        })
        .expect("the browser's process");
    let tree = process_tree(browser);
    let args = &tree[0].1;
    assert!(
        args.iter()
            .any(|a| a == "--enable-aggressive-domstorage-flushing"),
        "{args:?}"
    );
    assert!(!args.iter().any(|a| a.starts_with("----")), "{args:?}");
    let disabled = args
        .iter()
        .find_map(|a| a.strip_prefix("--disable-features="))
        .expect("disabled features");
    for feature in [
        "WebUIOmniboxPopup",
        "WebUIOmniboxAimPopup",
        "SpareRendererForSitePerProcess",
        "TranslateUI",
    ] {
        assert!(disabled.split(',').any(|f| f == feature), "{disabled}");
    }
    let enabled = args
        .iter()
        .find_map(|a| a.strip_prefix("--enable-features="))
        .expect("enabled features");
    assert!(
        enabled.split(',').any(|f| f == "NetworkServiceInProcess2"),
        "{enabled}"
    );
    for flag in [
        "--disable-gpu",
        "--disable-software-rasterizer",
        "--js-flags=--optimize-for-size",
    ] {
        assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
    }
    // The network service runs inside the browser, and only the page's renderer is started
    // (no omnibox pages, no spare).
    let kinds: Vec<String> = tree
        .iter()
        .filter_map(|(_, a)| {
            let kind = a.iter().find_map(|x| x.strip_prefix("--type="))?;
            let sub = a
                .iter()
                .find_map(|x| x.strip_prefix("--utility-sub-type="))
                .unwrap_or("");
            Some(format!("{kind}{sub}"))
        })
        .collect();
    assert!(!kinds.iter().any(|k| k.contains("network")), "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| *k == "renderer").count(),
        1,
        "{kinds:?}"
    );
    walk.service.close().await;
    server.abort();
}
