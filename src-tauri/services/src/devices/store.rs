//! Paired devices in SQLite (migration `0012_nodes.sql`): who they are, the hash of their
//! token, their last known battery, and the tokens of removed devices.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use super::model::Node;
use crate::store::{Store, StoreError};

/// The SHA-256 of a device token, as stored.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

use sentient_core::store::stamp;

fn parse_time(text: Option<String>) -> Option<DateTime<Utc>> {
    text.as_deref().and_then(sentient_core::store::parse_stamp)
}

fn from_row(row: &SqliteRow) -> Node {
    let capabilities: String = row.get("capabilities");
    Node {
        node_id: row.get("node_id"),
        name: row.get("name"),
        kind: row.get("kind"),
        platform: row.get("platform"),
        app_version: row.get("app_version"),
        capabilities: serde_json::from_str(&capabilities).unwrap_or_default(),
        online: false,
        connection: None,
        last_seen_at: parse_time(row.get("last_seen_at")),
        battery: row
            .get::<Option<i64>, _>("battery")
            .and_then(|b| u8::try_from(b).ok()),
        charging: row.get::<Option<i64>, _>("charging").map(|v| v != 0),
        worn: row.get::<Option<i64>, _>("worn").map(|v| v != 0),
        created_at: parse_time(row.get("created_at")).unwrap_or_default(),
    }
}

macro_rules! select {
    ($rest:literal) => {
        concat!(
            "SELECT node_id, name, kind, platform, app_version, capabilities, battery, charging, \
             worn, created_at, last_seen_at FROM nodes ",
            $rest
        )
    };
}

/// What a token says about a device.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenCheck {
    Paired(Node),
    Revoked,
    Unknown,
}

#[derive(Debug, Clone)]
pub struct NodeStore {
    store: Store,
}

impl NodeStore {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    pub async fn list(&self) -> Result<Vec<Node>, StoreError> {
        let rows = sqlx::query(select!("ORDER BY created_at"))
            .fetch_all(self.store.pool())
            .await?;
        Ok(rows.iter().map(from_row).collect())
    }

    pub async fn get(&self, node_id: &str) -> Result<Option<Node>, StoreError> {
        let row = sqlx::query(select!("WHERE node_id = ?"))
            .bind(node_id)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.as_ref().map(from_row))
    }

    pub async fn check_token(&self, token: &str) -> Result<TokenCheck, StoreError> {
        let hash = token_hash(token);
        let row = sqlx::query(select!("WHERE token_sha256 = ?"))
            .bind(&hash)
            .fetch_optional(self.store.pool())
            .await?;
        if let Some(row) = row {
            return Ok(TokenCheck::Paired(from_row(&row)));
        }
        let revoked: Option<(String,)> =
            sqlx::query_as("SELECT token_sha256 FROM node_revoked_tokens WHERE token_sha256 = ?")
                .bind(&hash)
                .fetch_optional(self.store.pool())
                .await?;
        Ok(if revoked.is_some() {
            TokenCheck::Revoked
        } else {
            TokenCheck::Unknown
        })
    }

    /// Saves a node (new or known) with its token's hash, if it has a token.
    pub async fn insert(&self, node: &Node, token: Option<&str>) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO nodes (node_id, name, kind, platform, app_version, capabilities, \
             token_sha256, battery, charging, worn, created_at, last_seen_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (node_id) DO NOTHING",
        )
        .bind(&node.node_id)
        .bind(&node.name)
        .bind(&node.kind)
        .bind(&node.platform)
        .bind(&node.app_version)
        .bind(serde_json::to_string(&node.capabilities).unwrap_or_else(|_| "[]".to_owned()))
        .bind(token.map(token_hash))
        .bind(node.battery.map(i64::from))
        .bind(node.charging.map(i64::from))
        .bind(node.worn.map(i64::from))
        .bind(stamp(node.created_at))
        .bind(node.last_seen_at.map(stamp))
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Writes what a device said about itself and when it was last seen (never its name,
    /// which only the person changes).
    pub async fn update(&self, node: &Node) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE nodes SET platform = ?, app_version = ?, capabilities = ?, \
             battery = ?, charging = ?, worn = ?, last_seen_at = ? WHERE node_id = ?",
        )
        .bind(&node.platform)
        .bind(&node.app_version)
        .bind(serde_json::to_string(&node.capabilities).unwrap_or_else(|_| "[]".to_owned()))
        .bind(node.battery.map(i64::from))
        .bind(node.charging.map(i64::from))
        .bind(node.worn.map(i64::from))
        .bind(node.last_seen_at.map(stamp))
        .bind(&node.node_id)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Deletes a device and remembers its token as revoked, in one transaction.
    pub async fn revoke(&self, node_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.store.begin_write().await?;
        let hash: Option<(Option<String>,)> =
            sqlx::query_as("SELECT token_sha256 FROM nodes WHERE node_id = ?")
                .bind(node_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((hash,)) = hash else {
            return Ok(false);
        };
        if let Some(hash) = hash {
            sqlx::query(
                "INSERT OR IGNORE INTO node_revoked_tokens (token_sha256, revoked_at) VALUES (?, ?)",
            )
            .bind(hash)
            .bind(stamp(now))
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("DELETE FROM nodes WHERE node_id = ?")
            .bind(node_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    pub async fn rename(&self, node_id: &str, name: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE nodes SET name = ? WHERE node_id = ?")
            .bind(name)
            .bind(node_id)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }
}
