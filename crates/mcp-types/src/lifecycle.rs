//! Lifecycle: `Implementation`, the legacy `initialize` handshake, `ping`'s empty result, the
//! modern `server/discover` exchange, and the `serverInfo` every modern result's `_meta` carries
//! ([`server_info_meta`]).
//!
//! **Layer:** wire types, above [`crate::meta`] (whose [`MetaParams`] it re-exports).
//! `Implementation` grew over the versions, so the handshake types are generic over it and each
//! revision module names its own instance (for example
//! [`crate::v2024_11_05::InitializeResult`]). This module must never know session state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::capabilities::{ClientCapabilities, ServerCapabilities};
pub use crate::meta::MetaParams;
use crate::meta::{Meta, SERVER_INFO};
use crate::resources::Icon;
use crate::version::ProtocolVersion;

/// Name and version of an MCP implementation, in its newest shape (2025-11-25 on).
///
/// Older shapes: [`crate::v2024_11_05::Implementation`] (name, version) and
/// [`crate::v2025_06_18::Implementation`] (+ title).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// Human-readable description (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Website (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with a name and a version only.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            title: None,
            version: version.into(),
            description: None,
            icons: None,
            website_url: None,
        }
    }
}

/// `_meta` with only `io.modelcontextprotocol/serverInfo`, for modern results.
pub fn server_info_meta(server_info: &Implementation) -> Meta {
    let mut meta = Meta::new();
    // An `Implementation` is strings and a list of icons: its conversion cannot fail.
    let info = serde_json::to_value(server_info).unwrap_or(serde_json::Value::Null);
    meta.insert(SERVER_INFO.into(), info);
    meta
}

/// Params of `initialize` (legacy era), generic over the version's `Implementation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams<I = Implementation> {
    /// The newest version the client supports.
    pub protocol_version: ProtocolVersion,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: I,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `initialize` (legacy era), generic over the version's `Implementation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult<I = Implementation> {
    /// The version the server chose for the session.
    pub protocol_version: ProtocolVersion,
    /// What the server offers (shape it with [`ServerCapabilities::for_version`]).
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: I,
    /// Guidance for the client's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl<I> InitializeResult<I> {
    /// The same result with `serverInfo` converted to an older `Implementation` shape.
    pub fn into_version<J: From<I>>(self) -> InitializeResult<J> {
        InitializeResult {
            protocol_version: self.protocol_version,
            capabilities: self.capabilities,
            server_info: self.server_info.into(),
            instructions: self.instructions,
            meta: self.meta,
        }
    }
}

/// The legacy empty result (`ping`, `resources/subscribe`, `resources/unsubscribe`,
/// `logging/setLevel`): `{}` with optional `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
