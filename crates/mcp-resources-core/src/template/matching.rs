//! Matching of a concrete URI against one template: the inverse of expansion, with decoding
//! done exactly once and safety checks on every decoded value. The rules are written down in
//! the [module documentation](super).
//!
//! **Layer:** core, inside [`template`](super). It must never canonicalize, look up or read
//! anything: it answers whether a string has the template's shape and what the variables are.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

use super::encoding::{is_reserved, is_triplet, is_unreserved};
use super::syntax::{Expression, Modifier, Operator, Part, UriTemplate, VarSpec};
use super::variables::{VarValue, Variables};

/// How much work one match may do before it gives up: one unit per byte scanned for the
/// boundaries of an expression, per candidate split considered and per byte decoded. An
/// ordinary match of an 8 KiB URI costs a few tens of thousands; without a bound on work (a
/// bound on splits alone is not one, as each split rescans and redecodes its text), adjacent
/// expressions on a long URI cost time quadratic in its length.
const WORK_BUDGET: usize = 1 << 18;

/// A variable bound during a match, in template order.
type Binding<'t> = (&'t str, VarValue);

pub(super) fn match_uri(template: &UriTemplate, uri: &str) -> Option<Variables> {
    let mut bindings = Vec::new();
    match template.query_start {
        None => {
            let mut strict = Strict::new(&template.parts, uri, EndRule::Exact);
            strict.run(&mut bindings)?;
        }
        Some(start) => {
            let (main_parts, query_parts) = template.parts.split_at(start);
            let query = if starts_with_query_operator(query_parts) {
                let (main, query) = match uri.split_once('?') {
                    Some((main, query)) => (main, Some(query)),
                    None => (uri, None),
                };
                Strict::new(main_parts, main, EndRule::Exact).run(&mut bindings)?;
                query
            } else {
                let end =
                    Strict::new(main_parts, uri, EndRule::BeforeAmpersand).run(&mut bindings)?;
                uri.get(end + 1..)
            };
            if !match_query(query_parts, query, &mut bindings) {
                return None;
            }
        }
    }
    let mut variables = Variables::new();
    for (name, value) in bindings {
        match variables.get(name) {
            Some(earlier) if *earlier != value => return None,
            Some(_) => {}
            None => variables.insert(name, value),
        }
    }
    Some(variables)
}

fn starts_with_query_operator(parts: &[Part]) -> bool {
    matches!(
        parts.first(),
        Some(Part::Expression(Expression {
            operator: Operator::Query,
            ..
        }))
    )
}

/// Where a strict match may end.
#[derive(Clone, Copy)]
enum EndRule {
    /// At the end of the text.
    Exact,
    /// At the end of the text or before a `&` (the order-free `{&...}` parameters follow).
    BeforeAmpersand,
}

/// Matches parts in template order with backtracking over the split points of expressions.
struct Strict<'t, 'u> {
    parts: &'t [Part],
    text: &'u str,
    end_rule: EndRule,
    /// Work done so far, against [`WORK_BUDGET`].
    work: usize,
}

impl<'t, 'u> Strict<'t, 'u> {
    fn new(parts: &'t [Part], text: &'u str, end_rule: EndRule) -> Self {
        Strict {
            parts,
            text,
            end_rule,
            work: 0,
        }
    }

    /// Matches all parts; returns where the match ended.
    fn run(&mut self, bindings: &mut Vec<Binding<'t>>) -> Option<usize> {
        self.match_from(0, 0, bindings)
    }

    fn end_ok(&self, position: usize) -> bool {
        match self.end_rule {
            EndRule::Exact => position == self.text.len(),
            EndRule::BeforeAmpersand => {
                position == self.text.len() || self.text[position..].starts_with('&')
            }
        }
    }

    fn match_from(
        &mut self,
        index: usize,
        position: usize,
        bindings: &mut Vec<Binding<'t>>,
    ) -> Option<usize> {
        let Some(part) = self.parts.get(index) else {
            return self.end_ok(position).then_some(position);
        };
        match part {
            Part::Literal(literal) => {
                if self.text[position..].starts_with(literal.as_str()) {
                    self.match_from(index + 1, position + literal.len(), bindings)
                } else {
                    None
                }
            }
            Part::Expression(expression) => {
                let next_literal = match self.parts.get(index + 1) {
                    Some(Part::Literal(literal)) => Some(literal.as_str()),
                    _ => None,
                };
                let is_last = index + 1 == self.parts.len();
                let boundaries = token_boundaries(&self.text[position..], expression.operator);
                self.work += boundaries.len();
                for &length in boundaries.iter().rev() {
                    self.work += 1;
                    if self.work > WORK_BUDGET {
                        return None;
                    }
                    let end = position + length;
                    let plausible = match next_literal {
                        Some(literal) => self.text[end..].starts_with(literal),
                        None => !is_last || self.end_ok(end),
                    };
                    if !plausible {
                        continue;
                    }
                    self.work += length;
                    if self.work > WORK_BUDGET {
                        return None;
                    }
                    let mark = bindings.len();
                    if decode_expression(expression, &self.text[position..end], bindings) {
                        if let Some(matched_end) = self.match_from(index + 1, end, bindings) {
                            return Some(matched_end);
                        }
                        if self.work > WORK_BUDGET {
                            return None;
                        }
                    }
                    bindings.truncate(mark);
                }
                None
            }
        }
    }
}

/// The lengths at which the text of an expression with this operator may end: after each
/// character that the expansion could have produced, never inside a `%XX` triplet.
fn token_boundaries(text: &str, operator: Operator) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut boundaries = vec![0];
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b'%' {
            if !is_triplet(&text[index..]) {
                break;
            }
            index += 3;
        } else if may_appear(byte, operator) {
            index += 1;
        } else {
            break;
        }
        boundaries.push(index);
    }
    #[cfg(test)]
    tests::examined(index);
    boundaries
}

/// Whether the expansion of an expression with this operator may hold `byte` unencoded.
fn may_appear(byte: u8, operator: Operator) -> bool {
    if is_unreserved(byte) || byte == b',' {
        return true;
    }
    match operator {
        Operator::Simple | Operator::Label => false,
        Operator::Reserved | Operator::Fragment => is_reserved(byte),
        Operator::PathSegment => byte == b'/',
        Operator::PathParameter => matches!(byte, b';' | b'='),
        Operator::Query | Operator::QueryContinuation => matches!(byte, b'?' | b'&' | b'='),
    }
}

/// Whether a variable of this operator must be present in the URI.
fn required(operator: Operator) -> bool {
    !matches!(operator, Operator::Query | Operator::QueryContinuation)
}

/// Reads the values of one expression from its text, appending them to `bindings`. Returns
/// false when the text does not have the expression's shape or a value fails a check.
fn decode_expression<'t>(
    expression: &'t Expression,
    raw: &str,
    bindings: &mut Vec<Binding<'t>>,
) -> bool {
    #[cfg(test)]
    tests::examined(raw.len());
    let operator = expression.operator;
    let variables = &expression.variables;
    if raw.is_empty() {
        return !required(operator);
    }
    let Some(body) = raw.strip_prefix(operator.first()) else {
        return false;
    };
    let separator = operator.separator();
    let items: Vec<&str> = body.split(separator).collect();
    let mut next = 0;
    for (index, spec) in variables.iter().enumerate() {
        let later = variables.len() - index - 1;
        if next >= items.len() {
            if required(operator) {
                return false;
            }
            continue;
        }
        let value = if spec.modifier == Modifier::Explode {
            let available = items.len() - next;
            let most = if required(operator) {
                available.saturating_sub(later)
            } else {
                available
            };
            let taken: Vec<&str> = items[next..next + most]
                .iter()
                .take_while(|item| !operator.named() || named_value(item, &spec.name).is_some())
                .copied()
                .collect();
            if taken.is_empty() {
                if required(operator) {
                    return false;
                }
                continue;
            }
            next += taken.len();
            let mut list = Vec::with_capacity(taken.len());
            for item in taken {
                let item = if operator.named() {
                    named_value(item, &spec.name).unwrap_or_default()
                } else {
                    item
                };
                match decode_value(item, operator, spec) {
                    Some(decoded) => list.push(decoded),
                    None => return false,
                }
            }
            VarValue::List(list)
        } else {
            let item = if separator == ',' && later == 0 {
                // The last variable of a comma-separated expression takes the rest: a list
                // expanded without `*` comes back as one string.
                let start = items[..next]
                    .iter()
                    .map(|item| item.len() + 1)
                    .sum::<usize>();
                next = items.len();
                &body[start..]
            } else {
                next += 1;
                items[next - 1]
            };
            let item = if operator.named() {
                match named_value(item, &spec.name) {
                    Some(value) => value,
                    None if required(operator) => return false,
                    None => {
                        next -= 1;
                        continue;
                    }
                }
            } else {
                item
            };
            match decode_value(item, operator, spec) {
                Some(decoded) => VarValue::String(decoded),
                None => return false,
            }
        };
        bindings.push((spec.name.as_str(), value));
    }
    next == items.len()
}

/// The value of `name=value` or `name` (empty) when the name is `name`.
fn named_value<'i>(item: &'i str, name: &str) -> Option<&'i str> {
    let rest = item.strip_prefix(name)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('=')
    }
}

/// Percent-decodes one value once and applies the safety checks of its operator.
fn decode_value(raw: &str, operator: Operator, spec: &VarSpec) -> Option<String> {
    let decoded: Cow<'_, str> = percent_decode_str(raw).decode_utf8().ok()?;
    if decoded.contains('\0') {
        return None;
    }
    if let Modifier::Prefix(length) = spec.modifier {
        if decoded.chars().count() > length {
            return None;
        }
    }
    let safe = match operator {
        Operator::Simple | Operator::Label | Operator::PathSegment | Operator::PathParameter => {
            !decoded.contains(['/', '\\']) && decoded != "." && decoded != ".."
        }
        Operator::Reserved | Operator::Fragment => {
            !decoded.split(['/', '\\']).any(|segment| segment == "..")
        }
        Operator::Query | Operator::QueryContinuation => true,
    };
    safe.then(|| decoded.into_owned())
}

/// Matches the order-free query parameters of the trailing `{?...}`/`{&...}` expressions.
fn match_query<'t>(
    parts: &'t [Part],
    query: Option<&str>,
    bindings: &mut Vec<Binding<'t>>,
) -> bool {
    let pairs: Vec<(&str, &str)> = query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    for part in parts {
        let Part::Expression(expression) = part else {
            continue;
        };
        for spec in &expression.variables {
            if seen.contains(&spec.name.as_str()) {
                continue;
            }
            seen.push(&spec.name);
            let mut found = pairs
                .iter()
                .filter(|(name, _)| *name == spec.name)
                .map(|(_, value)| decode_value(value, expression.operator, spec));
            let value = if spec.modifier == Modifier::Explode {
                let values: Option<Vec<String>> = found.collect();
                match values {
                    None => return false,
                    Some(values) if values.is_empty() => continue,
                    Some(values) => VarValue::List(values),
                }
            } else {
                match (found.next(), found.next()) {
                    (None, _) => continue,
                    (Some(Some(value)), None) => VarValue::String(value),
                    (Some(None), _) | (Some(_), Some(_)) => return false,
                }
            };
            bindings.push((spec.name.as_str(), value));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::super::UriTemplate;

    thread_local! {
        /// Bytes looked at by boundary scans and decodes on this thread: the work of a match.
        static EXAMINED: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn examined(bytes: usize) {
        EXAMINED.with(|examined| examined.set(examined.get() + bytes));
    }

    /// The bytes examined while matching `uri` against `template`, and the answer.
    fn work_of(template: &str, uri: &str) -> (usize, bool) {
        let template = UriTemplate::parse(template).expect("test template parses");
        EXAMINED.with(|examined| examined.set(0));
        let matched = template.match_uri(uri).is_some();
        (EXAMINED.with(Cell::get), matched)
    }

    #[test]
    fn hostile_input_costs_bounded_work() {
        // Adjacent expressions before a literal that never comes: every split of the text is a
        // candidate, and each candidate used to be scanned and decoded again (quadratic work,
        // seconds for one 8 KiB URI).
        let plain = format!("x://{}", "a".repeat(3000));
        let commas = format!("x://{}", "a,".repeat(1500));
        for (template, uri) in [
            ("x://{a}{b}x", &plain),
            ("x://{a*}{b*}x", &commas),
            ("x://{+a}{+b}{+c}x", &plain),
            ("x://{a}{b}{c}{d}{e}{f}{g}{h}x", &plain),
        ] {
            let (work, matched) = work_of(template, uri);
            assert!(!matched, "{template}");
            assert!(
                work <= 2 * super::WORK_BUDGET,
                "{template} examined {work} bytes, over twice the budget of {}",
                super::WORK_BUDGET
            );
        }
    }

    #[test]
    fn long_ordinary_uris_still_match_within_the_budget() {
        let long = format!("file:///{}", "a/".repeat(3500));
        let deep = format!("file:///{}name.md", "dir/".repeat(1500));
        let query = format!("db://{}/rows?{}", "t".repeat(4000), "x=1&".repeat(500));
        for (template, uri) in [
            ("file:///{+path}", &long),
            ("file:///{+dir}/{name}.{ext}", &deep),
            ("file:///{+dir}/{name}.md", &deep),
            ("db://{table}/rows{?x*}", &query),
        ] {
            assert!(work_of(template, uri).1, "{template}");
        }
    }
}
