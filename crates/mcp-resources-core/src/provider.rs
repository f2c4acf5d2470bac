//! The provider seam: the one async trait through which the engine reaches the outside world.
//!
//! **Layer:** core, the seam. A provider serves a family of resources (files under a root, rows
//! of a database, objects of a git repository, an in-memory map). Implementations that do I/O
//! live in crates of their own (`mcp-resources-fs`); the core only holds
//! [`MemoryProvider`](crate::memory::MemoryProvider). The trait's futures are `Send` and carry
//! no runtime types, so any executor can drive them; this module never knows tokio, a protocol
//! or JSON.
//!
//! Contract, in short:
//! - [`Provider::list`] returns resources in ascending canonical-URI order, strictly after a key,
//!   at most `limit` of them, so that one page out of a million costs one page.
//! - [`Provider::claims`] is cheap and synchronous (a scheme, authority or prefix check); the
//!   engine asks only claiming providers to read.
//! - [`Provider::read`] answers `Ok(None)` for "no such resource"; errors are for failures,
//!   and for requests it cannot serve as asked ([`ProviderError::invalid_params`]).
//! - [`Provider::list_directory`] lists the direct children of one of its directory resources
//!   (MIME type [`DIRECTORY_MIME_TYPE`](crate::resource::DIRECTORY_MIME_TYPE)), in the same
//!   order and by the same `after`/`limit` rule as [`Provider::list`]; `Ok(None)` when the URI
//!   is no directory of its own.
//! - [`Provider::list_skills`] and [`Provider::get_skill`] serve the skills it has (a
//!   directory with a `SKILL.md`), listed in the order and by the rule of [`Provider::list`].
//! - [`Provider::complete`] proposes values for one template variable.
//! - [`Provider::cache_policy`] tells how long answers stay fresh and whether they depend on the
//!   principal.

use std::error::Error;
use std::future::Future;
use std::pin::Pin;

use async_trait::async_trait;

use crate::cache::CachePolicy;
use crate::input::{InputRequired, Inputs};
use crate::policy::Principal;
use crate::resource::{ByteRange, Contents, Resource, ResourceTemplate};
use crate::skill::Skill;
use crate::template::{UriTemplate, Variables};
use crate::uri::ResourceUri;

/// A boxed, `Send` future: what template functions return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A source of resources, the one seam of the engine.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Whether `uri` belongs to this provider. Must be cheap (no I/O): a scheme, authority or
    /// prefix check, or a lookup in memory.
    fn claims(&self, uri: &ResourceUri) -> bool;

    /// Up to `request.limit` resources in ascending order of their canonical URI
    /// ([`ResourceUri::as_str`]), all strictly greater than `request.after` when it is set.
    /// Returning fewer than `limit` means there are no more.
    async fn list(&self, request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError>;

    /// The templates this provider serves, taken once when the provider is registered.
    fn templates(&self) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    /// The contents of `request.uri`, `Ok(None)` when there is no such resource.
    ///
    /// With `request.range` set, each body holds only that byte range of the resource
    /// (see [`Body::slice`](crate::resource::Body::slice) for the reference behaviour).
    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError>;

    /// The direct children of the directory `request.uri` (files and subdirectories, not
    /// recursive), up to `request.limit` of them in ascending canonical-URI order, all strictly
    /// greater than `request.after` when it is set; fewer than `limit` means there are no more.
    /// `Ok(None)` when `request.uri` is not a directory this provider serves (the default:
    /// a provider without directories). A subdirectory is a [`Resource`] whose MIME type is
    /// [`DIRECTORY_MIME_TYPE`](crate::resource::DIRECTORY_MIME_TYPE).
    async fn list_directory(
        &self,
        request: DirectoryRequest<'_>,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let _ = request;
        Ok(None)
    }

    /// Up to `request.limit` of the skills this provider serves, in ascending order of their
    /// `SKILL.md` URI, all strictly greater than `request.after` when it is set; fewer than
    /// `limit` means there are no more. The default: none.
    async fn list_skills(&self, request: ListRequest<'_>) -> Result<Vec<Skill>, ProviderError> {
        let _ = request;
        Ok(Vec::new())
    }

    /// The skill whose `SKILL.md` is `request.uri`, listed or not; `Ok(None)` when there is
    /// none. The default: none.
    async fn get_skill(&self, request: SkillRequest<'_>) -> Result<Option<Skill>, ProviderError> {
        let _ = request;
        Ok(None)
    }

    /// Whether the engine matches a URI against this provider's templates before each read, to
    /// fill [`ReadRequest::template`] and [`ReadRequest::variables`]. A provider that parses its
    /// URIs itself says `false` and saves that match on every read; its requests then carry
    /// `None` in both. The default is `true`.
    fn matches_templates(&self) -> bool {
        true
    }

    /// Candidate values for one variable of one of this provider's templates. The engine
    /// filters them by policy and caps them; the default proposes nothing.
    async fn complete(&self, request: CompletionRequest<'_>) -> Result<Vec<String>, ProviderError> {
        let _ = request;
        Ok(Vec::new())
    }

    /// How answers of this provider may be cached. The default: the engine's ttl, answers the
    /// same for every principal.
    fn cache_policy(&self) -> CachePolicy {
        CachePolicy::default()
    }

    /// How a read of `uri`, or a page of its children when it is a directory, may be cached,
    /// when that differs from [`Provider::cache_policy`]: a provider whose URIs can name
    /// something immutable (a git commit by its id) gives those a long ttl. Cheap and
    /// synchronous, like [`Provider::claims`]. The default: `None`, the provider's policy.
    fn cache_policy_of(&self, uri: &ResourceUri) -> Option<CachePolicy> {
        let _ = uri;
        None
    }

    /// When `uri` names a byte range of another resource of this provider
    /// (`file:///a.txt?offset=10&length=5` of `file:///a.txt`), that resource and the range:
    /// the engine's content rules then read a little past each edge of the range, so that a
    /// secret crossing one is still found. Cheap and synchronous. The default: `None`.
    fn range_of(&self, uri: &ResourceUri) -> Option<(ResourceUri, ByteRange)> {
        let _ = uri;
        None
    }

    /// Another URI that names what `uri` names, whichever provider `uri` is of: the skills
    /// provider names a skill file's `file://` URI for its `skill://` one and the reverse, when
    /// the skills directory is served as files too. With sensitive rules, the rules and the
    /// policy written for one name hold for the other. Cheap and synchronous. The default:
    /// `None`.
    fn same_as(&self, uri: &ResourceUri) -> Option<ResourceUri> {
        let _ = uri;
        None
    }
}

/// The arguments of [`Provider::list`].
#[derive(Clone, Copy, Debug)]
pub struct ListRequest<'a> {
    /// Who is asking (for providers whose lists depend on the principal).
    pub principal: &'a Principal,
    /// List strictly after this canonical URI; from the start when `None`.
    pub after: Option<&'a str>,
    /// At most this many resources.
    pub limit: usize,
}

/// The arguments of [`Provider::list_directory`].
#[derive(Clone, Copy, Debug)]
pub struct DirectoryRequest<'a> {
    /// Who is asking.
    pub principal: &'a Principal,
    /// The directory, its canonical URI without a trailing slash.
    pub uri: &'a ResourceUri,
    /// List strictly after this canonical URI (a child's); from the start when `None`.
    pub after: Option<&'a str>,
    /// At most this many children.
    pub limit: usize,
}

/// The arguments of [`Provider::get_skill`].
#[derive(Clone, Copy, Debug)]
pub struct SkillRequest<'a> {
    /// Who is asking.
    pub principal: &'a Principal,
    /// The URI of the skill's `SKILL.md`.
    pub uri: &'a ResourceUri,
}

/// The arguments of [`Provider::read`].
#[derive(Clone, Copy, Debug)]
pub struct ReadRequest<'a> {
    /// Who is asking.
    pub principal: &'a Principal,
    /// The URI to read.
    pub uri: &'a ResourceUri,
    /// The provider's template that matched the URI, if one did (always `None` for a provider
    /// whose [`Provider::matches_templates`] is `false`).
    pub template: Option<&'a UriTemplate>,
    /// The variables extracted by that template.
    pub variables: Option<&'a Variables>,
    /// Read only this byte range of each body.
    pub range: Option<ByteRange>,
    /// The client's answers to the input this read asked for before (see
    /// [`ProviderError::input_required`]); empty on a first read.
    pub inputs: &'a Inputs,
}

/// The arguments of a completion: of [`Provider::complete`] and of template completers.
#[derive(Clone, Copy, Debug)]
pub struct CompletionRequest<'a> {
    /// Who is asking.
    pub principal: &'a Principal,
    /// The template whose variable is completed.
    pub template: &'a UriTemplate,
    /// The name of the variable.
    pub variable: &'a str,
    /// What the user typed so far.
    pub prefix: &'a str,
    /// Values of the template's other variables, already chosen.
    pub context: &'a Variables,
}

/// A provider failure. Opaque: its message is for logs; adapters show clients a generic
/// "internal error" unless the error was made with [`ProviderError::public`], and answer one
/// made with [`ProviderError::invalid_params`] as the client's mistake (invalid params), not
/// the server's.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    message: String,
    kind: ProviderErrorKind,
    input: Option<Box<InputRequired>>,
    #[source]
    source: Option<Box<dyn Error + Send + Sync>>,
}

/// Whose fault a [`ProviderError`] is, and whether its message may be shown: what an adapter
/// needs to choose the error it answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// The provider failed (I/O, a backend); the message is for logs only.
    Internal,
    /// The provider failed, and the message is safe to show to clients.
    PublicInternal,
    /// The request cannot be served as asked, and asking again the same way will not help: an
    /// argument in the URI that is not a number, a range over the read limit, a whole read of
    /// a resource too large for one. The client's mistake; the message is shown to it.
    InvalidParams,
    /// Not a failure: the read needs input from the client first
    /// ([`ProviderError::input_required`]).
    InputRequired,
}

impl ProviderError {
    /// An error whose message is for logs only.
    pub fn new(message: impl Into<String>) -> ProviderError {
        ProviderError::of_kind(ProviderErrorKind::Internal, message)
    }

    /// An error whose message is safe to show to clients.
    pub fn public(message: impl Into<String>) -> ProviderError {
        ProviderError::of_kind(ProviderErrorKind::PublicInternal, message)
    }

    /// The request was invalid (see [`ProviderErrorKind::InvalidParams`]); the message, shown
    /// to the client, says what was wrong with it.
    pub fn invalid_params(message: impl Into<String>) -> ProviderError {
        ProviderError::of_kind(ProviderErrorKind::InvalidParams, message)
    }

    /// Not a failure: the read needs `input` from the client (the user's answer to a form,
    /// a message of the client's model, the client's roots) before it can be answered. The
    /// engine answers [`ReadError::InputRequired`](crate::error::ReadError::InputRequired);
    /// the server asks the client in its era's way and reads again with the answers in
    /// [`ReadRequest::inputs`]. Only reads may ask; elsewhere this is an internal error.
    pub fn input_required(input: InputRequired) -> ProviderError {
        let mut error = ProviderError::of_kind(ProviderErrorKind::InputRequired, "input required");
        error.input = Some(Box::new(input));
        error
    }

    /// The input asked for, when this is [`ProviderError::input_required`]; else `self`.
    ///
    /// # Errors
    ///
    /// `self`, when it is a failure.
    pub fn into_input_required(self) -> Result<Box<InputRequired>, ProviderError> {
        match self.input {
            Some(input) => Ok(input),
            None => Err(self),
        }
    }

    fn of_kind(kind: ProviderErrorKind, message: impl Into<String>) -> ProviderError {
        ProviderError {
            message: message.into(),
            kind,
            input: None,
            source: None,
        }
    }

    /// Attaches the underlying cause.
    #[must_use]
    pub fn with_source(mut self, source: impl Error + Send + Sync + 'static) -> ProviderError {
        self.source = Some(Box::new(source));
        self
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whose fault the error is, and whether its message may be shown.
    pub fn kind(&self) -> ProviderErrorKind {
        self.kind
    }

    /// Whether the message may be shown to clients (true of every kind but
    /// [`ProviderErrorKind::Internal`]).
    pub fn is_public(&self) -> bool {
        self.kind != ProviderErrorKind::Internal
    }

    /// Whether the request was invalid ([`ProviderErrorKind::InvalidParams`]).
    pub fn is_invalid_params(&self) -> bool {
        self.kind == ProviderErrorKind::InvalidParams
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constructor_says_whose_fault_and_whether_it_may_be_shown() {
        let check = |error: ProviderError, kind, public, invalid_params| {
            assert_eq!(error.kind(), kind, "{error:?}");
            assert_eq!(error.is_public(), public, "{error:?}");
            assert_eq!(error.is_invalid_params(), invalid_params, "{error:?}");
        };
        check(
            ProviderError::new("db password wrong"),
            ProviderErrorKind::Internal,
            false,
            false,
        );
        check(
            ProviderError::public("backend is down"),
            ProviderErrorKind::PublicInternal,
            true,
            false,
        );
        check(
            ProviderError::invalid_params("offset \"x\" is not a number"),
            ProviderErrorKind::InvalidParams,
            true,
            true,
        );
    }
}
