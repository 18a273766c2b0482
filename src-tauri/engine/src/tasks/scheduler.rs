//! The scheduler: every `tasks.tick_seconds` it claims the tasks that are due and starts their
//! runs, following each schedule's catch-up rule for runs that are late (the computer was off
//! or asleep, or Stop everything was on). It pauses while stopped. At start, runs a restart
//! interrupted are resumed from their checkpoint or marked failed.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::model::{ProgressMessage, RunStatus, Schedule, TaskStatus};
use super::schedule::{self, CatchUpDecision};
use crate::Engine;

impl Engine {
    /// Starts the scheduler until shutdown, after dealing with runs a restart interrupted.
    pub fn start_scheduler(&self) {
        let engine = self.clone();
        tokio::spawn(async move { engine.recover_interrupted_runs().await });
        let every =
            Duration::from_secs(u64::from(self.config().current().tasks.tick_seconds.max(1)));
        let engine = self.clone();
        self.stop().run_every("task scheduler", every, true, self.shutdown_token(), move || {
            let engine = engine.clone();
            async move {
                let now = engine.clock().now();
                if let Err(error) = engine.scheduler_tick(now).await {
                    tracing::warn!(error = %error.message(), "the task scheduler could not check for due tasks");
                }
            }
        });
    }

    /// One tick: claims every due task and starts (or skips) its run. Returns the ids started.
    pub async fn scheduler_tick(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, crate::error::ApiError> {
        if self.stop().is_stopped() {
            return Ok(Vec::new());
        }
        let config = self.config().current();
        let mut started = Vec::new();
        for (task_id, due_at) in self.tasks().store().claim_due(now).await? {
            let task = self.tasks().store().task(&task_id).await?.task;
            let schedule = task.schedule.clone().unwrap_or_else(|| Schedule::Once {
                run_at: None,
                timezone: self.user_timezone(),
                catch_up: None,
            });
            let decision = schedule::catch_up_decision(
                &schedule,
                due_at,
                now,
                config.tasks.catch_up_window_hours,
                config.tasks.tick_seconds,
            );
            let recurring = schedule.is_recurring();
            // A recurring task that is still busy with an earlier run waits for its next time.
            let busy = self
                .tasks()
                .store()
                .runs_of(&task_id)
                .await?
                .iter()
                .any(|r| r.status.is_live());
            if matches!(decision, CatchUpDecision::Skip) || (recurring && busy) {
                let timezone = match &schedule {
                    Schedule::Once { timezone, .. }
                    | Schedule::Recurring { timezone, .. }
                    | Schedule::Triggered { timezone, .. } => timezone.clone(),
                };
                self.change_task(&task_id, |r, now| {
                    if recurring {
                        r.task.next_execution_at = schedule::next_run(&schedule, now);
                    } else {
                        r.task.status = TaskStatus::Error;
                        r.task.error = Some(format!(
                            "Skipped: it was due {}, while the computer was off or asleep. Choose Run now if you still want it.",
                            schedule::due_label(due_at, &timezone)
                        ));
                    }
                    Ok(())
                })
                .await?;
                continue;
            }
            if recurring {
                self.change_task(&task_id, |r, now| {
                    r.task.next_execution_at = schedule::next_run(&schedule, now);
                    Ok(())
                })
                .await?;
            }
            started.push(self.start_run(&task_id, None, None).await?);
        }
        Ok(started)
    }

    /// Runs left `processing` by a restart resume from their transcript (when
    /// `tasks.resume_interrupted_runs`), else end with "Interrupted by restart.". Runs waiting
    /// for an answer keep waiting. While Stop everything is on nothing is resumed.
    pub async fn recover_interrupted_runs(&self) {
        let resume =
            self.config().current().tasks.resume_interrupted_runs && !self.stop().is_stopped();
        let runs = match self
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
            if self.tasks().is_running(&run_id) {
                continue;
            }
            if resume {
                self.run_progress(
                    &task_id,
                    &run_id,
                    ProgressMessage::new(
                        "info",
                        "Sentient restarted; carrying on from where the run stopped.",
                    ),
                )
                .await;
                let job = self
                    .stop()
                    .start_job_within("task run", &self.shutdown_token());
                self.tasks().track(&run_id, job.token().clone());
                let engine = self.clone();
                tokio::spawn(async move {
                    engine.execute_run(&task_id, &run_id, job).await;
                    engine.tasks().untrack(&run_id);
                });
            } else {
                let message = "Interrupted by restart.";
                self.run_progress(&task_id, &run_id, ProgressMessage::new("error", message))
                    .await;
                if let Err(error) = self
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
