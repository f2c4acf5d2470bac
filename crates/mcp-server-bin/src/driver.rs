//! What both transports need to drive the adapters: running a query against the service, the
//! table of subscribers to wake, and the lifetime of a subscriber.
//!
//! **Layer:** server, shared by the stdio and HTTP transports. An adapter's `Output::Query` is
//! answered here on the spot when the service can ([`answer_now`]: a static read), or run as a
//! future that owns everything it needs ([`answer`]); when the hub says a
//! subscriber has changes waiting, [`Wakers::wake`] calls the wake function its transport
//! registered, or puts the key of the stream it serves on its connection's [`ReadyQueue`]. A
//! [`Signal`] (changes waiting) and a [`Latch`] (shutdown) are the cheap wake-ups
//! the HTTP streams poll, with a [`KeepAlive`] timer: a wait on them lives as long as the stream
//! and its poll takes no lock. This module never parses or writes a message and never knows an
//! era.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use futures_util::task::AtomicWaker;

use mcp_resources_core::policy::Principal;
use mcp_resources_core::service::{Answer, Query, QueryContext, Service};
use mcp_resources_core::subscription::{Change, IdHasher, SubscriberId};

use crate::server::Shared;

/// What tells one transport task that a subscriber has changes to drain: a [`Signal`] polled
/// by an HTTP stream (called through the signal itself, with no closure around it: a fan-out
/// calls one per subscriber), or any function.
pub(crate) trait WakeUp: Send + Sync {
    fn wake_up(&self);
}

impl<F: Fn() + Send + Sync> WakeUp for F {
    fn wake_up(&self) {
        self();
    }
}

impl WakeUp for Signal {
    fn wake_up(&self) {
        self.raise();
    }
}

/// A registered [`WakeUp`].
pub(crate) type Wake = Arc<dyn WakeUp>;

/// A hasher for the latch's waiter keys: it hands them out itself, so no client can choose them
/// to collide.
type KeyHasher = foldhash::fast::FixedState;

/// How a subscriber is told it has changes waiting.
enum WakeTarget {
    /// The wake function of the transport task that serves it.
    Call(Wake),
    /// Its stream's key on the ready queue of the task that polls the stream
    /// ([`Wakers::queue_on`]): a fan-out touches this table and the queue, nothing of the
    /// stream's own.
    Queue { queue: Arc<ReadyQueue>, key: usize },
}

/// Subscriber → how to wake the transport task that serves it.
#[derive(Default)]
pub(crate) struct Wakers {
    table: Mutex<HashMap<SubscriberId, WakeTarget, IdHasher>>,
}

impl std::fmt::Debug for Wakers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wakers")
            .field("subscribers", &self.lock().len())
            .finish()
    }
}

impl Wakers {
    /// Calls `wake` whenever `subscriber` has changes waiting, until unregistered.
    pub(crate) fn register(&self, subscriber: SubscriberId, wake: Wake) {
        self.lock().insert(subscriber, WakeTarget::Call(wake));
    }

    /// From now on, puts `key` on `queue` instead whenever `subscriber` has changes waiting,
    /// until unregistered; the owner of the queue must then look for changes whenever it polls
    /// the stream of `key`. Nothing for a subscriber not registered (any more).
    pub(crate) fn queue_on(&self, subscriber: SubscriberId, queue: &Arc<ReadyQueue>, key: usize) {
        if let Some(target) = self.lock().get_mut(&subscriber) {
            *target = WakeTarget::Queue {
                queue: Arc::clone(queue),
                key,
            };
        }
    }

    /// Undoes [`queue_on`](Self::queue_on): calls `wake` again for `subscriber`, if its changes
    /// still go to `key` on `queue` (and not to a later stream's place).
    pub(crate) fn unqueue(
        &self,
        subscriber: SubscriberId,
        queue: &Arc<ReadyQueue>,
        key: usize,
        wake: Wake,
    ) {
        let mut table = self.lock();
        let Some(target) = table.get_mut(&subscriber) else {
            return;
        };
        if matches!(target, WakeTarget::Queue { queue: current, key: current_key }
            if Arc::ptr_eq(current, queue) && *current_key == key)
        {
            *target = WakeTarget::Call(wake);
        }
    }

    /// Stops waking `subscriber`.
    pub(crate) fn unregister(&self, subscriber: SubscriberId) {
        self.lock().remove(&subscriber);
    }

    /// Wakes each of `subscribers` that has a wake function. The functions are called with the
    /// table's lock held, which spares a fan-out a reference count taken and dropped per
    /// subscriber: a wake function only raises a signal or sends on a channel, and must never
    /// call back into this table.
    pub(crate) fn wake(&self, subscribers: &[SubscriberId]) {
        if subscribers.is_empty() {
            return;
        }
        let table = self.lock();
        for subscriber in subscribers {
            match table.get(subscriber) {
                Some(WakeTarget::Call(wake)) => wake.wake_up(),
                Some(WakeTarget::Queue { queue, key }) => queue.push(*key),
                None => {}
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SubscriberId, WakeTarget, IdHasher>> {
        // Every method leaves the table whole, so a poisoned lock holds consistent data.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A level-triggered wake-up polled by one stream: [`Signal::raise`] sets it and wakes the task
/// that last polled it; [`Signal::poll_take`] clears it. Unlike a `Notify`, waiting on it
/// allocates nothing, takes no lock and needs no future re-created at every poll; a raise with
/// no task waiting is kept until taken.
#[derive(Debug, Default)]
pub(crate) struct Signal {
    raised: AtomicBool,
    waker: AtomicWaker,
}

impl Signal {
    /// Sets the signal and wakes the task waiting on it, if any.
    pub(crate) fn raise(&self) {
        self.raised.store(true, Ordering::Release);
        self.waker.wake();
    }

    /// Whether the signal was raised since it was last taken (clearing it); otherwise the task
    /// of `context` is woken by the next raise.
    pub(crate) fn poll_take(&self, context: &Context<'_>) -> Poll<()> {
        if self.raised.swap(false, Ordering::Acquire) {
            return Poll::Ready(());
        }
        self.waker.register(context.waker());
        // A raise between the swap and the registration woke nobody: look again.
        if self.raised.swap(false, Ordering::Acquire) {
            return Poll::Ready(());
        }
        Poll::Pending
    }

    /// A wake-up that raises this signal.
    pub(crate) fn wake_function(self: &Arc<Self>) -> Wake {
        Arc::clone(self) as Wake
    }
}

/// The keys of the streams a task polls that were woken since it last looked, each pushed by a
/// waker or by [`Wakers::wake`] ([`Wakers::queue_on`]): the task takes them all at once, so one
/// change fanned out to many of its streams wakes it once. A key may be pushed twice (by the
/// hub and by another waker of the same stream); its owner polls it once.
///
/// Each [`swap`](Self::swap) starts a new round ([`round`](Self::round)): a key pushed after it
/// is in a later round, so a stream that looked for changes in the current round need not look
/// again before the next.
#[derive(Debug, Default)]
pub(crate) struct ReadyQueue {
    keys: Mutex<Vec<usize>>,
    /// The owning task.
    task: AtomicWaker,
    round: AtomicU64,
}

impl ReadyQueue {
    /// Queues `key`, and wakes the owner if the queue was empty.
    pub(crate) fn push(&self, key: usize) {
        let first = {
            let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
            keys.push(key);
            keys.len() == 1
        };
        if first {
            self.task.wake();
        }
    }

    /// Swaps the queued keys with `keys` (empty), so both vectors keep their capacity, and
    /// starts a new round.
    pub(crate) fn swap(&self, keys: &mut Vec<usize>) {
        let mut queued = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::swap(keys, &mut queued);
        // Under the lock: a push after the swap belongs to the new round.
        self.round.fetch_add(1, Ordering::Relaxed);
    }

    /// The current round: how many times the owner took the queue. Read by the owner's task
    /// only, which also takes it.
    pub(crate) fn round(&self) -> u64 {
        self.round.load(Ordering::Relaxed)
    }

    /// The owning task, woken by the next push to an empty queue.
    pub(crate) fn register(&self, waker: &Waker) {
        self.task.register(waker);
    }
}

/// A live stream's place on the ready queue of the task that polls it, once its subscriber's
/// changes put its key there ([`Wakers::queue_on`]), and the last round of that queue in which
/// the stream looked for changes.
#[derive(Debug)]
pub(crate) struct QueuedOn {
    queue: Arc<ReadyQueue>,
    key: usize,
    looked_in: u64,
}

impl QueuedOn {
    /// Points `subscriber`'s wake-ups at `key` on `queue`. A change before this reached the
    /// subscriber's earlier wake-up only: the stream's first poll, in a later round, looks.
    pub(crate) fn new(
        wakers: &Wakers,
        subscriber: SubscriberId,
        queue: &Arc<ReadyQueue>,
        key: usize,
    ) -> QueuedOn {
        wakers.queue_on(subscriber, queue, key);
        QueuedOn {
            queue: Arc::clone(queue),
            key,
            looked_in: queue.round(),
        }
    }

    /// Gives `subscriber`'s wake-ups back to `wake`, if they still come to this place
    /// ([`Wakers::unqueue`]).
    pub(crate) fn give_back(&self, wakers: &Wakers, subscriber: SubscriberId, wake: Wake) {
        wakers.unqueue(subscriber, &self.queue, self.key, wake);
    }
}

/// Whether a live stream is to look for changes in this poll: at its first poll in each round of
/// its queue once `queued_on` is set (the owner of the queue polls it in the round after a change
/// put it there), otherwise when `signal` was raised.
pub(crate) fn poll_changed(
    queued_on: &mut Option<QueuedOn>,
    signal: &Signal,
    context: &Context<'_>,
) -> bool {
    match queued_on {
        Some(queued_on) => {
            let round = queued_on.queue.round();
            std::mem::replace(&mut queued_on.looked_in, round) != round
        }
        None => signal.poll_take(context).is_ready(),
    }
}

thread_local! {
    /// The buffer drained changes pass through ([`deliver_drained`]), kept by the thread.
    static DRAINED: RefCell<Vec<Change>> = const { RefCell::new(Vec::new()) };
    /// The time of the round of polls running on this thread ([`Round`]), if any.
    static ROUND_NOW: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The buffer of [`DRAINED`] is given back to the allocator when a drain grew it past this.
const DRAINED_KEPT: usize = 64;

/// Takes what `subscriber` has to be told and hands it to `deliver` (not called when there is
/// nothing), through a buffer the thread keeps: a stream's notification allocates no list of
/// changes. Returns whether there was anything.
pub(crate) fn deliver_drained(
    service: &Service,
    subscriber: SubscriberId,
    deliver: impl FnOnce(std::vec::Drain<'_, Change>),
) -> bool {
    let run = |changes: &mut Vec<Change>| {
        if service.drain_changes_into(subscriber, changes) == 0 {
            return false;
        }
        deliver(changes.drain(..));
        if changes.capacity() > DRAINED_KEPT {
            *changes = Vec::new();
        }
        true
    };
    DRAINED.with(|drained| match drained.try_borrow_mut() {
        Ok(mut changes) => run(&mut changes),
        // Called again from inside `deliver`, which no caller does: a buffer of its own.
        Err(_) => run(&mut Vec::new()),
    })
}

/// The time for what a stream does in this poll: the start of the round of polls it is part of
/// ([`Round`]), or the clock's. A connection that polls many streams reads the clock once per
/// round, not once or twice per stream.
pub(crate) fn now() -> Instant {
    ROUND_NOW.with(Cell::get).unwrap_or_else(Instant::now)
}

/// A round of polls on this thread: while it lives, [`now`] answers the time it started.
pub(crate) struct Round(());

impl Round {
    pub(crate) fn start() -> Round {
        ROUND_NOW.with(|now| now.set(Some(Instant::now())));
        Round(())
    }
}

impl Drop for Round {
    fn drop(&mut self) {
        ROUND_NOW.with(|now| now.set(None));
    }
}

/// A one-way flag many tasks wait on: once [`Latch::set`], it stays set and every waiter is woken.
///
/// It replaces a `CancellationToken` where thousands of streams wait on one event (server
/// shutdown) and poll it at every wake-up: checking a [`LatchWait`] is one atomic load while
/// its task's waker is unchanged, where a token takes two locks.
#[derive(Debug, Default)]
pub(crate) struct Latch {
    set: AtomicBool,
    waiters: Mutex<Waiters>,
}

#[derive(Debug, Default)]
struct Waiters {
    next_key: u64,
    wakers: HashMap<u64, Waker, KeyHasher>,
}

impl Latch {
    /// Sets the latch and wakes every waiter. Later calls do nothing more.
    pub(crate) fn set(&self) {
        self.set.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut self.lock().wakers);
        for waker in wakers.into_values() {
            waker.wake();
        }
    }

    /// Whether the latch is set.
    pub(crate) fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// A wait on this latch, to poll or await until it is set.
    pub(crate) fn wait(self: &Arc<Self>) -> LatchWait {
        LatchWait {
            latch: Arc::clone(self),
            registered: None,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiters> {
        // Every method leaves the table whole, so a poisoned lock holds consistent data.
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A wait on a [`Latch`]: ready once it is set. It registers its task's waker at the first poll
/// and again only when polled from another task; dropping it unregisters.
#[derive(Debug)]
pub(crate) struct LatchWait {
    latch: Arc<Latch>,
    /// The key of the registered waker, and a copy of it to tell whether it changed.
    registered: Option<(u64, Waker)>,
}

impl Future for LatchWait {
    type Output = ();

    fn poll(self: std::pin::Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        let wait = self.get_mut();
        if wait.latch.is_set() {
            return Poll::Ready(());
        }
        let current = context.waker();
        if wait
            .registered
            .as_ref()
            .is_some_and(|(_, waker)| waker.will_wake(current))
        {
            return Poll::Pending;
        }
        {
            let mut waiters = wait.latch.lock();
            let key = match &wait.registered {
                Some((key, _)) => *key,
                None => {
                    let key = waiters.next_key;
                    waiters.next_key += 1;
                    key
                }
            };
            waiters.wakers.insert(key, current.clone());
            wait.registered = Some((key, current.clone()));
        }
        // Set between the first look and the registration: `set` may have missed this waker.
        if wait.latch.is_set() {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl Drop for LatchWait {
    fn drop(&mut self) {
        if let Some((key, _)) = self.registered.take() {
            self.latch.lock().wakers.remove(&key);
        }
    }
}

/// A live stream's keep-alive timer, polled in place at every wake-up of its stream. The timer
/// itself is polled (its entry touched, the waker registered) only once its deadline has
/// passed, or when polled from another task than the one it holds; otherwise a poll is a clock
/// read. Each keep-alive is due a whole period after the last one.
#[derive(Debug)]
pub(crate) struct KeepAlive {
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
    deadline: tokio::time::Instant,
    period: std::time::Duration,
    /// The waker the timer holds.
    registered: Option<Waker>,
}

impl KeepAlive {
    /// The first keep-alive is due one period from now.
    pub(crate) fn new(period: std::time::Duration) -> KeepAlive {
        let deadline = tokio::time::Instant::now() + period;
        KeepAlive {
            sleep: Box::pin(tokio::time::sleep_until(deadline)),
            deadline,
            period,
            registered: None,
        }
    }

    /// Ready when a keep-alive is due at `now` (and the next one then starts its period);
    /// otherwise the task of `context` is woken when it is. `now` may lag the clock a little
    /// ([`now`]): the timer itself still wakes the task at the deadline.
    pub(crate) fn poll_due(&mut self, now: Instant, context: &mut Context<'_>) -> Poll<()> {
        let now = tokio::time::Instant::from_std(now);
        if self
            .registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(context.waker()))
            && now < self.deadline
        {
            return Poll::Pending;
        }
        match self.sleep.as_mut().poll(context) {
            Poll::Ready(()) => {
                self.deadline = now.max(self.deadline) + self.period;
                self.sleep.as_mut().reset(self.deadline);
                self.registered = None;
                Poll::Ready(())
            }
            Poll::Pending => {
                self.registered = Some(context.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A subscriber of the hub with its wake function registered; both are removed on drop. One per
/// legacy session and per modern listen stream.
pub(crate) struct SubscriberGuard {
    shared: Arc<Shared>,
    id: SubscriberId,
}

impl SubscriberGuard {
    /// A new subscriber whose changes are announced by calling `wake`.
    pub(crate) fn new(shared: &Arc<Shared>, wake: Wake) -> SubscriberGuard {
        let id = shared.service.add_subscriber();
        shared.wakers.register(id, wake);
        SubscriberGuard {
            shared: Arc::clone(shared),
            id,
        }
    }

    /// The subscriber's id.
    pub(crate) fn id(&self) -> SubscriberId {
        self.id
    }
}

impl std::fmt::Debug for SubscriberGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SubscriberGuard").field(&self.id).finish()
    }
}

impl Drop for SubscriberGuard {
    fn drop(&mut self) {
        self.shared.wakers.unregister(self.id);
        self.shared.service.remove_subscriber(self.id);
    }
}

/// Answers one adapter query at once when the service can ([`Service::answer_now`]: a read of
/// a static resource), with no future to allocate or poll; otherwise gives the query back for
/// [`answer`].
pub(crate) fn answer_now(
    service: &Service,
    principal: &Principal,
    subscriber: Option<SubscriberId>,
    query: Query,
) -> Result<Answer, Query> {
    let context = QueryContext {
        principal,
        subscriber,
    };
    service.answer_now(context, query)
}

/// Runs one adapter query against the service with `principal` and `subscriber`. The future
/// owns what it needs, so it can be polled by any task (a `FuturesUnordered`, a spawned task).
pub(crate) async fn answer(
    service: Arc<Service>,
    principal: Arc<Principal>,
    subscriber: Option<SubscriberId>,
    query: Query,
) -> Answer {
    let context = QueryContext {
        principal: &principal,
        subscriber,
    };
    service.answer(context, query).await
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;
    use std::pin::Pin;

    use super::*;

    #[tokio::test]
    async fn a_keep_alive_is_due_each_period_and_wakes_whoever_polls_it() {
        let period = std::time::Duration::from_millis(30);
        let started = tokio::time::Instant::now();
        let mut keep_alive = KeepAlive::new(period);
        let polled =
            poll_fn(|context| Poll::Ready(keep_alive.poll_due(Instant::now(), context))).await;
        assert!(polled.is_pending(), "due before its period");
        // Awaited here: woken by the timer, not polled in a loop.
        poll_fn(|context| keep_alive.poll_due(Instant::now(), context)).await;
        let first = tokio::time::Instant::now();
        assert!(first - started >= period);
        let polled =
            poll_fn(|context| Poll::Ready(keep_alive.poll_due(Instant::now(), context))).await;
        assert!(polled.is_pending(), "due again at once");
        // Another task polls it next: the timer must wake that task.
        let second = tokio::spawn(async move {
            poll_fn(|context| keep_alive.poll_due(Instant::now(), context)).await;
            tokio::time::Instant::now()
        });
        let second = tokio::time::timeout(std::time::Duration::from_secs(10), second)
            .await
            .expect("the other task is woken")
            .unwrap();
        assert!(second - first >= period);
    }

    #[tokio::test]
    async fn a_latch_wakes_every_waiter_and_stays_set() {
        let latch = Arc::new(Latch::default());
        let waiters: Vec<_> = (0..3)
            .map(|_| tokio::spawn(latch.wait()))
            .collect::<Vec<_>>();
        tokio::task::yield_now().await;
        assert_eq!(latch.lock().wakers.len(), 3, "each waiter registered once");
        latch.set();
        for waiter in waiters {
            waiter.await.unwrap();
        }
        latch.wait().await;
        assert!(latch.lock().wakers.is_empty());
    }

    #[tokio::test]
    async fn a_dropped_latch_wait_unregisters() {
        let latch = Arc::new(Latch::default());
        let mut wait = latch.wait();
        let polled = poll_fn(|context| Poll::Ready(Pin::new(&mut wait).poll(context))).await;
        assert!(polled.is_pending());
        assert_eq!(latch.lock().wakers.len(), 1);
        drop(wait);
        assert!(latch.lock().wakers.is_empty());
    }

    #[tokio::test]
    async fn a_signal_keeps_a_raise_until_taken() {
        let signal = Arc::new(Signal::default());
        signal.wake_function().wake_up();
        let take = || poll_fn(|context| Poll::Ready(signal.poll_take(context)));
        assert!(take().await.is_ready(), "raised before anyone waited");
        assert!(take().await.is_pending(), "taken once");
        let waiter = {
            let signal = Arc::clone(&signal);
            tokio::spawn(async move { poll_fn(|context| signal.poll_take(context)).await })
        };
        tokio::task::yield_now().await;
        signal.raise();
        waiter.await.unwrap();
    }

    #[test]
    fn a_subscriber_queued_on_a_ready_queue_is_woken_there_until_unregistered() {
        let mut hub = mcp_resources_core::subscription::SubscriptionHub::default();
        let (queued_one, called_one, unknown) = (
            hub.add_subscriber(),
            hub.add_subscriber(),
            hub.add_subscriber(),
        );
        let wakers = Wakers::default();
        let signal = Arc::new(Signal::default());
        let context = Context::from_waker(Waker::noop());
        wakers.register(queued_one, signal.wake_function());
        wakers.register(called_one, signal.wake_function());
        let queue = Arc::new(ReadyQueue::default());
        wakers.queue_on(queued_one, &queue, 7);
        wakers.queue_on(unknown, &queue, 8);
        let taken = |queue: &ReadyQueue| {
            let mut keys = Vec::new();
            queue.swap(&mut keys);
            keys
        };

        wakers.wake(&[queued_one, unknown]);
        assert_eq!(taken(&queue), [7], "queued, the unregistered one not");
        assert!(
            signal.poll_take(&context).is_pending(),
            "its signal left alone"
        );
        wakers.wake(&[called_one]);
        assert!(taken(&queue).is_empty());
        assert!(
            signal.poll_take(&context).is_ready(),
            "the other still called"
        );

        // Undone for another place: nothing changes; for its own: called again.
        wakers.unqueue(queued_one, &queue, 8, signal.wake_function());
        wakers.unqueue(
            queued_one,
            &Arc::new(ReadyQueue::default()),
            7,
            signal.wake_function(),
        );
        wakers.wake(&[queued_one]);
        assert_eq!(taken(&queue), [7], "still queued");
        wakers.unqueue(queued_one, &queue, 7, signal.wake_function());
        wakers.wake(&[queued_one]);
        assert!(taken(&queue).is_empty());
        assert!(signal.poll_take(&context).is_ready(), "called again");
        wakers.queue_on(queued_one, &queue, 9);

        wakers.unregister(queued_one);
        wakers.wake(&[queued_one]);
        assert!(taken(&queue).is_empty(), "unregistered");
        wakers.queue_on(queued_one, &queue, 10);
        wakers.wake(&[queued_one]);
        assert!(taken(&queue).is_empty(), "not registered again by queue_on");
    }

    #[test]
    fn drained_changes_are_delivered_through_the_threads_buffer() {
        let server = crate::Server::builder().build().unwrap();
        let service = server.service();
        let subscriber = service.add_subscriber();
        let listen = Query::Listen {
            uris: Vec::new(),
            list_changes: true,
        };
        let principal = Principal::anonymous();
        let context = QueryContext {
            principal: &principal,
            subscriber: Some(subscriber),
        };
        let answer = futures_util::FutureExt::now_or_never(service.answer(context, listen));
        let Some(Answer::Listening { list_changes, .. }) = answer else {
            panic!("the listen query is answered at once: {answer:?}");
        };
        assert!(list_changes);

        let mut delivered = Vec::new();
        let nothing = deliver_drained(service, subscriber, |changes| delivered.extend(changes));
        assert!(
            !nothing && delivered.is_empty(),
            "nothing pending: not called"
        );
        assert_eq!(service.list_changed(), [subscriber]);
        let changed = deliver_drained(service, subscriber, |changes| delivered.extend(changes));
        assert!(changed);
        assert_eq!(delivered, [Change::ListChanged]);
        // Taken: the buffer is empty again, and so is the hub.
        DRAINED.with(|drained| assert!(drained.borrow().is_empty()));
        assert!(!deliver_drained(service, subscriber, |_| panic!(
            "nothing left"
        )));
        // Called from inside a delivery (no caller does): served with a buffer of its own.
        service.list_changed();
        deliver_drained(service, subscriber, |changes| {
            assert_eq!(changes.len(), 1);
            service.list_changed();
            let inner = deliver_drained(service, subscriber, |inner| {
                assert_eq!(inner.collect::<Vec<_>>(), [Change::ListChanged]);
            });
            assert!(inner);
        });
    }

    #[test]
    fn a_round_answers_its_start_time_until_it_ends() {
        let before = Instant::now();
        assert!(now() >= before, "no round: the clock");
        let round = Round::start();
        let started = now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert_eq!(now(), started, "the round's time");
        drop(round);
        assert!(now() > started, "the clock again");
    }

    #[test]
    fn each_take_of_a_ready_queue_starts_a_round() {
        let queue = ReadyQueue::default();
        let mut keys = Vec::new();
        let first = queue.round();
        queue.push(3);
        assert_eq!(queue.round(), first, "a push is in the current round");
        queue.swap(&mut keys);
        assert_eq!(keys, [3]);
        assert_eq!(queue.round(), first + 1);
        keys.clear();
        queue.swap(&mut keys);
        assert!(keys.is_empty());
        assert_eq!(queue.round(), first + 2, "an empty take is a round too");
    }
}
