//! The local model queue (models.local_queue): a local model (`ollama/`, `ollama_chat/`) does
//! one job at a time, so chat, text, JSON and embedding calls for it wait their turn here.
//! Cloud models never wait.
//!
//! - One slot for every local model, because they all share one Ollama.
//! - Waiting calls go by [`JobKind`] (chat first, background last), then first come first
//!   served. A running call is never cut off.
//! - Background work ([`JobKind::is_background`]) is held back ("deferred") while a chat reply
//!   uses the model, for `background_quiet` after one ends, and on battery unless allowed.
//! - Work a chat reply waits on (its tool calls, foreground subagents) is asked for as
//!   [`JobKind::Chat`], so it is never held back. A chat permit that has not touched the model
//!   for 60 s stops holding background work back and gives up the slot, so the queue can't
//!   deadlock on a reply that waits for something else.
//! - [`ModelBusy`] is what `GET /api/models/busy` returns; `on_change` gets it for the
//!   `model.busy` event at most once per 0.2 s, and only when something other than `since`
//!   changed.

use sentient_core::sync::MutexExt;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};

use tokio::sync::{Notify, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use crate::system::power::{PowerSource, SystemPower};
pub use sentient_core::domain::model_busy::{JobKind, ModelBusy};

/// A chat permit that has not touched the model for this long stops holding background work
/// back (and stops holding the slot), so a reply stuck waiting on something can't block all.
const CHAT_IDLE: Duration = Duration::from_secs(60);
/// How often waiting background work looks at the power status again while it is deferred.
const BATTERY_RECHECK: Duration = Duration::from_secs(30);
/// Quick changes are coalesced into one `model.busy` event after this long.
const PUBLISH_DELAY: Duration = Duration::from_millis(200);

/// The `models.local_queue`, `models.background_quiet_s` and `models.background_on_battery`
/// settings.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueSettings {
    /// Off: every call goes at once, as if the model were in the cloud.
    pub enabled: bool,
    /// How long background work stays held back after a chat reply ends.
    pub background_quiet: Duration,
    /// Whether background work may run while the computer is on battery.
    pub background_on_battery: bool,
}

impl Default for QueueSettings {
    fn default() -> Self {
        QueueSettings {
            enabled: true,
            background_quiet: Duration::from_secs(30),
            background_on_battery: false,
        }
    }
}

/// A waiting call was stopped (Stop everything, or its caller gave up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Stopped.")]
pub struct Cancelled;

/// The right to use the local model. Dropping it frees the model for the next call (and, for a
/// chat reply, starts the quiet period). Cloud calls and a disabled queue get one that does
/// nothing.
#[must_use = "the model is yours only while the permit lives"]
pub struct QueuePermit {
    /// `None` for a permit that holds nothing.
    inner: Option<PermitInner>,
}

struct PermitInner {
    shared: Arc<Shared>,
    id: u64,
    job: JobKind,
}

impl QueuePermit {
    /// A permit that holds nothing: for cloud models and a disabled queue.
    pub fn unqueued() -> Self {
        QueuePermit { inner: None }
    }

    /// Whether this permit holds the local model.
    pub fn is_queued(&self) -> bool {
        self.inner.is_some()
    }

    /// Who the held model is for; `None` for a permit that holds nothing.
    pub fn job(&self) -> Option<JobKind> {
        self.inner.as_ref().map(|inner| inner.job)
    }

    /// Marks the model as used now (call it for every streamed chunk). A chat permit that has
    /// not touched for 60 s stops holding background work back.
    pub fn touch(&self) {
        if let Some(inner) = &self.inner
            && inner.job == JobKind::Chat
        {
            let now = Instant::now();
            if let Some(last) = inner.shared.lock().chats.get_mut(&inner.id) {
                *last = now;
            }
        }
    }
}

impl Drop for QueuePermit {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            inner.shared.release(inner.id, inner.job);
        }
    }
}

impl fmt::Debug for QueuePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueuePermit")
            .field("job", &self.job())
            .field("id", &self.inner.as_ref().map(|inner| inner.id))
            .finish()
    }
}

/// The queue for the one local model slot. Cheap to clone: clones share one queue.
#[derive(Clone)]
pub struct LocalQueue {
    shared: Arc<Shared>,
}

impl fmt::Debug for LocalQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalQueue")
            .field("busy", &self.busy())
            .finish()
    }
}

impl LocalQueue {
    pub fn new(
        settings: QueueSettings,
        power: Arc<dyn PowerSource>,
        on_change: Arc<dyn Fn(ModelBusy) + Send + Sync>,
    ) -> Self {
        let state = State {
            settings,
            holder: None,
            chats: HashMap::new(),
            chat_ended: None,
            waiters: BTreeMap::new(),
            next_id: 0,
            publish_pending: false,
            published: ModelBusy::default(),
        };
        LocalQueue {
            shared: Arc::new(Shared {
                state: Mutex::new(state),
                wake: Notify::new(),
                power,
                on_change,
            }),
        }
    }

    /// Applies new settings at once: turning the queue off lets every waiting call go, and a
    /// new quiet period or battery rule applies to calls already waiting.
    pub fn update_settings(&self, settings: QueueSettings) {
        self.shared.lock().settings = settings;
        self.shared.dispatch();
        // Waiting calls recompute when to look again under the new rules.
        self.shared.wake.notify_waiters();
        self.shared.changed();
    }

    /// The settings in force.
    pub fn settings(&self) -> QueueSettings {
        self.shared.lock().settings.clone()
    }

    /// Whether `model` runs on the local Ollama and so queues here.
    pub fn is_local(model: &str) -> bool {
        model.starts_with("ollama/") || model.starts_with("ollama_chat/")
    }

    /// Waits for the model. Cloud models (and a disabled queue) get a permit that holds nothing
    /// at once. Cancelling `cancel` while waiting leaves the queue and returns [`Cancelled`];
    /// a token already cancelled returns it at once for a local model.
    pub async fn acquire(
        &self,
        job: JobKind,
        model: &str,
        cancel: &CancellationToken,
    ) -> Result<QueuePermit, Cancelled> {
        if !Self::is_local(model) {
            return Ok(QueuePermit::unqueued());
        }
        if cancel.is_cancelled() {
            return Err(Cancelled);
        }
        let shared = &self.shared;
        let (tx, mut rx) = oneshot::channel();
        let key = {
            let mut state = shared.lock();
            if !state.settings.enabled {
                return Ok(QueuePermit::unqueued());
            }
            let key = (job, state.next_id);
            state.next_id += 1;
            state.waiters.insert(
                key,
                Waiter {
                    model: model.to_owned(),
                    tx,
                },
            );
            key
        };
        // Declared after `rx`, so on any exit (cancel, or this future dropped) the entry leaves
        // the queue first, and only then is a permit that already sits in `rx` dropped, which
        // hands the model on.
        let _guard = WaitGuard { shared, key };
        if shared.dispatch() {
            shared.wake.notify_waiters();
        }
        shared.changed();

        loop {
            // Enabled before reading the state, so a change made in between still wakes us.
            let mut notified = pin!(shared.wake.notified());
            notified.as_mut().enable();
            let wake_at = shared.lock().next_wake(Instant::now());
            let timer = async move {
                match wake_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                granted = &mut rx => {
                    return Ok(granted.unwrap_or_else(|_| {
                        // Only happens if the entry vanished without a grant, which nothing
                        // does; going ahead beats failing a call with "Stopped.".
                        tracing::warn!(job = %job, "local queue dropped a waiting call; running it unqueued");
                        QueuePermit::unqueued()
                    }));
                }
                () = cancel.cancelled() => return Err(Cancelled),
                () = notified => {}
                () = timer => {
                    // A quiet period ended, a chat went idle, or the power status may have
                    // changed: look again.
                    if shared.dispatch() {
                        shared.wake.notify_waiters();
                    }
                    shared.changed();
                }
            }
        }
    }

    /// What the local model is doing now.
    pub fn busy(&self) -> ModelBusy {
        self.shared.snapshot()
    }
}

/// Removes a waiting call's entry when its `acquire` ends in any way.
struct WaitGuard<'a> {
    shared: &'a Arc<Shared>,
    key: WaitKey,
}

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        let removed = self.shared.lock().waiters.remove(&self.key).is_some();
        if removed {
            self.shared.changed();
        }
    }
}

/// Priority first, then arrival: the `BTreeMap` order is the grant order.
type WaitKey = (JobKind, u64);

struct Waiter {
    model: String,
    tx: oneshot::Sender<QueuePermit>,
}

/// The call that holds the slot.
struct Holder {
    id: u64,
    job: JobKind,
    model: String,
    since: DateTime<Utc>,
}

struct State {
    settings: QueueSettings,
    holder: Option<Holder>,
    /// Every live chat permit and when it last touched the model. Kept apart from `holder`
    /// because an idle chat permit can lose the slot and still be alive.
    chats: HashMap<u64, Instant>,
    /// When the last chat permit was dropped: the start of the quiet period.
    chat_ended: Option<Instant>,
    waiters: BTreeMap<WaitKey, Waiter>,
    /// Both permit ids and arrival numbers; one counter keeps them unique and ordered.
    next_id: u64,
    /// A publish is scheduled; later changes ride along with it.
    publish_pending: bool,
    /// The last value given to `on_change`.
    published: ModelBusy,
}

impl State {
    /// A chat permit touched the model less than a minute ago.
    fn chat_active(&self, now: Instant) -> bool {
        self.chats
            .values()
            .any(|last| now.saturating_duration_since(*last) < CHAT_IDLE)
    }

    fn defer_reason(&self, now: Instant, on_battery: bool) -> Option<&'static str> {
        let quiet = self.chat_ended.is_some_and(|ended| {
            now.saturating_duration_since(ended) < self.settings.background_quiet
        });
        if self.chat_active(now) || quiet {
            Some("chat")
        } else if on_battery && !self.settings.background_on_battery {
            Some("battery")
        } else {
            None
        }
    }

    /// Free, or held by a chat permit that has not touched the model for a minute (the
    /// anti-deadlock rule: such a reply is waiting on something else, not using the model).
    fn slot_free(&self, now: Instant) -> bool {
        match &self.holder {
            None => true,
            Some(holder) => {
                holder.job == JobKind::Chat
                    && self
                        .chats
                        .get(&holder.id)
                        .is_none_or(|last| now.saturating_duration_since(*last) >= CHAT_IDLE)
            }
        }
    }

    /// Background kinds sort last, so the last entry tells.
    fn has_background_waiter(&self) -> bool {
        self.waiters
            .last_key_value()
            .is_some_and(|((job, _), _)| job.is_background())
    }

    /// The next moment time alone may let a waiting call go, if any. Only future moments
    /// count, so a passed deadline can't spin the waiters.
    fn next_wake(&self, now: Instant) -> Option<Instant> {
        if self.waiters.is_empty() {
            return None;
        }
        let mut next: Option<Instant> = None;
        let mut consider = |at: Option<Instant>| {
            if let Some(at) = at
                && at > now
            {
                next = Some(next.map_or(at, |current| current.min(at)));
            }
        };
        if let Some(holder) = &self.holder
            && holder.job == JobKind::Chat
            && let Some(last) = self.chats.get(&holder.id)
        {
            consider(last.checked_add(CHAT_IDLE));
        }
        if self.has_background_waiter() {
            for last in self.chats.values() {
                consider(last.checked_add(CHAT_IDLE));
            }
            if let Some(ended) = self.chat_ended {
                consider(ended.checked_add(self.settings.background_quiet));
            }
            if !self.settings.background_on_battery {
                consider(now.checked_add(BATTERY_RECHECK));
            }
        }
        next
    }

    fn snapshot(&self, now: Instant, on_battery: bool) -> ModelBusy {
        let reason = self.defer_reason(now, on_battery);
        let (mut waiting, mut deferred) = (0u32, 0u32);
        for (job, _) in self.waiters.keys() {
            if job.is_background() && reason.is_some() {
                deferred = deferred.saturating_add(1);
            } else {
                waiting = waiting.saturating_add(1);
            }
        }
        ModelBusy {
            busy: self.holder.is_some(),
            job: self.holder.as_ref().map(|holder| holder.job),
            model: self.holder.as_ref().map(|holder| holder.model.clone()),
            since: self.holder.as_ref().map(|holder| holder.since),
            waiting,
            deferred,
            deferred_reason: reason.filter(|_| deferred > 0).map(str::to_owned),
        }
    }
}

struct Shared {
    state: Mutex<State>,
    /// Wakes waiting calls to recompute when to look again (a release, new settings).
    wake: Notify,
    power: Arc<dyn PowerSource>,
    on_change: Arc<dyn Fn(ModelBusy) + Send + Sync>,
}

impl Shared {
    /// Nothing panics while the lock is held, and every change leaves the state whole, so a
    /// poisoned lock is still safe to use.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock_unpoisoned()
    }

    /// Whether battery power holds background work back now. Asked outside the state lock
    /// (reading the power status may take a moment), and only when it could matter.
    fn battery_blocks(&self) -> bool {
        let matters = {
            let state = self.lock();
            !state.settings.background_on_battery && state.has_background_waiter()
        };
        matters && self.power.on_battery()
    }

    fn snapshot(&self) -> ModelBusy {
        let on_battery = self.battery_blocks();
        self.lock().snapshot(Instant::now(), on_battery)
    }

    /// Hands the slot to the first waiting call that may go. Returns whether anyone got it.
    fn dispatch(self: &Arc<Self>) -> bool {
        let on_battery = self.battery_blocks();
        let now = Instant::now();
        let mut state = self.lock();
        if !state.settings.enabled {
            // Turned off while calls waited: all go now, untracked, like calls made from now on.
            let waiters = std::mem::take(&mut state.waiters);
            drop(state);
            let any = !waiters.is_empty();
            for waiter in waiters.into_values() {
                // A receiver already gone is a caller that gave up; nothing to hand back.
                let _ = waiter.tx.send(QueuePermit::unqueued());
            }
            return any;
        }
        let mut granted = false;
        while state.slot_free(now) {
            let Some(&key) = state.waiters.keys().next() else {
                break;
            };
            let job = key.0;
            // Non-background kinds sort first, so a deferred head means only deferred calls
            // are left.
            if job.is_background() && state.defer_reason(now, on_battery).is_some() {
                break;
            }
            let Some(waiter) = state.waiters.remove(&key) else {
                break;
            };
            let id = state.next_id;
            state.next_id += 1;
            // An idle chat holder is displaced here; its permit lives on but no longer holds.
            let previous = state.holder.replace(Holder {
                id,
                job,
                model: waiter.model,
                since: Utc::now(),
            });
            if job == JobKind::Chat {
                state.chats.insert(id, now);
            }
            let permit = QueuePermit {
                inner: Some(PermitInner {
                    shared: Arc::clone(self),
                    id,
                    job,
                }),
            };
            match waiter.tx.send(permit) {
                Ok(()) => granted = true,
                Err(mut lost) => {
                    // The caller went away just now. Disarm the permit (its Drop would take
                    // the lock held here) and undo the grant.
                    lost.inner = None;
                    state.holder = previous;
                    state.chats.remove(&id);
                }
            }
        }
        granted
    }

    /// A permit was dropped: free the slot and hand it on at once.
    fn release(self: &Arc<Self>, id: u64, job: JobKind) {
        {
            let mut state = self.lock();
            if job == JobKind::Chat {
                state.chats.remove(&id);
                state.chat_ended = Some(Instant::now());
            }
            if state.holder.as_ref().is_some_and(|holder| holder.id == id) {
                state.holder = None;
            }
        }
        self.dispatch();
        // A new quiet period started or the slot freed: waiting calls recompute their timers.
        self.wake.notify_waiters();
        self.changed();
    }

    /// Something may have changed: publish within 0.2 s, once for any number of changes.
    fn changed(self: &Arc<Self>) {
        {
            let mut state = self.lock();
            if state.publish_pending {
                return;
            }
            state.publish_pending = true;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let shared = Arc::clone(self);
                handle.spawn(async move {
                    tokio::time::sleep(PUBLISH_DELAY).await;
                    shared.publish();
                });
            }
            // No runtime here (a permit dropped on a plain thread): publish now rather than
            // never.
            Err(_) => self.publish(),
        }
    }

    fn publish(&self) {
        // Cleared first, so a change from here on schedules a publish of its own.
        self.lock().publish_pending = false;
        let current = self.snapshot();
        let fresh = {
            let mut state = self.lock();
            if current.same_but_since(&state.published) {
                false
            } else {
                state.published = current.clone();
                true
            }
        };
        if fresh {
            (self.on_change)(current);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use futures::FutureExt;
    use tokio::task::JoinHandle;

    use super::*;

    const LOCAL: &str = "ollama_chat/qwen3:8b";

    struct FakePower(AtomicBool);

    impl PowerSource for FakePower {
        fn on_battery(&self) -> bool {
            self.0.load(Ordering::SeqCst)
        }
    }

    struct Harness {
        queue: LocalQueue,
        power: Arc<FakePower>,
        published: Arc<Mutex<Vec<ModelBusy>>>,
    }

    impl Harness {
        fn published(&self) -> Vec<ModelBusy> {
            self.published.lock().expect("published lock").clone()
        }

        fn waiters(&self) -> usize {
            self.queue.shared.lock().waiters.len()
        }
    }

    fn settings(quiet_s: u64) -> QueueSettings {
        QueueSettings {
            enabled: true,
            background_quiet: Duration::from_secs(quiet_s),
            background_on_battery: false,
        }
    }

    fn harness(settings: QueueSettings) -> Harness {
        let power = Arc::new(FakePower(AtomicBool::new(false)));
        let published = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&published);
        let queue = LocalQueue::new(
            settings,
            power.clone(),
            Arc::new(move |busy: ModelBusy| sink.lock().expect("sink lock").push(busy)),
        );
        Harness {
            queue,
            power,
            published,
        }
    }

    /// Lets spawned tasks run without moving the (paused) clock.
    async fn settle() {
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
    }

    /// Awaits what must finish without the clock moving, so a regression fails instead of
    /// hanging (or passing late, once some timer lets it through).
    async fn soon<F: std::future::Future>(future: F) -> F::Output {
        tokio::time::timeout(Duration::from_millis(1), future)
            .await
            .expect("finished without waiting")
    }

    async fn take(queue: &LocalQueue, job: JobKind) -> QueuePermit {
        soon(queue.acquire(job, LOCAL, &CancellationToken::new()))
            .await
            .expect("acquire")
    }

    fn spawn_hold(queue: &LocalQueue, job: JobKind) -> JoinHandle<Result<QueuePermit, Cancelled>> {
        let queue = queue.clone();
        tokio::spawn(async move { queue.acquire(job, LOCAL, &CancellationToken::new()).await })
    }

    #[tokio::test(start_paused = true)]
    async fn grants_by_priority_then_arrival() {
        let h = harness(settings(0));
        let holder = take(&h.queue, JobKind::Interactive).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let arrivals = [
            (JobKind::Background, "background"),
            (JobKind::Titles, "titles"),
            (JobKind::Task, "task 1"),
            (JobKind::Chat, "chat 1"),
            (JobKind::Memory, "memory"),
            (JobKind::Interactive, "interactive"),
            (JobKind::Task, "task 2"),
            (JobKind::Chat, "chat 2"),
            (JobKind::Suggestions, "suggestions"),
            (JobKind::Skills, "skills"),
        ];
        let mut tasks = Vec::new();
        for (job, label) in arrivals {
            let queue = h.queue.clone();
            let order = Arc::clone(&order);
            tasks.push(tokio::spawn(async move {
                let permit = queue
                    .acquire(job, LOCAL, &CancellationToken::new())
                    .await
                    .expect("acquire");
                order.lock().expect("order lock").push(label);
                // Hold it across a yield so the next grant really waits for this drop.
                tokio::task::yield_now().await;
                drop(permit);
            }));
            settle().await;
        }
        assert_eq!(h.queue.busy().waiting, 10);
        assert!(order.lock().expect("order lock").is_empty());
        drop(holder);
        for task in tasks {
            soon(task).await.expect("task");
        }
        assert_eq!(
            *order.lock().expect("order lock"),
            [
                "chat 1",
                "chat 2",
                "interactive",
                "task 1",
                "task 2",
                "suggestions",
                "memory",
                "skills",
                "titles",
                "background",
            ]
        );
        assert!(!h.queue.busy().busy);
    }

    #[tokio::test(start_paused = true)]
    async fn cloud_models_never_wait() {
        let h = harness(settings(30));
        let local = take(&h.queue, JobKind::Chat).await;
        let waiting = spawn_hold(&h.queue, JobKind::Interactive);
        settle().await;
        let cancel = CancellationToken::new();
        for (job, model) in [
            (JobKind::Chat, "anthropic/claude-sonnet-4"),
            (JobKind::Background, "openai/gpt-4o"),
            (JobKind::Task, "openrouter/ollama/fake"),
        ] {
            let permit = h
                .queue
                .acquire(job, model, &cancel)
                .now_or_never()
                .expect("a cloud call never waits")
                .expect("granted");
            assert!(!permit.is_queued());
        }
        let busy = h.queue.busy();
        assert_eq!(busy.job, Some(JobKind::Chat));
        assert_eq!(busy.waiting, 1);
        assert!(LocalQueue::is_local("ollama/llama3.2"));
        assert!(LocalQueue::is_local("ollama_chat/qwen3:8b"));
        assert!(!LocalQueue::is_local("openai/gpt-4o"));
        assert!(!LocalQueue::is_local("ollamax/model"));
        drop(local);
        assert!(
            soon(waiting)
                .await
                .expect("task")
                .expect("granted")
                .is_queued()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn background_waits_while_chat_runs_and_for_the_quiet_period() {
        let h = harness(settings(30));
        let chat = take(&h.queue, JobKind::Chat).await;
        let task = spawn_hold(&h.queue, JobKind::Task);
        settle().await;
        let busy = h.queue.busy();
        assert_eq!(busy.job, Some(JobKind::Chat));
        assert_eq!((busy.waiting, busy.deferred), (0, 1));
        assert_eq!(busy.deferred_reason.as_deref(), Some("chat"));

        drop(chat);
        settle().await;
        assert!(!task.is_finished());
        let busy = h.queue.busy();
        assert!(!busy.busy);
        assert_eq!((busy.waiting, busy.deferred), (0, 1));
        assert_eq!(busy.deferred_reason.as_deref(), Some("chat"));

        tokio::time::advance(Duration::from_secs(29)).await;
        settle().await;
        assert!(!task.is_finished(), "still quiet at 29 s");

        tokio::time::advance(Duration::from_secs(1)).await;
        settle().await;
        assert!(task.is_finished(), "granted at 30 s");
        let permit = soon(task).await.expect("task").expect("granted");
        let busy = h.queue.busy();
        assert_eq!(busy.job, Some(JobKind::Task));
        assert_eq!((busy.waiting, busy.deferred), (0, 0));
        assert_eq!(busy.deferred_reason, None);
        drop(permit);
    }

    #[tokio::test(start_paused = true)]
    async fn idle_chat_permit_stops_holding_background_back_after_60_s() {
        let h = harness(settings(30));
        let chat = take(&h.queue, JobKind::Chat).await;
        let task = spawn_hold(&h.queue, JobKind::Task);
        settle().await;

        // A touch at 50 s keeps the reply active until 110 s.
        tokio::time::advance(Duration::from_secs(50)).await;
        chat.touch();
        tokio::time::advance(Duration::from_secs(59)).await;
        settle().await;
        assert!(!task.is_finished());
        assert_eq!(h.queue.busy().deferred_reason.as_deref(), Some("chat"));

        tokio::time::advance(Duration::from_secs(1)).await;
        settle().await;
        assert!(task.is_finished(), "an idle chat no longer holds the model");
        let permit = soon(task).await.expect("task").expect("granted");
        assert_eq!(h.queue.busy().job, Some(JobKind::Task));

        // The idle reply ending later does not disturb the call that took over.
        drop(chat);
        let busy = h.queue.busy();
        assert_eq!(busy.job, Some(JobKind::Task));
        drop(permit);
        assert!(!h.queue.busy().busy);
    }

    #[tokio::test(start_paused = true)]
    async fn battery_defers_background_unless_allowed() {
        let h = harness(settings(30));
        h.power.0.store(true, Ordering::SeqCst);
        let task = spawn_hold(&h.queue, JobKind::Task);
        settle().await;
        assert!(!task.is_finished());
        let busy = h.queue.busy();
        assert!(!busy.busy);
        assert_eq!((busy.waiting, busy.deferred), (0, 1));
        assert_eq!(busy.deferred_reason.as_deref(), Some("battery"));

        // Interactive work is never held back for power.
        let interactive = h
            .queue
            .acquire(JobKind::Interactive, LOCAL, &CancellationToken::new())
            .now_or_never()
            .expect("not held back")
            .expect("granted");
        drop(interactive);
        settle().await;
        assert!(!task.is_finished());

        h.queue.update_settings(QueueSettings {
            background_on_battery: true,
            ..settings(30)
        });
        settle().await;
        assert!(task.is_finished(), "allowed on battery");
        drop(soon(task).await.expect("task").expect("granted"));

        // Back to the default; the power status is looked at again every 30 s.
        h.queue.update_settings(settings(30));
        let memory = spawn_hold(&h.queue, JobKind::Memory);
        settle().await;
        assert_eq!(h.queue.busy().deferred_reason.as_deref(), Some("battery"));
        h.power.0.store(false, Ordering::SeqCst);
        tokio::time::advance(Duration::from_secs(29)).await;
        settle().await;
        assert!(!memory.is_finished());
        tokio::time::advance(Duration::from_secs(1)).await;
        settle().await;
        assert!(memory.is_finished(), "plugged in, seen at the next check");
        drop(soon(memory).await.expect("task").expect("granted"));
    }

    #[tokio::test(start_paused = true)]
    async fn chat_arriving_while_background_is_deferred_goes_first() {
        // The model is free, background work deferred by the quiet period: chat goes at once.
        let h = harness(settings(30));
        drop(take(&h.queue, JobKind::Chat).await);
        let task = spawn_hold(&h.queue, JobKind::Task);
        settle().await;
        assert_eq!(h.queue.busy().deferred, 1);
        let chat = h
            .queue
            .acquire(JobKind::Chat, LOCAL, &CancellationToken::new())
            .now_or_never()
            .expect("chat goes at once")
            .expect("granted");
        settle().await;
        assert!(!task.is_finished());
        assert_eq!(h.queue.busy().job, Some(JobKind::Chat));
        drop(chat);
        task.abort();

        // The model is busy, background work waits first: a chat arriving later still goes first.
        let h = harness(settings(0));
        let holder = take(&h.queue, JobKind::Interactive).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (job, label) in [(JobKind::Task, "task"), (JobKind::Chat, "chat")] {
            let queue = h.queue.clone();
            let order = Arc::clone(&order);
            tasks.push(tokio::spawn(async move {
                let permit = queue
                    .acquire(job, LOCAL, &CancellationToken::new())
                    .await
                    .expect("acquire");
                order.lock().expect("order lock").push(label);
                permit
            }));
            settle().await;
        }
        drop(holder);
        settle().await;
        assert_eq!(*order.lock().expect("order lock"), ["chat"]);
        assert_eq!(h.queue.busy().job, Some(JobKind::Chat));
        let chat = soon(tasks.pop().expect("chat task")).await.expect("task");
        drop(chat);
        let task = soon(tasks.pop().expect("task task")).await.expect("task");
        assert_eq!(task.job(), Some(JobKind::Task));
        assert_eq!(*order.lock().expect("order lock"), ["chat", "task"]);
    }

    #[tokio::test(start_paused = true)]
    async fn cancelling_a_waiting_call_removes_it() {
        let h = harness(settings(30));
        let holder = take(&h.queue, JobKind::Interactive).await;
        let token = CancellationToken::new();
        let first = {
            let queue = h.queue.clone();
            let token = token.clone();
            tokio::spawn(async move { queue.acquire(JobKind::Interactive, LOCAL, &token).await })
        };
        settle().await;
        let second = spawn_hold(&h.queue, JobKind::Interactive);
        let third = spawn_hold(&h.queue, JobKind::Titles);
        settle().await;
        assert_eq!(h.queue.busy().waiting, 3);

        token.cancel();
        settle().await;
        assert_eq!(
            soon(first).await.expect("task").expect_err("cancelled"),
            Cancelled
        );
        assert_eq!(h.queue.busy().waiting, 2);
        assert_eq!(h.waiters(), 2);

        // A caller that just goes away (its future dropped) leaves no entry behind either.
        third.abort();
        settle().await;
        assert_eq!(h.queue.busy().waiting, 1);
        assert_eq!(h.waiters(), 1);

        // The drop hands the model on before anything else runs.
        drop(holder);
        assert!(h.queue.busy().busy);
        assert_eq!(h.waiters(), 0);
        let permit = soon(second).await.expect("task").expect("granted");
        assert_eq!(permit.job(), Some(JobKind::Interactive));

        // An already cancelled token doesn't queue at all.
        let gone = h.queue.acquire(JobKind::Chat, LOCAL, &token).await;
        assert_eq!(gone.expect_err("cancelled").to_string(), "Stopped.");
        assert_eq!(h.waiters(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn busy_counts_waiting_and_deferred() {
        let h = harness(settings(30));
        assert_eq!(h.queue.busy(), ModelBusy::default());

        drop(take(&h.queue, JobKind::Chat).await);
        let holder = take(&h.queue, JobKind::Interactive).await;
        let mut tasks = Vec::new();
        for job in [
            JobKind::Interactive,
            JobKind::Task,
            JobKind::Memory,
            JobKind::Chat,
        ] {
            tasks.push(spawn_hold(&h.queue, job));
        }
        settle().await;
        let busy = h.queue.busy();
        assert!(busy.busy);
        assert_eq!(busy.job, Some(JobKind::Interactive));
        assert_eq!(busy.model.as_deref(), Some(LOCAL));
        assert!(busy.since.is_some());
        assert_eq!((busy.waiting, busy.deferred), (2, 2));
        assert_eq!(busy.deferred_reason.as_deref(), Some("chat"));

        // Once the quiet period is over the background calls go as soon as the model is free.
        tokio::time::advance(Duration::from_secs(30)).await;
        settle().await;
        let busy = h.queue.busy();
        assert_eq!((busy.waiting, busy.deferred), (4, 0));
        assert_eq!(busy.deferred_reason, None);

        drop(holder);
        for task in tasks {
            task.abort();
        }
    }

    #[tokio::test(start_paused = true)]
    async fn on_change_is_debounced_and_skips_since_only_changes() {
        let h = harness(settings(0));
        let first = take(&h.queue, JobKind::Interactive).await;
        let a = spawn_hold(&h.queue, JobKind::Interactive);
        let b = spawn_hold(&h.queue, JobKind::Task);
        settle().await;

        tokio::time::sleep(Duration::from_millis(199)).await;
        assert!(h.published().is_empty(), "nothing before 0.2 s");
        tokio::time::sleep(Duration::from_millis(1)).await;
        settle().await;
        let published = h.published();
        assert_eq!(published.len(), 1, "several quick changes, one publish");
        assert_eq!(published[0], h.queue.busy());
        assert_eq!(published[0].waiting, 2);

        a.abort();
        b.abort();
        settle().await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let published = h.published();
        assert_eq!(published.len(), 2);
        assert_eq!(published[1].waiting, 0);

        // The same kind of call on the same model takes over: only `since` differs.
        drop(first);
        std::thread::sleep(Duration::from_millis(2));
        let second = take(&h.queue, JobKind::Interactive).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let published = h.published();
        assert_eq!(published.len(), 2, "a since-only change is not published");
        assert_ne!(h.queue.busy().since, published[1].since);

        drop(second);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let published = h.published();
        assert_eq!(published.len(), 3);
        assert_eq!(published[2], ModelBusy::default());
    }

    #[tokio::test(start_paused = true)]
    async fn disabled_queue_grants_at_once() {
        let h = harness(QueueSettings {
            enabled: false,
            ..settings(30)
        });
        let cancel = CancellationToken::new();
        let first = h
            .queue
            .acquire(JobKind::Chat, LOCAL, &cancel)
            .now_or_never()
            .expect("at once")
            .expect("granted");
        let second = h
            .queue
            .acquire(JobKind::Background, LOCAL, &cancel)
            .now_or_never()
            .expect("at once")
            .expect("granted");
        assert!(!first.is_queued() && !second.is_queued());
        assert!(!h.queue.busy().busy);

        // Turning the queue off lets calls that were waiting go at once.
        let h = harness(settings(30));
        let holder = take(&h.queue, JobKind::Interactive).await;
        let waiting = spawn_hold(&h.queue, JobKind::Interactive);
        let deferred = spawn_hold(&h.queue, JobKind::Background);
        h.power.0.store(true, Ordering::SeqCst);
        settle().await;
        assert_eq!(h.waiters(), 2);
        h.queue.update_settings(QueueSettings {
            enabled: false,
            ..settings(30)
        });
        settle().await;
        assert!(
            !soon(waiting)
                .await
                .expect("task")
                .expect("granted")
                .is_queued()
        );
        assert!(
            !soon(deferred)
                .await
                .expect("task")
                .expect("granted")
                .is_queued()
        );
        assert_eq!(h.waiters(), 0);
        drop(holder);
        assert!(!h.queue.busy().busy);
    }

    #[test]
    fn queue_permits_and_waits_can_cross_threads() {
        fn send<T: Send>(_: &T) {}
        fn send_sync<T: Send + Sync>() {}
        send_sync::<LocalQueue>();
        send_sync::<QueuePermit>();
        let h = harness(settings(30));
        let cancel = CancellationToken::new();
        // tokio::spawn needs the wait itself to be Send.
        send(&h.queue.acquire(JobKind::Chat, LOCAL, &cancel));
    }

    #[test]
    fn job_kinds_serialize_in_snake_case_and_rank() {
        assert_eq!(JobKind::default(), JobKind::Interactive);
        assert_eq!(
            serde_json::to_string(&JobKind::Suggestions).expect("json"),
            "\"suggestions\""
        );
        for job in [JobKind::Chat, JobKind::Interactive] {
            assert!(!job.is_background());
        }
        for job in [
            JobKind::Task,
            JobKind::Suggestions,
            JobKind::Memory,
            JobKind::Skills,
            JobKind::Titles,
            JobKind::Background,
        ] {
            assert!(job.is_background());
            let json = serde_json::to_string(&job).expect("json");
            assert_eq!(json, format!("\"{job}\""));
        }
        let idle = serde_json::to_value(ModelBusy::default()).expect("json");
        assert_eq!(
            idle,
            serde_json::json!({
                "busy": false, "job": null, "model": null, "since": null,
                "waiting": 0, "deferred": 0, "deferred_reason": null
            })
        );
    }
}
