//! The [`SessionStore`] seam: records of sessions kept where every instance of a deployment
//! reads them (Redis, say), so that any instance serves any session's requests; and the
//! [`TicketStore`] seam: one-use tickets shared by the deployment, so that a confirmation state
//! is good once, whichever instance it comes back to.
//!
//! **Layer:** core, a seam. A record is a set of named text fields under an opaque key, with a
//! lifetime: what the fields say, and which session a key names, is the server's business (a
//! legacy session's negotiated version, its subscriptions, whom it belongs to); the store only
//! keeps them, field by field, so that two instances changing different fields of one record
//! at once both win. Every write tells every instance ([`SessionNotice`]), so that one holding
//! a copy of the session reads it again. This module knows no runtime, no protocol, no era
//! and no wire format.

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;

/// A record's fields, by name.
pub type Fields = BTreeMap<String, String>;

/// Why a store could not be asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the shared store failed: {0}")]
pub struct StoreError(pub String);

/// What a [`SessionStore`] tells every instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionNotice {
    /// The record under this key was written or removed (by any instance, this one included).
    Changed(String),
    /// Notices may have been missed (the store was away, or this consumer fell behind): every
    /// copy of a stored record may be out of date.
    Unsure,
}

/// Changes to one record, written at once ([`SessionStore::write`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Write {
    /// Fields to set, with their values.
    pub set: Fields,
    /// Fields to remove.
    pub unset: Vec<String>,
}

impl Write {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.unset.is_empty()
    }

    /// What turns `from` into `to`: the fields of `to` that `from` lacks or holds otherwise,
    /// and those of `from` that `to` lacks.
    pub fn between(from: &Fields, to: &Fields) -> Write {
        Write {
            set: to
                .iter()
                .filter(|(name, value)| from.get(*name) != Some(value))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
            unset: from
                .keys()
                .filter(|name| !to.contains_key(*name))
                .cloned()
                .collect(),
        }
    }

    /// `fields` with this write applied.
    pub fn apply_to(&self, fields: &mut Fields) {
        for name in &self.unset {
            fields.remove(name);
        }
        fields.extend(
            self.set
                .iter()
                .map(|(name, value)| (name.clone(), value.clone())),
        );
    }
}

/// Records of sessions shared by the instances of one deployment.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Writes `write` to the record under `key`, which then lasts `lasting` from now, and
    /// tells every instance. With `create`, a record that is not there is made; without it,
    /// nothing is written to a record that is gone (expired or removed): `Ok(false)`.
    async fn write(
        &self,
        key: &str,
        write: &Write,
        create: bool,
        lasting: Duration,
    ) -> Result<bool, StoreError>;

    /// The record under `key`; `None` when there is none.
    async fn read(&self, key: &str) -> Result<Option<Fields>, StoreError>;

    /// Makes the record under `key` last `lasting` from now; `Ok(false)` when it is gone.
    async fn extend(&self, key: &str, lasting: Duration) -> Result<bool, StoreError>;

    /// Removes the record under `key`, and tells every instance.
    async fn remove(&self, key: &str) -> Result<(), StoreError>;

    /// The store's notices from now on, for one consumer.
    fn notices(&self) -> Box<dyn SessionNotices>;
}

/// One-use tickets shared by the instances of one deployment: a ticket issued by one instance
/// is redeemed once, by whichever instance redeems it first. A ticket that is not there (never
/// issued, redeemed already, expired, or lost with the store's data) cannot be redeemed, so
/// whatever the store forgets is refused (what it takes back, reloading older data, is the
/// store's to prevent).
#[async_trait]
pub trait TicketStore: Send + Sync {
    /// Issues the ticket `key`, good for `lasting` from now.
    async fn issue(&self, key: &str, lasting: Duration) -> Result<(), StoreError>;

    /// Redeems the ticket `key`: `Ok(true)` when it was there (it is gone now, for every
    /// instance), `Ok(false)` when it was not.
    async fn redeem(&self, key: &str) -> Result<bool, StoreError>;
}

/// One consumer's notices of a [`SessionStore`].
#[async_trait]
pub trait SessionNotices: Send {
    /// The next notice, waiting for it; `None` once the store has stopped for good. It must
    /// be cancel-safe, as [`FeedEvents::next_event`](crate::change::FeedEvents::next_event)
    /// is.
    async fn next_notice(&mut self) -> Option<SessionNotice>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Fields {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_write_between_two_records_turns_one_into_the_other() {
        let from = fields(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let to = fields(&[("a", "1"), ("b", "two"), ("d", "4")]);
        let write = Write::between(&from, &to);
        assert_eq!(write.set, fields(&[("b", "two"), ("d", "4")]));
        assert_eq!(write.unset, vec!["c".to_owned()]);
        let mut applied = from.clone();
        write.apply_to(&mut applied);
        assert_eq!(applied, to);
        assert!(Write::between(&to, &to).is_empty());
    }
}
