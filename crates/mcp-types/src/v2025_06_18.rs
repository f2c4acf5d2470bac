//! The wire types of protocol version 2025-06-18, exactly as that version knows them.
//!
//! **Layer:** wire types, one revision. Compared with 2025-03-26: `title` and `_meta` on
//! resources and templates, `_meta` on contents, `annotations.lastModified`, `title` on
//! `Implementation`, the `resource_link` content block, and `context` in completion params.
//! Compared with the newest shapes: no `icons` anywhere, and `Implementation` has no
//! `description`/`websiteUrl`. Types without `icons` are re-exported from [`crate::resources`].
//! This module must never know sessions or transports.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::capabilities::{ClientCapabilities, ServerCapabilities};
pub use crate::completion::{CompleteParams, CompleteResult, Completion, CompletionReference};
pub use crate::lifecycle::{EmptyResult, MetaParams};
pub use crate::logging::{LoggingLevel, LoggingMessageNotificationParams, SetLevelParams};
pub use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
pub use crate::resources::{
    Annotations, BlobResourceContents, PaginatedParams, ReadResourceParams, ResourceContents,
    ResourceLinkType, ResourceListChangedNotificationParams, ResourceUpdatedNotificationParams,
    Role, SubscribeParams, TextResourceContents, UnsubscribeParams,
};

use crate::meta::Meta;

/// A resource as 2025-06-18 knows it: everything but `icons`.
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
    /// Size in bytes of the raw content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl From<crate::resources::Resource> for Resource {
    fn from(newest: crate::resources::Resource) -> Self {
        Resource {
            uri: newest.uri,
            name: newest.name,
            title: newest.title,
            description: newest.description,
            mime_type: newest.mime_type,
            size: newest.size,
            annotations: newest.annotations,
            meta: newest.meta,
        }
    }
}

/// A resource template as 2025-06-18 knows it: everything but `icons`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the matching resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl From<crate::resources::ResourceTemplate> for ResourceTemplate {
    fn from(newest: crate::resources::ResourceTemplate) -> Self {
        ResourceTemplate {
            uri_template: newest.uri_template,
            name: newest.name,
            title: newest.title,
            description: newest.description,
            mime_type: newest.mime_type,
            annotations: newest.annotations,
            meta: newest.meta,
        }
    }
}

/// A resource link as 2025-06-18 knows it: a [`Resource`] of this version tagged
/// `resource_link`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceLink {
    /// Always `resource_link`.
    #[serde(rename = "type")]
    pub kind: ResourceLinkType,
    /// The linked resource.
    #[serde(flatten)]
    pub resource: Resource,
}

impl From<crate::resources::ResourceLink> for ResourceLink {
    fn from(newest: crate::resources::ResourceLink) -> Self {
        ResourceLink {
            kind: newest.kind,
            resource: newest.resource.into(),
        }
    }
}

/// `Implementation` as 2025-06-18 knows it: name, title and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
}

impl From<crate::lifecycle::Implementation> for Implementation {
    fn from(newest: crate::lifecycle::Implementation) -> Self {
        Implementation {
            name: newest.name,
            title: newest.title,
            version: newest.version,
        }
    }
}

/// Params of `initialize` in this version.
pub type InitializeParams = crate::lifecycle::InitializeParams<Implementation>;
/// Result of `initialize` in this version.
pub type InitializeResult = crate::lifecycle::InitializeResult<Implementation>;
/// Result of `resources/list` in this version.
pub type ListResourcesResult = crate::resources::ListResourcesResult<Resource>;
/// Result of `resources/templates/list` in this version.
pub type ListResourceTemplatesResult =
    crate::resources::ListResourceTemplatesResult<ResourceTemplate>;
/// Result of `resources/read` in this version (contents unchanged since 2025-06-18).
pub type ReadResourceResult = crate::resources::ReadResourceResult<ResourceContents>;
