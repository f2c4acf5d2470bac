//! Access control: who is asking ([`Principal`]), what they do ([`Action`]) and whether they
//! may ([`Policy`]), with an allow-all default and a URI-pattern policy ([`PatternPolicy`]).
//!
//! **Layer:** core. The engine asks the policy before every read, for every item of a list
//! (before pagination), and for every completion candidate. This module never knows where a
//! principal came from (an OAuth token, a config file, stdio): the binary maps credentials to
//! a [`Principal`]. Annotations are never used for authorization.
//!
//! Patterns ([`UriPattern`]) are globs over the canonical URI text: `*` matches any run of
//! characters except `/` and the encoded separators `%2F` and `%5C`, `**` matches any run
//! including them; every other character matches itself. So `file:///docs/*.md` covers
//! `file:///docs/a.md` but not `file:///docs/x/a.md`, and `file:///docs/**` covers both (and
//! `file:///docs/` itself). `*` stops at an encoded separator because a template's `{+path}`
//! decodes `file:///docs/x%2Fa.md` into the path `x/a.md`: a one-segment grant must not reach
//! into subdirectories that way.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::uri::ResourceUri;

/// Who an operation runs for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Principal {
    /// The authenticated subject (for example the `sub` of a token), `None` when anonymous.
    pub subject: Option<String>,
    /// The scopes granted to the caller.
    pub scopes: BTreeSet<String>,
    /// Other claims, as text, for policies that need them.
    pub claims: BTreeMap<String, String>,
}

impl Principal {
    /// The anonymous principal: no subject, no scopes, no claims.
    pub fn anonymous() -> Principal {
        Principal::default()
    }

    /// A principal with a subject and no scopes.
    pub fn subject(subject: impl Into<String>) -> Principal {
        Principal {
            subject: Some(subject.into()),
            ..Principal::default()
        }
    }

    /// Adds a scope.
    #[must_use]
    pub fn with_scope(mut self, scope: impl Into<String>) -> Principal {
        self.scopes.insert(scope.into());
        self
    }

    /// Adds a claim.
    #[must_use]
    pub fn with_claim(mut self, name: impl Into<String>, value: impl Into<String>) -> Principal {
        self.claims.insert(name.into(), value.into());
        self
    }
}

/// What a principal wants to do with a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// See it in a list.
    List,
    /// Read its contents.
    Read,
    /// Subscribe to its changes.
    Subscribe,
    /// Receive it (or a URI of it) as a completion candidate.
    Complete,
}

impl Action {
    const fn bit(self) -> u8 {
        match self {
            Action::List => 1,
            Action::Read => 2,
            Action::Subscribe => 4,
            Action::Complete => 8,
        }
    }
}

/// A set of [`Action`]s.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ActionSet(u8);

impl ActionSet {
    /// No action.
    pub const NONE: ActionSet = ActionSet(0);
    /// Every action.
    pub const ALL: ActionSet = ActionSet(15);
    /// Everything but subscribing: list, read and complete.
    pub const READ_ONLY: ActionSet = ActionSet(1 | 2 | 8);

    /// The set of the given actions.
    pub fn of(actions: &[Action]) -> ActionSet {
        ActionSet(actions.iter().fold(0, |bits, action| bits | action.bit()))
    }

    /// Whether the set holds `action`.
    pub fn contains(self, action: Action) -> bool {
        self.0 & action.bit() != 0
    }

    /// The set with `action` added.
    #[must_use]
    pub fn with(self, action: Action) -> ActionSet {
        ActionSet(self.0 | action.bit())
    }
}

impl fmt::Debug for ActionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let actions = [
            Action::List,
            Action::Read,
            Action::Subscribe,
            Action::Complete,
        ];
        f.debug_set()
            .entries(actions.iter().filter(|action| self.contains(**action)))
            .finish()
    }
}

impl From<Action> for ActionSet {
    fn from(action: Action) -> ActionSet {
        ActionSet(action.bit())
    }
}

/// Decides whether a principal may do an action on a URI.
pub trait Policy: Send + Sync {
    /// Whether `principal` may do `action` on `uri`.
    fn allows(&self, principal: &Principal, action: Action, uri: &ResourceUri) -> bool;

    /// Whether decisions may differ between principals. When they may, every answer the
    /// engine gives under this policy is cached privately. The default is the safe `true`.
    fn depends_on_principal(&self) -> bool {
        true
    }
}

/// The default policy: everyone may do everything. Its answers never depend on the principal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllowAll;

impl Policy for AllowAll {
    fn allows(&self, _principal: &Principal, _action: Action, _uri: &ResourceUri) -> bool {
        true
    }

    fn depends_on_principal(&self) -> bool {
        false
    }
}

/// Everything allowed to everyone but the URIs matching `denied`, which no one may touch:
/// a server without grants serving resources that need one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowAllBut {
    /// The URIs no one may touch.
    pub denied: Vec<UriPattern>,
}

impl Policy for AllowAllBut {
    /// Judged on the URI and on the URI without its query (`x.csv?offset=0` is a part of
    /// `x.csv`): a denial is never escaped by a query.
    fn allows(&self, _principal: &Principal, _action: Action, uri: &ResourceUri) -> bool {
        let bare = uri.as_str().split_once(['?', '#']).map(|(bare, _)| bare);
        !self.denied.iter().any(|pattern| {
            pattern.matches(uri.as_str()) || bare.is_some_and(|bare| pattern.matches(bare))
        })
    }

    fn depends_on_principal(&self) -> bool {
        false
    }
}

/// To whom a [`Grant`] applies.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Grantee {
    /// Every principal, anonymous ones included.
    Anyone,
    /// The principal whose subject is this.
    Subject(String),
    /// Every principal holding this scope.
    Scope(String),
}

impl Grantee {
    fn covers(&self, principal: &Principal) -> bool {
        match self {
            Grantee::Anyone => true,
            Grantee::Subject(subject) => principal.subject.as_deref() == Some(subject.as_str()),
            Grantee::Scope(scope) => principal.scopes.contains(scope),
        }
    }
}

/// One rule of a [`PatternPolicy`]: `grantee` may do `actions` on URIs matching `pattern`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// To whom it applies.
    pub grantee: Grantee,
    /// What it allows.
    pub actions: ActionSet,
    /// On which URIs.
    pub pattern: UriPattern,
}

/// A policy of grants: an action is allowed when at least one grant covers the principal, the
/// action and the URI; everything else is denied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternPolicy {
    /// The grants, in any order (their order does not change any decision).
    pub grants: Vec<Grant>,
}

impl PatternPolicy {
    /// A policy that denies everything until grants are added.
    pub fn new() -> PatternPolicy {
        PatternPolicy::default()
    }

    /// Adds a grant.
    #[must_use]
    pub fn grant(
        mut self,
        grantee: Grantee,
        actions: impl Into<ActionSet>,
        pattern: UriPattern,
    ) -> PatternPolicy {
        self.grants.push(Grant {
            grantee,
            actions: actions.into(),
            pattern,
        });
        self
    }
}

impl Policy for PatternPolicy {
    fn allows(&self, principal: &Principal, action: Action, uri: &ResourceUri) -> bool {
        self.grants.iter().any(|grant| {
            grant.actions.contains(action)
                && grant.grantee.covers(principal)
                && grant.pattern.matches(uri.as_str())
        })
    }

    fn depends_on_principal(&self) -> bool {
        self.grants
            .iter()
            .any(|grant| grant.grantee != Grantee::Anyone)
    }
}

/// A glob over canonical URI text: `*` within a segment (never across `/`, `%2F` or `%5C`),
/// `**` across segments.
#[derive(Clone, PartialEq, Eq)]
pub struct UriPattern {
    text: String,
    elements: Vec<Element>,
    /// The literal text before the first wildcard: a quick first check.
    literal_prefix_len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Byte(u8),
    /// `*`: any run of bytes other than `/` and the bytes of an encoded `/` or `\`.
    Star,
    /// `**`: any run of bytes.
    DoubleStar,
}

/// A pattern's text in the canonical form of the URIs it is matched against, its `*` kept: the
/// scheme and the authority lowercased; percent-encodings uppercased, and decoded when they
/// encode an unreserved character; `[`, `]` and every byte a URI cannot hold (a space, a
/// non-ASCII character) percent-encoded. So `file:///srv/hr/my salaries.csv` matches the URI
/// the server lists, `file:///srv/hr/my%20salaries.csv`, instead of matching nothing (a rule
/// that matched nothing would protect nothing, silently).
fn canonical_pattern(pattern: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let (head, rest) = match pattern.find("://") {
        Some(at) => {
            let after = at + 3;
            let authority_end = pattern[after..]
                .find(['/', '?', '#'])
                .map_or(pattern.len(), |end| after + end);
            (
                pattern[..authority_end].to_ascii_lowercase(),
                &pattern[authority_end..],
            )
        }
        None => match pattern.find(':') {
            Some(at) if !pattern[..at].contains('*') => {
                (pattern[..=at].to_ascii_lowercase(), &pattern[at + 1..])
            }
            _ => (String::new(), pattern),
        },
    };
    let bytes = rest.as_bytes();
    let mut out = head;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let hex = |offset: usize| bytes.get(at + offset).filter(|b| b.is_ascii_hexdigit());
        if byte == b'%' {
            if let (Some(&high), Some(&low)) = (hex(1), hex(2)) {
                let value = u8::from_str_radix(&format!("{}{}", high as char, low as char), 16)
                    .expect("invariant: two hex digits");
                if value.is_ascii_alphanumeric() || b"-._~".contains(&value) {
                    out.push(value as char);
                } else {
                    out.push('%');
                    out.push(high.to_ascii_uppercase() as char);
                    out.push(low.to_ascii_uppercase() as char);
                }
                at += 3;
                continue;
            }
        }
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?#%".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(byte >> 4)] as char);
            out.push(HEX[usize::from(byte & 15)] as char);
        }
        at += 1;
    }
    out
}

impl UriPattern {
    /// Parses a pattern. It must not be empty and must not hold three or more `*` in a row.
    /// Its text is taken in the canonical form of URIs (see [`UriPattern::as_str`]).
    pub fn parse(pattern: &str) -> Result<UriPattern, PatternError> {
        if pattern.is_empty() {
            return Err(PatternError::Empty);
        }
        let canonical = canonical_pattern(pattern);
        let pattern = canonical.as_str();
        let path = pattern.split(['?', '#']).next().unwrap_or(pattern);
        if path
            .split('/')
            .skip(1)
            .any(|segment| matches!(segment, "." | ".." | "%2E" | "%2E%2E" | ".%2E" | "%2E."))
        {
            return Err(PatternError::DotSegment {
                pattern: pattern.to_owned(),
            });
        }
        if let Some(at) = pattern.find("***") {
            return Err(PatternError::TooManyStars {
                pattern: pattern.to_owned(),
                at,
            });
        }
        let bytes = pattern.as_bytes();
        let mut elements = Vec::with_capacity(bytes.len());
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'*' {
                if bytes.get(at + 1) == Some(&b'*') {
                    elements.push(Element::DoubleStar);
                    at += 2;
                } else {
                    elements.push(Element::Star);
                    at += 1;
                }
            } else {
                elements.push(Element::Byte(bytes[at]));
                at += 1;
            }
        }
        let literal_prefix_len = pattern.find('*').unwrap_or(pattern.len());
        Ok(UriPattern {
            text: pattern.to_owned(),
            elements,
            literal_prefix_len,
        })
    }

    /// The pattern in the canonical form of URIs: the scheme and authority lowercased,
    /// percent-encodings uppercased (unreserved ones decoded), and every byte a URI cannot
    /// hold percent-encoded (`my salaries.csv` is `my%20salaries.csv`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `uri` (canonical URI text) matches the whole pattern.
    ///
    /// Runs in `O(len(uri) × len(pattern))` at worst, whatever the pattern; the common shapes
    /// (a literal, a literal followed by `**`) cost one comparison.
    pub fn matches(&self, uri: &str) -> bool {
        let prefix = &self.text.as_bytes()[..self.literal_prefix_len];
        if !uri.as_bytes().starts_with(prefix) {
            return false;
        }
        let input = Input {
            bytes: uri.as_bytes(),
            start: prefix.len(),
        };
        // The literal prefix is one element per byte.
        let elements = &self.elements[self.literal_prefix_len..];
        match elements {
            [] => input.len() == 0,
            [Element::DoubleStar] => true,
            _ if elements.len() < 64 => matches_small(elements, &input),
            _ => matches_large(elements, &input),
        }
    }
}

/// The part of a URI after a pattern's literal prefix, with the whole URI kept around so that
/// an encoded separator cut by the end of the prefix is still recognized.
struct Input<'a> {
    bytes: &'a [u8],
    start: usize,
}

impl Input<'_> {
    fn len(&self) -> usize {
        self.bytes.len() - self.start
    }

    /// The bytes to match, each with whether a `*` may consume it.
    fn iter(&self) -> impl Iterator<Item = (u8, bool)> + '_ {
        (self.start..self.bytes.len()).map(|at| {
            let byte = self.bytes[at];
            (byte, byte != b'/' && !in_encoded_separator(self.bytes, at))
        })
    }
}

/// Whether the byte at `at` belongs to a `%2F` or `%5C` (any case).
fn in_encoded_separator(bytes: &[u8], at: usize) -> bool {
    (at.saturating_sub(2)..=at).any(|percent| {
        bytes[percent] == b'%'
            && bytes.get(percent + 1..percent + 3).is_some_and(|hex| {
                hex.eq_ignore_ascii_case(b"2F") || hex.eq_ignore_ascii_case(b"5C")
            })
    })
}

/// Simulates the pattern as a small automaton whose states are bits of a `u64`: bit `i` set
/// means "the first `i` elements have matched the input read so far".
fn matches_small(elements: &[Element], input: &Input<'_>) -> bool {
    let count = elements.len();
    let wildcards = elements
        .iter()
        .enumerate()
        .filter(|(_, element)| matches!(element, Element::Star | Element::DoubleStar))
        .fold(0u64, |mask, (state, _)| mask | 1 << state);
    // Wildcards may match nothing: a state before a wildcard also activates the one after it.
    let close = |mut states: u64| loop {
        let closed = states | (states & wildcards) << 1;
        if closed == states {
            return states;
        }
        states = closed;
    };
    let mut active = close(1);
    for (byte, in_segment) in input.iter() {
        let mut next = 0u64;
        let mut pending = active;
        while pending != 0 {
            let state = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            match elements.get(state) {
                Some(Element::Byte(expected)) if *expected == byte => next |= 1 << (state + 1),
                Some(Element::Star) if in_segment => next |= 1 << state,
                Some(Element::DoubleStar) => next |= 1 << state,
                _ => {}
            }
        }
        active = close(next);
        if active == 0 {
            return false;
        }
    }
    active & 1 << count != 0
}

/// The same automaton as [`matches_small`] for patterns of 64 elements or more.
fn matches_large(elements: &[Element], input: &Input<'_>) -> bool {
    let count = elements.len();
    let close = |states: &mut [bool]| {
        for (state, element) in elements.iter().enumerate() {
            if states[state] && matches!(element, Element::Star | Element::DoubleStar) {
                states[state + 1] = true;
            }
        }
    };
    let mut active = vec![false; count + 1];
    let mut next = vec![false; count + 1];
    active[0] = true;
    close(&mut active);
    for (byte, in_segment) in input.iter() {
        next.fill(false);
        for (state, element) in elements.iter().enumerate() {
            if !active[state] {
                continue;
            }
            match *element {
                Element::Byte(expected) if expected == byte => next[state + 1] = true,
                Element::Star if in_segment => next[state] = true,
                Element::DoubleStar => next[state] = true,
                Element::Byte(_) | Element::Star => {}
            }
        }
        close(&mut next);
        if !next.contains(&true) {
            return false;
        }
        std::mem::swap(&mut active, &mut next);
    }
    active[count]
}

impl fmt::Debug for UriPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UriPattern").field(&self.text).finish()
    }
}

impl fmt::Display for UriPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for UriPattern {
    type Err = PatternError;

    fn from_str(pattern: &str) -> Result<UriPattern, PatternError> {
        UriPattern::parse(pattern)
    }
}

/// A URI pattern that cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// The pattern is empty.
    #[error("uri pattern is empty")]
    Empty,
    /// Three or more `*` in a row.
    #[error("uri pattern {pattern:?} has three or more `*` in a row at byte {at}; use `*` or `**`")]
    TooManyStars {
        /// The pattern.
        pattern: String,
        /// The byte offset of the run.
        at: usize,
    },
    /// A `.` or `..` path segment: canonical URIs have none, so the pattern could match
    /// nothing.
    #[error(
        "uri pattern {pattern:?} has a `.` or `..` segment, which no canonical uri has; write \
         the path it stands for"
    )]
    DotSegment {
        /// The pattern.
        pattern: String,
    },
}
