//! Email over IMAP (issue 17) against real servers on loopback: Debian's Dovecot (with and
//! without IDLE) and aiosmtpd. A message put in the mailbox starts a triggered task once,
//! within `fast_sync_seconds`, with its sign-in code masked; privacy filters keep a message
//! out; the tools search, read and send.

use std::time::Duration;

use anyhow::{Context, Result};
use sentient_e2e::mail_servers::{Dovecot, SmtpSink};
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::{TestEngine, point_models_at, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// The servers, or `None` (with the reason printed) when this machine has none installed.
fn servers(idle: bool) -> Result<Option<(Dovecot, SmtpSink)>> {
    if !Dovecot::available() || !SmtpSink::available() {
        eprintln!("skipped: Dovecot or aiosmtpd is missing (tests/setup/lib.sh installs both)");
        return Ok(None);
    }
    Ok(Some((
        Dovecot::start(idle, &["Receipts", "Sent"])?,
        SmtpSink::start()?,
    )))
}

async fn engine(dovecot: &Dovecot) -> Result<(TestEngine, ScriptedModel)> {
    let t = TestEngine::start_with_endpoints(Endpoints {
        trusted_certificates: vec![dovecot.cert_pem.clone()],
        ..Endpoints::default()
    })
    .await?;
    let model = ScriptedModel::start().await;
    point_models_at(&t, &model).await?;
    let (status, body) = t
        .client
        .patch(
            "/api/config",
            json!({"chat": {"auto_title": false}, "memory": {"extract_after_turn": false},
                   "models": {"background_quiet_s": 0, "local_queue": false},
                   "tools": {"approvals": {"mode": "off"}},
                   "integrations": {"fast_sync_seconds": 2}}),
        )
        .await?;
    anyhow::ensure!(status == 200, "{status} {body}");
    Ok((t, model))
}

fn fields(dovecot: &Dovecot, smtp: &SmtpSink, password: &str) -> Value {
    json!({"host": "127.0.0.1", "security": "ssl", "port": dovecot.port.to_string(),
           "username": format!("{}@example.com", dovecot.user), "password": password, "folders": "INBOX, Receipts",
           "smtp_host": "127.0.0.1", "smtp_port": smtp.port.to_string()})
}

fn message(id: &str, from: &str, subject: &str, body: &str) -> String {
    format!(
        "Message-ID: <{id}@example.com>\r\nFrom: {from}\r\nTo: alice@example.com\r\n\
         Subject: {subject}\r\nDate: Tue, 01 Dec 2026 09:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

async fn feed(t: &TestEngine) -> Result<Value> {
    let (_, feeds) = t.client.get("/api/integrations/feeds").await?;
    feeds
        .as_array()
        .and_then(|l| l.iter().find(|f| f["source"] == "email_imap"))
        .cloned()
        .context("email_imap feed")
}

async fn connected(t: &TestEngine, dovecot: &Dovecot, smtp: &SmtpSink) -> Result<()> {
    let (status, body) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": fields(dovecot, smtp, &dovecot.password)}),
        )
        .await?;
    anyhow::ensure!(status == 200, "connect: {status} {body}\n{}", dovecot.log());
    // The first sync only baselines the folders.
    sentient_e2e::eventually("the feed's first sync", || async {
        Ok((feed(t).await?["status"] == "ok").then_some(()))
    })
    .await
}

async fn triggered_task(t: &TestEngine, model: &ScriptedModel, name: &str) -> Result<String> {
    model.push(Reply::text(
        json!({"name": name, "description": name, "priority": 1,
               "schedule": {"type": "triggered", "source": "email_imap", "event": "new_email"}})
        .to_string(),
    ));
    model.push(Reply::text(
        json!({"plan": [{"tool": "email_imap_read", "description": "Read the mail"}]}).to_string(),
    ));
    let (_, task) = t.client.post("/api/tasks", json!({"prompt": name})).await?;
    let id = task["task_id"].as_str().context("id")?.to_owned();
    wait_task(t, &id, |t| t["status"] == "approval_pending").await?;
    t.client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    wait_task(t, &id, |t| t["status"] == "active").await?;
    Ok(id)
}

fn runs(task: &Value) -> Vec<Value> {
    task["runs"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_new_message_starts_a_triggered_task_once_with_its_code_masked() -> Result<()> {
    let Some((dovecot, smtp)) = servers(true)? else {
        return Ok(());
    };
    let (t, model) = engine(&dovecot).await?;

    let (status, body) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": fields(&dovecot, &smtp, "not-the-password")}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("username or password")),
        "{body}"
    );
    let (_, imap) = t.client.get("/api/integrations/email_imap").await?;
    assert_eq!(imap["status"], "error");

    connected(&t, &dovecot, &smtp).await?;
    let (_, imap) = t.client.get("/api/integrations/email_imap").await?;
    assert_eq!(
        (imap["connected"].clone(), imap["account_label"].clone()),
        (json!(true), json!(format!("{}@example.com", dovecot.user)))
    );
    let feed_now = feed(&t).await?;
    assert_eq!(
        (feed_now["kind"].clone(), feed_now["active"].clone()),
        (json!("imap_idle"), json!(true)),
        "{feed_now}"
    );

    let id = triggered_task(&t, &model, "Watch my mail").await?;
    model.push(Reply::text("Read it."));
    let sent_at = std::time::Instant::now();
    dovecot.deliver(
        "INBOX",
        &message(
            "code1",
            "Acme <no-reply@acme.example>",
            "Your Acme sign-in code",
            "Your verification code is 482913. It expires in 10 minutes.",
        ),
    )?;
    let task = wait_task(&t, &id, |t| !runs(t).is_empty()).await?;
    let within = sent_at.elapsed();
    assert!(
        within < Duration::from_secs(2) + Duration::from_secs(3),
        "the run started after {within:?}"
    );
    let item = &runs(&task)[0]["trigger_event_data"];
    assert_eq!(item["subject"], "Your Acme sign-in code");
    assert_eq!(item["sender_email"], "no-reply@acme.example");
    let body = item["body"].as_str().unwrap_or_default();
    assert!(
        body.contains("[one-time code hidden]") && !body.contains("482913"),
        "{item}"
    );
    assert!(
        item["labels"]
            .as_array()
            .is_some_and(|l| l.contains(&json!("INBOX"))),
        "{item}"
    );

    // A sync by hand and the next wake find nothing new: still one run.
    let (status, synced) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    assert_eq!(status, 200);
    assert_eq!(
        (synced["ok"].clone(), synced["emitted"].clone()),
        (json!(true), json!(0)),
        "{synced}"
    );
    // Wait for the feed's own next sync (its last_sync_at moves), then count again.
    let synced_at = feed(&t).await?["last_sync_at"].clone();
    sentient_e2e::eventually("the feed's next sync", || async {
        Ok((feed(&t).await?["last_sync_at"] != synced_at).then_some(()))
    })
    .await?;
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(runs(&task).len(), 1, "{task}");

    // A message in the second watched folder is found after the wake too.
    model.push(Reply::text("Read it."));
    dovecot.deliver(
        "Receipts",
        &message(
            "r1",
            "Shop <orders@shop.example>",
            "Order 1234567 confirmed",
            "Total $12.99",
        ),
    )?;
    let task = match wait_task(&t, &id, |t| runs(t).len() == 2).await {
        Ok(task) => task,
        Err(error) => {
            let (_, synced) = t
                .client
                .post("/api/integrations/feeds/email_imap/sync", json!({}))
                .await?;
            anyhow::bail!(
                "{error}\nfeed: {}\nsync: {synced}\n{}",
                feed(&t).await?,
                dovecot.log()
            );
        }
    };
    assert_eq!(
        runs(&task)[1]["trigger_event_data"]["subject"],
        "Order 1234567 confirmed"
    );

    // Filtered mail never starts anything.
    let (status, _) = t
        .client
        .put(
            "/api/integrations/email_imap/privacy-filters",
            json!({"emails": ["@clinic.example"]}),
        )
        .await?;
    assert_eq!(status, 200);
    dovecot.deliver(
        "INBOX",
        &message(
            "lab",
            "Clinic <results@clinic.example>",
            "Lab results",
            "All fine.",
        ),
    )?;
    let (status, synced) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    assert_eq!(
        (status, synced["emitted"].clone()),
        (200, json!(0)),
        "{synced}"
    );
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(runs(&task).len(), 2, "the filtered message started nothing");

    let (_, feeds) = t.client.get("/api/integrations/feeds").await?;
    let imap_feed = feeds
        .as_array()
        .and_then(|l| l.iter().find(|f| f["source"] == "email_imap"))
        .context("feed")?;
    assert_eq!(imap_feed["emitted"], 2, "{imap_feed}");
    assert_eq!(imap_feed["failures"], 0);
    let (status, _) = t
        .client
        .post("/api/integrations/feeds/nope/sync", json!({}))
        .await?;
    assert_eq!(status, 404);
    let (_, gmail) = t
        .client
        .post("/api/integrations/feeds/gmail/sync", json!({}))
        .await?;
    assert_eq!(
        gmail,
        json!({"ok": false, "skipped": "not connected", "emitted": 0})
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_tools_search_read_and_send_and_hide_codes_and_filtered_mail() -> Result<()> {
    let Some((dovecot, smtp)) = servers(false)? else {
        return Ok(());
    };
    let (t, model) = engine(&dovecot).await?;
    dovecot.deliver(
        "INBOX",
        &message(
            "a",
            "Bob <bob@example.com>",
            "Dinner on Friday?",
            "Shall we book the Thai place? Reservation code 55123.",
        ),
    )?;
    dovecot.deliver(
        "INBOX",
        &message(
            "b",
            "Bank <alerts@bank.example>",
            "Security alert",
            "Use this code to sign in: 829104",
        ),
    )?;
    dovecot.deliver(
        "INBOX",
        &message(
            "c",
            "Clinic <results@clinic.example>",
            "Dinner reminder",
            "Your appointment is on Friday.",
        ),
    )?;
    connected(&t, &dovecot, &smtp).await?;
    assert_eq!(feed(&t).await?["kind"], "imap_idle");
    t.client
        .put(
            "/api/integrations/email_imap/privacy-filters",
            json!({"emails": ["results@clinic.example"]}),
        )
        .await?;

    model.push(Reply::tool_call(
        "email_imap_search",
        json!({"query": "dinner"}),
    ));
    model.push(Reply::text("Bob asked about Friday."));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Any mail about dinner?"}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    let items = result["result"].as_array().context("items")?;
    assert_eq!(
        items.len(),
        1,
        "the clinic's mail is filtered out: {result}"
    );
    assert_eq!(items[0]["subject"], "Dinner on Friday?");
    assert!(
        items[0]["body"]
            .as_str()
            .is_some_and(|b| b.contains("Reservation code 55123")),
        "booking codes stay"
    );
    assert_eq!(items[0]["url"], Value::Null);
    let bob = items[0]["id"].as_str().context("id")?.to_owned();
    let bob_message_id = items[0]["message_id"]
        .as_str()
        .context("message id")?
        .to_owned();

    model.push(Reply::tool_call(
        "email_imap_search",
        json!({"query": "sign in"}),
    ));
    model.push(Reply::text("A bank alert."));
    ws.send_json(json!({"type": "chat.send", "text": "Anything from the bank?"}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    let text = result["result"].to_string();
    assert!(
        text.contains("[one-time code hidden]") && !text.contains("829104"),
        "{result}"
    );

    model.push(Reply::tool_call("email_imap_read", json!({"id": bob})));
    model.push(Reply::text("Read."));
    ws.send_json(json!({"type": "chat.send", "text": "Open Bob's mail."}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    assert_eq!(
        result["result"]["from"], "Bob <bob@example.com>",
        "{result}"
    );

    model.push(Reply::tool_call(
        "email_imap_send",
        json!({"to": ["bob@example.com"], "subject": "Re: Dinner on Friday?", "body": "Yes, 7pm!", "in_reply_to": bob_message_id}),
    ));
    model.push(Reply::text("Sent."));
    ws.send_json(json!({"type": "chat.send", "text": "Say yes to Bob."}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    ws.wait_for("done").await?;
    assert_eq!(result["result"]["ok"], true, "{result}");
    sentient_e2e::eventually("a message at the SMTP server", || async {
        Ok((!smtp.received().is_empty()).then_some(()))
    })
    .await?;
    let sent = smtp.received().join("\n");
    assert!(
        sent.contains("Subject: Re: Dinner on Friday?")
            && sent.contains(&format!("In-Reply-To: {bob_message_id}")),
        "{sent}"
    );

    // Disconnect deletes the account; the tools then say so.
    let (status, imap) = t
        .client
        .post("/api/integrations/email_imap/disconnect", json!({}))
        .await?;
    assert_eq!((status, imap["connected"].clone()), (200, json!(false)));
    assert_eq!(feed(&t).await?["status"], "disconnected");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn stop_everything_holds_new_mail_until_resume_and_failures_back_off() -> Result<()> {
    let Some((dovecot, smtp)) = servers(false)? else {
        return Ok(());
    };
    let (t, _model) = engine(&dovecot).await?;
    connected(&t, &dovecot, &smtp).await?;
    // Syncs by hand from here on.
    t.client
        .patch(
            "/api/config",
            json!({"integrations": {"fast_sync_seconds": 0}}),
        )
        .await?;
    let mut ws = t.ws().await?;
    let (status, _) = t.client.post("/api/stop-all", json!({})).await?;
    assert_eq!(status, 200);
    dovecot.deliver(
        "INBOX",
        &message("held", "Ann <ann@example.com>", "While stopped", "Hi"),
    )?;
    let (_, synced) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    assert_eq!(
        synced,
        json!({"ok": false, "emitted": 0, "skipped": "stopped"})
    );
    t.client.post("/api/resume", json!({})).await?;
    let (_, synced) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    assert_eq!(
        synced["emitted"], 1,
        "the mail that came while stopped is announced now: {synced}"
    );
    let published = ws.wait_for("source.items").await?;
    assert_eq!(published["data"]["source"], "email_imap");
    assert_eq!(published["data"]["origin"], "feed");
    assert_eq!(published["data"]["items"][0]["subject"], "While stopped");

    // The server goes away: each failed sync backs off twice as long and moves no cursor.
    drop(dovecot);
    let (_, first) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    assert_eq!(
        (
            first["ok"].clone(),
            first["failures"].clone(),
            first["retry_in_s"].clone()
        ),
        (json!(false), json!(1), json!(60)),
        "{first}"
    );
    assert!(first["error"].is_string());
    let (_, second) = t
        .client
        .post("/api/integrations/feeds/email_imap/sync", json!({}))
        .await?;
    assert_eq!(
        (second["failures"].clone(), second["retry_in_s"].clone()),
        (json!(2), json!(120)),
        "{second}"
    );
    let now = feed(&t).await?;
    assert_eq!(now["failures"], 2);
    assert!(
        now["last_error"].is_string() && now["next_attempt_at"].is_string(),
        "{now}"
    );
    assert_eq!(now["emitted"], 1);
    t.stop().await;
    Ok(())
}

fn dated(
    id: &str,
    from: &str,
    subject: &str,
    days_ago: u64,
    in_reply_to: Option<&str>,
) -> (String, std::time::SystemTime) {
    let at = std::time::SystemTime::now() - Duration::from_secs(days_ago * 86_400);
    let date = chrono::DateTime::<chrono::Utc>::from(at).to_rfc2822();
    let reply = in_reply_to
        .map(|r| format!("In-Reply-To: <{r}@example.com>\r\nReferences: <{r}@example.com>\r\n"))
        .unwrap_or_default();
    let raw = format!(
        "Message-ID: <{id}@example.com>\r\nFrom: {from}\r\nTo: someone@example.com\r\n{reply}\
         Subject: {subject}\r\nDate: {date}\r\nList-Id: <ignored.example.com>\r\nX-Other: dropped\r\n\
         Content-Type: text/plain\r\n\r\nText of {id}.\r\n"
    );
    (raw, at)
}

#[tokio::test]
async fn recent_threads_are_quiet_conversations_with_the_newest_text_only() -> Result<()> {
    let Some((dovecot, smtp)) = servers(false)? else {
        return Ok(());
    };
    let me = format!("{}@example.com", dovecot.user);
    for (folder, (raw, at)) in [
        (
            "INBOX",
            dated("a1", "Bob <bob@example.com>", "Quote for the roof", 6, None),
        ),
        (
            "Sent",
            dated(
                "a2",
                &format!("Me <{me}>"),
                "Re: Quote for the roof",
                5,
                Some("a1"),
            ),
        ),
        (
            "INBOX",
            dated("b1", "Carol <carol@example.com>", "Lunch today?", 1, None),
        ),
        (
            "INBOX",
            dated("c1", "Dan <dan@example.com>", "Old news", 40, None),
        ),
        (
            "INBOX",
            dated("d1", "Clinic <results@clinic.example>", "Results", 6, None),
        ),
    ] {
        dovecot.deliver_received(folder, &raw, at)?;
    }
    let (t, _model) = engine(&dovecot).await?;
    let (status, body) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": fields(&dovecot, &smtp, &dovecot.password)}),
        )
        .await?;
    anyhow::ensure!(status == 200, "{status} {body}");
    t.client
        .put(
            "/api/integrations/email_imap/privacy-filters",
            json!({"emails": ["@clinic.example"]}),
        )
        .await?;
    let found = t
        .engine
        .services()
        .integrations()
        .recent_threads("email_imap", 14, 3, 40)
        .await?;
    assert_eq!(found.note, None);
    assert!(
        found.addresses.contains(&me.to_lowercase()),
        "{:?}",
        found.addresses
    );
    assert_eq!(
        found.threads.len(),
        1,
        "only the quiet roof thread: {:#?}",
        found.threads
    );
    let thread = &found.threads[0];
    assert_eq!(thread["source"], "email_imap");
    let messages = thread["messages"].as_array().context("messages")?;
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["from_me"], false);
    assert_eq!(messages[1]["from_me"], true);
    assert_eq!(messages[0]["body"], "", "only the newest keeps its text");
    assert!(
        messages[1]["body"]
            .as_str()
            .is_some_and(|b| b.contains("Text of a2"))
    );
    assert_eq!(messages[1]["mailbox"], "Sent");
    assert!(
        messages[1]["headers"].get("list-id").is_some()
            && messages[1]["headers"].get("x-other").is_none()
    );
    t.stop().await;
    Ok(())
}

/// An autoconfig document for `example.com` naming the Dovecot stand-in (implicit TLS, the
/// whole address as username), served on loopback where the engine looks for it.
async fn autoconfig_for(dovecot: &Dovecot) -> Result<String> {
    let document = format!(
        r#"<?xml version="1.0"?>
<clientConfig version="1.1"><emailProvider id="example.com">
  <domain>example.com</domain><displayName>Example Mail</displayName>
  <incomingServer type="imap"><hostname>127.0.0.1</hostname><port>{}</port>
    <socketType>SSL</socketType><username>%EMAILADDRESS%</username>
    <authentication>password-cleartext</authentication></incomingServer>
</emailProvider></clientConfig>"#,
        dovecot.port
    );
    let app = axum::Router::new().route(
        "/example.com/mail/config-v1.1.xml",
        axum::routing::get(move || {
            let document = document.clone();
            async move { document }
        }),
    );
    sentient_e2e::serve_on_loopback(app, "/{domain}/mail/config-v1.1.xml").await
}

#[tokio::test]
async fn two_fields_connect_through_the_domains_autoconfig_and_a_cancel_leaves_no_error()
-> Result<()> {
    if !Dovecot::available() {
        eprintln!("skipped: Dovecot is missing (tests/setup/lib.sh installs it)");
        return Ok(());
    }
    let dovecot = Dovecot::start(true, &[])?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        trusted_certificates: vec![dovecot.cert_pem.clone()],
        mail_autoconfig: vec![autoconfig_for(&dovecot).await?],
        ..Endpoints::default()
    })
    .await?;
    let address = format!("{}@example.com", dovecot.user);

    // What the two-field form shows once the address is typed.
    let (status, found) = t
        .client
        .get(&format!(
            "/api/integrations/email/discover?address={address}"
        ))
        .await?;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["source"], "autoconfig");
    assert_eq!(found["provider"], "Example Mail");
    assert_eq!(found["host"], "127.0.0.1");
    assert_eq!(found["port"], dovecot.port);
    assert_eq!(found["security"], "ssl");
    assert_eq!(found["username"], address.as_str());
    for bad in [
        "",
        "?address=",
        "?address=alice",
        "?address=alice%40localhost",
    ] {
        let (status, body) = t
            .client
            .get(&format!("/api/integrations/email/discover{bad}"))
            .await?;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(
            body["detail"],
            "Enter your whole email address, like name@example.com."
        );
    }

    // A wrong app password: a plain sentence, the card shows the error behind the dialog...
    let (status, body) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": {"username": address, "password": "not it"}}),
        )
        .await?;
    assert_eq!(status, 400, "{body}");
    let said = body["detail"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("Example Mail didn't accept the password."),
        "{said}"
    );
    let (_, app) = t.client.get("/api/integrations/email_imap").await?;
    assert_eq!(app["status"], "error");
    // ...and Cancel puts it back to Not connected, with no error.
    let (status, app) = t
        .client
        .post("/api/integrations/email_imap/cancel", json!({}))
        .await?;
    assert_eq!(status, 200, "{app}");
    assert_eq!(app["status"], "disconnected");
    assert_eq!(app["error"], Value::Null);
    assert_eq!(app["connected"], false);

    // The address and the app password are all it takes.
    let (status, app) = t
        .client
        .post(
            "/api/integrations/email_imap/connect",
            json!({"fields": {"username": address, "password": dovecot.password}}),
        )
        .await?;
    assert_eq!(status, 200, "connect: {app}\n{}", dovecot.log());
    assert_eq!(app["status"], "connected");
    assert_eq!(app["account_label"], address.as_str());
    let (_, tested) = t
        .client
        .post("/api/integrations/email_imap/test", json!({}))
        .await?;
    assert_eq!(tested["ok"], true, "{tested}");
    assert_eq!(
        tested["detail"],
        format!("Signed in as {address}; watching INBOX.")
    );

    // A cancel after a connect that worked changes nothing; an unknown app is a 404.
    let (_, app) = t
        .client
        .post("/api/integrations/email_imap/cancel", json!({}))
        .await?;
    assert_eq!(app["status"], "connected");
    let (status, body) = t
        .client
        .post("/api/integrations/nope/cancel", json!({}))
        .await?;
    assert_eq!(status, 404, "{body}");
    Ok(())
}
