//! Resources in their newest shape (2025-11-25, unchanged in 2026-07-28), the legacy request
//! params, and the legacy results, generic over the version's item type.
//!
//! **Layer:** wire types. The revision modules ([`crate::v2024_11_05`], [`crate::v2025_06_18`],
//! ...) define the older item shapes and convert from the ones here, dropping what the older
//! version does not know. The modern results (with `resultType`, `ttlMs`, `cacheScope`) live in
//! [`crate::v2026_07_28`]. This module must never know where resources come from.
//!
//! For sending, [`ResourceRef`] and [`ContentsRef`] borrow their strings from the server's own
//! values and serialize as [`Resource`] and [`ResourceContents`] do, so that a list page or a
//! read is written without copying every string first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::meta::Meta;

/// Who a resource is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Hints for the client (2025-06-18 on, with `lastModified`). Never used for authorization.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the data is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (optional) to 1 (effectively required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When the resource last changed, as an ISO 8601 string (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The theme an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

/// An icon (2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` URL or a `data:` URI.
    pub src: String,
    /// The image MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme it is drawn for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// A resource as listed by `resources/list`, newest shape (2025-11-25, 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes of the raw content, before base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// A resource with a URI and a name and nothing else.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

/// A resource as `resources/list` writes it, borrowing its strings from the server's own
/// value: the same JSON as [`Resource`] without `_meta`, and, with `title` and `icons` left out
/// and `A` the narrowed annotations, as the older versions' shapes (their fields come in the
/// same order). A list page's entries are written once and dropped: copying every string of
/// every entry into a [`Resource`] first cost more than writing them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRef<'a, A = Annotations> {
    /// The URI.
    pub uri: &'a str,
    /// Programmatic name.
    pub name: &'a str,
    /// Display name (2025-06-18 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// What the resource is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'a str>,
    /// Size in bytes of the raw content, before base64.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Client hints, in the version's shape (rare: owned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<A>,
    /// Icons (2025-11-25 on; rare: owned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

/// A URI template (RFC 6570) for resources, newest shape (2025-11-25, 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The template, such as `file:///{path}`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the matching resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, only if every matching resource has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Text contents of a resource (2025-06-18 on, with `_meta`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The URI of this content (may be a sub-resource of the one read).
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Binary contents of a resource (2025-06-18 on, with `_meta`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The URI of this content.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The bytes, base64-encoded.
    pub blob: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// One entry of `contents`: text or blob, generic over the version's shapes.
///
/// Untagged: serializing writes the inner object directly (no cost); deserializing, which only
/// clients and tests do, tries text first, then blob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ResourceContents<T = TextResourceContents, B = BlobResourceContents> {
    /// Has `text`.
    Text(T),
    /// Has `blob`.
    Blob(B),
}

/// One entry of `contents` for sending: serializes as [`TextResourceContents`] or
/// [`BlobResourceContents`] do for the same values without `_meta` (so in every version's
/// shape), borrowing the URI and MIME type. The text comes as a JSON string literal, already
/// escaped (the sender chooses how), written as it is.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ContentsRef<'a> {
    /// Has `text`.
    Text {
        /// The URI of this content.
        uri: &'a str,
        /// MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<&'a str>,
        /// The text, as a JSON string literal.
        text: Box<RawValue>,
    },
    /// Has `blob`.
    Blob {
        /// The URI of this content.
        uri: &'a str,
        /// MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<&'a str>,
        /// The bytes, base64-encoded.
        blob: String,
    },
}

/// The `"type": "resource_link"` tag of a [`ResourceLink`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ResourceLinkType {
    /// The only value.
    #[default]
    #[serde(rename = "resource_link")]
    ResourceLink,
}

/// A link to a resource inside tool results or prompts (2025-06-18 on), newest shape
/// (2025-11-25, 2026-07-28). Older shape: [`crate::v2025_06_18::ResourceLink`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceLink {
    /// Always `resource_link`.
    #[serde(rename = "type")]
    pub kind: ResourceLinkType,
    /// The linked resource.
    #[serde(flatten)]
    pub resource: Resource,
}

/// Params of a paginated legacy request (`resources/list`, `resources/templates/list`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PaginatedParams {
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata, such as a progress token.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of legacy `resources/read`, `resources/subscribe` and `resources/unsubscribe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UriParams {
    /// The resource URI.
    pub uri: String,
    /// Request metadata, such as a progress token.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of legacy `resources/read`.
pub type ReadResourceParams = UriParams;
/// Params of legacy `resources/subscribe`.
pub type SubscribeParams = UriParams;
/// Params of legacy `resources/unsubscribe`.
pub type UnsubscribeParams = UriParams;

/// Result of legacy `resources/list`, generic over the version's `Resource`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult<R = Resource> {
    /// This page of resources.
    pub resources: Vec<R>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl<R> ListResourcesResult<R> {
    /// The same page with every resource converted to an older shape.
    pub fn into_version<S: From<R>>(self) -> ListResourcesResult<S> {
        ListResourcesResult {
            resources: self.resources.into_iter().map(S::from).collect(),
            next_cursor: self.next_cursor,
            meta: self.meta,
        }
    }
}

/// Result of legacy `resources/templates/list`, generic over the version's `ResourceTemplate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult<T = ResourceTemplate> {
    /// This page of templates.
    pub resource_templates: Vec<T>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl<T> ListResourceTemplatesResult<T> {
    /// The same page with every template converted to an older shape.
    pub fn into_version<U: From<T>>(self) -> ListResourceTemplatesResult<U> {
        ListResourceTemplatesResult {
            resource_templates: self.resource_templates.into_iter().map(U::from).collect(),
            next_cursor: self.next_cursor,
            meta: self.meta,
        }
    }
}

/// Result of legacy `resources/read`, generic over the version's contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadResourceResult<C = ResourceContents> {
    /// One or more contents (never empty for an existing resource).
    pub contents: Vec<C>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl<C> ReadResourceResult<C> {
    /// The same result with every content converted to an older shape.
    pub fn into_version<D: From<C>>(self) -> ReadResourceResult<D> {
        ReadResourceResult {
            contents: self.contents.into_iter().map(D::from).collect(),
            meta: self.meta,
        }
    }
}

/// Params of `notifications/resources/updated` (all versions). On a modern listen stream,
/// `_meta` carries `io.modelcontextprotocol/subscriptionId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceUpdatedNotificationParams {
    /// The URI that changed (may be a sub-resource of the one subscribed).
    pub uri: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/resources/list_changed` (all versions): only `_meta`.
pub type ResourceListChangedNotificationParams = crate::meta::MetaParams;
