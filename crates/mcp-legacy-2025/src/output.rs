//! What a legacy [`Session`](crate::Session) hands to the binary: messages to write, queries to
//! run and cancellations, drained with `poll_output`.
//!
//! **Layer:** adapter, the sans-io output side, below the session and the notification writer
//! that both produce these values. They are plain values with the shapes of the driving contract
//! shared with the modern adapter; this module must never know how a message is written (stdio
//! line, JSON body, SSE event), how a query is run, or the session's state.

use mcp_resources_core::service::Query;
use mcp_types::RequestId;

/// Names one query the session asked the binary to run. Opaque; unique within a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket(pub(crate) u64);

/// One effect of the session, drained with [`Session::poll_output`](crate::Session::poll_output).
#[derive(Debug)]
pub enum Output {
    /// A message to write.
    Send(Outgoing),
    /// Run `query` against the engine (with this session's principal and subscriber) and feed
    /// the answer back with [`Session::handle_answer`](crate::Session::handle_answer).
    Query {
        /// The ticket to feed the answer back with.
        ticket: Ticket,
        /// The question for `Service::answer`.
        query: Query,
    },
    /// The client cancelled the work of this ticket: drop it; any answer fed later is ignored.
    Cancel {
        /// The ticket of the dropped query.
        ticket: Ticket,
    },
}

/// One message to write to the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The message: compact JSON, no trailing newline.
    pub bytes: Vec<u8>,
    /// The request this message answers or relates to (a response, or the progress of that
    /// request); `None` for unsolicited messages (resource notifications and log messages,
    /// which on HTTP go to the GET stream) and for the error answering a message whose id could
    /// not be read. For a batch, the id of the batch's first request.
    pub related: Option<RequestId>,
    /// Whether this is the final response of `related` (or, with `related: None`, the error
    /// answering an unreadable message): the HTTP transport ends the POST's stream on it.
    pub is_response: bool,
}
