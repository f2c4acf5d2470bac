//! A 1 MiB text file read whole through the engine over the filesystem provider, with the
//! built-in content rules on and off, then encoded as a JSON string as the adapters do: the
//! cost the content rules add to a read (the budget: at most half again of the read
//! without them). The transport's cost, the same on both sides, is left out, so the ratio
//! here is an upper bound of the server's.
//!
//! Run with `cargo bench -p mcp-resources-fs --bench read`. The file is ordinary source-like
//! text with a secret assignment every thousand lines; it stays in the page cache, and the
//! provider's read cache is off, so each read opens and reads the file.
//!
//! **Layer:** a bench of the provider crate, built only by `cargo bench`; it reaches the
//! provider through its public API and the core's engine alone.

use std::hint::black_box;
use std::sync::Arc;

use divan::Bencher;
use mcp_resources_core::engine::{Engine, Limits};
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::redact::Redactor;
use mcp_resources_core::resource::Body;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_fs::{FilesystemProvider, FsConfig};

fn main() {
    divan::main();
}

/// A directory holding `source.rs`, about 1 MiB; the engine over it, rules on or off; its URI.
fn fixture(rules: bool) -> (tempfile::TempDir, Engine, ResourceUri) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut text = String::new();
    let mut line = 0;
    while text.len() < 1 << 20 {
        text.push_str(&format!(
            "    let value_{line} = compute(\"input {line}\", &config.path, 42); // step {line}\n"
        ));
        if line % 997 == 0 {
            text.push_str("API_TOKEN = \"Xk9#mQ2$vL7pW4zR\"\n");
        }
        line += 1;
    }
    std::fs::write(dir.path().join("source.rs"), &text).expect("write");
    let mut config = FsConfig::new([dir.path()]);
    config.watch = false;
    config.read_cache_bytes = 0;
    let provider = FilesystemProvider::new(config).expect("the provider");
    let mut builder = Engine::builder(CursorKey::new([1; 32]))
        .limits(Limits {
            max_read_bytes: 4 << 20,
            ..Limits::default()
        })
        .provider(Arc::new(provider));
    if rules {
        builder = builder.redactor(Redactor::credentials());
    }
    let engine = builder.build().expect("the engine");
    let root = dir.path().canonicalize().expect("the root");
    let uri = ResourceUri::parse(&format!("file://{}/source.rs", root.display())).expect("uri");
    (dir, engine, uri)
}

/// A whole read, encoded as the JSON string a response carries.
fn read_and_encode(engine: &Engine, uri: &ResourceUri) -> usize {
    let read = pollster::block_on(engine.read(&Principal::anonymous(), uri)).expect("read");
    match &read.contents[0].body {
        Body::Text(text) => serde_json::to_string(&**text).expect("encode").len(),
        Body::Bytes(_) => panic!("text"),
    }
}

/// `rule_sets`: 0, no content rules; 1, the built-in credential rules (divan's argument is a
/// number, for `cargo xtask bench`, which reads the table).
#[divan::bench(args = [0, 1], sample_count = 100)]
fn read_1_mib(bencher: Bencher<'_, '_>, rule_sets: usize) {
    let rules = rule_sets == 1;
    let (_dir, engine, uri) = fixture(rules);
    let secret_left = {
        let read = pollster::block_on(engine.read(&Principal::anonymous(), &uri)).expect("read");
        matches!(&read.contents[0].body, Body::Text(text) if text.contains("Xk9#mQ2"))
    };
    assert_eq!(
        secret_left, !rules,
        "the rules mask the planted secrets, and only them"
    );
    bencher.bench(|| black_box(read_and_encode(&engine, black_box(&uri))));
}
