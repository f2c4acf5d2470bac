//! The wire types of protocol version 2025-03-26, exactly as that version knows them.
//!
//! **Layer:** wire types, one revision. For everything a resources server sends or receives, the
//! shapes are those of 2024-11-05 (re-exported here). What changed is not a shape but a fact of
//! the version, exposed on [`crate::ProtocolVersion`]: JSON-RPC batches are legal
//! ([`allows_batches`](crate::ProtocolVersion::allows_batches)), the `completions` capability
//! exists ([`ServerCapabilities::for_version`] keeps it), and progress notifications may carry a
//! `message` ([`ProgressNotificationParams::for_version`] keeps it). This module must never know
//! sessions or transports.

pub use crate::v2024_11_05::*;
