//! Sans-io adapter for the stateless era of the Model Context Protocol (2026-07-28).
//!
//! **Layer:** adapter. It sits between [`mcp_types`] (the wire) and [`mcp_resources_core`] (the
//! engine). It must never know tokio, sockets, clocks or the legacy era's adapter
//! (`mcp-legacy-2025`).
//!
//! # The driving contract
//!
//! A [`Handler`] is made once per server from a [`ModernConfig`] and shared by reference. For
//! every decoded request the binary routes to the modern era it calls [`Handler::start`] (stdio)
//! or [`Handler::start_http`] (Streamable HTTP, which adds the header checks), and gets one
//! [`Exchange`]. Then, for an exchange, until
//! [`Exchange::is_finished`] and the queue is empty:
//!
//! 1. drain [`Exchange::poll_output`] until `None`:
//!    - [`Output::Send`]. Write the message (compact JSON, no trailing newline). Every message
//!      relates to the request (`related` is its id); `is_response` marks the final one.
//!    - [`Output::Query`]. Await
//!      [`Service::answer`](mcp_resources_core::service::Service::answer) with the request's
//!      principal (and, for a listen stream, the subscriber the binary allocated for this
//!      exchange with `Service::add_subscriber`), then call [`Exchange::handle_answer`].
//!    - [`Output::Cancel`]. Drop the query of that ticket.
//! 2. for a listen stream ([`Exchange::is_listen`]), whenever `Service::resource_updated` or
//!    `Service::list_changed` names its subscriber, feed `Service::drain_changes` to
//!    [`Exchange::handle_changes`]; on client cancellation (stdio `notifications/cancelled`, HTTP
//!    disconnect) call [`Exchange::cancel`]; on shutdown call [`Exchange::close`] (and on
//!    stdio then send [`cancelled_notification`]). Remove the subscriber when the exchange ends.
//!
//! Nothing here blocks, sleeps, spawns or reads the clock: every call returns
//! at once. Exchanges are independent: many listen streams and requests may be open at once.
//!
//! # Order of checks
//!
//! `params._meta` and its required keys (`-32602`, HTTP 400), then (HTTP only) the headers
//! against the body (`-32020`, HTTP 400), then the version (`-32022`, HTTP 400; a legacy
//! version in a modern `_meta` too), then the method (`-32601`, HTTP 404 for `initialize`,
//! `ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`, prompts,
//! unknown methods, `completion/complete` when completions are not offered, and tools unless
//! the resources-as-tools bridge is: `Offer::tools`, see `mcp_resources_wire::tools`), then
//! the method's params (`-32602`, HTTP 200). Every error and its status is in [`errors`]. A
//! tool call with bad arguments is a tool error (`isError: true`), not a JSON-RPC error.
//!
//! # What results carry
//!
//! `resultType: "complete"` on every result and `io.modelcontextprotocol/serverInfo` in every
//! result's `_meta`; integer `ttlMs` and `cacheScope` on discover, list, templates list and
//! read (from the core's caching hint, which is the same on every page of one list and private
//! whenever the principal shaped the answer; every one of them private, discover included,
//! when [`ModernConfig::private_results`] says so). Blobs are base64-encoded here.
//!
//! # Multi round-trip reads
//!
//! A read the core answers with `ReadError::InputRequired` (a sensitive resource the user must
//! confirm, or a provider's question) becomes an `InputRequiredResult` (`resultType:
//! "input_required"`, the requests under `inputRequests`, the core's `requestState`, no cache
//! hints), or `-32021` (HTTP 400) naming the capabilities the request did not declare: a
//! request is never asked through one it did not declare. A retry's `inputResponses` (read by
//! shape, at most 64) and `requestState` go to the core as they came, where whoever asked
//! checks them (the confirmation's state is HMAC-bound to principal, URI and expiry, and good
//! once).
//!
//! # Request-scoped notifications
//!
//! - Progress: a request whose `_meta` has a `progressToken` gets one
//!   `notifications/progress {progress: 1, total: 1}` just before its response (the work is a
//!   single step). Requests answered at once (`server/discover`, validation errors) get none.
//! - Logging (deprecated in 2026-07-28, still declared as `logging: {}` by discover): the binary
//!   may call [`Exchange::log`]; a `notifications/message` goes out only when the request's
//!   `_meta` named `io.modelcontextprotocol/logLevel` at or below the message's level, and only
//!   before the response. An invalid level fails the request with `-32602`.
//! - Neither ever goes on a listen stream.
//!
//! # Listen streams
//!
//! `subscriptions/listen` turns its filter into `Query::Listen` (only
//! `resourceSubscriptions` and `resourcesListChanged`; tools and prompts list changes are never
//! offered and never acknowledged). The answer becomes
//! `notifications/subscriptions/acknowledged`, the first message of the stream, listing exactly
//! what the service accepted (URIs the principal may not read are left out; `resourceSubscriptions`
//! is left out entirely when the server does not offer subscriptions). Every notification of the
//! stream carries `_meta["io.modelcontextprotocol/subscriptionId"]`, the listen request's id
//! with its JSON type.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//!
//! use mcp_2026::{Handler, ModernConfig, Output};
//! use mcp_resources_core::engine::Engine;
//! use mcp_resources_core::pagination::CursorKey;
//! use mcp_resources_core::policy::Principal;
//! use mcp_resources_core::resource::{Contents, Resource};
//! use mcp_resources_core::service::{QueryContext, Service};
//! use mcp_resources_core::uri::ResourceUri;
//! use mcp_types::jsonrpc::{self, Incoming, Message};
//! use mcp_types::v2026_07_28::Implementation;
//!
//! let readme = ResourceUri::parse("mem:///readme").unwrap();
//! let engine = Engine::builder(CursorKey::new([7; 32]))
//!     .static_resource(
//!         Resource::new(readme.clone(), "readme"),
//!         vec![Contents::text(readme, "Read me first.")],
//!     )
//!     .build()
//!     .unwrap();
//! let service = Service::new(engine);
//! let mut config = ModernConfig::new(Implementation::new("example", "1.0.0"));
//! config.offer = service.offer();
//! let handler = Handler::new(Arc::new(config));
//!
//! let line = br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"_meta":{
//!     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!     "io.modelcontextprotocol/clientCapabilities":{}},"uri":"mem:///readme"}}"#;
//! let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode(line) else {
//!     panic!("a request");
//! };
//! let mut exchange = handler.start(request);
//! let mut sent = Vec::new();
//! while let Some(output) = exchange.poll_output() {
//!     match output {
//!         Output::Send(message) => sent.push(String::from_utf8(message.bytes).unwrap()),
//!         Output::Query { ticket, query } => {
//!             let anyone = Principal::anonymous();
//!             let context = QueryContext { principal: &anyone, subscriber: None };
//!             let answer = pollster::block_on(service.answer(context, query));
//!             exchange.handle_answer(ticket, answer);
//!         }
//!         Output::Cancel { .. } => {}
//!     }
//! }
//! assert_eq!(
//!     sent,
//!     [r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","contents":[{"uri":"mem:///readme","text":"Read me first."}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}"#]
//! );
//! assert!(exchange.is_finished());
//! assert_eq!(exchange.http_status(), 200);
//! ```

mod config;
pub mod errors;
mod exchange;
mod handler;
pub mod headers;

mod convert;

pub use crate::config::ModernConfig;
pub use crate::errors::RequestError;
pub use crate::exchange::{Exchange, cancelled_notification};
pub use crate::handler::Handler;
pub use crate::headers::{HeaderError, RequestHeaders};
pub use mcp_resources_wire::output::{Outgoing, Output, Ticket};
