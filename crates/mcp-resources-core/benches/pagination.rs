//! Benchmarks of the engine's hot paths: one list page out of growing in-memory providers (the
//! cost must not grow with the total), and a static read of a 1 KiB text resource.
//!
//! Run with `cargo bench -p mcp-resources-core --bench pagination`. Allocations are counted.

use std::hint::black_box;
use std::sync::Arc;

use divan::{AllocProfiler, Bencher};
use mcp_resources_core::engine::{Engine, EngineBuilder};
use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::pagination::{CursorCodec, CursorKey, Position};
use mcp_resources_core::policy::{ActionSet, Grantee, PatternPolicy, Principal, UriPattern};
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::uri::ResourceUri;

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

const KEY: [u8; 32] = [9; 32];

fn resource_uri(i: usize) -> ResourceUri {
    ResourceUri::parse(&format!("mem:///docs/{i:08}.md")).expect("valid benchmark uri")
}

/// An engine over one memory provider holding `total` resources (metadata only), and the
/// cursor of the page starting in the middle.
fn large_engine(total: usize, policy: Option<PatternPolicy>) -> (Engine, String) {
    let provider = MemoryProvider::new();
    for i in 0..total {
        let resource = Resource::new(resource_uri(i), format!("{i:08}.md"))
            .with_mime_type("text/markdown")
            .with_size(1024);
        provider.insert(resource, Vec::new());
    }
    let mut builder = EngineBuilder::new(CursorKey::new(KEY)).provider(Arc::new(provider));
    if let Some(policy) = policy {
        builder = builder.policy(Arc::new(policy));
    }
    let engine = builder.build().expect("valid benchmark engine");
    let middle = resource_uri(total / 2).as_str().to_owned();
    let cursor = CursorCodec::new(&CursorKey::new(KEY)).encode(&Position::Resources {
        source: 1,
        after: middle,
    });
    (engine, cursor)
}

/// One page of 100 (the default page size) from the middle of the list.
#[divan::bench(args = [1_000, 100_000, 1_000_000], sample_count = 200)]
fn list_page_of_100(bencher: Bencher<'_, '_>, total: usize) {
    let (engine, cursor) = large_engine(total, None);
    let anyone = Principal::anonymous();
    bencher.bench_local(|| {
        let page = pollster::block_on(engine.list_resources(&anyone, Some(black_box(&cursor))))
            .expect("page");
        assert_eq!(page.items.len(), 100);
        page
    });
}

/// The same page under a pattern policy (every item checked against two grants).
#[divan::bench(args = [1_000, 1_000_000], sample_count = 200)]
fn list_page_of_100_under_a_pattern_policy(bencher: Bencher<'_, '_>, total: usize) {
    let policy = PatternPolicy::new()
        .grant(
            Grantee::Scope("docs".into()),
            ActionSet::ALL,
            UriPattern::parse("mem:///docs/**").expect("pattern"),
        )
        .grant(
            Grantee::Subject("admin".into()),
            ActionSet::ALL,
            UriPattern::parse("**").expect("pattern"),
        );
    let (engine, cursor) = large_engine(total, Some(policy));
    let reader = Principal::subject("someone").with_scope("docs");
    bencher.bench_local(|| {
        let page = pollster::block_on(engine.list_resources(&reader, Some(black_box(&cursor))))
            .expect("page");
        assert_eq!(page.items.len(), 100);
        page
    });
}

/// A read of a 1 KiB static text resource among 1,000 static resources.
#[divan::bench]
fn read_static_1kib(bencher: Bencher<'_, '_>) {
    let mut builder = EngineBuilder::new(CursorKey::new(KEY));
    let body: Arc<str> = "x".repeat(1024).into();
    for i in 0..1_000 {
        let uri = resource_uri(i);
        let contents = Contents::text(uri.clone(), body.clone()).with_mime_type("text/plain");
        builder = builder.static_resource(Resource::new(uri, "doc"), vec![contents]);
    }
    let engine = builder.build().expect("valid benchmark engine");
    let target = resource_uri(500);
    let anyone = Principal::anonymous();
    bencher.bench_local(|| {
        pollster::block_on(engine.read(&anyone, black_box(&target))).expect("read")
    });
}
