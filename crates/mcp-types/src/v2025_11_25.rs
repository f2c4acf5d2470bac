//! The wire types of protocol version 2025-11-25, the latest legacy version, exactly as it
//! knows them.
//!
//! **Layer:** wire types, one revision. Adds `icons` to resources, templates, resource links and
//! `Implementation` (which also gains `description` and `websiteUrl`), so every data type here
//! is the newest shape, re-exported from its area module; 2026-07-28 keeps these shapes. This
//! module must never know sessions or transports.

pub use crate::capabilities::{ClientCapabilities, ServerCapabilities};
pub use crate::completion::{CompleteParams, CompleteResult, Completion, CompletionReference};
pub use crate::lifecycle::{EmptyResult, Implementation, MetaParams};
pub use crate::logging::{LoggingLevel, LoggingMessageNotificationParams, SetLevelParams};
pub use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
pub use crate::resources::{
    Annotations, BlobResourceContents, Icon, IconTheme, PaginatedParams, ReadResourceParams,
    Resource, ResourceContents, ResourceLink, ResourceLinkType,
    ResourceListChangedNotificationParams, ResourceTemplate, ResourceUpdatedNotificationParams,
    Role, SubscribeParams, TextResourceContents, UnsubscribeParams,
};

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
