//! Caching hints: how long an answer stays fresh and who may share it.
//!
//! **Layer:** core. The engine decides a [`CacheHint`] for every list page and read; the modern
//! adapter writes it as `ttlMs` and `cacheScope`, the legacy adapter drops it. This module knows
//! no clock (a ttl is a duration, never a deadline) and no wire names.
//!
//! How a hint is decided:
//! - the ttl comes from the static resource or template entry if it set one, else from the
//!   provider's [`CachePolicy`] for that URI (`Provider::cache_policy_of`, for reads and
//!   directory pages) or for all its answers, else from the engine default; a list uses the smallest ttl of all
//!   its sources, so every page of one list gets the same hint;
//! - the scope is [`CacheScope::Private`] whenever the answer may depend on the principal: a
//!   policy whose decisions depend on the principal (for every list page, the template list
//!   included, and every read), or a provider that says its answers do (for its reads and the
//!   resource list). Otherwise it is [`CacheScope::Public`].
//!
//! Last-modified times are not caching hints here: they travel in
//! [`Annotations::last_modified`](crate::resource::Annotations::last_modified).

/// Who may reuse a cached answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheScope {
    /// The answer holds nothing specific to the caller; any cache may serve it to anyone.
    Public,
    /// The answer may differ per caller; it may be reused only within the same authorization
    /// context.
    Private,
}

/// The caching hint of one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheHint {
    /// How long the answer stays fresh, in milliseconds (`0`: immediately stale).
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// The hint that holds for both `self` and `other`: the shorter ttl, and private if either is.
    #[must_use]
    pub fn combine(self, other: CacheHint) -> CacheHint {
        let scope = if self.scope == CacheScope::Private || other.scope == CacheScope::Private {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        CacheHint {
            ttl_ms: self.ttl_ms.min(other.ttl_ms),
            scope,
        }
    }
}

/// What a source (a provider, a static resource, a template) says about caching its answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CachePolicy {
    /// The ttl of its answers in milliseconds; `None` takes the engine default.
    pub ttl_ms: Option<u64>,
    /// Whether its answers may differ per principal (then they are cached privately).
    pub per_principal: bool,
}

impl CachePolicy {
    /// The hint for one answer of this source, given the engine default ttl and whether the
    /// policy's decisions depend on the principal.
    pub fn hint(self, default_ttl_ms: u64, policy_depends_on_principal: bool) -> CacheHint {
        let scope = if self.per_principal || policy_depends_on_principal {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        CacheHint {
            ttl_ms: self.ttl_ms.unwrap_or(default_ttl_ms),
            scope,
        }
    }
}
