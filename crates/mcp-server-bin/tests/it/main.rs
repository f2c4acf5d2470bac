//! The integration tests of `mcp-server-bin`, one module per feature.

mod cli;
mod era;
mod example;
mod filesystem;
mod http;
mod lines;
mod stdio;
