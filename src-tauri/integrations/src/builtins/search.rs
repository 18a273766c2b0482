//! Web search with a key: Brave Search and Google Programmable Search, answering in the web
//! app's own result shape.

pub mod brave;
pub mod google_cse;

pub use sentient_agent::tools::web::{MAX_RESULTS, SearchResult};

use std::sync::LazyLock;

use regex::Regex;

static TAGS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^>]*>").expect("tag pattern"));

/// Text without its HTML tags and common entities: search snippets' `<strong>` marks, Google
/// Maps' `<b>` in instructions.
pub fn plain(text: &str) -> String {
    TAGS.replace_all(text, "")
        .replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .trim()
        .to_owned()
}
