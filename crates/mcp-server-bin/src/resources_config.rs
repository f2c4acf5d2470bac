//! Resources written in the configuration file: fixed resources with inline text, base64 blobs
//! or the contents of a file, and templated resources whose text uses the template's variables.
//!
//! **Layer:** server binary, configuration. Two stages, like the rest of the configuration:
//! [`RawResource`] is one `[[resources]]` entry as a user writes it (serde + schemars, unknown keys
//! refused); [`ConfiguredResources::load`] checks every entry, reads the files it names once, at
//! start-up, and turns them into the core's [`StaticResource`] and [`FunctionTemplate`] values,
//! which [`ConfiguredResources::add_to`] registers on a [`ServerBuilder`]. This module never
//! serves anything, never watches files and knows no protocol version: the engine routes reads
//! to what it registers, and the adapters put the bodies on the wire (base64 included).
//!
//! ```toml
//! [[resources]]
//! uri = "docs://motd"
//! name = "motd"
//! mime_type = "text/plain"
//! text = "Welcome!"
//!
//! [[resources]]
//! uri = "docs://logo"
//! name = "logo"
//! blob_file = "logo.png"          # relative to the configuration file; MIME type guessed
//!
//! [[resources]]
//! uri_template = "docs://users/{id}/card"
//! name = "user-card"
//! mime_type = "application/json"
//! text = '{"id":"{id}"}'          # `{id}` is replaced, every other brace is kept
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use mcp_resources_core::cache::CachePolicy;
use mcp_resources_core::engine::{FunctionTemplate, StaticResource};
use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::template::{TemplateError, UriTemplate, VarValue, Variables};
use mcp_resources_core::uri::{ResourceUri, UriError};
use schemars::JsonSchema;
use serde::Deserialize;

use mcp_resources_server::ServerBuilder;

/// One `[[resources]]` entry of the configuration file, as written.
///
/// An entry has either a `uri` (one fixed resource) or a `uri_template` (a family of resources
/// answered from one text), and exactly one body: `text`, `blob` (base64), `text_file` or
/// `blob_file`. A templated entry takes a text body only, in which `{name}` is replaced by the
/// value of the template variable `name` on every read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawResource {
    /// The URI of a fixed resource, for example `docs://motd`.
    pub(crate) uri: Option<String>,
    /// An RFC 6570 URI template, for example `docs://users/{id}/card`, for a templated resource.
    pub(crate) uri_template: Option<String>,
    /// A short programmatic name. Default: the URI or the template.
    pub(crate) name: Option<String>,
    /// A human-readable title.
    pub(crate) title: Option<String>,
    /// What the resource is, for the model or the user.
    pub(crate) description: Option<String>,
    /// The MIME type of the contents. Default: guessed from the file name for `text_file` and
    /// `blob_file`, none otherwise.
    pub(crate) mime_type: Option<String>,
    /// The contents as text. In a templated entry, `{name}` is replaced by the variable `name`.
    /// Shared, so that a fixed resource serves this very text: a large configuration is held
    /// once, not once as read and again as served.
    pub(crate) text: Option<Arc<str>>,
    /// The contents as bytes, written in standard base64 (fixed resources only).
    pub(crate) blob: Option<String>,
    /// A UTF-8 file whose text is the contents, read once at start-up; relative to the
    /// directory of the configuration file. In a templated entry its `{name}`s are replaced.
    pub(crate) text_file: Option<PathBuf>,
    /// A file whose bytes are the contents, read once at start-up; relative to the directory of
    /// the configuration file (fixed resources only).
    pub(crate) blob_file: Option<PathBuf>,
    /// How long clients may cache what is read, in milliseconds. Default: the server's default.
    pub(crate) ttl_ms: Option<u64>,
}

impl RawResource {
    /// Makes a relative `text_file` or `blob_file` relative to `base` (the directory of the
    /// configuration file) instead of the current directory.
    pub(crate) fn resolve_paths(&mut self, base: &Path) {
        for path in [&mut self.text_file, &mut self.blob_file]
            .into_iter()
            .flatten()
        {
            if path.is_relative() {
                *path = base.join(&*path);
            }
        }
    }
}

/// Why a `[[resources]]` entry cannot be served.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResourcesConfigError {
    /// The entry has neither `uri` nor `uri_template`, or both.
    #[error("resources entry {index}: give exactly one of uri and uri_template")]
    UriOrTemplate {
        /// The position of the entry in the file, from 1.
        index: usize,
    },
    /// `uri` is not a valid resource URI.
    #[error("resources entry {index}: invalid uri {uri:?}")]
    InvalidUri {
        /// The position of the entry in the file, from 1.
        index: usize,
        /// The value given.
        uri: String,
        /// What is wrong with it.
        #[source]
        source: UriError,
    },
    /// `uri_template` is not a valid RFC 6570 template.
    #[error("resources entry {index}: invalid uri_template {template:?}")]
    InvalidTemplate {
        /// The position of the entry in the file, from 1.
        index: usize,
        /// The value given.
        template: String,
        /// What is wrong with it.
        #[source]
        source: TemplateError,
    },
    /// The entry has no body, or more than one.
    #[error(
        "resources entry {index}: give exactly one of text, blob, text_file and blob_file (found {found})"
    )]
    Body {
        /// The position of the entry in the file, from 1.
        index: usize,
        /// How many bodies were given.
        found: usize,
    },
    /// A templated entry was given `blob` or `blob_file`.
    #[error("resources entry {index}: a uri_template entry takes text or text_file, not a blob")]
    BlobTemplate {
        /// The position of the entry in the file, from 1.
        index: usize,
    },
    /// `blob` is not standard base64.
    #[error("resources entry {index}: blob is not valid base64")]
    Base64 {
        /// The position of the entry in the file, from 1.
        index: usize,
        /// What is wrong with it.
        #[source]
        source: base64::DecodeError,
    },
    /// A `text_file` or `blob_file` could not be read.
    #[error("resources entry {index}: cannot read {}", path.display())]
    ReadFile {
        /// The position of the entry in the file, from 1.
        index: usize,
        /// The file, as resolved.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A `text_file` is not UTF-8.
    #[error("resources entry {index}: {} is not utf-8 text (use blob_file)", path.display())]
    NotUtf8 {
        /// The position of the entry in the file, from 1.
        index: usize,
        /// The file, as resolved.
        path: PathBuf,
    },
}

/// The resources of the configuration, checked and loaded, ready to be registered.
#[derive(Debug, Default)]
pub(crate) struct ConfiguredResources {
    /// The fixed resources, in file order.
    pub(crate) statics: Vec<StaticResource>,
    /// The templated resources, in file order.
    pub(crate) templates: Vec<FunctionTemplate>,
}

impl ConfiguredResources {
    /// Checks `entries` and reads the files they name, relative to `base_dir` (the directory of
    /// the configuration file).
    ///
    /// # Errors
    ///
    /// The first [`ResourcesConfigError`] found, naming the entry by its position.
    pub(crate) fn load(
        entries: Vec<RawResource>,
        base_dir: &Path,
    ) -> Result<ConfiguredResources, ResourcesConfigError> {
        let mut loaded = ConfiguredResources {
            statics: Vec::with_capacity(entries.len()),
            templates: Vec::new(),
        };
        for (position, entry) in entries.iter().enumerate() {
            let index = position + 1;
            match (&entry.uri, &entry.uri_template) {
                (Some(uri), None) => loaded
                    .statics
                    .push(load_static(index, entry, uri, base_dir)?),
                (None, Some(template)) => loaded
                    .templates
                    .push(load_template(index, entry, template, base_dir)?),
                _ => return Err(ResourcesConfigError::UriOrTemplate { index }),
            }
        }
        Ok(loaded)
    }

    /// Registers every resource and template on a server builder.
    #[must_use]
    pub(crate) fn add_to(self, mut builder: ServerBuilder) -> ServerBuilder {
        builder = builder.static_entries(self.statics);
        for template in self.templates {
            builder = builder.template(template);
        }
        builder
    }
}

/// The one body an entry gives, still unread.
enum RawBody<'a> {
    Text(&'a Arc<str>),
    Blob(&'a str),
    TextFile(&'a Path),
    BlobFile(&'a Path),
}

fn raw_body(index: usize, entry: &RawResource) -> Result<RawBody<'_>, ResourcesConfigError> {
    let mut bodies = Vec::with_capacity(1);
    if let Some(text) = &entry.text {
        bodies.push(RawBody::Text(text));
    }
    if let Some(blob) = &entry.blob {
        bodies.push(RawBody::Blob(blob));
    }
    if let Some(path) = &entry.text_file {
        bodies.push(RawBody::TextFile(path));
    }
    if let Some(path) = &entry.blob_file {
        bodies.push(RawBody::BlobFile(path));
    }
    let found = bodies.len();
    match bodies.pop() {
        Some(body) if found == 1 => Ok(body),
        _ => Err(ResourcesConfigError::Body { index, found }),
    }
}

fn read_file(index: usize, base_dir: &Path, path: &Path) -> Result<Vec<u8>, ResourcesConfigError> {
    let path = base_dir.join(path);
    std::fs::read(&path).map_err(|source| ResourcesConfigError::ReadFile {
        index,
        path,
        source,
    })
}

fn read_text_file(
    index: usize,
    base_dir: &Path,
    path: &Path,
) -> Result<String, ResourcesConfigError> {
    String::from_utf8(read_file(index, base_dir, path)?).map_err(|_| {
        ResourcesConfigError::NotUtf8 {
            index,
            path: base_dir.join(path),
        }
    })
}

/// The configured MIME type, else one guessed from the file name of a file body.
fn mime_type(entry: &RawResource, body: &RawBody<'_>) -> Option<String> {
    let guessed = |path: &Path| mime_guess::from_path(path).first().map(|m| m.to_string());
    entry.mime_type.clone().or_else(|| match body {
        RawBody::TextFile(path) | RawBody::BlobFile(path) => guessed(path),
        RawBody::Text(_) | RawBody::Blob(_) => None,
    })
}

fn cache_policy(entry: &RawResource) -> CachePolicy {
    CachePolicy {
        ttl_ms: entry.ttl_ms,
        per_principal: false,
    }
}

fn load_static(
    index: usize,
    entry: &RawResource,
    uri_text: &str,
    base_dir: &Path,
) -> Result<StaticResource, ResourcesConfigError> {
    let uri = ResourceUri::parse(uri_text).map_err(|source| ResourcesConfigError::InvalidUri {
        index,
        uri: uri_text.to_owned(),
        source,
    })?;
    let body = raw_body(index, entry)?;
    let mime_type = mime_type(entry, &body);
    let mut contents = match body {
        RawBody::Text(text) => Contents::text(uri.clone(), Arc::clone(text)),
        RawBody::TextFile(path) => {
            Contents::text(uri.clone(), read_text_file(index, base_dir, path)?)
        }
        RawBody::Blob(blob) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .map_err(|source| ResourcesConfigError::Base64 { index, source })?;
            Contents::bytes(uri.clone(), bytes)
        }
        RawBody::BlobFile(path) => Contents::bytes(uri.clone(), read_file(index, base_dir, path)?),
    };
    contents.mime_type.clone_from(&mime_type);
    let mut resource = Resource::new(uri, entry.name.as_deref().unwrap_or(uri_text))
        .with_size(contents.body.len());
    resource.title.clone_from(&entry.title);
    resource.description.clone_from(&entry.description);
    resource.mime_type = mime_type;
    Ok(StaticResource {
        resource,
        contents: vec![contents],
        cache_policy: cache_policy(entry),
    })
}

fn load_template(
    index: usize,
    entry: &RawResource,
    template_text: &str,
    base_dir: &Path,
) -> Result<FunctionTemplate, ResourcesConfigError> {
    let uri_template = UriTemplate::parse(template_text).map_err(|source| {
        ResourcesConfigError::InvalidTemplate {
            index,
            template: template_text.to_owned(),
            source,
        }
    })?;
    let body = raw_body(index, entry)?;
    let mime_type = mime_type(entry, &body);
    let text = match body {
        RawBody::Text(text) => text.to_string(),
        RawBody::TextFile(path) => read_text_file(index, base_dir, path)?,
        RawBody::Blob(_) | RawBody::BlobFile(_) => {
            return Err(ResourcesConfigError::BlobTemplate { index });
        }
    };
    let filled = Arc::new(FilledText::new(
        &text,
        uri_template.variable_names().collect::<Vec<_>>().as_slice(),
    ));
    let mut descriptor =
        ResourceTemplate::new(uri_template, entry.name.as_deref().unwrap_or(template_text));
    descriptor.title.clone_from(&entry.title);
    descriptor.description.clone_from(&entry.description);
    descriptor.mime_type.clone_from(&mime_type);
    let reader = move |uri: &ResourceUri, variables: &Variables| {
        let mut contents = Contents::text(uri.clone(), filled.fill(variables));
        contents.mime_type.clone_from(&mime_type);
        std::future::ready(Ok(vec![contents]))
    };
    Ok(FunctionTemplate::new(descriptor, reader).with_cache_policy(cache_policy(entry)))
}

/// A text with `{name}` placeholders for the variables of a template, split once at load time.
#[derive(Debug, PartialEq, Eq)]
struct FilledText {
    pieces: Vec<Piece>,
}

#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Variable(String),
}

impl FilledText {
    /// Splits `text` at every `{name}` whose `name` is one of `names`; any other brace, such as
    /// those of JSON, stays literal text.
    fn new(text: &str, names: &[&str]) -> FilledText {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let placeholder = after
                .find('}')
                .map(|close| &after[..close])
                .filter(|name| names.contains(name));
            match placeholder {
                Some(name) => {
                    literal.push_str(&rest[..open]);
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Variable(name.to_owned()));
                    rest = &after[name.len() + 1..];
                }
                None => {
                    literal.push_str(&rest[..=open]);
                    rest = after;
                }
            }
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        FilledText { pieces }
    }

    /// The text with each placeholder replaced by its variable's decoded value: a list is
    /// joined with `,`, a map as `key,value` pairs, and a variable the URI did not give (an
    /// optional query parameter) is empty.
    fn fill(&self, variables: &Variables) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Literal(text) => out.push_str(text),
                Piece::Variable(name) => match variables.get(name) {
                    None => {}
                    Some(VarValue::String(value)) => out.push_str(value),
                    Some(VarValue::List(items)) => out.push_str(&items.join(",")),
                    Some(VarValue::Map(pairs)) => {
                        let flat: Vec<&str> = pairs
                            .iter()
                            .flat_map(|(key, value)| [key.as_str(), value.as_str()])
                            .collect();
                        out.push_str(&flat.join(","));
                    }
                },
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_resources_core::engine::{Engine, ReadOutput};
    use mcp_resources_core::error::ReadError;
    use mcp_resources_core::pagination::CursorKey;
    use mcp_resources_core::policy::Principal;
    use mcp_resources_core::resource::Body;

    impl ConfiguredResources {
        /// What [`ConfiguredResources::add_to`] registers, on the core's engine builder.
        fn registered_on(
            self,
            mut builder: mcp_resources_core::engine::EngineBuilder,
        ) -> mcp_resources_core::engine::EngineBuilder {
            builder = builder.static_entries(self.statics);
            for template in self.templates {
                builder = builder.template(template);
            }
            builder
        }
    }

    /// A configuration file holding only `[[resources]]` entries.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        resources: Vec<RawResource>,
    }

    fn parse(toml_text: &str) -> Vec<RawResource> {
        toml::from_str::<File>(toml_text)
            .expect("test toml parses")
            .resources
    }

    fn engine(toml_text: &str, base_dir: &Path) -> Engine {
        let loaded = ConfiguredResources::load(parse(toml_text), base_dir).expect("entries load");
        loaded
            .registered_on(Engine::builder(CursorKey::new([7; 32])))
            .build()
            .expect("engine builds")
    }

    fn read(engine: &Engine, uri: &str) -> Result<ReadOutput, ReadError> {
        let uri = ResourceUri::parse(uri).expect("test uri parses");
        pollster::block_on(engine.read(&Principal::anonymous(), &uri))
    }

    /// What one read gives, written short: `text <mime> <body>`, `bytes <mime> <len> <first
    /// bytes as hex>`, or `error <message>`.
    fn describe(result: Result<ReadOutput, ReadError>) -> String {
        match result {
            Err(error) => format!("error {error}"),
            Ok(output) => output
                .contents
                .iter()
                .map(|contents| {
                    let mime = contents.mime_type.as_deref().unwrap_or("-");
                    match &contents.body {
                        Body::Text(text) => format!("text {mime} {text}"),
                        Body::Bytes(bytes) => {
                            let head: String =
                                bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
                            format!("bytes {mime} {} {head}", bytes.len())
                        }
                    }
                })
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    /// Reads `uri` from the resources of `toml_text` and compares the description.
    fn check(toml_text: &str, uri: &str, expect: &str) {
        let engine = engine(toml_text, Path::new("/nonexistent"));
        assert_eq!(describe(read(&engine, uri)), expect, "reading {uri}");
    }

    /// Loads `toml_text` and compares the error message.
    fn check_error(toml_text: &str, base_dir: &Path, expect: &str) {
        let error =
            ConfiguredResources::load(parse(toml_text), base_dir).expect_err("entries are refused");
        assert_eq!(error.to_string(), expect);
    }

    const FIXTURE_LIKE: &str = r#"
        [[resources]]
        uri = "test://static-text"
        name = "static-text"
        mime_type = "text/plain"
        text = "hello"

        [[resources]]
        uri = "test://static-binary"
        mime_type = "image/png"
        blob = "iVBORw0KGgo="

        [[resources]]
        uri_template = "test://template/{id}/data"
        name = "template-data"
        mime_type = "application/json"
        text = '{"id":"{id}","other":"{nope}","raw":"{"}'

        [[resources]]
        uri_template = "test://search{?q,tags*}"
        text = "q={q} tags={tags}"
    "#;

    #[test]
    fn reads_inline_text_blob_and_template() {
        check(FIXTURE_LIKE, "test://static-text", "text text/plain hello");
        check(
            FIXTURE_LIKE,
            "test://static-binary",
            "bytes image/png 8 89504e47",
        );
        check(
            FIXTURE_LIKE,
            "test://template/123/data",
            r#"text application/json {"id":"123","other":"{nope}","raw":"{"}"#,
        );
        check(
            FIXTURE_LIKE,
            "test://template/a%20b/data",
            r#"text application/json {"id":"a b","other":"{nope}","raw":"{"}"#,
        );
        check(
            FIXTURE_LIKE,
            "test://search?q=x&tags=a&tags=b",
            "text - q=x tags=a,b",
        );
        check(FIXTURE_LIKE, "test://search", "text - q= tags=");
        check(
            FIXTURE_LIKE,
            "test://static-nothing",
            "error resource test://static-nothing not found",
        );
    }

    #[test]
    fn lists_statics_with_metadata_and_templates_in_file_order() {
        let engine = engine(FIXTURE_LIKE, Path::new("/nonexistent"));
        let principal = Principal::anonymous();
        let page = pollster::block_on(engine.list_resources(&principal, None)).expect("lists");
        let listed: Vec<String> = page
            .items
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {}",
                    r.uri.as_str(),
                    r.name,
                    r.mime_type.as_deref().unwrap_or("-"),
                    r.size.map_or("-".to_owned(), |size| size.to_string())
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                "test://static-binary test://static-binary image/png 8",
                "test://static-text static-text text/plain 5",
            ]
        );
        let templates = pollster::block_on(engine.list_templates(&principal, None)).expect("lists");
        let listed: Vec<(&str, &str)> = templates
            .items
            .iter()
            .map(|t| (t.uri_template.as_str(), t.name.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                ("test://template/{id}/data", "template-data"),
                ("test://search{?q,tags*}", "test://search{?q,tags*}"),
            ]
        );
    }

    #[test]
    fn ttl_sets_the_cache_hint() {
        let engine = engine(
            r#"
            [[resources]]
            uri = "test://a"
            text = "a"
            ttl_ms = 60000
            [[resources]]
            uri_template = "test://t/{x}"
            text = "{x}"
            ttl_ms = 5
            "#,
            Path::new("/nonexistent"),
        );
        let a = read(&engine, "test://a").expect("reads");
        assert_eq!(a.cache.ttl_ms, 60000);
        let t = read(&engine, "test://t/1").expect("reads");
        assert_eq!(t.cache.ttl_ms, 5);
    }

    #[test]
    fn files_are_read_relative_to_the_base_dir() {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::write(dir.path().join("motd.txt"), "welcome").expect("writes");
        std::fs::write(dir.path().join("pixel.png"), [0x89, b'P', b'N', b'G', 0]).expect("writes");
        std::fs::write(dir.path().join("card.json"), r#"{"user":"{user}"}"#).expect("writes");
        let engine = engine(
            r#"
            [[resources]]
            uri = "docs://motd"
            text_file = "motd.txt"
            [[resources]]
            uri = "docs://pixel"
            blob_file = "pixel.png"
            [[resources]]
            uri_template = "docs://cards/{user}"
            text_file = "card.json"
            "#,
            dir.path(),
        );
        assert_eq!(
            describe(read(&engine, "docs://motd")),
            "text text/plain welcome"
        );
        assert_eq!(
            describe(read(&engine, "docs://pixel")),
            "bytes image/png 5 89504e47"
        );
        assert_eq!(
            describe(read(&engine, "docs://cards/ada")),
            r#"text application/json {"user":"ada"}"#
        );
    }

    #[test]
    fn refuses_bad_entries() {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::write(dir.path().join("latin1.txt"), [b'c', 0xe9]).expect("writes");
        let base = dir.path();
        check_error(
            "[[resources]]\ntext = 'x'",
            base,
            "resources entry 1: give exactly one of uri and uri_template",
        );
        check_error(
            "[[resources]]\nuri = 'a://b'\ntext = 'x'\n[[resources]]\nuri = 'a://c'\nuri_template = 'a://{x}'\ntext = 'x'",
            base,
            "resources entry 2: give exactly one of uri and uri_template",
        );
        check_error(
            "[[resources]]\nuri = 'a://b'",
            base,
            "resources entry 1: give exactly one of text, blob, text_file and blob_file (found 0)",
        );
        check_error(
            "[[resources]]\nuri = 'a://b'\ntext = 'x'\nblob = 'eA=='",
            base,
            "resources entry 1: give exactly one of text, blob, text_file and blob_file (found 2)",
        );
        check_error(
            "[[resources]]\nuri_template = 'a://{x}'\nblob = 'eA=='",
            base,
            "resources entry 1: a uri_template entry takes text or text_file, not a blob",
        );
        check_error(
            "[[resources]]\nuri = 'a://b'\nblob = 'not base64!'",
            base,
            "resources entry 1: blob is not valid base64",
        );
        check_error(
            "[[resources]]\nuri = 'a://b#frag'\ntext = 'x'",
            base,
            "resources entry 1: invalid uri \"a://b#frag\"",
        );
        check_error(
            "[[resources]]\nuri_template = 'a://{x'\ntext = 'x'",
            base,
            "resources entry 1: invalid uri_template \"a://{x\"",
        );
        check_error(
            "[[resources]]\nuri = 'a://b'\nblob_file = 'missing.png'",
            base,
            &format!(
                "resources entry 1: cannot read {}",
                base.join("missing.png").display()
            ),
        );
        check_error(
            "[[resources]]\nuri = 'a://b'\ntext_file = 'latin1.txt'",
            base,
            &format!(
                "resources entry 1: {} is not utf-8 text (use blob_file)",
                base.join("latin1.txt").display()
            ),
        );
    }

    #[test]
    fn refuses_unknown_keys() {
        let error = toml::from_str::<File>("[[resources]]\nuri = 'a://b'\ntxt = 'x'")
            .err()
            .expect("an unknown key is refused");
        assert!(error.to_string().contains("unknown field `txt`"), "{error}");
    }

    #[test]
    fn duplicate_uris_are_refused_when_the_engine_is_built() {
        let entries = parse(
            "[[resources]]\nuri = 'a://b'\ntext = 'x'\n[[resources]]\nuri = 'a://b'\ntext = 'y'",
        );
        let loaded =
            ConfiguredResources::load(entries.clone(), Path::new("/")).expect("entries load");
        let built = loaded
            .registered_on(Engine::builder(CursorKey::new([0; 32])))
            .build();
        assert!(built.is_err(), "a uri given twice must not build");
    }

    #[test]
    fn resolves_relative_file_paths_against_the_configuration_directory() {
        let mut entries = parse(
            "[[resources]]\nuri = 'a://b'\ntext_file = 'in/t.txt'\n\
             [[resources]]\nuri = 'a://c'\nblob_file = '/abs/b.png'",
        );
        for entry in &mut entries {
            entry.resolve_paths(Path::new("/etc/mcp"));
        }
        assert_eq!(
            entries[0].text_file.as_deref(),
            Some(Path::new("/etc/mcp/in/t.txt"))
        );
        assert_eq!(
            entries[1].blob_file.as_deref(),
            Some(Path::new("/abs/b.png"))
        );
    }

    #[test]
    fn placeholders_are_only_template_variables() {
        let text = FilledText::new("{a}{b}{{a}}x{", &["a"]);
        assert_eq!(
            text.pieces,
            [
                Piece::Variable("a".to_owned()),
                Piece::Literal("{b}{".to_owned()),
                Piece::Variable("a".to_owned()),
                Piece::Literal("}x{".to_owned()),
            ]
        );
        let variables: Variables = [("a", "1")].into_iter().collect();
        assert_eq!(text.fill(&variables), "1{b}{1}x{");
    }
}
