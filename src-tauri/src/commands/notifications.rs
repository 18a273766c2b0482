//! The notifications feed from the window: list (with the unread count), mark read, mark all
//! read, delete one, clear all; the same service calls as `/api/notifications` (contract
//! section 6).

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::error::ApiError;
use sentient_engine::notifications::NotificationList;
use tauri::State;

/// Newest first, at most `limit` (50 unless given, 1 to 500), only unread ones when asked.
#[tauri::command]
#[specta::specta]
pub async fn list_notifications(
    engine: State<'_, Engine>,
    limit: Option<u32>,
    unread_only: Option<bool>,
) -> Result<NotificationList, ApiError> {
    engine
        .services()
        .notifications()
        .list_notifications(limit, unread_only.unwrap_or(false))
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn read_notification(engine: State<'_, Engine>, id: String) -> Result<OkReply, ApiError> {
    engine
        .services()
        .notifications()
        .read_notification(&id)
        .await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn read_all_notifications(engine: State<'_, Engine>) -> Result<OkReply, ApiError> {
    engine
        .services()
        .notifications()
        .read_all_notifications()
        .await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn delete_notification(
    engine: State<'_, Engine>,
    id: String,
) -> Result<OkReply, ApiError> {
    engine
        .services()
        .notifications()
        .delete_notification(&id)
        .await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn delete_all_notifications(engine: State<'_, Engine>) -> Result<OkReply, ApiError> {
    engine
        .services()
        .notifications()
        .delete_all_notifications()
        .await?;
    Ok(OkReply::yes())
}
