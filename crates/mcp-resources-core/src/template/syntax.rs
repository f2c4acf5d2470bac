//! The parsed form of a URI template: [`UriTemplate`] with its literal parts and its
//! expressions, their operators and modifiers.
//!
//! **Layer:** core, inside [`template`](super), below parsing, expansion, matching and the index,
//! which all read this form; the public entry points that tie them together
//! (`UriTemplate::parse`, `expand`, `match_uri`) are in the parent module. It is plain data and
//! must never parse, expand or match anything itself.

use std::fmt;

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
    pub(super) text: String,
    pub(super) parts: Vec<Part>,
    pub(super) names: Vec<String>,
    /// Index into `parts` where the trailing, order-free query expressions start, if any.
    pub(super) query_start: Option<usize>,
}

/// One piece of a template: literal text or an expression in braces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// Literal text, already percent-encoded the way it appears in a URI.
    Literal(String),
    Expression(Expression),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Expression {
    pub(super) operator: Operator,
    pub(super) variables: Vec<VarSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct VarSpec {
    pub(super) name: String,
    pub(super) modifier: Modifier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Modifier {
    None,
    /// `:n`, at most this many characters of a string value.
    Prefix(usize),
    /// `*`.
    Explode,
}

/// The eight expression operators of RFC 6570.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Operator {
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
    pub(super) fn from_char(character: char) -> Option<Operator> {
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
    pub(super) fn first(self) -> &'static str {
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
    pub(super) fn separator(self) -> char {
        match self {
            Operator::Simple | Operator::Reserved | Operator::Fragment => ',',
            Operator::Label => '.',
            Operator::PathSegment => '/',
            Operator::PathParameter => ';',
            Operator::Query | Operator::QueryContinuation => '&',
        }
    }

    /// Whether values are written as `name=value` (`named`).
    pub(super) fn named(self) -> bool {
        matches!(
            self,
            Operator::PathParameter | Operator::Query | Operator::QueryContinuation
        )
    }

    /// What follows the name of an empty value (`ifemp`).
    pub(super) fn if_empty(self) -> &'static str {
        match self {
            Operator::Query | Operator::QueryContinuation => "=",
            _ => "",
        }
    }

    /// Whether reserved characters and `%XX` triplets are copied unencoded (`allow`).
    pub(super) fn allows_reserved(self) -> bool {
        matches!(self, Operator::Reserved | Operator::Fragment)
    }
}

impl UriTemplate {
    /// The template as it was written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names of the variables, in order of first appearance, each once.
    pub fn variable_names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
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
