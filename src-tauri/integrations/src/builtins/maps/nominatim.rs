//! Nominatim's wire format (OpenStreetMap's place search and reverse look-up): `format=jsonv2`,
//! coordinates as strings, `{"error": "…"}` when a point has no address.

use serde::Deserialize;
use url::Url;

use super::shapes::Place;
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "OpenStreetMap";
/// How far around a "near" place a search looks, in degrees (about 20 km).
const NEAR_SPAN: f64 = 0.2;

/// Up to `limit` places for `query`, inside a box around `near` when given.
pub fn search_url(
    base: &str,
    query: &str,
    limit: u8,
    near: Option<(f64, f64)>,
) -> Result<Url, ProviderError> {
    let mut url = endpoint(base, "/search")?;
    {
        let mut pairs = url.query_pairs_mut();
        pairs
            .append_pair("q", query.trim())
            .append_pair("format", "jsonv2")
            .append_pair("limit", &limit.clamp(1, 40).to_string());
        if let Some((lat, lon)) = near {
            let view = format!(
                "{},{},{},{}",
                lon - NEAR_SPAN,
                lat + NEAR_SPAN,
                lon + NEAR_SPAN,
                lat - NEAR_SPAN
            );
            pairs
                .append_pair("viewbox", &view)
                .append_pair("bounded", "1");
        }
    }
    Ok(url)
}

pub fn reverse_url(base: &str, lat: f64, lon: f64) -> Result<Url, ProviderError> {
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return Err(ProviderError::Answered(format!(
            "{lat}, {lon} isn't a point on Earth: latitude goes from -90 to 90 and longitude from -180 to 180."
        )));
    }
    let mut url = endpoint(base, "/reverse")?;
    url.query_pairs_mut()
        .append_pair("lat", &lat.to_string())
        .append_pair("lon", &lon.to_string())
        .append_pair("format", "jsonv2");
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Found {
    lat: String,
    lon: String,
    #[serde(default)]
    name: Option<String>,
    display_name: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    error: Option<String>,
}

impl Found {
    fn place(self) -> Option<Place> {
        let address = self.display_name.unwrap_or_default();
        let name = self
            .name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                address
                    .split(',')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            });
        Some(Place {
            name,
            address,
            latitude: self.lat.parse().ok()?,
            longitude: self.lon.parse().ok()?,
            kind: self.kind.filter(|k| k != "yes"),
        })
    }
}

/// The places of a search, best first; none is an empty list.
pub fn places_from(body: &str) -> Result<Vec<Place>, ProviderError> {
    let found: Vec<Found> = json_of(body, WHO)?;
    Ok(found.into_iter().filter_map(Found::place).collect())
}

/// The address at a point.
pub fn reverse_from(body: &str, lat: f64, lon: f64) -> Result<Place, ProviderError> {
    let found: Found = match serde_json::from_str(body) {
        Ok(found) => found,
        Err(_) => {
            let refusal: serde_json::Value = json_of(body, WHO)?;
            if refusal.get("error").is_some() {
                return Err(ProviderError::Answered(format!(
                    "There's no address at {lat}, {lon} on the map."
                )));
            }
            return Err(ProviderError::Answered(format!(
                "{WHO} sent an answer Sentient couldn't read."
            )));
        }
    };
    if found.error.is_some() {
        return Err(ProviderError::Answered(format!(
            "There's no address at {lat}, {lon} on the map."
        )));
    }
    found.place().ok_or_else(|| {
        ProviderError::Answered(format!("There's no address at {lat}, {lon} on the map."))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_come_with_numbers_and_a_name() {
        let body = r#"[{"place_id":1,"lat":"18.5204","lon":"73.8567","category":"place","type":"city","name":"Pune","display_name":"Pune, Maharashtra, India"},
                       {"place_id":2,"lat":"x","lon":"1","name":"Broken","display_name":"Broken"}]"#;
        let places = places_from(body).expect("should work");
        assert_eq!(places.len(), 1);
        assert_eq!(places[0].name, "Pune");
        assert_eq!(places[0].latitude, 18.5204);
        assert_eq!(places_from("[]").expect("should work"), vec![]);
        let none = reverse_from(r#"{"error":"Unable to geocode"}"#, 0.0, 0.0)
            .expect_err("should be refused");
        assert_eq!(none, "There's no address at 0, 0 on the map.".into());
        assert!(reverse_url("http://127.0.0.1:9", 91.0, 0.0).is_err());
        let near =
            search_url("http://127.0.0.1:9", "coffee", 5, Some((18.5, 73.8))).expect("should work");
        assert!(near.query().expect("should work").contains("bounded=1"));
    }
}
