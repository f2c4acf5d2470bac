//! The DNS-rebinding guard of the Streamable HTTP transport: which `Origin` and `Host` headers
//! a request may carry.
//!
//! **Layer:** server, HTTP transport; pure functions over header values, checked before the
//! body is read. Loopback origins and hosts (`localhost`, `127.0.0.0/8`, `::1`) are always
//! allowed; anything else only when configured. A header the guard reads is read whole: a
//! second `Origin` or `Host` is refused, never skipped past, and a request must name its host
//! (in `Host`, or in its target's authority: HTTP/2's `:authority`). Public (as
//! `mcp_resources_server::guard`) so that the fuzz targets and a server built on its own router can
//! call its checks. This module must never know JSON-RPC, either protocol era or the service.

use std::net::IpAddr;

/// A header that may appear at most once appeared more than once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repeated;

/// The one value of a header that may appear at most once: `None` when it is absent, `Err` when
/// it appears twice or more (whatever the values: a proxy and the guard could otherwise read
/// different ones).
pub(crate) fn at_most_one<'v>(
    mut values: impl Iterator<Item = &'v [u8]>,
) -> Result<Option<&'v [u8]>, Repeated> {
    let first = values.next();
    match values.next() {
        Some(_) => Err(Repeated),
        None => Ok(first),
    }
}

/// What the guard makes of the host a request names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostCheck<'v> {
    /// Every name the request gives is allowed.
    Allowed,
    /// No `Host` header and no authority in the target: malformed (`400`; RFC 9112 §3.2).
    Missing,
    /// More than one `Host` header: malformed (`400`; RFC 9112 §3.2).
    Repeated,
    /// This name, given in `Host` or in the target's authority, is not allowed (`403`).
    Disallowed(&'v [u8]),
}

/// Checks the host a request is for: its `Host` headers (at most one) and the authority of its
/// target (HTTP/2's `:authority`, or an HTTP/1.1 target in absolute form), at least one of the
/// two present, and each one present allowed by [`host_allowed`]. Both are checked when both
/// are given: an HTTP/1.1 server is to take the target's authority over `Host` (RFC 9112
/// §3.2.2), and an HTTP/2 one to treat a `Host` naming another host than `:authority` as
/// malformed (RFC 9113 §8.3.1).
pub(crate) fn check_host<'v>(
    hosts: impl Iterator<Item = &'v [u8]>,
    authority: Option<&'v [u8]>,
    allowed: &[String],
) -> HostCheck<'v> {
    let Ok(host) = at_most_one(hosts) else {
        return HostCheck::Repeated;
    };
    if host.is_none() && authority.is_none() {
        return HostCheck::Missing;
    }
    match [host, authority]
        .into_iter()
        .flatten()
        .find(|name| !host_allowed(name, allowed))
    {
        Some(name) => HostCheck::Disallowed(name),
        None => HostCheck::Allowed,
    }
}

/// Whether an `Origin` header value may talk to this server: a loopback origin, or one listed
/// in `allowed` (compared case-insensitively, scheme, host and port alike). `"*"` in `allowed`
/// lets every origin through. The opaque origin `null` is refused unless listed.
pub fn origin_allowed(origin: &[u8], allowed: &[String]) -> bool {
    let Ok(origin) = std::str::from_utf8(origin) else {
        return false;
    };
    let origin = origin.trim();
    if allowed
        .iter()
        .any(|entry| entry == "*" || entry.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    // An origin is scheme://host[:port], nothing after.
    if rest.contains('/') {
        return false;
    }
    is_loopback(strip_port(rest))
}

/// Whether a `Host` header value names this server: a loopback name or address (with any
/// port), or an entry of `allowed` (`name` matches any port, `name:port` only that port,
/// compared case-insensitively). `"*"` in `allowed` lets every host through.
pub fn host_allowed(host: &[u8], allowed: &[String]) -> bool {
    if is_plain_loopback(host.trim_ascii()) {
        return true;
    }
    let Ok(host) = std::str::from_utf8(host) else {
        return false;
    };
    let host = host.trim();
    if host.is_empty() {
        return false;
    }
    let name = strip_port(host);
    if is_loopback(name) {
        return true;
    }
    allowed.iter().any(|entry| {
        entry == "*" || entry.eq_ignore_ascii_case(host) || entry.eq_ignore_ascii_case(name)
    })
}

/// `127.0.0.1` or `localhost`, with a port or without: the `Host` of nearly every request to a
/// local server, told apart without reading the text or parsing an address (a subset of what
/// [`is_loopback`] allows).
fn is_plain_loopback(host: &[u8]) -> bool {
    let name = match host.iter().rposition(|&byte| byte == b':') {
        Some(colon) if host[colon + 1..].iter().all(u8::is_ascii_digit) => &host[..colon],
        _ => host,
    };
    name == b"127.0.0.1" || name.eq_ignore_ascii_case(b"localhost")
}

/// `host[:port]` → `host`; `[v6]:port` and `[v6]` → `v6`. A bracketed address followed by
/// anything but a port is returned whole, brackets and all, so it never reads as an address.
fn strip_port(authority: &str) -> &str {
    if let Some(bracketed) = authority.strip_prefix('[') {
        return match bracketed.split_once(']') {
            Some((address, "")) => address,
            Some((address, rest))
                if rest
                    .strip_prefix(':')
                    .is_some_and(|port| port.bytes().all(|b| b.is_ascii_digit())) =>
            {
                address
            }
            _ => authority,
        };
    }
    match authority.rsplit_once(':') {
        // A bare IPv6 address has several colons and no port.
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => authority,
    }
}

/// `localhost` (and `*.localhost`, which resolvers must map to loopback), or a loopback IP.
fn is_loopback(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    if name.eq_ignore_ascii_case("localhost")
        || name
            .get(name.len().saturating_sub(".localhost".len())..)
            .is_some_and(|tail| tail.eq_ignore_ascii_case(".localhost"))
    {
        return true;
    }
    name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::{HostCheck, Repeated, at_most_one, host_allowed, origin_allowed};

    fn check_host(host: &str, allowed: &[&str], expect: bool) {
        let allowed: Vec<String> = allowed.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(
            host_allowed(host.as_bytes(), &allowed),
            expect,
            "host {host:?} with {allowed:?}"
        );
    }

    fn check_origin(origin: &str, allowed: &[&str], expect: bool) {
        let allowed: Vec<String> = allowed.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(
            origin_allowed(origin.as_bytes(), &allowed),
            expect,
            "origin {origin:?} with {allowed:?}"
        );
    }

    #[test]
    fn hosts() {
        check_host("localhost", &[], true);
        check_host(" 127.0.0.1:8080 ", &[], true);
        check_host("127.0.0.1:", &[], true);
        check_host("127.0.0.1:x", &[], false);
        check_host("127.0.0.1.evil.example.com", &[], false);
        check_host("localhost:80:80", &[], false);
        check_host("localhost:8080", &[], true);
        check_host("LOCALHOST:1", &[], true);
        check_host("app.localhost:1", &[], true);
        check_host("127.0.0.1:3000", &[], true);
        check_host("127.8.9.10", &[], true);
        check_host("[::1]:3000", &[], true);
        check_host("[::1]", &[], true);
        check_host("[::1]junk", &[], false);
        check_host("[::1]:80x", &[], false);
        check_host("[::1]evil.example.com:80", &[], false);
        check_host("evil.example.com", &[], false);
        check_host("evil.example.com:80", &[], false);
        check_host("localhost.evil.example.com", &[], false);
        check_host("10.0.0.1:80", &[], false);
        check_host("", &[], false);
        check_host("mcp.example.com:443", &["mcp.example.com"], true);
        check_host("mcp.example.com:443", &["mcp.example.com:8443"], false);
        check_host("mcp.example.com:8443", &["MCP.example.com:8443"], true);
        check_host("anything:1", &["*"], true);
    }

    #[test]
    fn a_header_read_once_is_there_at_most_once() {
        let values = |values: &[&'static str]| {
            values
                .iter()
                .map(|value| value.as_bytes())
                .collect::<Vec<_>>()
        };
        assert_eq!(at_most_one(values(&[]).into_iter()), Ok(None));
        assert_eq!(
            at_most_one(values(&["a"]).into_iter()),
            Ok(Some(b"a".as_slice()))
        );
        assert_eq!(at_most_one(values(&["a", "a"]).into_iter()), Err(Repeated));
        assert_eq!(
            at_most_one(values(&["a", "b", "c"]).into_iter()),
            Err(Repeated)
        );
    }

    fn check_names(hosts: &[&'static str], authority: Option<&'static str>, expect: HostCheck<'_>) {
        let allowed = ["mcp.example.com".to_owned()];
        let got = super::check_host(
            hosts.iter().map(|host| host.as_bytes()),
            authority.map(str::as_bytes),
            &allowed,
        );
        assert_eq!(got, expect, "hosts {hosts:?}, authority {authority:?}");
    }

    #[test]
    fn a_request_names_one_allowed_host() {
        check_names(&["localhost:1"], None, HostCheck::Allowed);
        check_names(&[], Some("127.0.0.1:1"), HostCheck::Allowed);
        check_names(&["mcp.example.com"], Some("localhost"), HostCheck::Allowed);
        check_names(&[], None, HostCheck::Missing);
        check_names(&["localhost", "localhost"], None, HostCheck::Repeated);
        check_names(
            &["localhost", "evil.example.com"],
            None,
            HostCheck::Repeated,
        );
        check_names(
            &["localhost", "localhost"],
            Some("localhost"),
            HostCheck::Repeated,
        );
        check_names(
            &["evil.example.com"],
            None,
            HostCheck::Disallowed(b"evil.example.com"),
        );
        check_names(
            &[],
            Some("evil.example.com"),
            HostCheck::Disallowed(b"evil.example.com"),
        );
        // Both are checked: neither may name a host the guard refuses.
        check_names(
            &["localhost"],
            Some("evil.example.com"),
            HostCheck::Disallowed(b"evil.example.com"),
        );
        check_names(
            &["evil.example.com"],
            Some("localhost"),
            HostCheck::Disallowed(b"evil.example.com"),
        );
    }

    #[test]
    fn origins() {
        check_origin("http://localhost:5173", &[], true);
        check_origin("https://127.0.0.1", &[], true);
        check_origin("http://[::1]:80", &[], true);
        check_origin("http://[::1]junk", &[], false);
        check_origin("http://evil.example.com", &[], false);
        check_origin("http://localhost.evil.example.com", &[], false);
        check_origin("null", &[], false);
        check_origin("file://localhost", &[], false);
        check_origin("http://localhost/path", &[], false);
        check_origin(
            "https://app.example.com",
            &["https://app.example.com"],
            true,
        );
        check_origin(
            "https://app.example.com:444",
            &["https://app.example.com"],
            false,
        );
        check_origin("null", &["*"], true);
    }
}
