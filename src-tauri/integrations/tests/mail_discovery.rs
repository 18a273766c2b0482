//! Finding a mail account's servers from its address, as a table: every provider of the
//! built-in table, autoconfig documents served over HTTP on loopback (both of the domain's
//! places, in order), RFC 6186 SRV records and MX records from a stub DNS, and what is said
//! when nothing is found.
#![cfg(feature = "email")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use futures::future::BoxFuture;
use sentient_integrations::email_imap::discover::{Finder, MailServers, provider_domains};
use sentient_integrations::email_imap::dns::{MailDns, SrvRecord};

/// DNS answers from a table; every question asked is recorded.
#[derive(Default)]
struct StubDns {
    srv: HashMap<String, Vec<SrvRecord>>,
    mx: HashMap<String, Vec<String>>,
    asked: Mutex<Vec<String>>,
}

impl StubDns {
    fn asked(&self) -> Vec<String> {
        self.asked.lock().expect("lock").clone()
    }
}

impl MailDns for StubDns {
    fn srv<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Vec<SrvRecord>> {
        self.asked.lock().expect("lock").push(format!("SRV {name}"));
        Box::pin(async move { self.srv.get(name).cloned().unwrap_or_default() })
    }

    fn mx<'a>(&'a self, domain: &'a str) -> BoxFuture<'a, Vec<String>> {
        self.asked
            .lock()
            .expect("lock")
            .push(format!("MX {domain}"));
        Box::pin(async move { self.mx.get(domain).cloned().unwrap_or_default() })
    }
}

fn srv(priority: u16, weight: u16, port: u16, target: &str) -> SrvRecord {
    SrvRecord {
        priority,
        weight,
        port,
        target: target.to_owned(),
    }
}

type Documents = Arc<Mutex<HashMap<String, String>>>;

/// An HTTP server on loopback answering `/<place>/<domain>` with the document stored under
/// `<place>/<domain>` (404 otherwise), recording each request with its `emailaddress`.
async fn autoconfig_server(documents: Documents, requests: Arc<Mutex<Vec<String>>>) -> String {
    async fn serve(
        State((documents, requests)): State<(Documents, Arc<Mutex<Vec<String>>>)>,
        Path((place, domain)): Path<(String, String)>,
        Query(query): Query<HashMap<String, String>>,
    ) -> Result<String, StatusCode> {
        let key = format!("{place}/{domain}");
        requests.lock().expect("lock").push(format!(
            "{key}?{}",
            query.get("emailaddress").cloned().unwrap_or_default()
        ));
        documents
            .lock()
            .expect("lock")
            .get(&key)
            .cloned()
            .ok_or(StatusCode::NOT_FOUND)
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let app = axum::Router::new()
        .route("/{place}/{domain}", get(serve))
        .with_state((documents, requests));
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

const DOCUMENT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<clientConfig version="1.1">
  <emailProvider id="example.org">
    <domain>example.org</domain>
    <displayName>Example Mail</displayName>
    <incomingServer type="pop3">
      <hostname>pop.example.org</hostname><port>995</port><socketType>SSL</socketType>
      <username>%EMAILADDRESS%</username>
    </incomingServer>
    <incomingServer type="imap">
      <hostname>imap-plain.example.org</hostname><port>143</port><socketType>plain</socketType>
      <username>%EMAILADDRESS%</username>
    </incomingServer>
    <incomingServer type="imap">
      <hostname>imap.example.org</hostname><port>143</port><socketType>STARTTLS</socketType>
      <username>%EMAILLOCALPART%</username>
    </incomingServer>
    <incomingServer type="imap">
      <hostname>secure.example.org</hostname><port>9993</port><socketType>SSL</socketType>
      <username>%EMAILLOCALPART%</username>
    </incomingServer>
    <outgoingServer type="smtp">
      <hostname>odd.example.org</hostname><port>2525</port><socketType>SSL</socketType>
    </outgoingServer>
    <outgoingServer type="smtp">
      <hostname>smtp.example.org</hostname><port>587</port><socketType>STARTTLS</socketType>
      <username>%EMAILADDRESS%</username>
    </outgoingServer>
  </emailProvider>
</clientConfig>"#;

struct World {
    urls: Vec<String>,
    dns: StubDns,
    documents: Documents,
    requests: Arc<Mutex<Vec<String>>>,
}

impl World {
    async fn new() -> Self {
        let documents: Documents = Arc::default();
        let requests = Arc::default();
        let base = autoconfig_server(Arc::clone(&documents), Arc::clone(&requests)).await;
        Self {
            // The two places a domain publishes its document, in the order they are tried.
            urls: vec![
                format!("{base}/autoconfig/{{domain}}"),
                format!("{base}/well-known/{{domain}}"),
            ],
            dns: StubDns::default(),
            documents,
            requests,
        }
    }

    async fn discover(&self, address: &str) -> Result<MailServers, String> {
        Finder {
            autoconfig_urls: &self.urls,
            dns: &self.dns,
        }
        .discover(address)
        .await
        .map_err(|e| e.to_string())
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("lock").clone()
    }
}

#[tokio::test]
async fn every_provider_of_the_table_is_found_without_asking_the_network() {
    let world = World::new().await;
    // (domain, provider, IMAP host, port, security, SMTP host, SMTP port, app password page host)
    let table = [
        (
            "gmail.com",
            "Gmail",
            "imap.gmail.com",
            993,
            "ssl",
            "smtp.gmail.com",
            465,
            "myaccount.google.com",
        ),
        (
            "googlemail.com",
            "Gmail",
            "imap.gmail.com",
            993,
            "ssl",
            "smtp.gmail.com",
            465,
            "myaccount.google.com",
        ),
        (
            "outlook.com",
            "Outlook",
            "outlook.office365.com",
            993,
            "ssl",
            "smtp-mail.outlook.com",
            587,
            "account.live.com",
        ),
        (
            "hotmail.com",
            "Outlook",
            "outlook.office365.com",
            993,
            "ssl",
            "smtp-mail.outlook.com",
            587,
            "account.live.com",
        ),
        (
            "yahoo.com",
            "Yahoo",
            "imap.mail.yahoo.com",
            993,
            "ssl",
            "smtp.mail.yahoo.com",
            465,
            "login.yahoo.com",
        ),
        (
            "icloud.com",
            "iCloud",
            "imap.mail.me.com",
            993,
            "ssl",
            "smtp.mail.me.com",
            587,
            "account.apple.com",
        ),
        (
            "me.com",
            "iCloud",
            "imap.mail.me.com",
            993,
            "ssl",
            "smtp.mail.me.com",
            587,
            "account.apple.com",
        ),
        (
            "fastmail.com",
            "Fastmail",
            "imap.fastmail.com",
            993,
            "ssl",
            "smtp.fastmail.com",
            465,
            "app.fastmail.com",
        ),
        (
            "gmx.de",
            "GMX",
            "imap.gmx.net",
            993,
            "ssl",
            "mail.gmx.net",
            587,
            "www.gmx.net",
        ),
        (
            "gmx.com",
            "GMX",
            "imap.gmx.com",
            993,
            "ssl",
            "mail.gmx.com",
            587,
            "www.gmx.com",
        ),
        (
            "zoho.com",
            "Zoho Mail",
            "imap.zoho.com",
            993,
            "ssl",
            "smtp.zoho.com",
            465,
            "accounts.zoho.com",
        ),
        (
            "zoho.eu",
            "Zoho Mail",
            "imap.zoho.eu",
            993,
            "ssl",
            "smtp.zoho.eu",
            465,
            "accounts.zoho.eu",
        ),
        (
            "proton.me",
            "Proton Mail",
            "127.0.0.1",
            1143,
            "starttls",
            "127.0.0.1",
            1025,
            "proton.me",
        ),
        (
            "pm.me",
            "Proton Mail",
            "127.0.0.1",
            1143,
            "starttls",
            "127.0.0.1",
            1025,
            "proton.me",
        ),
    ];
    for (domain, provider, host, port, security, smtp_host, smtp_port, page) in table {
        let address = format!("Someone@{}", domain.to_uppercase());
        let found = world.discover(&address).await.expect(domain);
        assert_eq!(found.source, "provider", "{domain}");
        assert_eq!(found.provider.as_deref(), Some(provider), "{domain}");
        assert_eq!(
            (found.host.as_str(), found.port, found.security.as_str()),
            (host, port, security),
            "{domain}"
        );
        assert_eq!(
            (found.smtp_host.as_deref(), found.smtp_port),
            (Some(smtp_host), Some(smtp_port)),
            "{domain}"
        );
        assert_eq!(
            found.username, address,
            "the whole address signs in ({domain})"
        );
        let link = found.app_password_url.expect("app password page");
        let link = reqwest::Url::parse(&link).expect(domain);
        assert_eq!(
            (link.scheme(), link.host_str()),
            ("https", Some(page)),
            "{domain}"
        );
    }
    // Every provider the table knows is in the rows above.
    let named: Vec<&str> = table.iter().map(|row| row.1).collect();
    for (provider, _) in provider_domains() {
        assert!(named.contains(&provider), "{provider} has no row");
    }
    assert!(world.requests().is_empty(), "{:?}", world.requests());
    assert!(world.dns.asked().is_empty(), "{:?}", world.dns.asked());
}

#[tokio::test]
async fn a_domains_autoconfig_document_is_read_from_its_second_place_when_the_first_has_none() {
    let world = World::new().await;
    world
        .documents
        .lock()
        .expect("lock")
        .insert("well-known/example.org".to_owned(), DOCUMENT.to_owned());
    let found = world.discover("ann@example.org").await.expect("found");
    assert_eq!(
        found,
        MailServers {
            address: "ann@example.org".to_owned(),
            source: "autoconfig".to_owned(),
            provider: Some("Example Mail".to_owned()),
            // SSL wins over STARTTLS; plain and POP3 are never taken.
            host: "secure.example.org".to_owned(),
            port: 9993,
            security: "ssl".to_owned(),
            username: "ann".to_owned(),
            // SSL on a port other than 465 doesn't fit Sentient's SMTP; STARTTLS on 587 does.
            smtp_host: Some("smtp.example.org".to_owned()),
            smtp_port: Some(587),
            app_password_url: None,
            note: None,
        }
    );
    assert_eq!(
        world.requests(),
        [
            "autoconfig/example.org?ann@example.org",
            "well-known/example.org?ann@example.org"
        ]
    );
    assert!(world.dns.asked().is_empty(), "{:?}", world.dns.asked());

    // The first place wins when it has one; STARTTLS is taken when no SSL server is listed.
    let starttls_only = DOCUMENT.replace(
        "<socketType>SSL</socketType>\n      <username>%EMAILLOCALPART%</username>",
        "<socketType>plain</socketType>\n      <username>%EMAILLOCALPART%</username>",
    );
    world
        .documents
        .lock()
        .expect("lock")
        .insert("autoconfig/example.net".to_owned(), starttls_only);
    let found = world.discover("bob@example.net").await.expect("found");
    assert_eq!(
        (found.host.as_str(), found.port, found.security.as_str()),
        ("imap.example.org", 143, "starttls")
    );
    assert_eq!(
        world.requests().last().map(String::as_str),
        Some("autoconfig/example.net?bob@example.net")
    );
}

#[tokio::test]
async fn srv_records_are_used_when_there_is_no_document() {
    let mut world = World::new().await;
    world.dns.srv.insert(
        "_imaps._tcp.srv.example".to_owned(),
        vec![
            srv(20, 0, 993, "backup.srv.example."),
            srv(10, 5, 993, "mail.srv.example."),
        ],
    );
    world.dns.srv.insert(
        "_submission._tcp.srv.example".to_owned(),
        vec![srv(0, 0, 587, "smtp.srv.example.")],
    );
    // Only plain IMAP (STARTTLS) is offered here, and no submission service ("." target).
    world.dns.srv.insert(
        "_imap._tcp.plain.example".to_owned(),
        vec![srv(0, 0, 143, "imap.plain.example.")],
    );
    world.dns.srv.insert(
        "_submissions._tcp.plain.example".to_owned(),
        vec![srv(0, 0, 0, ".")],
    );

    let found = world.discover("cat@srv.example").await.expect("found");
    assert_eq!(found.source, "srv");
    assert_eq!(
        (found.host.as_str(), found.port, found.security.as_str()),
        ("mail.srv.example", 993, "ssl")
    );
    assert_eq!(
        (found.smtp_host.as_deref(), found.smtp_port),
        (Some("smtp.srv.example"), Some(587))
    );
    assert_eq!(found.username, "cat@srv.example");
    assert_eq!(
        world.dns.asked(),
        [
            "SRV _imaps._tcp.srv.example",
            "SRV _submissions._tcp.srv.example",
            "SRV _submission._tcp.srv.example"
        ]
    );
    // The document was looked for first, in both places.
    assert_eq!(world.requests().len(), 2);

    let found = world.discover("dan@plain.example").await.expect("found");
    assert_eq!(
        (found.host.as_str(), found.port, found.security.as_str()),
        ("imap.plain.example", 143, "starttls")
    );
    assert_eq!((found.smtp_host, found.smtp_port), (None, None));
}

#[tokio::test]
async fn a_custom_domain_is_recognised_by_its_providers_mx_and_otherwise_the_form_is_offered() {
    let mut world = World::new().await;
    world.dns.mx.insert(
        "work.example".to_owned(),
        vec!["aspmx.l.google.com.".to_owned()],
    );
    let found = world.discover("eve@work.example").await.expect("found");
    assert_eq!(found.source, "mx");
    assert_eq!(found.provider.as_deref(), Some("Gmail"));
    assert_eq!(found.host, "imap.gmail.com");
    assert_eq!(found.username, "eve@work.example");

    let nothing = world
        .discover("fay@nowhere.example")
        .await
        .expect_err("nothing");
    assert_eq!(
        nothing,
        "Sentient couldn't find the mail servers for nowhere.example. Enter them under More settings."
    );
    assert!(world.dns.asked().contains(&"MX nowhere.example".to_owned()));

    // A mistyped address is refused before anything is looked up.
    let asked = world.dns.asked().len();
    let requests = world.requests().len();
    assert_eq!(
        world
            .discover("fay.nowhere.example")
            .await
            .expect_err("bad"),
        "Enter your whole email address, like name@example.com."
    );
    assert_eq!(
        (world.dns.asked().len(), world.requests().len()),
        (asked, requests)
    );
}
