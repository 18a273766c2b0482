//! `maps_search_places`, `maps_directions` and `maps_reverse`: OpenStreetMap (Nominatim for
//! places, OSRM for routes) without a key, Google Maps while it is connected (OpenStreetMap
//! again, with a log line, when Google fails). Place names and reviews are written by other
//! people, so results count as outside content. Nominatim asks for one request a second and a
//! descriptive user agent; both are kept here.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use sentient_agent::tools::{
    Plugin, ProgressKind, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use super::shapes::{Place, PlaceSearch, Route, RouteEnd, TravelMode};
use super::{google_maps, nominatim, osrm};
use crate::builtins::Builtins;
use crate::builtins::cache::{PLACES_FOR, WEATHER_FOR};
use crate::builtins::keyed::credentials;
use crate::builtins::provider::{Answer, MAPS_USER_AGENT, ProviderError, cached, fetch};
use crate::builtins::{timeout, user_units};

const OSM: &str = "OpenStreetMap";
const ROUTES: &str = "The route service";
const GOOGLE: &str = "Google Maps";
/// Places one search returns.
const PLACES: u8 = 5;

pub fn plugin(builtins: Arc<Builtins>) -> Plugin {
    Plugin {
        id: "maps".to_owned(),
        display_name: "Maps".to_owned(),
        description: "Find places, addresses and directions.".to_owned(),
        category: "built_in".to_owned(),
        icon: "map".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "map place address where near directions route drive walk cycle how far how long distance airport restaurant".to_owned(),
        scoped: false,
        tools: vec![
            Arc::new(MapsTool::new(builtins.clone(), Kind::Search)),
            Arc::new(MapsTool::new(builtins.clone(), Kind::Directions)),
            Arc::new(MapsTool::new(builtins, Kind::Reverse)),
        ],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchArgs {
    /// What to find: a name, an address or a kind of place, such as "coffee".
    query: String,
    /// Look near this place, such as "Pune" or "Baner, Pune".
    near: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct DirectionsArgs {
    /// Where the trip starts: an address or a place name.
    origin: String,
    /// Where the trip ends: an address or a place name.
    destination: String,
    /// driving (default), walking or cycling.
    mode: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ReverseArgs {
    /// Latitude, -90 to 90.
    lat: f64,
    /// Longitude, -180 to 180.
    lon: f64,
}

#[derive(Clone, Copy)]
enum Kind {
    Search,
    Directions,
    Reverse,
}

struct MapsTool {
    def: ToolDef,
    builtins: Arc<Builtins>,
    kind: Kind,
}

impl MapsTool {
    fn new(builtins: Arc<Builtins>, kind: Kind) -> Self {
        let mut def = match kind {
            Kind::Search => ToolDef::new::<SearchArgs>(
                "maps_search_places",
                "Find places by name, address or kind (\"pharmacy\"), optionally near a place; gives names, addresses and coordinates.",
                Risk::Read,
            ),
            Kind::Directions => ToolDef::new::<DirectionsArgs>(
                "maps_directions",
                "Directions between two places by car, on foot or by bike: distance, travel time and the main steps.",
                Risk::Read,
            ),
            Kind::Reverse => ToolDef::new::<ReverseArgs>(
                "maps_reverse",
                "The address at a latitude and longitude.",
                Risk::Read,
            ),
        };
        def.untrusted_output = true;
        Self {
            def,
            builtins,
            kind,
        }
    }
}

impl Tool for MapsTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let builtins = &self.builtins;
            match self.kind {
                Kind::Search => {
                    let args: SearchArgs = parse_args(args)?;
                    let query = args.query.trim();
                    if query.is_empty() {
                        return Err(ToolError::Failed("Say what place to look for.".to_owned()));
                    }
                    ctx.progress(
                        ProgressKind::Status,
                        format!("Looking up {query} on the map"),
                    );
                    let near = args
                        .near
                        .as_deref()
                        .map(str::trim)
                        .filter(|n| !n.is_empty());
                    let places = search(builtins, query, near)
                        .await
                        .map_err(ToolError::from)?;
                    ToolOutput::json(&PlaceSearch {
                        query: query.to_owned(),
                        places,
                    })
                }
                Kind::Directions => {
                    let args: DirectionsArgs = parse_args(args)?;
                    let mode = match args.mode.as_deref().map(str::trim) {
                        None | Some("") => TravelMode::Driving,
                        Some(text) => TravelMode::parse(text).map_err(ToolError::from)?,
                    };
                    let (origin, destination) = (args.origin.trim(), args.destination.trim());
                    if origin.is_empty() || destination.is_empty() {
                        return Err(ToolError::Failed(
                            "Give both where the trip starts and where it ends.".to_owned(),
                        ));
                    }
                    ctx.progress(
                        ProgressKind::Status,
                        format!("Finding the way from {origin} to {destination}"),
                    );
                    let unit = user_units(builtins, ctx).await.units().distance;
                    let route = directions(builtins, origin, destination, mode, &unit)
                        .await
                        .map_err(ToolError::from)?;
                    ToolOutput::json(&route)
                }
                Kind::Reverse => {
                    let args: ReverseArgs = parse_args(args)?;
                    let place = reverse(builtins, args.lat, args.lon)
                        .await
                        .map_err(ToolError::from)?;
                    ToolOutput::json(&place)
                }
            }
        })
    }
}

/// Places matching `query`, near `near` when given.
async fn search(
    builtins: &Builtins,
    query: &str,
    near: Option<&str>,
) -> Result<Vec<Place>, ProviderError> {
    if let Some(google) = credentials(&builtins.apps, "google_maps").await {
        let attempt = async {
            let at = match near {
                Some(near) => Some(google_place(builtins, &google.key, near).await?),
                None => None,
            };
            let url = google_maps::text_search_url(
                &builtins.apps.endpoints().google_maps,
                &google.key,
                query,
                at.map(|p| (p.latitude, p.longitude)),
            )?;
            let answer = get(builtins, url, GOOGLE, PLACES_FOR, false).await?;
            if let Some(error) = google_maps::status_error(&answer.body, query) {
                return Err(error.into());
            }
            google_maps::places_from(&answer.body)
        };
        match attempt.await {
            Ok(places) => return Ok(places),
            Err(error) => tracing::info!(%error, "Google Maps failed; using OpenStreetMap"),
        }
    }
    let at = match near {
        Some(near) => Some(osm_place(builtins, near).await?),
        None => None,
    };
    let url = nominatim::search_url(
        &builtins.apps.endpoints().nominatim,
        query,
        PLACES,
        at.map(|p| (p.latitude, p.longitude)),
    )?;
    let answer = get(builtins, url, OSM, PLACES_FOR, true).await?;
    let places = nominatim::places_from(&answer.body)?;
    if places.is_empty() {
        return Err(not_found(query, near).into());
    }
    Ok(places)
}

fn not_found(query: &str, near: Option<&str>) -> String {
    match near {
        Some(near) => format!("I couldn't find \"{query}\" near {near} on the map."),
        None => format!("I couldn't find a place called \"{query}\" on the map."),
    }
}

/// The best match for a place name on OpenStreetMap.
async fn osm_place(builtins: &Builtins, name: &str) -> Result<Place, ProviderError> {
    let url = nominatim::search_url(&builtins.apps.endpoints().nominatim, name, 1, None)?;
    let answer = get(builtins, url, OSM, PLACES_FOR, true).await?;
    nominatim::places_from(&answer.body)?
        .into_iter()
        .next()
        .ok_or_else(|| not_found(name, None).into())
}

async fn google_place(builtins: &Builtins, key: &str, name: &str) -> Result<Place, ProviderError> {
    let url = google_maps::geocode_url(&builtins.apps.endpoints().google_maps, key, name)?;
    let answer = get(builtins, url, GOOGLE, PLACES_FOR, false).await?;
    if let Some(error) = google_maps::status_error(&answer.body, name) {
        return Err(error.into());
    }
    google_maps::places_from(&answer.body)?
        .into_iter()
        .next()
        .ok_or_else(|| not_found(name, None).into())
}

async fn directions(
    builtins: &Builtins,
    origin: &str,
    destination: &str,
    mode: TravelMode,
    unit: &str,
) -> Result<Route, ProviderError> {
    if let Some(google) = credentials(&builtins.apps, "google_maps").await {
        let attempt = async {
            let url = google_maps::directions_url(
                &builtins.apps.endpoints().google_maps,
                &google.key,
                origin,
                destination,
                mode,
            )?;
            let answer = get(builtins, url, GOOGLE, WEATHER_FOR, false).await?;
            if let Some(error) =
                google_maps::status_error(&answer.body, &format!("{origin} to {destination}"))
            {
                return Err(error.into());
            }
            google_maps::route_from(&answer.body, mode, unit)
        };
        match attempt.await {
            Ok(route) => return Ok(route),
            Err(error) => tracing::info!(%error, "Google Maps failed; using OpenStreetMap"),
        }
    }
    let from = osm_place(builtins, origin).await?;
    let to = osm_place(builtins, destination).await?;
    let url = osrm::route_url(
        &builtins.apps.endpoints().osrm,
        mode,
        (from.latitude, from.longitude),
        (to.latitude, to.longitude),
    )?;
    let answer = get(builtins, url, ROUTES, WEATHER_FOR, false).await?;
    osrm::route_from(&answer.body, end(&from), end(&to), mode, unit)
}

fn end(place: &Place) -> RouteEnd {
    RouteEnd {
        name: place.name.clone(),
        latitude: place.latitude,
        longitude: place.longitude,
    }
}

async fn reverse(builtins: &Builtins, lat: f64, lon: f64) -> Result<Place, ProviderError> {
    if let Some(google) = credentials(&builtins.apps, "google_maps").await {
        let attempt = async {
            let url = google_maps::reverse_url(
                &builtins.apps.endpoints().google_maps,
                &google.key,
                lat,
                lon,
            )?;
            let answer = get(builtins, url, GOOGLE, PLACES_FOR, false).await?;
            if let Some(error) = google_maps::status_error(&answer.body, &format!("{lat}, {lon}")) {
                return Err(error.into());
            }
            google_maps::places_from(&answer.body)?
                .into_iter()
                .next()
                .ok_or_else(|| {
                    ProviderError::Answered(format!(
                        "There's no address at {lat}, {lon} on the map."
                    ))
                })
        };
        match attempt.await {
            Ok(place) => return Ok(place),
            Err(error) => tracing::info!(%error, "Google Maps failed; using OpenStreetMap"),
        }
    }
    let url = nominatim::reverse_url(&builtins.apps.endpoints().nominatim, lat, lon)?;
    let answer = get(builtins, url, OSM, PLACES_FOR, true).await?;
    nominatim::reverse_from(&answer.body, lat, lon)
}

/// One cached GET; Nominatim's requests wait their turn and say who is asking.
async fn get(
    builtins: &Builtins,
    url: url::Url,
    who: &str,
    ttl: chrono::Duration,
    osm: bool,
) -> Result<Answer, ProviderError> {
    let answer = cached(&builtins.cache, url.as_str(), "", ttl, async {
        if osm {
            builtins.nominatim.turn().await;
        }
        let request = crate::ctx::http_client()
            .get(url.clone())
            .header(reqwest::header::USER_AGENT, MAPS_USER_AGENT);
        fetch(request, timeout(&builtins.apps), who).await
    })
    .await?;
    if answer.ok() || answer.status == 400 || answer.status == 404 {
        Ok(answer)
    } else {
        Err(ProviderError::Answered(format!(
            "{who} couldn't answer right now ({}). Try again in a minute.",
            answer.status
        )))
    }
}
