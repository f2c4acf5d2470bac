//! One `resources/read` of a static 1 KiB text resource end to end through the legacy session:
//! decode the line, handle it, answer the query, handle the answer, take the response bytes.
//!
//! Run with `cargo bench -p mcp-legacy-2025 --bench read`. Allocations are counted.

use std::hint::black_box;
use std::sync::Arc;

use divan::{AllocProfiler, Bencher};
use mcp_legacy_2025::{LegacyConfig, Output, Session};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::service::{QueryContext, Service};
use mcp_resources_core::uri::ResourceUri;
use mcp_types::jsonrpc;
use mcp_types::lifecycle::Implementation;

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

/// A service with one static text resource of 1 KiB, and an initialized session.
fn setup() -> (Service, Session) {
    let uri = ResourceUri::parse("mem:///r/0001").expect("valid benchmark uri");
    let text = format!("resource 0001 {}\n", "x".repeat(1009));
    let engine = Engine::builder(CursorKey::new([7; 32]))
        .static_resource(
            Resource::new(uri.clone(), "r1"),
            vec![Contents::text(uri, text).with_mime_type("text/plain")],
        )
        .build()
        .expect("engine");
    let service = Service::new(engine);
    let config = LegacyConfig::new(Implementation::new("bench", "0.1.0"), service.offer());
    let mut session = Session::new(Arc::new(config));
    for line in [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ] {
        session.handle_incoming(jsonrpc::decode(line.as_bytes()));
        while session.poll_output().is_some() {}
    }
    (service, session)
}

/// Serves one line to the end, returning the response's length.
fn serve(service: &Service, session: &mut Session, line: &[u8]) -> usize {
    let anyone = Principal::anonymous();
    session.handle_incoming(jsonrpc::decode(line));
    let mut written = 0;
    while let Some(output) = session.poll_output() {
        match output {
            Output::Send(message) => written += message.bytes.len(),
            Output::Query { ticket, query } => {
                let context = QueryContext {
                    principal: &anyone,
                    subscriber: None,
                };
                let answer = pollster::block_on(service.answer(context, query));
                session.handle_answer(ticket, answer);
            }
            Output::Cancel { .. } => {}
        }
    }
    written
}

#[divan::bench]
fn read_static_1kib(bencher: Bencher<'_, '_>) {
    let (service, mut session) = setup();
    let line: &[u8] =
        br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mem:///r/0001"}}"#;
    bencher.bench_local(|| black_box(serve(&service, &mut session, black_box(line))));
}
