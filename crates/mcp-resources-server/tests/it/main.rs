//! The integration tests of `mcp-resources-server`, one module per feature: era selection, the
//! example, both transports over real loopback sockets and in-memory lines, and the limits.

mod era;
mod example;
mod http;
mod limits;
mod lines;
