//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout, both eras on one pipe.
//!
//! **Layer:** server, a transport. One task runs one loop over four kinds of events: a line
//! from the input, a finished query, a subscriber with changes waiting, and shutdown. Each line
//! is decoded, routed by [`era::route_stdio`] to the process's legacy
//! `Session` (made on `initialize`) or to a new modern `Exchange`, and the adapter's outputs
//! are carried out at once: messages are written to a buffered writer, queries are polled and,
//! if they have to wait, pushed into a `FuturesUnordered` polled by the same task (no task or
//! thread per request), cancellations abort their query. A flush of the writer starts whenever
//! the loop has nothing more ready to do (and goes on at the next wake-up if the pipe is full),
//! so a burst of requests costs few writes. Nothing but protocol messages is ever written to the
//! output; logs go through `tracing`.
//!
//! Bounds: a line longer than [`MAX_LINE_BYTES`] is answered `-32600` and skipped without being
//! kept; once 64 queries are waiting (a query answered when first polled never waits), the
//! input is not read until one finishes (the pipe then holds the client back); at most
//! [`MAX_LISTEN_STREAMS`] listen streams are open at once, and a modern request reusing the id
//! of one in flight is refused (`-32600`), as is a batch of more than
//! [`MAX_BATCH_MESSAGES`](crate::MAX_BATCH_MESSAGES) messages.
//!
//! Cost: on the process's stdio, pipes and sockets are read and written by the loop's own thread
//! through the runtime's reactor ([`process`]), so a request costs one `read` and one `write`
//! and no thread hand-off. Every line is decoded once and fed to its adapter. A query's answer
//! is polled once as soon as it is asked: one ready at once (a read of a static resource) is fed
//! straight back to its adapter, and only one that has to wait (a file read, a slow provider)
//! joins the set of running queries. Shutdown is
//! waited for on the server's cancellation token; subscribers' wake-ups on a `Notify` and a list
//! of targets ([`Wakes`]). The loop uses no timer of the runtime (the shutdown grace below is
//! timed by a thread of its own), so it runs on a runtime built without one.
//!
//! Shutdown (end of input, or [`Server::shutdown`]): the input is no longer read, each open
//! listen stream is closed gracefully (its final result, then `notifications/cancelled` naming
//! it), the queries still running are let finish for a short while so that their responses are
//! sent, and the output is flushed.
//!
//! This module never interprets a method beyond what era selection needs; the adapters do.

mod process;

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::{AbortHandle, Abortable};
use futures_util::stream::{FuturesUnordered, StreamExt};
use mcp_2026::Exchange;
use mcp_legacy_2025::Session;
use mcp_resources_core::service::{Answer, Query};
use mcp_resources_core::subscription::SubscriberId;
use mcp_types::RequestId;
use mcp_types::jsonrpc::{self, ErrorObject, Incoming, Message, Response};
use mcp_types::notifications::CancelledNotificationParams;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::Notify;
use tokio_util::sync::WaitForCancellationFuture;

use crate::driver::{self, SubscriberGuard};
use crate::era::{self, StdioMessage, StdioRoute};
use crate::server::{Server, Shared};

/// How long queries still running at shutdown may take to finish before they are dropped.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How many queries may wait at once; past it the input is not read until one finishes, so a
/// client sending faster than the server answers is held back by the pipe instead of piling up
/// work (and answers being read: up to this many times the largest read) in memory.
const MAX_QUERIES_IN_FLIGHT: usize = 64;

/// How many `subscriptions/listen` streams one stdio connection may hold open at once; one
/// more is answered with `-32600` until another ends, so that a client cannot make the server
/// hold subscribers without bound.
pub const MAX_LISTEN_STREAMS: usize = 64;

/// The longest message accepted on one line. A longer line is answered with `-32600` and
/// skipped without being kept in memory.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// The size of the buffers on the input and the output.
const BUFFER_SIZE: usize = 64 * 1024;

impl Server {
    /// Serves this server on the process's stdin and stdout until stdin ends or
    /// [`Server::shutdown`] is called, then closes open listen streams gracefully and returns.
    ///
    /// Stdout carries nothing but protocol messages; install logging on stderr. Signals are not
    /// handled here: call [`Server::shutdown`] from your signal handler (the `mcp-resources`
    /// binary does, for SIGINT and SIGTERM).
    ///
    /// # Errors
    ///
    /// An I/O error of stdin or stdout.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let process::StdioStreams { input, output } = process::StdioStreams::open();
        let mut input = BufReader::with_capacity(BUFFER_SIZE, input);
        let mut output = output;
        let served = self.serve_lines(&mut input, &mut output).await;
        input.into_inner().restore();
        output.restore();
        served
    }

    /// Serves this server over any pair of byte streams carrying newline-delimited JSON-RPC
    /// (stdio, a Unix socket, a TCP connection, an in-memory pipe in tests), exactly as
    /// [`Server::serve_stdio`] does on stdin and stdout.
    ///
    /// # Errors
    ///
    /// An I/O error of `input` or `output`.
    pub async fn serve_lines<R, W>(self, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut connection = Connection {
            shared: Arc::clone(&self.shared),
            output: BufWriter::with_capacity(BUFFER_SIZE, output),
            legacy: None,
            exchanges: FastMap::default(),
            modern_ids: FastMap::default(),
            next_exchange: 0,
            queries: FuturesUnordered::new(),
            aborts: FastMap::default(),
            wakes: Arc::default(),
        };
        connection.run(input).await
    }
}

/// The wake-ups of a connection's subscribers: the targets woken since the loop last looked,
/// each once, and a [`Notify`] the loop waits on, which keeps a wake-up until taken.
#[derive(Debug, Default)]
struct Wakes {
    targets: Mutex<Vec<Target>>,
    signal: Notify,
    /// The loop has ended: wake-ups are dropped.
    closed: AtomicBool,
}

impl Wakes {
    /// Marks `target` woken and wakes the loop.
    fn push(&self, target: Target) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        {
            let mut targets = self.targets.lock().unwrap_or_else(PoisonError::into_inner);
            if targets.contains(&target) {
                return;
            }
            targets.push(target);
        }
        self.signal.notify_one();
    }

    /// The targets woken since the last look, in the order they were first woken.
    fn take(&self) -> Vec<Target> {
        std::mem::take(&mut *self.targets.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Drops every later wake-up.
    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.take();
    }
}

/// Which adapter state a query or a wake-up belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    /// The process's legacy session.
    Legacy,
    /// The modern exchange with this key.
    Modern(u64),
}

/// A query's ticket, in the adapter that issued it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum QueryTicket {
    Legacy(mcp_legacy_2025::Ticket),
    Modern(u64, mcp_2026::Ticket),
}

type QueryFuture = Pin<Box<dyn Future<Output = (QueryTicket, Option<Answer>)> + Send>>;

/// The answer to one query, not yet polled.
type AnswerFuture = Pin<Box<dyn Future<Output = Answer> + Send>>;

/// The legacy session of the process and its subscriber.
struct Legacy {
    session: Session,
    subscriber: SubscriberGuard,
}

/// One modern request in flight, and for a listen stream its subscriber.
struct Modern {
    exchange: Exchange,
    subscriber: Option<SubscriberGuard>,
}

/// What the loop reacts to.
enum Event {
    /// A line, or the end of the input (`None`).
    Line(std::io::Result<Option<Line>>),
    /// A query finished (`None` if it was aborted).
    Answer(QueryTicket, Option<Answer>),
    /// Subscribers have changes waiting ([`Wakes::take`]).
    Woken,
    /// A second passed while the legacy session waits for the client's answers.
    Tick,
    /// The server is shutting down.
    Shutdown,
}

/// One line of input.
enum Line {
    /// A whole line, without its newline, in the [`LineBuffer`] (cleared when the next read
    /// starts, so that one buffer serves every line).
    Complete,
    /// A line longer than [`MAX_LINE_BYTES`], skipped.
    TooLong,
}

/// The line being read: kept between reads, so that reading can be cancelled and resumed.
#[derive(Default)]
struct LineBuffer {
    bytes: Vec<u8>,
    too_long: bool,
    /// `bytes` holds a whole line already handed out: clear it before reading on.
    complete: bool,
}

/// The connection's maps, looked up on every request: foldhash instead of SipHash. Request
/// ids are chosen by the client (the process that started this server, which can make it work
/// in many other ways), and each map is seeded at random all the same.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The state of one stdio connection.
struct Connection<W> {
    shared: Arc<Shared>,
    output: BufWriter<W>,
    legacy: Option<Legacy>,
    exchanges: FastMap<u64, Modern>,
    /// Request id → exchange key, for `notifications/cancelled`.
    modern_ids: FastMap<RequestId, u64>,
    next_exchange: u64,
    queries: FuturesUnordered<QueryFuture>,
    aborts: FastMap<QueryTicket, AbortHandle>,
    /// The subscribers' wake-ups, looked at by the loop.
    wakes: Arc<Wakes>,
}

/// Why a modern request reusing the id of one in flight is refused.
const IN_FLIGHT: &str = "a request with this id is already in flight";

impl<W: AsyncWrite + Unpin> Connection<W> {
    async fn run<R: AsyncBufRead + Unpin>(&mut self, mut input: R) -> std::io::Result<()> {
        // One wait for the whole loop, polled at every event.
        let token = self.shared.shutdown.clone();
        let mut shutdown = std::pin::pin!(token.cancelled());
        let mut line = LineBuffer::default();
        // Ticks only while the legacy session waits for the client's answers to its requests.
        let mut ticks = tokio::time::interval(std::time::Duration::from_secs(1));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let event = {
                let reading = self.queries.len() < MAX_QUERIES_IN_FLIGHT;
                let asking = self
                    .legacy
                    .as_ref()
                    .is_some_and(|legacy| legacy.session.is_asking());
                let mut next = std::pin::pin!(next_event(
                    &mut input,
                    &mut line,
                    &mut self.queries,
                    &self.wakes,
                    shutdown.as_mut(),
                    reading,
                    asking.then_some(&mut ticks),
                ));
                let output = &mut self.output;
                // One poll of every event per wake-up: the poll that finds nothing ready has
                // registered the wakers, so the output is flushed from within it.
                std::future::poll_fn(|context| {
                    if let Poll::Ready(event) = next.as_mut().poll(context) {
                        return Poll::Ready(Ok(event));
                    }
                    // Nothing more is ready: send what was written so far, then wait. A flush
                    // the output holds back goes on at the next wake-up, while events are
                    // handled (further writes wait for room in the buffer).
                    if !output.buffer().is_empty() {
                        if let Poll::Ready(Err(error)) = Pin::new(&mut *output).poll_flush(context)
                        {
                            return Poll::Ready(Err(error));
                        }
                    }
                    Poll::Pending
                })
                .await?
            };
            match event {
                Event::Line(Ok(Some(Line::Complete))) => self.handle_line(&line.bytes).await?,
                Event::Line(Ok(Some(Line::TooLong))) => {
                    tracing::warn!(
                        limit = MAX_LINE_BYTES,
                        "a message longer than the limit was skipped"
                    );
                    let error =
                        ErrorObject::new(mcp_types::error::INVALID_REQUEST, "Invalid Request")
                            .with_data(serde_json::Value::from(format!(
                                "message longer than {MAX_LINE_BYTES} bytes"
                            )));
                    self.write_response(&Response::<()>::error(None, error))
                        .await?;
                }
                Event::Line(Ok(None)) => {
                    tracing::debug!("end of input");
                    break;
                }
                Event::Line(Err(error)) => {
                    tracing::warn!(%error, "cannot read the input");
                    self.finish().await?;
                    return Err(error);
                }
                Event::Answer(ticket, answer) => self.handle_answer(ticket, answer).await?,
                Event::Woken => {
                    for target in self.wakes.take() {
                        self.handle_wake(target).await?;
                    }
                }
                Event::Tick => {
                    if let Some(legacy) = &mut self.legacy {
                        legacy.session.tick();
                    }
                    self.pump_legacy().await?;
                }
                Event::Shutdown => {
                    tracing::debug!("shutting down");
                    break;
                }
            }
        }
        self.finish().await
    }

    /// Closes the listen streams, lets running queries finish for a while, flushes.
    async fn finish(&mut self) -> std::io::Result<()> {
        let keys: Vec<u64> = self.exchanges.keys().copied().collect();
        for key in keys {
            let Some(modern) = self.exchanges.get_mut(&key) else {
                continue;
            };
            if !modern.exchange.is_listen() {
                continue;
            }
            modern.exchange.close();
            let id = modern.exchange.request_id().clone();
            self.pump_modern(key).await?;
            let cancelled = mcp_2026::cancelled_notification(&id);
            self.write(&cancelled.bytes).await?;
        }
        self.wakes.close();
        let mut grace = None;
        loop {
            if self.queries.is_empty() {
                break;
            }
            let grace = grace.get_or_insert_with(|| Box::pin(tokio::time::sleep(SHUTDOWN_GRACE)));
            tokio::select! {
                answered = self.queries.next() => match answered {
                    Some((ticket, answer)) => self.handle_answer(ticket, answer).await?,
                    None => break,
                },
                () = grace.as_mut() => {
                    tracing::warn!(
                        running = self.queries.len(),
                        "queries still running at shutdown are dropped"
                    );
                    break;
                }
            }
        }
        self.output.flush().await?;
        self.output.shutdown().await
    }

    async fn handle_line(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let incoming = match jsonrpc::decode(bytes) {
            Ok(incoming) => incoming,
            // A would-be notification or response is never answered, however malformed.
            Err(error) if !error.is_answered() => {
                tracing::debug!(%error, "undecodable notification or response ignored");
                return Ok(());
            }
            Err(error) => {
                tracing::debug!(%error, "undecodable line");
                return self.write_response(&error.to_response()).await;
            }
        };
        if let Incoming::Batch(elements) = &incoming {
            if elements.len() > crate::MAX_BATCH_MESSAGES {
                let error = ErrorObject::new(mcp_types::error::INVALID_REQUEST, "Invalid Request")
                    .with_data(serde_json::Value::from(format!(
                        "a batch may hold at most {} messages",
                        crate::MAX_BATCH_MESSAGES
                    )));
                return self
                    .write_response(&Response::<()>::error(None, error))
                    .await;
            }
        }
        let summary = match &incoming {
            Incoming::Batch(_) => StdioMessage::Batch,
            Incoming::Single(Message::Request(request)) => StdioMessage::Request {
                method: &request.method,
                // Without a legacy session every request but `initialize` is modern whatever
                // its `_meta` says: the params need not be read for it.
                modern_meta: self.legacy.is_some() && era::has_modern_meta(request),
            },
            Incoming::Single(Message::Notification(notification)) => StdioMessage::Notification {
                method: &notification.method,
                cancels_modern: notification
                    .params::<CancelledNotificationParams>()
                    .is_ok_and(|params| self.modern_ids.contains_key(&params.request_id)),
            },
            Incoming::Single(Message::Response(response)) => {
                // This server sends no requests: the adapters ignore every response.
                tracing::debug!(id = ?response.id, "unsolicited response ignored");
                StdioMessage::Response
            }
        };
        match era::route_stdio(summary, self.legacy.is_some()) {
            StdioRoute::Legacy => {
                let legacy = self.legacy_session();
                legacy.session.handle_incoming(Ok(incoming));
                self.pump_legacy().await
            }
            StdioRoute::Modern => {
                let Incoming::Single(Message::Request(request)) = incoming else {
                    return Ok(());
                };
                let exchange = self.shared.modern.start(request);
                self.serve_modern(exchange).await
            }
            StdioRoute::CancelModern => {
                let Incoming::Single(Message::Notification(notification)) = incoming else {
                    return Ok(());
                };
                let Ok(params) = notification.params::<CancelledNotificationParams>() else {
                    return Ok(());
                };
                if let Some(&key) = self.modern_ids.get(&params.request_id) {
                    if let Some(modern) = self.exchanges.get_mut(&key) {
                        modern.exchange.cancel();
                    }
                    self.pump_modern(key).await?;
                }
                Ok(())
            }
            StdioRoute::RejectBatch => {
                let error = ErrorObject::new(mcp_types::error::INVALID_REQUEST, "Invalid Request")
                    .with_data(serde_json::Value::from(
                        "a batch is only accepted in a 2025-03-26 session",
                    ));
                self.write_response(&Response::<()>::error(None, error))
                    .await
            }
            StdioRoute::Ignore => Ok(()),
        }
    }

    /// Serves a new modern exchange: refused, answered at once, or registered to wait for
    /// its query, its cancellation or, for a listen stream, its subscriber's changes.
    async fn serve_modern(&mut self, mut exchange: Exchange) -> std::io::Result<()> {
        if let Some(refusal) = self.refusal(&exchange) {
            let id = exchange.request_id().clone();
            return self.refuse(id, refusal).await;
        }
        // Most requests (a static read, an error) finish without waiting: served here,
        // they never enter the connection's maps.
        let waiting = if exchange.is_listen() {
            None
        } else {
            let waiting = self.serve_at_once(&mut exchange).await?;
            if exchange.is_finished() {
                return Ok(());
            }
            waiting
        };
        let key = self.next_exchange;
        self.next_exchange += 1;
        self.modern_ids.insert(exchange.request_id().clone(), key);
        let subscriber = exchange.is_listen().then(|| {
            let wakes = Arc::clone(&self.wakes);
            SubscriberGuard::new(
                &self.shared,
                Arc::new(move || wakes.push(Target::Modern(key))),
            )
        });
        self.exchanges.insert(
            key,
            Modern {
                exchange,
                subscriber,
            },
        );
        if let Some((ticket, answer)) = waiting {
            self.wait_for(QueryTicket::Modern(key, ticket), answer);
        }
        self.pump_modern(key).await
    }

    /// Why a new modern `exchange` is not started, if it is not: its request id is that of a
    /// modern request still in flight (the first could no longer be cancelled), or it opens a
    /// listen stream beyond [`MAX_LISTEN_STREAMS`].
    fn refusal(&self, exchange: &Exchange) -> Option<String> {
        if self.in_flight(exchange.request_id()) {
            return Some(IN_FLIGHT.to_owned());
        }
        if !exchange.is_listen() {
            return None;
        }
        let listening = self
            .exchanges
            .values()
            .filter(|modern| modern.subscriber.is_some())
            .count();
        (listening >= MAX_LISTEN_STREAMS)
            .then(|| format!("at most {MAX_LISTEN_STREAMS} listen streams may be open at once"))
    }

    /// Whether a modern request with `id` is in flight.
    fn in_flight(&self, id: &RequestId) -> bool {
        !self.modern_ids.is_empty() && self.modern_ids.contains_key(id)
    }

    /// Answers modern request `id` with `-32600` and why it was not started.
    async fn refuse(&mut self, id: RequestId, refusal: String) -> std::io::Result<()> {
        let error = ErrorObject::new(mcp_types::error::INVALID_REQUEST, "Invalid Request")
            .with_data(serde_json::Value::from(refusal));
        self.write_response(&Response::<()>::error(Some(id), error))
            .await
    }

    /// The process's legacy session, made now if there is none.
    fn legacy_session(&mut self) -> &mut Legacy {
        self.legacy.get_or_insert_with(|| {
            let wakes = Arc::clone(&self.wakes);
            let subscriber =
                SubscriberGuard::new(&self.shared, Arc::new(move || wakes.push(Target::Legacy)));
            tracing::debug!(subscriber = ?subscriber.id(), "legacy session opened");
            Legacy {
                session: Session::new(Arc::clone(&self.shared.legacy)),
                subscriber,
            }
        })
    }

    async fn handle_answer(
        &mut self,
        ticket: QueryTicket,
        answer: Option<Answer>,
    ) -> std::io::Result<()> {
        self.aborts.remove(&ticket);
        let Some(answer) = answer else {
            return Ok(());
        };
        self.feed(ticket, answer);
        match ticket {
            QueryTicket::Legacy(_) => self.pump_legacy().await,
            QueryTicket::Modern(key, _) => self.pump_modern(key).await,
        }
    }

    /// Feeds an answer to the adapter state that asked for it, if it is still there.
    fn feed(&mut self, ticket: QueryTicket, answer: Answer) {
        match ticket {
            QueryTicket::Legacy(ticket) => {
                if let Some(legacy) = &mut self.legacy {
                    legacy.session.handle_answer(ticket, answer);
                }
            }
            QueryTicket::Modern(key, ticket) => {
                if let Some(modern) = self.exchanges.get_mut(&key) {
                    modern.exchange.handle_answer(ticket, answer);
                }
            }
        }
    }

    /// Carries out an adapter's query: an answer ready at once (a static read) is fed straight
    /// back (the caller goes on draining the adapter, which now has the response); any other
    /// joins the running queries, with an abort handle.
    fn ask(&mut self, ticket: QueryTicket, subscriber: Option<SubscriberId>, query: Query) {
        let mut answer = self.answer(subscriber, query);
        match answer.as_mut().now_or_never() {
            Some(answer) => self.feed(ticket, answer),
            None => self.wait_for(ticket, answer),
        }
    }

    /// Runs a query that has to wait among the running ones, with an abort handle.
    fn wait_for(&mut self, ticket: QueryTicket, answer: AnswerFuture) {
        let (handle, registration) = AbortHandle::new_pair();
        self.aborts.insert(ticket, handle);
        self.queries.push(Box::pin(
            Abortable::new(answer, registration).map(move |answer| (ticket, answer.ok())),
        ));
    }

    async fn handle_wake(&mut self, target: Target) -> std::io::Result<()> {
        match target {
            Target::Legacy => {
                if let Some(legacy) = &mut self.legacy {
                    let session = &mut legacy.session;
                    driver::deliver_drained(
                        &self.shared.service,
                        legacy.subscriber.id(),
                        |changes| session.handle_changes(changes),
                    );
                }
                self.pump_legacy().await
            }
            Target::Modern(key) => {
                if let Some(modern) = self.exchanges.get_mut(&key) {
                    if let Some(subscriber) = &modern.subscriber {
                        let exchange = &mut modern.exchange;
                        driver::deliver_drained(&self.shared.service, subscriber.id(), |changes| {
                            exchange.handle_changes(changes);
                        });
                    }
                }
                self.pump_modern(key).await
            }
        }
    }

    /// Carries out everything the legacy session has to do.
    async fn pump_legacy(&mut self) -> std::io::Result<()> {
        loop {
            let Some(legacy) = &mut self.legacy else {
                return Ok(());
            };
            let subscriber = legacy.subscriber.id();
            match legacy.session.poll_output() {
                None => return Ok(()),
                Some(mcp_legacy_2025::Output::Send(outgoing)) => {
                    self.write(&outgoing.bytes).await?
                }
                Some(mcp_legacy_2025::Output::Query { ticket, query }) => {
                    self.ask(QueryTicket::Legacy(ticket), Some(subscriber), query);
                }
                Some(mcp_legacy_2025::Output::Cancel { ticket }) => {
                    self.abort(QueryTicket::Legacy(ticket));
                }
            }
        }
    }

    /// Carries out what a new modern exchange (not a listen stream, so with no subscriber) has
    /// to do until it finishes or has to wait: the query it is left waiting for, if any, is
    /// given back to be run once the exchange has its key.
    async fn serve_at_once(
        &mut self,
        exchange: &mut Exchange,
    ) -> std::io::Result<Option<(mcp_2026::Ticket, AnswerFuture)>> {
        let mut waiting = None;
        while let Some(output) = exchange.poll_output() {
            match output {
                mcp_2026::Output::Send(outgoing) => self.write(&outgoing.bytes).await?,
                mcp_2026::Output::Query { ticket, query } => {
                    let mut answer = self.answer(None, query);
                    match answer.as_mut().now_or_never() {
                        Some(answer) => exchange.handle_answer(ticket, answer),
                        None => waiting = Some((ticket, answer)),
                    }
                }
                // Nothing of a new exchange is running yet.
                mcp_2026::Output::Cancel { .. } => {}
            }
        }
        Ok(waiting)
    }

    /// Carries out everything the modern exchange `key` has to do, and forgets it once it is
    /// finished.
    async fn pump_modern(&mut self, key: u64) -> std::io::Result<()> {
        loop {
            let Some(modern) = self.exchanges.get_mut(&key) else {
                return Ok(());
            };
            let subscriber = modern.subscriber.as_ref().map(SubscriberGuard::id);
            match modern.exchange.poll_output() {
                Some(mcp_2026::Output::Send(outgoing)) => self.write(&outgoing.bytes).await?,
                Some(mcp_2026::Output::Query { ticket, query }) => {
                    self.ask(QueryTicket::Modern(key, ticket), subscriber, query);
                }
                Some(mcp_2026::Output::Cancel { ticket }) => {
                    self.abort(QueryTicket::Modern(key, ticket));
                }
                None => {
                    if modern.exchange.is_finished() {
                        let id = modern.exchange.request_id().clone();
                        self.exchanges.remove(&key);
                        if self.modern_ids.get(&id) == Some(&key) {
                            self.modern_ids.remove(&id);
                        }
                    }
                    return Ok(());
                }
            }
        }
    }

    /// The future of `query`'s answer, owning what it needs.
    fn answer(&self, subscriber: Option<SubscriberId>, query: Query) -> AnswerFuture {
        Box::pin(driver::answer(
            Arc::clone(&self.shared.service),
            Arc::clone(&self.shared.stdio_principal),
            subscriber,
            query,
        ))
    }

    fn abort(&mut self, ticket: QueryTicket) {
        if let Some(handle) = self.aborts.remove(&ticket) {
            handle.abort();
        }
    }

    async fn write_response<R: serde::Serialize>(
        &mut self,
        response: &Response<R>,
    ) -> std::io::Result<()> {
        let bytes = jsonrpc::to_vec(response).map_err(std::io::Error::other)?;
        self.write(&bytes).await
    }

    /// Writes one message and its newline (buffered; flushed when the loop goes idle).
    async fn write(&mut self, message: &[u8]) -> std::io::Result<()> {
        self.output.write_all(message).await?;
        self.output.write_all(b"\n").await
    }
}

/// Reads up to the next newline into `line`, keeping at most [`MAX_LINE_BYTES`]. Cancel-safe:
/// what was read stays in `line`, and nothing is taken from `input` across an `await`.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut LineBuffer,
) -> std::io::Result<Option<Line>> {
    if std::mem::take(&mut line.complete) {
        if line.bytes.capacity() > BUFFER_SIZE {
            // A rare long line does not keep its memory for the rest of the connection.
            line.bytes = Vec::new();
        } else {
            line.bytes.clear();
        }
    }
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            // End of input: a last line without a newline still counts.
            return Ok(if line.too_long {
                line.too_long = false;
                Some(Line::TooLong)
            } else if line.bytes.is_empty() {
                None
            } else {
                line.complete = true;
                Some(Line::Complete)
            });
        }
        let newline = memchr::memchr(b'\n', available);
        let part = &available[..newline.unwrap_or(available.len())];
        if line.too_long || line.bytes.len() + part.len() > MAX_LINE_BYTES {
            line.too_long = true;
            line.bytes = Vec::new();
        } else {
            line.bytes.extend_from_slice(part);
        }
        let consumed = part.len() + usize::from(newline.is_some());
        input.consume(consumed);
        if newline.is_some() {
            return Ok(Some(if std::mem::take(&mut line.too_long) {
                Line::TooLong
            } else {
                line.complete = true;
                Line::Complete
            }));
        }
    }
}

/// Waits for the next event. Every branch is cancel-safe: a partly read line stays in `line`.
async fn next_event<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut LineBuffer,
    queries: &mut FuturesUnordered<QueryFuture>,
    wakes: &Wakes,
    shutdown: Pin<&mut WaitForCancellationFuture<'_>>,
    reading: bool,
    ticks: Option<&mut tokio::time::Interval>,
) -> Event {
    let ticking = ticks.is_some();
    let tick = async move {
        match ticks {
            Some(ticks) => ticks.tick().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        () = shutdown => Event::Shutdown,
        Some((ticket, answer)) = queries.next(), if !queries.is_empty() => {
            Event::Answer(ticket, answer)
        }
        () = wakes.signal.notified() => Event::Woken,
        _ = tick, if ticking => Event::Tick,
        read = read_line(input, line), if reading => Event::Line(read),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn wakes_are_taken_once_each_in_order_until_closed() {
        use futures_util::FutureExt;

        use super::{Target, Wakes};

        let wakes = Wakes::default();
        let woken = || wakes.signal.notified().now_or_never().is_some();
        assert!(!woken());
        wakes.push(Target::Modern(3));
        wakes.push(Target::Legacy);
        wakes.push(Target::Modern(3));
        assert!(woken(), "a wake-up is kept until the loop waits");
        assert!(!woken(), "one wake-up for them all");
        assert_eq!(wakes.take(), [Target::Modern(3), Target::Legacy]);
        assert!(wakes.take().is_empty());
        wakes.push(Target::Legacy);
        wakes.close();
        wakes.push(Target::Modern(4));
        assert!(wakes.take().is_empty(), "nothing kept once closed");
    }
}
