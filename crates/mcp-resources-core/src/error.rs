//! The errors of the engine, one enum per operation family: building it, listing, reading and
//! completing.
//!
//! **Layer:** core. "Not found" and "denied" are ordinary values here. The adapters map them to
//! their era's JSON-RPC errors (not found is `-32002` in the legacy era and `-32602` in the
//! modern one; an invalid cursor is `-32602` in both); this module never knows those codes.

use crate::input::InputRequired;
use crate::pagination::CursorError;
use crate::provider::ProviderError;
use crate::sensitive::AuditError;
use crate::store::StoreError;
use crate::uri::ResourceUri;

/// Why an engine could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Two static resources have the same canonical URI.
    #[error("static resource {uri} is registered twice")]
    DuplicateResource {
        /// The canonical URI.
        uri: String,
    },
    /// Two templates (engine or provider ones) have the same text, so completion could not tell
    /// them apart.
    #[error("uri template {template} is registered twice")]
    DuplicateTemplate {
        /// The template text.
        template: String,
    },
}

/// Why a page of a list could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The cursor is not one this server issued (adapters: invalid params, `-32602`).
    #[error(transparent)]
    InvalidCursor(#[from] CursorError),
    /// A provider failed while listing.
    #[error("provider {source_index} failed to list resources: {error}")]
    Provider {
        /// The position of the provider in registration order.
        source_index: usize,
        /// What it said.
        #[source]
        error: ProviderError,
    },
    /// The audit log could not record this request about a sensitive resource, so it was not
    /// answered (adapters: internal error).
    #[error(transparent)]
    Audit(#[from] AuditError),
}

/// Why a page of a directory's children could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    /// No directory has this URI: nothing has it, it is not a directory, or the principal may
    /// not list it and the engine does not reveal denials (adapters: invalid params, `-32602`).
    #[error("{uri} is not a directory")]
    NotADirectory {
        /// The URI asked for.
        uri: String,
    },
    /// The principal may not list this directory (only when the engine is configured to reveal
    /// denials).
    #[error("access to directory {uri} is denied")]
    Denied {
        /// The URI asked for.
        uri: String,
    },
    /// The cursor is not one this server issued for this directory (`-32602`).
    #[error(transparent)]
    InvalidCursor(#[from] CursorError),
    /// A provider failed while listing the directory.
    #[error("provider {source_index} failed to list a directory: {error}")]
    Provider {
        /// The position of the provider in registration order.
        source_index: usize,
        /// What it said.
        #[source]
        error: ProviderError,
    },
    /// The audit log could not record this request about a sensitive resource, so it was not
    /// answered (adapters: internal error).
    #[error(transparent)]
    Audit(#[from] AuditError),
}

/// Why `skills/get` found no skill.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    /// No skill has this `SKILL.md` URI, or the principal may not see it (adapters: invalid
    /// params, `-32602`).
    #[error("no skill has the uri {uri}")]
    NotASkill {
        /// The URI asked for.
        uri: String,
    },
    /// A provider failed while looking for it.
    #[error("provider {source_index} failed to get a skill: {error}")]
    Provider {
        /// The position of the provider in registration order.
        source_index: usize,
        /// What it said.
        #[source]
        error: ProviderError,
    },
    /// The audit log could not record a skill of a sensitive resource, so it was not
    /// answered (adapters: internal error).
    #[error(transparent)]
    Audit(#[from] AuditError),
}

/// Why a read gave no contents.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// No resource has this URI, or the principal may not read it and the engine does not
    /// reveal denials (the default).
    #[error("resource {uri} not found")]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// The URI names a directory resource the principal may see: it has no contents to read,
    /// only children to list. Adapters answer it as [`ReadError::NotFound`], with a message
    /// pointing to `resources/directory/read` (the Skills extension's advice).
    #[error("resource {uri} is a directory: list its children with resources/directory/read")]
    Directory {
        /// The URI asked for.
        uri: String,
    },
    /// The principal may not read this resource (only when the engine is configured to reveal
    /// denials).
    #[error("access to resource {uri} is denied")]
    Denied {
        /// The URI asked for.
        uri: String,
    },
    /// The contents are larger than one read may return.
    #[error(
        "contents of {uri} are {actual} bytes, over the limit of {limit} bytes per read; read it in ranges"
    )]
    TooLarge {
        /// The URI asked for.
        uri: String,
        /// The limit, in bytes (the sum of all bodies).
        limit: u64,
        /// The size of the contents, in bytes.
        actual: u64,
    },
    /// A byte range that cannot be served, such as one cutting a UTF-8 character of a text.
    #[error("range {offset}+{length} of {uri} cannot be read: {reason}")]
    InvalidRange {
        /// The URI asked for.
        uri: String,
        /// The first byte asked for.
        offset: u64,
        /// The number of bytes asked for.
        length: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Not a failure: the read needs input from the client first (a provider's, or the
    /// confirmation a [sensitive](crate::sensitive) resource asks for). The adapters ask the
    /// client in their era's way and read again with the answers.
    #[error("reading {uri} needs input from the client")]
    InputRequired {
        /// The URI asked for.
        uri: String,
        /// What is needed.
        input: Box<InputRequired>,
    },
    /// The user declined (or dismissed) the confirmation of this read.
    #[error("the user did not confirm the read of {uri}")]
    NotConfirmed {
        /// The URI asked for.
        uri: String,
    },
    /// The input echoed with a retried read is not good: a forged, foreign, expired or
    /// replayed confirmation state.
    #[error("the input to the read of {uri} is refused: {reason}")]
    InvalidInput {
        /// The URI asked for.
        uri: String,
        /// Why.
        reason: &'static str,
    },
    /// The confirmation of this read could not be asked or checked: the ticket store the
    /// instances of a deployment share (to serve each confirmation once) failed. Adapters:
    /// internal error; the client may try again.
    #[error("the confirmation of the read of {uri} cannot be asked or checked now; try again")]
    Unavailable {
        /// The URI asked for.
        uri: String,
        /// What the store said (never shown to the client).
        error: StoreError,
    },
    /// A provider or a template function failed.
    #[error("reading failed: {0}")]
    Provider(ProviderError),
    /// The audit log could not record this request about a sensitive resource, so it was not
    /// answered (adapters: internal error).
    #[error(transparent)]
    Audit(#[from] AuditError),
}

impl ReadError {
    /// A provider's error on reading `uri`: [`ReadError::InputRequired`] when it asks for
    /// input, else [`ReadError::Provider`].
    pub fn from_provider(uri: &ResourceUri, error: ProviderError) -> ReadError {
        match error.into_input_required() {
            Ok(input) => ReadError::InputRequired {
                uri: uri.to_string(),
                input,
            },
            Err(error) => ReadError::Provider(error),
        }
    }
}

/// Why a completion could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum CompleteError {
    /// No registered template has this text.
    #[error("no resource template {template}")]
    UnknownTemplate {
        /// The template text asked for.
        template: String,
    },
    /// The template has no variable of this name.
    #[error("uri template {template} has no variable {variable}")]
    UnknownVariable {
        /// The template text.
        template: String,
        /// The variable asked for.
        variable: String,
    },
    /// A provider or a template completer failed.
    #[error("completion failed: {0}")]
    Provider(#[from] ProviderError),
    /// The audit log could not record this request about a sensitive resource, so it was not
    /// answered (adapters: internal error).
    #[error(transparent)]
    Audit(#[from] AuditError),
}
