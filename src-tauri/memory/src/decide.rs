//! The CUD decision for a new fact: the model proposes ADD, UPDATE, DELETE or SKIP against the
//! facts it was shown, and code holds it to the contract's rules (section 7, POST /api/memories):
//! a new current residence replaces the old one; an UPDATE only replaces a fact about the same
//! person and the same action on the same thing; a fact an existing one already says in full
//! (no new name, place or number) is skipped; past-tense facts are left alone. These checks are
//! word lists, not a parser: they only narrow what the model may do.

use std::collections::BTreeSet;

use crate::model::{Action, Memory};
use crate::search::words;

/// What the model proposed.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub action: Action,
    pub target: Option<i64>,
}

/// What is done: the action and the fact it acts on (none for ADD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    pub target: Option<i64>,
}

impl Decision {
    const ADD: Self = Self {
        action: Action::Add,
        target: None,
    };
}

/// Holds the model's proposal (`None` when it gave none) to the rules. `shown` are the facts the
/// model saw, the only ones it may act on.
pub fn settle(new: &str, shown: &[Memory], proposal: Option<Proposal>) -> Decision {
    // Already said in full by a shown fact: nothing to add, whatever the model said.
    if let Some(same) = shown.iter().find(|f| says_in_full(&f.content, new)) {
        return Decision {
            action: Action::Skip,
            target: Some(same.id),
        };
    }
    let new_is_past = is_past(new);
    // A new current home (a place the old one doesn't name) replaces the same person's old one.
    if is_residence(new)
        && !new_is_past
        && let Some(home) = shown.iter().find(|f| {
            is_residence(&f.content)
                && !is_past(&f.content)
                && same_person(&f.content, new)
                && adds_name_place_or_number(&f.content, new)
        })
    {
        return Decision {
            action: Action::Update,
            target: Some(home.id),
        };
    }
    let Some(proposal) = proposal else {
        return Decision::ADD;
    };
    let target = proposal
        .target
        .and_then(|id| shown.iter().find(|f| f.id == id));
    match (proposal.action, target) {
        (Action::Add, _) => Decision::ADD,
        (Action::Skip, Some(old)) if !adds_name_place_or_number(&old.content, new) => Decision {
            action: Action::Skip,
            target: Some(old.id),
        },
        (Action::Update, Some(old))
            if !new_is_past
                && !is_past(&old.content)
                && same_person(&old.content, new)
                && same_claim(&old.content, new) =>
        {
            Decision {
                action: Action::Update,
                target: Some(old.id),
            }
        }
        (Action::Delete, Some(old)) if !new_is_past && same_person(&old.content, new) => Decision {
            action: Action::Delete,
            target: Some(old.id),
        },
        // No such fact, or a change the rules don't allow: the new fact is added instead.
        _ => Decision::ADD,
    }
}

const RESIDENCE: &[&str] = &[
    "lives in",
    "living in",
    "moved to",
    "resides in",
    "based in",
    "relocated to",
    "lives at",
    "live in",
    "home is in",
];

const PAST: &[&str] = &[
    "used to",
    "lived in",
    "grew up",
    "was born",
    "previously",
    "formerly",
    "as a child",
    "years ago",
    "in the past",
    "no longer lives",
    "once lived",
    "had lived",
];

fn lower_words(text: &str) -> String {
    format!(" {} ", words(text).join(" "))
}

fn contains_phrase(text: &str, phrases: &[&str]) -> bool {
    let text = lower_words(text);
    phrases.iter().any(|p| text.contains(&format!(" {p} ")))
}

/// Says where someone lives now ("lives in Pune", "moved to Bengaluru").
pub fn is_residence(text: &str) -> bool {
    contains_phrase(text, RESIDENCE)
}

/// Speaks of the past ("used to live in Pune", "grew up in Goa"): such facts are left alone.
pub fn is_past(text: &str) -> bool {
    contains_phrase(text, PAST)
}

/// Words that end a fact's subject: the first verb-like word.
const VERBS: &[&str] = &[
    "is", "was", "are", "were", "lives", "lived", "living", "live", "moved", "moves", "has", "had",
    "have", "works", "worked", "likes", "liked", "loves", "prefers", "wants", "doesn", "does",
    "did", "don", "enjoys", "plays", "owns", "drives", "speaks", "studies", "uses", "hates",
    "dislikes", "needs", "goes", "went", "will", "plans", "grew", "got", "became", "resides",
    "used", "never", "always", "usually", "can", "should",
];

/// Words that say nothing about who a fact is about.
const NOT_SUBJECT: &[&str] = &[
    "the", "a", "an", "user", "s", "my", "his", "her", "their", "no", "not", "longer", "also",
    "now", "recently", "still", "just", "really",
];

/// Who a fact is about, as the relation words before its verb: "User's sister Meera lives..."
/// and "Sister moved..." are both `{sister}`; "User lives..." is `{}` (the person themself).
/// Capitalized words after the first are names and left out, so a name given once and left out
/// later still matches.
pub fn subject(text: &str) -> BTreeSet<String> {
    let mut key = BTreeSet::new();
    for (i, raw) in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .enumerate()
    {
        let word = raw.to_lowercase();
        if VERBS.contains(&word.as_str()) {
            break;
        }
        let is_name = i > 0 && raw.chars().next().is_some_and(char::is_uppercase);
        if !is_name && !NOT_SUBJECT.contains(&word.as_str()) {
            key.insert(word);
        }
    }
    key
}

pub fn same_person(a: &str, b: &str) -> bool {
    subject(a) == subject(b)
}

/// Action words, each with its forms.
const ACTIONS: [&[&str]; 10] = [
    &["write", "writes", "written", "wrote", "writing"],
    &[
        "delete", "deletes", "deleted", "deleting", "remove", "removed",
    ],
    &["send", "sends", "sent", "sending"],
    &["read", "reads", "reading"],
    &["edit", "edits", "edited", "editing", "change", "changed"],
    &["create", "creates", "created", "creating"],
    &["share", "shares", "shared", "sharing"],
    &["open", "opens", "opened", "opening"],
    &["buy", "buys", "bought", "buying"],
    &["call", "calls", "called", "calling"],
];

/// Things acted on, each with its forms.
const OBJECTS: [&[&str]; 9] = [
    &["file", "files", "folder", "folders"],
    &["email", "emails", "mail", "mails"],
    &["message", "messages", "texts"],
    &["event", "events", "meeting", "meetings", "calendar"],
    &["photo", "photos", "picture", "pictures"],
    &["contact", "contacts"],
    &["document", "documents", "docs"],
    &["task", "tasks"],
    &["payment", "payments", "money"],
];

fn kinds(text: &str, table: &[&[&str]]) -> BTreeSet<usize> {
    let found: BTreeSet<String> = words(text).into_iter().collect();
    table
        .iter()
        .enumerate()
        .filter(|(_, forms)| forms.iter().any(|f| found.contains(*f)))
        .map(|(i, _)| i)
        .collect()
}

/// The same action on the same thing: when both facts name an action (or a thing), they name
/// the same one. "doesn't want files written" and "doesn't want files deleted" differ.
pub fn same_claim(a: &str, b: &str) -> bool {
    let differ = |table: &[&[&str]]| {
        let (x, y) = (kinds(a, table), kinds(b, table));
        !x.is_empty() && !y.is_empty() && x != y
    };
    !differ(&ACTIONS) && !differ(&OBJECTS)
}

/// Names, places and numbers of a text: capitalized words after the first, and digits.
fn particulars(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .enumerate()
        .filter(|(i, w)| {
            (*i > 0 && w.chars().next().is_some_and(char::is_uppercase) && *w != "User")
                || w.chars().any(|c| c.is_ascii_digit())
        })
        .map(|(_, w)| w.to_lowercase())
        .collect()
}

/// The new fact names a person, place or number the old one doesn't.
pub fn adds_name_place_or_number(old: &str, new: &str) -> bool {
    let known: BTreeSet<String> = words(old).into_iter().collect();
    particulars(new).iter().any(|p| !known.contains(p))
}

/// Small words left out when asking whether one fact already says another.
const FILLER: &[&str] = &[
    "the", "a", "an", "user", "s", "is", "in", "of", "to", "and", "their", "his", "her", "that",
];

/// `old` already says everything `new` says: each of new's meaningful words is in old, and new
/// adds no name, place or number.
pub fn says_in_full(old: &str, new: &str) -> bool {
    let known: BTreeSet<String> = words(old).into_iter().collect();
    let meaningful: Vec<String> = words(new)
        .into_iter()
        .filter(|w| !FILLER.contains(&w.as_str()))
        .collect();
    !meaningful.is_empty()
        && meaningful.iter().all(|w| known.contains(w))
        && !adds_name_place_or_number(old, new)
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::model::{FactStatus, MemoryType};

    fn fact(id: i64, content: &str) -> Memory {
        Memory {
            id,
            content: content.into(),
            topics: vec![],
            source: "manual".into(),
            memory_type: MemoryType::LongTerm,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            expires_at: None,
            previous_content: None,
            status: FactStatus::Active,
            review: None,
            similarity: None,
            score: None,
        }
    }

    fn proposal(action: Action, target: Option<i64>) -> Option<Proposal> {
        Some(Proposal { action, target })
    }

    #[test]
    fn a_new_home_updates_the_old_one_whatever_the_model_said() {
        let shown = [fact(1, "User likes tea"), fact(2, "User lives in Pune")];
        for said in [
            proposal(Action::Add, None),
            None,
            proposal(Action::Skip, Some(1)),
        ] {
            let d = settle("User moved to Bengaluru", &shown, said);
            assert_eq!((d.action, d.target), (Action::Update, Some(2)));
        }
    }

    #[test]
    fn someone_elses_home_is_not_the_users() {
        let shown = [fact(2, "User lives in Pune")];
        let d = settle("User's sister Meera lives in Lisbon", &shown, None);
        assert_eq!(d, Decision::ADD);
        let shown = [fact(3, "User's sister Meera lives in Lisbon")];
        let d = settle(
            "User's sister moved to Porto",
            &shown,
            proposal(Action::Add, None),
        );
        assert_eq!(
            (d.action, d.target),
            (Action::Update, Some(3)),
            "the same sister, named once"
        );
    }

    #[test]
    fn past_tense_is_left_alone() {
        let shown = [fact(2, "User lives in Pune")];
        let d = settle(
            "User used to live in Mumbai",
            &shown,
            proposal(Action::Update, Some(2)),
        );
        assert_eq!(d, Decision::ADD);
        let shown = [fact(4, "User grew up in Goa")];
        let d = settle(
            "User lives in Delhi",
            &shown,
            proposal(Action::Update, Some(4)),
        );
        assert_eq!(d, Decision::ADD, "a childhood home is not replaced");
    }

    #[test]
    fn an_update_needs_the_same_action_on_the_same_thing() {
        let shown = [fact(5, "User doesn't want files deleted")];
        for new in [
            "User doesn't want files written",
            "User doesn't want emails deleted",
        ] {
            let d = settle(new, &shown, proposal(Action::Update, Some(5)));
            assert_eq!(d, Decision::ADD, "{new}");
        }
        let d = settle(
            "User is fine with files deleted",
            &shown,
            proposal(Action::Update, Some(5)),
        );
        assert_eq!((d.action, d.target), (Action::Update, Some(5)));
    }

    #[test]
    fn what_an_old_fact_already_says_is_skipped() {
        let shown = [fact(6, "User's sister Meera lives in Lisbon")];
        let d = settle(
            "User's sister lives in a city",
            &shown,
            proposal(Action::Skip, Some(6)),
        );
        assert_eq!((d.action, d.target), (Action::Skip, Some(6)));
        // Words alone say it all: skipped even when the model wanted to add.
        let d = settle(
            "Sister Meera lives in Lisbon",
            &shown,
            proposal(Action::Add, None),
        );
        assert_eq!((d.action, d.target), (Action::Skip, Some(6)));
        // A new name is news: never skipped.
        let d = settle(
            "User's sister Meera works with Tom",
            &shown,
            proposal(Action::Skip, Some(6)),
        );
        assert_eq!(d, Decision::ADD);
    }

    #[test]
    fn the_model_may_act_only_on_facts_it_was_shown() {
        let shown = [fact(7, "User likes tea")];
        let d = settle(
            "User likes green tea",
            &shown,
            proposal(Action::Update, Some(99)),
        );
        assert_eq!(d, Decision::ADD);
        let d = settle(
            "User no longer likes tea",
            &shown,
            proposal(Action::Delete, Some(7)),
        );
        assert_eq!((d.action, d.target), (Action::Delete, Some(7)));
    }

    #[test]
    fn subjects_are_relation_words() {
        assert!(subject("User lives in Pune").is_empty());
        assert_eq!(
            subject("User's sister Meera lives in Lisbon"),
            BTreeSet::from(["sister".to_owned()])
        );
        assert_eq!(
            subject("Sister moved to Porto"),
            BTreeSet::from(["sister".to_owned()])
        );
        assert!(!same_person(
            "User lives in Pune",
            "User's sister lives in Pune"
        ));
    }
}
