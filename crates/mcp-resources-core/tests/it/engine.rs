//! The engine: routing order of reads, template listing, caching hints, size limits, ranged
//! reads and build errors.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_resources_core::cache::{CacheHint, CachePolicy, CacheScope};
use mcp_resources_core::engine::{EngineBuilder, FunctionTemplate, Limits, StaticResource};
use mcp_resources_core::error::{BuildError, ListError, ReadError};
use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::policy::{Action, Grantee, PatternPolicy, Principal, UriPattern};
use mcp_resources_core::provider::{ListRequest, Provider, ProviderError, ReadRequest};
use mcp_resources_core::resource::{
    Body, ByteRange, Contents, Resource, ResourceTemplate, Timestamp,
};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;

use crate::fixtures::{key, run, text_resource, uri, uris};

/// A provider that claims a scheme, answers reads with its own name (or `None` when told to),
/// and records the variables it was given.
struct Named {
    name: &'static str,
    scheme: &'static str,
    answers: bool,
    templates: Vec<ResourceTemplate>,
    /// What [`Provider::matches_templates`] answers.
    matches_templates: bool,
    seen_variables: Mutex<Vec<Option<String>>>,
}

impl Named {
    fn new(name: &'static str, scheme: &'static str, answers: bool) -> Named {
        Named {
            name,
            scheme,
            answers,
            templates: Vec::new(),
            matches_templates: true,
            seen_variables: Mutex::new(Vec::new()),
        }
    }
}

#[async_trait]
impl Provider for Named {
    fn claims(&self, uri: &ResourceUri) -> bool {
        uri.scheme() == self.scheme
    }

    async fn list(&self, _request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        Err(ProviderError::new(format!("{} cannot list", self.name)))
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        self.templates.clone()
    }

    fn matches_templates(&self) -> bool {
        self.matches_templates
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        let id = request
            .variables
            .and_then(|variables| variables.get_str("id"))
            .map(str::to_owned);
        self.seen_variables.lock().unwrap().push(id);
        Ok(self
            .answers
            .then(|| vec![Contents::text(request.uri.clone(), self.name)]))
    }

    fn cache_policy(&self) -> CachePolicy {
        CachePolicy {
            ttl_ms: Some(5_000),
            per_principal: false,
        }
    }

    /// `…/frozen…` URIs name something immutable.
    fn cache_policy_of(&self, uri: &ResourceUri) -> Option<CachePolicy> {
        uri.path().starts_with("/frozen").then_some(CachePolicy {
            ttl_ms: Some(86_400_000),
            per_principal: false,
        })
    }
}

#[test]
fn a_provider_may_give_one_uri_its_own_cache_policy() {
    let engine = EngineBuilder::new(key())
        .provider(Arc::new(Named::new("n", "n", true)))
        .build()
        .unwrap();
    let read = |text: &str| {
        pollster::block_on(engine.read(&Principal::anonymous(), &ResourceUri::parse(text).unwrap()))
            .unwrap()
            .cache
            .ttl_ms
    };
    assert_eq!(read("n://h/frozen/a"), 86_400_000);
    assert_eq!(read("n://h/live/a"), 5_000);
}

/// A provider of `q:` URIs: `q://h/now…` answers "now", `q://h/none…` has nothing,
/// `q://h/fail…` fails; every other read answers "later" after waiting once.
struct Quick;

#[async_trait]
impl Provider for Quick {
    fn claims(&self, uri: &ResourceUri) -> bool {
        uri.scheme() == "q"
    }

    async fn list(&self, _request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        Ok(Vec::new())
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        let path = request.uri.path();
        let body = if path.starts_with("/now") {
            "now"
        } else if path.starts_with("/none") {
            return Ok(None);
        } else if path.starts_with("/fail") {
            return Err(ProviderError::new("quick failure"));
        } else {
            pending_once().await;
            "later"
        };
        Ok(Some(vec![Contents::text(request.uri.clone(), body)]))
    }
}

/// Pending at its first poll (waking its task), ready at the next.
async fn pending_once() {
    let mut waited = false;
    std::future::poll_fn(|context| {
        if std::mem::replace(&mut waited, true) {
            std::task::Poll::Ready(())
        } else {
            context.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}

#[test]
fn a_read_that_need_not_wait_is_ready_at_its_first_poll() {
    let engine = EngineBuilder::new(key())
        .provider(Arc::new(Quick))
        .provider(Arc::new(Named::new("second", "q", true)))
        .build()
        .unwrap();
    let anonymous = Principal::anonymous();
    for (text, at_once, expect) in [
        ("q://h/now/1", true, "now"),
        ("q://h/later", false, "later"),
        // Nothing from the first provider: the next one is asked.
        ("q://h/none", true, "second"),
        ("q://h/fail", true, "quick failure"),
    ] {
        let first_poll = ready_at_once(engine.read(&anonymous, &uri(text)));
        assert_eq!(first_poll.is_some(), at_once, "{text}");
        let full = run(engine.read(&anonymous, &uri(text)));
        if let Some(first_poll) = first_poll {
            assert_eq!(format!("{first_poll:?}"), format!("{full:?}"), "{text}");
        }
        assert!(read_text(&engine, text).contains(expect), "{text}");
    }
    // The in-memory provider answers at once too, a missing resource included.
    let memory = MemoryProvider::new();
    let (resource, contents) = text_resource("m://h/1", "in memory");
    memory.insert(resource, contents);
    let engine = EngineBuilder::new(key())
        .provider(Arc::new(memory))
        .build()
        .unwrap();
    let first_poll = ready_at_once(engine.read(&anonymous, &uri("m://h/1")));
    let full = run(engine.read(&anonymous, &uri("m://h/1")));
    assert_eq!(format!("{first_poll:?}"), format!("{:?}", Some(full)));
    assert!(ready_at_once(engine.read(&anonymous, &uri("m://h/2"))).is_some());
}

/// The output of `future` if it is ready at its first poll (what the server's transports
/// feed back to an adapter on the spot).
fn ready_at_once<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

fn template(text: &str, name: &str) -> ResourceTemplate {
    ResourceTemplate::new(UriTemplate::parse(text).unwrap(), name)
}

/// A function template that answers with `name`.
fn answering(text: &str, name: &'static str) -> FunctionTemplate {
    FunctionTemplate::new(template(text, name), move |uri, _variables| {
        let contents = vec![Contents::text(uri.clone(), name)];
        async move { Ok(contents) }
    })
}

/// Reads `uri_text` and returns the text of the first body, or the error's message.
fn read_text(engine: &mcp_resources_core::engine::Engine, uri_text: &str) -> String {
    match run(engine.read(&Principal::anonymous(), &uri(uri_text))) {
        Ok(read) => match &read.contents[0].body {
            Body::Text(text) => text.to_string(),
            Body::Bytes(bytes) => format!("{} bytes", bytes.len()),
        },
        Err(error) => error.to_string(),
    }
}

/// Reads each URI from an engine with: a static `db://static/1`, providers `first` (claims
/// `db`, answers `None`), `second` (claims `db`, answers) and `other` (claims `x`), and
/// function templates `db://{table}/{id}` then `x://{id}`.
fn check(uri_text: &str, expect: &str) {
    let (resource, contents) = text_resource("db://static/1", "static");
    let engine = EngineBuilder::new(key())
        .static_resource(resource, contents)
        .provider(Arc::new(Named::new("first", "db", false)))
        .provider(Arc::new(Named::new("second", "db", true)))
        .provider(Arc::new(Named::new("other", "x", false)))
        .template(answering("db://{table}/{id}", "db template"))
        .template(answering("x://{id}", "x template"))
        .template(answering("y://{id}", "y template"))
        .build()
        .unwrap();
    assert_eq!(read_text(&engine, uri_text), expect, "reading {uri_text}");
}

#[test]
fn reads_route_static_then_claiming_providers_then_templates() {
    let table = [
        // Exact static URI first, even though providers claim the scheme.
        ("db://static/1", "static"),
        // Then the claiming providers in order: `first` passes, `second` answers.
        ("db://static/2", "second"),
        ("db://users/7", "second"),
        // `other` claims `x` but has nothing: the template answers.
        ("x://7", "x template"),
        // No provider claims `y`.
        ("y://7", "y template"),
        // Nothing matches.
        ("z://7", "resource z://7 not found"),
    ];
    for (uri_text, expect) in table {
        check(uri_text, expect);
    }
}

/// The variables a `db` provider with the template `db://users/{id}` is given for each of
/// `uris`, as it asks the engine to match its templates or not.
fn variables_seen(matches_templates: bool, uris: &[&str]) -> Vec<Option<String>> {
    let mut named = Named::new("named", "db", true);
    named.templates.push(template("db://users/{id}", "user"));
    named.matches_templates = matches_templates;
    let named = Arc::new(named);
    let engine = EngineBuilder::new(key())
        .provider(named.clone())
        .build()
        .unwrap();
    for uri in uris {
        assert_eq!(read_text(&engine, uri), "named");
    }
    named.seen_variables.lock().unwrap().clone()
}

#[test]
fn a_provider_gets_the_variables_of_its_own_matching_template() {
    assert_eq!(
        variables_seen(true, &["db://users/42", "db://groups/1"]),
        [Some("42".to_owned()), None]
    );
}

#[test]
fn a_provider_that_parses_its_uris_itself_gets_no_variables() {
    assert_eq!(variables_seen(false, &["db://users/42"]), [None]);
}

#[test]
fn a_template_that_returns_nothing_is_not_found() {
    let empty = FunctionTemplate::new(template("e://{id}", "empty"), |_uri, _variables| async {
        Ok(Vec::new())
    });
    let failing =
        FunctionTemplate::new(template("f://{id}", "failing"), |_uri, _variables| async {
            Err(ProviderError::new("database is down"))
        });
    let engine = EngineBuilder::new(key())
        .template(empty)
        .template(failing)
        .build()
        .unwrap();
    assert_eq!(read_text(&engine, "e://1"), "resource e://1 not found");
    let error = run(engine.read(&Principal::anonymous(), &uri("f://1"))).unwrap_err();
    assert!(
        matches!(&error, ReadError::Provider(inner) if !inner.is_public()),
        "{error:?}"
    );
    assert_eq!(error.to_string(), "reading failed: database is down");
}

#[test]
fn template_variables_reach_the_function() {
    let echo = FunctionTemplate::new(template("db://{table}/{id}", "row"), |uri, variables| {
        let text = format!(
            "{}:{}",
            variables.get_str("table").unwrap_or("?"),
            variables.get_str("id").unwrap_or("?")
        );
        let contents = vec![Contents::text(uri.clone(), text)];
        async move { Ok(contents) }
    });
    let engine = EngineBuilder::new(key()).template(echo).build().unwrap();
    assert_eq!(read_text(&engine, "db://users/7"), "users:7");
}

#[test]
fn templates_are_listed_in_registration_order_then_per_provider_and_paged() {
    let memory = MemoryProvider::new()
        .with_template(template("mem://{a}", "a"))
        .with_template(template("mem://x/{b}", "b"));
    let engine = EngineBuilder::new(key())
        .limits(Limits {
            page_size: NonZeroUsize::new(2).unwrap(),
            ..Limits::default()
        })
        .template(answering("t://{one}", "one"))
        .provider(Arc::new(memory))
        .listed_template(template("l://{two}", "two"))
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = run(engine.list_templates(&anyone, cursor.as_deref())).unwrap();
        assert_eq!(page.cache.scope, CacheScope::Public);
        names.extend(page.items.iter().map(|template| template.name.clone()));
        pages += 1;
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(names, ["one", "two", "a", "b"]);
    assert_eq!(pages, 2);
    let empty = EngineBuilder::new(key()).build().unwrap();
    let page = run(empty.list_templates(&anyone, None)).unwrap();
    assert!(page.items.is_empty() && page.next_cursor.is_none());
}

#[test]
fn building_rejects_duplicates() {
    let (a, a_contents) = text_resource("mem:///a", "1");
    let (again, again_contents) = text_resource("mem:///a", "2");
    let error = EngineBuilder::new(key())
        .static_resource(a, a_contents)
        .static_resource(again, again_contents)
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        BuildError::DuplicateResource {
            uri: "mem:///a".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "static resource mem:///a is registered twice"
    );

    let memory = MemoryProvider::new().with_template(template("t://{id}", "t"));
    let error = EngineBuilder::new(key())
        .template(answering("t://{id}", "t"))
        .provider(Arc::new(memory))
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        BuildError::DuplicateTemplate {
            template: "t://{id}".into()
        }
    );
}

#[test]
fn static_entries_are_added_after_the_others_and_checked_with_them() {
    let entries = |pairs: &[(&str, &str)]| -> Vec<StaticResource> {
        pairs
            .iter()
            .map(|(uri, text)| {
                let (resource, contents) = text_resource(uri, text);
                StaticResource::new(resource, contents)
            })
            .collect()
    };
    let (first, first_contents) = text_resource("mem:///b", "b");
    let engine = EngineBuilder::new(key())
        .static_entries(entries(&[("mem:///c", "c"), ("mem:///a", "a")]))
        .static_entries(Vec::new())
        .static_resource(first, first_contents)
        .static_entries(entries(&[("mem:///d", "d")]))
        .build()
        .unwrap();
    for (uri, text) in [
        ("mem:///a", "a"),
        ("mem:///b", "b"),
        ("mem:///c", "c"),
        ("mem:///d", "d"),
    ] {
        assert_eq!(read_text(&engine, uri), text);
    }
    let error = EngineBuilder::new(key())
        .static_entries(entries(&[("mem:///a", "1")]))
        .static_entries(entries(&[("mem:///b", "2"), ("mem:///a", "3")]))
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "static resource mem:///a is registered twice"
    );
}

#[test]
fn a_failing_provider_fails_the_list_with_its_position() {
    let engine = EngineBuilder::new(key())
        .provider(Arc::new(MemoryProvider::new()))
        .provider(Arc::new(Named::new("broken", "db", true)))
        .build()
        .unwrap();
    let error = run(engine.list_resources(&Principal::anonymous(), None)).unwrap_err();
    assert!(
        matches!(
            error,
            ListError::Provider {
                source_index: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "provider 1 failed to list resources: broken cannot list"
    );
}

/// The cache hints of a read of `uri_text` and of the first list page, for `principal`.
fn hints(
    engine: &mcp_resources_core::engine::Engine,
    principal: &Principal,
    uri_text: &str,
) -> (CacheHint, CacheHint) {
    let read = run(engine.read(principal, &uri(uri_text))).unwrap();
    let page = run(engine.list_resources(principal, None)).unwrap();
    (read.cache, page.cache)
}

#[test]
fn cache_hints_come_from_the_source_then_the_default() {
    let (resource, contents) = text_resource("mem:///static", "s");
    let (long_lived, long_lived_contents) = text_resource("mem:///long", "l");
    let memory = MemoryProvider::new().with_cache_policy(CachePolicy {
        ttl_ms: Some(2_000),
        per_principal: false,
    });
    let (file, file_contents) = text_resource("mem:///provided", "p");
    memory.insert(file, file_contents);
    let engine = EngineBuilder::new(key())
        .limits(Limits {
            default_ttl_ms: 60_000,
            ..Limits::default()
        })
        .static_resource(resource, contents)
        .static_entry(StaticResource {
            cache_policy: CachePolicy {
                ttl_ms: Some(3_600_000),
                per_principal: false,
            },
            ..StaticResource::new(long_lived, long_lived_contents)
        })
        .provider(Arc::new(memory))
        .template(answering("t://{id}", "t").with_cache_policy(CachePolicy {
            ttl_ms: Some(10),
            per_principal: true,
        }))
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let public = |ttl_ms| CacheHint {
        ttl_ms,
        scope: CacheScope::Public,
    };
    // The list takes the smallest ttl of its sources.
    assert_eq!(
        hints(&engine, &anyone, "mem:///static"),
        (public(60_000), public(2_000))
    );
    assert_eq!(
        hints(&engine, &anyone, "mem:///long"),
        (public(3_600_000), public(2_000))
    );
    assert_eq!(
        hints(&engine, &anyone, "mem:///provided"),
        (public(2_000), public(2_000))
    );
    let template_read = run(engine.read(&anyone, &uri("t://1"))).unwrap();
    assert_eq!(
        template_read.cache,
        CacheHint {
            ttl_ms: 10,
            scope: CacheScope::Private
        }
    );
}

#[test]
fn a_list_whose_sources_all_set_a_ttl_is_not_capped_by_the_default() {
    let memory = MemoryProvider::new().with_cache_policy(CachePolicy {
        ttl_ms: Some(5_000),
        per_principal: false,
    });
    let (file, file_contents) = text_resource("mem:///provided", "p");
    memory.insert(file, file_contents);
    let engine = EngineBuilder::new(key())
        .provider(Arc::new(memory))
        .build()
        .unwrap();
    let page = run(engine.list_resources(&Principal::anonymous(), None)).unwrap();
    assert_eq!(
        page.cache.ttl_ms, 5_000,
        "the only source says 5 s; the default is 0"
    );

    let empty = EngineBuilder::new(key()).build().unwrap();
    let page = run(empty.list_resources(&Principal::anonymous(), None)).unwrap();
    assert_eq!(
        page.cache.ttl_ms,
        Limits::default().default_ttl_ms,
        "no source: the default"
    );
}

#[test]
fn cache_scope_is_private_under_a_principal_dependent_policy_on_every_page() {
    let memory = Arc::new(MemoryProvider::new());
    for i in 0..5 {
        let (resource, contents) = text_resource(&format!("mem:///{i}"), "x");
        memory.insert(resource, contents);
    }
    let policy = PatternPolicy::new().grant(
        Grantee::Subject("alice".into()),
        mcp_resources_core::policy::ActionSet::ALL,
        UriPattern::parse("mem:///**").unwrap(),
    );
    let engine = EngineBuilder::new(key())
        .limits(Limits {
            page_size: NonZeroUsize::new(2).unwrap(),
            ..Limits::default()
        })
        .policy(Arc::new(policy))
        .provider(memory.clone())
        .build()
        .unwrap();
    let alice = Principal::subject("alice");
    // A denied read is not found, at once.
    let denied = ready_at_once(engine.read(&Principal::anonymous(), &uri("mem:///1")));
    assert!(matches!(denied, Some(Err(ReadError::NotFound { .. }))));
    // An allowed read of the in-memory provider has the private scope.
    let read = run(engine.read(&alice, &uri("mem:///1"))).unwrap();
    assert_eq!(read.cache.scope, CacheScope::Private);
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = run(engine.list_resources(&alice, cursor.as_deref())).unwrap();
        assert_eq!(page.cache.scope, CacheScope::Private, "page {pages}");
        pages += 1;
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    // The template list too, though it is the same for everyone.
    let templates = run(engine.list_templates(&alice, None)).unwrap();
    assert_eq!(templates.cache.scope, CacheScope::Private);

    // Under the default policy, a provider answering per principal makes answers private too.
    let per_principal = Arc::new(MemoryProvider::new().with_cache_policy(CachePolicy {
        ttl_ms: None,
        per_principal: true,
    }));
    let (resource, contents) = text_resource("mem:///1", "x");
    per_principal.insert(resource, contents);
    let (shared, shared_contents) = text_resource("mem:///shared", "x");
    let engine = EngineBuilder::new(key())
        .static_resource(shared, shared_contents)
        .provider(per_principal)
        .build()
        .unwrap();
    let (read, page) = hints(&engine, &Principal::anonymous(), "mem:///1");
    assert_eq!(
        (read.scope, page.scope),
        (CacheScope::Private, CacheScope::Private)
    );
    let (read, _) = hints(&engine, &Principal::anonymous(), "mem:///shared");
    assert_eq!(
        read.scope,
        CacheScope::Public,
        "the static resource itself is public"
    );
}

#[test]
fn reads_over_the_size_limit_fail_with_limit_and_size() {
    let (big, _) = text_resource("mem:///big", "");
    let body = "x".repeat(600);
    let contents = vec![
        Contents::text(big.uri.clone(), body.as_str()),
        Contents::bytes(big.uri.clone(), vec![0u8; 500]),
    ];
    let memory = MemoryProvider::new();
    let (provided, _) = text_resource("mem:///provided-big", "");
    memory.insert(
        provided.clone(),
        vec![Contents::bytes(provided.uri.clone(), vec![1u8; 2_000])],
    );
    let engine = EngineBuilder::new(key())
        .limits(Limits {
            max_read_bytes: 1_000,
            ..Limits::default()
        })
        .static_resource(big, contents)
        .provider(Arc::new(memory))
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let error = run(engine.read(&anyone, &uri("mem:///big"))).unwrap_err();
    assert!(
        matches!(
            error,
            ReadError::TooLarge {
                limit: 1_000,
                actual: 1_100,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "contents of mem:///big are 1100 bytes, over the limit of 1000 bytes per read; read it in ranges"
    );
    let error = run(engine.read(&anyone, &uri("mem:///provided-big"))).unwrap_err();
    assert!(
        matches!(
            error,
            ReadError::TooLarge {
                limit: 1_000,
                actual: 2_000,
                ..
            }
        ),
        "{error:?}"
    );

    // The same resources, read in ranges.
    let part = run(engine.read_range(
        &anyone,
        &uri("mem:///big"),
        ByteRange {
            offset: 100,
            length: 400,
        },
    ))
    .unwrap();
    let lengths: Vec<u64> = part
        .contents
        .iter()
        .map(|contents| contents.body.len())
        .collect();
    assert_eq!(lengths, [400, 400]);
    let part = run(engine.read_range(
        &anyone,
        &uri("mem:///provided-big"),
        ByteRange {
            offset: 1_500,
            length: 1_000,
        },
    ))
    .unwrap();
    assert_eq!(part.contents[0].body, Body::Bytes(vec![1u8; 500].into()));
}

#[test]
fn ranged_reads_go_through_the_memory_provider() {
    let memory = Arc::new(MemoryProvider::new());
    let text_uri = uri("mem:///text");
    let bytes_uri = uri("mem:///bytes");
    memory.insert(
        Resource::new(text_uri.clone(), "text").with_size(8),
        vec![Contents::text(text_uri.clone(), "héllo wörld").with_mime_type("text/plain")],
    );
    memory.insert(
        Resource::new(bytes_uri.clone(), "bytes"),
        vec![Contents::bytes(
            bytes_uri.clone(),
            (0u8..=255).collect::<Vec<u8>>(),
        )],
    );
    let engine = EngineBuilder::new(key()).provider(memory).build().unwrap();
    let anyone = Principal::anonymous();
    let read = |target: &ResourceUri, offset, length| {
        run(engine.read_range(&anyone, target, ByteRange { offset, length }))
    };
    let part = read(&text_uri, 0, 6).unwrap();
    assert_eq!(part.contents[0].body, Body::Text("héllo".into()));
    assert_eq!(part.contents[0].mime_type.as_deref(), Some("text/plain"));
    assert_eq!(
        read(&text_uri, 7, 100).unwrap().contents[0].body,
        Body::Text("wörld".into())
    );
    assert_eq!(
        read(&text_uri, 500, 10).unwrap().contents[0].body,
        Body::Text("".into())
    );
    let error = read(&text_uri, 2, 3).unwrap_err();
    assert!(
        error.to_string().contains("splits a utf-8 character"),
        "{error}"
    );
    // The range is the client's mistake, not a failure of the provider.
    assert!(
        matches!(&error, ReadError::Provider(error) if error.is_invalid_params()),
        "{error:?}"
    );
    let part = read(&bytes_uri, 250, 10).unwrap();
    assert_eq!(
        part.contents[0].body,
        Body::Bytes(vec![250, 251, 252, 253, 254, 255].into())
    );
    assert_eq!(
        read(&bytes_uri, u64::MAX, u64::MAX).unwrap().contents[0]
            .body
            .len(),
        0
    );
}

#[test]
fn static_ranged_reads_are_cut_by_the_engine() {
    let (resource, contents) = text_resource("mem:///a", "día");
    let engine = EngineBuilder::new(key())
        .static_resource(resource, contents)
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let part = run(engine.read_range(
        &anyone,
        &uri("mem:///a"),
        ByteRange {
            offset: 1,
            length: 2,
        },
    ))
    .unwrap();
    assert_eq!(part.contents[0].body, Body::Text("í".into()));
    let error = run(engine.read_range(
        &anyone,
        &uri("mem:///a"),
        ByteRange {
            offset: 2,
            length: 1,
        },
    ))
    .unwrap_err();
    assert!(
        matches!(
            error,
            ReadError::InvalidRange {
                offset: 2,
                length: 1,
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn last_modified_passes_through_annotations() {
    let modified = Timestamp::parse("2025-01-12T15:00:58Z").unwrap();
    let annotations = mcp_resources_core::resource::Annotations {
        last_modified: Some(modified.clone()),
        ..Default::default()
    };
    let (resource, contents) = text_resource("mem:///a", "a");
    let engine = EngineBuilder::new(key())
        .static_resource(resource.with_annotations(annotations), contents)
        .build()
        .unwrap();
    let page = run(engine.list_resources(&Principal::anonymous(), None)).unwrap();
    assert_eq!(uris(&page.items), ["mem:///a"]);
    let listed = page.items[0]
        .annotations
        .as_ref()
        .and_then(|a| a.last_modified.clone());
    assert_eq!(listed, Some(modified));
}

#[test]
fn the_policy_guards_reads_before_routing() {
    // The policy is asked before any provider: a denied URI never reaches it.
    let named = Arc::new(Named::new("named", "db", true));
    let policy = PatternPolicy::new().grant(
        Grantee::Anyone,
        Action::Read,
        UriPattern::parse("db://ok/*").unwrap(),
    );
    let engine = EngineBuilder::new(key())
        .policy(Arc::new(policy))
        .provider(named.clone())
        .build()
        .unwrap();
    assert_eq!(read_text(&engine, "db://ok/1"), "named");
    assert_eq!(
        read_text(&engine, "db://secret/1"),
        "resource db://secret/1 not found"
    );
    assert_eq!(named.seen_variables.lock().unwrap().len(), 1);
}

/// One operation on the registry under test.
#[derive(Clone, Debug)]
enum Operation {
    Insert { key: u8, body: u8 },
    Remove { key: u8 },
    Read { key: u8 },
    ListAll { page_size: usize },
}

fn operation() -> impl proptest::strategy::Strategy<Value = Operation> {
    use proptest::prelude::*;
    prop_oneof![
        (0..24u8, 0..4u8).prop_map(|(key, body)| Operation::Insert { key, body }),
        (0..24u8).prop_map(|key| Operation::Remove { key }),
        (0..24u8).prop_map(|key| Operation::Read { key }),
        (1..6usize).prop_map(|page_size| Operation::ListAll { page_size }),
    ]
}

fn model_uri(key: u8) -> String {
    format!("mem:///{key:02}")
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    /// Engines over a mutable memory provider behave like a `BTreeMap` under random inserts,
    /// removals, reads and full list walks (statics listed first, then the provider).
    #[test]
    fn the_registry_behaves_like_a_map(
        operations in proptest::collection::vec(operation(), 1..60),
    ) {
        let memory = Arc::new(MemoryProvider::new().with_prefix("mem:///"));
        let (resource, contents) = text_resource("static:///fixed", "fixed");
        let engines: Vec<_> = (1..6)
            .map(|page_size| {
                EngineBuilder::new(key())
                    .limits(Limits { page_size: NonZeroUsize::new(page_size).unwrap(), ..Limits::default() })
                    .static_resource(resource.clone(), contents.clone())
                    .provider(memory.clone())
                    .build()
                    .unwrap()
            })
            .collect();
        let mut model: std::collections::BTreeMap<String, String> = Default::default();
        let anyone = Principal::anonymous();
        for operation in operations {
            match operation {
                Operation::Insert { key, body } => {
                    let (resource, contents) = text_resource(&model_uri(key), &body.to_string());
                    let replaced = memory.insert(resource, contents);
                    let model_replaced = model.insert(model_uri(key), body.to_string()).is_some();
                    proptest::prop_assert_eq!(replaced, model_replaced);
                }
                Operation::Remove { key } => {
                    proptest::prop_assert_eq!(
                        memory.remove(&model_uri(key)),
                        model.remove(&model_uri(key)).is_some()
                    );
                }
                Operation::Read { key } => {
                    let got = read_text(&engines[0], &model_uri(key));
                    let expect = model
                        .get(&model_uri(key))
                        .cloned()
                        .unwrap_or_else(|| format!("resource {} not found", model_uri(key)));
                    proptest::prop_assert_eq!(got, expect);
                }
                Operation::ListAll { page_size } => {
                    let engine = &engines[page_size - 1];
                    let mut listed = Vec::new();
                    let mut cursor: Option<String> = None;
                    for _ in 0..100 {
                        let page = run(engine.list_resources(&anyone, cursor.as_deref())).unwrap();
                        proptest::prop_assert!(page.items.len() <= page_size);
                        listed.extend(uris(&page.items));
                        cursor = page.next_cursor;
                        if cursor.is_none() {
                            break;
                        }
                    }
                    proptest::prop_assert!(cursor.is_none(), "the walk does not end");
                    let mut expect = vec!["static:///fixed".to_owned()];
                    expect.extend(model.keys().cloned());
                    proptest::prop_assert_eq!(listed, expect);
                }
            }
        }
        proptest::prop_assert_eq!(memory.len(), model.len());
    }
}

#[test]
fn the_engine_and_its_futures_are_send_and_sync() {
    fn send<T: Send>(value: T) -> T {
        value
    }
    fn shareable<T: Send + Sync>(_: &T) {}
    let engine = EngineBuilder::new(key()).build().unwrap();
    shareable(&engine);
    let anyone = Principal::anonymous();
    let target = uri("mem:///a");
    let variables = mcp_resources_core::template::Variables::new();
    let error = run(send(engine.read(&anyone, &target))).unwrap_err();
    assert!(matches!(error, ReadError::NotFound { .. }));
    assert!(
        run(send(engine.list_resources(&anyone, None)))
            .unwrap()
            .items
            .is_empty()
    );
    assert!(
        run(send(engine.list_templates(&anyone, None)))
            .unwrap()
            .items
            .is_empty()
    );
    let range = ByteRange {
        offset: 0,
        length: 1,
    };
    assert!(run(send(engine.read_range(&anyone, &target, range))).is_err());
    assert!(
        run(send(
            engine.complete(&anyone, "t://{x}", "x", "", &variables)
        ))
        .is_err()
    );
}
