//! Era selection: which adapter serves an incoming message, legacy (`mcp-legacy-2025`, one
//! session per stdio process or HTTP session) or modern (`mcp-2026`, stateless per request).
//!
//! **Layer:** server. Two small pure functions, [`route_stdio`] and [`route_http`], decide from
//! a summary of the message ([`StdioMessage`], [`HttpMessage`]) and the transport's state; the
//! transports carry the decision out. This is the one place where both eras are weighed against
//! each other. It never parses bytes beyond [`has_modern_meta`], holds no state and does no I/O.
//!
//! # stdio (2026-07-28 Basic › Versioning, Basic › Transports › stdio)
//!
//! 1. `initialize` selects legacy: the process's session is made if there is none (a second
//!    `initialize` goes to that session, which refuses it).
//! 2. A request whose `params._meta` has `io.modelcontextprotocol/protocolVersion` is modern.
//! 3. Any other request goes to the legacy session if one exists, else to the modern adapter,
//!    which answers `-32602` for the missing `_meta`.
//! 4. `notifications/cancelled` for a modern request in flight cancels it (for a listen stream
//!    it ends the stream); any other notification, and responses, go to the legacy session if
//!    there is one and are ignored otherwise.
//! 5. A batch goes to the legacy session (which accepts it only under 2025-03-26); without one
//!    it is rejected with `-32600`. A line that does not decode is answered `-32700`/`-32600`
//!    by the transport itself, unless it was meant as a notification or a response, which
//!    JSON-RPC never answers (`DecodeError::is_answered`): it is dropped.
//!
//! # Streamable HTTP (2026-07-28 Basic › Versioning, Basic › Transports › Streamable HTTP; after the
//! `Origin` check and authorization)
//!
//! With H the `MCP-Protocol-Version` header and M the body's
//! `_meta["io.modelcontextprotocol/protocolVersion"]`:
//!
//! 1. a batch goes to the legacy path, unless H names a modern version (rejected: `-32600`);
//! 2. `initialize` is legacy whatever the headers say;
//! 3. H and M both present and different: `400` with `-32020`;
//! 4. H modern, or H absent and M present: modern path;
//! 5. H a legacy version, or absent: legacy path (absent means 2025-03-26);
//! 6. H unknown: `400` with `-32022`.

use std::sync::LazyLock;

use mcp_types::jsonrpc::Request;
use mcp_types::{Era, ProtocolVersion, meta, method};
use memchr::memmem;
use serde::Deserialize;
use serde_json::value::RawValue;

/// What [`route_stdio`] needs to know about one decoded stdio line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdioMessage<'a> {
    /// A request.
    Request {
        /// Its method.
        method: &'a str,
        /// Whether its `params._meta` has `io.modelcontextprotocol/protocolVersion`
        /// ([`has_modern_meta`]).
        modern_meta: bool,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: &'a str,
        /// For `notifications/cancelled`: whether its `requestId` names a modern request still
        /// in flight on this transport (a listen stream included).
        cancels_modern: bool,
    },
    /// A response (the client answering a server request).
    Response,
    /// A JSON-RPC batch (an array).
    Batch,
}

/// Where a stdio message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdioRoute {
    /// To the process's legacy session, made first if there is none yet.
    Legacy,
    /// To the modern adapter, as a new stateless exchange.
    Modern,
    /// Cancel the modern exchange whose id the `notifications/cancelled` names.
    CancelModern,
    /// Answer `-32600` (a batch with no legacy session to take it).
    RejectBatch,
    /// Nothing to do.
    Ignore,
}

/// Decides where one stdio message goes; `legacy_session` tells whether the process already has
/// a legacy session (an `initialize` was received).
pub fn route_stdio(message: StdioMessage<'_>, legacy_session: bool) -> StdioRoute {
    match message {
        StdioMessage::Request { method, .. } if method == method::INITIALIZE => StdioRoute::Legacy,
        StdioMessage::Request {
            modern_meta: true, ..
        } => StdioRoute::Modern,
        StdioMessage::Request { .. } if legacy_session => StdioRoute::Legacy,
        StdioMessage::Request { .. } => StdioRoute::Modern,
        StdioMessage::Notification {
            method,
            cancels_modern: true,
        } if method == method::NOTIFICATION_CANCELLED => StdioRoute::CancelModern,
        StdioMessage::Notification { .. } | StdioMessage::Response | StdioMessage::Batch
            if legacy_session =>
        {
            StdioRoute::Legacy
        }
        StdioMessage::Batch => StdioRoute::RejectBatch,
        StdioMessage::Notification { .. } | StdioMessage::Response => StdioRoute::Ignore,
    }
}

/// What [`route_http`] needs to know about one POST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpMessage<'a> {
    /// Whether the body is a JSON-RPC batch.
    pub batch: bool,
    /// Whether the body is an `initialize` request.
    pub initialize: bool,
    /// The `MCP-Protocol-Version` header, if present.
    pub header_version: Option<&'a str>,
    /// The body's `_meta["io.modelcontextprotocol/protocolVersion"]`, if present.
    pub meta_version: Option<&'a str>,
}

/// Where a POST goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpRoute {
    /// The legacy path: session lookup (or creation, for `initialize`), then the session.
    Legacy,
    /// The modern path: header checks, then a stateless exchange.
    Modern,
    /// `400` with `-32020`: the header and the body name different versions.
    RejectVersionMismatch,
    /// `400` with `-32022`: the header names a version this server does not know.
    RejectUnsupportedVersion,
    /// `400` with `-32600`: a batch under a modern version.
    RejectBatch,
}

/// Decides where one POST goes (after the `Origin` check and authorization).
pub fn route_http(message: HttpMessage<'_>) -> HttpRoute {
    let header_era = message
        .header_version
        .map(|header| ProtocolVersion::from(header).era());
    if message.batch {
        return match header_era {
            Some(Some(Era::Modern)) => HttpRoute::RejectBatch,
            _ => HttpRoute::Legacy,
        };
    }
    if message.initialize {
        return HttpRoute::Legacy;
    }
    match (message.header_version, message.meta_version) {
        (Some(header), Some(body)) if header != body => HttpRoute::RejectVersionMismatch,
        (None, Some(_)) => HttpRoute::Modern,
        (None, None) => HttpRoute::Legacy,
        (Some(_), _) => match header_era {
            Some(Some(Era::Modern)) => HttpRoute::Modern,
            Some(Some(Era::Legacy)) => HttpRoute::Legacy,
            _ => HttpRoute::RejectUnsupportedVersion,
        },
    }
}

/// Whether an `MCP-Protocol-Version` header names a version of the 2026-07-28 era: every
/// modern request that passes the adapter's header checks carries one, and with one,
/// [`route_http`] routes a single request other than `initialize` to the modern era or refuses
/// it (its `_meta` names another version), never to the legacy era.
pub fn header_is_modern(header_version: Option<&str>) -> bool {
    header_version.is_some_and(|header| ProtocolVersion::from(header).era() == Some(Era::Modern))
}

/// Whether `request.params._meta` has `io.modelcontextprotocol/protocolVersion` (whatever its
/// value: the modern adapter validates it).
pub fn has_modern_meta(request: &Request) -> bool {
    let Some(raw) = request.params.as_deref() else {
        return false;
    };
    // Every legacy request pays for this test: without the key's text (and without an escape
    // that could spell it differently) there is nothing to parse.
    // The searcher for the key is built once, not on every request.
    static KEY: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(meta::PROTOCOL_VERSION));
    let text = raw.get().as_bytes();
    if KEY.find(text).is_none() && memchr::memchr(b'\\', text).is_none() {
        return false;
    }
    meta_version_value(raw).is_some()
}

/// The string value of `request.params._meta["io.modelcontextprotocol/protocolVersion"]`;
/// `Some("")` when the key is there but is not a string (so that it still counts as modern).
pub fn modern_meta_version(request: &Request) -> Option<String> {
    let value = meta_version_value(request.params.as_deref()?)?;
    Some(serde_json::from_str::<String>(value.get()).unwrap_or_default())
}

/// The raw JSON value of the protocol version key in `params._meta`, if there is one.
fn meta_version_value(params: &RawValue) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<MetaVersion<'a>>,
    }
    #[derive(Deserialize)]
    struct MetaVersion<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
        version: Option<&'a RawValue>,
    }
    const _: &str = meta::PROTOCOL_VERSION;
    // `_meta` is a member of params given by name; params given by position have none (a
    // derived struct would take the first element for it).
    if !params.get().starts_with('{') {
        return None;
    }
    let params: Params<'_> = serde_json::from_str(params.get()).ok()?;
    params.meta?.version
}
