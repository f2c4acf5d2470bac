//! The integration tests of `mcp-resources-sql`: the provider, through the core's engine,
//! against SQLite files made here and a PostgreSQL server that `.ci/postgres` starts.

mod postgres;
mod sqlite;
