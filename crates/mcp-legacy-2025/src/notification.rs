//! `notifications/resources/updated` written straight into bytes, for the fan-out of a change to
//! many sessions.
//!
//! **Layer:** legacy adapter, sans-io. One change reaches every subscribed session, each of which
//! encodes the same message: through serde that is a params struct, a `String` copy of the URI
//! and an escaping pass over every string, most of what a notification costs the server outside
//! the kernel. Here the message is three copies into a buffer of the exact size (plus
//! [`Outgoing::FRAMING_ROOM`], for the transport to frame it in place), byte for byte what serde
//! writes (the tests compare both). A URI that would need escaping takes the serde path. This
//! module never knows a session, a transport or an era beyond this one message.

use mcp_types::method;

use crate::output::Outgoing;

/// Whether serde_json writes `text` inside quotes unchanged: no control character, quote or
/// backslash (everything else, non-ASCII included, is written as is).
pub(crate) fn needs_no_escape(text: &str) -> bool {
    // Without an early exit, so that the loop is vectorized: URIs are short.
    text.bytes().fold(true, |plain, byte| {
        plain & (byte >= 0x20) & (byte != b'"') & (byte != b'\\')
    })
}

/// `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":URI}}`, or
/// `None` when `uri` needs escaping.
pub(crate) fn resource_updated(uri: &str) -> Option<Vec<u8>> {
    const HEAD: &str = r#"{"jsonrpc":"2.0","method":""#;
    const PARAMS: &str = r#"","params":{"uri":""#;
    const TAIL: &str = r#""}}"#;
    if !needs_no_escape(uri) {
        return None;
    }
    let method = method::NOTIFICATION_RESOURCES_UPDATED;
    let mut bytes = Vec::with_capacity(
        HEAD.len() + method.len() + PARAMS.len() + uri.len() + TAIL.len() + Outgoing::FRAMING_ROOM,
    );
    bytes.extend_from_slice(HEAD.as_bytes());
    bytes.extend_from_slice(method.as_bytes());
    bytes.extend_from_slice(PARAMS.as_bytes());
    bytes.extend_from_slice(uri.as_bytes());
    bytes.extend_from_slice(TAIL.as_bytes());
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use mcp_types::jsonrpc::{self, Notification};
    use mcp_types::resources::ResourceUpdatedNotificationParams;

    use super::*;

    /// What serde writes for the notification of `uri`.
    fn through_serde(uri: &str) -> Vec<u8> {
        let params = ResourceUpdatedNotificationParams {
            uri: uri.to_owned(),
            meta: None,
        };
        jsonrpc::to_vec(&Notification::new(
            method::NOTIFICATION_RESOURCES_UPDATED,
            Some(params),
        ))
        .unwrap()
    }

    fn check(uri: &str, direct: bool) {
        match resource_updated(uri) {
            Some(bytes) => {
                assert!(direct, "{uri:?} should take the serde path");
                assert_eq!(
                    bytes.capacity(),
                    bytes.len() + Outgoing::FRAMING_ROOM,
                    "{uri:?}: the framing room, exactly"
                );
                assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    String::from_utf8(through_serde(uri)).unwrap()
                );
            }
            None => assert!(!direct, "{uri:?} should be written directly"),
        }
    }

    #[test]
    fn writes_what_serde_writes() {
        check("file:///work/notes/a.md", true);
        check("mem:///r/0000", true);
        check("file:///caf%C3%A9/é/日本.txt", true);
        check("x:/a b?c=d&e#f", true);
        check("", true);
        check("file:///a\"b", false);
        check("file:///a\\b", false);
        check("file:///a\nb", false);
        check("file:///a\u{7f}b", true);
    }
}
