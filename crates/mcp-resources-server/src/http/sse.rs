//! Server-sent events framing: how a JSON-RPC message and a keep-alive look
//! on a `text/event-stream` body.
//!
//! **Layer:** server, HTTP transport; byte framing only. A message is written as one `data:`
//! line: the adapters emit compact JSON, which never holds a raw line break. This module must
//! never know JSON-RPC, either era or the service.

use std::collections::VecDeque;

use axum::body::Bytes;

/// The media type of an SSE body.
pub(crate) const CONTENT_TYPE: &str = "text/event-stream";

/// What comes before and after a message's JSON in its event.
const PREFIX: &[u8] = b"data: ";
const SUFFIX: &[u8] = b"\n\n";

/// How many bytes the framing adds to a message: the room [`message_in`] needs to frame it in
/// place.
pub(crate) const FRAMING: usize = PREFIX.len() + SUFFIX.len();

/// One JSON message as an SSE `message` event.
pub(crate) fn message(json: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(json.len() + FRAMING);
    frame.extend_from_slice(PREFIX);
    frame.extend_from_slice(json);
    frame.extend_from_slice(SUFFIX);
    Bytes::from(frame)
}

/// Like [`message`], framed within `json`'s own buffer when it has room for the framing (the
/// adapters write a listen stream's notifications with that room to spare): one change is sent
/// on every stream of its URI, and a new buffer per stream is a copy into memory not yet in
/// cache. The buffer becomes the frame without another allocation when the room is exact.
pub(crate) fn message_in(json: Vec<u8>) -> Bytes {
    let length = json.len();
    if json.capacity() - length < FRAMING {
        return message(&json);
    }
    let mut frame = json;
    frame.resize(length + FRAMING, 0);
    frame.copy_within(..length, PREFIX.len());
    frame[..PREFIX.len()].copy_from_slice(PREFIX);
    frame[PREFIX.len() + length..].copy_from_slice(SUFFIX);
    Bytes::from(frame)
}

/// Frames `json` as an event ([`message_in`]) for a live stream that sends `first` before
/// anything in `queued`: it becomes `first` if that is still free and nothing is queued, else it
/// is queued. A stream's usual single notification then touches no queue.
pub(crate) fn message_first_in(
    first: &mut Option<Bytes>,
    queued: &mut VecDeque<Bytes>,
    json: Vec<u8>,
) {
    let frame = message_in(json);
    if first.is_none() && queued.is_empty() {
        *first = Some(frame);
    } else {
        queued.push_back(frame);
    }
}

/// A comment line: clients ignore it; proxies see traffic and keep the stream open.
pub(crate) fn keep_alive() -> Bytes {
    Bytes::from_static(b":\n\n")
}

/// Several messages, `earlier` then `last`, as one buffered SSE body, framed within `last`'s
/// own buffer: `last` is a request's response, the largest message (a read's contents), which
/// an adapter writes into the thread's spare buffer, and the body gives that buffer back once
/// sent. Copying it into a new buffer instead would take the allocator's slow paths at every
/// such request, as the response alone as a JSON body does not.
pub(crate) fn messages_in(earlier: &[Vec<u8>], last: Vec<u8>) -> Vec<u8> {
    let head: usize = earlier
        .iter()
        .map(|json| json.len() + FRAMING)
        .sum::<usize>()
        + PREFIX.len();
    let length = last.len();
    let mut body = last;
    body.resize(head + length + SUFFIX.len(), 0);
    body.copy_within(..length, head);
    let mut at = 0;
    for json in earlier {
        for part in [PREFIX, json, SUFFIX] {
            body[at..at + part.len()].copy_from_slice(part);
            at += part.len();
        }
    }
    body[at..head].copy_from_slice(PREFIX);
    body[head + length..].copy_from_slice(SUFFIX);
    body
}

#[cfg(test)]
mod tests {
    #[test]
    fn frames() {
        assert_eq!(&super::message(br#"{"a":1}"#)[..], b"data: {\"a\":1}\n\n");
        assert_eq!(&super::keep_alive()[..], b":\n\n");
        // In place with room to spare, exact or not, and copied without it.
        for room in [0, 7, 8, 20] {
            let mut json = Vec::with_capacity(7 + room);
            json.extend_from_slice(br#"{"a":1}"#);
            let address = json.as_ptr();
            let frame = super::message_in(json);
            assert_eq!(&frame[..], b"data: {\"a\":1}\n\n", "room {room}");
            assert_eq!(frame.as_ptr() == address, room >= 8, "room {room}");
        }
        let earlier = [b"1".to_vec(), br#"{"b":2}"#.to_vec()];
        assert_eq!(
            super::messages_in(&earlier, b"[3]".to_vec()),
            b"data: 1\n\ndata: {\"b\":2}\n\ndata: [3]\n\n".to_vec()
        );
        assert_eq!(
            super::messages_in(&[], b"4".to_vec()),
            b"data: 4\n\n".to_vec()
        );
        // Within the last message's buffer, when it has the room.
        let mut last = Vec::with_capacity(100);
        last.extend_from_slice(b"last");
        let address = last.as_ptr();
        let body = super::messages_in(&earlier[..1], last);
        assert_eq!(body, b"data: 1\n\ndata: last\n\n".to_vec());
        assert_eq!(body.as_ptr(), address);
    }
}
