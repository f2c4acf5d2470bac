//! A dual-era MCP resources server as a library: give it what to serve, and it serves clients
//! of every protocol version, from 2024-11-05 to 2026-07-28, on stdio and Streamable HTTP.
//!
//! **Layer:** server. This crate owns tokio, the stdio transport, the Streamable HTTP transport
//! (feature `http`; JSON Web Tokens checked against given keys with feature `auth`) and era
//! selection, the one place that names both adapters. It never implements protocol rules itself
//! (the adapters `mcp-legacy-2025` and `mcp-2026` do, and the core engine answers) and it names no
//! concrete provider: providers plug in through the core's `Provider` seam, and their sources of
//! change through `ChangeSource` ([`Server::follow`]).
//!
//! # Serving your own resources
//!
//! Build a [`Server`] from static resources, templates backed by functions and providers, then
//! serve it on stdio with [`Server::serve_stdio`] or, with feature `http`, over Streamable HTTP
//! with `Server::serve_http`. Clients of every protocol version, from 2024-11-05 to 2026-07-28,
//! are served at once.
//!
//! ```no_run
//! use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
//! use mcp_resources_core::template::UriTemplate;
//! use mcp_resources_core::uri::ResourceUri;
//! use mcp_resources_server::Server;
//!
//! # async fn run() -> std::io::Result<()> {
//! let readme = ResourceUri::parse("docs://readme").unwrap();
//! let server = Server::builder()
//!     .server_info("docs", "1.0.0")
//!     .static_resource(
//!         Resource::new(readme.clone(), "readme"),
//!         vec![Contents::text(readme, "# Docs")],
//!     )
//!     .template_fn(
//!         ResourceTemplate::new(UriTemplate::parse("docs://greeting/{name}").unwrap(), "greeting"),
//!         |uri, variables| {
//!             let text = format!("Hello, {}!", variables.get_str("name").unwrap_or("you"));
//!             let contents = Contents::text(uri.clone(), text);
//!             async move { Ok(vec![contents]) }
//!         },
//!     )
//!     .build()
//!     .unwrap();
//! server.serve_stdio().await
//! # }
//! ```
//!
//! # What is here
//!
//! - [`Server`] and [`ServerBuilder`]: what is served and how the server presents itself;
//!   [`Server::follow`] feeds a provider's changes to the subscribers.
//! - [`feed`]: many instances as one, through a change feed ([`ServerBuilder::feed`]):
//!   every instance's changes told to every instance's subscribers, and readiness.
//! - [`era`]: the one function that decides which adapter serves a message.
//! - The stdio transport ([`Server::serve_stdio`], [`Server::serve_lines`]).
//! - With feature `http`: the Streamable HTTP transport (`Server::router` to mount in your own
//!   axum app, `Server::serve_http` to run it alone), both eras on one endpoint, with
//!   `HttpOptions`; `guard`, the `Origin` and `Host` checks, public so that they can be fuzzed and
//!   reused on their own; `auth`, bearer tokens.

pub mod audit;
mod driver;
pub mod era;
pub mod feed;
#[cfg(feature = "http")]
mod http;
mod server;
mod stdio;
mod wake;

pub use crate::driver::Subscriber;
#[cfg(feature = "http")]
pub use crate::http::{HttpOptions, auth, guard};
pub use crate::server::{BuildError, Server, ServerBuilder};
pub use crate::stdio::{MAX_LINE_BYTES, MAX_LISTEN_STREAMS};

/// The most messages one JSON-RPC batch (2025-03-26 legacy sessions) may hold, on stdio and
/// over HTTP. A longer batch is refused whole with `-32600` (on HTTP with `400`): its
/// responses are sent together, so each element could otherwise hold a read of the largest
/// size in memory until the last is done.
pub const MAX_BATCH_MESSAGES: usize = 256;
