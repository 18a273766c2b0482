//! First run (contract section 2, "Onboarding"): saves who the user is, writes USER.md and
//! marks onboarding complete.

use serde::{Deserialize, Serialize};

use crate::config::ConfigService;
use crate::config::Persona;
use crate::error::{ApiError, FieldError};
use crate::home::Home;
use crate::home::write_atomically;

/// The answers from the first-run screen.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct OnboardingRequest {
    /// What the assistant should call the user.
    pub user_name: String,
    /// What the assistant calls itself; empty keeps "Sentient".
    #[serde(default)]
    pub assistant_name: Option<String>,
    /// An IANA time zone such as Europe/Berlin, or "auto".
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
    #[serde(default)]
    pub professional_context: Option<String>,
    #[serde(default)]
    pub personal_context: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub persona: Option<Persona>,
    /// Sets up the Daily Brief with its defaults.
    #[serde(default)]
    pub daily_brief: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct OnboardingDone {
    pub ok: bool,
}

const MAX_NAME: usize = 80;
const MAX_TEXT: usize = 4000;

/// Checks the answers; every problem is reported at once, and nothing is saved on any.
pub fn validate(req: &OnboardingRequest) -> Vec<FieldError> {
    let mut problems = Vec::new();
    let name = req.user_name.trim();
    if name.is_empty() {
        problems.push(FieldError::new(
            &["body", "user_name"],
            "Tell Sentient what to call you.",
            "missing",
        ));
    } else if name.chars().count() > MAX_NAME {
        problems.push(FieldError::new(
            &["body", "user_name"],
            "Your name can be at most 80 characters.",
            "value_error",
        ));
    }
    if req
        .assistant_name
        .as_deref()
        .is_some_and(|n| n.trim().chars().count() > MAX_NAME)
    {
        problems.push(FieldError::new(
            &["body", "assistant_name"],
            "The assistant's name can be at most 80 characters.",
            "value_error",
        ));
    }
    if let Some(tz) = req
        .timezone
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        && !crate::config::is_valid_timezone(tz)
    {
        problems.push(FieldError::new(
            &["body", "timezone"],
            format!(
                "{tz} is not a time zone Sentient knows. Use a name like Europe/Berlin, or auto."
            ),
            "value_error",
        ));
    }
    for (field, text) in [
        ("location", &req.location),
        ("professional_context", &req.professional_context),
        ("personal_context", &req.personal_context),
    ] {
        if text
            .as_deref()
            .is_some_and(|t| t.chars().count() > MAX_TEXT)
        {
            problems.push(FieldError::new(
                &["body", field],
                "This can be at most 4000 characters.",
                "value_error",
            ));
        }
    }
    problems
}

/// The first-run answers that say something about the person, as one text for memory (empty
/// when the person filled in only their name).
pub fn about_for_memory(req: &OnboardingRequest) -> String {
    let mut parts = Vec::new();
    for (label, value) in [
        ("I live in", &req.location),
        ("About my work", &req.professional_context),
        ("About my life", &req.personal_context),
    ] {
        if let Some(text) = value.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            parts.push(format!("{label}: {text}"));
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("My name is {}.\n{}", req.user_name.trim(), parts.join("\n"))
}

/// USER.md as the assistant reads it.
pub fn user_md(req: &OnboardingRequest) -> String {
    let mut text = format!("# About {}\n\n", req.user_name.trim());
    let line = |label: &str, value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| format!("- {label}: {v}\n"))
            .unwrap_or_default()
    };
    text.push_str(&format!("- Name: {}\n", req.user_name.trim()));
    text.push_str(&line("Location", &req.location));
    text.push_str(&line("Time zone", &req.timezone));
    for (heading, value) in [
        ("Work", &req.professional_context),
        ("Life outside work", &req.personal_context),
    ] {
        if let Some(v) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            text.push_str(&format!("\n## {heading}\n\n{v}\n"));
        }
    }
    text
}

/// What can go wrong finishing onboarding; the doors answer with `From<OnboardingError> for ApiError`.
#[derive(Debug, thiserror::Error)]
pub enum OnboardingError {
    /// Answers that do not fit, each with its sentence.
    #[error("{}", crate::error::fields_sentence(.0))]
    Fields(Vec<FieldError>),
    #[error("USER.md could not be written: {0}")]
    Write(std::io::Error),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
}

impl From<OnboardingError> for ApiError {
    fn from(error: OnboardingError) -> Self {
        match error {
            OnboardingError::Fields(fields) => ApiError::validation(fields),
            OnboardingError::Write(e) => ApiError::internal(&e),
            OnboardingError::Config(e) => e.into(),
        }
    }
}

/// `POST /api/onboarding`: writes `USER.md` in `home` and saves the answers in the settings.
pub async fn complete(
    config: &ConfigService,
    home: &Home,
    memory: &sentient_memory::MemoryService,
    req: OnboardingRequest,
) -> Result<OnboardingDone, OnboardingError> {
    let problems = validate(&req);
    if !problems.is_empty() {
        return Err(OnboardingError::Fields(problems));
    }
    let text = user_md(&req);
    let path = home.user_md();
    write_atomically(&path, text.as_bytes()).map_err(OnboardingError::Write)?;
    let trimmed = |v: &Option<String>| v.as_deref().map(str::trim).map(str::to_owned);
    config
        .update(|config| {
            let a = &mut config.assistant;
            a.user_name = req.user_name.trim().to_owned();
            if let Some(name) = trimmed(&req.assistant_name).filter(|n| !n.is_empty()) {
                a.name = name;
            }
            if let Some(tz) = trimmed(&req.timezone).filter(|t| !t.is_empty()) {
                a.timezone = tz;
            }
            if let Some(location) = trimmed(&req.location) {
                a.location = location;
            }
            if let Some(work) = trimmed(&req.professional_context) {
                a.professional_context = work;
            }
            if let Some(life) = trimmed(&req.personal_context) {
                a.personal_context = life;
            }
            if let Some(persona) = req.persona {
                a.persona = persona;
            }
            if let Some(brief) = req.daily_brief {
                config.proactivity.brief.enabled = brief;
            }
            config.assistant.onboarding_complete = true;
        })
        .await?;
    // What the person said about themselves becomes facts (source `onboarding`), in the
    // background; nothing is asked of a model when they said nothing.
    let about = about_for_memory(&req);
    if !about.is_empty() {
        let memory = memory.clone();
        tokio::spawn(async move {
            memory.learn_from_text(&about, "onboarding").await;
        });
    }
    Ok(OnboardingDone { ok: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_reported_together() {
        let req = OnboardingRequest {
            user_name: "  ".into(),
            timezone: Some("Mars/Olympus".into()),
            ..Default::default()
        };
        let problems = validate(&req);
        let fields: Vec<_> = problems.iter().map(|p| p.loc[1].as_str()).collect();
        assert_eq!(fields, ["user_name", "timezone"]);
    }

    #[test]
    fn user_md_has_what_was_given_and_nothing_empty() {
        let req = OnboardingRequest {
            user_name: "Ada".into(),
            location: Some("London".into()),
            professional_context: Some("Writes programs for the Analytical Services.".into()),
            personal_context: Some(" ".into()),
            ..Default::default()
        };
        let text = user_md(&req);
        assert!(text.contains("- Name: Ada"));
        assert!(text.contains("- Location: London"));
        assert!(text.contains("## Work"));
        assert!(!text.contains("Life outside work"));
        assert!(!text.contains("Time zone"));
    }

    #[test]
    fn memory_hears_only_what_was_said_about_the_person() {
        let name_only = OnboardingRequest {
            user_name: "Ada".into(),
            location: Some("  ".into()),
            ..Default::default()
        };
        assert_eq!(
            about_for_memory(&name_only),
            "",
            "no model call for a name alone"
        );
        let told = OnboardingRequest {
            user_name: "Ada".into(),
            professional_context: Some("I write programs.".into()),
            ..Default::default()
        };
        assert_eq!(
            about_for_memory(&told),
            "My name is Ada.\nAbout my work: I write programs."
        );
    }
}
