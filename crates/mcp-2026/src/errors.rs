//! Every error this era answers with, in one place: the adapter's own validation failures and
//! the core's errors, each mapped to its JSON-RPC error object and its HTTP status.
//!
//! **Layer:** adapter. This is the only file that decides codes for 2026-07-28: a missing or
//! malformed `_meta` field is `-32602` (HTTP 400), an unsupported version `-32022` (400), a
//! header that disagrees with the body `-32020` (400), a missing client capability `-32021`
//! (400), an unknown or unoffered method `-32601` (404). Application errors (resource not found
//! `-32602` with `data.uri`, bad cursor `-32602`, a request a provider cannot serve as asked
//! `-32602`, provider failure `-32603`) keep HTTP 200, so
//! that a dual-era client does not mistake them for a legacy server (a choice 2026-07-28
//! Basic › Versioning leaves to the server). It must never
//! know the legacy era's codes (`-32002` is never sent here) or how a status reaches the wire.
//!
//! Every value from the client an error quotes (a URI, a method or prompt name, a version, a
//! header, what serde quotes of bad params, a template or variable name) goes through
//! [`mcp_types::error::echo`], in the message and in `data` alike: whole when it is short, else
//! cut and marked, so that no error grows with what the client sent.
//!
//! `-32021` answers a read that needs input (an `InputRequiredResult`) through a client
//! capability the request did not declare: the spec forbids asking through it.

use mcp_resources_core::error::{CompleteError, DirectoryError, ListError, ReadError, SkillError};
use mcp_resources_core::pagination::CursorError;
use mcp_resources_core::provider::ProviderError;
use mcp_types::ProtocolVersion;
use mcp_types::error::echo;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::request_meta::RequestMetaError;
use mcp_types::v2026_07_28::ClientCapabilities;

use crate::headers::HeaderError;

/// Why a modern request was answered with an error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// `params` or `params._meta` is absent or not a JSON object.
    #[error("params._meta is missing or not an object; every 2026-07-28 request must carry it")]
    MissingMeta,
    /// A required `_meta` key is absent, or a reserved one is malformed.
    #[error(transparent)]
    InvalidMeta(#[from] RequestMetaError),
    /// The request names a version this era does not serve (a legacy version included).
    #[error("unsupported protocol version {}", echo(.requested))]
    UnsupportedVersion {
        /// The version the request named.
        requested: String,
        /// Every version the server speaks.
        supported: Vec<ProtocolVersion>,
    },
    /// An HTTP header is missing or disagrees with the body.
    #[error(transparent)]
    HeaderMismatch(#[from] HeaderError),
    /// The request needs a client capability it did not declare.
    #[error("the request needs client capabilities it did not declare")]
    MissingClientCapability {
        /// The capabilities the request would have needed.
        required: Box<ClientCapabilities>,
    },
    /// The method does not exist in this era, or its capability is not offered.
    #[error("method not found: {}", echo(.method))]
    MethodNotFound {
        /// The method as the client sent it.
        method: String,
    },
    /// The params do not have the shape the method needs.
    #[error("invalid params: {}", echo(.0))]
    InvalidParams(String),
    /// `params.uri` is not a valid resource URI.
    #[error("invalid resource uri {}: {reason}", echo(.uri))]
    InvalidUri {
        /// The URI as the client sent it.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `completion/complete` for a prompt argument: this server has no prompts.
    #[error("no prompt {}: this server has no prompts", echo(.name))]
    NoPrompts {
        /// The prompt name asked for.
        name: String,
    },
    /// No resource has this URI, or the principal may not read it.
    #[error("resource {} not found", echo(.uri))]
    ResourceNotFound {
        /// The URI as the client sent it.
        uri: String,
    },
    /// `resources/read` of a directory resource: not found, with a hint to list it instead.
    #[error(
        "resource {} is a directory: list its children with resources/directory/read",
        echo(.uri)
    )]
    DirectoryNotReadable {
        /// The URI as the client sent it.
        uri: String,
    },
    /// `resources/directory/read` of a URI that names no directory (missing, a file, or one
    /// the principal may not list).
    #[error("{} is not a directory", echo(.uri))]
    NotADirectory {
        /// The URI as the client sent it.
        uri: String,
    },
    /// `skills/get` of a URI that is no served skill's `SKILL.md`.
    #[error("no skill has the uri {}", echo(.uri))]
    UnknownSkill {
        /// The URI as the client sent it.
        uri: String,
    },
    /// The principal may not read the resource (only when the engine reveals denials).
    #[error("access to resource {} is denied", echo(.uri))]
    ResourceDenied {
        /// The URI as the client sent it.
        uri: String,
    },
    /// The cursor is not one this server issued.
    #[error(transparent)]
    InvalidCursor(#[from] CursorError),
    /// The contents are larger than one read may return.
    #[error(
        "contents of {} are {actual} bytes, over the limit of {limit} bytes per read",
        echo(.uri)
    )]
    TooLarge {
        /// The URI as the client sent it.
        uri: String,
        /// The limit in bytes.
        limit: u64,
        /// The size in bytes.
        actual: u64,
    },
    /// The completion names a template or variable the server does not have (the message
    /// quotes them, echoed).
    #[error("{0}")]
    UnknownCompletionTarget(String),
    /// The request cannot be served as asked, through the client's fault: a provider said so
    /// (`ProviderError::invalid_params`: a bad number in a ranged read's URI, a range or a
    /// whole file over its read limit), or a byte range cuts a character.
    #[error("{}", echo(.message))]
    Rejected {
        /// What was wrong with the request.
        message: String,
        /// The URI as the client sent it, for a read.
        uri: Option<String>,
    },
    /// A provider failed; the message is shown only when the provider made it public.
    #[error("internal error: {}", echo(.public_message))]
    Internal {
        /// What the client may be told.
        public_message: String,
    },
}

impl RequestError {
    /// The JSON-RPC error object to answer with.
    pub fn to_error_object(&self) -> ErrorObject {
        match self {
            RequestError::MissingMeta
            | RequestError::InvalidMeta(_)
            | RequestError::InvalidParams(_)
            | RequestError::InvalidCursor(_)
            | RequestError::NoPrompts { .. }
            | RequestError::UnknownCompletionTarget(_) => {
                ErrorObject::invalid_params(self.to_string())
            }
            RequestError::UnsupportedVersion {
                requested,
                supported,
            } => ErrorObject::unsupported_protocol_version(supported, requested),
            RequestError::HeaderMismatch(error) => ErrorObject::header_mismatch(error.to_string()),
            RequestError::MissingClientCapability { required } => {
                ErrorObject::missing_required_client_capability(ClientCapabilities::clone(required))
            }
            RequestError::MethodNotFound { method } => ErrorObject::method_not_found(method),
            RequestError::ResourceNotFound { uri } => ErrorObject::resource_not_found(uri),
            RequestError::DirectoryNotReadable { uri } => {
                ErrorObject::resource_not_found(uri).directory_hint()
            }
            RequestError::InvalidUri { uri, .. }
            | RequestError::NotADirectory { uri }
            | RequestError::UnknownSkill { uri }
            | RequestError::ResourceDenied { uri }
            | RequestError::Rejected { uri: Some(uri), .. } => {
                ErrorObject::invalid_params(self.to_string()).with_data(uri_data(uri))
            }
            RequestError::Rejected { uri: None, .. } => {
                ErrorObject::invalid_params(self.to_string())
            }
            RequestError::TooLarge { .. } | RequestError::Internal { .. } => {
                ErrorObject::internal_error(self.to_string())
            }
        }
    }

    /// The HTTP status of the response carrying this error on Streamable HTTP: 400 for the
    /// validation failures the spec names, 404 for an unknown method, 200 otherwise.
    pub fn http_status(&self) -> u16 {
        match self {
            RequestError::MissingMeta
            | RequestError::InvalidMeta(_)
            | RequestError::UnsupportedVersion { .. }
            | RequestError::HeaderMismatch(_)
            | RequestError::MissingClientCapability { .. } => 400,
            RequestError::MethodNotFound { .. } => 404,
            RequestError::InvalidParams(_)
            | RequestError::InvalidUri { .. }
            | RequestError::NoPrompts { .. }
            | RequestError::ResourceNotFound { .. }
            | RequestError::DirectoryNotReadable { .. }
            | RequestError::NotADirectory { .. }
            | RequestError::UnknownSkill { .. }
            | RequestError::ResourceDenied { .. }
            | RequestError::InvalidCursor(_)
            | RequestError::TooLarge { .. }
            | RequestError::UnknownCompletionTarget(_)
            | RequestError::Rejected { .. }
            | RequestError::Internal { .. } => 200,
        }
    }

    /// The error of a failed list page.
    pub fn from_list(error: ListError) -> RequestError {
        match error {
            ListError::InvalidCursor(cursor) => RequestError::InvalidCursor(cursor),
            ListError::Provider { error, .. } => provider(&error, None),
            ListError::Audit(_) => audit_failed(),
        }
    }

    /// The error of a failed read of `requested`, the URI as the client sent it (kept
    /// echoed).
    pub fn from_read(error: ReadError, requested: &str) -> RequestError {
        let uri = echo(requested).into_owned();
        match error {
            ReadError::NotFound { .. } => RequestError::ResourceNotFound { uri },
            ReadError::Directory { .. } => RequestError::DirectoryNotReadable { uri },
            ReadError::Denied { .. } => RequestError::ResourceDenied { uri },
            ReadError::TooLarge { limit, actual, .. } => {
                RequestError::TooLarge { uri, limit, actual }
            }
            // Only a ranged read of the engine meets one; the range is at fault. The core's
            // message, with the URI it names echoed.
            ReadError::InvalidRange {
                uri: canonical,
                offset,
                length,
                reason,
            } => RequestError::Rejected {
                message: format!(
                    "range {offset}+{length} of {} cannot be read: {reason}",
                    echo(&canonical)
                ),
                uri: Some(uri),
            },
            ReadError::Provider(error) => provider(&error, Some(uri)),
            ReadError::Audit(_) => audit_failed(),
            ReadError::NotConfirmed { .. } => RequestError::Rejected {
                message: format!("the user did not confirm the read of {uri}"),
                uri: Some(uri),
            },
            ReadError::InvalidInput { reason, .. } => RequestError::Rejected {
                message: format!("the answers to the read of {uri} are refused: {reason}"),
                uri: Some(uri),
            },
            ReadError::Unavailable { .. } => RequestError::Internal {
                public_message: format!(
                    "the confirmation of the read of {uri} cannot be asked or checked now; try again"
                ),
            },
            // The exchange answers it with an `InputRequiredResult`; never reached.
            ReadError::InputRequired { .. } => RequestError::Internal {
                public_message: "the read needs input from the client".to_owned(),
            },
        }
    }

    /// The error of a failed directory read of `requested`, the URI as the client sent it
    /// (kept echoed): the extension answers a missing or non-directory URI with `-32602`.
    pub fn from_directory(error: DirectoryError, requested: &str) -> RequestError {
        let uri = echo(requested).into_owned();
        match error {
            DirectoryError::NotADirectory { .. } => RequestError::NotADirectory { uri },
            DirectoryError::Denied { .. } => RequestError::ResourceDenied { uri },
            DirectoryError::InvalidCursor(cursor) => RequestError::InvalidCursor(cursor),
            DirectoryError::Provider { error, .. } => provider(&error, Some(uri)),
            DirectoryError::Audit(_) => audit_failed(),
        }
    }

    /// The error of a failed `skills/get` of `requested`, the URI as the client sent it.
    pub fn from_skill(error: SkillError, requested: &str) -> RequestError {
        let uri = echo(requested).into_owned();
        match error {
            SkillError::NotASkill { .. } => RequestError::UnknownSkill { uri },
            SkillError::Provider { error, .. } => provider(&error, Some(uri)),
            SkillError::Audit(_) => audit_failed(),
        }
    }

    /// The error of a failed completion.
    pub fn from_complete(error: CompleteError) -> RequestError {
        // The core's messages, with the names the client sent echoed.
        match error {
            CompleteError::UnknownTemplate { template } => RequestError::UnknownCompletionTarget(
                format!("no resource template {}", echo(&template)),
            ),
            CompleteError::UnknownVariable { template, variable } => {
                RequestError::UnknownCompletionTarget(format!(
                    "uri template {} has no variable {}",
                    echo(&template),
                    echo(&variable)
                ))
            }
            CompleteError::Provider(error) => provider(&error, None),
            CompleteError::Audit(_) => audit_failed(),
        }
    }
}

/// The audit log could not record a request about a sensitive resource: it is not served.
/// The log's own error (a path, an errno) stays in the server's logs.
fn audit_failed() -> RequestError {
    RequestError::Internal {
        public_message: "the audit log could not record this request about a sensitive \
                         resource, so it was not served"
            .to_owned(),
    }
}

/// A provider's error: rejected when the request was at fault (about `uri`, for a read), else
/// internal.
fn provider(error: &ProviderError, uri: Option<String>) -> RequestError {
    if error.is_invalid_params() {
        RequestError::Rejected {
            message: error.message().to_owned(),
            uri,
        }
    } else {
        internal(error.is_public(), error.message())
    }
}

/// A provider failure: its own message only when it is public, else a generic one.
fn internal(public: bool, message: &str) -> RequestError {
    let public_message = if public {
        message.to_owned()
    } else {
        "the server failed to answer; see its logs".to_owned()
    };
    RequestError::Internal { public_message }
}

fn uri_data(uri: &str) -> serde_json::Value {
    serde_json::json!({ "uri": echo(uri) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row per variant: its code and HTTP status.
    fn check(error: RequestError, code: i64, status: u16) {
        assert_eq!(error.to_error_object().code.0, code, "{error:?}");
        assert_eq!(error.http_status(), status, "{error:?}");
    }

    #[test]
    fn codes_and_statuses() {
        let uri = || "test://a".to_owned();
        check(RequestError::MissingMeta, -32602, 400);
        check(RequestMetaError::MissingProtocolVersion.into(), -32602, 400);
        check(
            RequestError::UnsupportedVersion {
                requested: "1900-01-01".into(),
                supported: vec![ProtocolVersion::V2026_07_28],
            },
            -32022,
            400,
        );
        check(HeaderError::Missing("Mcp-Method").into(), -32020, 400);
        check(
            RequestError::MissingClientCapability {
                required: Box::default(),
            },
            -32021,
            400,
        );
        check(
            RequestError::MethodNotFound {
                method: "ping".into(),
            },
            -32601,
            404,
        );
        check(RequestError::InvalidParams("x".into()), -32602, 200);
        check(
            RequestError::InvalidUri {
                uri: uri(),
                reason: "x".into(),
            },
            -32602,
            200,
        );
        check(RequestError::NoPrompts { name: "p".into() }, -32602, 200);
        check(RequestError::ResourceNotFound { uri: uri() }, -32602, 200);
        check(RequestError::ResourceDenied { uri: uri() }, -32602, 200);
        check(CursorError::Tampered.into(), -32602, 200);
        check(
            RequestError::TooLarge {
                uri: uri(),
                limit: 1,
                actual: 2,
            },
            -32603,
            200,
        );
        check(
            RequestError::UnknownCompletionTarget("x".into()),
            -32602,
            200,
        );
        check(
            RequestError::Rejected {
                message: "x".into(),
                uri: None,
            },
            -32602,
            200,
        );
        check(
            RequestError::Internal {
                public_message: "x".into(),
            },
            -32603,
            200,
        );
    }

    #[test]
    fn not_found_and_denied_name_the_uri_as_sent() {
        let not_found = RequestError::from_read(
            ReadError::NotFound {
                uri: "test://a".into(),
            },
            "test://A",
        );
        assert_eq!(
            not_found.to_error_object().data,
            Some(serde_json::json!({"uri": "test://A"}))
        );
        let denied = RequestError::from_read(
            ReadError::Denied {
                uri: "test://a".into(),
            },
            "test://A",
        );
        assert_eq!(
            denied.to_error_object().data,
            Some(serde_json::json!({"uri": "test://A"}))
        );
        let too_large = RequestError::from_read(
            ReadError::TooLarge {
                uri: "test://a".into(),
                limit: 1,
                actual: 2,
            },
            "test://a",
        );
        assert_eq!(
            too_large.to_error_object().message,
            "contents of test://a are 2 bytes, over the limit of 1 bytes per read"
        );
    }

    #[test]
    fn requests_a_provider_or_the_engine_rejects_are_invalid_params() {
        let bad_offset = "offset \"abc\" is not a whole number of bytes";
        let read = RequestError::from_read(
            ReadError::Provider(ProviderError::invalid_params(bad_offset)),
            "file:///x.txt?offset=abc",
        );
        let object = read.to_error_object();
        assert_eq!((object.code.0, read.http_status()), (-32602, 200));
        assert_eq!(object.message, bad_offset);
        assert_eq!(
            object.data,
            Some(serde_json::json!({"uri": "file:///x.txt?offset=abc"}))
        );
        let range = RequestError::from_read(
            ReadError::InvalidRange {
                uri: "test://a".into(),
                offset: 1,
                length: 1,
                reason: "it splits a utf-8 character",
            },
            "test://a",
        );
        assert_eq!(range.to_error_object().code.0, -32602, "{range:?}");
        let list = RequestError::from_list(ListError::Provider {
            source_index: 0,
            error: ProviderError::invalid_params("bad filter"),
        });
        assert_eq!(list.to_error_object().code.0, -32602, "{list:?}");
        let complete = RequestError::from_complete(CompleteError::Provider(
            ProviderError::invalid_params("bad prefix"),
        ));
        assert_eq!(complete.to_error_object().code.0, -32602, "{complete:?}");
        // A failure stays internal, its message shown only when public.
        let failed = RequestError::from_read(
            ReadError::Provider(ProviderError::public("backend is down")),
            "test://a",
        );
        assert_eq!(failed.to_error_object().code.0, -32603);
        assert!(failed.to_string().contains("backend is down"));
    }

    #[test]
    fn values_the_client_sent_are_quoted_bounded() {
        use mcp_types::error::ECHO_LIMIT;
        let long = format!("test://{}", "a".repeat(100_000));
        let errors = [
            RequestError::from_read(ReadError::NotFound { uri: long.clone() }, &long),
            RequestError::from_read(ReadError::Denied { uri: long.clone() }, &long),
            RequestError::from_read(
                ReadError::InvalidRange {
                    uri: long.clone(),
                    offset: 1,
                    length: 1,
                    reason: "it splits a utf-8 character",
                },
                &long,
            ),
            RequestError::from_read(
                ReadError::Provider(ProviderError::invalid_params(long.clone())),
                &long,
            ),
            RequestError::from_complete(CompleteError::UnknownVariable {
                template: long.clone(),
                variable: long.clone(),
            }),
            RequestError::InvalidUri {
                uri: long.clone(),
                reason: "x".into(),
            },
            RequestError::MethodNotFound {
                method: long.clone(),
            },
            RequestError::UnsupportedVersion {
                requested: long.clone(),
                supported: vec![ProtocolVersion::V2026_07_28],
            },
            HeaderError::Differs {
                header: "Mcp-Name",
                header_value: long.clone(),
                body_value: long.clone(),
            }
            .into(),
            RequestError::NoPrompts { name: long.clone() },
            RequestError::InvalidParams(long.clone()),
        ];
        for error in errors {
            let object = serde_json::to_string(&error.to_error_object()).unwrap();
            // At most two values quoted, each in the message and in `data`.
            assert!(object.len() <= 5 * ECHO_LIMIT, "{error:?}: {object}");
            assert!(object.contains("(cut from 100007 bytes)"), "{object}");
            assert!(error.to_string().len() <= 3 * ECHO_LIMIT, "{error:?}");
        }
    }

    #[test]
    fn missing_client_capability_names_what_is_required() {
        let required = ClientCapabilities {
            elicitation: Some(serde_json::Map::new()),
            ..ClientCapabilities::default()
        };
        let error = RequestError::MissingClientCapability {
            required: Box::new(required),
        };
        assert_eq!(
            error.to_error_object().data,
            Some(serde_json::json!({"requiredCapabilities": {"elicitation": {}}}))
        );
    }
}
