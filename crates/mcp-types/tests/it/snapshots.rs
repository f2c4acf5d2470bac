//! Snapshots of a few representative serializations, to make any change of the wire form
//! visible in review.

use mcp_types::jsonrpc::Response;
use mcp_types::v2026_07_28::{self as v2026, CacheHints, CacheScope};
use mcp_types::{ProtocolVersion, RequestId, lifecycle, resources};

use crate::common::*;

#[test]
fn modern_list_resources_response() {
    let mut page = v2026::ListResourcesResult::new(
        vec![full_resource()],
        Some("opaque".into()),
        CacheHints {
            ttl_ms: 60_000,
            cache_scope: CacheScope::Private,
        },
    );
    let server = lifecycle::Implementation::new("mcp-resources", "0.1.0");
    page.meta = Some(lifecycle::server_info_meta(&server));
    insta::assert_json_snapshot!(
        "modern_list_resources_response",
        Response::success(RequestId::from("list-1"), page)
    );
}

#[test]
fn legacy_2024_11_05_initialize_and_list() {
    let version = ProtocolVersion::V2024_11_05;
    let initialize = lifecycle::InitializeResult {
        protocol_version: version.clone(),
        capabilities: resources_server_capabilities().for_version(&version),
        server_info: full_implementation(),
        instructions: None,
        meta: None,
    };
    insta::assert_json_snapshot!(
        "legacy_2024_11_05_initialize_result",
        shaped_initialize(&version, initialize)
    );
    let page = resources::ListResourcesResult {
        resources: vec![full_resource()],
        next_cursor: None,
        meta: None,
    };
    insta::assert_json_snapshot!("legacy_2024_11_05_list_result", shaped_list(&version, page));
}
