//! Changes between the instances of a deployment: the sources' changes published to a
//! [`ChangeFeed`], every instance's changes heard from it into the hub, and what the server does
//! when the feed goes away and comes back.
//!
//! **Layer:** server, beside [`crate::driver`]. With a feed ([`ServerBuilder::feed`]), a change
//! that [`Server::follow`] takes from a source is published, not told: every instance, this one
//! included, hears it from the feed and tells its own subscribers (a change no publish could
//! carry is told here, so that this instance's subscribers never miss what it saw itself).
//! Changes heard within a settle time of each other are told together: several instances
//! watching the same storage publish the same change, and the hub, being level-triggered,
//! coalesces what arrives before its subscribers are woken, so each is told once.
//!
//! When the feed is lost, changes seen elsewhere may be missed: the server says so in its log,
//! is no longer ready ([`Server::is_ready`], `/readyz`), and ends its HTTP listen and GET
//! streams gracefully, so that their clients listen again (on another instance, or here once
//! the feed is back) and read again, as the level-triggered contract has them do; reads go on.
//! When the feed is back, every subscriber is told that everything it follows may have changed.
//! This module never knows a protocol, a transport's frames or a concrete feed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_resources_core::change::{Change, ChangeFeed, FeedEvent, FeedEvents};
use mcp_resources_core::subscription::SubscriberId;
use mcp_resources_core::uri::ResourceUri;
use tokio_util::sync::CancellationToken;

use crate::server::Server;

/// How long changes heard from the feed are gathered before subscribers are woken, by default:
/// wide enough for the same change published by instances whose watchers fired together.
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(20);

/// A server's link to the other instances of its deployment, and the end of its live streams.
pub(crate) struct Cluster {
    feed: Option<Arc<dyn ChangeFeed>>,
    settle: Duration,
    /// Whether the feed is connected (always, without one).
    connected: AtomicBool,
    /// Cancelled when live streams are to end: at shutdown (it is the shutdown token's child)
    /// or when the feed is lost, when it is replaced by a fresh one for the streams to come.
    streams: Mutex<CancellationToken>,
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
        shutdown: &CancellationToken,
    ) -> Cluster {
        Cluster {
            feed,
            settle,
            connected: AtomicBool::new(true),
            streams: Mutex::new(shutdown.child_token()),
        }
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
    fn end_streams(&self, shutdown: &CancellationToken) {
        let ending = {
            let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut *streams, shutdown.child_token())
        };
        ending.cancel();
    }
}

impl Server {
    /// Whether this server is ready to serve: not shut down, and its change feed (if it has
    /// one) connected. An instance whose feed is away still answers reads, but its subscribers
    /// would miss changes seen by other instances; a load balancer should prefer another.
    pub fn is_ready(&self) -> bool {
        !self.is_shut_down() && self.shared.cluster.connected.load(Ordering::SeqCst)
    }

    /// Tells every instance about `change` through the feed, or this instance's subscribers
    /// when there is no feed or it cannot take the change.
    pub(crate) async fn tell(&self, change: Change) {
        if let Some(feed) = &self.shared.cluster.feed {
            // The deployment fan-out benchmark times from this line.
            tracing::debug!("publishing a change to every instance");
            match feed.publish(&change).await {
                // Heard back from the feed, by this instance too.
                Ok(()) => return,
                Err(error) => tracing::warn!(
                    %error,
                    "cannot publish a change to the feed: telling this instance's subscribers only"
                ),
            }
        }
        let ready = self.mark(change);
        self.shared.wakers.wake(&ready);
    }

    /// Records `change` in the hub; returns the subscribers to wake.
    fn mark(&self, change: Change) -> Vec<SubscriberId> {
        let service = &self.shared.service;
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

    /// Spawns the task that hears the feed, if there is one.
    pub(crate) fn hear_feed(&self) {
        if let Some(feed) = &self.shared.cluster.feed {
            tokio::spawn(hear(self.clone(), feed.events()));
        }
    }

    /// The feed is away: changes seen elsewhere may be missed from now on.
    fn feed_lost(&self) {
        if self.shared.cluster.connected.swap(false, Ordering::SeqCst) {
            tracing::warn!(
                "the change feed is lost: changes seen by other instances may be missed; \
                 ending live streams (their clients listen again), not ready, reads go on"
            );
        }
        self.shared.cluster.end_streams(&self.shared.shutdown);
    }

    /// The feed is back: whatever changed meanwhile is told as "everything may have changed".
    fn feed_restored(&self) {
        let ready = self.shared.service.everything_changed();
        tracing::info!(
            subscribers = ready.len(),
            "the change feed is back: telling every subscriber that what it follows may have changed"
        );
        self.shared.wakers.wake(&ready);
        // Ready once they are told: a stream opened after is told later changes only.
        self.shared.cluster.connected.store(true, Ordering::SeqCst);
    }
}

/// Hears the feed until it stops or the server shuts down.
async fn hear(server: Server, mut events: Box<dyn FeedEvents>) {
    let shutdown = server.shared.shutdown.clone();
    let settle = server.shared.cluster.settle;
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
                server.feed_lost();
                return;
            }
            Some(FeedEvent::Lost) => server.feed_lost(),
            Some(FeedEvent::Restored) => server.feed_restored(),
            Some(FeedEvent::Change(change)) => {
                // The same change from other instances, and any other, joins this one in the
                // hub before anyone is woken.
                let mut ready = server.mark(change);
                let deadline = tokio::time::Instant::now() + settle;
                loop {
                    match tokio::time::timeout_at(deadline, events.next_event()).await {
                        Err(_) => break,
                        Ok(Some(FeedEvent::Change(change))) => ready.extend(server.mark(change)),
                        Ok(other) => {
                            next = Some(other);
                            break;
                        }
                    }
                }
                ready.sort_unstable();
                ready.dedup();
                server.shared.wakers.wake(&ready);
            }
        }
    }
}
