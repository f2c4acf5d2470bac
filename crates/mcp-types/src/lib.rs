//! Wire types of every Model Context Protocol version a resources server speaks.
//!
//! **Layer:** wire types, the bottom of the stack. Plain data with `serde` and `schemars`
//! derives. It must never know async, I/O, the resources engine or either adapter.
//!
//! # Versions and eras
//!
//! | version | era | module | what changed for resources |
//! | --- | --- | --- | --- |
//! | 2024-11-05 | legacy | [`v2024_11_05`] | first version; `-32002` not found |
//! | 2025-03-26 | legacy | [`v2025_03_26`] | batches, `completions` capability (same shapes) |
//! | 2025-06-18 | legacy | [`v2025_06_18`] | `title`, `_meta`, `lastModified`, resource links |
//! | 2025-11-25 | legacy | [`v2025_11_25`] | `icons` |
//! | 2026-07-28 | modern | [`v2026_07_28`] | stateless: `_meta` per request, `resultType`, `ttlMs`, `cacheScope`, `server/discover`, `subscriptions/listen` |
//!
//! [`ProtocolVersion`] is an open type (an unknown version still parses) with the facts an
//! adapter needs to shape its output ([`ProtocolVersion::has_titles`],
//! [`ProtocolVersion::allows_batches`], ...).
//!
//! # How per-version shaping works
//!
//! The area modules ([`resources`], [`lifecycle`], [`completion`], ...) hold the newest shape of
//! each type. Each revision module exposes the types exactly as that version knows them: where a
//! shape changed it defines its own struct (for example [`v2024_11_05::Resource`] has no
//! `title`), and where it did not it re-exports the newer one. Every older shape converts from
//! the newest with `From`, dropping what the older version does not know, and the legacy result
//! containers are generic over their items with `into_version`. So an adapter builds one value
//! and emits it for the negotiated version.
//!
//! The JSON-RPC envelope ([`jsonrpc`]) keeps `params` as raw JSON so that an adapter
//! deserializes them straight into the typed params of the method.
//!
//! # Example
//!
//! ```
//! use mcp_types::jsonrpc::{self, Incoming, Message, Response};
//! use mcp_types::{resources, v2024_11_05, v2025_06_18};
//!
//! let bytes = br#"{"jsonrpc":"2.0","id":7,"method":"resources/list"}"#;
//! let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode(bytes) else {
//!     panic!("a single request");
//! };
//! let params: resources::PaginatedParams = request.params().unwrap();
//! assert_eq!(params.cursor, None);
//!
//! // Build the newest shape once...
//! let mut readme = resources::Resource::new("file:///project/README.md", "README.md");
//! readme.title = Some("Project documentation".into());
//! let page = resources::ListResourcesResult { resources: vec![readme], next_cursor: None, meta: None };
//!
//! // ...and emit it as 2024-11-05 knows it: no `title`.
//! let old: v2024_11_05::ListResourcesResult = page.clone().into_version();
//! let json = jsonrpc::to_vec(&Response::success(request.id.clone(), old)).unwrap();
//! assert_eq!(
//!     std::str::from_utf8(&json).unwrap(),
//!     r#"{"jsonrpc":"2.0","id":7,"result":{"resources":[{"uri":"file:///project/README.md","name":"README.md"}]}}"#
//! );
//!
//! // 2025-06-18 knows `title`.
//! let newer: v2025_06_18::ListResourcesResult = page.into_version();
//! assert_eq!(newer.resources[0].title.as_deref(), Some("Project documentation"));
//! ```

pub mod capabilities;
pub mod completion;
mod echo;
pub mod error;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod meta;
pub mod method;
pub mod notifications;
pub mod request_meta;
pub mod resources;
mod result_type;
pub mod skills;
pub mod subscriptions;
#[cfg(feature = "testing")]
pub mod testing;
pub mod v2024_11_05;
pub mod v2025_03_26;
pub mod v2025_06_18;
pub mod v2025_11_25;
pub mod v2026_07_28;
pub mod version;

pub use crate::jsonrpc::RequestId;
pub use crate::meta::Meta;
pub use crate::version::{Era, ProtocolVersion};
