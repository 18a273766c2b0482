//! The keyed alternatives (contract section 5's `alternative_for`): AccuWeather for weather,
//! NewsAPI for news, Google Maps for maps, Brave Search and Google Programmable Search for web
//! search. Each keeps its key in the keychain under its id; connecting and Test make one free
//! request. They have no tools of their own: the built-in's tools use them while connected.

use serde_json::{Map, Value};

use super::provider::{Answer, ProviderError, fetch};
use super::{maps, news, search, weather};
use crate::ctx::AppCtx;
use crate::error::IntegrationError;

/// Each keyed alternative and the built-in it stands in for.
pub const ALTERNATIVES: &[(&str, &str)] = &[
    ("accuweather", "weather"),
    ("newsapi", "news"),
    ("google_maps", "maps"),
    ("brave_search", "internet_search"),
    ("google_cse", "internet_search"),
];

/// The keychain entry of Google Programmable Search's engine id (the key is under `google_cse`).
const CSE_ENGINE: &str = "google_cse:cx";

/// The built-in `id` replaces, when it is a keyed alternative.
pub fn alternative_for(id: &str) -> Option<&'static str> {
    ALTERNATIVES
        .iter()
        .find(|(alt, _)| *alt == id)
        .map(|(_, builtin)| *builtin)
}

/// What a provider needs to answer: its key, and Google's engine id.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub key: String,
    pub engine: Option<String>,
}

fn field(fields: &Map<String, Value>, name: &str) -> String {
    fields
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default()
        .to_owned()
}

fn display_name(id: &str) -> &'static str {
    crate::catalog::entry(id).map_or("The app", |e| e.display_name)
}

/// Connects `id` with the typed key: checked with one free request, then saved.
pub async fn connect(
    apps: &AppCtx,
    id: &str,
    fields: &Map<String, Value>,
) -> Result<Option<String>, IntegrationError> {
    let name = display_name(id);
    let key = field(fields, "api_key");
    if key.is_empty() {
        return Err(IntegrationError::Invalid(format!("Paste your {name} key.")));
    }
    if key.contains(char::is_whitespace) {
        return Err(IntegrationError::Invalid(format!(
            "A {name} key has no spaces; copy it again."
        )));
    }
    let engine = (id == "google_cse").then(|| field(fields, "cx"));
    if engine.as_ref().is_some_and(String::is_empty) {
        return Err(IntegrationError::Invalid(
            "Paste your search engine ID (cx), shown in the Programmable Search control panel."
                .to_owned(),
        ));
    }
    let credentials = Credentials { key, engine };
    check(apps, id, &credentials)
        .await
        .map_err(|error| IntegrationError::Invalid(error.to_string()))?;
    apps.secrets().put(id, &credentials.key).await?;
    if let Some(engine) = &credentials.engine {
        apps.secrets().write_entry(CSE_ENGINE, engine).await?;
    }
    let tail: String = credentials
        .key
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Ok(Some(format!("Key ending {tail}")))
}

/// `POST .../test`: the same free request with the saved key.
pub async fn test(apps: &AppCtx, id: &str) -> Result<String, IntegrationError> {
    let credentials = credentials(apps, id).await.ok_or_else(|| {
        IntegrationError::Invalid(format!(
            "{}'s key is missing. Connect it again.",
            display_name(id)
        ))
    })?;
    check(apps, id, &credentials)
        .await
        .map_err(|error| IntegrationError::Invalid(error.to_string()))?;
    Ok(format!(
        "{} answered; Sentient uses it for {}.",
        display_name(id),
        alternative_for(id).map_or("its built-in", |b| display_name(b))
    ))
}

/// Deletes the key (and Google's engine id).
pub async fn forget(apps: &AppCtx, id: &str) -> Result<(), IntegrationError> {
    apps.secrets().delete(id).await?;
    if id == "google_cse" {
        apps.secrets().delete_entry(CSE_ENGINE).await?;
    }
    Ok(())
}

/// The saved credentials of a connected alternative; `None` while it isn't connected.
pub async fn credentials(apps: &AppCtx, id: &str) -> Option<Credentials> {
    if !apps.is_connected(id) {
        return None;
    }
    let key = match apps.secrets().get(id).await {
        Ok(Some(key)) => key,
        Ok(None) => return None,
        Err(error) => {
            tracing::warn!(%error, app = id, "a keyed alternative's key could not be read");
            return None;
        }
    };
    let engine = if id == "google_cse" {
        Some(apps.secrets().read_entry(CSE_ENGINE).await.ok().flatten()?)
    } else {
        None
    };
    Some(Credentials { key, engine })
}

/// One free request that shows the key works; the error is the provider's plain sentence.
async fn check(apps: &AppCtx, id: &str, credentials: &Credentials) -> Result<(), ProviderError> {
    let endpoints = &apps.endpoints();
    let http = crate::ctx::http_client();
    let timeout = super::timeout(apps);
    let key = credentials.key.as_str();
    let who = display_name(id);
    let answer: Answer = match id {
        "accuweather" => {
            let url = weather::accuweather::location_url(&endpoints.accuweather, key, "London")?;
            let answer = fetch(http.get(url), timeout, who).await?;
            if !answer.ok() {
                return Err(weather::accuweather::error_from(answer.status, &answer.body).into());
            }
            answer
        }
        "newsapi" => {
            let url = news::newsapi::headlines_url(&endpoints.newsapi, None, 1)?;
            let answer = fetch(http.get(url).header("X-Api-Key", key), timeout, who).await?;
            news::newsapi::articles_from(&answer.body)?;
            answer
        }
        "google_maps" => {
            let url = maps::google_maps::geocode_url(&endpoints.google_maps, key, "London")?;
            let answer = fetch(http.get(url), timeout, who).await?;
            if let Some(error) = maps::google_maps::status_error(&answer.body, "London") {
                return Err(error.into());
            }
            answer
        }
        "brave_search" => {
            let url = search::brave::search_url(&endpoints.brave_search, "weather", 1)?;
            let answer = fetch(
                http.get(url).header("X-Subscription-Token", key),
                timeout,
                who,
            )
            .await?;
            search::brave::results_from(&answer.body)?;
            answer
        }
        _ => {
            let engine = credentials.engine.as_deref().unwrap_or_default();
            let url =
                search::google_cse::search_url(&endpoints.google_cse, key, engine, "weather", 1)?;
            let answer = fetch(http.get(url), timeout, who).await?;
            search::google_cse::results_from(&answer.body)?;
            answer
        }
    };
    if answer.ok() {
        Ok(())
    } else {
        Err(ProviderError::Status(who.to_owned(), answer.status))
    }
}
