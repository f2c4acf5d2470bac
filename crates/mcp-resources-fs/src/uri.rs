//! `file://` URIs of absolute paths and back: percent-encoding as RFC 8089 and RFC 3986 require,
//! and the one-time, checked decoding of a request's path.
//!
//! **Layer:** provider (`mcp-resources-fs`). This module only turns text into text and paths into
//! text; it never touches the file system (no canonicalization, no metadata) and never decides
//! what is excluded.
//!
//! The encoding is minimal: every byte of a path segment that is not an RFC 3986 `pchar`
//! (unreserved, sub-delims, `:` or `@`) is percent-encoded with uppercase hex digits, and
//! unreserved characters are never encoded. That is exactly the canonical form of
//! [`ResourceUri`](mcp_resources_core::uri::ResourceUri), so the URI we list is the URI a client
//! gets back from parsing it.

use std::path::{Component, Path, PathBuf};

use percent_encoding::percent_decode_str;

pub(crate) use mcp_resources_core::uri::encode_segment;

/// The `file://` URI (empty authority) of an absolute, normalized path such as a canonicalized
/// one. `/` gives `file:///`.
pub(crate) fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    let mut any = false;
    for component in path.components() {
        if let Component::Normal(name) = component {
            uri.push('/');
            uri.push_str(&encode_segment(&os_bytes(name)));
            any = true;
        }
    }
    if !any {
        uri.push('/');
    }
    uri
}

/// The URI path prefix under which every file of the root `path` lives: its encoded path with
/// a trailing `/` (just `/` for the file-system root).
pub(crate) fn root_path_prefix(path: &Path) -> String {
    let uri = file_uri(path);
    let mut prefix = uri["file://".len()..].to_owned();
    if !prefix.ends_with('/') {
        prefix.push('/');
    }
    prefix
}

/// Decodes the encoded path of a file relative to its root (the URI path after the root's
/// prefix) into a relative path, once, or `None` when it is not a plain downward path:
/// an encoded separator (`%2F`), a NUL byte, an empty segment, a `.` or `..` segment, a
/// segment not spelled as [`encode_segment`] writes it (a byte encoded that need not be), or
/// (off Unix) a segment that is not UTF-8 or holds a `\`.
pub(crate) fn decode_relative(encoded: &str) -> Option<PathBuf> {
    if encoded.is_empty() {
        return None;
    }
    let mut relative = PathBuf::new();
    for raw in encoded.split('/') {
        // A `%2F` would decode into a separator inside one segment: never a plain path.
        if raw.contains("%2F") || raw.contains("%2f") {
            return None;
        }
        let bytes: Vec<u8> = percent_decode_str(raw).collect();
        if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&0) {
            return None;
        }
        // One spelling per file: the one we list. `a%2Bb.csv` is not another name of
        // `a+b.csv` (grants and sensitive rules match the text of the URI).
        if encode_segment(&bytes) != raw {
            return None;
        }
        relative.push(segment_from_bytes(bytes)?);
    }
    Some(relative)
}

/// The path `relative` written with `/` separators, for titles and completion values.
pub(crate) fn slash_path(relative: &Path) -> String {
    let mut text = String::new();
    for component in relative.components() {
        if let Component::Normal(name) = component {
            if !text.is_empty() {
                text.push('/');
            }
            text.push_str(&name.to_string_lossy());
        }
    }
    text
}

#[cfg(unix)]
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn segment_from_bytes(bytes: Vec<u8>) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn segment_from_bytes(bytes: Vec<u8>) -> Option<std::ffi::OsString> {
    let text = String::from_utf8(bytes).ok()?;
    if text.contains('\\') || text.contains(':') {
        return None;
    }
    Some(text.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_minimally_and_canonically() {
        let uri = file_uri(Path::new("/tmp/a b/ünï+c,d@e:f/x%y#z?.txt"));
        assert_eq!(
            uri,
            "file:///tmp/a%20b/%C3%BCn%C3%AF+c,d@e:f/x%25y%23z%3F.txt"
        );
        let parsed = mcp_resources_core::uri::ResourceUri::parse(&uri).unwrap();
        assert_eq!(parsed.as_str(), uri);
        assert_eq!(file_uri(Path::new("/")), "file:///");
        assert_eq!(root_path_prefix(Path::new("/")), "/");
        assert_eq!(root_path_prefix(Path::new("/srv/a b")), "/srv/a%20b/");
    }

    #[test]
    fn decodes_only_plain_downward_paths() {
        assert_eq!(
            decode_relative("a%20b/c.txt"),
            Some(PathBuf::from("a b/c.txt"))
        );
        for bad in [
            "", "a//b", "a/", "..", "a/../b", "%2E%2E/x", "a%2Fb", "a%2fb", "a%00b", ".",
        ] {
            assert_eq!(decode_relative(bad), None, "{bad}");
        }
        assert_eq!(slash_path(Path::new("a/b/c")), "a/b/c");
    }
}
