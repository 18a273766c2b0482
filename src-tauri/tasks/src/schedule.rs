//! Schedule logic (contract section 4): reading the JSON shapes, when a task is next due,
//! what a missed run does, and the plain-language lines the window shows. Pure: time is
//! always passed in.

use chrono::{
    DateTime, Datelike, Duration, LocalResult, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc,
    Weekday,
};
use chrono_tz::Tz;
use serde_json::{Map, Value};

use super::model::{CatchUp, Frequency, Schedule};

/// The shortest interval a recurring task may use.
const MIN_INTERVAL_MINUTES: u32 = 5;

/// The longest DST gap we step over; real gaps are at most a day (Samoa, 2011).
const MAX_GAP_MINUTES: i64 = 48 * 60;

/// The format of a one-off task's `run_at`, a wall-clock time in the schedule's zone.
const RUN_AT_FORMAT: &str = "%Y-%m-%dT%H:%M";

/// Why a schedule can't be saved. Each is one sentence a person can act on (a 400 detail).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("The schedule must be an object with a type of once, recurring or triggered.")]
    NotAnObject,
    #[error("The schedule type must be once, recurring or triggered.")]
    UnknownType,
    #[error("The time zone {0} is not known; use a name like Europe/Berlin.")]
    UnknownTimezone(String),
    #[error("The frequency must be daily, weekly, hourly or interval.")]
    UnknownFrequency,
    #[error("The time must look like 09:00.")]
    BadTime,
    #[error("A weekly schedule needs at least one day, like Monday.")]
    NoDays,
    #[error("{0} is not a day of the week; use names like Monday or Mon.")]
    UnknownDay(String),
    #[error("An interval schedule needs interval_minutes, a whole number of minutes.")]
    BadInterval,
    #[error("The interval must be at least 5 minutes.")]
    IntervalTooShort,
    #[error("The run time must look like 2026-09-16T09:00.")]
    BadRunAt,
    #[error("A triggered schedule needs a source, like gmail or webhook.")]
    MissingSource,
    #[error("A triggered schedule needs an event, like new_email.")]
    MissingEvent,
    #[error("The trigger filter must be an object, like {{\"status\": \"failed\"}}.")]
    BadFilter,
}

/// What the scheduler does with a run whose time has come (section 4, "Missed runs").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUpDecision {
    /// Not late enough to count as missed: run it as usual.
    OnTime,
    /// Missed: run it once now and list it under "ran" in the catch-up notification.
    RunNow,
    /// Missed interval check: run it once now without reporting it.
    RunQuietly,
    /// Missed: don't run it; list it under "skipped".
    Skip,
}

/// Reads a schedule in any of the contract's JSON shapes and normalises it.
pub fn parse_schedule(raw: &Value, default_tz: &str) -> Result<Schedule, ScheduleError> {
    let obj = raw.as_object().ok_or(ScheduleError::NotAnObject)?;
    let kind = obj
        .get("type")
        .and_then(Value::as_str)
        .map(|t| t.trim().to_ascii_lowercase())
        .ok_or(ScheduleError::NotAnObject)?;
    let timezone = parse_timezone(obj.get("timezone"), default_tz)?;
    match kind.as_str() {
        "once" => {
            let run_at = parse_run_at(obj.get("run_at"), zone(&timezone))?;
            Ok(Schedule::Once {
                run_at,
                timezone,
                catch_up: parse_catch_up(obj.get("catch_up")),
            })
        }
        "recurring" => parse_recurring(obj, timezone),
        "triggered" => parse_triggered(obj, timezone),
        _ => Err(ScheduleError::UnknownType),
    }
}

fn parse_recurring(obj: &Map<String, Value>, timezone: String) -> Result<Schedule, ScheduleError> {
    let frequency = obj
        .get("frequency")
        .and_then(Value::as_str)
        .map(|f| f.trim().to_ascii_lowercase())
        .ok_or(ScheduleError::UnknownFrequency)?;
    let catch_up = parse_catch_up(obj.get("catch_up"));
    let (frequency, days, time, interval_minutes) = match frequency.as_str() {
        "daily" => (
            Frequency::Daily,
            Vec::new(),
            Some(parse_time_field(obj)?),
            None,
        ),
        "weekly" => {
            let time = parse_time_field(obj)?;
            (
                Frequency::Weekly,
                parse_days(obj.get("days"))?,
                Some(time),
                None,
            )
        }
        // The contract normalises hourly to an interval, whatever else was sent.
        "hourly" => (Frequency::Interval, Vec::new(), None, Some(60)),
        "interval" => (
            Frequency::Interval,
            Vec::new(),
            None,
            Some(parse_interval(obj.get("interval_minutes"))?),
        ),
        _ => return Err(ScheduleError::UnknownFrequency),
    };
    Ok(Schedule::Recurring {
        frequency,
        days,
        time,
        interval_minutes,
        timezone,
        catch_up,
    })
}

fn parse_triggered(obj: &Map<String, Value>, timezone: String) -> Result<Schedule, ScheduleError> {
    let text = |key: &str| {
        obj.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let source = text("source").ok_or(ScheduleError::MissingSource)?;
    let event = text("event").ok_or(ScheduleError::MissingEvent)?;
    let filter = match obj.get("filter") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err(ScheduleError::BadFilter),
    };
    // Triggered schedules never catch up, so any catch_up sent is dropped here.
    Ok(Schedule::Triggered {
        source,
        event,
        filter,
        timezone,
    })
}

/// Missing, empty or "auto" means the user's zone; a default that isn't a real zone falls
/// back to UTC, since the person saving the schedule can't fix it here.
fn parse_timezone(raw: Option<&Value>, default_tz: &str) -> Result<String, ScheduleError> {
    let given = match raw {
        None | Some(Value::Null) => "",
        Some(Value::String(s)) => s.trim(),
        Some(other) => return Err(ScheduleError::UnknownTimezone(other.to_string())),
    };
    if given.is_empty() || given.eq_ignore_ascii_case("auto") {
        let default_tz = default_tz.trim();
        return Ok(match default_tz.parse::<Tz>() {
            Ok(_) => default_tz.to_owned(),
            Err(_) => "UTC".to_owned(),
        });
    }
    given
        .parse::<Tz>()
        .map(|_| given.to_owned())
        .map_err(|_| ScheduleError::UnknownTimezone(given.to_owned()))
}

/// Only "run" and "skip" survive; the contract drops other values silently.
fn parse_catch_up(raw: Option<&Value>) -> Option<CatchUp> {
    match raw?.as_str()?.trim().to_ascii_lowercase().as_str() {
        "run" => Some(CatchUp::Run),
        "skip" => Some(CatchUp::Skip),
        _ => None,
    }
}

fn parse_time_field(obj: &Map<String, Value>) -> Result<String, ScheduleError> {
    obj.get("time")
        .and_then(Value::as_str)
        .and_then(parse_time)
        .map(|t| t.format("%H:%M").to_string())
        .ok_or(ScheduleError::BadTime)
}

/// `HH:MM` or `H:MM`, 24-hour.
fn parse_time(raw: &str) -> Option<NaiveTime> {
    let (h, m) = raw.trim().split_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) || h.len() > 2 || !digits(m) || m.len() != 2 {
        return None;
    }
    NaiveTime::from_hms_opt(h.parse().ok()?, m.parse().ok()?, 0)
}

fn parse_interval(raw: Option<&Value>) -> Result<u32, ScheduleError> {
    let minutes = match raw {
        Some(Value::Number(n)) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        // Models and forms sometimes send numbers as text.
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
    .ok_or(ScheduleError::BadInterval)?;
    let minutes = u32::try_from(minutes).map_err(|_| ScheduleError::BadInterval)?;
    if minutes < MIN_INTERVAL_MINUTES {
        return Err(ScheduleError::IntervalTooShort);
    }
    Ok(minutes)
}

/// Normalises to `Monday`..`Sunday`, in week order, without repeats.
fn parse_days(raw: Option<&Value>) -> Result<Vec<String>, ScheduleError> {
    let items: Vec<String> = match raw {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(values)) => values
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(ScheduleError::UnknownDay(other.to_string())),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(ScheduleError::UnknownDay(other.to_string())),
    };
    let mut days = [false; 7];
    // "Monday, Friday" and "Monday and Friday" in one string count as two days.
    for item in items
        .iter()
        .flat_map(|s| s.split(','))
        .flat_map(|s| s.split(" and "))
    {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        for day in expand_day(item).ok_or_else(|| ScheduleError::UnknownDay(item.to_owned()))? {
            days[day.num_days_from_monday() as usize] = true;
        }
    }
    let days: Vec<String> = ALL_DAYS
        .into_iter()
        .filter(|d| days[d.num_days_from_monday() as usize])
        .map(|d| day_name(d).to_owned())
        .collect();
    if days.is_empty() {
        return Err(ScheduleError::NoDays);
    }
    Ok(days)
}

/// One day name, an abbreviation or a group such as "weekdays".
fn expand_day(raw: &str) -> Option<Vec<Weekday>> {
    use Weekday::*;
    let word = raw.trim().to_ascii_lowercase();
    let group = match word.as_str() {
        "weekdays" | "weekday" => Some(vec![Mon, Tue, Wed, Thu, Fri]),
        "weekends" | "weekend" => Some(vec![Sat, Sun]),
        "daily" | "every day" | "everyday" | "all" => Some(vec![Mon, Tue, Wed, Thu, Fri, Sat, Sun]),
        _ => None,
    };
    group.or_else(|| parse_day(&word).map(|d| vec![d]))
}

/// A single day: the full name, any prefix of three letters or more, or a plural ("Mondays").
pub(crate) fn parse_day(raw: &str) -> Option<Weekday> {
    let word = raw.trim().to_ascii_lowercase();
    let find = |w: &str| {
        (w.len() >= 3)
            .then(|| {
                ALL_DAYS
                    .into_iter()
                    .find(|d| day_name(*d).to_ascii_lowercase().starts_with(w))
            })
            .flatten()
    };
    find(&word).or_else(|| word.strip_suffix('s').and_then(find))
}

const ALL_DAYS: [Weekday; 7] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
    Weekday::Sat,
    Weekday::Sun,
];

pub(crate) fn day_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "Monday",
        Weekday::Tue => "Tuesday",
        Weekday::Wed => "Wednesday",
        Weekday::Thu => "Thursday",
        Weekday::Fri => "Friday",
        Weekday::Sat => "Saturday",
        Weekday::Sun => "Sunday",
    }
}

/// Null, missing or empty means "as soon as it's approved"; anything else becomes local
/// `YYYY-MM-DDTHH:MM` in the schedule's zone.
fn parse_run_at(raw: Option<&Value>, tz: Tz) -> Result<Option<String>, ScheduleError> {
    match raw {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => local_run_at(s, tz)
            .map(|t| Some(t.format(RUN_AT_FORMAT).to_string()))
            .ok_or(ScheduleError::BadRunAt),
        Some(_) => Err(ScheduleError::BadRunAt),
    }
}

/// A local wall-clock time from `run_at`, with seconds dropped. Times with an offset (RFC 3339)
/// are converted into the zone.
fn local_run_at(raw: &str, tz: Tz) -> Option<NaiveDateTime> {
    let raw = raw.trim();
    let with_offset = DateTime::parse_from_rfc3339(raw).ok().or_else(|| {
        // An offset without seconds, e.g. 2026-09-16T09:00+05:30 or ...T09:00Z.
        let fixed = raw
            .strip_suffix(['Z', 'z'])
            .map(|r| format!("{r}+00:00"))
            .unwrap_or_else(|| raw.to_owned());
        DateTime::parse_from_str(&fixed, "%Y-%m-%dT%H:%M%:z").ok()
    });
    let local = match with_offset {
        Some(t) => t.with_timezone(&tz).naive_local(),
        None => [
            "%Y-%m-%dT%H:%M",
            "%Y-%m-%dT%H:%M:%S%.f",
            "%Y-%m-%d %H:%M",
            "%Y-%m-%d %H:%M:%S%.f",
        ]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(raw, f).ok())?,
    };
    local.with_second(0)?.with_nanosecond(0)
}

/// The schedule's zone. `parse_schedule` rejects unknown zones; a schedule stored before
/// that check runs in UTC rather than never.
fn zone(name: &str) -> Tz {
    name.trim().parse().unwrap_or(Tz::UTC)
}

/// The instant a local wall-clock time means: a time in a DST gap runs at the first valid
/// instant after it, an ambiguous one at the earlier instant.
fn resolve_local(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(t) => Some(t.with_timezone(&Utc)),
        LocalResult::Ambiguous(a, b) => Some(a.min(b).with_timezone(&Utc)),
        // Gaps start and end on whole minutes, so the first local minute that exists is the
        // instant the clocks jumped.
        LocalResult::None => (1..=MAX_GAP_MINUTES)
            .find_map(|m| {
                let later = local.checked_add_signed(Duration::minutes(m))?;
                tz.from_local_datetime(&later).earliest()
            })
            .map(|t| t.with_timezone(&Utc)),
    }
}

/// When the task is next due, strictly after `now` and computed from now (never a backlog).
/// A one-off task is due at its `run_at` even when that has passed; `None` means no time:
/// a one-off task waiting for approval, a triggered task, or an unusable schedule.
pub fn next_run(schedule: &Schedule, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match schedule {
        Schedule::Once {
            run_at, timezone, ..
        } => {
            let tz = zone(timezone);
            resolve_local(tz, local_run_at(run_at.as_deref()?, tz)?)
        }
        Schedule::Recurring {
            frequency: Frequency::Interval,
            interval_minutes,
            ..
        } => {
            let minutes = (*interval_minutes)?.max(MIN_INTERVAL_MINUTES);
            now.checked_add_signed(Duration::minutes(i64::from(minutes)))
        }
        Schedule::Recurring {
            frequency,
            days,
            time,
            timezone,
            ..
        } => {
            let tz = zone(timezone);
            let time = parse_time(time.as_deref()?)?;
            let weekdays: Vec<Weekday> = days.iter().filter_map(|d| parse_day(d)).collect();
            if *frequency == Frequency::Weekly && weekdays.is_empty() {
                return None;
            }
            let today = now.with_timezone(&tz).date_naive();
            // From yesterday (a gap can push its time past midnight) to a week and a day
            // ahead (weekly wrap-around, today's time already passed).
            (-1..=8)
                .filter_map(|offset| today.checked_add_signed(Duration::days(offset)))
                .filter(|date| *frequency == Frequency::Daily || weekdays.contains(&date.weekday()))
                .filter_map(|date| resolve_local(tz, date.and_time(time)))
                .find(|at| *at > now)
        }
        Schedule::Triggered { .. } => None,
    }
}

/// How late a run may start and still count as on time: max(300, 3 × tick) seconds.
pub fn missed_threshold_secs(tick_seconds: u32) -> i64 {
    (3 * i64::from(tick_seconds)).max(300)
}

/// What to do with a run that was due at `due_at` now that the scheduler sees it at `now`.
pub fn catch_up_decision(
    schedule: &Schedule,
    due_at: DateTime<Utc>,
    now: DateTime<Utc>,
    window_hours: u32,
    tick_seconds: u32,
) -> CatchUpDecision {
    let late = (now - due_at).num_seconds();
    if late <= missed_threshold_secs(tick_seconds) {
        return CatchUpDecision::OnTime;
    }
    let catch_up = match schedule {
        Schedule::Once { catch_up, .. } => *catch_up,
        Schedule::Recurring {
            frequency: Frequency::Interval,
            catch_up,
            ..
        } => {
            // The next check is due anyway, so a missed one runs without a report.
            return match catch_up {
                Some(CatchUp::Skip) => CatchUpDecision::Skip,
                _ => CatchUpDecision::RunQuietly,
            };
        }
        Schedule::Recurring { catch_up, .. } => *catch_up,
        Schedule::Triggered { .. } => None,
    };
    match catch_up {
        Some(CatchUp::Run) => CatchUpDecision::RunNow,
        Some(CatchUp::Skip) => CatchUpDecision::Skip,
        None if late < i64::from(window_hours) * 3600 => CatchUpDecision::RunNow,
        None => CatchUpDecision::Skip,
    }
}

/// When a run was due, as the user reads it: `Sep 14, 18:30` in the zone.
pub fn due_label(due_at: DateTime<Utc>, timezone: &str) -> String {
    due_at
        .with_timezone(&zone(timezone))
        .format("%b %-d, %H:%M")
        .to_string()
}

/// A short plain-language line for the window, e.g. "Every Monday and Friday at 08:30".
pub fn describe(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Once { run_at: None, .. } => "Once, as soon as it's approved".to_owned(),
        Schedule::Once {
            run_at: Some(raw),
            timezone,
            ..
        } => match local_run_at(raw, zone(timezone)) {
            Some(t) => format!("Once, on {}", t.format("%b %-d at %H:%M")),
            None => format!("Once, at {raw}"),
        },
        Schedule::Recurring {
            frequency: Frequency::Interval,
            interval_minutes,
            ..
        } => match interval_minutes {
            Some(1) => "Every minute".to_owned(),
            Some(n) => format!("Every {n} minutes"),
            None => "Every few minutes".to_owned(),
        },
        Schedule::Recurring {
            frequency,
            days,
            time,
            ..
        } => {
            let at = time
                .as_deref()
                .and_then(parse_time)
                .map(|t| format!(" at {}", t.format("%H:%M")))
                .unwrap_or_default();
            if *frequency == Frequency::Daily {
                return format!("Every day{at}");
            }
            let mut weekdays: Vec<Weekday> = days.iter().filter_map(|d| parse_day(d)).collect();
            weekdays.sort_by_key(|d| d.num_days_from_monday());
            weekdays.dedup();
            let when = match weekdays.as_slice() {
                [] => "Every week".to_owned(),
                all if all.len() == 7 => "Every day".to_owned(),
                [
                    Weekday::Mon,
                    Weekday::Tue,
                    Weekday::Wed,
                    Weekday::Thu,
                    Weekday::Fri,
                ] => "Every weekday".to_owned(),
                some => format!("Every {}", join_names(some)),
            };
            format!("{when}{at}")
        }
        Schedule::Triggered { source, event, .. } => match (source.as_str(), event.as_str()) {
            ("webhook", hook) => format!("When webhook {hook} fires"),
            ("gmail", "new_email") => "When a new email arrives in Gmail".to_owned(),
            ("gcalendar", "new_event") => "When a new event appears in Google Calendar".to_owned(),
            (source, event) => format!("When {source} reports {}", event.replace('_', " ")),
        },
    }
}

/// "Monday", "Monday and Friday", "Monday, Wednesday and Friday".
fn join_names(days: &[Weekday]) -> String {
    let names: Vec<&str> = days.iter().map(|d| day_name(*d)).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("valid")
            .with_timezone(&Utc)
    }

    fn parse(raw: Value) -> Result<Schedule, ScheduleError> {
        parse_schedule(&raw, "Europe/Berlin")
    }

    fn daily(time: &str, tz: &str) -> Schedule {
        parse(json!({"type": "recurring", "frequency": "daily", "time": time, "timezone": tz}))
            .expect("valid")
    }

    fn weekly(days: &[&str], time: &str, tz: &str) -> Schedule {
        parse(
            json!({"type": "recurring", "frequency": "weekly", "days": days,
            "time": time, "timezone": tz}),
        )
        .expect("valid")
    }

    fn once(run_at: Option<&str>, tz: &str) -> Schedule {
        parse(json!({"type": "once", "run_at": run_at, "timezone": tz})).expect("valid")
    }

    fn with_catch_up(schedule: Schedule, value: Option<CatchUp>) -> Schedule {
        match schedule {
            Schedule::Once {
                run_at, timezone, ..
            } => Schedule::Once {
                run_at,
                timezone,
                catch_up: value,
            },
            Schedule::Recurring {
                frequency,
                days,
                time,
                interval_minutes,
                timezone,
                ..
            } => Schedule::Recurring {
                frequency,
                days,
                time,
                interval_minutes,
                timezone,
                catch_up: value,
            },
            other => other,
        }
    }

    fn days_of(schedule: &Schedule) -> Vec<String> {
        match schedule {
            Schedule::Recurring { days, .. } => days.clone(),
            other => panic!("not recurring: {other:?}"),
        }
    }

    // ---- parse_schedule ----

    #[test]
    fn daily_is_normalised_and_takes_the_default_zone() {
        let s = parse(json!({"type": "recurring", "frequency": "daily", "time": "9:05"}))
            .expect("valid");
        assert_eq!(
            s,
            Schedule::Recurring {
                frequency: Frequency::Daily,
                days: vec![],
                time: Some("09:05".into()),
                interval_minutes: None,
                timezone: "Europe/Berlin".into(),
                catch_up: None,
            }
        );
        for tz in [json!(""), json!("  "), json!(null), json!("auto")] {
            let s = parse(
                json!({"type": "recurring", "frequency": "DAILY", "time": "23:59", "timezone": tz}),
            )
            .expect("valid");
            assert_eq!(s, daily("23:59", "Europe/Berlin"));
        }
    }

    #[test]
    fn daily_drops_days_and_keeps_a_given_zone() {
        let s = parse(
            json!({"type": "recurring", "frequency": "daily", "days": ["Monday"],
            "time": "00:00", "timezone": " Asia/Kolkata "}),
        )
        .expect("valid");
        assert_eq!(days_of(&s), Vec::<String>::new());
        assert!(
            matches!(s, Schedule::Recurring { ref timezone, .. } if timezone == "Asia/Kolkata")
        );
    }

    #[test]
    fn an_unusable_default_zone_falls_back_to_utc() {
        let s = parse_schedule(&json!({"type": "once", "run_at": null}), "auto").expect("valid");
        assert!(matches!(s, Schedule::Once { ref timezone, .. } if timezone == "UTC"));
    }

    #[test]
    fn unknown_time_zones_are_errors() {
        for tz in [json!("Mars/Olympus"), json!("europe/berlin"), json!(5)] {
            let err = parse(json!({"type": "once", "run_at": null, "timezone": tz}))
                .expect_err("an error");
            assert!(matches!(err, ScheduleError::UnknownTimezone(_)), "{err:?}");
        }
        assert_eq!(
            parse(json!({"type": "once", "timezone": "Mars/Olympus"}))
                .expect_err("an error")
                .to_string(),
            "The time zone Mars/Olympus is not known; use a name like Europe/Berlin."
        );
    }

    #[test]
    fn bad_times_are_rejected() {
        for time in [
            json!("25:00"),
            json!("24:00"),
            json!("09:60"),
            json!("9:5"),
            json!("0900"),
            json!("09:00:00"),
            json!("123:00"),
            json!("9am"),
            json!(""),
            json!(900),
            json!(null),
        ] {
            let err = parse(json!({"type": "recurring", "frequency": "daily", "time": time}))
                .expect_err("an error");
            assert_eq!(err, ScheduleError::BadTime, "{time}");
        }
        let err = parse(json!({"type": "recurring", "frequency": "weekly", "days": ["Mon"]}))
            .expect_err("an error");
        assert_eq!(err, ScheduleError::BadTime);
        assert_eq!(err.to_string(), "The time must look like 09:00.");
    }

    #[test]
    fn good_times_are_normalised() {
        for (given, want) in [
            ("0:00", "00:00"),
            ("7:30", "07:30"),
            ("07:30", "07:30"),
            (" 23:59 ", "23:59"),
        ] {
            assert_eq!(daily(given, "UTC"), daily(want, "UTC"));
            assert!(
                matches!(daily(given, "UTC"), Schedule::Recurring { time: Some(ref t), .. } if t == want)
            );
        }
    }

    #[test]
    fn weekly_day_names_are_normalised() {
        let cases: &[(Value, &[&str])] = &[
            (json!(["monday", "FRI"]), &["Monday", "Friday"]),
            (json!(["Fri", "mon", "Monday"]), &["Monday", "Friday"]),
            (
                json!(["tue", "tues", "Thu", "thurs", "wed"]),
                &["Tuesday", "Wednesday", "Thursday"],
            ),
            (json!(["Sundays"]), &["Sunday"]),
            (
                json!(["weekdays"]),
                &["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
            ),
            (json!(["Weekends"]), &["Saturday", "Sunday"]),
            (
                json!(["daily"]),
                &[
                    "Monday",
                    "Tuesday",
                    "Wednesday",
                    "Thursday",
                    "Friday",
                    "Saturday",
                    "Sunday",
                ],
            ),
            (
                json!(["Every day"]),
                &[
                    "Monday",
                    "Tuesday",
                    "Wednesday",
                    "Thursday",
                    "Friday",
                    "Saturday",
                    "Sunday",
                ],
            ),
            (
                json!(["weekends", "mon"]),
                &["Monday", "Saturday", "Sunday"],
            ),
            (json!("Mon, Wed"), &["Monday", "Wednesday"]),
            (json!(["Monday and Friday"]), &["Monday", "Friday"]),
        ];
        for (given, want) in cases {
            let s = parse(
                json!({"type": "recurring", "frequency": "weekly", "days": given, "time": "08:30"}),
            )
            .expect("valid");
            assert_eq!(days_of(&s), want.to_vec(), "{given}");
        }
    }

    #[test]
    fn weekly_needs_real_days() {
        for days in [json!([]), json!(null), json!([" "]), json!("")] {
            let err = parse(
                json!({"type": "recurring", "frequency": "weekly", "days": days, "time": "08:30"}),
            )
            .expect_err("an error");
            assert_eq!(err, ScheduleError::NoDays, "{days}");
        }
        let err = parse(json!({"type": "recurring", "frequency": "weekly", "time": "08:30"}))
            .expect_err("an error");
        assert_eq!(err, ScheduleError::NoDays);
        for day in ["Funday", "mo", "M", "Mondayy"] {
            let err = parse(json!({"type": "recurring", "frequency": "weekly",
                "days": ["Monday", day], "time": "08:30"}))
            .expect_err("an error");
            assert_eq!(err, ScheduleError::UnknownDay(day.into()));
        }
        let err = parse(
            json!({"type": "recurring", "frequency": "weekly", "days": [1], "time": "08:30"}),
        )
        .expect_err("an error");
        assert_eq!(err, ScheduleError::UnknownDay("1".into()));
        assert_eq!(
            ScheduleError::UnknownDay("Funday".into()).to_string(),
            "Funday is not a day of the week; use names like Monday or Mon."
        );
    }

    #[test]
    fn hourly_becomes_a_sixty_minute_interval() {
        let s = parse(
            json!({"type": "recurring", "frequency": "hourly", "time": "09:00",
            "days": ["Monday"], "interval_minutes": 10, "catch_up": "skip"}),
        )
        .expect("valid");
        assert_eq!(
            s,
            Schedule::Recurring {
                frequency: Frequency::Interval,
                days: vec![],
                time: None,
                interval_minutes: Some(60),
                timezone: "Europe/Berlin".into(),
                catch_up: Some(CatchUp::Skip),
            }
        );
    }

    #[test]
    fn intervals_are_at_least_five_minutes() {
        for ok in [json!(5), json!(15), json!(60.0), json!("30"), json!(1440)] {
            let s = parse(json!({"type": "recurring", "frequency": "interval",
                "interval_minutes": ok, "time": "09:00"}))
            .expect("valid");
            assert!(
                matches!(s, Schedule::Recurring { interval_minutes: Some(n), time: None, .. } if n >= 5),
                "{ok}"
            );
        }
        for short in [json!(4), json!(0), json!("1")] {
            let err = parse(
                json!({"type": "recurring", "frequency": "interval", "interval_minutes": short}),
            )
            .expect_err("an error");
            assert_eq!(err, ScheduleError::IntervalTooShort, "{short}");
        }
        for bad in [
            json!(null),
            json!(-5),
            json!(7.5),
            json!("often"),
            json!(u64::MAX),
            json!([5]),
        ] {
            let err = parse(
                json!({"type": "recurring", "frequency": "interval", "interval_minutes": bad}),
            )
            .expect_err("an error");
            assert_eq!(err, ScheduleError::BadInterval, "{bad}");
        }
        let err =
            parse(json!({"type": "recurring", "frequency": "interval"})).expect_err("an error");
        assert_eq!(err, ScheduleError::BadInterval);
        assert_eq!(
            ScheduleError::IntervalTooShort.to_string(),
            "The interval must be at least 5 minutes."
        );
    }

    #[test]
    fn once_run_at_forms() {
        let run_at = |raw: Value, tz: &str| match parse(
            json!({"type": "once", "run_at": raw, "timezone": tz}),
        ) {
            Ok(Schedule::Once { run_at, .. }) => Ok(run_at),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e),
        };
        assert_eq!(run_at(json!(null), "UTC"), Ok(None));
        assert_eq!(run_at(json!(""), "UTC"), Ok(None));
        assert_eq!(
            parse(json!({"type": "once"})).expect("valid"),
            Schedule::Once {
                run_at: None,
                timezone: "Europe/Berlin".into(),
                catch_up: None
            }
        );
        let some = |s: &str| Ok(Some(s.to_owned()));
        assert_eq!(
            run_at(json!("2026-09-16T09:00"), "Asia/Kolkata"),
            some("2026-09-16T09:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16T09:00:59"), "Asia/Kolkata"),
            some("2026-09-16T09:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16T09:00:00.250"), "UTC"),
            some("2026-09-16T09:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16 09:00"), "UTC"),
            some("2026-09-16T09:00")
        );
        // Full RFC 3339 times are converted into the schedule's zone.
        assert_eq!(
            run_at(json!("2026-09-16T03:30:00Z"), "Asia/Kolkata"),
            some("2026-09-16T09:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16T09:00:00+02:00"), "America/New_York"),
            some("2026-09-16T03:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16T22:00:00-04:00"), "Europe/Berlin"),
            some("2026-09-17T04:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16T03:30Z"), "Asia/Kolkata"),
            some("2026-09-16T09:00")
        );
        assert_eq!(
            run_at(json!("2026-09-16T09:00+05:30"), "Europe/Berlin"),
            some("2026-09-16T05:30")
        );
        for bad in [
            json!("tomorrow"),
            json!("2026-09-16"),
            json!("2026-02-30T09:00"),
            json!("2026-09-16T25:00"),
            json!("16/09/2026 09:00"),
            json!(1789000000),
        ] {
            assert_eq!(
                run_at(bad.clone(), "UTC"),
                Err(ScheduleError::BadRunAt),
                "{bad}"
            );
        }
        assert_eq!(
            ScheduleError::BadRunAt.to_string(),
            "The run time must look like 2026-09-16T09:00."
        );
    }

    #[test]
    fn catch_up_keeps_only_run_and_skip() {
        let catch_up = |value: Value| {
            let once =
                parse(json!({"type": "once", "run_at": null, "catch_up": value})).expect("valid");
            let daily = parse(json!({"type": "recurring", "frequency": "daily",
                "time": "09:00", "catch_up": value}))
            .expect("valid");
            let (Schedule::Once { catch_up: a, .. }, Schedule::Recurring { catch_up: b, .. }) =
                (once, daily)
            else {
                panic!()
            };
            assert_eq!(a, b);
            a
        };
        assert_eq!(catch_up(json!("run")), Some(CatchUp::Run));
        assert_eq!(catch_up(json!("skip")), Some(CatchUp::Skip));
        assert_eq!(catch_up(json!(" Skip ")), Some(CatchUp::Skip));
        for dropped in [
            json!("always"),
            json!("auto"),
            json!(""),
            json!(true),
            json!(3),
            json!(null),
        ] {
            assert_eq!(catch_up(dropped.clone()), None, "{dropped}");
        }
        // Absent catch_up is left out of the saved JSON.
        let saved = serde_json::to_value(daily("09:00", "UTC")).expect("valid");
        assert!(saved.get("catch_up").is_none());
    }

    #[test]
    fn triggered_needs_source_and_event_and_never_catches_up() {
        let s = parse(
            json!({"type": "triggered", "source": " webhook ", "event": "deploy-failed",
            "catch_up": "run"}),
        )
        .expect("valid");
        assert_eq!(
            s,
            Schedule::Triggered {
                source: "webhook".into(),
                event: "deploy-failed".into(),
                filter: Map::new(),
                timezone: "Europe/Berlin".into(),
            }
        );
        assert!(
            serde_json::to_value(&s)
                .expect("valid")
                .get("catch_up")
                .is_none()
        );
        let s = parse(
            json!({"type": "triggered", "source": "gmail", "event": "new_email",
            "filter": {"from": "boss@example.com"}, "timezone": "Asia/Kolkata"}),
        )
        .expect("valid");
        let Schedule::Triggered {
            filter, timezone, ..
        } = s
        else {
            panic!()
        };
        assert_eq!(Value::Object(filter), json!({"from": "boss@example.com"}));
        assert_eq!(timezone, "Asia/Kolkata");
        let s = parse(
            json!({"type": "triggered", "source": "gmail", "event": "new_email", "filter": null}),
        )
        .expect("valid");
        assert!(matches!(s, Schedule::Triggered { ref filter, .. } if filter.is_empty()));

        let err = |raw: Value| parse(raw).expect_err("an error");
        assert_eq!(
            err(json!({"type": "triggered", "event": "new_email"})),
            ScheduleError::MissingSource
        );
        assert_eq!(
            err(json!({"type": "triggered", "source": "", "event": "x"})),
            ScheduleError::MissingSource
        );
        assert_eq!(
            err(json!({"type": "triggered", "source": "gmail"})),
            ScheduleError::MissingEvent
        );
        assert_eq!(
            err(json!({"type": "triggered", "source": "gmail", "event": "  "})),
            ScheduleError::MissingEvent
        );
        assert_eq!(
            err(
                json!({"type": "triggered", "source": "gmail", "event": "new_email",
                    "filter": "from:boss"})
            ),
            ScheduleError::BadFilter
        );
        assert_eq!(
            err(
                json!({"type": "triggered", "source": "gmail", "event": "new_email",
                    "timezone": "Nowhere"})
            ),
            ScheduleError::UnknownTimezone("Nowhere".into())
        );
    }

    #[test]
    fn malformed_schedules_are_errors() {
        assert_eq!(
            parse(json!("daily")).expect_err("an error"),
            ScheduleError::NotAnObject
        );
        assert_eq!(
            parse(json!(null)).expect_err("an error"),
            ScheduleError::NotAnObject
        );
        assert_eq!(
            parse(json!({"frequency": "daily"})).expect_err("an error"),
            ScheduleError::NotAnObject
        );
        assert_eq!(
            parse(json!({"type": "sometimes"})).expect_err("an error"),
            ScheduleError::UnknownType
        );
        assert_eq!(
            parse(json!({"type": "recurring", "frequency": "monthly", "time": "09:00"}))
                .expect_err("an error"),
            ScheduleError::UnknownFrequency
        );
        assert_eq!(
            parse(json!({"type": "recurring", "time": "09:00"})).expect_err("an error"),
            ScheduleError::UnknownFrequency
        );
        // Every message is one plain sentence.
        for err in [
            ScheduleError::NotAnObject,
            ScheduleError::UnknownType,
            ScheduleError::UnknownFrequency,
            ScheduleError::NoDays,
            ScheduleError::BadInterval,
            ScheduleError::MissingSource,
            ScheduleError::MissingEvent,
            ScheduleError::BadFilter,
        ] {
            let text = err.to_string();
            assert!(
                text.ends_with('.') && text.chars().next().expect("valid").is_uppercase(),
                "{text}"
            );
        }
    }

    #[test]
    fn a_parsed_schedule_survives_a_round_trip() {
        let s = weekly(&["fri", "mon"], "8:30", "America/New_York");
        let saved = serde_json::to_value(&s).expect("valid");
        assert_eq!(
            saved,
            json!({"type": "recurring", "frequency": "weekly", "days": ["Monday", "Friday"],
                "time": "08:30", "timezone": "America/New_York"})
        );
        assert_eq!(parse(saved).expect("valid"), s);
    }

    // ---- next_run ----

    #[test]
    fn once_is_due_at_run_at_even_when_past() {
        let s = once(Some("2026-09-16T09:00"), "Asia/Kolkata");
        let due = utc("2026-09-16T03:30:00Z");
        assert_eq!(next_run(&s, utc("2026-09-01T00:00:00Z")), Some(due));
        assert_eq!(next_run(&s, utc("2026-09-20T00:00:00Z")), Some(due));
        assert_eq!(
            next_run(&once(None, "Asia/Kolkata"), utc("2026-09-01T00:00:00Z")),
            None
        );
        let s = once(Some("2026-09-16T09:00"), "America/New_York");
        assert_eq!(
            next_run(&s, utc("2026-09-01T00:00:00Z")),
            Some(utc("2026-09-16T13:00:00Z"))
        );
    }

    #[test]
    fn once_in_a_dst_gap_or_overlap() {
        let gap = once(Some("2026-03-29T02:30"), "Europe/Berlin");
        assert_eq!(
            next_run(&gap, utc("2026-03-01T00:00:00Z")),
            Some(utc("2026-03-29T01:00:00Z"))
        );
        let overlap = once(Some("2026-10-25T02:30"), "Europe/Berlin");
        assert_eq!(
            next_run(&overlap, utc("2026-10-01T00:00:00Z")),
            Some(utc("2026-10-25T00:30:00Z"))
        );
    }

    #[test]
    fn daily_is_next_today_or_tomorrow_strictly_after_now() {
        let s = daily("09:00", "Europe/Berlin");
        // 09:00 CEST is 07:00 UTC.
        assert_eq!(
            next_run(&s, utc("2026-09-14T06:59:59Z")),
            Some(utc("2026-09-14T07:00:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-09-14T07:00:00Z")),
            Some(utc("2026-09-15T07:00:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-09-14T20:00:00Z")),
            Some(utc("2026-09-15T07:00:00Z"))
        );
        // Computed from now: weeks offline give the next occurrence, not a backlog.
        assert_eq!(
            next_run(&s, utc("2026-12-01T12:00:00Z")),
            Some(utc("2026-12-02T08:00:00Z"))
        );
    }

    #[test]
    fn daily_uses_the_local_date_not_the_utc_date() {
        // 02:00 UTC on Sep 16 is 22:00 on Sep 15 in New York.
        let s = daily("23:00", "America/New_York");
        assert_eq!(
            next_run(&s, utc("2026-09-16T02:00:00Z")),
            Some(utc("2026-09-16T03:00:00Z"))
        );
        // 20:00 UTC on Sep 15 is 01:30 on Sep 16 in Kolkata.
        let s = daily("01:00", "Asia/Kolkata");
        assert_eq!(
            next_run(&s, utc("2026-09-15T20:00:00Z")),
            Some(utc("2026-09-16T19:30:00Z"))
        );
        let s = daily("09:00", "Asia/Kolkata");
        assert_eq!(
            next_run(&s, utc("2026-09-16T03:00:00Z")),
            Some(utc("2026-09-16T03:30:00Z"))
        );
    }

    #[test]
    fn daily_across_berlin_dst_changes() {
        let s = daily("09:00", "Europe/Berlin");
        // Saturday after 09:00 CET; Sunday's 09:00 is already CEST.
        assert_eq!(
            next_run(&s, utc("2026-03-28T10:00:00Z")),
            Some(utc("2026-03-29T07:00:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-10-24T10:00:00Z")),
            Some(utc("2026-10-25T08:00:00Z"))
        );
    }

    #[test]
    fn a_time_in_the_spring_forward_gap_runs_when_the_clocks_jump() {
        let s = daily("02:30", "Europe/Berlin");
        // 02:30 doesn't exist on 2026-03-29; clocks jump from 02:00 CET to 03:00 CEST (01:00 UTC).
        assert_eq!(
            next_run(&s, utc("2026-03-28T12:00:00Z")),
            Some(utc("2026-03-29T01:00:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-03-29T01:00:00Z")),
            Some(utc("2026-03-30T00:30:00Z"))
        );
        let s = daily("02:15", "America/New_York");
        assert_eq!(
            next_run(&s, utc("2026-03-07T12:00:00Z")),
            Some(utc("2026-03-08T07:00:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-03-08T07:00:00Z")),
            Some(utc("2026-03-09T06:15:00Z"))
        );
    }

    #[test]
    fn an_ambiguous_fall_back_time_runs_once_at_the_earlier_instant() {
        let s = daily("02:30", "Europe/Berlin");
        // 02:30 happens twice on 2026-10-25: 00:30 UTC (CEST) and 01:30 UTC (CET).
        assert_eq!(
            next_run(&s, utc("2026-10-24T12:00:00Z")),
            Some(utc("2026-10-25T00:30:00Z"))
        );
        // After that run, the second 02:30 is not another run.
        assert_eq!(
            next_run(&s, utc("2026-10-25T00:30:00Z")),
            Some(utc("2026-10-26T01:30:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-10-25T01:00:00Z")),
            Some(utc("2026-10-26T01:30:00Z"))
        );
        let s = daily("01:30", "America/New_York");
        assert_eq!(
            next_run(&s, utc("2026-10-31T12:00:00Z")),
            Some(utc("2026-11-01T05:30:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-11-01T05:30:00Z")),
            Some(utc("2026-11-02T06:30:00Z"))
        );
    }

    #[test]
    fn weekly_wraps_around_the_week() {
        // 2026-09-18 is a Friday; 2026-09-14 and 2026-09-21 are Mondays.
        let s = weekly(&["Monday"], "08:30", "Europe/Berlin");
        assert_eq!(
            next_run(&s, utc("2026-09-18T18:00:00Z")),
            Some(utc("2026-09-21T06:30:00Z"))
        );
        // Monday after 08:30: a whole week later.
        assert_eq!(
            next_run(&s, utc("2026-09-14T07:00:00Z")),
            Some(utc("2026-09-21T06:30:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-09-14T06:29:00Z")),
            Some(utc("2026-09-14T06:30:00Z"))
        );
        let s = weekly(&["Monday", "Friday"], "08:30", "Europe/Berlin");
        assert_eq!(
            next_run(&s, utc("2026-09-14T07:00:00Z")),
            Some(utc("2026-09-18T06:30:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-09-18T07:00:00Z")),
            Some(utc("2026-09-21T06:30:00Z"))
        );
        // Sunday 23:30 UTC is already Monday 05:00 in Kolkata.
        let s = weekly(&["Sunday"], "23:00", "Asia/Kolkata");
        assert_eq!(
            next_run(&s, utc("2026-09-20T23:30:00Z")),
            Some(utc("2026-09-27T17:30:00Z"))
        );
        let s = weekly(&["weekends"], "10:00", "America/New_York");
        assert_eq!(
            next_run(&s, utc("2026-09-14T12:00:00Z")),
            Some(utc("2026-09-19T14:00:00Z"))
        );
    }

    #[test]
    fn weekly_on_a_dst_sunday() {
        // 2026-03-29 is a Sunday: the weekly 02:30 run falls in Berlin's gap.
        let s = weekly(&["Sun"], "02:30", "Europe/Berlin");
        assert_eq!(
            next_run(&s, utc("2026-03-27T12:00:00Z")),
            Some(utc("2026-03-29T01:00:00Z"))
        );
        assert_eq!(
            next_run(&s, utc("2026-03-29T01:00:00Z")),
            Some(utc("2026-04-05T00:30:00Z"))
        );
    }

    #[test]
    fn recurring_runs_are_always_after_now_and_at_the_local_time() {
        for tz in ["Europe/Berlin", "America/New_York", "Asia/Kolkata"] {
            for time in ["00:00", "01:30", "02:30", "09:00", "23:59"] {
                let s = weekly(&["Sun", "Wed"], time, tz);
                let d = daily(time, tz);
                let want = parse_time(time).expect("valid");
                let local_zone = zone(tz);
                // Across both DST weekends, every 37 minutes.
                for start in ["2026-03-26T00:00:00Z", "2026-10-22T00:00:00Z"] {
                    let mut now = utc(start);
                    for _ in 0..(6 * 24 * 60 / 37) {
                        for schedule in [&s, &d] {
                            let at = next_run(schedule, now).expect("valid");
                            assert!(
                                at > now && at - now <= Duration::days(8),
                                "{tz} {time} {now} {at}"
                            );
                            let local = at.with_timezone(&local_zone);
                            // Only a gap moves a run, and never by more than an hour.
                            let drift = local.time() - want;
                            assert!(
                                drift >= Duration::zero() && drift <= Duration::hours(1),
                                "{tz} {time} {at}"
                            );
                        }
                        now += Duration::minutes(37);
                    }
                }
            }
        }
    }

    #[test]
    fn interval_is_counted_from_now() {
        let s =
            parse(json!({"type": "recurring", "frequency": "interval", "interval_minutes": 15}))
                .expect("valid");
        let now = utc("2026-09-14T10:07:13Z");
        assert_eq!(next_run(&s, now), Some(utc("2026-09-14T10:22:13Z")));
        let s = parse(json!({"type": "recurring", "frequency": "hourly"})).expect("valid");
        assert_eq!(next_run(&s, now), Some(utc("2026-09-14T11:07:13Z")));
        // Across a DST change an interval is still elapsed time.
        assert_eq!(
            next_run(&s, utc("2026-03-29T00:30:00Z")),
            Some(utc("2026-03-29T01:30:00Z"))
        );
    }

    #[test]
    fn triggered_and_unusable_schedules_have_no_next_run() {
        let now = utc("2026-09-14T10:00:00Z");
        let s = parse(json!({"type": "triggered", "source": "gmail", "event": "new_email"}))
            .expect("valid");
        assert_eq!(next_run(&s, now), None);
        let broken = Schedule::Recurring {
            frequency: Frequency::Weekly,
            days: vec![],
            time: Some("09:00".into()),
            interval_minutes: None,
            timezone: "UTC".into(),
            catch_up: None,
        };
        assert_eq!(next_run(&broken, now), None);
        let broken = Schedule::Recurring {
            frequency: Frequency::Daily,
            days: vec![],
            time: Some("nine".into()),
            interval_minutes: None,
            timezone: "UTC".into(),
            catch_up: None,
        };
        assert_eq!(next_run(&broken, now), None);
        // A stored unknown zone runs in UTC rather than never.
        let old = Schedule::Recurring {
            frequency: Frequency::Daily,
            days: vec![],
            time: Some("09:00".into()),
            interval_minutes: None,
            timezone: "Nowhere/Special".into(),
            catch_up: None,
        };
        assert_eq!(next_run(&old, now), Some(utc("2026-09-15T09:00:00Z")));
    }

    // ---- catch-up ----

    #[test]
    fn missed_threshold_is_at_least_five_minutes() {
        assert_eq!(missed_threshold_secs(0), 300);
        assert_eq!(missed_threshold_secs(30), 300);
        assert_eq!(missed_threshold_secs(100), 300);
        assert_eq!(missed_threshold_secs(101), 303);
        assert_eq!(missed_threshold_secs(600), 1800);
        assert_eq!(missed_threshold_secs(u32::MAX), 3 * i64::from(u32::MAX));
    }

    #[test]
    fn a_run_within_the_threshold_is_on_time() {
        let s = with_catch_up(daily("09:00", "UTC"), Some(CatchUp::Skip));
        let due = utc("2026-09-14T09:00:00Z");
        for late in [-60, 0, 299, 300] {
            let now = due + Duration::seconds(late);
            assert_eq!(
                catch_up_decision(&s, due, now, 12, 30),
                CatchUpDecision::OnTime,
                "{late}"
            );
        }
        assert_eq!(
            catch_up_decision(&s, due, due + Duration::seconds(301), 12, 30),
            CatchUpDecision::Skip
        );
        // A slow tick widens the threshold.
        assert_eq!(
            catch_up_decision(&s, due, due + Duration::seconds(600), 12, 200),
            CatchUpDecision::OnTime
        );
        assert_eq!(
            catch_up_decision(&s, due, due + Duration::seconds(601), 12, 200),
            CatchUpDecision::Skip
        );
    }

    #[test]
    fn run_and_skip_are_followed_however_late() {
        let due = utc("2026-09-14T09:00:00Z");
        for base in [
            daily("09:00", "UTC"),
            once(Some("2026-09-14T09:00"), "UTC"),
            weekly(&["Mon"], "09:00", "UTC"),
        ] {
            let run = with_catch_up(base.clone(), Some(CatchUp::Run));
            let skip = with_catch_up(base, Some(CatchUp::Skip));
            for late in [
                Duration::minutes(6),
                Duration::hours(13),
                Duration::days(30),
            ] {
                assert_eq!(
                    catch_up_decision(&run, due, due + late, 12, 30),
                    CatchUpDecision::RunNow
                );
                assert_eq!(
                    catch_up_decision(&skip, due, due + late, 12, 30),
                    CatchUpDecision::Skip
                );
            }
            // Window 0 doesn't override an explicit "run".
            assert_eq!(
                catch_up_decision(&run, due, due + Duration::hours(1), 0, 30),
                CatchUpDecision::RunNow
            );
        }
    }

    #[test]
    fn auto_catch_up_runs_within_the_window() {
        let due = utc("2026-09-14T09:00:00Z");
        for s in [
            daily("09:00", "Europe/Berlin"),
            once(Some("2026-09-14T11:00"), "Europe/Berlin"),
        ] {
            let at =
                |late: Duration, window: u32| catch_up_decision(&s, due, due + late, window, 30);
            assert_eq!(at(Duration::minutes(6), 12), CatchUpDecision::RunNow);
            assert_eq!(
                at(Duration::hours(11) + Duration::minutes(59), 12),
                CatchUpDecision::RunNow
            );
            assert_eq!(at(Duration::hours(12), 12), CatchUpDecision::Skip);
            assert_eq!(at(Duration::hours(13), 12), CatchUpDecision::Skip);
            assert_eq!(at(Duration::hours(13), 24), CatchUpDecision::RunNow);
            // Window 0 always skips a missed run, but not an on-time one.
            assert_eq!(at(Duration::minutes(6), 0), CatchUpDecision::Skip);
            assert_eq!(at(Duration::minutes(1), 0), CatchUpDecision::OnTime);
        }
    }

    #[test]
    fn missed_interval_checks_run_quietly_unless_skipped() {
        let due = utc("2026-09-14T09:00:00Z");
        let s =
            parse(json!({"type": "recurring", "frequency": "interval", "interval_minutes": 30}))
                .expect("valid");
        for late in [Duration::minutes(6), Duration::days(3)] {
            for window in [0, 12] {
                assert_eq!(
                    catch_up_decision(&s, due, due + late, window, 30),
                    CatchUpDecision::RunQuietly
                );
            }
            let run = with_catch_up(s.clone(), Some(CatchUp::Run));
            assert_eq!(
                catch_up_decision(&run, due, due + late, 12, 30),
                CatchUpDecision::RunQuietly
            );
            let skip = with_catch_up(s.clone(), Some(CatchUp::Skip));
            assert_eq!(
                catch_up_decision(&skip, due, due + late, 12, 30),
                CatchUpDecision::Skip
            );
        }
        assert_eq!(
            catch_up_decision(&s, due, due + Duration::minutes(2), 12, 30),
            CatchUpDecision::OnTime
        );
        let skip = with_catch_up(s, Some(CatchUp::Skip));
        assert_eq!(
            catch_up_decision(&skip, due, due + Duration::minutes(2), 12, 30),
            CatchUpDecision::OnTime
        );
    }

    // ---- labels ----

    #[test]
    fn due_labels_are_local() {
        let due = utc("2026-09-14T16:30:00Z");
        assert_eq!(due_label(due, "Europe/Berlin"), "Sep 14, 18:30");
        assert_eq!(due_label(due, "Asia/Kolkata"), "Sep 14, 22:00");
        assert_eq!(due_label(due, "America/New_York"), "Sep 14, 12:30");
        assert_eq!(
            due_label(utc("2026-09-04T03:05:00Z"), "America/New_York"),
            "Sep 3, 23:05"
        );
        assert_eq!(due_label(due, "Nowhere"), "Sep 14, 16:30");
        assert_eq!(
            format!(
                "Skipped: it was due {}, while the computer was off or asleep.",
                due_label(due, "Europe/Berlin")
            ),
            "Skipped: it was due Sep 14, 18:30, while the computer was off or asleep."
        );
    }

    #[test]
    fn descriptions() {
        assert_eq!(describe(&daily("9:00", "UTC")), "Every day at 09:00");
        assert_eq!(
            describe(&weekly(&["fri", "Monday"], "08:30", "UTC")),
            "Every Monday and Friday at 08:30"
        );
        assert_eq!(
            describe(&weekly(&["Wednesday"], "08:30", "UTC")),
            "Every Wednesday at 08:30"
        );
        assert_eq!(
            describe(&weekly(&["mon", "wed", "fri"], "07:00", "UTC")),
            "Every Monday, Wednesday and Friday at 07:00"
        );
        assert_eq!(
            describe(&weekly(&["weekdays"], "07:00", "UTC")),
            "Every weekday at 07:00"
        );
        assert_eq!(
            describe(&weekly(&["every day"], "07:00", "UTC")),
            "Every day at 07:00"
        );
        assert_eq!(
            describe(&weekly(&["weekends"], "10:00", "UTC")),
            "Every Saturday and Sunday at 10:00"
        );
        let hourly = parse(json!({"type": "recurring", "frequency": "hourly"})).expect("valid");
        assert_eq!(describe(&hourly), "Every 60 minutes");
        let every5 =
            parse(json!({"type": "recurring", "frequency": "interval", "interval_minutes": 5}))
                .expect("valid");
        assert_eq!(describe(&every5), "Every 5 minutes");
        assert_eq!(
            describe(&once(Some("2026-09-16T09:00"), "Asia/Kolkata")),
            "Once, on Sep 16 at 09:00"
        );
        assert_eq!(
            describe(&once(Some("2026-09-04T17:45"), "UTC")),
            "Once, on Sep 4 at 17:45"
        );
        assert_eq!(
            describe(&once(None, "UTC")),
            "Once, as soon as it's approved"
        );
        let hook =
            parse(json!({"type": "triggered", "source": "webhook", "event": "deploy-failed"}))
                .expect("valid");
        assert_eq!(describe(&hook), "When webhook deploy-failed fires");
        let mail = parse(json!({"type": "triggered", "source": "gmail", "event": "new_email"}))
            .expect("valid");
        assert_eq!(describe(&mail), "When a new email arrives in Gmail");
        let other = parse(json!({"type": "triggered", "source": "github", "event": "new_issue"}))
            .expect("valid");
        assert_eq!(describe(&other), "When github reports new issue");
    }
}
