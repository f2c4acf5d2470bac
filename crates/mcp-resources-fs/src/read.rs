//! The read path: from a request URI to the bytes of one file, re-checking every rule on the
//! request itself and never trusting the index.
//!
//! **Layer:** provider (`mcp-resources-fs`). Blocking file-system code, run on tokio's blocking
//! pool by the provider. It never knows the index, the watcher or the engine's routing.
//!
//! The order of the checks, each failing as "not found":
//! 1. the URI is `file:` with an empty authority and its path lies below a served root;
//! 2. its query, if any, is only `offset` and `length` (each at most once);
//! 3. the path below the root is decoded once and is a plain downward path (no `%2F`, NUL,
//!    `..`, `.` or empty segment);
//! 4. that path is not excluded (`.git`, secret patterns, ignore files), component by component;
//! 5. it is opened [`beneath`] the root's handle, atomically, with no symlink
//!    anywhere on the way: the path checked is the path opened, and it is the file's canonical
//!    path, so a grant on its URI is a grant on the file (hard links aside, see `beneath`);
//! 6. the handle is a regular file (its `fstat`), and, when the provider refuses hard links,
//!    has only one link.
//!
//! Only then can a read fail with an error a client sees (too large, bad range numbers), so an
//! error never tells a hidden file from a missing one.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::resource::{ByteRange, Contents};
use mcp_resources_core::uri::ResourceUri;

use super::beneath::{self, FileStat};
use super::exclude::{NotNow, Rules, check_relative_if};
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

/// When `uri`'s query asks for a range (`?offset=O&length=L`), the URI without its query and
/// that range (to the end without a length): what [`Provider::range_of`] answers for files
/// and skill files.
///
/// [`Provider::range_of`]: mcp_resources_core::provider::Provider::range_of
pub(crate) fn range_of(
    uri: &mcp_resources_core::uri::ResourceUri,
) -> Option<(mcp_resources_core::uri::ResourceUri, ByteRange)> {
    let Ok(Some(Part::Range { offset, length })) = parse_query(uri.query()) else {
        return None;
    };
    let (base, _) = uri.as_str().split_once('?')?;
    Some((
        mcp_resources_core::uri::ResourceUri::parse(base).ok()?,
        ByteRange {
            offset,
            length: length.unwrap_or(u64::MAX - offset),
        },
    ))
}

/// Reads the query of a request: `Ok(None)` when it holds anything but `offset` and `length`
/// (each at most once), an empty query or an empty pair included (`x.txt?` and `x.txt?&` are
/// not other names of `x.txt`: rules match the text of the URI), an error a client may see
/// when one of those is not a number.
pub(crate) fn parse_query(query: Option<&str>) -> Result<Option<Part>, ProviderError> {
    let Some(query) = query else {
        return Ok(Some(Part::Whole));
    };
    let mut offset = None;
    let mut length = None;
    for pair in query.split('&') {
        if pair.is_empty() {
            return Ok(None);
        }
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

/// A request URI resolved to a path below a root that passed the name checks (see the module
/// documentation); nothing is opened yet.
#[derive(Debug)]
pub(crate) struct Resolved<'r> {
    /// The served root the file lies below.
    pub(crate) root: &'r Root,
    /// The path relative to the root, plain downward components.
    pub(crate) relative: PathBuf,
}

impl Resolved<'_> {
    /// The file's absolute path (its canonical path, when it is reachable at all: every
    /// component is checked not to be a symlink as it is opened).
    pub(crate) fn path(&self) -> PathBuf {
        self.root.path.join(&self.relative)
    }
}

/// The path `uri` names below a root, decoded and checked against the exclusion rules, or
/// `Ok(None)`; [`NotNow`] when an ignore file on the way must be parsed again and `may_parse`
/// is false.
pub(crate) fn resolve<'r>(
    rules: &Rules,
    roots: &'r [Root],
    uri: &ResourceUri,
    may_parse: bool,
) -> Result<Option<Resolved<'r>>, NotNow> {
    if uri.scheme() != "file" || uri.authority() != Some("") {
        return Ok(None);
    }
    let path = uri.path();
    let Some(root) = roots
        .iter()
        .find(|root| path.starts_with(&root.path_prefix))
    else {
        return Ok(None);
    };
    let Some(relative) = decode_relative(&path[root.path_prefix.len()..]) else {
        return Ok(None);
    };
    if check_relative_if(rules, &root.path, &root.base, &relative, false, may_parse)?.is_none() {
        return Ok(None);
    }
    Ok(Some(Resolved { root, relative }))
}

/// Opens the resolved file beneath its root (no symlink anywhere on the way, regular files
/// only, and none with other hard links when the root refuses them): the handle and its
/// `fstat`, or `None`.
pub(crate) fn open(resolved: &Resolved<'_>) -> Result<Option<(File, FileStat)>, ProviderError> {
    let opened = beneath::open_file(&resolved.root.dir, &resolved.relative).map_err(|error| {
        ProviderError::new(format!("cannot open {}", resolved.path().display())).with_source(error)
    })?;
    Ok(opened.filter(|(_, stat)| !(resolved.root.refuse_hard_links && stat.links > 1)))
}

/// Reads `part` of the opened file (`stat` is its `fstat`) for the request `uri`, within
/// `limit` bytes. `mime`, when given, is the MIME type guessed from the file's name already
/// (by the index).
pub(crate) fn read_file(
    resolved: &Resolved<'_>,
    (mut file, stat): (File, FileStat),
    uri: &ResourceUri,
    part: Part,
    limit: u64,
    mime: Option<Option<&'static str>>,
) -> Result<Contents, ProviderError> {
    let size = stat.len;
    let too_large = |size: u64| {
        let whole = format!("file://{}", uri.path());
        ProviderError::invalid_params(format!(
            "{whole} is {size} bytes, over the read limit of {limit} bytes: read it in parts \
             with the template {template}, for example {whole}?offset=0&length={part}",
            template = resolved.root.template.uri_template,
            // A part that fits once encoded, binary or not.
            part = (limit / 4 * 3).max(1),
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
        ProviderError::new(format!("cannot read {}", resolved.path().display())).with_source(error)
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
        resolved
            .relative
            .file_name()
            .and_then(|name| mime_guess::from_path(name).first_raw())
    });
    let contents = Contents::of_file(uri.clone(), bytes, guessed);
    let raw = contents.body.len();
    let encoded = contents.body.wire_len(limit);
    if encoded > limit {
        // The raw length whose encoding fits, for the suggestion (at least one byte).
        let fits = (u128::from(limit) * u128::from(raw) / u128::from(encoded.max(1))) as u64;
        let whole = format!("file://{}", uri.path());
        return Err(ProviderError::invalid_params(format!(
            "{whole}: these {raw} bytes are {encoded} bytes once encoded for the wire (base64 \
             for binary, escaped for text), over the read limit of {limit} bytes: read it in \
             parts with the template {template}, for example \
             {whole}?offset={offset}&length={length}",
            template = resolved.root.template.uri_template,
            length = fits.max(1),
        )));
    }
    Ok(contents)
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
        // Not other names of the whole file.
        check(Some(""), None);
        check(Some("&"), None);
        check(Some("offset=1&"), None);
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
