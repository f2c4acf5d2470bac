//! The `mcp-resources` command line.
//!
//! **Layer:** server binary. Parses the command line and hands everything else to the library
//! crate.
//!
//! **Status:** the server is not built yet; the binary says so and exits with status 2 instead of
//! pretending to serve.

use std::process::ExitCode;

fn main() -> ExitCode {
    let message = "mcp-resources: the server is not built yet; \
                   this workspace holds the wire types and the engine so far\n";
    // Stdout is reserved for the protocol, so even this goes to stderr.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
    ExitCode::from(2)
}
