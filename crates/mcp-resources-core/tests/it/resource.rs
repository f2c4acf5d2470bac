//! The domain model: timestamps, priorities, bodies and the in-memory provider's contract.

use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::provider::{ListRequest, Provider, ReadRequest};
use mcp_resources_core::resource::{Body, ByteRange, Contents, Priority, Resource, Timestamp};

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

/// What `contents` gives for an encoding of type `String`, and how many times it was encoded.
fn encode_string(contents: &Contents, calls: &mut usize) -> Option<String> {
    contents
        .memoized_encoding(|body| {
            *calls += 1;
            format!("encoded {}", body.len())
        })
        .cloned()
}

#[test]
fn an_encoding_memo_is_filled_once_and_shared_by_clones() {
    let mut calls = 0;
    let fresh = Contents::text(uri("mem:///a"), "abc");
    assert!(!fresh.encoding.is_enabled());
    assert_eq!(encode_string(&fresh, &mut calls), None);
    let kept = fresh.with_encoding_memo();
    let clone = kept.clone();
    assert_eq!(
        encode_string(&kept, &mut calls).as_deref(),
        Some("encoded 3")
    );
    assert_eq!(
        encode_string(&clone, &mut calls).as_deref(),
        Some("encoded 3")
    );
    assert_eq!(calls, 1);
    assert!(clone.encoding.is_filled());
    // Another type than the one stored is not an encoding of this memo.
    assert_eq!(kept.memoized_encoding(|_| 7_u32), None);
    // The memo is no part of the value.
    assert_eq!(kept, Contents::text(uri("mem:///a"), "abc"));
}

#[test]
fn an_encoding_memo_never_answers_for_another_body() {
    let mut calls = 0;
    let kept = Contents::text(uri("mem:///a"), "abc").with_encoding_memo();
    assert!(encode_string(&kept, &mut calls).is_some());
    let mut replaced = kept.clone();
    replaced.body = Body::Text("abcdef".into());
    assert_eq!(encode_string(&replaced, &mut calls), None);
    // Equal text in another allocation is another body too.
    replaced.body = Body::Text("abc".into());
    assert_eq!(encode_string(&replaced, &mut calls), None);
    assert_eq!(calls, 1);
}

#[test]
fn static_and_memory_blobs_keep_an_encoding_memo_and_texts_and_ranges_do_not() {
    let image = uri("mem:///image");
    let notes = uri("mem:///notes");
    let engine = mcp_resources_core::engine::Engine::builder(crate::fixtures::key())
        .static_resource(
            Resource::new(image.clone(), "image"),
            vec![Contents::bytes(image.clone(), b"hello".to_vec())],
        )
        .static_resource(
            Resource::new(notes.clone(), "notes"),
            vec![Contents::text(notes.clone(), "text")],
        )
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let text = run(engine.read(&anyone, &notes)).unwrap();
    assert!(!text.contents[0].encoding.is_enabled());
    let whole = run(engine.read(&anyone, &image)).unwrap();
    assert!(whole.contents[0].encoding.is_enabled());
    let range = ByteRange {
        offset: 1,
        length: 2,
    };
    let part = run(engine.read_range(&anyone, &image, range)).unwrap();
    assert!(!part.contents[0].encoding.is_enabled());

    let memory = MemoryProvider::new();
    memory.insert(
        Resource::new(image.clone(), "image"),
        vec![Contents::bytes(image.clone(), b"hello".to_vec())],
    );
    memory.insert(
        Resource::new(notes.clone(), "notes"),
        vec![Contents::text(notes.clone(), "text")],
    );
    let request = |range| ReadRequest {
        principal: &anyone,
        uri: &image,
        template: None,
        variables: None,
        range,
    };
    let held = run(memory.read(request(None))).unwrap().unwrap();
    assert!(held[0].encoding.is_enabled());
    let text = ReadRequest {
        uri: &notes,
        ..request(None)
    };
    assert!(
        !run(memory.read(text)).unwrap().unwrap()[0]
            .encoding
            .is_enabled()
    );
    let part = run(memory.read(request(Some(range)))).unwrap().unwrap();
    assert!(!part[0].encoding.is_enabled());
}
