//! One-time codes and sign-in links in email: deterministic masking of verification and 2FA
//! codes, magic sign-in links and password reset links in gmail and email_imap items, before
//! the assistant's model ever sees them. The original stays in the user's mail app.
//!
//! A code is hidden only with a sign-in or verification cue nearby (same sentence, a label
//! right before it, "is your ... code" right after it, or the line before when the code stands
//! alone), or with a sign-in/reset subject or sender. Booking, order, ticket, reservation, PNR
//! and reference numbers are kept, and so are prices, dates, times, phone numbers and
//! addresses. A link is hidden only when it carries a token-like value and looks like sign-in
//! or reset (its path, the words before it, or the subject).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

pub const CODE_HIDDEN: &str = "[one-time code hidden]";
pub const SIGN_IN_LINK_HIDDEN: &str = "[sign-in link hidden]";
pub const RESET_LINK_HIDDEN: &str = "[password reset link hidden]";

/// How far (bytes) before a code a label may sit and still bind to it.
const LABEL_WINDOW: usize = 80;
/// Longest stretch either side of a code that counts as "its sentence" (snippets may be one
/// long line without punctuation).
const SENTENCE_MAX: usize = 240;
/// Longer lines never count as "a code alone on its line".
const LINE_MAX: usize = 200;
/// How much text before a link is read for "sign in" / "reset your password".
const LINK_WORDS_WINDOW: usize = 120;
/// `messages` inside `messages`: deep enough for threads, bounded against hostile JSON.
const MAX_THREAD_DEPTH: usize = 4;

/// Compiles one of the constant patterns below.
#[allow(clippy::expect_used)] // The patterns are constants; `all_patterns_compile` builds each one.
fn re(pattern: &str) -> Regex {
    // ASCII word boundaries keep regex's DFA engines usable on non-ASCII text (a Unicode `\b`
    // forces the slow engine), and every pattern here is about ASCII digits and words.
    Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")).expect("built-in redaction pattern")
}

/// Words that label a nearby number. `cue`: sign-in/verification; `keep`: booking-like labels
/// that keep a code even when "code" follows ("booking confirmation code"); `weak`: identifiers
/// that keep only the number right after them ("Customer ID: 48213", but not "Apple ID Code
/// is: 482913"); `code`: the bare noun, a cue only as "your code is" / "Code:".
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?xi)
    \b(?:
      (?P<cue>
          one[\s-]?time | otp | verification | verify | verifying | security
        | sign[\s_-]?(?:in|on) | signing\s+in | signed\s+in
        | log[\s_-]?in | logging\s+in | logged\s+in
        | 2fa | two[\s-]?factor | (?:2|two)[\s-]?step | multi[\s-]?factor | mfa
        | authentication | authenticate | authenticator
        | passcode | pass\s+code | access\s+code
        | confirm\s+(?:your\s+)?(?:email|identity|account)
        | (?:use|enter)\s+(?:this|the(?:\s+following)?)\s+code | following\s+code | code\s+below
        | single[\s-]use | temporary\s+code
        | reset | password | recovery | recover | magic\s+link
      )
    | (?P<keep>
          booking | bookings | booked | order | orders | ordered
        | e-?tickets? | tickets? | reservations? | reserved | pnr | reference | ref
        | itinerary | record\s+locator | locator
        | confirmation\s+(?:number|no|nr) | conf\.?\s*(?:no|number|nr)
        | invoices? | receipts? | tracking | track | shipments? | parcels? | packages?
        | transactions? | promo | promotion | promotional | coupons? | vouchers? | discount
        | gift | referral | ending\s+in | ends\s+in | last\s+(?:4|four)(?:\s+digits)?
        | zip | postal | postcode | post\s+code
        | meeting\s+id | webinar\s+id | conference\s+id | sku | boarding
      )
    | (?P<weak>
          id | card | customer | member | membership | account\s+(?:number|no) | acct
        | flight | gate | seat | room | model | item | serial | version | build
        | case | claim | policy | extension | ext | dial[\s-]?in | call | tel | fax
      )
    | (?P<code> codes? | pin )
    )\b")
});

/// Everything number-like, protected shapes first: the first alternative that matches at a
/// position wins, so a phone number or date is consumed before its digits could look like a
/// code. Groups from `run` on are code candidates, checked further in `classify`.
static CANDIDATE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?x)
      (?P<price> [$€£¥₹]\ ?[0-9][0-9,.]* | (?i:\b(?:usd|eur|gbp|cad|aud|inr|chf|jpy|rs)\.?\ ?[0-9][0-9,.]*) )
    | (?P<phone>
          \+[0-9]{1,3}(?:[\ .\-]?\(?[0-9]{1,4}\)?){2,5}
        | \(\ ?[0-9]{2,4}\ ?\)[\ .\-]?[0-9]{3,4}[\ .\-]?[0-9]{3,4}
        | \b(?:1[\ .\-])?[0-9]{3}[\ .\-][0-9]{3}[\ .\-][0-9]{4}\b
        | \b[0-9]{3}-[0-9]{4}\b
      )
    | (?P<addr>
          ,\ ?(?:AL|AK|AZ|AR|CA|CO|CT|DC|DE|FL|GA|HI|IA|ID|IL|IN|KS|KY|LA|MA|MD|ME|MI|MN|MO|MS
               |MT|NC|ND|NE|NH|NJ|NM|NV|NY|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VA|VT|WA|WI|WV|WY)
          \ +[0-9]{5}(?:-[0-9]{4})?\b
        | \b[0-9]{1,6}\ +(?:\p{Lu}[\p{L}.]*\ +){1,3}
          (?:Street|St|Avenue|Ave|Road|Rd|Parkway|Pkwy|Boulevard|Blvd|Way|Lane|Ln|Drive|Dr
            |Court|Ct|Place|Pl|Square|Sq|Highway|Hwy|Terrace|Plaza|Circle)\b
        | (?i:\b(?:suite|ste|floor|unit|apt|p\.?\ ?o\.?\ box|box)\.?\ ?\#?\ ?[0-9]+\b)
        | ,\ ?[0-9]{4,5}\ +\p{Lu}\p{Ll}+
      )
    | (?P<date> \b[0-9]{4}[\-/.][0-9]{1,2}[\-/.][0-9]{1,2}\b | \b[0-9]{1,2}[\-/.][0-9]{1,2}[\-/.][0-9]{2,4}\b )
    | (?P<num> [0-9]+(?:[.,:][0-9]+)+ | \#\ ?[A-Za-z0-9][A-Za-z0-9\-]* )
    | (?P<run> \b[0-9]{2,5}(?:\ [0-9]{2,5}){2,}\b )
    | (?P<prefixed> \b[A-Za-z]{1,4}(?:-[0-9]{2,8})+\b )
    | (?P<dashed> \b[0-9]{2,4}(?:-[0-9]{2,4}){1,3}\b )
    | (?P<spaced> \b[0-9]{3,4}\ [0-9]{3,4}\b )
    | (?P<digits> \b[0-9]{4,8}\b )
    | (?P<upper> \b(?:[A-Z]+[0-9]|[0-9]+[A-Z])[A-Z0-9]*\b )
    | (?P<lower> \b(?:[a-z]+[0-9]|[0-9]+[a-z])[a-z0-9]*\b )
    ")
});

static EMAIL_ADDRESS: LazyLock<Regex> =
    LazyLock::new(|| re(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+"));

static SUBJECT_BOOKING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:booking|booked|order|orders|ordered|reservation|reserved|itinerary|e-?tickets?|tickets?|boarding\s+pass|flight|trip|receipt|invoice|purchase|shipped|shipping|shipment|delivery|delivered|package|parcel|pnr|confirmation\s+(?:number|no))\b",
    )
});

/// Subjects where the bare word "code" is no sign-in cue.
static SUBJECT_PROMO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:promo|promotion|discount|coupon|voucher|gift|referral|sale|offer|deal|off|zip|postal|qr|source|dress)\b",
    )
});

/// Words before a link, or in the subject: sign-in, reset or unsubscribe (told apart by
/// `LinkWords::in_text`, so one search answers all three).
static LINK_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:sign[\s_-]?in|log[\s_-]?in|signing\s+in|logging\s+in|magic\s+link|verify\s+(?:your\s+)?(?:email|account|identity|address|device)|confirm\s+(?:your\s+)?(?:email|account|address)|access\s+your\s+account|one[\s-]?click\s+(?:sign|log)|reset|passwords?|recover|recovery|forgot|unsubscribe|opt[\s-]?out|manage\s+(?:your\s+)?(?:email\s+)?(?:preferences|subscriptions?)|email\s+preferences|stop\s+receiving)\b",
    )
});

/// Sender tokens of account-security mail ("account-security-noreply@accountprotection…").
static SENDER_CUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:^|[^a-z0-9])(?:security|verify|verification|login|signin|sign-in|auth|authentication|otp|2fa|mfa|passcode|password|accountprotection|accountsecurity)(?:[^a-z0-9]|$)",
    )
});

/// Sign-in, reset and unsubscribe words in a lower-cased host and path. "auth" and "otp" need
/// a boundary so /authors/ and /options/ stay ordinary.
static URL_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"passwordless|reset|password|passwd|recover|forgot|unsub|opt[-_]?out|preferences|email[-_]?settings|notification[-_]?settings|log[-_]?in|sign[-_]?in|sign[-_]?on|magic|(?:^|[^a-z])o?auth(?:[^a-z]|$|entic|ori[sz])|verif|confirm[-_]?(?:email|account|signup)|email[-_]?confirm|session|sso|(?:^|[^a-z])otp(?:[^a-z]|$)|2fa|mfa|one[-_]?time",
    )
});

/// Sign-in or reset words as a whole query key or value ("operation=login", "next=/login").
static URL_QUERY_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:^|[&=/_.])(?:log[-_]?in|sign[-_]?in|signon|magic[-_]?link|passwordless|reset[-_]?password|password[-_]?reset|reset|forgot[-_]?password)(?:[&=/_.]|$)",
    )
});

/// The text of an HTML anchor right after its href: `">Sign in</a>`.
static ANCHOR_TEXT: LazyLock<Regex> = LazyLock::new(|| re(r#"^["']?[^<>]{0,80}>([^<]{0,120})<"#));

/// Masks one email's subject and text (snippet or body); `sender` is the From header (name
/// and/or address).
pub fn mask_text(subject: &str, sender: &str, text: &str) -> String {
    let has_digit = text.bytes().any(|b| b.is_ascii_digit());
    let link_hint = text.contains("://") || text.contains("www.") || text.contains("WWW.");
    if !has_digit && !link_hint {
        // Every code has a digit and every link a scheme or www: nothing to look at.
        return text.to_owned();
    }
    let ctx = Context::new(subject, sender);
    Scan::new(text).mask(&ctx)
}

/// Masks the subject itself (a subject like "Your code is 123456").
pub fn mask_subject(subject: &str, sender: &str) -> String {
    mask_text(subject, sender, subject)
}

/// Masks an item JSON object in place: its "subject", "snippet" and "body" string fields,
/// using "from" (or "sender_email") as the sender. Non-objects and missing fields are left
/// alone. Also masks the same fields of every object in an array field "messages" (follow-up
/// threads), each with its own subject/from.
pub fn mask_item(item: &mut Value) {
    mask_object(item, "", "", 0);
}

fn mask_object(item: &mut Value, parent_subject: &str, parent_sender: &str, depth: usize) {
    let Some(obj) = item.as_object_mut() else {
        return;
    };
    // A reply without its own subject or sender is read in its thread's context.
    let subject = obj
        .get("subject")
        .and_then(Value::as_str)
        .unwrap_or(parent_subject)
        .to_owned();
    let sender = sender_of(obj).unwrap_or_else(|| parent_sender.to_owned());
    if let Some(Value::String(s)) = obj.get_mut("subject") {
        *s = mask_subject(s, &sender);
    }
    for key in ["snippet", "body"] {
        if let Some(Value::String(t)) = obj.get_mut(key) {
            *t = mask_text(&subject, &sender, t);
        }
    }
    if depth < MAX_THREAD_DEPTH
        && let Some(Value::Array(messages)) = obj.get_mut("messages")
    {
        for message in messages {
            mask_object(message, &subject, &sender, depth + 1);
        }
    }
}

/// "from" as a header string, or as `{name, email}`; else "sender_email".
fn sender_of(obj: &serde_json::Map<String, Value>) -> Option<String> {
    match obj.get("from") {
        Some(Value::String(s)) => return Some(s.clone()),
        Some(Value::Object(from)) => {
            let parts: Vec<&str> = ["name", "email", "address"]
                .iter()
                .filter_map(|k| from.get(*k).and_then(Value::as_str))
                .collect();
            if !parts.is_empty() {
                return Some(parts.join(" "));
            }
        }
        _ => {}
    }
    ["sender_email", "sender"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str).map(str::to_owned))
}

/// What the subject and sender say about the whole email.
struct Context {
    /// Sign-in/reset subject or security sender: codes need no local cue.
    email_cue: bool,
    /// A booking or order subject with no sign-in cue keeps all its codes.
    keep_all_codes: bool,
    subject_sign_in: bool,
    subject_reset: bool,
}

impl Context {
    fn new(subject: &str, sender: &str) -> Self {
        let (mut cue, mut keep, mut code) = (false, false, false);
        for m in LABEL.find_iter(subject) {
            match label_of(m.as_str()) {
                Label::Cue => cue = true,
                Label::Keep => keep = true,
                Label::Code => code = true,
                Label::WeakKeep => {}
            }
        }
        let words = LinkWords::in_text(subject);
        let subject_reset = words.reset;
        let subject_sign_in =
            cue || words.sign_in || (code && !keep && !SUBJECT_PROMO.is_match(subject));
        let booking = SUBJECT_BOOKING.is_match(subject) && !subject_sign_in && !subject_reset;
        Self {
            email_cue: subject_sign_in || subject_reset || SENDER_CUE.is_match(sender),
            keep_all_codes: booking,
            subject_sign_in,
            subject_reset,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Cue,
    Keep,
    WeakKeep,
    Code,
}

struct Hit {
    start: usize,
    end: usize,
    label: Label,
}

/// Which `LABEL` group matched, read back from the words (`label_matches_captures` checks):
/// cheaper than the capture engine once per word.
fn label_of(word: &str) -> Label {
    let mut buf = [0u8; 24];
    let Some(norm) = squeeze_lower(word, &mut buf) else {
        return Label::Cue; // Only cue phrases are this long.
    };
    if matches!(norm, "code" | "codes" | "pin") {
        Label::Code
    } else if WEAK_KEEP_WORDS.binary_search(&norm).is_ok() {
        Label::WeakKeep
    } else if KEEP_WORDS.binary_search(&norm).is_ok() {
        Label::Keep
    } else {
        Label::Cue
    }
}

/// The ASCII letters and digits of `s`, lower-cased, in `buf`; `None` when they do not fit.
/// (Allocation-free: this runs once per label word and per number.)
fn squeeze_lower<'b>(s: &str, buf: &'b mut [u8; 24]) -> Option<&'b str> {
    let mut n = 0;
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() {
            *buf.get_mut(n)? = b.to_ascii_lowercase();
            n += 1;
        }
    }
    std::str::from_utf8(&buf[..n]).ok()
}

/// `LABEL`'s `keep` and `weak` alternatives, letters and digits only, sorted for
/// `binary_search` (`word_lists_are_sorted` checks).
const KEEP_WORDS: &[&str] = &[
    "boarding",
    "booked",
    "booking",
    "bookings",
    "conferenceid",
    "confirmationno",
    "confirmationnr",
    "confirmationnumber",
    "confno",
    "confnr",
    "confnumber",
    "coupon",
    "coupons",
    "discount",
    "endingin",
    "endsin",
    "eticket",
    "etickets",
    "gift",
    "invoice",
    "invoices",
    "itinerary",
    "last4",
    "last4digits",
    "lastfour",
    "lastfourdigits",
    "locator",
    "meetingid",
    "order",
    "ordered",
    "orders",
    "package",
    "packages",
    "parcel",
    "parcels",
    "pnr",
    "postal",
    "postcode",
    "promo",
    "promotion",
    "promotional",
    "receipt",
    "receipts",
    "recordlocator",
    "ref",
    "reference",
    "referral",
    "reservation",
    "reservations",
    "reserved",
    "shipment",
    "shipments",
    "sku",
    "ticket",
    "tickets",
    "track",
    "tracking",
    "transaction",
    "transactions",
    "voucher",
    "vouchers",
    "webinarid",
    "zip",
];
const WEAK_KEEP_WORDS: &[&str] = &[
    "accountno",
    "accountnumber",
    "acct",
    "build",
    "call",
    "card",
    "case",
    "claim",
    "customer",
    "dialin",
    "ext",
    "extension",
    "fax",
    "flight",
    "gate",
    "id",
    "item",
    "member",
    "membership",
    "model",
    "policy",
    "room",
    "seat",
    "serial",
    "tel",
    "version",
];

/// One text, with its labels, links and addresses found once, so each candidate code is
/// decided by binary searches instead of re-running regexes over its neighbourhood.
struct Scan<'a> {
    text: &'a str,
    /// Sorted and non-overlapping (one `find_iter`), so `end` is sorted too.
    hits: Vec<Hit>,
    /// URLs, sorted.
    urls: Vec<(usize, usize)>,
    /// URLs and email addresses, sorted: never searched for codes.
    barriers: Vec<(usize, usize)>,
    /// Sentence starts: just after a newline or a sentence-ending '.', '!' or '?'. Sorted.
    breaks: Vec<usize>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        let hits = LABEL
            .find_iter(text)
            .map(|m| Hit {
                start: m.start(),
                end: m.end(),
                label: label_of(m.as_str()),
            })
            .collect();
        let urls = find_urls(text);
        let mut barriers = urls.clone();
        barriers.extend(EMAIL_ADDRESS.find_iter(text).map(|m| (m.start(), m.end())));
        barriers.sort_unstable();
        let bytes = text.as_bytes();
        // A plain loop: iterator adapters cost a call per byte in debug builds.
        let mut breaks = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'\n' || (matches!(c, b'.' | b'!' | b'?') && ends_sentence(bytes, i)) {
                breaks.push(i + 1);
            }
            i += 1;
        }
        Self {
            text,
            hits,
            urls,
            barriers,
            breaks,
        }
    }

    fn mask(&self, ctx: &Context) -> String {
        let mut edits: Vec<(usize, usize, &'static str)> = Vec::new();
        let mut prev_url_end = 0;
        for &(start, end) in &self.urls {
            if let Some(mark) = self.link_mark(ctx, start, end, prev_url_end) {
                edits.push((start, end, mark));
            }
            prev_url_end = end;
        }
        if !ctx.keep_all_codes {
            self.code_edits(ctx, &mut edits);
        }
        if edits.is_empty() {
            return self.text.to_owned();
        }
        edits.sort_unstable_by_key(|e| e.0);
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for (start, end, mark) in edits {
            if start < at {
                continue; // Codes never overlap links, but stay safe.
            }
            out.push_str(&self.text[at..start]);
            out.push_str(mark);
            at = end;
        }
        out.push_str(&self.text[at..]);
        out
    }

    // ---- codes ----

    fn code_edits(&self, ctx: &Context, edits: &mut Vec<(usize, usize, &'static str)>) {
        let mut prev_end = 0;
        // Barriers starting before the current candidate, and the furthest end among them.
        let (mut passed, mut barrier_end) = (0, 0);
        for m in CANDIDATE.find_iter(self.text) {
            let (start, end) = (m.start(), m.end());
            while let Some(&(b_start, b_end)) = self.barriers.get(passed)
                && b_start < start
            {
                barrier_end = barrier_end.max(b_end);
                passed += 1;
            }
            let inside =
                barrier_end > start || self.barriers.get(passed).is_some_and(|b| b.0 < end);
            // Labels bind to the first number after them: "for order 1234 is 556677".
            let floor = prev_end.max(barrier_end);
            prev_end = end;
            if inside {
                continue;
            }
            let Some(weak) = classify(m.as_str(), self.text, end) else {
                continue;
            };
            if self.hides_code(ctx, start, end, weak, floor) {
                edits.push((start, end, CODE_HIDDEN));
            }
        }
    }

    /// Whether the code candidate at `start..end` is a one-time code. `weak` candidates
    /// (years, lower-case letters and digits) need a cue right next to them.
    fn hides_code(
        &self,
        ctx: &Context,
        start: usize,
        end: usize,
        weak: bool,
        floor: usize,
    ) -> bool {
        let t = self.text;
        let (sentence_from, sentence_to) = self.sentence(start, end);
        let lo = sentence_from
            .max(floor)
            .max(floor_boundary(t, start.saturating_sub(LABEL_WINDOW)));
        let before = self.hits_within(lo, start);

        // "Customer ID: 48213", "Room 4021".
        if let Some(h) = before.last()
            && h.label == Label::WeakKeep
            && gap_is(
                &t[h.end..start],
                &["number", "no", "nr", "num", "is", "was"],
                24,
            )
        {
            return false;
        }
        // The closer of a booking-like label and a sign-in cue decides.
        let keep = before.iter().rev().find(|h| h.label == Label::Keep);
        let cue = before.iter().rev().find(|h| h.label == Label::Cue);
        match (keep, cue) {
            (Some(k), c) if c.is_none_or(|c| k.start > c.start) => return false,
            // A weak candidate needs the cue right before it ("login code: x7k9p2").
            (_, Some(c)) if !weak || gap_is(&t[c.end..start], DIRECT_GAP_WORDS, 40) => {
                return true;
            }
            _ => {}
        }
        // "Your code is 482913", "Code: 482913".
        if let Some(h) = before.iter().rev().find(|h| h.label == Label::Code)
            && self.code_noun_labels(h, start)
        {
            return true;
        }
        // "482913 is your Instagram code", "X7YZ9Q is your booking reference".
        if let Some(hide) = self.trailing_label(end, sentence_to) {
            return hide;
        }
        if !weak && self.has_cue(sentence_from, sentence_to) {
            return true;
        }
        // A code alone on the line after "Enter this code:".
        if let Some(hide) = self.after_cue_line(start, end) {
            return hide;
        }
        !weak && ctx.email_cue
    }

    /// "code"/"pin" right before the number, as "code is", "code:" or "your … code".
    fn code_noun_labels(&self, noun: &Hit, start: usize) -> bool {
        let t = self.text;
        let gap = &t[noun.end..start];
        if !gap_is(gap, &["is", "was"], 12) {
            return false;
        }
        if gap.contains([':', '=']) || gap.chars().any(char::is_alphanumeric) {
            return true;
        }
        // "your Instagram code 123456": a determiner within three words before "code".
        let from = floor_boundary(t, noun.start.saturating_sub(40));
        let before = &t[from..noun.start];
        let clause = before
            .rsplit(['\n', '.', '!', '?'])
            .next()
            .unwrap_or(before);
        clause
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .rev()
            .take(3)
            .any(|w| {
                ["your", "the", "this", "my"]
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case(w))
            })
    }

    /// A label right after the number: "482913 is your … code" hides, "… is your booking
    /// reference" keeps.
    fn trailing_label(&self, end: usize, sentence_to: usize) -> Option<bool> {
        let t = self.text;
        let rest = t.get(end..sentence_to.max(end))?.trim_start();
        let lead = rest.get(..3).unwrap_or(rest).to_ascii_lowercase();
        let links = lead.starts_with("is ")
            || lead.starts_with("was")
            || rest.starts_with(['—', '–', '-', ':', '(']);
        if !links {
            return None;
        }
        let limit = sentence_to.min(end + LABEL_WINDOW);
        let from = self.hits.partition_point(|h| h.start < end);
        self.hits[from..]
            .iter()
            .take_while(|h| h.start < limit)
            .find_map(|h| match h.label {
                Label::Keep => Some(false),
                Label::Cue | Label::Code => Some(true),
                Label::WeakKeep => None,
            })
    }

    /// For a code alone on its line: what the previous non-blank line says.
    fn after_cue_line(&self, start: usize, end: usize) -> Option<bool> {
        let t = self.text;
        let line_from = line_start(t, start)?;
        let line_to = line_end(t, end)?;
        let alone = !t[line_from..start].chars().any(char::is_alphanumeric)
            && !t[end..line_to].chars().any(char::is_alphanumeric);
        if !alone {
            return None;
        }
        let (prev_from, prev_to) = previous_nonblank_line(t, line_from)?;
        let lo = prev_from.max(floor_boundary(t, prev_to.saturating_sub(LINE_MAX)));
        let hits = self.hits_within(lo, prev_to);
        let keep = hits.iter().rev().find(|h| h.label == Label::Keep);
        let cue = hits.iter().rev().find(|h| h.label == Label::Cue);
        match (keep, cue) {
            (Some(k), c) if c.is_none_or(|c| k.start > c.start) => Some(false),
            (_, Some(_)) => Some(true),
            _ => hits.iter().any(|h| h.label == Label::Code).then_some(true),
        }
    }

    fn has_cue(&self, from: usize, to: usize) -> bool {
        let i = self.hits.partition_point(|h| h.start < from);
        self.hits[i..]
            .iter()
            .take_while(|h| h.start < to)
            .any(|h| h.label == Label::Cue)
    }

    /// Label hits lying wholly inside `from..to`.
    fn hits_within(&self, from: usize, to: usize) -> &[Hit] {
        let a = self.hits.partition_point(|h| h.start < from);
        let b = self.hits.partition_point(|h| h.end <= to);
        self.hits.get(a..b).unwrap_or(&[])
    }

    /// The sentence around `start..end`, at most `SENTENCE_MAX` bytes either side.
    fn sentence(&self, start: usize, end: usize) -> (usize, usize) {
        let t = self.text;
        let i = self.breaks.partition_point(|&b| b <= start);
        let lo = ceil_boundary(t, start.saturating_sub(SENTENCE_MAX)).min(start);
        let from = i.checked_sub(1).map_or(lo, |i| self.breaks[i].max(lo));
        let j = self.breaks.partition_point(|&b| b <= end);
        let hi = floor_boundary(t, end + SENTENCE_MAX).max(end);
        let to = self.breaks.get(j).map_or(hi, |&b| b.min(hi));
        (from, to)
    }

    // ---- links ----

    fn link_mark(
        &self,
        ctx: &Context,
        start: usize,
        end: usize,
        prev_url_end: usize,
    ) -> Option<&'static str> {
        let t = self.text;
        let url = &t[start..end];
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
        let (host_path, query) = rest.split_once('?').unwrap_or((rest, ""));
        if !has_token(host_path, query, fragment) {
            return None;
        }
        let host_path_l = host_path.to_ascii_lowercase().replace("%2f", "/");
        let query_l = format!("{query}&{fragment}")
            .to_ascii_lowercase()
            .replace("%2f", "/");
        let path = LinkWords::in_url(&host_path_l);
        let in_query = LinkWords::in_query(&query_l);
        // The URL alone decides; the words around it matter only when it says nothing.
        if path.reset || in_query.reset {
            return Some(RESET_LINK_HIDDEN);
        }
        if path.sign_in || in_query.sign_in {
            return Some(SIGN_IN_LINK_HIDDEN);
        }
        // An unsubscribe link is ordinary unless its own path says sign-in.
        if path.unsubscribe || query_l.contains("unsubscribe") {
            return None;
        }
        let words = LinkWords::in_text(&self.words_around_link(start, end, prev_url_end));
        if words.unsubscribe {
            return None;
        }
        let (words_sign_in, words_reset) = (words.sign_in, words.reset);
        if !(words_sign_in || words_reset || ctx.subject_sign_in || ctx.subject_reset) {
            return None;
        }
        let reset = words_reset || (ctx.subject_reset && !words_sign_in);
        Some(if reset {
            RESET_LINK_HIDDEN
        } else {
            SIGN_IN_LINK_HIDDEN
        })
    }

    /// The words just before a link on its line (or the line before, when the link stands
    /// alone), plus an HTML anchor's text right after it.
    fn words_around_link(&self, start: usize, end: usize, prev_url_end: usize) -> String {
        let t = self.text;
        let lo = floor_boundary(t, start.saturating_sub(LINK_WORDS_WINDOW)).max(prev_url_end);
        let mut from = t[lo..start].rfind('\n').map_or(lo, |i| lo + i + 1);
        if !t[from..start].chars().any(char::is_alphabetic)
            && let Some(line_from) = line_start(t, start)
            && let Some((prev_from, prev_to)) = previous_nonblank_line(t, line_from)
        {
            from = prev_from.max(floor_boundary(t, prev_to.saturating_sub(LINK_WORDS_WINDOW)));
            if from < prev_url_end {
                from = prev_url_end.min(start);
            }
        }
        let mut words = t[from..start].to_owned();
        let after = &t[end..floor_boundary(t, (end + 200).min(t.len()))];
        if after.starts_with(['"', '\''])
            && let Some(anchor) = ANCHOR_TEXT.captures(after).and_then(|c| c.get(1))
        {
            words.push(' ');
            words.push_str(anchor.as_str());
        }
        words
    }
}

/// What the words in or around a link say.
#[derive(Default)]
struct LinkWords {
    sign_in: bool,
    reset: bool,
    unsubscribe: bool,
}

impl LinkWords {
    /// Prose: the words before a link, or a subject.
    fn in_text(text: &str) -> Self {
        let mut found = Self::default();
        for m in LINK_WORDS.find_iter(text) {
            let w = m.as_str().to_ascii_lowercase();
            if ["reset", "password", "recover", "forgot"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                found.reset = true;
            } else if ["unsubscribe", "opt", "manage", "email", "stop"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                found.unsubscribe = true;
            } else {
                found.sign_in = true;
            }
        }
        found
    }

    /// A lower-cased host and path.
    fn in_url(host_path: &str) -> Self {
        let mut found = Self::default();
        for m in URL_WORDS.find_iter(host_path) {
            let w = m.as_str();
            if w == "passwordless" {
                found.sign_in = true;
            } else if ["reset", "passw", "recover", "forgot"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                found.reset = true;
            } else if w.starts_with("unsub")
                || w.starts_with("opt")
                || w.ends_with("settings")
                || w == "preferences"
            {
                found.unsubscribe = true;
            } else {
                found.sign_in = true;
            }
        }
        found
    }

    /// A lower-cased query and fragment.
    fn in_query(query: &str) -> Self {
        let mut found = Self::default();
        for m in URL_QUERY_WORDS.find_iter(query) {
            let w = m.as_str();
            if !w.contains("passwordless")
                && (w.contains("reset") || w.contains("forgot") || w.contains("password"))
            {
                found.reset = true;
            } else {
                found.sign_in = true;
            }
        }
        found
    }
}

/// Words allowed between a cue and a weak code: "one-time code is: x7k9p2".
const DIRECT_GAP_WORDS: &[&str] = &[
    "code", "codes", "pin", "number", "is", "was", "below", "here", "your", "the", "this",
];

/// Whether `gap` is short and made only of `words` and punctuation.
fn gap_is(gap: &str, words: &[&str], max_len: usize) -> bool {
    gap.len() <= max_len
        && gap
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .all(|w| words.iter().any(|a| a.eq_ignore_ascii_case(w)))
}

/// Which `CANDIDATE` alternative produced a match, read back from its text: the same answer as
/// the capture groups (`group_matches_captures` checks), without running the slow capture
/// engine once per number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Group {
    Price,
    Phone,
    Addr,
    Date,
    Num,
    Run,
    Prefixed,
    Dashed,
    Spaced,
    Digits,
    Upper,
    Lower,
}

fn group_of(s: &str) -> Group {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return Group::Num;
    };
    if !first.is_ascii_alphanumeric() {
        return match first {
            b'+' | b'(' => Group::Phone,
            b',' => Group::Addr,
            b'#' => Group::Num,
            _ => Group::Price, // a currency sign
        };
    }
    if is_currency_amount(s) {
        return Group::Price;
    }
    // One pass: letters, separators, and the lengths of the digit groups.
    let (mut alpha, mut lower, mut space, mut dash, mut slash, mut other) =
        (false, false, false, false, false, false);
    let mut groups = [0usize; 8];
    let mut n_groups = 0;
    let mut run = 0;
    for &c in b {
        if c.is_ascii_digit() {
            run += 1;
            continue;
        }
        if run > 0 {
            if let Some(g) = groups.get_mut(n_groups) {
                *g = run;
            }
            n_groups += 1;
            run = 0;
        }
        match c {
            b' ' => space = true,
            b'-' => dash = true,
            b'/' => slash = true,
            b'a'..=b'z' => (alpha, lower) = (true, true),
            b'A'..=b'Z' => alpha = true,
            _ => other = true,
        }
    }
    if run > 0 {
        if let Some(g) = groups.get_mut(n_groups) {
            *g = run;
        }
        n_groups += 1;
    }
    if alpha {
        return if space || (first.is_ascii_alphabetic() && is_unit_address(s)) {
            Group::Addr
        } else if dash {
            Group::Prefixed
        } else if lower {
            Group::Lower
        } else {
            Group::Upper
        };
    }
    let groups = &groups[..n_groups.min(groups.len())];
    let dot = other && !s.contains([',', ':']);
    if !(space || dash || slash || other) {
        return Group::Digits;
    }
    let phone = !slash
        && (!other || dot)
        && (groups == [3, 3, 4]
            || (groups == [1, 3, 3, 4] && first == b'1')
            || (groups == [3, 4] && dash && !space && !other));
    if phone {
        return Group::Phone;
    }
    let date = !space
        && (!other || dot)
        && match groups {
            [4, m, d] => (1..=2).contains(m) && (1..=2).contains(d),
            [a, b, y] => (1..=2).contains(a) && (1..=2).contains(b) && (2..=4).contains(y),
            _ => false,
        };
    if date {
        return Group::Date;
    }
    if other || slash {
        Group::Num
    } else if !dash {
        if groups.len() >= 3 {
            Group::Run
        } else {
            Group::Spaced
        }
    } else if !space {
        Group::Dashed
    } else {
        Group::Num
    }
}

/// "USD 12", "eur12.50", "Rs. 500" (the price alternative's letter form).
fn is_currency_amount(s: &str) -> bool {
    let lower = s.get(..3).unwrap_or(s).to_ascii_lowercase();
    let code_len = if lower.starts_with("rs") {
        2
    } else if ["usd", "eur", "gbp", "cad", "aud", "inr", "chf", "jpy"].contains(&lower.as_str()) {
        3
    } else {
        return false;
    };
    let rest = &s[code_len..];
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit())
}

/// "Suite 400", "apt 4", "P.O. Box 12" (the address alternative's letter form).
fn is_unit_address(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let rest = ["suite", "ste", "floor", "unit", "apt", "box"]
        .iter()
        .find_map(|w| lower.strip_prefix(w))
        .or_else(|| {
            let r = lower.strip_prefix('p')?;
            let r = r.strip_prefix('.').unwrap_or(r);
            let r = r.strip_prefix(' ').unwrap_or(r);
            let r = r.strip_prefix('o')?;
            let r = r.strip_prefix('.').unwrap_or(r);
            r.strip_prefix(" box")
        });
    rest.is_some_and(|r| {
        let r = r.trim_start_matches(['.', ' ', '#']);
        !r.is_empty() && r.bytes().all(|c| c.is_ascii_digit())
    })
}

/// Whether a unit follows the number: "1440 minutes", "5000 points", "20%".
fn quantity_after(text: &str, end: usize) -> bool {
    let rest = &text[end..];
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    if rest.starts_with('%') {
        return true;
    }
    let len = rest
        .bytes()
        .take(13)
        .take_while(u8::is_ascii_alphabetic)
        .count();
    if len == 0 || len > 12 || rest[len..].starts_with(|c: char| c.is_ascii_digit() || c == '_') {
        return false;
    }
    let mut buf = [0u8; 24];
    squeeze_lower(&rest[..len], &mut buf).is_some_and(|w| UNITS.binary_search(&w).is_ok())
}

/// Sorted for `binary_search`.
const UNITS: &[&str] = &[
    "calories",
    "cent",
    "cents",
    "customers",
    "day",
    "days",
    "dollar",
    "dollars",
    "download",
    "downloads",
    "emails",
    "employees",
    "eur",
    "euro",
    "euros",
    "feet",
    "files",
    "follower",
    "followers",
    "ft",
    "gb",
    "gbp",
    "gram",
    "grams",
    "hour",
    "hours",
    "hr",
    "hrs",
    "item",
    "items",
    "kb",
    "kcal",
    "kg",
    "km",
    "lb",
    "lbs",
    "like",
    "likes",
    "mb",
    "member",
    "members",
    "messages",
    "mile",
    "miles",
    "min",
    "mins",
    "minute",
    "minutes",
    "month",
    "months",
    "orders",
    "page",
    "pages",
    "people",
    "percent",
    "photos",
    "point",
    "points",
    "pts",
    "review",
    "reviews",
    "sec",
    "second",
    "seconds",
    "secs",
    "sq",
    "star",
    "stars",
    "step",
    "steps",
    "subscriber",
    "subscribers",
    "tb",
    "times",
    "usd",
    "user",
    "users",
    "view",
    "views",
    "week",
    "weeks",
    "word",
    "words",
    "year",
    "years",
];

/// `None` for a protected shape (price, phone, date, address, quantity, identifier), else
/// whether the code candidate is weak.
fn classify(s: &str, text: &str, end: usize) -> Option<bool> {
    let (mut digits, mut letters) = (0, 0);
    for c in s.bytes() {
        digits += usize::from(c.is_ascii_digit());
        letters += usize::from(c.is_ascii_alphabetic());
    }
    let weak = match group_of(s) {
        // "12-34-56" is no date; a real date ("2026-12-02", "12/02/2026") is kept.
        Group::Date if !is_date(s) && s.contains('-') && digits >= 5 => false,
        // Long digit groups are meeting IDs, card or phone numbers; "12 34 56" may be a code.
        Group::Run if digits <= 8 => false,
        Group::Prefixed if (3..=10).contains(&digits) => false,
        Group::Dashed => {
            let years = s.split('-').all(|g| g.len() == 4 && is_year(g));
            if years || !(5..=10).contains(&digits) {
                return None;
            }
            false
        }
        // "845 392" is a split code; "555 1234" is as likely a phone number.
        Group::Spaced => !(s.len() == 7 && s.as_bytes()[3] == b' '),
        Group::Digits => is_year(s),
        group @ (Group::Upper | Group::Lower) => {
            // "128GB", "1080p", "10am" are quantities, not codes.
            let lower = group == Group::Lower;
            let units = s.bytes().take_while(u8::is_ascii_digit).count() == digits
                && letters <= if lower { 3 } else { 2 };
            if !(5..=10).contains(&s.len()) || digits < 2 || units {
                return None;
            }
            lower
        }
        _ => return None,
    };
    if quantity_after(text, end) {
        return None;
    }
    Some(weak)
}

fn is_year(s: &str) -> bool {
    s.len() == 4 && s.parse::<u32>().is_ok_and(|y| (1900..=2099).contains(&y))
}

/// A plausible calendar date ("2026-12-02", "12/02/2026", "02.12.26"), day and month either
/// way round.
fn is_date(s: &str) -> bool {
    let mut parts = s.split(['-', '/', '.']);
    let (Some(a), Some(b), Some(c), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let num = |p: &str| p.parse::<u32>().ok();
    let (Some(x), Some(y), Some(z)) = (num(a), num(b), num(c)) else {
        return false;
    };
    if a.len() == 4 {
        return (1..=12).contains(&y) && (1..=31).contains(&z);
    }
    x >= 1 && y >= 1 && ((x <= 12 && y <= 31) || (x <= 31 && y <= 12))
}

/// Whether a query value, fragment value or path segment looks like a token.
fn has_token(host_path: &str, query: &str, fragment: &str) -> bool {
    let pairs = query.split(['&', ';']).chain(fragment.split('&'));
    for pair in pairs {
        let (key, value) = pair.split_once('=').unwrap_or(("", pair));
        let key = key.trim_start_matches("amp;").to_ascii_lowercase();
        if is_token_key(&key) && value.len() >= 6 {
            return true;
        }
        if random_like(value) {
            return true;
        }
    }
    host_path.split('/').skip(1).any(random_like)
}

fn is_token_key(key: &str) -> bool {
    key.contains("token")
        || key.ends_with("code")
        || key.ends_with("_key")
        || matches!(
            key,
            "key"
                | "magic"
                | "sig"
                | "signature"
                | "auth"
                | "otp"
                | "jwt"
                | "ticket"
                | "nonce"
                | "hash"
                | "hmac"
                | "secret"
                | "session"
                | "sid"
                | "login"
                | "link"
        )
}

/// At least 16 characters mixing letters and digits with several letter/digit switches, and
/// not a slug of words ("how-to-sign-in-2026" is no token).
fn random_like(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() < 16 {
        return false;
    }
    let (mut len, mut alpha, mut digit, mut switches, mut word_parts) = (0, false, false, 0, 0);
    let (mut prev, mut part_len, mut part_alpha) = (b'.', 0, true);
    let mut i = 0;
    while i <= b.len() {
        let c = match b.get(i) {
            None => b'.', // closes the last part
            // A percent escape counts as a separator: "%3A%2F%2F" would otherwise look random.
            Some(b'%')
                if b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
            {
                i += 2;
                b'.'
            }
            Some(&c) => c,
        };
        if i < b.len() {
            len += 1;
        }
        if matches!(c, b'-' | b'_' | b'.' | b'~' | b'+') {
            if part_len >= 3 && part_alpha {
                word_parts += 1; // a word of a slug ("how-to-sign-in")
            }
            (part_len, part_alpha) = (0, true);
        } else {
            part_len += 1;
            part_alpha &= c.is_ascii_alphabetic();
        }
        alpha |= c.is_ascii_alphabetic();
        digit |= c.is_ascii_digit();
        if (prev.is_ascii_alphabetic() && c.is_ascii_digit())
            || (prev.is_ascii_digit() && c.is_ascii_alphabetic())
        {
            switches += 1;
        }
        prev = c;
        i += 1;
    }
    len >= 16 && alpha && digit && switches >= 3 && word_parts < 2
}

/// Bare, `<…>`, `(…)` and `href="…"` links: `http://`, `https://` or `www.` at a word start, up
/// to whitespace or a bracket or quote. (A plain scan: much cheaper than a regex in debug
/// builds, where this runs over whole bodies.)
fn find_urls(text: &str) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase(); // same byte offsets
    let bytes = lower.as_bytes();
    let mut urls = Vec::new();
    let mut at = 0;
    let mut next_http = lower.find("http");
    let mut next_www = lower.find("www.");
    loop {
        let start = match (next_http, next_www) {
            (Some(h), Some(w)) => h.min(w),
            (Some(p), None) | (None, Some(p)) => p,
            (None, None) => break,
        };
        let rest = &lower[start..];
        let scheme = ["https://", "http://", "www."]
            .iter()
            .find(|s| rest.starts_with(**s))
            .map_or(0, |s| s.len());
        let word_start =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let mut resume = start + 1;
        if scheme > 0 && word_start {
            let end = trim_url_end(text, start, url_end(text, start));
            if end > start + scheme {
                urls.push((start, end));
                resume = end;
            }
        }
        at = at.max(resume);
        if next_http.is_some_and(|h| h < at) {
            next_http = lower[at..].find("http").map(|p| p + at);
        }
        if next_www.is_some_and(|w| w < at) {
            next_www = lower[at..].find("www.").map(|p| p + at);
        }
    }
    urls
}

/// Where the link starting at `start` ends: whitespace (Unicode too), a bracket or a quote.
fn url_end(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        if c < 0x80 {
            if matches!(
                c,
                b' ' | b'\t'
                    | b'\n'
                    | b'\r'
                    | b'\x0c'
                    | b'<'
                    | b'>'
                    | b'"'
                    | b'\''
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'|'
                    | b'\\'
                    | b'^'
                    | b'`'
            ) {
                return i;
            }
            i += 1;
        } else {
            // Only here decode a char: NBSP and other Unicode spaces end a link too.
            let ch = text[i..].chars().next().unwrap_or(' ');
            if ch.is_whitespace() {
                return i;
            }
            i += ch.len_utf8();
        }
    }
    b.len()
}

/// Drops trailing punctuation that ends a sentence rather than the URL.
fn trim_url_end(text: &str, start: usize, end: usize) -> usize {
    let trimmed = text[start..end].trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '\'', '"']);
    start + trimmed.len()
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// A '.', '!' or '?' followed by whitespace ends a sentence, unless it ends "No." or "e.g.".
fn ends_sentence(b: &[u8], i: usize) -> bool {
    if !matches!(b[i], b'.' | b'!' | b'?') || !b.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
        return false;
    }
    if b[i] != b'.' {
        return true;
    }
    let word_from = b[..i]
        .iter()
        .rposition(|c| !c.is_ascii_alphabetic())
        .map_or(0, |p| p + 1);
    let word = &b[word_from..i];
    let abbreviation = word.len() == 1
        || [
            &b"no"[..],
            b"nr",
            b"ref",
            b"conf",
            b"approx",
            b"vs",
            b"mr",
            b"mrs",
            b"ms",
            b"dr",
            b"st",
            b"inc",
            b"ltd",
            b"co",
            b"etc",
            b"tel",
            b"ph",
            b"num",
        ]
        .iter()
        .any(|a| word.eq_ignore_ascii_case(a));
    !abbreviation
}

/// Start of the line holding `pos`, if it is within `LINE_MAX` bytes.
fn line_start(t: &str, pos: usize) -> Option<usize> {
    let lo = floor_boundary(t, pos.saturating_sub(LINE_MAX));
    match t[lo..pos].rfind('\n') {
        Some(i) => Some(lo + i + 1),
        None if lo == 0 => Some(0),
        None => None,
    }
}

fn line_end(t: &str, pos: usize) -> Option<usize> {
    let hi = floor_boundary(t, pos + LINE_MAX);
    match t[pos..hi].find('\n') {
        Some(i) => Some(pos + i),
        None if hi == t.len() => Some(hi),
        None => None,
    }
}

/// The nearest non-blank line above the line starting at `line_from` (up to three blank lines
/// between), as `(start, end)`; a very long line is cut to its end.
fn previous_nonblank_line(t: &str, mut line_from: usize) -> Option<(usize, usize)> {
    for _ in 0..4 {
        if line_from == 0 {
            return None;
        }
        let end = line_from - 1; // the '\n'
        let end = if end > 0 && t.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let lo = floor_boundary(t, end.saturating_sub(LINE_MAX * 2));
        let start = t[lo..end].rfind('\n').map_or(lo, |i| lo + i + 1);
        if t[start..end].chars().any(|c| !c.is_whitespace()) {
            return Some((start, end));
        }
        if start == lo && lo != 0 && !t[..lo].ends_with('\n') {
            return None;
        }
        line_from = start;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Case {
        name: &'static str,
        subject: &'static str,
        from: &'static str,
        body: &'static str,
        /// Must not appear in the masked body.
        gone: &'static [&'static str],
        /// Must still appear in the masked body.
        kept: &'static [&'static str],
        /// Must appear in the masked body; empty means the body must come back unchanged.
        marks: &'static [&'static str],
    }

    const C: &str = CODE_HIDDEN;
    const S: &str = SIGN_IN_LINK_HIDDEN;
    const R: &str = RESET_LINK_HIDDEN;

    const CASES: &[Case] = &[
        // ---- one-time codes ----
        Case {
            name: "google sign-in code alone after cue line, address footer kept",
            subject: "Google Verification Code",
            from: "Google <no-reply@accounts.google.com>",
            body: "Google\n\nVerify your identity\n\nUse this code to sign in:\n\n482913\n\nThis code will expire in 10 minutes.\n\nGoogle LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA",
            gone: &["482913"],
            kept: &["1600 Amphitheatre Parkway", "CA 94043", "10 minutes"],
            marks: &[C],
        },
        Case {
            name: "google G- code with trailing cue",
            subject: "Your Google code",
            from: "Google <no-reply@accounts.google.com>",
            body: "G-482913 is your Google verification code.",
            gone: &["482913"],
            kept: &["is your Google verification code."],
            marks: &[C],
        },
        Case {
            name: "microsoft security code and account link",
            subject: "Microsoft account security code",
            from: "Microsoft account team <account-security-noreply@accountprotection.microsoft.com>",
            body: "Please use the following security code for the Microsoft account b***@example.com.\n\nSecurity code: 7391\n\nIf you don't recognize the Microsoft account b***@example.com, you can click https://account.live.com/dp?ft=AbC9xY2zQ7wE4rT1&id=42 to remove your email address from that account.\n\nThanks,\nThe Microsoft account team",
            gone: &["7391", "AbC9xY2zQ7wE4rT1"],
            kept: &["b***@example.com", "Security code: "],
            marks: &[C, S],
        },
        Case {
            name: "apple id code (ID is not a keep label here)",
            subject: "Your Apple ID verification code",
            from: "Apple <appleid@id.apple.com>",
            body: "Your Apple ID Code is: 582039. Don't share it with anyone.",
            gone: &["582039"],
            kept: &["Your Apple ID Code is: "],
            marks: &[C],
        },
        Case {
            name: "github device verification, settings link kept",
            subject: "[GitHub] Please verify your device",
            from: "GitHub <noreply@github.com>",
            body: "Hey octocat!\n\nA sign in attempt requires further verification because we did not recognize your device. To complete the sign in, enter the verification code on the unrecognized device.\n\nDevice: Chrome on macOS\nVerification code: 394817\n\nIf you did not attempt to sign in to your account, your password may be compromised. Visit https://github.com/settings/security to create a new, strong password for your GitHub account.",
            gone: &["394817"],
            kept: &["https://github.com/settings/security", "Chrome on macOS"],
            marks: &[C],
        },
        Case {
            name: "slack confirmation code alone on its line",
            subject: "Slack confirmation code: ABC-123",
            from: "Slack <no-reply@slack.com>",
            body: "Confirm your email address\n\nYour confirmation code is below — enter it in your open browser window and we'll help you get signed in.\n\nABC-123\n\nIf you didn't request this email, there's nothing to worry about.",
            gone: &["ABC-123"],
            kept: &["Confirm your email address"],
            marks: &[C],
        },
        Case {
            name: "bank one-time passcode, phone and card ending kept",
            subject: "Your one-time passcode",
            from: "Chase <no.reply.alerts@chase.com>",
            body: "Your Chase one-time passcode is 58392014. Don't share it. We'll never call you to ask for it. Questions? Call 1-800-935-9935. This is about your card ending in 4821.",
            gone: &["58392014"],
            kept: &["1-800-935-9935", "ending in 4821"],
            marks: &[C],
        },
        Case {
            name: "bank security code split by a space",
            subject: "Security notice",
            from: "First Bank <alerts@firstbank.example>",
            body: "Your security code is 845 392. It expires in 5 minutes.",
            gone: &["845 392", "845", "392"],
            kept: &["5 minutes"],
            marks: &[C],
        },
        Case {
            name: "amazon verification code, address kept",
            subject: "Your Amazon verification code",
            from: "Amazon <account-update@amazon.com>",
            body: "Verify your identity\n\nTo finish signing in, enter this code:\n\n482913\n\nWe will never ask for this code by phone.\n\nAmazon.com, 410 Terry Ave N, Seattle, WA 98109",
            gone: &["482913"],
            kept: &["410 Terry Ave N", "WA 98109"],
            marks: &[C],
        },
        Case {
            name: "instagram code after the cue line",
            subject: "123456 is your Instagram code",
            from: "Instagram <security@mail.instagram.com>",
            body: "Hi bob,\n\nSomeone tried to log in to your Instagram account. If this was you, please use the following code to confirm your identity:\n\n123456\n\nIf this wasn't you, please reset your password.",
            gone: &["123456"],
            kept: &["Hi bob,"],
            marks: &[C],
        },
        Case {
            name: "dash-split code",
            subject: "Welcome",
            from: "Acme <hello@acme.example>",
            body: "Your verification code is 12-34-56.",
            gone: &["12-34-56"],
            kept: &["Your verification code is "],
            marks: &[C],
        },
        Case {
            name: "alphanumeric code after sign-in cue",
            subject: "Sign in to Acme",
            from: "Acme <hello@acme.example>",
            body: "Enter this code to sign in: A1B2C3",
            gone: &["A1B2C3"],
            kept: &["Enter this code to sign in: "],
            marks: &[C],
        },
        Case {
            name: "markdown bold code alone after cue line",
            subject: "Hello from Acme",
            from: "Acme <hello@acme.example>",
            body: "Here is your login code:\n\n**739201**\n\nIt expires soon.",
            gone: &["739201"],
            kept: &["**[one-time code hidden]**"],
            marks: &[C],
        },
        Case {
            name: "sign-in subject covers a code with no local cue",
            subject: "Your Acme sign-in code",
            from: "Acme <hello@acme.example>",
            body: "Hi Bob,\n\n    628194\n\nSee you soon.",
            gone: &["628194"],
            kept: &["Hi Bob,"],
            marks: &[C],
        },
        Case {
            name: "security sender covers a code with no local cue",
            subject: "Hello",
            from: "Acme Security <security@acme.example>",
            body: "Hi Bob,\n\n628194\n\nThe Acme team",
            gone: &["628194"],
            kept: &["The Acme team"],
            marks: &[C],
        },
        Case {
            name: "use this code to sign in",
            subject: "Welcome back",
            from: "Acme <hello@acme.example>",
            body: "Use this code to sign in: 829104",
            gone: &["829104"],
            kept: &["Use this code to sign in: "],
            marks: &[C],
        },
        Case {
            name: "verification code for an order: order number kept, code hidden",
            subject: "Confirm it's you",
            from: "Shop <noreply@shop.example>",
            body: "Your verification code for order 1234 is 556677.",
            gone: &["556677"],
            kept: &["order 1234"],
            marks: &[C],
        },
        Case {
            name: "two-factor authentication code",
            subject: "Hi",
            from: "Acme <hello@acme.example>",
            body: "Your two-factor authentication code is 304958",
            gone: &["304958"],
            kept: &[],
            marks: &[C],
        },
        Case {
            name: "OTP label",
            subject: "Hi",
            from: "Acme <hello@acme.example>",
            body: "OTP: 918273 (valid 5 min)",
            gone: &["918273"],
            kept: &["(valid 5 min)"],
            marks: &[C],
        },
        Case {
            name: "lower-case code right after a login label",
            subject: "Hi",
            from: "Acme <hello@acme.example>",
            body: "Your login code: x7k9p2",
            gone: &["x7k9p2"],
            kept: &[],
            marks: &[C],
        },
        Case {
            name: "year-shaped code right after its label",
            subject: "Hi",
            from: "Acme <hello@acme.example>",
            body: "Your verification code is 2024",
            gone: &["2024"],
            kept: &[],
            marks: &[C],
        },
        Case {
            name: "zoom passcode hidden, meeting id kept",
            subject: "Zoom meeting invitation - Design review",
            from: "Zoom <no-reply@zoom.us>",
            body: "Meeting ID: 845 3921 2345\nPasscode: 482910",
            gone: &["482910"],
            kept: &["845 3921 2345"],
            marks: &[C],
        },
        Case {
            name: "phones kept next to a hidden code",
            subject: "Your verification code",
            from: "Acme <hello@acme.example>",
            body: "Your verification code is 482913. Need help? Call (555) 123-4567 or +44 20 7946 0958.",
            gone: &["482913"],
            kept: &["(555) 123-4567", "+44 20 7946 0958"],
            marks: &[C],
        },
        // ---- sign-in and reset links ----
        Case {
            name: "slack magic link on the line after its words",
            subject: "Slack sign-in link",
            from: "Slack <no-reply@slack.com>",
            body: "Click the button below to sign in to Acme on Slack.\n\nSign in to Slack\nhttps://acme.slack.com/z-app-1234567890-1234567890123-a1b2c3d4e5f6a7b8c9d0\n\nThis link expires in 24 hours.",
            gone: &["a1b2c3d4e5f6a7b8c9d0", "acme.slack.com/z-app"],
            kept: &["This link expires in 24 hours."],
            marks: &[S],
        },
        Case {
            name: "notion magic link in markdown plus a login code",
            subject: "Your Notion login link",
            from: "Notion Team <notify@mail.notion.so>",
            body: "[Click here to log in with this magic link](https://www.notion.so/loginwithemail?state=ab12cd&token=v02%3Auser_token%3A8f3d2c1b9a7e6d5c)\n\nOr copy and paste this temporary login code: 482-913",
            gone: &["8f3d2c1b9a7e6d5c", "482-913"],
            kept: &["[Click here to log in with this magic link]([sign-in link hidden])"],
            marks: &[S, C],
        },
        Case {
            name: "medium magic link in angle brackets",
            subject: "Sign in to Medium",
            from: "Medium <noreply@medium.com>",
            body: "Click below to sign in to your Medium account. This link will expire in 15 minutes.\n\n<https://medium.com/m/callback/email?token=9f8e7d6c5b4a3f2e1d0c&operation=login&state=medium>",
            gone: &["9f8e7d6c5b4a3f2e1d0c"],
            kept: &["<[sign-in link hidden]>"],
            marks: &[S],
        },
        Case {
            name: "github password reset link",
            subject: "[GitHub] Please reset your password",
            from: "GitHub <noreply@github.com>",
            body: "We heard that you lost your GitHub password. Sorry about that!\n\nBut don't worry! You can use the following button to reset your password:\n\nhttps://github.com/password_reset/8f3d2c1b9a7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c\n\nIf you don't use this link within 3 hours, it will expire.",
            gone: &["8f3d2c1b9a7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c"],
            kept: &["within 3 hours"],
            marks: &[R],
        },
        Case {
            name: "dropbox password reset link",
            subject: "Reset your Dropbox password",
            from: "Dropbox <no-reply@dropbox.com>",
            body: "Hi Bob,\n\nSomeone (hopefully you) has requested a password reset for your Dropbox account. Follow the link below to set a new password:\n\nhttps://www.dropbox.com/password_reset?e=1&t=AAbCdEf123GhIjK456lMnOp\n\nIf you don't wish to reset your password, disregard this email.",
            gone: &["AAbCdEf123GhIjK456lMnOp"],
            kept: &["Hi Bob,"],
            marks: &[R],
        },
        Case {
            name: "reset link recognised by the words before it",
            subject: "Account help",
            from: "Example <help@example.com>",
            body: "To reset your password, open https://id.example.com/a/8f3d2c1b9a7e6d5c4b3a2f1e within 1 hour.",
            gone: &["8f3d2c1b9a7e6d5c4b3a2f1e"],
            kept: &["within 1 hour."],
            marks: &[R],
        },
        Case {
            name: "sign-in link recognised by the subject",
            subject: "Your magic link",
            from: "Example <hello@example.com>",
            body: "Tap to continue: https://app.example.com/go/a8F3kZ29xQ7LmN4pR2",
            gone: &["a8F3kZ29xQ7LmN4pR2"],
            kept: &["Tap to continue: "],
            marks: &[S],
        },
        Case {
            name: "email confirmation link",
            subject: "Welcome to Example",
            from: "Example <hello@example.com>",
            body: "Confirm your email address: https://example.com/confirm-email?token=5f4dcc3b5aa765d61d8327deb882cf99",
            gone: &["5f4dcc3b5aa765d61d8327deb882cf99"],
            kept: &["Confirm your email address: "],
            marks: &[S],
        },
        Case {
            name: "html anchor with sign-in text after the href",
            subject: "Hi there",
            from: "Example <hello@example.com>",
            body: r#"<a href="https://example.com/e/c/7Hk2Lm9Qp4Rs8Tv3Wx1Yz">Sign in to Example</a>"#,
            gone: &["7Hk2Lm9Qp4Rs8Tv3Wx1Yz"],
            kept: &[r#"<a href="[sign-in link hidden]">Sign in to Example</a>"#],
            marks: &[S],
        },
        // ---- kept: bookings, orders, tracking, meetings, invoices, newsletters ----
        Case {
            name: "airline booking with PNR, flight, gate, ticket, price and manage link",
            subject: "Your flight booking confirmation — Lisbon",
            from: "TAP Air Portugal <booking@flytap.com>",
            body: "Booking reference (PNR): X7YZ9Q\nFlight TP1351 departs 2026-12-02 at 14:30 from Gate B12.\nTicket number: 0472345678901\nTotal paid: €1,200.00\nManage your booking: https://www.flytap.com/manage?pnr=X7YZ9Q&lastname=Smith",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "PNR and booking confirmation code with a neutral subject",
            subject: "Your upcoming travel",
            from: "Travel Co <hello@travel.example>",
            body: "PNR: X7YZ9Q. Your booking confirmation code is ABC123.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "hotel reservation with dates, times, price and phone",
            subject: "Reservation confirmed: Hotel Lumen",
            from: "Hotel Lumen <stay@lumen.example>",
            body: "Your reservation code is 55123.\nCheck-in: Fri, Dec 4, 2026 from 15:00\nCheck-out: 12/06/2026 until 11:00\nRate: $189.00 per night\nCall us at +1 555 123 4567.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "reservation and booking reference with a neutral subject",
            subject: "See you soon!",
            from: "Hotel Lumen <stay@lumen.example>",
            body: "Your reservation code is 55123. Booking reference: 482913.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "amazon order confirmation",
            subject: "Your Amazon.com order #112-4567890-1234567",
            from: "Amazon.com <auto-confirm@amazon.com>",
            body: "Order #112-4567890-1234567\nPlaced on December 2, 2026\nItem subtotal: $12.99\nShipping: $4.99\nOrder total: $17.98\nView or manage your order: https://www.amazon.com/gp/your-account/order-details?orderID=112-4567890-1234567",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "order number and price with a neutral subject",
            subject: "Thanks for shopping",
            from: "Shop <noreply@shop.example>",
            body: "Order 1234567 is confirmed. Total: 49.99 USD.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "shipping tracking number and tracking link",
            subject: "Your package has shipped",
            from: "UPS <mcinfo@ups.com>",
            body: "Tracking number: 1Z999AA10123456784\nTrack your package: https://www.ups.com/track?loc=en_US&tracknum=1Z999AA10123456784\nEstimated delivery: Thu 12/03/2026",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "tracking with a neutral subject",
            subject: "Update from FedEx",
            from: "FedEx <TrackingUpdates@fedex.com>",
            body: "Tracking 48291377 is out for delivery. Track it: https://www.fedex.com/fedextrack/?trknbr=482913774012&trkqual=2460000~482913774012~FDEG",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "meeting invite with dates, times, dial-in and room",
            subject: "Invitation: Weekly sync @ Wed Dec 2, 2026 2pm - 3pm (PST)",
            from: "Dana <dana@corp.example>",
            body: "Join with Google Meet: https://meet.google.com/abc-defg-hij\nJoin by phone: (US) +1 415-555-0142 PIN: 482 913 562#\nMeeting ID: 845 3921 2345\nWhen: 2026-12-02 14:00–15:00\nWhere: Room 4021, Building 43",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "invoice with amount, due date and pay link",
            subject: "Invoice INV-2026-0042 from Acme",
            from: "Acme Billing <billing@acme.example>",
            body: "Invoice number: 48213\nAmount due: $1,250.00\nDue date: 12/02/2026\nPay online: https://pay.acme.com/invoice/48213?ref=email",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "invoice and reference with a neutral subject",
            subject: "Payment request",
            from: "Acme Billing <billing@acme.example>",
            body: "Invoice 48213 for $1,250.00 is due on 2026-12-02. Reference: RCPT-48213.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "newsletter with ordinary links, a promo code and a phone",
            subject: "The Weekly Digest — 5 stories",
            from: "Example News <news@example.com>",
            body: "Read: https://example.com/blog/post-title\nOur 2026 roadmap: https://news.example.com/2026/12/02/roadmap?utm_source=newsletter&utm_medium=email\nUse code SAVE20 at checkout for 20% off.\nCall 555-123-4567.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "unsubscribe and preferences links with tokens",
            subject: "Weekly digest",
            from: "Example News <news@example.com>",
            body: "Unsubscribe: https://example.com/unsubscribe?token=abc123def456ghi789jkl\nManage preferences: https://example.com/preferences?u=8f3d2c1b9a7e6d5c4b3a",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "receipt with reference code, card ending, date and time",
            subject: "Thanks for your visit",
            from: "Acme Coffee <receipts@coffee.example>",
            body: "Receipt #2043\nReference code: 7Q2K9X\nTotal: £4.50\nPaid with card ending in 4821 on 02/12/2026 at 08:15.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "security alert without a code: date, time, IP and zip kept",
            subject: "Security alert",
            from: "Google <no-reply@accounts.google.com>",
            body: "A new sign-in on Windows\n\nWe noticed a new sign-in to your Google Account on 2026-12-02 at 14:30 from 203.0.113.45 near Seattle, WA 98101. If this was you, you don't need to do anything.\n\n© 2026 Google LLC",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "sign-in words next to a price and a date",
            subject: "Renewal",
            from: "Acme <billing@acme.example>",
            body: "Sign in to see your $12.99 renewal on 12/02/2026.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "promo code in a sale mail",
            subject: "20% off this weekend",
            from: "Shop <deals@shop.example>",
            body: "Use promo code SAVE2026 at checkout. Offer ends 12/06/2026.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "order subject keeps all its codes",
            subject: "Your order 1234 has shipped",
            from: "Shop <noreply@shop.example>",
            body: "Order 1234 shipped. Delivery code: 5567",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "statement link with a token but no sign-in look",
            subject: "Your statement is ready",
            from: "Bank <statements@bank.example>",
            body: "View your statement: https://bank.example.com/statements/view?id=8f3d2c1b9a7e6d5c4b3a",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "blog slug with sign-in words is no token",
            subject: "New post",
            from: "Blog <blog@example.com>",
            body: "How to sign in faster: https://example.com/blog/how-to-sign-in-faster-2026",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "username in a sign-in alert",
            subject: "New sign-in",
            from: "Forum <noreply@forum.example>",
            body: "New sign-in to bob1984's account.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "address with zip and no cue",
            subject: "Shipping address updated",
            from: "Shop <noreply@shop.example>",
            body: "Ship to: 1 Main St, Springfield, IL 62704",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "verification mail: sign-in link hidden, its unsubscribe link kept",
            subject: "Verify your email",
            from: "Example <hello@example.com>",
            body: "Click https://example.com/e/8f3d2c1b9a7e6d5c4b3a2f1e to verify.\nUnsubscribe: https://example.com/u/1a2b3c4d5e6f7a8b9c0d1e2f",
            gone: &["8f3d2c1b9a7e6d5c4b3a2f1e"],
            kept: &["Unsubscribe: https://example.com/u/1a2b3c4d5e6f7a8b9c0d1e2f"],
            marks: &[S],
        },
        Case {
            name: "security mail keeps its support phone numbers",
            subject: "Security alert",
            from: "Bank <alerts@bank.example>",
            body: "We blocked a sign-in attempt. Questions? Call 555 1234, 555-1234 or 1-800-935-9935 (ext 4821).",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "reset link recognised by its path alone",
            subject: "Hello",
            from: "App <noreply@app.example>",
            body: "Continue here: https://app.example.com/auth/password/reset?token=8f3d2c1b9a7e6d5c",
            gone: &["8f3d2c1b9a7e6d5c"],
            kept: &["Continue here: "],
            marks: &[R],
        },
        Case {
            name: "article slug about 2FA is no sign-in token",
            subject: "This week in security",
            from: "Blog <blog@example.com>",
            body: "Read our guide: https://example.com/blog/how-to-sign-in-with-2fa-and-u2f-keys-v2",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "quantities kept in a verification mail",
            subject: "Your verification code",
            from: "Acme <hello@acme.example>",
            body: "Your verification code is 482913. It expires in 1440 minutes, and you have 2500 points.",
            gone: &["482913"],
            kept: &["1440 minutes", "2500 points"],
            marks: &[C],
        },
        Case {
            name: "code before 'is your code' with no other cue",
            subject: "Hi",
            from: "Acme <hello@acme.example>",
            body: "482913 is your code.",
            gone: &["482913"],
            kept: &[" is your code."],
            marks: &[C],
        },
        Case {
            name: "booking reference before its label, from a security sender",
            subject: "Trip",
            from: "Travel Security <security@travel.example>",
            body: "X7YZ9Q is your booking reference.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "customer id kept next to a sign-in code",
            subject: "Your sign-in code",
            from: "Acme <hello@acme.example>",
            body: "Customer ID: 48213\nYour sign-in code is 739201.",
            gone: &["739201"],
            kept: &["Customer ID: 48213"],
            marks: &[C],
        },
        Case {
            name: "'Order No.' does not end the sentence",
            subject: "Your verification code",
            from: "Shop <noreply@shop.example>",
            body: "Order No. 48213 is on its way.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "a cue in the previous sentence does not reach a number",
            subject: "Locker update",
            from: "Gym <hello@gym.example>",
            body: "Sign in to the portal to see more. Locker 48213 opens at noon.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "'your … code' right before the number",
            subject: "Hi",
            from: "Acme <hello@acme.example>",
            body: "Here is your Instagram code 123456",
            gone: &["123456"],
            kept: &["Here is your Instagram code "],
            marks: &[C],
        },
        Case {
            name: "numbers inside links and addresses are never codes",
            subject: "Your verification code",
            from: "Acme <hello@acme.example>",
            body: "Your verification code is 739201. Help: https://help.example.com/articles/482913 or write to user482913@example.com.",
            gone: &["739201"],
            kept: &[
                "https://help.example.com/articles/482913",
                "user482913@example.com",
            ],
            marks: &[C],
        },
        Case {
            name: "a discount-code subject is no sign-in subject",
            subject: "Your discount code inside",
            from: "Shop <deals@shop.example>",
            body: "Hi,\n\nSAVE2026\n\nEnjoy!",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "copyright year range in a security mail",
            subject: "Security alert",
            from: "Acme <security@acme.example>",
            body: "© 2020-2026 Acme Inc. All rights reserved.",
            gone: &[],
            kept: &[],
            marks: &[],
        },
        Case {
            name: "numbers with units and years in a plain mail",
            subject: "Your year in review",
            from: "Fitness <hello@fit.example>",
            body: "In 2026 you walked 1500 miles and burned 98000 calories. Contact: help@fit.example",
            gone: &[],
            kept: &[],
            marks: &[],
        },
    ];

    #[test]
    fn all_patterns_compile() {
        for pattern in [
            &LABEL,
            &CANDIDATE,
            &EMAIL_ADDRESS,
            &SUBJECT_BOOKING,
            &SUBJECT_PROMO,
            &SENDER_CUE,
            &LINK_WORDS,
            &URL_WORDS,
            &URL_QUERY_WORDS,
            &ANCHOR_TEXT,
        ] {
            assert!(!pattern.as_str().is_empty());
        }
    }

    /// Texts for the `group_of`/`label_of` consistency checks: every table case plus shapes
    /// that the table does not show.
    fn corpus() -> Vec<&'static str> {
        let mut texts: Vec<&str> = CASES
            .iter()
            .flat_map(|c| [c.subject, c.from, c.body])
            .collect();
        texts.extend([
            "USD 12, eur12.50, Rs. 500, rs 20, CHF 1'000, usd",
            "Suite 400, apt 4, P.O. Box 12, p.o. box 7, PO Box 9, box 12, ste1234, unit12abc, Floor 3",
            "1 555-123-4567, 555.123.4567, 555-1234, 1-800-935-9935, +1 (555) 123-4567, (555)123-4567",
            "12.02.2026, 12-34-56, 2026-13-45, 12/34/56, 123-456, 2020-2026, 1.2.3.4, 14:30:00",
            "#A1-2, # 482913, 12 34 56, 845 3921 2345, 845 392, 1234 5678, 12 345",
            "A1B2C3, abc123, 128GB, 1080p, 10am, ABC-123, abc-123, INV-2026-0042, G-482913",
            ", CA 94043, ,WA 98052-1234, , 10115 Berlin, 1600 Amphitheatre Parkway, 12 Main St",
            "12,99 €1,200 £4.50 ¥500 ₹999 $ 5 1,200.00 3.14159",
            "sign-in sign_in signin log-in logging in signed in one time one-time 2-step two factor",
            "e-ticket etickets record locator confirmation no conf. no conf number last 4 digits",
            "post code postcode meeting id dial-in account number acct ending in ends in",
            "use the following code enter the code code below pass code access code PIN Codes",
        ]);
        texts
    }

    #[test]
    fn word_lists_are_sorted() {
        for list in [KEEP_WORDS, WEAK_KEEP_WORDS, UNITS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn group_matches_captures() {
        let groups = [
            ("price", Group::Price),
            ("phone", Group::Phone),
            ("addr", Group::Addr),
            ("date", Group::Date),
            ("num", Group::Num),
            ("run", Group::Run),
            ("prefixed", Group::Prefixed),
            ("dashed", Group::Dashed),
            ("spaced", Group::Spaced),
            ("digits", Group::Digits),
            ("upper", Group::Upper),
            ("lower", Group::Lower),
        ];
        let mut checked = 0;
        for text in corpus() {
            for caps in CANDIDATE.captures_iter(text) {
                let want = groups
                    .iter()
                    .find(|(name, _)| caps.name(name).is_some())
                    .map(|(_, g)| *g);
                assert_eq!(Some(group_of(&caps[0])), want, "{:?} in {text:?}", &caps[0]);
                checked += 1;
            }
        }
        assert!(checked > 150, "only {checked} matches checked");
    }

    #[test]
    fn label_matches_captures() {
        let labels = [
            ("cue", Label::Cue),
            ("keep", Label::Keep),
            ("weak", Label::WeakKeep),
            ("code", Label::Code),
        ];
        let mut checked = 0;
        for text in corpus() {
            for caps in LABEL.captures_iter(text) {
                let want = labels
                    .iter()
                    .find(|(name, _)| caps.name(name).is_some())
                    .map(|(_, l)| *l);
                assert!(
                    Some(label_of(&caps[0])) == want,
                    "{:?} in {text:?}",
                    &caps[0]
                );
                checked += 1;
            }
        }
        assert!(checked > 200, "only {checked} labels checked");
    }

    #[test]
    fn email_table() {
        assert!(CASES.len() >= 45, "only {} cases", CASES.len());
        let mut failures = Vec::new();
        for case in CASES {
            let out = mask_text(case.subject, case.from, case.body);
            let mut problems = Vec::new();
            if case.marks.is_empty() && out != case.body {
                problems.push("expected no change".to_owned());
            }
            for m in case.marks {
                if !out.contains(m) {
                    problems.push(format!("missing {m}"));
                }
            }
            for g in case.gone {
                if out.contains(g) {
                    problems.push(format!("still shows {g:?}"));
                }
            }
            for k in case.kept {
                if !out.contains(k) {
                    problems.push(format!("lost {k:?}"));
                }
            }
            if !problems.is_empty() {
                failures.push(format!(
                    "{}: {}\n  got: {out:?}",
                    case.name,
                    problems.join(", ")
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn subjects() {
        let cases = [
            (
                "123456 is your Instagram code",
                "[one-time code hidden] is your Instagram code",
            ),
            ("Your code is 123456", "Your code is [one-time code hidden]"),
            (
                "G-482913 is your Google verification code",
                "[one-time code hidden] is your Google verification code",
            ),
            (
                "Slack confirmation code: ABC-123",
                "Slack confirmation code: [one-time code hidden]",
            ),
            (
                "Your one-time code: 845 392",
                "Your one-time code: [one-time code hidden]",
            ),
            (
                "Your Amazon.com order #112-4567890-1234567 has shipped",
                "Your Amazon.com order #112-4567890-1234567 has shipped",
            ),
            (
                "Booking confirmed: PNR X7YZ9Q",
                "Booking confirmed: PNR X7YZ9Q",
            ),
            (
                "Invitation: Sync @ Wed Dec 2, 2026 2pm",
                "Invitation: Sync @ Wed Dec 2, 2026 2pm",
            ),
            ("Your 2026 year in review", "Your 2026 year in review"),
        ];
        for (subject, want) in cases {
            assert_eq!(
                mask_subject(subject, "Someone <a@b.example>"),
                want,
                "{subject}"
            );
        }
    }

    #[test]
    fn snippet_on_one_line() {
        let out = mask_text(
            "Your code",
            "Acme <hi@acme.example>",
            "Your verification code is 482913 This code expires in 10 minutes Order #12345 Call 555-123-4567",
        );
        assert_eq!(
            out,
            "Your verification code is [one-time code hidden] This code expires in 10 minutes Order #12345 Call 555-123-4567"
        );
    }

    #[test]
    fn codes_next_to_other_numbers() {
        // A label binds to the first number after it.
        let out = mask_text(
            "Card activity",
            "Bank <bank@bank.example>",
            "Your security code for card ending in 4821 is 583920.",
        );
        assert_eq!(
            out,
            "Your security code for card ending in 4821 is [one-time code hidden]."
        );
        let out = mask_text(
            "Hi",
            "Acme <a@acme.example>",
            "Your security code is 482913, and your reference number is 99812.",
        );
        assert_eq!(
            out,
            "Your security code is [one-time code hidden], and your reference number is 99812."
        );
    }

    #[test]
    fn no_cue_means_no_masking() {
        let body = "Call me at 4821 or 482913 tomorrow; the room is A1B2C3.";
        assert_eq!(mask_text("Lunch?", "Dana <dana@corp.example>", body), body);
    }

    #[test]
    fn gmail_item() {
        let mut item = json!({
            "id": "18c2f",
            "from": "Google <no-reply@accounts.google.com>",
            "subject": "G-482913 is your Google verification code",
            "snippet": "G-482913 is your Google verification code.",
            "body": "Use this code to sign in:\n\n482913\n\nOrder #12345 is unrelated.",
            "labels": ["INBOX"],
            "size": 482_913
        });
        mask_item(&mut item);
        assert_eq!(
            item["subject"],
            "[one-time code hidden] is your Google verification code"
        );
        assert_eq!(
            item["snippet"],
            "[one-time code hidden] is your Google verification code."
        );
        assert_eq!(
            item["body"],
            "Use this code to sign in:\n\n[one-time code hidden]\n\nOrder #12345 is unrelated."
        );
        // Other fields are untouched.
        assert_eq!(item["id"], "18c2f");
        assert_eq!(item["size"], 482_913);
        assert_eq!(item["labels"], json!(["INBOX"]));
    }

    #[test]
    fn imap_item_uses_sender_email() {
        let mut item = json!({
            "sender_email": "security@acme.example",
            "subject": "Hello",
            "body": "Hi Bob,\n\n628194\n\nThe Acme team",
        });
        mask_item(&mut item);
        assert_eq!(
            item["body"],
            "Hi Bob,\n\n[one-time code hidden]\n\nThe Acme team"
        );
    }

    #[test]
    fn thread_messages() {
        let mut thread = json!({
            "subject": "Trip planning",
            "from": "Dana <dana@corp.example>",
            "snippet": "Booking reference: 482913",
            "messages": [
                {
                    "from": "Acme <no-reply@acme.example>",
                    "subject": "Your Acme sign-in code",
                    "body": "Hi,\n\n739201\n\nThanks",
                },
                {
                    "from": "Dana <dana@corp.example>",
                    "body": "Flight booked, PNR X7YZ9Q. Reset your password here: https://acme.example.com/reset?token=8f3d2c1b9a7e6d5c4b3a",
                },
                "not an object",
                { "subject": 42, "body": null }
            ]
        });
        mask_item(&mut thread);
        assert_eq!(thread["snippet"], "Booking reference: 482913");
        assert_eq!(
            thread["messages"][0]["body"],
            "Hi,\n\n[one-time code hidden]\n\nThanks"
        );
        assert_eq!(
            thread["messages"][1]["body"],
            "Flight booked, PNR X7YZ9Q. Reset your password here: [password reset link hidden]"
        );
        assert_eq!(thread["messages"][2], "not an object");
        assert_eq!(
            thread["messages"][3],
            json!({ "subject": 42, "body": null })
        );
    }

    #[test]
    fn non_objects_are_left_alone() {
        for mut v in [
            json!(null),
            json!("Your code is 123456"),
            json!([{"subject": "Your code is 123456"}]),
            json!(7),
        ] {
            let before = v.clone();
            mask_item(&mut v);
            assert_eq!(v, before);
        }
        let mut missing = json!({ "from": "security@acme.example" });
        mask_item(&mut missing);
        assert_eq!(missing, json!({ "from": "security@acme.example" }));
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let digits = "7".repeat(100_000);
        let spaced = "1234 ".repeat(20_000);
        let lines = "Your code: 482913\n".repeat(6_000);
        let emoji_code = "🔐 Your code: 482913 🔐 ✅";
        let inputs: Vec<&str> = vec![
            "",
            " ",
            "\n\n\n",
            "😀😀😀",
            "é",
            emoji_code,
            "Your code is ",
            "[Sign in](https://example.com/login?token=",
            "[[[(((<<<https://",
            "https://",
            "www.",
            "#",
            "%%%",
            "code:\n\n\n\n\n482913",
            "Ωcode: 4829134😀",
            "https://example.com/login?token=😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀a1",
            "reset https://x.y/%E2%82%AC%ZZ%a1b2c3d4e5f6g7h8i9j0",
            "1.2.3.4.5.6.7.8.9.0.1.2.3",
            "\r\nYour verification code:\r\n\r\n482913\r\n",
            &digits,
            &spaced,
            &lines,
        ];
        for input in &inputs {
            for subject in [
                "",
                "Your verification code",
                "Reset your password",
                "Order #1",
                "😀",
            ] {
                let out = mask_text(subject, "security@acme.example", input);
                assert!(out.len() <= input.len() + 64 * input.len().max(1));
                let _ = mask_subject(input, input);
            }
        }
        assert_eq!(mask_text("", "", &digits), digits);
        assert_eq!(
            mask_text("", "", emoji_code),
            "🔐 Your code: [one-time code hidden] 🔐 ✅"
        );
        assert_eq!(
            mask_text("", "", "\r\nYour verification code:\r\n\r\n482913\r\n"),
            "\r\nYour verification code:\r\n\r\n[one-time code hidden]\r\n"
        );
        assert!(!mask_text("", "", &lines).contains("482913"));
    }

    #[test]
    fn large_body_is_fast() {
        // Measured in a debug build on a shared 2-core machine: 21-30 ms for this dense body
        // (3,300 numbers and 650 links in 100 KB; ~11 ms for 100 KB of ordinary prose with a
        // date and a link per paragraph). The first call in a process also compiles the
        // patterns (30-80 ms in debug), hence the warm-up. The bound is generous so that a
        // loaded CI machine cannot make it flaky.
        let _ = mask_text(
            "Reset your password",
            "security@acme.example",
            "Code: 482913 https://acme.example/login?token=8f3d2c1b9a7e6d5c and Sign in: https://acme.example/a/8f3d2c1b9a7e6d5c4b3a",
        );
        let paragraph = "Hi Bob, your order #112-4567890 of $12.99 ships on 2026-12-02 at 14:30. \
            Call (555) 123-4567 or read https://example.com/blog/post-title. \
            Use this code to sign in: 482913. Reset: https://acme.example.com/reset?token=8f3d2c1b9a7e6d5c4b3a \
            Booking reference: X7YZ9Q, meeting ID 845 3921 2345, Room 4021. 🙂\n";
        let body = paragraph.repeat(100_000 / paragraph.len() + 1);
        assert!(body.len() >= 100_000);
        let started = std::time::Instant::now();
        let out = mask_text("Weekly update", "Dana <dana@corp.example>", &body);
        let elapsed = started.elapsed();
        assert!(!out.contains("482913"));
        assert!(out.contains("X7YZ9Q"));
        assert!(out.contains("(555) 123-4567"));
        assert_eq!(
            out.matches(RESET_LINK_HIDDEN).count(),
            body.matches("/reset?").count()
        );
        assert!(
            elapsed < std::time::Duration::from_secs(2),
            "took {elapsed:?}"
        );
    }

    #[test]
    fn masking_twice_changes_nothing_more() {
        // The proactive pipeline and follow-ups mask again before their prompts.
        for case in CASES {
            let once = mask_text(case.subject, case.from, case.body);
            assert_eq!(
                mask_text(case.subject, case.from, &once),
                once,
                "{}",
                case.name
            );
        }
    }
}
