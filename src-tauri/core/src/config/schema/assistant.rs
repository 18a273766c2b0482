//! Settings section `assistant`.

use super::*;

/// The assistant's personality style.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Persona {
    /// Warm and conversational.
    #[default]
    Friendly,
    /// Polished and businesslike.
    Professional,
    /// Short, to-the-point answers.
    Concise,
    /// Your own description of how the assistant should behave.
    Custom,
}

/// Who the assistant is and who it is talking to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct AssistantConfig {
    /// What the assistant calls itself.
    pub name: String,
    /// How the assistant addresses you.
    pub user_name: String,
    /// Your time zone, such as Asia/Kolkata, or auto to use this computer's time zone.
    pub timezone: String,
    /// Your city and country, used for the weather, maps and local answers.
    pub location: String,
    /// The language the assistant replies in, as a short code such as en or de.
    pub language: String,
    /// Whether the first-run setup has been finished.
    pub onboarding_complete: bool,
    /// The assistant's personality style.
    pub persona: Persona,
    /// How the assistant should behave when the personality style is custom.
    pub custom_persona: String,
    /// A few words about your work, so the assistant understands your professional life.
    pub professional_context: String,
    /// A few words about your life outside work, so the assistant understands you better.
    pub personal_context: String,
}

impl Default for AssistantConfig {
    fn default() -> Self {
        Self {
            name: "Sentient".to_owned(),
            user_name: String::new(),
            timezone: "auto".to_owned(),
            location: String::new(),
            language: "en".to_owned(),
            onboarding_complete: false,
            persona: Persona::Friendly,
            custom_persona: String::new(),
            professional_context: String::new(),
            personal_context: String::new(),
        }
    }
}
