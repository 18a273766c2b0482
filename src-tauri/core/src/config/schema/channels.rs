//! Settings section `channels`.

use super::*;

/// Settings for one messaging app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ChannelAppConfig {
    /// Allow this messaging app to be connected and used.
    pub enabled: bool,
    /// Newly paired chats also receive task results, plans to approve and suggestions.
    pub deliver_default: bool,
    /// Show the reply as it is written by updating the message, instead of sending it at the end.
    pub stream_edits: bool,
    /// Fewest seconds between message updates while a reply is being written.
    #[schemars(range(min = 0.3, max = 10.0))]
    pub edit_interval_s: f64,
    /// When you send a voice note, also answer with a spoken audio message.
    pub voice_replies: bool,
    /// Briefly show what the assistant is doing, such as "Searching the web...".
    pub show_tool_activity: bool,
}

impl Default for ChannelAppConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            deliver_default: true,
            stream_edits: true,
            edit_interval_s: 1.0,
            voice_replies: false,
            show_tool_activity: true,
        }
    }
}

/// Telegram, Discord and WhatsApp chats with Sentient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ChannelsConfig {
    /// Let paired messaging apps talk to Sentient.
    pub enabled: bool,
    /// Telegram bot settings.
    pub telegram: ChannelAppConfig,
    /// Discord bot settings (direct messages only).
    pub discord: ChannelAppConfig,
    /// WhatsApp settings, linked to your own account.
    pub whatsapp: ChannelAppConfig,
    /// Minutes a pairing code stays valid after it is shown.
    #[schemars(range(min = 1, max = 60))]
    pub pairing_code_minutes: u32,
    /// Wrong codes allowed before the current pairing code is cancelled.
    #[schemars(range(min = 1, max = 20))]
    pub pairing_max_attempts: u32,
    /// Send finished and failed task results, and questions from running tasks, to your chats.
    pub deliver_task_results: bool,
    /// Send task plans that wait for your approval, with Approve buttons.
    pub deliver_plans: bool,
    /// Send suggestions, with Approve and Dismiss buttons.
    pub deliver_suggestions: bool,
    /// Send a summary when a helper working in the background finishes.
    pub deliver_subagents: bool,
    /// Send your Daily Brief and Evening Brief.
    pub deliver_briefs: bool,
}

impl Default for ChannelsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            telegram: ChannelAppConfig::default(),
            discord: ChannelAppConfig::default(),
            // WhatsApp limits how often a linked device may edit messages.
            whatsapp: ChannelAppConfig {
                edit_interval_s: 2.0,
                ..ChannelAppConfig::default()
            },
            pairing_code_minutes: 10,
            pairing_max_attempts: 5,
            deliver_task_results: true,
            deliver_plans: true,
            deliver_suggestions: true,
            deliver_subagents: true,
            deliver_briefs: true,
        }
    }
}
