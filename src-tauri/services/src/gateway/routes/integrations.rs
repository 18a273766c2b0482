//! Apps over HTTP (contract section 5): `/api/integrations` (the catalog, connect, disconnect,
//! test, Read only, privacy filters), `/api/integrations/mcp` (outside tool servers) and
//! `/api/integrations/feeds` (change feeds, section 16).

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::{JsonBody, PlainBody};
use sentient_core::domain::integration::Integration;
use sentient_integrations::feeds::{FeedStatus, FeedSyncReply};
use sentient_integrations::mcp::{
    McpServerInfo, McpSignIn, McpTestResult, McpValues, NewMcpServer,
};
use sentient_integrations::{
    AccessRequest, ConnectAnswer, ConnectRequest, FilterLists, IntegrationTest, MailServers,
};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(feeds))
        .routes(routes!(sync_feed))
        .routes(routes!(discover_email))
        .routes(routes!(mcp_list, mcp_add))
        .routes(routes!(mcp_delete))
        .routes(routes!(mcp_access))
        .routes(routes!(mcp_test))
        .routes(routes!(mcp_enabled))
        .routes(routes!(mcp_values))
        .routes(routes!(mcp_sign_in))
        .routes(routes!(mcp_sign_out))
        .routes(routes!(get))
        .routes(routes!(connect))
        .routes(routes!(disconnect))
        .routes(routes!(cancel))
        .routes(routes!(test))
        .routes(routes!(access))
        .routes(routes!(filters, set_filters))
}

/// Every app: the catalog, the webhooks and each tool server.
#[utoipa::path(get, path = "/api/integrations", tag = "integrations",
    responses((status = 200, body = Vec<Integration>)))]
pub async fn list(State(services): State<Services>) -> Json<Vec<Integration>> {
    Json(services.integrations().list().await)
}

/// One app.
#[utoipa::path(get, path = "/api/integrations/{id}", tag = "integrations",
    responses((status = 200, body = Integration), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Integration>, ApiError> {
    Ok(Json(services.integrations().get(&id).await?))
}

/// Connects an app: keys and manual setups answer the Integration; sign-ins answer where to go.
#[utoipa::path(post, path = "/api/integrations/{id}/connect", tag = "integrations",
    request_body = ConnectRequest,
    responses((status = 200, body = ConnectAnswer), (status = 400, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn connect(
    State(services): State<Services>,
    Path(id): Path<String>,
    PlainBody(body): PlainBody<ConnectRequest>,
) -> Result<Json<ConnectAnswer>, ApiError> {
    Ok(Json(services.integrations().connect(&id, body).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DiscoverQuery {
    /// The email address whose servers are wanted.
    address: Option<String>,
}

/// The mail servers of an address: the providers Sentient knows, the domain's autoconfig
/// document, then its SRV and MX records. 400 when the address isn't one or nothing was found.
#[utoipa::path(get, path = "/api/integrations/email/discover", tag = "integrations",
    params(DiscoverQuery),
    responses((status = 200, body = MailServers), (status = 400, body = crate::error::ErrorBody)))]
pub async fn discover_email(
    State(services): State<Services>,
    Query(query): Query<DiscoverQuery>,
) -> Result<Json<MailServers>, ApiError> {
    let address = query.address.unwrap_or_default();
    Ok(Json(
        services.integrations().discover_email(&address).await?,
    ))
}

/// A connect the person gave up on: a waiting sign-in is dropped and the app goes back to how
/// it was (connected, or Not connected), never to Error.
#[utoipa::path(post, path = "/api/integrations/{id}/cancel", tag = "integrations",
    responses((status = 200, body = Integration), (status = 404, body = crate::error::ErrorBody)))]
pub async fn cancel(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Integration>, ApiError> {
    Ok(Json(services.integrations().cancel_connect(&id).await?))
}

/// Disconnects an app: its tokens are deleted and the tasks that use it turned off.
#[utoipa::path(post, path = "/api/integrations/{id}/disconnect", tag = "integrations",
    responses((status = 200, body = Integration), (status = 404, body = crate::error::ErrorBody)))]
pub async fn disconnect(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Integration>, ApiError> {
    Ok(Json(services.integrations().disconnect(&id).await?))
}

/// Checks a connection with one cheap request.
#[utoipa::path(post, path = "/api/integrations/{id}/test", tag = "integrations",
    responses((status = 200, body = IntegrationTest), (status = 404, body = crate::error::ErrorBody)))]
pub async fn test(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<IntegrationTest>, ApiError> {
    Ok(Json(services.integrations().test(&id).await?))
}

/// Read only (`read`) or Read and write (`read_write`).
#[utoipa::path(put, path = "/api/integrations/{id}/access", tag = "integrations",
    request_body = AccessRequest,
    responses((status = 200, body = Integration), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn access(
    State(services): State<Services>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<AccessRequest>,
) -> Result<Json<Integration>, ApiError> {
    Ok(Json(
        services
            .integrations()
            .set_access(&id, &body.access)
            .await?,
    ))
}

/// The app's privacy filters.
#[utoipa::path(get, path = "/api/integrations/{id}/privacy-filters", tag = "integrations",
    responses((status = 200, body = FilterLists), (status = 400, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn filters(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<FilterLists>, ApiError> {
    Ok(Json(services.integrations().privacy_filters(&id).await?))
}

/// Replaces the app's privacy filters.
#[utoipa::path(put, path = "/api/integrations/{id}/privacy-filters", tag = "integrations",
    request_body = FilterLists,
    responses((status = 200, body = OkReply), (status = 400, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_filters(
    State(services): State<Services>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<FilterLists>,
) -> Result<Json<OkReply>, ApiError> {
    services
        .integrations()
        .set_privacy_filters(&id, body)
        .await?;
    Ok(Json(OkReply::yes()))
}

/// Every change feed and where it stands.
#[utoipa::path(get, path = "/api/integrations/feeds", tag = "integrations",
    responses((status = 200, body = Vec<FeedStatus>)))]
pub async fn feeds(State(services): State<Services>) -> Json<Vec<FeedStatus>> {
    Json(services.integrations().feed_status().await)
}

/// Syncs one feed now.
#[utoipa::path(post, path = "/api/integrations/feeds/{source}/sync", tag = "integrations",
    responses((status = 200, body = FeedSyncReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn sync_feed(
    State(services): State<Services>,
    Path(source): Path<String>,
) -> Result<Json<FeedSyncReply>, ApiError> {
    Ok(Json(services.integrations().sync_feed(&source).await?))
}

/// Every tool server.
#[utoipa::path(get, path = "/api/integrations/mcp", tag = "integrations",
    responses((status = 200, body = Vec<McpServerInfo>)))]
pub async fn mcp_list(State(services): State<Services>) -> Json<Vec<McpServerInfo>> {
    Json(services.integrations().mcp().list())
}

/// Adds (or replaces) a tool server; waits up to 15 s for its first connection.
#[utoipa::path(post, path = "/api/integrations/mcp", tag = "integrations",
    request_body = NewMcpServer,
    responses((status = 200, body = McpServerInfo), (status = 400, body = crate::error::ErrorBody)))]
pub async fn mcp_add(
    State(services): State<Services>,
    PlainBody(body): PlainBody<NewMcpServer>,
) -> Result<Json<McpServerInfo>, ApiError> {
    Ok(Json(services.integrations().mcp().add(body).await?))
}

/// Removes a tool server with its values, sign-in and Read only setting.
#[utoipa::path(delete, path = "/api/integrations/mcp/{name}", tag = "integrations",
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn mcp_delete(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.integrations().mcp().remove(&name).await?;
    Ok(Json(OkReply::yes()))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct EnabledRequest {
    #[schema(value_type = bool)]
    pub enabled: Value,
}

/// Read only on or off; the server keeps running.
#[utoipa::path(post, path = "/api/integrations/mcp/{name}/access", tag = "integrations",
    request_body = AccessRequest,
    responses((status = 200, body = McpServerInfo), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn mcp_access(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<AccessRequest>,
) -> Result<Json<McpServerInfo>, ApiError> {
    Ok(Json(
        services
            .integrations()
            .mcp()
            .set_access(&name, &body.access)
            .await?,
    ))
}

/// Connects again now and lists the server's tools.
#[utoipa::path(post, path = "/api/integrations/mcp/{name}/test", tag = "integrations",
    responses((status = 200, body = McpTestResult), (status = 404, body = crate::error::ErrorBody)))]
pub async fn mcp_test(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<McpTestResult>, ApiError> {
    Ok(Json(services.integrations().mcp().test(&name).await?))
}

/// Turns a server on or off.
#[utoipa::path(post, path = "/api/integrations/mcp/{name}/enabled", tag = "integrations",
    request_body = EnabledRequest,
    responses((status = 200, body = McpServerInfo), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn mcp_enabled(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<EnabledRequest>,
) -> Result<Json<McpServerInfo>, ApiError> {
    Ok(Json(
        services
            .integrations()
            .mcp()
            .set_enabled(&name, &body.enabled)
            .await?,
    ))
}

/// Fills in the server's env or header values (kept in the keychain), then reconnects.
#[utoipa::path(post, path = "/api/integrations/mcp/{name}/values", tag = "integrations",
    request_body = McpValues,
    responses((status = 200, body = McpServerInfo), (status = 400, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn mcp_values(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<McpValues>,
) -> Result<Json<McpServerInfo>, ApiError> {
    Ok(Json(
        services
            .integrations()
            .mcp()
            .set_values(&name, body)
            .await?,
    ))
}

/// Starts a browser sign-in with the server.
#[utoipa::path(post, path = "/api/integrations/mcp/{name}/sign-in", tag = "integrations",
    responses((status = 200, body = McpSignIn), (status = 400, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn mcp_sign_in(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<McpSignIn>, ApiError> {
    Ok(Json(services.integrations().mcp().sign_in(&name).await?))
}

/// Deletes the stored sign-in.
#[utoipa::path(post, path = "/api/integrations/mcp/{name}/sign-out", tag = "integrations",
    responses((status = 200, body = McpServerInfo), (status = 404, body = crate::error::ErrorBody)))]
pub async fn mcp_sign_out(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<McpServerInfo>, ApiError> {
    Ok(Json(services.integrations().mcp().sign_out(&name).await?))
}
