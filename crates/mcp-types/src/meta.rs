//! `_meta`: the open metadata map, its reserved key names, and params that carry nothing else.
//!
//! **Layer:** wire types, below every area module: they all have a `_meta` field of this type.
//! `_meta` stays an open map on every type so unknown keys survive; this module only names the
//! keys MCP reserves. The typed request metadata of the modern era is parsed in
//! [`crate::request_meta`], which knows capabilities, implementations and log levels; this
//! module must never know them, nor decide what a missing key means for the response (that is
//! the modern adapter's job).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::jsonrpc::RequestId;

/// The `_meta` map: open, any string key, any JSON value. Unknown keys are always kept.
pub type Meta = serde_json::Map<String, Value>;

/// A progress token: a string or an integer, with the JSON type preserved (same shape as a
/// request id).
pub type ProgressToken = RequestId;

/// Request `_meta` key: the protocol version of this request (modern, required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta` key: the client capabilities for this request (modern, required).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta` key: the client's self-reported `Implementation` (modern, optional).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Request `_meta` key: opt-in to `notifications/message` at this level (modern, optional).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: the server's `Implementation` (modern, recommended on every result).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Notification and listen-result `_meta` key: the id of the `subscriptions/listen` request.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// Request `_meta` key: opt-in to `notifications/progress` (all versions).
pub const PROGRESS_TOKEN: &str = "progressToken";
/// W3C trace context keys, exempt from the prefix rule (modern).
pub const TRACEPARENT: &str = "traceparent";
/// W3C trace state key (modern).
pub const TRACESTATE: &str = "tracestate";
/// W3C baggage key (modern).
pub const BAGGAGE: &str = "baggage";

/// Params that carry only optional `_meta`: `notifications/initialized`, `ping`, and the
/// legacy `list_changed` notifications.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetaParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `_meta` with only `io.modelcontextprotocol/subscriptionId`, for notifications on a listen
/// stream and the listen close result.
pub fn subscription_meta(listen_id: &RequestId) -> Meta {
    let mut meta = Meta::new();
    meta.insert(SUBSCRIPTION_ID.into(), listen_id.to_value());
    meta
}

/// The `progressToken` of a request `_meta`, when it is a string or an integer.
pub fn progress_token(meta: &Meta) -> Option<ProgressToken> {
    meta.get(PROGRESS_TOKEN)
        .and_then(|token| RequestId::from_value(token).ok())
}
