//! The legacy results, shaped for one protocol version.
//!
//! **Layer:** adapter, the `to_wire` edge. Values are converted by `mcp-resources-wire` (the
//! conversion both eras share) to the newest wire shape of [`mcp_types`] (2025-11-25), then
//! narrowed with the revision modules' `From` conversions (`into_version`) to what the
//! negotiated version knows: no `title` or `_meta` before 2025-06-18, no `icons` before
//! 2025-11-25, no `lastModified` before 2025-06-18. A list page's resources and a read's
//! contents are serialized borrowed instead ([`wire::ResourceRef`], [`ContentsRef`]), narrowed
//! the same way (a test compares both). This module must never know the session state or the
//! engine's errors.

use mcp_resources_core::completion::Completion as CoreCompletion;
use mcp_resources_core::pagination::Page;
use mcp_resources_core::resource as core;
use mcp_resources_core::service::Offer;
use mcp_resources_wire::{self as to_wire, Shape};
use mcp_types::capabilities::{JsonObject, ResourcesCapability, ServerCapabilities};
use mcp_types::completion::CompleteResult;
use mcp_types::lifecycle::{Implementation, InitializeResult};
use mcp_types::resources::{self as wire, ContentsRef};
use mcp_types::skills::SkillsSettings;
use mcp_types::{ProtocolVersion, v2024_11_05, v2025_06_18};
use serde::Serialize;
use serde_json::value::RawValue;

/// Serializes one wire value into raw JSON, ready to sit in a response or a batch.
pub(crate) fn raw<T: Serialize>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(value)
}

/// The `resources/list` result for `shape`, each resource borrowed from the page
/// ([`wire::ResourceRef`]): the same JSON as the page converted to the shape's owned types.
pub(crate) fn list_resources(
    page: Page<core::Resource>,
    shape: Shape,
) -> Result<Box<RawValue>, serde_json::Error> {
    match shape {
        Shape::Original => listed_page(&page, shape, v2024_11_05::Annotations::narrowed),
        Shape::Titled | Shape::Newest => listed_page(&page, shape, Some),
    }
}

/// [`list_resources`] with the annotations of `shape` made by `shaped`.
fn listed_page<A: Serialize>(
    page: &Page<core::Resource>,
    shape: Shape,
    shaped: impl Fn(wire::Annotations) -> Option<A>,
) -> Result<Box<RawValue>, serde_json::Error> {
    raw(&wire::ListResourcesResult {
        resources: page
            .items
            .iter()
            .map(|resource| to_wire::listed(resource, shape, &shaped))
            .collect(),
        next_cursor: page.next_cursor.clone(),
        meta: None,
    })
}

/// The `resources/templates/list` result for `shape`.
pub(crate) fn list_templates(
    page: Page<core::ResourceTemplate>,
    shape: Shape,
) -> Result<Box<RawValue>, serde_json::Error> {
    let newest = wire::ListResourceTemplatesResult {
        resource_templates: page.items.into_iter().map(to_wire::template).collect(),
        next_cursor: page.next_cursor,
        meta: None,
    };
    match shape {
        Shape::Original => raw(&newest.into_version::<v2024_11_05::ResourceTemplate>()),
        Shape::Titled => raw(&newest.into_version::<v2025_06_18::ResourceTemplate>()),
        Shape::Newest => raw(&newest),
    }
}

/// The `resources/read` result, borrowing the contents. It is the same in every shape: contents
/// never carry `_meta` here, and nothing else differs.
pub(crate) fn read(contents: &[core::Contents]) -> wire::ReadResourceResult<ContentsRef<'_>> {
    wire::ReadResourceResult {
        contents: contents.iter().map(to_wire::contents).collect(),
        meta: None,
    }
}

/// The `completion/complete` result (the same shape in every legacy version).
pub(crate) fn complete(completion: CoreCompletion) -> Result<Box<RawValue>, serde_json::Error> {
    raw(&CompleteResult {
        completion: to_wire::completion(completion),
        meta: None,
    })
}

/// The capabilities a legacy server declares for `offer`, without the keys `version` does not
/// know (`completions` before 2025-03-26). `logging` is always declared: the session can carry
/// log messages ([`crate::Session::log`]).
pub(crate) fn capabilities(offer: Offer, version: &ProtocolVersion) -> ServerCapabilities {
    ServerCapabilities {
        logging: Some(JsonObject::new()),
        completions: offer.completions.then(JsonObject::new),
        resources: Some(ResourcesCapability {
            subscribe: offer.subscribe.then_some(true),
            list_changed: offer.list_changed.then_some(true),
        }),
        tools: offer
            .tools
            .then(mcp_types::capabilities::ListChangedCapability::default),
        extensions: offer.directories.then(|| {
            SkillsSettings {
                directory_read: true,
            }
            .declaration()
        }),
        ..ServerCapabilities::default()
    }
    .for_version(version)
}

/// The `initialize` result for `version`, with `serverInfo` narrowed to what it knows (`title`
/// from 2025-06-18, `description`, `icons` and `websiteUrl` from 2025-11-25).
pub(crate) fn initialize(
    version: &ProtocolVersion,
    offer: Offer,
    server_info: &Implementation,
    instructions: Option<&str>,
) -> Result<Box<RawValue>, serde_json::Error> {
    let newest = InitializeResult {
        protocol_version: version.clone(),
        capabilities: capabilities(offer, version),
        server_info: server_info.clone(),
        instructions: instructions.map(str::to_owned),
        meta: None,
    };
    match Shape::of(version) {
        Shape::Original => raw(&newest.into_version::<v2024_11_05::Implementation>()),
        Shape::Titled => raw(&newest.into_version::<v2025_06_18::Implementation>()),
        Shape::Newest => raw(&newest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_resources_core::cache::{CacheHint, CacheScope};
    use mcp_resources_core::resource::{Annotations, Icon, Priority, Timestamp};
    use mcp_resources_core::uri::ResourceUri;

    fn rich_resource() -> core::Resource {
        let uri = ResourceUri::parse("mem:///a").unwrap();
        core::Resource::new(uri, "a")
            .with_title("A")
            .with_annotations(Annotations {
                audience: vec![core::Role::User],
                priority: Some(Priority::new(0.5).unwrap()),
                last_modified: Some(Timestamp::parse("2025-01-12T15:00:58Z").unwrap()),
            })
            .with_icon(Icon {
                src: "https://example.com/a.png".into(),
                ..Icon::default()
            })
    }

    fn page_json(shape: Shape) -> String {
        list_resources(page(vec![rich_resource()], None), shape)
            .unwrap()
            .get()
            .to_owned()
    }

    fn page(items: Vec<core::Resource>, next_cursor: Option<&str>) -> Page<core::Resource> {
        Page {
            items,
            next_cursor: next_cursor.map(str::to_owned),
            cache: CacheHint {
                ttl_ms: 0,
                scope: CacheScope::Public,
            },
        }
    }

    /// A core resource in the newest owned wire shape: what a page was converted to before
    /// it was written from borrowed entries.
    fn owned(resource: core::Resource) -> wire::Resource {
        wire::Resource {
            uri: resource.uri.into_string(),
            name: resource.name,
            title: resource.title,
            description: resource.description,
            mime_type: resource.mime_type,
            size: resource.size,
            annotations: resource.annotations.map(to_wire::annotations),
            icons: to_wire::icons(resource.icons),
            meta: None,
        }
    }

    /// A page written from borrowed entries says exactly what the page converted to each
    /// shape's owned types says, whatever its resources hold.
    #[test]
    fn a_listed_page_is_the_owned_page_written() {
        let uri = |text| ResourceUri::parse(text).unwrap();
        let only_modified = Annotations {
            last_modified: Some(Timestamp::parse("2025-01-12T15:00:58Z").unwrap()),
            ..Annotations::default()
        };
        let items = vec![
            rich_resource(),
            core::Resource::new(uri("mem:///bare"), "bare"),
            core::Resource::new(uri("file:///a%20b/%C3%A9.txt"), "quote \" and \\ é")
                .with_description("line\nbreak")
                .with_mime_type("text/plain")
                .with_size(7),
            core::Resource::new(uri("mem:///dated"), "dated").with_annotations(only_modified),
        ];
        for shape in [Shape::Original, Shape::Titled, Shape::Newest] {
            for cursor in [None, Some("next \"1\"")] {
                let borrowed = list_resources(page(items.clone(), cursor), shape).unwrap();
                let newest = wire::ListResourcesResult {
                    resources: items.clone().into_iter().map(owned).collect(),
                    next_cursor: cursor.map(str::to_owned),
                    meta: None,
                };
                let owned = match shape {
                    Shape::Original => raw(&newest.into_version::<v2024_11_05::Resource>()),
                    Shape::Titled => raw(&newest.into_version::<v2025_06_18::Resource>()),
                    Shape::Newest => raw(&newest),
                };
                let owned = owned.unwrap();
                assert_eq!(borrowed.get(), owned.get(), "{shape:?}");
            }
        }
    }

    #[test]
    fn each_shape_keeps_only_the_fields_its_versions_know() {
        let original = page_json(Shape::Original);
        assert!(
            !original.contains("title") && !original.contains("icons"),
            "{original}"
        );
        assert!(
            !original.contains("lastModified") && original.contains("priority"),
            "{original}"
        );
        let titled = page_json(Shape::Titled);
        assert!(
            titled.contains("\"title\":\"A\"") && titled.contains("lastModified"),
            "{titled}"
        );
        assert!(!titled.contains("icons"), "{titled}");
        let newest = page_json(Shape::Newest);
        assert!(
            newest.contains("\"icons\":[{\"src\":\"https://example.com/a.png\"}]"),
            "{newest}"
        );
    }

    /// The read result as the session sends it.
    fn read_json(contents: &[core::Contents]) -> String {
        serde_json::to_string(&read(contents)).unwrap()
    }

    #[test]
    fn bytes_are_base64_encoded_into_blob() {
        let uri = ResourceUri::parse("mem:///b").unwrap();
        let bytes = core::Contents::bytes(uri, vec![0u8, 1, 2, 255]);
        let expected = r#"{"contents":[{"uri":"mem:///b","blob":"AAEC/w=="}]}"#;
        assert_eq!(read_json(std::slice::from_ref(&bytes)), expected);
    }

    #[test]
    fn text_is_written_as_the_owned_shape_writes_it() {
        let uri = ResourceUri::parse("mem:///t").unwrap();
        let body = "a \"quoted\" line\n\u{1}é\u{2028}\\ \u{7f}";
        let text = core::Contents::text(uri, body).with_mime_type("text/plain");
        let newest: wire::ReadResourceResult = wire::ReadResourceResult {
            contents: vec![wire::ResourceContents::Text(wire::TextResourceContents {
                uri: "mem:///t".to_owned(),
                mime_type: Some("text/plain".to_owned()),
                text: body.to_owned(),
                meta: None,
            })],
            meta: None,
        };
        let written = read_json(std::slice::from_ref(&text));
        assert_eq!(written, serde_json::to_string(&newest).unwrap());
    }

    #[test]
    fn several_contents_are_written_as_serde_writes_them() {
        let text = core::Contents::text(ResourceUri::parse("mem:///a").unwrap(), "x\ty");
        let blob = core::Contents::bytes(ResourceUri::parse("mem:///b").unwrap(), vec![7u8]);
        let written = read_json(&[text, blob.clone(), blob]);
        assert_eq!(written.matches("\"uri\"").count(), 3, "{written}");
    }
}
