//! RFC 6570 URI templates, both ways: expansion at all four levels, and matching of a concrete
//! URI against a template with the variables extracted, percent-decoded once and safety-checked.
//!
//! **Layer:** core. Templates route reads to providers and drive completion; this module only
//! deals in strings. It must never know a protocol version, JSON, a file system or any I/O, and
//! it never canonicalizes a URI itself: callers match the canonical form of a
//! [`ResourceUri`](crate::uri::ResourceUri).
//!
//! # Expansion
//!
//! [`UriTemplate::expand`] follows RFC 6570 section 3 exactly: operators none, `+`, `#`, `.`,
//! `/`, `;`, `?`, `&`; prefix modifiers `:n`; explode `*`; strings, lists and associative arrays.
//! Literal text is copied, with characters outside the URI character set percent-encoded.
//! Reserved expansion leaves `[` and `]` in a value as they are, as the RFC says; a
//! [`ResourceUri`](crate::uri::ResourceUri) takes them in a path or query as `%5B` and `%5D`,
//! and matching its canonical form gives the value back.
//!
//! # Matching
//!
//! [`UriTemplate::match_uri`] is the inverse, and it is stricter than expansion, because its
//! answer names a resource:
//!
//! - **Decoding once.** Every value is percent-decoded exactly once: `%2541` yields `%41`.
//!   A value that does not decode to UTF-8 makes the match fail.
//! - **Types.** A variable without `*` matches as [`VarValue::String`]; with `*` as
//!   [`VarValue::List`]. Associative arrays expand but never come back from a match.
//! - **Path variables are required.** Every variable outside the query part must be present in
//!   the URI (`db://users/{id}` does not match `db://users/`).
//! - **Literal text** is compared byte for byte with the URI, after the template's own literal
//!   text has been put in canonical percent-encoding (`%7e` becomes `~`, `%2f` becomes `%2F`).
//!   Write templates with a lowercase scheme and host, as canonical URIs have them.
//! - **Where values may go.** A simple `{var}` matches only unreserved characters, `,` and
//!   percent-encoded octets, so it never crosses a `/` of the URI. `{+var}`, `{#var}` and
//!   `{/var*}` span `/`. `{.var}` stops at `.`, `{/var}` at `/`, `{;var}` at `;`.
//! - **Safety, after decoding.** No value contains NUL. A value of a segment-bound expression
//!   (none, `.`, `;`, `/` without `*`, and each item of `{/list*}`) never contains `/` and is never
//!   `.` or `..`, so `file:///{name}` does not match `file:///..%2Fetc%2Fpasswd`. A spanning value
//!   (`+`, `#`) never has a `..` segment between `/` or `\` separators. Query values are data and
//!   are only checked for NUL.
//! - **Query expressions.** When a template ends in `{?a,b}` (optionally followed by `{&c}`), or
//!   ends in `{&c}` after literal text holding a `?`, those parameters are all optional and may
//!   come in any order; parameters the template does not name are ignored; a parameter without
//!   `=` is the empty string; `+` is a plus sign, not a space. A variable without `*` that
//!   appears more than once makes the match fail (the input is ambiguous, and guessing first or
//!   last is how parameter-pollution bugs start); with `*`, all occurrences are collected in order.
//!   In that shape the path part never matches a `?`, and literal query text of the template
//!   (`?fixed=yes{&x}`) must come first, as written. Query expressions anywhere else are matched
//!   strictly, in template order.
//! - **Ambiguity.** Adjacent expressions (`{a}{b}`) are resolved by preferring the longest text
//!   for the earlier expression, backtracking only when the rest of the template cannot match:
//!   `{a}{b}` on `xyz` gives `a = "xy"`, `b = "z"`. Within one expression, items are given to
//!   variables left to right, an exploded variable taking as many as it can. A variable named
//!   twice must receive the same value at both places of the preferred split, or nothing matches.
//!   Matching gives up (no match) after a fixed budget of work (bytes scanned and decoded,
//!   splits tried), so a hostile URI cannot make it take long.
//! - **Not injective.** Reserved expansion copies `%XX` triplets and reserved characters as they
//!   are, so `{+var}` with `%41` expands to `%41` and matches back as `A`, and `{+x,y}` cannot
//!   tell a `,` inside a value from the separator. Expansion with the other operators is undone
//!   exactly by matching.
//!
//! # Many templates
//!
//! [`TemplateIndex`] finds the template that matches a URI without trying all of them; see its
//! documentation for the order among several matches.

mod expand;
mod index;
mod matching;
mod parse;

use std::collections::BTreeMap;
use std::fmt;

pub use index::TemplateIndex;
pub use parse::TemplateError;

/// A parsed RFC 6570 URI template.
///
/// ```
/// use mcp_resources_core::template::{UriTemplate, Variables};
///
/// let template = UriTemplate::parse("file:///notes/{+path}{?rev}").unwrap();
/// let mut variables = Variables::new();
/// variables.insert("path", "2026/todo list.md");
/// variables.insert("rev", "7");
/// let uri = template.expand(&variables);
/// assert_eq!(uri, "file:///notes/2026/todo%20list.md?rev=7");
/// assert_eq!(template.match_uri(&uri), Some(variables));
/// assert_eq!(template.match_uri("file:///notes/../etc/passwd"), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
    names: Vec<String>,
    /// Index into `parts` where the trailing, order-free query expressions start, if any.
    query_start: Option<usize>,
}

/// One piece of a template: literal text or an expression in braces.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Literal text, already percent-encoded the way it appears in a URI.
    Literal(String),
    Expression(Expression),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Expression {
    operator: Operator,
    variables: Vec<VarSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct VarSpec {
    name: String,
    modifier: Modifier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modifier {
    None,
    /// `:n`, at most this many characters of a string value.
    Prefix(usize),
    /// `*`.
    Explode,
}

/// The eight expression operators of RFC 6570.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    Simple,
    Reserved,
    Fragment,
    Label,
    PathSegment,
    PathParameter,
    Query,
    QueryContinuation,
}

impl Operator {
    fn from_char(character: char) -> Option<Operator> {
        Some(match character {
            '+' => Operator::Reserved,
            '#' => Operator::Fragment,
            '.' => Operator::Label,
            '/' => Operator::PathSegment,
            ';' => Operator::PathParameter,
            '?' => Operator::Query,
            '&' => Operator::QueryContinuation,
            _ => return None,
        })
    }

    /// The text put before the first defined value (RFC 6570 appendix A, `first`).
    fn first(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved => "",
            Operator::Fragment => "#",
            Operator::Label => ".",
            Operator::PathSegment => "/",
            Operator::PathParameter => ";",
            Operator::Query => "?",
            Operator::QueryContinuation => "&",
        }
    }

    /// The separator between defined values (`sep`).
    fn separator(self) -> char {
        match self {
            Operator::Simple | Operator::Reserved | Operator::Fragment => ',',
            Operator::Label => '.',
            Operator::PathSegment => '/',
            Operator::PathParameter => ';',
            Operator::Query | Operator::QueryContinuation => '&',
        }
    }

    /// Whether values are written as `name=value` (`named`).
    fn named(self) -> bool {
        matches!(
            self,
            Operator::PathParameter | Operator::Query | Operator::QueryContinuation
        )
    }

    /// What follows the name of an empty value (`ifemp`).
    fn if_empty(self) -> &'static str {
        match self {
            Operator::Query | Operator::QueryContinuation => "=",
            _ => "",
        }
    }

    /// Whether reserved characters and `%XX` triplets are copied unencoded (`allow`).
    fn allows_reserved(self) -> bool {
        matches!(self, Operator::Reserved | Operator::Fragment)
    }
}

/// The value of one template variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VarValue {
    /// A string.
    String(String),
    /// A list of strings; empty means undefined.
    List(Vec<String>),
    /// An associative array, in the order its pairs are expanded; empty means undefined.
    Map(Vec<(String, String)>),
}

impl VarValue {
    /// The string, if this is [`VarValue::String`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            VarValue::String(value) => Some(value),
            VarValue::List(_) | VarValue::Map(_) => None,
        }
    }

    /// Whether RFC 6570 treats this value as undefined (an empty list or map).
    fn is_undefined(&self) -> bool {
        match self {
            VarValue::String(_) => false,
            VarValue::List(items) => items.is_empty(),
            VarValue::Map(pairs) => pairs.is_empty(),
        }
    }
}

impl From<&str> for VarValue {
    fn from(value: &str) -> Self {
        VarValue::String(value.to_owned())
    }
}

impl From<String> for VarValue {
    fn from(value: String) -> Self {
        VarValue::String(value)
    }
}

impl From<Vec<String>> for VarValue {
    fn from(items: Vec<String>) -> Self {
        VarValue::List(items)
    }
}

impl From<Vec<&str>> for VarValue {
    fn from(items: Vec<&str>) -> Self {
        VarValue::List(items.into_iter().map(str::to_owned).collect())
    }
}

impl From<Vec<(String, String)>> for VarValue {
    fn from(pairs: Vec<(String, String)>) -> Self {
        VarValue::Map(pairs)
    }
}

impl From<Vec<(&str, &str)>> for VarValue {
    fn from(pairs: Vec<(&str, &str)>) -> Self {
        VarValue::Map(
            pairs
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .collect(),
        )
    }
}

/// Variables for expansion, or extracted by a match: a map from name to [`VarValue`], iterated in
/// name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variables {
    values: BTreeMap<String, VarValue>,
}

impl Variables {
    /// No variables.
    pub fn new() -> Self {
        Variables::default()
    }

    /// Sets `name` to `value`, replacing any earlier value.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<VarValue>) {
        self.values.insert(name.into(), value.into());
    }

    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&VarValue> {
        self.values.get(name)
    }

    /// The value of `name`, if it is set to a string.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(VarValue::as_str)
    }

    /// All variables, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &VarValue)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value))
    }

    /// The number of variables set.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no variable is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<N: Into<String>, V: Into<VarValue>> FromIterator<(N, V)> for Variables {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Self {
        let mut variables = Variables::new();
        for (name, value) in iter {
            variables.insert(name, value);
        }
        variables
    }
}

impl UriTemplate {
    /// Parses an RFC 6570 template.
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] naming the byte offset and what is wrong there.
    pub fn parse(input: &str) -> Result<UriTemplate, TemplateError> {
        parse::parse(input)
    }

    /// The template as it was written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names of the variables, in order of first appearance, each once.
    pub fn variable_names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Expands the template with `variables` (RFC 6570 levels 1 to 4). Variables that are not
    /// set are undefined.
    pub fn expand(&self, variables: &Variables) -> String {
        expand::expand(self, variables)
    }

    /// Matches a concrete URI, normally a canonical
    /// [`ResourceUri`](crate::uri::ResourceUri), against the template and returns the variables,
    /// or `None` when it does not match or a value fails a safety check. See the
    /// [module documentation](self) for the rules.
    pub fn match_uri(&self, uri: &str) -> Option<Variables> {
        matching::match_uri(self, uri)
    }

    /// The literal text before the first expression, as it appears in a matching URI (characters
    /// outside the URI character set percent-encoded). Every URI the template matches starts with
    /// it.
    pub fn literal_prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Literal(text)) => text,
            _ => "",
        }
    }

    /// The number of literal characters of the template (as they appear in a URI); a template
    /// with more of them is more specific.
    pub fn literal_len(&self) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Literal(text) => text.len(),
                Part::Expression(_) => 0,
            })
            .sum()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for UriTemplate {
    type Err = TemplateError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(input)
    }
}
