//! Swarm tasks against the scripted model server: a swarm skips plan approval, the planner
//! splits the goal into items, helpers work on them (one failing doesn't stop the others), the
//! aggregator merges their results, and `swarm_details` follows along; helpers work side by
//! side and Cancel stops them all; a split in the wrong shape and helpers that all fail end the
//! run with an error, and run-now orchestrates the swarm again.

use anyhow::{Result, bail};
use sentient_e2e::{TestEngine, wait_chats, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

async fn engine(server: &ScriptedModel, tasks: Value) -> Result<TestEngine> {
    let t = TestEngine::start().await?;
    sentient_e2e::point_models_at(&t, server).await?;
    let (code, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0},
                   "assistant": {"timezone": "Europe/Berlin"},
                   "tasks": tasks}),
        )
        .await?;
    if code != 200 {
        bail!("config: {code} {body}");
    }
    Ok(t)
}

fn status(task: &Value) -> &str {
    task["status"].as_str().unwrap_or_default()
}

/// Creates a swarm task and waits until it has gone live (no approval asked).
async fn swarm_task(t: &TestEngine, server: &ScriptedModel, prompt: &str) -> Result<String> {
    server.push(Reply::text(
        json!({"name": "Compare cities", "description": "Compare the weather in three cities.",
               "priority": 1, "schedule": null})
        .to_string(),
    ));
    server.push(Reply::text(
        json!({"plan": [{"tool": "none", "description": "Look at each city"}]}).to_string(),
    ));
    let (code, task) = t
        .client
        .post("/api/tasks", json!({"prompt": prompt, "is_swarm": true}))
        .await?;
    assert_eq!(code, 200, "{task}");
    assert_eq!(task["task_type"], "swarm");
    let id = task["task_id"].as_str().expect("id").to_owned();
    let task = wait_task(t, &id, |t| status(t) == "pending").await?;
    assert_eq!(task["swarm_details"], Value::Null);
    Ok(id)
}

fn messages(task: &Value, run: usize) -> Vec<(String, String)> {
    task["runs"][run]["progress_updates"]
        .as_array()
        .expect("updates")
        .iter()
        .map(|u| {
            (
                u["message"]["type"].as_str().unwrap_or_default().to_owned(),
                u["message"]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_swarm_splits_the_goal_runs_helpers_and_merges_what_they_found() -> Result<()> {
    let server = ScriptedModel::start().await;
    // One helper at a time, so the scripted replies meet the helpers in item order.
    let t = engine(&server, json!({"swarm_max_agents": 1})).await?;
    let id = swarm_task(&t, &server, "Compare the weather in Paris, Rome and Oslo").await?;

    server.push(Reply::text(
        "Here you go: {\"items\": [\"Paris\", \"Rome\", \"Oslo\"]}",
    ));
    server.push(Reply::text("Paris: sunny, 24°C."));
    server.push(Reply::error(400).message("The helper broke."));
    server.push(Reply::text("Oslo: snow, -3°C."));
    server.push(Reply::text(
        "Paris is sunny at 24°C and Oslo has snow at -3°C; Rome could not be checked.",
    ));
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!((code, status(&task)), (200, "processing"));

    let task = wait_task(&t, &id, |t| status(t) == "completed_with_errors").await?;
    let run = &task["runs"][0];
    assert_eq!(run["status"], "completed_with_errors");
    assert_eq!(
        run["result"]["summary"],
        "Paris is sunny at 24°C and Oslo has snow at -3°C; Rome could not be checked."
    );
    assert_eq!(run["error"], "1 of 3 helpers failed.");

    let details = &task["swarm_details"];
    assert_eq!(details["goal"], "Compare the weather in three cities.");
    assert_eq!(details["items"], json!(["Paris", "Rome", "Oslo"]));
    assert_eq!(details["total_agents"], 3);
    assert_eq!(details["completed_agents"], 3);
    let results = details["aggregated_results"].as_array().expect("results");
    let summary: Vec<(&str, &str)> = results
        .iter()
        .map(|r| {
            (
                r["item"].as_str().unwrap_or_default(),
                r["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("Paris", "completed"),
            ("Rome", "error"),
            ("Oslo", "completed")
        ]
    );
    assert_eq!(results[0]["result"], "Paris: sunny, 24°C.");
    assert!(
        results[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("The helper broke.")),
        "{results:?}"
    );
    let updates: Vec<(&str, &str)> = details["progress_updates"]
        .as_array()
        .expect("updates")
        .iter()
        .map(|u| {
            assert!(u["timestamp"].is_string() && u["message"].is_string());
            (
                u["worker_id"].as_str().unwrap_or_default(),
                u["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        updates,
        [
            ("agent-1", "processing"),
            ("agent-1", "completed"),
            ("agent-2", "processing"),
            ("agent-2", "error"),
            ("agent-3", "processing"),
            ("agent-3", "completed"),
            ("aggregator", "aggregating"),
            ("aggregator", "completed"),
        ]
    );

    let lines = messages(&task, 0);
    let kinds: Vec<&str> = lines.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "info",
            "info",
            "info",
            "error",
            "info",
            "info",
            "final_answer"
        ]
    );
    assert_eq!(
        lines[1].1,
        "Split into 3 parts; up to 1 helper work at a time."
    );
    assert_eq!(lines[2].1, "agent-1 finished: Paris");
    assert!(lines[3].1.starts_with("agent-2 failed on Rome: "));
    assert_eq!(lines[5].1, "Putting together the results of 2 helpers.");

    // Who was asked what: the planner split, each helper its own item, then the aggregator.
    let chats = server.requests_to("/api/chat");
    assert_eq!(chats.len(), 2 + 1 + 3 + 1);
    let said = |i: usize, m: usize| {
        chats[i].body["messages"][m]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(said(2, 0).contains("\"items\""));
    assert!(said(2, 1).contains("Paris, Rome and Oslo"));
    for (i, item) in [(3, "Paris"), (4, "Rome"), (5, "Oslo")] {
        assert!(
            said(i, 1).contains(&format!("Your part: {item}")),
            "{}",
            said(i, 1)
        );
    }
    // Helpers get tools; the aggregator is one plain call with every part.
    assert!(
        chats[3].body["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let merge = said(6, 1);
    assert!(
        merge.contains("## Part 1: Paris\nParis: sunny, 24°C."),
        "{merge}"
    );
    assert!(
        merge.contains("## Part 2: Rome\n(This part failed: "),
        "{merge}"
    );
    assert!(chats[6].body["tools"].as_array().is_none_or(Vec::is_empty));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn helpers_work_side_by_side_and_cancel_stops_them_all() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server, json!({"swarm_max_agents": 3})).await?;
    // Without the local queue the three helpers' calls really are in flight together.
    t.client
        .patch("/api/config", json!({"models": {"local_queue": false}}))
        .await?;
    let id = swarm_task(&t, &server, "Compare the weather in Paris, Rome and Oslo").await?;
    server.push(Reply::text(
        json!({"items": ["Paris", "Rome", "Oslo"]}).to_string(),
    ));
    for _ in 0..3 {
        server.push(Reply::stall_after(1));
    }
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!((code, status(&task)), (200, "processing"));
    let run_id = task["runs"][0]["run_id"].as_str().expect("run").to_owned();
    wait_chats(&server, 2 + 1 + 3).await?;
    let task = wait_task(&t, &id, |t| {
        t["swarm_details"]["progress_updates"]
            .as_array()
            .is_some_and(|u| u.len() == 3)
    })
    .await?;
    assert_eq!(task["swarm_details"]["completed_agents"], 0);

    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/runs/{run_id}/cancel"), json!({}))
        .await?;
    assert_eq!(code, 200, "{task}");
    assert_eq!(task["runs"][0]["status"], "cancelled");
    assert_eq!(status(&task), "cancelled");
    let lines = messages(&task, 0);
    assert_eq!(lines.last().map(|(_, c)| c.as_str()), Some("Cancelled."));
    // Nobody merged anything, and no helper is still talking to the model.
    assert_eq!(task["runs"][0]["result"], Value::Null);
    assert_eq!(server.requests_to("/api/chat").len(), 6);
    assert_eq!(task["swarm_details"]["completed_agents"], 0);
    sentient_e2e::eventually("three helpers to hang up", || async {
        Ok((server.disconnects() >= 3).then_some(()))
    })
    .await?;
    assert_eq!(server.disconnects(), 3);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_bad_split_or_every_helper_failing_ends_in_error_and_run_now_tries_again() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server, json!({"swarm_max_agents": 2})).await?;
    let id = swarm_task(&t, &server, "Compare the weather in Paris and Rome").await?;

    server.push(Reply::text("I would rather not split this."));
    let (code, _) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!(code, 200);
    let task = wait_task(&t, &id, |t| status(t) == "error").await?;
    let wrong_shape = "The planner model didn't split the goal into a list of parts. Try again, or pick another planner model in Settings > Models.";
    assert_eq!(task["runs"][0]["status"], "error");
    assert_eq!(task["runs"][0]["error"], wrong_shape);
    assert_eq!(task["error"], wrong_shape);
    assert_eq!(task["swarm_details"], Value::Null);

    // Run now orchestrates the swarm again, from a new split.
    server.push(Reply::text(json!({"items": ["Paris", "Rome"]}).to_string()));
    server.push(Reply::error(400).message("No more today."));
    server.push(Reply::error(400).message("No more today."));
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!((code, status(&task)), (200, "processing"));
    let task = wait_task(&t, &id, |t| {
        status(t) == "error" && t["runs"].as_array().is_some_and(|r| r.len() == 2)
    })
    .await?;
    let run = &task["runs"][1];
    assert_eq!(run["status"], "error");
    assert!(
        run["error"].as_str().is_some_and(|e| e.starts_with(
            "Every helper failed, so there was nothing to put together. The first error: "
        ) && e.contains("No more today.")),
        "{run}"
    );
    let details = &task["swarm_details"];
    assert_eq!(details["items"], json!(["Paris", "Rome"]));
    assert_eq!(details["completed_agents"], 2);
    assert!(
        details["aggregated_results"]
            .as_array()
            .is_some_and(|r| r.iter().all(|r| r["status"] == "error"))
    );
    // No aggregator call was made: the planning pair, two splits and two helpers.
    assert_eq!(server.requests_to("/api/chat").len(), 2 + 1 + 1 + 2);
    t.stop().await;
    Ok(())
}
