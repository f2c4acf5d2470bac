//! The wire types of protocol version 2024-11-05, exactly as that version knows them.
//!
//! **Layer:** wire types, one revision. Compared with the newest shapes in [`crate::resources`]:
//! no `title`, no `_meta` and no `icons` on resources, templates, contents or `Implementation`,
//! and `annotations` has only `audience` and `priority`. Every type converts from its newest
//! counterpart with `From`, dropping those fields. Types whose shape never changed are
//! re-exported from their area module. This module must never know sessions or transports.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::capabilities::{ClientCapabilities, ServerCapabilities};
pub use crate::completion::{CompleteParams, CompleteResult, Completion, CompletionReference};
pub use crate::lifecycle::{EmptyResult, MetaParams};
pub use crate::logging::{LoggingLevel, LoggingMessageNotificationParams, SetLevelParams};
pub use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
pub use crate::resources::{
    PaginatedParams, ReadResourceParams, ResourceListChangedNotificationParams,
    ResourceUpdatedNotificationParams, Role, SubscribeParams, UnsubscribeParams,
};

/// Annotations as 2024-11-05 and 2025-03-26 know them: no `lastModified`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Annotations {
    /// Who the data is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
}

impl Annotations {
    /// The 2024-11-05 annotations of the newest ones, or `None` when nothing this version knows
    /// is left (for example annotations that held only `lastModified`): an empty object says
    /// nothing, so it is not sent.
    pub fn narrowed(newest: crate::resources::Annotations) -> Option<Annotations> {
        let narrowed = Annotations::from(newest);
        (narrowed.audience.is_some() || narrowed.priority.is_some()).then_some(narrowed)
    }
}

impl From<crate::resources::Annotations> for Annotations {
    fn from(newest: crate::resources::Annotations) -> Self {
        Annotations {
            audience: newest.audience,
            priority: newest.priority,
        }
    }
}

/// A resource as 2024-11-05 and 2025-03-26 know it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Human-readable name.
    pub name: String,
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
}

impl From<crate::resources::Resource> for Resource {
    fn from(newest: crate::resources::Resource) -> Self {
        Resource {
            uri: newest.uri,
            name: newest.name,
            description: newest.description,
            mime_type: newest.mime_type,
            size: newest.size,
            annotations: newest.annotations.and_then(Annotations::narrowed),
        }
    }
}

/// A resource template as 2024-11-05 and 2025-03-26 know it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 template.
    pub uri_template: String,
    /// Human-readable name.
    pub name: String,
    /// What the matching resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

impl From<crate::resources::ResourceTemplate> for ResourceTemplate {
    fn from(newest: crate::resources::ResourceTemplate) -> Self {
        ResourceTemplate {
            uri_template: newest.uri_template,
            name: newest.name,
            description: newest.description,
            mime_type: newest.mime_type,
            annotations: newest.annotations.and_then(Annotations::narrowed),
        }
    }
}

/// Text contents as 2024-11-05 and 2025-03-26 know them: no `_meta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The URI of this content.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
}

impl From<crate::resources::TextResourceContents> for TextResourceContents {
    fn from(newest: crate::resources::TextResourceContents) -> Self {
        TextResourceContents {
            uri: newest.uri,
            mime_type: newest.mime_type,
            text: newest.text,
        }
    }
}

/// Binary contents as 2024-11-05 and 2025-03-26 know them: no `_meta`.
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
}

impl From<crate::resources::BlobResourceContents> for BlobResourceContents {
    fn from(newest: crate::resources::BlobResourceContents) -> Self {
        BlobResourceContents {
            uri: newest.uri,
            mime_type: newest.mime_type,
            blob: newest.blob,
        }
    }
}

/// One entry of `contents` as 2024-11-05 and 2025-03-26 know it.
pub type ResourceContents =
    crate::resources::ResourceContents<TextResourceContents, BlobResourceContents>;

impl From<crate::resources::ResourceContents> for ResourceContents {
    fn from(newest: crate::resources::ResourceContents) -> Self {
        match newest {
            crate::resources::ResourceContents::Text(text) => ResourceContents::Text(text.into()),
            crate::resources::ResourceContents::Blob(blob) => ResourceContents::Blob(blob.into()),
        }
    }
}

/// `Implementation` as 2024-11-05 and 2025-03-26 know it: name and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Implementation {
    /// Name.
    pub name: String,
    /// Version string.
    pub version: String,
}

impl From<crate::lifecycle::Implementation> for Implementation {
    fn from(newest: crate::lifecycle::Implementation) -> Self {
        Implementation {
            name: newest.name,
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
/// Result of `resources/read` in this version.
pub type ReadResourceResult = crate::resources::ReadResourceResult<ResourceContents>;
