//! Changes between the instances of a deployment: the sources' changes published to a
//! [`ChangeFeed`], every instance's changes heard from it into the hub, and what the server does
//! when the feed goes away and comes back.
//!
//! **Layer:** server, below the server handle ([`Server`](crate::Server), which holds this
//! module's state) and above the wakers; it uses the core's service and the wakers, never a
//! transport. With a feed ([`ServerBuilder::feed`](crate::ServerBuilder::feed)), a change that
//! [`Server::follow`](crate::Server::follow) takes from a source is published, not told: every
//! instance, this one included, hears it from the feed and tells its own subscribers. A change
//! no publish could carry, or published while this instance does not hear the feed (lost, or
//! stopped for good), is told here too, so that this instance's subscribers never miss what it
//! saw itself. Changes heard within a settle time of each other are told together (the window
//! is bounded in time and in events): several instances watching the same storage publish the
//! same change, and the hub, being level-triggered, coalesces what arrives before its
//! subscribers are woken, so each is told once.
//! [`Server::resource_updated`](crate::Server::resource_updated) and its kin tell this
//! instance's subscribers only.
//!
//! When the feed is lost, changes seen elsewhere may be missed: the server says so in its log,
//! is no longer ready ([`Server::is_ready`](crate::Server::is_ready), `/readyz`), and ends its
//! HTTP listen and GET streams gracefully, so that their clients listen again (on another
//! instance, or here once the feed is back) and read again, as the level-triggered contract has
//! them do; reads go on. When the feed is back, or this instance fell behind it, every
//! subscriber is told that everything it follows may have changed. This module never knows a
//! protocol, a transport's frames or a concrete feed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_resources_core::change::{Change, ChangeFeed, FeedEvent, FeedEvents};
use mcp_resources_core::service::Service;
use mcp_resources_core::subscription::SubscriberId;
use mcp_resources_core::uri::ResourceUri;
use tokio_util::sync::CancellationToken;

use crate::wake::Wakers;

/// How long changes heard from the feed are gathered before subscribers are woken, by default:
/// wide enough for the same change published by instances whose watchers fired together.
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(20);

/// The most changes gathered in one settle window: a flood of them cannot hold the window open.
const MAX_SETTLING: usize = 4096;

/// A server's link to the other instances of its deployment, what it tells its subscribers
/// through, and the end of its live streams.
pub(crate) struct Cluster {
    feed: Option<Arc<dyn ChangeFeed>>,
    settle: Duration,
    /// Whether the feed is heard (always, without one).
    connected: AtomicBool,
    /// Cancelled when live streams are to end: at shutdown (it is the shutdown token's child)
    /// or when the feed is lost, when it is replaced by a fresh one for the streams to come.
    streams: Mutex<CancellationToken>,
    service: Arc<Service>,
    wakers: Arc<Wakers>,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("feed", &self.feed.is_some())
            .field("settle", &self.settle)
            .field("connected", &self.connected)
            .finish_non_exhaustive()
    }
}

impl Cluster {
    pub(crate) fn new(
        feed: Option<Arc<dyn ChangeFeed>>,
        settle: Duration,
        service: Arc<Service>,
        wakers: Arc<Wakers>,
        shutdown: CancellationToken,
    ) -> Arc<Cluster> {
        Arc::new(Cluster {
            feed,
            settle,
            connected: AtomicBool::new(true),
            streams: Mutex::new(shutdown.child_token()),
            service,
            wakers,
            shutdown,
        })
    }

    /// Spawns the task that hears the feed, if there is one, on the current runtime.
    pub(crate) fn start(self: &Arc<Cluster>) {
        if let Some(feed) = &self.feed {
            tokio::spawn(hear(Arc::clone(self), feed.events()));
        }
    }

    /// Whether the feed is heard (always, without one).
    pub(crate) fn is_connected(&self) -> bool {
        self.connected.load(Ordering::SeqCst)
    }

    /// What a live stream opened now waits on to end early.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn streams_end(&self) -> CancellationToken {
        self.streams
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Ends every live stream open now; streams opened later get a fresh token.
    fn end_streams(&self) {
        let ending = {
            let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut *streams, self.shutdown.child_token())
        };
        ending.cancel();
    }

    /// Tells every instance about `change` through the feed, or this instance's subscribers
    /// when there is no feed, it cannot take the change, or this instance does not hear it.
    pub(crate) async fn tell(&self, change: Change) {
        if let Some(feed) = &self.feed {
            // The deployment fan-out benchmark times from this line.
            tracing::debug!("publishing a change to every instance");
            match feed.publish(&change).await {
                // Heard back from the feed, by this instance too, while it hears the feed.
                Ok(()) if self.is_connected() => return,
                Ok(()) => {}
                Err(error) => tracing::warn!(
                    %error,
                    "cannot publish a change to the feed: telling this instance's subscribers only"
                ),
            }
        }
        let ready = self.mark(change);
        self.wakers.wake(&ready);
    }

    /// Records `change` in the hub; returns the subscribers to wake.
    fn mark(&self, change: Change) -> Vec<SubscriberId> {
        let service = &self.service;
        match change {
            Change::Updated(uri) => {
                tracing::debug!(
                    uri = uri.as_str(),
                    "resource changed: notifying its subscribers"
                );
                service.resource_updated(uri.as_str())
            }
            Change::ListChanged { created, removed } => {
                tracing::debug!(
                    created = created.len(),
                    removed = removed.len(),
                    "resources appeared or disappeared: notifying subscribers"
                );
                // A subscriber of a resource that is gone learns it from an update too.
                let mut ready = Vec::new();
                for uri in &removed {
                    ready.extend(service.resource_updated(uri.as_str()));
                }
                let changed: Vec<ResourceUri> = created.into_iter().chain(removed).collect();
                ready.extend(service.list_changed_for(&changed));
                ready
            }
        }
    }

    /// The feed is away: changes seen elsewhere may be missed from now on.
    fn lost(&self) {
        if self.connected.swap(false, Ordering::SeqCst) {
            tracing::warn!(
                "the change feed is lost: changes seen by other instances may be missed; \
                 ending live streams (their clients listen again), not ready, reads go on"
            );
        }
        self.end_streams();
    }

    /// The feed is back: whatever changed meanwhile is told as "everything may have changed".
    fn restored(&self) {
        let ready = self.service.everything_changed();
        // Ready once the hub is marked (a stream opened after is told later changes only), and
        // before anyone is woken (a client told may look at readiness at once).
        self.connected.store(true, Ordering::SeqCst);
        tracing::info!(
            subscribers = ready.len(),
            "the change feed is back: telling every subscriber that what it follows may have changed"
        );
        self.wakers.wake(&ready);
    }

    /// The feed skipped changes for this instance (it fell behind), connected all along.
    fn missed(&self) {
        let ready = self.service.everything_changed();
        tracing::warn!(
            subscribers = ready.len(),
            "this instance fell behind the change feed: telling every subscriber that what it \
             follows may have changed"
        );
        self.wakers.wake(&ready);
    }
}

/// Hears the feed until it stops or the server shuts down.
async fn hear(cluster: Arc<Cluster>, mut events: Box<dyn FeedEvents>) {
    let shutdown = cluster.shutdown.clone();
    let settle = cluster.settle;
    let mut next = None;
    loop {
        let event = match next.take() {
            Some(event) => event,
            None => tokio::select! {
                () = shutdown.cancelled() => return,
                event = events.next_event() => event,
            },
        };
        match event {
            None => {
                tracing::error!(
                    "the change feed stopped for good: changes seen by other instances no \
                     longer reach this one"
                );
                cluster.lost();
                return;
            }
            Some(FeedEvent::Lost) => cluster.lost(),
            Some(FeedEvent::Restored) => cluster.restored(),
            Some(FeedEvent::Missed) => cluster.missed(),
            Some(FeedEvent::Change(change)) => {
                // The same change from other instances, and any other, joins this one in the
                // hub before anyone is woken. The deadline is looked at before every wait, so
                // that events always ready (a flood) cannot hold the window open.
                let mut ready = cluster.mark(change);
                let deadline = tokio::time::Instant::now() + settle;
                let mut gathered = 1;
                while gathered < MAX_SETTLING && tokio::time::Instant::now() < deadline {
                    match tokio::time::timeout_at(deadline, events.next_event()).await {
                        Err(_) => break,
                        Ok(Some(FeedEvent::Change(change))) => ready.extend(cluster.mark(change)),
                        Ok(other) => {
                            next = Some(other);
                            break;
                        }
                    }
                    gathered += 1;
                }
                ready.sort_unstable();
                ready.dedup();
                cluster.wakers.wake(&ready);
                // Let the woken streams, and anything else on this thread, run.
                tokio::task::yield_now().await;
            }
        }
    }
}
