//! `weather_current` and `weather_forecast`: Open-Meteo without a key, AccuWeather while it is
//! connected (Open-Meteo again, with a log line, when AccuWeather fails). Weather is a trusted
//! app: forecasts carry no text someone else wrote.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use sentient_agent::tools::{
    Plugin, ProgressKind, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use super::shapes::{CurrentWeather, Forecast, GeoPlace, UnitSystem};
use super::{accuweather, open_meteo};
use crate::builtins::Builtins;
use crate::builtins::cache::{PLACES_FOR, WEATHER_FOR};
use crate::builtins::keyed::{Credentials, credentials};
use crate::builtins::provider::{Answer, ProviderError, cached, fetch};
use crate::builtins::{place_or_home, timeout, user_units};

const OPEN_METEO: &str = "The weather service";
const ACCUWEATHER: &str = "AccuWeather";
/// Days Open-Meteo is asked for at least, so today's and a short forecast share one answer.
const FETCHED_DAYS: u8 = 7;

pub fn plugin(builtins: Arc<Builtins>) -> Plugin {
    Plugin {
        id: "weather".to_owned(),
        display_name: "Weather".to_owned(),
        description: "The weather now and the forecast for the coming days, anywhere.".to_owned(),
        category: "built_in".to_owned(),
        icon: "weather".to_owned(),
        auth: "none".to_owned(),
        selection_hint:
            "weather forecast rain umbrella temperature hot cold snow wind sunny tomorrow week"
                .to_owned(),
        scoped: false,
        tools: vec![
            Arc::new(WeatherTool::current(builtins.clone())),
            Arc::new(WeatherTool::forecast(builtins)),
        ],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CurrentArgs {
    /// The place, such as "Pune, India" or "Paris". Leave it out for the user's own city.
    location: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ForecastArgs {
    /// The place, such as "Pune, India" or "Paris". Leave it out for the user's own city.
    location: Option<String>,
    /// How many days, starting today (1 to 16, default 3).
    days: Option<u8>,
}

struct WeatherTool {
    def: ToolDef,
    builtins: Arc<Builtins>,
    forecast: bool,
}

impl WeatherTool {
    fn current(builtins: Arc<Builtins>) -> Self {
        Self {
            def: ToolDef::new::<CurrentArgs>(
                "weather_current",
                "The weather right now at a place: conditions, temperature, feels-like, humidity and wind, in the user's units.",
                Risk::Read,
            ),
            builtins,
            forecast: false,
        }
    }

    fn forecast(builtins: Arc<Builtins>) -> Self {
        Self {
            def: ToolDef::new::<ForecastArgs>(
                "weather_forecast",
                "The forecast for the next days at a place: each day's high, low, chance of rain and a one-line summary, in the user's units and the place's time zone.",
                Risk::Read,
            ),
            builtins,
            forecast: true,
        }
    }
}

impl Tool for WeatherTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let (location, days) = if self.forecast {
                let args: ForecastArgs = parse_args(args)?;
                (args.location, Some(args.days.unwrap_or(3).clamp(1, 16)))
            } else {
                let args: CurrentArgs = parse_args(args)?;
                (args.location, None)
            };
            let place = place_or_home(&self.builtins, location.as_deref())?;
            ctx.progress(
                ProgressKind::Status,
                format!("Checking the weather in {place}"),
            );
            let units = user_units(&self.builtins, ctx).await;
            let answer = weather(&self.builtins, &place, units, days)
                .await
                .map_err(ToolError::from)?;
            match answer {
                Reading::Now(now) => ToolOutput::json(&now),
                Reading::Days(forecast) => ToolOutput::json(&forecast),
            }
        })
    }
}

enum Reading {
    Now(CurrentWeather),
    Days(Forecast),
}

/// Today's weather (`days: None`) or the forecast, from AccuWeather while it is connected and
/// answers, else Open-Meteo.
async fn weather(
    builtins: &Builtins,
    place: &str,
    units: UnitSystem,
    days: Option<u8>,
) -> Result<Reading, ProviderError> {
    if let Some(key) = credentials(&builtins.apps, "accuweather").await
        && days.is_none_or(|d| d <= 5)
    {
        match from_accuweather(builtins, &key, place, units, days).await {
            Ok(reading) => return Ok(reading),
            Err(error) => {
                tracing::info!(%error, "AccuWeather failed; using Open-Meteo");
            }
        }
    }
    let found = geocode(builtins, place).await?;
    let endpoints = &builtins.apps.endpoints();
    let url = open_meteo::forecast_url(
        &endpoints.open_meteo_forecast,
        &found,
        days.unwrap_or(1).max(FETCHED_DAYS),
        units,
    )?;
    let answer = get(builtins, url, OPEN_METEO, WEATHER_FOR).await?;
    match days {
        None => open_meteo::current_from(&answer.body, &found, units).map(Reading::Now),
        Some(days) => {
            open_meteo::forecast_from(&answer.body, &found, units, days).map(Reading::Days)
        }
    }
}

async fn from_accuweather(
    builtins: &Builtins,
    credentials: &Credentials,
    place: &str,
    units: UnitSystem,
    days: Option<u8>,
) -> Result<Reading, ProviderError> {
    let base = &builtins.apps.endpoints().accuweather;
    let key = credentials.key.as_str();
    let url = accuweather::location_url(base, key, place)?;
    let answer = get(builtins, url, ACCUWEATHER, PLACES_FOR).await?;
    if !answer.ok() {
        return Err(accuweather::error_from(answer.status, &answer.body).into());
    }
    let (location, found) = accuweather::pick_location(&answer.body, place)?;
    let (url, answered) = match days {
        None => (accuweather::current_url(base, key, &location)?, None),
        Some(days) => (
            accuweather::forecast_url(base, key, &location, units)?,
            Some(days),
        ),
    };
    let answer = get(builtins, url, ACCUWEATHER, WEATHER_FOR).await?;
    if !answer.ok() {
        return Err(accuweather::error_from(answer.status, &answer.body).into());
    }
    match answered {
        None => accuweather::current_from(&answer.body, &found, units).map(Reading::Now),
        Some(days) => {
            accuweather::forecast_from(&answer.body, &found, units, days).map(Reading::Days)
        }
    }
}

/// A place name to coordinates through Open-Meteo's search, kept a day.
pub async fn geocode(builtins: &Builtins, place: &str) -> Result<GeoPlace, ProviderError> {
    let url = open_meteo::geocoding_url(&builtins.apps.endpoints().open_meteo_geocoding, place)?;
    let answer = get(builtins, url, OPEN_METEO, PLACES_FOR).await?;
    open_meteo::pick_place(&answer.body, place)
}

/// One cached GET. Open-Meteo and AccuWeather explain their refusals in the body, so those
/// are read too; a server that is down or busy is said so.
async fn get(
    builtins: &Builtins,
    url: url::Url,
    who: &str,
    ttl: chrono::Duration,
) -> Result<Answer, ProviderError> {
    let http = crate::ctx::http_client();
    let answer = cached(&builtins.cache, url.as_str(), "", ttl, async {
        fetch(http.get(url.clone()), timeout(&builtins.apps), who).await
    })
    .await?;
    if answer.status >= 500 || answer.status == 429 {
        return Err(ProviderError::Answered(format!(
            "{who} couldn't answer right now ({}). Try again in a minute.",
            answer.status
        )));
    }
    Ok(answer)
}
