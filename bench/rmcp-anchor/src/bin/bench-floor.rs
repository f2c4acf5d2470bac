//! The floor of `cargo xtask bench`: what transport and JSON alone cost. It answers
//! `resources/list` with pages of 100 (the cursor is the index of the next item) and
//! `resources/read` (and anything else, with the read's shape) by a typed serde parse of the
//! request and a typed serialization of the reply, with no protocol machinery at all:
//! a bare pipe loop on stdio, a bare hyper handler on HTTP (JSON replies, or with `http-sse`
//! the same reply as one SSE `data:` event).
//!
//! With `fanout` it is the floor of the fan-out scenario: a bare hyper server (HTTP/1.1, and
//! HTTP/2 for a client that opens with its preface) on one tokio thread, as mcp-resources serves
//! by default, that answers every POST of `subscriptions/listen` with an SSE stream: the
//! acknowledgment, then one `notifications/resources/updated` for the stream's first URI, tagged
//! with the stream's id, each time FILE changes. No sessions, no hub, no filters, no keep-alive:
//! a `tokio::sync::watch` channel wakes every stream and each serializes its own notification
//! (typed serde), as it must since the tags differ. The change is taken from a `notify` watcher,
//! debounced like mcp-resources' (150 ms without events), and logged on stderr with the line
//! and timestamp format that the bench reads from mcp-resources' log.
//!
//! `fanout-h2` is the same floor without a task per stream, to show what a design of that kind
//! could reach: HTTP/2 only (prior knowledge), served with the `h2` crate directly. A task per
//! request reads the listen POST and sends the acknowledgment, then hands the stream's send half
//! to its connection's task and ends; on a change, each connection's task writes the
//! notification of every stream it holds, so a change wakes one task per connection rather than
//! one per stream.
//!
//! Usage: `bench-floor stdio`, `bench-floor http 127.0.0.1:PORT`,
//! `bench-floor http-sse 127.0.0.1:PORT`, `bench-floor fanout 127.0.0.1:PORT FILE` or
//! `bench-floor fanout-h2 127.0.0.1:PORT FILE`.

use std::io::{BufRead, Write};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use rmcp_anchor::{RESOURCE_COUNT, index_of, text, uri};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The list page size, as every server of the bench uses.
const PAGE: usize = 100;

#[derive(Deserialize)]
struct Req<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    method: &'a str,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
}

/// What the floor serves: the texts, and the URIs and names of the list.
struct Workload {
    texts: Vec<String>,
    uris: Vec<String>,
    names: Vec<String>,
}

impl Workload {
    fn new() -> Workload {
        Workload {
            texts: (0..RESOURCE_COUNT).map(text).collect(),
            uris: (0..RESOURCE_COUNT).map(uri).collect(),
            names: (0..RESOURCE_COUNT)
                .map(|index| format!("r{index:04}"))
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: ReadResult<'a>,
}

#[derive(Serialize)]
struct ListReply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: ListResult<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListResult<'a> {
    resources: Vec<Listed<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    uri: &'a str,
    name: &'a str,
    mime_type: &'static str,
}

#[derive(Serialize)]
struct ReadResult<'a> {
    contents: [Contents<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Contents<'a> {
    uri: &'a str,
    mime_type: &'static str,
    text: &'a str,
}

fn answer(workload: &Workload, line: &[u8], out: &mut Vec<u8>) {
    let Ok(request) = serde_json::from_slice::<Req<'_>>(line) else {
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
        );
        return;
    };
    if request.method == "resources/list" {
        let start = request
            .params
            .as_ref()
            .and_then(|params| params.cursor.as_deref())
            .and_then(|cursor| cursor.parse::<usize>().ok())
            .unwrap_or(0)
            .min(RESOURCE_COUNT);
        let end = (start + PAGE).min(RESOURCE_COUNT);
        let reply = ListReply {
            jsonrpc: "2.0",
            id: request.id,
            result: ListResult {
                resources: (start..end)
                    .map(|index| Listed {
                        uri: &workload.uris[index],
                        name: &workload.names[index],
                        mime_type: "text/plain",
                    })
                    .collect(),
                next_cursor: (end < RESOURCE_COUNT).then(|| end.to_string()),
            },
        };
        serde_json::to_writer(&mut *out, &reply).expect("serializing to memory cannot fail");
        return;
    }
    let texts = &workload.texts;
    let uri = request
        .params
        .as_ref()
        .map_or("", |params| params.uri.as_str());
    let body = index_of(uri).map_or("", |index| texts[index].as_str());
    let reply = Reply {
        jsonrpc: "2.0",
        id: request.id,
        result: ReadResult {
            contents: [Contents {
                uri,
                mime_type: "text/plain",
                text: body,
            }],
        },
    };
    serde_json::to_writer(&mut *out, &reply).expect("serializing to memory cannot fail");
}

fn stdio(workload: &Workload) {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut reader = std::io::BufReader::with_capacity(1 << 16, stdin);
    let mut line = Vec::new();
    let mut out = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        out.clear();
        answer(workload, line.trim_ascii_end(), &mut out);
        out.push(b'\n');
        if stdout.write_all(&out).is_err() {
            return;
        }
        // Flush when no further request is already buffered, as a pipelining server would.
        if reader.buffer().is_empty() && stdout.flush().is_err() {
            return;
        }
    }
}

async fn http(workload: Arc<Workload>, addr: &str, sse: bool) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let workload = workload.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let workload = workload.clone();
                async move {
                    let body = request.into_body().collect().await?.to_bytes();
                    let mut out = Vec::with_capacity(1400);
                    if sse {
                        out.extend_from_slice(b"data: ");
                    }
                    answer(&workload, &body, &mut out);
                    let content_type = if sse {
                        out.extend_from_slice(b"\n\n");
                        "text/event-stream"
                    } else {
                        "application/json"
                    };
                    let mut response = Response::new(Full::new(Bytes::from(out)));
                    response.headers_mut().insert(
                        hyper::header::CONTENT_TYPE,
                        hyper::header::HeaderValue::from_static(content_type),
                    );
                    Ok::<_, hyper::Error>(response)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The floors of the fan-out scenario (see this program's doc).
mod fanout {
    use std::convert::Infallible;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, SystemTime};

    use bytes::Bytes;
    use futures_util::StreamExt;
    use http_body_util::combinators::BoxBody;
    use http_body_util::{BodyExt, Full, StreamBody};
    use hyper::body::{Frame, Incoming};
    use hyper::{Request, Response, StatusCode};
    use notify::Watcher;
    use serde::{Deserialize, Serialize};
    use serde_json::value::RawValue;
    use tokio::sync::{mpsc, watch};

    /// The line the bench looks for in the log, as mcp-resources writes it.
    const CHANGE_LOGGED: &str = "resource changed: notifying its subscribers";
    /// Quiet time after the last event before a change is taken, as mcp-resources' default.
    const DEBOUNCE: Duration = Duration::from_millis(150);

    #[derive(Deserialize)]
    struct Listen<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
        method: &'a str,
        params: ListenParams,
    }

    #[derive(Deserialize)]
    struct ListenParams {
        notifications: Wanted,
    }

    #[derive(Deserialize, Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Wanted {
        resource_subscriptions: Vec<String>,
    }

    #[derive(Serialize)]
    struct Notification<P> {
        jsonrpc: &'static str,
        method: &'static str,
        params: P,
    }

    #[derive(Serialize)]
    struct Tag<'a> {
        #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
        subscription_id: &'a RawValue,
    }

    #[derive(Serialize)]
    struct Acknowledged<'a> {
        #[serde(rename = "_meta")]
        meta: Tag<'a>,
        notifications: &'a Wanted,
    }

    #[derive(Serialize)]
    struct Updated<'a> {
        uri: &'a str,
        #[serde(rename = "_meta")]
        meta: Tag<'a>,
    }

    /// One message as an SSE event.
    fn event<T: Serialize>(message: &T) -> Bytes {
        let mut frame = Vec::with_capacity(192);
        frame.extend_from_slice(b"data: ");
        serde_json::to_writer(&mut frame, message).expect("serializing to memory cannot fail");
        frame.extend_from_slice(b"\n\n");
        Bytes::from(frame)
    }

    type Body = BoxBody<Bytes, Infallible>;

    fn status(code: StatusCode) -> Response<Body> {
        let mut response = Response::new(Full::new(Bytes::new()).boxed());
        *response.status_mut() = code;
        response
    }

    /// What a listen stream keeps: its id (the tag of its notifications) and its URI.
    struct Stream {
        id: Box<RawValue>,
        uri: String,
    }

    impl Stream {
        /// The stream a listen POST asks for and its acknowledgment, or the status refusing it.
        fn open(body: &[u8]) -> Result<(Stream, Bytes), StatusCode> {
            let request =
                serde_json::from_slice::<Listen<'_>>(body).map_err(|_| StatusCode::BAD_REQUEST)?;
            let uri = request
                .params
                .notifications
                .resource_subscriptions
                .first()
                .ok_or(StatusCode::BAD_REQUEST)?;
            if request.method != "subscriptions/listen" {
                return Err(StatusCode::NOT_FOUND);
            }
            let acknowledgment = event(&Notification {
                jsonrpc: "2.0",
                method: "notifications/subscriptions/acknowledged",
                params: Acknowledged {
                    meta: Tag {
                        subscription_id: request.id,
                    },
                    notifications: &request.params.notifications,
                },
            });
            let stream = Stream {
                id: request.id.to_owned(),
                uri: uri.clone(),
            };
            Ok((stream, acknowledgment))
        }

        /// The notification of a change, as an SSE event.
        fn updated(&self) -> Bytes {
            event(&Notification {
                jsonrpc: "2.0",
                method: "notifications/resources/updated",
                params: Updated {
                    uri: &self.uri,
                    meta: Tag {
                        subscription_id: &self.id,
                    },
                },
            })
        }
    }

    /// A listen stream: the acknowledgment, then a notification per change.
    fn listen(body: &[u8], changes: &watch::Sender<u64>) -> Response<Body> {
        let (stream, acknowledgment) = match Stream::open(body) {
            Ok(opened) => opened,
            Err(code) => return status(code),
        };
        let updates = futures_util::stream::unfold(
            (changes.subscribe(), stream),
            |(mut changes, stream)| async move {
                changes.changed().await.ok()?;
                Some((Ok(Frame::data(stream.updated())), (changes, stream)))
            },
        );
        let frames =
            futures_util::stream::once(std::future::ready(Ok(Frame::data(acknowledgment))))
                .chain(updates);
        let mut response = Response::new(BodyExt::boxed(StreamBody::new(frames)));
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        response
    }

    /// Watches `file` and bumps `changes` once per debounced change, logging it first.
    fn watch_file(
        file: &Path,
        changes: watch::Sender<u64>,
    ) -> notify::Result<notify::RecommendedWatcher> {
        let (events, mut raw) = mpsc::unbounded_channel::<()>();
        let watched = file.to_path_buf();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event
                    && event.kind.is_modify()
                    && event.paths.contains(&watched)
                {
                    let _ = events.send(());
                }
            })?;
        watcher.watch(
            file.parent().unwrap_or(Path::new(".")),
            notify::RecursiveMode::NonRecursive,
        )?;
        tokio::spawn(async move {
            while raw.recv().await.is_some() {
                // Until no event came for the debounce time.
                while let Ok(Some(())) = tokio::time::timeout(DEBOUNCE, raw.recv()).await {}
                eprintln!(
                    "{} DEBUG bench_floor: {CHANGE_LOGGED}",
                    humantime::format_rfc3339_micros(SystemTime::now())
                );
                changes.send_modify(|count| *count += 1);
            }
        });
        Ok(watcher)
    }

    /// The listener and the watched file's change channel.
    async fn start(
        addr: &str,
        file: &Path,
    ) -> std::io::Result<(
        tokio::net::TcpListener,
        watch::Sender<u64>,
        notify::RecommendedWatcher,
    )> {
        let file = std::fs::canonicalize(file)?;
        let (changes, _) = watch::channel(0u64);
        let watcher = watch_file(&file, changes.clone()).map_err(std::io::Error::other)?;
        Ok((tokio::net::TcpListener::bind(addr).await?, changes, watcher))
    }

    /// With hyper: a task per stream, woken by the change channel.
    pub(crate) async fn serve(addr: &str, file: PathBuf) -> std::io::Result<()> {
        let (listener, changes, _watcher) = start(addr, &file).await?;
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            let changes = changes.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let changes = changes.clone();
                    async move {
                        if request.method() != hyper::Method::POST {
                            return Ok::<_, hyper::Error>(status(StatusCode::METHOD_NOT_ALLOWED));
                        }
                        let body = request.into_body().collect().await?.to_bytes();
                        Ok(listen(&body, &changes))
                    }
                });
                let _ = hyper_util::server::conn::auto::Builder::new(
                    hyper_util::rt::TokioExecutor::new(),
                )
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            });
        }
    }

    /// With h2: a task per connection, which writes to all of its streams on a change.
    pub(crate) async fn serve_h2(addr: &str, file: PathBuf) -> std::io::Result<()> {
        let (listener, changes, _watcher) = start(addr, &file).await?;
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            tokio::spawn(connection(stream, changes.subscribe()));
        }
    }

    /// One HTTP/2 connection: accepts requests and, on each change, notifies its streams.
    async fn connection(stream: tokio::net::TcpStream, mut changes: watch::Receiver<u64>) {
        let Ok(mut connection) = h2::server::handshake(stream).await else {
            return;
        };
        let (opened, mut open) = mpsc::unbounded_channel();
        let mut streams: Vec<(Stream, h2::SendStream<Bytes>)> = Vec::new();
        loop {
            tokio::select! {
                accepted = connection.accept() => match accepted {
                    Some(Ok((request, respond))) => {
                        tokio::spawn(accept(request, respond, opened.clone()));
                    }
                    _ => return,
                },
                Some(stream) = open.recv() => streams.push(stream),
                Ok(()) = changes.changed() => {
                    // A stream the client reset fails here, and is let go.
                    streams.retain_mut(|(stream, send)| send.send_data(stream.updated(), false).is_ok());
                }
            }
        }
    }

    /// Reads a listen POST, answers it with its acknowledgment and hands the stream over.
    async fn accept(
        request: Request<h2::RecvStream>,
        mut respond: h2::server::SendResponse<Bytes>,
        opened: mpsc::UnboundedSender<(Stream, h2::SendStream<Bytes>)>,
    ) {
        let mut body = request.into_body();
        let mut bytes = Vec::new();
        while let Some(chunk) = body.data().await {
            let Ok(chunk) = chunk else { return };
            let _ = body.flow_control().release_capacity(chunk.len());
            bytes.extend_from_slice(&chunk);
        }
        let (stream, acknowledgment) = match Stream::open(&bytes) {
            Ok(opened) => opened,
            Err(code) => {
                let mut response = Response::new(());
                *response.status_mut() = code;
                let _ = respond.send_response(response, true);
                return;
            }
        };
        let mut response = Response::new(());
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        let Ok(mut send) = respond.send_response(response, false) else {
            return;
        };
        if send.send_data(acknowledgment, false).is_ok() {
            let _ = opened.send((stream, send));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode @ ("fanout" | "fanout-h2"), addr, file] = args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let served = if *mode == "fanout" {
            runtime.block_on(fanout::serve(addr, file.into()))
        } else {
            runtime.block_on(fanout::serve_h2(addr, file.into()))
        };
        if let Err(error) = served {
            eprintln!("bench-floor: {error}");
            std::process::exit(1);
        }
        return;
    }
    let workload = Workload::new();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => stdio(&workload),
        [mode @ ("http" | "http-sse"), addr] => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            let sse = *mode == "http-sse";
            if let Err(error) = runtime.block_on(http(Arc::new(workload), addr, sse)) {
                eprintln!("bench-floor: {error}");
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!(
                "usage: bench-floor stdio | bench-floor http ADDR | bench-floor http-sse ADDR | \
                 bench-floor fanout ADDR FILE | bench-floor fanout-h2 ADDR FILE"
            );
            std::process::exit(2);
        }
    }
}
