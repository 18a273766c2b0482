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

use std::sync::Arc;

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

/// The routes of the plugged-in areas (tasks), with their own state; built afresh each time
/// they are asked for, since the OpenAPI document is rebuilt from them on request.
pub type AreaRoutes = Arc<dyn Fn() -> OpenApiRouter<Services> + Send + Sync>;

/// The routes that need nothing from a running engine, built on a thread of their own from the
/// first moment of start: making them (and their OpenAPI parts, which `utoipa-axum` builds with
/// them) takes several milliseconds, which then overlap opening the settings and the database.
pub struct RoutesUnderWay(std::thread::JoinHandle<OwnRoutes>);

/// The open routes and those behind the token, before the plugged-in areas join them.
pub struct OwnRoutes {
    open: OpenApiRouter<Services>,
    protected: OpenApiRouter<Services>,
}

impl OwnRoutes {
    fn build() -> Self {
        Self {
            open: OpenApiRouter::with_openapi(ApiDoc::openapi()).merge(routes::open()),
            protected: routes::protected().merge(ws::routes()),
        }
    }
}

impl RoutesUnderWay {
    pub fn start() -> Self {
        Self(std::thread::spawn(OwnRoutes::build))
    }

    /// The routes, once built (at once when they already are).
    pub fn join(self) -> OwnRoutes {
        // A panic there is a bug in a route's declaration: build them here so it shows.
        self.0.join().unwrap_or_else(|_| OwnRoutes::build())
    }
}

/// The API routes with their OpenAPI document (as `utoipa-axum` gives them, before
/// `openapi_truth` completes it): `own` plus the plugged-in areas' routes, the token checked
/// on every route but the open ones.
pub fn api(
    services: &Services,
    own: OwnRoutes,
    plugged: OpenApiRouter<Services>,
) -> (Router<Services>, utoipa::openapi::OpenApi) {
    let protected = own
        .protected
        .merge(plugged)
        .route_layer(axum::middleware::from_fn_with_state(
            services.clone(),
            auth::require_token,
        ));
    own.open.merge(protected).split_for_parts()
}

/// The OpenAPI document of every route, built from the routes themselves. Only
/// `GET /api/openapi.json` reads it, so it is built when asked for instead of being held
/// by an idle engine.
pub fn openapi_document(services: &Services, plugged: &AreaRoutes) -> utoipa::openapi::OpenApi {
    let (_, mut doc) = api(services, OwnRoutes::build(), plugged());
    openapi_truth::complete(&mut doc);
    doc
}

/// The whole app: the API, the OpenAPI document, the window's files, and the layers every
/// request goes through.
pub fn router(services: Services, own: RoutesUnderWay, plugged: AreaRoutes) -> Router {
    // The document built with the routes is dropped; `openapi_document` makes it on request.
    let (api, _) = api(&services, own.join(), plugged());
    let for_doc = services.clone();
    let api = api.route(
        routes::openapi::PATH,
        axum::routing::get(move || routes::openapi::serve(for_doc.clone(), plugged.clone()))
            .route_layer(axum::middleware::from_fn_with_state(
                services.clone(),
                auth::require_token,
            )),
    );
    with_layers(
        api.fallback(static_ui::fallback).with_state(services),
        origin::Names::Loopback,
    )
}

/// The layers every request goes through: the Host and Origin checks for the door's `names`,
/// JSON errors, the body limit, panics as 500s, a log span per request, and the mark that the
/// engine worked (`binary_pages::worked`).
pub fn with_layers(router: Router, names: origin::Names) -> Router {
    router
        .layer(axum::middleware::map_request(
            |request: axum::extract::Request| async {
                // The engine is working; its pages go back once it is quiet again.
                crate::binary_pages::worked();
                request
            },
        ))
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
