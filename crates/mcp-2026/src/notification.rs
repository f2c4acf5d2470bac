//! `notifications/resources/updated` of a listen stream written straight into bytes, for the
//! fan-out of a change to many streams.
//!
//! **Layer:** modern adapter, sans-io. One change reaches every listen stream of its URI, each of
//! which encodes nearly the same message (only the `subscriptionId` tag differs): through serde
//! that is a params struct, a `String` copy of the URI, a `_meta` map with its own key and value,
//! and an escaping pass over every string, most of what a notification costs the server outside
//! the kernel. Here the message is a few copies into a buffer of the exact size (plus
//! [`Outgoing::FRAMING_ROOM`], for the transport to frame it in place), byte for byte what serde
//! writes (the tests compare both). A URI or string id that would need escaping takes the serde
//! path. This module never knows an exchange or a transport.

use mcp_types::jsonrpc::RequestId;
use mcp_types::meta::SUBSCRIPTION_ID;
use mcp_types::method;

use crate::output::Outgoing;

/// Whether serde_json writes `text` inside quotes unchanged: no control character, quote or
/// backslash (everything else, non-ASCII included, is written as is).
fn needs_no_escape(text: &str) -> bool {
    // Without an early exit, so that the loop is vectorized: URIs are short.
    text.bytes().fold(true, |plain, byte| {
        plain & (byte >= 0x20) & (byte != b'"') & (byte != b'\\')
    })
}

/// `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":URI,
/// "_meta":{"io.modelcontextprotocol/subscriptionId":ID}}}`, or `None` when `uri` or a string
/// `listen_id` needs escaping.
pub(crate) fn resource_updated(uri: &str, listen_id: &RequestId) -> Option<Vec<u8>> {
    const HEAD: &str = r#"{"jsonrpc":"2.0","method":""#;
    const PARAMS: &str = r#"","params":{"uri":""#;
    const META: &str = r#"","_meta":{""#;
    const TAIL: &str = "}}}";
    if !needs_no_escape(uri) {
        return None;
    }
    let method = method::NOTIFICATION_RESOURCES_UPDATED;
    let id_length = match listen_id {
        RequestId::Number(number) => integer_length(*number),
        RequestId::String(id) if needs_no_escape(id) => id.len() + 2,
        RequestId::String(_) => return None,
    };
    let mut bytes = Vec::with_capacity(
        HEAD.len()
            + method.len()
            + PARAMS.len()
            + uri.len()
            + META.len()
            + SUBSCRIPTION_ID.len()
            + 2
            + id_length
            + TAIL.len()
            + Outgoing::FRAMING_ROOM,
    );
    bytes.extend_from_slice(HEAD.as_bytes());
    bytes.extend_from_slice(method.as_bytes());
    bytes.extend_from_slice(PARAMS.as_bytes());
    bytes.extend_from_slice(uri.as_bytes());
    bytes.extend_from_slice(META.as_bytes());
    bytes.extend_from_slice(SUBSCRIPTION_ID.as_bytes());
    bytes.extend_from_slice(b"\":");
    match listen_id {
        RequestId::Number(number) => write_integer(&mut bytes, *number),
        RequestId::String(id) => {
            bytes.push(b'"');
            bytes.extend_from_slice(id.as_bytes());
            bytes.push(b'"');
        }
    }
    bytes.extend_from_slice(TAIL.as_bytes());
    Some(bytes)
}

/// How many bytes `number` takes in decimal, its sign included.
fn integer_length(number: i64) -> usize {
    let digits = number
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |log| log as usize + 1);
    digits + usize::from(number < 0)
}

/// Appends `number` in decimal, as serde writes it (without `fmt`'s machinery).
fn write_integer(bytes: &mut Vec<u8>, number: i64) {
    if number < 0 {
        bytes.push(b'-');
    }
    let mut magnitude = number.unsigned_abs();
    let mut digits = [0_u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        // A remainder below 10 always fits in a byte.
        digits[start] = b'0' + u8::try_from(magnitude % 10).unwrap_or(0);
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    bytes.extend_from_slice(&digits[start..]);
}

#[cfg(test)]
mod tests {
    use mcp_types::jsonrpc::{self, Notification};
    use mcp_types::meta;
    use mcp_types::v2026_07_28 as wire;

    use super::*;

    /// What serde writes for the notification of `uri` on the listen stream `id`.
    fn through_serde(uri: &str, id: &RequestId) -> Vec<u8> {
        let params = wire::ResourceUpdatedNotificationParams {
            uri: uri.to_owned(),
            meta: Some(meta::subscription_meta(id)),
        };
        jsonrpc::to_vec(&Notification::new(
            method::NOTIFICATION_RESOURCES_UPDATED,
            Some(&params),
        ))
        .unwrap()
    }

    fn check(uri: &str, id: RequestId, direct: bool) {
        match resource_updated(uri, &id) {
            Some(bytes) => {
                assert!(direct, "{uri:?} {id:?} should take the serde path");
                assert_eq!(
                    bytes.capacity(),
                    bytes.len() + Outgoing::FRAMING_ROOM,
                    "{uri:?} {id:?}: the framing room, exactly"
                );
                assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    String::from_utf8(through_serde(uri, &id)).unwrap()
                );
            }
            None => assert!(!direct, "{uri:?} {id:?} should be written directly"),
        }
    }

    #[test]
    fn writes_what_serde_writes() {
        let text = |id: &str| RequestId::String(id.to_owned());
        check("file:///work/notes/a.md", RequestId::Number(7), true);
        check(
            "mem:///r/0000",
            RequestId::Number(-9_223_372_036_854_775_808),
            true,
        );
        check("mem:///r/0000", RequestId::Number(i64::MAX), true);
        check("mem:///r/0000", RequestId::Number(0), true);
        check("mem:///r/0000", RequestId::Number(-10), true);
        for number in [1, 9, 10, 99, 100, 12_345, -1, -99, -100] {
            check("mem:///r/0000", RequestId::Number(number), true);
        }
        check("mem:///r/0000", RequestId::Number(1_000_000), true);
        check("file:///caf%C3%A9/é/日本.txt", text("listen-1"), true);
        check("x:/a b?c=d&e#f", text(""), true);
        check("file:///a\"b", RequestId::Number(1), false);
        check("file:///a\nb", RequestId::Number(1), false);
        check("mem:///r", text("a\"b"), false);
        check("mem:///r", text("a\\b"), false);
    }
}
