//! What both transports need to drive the adapters: running a query against the service,
//! draining a subscriber's changes, and the lifetime of a subscriber.
//!
//! **Layer:** server, shared by the stdio and HTTP transports, above [`crate::wake`]. An
//! adapter's `Output::Query` is run as a future that owns everything it needs ([`answer`]; the
//! transports poll it once at once, and feed an answer ready then straight back to the
//! adapter); a [`SubscriberGuard`] is a subscriber of the hub with its wake function
//! registered (a [`Subscriber`] is one for a transport outside this crate, through
//! [`Server::subscriber`]); [`deliver_drained`] hands what a subscriber has to be told to its
//! adapter. This
//! module never parses or writes a message and never knows an era.

use std::cell::RefCell;
use std::sync::Arc;

use mcp_resources_core::policy::Principal;
use mcp_resources_core::service::{Answer, Query, QueryContext, Service};
use mcp_resources_core::subscription::{Change, SubscriberId};

use tokio::sync::Notify;

use crate::server::{Server, Shared};
use crate::wake::Wake;

thread_local! {
    /// The buffer drained changes pass through ([`deliver_drained`]), kept by the thread.
    static DRAINED: RefCell<Vec<Change>> = const { RefCell::new(Vec::new()) };
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

/// A subscriber of a [`Server`]'s hub, made by [`Server::subscriber`] for a transport of one's
/// own (the rmcp bridge): pass [`Subscriber::id`] in the
/// [`QueryContext`] of its subscription queries, and [`Subscriber::drain`] it when woken. It is
/// removed from the hub, with everything it subscribed to, when dropped.
#[derive(Debug)]
pub struct Subscriber {
    guard: SubscriberGuard,
}

impl Subscriber {
    /// Its id in the hub.
    pub fn id(&self) -> SubscriberId {
        self.guard.id()
    }

    /// Takes what it has to be told, coalesced since the last drain.
    pub fn drain(&self) -> Vec<Change> {
        self.guard.shared.service.drain_changes(self.guard.id)
    }
}

impl Server {
    /// A subscriber of this server's hub for a transport this crate does not own: `wake` is
    /// notified whenever it has changes to drain.
    pub fn subscriber(&self, wake: Arc<Notify>) -> Subscriber {
        Subscriber {
            guard: SubscriberGuard::new(&self.shared, wake),
        }
    }
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
    use super::*;

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
}
