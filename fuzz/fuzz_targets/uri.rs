//! Fuzz target `uri`: any text offered as a resource URI to `ResourceUri::parse`.
//!
//! Checks that nothing panics and that the canonical form keeps its promises:
//! - canonicalization is idempotent: the canonical text parses to itself;
//! - the parts (`scheme`, `authority`, `path`, `query`) put back together are the text;
//! - an absolute path keeps no `.` or `..` segment, percent-encoded ones included (so no
//!   `file:` URI climbs), but for the `/.` RFC 3986 keeps before a path starting `//`, and no `%00`, fragment or non-ASCII byte survives;
//! - the scheme is case-insensitive: the same text with its scheme in upper case (which takes
//!   the general parser, never the shortcut for plain URIs) names the same resource.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_resources_core::uri::ResourceUri;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = ResourceUri::parse(text);
    if let Some(colon) = text.find(':') {
        let upper = format!("{}{}", text[..colon].to_ascii_uppercase(), &text[colon..]);
        assert_eq!(
            ResourceUri::parse(&upper).ok(),
            parsed.clone().ok(),
            "{text:?} and {upper:?}"
        );
    }
    let Ok(uri) = parsed else {
        return;
    };
    let canonical = uri.as_str();
    let again = ResourceUri::parse(canonical)
        .unwrap_or_else(|error| panic!("canonical {canonical:?} does not parse: {error}"));
    assert_eq!(again.as_str(), canonical, "from {text:?}");
    assert_eq!(uri.to_string(), canonical);

    let mut joined = format!("{}:", uri.scheme());
    if let Some(authority) = uri.authority() {
        joined.push_str("//");
        joined.push_str(authority);
    }
    joined.push_str(uri.path());
    if let Some(query) = uri.query() {
        joined.push('?');
        joined.push_str(query);
    }
    assert_eq!(joined, canonical, "parts of {canonical:?}");

    assert!(
        canonical.is_ascii() && !canonical.contains('#'),
        "{canonical:?}"
    );
    assert!(!canonical.contains("%00"), "{canonical:?}");
    assert_eq!(uri.scheme(), uri.scheme().to_ascii_lowercase());
    if uri.path().starts_with('/') {
        // With no authority, a path that would start with `//` keeps a `/.` in front (RFC 3986
        // section 5.2.4), so that it never reads as an authority: that one dot stays.
        let path = match uri.path().strip_prefix("/.") {
            Some(rest) if uri.authority().is_none() && rest.starts_with("//") => rest,
            _ => uri.path(),
        };
        for segment in path.split('/') {
            let dots = segment.replace("%2E", ".").replace("%2e", ".");
            assert!(
                dots != "." && dots != "..",
                "dot segment {segment:?} in {canonical:?} from {text:?}"
            );
        }
    }
    if uri.scheme() == "file" {
        assert!(!uri.path().split('/').any(|segment| segment == ".."));
    }
});
