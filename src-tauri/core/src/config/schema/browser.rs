//! Settings section `browser`.

use super::*;

/// Which installed browser the assistant drives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum BrowserEngine {
    /// Microsoft Edge if installed, else Google Chrome, else Chromium.
    #[default]
    Auto,
    /// Microsoft Edge.
    Msedge,
    /// Google Chrome.
    Chrome,
    /// Chromium.
    Chromium,
}

/// How a browser profile is opened.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum BrowserProfileKind {
    /// Sentient starts its own browser with this profile's own sign-ins.
    #[default]
    Launch,
    /// Sentient connects to a browser you started yourself with remote debugging on.
    Attach,
}

/// A named browser profile with its own sign-ins, so different tasks can act as different people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct BrowserProfile {
    /// Whether Sentient starts this browser itself or connects to one you started.
    pub kind: BrowserProfileKind,
    /// Which browser this profile uses: auto, msedge, chrome or chromium (empty uses the browser chosen above).
    pub engine: String,
    /// For a connected browser, its debugging address on this computer, such as http://127.0.0.1:9333.
    pub endpoint: String,
    /// Your own notes about what this profile is for.
    pub notes: String,
}

impl Default for BrowserProfile {
    fn default() -> Self {
        Self {
            kind: BrowserProfileKind::Launch,
            engine: String::new(),
            endpoint: String::new(),
            notes: String::new(),
        }
    }
}

/// The web browser the assistant can use for sites without an integration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct BrowserConfig {
    /// Let the assistant use a web browser for sites without an integration.
    pub enabled: bool,
    /// Which installed browser the assistant drives.
    pub engine: BrowserEngine,
    /// Keep the browser window hidden; the live view still shows what it does.
    pub headless: bool,
    /// Close the hidden browser after this many minutes without use (0 keeps it open).
    #[schemars(range(min = 0.0, max = 1440.0))]
    pub idle_minutes: f64,
    /// Only let the assistant visit these sites, such as amazon.in; empty allows every site.
    pub allow_domains: Vec<String>,
    /// Sites the assistant must never open, including their subdomains.
    pub block_domains: Vec<String>,
    /// Longest description of a page (buttons, fields and text) given to the assistant, in characters.
    #[schemars(range(min = 1000, max = 200_000))]
    pub max_snapshot_chars: u32,
    /// Longest readable page text given to the assistant when it reads a page, in characters.
    #[schemars(range(min = 1000, max = 500_000))]
    pub max_extract_chars: u32,
    /// Always ask before anything that looks like buying or paying, in every approval mode.
    pub confirm_purchases: bool,
    /// Show small pictures of the page in the chat while the assistant uses the browser.
    pub live_view: bool,
    /// Named browser profiles, each with its own sign-ins; the default profile always exists.
    pub profiles: BTreeMap<String, BrowserProfile>,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        let mut profiles = BTreeMap::new();
        profiles.insert("default".to_owned(), BrowserProfile::default());
        Self {
            enabled: true,
            engine: BrowserEngine::Auto,
            headless: true,
            idle_minutes: 10.0,
            allow_domains: Vec::new(),
            block_domains: Vec::new(),
            max_snapshot_chars: 12_000,
            max_extract_chars: 20_000,
            confirm_purchases: true,
            live_view: true,
            profiles,
        }
    }
}
