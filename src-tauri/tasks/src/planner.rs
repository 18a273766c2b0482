//! Planning: the planner role turns a prompt into a name, description, priority and schedule
//! (refinement, also `POST /api/tasks/preview`), then into plan steps that name tools, or into
//! clarifying questions when something essential is missing. A plan waiting for approval,
//! questions and a failed planning each send a task notification.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::model::{ClarifyingQuestion, PlanStep, Schedule, TaskChatLine, TaskStatus};
use super::schedule;
use crate::TaskError;
use crate::notify::{plan_summary, questions_summary};
use crate::parts::TaskParts;
use crate::store::{TaskRecord, TaskWrite};
use crate::task_row::go_live;
use sentient_core::domain::script::{ScriptCondition, ScriptThen, TaskScript, by_name};
use sentient_llm::queue::JobKind;
use sentient_llm::{CallOptions, ChatRequest, Message, ModelRole};

/// What refinement makes of a prompt (`POST /api/tasks/preview`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Refinement {
    pub name: String,
    pub description: String,
    pub priority: i32,
    pub schedule: Option<Schedule>,
    /// Why the model didn't answer, when this came from the words alone; planning needs the
    /// model, so the window warns before Create. Null when the model answered.
    #[serde(default)]
    pub model_error: Option<String>,
}

/// What planning makes of a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    Steps(Vec<PlanStep>),
    Questions(Vec<String>),
    /// A watch: a script job with its steps (one describing the script when the planner gave
    /// none) and the schedule the planner asked for, if any.
    Watch {
        steps: Vec<PlanStep>,
        script: TaskScript,
        schedule: Option<Value>,
    },
}

const WRONG_SHAPE: &str = "The planner model answered in the wrong shape. Try again, or pick another planner model in Settings > Models.";

fn wrong_shape() -> TaskError {
    TaskError::BadModelAnswer(WRONG_SHAPE.to_owned())
}

/// Reads the refinement JSON; the schedule is normalised like a saved one.
pub fn read_refinement(
    value: &Value,
    prompt: &str,
    timezone: &str,
) -> Result<Refinement, TaskError> {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let name = text("name").ok_or_else(wrong_shape)?;
    let schedule = match value.get("schedule") {
        None | Some(Value::Null) => None,
        Some(raw) => match schedule::parse_schedule(raw, timezone) {
            Ok(s) => Some(s),
            // A schedule the model got wrong is left out rather than failing the task.
            Err(error) => {
                tracing::info!(%error, "the planner's schedule was not usable");
                None
            }
        },
    };
    let priority = value
        .get("priority")
        .and_then(Value::as_i64)
        .map_or(1, |p| p.clamp(0, 2));
    let words: Vec<&str> = name.split_whitespace().collect();
    Ok(Refinement {
        name: crate::schedule_words::whole_words(&words, false, 80),
        description: text("description").unwrap_or(prompt).to_owned(),
        priority: i32::try_from(priority).unwrap_or(1),
        schedule,
        model_error: None,
    })
}

/// The step a watch's plan shows when the planner gave none.
fn watch_step(script: &TaskScript) -> PlanStep {
    let does = match (script.condition, script.then) {
        (ScriptCondition::Alert, ScriptThen::Notify) => "tell you when it raises an alert",
        (ScriptCondition::Changed, ScriptThen::Notify) => "tell you when what it finds changes",
        (ScriptCondition::EveryRun, ScriptThen::Notify) => "tell you what it finds each time",
        (_, ScriptThen::Run) => "work on what it finds when it matters",
    };
    PlanStep {
        tool: "execute_code".to_owned(),
        description: format!("Check with a short script, without the model, and {does}."),
    }
}

/// Reads the planning JSON: plan steps, questions, or a watch (a `script` beside the plan).
pub fn read_plan(value: &Value) -> Result<Planned, TaskError> {
    if let Some(script) = value.get("script").filter(|s| s.is_object()) {
        let code = script
            .get("code")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !code.trim().is_empty() {
            let text = |key: &str| script.get(key).and_then(Value::as_str).unwrap_or_default();
            let script = TaskScript::new(
                code.to_owned(),
                by_name::<ScriptCondition>(text("condition")).unwrap_or_default(),
                by_name::<ScriptThen>(text("then")).unwrap_or_default(),
            );
            let steps = match read_steps(value) {
                steps if steps.is_empty() => vec![watch_step(&script)],
                steps => steps,
            };
            return Ok(Planned::Watch {
                steps,
                script,
                schedule: value.get("schedule").filter(|s| !s.is_null()).cloned(),
            });
        }
    }
    let questions: Vec<String> = value
        .get("clarifying_questions")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|q| q.as_str().or_else(|| q.get("text").and_then(Value::as_str)))
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if !questions.is_empty() {
        return Ok(Planned::Questions(questions));
    }
    let steps = read_steps(value);
    if steps.is_empty() {
        return Err(wrong_shape());
    }
    Ok(Planned::Steps(steps))
}

/// The reply's plan steps that have a description.
fn read_steps(value: &Value) -> Vec<PlanStep> {
    value
        .get("plan")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|s| {
                    let description = s.get("description")?.as_str()?.trim();
                    (!description.is_empty()).then(|| PlanStep {
                        tool: s
                            .get("tool")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .trim()
                            .to_owned(),
                        description: description.to_owned(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Refinement and planning, as a job that writes only while the task is at the generation it
/// started from (`migrations/0017`).
#[derive(Clone)]
pub(crate) struct Planner {
    parts: TaskParts,
}

impl Planner {
    pub(crate) fn new(parts: &TaskParts) -> Self {
        Self {
            parts: parts.clone(),
        }
    }
}

impl Planner {
    fn local_now(&self) -> (String, String) {
        let timezone = self.parts.user_timezone();
        let now = self.parts.clock().now();
        let local = timezone
            .parse::<chrono_tz::Tz>()
            .map(|tz| {
                now.with_timezone(&tz)
                    .format("%A %Y-%m-%dT%H:%M")
                    .to_string()
            })
            .unwrap_or_else(|_| now.format("%A %Y-%m-%dT%H:%M UTC").to_string());
        (timezone, local)
    }

    async fn planner_json(
        &self,
        system: String,
        user: String,
        cancel: &CancellationToken,
    ) -> Result<Value, TaskError> {
        let request = ChatRequest {
            messages: vec![Message::system(system), Message::user(user)],
            ..Default::default()
        };
        let opts = CallOptions::new(ModelRole::Planner, "task_planning", JobKind::Task)
            .with_cancel(cancel.clone());
        match self.parts.llm().json(request, &opts).await {
            Ok((value, _)) if value.is_object() => Ok(value),
            Ok(_) => Err(wrong_shape()),
            Err(sentient_llm::LlmError::Garbled { .. }) => Err(wrong_shape()),
            Err(e) => Err(e.into()),
        }
    }

    /// Refinement: name, description, priority and schedule from the prompt, in the user's time zone.
    pub async fn refine_task(
        &self,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> Result<Refinement, TaskError> {
        let (timezone, local) = self.local_now();
        let system = format!(
            "You turn a person's request into a task for their assistant. It is now {local} in {timezone}. \
Reply with JSON only: {{\"name\": \"at most six words\", \"description\": \"one or two sentences\", \
\"priority\": 0 for urgent, 1 for normal or 2 for low, \"schedule\": null when it should run once now, or \
{{\"type\": \"once\", \"run_at\": \"YYYY-MM-DDTHH:MM\"}} for a later time, or {{\"type\": \"recurring\", \
\"frequency\": \"daily\" or \"weekly\", \"days\": [\"Monday\", ...], \"time\": \"HH:MM\"}} when it repeats}}."
        );
        // The person's own words decide the schedule when they name one; the model fills in
        // the rest, and when it can't answer, the words alone still give a task to preview.
        let from_words = self.schedule_from_words(prompt, &timezone);
        let refined = match self.planner_json(system, prompt.to_owned(), cancel).await {
            Ok(value) => read_refinement(&value, prompt, &timezone),
            Err(error) => Err(error),
        };
        match (refined, from_words) {
            (Ok(mut refinement), Some(schedule)) => {
                refinement.schedule = Some(schedule);
                Ok(refinement)
            }
            (Ok(refinement), None) => Ok(refinement),
            (Err(error), Some(schedule)) if !cancel.is_cancelled() => {
                tracing::info!(%error, "refining without the model: the schedule came from the words");
                Ok(Refinement {
                    name: crate::schedule_words::title_of(prompt),
                    description: prompt.to_owned(),
                    priority: 1,
                    schedule: Some(schedule),
                    model_error: Some(error.message()),
                })
            }
            (Err(error), _) => Err(error),
        }
    }

    /// The schedule the prompt's words name, read without a model.
    fn schedule_from_words(&self, prompt: &str, timezone: &str) -> Option<Schedule> {
        // "When an email arrives" means the email app that is connected (its tools are offered).
        let offered = self.parts.tools().offered(&[]);
        let has = |name: &str| offered.iter().any(|t| t.name == name);
        let email_source = if !has("gmail_search") && has("email_imap_search") {
            "email_imap"
        } else {
            "gmail"
        };
        let ctx = crate::schedule_words::Context {
            now: self.parts.clock().now(),
            timezone,
            email_source,
        };
        crate::schedule_words::schedule_in(prompt, &ctx)
    }

    /// Planning: steps naming tools, or questions.
    async fn plan_task(
        &self,
        task_id: &str,
        cancel: &CancellationToken,
    ) -> Result<Planned, TaskError> {
        let record = self.parts.tasks().store().task(task_id).await?;
        let task = &record.task;
        let tools: Vec<String> = self
            .parts
            .tools()
            .offered(&[])
            .iter()
            .map(|t| format!("- {}: {}", t.name, t.description))
            .collect();
        let system = format!(
            "You plan tasks for a personal assistant that works on its own with these tools:\n{}\n\n\
Reply with JSON only: {{\"plan\": [{{\"tool\": \"tool name\", \"description\": \"what this step does\"}}]}} with one \
to eight steps, each naming one of the tools above (or \"none\" for a step that only needs thinking). Only when \
something essential is missing and can't sensibly be assumed, reply {{\"clarifying_questions\": [\"question\"]}} \
instead (at most three short questions).\n\n\
When the person wants something watched (\"tell me when...\", \"check every hour whether...\"), add a script \
that checks it without you: {{\"plan\": [...], \"script\": {{\"code\": \"...\", \"condition\": \"alert\", \"then\": \"notify\"}}, \
\"schedule\": {{\"type\": \"recurring\", \"frequency\": \"interval\", \"interval_minutes\": 60}}}}. The code is Python 3 that \
starts with `from sentient_tools import tools, result`, calls only tools that look things up (for example \
tools.web_fetch(url=...)) with keyword arguments, and calls result({{\"alert\": True, \"message\": \"...\"}}) when the \
person should hear about it. condition is \"alert\" (act on that result), \"changed\" (act when the result differs \
from the last one) or \"every_run\"; then is \"notify\" (tell the person) or \"run\" (you work on it).",
            tools.join("\n")
        );
        let mut user = format!(
            "Task: {}\n{}\n\nWhat the person asked: {}",
            task.name, task.description, record.prompt
        );
        let answered: Vec<String> = task
            .clarifying_questions
            .iter()
            .filter_map(|q| Some(format!("Q: {}\nA: {}", q.text, q.answer.as_deref()?)))
            .collect();
        if !answered.is_empty() {
            user.push_str("\n\nAnswers to your earlier questions:\n");
            user.push_str(&answered.join("\n"));
        }
        let changes: Vec<String> = task
            .chat_history
            .iter()
            .filter(|l| l.role == "user")
            .map(|l| format!("- {}", l.content))
            .collect();
        if !changes.is_empty() {
            user.push_str("\n\nChanges the person asked for since (they win over the above):\n");
            user.push_str(&changes.join("\n"));
        }
        let value = self
            .planner_json(system.clone(), user.clone(), cancel)
            .await?;
        let planned = read_plan(&value)?;
        let Some(problem) = self.script_problem(&planned).await else {
            return Ok(planned);
        };
        // One chance to fix a script that does not compile.
        let again = format!(
            "{user}\n\nYour last answer was:\n{value}\n\nIts script does not compile: {problem} \
Reply with the whole JSON again, with the script fixed."
        );
        let value = self.planner_json(system, again, cancel).await?;
        let planned = read_plan(&value)?;
        match self.script_problem(&planned).await {
            None => Ok(planned),
            Some(problem) => Err(TaskError::BadModelAnswer(format!(
                "The planner wrote a script for this watch that doesn't compile, even after one more try ({}). Try again, or describe what to watch in other words.",
                problem.trim_end_matches('.')
            ))),
        }
    }

    /// Why a watch's script does not compile, if it is a watch and does not.
    async fn script_problem(&self, planned: &Planned) -> Option<String> {
        match planned {
            Planned::Watch { script, .. } => self.parts.scripts().compile_error(&script.code).await,
            _ => None,
        }
    }

    /// Plans a task in the background (refining it first when `refine`), as a job that Stop
    /// everything, deleting the task, a person's change and shutdown cancel. Everything it
    /// writes is fenced by `generation`, the task's generation it starts from: once a person
    /// changed the task, nothing it does touches it (see `migrations/0017`).
    pub(crate) fn start_planning_with(&self, task_id: &str, generation: i64, refine: bool) {
        let job = self
            .parts
            .stop()
            .start_job_within("task planning", &self.parts.shutdown_token());
        let tracked = self.parts.tasks().track(task_id, job.token().clone());
        let engine = self.clone();
        let task_id = task_id.to_owned();
        tokio::spawn(async move {
            let outcome = engine
                .plan_now(&task_id, generation, refine, job.token())
                .await;
            if outcome.is_err() && engine.parts.shutdown_token().is_cancelled() {
                // Sentient is closing: the task stays `planning` and is planned again at start.
                tracing::info!(%task_id, "planning left for the next start");
            } else if let Err(error) = outcome {
                let message = if job.token().is_cancelled() {
                    "Planning was stopped. Ask for a change to plan it again.".to_owned()
                } else {
                    error.message()
                };
                // Stopping it was the person's own doing; the task's status says so.
                let tell = !job.token().is_cancelled();
                engine
                    .planning_failed(&task_id, generation, message, tell)
                    .await;
            }
            // Last, so whoever sees the planning gone sees everything it wrote.
            engine.parts.tasks().untrack(&task_id, tracked);
        });
    }

    /// New tasks are refined, then planned.
    pub(crate) fn start_planning(&self, task_id: &str) {
        self.start_planning_with(task_id, crate::store::FIRST_GENERATION, true);
    }

    /// Planning ended in `message`: the task shows it as `error` and, with `tell`, the feed
    /// says so; both only while the task is still at `generation`.
    async fn planning_failed(&self, task_id: &str, generation: i64, message: String, tell: bool) {
        let failed = |r: &mut TaskRecord, _| {
            r.task.status = TaskStatus::Error;
            r.task.error = Some(message.clone());
            Ok(r.task.clone())
        };
        let _one_at_a_time = self.parts.tasks().changes.lock().await;
        match self
            .parts
            .write_task_locked(task_id, TaskWrite::Since(generation), failed)
            .await
        {
            Ok(Some((task, _))) => {
                self.parts.announce_task(task_id).await;
                if tell {
                    let title = format!("Couldn't plan {}", task.name);
                    self.parts
                        .notify_task(&task, "planning_failed", title, message, Map::new())
                        .await;
                }
            }
            Ok(None) => {
                tracing::info!(
                    task_id,
                    "planning ended after a person changed the task; nothing written"
                );
            }
            Err(e) => {
                tracing::info!(error = %e.message(), "the task went away while planning");
            }
        }
    }

    /// Refines (when `refine`) and plans the task, writing each outcome only while the task is
    /// still at `generation`; a task a person changed meanwhile is left as they left it.
    async fn plan_now(
        &self,
        task_id: &str,
        generation: i64,
        refine: bool,
        cancel: &CancellationToken,
    ) -> Result<(), TaskError> {
        let since = TaskWrite::Since(generation);
        if refine {
            let prompt = self.parts.tasks().store().task(task_id).await?.prompt;
            let refined = self.refine_task(&prompt, cancel).await?;
            let written = {
                let _one_at_a_time = self.parts.tasks().changes.lock().await;
                self.parts
                    .write_task_locked(task_id, since, |r, _| {
                        r.task.name = refined.name;
                        r.task.description = refined.description;
                        r.task.priority = refined.priority;
                        r.task.schedule = refined.schedule;
                        Ok(())
                    })
                    .await?
            };
            if written.is_none() {
                tracing::info!(task_id, "refinement dropped: a person changed the task");
                return Ok(());
            }
            self.parts.announce_task(task_id).await;
        }
        let planned = self.plan_task(task_id, cancel).await?;
        let timezone = self.parts.user_timezone();
        let require_approval = self.parts.config().current().tasks.require_plan_approval;
        let replanned = !refine;
        // The write and its notification under one hold of the lock: a person's approval
        // either comes before (and the plan is dropped) or after (and settles the notification).
        let _one_at_a_time = self.parts.tasks().changes.lock().await;
        let written = self
            .parts
            .write_task_locked(task_id, since, |r, now| {
                let task = &mut r.task;
                match planned {
                    Planned::Questions(questions) => {
                        task.clarifying_questions = questions
                            .into_iter()
                            .enumerate()
                            .map(|(i, text)| ClarifyingQuestion {
                                question_id: format!("q{}", i + 1),
                                text,
                                answer: None,
                            })
                            .collect();
                        task.status = TaskStatus::ClarificationPending;
                    }
                    Planned::Watch {
                        steps,
                        script,
                        schedule,
                    } => {
                        task.plan = steps;
                        task.task_type = "script".to_owned();
                        task.script = Some(script);
                        if let Some(raw) = schedule {
                            match schedule::parse_schedule(&raw, &timezone) {
                                Ok(s) => task.schedule = Some(s),
                                Err(error) => {
                                    tracing::info!(%error, "the planner's watch schedule was not usable");
                                }
                            }
                        }
                        // A watch checks again and again: "now" becomes every hour.
                        if matches!(task.schedule, None | Some(Schedule::Once { run_at: None, .. })) {
                            task.schedule = Some(Schedule::Recurring {
                                frequency: crate::model::Frequency::Interval,
                                days: Vec::new(),
                                time: None,
                                interval_minutes: Some(60),
                                timezone: timezone.clone(),
                                catch_up: None,
                            });
                        }
                        if require_approval {
                            task.status = TaskStatus::ApprovalPending;
                            task.next_execution_at = None;
                        } else {
                            go_live(task, now);
                        }
                    }
                    Planned::Steps(steps) => {
                        task.plan = steps;
                        if replanned && !task.chat_history.is_empty() {
                            task.chat_history.push(TaskChatLine {
                                role: "assistant".to_owned(),
                                content: "I updated the plan.".to_owned(),
                                timestamp: now,
                            });
                        }
                        if require_approval && task.task_type != "swarm" {
                            task.status = TaskStatus::ApprovalPending;
                            task.next_execution_at = None;
                        } else {
                            go_live(task, now);
                        }
                    }
                }
                Ok(task.clone())
            })
            .await?;
        match written {
            Some((task, _)) => {
                self.parts.announce_task(task_id).await;
                self.notify_planned(&task).await;
                if matches!(task.status, TaskStatus::Active | TaskStatus::Pending) {
                    // Live without an approval: an earlier "Couldn't plan" is out of date.
                    self.parts.settle_planning_failed(task_id).await;
                }
            }
            None => tracing::info!(task_id, "plan dropped: a person changed the task"),
        }
        Ok(())
    }

    /// A plan waiting for approval, or questions, tell the person (contract section 4).
    async fn notify_planned(&self, task: &super::model::Task) {
        let (event, title, message) = match task.status {
            TaskStatus::ApprovalPending => (
                "approval_needed",
                format!("{} needs your approval", task.name),
                plan_summary(&task.description, &task.plan),
            ),
            TaskStatus::ClarificationPending => (
                "clarification_needed",
                format!("{} needs a few details", task.name),
                questions_summary(&task.clarifying_questions),
            ),
            _ => return,
        };
        self.parts
            .notify_task(task, event, title, message, Map::new())
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refinement_reads_the_fields_and_keeps_a_good_schedule() {
        let value = json!({"name": "Morning news", "description": "Three headlines.", "priority": 7,
                           "schedule": {"type": "recurring", "frequency": "daily", "time": "7:30"}});
        let r = read_refinement(&value, "news please", "Europe/Berlin").expect("refined");
        assert_eq!(r.name, "Morning news");
        assert_eq!(r.priority, 2);
        assert!(matches!(r.schedule, Some(Schedule::Recurring { .. })));
        // A missing name is the wrong shape; a broken schedule is dropped.
        assert_eq!(
            read_refinement(&json!({"description": "x"}), "p", "UTC")
                .err()
                .map(|e| sentient_core::error::ApiError::from(e).status),
            Some(502)
        );
        let r = read_refinement(
            &json!({"name": "X", "schedule": {"type": "someday"}}),
            "p",
            "UTC",
        )
        .expect("refined");
        assert_eq!(r.schedule, None);
        assert_eq!(r.description, "p");
    }

    #[test]
    fn a_script_beside_the_plan_makes_a_watch_with_a_step_that_describes_it() {
        let planned = read_plan(&json!({
            "script": {"code": "print(1)", "condition": "alert", "then": "sometimes"},
            "schedule": {"type": "recurring", "frequency": "interval", "interval_minutes": 30}
        }))
        .expect("a watch");
        let Planned::Watch {
            steps,
            script,
            schedule,
        } = planned
        else {
            panic!("not a watch: {planned:?}");
        };
        assert_eq!(script.code, "print(1)");
        assert_eq!(script.condition, ScriptCondition::Alert);
        assert_eq!(script.then, ScriptThen::Notify, "an unknown then is notify");
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].tool, "execute_code");
        assert!(
            steps[0]
                .description
                .contains("tell you when it raises an alert")
        );
        assert_eq!(
            schedule.and_then(|s| s["interval_minutes"].as_u64()),
            Some(30)
        );
        // A script without code is no watch: the plan decides.
        assert!(matches!(
            read_plan(
                &json!({"plan": [{"tool": "x", "description": "Do it"}], "script": {"code": " "}})
            ),
            Ok(Planned::Steps(_))
        ));
    }

    #[test]
    fn plans_need_steps_and_questions_win() {
        assert_eq!(
            read_plan(&json!({"plan": [{"tool": "web_fetch", "description": "Read the page"}, {"description": " "}]})).ok(),
            Some(Planned::Steps(vec![PlanStep { tool: "web_fetch".into(), description: "Read the page".into() }]))
        );
        assert_eq!(
            read_plan(&json!({"plan": [], "clarifying_questions": ["Which city?"]})).ok(),
            Some(Planned::Questions(vec!["Which city?".into()]))
        );
        assert_eq!(
            read_plan(&json!({"plan": []}))
                .err()
                .map(|e| sentient_core::error::ApiError::from(e).status),
            Some(502)
        );
    }
}
