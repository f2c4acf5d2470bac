//! Fuzz target `headers`: the HTTP transport's header checks, with any header values.
//!
//! Checks that nothing panics, and:
//! - `mcp_resources_server::guard::host_allowed` and `origin_allowed` with nothing configured let
//!   through only loopback: the name they took, read by an RFC 3986 parser as the host of
//!   `http://NAME/`, is `localhost`, a `*.localhost` name or a loopback address (or is a bare
//!   loopback address, as `::1`); `"*"` lets
//!   every UTF-8 origin and every non-empty UTF-8 host through;
//! - `mcp_2026::Handler::check_headers` agrees with a body whose headers say what the body
//!   says (as they are, and in the `=?base64?…?=` form), and never panics on any headers.

#![no_main]

use std::net::IpAddr;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_2026::headers::{METHOD_HEADER, NAME_HEADER, PROTOCOL_VERSION_HEADER};
use mcp_2026::{Handler, RequestHeaders};
use mcp_resources_server::guard;
use mcp_types::jsonrpc::{self, Incoming, Message, Request};
use mcp_types::meta::PROTOCOL_VERSION;
use mcp_types::method::RESOURCES_READ;
use serde_json::Value;

#[derive(Arbitrary, Debug)]
struct Input {
    host: Vec<u8>,
    origin: Vec<u8>,
    allowed: Vec<String>,
    /// Headers as (name choice, value): names 0 to 2 are the checked ones, in any case.
    headers: Vec<(u8, Vec<u8>)>,
    body: Vec<u8>,
}

const NAMES: [&str; 6] = [
    "mcp-protocol-version",
    "Mcp-Method",
    "MCP-NAME",
    "content-type",
    "Mcp-Session-Id",
    "mcp-methods",
];

fuzz_target!(|input: Input| {
    check_guard(&input);
    check_agreement(&input);
});

fn check_guard(input: &Input) {
    let nothing: Vec<String> = Vec::new();
    if guard::host_allowed(&input.host, &nothing) {
        let host = std::str::from_utf8(&input.host).expect("an allowed host is UTF-8");
        assert!(names_loopback(host.trim()), "host {host:?} let through");
    }
    if guard::origin_allowed(&input.origin, &nothing) {
        let origin = std::str::from_utf8(&input.origin).expect("an allowed origin is UTF-8");
        let (scheme, rest) = origin
            .trim()
            .split_once("://")
            .expect("an origin has a scheme");
        assert!(
            scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"),
            "origin {origin:?} let through"
        );
        assert!(names_loopback(rest), "origin {origin:?} let through");
    }
    let _ = guard::host_allowed(&input.host, &input.allowed);
    let _ = guard::origin_allowed(&input.origin, &input.allowed);
    let every = vec!["*".to_owned()];
    if std::str::from_utf8(&input.origin).is_ok() {
        assert!(guard::origin_allowed(&input.origin, &every));
    }
    if std::str::from_utf8(&input.host).is_ok_and(|host| !host.trim().is_empty()) {
        assert!(guard::host_allowed(&input.host, &every));
    }
}

/// Whether `authority` (`host[:port]`) names this machine, as an RFC 3986 parser reads it.
fn names_loopback(authority: &str) -> bool {
    // The guard also takes a bare IPv6 address (`::1`), which no URI holds unbracketed.
    if authority.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) {
        return true;
    }
    let Ok(uri) = fluent_uri::Uri::parse(format!("http://{authority}/")) else {
        return false;
    };
    let Some(parsed) = uri.authority() else {
        return false;
    };
    let host = parsed.host().trim_end_matches('.').to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let address = host.trim_start_matches('[').trim_end_matches(']');
    address.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn check_agreement(input: &Input) {
    let headers: RequestHeaders<'_> = input
        .headers
        .iter()
        .take(8)
        .map(|(name, value)| (NAMES[usize::from(*name) % NAMES.len()], value.as_slice()))
        .collect();
    let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode(&input.body) else {
        return;
    };
    let _ = Handler::check_headers(&headers, &request);

    let (version, uri) = body_says(&request);
    let encoded = |text: &str| format!("=?base64?{}?=", STANDARD.encode(text)).into_bytes();
    let values = [
        encoded(&version),
        encoded(&request.method),
        encoded(uri.as_deref().unwrap_or_default()),
    ];
    let agreeing: RequestHeaders<'_> = [PROTOCOL_VERSION_HEADER, METHOD_HEADER, NAME_HEADER]
        .into_iter()
        .zip(values.iter().map(Vec::as_slice))
        .collect();
    assert_eq!(
        Handler::check_headers(&agreeing, &request),
        Ok(()),
        "encoded {values:?}"
    );
    let plain = |text: &str| {
        !text.starts_with("=?base64?") && text.bytes().all(|byte| matches!(byte, 0x21..=0x7e))
    };
    if plain(&version) && plain(&request.method) && uri.as_deref().is_none_or(plain) {
        let agreeing: RequestHeaders<'_> = [
            (PROTOCOL_VERSION_HEADER, version.as_bytes()),
            (METHOD_HEADER, request.method.as_bytes()),
            (NAME_HEADER, uri.as_deref().unwrap_or_default().as_bytes()),
        ]
        .into_iter()
        .collect();
        assert_eq!(Handler::check_headers(&agreeing, &request), Ok(()));
    }
}

/// What the body says of the checked headers: the `_meta` protocol version (empty when there
/// is none) and, for a read, the `uri` (empty when there is none).
fn body_says(request: &Request) -> (String, Option<String>) {
    let params: Option<Value> = request
        .params
        .as_deref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or_default().to_owned();
    let version = text(
        params
            .as_ref()
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get(PROTOCOL_VERSION)),
    );
    let uri = (request.method == RESOURCES_READ)
        .then(|| text(params.as_ref().and_then(|params| params.get("uri"))));
    (version, uri)
}

