//! The task scheduler with a clock the tests move: next times across time zones and a DST
//! change, missed runs and their one catch-up notification (after sleep, after Sentient was
//! off, after Resume), bounded concurrency, claims that hold when two engines share one
//! database, and a run that survives the engine being killed.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use chrono::{DateTime, Utc};
use sentient_e2e::sentient_engine::clock::{ManualClock, SharedClock};
use sentient_e2e::sentient_engine::tasks::model::TaskStatus;
use sentient_e2e::sentient_engine::tasks::schedule::parse_schedule;
use sentient_e2e::sentient_engine::tasks::store::TaskRecord;
use sentient_e2e::{ServedEngine, TestEngine, wait_chats, wait_task};
use sentient_model_server::{Reply, ScriptedModel};
use serde_json::{Value, json};

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .expect("valid time")
}

fn api(e: impl Into<sentient_e2e::sentient_engine::error::ApiError>) -> anyhow::Error {
    anyhow::anyhow!(e.into().message())
}

/// An engine on `clock` whose models are the scripted server, with `max_runs` slots. Its first
/// scheduler tick (the one after start) has happened when this returns.
async fn engine_on(
    server: &ScriptedModel,
    clock: &ManualClock,
    home: Option<&Path>,
    max_runs: u32,
) -> Result<TestEngine> {
    let shared: SharedClock = Arc::new(clock.clone());
    let t = match home {
        Some(home) => TestEngine::start_in_with_clock(home, Some(shared)).await?,
        None => TestEngine::start_with_clock(shared).await?,
    };
    sentient_e2e::point_models_at(&t, server).await?;
    let (code, body) = t
        .client
        .patch(
            "/api/config",
            json!({"models": {"primary": "ollama_chat/qwen3:8b", "background_quiet_s": 0},
                   "assistant": {"timezone": "UTC"},
                   "tasks": {"max_concurrent_runs": max_runs}}),
        )
        .await?;
    ensure!(code == 200, "{body}");
    // Ticks never overlap, so once this returns the start tick is behind us.
    t.engine
        .tasks()
        .scheduler_tick(clock.now_utc())
        .await
        .map_err(api)?;
    Ok(t)
}

trait Now {
    fn now_utc(&self) -> DateTime<Utc>;
}
impl Now for ManualClock {
    fn now_utc(&self) -> DateTime<Utc> {
        sentient_e2e::sentient_engine::clock::Clock::now(self)
    }
}

/// Saves a live task straight into the store: `schedule` as the API would normalise it,
/// due at `next`.
pub(crate) async fn insert(
    t: &TestEngine,
    name: &str,
    schedule: Option<Value>,
    status: TaskStatus,
    next: Option<DateTime<Utc>>,
) -> Result<String> {
    let now = t.engine.services().clock().now();
    let schedule = schedule
        .map(|s| parse_schedule(&s, "UTC"))
        .transpose()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let task_id = format!(
        "{}-{}",
        name.to_lowercase()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
        rand_suffix()
    );
    let task = sentient_e2e::task_row(task_id, name, schedule, status, next, now);
    let id = task.task_id.clone();
    t.engine
        .tasks()
        .store()
        .insert(&TaskRecord {
            task,
            prompt: name.to_owned(),
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(id)
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    N.fetch_add(1, Ordering::Relaxed).to_string()
}

async fn task(t: &TestEngine, id: &str) -> Result<Value> {
    let (code, task) = t.client.get(&format!("/api/tasks/{id}")).await?;
    ensure!(code == 200, "{task}");
    Ok(task)
}

fn runs(task: &Value) -> usize {
    task["runs"].as_array().map_or(0, Vec::len)
}

fn next_at(task: &Value) -> Option<DateTime<Utc>> {
    task["next_execution_at"].as_str().map(at)
}

/// The catch-up notifications, oldest first.
async fn catch_ups(t: &TestEngine) -> Result<Vec<Value>> {
    let (code, list) = t.client.get("/api/notifications").await?;
    ensure!(code == 200, "{list}");
    let mut found: Vec<Value> = list["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n["payload"]["event"] == "caught_up")
        .collect();
    found.reverse();
    Ok(found)
}

async fn wait_catch_up(t: &TestEngine) -> Result<Value> {
    sentient_e2e::eventually("a catch-up notification", || async {
        Ok(catch_ups(t).await?.pop())
    })
    .await
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .map(|l| l.iter().filter_map(|e| e["name"].as_str()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn next_times_follow_time_zones_and_the_dst_change() -> Result<()> {
    let server = ScriptedModel::start().await;
    // Saturday noon; Berlin moves its clocks from 02:00 to 03:00 tomorrow morning.
    let clock = ManualClock::new(at("2026-03-28T12:00:00Z"));
    let t = engine_on(&server, &clock, None, 4).await?;
    let cases = [
        // Tomorrow's 02:30 doesn't exist in Berlin: it runs at the jump, 03:00 CEST.
        ("Europe/Berlin", "02:30", "2026-03-29T01:00:00Z"),
        // Today's 09:00 CET has passed; tomorrow's is 09:00 CEST, an hour earlier in UTC.
        ("Europe/Berlin", "09:00", "2026-03-29T07:00:00Z"),
        // New York has been on EDT since March 8: today, 13:00 UTC.
        ("America/New_York", "09:00", "2026-03-28T13:00:00Z"),
        // Kolkata has no DST, +05:30: today's has passed.
        ("Asia/Kolkata", "09:00", "2026-03-29T03:30:00Z"),
    ];
    let mut ids = Vec::new();
    for (zone, time, expected) in cases {
        let id = insert(
            &t,
            &format!("At {time} in {zone}"),
            None,
            TaskStatus::ApprovalPending,
            None,
        )
        .await?;
        let (code, body) = t
            .client
            .patch(
                &format!("/api/tasks/{id}"),
                json!({"schedule": {"type": "recurring", "frequency": "daily", "time": time, "timezone": zone}}),
            )
            .await?;
        ensure!(code == 200, "{body}");
        let (code, body) = t
            .client
            .post(&format!("/api/tasks/{id}/approve"), json!({}))
            .await?;
        ensure!(code == 200, "{body}");
        assert_eq!(body["status"], "active", "{body}");
        assert_eq!(next_at(&body), Some(at(expected)), "{zone} {time}: {body}");
        ids.push(id);
    }

    // The clock reaches Berlin's 09:00 CEST: the task runs on time and its next time is the
    // following day's 09:00 CEST, computed from now.
    clock.set(at("2026-03-29T07:00:20Z"));
    server.push(Reply::text("It is nine."));
    server.push(Reply::text("It is nine."));
    server.push(Reply::text("It is nine."));
    let started = t
        .engine
        .tasks()
        .scheduler_tick(clock.now_utc())
        .await
        .map_err(api)?;
    // 02:30 Berlin (01:00Z) and 09:00 Kolkata (03:30Z) are also due, hours late: auto catch-up
    // runs them once; New York's 13:00Z of the 28th is 18 h late, beyond the 12 h window.
    assert_eq!(started.len(), 3, "{started:?}");
    let berlin = wait_task(&t, &ids[1], |t| runs(t) == 1).await?;
    assert_eq!(
        next_at(&berlin),
        Some(at("2026-03-30T07:00:00Z")),
        "{berlin}"
    );
    let new_york = task(&t, &ids[2]).await?;
    assert_eq!(runs(&new_york), 0);
    assert_eq!(next_at(&new_york), Some(at("2026-03-29T13:00:00Z")));
    assert_eq!(new_york["status"], "active");
    let notice = wait_catch_up(&t).await?;
    // The clock jumped 19 hours between ticks: that is sleep.
    assert_eq!(notice["title"], "Caught up after sleep: ran 2, skipped 1");
    assert_eq!(
        names(&notice["payload"]["ran"]),
        ["At 02:30 in Europe/Berlin", "At 09:00 in Asia/Kolkata"]
    );
    assert_eq!(
        names(&notice["payload"]["skipped"]),
        ["At 09:00 in America/New_York"]
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn missed_runs_follow_their_catch_up_rule_and_send_one_notice() -> Result<()> {
    let server = ScriptedModel::start().await;
    let clock = ManualClock::new(at("2026-09-14T08:00:00Z"));
    let t = engine_on(&server, &clock, None, 16).await?;
    // The computer sleeps for a day and a half.
    clock.set(at("2026-09-15T20:00:00Z"));
    let now = clock.now_utc();
    let h = chrono::Duration::hours;
    let daily = json!({"type": "recurring", "frequency": "daily", "time": "09:00"});
    let daily_skip =
        json!({"type": "recurring", "frequency": "daily", "time": "09:00", "catch_up": "skip"});
    let hourly = json!({"type": "recurring", "frequency": "interval", "interval_minutes": 60});
    let hourly_skip = json!({"type": "recurring", "frequency": "interval", "interval_minutes": 60, "catch_up": "skip"});
    let once_run = json!({"type": "once", "run_at": "2026-09-14T14:00", "catch_up": "run"});
    let once = json!({"type": "once", "run_at": "2026-09-15T01:00"});
    let c = insert(
        &t,
        "C",
        Some(once_run),
        TaskStatus::Pending,
        Some(now - h(30)),
    )
    .await?;
    let b = insert(
        &t,
        "B",
        Some(daily.clone()),
        TaskStatus::Active,
        Some(now - h(20)),
    )
    .await?;
    let g = insert(&t, "G", Some(once), TaskStatus::Pending, Some(now - h(19))).await?;
    let e = insert(&t, "E", Some(hourly), TaskStatus::Active, Some(now - h(3))).await?;
    let f = insert(
        &t,
        "F",
        Some(hourly_skip),
        TaskStatus::Active,
        Some(now - h(2) - chrono::Duration::minutes(30)),
    )
    .await?;
    let a = insert(&t, "A", Some(daily), TaskStatus::Active, Some(now - h(2))).await?;
    let d = insert(
        &t,
        "D",
        Some(daily_skip),
        TaskStatus::Active,
        Some(now - h(1)),
    )
    .await?;
    let on_time = insert(
        &t,
        "On time",
        Some(json!({"type": "recurring", "frequency": "daily", "time": "19:58"})),
        TaskStatus::Active,
        Some(now - chrono::Duration::minutes(2)),
    )
    .await?;
    for _ in 0..4 {
        server.push(Reply::text("Done."));
    }
    let started = t.engine.tasks().scheduler_tick(now).await.map_err(api)?;
    assert_eq!(started.len(), 4, "C, E, A and the on-time task run");

    // auto within the window and "run" ran once; auto beyond the window, "skip" and a
    // skipped interval check did not; the quiet interval run and the on-time run are not listed.
    let notices = catch_ups(&t).await?;
    assert_eq!(
        notices.len(),
        1,
        "one notification per catch-up: {notices:#?}"
    );
    let notice = &notices[0];
    assert_eq!(notice["kind"], "task");
    assert_eq!(notice["title"], "Caught up after sleep: ran 2, skipped 4");
    assert_eq!(
        notice["message"],
        "Ran once now: 'C', 'A'. Skipped: 'B', 'G', 'F', 'D'. Open one and choose Run now if you still want it."
    );
    let payload = &notice["payload"];
    assert_eq!(payload["reason"], "sleep");
    assert_eq!(payload["ran"][0]["task_id"], c.as_str());
    assert_eq!(
        payload["ran"][0]["due_at"].as_str().map(at),
        Some(now - h(30))
    );
    assert_eq!(payload["ran"][1]["task_id"], a.as_str());
    assert!(payload.get("task_id").is_none() && notice["task_id"].is_null());

    for id in [&c, &e, &a, &on_time] {
        let done = wait_task(&t, id, |t| {
            runs(t) == 1 && t["runs"][0]["status"] != "processing"
        })
        .await?;
        assert_eq!(done["runs"][0]["status"], "completed", "{done}");
    }
    // Never a backlog: recurring tasks move on from now.
    assert_eq!(
        next_at(&task(&t, &a).await?),
        Some(at("2026-09-16T09:00:00Z"))
    );
    assert_eq!(next_at(&task(&t, &e).await?), Some(now + h(1)));
    for id in [&b, &d] {
        let skipped = task(&t, id).await?;
        assert_eq!((runs(&skipped), &skipped["status"]), (0, &json!("active")));
        assert_eq!(next_at(&skipped), Some(at("2026-09-16T09:00:00Z")));
    }
    let f = task(&t, &f).await?;
    assert_eq!((runs(&f), next_at(&f)), (0, Some(now + h(1))));
    let g = task(&t, &g).await?;
    assert_eq!(g["status"], "error");
    assert_eq!(
        g["error"],
        "Skipped: it was due Sep 15, 01:00, while the computer was off or asleep. Choose Run now if you still want it."
    );
    // Nothing is caught up twice.
    let again = t.engine.tasks().scheduler_tick(now).await.map_err(api)?;
    assert!(again.is_empty());
    assert_eq!(catch_ups(&t).await?.len(), 1);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_missed_run_after_a_restart_is_caught_up_as_sentient_was_off() -> Result<()> {
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let clock = ManualClock::new(at("2026-09-14T06:00:00Z"));
    let t = engine_on(&server, &clock, Some(&home), 2).await?;
    let id = insert(
        &t,
        "Morning news",
        Some(json!({"type": "recurring", "frequency": "daily", "time": "07:00"})),
        TaskStatus::Active,
        Some(at("2026-09-14T07:00:00Z")),
    )
    .await?;
    t.stop().await;

    // Sentient was off from 06:00 to 10:00; its first tick after start catches up.
    clock.set(at("2026-09-14T10:00:00Z"));
    server.push(Reply::text("Here is the news."));
    let shared: SharedClock = Arc::new(clock.clone());
    let t = TestEngine::start_in_with_clock(&home, Some(shared)).await?;
    let notice = wait_catch_up(&t).await?;
    assert_eq!(
        notice["title"],
        "Caught up after Sentient was off: ran 1, skipped 0"
    );
    assert_eq!(notice["message"], "Ran once now: 'Morning news'.");
    assert_eq!(notice["payload"]["reason"], "start");
    assert_eq!(notice["payload"]["task_id"], id.as_str());
    assert_eq!(notice["task_id"], id.as_str());
    let done = wait_task(&t, &id, |t| t["runs"][0]["status"] == "completed").await?;
    assert_eq!(runs(&done), 1);
    assert_eq!(next_at(&done), Some(at("2026-09-15T07:00:00Z")));
    t.stop().await;
    drop(dir);
    Ok(())
}

#[tokio::test]
async fn stop_everything_pauses_the_scheduler_and_resume_catches_up() -> Result<()> {
    let server = ScriptedModel::start().await;
    let clock = ManualClock::new(at("2026-09-14T06:00:00Z"));
    let t = engine_on(&server, &clock, None, 2).await?;
    let id = insert(
        &t,
        "Water plants",
        Some(json!({"type": "recurring", "frequency": "daily", "time": "07:00"})),
        TaskStatus::Active,
        Some(at("2026-09-14T07:00:00Z")),
    )
    .await?;
    let (code, _) = t.client.post("/api/stop-all", json!({})).await?;
    assert_eq!(code, 200);
    // Stopped through the morning: nothing is claimed or caught up.
    clock.set(at("2026-09-14T07:00:10Z"));
    assert!(
        t.engine
            .tasks()
            .scheduler_tick(clock.now_utc())
            .await
            .map_err(api)?
            .is_empty()
    );
    clock.set(at("2026-09-14T09:00:00Z"));
    assert!(
        t.engine
            .tasks()
            .scheduler_tick(clock.now_utc())
            .await
            .map_err(api)?
            .is_empty()
    );
    let waiting = task(&t, &id).await?;
    assert_eq!(
        (runs(&waiting), next_at(&waiting)),
        (0, Some(at("2026-09-14T07:00:00Z")))
    );
    assert!(catch_ups(&t).await?.is_empty());

    // Resume: the scheduler wakes at once, and its first tick catches up.
    server.push(Reply::text("Watered."));
    let (code, _) = t.client.post("/api/resume", json!({})).await?;
    assert_eq!(code, 200);
    let notice = wait_catch_up(&t).await?;
    assert_eq!(
        notice["title"],
        "Caught up after resuming after Stop everything: ran 1, skipped 0"
    );
    assert_eq!(notice["payload"]["reason"], "resume");
    let done = wait_task(&t, &id, |t| t["runs"][0]["status"] == "completed").await?;
    assert_eq!(runs(&done), 1);
    // The next tick has nothing more to do.
    assert!(
        t.engine
            .tasks()
            .scheduler_tick(clock.now_utc())
            .await
            .map_err(api)?
            .is_empty()
    );
    assert_eq!(catch_ups(&t).await?.len(), 1);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn at_most_the_configured_runs_work_at_once() -> Result<()> {
    use sentient_e2e::sentient_engine::tasks::model::RunStatus;
    use sentient_e2e::sentient_engine::tasks::store::RunRecord;
    let server = ScriptedModel::start().await;
    let clock = ManualClock::new(at("2026-09-14T06:00:00Z"));
    let t = engine_on(&server, &clock, None, 2).await?;
    let now = clock.now_utc();
    let store = t.engine.tasks().store();
    let db =
        |e: sentient_e2e::sentient_engine::tasks::store::TaskStoreError| anyhow::anyhow!("{e}");
    // Two runs of other tasks are working (they were started earlier and take their time).
    let mut busy = Vec::new();
    for name in ["Busy one", "Busy two"] {
        let id = insert(&t, name, None, TaskStatus::Processing, None).await?;
        let run = RunRecord::start(&id, Vec::new(), None, None, Vec::new(), now);
        store.save_run(&run).await.map_err(db)?;
        busy.push(run);
    }
    let mut ids = Vec::new();
    for (i, name) in ["First", "Second", "Third"].into_iter().enumerate() {
        let due = now - chrono::Duration::seconds(30 - i64::try_from(i)? * 10);
        ids.push(insert(&t, name, None, TaskStatus::Pending, Some(due)).await?);
    }
    // Every slot is taken: the due tasks stay due, unclaimed, however often the scheduler looks.
    assert!(
        t.engine
            .tasks()
            .scheduler_tick(now)
            .await
            .map_err(api)?
            .is_empty()
    );
    clock.set(now + chrono::Duration::minutes(10));
    assert!(
        t.engine
            .tasks()
            .scheduler_tick(clock.now_utc())
            .await
            .map_err(api)?
            .is_empty()
    );
    for id in &ids {
        let waiting = task(&t, id).await?;
        assert_eq!((runs(&waiting), &waiting["status"]), (0, &json!("pending")));
        assert!(next_at(&waiting).is_some());
    }

    // Run now is a person's direct request: not held back.
    let by_hand = insert(&t, "By hand", None, TaskStatus::Active, None).await?;
    server.push(Reply::text("Done by hand."));
    let (code, body) = t
        .client
        .post(&format!("/api/tasks/{by_hand}/run-now"), json!({}))
        .await?;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["runs"][0]["status"], "processing");
    wait_task(&t, &by_hand, |t| t["runs"][0]["status"] == "completed").await?;

    // One slot frees: exactly one waiting task starts, the earliest due.
    for _ in 0..3 {
        server.push(Reply::text("Done."));
    }
    let mut ended = busy.remove(0);
    ended.run.status = RunStatus::Completed;
    store.save_run(&ended).await.map_err(db)?;
    // The scheduler's own loop may take the freed slot first (it wakes when a run ends); either
    // way, once this tick is done exactly the earliest waiting task has started.
    t.engine
        .tasks()
        .scheduler_tick(clock.now_utc())
        .await
        .map_err(api)?;
    assert_eq!(runs(&task(&t, &ids[0]).await?), 1);
    assert_eq!(runs(&task(&t, &ids[2]).await?), 0);
    // The other frees too: the rest start as slots allow, each once, and none counts as
    // missed, since they waited only for a slot.
    let mut ended = busy.remove(0);
    ended.run.status = RunStatus::Completed;
    store.save_run(&ended).await.map_err(db)?;
    for id in &ids {
        let _ = t
            .engine
            .tasks()
            .scheduler_tick(clock.now_utc())
            .await
            .map_err(api)?;
        let done = wait_task(&t, id, |t| t["runs"][0]["status"] == "completed").await?;
        assert_eq!(runs(&done), 1);
    }
    assert!(catch_ups(&t).await?.is_empty());
    t.stop().await;
    Ok(())
}

/// Two engines on one database file claim the same 200 due tasks at the same time, each
/// through its own scheduler ticks: every task is started exactly once.
#[tokio::test]
async fn two_engines_on_one_database_start_each_due_task_once() -> Result<()> {
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let clock = ManualClock::new(at("2026-09-14T06:00:00Z"));
    let a = engine_on(&server, &clock, Some(&home), 16).await?;
    let b = engine_on(&server, &clock, Some(&home), 16).await?;
    // No model answers these runs (the script is empty), so they end at once and free their
    // slots; what counts here is who claims what.
    let now = clock.now_utc();
    let mut ids = Vec::new();
    for i in 0..200 {
        let due = now - chrono::Duration::seconds(i % 60);
        ids.push(
            insert(
                &a,
                &format!("Task {i}"),
                None,
                TaskStatus::Pending,
                Some(due),
            )
            .await?,
        );
    }
    let mut started: Vec<String> = Vec::new();
    for _ in 0..400 {
        let (x, y) = tokio::join!(
            a.engine.tasks().scheduler_tick(now),
            b.engine.tasks().scheduler_tick(now)
        );
        started.extend(x.map_err(api)?);
        started.extend(y.map_err(api)?);
        let (left,): (i64,) = still_due(&a, now).await?;
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The engines' own scheduler loops tick too (a run ending wakes them while tasks wait
    // for a slot), so the database is the judge; the ticks called here never repeat a run.
    let mut unique = started.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), started.len(), "a run id came back twice");
    assert!(!started.is_empty());
    for id in &ids {
        let runs = a
            .engine
            .tasks()
            .store()
            .runs_of(id)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        assert_eq!(runs.len(), 1, "{id} has {} runs", runs.len());
    }
    a.stop().await;
    b.stop().await;
    drop(dir);
    Ok(())
}

/// How many tasks are still due at `now`.
async fn still_due(t: &TestEngine, now: DateTime<Utc>) -> Result<(i64,)> {
    let due = t
        .engine
        .tasks()
        .store()
        .due(now, 1000)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((i64::try_from(due.len())?,))
}

async fn poll(
    client: &sentient_e2e::Client,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Result<Value> {
    sentient_e2e::eventually(&format!("task {id} to get there"), || async {
        let (code, task) = client.get(&format!("/api/tasks/{id}")).await?;
        Ok((code == 200 && done(&task)).then_some(task))
    })
    .await
}

/// A run whose first tool call finished is killed (SIGKILL) while the model thinks about the
/// next step; after a restart on the same home the run carries on from its transcript and
/// does not repeat the finished call.
#[tokio::test]
async fn a_killed_engine_resumes_its_run_without_repeating_a_finished_step() -> Result<()> {
    let server = ScriptedModel::start().await;
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let token = "crash-test-token";
    let mut first = ServedEngine::start(&home, token).await?;
    sentient_e2e::point_served_models_at(&first.client, &server).await?;
    server.push(Reply::text(
        json!({"name": "Note", "description": "Write a note.", "priority": 1, "schedule": null})
            .to_string(),
    ));
    server.push(Reply::text(
        json!({"plan": [{"tool": "files_write", "description": "Write the note"},
                        {"tool": "time_now", "description": "Check the time"}]})
        .to_string(),
    ));
    let (_, created) = first
        .client
        .post(
            "/api/tasks",
            json!({"prompt": "Write a note, then tell me the time"}),
        )
        .await?;
    let id = created["task_id"].as_str().context("id")?.to_owned();
    poll(&first.client, &id, |t| t["status"] == "approval_pending").await?;
    let (code, body) = first
        .client
        .post(&format!("/api/tasks/{id}/approve"), json!({}))
        .await?;
    ensure!(code == 200, "{body}");
    // Round one writes the file; round two's answer never comes.
    server.push(Reply::tool_call(
        "files_write",
        json!({"path": "outputs/note.txt", "content": "written once"}),
    ));
    server.push(Reply::stall_after(1));
    let (code, body) = first
        .client
        .post(&format!("/api/tasks/{id}/run-now"), json!({}))
        .await?;
    ensure!(code == 200, "{body}");
    wait_chats(&server, 4).await?;
    let note = home.join("files/outputs/note.txt");
    ensure!(note.is_file(), "the first step wrote its file");
    first.child.start_kill()?;
    first.child.wait().await?;
    // Anything that ran the step again would overwrite this.
    std::fs::write(&note, "changed by the person")?;

    server.push(Reply::text("The note is written and it is noon."));
    // It used a tool and kept no brief: one reminder, and it answers again.
    server.push(Reply::text("The note is written and it is noon."));
    let second = ServedEngine::start(&home, token).await?;
    let done = poll(&second.client, &id, |t| {
        t["runs"][0]["status"] == "completed"
    })
    .await?;
    assert_eq!(runs(&done), 1, "{done:#}");
    assert_eq!(
        done["runs"][0]["result"]["summary"],
        "The note is written and it is noon."
    );
    assert_eq!(std::fs::read_to_string(&note)?, "changed by the person");
    // The restarted run's request carried the finished call and its result.
    let chats = server.requests_to("/api/chat");
    assert_eq!(
        chats.len(),
        6,
        "refinement, plan, two rounds, one after the restart, the brief reminder"
    );
    let resumed = chats[4].body["messages"].as_array().context("messages")?;
    assert!(
        resumed
            .iter()
            .any(|m| m["role"] == "tool" && m["content"].to_string().contains("note.txt")),
        "{resumed:#?}"
    );
    let kinds: Vec<&str> = done["runs"][0]["progress_updates"]
        .as_array()
        .context("updates")?
        .iter()
        .filter_map(|u| u["message"]["content"].as_str())
        .collect();
    assert!(
        kinds.contains(&"Sentient restarted; carrying on from where the run stopped."),
        "{kinds:?}"
    );
    drop(second);
    drop(dir);
    Ok(())
}
