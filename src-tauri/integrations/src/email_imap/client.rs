//! The IMAP side of "Email (IMAP)": signing in over TLS (implicit or STARTTLS), selecting
//! folders, listing new UIDs, fetching messages as item JSON, searching, waiting in IDLE and
//! listing mailboxes. Every network step has a time limit, so a dead server never hangs a caller.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_imap::extensions::idle::IdleResponse;
use async_imap::imap_proto::{MailboxDatum, RequestId, Response, Status};
use async_imap::types::{Capability, Flag, NameAttribute, UnsolicitedResponse};
use futures::TryStreamExt;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_util::sync::CancellationToken;

/// How the IMAP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// TLS from the first byte (usually port 993).
    Ssl,
    /// A plain connection upgraded with STARTTLS before signing in (usually port 143).
    Starttls,
}

impl Security {
    /// The usual port for this kind of security.
    pub fn default_port(self) -> u16 {
        match self {
            Security::Ssl => 993,
            Security::Starttls => 143,
        }
    }

    /// `"ssl"` or `"starttls"` (the setup field's values); anything else is `None`.
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "ssl" | "tls" => Some(Security::Ssl),
            "starttls" => Some(Security::Starttls),
            _ => None,
        }
    }
}

/// Where and how to sign in to IMAP.
#[derive(Clone)]
pub struct ImapSettings {
    pub host: String,
    pub port: u16,
    pub security: Security,
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for ImapSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .finish()
    }
}

/// Extra root certificates to trust besides the system's (tests' self-signed servers); empty in
/// real use.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    pub extra_roots_pem: Vec<String>,
}

/// What went wrong talking to an email server. The texts are for the person using the app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    #[error(
        "The email server didn't accept that username or password. Many providers need an app password here; create one in your account's security settings."
    )]
    WrongPassword,
    #[error(
        "Couldn't reach the email server {host} on port {port} ({reason}); check the server name, the port and your connection."
    )]
    Unreachable {
        host: String,
        port: u16,
        reason: String,
    },
    #[error("Couldn't make a secure connection to the email server: {0}.")]
    Tls(String),
    #[error("There is no folder called \"{0}\" on the email server.")]
    NoFolder(String),
    #[error("The email server answered in a way Sentient didn't expect: {0}.")]
    Protocol(String),
    #[error("The email server took too long to answer.")]
    TimedOut,
    #[error("The email server refused to send the message: {0}.")]
    Rejected(String),
    #[error("\"{0}\" isn't a valid email address.")]
    BadAddress(String),
    #[error("The email has no recipient; say who it should go to.")]
    NoRecipients,
}

/// What SELECT reported about a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolderState {
    pub uid_validity: u32,
    pub uid_next: u32,
    pub exists: u32,
}

/// How a wait in IDLE ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleOutcome {
    /// The server reported new, removed or changed messages.
    Changed,
    /// Nothing happened before the time limit.
    TimedOut,
    /// The cancellation token fired.
    Cancelled,
}

type Stream = TlsStream<TcpStream>;

/// Messages larger than this are fetched only up to it (enough for the text; attachments are
/// cut off), so a 25 MB attachment never has to be downloaded to read an email.
const MAX_FETCH_BYTES: usize = 2 * 1024 * 1024;
/// UIDs per FETCH command.
const FETCH_CHUNK: usize = 25;
/// A FETCH of a chunk may take this many times the session's time limit (big messages).
const FETCH_TIMEOUT_FACTOR: u32 = 4;
/// Servers log out clients that sit in IDLE for 30 minutes; re-issue before that.
const MAX_IDLE: Duration = Duration::from_secs(29 * 60);

/// A signed-in IMAP connection over TLS.
pub struct ImapSession {
    session: async_imap::Session<Stream>,
    capabilities: HashSet<String>,
    timeout: Duration,
    selected: Option<String>,
    /// Set after a time-out or a broken connection: the protocol state is unknown, so every
    /// further command fails at once and the caller connects again.
    broken: bool,
}

impl std::fmt::Debug for ImapSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapSession")
            .field("selected", &self.selected)
            .field("broken", &self.broken)
            .finish_non_exhaustive()
    }
}

impl ImapSession {
    /// Connects, secures the connection, signs in and reads the capabilities. `timeout` limits
    /// each network step here and every later command on this session.
    pub async fn connect(
        settings: &ImapSettings,
        trust: &Trust,
        timeout: Duration,
    ) -> Result<Self, MailError> {
        let host = settings.host.trim().to_string();
        let port = settings.port;
        let unreachable = |reason: String| MailError::Unreachable {
            host: host.clone(),
            port,
            reason,
        };
        let config = tls_config(trust)?;
        let server_name = server_name(&host)?;

        let tcp =
            match tokio::time::timeout(timeout, TcpStream::connect((host.as_str(), port))).await {
                Err(_) => return Err(unreachable("it didn't answer in time".into())),
                Ok(Err(e)) => return Err(unreachable(io_reason(&e))),
                Ok(Ok(tcp)) => tcp,
            };
        let _ = tcp.set_nodelay(true);

        let tcp = match settings.security {
            Security::Ssl => tcp,
            Security::Starttls => {
                let mut plain = async_imap::Client::new(tcp);
                read_greeting(&mut plain, timeout).await?;
                let started =
                    tokio::time::timeout(timeout, plain.run_command_and_check_ok("STARTTLS", None))
                        .await;
                match started {
                    Err(_) => return Err(MailError::TimedOut),
                    Ok(Err(async_imap::error::Error::Bad(_) | async_imap::error::Error::No(_))) => {
                        return Err(MailError::Tls(
                            "the server doesn't offer STARTTLS; try the SSL setting".into(),
                        ));
                    }
                    Ok(Err(e)) => return Err(imap_error(e)),
                    Ok(Ok(())) => {}
                }
                plain.into_inner()
            }
        };

        let connector = TlsConnector::from(config);
        let tls = match tokio::time::timeout(timeout, connector.connect(server_name, tcp)).await {
            Err(_) => return Err(MailError::TimedOut),
            Ok(Err(e)) => return Err(tls_error(&e)),
            Ok(Ok(tls)) => tls,
        };

        let mut client = async_imap::Client::new(tls);
        if settings.security == Security::Ssl {
            read_greeting(&mut client, timeout).await?;
        }

        let username = settings.username.trim();
        let password = settings.password.as_str();
        let login = if username.is_ascii() && password.is_ascii() {
            tokio::time::timeout(timeout, client.login(username, password)).await
        } else {
            // LOGIN's quoted strings are 7-bit; SASL PLAIN carries UTF-8.
            let auth = PlainAuth {
                username: username.to_string(),
                password: password.to_string(),
            };
            tokio::time::timeout(timeout, client.authenticate("PLAIN", auth)).await
        };
        let session = match login {
            Err(_) => return Err(MailError::TimedOut),
            Ok(Err((e, _client))) => return Err(login_error(e)),
            Ok(Ok(session)) => session,
        };

        let mut this = Self {
            session,
            capabilities: HashSet::new(),
            timeout,
            selected: None,
            broken: false,
        };
        let t = this.timeout;
        let caps = this.run(t, |s| s.capabilities()).await?;
        this.capabilities = caps
            .iter()
            .map(|c| match c {
                Capability::Imap4rev1 => "IMAP4REV1".to_string(),
                Capability::Auth(a) => format!("AUTH={}", a.to_ascii_uppercase()),
                Capability::Atom(a) => a.to_ascii_uppercase(),
            })
            .collect();
        Ok(this)
    }

    /// The server's capabilities after signing in, upper-cased (`IDLE`, `MOVE`, `AUTH=PLAIN`…).
    pub fn capabilities(&self) -> &HashSet<String> {
        &self.capabilities
    }

    /// Whether a time-out or a broken connection made this session unusable.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// The folder selected last, if any.
    pub fn selected(&self) -> Option<&str> {
        self.selected.as_deref()
    }

    /// Selects `folder` (a mailbox name as people write it, e.g. `INBOX` or `Receipts/2024`).
    pub async fn select(&mut self, folder: &str) -> Result<FolderState, MailError> {
        let encoded = encode_mailbox(folder);
        let t = self.timeout;
        self.selected = None;
        let mailbox = match self.run(t, |s| s.select(&encoded)).await {
            Err(MailError::Protocol(_)) if !self.broken => {
                return Err(MailError::NoFolder(folder.to_string()));
            }
            other => other?,
        };
        self.selected = Some(folder.to_string());
        self.drain_unsolicited();
        let uid_next = match mailbox.uid_next {
            Some(next) => next,
            None if mailbox.exists == 0 => 1,
            // A server that leaves UIDNEXT out: the last message's UID plus one.
            None => {
                let last = self.run(t, |s| s.uid_search("*")).await?;
                last.into_iter().max().unwrap_or(0).saturating_add(1)
            }
        };
        Ok(FolderState {
            uid_validity: mailbox.uid_validity.unwrap_or(0),
            uid_next,
            exists: mailbox.exists,
        })
    }

    /// Selects `folder` and returns the UIDs above `after_uid`, oldest first.
    pub async fn uids_after(
        &mut self,
        folder: &str,
        after_uid: u32,
    ) -> Result<Vec<u32>, MailError> {
        let state = self.select(folder).await?;
        let Some(first) = after_uid.checked_add(1) else {
            return Ok(Vec::new());
        };
        if state.exists == 0 || (state.uid_next != 0 && state.uid_next <= first) {
            return Ok(Vec::new());
        }
        let t = self.timeout;
        let query = format!("UID {first}:*");
        let found = self.run(t, |s| s.uid_search(&query)).await?;
        // `n:*` always matches the last message, even when its UID is below n.
        let mut uids: Vec<u32> = found.into_iter().filter(|u| *u > after_uid).collect();
        uids.sort_unstable();
        Ok(uids)
    }

    /// Selects `folder` and returns the UIDs of messages received on or after `since` and, with
    /// `before`, before that day (IMAP `SINCE`/`BEFORE` compare dates only), oldest first.
    pub async fn uids_between(
        &mut self,
        folder: &str,
        since: chrono::NaiveDate,
        before: Option<chrono::NaiveDate>,
    ) -> Result<Vec<u32>, MailError> {
        let state = self.select(folder).await?;
        if state.exists == 0 {
            return Ok(Vec::new());
        }
        let day = |d: chrono::NaiveDate| d.format("%d-%b-%Y").to_string();
        let mut query = format!("SINCE {}", day(since));
        if let Some(before) = before {
            query.push_str(&format!(" BEFORE {}", day(before)));
        }
        let t = self.timeout;
        let found = self.run(t, |s| s.uid_search(&query)).await?;
        let mut uids: Vec<u32> = found.into_iter().collect();
        uids.sort_unstable();
        Ok(uids)
    }

    /// Fetches messages by UID (without marking them read) as item JSON, in the order of `uids`.
    /// UIDs that no longer exist are left out. The item's folder label is `folder`.
    pub async fn fetch(
        &mut self,
        folder: &str,
        uids: &[u32],
        max_body_chars: usize,
    ) -> Result<Vec<serde_json::Value>, MailError> {
        if uids.is_empty() {
            return Ok(Vec::new());
        }
        self.ensure_selected(folder).await?;
        let t = self.timeout * FETCH_TIMEOUT_FACTOR;
        let query = format!("(UID FLAGS INTERNALDATE BODY.PEEK[]<0.{MAX_FETCH_BYTES}>)");
        let wanted: HashSet<u32> = uids.iter().copied().collect();
        let mut items: HashMap<u32, serde_json::Value> = HashMap::new();
        for chunk in uids.chunks(FETCH_CHUNK) {
            let set = uid_set(chunk);
            let query = &query;
            let fetched = self
                .run(t, |s| async move {
                    let stream = s.uid_fetch(&set, query).await?;
                    stream.try_collect::<Vec<_>>().await
                })
                .await?;
            for message in fetched {
                let Some(uid) = message.uid else { continue };
                if !wanted.contains(&uid) {
                    continue;
                }
                let Some(raw) = message.body() else { continue };
                let (mut seen, mut flagged) = (false, false);
                for flag in message.flags() {
                    match flag {
                        Flag::Seen => seen = true,
                        Flag::Flagged => flagged = true,
                        _ => {}
                    }
                }
                let mut item =
                    super::message::item_from_raw(raw, uid, folder, seen, flagged, max_body_chars);
                if item.get("date").is_none_or(serde_json::Value::is_null)
                    && let Some(date) = message.internal_date()
                {
                    item["date"] = serde_json::Value::String(
                        date.with_timezone(&chrono::Utc)
                            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    );
                }
                items.insert(uid, item);
            }
        }
        self.drain_unsolicited();
        Ok(uids.iter().filter_map(|u| items.remove(u)).collect())
    }

    /// Searches `folder` for messages whose headers or text contain every word of `query` (IMAP
    /// `SEARCH TEXT`), newest first, at most `limit`. An empty query lists the newest messages.
    pub async fn search(
        &mut self,
        folder: &str,
        query: &str,
        limit: usize,
        max_body_chars: usize,
    ) -> Result<Vec<serde_json::Value>, MailError> {
        self.ensure_selected(folder).await?;
        let mut uids = self.uid_search_text(query).await?;
        uids.sort_unstable_by(|a, b| b.cmp(a));
        uids.truncate(limit);
        self.fetch(folder, &uids, max_body_chars).await
    }

    /// Whether the server offers IDLE (from CAPABILITY).
    pub async fn has_idle(&self) -> bool {
        self.capabilities.contains("IDLE")
    }

    /// Waits in IDLE on the selected folder until the server reports a change, `timeout` passes
    /// (at most 29 minutes), or `cancel` fires. Returns the session back (IDLE takes ownership of
    /// the connection while it runs).
    pub async fn idle(
        self,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<(Self, IdleOutcome), MailError> {
        self.check_usable()?;
        if !self.capabilities.contains("IDLE") {
            return Err(MailError::Protocol(
                "it doesn't support waiting for new mail (IDLE)".into(),
            ));
        }
        if self.selected.is_none() {
            return Err(MailError::Protocol("no folder is selected".into()));
        }
        if cancel.is_cancelled() {
            return Ok((self, IdleOutcome::Cancelled));
        }
        let wait = timeout.min(MAX_IDLE);
        let op_timeout = self.timeout;
        let Self {
            session,
            capabilities,
            timeout: session_timeout,
            selected,
            broken,
        } = self;

        // The queue of responses the server sends on its own; `init` puts there whatever came
        // before the server's go-ahead (changes noticed by earlier commands or as IDLE began).
        let queue = session.unsolicited_responses.clone();
        let mut handle = session.idle();
        match tokio::time::timeout(op_timeout, handle.init()).await {
            Err(_) => return Err(MailError::TimedOut),
            Ok(Err(e)) => return Err(imap_error(e)),
            Ok(Ok(())) => {}
        }
        let mut queued = Vec::new();
        while let Ok(r) = queue.try_recv() {
            queued.push(r);
        }
        let outcome = if queued_changes(&queued) {
            IdleOutcome::Changed
        } else {
            let (wait_fut, stop) = handle.wait_with_timeout(wait + Duration::from_secs(60));
            let result = tokio::select! {
                r = wait_fut => match r {
                    Ok(IdleResponse::NewData(_)) => Ok(IdleOutcome::Changed),
                    Ok(IdleResponse::Timeout) => Ok(IdleOutcome::TimedOut),
                    Ok(IdleResponse::ManualInterrupt) => Ok(IdleOutcome::Cancelled),
                    Err(e) => Err(imap_error(e)),
                },
                _ = tokio::time::sleep(wait) => Ok(IdleOutcome::TimedOut),
                _ = cancel.cancelled() => Ok(IdleOutcome::Cancelled),
            };
            drop(stop);
            result?
        };

        let session = match tokio::time::timeout(op_timeout, handle.done()).await {
            Err(_) => return Err(MailError::TimedOut),
            Ok(Err(e)) => return Err(imap_error(e)),
            Ok(Ok(session)) => session,
        };
        let mut this = Self {
            session,
            capabilities,
            timeout: session_timeout,
            selected,
            broken,
        };
        // Whatever came in with DONE is covered by the caller's next look at the folder.
        this.drain_unsolicited();
        Ok((this, outcome))
    }

    /// NOOP: keeps the connection alive and lets the server report changes.
    pub async fn noop(&mut self) -> Result<(), MailError> {
        self.noop_changed().await.map(|_| ())
    }

    /// Like [`noop`](Self::noop), telling whether the server reported changes to the selected
    /// folder (for polling servers without IDLE).
    pub async fn noop_changed(&mut self) -> Result<bool, MailError> {
        let t = self.timeout;
        self.run(t, |s| s.noop()).await?;
        let queued = self.drain_unsolicited();
        Ok(queued_changes(&queued))
    }

    /// Every selectable mailbox, with whether it carries the `\Sent` special-use attribute.
    pub async fn mailboxes(&mut self) -> Result<Vec<(String, bool)>, MailError> {
        let t = self.timeout;
        let names = self
            .run(t, |s| async move {
                let stream = s.list(Some(""), Some("*")).await?;
                stream.try_collect::<Vec<_>>().await
            })
            .await?;
        let mut out = Vec::new();
        for name in &names {
            let attributes = name.attributes();
            if attributes.iter().any(|a| matches!(a, NameAttribute::NoSelect))
                || attributes.iter().any(
                    |a| matches!(a, NameAttribute::Extension(e) if e.eq_ignore_ascii_case("\\NonExistent")),
                )
            {
                continue;
            }
            let sent = attributes.iter().any(|a| matches!(a, NameAttribute::Sent));
            out.push((decode_mailbox(name.name()), sent));
        }
        self.drain_unsolicited();
        Ok(out)
    }

    /// The mailbox where sent mail goes: the one marked `\Sent`, else a well-known name.
    pub async fn sent_mailbox(&mut self) -> Result<Option<String>, MailError> {
        Ok(pick_sent_mailbox(&self.mailboxes().await?))
    }

    /// Stores a raw message in `folder` (e.g. a copy of a sent message in the Sent mailbox).
    pub async fn append(&mut self, folder: &str, raw: &[u8], seen: bool) -> Result<(), MailError> {
        let encoded = encode_mailbox(folder);
        let t = self.timeout;
        let flags = if seen { Some("(\\Seen)") } else { None };
        match self.run(t, |s| s.append(&encoded, flags, None, raw)).await {
            Err(MailError::Protocol(_)) if !self.broken => {
                Err(MailError::NoFolder(folder.to_string()))
            }
            other => other,
        }
    }

    /// Signs out (best effort, bounded by the session's time limit).
    pub async fn logout(mut self) {
        if self.broken {
            return;
        }
        let _ = tokio::time::timeout(self.timeout, self.session.logout()).await;
    }

    async fn ensure_selected(&mut self, folder: &str) -> Result<(), MailError> {
        if self.selected.as_deref() != Some(folder) {
            self.select(folder).await?;
        }
        Ok(())
    }

    fn check_usable(&self) -> Result<(), MailError> {
        if self.broken {
            Err(MailError::Protocol(
                "the connection was interrupted; connect again".into(),
            ))
        } else {
            Ok(())
        }
    }

    /// Runs one command with the time limit, marking the session broken on a time-out or a
    /// broken connection (a NO or BAD answer leaves it usable).
    async fn run<'a, T, F, Fut>(&'a mut self, timeout: Duration, f: F) -> Result<T, MailError>
    where
        F: FnOnce(&'a mut async_imap::Session<Stream>) -> Fut,
        Fut: Future<Output = async_imap::error::Result<T>> + 'a,
    {
        self.check_usable()?;
        let broken = &mut self.broken;
        match tokio::time::timeout(timeout, f(&mut self.session)).await {
            Err(_) => {
                *broken = true;
                Err(MailError::TimedOut)
            }
            Ok(Err(e)) => {
                // NO, BAD and a refused APPEND leave the connection in a known state.
                if !matches!(
                    e,
                    async_imap::error::Error::No(_)
                        | async_imap::error::Error::Bad(_)
                        | async_imap::error::Error::Append
                ) {
                    *broken = true;
                }
                Err(imap_error(e))
            }
            Ok(Ok(v)) => Ok(v),
        }
    }

    /// Empties the queue of responses the server sent on its own, returning them.
    fn drain_unsolicited(&mut self) -> Vec<UnsolicitedResponse> {
        let mut out = Vec::new();
        while let Ok(r) = self.session.unsolicited_responses.try_recv() {
            out.push(r);
        }
        out
    }

    /// `UID SEARCH` with one `TEXT` key per word of `query`; words with non-ASCII letters go as
    /// literals with `CHARSET UTF-8`.
    async fn uid_search_text(&mut self, query: &str) -> Result<Vec<u32>, MailError> {
        let cleaned: String = query
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let words: Vec<&str> = cleaned.split_whitespace().collect();
        if words.is_empty() {
            let t = self.timeout;
            let all = self.run(t, |s| s.uid_search("ALL")).await?;
            return Ok(all.into_iter().collect());
        }
        let utf8 = words.iter().any(|w| !w.is_ascii());
        // The command as lines: each but the last ends with a literal's `{n}` announcement.
        let mut segments: Vec<String> = Vec::new();
        let mut literals: Vec<String> = Vec::new();
        let mut current = String::from(if utf8 {
            "UID SEARCH CHARSET UTF-8"
        } else {
            "UID SEARCH"
        });
        for word in words {
            if word.is_ascii() {
                current.push_str(" TEXT ");
                current.push_str(&quote(word));
            } else {
                current.push_str(&format!(" TEXT {{{}}}", word.len()));
                segments.push(std::mem::take(&mut current));
                literals.push(word.to_string());
            }
        }
        segments.push(current);

        let t = self.timeout;
        self.run(t, |s| search_with_literals(s, segments, literals))
            .await
    }
}

/// Sends a command made of `segments` with `literals` between them (synchronizing literals:
/// each waits for the server's `+`), and collects the UIDs of the `* SEARCH` answers.
async fn search_with_literals(
    session: &mut async_imap::Session<Stream>,
    segments: Vec<String>,
    literals: Vec<String>,
) -> async_imap::error::Result<Vec<u32>> {
    let mut segments = segments.into_iter();
    let first = segments.next().unwrap_or_default();
    let id = session.run_command(&first).await?;
    let mut found = Vec::new();
    for (literal, rest) in literals.into_iter().zip(segments) {
        // Wait for the continuation request (or a refusal).
        loop {
            let Some(response) = session.read_response().await? else {
                return Err(async_imap::error::Error::ConnectionLost);
            };
            match response.parsed() {
                Response::Continue { .. } => break,
                Response::Done {
                    tag,
                    status,
                    information,
                    ..
                } if *tag == id => {
                    return Err(status_error(status, information.as_deref()));
                }
                _ => {}
            }
        }
        session
            .run_command_untagged(format!("{literal}{rest}"))
            .await?;
    }
    loop {
        let Some(response) = session.read_response().await? else {
            return Err(async_imap::error::Error::ConnectionLost);
        };
        match response.parsed() {
            Response::MailboxData(MailboxDatum::Search(uids)) => found.extend(uids.iter()),
            Response::Done {
                tag,
                status,
                information,
                ..
            } if tag_is(tag, &id) => {
                return match status {
                    Status::Ok => Ok(found),
                    other => Err(status_error(other, information.as_deref())),
                };
            }
            _ => {}
        }
    }
}

fn tag_is(tag: &RequestId, id: &RequestId) -> bool {
    tag == id
}

fn status_error(status: &Status, information: Option<&str>) -> async_imap::error::Error {
    let text = information.unwrap_or("").to_string();
    match status {
        Status::No => async_imap::error::Error::No(text),
        _ => async_imap::error::Error::Bad(text),
    }
}

/// Whether queued unsolicited responses tell of new, removed or changed messages.
fn queued_changes(queued: &[UnsolicitedResponse]) -> bool {
    queued.iter().any(|r| match r {
        UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Expunge(_) => true,
        UnsolicitedResponse::Recent(n) => *n > 0,
        UnsolicitedResponse::Other(data) => {
            matches!(
                data.parsed(),
                Response::Fetch(..) | Response::Vanished { .. }
            )
        }
        UnsolicitedResponse::Status { .. } => false,
    })
}

/// SASL PLAIN for UTF-8 usernames and passwords.
struct PlainAuth {
    username: String,
    password: String,
}

impl async_imap::Authenticator for PlainAuth {
    type Response = Vec<u8>;
    fn process(&mut self, _challenge: &[u8]) -> Self::Response {
        let mut out = Vec::with_capacity(self.username.len() + self.password.len() + 2);
        out.push(0);
        out.extend_from_slice(self.username.as_bytes());
        out.push(0);
        out.extend_from_slice(self.password.as_bytes());
        out
    }
}

/// Reads the server's greeting: `* OK` or `* PREAUTH` go on, `* BYE` is a refusal.
async fn read_greeting<T>(
    client: &mut async_imap::Client<T>,
    timeout: Duration,
) -> Result<(), MailError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + std::fmt::Debug + Send,
{
    let greeting = match tokio::time::timeout(timeout, client.read_response()).await {
        Err(_) => return Err(MailError::TimedOut),
        Ok(Err(e)) => return Err(tls_error(&e)),
        Ok(Ok(None)) => {
            return Err(MailError::Protocol(
                "it closed the connection without a greeting".into(),
            ));
        }
        Ok(Ok(Some(g))) => g,
    };
    match greeting.parsed() {
        Response::Data {
            status: Status::Ok | Status::PreAuth,
            ..
        } => Ok(()),
        Response::Data {
            status: Status::Bye,
            information,
            ..
        } => Err(MailError::Protocol(format!(
            "it refused the connection ({})",
            information.as_deref().unwrap_or("no reason given")
        ))),
        _ => Err(MailError::Protocol(
            "its greeting wasn't an IMAP greeting; check the port".into(),
        )),
    }
}

fn login_error(e: async_imap::error::Error) -> MailError {
    match e {
        async_imap::error::Error::No(text) => {
            if text.contains("Unavailable") {
                MailError::Protocol("signing in is unavailable right now; try again later".into())
            } else {
                MailError::WrongPassword
            }
        }
        // Some servers answer BAD to AUTHENTICATE PLAIN with a wrong password.
        async_imap::error::Error::Bad(text) if text.contains("AuthenticationFailed") => {
            MailError::WrongPassword
        }
        other => imap_error(other),
    }
}

fn imap_error(e: async_imap::error::Error) -> MailError {
    use async_imap::error::Error;
    match e {
        Error::Io(io) => match io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
            Some(_) => tls_error(&io),
            None => MailError::Protocol(format!("the connection broke ({})", io_reason(&io))),
        },
        Error::ConnectionLost => MailError::Protocol("the connection was lost".into()),
        Error::Bad(text) => MailError::Protocol(format!("it rejected a command ({text})")),
        Error::No(text) => MailError::Protocol(format!("it refused a command ({text})")),
        Error::Parse(p) => MailError::Protocol(format!("its answer couldn't be read ({p})")),
        Error::Validate(v) => MailError::Protocol(format!("a name couldn't be sent ({v})")),
        Error::Append => MailError::Protocol("it didn't accept the message to store".into()),
        other => MailError::Protocol(other.to_string()),
    }
}

fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::ConnectionRefused => "the connection was refused".into(),
        ErrorKind::TimedOut => "it didn't answer in time".into(),
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
            "the connection was closed".into()
        }
        _ => {
            let text = e.to_string();
            if text.contains("lookup") || text.contains("resolve") || text.contains("not known") {
                "the server name couldn't be found".into()
            } else {
                text
            }
        }
    }
}

/// Turns a TLS handshake failure into a sentence about what is wrong.
pub(crate) fn tls_error(e: &std::io::Error) -> MailError {
    use rustls::CertificateError;
    let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) else {
        return match e.kind() {
            std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::InvalidData => MailError::Tls(
                "the server closed the connection during the secure handshake; check the port and the security setting".into(),
            ),
            _ => MailError::Protocol(format!("the connection broke ({})", io_reason(e))),
        };
    };
    let text = match inner {
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "the server's certificate isn't from an authority this computer trusts".to_string()
        }
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => "the server's certificate is for a different server name".to_string(),
        rustls::Error::InvalidCertificate(
            CertificateError::Expired | CertificateError::ExpiredContext { .. },
        ) => "the server's certificate has expired".to_string(),
        rustls::Error::InvalidCertificate(other) => {
            format!("the server's certificate isn't valid ({other:?})")
        }
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            "the server didn't start a secure connection on this port; check the port and the security setting".to_string()
        }
        other => other.to_string(),
    };
    MailError::Tls(text)
}

pub(crate) fn server_name(host: &str) -> Result<ServerName<'static>, MailError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(bare.to_string())
        .map_err(|_| MailError::Tls(format!("\"{host}\" isn't a valid server name")))
}

/// The system's root certificates, loaded once.
pub(crate) fn native_roots() -> &'static [CertificateDer<'static>] {
    static NATIVE: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    NATIVE.get_or_init(|| rustls_native_certs::load_native_certs().certs)
}

/// The extra certificates of `trust`, parsed from PEM.
pub(crate) fn extra_roots(trust: &Trust) -> Result<Vec<CertificateDer<'static>>, MailError> {
    let mut out = Vec::new();
    for pem in &trust.extra_roots_pem {
        for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            out.push(cert.map_err(|e| {
                MailError::Tls(format!("a certificate to trust couldn't be read ({e})"))
            })?);
        }
    }
    Ok(out)
}

pub(crate) fn tls_config(trust: &Trust) -> Result<Arc<rustls::ClientConfig>, MailError> {
    let mut store = rustls::RootCertStore::empty();
    store.add_parsable_certificates(native_roots().iter().cloned());
    for cert in extra_roots(trust)? {
        store
            .add(cert)
            .map_err(|e| MailError::Tls(format!("a certificate to trust isn't usable ({e})")))?;
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| MailError::Tls(e.to_string()))?
        .with_root_certificates(store)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// A quoted IMAP string.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A compact UID set: `1:3,7,9:10`.
fn uid_set(uids: &[u32]) -> String {
    let mut sorted = uids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end.saturating_add(1) {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}:{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// Picks the sent mailbox: the one marked `\Sent`, else the first well-known name.
pub fn pick_sent_mailbox(mailboxes: &[(String, bool)]) -> Option<String> {
    if let Some((name, _)) = mailboxes.iter().find(|(_, sent)| *sent) {
        return Some(name.clone());
    }
    const NAMES: [&str; 6] = [
        "Sent",
        "Sent Items",
        "[Gmail]/Sent Mail",
        "Sent Messages",
        "Sent Mail",
        "INBOX.Sent",
    ];
    NAMES.iter().find_map(|wanted| {
        mailboxes
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
            .map(|(name, _)| name.clone())
    })
}

const MUTF7_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

/// A mailbox name in IMAP's modified UTF-7 (RFC 3501 5.1.3): `Reçus` → `Re&AOc-us`.
pub fn encode_mailbox(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut pending: Vec<u16> = Vec::new();
    let flush = |pending: &mut Vec<u16>, out: &mut String| {
        if pending.is_empty() {
            return;
        }
        let bytes: Vec<u8> = pending.iter().flat_map(|u| u.to_be_bytes()).collect();
        out.push('&');
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            let chars = chunk.len() + 1;
            for k in 0..chars {
                let index = ((n >> (18 - 6 * k)) & 0x3f) as usize;
                out.push(char::from(MUTF7_ALPHABET[index]));
            }
        }
        out.push('-');
        pending.clear();
    };
    for c in name.chars() {
        if (' '..='~').contains(&c) {
            flush(&mut pending, &mut out);
            if c == '&' {
                out.push_str("&-");
            } else {
                out.push(c);
            }
        } else {
            let mut buf = [0u16; 2];
            pending.extend_from_slice(c.encode_utf16(&mut buf));
        }
    }
    flush(&mut pending, &mut out);
    out
}

/// The readable form of a modified UTF-7 mailbox name; names that aren't valid stay as they are.
pub fn decode_mailbox(name: &str) -> String {
    fn value(c: u8) -> Option<u32> {
        MUTF7_ALPHABET
            .iter()
            .position(|a| *a == c)
            .map(|p| p as u32)
    }
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'&' {
            let next = name[i..].find('&').map_or(bytes.len(), |p| i + p);
            out.push_str(&name[i..next]);
            i = next;
            continue;
        }
        let Some(end) = name[i + 1..].find('-').map(|p| i + 1 + p) else {
            return name.to_string();
        };
        if end == i + 1 {
            out.push('&');
        } else {
            let mut acc: u32 = 0;
            let mut nbits = 0;
            let mut raw: Vec<u8> = Vec::new();
            for &c in &bytes[i + 1..end] {
                let Some(v) = value(c) else {
                    return name.to_string();
                };
                acc = (acc << 6) | v;
                nbits += 6;
                if nbits >= 8 {
                    nbits -= 8;
                    raw.push(((acc >> nbits) & 0xff) as u8);
                }
            }
            let units: Vec<u16> = raw
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            match String::from_utf16(&units) {
                Ok(s) => out.push_str(&s),
                Err(_) => return name.to_string(),
            }
        }
        i = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_utf7_round_trips() {
        for (plain, encoded) in [
            ("INBOX", "INBOX"),
            ("Reçus", "Re&AOc-us"),
            ("A&B", "A&-B"),
            ("日本語", "&ZeVnLIqe-"),
            ("Sent Items", "Sent Items"),
            ("😀", "&2D3eAA-"),
        ] {
            assert_eq!(encode_mailbox(plain), encoded, "encoding {plain}");
            assert_eq!(decode_mailbox(encoded), plain, "decoding {encoded}");
        }
        assert_eq!(decode_mailbox("broken&"), "broken&");
    }

    #[test]
    fn uid_sets_are_compact() {
        assert_eq!(uid_set(&[3, 1, 2, 7, 9, 10]), "1:3,7,9:10");
        assert_eq!(uid_set(&[5]), "5");
        assert_eq!(
            uid_set(&[u32::MAX - 1, u32::MAX]),
            format!("{}:{}", u32::MAX - 1, u32::MAX)
        );
    }

    #[test]
    fn quoting_escapes_specials() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn sent_mailbox_prefers_special_use() {
        let boxes = vec![
            ("INBOX".to_string(), false),
            ("Sent Items".to_string(), false),
            ("Gesendet".to_string(), true),
        ];
        assert_eq!(pick_sent_mailbox(&boxes).as_deref(), Some("Gesendet"));
        let boxes = vec![
            ("INBOX".to_string(), false),
            ("[Gmail]/Sent Mail".to_string(), false),
        ];
        assert_eq!(
            pick_sent_mailbox(&boxes).as_deref(),
            Some("[Gmail]/Sent Mail")
        );
        assert_eq!(pick_sent_mailbox(&[("INBOX".to_string(), false)]), None);
    }

    #[test]
    fn debug_output_hides_the_password() {
        let settings = ImapSettings {
            host: "imap.example.com".into(),
            port: 993,
            security: Security::Ssl,
            username: "me".into(),
            password: "hunter2".into(),
        };
        let shown = format!("{settings:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("imap.example.com"), "{shown}");
    }

    #[test]
    fn security_parses_setup_values() {
        assert_eq!(Security::parse("SSL"), Some(Security::Ssl));
        assert_eq!(Security::parse("starttls"), Some(Security::Starttls));
        assert_eq!(Security::parse("none"), None);
        assert_eq!(Security::Starttls.default_port(), 143);
    }
}
