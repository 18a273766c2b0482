//! The tools catalog over HTTP (contract section 2): every app and its tools, for Settings.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Services;
use crate::tools::PluginInfo;

pub fn routes() -> OpenApiRouter<Services> {
    OpenApiRouter::new().routes(routes!(list_tools))
}

/// Every app with its tools and their risk. Tools behind a never rule are listed too, so
/// Settings can show and change the rule; the engine's internal tools are not.
#[utoipa::path(
    get, path = "/api/tools", tag = "tools",
    responses((status = 200, body = Vec<PluginInfo>))
)]
pub async fn list_tools(State(services): State<Services>) -> Json<Vec<PluginInfo>> {
    Json(services.tools().catalog())
}
