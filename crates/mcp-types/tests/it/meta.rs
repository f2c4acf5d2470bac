//! The typed modern request `_meta`: which required key is missing or malformed.

use mcp_types::meta;
use mcp_types::request_meta::{RequestMeta, RequestMetaError};
use mcp_types::{Meta, ProtocolVersion, RequestId};
use serde_json::json;

fn check(input: serde_json::Value, expect: Result<&str, RequestMetaError>) {
    let map: Meta = serde_json::from_value(input.clone()).expect("an object");
    let actual = RequestMeta::parse(&map);
    match (actual, expect) {
        (Ok(parsed), Ok(version)) => {
            assert_eq!(parsed.protocol_version.as_str(), version, "input: {input}");
            assert_eq!(serde_json::to_value(parsed.to_meta()).expect("json"), input);
        }
        (Err(actual), Err(expect)) => assert_eq!(actual, expect, "input: {input}"),
        (actual, expect) => panic!("input {input}: got {actual:?}, expected {expect:?}"),
    }
}

#[test]
fn parses_request_meta() {
    check(
        json!({meta::PROTOCOL_VERSION: "2026-07-28", meta::CLIENT_CAPABILITIES: {}}),
        Ok("2026-07-28"),
    );
    check(
        json!({
            meta::PROTOCOL_VERSION: "2026-07-28",
            meta::CLIENT_CAPABILITIES: {"elicitation": {}},
            meta::CLIENT_INFO: {"name": "c", "version": "1"},
            meta::LOG_LEVEL: "warning",
            meta::PROGRESS_TOKEN: 7,
            "traceparent": "00-abc-def-01",
            "com.example/other": [1, 2]
        }),
        Ok("2026-07-28"),
    );
    check(
        json!({meta::PROTOCOL_VERSION: "1900-01-01", meta::CLIENT_CAPABILITIES: {}}),
        Ok("1900-01-01"),
    );
    check(
        json!({meta::CLIENT_CAPABILITIES: {}}),
        Err(RequestMetaError::MissingProtocolVersion),
    );
    check(
        json!({meta::PROTOCOL_VERSION: "2026-07-28"}),
        Err(RequestMetaError::MissingClientCapabilities),
    );
    check(json!({}), Err(RequestMetaError::MissingProtocolVersion));
    check(
        json!({meta::PROTOCOL_VERSION: 2026, meta::CLIENT_CAPABILITIES: {}}),
        Err(RequestMetaError::Invalid {
            key: meta::PROTOCOL_VERSION,
            reason: "expected a string, got 2026".into(),
        }),
    );
    check(
        json!({meta::PROTOCOL_VERSION: "2026-07-28", meta::CLIENT_CAPABILITIES: []}),
        Err(RequestMetaError::Invalid {
            key: meta::CLIENT_CAPABILITIES,
            reason: "expected an object, got []".into(),
        }),
    );
    check(
        json!({meta::PROTOCOL_VERSION: "2026-07-28", meta::CLIENT_CAPABILITIES: {}, meta::LOG_LEVEL: "loud"}),
        Err(RequestMetaError::Invalid {
            key: meta::LOG_LEVEL,
            reason: "unknown variant `loud`, expected one of `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`".into(),
        }),
    );
}

#[test]
fn meta_helpers_keep_the_json_type_of_ids() {
    let by_number = meta::subscription_meta(&RequestId::Number(1));
    let by_string = meta::subscription_meta(&RequestId::from("1"));
    assert_eq!(by_number[meta::SUBSCRIPTION_ID], json!(1));
    assert_eq!(by_string[meta::SUBSCRIPTION_ID], json!("1"));
    let request = RequestMeta::new(ProtocolVersion::LATEST, Default::default());
    assert_eq!(
        serde_json::to_value(request.to_meta()).expect("json"),
        json!({meta::PROTOCOL_VERSION: "2026-07-28", meta::CLIENT_CAPABILITIES: {}})
    );
    assert_eq!(meta::progress_token(&by_string), None);
    let mut with_token = Meta::new();
    with_token.insert(meta::PROGRESS_TOKEN.into(), json!("t"));
    assert_eq!(
        meta::progress_token(&with_token),
        Some(RequestId::from("t"))
    );
}
