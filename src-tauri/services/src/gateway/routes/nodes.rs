//! Devices over HTTP (contract section 13): `/api/nodes` behind the token; the device socket
//! `/ws/node`, device uploads and the web device app `/node/` open, each checking the device
//! itself. The LAN listener (`gateway::lan`) mounts the open ones and nothing else.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{
    ConnectInfo, FromRequest, Multipart, Path, Query, Request, State, WebSocketUpgrade,
};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::OkReply;
use crate::Services;
use crate::devices::model::{
    InvokeReply, InvokeRequest, LanStatus, Node, Pairing, RenameNode, UploadReply,
};
use crate::devices::uploads::MAX_UPLOAD_BYTES;
use crate::devices::{Door, Peer};
use crate::error::ApiError;
use crate::gateway::auth::token_matches;
use crate::gateway::body::{JsonBody, PlainBody};
use crate::gateway::node_socket as socket;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(get_node, rename, delete))
        .routes(routes!(invoke))
        .routes(routes!(pairing))
        .routes(routes!(lan))
}

/// Open on the gateway: each checks the device (or the gateway token) itself.
pub fn open() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(node_socket))
        .merge(
            OpenApiRouter::new()
                .routes(routes!(upload))
                .layer(upload_limit()),
        )
        .routes(routes!(browser_frame))
        .routes(routes!(browser_input))
        .route(
            "/node",
            axum::routing::get(|| async { Redirect::permanent("/node/") }),
        )
        .route("/node/", axum::routing::get(web_index))
        .route("/node/app.js", axum::routing::get(web_script))
        .route("/node/style.css", axum::routing::get(web_style))
}

/// Uploads may be 20 MB (plus a multipart envelope); everything else keeps the gateway's limit.
pub fn upload_limit() -> axum::extract::DefaultBodyLimit {
    axum::extract::DefaultBodyLimit::max(MAX_UPLOAD_BYTES + 64 * 1024)
}

/// Every paired device (and the desktop app), online first.
#[utoipa::path(get, path = "/api/nodes", tag = "devices",
    responses((status = 200, body = Vec<Node>)))]
pub async fn list(State(services): State<Services>) -> Result<Json<Vec<Node>>, ApiError> {
    Ok(Json(services.devices().list().await?))
}

#[utoipa::path(get, path = "/api/nodes/{id}", tag = "devices",
    responses((status = 200, body = Node), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_node(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<Node>, ApiError> {
    Ok(Json(services.devices().get(&id).await?))
}

/// Renames a device (`node.updated`).
#[utoipa::path(patch, path = "/api/nodes/{id}", tag = "devices", request_body = RenameNode,
    responses((status = 200, body = Node), (status = 404, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody)))]
pub async fn rename(
    State(services): State<Services>,
    Path(id): Path<String>,
    PlainBody(body): PlainBody<RenameNode>,
) -> Result<Json<Node>, ApiError> {
    Ok(Json(
        services
            .devices()
            .rename(&id, &body.name)
            .await
            .map_err(|e| ApiError::from(e).as_bad_request())?,
    ))
}

/// Removes a device: its token is revoked and it is disconnected (`node.deleted`). 400 for
/// the desktop app.
#[utoipa::path(delete, path = "/api/nodes/{id}", tag = "devices",
    responses((status = 200, body = OkReply), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete(
    State(services): State<Services>,
    Path(id): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.devices().remove(&id).await?;
    Ok(Json(OkReply::yes()))
}

/// Asks a device to do something. A device that can't answers `ok: false` with `code`:
/// offline, unsupported, timeout, not_allowed, bad_upload or the device's own code.
#[utoipa::path(post, path = "/api/nodes/{id}/invoke", tag = "devices", request_body = InvokeRequest,
    responses((status = 200, body = InvokeReply), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn invoke(
    State(services): State<Services>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<InvokeRequest>,
) -> Result<Json<InvokeReply>, ApiError> {
    Ok(Json(services.devices().invoke_request(&id, body).await?))
}

/// A single-use pairing code for 10 minutes, with the links and QR code that carry it.
#[utoipa::path(post, path = "/api/nodes/pairing", tag = "devices",
    responses((status = 200, body = Pairing)))]
pub async fn pairing(State(services): State<Services>) -> Result<Json<Pairing>, ApiError> {
    Ok(Json(services.create_pairing()?))
}

/// The LAN listener: on or off, its addresses and its certificate's fingerprint.
#[utoipa::path(get, path = "/api/nodes/lan", tag = "devices",
    responses((status = 200, body = LanStatus)))]
pub async fn lan(State(services): State<Services>) -> Json<LanStatus> {
    Json(services.lan_status())
}

#[derive(Debug, Deserialize)]
pub struct SocketQuery {
    token: Option<String>,
}

/// Where a request came from; loopback when the server was not told (tests with `oneshot`).
fn peer_address(request_extensions: &axum::http::Extensions) -> IpAddr {
    request_extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |info| info.0.ip())
}

/// The door a request came through: the LAN router marks its requests.
fn door(request_extensions: &axum::http::Extensions) -> Door {
    request_extensions
        .get::<Door>()
        .copied()
        .unwrap_or(Door::Local)
}

/// The device socket. On the gateway, `?token=<gateway token>` connects the desktop app
/// itself; devices send their token or a pairing code in `hello`.
#[utoipa::path(get, path = "/ws/node", tag = "devices",
    params(("token" = Option<String>, Query, description = "The gateway token: connects the desktop app (gateway only)")),
    responses((status = 101, description = "Switching to the device protocol")),
    security(()))]
pub async fn node_socket(
    State(services): State<Services>,
    Query(query): Query<SocketQuery>,
    extensions: axum::http::Extensions,
    upgrade: WebSocketUpgrade,
) -> Response {
    let door = door(&extensions);
    // The gateway token means nothing on the LAN listener.
    let desktop = door == Door::Local
        && query
            .token
            .as_deref()
            .is_some_and(|t| token_matches(services.token(), t));
    let peer = Peer {
        address: peer_address(&extensions),
        door,
        desktop,
    };
    upgrade
        .max_message_size(socket::MAX_MESSAGE_BYTES)
        .max_frame_size(socket::MAX_MESSAGE_BYTES)
        .on_upgrade(move |ws| socket::serve(services, ws, peer))
}

/// The device token from `Authorization: Bearer`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// The paired device whose token is in `Authorization: Bearer`.
async fn device_of(services: &Services, headers: &HeaderMap) -> Result<Node, ApiError> {
    let Some(token) = bearer(headers) else {
        return Err(ApiError::unauthorized(
            "Send the device's token as Authorization: Bearer <token>.",
        ));
    };
    services.devices().verify_token(token).await.ok_or_else(|| {
        ApiError::unauthorized("That device token is not valid. Pair the device again.")
    })
}

/// A paired device's live view of a browser page waiting for the person (a sign-in, a code,
/// a CAPTCHA): a JPEG of the page. 409 when nothing waits (the view closes).
#[utoipa::path(get, path = "/api/nodes/browser/frame", tag = "devices",
    params(("Authorization" = String, Header, description = "Bearer <device token>")),
    responses((status = 200, content_type = "image/jpeg", body = Vec<u8>), (status = 401, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody)),
    security(()))]
pub async fn browser_frame(
    State(services): State<Services>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    device_of(&services, &headers).await?;
    let jpeg = services
        .browser()
        .live_frame()
        .await
        .map_err(ApiError::conflict)?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/jpeg"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        jpeg,
    )
        .into_response())
}

/// A tap, text or key from a paired device's live view, sent to the page waiting for the
/// person (never logged). 400 bad input, 401 bad token, 409 when nothing waits.
#[utoipa::path(post, path = "/api/nodes/browser/input", tag = "devices",
    params(("Authorization" = String, Header, description = "Bearer <device token>")),
    request_body = crate::browser::PersonInput,
    responses((status = 200, body = OkReply), (status = 400, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)),
    security(()))]
pub async fn browser_input(
    State(services): State<Services>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::browser::PersonInput>,
) -> Result<Json<OkReply>, ApiError> {
    device_of(&services, &headers).await?;
    super::browser::person_input(&services, body).await
}

/// A photo or other large payload from a paired device, used once in a `result` within the
/// hour. Raw body (with its Content-Type) or multipart field `file`; at most 20 MB.
#[utoipa::path(post, path = "/api/nodes/upload", tag = "devices",
    params(("Authorization" = String, Header, description = "Bearer <device token>")),
    request_body(content = Vec<u8>, description = "The bytes, or multipart field file"),
    responses((status = 200, body = UploadReply), (status = 400, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody)),
    security(()))]
pub async fn upload(
    State(services): State<Services>,
    request: Request,
) -> Result<Json<UploadReply>, ApiError> {
    let Some(token) = bearer(request.headers()).map(str::to_owned) else {
        return Err(ApiError::unauthorized(
            "Send the device's token as Authorization: Bearer <token>.",
        ));
    };
    let Some(node) = services.devices().verify_token(&token).await else {
        return Err(ApiError::unauthorized(
            "That device token is not valid. Pair the device again.",
        ));
    };
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let too_large = || {
        ApiError::new(
            413,
            "The upload is larger than 20 MB. Send a smaller photo.",
        )
    };
    let (mime, bytes) = if content_type.starts_with("multipart/form-data") {
        let mut form = Multipart::from_request(request, &services)
            .await
            .map_err(|e| ApiError::bad_request(format!("The form could not be read: {e}")))?;
        let mut found = None;
        while let Some(field) = form.next_field().await.map_err(|_| too_large())? {
            if field.name() == Some("file") {
                let mime = field
                    .content_type()
                    .unwrap_or("application/octet-stream")
                    .to_owned();
                let bytes = field.bytes().await.map_err(|_| too_large())?;
                found = Some((mime, bytes));
                break;
            }
        }
        found.ok_or_else(|| ApiError::bad_request("Put the file in the form field named file."))?
    } else {
        let bytes = Bytes::from_request(request, &services)
            .await
            .map_err(|_| too_large())?;
        (content_type, bytes)
    };
    if bytes.is_empty() {
        return Err(ApiError::bad_request(
            "The upload is empty. Send the photo's bytes.",
        ));
    }
    if bytes.len() > MAX_UPLOAD_BYTES {
        return Err(too_large());
    }
    let upload_id = services
        .devices()
        .upload(&node.node_id, &mime, &bytes)
        .await
        .map_err(|e| ApiError::internal(&e))?;
    Ok(Json(UploadReply {
        upload_id,
        mime,
        size: bytes.len() as u64,
    }))
}

const WEB_INDEX: &str = include_str!("../../devices/web/index.html");
const WEB_SCRIPT: &str = include_str!("../../devices/web/app.js");
const WEB_STYLE: &str = include_str!("../../devices/web/style.css");

/// The web device app: pair with the code in the fragment, then stay connected.
pub async fn web_index() -> Response {
    web_file("text/html; charset=utf-8", WEB_INDEX)
}

pub async fn web_script() -> Response {
    web_file("text/javascript; charset=utf-8", WEB_SCRIPT)
}

pub async fn web_style() -> Response {
    web_file("text/css; charset=utf-8", WEB_STYLE)
}

fn web_file(mime: &'static str, body: &'static str) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, "no-cache"),
            // The app talks only to the engine that served it.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; media-src 'self' blob:",
            ),
        ],
        body,
    )
        .into_response()
}
