//! Open-Meteo's wire format: the geocoding search (`/v1/search`) and the forecast
//! (`/v1/forecast`), both keyless JSON. Refusals come as `{"error": true, "reason": "…"}`.

use serde::Deserialize;
use url::Url;

use super::shapes::{
    CurrentWeather, Forecast, ForecastDay, GeoPlace, UnitSystem, summary_of, tidy, weekday_of,
    wmo_conditions,
};
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "The weather service";
/// Places one search asks for, so "Paris, Texas" can pick the right Paris.
const CANDIDATES: u8 = 10;

/// The search for a place name. Open-Meteo matches names only, so "Pune, India" asks for
/// "Pune" and [`pick_place`] uses "India" to choose.
pub fn geocoding_url(base: &str, place: &str) -> Result<Url, ProviderError> {
    let name = place.split(',').next().unwrap_or_default().trim();
    if name.is_empty() {
        return Err(ProviderError::Answered(
            "Name a place, such as \"Pune\" or \"Paris, France\".".to_owned(),
        ));
    }
    let mut url = endpoint(base, "/v1/search")?;
    url.query_pairs_mut()
        .append_pair("name", name)
        .append_pair("count", &CANDIDATES.to_string())
        .append_pair("language", "en")
        .append_pair("format", "json");
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Refusal {
    #[serde(default)]
    error: bool,
    reason: Option<String>,
}

fn refusal(body: &str) -> Option<String> {
    let refusal: Refusal = serde_json::from_str(body).ok()?;
    refusal.error.then(|| {
        let reason = refusal.reason.unwrap_or_default();
        tracing::info!(reason, "Open-Meteo refused a request");
        format!("{WHO} refused the request: {reason}")
    })
}

#[derive(Debug, Deserialize)]
struct Search {
    #[serde(default)]
    results: Vec<Found>,
}

#[derive(Debug, Deserialize)]
struct Found {
    name: String,
    latitude: f64,
    longitude: f64,
    timezone: Option<String>,
    country_code: Option<String>,
    country: Option<String>,
    admin1: Option<String>,
    admin2: Option<String>,
}

impl Found {
    fn matches(&self, qualifier: &str) -> bool {
        [
            &self.country,
            &self.admin1,
            &self.admin2,
            &self.country_code,
        ]
        .into_iter()
        .flatten()
        .any(|part| part.to_lowercase().contains(qualifier))
    }

    fn place(self) -> GeoPlace {
        let mut name = self.name;
        for part in [self.admin1, self.country].into_iter().flatten() {
            if !part.is_empty() && part != name {
                name.push_str(", ");
                name.push_str(&part);
            }
        }
        GeoPlace {
            name,
            latitude: self.latitude,
            longitude: self.longitude,
            timezone: self.timezone,
            country_code: self.country_code.map(|c| c.to_ascii_uppercase()),
        }
    }
}

/// The best match for `asked` among the search's places: the first whose region or country
/// fits what follows the comma, else the first (the best known).
pub fn pick_place(body: &str, asked: &str) -> Result<GeoPlace, ProviderError> {
    if let Some(refused) = refusal(body) {
        return Err(refused.into());
    }
    let search: Search = json_of(body, WHO)?;
    let qualifiers: Vec<String> = asked
        .split(',')
        .skip(1)
        .map(|q| q.trim().to_lowercase())
        .filter(|q| !q.is_empty())
        .collect();
    let mut results = search.results;
    let best = results
        .iter()
        .position(|found| qualifiers.iter().all(|q| found.matches(q)))
        .unwrap_or(0);
    if results.is_empty() {
        return Err(ProviderError::Answered(format!(
            "I couldn't find a place called \"{}\".",
            asked.trim()
        )));
    }
    Ok(results.swap_remove(best).place())
}

/// Today's weather and `days` days of forecast for a place, in `units`, with times in the
/// place's own time zone.
pub fn forecast_url(
    base: &str,
    place: &GeoPlace,
    days: u8,
    units: UnitSystem,
) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/v1/forecast")?;
    url.query_pairs_mut()
        .append_pair("latitude", &place.latitude.to_string())
        .append_pair("longitude", &place.longitude.to_string())
        .append_pair(
            "current",
            "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m",
        )
        .append_pair(
            "daily",
            "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max,precipitation_sum",
        )
        .append_pair("timezone", place.timezone.as_deref().unwrap_or("auto"))
        .append_pair("forecast_days", &days.clamp(1, 16).to_string())
        .append_pair(
            "temperature_unit",
            if units.fahrenheit() { "fahrenheit" } else { "celsius" },
        )
        .append_pair("wind_speed_unit", if units.miles() { "mph" } else { "kmh" })
        .append_pair("precipitation_unit", if units.inches() { "inch" } else { "mm" });
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Answer {
    timezone: Option<String>,
    current: Option<Now>,
    daily: Option<Daily>,
}

#[derive(Debug, Deserialize)]
struct Now {
    time: String,
    temperature_2m: Option<f64>,
    relative_humidity_2m: Option<f64>,
    apparent_temperature: Option<f64>,
    precipitation: Option<f64>,
    weather_code: Option<i64>,
    wind_speed_10m: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct Daily {
    time: Vec<String>,
    #[serde(default)]
    weather_code: Vec<Option<i64>>,
    #[serde(default)]
    temperature_2m_max: Vec<Option<f64>>,
    #[serde(default)]
    temperature_2m_min: Vec<Option<f64>>,
    #[serde(default)]
    precipitation_probability_max: Vec<Option<f64>>,
    #[serde(default)]
    precipitation_sum: Vec<Option<f64>>,
}

fn answer_of(body: &str) -> Result<Answer, ProviderError> {
    if let Some(refused) = refusal(body) {
        return Err(refused.into());
    }
    json_of(body, WHO)
}

fn at<T: Copy>(values: &[Option<T>], day: usize) -> Option<T> {
    values.get(day).copied().flatten()
}

pub fn current_from(
    body: &str,
    place: &GeoPlace,
    units: UnitSystem,
) -> Result<CurrentWeather, ProviderError> {
    let answer = answer_of(body)?;
    let now = answer.current.ok_or_else(|| {
        ProviderError::Answered(format!("{WHO} had no current weather for {}.", place.name))
    })?;
    Ok(CurrentWeather {
        place: place.name.clone(),
        time: now.time,
        timezone: answer.timezone.or_else(|| place.timezone.clone()),
        conditions: wmo_conditions(now.weather_code).to_owned(),
        temperature: tidy(now.temperature_2m),
        feels_like: tidy(now.apparent_temperature),
        humidity_percent: tidy(now.relative_humidity_2m),
        wind_speed: tidy(now.wind_speed_10m),
        precipitation: tidy(now.precipitation),
        units: units.units(),
        source: "Open-Meteo".to_owned(),
    })
}

pub fn forecast_from(
    body: &str,
    place: &GeoPlace,
    units: UnitSystem,
    days: u8,
) -> Result<Forecast, ProviderError> {
    let answer = answer_of(body)?;
    let daily = answer.daily.ok_or_else(|| {
        ProviderError::Answered(format!("{WHO} had no forecast for {}.", place.name))
    })?;
    let labels = units.units();
    let days = daily
        .time
        .iter()
        .take(usize::from(days))
        .enumerate()
        .map(|(i, date)| {
            let conditions = wmo_conditions(at(&daily.weather_code, i)).to_owned();
            let (high, low) = (
                tidy(at(&daily.temperature_2m_max, i)),
                tidy(at(&daily.temperature_2m_min, i)),
            );
            let rain = tidy(at(&daily.precipitation_probability_max, i));
            ForecastDay {
                date: date.clone(),
                weekday: weekday_of(date),
                summary: summary_of(&conditions, low, high, rain, &labels),
                conditions,
                high,
                low,
                rain_chance_percent: rain,
                precipitation: tidy(at(&daily.precipitation_sum, i)),
            }
        })
        .collect();
    Ok(Forecast {
        place: place.name.clone(),
        timezone: answer.timezone.or_else(|| place.timezone.clone()),
        units: labels,
        days,
        source: "Open-Meteo".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEARCH: &str = r#"{"results":[
        {"id":1,"name":"Paris","latitude":48.85,"longitude":2.35,"country_code":"FR","country":"France","admin1":"Île-de-France","timezone":"Europe/Paris"},
        {"id":2,"name":"Paris","latitude":33.66,"longitude":-95.55,"country_code":"US","country":"United States","admin1":"Texas","timezone":"America/Chicago"}
    ],"generationtime_ms":0.5}"#;

    #[test]
    fn the_words_after_the_comma_choose_the_place() {
        let url = geocoding_url("http://127.0.0.1:9/", "Paris, Texas").expect("should work");
        assert_eq!(url.path(), "/v1/search");
        assert!(url.query().expect("should work").contains("name=Paris&"));
        let texas = pick_place(SEARCH, "Paris, Texas").expect("should work");
        assert_eq!(texas.country_code.as_deref(), Some("US"));
        assert_eq!(texas.name, "Paris, Texas, United States");
        let france = pick_place(SEARCH, "Paris").expect("should work");
        assert_eq!(france.timezone.as_deref(), Some("Europe/Paris"));
        let none =
            pick_place(r#"{"generationtime_ms":0.2}"#, "Atlantis").expect_err("should be refused");
        assert_eq!(none, "I couldn't find a place called \"Atlantis\".".into());
        let refused = pick_place(
            r#"{"error":true,"reason":"Parameter count must be between 1 and 100."}"#,
            "x",
        );
        assert!(
            refused
                .expect_err("should be refused")
                .to_string()
                .contains("Parameter count")
        );
    }
}
