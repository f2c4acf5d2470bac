//! The domain model: timestamps, priorities, bodies and the in-memory provider's contract.

use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::provider::{ListRequest, Provider};
use mcp_resources_core::resource::{Body, ByteRange, Priority, Resource, Timestamp};

use crate::fixtures::{run, text_resource, uri, uris};

/// Whether `input` is accepted as an RFC 3339 timestamp.
fn check(input: &str, expect: bool) {
    assert_eq!(Timestamp::parse(input).is_ok(), expect, "{input:?}");
}

#[test]
fn timestamps_are_rfc3339_date_times() {
    let table = [
        ("2025-01-12T15:00:58Z", true),
        ("2025-01-12t15:00:58z", true),
        ("2025-01-12T15:00:58.123456Z", true),
        ("2025-01-12T15:00:58+01:00", true),
        ("1985-04-12T23:20:50.52-04:00", true),
        ("1990-12-31T23:59:60Z", true),
        ("2025-01-12", false),
        ("2025-01-12T15:00:58", false),
        ("2025-01-12 15:00:58Z", false),
        ("2025-13-12T15:00:58Z", false),
        ("2025-00-12T15:00:58Z", false),
        ("2025-01-00T15:00:58Z", false),
        ("2025-01-12T24:00:00Z", false),
        ("2025-01-12T15:00:58.Z", false),
        ("2025-01-12T15:00:58+0100", false),
        ("2025-01-12T15:00:58Zjunk", false),
        ("", false),
    ];
    for (input, expect) in table {
        check(input, expect);
    }
    let error = Timestamp::parse("yesterday").unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"yesterday\" is not an RFC 3339 date-time such as 2025-01-12T15:00:58Z"
    );
}

#[test]
fn timestamps_format_from_unix_seconds() {
    let table = [
        (0, "1970-01-01T00:00:00Z"),
        (1_736_694_058, "2025-01-12T15:00:58Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (i64::MAX, "9999-12-31T23:59:59Z"),
        (i64::MIN, "0000-01-01T00:00:00Z"),
    ];
    for (seconds, expect) in table {
        let timestamp = Timestamp::from_unix_seconds(seconds);
        assert_eq!(timestamp.as_str(), expect, "{seconds}");
        assert_eq!(Timestamp::parse(expect).unwrap(), timestamp);
    }
}

#[test]
fn priorities_are_between_zero_and_one() {
    assert_eq!(Priority::new(0.0).unwrap().get(), 0.0);
    assert_eq!(Priority::new(1.0).unwrap().get(), 1.0);
    assert!(Priority::new(1.01).is_err());
    assert!(Priority::new(-0.1).is_err());
    assert!(Priority::new(f64::NAN).is_err());
    assert_eq!(
        Priority::new(2.0).unwrap_err().to_string(),
        "priority 2 is not a number between 0 and 1"
    );
}

#[test]
fn bodies_slice_by_bytes() {
    let text = Body::Text("añb".into());
    let range = |offset, length| ByteRange { offset, length };
    assert_eq!(text.len(), 4);
    assert_eq!(text.slice(range(0, 4)), Some(Body::Text("añb".into())));
    assert_eq!(text.slice(range(1, 2)), Some(Body::Text("ñ".into())));
    assert_eq!(text.slice(range(2, 2)), None);
    assert_eq!(text.slice(range(3, u64::MAX)), Some(Body::Text("b".into())));
    assert_eq!(text.slice(range(9, 1)), Some(Body::Text("".into())));
    let bytes = Body::Bytes(vec![1, 2, 3].into());
    assert_eq!(bytes.slice(range(1, 1)), Some(Body::Bytes(vec![2].into())));
    assert!(Body::Bytes(Vec::new().into()).is_empty());
}

#[test]
fn the_memory_provider_lists_in_order_after_a_key_within_a_limit() {
    let memory = MemoryProvider::new();
    for text in ["mem:///c", "mem:///a", "mem:///b", "mem:///d"] {
        let (resource, contents) = text_resource(text, "x");
        assert!(!memory.insert(resource, contents));
    }
    let anyone = Principal::anonymous();
    let list = |after, limit| {
        run(memory.list(ListRequest {
            principal: &anyone,
            after,
            limit,
        }))
        .unwrap()
    };
    assert_eq!(
        uris(&list(None, 10)),
        ["mem:///a", "mem:///b", "mem:///c", "mem:///d"]
    );
    assert_eq!(uris(&list(Some("mem:///a"), 2)), ["mem:///b", "mem:///c"]);
    assert_eq!(uris(&list(Some("mem:///bb"), 10)), ["mem:///c", "mem:///d"]);
    assert!(list(Some("mem:///d"), 10).is_empty());
    assert!(list(None, 0).is_empty());

    assert!(memory.insert(Resource::new(uri("mem:///a"), "again"), Vec::new()));
    assert_eq!(memory.len(), 4);
    assert!(memory.remove("mem:///a") && !memory.remove("mem:///a"));
    assert!(!memory.claims(&uri("mem:///a")) && memory.claims(&uri("mem:///b")));
    let prefixed = MemoryProvider::new().with_prefix("mem:///notes/");
    assert!(prefixed.is_empty());
    assert!(prefixed.claims(&uri("mem:///notes/unknown")) && !prefixed.claims(&uri("mem:///b")));
}

proptest::proptest! {
    /// The wire length of a text is what serde_json writes, quotes left out.
    #[test]
    fn the_wire_length_of_a_text_is_what_serde_json_writes(
        text in "(?s:.{0,64})|[\u{0}-\u{7f}]{0,64}"
    ) {
        let written = serde_json::to_string(&text).unwrap().len() as u64 - 2;
        let body = mcp_resources_core::resource::Body::Text(text.as_str().into());
        proptest::prop_assert_eq!(body.wire_len(0), written);
    }
}
