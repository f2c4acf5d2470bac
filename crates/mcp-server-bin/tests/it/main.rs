//! The integration tests of `mcp-server-bin`: the `mcp-resources` binary spawned as a user runs
//! it, one module per feature.

mod aliases;
mod bypass;
mod cli;
mod cluster;
mod git;
mod http;
mod redaction;
mod sensitive;
mod sql;
mod stdio;
mod tools;
