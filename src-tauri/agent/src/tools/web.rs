//! The `web` app: `web_fetch` reads one page as plain text (Readability through `dom_smoothie`,
//! with a script-free body text as the fallback), and `internet_search` asks DuckDuckGo's
//! keyless HTML page and reads its results with `dom_query`. Both bring outside text, so their
//! results are marked untrusted.

use std::sync::Arc;

use futures::future::BoxFuture;
use reqwest::Url;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tool::{
    CallDescription, Plugin, ProgressKind, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput,
    blocking, parse_args,
};

/// Some sites refuse clients that don't look like a browser; the suffix says who we are.
pub const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Sentient";

/// What `internet_search` says when the search page can't be reached or read.
pub const SEARCH_UNREACHABLE: &str =
    "Web search isn't reachable right now. Check the internet connection and try again.";

/// Most results one search returns.
pub const MAX_RESULTS: usize = 10;

pub fn plugin() -> Plugin {
    Plugin {
        id: "web".to_owned(),
        display_name: "Web".to_owned(),
        description: "Search the web and read web pages.".to_owned(),
        category: "built_in".to_owned(),
        icon: "globe".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "web search internet google look up online page site url link news"
            .to_owned(),
        scoped: false,
        tools: vec![Arc::new(WebFetch::new()), Arc::new(InternetSearch::new())],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FetchArgs {
    /// The full web address to read, starting with http:// or https://.
    pub url: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to search for, in a few words.
    pub query: String,
}

/// A read page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// The address the page came from after redirects.
    pub url: String,
    pub title: String,
    pub content: String,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

/// Checks the address is a full http or https one.
pub fn web_address(text: &str) -> Result<Url, ToolError> {
    let text = text.trim();
    let url = Url::parse(text).map_err(|_| {
        ToolError::Failed(format!(
            "{text} isn't a full web address. Give one such as https://example.com/page."
        ))
    })?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(ToolError::Failed(format!(
            "Sentient only opens http and https addresses, not {other}: ones."
        ))),
    }
}

/// Collapses runs of blank lines and trailing spaces that HTML layout leaves behind.
fn tidy(text: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for line in text.lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&line);
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The readable title and text of an HTML page: the article Readability finds, else the body
/// without scripts, styles and other non-text parts.
pub fn readable_text(html: &str, url: &str) -> (String, String) {
    let config = dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Formatted,
        ..Default::default()
    };
    if let Ok(article) =
        dom_smoothie::Readability::new(html, Some(url), Some(config)).and_then(|mut r| r.parse())
    {
        let text = tidy(&article.text_content);
        if !text.is_empty() {
            return (article.title.trim().to_owned(), text);
        }
    }
    let doc = dom_query::Document::from(html);
    let title = doc.select("title").text().trim().to_owned();
    doc.select("script, style, noscript, template, svg, iframe, head")
        .remove();
    let body = doc.select("body");
    let text = if body.exists() {
        body.formatted_text()
    } else {
        doc.formatted_text()
    };
    (title, tidy(&text))
}

/// Cuts `text` to `max` characters, saying so at the end.
fn limit_chars(text: String, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text;
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}\n\n[Page text cut at {max} of {total} characters.]")
}

/// Reads at most `max` bytes of the body; says whether there was more.
async fn body_up_to(
    response: &mut reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = max.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

pub async fn fetch(ctx: &ToolCtx, address: &str) -> Result<Page, ToolError> {
    let url = web_address(address)?;
    ctx.progress(
        ProgressKind::Status,
        format!("Reading {}", url.host_str().unwrap_or("the page")),
    );
    let shown = url.to_string();
    let unreachable = |e: reqwest::Error| {
        tracing::info!(error = %e, url = %shown, "web_fetch failed");
        if e.is_timeout() {
            ToolError::Failed(format!("{shown} took too long to answer. Try again later."))
        } else {
            ToolError::Failed(format!(
                "Sentient couldn't load {shown}. The site may be down, or the address may be wrong."
            ))
        }
    };
    let mut response = ctx
        .http
        .get(url.clone())
        .timeout(ctx.web.timeout)
        .send()
        .await
        .map_err(&unreachable)?;
    let status = response.status();
    if !status.is_success() {
        return Err(ToolError::Failed(format!(
            "{shown} answered with an error ({status})."
        )));
    }
    let final_url = response.url().to_string();
    let kind = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let (bytes, more) = body_up_to(&mut response, ctx.web.fetch_max_bytes)
        .await
        .map_err(&unreachable)?;
    let body = String::from_utf8_lossy(&bytes).into_owned();
    let is_html = kind.contains("html") || (kind.is_empty() && body.trim_start().starts_with('<'));
    let is_text = kind.is_empty()
        || kind.starts_with("text/")
        || kind.contains("json")
        || kind.contains("xml")
        || kind.contains("javascript");
    let (title, mut content) = if is_html {
        let url = final_url.clone();
        blocking(move || Ok(readable_text(&body, &url))).await?
    } else if is_text {
        (String::new(), body)
    } else {
        let kind = kind.split(';').next().unwrap_or_default().trim().to_owned();
        return Err(ToolError::Failed(format!(
            "{shown} is a {kind} file, not a web page or text, so it can't be read."
        )));
    };
    content = limit_chars(content, ctx.web.fetch_max_chars);
    if more {
        content.push_str(&format!(
            "\n\n[Only the first {} KB of the page were read.]",
            ctx.web.fetch_max_bytes / 1024
        ));
    }
    Ok(Page {
        url: final_url,
        title,
        content,
    })
}

/// The address a DuckDuckGo result link leads to: its `uddg` parameter, else the link itself.
fn result_address(href: &str, base: &Url) -> Option<String> {
    let link = base.join(href).ok()?;
    let target = link
        .query_pairs()
        .find(|(key, _)| key == "uddg")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| link.to_string());
    web_address(&target).ok().map(|u| u.to_string())
}

/// Reads DuckDuckGo's HTML results page. `None` when the page isn't one (a block page, a
/// changed layout), an empty list when it says nothing was found.
pub fn parse_results(html: &str, base: &Url) -> Option<Vec<SearchResult>> {
    let doc = dom_query::Document::from(html);
    let blocks = doc.select("div.result");
    if !blocks.exists() {
        return doc.select(".no-results").exists().then(Vec::new);
    }
    let mut results = Vec::new();
    for block in blocks.iter() {
        if block.has_class("result--ad") {
            continue;
        }
        let link = block.select("a.result__a");
        let Some(url) = link.attr("href").and_then(|h| result_address(&h, base)) else {
            continue;
        };
        results.push(SearchResult {
            title: one_line(&link.text()),
            url,
            snippet: one_line(&block.select(".result__snippet").text()),
        });
        if results.len() == MAX_RESULTS {
            break;
        }
    }
    Some(results)
}

pub async fn search(ctx: &ToolCtx, query: &str) -> Result<Vec<SearchResult>, ToolError> {
    let query = query.trim();
    if query.is_empty() {
        return Err(ToolError::Failed(
            "Give a few words to search for.".to_owned(),
        ));
    }
    let unreachable = |cause: &dyn std::fmt::Display| {
        tracing::info!(%cause, "internet_search failed");
        ToolError::Failed(SEARCH_UNREACHABLE.to_owned())
    };
    ctx.progress(
        ProgressKind::Status,
        format!("Searching the web for {query}"),
    );
    let mut url = Url::parse(&ctx.web.search_url).map_err(|e| unreachable(&e))?;
    url.query_pairs_mut().append_pair("q", query);
    let response = ctx
        .http
        .get(url.clone())
        .timeout(ctx.web.timeout)
        .send()
        .await
        .map_err(|e| unreachable(&e))?;
    if !response.status().is_success() {
        return Err(unreachable(&response.status()));
    }
    let html = response.text().await.map_err(|e| unreachable(&e))?;
    blocking(move || {
        parse_results(&html, &url).ok_or_else(|| unreachable(&"the results page could not be read"))
    })
    .await
}

pub struct WebFetch {
    def: ToolDef,
}

impl WebFetch {
    fn new() -> Self {
        Self {
            def: ToolDef::new::<FetchArgs>(
                "web_fetch",
                "Read a web page and get its title and main text.",
                Risk::Read,
            )
            .untrusted_output(),
        }
    }
}

impl Tool for WebFetch {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: FetchArgs = parse_args(args)?;
            ToolOutput::json(fetch(ctx, &args.url).await?)
        })
    }
    fn urls(&self, args: &Value) -> Vec<String> {
        args.get("url")
            .and_then(Value::as_str)
            .and_then(|u| web_address(u).ok())
            .map(|u| vec![u.to_string()])
            .unwrap_or_default()
    }
    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let host = self
            .urls(args)
            .first()
            .and_then(|u| Url::parse(u).ok())
            .and_then(|u| u.host_str().map(str::to_owned));
        Some(CallDescription {
            risk_label: None,
            target: host,
        })
    }
}

pub struct InternetSearch {
    def: ToolDef,
}

impl InternetSearch {
    pub fn new() -> Self {
        Self {
            def: ToolDef::new::<SearchArgs>(
                "internet_search",
                "Search the web; returns titles, addresses and short snippets. Read a result with web_fetch.",
                Risk::Read,
            )
            .untrusted_output(),
        }
    }
}

impl Default for InternetSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for InternetSearch {
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
            let results = search(ctx, &args.query).await?;
            ToolOutput::json(serde_json::json!({"query": args.query.trim(), "results": results}))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolRegistry;
    use axum::http::header;
    use axum::response::IntoResponse;
    use axum::routing::get;
    use sentient_core::home::Home;
    use serde_json::json;

    const ARTICLE: &str = r#"<!doctype html>
<html><head><title>Otters at Work</title>
<style>body { color: red; } .secret-style { display: none }</style>
<script>var tracking = "SCRIPT-TEXT-SHOULD-GO";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
<h1>Otters at Work</h1>
<p>Sea otters use rocks as tools to crack open shellfish, a habit that researchers have followed for decades along the coasts of California and Alaska.</p>
<p>They keep a favourite rock in a pouch of loose skin under each forearm, and some carry the same stone for years while they dive for clams, urchins and crabs.</p>
<p>Scientists found that the habit spreads from mothers to pups, and that otters living where prey is hard to open use tools far more often than others do.</p>
<script>document.write("INLINE-SCRIPT-SHOULD-GO")</script>
</article>
<footer>Copyright Otter News</footer>
</body></html>"#;

    // The shape of html.duckduckgo.com/html/ results (trimmed): an ad, two results.
    const RESULTS: &str = r#"<!DOCTYPE html><html><body><div class="serp__results"><div id="links" class="results">
<div class="result results_links results_links_deep result--ad ">
  <div class="links_main links_deep result__body"><h2 class="result__title">
  <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Buy otters</a></h2>
  <a class="result__snippet" href="https://duckduckgo.com/y.js">An ad.</a></div></div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FSea_otter&amp;rut=abc">Sea otter - <b>Wikipedia</b></a>
    </h2>
    <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=x">en.wikipedia.org/wiki/Sea_otter</a></div></div>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">The <b>sea otter</b> is a marine mammal
      native to the coasts of the northern Pacific Ocean.</a>
    <div class="clear"></div>
  </div>
</div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://www.example.org/otters?a=1">Otters | Example</a></h2>
    <a class="result__snippet" href="https://www.example.org/otters">Facts about otters.</a>
  </div>
</div>
</div></div></body></html>"#;

    const NO_RESULTS: &str =
        r#"<html><body><div class="no-results">No results.</div></body></html>"#;

    /// A local web server for the tests; the internet is never used.
    async fn serve(router: axum::Router) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        format!("http://{addr}")
    }

    fn html(body: &'static str) -> axum::response::Response {
        ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
    }

    async fn site() -> String {
        serve(
            axum::Router::new()
                .route("/article", get(|| async { html(ARTICLE) }))
                .route(
                    "/big",
                    get(|| async {
                        let page = format!(
                            "<html><body><p>{}</p></body></html>",
                            "otter ".repeat(100_000)
                        );
                        ([(header::CONTENT_TYPE, "text/html")], page).into_response()
                    }),
                )
                .route("/plain", get(|| async { "just text" }))
                .route(
                    "/image",
                    get(|| async { ([(header::CONTENT_TYPE, "image/png")], vec![0u8; 10]) }),
                )
                .route(
                    "/missing",
                    get(|| async { (axum::http::StatusCode::NOT_FOUND, "gone") }),
                )
                .route(
                    "/html/",
                    get(
                        |axum::extract::Query(q): axum::extract::Query<
                            std::collections::HashMap<String, String>,
                        >| async move {
                            match q.get("q").map(String::as_str) {
                                Some("sea otters") => html(RESULTS),
                                Some("zzzz nothing") => html(NO_RESULTS),
                                _ => html("<html><body>Are you a robot?</body></html>"),
                            }
                        },
                    ),
                ),
        )
        .await
    }

    fn ctx(dir: &tempfile::TempDir, base: &str) -> ToolCtx {
        let home = Home::at(dir.path());
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let mut ctx = ToolCtx::new(home, http, "w1");
        ctx.web.search_url = format!("{base}/html/");
        ctx
    }

    async fn run(ctx: &ToolCtx, name: &str, args: Value) -> (bool, Value) {
        let result = ToolRegistry::with_plugins(crate::tools::plain_plugins())
            .invoke(name, args, ctx, 1_000_000)
            .await;
        (result.is_error, result.value)
    }

    #[tokio::test]
    async fn web_fetch_reads_the_main_text_without_scripts_or_styles() {
        let base = site().await;
        let dir = tempfile::tempdir().expect("dir");
        let ctx = ctx(&dir, &base);
        let (err, page) = run(&ctx, "web_fetch", json!({"url": format!("{base}/article")})).await;
        assert!(!err, "{page}");
        assert_eq!(page["title"], "Otters at Work");
        assert_eq!(page["url"], format!("{base}/article"));
        let content = page["content"].as_str().expect("content");
        assert!(
            content.contains("Sea otters use rocks as tools"),
            "{content}"
        );
        assert!(content.contains("some carry the same stone for years"));
        // Readability keeps the article: the menu and the footer are left out too.
        for gone in [
            "SCRIPT-TEXT",
            "INLINE-SCRIPT",
            "color: red",
            "secret-style",
            "Copyright Otter News",
        ] {
            assert!(!content.contains(gone), "{gone} in {content}");
        }

        let (_, plain) = run(&ctx, "web_fetch", json!({"url": format!("{base}/plain")})).await;
        assert_eq!(plain["content"], "just text");
    }

    #[tokio::test]
    async fn web_fetch_caps_size_and_text() {
        let base = site().await;
        let dir = tempfile::tempdir().expect("dir");
        let mut ctx = ctx(&dir, &base);
        ctx.web.fetch_max_bytes = 4096;
        ctx.web.fetch_max_chars = 1000;
        let (err, page) = run(&ctx, "web_fetch", json!({"url": format!("{base}/big")})).await;
        assert!(!err, "{page}");
        let content = page["content"].as_str().expect("content");
        assert!(content.starts_with("otter otter"), "{content}");
        assert!(
            content.ends_with("[Only the first 4 KB of the page were read.]"),
            "{content}"
        );
        ctx.web.fetch_max_bytes = 10 * 1024 * 1024;
        let (_, page) = run(&ctx, "web_fetch", json!({"url": format!("{base}/big")})).await;
        let content = page["content"].as_str().expect("content");
        assert!(
            content.ends_with("[Page text cut at 1000 of 599999 characters.]"),
            "{}",
            &content[content.len() - 80..]
        );
    }

    #[tokio::test]
    async fn web_fetch_refuses_what_it_cannot_read() {
        let base = site().await;
        let dir = tempfile::tempdir().expect("dir");
        let ctx = ctx(&dir, &base);
        for (url, error) in [
            (
                "file:///etc/passwd".to_owned(),
                "Sentient only opens http and https addresses, not file: ones.".to_owned(),
            ),
            (
                "ftp://example.com/x".to_owned(),
                "Sentient only opens http and https addresses, not ftp: ones.".to_owned(),
            ),
            (
                "example.com".to_owned(),
                "example.com isn't a full web address. Give one such as https://example.com/page."
                    .to_owned(),
            ),
            (
                format!("{base}/image"),
                format!(
                    "{base}/image is a image/png file, not a web page or text, so it can't be read."
                ),
            ),
            (
                format!("{base}/missing"),
                format!("{base}/missing answered with an error (404 Not Found)."),
            ),
        ] {
            let (err, value) = run(&ctx, "web_fetch", json!({"url": url})).await;
            assert!(err, "{url}");
            assert_eq!(value["error"], error.as_str());
        }
    }

    #[tokio::test]
    async fn the_web_tools_report_what_they_are_doing() {
        let base = site().await;
        let dir = tempfile::tempdir().expect("dir");
        let mut ctx = ctx(&dir, &base);
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        ctx.progress = Arc::new(move |update| {
            sink.lock().expect("lock").push(update);
        });
        run(&ctx, "web_fetch", json!({"url": format!("{base}/plain")})).await;
        run(&ctx, "internet_search", json!({"query": "sea otters"})).await;
        let seen = seen.lock().expect("lock").clone();
        assert_eq!(
            seen,
            [
                crate::tools::ProgressUpdate {
                    kind: ProgressKind::Status,
                    text: "Reading 127.0.0.1".to_owned(),
                    data: None,
                },
                crate::tools::ProgressUpdate {
                    kind: ProgressKind::Status,
                    text: "Searching the web for sea otters".to_owned(),
                    data: None,
                },
            ]
        );
    }

    #[test]
    fn pages_without_an_article_still_give_their_text() {
        let (title, text) = readable_text(
            "<html><head><title> Tiny </title><script>alert('x')</script></head>\
             <body><div>Short <b>note</b></div><style>.a { color: red }</style></body></html>",
            "http://127.0.0.1/tiny",
        );
        assert_eq!(title, "Tiny");
        assert_eq!(text, "Short note");
    }

    #[test]
    fn web_fetch_names_its_address() {
        let tool = WebFetch::new();
        let args = json!({"url": "https://example.com/a?b=1"});
        assert_eq!(tool.urls(&args), ["https://example.com/a?b=1"]);
        assert!(tool.urls(&json!({"url": "file:///x"})).is_empty());
        assert_eq!(
            tool.describe(&args).and_then(|d| d.target).as_deref(),
            Some("example.com")
        );
        let (risk, wording) = crate::tools::describe_call(&tool, &args);
        assert_eq!(risk, Risk::Read);
        assert_eq!(
            wording,
            CallDescription {
                risk_label: Some("Looks something up".to_owned()),
                target: Some("example.com".to_owned()),
            }
        );
        assert!(tool.def().untrusted_output);
        assert!(InternetSearch::new().def().untrusted_output);
    }

    #[tokio::test]
    async fn internet_search_reads_the_results_page() {
        let base = site().await;
        let dir = tempfile::tempdir().expect("dir");
        let ctx = ctx(&dir, &base);
        let (err, value) = run(&ctx, "internet_search", json!({"query": " sea otters "})).await;
        assert!(!err, "{value}");
        assert_eq!(
            value,
            json!({"query": "sea otters", "results": [
                {"title": "Sea otter - Wikipedia", "url": "https://en.wikipedia.org/wiki/Sea_otter",
                 "snippet": "The sea otter is a marine mammal native to the coasts of the northern Pacific Ocean."},
                {"title": "Otters | Example", "url": "https://www.example.org/otters?a=1",
                 "snippet": "Facts about otters."}
            ]})
        );
        let (err, value) = run(&ctx, "internet_search", json!({"query": "zzzz nothing"})).await;
        assert!(!err);
        assert_eq!(value["results"], json!([]));
    }

    #[tokio::test]
    async fn internet_search_says_plainly_when_it_is_unreachable() {
        let base = site().await;
        let dir = tempfile::tempdir().expect("dir");
        // A page that isn't a results page (a block page).
        let ctx_site = ctx(&dir, &base);
        let (err, value) = run(&ctx_site, "internet_search", json!({"query": "robot"})).await;
        assert!(err);
        assert_eq!(value, json!({"error": SEARCH_UNREACHABLE}));

        // Nothing listening: a port that was just closed.
        let closed = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            listener.local_addr().expect("addr")
        };
        let ctx_closed = ctx(&dir, &format!("http://{closed}"));
        let (err, value) = run(
            &ctx_closed,
            "internet_search",
            json!({"query": "sea otters"}),
        )
        .await;
        assert!(err);
        assert_eq!(value, json!({"error": SEARCH_UNREACHABLE}));

        let (_, value) = run(&ctx_site, "internet_search", json!({"query": "  "})).await;
        assert_eq!(value, json!({"error": "Give a few words to search for."}));
    }
}
