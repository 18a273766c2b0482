//! What proactivity and follow-ups ask of the apps (contract section 5, "Backend-only API"):
//! `poll_source` (new items since a time, published once with origin `poll`) and
//! `recent_threads` (conversations active lately whose newest message is at least a few days
//! old, for follow-ups). Both read only; privacy filters and code masking apply.

use sentient_core::sync::MutexExt;
#[cfg(feature = "email")]
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
#[cfg(feature = "google")]
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "email")]
use serde_json::json;

use crate::ctx::AppCtx;
#[cfg(feature = "email")]
use crate::email_imap::EmailImap;
#[cfg(feature = "email")]
use crate::email_imap::client::pick_sent_mailbox;
use crate::emit::ItemsDoor;
use crate::error::IntegrationError;
#[cfg(feature = "google")]
use crate::google::call_ok;

/// Gmail's thread listing: pages of 50, at most 5.
#[cfg(feature = "google")]
const GMAIL_PAGE: u32 = 50;
#[cfg(feature = "google")]
const GMAIL_PAGES: usize = 5;
/// IMAP: the newest quiet messages (before the idle cutoff) and recent ones read per mailbox.
#[cfg(feature = "email")]
const QUIET_CAP: usize = 150;
#[cfg(feature = "email")]
const RECENT_CAP: usize = 400;
/// The headers a follow-up message keeps.
#[cfg(feature = "email")]
const KEPT_HEADERS: [&str; 5] = [
    "list-unsubscribe",
    "list-id",
    "precedence",
    "auto-submitted",
    "content-type",
];

/// `recent_threads`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecentThreads {
    /// The user's own addresses seen (the account and senders of sent mail).
    pub addresses: Vec<String>,
    pub threads: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// When a source was last polled and what went wrong, for proactivity's status.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PollStatus {
    pub last_poll_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// Polls and follow-up reads of the mail and calendar apps, with each source's poll record.
pub struct Polls {
    apps: AppCtx,
    door: Arc<ItemsDoor>,
    #[cfg(feature = "email")]
    imap: Arc<EmailImap>,
    records: Mutex<HashMap<String, PollStatus>>,
}

#[cfg(feature = "email")]
fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(feature = "email")]
fn date_of(item: &Value) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text(item, "date"))
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

impl Polls {
    pub fn new(
        apps: AppCtx,
        door: Arc<ItemsDoor>,
        #[cfg(feature = "email")] imap: Arc<EmailImap>,
    ) -> Self {
        Self {
            apps,
            door,
            #[cfg(feature = "email")]
            imap,
            records: Mutex::default(),
        }
    }

    pub fn poll_status(&self, source: &str) -> PollStatus {
        self.records
            .lock_unpoisoned()
            .get(source)
            .cloned()
            .unwrap_or_default()
    }

    fn record_poll(&self, source: &str, error: Option<String>) {
        let now = self.apps.clock().now();
        self.records.lock_unpoisoned().insert(
            source.to_owned(),
            PollStatus {
                last_poll_at: Some(now),
                last_error: error,
            },
        );
    }

    /// New, privacy-filtered items of `source` (`gmail` or `gcalendar`) since `since` (default a
    /// day ago), each returned and published once (`source.items`, origin `poll`).
    pub async fn poll_source(
        &self,
        source: &str,
        since: Option<DateTime<Utc>>,
    ) -> Result<Vec<Value>, IntegrationError> {
        if !matches!(source, "gmail" | "gcalendar") {
            return Err(IntegrationError::NoFeed(source.to_owned()));
        }
        if !self.apps.is_connected(source) {
            return Err(IntegrationError::Invalid(format!(
                "{source} isn't connected."
            )));
        }
        let since = since.unwrap_or_else(|| self.apps.clock().now() - Duration::days(1));
        #[cfg(feature = "google")]
        let found = match source {
            "gmail" => self.poll_gmail(since).await,
            _ => self.poll_calendar(since).await,
        };
        #[cfg(not(feature = "google"))]
        let found: Result<Vec<Value>, IntegrationError> = {
            let _ = since;
            Err(IntegrationError::NoFeed(source.to_owned()))
        };
        match found {
            Ok(items) => {
                self.record_poll(source, None);
                self.door.emit(source, "poll", items, None).await
            }
            Err(error) => {
                self.record_poll(source, Some(error.to_string()));
                Err(error)
            }
        }
    }

    #[cfg(feature = "google")]
    async fn poll_gmail(&self, since: DateTime<Utc>) -> Result<Vec<Value>, IntegrationError> {
        crate::gmail::search(
            &self.apps,
            &format!("in:inbox after:{}", since.timestamp()),
            50,
        )
        .await
    }

    #[cfg(feature = "google")]
    async fn poll_calendar(&self, since: DateTime<Utc>) -> Result<Vec<Value>, IntegrationError> {
        let url = format!(
            "{}/calendars/primary/events",
            self.apps.endpoints().calendar.trim_end_matches('/')
        );
        let value = call_ok(
            &self.apps,
            "gcalendar",
            Method::GET,
            &url,
            &[
                ("updatedMin", since.to_rfc3339()),
                ("showDeleted", "true".to_owned()),
                ("maxResults", "250".to_owned()),
            ],
            None,
        )
        .await?;
        let now = self.apps.clock().now();
        Ok(value
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|event| {
                let mut item = crate::gcalendar::event_item(event);
                let kind = crate::gcalendar::event_kind(&item, now)?;
                item["event"] = json!(kind);
                Some(item)
            })
            .collect())
    }

    /// Conversations active in the last `newer_than_days` days whose newest message is at least
    /// `idle_days` old, at most `limit` (contract section 5's rules). Read only.
    pub async fn recent_threads(
        &self,
        source: &str,
        newer_than_days: i64,
        idle_days: i64,
        limit: usize,
    ) -> Result<RecentThreads, IntegrationError> {
        if !self.apps.is_connected(source) {
            return Err(IntegrationError::Invalid(format!(
                "{source} isn't connected."
            )));
        }
        let now = self.apps.clock().now();
        let oldest = now - Duration::days(newer_than_days.max(1));
        let idle_cutoff = now - Duration::days(idle_days.max(0));
        let found = self.threads_of(source, oldest, idle_cutoff, limit).await?;
        // A thread goes whole when the filters hide any of its messages or people.
        let filters = self.apps.filters(source).await?;
        let mask = self.apps.masks_codes();
        let mut threads = Vec::new();
        for mut thread in found.threads {
            let messages = thread["messages"].as_array().cloned().unwrap_or_default();
            if messages.iter().any(|m| filters.hides(m)) {
                continue;
            }
            if mask {
                crate::redact::mask_item(&mut thread);
            }
            threads.push(thread);
        }
        Ok(RecentThreads {
            addresses: found.addresses,
            threads,
            note: found.note,
        })
    }

    /// The source's quiet threads, before filters and masking.
    #[cfg(feature = "email")]
    async fn threads_of(
        &self,
        source: &str,
        oldest: DateTime<Utc>,
        idle_cutoff: DateTime<Utc>,
        limit: usize,
    ) -> Result<RecentThreads, IntegrationError> {
        match source {
            #[cfg(feature = "google")]
            "gmail" => self.gmail_threads(oldest, idle_cutoff, limit).await,
            "email_imap" => self.imap_threads(oldest, idle_cutoff, limit).await,
            other => Err(IntegrationError::NoFeed(other.to_owned())),
        }
    }

    /// Without the mail apps no source has threads.
    #[cfg(not(feature = "email"))]
    async fn threads_of(
        &self,
        source: &str,
        _oldest: DateTime<Utc>,
        _idle_cutoff: DateTime<Utc>,
        _limit: usize,
    ) -> Result<RecentThreads, IntegrationError> {
        Err(IntegrationError::NoFeed(source.to_owned()))
    }

    #[cfg(feature = "google")]
    async fn gmail_threads(
        &self,
        oldest: DateTime<Utc>,
        idle_cutoff: DateTime<Utc>,
        limit: usize,
    ) -> Result<RecentThreads, IntegrationError> {
        let base = crate::gmail::base(&self.apps);
        let own = self.apps.state("gmail").account_label.unwrap_or_default();
        let mut addresses = vec![own.clone()];
        let mut threads = Vec::new();
        let mut page: Option<String> = None;
        let days = (self.apps.clock().now() - oldest).num_days().max(1);
        'pages: for _ in 0..GMAIL_PAGES {
            let mut query = vec![
                ("q", format!("newer_than:{days}d")),
                ("maxResults", GMAIL_PAGE.to_string()),
            ];
            if let Some(p) = &page {
                query.push(("pageToken", p.clone()));
            }
            let list = call_ok(
                &self.apps,
                "gmail",
                Method::GET,
                &format!("{base}/threads"),
                &query,
                None,
            )
            .await?;
            for id in list
                .get("threads")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("id").and_then(Value::as_str))
            {
                let thread = call_ok(
                    &self.apps,
                    "gmail",
                    Method::GET,
                    &format!("{base}/threads/{id}"),
                    &[("format", "minimal".to_owned())],
                    None,
                )
                .await?;
                let ids: Vec<&str> = thread
                    .get("messages")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m.get("id").and_then(Value::as_str))
                    .collect();
                let mut messages = Vec::new();
                for message_id in ids {
                    let mut item = crate::gmail::message(&self.apps, message_id).await?;
                    let from_me = item["labels"]
                        .as_array()
                        .is_some_and(|l| l.iter().any(|x| x == "SENT"))
                        || text(&item, "sender_email").eq_ignore_ascii_case(&own);
                    item["from_me"] = json!(from_me);
                    if from_me {
                        let sender = text(&item, "sender_email").to_lowercase();
                        if !sender.is_empty() && !addresses.contains(&sender) {
                            addresses.push(sender);
                        }
                    }
                    keep_headers(&mut item);
                    messages.push(item);
                }
                messages.sort_by_key(date_of);
                let Some(newest) = messages.last().and_then(date_of) else {
                    continue;
                };
                // Busy threads are dropped before they count toward the limit.
                if newest > idle_cutoff || newest < oldest {
                    continue;
                }
                threads.push(json!({"source": "gmail", "thread_id": id,
                    "url": format!("https://mail.google.com/mail/u/0/#all/{id}"), "messages": messages}));
                if threads.len() >= limit {
                    break 'pages;
                }
            }
            page = list
                .get("nextPageToken")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if page.is_none() {
                break;
            }
        }
        Ok(RecentThreads {
            addresses,
            threads,
            note: None,
        })
    }

    #[cfg(feature = "email")]
    async fn imap_threads(
        &self,
        oldest: DateTime<Utc>,
        idle_cutoff: DateTime<Utc>,
        limit: usize,
    ) -> Result<RecentThreads, IntegrationError> {
        let imap = &self.imap;
        let found = imap
            .with_session(move |session, account| {
                Box::pin(async move {
                    let mailboxes = session.mailboxes().await?;
                    let own = account.username.to_lowercase();
                    let Some(sent) = pick_sent_mailbox(&mailboxes) else {
                        return Ok((vec![own], Vec::new(), Some("no_sent_mailbox".to_owned())));
                    };
                    let mut all: Vec<Value> = Vec::new();
                    for folder in ["INBOX".to_owned(), sent.clone()] {
                        let quiet = session
                            .uids_between(
                                &folder,
                                oldest.date_naive(),
                                Some(idle_cutoff.date_naive()),
                            )
                            .await?;
                        let recent = session
                            .uids_between(&folder, idle_cutoff.date_naive(), None)
                            .await?;
                        let mut uids: Vec<u32> =
                            quiet.iter().rev().take(QUIET_CAP).copied().collect();
                        uids.extend(recent.iter().rev().take(RECENT_CAP).copied());
                        uids.sort_unstable();
                        uids.dedup();
                        if !uids.is_empty() {
                            for mut item in session.fetch(&folder, &uids, 2000).await? {
                                item["mailbox"] = json!(folder);
                                all.push(item);
                            }
                        }
                    }
                    Ok((vec![own], all, None))
                })
            })
            .await?;
        let (mut addresses, all, note) = found;
        if note.is_some() {
            return Ok(RecentThreads {
                addresses,
                threads: Vec::new(),
                note,
            });
        }
        let sent_folder = |item: &Value| text(item, "mailbox") != "INBOX";
        for item in all.iter().filter(|i| sent_folder(i)) {
            let sender = text(item, "sender_email").to_lowercase();
            if !sender.is_empty() && !addresses.contains(&sender) {
                addresses.push(sender);
            }
        }
        let mut by_thread: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for mut item in all {
            let from_me = addresses.contains(&text(&item, "sender_email").to_lowercase());
            item["from_me"] = json!(from_me);
            keep_headers(&mut item);
            by_thread
                .entry(text(&item, "thread_id").to_owned())
                .or_default()
                .push(item);
        }
        let mut threads = Vec::new();
        for (thread_id, mut messages) in by_thread {
            messages.sort_by_key(date_of);
            let Some(newest) = messages.last().and_then(date_of) else {
                continue;
            };
            if newest > idle_cutoff || newest < oldest {
                continue;
            }
            // Only the newest message keeps its text.
            let last = messages.len() - 1;
            for message in &mut messages[..last] {
                message["body"] = json!("");
            }
            threads.push((newest, json!({"source": "email_imap", "thread_id": thread_id, "url": null, "messages": messages})));
        }
        threads.sort_by_key(|t| std::cmp::Reverse(t.0));
        Ok(RecentThreads {
            addresses,
            threads: threads.into_iter().take(limit).map(|(_, t)| t).collect(),
            note: None,
        })
    }
}

/// Keeps only the headers follow-ups read.
#[cfg(feature = "email")]
fn keep_headers(item: &mut Value) {
    let kept: serde_json::Map<String, Value> = item
        .get("headers")
        .and_then(Value::as_object)
        .map(|h| {
            h.iter()
                .filter(|(k, _)| KEPT_HEADERS.contains(&k.to_lowercase().as_str()))
                .map(|(k, v)| (k.to_lowercase(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    item["headers"] = Value::Object(kept);
}
