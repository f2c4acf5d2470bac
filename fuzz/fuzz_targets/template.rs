//! Fuzz target `template`: RFC 6570 templates, parsed, expanded and matched.
//!
//! Two inputs in one. Free text is parsed as a template; when it parses, it is expanded with
//! fuzzed values for its variables and matched against that expansion, its canonical form and
//! a fuzzed URI: nothing panics, and a match binds only variables the template names.
//!
//! A template built from fuzzed pieces, where each variable's operator is known, adds what the
//! core's property tests hold (`tests/it/template.rs`):
//! - safety, for any URI: no value holds NUL; a segment-bound value (operators none, `.`, `;`,
//!   `/`) never holds `/` or `\` and is never `.` or `..`; a spanning one (`+`, `#`) never has
//!   a `..` segment;
//! - expand then match gives the variables back, for a template in the shape where matching
//!   undoes expansion exactly: encoding operators only, each variable once, no prefix, and a
//!   literal of reserved characters between expressions (query expressions last), with
//!   non-empty values that are safe.

#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_resources_core::template::{UriTemplate, VarValue, Variables};
use mcp_resources_core::uri::ResourceUri;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Free template text.
    text: String,
    /// A template built from pieces.
    pieces: Vec<Piece>,
    /// Values, given to the variables in the order they are named.
    values: Vec<Value>,
    /// A URI to match.
    uri: String,
}

#[derive(Arbitrary, Debug)]
enum Piece {
    Literal(String),
    /// Operator (index into `OPERATORS`), variables as (name index, modifier).
    Expression(u8, Vec<(u8, Modifier)>),
}

#[derive(Arbitrary, Debug, Clone, Copy, PartialEq)]
enum Modifier {
    None,
    Prefix(u8),
    Explode,
}

#[derive(Arbitrary, Debug, Clone)]
enum Value {
    String(String),
    List(Vec<String>),
    Map(Vec<(String, String)>),
}

const OPERATORS: [&str; 8] = ["", "+", "#", ".", "/", ";", "?", "&"];
const NAMES: [&str; 4] = ["a", "b", "c", "d"];
/// Literal characters that no encoding operator leaves unencoded in a value.
const SEPARATORS: &[char] = &['/', ':', '@', '!', '$', '\'', '(', ')', '*', '+', '='];

fuzz_target!(|input: Input| {
    if let Ok(template) = UriTemplate::parse(&input.text) {
        exercise(&template, &input.values, &input.uri);
    }
    check_built(&input);
});

/// Expands `template` with `values` and matches its expansion, the canonical form of it and
/// `uri`; returns the variables expanded and the expansion.
fn exercise(template: &UriTemplate, values: &[Value], uri: &str) -> (Variables, String) {
    let names: Vec<&str> = template.variable_names().collect();
    let variables: Variables = names
        .iter()
        .zip(values)
        .map(|(name, value)| (*name, to_var(value)))
        .collect();
    let expanded = template.expand(&variables);
    let _ = template.literal_prefix();
    let _ = template.literal_len();
    let mut tried = vec![expanded.clone(), uri.to_owned()];
    if let Ok(canonical) = ResourceUri::parse(&expanded) {
        tried.push(canonical.into_string());
    }
    for candidate in &tried {
        if let Some(matched) = template.match_uri(candidate) {
            for (name, _) in matched.iter() {
                assert!(
                    names.contains(&name),
                    "{template} bound {name} on {candidate:?}"
                );
            }
        }
    }
    (variables, expanded)
}

fn to_var(value: &Value) -> VarValue {
    match value {
        Value::String(text) => VarValue::String(text.clone()),
        Value::List(items) => VarValue::List(items.clone()),
        Value::Map(pairs) => VarValue::Map(pairs.clone()),
    }
}

/// The variable of a built template and the operators it appears under.
struct Use {
    name: &'static str,
    operators: Vec<&'static str>,
}

fn check_built(input: &Input) {
    let mut text = String::from("db://x/");
    let mut uses: Vec<Use> = Vec::new();
    // Whether the template is in the shape where matching undoes expansion exactly.
    let mut exact = true;
    let mut after_expression = false;
    let mut query_seen = false;
    for piece in input.pieces.iter().take(6) {
        match piece {
            Piece::Literal(literal) => {
                let literal: String = literal
                    .chars()
                    .filter(|character| !matches!(character, '{' | '}'))
                    .take(8)
                    .collect();
                // Letters and digits only before the first expression (a value may hold
                // them), separators anywhere: nothing a value's expansion could be taken for.
                let first = uses.is_empty();
                let plain =
                    |c: char| SEPARATORS.contains(&c) || (first && c.is_ascii_alphanumeric());
                if !literal.chars().all(plain) {
                    exact = false;
                }
                if !literal.is_empty() {
                    after_expression = false;
                }
                if query_seen {
                    exact = false;
                }
                text.push_str(&literal);
            }
            Piece::Expression(operator, variables) => {
                let operator = OPERATORS[usize::from(*operator) % OPERATORS.len()];
                let variables = &variables[..variables.len().min(3)];
                if variables.is_empty() {
                    continue;
                }
                let query = matches!(operator, "?" | "&");
                if after_expression && !query {
                    exact = false;
                }
                if query_seen && !query {
                    exact = false;
                }
                if matches!(operator, "+" | "#") {
                    exact = false;
                }
                query_seen |= query;
                text.push('{');
                text.push_str(operator);
                for (index, (name, modifier)) in variables.iter().enumerate() {
                    let name = NAMES[usize::from(*name) % NAMES.len()];
                    if index > 0 {
                        text.push(',');
                    }
                    text.push_str(name);
                    match modifier {
                        Modifier::None => {}
                        Modifier::Prefix(length) => {
                            text.push_str(&format!(":{}", length % 10 + 1));
                            exact = false;
                        }
                        Modifier::Explode => {
                            text.push('*');
                            exact = false;
                        }
                    }
                    match uses.iter_mut().find(|used| used.name == name) {
                        Some(used) => {
                            used.operators.push(operator);
                            exact = false;
                        }
                        None => uses.push(Use {
                            name,
                            operators: vec![operator],
                        }),
                    }
                }
                text.push('}');
                after_expression = true;
            }
        }
    }
    // A literal may hold what no template may (a control character, a stray `%`).
    let Ok(template) = UriTemplate::parse(&text) else {
        return;
    };
    let (variables, expanded) = exercise(&template, &input.values, &input.uri);

    let mut tried = vec![expanded.clone(), input.uri.clone()];
    if let Ok(canonical) = ResourceUri::parse(&expanded) {
        tried.push(canonical.into_string());
    }
    for candidate in &tried {
        let Some(matched) = template.match_uri(candidate) else {
            continue;
        };
        for used in &uses {
            let Some(value) = matched.get(used.name) else {
                continue;
            };
            let items: Vec<&str> = match value {
                VarValue::String(text) => vec![text.as_str()],
                VarValue::List(items) => items.iter().map(String::as_str).collect(),
                VarValue::Map(_) => panic!("{text} matched a map on {candidate:?}"),
            };
            for item in items {
                assert!(!item.contains('\0'), "{text} matched NUL on {candidate:?}");
                for operator in &used.operators {
                    let safe = match *operator {
                        "" | "." | ";" | "/" => segment_safe(item),
                        "+" | "#" => spanning_safe(item),
                        _ => true,
                    };
                    assert!(
                        safe,
                        "{text} matched {:?} = {item:?} on {candidate:?}",
                        used.name
                    );
                }
            }
        }
    }

    if !exact {
        return;
    }
    // Every variable named gets a value that expansion then matching give back.
    let all_set = uses.iter().all(|used| {
        variables.get_str(used.name).is_some_and(|value| {
            !value.is_empty()
                && !value.contains('\0')
                && (used.operators.iter().all(|op| matches!(*op, "?" | "&")) || segment_safe(value))
                && !(used.operators.contains(&".") && value.contains('.'))
        })
    });
    if !all_set || uses.len() != variables.len() {
        return;
    }
    assert_eq!(
        template.match_uri(&expanded),
        Some(variables),
        "{text} expanded to {expanded:?}"
    );
}

fn segment_safe(text: &str) -> bool {
    !text.contains(['/', '\\']) && text != "." && text != ".."
}

fn spanning_safe(text: &str) -> bool {
    !text.split(['/', '\\']).any(|segment| segment == "..")
}
