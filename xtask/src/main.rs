//! `cargo xtask`: the project's automation (tidy checks, the conformance suite, interop with
//! other clients, benchmarks, fuzzing).
//!
//! **Layer:** tooling. Nothing depends on this crate, and it must never be needed to build or run
//! the product crates.

mod bench;
mod conformance;
mod cycles;
mod fuzz;
mod harness;
mod interop;
mod tidy;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("tidy") => match tidy::run_all() {
            Ok(()) => {
                println!("tidy: all checks passed");
                ExitCode::SUCCESS
            }
            Err(problems) => {
                for problem in &problems {
                    eprintln!("tidy: {problem}");
                }
                eprintln!("tidy: {} problem(s)", problems.len());
                ExitCode::FAILURE
            }
        },
        Some("conformance") => conformance::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("interop") => interop::run(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n\
                 commands:\n  \
                 tidy         check module docs, print macros in libraries, the dependency graph and ARCHITECTURE.md\n  \
                 conformance  run the official MCP conformance suite against mcp-resources (see --help)\n  \
                 bench        mcp-resources side by side with rmcp and a floor; writes BENCHMARKS.md (--quick)\n  \
                 fuzz         run each fuzz target of fuzz/ for a bounded time (--seconds N, default 60)\n  \
                 interop      clients nobody here wrote (Inspector, mcpdo, Python SDK, rmcp) against mcp-resources\n\n\
                 The same tidy checks run as part of `cargo test --workspace`."
            );
            ExitCode::from(2)
        }
    }
}
