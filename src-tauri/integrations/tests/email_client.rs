//! The email (IMAP + SMTP) client layer against real servers on loopback: Dovecot for IMAP and
//! aiosmtpd for SMTP (tests/harness/mail_servers.rs). A test is skipped, saying why, only when
//! the server's program is missing.
#![cfg(feature = "email")]

#[allow(dead_code)]
#[path = "../../../tests/harness/mail_servers.rs"]
mod mail_servers;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use mail_servers::{Dovecot, SmtpSink};
use sentient_integrations::email_imap::client::{
    IdleOutcome, ImapSession, ImapSettings, MailError, Security, Trust,
};
use sentient_integrations::email_imap::smtp::{self, OutgoingMail, SmtpSettings};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

const TIMEOUT: Duration = Duration::from_secs(10);
const FOLDERS: [&str; 3] = ["INBOX", "Receipts", "Sent"];

macro_rules! need_dovecot {
    () => {
        if !Dovecot::available() {
            eprintln!("SKIPPED: dovecot is not installed (apt-get install dovecot-imapd)");
            return Ok(());
        }
    };
}

macro_rules! need_sink {
    () => {
        if !SmtpSink::available() {
            eprintln!("SKIPPED: aiosmtpd is not in .venv-tests (tests/setup/lib.sh installs it)");
            return Ok(());
        }
    };
}

fn settings(server: &Dovecot) -> ImapSettings {
    ImapSettings {
        host: "127.0.0.1".into(),
        port: server.port,
        security: Security::Ssl,
        username: server.user.clone(),
        password: server.password.clone(),
    }
}

fn trust(server: &Dovecot) -> Trust {
    Trust {
        extra_roots_pem: vec![server.cert_pem.clone()],
    }
}

async fn connect(server: &Dovecot) -> Result<ImapSession> {
    ImapSession::connect(&settings(server), &trust(server), TIMEOUT)
        .await
        .with_context(|| format!("connecting; dovecot log:\n{}", server.log()))
}

fn simple(from: &str, subject: &str, date: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: Me <me@example.test>\r\nSubject: {subject}\r\nDate: {date}\r\n\
Message-ID: <{}@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        subject.replace(' ', "-").to_lowercase()
    )
}

const ALTERNATIVE: &str = "From: =?UTF-8?Q?Ren=C3=A9e?= Example <renee@example.test>\r\n\
To: me@example.test\r\n\
Subject: =?UTF-8?Q?Caf=C3=A9_menu_=E2=98=95?=\r\n\
Date: Wed, 06 Mar 2024 09:15:00 -0500\r\n\
Message-ID: <alt-1@example.test>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/alternative; boundary=\"xyz\"\r\n\
\r\n\
--xyz\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
Content-Transfer-Encoding: quoted-printable\r\n\
\r\n\
Today's special: cr=C3=A8me br=C3=BBl=C3=A9e.\r\n\
\r\n\
See   you   there.\r\n\
--xyz\r\n\
Content-Type: text/html; charset=utf-8\r\n\
\r\n\
<html><body><p>HTML version only</p></body></html>\r\n\
--xyz--\r\n";

fn field<'a>(item: &'a Value, name: &str) -> &'a str {
    item[name].as_str().unwrap_or_default()
}

#[tokio::test]
async fn connects_and_selects_watched_folders() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    let mut session = connect(&server).await?;
    assert!(
        session.has_idle().await,
        "dovecot with IDLE should announce it"
    );
    for folder in FOLDERS {
        let state = session.select(folder).await?;
        assert_eq!(state.exists, 0, "{folder}");
        assert!(state.uid_validity > 0, "{folder}");
        assert_eq!(state.uid_next, 1, "{folder}");
    }
    let boxes = session.mailboxes().await?;
    let sent: Vec<&str> = boxes
        .iter()
        .filter(|(_, s)| *s)
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(sent, ["Sent"], "{boxes:?}");
    assert!(boxes.iter().any(|(n, _)| n == "Receipts"), "{boxes:?}");
    assert_eq!(session.sent_mailbox().await?.as_deref(), Some("Sent"));
    session.logout().await;
    Ok(())
}

#[tokio::test]
async fn wrong_password_is_its_own_error() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &["INBOX"])?;
    let mut wrong = settings(&server);
    wrong.password = "not-the-password".into();
    let err = ImapSession::connect(&wrong, &trust(&server), TIMEOUT)
        .await
        .err()
        .context("signing in with a wrong password worked")?;
    assert_eq!(err, MailError::WrongPassword);
    assert!(err.to_string().contains("app password"), "{err}");
    Ok(())
}

#[tokio::test]
async fn untrusted_certificate_and_closed_port_are_explained() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &["INBOX"])?;
    let err = ImapSession::connect(&settings(&server), &Trust::default(), TIMEOUT)
        .await
        .err()
        .context("a self-signed certificate was trusted")?;
    assert!(matches!(err, MailError::Tls(_)), "{err:?}");

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.port()
    };
    let mut nowhere = settings(&server);
    nowhere.port = closed;
    let err = ImapSession::connect(&nowhere, &trust(&server), TIMEOUT)
        .await
        .err()
        .context("connected to a closed port")?;
    assert!(
        matches!(err, MailError::Unreachable { port, .. } if port == closed),
        "{err:?}"
    );
    Ok(())
}

#[tokio::test]
async fn non_ascii_password_signs_in_with_sasl_plain() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &["INBOX"])?;
    // Dovecot rereads its passwd-file when it changes: give alice a UTF-8 password.
    let passwd = server.dir().join("passwd");
    let line = std::fs::read_to_string(&passwd)?;
    let old = format!("{{PLAIN}}{}", server.password);
    std::fs::write(&passwd, line.replace(&old, "{PLAIN}pässwörd-☕"))?;
    let mut utf8 = settings(&server);
    utf8.password = "pässwörd-☕".into();
    let mut session = ImapSession::connect(&utf8, &trust(&server), TIMEOUT)
        .await
        .with_context(|| format!("UTF-8 password; dovecot log:\n{}", server.log()))?;
    session.select("INBOX").await?;
    utf8.password = "pässwörd-x".into();
    let err = ImapSession::connect(&utf8, &trust(&server), TIMEOUT)
        .await
        .err()
        .context("a wrong UTF-8 password worked")?;
    assert_eq!(err, MailError::WrongPassword);
    Ok(())
}

#[tokio::test]
async fn missing_folder_is_named() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &["INBOX"])?;
    let mut session = connect(&server).await?;
    let err = session
        .select("Nope")
        .await
        .err()
        .context("selecting a missing folder worked")?;
    assert_eq!(err, MailError::NoFolder("Nope".into()));
    assert_eq!(
        err.to_string(),
        "There is no folder called \"Nope\" on the email server."
    );
    // The session stays usable after a refused command.
    session.select("INBOX").await?;
    Ok(())
}

#[tokio::test]
async fn new_mail_is_listed_and_fetched_as_items() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    let mut session = connect(&server).await?;
    let baseline = session.select("INBOX").await?;

    server.deliver(
        "INBOX",
        &simple(
            "Ann <ann@example.test>",
            "First note",
            "Mon, 04 Mar 2024 10:00:00 +0000",
            "one",
        ),
    )?;
    server.deliver("INBOX", ALTERNATIVE)?;
    server.deliver(
        "INBOX",
        &simple(
            "carl@example.test",
            "Third note",
            "Thu, 07 Mar 2024 23:30:00 +0200",
            "three",
        ),
    )?;

    let uids = session.uids_after("INBOX", baseline.uid_next - 1).await?;
    assert_eq!(uids.len(), 3, "{uids:?}");
    assert!(uids.windows(2).all(|w| w[0] < w[1]), "{uids:?}");
    assert!(session.uids_after("INBOX", uids[2]).await?.is_empty());
    assert_eq!(session.uids_after("INBOX", uids[0]).await?, uids[1..]);

    let items = session.fetch("INBOX", &uids, 10_000).await?;
    assert_eq!(items.len(), 3);
    let first = &items[0];
    assert_eq!(field(first, "id"), uids[0].to_string());
    assert_eq!(field(first, "from"), "Ann <ann@example.test>");
    assert_eq!(field(first, "sender_email"), "ann@example.test");
    assert_eq!(field(first, "subject"), "First note");
    assert_eq!(field(first, "date"), "2024-03-04T10:00:00Z");
    assert_eq!(first["labels"], serde_json::json!(["INBOX", "UNREAD"]));
    assert_eq!(first["url"], Value::Null);
    assert_eq!(field(first, "message_id"), "<first-note@example.test>");
    assert_eq!(field(first, "thread_id"), "<first-note@example.test>");
    assert_eq!(field(first, "mailbox"), "INBOX");
    assert_eq!(field(first, "to"), "Me <me@example.test>");

    let alt = &items[1];
    assert_eq!(field(alt, "subject"), "Café menu ☕");
    assert_eq!(field(alt, "from"), "Renée Example <renee@example.test>");
    assert_eq!(field(alt, "date"), "2024-03-06T14:15:00Z");
    assert_eq!(
        field(alt, "body"),
        "Today's special: crème brûlée.\n\nSee   you   there."
    );
    assert_eq!(
        field(alt, "snippet"),
        "Today's special: crème brûlée. See you there."
    );
    assert!(
        field(&alt["headers"], "content-type").starts_with("multipart/alternative"),
        "{alt}"
    );
    assert_eq!(field(&items[2], "date"), "2024-03-07T21:30:00Z");
    assert_eq!(field(&items[2], "from"), "carl@example.test");

    // Fetching peeks: the messages stay unread.
    let again = session.fetch("INBOX", &uids[..1], 5).await?;
    assert_eq!(again[0]["labels"], serde_json::json!(["INBOX", "UNREAD"]));
    assert_eq!(field(&again[0], "body"), "one");
    let capped = session.fetch("INBOX", &uids[1..2], 10).await?;
    assert_eq!(field(&capped[0], "body").chars().count(), 10);

    // A UID that isn't there is left out.
    let some = session.fetch("INBOX", &[uids[2], 9999], 100).await?;
    assert_eq!(some.len(), 1);
    Ok(())
}

#[tokio::test]
async fn flags_become_labels_in_other_folders() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    server.deliver_with_flags(
        "Receipts",
        &simple(
            "shop@example.test",
            "Your receipt",
            "Fri, 01 Mar 2024 08:00:00 +0000",
            "Total 12 EUR",
        ),
        "SF",
    )?;
    let mut session = connect(&server).await?;
    let uids = session.uids_after("Receipts", 0).await?;
    assert_eq!(uids.len(), 1);
    let items = session.fetch("Receipts", &uids, 100).await?;
    assert_eq!(
        items[0]["labels"],
        serde_json::json!(["Receipts", "STARRED"])
    );
    assert_eq!(field(&items[0], "mailbox"), "Receipts");
    Ok(())
}

#[tokio::test]
async fn search_finds_body_words_newest_first() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    for (i, body) in [
        "the invoice for January",
        "nothing to see",
        "second invoice, February",
        "third invoice: March",
        "café crème for you",
    ]
    .iter()
    .enumerate()
    {
        server.deliver(
            "INBOX",
            &simple(
                "billing@example.test",
                &format!("Message {i}"),
                "Mon, 04 Mar 2024 10:00:00 +0000",
                body,
            ),
        )?;
    }
    let mut session = connect(&server).await?;
    let found = session.search("INBOX", "invoice", 10, 1000).await?;
    let subjects: Vec<&str> = found.iter().map(|i| field(i, "subject")).collect();
    assert_eq!(subjects, ["Message 3", "Message 2", "Message 0"]);

    let limited = session.search("INBOX", "invoice", 2, 1000).await?;
    let subjects: Vec<&str> = limited.iter().map(|i| field(i, "subject")).collect();
    assert_eq!(subjects, ["Message 3", "Message 2"]);

    // Every word must match; quotes and backslashes are sent safely.
    let both = session.search("INBOX", "invoice March", 10, 1000).await?;
    assert_eq!(both.len(), 1);
    assert_eq!(field(&both[0], "subject"), "Message 3");
    assert!(
        session
            .search("INBOX", "\"inv\\oice", 10, 1000)
            .await?
            .is_empty()
    );

    // Non-ASCII words go as UTF-8 literals.
    let cafe = session.search("INBOX", "crème", 10, 1000).await?;
    assert_eq!(cafe.len(), 1, "{cafe:?}");
    assert_eq!(field(&cafe[0], "subject"), "Message 4");

    let newest = session.search("INBOX", "", 2, 1000).await?;
    let subjects: Vec<&str> = newest.iter().map(|i| field(i, "subject")).collect();
    assert_eq!(subjects, ["Message 4", "Message 3"]);
    assert!(
        session
            .search("INBOX", "nomatchanywhere", 10, 1000)
            .await?
            .is_empty()
    );
    Ok(())
}

#[tokio::test]
async fn idle_wakes_on_new_mail() -> Result<()> {
    need_dovecot!();
    let server = std::sync::Arc::new(Dovecot::start(true, &FOLDERS)?);
    let mut session = connect(&server).await?;
    let state = session.select("INBOX").await?;
    let cancel = CancellationToken::new();

    let deliverer = {
        let server = server.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            server.deliver(
                "INBOX",
                &simple(
                    "ann@example.test",
                    "Wake up",
                    "Mon, 04 Mar 2024 10:00:00 +0000",
                    "hello",
                ),
            )
        })
    };
    let started = Instant::now();
    let (mut session, outcome) = session.idle(Duration::from_secs(20), &cancel).await?;
    let waited = started.elapsed();
    deliverer.await??;
    assert_eq!(outcome, IdleOutcome::Changed);
    assert!(waited < Duration::from_secs(5), "woke after {waited:?}");
    let uids = session.uids_after("INBOX", state.uid_next - 1).await?;
    assert_eq!(uids.len(), 1);
    // The session works after IDLE.
    let items = session.fetch("INBOX", &uids, 100).await?;
    assert_eq!(field(&items[0], "subject"), "Wake up");
    Ok(())
}

#[tokio::test]
async fn idle_times_out_and_cancels() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    let mut session = connect(&server).await?;
    session.select("INBOX").await?;
    let cancel = CancellationToken::new();

    let started = Instant::now();
    let (session, outcome) = session.idle(Duration::from_millis(800), &cancel).await?;
    assert_eq!(outcome, IdleOutcome::TimedOut);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(700) && waited < Duration::from_secs(5),
        "{waited:?}"
    );

    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let (mut session, outcome) = session.idle(Duration::from_secs(30), &cancel).await?;
    assert_eq!(outcome, IdleOutcome::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(5));
    // Still usable after DONE.
    session.noop().await?;
    assert!(session.uids_after("INBOX", 0).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn server_without_idle_is_polled_with_noop() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(false, &FOLDERS)?;
    let mut session = connect(&server).await?;
    assert!(!session.has_idle().await, "{:?}", session.capabilities());
    session.select("INBOX").await?;
    assert!(!session.noop_changed().await?);
    server.deliver(
        "INBOX",
        &simple(
            "ann@example.test",
            "Polled",
            "Mon, 04 Mar 2024 10:00:00 +0000",
            "hi",
        ),
    )?;
    assert!(
        session.noop_changed().await?,
        "NOOP should report the new mail"
    );
    assert_eq!(session.uids_after("INBOX", 0).await?.len(), 1);
    let cancel = CancellationToken::new();
    let err = session
        .idle(Duration::from_secs(1), &cancel)
        .await
        .err()
        .context("IDLE on a server without it")?;
    assert!(matches!(err, MailError::Protocol(_)), "{err:?}");
    Ok(())
}

#[tokio::test]
async fn uid_validity_is_stable_across_sessions() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    let mut first = connect(&server).await?;
    let a = first.select("INBOX").await?;
    let r = first.select("Receipts").await?;
    first.logout().await;
    server.deliver(
        "INBOX",
        &simple(
            "ann@example.test",
            "Between",
            "Mon, 04 Mar 2024 10:00:00 +0000",
            "hi",
        ),
    )?;
    let mut second = connect(&server).await?;
    let b = second.select("INBOX").await?;
    assert_eq!(a.uid_validity, b.uid_validity);
    assert_eq!(b.exists, 1);
    assert_eq!(b.uid_next, a.uid_next + 1);
    assert_eq!(
        second.select("Receipts").await?.uid_validity,
        r.uid_validity
    );
    Ok(())
}

#[tokio::test]
async fn sent_copy_can_be_appended() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    let mut session = connect(&server).await?;
    let composed = smtp::compose(&OutgoingMail {
        from: "Me <me@example.test>".into(),
        to: vec!["you@example.test".into()],
        subject: "Kept copy".into(),
        body: "stored in Sent".into(),
        ..Default::default()
    })?;
    session.append("Sent", &composed.raw, true).await?;
    let uids = session.uids_after("Sent", 0).await?;
    let items = session.fetch("Sent", &uids, 100).await?;
    assert_eq!(items.len(), 1);
    assert_eq!(field(&items[0], "subject"), "Kept copy");
    assert_eq!(field(&items[0], "message_id"), composed.message_id);
    assert_eq!(items[0]["labels"], serde_json::json!(["Sent"]));
    let err = session
        .append("Nope", &composed.raw, true)
        .await
        .err()
        .context("appending to a missing folder")?;
    assert_eq!(err, MailError::NoFolder("Nope".into()));
    Ok(())
}

#[tokio::test]
async fn starttls_upgrades_a_plain_connection() -> Result<()> {
    need_dovecot!();
    let server = Dovecot::start(true, &FOLDERS)?;
    let mut starttls = settings(&server);
    starttls.security = Security::Starttls;
    starttls.port = server.starttls_port;
    let mut session = ImapSession::connect(&starttls, &trust(&server), TIMEOUT)
        .await
        .with_context(|| format!("STARTTLS; dovecot log:\n{}", server.log()))?;
    assert!(session.select("Receipts").await?.uid_validity > 0);
    session.logout().await;

    // SSL against the plain port: the server greets in plain text instead of a handshake.
    let mut ssl_on_plain = settings(&server);
    ssl_on_plain.port = server.starttls_port;
    let err = ImapSession::connect(&ssl_on_plain, &trust(&server), TIMEOUT)
        .await
        .err()
        .context("SSL on a plain port worked")?;
    assert!(matches!(err, MailError::Tls(_)), "{err:?}");
    assert!(err.to_string().contains("security setting"), "{err}");

    // STARTTLS against the implicit TLS port: no plain greeting comes, so it times out.
    let mut starttls_on_tls = starttls.clone();
    starttls_on_tls.port = server.port;
    let started = Instant::now();
    let err = ImapSession::connect(&starttls_on_tls, &trust(&server), Duration::from_secs(2))
        .await
        .err()
        .context("STARTTLS on an implicit TLS port worked")?;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(err, MailError::TimedOut | MailError::Protocol(_)),
        "{err:?}"
    );
    Ok(())
}

#[tokio::test]
async fn a_silent_server_times_out() -> Result<()> {
    // Accepts the connection and never says anything.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let started = Instant::now();
    let err = ImapSession::connect(
        &ImapSettings {
            host: "127.0.0.1".into(),
            port,
            security: Security::Ssl,
            username: "u".into(),
            password: "p".into(),
        },
        &Trust::default(),
        Duration::from_millis(500),
    )
    .await
    .err()
    .context("connected to a silent server")?;
    assert_eq!(err, MailError::TimedOut);
    assert!(started.elapsed() < Duration::from_secs(3));
    hold.abort();
    Ok(())
}

fn sink_settings(sink: &SmtpSink) -> SmtpSettings {
    SmtpSettings {
        host: "127.0.0.1".into(),
        port: sink.port,
        username: "me@example.test".into(),
        password: "app-password".into(),
    }
}

#[tokio::test]
async fn smtp_sends_to_the_sink() -> Result<()> {
    need_sink!();
    let sink = SmtpSink::start()?;
    let mail = OutgoingMail {
        from: "Me <me@example.test>".into(),
        to: vec!["Ann <ann@example.test>".into()],
        cc: vec!["bob@example.test".into()],
        subject: "Re: Café plans ☕".into(),
        body: "Sounds good.\nSee you at 5.".into(),
        in_reply_to: Some("<parent-1@example.test>".into()),
    };
    let message_id = smtp::send(&sink_settings(&sink), &Trust::default(), &mail).await?;
    assert!(message_id.starts_with('<') && message_id.ends_with("@example.test>"));

    let deadline = Instant::now() + Duration::from_secs(5);
    let received = loop {
        let received = sink.received();
        if !received.is_empty() || Instant::now() > deadline {
            break received;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(received.len(), 1);
    let raw = &received[0];
    assert!(
        raw.contains("In-Reply-To: <parent-1@example.test>"),
        "{raw}"
    );
    let item = sentient_integrations::email_imap::message::item_from_raw(
        raw.as_bytes(),
        1,
        "INBOX",
        false,
        false,
        1000,
    );
    assert_eq!(field(&item, "subject"), "Re: Café plans ☕");
    assert_eq!(field(&item, "to"), "Ann <ann@example.test>");
    assert_eq!(field(&item, "cc"), "bob@example.test");
    assert_eq!(field(&item, "message_id"), message_id);
    assert_eq!(field(&item, "thread_id"), "<parent-1@example.test>");
    assert_eq!(field(&item, "body"), "Sounds good.\nSee you at 5.");

    let envelopes = sink.envelopes();
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["mail_from"], "me@example.test");
    assert_eq!(
        envelopes[0]["rcpt_tos"],
        serde_json::json!(["ann@example.test", "bob@example.test"])
    );
    assert_eq!(envelopes[0]["login"], "me@example.test");
    Ok(())
}

#[tokio::test]
async fn smtp_check_signs_in_and_reports_failures() -> Result<()> {
    need_sink!();
    let sink = SmtpSink::start()?;
    smtp::check_smtp(&sink_settings(&sink), &Trust::default()).await?;

    let mut wrong = sink_settings(&sink);
    wrong.password = SmtpSink::REJECTED_PASSWORD.into();
    let err = smtp::check_smtp(&wrong, &Trust::default())
        .await
        .err()
        .context("a rejected password passed the check")?;
    assert_eq!(err, MailError::WrongPassword);

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.port()
    };
    let mut nowhere = sink_settings(&sink);
    nowhere.port = closed;
    let err = smtp::check_smtp(&nowhere, &Trust::default())
        .await
        .err()
        .context("checked a closed port")?;
    match err {
        MailError::Unreachable { host, port, .. } => {
            assert_eq!(host, "127.0.0.1");
            assert_eq!(port, closed);
        }
        other => bail!("expected Unreachable, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn smtp_plain_text_is_allowed_on_localhost() -> Result<()> {
    need_sink!();
    let sink = SmtpSink::start()?;
    // "localhost" counts as loopback, so a server without STARTTLS may be used there.
    let mut local = sink_settings(&sink);
    local.host = "localhost".into();
    smtp::check_smtp(&local, &Trust::default()).await?;
    Ok(())
}
