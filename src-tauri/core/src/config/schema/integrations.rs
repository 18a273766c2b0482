//! Settings section `integrations`.

use super::*;

/// Which service answers web searches.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SearchProvider {
    /// DuckDuckGo, which needs no key.
    #[default]
    Duckduckgo,
    /// Brave Search, which needs a key.
    Brave,
    /// Google Programmable Search, which needs a key.
    GoogleCse,
    /// Your own SearXNG server.
    Searxng,
}

/// Which service answers weather questions.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum WeatherProvider {
    /// Open-Meteo, which needs no key.
    #[default]
    OpenMeteo,
    /// AccuWeather, which needs a key.
    Accuweather,
}

/// How Sentient talks to an outside tool server.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A program Sentient starts on this computer.
    #[default]
    Stdio,
    /// A server reached at a web address.
    Http,
}

/// How Sentient proves who you are to a server reached at a web address.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum McpAuth {
    /// No sign-in.
    #[default]
    None,
    /// Fixed headers, such as an access key, sent with every request.
    Headers,
    /// A browser sign-in.
    Oauth,
}

/// One outside tool server (MCP); secret values live in the keychain, only their names are here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct McpServerConfig {
    /// Whether Sentient starts the server as a program here or reaches it at a web address.
    pub transport: McpTransport,
    /// The program to start, for a server that runs on this computer.
    pub command: String,
    /// The words passed to that program when it starts.
    pub args: Vec<String>,
    /// The web address of the server, for a server reached online.
    pub url: String,
    /// Names of the settings the program needs; their values are kept in the keychain.
    pub env_keys: Vec<String>,
    /// Names of the headers sent to the server; their values are kept in the keychain.
    pub header_keys: Vec<String>,
    /// How Sentient proves who you are to a server reached at a web address.
    pub auth: McpAuth,
    /// Whether the server is turned on.
    pub enabled: bool,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        Self {
            transport: McpTransport::Stdio,
            command: String::new(),
            args: Vec::new(),
            url: String::new(),
            env_keys: Vec::new(),
            header_keys: Vec::new(),
            auth: McpAuth::None,
            enabled: true,
        }
    }
}

/// Connected apps, web services, MCP servers and webhooks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct IntegrationsConfig {
    /// The port on this computer that app sign-ins return to (0 picks a free one).
    pub oauth_redirect_port: u16,
    /// Which service answers web searches.
    pub search_provider: SearchProvider,
    /// The web address of your SearXNG server, when web search uses SearXNG.
    pub searxng_url: String,
    /// Which service answers weather questions.
    pub weather_provider: WeatherProvider,
    /// Outside tool servers (MCP) by name; their passwords and sign-ins live in the keychain.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Only show the assistant tools of apps that are connected, which keeps small local models focused.
    pub hide_disconnected_tools: bool,
    /// Apps set to Read only: Sentient can look things up there but can't change, send or delete anything.
    pub read_only: Vec<String>,
    /// Two-letter country code for top news headlines (empty guesses from your location).
    pub news_country: String,
    /// Longest page text the web page reader gives the assistant, in characters.
    #[schemars(range(min = 1000, max = 200_000))]
    pub web_fetch_max_chars: u32,
    /// An optional GitHub app id that turns on "Sign in with GitHub" instead of pasting a token.
    pub github_oauth_client_id: String,
    /// Seconds to wait for one answer from an outside tool server (MCP).
    #[schemars(range(min = 5, max = 600))]
    pub mcp_timeout_s: u32,
    /// How often, in seconds, Gmail, Google Calendar and IMAP email are checked for changes (0 turns this off).
    #[schemars(range(max = 3600))]
    pub fast_sync_seconds: u32,
    /// Hide one-time codes, sign-in links and password reset links in your email before the assistant reads it.
    pub hide_one_time_codes: bool,
    /// Largest message, in kilobytes, one of your webhooks accepts.
    #[schemars(range(min = 1, max = 10_240))]
    pub webhook_max_body_kb: u32,
    /// Most calls one webhook accepts per minute, so a leaked address can't flood Sentient (0 turns the limit off).
    #[schemars(range(max = 6000))]
    pub webhook_rate_limit_per_minute: u32,
}

impl Default for IntegrationsConfig {
    fn default() -> Self {
        Self {
            oauth_redirect_port: 0,
            search_provider: SearchProvider::Duckduckgo,
            searxng_url: String::new(),
            weather_provider: WeatherProvider::OpenMeteo,
            mcp_servers: BTreeMap::new(),
            hide_disconnected_tools: true,
            read_only: Vec::new(),
            news_country: String::new(),
            web_fetch_max_chars: 20_000,
            github_oauth_client_id: String::new(),
            mcp_timeout_s: 60,
            fast_sync_seconds: 60,
            hide_one_time_codes: true,
            webhook_max_body_kb: 256,
            webhook_rate_limit_per_minute: 30,
        }
    }
}
