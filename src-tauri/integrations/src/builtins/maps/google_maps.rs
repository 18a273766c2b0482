//! Google Maps Platform's wire format (the keyed alternative for maps): Places text search,
//! Geocoding and Directions, each `{"status": "OK", …}` with `error_message` on refusals.

use serde::Deserialize;
use url::Url;

use super::osrm::mode_words;
use super::shapes::{Place, Route, RouteEnd, TravelMode, distance_in, duration_text, main_steps};
use crate::builtins::provider::{ProviderError, endpoint, json_of};
use crate::builtins::search::plain;

const WHO: &str = "Google Maps";
/// How far around a "near" place a search looks, in metres.
const NEAR_RADIUS_M: u32 = 20_000;

fn with(base: &str, path: &str, key: &str, pairs: &[(&str, &str)]) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, path)?;
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in pairs {
            query.append_pair(name, value);
        }
        query.append_pair("key", key);
    }
    Ok(url)
}

pub fn text_search_url(
    base: &str,
    key: &str,
    query: &str,
    near: Option<(f64, f64)>,
) -> Result<Url, ProviderError> {
    let location = near.map(|(lat, lon)| format!("{lat},{lon}"));
    let radius = NEAR_RADIUS_M.to_string();
    let mut pairs = vec![("query", query.trim())];
    if let Some(location) = &location {
        pairs.push(("location", location));
        pairs.push(("radius", &radius));
    }
    with(base, "/maps/api/place/textsearch/json", key, &pairs)
}

pub fn geocode_url(base: &str, key: &str, address: &str) -> Result<Url, ProviderError> {
    with(
        base,
        "/maps/api/geocode/json",
        key,
        &[("address", address.trim())],
    )
}

pub fn reverse_url(base: &str, key: &str, lat: f64, lon: f64) -> Result<Url, ProviderError> {
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return Err(ProviderError::Answered(format!(
            "{lat}, {lon} isn't a point on Earth: latitude goes from -90 to 90 and longitude from -180 to 180."
        )));
    }
    with(
        base,
        "/maps/api/geocode/json",
        key,
        &[("latlng", &format!("{lat},{lon}"))],
    )
}

pub fn directions_url(
    base: &str,
    key: &str,
    origin: &str,
    destination: &str,
    mode: TravelMode,
) -> Result<Url, ProviderError> {
    let mode = match mode {
        TravelMode::Driving => "driving",
        TravelMode::Walking => "walking",
        TravelMode::Cycling => "bicycling",
    };
    with(
        base,
        "/maps/api/directions/json",
        key,
        &[
            ("origin", origin.trim()),
            ("destination", destination.trim()),
            ("mode", mode),
        ],
    )
}

#[derive(Debug, Deserialize)]
struct Status {
    status: String,
    error_message: Option<String>,
}

/// `None` when Google answered `OK`; else the plain sentence for its status.
pub fn status_error(body: &str, asked: &str) -> Option<String> {
    let status: Status = match json_of(body, WHO) {
        Ok(status) => status,
        Err(error) => return Some(error.to_string()),
    };
    if status.status == "OK" {
        return None;
    }
    tracing::info!(
        status = status.status,
        message = status.error_message,
        "Google Maps refused a request"
    );
    Some(match status.status.as_str() {
        "ZERO_RESULTS" | "NOT_FOUND" => format!("I couldn't find \"{asked}\" on Google Maps."),
        "REQUEST_DENIED" => {
            "Google Maps didn't accept the key. Check it in Apps > Google Maps and that the Places, Geocoding and Directions APIs are on.".to_owned()
        }
        "OVER_QUERY_LIMIT" | "OVER_DAILY_LIMIT" => "Google Maps' allowance for this key is used up.".to_owned(),
        other => format!("Google Maps couldn't answer right now ({other})."),
    })
}

#[derive(Debug, Deserialize)]
struct Results {
    #[serde(default)]
    results: Vec<Found>,
}

#[derive(Debug, Deserialize)]
struct Found {
    name: Option<String>,
    formatted_address: Option<String>,
    geometry: Geometry,
    #[serde(default)]
    types: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Geometry {
    location: LatLng,
}

#[derive(Debug, Deserialize)]
struct LatLng {
    lat: f64,
    lng: f64,
}

impl Found {
    fn place(self) -> Place {
        let address = self.formatted_address.unwrap_or_default();
        let name = self.name.unwrap_or_else(|| {
            address
                .split(',')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        });
        Place {
            name,
            address,
            latitude: self.geometry.location.lat,
            longitude: self.geometry.location.lng,
            kind: self
                .types
                .into_iter()
                .find(|t| t != "point_of_interest" && t != "establishment"),
        }
    }
}

/// The places of a text search, a geocoding or a reverse geocoding answer (one shape for all three).
pub fn places_from(body: &str) -> Result<Vec<Place>, ProviderError> {
    let results: Results = json_of(body, WHO)?;
    Ok(results.results.into_iter().map(Found::place).collect())
}

#[derive(Debug, Deserialize)]
struct Directions {
    #[serde(default)]
    routes: Vec<GoogleRoute>,
}

#[derive(Debug, Deserialize)]
struct GoogleRoute {
    #[serde(default)]
    legs: Vec<Leg>,
}

#[derive(Debug, Deserialize)]
struct Leg {
    distance: Amount,
    duration: Amount,
    start_address: String,
    end_address: String,
    start_location: LatLng,
    end_location: LatLng,
    #[serde(default)]
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
struct Amount {
    value: f64,
}

#[derive(Debug, Deserialize)]
struct Step {
    html_instructions: String,
    distance: Amount,
}

/// Google's instructions are short HTML ("Turn <b>left</b><div>Toll road</div>"); a block
/// tag separates words, so tags become spaces before the text is made plain.
fn words_of(html: &str) -> String {
    let spaced = html.replace('<', " <");
    plain(&spaced)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn route_from(body: &str, mode: TravelMode, unit: &str) -> Result<Route, ProviderError> {
    let directions: Directions = json_of(body, WHO)?;
    let legs: Vec<Leg> = directions
        .routes
        .into_iter()
        .next()
        .map(|r| r.legs)
        .unwrap_or_default();
    let (Some(first), Some(last)) = (legs.first(), legs.last()) else {
        return Err(ProviderError::Answered(format!(
            "Google Maps found no way to go by {}.",
            mode_words(mode)
        )));
    };
    let origin = RouteEnd {
        name: first.start_address.clone(),
        latitude: first.start_location.lat,
        longitude: first.start_location.lng,
    };
    let destination = RouteEnd {
        name: last.end_address.clone(),
        latitude: last.end_location.lat,
        longitude: last.end_location.lng,
    };
    let metres: f64 = legs.iter().map(|l| l.distance.value).sum();
    let seconds: f64 = legs.iter().map(|l| l.duration.value).sum();
    let steps = legs
        .iter()
        .flat_map(|l| &l.steps)
        .map(|s| {
            format!(
                "{} ({} {unit})",
                words_of(&s.html_instructions),
                distance_in(s.distance.value, unit)
            )
        })
        .collect();
    let (duration_minutes, duration) = duration_text(seconds);
    Ok(Route {
        origin,
        destination,
        mode,
        distance: distance_in(metres, unit),
        distance_unit: unit.to_owned(),
        duration_minutes,
        duration,
        steps: main_steps(steps),
        source: "Google Maps".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_as_sentences() {
        assert_eq!(status_error(r#"{"status":"OK","results":[]}"#, "x"), None);
        let none = status_error(r#"{"status":"ZERO_RESULTS","results":[]}"#, "Atlantis");
        assert_eq!(
            none.as_deref(),
            Some("I couldn't find \"Atlantis\" on Google Maps.")
        );
        let denied = status_error(
            r#"{"status":"REQUEST_DENIED","error_message":"The provided API key is invalid."}"#,
            "x",
        );
        assert!(
            denied
                .expect("should work")
                .contains("didn't accept the key")
        );
        assert_eq!(
            words_of("Turn <b>left</b> onto <b>MG Road</b><div>Pass by X &amp; Y</div>"),
            "Turn left onto MG Road Pass by X & Y"
        );
    }
}
