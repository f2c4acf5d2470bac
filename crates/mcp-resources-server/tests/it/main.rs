//! The integration tests of `mcp-resources-server`, one module per feature: era selection, the
//! example, both transports over real loopback sockets and in-memory lines, the limits, and
//! instances sharing a change feed.

mod era;
mod example;
mod feed;
mod http;
mod limits;
mod lines;
mod sessions;
