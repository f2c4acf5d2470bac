//! From the core's domain values to the legacy wire types, shaped for one protocol version.
//!
//! **Layer:** adapter, the `to_wire` edge. Every value is first converted to the newest wire
//! shape of [`mcp_types`] (2025-11-25), then narrowed with the revision modules' `From`
//! conversions (`into_version`) to what the negotiated version knows: no `title` or `_meta`
//! before 2025-06-18, no `icons` before 2025-11-25, no `lastModified` before 2025-06-18. A list
//! page's resources are written borrowed instead ([`wire::ResourceRef`]), narrowed the same way
//! (a test compares both). Blobs
//! are base64-encoded here, and nowhere else. A read borrows the core's contents
//! ([`ContentsRef`]) and its response is written by hand ([`encode_read`]), text escaped as it
//! is written; a blob read again and again is copied from the object kept in its
//! [`EncodingMemo`](mcp_resources_core::resource::EncodingMemo), encoded on its first read.
//! This module must never know the session state or the engine's errors.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use mcp_resources_core::completion::Completion as CoreCompletion;
use mcp_resources_core::pagination::Page;
use mcp_resources_core::resource as core;
use mcp_resources_core::service::Offer;
use mcp_types::capabilities::{JsonObject, ResourcesCapability, ServerCapabilities};
use mcp_types::completion::{CompleteResult, Completion};
use mcp_types::jsonrpc::{self, RequestId};
use mcp_types::lifecycle::{Implementation, InitializeResult};
use mcp_types::resources::{
    self as wire, BodyRef, ContentsOut, ContentsRef, EncodedContents, JsonString,
};
use mcp_types::{ProtocolVersion, v2024_11_05, v2025_06_18};
use serde::Serialize;
use serde_json::value::RawValue;

/// The three families of shapes the legacy versions use for resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// 2024-11-05 and 2025-03-26: no `title`, `_meta`, `icons` or `lastModified`.
    Original,
    /// 2025-06-18: `title`, `_meta` and `lastModified`, no `icons`.
    Titled,
    /// 2025-11-25: the newest shape, with `icons`.
    Newest,
}

impl Shape {
    /// The shape family of `version`.
    pub(crate) fn of(version: &ProtocolVersion) -> Shape {
        if version.has_icons() {
            Shape::Newest
        } else if version.has_titles() {
            Shape::Titled
        } else {
            Shape::Original
        }
    }
}

/// Serializes one wire value into raw JSON, ready to sit in a response or a batch.
pub(crate) fn raw<T: Serialize>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(value)
}

fn role(role: core::Role) -> wire::Role {
    match role {
        core::Role::User => wire::Role::User,
        core::Role::Assistant => wire::Role::Assistant,
    }
}

fn annotations(annotations: core::Annotations) -> wire::Annotations {
    wire::Annotations {
        audience: (!annotations.audience.is_empty())
            .then(|| annotations.audience.into_iter().map(role).collect()),
        priority: annotations.priority.map(core::Priority::get),
        last_modified: annotations
            .last_modified
            .map(|time| time.as_str().to_owned()),
    }
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

fn icons(icons: Vec<core::Icon>) -> Option<Vec<wire::Icon>> {
    (!icons.is_empty()).then(|| icons.into_iter().map(icon).collect())
}

/// A core template in the newest wire shape.
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
/// reads copy the kept object. The modern adapter keeps exactly the same value of the same
/// type in the memo, so both eras share one encoding per entry.
pub(crate) fn contents(contents: &core::Contents) -> ContentsOut<'_> {
    let encoded = match contents.body {
        core::Body::Bytes(_) => contents
            .memoized_encoding(|_| EncodedContents::new(&fields(contents)))
            .and_then(|encoded| {
                encoded.object_for(contents.uri.as_str(), contents.mime_type.as_deref())
            }),
        core::Body::Text(_) => None,
    };
    match encoded {
        Some(object) => ContentsOut::Encoded(object),
        None => ContentsOut::Fields(fields(contents)),
    }
}

/// The fields of one entry of `contents`, the body escaped (or base64-encoded) as it is written.
fn fields(contents: &core::Contents) -> ContentsRef<'_> {
    let body = match &contents.body {
        core::Body::Text(text) => BodyRef::Text(JsonString::Text(text.as_ref().into())),
        core::Body::Bytes(bytes) => BodyRef::Blob(JsonString::Text(BASE64.encode(bytes).into())),
    };
    ContentsRef {
        uri: contents.uri.as_str(),
        mime_type: contents.mime_type.as_deref(),
        body,
    }
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
            .map(|resource| listed(resource, shape, &shaped))
            .collect(),
        next_cursor: page.next_cursor.clone(),
        meta: None,
    })
}

/// The response to request `id` carrying the `resources/list` result for `shape`, written by
/// hand as [`encode_read`] writes a read's: byte for byte what serde writes for it (a test
/// compares both), every resource's strings escaped by SIMD
/// ([`wire::ResourceRef::write_json`]), in the thread's spare buffer.
pub(crate) fn encode_list(
    id: &RequestId,
    page: &Page<core::Resource>,
    shape: Shape,
) -> Result<Vec<u8>, serde_json::Error> {
    match shape {
        Shape::Original => encode_listed(id, page, shape, v2024_11_05::Annotations::narrowed),
        Shape::Titled | Shape::Newest => encode_listed(id, page, shape, Some),
    }
}

/// [`encode_list`] with the annotations of `shape` made by `shaped`.
fn encode_listed<A: Serialize>(
    id: &RequestId,
    page: &Page<core::Resource>,
    shape: Shape,
    shaped: impl Fn(wire::Annotations) -> Option<A>,
) -> Result<Vec<u8>, serde_json::Error> {
    let entries: Vec<wire::ResourceRef<'_, A>> = page
        .items
        .iter()
        .map(|resource| listed(resource, shape, &shaped))
        .collect();
    let hint: usize = entries.iter().map(wire::ResourceRef::size_hint).sum();
    let mut bytes = jsonrpc::buffer::with_capacity(hint + 128);
    bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut bytes, id)?;
    bytes.extend_from_slice(br#","result":{"#);
    wire::ResourceRef::write_page(&mut bytes, &entries, page.next_cursor.as_deref())?;
    bytes.extend_from_slice(b"}}");
    Ok(bytes)
}

/// A core resource as `shape` lists it, borrowing its strings: no `title` before 2025-06-18,
/// no `icons` before 2025-11-25, its annotations made by `shaped`.
fn listed<'a, A>(
    resource: &'a core::Resource,
    shape: Shape,
    shaped: impl Fn(wire::Annotations) -> Option<A>,
) -> wire::ResourceRef<'a, A> {
    wire::ResourceRef {
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

/// The `resources/templates/list` result for `shape`.
pub(crate) fn list_templates(
    page: Page<core::ResourceTemplate>,
    shape: Shape,
) -> Result<Box<RawValue>, serde_json::Error> {
    let newest = wire::ListResourceTemplatesResult {
        resource_templates: page.items.into_iter().map(template).collect(),
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
pub(crate) fn read(contents: &[core::Contents]) -> wire::ReadResourceResult<ContentsOut<'_>> {
    wire::ReadResourceResult {
        contents: contents.iter().map(self::contents).collect(),
        meta: None,
    }
}

/// How many bytes to set aside for a response carrying `result`, so that it is written without
/// growing its buffer when its text has nothing to escape ([`ContentsOut::size_hint`]).
fn read_size_hint(result: &wire::ReadResourceResult<ContentsOut<'_>>) -> usize {
    let contents: usize = result.contents.iter().map(ContentsOut::size_hint).sum();
    // `{"jsonrpc":"2.0","id":…,"result":{"contents":[…]}}` and some room for the id.
    contents + result.contents.len() + 96
}

/// The response to request `id` carrying a read's `result`, written by hand: byte for byte what
/// serde writes for it (a test compares both), with the constant members copied in whole and
/// every string escaped by SIMD ([`ContentsOut::write_json`]), in the thread's spare buffer
/// ([`jsonrpc::buffer`]).
pub(crate) fn encode_read(
    id: &RequestId,
    result: &wire::ReadResourceResult<ContentsOut<'_>>,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut bytes = jsonrpc::buffer::with_capacity(read_size_hint(result));
    bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut bytes, id)?;
    bytes.extend_from_slice(br#","result":{"contents":["#);
    for (index, contents) in result.contents.iter().enumerate() {
        if index > 0 {
            bytes.push(b',');
        }
        contents.write_json(&mut bytes);
    }
    bytes.push(b']');
    if let Some(meta) = &result.meta {
        bytes.extend_from_slice(br#","_meta":"#);
        serde_json::to_writer(&mut bytes, meta)?;
    }
    bytes.extend_from_slice(b"}}");
    Ok(bytes)
}

/// The `completion/complete` result (the same shape in every legacy version).
pub(crate) fn complete(completion: CoreCompletion) -> Result<Box<RawValue>, serde_json::Error> {
    raw(&CompleteResult {
        completion: Completion {
            values: completion.values,
            total: Some(completion.total),
            has_more: Some(completion.has_more),
        },
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
            annotations: resource.annotations.map(annotations),
            icons: icons(resource.icons),
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
                // And the whole response, written by hand.
                for id in [RequestId::Number(9), RequestId::String("\"i\"".to_owned())] {
                    let by_serde =
                        jsonrpc::to_vec(&jsonrpc::Response::success(id.clone(), &*owned));
                    let by_hand = encode_list(&id, &page(items.clone(), cursor), shape);
                    assert_eq!(
                        String::from_utf8(by_hand.unwrap()).unwrap(),
                        String::from_utf8(by_serde.unwrap()).unwrap(),
                        "{shape:?}"
                    );
                }
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

    /// The read result as the session sends it (by hand), checked against what serde writes
    /// for the same response.
    fn read_json(contents: &[core::Contents]) -> String {
        let result = read(contents);
        let id = RequestId::Number(7);
        let by_hand = String::from_utf8(encode_read(&id, &result).unwrap()).unwrap();
        let response = mcp_types::jsonrpc::Response::success(id, &result);
        assert_eq!(by_hand, serde_json::to_string(&response).unwrap());
        serde_json::to_string(&result).unwrap()
    }

    #[test]
    fn bytes_are_base64_encoded_into_blob() {
        let uri = ResourceUri::parse("mem:///b").unwrap();
        let bytes = core::Contents::bytes(uri, vec![0u8, 1, 2, 255]);
        let expected = r#"{"contents":[{"uri":"mem:///b","blob":"AAEC/w=="}]}"#;
        assert_eq!(read_json(std::slice::from_ref(&bytes)), expected);
        let memoized = bytes.with_encoding_memo();
        for _ in 0..2 {
            assert_eq!(read_json(std::slice::from_ref(&memoized)), expected);
        }
        assert!(memoized.encoding.is_filled());
    }

    #[test]
    fn text_is_escaped_as_it_is_written_and_never_kept() {
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
        let memoized = text.with_encoding_memo();
        for _ in 0..2 {
            let written = read_json(std::slice::from_ref(&memoized));
            assert_eq!(written, serde_json::to_string(&newest).unwrap());
        }
        assert!(!memoized.encoding.is_filled());
    }

    #[test]
    fn a_replaced_body_is_never_answered_from_the_memo() {
        let uri = ResourceUri::parse("mem:///b").unwrap();
        let mut contents = core::Contents::bytes(uri, b"old".to_vec()).with_encoding_memo();
        assert!(read_json(std::slice::from_ref(&contents)).contains(r#""blob":"b2xk""#));
        contents.body = core::Body::Bytes(b"new".to_vec().into());
        assert!(read_json(std::slice::from_ref(&contents)).contains(r#""blob":"bmV3""#));
    }

    #[test]
    fn an_entry_whose_uri_or_mime_type_changed_is_never_answered_from_the_memo() {
        let uri = ResourceUri::parse("mem:///t").unwrap();
        let mut contents = core::Contents::bytes(uri, b"body".to_vec()).with_encoding_memo();
        let first = read_json(std::slice::from_ref(&contents));
        assert_eq!(
            first,
            r#"{"contents":[{"uri":"mem:///t","blob":"Ym9keQ=="}]}"#
        );
        contents.uri = ResourceUri::parse("mem:///u").unwrap();
        let moved = read_json(std::slice::from_ref(&contents));
        assert_eq!(
            moved,
            r#"{"contents":[{"uri":"mem:///u","blob":"Ym9keQ=="}]}"#
        );
        contents.mime_type = Some("application/octet-stream".to_owned());
        let typed = read_json(std::slice::from_ref(&contents));
        assert_eq!(
            typed,
            r#"{"contents":[{"uri":"mem:///u","mimeType":"application/octet-stream","blob":"Ym9keQ=="}]}"#
        );
    }

    #[test]
    fn several_contents_are_written_as_serde_writes_them() {
        let text = core::Contents::text(ResourceUri::parse("mem:///a").unwrap(), "x\ty");
        let blob = core::Contents::bytes(ResourceUri::parse("mem:///b").unwrap(), vec![7u8])
            .with_encoding_memo();
        let written = read_json(&[text, blob.clone(), blob]);
        assert_eq!(written.matches("\"uri\"").count(), 3, "{written}");
    }
}
