//! The apps Sentient knows (contract section 5): what each is called, how it is set up, which
//! privacy filters and triggers it has. Where an app stands now (connected, its account, its
//! tools) is added by the service when it lists them.

use sentient_core::domain::integration::{PrivacyFilters, Setup, SetupField, Trigger};

/// How an app signs in, as the Integration object's `auth_type` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthType {
    Builtin,
    Oauth,
    ApiKey,
    Manual,
    Mcp,
}

impl AuthType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::Oauth => "oauth",
            Self::ApiKey => "api_key",
            Self::Manual => "manual",
            Self::Mcp => "mcp",
        }
    }
}

/// One app of the catalog.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: &'static str,
    pub display_name: &'static str,
    pub description: &'static str,
    pub category: &'static str,
    pub icon: &'static str,
    pub auth_type: AuthType,
    pub fields: Vec<SetupField>,
    pub instructions_md: &'static str,
    pub docs_url: Option<&'static str>,
    /// Takes privacy filters (keywords, emails, labels).
    pub privacy_filters: bool,
    pub triggers: Vec<Trigger>,
    /// Listed so people know it is coming, but it can't be connected in this version.
    pub available: bool,
    /// The registry's app ids whose tools this app shows (a built-in may show another app's
    /// tools: `internet_search` shows the `web` app's search tool).
    pub tool_names: Option<&'static [&'static str]>,
}

fn field(key: &str, label: &str, secret: bool, required: bool, help: &str) -> SetupField {
    SetupField {
        key: key.to_owned(),
        label: label.to_owned(),
        secret,
        required,
        help: help.to_owned(),
    }
}

fn trigger(event: &str, label: &str) -> Trigger {
    Trigger {
        event: event.to_owned(),
        label: label.to_owned(),
    }
}

/// The Google client's setup fields (one Desktop client shared by Gmail and Calendar).
fn google_fields() -> Vec<SetupField> {
    vec![
        field(
            "client_id",
            "OAuth Client ID",
            false,
            true,
            "From Google Cloud Console > APIs & Services > Credentials, a client of type Desktop app.",
        ),
        field(
            "client_secret",
            "OAuth Client secret",
            true,
            true,
            "Shown next to the client ID.",
        ),
    ]
}

const GOOGLE_STEPS: &str = "1. Open Google Cloud Console and create a project.\n2. Turn on the Gmail API and the Google Calendar API.\n3. Under APIs & Services > Credentials, create an OAuth client ID of type **Desktop app**.\n4. Paste its client ID and secret here, then sign in in your browser.\n\nGmail and Calendar share this client: you enter it once.";

/// Every app, in the order the Integrations page shows them.
pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            id: "gmail",
            display_name: "Gmail",
            description: "Search your mail, read messages, draft and send replies.",
            category: "communication",
            icon: "gmail",
            auth_type: AuthType::Oauth,
            fields: google_fields(),
            instructions_md: GOOGLE_STEPS,
            docs_url: Some("https://developers.google.com/gmail/api/quickstart"),
            privacy_filters: true,
            triggers: vec![trigger("new_email", "New email")],
            available: cfg!(feature = "google"),
            tool_names: None,
        },
        Entry {
            id: "gcalendar",
            display_name: "Google Calendar",
            description: "Read your day's events and add, move or cancel events.",
            category: "productivity",
            icon: "gcalendar",
            auth_type: AuthType::Oauth,
            fields: google_fields(),
            instructions_md: GOOGLE_STEPS,
            docs_url: Some("https://developers.google.com/calendar/api/quickstart"),
            privacy_filters: true,
            triggers: vec![
                trigger("new_event", "New event"),
                trigger("updated_event", "Changed event"),
            ],
            available: cfg!(feature = "google"),
            tool_names: None,
        },
        Entry {
            id: "email_imap",
            display_name: "Email (IMAP)",
            description: "Any email account that offers IMAP: search and read mail, send replies.",
            category: "communication",
            icon: "mail",
            auth_type: AuthType::Manual,
            fields: vec![
                field(
                    "host",
                    "IMAP server",
                    false,
                    false,
                    "Left empty, Sentient finds it from your address. For example imap.fastmail.com.",
                ),
                field(
                    "security",
                    "Security",
                    false,
                    false,
                    "ssl (port 993, the default) or starttls (port 143).",
                ),
                field(
                    "port",
                    "Port",
                    false,
                    false,
                    "Left empty: 993 for ssl, 143 for starttls.",
                ),
                field(
                    "username",
                    "Email address",
                    false,
                    true,
                    "Your email address (some servers want another username).",
                ),
                field(
                    "password",
                    "App password",
                    true,
                    true,
                    "Most providers need an app password here, made in your account's security settings.",
                ),
                field(
                    "folders",
                    "Folders to watch",
                    false,
                    false,
                    "Comma-separated folder names checked for new mail (default INBOX).",
                ),
                field(
                    "smtp_host",
                    "SMTP server",
                    false,
                    false,
                    "Needed to send mail, for example smtp.fastmail.com.",
                ),
                field(
                    "smtp_port",
                    "SMTP port",
                    false,
                    false,
                    "Usually 465 or 587.",
                ),
            ],
            instructions_md: "1. Enter your email address: Sentient finds your provider's servers.\n2. Create an app password in your account's security settings (the link appears once the address is known) and paste it.\n3. Sentient signs in to check them before saving. The servers can also be entered by hand.",
            docs_url: None,
            privacy_filters: true,
            triggers: vec![trigger("new_email", "New email")],
            available: cfg!(feature = "email"),
            tool_names: None,
        },
        Entry {
            id: "github",
            display_name: "GitHub",
            description: "Search issues and pull requests, open and update issues, comment.",
            category: "development",
            icon: "github",
            auth_type: AuthType::ApiKey,
            fields: vec![field(
                "token",
                "Personal access token",
                true,
                true,
                "A fine-grained token with access to the repositories you want to use.",
            )],
            instructions_md: "1. On GitHub, open Settings > Developer settings > Personal access tokens.\n2. Create a fine-grained token with Issues read and write.\n3. Paste it here.",
            docs_url: Some(
                "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens",
            ),
            privacy_filters: false,
            triggers: Vec::new(),
            available: cfg!(feature = "github"),
            tool_names: None,
        },
        Entry {
            id: "slack",
            display_name: "Slack",
            description: "Read and send Slack messages.",
            category: "communication",
            icon: "slack",
            auth_type: AuthType::ApiKey,
            fields: vec![field(
                "token",
                "Bot token",
                true,
                true,
                "Starts with xoxb-.",
            )],
            instructions_md: "Slack isn't available in this version of Sentient yet.",
            docs_url: None,
            privacy_filters: false,
            triggers: Vec::new(),
            available: false,
            tool_names: None,
        },
        Entry {
            id: "notion",
            display_name: "Notion",
            description: "Search and edit your Notion pages.",
            category: "knowledge",
            icon: "notion",
            auth_type: AuthType::ApiKey,
            fields: vec![field(
                "token",
                "Integration token",
                true,
                true,
                "From notion.so/my-integrations.",
            )],
            instructions_md: "Notion isn't available in this version of Sentient yet.",
            docs_url: None,
            privacy_filters: false,
            triggers: Vec::new(),
            available: false,
            tool_names: None,
        },
        // The web app's two tools are listed as two built-ins, as the contract names them.
        Entry {
            tool_names: Some(&["internet_search"]),
            ..builtin(
                "internet_search",
                "Internet search",
                "Searches the web for current information.",
                "search",
            )
        },
        Entry {
            tool_names: Some(&["web_fetch"]),
            ..builtin("web", "Web pages", "Reads a web page's text.", "globe")
        },
        builtin(
            "weather",
            "Weather",
            "The weather now and the forecast anywhere, from Open-Meteo; no key needed.",
            "weather",
        ),
        builtin(
            "maps",
            "Maps",
            "Places, addresses and directions, from OpenStreetMap; no key needed.",
            "map",
        ),
        builtin(
            "news",
            "News",
            "News searches and the day's headlines, from Google News' public feeds; no key needed.",
            "news",
        ),
        Entry {
            available: cfg!(feature = "charts"),
            ..builtin(
                "charts",
                "Charts",
                "Draws bar, line, pie and scatter charts on this computer.",
                "chart",
            )
        },
        keyed(
            "accuweather",
            "AccuWeather",
            "Weather from AccuWeather instead of Open-Meteo.",
            "weather",
            "1. Sign up at developer.accuweather.com and create an app.\n2. Copy its API key and paste it here.\n\nThe free plan allows 50 requests a day; Sentient keeps answers for 10 minutes and uses Open-Meteo when AccuWeather fails.",
            "https://developer.accuweather.com/getting-started",
            Vec::new(),
        ),
        keyed(
            "newsapi",
            "NewsAPI",
            "News from NewsAPI instead of the public feeds.",
            "news",
            "1. Get a free key at newsapi.org/register.\n2. Paste it here.\n\nSentient uses the public feeds when NewsAPI fails.",
            "https://newsapi.org/docs/get-started",
            Vec::new(),
        ),
        keyed(
            "google_maps",
            "Google Maps",
            "Places and directions from Google Maps instead of OpenStreetMap.",
            "map",
            "1. In Google Cloud Console, turn on the Geocoding, Places and Directions APIs.\n2. Create an API key under APIs & Services > Credentials and paste it here.\n\nSentient uses OpenStreetMap when Google Maps fails.",
            "https://developers.google.com/maps/get-started",
            Vec::new(),
        ),
        keyed(
            "brave_search",
            "Brave Search",
            "Web search from Brave's Search API instead of DuckDuckGo's page.",
            "search",
            "1. Sign up at api.search.brave.com and choose a plan (a free one exists).\n2. Copy the subscription token and paste it here.\n\nSentient uses DuckDuckGo when Brave fails.",
            "https://api-dashboard.search.brave.com/app/documentation",
            Vec::new(),
        ),
        keyed(
            "google_cse",
            "Google Programmable Search",
            "Web search from Google instead of DuckDuckGo's page.",
            "search",
            "1. Create a search engine at programmablesearchengine.google.com and copy its ID (cx).\n2. Turn on the Custom Search API in Google Cloud Console and create an API key.\n3. Paste both here.\n\nSentient uses DuckDuckGo when Google fails.",
            "https://developers.google.com/custom-search/v1/overview",
            vec![field(
                "cx",
                "Search engine ID (cx)",
                false,
                true,
                "Shown in the search engine's settings, next to Search engine ID.",
            )],
        ),
    ]
}

/// A built-in app: always connected, no setup; its tools are the plugin's of the same id.
fn builtin(
    id: &'static str,
    display_name: &'static str,
    description: &'static str,
    icon: &'static str,
) -> Entry {
    Entry {
        id,
        display_name,
        description,
        category: "core",
        icon,
        auth_type: AuthType::Builtin,
        fields: Vec::new(),
        instructions_md: "Always on; no setup needed.",
        docs_url: None,
        privacy_filters: false,
        triggers: Vec::new(),
        available: true,
        tool_names: None,
    }
}

/// A keyed alternative to a built-in: an API key (and `more` fields), no tools of its own.
fn keyed(
    id: &'static str,
    display_name: &'static str,
    description: &'static str,
    icon: &'static str,
    instructions_md: &'static str,
    docs_url: &'static str,
    more: Vec<SetupField>,
) -> Entry {
    let mut fields = vec![field(
        "api_key",
        "API key",
        true,
        true,
        "Kept in this computer's keychain.",
    )];
    fields.extend(more);
    Entry {
        id,
        display_name,
        description,
        category: "core",
        icon,
        auth_type: AuthType::ApiKey,
        fields,
        instructions_md,
        docs_url: Some(docs_url),
        privacy_filters: false,
        triggers: Vec::new(),
        available: true,
        tool_names: Some(&[]),
    }
}

/// One catalog app by id.
pub fn entry(id: &str) -> Option<Entry> {
    entries().into_iter().find(|e| e.id == id)
}

impl Entry {
    /// The setup as the Integration object shows it; `saved_client` turns the Google client's
    /// fields to `required: false` once a client is stored.
    pub fn setup(&self, saved_client: bool) -> Setup {
        let mut fields = self.fields.clone();
        if saved_client && matches!(self.id, "gmail" | "gcalendar") {
            for f in &mut fields {
                f.required = false;
            }
        }
        Setup {
            fields,
            instructions_md: self.instructions_md.to_owned(),
            docs_url: self.docs_url.map(str::to_owned),
        }
    }

    pub fn filters(&self) -> PrivacyFilters {
        PrivacyFilters {
            supported: self.privacy_filters,
            fields: if self.privacy_filters {
                vec!["keywords".into(), "emails".into(), "labels".into()]
            } else {
                Vec::new()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_not_yet_available_apps_say_so() {
        let all = entries();
        let mut ids: Vec<&str> = all.iter().map(|e| e.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all.len());
        let unavailable: Vec<&str> = all.iter().filter(|e| !e.available).map(|e| e.id).collect();
        // An app whose cargo feature is off is listed but not available in that build.
        let off: Vec<&str> = [
            ("gmail", cfg!(feature = "google")),
            ("gcalendar", cfg!(feature = "google")),
            ("email_imap", cfg!(feature = "email")),
            ("github", cfg!(feature = "github")),
            ("charts", cfg!(feature = "charts")),
        ]
        .into_iter()
        .filter(|(_, on)| !on)
        .map(|(id, _)| id)
        .chain(["slack", "notion"])
        .collect();
        let expected: Vec<&str> = all
            .iter()
            .map(|e| e.id)
            .filter(|id| off.contains(id))
            .collect();
        assert_eq!(unavailable, expected);
        assert!(entry("gmail").is_some_and(|e| e.auth_type == AuthType::Oauth));
        assert!(entry("nope").is_none());
    }

    #[test]
    fn a_saved_google_client_makes_its_fields_optional() {
        let gmail = entry("gmail").expect("gmail");
        assert!(gmail.setup(false).fields.iter().all(|f| f.required));
        assert!(gmail.setup(true).fields.iter().all(|f| !f.required));
        let imap = entry("email_imap").expect("imap");
        assert!(imap.setup(true).fields.iter().any(|f| f.required));
        assert_eq!(imap.filters().fields, ["keywords", "emails", "labels"]);
        assert!(!entry("github").expect("github").filters().supported);
    }
}
