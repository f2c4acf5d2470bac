//! Core values to 2026-07-28 wire values: resources, templates, contents (blobs base64-encoded
//! here; a read's contents borrowed, text escaped as it is written, and the blob of a static
//! resource encoded once and kept in its
//! [`EncodingMemo`](mcp_resources_core::resource::EncodingMemo)), caching hints and
//! completions.
//!
//! **Layer:** adapter, the `to_wire` side. Every function is a plain conversion with no
//! decision in it; this module must never know a request, a stream or an error code.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_resources_core::cache::{CacheHint, CacheScope};
use mcp_resources_core::completion::Completion;
use mcp_resources_core::resource::{self as core, Body, Contents};
use mcp_types::resources::{
    BodyRef, ContentsOut, ContentsRef, EncodedContents, JsonString, ResourceRef,
};
use mcp_types::v2026_07_28 as wire;

/// The wire caching hints of a core hint; private whatever the hint says when `all_private`
/// ([`ModernConfig::private_results`](crate::ModernConfig::private_results)).
pub(crate) fn cache_hints(hint: CacheHint, all_private: bool) -> wire::CacheHints {
    wire::CacheHints {
        ttl_ms: hint.ttl_ms,
        cache_scope: match hint.scope {
            CacheScope::Public if !all_private => wire::CacheScope::Public,
            CacheScope::Public | CacheScope::Private => wire::CacheScope::Private,
        },
    }
}

/// A listed resource, borrowing its strings (written once, straight from the page).
pub(crate) fn listed(resource: &core::Resource) -> ResourceRef<'_> {
    ResourceRef {
        uri: resource.uri.as_str(),
        name: &resource.name,
        title: resource.title.as_deref(),
        description: resource.description.as_deref(),
        mime_type: resource.mime_type.as_deref(),
        size: resource.size,
        annotations: resource.annotations.clone().map(annotations),
        icons: icons(resource.icons.clone()),
    }
}

/// A listed template.
pub(crate) fn template(template: core::ResourceTemplate) -> wire::ResourceTemplate {
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

/// One entry of a read's `contents`, borrowed from the core's: text as `text`, escaped as it
/// is written ([`ContentsOut::write_json`]), bytes base64-encoded as `blob`. Bytes with an
/// encoding memo (a static resource's) are written whole once, on their first read, and later
/// reads copy the kept object. The legacy adapter keeps exactly the same value of the same
/// type in the memo, so both eras share one encoding per entry.
pub(crate) fn contents(contents: &Contents) -> ContentsOut<'_> {
    let encoded = match contents.body {
        Body::Bytes(_) => contents
            .memoized_encoding(|_| EncodedContents::new(&fields(contents)))
            .and_then(|encoded| {
                encoded.object_for(contents.uri.as_str(), contents.mime_type.as_deref())
            }),
        Body::Text(_) => None,
    };
    match encoded {
        Some(object) => ContentsOut::Encoded(object),
        None => ContentsOut::Fields(fields(contents)),
    }
}

/// The fields of one entry of `contents`, the body escaped (or base64-encoded) as it is written.
fn fields(contents: &Contents) -> ContentsRef<'_> {
    let body = match &contents.body {
        Body::Text(text) => BodyRef::Text(JsonString::Text(text.as_ref().into())),
        Body::Bytes(bytes) => BodyRef::Blob(JsonString::Text(STANDARD.encode(bytes).into())),
    };
    ContentsRef {
        uri: contents.uri.as_str(),
        mime_type: contents.mime_type.as_deref(),
        body,
    }
}

/// The `completion` object of a result.
pub(crate) fn completion(completion: Completion) -> wire::Completion {
    wire::Completion {
        values: completion.values,
        total: Some(completion.total),
        has_more: Some(completion.has_more),
    }
}

fn annotations(annotations: core::Annotations) -> wire::Annotations {
    let audience: Vec<wire::Role> = annotations
        .audience
        .into_iter()
        .map(|role| match role {
            core::Role::User => wire::Role::User,
            core::Role::Assistant => wire::Role::Assistant,
        })
        .collect();
    wire::Annotations {
        audience: (!audience.is_empty()).then_some(audience),
        priority: annotations.priority.map(core::Priority::get),
        last_modified: annotations
            .last_modified
            .map(|time| time.as_str().to_owned()),
    }
}

fn icons(icons: Vec<core::Icon>) -> Option<Vec<wire::Icon>> {
    let icons: Vec<wire::Icon> = icons
        .into_iter()
        .map(|icon| wire::Icon {
            src: icon.src,
            mime_type: icon.mime_type,
            sizes: (!icon.sizes.is_empty()).then_some(icon.sizes),
            theme: icon.theme.map(|theme| match theme {
                core::IconTheme::Light => wire::IconTheme::Light,
                core::IconTheme::Dark => wire::IconTheme::Dark,
            }),
        })
        .collect();
    (!icons.is_empty()).then_some(icons)
}

#[cfg(test)]
mod tests {
    use mcp_resources_core::resource::{Annotations, Icon, IconTheme, Priority, Role, Timestamp};
    use mcp_resources_core::uri::ResourceUri;

    use super::*;

    /// A resource in the owned wire shape: what a page was converted to before its entries
    /// were borrowed.
    fn owned(resource: core::Resource) -> wire::Resource {
        wire::Resource {
            uri: resource.uri.into_string(),
            name: resource.name,
            title: resource.title,
            description: resource.description,
            mime_type: resource.mime_type,
            size: resource.size,
            annotations: resource.annotations.map(annotations),
            icons: icons(resource.icons),
            meta: None,
        }
    }

    /// A listed entry writes exactly what the owned resource writes, whatever it holds.
    #[test]
    fn a_listed_resource_is_the_owned_resource_written() {
        let uri = |text| ResourceUri::parse(text).unwrap();
        let resources = [
            core::Resource::new(uri("mem:///bare"), "bare"),
            core::Resource::new(uri("file:///a%20b/%C3%A9.txt"), "quote \" and \\ é")
                .with_title("Title\n")
                .with_description("what")
                .with_mime_type("text/plain")
                .with_size(7)
                .with_annotations(Annotations {
                    audience: vec![Role::User, Role::Assistant],
                    priority: Some(Priority::new(0.25).unwrap()),
                    last_modified: Some(Timestamp::parse("2025-01-12T15:00:58Z").unwrap()),
                })
                .with_icon(Icon {
                    src: "https://example.com/a.png".into(),
                    mime_type: Some("image/png".into()),
                    sizes: vec!["48x48".into()],
                    theme: Some(IconTheme::Dark),
                }),
        ];
        for resource in resources {
            let borrowed = serde_json::to_string(&listed(&resource)).unwrap();
            let owned = serde_json::to_string(&owned(resource)).unwrap();
            assert_eq!(borrowed, owned);
        }
    }
}
