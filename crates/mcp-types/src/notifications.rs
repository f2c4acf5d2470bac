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
