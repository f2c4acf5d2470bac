//! How the Streamable HTTP endpoint is set up: [`HttpOptions`], public as
//! `mcp_resources_server::HttpOptions`.
//!
//! **Layer:** server, HTTP transport; plain configuration, read by the router, the limits and
//! both eras' paths. Every value is valid, so there is nothing to check here. This module never
//! knows a request, a session, a stream or the server it configures.

use std::time::Duration;

use super::auth;

/// How the Streamable HTTP endpoint is set up. Every value is valid, so the fields are public;
/// [`HttpOptions::default`] is right for a local server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpOptions {
    /// The path of the MCP endpoint (default `/mcp`).
    pub path: String,
    /// Origins allowed besides loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*` are always allowed), written `scheme://host[:port]` and compared
    /// case-insensitively; `"*"` allows every origin. A request without `Origin` (not from a
    /// browser) is always allowed.
    pub allowed_origins: Vec<String>,
    /// `Host` values allowed besides loopback names and addresses (`localhost`, `127.0.0.1`,
    /// `::1`, with any port): `name` allows any port, `name:port` only that one; `"*"` allows
    /// every host. Set this when serving on a non-loopback address.
    pub allowed_hosts: Vec<String>,
    /// The largest POST body accepted, in bytes (default 4 MiB); larger bodies get `413`.
    pub max_body_bytes: usize,
    /// How often a live SSE stream sends a `:` keep-alive comment (default 15 s).
    pub keep_alive: Duration,
    /// How many legacy sessions may be open at once (default 10,000). At the limit, expired
    /// sessions are ended; past it, `initialize` gets `503`. No client's live session is ever
    /// ended to make room for another client's.
    pub max_sessions: usize,
    /// How many legacy sessions one client (its token's subject, or its peer address when
    /// anonymous) may have open at once (default 1,000). At its limit, the client's own least
    /// recently used sessions without an open GET stream are ended (their clients get `404` and
    /// open a new session, as the specification has them do), so a client that never ends its
    /// sessions cannot lock itself out; `503` when all of them have an open GET stream.
    pub max_sessions_per_client: usize,
    /// How long a legacy session may go without a request (and without an open GET stream)
    /// before it expires and its id gets `404` (default one hour).
    pub session_idle_timeout: Duration,
    /// How many modern `subscriptions/listen` streams may be open at once (default 10,000);
    /// beyond it a listen request gets `503`, until a stream closes.
    pub max_listen_streams: usize,
    /// How many listen streams one client may have open at once (default 1,000).
    pub max_listen_streams_per_client: usize,
    /// How many requests one HTTP/2 connection may have open at once, live streams included
    /// (default 200; [`Server::serve_http`](crate::Server::serve_http) only, which speaks HTTP/2 to clients that open
    /// with its preface). A client past it waits for a stream to end.
    pub max_streams_per_connection: u32,
    /// How many connections may be open at once (default 1,024; [`Server::serve_http`](crate::Server::serve_http) only).
    /// Lowered at start to leave room below the process's open-files limit. Past it, or past
    /// [`HttpOptions::max_connections_per_peer`], a new connection is closed at once.
    pub max_connections: usize,
    /// How many connections one peer address may have open at once (default 256;
    /// [`Server::serve_http`](crate::Server::serve_http) only).
    pub max_connections_per_peer: usize,
    /// How long a client may take to send a request's headers: a new connection's first
    /// request, on either protocol, and each next request of an HTTP/1.1 connection (default
    /// 10 s; [`Server::serve_http`](crate::Server::serve_http) only).
    pub header_read_timeout: Duration,
    /// How long a connection may stay open with no request in progress (default 60 s;
    /// [`Server::serve_http`](crate::Server::serve_http) only). Live streams are requests in progress.
    pub idle_timeout: Duration,
    /// How long a connection may go on finishing its requests once the server shuts down
    /// (default 10 s; [`Server::serve_http`](crate::Server::serve_http) only): past it the
    /// connection is dropped, so that a client that stops reading a response cannot hold the
    /// shutdown.
    pub shutdown_grace: Duration,
    /// How long a client may take to send a POST body once its headers are in (default
    /// 30 s); past it the answer is `408`.
    pub body_read_timeout: Duration,
    /// How often an HTTP/2 connection is pinged, and how long the client has to answer before
    /// the connection is closed (default 20 s; [`Server::serve_http`](crate::Server::serve_http) only).
    pub http2_keep_alive: Duration,
    /// The largest request header block, in bytes (default 64 KiB; [`Server::serve_http`](crate::Server::serve_http)
    /// only); a larger one gets `431` (HTTP/1.1) or a stream error (HTTP/2).
    pub max_header_bytes: usize,
    /// How many bytes of responses may be held at once, sent or waiting for the client to
    /// take them (default 512 MiB). A response that would go past it, or past
    /// [`HttpOptions::max_response_bytes_per_client`], is answered `503` instead.
    pub max_response_bytes: usize,
    /// How many bytes of responses one client (its token's subject, or its peer address when
    /// anonymous) may hold at once (default 64 MiB).
    pub max_response_bytes_per_client: usize,
    /// How many bytes of request bodies may be held at once, being received or served
    /// (default 256 MiB). A body that would go past it, or past
    /// [`HttpOptions::max_request_bytes_per_client`], is answered `503` (its declared length is
    /// counted at once, the rest as it arrives).
    pub max_request_bytes: usize,
    /// How many bytes of request bodies one client may hold at once (default 32 MiB).
    pub max_request_bytes_per_client: usize,
    /// Bearer-token authorization of every request ([`auth`]; default `None`: none, for a
    /// local server). With it, the metadata document is served at its well-known paths.
    pub authorization: Option<auth::Authorization>,
    /// Whether the router also answers `GET /healthz` (liveness: `200` while the process
    /// serves) and `GET /readyz` (`200` while [`Server::is_ready`](crate::Server::is_ready),
    /// `503` once shutting down or while the change feed is away), for a load balancer's
    /// checks (default off, so that an app merging the router keeps those paths for its own).
    /// Neither needs a token nor checks `Origin` and `Host`; neither tells anything but the
    /// state. A path equal to the endpoint's is the endpoint's.
    pub health: bool,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            path: "/mcp".to_owned(),
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
            max_sessions: 10_000,
            max_sessions_per_client: 1_000,
            session_idle_timeout: Duration::from_secs(3600),
            max_listen_streams: 10_000,
            max_listen_streams_per_client: 1_000,
            max_streams_per_connection: 200,
            max_connections: 1024,
            max_connections_per_peer: 256,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            http2_keep_alive: Duration::from_secs(20),
            max_header_bytes: 64 * 1024,
            max_response_bytes: 512 * 1024 * 1024,
            max_response_bytes_per_client: 64 * 1024 * 1024,
            max_request_bytes: 256 * 1024 * 1024,
            max_request_bytes_per_client: 32 * 1024 * 1024,
            authorization: None,
            health: false,
        }
    }
}
