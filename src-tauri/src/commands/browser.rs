//! The browser from the window: its status, opening a profile for the person to sign in,
//! closing it, and the profiles; the same service calls as `/api/browser/*` (contract section 12).

use sentient_engine::Engine;
use sentient_engine::browser::{
    BrowserStatus, NewProfile, OpenRequest, PersonInput, ProfileChange, ProfileList,
};
use sentient_engine::error::ApiError;
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn browser_status(engine: State<'_, Engine>) -> Result<BrowserStatus, ApiError> {
    Ok(engine.services().browser().status().await)
}

#[tauri::command]
#[specta::specta]
pub async fn open_browser(
    engine: State<'_, Engine>,
    body: OpenRequest,
) -> Result<BrowserStatus, ApiError> {
    engine
        .services()
        .browser()
        .open_for_person(body.url.as_deref(), body.profile.as_deref())
        .await
        .map_err(ApiError::conflict)
}

/// What the person did in the window's live view of a page waiting for them.
#[tauri::command]
#[specta::specta]
pub async fn browser_input(
    engine: State<'_, Engine>,
    body: PersonInput,
) -> Result<sentient_engine::OkReply, ApiError> {
    let input = body.check().map_err(ApiError::bad_request)?;
    engine
        .services()
        .browser()
        .person_input(input)
        .await
        .map_err(ApiError::conflict)?;
    Ok(sentient_engine::OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn close_browser(engine: State<'_, Engine>) -> Result<BrowserStatus, ApiError> {
    engine.services().browser().close().await;
    Ok(engine.services().browser().status().await)
}

#[tauri::command]
#[specta::specta]
pub async fn browser_profiles(engine: State<'_, Engine>) -> Result<ProfileList, ApiError> {
    Ok(engine.services().browser().profiles().await)
}

#[tauri::command]
#[specta::specta]
pub async fn add_browser_profile(
    engine: State<'_, Engine>,
    body: NewProfile,
) -> Result<ProfileList, ApiError> {
    engine
        .services()
        .browser()
        .add_profile(body)
        .await
        .map_err(ApiError::conflict)
}

#[tauri::command]
#[specta::specta]
pub async fn change_browser_profile(
    engine: State<'_, Engine>,
    name: String,
    body: ProfileChange,
) -> Result<ProfileList, ApiError> {
    engine
        .services()
        .browser()
        .change_profile(&name, body)
        .await
        .map_err(ApiError::conflict)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_browser_profile(
    engine: State<'_, Engine>,
    name: String,
) -> Result<ProfileList, ApiError> {
    engine
        .services()
        .browser()
        .delete_profile(&name)
        .await
        .map(|(list, _)| list)
        .map_err(ApiError::conflict)
}
