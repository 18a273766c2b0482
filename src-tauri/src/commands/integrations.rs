//! Apps from the window: the catalog, connect, disconnect, test, Read only, privacy filters,
//! tool servers (MCP) and change feeds; the same service calls as `/api/integrations`
//! (contract section 5).

use std::collections::BTreeMap;

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::error::ApiError;
use sentient_engine::integrations::IntegrationInfo as Integration;
use sentient_engine::integrations::feeds::{FeedStatus, FeedSyncReply};
use sentient_engine::integrations::mcp::{
    McpServerInfo, McpSignIn, McpTestResult, McpValues, NewMcpServer,
};
use sentient_engine::integrations::{
    ConnectAnswer, ConnectRequest, FilterLists, IntegrationTest, MailServers,
};
use serde_json::Value;
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_integrations(engine: State<'_, Engine>) -> Result<Vec<Integration>, ApiError> {
    Ok(engine.services().integrations().list().await)
}

#[tauri::command]
#[specta::specta]
pub async fn connect_integration(
    engine: State<'_, Engine>,
    id: String,
    fields: BTreeMap<String, String>,
    access: Option<String>,
) -> Result<ConnectAnswer, ApiError> {
    let request = ConnectRequest {
        fields: fields
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect(),
        access,
    };
    Ok(engine
        .services()
        .integrations()
        .connect(&id, request)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn disconnect_integration(
    engine: State<'_, Engine>,
    id: String,
) -> Result<Integration, ApiError> {
    Ok(engine.services().integrations().disconnect(&id).await?)
}

/// A connect given up on: the app goes back to how it was, never to Error.
#[tauri::command]
#[specta::specta]
pub async fn cancel_connect(
    engine: State<'_, Engine>,
    id: String,
) -> Result<Integration, ApiError> {
    Ok(engine.services().integrations().cancel_connect(&id).await?)
}

/// The mail servers of an address, for connecting Email (IMAP) with two fields.
#[tauri::command]
#[specta::specta]
pub async fn discover_email(
    engine: State<'_, Engine>,
    address: String,
) -> Result<MailServers, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .discover_email(&address)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn test_integration(
    engine: State<'_, Engine>,
    id: String,
) -> Result<IntegrationTest, ApiError> {
    Ok(engine.services().integrations().test(&id).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn set_integration_access(
    engine: State<'_, Engine>,
    id: String,
    access: String,
) -> Result<Integration, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .set_access(&id, &Value::String(access))
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn privacy_filters(
    engine: State<'_, Engine>,
    id: String,
) -> Result<FilterLists, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .privacy_filters(&id)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn set_privacy_filters(
    engine: State<'_, Engine>,
    id: String,
    filters: FilterLists,
) -> Result<OkReply, ApiError> {
    engine
        .services()
        .integrations()
        .set_privacy_filters(&id, filters)
        .await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn list_feeds(engine: State<'_, Engine>) -> Result<Vec<FeedStatus>, ApiError> {
    Ok(engine.services().integrations().feed_status().await)
}

#[tauri::command]
#[specta::specta]
pub async fn sync_feed(
    engine: State<'_, Engine>,
    source: String,
) -> Result<FeedSyncReply, ApiError> {
    Ok(engine.services().integrations().sync_feed(&source).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn list_mcp_servers(engine: State<'_, Engine>) -> Result<Vec<McpServerInfo>, ApiError> {
    Ok(engine.services().integrations().mcp().list())
}

#[tauri::command]
#[specta::specta]
pub async fn add_mcp_server(
    engine: State<'_, Engine>,
    server: NewMcpServer,
) -> Result<McpServerInfo, ApiError> {
    Ok(engine.services().integrations().mcp().add(server).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn remove_mcp_server(
    engine: State<'_, Engine>,
    name: String,
) -> Result<OkReply, ApiError> {
    engine.services().integrations().mcp().remove(&name).await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn set_mcp_access(
    engine: State<'_, Engine>,
    name: String,
    access: String,
) -> Result<McpServerInfo, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .mcp()
        .set_access(&name, &Value::String(access))
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn set_mcp_enabled(
    engine: State<'_, Engine>,
    name: String,
    enabled: bool,
) -> Result<McpServerInfo, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .mcp()
        .set_enabled(&name, &Value::Bool(enabled))
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn set_mcp_values(
    engine: State<'_, Engine>,
    name: String,
    values: BTreeMap<String, String>,
    enable: Option<bool>,
) -> Result<McpServerInfo, ApiError> {
    let request = McpValues {
        values,
        enable: enable.map(Value::Bool),
    };
    Ok(engine
        .services()
        .integrations()
        .mcp()
        .set_values(&name, request)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn test_mcp_server(
    engine: State<'_, Engine>,
    name: String,
) -> Result<McpTestResult, ApiError> {
    Ok(engine.services().integrations().mcp().test(&name).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn sign_in_mcp_server(
    engine: State<'_, Engine>,
    name: String,
) -> Result<McpSignIn, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .mcp()
        .sign_in(&name)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn sign_out_mcp_server(
    engine: State<'_, Engine>,
    name: String,
) -> Result<McpServerInfo, ApiError> {
    Ok(engine
        .services()
        .integrations()
        .mcp()
        .sign_out(&name)
        .await?)
}
