//! Params of the protocol-level notifications a resources server sends or receives:
//! `notifications/cancelled` and `notifications/progress`.
//!
//! **Layer:** wire types. The resource notifications live in [`crate::resources`], the logging
//! one in [`crate::logging`]. This module must never know which request is still running.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;
use crate::meta::{Meta, ProgressToken};
use crate::version::ProtocolVersion;

/// Params of `notifications/cancelled`.
///
/// `requestId` is required here as in every version but 2025-11-25, where only task
/// cancellations may leave it out; such a notification fails to parse and is ignored, which is
/// what a server without tasks does with it anyway.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel (or, sent by a modern server on stdio, of the listen
    /// request whose stream ends).
    pub request_id: RequestId,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token the request carried in `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; must increase with every notification. A JSON number kept exactly as
    /// written (`50` stays `50`, not `50.0`).
    pub progress: serde_json::Number,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<serde_json::Number>,
    /// A human-readable description of the progress (2025-03-26 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ProgressNotificationParams {
    /// The params of the last progress notification of a request whose work was one step, now
    /// done: progress 1 of a total of 1, with `message`.
    pub fn done(progress_token: ProgressToken, message: Option<String>) -> Self {
        ProgressNotificationParams {
            progress_token,
            progress: 1.into(),
            total: Some(1.into()),
            message,
            meta: None,
        }
    }

    /// The same params without what `version` does not define (`message` before 2025-03-26).
    pub fn for_version(mut self, version: &ProtocolVersion) -> Self {
        if !version.has_progress_message() {
            self.message = None;
        }
        self
    }
}

/// The whole `notifications/progress` message of [`ProgressNotificationParams::done`] with
/// `token` and `message`, written by hand: byte for byte what serde writes for that
/// notification (the tests compare both). A server that does a request's work in one step
/// sends it before the response of every request that asks for progress, such as a read,
/// where serde would take as long to write it as to write the whole response's envelope.
pub fn progress_done_message(token: &ProgressToken, message: Option<&str>) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(128);
    bytes.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
    );
    match token {
        RequestId::Number(number) => {
            bytes.extend_from_slice(itoa::Buffer::new().format(*number).as_bytes());
        }
        RequestId::String(text) => crate::jsonrpc::write_string(&mut bytes, text),
    }
    bytes.extend_from_slice(br#","progress":1,"total":1"#);
    if let Some(message) = message {
        bytes.extend_from_slice(br#","message":"#);
        crate::jsonrpc::write_string(&mut bytes, message);
    }
    bytes.extend_from_slice(b"}}");
    bytes
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{ProgressNotificationParams, progress_done_message};
    use crate::jsonrpc::{Notification, RequestId, to_vec};

    /// What serde writes for the same notification.
    fn through_serde(token: &RequestId, message: Option<&str>) -> Vec<u8> {
        let params = ProgressNotificationParams::done(token.clone(), message.map(str::to_owned));
        to_vec(&Notification::new("notifications/progress", Some(params))).expect("serializes")
    }

    #[test]
    fn writes_what_serde_writes() {
        let tokens = [
            RequestId::Number(0),
            RequestId::Number(i64::MIN),
            RequestId::Number(i64::MAX),
            RequestId::String(String::new()),
            RequestId::String("a \"quoted\" \\ token\u{7}é".to_owned()),
        ];
        for token in &tokens {
            for message in [None, Some("done"), Some("line\nbreak")] {
                let written = progress_done_message(token, message);
                assert_eq!(
                    String::from_utf8(written).expect("utf-8"),
                    String::from_utf8(through_serde(token, message)).expect("utf-8"),
                    "{token:?} {message:?}"
                );
            }
        }
        assert_eq!(
            progress_done_message(&RequestId::Number(7), None),
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":1}}"#
        );
    }

    proptest! {
        #[test]
        fn writes_what_serde_writes_for_any_token(
            number: i64,
            text in "\\PC{0,12}|[\"\\\\\u{0}-\u{1f}]{0,4}",
            message in proptest::option::of("\\PC{0,8}"),
        ) {
            for token in [RequestId::Number(number), RequestId::String(text.clone())] {
                let message = message.as_deref();
                prop_assert_eq!(
                    progress_done_message(&token, message),
                    through_serde(&token, message)
                );
            }
        }
    }
}
