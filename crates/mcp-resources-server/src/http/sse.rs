//! Server-sent events framing: how a JSON-RPC message and a keep-alive look
//! on a `text/event-stream` body, and when a live stream's keep-alive is due.
//!
//! **Layer:** server, HTTP transport; byte framing only, and the keep-alive's timer. A message
//! is written as one `data:` line: the adapters emit compact JSON, which never holds a raw line
//! break. This module must never know JSON-RPC, either era or the service.

use std::time::Duration;

use axum::body::Bytes;
use tokio::time::{Instant, Interval, MissedTickBehavior};

/// The media type of an SSE body.
pub(crate) const CONTENT_TYPE: &str = "text/event-stream";

/// What comes before and after a message's JSON in its event.
const PREFIX: &[u8] = b"data: ";
const SUFFIX: &[u8] = b"\n\n";

/// One JSON message as an SSE `message` event.
pub(crate) fn message(json: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(PREFIX.len() + json.len() + SUFFIX.len());
    append(&mut frame, json);
    Bytes::from(frame)
}

/// Appends `json` as one event to `body`.
fn append(body: &mut Vec<u8>, json: &[u8]) {
    body.extend_from_slice(PREFIX);
    body.extend_from_slice(json);
    body.extend_from_slice(SUFFIX);
}

/// A comment line: clients ignore it; proxies see traffic and keep the stream open.
pub(crate) fn keep_alive() -> Bytes {
    Bytes::from_static(b":\n\n")
}

/// A live stream's keep-alive timer: a tick each `period`, the first a whole period from now;
/// a tick taken late delays the later ones rather than being made up for.
pub(crate) fn keep_alive_timer(period: Duration) -> Interval {
    let mut timer = tokio::time::interval_at(Instant::now() + period, period);
    timer.set_missed_tick_behavior(MissedTickBehavior::Delay);
    timer
}

/// Several messages, in order, as one buffered SSE body.
pub(crate) fn messages(messages: &[Vec<u8>]) -> Vec<u8> {
    let mut body = Vec::with_capacity(
        messages
            .iter()
            .map(|json| PREFIX.len() + json.len() + SUFFIX.len())
            .sum(),
    );
    for json in messages {
        append(&mut body, json);
    }
    body
}

#[cfg(test)]
mod tests {
    #[test]
    fn frames() {
        assert_eq!(&super::message(br#"{"a":1}"#)[..], b"data: {\"a\":1}\n\n");
        assert_eq!(&super::keep_alive()[..], b":\n\n");
        let messages = [b"1".to_vec(), br#"{"b":2}"#.to_vec(), b"[3]".to_vec()];
        assert_eq!(
            super::messages(&messages),
            b"data: 1\n\ndata: {\"b\":2}\n\ndata: [3]\n\n".to_vec()
        );
    }
}
