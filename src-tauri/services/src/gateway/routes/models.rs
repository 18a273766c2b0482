//! Models, usage and hardware over HTTP (contract sections 2 "Usage" and 3).

use std::collections::BTreeMap;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::error::ApiError;
use crate::gateway::body::JsonBody;
use crate::llm::catalog::{CatalogError, CatalogModel, KeyCheck};
use crate::llm::queue::ModelBusy;
use crate::llm::usage::UsageReport;
use crate::models::local::LocalAddress;
use crate::models::{
    EmbeddingTestRequest, EmbeddingTestResult, LocalModels, LocalServer, ProviderView, PullRequest,
    Roles, TestRequest, TestResult,
};
use crate::system::Hardware;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new()
        .routes(routes!(providers))
        .routes(routes!(local))
        .routes(routes!(local_address))
        .routes(routes!(test))
        .routes(routes!(connect_openrouter))
        .routes(routes!(openrouter_status))
        .routes(routes!(check_openrouter_key))
        .routes(routes!(check_key))
        .routes(routes!(catalog))
        .routes(routes!(test_embedding))
        .routes(routes!(busy))
        .routes(routes!(put_roles))
        .routes(routes!(put_fallbacks))
        .routes(routes!(pull))
        .routes(routes!(usage))
        .routes(routes!(hardware))
}

/// Every provider, with whether its key is set.
#[utoipa::path(get, path = "/api/models/providers", tag = "models", responses((status = 200, body = Vec<ProviderView>)))]
pub async fn providers(State(services): State<Services>) -> Json<Vec<ProviderView>> {
    Json(services.models().model_providers().await)
}

/// What Ollama and LM Studio have installed (never fails; `reachable: false` when not running).
#[utoipa::path(get, path = "/api/models/local", tag = "models", responses((status = 200, body = LocalModels)))]
pub async fn local(State(services): State<Services>) -> Json<LocalModels> {
    Json(services.models().local_models().await)
}

/// Saves Ollama's or LM Studio's address once something answers there as that server.
#[utoipa::path(put, path = "/api/models/local/address", tag = "models", request_body = LocalAddress,
    responses((status = 200, body = LocalServer), (status = 400, body = crate::error::ErrorBody),
              (status = 422, body = crate::error::ErrorBody)))]
pub async fn local_address(
    State(services): State<Services>,
    JsonBody(body): JsonBody<LocalAddress>,
) -> Result<Json<LocalServer>, ApiError> {
    Ok(Json(services.models().set_local_address(body).await?))
}

/// One short call to a model, reporting whether it can use tools.
#[utoipa::path(post, path = "/api/models/test", tag = "models", request_body = TestRequest,
    responses((status = 200, body = TestResult), (status = 422, body = crate::error::ErrorBody)))]
pub async fn test(
    State(services): State<Services>,
    JsonBody(body): JsonBody<TestRequest>,
) -> Result<Json<TestResult>, ApiError> {
    Ok(Json(services.models().test_model(body).await?))
}

/// Checks a provider's saved key with a request that spends nothing (anthropic, openrouter,
/// nous, chatgpt): `{ok: true, detail}` or `{ok: false, error}`.
#[utoipa::path(post, path = "/api/models/connect/{provider}/check", tag = "models",
    responses((status = 200, body = KeyCheck), (status = 404, body = crate::error::ErrorBody)))]
pub async fn check_key(
    State(services): State<Services>,
    Path(provider): Path<String>,
) -> Result<Json<KeyCheck>, ApiError> {
    services
        .models()
        .check_key(&provider)
        .await
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("Sentient can't check keys for {provider}.")))
}

/// Starts connecting OpenRouter by signing in: the page to open in the browser, and the
/// sign-in's `state`.
#[utoipa::path(post, path = "/api/models/connect/openrouter", tag = "models",
    responses((status = 200, body = crate::models::connect::ConnectStart), (status = 409, body = crate::error::ErrorBody)))]
pub async fn connect_openrouter(
    State(services): State<Services>,
) -> Result<Json<crate::models::connect::ConnectStart>, ApiError> {
    services
        .plan_sign_ins()
        .start_openrouter()
        .await
        .map(Json)
        .map_err(|e| ApiError::conflict(e.to_string()))
}

/// How far an OpenRouter sign-in got: waiting, exchanging, connected or failed.
#[utoipa::path(get, path = "/api/models/connect/openrouter/{state}", tag = "models",
    responses((status = 200, body = crate::models::connect::ConnectStatus), (status = 404, body = crate::error::ErrorBody)))]
pub async fn openrouter_status(
    State(services): State<Services>,
    Path(state): Path<String>,
) -> Result<Json<crate::models::connect::ConnectStatus>, ApiError> {
    services
        .plan_sign_ins()
        .status(&state)
        .map(Json)
        .ok_or_else(|| ApiError::not_found("There is no OpenRouter sign-in with that id."))
}

/// OpenRouter's key check, named on its own so it is not read as a sign-in's id.
#[utoipa::path(post, path = "/api/models/connect/openrouter/check", tag = "models",
    responses((status = 200, body = KeyCheck)))]
pub async fn check_openrouter_key(
    State(services): State<Services>,
) -> Result<Json<KeyCheck>, ApiError> {
    check_key(State(services), Path("openrouter".to_owned())).await
}

/// A provider's models (openrouter, nous, anthropic, chatgpt), kept for 10 minutes; 502 when
/// the list can't be read (no key, refused, unreachable).
#[utoipa::path(get, path = "/api/models/catalog/{provider}", tag = "models",
    responses((status = 200, body = Vec<CatalogModel>), (status = 404, body = crate::error::ErrorBody),
              (status = 502, body = crate::error::ErrorBody)))]
pub async fn catalog(
    State(services): State<Services>,
    Path(provider): Path<String>,
) -> Result<Json<Vec<CatalogModel>>, ApiError> {
    match services.models().catalog(&provider).await {
        Ok(list) => Ok(Json(list)),
        Err(error @ CatalogError::Unknown(_)) => Err(ApiError::not_found(error.to_string())),
        Err(error @ CatalogError::Unavailable(_)) => Err(ApiError::new(502, error.to_string())),
    }
}

/// One embedding call, reporting the vector size.
#[utoipa::path(post, path = "/api/models/test-embedding", tag = "models", request_body = EmbeddingTestRequest,
    responses((status = 200, body = EmbeddingTestResult), (status = 422, body = crate::error::ErrorBody)))]
pub async fn test_embedding(
    State(services): State<Services>,
    JsonBody(body): JsonBody<EmbeddingTestRequest>,
) -> Result<Json<EmbeddingTestResult>, ApiError> {
    Ok(Json(services.models().test_embedding(body).await?))
}

/// What the local model is doing now.
#[utoipa::path(get, path = "/api/models/busy", tag = "models", responses((status = 200, body = ModelBusy)))]
pub async fn busy(State(services): State<Services>) -> Json<ModelBusy> {
    Json(services.llm().queue().busy())
}

/// Sets the model of the roles named (null = use the main model).
#[utoipa::path(put, path = "/api/models/roles", tag = "models",
    request_body(content = Object, description = "{primary?, fast?, planner?, executor?, embedding?, vision?, voice?}"),
    responses((status = 200, body = Roles), (status = 422, body = crate::error::ErrorBody)))]
pub async fn put_roles(
    State(services): State<Services>,
    JsonBody(body): JsonBody<BTreeMap<String, Option<String>>>,
) -> Result<Json<Roles>, ApiError> {
    Ok(Json(services.models().set_roles(body).await?))
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Ok {
    ok: bool,
}

/// Replaces the fallback models of the roles named.
#[utoipa::path(put, path = "/api/models/fallbacks", tag = "models",
    request_body(content = Object, description = "{role: [model, ...]}"),
    responses((status = 200, body = Ok), (status = 422, body = crate::error::ErrorBody)))]
pub async fn put_fallbacks(
    State(services): State<Services>,
    JsonBody(body): JsonBody<BTreeMap<String, Vec<String>>>,
) -> Result<Json<Ok>, ApiError> {
    services.models().set_fallbacks(body).await?;
    Ok(Json(Ok { ok: true }))
}

/// Downloads a model into Ollama, streaming NDJSON progress `{status, completed?, total?}`.
#[utoipa::path(post, path = "/api/models/ollama/pull", tag = "models", request_body = PullRequest,
    responses((status = 200, description = "NDJSON progress lines", content_type = "application/x-ndjson"),
              (status = 422, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn pull(
    State(services): State<Services>,
    JsonBody(body): JsonBody<PullRequest>,
) -> Result<Response, ApiError> {
    let progress = services.models().pull_model(&body.name).await?;
    let lines = progress.map(|line| {
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        Ok::<_, std::convert::Infallible>(text)
    });
    Ok((
        [(CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UsageQuery {
    /// How many days back (1 to 365, default 30).
    days: Option<u32>,
}

/// Tokens used by model, by source and by day.
#[utoipa::path(get, path = "/api/usage", tag = "models", params(UsageQuery),
    responses((status = 200, body = UsageReport)))]
pub async fn usage(
    State(services): State<Services>,
    Query(q): Query<UsageQuery>,
) -> Result<Json<UsageReport>, ApiError> {
    let report = services
        .llm()
        .ledger()
        .report(q.days.unwrap_or(30))
        .await
        .map_err(|e| ApiError::internal(&e))?;
    Ok(Json(report))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct HardwareQuery {
    /// Check again instead of using what was found before.
    refresh: Option<bool>,
}

/// What this computer can run, and the local model recommended for it (detection never fails).
#[utoipa::path(get, path = "/api/system/hardware", tag = "models", params(HardwareQuery),
    responses((status = 200, body = Hardware)))]
pub async fn hardware(
    State(services): State<Services>,
    Query(q): Query<HardwareQuery>,
) -> Json<Hardware> {
    Json(services.hardware().get(q.refresh.unwrap_or(false)).await)
}
