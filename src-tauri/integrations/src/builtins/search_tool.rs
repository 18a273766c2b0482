//! Web search with a key: while Brave Search or Google Programmable Search is connected,
//! `internet_search` asks it (Brave first), and falls back to the keyless DuckDuckGo page with a
//! log line when it fails. Same tool name and result shape as the web app's own search, which
//! this replaces in the registry.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use sentient_agent::tools::web::{InternetSearch, SearchArgs};
use sentient_agent::tools::{Plugin, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args};

use super::keyed::credentials;
use super::provider::{ProviderError, fetch};
use super::search::{MAX_RESULTS, SearchResult, brave, google_cse};
use super::timeout;
use crate::builtins::Builtins;

/// The web app with this search in place of its keyless one.
pub fn web_plugin(builtins: Arc<Builtins>) -> Plugin {
    let mut web = sentient_agent::tools::web::plugin();
    web.tools.retain(|t| t.def().name != "internet_search");
    web.tools.push(Arc::new(KeyedSearch {
        def: InternetSearch::new().def().clone(),
        builtins,
    }));
    web
}

struct KeyedSearch {
    def: ToolDef,
    builtins: Arc<Builtins>,
}

impl Tool for KeyedSearch {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: SearchArgs = parse_args(args)?;
            let query = args.query.trim();
            for provider in ["brave_search", "google_cse"] {
                if query.is_empty() {
                    break;
                }
                match keyed(&self.builtins, provider, query).await {
                    Some(Ok(results)) => {
                        return ToolOutput::json(json!({"query": query, "results": results}));
                    }
                    Some(Err(error)) => {
                        tracing::info!(%error, provider, "keyed web search failed; trying the next");
                    }
                    None => {}
                }
            }
            let mut keyless = ctx.clone();
            keyless.web.search_url = self.builtins.apps.endpoints().duckduckgo_html.clone();
            let results = sentient_agent::tools::web::search(&keyless, query).await?;
            ToolOutput::json(json!({"query": query, "results": results}))
        })
    }
}

/// `None` while `provider` isn't connected.
async fn keyed(
    builtins: &Builtins,
    provider: &str,
    query: &str,
) -> Option<Result<Vec<SearchResult>, ProviderError>> {
    let credentials = credentials(&builtins.apps, provider).await?;
    let endpoints = &builtins.apps.endpoints();
    let http = crate::ctx::http_client();
    Some(
        async {
            let count = MAX_RESULTS as u8;
            if provider == "brave_search" {
                let url = brave::search_url(&endpoints.brave_search, query, count)?;
                let request = http
                    .get(url)
                    .header("X-Subscription-Token", &credentials.key);
                let answer = fetch(request, timeout(&builtins.apps), "Brave Search").await?;
                brave::results_from(&answer.body)
            } else {
                let engine = credentials.engine.as_deref().unwrap_or_default();
                let url = google_cse::search_url(
                    &endpoints.google_cse,
                    &credentials.key,
                    engine,
                    query,
                    count,
                )?;
                let answer = fetch(http.get(url), timeout(&builtins.apps), "Google search").await?;
                google_cse::results_from(&answer.body)
            }
        }
        .await,
    )
}
