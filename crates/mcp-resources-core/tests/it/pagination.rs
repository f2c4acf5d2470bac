//! Pagination: cursor codec, page walks across sources, filtering before paging, and a
//! model-based property test of stability under mutation between pages.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroUsize;
use std::sync::Arc;

use mcp_resources_core::engine::{Engine, EngineBuilder, Limits};
use mcp_resources_core::error::ListError;
use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::pagination::{CursorCodec, CursorError, CursorKey, Position};
use mcp_resources_core::policy::{
    Action, ActionSet, Grantee, PatternPolicy, Principal, UriPattern,
};
use mcp_resources_core::resource::Resource;
use proptest::prelude::*;

use crate::fixtures::{key, run, text_resource, uri, uris};

fn limits(page_size: usize) -> Limits {
    Limits {
        page_size: NonZeroUsize::new(page_size).unwrap(),
        ..Limits::default()
    }
}

/// Walks the whole resource list and returns the pages' URIs.
fn walk(engine: &Engine, principal: &Principal) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = run(engine.list_resources(principal, cursor.as_deref())).unwrap();
        pages.push(uris(&page.items));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return pages,
        }
        assert!(pages.len() < 1_000, "the walk does not end");
    }
}

fn memory_with(uris: &[&str]) -> Arc<MemoryProvider> {
    let provider = MemoryProvider::new();
    for text in uris {
        let (resource, contents) = text_resource(text, "x");
        provider.insert(resource, contents);
    }
    Arc::new(provider)
}

/// Builds an engine with `statics` as static resources and one memory provider per entry of
/// `providers`, pages of `page_size`, then checks the pages of a full walk.
fn check(statics: &[&str], providers: &[&[&str]], page_size: usize, expect: &[&[&str]]) {
    let mut builder = EngineBuilder::new(key()).limits(limits(page_size));
    for text in statics {
        let (resource, contents) = text_resource(text, "x");
        builder = builder.static_resource(resource, contents);
    }
    for uris in providers {
        builder = builder.provider(memory_with(uris));
    }
    let engine = builder.build().unwrap();
    let expect: Vec<Vec<String>> = expect
        .iter()
        .map(|page| page.iter().map(|uri| (*uri).to_owned()).collect())
        .collect();
    assert_eq!(walk(&engine, &Principal::anonymous()), expect);
}

#[test]
fn an_empty_list_is_one_empty_page() {
    check(&[], &[], 10, &[&[]]);
    check(&[], &[&[], &[]], 1, &[&[]]);
}

#[test]
fn pages_walk_sources_in_order_and_the_last_has_no_cursor() {
    // Static resources first, then providers in registration order, each in URI order.
    check(
        &["mem:///s2", "mem:///s1"],
        &[&["a:///2", "a:///1"], &["b:///1"]],
        2,
        &[
            &["mem:///s1", "mem:///s2"],
            &["a:///1", "a:///2"],
            &["b:///1"],
        ],
    );
    // Exactly full last page: no trailing empty page.
    check(
        &["mem:///1", "mem:///2"],
        &[&["a:///1", "a:///2"]],
        2,
        &[&["mem:///1", "mem:///2"], &["a:///1", "a:///2"]],
    );
    // One page holding everything.
    check(
        &["mem:///1"],
        &[&["a:///1"]],
        100,
        &[&["mem:///1", "a:///1"]],
    );
}

#[test]
fn a_huge_page_size_holds_everything_in_one_page() {
    check(
        &["mem:///1"],
        &[&["a:///1", "a:///2"]],
        usize::MAX,
        &[&["mem:///1", "a:///1", "a:///2"]],
    );
}

#[test]
fn page_size_one_gives_one_resource_per_page() {
    check(
        &["mem:///1"],
        &[&["a:///1", "a:///2"], &[], &["c:///1"]],
        1,
        &[&["mem:///1"], &["a:///1"], &["a:///2"], &["c:///1"]],
    );
}

#[test]
fn the_policy_filters_before_paginating() {
    let all: Vec<String> = (0..20).map(|i| format!("mem:///{i:02}")).collect();
    let provider = memory_with(&all.iter().map(String::as_str).collect::<Vec<_>>());
    // Only even resources are visible to alice.
    let mut policy = PatternPolicy::new();
    for i in (0..20).step_by(2) {
        let pattern = UriPattern::parse(&format!("mem:///{i:02}")).unwrap();
        policy = policy.grant(Grantee::Subject("alice".into()), ActionSet::ALL, pattern);
    }
    let engine = EngineBuilder::new(key())
        .limits(limits(3))
        .policy(Arc::new(policy))
        .provider(provider)
        .build()
        .unwrap();
    let pages = walk(&engine, &Principal::subject("alice"));
    let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
    assert_eq!(
        sizes,
        [3, 3, 3, 1],
        "every page but the last is full of visible items"
    );
    let seen: Vec<String> = pages.concat();
    let expected: Vec<String> = all.iter().step_by(2).cloned().collect();
    assert_eq!(seen, expected);
    // Someone without grants sees one empty page.
    assert_eq!(
        walk(&engine, &Principal::subject("mallory")),
        vec![Vec::<String>::new()]
    );
}

#[test]
fn the_page_after_hidden_trailing_resources_is_not_announced() {
    // 2 visible, then 40 hidden: the first page of 2 must not offer a next cursor.
    let mut all = vec!["mem:///a".to_owned(), "mem:///b".to_owned()];
    all.extend((0..40).map(|i| format!("mem:///hidden/{i:02}")));
    let provider = memory_with(&all.iter().map(String::as_str).collect::<Vec<_>>());
    let policy = PatternPolicy::new().grant(
        Grantee::Anyone,
        Action::List,
        UriPattern::parse("mem:///*").unwrap(),
    );
    let engine = EngineBuilder::new(key())
        .limits(limits(2))
        .policy(Arc::new(policy))
        .provider(provider)
        .build()
        .unwrap();
    assert_eq!(
        walk(&engine, &Principal::anonymous()),
        vec![vec!["mem:///a".to_owned(), "mem:///b".to_owned()]]
    );
}

/// Decodes `cursor` with the test key.
fn check_cursor(cursor: &str, expect: Result<Position, CursorError>) {
    let codec = CursorCodec::new(&key());
    assert_eq!(codec.decode(cursor), expect, "cursor {cursor:?}");
}

#[test]
fn cursors_round_trip() {
    let codec = CursorCodec::new(&key());
    let positions = [
        Position::Resources {
            source: 0,
            after: "mem:///a".into(),
        },
        Position::Resources {
            source: 7,
            after: "file:///%C3%A9t%C3%A9/caf%C3%A9?x=1".into(),
        },
        Position::Resources {
            source: u32::MAX,
            after: String::new(),
        },
        Position::Templates { after: 0 },
        Position::Templates { after: 99 },
    ];
    for position in positions {
        let cursor = codec.encode(&position);
        assert!(
            cursor
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{cursor:?} is base64url without padding"
        );
        check_cursor(&cursor, Ok(position));
    }
}

#[test]
fn malformed_cursors_are_rejected() {
    let malformed = |reason| Err(CursorError::Malformed { reason });
    check_cursor("", malformed("too short"));
    check_cursor("!!!!", malformed("not base64url"));
    check_cursor("abc=", malformed("not base64url"));
    check_cursor("AAAA", malformed("too short"));
    check_cursor(&"A".repeat(40_000), malformed("too long"));
}

#[test]
fn any_change_to_a_cursor_is_detected() {
    let codec = CursorCodec::new(&key());
    let cursor = codec.encode(&Position::Resources {
        source: 1,
        after: "mem:///note".into(),
    });
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut checked = 0;
    for at in 0..cursor.len() {
        for replacement in alphabet.chars().step_by(7) {
            let mut changed = cursor.clone();
            changed.replace_range(at..=at, &replacement.to_string());
            if changed == cursor {
                continue;
            }
            let decoded = codec.decode(&changed);
            assert!(
                decoded.is_err(),
                "changed cursor {changed:?} was accepted: {decoded:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100);
    // Truncated and extended cursors.
    assert!(codec.decode(&cursor[..cursor.len() - 1]).is_err());
    assert!(codec.decode(&format!("{cursor}AA")).is_err());
    // A cursor made under another key.
    let other = CursorCodec::new(&CursorKey::new([1; 32]));
    let foreign = other.encode(&Position::Resources {
        source: 1,
        after: "mem:///note".into(),
    });
    check_cursor(&foreign, Err(CursorError::Tampered));
}

#[test]
fn the_engine_rejects_bad_and_foreign_cursors_with_a_typed_error() {
    let engine = EngineBuilder::new(key()).build().unwrap();
    let anyone = Principal::anonymous();
    let error = run(engine.list_resources(&anyone, Some("nonsense"))).unwrap_err();
    assert!(
        matches!(
            error,
            ListError::InvalidCursor(CursorError::Malformed { .. })
        ),
        "{error:?}"
    );
    assert!(error.to_string().starts_with("invalid cursor"), "{error}");

    let codec = CursorCodec::new(&key());
    let templates_cursor = codec.encode(&Position::Templates { after: 0 });
    let error = run(engine.list_resources(&anyone, Some(&templates_cursor))).unwrap_err();
    assert!(
        matches!(
            error,
            ListError::InvalidCursor(CursorError::WrongList { .. })
        ),
        "{error:?}"
    );
    let resources_cursor = codec.encode(&Position::Resources {
        source: 0,
        after: "a:b".into(),
    });
    let error = run(engine.list_templates(&anyone, Some(&resources_cursor))).unwrap_err();
    assert!(
        matches!(
            error,
            ListError::InvalidCursor(CursorError::WrongList { .. })
        ),
        "{error:?}"
    );
}

#[test]
fn a_cursor_survives_removal_of_its_last_key() {
    let provider = memory_with(&["mem:///1", "mem:///2", "mem:///3", "mem:///4"]);
    let engine = EngineBuilder::new(key())
        .limits(limits(2))
        .provider(provider.clone())
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let first = run(engine.list_resources(&anyone, None)).unwrap();
    assert_eq!(uris(&first.items), ["mem:///1", "mem:///2"]);
    assert!(provider.remove("mem:///2"));
    let (resource, contents) = text_resource("mem:///0", "x");
    provider.insert(resource, contents);
    let second = run(engine.list_resources(&anyone, first.next_cursor.as_deref())).unwrap();
    assert_eq!(uris(&second.items), ["mem:///3", "mem:///4"]);
    assert_eq!(second.next_cursor, None);
}

/// One mutation applied between two pages of a walk.
#[derive(Clone, Debug)]
enum Mutation {
    Insert { provider: usize, key: u8 },
    Remove { provider: usize, key: u8 },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0..2usize, 0..40u8).prop_map(|(provider, key)| Mutation::Insert { provider, key }),
        (0..2usize, 0..40u8).prop_map(|(provider, key)| Mutation::Remove { provider, key }),
    ]
}

fn provider_uri(provider: usize, key: u8) -> String {
    format!("p{provider}:///{key:02}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A registry mutated randomly between pages never repeats a resource and never skips one
    /// that was present and untouched during the whole walk; pages stay in source-then-URI order.
    #[test]
    fn walks_under_mutation_never_repeat_nor_skip_untouched_resources(
        initial in proptest::collection::btree_set((0..2usize, 0..40u8), 0..40),
        statics in proptest::collection::btree_set(0..10u8, 0..5),
        page_size in 1..5usize,
        mutations in proptest::collection::vec(proptest::collection::vec(mutation(), 0..4), 0..30),
    ) {
        let providers = [Arc::new(MemoryProvider::new()), Arc::new(MemoryProvider::new())];
        for &(provider, key) in &initial {
            let (resource, contents) = text_resource(&provider_uri(provider, key), "x");
            providers[provider].insert(resource, contents);
        }
        let mut builder = EngineBuilder::new(key()).limits(limits(page_size));
        for key in &statics {
            let (resource, contents) = text_resource(&format!("s:///{key:02}"), "x");
            builder = builder.static_resource(resource, contents);
        }
        for provider in &providers {
            builder = builder.provider(provider.clone());
        }
        let engine = builder.build().unwrap();

        // The naive model: which resources are touched during the walk.
        let mut touched: BTreeSet<String> = BTreeSet::new();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let mut order: Vec<Resource> = Vec::new();
        let anyone = Principal::anonymous();
        let mut cursor: Option<String> = None;
        let mut mutations = mutations.into_iter();
        for pages in 0.. {
            // At most 90 distinct resources exist, so a longer walk is repeating itself.
            prop_assert!(pages <= 100, "the walk does not end");
            let page = run(engine.list_resources(&anyone, cursor.as_deref())).unwrap();
            prop_assert!(page.items.len() <= page_size);
            for resource in &page.items {
                *seen.entry(resource.uri.to_string()).or_default() += 1;
            }
            order.extend(page.items);
            let Some(next) = page.next_cursor else { break };
            cursor = Some(next);
            for mutation in mutations.next().unwrap_or_default() {
                match mutation {
                    Mutation::Insert { provider, key } => {
                        let text = provider_uri(provider, key);
                        let (resource, contents) = text_resource(&text, "y");
                        providers[provider].insert(resource, contents);
                        touched.insert(text);
                    }
                    Mutation::Remove { provider, key } => {
                        let text = provider_uri(provider, key);
                        providers[provider].remove(&text);
                        touched.insert(text);
                    }
                }
            }
        }

        for (uri, count) in &seen {
            prop_assert_eq!(*count, 1, "{} was listed {} times", uri, count);
        }
        for key in &statics {
            let text = format!("s:///{key:02}");
            prop_assert!(seen.contains_key(&text), "static {} was skipped", text);
        }
        for &(provider, key) in &initial {
            let text = provider_uri(provider, key);
            if !touched.contains(&text) {
                prop_assert!(seen.contains_key(&text), "untouched {} was skipped", text);
            }
        }
        // Source order, then URI order within a source.
        let rank = |resource: &Resource| {
            let text = resource.uri.to_string();
            let source = if text.starts_with("s:") { 0 } else if text.starts_with("p0:") { 1 } else { 2 };
            (source, text)
        };
        let ranks: Vec<_> = order.iter().map(rank).collect();
        prop_assert!(ranks.windows(2).all(|pair| pair[0] < pair[1]), "out of order: {:?}", ranks);
    }
}

#[test]
fn a_cursor_deep_into_a_large_provider_resumes_after_its_key() {
    // Not a timing test: checks that a cursor deep into a large provider resumes correctly.
    let provider = MemoryProvider::new();
    for i in 0..20_000 {
        provider.insert(
            Resource::new(uri(&format!("mem:///{i:07}")), "r"),
            Vec::new(),
        );
    }
    let codec = CursorCodec::new(&key());
    let cursor = codec.encode(&Position::Resources {
        source: 1,
        after: "mem:///0012345".into(),
    });
    let engine = EngineBuilder::new(key())
        .limits(limits(3))
        .provider(Arc::new(provider))
        .build()
        .unwrap();
    let page = run(engine.list_resources(&Principal::anonymous(), Some(&cursor))).unwrap();
    assert_eq!(
        uris(&page.items),
        ["mem:///0012346", "mem:///0012347", "mem:///0012348"]
    );
    assert!(page.next_cursor.is_some());
}

#[test]
fn a_key_fingerprint_tells_keys_apart_and_nothing_of_them() {
    let (one, two) = (CursorKey::new([7; 32]), CursorKey::new([8; 32]));
    assert_eq!(one.fingerprint(), CursorKey::new([7; 32]).fingerprint());
    assert_ne!(one.fingerprint(), two.fingerprint());
    let fingerprint = one.fingerprint();
    assert_eq!(fingerprint.len(), 32);
    assert!(fingerprint.bytes().all(|digit| digit.is_ascii_hexdigit()));
    assert!(!fingerprint.contains("0707"), "not the key's bytes");
    // Not the tag of a cursor whose body is the fingerprint's fixed text: whoever reads a
    // fingerprint (in Redis) cannot make a cursor that passes the MAC.
    use base64::Engine as _;
    let tag: Vec<u8> = (0..16)
        .map(|at| u8::from_str_radix(&fingerprint[at * 2..at * 2 + 2], 16).unwrap())
        .collect();
    let mut forged = b"mcp-resources cursor key fingerprint".to_vec();
    forged.extend_from_slice(&tag);
    let forged = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&forged);
    assert_eq!(
        CursorCodec::new(&one).decode(&forged),
        Err(CursorError::Tampered)
    );
}
