//! Logging: the syslog-style level, `logging/setLevel` params (legacy) and the params of
//! `notifications/message`.
//!
//! **Layer:** wire types. The same shapes in every version; logging is deprecated in 2026-07-28,
//! where the level comes per request in `_meta` instead of `logging/setLevel`. This module must
//! never decide what to log.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::meta::Meta;

/// A log severity, ordered from `Debug` (least severe) to `Emergency` (most severe).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// General informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// Params of `logging/setLevel` (legacy era only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetLevelParams {
    /// The minimum level the client wants to receive.
    pub level: LoggingLevel,
    /// Request metadata, such as a progress token.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoggingMessageNotificationParams {
    /// The severity of the message.
    pub level: LoggingLevel,
    /// The name of the logger that issued it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: a string or any JSON value.
    pub data: serde_json::Value,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
