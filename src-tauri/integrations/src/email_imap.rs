//! Email over IMAP and SMTP (contract section 5, `email_imap`): any mail account. Connect signs
//! in to IMAP (selecting every watched folder) and SMTP when given, before anything is saved;
//! the account, password included, is one keychain entry. The change feed waits in IDLE on the
//! first folder (NOOP-style polling when the server has no IDLE) and checks every watched
//! folder after each wake, with a UID cursor per folder; a new UIDVALIDITY starts the folder
//! afresh.

pub mod client;
pub mod discover;
pub mod dns;
pub mod message;
pub mod smtp;
pub mod tools;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use client::{IdleOutcome, ImapSession, ImapSettings, MailError, Security, Trust};
use discover::{Finder, MailServers};
use dns::{MailDns, SystemDns};
use smtp::SmtpSettings;

use crate::ctx::AppCtx;
use crate::error::IntegrationError;
use crate::feed::{Feed, IdleWait, SyncOutcome};
use crate::state::AppState;

/// The keychain entry holding the account.
const ACCOUNT_ENTRY: &str = "email_imap:account";
/// How long signing in may take.
const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest message text a tool or feed item carries.
pub const MAX_BODY_CHARS: usize = 8000;
/// Most new messages one sync publishes per folder.
const MAX_NEW_PER_SYNC: usize = 50;

/// The account as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub host: String,
    pub port: u16,
    /// ssl or starttls
    pub security: String,
    pub username: String,
    pub password: String,
    pub folders: Vec<String>,
    pub smtp_host: Option<String>,
    pub smtp_port: Option<u16>,
}

impl Account {
    fn imap(&self) -> ImapSettings {
        ImapSettings {
            host: self.host.clone(),
            port: self.port,
            security: if self.security == "starttls" {
                Security::Starttls
            } else {
                Security::Ssl
            },
            username: self.username.clone(),
            password: self.password.clone(),
        }
    }

    fn smtp(&self) -> Option<SmtpSettings> {
        let host = self.smtp_host.clone().filter(|h| !h.trim().is_empty())?;
        Some(SmtpSettings {
            host,
            port: self.smtp_port.unwrap_or(465),
            username: self.username.clone(),
            password: self.password.clone(),
        })
    }
}

fn text<'a>(fields: &'a Map<String, Value>, key: &str) -> &'a str {
    fields
        .get(key)
        .and_then(Value::as_str)
        .map_or("", str::trim)
}

fn port(
    fields: &Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<Option<u16>, IntegrationError> {
    let value = match fields.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(_) => String::new(),
    };
    match value.parse::<u16>() {
        Ok(p) if p > 0 => Ok(Some(p)),
        _ => Err(IntegrationError::Invalid(format!(
            "The {what} must be a number from 1 to 65535."
        ))),
    }
}

/// Reads and checks the setup fields; every problem is one plain sentence.
pub fn account_from(fields: &Map<String, Value>) -> Result<Account, IntegrationError> {
    let invalid = |s: &str| Err(IntegrationError::Invalid(s.to_owned()));
    let host = text(fields, "host");
    if host.is_empty() {
        return invalid("Enter your IMAP server, for example imap.fastmail.com.");
    }
    if host.contains(char::is_whitespace) || host.contains('/') {
        return invalid("Enter the IMAP server's name only, like imap.example.com.");
    }
    let security = match text(fields, "security") {
        "" | "ssl" => "ssl",
        "starttls" => "starttls",
        _ => return invalid("Security must be ssl or starttls."),
    };
    let username = text(fields, "username");
    if username.is_empty() {
        return invalid("Enter your username, usually your email address.");
    }
    let password = fields.get("password").and_then(Value::as_str).unwrap_or("");
    if password.is_empty() {
        return invalid("Enter your app password.");
    }
    let folders: Vec<String> = text(fields, "folders")
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .collect();
    let smtp_host = Some(text(fields, "smtp_host").to_owned()).filter(|h| !h.is_empty());
    Ok(Account {
        host: host.to_owned(),
        port: port(fields, "port", "port")?.unwrap_or(if security == "ssl" { 993 } else { 143 }),
        security: security.to_owned(),
        username: username.to_owned(),
        password: password.to_owned(),
        folders: if folders.is_empty() {
            vec!["INBOX".to_owned()]
        } else {
            folders
        },
        smtp_port: port(fields, "smtp_port", "SMTP port")?,
        smtp_host,
    })
}

/// The email app's connection and its two IMAP sessions (one for syncs and tools, one waiting
/// in IDLE).
pub struct EmailImap {
    apps: AppCtx,
    dns: Arc<dyn MailDns>,
    session: tokio::sync::Mutex<Option<ImapSession>>,
    idle: tokio::sync::Mutex<Option<ImapSession>>,
}

impl EmailImap {
    pub fn new(apps: AppCtx) -> Self {
        Self {
            apps,
            dns: Arc::new(SystemDns::default()),
            session: tokio::sync::Mutex::new(None),
            idle: tokio::sync::Mutex::new(None),
        }
    }

    fn trust(&self) -> Trust {
        Trust {
            extra_roots_pem: self.apps.endpoints().trusted_certificates.clone(),
        }
    }

    async fn account(&self) -> Result<Account, IntegrationError> {
        let saved = self.apps.secrets().read_entry(ACCOUNT_ENTRY).await?;
        saved
            .and_then(|text| serde_json::from_str(&text).ok())
            .ok_or_else(|| {
                IntegrationError::Invalid(
                    "Email (IMAP) isn't connected. Connect it in Integrations.".to_owned(),
                )
            })
    }

    /// The servers of an address (`GET /api/integrations/email/discover`).
    pub async fn discover(&self, address: &str) -> Result<MailServers, IntegrationError> {
        Finder {
            autoconfig_urls: &self.apps.endpoints().mail_autoconfig,
            dns: self.dns.as_ref(),
        }
        .discover(address)
        .await
    }

    /// Signs in with the fields (every watched folder selected, SMTP checked when given), then
    /// saves the account. Returns the account label. Without a server, the address (the
    /// username) and the password are enough: the servers are discovered.
    pub async fn connect(
        &self,
        fields: &Map<String, Value>,
    ) -> Result<Option<String>, IntegrationError> {
        let mut fields = fields.clone();
        let mut found = None;
        if text(&fields, "host").is_empty() {
            let username = text(&fields, "username").to_owned();
            if username.is_empty() {
                return Err(IntegrationError::Invalid(
                    "Enter your email address.".to_owned(),
                ));
            }
            if fields
                .get("password")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                return Err(IntegrationError::Invalid(
                    "Enter your app password.".to_owned(),
                ));
            }
            let servers = self.discover(&username).await?;
            fill_from(&mut fields, &servers);
            found = Some(servers);
        }
        let account = account_from(&fields)?;
        let trust = self.trust();
        let mut session = ImapSession::connect(&account.imap(), &trust, SIGN_IN_TIMEOUT)
            .await
            .map_err(|error| refused_with_hint(error, found.as_ref()))?;
        for folder in &account.folders {
            session.select(folder).await.map_err(mail_error)?;
        }
        if let Some(smtp) = account.smtp() {
            smtp::check_smtp(&smtp, &trust).await.map_err(|e| {
                IntegrationError::Invalid(format!("Signing in to the SMTP server failed: {e}"))
            })?;
        }
        let text = serde_json::to_string(&account)
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        self.apps
            .secrets()
            .write_entry(ACCOUNT_ENTRY, &text)
            .await?;
        *self.session.lock().await = Some(session);
        self.idle.lock().await.take();
        Ok(Some(account.username))
    }

    /// Deletes the account and closes the sessions.
    pub async fn forget(&self) -> Result<(), IntegrationError> {
        if let Some(session) = self.session.lock().await.take() {
            session.logout().await;
        }
        self.idle.lock().await.take();
        self.apps.secrets().delete_entry(ACCOUNT_ENTRY).await?;
        Ok(())
    }

    /// Signs in again and says what is watched.
    pub async fn test(&self) -> Result<String, IntegrationError> {
        let account = self.account().await?;
        let mut session = ImapSession::connect(&account.imap(), &self.trust(), SIGN_IN_TIMEOUT)
            .await
            .map_err(mail_error)?;
        for folder in &account.folders {
            session.select(folder).await.map_err(mail_error)?;
        }
        session.logout().await;
        Ok(format!(
            "Signed in as {}; watching {}.",
            account.username,
            account.folders.join(", ")
        ))
    }

    /// Runs `work` with the shared session, signing in first when there is none. A failure
    /// drops the session, so the next call signs in afresh; a refused password turns the app
    /// to error.
    pub(crate) async fn with_session<T>(
        &self,
        work: impl for<'s> FnOnce(
            &'s mut ImapSession,
            &'s Account,
        ) -> futures::future::BoxFuture<'s, Result<T, MailError>>,
    ) -> Result<T, IntegrationError> {
        let account = self.account().await?;
        let mut guard = self.session.lock().await;
        if guard.is_none() {
            let session =
                ImapSession::connect(&account.imap(), &self.trust(), SIGN_IN_TIMEOUT).await;
            match session {
                Ok(session) => *guard = Some(session),
                Err(error) => return Err(self.failed(error).await),
            }
        }
        let Some(session) = guard.as_mut() else {
            return Err(IntegrationError::Internal("no IMAP session".to_owned()));
        };
        match work(session, &account).await {
            Ok(value) => Ok(value),
            Err(error) => {
                guard.take();
                Err(self.failed(error).await)
            }
        }
    }

    async fn failed(&self, error: MailError) -> IntegrationError {
        if matches!(error, MailError::WrongPassword) {
            let label = self.apps.state("email_imap").account_label;
            self.apps
                .set_state("email_imap", AppState::failed(error.to_string(), label))
                .await;
        }
        mail_error(error)
    }

    /// One feed sync: new messages of every watched folder since the cursor. A folder seen
    /// the first time (or renumbered) is only baselined.
    async fn sync_folders(&self, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError> {
        let cursor: BTreeMap<String, FolderCursor> = cursor
            .and_then(|c| serde_json::from_value(c).ok())
            .unwrap_or_default();
        self.with_session(move |session, account| {
            Box::pin(async move {
                let mut next = BTreeMap::new();
                let mut items = Vec::new();
                let mut rebaselined = false;
                let mut notes = Vec::new();
                for folder in &account.folders {
                    let state = session.select(folder).await?;
                    let known = cursor.get(folder);
                    let start_afresh = known.is_none_or(|k| k.uid_validity != state.uid_validity);
                    if start_afresh {
                        if known.is_some() {
                            notes.push(format!(
                                "The server renumbered {folder}, so Sentient started watching it afresh."
                            ));
                        }
                        rebaselined = true;
                        next.insert(
                            folder.clone(),
                            FolderCursor {
                                uid_validity: state.uid_validity,
                                last_uid: state.uid_next.saturating_sub(1),
                            },
                        );
                        continue;
                    }
                    let last = known.map_or(0, |k| k.last_uid);
                    let mut uids = session.uids_after(folder, last).await?;
                    uids.retain(|u| *u > last);
                    uids.sort_unstable();
                    let newest = uids.last().copied().unwrap_or(last);
                    uids.truncate(MAX_NEW_PER_SYNC);
                    let fetched_to = uids.last().copied().unwrap_or(last);
                    if !uids.is_empty() {
                        items.extend(session.fetch(folder, &uids, MAX_BODY_CHARS).await?);
                    }
                    // More than a sync's share waits for the next sync.
                    let last_uid = if newest > fetched_to { fetched_to } else { newest };
                    next.insert(
                        folder.clone(),
                        FolderCursor {
                            uid_validity: state.uid_validity,
                            last_uid,
                        },
                    );
                }
                Ok(SyncOutcome {
                    items,
                    cursor: json!(next),
                    rebaselined,
                    note: (!notes.is_empty()).then(|| notes.join(" ")),
                })
            })
        })
        .await
    }

    /// Waits in IDLE until the first watched folder changes, `wait` passes or `cancel` fires.
    /// Without IDLE, or when IDLE can't be set up, it returns at once: the feed then waits on
    /// the engine's clock.
    async fn wait_in_idle(&self, wait: Duration, cancel: &CancellationToken) -> IdleWait {
        let Ok(Some(idle_session)) = self.idle_session().await else {
            return IdleWait::Unavailable;
        };
        match idle_session.idle(wait, cancel).await {
            Ok((session, outcome)) => {
                if outcome != IdleOutcome::Cancelled {
                    *self.idle.lock().await = Some(session);
                }
                if outcome == IdleOutcome::Changed {
                    IdleWait::Changed
                } else {
                    IdleWait::Waited
                }
            }
            Err(error) => {
                tracing::debug!(%error, "IMAP IDLE ended; the next sync signs in again");
                IdleWait::Unavailable
            }
        }
    }

    /// The IDLE session on the first folder; `None` when the server has no IDLE.
    async fn idle_session(&self) -> Result<Option<ImapSession>, IntegrationError> {
        if let Some(session) = self.idle.lock().await.take() {
            return Ok(Some(session));
        }
        let account = self.account().await?;
        let mut session = ImapSession::connect(&account.imap(), &self.trust(), SIGN_IN_TIMEOUT)
            .await
            .map_err(mail_error)?;
        if !session.has_idle().await {
            session.logout().await;
            return Ok(None);
        }
        let first = account
            .folders
            .first()
            .cloned()
            .unwrap_or_else(|| "INBOX".to_owned());
        session.select(&first).await.map_err(mail_error)?;
        Ok(Some(session))
    }

    /// Sends one message through the account's SMTP server.
    pub async fn send(&self, mail: smtp::OutgoingMail) -> Result<String, IntegrationError> {
        let account = self.account().await?;
        let Some(settings) = account.smtp() else {
            return Err(IntegrationError::Invalid(
                "Add an SMTP server to Email (IMAP) in Integrations to send mail.".to_owned(),
            ));
        };
        smtp::send(&settings, &self.trust(), &mail)
            .await
            .map_err(|e| IntegrationError::Service(format!("The mail wasn't sent: {e}")))
    }
}

#[async_trait::async_trait]
impl Feed for EmailImap {
    fn source(&self) -> &'static str {
        "email_imap"
    }

    fn display_name(&self) -> &'static str {
        "Email (IMAP)"
    }

    fn kind(&self) -> &'static str {
        "imap_idle"
    }

    async fn sync(&self, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError> {
        self.sync_folders(cursor).await
    }

    /// IMAP waits in IDLE, so the server says when mail arrives.
    async fn wait_for_change(&self, wait: Duration, cancel: &CancellationToken) -> IdleWait {
        self.wait_in_idle(wait, cancel).await
    }
}

/// One folder's place in the feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct FolderCursor {
    uid_validity: u32,
    last_uid: u32,
}

fn mail_error(error: MailError) -> IntegrationError {
    IntegrationError::Invalid(error.to_string())
}

/// The discovered servers put in the fields the person left empty.
fn fill_from(fields: &mut Map<String, Value>, servers: &MailServers) {
    let mut put = |key: &str, value: String| {
        if text(fields, key).is_empty() {
            fields.insert(key.to_owned(), Value::String(value));
        }
    };
    put("host", servers.host.clone());
    put("port", servers.port.to_string());
    put("security", servers.security.clone());
    if let (Some(host), Some(port)) = (&servers.smtp_host, servers.smtp_port) {
        put("smtp_host", host.clone());
        put("smtp_port", port.to_string());
    }
    // The document may name another username (the local part only, say).
    fields.insert(
        "username".to_owned(),
        Value::String(servers.username.clone()),
    );
}

/// A refused password with discovered servers says where the provider makes app passwords.
fn refused_with_hint(error: MailError, found: Option<&MailServers>) -> IntegrationError {
    match (&error, found) {
        (MailError::WrongPassword, Some(servers)) => {
            let who = servers.provider.as_deref().unwrap_or("The mail server");
            let text = match &servers.app_password_url {
                Some(url) => format!(
                    "{who} didn't accept the password. Most providers need an app password: make one at {url} and paste it here."
                ),
                None => format!(
                    "{who} didn't accept the password. If your account has two-step sign-in, make an app password in its security settings."
                ),
            };
            IntegrationError::Invalid(text)
        }
        _ => mail_error(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::String((*v).to_owned())))
            .collect()
    }

    #[test]
    fn setup_fields_are_read_with_their_defaults() {
        let account = account_from(&fields(&[
            ("host", "imap.example.com"),
            ("username", "me@example.com"),
            ("password", "app pass"),
        ]))
        .expect("ok");
        assert_eq!(account.port, 993);
        assert_eq!(account.security, "ssl");
        assert_eq!(account.folders, ["INBOX"]);
        assert!(account.smtp().is_none());
        let account = account_from(&fields(&[
            ("host", "imap.example.com"),
            ("security", "starttls"),
            ("username", "me"),
            ("password", "p"),
            ("folders", "INBOX, Receipts ,"),
            ("smtp_host", "smtp.example.com"),
            ("smtp_port", "587"),
        ]))
        .expect("ok");
        assert_eq!(account.port, 143);
        assert_eq!(account.folders, ["INBOX", "Receipts"]);
        assert_eq!(account.smtp().map(|s| s.port), Some(587));
    }

    #[test]
    fn bad_setup_fields_say_what_to_fix() {
        let base = [
            ("host", "imap.example.com"),
            ("username", "me"),
            ("password", "p"),
        ];
        let with = |extra: (&str, &str)| {
            let mut f = fields(&base);
            f.insert(extra.0.to_owned(), Value::String(extra.1.to_owned()));
            account_from(&f).err().map(|e| e.to_string())
        };
        assert_eq!(
            with(("security", "tls")).as_deref(),
            Some("Security must be ssl or starttls.")
        );
        assert_eq!(
            with(("port", "99999")).as_deref(),
            Some("The port must be a number from 1 to 65535.")
        );
        assert!(with(("host", "")).is_some());
        assert!(with(("host", "https://imap.example.com")).is_some());
        assert!(with(("password", "")).is_some());
        assert!(with(("username", " ")).is_some());
    }
}
