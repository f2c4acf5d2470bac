//! Server-sent events framing: how a JSON-RPC message and a keep-alive look
//! on a `text/event-stream` body.
//!
//! **Layer:** server, HTTP transport; byte framing only. A message is written as one `data:`
//! line: the adapters emit compact JSON, which never holds a raw line break. This module must
//! never know JSON-RPC, either era or the service.

use axum::body::Bytes;

/// The media type of an SSE body.
pub(crate) const CONTENT_TYPE: &str = "text/event-stream";

/// One JSON message as an SSE `message` event.
pub(crate) fn message(json: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(json.len() + 8);
    frame.extend_from_slice(b"data: ");
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// A comment line: clients ignore it; proxies see traffic and keep the stream open.
pub(crate) fn keep_alive() -> Bytes {
    Bytes::from_static(b":\n\n")
}

/// Several messages as one buffered SSE body.
pub(crate) fn messages<'a>(jsons: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut body = Vec::new();
    for json in jsons {
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(json);
        body.extend_from_slice(b"\n\n");
    }
    body
}

#[cfg(test)]
mod tests {
    #[test]
    fn frames() {
        assert_eq!(&super::message(br#"{"a":1}"#)[..], b"data: {\"a\":1}\n\n");
        assert_eq!(&super::keep_alive()[..], b":\n\n");
        assert_eq!(
            super::messages([&b"1"[..], &b"2"[..]]),
            b"data: 1\n\ndata: 2\n\n".to_vec()
        );
    }
}
