//! The risk of a call to an MCP tool that runs other tools by slug, such as Composio's
//! `COMPOSIO_MULTI_EXECUTE_TOOL` (contract: "For an MCP tool that runs other tools by slug ...
//! each slug's verb sets the risk"). Pure: it reads only the call's arguments or the tool's
//! input schema.
//!
//! A slug such as `GMAIL_SEND_EMAIL` is split into words at anything that is not a letter or
//! a digit and where a lower-case letter meets an upper-case one (`gmail-send-email`,
//! `github.list_issues` and `gmailSendEmail` all work). `LOOK UP` counts as `LOOKUP` and
//! `FOLLOW UP` as `FOLLOWUP`. Then:
//!
//! - The app name is the first segment (everything before the first separator, e.g. `GMAIL`
//!   or `SendGrid`); a slug with no separator takes its first camel-case word as the app name
//!   (`gmail` in `gmailSendEmail`), and a single word is only a verb (`search`).
//! - The first segment is read as the verb instead when it is a known verb and no later word
//!   is a decisive verb (a look-up verb or a word that is only a verb): `send_email`,
//!   `get_comment`. A first segment that is a verb that changes things still counts even when
//!   it is taken as the app name (`delete_and_get`, `run_query` are not look-ups): an app
//!   named after such a verb is rare, a look-up that is not one is worse.
//! - The first known verb decides (look-up verbs read; `VERBS` lists the others);
//!   a slug with no known verb counts as write.
//! - A later verb that changes things raises it. Many such words are also nouns (`MESSAGE`,
//!   `POST`, `COMMENT`, `LABEL`, `RUN`, `OPEN`): those raise only right after `AND`, `THEN`,
//!   `OR`, `PLUS` or `ALSO`, so `GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID` and
//!   `GITHUB_GET_A_WORKFLOW_RUN` stay look-ups while `GMAIL_FETCH_AND_REPLY` sends. Words
//!   that are only verbs (`DELETE`, `CREATE`, `EXECUTE`) raise wherever they come.
//! - The decision needs the exact word, except that the first verb may carry an `-S`/`-ES`
//!   ending when the word is only a verb (`SLACK_SENDS_A_MESSAGE`), and `UN` before a verb
//!   that changes things is a write (`UNTRASH`, `UNSUBSCRIBE`; `UNREAD` is no verb).
//!
//! A word that is both a noun and a verb decides when it is the first known word, so noun-first
//! slugs such as `TWITTER_POST_LOOKUP_BY_POST_ID` count as send: it errs towards asking.
//! The server's own hints play no part here. A call is read only when every slug in it is a
//! look-up.

use serde_json::{Map, Value};

use sentient_core::domain::tool_info::Risk;

/// How deep below the arguments (or the schema) slugs are looked for; arrays count as a level.
/// `{"tools": [{"tool_slug": ...}]}` sits at depth 2.
const MAX_DEPTH: usize = 6;
/// Keys whose string value is always a slug.
const SLUG_KEYS: [&str; 4] = ["tool_slug", "toolSlug", "action_slug", "actionSlug"];
/// A plain `slug` key is a slug only beside one of these, so a blog post's `slug` is not one.
const ARGUMENT_KEYS: [&str; 5] = ["arguments", "args", "params", "parameters", "input"];
/// A word that is also a noun raises the risk only right after one of these.
const CONJUNCTIONS: [&str; 5] = ["AND", "THEN", "OR", "PLUS", "ALSO"];
/// Two words that read as one.
const PHRASES: [(&str, &str, &str); 2] = [("LOOK", "UP", "LOOKUP"), ("FOLLOW", "UP", "FOLLOWUP")];

/// Whether a known word is only a verb or also commonly a noun in slugs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Only a verb: raises the risk wherever it comes, may carry an `-S` ending.
    Verb,
    /// Also a noun (`MESSAGE`, `RUN`, `LIST`): decides only as the first verb, raises only
    /// right after a conjunction.
    AlsoNoun,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    risk: Risk,
    kind: Kind,
}

/// The verbs this module knows, upper case and apart by spaces, with their risk and kind. The
/// look-up verbs are the contract's list; the others extend it. Deleting counts as send, as
/// the contract says, and so do publishing, notifying and paying: they leave the computer.
const VERBS: [(&str, Risk, Kind); 8] = [
    (
        "GET FETCH SEARCH FIND READ RETRIEVE DESCRIBE",
        Risk::Read,
        Kind::Verb,
    ),
    ("LIST QUERY VIEW LOOKUP COUNT", Risk::Read, Kind::AlsoNoun),
    (
        "SEND RESEND FORWARD DELETE REMOVE TRASH NOTIFY PUBLISH REPOST BROADCAST \
         ANNOUNCE SUBMIT RESPOND DESTROY ERASE PURGE WIPE PAY PURCHASE BUY",
        Risk::Send,
        Kind::Verb,
    ),
    (
        "REPLY POST SHARE INVITE COMMENT MESSAGE EMAIL TWEET RETWEET PUSH TRANSFER \
         FOLLOWUP",
        Risk::Send,
        Kind::AlsoNoun,
    ),
    ("EXECUTE EXEC INVOKE EVAL", Risk::Exec, Kind::Verb),
    ("RUN BASH SHELL WORKBENCH", Risk::Exec, Kind::AlsoNoun),
    (
        "CREATE UPDATE EDIT MODIFY PATCH PUT SET ADD INSERT APPEND SAVE WRITE REPLACE \
         UPSERT MOVE RENAME COPY DUPLICATE RESTORE CLOSE REOPEN ARCHIVE MARK STAR \
         ASSIGN REASSIGN MERGE APPROVE REJECT ENABLE DISABLE CANCEL ACCEPT DECLINE \
         RESCHEDULE FOLLOW SUBSCRIBE REACT MUTE RESET REVOKE GRANT CONFIGURE INSTALL \
         DISCONNECT RESOLVE TOGGLE CLEAR UNDO REVERT KILL TERMINATE RESTART REBOOT \
         DISPATCH BAN KICK RSVP REGISTER UPVOTE DOWNVOTE",
        Risk::Write,
        Kind::Verb,
    ),
    (
        "OPEN LABEL TAG PIN START STOP SCHEDULE LIKE UPLOAD COMMIT IMPORT DRAFT \
         COMPLETE EMPTY BLOCK LOCK LEAVE JOIN CONNECT SYNC TRIGGER DEPLOY CHANGE LINK \
         MAKE BOOK VOTE",
        Risk::Write,
        Kind::AlsoNoun,
    ),
];

/// A known word, exact (upper case), or `UN` before a verb that changes things.
fn known_word(word: &str) -> Option<Known> {
    table_word(word).or_else(|| undoing(word))
}

/// A word in `VERBS`.
fn table_word(word: &str) -> Option<Known> {
    VERBS
        .iter()
        .find(|(words, _, _)| words.split_ascii_whitespace().any(|known| known == word))
        .map(|&(_, risk, kind)| Known { risk, kind })
}

/// `UN` before a verb that changes things (`UNTRASH`, `UNFOLLOW`, `UNLOCK`) changes things;
/// `UNREAD` is no verb.
fn undoing(word: &str) -> Option<Known> {
    let undone = word.strip_prefix("UN").and_then(table_word)?;
    (undone.risk > Risk::Read).then_some(Known {
        risk: Risk::Write,
        kind: Kind::Verb,
    })
}

/// A word as the first verb: exact, or with an `-S`, `-ES` or `-IES` ending on a word that is
/// only a verb (`SENDS`, `FETCHES`, `MODIFIES`; not `MESSAGES` or `RUNS`).
fn verb_form(word: &str) -> Option<Known> {
    if let Some(known) = known_word(word) {
        return Some(known);
    }
    let mut stems = Vec::with_capacity(3);
    if let Some(stem) = word.strip_suffix("IES") {
        stems.push(format!("{stem}Y"));
    }
    if let Some(stem) = word.strip_suffix("ES") {
        stems.push(stem.to_owned());
    }
    if let Some(stem) = word.strip_suffix('S') {
        stems.push(stem.to_owned());
    }
    stems
        .iter()
        .filter(|stem| stem.len() >= 2)
        .filter_map(|stem| known_word(stem))
        .find(|known| known.kind == Kind::Verb)
}

/// A verb that settles what the slug does even after an app name that is itself a verb: a
/// look-up verb or a word that is only a verb.
fn is_decisive(word: &str) -> bool {
    verb_form(word).is_some_and(|known| known.risk == Risk::Read || known.kind == Kind::Verb)
}

/// A slug's words, upper case, each with the index of the separated segment it came from.
fn words(slug: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (segment, part) in slug
        .split(|c: char| !c.is_alphanumeric())
        .filter(|part| !part.is_empty())
        .enumerate()
    {
        let mut current = String::new();
        let mut previous_lower = false;
        for c in part.chars() {
            if c.is_uppercase() && previous_lower && !current.is_empty() {
                out.push((std::mem::take(&mut current), segment));
            }
            previous_lower = c.is_lowercase();
            current.extend(c.to_uppercase());
        }
        if !current.is_empty() {
            out.push((current, segment));
        }
    }
    join_phrases(out)
}

/// `LOOK UP` becomes `LOOKUP`, `FOLLOW UP` becomes `FOLLOWUP`, in the first word's segment.
fn join_phrases(words: Vec<(String, usize)>) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::with_capacity(words.len());
    for (word, segment) in words {
        if let Some((last, _)) = out.last_mut()
            && let Some((_, _, joined)) = PHRASES
                .iter()
                .find(|(first, second, _)| *first == last.as_str() && *second == word)
        {
            *last = (*joined).to_owned();
            continue;
        }
        out.push((word, segment));
    }
    out
}

/// The risk of a run of words: the first known verb, raised by later verbs that change things.
fn judge(words: &[&str]) -> Risk {
    let Some((first, base)) = words
        .iter()
        .enumerate()
        .find_map(|(i, word)| verb_form(word).map(|known| (i, known.risk)))
    else {
        return Risk::Write;
    };
    let mut risk = base;
    for (i, word) in words.iter().enumerate().skip(first + 1) {
        let Some(known) = known_word(word) else {
            continue;
        };
        let after_conjunction = words
            .get(i - 1)
            .is_some_and(|previous| CONJUNCTIONS.contains(previous));
        if known.risk > Risk::Read && (known.kind == Kind::Verb || after_conjunction) {
            risk = risk.max(known.risk);
        }
    }
    risk
}

/// The risk of one slug by its verbs.
pub fn risk_of_slug(slug: &str) -> Risk {
    let words = words(slug);
    let Some((_, first_segment)) = words.first() else {
        return Risk::Write;
    };
    let separated = words.iter().any(|(_, segment)| segment != first_segment);
    let app_len = if separated {
        words
            .iter()
            .take_while(|(_, segment)| segment == first_segment)
            .count()
    } else {
        1
    };
    let all: Vec<&str> = words.iter().map(|(word, _)| word.as_str()).collect();
    let (app, rest) = all.split_at(app_len.min(all.len()));
    if rest.is_empty() {
        return judge(&all);
    }
    let app_is_verb = app.iter().any(|word| verb_form(word).is_some());
    if app_is_verb && !rest.iter().any(|word| is_decisive(word)) {
        return judge(&all);
    }
    let floor = match app {
        [only] => verb_form(only)
            .map(|known| known.risk)
            .filter(|risk| *risk > Risk::Read),
        _ => None,
    };
    let risk = judge(rest);
    floor.map_or(risk, |floor| risk.max(floor))
}

/// The slugs one object names itself.
fn own_slugs(map: &Map<String, Value>, out: &mut Vec<String>) {
    let beside_arguments = ARGUMENT_KEYS.iter().any(|key| map.contains_key(*key));
    let keys = SLUG_KEYS
        .iter()
        .copied()
        .chain(beside_arguments.then_some("slug"));
    for key in keys {
        if let Some(slug) = map.get(key).and_then(Value::as_str).map(str::trim)
            && !slug.is_empty()
        {
            out.push(slug.to_owned());
        }
    }
}

fn collect_slugs(value: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            own_slugs(map, out);
            for child in map.values() {
                collect_slugs(child, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_slugs(item, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Every slug a call names (tool_slug, action_slug, slug beside arguments), in order.
///
/// An object's own slugs come before those nested in it, array items in order, an object's
/// fields in the map's order. Empty slugs, non-string values and objects more than
/// `MAX_DEPTH` (6) levels down are left out; repeats are kept.
pub fn slugs_in(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_slugs(args, 0, &mut out);
    out
}

/// The call's risk from its slugs: the highest slug risk; `None` when the call names no slug.
pub fn slug_risk(args: &Value) -> Option<Risk> {
    slugs_in(args).iter().map(|slug| risk_of_slug(slug)).max()
}

/// Whether a schema's property names take a slug.
fn names_slugs(properties: &Map<String, Value>) -> bool {
    SLUG_KEYS.iter().any(|key| properties.contains_key(*key))
        || (properties.contains_key("slug")
            && ARGUMENT_KEYS
                .iter()
                .any(|key| properties.contains_key(*key)))
}

fn schema_takes_slugs(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Some(node) = schema.as_object() else {
        return false;
    };
    let referenced = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer));
    if referenced.is_some_and(|target| schema_takes_slugs(target, root, depth + 1)) {
        return true;
    }
    let properties = node.get("properties").and_then(Value::as_object);
    if properties.is_some_and(names_slugs) {
        return true;
    }
    let mut children: Vec<&Value> = properties
        .map(|properties| properties.values().collect())
        .unwrap_or_default();
    for key in ["items", "prefixItems", "anyOf", "oneOf", "allOf"] {
        match node.get(key) {
            Some(Value::Array(schemas)) => children.extend(schemas),
            Some(single @ Value::Object(_)) => children.push(single),
            _ => {}
        }
    }
    children
        .into_iter()
        .any(|child| schema_takes_slugs(child, root, depth + 1))
}

/// Whether a tool's input schema (JSON schema) takes slugs: a property named
/// tool_slug/action_slug, or slug with arguments, at top level or inside an array of objects
/// ("tools"/"actions" items). Used to mark an MCP tool `per_call`.
///
/// Nested object properties, `anyOf`/`oneOf`/`allOf` and local `$ref`s (`#/$defs/...`) are
/// followed too, at most `MAX_DEPTH` (6) levels deep.
pub fn takes_slugs(input_schema: &Value) -> bool {
    schema_takes_slugs(input_schema, input_schema, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const R: Risk = Risk::Read;
    const W: Risk = Risk::Write;
    const S: Risk = Risk::Send;
    const X: Risk = Risk::Exec;

    const SLUGS: &[(&str, Risk)] = &[
        // Look-ups.
        ("GITHUB_LIST_REPOSITORIES", R),
        ("GMAIL_FETCH_EMAILS", R),
        ("NOTION_SEARCH_PAGES", R),
        ("GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", R),
        ("GMAIL_GET_LABEL", R),
        ("REDDIT_GET_POST", R),
        ("GITHUB_GET_A_WORKFLOW_RUN", R),
        ("GITHUB_LIST_WORKFLOW_RUNS", R),
        ("GITHUB_LIST_OPEN_ISSUES", R),
        ("GOOGLECALENDAR_FIND_FREE_SLOTS", R),
        ("NOTION_QUERY_DATABASE", R),
        ("SLACK_FETCH_CONVERSATION_HISTORY", R),
        ("SLACK_FETCHES_CONVERSATION_HISTORY", R),
        ("GITHUB_PULLS_LIST", R),
        ("SALESFORCE_DESCRIBE_OBJECT", R),
        ("HUBSPOT_COUNT_CONTACTS", R),
        ("GMAIL_LOOK_UP_CONTACT", R),
        ("CONTACTS_LOOKUP_PERSON", R),
        ("DRIVE_VIEW_FILE", R),
        ("DOCS_READ_DOCUMENT", R),
        ("JIRA_RETRIEVE_ISSUE", R),
        ("TWITTER_RECENT_SEARCH", R),
        ("GMAIL_GET_UNREAD_COUNT", R),
        ("GMAIL_GET_MESSAGE_AND_THREAD", R),
        ("github.list_issues", R),
        ("gmail-fetch-emails", R),
        ("slackGetMessage", R),
        ("SendGrid_list_contacts", R),
        ("get_comment", R),
        ("search", R),
        ("look_up", R),
        // Changes.
        ("GOOGLECALENDAR_CREATE_EVENT", W),
        ("GITHUB_GET_ISSUE_AND_CLOSE", W),
        ("GITHUB_LIST_ISSUES_THEN_LABEL", W),
        ("NOTION_FIND_OR_CREATE_PAGE", W),
        ("GMAIL_GET_THREAD_MODIFY_LABELS", W),
        ("GMAIL_FOO", W),
        ("GMAIL", W),
        ("gmail-foo-bar", W),
        ("", W),
        ("___", W),
        ("GMAIL_CREATE_EMAIL_DRAFT", W),
        ("GMAIL_ADD_LABEL_TO_EMAIL", W),
        ("GITHUB_ISSUES_CREATE", W),
        ("GITHUB_STAR_A_REPOSITORY", W),
        ("GITHUB_OPEN_ISSUE", W),
        ("GMAIL_MARK_AS_READ", W),
        ("GMAIL_UNTRASH_MESSAGE", W),
        ("TODOIST_UNARCHIVE_PROJECT", W),
        ("SLACK_UPDATES_A_MESSAGE", W),
        ("GOOGLECALENDAR_MODIFIES_EVENT", W),
        ("googleCalendar_createEvent", W),
        ("MAKE_LIST_SCENARIOS", W),
        // Sends.
        ("GMAIL_SEND_EMAIL", S),
        ("gmail-send-email", S),
        ("gmailSendEmail", S),
        ("sendEmail", S),
        ("SLACK_DELETE_MESSAGE", S),
        ("GMAIL_LIST_AND_DELETE", S),
        ("GMAIL_BATCH_DELETE_MESSAGES", S),
        ("SLACK_CHAT_POST_MESSAGE", S),
        ("SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", S),
        ("GMAIL_REPLY_TO_THREAD", S),
        ("GMAIL_FETCH_AND_REPLY", S),
        ("GMAIL_MOVE_TO_TRASH", S),
        ("SLACK_INVITE_USERS_TO_CHANNEL", S),
        ("GOOGLEDRIVE_SHARE_FILE", S),
        ("GITHUB_GET_ISSUE_AND_COMMENT", S),
        ("WORDPRESS_PUBLISH_POST", S),
        ("REDDIT_POST_COMMENT", S),
        ("TWITTER_POST_LOOKUP_BY_POST_ID", S),
        ("delete_and_get", S),
        ("CRM_FIND_CONTACT_AND_FOLLOW_UP", S),
        // Runs code.
        ("CODEINTERPRETER_EXECUTE_CODE", X),
        ("CODEINTERPRETER_RUN_TERMINAL_CMD", X),
        ("GITHUB_FIND_WORKFLOW_AND_RUN", X),
        ("AWSLAMBDA_INVOKE_FUNCTION", X),
        ("COMPOSIO_REMOTE_BASH_TOOL", X),
        ("GMAIL_SEND_EMAIL_AND_EXECUTE_SCRIPT", X),
        ("run_query", X),
        ("sql.runQuery", X),
    ];

    #[test]
    fn slug_table() {
        let wrong: Vec<String> = SLUGS
            .iter()
            .filter(|(slug, want)| risk_of_slug(slug) != *want)
            .map(|(slug, want)| format!("{slug}: got {:?}, want {want:?}", risk_of_slug(slug)))
            .collect();
        assert!(SLUGS.len() >= 40);
        assert_eq!(wrong, Vec::<String>::new());
    }

    #[test]
    fn the_contract_verbs() {
        let read = [
            "GET", "LIST", "FETCH", "SEARCH", "FIND", "READ", "RETRIEVE", "QUERY", "VIEW",
            "DESCRIBE", "LOOKUP", "COUNT",
        ];
        let send = [
            "SEND", "REPLY", "FORWARD", "POST", "DELETE", "REMOVE", "TRASH", "SHARE", "INVITE",
            "PUBLISH", "COMMENT", "MESSAGE", "NOTIFY", "EMAIL",
        ];
        let exec = ["EXECUTE", "RUN"];
        let write = [
            "CREATE",
            "UPDATE",
            "EDIT",
            "MODIFY",
            "PATCH",
            "PUT",
            "SET",
            "ADD",
            "INSERT",
            "UPLOAD",
            "MOVE",
            "RENAME",
            "CLOSE",
            "OPEN",
            "ARCHIVE",
            "MARK",
            "STAR",
            "LABEL",
            "ASSIGN",
            "MERGE",
            "APPROVE",
            "ENABLE",
            "DISABLE",
            "START",
            "STOP",
            "SCHEDULE",
            "CANCEL",
            "ACCEPT",
            "DECLINE",
            "LIKE",
            "FOLLOW",
            "SUBSCRIBE",
        ];
        let groups: [(&[&str], Risk); 4] = [(&read, R), (&send, S), (&exec, X), (&write, W)];
        let mut wrong = Vec::new();
        for (verbs, want) in groups {
            for verb in verbs {
                for slug in [
                    format!("APP_{verb}_THING"),
                    format!("app-{}-thing", verb.to_lowercase()),
                    format!("{}_thing", verb.to_lowercase()),
                ] {
                    let got = risk_of_slug(&slug);
                    if got != want {
                        wrong.push(format!("{slug}: got {got:?}, want {want:?}"));
                    }
                }
            }
        }
        assert_eq!(wrong, Vec::<String>::new());
    }

    #[test]
    fn each_known_word_has_one_meaning() {
        let mut seen = std::collections::BTreeMap::new();
        let mut twice = Vec::new();
        for (words, risk, kind) in VERBS {
            for word in words.split_ascii_whitespace() {
                if word.chars().any(|c| !c.is_ascii_uppercase()) {
                    twice.push(format!("{word}: not upper case"));
                }
                if let Some(first) = seen.insert(word, (risk, kind)) {
                    twice.push(format!("{word}: {first:?} and {:?}", (risk, kind)));
                }
            }
        }
        assert_eq!(twice, Vec::<String>::new());
        assert!(seen.len() > 100, "{}", seen.len());
    }

    #[test]
    fn a_later_change_raises_a_look_up() {
        for (verb, want) in [("CREATE", W), ("DELETE", S), ("EXECUTE", X)] {
            assert_eq!(
                risk_of_slug(&format!("APP_GET_ITEM_{verb}")),
                want,
                "{verb}"
            );
        }
        // A word that is also a noun raises only after a conjunction.
        assert_eq!(risk_of_slug("APP_GET_ITEM_MESSAGE"), R);
        assert_eq!(risk_of_slug("APP_GET_ITEM_AND_MESSAGE"), S);
        assert_eq!(risk_of_slug("APP_GET_ITEM_THEN_RUN"), X);
    }

    #[test]
    fn a_later_look_up_does_not_lower() {
        assert_eq!(risk_of_slug("APP_DELETE_AND_GET"), S);
        assert_eq!(risk_of_slug("APP_CREATE_THEN_LIST"), W);
        assert_eq!(risk_of_slug("APP_RUN_AND_FETCH"), X);
    }

    #[test]
    fn plurals_of_nouns_are_not_verbs() {
        assert_eq!(risk_of_slug("APP_MESSAGES"), W);
        assert_eq!(risk_of_slug("APP_MESSAGES_GET"), R);
        assert_eq!(risk_of_slug("APP_RUNS_LIST"), R);
        assert_eq!(risk_of_slug("APP_DELETES_ITEM"), S);
    }

    #[test]
    fn the_tool_slug_shape() {
        let args = json!({"tool_slug": "GMAIL_SEND_EMAIL", "arguments": {"to": "a@b.c"}});
        assert_eq!(slugs_in(&args), ["GMAIL_SEND_EMAIL"]);
        assert_eq!(slug_risk(&args), Some(S));
    }

    #[test]
    fn the_action_slug_shape() {
        let args = json!({"action_slug": "GITHUB_LIST_REPOSITORIES", "input": {}});
        assert_eq!(slugs_in(&args), ["GITHUB_LIST_REPOSITORIES"]);
        assert_eq!(slug_risk(&args), Some(R));
        let camel = json!({"actionSlug": "GITHUB_CREATE_AN_ISSUE"});
        assert_eq!(slug_risk(&camel), Some(W));
    }

    #[test]
    fn a_plain_slug_needs_arguments_beside_it() {
        for key in ARGUMENT_KEYS {
            let args = json!({"slug": "NOTION_SEARCH_PAGES", key: {}});
            assert_eq!(slugs_in(&args), ["NOTION_SEARCH_PAGES"], "{key}");
        }
        let post = json!({"slug": "my-first-post", "title": "Hello"});
        assert_eq!(slugs_in(&post), Vec::<String>::new());
        assert_eq!(slug_risk(&post), None);
    }

    #[test]
    fn multi_execute_lists_in_order() {
        let args = json!({
            "tools": [
                {"tool_slug": "GMAIL_FETCH_EMAILS", "arguments": {}},
                {"tool_slug": "GITHUB_LIST_REPOSITORIES", "arguments": {}},
                {"tool_slug": "SLACK_DELETE_MESSAGE", "arguments": {}},
            ],
            "thought": "tidy up",
        });
        assert_eq!(
            slugs_in(&args),
            [
                "GMAIL_FETCH_EMAILS",
                "GITHUB_LIST_REPOSITORIES",
                "SLACK_DELETE_MESSAGE"
            ]
        );
        assert_eq!(slug_risk(&args), Some(S));
    }

    #[test]
    fn a_call_is_read_only_when_every_slug_looks_up() {
        let reads = json!({"actions": [
            {"action_slug": "GMAIL_FETCH_EMAILS", "params": {}},
            {"action_slug": "NOTION_SEARCH_PAGES", "params": {}},
        ]});
        assert_eq!(slug_risk(&reads), Some(R));
        let one_write = json!({"actions": [
            {"action_slug": "GMAIL_FETCH_EMAILS", "params": {}},
            {"action_slug": "GOOGLECALENDAR_CREATE_EVENT", "params": {}},
        ]});
        assert_eq!(slug_risk(&one_write), Some(W));
    }

    #[test]
    fn nested_multi_execute() {
        let args = json!({
            "plan": {"steps": [
                {"tools": [{"tool_slug": "GITHUB_GET_ISSUE", "arguments": {}}]},
                {"tools": [{"tool_slug": "CODEINTERPRETER_EXECUTE_CODE", "arguments": {}}]},
            ]},
        });
        assert_eq!(
            slugs_in(&args),
            ["GITHUB_GET_ISSUE", "CODEINTERPRETER_EXECUTE_CODE"]
        );
        assert_eq!(slug_risk(&args), Some(X));
    }

    #[test]
    fn a_slug_inside_another_calls_arguments_counts_after_it() {
        let args = json!({
            "tool_slug": "COMPOSIO_GET_TOOL",
            "arguments": {"tool_slug": "GMAIL_SEND_EMAIL"},
        });
        assert_eq!(slugs_in(&args), ["COMPOSIO_GET_TOOL", "GMAIL_SEND_EMAIL"]);
        assert_eq!(slug_risk(&args), Some(S));
    }

    #[test]
    fn no_slug_is_none() {
        for args in [
            json!({}),
            json!({"query": "GMAIL_SEND_EMAIL"}),
            json!({"tool_slugs": ["GMAIL_SEND_EMAIL"]}),
            json!(["GMAIL_SEND_EMAIL"]),
            json!("GMAIL_SEND_EMAIL"),
            json!(null),
        ] {
            assert_eq!(slugs_in(&args), Vec::<String>::new(), "{args}");
            assert_eq!(slug_risk(&args), None, "{args}");
        }
    }

    #[test]
    fn non_string_and_empty_slugs_are_ignored() {
        for args in [
            json!({"tool_slug": 5, "arguments": {}}),
            json!({"tool_slug": ["GMAIL_SEND_EMAIL"], "arguments": {}}),
            json!({"action_slug": true}),
            json!({"slug": null, "arguments": {}}),
            json!({"tool_slug": "   ", "arguments": {}}),
        ] {
            assert_eq!(slug_risk(&args), None, "{args}");
        }
        let mixed = json!({"tools": [
            {"tool_slug": {"name": "x"}},
            {"tool_slug": " GMAIL_LIST_THREADS ", "arguments": {}},
        ]});
        assert_eq!(slugs_in(&mixed), ["GMAIL_LIST_THREADS"]);
    }

    /// `{"tool_slug": slug}` wrapped in `levels` single-key objects: at depth `levels`.
    fn nested(levels: usize, slug: &str) -> Value {
        (0..levels).fold(
            json!({"tool_slug": slug}),
            |inner, _| json!({"next": inner}),
        )
    }

    #[test]
    fn the_depth_is_bounded() {
        assert_eq!(slugs_in(&nested(MAX_DEPTH, "A_GET_X")), ["A_GET_X"]);
        assert_eq!(
            slugs_in(&nested(MAX_DEPTH + 1, "A_GET_X")),
            Vec::<String>::new()
        );
        assert_eq!(slug_risk(&nested(MAX_DEPTH + 1, "A_DELETE_X")), None);
        let in_arrays = json!([[[{"tool_slug": "A_GET_X"}]]]);
        assert_eq!(slugs_in(&in_arrays), ["A_GET_X"]);
        let too_deep = json!([[[[[[[{"tool_slug": "A_GET_X"}]]]]]]]);
        assert_eq!(slugs_in(&too_deep), Vec::<String>::new());
    }

    #[test]
    fn schema_with_a_top_level_slug() {
        let tool_slug = json!({"type": "object", "properties": {
            "tool_slug": {"type": "string"}, "arguments": {"type": "object"},
        }});
        assert!(takes_slugs(&tool_slug));
        let action_slug = json!({"type": "object", "properties": {"action_slug": {}}});
        assert!(takes_slugs(&action_slug));
        let slug_with_params = json!({"properties": {"slug": {}, "params": {}}});
        assert!(takes_slugs(&slug_with_params));
    }

    #[test]
    fn schema_with_slugs_in_array_items() {
        let tools = json!({"type": "object", "properties": {"tools": {
            "type": "array",
            "items": {"type": "object", "properties": {
                "tool_slug": {"type": "string"}, "arguments": {"type": "object"},
            }},
        }}});
        assert!(takes_slugs(&tools));
        let actions = json!({"properties": {"actions": {"type": "array", "items": {
            "anyOf": [{"properties": {"slug": {}, "arguments": {}}}],
        }}}});
        assert!(takes_slugs(&actions));
    }

    #[test]
    fn schema_with_slugs_behind_a_ref() {
        let schema = json!({
            "type": "object",
            "properties": {"tools": {"type": "array", "items": {"$ref": "#/$defs/Call"}}},
            "$defs": {"Call": {"properties": {"tool_slug": {}, "arguments": {}}}},
        });
        assert!(takes_slugs(&schema));
        let dangling = json!({
            "properties": {"tools": {"type": "array", "items": {"$ref": "#/$defs/Missing"}}},
            "$defs": {"Call": {"properties": {"tool_slug": {}}}},
        });
        assert!(!takes_slugs(&dangling));
    }

    #[test]
    fn schema_without_slugs() {
        for schema in [
            json!({"type": "object", "properties": {"query": {"type": "string"}}}),
            json!({"properties": {"slug": {"type": "string"}, "title": {}}}),
            json!({"properties": {"tool_slugs": {"type": "array", "items": {"type": "string"}}}}),
            json!({"type": "object"}),
            json!(true),
            json!(null),
            json!({"$ref": "#", "properties": {"next": {"$ref": "#"}}}),
        ] {
            assert!(!takes_slugs(&schema), "{schema}");
        }
    }

    #[test]
    fn schema_depth_is_bounded() {
        let deep = (0..=MAX_DEPTH).fold(
            json!({"properties": {"tool_slug": {}}}),
            |inner, _| json!({"properties": {"next": inner}}),
        );
        assert!(!takes_slugs(&deep));
        let shallow = (0..MAX_DEPTH).fold(
            json!({"properties": {"tool_slug": {}}}),
            |inner, _| json!({"properties": {"next": inner}}),
        );
        assert!(takes_slugs(&shallow));
    }
}
