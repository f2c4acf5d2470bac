//! The read path: from a request URI to the bytes of one file, re-checking every rule on the
//! request itself and never trusting the index.
//!
//! **Layer:** server, filesystem provider. Blocking file-system code, run on tokio's blocking
//! pool by the provider. It never knows the index, the watcher or the engine's routing.
//!
//! The order of the checks, each failing as "not found":
//! 1. the URI is `file:` with an empty authority and its path lies below a served root;
//! 2. its query, if any, is only `offset` and `length` (each at most once);
//! 3. the path below the root is decoded once and is a plain downward path (no `%2F`, NUL,
//!    `..`, `.` or empty segment);
//! 4. that path is not excluded (`.git`, secret patterns, ignore files), component by component;
//! 5. joined under the root and canonicalized (symlinks resolved), it is still below the root,
//!    and the resolved path is not excluded either; the root is canonical already, so when no
//!    component below it is a symlink (one `lstat` each) the joined path is the canonical one,
//!    and only a path through a symlink is resolved in full;
//! 6. it is a regular file, looked at both before opening it (the `lstat` of the last
//!    component, or a `stat` of the resolved path) and on the opened handle.
//!
//! What remains is the race of a local process swapping a path component for a symlink between
//! those checks and the open; the provider guards against remote clients, not against local
//! users who can already write inside the served tree.
//!
//! Only then can a read fail with an error a client sees (too large, bad range numbers), so an
//! error never tells a hidden file from a missing one.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::resource::{ByteRange, Contents};
use mcp_resources_core::uri::ResourceUri;

use super::exclude::{Rules, check_relative};
use super::index::Root;
use super::uri::decode_relative;

/// What the query of a request URI asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The whole file.
    Whole,
    /// From `offset`, `length` bytes (to the end when `None`).
    Range { offset: u64, length: Option<u64> },
}

/// Reads the query of a request: `Ok(None)` when it holds anything but `offset` and `length`
/// (each at most once), an error a client may see when one of those is not a number.
pub(crate) fn parse_query(query: Option<&str>) -> Result<Option<Part>, ProviderError> {
    let Some(query) = query else {
        return Ok(Some(Part::Whole));
    };
    let mut offset = None;
    let mut length = None;
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let slot = match name {
            "offset" => &mut offset,
            "length" => &mut length,
            _ => return Ok(None),
        };
        if slot.is_some() {
            return Ok(None);
        }
        let number = value
            .parse::<u64>()
            .ok()
            .filter(|_| value.bytes().all(|byte| byte.is_ascii_digit()))
            .ok_or_else(|| {
                ProviderError::public(format!("{name} {value:?} is not a whole number of bytes"))
            })?;
        *slot = Some(number);
    }
    Ok(Some(match (offset, length) {
        (None, None) => Part::Whole,
        (offset, length) => Part::Range {
            offset: offset.unwrap_or(0),
            length,
        },
    }))
}

/// `part` narrowed by the engine's byte range, which is relative to `part`.
pub(crate) fn narrow(part: Part, range: Option<ByteRange>) -> Part {
    let Some(range) = range else {
        return part;
    };
    match part {
        Part::Whole => Part::Range {
            offset: range.offset,
            length: Some(range.length),
        },
        Part::Range { offset, length } => Part::Range {
            offset: offset.saturating_add(range.offset),
            length: Some(match length {
                Some(length) => length.saturating_sub(range.offset).min(range.length),
                None => range.length,
            }),
        },
    }
}

/// The served root of `uri` and the canonical path of the regular, non-excluded file it names,
/// or `None` (see the module documentation for the checks).
///
/// With the path comes the `lstat` metadata of its last component when no symlink was met on
/// the way (it is then the file's own).
pub(crate) fn resolve<'r>(
    rules: &Rules,
    roots: &'r [Root],
    uri: &ResourceUri,
) -> Option<(&'r Root, PathBuf, Option<fs::Metadata>)> {
    if uri.scheme() != "file" || uri.authority() != Some("") {
        return None;
    }
    let path = uri.path();
    let root = roots
        .iter()
        .find(|root| path.starts_with(&root.path_prefix))?;
    let relative = decode_relative(&path[root.path_prefix.len()..])?;
    check_relative(rules, &root.path, &root.base, &relative, false)?;
    let joined = root.path.join(&relative);
    if let Some(metadata) = no_symlink_below(&root.path, &relative)? {
        return Some((root, joined, Some(metadata)));
    }
    let canonical = fs::canonicalize(&joined).ok()?;
    let canonical_relative = canonical.strip_prefix(&root.path).ok()?;
    if canonical_relative.as_os_str().is_empty() {
        return None;
    }
    if canonical_relative != relative {
        check_relative(rules, &root.path, &root.base, canonical_relative, false)?;
    }
    Some((root, canonical, None))
}

/// Walks `relative` (plain downward components) below the canonical `root` with `lstat`:
/// `None` when a component is missing, `Some(None)` when one is a symlink (the path must be
/// resolved in full), else `Some(Some(metadata))` of the last component.
fn no_symlink_below(root: &Path, relative: &Path) -> Option<Option<fs::Metadata>> {
    let mut path = root.to_path_buf();
    let mut last = None;
    for component in relative.components() {
        path.push(component);
        let metadata = fs::symlink_metadata(&path).ok()?;
        if metadata.file_type().is_symlink() {
            return Some(None);
        }
        last = Some(metadata);
    }
    Some(last)
}

/// Reads `part` of the file at `path` (already resolved) for the request `uri`, within `limit`
/// bytes; `Ok(None)` when it is not a regular file (any more).
pub(crate) fn read_file(
    root: &Root,
    path: &Path,
    known: Option<fs::Metadata>,
    uri: &ResourceUri,
    part: Part,
    limit: u64,
) -> Result<Option<Contents>, ProviderError> {
    // Looked at before opening, so that a FIFO or a device never blocks the open; `known` is
    // the file's own metadata when resolving it took one already.
    let is_file = match known {
        Some(metadata) => metadata.is_file(),
        None => fs::metadata(path).is_ok_and(|metadata| metadata.is_file()),
    };
    if !is_file {
        return Ok(None);
    }
    let Ok(mut file) = File::open(path) else {
        return Ok(None);
    };
    let Ok(metadata) = file.metadata() else {
        return Ok(None);
    };
    if !metadata.is_file() {
        return Ok(None);
    }
    let size = metadata.len();
    let too_large = |size: u64| {
        let whole = format!("file://{}", uri.path());
        ProviderError::public(format!(
            "{whole} is {size} bytes, over the read limit of {limit} bytes: read it in parts \
             with the template {template}, for example {whole}?offset=0&length={limit}",
            template = root.template.uri_template
        ))
    };
    let (offset, length) = match part {
        Part::Whole => {
            if size > limit {
                return Err(too_large(size));
            }
            (0, limit)
        }
        Part::Range {
            offset,
            length: Some(length),
        } => {
            if length > limit {
                return Err(ProviderError::public(format!(
                    "length {length} is over the read limit of {limit} bytes"
                )));
            }
            (offset, length)
        }
        Part::Range {
            offset,
            length: None,
        } => {
            let rest = size.saturating_sub(offset);
            if rest > limit {
                return Err(too_large(rest));
            }
            (offset, limit)
        }
    };
    let io_error = |error: std::io::Error| {
        ProviderError::new(format!("cannot read {}", path.display())).with_source(error)
    };
    let mut bytes = Vec::new();
    if offset < size {
        // Room for what the file holds and one byte more, so that the read takes one call
        // and the end of the file one more (a growing buffer would take several).
        let expected = (size - offset).min(length);
        bytes.reserve_exact(usize::try_from(expected.saturating_add(1)).unwrap_or(usize::MAX));
        if offset > 0 {
            file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
        }
        // One byte more than allowed tells a file that grew since its size was taken.
        let take = if part == Part::Whole {
            length.saturating_add(1)
        } else {
            length
        };
        file.take(take).read_to_end(&mut bytes).map_err(io_error)?;
    }
    if part == Part::Whole && bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    let guessed = path
        .file_name()
        .and_then(|name| mime_guess::from_path(name).first_raw());
    let contents = match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            Contents::text(uri.clone(), text).with_mime_type(guessed.unwrap_or("text/plain"))
        }
        Ok(text) => Contents::bytes(uri.clone(), text.into_bytes())
            .with_mime_type(guessed.unwrap_or("application/octet-stream")),
        Err(error) => Contents::bytes(uri.clone(), error.into_bytes())
            .with_mime_type(guessed.unwrap_or("application/octet-stream")),
    };
    Ok(Some(contents))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(query: Option<&str>, expect: Option<Part>) {
        assert_eq!(parse_query(query).unwrap(), expect, "{query:?}");
    }

    #[test]
    fn queries() {
        check(None, Some(Part::Whole));
        check(Some(""), Some(Part::Whole));
        check(
            Some("offset=5&length=3"),
            Some(Part::Range {
                offset: 5,
                length: Some(3),
            }),
        );
        check(
            Some("length=3"),
            Some(Part::Range {
                offset: 0,
                length: Some(3),
            }),
        );
        check(
            Some("offset=9"),
            Some(Part::Range {
                offset: 9,
                length: None,
            }),
        );
        check(Some("offset=1&offset=2"), None);
        check(Some("rev=7"), None);
        assert!(parse_query(Some("offset=-1")).is_err());
        assert!(parse_query(Some("length=+4")).is_err());
        assert!(parse_query(Some("length=")).is_err());
    }

    #[test]
    fn narrowing_by_the_engine_range() {
        let range = ByteRange {
            offset: 2,
            length: 10,
        };
        assert_eq!(
            narrow(
                Part::Range {
                    offset: 5,
                    length: Some(4)
                },
                Some(range)
            ),
            Part::Range {
                offset: 7,
                length: Some(2)
            }
        );
        assert_eq!(
            narrow(Part::Whole, Some(range)),
            Part::Range {
                offset: 2,
                length: Some(10)
            }
        );
    }
}
