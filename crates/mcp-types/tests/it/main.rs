//! Integration tests of the wire types, one module per area.

mod common;
mod examples;
mod fixtures;
mod jsonrpc;
mod meta;
mod schema;
mod shaping;
mod snapshots;
mod version;
