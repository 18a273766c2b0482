//! Sending mail for "Email (IMAP)" over SMTP (lettre, rustls). Port 465 is TLS from the first
//! byte; any other port must offer STARTTLS, except on a loopback host (tests, local bridges such
//! as Proton Bridge), where a server without STARTTLS may be used in plain text.

use std::hash::{BuildHasher, Hasher};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, CertificateStore, Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use super::client::{MailError, Trust, extra_roots};

/// Limit for connecting, and for each reply of the server.
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(30);
/// Limit for a whole check or send.
const SMTP_TOTAL_TIMEOUT: Duration = Duration::from_secs(120);

/// Where and how to sign in to SMTP.
#[derive(Clone)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .finish()
    }
}

/// A plain-text message to send.
#[derive(Debug, Clone, Default)]
pub struct OutgoingMail {
    /// `me@example.com` or `Me <me@example.com>`.
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
    /// The Message-ID being answered (with or without `<>`); sets In-Reply-To and References.
    pub in_reply_to: Option<String>,
}

/// A message ready to send: its Message-ID and its bytes (e.g. to store in the Sent mailbox).
#[derive(Debug, Clone)]
pub struct ComposedMail {
    pub message_id: String,
    pub raw: Vec<u8>,
    message: Message,
}

/// Connects and signs in (when a username is given), then says goodbye.
pub async fn check_smtp(settings: &SmtpSettings, trust: &Trust) -> Result<(), MailError> {
    let transport = transport(settings, trust)?;
    match tokio::time::timeout(SMTP_TOTAL_TIMEOUT, transport.test_connection()).await {
        Err(_) => Err(MailError::TimedOut),
        Ok(Err(e)) => Err(smtp_error(settings, &e)),
        Ok(Ok(true)) => Ok(()),
        Ok(Ok(false)) => Err(MailError::Protocol(
            "the outgoing mail server closed the connection".into(),
        )),
    }
}

/// Sends `mail`, returning its Message-ID (`<…>`).
pub async fn send(
    settings: &SmtpSettings,
    trust: &Trust,
    mail: &OutgoingMail,
) -> Result<String, MailError> {
    let composed = compose(mail)?;
    send_composed(settings, trust, &composed).await?;
    Ok(composed.message_id)
}

/// Sends a message made by [`compose`].
pub async fn send_composed(
    settings: &SmtpSettings,
    trust: &Trust,
    composed: &ComposedMail,
) -> Result<(), MailError> {
    let transport = transport(settings, trust)?;
    match tokio::time::timeout(SMTP_TOTAL_TIMEOUT, transport.send(composed.message.clone())).await {
        Err(_) => Err(MailError::TimedOut),
        Ok(Err(e)) => Err(smtp_error(settings, &e)),
        Ok(Ok(_)) => Ok(()),
    }
}

/// Builds the message: plain text (UTF-8), a fresh Message-ID on the sender's domain, Date,
/// and In-Reply-To/References when answering.
pub fn compose(mail: &OutgoingMail) -> Result<ComposedMail, MailError> {
    let from = parse_mailbox(&mail.from)?;
    let mut builder = Message::builder().from(from.clone());
    let mut recipients = 0;
    for to in mail.to.iter().filter(|a| !a.trim().is_empty()) {
        builder = builder.to(parse_mailbox(to)?);
        recipients += 1;
    }
    for cc in mail.cc.iter().filter(|a| !a.trim().is_empty()) {
        builder = builder.cc(parse_mailbox(cc)?);
        recipients += 1;
    }
    if recipients == 0 {
        return Err(MailError::NoRecipients);
    }
    let message_id = new_message_id(from.email.domain());
    builder = builder
        .subject(mail.subject.trim())
        .message_id(Some(message_id.clone()));
    if let Some(parent) = mail
        .in_reply_to
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let parent = if parent.starts_with('<') {
            parent.to_string()
        } else {
            format!("<{parent}>")
        };
        builder = builder.in_reply_to(parent.clone()).references(parent);
    }
    let message = builder
        .header(ContentType::TEXT_PLAIN)
        .body(mail.body.replace("\r\n", "\n").replace('\n', "\r\n"))
        .map_err(|e| MailError::Protocol(format!("the message couldn't be put together ({e})")))?;
    Ok(ComposedMail {
        message_id,
        raw: message.formatted(),
        message,
    })
}

fn parse_mailbox(address: &str) -> Result<Mailbox, MailError> {
    address
        .trim()
        .parse::<Mailbox>()
        .map_err(|_| MailError::BadAddress(address.trim().to_string()))
}

/// `<random.time@domain>`: unique without naming this computer.
fn new_message_id(domain: &str) -> String {
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("<{random:016x}.{nanos:x}@{domain}>")
}

/// Whether `host` is this computer (localhost or a loopback address).
pub fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim().trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.to_ascii_lowercase().ends_with(".localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn transport(
    settings: &SmtpSettings,
    trust: &Trust,
) -> Result<AsyncSmtpTransport<Tokio1Executor>, MailError> {
    let host = settings
        .host
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    // The system's roots (lettre loads them with rustls-native-certs) plus the extra ones.
    let mut params =
        TlsParameters::builder(host.clone()).certificate_store(CertificateStore::Default);
    for der in extra_roots(trust)? {
        let cert = Certificate::from_der(der.to_vec())
            .map_err(|e| MailError::Tls(format!("a certificate to trust isn't usable ({e})")))?;
        params = params.add_root_certificate(cert);
    }
    let loopback = is_loopback_host(&host);
    if loopback {
        // On this computer plain text would be allowed, so an unverified certificate (local
        // bridges such as Proton Bridge make their own) is no worse.
        params = params.dangerous_accept_invalid_certs(true);
    }
    let params = params
        .build_rustls()
        .map_err(|e| MailError::Tls(e.to_string()))?;
    let tls = if settings.port == 465 {
        Tls::Wrapper(params)
    } else if loopback {
        Tls::Opportunistic(params)
    } else {
        Tls::Required(params)
    };
    let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
        .port(settings.port)
        .tls(tls)
        .timeout(Some(SMTP_TIMEOUT))
        // An address literal rather than this computer's name.
        .hello_name(ClientId::Ipv4(Ipv4Addr::LOCALHOST));
    if !settings.username.trim().is_empty() {
        builder = builder.credentials(Credentials::new(
            settings.username.trim().to_string(),
            settings.password.clone(),
        ));
    }
    Ok(builder.build())
}

fn smtp_error(settings: &SmtpSettings, e: &lettre::transport::smtp::Error) -> MailError {
    use std::error::Error as _;
    let source_text = e.source().map(|s| s.to_string()).unwrap_or_default();
    if let Some(code) = e.status() {
        let code = code.to_string();
        // 535 bad credentials, 534 app password needed (Gmail), 530 sign-in required.
        if matches!(code.as_str(), "535" | "534" | "530") {
            return MailError::WrongPassword;
        }
        let reason = if source_text.is_empty() {
            code
        } else {
            format!("{code} {source_text}")
        };
        return MailError::Rejected(reason);
    }
    if e.is_timeout() {
        return MailError::TimedOut;
    }
    if e.is_tls() {
        if let Some(io) = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()) {
            return super::client::tls_error(io);
        }
        return MailError::Tls(source_text);
    }
    if source_text.contains("STARTTLS") {
        return MailError::Tls(
            "the outgoing mail server doesn't offer a secure connection (STARTTLS) on this port; port 465 or 587 usually does".into(),
        );
    }
    let text = e.to_string();
    if text.starts_with("Connection error") {
        let reason = match e.source().and_then(|s| s.downcast_ref::<std::io::Error>()) {
            Some(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                "the connection was refused".to_string()
            }
            Some(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                "it didn't answer in time".to_string()
            }
            Some(io) => io.to_string(),
            None => source_text,
        };
        return MailError::Unreachable {
            host: settings.host.trim().to_string(),
            port: settings.port,
            reason,
        };
    }
    if e.is_client() && source_text.contains("authentication mechanism") {
        return MailError::Protocol(
            "the outgoing mail server offers no sign-in method Sentient can use".into(),
        );
    }
    MailError::Protocol(format!("outgoing mail: {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for host in [
            "localhost",
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "[::1]",
            "LOCALHOST",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in ["smtp.gmail.com", "10.0.0.1", "localhost.example.com"] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn composed_mail_has_threading_headers() -> Result<(), MailError> {
        let mail = OutgoingMail {
            from: "Me <me@example.com>".into(),
            to: vec!["you@example.org".into()],
            cc: vec!["Other <other@example.net>".into()],
            subject: "Re: Café".into(),
            body: "Hi there\nsecond line".into(),
            in_reply_to: Some("parent@example.org".into()),
        };
        let composed = compose(&mail)?;
        let text = String::from_utf8_lossy(&composed.raw);
        assert!(composed.message_id.starts_with('<'));
        assert!(composed.message_id.ends_with("@example.com>"));
        assert!(text.contains("In-Reply-To: <parent@example.org>"), "{text}");
        assert!(text.contains("References: <parent@example.org>"), "{text}");
        assert!(
            text.contains(&format!("Message-ID: {}", composed.message_id)),
            "{text}"
        );
        let parsed =
            super::super::message::item_from_raw(&composed.raw, 1, "Sent", true, false, 100);
        assert_eq!(parsed["subject"], "Re: Café");
        assert_eq!(parsed["body"], "Hi there\nsecond line");
        assert_eq!(parsed["cc"], "Other <other@example.net>");
        Ok(())
    }

    #[test]
    fn bad_addresses_are_named() {
        let mail = OutgoingMail {
            from: "me@example.com".into(),
            to: vec!["not an address".into()],
            ..Default::default()
        };
        assert_eq!(
            compose(&mail).err(),
            Some(MailError::BadAddress("not an address".into()))
        );
    }
}
