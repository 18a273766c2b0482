//! The keyless news feeds: Google News' RSS search and headline feeds, read with `feed-rs`
//! (which reads Atom as well, so any search feed of either kind works at this address).

use url::Url;

use super::shapes::Article;
use crate::builtins::provider::{ProviderError, endpoint};

/// The feeds' language and region.
const LOCALE: [(&str, &str); 3] = [("hl", "en-US"), ("gl", "US"), ("ceid", "US:en")];

/// Google News' own sections; other topics are searched.
const SECTIONS: &[&str] = &[
    "world",
    "nation",
    "business",
    "technology",
    "entertainment",
    "sports",
    "science",
    "health",
];

fn localised(mut url: Url) -> Url {
    url.query_pairs_mut().extend_pairs(LOCALE);
    url
}

pub fn search_url(base: &str, query: &str) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/rss/search")?;
    url.query_pairs_mut().append_pair("q", query.trim());
    Ok(localised(url))
}

/// The top stories, a section's ("technology") or a search for any other topic.
pub fn headlines_url(base: &str, topic: Option<&str>) -> Result<Url, ProviderError> {
    let topic = topic
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty());
    match topic {
        None => Ok(localised(endpoint(base, "/rss")?)),
        Some(section) if SECTIONS.contains(&section.as_str()) => Ok(localised(endpoint(
            base,
            &format!("/rss/headlines/section/topic/{}", section.to_uppercase()),
        )?)),
        Some(other) => search_url(base, &other),
    }
}

/// Titles on Google News end " - Publisher"; the publisher is split off when it is there.
fn title_and_source(title: &str) -> Option<(String, String)> {
    let (head, tail) = title.rsplit_once(" - ")?;
    let (head, tail) = (head.trim(), tail.trim());
    (!head.is_empty() && !tail.is_empty() && tail.chars().count() <= 60)
        .then(|| (head.to_owned(), tail.to_owned()))
}

/// The articles of an RSS 2.0 or Atom feed fetched from `address`.
pub fn articles_from(body: &[u8], address: &str) -> Result<Vec<Article>, ProviderError> {
    let feed = feed_rs::parser::Builder::new()
        .base_uri(Some(address))
        .build()
        .parse(body)
        .map_err(|error| {
            tracing::info!(%error, "a news feed could not be read");
            "The news service sent a feed Sentient couldn't read. Try again in a minute.".to_owned()
        })?;
    let feed_title = feed.title.map(|t| t.content).unwrap_or_default();
    Ok(feed
        .entries
        .into_iter()
        .filter_map(|entry| {
            let link = entry.links.first()?.href.clone();
            let title = entry.title.map(|t| t.content.trim().to_owned())?;
            let host = Url::parse(&link).ok().and_then(|u| {
                u.host_str()
                    .map(|h| h.trim_start_matches("www.").to_owned())
            });
            let (title, source) = match title_and_source(&title) {
                Some(split) => split,
                None => {
                    let source = entry
                        .authors
                        .first()
                        .and_then(|a| a.name.clone())
                        .filter(|n| !n.is_empty())
                        .or_else(|| (!feed_title.is_empty()).then(|| feed_title.clone()))
                        .or(host)
                        .unwrap_or_default();
                    (title, source)
                }
            };
            let published = entry
                .published
                .or(entry.updated)
                .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
            Some(Article {
                title,
                source,
                published,
                link,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_news_titles_give_their_publisher() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><title>"rain" - Google News</title>
            <item><title>Monsoon arrives early - The Hindu</title><link>https://news.example/1</link>
            <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate><source url="https://thehindu.com">The Hindu</source></item>
            </channel></rss>"#;
        let articles =
            articles_from(rss, "https://news.google.com/rss/search?q=rain").expect("should work");
        assert_eq!(articles[0].title, "Monsoon arrives early");
        assert_eq!(articles[0].source, "The Hindu");
        assert_eq!(
            articles[0].published.as_deref(),
            Some("2026-12-01T10:00:00Z")
        );
        let atom = br#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Example News</title><id>x</id><updated>2026-12-01T09:00:00Z</updated>
            <entry><title>Elections called</title><id>e1</id><link href="https://example.org/e1"/><updated>2026-12-01T09:00:00Z</updated></entry></feed>"#;
        let articles = articles_from(atom, "https://example.org/feed").expect("should work");
        assert_eq!(articles[0].source, "Example News");
        assert!(articles_from(b"not a feed", "https://x").is_err());
        let section = headlines_url("http://127.0.0.1:9", Some("Technology")).expect("should work");
        assert_eq!(section.path(), "/rss/headlines/section/topic/TECHNOLOGY");
        let other = headlines_url("http://127.0.0.1:9", Some("Pune")).expect("should work");
        assert_eq!(other.path(), "/rss/search");
    }
}
