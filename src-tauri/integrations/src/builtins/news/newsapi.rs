//! NewsAPI's wire format (the keyed alternative for news): `/v2/everything` for searches and
//! `/v2/top-headlines` for headlines; the key travels in `X-Api-Key`. Refusals come as
//! `{"status": "error", "code": "…", "message": "…"}`.

use serde::Deserialize;
use url::Url;

use super::shapes::{Article, MOST_ARTICLES};
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "NewsAPI";
/// NewsAPI's own headline categories; other topics are searched within the headlines.
const CATEGORIES: &[&str] = &[
    "business",
    "entertainment",
    "general",
    "health",
    "science",
    "sports",
    "technology",
];

fn size(limit: usize) -> String {
    limit.clamp(1, MOST_ARTICLES).to_string()
}

pub fn everything_url(base: &str, query: &str, limit: usize) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/v2/everything")?;
    url.query_pairs_mut()
        .append_pair("q", query.trim())
        .append_pair("sortBy", "publishedAt")
        .append_pair("pageSize", &size(limit));
    Ok(url)
}

pub fn headlines_url(base: &str, topic: Option<&str>, limit: usize) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/v2/top-headlines")?;
    {
        let mut pairs = url.query_pairs_mut();
        pairs
            .append_pair("country", "us")
            .append_pair("pageSize", &size(limit));
        match topic
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.is_empty())
        {
            Some(category) if CATEGORIES.contains(&category.as_str()) => {
                pairs.append_pair("category", &category);
            }
            Some(other) => {
                pairs.append_pair("q", &other);
            }
            None => {}
        }
    }
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Answer {
    status: String,
    code: Option<String>,
    message: Option<String>,
    #[serde(default)]
    articles: Vec<Found>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Found {
    source: Option<Source>,
    title: Option<String>,
    url: Option<String>,
    published_at: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Source {
    name: Option<String>,
}

/// The articles, or NewsAPI's refusal in plain words.
pub fn articles_from(body: &str) -> Result<Vec<Article>, ProviderError> {
    let answer: Answer = json_of(body, WHO)?;
    if answer.status != "ok" {
        let code = answer.code.unwrap_or_default();
        tracing::info!(code, message = answer.message, "NewsAPI refused a request");
        return Err(ProviderError::Answered(match code.as_str() {
            "apiKeyInvalid" | "apiKeyMissing" | "apiKeyDisabled" => {
                "NewsAPI didn't accept the key. Paste it again in Apps > NewsAPI.".to_owned()
            }
            "rateLimited" => "NewsAPI's allowance for today is used up.".to_owned(),
            _ => "NewsAPI couldn't answer right now.".to_owned(),
        }));
    }
    Ok(answer
        .articles
        .into_iter()
        .filter_map(|found| {
            let title = found.title?.trim().to_owned();
            // NewsAPI marks articles taken down since as "[Removed]".
            if title.is_empty() || title == "[Removed]" {
                return None;
            }
            let published = found
                .published_at
                .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok())
                .map(|at| {
                    at.with_timezone(&chrono::Utc)
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                });
            Some(Article {
                title,
                source: found.source.and_then(|s| s.name).unwrap_or_default(),
                published,
                link: found.url?,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_and_refusals() {
        let ok = r#"{"status":"ok","totalResults":2,"articles":[
            {"source":{"id":null,"name":"BBC News"},"title":"Polls open","url":"https://bbc.example/1","publishedAt":"2026-12-01T10:00:00+01:00"},
            {"source":{"id":null,"name":"X"},"title":"[Removed]","url":"https://removed.example","publishedAt":"2026-12-01T10:00:00Z"}]}"#;
        let articles = articles_from(ok).expect("should work");
        assert_eq!(articles.len(), 1);
        assert_eq!(
            articles[0].published.as_deref(),
            Some("2026-12-01T09:00:00Z")
        );
        let wrong = articles_from(
            r#"{"status":"error","code":"apiKeyInvalid","message":"Your API key is invalid."}"#,
        );
        assert!(
            wrong
                .expect_err("should be refused")
                .to_string()
                .contains("didn't accept the key")
        );
        let tech = headlines_url("http://127.0.0.1:9", Some("Technology"), 5).expect("should work");
        assert!(
            tech.query()
                .expect("should work")
                .contains("category=technology")
        );
    }
}
