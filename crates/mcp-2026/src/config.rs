//! The configuration of the modern adapter: who the server is, what it offers, which legacy
//! versions it also speaks, and how long a discovery answer stays fresh.
//!
//! **Layer:** adapter. Plain data, filled by the binary from its validated configuration and
//! from [`Service::offer`](mcp_resources_core::service::Service::offer). It must never know a
//! transport or the legacy adapter itself (the legacy versions are only names to list).

use std::sync::Arc;

use mcp_resources_core::service::Offer;
use mcp_types::jsonrpc::RawValue;
use mcp_types::v2026_07_28::Implementation;
use mcp_types::{ProtocolVersion, lifecycle};

/// How the modern adapter presents the server. Every value is valid, so the fields are public.
#[derive(Clone, Debug, PartialEq)]
pub struct ModernConfig {
    /// The server's identity, sent in every result's `_meta` under
    /// `io.modelcontextprotocol/serverInfo`.
    pub server_info: Implementation,
    /// Guidance for the client's model, sent by `server/discover` when set.
    pub instructions: Option<String>,
    /// What the service offers (from `Service::offer`): drives the discovered capabilities,
    /// whether `completion/complete` exists, and what a listen stream may acknowledge.
    pub offer: Offer,
    /// The legacy versions the same server also speaks (through `initialize`), listed after
    /// `2026-07-28` in `supportedVersions` and in the `-32022` error's `data.supported`. A modern
    /// request naming one of them is still answered with `-32022`.
    pub legacy_versions: Vec<ProtocolVersion>,
    /// The `ttlMs` of the `server/discover` result.
    pub discover_ttl_ms: u64,
    /// Whether every cacheable result (discover, both lists, reads) says
    /// `cacheScope: "private"`, whatever the core's hint. Set it when who asks decides what is
    /// answered, or whether anything is (a policy whose decisions depend on the principal, HTTP
    /// authorization), so that no shared cache hands one caller's answer to another.
    pub private_results: bool,
}

impl ModernConfig {
    /// A configuration offering everything, listing the four legacy versions, with no
    /// instructions, a discovery ttl of one hour, and results private only as the core's hints
    /// say.
    pub fn new(server_info: Implementation) -> ModernConfig {
        ModernConfig {
            server_info,
            instructions: None,
            offer: Offer::default(),
            legacy_versions: vec![
                ProtocolVersion::V2025_11_25,
                ProtocolVersion::V2025_06_18,
                ProtocolVersion::V2025_03_26,
                ProtocolVersion::V2024_11_05,
            ],
            discover_ttl_ms: 3_600_000,
            private_results: false,
        }
    }

    /// Every version the server speaks: `2026-07-28` first, then the legacy ones, without
    /// duplicates.
    pub fn supported_versions(&self) -> Vec<ProtocolVersion> {
        let mut versions = vec![ProtocolVersion::V2026_07_28];
        for version in &self.legacy_versions {
            if !versions.contains(version) {
                versions.push(version.clone());
            }
        }
        versions
    }
}

/// What every exchange of one [`Handler`](crate::Handler) shares: the configuration, and what is
/// encoded once from it rather than for every response.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The configuration the handler was made with.
    pub(crate) config: Arc<ModernConfig>,
    /// `{"io.modelcontextprotocol/serverInfo": …}`, the `_meta` of every result, as JSON.
    pub(crate) result_meta: Box<RawValue>,
}

impl Shared {
    pub(crate) fn new(config: Arc<ModernConfig>) -> Shared {
        let result_meta =
            serde_json::value::to_raw_value(&lifecycle::server_info_meta(&config.server_info))
                .expect("invariant: a json map always serializes");
        Shared {
            config,
            result_meta,
        }
    }
}
