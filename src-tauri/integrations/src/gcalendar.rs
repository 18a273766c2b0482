//! Google Calendar (contract section 5): four tools over Calendar API v3 on the primary
//! calendar, and the sync-token change feed: a changed event is `new_event` when it was created
//! within 2 minutes of this change, else `updated_event`; cancelled and ended events are
//! skipped; an expired token (410) resyncs silently.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use sentient_agent::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::ctx::AppCtx;
use crate::error::IntegrationError;
use crate::feed::{Feed, SyncOutcome};
use crate::google::{call, call_ok};

const APP: &str = "gcalendar";
/// Most pages a resync reads (250 events each).
const MAX_PAGES: usize = 40;

fn events_url(apps: &AppCtx) -> String {
    format!(
        "{}/calendars/primary/events",
        apps.endpoints().calendar.trim_end_matches('/')
    )
}

fn time_of(value: Option<&Value>) -> (Option<String>, bool) {
    let Some(value) = value else {
        return (None, false);
    };
    if let Some(at) = value.get("dateTime").and_then(Value::as_str) {
        return (Some(at.to_owned()), false);
    }
    (
        value.get("date").and_then(Value::as_str).map(str::to_owned),
        true,
    )
}

/// An event in the gcalendar item shape.
pub fn event_item(event: &Value) -> Value {
    let text = |k: &str| event.get(k).and_then(Value::as_str).unwrap_or_default();
    let (start, all_day) = time_of(event.get("start"));
    let (end, _) = time_of(event.get("end"));
    let meet = event
        .get("hangoutLink")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            event
                .pointer("/conferenceData/entryPoints")
                .and_then(Value::as_array)
                .and_then(|e| e.iter().find(|p| p["entryPointType"] == "video"))
                .and_then(|p| p.get("uri").and_then(Value::as_str))
                .map(str::to_owned)
        });
    json!({
        "id": text("id"),
        "summary": text("summary"),
        "description": text("description"),
        "start": start,
        "end": end,
        "all_day": all_day,
        "location": text("location"),
        "attendees": event.get("attendees").and_then(Value::as_array).map(|list| {
            list.iter().filter_map(|a| a.get("email").and_then(Value::as_str)).collect::<Vec<_>>()
        }).unwrap_or_default(),
        "organizer_email": event.pointer("/organizer/email"),
        "url": text("htmlLink"),
        "status": text("status"),
        "created": text("created"),
        "updated": text("updated"),
        "meet_link": meet,
    })
}

fn parse_time(text: Option<&str>) -> Option<DateTime<Utc>> {
    let text = text?;
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|d| d.and_utc())
        })
}

/// Which trigger a changed event starts, if any.
pub fn event_kind(item: &Value, now: DateTime<Utc>) -> Option<&'static str> {
    if item["status"] == "cancelled" {
        return None;
    }
    if parse_time(item["end"].as_str()).is_some_and(|end| end < now) {
        return None;
    }
    let created = parse_time(item["created"].as_str());
    let updated = parse_time(item["updated"].as_str());
    match (created, updated) {
        (Some(c), Some(u)) if u - c <= chrono::Duration::minutes(2) => Some("new_event"),
        _ => Some("updated_event"),
    }
}

/// Calendar's sync-token feed.
pub struct CalendarFeed {
    pub apps: AppCtx,
}

#[async_trait::async_trait]
impl Feed for CalendarFeed {
    fn source(&self) -> &'static str {
        APP
    }

    fn display_name(&self) -> &'static str {
        "Google Calendar"
    }

    fn kind(&self) -> &'static str {
        "calendar_sync_token"
    }

    async fn sync(&self, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError> {
        sync(&self.apps, cursor).await
    }
}

/// One feed sync: the changes since the sync token.
pub async fn sync(apps: &AppCtx, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError> {
    let token = cursor
        .as_ref()
        .and_then(|c| c.get("sync_token"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let url = events_url(apps);
    let Some(token) = token else {
        return resync(apps, &url).await;
    };
    let mut items = Vec::new();
    let mut page: Option<String> = None;
    let now = apps.clock().now();
    for _ in 0..MAX_PAGES {
        let mut query = vec![
            ("syncToken", token.clone()),
            ("showDeleted", "true".to_owned()),
        ];
        if let Some(p) = &page {
            query.push(("pageToken", p.clone()));
        }
        let (status, value) = call(apps, APP, Method::GET, &url, &query, None).await?;
        if status == 410 {
            return resync(apps, &url).await;
        }
        if !(200..300).contains(&status) {
            return Err(IntegrationError::Service(format!(
                "Google Calendar answered {status} to the change check."
            )));
        }
        for event in value
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut item = event_item(event);
            if let Some(kind) = event_kind(&item, now) {
                item["event"] = json!(kind);
                items.push(item);
            }
        }
        if let Some(next) = value.get("nextSyncToken").and_then(Value::as_str) {
            return Ok(SyncOutcome {
                items,
                cursor: json!({"sync_token": next}),
                rebaselined: false,
                note: None,
            });
        }
        page = value
            .get("nextPageToken")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if page.is_none() {
            break;
        }
    }
    Err(IntegrationError::Service(
        "Google Calendar's change list didn't end.".to_owned(),
    ))
}

/// Reads the whole calendar once to get a fresh sync token; announces nothing.
async fn resync(apps: &AppCtx, url: &str) -> Result<SyncOutcome, IntegrationError> {
    let mut page: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut query = vec![
            ("maxResults", "250".to_owned()),
            ("showDeleted", "true".to_owned()),
        ];
        if let Some(p) = &page {
            query.push(("pageToken", p.clone()));
        }
        let value = call_ok(apps, APP, Method::GET, url, &query, None).await?;
        if let Some(next) = value.get("nextSyncToken").and_then(Value::as_str) {
            return Ok(SyncOutcome {
                items: Vec::new(),
                cursor: json!({"sync_token": next}),
                rebaselined: true,
                note: None,
            });
        }
        page = value
            .get("nextPageToken")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if page.is_none() {
            break;
        }
    }
    Err(IntegrationError::Service(
        "Google Calendar gave no sync token.".to_owned(),
    ))
}

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    /// From this time (RFC 3339, default now).
    time_min: Option<String>,
    /// Until this time (RFC 3339, default a week after time_min).
    time_max: Option<String>,
    /// Words to look for in events.
    query: Option<String>,
    /// At most this many events (default 20, at most 100).
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct CreateArgs {
    summary: String,
    /// Start, RFC 3339 (e.g. 2026-12-03T15:00:00+01:00) or a date (2026-12-03) for all day.
    start: String,
    /// End, in the same form as start.
    end: String,
    description: Option<String>,
    location: Option<String>,
    /// Email addresses to invite.
    attendees: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct UpdateArgs {
    /// The event's id.
    event_id: String,
    summary: Option<String>,
    start: Option<String>,
    end: Option<String>,
    description: Option<String>,
    location: Option<String>,
    attendees: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct DeleteArgs {
    /// The event's id.
    event_id: String,
}

fn when(text: &str, field: &str) -> Result<Value, ToolError> {
    if DateTime::parse_from_rfc3339(text).is_ok() {
        return Ok(json!({"dateTime": text}));
    }
    if chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok() {
        return Ok(json!({"date": text}));
    }
    Err(ToolError::InvalidArguments(format!(
        "{field} \"{text}\" is not a time; write 2026-12-03T15:00:00+01:00, or 2026-12-03 for all day."
    )))
}

#[derive(Clone, Copy)]
enum Action {
    List,
    Create,
    Update,
    Delete,
}

struct CalendarTool {
    def: ToolDef,
    action: Action,
    apps: AppCtx,
}

fn failed(error: IntegrationError) -> ToolError {
    ToolError::Failed(error.to_string())
}

fn event_body(
    summary: Option<String>,
    start: Option<String>,
    end: Option<String>,
    description: Option<String>,
    location: Option<String>,
    attendees: Option<Vec<String>>,
) -> Result<Map<String, Value>, ToolError> {
    let mut body = Map::new();
    if let Some(v) = summary {
        body.insert("summary".into(), json!(v));
    }
    if let Some(v) = start {
        body.insert("start".into(), when(&v, "start")?);
    }
    if let Some(v) = end {
        body.insert("end".into(), when(&v, "end")?);
    }
    if let Some(v) = description {
        body.insert("description".into(), json!(v));
    }
    if let Some(v) = location {
        body.insert("location".into(), json!(v));
    }
    if let Some(list) = attendees {
        body.insert(
            "attendees".into(),
            Value::Array(list.into_iter().map(|e| json!({"email": e})).collect()),
        );
    }
    Ok(body)
}

impl CalendarTool {
    async fn run(&self, args: Value) -> Result<Value, ToolError> {
        let apps = &self.apps;
        let url = events_url(apps);
        match self.action {
            Action::List => {
                let args: ListArgs = parse_args(args)?;
                let now = apps.clock().now();
                let min = match args.time_min.as_deref() {
                    Some(t) => parse_time(Some(t)).ok_or_else(|| {
                        ToolError::InvalidArguments(format!("time_min \"{t}\" is not a time."))
                    })?,
                    None => now,
                };
                let max = match args.time_max.as_deref() {
                    Some(t) => parse_time(Some(t)).ok_or_else(|| {
                        ToolError::InvalidArguments(format!("time_max \"{t}\" is not a time."))
                    })?,
                    None => min + chrono::Duration::days(7),
                };
                let mut query = vec![
                    ("timeMin", min.to_rfc3339()),
                    ("timeMax", max.to_rfc3339()),
                    ("singleEvents", "true".to_owned()),
                    ("orderBy", "startTime".to_owned()),
                    (
                        "maxResults",
                        args.limit.unwrap_or(20).clamp(1, 100).to_string(),
                    ),
                ];
                if let Some(q) = args.query.filter(|q| !q.trim().is_empty()) {
                    query.push(("q", q));
                }
                let value = call_ok(apps, APP, Method::GET, &url, &query, None)
                    .await
                    .map_err(failed)?;
                let items: Vec<Value> = value
                    .get("items")
                    .and_then(Value::as_array)
                    .map(|l| l.iter().map(event_item).collect())
                    .unwrap_or_default();
                Ok(json!(apps.screen(APP, items).await))
            }
            Action::Create => {
                let args: CreateArgs = parse_args(args)?;
                let body = event_body(
                    Some(args.summary),
                    Some(args.start),
                    Some(args.end),
                    args.description,
                    args.location,
                    args.attendees,
                )?;
                let event = call_ok(
                    apps,
                    APP,
                    Method::POST,
                    &url,
                    &[],
                    Some(&Value::Object(body)),
                )
                .await
                .map_err(failed)?;
                Ok(event_item(&event))
            }
            Action::Update => {
                let args: UpdateArgs = parse_args(args)?;
                let body = event_body(
                    args.summary,
                    args.start,
                    args.end,
                    args.description,
                    args.location,
                    args.attendees,
                )?;
                if body.is_empty() {
                    return Err(ToolError::InvalidArguments(
                        "Say what to change.".to_owned(),
                    ));
                }
                let event = call_ok(
                    apps,
                    APP,
                    Method::PATCH,
                    &format!("{url}/{}", args.event_id),
                    &[],
                    Some(&Value::Object(body)),
                )
                .await
                .map_err(failed)?;
                Ok(event_item(&event))
            }
            Action::Delete => {
                let args: DeleteArgs = parse_args(args)?;
                call_ok(
                    apps,
                    APP,
                    Method::DELETE,
                    &format!("{url}/{}", args.event_id),
                    &[],
                    None,
                )
                .await
                .map_err(failed)?;
                Ok(json!({"ok": true, "event_id": args.event_id}))
            }
        }
    }
}

impl Tool for CalendarTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { ToolOutput::json(self.run(args).await?) })
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let target = args
            .get("summary")
            .or_else(|| args.get("event_id"))
            .and_then(Value::as_str)?;
        Some(CallDescription {
            risk_label: None,
            target: Some(target.to_owned()),
        })
    }

    fn exfiltrates_for(&self, args: &Value) -> bool {
        match self.action {
            Action::Create => {
                let owner = self.apps.state(APP).account_label.unwrap_or_default();
                invites_others(args, &owner)
            }
            _ => self.def.exfiltrates,
        }
    }

    fn available(&self) -> bool {
        self.apps.offers(APP)
    }
}

/// Whether a new event's `attendees` name anyone but the calendar's owner.
pub fn invites_others(args: &Value, owner: &str) -> bool {
    args.get("attendees")
        .and_then(Value::as_array)
        .is_some_and(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .any(|a| !a.trim().eq_ignore_ascii_case(owner.trim()))
        })
}

/// The Calendar app with its four tools. Changing an event can invite people, so it counts as
/// moving data out; creating one does when it invites anyone but the owner.
pub fn plugin(apps: AppCtx) -> Plugin {
    let tool = |def: ToolDef, action| {
        Arc::new(CalendarTool {
            def,
            action,
            apps: apps.clone(),
        }) as Arc<dyn Tool>
    };
    Plugin {
        id: APP.to_owned(),
        display_name: "Google Calendar".to_owned(),
        description: "Your Google Calendar.".to_owned(),
        category: "productivity".to_owned(),
        icon: "gcalendar".to_owned(),
        auth: "oauth".to_owned(),
        selection_hint: "calendar event meeting schedule today tomorrow".to_owned(),
        scoped: false,
        tools: vec![
            tool(
                ToolDef::new::<ListArgs>(
                    "gcal_list_events",
                    "Lists events in your calendar, soonest first.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::List,
            ),
            tool(
                ToolDef::new::<CreateArgs>(
                    "gcal_create_event",
                    "Adds an event to your calendar, inviting any attendees.",
                    Risk::Write,
                )
                .exfiltrates(),
                Action::Create,
            ),
            tool(
                ToolDef::new::<UpdateArgs>(
                    "gcal_update_event",
                    "Changes an event in your calendar.",
                    Risk::Write,
                )
                .exfiltrates(),
                Action::Update,
            ),
            tool(
                ToolDef::new::<DeleteArgs>(
                    "gcal_delete_event",
                    "Deletes an event from your calendar.",
                    Risk::Write,
                ),
                Action::Delete,
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_start_new_or_updated_events_and_skip_cancelled_and_ended_ones() {
        let now = parse_time(Some("2026-12-02T10:00:00Z")).expect("now");
        let event = |created: &str, updated: &str, end: &str, status: &str| json!({"created": created, "updated": updated, "end": end, "status": status});
        let fresh = event(
            "2026-12-02T09:59:00Z",
            "2026-12-02T10:00:00Z",
            "2026-12-03T10:00:00Z",
            "confirmed",
        );
        assert_eq!(event_kind(&fresh, now), Some("new_event"));
        let moved = event(
            "2026-11-01T09:00:00Z",
            "2026-12-02T10:00:00Z",
            "2026-12-03T10:00:00Z",
            "confirmed",
        );
        assert_eq!(event_kind(&moved, now), Some("updated_event"));
        let gone = event(
            "2026-11-01T09:00:00Z",
            "2026-12-02T10:00:00Z",
            "2026-12-03T10:00:00Z",
            "cancelled",
        );
        assert_eq!(event_kind(&gone, now), None);
        let over = event(
            "2026-11-01T09:00:00Z",
            "2026-12-02T10:00:00Z",
            "2026-12-01T10:00:00Z",
            "confirmed",
        );
        assert_eq!(event_kind(&over, now), None);
    }

    #[test]
    fn a_new_event_moves_data_out_only_when_it_invites_someone_else() {
        let owner = "me@example.com";
        assert!(!invites_others(&json!({"summary": "Dentist"}), owner));
        assert!(!invites_others(
            &json!({"attendees": ["Me@Example.com"]}),
            owner
        ));
        assert!(invites_others(
            &json!({"attendees": ["me@example.com", "jane@example.com"]}),
            owner
        ));
    }

    #[test]
    fn events_take_the_item_shape() {
        let item = event_item(
            &json!({"id": "e1", "summary": "Dentist", "start": {"date": "2026-12-03"},
            "end": {"date": "2026-12-04"}, "attendees": [{"email": "a@x.example"}],
            "organizer": {"email": "me@x.example"}, "hangoutLink": "https://meet.example/abc"}),
        );
        assert_eq!(item["all_day"], true);
        assert_eq!(item["start"], "2026-12-03");
        assert_eq!(item["attendees"], json!(["a@x.example"]));
        assert_eq!(item["meet_link"], "https://meet.example/abc");
        assert!(when("tomorrow", "start").is_err());
        assert_eq!(
            when("2026-12-03", "start").expect("date"),
            json!({"date": "2026-12-03"})
        );
    }
}
