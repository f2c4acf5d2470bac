//! The HTTP responses of the transport: JSON bodies, buffered and live SSE bodies, bare
//! statuses and transport-level JSON-RPC errors.
//!
//! **Layer:** server, HTTP transport; response building only. This module never decides what
//! to answer, only how it looks on the wire.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use mcp_types::jsonrpc::{ErrorObject, RequestId};

use crate::http::sse;

const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static(sse::CONTENT_TYPE);

/// A response with `status` and no body.
pub(crate) fn status(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// A JSON body.
pub(crate) fn json(status: StatusCode, bytes: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, APPLICATION_JSON);
    response
}

/// A JSON-RPC error response produced by the transport itself (before any adapter saw the
/// message): `status` with `{"jsonrpc":"2.0","id":…,"error":…}`, the `id` left out when
/// unknown.
pub(crate) fn error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    let response: mcp_types::jsonrpc::Response<()> = mcp_types::jsonrpc::Response::error(id, error);
    match mcp_types::jsonrpc::to_vec(&response) {
        Ok(bytes) => json(status, bytes),
        Err(_) => self::status(status),
    }
}

/// The messages of one POST: one message as a JSON body, several (notifications, then the
/// response) as one buffered SSE body, none as `202 Accepted`.
pub(crate) fn messages(messages: Vec<mcp_legacy_2025::Outgoing>) -> Response {
    let bytes: Vec<Vec<u8>> = messages.into_iter().map(|message| message.bytes).collect();
    modern(200, bytes)
}

/// The messages of one request with the status its exchange chose.
pub(crate) fn modern(http_status: u16, mut messages: Vec<Vec<u8>>) -> Response {
    let status = StatusCode::from_u16(http_status).unwrap_or(StatusCode::OK);
    match messages.len() {
        0 => self::status(StatusCode::ACCEPTED),
        1 => json(status, messages.pop().unwrap_or_default()),
        _ => {
            let body = sse::messages(messages.iter().map(Vec::as_slice));
            let mut response = event_stream(Body::from(body));
            *response.status_mut() = status;
            response
        }
    }
}

/// An SSE response around `body`, unbuffered by proxies.
pub(crate) fn event_stream(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, EVENT_STREAM);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
