//! The integration tests of `mcp-2026`, one module per feature.

mod examples;
mod exchange;
mod headers;
mod mrtr;
mod properties;
mod support;
mod transcripts;
