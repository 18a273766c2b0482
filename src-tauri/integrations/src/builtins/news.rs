//! The news app: Google News' public RSS feeds without a key, NewsAPI while it is connected.

pub mod newsapi;
pub mod rss;
pub mod shapes;
pub mod tools;
