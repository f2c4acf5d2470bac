//! The modern path of the Streamable HTTP transport: one stateless [`mcp_2026::Exchange`] per
//! POST, answered with JSON (or a buffered SSE body when notifications precede the response),
//! and `subscriptions/listen` as a live SSE stream.
//!
//! **Layer:** server, HTTP transport. The adapter checks `_meta`, the headers against the body
//! and the version ([`mcp_2026::Handler::start_http`]); this module only runs the exchange's
//! queries and writes its messages. A client disconnect is a cancellation in this era: the
//! request's future is dropped with its query, and a listen stream's subscriber is removed.
//! Server shutdown ends a listen stream with its graceful result. At most
//! [`HttpOptions::max_listen_streams`](crate::HttpOptions::max_listen_streams) listen streams
//! are open at once, and at most
//! [`HttpOptions::max_listen_streams_per_client`](crate::HttpOptions::max_listen_streams_per_client)
//! for one client; a listen request beyond them gets `503`. This module never decides an
//! era and never looks at `Mcp-Session-Id` or `Last-Event-ID`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::HeaderMap;
use mcp_2026::{Exchange, Output, RequestHeaders};
use mcp_types::jsonrpc::Request;
use tokio::sync::Notify;
use tokio::time::Interval;
use tokio_util::sync::WaitForCancellationFutureOwned;

use crate::driver::{self, SubscriberGuard};
use crate::http::limits::Held;
use crate::http::reply::{self, Response};
use crate::http::sse;
use crate::http::state::HttpState;
use crate::wake::Wake;

/// Serves one modern request. The exchange starts at the call, so the request is not kept in
/// the future (nor, with it, in the task of every live stream).
pub(crate) fn request<'a>(
    state: &'a HttpState,
    headers: &HeaderMap,
    request: Request,
) -> impl Future<Output = Response> + 'a {
    let exchange = state.modern().start_http(request, &view(headers));
    serve(state, exchange)
}

/// The headers as the adapter reads them.
fn view(headers: &HeaderMap) -> RequestHeaders<'_> {
    // Sized at once: collecting would grow the vector from its iterator's lower bound.
    let mut view = RequestHeaders::with_capacity(headers.len());
    for (name, value) in headers {
        view.push(name.as_str(), value.as_bytes());
    }
    view
}

/// Runs a new exchange to its response, or opens its listen stream.
async fn serve(state: &HttpState, mut exchange: Exchange) -> Response {
    if exchange.is_listen() {
        // Boxed, as it is rare: inline, its setup would size every request's future.
        return Box::pin(listen(state, exchange)).await;
    }
    let mut messages = Vec::new();
    loop {
        match exchange.poll_output() {
            Some(Output::Send(outgoing)) => messages.push(outgoing.bytes),
            Some(Output::Query { ticket, query }) => {
                // Boxed: inline, the query's future would be part of every request's future,
                // and so of every HTTP/2 stream's task, live streams included.
                let answer = Box::pin(driver::answer(
                    Arc::clone(&state.shared.service),
                    Arc::clone(&state.principal),
                    None,
                    query,
                ))
                .await;
                exchange.handle_answer(ticket, answer);
            }
            // Only after a cancellation, which cannot happen here: a dropped POST drops this.
            Some(Output::Cancel { .. }) => {}
            None => break,
        }
    }
    reply::modern(exchange.http_status(), messages)
}

/// `subscriptions/listen`: a subscriber of its own, the acknowledgment first, then the tagged
/// notifications, keep-alive comments in between, the graceful result at shutdown.
async fn listen(state: &HttpState, mut exchange: Exchange) -> Response {
    let slot = match state.listen_streams.take(&state.client, 1) {
        Ok(slot) => slot,
        Err(refused) => {
            tracing::warn!(
                client = ?state.client,
                ?refused,
                "listen stream limit reached; subscriptions/listen refused"
            );
            return reply::status(axum::http::StatusCode::SERVICE_UNAVAILABLE);
        }
    };
    let changes = Arc::new(Notify::new());
    let subscriber = SubscriberGuard::new(&state.shared, Arc::clone(&changes) as Wake);
    let mut frames = VecDeque::new();
    // The listen query, answered at once; its answer becomes the acknowledgment.
    while let Some(output) = exchange.poll_output() {
        match output {
            Output::Send(outgoing) => frames.push_back(sse::message(&outgoing.bytes)),
            Output::Query { ticket, query } => {
                let answer = Box::pin(driver::answer(
                    Arc::clone(&state.shared.service),
                    Arc::clone(&state.principal),
                    Some(subscriber.id()),
                    query,
                ))
                .await;
                exchange.handle_answer(ticket, answer);
            }
            Output::Cancel { .. } => {}
        }
    }
    tracing::debug!(id = ?exchange.request_id(), "listen stream opened");
    let stream = ListenStream {
        state: state.clone(),
        _slot: slot,
        exchange,
        subscriber,
        changes,
        shutdown: Box::pin(state.shared.cluster.streams_end().cancelled_owned()),
        keep_alive: sse::keep_alive_timer(state.options.keep_alive),
        frames,
    };
    reply::live(stream.frames())
}

/// A listen stream: what it waits on (shutdown, changes, the keep-alive) and the frames it has
/// to send.
struct ListenStream {
    state: HttpState,
    /// Its place among the open listen streams, given back when the stream is dropped.
    _slot: Held,
    exchange: Exchange,
    subscriber: SubscriberGuard,
    /// Notified by the hub when the subscriber has changes waiting.
    changes: Arc<Notify>,
    /// Ready at shutdown, or when the change feed is lost ([`crate::feed`]): one wait for the
    /// stream's whole life, not one per frame.
    shutdown: Pin<Box<WaitForCancellationFutureOwned>>,
    keep_alive: Interval,
    frames: VecDeque<Bytes>,
}

impl ListenStream {
    /// Queues, as frames, what the exchange has to send.
    fn collect(&mut self) {
        while let Some(output) = self.exchange.poll_output() {
            if let Output::Send(outgoing) = output {
                self.frames.push_back(sse::message(&outgoing.bytes));
            }
        }
    }

    /// Drains the hub for its subscriber into its exchange and queues the notifications it
    /// made.
    fn take_changes(&mut self) {
        let ListenStream {
            state,
            exchange,
            subscriber,
            ..
        } = self;
        driver::deliver_drained(&state.shared.service, subscriber.id(), |changes| {
            exchange.handle_changes(changes);
        });
        self.collect()
    }

    /// The stream's frames, until it is over.
    fn frames(self) -> impl futures_util::Stream<Item = Bytes> + Send + 'static {
        futures_util::stream::unfold(self, |mut stream| async move {
            let frame = stream.next_frame().await?;
            Some((frame, stream))
        })
    }

    /// The next frame to send; `None` once the stream is over: its exchange finished (at
    /// shutdown, after its graceful result) or its token expired.
    async fn next_frame(&mut self) -> Option<Bytes> {
        loop {
            if let Some(frame) = self.frames.pop_front() {
                return Some(frame);
            }
            if self.exchange.is_finished() {
                return None;
            }
            tokio::select! {
                // In this order: shutdown first, then changes, then the keep-alive.
                biased;
                () = &mut self.shutdown => {
                    self.exchange.close();
                    self.collect();
                }
                () = self.changes.notified() => self.take_changes(),
                _ = self.keep_alive.tick() => {
                    // The stream lives no longer than the token it was opened with.
                    if super::auth::expired(&self.state.principal) {
                        tracing::debug!("listen stream ended: its token expired");
                        return None;
                    }
                    return Some(sse::keep_alive());
                }
            }
        }
    }
}

impl Drop for ListenStream {
    fn drop(&mut self) {
        if !self.exchange.is_finished() {
            // The client went away: that is the cancellation of the listen request.
            self.exchange.cancel();
            tracing::debug!(id = ?self.exchange.request_id(), "listen stream cancelled by the client");
        }
    }
}
