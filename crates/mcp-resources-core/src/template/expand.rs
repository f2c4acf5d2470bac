//! Expansion of a template with variables (RFC 6570 section 3 and appendix A); the
//! percent-encoding rules it shares with parsing and matching are in [`encoding`](super::encoding).
//!
//! **Layer:** core, inside [`template`](super). Pure string work; it must never know what the
//! expanded URI names.

use super::encoding::encode;
use super::syntax::{Expression, Modifier, Part, UriTemplate};
use super::variables::{VarValue, Variables};

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
