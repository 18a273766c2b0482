//! The scheduler: it claims the tasks that are due and starts their runs, following each
//! schedule's catch-up rule for runs that are late (the computer was off or asleep, Sentient was
//! not running, or Stop everything was on), and sends one notification per catch-up.
//!
//! - Ticks never overlap: one lock is held for a whole tick, and the loop awaits each tick.
//! - It wakes every `tasks.tick_seconds`, earlier when a task falls due sooner (so runs start
//!   on time), at once after Resume, and when a run ends while due tasks wait for a slot.
//! - At most `tasks.max_concurrent_runs` runs work at once; due tasks beyond that stay due and
//!   start when a slot frees. Run now (a person's direct request) is never held back.
//! - A claim and its run row are one transaction (`TaskStore::claim_to_run`), so concurrent
//!   schedulers start a task once and a crash can't lose a claimed task: its `processing` run
//!   is resumed at the next start by `Scheduler::recover_interrupted_runs`.

use sentient_core::sync::MutexExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::model::{ProgressMessage, RunStatus, Schedule, TaskStatus};
use super::schedule::{self, CatchUpDecision};
use super::store::{Claim, DueTask, RunRecord};
use crate::TaskError;
use crate::executor::Executor;
use crate::parts::TaskParts;
use crate::planner::Planner;
use crate::run_end::RunEnds;
use crate::script_jobs::ScriptJobs;
use sentient_core::bus::DomainEvent;
use sentient_core::domain::notification::NewNotification;

/// How many due tasks one tick reads; the rest wait for the next tick.
pub const DUE_BATCH: u32 = 256;

/// A wall-clock jump between ticks beyond `tick_seconds` plus this is waking from sleep.
pub const SLEEP_JUMP_SECS: i64 = 120;

/// Why a catch-up happened; it names the notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CatchUpReason {
    /// The first tick after Sentient started.
    Start,
    /// The wall clock jumped between ticks: the computer slept.
    Sleep,
    /// The first tick after Resume from Stop everything.
    Resume,
}

impl CatchUpReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Sleep => "sleep",
            Self::Resume => "resume",
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Self::Start => "after Sentient was off",
            Self::Sleep => "after sleep",
            Self::Resume => "after resuming after Stop everything",
        }
    }
}

/// One task listed in a catch-up notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaughtUpTask {
    pub task_id: String,
    pub name: String,
    pub due_at: DateTime<Utc>,
}

/// Whether the wall clock jumped between two ticks by more than a tick and two minutes.
pub fn woke_from_sleep(last_tick: DateTime<Utc>, now: DateTime<Utc>, tick_seconds: u32) -> bool {
    (now - last_tick).num_seconds() > i64::from(tick_seconds) + SLEEP_JUMP_SECS
}

/// Why runs found late on this tick were missed: Resume from Stop everything, else the first
/// tick since start, else sleep (a clock jump, or no better explanation).
pub fn tick_reason(first_tick: bool, resumed: bool) -> CatchUpReason {
    if resumed {
        CatchUpReason::Resume
    } else if first_tick {
        CatchUpReason::Start
    } else {
        CatchUpReason::Sleep
    }
}

fn names(tasks: &[CaughtUpTask]) -> String {
    tasks
        .iter()
        .map(|t| format!("'{}'", t.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn listed(tasks: &[CaughtUpTask]) -> Value {
    Value::Array(
        tasks
            .iter()
            .map(|t| json!({"task_id": t.task_id, "name": t.name, "due_at": t.due_at}))
            .collect(),
    )
}

/// The one notification of a catch-up (contract section 4, "Missed runs"), or none when no
/// task is listed (quiet interval checks are never listed).
pub fn catch_up_notice(
    reason: CatchUpReason,
    ran: &[CaughtUpTask],
    skipped: &[CaughtUpTask],
) -> Option<NewNotification> {
    if ran.is_empty() && skipped.is_empty() {
        return None;
    }
    let title = format!(
        "Caught up {}: ran {}, skipped {}",
        reason.phrase(),
        ran.len(),
        skipped.len()
    );
    let mut sentences = Vec::new();
    if !ran.is_empty() {
        sentences.push(format!("Ran once now: {}.", names(ran)));
    }
    if !skipped.is_empty() {
        sentences.push(format!(
            "Skipped: {}. Open one and choose Run now if you still want it.",
            names(skipped)
        ));
    }
    let only = match (ran, skipped) {
        ([one], []) | ([], [one]) => Some(one.task_id.clone()),
        _ => None,
    };
    let mut payload = Map::new();
    payload.insert("event".into(), json!("caught_up"));
    payload.insert("reason".into(), json!(reason.as_str()));
    payload.insert("ran".into(), listed(ran));
    payload.insert("skipped".into(), listed(skipped));
    if let Some(id) = &only {
        payload.insert("task_id".into(), json!(id));
    }
    Some(NewNotification {
        kind: "task".to_owned(),
        title,
        message: sentences.join(" "),
        payload,
        task_id: only,
    })
}

/// A due task that found no free slot: judged late or not by when it was first seen due, so
/// waiting for a slot never turns an on-time run into a missed one.
#[derive(Debug, Clone)]
struct Deferred {
    due_at: DateTime<Utc>,
    seen_at: DateTime<Utc>,
    reason: CatchUpReason,
}

#[derive(Debug, Default)]
struct Memory {
    ticked: bool,
    last_tick: Option<DateTime<Utc>>,
    deferred: HashMap<String, Deferred>,
}

/// What the scheduler keeps between ticks, per engine.
#[derive(Debug, Default)]
pub struct SchedulerState {
    /// Held for a whole tick, so ticks never overlap.
    memory: tokio::sync::Mutex<Memory>,
    /// Stop everything was on since the last tick that ran.
    paused: AtomicBool,
    /// Due tasks are waiting for a run slot.
    waiting: AtomicBool,
    /// Sentient started while stopped: what the restart interrupted waits for Resume.
    recovery_waits_for_resume: AtomicBool,
    /// The tasks left planning and the runs left processing when this engine started, read
    /// before the gateway served anything: only these were interrupted by a restart (a task
    /// created a moment after start is planning too, and is not theirs to take).
    left_at_start: std::sync::Mutex<LeftAtStart>,
}

#[derive(Debug, Default)]
struct LeftAtStart {
    planning: std::collections::HashSet<String>,
    runs: std::collections::HashSet<String>,
}

impl SchedulerState {
    /// Whether due tasks wait for a run to end.
    pub fn has_waiting(&self) -> bool {
        self.waiting.load(Ordering::SeqCst)
    }
}

/// Ran and skipped tasks of one tick, by why they were missed.
type Report = BTreeMap<CatchUpReason, (Vec<CaughtUpTask>, Vec<CaughtUpTask>)>;

/// The scheduler: ticks, claims, catch-up and what a restart left; with what it remembers
/// between ticks.
#[derive(Clone)]
pub(crate) struct Scheduler {
    parts: TaskParts,
    state: std::sync::Arc<SchedulerState>,
}

impl Scheduler {
    pub(crate) fn new(parts: &TaskParts, state: &std::sync::Arc<SchedulerState>) -> Self {
        Self {
            parts: parts.clone(),
            state: state.clone(),
        }
    }
}

impl Scheduler {
    /// Starts the scheduler until shutdown, after dealing with runs a restart interrupted. Reads
    /// what was left unfinished before it returns, so call it before the gateway serves.
    pub async fn start_scheduler(&self) {
        self.note_left_at_start().await;
        // No check runs yet, so a script job still `processing` was cut off by the last exit.
        let now = self.parts.clock().now();
        match self
            .parts
            .tasks()
            .store()
            .settle_interrupted_checks(now)
            .await
        {
            Ok(ids) if !ids.is_empty() => {
                tracing::info!(?ids, "script jobs whose check a restart cut off are back");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "could not settle interrupted script checks"),
        }
        let engine = self.clone();
        tokio::spawn(async move { engine.recover_interrupted_work().await });
        let engine = self.clone();
        tokio::spawn(async move {
            match engine.parts.tasks().store().reindex_old_transcripts().await {
                Ok(0) => {}
                Ok(runs) => {
                    tracing::info!(runs, "indexed task conversations again with their authors")
                }
                Err(error) => tracing::warn!(%error, "could not index task conversations again"),
            }
        });
        let engine = self.clone();
        // Subscribed before the first tick, so no Resume or run end is missed.
        let mut events = self.parts.bus().subscribe();
        let shutdown = self.parts.shutdown_token();
        tokio::spawn(async move {
            let mut listening = true;
            loop {
                let now = engine.parts.clock().now();
                if let Err(error) = engine.scheduler_tick(now).await {
                    tracing::warn!(error = %error.message(), "the task scheduler could not check for due tasks");
                }
                let deadline = tokio::time::Instant::now() + engine.scheduler_wait().await;
                loop {
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        () = tokio::time::sleep_until(deadline) => break,
                        event = events.recv(), if listening => match event {
                            Ok(envelope) => match envelope.event {
                                DomainEvent::StopUpdated(state) if state.stopped => {
                                    engine.state.paused.store(true, Ordering::SeqCst);
                                }
                                // Resume: carry on with what a restart left, and catch up now.
                                DomainEvent::StopUpdated(_) => {
                                    if engine.state.recovery_waits_for_resume.swap(false, Ordering::SeqCst) {
                                        let engine = engine.clone();
                                        tokio::spawn(async move { engine.recover_interrupted_work().await });
                                    }
                                    break;
                                }
                                DomainEvent::TaskRunFinished { .. }
                                    if engine.state.has_waiting() => break,
                                _ => {}
                            },
                            Err(RecvError::Lagged(_)) => break,
                            Err(RecvError::Closed) => listening = false,
                        },
                    }
                }
            }
        });
    }

    /// How long the scheduler sleeps: until the next task falls due, at most one tick.
    async fn scheduler_wait(&self) -> Duration {
        let tick = Duration::from_secs(u64::from(
            self.parts.config().current().tasks.tick_seconds.max(1),
        ));
        let now = self.parts.clock().now();
        match self.parts.tasks().store().next_due_after(now).await {
            Ok(Some(next)) => (next - now)
                .to_std()
                .map_or(Duration::ZERO, |d| d + Duration::from_millis(1))
                .min(tick),
            Ok(None) => tick,
            Err(error) => {
                tracing::warn!(%error, "could not read when the next task is due");
                tick
            }
        }
    }

    /// One tick: claims the due tasks and starts (or skips) their runs, at most
    /// `tasks.max_concurrent_runs` working at once, and sends the catch-up notification.
    /// Returns the ids of the runs started. Tests call it with the time they want.
    pub async fn scheduler_tick(&self, now: DateTime<Utc>) -> Result<Vec<String>, TaskError> {
        let state = &self.state;
        let mut memory = state.memory.lock().await;
        if self.parts.stop().is_stopped() {
            state.paused.store(true, Ordering::SeqCst);
            return Ok(Vec::new());
        }
        let config = self.parts.config().current();
        let tick_seconds = config.tasks.tick_seconds.max(1);
        let resumed = state.paused.swap(false, Ordering::SeqCst);
        if let Some(last) = memory.last_tick
            && !resumed
            && woke_from_sleep(last, now, tick_seconds)
        {
            tracing::info!(
                slept_s = (now - last).num_seconds(),
                "the computer woke from sleep"
            );
        }
        let reason = tick_reason(!memory.ticked, resumed);
        memory.ticked = true;
        memory.last_tick = Some(now);

        let store = self.parts.tasks().store();
        let due = store.due(now, DUE_BATCH).await?;
        memory.deferred.retain(|id, d| {
            due.iter()
                .any(|t| &t.record.task.task_id == id && t.due_at == d.due_at)
        });
        let max_working = config.tasks.max_concurrent_runs.max(1);
        let mut started = Vec::new();
        let mut report = Report::new();
        let mut slots_full = false;
        for item in &due {
            let task = &item.record.task;
            let id = task.task_id.clone();
            let schedule = task.schedule.clone().unwrap_or_else(|| Schedule::Once {
                run_at: None,
                timezone: self.parts.user_timezone(),
                catch_up: None,
            });
            let (seen_at, why) = memory
                .deferred
                .get(&id)
                .map_or((now, reason), |d| (d.seen_at, d.reason));
            let decision = schedule::catch_up_decision(
                &schedule,
                item.due_at,
                seen_at,
                config.tasks.catch_up_window_hours,
                tick_seconds,
            );
            let recurring = schedule.is_recurring();
            let listed = CaughtUpTask {
                task_id: id.clone(),
                name: task.name.clone(),
                due_at: item.due_at,
            };
            // A recurring task still busy with an earlier run (or waiting for an answer)
            // waits for its next time.
            let script_job = task.task_type == "script" && task.script.is_some();
            let busy = recurring
                && if script_job {
                    ScriptJobs::new(&self.parts).is_checking(&id)
                } else {
                    store.has_live_run(&id).await?
                };
            if decision == CatchUpDecision::Skip || busy {
                memory.deferred.remove(&id);
                if self.skip_due(item, &schedule, now).await? && !busy {
                    report.entry(why).or_default().1.push(listed);
                }
                continue;
            }
            let next = if recurring {
                schedule::next_run(&schedule, now)
            } else {
                None
            };
            // A script job's check is no run: it takes no run slot and leaves no run row.
            if script_job {
                memory.deferred.remove(&id);
                let claimed = {
                    let _one_at_a_time = self.parts.tasks().changes.lock().await;
                    store.claim_to_check(item, next, now).await?
                };
                if claimed {
                    ScriptJobs::new(&self.parts).launch_check(&id, None);
                    if decision == CatchUpDecision::RunNow {
                        report.entry(why).or_default().0.push(listed);
                    }
                }
                continue;
            }
            if slots_full {
                memory.deferred.entry(id).or_insert(Deferred {
                    due_at: item.due_at,
                    seen_at: now,
                    reason,
                });
                continue;
            }
            let run = RunRecord::start(&id, task.plan.clone(), None, None, Vec::new(), now);
            let claim = {
                let _one_at_a_time = self.parts.tasks().changes.lock().await;
                store.claim_to_run(item, next, &run, max_working).await?
            };
            match claim {
                Claim::Claimed => {
                    memory.deferred.remove(&id);
                    // The run announces its task itself, so the tick doesn't wait on that.
                    Executor::new(&self.parts).launch_run(&id, &run.run.run_id, true);
                    if decision == CatchUpDecision::RunNow {
                        report.entry(why).or_default().0.push(listed);
                    }
                    started.push(run.run.run_id);
                }
                Claim::NoSlot => {
                    slots_full = true;
                    memory.deferred.entry(id).or_insert(Deferred {
                        due_at: item.due_at,
                        seen_at: now,
                        reason,
                    });
                }
                Claim::Gone => {
                    memory.deferred.remove(&id);
                }
            }
        }
        state
            .waiting
            .store(!memory.deferred.is_empty(), Ordering::SeqCst);
        drop(memory);

        for (why, (ran, skipped)) in report {
            if let Some(notice) = catch_up_notice(why, &ran, &skipped)
                && let Err(error) = self.parts.notify(notice).await
            {
                tracing::warn!(error = %error.message(), "could not send the catch-up notification");
            }
        }
        Ok(started)
    }

    /// Claims a due task without running it: a recurring one moves to its next time and stays
    /// active, a one-off one ends in error saying when it was due. `false` when someone else
    /// claimed it first.
    async fn skip_due(
        &self,
        item: &DueTask,
        schedule: &Schedule,
        now: DateTime<Utc>,
    ) -> Result<bool, TaskError> {
        let task = &item.record.task;
        let (next, status, error) = if schedule.is_recurring() {
            (schedule::next_run(schedule, now), task.status, None)
        } else {
            let timezone = match schedule {
                Schedule::Once { timezone, .. }
                | Schedule::Recurring { timezone, .. }
                | Schedule::Triggered { timezone, .. } => timezone,
            };
            (
                None,
                TaskStatus::Error,
                Some(format!(
                    "Skipped: it was due {}, while the computer was off or asleep. Choose Run now if you still want it.",
                    schedule::due_label(item.due_at, timezone)
                )),
            )
        };
        let claimed = {
            let _one_at_a_time = self.parts.tasks().changes.lock().await;
            self.parts
                .tasks()
                .store()
                .claim_to_skip(item, next, status, error.as_deref(), now)
                .await?
        };
        if claimed {
            self.parts.announce_task(&task.task_id).await;
        }
        Ok(claimed)
    }

    /// What a restart interrupted, taken up again: tasks left `planning` are planned again, and
    /// runs left `processing` resume from their transcript (when `tasks.resume_interrupted_runs`),
    /// else end with "Interrupted by restart.". Runs waiting for an answer keep waiting. While
    /// Stop everything is on nothing is taken up: this runs again after Resume (section 17).
    pub async fn recover_interrupted_work(&self) {
        if self.parts.stop().is_stopped() {
            self.state
                .recovery_waits_for_resume
                .store(true, Ordering::SeqCst);
            return;
        }
        self.replan_interrupted_planning().await;
        self.recover_interrupted_runs().await;
    }

    /// Notes the tasks left planning and the runs left processing by the last engine.
    async fn note_left_at_start(&self) {
        let store = self.parts.tasks().store();
        let planning = match store.tasks_with_status(TaskStatus::Planning).await {
            Ok(tasks) => tasks.into_iter().map(|t| t.task_id).collect(),
            Err(error) => {
                tracing::warn!(%error, "could not look for tasks left planning");
                Default::default()
            }
        };
        let runs = match store.runs_with_status(&[RunStatus::Processing]).await {
            Ok(runs) => runs.into_iter().map(|r| r.run.run_id).collect(),
            Err(error) => {
                tracing::warn!(%error, "could not look for interrupted runs");
                Default::default()
            }
        };
        *self.state.left_at_start.lock_unpoisoned() = LeftAtStart { planning, runs };
    }

    fn left_at_start(&self, planning: bool, id: &str) -> bool {
        let left = self.state.left_at_start.lock_unpoisoned();
        if planning {
            left.planning.contains(id)
        } else {
            left.runs.contains(id)
        }
    }

    /// Tasks left `planning` (by a restart or a crash) are planned again; one whose planning
    /// had not begun to change it is refined first, as a new task is.
    async fn replan_interrupted_planning(&self) {
        let tasks = match self
            .parts
            .tasks()
            .store()
            .tasks_with_status(TaskStatus::Planning)
            .await
        {
            Ok(tasks) => tasks,
            Err(error) => {
                tracing::warn!(%error, "could not look for tasks left planning");
                return;
            }
        };
        for task in tasks {
            if self.parts.tasks().is_running(&task.task_id)
                || !self.left_at_start(true, &task.task_id)
            {
                continue;
            }
            // From the generation it has while still `planning`: one a person settled since
            // the list was read is left alone.
            let generation = match self
                .parts
                .tasks()
                .store()
                .planning_generation(&task.task_id)
                .await
            {
                Ok(Some(generation)) => generation,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(%error, task_id = %task.task_id, "could not read a task left planning");
                    continue;
                }
            };
            let refine = task.plan.is_empty() && task.chat_history.is_empty();
            tracing::info!(task_id = %task.task_id, refine, "planning a task a restart interrupted");
            Planner::new(&self.parts).start_planning_with(&task.task_id, generation, refine);
        }
    }

    async fn recover_interrupted_runs(&self) {
        let resume = self.parts.config().current().tasks.resume_interrupted_runs;
        let runs = match self
            .parts
            .tasks()
            .store()
            .runs_with_status(&[RunStatus::Processing])
            .await
        {
            Ok(runs) => runs,
            Err(error) => {
                tracing::warn!(%error, "could not look for interrupted runs");
                return;
            }
        };
        for record in runs {
            let (task_id, run_id) = (record.task_id.clone(), record.run.run_id.clone());
            if self.parts.tasks().is_running(&run_id) || !self.left_at_start(false, &run_id) {
                continue;
            }
            if resume {
                self.parts
                    .run_progress(
                        &task_id,
                        &run_id,
                        ProgressMessage::new(
                            "info",
                            "Sentient restarted; carrying on from where the run stopped.",
                        ),
                    )
                    .await;
                // As before: the swarm service decides how its own runs resume.
                Executor::new(&self.parts).launch_run(&task_id, &run_id, false);
            } else {
                let message = "Interrupted by restart.";
                self.parts
                    .run_progress(&task_id, &run_id, ProgressMessage::new("error", message))
                    .await;
                if let Err(error) = RunEnds::new(&self.parts)
                    .finish_run(
                        &task_id,
                        &run_id,
                        RunStatus::Error,
                        None,
                        Some(message.to_owned()),
                    )
                    .await
                {
                    tracing::warn!(error = %error.message(), "could not end an interrupted run");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .expect("valid time")
    }

    fn task(id: &str, name: &str) -> CaughtUpTask {
        CaughtUpTask {
            task_id: id.into(),
            name: name.into(),
            due_at: at("2026-09-14T16:30:00Z"),
        }
    }

    #[test]
    fn one_ran_and_two_skipped_after_sleep() {
        let notice = catch_up_notice(
            CatchUpReason::Sleep,
            &[task("a", "A")],
            &[task("b", "B"), task("c", "C")],
        )
        .expect("a notice");
        assert_eq!(notice.kind, "task");
        assert_eq!(notice.title, "Caught up after sleep: ran 1, skipped 2");
        assert_eq!(
            notice.message,
            "Ran once now: 'A'. Skipped: 'B', 'C'. Open one and choose Run now if you still want it."
        );
        assert_eq!(
            Value::Object(notice.payload),
            json!({"event": "caught_up", "reason": "sleep",
                   "ran": [{"task_id": "a", "name": "A", "due_at": "2026-09-14T16:30:00Z"}],
                   "skipped": [{"task_id": "b", "name": "B", "due_at": "2026-09-14T16:30:00Z"},
                               {"task_id": "c", "name": "C", "due_at": "2026-09-14T16:30:00Z"}]})
        );
        assert_eq!(notice.task_id, None, "more than one task is listed");
    }

    #[test]
    fn a_single_task_is_named_in_the_payload() {
        let ran = catch_up_notice(CatchUpReason::Start, &[task("a", "A")], &[]).expect("notice");
        assert_eq!(
            ran.title,
            "Caught up after Sentient was off: ran 1, skipped 0"
        );
        assert_eq!(ran.message, "Ran once now: 'A'.");
        assert_eq!(ran.payload["task_id"], "a");
        assert_eq!(ran.payload["reason"], "start");
        assert_eq!(ran.task_id.as_deref(), Some("a"));

        let skipped =
            catch_up_notice(CatchUpReason::Resume, &[], &[task("b", "B")]).expect("notice");
        assert_eq!(
            skipped.title,
            "Caught up after resuming after Stop everything: ran 0, skipped 1"
        );
        assert_eq!(
            skipped.message,
            "Skipped: 'B'. Open one and choose Run now if you still want it."
        );
        assert_eq!(skipped.payload["ran"], json!([]));
        assert_eq!(skipped.payload["task_id"], "b");
    }

    #[test]
    fn nothing_listed_sends_nothing() {
        assert_eq!(catch_up_notice(CatchUpReason::Sleep, &[], &[]), None);
    }

    #[test]
    fn sleep_is_a_clock_jump_beyond_a_tick_and_two_minutes() {
        let last = at("2026-01-01T08:00:00Z");
        assert!(!woke_from_sleep(
            last,
            last + chrono::Duration::seconds(150),
            30
        ));
        assert!(woke_from_sleep(
            last,
            last + chrono::Duration::seconds(151),
            30
        ));
        assert!(!woke_from_sleep(
            last,
            last + chrono::Duration::seconds(400),
            300
        ));
    }

    #[test]
    fn resume_wins_then_start_then_sleep() {
        assert_eq!(tick_reason(true, true), CatchUpReason::Resume);
        assert_eq!(tick_reason(true, false), CatchUpReason::Start);
        assert_eq!(tick_reason(false, false), CatchUpReason::Sleep);
    }
}
