//! `GET /api/openapi.json`: the contract generated from the routes themselves.

use std::sync::Arc;

use axum::Json;
use axum::response::IntoResponse;

pub const PATH: &str = "/api/openapi.json";

pub async fn serve(doc: Arc<utoipa::openapi::OpenApi>) -> impl IntoResponse {
    let mut doc = (*doc).clone();
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
    Json(doc)
}
