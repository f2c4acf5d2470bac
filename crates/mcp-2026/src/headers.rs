//! The Streamable HTTP request headers of 2026-07-28 checked against the body:
//! `MCP-Protocol-Version` against `_meta`, `Mcp-Method` against `method`, `Mcp-Name` against
//! `params.uri` for `resources/read`.
//!
//! **Layer:** adapter, a pure function for the binary's HTTP layer. Header names compare
//! case-insensitively, values case-sensitively after decoding the `=?base64?…?=` form. This
//! module must never know an HTTP library: the binary fills a [`RequestHeaders`] view from
//! whatever header map it has.

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_types::error::echo;
use mcp_types::jsonrpc::{RawValue, Request};
use mcp_types::meta::PROTOCOL_VERSION;
use mcp_types::method;

/// `MCP-Protocol-Version`: the body's `_meta` protocol version (required on every request).
pub const PROTOCOL_VERSION_HEADER: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: the body's `method` (required on every request).
pub const METHOD_HEADER: &str = "Mcp-Method";
/// `Mcp-Name`: the body's `params.uri` for `resources/read`, `params.name` for `tools/call`
/// (required there).
pub const NAME_HEADER: &str = "Mcp-Name";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// A read-only view of a request's headers: name and raw value pairs, in any case, as the HTTP
/// layer received them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestHeaders<'a> {
    pairs: Vec<(&'a str, &'a [u8])>,
}

impl<'a> RequestHeaders<'a> {
    /// No headers.
    pub fn new() -> RequestHeaders<'a> {
        RequestHeaders::default()
    }

    /// No headers yet, with room for `capacity` of them.
    pub fn with_capacity(capacity: usize) -> RequestHeaders<'a> {
        RequestHeaders {
            pairs: Vec::with_capacity(capacity),
        }
    }

    /// Adds one header as received (a repeated name is kept twice).
    pub fn push(&mut self, name: &'a str, value: &'a [u8]) {
        self.pairs.push((name, value));
    }
}

impl<'a> FromIterator<(&'a str, &'a [u8])> for RequestHeaders<'a> {
    fn from_iter<I: IntoIterator<Item = (&'a str, &'a [u8])>>(iter: I) -> Self {
        RequestHeaders {
            pairs: iter.into_iter().collect(),
        }
    }
}

/// Why the headers do not agree with the body (answered with `-32020`, HTTP 400).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// A required header is absent.
    #[error("missing required header {0}")]
    Missing(&'static str),
    /// A header is given more than once.
    #[error("header {0} is given more than once")]
    Repeated(&'static str),
    /// A header value has characters a header may not carry, or a base64 form that does not
    /// decode to UTF-8.
    #[error("header {header} is malformed: {reason}")]
    Malformed {
        /// The header.
        header: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A header differs from the body. The message quotes both values
    /// [`echo`]ed, whatever their length.
    #[error(
        "header {header} is {:?} but the body says {:?}",
        echo(.header_value),
        echo(.body_value)
    )]
    Differs {
        /// The header.
        header: &'static str,
        /// The decoded header value (echoed, when this module made the error).
        header_value: String,
        /// What the body says, empty when the body has no such value (echoed, when this
        /// module made the error).
        body_value: String,
    },
}

/// Checks the headers of a modern request against its body. See
/// [`Handler::check_headers`](crate::Handler::check_headers).
pub(crate) fn check(headers: &RequestHeaders<'_>, request: &Request) -> Result<(), HeaderError> {
    /// The members of an object as raw JSON, read no further: a member no value type can hold
    /// (a lone surrogate, a number out of range) changes nothing; of a repeated key the last
    /// counts. `None` for anything but an object.
    fn members(json: &str) -> Option<BTreeMap<Cow<'_, str>, &RawValue>> {
        // A derived map takes an object only; params given by position have no members.
        serde_json::from_str(json).ok()
    }
    /// A member as a string, or nothing when it is not one.
    fn text(raw: Option<&&RawValue>) -> Option<String> {
        raw.and_then(|raw| serde_json::from_str(raw.get()).ok())
    }
    let params = request
        .params
        .as_deref()
        .and_then(|params| members(params.get()));
    let body_version = params
        .as_ref()
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| members(meta.get()))
        .and_then(|meta| text(meta.get(PROTOCOL_VERSION)))
        .unwrap_or_default();
    // `Mcp-Name` names a read's `uri` and a tool call's `name`.
    let name_member = match request.method.as_str() {
        method::RESOURCES_READ => Some("uri"),
        method::TOOLS_CALL => Some("name"),
        _ => None,
    };
    let body_name = name_member.map(|member| {
        params
            .as_ref()
            .and_then(|params| text(params.get(member)))
            .unwrap_or_default()
    });
    check_parts(
        headers,
        &body_version,
        &request.method,
        body_name.as_deref(),
    )
}

/// [`check`] against what the body says, already read: the version in `_meta` (empty when
/// there is none), the method, and for `resources/read` the `uri` (empty when there is none).
pub(crate) fn check_parts(
    headers: &RequestHeaders<'_>,
    body_version: &str,
    method: &str,
    body_uri: Option<&str>,
) -> Result<(), HeaderError> {
    let [version, method_value, name] = Found::scan(headers);
    compare(version, PROTOCOL_VERSION_HEADER, body_version)?;
    compare(method_value, METHOD_HEADER, method)?;
    if let Some(body_uri) = body_uri {
        compare(name, NAME_HEADER, body_uri)?;
    }
    Ok(())
}

/// What the headers hold of one checked header: nothing, one value, or more than one.
#[derive(Clone, Copy)]
enum Found<'v> {
    None,
    One(&'v [u8]),
    Repeated,
}

impl<'v> Found<'v> {
    /// `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, in one pass over the headers.
    fn scan(headers: &RequestHeaders<'v>) -> [Found<'v>; 3] {
        let mut found = [Found::None; 3];
        for &(name, value) in &headers.pairs {
            let index = [PROTOCOL_VERSION_HEADER, METHOD_HEADER, NAME_HEADER]
                .iter()
                .position(|header| name.eq_ignore_ascii_case(header));
            if let Some(index) = index {
                found[index] = match found[index] {
                    Found::None => Found::One(value),
                    Found::One(_) | Found::Repeated => Found::Repeated,
                };
            }
        }
        found
    }
}

fn compare(found: Found<'_>, header: &'static str, body: &str) -> Result<(), HeaderError> {
    let raw = match found {
        Found::None => return Err(HeaderError::Missing(header)),
        Found::Repeated => return Err(HeaderError::Repeated(header)),
        Found::One(raw) => raw,
    };
    // The usual case: the header holds what the body says, as it is, in visible ASCII (not the
    // `=?base64?` form), which is exactly what decoding would find equal.
    if raw == body.as_bytes()
        && !raw.starts_with(SENTINEL_START.as_bytes())
        && raw.iter().all(|byte| matches!(byte, 0x21..=0x7e))
    {
        return Ok(());
    }
    let value = decode(header, raw)?;
    if value == body {
        Ok(())
    } else {
        Err(HeaderError::Differs {
            header,
            header_value: echo(&value).into_owned(),
            body_value: echo(body).into_owned(),
        })
    }
}

/// The header's text: visible ASCII and inner spaces only, surrounding whitespace dropped, the
/// `=?base64?…?=` form decoded. Borrowed unless it was encoded.
fn decode<'v>(header: &'static str, raw: &'v [u8]) -> Result<Cow<'v, str>, HeaderError> {
    let malformed = |reason| HeaderError::Malformed { header, reason };
    let trimmed = raw.trim_ascii();
    if !trimmed
        .iter()
        .all(|byte| matches!(byte, b' ' | b'\t' | 0x21..=0x7e))
    {
        return Err(malformed("it holds characters outside visible ascii"));
    }
    // Only visible ASCII and blanks are left, so this is valid UTF-8.
    let text =
        Cow::Borrowed(std::str::from_utf8(trimmed).map_err(|_| malformed("it is not utf-8"))?);
    let Some(encoded) = text
        .strip_prefix(SENTINEL_START)
        .and_then(|rest| rest.strip_suffix(SENTINEL_END))
    else {
        return Ok(text);
    };
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|_| malformed("its =?base64?...?= form is not valid base64"))?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| malformed("its =?base64?...?= form is not utf-8"))
}
