//! `Handler::check_headers` as a table: names case-insensitive, values case-sensitive, the
//! base64 form decoded, every failure a `-32020`.

use mcp_2026::{Handler, RequestHeaders};

use crate::support;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Checks the headers `pairs` against a request of `method` with `uri` (if any); `expect` is
/// `Ok` or a piece of the error message.
fn check(pairs: &[(&str, &[u8])], method: &str, uri: Option<&str>, expect: Result<(), &str>) {
    let params = match uri {
        Some(uri) => format!(r#"{{{META},"uri":{}}}"#, serde_json::Value::from(uri)),
        None => format!("{{{META}}}"),
    };
    let json = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
    let request = support::request(&json);
    let headers: RequestHeaders<'_> = pairs.iter().copied().collect();
    let outcome = Handler::check_headers(&headers, &request);
    match (expect, outcome) {
        (Ok(()), Ok(())) => {}
        (Err(piece), Err(error)) => {
            assert_eq!(error.code.0, -32020, "{pairs:?}");
            assert!(
                error.message.contains(piece),
                "{pairs:?}: {} lacks {piece}",
                error.message
            );
        }
        (expect, outcome) => panic!("{pairs:?} {method}: expected {expect:?}, got {outcome:?}"),
    }
}

const V: (&str, &[u8]) = ("MCP-Protocol-Version", b"2026-07-28");

#[test]
fn header_table() {
    let list = ("Mcp-Method", b"resources/list".as_slice());
    let read = ("Mcp-Method", b"resources/read".as_slice());
    // Names in any case; surrounding blanks are not part of a value.
    check(
        &[
            ("mcp-protocol-version", b" 2026-07-28\t"),
            ("MCP-METHOD", b"resources/list"),
        ],
        "resources/list",
        None,
        Ok(()),
    );
    // Mcp-Name is ignored where it is not required.
    check(
        &[V, list, ("Mcp-Name", b"whatever")],
        "resources/list",
        None,
        Ok(()),
    );
    check(
        &[V, read, ("Mcp-Name", b"test://a")],
        "resources/read",
        Some("test://a"),
        Ok(()),
    );
    // A non-ASCII URI arrives base64-encoded (UTF-8), and so does a value looking like the form.
    let encoded = format!("=?base64?{}?=", "ZmlsZTovLy/DqXTDqQ==");
    check(
        &[V, read, ("Mcp-Name", encoded.as_bytes())],
        "resources/read",
        Some("file:///été"),
        Ok(()),
    );
    check(
        &[V, read, ("Mcp-Name", b"=?base64?PT9iYXNlNjQ/eD89?=")],
        "resources/read",
        Some("=?base64?x?="),
        Ok(()),
    );
    // Failures.
    check(
        &[list],
        "resources/list",
        None,
        Err("missing required header MCP-Protocol-Version"),
    );
    check(
        &[V],
        "resources/list",
        None,
        Err("missing required header Mcp-Method"),
    );
    check(
        &[V, list, list],
        "resources/list",
        None,
        Err("more than once"),
    );
    // A name repeated in another case is still repeated, wherever the repeat is.
    check(
        &[list, V, ("mcp-method", b"resources/list")],
        "resources/list",
        None,
        Err("Mcp-Method is given more than once"),
    );
    // The version is checked first, then the method, then the name.
    check(
        &[read, ("Mcp-Name", b"a"), ("Mcp-Name", b"a")],
        "resources/read",
        Some("test://a"),
        Err("missing required header MCP-Protocol-Version"),
    );
    check(
        &[V, ("Mcp-Name", b"test://b")],
        "resources/read",
        Some("test://a"),
        Err("missing required header Mcp-Method"),
    );
    check(
        &[V, ("Mcp-Method", b"resources/LIST")],
        "resources/list",
        None,
        Err("but the body says"),
    );
    check(
        &[V, list],
        "resources/read",
        Some("test://a"),
        Err("Mcp-Method"),
    );
    check(
        &[V, read],
        "resources/read",
        Some("test://a"),
        Err("missing required header Mcp-Name"),
    );
    check(
        &[V, read, ("Mcp-Name", b"test://b")],
        "resources/read",
        Some("test://a"),
        Err("Mcp-Name"),
    );
    check(
        &[V, read, ("Mcp-Name", "file:///été".as_bytes())],
        "resources/read",
        Some("file:///été"),
        Err("outside visible ascii"),
    );
    check(
        &[V, read, ("Mcp-Name", b"=?base64?***?=")],
        "resources/read",
        Some("test://a"),
        Err("not valid base64"),
    );
    check(
        &[V, read, ("Mcp-Name", b"=?base64?/w==?=")],
        "resources/read",
        Some("test://a"),
        Err("not utf-8"),
    );
    check(
        &[V, read, ("Mcp-Name", b"=?BASE64?dGVzdDovL2E=?=")],
        "resources/read",
        Some("test://a"),
        Err("Mcp-Name"),
    );
    check(
        &[("MCP-Protocol-Version", b"2025-11-25"), list],
        "resources/list",
        None,
        Err("MCP-Protocol-Version"),
    );
}

/// Members of a read's params that nobody reads (a lone surrogate, a number out of range) change
/// neither the header check nor the answer: the read is served over HTTP as any other.
#[test]
fn unread_members_change_neither_the_header_check_nor_the_answer() {
    use mcp_2026::Output;
    use mcp_resources_core::policy::Principal;
    use mcp_resources_core::service::{Offer, QueryContext};

    let (service, handler) = support::setup(support::Access::Open, Offer::default());
    let pairs: [(&str, &[u8]); 3] = [
        ("mcp-protocol-version", b"2026-07-28"),
        ("mcp-method", b"resources/read"),
        ("mcp-name", b"test://static-text"),
    ];
    let headers: RequestHeaders<'_> = pairs.iter().copied().collect();
    for extra in [r#""x":"\ud800""#, r#""x":1e400"#] {
        let json = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"test://static-text",{extra},{META}}}}}"#
        );
        let request = support::request(&json);
        assert_eq!(Handler::check_headers(&headers, &request), Ok(()), "{json}");
        let mut exchange = handler.start_http(request, &headers);
        let mut response = None;
        while let Some(output) = exchange.poll_output() {
            match output {
                Output::Send(outgoing) => response = Some(outgoing.bytes),
                Output::Query { ticket, query } => {
                    let anyone = Principal::anonymous();
                    let context = QueryContext {
                        principal: &anyone,
                        subscriber: None,
                    };
                    exchange
                        .handle_answer(ticket, pollster::block_on(service.answer(context, query)));
                }
                Output::Cancel { .. } => {}
            }
        }
        assert_eq!(exchange.http_status(), 200, "{json}");
        let response = String::from_utf8(response.expect("a response")).unwrap();
        assert!(
            response.contains(r#""contents":[{"uri":"test://static-text""#),
            "{response}"
        );
    }
}
