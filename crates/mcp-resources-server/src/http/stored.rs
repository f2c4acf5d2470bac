//! What a legacy session keeps in the deployment's [`SessionStore`], so that every instance
//! serves any session's requests: the record's fields, its key, and one copy's view of it
//! ([`Stored`]).
//!
//! **Layer:** server, HTTP transport, below [`super::legacy`], which writes a session's record
//! after each request, restores a session from it on an instance that has no copy, and takes
//! what other instances wrote when the store tells it. A record holds:
//!
//! - `v`: what never changes (the negotiated version, the client's capabilities, and whom
//!   the session belongs to: the subject and issuer of its opener's token, none when
//!   anonymous), written once, when the session opens;
//! - `ready`: present once `notifications/initialized` arrived; `log`: the client's log level;
//! - `s:<uri>`: one field per subscription.
//!
//! Every field but `v` is written only when it changed, field by field, so that two
//! instances changing one session at once (a subscription here, the log level there) both
//! win. The store's key is a digest of the session id, so that the id (which is all an
//! anonymous client needs to use a session) is never in the store or on its channel. This
//! module never knows a request, a stream or a message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcp_legacy_2025::{Session, SessionRecord};
use mcp_resources_core::policy::Principal;
use mcp_resources_core::store::{Fields, SessionStore};
use mcp_types::ProtocolVersion;
use mcp_types::capabilities::ClientCapabilities;
use mcp_types::logging::LoggingLevel;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The field of what never changes.
pub(super) const IDENTITY: &str = "v";
/// Present once the session is ready.
const READY: &str = "ready";
/// The client's log level.
pub(super) const LOG: &str = "log";
/// The prefix of a subscription's field.
const SUBSCRIBED: &str = "s:";

/// The store key of the session `id`: 32 hex digits of a SHA-256 digest.
pub(super) fn key_of(id: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"mcp-resources legacy session\0")
        .chain_update(id.as_bytes())
        .finalize();
    digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// What never changes in a session, as its `v` field holds it.
#[derive(Debug, Serialize, Deserialize)]
struct Identity {
    version: ProtocolVersion,
    client: ClientCapabilities,
    subject: Option<String>,
    issuer: Option<String>,
}

/// Whether `principal` is whom a session opened by `subject` of `issuer` belongs to (the rule
/// of [`super::legacy::LegacyHttpSession::belongs_to`]).
pub(super) fn same_owner(
    principal: &Principal,
    subject: Option<&String>,
    issuer: Option<&String>,
) -> bool {
    principal.subject.as_ref() == subject && principal.claims.get("iss") == issuer
}

/// The `v` field of an initialized session opened by `principal`.
pub(super) fn identity(session: &Session, principal: &Principal) -> Option<String> {
    let record = session.record()?;
    let identity = Identity {
        version: record.version,
        client: record.client,
        subject: principal.subject.clone(),
        issuer: principal.claims.get("iss").cloned(),
    };
    serde_json::to_string(&identity).ok()
}

/// The fields of an initialized session that change: readiness, log level, and its
/// `subscriptions`.
pub(super) fn changing_fields(session: &Session, subscriptions: Vec<String>) -> Fields {
    let mut fields = Fields::new();
    if session.state() == mcp_legacy_2025::LifecycleState::Ready {
        fields.insert(READY.to_owned(), "1".to_owned());
    }
    if let Ok(serde_json::Value::String(level)) = serde_json::to_value(session.log_level()) {
        fields.insert(LOG.to_owned(), level);
    }
    for uri in subscriptions {
        fields.insert(format!("{SUBSCRIBED}{uri}"), String::new());
    }
    fields
}

/// `fields` without `v`: what [`changing_fields`] makes.
pub(super) fn changing(fields: &Fields) -> Fields {
    fields
        .iter()
        .filter(|(name, _)| *name != IDENTITY)
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// The subscriptions `fields` name, in URI order.
pub(super) fn subscriptions(fields: &Fields) -> impl Iterator<Item = &str> {
    fields
        .keys()
        .filter_map(|name| name.strip_prefix(SUBSCRIBED))
}

/// The field of a subscription to `uri`.
pub(super) fn subscription_field(uri: &str) -> String {
    format!("{SUBSCRIBED}{uri}")
}

/// A record read back: what a copy of the session is restored from or follows.
#[derive(Debug)]
pub(super) struct Read {
    identity: Identity,
    /// Every field but `v`.
    pub(super) changing: Fields,
}

impl Read {
    /// The record `fields` hold; `None` when `v` is missing or unreadable (not ours).
    pub(super) fn parse(fields: &Fields) -> Option<Read> {
        let identity = serde_json::from_str(fields.get(IDENTITY)?).ok()?;
        Some(Read {
            identity,
            changing: changing(fields),
        })
    }

    /// Whether the session belongs to `principal`.
    pub(super) fn belongs_to(&self, principal: &Principal) -> bool {
        same_owner(
            principal,
            self.identity.subject.as_ref(),
            self.identity.issuer.as_ref(),
        )
    }

    /// The session's record, with its readiness and log level from `changing` (a copy's
    /// fields, merged: see [`super::legacy`]).
    pub(super) fn record(&self, changing: &Fields) -> SessionRecord {
        let log_level = changing
            .get(LOG)
            .and_then(|level| {
                serde_json::from_value::<LoggingLevel>(serde_json::Value::String(level.clone()))
                    .ok()
            })
            .unwrap_or(mcp_legacy_2025::DEFAULT_LOG_LEVEL);
        SessionRecord {
            version: self.identity.version.clone(),
            client: self.identity.client.clone(),
            ready: changing.contains_key(READY),
            log_level,
        }
    }
}

/// Of `local` (what this copy holds now), `known` (what it last knew the store to hold) and
/// `stored` (what the store holds now), the readiness and log level to follow: the store's
/// where it changed them since, this copy's otherwise (a change made here and not written
/// yet is kept). Subscriptions are not merged here.
pub(super) fn merged(local: &Fields, known: &Fields, stored: &Fields) -> Fields {
    let mut merged = Fields::new();
    for name in [READY, LOG] {
        let value = if stored.get(name) != known.get(name) {
            stored.get(name)
        } else {
            local.get(name)
        };
        if let Some(value) = value {
            merged.insert(name.to_owned(), value.clone());
        }
    }
    // Readiness never goes back.
    if local.contains_key(READY) || stored.contains_key(READY) {
        merged.insert(READY.to_owned(), "1".to_owned());
    }
    merged
}

/// One copy's side of a stored session.
pub(super) struct Stored {
    pub(super) store: Arc<dyn SessionStore>,
    pub(super) key: String,
    /// How long the record lasts from its last write or extension: half as long again as
    /// the session's idle timeout, so that a record extended a quarter of the timeout before
    /// the session's last use outlives the session.
    pub(super) lasting: Duration,
    /// How often the record is extended while the session is in use: a quarter of the idle
    /// timeout.
    every: Duration,
    /// The changing fields as this copy last knew the store to hold them.
    known: Mutex<Fields>,
    /// Held while this copy writes or follows its record, so that both see one `known`.
    pub(super) sync: tokio::sync::Mutex<()>,
    /// Another instance may have changed the record since this copy last followed it.
    stale: AtomicBool,
    /// When this copy last made the record last longer.
    extended: Mutex<Instant>,
}

impl std::fmt::Debug for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stored")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Stored {
    /// The stored side of the session `id`, idle for at most `idle_timeout`, which this copy
    /// knows as `known`.
    pub(super) fn new(
        store: Arc<dyn SessionStore>,
        id: &str,
        idle_timeout: Duration,
        known: Fields,
    ) -> Stored {
        Stored {
            store,
            key: key_of(id),
            lasting: idle_timeout.saturating_add(idle_timeout / 2),
            every: idle_timeout / 4,
            known: Mutex::new(known),
            sync: tokio::sync::Mutex::new(()),
            stale: AtomicBool::new(false),
            extended: Mutex::new(Instant::now()),
        }
    }

    pub(super) fn known(&self) -> Fields {
        self.known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(super) fn set_known(&self, known: Fields) {
        *self.known.lock().unwrap_or_else(PoisonError::into_inner) = known;
        self.extended_now();
    }

    pub(super) fn extended_now(&self) {
        *self.extended.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Whether the record was last made to last longer a quarter of the idle timeout ago.
    pub(super) fn wants_extending(&self) -> bool {
        self.extended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .elapsed()
            >= self.every
    }

    /// Marks the record changed elsewhere; `true` when it was not marked already (the caller
    /// then follows it).
    pub(super) fn mark_stale(&self) -> bool {
        !self.stale.swap(true, Ordering::AcqRel)
    }

    /// Takes the mark: whether the record is to be followed (again).
    pub(super) fn take_stale(&self) -> bool {
        self.stale.swap(false, Ordering::AcqRel)
    }
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
    fn keys_are_digests_never_the_id() {
        let id = "ab".repeat(32);
        let key = key_of(&id);
        assert_eq!(key.len(), 32);
        assert!(!id.contains(&key) && !key.contains(&id[..8]));
        assert_eq!(key, key_of(&id));
        assert_ne!(key, key_of(&"ab".repeat(31)));
    }

    #[test]
    fn a_change_made_elsewhere_wins_and_one_made_here_is_kept() {
        let known = fields(&[("log", "info")]);
        // The level changed elsewhere; this copy became ready and did not write it yet.
        let stored = fields(&[("log", "error")]);
        let local = fields(&[("log", "info"), ("ready", "1")]);
        assert_eq!(
            merged(&local, &known, &stored),
            fields(&[("log", "error"), ("ready", "1")])
        );
        // The level changed here, not elsewhere.
        let local = fields(&[("log", "debug"), ("ready", "1")]);
        let stored = fields(&[("log", "info"), ("ready", "1")]);
        assert_eq!(
            merged(&local, &known, &stored),
            fields(&[("log", "debug"), ("ready", "1")])
        );
    }

    #[test]
    fn a_record_is_read_back_with_its_owner() {
        let mut alice = Principal::subject("alice");
        alice.claims.insert("iss".into(), "https://issuer".into());
        let identity = Identity {
            version: ProtocolVersion::V2025_06_18,
            client: ClientCapabilities::default(),
            subject: Some("alice".into()),
            issuer: Some("https://issuer".into()),
        };
        let stored = fields(&[
            ("v", &serde_json::to_string(&identity).unwrap()),
            ("ready", "1"),
            ("log", "warning"),
            ("s:file:///a", ""),
        ]);
        let read = Read::parse(&stored).unwrap();
        assert!(read.belongs_to(&alice));
        assert!(
            !read.belongs_to(&Principal::subject("alice")),
            "another issuer"
        );
        assert!(!read.belongs_to(&Principal::anonymous()));
        let record = read.record(&read.changing);
        assert!(record.ready);
        assert_eq!(record.log_level, LoggingLevel::Warning);
        assert_eq!(record.version, ProtocolVersion::V2025_06_18);
        assert_eq!(
            subscriptions(&read.changing).collect::<Vec<_>>(),
            ["file:///a"]
        );
        assert!(Read::parse(&fields(&[("ready", "1")])).is_none());
    }
}
