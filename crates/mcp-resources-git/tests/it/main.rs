//! The integration tests of `mcp-resources-git`: the provider, through the core's engine,
//! against real repositories made here with the `git` command line.

mod fixture;
mod live;
mod provider;
