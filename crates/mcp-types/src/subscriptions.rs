//! `subscriptions/listen` (2026-07-28): the filter, the request params, the acknowledgment
//! notification and the graceful close result.
//!
//! **Layer:** wire types. The legacy `resources/subscribe` params are in [`crate::resources`].
//! This module must never hold subscription state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::meta::Meta;
use crate::result_type::ResultType;

/// Which notifications a listen request asks for, and the subset the server acknowledges.
/// An omitted field means "not subscribed".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
}

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubscriptionsListenParams {
    /// Request metadata (required; parse it with
    /// [`crate::request_meta::RequestMeta::parse`]). Read as empty when absent so the adapter can
    /// name the missing key.
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
    /// What the client wants to hear about.
    pub notifications: SubscriptionFilter,
}

/// Params of `notifications/subscriptions/acknowledged`, the first message of a listen stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// Carries `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The subset of the requested notifications the server will send.
    pub notifications: SubscriptionFilter,
}

/// The graceful close result of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Carries `io.modelcontextprotocol/subscriptionId` (required).
    #[serde(rename = "_meta")]
    pub meta: Meta,
}
