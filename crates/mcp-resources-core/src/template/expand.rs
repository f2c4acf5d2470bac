//! Expansion of a template with variables (RFC 6570 section 3 and appendix A), and the
//! percent-encoding rules it shares with parsing.
//!
//! **Layer:** core, inside [`template`](super). Pure string work; it must never know what the
//! expanded URI names.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::parse::is_triplet;
use super::{Expression, Modifier, Part, UriTemplate, VarValue, Variables};

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
fn encode(value: &str, allow_reserved: bool, out: &mut String) {
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

pub(super) fn expand(template: &UriTemplate, variables: &Variables) -> String {
    let mut out = String::with_capacity(template.text.len() + 16);
    for part in &template.parts {
        match part {
            Part::Literal(text) => out.push_str(text),
            Part::Expression(expression) => expand_expression(expression, variables, &mut out),
        }
    }
    out
}

fn expand_expression(expression: &Expression, variables: &Variables, out: &mut String) {
    let operator = expression.operator;
    let allow = operator.allows_reserved();
    let separator = operator.separator();
    let mut first = true;
    for spec in &expression.variables {
        let Some(value) = variables.get(&spec.name) else {
            continue;
        };
        if value.is_undefined() {
            continue;
        }
        if first {
            out.push_str(operator.first());
            first = false;
        } else {
            out.push(separator);
        }
        let explode = spec.modifier == Modifier::Explode;
        match value {
            VarValue::String(text) => {
                if operator.named() {
                    out.push_str(&spec.name);
                    if text.is_empty() {
                        out.push_str(operator.if_empty());
                        continue;
                    }
                    out.push('=');
                }
                let text = match spec.modifier {
                    Modifier::Prefix(length) => prefix(text, length),
                    Modifier::None | Modifier::Explode => text,
                };
                encode(text, allow, out);
            }
            VarValue::List(items) if !explode => {
                if operator.named() {
                    out.push_str(&spec.name);
                    out.push('=');
                }
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    encode(item, allow, out);
                }
            }
            VarValue::Map(pairs) if !explode => {
                if operator.named() {
                    out.push_str(&spec.name);
                    out.push('=');
                }
                for (index, (key, item)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    encode(key, allow, out);
                    out.push(',');
                    encode(item, allow, out);
                }
            }
            VarValue::List(items) => {
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(separator);
                    }
                    if operator.named() {
                        out.push_str(&spec.name);
                        if item.is_empty() {
                            out.push_str(operator.if_empty());
                            continue;
                        }
                        out.push('=');
                    }
                    encode(item, allow, out);
                }
            }
            VarValue::Map(pairs) => {
                for (index, (key, item)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push(separator);
                    }
                    encode(key, allow, out);
                    if operator.named() && item.is_empty() {
                        out.push_str(operator.if_empty());
                        continue;
                    }
                    out.push('=');
                    encode(item, allow, out);
                }
            }
        }
    }
}

/// The first `length` characters (Unicode scalar values) of `text`.
fn prefix(text: &str, length: usize) -> &str {
    match text.char_indices().nth(length) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}
