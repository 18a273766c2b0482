//! One-call tasks (contract section 4, "Already approved one-call tasks"): the run makes exactly
//! the approved call with no planner and no model; a Never rule fails it with the rule's words;
//! a Read only connection fails it with the contract's sentence and nothing reaches the app
//! (issue 17's "fixed call" surface); a tool error fails it; a quiet run sends no "Task
//! completed"; a recurring one waits for its schedule.

use anyhow::{Context, Result};
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::sentient_engine::tasks::fixed_call::ApprovedCall;
use sentient_e2e::sentient_engine::tasks::model::Schedule;
use sentient_engine::sync::MutexExt;
use std::time::Duration;

use sentient_e2e::{TestEngine, eventually, point_models_at, stays, wait_task};
use sentient_model_server::ScriptedModel;
use serde_json::{Map, Value, json};

use crate::integrations::{Log, github_stand_in};

fn approved(name: &str, tool: &str, arguments: Value, done_text: &str) -> ApprovedCall {
    ApprovedCall {
        name: name.to_owned(),
        tool: tool.to_owned(),
        arguments,
        step: format!("Call {tool}"),
        description: None,
        source: "follow_up".to_owned(),
        original_context: Map::new(),
        done_text: done_text.to_owned(),
        schedule: None,
        quiet: false,
    }
}

fn ended(task: &Value) -> bool {
    task["runs"]
        .as_array()
        .and_then(|runs| runs.last())
        .is_some_and(|run| !matches!(run["status"].as_str(), Some("processing") | None))
}

fn last_run(task: &Value) -> Result<&Value> {
    task["runs"]
        .as_array()
        .and_then(|runs| runs.last())
        .context("a run")
}

fn kinds(run: &Value) -> Vec<String> {
    run["progress_updates"]
        .as_array()
        .map(|lines| {
            lines
                .iter()
                .filter_map(|l| l["message"]["type"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

async fn notification_events(t: &TestEngine, task_id: &str) -> Result<Vec<String>> {
    let (_, list) = t.client.get("/api/notifications").await?;
    let items = list["notifications"]
        .as_array()
        .or_else(|| list.as_array())
        .cloned()
        .unwrap_or_default();
    Ok(items
        .iter()
        .filter(|n| n["payload"]["task_id"] == task_id)
        .filter_map(|n| n["payload"]["event"].as_str().map(str::to_owned))
        .collect())
}

/// Waits until the task's notifications include `event` (a run's notification follows its end).
async fn notified(t: &TestEngine, task_id: &str, event: &str) -> Result<()> {
    eventually(&format!("a {event} notification"), || async {
        let events = notification_events(t, task_id).await?;
        Ok(events.iter().any(|e| e == event).then_some(()))
    })
    .await
}

#[tokio::test]
async fn a_one_call_task_makes_exactly_its_call_without_a_model() -> Result<()> {
    let t = TestEngine::start().await?;
    let model = ScriptedModel::start().await;
    point_models_at(&t, &model).await?;
    let before = model.requests().len();

    let task = t
        .engine
        .tasks()
        .create_approved_call(approved(
            "Save the note",
            "files_write",
            json!({"path": "outputs/note.txt", "content": "milk, eggs"}),
            "Saved the note.",
        ))
        .await?;
    assert_eq!(task.plan.len(), 1);
    assert_eq!(task.original_context["fixed_call"]["tool"], "files_write");
    assert_eq!(task.original_context["source"], "follow_up");
    let id = task.task_id.clone();
    let done = wait_task(&t, &id, ended).await?;
    let run = last_run(&done)?;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(done["status"], "completed");
    assert_eq!(run["result"]["summary"], "Saved the note.");
    assert_eq!(kinds(run), ["tool_call", "tool_result", "final_answer"]);
    assert_eq!(
        run["progress_updates"][0]["message"]["parameters"]["content"],
        "milk, eggs"
    );
    let written = std::fs::read_to_string(t.home().join("files/outputs/note.txt"))?;
    assert_eq!(written, "milk, eggs");
    assert_eq!(model.requests().len(), before, "no model was asked");
    notified(&t, &id, "run_completed").await?;

    // A tool error fails the run with that error.
    let task = t
        .engine
        .tasks()
        .create_approved_call(approved(
            "Read a missing note",
            "files_read",
            json!({"path": "outputs/nowhere.txt"}),
            "Read it.",
        ))
        .await?;
    let done = wait_task(&t, &task.task_id, ended).await?;
    let run = last_run(&done)?;
    assert_eq!(run["status"], "error", "{run}");
    assert!(
        !run["error"].as_str().unwrap_or_default().is_empty(),
        "{run}"
    );
    assert_eq!(kinds(run), ["tool_call", "tool_result", "error"]);

    // A lasting Never rule fails it with the rule's message, and the call is not made.
    t.client
        .patch(
            "/api/config",
            json!({"tools": {"approvals": {"rules": {"files_write": "never"}}}}),
        )
        .await?;
    let task = t
        .engine
        .tasks()
        .create_approved_call(approved(
            "Save another note",
            "files_write",
            json!({"path": "outputs/other.txt", "content": "bread"}),
            "Saved.",
        ))
        .await?;
    let done = wait_task(&t, &task.task_id, ended).await?;
    let run = last_run(&done)?;
    assert_eq!(run["status"], "error");
    assert!(
        run["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("You've set Sentient to never use"),
        "{run}"
    );
    assert_eq!(kinds(run), ["error"]);
    assert!(!t.home().join("files/outputs/other.txt").exists());
    notified(&t, &task.task_id, "run_failed").await?;
    assert_eq!(
        notification_events(&t, &task.task_id).await?,
        ["run_failed"]
    );

    // Bad input changes nothing.
    let error = t
        .engine
        .tasks()
        .create_approved_call(approved("Nothing", "no_such_tool", json!({}), "Done."))
        .await
        .expect_err("an unknown tool is refused");
    assert!(error.to_string().contains("no_such_tool"), "{error}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn read_only_fails_a_one_call_task_and_nothing_reaches_the_app() -> Result<()> {
    let log: Log = Log::default();
    let api = github_stand_in(log.clone()).await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        ..Endpoints::default()
    })
    .await?;
    let (status, body) = t
        .client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_good"}}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    let (status, _) = t
        .client
        .put("/api/integrations/github/access", json!({"access": "read"}))
        .await?;
    assert_eq!(status, 200);
    // Approvals off and an Allow rule change nothing for Read only.
    t.client
        .patch(
            "/api/config",
            json!({"tools": {"approvals": {"mode": "off", "rules": {"github_create_issue": "allow"}}}}),
        )
        .await?;

    let call = approved(
        "File the bug",
        "github_create_issue",
        json!({"repo": "o/r", "title": "It crashes", "body": "On start."}),
        "Filed the bug.",
    );
    let task = t.engine.tasks().create_approved_call(call).await?;
    let done = wait_task(&t, &task.task_id, ended).await?;
    let run = last_run(&done)?;
    assert_eq!(run["status"], "error");
    assert_eq!(
        run["error"],
        "GitHub is set to Read only, so Sentient can look things up there but can't change, send or delete anything. \"Create issue\" was not done. Change this in Integrations."
    );
    let posted = |log: &Log| log.lock_unpoisoned().requests.iter().any(|r| r.0 == "POST");
    assert!(!posted(&log), "nothing reached GitHub");

    // Once the app may change things again, running the task makes the call.
    let (status, _) = t
        .client
        .put(
            "/api/integrations/github/access",
            json!({"access": "read_write"}),
        )
        .await?;
    assert_eq!(status, 200);
    let (status, body) = t
        .client
        .post(&format!("/api/tasks/{}/run-now", task.task_id), json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let done = wait_task(&t, &task.task_id, |task| {
        ended(task) && task["runs"].as_array().is_some_and(|r| r.len() == 2)
    })
    .await?;
    let run = last_run(&done)?;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["result"]["summary"], "Filed the bug.");
    assert!(posted(&log), "the issue was filed");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_quiet_recurring_one_call_task_waits_for_its_schedule() -> Result<()> {
    let t = TestEngine::start().await?;
    let mut call = approved(
        "Morning time check",
        "time_now",
        json!({}),
        "Checked the time.",
    );
    call.quiet = true;
    call.schedule = Some(serde_json::from_value::<Schedule>(json!({
        "type": "recurring", "frequency": "daily", "time": "07:00", "timezone": "UTC"
    }))?);
    let task = t.engine.tasks().create_approved_call(call).await?;
    assert_eq!(task.status.as_str(), "active");
    assert!(
        task.next_execution_at.is_some(),
        "its next run is worked out"
    );
    assert!(task.runs.is_empty(), "nothing runs before it is due");

    // Run now makes the call; quiet keeps "Task completed" out of the feed.
    let (status, body) = t
        .client
        .post(&format!("/api/tasks/{}/run-now", task.task_id), json!({}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let done = wait_task(&t, &task.task_id, ended).await?;
    let run = last_run(&done)?;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(done["status"], "active", "a recurring task stays active");
    stays(
        "no Task completed for a quiet run",
        Duration::from_secs(1),
        || async {
            Ok(!notification_events(&t, &task.task_id)
                .await?
                .contains(&"run_completed".to_owned()))
        },
    )
    .await?;
    t.stop().await;
    Ok(())
}
