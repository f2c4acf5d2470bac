//! Era selection as tables: which adapter serves a stdio message or an HTTP POST.

use mcp_resources_server::era::{
    HttpMessage, HttpRoute, StdioMessage, StdioRoute, has_modern_meta, modern_meta_version,
    route_http, route_stdio,
};
use mcp_types::jsonrpc::{Incoming, Message, decode_str};

fn request(method: &str, modern_meta: bool) -> StdioMessage<'_> {
    StdioMessage::Request {
        method,
        modern_meta,
    }
}

fn notification(method: &str, cancels_modern: bool) -> StdioMessage<'_> {
    StdioMessage::Notification {
        method,
        cancels_modern,
    }
}

/// The stdio transport reads a request's `_meta` only beside a legacy session: without one,
/// where a request goes does not depend on it.
#[test]
fn without_a_legacy_session_modern_meta_does_not_change_a_request_route() {
    for method in ["initialize", "resources/read", "server/discover", "ping"] {
        assert_eq!(
            route_stdio(request(method, true), false),
            route_stdio(request(method, false), false),
            "{method}"
        );
    }
}

#[test]
fn stdio_routes() {
    fn check(message: StdioMessage<'_>, legacy_session: bool, expect: StdioRoute) {
        assert_eq!(
            route_stdio(message, legacy_session),
            expect,
            "{message:?} with legacy session {legacy_session}"
        );
    }
    use StdioRoute::{CancelModern, Ignore, Legacy, Modern, RejectBatch};
    // `initialize` opens (or reaches) the process's legacy session, whatever else it carries.
    check(request("initialize", false), false, Legacy);
    check(request("initialize", false), true, Legacy);
    check(request("initialize", true), false, Legacy);
    // Modern `_meta` means modern, even beside a legacy session.
    check(request("server/discover", true), false, Modern);
    check(request("resources/read", true), true, Modern);
    check(request("subscriptions/listen", true), true, Modern);
    // Anything else: the legacy session when there is one, else modern (which says -32602).
    check(request("resources/list", false), true, Legacy);
    check(request("ping", false), true, Legacy);
    check(request("resources/list", false), false, Modern);
    check(request("ping", false), false, Modern);
    // Cancellation of a modern request in flight (a listen stream included).
    check(
        notification("notifications/cancelled", true),
        true,
        CancelModern,
    );
    check(
        notification("notifications/cancelled", true),
        false,
        CancelModern,
    );
    check(notification("notifications/cancelled", false), true, Legacy);
    check(
        notification("notifications/cancelled", false),
        false,
        Ignore,
    );
    // `cancels_modern` only means something for notifications/cancelled.
    check(notification("notifications/progress", true), true, Legacy);
    check(
        notification("notifications/initialized", false),
        true,
        Legacy,
    );
    check(
        notification("notifications/initialized", false),
        false,
        Ignore,
    );
    check(StdioMessage::Response, true, Legacy);
    check(StdioMessage::Response, false, Ignore);
    check(StdioMessage::Batch, true, Legacy);
    check(StdioMessage::Batch, false, RejectBatch);
}

#[test]
fn http_routes() {
    fn check(
        (batch, initialize, header_version, meta_version): (bool, bool, Option<&str>, Option<&str>),
        expect: HttpRoute,
    ) {
        let message = HttpMessage {
            batch,
            initialize,
            header_version,
            meta_version,
        };
        assert_eq!(route_http(message), expect, "{message:?}");
    }
    use HttpRoute::{Legacy, Modern, RejectBatch, RejectUnsupportedVersion, RejectVersionMismatch};
    const MODERN: Option<&str> = Some("2026-07-28");
    // `initialize` is legacy whatever the headers say.
    check((false, true, None, None), Legacy);
    check((false, true, MODERN, None), Legacy);
    check((false, true, Some("1999-01-01"), None), Legacy);
    // Header and body must agree.
    check(
        (false, false, MODERN, Some("2025-06-18")),
        RejectVersionMismatch,
    );
    check(
        (false, false, Some("2025-06-18"), MODERN),
        RejectVersionMismatch,
    );
    check(
        (false, false, Some("2026-07-29"), MODERN),
        RejectVersionMismatch,
    );
    // Modern: a modern header, or no header and a body version.
    check((false, false, MODERN, MODERN), Modern);
    check((false, false, MODERN, None), Modern);
    check((false, false, None, MODERN), Modern);
    check((false, false, None, Some("2025-06-18")), Modern);
    // Legacy: a legacy header, or nothing at all (2025-03-26).
    check((false, false, Some("2025-06-18"), None), Legacy);
    check((false, false, Some("2025-11-25"), None), Legacy);
    check((false, false, Some("2025-03-26"), None), Legacy);
    check((false, false, Some("2024-11-05"), None), Legacy);
    check((false, false, None, None), Legacy);
    check(
        (false, false, Some("2025-06-18"), Some("2025-06-18")),
        Legacy,
    );
    // Unknown header versions.
    check(
        (false, false, Some("2099-01-01"), None),
        RejectUnsupportedVersion,
    );
    check((false, false, Some(""), None), RejectUnsupportedVersion);
    check(
        (false, false, Some("2099-01-01"), Some("2099-01-01")),
        RejectUnsupportedVersion,
    );
    // Batches belong to legacy sessions (which accept them under 2025-03-26 only).
    check((true, false, None, None), Legacy);
    check((true, false, Some("2025-03-26"), None), Legacy);
    check((true, false, MODERN, None), RejectBatch);
}

#[test]
fn modern_meta_detection() {
    fn check(line: &str, expect: Option<&str>) {
        let Ok(Incoming::Single(Message::Request(request))) = decode_str(line) else {
            panic!("not a request: {line}");
        };
        assert_eq!(modern_meta_version(&request).as_deref(), expect, "{line}");
        assert_eq!(has_modern_meta(&request), expect.is_some(), "{line}");
    }
    let key = mcp_types::meta::PROTOCOL_VERSION;
    // Params given by position have no `_meta`, whatever their elements hold.
    check(
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":[{{"{key}":"2026-07-28"}}]}}"#),
        None,
    );
    check(
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{"{key}":"2026-07-28"}}}}}}"#
        ),
        Some("2026-07-28"),
    );
    check(
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{"{key}":"2025-06-18"}}}}}}"#
        ),
        Some("2025-06-18"),
    );
    // Present but not a string: still modern-shaped (the adapter rejects the value).
    check(
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{"{key}":7}}}}}}"#),
        Some(""),
    );
    check(r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#, None);
    check(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#, None);
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{}}}"#,
        None,
    );
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"progressToken":1}}}"#,
        None,
    );
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"protocolVersion":"2026-07-28"}}"#,
        None,
    );
    // The key spelled with JSON escapes is the same key (the fast path must not miss it).
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}}"#,
        Some("2026-07-28"),
    );
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocol\u0056ersion":"2026-07-28"}}}"#,
        Some("2026-07-28"),
    );
    // The key's text elsewhere than in `_meta` is not enough.
    check(
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"uri":"{key}","_meta":null}}}}"#
        ),
        None,
    );
}
