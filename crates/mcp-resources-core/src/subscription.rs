//! The subscription hub: who listens to which resource URIs and to list changes, and what each
//! listener still has to be told.
//!
//! **Layer:** core. The hub serves both protocol eras with one model. A *subscriber* is whatever
//! the adapter delivers notifications to: a legacy session (which subscribes URI by URI and gets
//! list changes unasked) or one modern listen stream (whose filter is a set of URIs plus a
//! list-changed flag; a client may hold many). The hub must never know a protocol version, a
//! method name, JSON, a channel, a clock or any I/O: it records marks and hands back what to
//! deliver, and the caller sends it.
//!
//! # Semantics
//!
//! The hub is *level-triggered*. [`SubscriptionHub::resource_updated`] marks the pair
//! (subscriber, URI) *pending* for every subscriber of that URI; a second change before delivery
//! finds the pair already pending and coalesces into it. [`SubscriptionHub::list_changed`] does
//! the same with one list flag per subscriber that asked for list changes. Nothing is queued per
//! change, so the memory a subscriber holds is bounded by what it subscribed to (its pending items
//! are a subset of its subscriptions plus one flag), and a slow subscriber never holds up the
//! others.
//!
//! Matching is by exact URI by default: callers pass canonical URIs (`ResourceUri::as_str()`),
//! and [`SubscriptionHub::resource_updated`] for `file:///a/b` reaches subscribers of
//! `file:///a/b` only, never subscribers of `file:///a/`. The protocol also lets a server tell a
//! subscriber of a URI about changes beneath it; a caller that wants this calls
//! [`SubscriptionHub::resource_updated_with_ancestors`], which also marks the subscribed
//! *ancestors* of the URI (its prefixes that end in `/` within the path, such as `file:///a/` and
//! `file:///`). Their subscribers are told about the URI they subscribed to, so pending items stay
//! a subset of the subscriptions.
//!
//! # Driving the hub
//!
//! ```
//! use mcp_resources_core::subscription::{Change, SubscriptionHub, SubscriptionLimits};
//!
//! let mut hub = SubscriptionHub::new(SubscriptionLimits::default());
//! let session = hub.add_subscriber();
//! hub.subscribe(session, "file:///notes.md")?;
//! hub.set_list_changes(session, true)?;
//!
//! // Changes arrive from providers; repeated ones coalesce.
//! assert_eq!(hub.resource_updated("file:///notes.md"), 1);
//! assert_eq!(hub.resource_updated("file:///notes.md"), 0);
//! assert_eq!(hub.list_changed(), 1);
//!
//! // The driver asks who is ready, then drains and sends.
//! for subscriber in hub.take_ready() {
//!     let changes = hub.drain(subscriber);
//!     assert_eq!(changes, [Change::ListChanged, Change::ResourceUpdated("file:///notes.md".into())]);
//! }
//! assert_eq!(hub.pending_count(session), 0);
//! # Ok::<(), mcp_resources_core::subscription::SubscribeError>(())
//! ```
//!
//! # Costs
//!
//! Each distinct URI is stored once, shared by the index and every subscriber of it. A change
//! costs one index lookup and then, per subscriber of that URI, one lookup and a binary search by
//! address over that subscriber's own subscriptions; no step scans all subscribers except
//! [`SubscriptionHub::list_changed`]. Removing a subscriber gives back all it held, and the hash
//! tables shrink once three quarters of them are unused. `benches/subscriptions.rs` measures
//! 100,000 subscriptions at 6 to 19 MB (about 60 to 190 bytes each, fewer when URIs are shared).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

/// Identifies one subscriber of a [`SubscriptionHub`]: a legacy session or a modern listen
/// stream.
///
/// The hub hands identifiers out in increasing order from 1 and never reuses one, so an
/// identifier kept after [`SubscriptionHub::remove_subscriber`] can never reach another
/// subscriber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SubscriberId(u64);

impl SubscriberId {
    /// The identifier as a number, for logs and for keys in the caller's own tables.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for SubscriberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Bounds on what one subscriber may hold in a [`SubscriptionHub`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionLimits {
    /// The most resource URIs one subscriber may be subscribed to at once. Default: 1,000.
    pub max_subscriptions_per_subscriber: usize,
}

impl Default for SubscriptionLimits {
    fn default() -> Self {
        SubscriptionLimits {
            max_subscriptions_per_subscriber: 1_000,
        }
    }
}

/// Why a subscription could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubscribeError {
    /// The subscriber was never added to this hub, or has been removed.
    #[error("unknown subscriber {0}")]
    UnknownSubscriber(SubscriberId),
    /// The subscriber already holds as many subscriptions as the limits allow.
    #[error("subscriber {subscriber} already has {limit} subscriptions, the most allowed")]
    TooManySubscriptions {
        /// The subscriber that asked.
        subscriber: SubscriberId,
        /// The configured [`SubscriptionLimits::max_subscriptions_per_subscriber`].
        limit: usize,
    },
}

/// One thing a subscriber has to be told, as returned by [`SubscriptionHub::drain`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    /// The list of resources changed.
    ListChanged,
    /// The resource with this URI changed; the string is shared with the hub's index.
    ResourceUpdated(Arc<str>),
}

/// Totals over the whole hub, for metrics and for tests that removal frees everything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HubStats {
    /// Subscribers currently added.
    pub subscribers: usize,
    /// (subscriber, URI) subscriptions, summed over all subscribers.
    pub subscriptions: usize,
    /// Distinct URIs with at least one subscriber (the size of the fan-out index).
    pub uris: usize,
    /// Subscribers that receive list changes.
    pub list_subscribers: usize,
    /// Pending items, summed over all subscribers: pending URIs plus pending list flags.
    pub pending: usize,
    /// Subscribers waiting to be returned by [`SubscriptionHub::take_ready`].
    pub ready: usize,
}

/// Builds the hasher of the hub's own tables keyed by [`SubscriberId`]; private to the hub.
///
/// Measured (`cargo xtask bench --quick --only fan-out`, one change to 10,000 streams over
/// Streamable HTTP): with foldhash's plain fixed-seed hasher in its place, change → last
/// notification took 38.3 ms (modern, HTTP/2) and 40.0 ms (legacy, HTTP/2), 3.9 µs of server CPU
/// per notification; with this one, 31.6 ms and 31.6 ms, 3.1 µs (about 20% less, HTTP/1.1
/// alike). The hub's model-based property tests check it gives the same answers as any hasher.
///
/// A fan-out visits every subscriber of a URI, in each table keyed by subscriber, and with 10,000
/// subscribers those visits are cache misses. This hash keeps identifiers handed out one after
/// another in neighbouring buckets, in runs of [`IdHasher::RUN`], so a walk over many of them
/// reads memory in order, and a table iterates them in the same order as every other table with
/// this hasher (the hub's index and its subscriber table). Each run starts at a hash of its number (foldhash's quality hash, with a fixed
/// seed, so iteration order is reproducible): identifiers that survive at a stride, whatever the
/// stride, spread over the table as a random hash spreads them, and never pile into a few
/// buckets. The hub hands identifiers out itself, so no caller can choose them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IdHasher;

impl IdHasher {
    /// How many consecutive identifiers share a run of neighbouring buckets.
    pub(crate) const RUN: u64 = 64;
}

impl std::hash::BuildHasher for IdHasher {
    type Hasher = IdHash;

    fn build_hasher(&self) -> IdHash {
        IdHash(0)
    }
}

/// The hasher [`IdHasher`] builds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdHash(u64);

impl std::hash::Hasher for IdHash {
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by `SubscriberId`; anything else is folded in whole.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = id;
    }

    fn finish(&self) -> u64 {
        use std::hash::BuildHasher;
        let id = self.0;
        let within = id % IdHasher::RUN;
        let run = foldhash::quality::FixedState::default().hash_one(id / IdHasher::RUN);
        // Low bits (the bucket): the run's place, then the place within it, so identifiers at a
        // stride of a run spread as widely as the run hash does. High bits (the tag a lookup
        // compares first): the run's hash, told apart within the run.
        run.wrapping_add(within) ^ (within << 57)
    }
}

/// One subscription of one subscriber.
#[derive(Debug)]
struct Subscription {
    /// The same allocation as the key of this URI in the hub's index.
    uri: Arc<str>,
    pending: bool,
}

/// The address of an interned URI. While a URI has subscribers its string lives in exactly one
/// allocation, so the address identifies it; comparing addresses spares a fan-out the string
/// comparisons and the cache misses of reading every subscriber's strings.
fn address_of(uri: &Arc<str>) -> usize {
    Arc::as_ptr(uri).cast::<u8>().addr()
}

/// The capacity to shrink a hash table to, once three quarters of it are unused. A table that
/// never shrank would keep the memory of its busiest moment; shrinking to twice the length costs
/// amortized O(1) per removal.
fn shrunk_capacity(length: usize, capacity: usize) -> Option<usize> {
    (capacity > 64 && length * 4 < capacity).then_some(length * 2)
}

/// The lengths of the ancestors of `uri`, shortest first: the prefixes that end in a `/` of the
/// path, not counting `uri` itself.
fn ancestor_ends(uri: &str) -> impl Iterator<Item = usize> + '_ {
    let path = uri.find("://").and_then(|scheme_end| {
        let scheme = &uri[..scheme_end];
        let is_scheme = !scheme.is_empty()
            && scheme
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'));
        if !is_scheme {
            return None;
        }
        let authority_start = scheme_end + 3;
        let path_start = authority_start + uri[authority_start..].find(['/', '?'])?;
        if !uri[path_start..].starts_with('/') {
            return None;
        }
        let path_end = uri[path_start..]
            .find('?')
            .map_or(uri.len(), |query| path_start + query);
        Some((path_start, path_end))
    });
    path.into_iter().flat_map(move |(path_start, path_end)| {
        uri[path_start..path_end]
            .match_indices('/')
            .map(move |(slash, _)| path_start + slash + 1)
            .filter(move |&end| end < uri.len())
    })
}

/// What the hub keeps per subscriber.
#[derive(Debug, Default)]
struct Subscriber {
    /// Sorted by [`address_of`] the URI; at most `max_subscriptions_per_subscriber` entries.
    /// The first is kept in place: most subscribers hold one URI (a modern listen stream of one
    /// resource), and a fan-out then finds it in the subscriber's own entry, without reading
    /// another allocation per subscriber.
    subscriptions: SmallVec<[Subscription; 1]>,
    /// How many entries of `subscriptions` are pending.
    pending_uris: usize,
    list_changes: bool,
    list_pending: bool,
    /// Whether the identifier of this subscriber is in the hub's `ready` queue.
    queued: bool,
}

impl Subscriber {
    fn has_pending(&self) -> bool {
        self.pending_uris > 0 || self.list_pending
    }

    fn pending_count(&self) -> usize {
        self.pending_uris + usize::from(self.list_pending)
    }

    /// Where the subscription to the interned `uri` is, or would be inserted.
    fn position(&self, uri: &Arc<str>) -> Result<usize, usize> {
        let address = address_of(uri);
        self.subscriptions
            .binary_search_by_key(&address, |subscription| address_of(&subscription.uri))
    }
}

/// The subscribers of one URI. Most URIs have a handful, kept in a small vector; a popular URI
/// moves to a hash set so that removing one of its many subscribers stays cheap.
#[derive(Debug)]
enum SubscriberSet {
    Few(Vec<SubscriberId>),
    /// Boxed, so that the many URIs with few subscribers pay for a vector only: the index entry
    /// of every URI is as small as the `Few` variant.
    #[allow(
        clippy::box_collection,
        reason = "keeps every index entry 16 bytes smaller; measured in benches/subscriptions.rs"
    )]
    Many(Box<HashSet<SubscriberId, IdHasher>>),
}

impl SubscriberSet {
    /// The most subscribers kept in a vector.
    const FEW: usize = 16;

    fn one(id: SubscriberId) -> Self {
        SubscriberSet::Few(vec![id])
    }

    /// Adds `id`, which must not be in the set yet.
    fn insert(&mut self, id: SubscriberId) {
        match self {
            SubscriberSet::Few(ids) if ids.len() < Self::FEW => {
                debug_assert!(!ids.contains(&id), "subscriber {id} is already in the set");
                ids.push(id);
            }
            SubscriberSet::Few(ids) => {
                let mut set: HashSet<SubscriberId, IdHasher> = ids.drain(..).collect();
                set.insert(id);
                *self = SubscriberSet::Many(Box::new(set));
            }
            SubscriberSet::Many(set) => {
                set.insert(id);
            }
        }
    }

    fn remove(&mut self, id: SubscriberId) {
        match self {
            SubscriberSet::Few(ids) => {
                if let Some(position) = ids.iter().position(|&member| member == id) {
                    ids.swap_remove(position);
                }
            }
            SubscriberSet::Many(set) => {
                set.remove(&id);
                if set.len() <= Self::FEW / 2 {
                    *self = SubscriberSet::Few(set.iter().copied().collect());
                } else if let Some(capacity) = shrunk_capacity(set.len(), set.capacity()) {
                    set.shrink_to(capacity);
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            SubscriberSet::Few(ids) => ids.len(),
            SubscriberSet::Many(set) => set.len(),
        }
    }

    fn iter(&self) -> impl Iterator<Item = SubscriberId> + '_ {
        let (few, many) = match self {
            SubscriberSet::Few(ids) => (ids.as_slice(), None),
            SubscriberSet::Many(set) => (&[][..], Some(&**set)),
        };
        few.iter().chain(many.into_iter().flatten()).copied()
    }
}

/// A pure, level-triggered subscription hub for resource URIs and list changes.
///
/// See the [module documentation](self) for the semantics and the driving loop. Every operation
/// costs time in proportion to what it touches, never a scan of all subscribers (except
/// [`list_changed`](Self::list_changed)): a change to a URI costs one index lookup, then for each
/// subscriber of that URI one lookup and a binary search over its own subscriptions.
#[derive(Debug)]
pub struct SubscriptionHub {
    limits: SubscriptionLimits,
    next_id: u64,
    subscribers: HashMap<SubscriberId, Subscriber, IdHasher>,
    /// URI → its subscribers. Every key is shared (`Arc`) with the subscribers' own lists, so each
    /// distinct URI is stored once. URIs come from clients, so this map keeps std's keyed hasher.
    index: HashMap<Arc<str>, SubscriberSet>,
    /// Subscribers that got a new pending item since they were last taken, in that order, each
    /// once (`Subscriber::queued`). Entries of subscribers since drained are skipped when taken;
    /// entries of removed subscribers are counted in `ready_removed` and compacted away once they
    /// make up half of the queue, so the queue never outgrows twice the live entries.
    ready: Vec<SubscriberId>,
    ready_removed: usize,
    subscription_total: usize,
    pending_total: usize,
    list_subscriber_total: usize,
}

impl Default for SubscriptionHub {
    fn default() -> Self {
        SubscriptionHub::new(SubscriptionLimits::default())
    }
}

impl SubscriptionHub {
    /// An empty hub enforcing `limits`.
    pub fn new(limits: SubscriptionLimits) -> Self {
        SubscriptionHub {
            limits,
            next_id: 1,
            subscribers: HashMap::default(),
            index: HashMap::new(),
            ready: Vec::new(),
            ready_removed: 0,
            subscription_total: 0,
            pending_total: 0,
            list_subscriber_total: 0,
        }
    }

    /// The limits this hub enforces.
    pub fn limits(&self) -> &SubscriptionLimits {
        &self.limits
    }

    /// Adds a subscriber with no subscriptions and list changes off, and returns its identifier.
    pub fn add_subscriber(&mut self) -> SubscriberId {
        let id = SubscriberId(self.next_id);
        self.next_id += 1;
        self.subscribers.insert(id, Subscriber::default());
        id
    }

    /// Removes a subscriber with all its subscriptions and pending items. Returns `false` if it
    /// was not there.
    pub fn remove_subscriber(&mut self, id: SubscriberId) -> bool {
        let Some(subscriber) = self.subscribers.remove(&id) else {
            return false;
        };
        if let Some(capacity) = shrunk_capacity(self.subscribers.len(), self.subscribers.capacity())
        {
            self.subscribers.shrink_to(capacity);
        }
        for subscription in &subscriber.subscriptions {
            self.unindex(&subscription.uri, id);
        }
        self.subscription_total -= subscriber.subscriptions.len();
        self.pending_total -= subscriber.pending_count();
        self.list_subscriber_total -= usize::from(subscriber.list_changes);
        if subscriber.queued {
            self.ready_removed += 1;
            if self.ready_removed * 2 > self.ready.len() {
                let subscribers = &self.subscribers;
                self.ready.retain(|id| subscribers.contains_key(id));
                self.ready_removed = 0;
            }
        }
        true
    }

    /// Whether `id` is a current subscriber.
    pub fn contains(&self, id: SubscriberId) -> bool {
        self.subscribers.contains_key(&id)
    }

    /// Subscribes `id` to changes of `uri` (compared exactly; pass the canonical form).
    ///
    /// Returns `Ok(true)` for a new subscription and `Ok(false)` if it already existed, which is
    /// allowed even at the limit.
    pub fn subscribe(&mut self, id: SubscriberId, uri: &str) -> Result<bool, SubscribeError> {
        let subscriber = self
            .subscribers
            .get_mut(&id)
            .ok_or(SubscribeError::UnknownSubscriber(id))?;
        let interned = self.index.get_key_value(uri).map(|(interned, _)| interned);
        if interned.is_some_and(|interned| subscriber.position(interned).is_ok()) {
            return Ok(false);
        }
        let limit = self.limits.max_subscriptions_per_subscriber;
        if subscriber.subscriptions.len() >= limit {
            return Err(SubscribeError::TooManySubscriptions {
                subscriber: id,
                limit,
            });
        }
        let interned: Arc<str> = interned.map_or_else(|| Arc::from(uri), Arc::clone);
        let position = subscriber
            .position(&interned)
            .expect_err("checked above that the subscription is new");
        // Most subscribers hold few URIs: grow the first allocations one element at a time.
        if subscriber.subscriptions.capacity() == subscriber.subscriptions.len()
            && subscriber.subscriptions.len() < 4
        {
            subscriber.subscriptions.reserve_exact(1);
        }
        subscriber.subscriptions.insert(
            position,
            Subscription {
                uri: Arc::clone(&interned),
                pending: false,
            },
        );
        match self.index.get_mut(uri) {
            Some(subscriber_ids) => subscriber_ids.insert(id),
            None => {
                self.index.insert(interned, SubscriberSet::one(id));
            }
        }
        self.subscription_total += 1;
        Ok(true)
    }

    /// Ends the subscription of `id` to `uri`, dropping its pending item if any. Returns `false`
    /// if there was no such subscription.
    pub fn unsubscribe(&mut self, id: SubscriberId, uri: &str) -> bool {
        let Some(subscriber) = self.subscribers.get_mut(&id) else {
            return false;
        };
        let Some((interned, _)) = self.index.get_key_value(uri) else {
            return false;
        };
        let Ok(position) = subscriber.position(interned) else {
            return false;
        };
        let subscription = subscriber.subscriptions.remove(position);
        if subscription.pending {
            subscriber.pending_uris -= 1;
            self.pending_total -= 1;
        }
        if subscriber.subscriptions.len() * 4 <= subscriber.subscriptions.capacity() {
            // Back in place once at most one is left.
            let length = subscriber.subscriptions.len();
            subscriber
                .subscriptions
                .grow(if length <= 1 { 1 } else { length * 2 });
        }
        self.subscription_total -= 1;
        self.unindex(&subscription.uri, id);
        true
    }

    /// Turns list-change notifications on or off for `id`. Turning them off drops a pending list
    /// change.
    pub fn set_list_changes(&mut self, id: SubscriberId, on: bool) -> Result<(), SubscribeError> {
        let subscriber = self
            .subscribers
            .get_mut(&id)
            .ok_or(SubscribeError::UnknownSubscriber(id))?;
        if subscriber.list_changes == on {
            return Ok(());
        }
        subscriber.list_changes = on;
        if on {
            self.list_subscriber_total += 1;
        } else {
            self.list_subscriber_total -= 1;
            if subscriber.list_pending {
                subscriber.list_pending = false;
                self.pending_total -= 1;
            }
        }
        Ok(())
    }

    /// Records that the resource at `uri` changed: marks it pending for every subscriber of
    /// `uri`. Returns how many subscribers got a new pending item; subscribers for which `uri`
    /// was already pending coalesce the change into that item and are not counted.
    pub fn resource_updated(&mut self, uri: &str) -> usize {
        let Some((interned, subscriber_ids)) = self.index.get_key_value(uri) else {
            return 0;
        };
        let mut newly_pending = 0;
        for id in subscriber_ids.iter() {
            let subscriber = self
                .subscribers
                .get_mut(&id)
                .expect("the index names current subscribers only");
            let position = subscriber
                .position(interned)
                .expect("the index names subscribers of that uri only");
            let subscription = &mut subscriber.subscriptions[position];
            if !subscription.pending {
                subscription.pending = true;
                subscriber.pending_uris += 1;
                newly_pending += 1;
                if !subscriber.queued {
                    subscriber.queued = true;
                    self.ready.push(id);
                }
            }
        }
        self.pending_total += newly_pending;
        newly_pending
    }

    /// Like [`resource_updated`](Self::resource_updated), and also marks every subscribed
    /// ancestor of `uri` pending: each prefix of `uri` that ends in `/` within its path (after
    /// `scheme://authority`, before any `?`). For `file:///a/b/c.txt` these are `file:///a/b/`,
    /// `file:///a/` and `file:///`. Each ancestor costs one index lookup. A URI without `://` has
    /// no ancestors.
    ///
    /// Returns how many pending items were newly made, summed over `uri` and its ancestors; a
    /// subscriber of two of them counts twice.
    pub fn resource_updated_with_ancestors(&mut self, uri: &str) -> usize {
        let mut newly_pending = self.resource_updated(uri);
        for end in ancestor_ends(uri) {
            newly_pending += self.resource_updated(&uri[..end]);
        }
        newly_pending
    }

    /// Records that the resource at `uri` may have changed for subscriber `id` alone (one that
    /// subscribed after a change it could have missed). Returns whether a new pending item was
    /// made: `false` when `id` is not subscribed to `uri`, or it was pending already.
    pub fn resource_updated_for(&mut self, id: SubscriberId, uri: &str) -> bool {
        let Some((interned, _)) = self.index.get_key_value(uri) else {
            return false;
        };
        let Some(subscriber) = self.subscribers.get_mut(&id) else {
            return false;
        };
        let Ok(position) = subscriber.position(interned) else {
            return false;
        };
        let subscription = &mut subscriber.subscriptions[position];
        if subscription.pending {
            return false;
        }
        subscription.pending = true;
        subscriber.pending_uris += 1;
        self.pending_total += 1;
        if !subscriber.queued {
            subscriber.queued = true;
            self.ready.push(id);
        }
        true
    }

    /// Records that the list of resources changed: marks the list flag pending for every
    /// subscriber with list changes on. Returns how many subscribers got a new pending item.
    ///
    /// This visits every subscriber; list changes are rare next to resource updates.
    pub fn list_changed(&mut self) -> usize {
        self.list_changed_for(|_| true)
    }

    /// Like [`list_changed`](Self::list_changed), for the subscribers `concerns` says the
    /// change is for only (those allowed to see a resource that came or went): the others are
    /// not told.
    pub fn list_changed_for(&mut self, mut concerns: impl FnMut(SubscriberId) -> bool) -> usize {
        if self.list_subscriber_total == 0 {
            return 0;
        }
        let mut newly_pending = 0;
        for (&id, subscriber) in &mut self.subscribers {
            if subscriber.list_changes && !subscriber.list_pending && concerns(id) {
                subscriber.list_pending = true;
                newly_pending += 1;
                if !subscriber.queued {
                    subscriber.queued = true;
                    self.ready.push(id);
                }
            }
        }
        self.pending_total += newly_pending;
        newly_pending
    }

    /// Records that anything may have changed (changes were missed, say, while the feed that
    /// carries them between instances was away): marks every subscription of every subscriber
    /// pending, and the list flag of every subscriber with list changes on. Returns how many
    /// pending items were newly made. Visits every subscriber and subscription.
    pub fn everything_changed(&mut self) -> usize {
        let mut newly_pending = 0;
        for (&id, subscriber) in &mut self.subscribers {
            let before = subscriber.pending_count();
            for subscription in &mut subscriber.subscriptions {
                if !subscription.pending {
                    subscription.pending = true;
                    subscriber.pending_uris += 1;
                }
            }
            if subscriber.list_changes {
                subscriber.list_pending = true;
            }
            let made = subscriber.pending_count() - before;
            if made > 0 && !subscriber.queued {
                subscriber.queued = true;
                self.ready.push(id);
            }
            newly_pending += made;
        }
        self.pending_total += newly_pending;
        newly_pending
    }

    /// Takes everything pending for `id`: [`Change::ListChanged`] first if pending, then one
    /// [`Change::ResourceUpdated`] per pending URI in URI order. Empty for an unknown subscriber.
    pub fn drain(&mut self, id: SubscriberId) -> Vec<Change> {
        let mut changes = Vec::new();
        self.drain_into(id, &mut changes);
        changes
    }

    /// Like [`drain`](Self::drain), but appends to `changes` so a driver can reuse one buffer.
    /// Returns how many changes were appended.
    pub fn drain_into(&mut self, id: SubscriberId, changes: &mut Vec<Change>) -> usize {
        let Some(subscriber) = self.subscribers.get_mut(&id) else {
            return 0;
        };
        let count = subscriber.pending_count();
        if count == 0 {
            return 0;
        }
        changes.reserve(count);
        let start = changes.len();
        if subscriber.list_pending {
            subscriber.list_pending = false;
            changes.push(Change::ListChanged);
        }
        let mut remaining = subscriber.pending_uris;
        for subscription in &mut subscriber.subscriptions {
            if remaining == 0 {
                break;
            }
            if subscription.pending {
                subscription.pending = false;
                remaining -= 1;
                changes.push(Change::ResourceUpdated(Arc::clone(&subscription.uri)));
            }
        }
        subscriber.pending_uris = 0;
        self.pending_total -= count;
        // Subscriptions are kept in address order; deliver in URI order, list change first.
        changes[start..].sort_unstable();
        count
    }

    /// Takes the subscribers that got a new pending item since they were last taken and still
    /// have pending items, in the order they first got one. A subscriber returned here is not
    /// returned again until a new, uncoalesced change reaches it, so the driver should drain it.
    pub fn take_ready(&mut self) -> Vec<SubscriberId> {
        let mut ready = std::mem::take(&mut self.ready);
        self.ready_removed = 0;
        ready.retain(|id| match self.subscribers.get_mut(id) {
            Some(subscriber) => {
                subscriber.queued = false;
                subscriber.has_pending()
            }
            None => false,
        });
        ready
    }

    /// The subscribers [`take_ready`](Self::take_ready) would return, without taking them.
    pub fn ready(&self) -> impl Iterator<Item = SubscriberId> + '_ {
        self.ready.iter().copied().filter(|id| {
            self.subscribers
                .get(id)
                .is_some_and(Subscriber::has_pending)
        })
    }

    /// How many items are pending for `id` (pending URIs plus the list flag); 0 if unknown.
    pub fn pending_count(&self, id: SubscriberId) -> usize {
        self.subscribers
            .get(&id)
            .map_or(0, Subscriber::pending_count)
    }

    /// The URIs `id` is subscribed to, in URI order; empty if unknown. This sorts a fresh
    /// vector: it is meant for introspection, not for a hot path.
    pub fn subscriptions(&self, id: SubscriberId) -> Vec<&str> {
        let mut uris: Vec<&str> = self
            .subscribers
            .get(&id)
            .into_iter()
            .flat_map(|subscriber| subscriber.subscriptions.iter())
            .map(|subscription| subscription.uri.as_ref())
            .collect();
        uris.sort_unstable();
        uris
    }

    /// Whether `id` receives list changes; `false` if unknown.
    pub fn list_changes(&self, id: SubscriberId) -> bool {
        self.subscribers
            .get(&id)
            .is_some_and(|subscriber| subscriber.list_changes)
    }

    /// How many subscribers `uri` has.
    pub fn subscriber_count_of(&self, uri: &str) -> usize {
        self.index.get(uri).map_or(0, SubscriberSet::len)
    }

    /// Totals over the whole hub. Counting the ready subscribers walks the ready queue.
    pub fn stats(&self) -> HubStats {
        HubStats {
            subscribers: self.subscribers.len(),
            subscriptions: self.subscription_total,
            uris: self.index.len(),
            list_subscribers: self.list_subscriber_total,
            pending: self.pending_total,
            ready: self.ready().count(),
        }
    }

    /// Removes `id` from the index entry of `uri`, dropping the entry when it empties.
    fn unindex(&mut self, uri: &str, id: SubscriberId) {
        if let Some(subscriber_ids) = self.index.get_mut(uri) {
            subscriber_ids.remove(id);
            if subscriber_ids.len() == 0 {
                self.index.remove(uri);
                if let Some(capacity) = shrunk_capacity(self.index.len(), self.index.capacity()) {
                    self.index.shrink_to(capacity);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The identifier hash: neighbours stay neighbours, strides do not pile up.

    use std::collections::BTreeSet;

    use super::IdHasher;

    /// The bucket of `id` in a table of `buckets` (a power of two): the low bits of its hash, as a
    /// hash table takes them.
    fn bucket(id: u64, buckets: u64) -> u64 {
        use std::hash::BuildHasher;
        IdHasher.hash_one(id) & (buckets - 1)
    }

    #[test]
    fn consecutive_identifiers_hash_to_neighbouring_buckets() {
        let buckets = 1 << 14;
        for start in [0, IdHasher::RUN, 1_000 * IdHasher::RUN] {
            let first = bucket(start, buckets);
            for offset in 1..IdHasher::RUN {
                assert_eq!(
                    bucket(start + offset, buckets),
                    (first + offset) % buckets,
                    "identifier {} of the run from {start}",
                    start + offset
                );
            }
        }
    }

    #[test]
    fn identifiers_at_a_stride_spread_over_the_table() {
        // Whatever survives of a run (every 64th, every 1024th identifier) lands in as many
        // places as a random hash would put it: nearly one bucket each in a table four times
        // their number.
        let buckets = 1 << 12;
        for stride in [IdHasher::RUN, 1024, 1 << 20] {
            let distinct: BTreeSet<u64> = (0..1024).map(|k| bucket(k * stride, buckets)).collect();
            assert!(
                distinct.len() > 850,
                "stride {stride}: 1,024 identifiers in {} buckets",
                distinct.len()
            );
        }
        // The tags compared first in a lookup (the top bits) tell a run's members apart.
        use std::hash::BuildHasher;
        let tags: BTreeSet<u64> = (0..IdHasher::RUN)
            .map(|id| IdHasher.hash_one(id) >> 57)
            .collect();
        assert_eq!(tags.len() as u64, IdHasher::RUN);
    }
}
