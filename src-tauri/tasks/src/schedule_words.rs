//! Schedules read from the person's own words, without a model: "every weekday at 9",
//! "tomorrow at 6pm", "every 2 hours", "on the first of the month", "when an email arrives".
//! Preview uses this first, so the schedule is right even when the model is slow or missing,
//! and the planner's schedule is checked against it (the words win). Anything it does not
//! recognise is left to the model (`None`).
//!
//! The words are read as tokens: a time zone ("Tokyo time", "UTC", "Europe/Berlin", "PST") is
//! taken out first, then a trigger, an interval, the days of a recurrence, or one day and time.

use chrono::{DateTime, Datelike, Days, Duration, NaiveDate, NaiveTime, Timelike, Utc, Weekday};
use chrono_tz::Tz;
use serde_json::Map;

use sentient_core::domain::task::{Frequency, Schedule};

use crate::schedule::{day_name, parse_day};

/// What the words are read against.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub now: DateTime<Utc>,
    /// The person's time zone, used unless the words name another.
    pub timezone: &'a str,
    /// The email app "when an email arrives" means (the connected one; Gmail by default).
    pub email_source: &'a str,
}

/// The schedule the words describe, or `None` when they describe none this reader knows.
pub fn schedule_in(text: &str, ctx: &Context<'_>) -> Option<Schedule> {
    let mut words = tokens(text);
    let zone_name = take_zone(&mut words).unwrap_or_else(|| ctx.timezone.to_owned());
    let zone: Tz = zone_name.parse().ok()?;
    let now = ctx.now.with_timezone(&zone).naive_local();
    if let Some(schedule) = trigger(&words, ctx.email_source, &zone_name) {
        return Some(schedule);
    }
    if let Some(minutes) = interval(&words) {
        return (minutes >= 5).then(|| Schedule::Recurring {
            frequency: Frequency::Interval,
            days: Vec::new(),
            time: None,
            interval_minutes: Some(minutes),
            timezone: zone_name.clone(),
            catch_up: None,
        });
    }
    let time = time_of_day(&words);
    if let Some((frequency, days)) = recurrence(&words, now.weekday()) {
        let time = time.unwrap_or(NaiveTime::from_hms_opt(9, 0, 0)?);
        return Some(Schedule::Recurring {
            frequency,
            days,
            time: Some(time.format("%H:%M").to_string()),
            interval_minutes: None,
            timezone: zone_name,
            catch_up: None,
        });
    }
    let run_at = one_off(&words, now, time)?;
    Some(Schedule::Once {
        run_at: Some(run_at.format("%Y-%m-%dT%H:%M").to_string()),
        timezone: zone_name,
        catch_up: None,
    })
}

/// A short title for a task from its prompt: the words that are not about when, at most six,
/// cut as [`whole_words`] does.
pub fn title_of(prompt: &str) -> String {
    let words = tokens(prompt);
    let mut kept: Vec<&str> = Vec::new();
    let mut cut = false;
    for (original, word) in prompt.split_whitespace().zip(words.iter()) {
        let when = is_when_word(word);
        let trimmed = original.trim_matches(|c: char| c.is_ascii_punctuation());
        let filler = matches!(
            trimmed.to_ascii_lowercase().as_str(),
            "please" | "can" | "you" | "could"
        );
        if !when && !filler && !trimmed.is_empty() {
            if kept.len() == 6 {
                cut = true;
                break;
            }
            kept.push(trimmed);
        }
        // The first sentence is the name's whole source ("a.m." ends none).
        if !kept.is_empty()
            && ends_sentence(original)
            && !original[..original.len() - 1].contains('.')
        {
            break;
        }
    }
    let title = whole_words(&kept, cut, NAME_CHARS);
    let mut chars = title.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "New task".to_owned(),
    }
}

/// The longest name made from a prompt's words.
pub const NAME_CHARS: usize = 60;

/// Words a shortened name never ends on: after one it reads as cut off mid-sentence.
const DANGLING: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "then", "to", "of", "for", "with", "from", "in", "on",
    "at", "by", "about", "into", "my", "your", "our", "their", "his", "her", "its", "me", "us",
    "that", "which", "who", "if", "so", "as", "is", "are", "be", "all", "any", "some",
];

fn dangling(word: &str) -> bool {
    DANGLING.contains(&word.to_lowercase().as_str())
}

/// A word that ends a sentence or clause ("news.", "first;").
pub fn ends_sentence(word: &str) -> bool {
    word.ends_with(['.', '!', '?', ';', ':'])
}

/// `words` as a name of at most `max_chars` characters, cut at a whole word. `cut` says that
/// words of the sentence were left out: then the name stops at a clause ("Check the weather"
/// of "check the weather and tell me if it rains") or, without one, at its last word that
/// isn't "the", "and", "to"... and ends with "…", so it never reads as a sentence cut short.
pub fn whole_words(words: &[&str], cut: bool, max_chars: usize) -> String {
    let mut kept: Vec<&str> = words.to_vec();
    if !cut && kept.join(" ").chars().count() <= max_chars {
        return kept.join(" ");
    }
    // Too long: leave out words from the end until it fits with the "…".
    while kept.len() > 1 && kept.join(" ").chars().count() + 1 > max_chars {
        kept.pop();
    }
    // A clause that starts after the second word: the name is the clause before it.
    if let Some(at) = (2..kept.len()).rev().find(|&i| {
        matches!(kept[i].to_lowercase().as_str(), "and" | "then" | "but")
            || kept[i - 1].ends_with(',')
    }) {
        kept.truncate(at);
        return kept.join(" ").trim_end_matches(',').to_owned();
    }
    while kept.len() > 1 && kept.last().is_some_and(|w| dangling(w)) {
        kept.pop();
    }
    let mut name = kept.join(" ");
    if name.chars().count() > max_chars - 1 {
        // One word longer than a name: cut it, the only place a name is cut inside a word.
        name = name.chars().take(max_chars - 1).collect();
    }
    name.push('…');
    name
}

/// Lower-case words, with the punctuation that ends them taken off (`9:30` and `Europe/Berlin`
/// stay whole). One token per whitespace-separated word, so [`title_of`] can pair them.
fn tokens(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| {
                matches!(c, ',' | '.' | '!' | '?' | ';' | '(' | ')' | '"' | '\'')
            })
            .to_lowercase()
        })
        .collect()
}

fn is_when_word(word: &str) -> bool {
    const WHEN: &[&str] = &[
        "every",
        "each",
        "daily",
        "weekly",
        "hourly",
        "at",
        "on",
        "in",
        "from",
        "tomorrow",
        "today",
        "tonight",
        "morning",
        "afternoon",
        "evening",
        "night",
        "noon",
        "midnight",
        "am",
        "pm",
        "a.m",
        "p.m",
        "next",
        "this",
        "weekday",
        "weekdays",
        "weekend",
        "weekends",
        "minute",
        "minutes",
        "hour",
        "hours",
        "mins",
        "min",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "utc",
        "gmt",
        "o'clock",
    ];
    WHEN.contains(&word)
        || parse_day(word).is_some()
        || clock_time(word, None).is_some()
        || word.chars().all(|c| c.is_ascii_digit())
        || word.contains('/')
}

/// Common abbreviations and the zone each means here.
const ZONE_ABBREVIATIONS: &[(&str, &str)] = &[
    ("utc", "UTC"),
    ("gmt", "UTC"),
    ("pst", "America/Los_Angeles"),
    ("pdt", "America/Los_Angeles"),
    ("pt", "America/Los_Angeles"),
    ("mst", "America/Denver"),
    ("mdt", "America/Denver"),
    ("cst", "America/Chicago"),
    ("cdt", "America/Chicago"),
    ("est", "America/New_York"),
    ("edt", "America/New_York"),
    ("et", "America/New_York"),
    ("bst", "Europe/London"),
    ("cet", "Europe/Berlin"),
    ("cest", "Europe/Berlin"),
    ("ist", "Asia/Kolkata"),
    ("jst", "Asia/Tokyo"),
    ("aest", "Australia/Sydney"),
];

/// Takes a named time zone out of the words: an IANA name, an abbreviation, or "<city> time".
fn take_zone(words: &mut Vec<String>) -> Option<String> {
    for i in 0..words.len() {
        let word = words[i].clone();
        if word.contains('/')
            && let Some(zone) = chrono_tz::TZ_VARIANTS
                .iter()
                .find(|z| z.name().eq_ignore_ascii_case(&word))
        {
            words.remove(i);
            return Some(zone.name().to_owned());
        }
        if let Some((_, zone)) = ZONE_ABBREVIATIONS.iter().find(|(abbr, _)| *abbr == word) {
            let standalone = word.len() > 2 || words.get(i + 1).is_some_and(|w| w == "time");
            if standalone {
                words.remove(i);
                if words.get(i).is_some_and(|w| w == "time") {
                    words.remove(i);
                }
                return Some((*zone).to_owned());
            }
        }
        // "Tokyo time", "New York time", "in London time".
        if word == "time" && i > 0 {
            for span in (1..=3.min(i)).rev() {
                let city = words[i - span..i].join("_");
                let found = chrono_tz::TZ_VARIANTS.iter().find(|z| {
                    z.name()
                        .rsplit('/')
                        .next()
                        .is_some_and(|last| last.eq_ignore_ascii_case(&city))
                });
                if let Some(zone) = found {
                    let mut from = i - span;
                    if from > 0 && words[from - 1] == "in" {
                        from -= 1;
                    }
                    words.drain(from..=i);
                    return Some(zone.name().to_owned());
                }
            }
        }
    }
    None
}

fn has(words: &[String], word: &str) -> bool {
    words.iter().any(|w| w == word)
}

fn has_any(words: &[String], any: &[&str]) -> bool {
    words.iter().any(|w| any.contains(&w.as_str()))
}

/// "When an email arrives", "whenever I get a new email", "when a calendar event is added".
fn trigger(words: &[String], email_source: &str, timezone: &str) -> Option<Schedule> {
    let when = has_any(words, &["when", "whenever"])
        || words.windows(2).any(|w| w[0] == "each" && w[1] == "time")
        || words.windows(2).any(|w| w[0] == "every" && w[1] == "time");
    if !when {
        return None;
    }
    let (source, event) = if has_any(words, &["email", "emails", "mail", "e-mail"]) {
        (email_source, "new_email")
    } else if has_any(
        words,
        &["calendar", "event", "meeting", "invite", "invitation"],
    ) {
        ("gcalendar", "new_event")
    } else {
        return None;
    };
    Some(Schedule::Triggered {
        source: source.to_owned(),
        event: event.to_owned(),
        filter: Map::new(),
        timezone: timezone.to_owned(),
    })
}

/// A count word or number: "2", "two", "a", "an".
fn count(word: &str) -> Option<u32> {
    const WORDS: &[(&str, u32)] = &[
        ("a", 1),
        ("an", 1),
        ("one", 1),
        ("two", 2),
        ("three", 3),
        ("four", 4),
        ("five", 5),
        ("six", 6),
        ("ten", 10),
        ("twelve", 12),
        ("fifteen", 15),
        ("twenty", 20),
        ("thirty", 30),
        ("forty-five", 45),
    ];
    word.parse()
        .ok()
        .or_else(|| WORDS.iter().find(|(w, _)| *w == word).map(|(_, n)| *n))
}

/// Minutes in one unit word, for "every 2 hours" and "in 30 minutes".
fn unit_minutes(word: &str) -> Option<u32> {
    match word {
        "minute" | "minutes" | "min" | "mins" => Some(1),
        "hour" | "hours" | "hr" | "hrs" => Some(60),
        _ => None,
    }
}

/// "every 2 hours", "every hour", "hourly", "every 30 minutes", "every half hour".
fn interval(words: &[String]) -> Option<u32> {
    if has(words, "hourly") {
        return Some(60);
    }
    for (i, word) in words.iter().enumerate() {
        if word != "every" {
            continue;
        }
        let next = words.get(i + 1).map(String::as_str);
        let after = words.get(i + 2).map(String::as_str);
        if let Some(unit) = next.and_then(unit_minutes) {
            return Some(unit);
        }
        if next == Some("half") && after.is_some_and(|w| w == "hour") {
            return Some(30);
        }
        if let (Some(n), Some(unit)) = (next.and_then(count), after.and_then(unit_minutes)) {
            return Some(n * unit);
        }
    }
    None
}

/// A clock time in one word, with the next word when it is "am" or "pm": "9", "9am", "9:30",
/// "21:00", "6pm", "noon", "midnight".
fn clock_time(word: &str, next: Option<&str>) -> Option<NaiveTime> {
    match word {
        "noon" | "midday" => return NaiveTime::from_hms_opt(12, 0, 0),
        "midnight" => return NaiveTime::from_hms_opt(0, 0, 0),
        _ => {}
    }
    let (digits, suffix) = match word.find(|c: char| !c.is_ascii_digit() && c != ':') {
        Some(at) => (&word[..at], Some(&word[at..])),
        None => (
            word,
            next.filter(|n| matches!(*n, "am" | "pm" | "a.m" | "p.m")),
        ),
    };
    if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let (hour, minute) = match digits.split_once(':') {
        Some((h, m)) if m.len() == 2 => (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?),
        Some(_) => return None,
        None if digits.len() <= 2 => (digits.parse::<u32>().ok()?, 0),
        None => return None,
    };
    let hour = match suffix.map(|s| s.trim_matches('.')) {
        None => hour,
        Some("am" | "a.m") if (1..=12).contains(&hour) => hour % 12,
        Some("pm" | "p.m") if (1..=12).contains(&hour) => hour % 12 + 12,
        Some("h") => hour,
        Some(_) => return None,
    };
    NaiveTime::from_hms_opt(hour, minute, 0)
}

/// The time of day the words give: "at 9", "9:30pm", "noon"; else a part of the day ("tomorrow
/// morning" is 08:00). A bare hour is in the evening when the words say so ("at 7 tonight").
fn time_of_day(words: &[String]) -> Option<NaiveTime> {
    let evening = has_any(words, &["evening", "tonight", "night"]);
    let afternoon = has(words, "afternoon");
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str);
        let after_at = i > 0 && words[i - 1] == "at";
        let plain = word.chars().all(|c| c.is_ascii_digit() || c == ':');
        // A bare number is a time only after "at" ("every 2 hours" is not 2 o'clock).
        if plain && !after_at && !next.is_some_and(|n| matches!(n, "am" | "pm" | "o'clock")) {
            continue;
        }
        if let Some(time) = clock_time(word, next) {
            let bare = plain && !next.is_some_and(|n| matches!(n, "am" | "pm"));
            if bare && (evening || afternoon) && (1..12).contains(&time.hour()) {
                return Some(time + Duration::hours(12));
            }
            return Some(time);
        }
    }
    let part = if has(words, "morning") {
        8
    } else if afternoon {
        14
    } else if has(words, "evening") {
        18
    } else if has_any(words, &["tonight", "night"]) {
        21
    } else {
        return None;
    };
    NaiveTime::from_hms_opt(part, 0, 0)
}

const WEEKDAYS: [Weekday; 5] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
];

/// A recurrence: daily, weekdays, weekends, or named days ("every Monday and Thursday",
/// "Mondays", "weekly on Friday"). "Every week" alone repeats on today's weekday.
fn recurrence(words: &[String], today: Weekday) -> Option<(Frequency, Vec<String>)> {
    let names = |days: &[Weekday]| days.iter().map(|d| day_name(*d).to_owned()).collect();
    let every = has_any(words, &["every", "each"]);
    if has_any(words, &["weekdays", "workday", "workdays"])
        || (every && has(words, "weekday"))
        || words.windows(3).any(|w| {
            parse_day(&w[0]) == Some(Weekday::Mon)
                && matches!(w[1].as_str(), "to" | "through" | "-")
                && parse_day(&w[2]) == Some(Weekday::Fri)
        })
        || has_any(words, &["mon-fri", "monday-friday"])
    {
        return Some((Frequency::Weekly, names(&WEEKDAYS)));
    }
    if has(words, "weekends") || (every && has(words, "weekend")) {
        return Some((Frequency::Weekly, names(&[Weekday::Sat, Weekday::Sun])));
    }
    // Named days count when the words repeat ("every", "each", "weekly") or the day is plural.
    let mut days: Vec<Weekday> = Vec::new();
    let mut plural = false;
    for word in words {
        if word.len() >= 3
            && !matches!(word.as_str(), "month" | "months" | "sun" | "sat")
            && let Some(day) = parse_day(word)
        {
            plural |= word.ends_with('s') && !day_name(day).eq_ignore_ascii_case(word);
            if !days.contains(&day) {
                days.push(day);
            }
        }
    }
    let weekly = has(words, "weekly") || (every && has(words, "week"));
    if !days.is_empty() && (every || plural || weekly) {
        days.sort_by_key(Weekday::num_days_from_monday);
        return Some((Frequency::Weekly, names(&days)));
    }
    if weekly {
        return Some((Frequency::Weekly, names(&[today])));
    }
    let daily = has_any(words, &["daily", "everyday"])
        || (every && has_any(words, &["day", "morning", "afternoon", "evening", "night"]));
    daily.then(|| (Frequency::Daily, Vec::new()))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn month_of(word: &str) -> Option<u32> {
    (word.len() >= 3)
        .then(|| MONTHS.iter().position(|m| m.starts_with(word)))
        .flatten()
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// "24", "24th", "1st", "first".
fn day_of_month(word: &str) -> Option<u32> {
    let ordinal = ["first", "second", "third", "fourth", "fifth"]
        .iter()
        .position(|w| *w == word);
    if let Some(i) = ordinal {
        return u32::try_from(i + 1).ok();
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: u32 = digits.parse().ok()?;
    (1..=31).contains(&n).then_some(n)
}

/// The next date (today or later) with this month and day; next year once it has passed.
fn next_date(today: NaiveDate, month: u32, day: u32) -> Option<NaiveDate> {
    let this_year = NaiveDate::from_ymd_opt(today.year(), month, day)?;
    if this_year >= today {
        Some(this_year)
    } else {
        NaiveDate::from_ymd_opt(today.year() + 1, month, day)
    }
}

/// The one date the words name, if any: today, tomorrow, a weekday, a date.
fn named_date(words: &[String], today: NaiveDate) -> Option<NaiveDate> {
    if words
        .windows(3)
        .any(|w| w[0] == "day" && w[1] == "after" && w[2] == "tomorrow")
    {
        return today.checked_add_days(Days::new(2));
    }
    if has(words, "tomorrow") {
        return today.checked_add_days(Days::new(1));
    }
    if has_any(words, &["today", "tonight"])
        || words
            .windows(2)
            .any(|w| w[0] == "this" && matches!(w[1].as_str(), "morning" | "afternoon" | "evening"))
    {
        return Some(today);
    }
    for (i, word) in words.iter().enumerate() {
        if let Ok(date) = NaiveDate::parse_from_str(word, "%Y-%m-%d") {
            return Some(date);
        }
        // "December 24", "Dec 24th", "24 December", "the 1st of the month".
        if let Some(month) = month_of(word) {
            let around = [i.checked_sub(1), Some(i + 1)];
            let day = around
                .into_iter()
                .flatten()
                .filter_map(|j| words.get(j))
                .find_map(|w| day_of_month(w));
            if let Some(day) = day
                && !is_number_then_unit(words, i)
            {
                return next_date(today, month, day);
            }
        }
        if word == "month" && i >= 2 && words[i - 1] == "the" && words[i - 2] == "of" {
            let day = words.get(i.wrapping_sub(3)).and_then(|w| day_of_month(w))?;
            let this_month = NaiveDate::from_ymd_opt(today.year(), today.month(), day);
            return match this_month {
                Some(date) if date > today => Some(date),
                _ => {
                    let next = today.checked_add_months(chrono::Months::new(1))?;
                    NaiveDate::from_ymd_opt(next.year(), next.month(), day)
                }
            };
        }
    }
    for word in words {
        // "sun" and "sat" are words too; the full names are needed for those days.
        if word.len() < 3 || matches!(word.as_str(), "sun" | "sat") {
            continue;
        }
        if let Some(day) = parse_day(word) {
            let ahead =
                (day.num_days_from_monday() + 7 - today.weekday().num_days_from_monday()) % 7;
            let ahead = if ahead == 0 { 7 } else { ahead };
            return today.checked_add_days(Days::new(u64::from(ahead)));
        }
    }
    None
}

fn is_number_then_unit(words: &[String], i: usize) -> bool {
    words.get(i + 2).and_then(|w| unit_minutes(w)).is_some()
}

/// A one-off time: "in 2 hours", "tomorrow at 6pm", "on Friday", "at 3pm" (today, or tomorrow
/// once it has passed).
fn one_off(
    words: &[String],
    now: chrono::NaiveDateTime,
    time: Option<NaiveTime>,
) -> Option<chrono::NaiveDateTime> {
    for (i, word) in words.iter().enumerate() {
        if word != "in" {
            continue;
        }
        let n = words.get(i + 1).and_then(|w| count(w));
        let unit = words.get(i + 2).map(String::as_str);
        let minutes = match (n, unit) {
            (Some(n), Some(u)) if unit_minutes(u).is_some() => n * unit_minutes(u)?,
            (Some(n), Some("day" | "days")) => n * 24 * 60,
            (Some(n), Some("week" | "weeks")) => n * 7 * 24 * 60,
            _ => {
                if words.get(i + 1).is_some_and(|w| w == "half")
                    && words.get(i + 3).is_some_and(|w| w == "hour")
                {
                    30
                } else {
                    continue;
                }
            }
        };
        let at = now + Duration::minutes(i64::from(minutes));
        return Some(match time {
            Some(t) if minutes >= 24 * 60 => at.date().and_time(t),
            _ => at,
        });
    }
    let date = named_date(words, now.date());
    match (date, time) {
        (Some(date), time) => {
            Some(date.and_time(time.unwrap_or(NaiveTime::from_hms_opt(9, 0, 0)?)))
        }
        (None, Some(time)) => {
            let today = now.date().and_time(time);
            Some(if today > now {
                today
            } else {
                today + Duration::days(1)
            })
        }
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Wednesday 2 December 2026, 10:30 in Pune.
    fn read(text: &str) -> Value {
        let ctx = Context {
            now: DateTime::parse_from_rfc3339("2026-12-02T05:00:00Z")
                .expect("a time")
                .to_utc(),
            timezone: "Asia/Kolkata",
            email_source: "gmail",
        };
        serde_json::to_value(schedule_in(text, &ctx)).expect("json")
    }

    fn once(run_at: &str) -> Value {
        json!({"type": "once", "run_at": run_at, "timezone": "Asia/Kolkata"})
    }

    fn once_in(run_at: &str, zone: &str) -> Value {
        json!({"type": "once", "run_at": run_at, "timezone": zone})
    }

    fn daily(time: &str) -> Value {
        json!({"type": "recurring", "frequency": "daily", "time": time, "timezone": "Asia/Kolkata"})
    }

    fn weekly(days: &[&str], time: &str) -> Value {
        json!({"type": "recurring", "frequency": "weekly", "days": days, "time": time, "timezone": "Asia/Kolkata"})
    }

    fn every(minutes: u32) -> Value {
        json!({"type": "recurring", "frequency": "interval", "interval_minutes": minutes, "timezone": "Asia/Kolkata"})
    }

    const WEEKDAYS: [&str; 5] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

    #[test]
    fn phrasings_become_schedules() {
        let table: Vec<(&str, Value)> = vec![
            // Recurring, daily
            ("Every day at 9 send me the news", daily("09:00")),
            ("every day at 9am", daily("09:00")),
            ("daily at 7:30", daily("07:30")),
            ("Check the weather daily at 6pm", daily("18:00")),
            ("each day at noon", daily("12:00")),
            ("every morning", daily("08:00")),
            ("every morning at 7", daily("07:00")),
            ("every evening", daily("18:00")),
            ("every night at 10pm", daily("22:00")),
            ("every evening at 8", daily("20:00")),
            ("every day", daily("09:00")),
            ("everyday at 21:15", daily("21:15")),
            ("every day at midnight", daily("00:00")),
            // Recurring, weekly
            ("every weekday at 9", weekly(&WEEKDAYS, "09:00")),
            (
                "Weekdays at 8:45am, summarise my inbox",
                weekly(&WEEKDAYS, "08:45"),
            ),
            ("on weekdays at 6 pm", weekly(&WEEKDAYS, "18:00")),
            ("Monday to Friday at 9", weekly(&WEEKDAYS, "09:00")),
            ("every workday at 17:30", weekly(&WEEKDAYS, "17:30")),
            (
                "every weekend at 10",
                weekly(&["Saturday", "Sunday"], "10:00"),
            ),
            ("weekends at 9am", weekly(&["Saturday", "Sunday"], "09:00")),
            ("every Monday at 9", weekly(&["Monday"], "09:00")),
            (
                "every monday and thursday at 6pm",
                weekly(&["Monday", "Thursday"], "18:00"),
            ),
            ("Mondays at 10", weekly(&["Monday"], "10:00")),
            (
                "every Mon, Wed and Fri at 18:00",
                weekly(&["Monday", "Wednesday", "Friday"], "18:00"),
            ),
            ("weekly on Friday", weekly(&["Friday"], "09:00")),
            (
                "every week on tuesday at 4pm",
                weekly(&["Tuesday"], "16:00"),
            ),
            ("every Sunday evening", weekly(&["Sunday"], "18:00")),
            (
                "each Friday at 5pm send the report",
                weekly(&["Friday"], "17:00"),
            ),
            ("every week", weekly(&["Wednesday"], "09:00")),
            (
                "Tuesdays and Thursdays at 7am",
                weekly(&["Tuesday", "Thursday"], "07:00"),
            ),
            // Intervals
            ("every 2 hours", every(120)),
            ("every hour", every(60)),
            ("hourly", every(60)),
            ("every 30 minutes", every(30)),
            ("every 15 mins check the site", every(15)),
            ("every half hour", every(30)),
            ("every 90 minutes", every(90)),
            ("every two hours", every(120)),
            ("every 6 hrs", every(360)),
            // One-off, relative days
            ("tomorrow at 6pm", once("2026-12-03T18:00")),
            (
                "Remind me to call mom tomorrow at 6pm",
                once("2026-12-03T18:00"),
            ),
            ("tomorrow morning", once("2026-12-03T08:00")),
            ("tomorrow", once("2026-12-03T09:00")),
            ("today at 5pm", once("2026-12-02T17:00")),
            ("tonight at 9", once("2026-12-02T21:00")),
            ("this evening", once("2026-12-02T18:00")),
            ("the day after tomorrow at 10", once("2026-12-04T10:00")),
            ("in 2 hours", once("2026-12-02T12:30")),
            ("in 30 minutes", once("2026-12-02T11:00")),
            ("in an hour", once("2026-12-02T11:30")),
            ("in 3 days at 9am", once("2026-12-05T09:00")),
            ("at 3pm", once("2026-12-02T15:00")),
            ("at 9am", once("2026-12-03T09:00")),
            ("on Friday at 10am", once("2026-12-04T10:00")),
            ("next Monday at 9", once("2026-12-07T09:00")),
            ("on Wednesday", once("2026-12-09T09:00")),
            ("on December 24 at 8am", once("2026-12-24T08:00")),
            ("on 24 december", once("2026-12-24T09:00")),
            ("Jan 5th at 14:00", once("2027-01-05T14:00")),
            ("on 2027-03-01 at 07:15", once("2027-03-01T07:15")),
            ("on the first of the month", once("2027-01-01T09:00")),
            ("at noon", once("2026-12-02T12:00")),
            // Time zones
            (
                "every day at 9 Tokyo time",
                json!({"type": "recurring", "frequency": "daily", "time": "09:00", "timezone": "Asia/Tokyo"}),
            ),
            (
                "tomorrow at 9am in New York time",
                once_in("2026-12-03T09:00", "America/New_York"),
            ),
            ("at 9 UTC", once_in("2026-12-02T09:00", "UTC")),
            (
                "every Monday at 8 Europe/Berlin",
                json!({"type": "recurring", "frequency": "weekly", "days": ["Monday"], "time": "08:00", "timezone": "Europe/Berlin"}),
            ),
            // In Los Angeles it is still Tuesday evening: "tomorrow" is Wednesday there.
            (
                "tomorrow at 10am PST",
                once_in("2026-12-02T10:00", "America/Los_Angeles"),
            ),
            (
                "tomorrow at 8 London time",
                once_in("2026-12-03T08:00", "Europe/London"),
            ),
            // Triggers
            (
                "when an email arrives, summarise it",
                json!({"type": "triggered", "source": "gmail", "event": "new_email", "filter": {}, "timezone": "Asia/Kolkata"}),
            ),
            (
                "whenever I get a new email from my bank",
                json!({"type": "triggered", "source": "gmail", "event": "new_email", "filter": {}, "timezone": "Asia/Kolkata"}),
            ),
            (
                "each time a meeting invite comes in",
                json!({"type": "triggered", "source": "gcalendar", "event": "new_event", "filter": {}, "timezone": "Asia/Kolkata"}),
            ),
            // Nothing about when: left to the model.
            ("Summarise the news about the elections", Value::Null),
            ("Check my email", Value::Null),
            ("Write a poem about Saturn", Value::Null),
            ("every 2 minutes", Value::Null),
        ];
        assert!(table.len() >= 60, "{} phrasings", table.len());
        let wrong: Vec<String> = table
            .iter()
            .filter_map(|(text, want)| {
                let got = read(text);
                (got != *want).then(|| format!("{text:?}: got {got}, want {want}"))
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{} wrong:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    #[test]
    fn every_schedule_read_is_one_the_tasks_accept() {
        for text in [
            "every weekday at 9",
            "tomorrow at 6pm",
            "every 2 hours",
            "when an email arrives",
            "every day at 9 Tokyo time",
        ] {
            let value = read(text);
            let parsed = crate::schedule::parse_schedule(&value, "Asia/Kolkata");
            assert!(parsed.is_ok(), "{text}: {value} {parsed:?}");
        }
    }

    #[test]
    fn titles_leave_the_when_out() {
        assert_eq!(
            title_of("Every weekday at 9 send me the top news"),
            "Send me the top news"
        );
        assert_eq!(
            title_of("remind me to call mom tomorrow at 6pm"),
            "Remind me to call mom"
        );
        assert_eq!(
            title_of("Please check the weather every morning and tell me if it rains"),
            "Check the weather"
        );
        assert_eq!(
            title_of("Look up the cheapest flights to Lisbon for the first week of June"),
            "Look up the cheapest flights…"
        );
        assert_eq!(
            title_of("Send me the weather. Also say hello to everyone at work."),
            "Send me the weather"
        );
        assert_eq!(
            title_of("Send me the news every morning. Then water the plants."),
            "Send me the news"
        );
        assert_eq!(
            title_of("Remind me at 9 a.m. to call mom"),
            "Remind me to call mom"
        );
        // Exactly the longest a name may be: kept whole, no "…".
        let sixty = format!("{} {}", "a".repeat(29), "b".repeat(30));
        assert_eq!(whole_words(&["x"; 1], false, 60), "x");
        assert_eq!(
            whole_words(&sixty.split(' ').collect::<Vec<_>>(), false, 60),
            sixty
        );
        assert_eq!(title_of("every day"), "New task");
    }
}
