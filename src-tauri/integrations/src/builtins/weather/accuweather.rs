//! AccuWeather's wire format (the keyed alternative for weather): a city search for the
//! location key, then current conditions or the 5-day forecast. The key travels as `apikey`;
//! refusals come as `{"Code": "…", "Message": "…"}`.

use serde::Deserialize;
use url::Url;

use super::shapes::{
    CurrentWeather, Forecast, ForecastDay, GeoPlace, UnitSystem, summary_of, tidy, weekday_of,
};
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "AccuWeather";

fn with_key(mut url: Url, key: &str, more: &[(&str, &str)]) -> Url {
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("apikey", key);
        for (name, value) in more {
            query.append_pair(name, value);
        }
    }
    url
}

pub fn location_url(base: &str, key: &str, place: &str) -> Result<Url, ProviderError> {
    let url = endpoint(base, "/locations/v1/cities/search")?;
    Ok(with_key(url, key, &[("q", place.trim())]))
}

pub fn current_url(base: &str, key: &str, location: &str) -> Result<Url, ProviderError> {
    let url = endpoint(
        base,
        &format!("/currentconditions/v1/{}", path_part(location)),
    )?;
    Ok(with_key(url, key, &[("details", "true")]))
}

pub fn forecast_url(
    base: &str,
    key: &str,
    location: &str,
    units: UnitSystem,
) -> Result<Url, ProviderError> {
    let url = endpoint(
        base,
        &format!("/forecasts/v1/daily/5day/{}", path_part(location)),
    )?;
    let metric = if units.fahrenheit() { "false" } else { "true" };
    Ok(with_key(
        url,
        key,
        &[("details", "true"), ("metric", metric)],
    ))
}

/// Location keys are digits; anything else is dropped so it cannot change the path.
fn path_part(location: &str) -> String {
    location
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Refusal {
    code: Option<String>,
    message: Option<String>,
}

/// A plain sentence for a refusal: a wrong key, the day's allowance used up, or anything else.
pub fn error_from(status: u16, body: &str) -> String {
    let refusal: Option<Refusal> = serde_json::from_str(body).ok();
    let message = refusal
        .as_ref()
        .and_then(|r| r.message.clone())
        .unwrap_or_default();
    let code = refusal.and_then(|r| r.code).unwrap_or_default();
    tracing::info!(status, code, message, "AccuWeather refused a request");
    match status {
        401 | 403 => {
            "AccuWeather didn't accept the key. Paste it again in Apps > AccuWeather.".to_owned()
        }
        503 if message.contains("allowed number of requests") => {
            "AccuWeather's allowance for today is used up.".to_owned()
        }
        _ => format!("AccuWeather couldn't answer right now ({status})."),
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Location {
    key: String,
    localized_name: String,
    country: Option<Named>,
    administrative_area: Option<Named>,
    time_zone: Option<Zone>,
    geo_position: Option<Position>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Named {
    #[serde(rename = "ID")]
    id: Option<String>,
    localized_name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Zone {
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Position {
    latitude: f64,
    longitude: f64,
}

/// The first city the search found: its location key and the place.
pub fn pick_location(body: &str, asked: &str) -> Result<(String, GeoPlace), ProviderError> {
    let found: Vec<Location> = json_of(body, WHO)?;
    let first = found.into_iter().next().ok_or_else(|| {
        ProviderError::Answered(format!(
            "I couldn't find a place called \"{}\".",
            asked.trim()
        ))
    })?;
    let mut name = first.localized_name;
    for part in [&first.administrative_area, &first.country] {
        if let Some(part) = part.as_ref().and_then(|p| p.localized_name.clone())
            && part != name
        {
            name.push_str(", ");
            name.push_str(&part);
        }
    }
    let position = first.geo_position;
    Ok((
        first.key,
        GeoPlace {
            name,
            latitude: position.as_ref().map_or(0.0, |p| p.latitude),
            longitude: position.as_ref().map_or(0.0, |p| p.longitude),
            timezone: first.time_zone.and_then(|z| z.name),
            country_code: first.country.and_then(|c| c.id),
        },
    ))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Measured {
    metric: Option<Value>,
    imperial: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Value {
    value: Option<f64>,
}

impl Measured {
    fn pick(m: Option<&Measured>, imperial: bool) -> Option<f64> {
        let m = m?;
        let side = if imperial { &m.imperial } else { &m.metric };
        tidy(side.as_ref()?.value)
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Conditions {
    local_observation_date_time: String,
    weather_text: Option<String>,
    temperature: Option<Measured>,
    real_feel_temperature: Option<Measured>,
    relative_humidity: Option<f64>,
    wind: Option<Wind>,
    precipitation_summary: Option<Precipitation>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Wind {
    speed: Option<Measured>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Precipitation {
    precipitation: Option<Measured>,
}

pub fn current_from(
    body: &str,
    place: &GeoPlace,
    units: UnitSystem,
) -> Result<CurrentWeather, ProviderError> {
    let readings: Vec<Conditions> = json_of(body, WHO)?;
    let now = readings.into_iter().next().ok_or_else(|| {
        ProviderError::Answered(format!(
            "AccuWeather had no current weather for {}.",
            place.name
        ))
    })?;
    Ok(CurrentWeather {
        place: place.name.clone(),
        // "2026-12-02T16:15:00+01:00" is already local; the offset goes, as in Open-Meteo's.
        time: now.local_observation_date_time.chars().take(16).collect(),
        timezone: place.timezone.clone(),
        conditions: now
            .weather_text
            .unwrap_or_else(|| "Unknown conditions".to_owned()),
        temperature: Measured::pick(now.temperature.as_ref(), units.fahrenheit()),
        feels_like: Measured::pick(now.real_feel_temperature.as_ref(), units.fahrenheit()),
        humidity_percent: tidy(now.relative_humidity),
        wind_speed: Measured::pick(
            now.wind.as_ref().and_then(|w| w.speed.as_ref()),
            units.miles(),
        ),
        precipitation: Measured::pick(
            now.precipitation_summary
                .as_ref()
                .and_then(|p| p.precipitation.as_ref()),
            units.inches(),
        ),
        units: units.units(),
        source: "AccuWeather".to_owned(),
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Daily {
    daily_forecasts: Vec<DailyForecast>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DailyForecast {
    date: String,
    temperature: Option<Range>,
    day: Option<HalfDay>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Range {
    minimum: Option<Value>,
    maximum: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct HalfDay {
    icon_phrase: Option<String>,
    precipitation_probability: Option<f64>,
    total_liquid: Option<Value>,
}

/// Temperatures come in the asked unit (`metric=`); rain totals in mm when metric.
pub fn forecast_from(
    body: &str,
    place: &GeoPlace,
    units: UnitSystem,
    days: u8,
) -> Result<Forecast, ProviderError> {
    let daily: Daily = json_of(body, WHO)?;
    let labels = units.units();
    let days = daily
        .daily_forecasts
        .into_iter()
        .take(usize::from(days))
        .map(|day| {
            let date: String = day.date.chars().take(10).collect();
            let (low, high) = day.temperature.as_ref().map_or((None, None), |t| {
                (
                    tidy(t.minimum.as_ref().and_then(|v| v.value)),
                    tidy(t.maximum.as_ref().and_then(|v| v.value)),
                )
            });
            let half = day.day.as_ref();
            let conditions = half
                .and_then(|d| d.icon_phrase.clone())
                .unwrap_or_else(|| "Unknown conditions".to_owned());
            let rain = tidy(half.and_then(|d| d.precipitation_probability));
            ForecastDay {
                weekday: weekday_of(&date),
                summary: summary_of(&conditions, low, high, rain, &labels),
                date,
                conditions,
                high,
                low,
                rain_chance_percent: rain,
                precipitation: tidy(
                    half.and_then(|d| d.total_liquid.as_ref())
                        .and_then(|v| v.value),
                ),
            }
        })
        .collect();
    Ok(Forecast {
        place: place.name.clone(),
        timezone: place.timezone.clone(),
        units: labels,
        days,
        source: "AccuWeather".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_read_as_what_to_do() {
        let wrong = error_from(
            401,
            r#"{"Code":"Unauthorized","Message":"Api Authorization failed"}"#,
        );
        assert!(wrong.contains("didn't accept the key"));
        let spent = error_from(
            503,
            r#"{"Code":"ServiceUnavailable","Message":"The allowed number of requests has been exceeded."}"#,
        );
        assert_eq!(spent, "AccuWeather's allowance for today is used up.");
        let url = current_url("http://127.0.0.1:9", "k", "32/8?x").expect("should work");
        assert_eq!(url.path(), "/currentconditions/v1/328x");
    }
}
