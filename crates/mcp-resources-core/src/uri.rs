//! Resource URIs: RFC 3986 validation and one canonical form per resource.
//!
//! **Layer:** core, the bottom of it. Everything else in the engine keys resources by the
//! canonical string of a [`ResourceUri`], so two spellings of one resource
//! (`FILE:///a/./b` and `file:///a/b`) land on the same entry.
//!
//! This module must never know a protocol version, JSON, a file system or any other I/O: it
//! only checks and rewrites text. Parsing is done by [`fluent_uri`]; this module adds the rules
//! a resource URI needs on top of RFC 3986 (no fragment, no relative reference, a length limit,
//! no path above the root, no percent-encoded NUL).
//!
//! # The canonical form
//!
//! RFC 3986 section 6.2.2 syntax-based normalization, plus the removal of a default port:
//!
//! - the scheme and the host are lowercased;
//! - the hexadecimal digits of percent-encoded octets are uppercased (`%2f` becomes `%2F`);
//! - percent-encoded unreserved characters are decoded (`%7E` becomes `~`, `%41` becomes `A`);
//!   reserved ones never are, so `%2F` stays `%2F` and never turns into a path separator;
//! - dot segments are removed from absolute (hierarchical) paths, percent-encoded dots included
//!   (`/a/%2E%2E/b` becomes `/b`); a path whose `..` segments would climb above its root is
//!   rejected with [`UriError::PathAboveRoot`] instead of being silently clamped;
//! - an empty port, or the default port of a known scheme (`http://h:80/`), is removed;
//! - a `[` or `]` in the path or the query is percent-encoded (`%5B`, `%5D`). RFC 3986 allows
//!   them only around an IP literal in the host, but RFC 6570 reserved expansion (`{+path}`)
//!   leaves them as they are, so a template's own expansion of `app/[slug]/page.tsx` would
//!   otherwise be refused. Taken as what they can only mean, they name the same resource as
//!   `%5B` and `%5D` do. Brackets in the host and in a fragment are judged by RFC 3986 alone.
//!
//! Rootless paths (`urn:isbn:0451450523`, `mailto:a@example.com`) are left as they are apart from
//! the percent-encoding rules, except that one with a `..` segment (`file:a/../b`) is rejected
//! with [`UriError::PathAboveRoot`]: kept as it is, its `..` would survive canonicalization. The canonical form of a canonical URI is itself.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::sync::Arc;

use fluent_uri::normalize::{NormalizeError, Normalizer};
use fluent_uri::{ParseErrorKind, Uri};

/// Bytes of a path segment that [`encode_segment`] percent-encodes: everything except RFC 3986
/// `pchar` (unreserved, sub-delims, `:` and `@`).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    // unreserved
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    // sub-delims
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    // the rest of pchar
    .remove(b':')
    .remove(b'@');

/// One path segment (a file name, any bytes) percent-encoded minimally, with uppercase hex
/// digits: exactly the canonical form of [`ResourceUri`], so a URI built from such segments is
/// the URI a client gets back from parsing it. A `/` in the segment becomes `%2F`.
pub fn encode_segment(segment: &[u8]) -> String {
    percent_encoding::percent_encode(segment, SEGMENT).to_string()
}

/// One query parameter's value percent-encoded: as [`encode_segment`], and `&`, `=`, `+`
/// encoded too, so that the value cannot end its parameter or read as a space.
pub fn encode_query_value(value: &[u8]) -> String {
    const QUERY_VALUE: &percent_encoding::AsciiSet = &SEGMENT.add(b'&').add(b'=').add(b'+');
    percent_encoding::percent_encode(value, QUERY_VALUE).to_string()
}

/// Limits applied when parsing a [`ResourceUri`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UriLimits {
    /// The longest accepted input, in bytes. The default is 8 KiB; whatever it says, no URI
    /// over 2 GiB is taken.
    pub max_len: usize,
}

impl Default for UriLimits {
    fn default() -> Self {
        UriLimits { max_len: 8 * 1024 }
    }
}

/// What is wrong with a string that was offered as a resource URI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriError {
    /// The input is the empty string.
    #[error("uri is empty")]
    Empty,
    /// The input is longer than [`UriLimits::max_len`] (or 2 GiB).
    #[error("uri is {len} bytes long, over the limit of {max} bytes")]
    TooLong {
        /// Length of the input in bytes.
        len: usize,
        /// The limit in force.
        max: usize,
    },
    /// The input holds an ASCII control character (including DEL).
    #[error("uri contains the control character {code:#04x} at byte {index}")]
    ControlCharacter {
        /// Byte offset of the character.
        index: usize,
        /// The character's code.
        code: u8,
    },
    /// The input holds a character outside ASCII; it must be percent-encoded as UTF-8.
    #[error(
        "uri contains the non-ascii character {character:?} at byte {index} (percent-encode it)"
    )]
    NonAscii {
        /// Byte offset of the character.
        index: usize,
        /// The character.
        character: char,
    },
    /// The input does not start with `scheme:`; relative references are not resource URIs.
    #[error("uri has no scheme (a relative reference is not a resource uri)")]
    NoScheme,
    /// The input holds a character that RFC 3986 does not allow at that place (a space, `\`,
    /// `"`, `<`, a second `#`, ...).
    #[error(
        "uri contains the character {character:?} at byte {index}, which rfc 3986 does not allow there"
    )]
    InvalidCharacter {
        /// Byte offset of the character.
        index: usize,
        /// The character.
        character: char,
    },
    /// A `%` is not followed by two hexadecimal digits.
    #[error("uri has a malformed percent-encoding at byte {index} (expected % and two hex digits)")]
    InvalidPercentEncoding {
        /// Byte offset of the `%`.
        index: usize,
    },
    /// The host is a bracketed IP literal that is not a valid IPv6 address.
    #[error("uri has an invalid ipv6 address at byte {index}")]
    InvalidIpv6 {
        /// Byte offset of the address.
        index: usize,
    },
    /// The input has a fragment (`#...`); a fragment names a part of a representation, never a
    /// resource.
    #[error("uri has a fragment at byte {index} (resource uris must not have one)")]
    Fragment {
        /// Byte offset of the `#`.
        index: usize,
    },
    /// The input holds a percent-encoded NUL (`%00`), which no resource name needs and many
    /// back ends mistreat.
    #[error("uri contains a percent-encoded nul (%00) at byte {index}")]
    EncodedNul {
        /// Byte offset of the `%`.
        index: usize,
    },
    /// Removing dot segments would climb above the root of the path (`file:///../etc`), or a
    /// rootless path has a `..` segment (`file:a/../etc`).
    #[error("uri path climbs above its root through `..` segments")]
    PathAboveRoot,
}

/// A validated resource URI in canonical form.
///
/// Equality, ordering and hashing are those of the canonical string, so a
/// `BTreeMap<ResourceUri, _>` or `HashMap<ResourceUri, _>` can be looked up with a `&str`
/// (through [`Borrow<str>`]) holding a canonical URI.
///
/// ```
/// use mcp_resources_core::uri::ResourceUri;
///
/// let uri = ResourceUri::parse("FILE:///Notes/./2026/../todo%2emd").unwrap();
/// assert_eq!(uri.as_str(), "file:///Notes/todo.md");
/// assert_eq!(uri.scheme(), "file");
/// assert_eq!(uri.authority(), Some(""));
/// assert_eq!(uri.path(), "/Notes/todo.md");
/// ```
#[derive(Clone)]
pub struct ResourceUri {
    /// Shared: a URI is cloned into every read's contents and every subscription.
    text: Arc<str>,
    /// Byte offset of the `:` after the scheme.
    scheme_end: u32,
    path: Span,
    authority: Option<Span>,
    query: Option<Span>,
}

/// A part of a URI's text, by byte offsets: 32-bit ones, as a URI is held by every resource,
/// its contents and every subscription (56 bytes a URI with them, 88 with `usize` ones).
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The span from `start` to `end`; `None` past 32-bit offsets (never, for a URI within
    /// [`MAX_URI_LEN`]).
    fn new(start: usize, end: usize) -> Option<Span> {
        Some(Span {
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok()?,
        })
    }

    fn of(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }
}

/// The longest URI taken whatever the limits say, so that every offset into it (and into its
/// canonical form, which a normalizer may make a few bytes longer) fits in 32 bits.
const MAX_URI_LEN: usize = (u32::MAX / 2) as usize;

impl ResourceUri {
    /// Parses and canonicalizes `input` with the default [`UriLimits`].
    ///
    /// # Errors
    ///
    /// A [`UriError`] saying what is wrong with the input.
    pub fn parse(input: &str) -> Result<ResourceUri, UriError> {
        ResourceUri::parse_with(input, &UriLimits::default())
    }

    /// Parses and canonicalizes `input` with the given limits.
    ///
    /// # Errors
    ///
    /// A [`UriError`] saying what is wrong with the input.
    pub fn parse_with(input: &str, limits: &UriLimits) -> Result<ResourceUri, UriError> {
        if input.is_empty() {
            return Err(UriError::Empty);
        }
        let max = limits.max_len.min(MAX_URI_LEN);
        if input.len() > max {
            return Err(UriError::TooLong {
                len: input.len(),
                max,
            });
        }
        if let Some(uri) = ResourceUri::simple(input) {
            return Ok(uri);
        }
        ResourceUri::parse_general(input)
    }

    /// The shortcut for the URIs a client sends most (`mem:///r/0001`, `file:///a/b.md`,
    /// `https://host/path`): a lowercase scheme, `//`, a lowercase host of unreserved
    /// characters, and an absolute path of plain characters (no `%`, no dot segment), without a
    /// query, fragment, user or port. Such a URI is valid and already canonical, so it is taken
    /// as it is, without the parser; anything else gives `None` and goes the general way.
    fn simple(input: &str) -> Option<ResourceUri> {
        let bytes = input.as_bytes();
        let scheme_end = bytes.iter().position(|&byte| byte == b':')?;
        let (first, rest) = bytes[..scheme_end].split_first()?;
        let scheme_byte = |byte: &u8| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || matches!(byte, b'+' | b'-' | b'.')
        };
        if !first.is_ascii_lowercase() || !rest.iter().all(scheme_byte) {
            return None;
        }
        let authority_start = scheme_end + 3;
        if bytes.get(scheme_end + 1..authority_start)? != b"//" {
            return None;
        }
        let path_start = authority_start
            + bytes[authority_start..]
                .iter()
                .position(|&byte| byte == b'/')?;
        let host_byte = |byte: &u8| {
            byte.is_ascii_lowercase()
                || byte.is_ascii_digit()
                || matches!(byte, b'-' | b'.' | b'_' | b'~')
        };
        if !bytes[authority_start..path_start].iter().all(host_byte) {
            return None;
        }
        let path = &input[path_start..];
        let path_byte = |byte: u8| {
            byte.is_ascii_alphanumeric()
                || matches!(
                    byte,
                    b'-' | b'.'
                        | b'_'
                        | b'~'
                        | b'!'
                        | b'$'
                        | b'&'
                        | b'\''
                        | b'('
                        | b')'
                        | b'*'
                        | b'+'
                        | b','
                        | b';'
                        | b'='
                        | b':'
                        | b'@'
                        | b'/'
                )
        };
        // A dot segment starts with `/.`: without one, there is no segment to look at.
        let dotted = path.as_bytes().windows(2).any(|pair| pair == b"/.");
        if !path.bytes().all(path_byte)
            || (dotted
                && path
                    .split('/')
                    .any(|segment| segment == "." || segment == ".."))
        {
            return None;
        }
        Some(ResourceUri {
            text: input.into(),
            scheme_end: u32::try_from(scheme_end).ok()?,
            path: Span::new(path_start, input.len())?,
            authority: Some(Span::new(authority_start, path_start)?),
            query: None,
        })
    }

    /// [`ResourceUri::parse_with`] past the length checks, through the parser.
    fn parse_general(input: &str) -> Result<ResourceUri, UriError> {
        let mut brackets = false;
        for (index, character) in input.char_indices() {
            if character.is_ascii_control() {
                return Err(UriError::ControlCharacter {
                    index,
                    code: character as u8,
                });
            }
            if !character.is_ascii() {
                return Err(UriError::NonAscii { index, character });
            }
            brackets |= matches!(character, '[' | ']');
        }
        if !has_scheme(input) {
            return Err(UriError::NoScheme);
        }
        match brackets.then(|| BracketsEncoded::new(input)).flatten() {
            Some(encoded) => {
                ResourceUri::parse_ascii(&encoded.text, |index| encoded.input_index(index))
            }
            None => ResourceUri::parse_ascii(input, |index| index),
        }
    }

    /// [`ResourceUri::parse_general`] past the checks of single characters and of the scheme:
    /// `text` is ASCII without control characters. Errors name the byte `input_index` gives
    /// for their offset in `text`, the offset in what the caller was given.
    fn parse_ascii(
        text: &str,
        input_index: impl Fn(usize) -> usize,
    ) -> Result<ResourceUri, UriError> {
        let parsed = Uri::parse(text).map_err(|error| {
            let index = error.index();
            let character = text[index..].chars().next().unwrap_or('\u{0}');
            let index = input_index(index);
            match error.kind() {
                ParseErrorKind::InvalidPctEncodedOctet => {
                    UriError::InvalidPercentEncoding { index }
                }
                ParseErrorKind::InvalidIpv6Addr => UriError::InvalidIpv6 { index },
                _ => UriError::InvalidCharacter { index, character },
            }
        })?;
        if parsed.has_fragment() {
            let index = input_index(parsed.strip_fragment().as_str().len());
            return Err(UriError::Fragment { index });
        }
        if let Some(index) = find_encoded_nul(text) {
            return Err(UriError::EncodedNul {
                index: input_index(index),
            });
        }
        if climbs_without_root(parsed.path().as_str()) {
            return Err(UriError::PathAboveRoot);
        }
        if is_canonical(&parsed) {
            // Most URIs a client sends are already canonical (they were listed so): the
            // normalizer would give the input back, at the cost of two buffers.
            return ResourceUri::from_parts(
                parsed.as_str(),
                parsed.scheme().as_str(),
                parsed.authority().map(|authority| authority.as_str()),
                parsed.path().as_str(),
                parsed.query().map(|query| query.as_str()),
            );
        }
        ResourceUri::normalized(&parsed)
    }

    /// The canonical form of `parsed`, through the normalizer.
    fn normalized(parsed: &Uri<&str>) -> Result<ResourceUri, UriError> {
        let normalized = Normalizer::new()
            .allow_path_underflow(false)
            .normalize(parsed)
            .map_err(|error| match error {
                NormalizeError::PathUnderflow => UriError::PathAboveRoot,
            })?;
        ResourceUri::from_parts(
            normalized.as_str(),
            normalized.scheme().as_str(),
            normalized.authority().map(|authority| authority.as_str()),
            normalized.path().as_str(),
            normalized.query().map(|query| query.as_str()),
        )
    }

    /// The URI `text` in canonical form, from its components (each a part of `text`); too
    /// long when an offset does not fit in 32 bits (never, within [`MAX_URI_LEN`]).
    fn from_parts(
        text: &str,
        scheme: &str,
        authority: Option<&str>,
        path: &str,
        query: Option<&str>,
    ) -> Result<ResourceUri, UriError> {
        let offset_of = |part: &str| part.as_ptr() as usize - text.as_ptr() as usize;
        let span_of = |part: &str| Span::new(offset_of(part), offset_of(part) + part.len());
        let too_long = || UriError::TooLong {
            len: text.len(),
            max: MAX_URI_LEN,
        };
        Ok(ResourceUri {
            text: text.into(),
            scheme_end: u32::try_from(scheme.len()).map_err(|_| too_long())?,
            path: span_of(path).ok_or_else(too_long)?,
            authority: authority
                .map(span_of)
                .map(|span| span.ok_or_else(too_long))
                .transpose()?,
            query: query
                .map(span_of)
                .map(|span| span.ok_or_else(too_long))
                .transpose()?,
        })
    }

    /// The canonical form.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The canonical form, shared with this URI (a clone of it costs no allocation).
    pub(crate) fn shared_text(&self) -> Arc<str> {
        Arc::clone(&self.text)
    }

    /// The canonical form, by value.
    pub fn into_string(self) -> String {
        self.text.as_ref().to_owned()
    }

    /// The scheme, lowercase, without the `:`.
    pub fn scheme(&self) -> &str {
        &self.text[..self.scheme_end as usize]
    }

    /// The authority without the leading `//`, if the URI has one (`Some("")` for `file:///x`).
    pub fn authority(&self) -> Option<&str> {
        self.authority.map(|span| span.of(&self.text))
    }

    /// The path, percent-encoded as in the canonical form.
    pub fn path(&self) -> &str {
        self.path.of(&self.text)
    }

    /// The query without the leading `?`, percent-encoded, if the URI has one.
    pub fn query(&self) -> Option<&str> {
        self.query.map(|span| span.of(&self.text))
    }
}

/// A URI whose raw `[` and `]` in the path and query are written `%5B` and `%5D`, with the
/// way back to the offsets of the text it was made from.
struct BracketsEncoded {
    text: String,
    /// The offset in `text` of each triplet written for a bracket, ascending.
    triplets: Vec<usize>,
}

impl BracketsEncoded {
    /// `input` (which has a scheme) with the brackets of its path and query encoded, or `None`
    /// when they hold none. The path starts after `scheme:`, or after the authority when
    /// `//` follows it (the authority ends at the first `/`, `?` or `#`: none can be inside an
    /// IP literal); the query ends at the first `#`.
    fn new(input: &str) -> Option<BracketsEncoded> {
        let after_scheme = input.find(':')? + 1;
        let start = match input[after_scheme..].strip_prefix("//") {
            Some(authority) => {
                let authority_start = after_scheme + 2;
                authority_start + authority.find(['/', '?', '#']).unwrap_or(authority.len())
            }
            None => after_scheme,
        };
        let end = input[start..]
            .find('#')
            .map_or(input.len(), |end| start + end);
        if !input[start..end].contains(['[', ']']) {
            return None;
        }
        let mut text = String::with_capacity(input.len() + 8);
        let mut triplets = Vec::new();
        text.push_str(&input[..start]);
        for character in input[start..end].chars() {
            match character {
                '[' | ']' => {
                    triplets.push(text.len());
                    text.push_str(if character == '[' { "%5B" } else { "%5D" });
                }
                _ => text.push(character),
            }
        }
        text.push_str(&input[end..]);
        Some(BracketsEncoded { text, triplets })
    }

    /// The offset in the input of the byte at `index` in `text` (which is never inside a
    /// triplet written here: those are valid, and nothing is wrong inside them).
    fn input_index(&self, index: usize) -> usize {
        let written_before = self.triplets.partition_point(|&triplet| triplet < index);
        index - 2 * written_before
    }
}

/// Whether `input` starts with `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`.
fn has_scheme(input: &str) -> bool {
    let Some((scheme, _)) = input.split_once(':') else {
        return false;
    };
    let mut bytes = scheme.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'))
}

/// Whether normalizing `parsed` (a URI without a fragment) would give it back unchanged: no
/// percent-encoding anywhere (the only thing the normalizer rewrites in the user info, path and
/// query), a lowercase scheme, a lowercase registered-name or IPv4 host without a port (an IP
/// literal is rewritten, a port may be dropped), and no dot segment in an absolute path.
fn is_canonical(parsed: &Uri<&str>) -> bool {
    let text = parsed.as_str();
    let lowercase = |part: &str| !part.bytes().any(|byte| byte.is_ascii_uppercase());
    let authority_is_canonical = parsed.authority().is_none_or(|authority| {
        let host = authority.host();
        authority.port().is_none() && !host.starts_with('[') && lowercase(host)
    });
    let path = parsed.path().as_str();
    let path_is_canonical = !path.starts_with('/')
        || !path
            .split('/')
            .any(|segment| segment == "." || segment == "..");
    !text.contains('%')
        && lowercase(parsed.scheme().as_str())
        && authority_is_canonical
        && path_is_canonical
}

/// Whether a rootless path (`file:a/../b`: no authority, no leading `/`) has a `..` segment,
/// percent-encoded dots included. The normalizer leaves such a path as it is, so its `..`
/// would survive into the canonical form; with no root to stay beneath, it is refused as
/// climbing above one.
fn climbs_without_root(path: &str) -> bool {
    !path.starts_with('/')
        && path.split('/').any(|segment| {
            let dots = segment.replace("%2E", ".").replace("%2e", ".");
            dots == ".."
        })
}

fn find_encoded_nul(input: &str) -> Option<usize> {
    input
        .match_indices('%')
        .map(|(index, _)| index)
        .find(|&index| input.get(index + 1..index + 3) == Some("00"))
}

impl PartialEq for ResourceUri {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for ResourceUri {}

impl PartialOrd for ResourceUri {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResourceUri {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for ResourceUri {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl PartialEq<str> for ResourceUri {
    fn eq(&self, other: &str) -> bool {
        *self.text == *other
    }
}

impl PartialEq<&str> for ResourceUri {
    fn eq(&self, other: &&str) -> bool {
        *self.text == **other
    }
}

impl fmt::Debug for ResourceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ResourceUri").field(&self.text).finish()
    }
}

impl fmt::Display for ResourceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for ResourceUri {
    type Err = UriError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        ResourceUri::parse(input)
    }
}

impl TryFrom<&str> for ResourceUri {
    type Error = UriError;

    fn try_from(input: &str) -> Result<Self, Self::Error> {
        ResourceUri::parse(input)
    }
}

impl AsRef<str> for ResourceUri {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl Borrow<str> for ResourceUri {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl From<ResourceUri> for String {
    fn from(uri: ResourceUri) -> String {
        uri.into_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The shortcut for URIs that are already canonical gives what the normalizer gives.
        #[test]
        fn the_canonical_shortcut_agrees_with_the_normalizer(
            input in "[a-zA-Z][a-zA-Z0-9+.-]{0,4}:(//([a-z]{1,3}@)?([a-zA-Z0-9.-]{0,8}|\\[::[0-9A-F]{1,4}\\])(:[0-9]{0,3})?)?(/([a-zA-Z0-9~-]{0,4}|\\.|\\.\\.|%[0-9a-fA-F]{2})){0,5}(\\?[a-zA-Z0-9=&.%]{0,6})?",
        ) {
            let parsed = ResourceUri::parse(&input);
            if let Ok(uri) = Uri::parse(input.as_str()) {
                if find_encoded_nul(&input).is_none() && has_scheme(&input) {
                    let normalized = ResourceUri::normalized(&uri);
                    prop_assert_eq!(&parsed, &normalized, "{}", input);
                    if let (Ok(a), Ok(b)) = (&parsed, &normalized) {
                        prop_assert_eq!(
                            (a.scheme(), a.authority(), a.path(), a.query()),
                            (b.scheme(), b.authority(), b.path(), b.query())
                        );
                    }
                }
            }
        }

        /// The shortcut for simple URIs gives what the parser gives, parts included.
        #[test]
        fn the_simple_shortcut_agrees_with_the_parser(
            input in "[a-zA-Z][a-zA-Z0-9+.-]{0,4}:(//?)?([a-zA-Z0-9._~:@-]{0,8})(/([a-zA-Z0-9~!$&'()*+,;=:@_-]{0,4}|\\.|\\.\\.|%[0-9a-fA-F]{2})){0,5}(\\?[a-z]{0,3})?(#[a-z]{0,2})?",
        ) {
            if let Some(simple) = ResourceUri::simple(&input) {
                let general = ResourceUri::parse_general(&input);
                prop_assert_eq!(Ok(&simple), general.as_ref(), "{}", input);
                if let Ok(general) = &general {
                    prop_assert_eq!(
                        (simple.scheme(), simple.authority(), simple.path(), simple.query()),
                        (general.scheme(), general.authority(), general.path(), general.query())
                    );
                }
            }
        }
    }

    /// A URI is in every resource, its contents and every subscription: its offsets are kept
    /// in 32 bits, and a limit above what they hold is capped.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_uri_is_small_and_its_length_capped() {
        assert_eq!(std::mem::size_of::<ResourceUri>(), 56);
        let limits = UriLimits {
            max_len: usize::MAX,
        };
        let uri = ResourceUri::parse_with("HTTPS://Host:443/a/../b?q#", &limits);
        assert!(matches!(uri, Err(UriError::Fragment { .. })), "{uri:?}");
        let uri = ResourceUri::parse_with("HTTPS://Host/a/../b?q", &limits).unwrap();
        assert_eq!(uri.as_str(), "https://host/b?q");
        assert_eq!(
            (uri.scheme(), uri.authority(), uri.path(), uri.query()),
            ("https", Some("host"), "/b", Some("q"))
        );
    }

    #[test]
    fn the_simple_shortcut_takes_the_common_uris_and_leaves_the_rest() {
        for input in [
            "mem:///r/0001",
            "file:///a/b.md",
            "https://example.com/a:b@c",
        ] {
            assert!(ResourceUri::simple(input).is_some(), "{input}");
            assert_eq!(
                ResourceUri::simple(input),
                ResourceUri::parse_general(input).ok()
            );
        }
        for input in [
            "Mem:///r",
            "mem:///A/./b",
            "mem://Host/a",
            "mem://h:80/a",
            "mem:///a%41",
            "mem:///a?q",
            "mem:///a#f",
            "urn:isbn:1",
            "mem://host",
            "mem:///a b",
            "mem:///é",
        ] {
            assert!(ResourceUri::simple(input).is_none(), "{input}");
        }
    }
}
