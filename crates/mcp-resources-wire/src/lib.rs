//! The one conversion from the core's domain values to the wire types of MCP, used by the
//! adapters of both eras.
//!
//! **Layer:** wire conversion, between `mcp-resources-core` and the adapters (`mcp-legacy-2025`,
//! `mcp-2026`). Every function here is a plain conversion with no decision in it: the era's
//! differences come in as explicit arguments ([`Shape`]). Blobs are base64-encoded here and
//! nowhere else. This crate must never know a session, a request, an error code, a transport or
//! either adapter.
//!
//! Values to send borrow from the core's where that saves copying every string of a page or a
//! read ([`listed`], [`contents`]); they serialize exactly as the owned wire types of the same
//! shape do (the tests compare both). [`output`] holds what both adapters hand to their driver.

pub mod input;
pub mod output;
pub mod text;
pub mod tools;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use mcp_resources_core::completion::Completion as CoreCompletion;
use mcp_resources_core::resource as core;
use mcp_resources_core::skill::{FrontmatterValue, Skill as CoreSkill, SkillFiles};
use mcp_types::ProtocolVersion;
use mcp_types::completion::Completion;
use mcp_types::resources::{self as wire, ContentsRef, ResourceRef};
use mcp_types::skills;
use serde_json::Value;

/// The three families of shapes resources take across protocol versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// 2024-11-05 and 2025-03-26: no `title`, `_meta`, `icons` or `lastModified`.
    Original,
    /// 2025-06-18: `title`, `_meta` and `lastModified`, no `icons`.
    Titled,
    /// 2025-11-25 and 2026-07-28: the newest shape, with `icons`.
    Newest,
}

impl Shape {
    /// The shape family of `version`.
    pub fn of(version: &ProtocolVersion) -> Shape {
        if version.has_icons() {
            Shape::Newest
        } else if version.has_titles() {
            Shape::Titled
        } else {
            Shape::Original
        }
    }
}

/// A core resource as `shape` lists it, borrowing its strings: no `title` in the original shape,
/// `icons` in the newest only, its annotations (newest shape) made into the shape's by `shaped`
/// (`Some` keeps them as they are).
pub fn listed<'a, A>(
    resource: &'a core::Resource,
    shape: Shape,
    shaped: impl Fn(wire::Annotations) -> Option<A>,
) -> ResourceRef<'a, A> {
    ResourceRef {
        uri: resource.uri.as_str(),
        name: &resource.name,
        title: resource
            .title
            .as_deref()
            .filter(|_| shape != Shape::Original),
        description: resource.description.as_deref(),
        mime_type: resource.mime_type.as_deref(),
        size: resource.size,
        annotations: resource
            .annotations
            .clone()
            .map(annotations)
            .and_then(shaped),
        icons: if shape == Shape::Newest {
            icons(resource.icons.clone())
        } else {
            None
        },
    }
}

/// A core template in the newest wire shape (older shapes narrow it with the revision modules'
/// `From` conversions).
pub fn template(template: core::ResourceTemplate) -> wire::ResourceTemplate {
    wire::ResourceTemplate {
        uri_template: template.uri_template.as_str().to_owned(),
        name: template.name,
        title: template.title,
        description: template.description,
        mime_type: template.mime_type,
        annotations: template.annotations.map(annotations),
        icons: icons(template.icons),
        meta: None,
    }
}

/// One entry of a read's `contents`, borrowed from the core's: text as `text`, bytes
/// base64-encoded as `blob`. The same in every shape (no `_meta`).
pub fn contents(contents: &core::Contents) -> ContentsRef<'_> {
    let uri = contents.uri.as_str();
    let mime_type = contents.mime_type.as_deref();
    match &contents.body {
        core::Body::Text(text) => ContentsRef::Text {
            uri,
            mime_type,
            text: text::escaped(text),
        },
        core::Body::Bytes(bytes) => ContentsRef::Blob {
            uri,
            mime_type,
            blob: BASE64.encode(bytes),
        },
    }
}

/// The `completion` object of a `completion/complete` result (the same in every version).
pub fn completion(completion: CoreCompletion) -> Completion {
    Completion {
        values: completion.values,
        total: Some(completion.total),
        has_more: Some(completion.has_more),
    }
}

/// Core annotations in the newest wire shape.
pub fn annotations(annotations: core::Annotations) -> wire::Annotations {
    wire::Annotations {
        audience: (!annotations.audience.is_empty())
            .then(|| annotations.audience.into_iter().map(role).collect()),
        priority: annotations.priority.map(core::Priority::get),
        last_modified: annotations
            .last_modified
            .map(|time| time.as_str().to_owned()),
    }
}

fn role(role: core::Role) -> wire::Role {
    match role {
        core::Role::User => wire::Role::User,
        core::Role::Assistant => wire::Role::Assistant,
    }
}

/// Core icons in the wire shape; `None` for none.
pub fn icons(icons: Vec<core::Icon>) -> Option<Vec<wire::Icon>> {
    (!icons.is_empty()).then(|| icons.into_iter().map(icon).collect())
}

fn icon(icon: core::Icon) -> wire::Icon {
    wire::Icon {
        src: icon.src,
        mime_type: icon.mime_type,
        sizes: (!icon.sizes.is_empty()).then_some(icon.sizes),
        theme: icon.theme.map(|theme| match theme {
            core::IconTheme::Light => wire::IconTheme::Light,
            core::IconTheme::Dark => wire::IconTheme::Dark,
        }),
    }
}

/// A core skill in the Skills extension's wire shape: the frontmatter as a JSON object, each
/// file's digest as `sha256:` and lowercase hex.
pub fn skill(skill: &CoreSkill) -> skills::Skill {
    skills::Skill {
        uri: skill.uri.as_str().to_owned(),
        frontmatter: frontmatter_map(&skill.frontmatter.0),
        resources: match &skill.files {
            SkillFiles::Manifest(files) => skills::SkillResources::Manifest(
                files
                    .iter()
                    .map(|file| skills::SkillResource {
                        uri: file.uri.as_str().to_owned(),
                        digest: file.digest(),
                        size: file.size,
                    })
                    .collect(),
            ),
            SkillFiles::Dynamic => skills::SkillResources::Dynamic,
        },
    }
}

fn frontmatter_map(entries: &[(String, FrontmatterValue)]) -> serde_json::Map<String, Value> {
    entries
        .iter()
        .map(|(key, value)| (key.clone(), frontmatter_value(value)))
        .collect()
}

fn frontmatter_value(value: &FrontmatterValue) -> Value {
    match value {
        FrontmatterValue::Null => Value::Null,
        FrontmatterValue::Bool(flag) => Value::Bool(*flag),
        FrontmatterValue::Integer(number) => Value::from(*number),
        // A frontmatter holds finite numbers only; anything else would be null.
        FrontmatterValue::Float(number) => Value::from(*number),
        FrontmatterValue::String(text) => Value::String(text.clone()),
        FrontmatterValue::List(items) => {
            Value::Array(items.iter().map(frontmatter_value).collect())
        }
        FrontmatterValue::Map(entries) => Value::Object(frontmatter_map(entries)),
    }
}
