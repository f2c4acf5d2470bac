//! The table of subscribers to wake.
//!
//! **Layer:** server, the bottom of it: the driver, both transports and the server handle use
//! it, and it uses none of them. When the hub says a subscriber has changes waiting,
//! [`Wakers::wake`] calls the wake function its transport registered: most often
//! `Notify::notify_one` on a `tokio::sync::Notify` its stream waits on, which keeps the wake-up
//! until taken when nobody waits. This module never knows the service, a message, an era or a
//! transport: it only wakes tasks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_resources_core::subscription::SubscriberId;
use tokio::sync::Notify;

/// What tells one transport task that a subscriber has changes to drain: a [`Notify`] an HTTP
/// stream waits on (called through it, with no closure around it: a fan-out calls one per
/// subscriber), or any function.
pub(crate) trait WakeUp: Send + Sync {
    fn wake_up(&self);
}

impl<F: Fn() + Send + Sync> WakeUp for F {
    fn wake_up(&self) {
        self();
    }
}

impl WakeUp for Notify {
    fn wake_up(&self) {
        self.notify_one();
    }
}

/// A registered [`WakeUp`].
pub(crate) type Wake = Arc<dyn WakeUp>;

/// A hasher for keys no client chooses (the hub's subscriber ids), so none can be chosen to
/// collide.
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
    /// subscriber: a wake function only notifies a task, and must never call back into this
    /// table.
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
