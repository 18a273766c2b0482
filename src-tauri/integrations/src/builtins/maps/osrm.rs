//! OSRM's wire format (routes over OpenStreetMap): `/routed-{car,foot,bike}/route/v1/…` as the
//! FOSSGIS servers lay it out, coordinates as `lon,lat`, `{"code": "Ok", "routes": […]}`.

use serde::Deserialize;
use url::Url;

use super::shapes::{Route, RouteEnd, TravelMode, distance_in, duration_text, main_steps};
use crate::builtins::provider::{ProviderError, endpoint, json_of};

const WHO: &str = "The route service";

pub fn route_url(
    base: &str,
    mode: TravelMode,
    from: (f64, f64),
    to: (f64, f64),
) -> Result<Url, ProviderError> {
    let (server, profile) = match mode {
        TravelMode::Driving => ("routed-car", "driving"),
        TravelMode::Walking => ("routed-foot", "foot"),
        TravelMode::Cycling => ("routed-bike", "bike"),
    };
    let mut url = endpoint(
        base,
        &format!(
            "/{server}/route/v1/{profile}/{},{};{},{}",
            from.1, from.0, to.1, to.0
        ),
    )?;
    url.query_pairs_mut()
        .append_pair("overview", "false")
        .append_pair("steps", "true");
    Ok(url)
}

#[derive(Debug, Deserialize)]
struct Answer {
    code: String,
    message: Option<String>,
    #[serde(default)]
    routes: Vec<Found>,
}

#[derive(Debug, Deserialize)]
struct Found {
    distance: f64,
    duration: f64,
    #[serde(default)]
    legs: Vec<Leg>,
}

#[derive(Debug, Deserialize)]
struct Leg {
    #[serde(default)]
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
struct Step {
    #[serde(default)]
    distance: f64,
    #[serde(default)]
    name: String,
    #[serde(rename = "ref")]
    road_ref: Option<String>,
    maneuver: Maneuver,
}

#[derive(Debug, Deserialize)]
struct Maneuver {
    #[serde(rename = "type")]
    kind: String,
    modifier: Option<String>,
    exit: Option<u32>,
}

/// Steps shorter than this that only continue along the way are left out of the main steps.
const MINOR_STEP_METRES: f64 = 50.0;

impl Step {
    fn road(&self) -> String {
        match (self.name.trim(), self.road_ref.as_deref().map(str::trim)) {
            ("", Some(r)) if !r.is_empty() => r.to_owned(),
            (name, _) => name.to_owned(),
        }
    }

    /// "Turn left onto Main Street (1.2 km)".
    fn instruction(&self, unit: &str) -> Option<String> {
        let road = self.road();
        let onto = if road.is_empty() {
            String::new()
        } else {
            format!(" onto {road}")
        };
        let modifier = self.maneuver.modifier.as_deref().unwrap_or("");
        let text = match self.maneuver.kind.as_str() {
            "depart" if road.is_empty() => "Start".to_owned(),
            "depart" => format!("Start on {road}"),
            "arrive" => return Some("Arrive at the destination".to_owned()),
            "roundabout" | "rotary" | "exit roundabout" | "exit rotary" => match self.maneuver.exit
            {
                Some(exit) => format!("At the roundabout, take exit {exit}{onto}"),
                None => format!("Go through the roundabout{onto}"),
            },
            "merge" => format!("Merge{onto}"),
            "on ramp" => format!("Take the ramp{onto}"),
            "off ramp" => format!("Take the exit{onto}"),
            "fork" => format!("Keep {modifier} at the fork{onto}"),
            "end of road" => format!("At the end of the road, turn {modifier}{onto}"),
            "continue" | "new name" | "notification" => {
                if self.distance < MINOR_STEP_METRES || road.is_empty() {
                    return None;
                }
                format!("Continue{onto}")
            }
            _ if modifier == "straight" => format!("Go straight{onto}"),
            _ if modifier.is_empty() => format!("Turn{onto}"),
            _ if modifier.starts_with("slight") || modifier.starts_with("sharp") => {
                format!("Turn {modifier}{onto}")
            }
            _ if modifier == "uturn" => format!("Make a U-turn{onto}"),
            _ => format!("Turn {modifier}{onto}"),
        };
        if self.distance >= MINOR_STEP_METRES {
            Some(format!(
                "{text} ({} {unit})",
                distance_in(self.distance, unit)
            ))
        } else {
            Some(text)
        }
    }
}

pub fn route_from(
    body: &str,
    origin: RouteEnd,
    destination: RouteEnd,
    mode: TravelMode,
    unit: &str,
) -> Result<Route, ProviderError> {
    let answer: Answer = json_of(body, WHO)?;
    if answer.code != "Ok" {
        tracing::info!(
            code = answer.code,
            message = answer.message,
            "OSRM found no route"
        );
        return Err(match answer.code.as_str() {
            "NoRoute" | "NoSegment" => format!(
                "I couldn't find a way from {} to {} by {}.",
                origin.name,
                destination.name,
                mode_words(mode)
            )
            .into(),
            _ => format!("{WHO} couldn't plan that trip right now.").into(),
        });
    }
    let route = answer.routes.into_iter().next().ok_or_else(|| {
        format!(
            "I couldn't find a way from {} to {}.",
            origin.name, destination.name
        )
    })?;
    let steps = route
        .legs
        .iter()
        .flat_map(|leg| &leg.steps)
        .filter_map(|step| step.instruction(unit))
        .collect();
    let (duration_minutes, duration) = duration_text(route.duration);
    Ok(Route {
        origin,
        destination,
        mode,
        distance: distance_in(route.distance, unit),
        distance_unit: unit.to_owned(),
        duration_minutes,
        duration,
        steps: main_steps(steps),
        source: "OpenStreetMap".to_owned(),
    })
}

pub fn mode_words(mode: TravelMode) -> &'static str {
    match mode {
        TravelMode::Driving => "car",
        TravelMode::Walking => "foot",
        TravelMode::Cycling => "bike",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(name: &str) -> RouteEnd {
        RouteEnd {
            name: name.to_owned(),
            latitude: 0.0,
            longitude: 0.0,
        }
    }

    #[test]
    fn a_route_reads_as_turns() {
        let url = route_url(
            "http://127.0.0.1:9",
            TravelMode::Cycling,
            (18.5, 73.8),
            (18.6, 73.9),
        )
        .expect("should work");
        assert_eq!(url.path(), "/routed-bike/route/v1/bike/73.8,18.5;73.9,18.6");
        let body = r#"{"code":"Ok","routes":[{"distance":5230.0,"duration":840.0,"legs":[{"steps":[
            {"distance":300.0,"name":"FC Road","maneuver":{"type":"depart","location":[73.8,18.5]}},
            {"distance":20.0,"name":"","maneuver":{"type":"continue","modifier":"straight"}},
            {"distance":4900.0,"name":"University Road","maneuver":{"type":"turn","modifier":"left"}},
            {"distance":0.0,"name":"","maneuver":{"type":"arrive"}}]}]}],"waypoints":[]}"#;
        let route =
            route_from(body, end("A"), end("B"), TravelMode::Cycling, "km").expect("should work");
        assert_eq!(route.distance, 5.2);
        assert_eq!(route.duration, "14 min");
        assert_eq!(
            route.steps,
            [
                "Start on FC Road (0.3 km)",
                "Turn left onto University Road (4.9 km)",
                "Arrive at the destination"
            ]
        );
        let none = route_from(
            r#"{"code":"NoRoute","message":"Impossible route between points"}"#,
            end("Pune"),
            end("Honolulu"),
            TravelMode::Driving,
            "km",
        );
        assert_eq!(
            none.expect_err("should be refused"),
            "I couldn't find a way from Pune to Honolulu by car.".into()
        );
    }
}
