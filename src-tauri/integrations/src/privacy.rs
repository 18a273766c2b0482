//! Privacy filters (contract section 5): mail or events matching a keyword, a person or a
//! label are left out of everything the assistant sees (tool results, polls, change feeds,
//! push), recorded as seen and never published.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `GET`/`PUT /api/integrations/{id}/privacy-filters`.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct FilterLists {
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub emails: Vec<String>,
    #[serde(default)]
    pub labels: Vec<String>,
}

/// The longest filter list and entry accepted.
const MAX_ENTRIES: usize = 200;
const MAX_CHARS: usize = 200;

/// A filter list that is too long, as the route's plain sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error("Keep the {0} list under {max} entries.", max = MAX_ENTRIES)]
    TooMany(&'static str),
    #[error("Each of the {0} must be under {max} characters.", max = MAX_CHARS)]
    TooLong(&'static str),
}

impl FilterLists {
    /// Trimmed, lower-cased, blanks and repeats dropped; a plain sentence when too long.
    pub fn cleaned(self) -> Result<Self, FilterError> {
        fn clean(list: Vec<String>, what: &'static str) -> Result<Vec<String>, FilterError> {
            if list.len() > MAX_ENTRIES {
                return Err(FilterError::TooMany(what));
            }
            let mut out: Vec<String> = Vec::new();
            for entry in list {
                let entry = entry.trim().to_lowercase();
                if entry.chars().count() > MAX_CHARS {
                    return Err(FilterError::TooLong(what));
                }
                if !entry.is_empty() && !out.contains(&entry) {
                    out.push(entry);
                }
            }
            Ok(out)
        }
        Ok(Self {
            keywords: clean(self.keywords, "keywords")?,
            emails: clean(self.emails, "emails")?,
            labels: clean(self.labels, "labels")?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.keywords.is_empty() && self.emails.is_empty() && self.labels.is_empty()
    }

    /// Whether the filters hide this item (a gmail, email_imap or gcalendar item): a keyword in
    /// its subject, snippet, body, summary or description; a filtered address (or domain, as
    /// `@example.com`) among its people; one of its labels.
    pub fn hides(&self, item: &Value) -> bool {
        if self.is_empty() {
            return false;
        }
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        let words: String = ["subject", "snippet", "body", "summary", "description"]
            .iter()
            .map(|k| text(k).to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        if self.keywords.iter().any(|k| words.contains(k.as_str())) {
            return true;
        }
        let mut people: Vec<String> = ["from", "sender_email", "to", "cc", "organizer_email"]
            .iter()
            .map(|k| text(k).to_lowercase())
            .collect();
        if let Some(list) = item.get("attendees").and_then(Value::as_array) {
            people.extend(list.iter().filter_map(|a| {
                a.as_str()
                    .or_else(|| a.get("email").and_then(Value::as_str))
                    .map(str::to_lowercase)
            }));
        }
        if self
            .emails
            .iter()
            .any(|e| people.iter().any(|p| p.contains(e.as_str())))
        {
            return true;
        }
        item.get("labels")
            .and_then(Value::as_array)
            .is_some_and(|labels| {
                labels.iter().filter_map(Value::as_str).any(|l| {
                    let l = l.to_lowercase();
                    self.labels.contains(&l)
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filters(keywords: &[&str], emails: &[&str], labels: &[&str]) -> FilterLists {
        let own = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect();
        FilterLists {
            keywords: own(keywords),
            emails: own(emails),
            labels: own(labels),
        }
        .cleaned()
        .expect("clean")
    }

    #[test]
    fn keywords_people_and_labels_hide_items() {
        let mail = json!({"from": "Dr. Lee <lee@clinic.example>", "sender_email": "lee@clinic.example",
            "to": "me@example.com", "subject": "Your test results", "snippet": "All fine",
            "body": "See attached", "labels": ["INBOX", "Health"]});
        assert!(!filters(&[], &[], &[]).hides(&mail));
        assert!(filters(&["  TEST Results "], &[], &[]).hides(&mail));
        assert!(filters(&[], &["@clinic.example"], &[]).hides(&mail));
        assert!(filters(&[], &[], &["health"]).hides(&mail));
        assert!(!filters(&["invoice"], &["boss@work.example"], &["work"]).hides(&mail));
        let event = json!({"summary": "Therapy", "attendees": [{"email": "doc@clinic.example"}]});
        assert!(filters(&[], &["doc@clinic.example"], &[]).hides(&event));
        assert!(filters(&["therapy"], &[], &[]).hides(&event));
    }

    #[test]
    fn lists_are_cleaned_and_bounded() {
        let f = filters(&[" A ", "a", ""], &[], &[]);
        assert_eq!(f.keywords, ["a"]);
        let long = FilterLists {
            keywords: vec!["x".repeat(201)],
            ..FilterLists::default()
        };
        assert!(long.cleaned().is_err());
    }
}
