//! Checks on settings that their types alone cannot express. Each problem names its field.

use super::Config;
use crate::error::FieldError;

/// "auto" or a time zone name from the IANA database.
pub fn is_valid_timezone(tz: &str) -> bool {
    tz == "auto" || tz.parse::<chrono_tz::Tz>().is_ok()
}

impl Config {
    /// Who-the-assistant-is checks that [`Config::problems`] adds to its range checks.
    pub(super) fn assistant_problems(&self, found: &mut Vec<FieldError>) {
        let tz = self.assistant.timezone.trim();
        if !is_valid_timezone(tz) {
            found.push(FieldError::new(
                &["body", "assistant", "timezone"],
                format!("{tz} is not a time zone Sentient knows. Use a name like Europe/Berlin, or auto."),
                "value_error",
            ));
        }
        if self.assistant.name.trim().is_empty() {
            found.push(FieldError::new(
                &["body", "assistant", "name"],
                "The assistant needs a name.",
                "value_error",
            ));
        }
        if self.models.primary.trim().is_empty() {
            found.push(FieldError::new(
                &["body", "models", "primary"],
                "Pick a main model, such as ollama_chat/qwen3:8b.",
                "value_error",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_have_no_problems() {
        assert!(Config::default().problems().is_empty());
    }

    #[test]
    fn timezones_are_checked() {
        assert!(is_valid_timezone("auto"));
        assert!(is_valid_timezone("Asia/Kolkata"));
        assert!(!is_valid_timezone("Mars/Olympus"));
        let mut config = Config::default();
        config.assistant.timezone = "Mars/Olympus".into();
        assert_eq!(config.problems()[0].loc, ["body", "assistant", "timezone"]);
    }
}
