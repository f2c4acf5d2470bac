//! What a provider's source tells the server when it changes: the [`Change`] values and the
//! [`ChangeSource`] seam that delivers them.
//!
//! **Layer:** core, a seam. A provider that can see its source change (a file watcher, a git
//! repository whose refs move, a database that notifies) hands the server a [`ChangeSource`];
//! the server takes its changes one at a time and reports them to the subscription hub. This
//! module knows no runtime, no channel type and no protocol: a source is any value with an
//! async `next_change`, and its futures carry no runtime types.

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
