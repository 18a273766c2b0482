//! Google Programmable Search's wire format (Custom Search JSON API): `/customsearch/v1` with
//! `key`, `cx` and `q`; `{"items": […]}` (no `items` when nothing matched); refusals as
//! `{"error": {"code": 400, "message": "…"}}`.

use serde::Deserialize;
use url::Url;

use super::{SearchResult, plain};
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "Google search";

pub fn search_url(
    base: &str,
    key: &str,
    engine: &str,
    query: &str,
    count: u8,
) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/customsearch/v1")?;
    url.query_pairs_mut()
        .append_pair("key", key)
        .append_pair("cx", engine)
        .append_pair("q", query.trim())
        // Google gives at most 10 a request.
        .append_pair("num", &count.clamp(1, 10).to_string());
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(default)]
    items: Vec<Found>,
    error: Option<Refusal>,
}

#[derive(Debug, Deserialize)]
struct Found {
    title: String,
    link: String,
    #[serde(default)]
    snippet: String,
}

#[derive(Debug, Deserialize)]
struct Refusal {
    code: Option<u16>,
    message: Option<String>,
}

pub fn results_from(body: &str) -> Result<Vec<SearchResult>, ProviderError> {
    let answer: Answer = json_of(body, WHO)?;
    if let Some(refusal) = answer.error {
        let message = refusal.message.unwrap_or_default();
        tracing::info!(
            code = refusal.code,
            message,
            "Google search refused a request"
        );
        return Err(ProviderError::Answered(match refusal.code {
            Some(429) => "Google search's allowance for today is used up.".to_owned(),
            Some(400 | 401 | 403) => {
                "Google search didn't accept the key or the engine ID. Check them in Apps > Google Programmable Search.".to_owned()
            }
            _ => "Google search couldn't answer right now.".to_owned(),
        }));
    }
    Ok(answer
        .items
        .into_iter()
        .map(|found| SearchResult {
            title: plain(&found.title),
            url: found.link,
            snippet: plain(&found.snippet),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_refusals() {
        let body = r#"{"kind":"customsearch#search","items":[{"title":"Rust","link":"https://rust-lang.org","snippet":"Fast &amp; safe"}]}"#;
        assert_eq!(
            results_from(body).expect("should work")[0].snippet,
            "Fast & safe"
        );
        assert_eq!(
            results_from(r#"{"kind":"customsearch#search"}"#).expect("should work"),
            vec![]
        );
        let refused = results_from(
            r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#,
        );
        assert!(
            refused
                .expect_err("should be refused")
                .to_string()
                .contains("didn't accept the key")
        );
        let url = search_url("http://127.0.0.1:9", "k", "c", "q", 20).expect("should work");
        assert!(url.query().expect("should work").ends_with("num=10"));
    }
}
