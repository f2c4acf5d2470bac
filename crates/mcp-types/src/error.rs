//! JSON-RPC and MCP error codes, constructors for the errors a resources server sends with the
//! `data` shape each one has on the wire, and [`echo`], the one way an error quotes what a
//! client sent.
//!
//! **Layer:** wire types, above the envelope. The codes and constructors JSON-RPC 2.0 itself
//! defines (`-32700` to `-32603`) belong to the envelope ([`crate::jsonrpc`]) and `echo` to a
//! small module of its own below both; this module re-exports them beside MCP's codes, so it
//! still lists every code a server sends. Which code answers which failure in which era
//! (resource not found is `-32002` in legacy and `-32602` in modern) is decided by the adapters;
//! this module only makes each error correctly shaped, and bounds what it echoes. It must never
//! know the engine's error types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::capabilities::ClientCapabilities;
pub use crate::echo::{ECHO_LIMIT, echo};
use crate::jsonrpc::{ErrorCode, ErrorObject};
// The JSON-RPC 2.0 codes are the envelope's; they are here too, so that this module lists every
// code a server sends.
pub use crate::jsonrpc::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};

/// `-32002`: resource not found (legacy era only; modern servers must not send it).
pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
/// `-32020`: an HTTP header is missing, malformed or disagrees with the body (modern).
pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
/// `-32021`: the request needs a client capability it did not declare (modern).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
/// `-32022`: the requested protocol version is not supported (modern).
pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

/// `data` of a resource-not-found error: `{uri}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceNotFoundData {
    /// The URI that was not found.
    pub uri: String,
}

/// `data` of `-32022`: `{supported, requested}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnsupportedProtocolVersionData {
    /// The versions the server supports.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
}

/// `data` of `-32021`: `{requiredCapabilities}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request would have needed.
    pub required_capabilities: ClientCapabilities,
}

fn data(value: &impl Serialize) -> serde_json::Value {
    // The data types above are plain structs of strings and maps; they always serialize.
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

impl ErrorObject {
    /// Legacy resource not found: `-32002` with `data: {uri}` (the URI [`echo`]ed).
    pub fn resource_not_found_legacy(uri: &str) -> Self {
        ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found").with_data(data(
            &ResourceNotFoundData {
                uri: echo(uri).into_owned(),
            },
        ))
    }

    /// Modern resource not found: `-32602` with `data: {uri}` (the URI [`echo`]ed).
    pub fn resource_not_found(uri: &str) -> Self {
        ErrorObject::new(INVALID_PARAMS, "Resource not found").with_data(data(
            &ResourceNotFoundData {
                uri: echo(uri).into_owned(),
            },
        ))
    }

    /// The same not-found error, its message saying that the URI is a directory to list with
    /// `resources/directory/read` (the Skills extension's advice for a read of a directory).
    #[must_use]
    pub fn directory_hint(mut self) -> Self {
        self.message =
            "Resource not found: it is a directory, list its children with resources/directory/read"
                .to_owned();
        self
    }

    /// `-32020` Header mismatch, with what did not match.
    pub fn header_mismatch(detail: impl Into<String>) -> Self {
        ErrorObject::new(
            HEADER_MISMATCH,
            format!("Header mismatch: {}", detail.into()),
        )
    }

    /// `-32021` with `data: {requiredCapabilities}`.
    pub fn missing_required_client_capability(required: ClientCapabilities) -> Self {
        ErrorObject::new(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(data(&MissingRequiredClientCapabilityData {
            required_capabilities: required,
        }))
    }

    /// `-32022` with `data: {supported, requested}` (`requested` [`echo`]ed).
    pub fn unsupported_protocol_version<'a>(
        supported: impl IntoIterator<Item = &'a crate::ProtocolVersion>,
        requested: &str,
    ) -> Self {
        let supported = supported
            .into_iter()
            .map(|version| version.as_str().to_owned())
            .collect();
        ErrorObject::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version").with_data(
            data(&UnsupportedProtocolVersionData {
                supported,
                requested: echo(requested).into_owned(),
            }),
        )
    }
}
