//! The built-in apps (issue 19) against loopback stand-ins that speak each provider's wire
//! format: Open-Meteo (geocoding and forecast), Nominatim, OSRM, Google News' RSS and an Atom
//! feed, AccuWeather, NewsAPI, Google Maps, Brave Search, Google Programmable Search and
//! DuckDuckGo's HTML page. Every request is recorded, so the tests show units and time zones
//! asked for, the cache (a second call makes no request), Nominatim's spacing, the keyed
//! alternatives taking over and falling back, and plain errors. Charts render to files the
//! chat can show.

use sentient_engine::sync::MutexExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::{TestEngine, point_models_at, serve_on_loopback, wait_chats};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// How long the slow stand-in place takes to answer: far past the tests' time limit.
const SLOW: Duration = Duration::from_secs(5);
/// The built-ins' time limit in these tests.
const TIME_LIMIT_MS: u64 = 400;

/// One request a stand-in received.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    query: HashMap<String, String>,
    headers: HeaderMap,
    at: Instant,
}

#[derive(Default)]
struct Providers {
    seen: Vec<Seen>,
    /// Keyed providers answer 503 while true.
    keyed_down: bool,
}

type Shared = Arc<Mutex<Providers>>;

fn lock(p: &Shared) -> std::sync::MutexGuard<'_, Providers> {
    p.lock_unpoisoned()
}

fn seen(p: &Shared, path: &str) -> Vec<Seen> {
    lock(p)
        .seen
        .iter()
        .filter(|s| s.path.starts_with(path))
        .cloned()
        .collect()
}

fn json_answer(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

fn feed(body: String) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/rss+xml")],
        body,
    )
        .into_response()
}

/// Open-Meteo's geocoding: a few known places.
fn geocoding(name: &str) -> Value {
    let place =
        |name: &str, lat: f64, lon: f64, cc: &str, country: &str, admin1: &str, tz: &str| {
            json!({"id": 1, "name": name, "latitude": lat, "longitude": lon, "elevation": 100.0,
               "feature_code": "PPLA", "country_code": cc, "country": country, "admin1": admin1,
               "timezone": tz, "population": 1_000_000})
        };
    let results = match name {
        "Austin" => vec![place(
            "Austin",
            30.26715,
            -97.74306,
            "US",
            "United States",
            "Texas",
            "America/Chicago",
        )],
        "Pune" => vec![place(
            "Pune",
            18.51957,
            73.85535,
            "IN",
            "India",
            "Maharashtra",
            "Asia/Kolkata",
        )],
        "London" => vec![place(
            "London",
            51.50853,
            -0.12574,
            "GB",
            "United Kingdom",
            "England",
            "Europe/London",
        )],
        "Slowtown" => vec![place(
            "Slowtown",
            10.0,
            10.0,
            "NG",
            "Nigeria",
            "Lagos",
            "Africa/Lagos",
        )],
        "Brokenville" => vec![place(
            "Brokenville",
            20.0,
            20.0,
            "NG",
            "Nigeria",
            "Lagos",
            "Africa/Lagos",
        )],
        _ => return json!({"generationtime_ms": 0.4}),
    };
    json!({"results": results, "generationtime_ms": 0.6})
}

/// Open-Meteo's forecast for any place, in the units asked for.
fn forecast(query: &HashMap<String, String>) -> Value {
    let fahrenheit = query.get("temperature_unit").map(String::as_str) == Some("fahrenheit");
    let t = |c: f64| if fahrenheit { c * 9.0 / 5.0 + 32.0 } else { c };
    let days: usize = query
        .get("forecast_days")
        .and_then(|d| d.parse().ok())
        .unwrap_or(7);
    let dates: Vec<String> = (0..days)
        .map(|i| {
            (chrono::NaiveDate::from_ymd_opt(2026, 12, 2).expect("a date")
                + chrono::Days::new(i as u64))
            .to_string()
        })
        .collect();
    json!({
        "latitude": 30.25, "longitude": -97.75, "generationtime_ms": 0.1,
        "utc_offset_seconds": -21600,
        "timezone": query.get("timezone").cloned().unwrap_or_default(),
        "timezone_abbreviation": "GMT-6", "elevation": 150.0,
        "current_units": {"time": "iso8601", "temperature_2m": if fahrenheit { "°F" } else { "°C" }},
        "current": {"time": "2026-12-02T09:15", "interval": 900, "temperature_2m": t(12.0),
                    "relative_humidity_2m": 71, "apparent_temperature": t(10.5), "precipitation": 0.0,
                    "weather_code": 2, "wind_speed_10m": 14.3},
        "daily_units": {"time": "iso8601"},
        "daily": {
            "time": dates,
            "weather_code": (0..days).map(|i| if i == 1 { 61 } else { 3 }).collect::<Vec<_>>(),
            "temperature_2m_max": (0..days).map(|i| t(15.0 + i as f64)).collect::<Vec<_>>(),
            "temperature_2m_min": (0..days).map(|i| t(5.0 + i as f64)).collect::<Vec<_>>(),
            "precipitation_probability_max": (0..days).map(|i| if i == 1 { 80 } else { 10 }).collect::<Vec<_>>(),
            "precipitation_sum": (0..days).map(|i| if i == 1 { 4.2 } else { 0.0 }).collect::<Vec<_>>(),
        }
    })
}

fn nominatim(query: &HashMap<String, String>) -> Value {
    let q = query.get("q").map(String::as_str).unwrap_or_default();
    let place = |name: &str, lat: &str, lon: &str, kind: &str, address: &str| {
        json!({"place_id": 1, "licence": "Data © OpenStreetMap contributors, ODbL 1.0.",
               "osm_type": "node", "osm_id": 1, "lat": lat, "lon": lon, "category": "place",
               "type": kind, "place_rank": 16, "importance": 0.7, "addresstype": kind,
               "name": name, "display_name": address, "boundingbox": ["0", "1", "0", "1"]})
    };
    match q {
        "Pune" => json!([place(
            "Pune",
            "18.5213738",
            "73.8545071",
            "city",
            "Pune, Pune District, Maharashtra, India"
        )]),
        "Mumbai" => json!([place(
            "Mumbai",
            "19.0815772",
            "72.8866275",
            "city",
            "Mumbai, Mumbai Suburban, Maharashtra, India"
        )]),
        "coffee" if query.contains_key("viewbox") => json!([
            place(
                "Blue Tokai",
                "18.53",
                "73.83",
                "cafe",
                "Blue Tokai, FC Road, Pune, Maharashtra, India"
            ),
            place(
                "Third Wave",
                "18.55",
                "73.80",
                "cafe",
                "Third Wave, Baner, Pune, Maharashtra, India"
            ),
        ]),
        _ => json!([]),
    }
}

fn osrm() -> Value {
    json!({"code": "Ok", "waypoints": [], "routes": [{"distance": 148_650.0, "duration": 109_800.0, "weight": 1.0,
    "legs": [{"distance": 148_650.0, "duration": 109_800.0, "summary": "Old Mumbai Pune Highway", "steps": [
        {"distance": 400.0, "duration": 300.0, "name": "Shivaji Road", "mode": "walking",
         "maneuver": {"type": "depart", "location": [73.85, 18.52], "bearing_after": 10}},
        {"distance": 148_000.0, "duration": 109_000.0, "name": "Old Mumbai Pune Highway", "ref": "NH48",
         "mode": "walking", "maneuver": {"type": "turn", "modifier": "left", "location": [73.85, 18.53]}},
        {"distance": 250.0, "duration": 500.0, "name": "", "mode": "walking",
         "maneuver": {"type": "roundabout", "exit": 2, "location": [72.9, 19.0]}},
        {"distance": 0.0, "duration": 0.0, "name": "", "mode": "walking",
         "maneuver": {"type": "arrive", "location": [72.88, 19.08]}}
    ]}]}]})
}

fn rss_item(title: &str, link: &str, at: &str) -> String {
    format!(
        "<item><title>{title}</title><link>{link}</link><guid isPermaLink=\"false\">{link}</guid>\
         <pubDate>{at}</pubDate><description>&lt;a href=\"{link}\"&gt;{title}&lt;/a&gt;</description></item>"
    )
}

fn google_news(query: &str) -> String {
    let items = match query {
        "elections" => [
            rss_item(
                "Polls close in the state elections - The Hindu",
                "https://news.example/a",
                "Tue, 01 Dec 2026 08:00:00 GMT",
            ),
            rss_item(
                "Counting begins tomorrow - BBC News",
                "https://news.example/b",
                "Tue, 01 Dec 2026 18:30:00 GMT",
            ),
            rss_item(
                "Counting begins tomorrow - BBC News",
                "https://news.example/b",
                "Tue, 01 Dec 2026 18:30:00 GMT",
            ),
            rss_item(
                "What the manifestos promise - Reuters",
                "https://news.example/c",
                "Mon, 30 Nov 2026 12:00:00 GMT",
            ),
        ]
        .concat(),
        "" => rss_item(
            "Top story of the day - AP News",
            "https://news.example/top",
            "Wed, 02 Dec 2026 06:00:00 GMT",
        ),
        _ => String::new(),
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\">\
         <channel><generator>NFE/5.0</generator><title>\"{query}\" - Google News</title><link>https://news.google.com/</link>\
         <language>en-US</language><description>Google News</description>{items}</channel></rss>"
    )
}

const TECH_ATOM: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Technology - Example Wire</title><id>urn:example:tech</id>
<updated>2026-12-02T07:00:00Z</updated>
<entry><title>Chip makers report a record quarter</title><id>urn:example:1</id>
<link href="https://wire.example/chips"/><published>2026-12-01T07:00:00Z</published><updated>2026-12-01T07:00:00Z</updated>
<author><name>Example Wire</name></author></entry>
<entry><title>A new phone folds twice</title><id>urn:example:2</id>
<link href="https://wire.example/phone"/><published>2026-12-02T07:00:00Z</published><updated>2026-12-02T07:00:00Z</updated>
<author><name>Example Wire</name></author></entry>
</feed>"#;

const DUCKDUCKGO: &str = r#"<!DOCTYPE html><html><body><div class="serp__results"><div id="links" class="results">
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fkeyless.example%2Fotters&amp;rut=a">Otters without a key</a></h2>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">From the keyless page.</a></div></div>
</div></div></body></html>"#;

/// Keys the keyed stand-ins accept.
const GOOD_KEY: &str = "good-key-1234";

async fn answer(
    State(p): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let path = uri.path().to_owned();
    let keyed_down = {
        let mut p = lock(&p);
        p.seen.push(Seen {
            path: path.clone(),
            query: query.clone(),
            headers: headers.clone(),
            at: Instant::now(),
        });
        p.keyed_down
    };
    let q = |name: &str| query.get(name).cloned().unwrap_or_default();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let keyed = |key: String| -> Option<Response> {
        if keyed_down {
            return Some((StatusCode::SERVICE_UNAVAILABLE, "down").into_response());
        }
        (key != GOOD_KEY).then(|| {
            json_answer(
                StatusCode::UNAUTHORIZED,
                json!({"Code": "Unauthorized", "Message": "Api Authorization failed"}),
            )
        })
    };
    match path.as_str() {
        "/v1/search" => json_answer(StatusCode::OK, geocoding(&q("name"))),
        "/v1/forecast" => {
            let lat = q("latitude");
            if lat == "10" {
                tokio::time::sleep(SLOW).await;
            }
            if lat == "20" {
                return (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response();
            }
            if q("forecast_days").parse::<u32>().is_err() {
                return json_answer(StatusCode::BAD_REQUEST, json!({"error": true, "reason": "Invalid forecast_days"}));
            }
            json_answer(StatusCode::OK, forecast(&query))
        }
        "/search" => json_answer(StatusCode::OK, nominatim(&query)),
        "/reverse" if q("lat").starts_with("18.52") => json_answer(
            StatusCode::OK,
            json!({"place_id": 5, "lat": "18.5204", "lon": "73.8567", "category": "highway", "type": "residential",
                   "name": "Shivaji Road", "display_name": "Shivaji Road, Kasba Peth, Pune, Maharashtra, 411011, India"}),
        ),
        "/reverse" => json_answer(StatusCode::OK, json!({"error": "Unable to geocode"})),
        p if p.starts_with("/routed-") => json_answer(StatusCode::OK, osrm()),
        "/rss/search" => feed(google_news(&q("q"))),
        "/rss" => feed(google_news("")),
        "/rss/headlines/section/topic/TECHNOLOGY" => {
            ([(axum::http::header::CONTENT_TYPE, "application/atom+xml")], TECH_ATOM).into_response()
        }
        "/html/" => ([(axum::http::header::CONTENT_TYPE, "text/html")], DUCKDUCKGO).into_response(),
        // AccuWeather
        "/locations/v1/cities/search" => keyed(q("apikey")).unwrap_or_else(|| {
            json_answer(StatusCode::OK, json!([{"Version": 1, "Key": "328328", "Type": "City", "Rank": 10,
                "LocalizedName": q("q").split(',').next().unwrap_or_default(),
                "Country": {"ID": "GB", "LocalizedName": "United Kingdom"},
                "AdministrativeArea": {"ID": "LND", "LocalizedName": "London"},
                "TimeZone": {"Code": "GMT", "Name": "Europe/London", "GmtOffset": 0.0},
                "GeoPosition": {"Latitude": 51.507, "Longitude": -0.128}}]))
        }),
        "/currentconditions/v1/328328" => keyed(q("apikey")).unwrap_or_else(|| {
            json_answer(StatusCode::OK, json!([{"LocalObservationDateTime": "2026-12-02T15:20:00+00:00",
                "EpochTime": 1, "WeatherText": "Mostly cloudy", "WeatherIcon": 6, "HasPrecipitation": false,
                "Temperature": {"Metric": {"Value": 7.2, "Unit": "C"}, "Imperial": {"Value": 45.0, "Unit": "F"}},
                "RealFeelTemperature": {"Metric": {"Value": 4.1, "Unit": "C"}, "Imperial": {"Value": 39.0, "Unit": "F"}},
                "RelativeHumidity": 81,
                "Wind": {"Speed": {"Metric": {"Value": 14.8, "Unit": "km/h"}, "Imperial": {"Value": 9.2, "Unit": "mi/h"}}},
                "PrecipitationSummary": {"Precipitation": {"Metric": {"Value": 0.0, "Unit": "mm"}, "Imperial": {"Value": 0.0, "Unit": "in"}}}}]))
        }),
        // NewsAPI
        "/v2/everything" | "/v2/top-headlines" => {
            if keyed_down {
                return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            if header("x-api-key") != GOOD_KEY {
                return json_answer(StatusCode::UNAUTHORIZED, json!({"status": "error", "code": "apiKeyInvalid", "message": "Your API key is invalid or incorrect."}));
            }
            json_answer(StatusCode::OK, json!({"status": "ok", "totalResults": 2, "articles": [
                {"source": {"id": "reuters", "name": "Reuters"}, "author": "A", "title": "NewsAPI: results are in",
                 "description": "d", "url": "https://newsapi.example/1", "publishedAt": "2026-12-02T09:00:00Z", "content": "c"},
                {"source": {"id": null, "name": "Gone"}, "title": "[Removed]", "url": "https://removed.example", "publishedAt": "2026-12-02T08:00:00Z"}
            ]}))
        }
        // Google Maps
        "/maps/api/directions/json" | "/maps/api/geocode/json" | "/maps/api/place/textsearch/json" => {
            if keyed_down {
                return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            if q("key") != GOOD_KEY {
                return json_answer(StatusCode::OK, json!({"status": "REQUEST_DENIED", "error_message": "The provided API key is invalid.", "results": []}));
            }
            let location = json!({"lat": 18.5204, "lng": 73.8567});
            match path.as_str() {
                "/maps/api/directions/json" => json_answer(StatusCode::OK, json!({"status": "OK", "geocoded_waypoints": [],
                    "routes": [{"summary": "Mumbai - Pune Expy", "legs": [{
                        "distance": {"text": "149 km", "value": 149_000}, "duration": {"text": "2 hours 50 mins", "value": 10_200},
                        "start_address": "Pune, Maharashtra, India", "end_address": "Mumbai, Maharashtra, India",
                        "start_location": location, "end_location": {"lat": 19.076, "lng": 72.8777},
                        "steps": [{"html_instructions": "Head <b>north</b> on <b>FC Road</b>", "distance": {"text": "1 km", "value": 1000}, "duration": {"value": 120}},
                                  {"html_instructions": "Merge onto <b>Mumbai - Pune Expy</b><div style=\"font-size:0.9em\">Toll road</div>", "distance": {"text": "148 km", "value": 148_000}, "duration": {"value": 10_000}}]}]}]})),
                _ => json_answer(StatusCode::OK, json!({"status": "OK", "results": [{"name": "Google's Pune",
                    "formatted_address": "Pune, Maharashtra, India", "geometry": {"location": location}, "types": ["locality", "political"]}]})),
            }
        }
        // Brave Search
        "/res/v1/web/search" => {
            if keyed_down {
                return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            if header("x-subscription-token") != GOOD_KEY {
                return json_answer(StatusCode::UNPROCESSABLE_ENTITY, json!({"type": "ErrorResponse", "error": {"id": "x", "status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The provided subscription token is invalid."}}));
            }
            json_answer(StatusCode::OK, json!({"type": "search", "query": {"original": q("q")}, "web": {"type": "search", "results": [
                {"title": "Otters from <strong>Brave</strong>", "url": "https://brave.example/otters", "description": "Brave's <strong>otters</strong>."}]}}))
        }
        // Google Programmable Search
        "/customsearch/v1" => {
            if keyed_down {
                return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            if q("key") != GOOD_KEY || q("cx") != "engine-1" {
                return json_answer(StatusCode::BAD_REQUEST, json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}));
            }
            json_answer(StatusCode::OK, json!({"kind": "customsearch#search", "items": [
                {"kind": "customsearch#result", "title": "Otters from Google", "link": "https://cse.example/otters", "snippet": "Google's otters."}]}))
        }
        _ => (StatusCode::NOT_FOUND, "no such stand-in").into_response(),
    }
}

struct Stand {
    t: TestEngine,
    providers: Shared,
}

async fn stand() -> Result<Stand> {
    let providers = Shared::default();
    let app = Router::new().fallback(answer).with_state(providers.clone());
    let base = serve_on_loopback(app, "").await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        open_meteo_geocoding: base.clone(),
        open_meteo_forecast: base.clone(),
        nominatim: base.clone(),
        osrm: base.clone(),
        news_rss: base.clone(),
        duckduckgo_html: format!("{base}/html/"),
        accuweather: base.clone(),
        newsapi: base.clone(),
        google_maps: base.clone(),
        brave_search: base.clone(),
        google_cse: base.clone(),
        builtin_timeout_ms: TIME_LIMIT_MS,
        ..Endpoints::default()
    })
    .await?;
    Ok(Stand { t, providers })
}

impl Stand {
    /// Runs one tool as the agent would: `(is_error, value)`.
    async fn call(&self, tool: &str, args: Value) -> (bool, Value) {
        let agent = self.t.engine.services().agent();
        let ctx = agent.tool_ctx(format!("call-{tool}"));
        let result = agent.tools().invoke(tool, args, &ctx, 16_000).await;
        (result.is_error, result.value)
    }

    async fn ok(&self, tool: &str, args: Value) -> Value {
        let (is_error, value) = self.call(tool, args.clone()).await;
        assert!(!is_error, "{tool}({args}) failed: {value}");
        value
    }

    async fn error(&self, tool: &str, args: Value) -> String {
        let (is_error, value) = self.call(tool, args.clone()).await;
        assert!(is_error, "{tool}({args}) should fail: {value}");
        value["error"].as_str().unwrap_or_default().to_owned()
    }

    async fn set(&self, patch: Value) {
        let (status, body) = self
            .t
            .client
            .patch("/api/config", patch)
            .await
            .expect("config");
        assert_eq!(status, 200, "{body}");
    }

    async fn connect(&self, id: &str, fields: Value) -> (u16, Value) {
        self.t
            .client
            .post(
                &format!("/api/integrations/{id}/connect"),
                json!({"fields": fields}),
            )
            .await
            .expect("connect")
    }
}

#[tokio::test]
async fn weather_comes_in_the_users_units_and_the_places_time_zone_and_is_kept_ten_minutes()
-> Result<()> {
    let s = stand().await?;
    // No home yet: a plain error that says where to set it.
    let missing = s.error("weather_current", json!({})).await;
    assert!(missing.contains("Settings > General"), "{missing}");

    s.set(json!({"assistant": {"location": "Austin"}})).await;
    let days = s.ok("weather_forecast", json!({})).await;
    assert_eq!(days["place"], "Austin, Texas, United States", "{days}");
    assert_eq!(days["timezone"], "America/Chicago");
    assert_eq!(days["units"]["temperature"], "°F");
    assert_eq!(days["units"]["wind_speed"], "mph");
    let list = days["days"].as_array().expect("days");
    assert_eq!(list.len(), 3, "{days}");
    assert_eq!(list[1]["date"], "2026-12-03");
    assert_eq!(list[1]["weekday"], "Thursday");
    assert_eq!(list[1]["high"], 60.8);
    assert_eq!(list[1]["low"], 42.8);
    assert_eq!(list[1]["rain_chance_percent"], 80.0);
    assert_eq!(
        list[1]["summary"],
        "Light rain, 43 to 61 °F, 80% chance of rain."
    );
    let asked = seen(&s.providers, "/v1/forecast");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].query["temperature_unit"], "fahrenheit");
    assert_eq!(asked[0].query["wind_speed_unit"], "mph");
    assert_eq!(asked[0].query["timezone"], "America/Chicago");

    // Another city keeps the person's units and uses its own time zone.
    let pune = s
        .ok("weather_current", json!({"location": "Pune, India"}))
        .await;
    assert_eq!(pune["place"], "Pune, Maharashtra, India");
    assert_eq!(pune["timezone"], "Asia/Kolkata");
    assert_eq!(pune["temperature"], 53.6);
    assert_eq!(pune["conditions"], "Partly cloudy");
    assert_eq!(pune["time"], "2026-12-02T09:15");
    // "Pune, India" asks the geocoder for "Pune"; India picks among the answers.
    assert!(
        seen(&s.providers, "/v1/search")
            .iter()
            .any(|r| r.query["name"] == "Pune")
    );

    // The same questions again: answered from the cache, no new request.
    let before = lock(&s.providers).seen.len();
    s.ok("weather_forecast", json!({})).await;
    s.ok("weather_current", json!({"location": "Pune, India"}))
        .await;
    assert_eq!(
        lock(&s.providers).seen.len(),
        before,
        "the cache should answer"
    );
    let kept: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM builtin_cache")
        .fetch_one(s.t.engine.services().store().pool())
        .await?;
    assert!(kept >= 3, "{kept} answers kept");
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn weather_units_follow_the_time_zone_and_failures_are_plain() -> Result<()> {
    let s = stand().await?;
    // No home city: the time zone says which units (London: °C and mph).
    s.set(json!({"assistant": {"timezone": "Europe/London"}}))
        .await;
    let london = s.ok("weather_current", json!({"location": "London"})).await;
    assert_eq!(london["units"]["temperature"], "°C", "{london}");
    assert_eq!(london["units"]["wind_speed"], "mph");
    assert_eq!(london["temperature"], 12.0);

    let nowhere = s
        .error("weather_current", json!({"location": "Atlantis"}))
        .await;
    assert_eq!(nowhere, "I couldn't find a place called \"Atlantis\".");
    let broken = s
        .error("weather_forecast", json!({"location": "Brokenville"}))
        .await;
    assert!(
        broken.contains("The weather service couldn't answer right now"),
        "{broken}"
    );
    let started = Instant::now();
    let slow = s
        .error("weather_current", json!({"location": "Slowtown"}))
        .await;
    assert!(slow.contains("didn't answer in time"), "{slow}");
    assert!(
        started.elapsed() < SLOW,
        "the time limit should end the call"
    );
    // A failed answer is not kept: asking again asks again.
    s.error("weather_forecast", json!({"location": "Brokenville"}))
        .await;
    let tries = seen(&s.providers, "/v1/forecast")
        .iter()
        .filter(|r| r.query["latitude"] == "20")
        .count();
    assert_eq!(tries, 2);
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn maps_find_places_plan_routes_look_up_addresses_and_space_their_requests() -> Result<()> {
    let s = stand().await?;
    let found = s
        .ok(
            "maps_search_places",
            json!({"query": "coffee", "near": "Pune"}),
        )
        .await;
    assert_eq!(found["query"], "coffee");
    let places = found["places"].as_array().expect("places");
    assert_eq!(places.len(), 2, "{found}");
    assert_eq!(places[0]["name"], "Blue Tokai");
    assert_eq!(places[0]["kind"], "cafe");
    assert_eq!(places[0]["latitude"], 18.53);
    // Two Nominatim requests (the "near" place, then the search), at least a second apart,
    // each saying who asks.
    let asked = seen(&s.providers, "/search");
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1].at - asked[0].at >= Duration::from_millis(950),
        "{:?} apart",
        asked[1].at - asked[0].at
    );
    for request in &asked {
        let agent = request.headers["user-agent"].to_str()?;
        assert!(
            agent.starts_with("Sentient/") && agent.contains("assistant"),
            "{agent}"
        );
    }
    assert!(asked[1].query.contains_key("viewbox"));

    let route = s
        .ok(
            "maps_directions",
            json!({"origin": "Pune", "destination": "Mumbai", "mode": "walking"}),
        )
        .await;
    assert_eq!(route["mode"], "walking", "{route}");
    assert_eq!(route["distance"], 148.7);
    assert_eq!(route["distance_unit"], "km");
    assert_eq!(route["duration"], "30 h 30 min");
    assert_eq!(route["origin"]["name"], "Pune");
    assert_eq!(
        route["steps"],
        json!([
            "Start on Shivaji Road (0.4 km)",
            "Turn left onto Old Mumbai Pune Highway (148 km)",
            "At the roundabout, take exit 2 (0.3 km)",
            "Arrive at the destination"
        ])
    );
    let routed = seen(&s.providers, "/routed-foot/route/v1/foot/");
    assert_eq!(routed.len(), 1);
    assert!(
        routed[0]
            .path
            .ends_with("/73.8545071,18.5213738;72.8866275,19.0815772"),
        "{}",
        routed[0].path
    );

    let address = s
        .ok("maps_reverse", json!({"lat": 18.5204, "lon": 73.8567}))
        .await;
    assert_eq!(address["name"], "Shivaji Road");
    assert!(
        address["address"]
            .as_str()
            .is_some_and(|a| a.contains("411011"))
    );
    let sea = s
        .error("maps_reverse", json!({"lat": 0.0, "lon": 0.0}))
        .await;
    assert_eq!(sea, "There's no address at 0, 0 on the map.");
    let nothing = s
        .error("maps_search_places", json!({"query": "zzzz"}))
        .await;
    assert_eq!(
        nothing,
        "I couldn't find a place called \"zzzz\" on the map."
    );
    let mode = s
        .error(
            "maps_directions",
            json!({"origin": "Pune", "destination": "Mumbai", "mode": "teleport"}),
        )
        .await;
    assert!(mode.contains("driving, walking or cycling"), "{mode}");
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn news_reads_rss_and_atom_newest_first_each_story_once() -> Result<()> {
    let s = stand().await?;
    let news = s
        .ok("news_search", json!({"query": "elections", "limit": 5}))
        .await;
    assert_eq!(news["query"], "elections");
    assert_eq!(
        news["articles"],
        json!([
            {"title": "Counting begins tomorrow", "source": "BBC News", "published": "2026-12-01T18:30:00Z", "link": "https://news.example/b"},
            {"title": "Polls close in the state elections", "source": "The Hindu", "published": "2026-12-01T08:00:00Z", "link": "https://news.example/a"},
            {"title": "What the manifestos promise", "source": "Reuters", "published": "2026-11-30T12:00:00Z", "link": "https://news.example/c"}
        ])
    );
    let two = s
        .ok("news_search", json!({"query": "elections", "limit": 2}))
        .await;
    assert_eq!(two["articles"].as_array().map(Vec::len), Some(2));
    // Two calls, one request: the feed is kept for a few minutes.
    assert_eq!(seen(&s.providers, "/rss/search").len(), 1);

    let tech = s.ok("news_headlines", json!({"topic": "technology"})).await;
    assert_eq!(
        tech["articles"][0]["title"], "A new phone folds twice",
        "{tech}"
    );
    assert_eq!(tech["articles"][0]["source"], "Example Wire");
    assert_eq!(tech["articles"][1]["published"], "2026-12-01T07:00:00Z");
    let top = s.ok("news_headlines", json!({})).await;
    assert_eq!(top["query"], "top stories");
    assert_eq!(top["articles"][0]["source"], "AP News");
    let none = s.error("news_search", json!({"query": "quiet"})).await;
    assert_eq!(none, "I couldn't find any news about quiet.");
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_integrations_page_lists_the_built_ins_connected_and_the_keyed_alternatives()
-> Result<()> {
    let s = stand().await?;
    let (status, apps) = s.t.client.get("/api/integrations").await?;
    assert_eq!(status, 200);
    let app = |id: &str| {
        apps.as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == id))
            .cloned()
            .unwrap_or_else(|| panic!("{id} is not listed"))
    };
    for (id, tools) in [
        ("weather", vec!["weather_current", "weather_forecast"]),
        (
            "maps",
            vec!["maps_search_places", "maps_directions", "maps_reverse"],
        ),
        ("news", vec!["news_search", "news_headlines"]),
        ("charts", vec!["charts_create"]),
    ] {
        let built_in = app(id);
        assert_eq!(built_in["auth_type"], "builtin", "{built_in}");
        assert_eq!(built_in["connected"], true);
        let names: Vec<&str> = built_in["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, tools, "{id}");
        assert!(
            built_in["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .all(|t| t["risk"] == "read")
        );
    }
    for (id, replaces) in [
        ("accuweather", "weather"),
        ("newsapi", "news"),
        ("google_maps", "maps"),
        ("brave_search", "internet_search"),
        ("google_cse", "internet_search"),
    ] {
        let keyed = app(id);
        assert_eq!(keyed["auth_type"], "api_key", "{keyed}");
        assert_eq!(keyed["alternative_for"], replaces);
        assert_eq!(keyed["connected"], false);
        assert_eq!(keyed["tools"], json!([]));
    }
    // Which tools say their output is someone else's text (contract section 10).
    let tools = s.t.engine.services().agent().tools().clone();
    let untrusted = |name: &str| tools.get(name).map(|t| t.def().untrusted_output);
    assert_eq!(untrusted("weather_forecast"), Some(false));
    assert_eq!(untrusted("charts_create"), Some(false));
    assert_eq!(untrusted("news_search"), Some(true));
    assert_eq!(untrusted("maps_directions"), Some(true));
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_keyed_alternative_is_checked_takes_over_and_falls_back_when_it_fails() -> Result<()> {
    let s = stand().await?;
    // A wrong key is refused with the provider's reason and nothing is saved.
    let (status, body) = s.connect("accuweather", json!({"api_key": "wrong"})).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("didn't accept the key")),
        "{body}"
    );
    let (status, body) = s.connect("accuweather", json!({"api_key": GOOD_KEY})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["connected"], true, "{body}");
    let (status, tested) =
        s.t.client
            .post("/api/integrations/accuweather/test", json!({}))
            .await?;
    assert_eq!(status, 200, "{tested}");

    s.set(json!({"assistant": {"timezone": "Europe/Berlin"}}))
        .await;
    let now = s.ok("weather_current", json!({"location": "London"})).await;
    assert_eq!(now["source"], "AccuWeather", "{now}");
    assert_eq!(now["conditions"], "Mostly cloudy");
    assert_eq!(now["temperature"], 7.2);
    assert_eq!(now["timezone"], "Europe/London");
    assert!(seen(&s.providers, "/currentconditions/v1/328328")[0].query["apikey"] == GOOD_KEY);
    assert!(
        seen(&s.providers, "/v1/forecast").is_empty(),
        "Open-Meteo was not needed"
    );

    // AccuWeather down: the same tool answers from Open-Meteo.
    lock(&s.providers).keyed_down = true;
    let fallback = s.ok("weather_current", json!({"location": "Pune"})).await;
    assert_eq!(fallback["source"], "Open-Meteo", "{fallback}");

    // News, maps and web search the same way.
    lock(&s.providers).keyed_down = false;
    let (status, body) = s.connect("newsapi", json!({"api_key": GOOD_KEY})).await;
    assert_eq!(status, 200, "{body}");
    let news = s.ok("news_search", json!({"query": "results"})).await;
    assert_eq!(
        news["articles"],
        json!([{"title": "NewsAPI: results are in", "source": "Reuters", "published": "2026-12-02T09:00:00Z", "link": "https://newsapi.example/1"}])
    );
    assert_eq!(
        seen(&s.providers, "/v2/everything")[0].headers["x-api-key"],
        GOOD_KEY
    );

    let (status, body) = s.connect("google_maps", json!({"api_key": "nope"})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = s.connect("google_maps", json!({"api_key": GOOD_KEY})).await;
    assert_eq!(status, 200, "{body}");
    let route = s
        .ok(
            "maps_directions",
            json!({"origin": "Pune", "destination": "Mumbai"}),
        )
        .await;
    assert_eq!(route["source"], "Google Maps", "{route}");
    assert_eq!(route["duration"], "2 h 50 min");
    assert_eq!(
        route["steps"][1],
        "Merge onto Mumbai - Pune Expy Toll road (148 km)"
    );

    let (status, body) = s.connect("google_cse", json!({"api_key": GOOD_KEY})).await;
    assert_eq!(status, 400, "the engine id is needed: {body}");
    let (status, body) = s
        .connect("google_cse", json!({"api_key": GOOD_KEY, "cx": "engine-1"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = s
        .connect("brave_search", json!({"api_key": GOOD_KEY}))
        .await;
    assert_eq!(status, 200, "{body}");
    let brave = s.ok("internet_search", json!({"query": "otters"})).await;
    assert_eq!(
        brave["results"],
        json!([{"title": "Otters from Brave", "url": "https://brave.example/otters", "snippet": "Brave's otters."}])
    );

    // Every keyed provider down: Brave, then Google, then the keyless page.
    lock(&s.providers).keyed_down = true;
    let keyless = s.ok("internet_search", json!({"query": "otters"})).await;
    assert_eq!(
        keyless["results"][0]["url"], "https://keyless.example/otters",
        "{keyless}"
    );
    let news = s.ok("news_search", json!({"query": "elections"})).await;
    assert_eq!(
        news["articles"][0]["source"], "BBC News",
        "the feeds answered: {news}"
    );
    // (Pune to Mumbai is kept from Google's answer; the way back is asked anew.)
    let route = s
        .ok(
            "maps_directions",
            json!({"origin": "Mumbai", "destination": "Pune"}),
        )
        .await;
    assert_eq!(route["source"], "OpenStreetMap", "{route}");
    // Brave down, Google up: Google answers.
    lock(&s.providers).keyed_down = false;
    let (status, _) =
        s.t.client
            .post("/api/integrations/brave_search/disconnect", json!({}))
            .await?;
    assert_eq!(status, 200);
    let google = s.ok("internet_search", json!({"query": "otters"})).await;
    assert_eq!(
        google["results"][0]["url"], "https://cse.example/otters",
        "{google}"
    );

    // Disconnecting forgets the key: the keychain no longer has it.
    let (status, _) =
        s.t.client
            .post("/api/integrations/accuweather/disconnect", json!({}))
            .await?;
    assert_eq!(status, 200);
    assert_eq!(
        s.t.engine.services().secrets().get("accuweather").await?,
        None
    );
    assert_eq!(
        s.t.engine
            .services()
            .secrets()
            .get("google_cse")
            .await?
            .as_deref(),
        Some(GOOD_KEY)
    );
    let after = s.ok("weather_current", json!({"location": "Austin"})).await;
    assert_eq!(after["source"], "Open-Meteo");
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn charts_are_drawn_into_outputs_and_served_as_pictures() -> Result<()> {
    let s = stand().await?;
    let chart = s
        .ok(
            "charts_create",
            json!({"kind": "bar", "title": "Spending by month", "x_label": "Month", "y_label": "€",
                   "series": [{"name": "2026", "points": [["Jan", 420], ["Feb", 380.5], ["Mar", 510]]}]}),
        )
        .await;
    let file = chart["file"].as_str().expect("file").to_owned();
    assert!(
        file.starts_with("outputs/charts/spending-by-month-") && file.ends_with(".png"),
        "{chart}"
    );
    assert_eq!(
        (chart["width"].as_u64(), chart["height"].as_u64()),
        (Some(1000), Some(600))
    );
    let on_disk = s.t.home().join("files").join(&file);
    assert!(on_disk.is_file(), "{}", on_disk.display());
    assert!(
        s.t.home()
            .join("files")
            .join(chart["svg"].as_str().expect("svg"))
            .is_file()
    );
    let response =
        s.t.client
            .request(reqwest::Method::GET, &format!("/api/files/content/{file}"))
            .send()
            .await?;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes().await?;
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    // The files list shows it in its folder.
    let (_, files) = s.t.client.get("/api/files").await?;
    assert!(files.to_string().contains(&file), "{files}");

    let refused = s
        .error("charts_create", json!({"kind": "pie", "title": "Shares", "series": [{"name": "a", "points": [["x", "lots"]]}]}))
        .await;
    assert!(
        refused.ends_with("The chart's series[0].points[0] y must be a number."),
        "{refused}"
    );
    s.t.stop().await;
    Ok(())
}

#[tokio::test]
async fn whats_the_weather_tomorrow_in_chat_calls_the_forecast_and_the_reply_uses_it() -> Result<()>
{
    let s = stand().await?;
    let model = ScriptedModel::start().await;
    point_models_at(&s.t, &model).await?;
    s.set(
        json!({"assistant": {"location": "Pune"}, "models": {"primary": "ollama_chat/qwen3:8b"}}),
    )
    .await;
    model.push(Reply::tool_call("weather_forecast", json!({"days": 2})));
    model.push(Reply::text(
        "Tomorrow in Pune: light rain, 6 to 16 °C and an 80% chance of rain, so take an umbrella.",
    ));
    let mut ws = s.t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "what's the weather tomorrow?"}))
        .await?;
    let result = ws.wait_for("tool_result").await?;
    assert_eq!(result["is_error"], false, "{result}");
    let done = ws.wait_for("done").await?;
    assert!(
        done["content"]
            .as_str()
            .is_some_and(|c| c.contains("umbrella")),
        "{done}"
    );
    wait_chats(&model, 2).await?;
    // The model's second request carries the forecast the tool gave.
    let sent = model.requests_to("/api/chat");
    let forecast = tool_results(&sent[1].body).join("\n");
    assert!(
        forecast.contains("Light rain, 6 to 16 °C, 80% chance of rain."),
        "{forecast}"
    );
    assert!(forecast.contains("Asia/Kolkata"), "{forecast}");
    let offered: Vec<&str> = sent[0].body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    for tool in [
        "weather_current",
        "weather_forecast",
        "maps_directions",
        "news_search",
        "charts_create",
    ] {
        assert!(offered.contains(&tool), "{tool} not offered: {offered:?}");
    }
    s.t.stop().await;
    Ok(())
}

/// The tool results a model request carries, in order.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "tool")
                .filter_map(|m| m["content"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn one_chat_turn_uses_every_built_in_against_the_stand_ins() -> Result<()> {
    let s = stand().await?;
    let model = ScriptedModel::start().await;
    point_models_at(&s.t, &model).await?;
    s.set(
        json!({"assistant": {"location": "Pune"}, "models": {"primary": "ollama_chat/qwen3:8b"}}),
    )
    .await;
    model.push(Reply::tool_calls([
        ("weather_current", json!({})),
        ("maps_directions", json!({"origin": "Pune", "destination": "Mumbai", "mode": "walking"})),
        ("news_headlines", json!({"topic": "technology"})),
        (
            "charts_create",
            json!({"kind": "line", "title": "Rain this week", "series": [{"name": "mm", "points": [[1, 0], [2, 4.2], [3, 0]]}]}),
        ),
    ]));
    model.push(Reply::text(
        "Done: weather, the way to Mumbai, tech news and a chart.",
    ));
    let mut ws = s.t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "Brief me, then chart the rain."}))
        .await?;
    let done = ws.wait_for("done").await?;
    assert!(
        done["content"]
            .as_str()
            .is_some_and(|c| c.contains("tech news")),
        "{done}"
    );
    let sent = model.requests_to("/api/chat");
    let results = tool_results(&sent[1].body);
    assert_eq!(results.len(), 4, "{results:?}");
    assert!(results[0].contains("Partly cloudy"), "{}", results[0]);
    assert!(results[1].contains("30 h 30 min"), "{}", results[1]);
    assert!(
        results[2].contains("A new phone folds twice"),
        "{}",
        results[2]
    );
    assert!(
        results[3].contains("outputs/charts/rain-this-week-"),
        "{}",
        results[3]
    );
    s.t.stop().await;
    Ok(())
}
