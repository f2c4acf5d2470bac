//! JSON-RPC and MCP error codes, constructors for the errors a resources server sends with the
//! `data` shape each one has on the wire, and [`echo`], the one way an error quotes what a
//! client sent.
//!
//! **Layer:** wire types. Which code answers which failure in which era (resource not found is
//! `-32002` in legacy and `-32602` in modern) is decided by the adapters; this module only makes
//! each error correctly shaped, and bounds what it echoes. It must never know the engine's error
//! types.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::capabilities::ClientCapabilities;
use crate::jsonrpc::{ErrorCode, ErrorObject};

/// `-32700`: the bytes are not valid JSON.
pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
/// `-32600`: valid JSON, not a valid JSON-RPC request (or a forbidden batch).
pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
/// `-32601`: unknown method, or a capability the server did not advertise.
pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
/// `-32602`: invalid params, invalid cursor, missing modern `_meta` key, and (modern) resource
/// not found.
pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
/// `-32603`: internal error.
pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
/// `-32002`: resource not found (legacy era only; modern servers must not send it).
pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
/// `-32020`: an HTTP header is missing, malformed or disagrees with the body (modern).
pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
/// `-32021`: the request needs a client capability it did not declare (modern).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
/// `-32022`: the requested protocol version is not supported (modern).
pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

/// The most bytes of one value from the client that an error quotes: 1 KiB, so that the URIs
/// people and tools write come back whole (clients match `data.uri` against what they asked
/// for), while an error never grows with what a peer sends.
pub const ECHO_LIMIT: usize = 1024;

/// `value`, sent by a client, as an error message or `data` may quote it: whole when it is at
/// most [`ECHO_LIMIT`] bytes; else its start, cut on a character boundary, then `…` and how long
/// it was, for example `test://aaaa… (cut from 1048576 bytes)`, all of it within
/// [`ECHO_LIMIT`] bytes. So an echo of an echo is the echo itself.
///
/// ```
/// use mcp_types::error::{ECHO_LIMIT, echo};
///
/// assert_eq!(echo("file:///notes.txt"), "file:///notes.txt");
/// let long = "x".repeat(1 << 20);
/// let echoed = echo(&long);
/// assert!(echoed.len() <= ECHO_LIMIT);
/// assert!(echoed.ends_with("… (cut from 1048576 bytes)"));
/// assert_eq!(echo(&echoed), echoed);
/// ```
pub fn echo(value: &str) -> Cow<'_, str> {
    if value.len() <= ECHO_LIMIT {
        return Cow::Borrowed(value);
    }
    let marker = format!("… (cut from {} bytes)", value.len());
    let mut end = ECHO_LIMIT - marker.len();
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}{marker}", &value[..end]))
}

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
    /// `-32700` Parse error.
    pub fn parse_error(detail: impl Into<String>) -> Self {
        ErrorObject::new(PARSE_ERROR, format!("Parse error: {}", detail.into()))
    }

    /// `-32600` Invalid Request.
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        ErrorObject::new(
            INVALID_REQUEST,
            format!("Invalid Request: {}", detail.into()),
        )
    }

    /// `-32601` Method not found, naming the method ([`echo`]ed).
    pub fn method_not_found(method: &str) -> Self {
        ErrorObject::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", echo(method)),
        )
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ErrorObject::new(INVALID_PARAMS, message)
    }

    /// `-32603` Internal error.
    pub fn internal_error(message: impl Into<String>) -> Self {
        ErrorObject::new(INTERNAL_ERROR, message)
    }

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

#[cfg(test)]
mod tests {
    use super::{ECHO_LIMIT, echo};

    /// The echo of `value`: whole, or cut to `kept` bytes of it and marked.
    fn check(value: &str, kept: Option<usize>) {
        let echoed = echo(value);
        assert!(echoed.len() <= ECHO_LIMIT, "{} bytes", echoed.len());
        assert_eq!(echo(&echoed), echoed, "an echo is echoed unchanged");
        match kept {
            None => assert_eq!(echoed, value),
            Some(kept) => {
                assert_eq!(&echoed[..kept], &value[..kept]);
                assert_eq!(
                    &echoed[kept..],
                    format!("… (cut from {} bytes)", value.len())
                );
            }
        }
    }

    #[test]
    fn echoes_are_bounded_on_a_character_boundary() {
        check("", None);
        check("test://static-text", None);
        check(&"a".repeat(ECHO_LIMIT), None);
        let marker = "… (cut from 1025 bytes)".len();
        check(&"a".repeat(ECHO_LIMIT + 1), Some(ECHO_LIMIT - marker));
        // Three-byte characters: the cut falls before the one the limit would split.
        let wide = "€".repeat(400);
        let room = ECHO_LIMIT - "… (cut from 1200 bytes)".len();
        check(&wide, Some(room - room % 3));
        check(
            &"x".repeat(1 << 20),
            Some(ECHO_LIMIT - "… (cut from 1048576 bytes)".len()),
        );
    }
}
