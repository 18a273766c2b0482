//! What the maps tools answer, whichever provider answered.

use crate::builtins::provider::ProviderError;
use serde::Serialize;

/// One place on the map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Place {
    /// Its own name, or the first part of the address when it has none.
    pub name: String,
    pub address: String,
    pub latitude: f64,
    pub longitude: f64,
    /// What it is: "cafe", "city", "airport"…
    pub kind: Option<String>,
}

/// `maps_search_places`' answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlaceSearch {
    pub query: String,
    pub places: Vec<Place>,
}

/// Where a route starts or ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteEnd {
    pub name: String,
    pub latitude: f64,
    pub longitude: f64,
}

/// `maps_directions`' answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Route {
    pub origin: RouteEnd,
    pub destination: RouteEnd,
    pub mode: TravelMode,
    /// In `distance_unit`, one decimal.
    pub distance: f64,
    pub distance_unit: String,
    pub duration_minutes: u64,
    /// "1 h 25 min".
    pub duration: String,
    /// The main turns, in order.
    pub steps: Vec<String>,
    pub source: String,
}

/// How the trip is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TravelMode {
    Driving,
    Walking,
    Cycling,
}

impl TravelMode {
    pub fn parse(text: &str) -> Result<Self, ProviderError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "driving" | "drive" | "car" => Ok(Self::Driving),
            "walking" | "walk" | "foot" => Ok(Self::Walking),
            "cycling" | "cycle" | "bike" | "bicycling" => Ok(Self::Cycling),
            _ => Err(ProviderError::Answered(format!(
                "\"{}\" isn't a way to travel here; use driving, walking or cycling.",
                text.trim()
            ))),
        }
    }
}

/// Most steps a route shows; long routes keep the first ones and the arrival.
pub const MAIN_STEPS: usize = 12;

/// Metres to the person's unit ("km" or "mi"), one decimal.
pub fn distance_in(metres: f64, unit: &str) -> f64 {
    let value = if unit == "mi" {
        metres / 1609.344
    } else {
        metres / 1000.0
    };
    (value * 10.0).round() / 10.0
}

/// Seconds as "1 h 25 min" (or "12 min").
pub fn duration_text(seconds: f64) -> (u64, String) {
    let minutes = (seconds / 60.0).round().max(0.0) as u64;
    let text = match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    };
    (minutes, text)
}

/// Keeps at most [`MAIN_STEPS`], always with the last one (the arrival).
pub fn main_steps(mut steps: Vec<String>) -> Vec<String> {
    if steps.len() > MAIN_STEPS {
        let last = steps.pop();
        steps.truncate(MAIN_STEPS - 1);
        steps.extend(last);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_durations_read_plainly() {
        assert_eq!(distance_in(12_345.0, "km"), 12.3);
        assert_eq!(distance_in(16_093.44, "mi"), 10.0);
        assert_eq!(duration_text(720.0), (12, "12 min".to_owned()));
        assert_eq!(duration_text(5_100.0), (85, "1 h 25 min".to_owned()));
        assert_eq!(TravelMode::parse("Bike"), Ok(TravelMode::Cycling));
        assert!(
            TravelMode::parse("teleport")
                .expect_err("should be refused")
                .to_string()
                .contains("driving, walking or cycling")
        );
        let many: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let kept = main_steps(many);
        assert_eq!(kept.len(), MAIN_STEPS);
        assert_eq!(kept.last().map(String::as_str), Some("19"));
    }
}
