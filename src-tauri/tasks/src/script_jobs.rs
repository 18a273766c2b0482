//! Script jobs (contract section 16, "Script jobs"): a watch that runs a short script on the
//! task's schedule instead of a model. A check is no run: it only updates the task's `script`
//! while the task goes active → processing → active. What a check means is decided by
//! [`judge`] (pure); [`ScriptJobs`] runs checks and acts on them: a `script_alert`
//! notification or a model run, and `script_failed` / `script_recovered` once each way.

use serde_json::{Map, Value, json};

use crate::TaskError;
use crate::executor::{Executor, RunStart};
use crate::model::{Schedule, Task, TaskStatus};
use crate::parts::TaskParts;
use sentient_core::domain::script::{
    SandboxResult, ScriptCondition, ScriptThen, TaskScript, by_name,
};

/// Longest alert message taken from a check's output.
const MESSAGE_CHARS: usize = 3000;
/// Longest value quoted in a "changed" notification.
const QUOTE_CHARS: usize = 300;

/// What a check found, for the task's script and what comes next.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The script with `last_*` brought up to date.
    pub script: TaskScript,
    /// The condition held: the message and the value to act on.
    pub act: Option<(String, Value)>,
    /// The check failed and the one before did not: `script_failed`, with why.
    pub first_failure: Option<String>,
    /// The check succeeded after failing: `script_recovered`.
    pub recovered: bool,
}

/// The value of a check: `result(...)`, else the trimmed output; empty counts as none.
pub fn value_of(result: &SandboxResult) -> Value {
    match &result.result {
        Value::String(text) if text.trim().is_empty() => Value::Null,
        Value::String(text) => Value::String(text.trim().to_owned()),
        other => other.clone(),
    }
}

/// `value` as text: a string as it is, anything else as JSON.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Whether a value is the script's alert (`{"alert": true, ...}`, any truthy `alert`).
fn alert_of(value: &Value) -> Option<String> {
    let raised = match value.get("alert")? {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    };
    raised.then(|| {
        value
            .get("message")
            .map(as_text)
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .map_or_else(
                || "The check raised an alert.".to_owned(),
                |m| cut(&m, MESSAGE_CHARS),
            )
    })
}

/// What the check `result` at `now` means for `script` (contract section 16): its value, the
/// condition, and the failure and recovery notices.
pub fn judge(
    script: &TaskScript,
    result: &SandboxResult,
    now: chrono::DateTime<chrono::Utc>,
) -> Judgement {
    let mut next = script.clone();
    next.last_run_at = Some(now);
    if !result.ok {
        let why = result
            .error
            .clone()
            .unwrap_or_else(|| "The check failed.".to_owned());
        next.last_error = Some(why.clone());
        return Judgement {
            script: next,
            act: None,
            first_failure: script.last_error.is_none().then_some(why),
            recovered: false,
        };
    }
    let recovered = script.last_error.is_some();
    next.last_error = None;
    let value = value_of(result);
    let act = if value.is_null() {
        None
    } else {
        match script.condition {
            ScriptCondition::Alert => alert_of(&value).map(|m| (m, value.clone())),
            // The first value is only the baseline.
            ScriptCondition::Changed if script.last_result.is_null() => None,
            ScriptCondition::Changed if script.last_result == value => None,
            ScriptCondition::Changed => Some((
                format!("It changed: {}", cut(&as_text(&value), QUOTE_CHARS)),
                value.clone(),
            )),
            ScriptCondition::EveryRun => {
                Some((cut(&as_text(&value), MESSAGE_CHARS), value.clone()))
            }
        }
    };
    if !value.is_null() {
        next.last_result = value;
    }
    Judgement {
        script: next,
        act,
        first_failure: None,
        recovered,
    }
}

/// The key a task's checks are tracked under (Cancel, delete and Stop everything reach them).
fn check_key(task_id: &str, check: u64) -> String {
    format!("check:{task_id}:{check}")
}

fn check_prefix(task_id: &str) -> String {
    format!("check:{task_id}:")
}

/// A one-off script job's check ends the task; the others wait for their next time.
fn status_after_check(task: &Task) -> TaskStatus {
    match task.schedule {
        None | Some(Schedule::Once { .. }) => TaskStatus::Completed,
        _ => TaskStatus::Active,
    }
}

/// Runs script jobs' checks and acts on what they find.
#[derive(Clone)]
pub(crate) struct ScriptJobs {
    parts: TaskParts,
}

impl ScriptJobs {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }

    /// Whether a check of `task_id` is running in this process.
    pub(crate) fn is_checking(&self, task_id: &str) -> bool {
        self.parts.tasks().is_running_under(&check_prefix(task_id))
    }

    /// Stops every check of `task_id` (it was deleted, or turned back into a normal task).
    pub(crate) fn cancel_checks(&self, task_id: &str) {
        self.parts.tasks().cancel_under(&check_prefix(task_id));
    }

    /// A check the person or a trigger starts now: the task shows `processing`, then the
    /// check runs in the background. The scheduler claims its own (`claim_to_check`) and
    /// calls [`Self::launch_check`].
    pub(crate) async fn start_check(
        &self,
        task_id: &str,
        trigger_event: Option<Value>,
        by_person: bool,
    ) -> Result<(), TaskError> {
        let processing = |r: &mut crate::store::TaskRecord, now| {
            if r.task.script.is_none() {
                return Err(TaskError::conflict("This task has no script to check."));
            }
            r.task.status = TaskStatus::Processing;
            r.task.last_execution_at = Some(now);
            r.task.error = None;
            Ok(())
        };
        if by_person {
            self.parts.person_changes_task(task_id, processing).await?;
        } else {
            self.parts.change_task(task_id, processing).await?;
        }
        self.launch_check(task_id, trigger_event);
        Ok(())
    }

    /// Runs one check in the background as a Stop-everything job under the engine's shutdown.
    pub(crate) fn launch_check(&self, task_id: &str, trigger_event: Option<Value>) {
        let job = self
            .parts
            .stop()
            .start_job_within("script check", &self.parts.shutdown_token());
        let number = self.parts.tasks().next_number();
        let key = check_key(task_id, number);
        let tracked = self.parts.tasks().track(&key, job.token().clone());
        let jobs = self.clone();
        let task_id = task_id.to_owned();
        tokio::spawn(async move {
            jobs.parts.announce_task(&task_id).await;
            let outcome = jobs.check(&task_id, trigger_event, job.token()).await;
            drop(job);
            jobs.parts.tasks().untrack(&key, tracked);
            if let Err(error) = outcome {
                tracing::warn!(error = %error.message(), task_id, "a script job's check could not finish");
            }
        });
    }

    async fn check(
        &self,
        task_id: &str,
        trigger_event: Option<Value>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<(), TaskError> {
        let started = self.parts.tasks().store().task(task_id).await?.task;
        let Some(script) = started.script.clone() else {
            return self.settle_status(task_id).await;
        };
        let begun = std::time::Instant::now();
        let result = self
            .parts
            .scripts()
            .check(&script.code, trigger_event.clone(), cancel.clone())
            .await;
        tracing::info!(
            task_id,
            ok = result.ok,
            ms = begun.elapsed().as_millis() as u64,
            "script job checked"
        );
        if cancel.is_cancelled() {
            // Stopped (Stop everything, Cancel, a delete): no verdict on the page either way.
            return self.settle_status(task_id).await;
        }
        let code = script.code.clone();
        let judged = self
            .parts
            .change_task(task_id, |record, now| {
                let task = &mut record.task;
                if task.status == TaskStatus::Processing {
                    task.status = status_after_check(task);
                }
                // Written only for the script that ran: new code or a condition changed
                // meanwhile starts afresh.
                let current = task
                    .script
                    .as_ref()
                    .filter(|s| s.code == code && s.condition == script.condition);
                let Some(current) = current else {
                    return Ok(None);
                };
                let judged = judge(current, &result, now);
                task.script = Some(judged.script.clone());
                Ok(Some((judged, task.clone())))
            })
            .await?;
        let Some((judged, task)) = judged else {
            return Ok(());
        };
        if let Some(why) = &judged.first_failure {
            self.parts
                .notify_task(
                    &task,
                    "script_failed",
                    format!("{}: the check failed", task.name),
                    why.clone(),
                    Map::new(),
                )
                .await;
        }
        if judged.recovered {
            self.parts
                .notify_task(
                    &task,
                    "script_recovered",
                    format!("{}: the check works again", task.name),
                    "The last check succeeded after failing before.".to_owned(),
                    Map::new(),
                )
                .await;
        }
        if let Some((message, value)) = judged.act {
            self.act(&task, message, value, trigger_event).await;
        }
        Ok(())
    }

    /// The condition held: tell the person, or start a model run told the value.
    async fn act(&self, task: &Task, message: String, value: Value, trigger_event: Option<Value>) {
        let then = task.script.as_ref().map_or(ScriptThen::Notify, |s| s.then);
        match then {
            ScriptThen::Notify => {
                let mut extra = Map::new();
                extra.insert("result".to_owned(), value);
                self.parts
                    .notify_task(task, "script_alert", task.name.clone(), message, extra)
                    .await;
            }
            ScriptThen::Run => {
                let mut data = json!({"script_result": value, "message": message});
                if let Some(event) = trigger_event {
                    data["trigger_event"] = event;
                }
                let start = RunStart {
                    trigger_event_data: Some(data),
                    ..RunStart::default()
                };
                if let Err(error) = Executor::new(&self.parts)
                    .start_run_from(&task.task_id, start)
                    .await
                {
                    tracing::warn!(error = %error.message(), task_id = %task.task_id, "a script job's run could not start");
                }
            }
        }
    }

    /// A check that ended without a verdict puts the task back as it was before it.
    async fn settle_status(&self, task_id: &str) -> Result<(), TaskError> {
        self.parts
            .change_task(task_id, |record, _| {
                let task = &mut record.task;
                if task.status == TaskStatus::Processing {
                    task.status = status_after_check(task);
                }
                Ok(())
            })
            .await
    }
}

/// A script for a task, checked: its code is not empty and compiles. `Err` is the 400.
pub(crate) async fn check_compiles(parts: &TaskParts, code: &str) -> Result<(), TaskError> {
    if code.trim().is_empty() {
        return Err(TaskError::invalid("A script job needs its code."));
    }
    match parts.scripts().compile_error(code).await {
        Some(why) => Err(TaskError::invalid(why)),
        None => Ok(()),
    }
}

/// A partial `script` (`{code?, condition?, then?}`) merged into `current`; new code or a new
/// condition starts afresh (`last_*` reset). `Err` is the 400 for a wrong shape.
pub fn merge_script(current: Option<&TaskScript>, change: &Value) -> Result<TaskScript, TaskError> {
    let Value::Object(fields) = change else {
        return Err(TaskError::invalid(
            "script is an object with code, condition and then, or null.",
        ));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !["code", "condition", "then"].contains(&k.as_str()))
    {
        return Err(TaskError::invalid(format!(
            "A script has code, condition and then; \"{unknown}\" is not one of them."
        )));
    }
    let text = |key: &str| -> Result<Option<&str>, TaskError> {
        match fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(TaskError::invalid(format!("script.{key} must be text."))),
        }
    };
    let code = text("code")?;
    let condition = match text("condition")? {
        Some(c) => Some(by_name::<ScriptCondition>(c).ok_or_else(|| {
            TaskError::invalid(format!(
                "\"{c}\" is not a script condition: use changed, alert or every_run."
            ))
        })?),
        None => None,
    };
    let then = match text("then")? {
        Some(t) => Some(by_name::<ScriptThen>(t).ok_or_else(|| {
            TaskError::invalid(format!(
                "\"{t}\" is not what a script job does: use notify or run."
            ))
        })?),
        None => None,
    };
    let mut next = match (current, code) {
        (Some(current), _) => current.clone(),
        (None, Some(code)) => {
            TaskScript::new(code.to_owned(), Default::default(), Default::default())
        }
        (None, None) => return Err(TaskError::invalid("A script job needs its code.")),
    };
    let mut fresh = false;
    if let Some(code) = code
        && code != next.code
    {
        next.code = code.to_owned();
        fresh = true;
    }
    if let Some(condition) = condition
        && condition != next.condition
    {
        next.condition = condition;
        fresh = true;
    }
    if let Some(then) = then {
        next.then = then;
    }
    if fresh {
        next.last_result = Value::Null;
        next.last_run_at = None;
        next.last_error = None;
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sentient_core::domain::script::ScriptBackend;

    fn script(condition: ScriptCondition, last: Value) -> TaskScript {
        TaskScript {
            last_result: last,
            ..TaskScript::new("print(1)".into(), condition, ScriptThen::Notify)
        }
    }

    fn ran(result: Value) -> SandboxResult {
        SandboxResult {
            ok: true,
            result,
            error: None,
            ..SandboxResult::refused(ScriptBackend::Process, "")
        }
    }

    fn now() -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339("2026-12-07T10:00:00Z")
            .expect("time")
            .to_utc()
    }

    #[test]
    fn changed_takes_the_first_value_as_baseline_and_ignores_empty_values() {
        let first = judge(
            &script(ScriptCondition::Changed, Value::Null),
            &ran(json!("Out of stock\n")),
            now(),
        );
        assert_eq!(first.act, None);
        assert_eq!(first.script.last_result, json!("Out of stock"));
        let same = judge(&first.script, &ran(json!("Out of stock")), now());
        assert_eq!(same.act, None);
        let empty = judge(&first.script, &ran(json!("  \n")), now());
        assert_eq!(empty.act, None);
        assert_eq!(
            empty.script.last_result,
            json!("Out of stock"),
            "null keeps the baseline"
        );
        let changed = judge(&first.script, &ran(json!("In stock")), now());
        assert_eq!(
            changed.act,
            Some(("It changed: In stock".to_owned(), json!("In stock")))
        );
        assert_eq!(changed.script.last_result, json!("In stock"));
        assert_eq!(changed.script.last_run_at, Some(now()));
    }

    #[test]
    fn alert_acts_only_on_a_raised_alert_with_its_message() {
        let s = script(ScriptCondition::Alert, Value::Null);
        assert_eq!(judge(&s, &ran(json!({"alert": false})), now()).act, None);
        assert_eq!(judge(&s, &ran(json!("anything")), now()).act, None);
        let raised = judge(
            &s,
            &ran(json!({"alert": true, "message": "Back in stock"})),
            now(),
        );
        assert_eq!(raised.act.map(|a| a.0), Some("Back in stock".to_owned()));
        let bare = judge(&s, &ran(json!({"alert": 1})), now());
        assert_eq!(
            bare.act.map(|a| a.0),
            Some("The check raised an alert.".to_owned())
        );
    }

    #[test]
    fn every_run_reports_each_value_cut_at_3000_characters() {
        let s = script(ScriptCondition::EveryRun, json!("same"));
        let again = judge(&s, &ran(json!("same")), now());
        assert_eq!(again.act.map(|a| a.0), Some("same".to_owned()));
        assert_eq!(judge(&s, &ran(json!("")), now()).act, None);
        let long = "x".repeat(4000);
        let cut = judge(&s, &ran(json!(long)), now()).act.expect("acts").0;
        assert_eq!(cut.chars().count(), 3001);
        let object = judge(&s, &ran(json!({"n": 2})), now()).act.expect("acts");
        assert_eq!(object.0, "{\"n\":2}");
    }

    #[test]
    fn failures_keep_the_last_value_and_are_told_once_and_recovery_once() {
        let s = script(ScriptCondition::Changed, json!("a"));
        let failed = SandboxResult::refused(ScriptBackend::Process, "The script timed out.");
        let first = judge(&s, &failed, now());
        assert_eq!(
            first.first_failure.as_deref(),
            Some("The script timed out.")
        );
        assert_eq!(first.script.last_result, json!("a"));
        assert_eq!(
            first.script.last_error.as_deref(),
            Some("The script timed out.")
        );
        let second = judge(&first.script, &failed, now());
        assert_eq!(second.first_failure, None, "told on the first failure only");
        let back = judge(&second.script, &ran(json!("a")), now());
        assert!(back.recovered);
        assert_eq!(back.script.last_error, None);
        assert_eq!(back.act, None);
        assert!(!judge(&back.script, &ran(json!("a")), now()).recovered);
    }

    #[test]
    fn merging_a_partial_script_resets_what_the_checks_found_on_new_code_or_condition() {
        let mut current = script(ScriptCondition::Changed, json!("a"));
        current.last_error = Some("x".into());
        let then_only = merge_script(Some(&current), &json!({"then": "run"})).expect("merges");
        assert_eq!(then_only.then, ScriptThen::Run);
        assert_eq!(
            then_only.last_result,
            json!("a"),
            "then alone keeps the findings"
        );
        let new_code = merge_script(Some(&current), &json!({"code": "print(2)"})).expect("merges");
        assert_eq!(new_code.last_result, Value::Null);
        assert_eq!(new_code.last_error, None);
        let condition =
            merge_script(Some(&current), &json!({"condition": "alert"})).expect("merges");
        assert_eq!(condition.condition, ScriptCondition::Alert);
        assert_eq!(condition.last_result, Value::Null);
        for wrong in [
            json!({"condition": "sometimes"}),
            json!({"then": "email"}),
            json!({"code": 3}),
            json!({"language": "python"}),
            json!("print(1)"),
        ] {
            assert!(merge_script(Some(&current), &wrong).is_err(), "{wrong}");
        }
        assert!(
            merge_script(None, &json!({"condition": "alert"})).is_err(),
            "code is needed"
        );
        let made = merge_script(None, &json!({"code": "print(1)"})).expect("merges");
        assert_eq!(
            (made.condition, made.then),
            (ScriptCondition::Changed, ScriptThen::Notify)
        );
    }
}
