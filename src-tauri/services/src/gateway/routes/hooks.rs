//! Webhooks over HTTP (contract section 16): `/api/hooks` behind the token, and the open door
//! `POST /hooks/{id}` that outside systems call with the hook's secret instead of the token.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::hooks::{CallAccepted, CreatedHook, Hook, HookError, IncomingCall, NewHook};

/// The header a caller puts the hook's secret in.
pub const SECRET_HEADER: &str = "x-sentient-secret";

/// `POST /hooks/{id}`: no token, the hook's secret instead.
pub fn open() -> OpenApiRouter<Services> {
    OpenApiRouter::new().routes(routes!(call))
}

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(delete))
}

/// `http://<host:port>` the request came in on when that is a loopback address, else the
/// engine's own address.
fn base_url(services: &Services, headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|host| {
            let name = host.rsplit_once(':').map_or(*host, |(name, _)| name);
            let port_ok = host
                .rsplit_once(':')
                .is_some_and(|(_, port)| port.parse::<u16>().is_ok());
            port_ok && matches!(name, "127.0.0.1" | "localhost" | "[::1]")
        });
    host.map_or_else(|| services.url(), |host| format!("http://{host}"))
}

/// Every webhook, with the address to call it on.
#[utoipa::path(get, path = "/api/hooks", tag = "hooks",
    responses((status = 200, body = Vec<Hook>)))]
pub async fn list(
    State(services): State<Services>,
    headers: HeaderMap,
) -> Result<Json<Vec<Hook>>, ApiError> {
    let base = base_url(&services, &headers);
    Ok(Json(services.hooks().list(&base).await?))
}

/// Makes a webhook; its secret is in this answer only (Sentient keeps just its SHA-256).
#[utoipa::path(post, path = "/api/hooks", tag = "hooks", request_body = NewHook,
    responses((status = 200, body = CreatedHook), (status = 400, body = crate::error::ErrorBody)))]
pub async fn create(
    State(services): State<Services>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<NewHook>,
) -> Result<Json<CreatedHook>, ApiError> {
    let base = base_url(&services, &headers);
    Ok(Json(services.hooks().create_hook(&body.name, &base).await?))
}

/// Deletes a webhook; calls to it answer 404 from now on.
#[utoipa::path(delete, path = "/api/hooks/{id}", tag = "hooks",
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete(
    State(services): State<Services>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    let base = base_url(&services, &headers);
    services.hooks().delete_hook(&id, &base).await?;
    Ok(Json(OkReply::yes()))
}

/// A refusal with its `Retry-After` (503 and 429).
pub struct Refusal(HookError);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let retry = self.0.retry_after();
        let mut response = ApiError::from(self.0).into_response();
        if let Some(seconds) = retry {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// Calls a webhook from outside. Send the secret as `X-Sentient-Secret` (or `?secret=`); the
/// body may be JSON, a form (urlencoded or multipart), text or empty. Checks, in order: 404
/// unknown hook, 401 wrong or missing secret, 503 while Stop everything is on (Retry-After: 60),
/// 429 too many calls (Retry-After), 413 too large, 400 invalid JSON. Publishes `source.items`.
#[utoipa::path(post, path = "/hooks/{id}", tag = "hooks",
    params(("id" = String, Path, description = "The hook id"),
        ("secret" = Option<String>, Query, description = "The hook's secret, if not in X-Sentient-Secret"),
        ("X-Sentient-Secret" = Option<String>, Header, description = "The hook's secret")),
    request_body(content = String, description = "JSON, form, text or nothing"),
    responses((status = 200, body = CallAccepted), (status = 400, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 413, body = crate::error::ErrorBody), (status = 429, body = crate::error::ErrorBody),
        (status = 503, body = crate::error::ErrorBody)),
    security(()))]
pub async fn call(
    State(services): State<Services>,
    Path(id): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<CallAccepted>, Refusal> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    let call = IncomingCall {
        hook_id: id,
        header_secret: text(SECRET_HEADER),
        query,
        content_type: text(header::CONTENT_TYPE.as_str()),
        content_length: text(header::CONTENT_LENGTH.as_str()).and_then(|v| v.parse().ok()),
        body,
    };
    services
        .hooks()
        .receive_hook_call(call)
        .await
        .map(Json)
        .map_err(Refusal)
}
