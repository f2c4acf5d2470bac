//! The names of the methods a resources server speaks, as constants the adapters dispatch on
//! (by string: a marker type per method, lsp-types style, was here and nothing used it).
//!
//! **Layer:** wire types. Methods outside a resources server's scope (tools, prompts,
//! sampling, elicitation, tasks) have no constant: an adapter answers them with `-32601`. This
//! module must never dispatch.

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
/// `resources/directory/read` (the Skills extension, both eras).
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
/// `skills/list` (the Skills extension, both eras).
pub const SKILLS_LIST: &str = "skills/list";
/// `skills/get` (the Skills extension, both eras).
pub const SKILLS_GET: &str = "skills/get";
/// `resources/subscribe` (legacy).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (legacy).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `subscriptions/listen` (modern).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `tools/list` (served only by the resources-as-tools bridge).
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call` (served only by the resources-as-tools bridge).
pub const TOOLS_CALL: &str = "tools/call";
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
