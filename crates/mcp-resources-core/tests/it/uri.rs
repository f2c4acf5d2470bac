//! Resource URIs: validation, canonical form and its properties.

use std::collections::BTreeMap;

use mcp_resources_core::uri::{ResourceUri, UriError, UriLimits};
use proptest::prelude::*;

/// Parses `input` and compares the canonical form, or `error: <message>`, with `expect`.
#[track_caller]
fn check(input: &str, expect: &str) {
    let actual = match ResourceUri::parse(input) {
        Ok(uri) => {
            // The canonical form is a fixed point.
            let again = ResourceUri::parse(uri.as_str()).expect("canonical form parses");
            assert_eq!(
                again, uri,
                "canonicalization of {input:?} is not idempotent"
            );
            uri.as_str().to_owned()
        }
        Err(error) => format!("error: {error}"),
    };
    assert_eq!(actual, expect, "input: {input:?}");
}

#[test]
fn canonical_forms() {
    let table = [
        ("file:///home/user/notes.md", "file:///home/user/notes.md"),
        ("FILE:///a/b", "file:///a/b"),
        ("HTTP://Example.COM/Path", "http://example.com/Path"),
        ("http://example.com:80/x", "http://example.com/x"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://example.com:/x", "http://example.com/x"),
        ("file:///a/./b/../c", "file:///a/c"),
        ("file:///a/b/..", "file:///a/"),
        ("file:///a/%2E%2E/b", "file:///b"),
        ("file:///a/%2e/b", "file:///a/b"),
        ("file:///a%2fb", "file:///a%2Fb"),
        ("file:///a%2Fb/../c", "file:///c"),
        ("file:///%7euser/%41%42", "file:///~user/AB"),
        ("file:///caf%c3%a9", "file:///caf%C3%A9"),
        (
            "db://Main/users/42?fields=name",
            "db://main/users/42?fields=name",
        ),
        ("db://main/users?q=%2f", "db://main/users?q=%2F"),
        ("urn:isbn:0451450523", "urn:isbn:0451450523"),
        ("mailto:Someone@Example.com", "mailto:Someone@Example.com"),
        ("custom:a/./b", "custom:a/./b"),
        ("git://repo/HEAD/src/lib.rs", "git://repo/HEAD/src/lib.rs"),
        ("http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"),
        ("a+b.c-d:x", "a+b.c-d:x"),
        ("s:", "s:"),
    ];
    for (input, expect) in table {
        check(input, expect);
    }
}

#[test]
fn rejections() {
    let table = [
        ("", "error: uri is empty"),
        (
            "/etc/passwd",
            "error: uri has no scheme (a relative reference is not a resource uri)",
        ),
        (
            "../x",
            "error: uri has no scheme (a relative reference is not a resource uri)",
        ),
        (
            "1http://x",
            "error: uri has no scheme (a relative reference is not a resource uri)",
        ),
        (
            "file:///a#frag",
            "error: uri has a fragment at byte 9 (resource uris must not have one)",
        ),
        (
            "file:///a b",
            "error: uri contains the character ' ' at byte 9, which rfc 3986 does not allow there",
        ),
        (
            "file:///a\\b",
            "error: uri contains the character '\\\\' at byte 9, which rfc 3986 does not allow there",
        ),
        (
            "file:///a\nb",
            "error: uri contains the control character 0x0a at byte 9",
        ),
        (
            "file:///a\u{7f}",
            "error: uri contains the control character 0x7f at byte 9",
        ),
        (
            "file:///caf\u{e9}",
            "error: uri contains the non-ascii character '\u{e9}' at byte 11 (percent-encode it)",
        ),
        (
            "file:///a%2",
            "error: uri has a malformed percent-encoding at byte 9 (expected % and two hex digits)",
        ),
        (
            "file:///a%zz",
            "error: uri has a malformed percent-encoding at byte 9 (expected % and two hex digits)",
        ),
        (
            "file:///a%00b",
            "error: uri contains a percent-encoded nul (%00) at byte 9",
        ),
        (
            "file:///../etc/passwd",
            "error: uri path climbs above its root through `..` segments",
        ),
        (
            "file:///a/../../etc",
            "error: uri path climbs above its root through `..` segments",
        ),
        (
            "file:///%2e%2e/etc",
            "error: uri path climbs above its root through `..` segments",
        ),
        (
            "http://[1::2::3]/",
            "error: uri has an invalid ipv6 address at byte 8",
        ),
        (
            "http://a b/",
            "error: uri contains the character ' ' at byte 8, which rfc 3986 does not allow there",
        ),
        (
            "file:///a<b>",
            "error: uri contains the character '<' at byte 9, which rfc 3986 does not allow there",
        ),
    ];
    for (input, expect) in table {
        check(input, expect);
    }
}

/// A raw `[` or `]` outside the authority is what RFC 6570 reserved expansion (`{+path}`) leaves
/// in a URI, though RFC 3986 allows them only around an IP literal: it is taken as `%5B` or
/// `%5D`, so both spellings are one resource with one canonical form.
#[test]
fn brackets_outside_the_authority_are_percent_encoded() {
    let table = [
        (
            "file:///r/app/[slug]/page.tsx",
            "file:///r/app/%5Bslug%5D/page.tsx",
        ),
        (
            "file:///r/app/%5bslug%5d/page.tsx",
            "file:///r/app/%5Bslug%5D/page.tsx",
        ),
        (
            "file:///r/app/[...all]/%5Bx].md",
            "file:///r/app/%5B...all%5D/%5Bx%5D.md",
        ),
        ("FILE:///a/./[b]/../[c]", "file:///a/%5Bc%5D"),
        ("file:///[", "file:///%5B"),
        ("file:[x]", "file:%5Bx%5D"),
        ("urn:x:[a]", "urn:x:%5Ba%5D"),
        (
            "db://main/t?ids[]=1&ids[]=2",
            "db://main/t?ids%5B%5D=1&ids%5B%5D=2",
        ),
        ("db://main?[", "db://main?%5B"),
        ("http://[::1]/a[b]", "http://[::1]/a%5Bb%5D"),
        (
            "HTTP://[::FFFF:1.2.3.4]:80/[x]?[y]",
            "http://[::ffff:1.2.3.4]/%5Bx%5D?%5By%5D",
        ),
    ];
    for (input, expect) in table {
        check(input, expect);
    }
    assert_eq!(
        ResourceUri::parse("file:///r/app/[slug]/page.tsx").unwrap(),
        ResourceUri::parse("file:///r/app/%5Bslug%5D/page.tsx").unwrap()
    );
    let uri = ResourceUri::parse("db://Main/a[1]?q=[2]").unwrap();
    assert_eq!(
        (uri.scheme(), uri.authority(), uri.path(), uri.query()),
        ("db", Some("main"), "/a%5B1%5D", Some("q=%5B2%5D"))
    );
}

/// Brackets are still refused where they cannot be data (in a host that is no IP literal, in
/// a fragment), and errors after one name the byte of the input, not of its encoded form.
#[test]
fn errors_around_brackets_name_the_input_bytes() {
    let table = [
        (
            "file:///[a] b",
            "error: uri contains the character ' ' at byte 11, which rfc 3986 does not allow there",
        ),
        (
            "file:///[]/[%zz",
            "error: uri has a malformed percent-encoding at byte 12 (expected % and two hex digits)",
        ),
        (
            "file:///[x]#f",
            "error: uri has a fragment at byte 11 (resource uris must not have one)",
        ),
        (
            "file:///[]%00",
            "error: uri contains a percent-encoded nul (%00) at byte 10",
        ),
        (
            "file:///[x]/../../y",
            "error: uri path climbs above its root through `..` segments",
        ),
        (
            "http://a[b]/c",
            "error: uri contains the character '[' at byte 8, which rfc 3986 does not allow there",
        ),
        (
            "http://[::1/c]",
            "error: uri contains the character '/' at byte 11, which rfc 3986 does not allow there",
        ),
        (
            "file:///a[b]#[",
            "error: uri contains the character '[' at byte 13, which rfc 3986 does not allow there",
        ),
    ];
    for (input, expect) in table {
        check(input, expect);
    }
}

#[test]
fn length_limit() {
    let limits = UriLimits { max_len: 16 };
    assert!(ResourceUri::parse_with("file:///abcdefgh", &limits).is_ok());
    assert_eq!(
        ResourceUri::parse_with("file:///abcdefghi", &limits),
        Err(UriError::TooLong { len: 17, max: 16 })
    );
    let long = format!("file:///{}", "a".repeat(8 * 1024));
    assert_eq!(
        ResourceUri::parse(&long).unwrap_err().to_string(),
        "uri is 8200 bytes long, over the limit of 8192 bytes"
    );
    assert_eq!(UriLimits::default().max_len, 8192);
}

#[test]
fn components() {
    let uri: ResourceUri = "HTTP://User@Example.com:8080/a/%7eb?x=1&y=%2f"
        .parse()
        .unwrap();
    assert_eq!(uri.as_str(), "http://User@example.com:8080/a/~b?x=1&y=%2F");
    assert_eq!(uri.scheme(), "http");
    assert_eq!(uri.authority(), Some("User@example.com:8080"));
    assert_eq!(uri.path(), "/a/~b");
    assert_eq!(uri.query(), Some("x=1&y=%2F"));
    assert_eq!(uri.to_string(), uri.as_str());
    assert_eq!(
        format!("{uri:?}"),
        "ResourceUri(\"http://User@example.com:8080/a/~b?x=1&y=%2F\")"
    );

    let urn = ResourceUri::parse("urn:isbn:1").unwrap();
    assert_eq!(
        (urn.scheme(), urn.authority(), urn.path(), urn.query()),
        ("urn", None, "isbn:1", None)
    );
    let empty_query = ResourceUri::parse("db://x/t?").unwrap();
    assert_eq!(empty_query.query(), Some(""));
}

#[test]
fn lookup_by_str_in_maps() {
    let mut map = BTreeMap::new();
    map.insert(ResourceUri::parse("FILE:///a/./b").unwrap(), 1);
    assert_eq!(map.get("file:///a/b"), Some(&1));
    let mut hashed = std::collections::HashMap::new();
    hashed.insert(ResourceUri::parse("file:///x").unwrap(), 2);
    assert_eq!(hashed.get("file:///x"), Some(&2));
    assert!(ResourceUri::parse("file:///a").unwrap() < ResourceUri::parse("file:///b").unwrap());
}

fn path_segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(".".to_owned()),
        Just("..".to_owned()),
        Just("%2E%2E".to_owned()),
        Just("%2e".to_owned()),
        Just(".%2E".to_owned()),
        Just("%2F".to_owned()),
        Just("".to_owned()),
        "[a-zA-Z0-9._~!$&'()*+,;=:@-]{1,6}",
        "(%[0-9a-fA-F][1-9a-fA-F]){1,2}",
        "[a-z.\\[\\]]{1,4}",
        "(%5[bBdD]|[\\[\\]]){1,3}",
    ]
}

fn any_uri() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("file"),
            Just("FILE"),
            Just("http"),
            Just("Db"),
            Just("urn")
        ],
        prop_oneof![
            Just(""),
            Just("Example.COM"),
            Just("h:80"),
            Just("h:"),
            Just("u@H")
        ],
        prop::collection::vec(path_segment(), 0..8),
        prop::option::of("[a-zA-Z0-9=&%/?\\[\\]]{0,8}"),
        any::<bool>(),
    )
        .prop_map(|(scheme, host, segments, query, has_authority)| {
            let mut uri = format!("{scheme}:");
            if has_authority {
                uri.push_str("//");
                uri.push_str(host);
                uri.push('/');
            }
            uri.push_str(&segments.join("/"));
            if let Some(query) = query {
                uri.push('?');
                uri.push_str(&query);
            }
            uri
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn canonicalization_is_idempotent(input in any_uri()) {
        if let Ok(uri) = ResourceUri::parse(&input) {
            let again = ResourceUri::parse(uri.as_str()).expect("canonical form parses");
            prop_assert_eq!(again.as_str(), uri.as_str());
        }
    }

    /// Writing a `[` or `]` outside the authority raw or as `%5B`/`%5D` names one resource.
    #[test]
    fn raw_and_encoded_brackets_are_one_resource(input in any_uri()) {
        let encoded = match input.split_once("//") {
            Some((scheme, rest)) if scheme.ends_with(':') => {
                let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
                format!("{scheme}//{authority}{}", tail.replace('[', "%5B").replace(']', "%5D"))
            }
            _ => input.replace('[', "%5B").replace(']', "%5D"),
        };
        prop_assert_eq!(
            ResourceUri::parse(&input).ok(),
            ResourceUri::parse(&encoded).ok(),
            "{} and {}", input, encoded
        );
    }

    #[test]
    fn canonical_file_paths_never_climb(segments in prop::collection::vec(path_segment(), 0..10)) {
        let input = format!("file:///{}", segments.join("/"));
        match ResourceUri::parse(&input) {
            Ok(uri) => {
                prop_assert!(uri.path().starts_with('/'));
                for segment in uri.path().split('/') {
                    prop_assert_ne!(segment, "..");
                    prop_assert_ne!(segment, ".");
                    prop_assert!(!segment.eq_ignore_ascii_case("%2E%2E"));
                }
            }
            Err(error) => prop_assert_eq!(error, UriError::PathAboveRoot),
        }
    }
}

/// Found by the `uri` fuzz target (`cargo xtask fuzz`): a rootless path, which the normalizer
/// leaves as it is, kept its `..` segment in the canonical form of a `file:` URI. The artifact
/// was `file:sw///../)tce/paswd`; minimized by hand to the first entry.
#[test]
fn regression_fuzz_rootless_dot_dot_is_refused() {
    let climbing = "error: uri path climbs above its root through `..` segments";
    check("file:a/../b", climbing);
    check("file:sw///../)tce/paswd", climbing);
    check("custom:a/%2E%2e/b", climbing);
    check("urn:x:..", "urn:x:..");
    check("custom:a/./b", "custom:a/./b");
    check("custom:a/..b", "custom:a/..b");
}
