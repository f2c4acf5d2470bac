//! The wake-ups of the server: the table of subscribers to wake, and the cheap signals, latch
//! and timer that live streams poll.
//!
//! **Layer:** server, the bottom of it: the driver, both transports and the server handle use
//! it, and it uses none of them. When the hub says a subscriber has changes waiting,
//! [`Wakers::wake`] calls the wake function its transport registered. A [`Signal`] (changes
//! waiting) and a [`Latch`] (shutdown) are the cheap wake-ups the HTTP streams poll, with a
//! [`KeepAlive`] timer: a wait on them lives as long as the stream and its poll takes no lock.
//! This module never knows the service, a message, an era or a transport: it only wakes tasks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use futures_util::task::AtomicWaker;

use mcp_resources_core::subscription::SubscriberId;

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

/// A hasher for keys no client chooses (the latch hands out its waiter keys, the hub its
/// subscriber ids), so none can be chosen to collide.
type KeyHasher = foldhash::fast::FixedState;

/// Subscriber → how to wake the transport task that serves it.
#[derive(Default)]
pub(crate) struct Wakers {
    table: Mutex<HashMap<SubscriberId, Wake, KeyHasher>>,
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
        self.lock().insert(subscriber, wake);
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
            if let Some(wake) = table.get(subscriber) {
                wake.wake_up();
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SubscriberId, Wake, KeyHasher>> {
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
    #[cfg(feature = "http")]
    pub(crate) fn wake_function(self: &Arc<Self>) -> Wake {
        Arc::clone(self) as Wake
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
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct KeepAlive {
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
    deadline: tokio::time::Instant,
    period: std::time::Duration,
    /// The waker the timer holds.
    registered: Option<Waker>,
}

#[cfg(feature = "http")]
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
    /// otherwise the task of `context` is woken when it is.
    pub(crate) fn poll_due(
        &mut self,
        now: std::time::Instant,
        context: &mut Context<'_>,
    ) -> Poll<()> {
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

#[cfg(test)]
mod tests {
    use std::future::poll_fn;
    use std::pin::Pin;

    use super::*;

    #[cfg(feature = "http")]
    #[tokio::test]
    async fn a_keep_alive_is_due_each_period_and_wakes_whoever_polls_it() {
        let period = std::time::Duration::from_millis(30);
        let started = tokio::time::Instant::now();
        let mut keep_alive = KeepAlive::new(period);
        let polled =
            poll_fn(|context| Poll::Ready(keep_alive.poll_due(std::time::Instant::now(), context)))
                .await;
        assert!(polled.is_pending(), "due before its period");
        // Awaited here: woken by the timer, not polled in a loop.
        poll_fn(|context| keep_alive.poll_due(std::time::Instant::now(), context)).await;
        let first = tokio::time::Instant::now();
        assert!(first - started >= period);
        let polled =
            poll_fn(|context| Poll::Ready(keep_alive.poll_due(std::time::Instant::now(), context)))
                .await;
        assert!(polled.is_pending(), "due again at once");
        // Another task polls it next: the timer must wake that task.
        let second = tokio::spawn(async move {
            poll_fn(|context| keep_alive.poll_due(std::time::Instant::now(), context)).await;
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
        signal.raise();
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
}
