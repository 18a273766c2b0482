//! Finding a mail account's servers from its address, so connecting takes the address and an
//! app password only. In order: the built-in table of common providers, the domain's own
//! autoconfig document (Mozilla's format), RFC 6186 SRV records, then the MX records of a
//! custom domain hosted by a provider of the table.

use std::time::Duration;

use super::dns::{MailDns, SrvRecord};
use crate::error::IntegrationError;
pub use crate::wire::MailServers;
use quick_xml::events::Event;

/// A provider of the built-in table.
struct Provider {
    name: &'static str,
    domains: &'static [&'static str],
    /// Endings of the MX hosts of custom domains it hosts.
    mx: &'static [&'static str],
    imap: (&'static str, u16, &'static str),
    smtp: (&'static str, u16),
    app_password_url: &'static str,
    note: Option<&'static str>,
}

const PROVIDERS: &[Provider] = &[
    Provider {
        name: "Gmail",
        domains: &["gmail.com", "googlemail.com"],
        mx: &["google.com", "googlemail.com"],
        imap: ("imap.gmail.com", 993, "ssl"),
        smtp: ("smtp.gmail.com", 465),
        app_password_url: "https://myaccount.google.com/apppasswords",
        note: Some("Google makes app passwords only once 2-Step Verification is on."),
    },
    Provider {
        name: "Outlook",
        domains: &[
            "outlook.com",
            "hotmail.com",
            "live.com",
            "msn.com",
            "hotmail.co.uk",
            "hotmail.de",
            "hotmail.fr",
            "outlook.de",
            "outlook.fr",
            "live.co.uk",
        ],
        mx: &["protection.outlook.com"],
        imap: ("outlook.office365.com", 993, "ssl"),
        smtp: ("smtp-mail.outlook.com", 587),
        app_password_url: "https://account.live.com/proofs/AppPassword",
        note: None,
    },
    Provider {
        name: "Yahoo",
        domains: &[
            "yahoo.com",
            "ymail.com",
            "rocketmail.com",
            "yahoo.co.uk",
            "yahoo.de",
            "yahoo.fr",
        ],
        mx: &["yahoodns.net"],
        imap: ("imap.mail.yahoo.com", 993, "ssl"),
        smtp: ("smtp.mail.yahoo.com", 465),
        app_password_url: "https://login.yahoo.com/account/security/app-passwords",
        note: None,
    },
    Provider {
        name: "iCloud",
        domains: &["icloud.com", "me.com", "mac.com"],
        mx: &["mail.icloud.com"],
        imap: ("imap.mail.me.com", 993, "ssl"),
        smtp: ("smtp.mail.me.com", 587),
        app_password_url: "https://account.apple.com/account/manage",
        note: Some("Use an app-specific password from your Apple Account's Sign-In and Security."),
    },
    Provider {
        name: "Fastmail",
        domains: &[
            "fastmail.com",
            "fastmail.fm",
            "fastmail.net",
            "fastmail.org",
        ],
        mx: &["messagingengine.com"],
        imap: ("imap.fastmail.com", 993, "ssl"),
        smtp: ("smtp.fastmail.com", 465),
        app_password_url: "https://app.fastmail.com/settings/security/apps",
        note: None,
    },
    Provider {
        name: "GMX",
        domains: &["gmx.net", "gmx.de", "gmx.at", "gmx.ch"],
        mx: &["gmx.net"],
        imap: ("imap.gmx.net", 993, "ssl"),
        smtp: ("mail.gmx.net", 587),
        app_password_url: "https://www.gmx.net/mail/",
        note: Some("Turn on POP3 and IMAP access in GMX's mail settings first."),
    },
    Provider {
        name: "GMX",
        domains: &["gmx.com", "gmx.us", "gmx.co.uk", "gmx.fr"],
        mx: &["gmx.com"],
        imap: ("imap.gmx.com", 993, "ssl"),
        smtp: ("mail.gmx.com", 587),
        app_password_url: "https://www.gmx.com/mail/",
        note: Some("Turn on POP3 and IMAP access in GMX's mail settings first."),
    },
    Provider {
        name: "Zoho Mail",
        domains: &["zoho.com", "zohomail.com"],
        mx: &["zoho.com"],
        imap: ("imap.zoho.com", 993, "ssl"),
        smtp: ("smtp.zoho.com", 465),
        app_password_url: "https://accounts.zoho.com/home#security/app_password",
        note: None,
    },
    Provider {
        name: "Zoho Mail",
        domains: &["zoho.eu", "zohomail.eu"],
        mx: &["zoho.eu"],
        imap: ("imap.zoho.eu", 993, "ssl"),
        smtp: ("smtp.zoho.eu", 465),
        app_password_url: "https://accounts.zoho.eu/home#security/app_password",
        note: None,
    },
    Provider {
        name: "Proton Mail",
        domains: &["proton.me", "protonmail.com", "protonmail.ch", "pm.me"],
        mx: &["protonmail.ch"],
        imap: ("127.0.0.1", 1143, "starttls"),
        smtp: ("127.0.0.1", 1025),
        app_password_url: "https://proton.me/mail/bridge",
        note: Some(
            "Proton Mail works through Proton Mail Bridge on this computer: start it and use the password it shows.",
        ),
    },
];

/// How long one autoconfig request may take.
const AUTOCONFIG_TIMEOUT: Duration = Duration::from_secs(6);
/// The largest autoconfig document read.
const AUTOCONFIG_MAX_BYTES: usize = 64 * 1024;

/// The address, checked, and its domain (lower-cased).
pub fn split_address(address: &str) -> Result<(String, String), IntegrationError> {
    let address = address.trim();
    let bad = || {
        IntegrationError::Invalid(
            "Enter your whole email address, like name@example.com.".to_owned(),
        )
    };
    let (local, domain) = address.rsplit_once('@').ok_or_else(bad)?;
    let domain = domain.trim_end_matches('.').to_ascii_lowercase();
    let domain_ok = domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    if local.is_empty() || local.contains(char::is_whitespace) || !domain_ok {
        return Err(bad());
    }
    Ok((address.to_owned(), domain))
}

fn from_provider(address: &str, provider: &Provider, source: &str) -> MailServers {
    MailServers {
        address: address.to_owned(),
        source: source.to_owned(),
        provider: Some(provider.name.to_owned()),
        host: provider.imap.0.to_owned(),
        port: provider.imap.1,
        security: provider.imap.2.to_owned(),
        username: address.to_owned(),
        smtp_host: Some(provider.smtp.0.to_owned()),
        smtp_port: Some(provider.smtp.1),
        app_password_url: Some(provider.app_password_url.to_owned()),
        note: provider.note.map(str::to_owned),
    }
}

/// The table's provider for a domain.
fn provider_of(domain: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().find(|p| p.domains.contains(&domain))
}

/// The table's provider hosting a custom domain, by its MX hosts.
fn provider_by_mx(hosts: &[String]) -> Option<&'static Provider> {
    hosts.iter().find_map(|host| {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        PROVIDERS.iter().find(|p| {
            p.mx.iter()
                .any(|end| host == *end || host.ends_with(&format!(".{end}")))
        })
    })
}

/// The finders discovery uses: where autoconfig documents are, and the DNS.
pub struct Finder<'a> {
    pub autoconfig_urls: &'a [String],
    pub dns: &'a dyn MailDns,
}

impl Finder<'_> {
    /// The servers of `address`; a plain sentence when nothing was found.
    pub async fn discover(&self, address: &str) -> Result<MailServers, IntegrationError> {
        let (address, domain) = split_address(address)?;
        if let Some(provider) = provider_of(&domain) {
            return Ok(from_provider(&address, provider, "provider"));
        }
        if let Some(found) = self.autoconfig(&address, &domain).await {
            return Ok(found);
        }
        if let Some(found) = self.srv(&address, &domain).await {
            return Ok(found);
        }
        if let Some(provider) = provider_by_mx(&self.dns.mx(&domain).await) {
            return Ok(from_provider(&address, provider, "mx"));
        }
        Err(IntegrationError::Invalid(format!(
            "Sentient couldn't find the mail servers for {domain}. Enter them under More settings."
        )))
    }

    async fn autoconfig(&self, address: &str, domain: &str) -> Option<MailServers> {
        let client = reqwest::Client::builder()
            .timeout(AUTOCONFIG_TIMEOUT)
            .user_agent(concat!("Sentient/", env!("CARGO_PKG_VERSION")))
            .build()
            .ok()?;
        for template in self.autoconfig_urls {
            let Ok(mut url) = reqwest::Url::parse(&template.replace("{domain}", domain)) else {
                continue;
            };
            url.query_pairs_mut().append_pair("emailaddress", address);
            let Ok(response) = client.get(url).send().await else {
                continue;
            };
            if !response.status().is_success() {
                continue;
            }
            let Ok(body) = response.bytes().await else {
                continue;
            };
            if body.len() > AUTOCONFIG_MAX_BYTES {
                continue;
            }
            let text = String::from_utf8_lossy(&body);
            if let Some(found) = parse_autoconfig(&text, address) {
                return Some(found);
            }
        }
        None
    }

    async fn srv(&self, address: &str, domain: &str) -> Option<MailServers> {
        let (host, port, security) =
            if let Some(r) = best(self.dns.srv(&format!("_imaps._tcp.{domain}")).await) {
                (r.target, r.port, "ssl")
            } else {
                let r = best(self.dns.srv(&format!("_imap._tcp.{domain}")).await)?;
                (r.target, r.port, "starttls")
            };
        let smtp = match best(self.dns.srv(&format!("_submissions._tcp.{domain}")).await) {
            Some(r) => Some(r),
            None => best(self.dns.srv(&format!("_submission._tcp.{domain}")).await),
        };
        Some(MailServers {
            address: address.to_owned(),
            source: "srv".to_owned(),
            provider: None,
            host,
            port,
            security: security.to_owned(),
            username: address.to_owned(),
            smtp_host: smtp.as_ref().map(|r| r.target.clone()),
            smtp_port: smtp.map(|r| r.port),
            app_password_url: None,
            note: None,
        })
    }
}

/// The record to use (RFC 2782: lowest priority, then the heaviest); none when the domain
/// says the service isn't offered (target ".").
fn best(mut records: Vec<SrvRecord>) -> Option<SrvRecord> {
    records.retain(|r| r.port > 0);
    records.sort_by(|a, b| a.priority.cmp(&b.priority).then(b.weight.cmp(&a.weight)));
    let first = records.into_iter().next()?;
    let target = first.target.trim_end_matches('.').to_owned();
    (!target.is_empty()).then_some(SrvRecord { target, ..first })
}

/// One server of an autoconfig document.
#[derive(Debug, Default, Clone)]
struct Listed {
    kind: String,
    hostname: String,
    port: String,
    socket_type: String,
    username: String,
}

/// The first usable IMAP server (SSL or STARTTLS, never plain) and SMTP server of a Mozilla
/// autoconfig document; `None` without an IMAP server.
pub fn parse_autoconfig(text: &str, address: &str) -> Option<MailServers> {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut incoming = Vec::new();
    let mut outgoing = Vec::new();
    let mut provider = None;
    let mut current: Option<(bool, Listed)> = None;
    let mut element = String::new();
    loop {
        match reader.read_event().ok()? {
            Event::Start(start) => {
                let name = start.local_name().as_ref().to_owned();
                if name == "incomingServer" || name == "outgoingServer" {
                    let kind = start
                        .try_get_attribute("type")
                        .ok()
                        .flatten()
                        .map(|a| a.value.into_owned())
                        .unwrap_or_default();
                    let listed = Listed {
                        kind,
                        ..Listed::default()
                    };
                    current = Some((name == "incomingServer", listed));
                }
                element = name;
            }
            Event::Text(content) => {
                let value = content.xml10_content().trim().to_owned();
                match (&mut current, element.as_str()) {
                    (Some((_, s)), "hostname") => s.hostname = value,
                    (Some((_, s)), "port") => s.port = value,
                    (Some((_, s)), "socketType") => s.socket_type = value,
                    (Some((_, s)), "username") => s.username = value,
                    (None, "displayName") if provider.is_none() => provider = Some(value),
                    _ => {}
                }
            }
            Event::End(end) => {
                let name = end.local_name();
                if matches!(name.as_ref(), "incomingServer" | "outgoingServer")
                    && let Some((is_incoming, listed)) = current.take()
                {
                    if is_incoming {
                        incoming.push(listed);
                    } else {
                        outgoing.push(listed);
                    }
                }
                element.clear();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let (local, domain) = address.rsplit_once('@').unwrap_or((address, ""));
    let fill = |template: &str| {
        let name = template
            .replace("%EMAILADDRESS%", address)
            .replace("%EMAILLOCALPART%", local)
            .replace("%EMAILDOMAIN%", domain);
        if name.is_empty() {
            address.to_owned()
        } else {
            name
        }
    };
    let host_ok =
        |h: &str| !h.is_empty() && !h.contains(|c: char| c.is_whitespace() || c == '/' || c == '%');
    // SSL first, then STARTTLS: the document's order decides between two of a kind.
    let imap = ["SSL", "STARTTLS"].iter().find_map(|wanted| {
        incoming.iter().find_map(|s| {
            let port = s.port.parse::<u16>().ok().filter(|p| *p > 0)?;
            (s.kind == "imap" && s.socket_type.eq_ignore_ascii_case(wanted) && host_ok(&s.hostname))
                .then_some((s, port))
        })
    });
    let (imap, imap_port) = imap?;
    // Sentient's SMTP uses TLS from the first byte on 465 and STARTTLS on any other port, so
    // only servers that fit that are taken.
    let smtp = outgoing.iter().find_map(|s| {
        let port = s.port.parse::<u16>().ok().filter(|p| *p > 0)?;
        let fits = if s.socket_type.eq_ignore_ascii_case("SSL") {
            port == 465
        } else {
            s.socket_type.eq_ignore_ascii_case("STARTTLS") && port != 465
        };
        (s.kind == "smtp" && fits && host_ok(&s.hostname)).then(|| (s.hostname.clone(), port))
    });
    Some(MailServers {
        address: address.to_owned(),
        source: "autoconfig".to_owned(),
        provider: provider.filter(|p| !p.is_empty()),
        host: imap.hostname.clone(),
        port: imap_port,
        security: if imap.socket_type.eq_ignore_ascii_case("SSL") {
            "ssl"
        } else {
            "starttls"
        }
        .to_owned(),
        username: fill(&imap.username),
        smtp_host: smtp.as_ref().map(|s| s.0.clone()),
        smtp_port: smtp.map(|s| s.1),
        app_password_url: None,
        note: None,
    })
}

/// The providers' domains, for the tests' table.
#[doc(hidden)]
pub fn provider_domains() -> Vec<(&'static str, &'static str)> {
    PROVIDERS
        .iter()
        .flat_map(|p| p.domains.iter().map(move |d| (p.name, *d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked_before_anything_is_looked_up() {
        assert_eq!(
            split_address(" Me@Example.ORG ").expect("ok"),
            ("Me@Example.ORG".to_owned(), "example.org".to_owned())
        );
        for bad in [
            "",
            "me",
            "me@",
            "@example.org",
            "me@localhost",
            "me@exa mple.org",
            "a b@c.org",
            "me@-x.org",
            "me@x..org",
        ] {
            assert!(split_address(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn srv_records_pick_the_lowest_priority_then_the_heaviest_and_honour_a_dot() {
        let record = |priority, weight, target: &str| SrvRecord {
            priority,
            weight,
            port: 993,
            target: target.to_owned(),
        };
        let picked = best(vec![
            record(10, 5, "b."),
            record(0, 1, "a1."),
            record(0, 9, "a9."),
        ]);
        assert_eq!(picked.map(|r| r.target).as_deref(), Some("a9"));
        assert!(best(vec![record(0, 0, ".")]).is_none());
        assert!(best(Vec::new()).is_none());
    }

    #[test]
    fn an_autoconfig_document_without_a_secure_imap_server_gives_nothing() {
        let plain = r#"<clientConfig><emailProvider id="x">
            <incomingServer type="imap"><hostname>imap.x.org</hostname><port>143</port>
            <socketType>plain</socketType><username>%EMAILADDRESS%</username></incomingServer>
            <incomingServer type="pop3"><hostname>pop.x.org</hostname><port>995</port>
            <socketType>SSL</socketType></incomingServer></emailProvider></clientConfig>"#;
        assert!(parse_autoconfig(plain, "me@x.org").is_none());
        assert!(parse_autoconfig("<not xml", "me@x.org").is_none());
    }
}
