//! The Streamable HTTP transport: one MCP endpoint (`/mcp` by default) serving both protocol
//! eras, as an axum [`Router`] to mount into any app ([`Server::router`]) or served on its own
//! ([`Server::serve_http`]). There is one HTTP stack: `serve_http` serves the very router
//! `router()` returns, with the peer's address as `ConnectInfo`, on connections of
//! hyper-util's one builder for both protocols: HTTP/1.1, and HTTP/2 for a client that opens
//! with its preface (h2c with prior knowledge), told apart by hyper-util.
//!
//! [`Server::serve_http`] bounds every connection before anyone is authorized
//! ([`HttpOptions`]): how many are open (in all and per peer address), how long headers, a
//! body and an idle connection may take, HTTP/2 windows, streams and keep-alive pings; served
//! by a router of your own, these are your server's to set. Whoever serves it, the router
//! bounds how many request and response bytes, sessions and listen streams are held at once,
//! in all and per client ([`limits`]).
//!
//! **Layer:** server, HTTP transport. Every request goes through the same checks, in this order
//! (drawn from the MCP specification's Basic › Transports › Streamable HTTP of 2025-11-25 and
//! 2026-07-28, Basic › Authorization, and 2026-07-28 Basic › Versioning on serving both eras):
//!
//! 1. `Origin`: present and neither loopback nor configured, or given more than once → `403`.
//!    `Host` (and the target's authority, HTTP/2's `:authority`, when there is one): neither
//!    loopback nor configured → `403` (DNS rebinding); given more than once, or neither it nor
//!    an authority given → `400` (a malformed request, RFC 9112 §3.2).
//! 2. The method: `POST`, `GET` or `DELETE`; anything else `405`.
//! 3. `POST`: the body size limit (`413`), then the body is parsed (`400` with `-32700` or
//!    `-32600`, the latter also for a batch over
//!    [`MAX_BATCH_MESSAGES`](crate::MAX_BATCH_MESSAGES); a body meant as one notification or
//!    response that does not decode is never answered: `202`), then
//!    [`era::route_http`] picks the era from `initialize`, the
//!    `MCP-Protocol-Version` header and the body's `_meta` (`400` with `-32020`, `-32022` or
//!    `-32600` when it rejects).
//!    - Legacy ([`legacy`]): `initialize` (without modern `_meta`) opens a session and sends
//!      its id in `Mcp-Session-Id`; anything else needs a live session (`400` without the
//!      header, `404` for an unknown, deleted or expired one). A request is answered with JSON, or with a buffered SSE
//!      body when notifications (progress) precede the response; a body of notifications and
//!      responses only gets `202`. Unknown methods are JSON-RPC `-32601` errors in a `200`.
//!    - Modern ([`modern`]): stateless; the adapter checks `_meta` (`-32602`), the headers
//!      against the body (`-32020`) and the version (`-32022`), all `400`, and unknown methods
//!      get `404` with `-32601`. `subscriptions/listen` is a live SSE stream.
//! 4. `GET` with a live legacy session and `Accept: text/event-stream`: the session's
//!    standalone SSE stream (one per session, `409` for a second); any other `GET` → `405`.
//!    `DELETE` with a live session ends it (`204`); without a session header `405`, with an
//!    unknown one `404`.
//!
//! SSE events carry no ids (no stream is resumable, so there is nothing to prime), and live
//! streams send `:` keep-alive comments. [`Server::shutdown`] ends listen streams with their
//! graceful result and legacy GET streams, and [`Server::serve_http`] stops accepting, shuts
//! each connection down gracefully and returns once they are closed, their open requests
//! done. The principal of every HTTP request is anonymous, unless
//! [`HttpOptions::authorization`] is set ([`auth`]): every request then needs a bearer token
//! (checked before anything else but `Origin` and `Host`), runs as its token's principal, gets
//! every modern result `cacheScope: "private"`, and may only name a legacy session its subject
//! opened. This module must never implement a
//! protocol rule of either era itself: the adapters do; it only carries bytes, statuses and
//! headers.

pub mod auth;
pub mod guard;
mod legacy;
mod limits;
mod modern;
mod options;
mod reply;
mod sse;
mod state;
mod stored;

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use mcp_2026::RequestError;
use mcp_2026::headers::{HeaderError, PROTOCOL_VERSION_HEADER};
use mcp_types::error::{INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
use mcp_types::jsonrpc::{self, DecodeError, ErrorObject, Incoming, Message, RequestId};
use mcp_types::method;

pub use self::options::HttpOptions;
use self::reply::Response;
use self::state::HttpState;
use crate::era::{self, HttpMessage, HttpRoute};
use crate::server::Server;

/// `MCP-Protocol-Version`, a name made once as [`legacy::SESSION_ID`] is.
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// What the routes of one router share: the state of its requests, and its legacy sessions
/// (the legacy path's own state, handed to it beside the request's).
#[derive(Clone, Debug)]
struct RouterState {
    state: HttpState,
    sessions: Arc<legacy::Sessions>,
}

impl Server {
    /// The MCP endpoint as an axum [`Router`] serving both eras at `options.path`, to serve
    /// alone or merge into an app. Each router has its own legacy sessions.
    /// [`Server::serve_http`] serves this same router.
    ///
    /// The connection limits of [`HttpOptions`] (counts, timeouts, pings) are
    /// [`Server::serve_http`]'s: serving a router, they are the app's to set. The per-client
    /// quotas (request and response bytes, sessions, listen streams) apply here too; serve the
    /// app with connect info, as below, so that an anonymous client is its peer's address;
    /// without it, every anonymous request counts as one client.
    ///
    /// ```no_run
    /// # async fn run(server: mcp_resources_server::Server) -> std::io::Result<()> {
    /// use mcp_resources_server::HttpOptions;
    ///
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(server.router(HttpOptions::default()));
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let service = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    /// axum::serve(listener, service).await
    /// # }
    /// ```
    pub fn router(&self, options: HttpOptions) -> Router {
        let path = options.path.clone();
        let health = options.health;
        let metadata_paths = options
            .authorization
            .as_ref()
            .map(|authorization| authorization.metadata_paths(&path))
            .unwrap_or_default();
        let state = RouterState {
            state: HttpState::new(&self.shared, options),
            sessions: Arc::default(),
        };
        // Every path is literal: braces escaped, and no `:` or `*` taken for axum 0.7's captures,
        // so that a configured path holding them is served at that very path, never as a
        // pattern, and never refused by the router with a panic.
        let mut router = Router::new()
            .without_v07_checks()
            .route(&literal_route(&path), axum::routing::any(endpoint));
        // An endpoint at a metadata path is the endpoint: one route per path.
        for metadata_path in metadata_paths.iter().filter(|other| **other != path) {
            router = router.route(&literal_route(metadata_path), axum::routing::any(metadata));
        }
        if health {
            let taken = |candidate: &str| {
                candidate == path || metadata_paths.iter().any(|other| other == candidate)
            };
            if !taken(HEALTHZ) {
                router = router.route(HEALTHZ, axum::routing::any(healthz));
            }
            if !taken(READYZ) {
                router = router.route(READYZ, axum::routing::any(readyz));
            }
        }
        router.with_state(state)
    }

    /// Serves the MCP endpoint on `addr` until [`Server::shutdown`]; then ends live streams
    /// gracefully and returns once open requests are done. Bind `127.0.0.1` for a local
    /// server.
    ///
    /// # Errors
    ///
    /// When `addr` cannot be bound.
    pub async fn serve_http(self, addr: SocketAddr, options: HttpOptions) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.serve_http_on(listener, options).await
    }

    /// Like [`Server::serve_http`], on a listener bound already (for example to port 0, to
    /// learn the port from [`tokio::net::TcpListener::local_addr`] first).
    ///
    /// It serves the [`Router`] that [`Server::router`] returns for `options`, the same
    /// service an app serves, with the peer's address as axum's `ConnectInfo` on every
    /// request. Each connection is served on a task of its own by hyper-util's
    /// [`auto::Builder`](hyper_util::server::conn::auto::Builder), which tells the protocol
    /// from the first bytes: a connection that opens with the HTTP/2 preface is served as
    /// HTTP/2 (h2c with prior knowledge: there is no TLS, so no ALPN, and `Upgrade: h2c` is not
    /// taken), every other as HTTP/1.1. On HTTP/2, `:authority` stands for `Host` in the
    /// DNS-rebinding check, and at most [`HttpOptions::max_streams_per_connection`] requests of
    /// a connection are open at once. A failed `accept` (the process is out of file
    /// descriptors, say) is logged and retried after a pause rather than ending the server.
    ///
    /// # Errors
    ///
    /// None today: the result leaves room for a listener that can fail for good.
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
    ) -> std::io::Result<()> {
        if let Ok(addr) = listener.local_addr() {
            tracing::info!(%addr, path = %options.path, "serving MCP over Streamable HTTP");
        }
        let connections = limits::Quota::new(
            "connections",
            limits::connection_cap(options.max_connections),
            options.max_connections_per_peer,
        );
        let serving = Arc::new(Connections::new(&options));
        let router = self.router(options);
        let shutdown = self.shared.shutdown.clone();
        // Every connection task holds a sender; once they are all gone, `recv` says so.
        let (open, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
        loop {
            let (stream, peer) = tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        accept_failed(&error).await;
                        continue;
                    }
                },
            };
            // Over the cap, the connection is closed at once: accepted only to learn its peer.
            let Ok(held) = connections.take(&limits::Client::peer(peer.ip()), 1) else {
                continue;
            };
            // Replies are written whole; waiting for more to coalesce only adds latency.
            let _ = stream.set_nodelay(true);
            let (serving, router, open) = (Arc::clone(&serving), router.clone(), open.clone());
            let closing = shutdown.clone().cancelled_owned();
            tokio::spawn(async move {
                serving.serve(router, stream, peer, closing).await;
                drop((held, open));
            });
        }
        drop(listener);
        drop(open);
        let _ = all_closed.recv().await;
        Ok(())
    }
}

/// A failed `accept`: a connection that went away before it was accepted is skipped; anything
/// else (out of file descriptors, say) is logged and retried a moment later.
async fn accept_failed(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused
    ) {
        return;
    }
    tracing::warn!(%error, "cannot accept a connection; retrying in a second");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// How much of one HTTP/2 request body, and of all a connection's, a client may send before
/// the server reads it: what the server holds of bodies it has not charged to their client
/// yet ([`HttpOptions::max_request_bytes`]).
const STREAM_WINDOW: u32 = 256 * 1024;
const CONNECTION_WINDOW: u32 = 1024 * 1024;

/// How [`Server::serve_http_on`] serves a connection: one hyper-util builder for both
/// protocols, set up once with the timeouts and sizes of [`HttpOptions`], and the timeouts the
/// server enforces itself around it.
struct Connections {
    builder: hyper_util::server::conn::auto::Builder<hyper_util::rt::TokioExecutor>,
    /// How long a new connection may go without a request, and how long an idle one has to
    /// close once told to ([`HttpOptions::header_read_timeout`]).
    header_read_timeout: Duration,
    idle_timeout: Duration,
    /// [`HttpOptions::shutdown_grace`].
    shutdown_grace: Duration,
}

impl Connections {
    fn new(options: &HttpOptions) -> Connections {
        let timer = hyper_util::rt::TokioTimer::new;
        let mut builder =
            hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
        builder
            .http1()
            .timer(timer())
            .header_read_timeout(options.header_read_timeout)
            // hyper's smallest read buffer; headers past it get `431`.
            .max_buf_size(options.max_header_bytes.max(8192));
        // How much the server may send is the client's to grant; its own windows bound the
        // request bodies it holds unread ([`STREAM_WINDOW`]).
        builder
            .http2()
            .timer(timer())
            .initial_stream_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .max_concurrent_streams(options.max_streams_per_connection)
            .max_header_list_size(u32::try_from(options.max_header_bytes).unwrap_or(u32::MAX))
            .keep_alive_interval(options.http2_keep_alive)
            .keep_alive_timeout(options.http2_keep_alive);
        Connections {
            builder,
            header_read_timeout: options.header_read_timeout,
            idle_timeout: options.idle_timeout,
            shutdown_grace: options.shutdown_grace,
        }
    }

    /// Serves `router` on one connection from `peer` until the client closes it; once
    /// `shutdown` is ready, shuts it down gracefully and lets its requests in progress finish
    /// (live streams end with the server) for at most [`HttpOptions::shutdown_grace`], so that a
    /// client that stops reading a response cannot hold the server's shutdown; once it has had no request in progress for
    /// [`HttpOptions::idle_timeout`] (before its first request, for
    /// [`HttpOptions::header_read_timeout`]: a client that connects and sends nothing, or only
    /// part of the HTTP/2 preface, is not kept), shuts it down and gives it
    /// [`HttpOptions::header_read_timeout`] to close before dropping it.
    async fn serve(
        &self,
        router: Router,
        stream: tokio::net::TcpStream,
        peer: SocketAddr,
        shutdown: impl Future<Output = ()>,
    ) {
        let in_progress: InProgress = Arc::new(tokio::sync::watch::channel(0).0);
        let idle = idle_for(
            in_progress.subscribe(),
            self.header_read_timeout,
            self.idle_timeout,
        );
        let router = hyper_util::service::TowerToHyperService::new(router);
        let service = hyper::service::service_fn(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                let open = Open::start(&in_progress);
                let response = hyper::service::Service::call(&router, request);
                async move {
                    let response = response.await?;
                    Ok::<_, std::convert::Infallible>(
                        response.map(|body| InProgressBody { body, _open: open }),
                    )
                }
            },
        );
        let connection = self
            .builder
            .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        tokio::pin!(connection, shutdown, idle);
        let result = tokio::select! {
            result = connection.as_mut() => result,
            () = shutdown => {
                connection.as_mut().graceful_shutdown();
                tokio::time::timeout(self.shutdown_grace, connection)
                    .await
                    .unwrap_or_else(|_| {
                        tracing::debug!(%peer, "connection dropped: still busy after the shutdown grace");
                        Ok(())
                    })
            }
            () = idle => {
                tracing::debug!(%peer, "idle connection closed");
                connection.as_mut().graceful_shutdown();
                // An HTTP/2 client has a moment to acknowledge the shutdown; one that does not
                // is dropped.
                tokio::time::timeout(self.header_read_timeout, connection)
                    .await
                    .unwrap_or(Ok(()))
            }
        };
        if let Err(error) = result {
            tracing::debug!(%error, "connection ended with an error");
        }
    }
}

/// `path` as an axum route that matches exactly that path: `{` and `}` escaped (the router is
/// built without axum 0.7's checks, so `:` and `*` are plain characters).
fn literal_route(path: &str) -> String {
    path.replace('{', "{{").replace('}', "}}")
}

/// How many requests of one connection are in progress (their responses not yet sent whole),
/// for its idle timeout.
type InProgress = Arc<tokio::sync::watch::Sender<usize>>;

/// One request in progress on its connection, until its response is sent or dropped.
struct Open(InProgress);

impl Open {
    fn start(in_progress: &InProgress) -> Open {
        in_progress.send_modify(|open| *open += 1);
        Open(Arc::clone(in_progress))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.send_modify(|open| *open -= 1);
    }
}

/// A response body that keeps its request counted as in progress until hyper is done with it
/// (a live stream is in progress for as long as it is open).
struct InProgressBody {
    body: axum::body::Body,
    _open: Open,
}

impl hyper::body::Body for InProgressBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(context)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// Ready once the connection has had no request in progress for `idle` (before its first
/// request, for `first`). Every request that starts restarts the wait, even one that was
/// over before this future was polled again.
async fn idle_for(
    mut in_progress: tokio::sync::watch::Receiver<usize>,
    first: Duration,
    idle: Duration,
) {
    let mut timeout = first;
    loop {
        if in_progress.wait_for(|open| *open == 0).await.is_err() {
            return std::future::pending().await;
        }
        match tokio::time::timeout(timeout, in_progress.changed()).await {
            Err(_) => return,
            Ok(Err(_)) => return std::future::pending().await,
            Ok(Ok(())) => timeout = idle,
        }
    }
}

/// The metadata document, at its routes of the [`Router`] (with
/// [`HttpOptions::authorization`]).
async fn metadata(State(router): State<RouterState>, method: Method) -> axum::response::Response {
    let response = match &router.state.options.authorization {
        Some(authorization) if method == Method::GET => authorization.metadata(),
        Some(_) => method_not_allowed(),
        None => reply::status(StatusCode::NOT_FOUND),
    };
    response.map(axum::body::Body::new)
}

/// The liveness path ([`HttpOptions::health`]).
const HEALTHZ: &str = "/healthz";
/// The readiness path ([`HttpOptions::health`]).
const READYZ: &str = "/readyz";

/// `GET /healthz`: the process serves.
async fn healthz(method: Method) -> axum::response::Response {
    health_reply(&method, true, "ok\n")
}

/// `GET /readyz`: ready for requests, change feed connected.
async fn readyz(State(router): State<RouterState>, method: Method) -> axum::response::Response {
    let server = Server {
        shared: Arc::clone(&router.state.shared),
    };
    if server.is_ready() {
        health_reply(&method, true, "ready\n")
    } else if server.is_shut_down() {
        health_reply(&method, false, "not ready: shutting down\n")
    } else {
        health_reply(&method, false, "not ready: the change feed is away\n")
    }
}

/// A health answer: `200` or `503` with a line of text, to `GET` and `HEAD` only.
fn health_reply(method: &Method, healthy: bool, text: &'static str) -> axum::response::Response {
    if method != Method::GET && method != Method::HEAD {
        return method_not_allowed().map(axum::body::Body::new);
    }
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    axum::response::Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .header(header::CACHE_CONTROL, "no-store")
        .body(axum::body::Body::from(text))
        .expect("a fixed status and headers")
}

/// The one handler of the endpoint, as a [`Router`] route.
async fn endpoint(
    State(router): State<RouterState>,
    request: axum::extract::Request,
) -> axum::response::Response {
    handle(&router, request).await.map(axum::body::Body::new)
}

/// Answers one request to the endpoint, and charges its body to the bytes its client may
/// hold: over that, the answer is `503` (the client is holding too much unread already). The
/// charge rides in the body's bytes, so it is given back when the last of them is dropped,
/// wherever the connection keeps them meanwhile.
async fn handle(router: &RouterState, request: axum::extract::Request) -> Response {
    let peer = request
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    let (client, mut response) = answer(router, peer, request).await;
    let Some(length) = response.body().whole_len().filter(|length| *length > 0) else {
        return response;
    };
    match router.state.response_bytes.take(&client, length) {
        Ok(held) => {
            response.body_mut().charge(held);
            response
        }
        Err(refused) => busy(&client, "response", refused),
    }
}

/// The answer to one request from `peer`, and the client it ran for.
async fn answer(
    router: &RouterState,
    peer: Option<SocketAddr>,
    request: axum::extract::Request,
) -> (limits::Client, Response) {
    let state = &router.state;
    let refused = |response: Response| (limits::Client::of(&state.principal, peer), response);
    let (parts, body) = request.into_parts();
    let origins = parts.headers.get_all(header::ORIGIN).iter();
    match guard::at_most_one(origins.map(HeaderValue::as_bytes)) {
        // Two origins are no origin a browser sends: present and invalid, so refused as a
        // disallowed one is.
        Err(guard::Repeated) => {
            tracing::warn!("request with more than one origin refused");
            return refused(forbidden("more than one origin"));
        }
        Ok(Some(origin)) if !guard::origin_allowed(origin, &state.options.allowed_origins) => {
            tracing::warn!(origin = %String::from_utf8_lossy(origin), "request from a disallowed origin refused");
            return refused(forbidden("origin not allowed"));
        }
        Ok(_) => {}
    }
    let hosts = parts.headers.get_all(header::HOST).iter();
    let authority = parts
        .uri
        .authority()
        .map(|authority| authority.as_str().as_bytes());
    match guard::check_host(
        hosts.map(HeaderValue::as_bytes),
        authority,
        &state.options.allowed_hosts,
    ) {
        guard::HostCheck::Allowed => {}
        guard::HostCheck::Missing => {
            tracing::warn!("request naming no host refused");
            return refused(bad_request("the request names no host"));
        }
        guard::HostCheck::Repeated => {
            tracing::warn!("request with more than one host refused");
            return refused(bad_request("more than one host header"));
        }
        guard::HostCheck::Disallowed(host) => {
            tracing::warn!(host = %String::from_utf8_lossy(host), "request for a disallowed host refused");
            return refused(forbidden("host not allowed"));
        }
    }
    // The request runs as its principal (with authorization, its token's) and counts against
    // its client's quotas: a state of its own.
    let principal = match &state.options.authorization {
        None => Arc::clone(&state.principal),
        Some(authorization) => match authorization.check(&parts.headers) {
            Ok(principal) => Arc::new(principal),
            Err(refusal) => return refused(refusal.response()),
        },
    };
    let client = limits::Client::of(&principal, peer);
    let state = &HttpState {
        principal,
        client: client.clone(),
        ..state.clone()
    };
    let response = match parts.method {
        Method::POST => post(state, &router.sessions, &parts.headers, body).await,
        Method::GET => get(state, &router.sessions, &parts.headers).await,
        Method::DELETE => delete(state, &router.sessions, &parts.headers).await,
        _ => method_not_allowed(),
    };
    (client, response)
}

/// A POST: one JSON-RPC message (or a legacy batch) read whole, routed to its era.
async fn post(
    state: &HttpState,
    sessions: &Arc<legacy::Sessions>,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Response {
    let bytes = match receive_body(state, headers, body).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    let incoming = match decode_body(&bytes) {
        Ok(incoming) => incoming,
        Err(response) => return *response,
    };
    let header_version = headers
        .get(PROTOCOL_VERSION)
        .map(|value| String::from_utf8_lossy(value.as_bytes()));
    let (initialize, meta_version, id) = match &incoming {
        Incoming::Single(Message::Request(request)) => {
            let meta_version = era::modern_meta_version(request);
            // An `initialize` carrying modern `_meta` is a 2026-07-28 request for a method that
            // era removed (`404` with `-32601`, as the conformance suite probes), not a
            // legacy handshake.
            let initialize = request.method == method::INITIALIZE && meta_version.is_none();
            (initialize, meta_version, Some(request.id.clone()))
        }
        _ => (false, None, None),
    };
    let route = era::route_http(HttpMessage {
        batch: matches!(incoming, Incoming::Batch(_)),
        initialize,
        header_version: header_version.as_deref(),
        meta_version: meta_version.as_deref(),
    });
    let error = match route {
        HttpRoute::Legacy => return legacy_post(state, sessions, headers, incoming).await,
        HttpRoute::Modern => return modern_post(state, headers, incoming).await,
        HttpRoute::RejectVersionMismatch => RequestError::HeaderMismatch(HeaderError::Differs {
            header: PROTOCOL_VERSION_HEADER,
            header_value: header_version.map(Cow::into_owned).unwrap_or_default(),
            body_value: meta_version.unwrap_or_default(),
        })
        .to_error_object(),
        HttpRoute::RejectUnsupportedVersion => RequestError::UnsupportedVersion {
            requested: header_version.map(Cow::into_owned).unwrap_or_default(),
            supported: state.modern().config().supported_versions(),
        }
        .to_error_object(),
        HttpRoute::RejectBatch => {
            let error = ErrorObject::new(
                INVALID_REQUEST,
                "batches are not allowed in protocol version 2026-07-28",
            );
            return reply::error(StatusCode::BAD_REQUEST, None, error);
        }
    };
    reply::error(StatusCode::BAD_REQUEST, id, error)
}

/// A POST's body, read whole within the size limit, its client's share of request bytes and
/// the read timeout; otherwise the response that refuses it (`413`, `503`, `408`).
async fn receive_body(
    state: &HttpState,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<Bytes, Response> {
    let limit = state.options.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(reply::status(StatusCode::PAYLOAD_TOO_LARGE));
    }
    // The body's bytes count against its client's share while the request is served: the
    // declared length at once, anything past it as it arrives.
    let declared = declared.and_then(|length| usize::try_from(length).ok());
    let mut held = state
        .request_bytes
        .take(&state.client, declared.unwrap_or(0))
        .map_err(|refused| busy(&state.client, "request", refused))?;
    let read = read_body(body, limit, &mut held);
    match tokio::time::timeout(state.options.body_read_timeout, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(BodyError::TooLarge)) => Err(reply::status(StatusCode::PAYLOAD_TOO_LARGE)),
        Ok(Err(BodyError::Refused(refused))) => Err(busy(&state.client, "request", refused)),
        Err(_) => {
            tracing::debug!("request body not sent in time");
            Err(reply::status(StatusCode::REQUEST_TIMEOUT))
        }
    }
}

/// A POST body as JSON-RPC, or the response that refuses it: `400` with `-32700`/`-32600`
/// (a batch past [`crate::MAX_BATCH_MESSAGES`] included), or `202` for a would-be
/// notification or response, which JSON-RPC never answers however malformed.
fn decode_body(bytes: &[u8]) -> Result<Incoming, Box<Response>> {
    let incoming = match jsonrpc::decode(bytes) {
        Ok(incoming) => incoming,
        Err(DecodeError::InvalidJson(reason)) => {
            let error = ErrorObject::new(PARSE_ERROR, format!("parse error: {reason}"));
            return Err(Box::new(reply::error(StatusCode::BAD_REQUEST, None, error)));
        }
        Err(error) if !error.is_answered() => {
            tracing::debug!(%error, "undecodable notification or response ignored");
            return Err(Box::new(reply::status(StatusCode::ACCEPTED)));
        }
        Err(error) => {
            return Err(Box::new(reply::error(
                StatusCode::BAD_REQUEST,
                error.id().cloned(),
                error.to_error_object(),
            )));
        }
    };
    if let Incoming::Batch(elements) = &incoming {
        if elements.len() > crate::MAX_BATCH_MESSAGES {
            let error = ErrorObject::new(
                INVALID_REQUEST,
                format!(
                    "a batch may hold at most {} messages",
                    crate::MAX_BATCH_MESSAGES
                ),
            );
            return Err(Box::new(reply::error(StatusCode::BAD_REQUEST, None, error)));
        }
    }
    Ok(incoming)
}

/// A POST routed to the 2026-07-28 era: a request is served statelessly; anything else is
/// accepted unanswered or refused.
async fn modern_post(state: &HttpState, headers: &HeaderMap, incoming: Incoming) -> Response {
    match incoming {
        Incoming::Single(Message::Request(request)) => {
            modern::request(state, headers, request).await
        }
        // No client notification is defined over modern HTTP; accepting one costs nothing.
        Incoming::Single(Message::Notification(_)) => reply::status(StatusCode::ACCEPTED),
        // This server sends no requests, so a response is unsolicited: never answered.
        Incoming::Single(Message::Response(response)) => {
            tracing::debug!(id = ?response.id, "unsolicited response ignored");
            reply::status(StatusCode::ACCEPTED)
        }
        Incoming::Batch(_) => {
            let error = ErrorObject::new(
                INVALID_REQUEST,
                "a 2026-07-28 request body must be one request or notification",
            );
            reply::error(StatusCode::BAD_REQUEST, None, error)
        }
    }
}

/// Why a body was not read whole.
enum BodyError {
    /// Longer than the limit, or unreadable (`413`, as `axum::body::to_bytes` answers).
    TooLarge,
    /// Past its client's share of request bytes (`503`).
    Refused(limits::Refused),
}

/// The whole body, each byte past what `held` holds charged to it as it arrives, or why not
/// (as `axum::body::to_bytes` answers, which this replaces, for a body longer than `limit`
/// bytes or unreadable). A body that comes in one frame (a request body already in hyper's
/// read buffer, nearly every POST) is that frame's bytes, with no copy and no list of frames.
async fn read_body<B>(
    mut body: B,
    limit: usize,
    held: &mut limits::Held,
) -> Result<Bytes, BodyError>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
{
    let mut single = Bytes::new();
    let mut joined: Option<Vec<u8>> = None;
    let mut length = 0_usize;
    while let Some(frame) =
        std::future::poll_fn(|context| std::pin::Pin::new(&mut body).poll_frame(context)).await
    {
        // Trailers carry nothing a JSON-RPC body needs.
        let Ok(data) = frame.map_err(|_| BodyError::TooLarge)?.into_data() else {
            continue;
        };
        length += data.len();
        if length > limit {
            return Err(BodyError::TooLarge);
        }
        held.grow_to(length).map_err(BodyError::Refused)?;
        if let Some(joined) = &mut joined {
            joined.extend_from_slice(&data);
        } else if single.is_empty() {
            single = data;
        } else if !data.is_empty() {
            let mut both = Vec::with_capacity(length);
            both.extend_from_slice(&single);
            both.extend_from_slice(&data);
            joined = Some(both);
        }
    }
    Ok(joined.map_or(single, Bytes::from))
}

/// `503` for a request that would take `client` past a quota (`what` it counts).
fn busy(client: &limits::Client, what: &str, refused: limits::Refused) -> Response {
    tracing::warn!(
        ?client,
        ?refused,
        "{what} refused: too many bytes in flight"
    );
    unavailable()
}

async fn legacy_post(
    state: &HttpState,
    sessions: &Arc<legacy::Sessions>,
    headers: &HeaderMap,
    incoming: Incoming,
) -> Response {
    let expects = match legacy::classify(&incoming) {
        legacy::PostKind::Initialize(id) => {
            return legacy::initialize(state, sessions, incoming, id).await;
        }
        legacy::PostKind::Requests(id) => Some(id),
        legacy::PostKind::NoRequests => None,
    };
    let Some(session_id) = headers.get(&legacy::SESSION_ID) else {
        // Neither a legacy session nor a modern request: tell both kinds of client.
        let error = ErrorObject::new(
            INVALID_PARAMS,
            "no Mcp-Session-Id header: send initialize first, or give params._meta with \
             io.modelcontextprotocol/protocolVersion for a 2026-07-28 request",
        );
        return reply::error(StatusCode::BAD_REQUEST, expects, error);
    };
    match lookup(state, sessions, session_id).await {
        legacy::Lookup::Found(session) => legacy::post(sessions, &session, incoming, expects).await,
        legacy::Lookup::Missing => session_not_found(expects),
        legacy::Lookup::Unavailable => unavailable(),
    }
}

async fn get(state: &HttpState, sessions: &Arc<legacy::Sessions>, headers: &HeaderMap) -> Response {
    let Some(session_id) = headers.get(&legacy::SESSION_ID) else {
        return method_not_allowed();
    };
    let session = match lookup(state, sessions, session_id).await {
        legacy::Lookup::Found(session) => session,
        legacy::Lookup::Missing => return session_not_found(None),
        legacy::Lookup::Unavailable => return unavailable(),
    };
    let wants_events = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.contains(sse::CONTENT_TYPE) || value.contains("*/*"));
    if !wants_events {
        return method_not_allowed();
    }
    legacy::open_stream(state, session)
}

async fn delete(
    state: &HttpState,
    sessions: &Arc<legacy::Sessions>,
    headers: &HeaderMap,
) -> Response {
    let Some(session_id) = headers.get(&legacy::SESSION_ID) else {
        return method_not_allowed();
    };
    let Ok(id) = session_id.to_str() else {
        return session_not_found(None);
    };
    let here = sessions.get(id, state.options.session_idle_timeout, |session| {
        session.belongs_to(&state.principal)
    });
    let deleted = match here {
        Some(session) => legacy::delete(sessions, &session).await.map(|()| true),
        None => legacy::delete_stored(state, id).await,
    };
    match deleted {
        Ok(true) => {
            tracing::debug!("legacy session deleted");
            reply::status(StatusCode::NO_CONTENT)
        }
        Ok(false) => session_not_found(None),
        Err(()) => unavailable(),
    }
}

/// The live session `session_id` names, if the request's principal is the one that opened it
/// (with authorization, another user's session is not found), here or taken up from the
/// session store; the session's next queries then run with this request's principal (its
/// token's scopes).
async fn lookup(
    state: &HttpState,
    sessions: &Arc<legacy::Sessions>,
    session_id: &HeaderValue,
) -> legacy::Lookup {
    let Ok(id) = session_id.to_str() else {
        return legacy::Lookup::Missing;
    };
    let here = sessions.get(id, state.options.session_idle_timeout, |session| {
        session.belongs_to(&state.principal)
    });
    let session = match here {
        Some(session) => session,
        None => match legacy::adopt(state, sessions, id).await {
            legacy::Lookup::Found(session) => session,
            other => return other,
        },
    };
    if state.options.authorization.is_some() {
        session.renew(&state.principal);
    }
    legacy::Lookup::Found(session)
}

/// `503` with `Retry-After`: too many bytes in flight, the session store cannot be reached,
/// or no room is left here.
fn unavailable() -> Response {
    let mut busy = reply::status(StatusCode::SERVICE_UNAVAILABLE);
    busy.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    busy
}

/// `404`: the session is unknown, expired or deleted; the client must initialize again.
fn session_not_found(id: Option<RequestId>) -> Response {
    let error = ErrorObject::new(
        INVALID_REQUEST,
        "session not found: it expired or was deleted; send initialize again",
    );
    reply::error(StatusCode::NOT_FOUND, id, error)
}

fn forbidden(reason: &str) -> Response {
    reply::error(
        StatusCode::FORBIDDEN,
        None,
        ErrorObject::new(INVALID_REQUEST, format!("forbidden: {reason}")),
    )
}

/// A request malformed at the HTTP level (RFC 9112 §3.2: no host, or more than one).
fn bad_request(reason: &str) -> Response {
    reply::error(
        StatusCode::BAD_REQUEST,
        None,
        ErrorObject::new(INVALID_REQUEST, format!("bad request: {reason}")),
    )
}

fn method_not_allowed() -> Response {
    let mut response = reply::status(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    response
}

#[cfg(test)]
mod tests {
    use axum::body::Bytes;
    use http_body_util::StreamBody;
    use hyper::body::Frame;

    use super::{BodyError, limits, read_body};

    /// A body of frames from a list.
    type ListBody =
        StreamBody<futures_util::stream::Iter<std::vec::IntoIter<Result<Frame<Bytes>, String>>>>;

    /// A body made of these frames (data, or trailers for `None`).
    fn body(frames: &[Option<&'static str>]) -> ListBody {
        let frames: Vec<Result<Frame<Bytes>, String>> = frames
            .iter()
            .map(|frame| {
                Ok(match frame {
                    Some(text) => Frame::data(Bytes::from_static(text.as_bytes())),
                    None => Frame::trailers(axum::http::HeaderMap::new()),
                })
            })
            .collect();
        StreamBody::new(futures_util::stream::iter(frames))
    }

    /// Reads `body` within `limit`, charged to a client with room for a kilobyte.
    fn read<B>(body: B, limit: usize) -> Option<Bytes>
    where
        B: hyper::body::Body<Data = Bytes> + Unpin,
    {
        let quota = limits::Quota::new("request bytes", 1024, 1024);
        let mut held = quota.take(&limits::Client::Unknown, 0).unwrap();
        pollster::block_on(read_body(body, limit, &mut held)).ok()
    }

    #[test]
    fn a_body_in_one_frame_is_that_frame() {
        let read = read(body(&[Some("{\"a\":1}")]), 7).expect("within the limit");
        assert_eq!(read, "{\"a\":1}");
        // The frame's own bytes, not a copy.
        assert_eq!(read.as_ptr(), "{\"a\":1}".as_ptr());
    }

    #[test]
    fn frames_are_joined_in_order_and_trailers_skipped() {
        let frames = [Some("ab"), Some(""), Some("cd"), None, Some("e")];
        assert_eq!(read(body(&frames), 5).as_deref(), Some(&b"abcde"[..]));
        assert_eq!(read(body(&[]), 0), Some(Bytes::new()));
    }

    #[test]
    fn a_body_over_the_limit_or_failing_is_refused() {
        assert_eq!(read(body(&[Some("abc"), Some("def")]), 5), None);
        assert_eq!(read(body(&[Some("abcdef")]), 5), None);
        let failing = StreamBody::new(futures_util::stream::iter(vec![
            Ok(Frame::data(Bytes::from_static(b"ab"))),
            Err("reset".to_owned()),
        ]));
        assert_eq!(read(failing, 100), None);
    }

    #[test]
    fn a_body_is_charged_to_its_client_as_it_arrives() {
        let quota = limits::Quota::new("request bytes", 100, 5);
        let client = limits::Client::Unknown;
        let mut held = quota.take(&client, 0).unwrap();
        let frames = [Some("abc"), Some("def")];
        let refused = pollster::block_on(read_body(body(&frames), 100, &mut held));
        assert!(matches!(
            refused,
            Err(BodyError::Refused(limits::Refused::Client))
        ));
        assert_eq!(
            quota.held_by(&client),
            3,
            "what arrived within the share is held"
        );
        drop(held);
        assert_eq!(quota.held_by(&client), 0);
        let mut held = quota.take(&client, 0).unwrap();
        let read = pollster::block_on(read_body(body(&[Some("abcde")]), 100, &mut held));
        assert!(read.is_ok());
        assert_eq!(quota.held_by(&client), 5);
    }
}
