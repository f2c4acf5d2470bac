//! Sans-io adapter for the legacy, initialize/session era of the Model Context Protocol
//! (2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25): MCP resources served from
//! [`mcp_resources_core`], exactly as each of those versions says.
//!
//! **Layer:** adapter. It sits between [`mcp_types`] (the wire) and [`mcp_resources_core`] (the
//! engine). It must never know tokio, sockets, clocks or the modern era's adapter (`mcp-2026`).
//!
//! # The driving contract
//!
//! One [`Session`] per stdio process or Streamable HTTP session. The session is a state machine:
//! it never reads the clock, awaits, spawns or does I/O. Its driver (the server binary):
//!
//! 1. **Feeds** it:
//!    - [`Session::handle_incoming`] with the result of [`mcp_types::jsonrpc::decode`] of one
//!      stdio line or one POST body (a decode error is fed too: it becomes `-32700` or `-32600`);
//!    - [`Session::handle_answer`] with the [`Answer`](mcp_resources_core::service::Answer) to
//!      each [`Output::Query`];
//!    - [`Session::handle_changes`] with `Service::drain_changes(subscriber)` whenever
//!      `Service::resource_updated` or `Service::list_changed` names this session's subscriber;
//!    - [`Session::log`] with any log message meant for the client.
//! 2. **Drains** [`Session::poll_output`] until `None` after every call, and carries out each
//!    [`Output`] in order:
//!    - `Send`: write the bytes (compact JSON, one line on stdio). On HTTP, `related` and
//!      `is_response` say which POST stream a message belongs to; `related: None` with
//!      `is_response: false` goes to the GET stream.
//!    - `Query`: run `Service::answer(QueryContext { principal, subscriber }, query)`, where
//!      `principal` is the session's principal (on stdio from the environment; on HTTP the
//!      principal authenticated on *every* POST, which the driver refuses when it differs from
//!      the one the session was opened with: a session id is never a credential) and
//!      `subscriber` is the `SubscriberId` the driver got from `Service::add_subscriber` for
//!      this session (and gives back with `Service::remove_subscriber` when the session ends).
//!      Every query of the session carries that principal, so access control applies to every
//!      request. Feed the answer back with its ticket.
//!    - `Cancel`: drop the work of that ticket if it is still running; an answer fed later is
//!      ignored anyway.
//!
//! The session keeps no timers and never reads a clock, so no call takes the time. A complete
//! blocking stdio server is the `stdio` example of this crate.
//!
//! # Ordering
//!
//! Messages are applied in arrival order. Session state (`initialize`, `logging/setLevel`, the
//! lifecycle) changes synchronously inside `handle_incoming`. The queries that change
//! subscription state (`Subscribe`, `Unsubscribe`, `WatchListChanges`) are emitted **one at a
//! time**: the next one is emitted only once the answer to the previous one has been fed, so
//! they reach the hub in arrival order however the driver schedules them. Reads (`ListResources`,
//! `ListTemplates`, `Read`, `Complete`) are emitted at once and may run concurrently; their
//! responses come out in the order their answers are fed, which may differ from the order of
//! the requests (JSON-RPC allows it, and ids tell them apart). A read is not held back behind an
//! earlier subscribe: the two touch different state.
//!
//! # Lifecycle and errors
//!
//! [`LifecycleState`]: `Uninitialized` → (`initialize`) → `Initializing` →
//! (`notifications/initialized`) → `Ready`.
//!
//! - `initialize` negotiates the client's version when [`LegacyConfig::supported`] has it, else
//!   the newest supported legacy version, and declares `resources {subscribe, listChanged}` and
//!   `completions` (2025-03-26 on) from the [`Offer`](mcp_resources_core::service::Offer), and
//!   `logging` always. A second `initialize` gets `-32600`.
//! - Before `initialize`, every request but `ping` gets `-32600` ("session is not initialized").
//!   In `Initializing` requests are served (the client already has the result); resource
//!   notifications start only in `Ready`, where the session also asks the core, once, to
//!   deliver list changes (`Query::WatchListChanges`) when `listChanged` is offered.
//! - Unknown methods, and `resources/subscribe`/`unsubscribe`, `completion/complete` or
//!   `tools/list`/`tools/call` (the resources-as-tools bridge, `Offer::tools`) when their
//!   capability is not offered, get `-32601`; a tool call with bad arguments is a tool error
//!   (`isError: true`).
//! - The full table of codes is in the `errors` module (resource not found: `-32002` with
//!   `data: {uri}`; invalid params and cursors: `-32602`). The session keeps serving after every
//!   error.
//! - An error answering a message whose id could not be read (`-32700`, some `-32600`) has no
//!   `id` member, as [`mcp_types::jsonrpc::Response`] writes it (valid in 2025-11-25's schema;
//!   the older schemas have no valid shape for such an error).
//! - Only requests are answered. A notification is never answered, even one that does not
//!   decode (a `method` without an `id`, with bad params or a bad `jsonrpc`); nor is a response,
//!   even a malformed one ([`mcp_types::jsonrpc::DecodeError::is_answered`]): a response to one
//!   of the server's own requests (below) is taken, any other dropped. Inside a batch, such
//!   elements are left out of the responses.
//!
//! # Reads that need the client's input
//!
//! A read the core answers with `ReadError::InputRequired` (a sensitive resource the user must
//! confirm, or a provider's question) makes the session send its own requests
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`, ids `mcp-resources/ask/N`,
//! unrelated to the read so that over HTTP they go on the GET stream) and read again with the
//! answers once all have come. A client that did not declare a capability a request needs (or
//! a version without elicitation, before 2025-06-18) gets `-32600` naming them in
//! `data.requiredCapabilities`; a client error instead of an answer counts as no; a read waits
//! at most [`ASK_TICKS`] calls of [`Session::tick`] (the driver ticks once a second while
//! [`Session::is_asking`]), and at most 16 reads of a session wait at once. See the `asking`
//! module.
//!
//! # Batches
//!
//! JSON-RPC batches are accepted only once 2025-03-26 has been negotiated; under every other
//! version, and before `initialize`, a batch gets one `-32600` error without an id. In an
//! accepted batch, `initialize` gets `-32600`, notifications are applied and answered by
//! nothing, and the responses of the batch's requests are sent as **one** JSON array, in the order
//! of the batch's elements, once all of them are answered (a batch of notifications only sends
//! nothing; a cancelled request of the batch is left out). Its `related` is the id of the batch's
//! first request.
//!
//! # Cancellation, progress, logging
//!
//! - `notifications/cancelled` for a read in flight emits [`Output::Cancel`] and no response is
//!   sent. For a subscription request the query is let run (it is instant and ordered) and its
//!   response is dropped. Unknown ids are ignored.
//! - A request answered through the core whose params carry `_meta.progressToken` gets one
//!   `notifications/progress` `{progress: 1, total: 1, message: "done"}` (no `message` in
//!   2024-11-05) just before its response, with `related` set to the request.
//! - `logging/setLevel` stores the level; [`Session::log`] sends `notifications/message` only at
//!   or above it ([`DEFAULT_LOG_LEVEL`] until the client sets one) and only after `initialize`.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//!
//! use mcp_legacy_2025::{LegacyConfig, LifecycleState, Output, Session};
//! use mcp_resources_core::service::Offer;
//! use mcp_types::jsonrpc::decode;
//! use mcp_types::lifecycle::Implementation;
//!
//! let config = LegacyConfig::new(Implementation::new("example", "1.0.0"), Offer::default());
//! let mut session = Session::new(Arc::new(config));
//! session.handle_incoming(
//!     decode(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#),
//! );
//! let Some(Output::Send(response)) = session.poll_output() else { panic!("a response") };
//! assert!(std::str::from_utf8(&response.bytes).unwrap().contains(r#""protocolVersion":"2025-06-18""#));
//! assert_eq!(session.state(), LifecycleState::Initializing);
//!
//! session.handle_incoming(decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#));
//! assert_eq!(session.state(), LifecycleState::Ready);
//! // Ready, and list changes are offered: the session asks the core to deliver them.
//! assert!(matches!(session.poll_output(), Some(Output::Query { .. })));
//! ```

mod asking;
pub mod errors;
mod session;
mod wire;

pub use crate::asking::ASK_TICKS;
pub use crate::session::{DEFAULT_LOG_LEVEL, LegacyConfig, LifecycleState, Session, SessionRecord};
pub use mcp_resources_wire::output::{Outgoing, Output, Ticket};
