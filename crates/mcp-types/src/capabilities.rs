//! Capability objects: what a server offers and what a client declares.
//!
//! **Layer:** wire types. One struct per side holds every key any version defines, each
//! documented with the version that introduced it; [`ServerCapabilities::for_version`] drops the
//! keys a version does not know, so an adapter builds one value and emits it for the negotiated
//! version. Capabilities a resources server never interprets (sampling, elicitation, tasks, ...)
//! are kept as open JSON objects. This module must never decide what a server offers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::version::ProtocolVersion;

/// An open JSON object, for capability values whose inner keys we do not interpret.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The `resources` server capability.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Legacy: `resources/subscribe` works. Modern: `resourceSubscriptions` on listen is honored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server emits `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// A capability whose only key is `listChanged` (`tools`, `prompts`, client `roots`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The peer emits the matching `list_changed` notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// What a server offers. A resources server sets `resources`, and optionally `completions`,
/// `logging`, `experimental` and `extensions`; the other keys exist so that any server's
/// capabilities round-trip.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities (all versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<serde_json::Map<String, serde_json::Value>>,
    /// The server may send `notifications/message` (all versions; deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server answers `completion/complete` (2025-03-26 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Prompts (never offered by a resources server; kept for round-trips).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// Resources (all versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools (never offered by a resources server; kept for round-trips).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Tasks (2025-11-25 only; an extension from 2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// Extensions by identifier, such as `io.modelcontextprotocol/skills` (in the schema from
    /// 2026-07-28; declared alike in legacy `initialize` results, as SEP-2133 shows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ServerCapabilities {
    /// The same capabilities without the keys `version` does not define.
    pub fn for_version(mut self, version: &ProtocolVersion) -> Self {
        if !version.has_completions_capability() {
            self.completions = None;
        }
        if *version != ProtocolVersion::V2025_11_25 {
            self.tasks = None;
        }
        // `extensions` stays in every version: the 2026-07-28 schema defines it, and earlier
        // ones leave `ServerCapabilities` open, where SEP-2133 (Extensions) declares them in the
        // `initialize` result.
        self
    }
}

/// What a client declares. A resources server reads it (for example to answer
/// `-32021 MissingRequiredClientCapability`), but interprets none of the inner objects.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities (all versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<serde_json::Map<String, serde_json::Value>>,
    /// The client exposes roots (all versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<ListChangedCapability>,
    /// The client supports sampling (all versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
    /// The client supports elicitation (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<JsonObject>,
    /// Tasks (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// Extensions by identifier (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<serde_json::Map<String, serde_json::Value>>,
}
