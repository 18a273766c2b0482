//! `news_search` and `news_headlines`: Google News' public feeds without a key, NewsAPI while
//! it is connected (the feeds again, with a log line, when NewsAPI fails). Articles are written
//! by other people, so results count as outside content.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use sentient_agent::tools::{
    Plugin, ProgressKind, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use super::shapes::{Article, NewsResult, newest_first, nothing_found};
use super::{newsapi, rss};
use crate::builtins::Builtins;
use crate::builtins::cache::NEWS_FOR;
use crate::builtins::keyed::credentials;
use crate::builtins::provider::{ProviderError, cached, fetch};
use crate::builtins::timeout;

const FEEDS: &str = "The news service";
const NEWSAPI: &str = "NewsAPI";

pub fn plugin(builtins: Arc<Builtins>) -> Plugin {
    Plugin {
        id: "news".to_owned(),
        display_name: "News".to_owned(),
        description: "Search the news and read the day's headlines.".to_owned(),
        category: "built_in".to_owned(),
        icon: "news".to_owned(),
        auth: "none".to_owned(),
        selection_hint:
            "news headlines latest today happening elections sports business story article"
                .to_owned(),
        scoped: false,
        tools: vec![
            Arc::new(NewsTool::new(builtins.clone(), false)),
            Arc::new(NewsTool::new(builtins, true)),
        ],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchArgs {
    /// What the news should be about, in a few words.
    query: String,
    /// How many articles (1 to 20, default 5).
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct HeadlinesArgs {
    /// A topic such as technology, sports or a place; leave it out for the top stories.
    topic: Option<String>,
}

/// Articles the headlines give.
const HEADLINES: usize = 8;

struct NewsTool {
    def: ToolDef,
    builtins: Arc<Builtins>,
    headlines: bool,
}

impl NewsTool {
    fn new(builtins: Arc<Builtins>, headlines: bool) -> Self {
        let mut def = if headlines {
            ToolDef::new::<HeadlinesArgs>(
                "news_headlines",
                "Today's top headlines, or those about one topic: title, source, time and link, newest first.",
                Risk::Read,
            )
        } else {
            ToolDef::new::<SearchArgs>(
                "news_search",
                "Search recent news: title, source, time and link of each article, newest first.",
                Risk::Read,
            )
        };
        def.untrusted_output = true;
        Self {
            def,
            builtins,
            headlines,
        }
    }
}

impl Tool for NewsTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let (asked, limit) = if self.headlines {
                let args: HeadlinesArgs = parse_args(args)?;
                let topic = args
                    .topic
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty());
                (topic, HEADLINES)
            } else {
                let args: SearchArgs = parse_args(args)?;
                let query = args.query.trim().to_owned();
                if query.is_empty() {
                    return Err(ToolError::Failed(
                        "Give a few words to search the news for.".to_owned(),
                    ));
                }
                (Some(query), args.limit.unwrap_or(5))
            };
            ctx.progress(
                ProgressKind::Status,
                match &asked {
                    Some(words) => format!("Looking for news about {words}"),
                    None => "Reading the headlines".to_owned(),
                },
            );
            let articles = news(&self.builtins, asked.as_deref(), limit, self.headlines)
                .await
                .map_err(ToolError::from)?;
            if articles.is_empty() {
                return Err(ToolError::Failed(nothing_found(
                    asked.as_deref().unwrap_or("top stories"),
                )));
            }
            ToolOutput::json(&NewsResult {
                query: asked.unwrap_or_else(|| "top stories".to_owned()),
                articles,
            })
        })
    }
}

async fn news(
    builtins: &Builtins,
    asked: Option<&str>,
    limit: usize,
    headlines: bool,
) -> Result<Vec<Article>, ProviderError> {
    let endpoints = &builtins.apps.endpoints();
    if let Some(newsapi_key) = credentials(&builtins.apps, "newsapi").await {
        let attempt = async {
            let url = if headlines {
                newsapi::headlines_url(&endpoints.newsapi, asked, limit)?
            } else {
                newsapi::everything_url(&endpoints.newsapi, asked.unwrap_or_default(), limit)?
            };
            let request = crate::ctx::http_client()
                .get(url.clone())
                .header("X-Api-Key", &newsapi_key.key);
            let answer = cached(
                &builtins.cache,
                url.as_str(),
                &newsapi_key.key,
                NEWS_FOR,
                async { fetch(request, timeout(&builtins.apps), NEWSAPI).await },
            )
            .await?;
            newsapi::articles_from(&answer.body)
        };
        match attempt.await {
            Ok(articles) => return Ok(newest_first(articles, limit)),
            Err(error) => tracing::info!(%error, "NewsAPI failed; using the news feeds"),
        }
    }
    let url = if headlines {
        rss::headlines_url(&endpoints.news_rss, asked)?
    } else {
        rss::search_url(&endpoints.news_rss, asked.unwrap_or_default())?
    };
    let answer = cached(&builtins.cache, url.as_str(), "", NEWS_FOR, async {
        fetch(
            crate::ctx::http_client().get(url.clone()),
            timeout(&builtins.apps),
            FEEDS,
        )
        .await
    })
    .await?;
    if !answer.ok() {
        return Err(ProviderError::Answered(format!(
            "{FEEDS} couldn't answer right now ({}). Try again in a minute.",
            answer.status
        )));
    }
    let articles = rss::articles_from(answer.body.as_bytes(), url.as_str())?;
    Ok(newest_first(articles, limit))
}
