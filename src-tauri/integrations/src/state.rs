//! Where each app's connection stands (`integration_state`) and its privacy filters, kept in
//! memory for the listing and written through to the database.

use sentient_core::sync::RwLockExt;
use std::collections::HashMap;
use std::sync::RwLock;

use sqlx::Row;

use sentient_core::clock::SharedClock;
use sentient_core::store::{Store, StoreError, stamp};

use crate::privacy::FilterLists;

/// One app's connection as the Integration object shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppState {
    /// disconnected, connecting, connected or error
    pub status: String,
    pub error: Option<String>,
    pub account_label: Option<String>,
}

impl Default for AppState {
    fn default() -> Self {
        Self {
            status: "disconnected".to_owned(),
            error: None,
            account_label: None,
        }
    }
}

impl AppState {
    pub fn connected(account_label: Option<String>) -> Self {
        Self {
            status: "connected".to_owned(),
            error: None,
            account_label,
        }
    }

    pub fn connecting(account_label: Option<String>) -> Self {
        Self {
            status: "connecting".to_owned(),
            error: None,
            account_label,
        }
    }

    pub fn failed(error: String, account_label: Option<String>) -> Self {
        Self {
            status: "error".to_owned(),
            error: Some(error),
            account_label,
        }
    }
}

#[derive(Debug)]
pub struct StateStore {
    store: Store,
    clock: SharedClock,
    states: RwLock<HashMap<String, AppState>>,
}

impl StateStore {
    /// Loads every saved state. A connection left `connecting` by a crash shows as
    /// disconnected: nothing is waiting for it any more.
    pub async fn load(store: Store, clock: SharedClock) -> Result<Self, StoreError> {
        let rows = sqlx::query("SELECT id, status, error, account_label FROM integration_state")
            .fetch_all(store.pool())
            .await?;
        let mut states = HashMap::new();
        for row in rows {
            let mut state = AppState {
                status: row.get("status"),
                error: row.get("error"),
                account_label: row.get("account_label"),
            };
            if state.status == "connecting" {
                state = AppState::default();
            }
            states.insert(row.get::<String, _>("id"), state);
        }
        Ok(Self {
            store,
            clock,
            states: RwLock::new(states),
        })
    }

    pub fn get(&self, id: &str) -> AppState {
        self.states
            .read_unpoisoned()
            .get(id)
            .cloned()
            .unwrap_or_default()
    }

    pub fn all(&self) -> Vec<(String, AppState)> {
        self.states
            .read_unpoisoned()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    pub async fn put(&self, id: &str, state: &AppState) -> Result<(), StoreError> {
        self.states
            .write_unpoisoned()
            .insert(id.to_owned(), state.clone());
        sqlx::query(
            "INSERT INTO integration_state (id, status, error, account_label, updated_at) \
             VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             error = excluded.error, account_label = excluded.account_label, \
             updated_at = excluded.updated_at",
        )
        .bind(id)
        .bind(&state.status)
        .bind(&state.error)
        .bind(&state.account_label)
        .bind(stamp(self.clock.now()))
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    pub async fn filters(&self, id: &str) -> Result<FilterLists, StoreError> {
        let row = sqlx::query("SELECT keywords, emails, labels FROM privacy_filters WHERE id = ?")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?;
        let Some(row) = row else {
            return Ok(FilterLists::default());
        };
        let list = |key: &str| -> Vec<String> {
            serde_json::from_str(&row.get::<String, _>(key)).unwrap_or_default()
        };
        Ok(FilterLists {
            keywords: list("keywords"),
            emails: list("emails"),
            labels: list("labels"),
        })
    }

    pub async fn put_filters(&self, id: &str, filters: &FilterLists) -> Result<(), StoreError> {
        let text = |list: &Vec<String>| serde_json::to_string(list).unwrap_or_else(|_| "[]".into());
        sqlx::query(
            "INSERT INTO privacy_filters (id, keywords, emails, labels) VALUES (?, ?, ?, ?) \
             ON CONFLICT (id) DO UPDATE SET keywords = excluded.keywords, \
             emails = excluded.emails, labels = excluded.labels",
        )
        .bind(id)
        .bind(text(&filters.keywords))
        .bind(text(&filters.emails))
        .bind(text(&filters.labels))
        .execute(self.store.pool())
        .await?;
        Ok(())
    }
}
