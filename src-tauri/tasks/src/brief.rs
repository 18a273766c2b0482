//! The task brief (issue 7, part 2): one short, self-contained summary of what a task is doing,
//! kept by its runs with `task_brief_update` (replacing only the fields they name) and by the
//! person, whose fields runs may not change. The written-out brief is capped, which is what
//! keeps it short.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::model::TaskBrief;
use crate::TaskError;
use crate::parts::TaskParts;

/// The fields, in the order the brief is written out, with their labels.
pub const FIELDS: [(&str, &str); 8] = [
    ("goal", "Goal"),
    ("constraints", "Constraints"),
    ("decisions", "Decisions"),
    ("done", "Done"),
    ("open", "Open"),
    ("current_focus", "Current focus"),
    ("where", "Where"),
    ("risks", "Risks"),
];

fn slot<'a>(brief: &'a mut TaskBrief, field: &str) -> Option<&'a mut Option<String>> {
    Some(match field {
        "goal" => &mut brief.goal,
        "constraints" => &mut brief.constraints,
        "decisions" => &mut brief.decisions,
        "done" => &mut brief.done,
        "open" => &mut brief.open,
        "current_focus" => &mut brief.current_focus,
        "where" => &mut brief.where_,
        "risks" => &mut brief.risks,
        _ => return None,
    })
}

fn value_of(brief: &TaskBrief, field: &str) -> Option<String> {
    let mut copy = brief.clone();
    slot(&mut copy, field).and_then(|v| v.clone())
}

/// The brief as the model and the search index read it; the person's fields are marked.
pub fn render(brief: &TaskBrief) -> String {
    FIELDS
        .iter()
        .filter_map(|(field, label)| {
            let text = value_of(brief, field)?;
            let mine = if brief.user_fields.iter().any(|f| f == field) {
                " (the person's own words)"
            } else {
                ""
            };
            Some(format!("{label}{mine}: {text}"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Who changes the brief.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    Agent,
    User,
}

/// Applies `changes` (field → text, or null/"" to clear) to `brief`. Runs may not change the
/// person's fields; the result must stay within `cap` characters. Errors are plain sentences.
pub fn apply(
    brief: &TaskBrief,
    changes: &Map<String, Value>,
    author: Author,
    cap: usize,
    now: DateTime<Utc>,
) -> Result<TaskBrief, String> {
    let unknown: Vec<&str> = changes
        .keys()
        .map(String::as_str)
        .filter(|k| !FIELDS.iter().any(|(f, _)| f == k))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "The brief has no field {}. Its fields are goal, constraints, decisions, done, open, current_focus, where and risks.",
            unknown.join(", ")
        ));
    }
    if author == Author::Agent {
        let theirs: Vec<&str> = changes
            .keys()
            .map(String::as_str)
            .filter(|k| brief.user_fields.iter().any(|f| f == k))
            .collect();
        if !theirs.is_empty() {
            return Err(format!(
                "{} {} the person's own words, so a run can't change {}. Leave {} out, or put your note in another field.",
                theirs.join(", "),
                if theirs.len() == 1 { "is" } else { "are" },
                if theirs.len() == 1 { "it" } else { "them" },
                if theirs.len() == 1 { "it" } else { "them" },
            ));
        }
    }
    let mut next = brief.clone();
    for (field, value) in changes {
        let text = match value {
            Value::Null => None,
            Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
            other => return Err(format!("The brief's {field} is text; got {other}.")),
        };
        let cleared = text.is_none();
        if let Some(slot) = slot(&mut next, field) {
            *slot = text;
        }
        if author == Author::User {
            next.user_fields.retain(|f| f != field);
            if !cleared {
                next.user_fields.push(field.clone());
            }
        }
    }
    let length = render(&next).chars().count();
    if length > cap {
        return Err(format!(
            "This brief would be {length} characters; the limit is {cap}. Write a shorter version: keep names, files, sites and ids, drop the wording."
        ));
    }
    next.updated_at = Some(now);
    next.updated_by = Some(
        if author == Author::User {
            "user"
        } else {
            "agent"
        }
        .to_owned(),
    );
    Ok(next)
}

impl TaskParts {
    /// `task_brief_update` from a run: replaces the fields it names and marks the run.
    pub async fn update_brief_from_run(
        &self,
        task_id: &str,
        run_id: &str,
        changes: Map<String, Value>,
    ) -> Result<TaskBrief, String> {
        let cap = usize::try_from(self.config().current().tasks.brief_chars).unwrap_or(1500);
        let brief = self
            .change_task(task_id, |r, now| {
                let current = r.task.brief.clone().unwrap_or_default();
                let next = apply(&current, &changes, Author::Agent, cap, now)
                    .map_err(TaskError::Invalid)?;
                r.task.brief = Some(next.clone());
                Ok(next)
            })
            .await
            .map_err(|e| e.message())?;
        self.tasks()
            .store()
            .mark_brief_updated(run_id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(brief)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn changes(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_run_replaces_only_the_fields_it_names() {
        let now = DateTime::<Utc>::default();
        let first = apply(
            &TaskBrief::default(),
            &changes(json!({"goal": "Find a flight to Lisbon", "open": "Dates"})),
            Author::Agent,
            1500,
            now,
        )
        .expect("applied");
        let second = apply(
            &first,
            &changes(json!({"open": null, "done": "Compared TAP and Ryanair"})),
            Author::Agent,
            1500,
            now,
        )
        .expect("applied");
        assert_eq!(second.goal.as_deref(), Some("Find a flight to Lisbon"));
        assert_eq!(second.open, None);
        assert_eq!(
            render(&second),
            "Goal: Find a flight to Lisbon\nDone: Compared TAP and Ryanair"
        );
        assert_eq!(second.updated_by.as_deref(), Some("agent"));
    }

    #[test]
    fn the_cap_forces_a_shorter_version() {
        let long = "x".repeat(200);
        let error = apply(
            &TaskBrief::default(),
            &changes(json!({"goal": long})),
            Author::Agent,
            100,
            DateTime::default(),
        )
        .expect_err("too long");
        assert_eq!(
            error,
            "This brief would be 206 characters; the limit is 100. Write a shorter version: keep names, files, sites and ids, drop the wording."
        );
    }

    #[test]
    fn the_persons_fields_are_theirs() {
        let now = DateTime::<Utc>::default();
        let mine = apply(
            &TaskBrief::default(),
            &changes(json!({"constraints": "Never fly before 9"})),
            Author::User,
            1500,
            now,
        )
        .expect("applied");
        assert_eq!(mine.user_fields, ["constraints"]);
        assert_eq!(
            render(&mine),
            "Constraints (the person's own words): Never fly before 9"
        );
        let refused = apply(
            &mine,
            &changes(json!({"constraints": "Any time"})),
            Author::Agent,
            1500,
            now,
        )
        .expect_err("refused");
        assert!(
            refused.starts_with("constraints is the person's own words"),
            "{refused}"
        );
        assert!(
            apply(
                &mine,
                &changes(json!({"colour": "red"})),
                Author::Agent,
                1500,
                now
            )
            .is_err()
        );
        // Clearing a field gives it back to the runs.
        let cleared = apply(
            &mine,
            &changes(json!({"constraints": ""})),
            Author::User,
            1500,
            now,
        )
        .expect("applied");
        assert!(cleared.user_fields.is_empty());
    }
}
