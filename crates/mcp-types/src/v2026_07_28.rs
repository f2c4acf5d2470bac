//! The wire types of protocol version 2026-07-28, the first modern (stateless) version, exactly
//! as it knows them.
//!
//! **Layer:** wire types, one revision. The data types (resources, templates, contents,
//! annotations, icons, `Implementation`) are the 2025-11-25 shapes, re-exported. What is new is
//! the envelope of every exchange: every request's params carry a required `_meta` (parse it
//! with [`crate::request_meta::RequestMeta::parse`]), every result carries `resultType`, and the
//! cacheable results (`server/discover`, `resources/list`, `resources/templates/list`,
//! `resources/read`) carry `ttlMs` and `cacheScope`. Legacy results never have those fields; the
//! `From` impls at the end turn a modern result into the legacy one by dropping them. This module
//! must never know listen streams or caching policy.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::capabilities::{ClientCapabilities, ServerCapabilities};
pub use crate::completion::{
    Completion, CompletionArgument, CompletionContext, CompletionReference,
};
pub use crate::lifecycle::{Implementation, MetaParams};
pub use crate::logging::{LoggingLevel, LoggingMessageNotificationParams};
pub use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
pub use crate::resources::{
    Annotations, BlobResourceContents, Icon, IconTheme, Resource, ResourceContents, ResourceLink,
    ResourceLinkType, ResourceListChangedNotificationParams, ResourceTemplate,
    ResourceUpdatedNotificationParams, Role, TextResourceContents,
};
pub use crate::result_type::ResultType;
pub use crate::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenParams,
    SubscriptionsListenResult,
};

use crate::meta::Meta;
use crate::version::ProtocolVersion;

/// Who may reuse a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any cache may serve it to anyone.
    Public,
    /// Reusable only within the same authorization context.
    Private,
}

/// The caching hints of a cacheable result, as a pair to pass to constructors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheHints {
    /// Freshness in milliseconds (`0` means immediately stale).
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub cache_scope: CacheScope,
}

/// Params holding only the required `_meta` (`server/discover`).
///
/// `_meta` reads as empty when absent so that the adapter can name the missing key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
}

/// Params of `server/discover`.
pub type DiscoverParams = RequestParams;

/// Params of `resources/list` and `resources/templates/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PaginatedParams {
    /// Request metadata (required).
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Params of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceParams {
    /// Request metadata (required).
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
    /// The resource URI.
    pub uri: String,
    /// Answers to an earlier `InputRequiredResult`, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Meta>,
    /// The opaque state of an earlier `InputRequiredResult`, echoed exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// Params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompleteParams {
    /// Request metadata (required).
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Resolved variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

/// A result with nothing but `resultType` (and `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Result metadata, such as `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `server/discover` (cacheable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Every version the server speaks.
    pub supported_versions: Vec<ProtocolVersion>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Guidance for the client's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub cache_scope: CacheScope,
    /// Result metadata; the server identity goes here under `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `resources/list` (cacheable), generic over its entries: owned [`Resource`]s, or
/// entries a server writes from its own values ([`crate::resources::ResourceRef`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult<R = Resource> {
    /// Always `complete`.
    pub result_type: ResultType,
    /// This page of resources.
    pub resources: Vec<R>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it (the same on every page of one list).
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl<R> ListResourcesResult<R> {
    /// A complete page with its caching hints.
    pub fn new(resources: Vec<R>, next_cursor: Option<String>, hints: CacheHints) -> Self {
        ListResourcesResult {
            result_type: ResultType::COMPLETE,
            resources,
            next_cursor,
            ttl_ms: hints.ttl_ms,
            cache_scope: hints.cache_scope,
            meta: None,
        }
    }
}

/// Result of `resources/templates/list` (cacheable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// This page of templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListResourceTemplatesResult {
    /// A complete page with its caching hints.
    pub fn new(
        resource_templates: Vec<ResourceTemplate>,
        next_cursor: Option<String>,
        hints: CacheHints,
    ) -> Self {
        ListResourceTemplatesResult {
            result_type: ResultType::COMPLETE,
            resource_templates,
            next_cursor,
            ttl_ms: hints.ttl_ms,
            cache_scope: hints.cache_scope,
            meta: None,
        }
    }
}

/// Complete result of `resources/read` (cacheable).
///
/// Generic over the contents and the `_meta` so that a server can send borrowed contents
/// ([`crate::resources::ContentsRef`]) and a `_meta` encoded once (a `RawValue`); the defaults
/// are the owned shapes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult<C = ResourceContents, M = Meta> {
    /// Always `complete` (an interim answer is an [`InputRequiredResult`]).
    pub result_type: ResultType,
    /// One or more contents.
    pub contents: Vec<C>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it (`private` whenever the answer depends on the caller).
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<M>,
}

impl<C> ReadResourceResult<C> {
    /// A complete read result with its caching hints (and no `_meta`).
    pub fn new(contents: Vec<C>, hints: CacheHints) -> Self {
        ReadResourceResult {
            result_type: ResultType::COMPLETE,
            contents,
            ttl_ms: hints.ttl_ms,
            cache_scope: hints.cache_scope,
            meta: None,
        }
    }
}

/// Result of `completion/complete` (not cacheable).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The values.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An interim multi-round-trip result (`resultType: "input_required"`); carries no cache hints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// Requests the client must answer, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Meta>,
    /// Opaque, integrity-protected state the client echoes on retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Any result: `resultType` plus whatever else it carries, kept as JSON.
///
/// For reading results of unknown or loosely specified shape, such as the spec example of a
/// read response without cache hints, which is only valid as the permissive `anyOf` branch of
/// `ReadResourceResultResponse`. A server never builds one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnyResult {
    /// The result type.
    pub result_type: ResultType,
    /// Every other member.
    #[serde(flatten)]
    pub rest: Meta,
}

impl From<ListResourcesResult> for crate::resources::ListResourcesResult {
    fn from(modern: ListResourcesResult) -> Self {
        crate::resources::ListResourcesResult {
            resources: modern.resources,
            next_cursor: modern.next_cursor,
            meta: modern.meta,
        }
    }
}

impl From<ListResourceTemplatesResult> for crate::resources::ListResourceTemplatesResult {
    fn from(modern: ListResourceTemplatesResult) -> Self {
        crate::resources::ListResourceTemplatesResult {
            resource_templates: modern.resource_templates,
            next_cursor: modern.next_cursor,
            meta: modern.meta,
        }
    }
}

impl From<ReadResourceResult> for crate::resources::ReadResourceResult {
    fn from(modern: ReadResourceResult) -> Self {
        crate::resources::ReadResourceResult {
            contents: modern.contents,
            meta: modern.meta,
        }
    }
}

impl From<CompleteResult> for crate::completion::CompleteResult {
    fn from(modern: CompleteResult) -> Self {
        crate::completion::CompleteResult {
            completion: modern.completion,
            meta: modern.meta,
        }
    }
}
