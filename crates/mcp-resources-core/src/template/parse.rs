//! Parsing of RFC 6570 templates into literal parts and expressions, with errors that name the
//! byte offset and what is wrong there.
//!
//! **Layer:** core, inside [`template`](super). It must never know where a template comes from
//! or what it is used for.

use super::encoding::{encode_literal, is_triplet};
use super::syntax::{Expression, Modifier, Operator, Part, UriTemplate, VarSpec};

/// What is wrong with a URI template. Offsets are in bytes from the start of the template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// A `{` has no matching `}`.
    #[error("unclosed expression: the `{{` at byte {position} has no matching `}}`")]
    UnclosedExpression {
        /// Offset of the `{`.
        position: usize,
    },
    /// A `{` appears inside an expression.
    #[error("nested `{{` at byte {position} inside an expression")]
    NestedBrace {
        /// Offset of the inner `{`.
        position: usize,
    },
    /// A `}` appears outside an expression.
    #[error("unmatched `}}` at byte {position}")]
    UnmatchedClosingBrace {
        /// Offset of the `}`.
        position: usize,
    },
    /// An expression has nothing in its braces.
    #[error("empty expression `{{}}` at byte {position}")]
    EmptyExpression {
        /// Offset of the `{`.
        position: usize,
    },
    /// An expression starts with a character that is neither an operator nor a variable name.
    #[error(
        "invalid operator {operator:?} at byte {position} (expected one of + # . / ; ? & or a variable name)"
    )]
    InvalidOperator {
        /// Offset of the operator.
        position: usize,
        /// The character found.
        operator: char,
    },
    /// An expression starts with one of `= , ! @ |`, which RFC 6570 reserves for future use.
    #[error("operator {operator:?} at byte {position} is reserved by rfc 6570 and not supported")]
    ReservedOperator {
        /// Offset of the operator.
        position: usize,
        /// The character found.
        operator: char,
    },
    /// A variable name is empty or holds a character outside `A-Z a-z 0-9 _ %XX` (with single
    /// dots between such characters).
    #[error("invalid variable name {name:?} at byte {position}")]
    InvalidVariableName {
        /// Offset of the variable specification.
        position: usize,
        /// The variable specification found.
        name: String,
    },
    /// A prefix modifier is not `:` followed by a length from 1 to 9999.
    #[error(
        "invalid prefix modifier {modifier:?} at byte {position} (expected `:` and a length from 1 to 9999)"
    )]
    InvalidPrefix {
        /// Offset of the `:`.
        position: usize,
        /// The modifier found.
        modifier: String,
    },
    /// Literal text holds a control character.
    #[error("control character {code:#04x} at byte {position} in the template")]
    ControlCharacter {
        /// Offset of the character.
        position: usize,
        /// The character's code.
        code: u32,
    },
    /// A `%` in literal text is not followed by two hexadecimal digits.
    #[error("malformed percent-encoding at byte {position} (expected % and two hex digits)")]
    InvalidPercentEncoding {
        /// Offset of the `%`.
        position: usize,
    },
}

pub(super) fn parse(input: &str) -> Result<UriTemplate, TemplateError> {
    let mut parts = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut literal_start = 0;
    let mut position = 0;
    while position < input.len() {
        let rest = &input[position..];
        let character = rest.chars().next().unwrap_or_default();
        match character {
            '{' => {
                push_literal(&mut parts, input, literal_start, position)?;
                let close = find_close(input, position)?;
                let expression = parse_expression(input, position, close)?;
                for variable in &expression.variables {
                    if !names.contains(&variable.name) {
                        names.push(variable.name.clone());
                    }
                }
                parts.push(Part::Expression(expression));
                position = close + 1;
                literal_start = position;
            }
            '}' => return Err(TemplateError::UnmatchedClosingBrace { position }),
            _ => position += character.len_utf8(),
        }
    }
    push_literal(&mut parts, input, literal_start, input.len())?;
    let query_start = find_query_start(&parts);
    Ok(UriTemplate {
        text: input.to_owned(),
        parts,
        names,
        query_start,
    })
}

fn find_close(input: &str, open: usize) -> Result<usize, TemplateError> {
    for (offset, character) in input[open + 1..].char_indices() {
        match character {
            '}' => return Ok(open + 1 + offset),
            '{' => {
                return Err(TemplateError::NestedBrace {
                    position: open + 1 + offset,
                });
            }
            _ => {}
        }
    }
    Err(TemplateError::UnclosedExpression { position: open })
}

fn push_literal(
    parts: &mut Vec<Part>,
    input: &str,
    start: usize,
    end: usize,
) -> Result<(), TemplateError> {
    if start == end {
        return Ok(());
    }
    let text = &input[start..end];
    for (offset, character) in text.char_indices() {
        if character.is_control() {
            return Err(TemplateError::ControlCharacter {
                position: start + offset,
                code: u32::from(character),
            });
        }
        if character == '%' && !is_triplet(&text[offset..]) {
            return Err(TemplateError::InvalidPercentEncoding {
                position: start + offset,
            });
        }
    }
    parts.push(Part::Literal(encode_literal(text)));
    Ok(())
}

fn parse_expression(input: &str, open: usize, close: usize) -> Result<Expression, TemplateError> {
    let body = &input[open + 1..close];
    let Some(first) = body.chars().next() else {
        return Err(TemplateError::EmptyExpression { position: open });
    };
    let operator_position = open + 1;
    let (operator, mut offset) = match Operator::from_char(first) {
        Some(operator) => (operator, operator_position + 1),
        None if matches!(first, '=' | ',' | '!' | '@' | '|') => {
            return Err(TemplateError::ReservedOperator {
                position: operator_position,
                operator: first,
            });
        }
        None if first.is_ascii_alphanumeric() || first == '_' || first == '%' => {
            (Operator::Simple, operator_position)
        }
        None => {
            return Err(TemplateError::InvalidOperator {
                position: operator_position,
                operator: first,
            });
        }
    };
    let mut variables = Vec::new();
    for spec in input[offset..close].split(',') {
        variables.push(parse_varspec(spec, offset)?);
        offset += spec.len() + 1;
    }
    Ok(Expression {
        operator,
        variables,
    })
}

fn parse_varspec(spec: &str, position: usize) -> Result<VarSpec, TemplateError> {
    let name_end = spec.find([':', '*']).unwrap_or(spec.len());
    let (name, modifier_text) = spec.split_at(name_end);
    if !is_varname(name) {
        return Err(TemplateError::InvalidVariableName {
            position,
            name: spec.to_owned(),
        });
    }
    let modifier = match modifier_text {
        "" => Modifier::None,
        "*" => Modifier::Explode,
        _ if modifier_text.starts_with('*') => {
            return Err(TemplateError::InvalidVariableName {
                position,
                name: spec.to_owned(),
            });
        }
        _ => {
            let invalid = || TemplateError::InvalidPrefix {
                position: position + name_end,
                modifier: modifier_text.to_owned(),
            };
            let digits = modifier_text.strip_prefix(':').ok_or_else(invalid)?;
            let valid = (1..=4).contains(&digits.len())
                && digits.bytes().all(|byte| byte.is_ascii_digit())
                && !digits.starts_with('0');
            if !valid {
                return Err(invalid());
            }
            Modifier::Prefix(digits.parse().map_err(|_| invalid())?)
        }
    };
    Ok(VarSpec {
        name: name.to_owned(),
        modifier,
    })
}

/// `varname = varchar *( ["."] varchar )`, `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn is_varname(name: &str) -> bool {
    if name.is_empty() || name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        return false;
    }
    let bytes = name.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'%' if is_triplet(&name[index..]) => index += 3,
            byte if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.' => index += 1,
            _ => return false,
        }
    }
    true
}

/// Where the trailing, order-free query expressions start: a final run of `?`/`&` expressions
/// that starts with `?` (and no `?` in the literal text before it), or with `&` after literal text
/// holding a `?`.
fn find_query_start(parts: &[Part]) -> Option<usize> {
    let is_query = |part: &Part| {
        matches!(
            part,
            Part::Expression(Expression {
                operator: Operator::Query | Operator::QueryContinuation,
                ..
            })
        )
    };
    let start = parts.len() - parts.iter().rev().take_while(|part| is_query(part)).count();
    let Part::Expression(first) = parts.get(start)? else {
        return None;
    };
    let literal_has_question_mark = parts[..start]
        .iter()
        .any(|part| matches!(part, Part::Literal(text) if text.contains('?')));
    let has_query_before = parts[..start].iter().any(is_query);
    let shape_ok = match first.operator {
        Operator::Query => !literal_has_question_mark,
        _ => literal_has_question_mark,
    };
    (shape_ok && !has_query_before).then_some(start)
}
