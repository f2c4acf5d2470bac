//! Every JSON-RPC error this adapter sends, in one place: the session's own refusals and the
//! mapping of the core's errors to the codes of the legacy era.
//!
//! **Layer:** adapter. This is the only file that decides which code answers which failure in
//! the legacy era (MCP specification, Server Features › Resources › Error Handling, and Basic
//! for the JSON-RPC codes, of each legacy version):
//!
//! | failure | code |
//! | --- | --- |
//! | a request other than `ping` before `initialize` | `-32600` (the session does not exist yet, so the request is not valid in it; `-32002` is resource-not-found in MCP and is never reused) |
//! | a second `initialize`, `initialize` inside a batch, a batch outside 2025-03-26, a request id still in flight | `-32600` |
//! | unknown method, or a method whose capability was not offered (`resources/subscribe` without `subscribe`, `completion/complete` without `completions`) | `-32601` |
//! | params of the wrong shape, an invalid URI, an invalid cursor, an unknown template or variable, a `ref/prompt` completion (this server has no prompts), an invalid log level | `-32602` |
//! | resource not found (also: not readable by the principal, the two are not told apart; also: subscribe to such a resource) | `-32002` with `data: {uri}` |
//! | access denied, when the engine is configured to reveal denials | `-32602` with `data: {uri}` (the legacy era has no access-denied code) |
//! | contents over the engine's read limit | `-32603` with `data: {uri}` and both sizes in the message (the request is valid; the server cannot serve it in one read) |
//! | a request a provider cannot serve as asked (`ProviderError::invalid_params`: a bad number in a ranged read's URI, a range or a whole file over its read limit), a byte range that cuts a character | `-32602` with the provider's message (and `data: {uri}` for a read) |
//! | a provider failure | `-32603` with the generic message `internal error`, or the provider's message when it is marked public |
//! | the subscription hub refused (too many subscriptions, unknown subscriber) | `-32603` with the hub's message |
//!
//! Every value from the client an error quotes (a URI, a method name, a request id, a template
//! or variable name, what serde quotes of bad params) goes through
//! [`mcp_types::error::echo`]: whole when it is short, else cut and marked, so that no error grows
//! with what the client sent. It must never know the session's state or how messages are framed.
//!
//! The mappings of the core's errors are public so that another front end serving the legacy
//! era (the rmcp bridge, `mcp-resources-rmcp`) answers with the same codes.

use mcp_resources_core::error::{CompleteError, DirectoryError, ListError, ReadError, SkillError};
use mcp_resources_core::input::InputRequest;
use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::service::SubscriptionError;
use mcp_resources_core::uri::UriError;
use mcp_types::error::echo;
use mcp_types::jsonrpc::{ErrorObject, ParamsError};
use mcp_types::{ProtocolVersion, RequestId};
use serde_json::json;

/// Why the session refused a request before asking the core anything.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RequestError {
    /// A request other than `ping` arrived before `initialize`.
    #[error("session is not initialized: send initialize first")]
    NotInitialized,
    /// `initialize` arrived in a session that already has a version.
    #[error("session is already initialized")]
    AlreadyInitialized,
    /// `initialize` arrived inside a JSON-RPC batch (forbidden in 2025-03-26).
    #[error("initialize must not be part of a json-rpc batch")]
    InitializeInBatch,
    /// A batch arrived under a version that does not allow batches.
    #[error("json-rpc batches are not allowed {0}")]
    BatchNotAllowed(String),
    /// The id of a request still being answered was used again.
    #[error("request id {} is already used by a request in flight", echo(&.0.to_string()))]
    DuplicateId(RequestId),
    /// No such method, or its capability was not offered.
    #[error("{0}")]
    MethodNotFound(String),
    /// The params do not fit the method.
    #[error(transparent)]
    InvalidParams(#[from] ParamsError),
    /// The `uri` param is not a valid resource URI.
    #[error("invalid resource uri {:?}: {error}", echo(.uri))]
    InvalidUri {
        /// The text the client sent.
        uri: String,
        /// What is wrong with it.
        error: UriError,
    },
    /// `completion/complete` for a prompt.
    #[error("this server has no prompts: only ref/resource completions are supported")]
    NoPrompts,
    /// `tools/call` of a tool the bridge does not serve (the message names the tools).
    #[error("{0}")]
    UnknownTool(String),
}

impl RequestError {
    /// A batch refused under `version` (`None`: before initialization).
    pub(crate) fn batch_not_allowed(version: Option<&ProtocolVersion>) -> RequestError {
        RequestError::BatchNotAllowed(match version {
            Some(version) => format!("under protocol version {version} (only 2025-03-26 has them)"),
            None => "before initialize (and only under protocol version 2025-03-26)".to_owned(),
        })
    }

    /// The error object to answer with.
    pub(crate) fn to_error_object(&self) -> ErrorObject {
        match self {
            RequestError::NotInitialized
            | RequestError::AlreadyInitialized
            | RequestError::InitializeInBatch
            | RequestError::BatchNotAllowed(_)
            | RequestError::DuplicateId(_) => ErrorObject::invalid_request(self.to_string()),
            RequestError::MethodNotFound(method) => ErrorObject::method_not_found(method),
            RequestError::InvalidParams(error) => error.to_error_object(),
            RequestError::InvalidUri { uri, .. } => {
                ErrorObject::invalid_params(self.to_string()).with_data(uri_data(uri))
            }
            RequestError::NoPrompts | RequestError::UnknownTool(_) => {
                ErrorObject::invalid_params(self.to_string())
            }
        }
    }
}

/// A provider's error: invalid params when the request was at fault, else a failure, generic
/// unless the provider marked its message public.
fn provider(error: &ProviderError) -> ErrorObject {
    // A provider's message may quote the request (a bad number in a ranged read's URI).
    if error.is_invalid_params() {
        ErrorObject::invalid_params(echo(error.message()))
    } else if error.is_public() {
        ErrorObject::internal_error(echo(error.message()))
    } else {
        ErrorObject::internal_error("internal error")
    }
}

/// A failed `resources/list` or `resources/templates/list`.
pub fn list(error: &ListError) -> ErrorObject {
    match error {
        ListError::InvalidCursor(cursor) => ErrorObject::invalid_params(cursor.to_string()),
        ListError::Provider { error, .. } => provider(error),
        ListError::Audit(_) => audit_failed(),
    }
}

/// A failed `resources/directory/read` of `uri` (the text the client sent): the extension's
/// `-32602` with the URI for a missing or non-directory URI, in this era too (its "not found"
/// code is for reads).
pub fn directory(error: &DirectoryError, uri: &str) -> ErrorObject {
    match error {
        DirectoryError::NotADirectory { .. } => {
            ErrorObject::invalid_params(format!("{} is not a directory", echo(uri)))
                .with_data(uri_data(uri))
        }
        DirectoryError::Denied { uri: canonical } => ErrorObject::invalid_params(format!(
            "access to directory {} is denied",
            echo(canonical)
        ))
        .with_data(uri_data(uri)),
        DirectoryError::InvalidCursor(cursor) => ErrorObject::invalid_params(cursor.to_string()),
        DirectoryError::Provider { error, .. } => provider(error),
        DirectoryError::Audit(_) => audit_failed(),
    }
}

/// A failed `skills/get` of `uri` (the text the client sent): `-32602` with the URI, as in the
/// other era.
pub fn skill(error: &SkillError, uri: &str) -> ErrorObject {
    match error {
        SkillError::NotASkill { .. } => {
            ErrorObject::invalid_params(format!("no skill has the uri {}", echo(uri)))
                .with_data(uri_data(uri))
        }
        SkillError::Provider { error, .. } => provider(error),
        SkillError::Audit(_) => audit_failed(),
    }
}

/// A failed `resources/read` of `uri` (the text the client sent).
pub fn read(error: &ReadError, uri: &str) -> ErrorObject {
    match error {
        ReadError::NotFound { .. } => ErrorObject::resource_not_found_legacy(uri),
        ReadError::Directory { .. } => ErrorObject::resource_not_found_legacy(uri).directory_hint(),
        // The core's messages, with the URI it names (its canonical form) echoed.
        ReadError::Denied { uri: canonical } => {
            ErrorObject::invalid_params(format!("access to resource {} is denied", echo(canonical)))
                .with_data(uri_data(uri))
        }
        // The core's message suggests ranged reads, which the legacy era does not have.
        ReadError::TooLarge { limit, actual, .. } => ErrorObject::internal_error(format!(
            "resource {} is {actual} bytes, over this server's limit of {limit} bytes per read",
            echo(uri)
        ))
        .with_data(uri_data(uri)),
        ReadError::InvalidRange {
            uri: canonical,
            offset,
            length,
            reason,
        } => ErrorObject::invalid_params(format!(
            "range {offset}+{length} of {} cannot be read: {reason}",
            echo(canonical)
        )),
        ReadError::Provider(error) if error.is_invalid_params() => {
            provider(error).with_data(uri_data(uri))
        }
        ReadError::Provider(error) => provider(error),
        ReadError::Audit(_) => audit_failed(),
        ReadError::NotConfirmed { .. } => ErrorObject::invalid_params(format!(
            "the user did not confirm the read of {}",
            echo(uri)
        ))
        .with_data(uri_data(uri)),
        ReadError::InvalidInput { reason, .. } => ErrorObject::invalid_params(format!(
            "the answers to the read of {} are refused: {reason}",
            echo(uri)
        ))
        .with_data(uri_data(uri)),
        ReadError::Unavailable { .. } => ErrorObject::internal_error(format!(
            "the confirmation of the read of {} cannot be asked or checked now; try again",
            echo(uri)
        ))
        .with_data(uri_data(uri)),
        ReadError::InputRequired { input, .. } => {
            let needed: Vec<&str> = input
                .requests
                .values()
                .map(InputRequest::capability)
                .collect();
            input_unsupported(uri, &needed)
        }
    }
}

/// A read of `uri` needs input through client capabilities (`needed`) this session's client
/// did not declare, or under a version that has none of them: `-32600`, naming them in the
/// message and in `data.requiredCapabilities`. The contents are never served instead.
pub fn input_unsupported(uri: &str, needed: &[&str]) -> ErrorObject {
    let mut names: Vec<&str> = needed.to_vec();
    names.sort_unstable();
    names.dedup();
    let required: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|name| ((*name).to_owned(), json!({})))
        .collect();
    ErrorObject::new(
        mcp_types::error::INVALID_REQUEST,
        format!(
            "reading {} needs the user's answer through {}, which this client did not declare \
             (or its protocol version does not have); the contents are not served without it",
            echo(uri),
            names.join(" and ")
        ),
    )
    .with_data(json!({ "uri": echo(uri), "requiredCapabilities": required }))
}

/// The client did not answer the server's requests for the read of `uri` in time: `-32603`.
pub fn input_timed_out(uri: &str) -> ErrorObject {
    ErrorObject::internal_error(format!(
        "the client did not answer the server's request for input to the read of {} within \
         {} seconds; the contents are not served without it",
        echo(uri),
        crate::asking::ASK_TICKS
    ))
    .with_data(uri_data(uri))
}

/// The server's requests for the read of `uri` cannot reach the client: `-32603`.
pub fn input_undeliverable(uri: &str) -> ErrorObject {
    ErrorObject::internal_error(format!(
        "reading {} needs the user's answer, and the server cannot send its request to this \
         client (over Streamable HTTP, open the session's GET stream first); the contents are \
         not served without it",
        echo(uri)
    ))
    .with_data(uri_data(uri))
}

/// Too many reads of the session wait for the client already: `-32603`.
pub fn too_many_asks(uri: &str) -> ErrorObject {
    ErrorObject::internal_error(format!(
        "{} reads of this session wait for the client's input already; {} is not read",
        crate::asking::MAX_ASKING,
        echo(uri)
    ))
    .with_data(uri_data(uri))
}

/// The audit log could not record a request about a sensitive resource: it is not served.
/// The log's own error (a path, an errno) stays in the server's logs.
fn audit_failed() -> ErrorObject {
    ErrorObject::internal_error(
        "the audit log could not record this request about a sensitive resource, so it was \
         not served",
    )
}

/// `data: {uri}`, the URI as the client sent it, echoed.
fn uri_data(uri: &str) -> serde_json::Value {
    json!({ "uri": echo(uri) })
}

/// A failed `completion/complete`.
pub fn complete(error: &CompleteError) -> ErrorObject {
    match error {
        // The core's messages, with the names the client sent echoed.
        CompleteError::UnknownTemplate { template } => {
            ErrorObject::invalid_params(format!("no resource template {}", echo(template)))
        }
        CompleteError::UnknownVariable { template, variable } => {
            ErrorObject::invalid_params(format!(
                "uri template {} has no variable {}",
                echo(template),
                echo(variable)
            ))
        }
        CompleteError::Provider(error) => provider(error),
        CompleteError::Audit(_) => audit_failed(),
    }
}

/// A failed `resources/subscribe` of `uri` (the text the client sent).
pub fn subscription(error: &SubscriptionError, uri: &str) -> ErrorObject {
    match error {
        SubscriptionError::NotOffered(_) => {
            ErrorObject::new(mcp_types::error::METHOD_NOT_FOUND, error.to_string())
        }
        SubscriptionError::NotFound { .. } => ErrorObject::resource_not_found_legacy(uri),
        SubscriptionError::NoSubscriber | SubscriptionError::Hub(_) => {
            ErrorObject::internal_error(error.to_string())
        }
        SubscriptionError::Audit(_) => audit_failed(),
    }
}

/// The core answered a query with an answer of another kind: a bug in the driver.
pub(crate) fn mismatched_answer() -> ErrorObject {
    ErrorObject::internal_error("internal error")
}

/// A result that could not be serialized (never happens with our wire types).
pub(crate) fn unserializable(error: &serde_json::Error) -> ErrorObject {
    ErrorObject::internal_error(format!("internal error: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_resources_core::pagination::CursorError;

    fn check(error: ErrorObject, code: i64, message: &str) {
        assert_eq!(error.code.0, code, "{error:?}");
        assert!(
            error.message.contains(message),
            "{error:?} should mention {message:?}"
        );
    }

    #[test]
    fn core_errors_map_to_legacy_codes() {
        check(
            list(&ListError::InvalidCursor(CursorError::Tampered)),
            -32602,
            "invalid cursor",
        );
        let provider_error = ListError::Provider {
            source_index: 0,
            error: ProviderError::new("db password wrong"),
        };
        check(list(&provider_error), -32603, "internal error");
        assert!(!list(&provider_error).message.contains("password"));
        let public = ReadError::Provider(ProviderError::public("backend is down"));
        check(read(&public, "x:/a"), -32603, "backend is down");
        let invalid = ReadError::Provider(ProviderError::invalid_params("offset \"abc\" is bad"));
        check(
            read(&invalid, "x:/a?offset=abc"),
            -32602,
            "offset \"abc\" is bad",
        );
        assert_eq!(
            read(&invalid, "x:/a?offset=abc").data,
            Some(json!({ "uri": "x:/a?offset=abc" }))
        );
        let invalid_list = ListError::Provider {
            source_index: 0,
            error: ProviderError::invalid_params("bad filter"),
        };
        check(list(&invalid_list), -32602, "bad filter");
        check(
            complete(&CompleteError::Provider(ProviderError::invalid_params(
                "bad prefix",
            ))),
            -32602,
            "bad prefix",
        );
        let not_found = read(&ReadError::NotFound { uri: "x:/a".into() }, "x:/a");
        check(not_found.clone(), -32002, "Resource not found");
        assert_eq!(not_found.data, Some(json!({ "uri": "x:/a" })));
        let too_large = ReadError::TooLarge {
            uri: "x:/a".into(),
            limit: 1,
            actual: 2,
        };
        check(
            read(&too_large, "x:/a"),
            -32603,
            "over this server's limit of 1 bytes",
        );
        check(
            complete(&CompleteError::UnknownTemplate {
                template: "t://{x}".into(),
            }),
            -32602,
            "no resource template t://{x}",
        );
        check(
            subscription(&SubscriptionError::NotOffered("resource update"), "x:/a"),
            -32601,
            "does not offer",
        );
        check(
            subscription(&SubscriptionError::NotFound { uri: "x:/a".into() }, "x:/a"),
            -32002,
            "not found",
        );
    }

    #[test]
    fn values_the_client_sent_are_quoted_bounded() {
        use mcp_types::error::ECHO_LIMIT;
        let long = format!("x:/{}", "a".repeat(100_000));
        let errors = [
            read(&ReadError::NotFound { uri: long.clone() }, &long),
            read(&ReadError::Denied { uri: long.clone() }, &long),
            read(
                &ReadError::TooLarge {
                    uri: long.clone(),
                    limit: 1,
                    actual: 2,
                },
                &long,
            ),
            read(
                &ReadError::InvalidRange {
                    uri: long.clone(),
                    offset: 1,
                    length: 1,
                    reason: "it splits a utf-8 character",
                },
                &long,
            ),
            read(
                &ReadError::Provider(ProviderError::invalid_params(long.clone())),
                &long,
            ),
            complete(&CompleteError::UnknownVariable {
                template: long.clone(),
                variable: long.clone(),
            }),
            subscription(&SubscriptionError::NotFound { uri: long.clone() }, &long),
            RequestError::MethodNotFound(long.clone()).to_error_object(),
            RequestError::DuplicateId(RequestId::String(long.clone())).to_error_object(),
            RequestError::InvalidUri {
                uri: long.clone(),
                error: UriError::Empty,
            }
            .to_error_object(),
        ];
        for error in errors {
            let object = serde_json::to_string(&error).unwrap();
            // At most two values quoted, each in the message and in `data`.
            assert!(object.len() <= 5 * ECHO_LIMIT, "{object}");
            assert!(object.contains("… (cut from "), "{object}");
        }
        // A usual URI is quoted as sent.
        let short = read(&ReadError::NotFound { uri: "x:/a".into() }, "x:/a");
        assert_eq!(short.data, Some(json!({ "uri": "x:/a" })));
    }

    #[test]
    fn session_refusals_map_to_json_rpc_codes() {
        check(
            RequestError::NotInitialized.to_error_object(),
            -32600,
            "not initialized",
        );
        check(
            RequestError::AlreadyInitialized.to_error_object(),
            -32600,
            "already initialized",
        );
        check(
            RequestError::NoPrompts.to_error_object(),
            -32602,
            "no prompts",
        );
        check(
            RequestError::MethodNotFound("tools/list".into()).to_error_object(),
            -32601,
            "tools/list",
        );
        check(
            RequestError::batch_not_allowed(Some(&ProtocolVersion::V2025_06_18)).to_error_object(),
            -32600,
            "2025-06-18",
        );
    }
}
