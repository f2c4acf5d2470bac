//! The fan-out driver of `cargo xtask bench`: opens many Streamable HTTP notification streams
//! on one `mcp-resources` server at 127.0.0.1, all subscribed to one `file://` resource, then
//! rewrites that file on command and times how the change reaches every stream.
//!
//! It is a program of its own (built in release with the other bench programs) so that the
//! driver's own cost per notification is that of optimized code on a single-threaded tokio
//! runtime, not of the xtask's debug build. It speaks HTTP/1.1 by hand (requests, chunked
//! bodies, SSE events) and checks every notification it counts: the method, the URI and, in the
//! modern era, the `subscriptionId` tag of its stream.
//!
//! Usage: `bench-fanout modern|legacy PORT STREAMS URI FILE`
//!
//! - `modern`: one `subscriptions/listen` POST per stream with `resourceSubscriptions: [URI]`;
//!   a stream is open once its acknowledgment arrived.
//! - `legacy`: one session per stream (`initialize`, `notifications/initialized`,
//!   `resources/subscribe` for URI, then the GET SSE stream, all on one connection); a stream
//!   is open once the GET answered `200`.
//!
//! Lines with the xtask, one JSON object each: it prints `{"ready":N,"setup_ms":…}` once every
//! stream is open; then for every `change` line read on stdin it rewrites FILE and prints
//! `{"received":N,"write_to_first_us":…,"write_to_last_us":…,"late":…}` once every stream got
//! its notification (`late`: notifications of an earlier change seen since); `quit` prints
//! `{"late":…}` (those seen since the last change) and ends it, as does the end of stdin. Any
//! failure prints `{"error":"…"}` and exits with status 1. Setup and every change are bounded
//! in time.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::{Duration, Instant};

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

struct Target {
    era: Era,
    port: u16,
    uri: String,
}

/// What a stream task tells the collector.
enum Event {
    Open,
    Failed(String),
    /// A checked notification and when it was read.
    Notified(Instant),
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [era, port, streams, uri, file] => {
            let era = match *era {
                "modern" => Some(Era::Modern),
                "legacy" => Some(Era::Legacy),
                _ => None,
            };
            match (era, port.parse::<u16>(), streams.parse::<usize>()) {
                (Some(era), Ok(port), Ok(streams)) => Some((
                    Target {
                        era,
                        port,
                        uri: (*uri).to_owned(),
                    },
                    streams,
                    std::path::PathBuf::from(file),
                )),
                _ => None,
            }
        }
        _ => None,
    };
    let Some((target, streams, file)) = parsed else {
        eprintln!("usage: bench-fanout modern|legacy PORT STREAMS URI FILE");
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(error) = runtime.block_on(drive(Arc::new(target), streams, &file)) {
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
            Event::Failed(error) => return Err(format!("stream {index}: {error}")),
            Event::Open => {}
        }
    }
    Ok(late)
}

async fn drive(target: Arc<Target>, streams: usize, file: &std::path::Path) -> Result<(), String> {
    let (events, mut inbox) = mpsc::unbounded_channel::<(usize, Event)>();
    let setup = Arc::new(Semaphore::new(SETUP_PARALLEL));
    let started = Instant::now();
    for index in 0..streams {
        let (target, events, setup) = (Arc::clone(&target), events.clone(), Arc::clone(&setup));
        tokio::spawn(async move {
            let opened = {
                let _permit = setup.acquire().await;
                open(&target, index).await
            };
            let mut connection = match opened {
                Ok(connection) => connection,
                Err(error) => {
                    let _ = events.send((index, Event::Failed(error)));
                    return;
                }
            };
            let _ = events.send((index, Event::Open));
            if let Err(error) = listen(&target, index, &mut connection, &events).await {
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
        let mut late = drain_late(&mut inbox)?;
        seen.fill(false);
        let mut text = format!("changed {change:06} ");
        while text.len() < 1024 {
            text.push('y');
        }
        let written = Instant::now();
        std::fs::write(file, &text)
            .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
        let (mut first, mut last) = (None::<Instant>, None::<Instant>);
        let mut received = 0;
        let deadline = tokio::time::Instant::now() + CHANGE_TIMEOUT;
        while received < streams {
            match tokio::time::timeout_at(deadline, inbox.recv()).await {
                Ok(Some((index, Event::Notified(at)))) => {
                    if std::mem::replace(&mut seen[index], true) {
                        late += 1;
                        continue;
                    }
                    received += 1;
                    first = Some(first.map_or(at, |first| first.min(at)));
                    last = Some(last.map_or(at, |last| last.max(at)));
                }
                Ok(Some((index, Event::Failed(error)))) => {
                    return Err(format!("stream {index}: {error}"));
                }
                Ok(Some((_, Event::Open))) => {}
                Ok(None) => return Err("every stream task ended".to_owned()),
                Err(_) => {
                    return Err(format!(
                        "change {change}: {received} of {streams} notifications within {CHANGE_TIMEOUT:?}"
                    ));
                }
            }
        }
        let micros = |at: Option<Instant>| {
            at.map_or(f64::NAN, |at| {
                at.saturating_duration_since(written).as_secs_f64() * 1e6
            })
        };
        println!(
            "{}",
            json!({
                "received": received,
                "write_to_first_us": micros(first),
                "write_to_last_us": micros(last),
                "late": late,
            })
        );
    }
    Ok(())
}

/// One HTTP/1.1 connection to the server, with what was read and not yet used.
struct Connection {
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
        let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|error| format!("cannot connect to 127.0.0.1:{port}: {error}"))?;
        let _ = stream.set_nodelay(true);
        Ok(Connection {
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

    /// POSTs `body` and returns the head and the body of the reply.
    async fn post(
        &mut self,
        port: u16,
        extra_headers: &str,
        body: &str,
    ) -> Result<(Head, Vec<u8>), String> {
        self.send(&format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n{extra_headers}\r\n{body}",
            body.len()
        ))
        .await?;
        let head = self.head().await?;
        let reply = self.body(&head).await?;
        Ok((head, reply))
    }
}

/// SSE events out of a de-chunked byte stream.
#[derive(Default)]
struct Events {
    pending: Vec<u8>,
}

impl Events {
    /// Adds bytes and returns the `data` of every event now complete (comments skipped).
    fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.pending.windows(2).position(|pair| pair == b"\n\n") {
            let event: Vec<u8> = self.pending.drain(..end + 2).collect();
            let data: Vec<&str> = std::str::from_utf8(&event)
                .unwrap_or("")
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if !data.is_empty() {
                events.push(data.join("\n"));
            }
        }
        events
    }
}

/// Opens stream `index` and returns its connection, positioned in the stream's body.
async fn open(target: &Target, index: usize) -> Result<(Connection, Events), String> {
    let port = target.port;
    let mut connection = Connection::connect(port).await?;
    let uri = Value::String(target.uri.clone());
    match target.era {
        Era::Modern => {
            let id = index + 1;
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientCapabilities":{{}}}},"notifications":{{"resourceSubscriptions":[{uri}]}}}}}}"#
            );
            connection
                .send(&format!(
                    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
                     Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n\
                     Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                ))
                .await?;
            let head = connection.head().await?;
            if head.status != 200 || !head.event_stream || !head.chunked {
                let reply = connection.body(&head).await.unwrap_or_default();
                return Err(format!(
                    "subscriptions/listen answered {} without a live SSE stream: {}",
                    head.status,
                    String::from_utf8_lossy(&reply)
                ));
            }
            // The acknowledgment comes first.
            let mut events = Events::default();
            loop {
                let chunk = connection
                    .chunk()
                    .await?
                    .ok_or("the listen stream ended before its acknowledgment")?;
                if let Some(data) = events.push(&chunk).into_iter().next() {
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
                    return Ok((connection, events));
                }
            }
        }
        Era::Legacy => {
            let initialize = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"bench-fanout","version":"0.0.0"}}}}}}"#
            );
            let (head, reply) = connection.post(port, "", &initialize).await?;
            let session = head.session.ok_or_else(|| {
                format!(
                    "initialize answered {} without Mcp-Session-Id: {}",
                    head.status,
                    String::from_utf8_lossy(&reply)
                )
            })?;
            let headers =
                format!("MCP-Protocol-Version: {LEGACY}\r\nMcp-Session-Id: {session}\r\n");
            let (head, _) = connection
                .post(
                    port,
                    &headers,
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                )
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
            let (head, reply) = connection.post(port, &headers, &subscribe).await?;
            let reply = String::from_utf8_lossy(&reply);
            if head.status != 200 || !reply.contains("\"result\"") {
                return Err(format!(
                    "resources/subscribe answered {}: {reply}",
                    head.status
                ));
            }
            connection
                .send(&format!(
                    "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n{headers}\r\n"
                ))
                .await?;
            let head = connection.head().await?;
            if head.status != 200 || !head.event_stream || !head.chunked {
                return Err(format!(
                    "the GET stream answered {} without a live SSE stream",
                    head.status
                ));
            }
            Ok((connection, Events::default()))
        }
    }
}

/// Reads stream `index` until it fails, sending one event per checked notification.
async fn listen(
    target: &Target,
    index: usize,
    (connection, events): &mut (Connection, Events),
    sink: &mpsc::UnboundedSender<(usize, Event)>,
) -> Result<(), String> {
    let tag = json!(index + 1);
    loop {
        let chunk = connection
            .chunk()
            .await?
            .ok_or("the server ended the stream")?;
        let at = Instant::now();
        for data in events.push(&chunk) {
            let value: Value = serde_json::from_str(&data)
                .map_err(|error| format!("an event that is not JSON ({error}): {data}"))?;
            let tagged = target.era == Era::Legacy
                || value["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == tag;
            if value["method"] != "notifications/resources/updated"
                || value["params"]["uri"] != target.uri.as_str()
                || !tagged
            {
                return Err(format!("an unexpected event: {data}"));
            }
            if sink.send((index, Event::Notified(at))).is_err() {
                return Ok(());
            }
        }
    }
}
