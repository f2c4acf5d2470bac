//! Sensitive resources: URIs whose every list, read, subscription and completion is written to
//! an audit log, and whose reads may wait for the user's confirmation.
//!
//! **Layer:** core. It never knows JSON, a file, a clock or an era: the audit log is the
//! [`AuditSink`] seam (the server writes it), the time comes from a clock function the server
//! passes in, and a confirmation is asked as an [`InputRequired`] that each adapter turns into
//! its era's elicitation.
//!
//! # Confirmation
//!
//! A read of a URI a [`SensitiveRule`] with `confirm` covers is answered, the first time,
//! with an [`InputRequired`]: one yes/no form under the key [`CONFIRM_KEY`] naming the resource
//! and the rule's reason, and a state. The state is `base64url(version | expiry | serial | tag)`,
//! the tag an HMAC-SHA256 (truncated to 128 bits) over those and the principal (subject and
//! issuer) and the URI, under the key the server gives: a state changed in any byte, made for
//! another principal or another URI, or past its expiry ([`CONFIRM_TTL_SECS`]) is refused.
//! The retry that carries the state and an accepting answer (`confirm: true`) is served; a
//! decline, a cancel or `confirm: false` is refused; a retry without an answer is asked again.
//! A state is good for one answer: once used it is remembered at least until it expires, and a
//! replay is refused.
//!
//! # Across instances
//!
//! Alone, an instance's states are good on it only (the server draws its key at start, and
//! the memory of used states is the process's). Instances of one deployment share
//! confirmations with [`Sensitivity::shared`]: the same key on every instance (derived from
//! the deployment's shared key), a wall clock for expiries, and a [`TicketStore`]. Asking
//! issues the state's ticket, good for [`CONFIRM_TTL_SECS`]; the answer is served only when
//! it redeems the ticket, on whichever instance it reaches. So a state is served once
//! deployment-wide, and whatever the store loses (a restart without persistence, an eviction,
//! a clock of its own jumping ahead) makes states refused: the user is asked again. A store
//! that takes a redemption back (reloading an older snapshot) could serve a state once more
//! within its lifetime. A store that cannot be asked refuses the read
//! ([`ReadError::Unavailable`](crate::error::ReadError::Unavailable)).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::input::{
    ElicitAction, Elicitation, Field, FieldKind, FieldValue, InputRequest, InputRequired,
    InputResponse, Inputs,
};
use crate::policy::{Principal, UriPattern};
use crate::store::{StoreError, TicketStore};
use crate::uri::ResourceUri;

/// The key of the confirmation form among a read's input requests.
pub const CONFIRM_KEY: &str = "confirm";

/// How long a confirmation state stays good, in seconds.
pub const CONFIRM_TTL_SECS: u64 = 300;

/// The most used confirmation states remembered at once, each until it expires, for one
/// principal and for all: past either, new confirmations (of that principal, or of all) are
/// refused until old ones expire, rather than replays let through. One principal at its limit
/// never locks out another.
const MAX_USED_PER_PRINCIPAL: usize = 10_000;
const MAX_USED: usize = 1_000_000;

/// Why a state used already is refused.
const USED: &str = "this confirmation was used already: read the resource again to be asked anew";
/// Why a state whose ticket is not there is refused.
const NO_TICKET: &str = "this confirmation was used already, or is no longer known: read the \
                         resource again to be asked anew";

const STATE_VERSION: u8 = 1;
const TAG_LEN: usize = 16;
const STATE_LEN: usize = 1 + 8 + 8 + TAG_LEN;

/// One `[[sensitive]]` rule: the URIs it covers and what it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SensitiveRule {
    /// A name for logs and audit lines.
    pub name: String,
    /// The URIs it covers (globs as grants use); a URI matching any is covered.
    pub uris: Vec<UriPattern>,
    /// Whether the user must confirm each read.
    pub confirm: bool,
    /// Why, shown to the user in the confirmation form.
    pub reason: Option<String>,
}

/// What happened to an audited request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditOutcome {
    /// Served.
    Served,
    /// Not served: not found, denied, or failed.
    Refused,
    /// The user's confirmation was asked for.
    ConfirmationAsked,
    /// The user declined (or dismissed) the confirmation.
    Declined,
    /// The echoed confirmation state was forged, foreign, expired or replayed.
    InvalidConfirmation,
}

impl AuditOutcome {
    /// A name for the audit line.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditOutcome::Served => "served",
            AuditOutcome::Refused => "refused",
            AuditOutcome::ConfirmationAsked => "confirmation-asked",
            AuditOutcome::Declined => "declined",
            AuditOutcome::InvalidConfirmation => "invalid-confirmation",
        }
    }
}

/// What an audited request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditAction {
    /// The resource appeared in a list page (or a directory's page).
    List,
    /// It was read (whole or a range).
    Read,
    /// A subscription to it was asked for.
    Subscribe,
    /// A completion proposed values leading to it.
    Complete,
    /// Its skill was listed or fetched (`skills/list`, `skills/get`): its frontmatter and
    /// manifest.
    Skill,
}

impl AuditAction {
    /// A name for the audit line.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::List => "list",
            AuditAction::Read => "read",
            AuditAction::Subscribe => "subscribe",
            AuditAction::Complete => "complete",
            AuditAction::Skill => "skill",
        }
    }
}

/// One audit record: who did what to which sensitive resource, and how it went. It never holds
/// contents or tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRecord {
    /// The principal's subject; `None` when anonymous (stdio, or HTTP without authorization).
    pub subject: Option<String>,
    /// The issuer of the principal's token, when it had one.
    pub issuer: Option<String>,
    /// What was done.
    pub action: AuditAction,
    /// The resource.
    pub uri: String,
    /// The rule that made it sensitive.
    pub rule: String,
    /// The bytes of contents served (reads only).
    pub bytes: Option<u64>,
    /// How it went.
    pub outcome: AuditOutcome,
    /// How many spans each content rule masked in what was read, margins of a range included.
    pub masked: Vec<(String, usize)>,
}

/// The audit log could not take a record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the audit log could not be written: {0}")]
pub struct AuditError(pub String);

/// Where audit records go: written and flushed before the request they record is answered. A
/// failure fails that request (its contents are never served unrecorded).
#[async_trait::async_trait]
pub trait AuditSink: Send + Sync {
    /// Writes one record.
    async fn record(&self, record: AuditRecord) -> Result<(), AuditError>;
}

/// The clock of confirmations: seconds since the Unix epoch.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The sensitive rules of an engine, with the audit sink and the confirmation key.
pub struct Sensitivity {
    rules: Vec<SensitiveRule>,
    sink: Option<Arc<dyn AuditSink>>,
    mac: Hmac<Sha256>,
    clock: Clock,
    serial: AtomicU64,
    used: Mutex<Used>,
    tickets: Option<Arc<dyn TicketStore>>,
}

/// The used confirmation states, until they expire.
#[derive(Default)]
struct Used {
    /// Each used tag, with the principal it was made for.
    tags: HashMap<[u8; TAG_LEN], PrincipalKey>,
    /// The tags by expiry (states are used in about the order they expire).
    by_expiry: VecDeque<(u64, [u8; TAG_LEN])>,
    /// How many used states each principal holds.
    per_principal: HashMap<PrincipalKey, usize>,
}

/// A principal as confirmations tell them apart: subject and issuer.
type PrincipalKey = (Option<String>, Option<String>);

impl Used {
    /// Forgets the states expired at `now`.
    fn expire(&mut self, now: u64) {
        while let Some(&(expiry, tag)) = self.by_expiry.front() {
            if expiry >= now {
                break;
            }
            self.by_expiry.pop_front();
            if let Some(principal) = self.tags.remove(&tag) {
                if let Some(count) = self.per_principal.get_mut(&principal) {
                    *count -= 1;
                    if *count == 0 {
                        self.per_principal.remove(&principal);
                    }
                }
            }
        }
    }
}

impl std::fmt::Debug for Sensitivity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sensitivity")
            .field("rules", &self.rules)
            .field("audit", &self.sink.is_some())
            .field("shared", &self.tickets.is_some())
            .finish_non_exhaustive()
    }
}

/// Where a confirmed read stands.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Confirmation {
    /// The user said yes: read.
    Confirmed,
    /// Ask (again).
    Ask(InputRequired),
    /// The user said no.
    Declined,
    /// The state is not good: why.
    Invalid(&'static str),
    /// The shared ticket store could not be asked: neither asked nor served now (a later try
    /// may be).
    Unavailable(StoreError),
}

impl Sensitivity {
    /// No rules yet; states signed with `key` (32 secret bytes, drawn at start), timed by
    /// `clock`.
    pub fn new(key: [u8; 32], clock: Clock) -> Sensitivity {
        Sensitivity {
            rules: Vec::new(),
            sink: None,
            mac: Hmac::<Sha256>::new_from_slice(&key)
                .expect("invariant: HMAC accepts keys of any length"),
            clock,
            serial: AtomicU64::new(0),
            used: Mutex::default(),
            tickets: None,
        }
    }

    /// Shares confirmations with the other instances of a deployment: every instance is made
    /// with the same key and a wall clock (seconds since the Unix epoch), issues each state's
    /// ticket in `tickets` and serves an answer only by redeeming it, so that a state is served
    /// once deployment-wide (the memory of used states is the store's then). `first_serial` is
    /// where this instance's serials start (drawn at random), so that two instances all but
    /// never make the same state (if they did, one of the two answers would be refused).
    #[must_use]
    pub fn shared(mut self, tickets: Arc<dyn TicketStore>, first_serial: u64) -> Sensitivity {
        self.tickets = Some(tickets);
        self.serial = AtomicU64::new(first_serial);
        self
    }

    /// Adds a rule.
    #[must_use]
    pub fn rule(mut self, rule: SensitiveRule) -> Sensitivity {
        self.rules.push(rule);
        self
    }

    /// Sends audit records to `sink`.
    #[must_use]
    pub fn audit(mut self, sink: Arc<dyn AuditSink>) -> Sensitivity {
        self.sink = Some(sink);
        self
    }

    /// Whether there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule covering `uri`.
    pub(crate) fn covering(&self, uri: &str) -> Option<&SensitiveRule> {
        self.rules
            .iter()
            .find(|rule| rule.uris.iter().any(|pattern| pattern.matches(uri)))
    }

    /// The first rule covering `uri` that asks for confirmation.
    pub(crate) fn confirming(&self, uri: &str) -> Option<&SensitiveRule> {
        self.rules
            .iter()
            .find(|rule| rule.confirm && rule.uris.iter().any(|pattern| pattern.matches(uri)))
    }

    /// Writes `record` when there is a sink.
    pub(crate) async fn record(&self, record: AuditRecord) -> Result<(), AuditError> {
        match &self.sink {
            Some(sink) => sink.record(record).await,
            None => Ok(()),
        }
    }

    /// A record about `uri` by `principal`, its other fields empty.
    pub(crate) fn record_of(
        principal: &Principal,
        action: AuditAction,
        uri: &str,
        rule: &SensitiveRule,
        outcome: AuditOutcome,
    ) -> AuditRecord {
        AuditRecord {
            subject: principal.subject.clone(),
            issuer: principal.claims.get("iss").cloned(),
            action,
            uri: uri.to_owned(),
            rule: rule.name.clone(),
            bytes: None,
            outcome,
            masked: Vec::new(),
        }
    }

    /// Where the read of `uri` by `principal`, carrying `inputs`, stands with the confirmation
    /// `rule` asks for.
    pub(crate) async fn confirmation(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        rule: &SensitiveRule,
        inputs: &Inputs,
    ) -> Confirmation {
        let now = (self.clock)();
        let Some(state) = &inputs.state else {
            return self.ask(principal, uri, rule, now).await;
        };
        let tag = match self.verify(principal, uri, state, now) {
            Ok(tag) => tag,
            Err(reason) => return Confirmation::Invalid(reason),
        };
        let Some(answer) = inputs.responses.get(CONFIRM_KEY) else {
            return self.ask(principal, uri, rule, now).await;
        };
        let used = match &self.tickets {
            Some(tickets) => match tickets.redeem(&ticket_key(&tag)).await {
                Ok(true) => Ok(()),
                Ok(false) => Err(NO_TICKET),
                Err(error) => return Confirmation::Unavailable(error),
            },
            None => self.use_once(tag, principal, now),
        };
        if let Err(reason) = used {
            return Confirmation::Invalid(reason);
        }
        match answer {
            InputResponse::Elicit {
                action: ElicitAction::Accept,
                content,
            } if content.get(CONFIRM_KEY) == Some(&FieldValue::Boolean(true)) => {
                Confirmation::Confirmed
            }
            _ => Confirmation::Declined,
        }
    }

    /// The form asking to confirm the read of `uri`, with a fresh state (its ticket issued,
    /// when shared).
    async fn ask(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        rule: &SensitiveRule,
        now: u64,
    ) -> Confirmation {
        let mut message = format!("Allow the assistant to read {uri}?");
        if let Some(reason) = &rule.reason {
            message.push(' ');
            message.push_str(reason);
        }
        let form = Elicitation {
            message,
            fields: vec![Field {
                name: CONFIRM_KEY.to_owned(),
                title: Some("Allow this read".to_owned()),
                description: Some(format!("The server marks {uri} as sensitive.")),
                kind: FieldKind::Boolean {
                    default: Some(false),
                },
                required: true,
            }],
        };
        let expiry = now.saturating_add(CONFIRM_TTL_SECS);
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let mut bytes = Vec::with_capacity(STATE_LEN);
        bytes.push(STATE_VERSION);
        bytes.extend_from_slice(&expiry.to_be_bytes());
        bytes.extend_from_slice(&serial.to_be_bytes());
        let tag = self.mac(principal, uri, &bytes).finalize().into_bytes();
        bytes.extend_from_slice(&tag[..TAG_LEN]);
        if let Some(tickets) = &self.tickets {
            let lasting = std::time::Duration::from_secs(CONFIRM_TTL_SECS);
            if let Err(error) = tickets.issue(&ticket_key(&tag[..TAG_LEN]), lasting).await {
                return Confirmation::Unavailable(error);
            }
        }
        Confirmation::Ask(
            InputRequired::one(CONFIRM_KEY, InputRequest::Elicit(form))
                .with_state(URL_SAFE_NO_PAD.encode(bytes)),
        )
    }

    /// The MAC of a state's head `head` for `principal` and `uri`, fed but not finalized.
    fn mac(&self, principal: &Principal, uri: &ResourceUri, head: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.mac.clone();
        mac.update(b"mcp-resources confirmation\0");
        mac.update(head);
        for part in [
            principal.subject.as_deref(),
            principal.claims.get("iss").map(String::as_str),
            Some(uri.as_str()),
        ] {
            // Marked present or absent and length-prefixed, so that no two principals or URIs
            // make the same bytes (no subject is not an empty one).
            match part {
                None => mac.update(&[0]),
                Some(part) => {
                    mac.update(&[1]);
                    mac.update(&(part.len() as u64).to_be_bytes());
                    mac.update(part.as_bytes());
                }
            }
        }
        mac
    }

    /// The tag of `state` when this server made it for `principal` and `uri` and it has not
    /// expired.
    fn verify(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        state: &str,
        now: u64,
    ) -> Result<[u8; TAG_LEN], &'static str> {
        const INVALID: &str =
            "the requestState was not made by this server for this principal and resource";
        if state.len() > 4 * STATE_LEN {
            return Err(INVALID);
        }
        let bytes = URL_SAFE_NO_PAD.decode(state).map_err(|_| INVALID)?;
        if bytes.len() != STATE_LEN || bytes[0] != STATE_VERSION {
            return Err(INVALID);
        }
        let (head, tag) = bytes.split_at(STATE_LEN - TAG_LEN);
        self.mac(principal, uri, head)
            .verify_truncated_left(tag)
            .map_err(|_| INVALID)?;
        let expiry = u64::from_be_bytes(head[1..9].try_into().expect("invariant: 8 bytes"));
        if expiry < now {
            return Err("the confirmation has expired: read the resource again to be asked anew");
        }
        let mut out = [0; TAG_LEN];
        out.copy_from_slice(tag);
        Ok(out)
    }

    /// Marks the state of `tag`, made for `principal`, used in this process's memory: an error
    /// when it already was, or when that principal (or everyone) holds too many used states.
    fn use_once(
        &self,
        tag: [u8; TAG_LEN],
        principal: &Principal,
        now: u64,
    ) -> Result<(), &'static str> {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.expire(now);
        if used.tags.contains_key(&tag) {
            return Err(USED);
        }
        let key: PrincipalKey = (
            principal.subject.clone(),
            principal.claims.get("iss").cloned(),
        );
        let held = used.per_principal.get(&key).copied().unwrap_or(0);
        if held >= MAX_USED_PER_PRINCIPAL || used.tags.len() >= MAX_USED {
            return Err("too many confirmations are in flight; try again in a few minutes");
        }
        used.per_principal.insert(key.clone(), held + 1);
        used.tags.insert(tag, key);
        used.by_expiry
            .push_back((now.saturating_add(CONFIRM_TTL_SECS), tag));
        Ok(())
    }
}

/// The key of the ticket of the state whose tag is `tag`: `mcp-confirmation-` and the tag in
/// hexadecimal (49 letters, digits and dashes).
fn ticket_key(tag: &[u8]) -> String {
    std::iter::once("mcp-confirmation-".to_owned())
        .chain(tag.iter().map(|byte| format!("{byte:02x}")))
        .collect()
}
