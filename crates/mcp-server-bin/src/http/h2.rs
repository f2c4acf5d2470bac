//! HTTP/2 connections (h2c with prior knowledge), served with the `h2` crate directly so that a
//! connection's live streams are written by the connection's own task.
//!
//! **Layer:** server, HTTP transport. Every request still gets a task of its own, which runs
//! the endpoint's one handler ([`super::handle`]) and sends its answer. A whole body is handed
//! to `h2`, which sends it as the client's flow control allows. A live SSE stream (a modern
//! listen stream, a legacy GET stream) is handed to the connection's task instead, and the
//! request's task ends: the connection polls all of its live streams itself, each with a waker
//! of its own (a stream's changes queue it on the connection's ready queue directly), so
//! one change notified to many streams of a connection wakes one task, not one per stream, and
//! their frames go out in a few large writes. The streams woken are polled in key order, the
//! order their entries lie in memory: with thousands of streams, cache misses are most of what a
//! fan-out costs. A stream is polled for its next frame only while the client's window has room:
//! otherwise its changes wait, coalesced, in the hub. A stream the client resets is dropped, as
//! a closed HTTP/1.1 connection drops its body (for a listen stream, the cancellation of the
//! listen request). This module never knows either era, JSON-RPC or the service: it carries
//! requests, statuses and bytes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker, ready};

use axum::body::Bytes;
use axum::http::{self, HeaderValue, header};
use hyper::body::Frame;
use tokio::sync::mpsc;

use crate::driver::{LatchWait, ReadyQueue, Round};
use crate::http::HttpState;
use crate::http::reply::{Body, Live};

/// The window the server grants each request body, and all of a connection's together
/// (hyper's defaults: a POST body is read at once, not paced by round trips).
const STREAM_WINDOW: u32 = 1024 * 1024;
const CONNECTION_WINDOW: u32 = 1024 * 1024;
/// The largest header block a client may send (hyper's default).
const MAX_HEADER_LIST: u32 = 16 * 1024;
/// How much of a stream's data `h2` buffers ahead of the client's window (hyper's default).
const MAX_SEND_BUFFER: usize = 400 * 1024;
/// How many streams the server itself may reset before it closes the connection (hyper's
/// default; a bound against clients that provoke resets).
const MAX_LOCAL_RESETS: usize = 1024;

/// Serves one HTTP/2 connection until the client closes it or, once `shutdown` is ready,
/// until its requests in progress are answered and its live streams have ended.
pub(super) async fn serve(
    state: Arc<HttpState>,
    io: tokio::net::TcpStream,
    shutdown: &mut LatchWait,
) {
    let mut builder = h2::server::Builder::new();
    builder
        .initial_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .max_header_list_size(MAX_HEADER_LIST)
        .max_send_buffer_size(MAX_SEND_BUFFER)
        .max_local_error_reset_streams(Some(MAX_LOCAL_RESETS))
        .max_concurrent_streams(state.options.max_streams_per_connection);
    let mut connection = tokio::select! {
        handshake = builder.handshake::<_, Bytes>(io) => match handshake {
            Ok(connection) => connection,
            Err(error) => {
                tracing::debug!(%error, "HTTP/2 handshake failed");
                return;
            }
        },
        () = &mut *shutdown => return,
    };
    let (hand_over, mut handed) = mpsc::unbounded_channel::<Pipe>();
    let mut live = LiveSet::default();
    let mut closing = false;
    std::future::poll_fn(|context| {
        live.ready.register(context.waker());
        // A shutdown first: no new stream is taken once it is seen. The live streams see it
        // too, and end with their last frames.
        if !closing && Pin::new(&mut *shutdown).poll(context).is_ready() {
            closing = true;
            connection.graceful_shutdown();
        }
        while let Poll::Ready(Some(pipe)) = handed.poll_recv(context) {
            live.insert(pipe);
        }
        // Every live stream woken, before the connection writes what they sent.
        live.poll_ready();
        loop {
            match connection.poll_accept(context) {
                Poll::Ready(Some(Ok((request, respond)))) => {
                    tokio::spawn(answer(
                        Arc::clone(&state),
                        request,
                        respond,
                        hand_over.clone(),
                    ));
                }
                Poll::Ready(Some(Err(error))) => {
                    tracing::debug!(%error, "HTTP/2 connection ended with an error");
                    return Poll::Ready(());
                }
                // Closed by the client, or done after a graceful shutdown.
                Poll::Ready(None) => return Poll::Ready(()),
                Poll::Pending => return Poll::Pending,
            }
        }
    })
    .await;
}

/// The live streams of a connection, each polled with a waker of its own that queues it
/// (once) on the connection's ready queue and wakes the connection's task. A stream's changes
/// queue it there directly ([`Live::attach`]).
#[derive(Default)]
struct LiveSet {
    pipes: slab::Slab<Entry>,
    ready: Arc<ReadyQueue>,
    /// The keys being polled, swapped with the ready queue's so that both keep their capacity.
    polling: Vec<usize>,
}

struct Entry {
    pipe: Pipe,
    waker: Waker,
    queued: Arc<PipeWaker>,
}

struct PipeWaker {
    key: usize,
    /// On the ready queue already: waking it again adds nothing.
    queued: AtomicBool,
    ready: Arc<ReadyQueue>,
}

impl Wake for PipeWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::AcqRel) {
            self.ready.push(self.key);
        }
    }
}

impl LiveSet {
    /// Takes a live stream in; it is polled at once.
    fn insert(&mut self, mut pipe: Pipe) {
        let entry = self.pipes.vacant_entry();
        let key = entry.key();
        let queued = Arc::new(PipeWaker {
            key,
            queued: AtomicBool::new(false),
            ready: Arc::clone(&self.ready),
        });
        pipe.stream.attach(key, &self.ready);
        let waker = Waker::from(Arc::clone(&queued));
        waker.wake_by_ref();
        entry.insert(Entry {
            pipe,
            waker,
            queued,
        });
    }

    /// Polls every stream on the ready queue, those woken meanwhile included, and lets those
    /// that are done go. Each round is polled in key order: the streams' entries are read in
    /// the order they lie in memory, which a fan-out to thousands of streams needs more than
    /// the order they were woken in.
    fn poll_ready(&mut self) {
        let mut keys = std::mem::take(&mut self.polling);
        loop {
            self.ready.swap(&mut keys);
            if keys.is_empty() {
                self.polling = keys;
                return;
            }
            keys.sort_unstable();
            keys.dedup();
            // One clock read for the round's streams ([`crate::driver::now`]).
            let _round = Round::start();
            for key in keys.drain(..) {
                let Some(entry) = self.pipes.get_mut(key) else {
                    continue;
                };
                // Cleared first: a wake-up during the poll queues it again.
                entry.queued.queued.store(false, Ordering::Release);
                let mut context = Context::from_waker(&entry.waker);
                if Pin::new(&mut entry.pipe).poll(&mut context).is_ready() {
                    self.pipes.remove(key);
                }
            }
        }
    }
}

/// Answers one request: its task runs the handler, then sends a whole body or hands a live
/// stream to the connection. A request the client resets before its answer is dropped, its
/// handler with it (the cancellation of a modern request).
async fn answer(
    state: Arc<HttpState>,
    request: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<Bytes>,
    hand_over: mpsc::UnboundedSender<Pipe>,
) {
    let request = request.map(RequestBody);
    let response = if request.uri().path() != state.options.path {
        // The one route (and the metadata document's): anything else is `404`, as from the
        // router.
        super::elsewhere(&state, request.method(), request.uri().path())
    } else {
        tokio::select! {
            response = super::handle(&state, request) => response,
            _ = std::future::poll_fn(|context| respond.poll_reset(context)) => return,
        }
    };
    let (parts, body) = response.into_parts();
    let mut head = http::Response::from_parts(parts, ());
    match body {
        Body::Whole(None) => {
            let _ = respond.send_response(head, true);
        }
        Body::Whole(Some(bytes)) => {
            head.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
            // Buffered by `h2` and sent as the client's window allows: the body is in memory
            // already.
            if let Ok(mut send) = respond.send_response(head, false) {
                let _ = send.send_data(bytes, true);
            }
        }
        Body::Live(stream) => {
            if let Ok(send) = respond.send_response(head, false) {
                let _ = hand_over.send(Pipe {
                    stream: *stream,
                    send,
                    waiting: None,
                });
            }
        }
    }
}

/// A request body read from `h2`, its flow-control capacity given back as it is read.
struct RequestBody(h2::RecvStream);

impl hyper::body::Body for RequestBody {
    type Data = Bytes;
    type Error = h2::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, h2::Error>>> {
        let body = &mut self.get_mut().0;
        match ready!(body.poll_data(context)) {
            Some(Ok(data)) => {
                let _ = body.flow_control().release_capacity(data.len());
                Poll::Ready(Some(Ok(Frame::data(data))))
            }
            Some(Err(error)) => Poll::Ready(Some(Err(error))),
            None => match ready!(body.poll_trailers(context)) {
                Ok(Some(trailers)) => Poll::Ready(Some(Ok(Frame::trailers(trailers)))),
                Ok(None) => Poll::Ready(None),
                Err(error) => Poll::Ready(Some(Err(error))),
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }
}

/// A live stream and where its frames go, polled by its connection's task: done once the
/// stream ended (its end sent) or the client reset it.
struct Pipe {
    /// Unboxed, in the connection's table of live streams: a poll touches one place less.
    stream: Live,
    send: h2::SendStream<Bytes>,
    /// A frame taken from the stream, waiting for room in the client's window.
    waiting: Option<Bytes>,
}

impl Future for Pipe {
    type Output = ();

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        let pipe = self.get_mut();
        // Whether `h2` still holds this stream's waker from an earlier poll (for a reset, or for
        // the window): see below.
        let mut hooked = true;
        loop {
            let frame = match pipe.waiting.take() {
                Some(frame) => frame,
                None => match pipe.stream.poll_frame(context) {
                    Poll::Ready(Some(frame)) => frame,
                    Poll::Ready(None) => {
                        let _ = pipe.send.send_data(Bytes::new(), true);
                        return Poll::Ready(());
                    }
                    // Nothing to send: woken by the stream, or by `h2` for a reset.
                    Poll::Pending => {
                        return match pipe.send.poll_reset(context) {
                            Poll::Ready(_) => Poll::Ready(()),
                            Poll::Pending => Poll::Pending,
                        };
                    }
                },
            };
            // Sent once the window has room; the stream is not polled meanwhile. Reserving
            // capacity wakes whatever waker `h2` holds for the stream, so the stream's own is
            // swapped for a no-op one first: otherwise every frame sent would queue its stream
            // for one more poll, for nothing. The stream's waker is registered again before this
            // poll ends (by `poll_reset` or `poll_capacity`).
            if std::mem::take(&mut hooked)
                && pipe
                    .send
                    .poll_reset(&mut Context::from_waker(Waker::noop()))
                    .is_ready()
            {
                return Poll::Ready(());
            }
            // The frame's own size: `send_data` then finds it assigned and asks the connection
            // for nothing more (reserving less, it would assign the rest itself, a second pass
            // over the connection's window for every frame). Nothing is held back from other
            // streams beyond the frame about to be sent.
            pipe.send.reserve_capacity(frame.len());
            if pipe.send.capacity() == 0 {
                pipe.waiting = Some(frame);
                match ready!(pipe.send.poll_capacity(context)) {
                    Some(Ok(_)) => continue,
                    Some(Err(_)) | None => return Poll::Ready(()),
                }
            }
            if pipe.send.send_data(frame, false).is_err() {
                return Poll::Ready(());
            }
        }
    }
}
