//! Brave Search API's wire format: `/res/v1/web/search`, the key in `X-Subscription-Token`,
//! `{"web": {"results": […]}}`; refusals as `{"type": "ErrorResponse", "error": {…}}`.

use serde::Deserialize;
use url::Url;

use super::{SearchResult, plain};
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "Brave Search";

pub fn search_url(base: &str, query: &str, count: u8) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/res/v1/web/search")?;
    url.query_pairs_mut()
        .append_pair("q", query.trim())
        .append_pair("count", &count.clamp(1, 20).to_string());
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Answer {
    web: Option<Web>,
    error: Option<Refusal>,
}

#[derive(Debug, Deserialize)]
struct Web {
    #[serde(default)]
    results: Vec<Found>,
}

#[derive(Debug, Deserialize)]
struct Found {
    title: String,
    url: String,
    #[serde(default)]
    description: String,
}

#[derive(Debug, Deserialize)]
struct Refusal {
    code: Option<String>,
    detail: Option<String>,
}

pub fn results_from(body: &str) -> Result<Vec<SearchResult>, ProviderError> {
    let answer: Answer = json_of(body, WHO)?;
    if let Some(refusal) = answer.error {
        let code = refusal.code.unwrap_or_default();
        tracing::info!(
            code,
            detail = refusal.detail,
            "Brave Search refused a request"
        );
        return Err(if code.contains("TOKEN") || code.contains("AUTH") {
            "Brave Search didn't accept the key. Paste it again in Apps > Brave Search."
                .to_owned()
                .into()
        } else if code.contains("RATE") || code.contains("QUOTA") {
            "Brave Search's allowance for this key is used up."
                .to_owned()
                .into()
        } else {
            "Brave Search couldn't answer right now.".to_owned().into()
        });
    }
    Ok(answer
        .web
        .map(|w| w.results)
        .unwrap_or_default()
        .into_iter()
        .map(|found| SearchResult {
            title: plain(&found.title),
            url: found.url,
            snippet: plain(&found.description),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_refusals() {
        let body = r#"{"type":"search","web":{"type":"search","results":[{"title":"Rust","url":"https://rust-lang.org","description":"A <strong>language</strong> empowering everyone"}]}}"#;
        let results = results_from(body).expect("should work");
        assert_eq!(results[0].snippet, "A language empowering everyone");
        let refused = results_from(
            r#"{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}"#,
        );
        assert!(
            refused
                .expect_err("should be refused")
                .to_string()
                .contains("didn't accept the key")
        );
        assert_eq!(
            results_from(r#"{"type":"search"}"#).expect("should work"),
            vec![]
        );
    }
}
