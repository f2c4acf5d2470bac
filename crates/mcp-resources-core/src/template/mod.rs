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

mod encoding;
mod expand;
mod index;
mod matching;
mod parse;
mod syntax;
mod variables;

pub use index::TemplateIndex;
pub use parse::TemplateError;
pub use syntax::UriTemplate;
pub use variables::{VarValue, Variables};

// The entry points of a template, here because they tie parsing, expansion and matching
// together; the form they work on and its accessors are in `syntax`.
impl UriTemplate {
    /// Parses an RFC 6570 template.
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] naming the byte offset and what is wrong there.
    pub fn parse(input: &str) -> Result<UriTemplate, TemplateError> {
        parse::parse(input)
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
}

impl std::str::FromStr for UriTemplate {
    type Err = TemplateError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(input)
    }
}
