//! Settings section `proactivity`.

use super::*;

/// Which model role decides whether something deserves a suggestion.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ReasonerRole {
    /// The quick model for small jobs.
    #[default]
    Fast,
    /// The main model.
    Primary,
}

/// Once a day, look for email conversations still waiting on a reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct FollowUpsConfig {
    /// Once a day, find emails still waiting on a reply and offer a ready draft; nothing is sent without your approval.
    pub enabled: bool,
    /// Which connected email accounts are checked: gmail, email_imap or both.
    pub sources: Vec<String>,
    /// Suggest a reply when an email to you has had no answer for this many days.
    #[schemars(range(min = 1, max = 60))]
    pub waiting_on_you_days: u32,
    /// Suggest a nudge when your own question has had no answer for this many days.
    #[schemars(range(min = 1, max = 60))]
    pub waiting_on_them_days: u32,
    /// Leave conversations alone once they have been quiet for longer than this many days.
    #[schemars(range(min = 2, max = 180))]
    pub max_age_days: u32,
    /// Most follow-up suggestions from one daily check.
    #[schemars(range(min = 1, max = 20))]
    pub max_suggestions: u32,
}

impl Default for FollowUpsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            sources: strings(&["gmail", "email_imap"]),
            waiting_on_you_days: 3,
            waiting_on_them_days: 4,
            max_age_days: 21,
            max_suggestions: 3,
        }
    }
}

/// What the Daily Brief and the Evening Brief include.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct BriefConfig {
    /// Whether you asked for the Daily Brief; the brief itself is a task you can pause or delete in Tasks.
    pub enabled: bool,
    /// What the morning brief includes: calendar, email, tasks, weather and news; leave one out to turn it off.
    pub sections: Vec<String>,
    /// What the Evening Brief includes: done, sent, files, waiting and tomorrow; leave one out to turn it off.
    pub evening_sections: Vec<String>,
    /// Most lines in one brief.
    #[schemars(range(min = 1, max = 20))]
    pub max_items: u32,
    /// Topics for the news section, such as climate or cricket; no topics means no news.
    pub news_topics: Vec<String>,
    /// Let the quick model shorten each unread email to one line; when off, the sender and subject are shown.
    pub summarize_emails: bool,
}

impl Default for BriefConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            sections: strings(&["calendar", "email", "tasks", "weather"]),
            evening_sections: strings(&["done", "sent", "files", "waiting", "tomorrow"]),
            max_items: 7,
            news_topics: Vec::new(),
            summarize_emails: true,
        }
    }
}

/// Suggestions Sentient makes on its own, follow-ups and the Daily Brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ProactivityConfig {
    /// Let Sentient watch your connected apps and suggest things to do.
    pub enabled: bool,
    /// How often, in minutes, connected apps without live updates are checked for new items.
    #[schemars(range(min = 1))]
    pub poll_interval_minutes: u32,
    /// How sure Sentient must be, from 0 to 1, before it shows a suggestion.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub base_confidence_threshold: f64,
    /// Hours with no suggestions, such as 22:00-07:00; suggestions made then arrive when they end.
    pub quiet_hours: String,
    /// Minutes between check-ins that look for something worth mentioning (0 turns them off).
    pub heartbeat_minutes: u32,
    /// Which connected apps are watched for new items.
    pub sources: Vec<String>,
    /// Which model role decides whether something deserves a suggestion.
    pub reasoner_role: ReasonerRole,
    /// How many look-ups across your connected apps happen before deciding on a suggestion (0 skips them).
    #[schemars(range(max = 10))]
    pub context_agent_rounds: u32,
    /// When an app is newly connected, how many hours back its first check looks.
    #[schemars(range(max = 168))]
    pub first_poll_lookback_hours: u32,
    /// Most new items handled from one app in one check.
    #[schemars(range(min = 1, max = 200))]
    pub max_items_per_poll: u32,
    /// Most check-in suggestions per day.
    #[schemars(range(min = 1, max = 24))]
    pub heartbeat_daily_cap: u32,
    /// Hours after which a suggestion you have not acted on expires.
    #[schemars(range(min = 1, max = 720))]
    pub suggestion_ttl_hours: u32,
    /// Also suggest things to do when one of your webhooks is called and no task handles it.
    pub webhook_suggestions: bool,
    /// Notice emails waiting on a reply and offer a draft.
    pub followups: FollowUpsConfig,
    /// Your Daily Brief and Evening Brief.
    pub brief: BriefConfig,
}

impl Default for ProactivityConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            poll_interval_minutes: 10,
            base_confidence_threshold: 0.70,
            quiet_hours: String::new(),
            heartbeat_minutes: 0,
            sources: strings(&["gmail", "gcalendar"]),
            reasoner_role: ReasonerRole::Fast,
            context_agent_rounds: 3,
            first_poll_lookback_hours: 6,
            max_items_per_poll: 20,
            heartbeat_daily_cap: 3,
            suggestion_ttl_hours: 48,
            webhook_suggestions: true,
            followups: FollowUpsConfig::default(),
            brief: BriefConfig::default(),
        }
    }
}
