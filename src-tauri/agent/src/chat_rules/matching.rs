//! The pure part of rules from chat: the words that make a standing instruction, the tools and
//! apps a message can name (the candidates), reading the model's answer, and the code checks
//! every key it names must pass. Nothing here touches the store or a model.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::approvals::tool_title;
use crate::tools::registry::ToolRegistry;
use sentient_core::config::{ApprovalsConfig, RuleOrigin, RuleValue};
use sentient_core::domain::rules::{ProposedRule, RuleTarget};
use sentient_llm::{ChatRequest, Message, Reasoning};

/// `said` keeps at most this many characters of the user's words.
const MAX_SAID: usize = 300;
/// The model reads at most this much of the message.
const MAX_PROMPT_MESSAGE: usize = 1_000;

/// One tool as the check sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogTool {
    pub name: String,
    /// Its plain name, e.g. "Trash".
    pub title: String,
    pub description: String,
}

/// One app with its tools.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogApp {
    pub id: String,
    pub display_name: String,
    pub description: String,
    pub hint: String,
    pub tools: Vec<CatalogTool>,
}

/// The apps and tools rules can name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    pub apps: Vec<CatalogApp>,
}

impl Catalog {
    /// Every app and (non-internal) tool in the registry.
    pub fn from_registry(tools: &ToolRegistry) -> Self {
        Self {
            apps: tools
                .catalog()
                .into_iter()
                .map(|p| CatalogApp {
                    tools: p
                        .tools
                        .iter()
                        .map(|t| CatalogTool {
                            title: tool_title(&t.name, &p.id),
                            name: t.name.clone(),
                            description: t.description.clone(),
                        })
                        .collect(),
                    id: p.id,
                    display_name: p.display_name,
                    description: p.description,
                    hint: p.selection_hint,
                })
                .collect(),
        }
    }

    fn app(&self, id: &str) -> Option<&CatalogApp> {
        self.apps.iter().find(|a| a.id == id)
    }

    /// The app a tool belongs to.
    fn app_of(&self, tool: &str) -> Option<&CatalogApp> {
        self.apps
            .iter()
            .find(|a| a.tools.iter().any(|t| t.name == tool))
    }

    /// The card's line for a key, `None` for a key that names nothing.
    pub fn target(&self, key: &str) -> Option<RuleTarget> {
        if let Some(app) = self.app(key) {
            return Some(RuleTarget {
                key: key.to_owned(),
                app: app.display_name.clone(),
                tool: None,
                label: app.display_name.clone(),
            });
        }
        let app = self.app_of(key)?;
        let tool = app.tools.iter().find(|t| t.name == key)?;
        Some(RuleTarget {
            key: key.to_owned(),
            app: app.display_name.clone(),
            tool: Some(tool.title.clone()),
            label: format!("{} > {}", app.display_name, tool.title),
        })
    }
}

/// Words that say a standing instruction might follow.
const TRIGGERS: &[&[&str]] = &[
    &["never"],
    &["don't"],
    &["dont"],
    &["do", "not"],
    &["must", "not"],
    &["mustn't"],
    &["always", "ask"],
    &["ask", "me", "first"],
    &["ask", "me", "before"],
    &["ask", "first"],
    &["ask", "before"],
    &["without", "asking"],
    &["without", "checking"],
    &["check", "with", "me"],
    &["without", "my", "permission"],
    &["without", "my", "ok"],
    &["without", "my", "okay"],
    &["without", "my", "approval"],
];

/// Phrases that loosen rather than tighten; they never count as a trigger.
const LOOSENERS: &[&[&str]] = &[
    &["don't", "ask"],
    &["dont", "ask"],
    &["do", "not", "ask"],
    &["never", "ask"],
    &["stop", "asking"],
    &["no", "need", "to", "ask"],
];

/// Words that name a condition: the user wants to be asked, not a ban.
const CONDITIONS: &[&[&str]] = &[
    &["without", "asking"],
    &["without", "checking"],
    &["always", "ask"],
    &["ask", "me", "first"],
    &["ask", "me", "before"],
    &["ask", "first"],
    &["ask", "before"],
    &["check", "with", "me"],
    &["without", "my", "permission"],
    &["without", "my", "ok"],
    &["without", "my", "okay"],
    &["without", "my", "approval"],
    &["unless", "i"],
];

/// Specific actions: when an instruction names one, an app key becomes that app's tools whose
/// names match it. Each group is one action and the words that mean it.
const ACTIONS: &[&[&str]] = &[
    &[
        "delete", "remove", "erase", "trash", "bin", "destroy", "wipe", "purge",
    ],
    &["send", "forward", "reply", "mail", "message", "dm"],
    &["post", "publish", "tweet", "comment"],
    &[
        "pay", "buy", "purchase", "order", "checkout", "spend", "transfer",
    ],
    &["share", "invite"],
    &["archive"],
    &[
        "write",
        "save",
        "edit",
        "change",
        "modify",
        "overwrite",
        "update",
        "create",
        "rename",
        "move",
        "upload",
    ],
    &["run", "execute", "install"],
    &["read", "open", "view"],
    &["search", "find", "lookup", "google"],
    &["fetch", "visit", "load", "download", "browse"],
];

/// Words after which the next words are an object ("my email messages"), not actions.
const DETERMINERS: &[&str] = &[
    "my", "your", "our", "their", "his", "her", "its", "the", "a", "an", "any", "all", "this",
    "that", "these", "those", "some", "every",
];

/// Words that end an object: what follows may be an action again.
const BOUNDARIES: &[&str] = &[
    "to", "in", "on", "at", "from", "for", "with", "without", "into", "and", "or", "but", "unless",
    "until", "before", "after", "when", "if", "then", "by", "about", "nor", "never", "don't",
    "dont", "not",
];

/// Words that never make a tool or app a candidate.
const STOP_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "without",
    "from",
    "into",
    "about",
    "any",
    "all",
    "anything",
    "something",
    "everything",
    "nothing",
    "thing",
    "things",
    "never",
    "don't",
    "dont",
    "not",
    "must",
    "mustn't",
    "always",
    "ask",
    "asking",
    "asked",
    "first",
    "before",
    "after",
    "check",
    "checking",
    "permission",
    "okay",
    "approval",
    "unless",
    "until",
    "you",
    "your",
    "yours",
    "our",
    "their",
    "them",
    "they",
    "this",
    "that",
    "these",
    "those",
    "some",
    "every",
    "ever",
    "again",
    "stop",
    "just",
    "please",
    "use",
    "using",
    "touch",
    "access",
    "let",
    "make",
    "get",
    "can",
    "can't",
    "cannot",
    "will",
    "won't",
    "should",
    "shouldn't",
    "would",
    "could",
    "want",
    "need",
    "sentient",
    "its",
    "his",
    "her",
    "who",
    "what",
    "when",
    "where",
    "which",
    "there",
    "here",
    "then",
    "than",
    "also",
    "only",
    "even",
    "one",
    "are",
    "was",
    "were",
    "been",
    "being",
    "have",
    "has",
    "had",
    "does",
    "did",
    "doing",
    "done",
];

/// The message's words, lower-case, curly apostrophes made straight.
pub fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Where each phrase of `phrases` starts in `tokens`, with its length.
fn phrase_hits(tokens: &[String], phrases: &[&[&str]]) -> Vec<(usize, usize)> {
    let mut hits = Vec::new();
    for start in 0..tokens.len() {
        for phrase in phrases {
            let end = start + phrase.len();
            if end <= tokens.len()
                && tokens[start..end]
                    .iter()
                    .zip(phrase.iter())
                    .all(|(t, p)| t == p)
            {
                hits.push((start, phrase.len()));
            }
        }
    }
    hits
}

/// The deterministic pre-filter: the words could be a standing "never" or "ask me first".
/// Loosening phrases ("don't ask me", "stop asking") never count.
pub fn passes_prefilter(text: &str) -> bool {
    let tokens = words(text);
    let mut loosened = vec![false; tokens.len()];
    for (start, len) in phrase_hits(&tokens, LOOSENERS) {
        loosened[start..start + len]
            .iter_mut()
            .for_each(|l| *l = true);
    }
    phrase_hits(&tokens, TRIGGERS)
        .into_iter()
        .any(|(start, len)| !loosened[start..start + len].iter().any(|l| *l))
}

/// Whether the words name a condition ("without asking me", "always ask"), which makes the rule ask.
pub fn names_condition(text: &str) -> bool {
    !phrase_hits(&words(text), CONDITIONS).is_empty()
}

/// The message's instructions: its sentences that pass the pre-filter.
pub fn instructions(text: &str) -> Vec<String> {
    text.split(['.', '!', '?', ';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty() && passes_prefilter(s))
        .map(str::to_owned)
        .collect()
}

/// A word without its plural ending, so "emails" meets "email".
pub fn stem(word: &str) -> String {
    let w = word.trim_matches('\'');
    if w.len() <= 3 || w.ends_with("ss") {
        return w.to_owned();
    }
    if let Some(base) = w.strip_suffix("ies") {
        return format!("{base}y");
    }
    for ending in ["ches", "shes", "xes", "sses"] {
        if w.ends_with(ending) {
            return w[..w.len() - 2].to_owned();
        }
    }
    w.strip_suffix('s').unwrap_or(w).to_owned()
}

/// Words that can tie a message to a tool or an app: no stop words, nothing shorter than 3.
fn content_words(text: &str) -> BTreeSet<String> {
    words(text)
        .into_iter()
        .flat_map(|w| w.split('_').map(str::to_owned).collect::<Vec<_>>())
        .filter(|w| w.chars().count() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// The action group a word belongs to ("deleting" → the delete group), if any.
pub fn action_of(word: &str) -> Option<usize> {
    let w = word.trim_matches('\'');
    ACTIONS.iter().position(|group| {
        group.iter().any(|root| {
            let trimmed = root.strip_suffix('e').unwrap_or(root);
            let last = root.chars().last().map(String::from).unwrap_or_default();
            w == *root
                || w.strip_suffix('s') == Some(root)
                || w.strip_suffix("es") == Some(root)
                || w.strip_suffix("ed") == Some(root)
                || w.strip_suffix('d') == Some(root)
                || w.strip_suffix("ing") == Some(root)
                || w.strip_suffix("ing") == Some(trimmed)
                || w.strip_suffix("ed") == Some(trimmed)
                || w.strip_suffix(&format!("{last}ing")) == Some(root)
                || w.strip_suffix(&format!("{last}ed")) == Some(root)
        })
    })
}

/// The actions an instruction names. A word after "my" (or another determiner) or after a
/// noun is an object, not an action: "my email messages" names no "message".
pub fn actions_named(text: &str) -> BTreeSet<usize> {
    let mut found = BTreeSet::new();
    let mut in_object = false;
    let mut after_noun = false;
    for word in words(text) {
        let w = word.as_str();
        if DETERMINERS.contains(&w) {
            in_object = true;
            after_noun = false;
            continue;
        }
        if BOUNDARIES.contains(&w) {
            in_object = false;
            after_noun = false;
            continue;
        }
        let action = action_of(w);
        if let Some(group) = action
            && !in_object
            && !after_noun
        {
            found.insert(group);
            continue;
        }
        // Stop words (never, ever, please...) leave the phrase as it was; other words are nouns.
        if action.is_some() || !STOP_WORDS.contains(&w) {
            after_noun = true;
        }
    }
    found
}

/// Whether a tool's name names one of `actions` ("gmail_trash" for the delete group).
fn tool_does(tool: &str, app: &str, actions: &BTreeSet<usize>) -> bool {
    let short = tool
        .strip_prefix(app)
        .and_then(|rest| rest.strip_prefix('_'))
        .unwrap_or(tool);
    short
        .split(['_', '-'])
        .filter_map(action_of)
        .any(|group| actions.contains(&group))
}

/// The tools and apps a message could be about: those sharing a word with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidates {
    pub apps: BTreeSet<String>,
    pub tools: BTreeSet<String>,
}

impl Candidates {
    pub fn is_empty(&self) -> bool {
        self.apps.is_empty() && self.tools.is_empty()
    }

    /// Every key a check is weighing: the candidate tools and apps.
    pub fn keys(&self) -> BTreeSet<String> {
        self.apps.union(&self.tools).cloned().collect()
    }

    fn contains(&self, key: &str) -> bool {
        self.apps.contains(key) || self.tools.contains(key)
    }
}

fn app_words(app: &CatalogApp) -> BTreeSet<String> {
    content_words(&format!(
        "{} {} {} {}",
        app.id, app.display_name, app.description, app.hint
    ))
}

/// Tools whose names or descriptions share a word with the message, and apps whose id, name,
/// description or hint do (an app also comes with any of its tools).
pub fn candidates(catalog: &Catalog, text: &str) -> Candidates {
    let said = content_words(text);
    let mut found = Candidates::default();
    for app in &catalog.apps {
        if !app_words(app).is_disjoint(&said) {
            found.apps.insert(app.id.clone());
        }
        for tool in &app.tools {
            let tool_words = content_words(&format!("{} {}", tool.name, tool.description));
            if !tool_words.is_disjoint(&said) {
                found.tools.insert(tool.name.clone());
                found.apps.insert(app.id.clone());
            }
        }
    }
    found
}

/// What the fast model answered, read tolerantly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelAnswer {
    pub keys: Vec<String>,
    pub rule: Option<ProposedRule>,
}

/// Reads `{"keys": [...], "rule": "never"|"ask"}` out of whatever the model wrote: code fences,
/// words around the object, single quotes, a key as a string, a bare list. `None` when there
/// is nothing usable.
pub fn parse_answer(text: &str) -> Option<ModelAnswer> {
    let text = text.trim();
    let object = match (text.find('{'), text.rfind('}')) {
        (Some(start), Some(end)) if start < end => Some(&text[start..=end]),
        _ => None,
    };
    let list = match (text.find('['), text.rfind(']')) {
        (Some(start), Some(end)) if start < end => Some(&text[start..=end]),
        _ => None,
    };
    let read = |s: &str| {
        serde_json::from_str::<Value>(s)
            .or_else(|_| serde_json::from_str::<Value>(&s.replace('\'', "\"")))
            .ok()
    };
    let value = object.and_then(read).or_else(|| list.and_then(read))?;
    let key_list = |v: &Value| -> Vec<String> {
        match v {
            Value::Array(items) => items
                .iter()
                .filter_map(|i| i.as_str().or_else(|| i.get("key").and_then(Value::as_str)))
                .map(|k| k.trim().to_lowercase())
                .filter(|k| !k.is_empty())
                .collect(),
            Value::String(s) => s
                .split(',')
                .map(|k| k.trim().to_lowercase())
                .filter(|k| !k.is_empty())
                .collect(),
            _ => Vec::new(),
        }
    };
    match &value {
        Value::Array(_) => Some(ModelAnswer {
            keys: key_list(&value),
            rule: None,
        }),
        Value::Object(map) => {
            let keys = map
                .get("keys")
                .or_else(|| map.get("key"))
                .or_else(|| map.get("tools"))
                .map(key_list)
                .unwrap_or_default();
            let rule = map
                .get("rule")
                .and_then(Value::as_str)
                .map(str::to_lowercase)
                .and_then(|r| {
                    if r.contains("never") {
                        Some(ProposedRule::Never)
                    } else if r.contains("ask") {
                        Some(ProposedRule::Ask)
                    } else {
                        None
                    }
                });
            Some(ModelAnswer { keys, rule })
        }
        _ => None,
    }
}

/// How strict a rule is: allow < ask < never.
fn level(rule: RuleValue) -> u8 {
    match rule {
        RuleValue::Allow => 0,
        RuleValue::Ask => 1,
        RuleValue::Never => 2,
    }
}

/// Whether an equal or stricter rule already covers `key`: a saved rule (a tool's own rule
/// beats its app's) or a pending proposal in the same chat.
pub fn is_covered(
    catalog: &Catalog,
    key: &str,
    rule: ProposedRule,
    rules: &BTreeMap<String, RuleValue>,
    pending: &[(Vec<String>, ProposedRule)],
) -> bool {
    let wanted = level(rule.value());
    let at_least = |r: Option<&RuleValue>| r.is_some_and(|r| level(*r) >= wanted);
    let app_id = catalog.app_of(key).map(|a| a.id.clone());
    let by_pending = pending.iter().any(|(keys, r)| {
        level(r.value()) >= wanted
            && keys
                .iter()
                .any(|k| k == key || app_id.as_deref() == Some(k.as_str()))
    });
    if by_pending {
        return true;
    }
    if let Some(app) = catalog.app(key) {
        // An app's rule covers it only when none of its tools has a looser rule of its own.
        return at_least(rules.get(key))
            && app
                .tools
                .iter()
                .all(|t| rules.get(&t.name).is_none_or(|r| level(*r) >= wanted));
    }
    let effective = rules
        .get(key)
        .or_else(|| app_id.as_deref().and_then(|a| rules.get(a)));
    at_least(effective)
}

/// The code checks on the model's answer: keys must be candidates; condition words make the
/// rule ask; an app key stays whole only when its instruction names no specific action,
/// otherwise it becomes that app's tools that do the action (or is dropped); covered keys are
/// dropped. Returns the rule and the keys left, `None` when nothing is left.
pub fn refine(
    catalog: &Catalog,
    found: &Candidates,
    text: &str,
    answer: &ModelAnswer,
    rules: &BTreeMap<String, RuleValue>,
    pending: &[(Vec<String>, ProposedRule)],
) -> Option<(ProposedRule, Vec<String>)> {
    let rule = if names_condition(text) {
        ProposedRule::Ask
    } else {
        answer.rule.unwrap_or(ProposedRule::Never)
    };
    let said = instructions(text);
    let mut keys: Vec<String> = Vec::new();
    let add = |key: String, keys: &mut Vec<String>| {
        if !keys.contains(&key) {
            keys.push(key);
        }
    };
    for raw in &answer.keys {
        // A display name ("Gmail") stands for its app id.
        let key = catalog
            .apps
            .iter()
            .find(|a| a.display_name.eq_ignore_ascii_case(raw))
            .map_or_else(|| raw.clone(), |a| a.id.clone());
        if !found.contains(&key) {
            continue;
        }
        let Some(app) = catalog.app(&key) else {
            add(key, &mut keys);
            continue;
        };
        // Each app is judged by the instructions that mention it.
        let words = app_words(app);
        let mentioning: Vec<&String> = said
            .iter()
            .filter(|s| !content_words(s).is_disjoint(&words))
            .collect();
        let judged: Vec<&String> = if mentioning.is_empty() {
            said.iter().collect()
        } else {
            mentioning
        };
        let actions: BTreeSet<usize> = judged.iter().flat_map(|s| actions_named(s)).collect();
        if actions.is_empty() {
            add(key, &mut keys);
        } else {
            for tool in &app.tools {
                if tool_does(&tool.name, &app.id, &actions) {
                    add(tool.name.clone(), &mut keys);
                }
            }
        }
    }
    // A tool inside an app that is proposed whole adds nothing.
    let whole: Vec<String> = keys
        .iter()
        .filter(|k| catalog.app(k).is_some())
        .cloned()
        .collect();
    keys.retain(|k| catalog.app_of(k).is_none_or(|app| !whole.contains(&app.id)));
    keys.retain(|k| !is_covered(catalog, k, rule, rules, pending));
    (!keys.is_empty()).then_some((rule, keys))
}

/// `said`: the instructions in the message, at most 300 characters.
pub fn said_of(text: &str) -> String {
    let found = instructions(text);
    let joined = if found.is_empty() {
        text.trim().to_owned()
    } else {
        found.join(". ")
    };
    joined
        .chars()
        .take(MAX_SAID)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Accepting: each key is saved where it tightens (a stricter rule already there stays), an
/// app key also tightens its tools whose own looser rule would beat it, and every rule saved
/// gets the origin note.
pub fn tighten(
    approvals: &mut ApprovalsConfig,
    catalog: &Catalog,
    keys: &[String],
    rule: ProposedRule,
    origin: &RuleOrigin,
) -> Vec<String> {
    let wanted = rule.value();
    let mut saved = Vec::new();
    let mut set = |approvals: &mut ApprovalsConfig, key: &str| {
        approvals.rules.insert(key.to_owned(), wanted);
        approvals
            .rule_origins
            .insert(key.to_owned(), origin.clone());
        saved.push(key.to_owned());
    };
    for key in keys {
        if let Some(app) = catalog.app(key) {
            if approvals
                .rules
                .get(key)
                .is_none_or(|r| level(*r) < level(wanted))
            {
                set(approvals, key);
            }
            for tool in &app.tools {
                if approvals
                    .rules
                    .get(&tool.name)
                    .is_some_and(|r| level(*r) < level(wanted))
                {
                    set(approvals, &tool.name);
                }
            }
        } else {
            let app_id = catalog.app_of(key).map(|a| a.id.clone());
            let effective = approvals
                .rules
                .get(key)
                .or_else(|| app_id.as_deref().and_then(|a| approvals.rules.get(a)))
                .copied();
            if effective.is_none_or(|r| level(r) < level(wanted)) {
                set(approvals, key);
            }
        }
    }
    saved
}

/// The fast model's instructions.
const SYSTEM_PROMPT: &str = "You map a user's standing instruction to the tools and apps of an assistant. \
Answer with JSON only: {\"keys\": [...], \"rule\": \"never\" or \"ask\"}. \
keys are names from the list the instruction is about (an app id means every tool of that app); \
use an empty list when nothing fits or the message is not a lasting instruction. \
rule is \"ask\" when the user wants to be asked first, otherwise \"never\".";

pub(super) fn prompt(catalog: &Catalog, found: &Candidates, text: &str) -> ChatRequest {
    let mut listing = String::new();
    for app in &catalog.apps {
        if found.apps.contains(&app.id) {
            listing.push_str(&format!(
                "- {} (the whole {} app): {}\n",
                app.id, app.display_name, app.description
            ));
        }
        for tool in app.tools.iter().filter(|t| found.tools.contains(&t.name)) {
            listing.push_str(&format!(
                "- {} ({} in {}): {}\n",
                tool.name, tool.title, app.display_name, tool.description
            ));
        }
    }
    let message: String = text.chars().take(MAX_PROMPT_MESSAGE).collect();
    ChatRequest {
        messages: vec![
            Message::system(SYSTEM_PROMPT),
            Message::user(format!(
                "Tools and apps:\n{listing}\nThe user's message:\n{message}"
            )),
        ],
        max_tokens: Some(120),
        reasoning: Some(Reasoning::None),
        json: true,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gmail_slack_files() -> Catalog {
        let tool = |name: &str, app: &str, description: &str| CatalogTool {
            name: name.to_owned(),
            title: tool_title(name, app),
            description: description.to_owned(),
        };
        Catalog {
            apps: vec![
                CatalogApp {
                    id: "gmail".into(),
                    display_name: "Gmail".into(),
                    description: "Read, send and organise your email.".into(),
                    hint: "email mail inbox".into(),
                    tools: vec![
                        tool("gmail_search", "gmail", "Search your email messages."),
                        tool("gmail_send_email", "gmail", "Send an email."),
                        tool(
                            "gmail_trash",
                            "gmail",
                            "Move an email message to the trash.",
                        ),
                        tool("gmail_archive", "gmail", "Archive an email message."),
                    ],
                },
                CatalogApp {
                    id: "slack".into(),
                    display_name: "Slack".into(),
                    description: "Team chat.".into(),
                    hint: "slack channel".into(),
                    tools: vec![
                        tool(
                            "slack_post_message",
                            "slack",
                            "Post a message to a channel.",
                        ),
                        tool("slack_read_channel", "slack", "Read a channel's messages."),
                    ],
                },
                CatalogApp {
                    id: "files".into(),
                    display_name: "Files".into(),
                    description: "Read and write files in Sentient's files folder.".into(),
                    hint: "file files folder read write save note document".into(),
                    tools: vec![
                        tool("files_read", "files", "Read a text file."),
                        tool("files_write", "files", "Save text as a file."),
                    ],
                },
            ],
        }
    }

    fn keys_for(
        text: &str,
        answer: &str,
        rules: &[(&str, RuleValue)],
        pending: &[(Vec<String>, ProposedRule)],
    ) -> Option<(ProposedRule, Vec<String>)> {
        let catalog = gmail_slack_files();
        let found = candidates(&catalog, text);
        let answer = parse_answer(answer).expect("answer");
        let rules = rules.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
        refine(&catalog, &found, text, &answer, &rules, pending)
    }

    #[test]
    fn the_prefilter_finds_standing_instructions_and_ignores_loosening() {
        for text in [
            "never delete my emails",
            "Don't post to Slack without asking me",
            "don’t touch my Notion",
            "You must not pay for anything",
            "always ask before sending money",
            "Ask me first before you archive mail",
            "do not share my files",
            "don't ask me, just never send email",
        ] {
            assert!(passes_prefilter(text), "{text}");
        }
        for text in [
            "What is the capital of France?",
            "Remember: buy milk",
            "don't ask me again",
            "Stop asking and just do it",
            "do not ask for confirmation",
            "nevertheless, write it",
            "",
        ] {
            assert!(!passes_prefilter(text), "{text}");
        }
    }

    #[test]
    fn conditions_make_the_rule_ask() {
        assert!(names_condition("don't post to Slack without asking me"));
        assert!(names_condition("always ask before sending money"));
        assert!(!names_condition("never delete my emails"));
        assert_eq!(
            keys_for(
                "don't post to Slack without asking me",
                r#"{"keys": ["slack_post_message"], "rule": "never"}"#,
                &[],
                &[]
            ),
            Some((ProposedRule::Ask, vec!["slack_post_message".to_owned()]))
        );
    }

    #[test]
    fn actions_come_from_verbs_not_objects() {
        let named = |t: &str| -> Vec<&str> {
            actions_named(t)
                .into_iter()
                .map(|g| ACTIONS[g][0])
                .collect()
        };
        assert_eq!(named("never delete my emails"), ["delete"]);
        assert_eq!(named("never use Slack"), Vec::<&str>::new());
        assert_eq!(named("don't touch my email messages"), Vec::<&str>::new());
        assert_eq!(named("never delete email messages"), ["delete"]);
        assert_eq!(
            named("don't ever send or archive my mail"),
            ["send", "archive"]
        );
        assert_eq!(named("never read my files"), ["read"]);
        assert_eq!(named("stop posting to Slack"), ["post"]);
        assert_eq!(action_of("deleting"), action_of("trash"));
        assert_eq!(action_of("archived"), action_of("archive"));
        assert_eq!(action_of("shopping"), None);
    }

    #[test]
    fn app_keys_become_the_tools_that_do_the_action_or_are_dropped() {
        // "never delete my emails" -> Gmail > Trash, never all of Gmail.
        assert_eq!(
            keys_for(
                "never delete my emails",
                r#"{"keys": ["gmail"], "rule": "never"}"#,
                &[],
                &[]
            ),
            Some((ProposedRule::Never, vec!["gmail_trash".to_owned()]))
        );
        // No specific action: the whole app.
        assert_eq!(
            keys_for(
                "never use Slack",
                r#"{"keys": ["slack"], "rule": "never"}"#,
                &[],
                &[]
            ),
            Some((ProposedRule::Never, vec!["slack".to_owned()]))
        );
        // Each app is judged by its own instruction.
        assert_eq!(
            keys_for(
                "never delete my emails. never use Slack",
                r#"{"keys": ["gmail", "slack"], "rule": "never"}"#,
                &[],
                &[]
            ),
            Some((
                ProposedRule::Never,
                vec!["gmail_trash".to_owned(), "slack".to_owned()]
            ))
        );
        // An action no tool of the app does: nothing left, no proposal.
        assert_eq!(
            keys_for(
                "never pay with my files",
                r#"{"keys": ["files"], "rule": "never"}"#,
                &[],
                &[]
            ),
            None
        );
        // A display name stands for its app.
        assert_eq!(
            keys_for("never use Slack", r#"{"keys": ["Slack"]}"#, &[], &[]),
            Some((ProposedRule::Never, vec!["slack".to_owned()]))
        );
    }

    #[test]
    fn keys_must_be_candidates() {
        // Slack shares no word with the message; a made-up key is not a tool.
        assert_eq!(
            keys_for(
                "never delete my emails",
                r#"{"keys": ["slack", "execute_code", "gmail_trash"], "rule": "never"}"#,
                &[],
                &[]
            ),
            Some((ProposedRule::Never, vec!["gmail_trash".to_owned()]))
        );
        assert_eq!(
            keys_for(
                "never delete my emails",
                r#"{"keys": [], "rule": "never"}"#,
                &[],
                &[]
            ),
            None
        );
        let catalog = gmail_slack_files();
        let found = candidates(&catalog, "never delete my emails");
        assert!(found.apps.contains("gmail") && !found.apps.contains("slack"));
        assert!(found.tools.contains("gmail_trash"), "{found:?}");
        assert!(candidates(&catalog, "never go to the moon").is_empty());
    }

    #[test]
    fn covered_keys_are_dropped() {
        let answer = r#"{"keys": ["gmail_trash"], "rule": "never"}"#;
        let text = "never trash my email";
        // A Never rule on the tool or on its app covers it; an Ask rule does not cover never.
        assert_eq!(
            keys_for(text, answer, &[("gmail_trash", RuleValue::Never)], &[]),
            None
        );
        assert_eq!(
            keys_for(text, answer, &[("gmail", RuleValue::Never)], &[]),
            None
        );
        assert!(keys_for(text, answer, &[("gmail", RuleValue::Ask)], &[]).is_some());
        // The tool's own looser rule beats its app's Never rule.
        assert!(
            keys_for(
                text,
                answer,
                &[
                    ("gmail", RuleValue::Never),
                    ("gmail_trash", RuleValue::Allow)
                ],
                &[]
            )
            .is_some()
        );
        // A pending proposal in the same chat covers it too, as does one for the whole app.
        let pending = vec![(vec!["gmail_trash".to_owned()], ProposedRule::Never)];
        assert_eq!(keys_for(text, answer, &[], &pending), None);
        let pending = vec![(vec!["gmail".to_owned()], ProposedRule::Never)];
        assert_eq!(keys_for(text, answer, &[], &pending), None);
        let pending = vec![(vec!["gmail".to_owned()], ProposedRule::Ask)];
        assert!(keys_for(text, answer, &[], &pending).is_some());
        // An app with a tool whose own rule is looser is not covered.
        let catalog = gmail_slack_files();
        let rules: BTreeMap<String, RuleValue> = [
            ("slack".to_owned(), RuleValue::Never),
            ("slack_read_channel".to_owned(), RuleValue::Allow),
        ]
        .into();
        assert!(!is_covered(
            &catalog,
            "slack",
            ProposedRule::Never,
            &rules,
            &[]
        ));
        assert!(is_covered(
            &catalog,
            "slack_post_message",
            ProposedRule::Ask,
            &rules,
            &[]
        ));
    }

    #[test]
    fn answers_are_read_tolerantly() {
        for (text, keys, rule) in [
            (
                r#"{"keys": ["gmail_trash"], "rule": "never"}"#,
                vec!["gmail_trash"],
                Some(ProposedRule::Never),
            ),
            (
                "```json\n{\"keys\": [\"Slack\"], \"rule\": \"Ask\"}\n```",
                vec!["slack"],
                Some(ProposedRule::Ask),
            ),
            (
                "Sure! {'keys': ['files_write'], 'rule': 'ask first'} hope that helps",
                vec!["files_write"],
                Some(ProposedRule::Ask),
            ),
            (
                r#"{"keys": "gmail_trash, gmail_archive"}"#,
                vec!["gmail_trash", "gmail_archive"],
                None,
            ),
            (r#"{"key": "slack", "rule": "maybe"}"#, vec!["slack"], None),
            (r#"["gmail"]"#, vec!["gmail"], None),
            (
                r#"{"keys": [{"key": "gmail"}, 3, null]}"#,
                vec!["gmail"],
                None,
            ),
        ] {
            let answer = parse_answer(text).expect(text);
            assert_eq!(answer.keys, keys, "{text}");
            assert_eq!(answer.rule, rule, "{text}");
        }
        assert_eq!(parse_answer("I can't help with that."), None);
        assert_eq!(parse_answer("{not json at all}"), None);
    }

    #[test]
    fn said_keeps_the_instructions_and_at_most_300_characters() {
        assert_eq!(
            said_of("Thanks for that. Never delete my emails! What time is it?"),
            "Never delete my emails"
        );
        let long = format!("never {}", "x".repeat(400));
        assert_eq!(said_of(&long).chars().count(), 300);
    }

    #[test]
    fn targets_name_apps_and_tools() {
        let catalog = gmail_slack_files();
        assert_eq!(
            catalog.target("gmail_trash"),
            Some(RuleTarget {
                key: "gmail_trash".into(),
                app: "Gmail".into(),
                tool: Some("Trash".into()),
                label: "Gmail > Trash".into(),
            })
        );
        assert_eq!(
            catalog.target("slack").map(|t| t.label),
            Some("Slack".to_owned())
        );
        assert_eq!(catalog.target("nope"), None);
    }

    #[test]
    fn accepting_tightens_and_never_loosens() {
        let catalog = gmail_slack_files();
        let origin = RuleOrigin {
            rule: RuleValue::Never,
            said: "never use Slack".into(),
            at: "2025-01-01T00:00:00+00:00".into(),
            session_id: Some("s1".into()),
        };
        let mut approvals = ApprovalsConfig::default();
        approvals
            .rules
            .insert("slack_read_channel".into(), RuleValue::Allow);
        approvals
            .rules
            .insert("slack_post_message".into(), RuleValue::Never);
        approvals.rules.insert("gmail".into(), RuleValue::Never);
        let saved = tighten(
            &mut approvals,
            &catalog,
            &["slack".to_owned(), "gmail_trash".to_owned()],
            ProposedRule::Never,
            &origin,
        );
        // The app, and its tool whose own Allow would beat it; gmail_trash is already covered.
        assert_eq!(saved, ["slack", "slack_read_channel"]);
        assert_eq!(approvals.rules["slack"], RuleValue::Never);
        assert_eq!(approvals.rules["slack_read_channel"], RuleValue::Never);
        assert!(!approvals.rules.contains_key("gmail_trash"));
        assert_eq!(approvals.rule_origins["slack"], origin);
        assert!(!approvals.rule_origins.contains_key("slack_post_message"));
        // An Ask proposal never loosens a Never rule.
        let saved = tighten(
            &mut approvals,
            &catalog,
            &["slack_post_message".to_owned(), "files".to_owned()],
            ProposedRule::Ask,
            &origin,
        );
        assert_eq!(saved, ["files"]);
        assert_eq!(approvals.rules["slack_post_message"], RuleValue::Never);
        assert_eq!(approvals.rules["files"], RuleValue::Ask);
    }
}
