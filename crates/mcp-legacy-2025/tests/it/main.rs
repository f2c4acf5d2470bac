//! The integration tests of `mcp-legacy-2025`: transcripts per version, the lifecycle and
//! driving contract, and a property test over arbitrary message sequences.

mod asking;
mod fixture;
mod lifecycle;
mod properties;
mod schema;
mod transcripts;
