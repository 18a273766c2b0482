//! The local HTTP door (axum on 127.0.0.1): authentication, errors, the live socket, the
//! routes (thin translations to service calls), the OpenAPI document and the built window.
//! A door never touches SQL or another door.

pub mod auth;
pub use sentient_core::body;
pub mod errors;
pub mod lan;
pub mod lan_listener;
pub mod lan_runtime;
pub mod mdns;
pub mod node_socket;
pub mod openapi_truth;
pub mod origin;
pub mod routes;
pub mod static_ui;
pub mod tls;
pub mod ws;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::Services;

/// Largest request body any route accepts unless it says otherwise.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Sentient",
        description = "The contract between Sentient's window, devices, scripts and its services. \
Every /api route except GET /api/health needs `Authorization: Bearer <token>`; sockets take `?token=`. \
Errors are an HTTP status plus {\"detail\": \"...\"}."
    ),
    components(schemas(crate::error::ErrorBody, crate::error::FieldError)),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// Every route with its OpenAPI description. Routes behind the token are in `protected`, with
/// `plugged`: the routes of the plugged-in areas (tasks), which bring their own state.
pub fn api(
    services: &Services,
    plugged: OpenApiRouter<Services>,
) -> (Router<Services>, utoipa::openapi::OpenApi) {
    let open = OpenApiRouter::with_openapi(ApiDoc::openapi()).merge(routes::open());
    let protected = routes::protected()
        .merge(ws::routes())
        .merge(plugged)
        .route_layer(axum::middleware::from_fn_with_state(
            services.clone(),
            auth::require_token,
        ));
    let (router, mut doc) = open.merge(protected).split_for_parts();
    openapi_truth::complete(&mut doc);
    (router, doc)
}

/// The whole app: the API, the OpenAPI document, the window's files, and the layers every
/// request goes through.
pub fn router(services: Services, plugged: OpenApiRouter<Services>) -> Router {
    let (api, openapi) = api(&services, plugged);
    let openapi = std::sync::Arc::new(openapi);
    let api = api.route(
        routes::openapi::PATH,
        axum::routing::get(move || routes::openapi::serve(openapi.clone())).route_layer(
            axum::middleware::from_fn_with_state(services.clone(), auth::require_token),
        ),
    );
    with_layers(
        api.fallback(static_ui::fallback).with_state(services),
        origin::Names::Loopback,
    )
}

/// The layers every request goes through: the Host and Origin checks for the door's `names`,
/// JSON errors, the body limit, panics as 500s and a log span per request.
pub fn with_layers(router: Router, names: origin::Names) -> Router {
    router
        .layer(axum::middleware::from_fn(move |request, next| {
            origin::check(names, request, next)
        }))
        .layer(axum::middleware::map_response(errors::json_errors))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(errors::panic_response))
        .layer(
            TraceLayer::new_for_http()
                // The path only: queries can carry a socket token, which must never be logged.
                .make_span_with(|req: &axum::http::Request<_>| {
                    tracing::info_span!("http", method = %req.method(), path = %req.uri().path())
                })
                .on_response(
                    DefaultOnResponse::new()
                        .level(Level::INFO)
                        .latency_unit(tower_http::LatencyUnit::Millis),
                ),
        )
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use tower::ServiceExt;

    use super::*;

    #[tokio::test]
    async fn a_panicking_handler_answers_500_json_and_the_server_lives_on() {
        #[allow(clippy::panic)]
        async fn boom() -> &'static str {
            panic!("handler bug")
        }
        let app = with_layers(
            Router::new()
                .route("/boom", axum::routing::get(boom))
                .route("/fine", axum::routing::get(|| async { "fine" })),
            origin::Names::Loopback,
        );
        let response = app
            .clone()
            .oneshot(Request::get("/boom").body(Body::empty()).expect("request"))
            .await
            .expect("answered");
        assert_eq!(response.status(), 500);
        let body = to_bytes(response.into_body(), 1 << 16).await.expect("body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(json["detail"], crate::error::INTERNAL_DETAIL);
        assert!(
            !json["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("handler bug")
        );
        let fine = app
            .oneshot(Request::get("/fine").body(Body::empty()).expect("request"))
            .await
            .expect("answered");
        assert_eq!(fine.status(), 200);
    }
}
