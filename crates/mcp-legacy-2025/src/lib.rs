//! Sans-io adapter for the legacy, initialize/session era of the Model Context Protocol
//! (2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25).
//!
//! **Layer:** adapter. It sits between [`mcp_types`] (the wire) and [`mcp_resources_core`] (the
//! engine). It must never know tokio, sockets, clocks or the modern era's adapter (`mcp-2026`).
//!
//! **Status:** not built yet. This crate will hold the legacy session state machine
//! (uninitialized → initializing → ready), method dispatch, per-version result shaping,
//! `resources/subscribe` bookkeeping through the core's subscription hub and the mapping of core
//! errors to this era's JSON-RPC errors (resource not found is `-32002`). It exports nothing today,
//! so that nothing pretends to work.
