//! Stop everything (contract section 17): the saved on/off state, the halt registry every
//! service joins, and periodic jobs that pause while stopped. It never goes through a model,
//! so no prompt can ignore it.

use crate::sync::{MutexExt, RwLockExt};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::bus::{DomainEvent, EventBus};
use crate::clock::SharedClock;
pub use crate::domain::stop_state::StopState;
use crate::error::{ApiError, FieldError};
use crate::store::{Store, StoreError};

/// The `meta` key the state is saved under, so a restart stays stopped.
pub const META_KEY: &str = "stop.state";

/// Where Stop everything can be turned on or off from.
pub const SOURCES: &[&str] = &["desktop", "tray", "hotkey", "telegram", "discord", "device"];

/// The longest a repeating job waits for its first run (`StopService::run_every`).
const FIRST_RUN_WITHIN: Duration = Duration::from_secs(60);

/// `POST /api/stop-all`'s answer: the state plus how many running jobs were cancelled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct StopResult {
    #[serde(flatten)]
    pub state: StopState,
    pub cancelled: u32,
}

/// Body of stop-all and resume; `source` defaults to `desktop`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct StopRequest {
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum StopError {
    #[error("{0} is not a place Stop everything can come from.")]
    UnknownSource(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<StopError> for ApiError {
    fn from(err: StopError) -> Self {
        match err {
            StopError::UnknownSource(_) => ApiError::validation(vec![FieldError::new(
                &["body", "source"],
                format!("{err} Use one of: {}.", SOURCES.join(", ")),
                "value_error",
            )]),
            StopError::Store(e) => ApiError::internal(&e),
        }
    }
}

/// A service's way to be stopped: cancel what it is doing and say how many jobs that was.
pub trait Halt: Send + Sync {
    fn name(&self) -> &str;
    fn halt(&self) -> BoxFuture<'_, usize>;
}

/// Running jobs, each with a cancellation token. Services start long work through
/// [`StopService::start_job`], so Stop everything, a run's Cancel and shutdown work alike.
#[derive(Debug)]
struct JobRegistry {
    next: AtomicU64,
    live: Mutex<HashMap<u64, (String, CancellationToken)>>,
    /// Jobs not yet ended, cancelled or not: shutdown waits for this to reach 0, so cancelled
    /// jobs record how they ended before the database closes.
    running: tokio::sync::watch::Sender<usize>,
}

impl Default for JobRegistry {
    fn default() -> Self {
        Self {
            next: AtomicU64::new(0),
            live: Mutex::default(),
            running: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl JobRegistry {
    fn cancel_all(&self) -> usize {
        let drained: Vec<_> = self.live.lock_unpoisoned().drain().collect();
        for (_, (kind, token)) in &drained {
            tracing::info!(job = %kind, "job cancelled by Stop everything");
            token.cancel();
        }
        drained.len()
    }
}

/// A running job. Its token is cancelled by Stop everything; dropping it says the job ended.
#[derive(Debug)]
pub struct Job {
    id: u64,
    token: CancellationToken,
    registry: Weak<JobRegistry>,
}

impl Job {
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Some(registry) = self.registry.upgrade() {
            registry.live.lock_unpoisoned().remove(&self.id);
            registry.running.send_modify(|n| *n = n.saturating_sub(1));
        }
    }
}

struct StopInner {
    store: Store,
    bus: EventBus,
    clock: SharedClock,
    stopped: AtomicBool,
    state: RwLock<StopState>,
    /// One stop or resume at a time, so saves and events come out in order.
    change: tokio::sync::Mutex<()>,
    jobs: Arc<JobRegistry>,
    halts: Mutex<Vec<Arc<dyn Halt>>>,
}

/// Stop everything; cheap to clone.
#[derive(Clone)]
pub struct StopService {
    inner: Arc<StopInner>,
}

impl std::fmt::Debug for StopService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StopService")
            .field("state", &self.state())
            .finish()
    }
}

impl StopService {
    /// Loads the saved state (a restart keeps Sentient stopped).
    pub async fn load(store: Store, bus: EventBus, clock: SharedClock) -> Result<Self, StoreError> {
        let state: StopState = store.meta_get(META_KEY).await?.unwrap_or_default();
        Ok(Self {
            inner: Arc::new(StopInner {
                store,
                bus,
                clock,
                stopped: AtomicBool::new(state.stopped),
                state: RwLock::new(state),
                change: tokio::sync::Mutex::new(()),
                jobs: Arc::new(JobRegistry::default()),
                halts: Mutex::new(Vec::new()),
            }),
        })
    }

    pub fn state(&self) -> StopState {
        self.inner.state.read_unpoisoned().clone()
    }

    /// The fast check schedulers and feeds make before starting anything.
    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// Joins a service to Stop everything.
    pub fn register(&self, service: Arc<dyn Halt>) {
        self.inner.halts.lock_unpoisoned().push(service);
    }

    /// How many jobs of `kind` are running now (for diagnostics and tests).
    pub fn running_jobs(&self, kind: &str) -> usize {
        self.inner
            .jobs
            .live
            .lock_unpoisoned()
            .values()
            .filter(|(k, _)| k == kind)
            .count()
    }

    /// Starts tracking a job of `kind`; its token is cancelled by the next stop.
    pub fn start_job(&self, kind: &str) -> Job {
        self.start_job_within(kind, &CancellationToken::new())
    }

    /// Like [`StopService::start_job`], for work that belongs to something with its own
    /// token (a run's Cancel, a reply's stop): the job's token fires on either.
    pub fn start_job_within(&self, kind: &str, parent: &CancellationToken) -> Job {
        let id = self.inner.jobs.next.fetch_add(1, Ordering::Relaxed);
        let token = parent.child_token();
        self.inner
            .jobs
            .live
            .lock_unpoisoned()
            .insert(id, (kind.to_owned(), token.clone()));
        self.inner.jobs.running.send_modify(|n| *n += 1);
        Job {
            id,
            token,
            registry: Arc::downgrade(&self.inner.jobs),
        }
    }

    /// Turns Stop everything on: the flag is set and saved first (so nothing new starts),
    /// then every running job is cancelled, then listeners hear about it. Calling it again
    /// keeps `stopped_at` and `source` and cancels only what started since.
    pub async fn stop_all(&self, source: Option<&str>) -> Result<StopResult, StopError> {
        let source = checked_source(source)?;
        let _one_at_a_time = self.inner.change.lock().await;
        let current = self.state();
        let state = if current.stopped {
            current
        } else {
            StopState {
                stopped: true,
                stopped_at: Some(self.inner.clock.now()),
                source: Some(source),
            }
        };
        self.inner.stopped.store(true, Ordering::SeqCst);
        self.inner.store.meta_set(META_KEY, &state).await?;
        *self.inner.state.write_unpoisoned() = state.clone();

        let cancelled = self.halt_everything().await;
        tracing::info!(source = ?state.source, cancelled, "Stop everything is on");
        self.inner
            .bus
            .publish(DomainEvent::StopUpdated(state.clone()));
        Ok(StopResult {
            state,
            cancelled: u32::try_from(cancelled).unwrap_or(u32::MAX),
        })
    }

    /// Turns Stop everything off.
    pub async fn resume(&self, source: Option<&str>) -> Result<StopState, StopError> {
        let source = checked_source(source)?;
        let _one_at_a_time = self.inner.change.lock().await;
        let state = StopState {
            stopped: false,
            stopped_at: None,
            source: Some(source),
        };
        self.inner.store.meta_set(META_KEY, &state).await?;
        *self.inner.state.write_unpoisoned() = state.clone();
        self.inner.stopped.store(false, Ordering::SeqCst);
        tracing::info!(source = ?state.source, "Stop everything is off");
        self.inner
            .bus
            .publish(DomainEvent::StopUpdated(state.clone()));
        Ok(state)
    }

    /// Cancels every tracked job and asks every registered service to halt; used by stop and
    /// by shutdown. Returns how many jobs were cancelled.
    pub async fn halt_everything(&self) -> usize {
        let mut cancelled = self.inner.jobs.cancel_all();
        let services: Vec<_> = self.inner.halts.lock_unpoisoned().clone();
        for service in services {
            let n = service.halt().await;
            tracing::debug!(service = service.name(), cancelled = n, "halted");
            cancelled += n;
        }
        cancelled
    }

    /// Waits until every job has ended (a cancelled job ends once it has recorded how it ended),
    /// at most `limit`. Says how many were still going.
    pub async fn jobs_ended_within(&self, limit: Duration) -> usize {
        let mut running = self.inner.jobs.running.subscribe();
        let _ = tokio::time::timeout(limit, running.wait_for(|n| *n == 0)).await;
        *running.borrow()
    }

    /// Runs `job` every `every` until `cancel` fires, the first time after `every` or a minute,
    /// whichever is sooner: a timer registered at start does no work during start. With
    /// `pause_on_stop`, ticks that fall while Stop everything is on are skipped (not queued up
    /// for later).
    pub fn run_every<F, Fut>(
        &self,
        name: &str,
        every: Duration,
        pause_on_stop: bool,
        cancel: CancellationToken,
        mut job: F,
    ) -> JoinHandle<()>
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let stop = self.clone();
        let name = name.to_owned();
        tokio::spawn(async move {
            let first = tokio::time::Instant::now() + every.min(FIRST_RUN_WITHIN);
            let mut ticks = tokio::time::interval_at(first, every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    () = cancel.cancelled() => break,
                    _ = ticks.tick() => {}
                }
                if pause_on_stop && stop.is_stopped() {
                    tracing::trace!(job = %name, "skipped while stopped");
                    continue;
                }
                job().await;
            }
        })
    }
}

fn checked_source(source: Option<&str>) -> Result<String, StopError> {
    let source = source
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or("desktop");
    if SOURCES.contains(&source) {
        Ok(source.to_owned())
    } else {
        Err(StopError::UnknownSource(source.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use chrono::Utc;

    use super::*;
    use crate::clock::{ManualClock, SystemClock};

    async fn service(dir: &std::path::Path) -> (StopService, EventBus) {
        let clock: SharedClock = Arc::new(SystemClock);
        let store = Store::open(&dir.join("s.db"), clock.clone())
            .await
            .expect("store");
        let bus = EventBus::new(clock.clone());
        (
            StopService::load(store, bus.clone(), clock)
                .await
                .expect("load"),
            bus,
        )
    }

    struct CountingService(AtomicUsize);
    impl Halt for CountingService {
        fn name(&self) -> &str {
            "counting"
        }
        fn halt(&self) -> BoxFuture<'_, usize> {
            Box::pin(async move {
                self.0.fetch_add(1, Ordering::SeqCst);
                2
            })
        }
    }

    #[tokio::test]
    async fn stop_then_resume_publishes_and_saves() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, bus) = service(dir.path()).await;
        let mut events = bus.subscribe();
        let result = stop.stop_all(Some("tray")).await.expect("stop");
        assert!(result.state.stopped && stop.is_stopped());
        assert_eq!(result.state.source.as_deref(), Some("tray"));
        assert!(result.state.stopped_at.is_some());
        let ev = events.recv().await.expect("event");
        assert_eq!(ev.event, DomainEvent::StopUpdated(result.state.clone()));

        let resumed = stop.resume(None).await.expect("resume");
        assert_eq!(
            resumed,
            StopState {
                stopped: false,
                stopped_at: None,
                source: Some("desktop".into())
            }
        );
        assert!(!stop.is_stopped());
    }

    #[tokio::test]
    async fn second_stop_keeps_first_time_and_counts_only_new_jobs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        let a = stop.start_job("chat");
        let b = stop.start_job("task");
        let first = stop.stop_all(Some("hotkey")).await.expect("stop");
        assert_eq!(first.cancelled, 2);
        assert!(a.is_cancelled() && b.is_cancelled());

        let c = stop.start_job("chat");
        let second = stop.stop_all(Some("desktop")).await.expect("stop again");
        assert_eq!(second.cancelled, 1);
        assert!(c.is_cancelled());
        assert_eq!(second.state.stopped_at, first.state.stopped_at);
        assert_eq!(second.state.source.as_deref(), Some("hotkey"));
    }

    #[tokio::test]
    async fn a_job_within_a_parent_ends_with_either() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        let parent = CancellationToken::new();
        let job = stop.start_job_within("reply", &parent);
        parent.cancel();
        assert!(job.is_cancelled(), "the owner's cancel reaches the job");
        let other = stop.start_job_within("reply", &CancellationToken::new());
        stop.stop_all(None).await.expect("stop");
        assert!(other.is_cancelled(), "Stop everything reaches it too");
    }

    #[tokio::test]
    async fn finished_jobs_are_not_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        drop(stop.start_job("done already"));
        assert_eq!(stop.stop_all(None).await.expect("stop").cancelled, 0);
    }

    #[tokio::test]
    async fn registered_services_are_halted_and_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        let svc = Arc::new(CountingService(AtomicUsize::new(0)));
        stop.register(svc.clone());
        let _job = stop.start_job("x");
        assert_eq!(stop.stop_all(None).await.expect("stop").cancelled, 3);
        assert_eq!(svc.0.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn state_survives_reload() {
        let dir = tempfile::tempdir().expect("tempdir");
        let clock = ManualClock::new(Utc::now());
        let shared: SharedClock = Arc::new(clock.clone());
        let store = Store::open(&dir.path().join("s.db"), shared.clone())
            .await
            .expect("store");
        let stop = StopService::load(store.clone(), EventBus::new(shared.clone()), shared.clone())
            .await
            .expect("load");
        let on = stop.stop_all(Some("device")).await.expect("stop");
        let again = StopService::load(store, EventBus::new(shared.clone()), shared)
            .await
            .expect("reload");
        assert!(again.is_stopped());
        assert_eq!(again.state(), on.state);
    }

    #[tokio::test]
    async fn unknown_source_is_refused_and_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        let err = stop.stop_all(Some("the moon")).await.expect_err("refused");
        assert_eq!(ApiError::from(err).status, 422);
        assert!(!stop.is_stopped());
    }

    #[tokio::test]
    async fn a_repeating_job_does_not_run_at_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        // The database is open; from here the test moves the clock itself.
        tokio::time::pause();
        let runs = Arc::new(AtomicUsize::new(0));
        let cancel = CancellationToken::new();
        let job = |runs: Arc<AtomicUsize>| {
            move || {
                runs.fetch_add(1, Ordering::SeqCst);
                async {}
            }
        };
        let hourly = Arc::new(AtomicUsize::new(0));
        stop.run_every(
            "often",
            Duration::from_secs(5),
            false,
            cancel.clone(),
            job(runs.clone()),
        );
        stop.run_every(
            "hourly",
            Duration::from_secs(3600),
            false,
            cancel.clone(),
            job(hourly.clone()),
        );
        tokio::time::sleep(Duration::from_millis(4_900)).await;
        assert_eq!(
            runs.load(Ordering::SeqCst),
            0,
            "nothing runs before its first interval"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        tokio::time::sleep(Duration::from_secs(55)).await;
        assert_eq!(
            hourly.load(Ordering::SeqCst),
            1,
            "a long interval's first run is within a minute"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 12, "then every interval");
        cancel.cancel();
    }

    #[tokio::test]
    async fn pause_on_stop_jobs_skip_ticks_while_stopped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (stop, _bus) = service(dir.path()).await;
        let runs = Arc::new(AtomicUsize::new(0));
        let (ran_tx, mut ran_rx) = tokio::sync::mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let counter = runs.clone();
        let handle = stop.run_every(
            "probe",
            Duration::from_millis(5),
            true,
            cancel.clone(),
            move || {
                counter.fetch_add(1, Ordering::SeqCst);
                let tx = ran_tx.clone();
                async move {
                    let _ = tx.send(());
                }
            },
        );
        ran_rx.recv().await.expect("runs while not stopped");
        stop.stop_all(None).await.expect("stop");
        // Drain anything that was already running when the flag went up.
        while ran_rx.try_recv().is_ok() {}
        let before = runs.load(Ordering::SeqCst);
        // A job that does not pause measures time for us: twenty of its ticks pass while
        // stopped, and the pausing job must not have run in any of them.
        let (tick_tx, mut tick_rx) = tokio::sync::mpsc::unbounded_channel();
        let metronome = stop.run_every(
            "metronome",
            Duration::from_millis(5),
            false,
            cancel.clone(),
            move || {
                let tx = tick_tx.clone();
                async move {
                    let _ = tx.send(());
                }
            },
        );
        for _ in 0..20 {
            tick_rx.recv().await.expect("metronome ticks");
        }
        assert_eq!(runs.load(Ordering::SeqCst), before);
        stop.resume(None).await.expect("resume");
        ran_rx.recv().await.expect("runs again after resume");
        cancel.cancel();
        handle.await.expect("ends on cancel");
        metronome.await.expect("ends on cancel");
    }
}
