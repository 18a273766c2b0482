//! Device uploads (`POST /api/nodes/upload`, protocol §4.4): a photo too large for a message
//! is posted first and named by its `upload_id` in the result. Each upload is kept on disk
//! under `<home>/tmp/node-uploads/`, used once by the device that sent it, and gone after an hour.

use sentient_core::sync::MutexExt;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

/// The largest upload.
pub const MAX_UPLOAD_BYTES: usize = 20 * 1024 * 1024;
/// How long an upload waits to be used.
pub const UPLOAD_TTL: Duration = Duration::hours(1);

#[derive(Debug, Clone)]
struct Upload {
    node_id: String,
    mime: String,
    path: PathBuf,
    created_at: DateTime<Utc>,
}

/// A used upload: its type and bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct TakenUpload {
    pub mime: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug)]
pub struct Uploads {
    dir: PathBuf,
    live: Mutex<HashMap<String, Upload>>,
}

impl Uploads {
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            live: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps `bytes` for `node_id` and returns the new upload's id.
    pub async fn put(
        &self,
        node_id: &str,
        mime: &str,
        bytes: &[u8],
        now: DateTime<Utc>,
    ) -> std::io::Result<String> {
        self.expire(now).await;
        let id = hex::encode(rand::random::<[u8; 12]>());
        tokio::fs::create_dir_all(&self.dir).await?;
        let path = self.dir.join(&id);
        tokio::fs::write(&path, bytes).await?;
        self.live.lock_unpoisoned().insert(
            id.clone(),
            Upload {
                node_id: node_id.to_owned(),
                mime: mime.to_owned(),
                path,
                created_at: now,
            },
        );
        Ok(id)
    }

    /// Takes the upload `id` if `node_id` sent it and it has not expired; it is gone after.
    pub async fn take(&self, id: &str, node_id: &str, now: DateTime<Utc>) -> Option<TakenUpload> {
        self.expire(now).await;
        let upload = {
            let mut live = self.live.lock_unpoisoned();
            match live.get(id) {
                Some(u) if u.node_id == node_id => live.remove(id),
                _ => None,
            }
        }?;
        let bytes = tokio::fs::read(&upload.path).await.ok();
        let _ = tokio::fs::remove_file(&upload.path).await;
        bytes.map(|bytes| TakenUpload {
            mime: upload.mime,
            bytes,
        })
    }

    async fn expire(&self, now: DateTime<Utc>) {
        let gone: Vec<Upload> = {
            let mut live = self.live.lock_unpoisoned();
            let ids: Vec<String> = live
                .iter()
                .filter(|(_, u)| now - u.created_at >= UPLOAD_TTL)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| live.remove(id)).collect()
        };
        for upload in gone {
            let _ = tokio::fs::remove_file(&upload.path).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_upload_is_used_once_by_its_own_device_within_the_hour() {
        let dir = tempfile::tempdir().expect("dir");
        let uploads = Uploads::new(dir.path().join("up"));
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default();
        let id = uploads
            .put("phone", "image/jpeg", b"jpeg", now)
            .await
            .expect("put");
        assert!(uploads.take(&id, "glasses", now).await.is_none());
        let taken = uploads.take(&id, "phone", now).await.expect("taken");
        assert_eq!(taken.bytes, b"jpeg");
        assert_eq!(taken.mime, "image/jpeg");
        assert!(uploads.take(&id, "phone", now).await.is_none());

        let old = uploads
            .put("phone", "image/jpeg", b"old", now)
            .await
            .expect("put");
        assert!(
            uploads
                .take(&old, "phone", now + UPLOAD_TTL)
                .await
                .is_none()
        );
        assert!(!dir.path().join("up").join(&old).exists());
    }
}
