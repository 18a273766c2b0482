//! A raw RFC 5322 message as the email item JSON: `{id, thread_id, from, sender_email, to, cc,
//! subject, snippet, body, date, labels, url, message_id, headers, mailbox}`.

use mail_parser::{Address, HeaderValue, MessageParser, PartType};
use serde_json::{Map, Value, json};

/// Characters of the snippet (before the ellipsis).
pub const SNIPPET_CHARS: usize = 200;

/// Headers kept in the item's `headers` (lower-cased names), for follow-up rules.
pub const KEPT_HEADERS: [&str; 5] = [
    "list-unsubscribe",
    "list-id",
    "precedence",
    "auto-submitted",
    "content-type",
];

/// Parses `raw` into the item JSON. `id` is the UID, `labels` the folder plus `UNREAD` (no
/// `\Seen`) and `STARRED` (`\Flagged`), `body` the plain text (else the HTML as text) cut to
/// `max_body_chars`. A message that can't be parsed still gives an item, with empty fields.
pub fn item_from_raw(
    raw: &[u8],
    uid: u32,
    folder: &str,
    flags_seen: bool,
    flags_flagged: bool,
    max_body_chars: usize,
) -> Value {
    let mut labels = vec![Value::String(folder.to_string())];
    if !flags_seen {
        labels.push(Value::String("UNREAD".into()));
    }
    if flags_flagged {
        labels.push(Value::String("STARRED".into()));
    }
    let id = uid.to_string();

    let Some(message) = MessageParser::default().parse(raw) else {
        return json!({
            "id": id, "thread_id": id, "from": "", "sender_email": "", "to": "", "cc": "",
            "subject": "", "snippet": "", "body": "", "date": null, "labels": labels,
            "url": null, "message_id": null, "headers": {}, "mailbox": folder,
        });
    };

    let message_id = message.message_id().map(bracketed);
    let thread_root = first_id(message.references()).or_else(|| first_id(message.in_reply_to()));
    let thread_id = thread_root
        .or_else(|| message_id.clone())
        .unwrap_or_else(|| id.clone());

    let (from, sender_email) = match message.from().and_then(Address::first) {
        Some(addr) => (
            format_addr(addr.name(), addr.address()),
            addr.address().unwrap_or("").to_string(),
        ),
        None => (String::new(), String::new()),
    };

    let date = message
        .date()
        .and_then(|d| chrono::DateTime::from_timestamp(d.to_timestamp(), 0))
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));

    let text = body_text(&message);
    let snippet = snippet(&text, SNIPPET_CHARS);
    let body = cap_chars(&text, max_body_chars);

    let mut headers = Map::new();
    for name in KEPT_HEADERS {
        if let Some(value) = message.header_raw(name) {
            headers.insert(name.to_string(), Value::String(unfold(value)));
        }
    }

    json!({
        "id": id,
        "thread_id": thread_id,
        "from": from,
        "sender_email": sender_email,
        "to": address_list(message.to()),
        "cc": address_list(message.cc()),
        "subject": message.subject().unwrap_or("").trim(),
        "snippet": snippet,
        "body": body,
        "date": date,
        "labels": labels,
        "url": null,
        "message_id": message_id,
        "headers": headers,
        "mailbox": folder,
    })
}

/// `<id>` for a Message-ID the parser gave without brackets.
fn bracketed(id: &str) -> String {
    let id = id.trim().trim_start_matches('<').trim_end_matches('>');
    format!("<{id}>")
}

/// The first message ID of References or In-Reply-To (the thread's root).
fn first_id(value: &HeaderValue<'_>) -> Option<String> {
    match value {
        HeaderValue::Text(id) if !id.trim().is_empty() => Some(bracketed(id)),
        HeaderValue::TextList(ids) => ids
            .iter()
            .find(|id| !id.trim().is_empty())
            .map(|id| bracketed(id)),
        _ => None,
    }
}

fn format_addr(name: Option<&str>, address: Option<&str>) -> String {
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    match (name, address) {
        (Some(n), Some(a)) => format!("{n} <{a}>"),
        (None, Some(a)) => a.to_string(),
        (Some(n), None) => n.to_string(),
        (None, None) => String::new(),
    }
}

/// `A <a@x>, b@y` for an address header (groups flattened).
fn address_list(address: Option<&Address<'_>>) -> String {
    let Some(address) = address else {
        return String::new();
    };
    address
        .iter()
        .map(|a| format_addr(a.name(), a.address()))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The readable text: the text/plain body parts, else the first HTML part as text.
fn body_text(message: &mail_parser::Message<'_>) -> String {
    let plain: Vec<&str> = message
        .text_bodies()
        .filter_map(|p| match &p.body {
            PartType::Text(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect();
    let text = if plain.is_empty() {
        message
            .html_bodies()
            .find_map(|p| match &p.body {
                PartType::Html(h) => Some(html_to_text(h)),
                _ => None,
            })
            .unwrap_or_default()
    } else {
        plain.join("\n\n")
    };
    tidy(&text)
}

/// Line ends as `\n`, no trailing spaces, at most one empty line in a row, trimmed.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.replace("\r\n", "\n").replace('\r', "\n").lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// The text collapsed to single spaces, at most `max` characters (cut at a word, with `…`).
pub fn snippet(text: &str, max: usize) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let cut: String = collapsed.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(p) if p > cut.len() / 2 => cut[..p].to_string(),
        _ => cut,
    };
    format!("{}…", cut.trim_end())
}

/// At most `max` characters; a cut text ends with `…` (counted in `max`).
pub fn cap_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// A header's raw value on one line.
fn unfold(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// HTML as plain text, crudely: no scripts, styles or comments; block ends become line breaks;
/// tags dropped; the common entities decoded.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    let bytes = html.as_bytes();
    while i < bytes.len() {
        if lower[i..].starts_with("<!--") {
            i = lower[i..].find("-->").map_or(bytes.len(), |p| i + p + 3);
            continue;
        }
        if bytes[i] == b'<' {
            let Some(end) = html[i..].find('>').map(|p| i + p) else {
                break;
            };
            let tag = lower[i + 1..end].trim_start_matches('/').trim();
            let name: String = tag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let closing = lower[i + 1..end].trim_start().starts_with('/');
            if !closing && (name == "script" || name == "style" || name == "head") {
                let close = format!("</{name}");
                i = lower[end..]
                    .find(&close)
                    .and_then(|p| lower[end + p..].find('>').map(|q| end + p + q + 1))
                    .unwrap_or(bytes.len());
                continue;
            }
            match name.as_str() {
                "br" | "p" | "div" | "tr" | "li" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                | "blockquote" | "table" | "ul" | "ol" | "hr" | "section" | "article"
                | "header" | "footer" => out.push('\n'),
                "td" | "th" if closing => out.push(' '),
                _ => {}
            }
            i = end + 1;
            continue;
        }
        let next = html[i..].find('<').map_or(bytes.len(), |p| i + p);
        decode_entities(&html[i..next], &mut out);
        i = next;
    }
    // Source line breaks are spaces in HTML; keep only the ones made from tags.
    let mut text = String::with_capacity(out.len());
    for line in out.split('\n') {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        text.push_str(&line);
        text.push('\n');
    }
    text
}

fn decode_entities(s: &str, out: &mut String) {
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest
            .char_indices()
            .take_while(|(i, _)| *i < 12)
            .find(|(_, c)| *c == ';')
            .map(|(i, _)| i);
        let decoded = end.and_then(|e| {
            let entity = &rest[1..e];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                "ndash" => Some('–'),
                "mdash" => Some('—'),
                "hellip" => Some('…'),
                "rsquo" => Some('’'),
                "lsquo" => Some('‘'),
                "rdquo" => Some('”'),
                "ldquo" => Some('“'),
                "copy" => Some('©'),
                "euro" => Some('€'),
                _ => {
                    let number = entity.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => number.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALTERNATIVE: &str = "From: \"Ann Example\" <ann@example.com>\r\n\
To: Bob <bob@example.com>, carol@example.com\r\n\
Cc: Dan <dan@example.com>\r\n\
Subject: =?UTF-8?Q?Caf=C3=A9_r=C3=A9sum=C3=A9?=\r\n\
Date: Tue, 05 Mar 2024 14:30:00 +0100\r\n\
Message-ID: <m1@example.com>\r\n\
References: <root@example.com> <parent@example.com>\r\n\
In-Reply-To: <parent@example.com>\r\n\
List-Unsubscribe: <mailto:unsub@example.com>,\r\n <https://example.com/u>\r\n\
Precedence: bulk\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/alternative; boundary=\"b1\"\r\n\
\r\n\
--b1\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
Content-Transfer-Encoding: quoted-printable\r\n\
\r\n\
Hello Bob,\r\n\
\r\n\
The caf=C3=A9 is   open.\r\n\
--b1\r\n\
Content-Type: text/html; charset=utf-8\r\n\
\r\n\
<p>Hello <b>Bob</b></p>\r\n\
--b1--\r\n";

    #[test]
    fn multipart_alternative_becomes_the_item() {
        let item = item_from_raw(ALTERNATIVE.as_bytes(), 42, "INBOX", false, true, 1000);
        assert_eq!(item["id"], "42");
        assert_eq!(item["from"], "Ann Example <ann@example.com>");
        assert_eq!(item["sender_email"], "ann@example.com");
        assert_eq!(item["to"], "Bob <bob@example.com>, carol@example.com");
        assert_eq!(item["cc"], "Dan <dan@example.com>");
        assert_eq!(item["subject"], "Café résumé");
        assert_eq!(item["date"], "2024-03-05T13:30:00Z");
        assert_eq!(item["labels"], json!(["INBOX", "UNREAD", "STARRED"]));
        assert_eq!(item["message_id"], "<m1@example.com>");
        assert_eq!(item["thread_id"], "<root@example.com>");
        assert_eq!(item["url"], Value::Null);
        assert_eq!(item["mailbox"], "INBOX");
        assert_eq!(item["body"], "Hello Bob,\n\nThe café is   open.");
        assert_eq!(item["snippet"], "Hello Bob, The café is open.");
        assert_eq!(
            item["headers"]["list-unsubscribe"],
            "<mailto:unsub@example.com>, <https://example.com/u>"
        );
        assert_eq!(item["headers"]["precedence"], "bulk");
        assert!(
            item["headers"]["content-type"]
                .as_str()
                .is_some_and(|c| c.starts_with("multipart/alternative"))
        );
        assert!(item["headers"].get("list-id").is_none());
    }

    #[test]
    fn html_only_is_stripped_and_body_capped() {
        let raw = "From: news@example.com\r\nSubject: News\r\nContent-Type: text/html\r\n\r\n\
<html><head><style>p{color:red}</style></head><body><p>One &amp; two</p><p>Three&nbsp;&#233;</p>\
<script>alert(1)</script><!-- hidden --></body></html>";
        let item = item_from_raw(raw.as_bytes(), 1, "News", true, false, 1000);
        assert_eq!(item["body"], "One & two\n\nThree é");
        assert_eq!(item["labels"], json!(["News"]));
        assert_eq!(item["thread_id"], "1");
        assert_eq!(item["message_id"], Value::Null);
        assert_eq!(item["date"], Value::Null);
        let capped = item_from_raw(raw.as_bytes(), 1, "News", true, false, 5);
        assert_eq!(capped["body"], "One …");
    }

    #[test]
    fn thread_falls_back_to_in_reply_to_then_own_id() {
        let raw = "From: a@x\r\nMessage-ID: <own@x>\r\nIn-Reply-To: <parent@x>\r\n\r\nhi";
        let item = item_from_raw(raw.as_bytes(), 3, "INBOX", true, false, 100);
        assert_eq!(item["thread_id"], "<parent@x>");
        let raw = "From: a@x\r\nMessage-ID: <own@x>\r\n\r\nhi";
        let item = item_from_raw(raw.as_bytes(), 3, "INBOX", true, false, 100);
        assert_eq!(item["thread_id"], "<own@x>");
    }

    #[test]
    fn snippets_are_cut_at_a_word() {
        let long = "word ".repeat(100);
        let s = snippet(&long, 200);
        assert!(s.ends_with('…'));
        assert!(s.chars().count() <= 201);
        assert!(!s.contains("  "));
    }

    #[test]
    fn garbage_still_gives_an_item() {
        let item = item_from_raw(b"", 9, "INBOX", false, false, 100);
        assert_eq!(item["id"], "9");
        assert_eq!(item["labels"], json!(["INBOX", "UNREAD"]));
    }
}
