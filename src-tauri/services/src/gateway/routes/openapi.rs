//! `GET /api/openapi.json`: the contract generated from the routes themselves.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::Services;
use crate::gateway::{AreaRoutes, openapi_document};

pub const PATH: &str = "/api/openapi.json";

/// Builds the document (several milliseconds of work, off the async workers) and answers it.
pub async fn serve(services: Services, plugged: AreaRoutes) -> Response {
    let built = tokio::task::spawn_blocking(move || {
        let json = serde_json::to_vec(&with_itself(openapi_document(&services, &plugged)));
        // The document is dropped: its megabytes go back rather than stay with an idle engine.
        crate::heap::return_free_pages();
        json
    });
    match built.await {
        Ok(Ok(json)) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Ok(Err(error)) => {
            tracing::error!(%error, "the OpenAPI document could not be written");
            failed()
        }
        Err(error) => {
            tracing::error!(%error, "the OpenAPI document could not be built");
            failed()
        }
    }
}

fn failed() -> Response {
    crate::error::ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR.as_u16(),
                "The API description could not be built. Try again; if it keeps failing, report it with the log.",
            )
    .into_response()
}

fn with_itself(mut doc: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    // The document lists itself too, so a client enumerating routes sees every one.
    let item = utoipa::openapi::path::PathItem::new(
        utoipa::openapi::HttpMethod::Get,
        utoipa::openapi::path::OperationBuilder::new()
            .summary(Some("This OpenAPI document"))
            .tag("core")
            .response(
                "200",
                utoipa::openapi::Response::new("The OpenAPI document"),
            ),
    );
    doc.paths.paths.insert(PATH.to_owned(), item);
    doc
}
