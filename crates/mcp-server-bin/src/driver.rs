//! What both transports need to drive the adapters: running a query against the service, the
//! table of subscribers to wake, and the lifetime of a subscriber.
//!
//! **Layer:** server, shared by the stdio and HTTP transports. An adapter's `Output::Query` is
//! answered here on the spot when the service can ([`answer_now`]: a static read), or run as a
//! future that owns everything it needs ([`answer`]); when the hub says a
//! subscriber has changes waiting, [`Wakers::wake`] calls the wake function its transport
//! registered. This module never parses or writes a message and never knows an era.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_resources_core::policy::Principal;
use mcp_resources_core::service::{Answer, Query, QueryContext, Service};
use mcp_resources_core::subscription::SubscriberId;

use crate::server::Shared;

/// A wake function: tells one transport task that a subscriber has changes to drain.
pub(crate) type Wake = Arc<dyn Fn() + Send + Sync>;

/// Subscriber → the wake function of the transport task that serves it.
#[derive(Default)]
pub(crate) struct Wakers {
    table: Mutex<HashMap<SubscriberId, Wake>>,
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

    /// Wakes each of `subscribers` that has a wake function. The functions are called without
    /// the table's lock held.
    pub(crate) fn wake(&self, subscribers: &[SubscriberId]) {
        if subscribers.is_empty() {
            return;
        }
        let wakes: Vec<Wake> = {
            let table = self.lock();
            subscribers
                .iter()
                .filter_map(|subscriber| table.get(subscriber).cloned())
                .collect()
        };
        for wake in wakes {
            wake();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SubscriberId, Wake>> {
        // Every method leaves the table whole, so a poisoned lock holds consistent data.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
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
