//! What the weather tools answer, whichever provider answered: compact JSON in the user's units
//! and the place's time zone.

use serde::Serialize;

/// A place found by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeoPlace {
    /// "Pune, Maharashtra, India".
    pub name: String,
    pub latitude: f64,
    pub longitude: f64,
    /// The place's IANA time zone, when the provider gave it.
    pub timezone: Option<String>,
    /// ISO 3166 two-letter country code, upper case.
    pub country_code: Option<String>,
}

/// Which units a person reads: most of the world metric, the United States (and Liberia and
/// Myanmar) imperial, the United Kingdom °C with miles and mph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitSystem {
    Metric,
    Imperial,
    British,
}

/// The units' labels, as the results show them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Units {
    pub temperature: String,
    pub wind_speed: String,
    pub precipitation: String,
    pub distance: String,
}

/// US time zones (IANA names) that are not under `US/`.
const US_ZONES: &[&str] = &[
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Phoenix",
    "America/Anchorage",
    "America/Adak",
    "America/Boise",
    "America/Detroit",
    "America/Juneau",
    "America/Sitka",
    "America/Metlakatla",
    "America/Nome",
    "America/Yakutat",
    "America/Menominee",
    "America/Puerto_Rico",
    "Pacific/Honolulu",
];

impl UnitSystem {
    /// The units of a country, by its two-letter code.
    pub fn for_country(code: &str) -> Self {
        match code.trim().to_ascii_uppercase().as_str() {
            "US" | "LR" | "MM" | "PR" | "GU" | "VI" | "AS" | "MP" => Self::Imperial,
            "GB" => Self::British,
            _ => Self::Metric,
        }
    }

    /// The units of the country a time zone belongs to.
    pub fn for_timezone(zone: &str) -> Self {
        let us = zone.starts_with("US/")
            || zone.starts_with("America/Indiana/")
            || zone.starts_with("America/Kentucky/")
            || zone.starts_with("America/North_Dakota/")
            || US_ZONES.contains(&zone);
        if us || matches!(zone, "Africa/Monrovia" | "Asia/Yangon" | "Asia/Rangoon") {
            Self::Imperial
        } else if matches!(zone, "Europe/London" | "GB" | "Europe/Belfast") {
            Self::British
        } else {
            Self::Metric
        }
    }

    pub fn fahrenheit(self) -> bool {
        self == Self::Imperial
    }

    /// Wind in mph (and distances in miles).
    pub fn miles(self) -> bool {
        self != Self::Metric
    }

    pub fn inches(self) -> bool {
        self == Self::Imperial
    }

    pub fn units(self) -> Units {
        let pick = |yes: bool, a: &str, b: &str| if yes { a } else { b }.to_owned();
        Units {
            temperature: pick(self.fahrenheit(), "°F", "°C"),
            wind_speed: pick(self.miles(), "mph", "km/h"),
            precipitation: pick(self.inches(), "in", "mm"),
            distance: pick(self.miles(), "mi", "km"),
        }
    }
}

/// The weather now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurrentWeather {
    pub place: String,
    /// Local time of the reading in the place's time zone, "2026-12-02T16:15".
    pub time: String,
    pub timezone: Option<String>,
    pub conditions: String,
    pub temperature: Option<f64>,
    pub feels_like: Option<f64>,
    pub humidity_percent: Option<f64>,
    pub wind_speed: Option<f64>,
    pub precipitation: Option<f64>,
    pub units: Units,
    pub source: String,
}

/// One day of a forecast.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForecastDay {
    /// "2026-12-03", in the place's time zone.
    pub date: String,
    /// "Thursday".
    pub weekday: String,
    pub conditions: String,
    pub high: Option<f64>,
    pub low: Option<f64>,
    pub rain_chance_percent: Option<f64>,
    pub precipitation: Option<f64>,
    /// "Light rain, 4 to 9 °C, 80% chance of rain."
    pub summary: String,
}

/// The coming days.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forecast {
    pub place: String,
    pub timezone: Option<String>,
    pub units: Units,
    pub days: Vec<ForecastDay>,
    pub source: String,
}

/// One decimal place is all a forecast means.
pub fn tidy(value: Option<f64>) -> Option<f64> {
    value
        .filter(|v| v.is_finite())
        .map(|v| (v * 10.0).round() / 10.0)
}

/// The day's weekday name for an ISO date, empty when it is not one.
pub fn weekday_of(date: &str) -> String {
    chrono::NaiveDate::parse_from_str(date.get(..10).unwrap_or(date), "%Y-%m-%d")
        .map(|d| d.format("%A").to_string())
        .unwrap_or_default()
}

/// One line for a day: conditions, low to high and the chance of rain.
pub fn summary_of(
    conditions: &str,
    low: Option<f64>,
    high: Option<f64>,
    rain: Option<f64>,
    units: &Units,
) -> String {
    let mut line = conditions.to_owned();
    let round = |v: f64| format!("{}", v.round() as i64);
    match (low, high) {
        (Some(low), Some(high)) => {
            line.push_str(&format!(
                ", {} to {} {}",
                round(low),
                round(high),
                units.temperature
            ));
        }
        (None, Some(high)) => {
            line.push_str(&format!(", up to {} {}", round(high), units.temperature))
        }
        (Some(low), None) => {
            line.push_str(&format!(", down to {} {}", round(low), units.temperature))
        }
        (None, None) => {}
    }
    if let Some(rain) = rain {
        line.push_str(&format!(", {}% chance of rain", round(rain)));
    }
    line.push('.');
    line
}

/// The words for a WMO weather code, as Open-Meteo reports conditions.
pub fn wmo_conditions(code: Option<i64>) -> &'static str {
    match code {
        Some(0) => "Clear sky",
        Some(1) => "Mainly clear",
        Some(2) => "Partly cloudy",
        Some(3) => "Overcast",
        Some(45 | 48) => "Fog",
        Some(51) => "Light drizzle",
        Some(53) => "Drizzle",
        Some(55) => "Heavy drizzle",
        Some(56 | 57) => "Freezing drizzle",
        Some(61) => "Light rain",
        Some(63) => "Rain",
        Some(65) => "Heavy rain",
        Some(66 | 67) => "Freezing rain",
        Some(71) => "Light snow",
        Some(73) => "Snow",
        Some(75) => "Heavy snow",
        Some(77) => "Snow grains",
        Some(80) => "Light showers",
        Some(81) => "Showers",
        Some(82) => "Heavy showers",
        Some(85 | 86) => "Snow showers",
        Some(95) => "Thunderstorm",
        Some(96 | 99) => "Thunderstorm with hail",
        _ => "Unknown conditions",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_country_and_the_time_zone() {
        assert_eq!(UnitSystem::for_country("us"), UnitSystem::Imperial);
        assert_eq!(UnitSystem::for_country("IN"), UnitSystem::Metric);
        assert_eq!(UnitSystem::for_country("GB"), UnitSystem::British);
        assert_eq!(
            UnitSystem::for_timezone("America/Chicago"),
            UnitSystem::Imperial
        );
        assert_eq!(
            UnitSystem::for_timezone("America/Indiana/Knox"),
            UnitSystem::Imperial
        );
        assert_eq!(
            UnitSystem::for_timezone("America/Toronto"),
            UnitSystem::Metric
        );
        assert_eq!(UnitSystem::for_timezone("Asia/Kolkata"), UnitSystem::Metric);
        assert_eq!(
            UnitSystem::for_timezone("Europe/London"),
            UnitSystem::British
        );
        let british = UnitSystem::British.units();
        assert_eq!(
            (british.temperature.as_str(), british.wind_speed.as_str()),
            ("°C", "mph")
        );
        let us = UnitSystem::Imperial.units();
        assert_eq!(
            (us.temperature.as_str(), us.distance.as_str()),
            ("°F", "mi")
        );
    }

    #[test]
    fn a_day_reads_as_one_line() {
        let units = UnitSystem::Metric.units();
        assert_eq!(
            summary_of("Light rain", Some(3.6), Some(9.2), Some(80.0), &units),
            "Light rain, 4 to 9 °C, 80% chance of rain."
        );
        assert_eq!(summary_of("Fog", None, None, None, &units), "Fog.");
        assert_eq!(weekday_of("2026-12-03"), "Thursday");
        assert_eq!(tidy(Some(2.46)), Some(2.5));
        assert_eq!(tidy(Some(f64::NAN)), None);
    }
}
