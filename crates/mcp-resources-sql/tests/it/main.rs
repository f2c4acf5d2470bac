//! The integration tests of `mcp-resources-sql`: the provider, through the core's engine,
//! against SQLite files made here.

mod sqlite;
