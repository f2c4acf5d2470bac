//! The modern path of the Streamable HTTP transport: one stateless [`mcp_2026::Exchange`] per
//! POST, answered with JSON (or a buffered SSE body when notifications precede the response),
//! and `subscriptions/listen` as a live SSE stream.
//!
//! **Layer:** server, HTTP transport. The adapter checks `_meta`, the headers against the body
//! and the version ([`mcp_2026::Handler::start_http`]); this module only runs the exchange's
//! queries and writes its messages. A client disconnect is a cancellation in this era: the
//! request's future is dropped with its query, and a listen stream's subscriber is removed.
//! Server shutdown ends a listen stream with its graceful result. This module never decides an
//! era and never looks at `Mcp-Session-Id` or `Last-Event-ID`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::HeaderMap;
use axum::response::Response;
use mcp_2026::{Exchange, Output, RequestHeaders};
use mcp_types::jsonrpc::Request;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::driver::{self, SubscriberGuard};
use crate::http::{HttpState, reply, sse};

/// Serves one modern request.
pub(crate) async fn request(state: &HttpState, headers: &HeaderMap, request: Request) -> Response {
    let view: RequestHeaders<'_> = headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()))
        .collect();
    let mut exchange = state
        .shared
        .modern
        .start_http(request, &view, Instant::now());
    if exchange.is_listen() {
        return listen(state, exchange).await;
    }
    let mut messages = Vec::new();
    loop {
        match exchange.poll_output() {
            Some(Output::Send(outgoing)) => messages.push(outgoing.bytes),
            Some(Output::Query { ticket, query }) => {
                let answer = driver::answer(
                    Arc::clone(&state.shared.service),
                    Arc::clone(&state.principal),
                    None,
                    query,
                )
                .await;
                exchange.handle_answer(ticket, answer, Instant::now());
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
    let changes = Arc::new(Notify::new());
    let wake = {
        let changes = Arc::clone(&changes);
        Arc::new(move || changes.notify_one())
    };
    let subscriber = SubscriberGuard::new(&state.shared, wake);
    let mut frames = Vec::new();
    // The listen query, answered at once; its answer becomes the acknowledgment.
    while let Some(output) = exchange.poll_output() {
        match output {
            Output::Send(outgoing) => frames.push(sse::message(&outgoing.bytes)),
            Output::Query { ticket, query } => {
                let answer = driver::answer(
                    Arc::clone(&state.shared.service),
                    Arc::clone(&state.principal),
                    Some(subscriber.id()),
                    query,
                )
                .await;
                exchange.handle_answer(ticket, answer, Instant::now());
            }
            Output::Cancel { .. } => {}
        }
    }
    tracing::debug!(id = ?exchange.request_id(), "listen stream opened");
    let stream = ListenStream {
        state: state.clone(),
        exchange,
        subscriber,
        changes,
        shutdown: state.shared.shutdown.clone(),
        frames: frames.into(),
    };
    reply::event_stream(Body::from_stream(
        stream.into_stream(state.options.keep_alive),
    ))
}

struct ListenStream {
    state: HttpState,
    exchange: Exchange,
    subscriber: SubscriberGuard,
    changes: Arc<Notify>,
    shutdown: CancellationToken,
    frames: std::collections::VecDeque<Bytes>,
}

impl ListenStream {
    fn into_stream(
        self,
        period: Duration,
    ) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
        let ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        futures_util::stream::unfold((self, ticker), |(mut stream, mut ticker)| async move {
            loop {
                if let Some(frame) = stream.frames.pop_front() {
                    return Some((Ok(frame), (stream, ticker)));
                }
                if stream.exchange.is_finished() {
                    return None;
                }
                let changes = Arc::clone(&stream.changes);
                let shutdown = stream.shutdown.clone();
                tokio::select! {
                    biased;
                    () = shutdown.cancelled() => {
                        stream.exchange.close(Instant::now());
                        stream.collect();
                    }
                    () = changes.notified() => {
                        let drained = stream
                            .state
                            .shared
                            .service
                            .drain_changes(stream.subscriber.id());
                        stream.exchange.handle_changes(drained, Instant::now());
                        stream.collect();
                    }
                    _ = ticker.tick() => return Some((Ok(sse::keep_alive()), (stream, ticker))),
                }
            }
        })
    }

    /// Moves what the exchange wants to send into the frame queue.
    fn collect(&mut self) {
        while let Some(output) = self.exchange.poll_output() {
            if let Output::Send(outgoing) = output {
                self.frames.push_back(sse::message(&outgoing.bytes));
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
