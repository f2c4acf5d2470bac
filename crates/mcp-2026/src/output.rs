//! What an [`Exchange`](crate::Exchange) hands to the driver: messages to write, queries to
//! run and cancellations, drained with `poll_output`.
//!
//! **Layer:** adapter, the sans-io output side. These are plain values with the exact shapes of
//! the driving contract shared with the legacy adapter; this module must never know how a
//! message is written (stdio line, JSON body, SSE event) or how a query is run.

use mcp_resources_core::service::Query;
use mcp_types::RequestId;

/// One thing the driver must do, drained from an exchange with
/// [`Exchange::poll_output`](crate::Exchange::poll_output) until `None`.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A message to write (compact JSON, no trailing newline).
    Send(Outgoing),
    /// Run `query` against the engine (with this request's principal and, for a listen stream,
    /// its subscriber) and feed the answer back with
    /// [`Exchange::handle_answer`](crate::Exchange::handle_answer).
    Query {
        /// The ticket to give back with the answer.
        ticket: Ticket,
        /// What to ask the service.
        query: Query,
    },
    /// The client cancelled the work of this ticket: drop it; any answer fed later is ignored.
    Cancel {
        /// The ticket of the query to drop.
        ticket: Ticket,
    },
}

/// A message to write to the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The message: compact JSON, no trailing newline.
    pub bytes: Vec<u8>,
    /// The request this message answers or relates to. In this era every message relates to a
    /// request (a response, a request-scoped progress or log notification, or a notification of
    /// a listen stream), so it is always `Some`.
    pub related: Option<RequestId>,
    /// Whether this is the final response of `related` (the HTTP transport ends the POST's
    /// stream or sends the JSON body when it sees it).
    pub is_response: bool,
}

/// Identifies one query of one exchange, to match its answer. Opaque; unique within the
/// [`Handler`](crate::Handler) that started the exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub(crate) u64);

impl Ticket {
    /// The ticket as a number, for logs and for keys in the driver's own tables.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}
