//! Webhooks (contract section 16): the hooks a person makes (`/api/hooks`), the open door
//! `POST /hooks/{id}` that outside systems call, and the shared "already seen" record later
//! change feeds and polls use. An accepted call is stored (group commit, synced) before it is
//! answered and is published exactly once as `source.items`. Secrets are shown once, only their
//! SHA-256 is kept, and they are never logged.

pub mod body;
pub mod bucket;
mod writer;

use sentient_core::sync::{MutexExt, RwLockExt};
use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use axum::body::{Body, Bytes};
use chrono::{DateTime, SubsecRound, Utc};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::Row;
use subtle::ConstantTimeEq;

use crate::bus::DomainEvent;
use crate::clock::SharedClock;
use crate::error::ApiError;
use crate::store::{Store, StoreError};
pub use sentient_core::domain::integration::Hook;

/// How long a key stays in the "already seen" record.
pub use sentient_core::seen::SEEN_DAYS;
/// How long a caller waits after a call refused while Stop everything is on.
pub const STOPPED_RETRY_SECONDS: u64 = 60;
/// The longest hook name, in characters.
pub const MAX_NAME_CHARS: usize = 80;

/// `POST /api/hooks`: the new hook and its secret, which is shown this once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreatedHook {
    pub id: String,
    pub name: String,
    pub url: String,
    pub created_at: DateTime<Utc>,
    pub last_called_at: Option<DateTime<Utc>>,
    pub calls: u64,
    /// Send it as `X-Sentient-Secret` (or `?secret=`). Only its SHA-256 is kept.
    pub secret: String,
}

/// `POST /api/hooks` body.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct NewHook {
    /// 1-80 characters.
    #[serde(default)]
    pub name: String,
}

/// `POST /hooks/{id}` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CallAccepted {
    pub ok: bool,
    /// The id of the item published on `source.items`.
    pub item_id: String,
}

/// A call as the door received it.
#[derive(Debug)]
pub struct IncomingCall {
    pub hook_id: String,
    /// `X-Sentient-Secret`, preferred over the query's `secret`.
    pub header_secret: Option<String>,
    /// The query string's pairs, `secret` included (it is removed before anything is kept).
    pub query: Vec<(String, String)>,
    pub content_type: Option<String>,
    pub content_length: Option<u64>,
    pub body: Body,
}

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("There is no webhook with the id {0}.")]
    NotFound(String),
    #[error("Give the webhook a name of 1 to 80 characters.")]
    BadName,
    #[error("The webhook secret is missing or wrong. Send it in the X-Sentient-Secret header.")]
    Unauthorized,
    #[error(
        "Sentient is stopped (Stop everything is on), so webhooks are refused for now. Send the call again after Resume."
    )]
    Stopped,
    #[error(
        "This webhook was called too often. Wait {0} seconds, or raise integrations.webhook_rate_limit_per_minute."
    )]
    TooMany(u64),
    #[error(
        "The body is larger than this webhook accepts ({0} KB). Send less, or raise integrations.webhook_max_body_kb."
    )]
    TooLarge(u32),
    #[error("The body could not be read. Send it again.")]
    Unreadable,
    #[error("The body says it is JSON (Content-Type) but it is not valid JSON.")]
    InvalidJson,
    #[error("The form in the body could not be read.")]
    InvalidForm,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("webhook call not stored: {0}")]
    Write(String),
}

impl From<sqlx::Error> for HookError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Sql(e))
    }
}

impl HookError {
    /// The `Retry-After` seconds a refusal carries, if any.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::Stopped => Some(STOPPED_RETRY_SECONDS),
            Self::TooMany(seconds) => Some(*seconds),
            _ => None,
        }
    }
}

impl From<HookError> for ApiError {
    fn from(err: HookError) -> Self {
        let status = match &err {
            HookError::NotFound(_) => 404,
            HookError::BadName
            | HookError::Unreadable
            | HookError::InvalidJson
            | HookError::InvalidForm => 400,
            HookError::Unauthorized => 401,
            HookError::Stopped => 503,
            HookError::TooMany(_) => 429,
            HookError::TooLarge(_) => 413,
            HookError::Store(e) => return ApiError::internal(e),
            HookError::Write(e) => return ApiError::internal(e),
        };
        ApiError::new(status, err.to_string())
    }
}

#[derive(Debug, Clone)]
struct Known {
    name: String,
    digest: [u8; 32],
}

/// The hooks, their buckets, the call writer and the seen record.
#[derive(Debug)]
pub struct Hooks {
    store: Store,
    clock: SharedClock,
    /// Every hook's name and secret digest, so a call needs no read from the database.
    known: RwLock<HashMap<String, Known>>,
    buckets: Mutex<HashMap<String, bucket::Bucket>>,
    writer: writer::Writer,
    seen: std::sync::Arc<sentient_core::seen::SeenItems>,
}

use sentient_core::store::change_one;
pub(crate) use sentient_core::store::stamp;

use sentient_core::store::parse_stamp;

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

use sentient_core::store::new_id;

impl Hooks {
    /// Loads every hook's digest and starts the call writer.
    pub async fn load(
        store: Store,
        clock: SharedClock,
        seen: std::sync::Arc<sentient_core::seen::SeenItems>,
    ) -> Result<Self, StoreError> {
        let rows = sqlx::query("SELECT id, name, secret_sha256 FROM hooks")
            .fetch_all(store.pool())
            .await?;
        let mut known = HashMap::new();
        for row in rows {
            let id: String = row.get("id");
            let name: String = row.get("name");
            let hexed: String = row.get("secret_sha256");
            let mut digest = [0u8; 32];
            if hex::decode_to_slice(&hexed, &mut digest).is_ok() {
                known.insert(id, Known { name, digest });
            }
        }
        Ok(Self {
            writer: writer::Writer::start(store.clone(), clock.clone()),
            store,
            clock,
            known: RwLock::new(known),
            buckets: Mutex::default(),
            seen,
        })
    }

    fn lookup(&self, id: &str) -> Option<Known> {
        self.known.read_unpoisoned().get(id).cloned()
    }

    /// Every hook, oldest first; `base` is `http://host:port` for the urls.
    pub async fn list(&self, base: &str) -> Result<Vec<Hook>, HookError> {
        let rows = sqlx::query(
            "SELECT id, name, created_at, last_called_at, calls FROM hooks ORDER BY created_at, rowid",
        )
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let id: String = row.get("id");
                let created: String = row.get("created_at");
                let last: Option<String> = row.get("last_called_at");
                let calls: i64 = row.get("calls");
                Hook {
                    url: format!("{base}/hooks/{id}"),
                    id,
                    name: row.get("name"),
                    created_at: parse_stamp(&created).unwrap_or_default(),
                    last_called_at: last.as_deref().and_then(parse_stamp),
                    calls: u64::try_from(calls).unwrap_or_default(),
                }
            })
            .collect())
    }

    /// Makes a hook with a fresh secret, which is returned this once.
    pub async fn create(&self, name: &str, base: &str) -> Result<CreatedHook, HookError> {
        let name = name.trim();
        let chars = name.chars().count();
        if chars == 0 || chars > MAX_NAME_CHARS {
            return Err(HookError::BadName);
        }
        let id = new_id();
        let secret = hex::encode(rand::random::<[u8; 32]>());
        let digest = digest(&secret);
        let created_at = self.clock.now().trunc_subsecs(6);
        sqlx::query(
            "INSERT INTO hooks (id, name, secret_sha256, created_at, calls) VALUES (?, ?, ?, ?, 0)",
        )
        .bind(&id)
        .bind(name)
        .bind(hex::encode(digest))
        .bind(stamp(created_at))
        .execute(self.store.pool())
        .await?;
        self.known.write_unpoisoned().insert(
            id.clone(),
            Known {
                name: name.to_owned(),
                digest,
            },
        );
        tracing::info!(hook = %id, "webhook created");
        Ok(CreatedHook {
            url: format!("{base}/hooks/{id}"),
            id,
            name: name.to_owned(),
            created_at,
            last_called_at: None,
            calls: 0,
            secret,
        })
    }

    /// Deletes a hook and the calls it kept.
    pub async fn delete(&self, id: &str) -> Result<(), HookError> {
        let mut tx = self.store.begin_write().await?;
        change_one(
            &mut *tx,
            sqlx::query("DELETE FROM hooks WHERE id = ?").bind(id),
            || HookError::NotFound(id.to_owned()),
        )
        .await?;
        sqlx::query("DELETE FROM hook_calls WHERE hook_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.known.write_unpoisoned().remove(id);
        self.buckets.lock_unpoisoned().remove(id);
        tracing::info!(hook = %id, "webhook deleted");
        Ok(())
    }

    /// Takes one call from the hook's bucket (`per_minute` 0: no limit).
    fn take(&self, id: &str, per_minute: u32) -> Result<(), HookError> {
        if per_minute == 0 {
            return Ok(());
        }
        let now = self.clock.now();
        let mut buckets = self.buckets.lock_unpoisoned();
        buckets
            .entry(id.to_owned())
            .or_insert_with(|| bucket::Bucket::full(per_minute, now))
            .take(per_minute, now)
            .map_err(HookError::TooMany)
    }

    /// Records `key` for `source` and says whether it was already recorded within 30 days.
    pub async fn seen_before(&self, source: &str, key: &str) -> Result<bool, HookError> {
        Ok(self.seen.seen_before(source, key).await?)
    }
}

/// Reads the body, refusing it as soon as it passes `limit` bytes.
async fn read_limited(body: Body, limit: usize, kb: u32) -> Result<Bytes, HookError> {
    let mut stream = body.into_data_stream();
    let mut buffer = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| HookError::Unreadable)?;
        if buffer.len() + chunk.len() > limit {
            return Err(HookError::TooLarge(kb));
        }
        buffer.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buffer))
}

/// Webhooks as a service: the hooks' store, and what a call or a change publishes.
#[derive(Clone)]
pub struct HookService {
    hooks: std::sync::Arc<Hooks>,
    bus: crate::bus::EventBus,
    stop: crate::stop::StopService,
    config: crate::config::ConfigService,
    clock: SharedClock,
}

impl std::fmt::Debug for HookService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookService").finish_non_exhaustive()
    }
}

impl HookService {
    pub fn new(
        hooks: Hooks,
        bus: crate::bus::EventBus,
        stop: crate::stop::StopService,
        config: crate::config::ConfigService,
        clock: SharedClock,
    ) -> Self {
        Self {
            hooks: std::sync::Arc::new(hooks),
            bus,
            stop,
            config,
            clock,
        }
    }

    /// The hooks' store.
    pub fn store(&self) -> &Hooks {
        &self.hooks
    }
    fn hooks(&self) -> &Hooks {
        &self.hooks
    }
    fn bus(&self) -> &crate::bus::EventBus {
        &self.bus
    }
    fn stop(&self) -> &crate::stop::StopService {
        &self.stop
    }
    fn config(&self) -> &crate::config::ConfigService {
        &self.config
    }
    fn clock(&self) -> &SharedClock {
        &self.clock
    }

    /// `GET /api/hooks`: every hook, its address under `base`.
    pub async fn list(&self, base: &str) -> Result<Vec<Hook>, HookError> {
        self.hooks.list(base).await
    }

    /// Creates a hook and tells windows the webhook integration's triggers changed.
    pub async fn create_hook(&self, name: &str, base: &str) -> Result<CreatedHook, HookError> {
        let created = self.hooks().create(name, base).await?;
        self.announce_webhook_integration(base).await;
        Ok(created)
    }

    /// Deletes a hook and tells windows the webhook integration's triggers changed.
    pub async fn delete_hook(&self, id: &str, base: &str) -> Result<(), HookError> {
        self.hooks().delete(id).await?;
        self.announce_webhook_integration(base).await;
        Ok(())
    }

    async fn announce_webhook_integration(&self, base: &str) {
        match self.hooks().list(base).await {
            Ok(hooks) => self.bus().publish(DomainEvent::IntegrationUpdated(Box::new(
                sentient_core::domain::integration::webhook_integration(&hooks),
            ))),
            Err(error) => tracing::warn!(%error, "could not list hooks to announce them"),
        }
    }

    /// `POST /hooks/{id}`: the checks in the contract's order (404, 401, 503, 429, 413, 400),
    /// then the call is stored, answered and published once.
    pub async fn receive_hook_call(&self, call: IncomingCall) -> Result<CallAccepted, HookError> {
        let hooks = self.hooks();
        let hook = hooks
            .lookup(&call.hook_id)
            .ok_or_else(|| HookError::NotFound(call.hook_id.clone()))?;
        let secret = call.header_secret.as_deref().or_else(|| {
            call.query
                .iter()
                .find(|(name, _)| name == "secret")
                .map(|(_, value)| value.as_str())
        });
        let matches = secret.is_some_and(|s| bool::from(digest(s).ct_eq(&hook.digest)));
        if !matches {
            tracing::debug!(hook = %call.hook_id, "webhook call refused: wrong or missing secret");
            return Err(HookError::Unauthorized);
        }
        if self.stop().is_stopped() {
            return Err(HookError::Stopped);
        }
        let (per_minute, kb) = {
            let config = self.config().current();
            (
                config.integrations.webhook_rate_limit_per_minute,
                config.integrations.webhook_max_body_kb,
            )
        };
        hooks.take(&call.hook_id, per_minute)?;
        let limit = usize::try_from(u64::from(kb) * 1024).unwrap_or(usize::MAX);
        if call
            .content_length
            .is_some_and(|length| length > u64::from(kb) * 1024)
        {
            return Err(HookError::TooLarge(kb));
        }
        let bytes = read_limited(call.body, limit, kb).await?;
        let content_type = call.content_type.clone();
        let body = body::parse(content_type.as_deref(), bytes)
            .await
            .map_err(|e| match e {
                body::BodyError::InvalidJson => HookError::InvalidJson,
                body::BodyError::InvalidForm => HookError::InvalidForm,
            })?;
        let item_id = new_id();
        let received_at = self.clock().now().trunc_subsecs(6);
        let item = serde_json::json!({
            "id": item_id,
            "name": hook.name,
            "body": body,
            "received_at": received_at,
            "content_type": content_type,
            "query": body::query_object(call.query),
        });
        hooks
            .writer
            .write(writer::CallRow {
                id: item_id.clone(),
                hook_id: call.hook_id.clone(),
                received_at,
                item: item.to_string(),
            })
            .await
            .map_err(HookError::Write)?;
        self.bus().publish(DomainEvent::SourceItems {
            source: "webhook".to_owned(),
            event: call.hook_id,
            origin: "webhook".to_owned(),
            items: vec![item],
        });
        Ok(CallAccepted { ok: true, item_id })
    }

    /// The shared "already seen" record: records `key` for `source` and returns true when it
    /// was already recorded within the last 30 days. A failing database reads as "not seen",
    /// logged, so an item is never lost.
    pub async fn seen_before(&self, source: &str, key: &str) -> bool {
        match self.hooks().seen_before(source, key).await {
            Ok(seen) => seen,
            Err(error) => {
                tracing::error!(%error, source, "the seen record could not be read");
                false
            }
        }
    }
}
