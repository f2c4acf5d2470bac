//! The character classes of RFC 3986 and the percent-encoding rules that parsing, expansion and
//! matching of templates share.
//!
//! **Layer:** core, inside [`template`](super), at its bottom: plain byte and string work that
//! uses no other part of the template module. It must never know a template's syntax or what a
//! URI names.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but the unreserved characters `ALPHA DIGIT - . _ ~` is percent-encoded.
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Everything but unreserved and reserved characters is percent-encoded.
const NOT_URI_CHARACTER: &AsciiSet = &NOT_UNRESERVED
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'#')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
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
    .remove(b'=');

/// Whether `byte` is an RFC 3986 unreserved character.
pub(super) fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// Whether `byte` is an RFC 3986 reserved character.
pub(super) fn is_reserved(byte: u8) -> bool {
    matches!(
        byte,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
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
    )
}

/// Appends `value` percent-encoded: only unreserved characters stay as they are, or, when
/// `allow_reserved`, also reserved characters and existing `%XX` triplets.
pub(super) fn encode(value: &str, allow_reserved: bool, out: &mut String) {
    if !allow_reserved {
        out.extend(utf8_percent_encode(value, NOT_UNRESERVED));
        return;
    }
    let mut rest = value;
    while let Some(percent) = rest.find('%') {
        out.extend(utf8_percent_encode(&rest[..percent], NOT_URI_CHARACTER));
        if is_triplet(&rest[percent..]) {
            out.push_str(&rest[percent..percent + 3]);
            rest = &rest[percent + 3..];
        } else {
            out.push_str("%25");
            rest = &rest[percent + 1..];
        }
    }
    out.extend(utf8_percent_encode(rest, NOT_URI_CHARACTER));
}

/// Literal template text as it appears in a URI: URI characters copied, others percent-encoded,
/// and existing triplets normalized like a canonical URI (uppercase hex digits, unreserved
/// characters decoded).
pub(super) fn encode_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(percent) = rest.find('%') {
        out.extend(utf8_percent_encode(&rest[..percent], NOT_URI_CHARACTER));
        // The parser has checked that every `%` in literal text starts a triplet.
        let triplet = &rest[percent..percent + 3];
        match u8::from_str_radix(&triplet[1..], 16) {
            Ok(byte) if is_unreserved(byte) => out.push(char::from(byte)),
            _ => out.push_str(&triplet.to_ascii_uppercase()),
        }
        rest = &rest[percent + 3..];
    }
    out.extend(utf8_percent_encode(rest, NOT_URI_CHARACTER));
    out
}

/// Whether `text` starts with `%` and two hexadecimal digits.
pub(super) fn is_triplet(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3
        && bytes[0] == b'%'
        && bytes[1].is_ascii_hexdigit()
        && bytes[2].is_ascii_hexdigit()
}
