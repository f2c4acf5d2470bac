//! The seam of token checks: [`TokenVerifier`], and why a token or a configuration is refused.
//!
//! **Layer:** server, HTTP transport, bearer authorization; the bottom of `auth`. The
//! [`Authorization`](super::Authorization) of the endpoint calls a verifier, and `JwtVerifier`
//! (feature `auth`) is one; both use this module, and it uses neither. It never sees a request,
//! a header, a session or a policy, and never knows how a token is encoded.

use std::fmt;

use mcp_resources_core::policy::Principal;

/// Checks a bearer token: the principal it stands for, or why it is refused.
///
/// `JwtVerifier` (feature `auth`) checks JSON Web Tokens against given keys; implement this trait to accept
/// other tokens (opaque ones checked against a store, say). An implementation must accept only
/// tokens issued for this server ([`Authorization::resource`](super::Authorization::resource)
/// among their audiences) and still
/// valid. A legacy session is bound to the principal's subject and its `iss` claim: give every
/// principal a subject, unique within its issuer, and its issuer as `iss`; an `exp` claim
/// (seconds since the epoch, as text) ends live streams when it passes.
pub trait TokenVerifier: Send + Sync + fmt::Debug {
    /// The principal `token` stands for, or why it is not accepted.
    ///
    /// # Errors
    ///
    /// A [`TokenRejected`] when the token is not accepted (bad signature, wrong audience or
    /// issuer, expired, unreadable).
    fn verify(&self, token: &str) -> Result<Principal, TokenRejected>;
}

/// Why a token was not accepted: logged, never sent to the client.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("token rejected: {0}")]
pub struct TokenRejected(pub String);

/// A configuration of [`Authorization`](super::Authorization) (or of a verifier's keys) that
/// cannot work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthorizationError {
    /// The resource URI is not an absolute `http`/`https` URI without query or fragment.
    #[error("resource {0:?} is not an absolute http(s) URI without query or fragment")]
    Resource(String),
    /// No authorization server was given.
    #[error("at least one authorization server is needed")]
    NoAuthorizationServer,
    /// A scope is empty or holds a character RFC 6749 does not allow (space, `"`, `\`).
    #[error("scope {0:?} is not a valid OAuth scope")]
    Scope(String),
    /// A key set or key cannot be used.
    #[error("{0}")]
    Key(String),
}
