//! The HTTP responses of the transport: JSON bodies, buffered and live SSE bodies, bare
//! statuses and transport-level JSON-RPC errors.
//!
//! **Layer:** server, HTTP transport; response building only. This module never decides what
//! to answer, only how it looks on the wire.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use hyper::body::{Frame, SizeHint};
use mcp_types::jsonrpc::{ErrorObject, RequestId};

use crate::http::{limits, sse};

/// A response of the endpoint.
pub(crate) type Response = axum::http::Response<Body>;

/// The body of a [`Response`]: whole, or a live SSE stream. One type rather than a boxed
/// one until the router's handler hands it to axum, so that a whole body can be charged to
/// its client ([`Body::charge`]).
pub(crate) enum Body {
    /// The whole body, sent as one frame; `None` once sent, or for an empty body.
    Whole(Option<Bytes>),
    /// A stream that lives until the server, the session or the client ends it.
    Live(LiveStream),
}

/// A live SSE stream of either era (a modern listen stream, a legacy GET stream): its frames,
/// until it is over. Neither stream fails. A trait object, so that this module names neither
/// era's stream.
pub(crate) type LiveStream = Pin<Box<dyn futures_util::Stream<Item = Bytes> + Send>>;

impl Body {
    /// The length of a whole body; `None` for a live stream.
    pub(crate) fn whole_len(&self) -> Option<usize> {
        match self {
            Body::Whole(bytes) => Some(bytes.as_ref().map_or(0, Bytes::len)),
            Body::Live(_) => None,
        }
    }

    /// Makes the bytes of a whole body hold `held` until the last of them is dropped (sent, or
    /// dropped with the connection): the bytes a client holds are counted for as long as they
    /// take memory.
    pub(crate) fn charge(&mut self, held: limits::Held) {
        if let Body::Whole(Some(bytes)) = self {
            *bytes = Bytes::from_owner(Charged {
                bytes: std::mem::take(bytes),
                _held: held,
            });
        }
    }

    /// A whole body of `bytes`.
    fn whole(bytes: Vec<u8>) -> Body {
        if bytes.is_empty() {
            return Body::Whole(None);
        }
        Body::Whole(Some(Bytes::from(bytes)))
    }
}

/// A body's bytes and the quota they hold ([`Body::charge`]).
struct Charged {
    bytes: Bytes,
    _held: limits::Held,
}

impl AsRef<[u8]> for Charged {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            Body::Whole(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Body::Live(live) => live
                .as_mut()
                .poll_next(context)
                .map(|frame| frame.map(|bytes| Ok(Frame::data(bytes)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Whole(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, Bytes::len) as u64),
            Body::Live(_) => SizeHint::default(),
        }
    }
}

const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static(sse::CONTENT_TYPE);

/// A response with `status` and no body.
pub(crate) fn status(status: StatusCode) -> Response {
    let mut response = Response::new(Body::Whole(None));
    *response.status_mut() = status;
    response
}

/// A JSON body.
pub(crate) fn json(status: StatusCode, bytes: Vec<u8>) -> Response {
    let mut response = Response::new(Body::whole(bytes));
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
    match messages.pop() {
        None => self::status(StatusCode::ACCEPTED),
        Some(last) => replying(status, &messages, last),
    }
}

/// `last` (the response) alone as a JSON body, or after `earlier` (its request's
/// notifications) as one SSE body, with `status`.
fn replying(status: StatusCode, earlier: &[Vec<u8>], last: Vec<u8>) -> Response {
    if earlier.is_empty() {
        return json(status, last);
    }
    let mut all = earlier.to_vec();
    all.push(last);
    let mut response = event_stream(Body::whole(sse::messages(&all)));
    *response.status_mut() = status;
    response
}

/// A live SSE stream's response.
pub(crate) fn live(stream: impl futures_util::Stream<Item = Bytes> + Send + 'static) -> Response {
    event_stream(Body::Live(Box::pin(stream)))
}

/// An SSE response around `body`, unbuffered by proxies.
fn event_stream(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, EVENT_STREAM);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
