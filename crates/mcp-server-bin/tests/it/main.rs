//! The integration tests of `mcp-server-bin`, one module per feature.

mod cli;
mod era;
mod example;
mod filesystem;
mod http;
mod limits;
mod lines;
mod stdio;
