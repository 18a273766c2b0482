//! The built-in apps (contract section 5): weather, maps, news and charts, always connected and
//! keyless, and the keyed alternatives that take over from them (and from web search) while
//! connected. Every provider's address comes from the endpoints table; answers are kept briefly
//! in SQLite ([`cache`]). Each provider's wire format has a module of its own with pure URL
//! builders and parsers; the `tools` modules do the asking.

pub mod cache;
#[cfg(feature = "charts")]
pub mod charts;
#[cfg(feature = "charts")]
pub mod charts_tool;
pub mod keyed;
pub mod maps;
pub mod news;
pub mod provider;
pub mod search;
pub mod search_tool;
pub mod weather;

use std::sync::Arc;
use std::time::Duration;

use sentient_agent::tools::{Plugin, ToolCtx, ToolError};

use crate::ctx::AppCtx;
use cache::Cache;
use provider::{NOMINATIM_SPACING, Spacing};
use weather::shapes::UnitSystem;

/// What the built-in apps hold: the apps' handle, the cache and Nominatim's request spacing.
pub struct Builtins {
    pub apps: AppCtx,
    pub cache: Cache,
    pub nominatim: Spacing,
}

impl Builtins {
    pub fn new(apps: AppCtx) -> Self {
        Self {
            cache: Cache::new(apps.store().clone(), apps.clock().clone()),
            nominatim: Spacing::new(NOMINATIM_SPACING),
            apps,
        }
    }
}

/// How long one provider request may take.
pub fn timeout(apps: &AppCtx) -> Duration {
    Duration::from_millis(apps.endpoints().builtin_timeout_ms.max(1))
}

/// The built-in apps' tools.
pub fn plugins(builtins: &Arc<Builtins>) -> Vec<Plugin> {
    vec![
        weather::tools::plugin(builtins.clone()),
        maps::tools::plugin(builtins.clone()),
        news::tools::plugin(builtins.clone()),
        #[cfg(feature = "charts")]
        charts_tool::plugin(),
    ]
}

/// `assistant.location`, trimmed; empty while it is not set.
fn home_city(builtins: &Builtins) -> String {
    builtins
        .apps
        .config()
        .current()
        .assistant
        .location
        .trim()
        .to_owned()
}

/// The place a call means: the one named, else `assistant.location`; a plain error naming
/// where to set it when neither is there.
pub fn place_or_home(builtins: &Builtins, asked: Option<&str>) -> Result<String, ToolError> {
    let asked = asked.map(str::trim).filter(|p| !p.is_empty());
    let home = home_city(builtins);
    match asked {
        Some(place) => Ok(place.to_owned()),
        None if !home.is_empty() => Ok(home),
        None => Err(ToolError::Failed(
            "I don't know which place you mean. Name a city, or add yours in Settings > General so I use it by default."
                .to_owned(),
        )),
    }
}

/// The person's units: from the country of `assistant.location` when it is set and found,
/// else from their time zone (°F and miles in the United States, Liberia and Myanmar).
pub async fn user_units(builtins: &Builtins, ctx: &ToolCtx) -> UnitSystem {
    let home = home_city(builtins);
    if !home.is_empty()
        && let Ok(place) = weather::tools::geocode(builtins, &home).await
        && let Some(code) = place.country_code.as_deref()
    {
        return UnitSystem::for_country(code);
    }
    let zone = sentient_agent::tools::time::resolve_zone(None, &ctx.timezone)
        .map(|z| z.name().to_owned())
        .unwrap_or_default();
    UnitSystem::for_timezone(&zone)
}
