//! `git://` URIs and back: what a request URI names (refs, a tree entry at a revision, a
//! commit, a log page, a diff), and the canonical URIs the provider lists.
//!
//! **Layer:** provider (`mcp-resources-git`). Text to values and values to text only: this
//! module never opens a repository, never resolves a revision and never decides what is
//! excluded.
//!
//! # Shapes
//!
//! - `git://NAME/refs`
//! - `git://NAME/tree/REV` (the root tree) and `git://NAME/tree/REV/PATH`, with
//!   `?offset=&length=` for a ranged read of a file
//! - `git://NAME/commit/REV`
//! - `git://NAME/log/REV` with `?path=`, `?after=` (a commit id) and `?limit=`
//! - `git://NAME/diff/BASE..HEAD` with `?path=`
//!
//! `REV` is one path segment, percent-encoded: a branch `feature/x` is `feature%2Fx`. `PATH` is
//! the file's path in the tree, each segment encoded by the core's
//! [`encode_segment`], so any byte of a name (a name that is not UTF-8 included) has one
//! spelling, the canonical one of [`ResourceUri`]. Decoding is done once, and refuses what is
//! not a plain downward path (an empty, `.` or `..` segment, an encoded `/`, a NUL). Each query
//! parameter may come once; an unknown one makes the URI name nothing.

use mcp_resources_core::uri::{ResourceUri, encode_segment};
use percent_encoding::percent_decode_str;

/// The scheme of every URI this provider serves.
pub const SCHEME: &str = "git";

/// What a `git://` URI names, below its repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// HEAD, branches and tags with their commits.
    Refs,
    /// The tree entry at `path` (`""`: the root tree) of revision `rev`.
    Tree {
        rev: String,
        /// The path in the tree, `/`-separated bytes.
        path: Vec<u8>,
        /// `offset` and `length` of a ranged read, as given.
        range: Option<(u64, Option<u64>)>,
    },
    /// One commit.
    Commit { rev: String },
    /// Commits reachable from `rev`, newest first.
    Log {
        rev: String,
        /// Only commits that changed this path.
        path: Option<Vec<u8>>,
        /// Start after this commit (a full id).
        after: Option<String>,
        /// At most this many commits.
        limit: Option<usize>,
    },
    /// A unified diff from `base` to `head`.
    Diff {
        base: String,
        head: String,
        /// Only files at or below this path.
        path: Option<Vec<u8>>,
    },
}

/// A request URI taken apart: its repository's name and what it names there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub(crate) repo: String,
    pub(crate) target: Target,
}

/// What `uri` names, or `None` when it is no URI of this provider's shapes.
pub(crate) fn parse(uri: &ResourceUri) -> Option<Parsed> {
    if uri.scheme() != SCHEME {
        return None;
    }
    let repo = uri
        .authority()
        .filter(|name| is_valid_name(name))?
        .to_owned();
    let path = uri.path().strip_prefix('/')?;
    let query = Query::parse(uri.query())?;
    let (kind, rest) = path.split_once('/').unwrap_or((path, ""));
    let target = match kind {
        "refs" if rest.is_empty() => {
            query.only(&[])?;
            Target::Refs
        }
        "tree" => {
            query.only(&["offset", "length"])?;
            let (rev, path) = rest
                .split_once('/')
                .map_or((rest, None), |(r, p)| (r, Some(p)));
            let path = match path {
                Some(path) => decode_path(path)?,
                None => Vec::new(),
            };
            let offset = query.number("offset")?;
            let length = query.number("length")?;
            if path.is_empty() && (offset.is_some() || length.is_some()) {
                return None;
            }
            Target::Tree {
                rev: decode_rev(rev)?,
                path,
                range: match (offset, length) {
                    (None, None) => None,
                    (offset, length) => Some((offset.unwrap_or(0), length)),
                },
            }
        }
        "commit" => {
            query.only(&[])?;
            Target::Commit {
                rev: decode_rev(rest)?,
            }
        }
        "log" => {
            query.only(&["path", "after", "limit"])?;
            Target::Log {
                rev: decode_rev(rest)?,
                path: query.path()?,
                after: query.text("after")?,
                limit: query
                    .number("limit")?
                    .map(|limit| usize::try_from(limit).unwrap_or(usize::MAX)),
            }
        }
        "diff" => {
            query.only(&["path"])?;
            let (base, head) = percent_decode_str(rest)
                .decode_utf8()
                .ok()?
                .split_once("..")
                .map(|(base, head)| (base.to_owned(), head.to_owned()))?;
            if rest.contains('/') {
                // A `/` in a revision is spelt `%2F`: a raw one is a path, which a diff has not.
                return None;
            }
            Target::Diff {
                base: valid_rev(base)?,
                head: valid_rev(head)?,
                path: query.path()?,
            }
        }
        _ => return None,
    };
    Some(Parsed { repo, target })
}

/// Whether `name` can be a repository's name: the authority of its URIs, `[A-Za-z0-9._-]`, not
/// empty, at most 64 bytes, lowercase letters only (authorities are case-insensitive).
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || b"._-".contains(&byte)
        })
}

/// `git://NAME/` followed by `rest`.
pub(crate) fn uri_of(repo: &str, rest: &str) -> String {
    format!("{SCHEME}://{repo}/{rest}")
}

/// `git://NAME/refs`.
pub(crate) fn refs_uri(repo: &str) -> String {
    uri_of(repo, "refs")
}

/// `git://NAME/tree/REV` followed by `/PATH` when `path` is not empty.
pub(crate) fn tree_uri(repo: &str, rev: &str, path: &[u8]) -> String {
    let mut uri = uri_of(repo, &format!("tree/{}", encode_segment(rev.as_bytes())));
    for segment in path.split(|byte| *byte == b'/').filter(|s| !s.is_empty()) {
        uri.push('/');
        uri.push_str(&encode_segment(segment));
    }
    uri
}

/// `git://NAME/commit/REV`.
pub(crate) fn commit_uri(repo: &str, rev: &str) -> String {
    uri_of(repo, &format!("commit/{}", encode_segment(rev.as_bytes())))
}

/// `git://NAME/log/REV` with the query of a continuation.
pub(crate) fn log_uri(
    repo: &str,
    rev: &str,
    path: Option<&[u8]>,
    after: &str,
    limit: usize,
) -> String {
    let mut uri = uri_of(repo, &format!("log/{}", encode_segment(rev.as_bytes())));
    uri.push_str(&format!("?after={after}&limit={limit}"));
    if let Some(path) = path {
        uri.push_str("&path=");
        uri.push_str(&encode_query_value(path));
    }
    uri
}

/// A query value percent-encoded as a path segment is, `/` kept.
fn encode_query_value(value: &[u8]) -> String {
    value
        .split(|byte| *byte == b'/')
        .map(mcp_resources_core::uri::encode_query_value)
        .collect::<Vec<_>>()
        .join("/")
}

/// A decoded revision, if it may be one: UTF-8, not empty, no control character. Whether a
/// ref or object has that name is the repository's business.
fn decode_rev(encoded: &str) -> Option<String> {
    if encoded.is_empty() || encoded.contains('/') {
        return None;
    }
    valid_rev(percent_decode_str(encoded).decode_utf8().ok()?.into_owned())
}

fn valid_rev(rev: String) -> Option<String> {
    (!rev.is_empty() && rev.len() <= 256 && !rev.chars().any(char::is_control)).then_some(rev)
}

/// The encoded path of a tree entry decoded, once, into `/`-separated bytes; `None` when it is
/// not a plain downward path.
fn decode_path(encoded: &str) -> Option<Vec<u8>> {
    let mut path = Vec::new();
    for raw in encoded.split('/') {
        let segment: Vec<u8> = percent_decode_str(raw).collect();
        // One spelling per path, the one we list: rules match the text of the URI.
        if !is_plain_segment(&segment) || encode_segment(&segment) != raw {
            return None;
        }
        if !path.is_empty() {
            path.push(b'/');
        }
        path.extend_from_slice(&segment);
    }
    Some(path)
}

/// Whether `segment` is a plain name: not empty, not `.` or `..`, no `/` and no NUL.
pub(crate) fn is_plain_segment(segment: &[u8]) -> bool {
    !segment.is_empty()
        && segment != b"."
        && segment != b".."
        && !segment.contains(&b'/')
        && !segment.contains(&0)
}

/// The parameters of a URI's query, each at most once.
struct Query<'a> {
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Query<'a> {
    fn parse(query: Option<&'a str>) -> Option<Query<'a>> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for pair in query.into_iter().flat_map(|query| query.split('&')) {
            let (name, value) = pair.split_once('=')?;
            if pairs.iter().any(|(seen, _)| *seen == name) {
                return None;
            }
            pairs.push((name, value));
        }
        Some(Query { pairs })
    }

    /// `Some` when every parameter is one of `allowed`.
    fn only(&self, allowed: &[&str]) -> Option<()> {
        self.pairs
            .iter()
            .all(|(name, _)| allowed.contains(name))
            .then_some(())
    }

    fn raw(&self, name: &str) -> Option<&'a str> {
        self.pairs
            .iter()
            .find(|(seen, _)| *seen == name)
            .map(|(_, value)| *value)
    }

    /// `Some(None)` when absent, `None` when present but no decimal number.
    fn number(&self, name: &str) -> Option<Option<u64>> {
        match self.raw(name) {
            None => Some(None),
            // A number too large is the largest, for its check to refuse by name.
            Some(value) if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                Some(Some(value.parse().unwrap_or(u64::MAX)))
            }
            Some(_) => None,
        }
    }

    fn text(&self, name: &str) -> Option<Option<String>> {
        match self.raw(name) {
            None => Some(None),
            Some(value) => {
                valid_rev(percent_decode_str(value).decode_utf8().ok()?.into_owned()).map(Some)
            }
        }
    }

    fn path(&self) -> Option<Option<Vec<u8>>> {
        match self.raw("path") {
            None => Some(None),
            Some(value) => {
                let decoded: Vec<u8> = percent_decode_str(value).collect();
                let trimmed = decoded.strip_suffix(b"/").unwrap_or(&decoded);
                let plain = trimmed.split(|byte| *byte == b'/').all(is_plain_segment);
                plain.then(|| Some(trimmed.to_vec()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Option<Target> {
        let uri = ResourceUri::parse(text).unwrap();
        parse(&uri).map(|parsed| {
            assert_eq!(parsed.repo, "repo");
            parsed.target
        })
    }

    #[test]
    fn each_shape_parses() {
        assert_eq!(parsed("git://repo/refs"), Some(Target::Refs));
        assert_eq!(
            parsed("git://repo/tree/feature%2Fx/src/a%20b.rs?offset=2&length=3"),
            Some(Target::Tree {
                rev: "feature/x".into(),
                path: b"src/a b.rs".to_vec(),
                range: Some((2, Some(3))),
            })
        );
        assert_eq!(
            parsed("git://repo/tree/HEAD"),
            Some(Target::Tree {
                rev: "HEAD".into(),
                path: Vec::new(),
                range: None
            })
        );
        assert_eq!(
            parsed("git://repo/log/main?limit=5&path=src/lib.rs"),
            Some(Target::Log {
                rev: "main".into(),
                path: Some(b"src/lib.rs".to_vec()),
                after: None,
                limit: Some(5),
            })
        );
        assert_eq!(
            parsed("git://repo/diff/v1.0..feature%2Fx?path=docs"),
            Some(Target::Diff {
                base: "v1.0".into(),
                head: "feature/x".into(),
                path: Some(b"docs".to_vec()),
            })
        );
        assert_eq!(
            parsed("git://repo/commit/abc1234"),
            Some(Target::Commit {
                rev: "abc1234".into()
            })
        );
    }

    #[test]
    fn what_is_no_plain_request_names_nothing() {
        for bad in [
            "git://repo/refs/x",
            "git://repo/refs?x=1",
            "git://repo/tree",
            "git://repo/tree/main/a//b",
            "git://repo/tree/main/a%2Fb",
            "git://repo/tree/main?offset=1",
            "git://repo/tree/main/a?offset=1&offset=2",
            "git://repo/tree/main/a?offset=x",
            "git://repo/tree/main/a?other=1",
            "git://repo/log/main?path=../x",
            "git://repo/diff/main",
            "git://repo/diff/a..b/c",
            "git://repo/blame/main/a",
            "git://re%20po/refs",
            "file:///repo/refs",
        ] {
            let uri = ResourceUri::parse(bad).unwrap();
            assert_eq!(parse(&uri), None, "{bad}");
        }
    }

    #[test]
    fn built_uris_are_canonical_and_parse_back() {
        let uri = tree_uri("repo", "feature/x", b"dir/caf\xc3\xa9 [1]/\xff.bin");
        assert_eq!(
            uri,
            "git://repo/tree/feature%2Fx/dir/caf%C3%A9%20%5B1%5D/%FF.bin"
        );
        let parsed = ResourceUri::parse(&uri).unwrap();
        assert_eq!(parsed.as_str(), uri);
        assert_eq!(
            parse(&parsed).unwrap().target,
            Target::Tree {
                rev: "feature/x".into(),
                path: b"dir/caf\xc3\xa9 [1]/\xff.bin".to_vec(),
                range: None,
            }
        );
        let log = log_uri("repo", "main", Some(b"a b/c"), "0123", 10);
        assert_eq!(ResourceUri::parse(&log).unwrap().as_str(), log);
    }
}
