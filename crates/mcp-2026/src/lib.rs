//! Sans-io adapter for the stateless era of the Model Context Protocol (2026-07-28).
//!
//! **Layer:** adapter. It sits between [`mcp_types`] (the wire) and [`mcp_resources_core`] (the
//! engine). It must never know tokio, sockets, clocks or the legacy era's adapter
//! (`mcp-legacy-2025`).
//!
//! **Status:** not built yet. This crate will hold the per-request handler (`_meta` validation,
//! `server/discover`, `resultType`, `ttlMs` and `cacheScope` on results), the
//! `subscriptions/listen` stream state machine, the header/body agreement check used by the HTTP
//! transport, and the mapping of core errors to this era's JSON-RPC errors (resource not found is
//! `-32602`). It exports nothing today, so that nothing pretends to work.
