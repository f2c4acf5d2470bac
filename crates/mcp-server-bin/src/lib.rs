//! A dual-era MCP resources server: the library behind the `mcp-resources` binary.
//!
//! **Layer:** server. This is the only crate that does I/O: it owns tokio, the stdio and
//! Streamable HTTP transports, era selection (the one place that names both adapters) and the
//! concrete providers (filesystem, later git and SQLite). It never implements protocol rules
//! itself: the adapters `mcp-legacy-2025` and `mcp-2026` do, and the core engine answers.
//!
//! # Serving your own resources
//!
//! Build a [`Server`] from static resources, templates backed by functions and providers, then
//! serve it on stdio with [`Server::serve_stdio`] or over Streamable HTTP with
//! [`Server::serve_http`]. Clients of every protocol version, from
//! 2024-11-05 to 2026-07-28, are served at once.
//!
//! ```no_run
//! use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
//! use mcp_resources_core::template::UriTemplate;
//! use mcp_resources_core::uri::ResourceUri;
//! use mcp_server_bin::Server;
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
//! - [`Server`] and [`ServerBuilder`]: what is served and how the server presents itself.
//! - [`era`]: the one function that decides which adapter serves a message.
//! - The stdio transport ([`Server::serve_stdio`], [`Server::serve_lines`]).
//! - The Streamable HTTP transport ([`Server::router`] to mount in your own axum app,
//!   [`Server::serve_http`] to run it alone), both eras on one endpoint, with [`HttpOptions`].
//! - [`guard`]: the `Origin` and `Host` checks of the HTTP transport, public so that they can
//!   be fuzzed and reused on their own.
//! - [`filesystem`]: the provider serving directories as live `file://` resources.
//! - [`config`]: the configuration of the `mcp-resources` binary (TOML file and flags).

pub mod config;
mod driver;
pub mod era;
pub mod filesystem;
mod http;
pub mod resources_config;
mod server;
mod stdio;

pub use crate::http::{HttpOptions, auth, guard};
pub use crate::server::{BuildError, Server, ServerBuilder};
pub use crate::stdio::{MAX_LINE_BYTES, MAX_LISTEN_STREAMS};

/// The most messages one JSON-RPC batch (2025-03-26 legacy sessions) may hold, on stdio and
/// over HTTP. A longer batch is refused whole with `-32600` (on HTTP with `400`): its
/// responses are sent together, so each element could otherwise hold a read of the largest
/// size in memory until the last is done.
pub const MAX_BATCH_MESSAGES: usize = 256;
