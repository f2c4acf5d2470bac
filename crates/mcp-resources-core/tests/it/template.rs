//! URI templates: parsing errors, expansion (the RFC 6570 examples), matching, its safety checks,
//! the template index, and round-trip properties.

use std::path::PathBuf;

use mcp_resources_core::template::{TemplateIndex, UriTemplate, VarValue, Variables};
use mcp_resources_core::uri::ResourceUri;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Helpers.

fn template(text: &str) -> UriTemplate {
    UriTemplate::parse(text).unwrap_or_else(|error| panic!("{text:?} does not parse: {error}"))
}

/// `a="x" b=["y", "z"]`, in name order, or `no match`.
fn render(variables: Option<Variables>) -> String {
    let Some(variables) = variables else {
        return "no match".to_owned();
    };
    variables
        .iter()
        .map(|(name, value)| match value {
            VarValue::String(text) => format!("{name}={text:?}"),
            VarValue::List(items) => format!("{name}={items:?}"),
            VarValue::Map(pairs) => format!("{name}={pairs:?}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The folder of the RFC 6570 test data, or `None` (after a loud warning) when it is missing.
fn uritemplate_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MCP_URITEMPLATE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/uritemplate"
        )),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("RFC 6570 test data not found at {}", dir.display());
    }
    eprintln!(
        "WARNING: RFC 6570 test data not found at {}; skipping (set MCP_URITEMPLATE_DIR)",
        dir.display()
    );
    None
}

fn json_to_value(value: &serde_json::Value) -> Option<VarValue> {
    let scalar = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match value {
        serde_json::Value::Null => None,
        serde_json::Value::Array(items) => Some(VarValue::List(items.iter().map(scalar).collect())),
        serde_json::Value::Object(map) => Some(VarValue::Map(
            map.iter()
                .map(|(key, value)| (key.clone(), scalar(value)))
                .collect(),
        )),
        other => Some(VarValue::String(scalar(other))),
    }
}

// ---------------------------------------------------------------------------------------------
// The RFC's own examples.

#[test]
fn rfc6570_examples_expand() {
    let Some(dir) = uritemplate_dir() else {
        return;
    };
    let files = ["spec-examples.json", "spec-examples-by-section.json"];
    let mut cases = 0;
    let mut passed = 0;
    let mut matchable = 0;
    let mut matched = 0;
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(dir.join(file)).expect("readable test data");
        let groups: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&text).expect("valid JSON");
        for (group_name, group) in &groups {
            let mut variables = Variables::new();
            for (name, value) in group["variables"].as_object().expect("variables object") {
                if let Some(value) = json_to_value(value) {
                    variables.insert(name.clone(), value);
                }
            }
            for case in group["testcases"].as_array().expect("testcases array") {
                cases += 1;
                let text = case[0].as_str().expect("template string");
                let accepted: Vec<&str> = match &case[1] {
                    serde_json::Value::String(one) => vec![one.as_str()],
                    serde_json::Value::Array(many) => many
                        .iter()
                        .map(|one| one.as_str().expect("string"))
                        .collect(),
                    other => panic!("{file} {group_name} {text}: unexpected expectation {other}"),
                };
                let template = template(text);
                let expanded = template.expand(&variables);
                if accepted.contains(&expanded.as_str()) {
                    passed += 1;
                } else {
                    failures.push(format!(
                        "{file} {group_name} {text}: got {expanded:?}, want {accepted:?}"
                    ));
                }
                if let Some(expected) = well_defined_match(&template, &variables) {
                    matchable += 1;
                    let actual = template.match_uri(&expanded);
                    if actual.as_ref() == Some(&expected) {
                        matched += 1;
                    } else {
                        failures.push(format!(
                            "{file} {group_name} {text}: matching {expanded:?} gave {}, want {}",
                            render(actual),
                            render(Some(expected))
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "rfc 6570 examples: {passed} of {cases} expansions pass; {matched} of {matchable} well-defined matches give the variables back"
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
    assert_eq!(passed, cases);
    assert_eq!(cases, 181, "the two files hold 64 + 117 cases");
    assert_eq!(matched, matchable);
    assert!(matchable >= 50, "only {matchable} examples were matchable");
}

/// The variables a match of the expansion must give back, when that is well-defined: every
/// variable of the template is a non-empty string without a modifier, no two expressions are
/// adjacent, reserved expansion has no `%` or `,` to confuse, and segment-bound operators get no
/// `/`.
fn well_defined_match(template: &UriTemplate, variables: &Variables) -> Option<Variables> {
    let text = template.as_str();
    // Adjacent expressions such as `{+path}{var}` split by the documented preference, which
    // need not be the split the values were expanded from.
    if text.contains(['*', ':']) || text.contains("}{") {
        return None;
    }
    let reserved = text.contains("{+") || text.contains("{#");
    let mut expected = Variables::new();
    for name in template.variable_names() {
        let value = variables.get_str(name)?;
        if value.is_empty() || (reserved && value.contains([',', '%'])) {
            return None;
        }
        if !reserved && !text.contains("{?") && !text.contains("{&") && value.contains('/') {
            return None;
        }
        expected.insert(name, value);
    }
    Some(expected)
}

// ---------------------------------------------------------------------------------------------
// Parsing.

#[track_caller]
fn check_parse(input: &str, expect: &str) {
    let actual = match UriTemplate::parse(input) {
        Ok(template) => format!(
            "ok: {}",
            template.variable_names().collect::<Vec<_>>().join(",")
        ),
        Err(error) => format!("error: {error}"),
    };
    assert_eq!(actual, expect, "template: {input:?}");
}

#[test]
fn parse_errors_and_names() {
    let table = [
        ("file:///{+path}{?rev,at}", "ok: path,rev,at"),
        ("{a}{b}{a}", "ok: a,b"),
        ("{var:3}{list*}{%41.b_1}", "ok: var,list,%41.b_1"),
        ("plain", "ok: "),
        (
            "file:///{path",
            "error: unclosed expression: the `{` at byte 8 has no matching `}`",
        ),
        (
            "file:///{a{b}}",
            "error: nested `{` at byte 10 inside an expression",
        ),
        ("file:///a}", "error: unmatched `}` at byte 9"),
        ("x{}", "error: empty expression `{}` at byte 1"),
        (
            "{-x}",
            "error: invalid operator '-' at byte 1 (expected one of + # . / ; ? & or a variable name)",
        ),
        (
            "{=x}",
            "error: operator '=' at byte 1 is reserved by rfc 6570 and not supported",
        ),
        (
            "{|x}",
            "error: operator '|' at byte 1 is reserved by rfc 6570 and not supported",
        ),
        ("{a-b}", "error: invalid variable name \"a-b\" at byte 1"),
        ("{?a,}", "error: invalid variable name \"\" at byte 4"),
        ("{.a..b}", "error: invalid variable name \"a..b\" at byte 2"),
        ("{+}", "error: invalid variable name \"\" at byte 2"),
        ("{a*b}", "error: invalid variable name \"a*b\" at byte 1"),
        (
            "{x,a:0}",
            "error: invalid prefix modifier \":0\" at byte 4 (expected `:` and a length from 1 to 9999)",
        ),
        (
            "{a:10000}",
            "error: invalid prefix modifier \":10000\" at byte 2 (expected `:` and a length from 1 to 9999)",
        ),
        (
            "{a:}",
            "error: invalid prefix modifier \":\" at byte 2 (expected `:` and a length from 1 to 9999)",
        ),
        (
            "{a:3*}",
            "error: invalid prefix modifier \":3*\" at byte 2 (expected `:` and a length from 1 to 9999)",
        ),
        (
            "a\tb{x}",
            "error: control character 0x09 at byte 1 in the template",
        ),
        (
            "50%{x}",
            "error: malformed percent-encoding at byte 2 (expected % and two hex digits)",
        ),
    ];
    for (input, expect) in table {
        check_parse(input, expect);
    }
}

#[test]
fn template_accessors() {
    let parsed = template("file:///caf\u{e9}/{+path}");
    assert_eq!(parsed.as_str(), "file:///caf\u{e9}/{+path}");
    assert_eq!(parsed.to_string(), parsed.as_str());
    assert_eq!(parsed.literal_prefix(), "file:///caf%C3%A9/");
    assert_eq!(template("{x}/a").literal_prefix(), "");
    assert_eq!(
        template("db://t/{id}?x=%2f").literal_len(),
        "db://t/?x=%2F".len()
    );
    assert_eq!(template("a{b}").clone(), template("a{b}"));
}

// ---------------------------------------------------------------------------------------------
// Expansion beyond the RFC's examples.

#[track_caller]
fn check_expand(input: &str, variables: &[(&str, VarValue)], expect: &str) {
    let variables: Variables = variables.iter().cloned().collect();
    assert_eq!(
        template(input).expand(&variables),
        expect,
        "template: {input:?}"
    );
}

fn s(text: &str) -> VarValue {
    VarValue::String(text.to_owned())
}

fn list(items: &[&str]) -> VarValue {
    VarValue::from(items.to_vec())
}

/// A template, its variables and the expected expansion.
type ExpansionCase<'a> = (&'a str, &'a [(&'a str, VarValue)], &'a str);

#[test]
fn expansion() {
    let table: &[ExpansionCase<'_>] = &[
        (
            "file:///{+path}",
            &[("path", s("a b/c%2Fd/50%"))],
            "file:///a%20b/c%2Fd/50%25",
        ),
        ("file:///{path}", &[("path", s("a/b"))], "file:///a%2Fb"),
        (
            "{x}",
            &[("x", s("caf\u{e9}\u{1f600}"))],
            "caf%C3%A9%F0%9F%98%80",
        ),
        ("{x:2}", &[("x", s("\u{e9}\u{e9}\u{e9}"))], "%C3%A9%C3%A9"),
        ("{?a,b}", &[], ""),
        ("{?a,b}", &[("b", s("2"))], "?b=2"),
        ("{/list*}", &[("list", list(&[]))], ""),
        ("{;list*}", &[("list", list(&["a", ""]))], ";list=a;list"),
        (
            "{?m*}",
            &[("m", VarValue::from(vec![("k", ""), ("j", "1")]))],
            "?k=&j=1",
        ),
        ("caf\u{e9} {x}", &[("x", s("1"))], "caf%C3%A9%201"),
        ("a%2fb%7E{x}", &[("x", s("1"))], "a%2Fb~1"),
    ];
    for (input, variables, expect) in table {
        check_expand(input, variables, expect);
    }
}

// ---------------------------------------------------------------------------------------------
// Matching.

#[track_caller]
fn check_match(input: &str, uri: &str, expect: &str) {
    assert_eq!(
        render(template(input).match_uri(uri)),
        expect,
        "template {input:?} against {uri:?}"
    );
}

#[test]
fn matching() {
    let table = [
        // Simple variables stay inside one segment.
        ("db://users/{id}", "db://users/42", r#"id="42""#),
        ("db://users/{id}", "db://users/", "no match"),
        ("db://users/{id}", "db://users/4/2", "no match"),
        ("db://users/{id}", "db://users/a%20b", r#"id="a b""#),
        (
            "db://users/{id}/posts/{post}",
            "db://users/7/posts/9",
            r#"id="7" post="9""#,
        ),
        ("db://{a}{b}", "db://xyz", r#"a="xy" b="z""#),
        (
            "file:///{name}{.ext}",
            "file:///archive.tar.gz",
            r#"ext="gz" name="archive.tar""#,
        ),
        ("{x,y}", "1024,768", r#"x="1024" y="768""#),
        ("{x,y}", "a,b,c", r#"x="a" y="b,c""#),
        ("{list}", "red,green,blue", r#"list="red,green,blue""#),
        (
            "{list*}",
            "red,green,blue",
            r#"list=["red", "green", "blue"]"#,
        ),
        ("{var:3}", "val", r#"var="val""#),
        ("{var:3}", "valu", "no match"),
        // Reserved and fragment expansion span slashes.
        ("file:///{+path}", "file:///a/b/c.md", r#"path="a/b/c.md""#),
        ("file:///{+path}/raw", "file:///a/b/raw", r#"path="a/b""#),
        ("{+base}x", "http://h/a?b=c x", "no match"),
        ("{#frag}", "#a/b,c", r#"frag="a/b,c""#),
        ("x{#frag}", "x", "no match"),
        // Label, path segment and path-style parameters.
        ("X{.var}", "X.value", r#"var="value""#),
        ("X{.list*}", "X.red.green", r#"list=["red", "green"]"#),
        ("{/var}", "/value", r#"var="value""#),
        ("{/var}", "/a/b", "no match"),
        (
            "{/var,x}/here",
            "/value/1024/here",
            r#"var="value" x="1024""#,
        ),
        (
            "file://{/path*}",
            "file:///a/b/c",
            r#"path=["a", "b", "c"]"#,
        ),
        ("{;x,y}", ";x=1024;y=768", r#"x="1024" y="768""#),
        (
            "{;x,y,empty}",
            ";x=1024;y=768;empty",
            r#"empty="" x="1024" y="768""#,
        ),
        ("{;x,y}", ";y=768;x=1024", "no match"),
        (
            "{;list*}",
            ";list=red;list=green",
            r#"list=["red", "green"]"#,
        ),
        // A name given twice must agree.
        ("{a}/{a}", "x/x", r#"a="x""#),
        ("{a}/{a}", "x/y", "no match"),
        // Literals are compared with the URI as written.
        ("db://t/{id}", "DB://t/1", "no match"),
        ("file:///caf\u{e9}/{x}", "file:///caf%C3%A9/1", r#"x="1""#),
    ];
    for (input, uri, expect) in table {
        check_match(input, uri, expect);
    }
}

#[test]
fn query_parameters_are_optional_unordered_and_open() {
    let table = [
        ("db://t{?a,b}", "db://t?a=1&b=2", r#"a="1" b="2""#),
        ("db://t{?a,b}", "db://t?b=2&a=1", r#"a="1" b="2""#),
        ("db://t{?a,b}", "db://t?b=2", r#"b="2""#),
        ("db://t{?a,b}", "db://t", ""),
        ("db://t{?a,b}", "db://t?", ""),
        ("db://t{?a,b}", "db://t?zz=9&a=1&yy", r#"a="1""#),
        ("db://t{?a,b}", "db://t?a&b=", r#"a="" b="""#),
        ("db://t{?a,b}", "db://t?a=1&a=2", "no match"),
        ("db://t{?a*}", "db://t?a=1&b=0&a=2", r#"a=["1", "2"]"#),
        ("db://t{?a}", "db://t?a=x%2Fy/z&a2=1", r#"a="x/y/z""#),
        ("db://t{?a}", "db://t?a=1+2", r#"a="1+2""#),
        ("db://t{?a}", "db://t?a=%00", "no match"),
        ("db://t{?a:2}", "db://t?a=abc", "no match"),
        ("db://t{?a}{&b}", "db://t?b=2&a=1", r#"a="1" b="2""#),
        (
            "db://t/{id}{?fields}",
            "db://t/7?fields=name,age",
            r#"fields="name,age" id="7""#,
        ),
        ("db://t/{id}{?fields}", "db://t/?fields=x", "no match"),
        (
            "file:///{+path}{?rev}",
            "file:///a/b?rev=3",
            r#"path="a/b" rev="3""#,
        ),
        ("file:///{+path}{?rev}", "file:///a/b?x=1", r#"path="a/b""#),
        // Literal query text first, as written; the `{&...}` parameters after it in any order.
        (
            "db://q?fixed=yes{&x,y}",
            "db://q?fixed=yes&y=2&x=1",
            r#"x="1" y="2""#,
        ),
        ("db://q?fixed=yes{&x,y}", "db://q?fixed=yes", ""),
        ("db://q?fixed=yes{&x,y}", "db://q?fixed=no&x=1", "no match"),
        ("db://q?fixed=yes{&x,y}", "db://q?x=1&fixed=yes", "no match"),
        // Query expressions not at the end are matched strictly, in order.
        ("db://t{?a}/x", "db://t?a=1/x", r#"a="1""#),
        ("db://t{?a}/x", "db://t/x", ""),
    ];
    for (input, uri, expect) in table {
        check_match(input, uri, expect);
    }
}

#[test]
fn safety_checks_after_decoding() {
    let table = [
        // Regression: traversal through a decoded `..%2F` in a simple variable.
        ("file:///{path}", "file:///..%2Fetc%2Fpasswd", "no match"),
        ("file:///{path}", "file:///a%2Fb", "no match"),
        ("file:///{path}", "file:///a%5Cb", "no match"),
        ("file:///{path}", "file:///..", "no match"),
        ("file:///{path}", "file:///%2E%2E", "no match"),
        ("file:///{path}", "file:///.", "no match"),
        ("file:///{path}", "file:///...", r#"path="...""#),
        ("file:///{path}", "file:///a%00", "no match"),
        // Regression: reserved expansion never yields a `..` segment.
        ("file:///{+path}", "file:///a/../etc/passwd", "no match"),
        ("file:///{+path}", "file:///../etc/passwd", "no match"),
        ("file:///{+path}", "file:///a/%2E%2E/b", "no match"),
        ("file:///{+path}", "file:///a/..%2Fb", "no match"),
        ("file:///{+path}", "file:///a\\..\\b", "no match"),
        (
            "file:///{+path}",
            "file:///a/..b/c..",
            r#"path="a/..b/c..""#,
        ),
        ("file:///{+path}", "file:///a/%2e%2e", "no match"),
        ("file://{/path*}", "file:///a/../b", "no match"),
        ("file://{/path*}", "file:///a/%2F/b", "no match"),
        ("file:///x{.ext}", "file:///x.%2E", "no match"),
        ("{;x}", ";x=..", "no match"),
        // Decoding happens exactly once.
        ("db://t/{id}", "db://t/%2541", r#"id="%41""#),
        ("db://t/{+id}", "db://t/%2541", r#"id="%41""#),
        ("db://t{?id}", "db://t?id=%2541", r#"id="%41""#),
        // Values must be UTF-8.
        ("db://t/{id}", "db://t/%FF", "no match"),
        ("db://t/{id}", "db://t/%C3%A9", r#"id="é""#),
    ];
    for (input, uri, expect) in table {
        check_match(input, uri, expect);
    }
}

#[test]
fn hostile_input_is_bounded() {
    // Many adjacent expressions and a long URI: matching gives up after its step budget instead
    // of trying every split.
    let hostile = template("{a}{b}{c}{d}{e}{f}{g}{h}!");
    let uri = "x".repeat(2000);
    assert_eq!(hostile.match_uri(&uri), None);
    // A long URI against an ordinary template is fine.
    let long = format!("file:///{}", "a/".repeat(3000));
    assert!(template("file:///{+path}").match_uri(&long).is_some());
}

// ---------------------------------------------------------------------------------------------
// The index.

#[track_caller]
fn check_find(index: &TemplateIndex<&'static str>, uri: &str, expect: &str) {
    let actual = match index.find(uri) {
        Some((template, value, variables)) => {
            format!("{value} {} {}", template.as_str(), render(Some(variables)))
        }
        None => "none".to_owned(),
    };
    assert_eq!(actual, expect, "uri: {uri:?}");
}

#[test]
fn index_order() {
    let mut index = TemplateIndex::new();
    for (text, value) in [
        ("file:///{+path}", "any-file"),
        ("file:///docs/{+path}", "docs"),
        ("db://{table}/{+rest}", "db-rest"),
        ("db://{table}/rows/{id}", "db-row"),
        ("db://{table}/rows/{id}", "db-row-again"),
        ("{+anything}", "fallback"),
        ("file:///docs/{name}", "docs-flat"),
    ] {
        index.insert(template(text), value);
    }
    assert_eq!(index.len(), 7);
    assert!(!index.is_empty());
    let registered: Vec<&str> = index.iter().map(|(_, value)| *value).collect();
    assert_eq!(
        registered,
        [
            "any-file",
            "docs",
            "db-rest",
            "db-row",
            "db-row-again",
            "fallback",
            "docs-flat"
        ]
    );
    let table = [
        // Longest literal prefix first.
        (
            "file:///docs/a/b.md",
            r#"docs file:///docs/{+path} path="a/b.md""#,
        ),
        (
            "file:///src/main.rs",
            r#"any-file file:///{+path} path="src/main.rs""#,
        ),
        // Same prefix: more literal characters first, then registration order.
        (
            "file:///docs/a.md",
            r#"docs file:///docs/{+path} path="a.md""#,
        ),
        (
            "db://users/rows/7",
            r#"db-row db://{table}/rows/{id} id="7" table="users""#,
        ),
        (
            "db://users/cols/7",
            r#"db-rest db://{table}/{+rest} rest="cols/7" table="users""#,
        ),
        // A template with an empty prefix is tried last.
        ("git://x", r#"fallback {+anything} anything="git://x""#),
        // Shorter prefixes are still tried when longer ones fail to match.
        ("file:///docs/../x", "none"),
    ];
    for (uri, expect) in table {
        check_find(&index, uri, expect);
    }
    let empty: TemplateIndex<()> = TemplateIndex::new();
    assert!(empty.is_empty());
    assert!(empty.find("file:///x").is_none());
}

#[test]
fn index_of_many_templates() {
    let mut index = TemplateIndex::new();
    for table in 0..2000 {
        index.insert(template(&format!("db://table{table}/{{id}}")), table);
    }
    let (found, table, variables) = index.find("db://table1234/99").expect("match");
    assert_eq!((found.as_str(), *table), ("db://table1234/{id}", 1234));
    assert_eq!(variables.get_str("id"), Some("99"));
    assert!(index.find("db://table2000/1").is_none());
    assert!(index.find("db://table12/a/b").is_none());
}

/// Reserved expansion leaves `[` and `]` as they are (RFC 6570 section 3.2.3); the URI it
/// gives is taken, in its canonical form with `%5B` and `%5D`, and matches back.
#[test]
fn reserved_expansion_with_brackets_reads_back_through_the_canonical_form() {
    let parsed = template("file:///r/{+path}{?offset,length}");
    let mut variables = Variables::new();
    variables.insert("path", "app/[slug]/page.tsx");
    let expanded = parsed.expand(&variables);
    assert_eq!(expanded, "file:///r/app/[slug]/page.tsx");
    let canonical = ResourceUri::parse(&expanded).unwrap();
    assert_eq!(canonical.as_str(), "file:///r/app/%5Bslug%5D/page.tsx");
    assert_eq!(
        parsed.match_uri(canonical.as_str()),
        Some(variables.clone())
    );
    variables.insert("offset", "2");
    let ranged = ResourceUri::parse(&parsed.expand(&variables)).unwrap();
    assert_eq!(
        ranged.as_str(),
        "file:///r/app/%5Bslug%5D/page.tsx?offset=2"
    );
    assert_eq!(parsed.match_uri(ranged.as_str()), Some(variables));
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// Values with reserved characters, `%`, unicode and slashes.
fn value(allow_slash: bool) -> impl Strategy<Value = String> {
    let slash = if allow_slash { "/" } else { "" };
    proptest::string::string_regex(&format!(
        "[a-zA-Z0-9\\-._~:?#\\[\\]@!$&'()*+,;=% é😀{slash}]{{1,12}}"
    ))
    .expect("valid regex")
}

fn segment_safe(text: &str) -> bool {
    !text.contains(['/', '\\']) && text != "." && text != ".."
}

fn spanning_safe(text: &str) -> bool {
    !text.split(['/', '\\']).any(|segment| segment == "..")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every operator that encodes what it expands gives its variables back.
    #[test]
    fn expand_then_match_encoding_operators(
        operator in prop::sample::select(vec!["", ".", "/", ";", "?", "&"]),
        a in value(false),
        b in value(false),
    ) {
        prop_assume!(operator != "." || !(a.contains('.') || b.contains('.')));
        let text = format!("db://x/{{{operator}a,b}}");
        let parsed = template(&text);
        let variables: Variables = [("a", a.clone()), ("b", b.clone())].into_iter().collect();
        let expanded = parsed.expand(&variables);
        let matched = parsed.match_uri(&expanded);
        if segment_safe(&a) && segment_safe(&b) || matches!(operator, "?" | "&") {
            prop_assert_eq!(matched, Some(variables), "{} expanded to {}", text, expanded);
        } else {
            prop_assert_eq!(matched, None);
        }
    }

    /// Reserved and fragment expansion give back any value without `%`, `..` segments or (with
    /// two variables) commas.
    #[test]
    fn expand_then_match_reserved_operators(
        operator in prop::sample::select(vec!["+", "#"]),
        path in value(true).prop_filter("no %", |text| !text.contains('%')),
    ) {
        let parsed = template(&format!("file:///{{{operator}path}}"));
        let variables: Variables = [("path", path.clone())].into_iter().collect();
        let expanded = parsed.expand(&variables);
        let matched = parsed.match_uri(&expanded);
        if spanning_safe(&path) {
            prop_assert_eq!(matched, Some(variables), "expanded to {}", expanded);
        } else {
            prop_assert_eq!(matched, None);
        }
    }

    /// What the engine matches is the canonical form of what a client sends: a reserved
    /// expansion (brackets and all) parses as a resource URI, and its canonical form gives the
    /// value back. Values are those a URI can carry as a path: no `%` (copied as a triplet), `?`
    /// or `#` (they start a query or a fragment), and no dot segment (canonicalization removes
    /// it).
    #[test]
    fn canonical_reserved_expansion_matches_back(
        path in value(true).prop_filter("a plain path", |text| {
            !text.contains(['%', '?', '#'])
                && !text.split('/').any(|segment| segment == "." || segment == "..")
        }),
    ) {
        let parsed = template("file:///r/{+path}{?offset,length}");
        let variables: Variables = [("path", path.clone())].into_iter().collect();
        let expanded = parsed.expand(&variables);
        let canonical = ResourceUri::parse(&expanded);
        prop_assert!(canonical.is_ok(), "{} does not parse: {:?}", expanded, canonical);
        let canonical = canonical.unwrap();
        prop_assert_eq!(parsed.match_uri(canonical.as_str()), Some(variables), "{}", canonical);
    }

    /// Exploded lists come back as lists, for every operator.
    #[test]
    fn expand_then_match_exploded_lists(
        operator in prop::sample::select(vec!["", ".", "/", ";", "?", "&"]),
        items in prop::collection::vec(value(false), 1..4),
    ) {
        prop_assume!(operator != "." || !items.iter().any(|item| item.contains('.')));
        let text = format!("db://x/{{{operator}list*}}");
        let parsed = template(&text);
        let variables: Variables = [("list", VarValue::List(items.clone()))].into_iter().collect();
        let expanded = parsed.expand(&variables);
        let matched = parsed.match_uri(&expanded);
        if items.iter().all(|item| segment_safe(item)) || matches!(operator, "?" | "&") {
            prop_assert_eq!(matched, Some(variables), "{} expanded to {}", text, expanded);
        } else {
            prop_assert_eq!(matched, None);
        }
    }

    /// A path, an optional query, in any order, with extra parameters: all come back.
    #[test]
    fn expand_then_match_path_and_shuffled_query(
        path in value(true).prop_filter("safe", |text| !text.contains(['%', '?']) && spanning_safe(text)),
        rev in prop::option::of(value(true)),
        at in prop::option::of(value(true)),
        swap in any::<bool>(),
    ) {
        let parsed = template("file:///{+path}{?rev,at}");
        let mut variables = Variables::new();
        variables.insert("path", path.clone());
        let mut query = Vec::new();
        for (name, value) in [("rev", &rev), ("at", &at)] {
            if let Some(value) = value {
                variables.insert(name, value.clone());
                query.push(template(&format!("{{&{name}}}")).expand(&variables));
            }
        }
        query.push("&other=1".to_owned());
        if swap {
            query.reverse();
        }
        let uri = format!("{}?{}", template("file:///{+path}").expand(&variables), &query.concat()[1..]);
        prop_assert_eq!(parsed.match_uri(&uri), Some(variables), "uri {}", uri);
    }

    /// Whatever the URI, a simple variable never matches a `/`, `\`, `.` or `..`, and a
    /// spanning one never a `..` segment.
    #[test]
    fn matched_values_are_safe(
        tail in "([a-z.]|%2[eEfF]|%5[cC]|/|\\.\\.){0,12}",
    ) {
        let uri = format!("file:///{tail}");
        if let Some(variables) = template("file:///{name}").match_uri(&uri) {
            let name = variables.get_str("name").expect("required variable");
            prop_assert!(segment_safe(name), "{:?}", name);
        }
        if let Some(variables) = template("file:///{+path}").match_uri(&uri) {
            let path = variables.get_str("path").expect("required variable");
            prop_assert!(spanning_safe(path), "{:?}", path);
        }
    }

    /// Arbitrary templates and URIs never make parsing, expansion or matching panic, and a match
    /// only binds variables the template names.
    #[test]
    fn arbitrary_input_never_panics(
        text in "([a-z0-9:/.;?&=,*%é]|\\{[+#./;?&]?[a-z]{1,2}(:[0-9]|\\*)?(,[a-z])?\\}){0,8}",
        uri in "[a-z0-9:/.;?&=,%é]{0,24}",
    ) {
        if let Ok(parsed) = UriTemplate::parse(&text) {
            let names: Vec<&str> = parsed.variable_names().collect();
            let all: Variables = names.iter().map(|name| (*name, "v")).collect();
            let _ = parsed.expand(&all);
            if let Some(variables) = parsed.match_uri(&uri) {
                for (name, _) in variables.iter() {
                    prop_assert!(names.contains(&name), "{} bound {}", text, name);
                }
            }
        }
    }

    /// Percent-decoding happens once: a `%25` followed by hex digits decodes to `%` and digits.
    #[test]
    fn decoding_happens_once(byte in any::<u8>()) {
        let uri = format!("db://t/%25{byte:02X}");
        let variables = template("db://t/{id}").match_uri(&uri).expect("matches");
        let expected = format!("%{byte:02X}");
        prop_assert_eq!(variables.get_str("id"), Some(expected.as_str()));
    }
}

// ---------------------------------------------------------------------------------------------
// Regressions: what users of other SDKs have reported.

/// Path traversal through a decoded `..%2F` in a simple variable, after canonicalization.
#[test]
fn regression_traversal_through_encoded_slash_in_simple_variable() {
    let uri = mcp_resources_core::uri::ResourceUri::parse("file:///..%2Fetc%2Fpasswd").unwrap();
    assert_eq!(uri.as_str(), "file:///..%2Fetc%2Fpasswd");
    assert_eq!(template("file:///{path}").match_uri(uri.as_str()), None);
    assert_eq!(
        template("file:///{path}").match_uri("file:///..%2fetc%2fpasswd"),
        None
    );
}

/// Reserved expansion must not hand a provider a path with `..` segments.
#[test]
fn regression_dot_dot_segments_in_reserved_variable() {
    assert_eq!(
        template("file:///{+path}").match_uri("file:///srv/../../etc/passwd"),
        None
    );
    assert_eq!(
        template("file:///root/{+path}").match_uri("file:///root/..%2F..%2Fetc"),
        None
    );
    // Canonicalization first removes the dot segments, and what is left is matched.
    let uri = mcp_resources_core::uri::ResourceUri::parse("file:///root/a/../b").unwrap();
    let variables = template("file:///root/{+path}")
        .match_uri(uri.as_str())
        .unwrap();
    assert_eq!(variables.get_str("path"), Some("b"));
}

/// Query parameters declared by the template are optional and may come in any order.
#[test]
fn regression_optional_unordered_query_parameters() {
    let search = template("db://customers{?name,city,limit}");
    let cases = [
        ("db://customers", vec![]),
        ("db://customers?limit=5", vec![("limit", "5")]),
        (
            "db://customers?city=Oslo&name=Ada",
            vec![("city", "Oslo"), ("name", "Ada")],
        ),
        (
            "db://customers?utm=x&limit=5&name=A%26B",
            vec![("limit", "5"), ("name", "A&B")],
        ),
    ];
    for (uri, expected) in cases {
        let expected: Variables = expected.into_iter().collect();
        assert_eq!(search.match_uri(uri), Some(expected), "uri {uri:?}");
    }
}

#[test]
fn variables_api() {
    let mut variables: Variables = [("b", "2")].into_iter().collect();
    variables.insert("a", vec!["x", "y"]);
    variables.insert("m", vec![("k", "v")]);
    variables.insert("b", String::from("3"));
    assert_eq!(variables.len(), 3);
    assert!(!variables.is_empty() && Variables::new().is_empty());
    assert_eq!(variables.get_str("b"), Some("3"));
    assert_eq!(variables.get_str("a"), None);
    assert_eq!(
        variables.get("a"),
        Some(&VarValue::List(vec!["x".into(), "y".into()]))
    );
    assert_eq!(variables.get("missing"), None);
    let names: Vec<&str> = variables.iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["a", "b", "m"]);
    let parsed: UriTemplate = "x{y}".parse().unwrap();
    assert_eq!(parsed.variable_names().collect::<Vec<_>>(), ["y"]);
}
