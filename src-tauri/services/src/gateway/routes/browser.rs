//! The browser over HTTP (contract section 12): its status, opening a profile visibly for the
//! person to sign in, closing it, a picture of the page, and the profiles.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::browser::{
    BrowserStatus, NewProfile, OpenRequest, PersonInput, ProfileChange, ProfileList,
};
use crate::error::{ApiError, ErrorBody};
use crate::gateway::body::JsonBody;
use crate::{OkReply, Services};

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(open))
        .routes(routes!(close))
        .routes(routes!(screenshot))
        .routes(routes!(input))
        .routes(routes!(profiles, add_profile))
        .routes(routes!(change_profile, delete_profile))
}

/// Whether the assistant can use a browser, and what is open.
#[utoipa::path(get, path = "/api/browser/status", tag = "browser",
    responses((status = 200, body = BrowserStatus)))]
pub async fn status(State(services): State<Services>) -> Json<BrowserStatus> {
    Json(services.browser().status().await)
}

/// Opens the profile as a visible window for the person (to sign in); 409 when the browser is
/// off or missing, the profile is unknown, the address is blocked or it can't start.
#[utoipa::path(post, path = "/api/browser/open", tag = "browser", request_body = OpenRequest,
    responses((status = 200, body = BrowserStatus), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn open(
    State(services): State<Services>,
    JsonBody(body): JsonBody<OpenRequest>,
) -> Result<Json<BrowserStatus>, ApiError> {
    services
        .browser()
        .open_for_person(body.url.as_deref(), body.profile.as_deref())
        .await
        .map(Json)
        .map_err(ApiError::conflict)
}

/// Closes the browser (an attached one is only disconnected).
#[utoipa::path(post, path = "/api/browser/close", tag = "browser",
    responses((status = 200, body = BrowserStatus)))]
pub async fn close(State(services): State<Services>) -> Json<BrowserStatus> {
    services.browser().close().await;
    Json(services.browser().status().await)
}

/// A JPEG of the active tab; 409 when the browser isn't running.
#[utoipa::path(get, path = "/api/browser/screenshot", tag = "browser",
    responses((status = 200, content_type = "image/jpeg", body = Vec<u8>), (status = 409, body = ErrorBody)))]
pub async fn screenshot(State(services): State<Services>) -> Result<Response, ApiError> {
    let jpeg = services
        .browser()
        .screenshot_jpeg()
        .await
        .map_err(ApiError::conflict)?;
    Ok(([(header::CONTENT_TYPE, "image/jpeg")], jpeg).into_response())
}

/// What the person did in the window's live view of a page waiting for them (a tap, text, a
/// key), sent to the page; the text is never logged. 400 for bad input; 409 when nothing waits.
#[utoipa::path(post, path = "/api/browser/input", tag = "browser", request_body = PersonInput,
    responses((status = 200, body = OkReply), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn input(
    State(services): State<Services>,
    JsonBody(body): JsonBody<PersonInput>,
) -> Result<Json<OkReply>, ApiError> {
    person_input(&services, body).await
}

/// Checks the person's input and sends it to the page waiting for them.
pub(crate) async fn person_input(
    services: &Services,
    body: PersonInput,
) -> Result<Json<OkReply>, ApiError> {
    let input = body.check().map_err(ApiError::bad_request)?;
    services
        .browser()
        .person_input(input)
        .await
        .map_err(ApiError::conflict)?;
    Ok(Json(OkReply::yes()))
}

/// The browser profiles and which one is open.
#[utoipa::path(get, path = "/api/browser/profiles", tag = "browser",
    responses((status = 200, body = ProfileList)))]
pub async fn profiles(State(services): State<Services>) -> Json<ProfileList> {
    Json(services.browser().profiles().await)
}

/// Adds a profile ("X growth" becomes `x-growth`; an attach profile needs its address on this
/// computer); 409 for a bad or taken name or an address elsewhere.
#[utoipa::path(post, path = "/api/browser/profiles", tag = "browser", request_body = NewProfile,
    responses((status = 200, body = ProfileList), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn add_profile(
    State(services): State<Services>,
    JsonBody(body): JsonBody<NewProfile>,
) -> Result<Json<ProfileList>, ApiError> {
    services
        .browser()
        .add_profile(body)
        .await
        .map(Json)
        .map_err(ApiError::conflict)
}

/// Changes a profile: a rename moves its folder and the tasks that use it; changing the open
/// profile's name, browser or address closes it first. 409 for an unknown profile, a bad or
/// taken name, renaming `default`, an address elsewhere or a folder in use.
#[utoipa::path(patch, path = "/api/browser/profiles/{name}", tag = "browser", request_body = ProfileChange,
    params(("name" = String, Path, description = "The profile's name")),
    responses((status = 200, body = ProfileList), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn change_profile(
    State(services): State<Services>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<ProfileChange>,
) -> Result<Json<ProfileList>, ApiError> {
    services
        .browser()
        .change_profile(&name, body)
        .await
        .map(Json)
        .map_err(ApiError::conflict)
}

/// Deletes a profile (closed first if open; a launch profile's sign-ins go with its folder).
/// Tasks that still name it get an error from the browser tools until another is picked.
#[utoipa::path(delete, path = "/api/browser/profiles/{name}", tag = "browser",
    params(("name" = String, Path, description = "The profile's name")),
    responses((status = 200, body = ProfileList), (status = 409, body = ErrorBody)))]
pub async fn delete_profile(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<ProfileList>, ApiError> {
    let (list, using) = services
        .browser()
        .delete_profile(&name)
        .await
        .map_err(ApiError::conflict)?;
    if !using.is_empty() {
        tracing::info!(profile = %name, tasks = ?using, "a deleted browser profile is still named by tasks");
    }
    Ok(Json(list))
}
