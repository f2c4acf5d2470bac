//! The fan-out driver of `cargo xtask bench`: opens many Streamable HTTP notification streams
//! on one `mcp-resources` server at 127.0.0.1, all subscribed to one `file://` resource, then
//! rewrites that file on command and times how the change reaches every stream.
//!
//! It is a program of its own (built in release with the other bench programs) so that the
//! driver's own cost per notification is that of optimized code on a single-threaded tokio
//! runtime, not of the xtask's debug build. It speaks HTTP/1.1 by hand (requests, chunked
//! bodies, SSE events), one connection per stream, or HTTP/2 through the `h2` crate's client (h2c
//! with prior knowledge), PER streams to a connection, and checks every notification it counts:
//! the method, the URI and the `subscriptionId` tag of its stream (modern) or that there is none
//! (legacy). A stream's notification is the same at every change: one with the same length and
//! 64-bit hash as the last one the stream passed passes without being parsed again.
//!
//! Over HTTP/2, each connection has one task that drives it and, once a stream is open, reads
//! that stream too: a change fanned out to PER streams of a connection wakes one task, not PER of
//! them, and what one poll of the task read is told to the collector in one message. The driver
//! needs a core of its own (the xtask pins it to one), and its own cost per notification bounds
//! what can be measured.
//!
//! Usage: `bench-fanout modern|legacy http1|http2:PER PORT[,PORT…] STREAMS URI FILE`
//!
//! With several ports (instances of one deployment), the streams (HTTP/1.1) or the connections
//! (HTTP/2) go to them in turn.
//!
//! - `modern`: one `subscriptions/listen` POST per stream with `resourceSubscriptions: [URI]`;
//!   a stream is open once its acknowledgment arrived.
//! - `legacy`: one session per stream (`initialize`, `notifications/initialized`,
//!   `resources/subscribe` for URI, then the GET SSE stream, all on one connection); a stream
//!   is open once the GET answered `200`.
//!
//! Lines with the xtask, one JSON object each: it prints `{"ready":N,"setup_ms":…}` once every
//! stream is open; then for every `change` line read on stdin it rewrites FILE and prints
//! `{"received":N,"write_unix_us":…,"write_to_first_us":…,"write_to_last_us":…,"late":…}` once
//! every stream got its notification (`write_unix_us`: the end of the write on the wall clock,
//! in µs since the Unix epoch; `late`: notifications of an earlier change seen since); `quit` prints
//! `{"late":…}` (those seen since the last change) and ends it, as does the end of stdin. Any
//! failure prints `{"error":"…"}` and exits with status 1. Setup and every change are bounded
//! in time.

use std::borrow::Cow;
use std::future::Future;
use std::net::Ipv4Addr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, mpsc};

/// How many streams are being set up at once (the listen backlog is finite).
const SETUP_PARALLEL: usize = 64;
/// The longest setup of all streams.
const SETUP_TIMEOUT: Duration = Duration::from_secs(180);
/// The longest wait for every notification of one change (the watcher debounces).
const CHANGE_TIMEOUT: Duration = Duration::from_secs(30);
const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Era {
    Modern,
    Legacy,
}

/// How the streams reach the server.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wire {
    /// HTTP/1.1, one connection per stream.
    Http1,
    /// HTTP/2, this many streams to a connection (at most the server's
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`: a request past it would wait for a stream to end).
    Http2 { per_connection: usize },
}

struct Target {
    era: Era,
    ports: Vec<u16>,
    uri: String,
}

impl Target {
    /// The port of the `index`-th stream or connection: the ports in turn.
    fn port(&self, index: usize) -> u16 {
        self.ports[index % self.ports.len()]
    }
}

/// What a stream task tells the collector.
enum Event {
    Open,
    Failed(String),
    /// A checked notification and when it was read.
    Notified(Instant),
    /// Checked notifications of several streams, each with its stream and when it was read:
    /// what one HTTP/2 connection's task read in one poll, in one message rather than one per
    /// stream (the index beside it is unused).
    NotifiedMany(Vec<(usize, Instant)>),
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [era, wire, port, streams, uri, file] => {
            let era = match *era {
                "modern" => Some(Era::Modern),
                "legacy" => Some(Era::Legacy),
                _ => None,
            };
            let wire = match wire.split_once(':') {
                None if *wire == "http1" => Some(Wire::Http1),
                Some(("http2", per)) => per
                    .parse()
                    .ok()
                    .filter(|per| *per > 0)
                    .map(|per_connection| Wire::Http2 { per_connection }),
                _ => None,
            };
            let ports: Result<Vec<u16>, _> = port.split(',').map(str::parse::<u16>).collect();
            match (era, wire, ports, streams.parse::<usize>()) {
                (Some(era), Some(wire), Ok(ports), Ok(streams)) if !ports.is_empty() => Some((
                    Target {
                        era,
                        ports,
                        uri: (*uri).to_owned(),
                    },
                    wire,
                    streams,
                    std::path::PathBuf::from(file),
                )),
                _ => None,
            }
        }
        _ => None,
    };
    let Some((target, wire, streams, file)) = parsed else {
        eprintln!(
            "usage: bench-fanout modern|legacy http1|http2:PER PORT[,PORT...] STREAMS URI FILE"
        );
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(error) = runtime.block_on(drive(Arc::new(target), wire, streams, &file)) {
        println!("{}", json!({ "error": error }));
        std::process::exit(1);
    }
}

/// Counts the notifications already waiting (those of an earlier change that came after it
/// was complete); a stream that failed fails the run.
fn drain_late(inbox: &mut mpsc::UnboundedReceiver<(usize, Event)>) -> Result<usize, String> {
    let mut late = 0;
    while let Ok((index, event)) = inbox.try_recv() {
        match event {
            Event::Notified(_) => late += 1,
            Event::NotifiedMany(batch) => late += batch.len(),
            Event::Failed(error) => return Err(format!("stream {index}: {error}")),
            Event::Open => {}
        }
    }
    Ok(late)
}

async fn drive(
    target: Arc<Target>,
    wire: Wire,
    streams: usize,
    file: &std::path::Path,
) -> Result<(), String> {
    let (events, mut inbox) = mpsc::unbounded_channel::<(usize, Event)>();
    let setup = Arc::new(Semaphore::new(SETUP_PARALLEL));
    let started = Instant::now();
    // HTTP/2: the connections first, each shared by its streams.
    let mut shared = Vec::new();
    if let Wire::Http2 { per_connection } = wire {
        for connection in 0..streams.div_ceil(per_connection) {
            let port = target.port(connection);
            shared.push(Http2::connect(port, Arc::clone(&target), events.clone()).await?);
        }
    }
    for index in 0..streams {
        let (target, events, setup) = (Arc::clone(&target), events.clone(), Arc::clone(&setup));
        let link = match wire {
            Wire::Http1 => None,
            Wire::Http2 { per_connection } => Some(shared[index / per_connection].clone()),
        };
        tokio::spawn(async move {
            let opened = {
                let _permit = setup.acquire().await;
                let link = match link {
                    Some(http2) => Ok(Link::Http2(http2)),
                    None => Connection::connect(target.port(index))
                        .await
                        .map(Link::Http1),
                };
                match link {
                    Ok(link) => open(&target, index, link).await,
                    Err(error) => Err(error),
                }
            };
            let (feed, pending) = match opened {
                Ok(connection) => connection,
                Err(error) => {
                    let _ = events.send((index, Event::Failed(error)));
                    return;
                }
            };
            let _ = events.send((index, Event::Open));
            let outcome = match feed {
                Feed::Http1(mut connection) => {
                    let mut pending = pending;
                    listen(&target, index, &mut connection, &mut pending, &events).await
                }
                // The connection's task reads it from now on.
                Feed::Http2 { body, live } => live
                    .send(LiveStream {
                        index,
                        body,
                        pending,
                    })
                    .map_err(|_| "the HTTP/2 connection is gone".to_owned()),
            };
            if let Err(error) = outcome {
                let _ = events.send((index, Event::Failed(error)));
            }
        });
    }
    drop(events);
    let mut open_streams = 0;
    let deadline = tokio::time::Instant::now() + SETUP_TIMEOUT;
    while open_streams < streams {
        match tokio::time::timeout_at(deadline, inbox.recv()).await {
            Ok(Some((_, Event::Open))) => open_streams += 1,
            Ok(Some((index, Event::Failed(error)))) => {
                return Err(format!("stream {index}: {error}"));
            }
            Ok(Some((index, Event::Notified(_)))) => {
                return Err(format!("stream {index}: a notification before any change"));
            }
            Ok(Some((_, Event::NotifiedMany(batch)))) => {
                let index = batch.first().map_or(0, |(index, _)| *index);
                return Err(format!("stream {index}: a notification before any change"));
            }
            Ok(None) => return Err("every stream task ended".to_owned()),
            Err(_) => {
                return Err(format!(
                    "only {open_streams} of {streams} streams opened within {SETUP_TIMEOUT:?}"
                ));
            }
        }
    }
    println!(
        "{}",
        json!({ "ready": open_streams, "setup_ms": started.elapsed().as_secs_f64() * 1e3 })
    );

    let mut commands = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut change = 0_usize;
    let mut seen = vec![false; streams];
    while let Ok(Some(command)) = commands.next_line().await {
        match command.trim() {
            "quit" => {
                let late = drain_late(&mut inbox)?;
                println!("{}", json!({ "late": late }));
                break;
            }
            "change" => {}
            other => return Err(format!("unknown command {other:?}")),
        }
        change += 1;
        // Notifications of an earlier change that came after it was complete.
        let late = drain_late(&mut inbox)?;
        seen.fill(false);
        let mut text = format!("changed {change:06} ");
        while text.len() < 1024 {
            text.push('y');
        }
        let written = Instant::now();
        std::fs::write(file, &text)
            .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
        let mut tally = Tally {
            seen: &mut seen,
            received: 0,
            late,
            first: None,
            last: None,
        };
        let deadline = tokio::time::Instant::now() + CHANGE_TIMEOUT;
        while tally.received < streams {
            match tokio::time::timeout_at(deadline, inbox.recv()).await {
                Ok(Some((index, Event::Notified(at)))) => tally.note(index, at),
                Ok(Some((_, Event::NotifiedMany(batch)))) => {
                    for (index, at) in batch {
                        tally.note(index, at);
                    }
                }
                Ok(Some((index, Event::Failed(error)))) => {
                    return Err(format!("stream {index}: {error}"));
                }
                Ok(Some((_, Event::Open))) => {}
                Ok(None) => return Err("every stream task ended".to_owned()),
                Err(_) => {
                    return Err(format!(
                        "change {change}: {} of {streams} notifications within {CHANGE_TIMEOUT:?}",
                        tally.received
                    ));
                }
            }
        }
        let Tally {
            received,
            late,
            first,
            last,
            ..
        } = tally;
        let micros = |at: Option<Instant>| {
            at.map_or(f64::NAN, |at| {
                at.saturating_duration_since(written).as_secs_f64() * 1e6
            })
        };
        // The wall-clock time of the write, to compare with the server's log.
        let (now, wall) = (Instant::now(), SystemTime::now());
        let write_unix_us = wall
            .checked_sub(now.saturating_duration_since(written))
            .and_then(|at| at.duration_since(UNIX_EPOCH).ok())
            .map_or(f64::NAN, |since| since.as_secs_f64() * 1e6);
        println!(
            "{}",
            json!({
                "received": received,
                "write_unix_us": write_unix_us,
                "write_to_first_us": micros(first),
                "write_to_last_us": micros(last),
                "late": late,
            })
        );
    }
    Ok(())
}

/// What one change's notifications came to so far.
struct Tally<'a> {
    /// Whether each stream had its notification.
    seen: &'a mut [bool],
    received: usize,
    /// Notifications beyond one per stream.
    late: usize,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Tally<'_> {
    /// Stream `index` had a notification, read at `at`.
    fn note(&mut self, index: usize, at: Instant) {
        if std::mem::replace(&mut self.seen[index], true) {
            self.late += 1;
            return;
        }
        self.received += 1;
        self.first = Some(self.first.map_or(at, |first| first.min(at)));
        self.last = Some(self.last.map_or(at, |last| last.max(at)));
    }
}

/// A TCP connection to the server at 127.0.0.1, without Nagle's delay.
async fn connect(port: u16) -> Result<TcpStream, String> {
    let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .await
        .map_err(|error| format!("cannot connect to 127.0.0.1:{port}: {error}"))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// One HTTP/1.1 connection to the server, with what was read and not yet used.
struct Connection {
    port: u16,
    stream: TcpStream,
    buffer: Vec<u8>,
}

/// The head of a response.
struct Head {
    status: u16,
    chunked: bool,
    length: Option<usize>,
    session: Option<String>,
    event_stream: bool,
}

impl Connection {
    async fn connect(port: u16) -> Result<Connection, String> {
        let stream = connect(port).await?;
        Ok(Connection {
            port,
            stream,
            buffer: Vec::with_capacity(1024),
        })
    }

    /// Reads more bytes into the buffer; the end of the stream is an error.
    async fn fill(&mut self) -> Result<(), String> {
        self.buffer.reserve(2048);
        match self.stream.read_buf(&mut self.buffer).await {
            Ok(0) => Err("the server closed the connection".to_owned()),
            Ok(_) => Ok(()),
            Err(error) => Err(format!("cannot read: {error}")),
        }
    }

    /// Takes `count` bytes off the front of the buffer, reading as needed.
    async fn take(&mut self, count: usize) -> Result<Vec<u8>, String> {
        while self.buffer.len() < count {
            self.fill().await?;
        }
        let rest = self.buffer.split_off(count);
        Ok(std::mem::replace(&mut self.buffer, rest))
    }

    /// Takes one line (without its CRLF) off the front of the buffer, reading as needed.
    async fn line(&mut self) -> Result<Vec<u8>, String> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|pair| pair == b"\r\n") {
                let line = self.take(end + 2).await?;
                return Ok(line[..end].to_vec());
            }
            self.fill().await?;
        }
    }

    async fn send(&mut self, request: &str) -> Result<(), String> {
        self.stream
            .write_all(request.as_bytes())
            .await
            .map_err(|error| format!("cannot send a request: {error}"))
    }

    async fn head(&mut self) -> Result<Head, String> {
        let status_line = String::from_utf8_lossy(&self.line().await?).into_owned();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| format!("not an HTTP status line: {status_line:?}"))?;
        let mut head = Head {
            status,
            chunked: false,
            length: None,
            session: None,
            event_stream: false,
        };
        loop {
            let line = self.line().await?;
            if line.is_empty() {
                return Ok(head);
            }
            let line = String::from_utf8_lossy(&line);
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                head.length = value.parse().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                head.chunked = value.eq_ignore_ascii_case("chunked");
            } else if name.eq_ignore_ascii_case("mcp-session-id") {
                head.session = Some(value.to_owned());
            } else if name.eq_ignore_ascii_case("content-type") {
                head.event_stream = value.starts_with("text/event-stream");
            }
        }
    }

    /// The next chunk of a chunked body; `None` at its end.
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        let line = String::from_utf8_lossy(&self.line().await?).into_owned();
        let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
            .map_err(|_| format!("a bad chunk size {line:?}"))?;
        let mut data = self.take(size + 2).await?;
        data.truncate(size);
        Ok((size > 0).then_some(data))
    }

    /// The whole body of a response that is not a live stream.
    async fn body(&mut self, head: &Head) -> Result<Vec<u8>, String> {
        if head.chunked {
            let mut body = Vec::new();
            while let Some(chunk) = self.chunk().await? {
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        } else {
            self.take(head.length.unwrap_or(0)).await
        }
    }
}

/// SSE events out of a de-chunked byte stream.
#[derive(Default)]
struct Events {
    pending: Vec<u8>,
    /// The digest of the data of the last event that passed the caller's check ([`notified`]).
    checked: Option<Digest>,
}

/// An event's data, told apart by its length and a 64-bit hash: kept in the stream's own
/// entry, where a copy of the data would be one more cache miss per notification to compare.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Digest {
    length: usize,
    hash: u64,
}

impl Digest {
    fn of(data: &str) -> Digest {
        use std::hash::BuildHasher;
        Digest {
            length: data.len(),
            hash: foldhash::quality::FixedState::with_seed(0).hash_one(data),
        }
    }
}

impl Events {
    /// Adds bytes and calls `each` with the `data` of every event now complete (comments
    /// skipped), without a copy for the usual event of one `data:` line, and without one for
    /// the usual chunk either (whole events, read where they are).
    /// `each` also gets the digest of the data last checked, for the caller to keep.
    fn push(
        &mut self,
        bytes: &[u8],
        mut each: impl FnMut(&str, &mut Option<Digest>) -> Result<(), String>,
    ) -> Result<(), String> {
        let checked = &mut self.checked;
        let mut each = |data: &str| each(data, checked);
        if self.pending.is_empty() {
            let consumed = Self::complete(bytes, &mut each)?;
            self.pending.extend_from_slice(&bytes[consumed..]);
            return Ok(());
        }
        self.pending.extend_from_slice(bytes);
        let consumed = Self::complete(&self.pending, &mut each)?;
        self.pending.drain(..consumed);
        Ok(())
    }

    /// Calls `each` with the data of every complete event at the start of `buffer`; returns
    /// how many bytes they took.
    fn complete(
        buffer: &[u8],
        each: &mut impl FnMut(&str) -> Result<(), String>,
    ) -> Result<usize, String> {
        let mut consumed = 0;
        while let Some(end) = memchr::memmem::find(&buffer[consumed..], b"\n\n") {
            let event = std::str::from_utf8(&buffer[consumed..consumed + end]).unwrap_or("");
            consumed += end + 2;
            let mut data = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start);
            match (data.next(), data.next()) {
                (None, _) => {}
                (Some(only), None) => each(only)?,
                (Some(first), Some(second)) => {
                    let lines: Vec<&str> = [first, second].into_iter().chain(data).collect();
                    each(&lines.join("\n"))?;
                }
            }
        }
        Ok(consumed)
    }
}

/// What the driver checks of a notification, read without building a JSON tree.
#[derive(serde::Deserialize)]
struct Notification<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: NotificationParams<'a>,
}

#[derive(serde::Deserialize)]
struct NotificationParams<'a> {
    #[serde(borrow)]
    uri: Cow<'a, str>,
    #[serde(rename = "_meta", default)]
    meta: Option<NotificationMeta>,
}

#[derive(serde::Deserialize)]
struct NotificationMeta {
    #[serde(rename = "io.modelcontextprotocol/subscriptionId", default)]
    subscription_id: Option<u64>,
}

/// The `Accept` of a POST: both reply forms.
const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// An HTTP/2 connection to the server, shared by the streams given to it (a handle: the
/// connection's task reads and writes its frames).
#[derive(Clone)]
struct Http2 {
    port: u16,
    send: h2::client::SendRequest<Bytes>,
    /// Hands an open stream to the connection's task, which reads it from then on.
    live: mpsc::UnboundedSender<LiveStream>,
}

impl Http2 {
    /// Connects and starts the connection's task, which tells `sink` of the notifications of
    /// the streams handed to it.
    async fn connect(
        port: u16,
        target: Arc<Target>,
        sink: mpsc::UnboundedSender<(usize, Event)>,
    ) -> Result<Http2, String> {
        let stream = connect(port).await?;
        let (send, connection) = h2::client::Builder::new()
            // Room for every notification of a change in flight at once.
            .initial_window_size(1024 * 1024)
            .initial_connection_window_size(16 * 1024 * 1024)
            .handshake(stream)
            .await
            .map_err(|error| format!("no HTTP/2 connection to 127.0.0.1:{port}: {error}"))?;
        let (live, handed) = mpsc::unbounded_channel();
        tokio::spawn(ConnectionTask {
            connection,
            handed,
            streams: Vec::new(),
            target,
            sink,
        });
        Ok(Http2 { port, send, live })
    }

    async fn request(
        &mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Result<(Head, h2::RecvStream), String> {
        let mut request = http::Request::builder()
            .method(method)
            .uri(format!("http://127.0.0.1:{}/mcp", self.port));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let request = request
            .body(())
            .map_err(|error| format!("cannot build a request: {error}"))?;
        let mut send = self
            .send
            .clone()
            .ready()
            .await
            .map_err(|error| format!("the HTTP/2 connection is gone: {error}"))?;
        let (response, mut outgoing) = send
            .send_request(request, body.is_none())
            .map_err(|error| format!("cannot send a request: {error}"))?;
        if let Some(body) = body {
            outgoing
                .send_data(Bytes::from(body), true)
                .map_err(|error| format!("cannot send a request's body: {error}"))?;
        }
        let response = response
            .await
            .map_err(|error| format!("no reply to a request: {error}"))?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
        };
        let head = Head {
            status: response.status().as_u16(),
            // HTTP/2 frames the body itself.
            chunked: true,
            length: None,
            session: header("mcp-session-id").map(str::to_owned),
            event_stream: header("content-type")
                .is_some_and(|value| value.starts_with("text/event-stream")),
        };
        Ok((head, response.into_body()))
    }
}

/// Takes the next piece of an HTTP/2 body, giving its room back to the server's window.
fn poll_body(
    body: &mut h2::RecvStream,
    cx: &mut Context<'_>,
) -> Poll<Result<Option<Bytes>, String>> {
    match body.poll_data(cx) {
        Poll::Pending => Poll::Pending,
        Poll::Ready(None) => Poll::Ready(Ok(None)),
        Poll::Ready(Some(Err(error))) => {
            Poll::Ready(Err(format!("cannot read the stream: {error}")))
        }
        Poll::Ready(Some(Ok(data))) => {
            let _ = body.flow_control().release_capacity(data.len());
            Poll::Ready(Ok(Some(data)))
        }
    }
}

/// The whole of an HTTP/2 body.
async fn read_all(mut body: h2::RecvStream) -> Result<Vec<u8>, String> {
    let mut all = Vec::new();
    while let Some(data) = std::future::poll_fn(|cx| poll_body(&mut body, cx)).await? {
        all.extend_from_slice(&data);
    }
    Ok(all)
}

/// An open stream read by its connection's task.
struct LiveStream {
    index: usize,
    body: h2::RecvStream,
    pending: Events,
}

/// One HTTP/2 connection's task: it drives the connection (so every request on it makes
/// progress) and reads every live stream handed to it, all with the task's one waker.
struct ConnectionTask {
    connection: h2::client::Connection<TcpStream, Bytes>,
    handed: mpsc::UnboundedReceiver<LiveStream>,
    streams: Vec<LiveStream>,
    target: Arc<Target>,
    sink: mpsc::UnboundedSender<(usize, Event)>,
}

impl Future for ConnectionTask {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let task = &mut *self;
        // Frames read here go to their streams, which are read below.
        if let Poll::Ready(ended) = Pin::new(&mut task.connection).poll(cx) {
            let error = match ended {
                Ok(()) => "the server closed the connection".to_owned(),
                Err(error) => format!("the HTTP/2 connection failed: {error}"),
            };
            for stream in &task.streams {
                let _ = task.sink.send((stream.index, Event::Failed(error.clone())));
            }
            return Poll::Ready(());
        }
        while let Poll::Ready(Some(stream)) = task.handed.poll_recv(cx) {
            task.streams.push(stream);
        }
        let (target, sink) = (&*task.target, &task.sink);
        // Told to the collector at the end, in one message.
        let mut read_now = Vec::new();
        task.streams.retain_mut(|stream| {
            let read = loop {
                match poll_body(&mut stream.body, cx) {
                    Poll::Pending => break Ok(()),
                    Poll::Ready(Ok(Some(data))) => {
                        let index = stream.index;
                        if let Err(error) =
                            notified(target, index, &data, &mut stream.pending, |at| {
                                read_now.push((index, at));
                            })
                        {
                            break Err(error);
                        }
                    }
                    Poll::Ready(Ok(None)) => break Err("the server ended the stream".to_owned()),
                    Poll::Ready(Err(error)) => break Err(error),
                }
            };
            match read {
                Ok(()) => true,
                Err(error) => {
                    let _ = sink.send((stream.index, Event::Failed(error)));
                    false
                }
            }
        });
        if !read_now.is_empty() {
            let _ = sink.send((0, Event::NotifiedMany(read_now)));
        }
        Poll::Pending
    }
}

/// How one stream's requests reach the server.
enum Link {
    /// A connection of its own.
    Http1(Connection),
    /// An HTTP/2 connection shared with other streams.
    Http2(Http2),
}

/// The body of a live SSE stream.
enum Feed {
    Http1(Connection),
    /// With the connection's channel for streams it is to read.
    Http2 {
        body: h2::RecvStream,
        live: mpsc::UnboundedSender<LiveStream>,
    },
}

impl Feed {
    /// The next piece of the body; `None` at its end.
    async fn chunk(&mut self) -> Result<Option<Bytes>, String> {
        match self {
            Feed::Http1(connection) => Ok(connection.chunk().await?.map(Bytes::from)),
            Feed::Http2 { body, .. } => std::future::poll_fn(|cx| poll_body(body, cx)).await,
        }
    }
}

impl Link {
    /// Sends a request; HTTP/1.1 reads the reply's head, HTTP/2 its head and its body's handle.
    async fn send(
        &mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Result<(Head, Option<h2::RecvStream>), String> {
        match self {
            Link::Http1(connection) => {
                let port = connection.port;
                let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
                for (name, value) in headers {
                    request.push_str(&format!("{name}: {value}\r\n"));
                }
                if let Some(body) = &body {
                    request.push_str(&format!(
                        "Content-Type: application/json\r\nContent-Length: {}\r\n",
                        body.len()
                    ));
                }
                request.push_str("\r\n");
                request.push_str(body.as_deref().unwrap_or(""));
                connection.send(&request).await?;
                Ok((connection.head().await?, None))
            }
            Link::Http2(http2) => {
                let (head, body) = http2.request(method, headers, body).await?;
                Ok((head, Some(body)))
            }
        }
    }

    /// A request whose whole reply is read.
    async fn exchange(
        &mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Result<(Head, Vec<u8>), String> {
        let (head, incoming) = self.send(method, headers, body).await?;
        let reply = match (self, incoming) {
            (_, Some(incoming)) => read_all(incoming).await?,
            (Link::Http1(connection), None) => connection.body(&head).await?,
            (Link::Http2(_), None) => Vec::new(),
        };
        Ok((head, reply))
    }

    /// A request answered by a live SSE stream, which is returned; any other reply is an error.
    async fn stream(
        mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Result<Feed, String> {
        let (head, incoming) = self.send(method, headers, body).await?;
        let feed = match (self, incoming) {
            (Link::Http2(http2), Some(body)) => Feed::Http2 {
                body,
                live: http2.live,
            },
            (Link::Http1(connection), None) => Feed::Http1(connection),
            _ => return Err("a reply that is not of its link's kind".to_owned()),
        };
        if head.status == 200 && head.event_stream && head.chunked {
            return Ok(feed);
        }
        let reply = match feed {
            Feed::Http1(mut connection) => connection.body(&head).await.unwrap_or_default(),
            Feed::Http2 { body, .. } => read_all(body).await.unwrap_or_default(),
        };
        Err(format!(
            "{method} answered {} without a live SSE stream: {}",
            head.status,
            String::from_utf8_lossy(&reply)
        ))
    }
}
/// Opens stream `index` over `link` and returns its body, after the acknowledgment of a listen.
async fn open(target: &Target, index: usize, mut link: Link) -> Result<(Feed, Events), String> {
    let uri = Value::String(target.uri.clone());
    match target.era {
        Era::Modern => {
            let id = index + 1;
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientCapabilities":{{}}}},"notifications":{{"resourceSubscriptions":[{uri}]}}}}}}"#
            );
            let headers = [
                ("accept", ACCEPT_BOTH),
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "subscriptions/listen"),
            ];
            let mut feed = link.stream("POST", &headers, Some(body)).await?;
            // The acknowledgment comes first.
            let mut events = Events::default();
            loop {
                let chunk = feed
                    .chunk()
                    .await?
                    .ok_or("the listen stream ended before its acknowledgment")?;
                let mut first = None;
                events.push(&chunk, |data, _| {
                    first.get_or_insert_with(|| data.to_owned());
                    Ok(())
                })?;
                if let Some(data) = first {
                    let value: Value = serde_json::from_str(&data)
                        .map_err(|error| format!("an event that is not JSON ({error}): {data}"))?;
                    let tag = &value["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
                    if value["method"] != "notifications/subscriptions/acknowledged"
                        || *tag != json!(id)
                        || value["params"]["notifications"]["resourceSubscriptions"]
                            != json!([target.uri])
                    {
                        return Err(format!("not the acknowledgment of listen {id}: {data}"));
                    }
                    return Ok((feed, events));
                }
            }
        }
        Era::Legacy => {
            let initialize = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"bench-fanout","version":"0.0.0"}}}}}}"#
            );
            let (head, reply) = link
                .exchange("POST", &[("accept", ACCEPT_BOTH)], Some(initialize))
                .await?;
            let session = head.session.ok_or_else(|| {
                format!(
                    "initialize answered {} without Mcp-Session-Id: {}",
                    head.status,
                    String::from_utf8_lossy(&reply)
                )
            })?;
            let mut headers = [
                ("accept", ACCEPT_BOTH),
                ("mcp-protocol-version", LEGACY),
                ("mcp-session-id", session.as_str()),
            ];
            let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
            let (head, _) = link
                .exchange("POST", &headers, Some(initialized.to_owned()))
                .await?;
            if head.status / 100 != 2 {
                return Err(format!(
                    "notifications/initialized answered {}",
                    head.status
                ));
            }
            let subscribe = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{{"uri":{uri}}}}}"#
            );
            let (head, reply) = link.exchange("POST", &headers, Some(subscribe)).await?;
            let reply = String::from_utf8_lossy(&reply);
            if head.status != 200 || !reply.contains("\"result\"") {
                return Err(format!(
                    "resources/subscribe answered {}: {reply}",
                    head.status
                ));
            }
            headers[0].1 = "text/event-stream";
            let feed = link.stream("GET", &headers, None).await?;
            Ok((feed, Events::default()))
        }
    }
}

/// Checks the notifications completed by `bytes` of stream `index` and calls `each` with the
/// time they were read. An event with the same digest as the last one this stream passed (every
/// change's notification is the same) passes without being parsed again.
fn notified(
    target: &Target,
    index: usize,
    bytes: &[u8],
    pending: &mut Events,
    mut each: impl FnMut(Instant),
) -> Result<(), String> {
    let at = Instant::now();
    let tag = index as u64 + 1;
    pending.push(bytes, |data, checked| {
        let digest = Digest::of(data);
        if *checked == Some(digest) {
            each(at);
            return Ok(());
        }
        let notification: Notification<'_> = serde_json::from_str(data)
            .map_err(|error| format!("not the notification expected ({error}): {data}"))?;
        let tagged = match target.era {
            Era::Legacy => notification.params.meta.is_none(),
            Era::Modern => notification
                .params
                .meta
                .is_some_and(|meta| meta.subscription_id == Some(tag)),
        };
        if notification.method != "notifications/resources/updated"
            || notification.params.uri != target.uri
            || !tagged
        {
            return Err(format!("an unexpected event: {data}"));
        }
        *checked = Some(digest);
        each(at);
        Ok(())
    })
}

/// Reads HTTP/1.1 stream `index` until it fails.
async fn listen(
    target: &Target,
    index: usize,
    connection: &mut Connection,
    pending: &mut Events,
    sink: &mpsc::UnboundedSender<(usize, Event)>,
) -> Result<(), String> {
    loop {
        let chunk = connection
            .chunk()
            .await?
            .ok_or("the server ended the stream")?;
        // The collector is gone only when the run ends.
        notified(target, index, &chunk, pending, |at| {
            let _ = sink.send((index, Event::Notified(at)));
        })?;
        if sink.is_closed() {
            return Ok(());
        }
    }
}
