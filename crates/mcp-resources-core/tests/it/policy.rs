//! Access control: URI globs, grants per subject and scope, and how denials look to callers.

use std::sync::Arc;

use mcp_resources_core::engine::{EngineBuilder, FunctionTemplate, Limits};
use mcp_resources_core::error::ReadError;
use mcp_resources_core::policy::{
    Action, ActionSet, AllowAll, Grantee, PatternError, PatternPolicy, Policy, Principal,
    UriPattern,
};

use mcp_resources_core::resource::{Body, Contents, ResourceTemplate};
use mcp_resources_core::template::UriTemplate;

use crate::fixtures::{key, run, text_resource, uri};

/// Whether `pattern` matches `uri`.
fn check(pattern: &str, uri: &str, expect: bool) {
    let parsed = UriPattern::parse(pattern).unwrap();
    assert_eq!(
        parsed.matches(uri),
        expect,
        "pattern {pattern:?} against {uri:?}"
    );
}

#[test]
fn globs_match_within_and_across_segments() {
    let table = [
        ("file:///docs/a.md", "file:///docs/a.md", true),
        ("file:///docs/a.md", "file:///docs/a.mdx", false),
        ("file:///docs/*.md", "file:///docs/a.md", true),
        ("file:///docs/*.md", "file:///docs/.md", true),
        ("file:///docs/*.md", "file:///docs/x/a.md", false),
        ("file:///docs/*", "file:///docs/", true),
        ("file:///docs/*", "file:///docs/a/b", false),
        ("file:///docs/**", "file:///docs/", true),
        ("file:///docs/**", "file:///docs/a/b/c.txt", true),
        ("file:///docs/**", "file:///docsx/a", false),
        ("file:///docs/**", "file:///doc", false),
        ("file:///**/*.md", "file:///a/b/c.md", true),
        ("file:///**/*.md", "file:///c.md", false),
        ("file:///**.md", "file:///c.md", true),
        ("file:///**.md", "file:///a/b/c.md", true),
        ("file:///**.md", "file:///a/b/c.txt", false),
        ("*://*/x", "db://host/x", true),
        ("*://*/x", "db://host/y/x", false),
        ("db://*/rows/*", "db://prod/rows/17", true),
        ("db://*/rows/*", "db://prod/rows/17/x", false),
        ("**", "anything:at/all?q=1", true),
        (
            "*a*a*a*a*a*b",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            false,
        ),
        ("a**b**c", "a/x/b/y/c", true),
        ("a**b**c", "a/x/c/y/b", false),
    ];
    for (pattern, uri, expect) in table {
        check(pattern, uri, expect);
    }
}

#[test]
fn a_single_star_never_spans_an_encoded_separator() {
    // `%2F` and `%5C` stay encoded in canonical URIs, but `{+path}` decodes them into `/` and
    // `\`: a `*` that spanned them would grant a whole subtree under a one-segment pattern.
    let table = [
        ("file:///docs/*", "file:///docs/private%2Fsecret.md", false),
        ("file:///docs/*", "file:///docs/private%2fsecret.md", false),
        ("file:///docs/*", "file:///docs/a%5Cb", false),
        ("file:///docs/*.md", "file:///docs/x%2F.md", false),
        ("file:///docs/*", "file:///docs/a%20b", true),
        ("file:///docs/*", "file:///docs/a%252Fb", true),
        ("file:///docs/**", "file:///docs/private%2Fsecret.md", true),
        ("db://keys/a%2Fb", "db://keys/a%2Fb", true),
        ("db://keys/*%2F*", "db://keys/a%2Fb", true),
        ("db://keys/a%*", "db://keys/a%2Fb", false),
    ];
    for (pattern, uri, expect) in table {
        check(pattern, uri, expect);
    }
    let long = format!("file:///docs/{}*", "x".repeat(70));
    check(
        &long,
        &format!("file:///docs/{}a%2Fb", "x".repeat(70)),
        false,
    );
    check(&long, &format!("file:///docs/{}ab", "x".repeat(70)), true);
}

#[test]
fn a_one_segment_grant_does_not_reach_a_decoded_subpath() {
    let policy = PatternPolicy::new().grant(
        Grantee::Anyone,
        ActionSet::READ_ONLY,
        pattern("file:///docs/*"),
    );
    let template =
        ResourceTemplate::new(UriTemplate::parse("file:///docs/{+path}").unwrap(), "docs");
    let engine = EngineBuilder::new(key())
        .policy(Arc::new(policy))
        .template(FunctionTemplate::new(template, |uri, variables| {
            let path = variables.get_str("path").unwrap_or_default().to_owned();
            let contents = Contents::text(uri.clone(), path);
            async move { Ok(vec![contents]) }
        }))
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let read = run(engine.read(&anyone, &uri("file:///docs/readme.md"))).unwrap();
    assert_eq!(read.contents[0].body, Body::Text("readme.md".into()));
    let sneaky = run(engine.read(&anyone, &uri("file:///docs/private%2Fsecret.md")));
    assert!(
        matches!(sneaky, Err(ReadError::NotFound { .. })),
        "{sneaky:?}"
    );
}

#[test]
fn long_patterns_match_like_short_ones() {
    let segment = "abcdefghij".repeat(8);
    let pattern = format!("db://*/{segment}/**/{segment}*");
    check(
        &pattern,
        &format!("db://host/{segment}/x/y/{segment}.txt"),
        true,
    );
    check(&pattern, &format!("db://host/{segment}//{segment}"), true);
    check(&pattern, &format!("db://host/{segment}/{segment}"), false);
    check(&pattern, &format!("db://h/o/{segment}/x/{segment}"), false);
    check(
        &pattern,
        &format!("db://host/{segment}/x/{segment}/more"),
        false,
    );
}

#[test]
fn bad_patterns_are_rejected() {
    assert_eq!(UriPattern::parse(""), Err(PatternError::Empty));
    assert_eq!(
        UriPattern::parse("file:///***"),
        Err(PatternError::TooManyStars {
            pattern: "file:///***".into(),
            at: 8
        })
    );
    let error = UriPattern::parse("a****").unwrap_err();
    assert!(error.to_string().contains("three or more `*`"), "{error}");
}

fn pattern(text: &str) -> UriPattern {
    UriPattern::parse(text).unwrap()
}

fn sample_policy() -> PatternPolicy {
    PatternPolicy::new()
        .grant(Grantee::Anyone, Action::List, pattern("file:///public/**"))
        .grant(Grantee::Anyone, Action::Read, pattern("file:///public/**"))
        .grant(
            Grantee::Subject("alice".into()),
            ActionSet::ALL,
            pattern("file:///home/alice/**"),
        )
        .grant(
            Grantee::Scope("docs:read".into()),
            ActionSet::READ_ONLY,
            pattern("file:///docs/**"),
        )
}

/// Whether the sample policy lets `principal` do `action` on `uri`.
fn check_grant(principal: &Principal, action: Action, uri_text: &str, expect: bool) {
    let decision = sample_policy().allows(principal, action, &uri(uri_text));
    assert_eq!(decision, expect, "{principal:?} {action:?} {uri_text}");
}

#[test]
fn grants_apply_per_subject_scope_and_action() {
    let anyone = Principal::anonymous();
    let alice = Principal::subject("alice");
    let bob = Principal::subject("bob").with_scope("docs:read");
    let table = [
        (&anyone, Action::List, "file:///public/a", true),
        (&anyone, Action::Read, "file:///public/a", true),
        (&anyone, Action::Subscribe, "file:///public/a", false),
        (&anyone, Action::Complete, "file:///public/a", false),
        (&anyone, Action::Read, "file:///home/alice/x", false),
        (&alice, Action::Read, "file:///home/alice/x", true),
        (&alice, Action::Subscribe, "file:///home/alice/x", true),
        (&alice, Action::Read, "file:///home/bob/x", false),
        (&alice, Action::Read, "file:///docs/guide", false),
        (&alice, Action::Read, "file:///public/a", true),
        (&bob, Action::Read, "file:///docs/guide", true),
        (&bob, Action::Complete, "file:///docs/guide", true),
        (&bob, Action::Subscribe, "file:///docs/guide", false),
        (&bob, Action::Read, "file:///home/alice/x", false),
    ];
    for (principal, action, uri_text, expect) in table {
        check_grant(principal, action, uri_text, expect);
    }
}

#[test]
fn a_subject_claim_is_not_a_scope_and_a_scope_is_not_a_subject() {
    let subject_named_like_scope = Principal::subject("docs:read");
    check_grant(
        &subject_named_like_scope,
        Action::Read,
        "file:///docs/guide",
        false,
    );
    let scope_named_like_subject = Principal::anonymous().with_scope("alice");
    check_grant(
        &scope_named_like_subject,
        Action::Read,
        "file:///home/alice/x",
        false,
    );
}

#[test]
fn principal_dependence_is_reported() {
    assert!(!AllowAll.depends_on_principal());
    assert!(sample_policy().depends_on_principal());
    let public_only = PatternPolicy::new().grant(
        Grantee::Anyone,
        ActionSet::ALL,
        pattern("file:///public/**"),
    );
    assert!(!public_only.depends_on_principal());
    assert!(!PatternPolicy::new().allows(&Principal::anonymous(), Action::Read, &uri("a:b")));
}

#[test]
fn action_sets_hold_what_they_were_given() {
    let set = ActionSet::of(&[Action::List, Action::Complete]);
    assert!(set.contains(Action::List) && set.contains(Action::Complete));
    assert!(!set.contains(Action::Read) && !set.contains(Action::Subscribe));
    assert!(set.with(Action::Read).contains(Action::Read));
    assert!(!ActionSet::NONE.contains(Action::List));
    assert!(!ActionSet::READ_ONLY.contains(Action::Subscribe));
    assert_eq!(format!("{set:?}"), "{List, Complete}");
}

#[test]
fn a_denied_read_looks_exactly_like_not_found() {
    let (secret, secret_contents) = text_resource("file:///home/alice/secret", "s");
    let policy = Arc::new(sample_policy());
    let engine = EngineBuilder::new(key())
        .policy(policy.clone())
        .static_resource(secret, secret_contents.clone())
        .build()
        .unwrap();
    let bob = Principal::subject("bob");
    let denied = run(engine.read(&bob, &uri("file:///home/alice/secret"))).unwrap_err();
    let missing = run(engine.read(&bob, &uri("file:///home/alice/nothing"))).unwrap_err();
    assert!(matches!(denied, ReadError::NotFound { .. }), "{denied:?}");
    assert_eq!(
        denied.to_string().replace("secret", "X"),
        missing.to_string().replace("nothing", "X")
    );
    let alice = Principal::subject("alice");
    assert!(run(engine.read(&alice, &uri("file:///home/alice/secret"))).is_ok());

    // Configured to reveal denials.
    let (secret, _) = text_resource("file:///home/alice/secret", "s");
    let revealing = EngineBuilder::new(key())
        .policy(policy)
        .limits(Limits {
            reveal_denied: true,
            ..Limits::default()
        })
        .static_resource(secret, secret_contents)
        .build()
        .unwrap();
    let denied = run(revealing.read(&bob, &uri("file:///home/alice/secret"))).unwrap_err();
    assert!(matches!(denied, ReadError::Denied { .. }), "{denied:?}");
    assert_eq!(
        denied.to_string(),
        "access to resource file:///home/alice/secret is denied"
    );
    assert!(revealing.allows(&alice, Action::Subscribe, &uri("file:///home/alice/secret")));
    assert!(!revealing.allows(&bob, Action::Subscribe, &uri("file:///home/alice/secret")));
}

/// The obvious recursive glob matcher, as a model for [`UriPattern::matches`].
fn naive_matches(pattern: &[u8], input: &[u8]) -> bool {
    match pattern {
        [] => input.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=input.len()).any(|at| naive_matches(rest, &input[at..])),
        [b'*', rest @ ..] => (0..=input.len())
            .take_while(|&at| at == 0 || input[at - 1] != b'/')
            .any(|at| naive_matches(rest, &input[at..])),
        [byte, rest @ ..] => input.first() == Some(byte) && naive_matches(rest, &input[1..]),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// The automaton agrees with the naive matcher on patterns over `a`, `b`, `/` and `*`.
    #[test]
    fn the_matcher_agrees_with_a_naive_model(
        pattern in "[ab/*]{1,12}",
        input in "[ab/]{0,12}",
    ) {
        proptest::prop_assume!(!pattern.contains("***"));
        let parsed = UriPattern::parse(&pattern).unwrap();
        proptest::prop_assert_eq!(
            parsed.matches(&input),
            naive_matches(pattern.as_bytes(), input.as_bytes()),
            "pattern {:?} input {:?}", pattern, input
        );
    }
}

#[test]
fn patterns_are_matched_in_the_canonical_form_of_uris() {
    for (written, canonical) in [
        (
            "file:///srv/hr/my salaries.csv",
            "file:///srv/hr/my%20salaries.csv",
        ),
        (
            "file:///srv/hr/salarié.csv",
            "file:///srv/hr/salari%C3%A9.csv",
        ),
        ("FILE:///srv/%7euser/%2b/**", "file:///srv/~user/%2B/**"),
        (
            "git://MyRepo/tree/*/a[1].txt",
            "git://myrepo/tree/*/a%5B1%5D.txt",
        ),
        ("urn:ISBN:*", "urn:ISBN:*"),
        ("file:///already%20fine/**", "file:///already%20fine/**"),
    ] {
        let pattern = UriPattern::parse(written).unwrap();
        assert_eq!(pattern.as_str(), canonical, "{written}");
    }
    check(
        "file:///srv/hr/my salaries.csv",
        "file:///srv/hr/my%20salaries.csv",
        true,
    );
    check("file:///srv/*é/**", "file:///srv/caf%C3%A9/x", true);
}
