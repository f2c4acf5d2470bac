//! The integration tests of `mcp-resources-fs`: the provider against real temporary directories.

mod directories;
mod filesystem;
mod skills;
