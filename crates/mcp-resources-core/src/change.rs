//! What a provider's source tells the server when it changes: the [`Change`] values, the
//! [`ChangeSource`] seam that delivers them, and the [`ChangeFeed`] seam that carries them
//! between the instances of one deployment.
//!
//! **Layer:** core, two seams. A provider that can see its source change (a file watcher, a
//! git repository whose refs move, a database that notifies) hands the server a
//! [`ChangeSource`]; the server takes its changes one at a time and reports them to the
//! subscription hub. Without a feed that is all (one process); with one, each instance
//! publishes what its sources see to the feed and feeds its own hub from the feed's
//! [`FeedEvent`]s, so that every instance hears every change. This module knows no runtime, no
//! channel type, no protocol and no wire format: a source or a feed is any value with async
//! methods whose futures carry no runtime types.

use async_trait::async_trait;

use crate::uri::ResourceUri;

/// One change a source saw, in domain terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The contents of a listed resource changed.
    Updated(ResourceUri),
    /// Resources appeared in or disappeared from the list.
    ListChanged {
        /// URIs of the resources that appeared, in URI order.
        created: Vec<ResourceUri>,
        /// URIs of the resources that disappeared, in URI order.
        removed: Vec<ResourceUri>,
    },
}

/// A stream of [`Change`]s, taken one at a time by whoever keeps the subscribers (the server's
/// `follow`). Dropping the source stops it.
#[async_trait]
pub trait ChangeSource: Send {
    /// The next change, waiting for it; `None` once the source has stopped for good.
    async fn next_change(&mut self) -> Option<Change>;
}

/// What a [`ChangeFeed`] delivers to one instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedEvent {
    /// A change an instance saw (this one included).
    Change(Change),
    /// The feed lost its connection: changes may be missed until it is restored, so whoever
    /// was told of changes should be told to start over (end their streams).
    Lost,
    /// The feed is connected again after [`FeedEvent::Lost`].
    Restored,
    /// The feed is connected, but this consumer skipped changes (it fell behind): whoever was
    /// told of changes should be told that anything may have changed.
    Missed,
}

/// Why a change could not be published to a [`ChangeFeed`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the change feed could not publish the change: {0}")]
pub struct FeedError(pub String);

/// Changes carried between the instances of one deployment (a Redis channel, say): each
/// instance publishes what its own sources see, and takes every instance's changes from
/// [`ChangeFeed::events`].
#[async_trait]
pub trait ChangeFeed: Send + Sync {
    /// Publishes a change this instance saw, for every instance (this one included).
    async fn publish(&self, change: &Change) -> Result<(), FeedError>;

    /// The feed's events from now on, for one consumer.
    fn events(&self) -> Box<dyn FeedEvents>;
}

/// One consumer's events of a [`ChangeFeed`].
#[async_trait]
pub trait FeedEvents: Send {
    /// The next event, waiting for it; `None` once the feed has stopped for good. It must be
    /// cancel-safe: a call dropped before it finished loses no event (consumers wait on it
    /// beside a deadline or a shutdown signal).
    async fn next_event(&mut self) -> Option<FeedEvent>;
}
