//! What an adapter of either era hands to its driver: messages to write, queries to run, and
//! queries to drop. Both adapters are drained the same way, so the values are the same.
//!
//! **Layer:** wire conversion, the sans-io output side of the driving contract shared by
//! `mcp-legacy-2025` and `mcp-2026`. These are plain values; this module must never know how a
//! message is written (stdio line, JSON body, SSE event), how a query is run, or an adapter's
//! state.

use mcp_resources_core::service::Query;
use mcp_types::jsonrpc::RequestId;

/// One thing the driver must do, drained from a legacy session or a modern exchange with its
/// `poll_output` until `None`.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A message to write (compact JSON, no trailing newline).
    Send(Outgoing),
    /// Run `query` against the core's `Service` (with the principal of the session or request
    /// and, where there is one, its subscriber) and feed the answer back with the adapter's
    /// `handle_answer`.
    Query {
        /// The ticket to give back with the answer.
        ticket: Ticket,
        /// What to ask the service.
        query: Query,
    },
    /// Drop the query of `ticket` if it is still running; an answer fed later is ignored.
    Cancel {
        /// The ticket of the query to drop.
        ticket: Ticket,
    },
}

/// A message to write to the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The compact JSON of the message.
    pub bytes: Vec<u8>,
    /// The request this message answers or relates to (a response, or the progress of that
    /// request). In the modern era every message relates to a request, a listen stream's
    /// notifications included. In the legacy era `None` marks unsolicited messages (resource
    /// notifications and log messages, which on HTTP go to the GET stream) and the error
    /// answering a message whose id could not be read; for a batch it is the id of the batch's
    /// first request.
    pub related: Option<RequestId>,
    /// Whether this is the final response of `related` (or, with `related: None`, the error
    /// answering an unreadable message): the HTTP transport ends the POST's stream, or sends the
    /// JSON body, on it.
    pub is_response: bool,
}

/// Names one query an adapter asked its driver to run, to match its answer. Opaque; unique
/// within the session or handler that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(u64);

impl Ticket {
    /// The ticket numbered `number` (adapters number their queries).
    pub fn new(number: u64) -> Ticket {
        Ticket(number)
    }

    /// The ticket as a number, for logs and for keys in the driver's own tables.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}
