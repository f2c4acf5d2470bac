//! Resources in their newest shape (2025-11-25, unchanged in 2026-07-28), the legacy request
//! params, and the legacy results, generic over the version's item type.
//!
//! **Layer:** wire types. The revision modules ([`crate::v2024_11_05`], [`crate::v2025_06_18`],
//! ...) define the older item shapes and convert from the ones here, dropping what the older
//! version does not know. The modern results (with `resultType`, `ttlMs`, `cacheScope`) live in
//! [`crate::v2026_07_28`]. This module must never know where resources come from.
//!
//! For sending, [`ContentsRef`] is a borrowed view of one entry of `contents` that writes the
//! same JSON as [`ResourceContents`] without owning or copying the text, and whose text or blob
//! may be a JSON string literal encoded once before ([`JsonString::Encoded`]); an entry whose
//! encoding is costly (the base64 of a blob) can be written whole once ([`EncodedContents`]).
//! Either is sent as [`ContentsOut`], whose [`ContentsOut::write_json`] writes serde's bytes
//! with strings escaped by SIMD ([`crate::jsonrpc::write_string`]): escaping a text as it is
//! sent costs about what copying a kept encoding of it costs, without a second copy in memory.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::jsonrpc::{string_room, write_string};
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

impl<A: Serialize> ResourceRef<'_, A> {
    /// Appends exactly what its `Serialize` writes (the tests compare both), its strings
    /// escaped with SIMD ([`write_string`]): a list page is mostly short strings, which serde
    /// escapes byte by byte. The rare annotations and icons are written by serde.
    ///
    /// # Errors
    ///
    /// What serde says of the annotations or icons (nothing, for the types of this crate).
    pub fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        out.extend_from_slice(br#"{"uri":"#);
        write_string(out, self.uri);
        out.extend_from_slice(br#","name":"#);
        write_string(out, self.name);
        let strings = [
            (&br#","title":"#[..], self.title),
            (br#","description":"#, self.description),
            (br#","mimeType":"#, self.mime_type),
        ];
        for (key, value) in strings {
            if let Some(value) = value {
                out.extend_from_slice(key);
                write_string(out, value);
            }
        }
        if let Some(size) = self.size {
            out.extend_from_slice(br#","size":"#);
            out.extend_from_slice(itoa::Buffer::new().format(size).as_bytes());
        }
        if let Some(annotations) = &self.annotations {
            out.extend_from_slice(br#","annotations":"#);
            serde_json::to_writer(&mut *out, annotations)?;
        }
        if let Some(icons) = &self.icons {
            out.extend_from_slice(br#","icons":"#);
            serde_json::to_writer(&mut *out, icons)?;
        }
        out.push(b'}');
        Ok(())
    }

    /// Appends `"resources":[…]` with `entries`, then `,"nextCursor":…` when there is one: the
    /// members of a list page's result that every version shares, as serde writes them.
    ///
    /// # Errors
    ///
    /// As [`ResourceRef::write_json`].
    pub fn write_page(
        out: &mut Vec<u8>,
        entries: &[Self],
        next_cursor: Option<&str>,
    ) -> Result<(), serde_json::Error> {
        out.extend_from_slice(br#""resources":["#);
        for (index, entry) in entries.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            entry.write_json(out)?;
        }
        out.push(b']');
        if let Some(cursor) = next_cursor {
            out.extend_from_slice(br#","nextCursor":"#);
            write_string(out, cursor);
        }
        Ok(())
    }

    /// About how many bytes [`ResourceRef::write_json`] writes, when nothing needs escaping.
    pub fn size_hint(&self) -> usize {
        let strings = [self.title, self.description, self.mime_type]
            .iter()
            .flatten()
            .map(|text| text.len() + 16)
            .sum::<usize>();
        self.uri.len() + self.name.len() + strings + 48
    }
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

/// A JSON string to send, borrowed: text escaped as it is written, or a JSON string literal
/// encoded before (for a body sent again and again, escaped once).
#[derive(Debug, Clone)]
pub enum JsonString<'a> {
    /// Text, escaped when written (owned when it was made for this message, such as the base64
    /// of a blob read afresh).
    Text(Cow<'a, str>),
    /// A JSON string literal, quotes and escapes included (from [`JsonString::encode`]),
    /// written verbatim.
    Encoded(&'a RawValue),
}

impl JsonString<'_> {
    /// `text` as a JSON string literal, ready for [`JsonString::Encoded`].
    pub fn encode(text: &str) -> Box<RawValue> {
        serde_json::value::to_raw_value(text)
            .expect("invariant: a string always serializes to json")
    }

    /// How many bytes it takes on the wire: exact when encoded, at least when it is text.
    pub fn size_hint(&self) -> usize {
        match self {
            JsonString::Text(text) => text.len() + 2,
            JsonString::Encoded(literal) => literal.get().len(),
        }
    }

    /// The spare capacity [`JsonString::write_json`] may need beyond what it writes (see
    /// [`string_room`]); none for a literal, which is copied.
    fn room(&self) -> usize {
        match self {
            JsonString::Text(text) => string_room(text.len()),
            JsonString::Encoded(_) => 0,
        }
    }

    /// Appends what its `Serialize` writes: text escaped ([`write_string`]), a literal copied.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            JsonString::Text(text) => write_string(out, text),
            JsonString::Encoded(literal) => out.extend_from_slice(literal.get().as_bytes()),
        }
    }
}

impl Serialize for JsonString<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonString::Text(text) => serializer.serialize_str(text),
            JsonString::Encoded(literal) => literal.serialize(serializer),
        }
    }
}

/// The body of a [`ContentsRef`]: `text`, or `blob` (already base64).
#[derive(Debug, Clone)]
pub enum BodyRef<'a> {
    /// Written as `text`.
    Text(JsonString<'a>),
    /// Written as `blob`: the base64 of the bytes.
    Blob(JsonString<'a>),
}

/// One entry of `contents`, borrowed, for sending: writes exactly what
/// [`TextResourceContents`] or [`BlobResourceContents`] write for the same values without
/// `_meta` (so in every version's shape), without owning or copying the text.
#[derive(Debug, Clone)]
pub struct ContentsRef<'a> {
    /// The URI of this content.
    pub uri: &'a str,
    /// MIME type.
    pub mime_type: Option<&'a str>,
    /// The text or the blob.
    pub body: BodyRef<'a>,
}

impl ContentsRef<'_> {
    /// How many bytes to set aside for [`ContentsRef::write_json`], to size an output buffer:
    /// what it takes on the wire when nothing needs an escape, plus the room the escaper works
    /// in (it is needed for one string at a time, so the largest is counted).
    pub fn size_hint(&self) -> usize {
        let body = match &self.body {
            BodyRef::Text(text) | BodyRef::Blob(text) => text,
        };
        let mime_type = self.mime_type.unwrap_or("");
        let room = body
            .room()
            .max(string_room(self.uri.len()))
            .max(string_room(mime_type.len()));
        // `{"uri":"","mimeType":"","text":}`
        32 + self.uri.len() + mime_type.len() + body.size_hint() + room
    }

    /// Appends exactly what its `Serialize` writes, with every string escaped by
    /// [`write_string`].
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#"{"uri":"#);
        write_string(out, self.uri);
        if let Some(mime_type) = self.mime_type {
            out.extend_from_slice(br#","mimeType":"#);
            write_string(out, mime_type);
        }
        let (key, value) = match &self.body {
            BodyRef::Text(text) => (br#","text":"#.as_slice(), text),
            BodyRef::Blob(blob) => (br#","blob":"#.as_slice(), blob),
        };
        out.extend_from_slice(key);
        value.write_json(out);
        out.push(b'}');
    }
}

impl Serialize for ContentsRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = if self.mime_type.is_some() { 3 } else { 2 };
        let mut object = serializer.serialize_struct("ResourceContents", fields)?;
        object.serialize_field("uri", self.uri)?;
        if let Some(mime_type) = self.mime_type {
            object.serialize_field("mimeType", mime_type)?;
        }
        match &self.body {
            BodyRef::Text(text) => object.serialize_field("text", text)?,
            BodyRef::Blob(blob) => object.serialize_field("blob", blob)?,
        }
        object.end()
    }
}

/// One entry of `contents` written once, to be sent again and again (a static resource's blob,
/// whose base64 is costly to make): the JSON object a [`ContentsRef`] writes, kept with the URI
/// and MIME type it was written for. Sending it copies the object: nothing is encoded again.
#[derive(Debug)]
pub struct EncodedContents {
    uri: Box<str>,
    mime_type: Option<Box<str>>,
    object: Box<RawValue>,
}

impl EncodedContents {
    /// Writes `contents` once.
    pub fn new(contents: &ContentsRef<'_>) -> EncodedContents {
        EncodedContents {
            uri: contents.uri.into(),
            mime_type: contents.mime_type.map(Into::into),
            object: serde_json::value::to_raw_value(contents)
                .expect("invariant: contents always serialize to json"),
        }
    }

    /// The object, when it was written for `uri` and `mime_type` (contents whose URI or MIME
    /// type was changed since are written afresh).
    pub fn object_for(&self, uri: &str, mime_type: Option<&str>) -> Option<&RawValue> {
        (*self.uri == *uri && self.mime_type.as_deref() == mime_type).then_some(&*self.object)
    }
}

/// One entry of `contents` to send: its fields, or the whole object written before.
#[derive(Debug, Clone)]
pub enum ContentsOut<'a> {
    /// Written from its fields.
    Fields(ContentsRef<'a>),
    /// An object from [`EncodedContents::object_for`], written verbatim.
    Encoded(&'a RawValue),
}

impl ContentsOut<'_> {
    /// How many bytes to set aside for [`ContentsOut::write_json`], as
    /// [`ContentsRef::size_hint`] (exact when encoded).
    pub fn size_hint(&self) -> usize {
        match self {
            ContentsOut::Fields(contents) => contents.size_hint(),
            ContentsOut::Encoded(object) => object.get().len(),
        }
    }

    /// Appends exactly what its `Serialize` writes: the fields with [`ContentsRef::write_json`],
    /// an encoded object copied.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            ContentsOut::Fields(contents) => contents.write_json(out),
            ContentsOut::Encoded(object) => out.extend_from_slice(object.get().as_bytes()),
        }
    }
}

impl Serialize for ContentsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentsOut::Fields(contents) => contents.serialize(serializer),
            ContentsOut::Encoded(object) => object.serialize(serializer),
        }
    }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Annotations, Icon, IconTheme, ResourceRef, Role};
    use crate::v2024_11_05;

    fn text() -> impl Strategy<Value = String> {
        "[a-z/:%é]{0,12}|[\"\\\\\u{0}-\u{1f}\u{7f} a-z]{0,6}"
    }

    proptest! {
        /// Whatever it holds, a listed resource writes what serde writes for it, in the newest
        /// shape and with the 2024-11-05 annotations.
        #[test]
        fn write_json_writes_what_serde_writes(
            uri in text(),
            name in text(),
            title in proptest::option::of(text()),
            description in proptest::option::of(text()),
            mime_type in proptest::option::of(text()),
            size: Option<u64>,
            annotated: bool,
            priority in proptest::option::of(0.0..=1.0_f64),
            icon in proptest::option::of(text()),
        ) {
            let annotations = annotated.then(|| Annotations {
                audience: Some(vec![Role::User]),
                priority,
                last_modified: Some("2025-01-12T15:00:58Z".to_owned()),
            });
            let icons = icon.map(|src| vec![Icon {
                src,
                mime_type: None,
                sizes: None,
                theme: Some(IconTheme::Light),
            }]);
            let newest = ResourceRef {
                uri: &uri,
                name: &name,
                title: title.as_deref(),
                description: description.as_deref(),
                mime_type: mime_type.as_deref(),
                size,
                annotations: annotations.clone(),
                icons,
            };
            let mut written = Vec::new();
            newest.write_json(&mut written).unwrap();
            prop_assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&newest).unwrap()
            );
            let original = ResourceRef {
                uri: &uri,
                name: &name,
                title: None,
                description: description.as_deref(),
                mime_type: mime_type.as_deref(),
                size,
                annotations: annotations.and_then(v2024_11_05::Annotations::narrowed),
                icons: None,
            };
            let mut written = Vec::new();
            original.write_json(&mut written).unwrap();
            prop_assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&original).unwrap()
            );
        }
    }
}
