//! The request bodies of the task routes, shared by both doors (the HTTP routes and the typed
//! commands), with the checks that belong to the request itself.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::TaskError;
use crate::model::{CatchUp, DeliverTo, Frequency, PlanStep};

/// `POST /api/tasks/preview`: the prompt to make sense of.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct PreviewRequest {
    pub prompt: String,
}

/// `POST /api/tasks/{id}/chat`: a change to the task, in the person's words.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct TaskChatRequest {
    pub message: String,
}

/// One answer to one of the planner's questions.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ClarificationAnswer {
    pub question_id: String,
    pub answer_text: String,
}

/// `POST /api/tasks/{id}/clarifications`.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ClarificationsRequest {
    pub answers: Vec<ClarificationAnswer>,
}

impl ClarificationsRequest {
    /// The answers as `(question id, text)`; every question needs a non-blank answer.
    pub fn checked(self) -> Result<Vec<(String, String)>, TaskError> {
        if self.answers.is_empty() || self.answers.iter().any(|a| a.answer_text.trim().is_empty()) {
            return Err(TaskError::invalid("Answer each question before sending."));
        }
        Ok(self
            .answers
            .into_iter()
            .map(|a| (a.question_id, a.answer_text))
            .collect())
    }
}

/// `POST /api/tasks/{id}/runs/{run_id}/answer`: the answer to a waiting run's question.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct RunAnswerRequest {
    pub answer: String,
}

/// `POST /api/tasks`.
#[derive(Debug, Clone, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NewTask {
    pub prompt: String,
    #[serde(default)]
    pub is_swarm: bool,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub browser_profile: Option<String>,
}

/// `PATCH /api/tasks/{id}`: any of these fields.
#[derive(Debug, Clone, Default, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub priority: Option<i32>,
    /// Read by `schedule::parse_schedule`, so a wrong schedule gets its own 400.
    #[schema(value_type = Option<ScheduleInput>)]
    #[specta(type = Option<ScheduleInput>)]
    pub schedule: Option<Value>,
    pub plan: Option<Vec<PlanStep>>,
    pub enabled: Option<bool>,
    pub status: Option<String>,
    /// A model string, or null/"" for the executor role's model.
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub model: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub browser_profile: Option<Option<String>>,
    /// Checked by `check_deliver_to`, so a wrong shape gets its own 400.
    #[schema(value_type = Option<DeliverTo>)]
    #[specta(type = Option<DeliverTo>)]
    #[serde(default, deserialize_with = "present")]
    pub deliver_to: Option<Option<Value>>,
    /// Notes between runs: text (trimmed, at most `tasks.continuity.notepad_chars`), or null/"" to clear.
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub notepad: Option<Option<String>>,
    /// With a Clear: runs finished before now are no longer remembered either.
    pub forget_earlier_runs: Option<bool>,
    /// Brief fields the person writes (field → text, or null/"" to clear); runs may not change them.
    #[schema(value_type = Option<Object>)]
    #[specta(type = Option<std::collections::BTreeMap<String, Option<String>>>)]
    pub brief: Option<serde_json::Map<String, Value>>,
    /// A partial script `{code?, condition?, then?}` merged into the task's (a script on a
    /// single task makes it a script job), or null to make a script job a normal task. Read by
    /// `script_jobs::merge_script`, so a wrong shape gets its own 400.
    #[schema(value_type = Option<ScriptChange>)]
    #[specta(type = Option<ScriptChange>)]
    #[serde(default, deserialize_with = "present")]
    pub script: Option<Option<Value>>,
}

/// A schedule as a change sends it: a `Schedule` whose time zone may be left out (the person's
/// own is used). It names the shape for the schema and the window; `schedule::parse_schedule`
/// reads the body itself.
#[derive(Debug, Clone, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ScheduleInput {
    Once {
        run_at: Option<String>,
        #[serde(default)]
        timezone: Option<String>,
        #[serde(default)]
        catch_up: Option<CatchUp>,
    },
    Recurring {
        frequency: Frequency,
        #[serde(default)]
        days: Option<Vec<String>>,
        #[serde(default)]
        time: Option<String>,
        #[serde(default)]
        interval_minutes: Option<u32>,
        #[serde(default)]
        timezone: Option<String>,
        #[serde(default)]
        catch_up: Option<CatchUp>,
    },
    Triggered {
        source: String,
        event: String,
        #[serde(default)]
        #[schema(value_type = Option<Object>)]
        #[specta(type = Option<std::collections::BTreeMap<String, String>>)]
        filter: Option<serde_json::Map<String, Value>>,
        #[serde(default)]
        timezone: Option<String>,
    },
}

/// A change to a task's script: any of its code, condition and what it then does.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ScriptChange {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub condition: Option<sentient_core::domain::script::ScriptCondition>,
    #[serde(default)]
    pub then: Option<sentient_core::domain::script::ScriptThen>,
}

/// `POST /api/tasks/{id}/script/test`: code to try instead of the task's own script.
#[derive(Debug, Clone, Default, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct ScriptTestRequest {
    #[serde(default)]
    pub code: Option<String>,
}

/// Priorities a task can have: 0 (low) to 2 (high).
pub const PRIORITIES: std::ops::RangeInclusive<i32> = 0..=2;

/// Tells "absent" (None) from "null" (Some(None)).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The first words of a prompt's first sentence, as a name until the planner gives a better
/// one: at most 8 words, cut at a whole word (`whole_words`).
pub(crate) fn provisional_name(prompt: &str) -> String {
    use crate::schedule_words::{NAME_CHARS, ends_sentence, whole_words};
    let mut words: Vec<&str> = Vec::new();
    let mut cut = false;
    for word in prompt.split_whitespace() {
        if words.len() == 8 {
            cut = true;
            break;
        }
        words.push(word);
        if ends_sentence(word) {
            break;
        }
    }
    if let Some(last) = words.last_mut() {
        *last = last.trim_end_matches(['.', '!', '?', ';', ':', ',']);
    }
    whole_words(&words, cut, NAME_CHARS)
}

/// `deliver_to`: "default" (or null), "desktop", or up to 10 `{channel, chat_id}`; an empty
/// list is "desktop".
pub fn check_deliver_to(value: Option<Value>) -> Result<DeliverTo, TaskError> {
    DeliverTo::read(value).map_err(|problem| TaskError::invalid(problem.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The JSON a checked value goes out as.
    fn wire(checked: Result<DeliverTo, TaskError>) -> Option<Value> {
        checked
            .ok()
            .map(|d| serde_json::to_value(d).expect("serialises"))
    }

    #[test]
    fn every_question_needs_an_answer() {
        let answer = |text: &str| ClarificationAnswer {
            question_id: "q1".into(),
            answer_text: text.into(),
        };
        let none = ClarificationsRequest { answers: vec![] };
        assert!(matches!(none.checked(), Err(TaskError::Invalid(_))));
        let blank = ClarificationsRequest {
            answers: vec![answer("  ")],
        };
        assert!(matches!(blank.checked(), Err(TaskError::Invalid(_))));
        let given = ClarificationsRequest {
            answers: vec![answer("Lisbon")],
        };
        assert_eq!(
            given.checked().expect("answered"),
            [("q1".to_owned(), "Lisbon".to_owned())]
        );
    }

    #[test]
    fn deliver_to_takes_the_contract_shapes_only() {
        assert_eq!(wire(check_deliver_to(None)), Some(json!("default")));
        assert_eq!(
            wire(check_deliver_to(Some(json!([])))),
            Some(json!("desktop"))
        );
        assert_eq!(
            wire(check_deliver_to(Some(
                json!([{"channel": "telegram", "chat_id": " 42 "}])
            ))),
            Some(json!([{"channel": "telegram", "chat_id": "42"}]))
        );
        assert!(check_deliver_to(Some(json!("email"))).is_err());
        assert!(check_deliver_to(Some(json!([{"channel": "fax", "chat_id": "1"}]))).is_err());
        assert!(check_deliver_to(Some(json!([{"channel": "discord"}]))).is_err());
        let eleven: Vec<Value> = (0..11)
            .map(|i| json!({"channel": "discord", "chat_id": i.to_string()}))
            .collect();
        assert!(check_deliver_to(Some(Value::Array(eleven))).is_err());
    }

    #[test]
    fn names_come_from_the_first_words() {
        assert_eq!(
            provisional_name("Every morning send me the three top headlines about Rust please"),
            "Every morning send me the three top headlines…"
        );
        // Never ends on "the" or inside a word, and the first sentence is the whole source.
        assert_eq!(
            provisional_name("Find the cheapest flight from Berlin to the coast of Portugal"),
            "Find the cheapest flight from Berlin…"
        );
        assert_eq!(
            provisional_name("Water the plants. Then text me."),
            "Water the plants"
        );
        let long = provisional_name(&"Supercalifragilistic ".repeat(6));
        assert_eq!(long, "Supercalifragilistic Supercalifragilistic…");
    }
}
