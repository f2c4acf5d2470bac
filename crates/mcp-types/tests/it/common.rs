//! Values shared by the schema, fixture and shaping tests: one full newest-shape value of each
//! data type, and the per-version shaping an adapter would do.

use mcp_types::capabilities::{ResourcesCapability, ServerCapabilities};
use mcp_types::lifecycle::{self, Implementation};
use mcp_types::resources::{
    self, Annotations, BlobResourceContents, Icon, IconTheme, Resource, ResourceContents,
    ResourceTemplate, Role, TextResourceContents,
};
use mcp_types::{Meta, ProtocolVersion, v2024_11_05, v2025_06_18};
use serde::Serialize;
use serde_json::{Value, json};

pub(crate) fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("our wire types serialize")
}

pub(crate) fn some_meta() -> Meta {
    let mut meta = Meta::new();
    meta.insert("com.example/origin".into(), json!("tests"));
    meta
}

pub(crate) fn full_annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-12T15:00:58Z".into()),
    }
}

pub(crate) fn full_icons() -> Option<Vec<Icon>> {
    Some(vec![Icon {
        src: "https://example.com/icon.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into()]),
        theme: Some(IconTheme::Dark),
    }])
}

/// A resource with every field the newest shape has.
pub(crate) fn full_resource() -> Resource {
    Resource {
        uri: "file:///project/README.md".into(),
        name: "README.md".into(),
        title: Some("Project documentation".into()),
        description: Some("What the project is".into()),
        mime_type: Some("text/markdown".into()),
        size: Some(1234),
        annotations: Some(full_annotations()),
        icons: full_icons(),
        meta: Some(some_meta()),
    }
}

pub(crate) fn full_template() -> ResourceTemplate {
    ResourceTemplate {
        uri_template: "file:///project/{path}".into(),
        name: "project-files".into(),
        title: Some("Project files".into()),
        description: Some("Any file of the project".into()),
        mime_type: Some("application/octet-stream".into()),
        annotations: Some(full_annotations()),
        icons: full_icons(),
        meta: Some(some_meta()),
    }
}

pub(crate) fn text_contents() -> ResourceContents {
    ResourceContents::Text(TextResourceContents {
        uri: "file:///project/README.md".into(),
        mime_type: Some("text/markdown".into()),
        text: "# Project\n".into(),
        meta: Some(some_meta()),
    })
}

pub(crate) fn blob_contents() -> ResourceContents {
    ResourceContents::Blob(BlobResourceContents {
        uri: "file:///project/logo.png".into(),
        mime_type: Some("image/png".into()),
        blob: "iVBORw0KGgo=".into(),
        meta: Some(some_meta()),
    })
}

pub(crate) fn full_implementation() -> Implementation {
    Implementation {
        name: "mcp-resources".into(),
        title: Some("MCP Resources".into()),
        version: "0.1.0".into(),
        description: Some("Serves files as resources".into()),
        icons: full_icons(),
        website_url: Some("https://example.com".into()),
    }
}

pub(crate) fn resources_server_capabilities() -> ServerCapabilities {
    ServerCapabilities {
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        completions: Some(Default::default()),
        logging: Some(Default::default()),
        ..Default::default()
    }
}

/// A legacy `resources/list` page shaped for `version`, as JSON.
pub(crate) fn shaped_list(
    version: &ProtocolVersion,
    page: resources::ListResourcesResult,
) -> Value {
    if !version.has_titles() {
        to_json(&page.into_version::<v2024_11_05::Resource>())
    } else if !version.has_icons() {
        to_json(&page.into_version::<v2025_06_18::Resource>())
    } else {
        to_json(&page)
    }
}

/// A legacy `resources/templates/list` page shaped for `version`, as JSON.
pub(crate) fn shaped_templates(
    version: &ProtocolVersion,
    page: resources::ListResourceTemplatesResult,
) -> Value {
    if !version.has_titles() {
        to_json(&page.into_version::<v2024_11_05::ResourceTemplate>())
    } else if !version.has_icons() {
        to_json(&page.into_version::<v2025_06_18::ResourceTemplate>())
    } else {
        to_json(&page)
    }
}

/// A legacy `resources/read` result shaped for `version`, as JSON.
pub(crate) fn shaped_read(
    version: &ProtocolVersion,
    result: resources::ReadResourceResult,
) -> Value {
    if !version.has_meta() {
        to_json(&result.into_version::<v2024_11_05::ResourceContents>())
    } else {
        to_json(&result)
    }
}

/// A legacy `initialize` result shaped for `version`, as JSON.
pub(crate) fn shaped_initialize(
    version: &ProtocolVersion,
    result: lifecycle::InitializeResult,
) -> Value {
    if !version.has_titles() {
        to_json(&result.into_version::<v2024_11_05::Implementation>())
    } else if !version.has_icons() {
        to_json(&result.into_version::<v2025_06_18::Implementation>())
    } else {
        to_json(&result)
    }
}
