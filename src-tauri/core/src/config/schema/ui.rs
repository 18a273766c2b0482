//! Settings section `ui`.

use super::*;

/// The colour scheme of the window.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// Light text on a dark background.
    #[default]
    Dark,
    /// Dark text on a light background.
    Light,
    /// Follow this computer's light or dark setting.
    System,
}

/// How the Sentient window looks and behaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct UiConfig {
    /// The colour scheme of the window.
    pub theme: Theme,
    /// The highlight colour: sentient (amber), violet, blue, emerald or rose.
    pub accent: String,
    /// Start Sentient when you log in to this computer.
    pub launch_at_login: bool,
    /// Closing the window keeps Sentient running in the system tray.
    pub minimize_to_tray: bool,
}

impl Default for UiConfig {
    fn default() -> Self {
        Self {
            theme: Theme::Dark,
            accent: "sentient".to_owned(),
            launch_at_login: false,
            minimize_to_tray: true,
        }
    }
}
