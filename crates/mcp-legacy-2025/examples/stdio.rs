//! The shortest useful legacy MCP server: two resources over stdio, driven without any async
//! runtime (each query is awaited with `pollster`). Try it with
//! `cargo run -p mcp-legacy-2025 --example stdio` and type:
//!
//! ```text
//! {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"me","version":"1"}}}
//! {"jsonrpc":"2.0","method":"notifications/initialized"}
//! {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mem:///hello.txt"}}
//! ```

use std::io::{BufRead, Write};
use std::sync::Arc;

use mcp_legacy_2025::{LegacyConfig, Output, Session};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::service::{QueryContext, Service};
use mcp_resources_core::uri::ResourceUri;
use mcp_types::jsonrpc::decode;
use mcp_types::lifecycle::Implementation;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hello = ResourceUri::parse("mem:///hello.txt")?;
    let logo = ResourceUri::parse("mem:///logo.bin")?;
    let engine = Engine::builder(CursorKey::new([42; 32]))
        .static_resource(
            Resource::new(hello.clone(), "hello.txt").with_mime_type("text/plain"),
            vec![Contents::text(hello, "Hello, world!")],
        )
        .static_resource(
            Resource::new(logo.clone(), "logo.bin"),
            vec![Contents::bytes(logo, vec![0xca, 0xfe])],
        )
        .build()?;
    let service = Service::new(engine);
    let subscriber = service.add_subscriber();
    let principal = Principal::anonymous();
    let config = LegacyConfig::new(
        Implementation::new("stdio-example", "0.1.0"),
        service.offer(),
    );
    let mut session = Session::new(Arc::new(config));

    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        session.handle_incoming(decode(line.as_bytes()));
        while let Some(output) = session.poll_output() {
            match output {
                Output::Send(outgoing) => {
                    stdout.write_all(&outgoing.bytes)?;
                    stdout.write_all(b"\n")?;
                    stdout.flush()?;
                }
                Output::Query { ticket, query } => {
                    let context = QueryContext {
                        principal: &principal,
                        subscriber: Some(subscriber),
                    };
                    let answer = pollster::block_on(service.answer(context, query));
                    session.handle_answer(ticket, answer);
                }
                // Queries are answered at once here, so there is never anything to drop.
                Output::Cancel { .. } => {}
            }
        }
    }
    service.remove_subscriber(subscriber);
    Ok(())
}
