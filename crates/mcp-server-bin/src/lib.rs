//! A dual-era MCP resources server: the library behind the `mcp-resources` binary.
//!
//! **Layer:** server. This is the only crate that does I/O: it owns tokio, the stdio and
//! Streamable HTTP transports, era selection (the one place that names both adapters) and the
//! concrete providers (filesystem, later git and SQLite).
//!
//! **Status:** not built yet. It exports nothing today, so that nothing pretends to work; the
//! server builder, the transports and the filesystem provider arrive with the binary's issue.
