//! Core caching hints to 2026-07-28 wire hints: the one conversion only this era has (the
//! others, shared with the legacy era, are `mcp-resources-wire`'s).
//!
//! **Layer:** adapter, the `to_wire` side. A plain conversion with no decision in it beyond the
//! configuration's `private_results`; this module must never know a request, a stream or an
//! error code.

use mcp_resources_core::cache::{CacheHint, CacheScope};
use mcp_types::v2026_07_28 as wire;

/// The wire caching hints of a core hint; private whatever the hint says when `all_private`
/// ([`ModernConfig::private_results`](crate::ModernConfig::private_results)).
pub(crate) fn cache_hints(hint: CacheHint, all_private: bool) -> wire::CacheHints {
    wire::CacheHints {
        ttl_ms: hint.ttl_ms,
        cache_scope: match hint.scope {
            CacheScope::Public if !all_private => wire::CacheScope::Public,
            CacheScope::Public | CacheScope::Private => wire::CacheScope::Private,
        },
    }
}
