//! The `time` app: `time_now`, the current date and time in a time zone.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tool::{Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args};

pub fn plugin() -> Plugin {
    Plugin {
        id: "time".to_owned(),
        display_name: "Time".to_owned(),
        description: "The current date and time anywhere.".to_owned(),
        category: "built_in".to_owned(),
        icon: "clock".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "time date day today now clock timezone weekday".to_owned(),
        scoped: false,
        tools: vec![Arc::new(TimeNowTool::new())],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TimeNowArgs {
    /// A time zone name such as Europe/Berlin or Asia/Kolkata; leave it out (or say auto) for the user's own.
    #[serde(default)]
    pub timezone: Option<String>,
}

/// What `time_now` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeReading {
    /// ISO 8601 with the zone's offset, e.g. `2026-03-01T14:05:00+05:30`.
    pub iso: String,
    pub date: String,
    pub time: String,
    pub weekday: String,
    pub timezone: String,
    pub utc_offset: String,
}

pub struct TimeNowTool {
    def: ToolDef,
}

impl TimeNowTool {
    fn new() -> Self {
        Self {
            def: ToolDef::new::<TimeNowArgs>(
                "time_now",
                "Get the current date, time and weekday, in the user's time zone or a named one.",
                Risk::Read,
            ),
        }
    }
}

/// The zone a call means: the argument, else the assistant's setting, else this computer's
/// zone, else UTC. An unknown name is the caller's mistake and says so.
pub fn resolve_zone(asked: Option<&str>, setting: &str) -> Result<Tz, ToolError> {
    if let Some(name) = asked
        .map(str::trim)
        .filter(|n| !n.is_empty() && *n != "auto")
    {
        return name.parse::<Tz>().map_err(|_| {
            ToolError::Failed(format!(
                "{name} isn't a time zone name. Use one such as Europe/Berlin, America/New_York or Asia/Kolkata."
            ))
        });
    }
    let setting = setting.trim();
    if setting != "auto"
        && let Ok(zone) = setting.parse::<Tz>()
    {
        return Ok(zone);
    }
    Ok(iana_time_zone::get_timezone()
        .ok()
        .and_then(|name| name.parse::<Tz>().ok())
        .unwrap_or(Tz::UTC))
}

pub fn time_in(now: DateTime<Utc>, zone: Tz) -> TimeReading {
    let local = now.with_timezone(&zone);
    TimeReading {
        iso: local.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        date: local.format("%Y-%m-%d").to_string(),
        time: local.format("%H:%M").to_string(),
        weekday: local.format("%A").to_string(),
        timezone: zone.name().to_owned(),
        utc_offset: local.format("%:z").to_string(),
    }
}

impl Tool for TimeNowTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: TimeNowArgs = parse_args(args)?;
            let zone = resolve_zone(args.timezone.as_deref(), &ctx.timezone)?;
            ToolOutput::json(time_in(ctx.clock.now(), zone))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use sentient_core::clock::ManualClock;
    use sentient_core::home::Home;
    use serde_json::json;

    fn ctx(timezone: &str) -> ToolCtx {
        let mut ctx = ToolCtx::new(Home::at("/nonexistent"), reqwest::Client::new(), "t");
        ctx.clock = Arc::new(ManualClock::new(
            Utc.with_ymd_and_hms(2026, 3, 1, 8, 35, 0)
                .single()
                .expect("time"),
        ));
        ctx.timezone = timezone.to_owned();
        ctx
    }

    async fn call(args: Value, timezone: &str) -> Result<Value, ToolError> {
        let tool = TimeNowTool::new();
        tool.call(args, &ctx(timezone)).await.map(|o| o.value)
    }

    #[tokio::test]
    async fn a_named_zone() {
        let value = call(json!({"timezone": "Asia/Kolkata"}), "Europe/Berlin")
            .await
            .expect("time");
        assert_eq!(
            value,
            json!({"iso": "2026-03-01T14:05:00+05:30", "date": "2026-03-01", "time": "14:05",
                   "weekday": "Sunday", "timezone": "Asia/Kolkata", "utc_offset": "+05:30"})
        );
    }

    #[tokio::test]
    async fn auto_and_missing_use_the_assistant_setting() {
        for args in [json!({}), json!({"timezone": "auto"}), Value::Null] {
            let value = call(args, "America/New_York").await.expect("time");
            assert_eq!(value["iso"], "2026-03-01T03:35:00-05:00");
            assert_eq!(value["timezone"], "America/New_York");
        }
    }

    #[tokio::test]
    async fn an_unknown_zone_is_a_plain_error() {
        let error = call(json!({"timezone": "Mars/Olympus"}), "UTC")
            .await
            .expect_err("unknown");
        assert_eq!(
            error.to_string(),
            "Mars/Olympus isn't a time zone name. Use one such as Europe/Berlin, America/New_York or Asia/Kolkata."
        );
        assert!(matches!(
            call(json!({"timezone": 3}), "UTC").await,
            Err(ToolError::InvalidArguments(_))
        ));
    }

    #[test]
    fn auto_setting_falls_back_to_this_computer_or_utc() {
        // Whatever this computer says, the answer is a real zone.
        assert!(resolve_zone(None, "auto").is_ok());
        assert_eq!(resolve_zone(None, "UTC").expect("utc"), Tz::UTC);
    }
}
