//! Helpers shared by the engine's test modules: URIs, keys, an executor and small engines.

use std::future::Future;

use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::uri::ResourceUri;

/// Parses a URI the test knows to be valid.
pub(crate) fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap_or_else(|error| panic!("test uri {text:?}: {error}"))
}

/// The cursor key of the tests.
pub(crate) fn key() -> CursorKey {
    CursorKey::new([42; 32])
}

/// Runs a future to completion on the current thread.
pub(crate) fn run<F: Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

/// A resource named after the last segment of its URI, with one text body.
pub(crate) fn text_resource(text_uri: &str, body: &str) -> (Resource, Vec<Contents>) {
    let uri = uri(text_uri);
    let name = text_uri.rsplit('/').next().unwrap_or(text_uri).to_owned();
    let contents = vec![Contents::text(uri.clone(), body)];
    (Resource::new(uri, name), contents)
}

/// The URIs of a page, as text.
pub(crate) fn uris(resources: &[Resource]) -> Vec<String> {
    resources
        .iter()
        .map(|resource| resource.uri.to_string())
        .collect()
}
