//! What the news tools answer, whichever provider answered.

use std::collections::HashSet;

use serde::Serialize;

/// One article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Article {
    pub title: String,
    /// Who published it: "BBC News".
    pub source: String,
    /// RFC 3339, UTC; `None` when the feed didn't say.
    pub published: Option<String>,
    pub link: String,
}

/// `news_search`' and `news_headlines`' answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewsResult {
    pub query: String,
    pub articles: Vec<Article>,
}

/// Most articles one call returns.
pub const MOST_ARTICLES: usize = 20;

/// Newest first, each story once (by link and by title), at most `limit` (1 to 20).
pub fn newest_first(mut articles: Vec<Article>, limit: usize) -> Vec<Article> {
    // RFC 3339 in UTC sorts as text; undated articles go last.
    articles.sort_by(|a, b| b.published.cmp(&a.published));
    let mut links = HashSet::new();
    let mut titles = HashSet::new();
    articles.retain(|a| {
        let title: String = a
            .title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect();
        links.insert(a.link.clone()) & titles.insert(title)
    });
    articles.truncate(limit.clamp(1, MOST_ARTICLES));
    articles
}

pub fn nothing_found(asked: &str) -> String {
    format!("I couldn't find any news about {asked}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(title: &str, link: &str, published: Option<&str>) -> Article {
        Article {
            title: title.to_owned(),
            source: "S".to_owned(),
            published: published.map(str::to_owned),
            link: link.to_owned(),
        }
    }

    #[test]
    fn stories_come_newest_first_and_once() {
        let kept = newest_first(
            vec![
                article("Old", "a", Some("2026-11-01T00:00:00Z")),
                article("Undated", "b", None),
                article("New!", "c", Some("2026-12-01T00:00:00Z")),
                article("new", "d", Some("2026-11-30T00:00:00Z")),
                article("Other", "a", Some("2026-11-02T00:00:00Z")),
            ],
            10,
        );
        let titles: Vec<&str> = kept.iter().map(|a| a.title.as_str()).collect();
        assert_eq!(titles, ["New!", "Other", "Undated"]);
        assert_eq!(newest_first(kept, 1).len(), 1);
    }
}
