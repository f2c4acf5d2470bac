//! The legacy sessions a [`Resources`](crate::Resources) serves, told apart by rmcp's peer.
//!
//! **Layer:** the bridge's state. rmcp hands every request its peer; a session opened by
//! `initialize` is known by the `Arc` of the client's `initialize` params that rmcp keeps for
//! it (the same for the whole session, another for every other one). Each session has its
//! [`Feed`] (its subscriber and the task that tells its client) and its count of reads waiting
//! for the client's answers. A session whose feed has stopped (its client is gone, or a send
//! failed) is forgotten at the next lookup, its subscriber with it. This module never asks the
//! service anything.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_resources_core::subscription::SubscriberId;
use mcp_resources_server::Server;
use rmcp::model::InitializeRequestParams;
use rmcp::{Peer, RoleServer};

use crate::feed::Feed;

/// The most reads of one legacy session that may wait for the client's answers at once, as in
/// our own legacy adapter.
pub(crate) const MAX_ASKING: usize = 16;

/// One legacy session's state.
#[derive(Debug)]
struct Session {
    /// The client's `initialize` params as rmcp keeps them: the session's identity.
    key: Arc<InitializeRequestParams>,
    feed: Feed,
    asking: Arc<AtomicUsize>,
}

/// The sessions, shared by every clone of a `Resources`.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    live: Mutex<Vec<Session>>,
}

impl Sessions {
    /// The subscriber and the asking count of `peer`'s session, made (with its feed) at the
    /// first call; `None` when `peer` has no legacy session (it never sent `initialize`).
    pub(crate) fn of(&self, server: &Server, peer: &Peer<RoleServer>) -> Option<SessionRef> {
        let key = peer.peer_info()?;
        let mut live = self.live();
        let found = live.iter().find(|session| Arc::ptr_eq(&session.key, &key));
        let session = match found {
            Some(session) => session,
            None => {
                live.push(Session {
                    key,
                    feed: Feed::start(server, peer.clone()),
                    asking: Arc::default(),
                });
                live.last()?
            }
        };
        Some(SessionRef {
            subscriber: session.feed.subscriber(),
            asking: Arc::clone(&session.asking),
        })
    }

    /// The live sessions, without those that ended: whose feed stopped (the client is gone),
    /// or whose key rmcp no longer holds (the connection is gone, or rmcp took a second
    /// `initialize` on it from a handler that does not refuse one: that session starts over).
    fn live(&self) -> MutexGuard<'_, Vec<Session>> {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.retain(|session| !session.feed.is_finished() && Arc::strong_count(&session.key) > 1);
        live
    }
}

/// What a request needs of its session.
#[derive(Debug)]
pub(crate) struct SessionRef {
    pub(crate) subscriber: SubscriberId,
    asking: Arc<AtomicUsize>,
}

impl SessionRef {
    /// Counts one more read waiting for the client, unless [`MAX_ASKING`] wait already; the
    /// count goes down when the returned guard is dropped.
    pub(crate) fn start_asking(&self) -> Option<AskingGuard> {
        let counted = self
            .asking
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |waiting| {
                (waiting < MAX_ASKING).then_some(waiting + 1)
            });
        counted.ok().map(|_| AskingGuard(Arc::clone(&self.asking)))
    }
}

/// One read waiting for the client; uncounted on drop.
#[derive(Debug)]
pub(crate) struct AskingGuard(Arc<AtomicUsize>);

impl Drop for AskingGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
