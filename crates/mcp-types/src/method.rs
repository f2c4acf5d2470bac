//! Method names and one marker type per method, lsp-types style: each marker names its
//! `METHOD` string and its `Params` and `Result` types.
//!
//! **Layer:** wire types. The markers of [`legacy`] use the newest legacy shapes (2025-11-25);
//! an adapter converts results down with the revision modules' `From` impls. The markers of
//! [`modern`] use the 2026-07-28 types. Methods outside a resources server's scope (tools,
//! prompts, sampling, elicitation, tasks) have a name constant only, so an adapter can answer
//! them with `-32601`. This module must never dispatch.

/// A request method: its name, params and result.
pub trait Request {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The params type.
    type Params;
    /// The result type.
    type Result;
}

/// A notification method: its name and params.
pub trait Notification {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The params type.
    type Params;
}

/// `initialize` (legacy).
pub const INITIALIZE: &str = "initialize";
/// `ping` (legacy).
pub const PING: &str = "ping";
/// `server/discover` (modern).
pub const SERVER_DISCOVER: &str = "server/discover";
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe` (legacy).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (legacy).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `subscriptions/listen` (modern).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `logging/setLevel` (legacy).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `notifications/initialized` (legacy).
pub const NOTIFICATION_INITIALIZED: &str = "notifications/initialized";
/// `notifications/cancelled`.
pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`.
pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
/// `notifications/message`.
pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
/// `notifications/resources/updated`.
pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/resources/list_changed`.
pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `notifications/subscriptions/acknowledged` (modern).
pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
    "notifications/subscriptions/acknowledged";
/// `notifications/roots/list_changed` (legacy, client to server; a resources server ignores it).
pub const NOTIFICATION_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";

macro_rules! request {
    ($(#[$doc:meta])* $name:ident, $method:expr, $params:ty, $result:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}
        impl $crate::method::Request for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }
    };
}

macro_rules! notification {
    ($(#[$doc:meta])* $name:ident, $method:expr, $params:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}
        impl $crate::method::Notification for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
}

/// Markers of the legacy era (2024-11-05 to 2025-11-25), in the newest legacy shapes.
pub mod legacy {
    use super::*;
    use crate::v2025_11_25 as wire;

    request!(
        /// `initialize`.
        Initialize, INITIALIZE, wire::InitializeParams, wire::InitializeResult
    );
    request!(
        /// `ping`.
        Ping, PING, wire::MetaParams, wire::EmptyResult
    );
    request!(
        /// `resources/list`.
        ListResources, RESOURCES_LIST, wire::PaginatedParams, wire::ListResourcesResult
    );
    request!(
        /// `resources/templates/list`.
        ListResourceTemplates,
        RESOURCES_TEMPLATES_LIST,
        wire::PaginatedParams,
        wire::ListResourceTemplatesResult
    );
    request!(
        /// `resources/read`.
        ReadResource, RESOURCES_READ, wire::ReadResourceParams, wire::ReadResourceResult
    );
    request!(
        /// `resources/subscribe`.
        Subscribe, RESOURCES_SUBSCRIBE, wire::SubscribeParams, wire::EmptyResult
    );
    request!(
        /// `resources/unsubscribe`.
        Unsubscribe, RESOURCES_UNSUBSCRIBE, wire::UnsubscribeParams, wire::EmptyResult
    );
    request!(
        /// `completion/complete`.
        Complete, COMPLETION_COMPLETE, wire::CompleteParams, wire::CompleteResult
    );
    request!(
        /// `logging/setLevel`.
        SetLevel, LOGGING_SET_LEVEL, wire::SetLevelParams, wire::EmptyResult
    );
    notification!(
        /// `notifications/initialized`.
        Initialized, NOTIFICATION_INITIALIZED, wire::MetaParams
    );
    notification!(
        /// `notifications/cancelled`.
        Cancelled, NOTIFICATION_CANCELLED, wire::CancelledNotificationParams
    );
    notification!(
        /// `notifications/progress`.
        Progress, NOTIFICATION_PROGRESS, wire::ProgressNotificationParams
    );
    notification!(
        /// `notifications/message`.
        LoggingMessage, NOTIFICATION_MESSAGE, wire::LoggingMessageNotificationParams
    );
    notification!(
        /// `notifications/resources/updated`.
        ResourceUpdated, NOTIFICATION_RESOURCES_UPDATED, wire::ResourceUpdatedNotificationParams
    );
    notification!(
        /// `notifications/resources/list_changed`.
        ResourceListChanged,
        NOTIFICATION_RESOURCES_LIST_CHANGED,
        wire::ResourceListChangedNotificationParams
    );
}

/// Markers of the modern era (2026-07-28).
pub mod modern {
    use super::*;
    use crate::v2026_07_28 as wire;

    request!(
        /// `server/discover`.
        Discover, SERVER_DISCOVER, wire::DiscoverParams, wire::DiscoverResult
    );
    request!(
        /// `resources/list`.
        ListResources, RESOURCES_LIST, wire::PaginatedParams, wire::ListResourcesResult
    );
    request!(
        /// `resources/templates/list`.
        ListResourceTemplates,
        RESOURCES_TEMPLATES_LIST,
        wire::PaginatedParams,
        wire::ListResourceTemplatesResult
    );
    request!(
        /// `resources/read` (a complete result; an interim one is an `InputRequiredResult`).
        ReadResource, RESOURCES_READ, wire::ReadResourceParams, wire::ReadResourceResult
    );
    request!(
        /// `completion/complete`.
        Complete, COMPLETION_COMPLETE, wire::CompleteParams, wire::CompleteResult
    );
    request!(
        /// `subscriptions/listen` (its result is the graceful close).
        SubscriptionsListen,
        SUBSCRIPTIONS_LISTEN,
        wire::SubscriptionsListenParams,
        wire::SubscriptionsListenResult
    );
    notification!(
        /// `notifications/cancelled`.
        Cancelled, NOTIFICATION_CANCELLED, wire::CancelledNotificationParams
    );
    notification!(
        /// `notifications/progress`.
        Progress, NOTIFICATION_PROGRESS, wire::ProgressNotificationParams
    );
    notification!(
        /// `notifications/message`.
        LoggingMessage, NOTIFICATION_MESSAGE, wire::LoggingMessageNotificationParams
    );
    notification!(
        /// `notifications/resources/updated`.
        ResourceUpdated, NOTIFICATION_RESOURCES_UPDATED, wire::ResourceUpdatedNotificationParams
    );
    notification!(
        /// `notifications/resources/list_changed`.
        ResourceListChanged,
        NOTIFICATION_RESOURCES_LIST_CHANGED,
        wire::ResourceListChangedNotificationParams
    );
    notification!(
        /// `notifications/subscriptions/acknowledged`.
        SubscriptionsAcknowledged,
        NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
        wire::SubscriptionsAcknowledgedNotificationParams
    );
}
