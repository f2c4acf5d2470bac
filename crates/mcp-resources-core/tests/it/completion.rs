//! Completion of template variables: sources, policy filtering, the cap of 100 and errors.

use std::sync::Arc;

use mcp_resources_core::completion::{Completion, MAX_COMPLETION_VALUES};
use mcp_resources_core::engine::{Engine, EngineBuilder, FunctionTemplate};
use mcp_resources_core::error::CompleteError;
use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::policy::{
    Action, ActionSet, Grantee, PatternPolicy, Policy, Principal, UriPattern,
};
use mcp_resources_core::resource::ResourceTemplate;
use mcp_resources_core::template::{UriTemplate, Variables};

use crate::fixtures::{key, run};

fn template(text: &str) -> ResourceTemplate {
    ResourceTemplate::new(UriTemplate::parse(text).unwrap(), text)
}

/// A template over `db://{table}/{id}` whose completer proposes `candidates` for `table`
/// (filtered by the typed prefix) and `id-<table>-1..3` for `id`.
fn engine_with(candidates: Vec<String>, policy: Arc<dyn Policy>) -> Engine {
    let rows = FunctionTemplate::new(template("db://{table}/{id}"), |_uri, _variables| async {
        Ok(Vec::new())
    })
    .with_completer(move |request| {
        let values: Vec<String> = match request.variable {
            "table" => candidates
                .iter()
                .filter(|candidate| candidate.starts_with(request.prefix))
                .cloned()
                .collect(),
            _ => {
                let table = request
                    .context
                    .get_str("table")
                    .unwrap_or("none")
                    .to_owned();
                (1..=3).map(|i| format!("id-{table}-{i}")).collect()
            }
        };
        async move { Ok(values) }
    });
    let memory = MemoryProvider::new().with_template(template("mem://{name}"));
    memory.set_completions("name", vec!["alpha".into(), "beta".into(), "alps".into()]);
    EngineBuilder::new(key())
        .policy(policy)
        .template(rows)
        .provider(Arc::new(memory))
        .listed_template(template("listed://{x}"))
        .build()
        .unwrap()
}

fn everything() -> Arc<dyn Policy> {
    Arc::new(mcp_resources_core::policy::AllowAll)
}

/// Completes `variable` of `template_text` with `prefix` and `context`.
fn check(
    engine: &Engine,
    principal: &Principal,
    (template_text, variable, prefix): (&str, &str, &str),
    context: &[(&str, &str)],
    expect: Result<Completion, &str>,
) {
    let mut variables = Variables::new();
    for (name, value) in context {
        variables.insert(*name, *value);
    }
    let result = run(engine.complete(principal, template_text, variable, prefix, &variables));
    match (result, expect) {
        (Ok(completion), Ok(expect)) => {
            assert_eq!(completion, expect, "{template_text} {variable}")
        }
        (Err(error), Err(expect)) => assert_eq!(error.to_string(), expect),
        (result, expect) => {
            panic!("{template_text} {variable}: got {result:?}, expected {expect:?}")
        }
    }
}

fn completion(values: &[&str]) -> Completion {
    Completion {
        values: values.iter().map(|value| (*value).to_owned()).collect(),
        total: values.len() as u64,
        has_more: false,
    }
}

#[test]
fn candidates_come_from_the_owning_template_or_provider() {
    let tables = vec![
        "users".to_owned(),
        "orders".to_owned(),
        "uploads".to_owned(),
    ];
    let engine = engine_with(tables, everything());
    let anyone = Principal::anonymous();
    check(
        &engine,
        &anyone,
        ("db://{table}/{id}", "table", "u"),
        &[],
        Ok(completion(&["users", "uploads"])),
    );
    check(
        &engine,
        &anyone,
        ("db://{table}/{id}", "table", ""),
        &[],
        Ok(completion(&["users", "orders", "uploads"])),
    );
    check(
        &engine,
        &anyone,
        ("db://{table}/{id}", "id", ""),
        &[("table", "orders")],
        Ok(completion(&["id-orders-1", "id-orders-2", "id-orders-3"])),
    );
    check(
        &engine,
        &anyone,
        ("mem://{name}", "name", "al"),
        &[],
        Ok(completion(&["alpha", "alps"])),
    );
    check(
        &engine,
        &anyone,
        ("listed://{x}", "x", ""),
        &[],
        Ok(completion(&[])),
    );
}

#[test]
fn unknown_templates_and_variables_are_typed_errors() {
    let engine = engine_with(Vec::new(), everything());
    let anyone = Principal::anonymous();
    check(
        &engine,
        &anyone,
        ("db://{nope}", "nope", ""),
        &[],
        Err("no resource template db://{nope}"),
    );
    check(
        &engine,
        &anyone,
        ("db://{table}/{id}", "column", ""),
        &[],
        Err("uri template db://{table}/{id} has no variable column"),
    );
    let error = run(engine.complete(&anyone, "x", "y", "", &Variables::new())).unwrap_err();
    assert!(
        matches!(error, CompleteError::UnknownTemplate { .. }),
        "{error:?}"
    );
}

#[test]
fn completions_are_filtered_by_complete_and_read_permissions() {
    let tables = vec![
        "public".to_owned(),
        "private".to_owned(),
        "listed-only".to_owned(),
    ];
    let grant = |actions: ActionSet, pattern: &str| {
        (
            Grantee::Subject("alice".to_owned()),
            actions,
            UriPattern::parse(pattern).unwrap(),
        )
    };
    let mut policy = PatternPolicy::new();
    for (grantee, actions, pattern) in [
        grant(
            ActionSet::of(&[Action::Complete, Action::Read]),
            "db://public/**",
        ),
        // Completing without reading must not reveal the table.
        grant(
            ActionSet::of(&[Action::Complete, Action::List]),
            "db://listed-only/**",
        ),
    ] {
        policy = policy.grant(grantee, actions, pattern);
    }
    let engine = engine_with(tables, Arc::new(policy));
    let alice = Principal::subject("alice");
    check(
        &engine,
        &alice,
        ("db://{table}/{id}", "table", ""),
        &[],
        Ok(completion(&["public"])),
    );
    check(
        &engine,
        &Principal::anonymous(),
        ("db://{table}/{id}", "table", ""),
        &[],
        Ok(completion(&[])),
    );
}

#[test]
fn completions_are_capped_at_one_hundred_with_the_total() {
    let tables: Vec<String> = (0..250).map(|i| format!("t{i:03}")).collect();
    let engine = engine_with(tables.clone(), everything());
    let result = run(engine.complete(
        &Principal::anonymous(),
        "db://{table}/{id}",
        "table",
        "",
        &Variables::new(),
    ))
    .unwrap();
    assert_eq!(result.values.len(), MAX_COMPLETION_VALUES);
    assert_eq!(result.values, tables[..100]);
    assert_eq!(result.total, 250);
    assert!(result.has_more);

    // The cap applies after filtering: 200 visible of 250 still has more than 100.
    let mut policy = PatternPolicy::new();
    for digit in ["0", "1"] {
        let pattern = UriPattern::parse(&format!("db://t{digit}*/**")).unwrap();
        policy = policy.grant(Grantee::Anyone, ActionSet::ALL, pattern);
    }
    let engine = engine_with(tables.clone(), Arc::new(policy));
    let result = run(engine.complete(
        &Principal::anonymous(),
        "db://{table}/{id}",
        "table",
        "",
        &Variables::new(),
    ))
    .unwrap();
    assert_eq!(
        (result.values.len(), result.total, result.has_more),
        (100, 200, true)
    );
    assert_eq!(result.values, tables[..100]);

    // Exactly 100 visible: no more.
    let exactly: Vec<String> = (0..100).map(|i| format!("t{i:03}")).collect();
    let engine = engine_with(exactly, everything());
    let result = run(engine.complete(
        &Principal::anonymous(),
        "db://{table}/{id}",
        "table",
        "",
        &Variables::new(),
    ))
    .unwrap();
    assert_eq!(
        (result.values.len(), result.total, result.has_more),
        (100, 100, false)
    );
}
