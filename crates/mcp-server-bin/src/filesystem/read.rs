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
use std::string::FromUtf8Error;

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
                ProviderError::invalid_params(format!(
                    "{name} {value:?} is not a whole number of bytes"
                ))
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

/// A request URI resolved to a file that passed the checks (see the module documentation).
#[derive(Debug)]
pub(crate) struct Resolved<'r> {
    /// The served root the file lies below.
    pub(crate) root: &'r Root,
    /// Its canonical path.
    pub(crate) path: PathBuf,
    /// The `lstat` metadata of the path's last component when no symlink was met on the way
    /// (it is then the file's own); `None` for a path resolved through a symlink.
    pub(crate) own: Option<fs::Metadata>,
}

/// The file `uri` names, resolved and checked, or `None` (see the module documentation for the
/// checks).
pub(crate) fn resolve<'r>(
    rules: &Rules,
    roots: &'r [Root],
    uri: &ResourceUri,
) -> Option<Resolved<'r>> {
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
    if let Some(metadata) = no_symlink_below(&joined, relative.components().count())? {
        return Some(Resolved {
            root,
            path: joined,
            own: Some(metadata),
        });
    }
    let canonical = fs::canonicalize(&joined).ok()?;
    let canonical_relative = canonical.strip_prefix(&root.path).ok()?;
    if canonical_relative.as_os_str().is_empty() {
        return None;
    }
    if canonical_relative != relative {
        check_relative(rules, &root.path, &root.base, canonical_relative, false)?;
    }
    Some(Resolved {
        root,
        path: canonical,
        own: None,
    })
}

/// Looks at the last `depth` components of `joined` (a canonical root joined with plain
/// downward components), deepest first, with `lstat`: `None` when one is missing,
/// `Some(None)` when one is a symlink (the path must be resolved in full), else
/// `Some(Some(metadata))` of the last one. Deepest first: no path is built, and a missing
/// file stops at the first call.
fn no_symlink_below(joined: &Path, depth: usize) -> Option<Option<fs::Metadata>> {
    let mut last = None;
    for path in joined.ancestors().take(depth) {
        let metadata = fs::symlink_metadata(path).ok()?;
        if metadata.file_type().is_symlink() {
            return Some(None);
        }
        last.get_or_insert(metadata);
    }
    Some(last)
}

/// Reads `part` of the resolved file for the request `uri`, within `limit` bytes; `Ok(None)`
/// when it is not a regular file (any more). `mime`, when given, is the MIME type guessed from
/// the file's name already (by the index).
pub(crate) fn read_file(
    resolved: &Resolved<'_>,
    uri: &ResourceUri,
    part: Part,
    limit: u64,
    mime: Option<Option<&'static str>>,
) -> Result<Option<Contents>, ProviderError> {
    let Resolved { root, path, own } = resolved;
    // Looked at before opening, so that a device is never opened; `own` is the file's own
    // metadata when resolving it took one already.
    let is_file = match own {
        Some(metadata) => metadata.is_file(),
        None => fs::metadata(path).is_ok_and(|metadata| metadata.is_file()),
    };
    if !is_file {
        return Ok(None);
    }
    let Ok(mut file) = open_no_follow(path) else {
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
        ProviderError::invalid_params(format!(
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
                return Err(ProviderError::invalid_params(format!(
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
        let expected = (size - offset).min(length);
        if offset > 0 {
            file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
        }
        // One byte more than allowed tells a file that grew since its size was taken.
        let take = if part == Part::Whole {
            length.saturating_add(1)
        } else {
            length
        };
        read_part(&mut file, expected, take, &mut bytes).map_err(io_error)?;
    }
    if part == Part::Whole && bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    let guessed = mime.unwrap_or_else(|| {
        path.file_name()
            .and_then(|name| mime_guess::from_path(name).first_raw())
    });
    // Text holds no NUL here: a file with one is served as bytes.
    let text = if memchr::memchr(0, &bytes).is_none() {
        String::from_utf8(bytes).map_err(FromUtf8Error::into_bytes)
    } else {
        Err(bytes)
    };
    let contents = match text {
        Ok(text) => {
            Contents::text(uri.clone(), text).with_mime_type(guessed.unwrap_or("text/plain"))
        }
        Err(bytes) => Contents::bytes(uri.clone(), bytes)
            .with_mime_type(guessed.unwrap_or("application/octet-stream")),
    };
    Ok(Some(contents))
}

/// Opens `path` for reading without following a symlink in its last component, and without
/// waiting on a FIFO that took the checked file's place.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Reads at most `take` bytes of `file` from where it stands into `bytes`, `expected` of them
/// by its size. A read of a regular file ends short only at the end of the file, so one call
/// that brings exactly `expected` bytes (of the `expected + 1` asked for) is all it takes;
/// otherwise the file changed meanwhile and it is read on to its end (or to `take`).
fn read_part(
    file: &mut File,
    expected: u64,
    take: u64,
    bytes: &mut Vec<u8>,
) -> std::io::Result<()> {
    let first = usize::try_from(expected.saturating_add(1).min(take)).unwrap_or(usize::MAX);
    bytes.resize(first, 0);
    let got = loop {
        match file.read(bytes) {
            Ok(got) => break got,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    };
    bytes.truncate(got);
    if got as u64 != expected {
        file.take(take - got as u64).read_to_end(bytes)?;
    }
    Ok(())
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
