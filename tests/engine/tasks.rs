//! Tasks against the scripted model server: planning (refinement, then a plan or questions),
//! approval, the scheduler starting a run, the run going through the agent loop with its
//! progress log and result, change requests, cancel and Stop everything, catch-up, and every
//! route's errors.

use anyhow::Result;
use sentient_e2e::{TestEngine, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

async fn engine(server: &ScriptedModel) -> Result<TestEngine> {
    sentient_e2e::task_engine(server, "Europe/Berlin").await
}

fn refinement(name: &str, schedule: Value) -> Reply {
    Reply::text(
        json!({"name": name, "description": format!("{name}, please."), "priority": 1, "schedule": schedule})
            .to_string(),
    )
}

fn plan(steps: &[(&str, &str)]) -> Reply {
    let steps: Vec<Value> = steps
        .iter()
        .map(|(tool, description)| json!({"tool": tool, "description": description}))
        .collect();
    Reply::text(json!({ "plan": steps }).to_string())
}

fn status(task: &Value) -> &str {
    task["status"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_task_is_planned_approved_run_and_its_result_kept() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let mut ws = t.ws().await?;
    server.push(refinement("Shopping note", Value::Null));
    server.push(plan(&[("files_write", "Write the list to a file")]));
    let (code, task) = t
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "Write my shopping list: milk"}),
        )
        .await?;
    assert_eq!(code, 200, "{task}");
    assert_eq!(task["status"], "planning");
    let id = task["task_id"].as_str().expect("id").to_owned();

    let task = wait_task(&t, &id, |t| status(t) == "approval_pending").await?;
    assert_eq!(task["name"], "Shopping note");
    assert_eq!(
        task["plan"],
        json!([{"tool": "files_write", "description": "Write the list to a file"}])
    );
    assert_eq!(task["schedule"], Value::Null);
    // The planner was told the tools and the person's words.
    let planning = &server.requests_to("/api/chat")[1].body["messages"];
    assert!(
        planning[0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("files_write"))
    );
    assert!(
        planning[1]["content"]
            .as_str()
            .is_some_and(|c| c.contains("milk"))
    );
    // Windows hear every change.
    loop {
        let event = ws.wait_for("task.updated").await?;
        if event["data"]["status"] == "approval_pending" {
            break;
        }
    }

    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    assert_eq!(code, 200);
    assert_eq!(task["status"], "pending");
    assert!(task["next_execution_at"].is_string());
    let (code, again) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    assert_eq!(code, 409, "{again}");

    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/list.txt", "content": "milk"}),
    ));
    server.push(Reply::text("I wrote your list."));
    // It used a tool but never kept the brief: one reminder, then the answer again.
    server.push(Reply::tool_call(
        "task_brief_update",
        json!({"goal": "Keep the shopping list", "done": "Wrote outputs/list.txt"}),
    ));
    // The final answer ends with the result block the kickoff asks for.
    server.push(Reply::text(
        "I wrote your list to outputs/list.txt.\n\n```json\n{\"links_created\": [{\"url\": \"https://lists.example/milk\", \"description\": \"The shared list\"}]}\n```",
    ));
    let started = t
        .engine
        .tasks()
        .scheduler_tick(t.engine.services().clock().now())
        .await
        .map_err(|e| anyhow::anyhow!(e.message()))?;
    assert_eq!(started.len(), 1);
    // A second tick finds nothing: the task was claimed once.
    let again = t
        .engine
        .tasks()
        .scheduler_tick(t.engine.services().clock().now())
        .await
        .map_err(|e| anyhow::anyhow!(e.message()))?;
    assert!(again.is_empty());

    let task = wait_task(&t, &id, |t| status(t) == "completed").await?;
    let run = &task["runs"][0];
    assert_eq!(run["run_id"], started[0].as_str());
    assert_eq!(run["status"], "completed");
    assert_eq!(
        run["result"]["summary"],
        "I wrote your list to outputs/list.txt."
    );
    assert_eq!(run["result"]["tools_used"], json!(["files"]));
    assert_eq!(
        run["result"]["files_created"][0]["filename"],
        "outputs/list.txt"
    );
    assert_eq!(
        run["result"]["links_created"],
        json!([{"url": "https://lists.example/milk", "description": "The shared list"}])
    );
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/list.txt"))?,
        "milk"
    );
    let kinds: Vec<&str> = run["progress_updates"]
        .as_array()
        .expect("updates")
        .iter()
        .filter_map(|u| u["message"]["type"].as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "info",
            "tool_call",
            "tool_result",
            "info",
            "tool_call",
            "tool_result",
            "final_answer"
        ]
    );
    assert_eq!(run["brief_updated"], true);
    assert_eq!(task["brief"]["done"], "Wrote outputs/list.txt");
    // The brief tool is not a tool used.
    assert_eq!(run["result"]["tools_used"], json!(["files"]));
    let reminded = &server.requests_to("/api/chat")[4].body["messages"];
    assert!(
        reminded
            .to_string()
            .contains("Before you finish: update this task's brief")
    );
    let (code, events) = t
        .client
        .get(&format!("/api/tasks/{id}/runs/{}/events", started[0]))
        .await?;
    assert_eq!(code, 200);
    assert_eq!(&events, &run["progress_updates"]);
    // The executor read the plan in its kickoff.
    let kickoff = &server.requests_to("/api/chat")[2].body["messages"][1]["content"];
    assert!(
        kickoff
            .as_str()
            .is_some_and(|c| c.contains("1. Write the list to a file (files_write)"))
    );

    // Errors, each with its status and a plain detail; none changes anything.
    let (code, body) = t
        .client
        .post(
            &format!("/api/tasks/{id}/runs/{}/cancel", started[0]),
            json!({}),
        )
        .await?;
    assert_eq!(code, 409, "{body}");
    let (code, _) = t.client.get("/api/tasks/nope").await?;
    assert_eq!(code, 404);
    let (code, _) = t
        .client
        .get(&format!("/api/tasks/{id}/runs/nope/events"))
        .await?;
    assert_eq!(code, 404);
    let (code, body) = t.client.post("/api/tasks", json!({"prompt": "  "})).await?;
    assert_eq!(code, 400);
    assert!(body["detail"].as_str().is_some_and(|d| d.contains("empty")));
    for bad in [
        json!({"status": "sleeping"}),
        json!({"deliver_to": "email"}),
        json!({"browser_profile": "nope"}),
        json!({"schedule": {"type": "recurring", "frequency": "daily", "time": "25:99"}}),
        json!({"name": " "}),
    ] {
        let (code, body) = t
            .client
            .patch(&format!("/api/tasks/{id}"), bad.clone())
            .await?;
        assert_eq!(code, 400, "{bad} → {body}");
        assert!(body["detail"].is_string());
    }
    let (code, _) = t
        .client
        .patch(&format!("/api/tasks/{id}"), json!({"colour": "red"}))
        .await?;
    assert_eq!(code, 422);
    let (_, unchanged) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(unchanged["name"], "Shopping note");
    assert_eq!(unchanged["deliver_to"], "default");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn questions_change_requests_decline_and_delete() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let mut ws = t.ws().await?;
    server.push(refinement("Weather report", Value::Null));
    server.push(Reply::text(
        json!({"clarifying_questions": ["Which city?"]}).to_string(),
    ));
    let (_, task) = t
        .client
        .post("/api/tasks", json!({"prompt": "Tell me the weather"}))
        .await?;
    let id = task["task_id"].as_str().expect("id").to_owned();
    let task = wait_task(&t, &id, |t| status(t) == "clarification_pending").await?;
    assert_eq!(
        task["clarifying_questions"],
        json!([{"question_id": "q1", "text": "Which city?", "answer": null}])
    );
    // Approving needs a plan; change requests wait for the answers.
    let (code, _) = t
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    assert_eq!(code, 409);
    let (code, _) = t
        .client
        .post(
            &format!("/api/tasks/{id}/clarifications"),
            json!({"answers": [{"question_id": "q1", "answer_text": " "}]}),
        )
        .await?;
    assert_eq!(code, 400);

    server.push(plan(&[(
        "internet_search",
        "Look up the weather in Berlin",
    )]));
    let (code, task) = t
        .client
        .post(
            &format!("/api/tasks/{id}/clarifications"),
            json!({"answers": [{"question_id": "q1", "answer_text": "Berlin"}]}),
        )
        .await?;
    assert_eq!(code, 200);
    assert_eq!(task["clarifying_questions"][0]["answer"], "Berlin");
    let task = wait_task(&t, &id, |t| status(t) == "approval_pending").await?;
    assert_eq!(task["plan"][0]["tool"], "internet_search");
    let asked = &server.requests_to("/api/chat")[2].body["messages"][1]["content"];
    assert!(
        asked
            .as_str()
            .is_some_and(|c| c.contains("Q: Which city?\nA: Berlin")),
        "{asked}"
    );
    // Refinement ran once: answers only plan again.
    assert_eq!(server.requests_to("/api/chat").len(), 3);

    server.push(plan(&[(
        "internet_search",
        "Look up the weather in Berlin and Paris",
    )]));
    let (code, _) = t
        .client
        .post(
            &format!("/api/tasks/{id}/chat"),
            json!({"message": "Add Paris too"}),
        )
        .await?;
    assert_eq!(code, 200);
    let task = wait_task(&t, &id, |t| {
        status(t) == "approval_pending"
            && t["chat_history"].as_array().is_some_and(|h| h.len() == 2)
    })
    .await?;
    assert_eq!(
        task["plan"][0]["description"],
        "Look up the weather in Berlin and Paris"
    );
    assert_eq!(task["chat_history"][0]["role"], "user");
    assert_eq!(task["chat_history"][0]["content"], "Add Paris too");
    assert_eq!(task["chat_history"][1]["role"], "assistant");
    let (code, _) = t
        .client
        .post(&format!("/api/tasks/{id}/chat"), json!({"message": ""}))
        .await?;
    assert_eq!(code, 400);

    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/decline"), json!({}))
        .await?;
    assert_eq!((code, status(&task)), (200, "declined"));
    let (code, _) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!(code, 409);
    let (code, _) = t
        .client
        .request(reqwest::Method::DELETE, &format!("/api/tasks/{id}"))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))?;
    assert_eq!(code, 200);
    let deleted = ws.wait_for("task.deleted").await?;
    assert_eq!(deleted["data"], json!({"task_id": id}));
    let (code, _) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(code, 404);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn recurring_tasks_go_live_run_now_cancel_and_stop() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    t.client
        .patch(
            "/api/config",
            json!({"tasks": {"require_plan_approval": false}}),
        )
        .await?;
    server.push(refinement(
        "Morning headlines",
        json!({"type": "recurring", "frequency": "daily", "time": "7:30"}),
    ));
    server.push(plan(&[("internet_search", "Find three headlines")]));
    let (_, task) = t
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "Every morning at 7:30 give me three headlines"}),
        )
        .await?;
    let id = task["task_id"].as_str().expect("id").to_owned();
    // Without plan approval it goes straight to active, due at the next 07:30 in Berlin.
    let task = wait_task(&t, &id, |t| status(t) == "active").await?;
    assert_eq!(task["schedule"]["time"], "07:30");
    assert_eq!(task["schedule"]["timezone"], "Europe/Berlin");
    let next = task["next_execution_at"].as_str().expect("next time");
    let next: chrono::DateTime<chrono_tz::Tz> =
        chrono::DateTime::parse_from_rfc3339(next)?.with_timezone(&chrono_tz::Europe::Berlin);
    assert_eq!(next.format("%H:%M").to_string(), "07:30");

    // Run now, then Cancel: the run ends cancelled and the task stays active.
    server.push(Reply::text("Looking at the news sites now and reading").stalls_after(2));
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    assert_eq!((code, status(&task)), (200, "processing"));
    let run_id = task["runs"][0]["run_id"].as_str().expect("run").to_owned();
    server.wait_for_requests(3).await;
    let (code, task) = t
        .client
        .post(&format!("/api/tasks/{id}/runs/{run_id}/cancel"), json!({}))
        .await?;
    assert_eq!(code, 200);
    assert_eq!(task["runs"][0]["status"], "cancelled");
    assert_eq!(status(&task), "active");
    assert!(task["next_execution_at"].is_string());

    // Stop everything cancels a working run and says so in its log.
    server.push(Reply::text("Reading the first site, slowly").stalls_after(2));
    let (_, task) = t
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    let second = task["runs"][1]["run_id"].as_str().expect("run").to_owned();
    server.wait_for_requests(4).await;
    let (code, _) = t
        .client
        .post("/api/stop-all", json!({"source": "desktop"}))
        .await?;
    assert_eq!(code, 200);
    let task = wait_task(&t, &id, |t| t["runs"][1]["status"] == "cancelled").await?;
    let said: Vec<&str> = task["runs"][1]["progress_updates"]
        .as_array()
        .expect("updates")
        .iter()
        .filter_map(|u| u["message"]["content"].as_str())
        .collect();
    assert!(
        said.contains(&"Run stopped by Stop everything."),
        "{said:?}"
    );
    assert_eq!(task["runs"][1]["run_id"], second.as_str());
    // While stopped the scheduler claims nothing.
    let later = t.engine.services().clock().now() + chrono::Duration::days(2);
    let started = t
        .engine
        .tasks()
        .scheduler_tick(later)
        .await
        .map_err(|e| anyhow::anyhow!(e.message()))?;
    assert!(started.is_empty());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_one_off_task_missed_long_ago_is_skipped_with_a_reason() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(refinement("Old reminder", Value::Null));
    server.push(plan(&[("time_now", "Check the time")]));
    let (_, task) = t
        .client
        .post("/api/tasks", json!({"prompt": "Remind me"}))
        .await?;
    let id = task["task_id"].as_str().expect("id").to_owned();
    wait_task(&t, &id, |t| status(t) == "approval_pending").await?;
    let (code, task) = t
        .client
        .patch(
            &format!("/api/tasks/{id}"),
            json!({"schedule": {"type": "once", "run_at": "2020-01-01T09:00"}}),
        )
        .await?;
    assert_eq!(code, 200, "{task}");
    t.client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    let started = t
        .engine
        .tasks()
        .scheduler_tick(t.engine.services().clock().now())
        .await
        .map_err(|e| anyhow::anyhow!(e.message()))?;
    assert!(started.is_empty());
    let (_, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    assert_eq!(status(&task), "error");
    assert_eq!(
        task["error"],
        "Skipped: it was due Jan 1, 09:00, while the computer was off or asleep. Choose Run now if you still want it."
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn preview_refines_without_saving() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    server.push(refinement("Water the plants", json!({"type": "recurring", "frequency": "weekly", "days": ["mon", "Friday"], "time": "18:00"})));
    let (code, preview) = t
        .client
        .post(
            "/api/tasks/preview",
            json!({"prompt": "Remind me to water the plants on Mondays and Fridays at 6pm"}),
        )
        .await?;
    assert_eq!(code, 200, "{preview}");
    assert_eq!(preview["name"], "Water the plants");
    assert_eq!(preview["schedule"]["days"], json!(["Monday", "Friday"]));
    server.push(Reply::text("Sure! I can help with that."));
    let (code, body) = t
        .client
        .post("/api/tasks/preview", json!({"prompt": "something"}))
        .await?;
    assert_eq!(code, 502, "{body}");
    let (code, _) = t
        .client
        .post("/api/tasks/preview", json!({"prompt": ""}))
        .await?;
    assert_eq!(code, 400);
    let (_, tasks) = t.client.get("/api/tasks").await?;
    assert_eq!(tasks, json!([]));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn preview_reads_the_schedule_from_the_words_even_when_the_model_is_wrong_or_down()
-> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    // The model names the task but gets the schedule wrong: the words win.
    server.push(refinement(
        "Morning news",
        json!({"type": "recurring", "frequency": "daily", "time": "07:00"}),
    ));
    let (code, preview) = t
        .client
        .post(
            "/api/tasks/preview",
            json!({"prompt": "Every weekday at 9 send me the top news"}),
        )
        .await?;
    assert_eq!(code, 200, "{preview}");
    assert_eq!(preview["name"], "Morning news");
    assert_eq!(preview["model_error"], Value::Null, "the model answered");
    assert_eq!(preview["schedule"]["frequency"], "weekly", "{preview}");
    assert_eq!(
        preview["schedule"]["days"],
        json!(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"])
    );
    assert_eq!(preview["schedule"]["time"], "09:00");
    // The model is down: the words alone give the schedule and a short title.
    server.push(Reply::error(503));
    let (code, preview) = t
        .client
        .post(
            "/api/tasks/preview",
            json!({"prompt": "Remind me to call mom tomorrow at 6pm"}),
        )
        .await?;
    assert_eq!(code, 200, "{preview}");
    assert_eq!(preview["name"], "Remind me to call mom");
    // The window warns before Create: planning needs the model that didn't answer.
    assert!(
        preview["model_error"]
            .as_str()
            .is_some_and(|e| !e.is_empty()),
        "{preview}"
    );
    assert_eq!(
        preview["description"],
        "Remind me to call mom tomorrow at 6pm"
    );
    assert_eq!(preview["schedule"]["type"], "once");
    // The engine's time zone here is Europe/Berlin.
    let tomorrow = (chrono::Utc::now().with_timezone(&chrono_tz::Europe::Berlin)
        + chrono::Duration::days(1))
    .format("%Y-%m-%dT18:00")
    .to_string();
    assert_eq!(preview["schedule"]["timezone"], "Europe/Berlin");
    assert_eq!(
        preview["schedule"]["run_at"],
        tomorrow.as_str(),
        "{preview}"
    );
    // Words with no schedule in them still need the model.
    server.push(Reply::error(503));
    let (code, body) = t
        .client
        .post(
            "/api/tasks/preview",
            json!({"prompt": "Summarise the news"}),
        )
        .await?;
    assert_ne!(code, 200, "{body}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_tasks_app_creates_finds_reads_and_changes_tasks_for_chat() -> Result<()> {
    let server = ScriptedModel::start().await;
    let t = engine(&server).await?;
    let call = |name: &'static str, args: Value| {
        let engine = t.engine.clone();
        async move {
            let ctx = engine.services().agent().tool_ctx("call_1");
            engine
                .services()
                .tools()
                .invoke(name, args, &ctx, 16_000)
                .await
        }
    };
    server.push(refinement(
        "Monday news",
        json!({"type": "recurring", "frequency": "weekly", "days": ["Monday"], "time": "09:00"}),
    ));
    server.push(plan(&[("internet_search", "Find the news")]));
    let created = call(
        "create_task_from_prompt",
        json!({"prompt": "Every Monday at 9 send me the news"}),
    )
    .await;
    assert!(!created.is_error, "{}", created.content);
    let id = created.value["task_id"].as_str().expect("id").to_owned();
    assert_eq!(created.value["status"], "planning");
    wait_task(&t, &id, |t| status(t) == "approval_pending").await?;

    let found = call("search_tasks", json!({"query": "NEWS"})).await;
    assert_eq!(found.value["tasks"][0]["task_id"], id.as_str());
    assert_eq!(found.value["tasks"][0]["schedule"], "Every Monday at 09:00");
    let none = call("search_tasks", json!({"query": "news", "status": "active"})).await;
    assert_eq!(none.value["tasks"], json!([]));
    let read = call("get_task_status", json!({"task_id": id})).await;
    assert_eq!(read.value["plan"][0]["description"], "Find the news");
    assert_eq!(read.value["status"], "approval_pending");

    let paused = call("update_task", json!({"task_id": id, "enabled": false})).await;
    assert_eq!(paused.value["enabled"], false);
    let missing = call("update_task", json!({"task_id": "nope", "name": "x"})).await;
    assert!(missing.is_error);
    assert!(
        missing
            .content
            .contains("There is no task with the id nope."),
        "{}",
        missing.content
    );

    server.push(plan(&[(
        "internet_search",
        "Find the news and the sports results",
    )]));
    let changed = call(
        "request_task_change",
        json!({"task_id": id, "message": "Add the sports results"}),
    )
    .await;
    // Planning starts at once and may already be done when the tool answers.
    assert!(
        ["planning", "approval_pending"]
            .contains(&changed.value["status"].as_str().unwrap_or_default()),
        "{}",
        changed.content
    );
    let task = wait_task(&t, &id, |t| {
        status(t) == "approval_pending"
            && t["chat_history"].as_array().is_some_and(|h| h.len() == 2)
    })
    .await?;
    assert_eq!(
        task["plan"][0]["description"],
        "Find the news and the sports results"
    );
    t.stop().await;
    Ok(())
}
