//! The pure engine of MCP resources: URIs, RFC 6570 templates, routing, pagination,
//! subscriptions and access control.
//!
//! **Layer:** core. It speaks domain terms only (resource URI, resource, template, contents,
//! principal, policy, page, change, subscriber). It must never know a protocol version, a
//! JSON-RPC method name, JSON itself, tokio or any I/O. Its one seam to the outside world is the
//! async [`Provider`](crate) trait, whose futures carry no runtime types.

pub mod template;
pub mod uri;
