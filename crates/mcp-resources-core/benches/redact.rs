//! Benchmarks of the content rules: the built-in credential rules over 1 MiB of ordinary
//! source text (a planted assignment every thousand lines), beside what the same text costs to
//! encode as a JSON string (what every read of it pays anyway): the budget is that
//! redaction adds at most half of a read's server CPU.
//!
//! Run with `cargo bench -p mcp-resources-core --bench redact`.
//!
//! **Layer:** a bench of the core, built only by `cargo bench`; it never knows a provider, a
//! transport or a file.

use divan::{Bencher, black_box};
use mcp_resources_core::redact::Redactor;

fn main() {
    divan::main();
}

/// About 1 MiB of source-like lines, a secret assignment every 997 lines.
fn source() -> String {
    let mut text = String::new();
    let mut line = 0;
    while text.len() < 1 << 20 {
        text.push_str(&format!(
            "    let value_{line} = compute(\"input {line}\", &config.path, 42); // step {line} of the pipeline\n"
        ));
        if line % 997 == 0 {
            text.push_str("API_TOKEN = \"Xk9#mQ2$vL7pW4zR\"\n");
        }
        line += 1;
    }
    text
}

/// The built-in credential rules over 1 MiB.
#[divan::bench(sample_count = 50)]
fn credentials_over_1_mib(bencher: Bencher<'_, '_>) {
    let text = source();
    let redactor = Redactor::credentials();
    assert!(redactor.redact("file:///s.rs", &text).counts[0].1 > 1);
    bencher.bench(|| black_box(redactor.redact(black_box("file:///s.rs"), black_box(&text))));
}

/// The same 1 MiB encoded as a JSON string, for scale.
#[divan::bench(sample_count = 50)]
fn json_encoding_of_1_mib(bencher: Bencher<'_, '_>) {
    let text = source();
    bencher.bench(|| black_box(serde_json::to_string(black_box(&text))));
}
