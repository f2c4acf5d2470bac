//! End-to-end tests of the Streamable HTTP transport over real HTTP on 127.0.0.1: both eras
//! against one running server, the DNS-rebinding guard, and the live SSE streams of each era.
//! Every wait is bounded; nothing is timed.

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::{HttpOptions, Server};
use serde_json::{Value, json};

/// How long any single wait may take before the test fails.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

pub(crate) const MODERN: &str = "2026-07-28";

/// Reads of `test://gate/{n}` wait at gate `n` until a test lets one through (one gate per
/// test, as tests run at once).
static GATES: [tokio::sync::Notify; 4] = [
    tokio::sync::Notify::const_new(),
    tokio::sync::Notify::const_new(),
    tokio::sync::Notify::const_new(),
    tokio::sync::Notify::const_new(),
];

/// The conformance-style fixture: `test://static-text`, `test://watched-resource`, the gates
/// `test://gate/{n}` and the template `test://template/{id}/data`.
pub(crate) fn fixture() -> mcp_resources_server::ServerBuilder {
    let text = ResourceUri::parse("test://static-text").unwrap();
    let watched = ResourceUri::parse("test://watched-resource").unwrap();
    Server::builder()
        .server_info("http-test", "1.0.0")
        .static_resource(
            Resource::new(text.clone(), "static-text").with_mime_type("text/plain"),
            vec![Contents::text(text, "hello over http")],
        )
        .static_resource(
            Resource::new(watched.clone(), "watched").with_mime_type("text/plain"),
            vec![Contents::text(watched, "watch me")],
        )
        .template_fn(
            ResourceTemplate::new(UriTemplate::parse("test://gate/{n}").unwrap(), "gate"),
            |uri, variables| {
                let contents = Contents::text(uri.clone(), "through the gate");
                let gate = variables.get_str("n").and_then(|n| n.parse::<usize>().ok());
                async move {
                    if let Some(gate) = gate.and_then(|gate| GATES.get(gate)) {
                        gate.notified().await;
                    }
                    Ok(vec![contents])
                }
            },
        )
        .template_fn(
            ResourceTemplate::new(
                UriTemplate::parse("test://template/{id}/data").unwrap(),
                "data",
            ),
            |uri, variables| {
                let id = variables.get_str("id").unwrap_or_default().to_owned();
                let contents = Contents::text(uri.clone(), format!(r#"{{"id":"{id}"}}"#));
                async move { Ok(vec![contents]) }
            },
        )
}

/// A server served on an ephemeral loopback port, shut down when dropped.
pub(crate) struct TestServer {
    pub(crate) server: Server,
    addr: SocketAddr,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    /// The fixture, served with `options`.
    async fn start(options: HttpOptions) -> TestServer {
        TestServer::start_with(options, None).await
    }

    /// [`TestServer::start`] with an access policy.
    async fn start_with(
        options: HttpOptions,
        policy: Option<std::sync::Arc<dyn mcp_resources_core::policy::Policy>>,
    ) -> TestServer {
        let mut builder = fixture();
        if let Some(policy) = policy {
            builder = builder.policy(policy);
        }
        TestServer::serve(builder.build().unwrap(), options).await
    }

    /// Serves `server` with `options`.
    pub(crate) async fn serve(server: Server, options: HttpOptions) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(server.clone().serve_http_on(listener, options));
        TestServer { server, addr, task }
    }

    fn host(&self) -> String {
        self.addr.to_string()
    }

    /// One HTTP request on a fresh connection. `Host` is the server's address unless `headers`
    /// names one.
    pub(crate) async fn send(
        &self,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> hyper::Response<Incoming> {
        self.send_at("/mcp", method, headers, body).await
    }

    /// [`TestServer::send`] to another path.
    pub(crate) async fn send_at(
        &self,
        path: &str,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> hyper::Response<Incoming> {
        let stream = bounded(tokio::net::TcpStream::connect(self.addr))
            .await
            .unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        let mut request = hyper::Request::builder().method(method).uri(path);
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request = request.header("host", self.host());
        }
        if body.is_some() {
            request = request
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream");
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = http_body_util::Full::new(hyper::body::Bytes::from(
            body.unwrap_or_default().to_owned(),
        ));
        bounded(sender.send_request(request.body(body).unwrap()))
            .await
            .unwrap()
    }

    /// POST a JSON body; returns the status, the session id header and the JSON answer (the
    /// last message of an SSE body).
    pub(crate) async fn post(&self, headers: &[(&str, &str)], body: &Value) -> Answer {
        let response = self.send("POST", headers, Some(&body.to_string())).await;
        Answer::read(response).await
    }

    /// A modern request with every header the 2026-07-28 HTTP transport requires.
    pub(crate) async fn modern(&self, method: &str, params: Value) -> Answer {
        let mut params = params;
        params["_meta"] = modern_meta();
        let uri = params["uri"].as_str().map(str::to_owned);
        let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
        if let Some(uri) = uri.as_deref() {
            headers.push(("mcp-name", uri));
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.post(&headers, &body).await
    }

    /// `initialize` then `notifications/initialized`; returns the session id.
    /// Changes `test://watched-resource` `count` times, each update read from `stream`.
    async fn updates_reach(&self, stream: &mut EventReader, count: usize) {
        for _ in 0..count {
            self.server.resource_updated("test://watched-resource");
            let update = stream.next().await.expect("an update");
            assert_eq!(update["method"], "notifications/resources/updated");
            assert_eq!(update["params"]["uri"], "test://watched-resource");
        }
    }

    pub(crate) async fn legacy_session(&self, version: &str) -> String {
        let answer = self.post(&[], &initialize_request(version)).await;
        assert_eq!(answer.status, 200, "{:?}", answer.json);
        assert_eq!(answer.json["result"]["protocolVersion"], version);
        let session = answer.session.expect("initialize sends Mcp-Session-Id");
        let initialized = self
            .post(
                &[
                    ("mcp-session-id", &session),
                    ("mcp-protocol-version", version),
                ],
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(initialized.status, 202);
        session
    }

    /// A legacy session of `version` subscribed to `test://watched-resource`; its id.
    pub(crate) async fn watching_legacy_session(&self, version: &str) -> String {
        let session = self.legacy_session(version).await;
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", version),
        ];
        let subscribed = self
            .post(&headers, &subscribe_request("test://watched-resource"))
            .await;
        assert_eq!(subscribed.json["result"], json!({}));
        session
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.server.shutdown();
        self.task.abort();
    }
}

/// The `initialize` request (id 0) of a legacy session at `version`.
pub(crate) fn initialize_request(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}
    }})
}

/// `resources/subscribe` (id 1) to `uri`.
pub(crate) fn subscribe_request(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": uri}})
}

/// The headers of a modern `subscriptions/listen` POST.
const LISTEN_HEADERS: [(&str, &str); 2] = [
    ("mcp-protocol-version", MODERN),
    ("mcp-method", "subscriptions/listen"),
];

/// `subscriptions/listen` (id `id`) to `test://watched-resource`.
fn watched_listen_request(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
    "params": {"_meta": modern_meta(), "notifications": {
        "resourceSubscriptions": ["test://watched-resource"]
    }}})
}

/// Bearer-token authorization by [`ISSUER`] for [`RESOURCE`], with the HMAC key [`SECRET`].
pub(crate) fn authorization() -> mcp_resources_server::auth::Authorization {
    use mcp_resources_server::auth::{Authorization, JwtVerifier};
    let verifier = JwtVerifier::new(RESOURCE, vec![ISSUER.to_owned()])
        .with_hmac_secret(SECRET)
        .unwrap();
    Authorization::new(
        RESOURCE,
        vec![ISSUER.to_owned()],
        std::sync::Arc::new(verifier),
    )
    .unwrap()
}

pub(crate) fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}
    })
}

/// A finished POST.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) session: Option<String>,
    content_type: Option<String>,
    /// The body, or an SSE body's last message.
    pub(crate) json: Value,
    /// An SSE body's messages before its last.
    before: Vec<Value>,
}

impl Answer {
    async fn read(response: hyper::Response<Incoming>) -> Answer {
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|value| value.to_str().unwrap().to_owned())
        };
        let session = header("mcp-session-id");
        let content_type = header("content-type");
        let bytes = bounded(response.into_body().collect())
            .await
            .unwrap()
            .to_bytes();
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let mut before = Vec::new();
        let json = if content_type.as_deref() == Some("text/event-stream") {
            before = events(&text);
            before.pop().unwrap_or(Value::Null)
        } else if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap()
        };
        Answer {
            status,
            session,
            content_type,
            json,
            before,
        }
    }
}

/// The JSON messages of a complete SSE text.
fn events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty() && !data.concat().is_empty())
                .then(|| serde_json::from_str(&data.concat()).unwrap())
        })
        .collect()
}

/// Reads a live SSE body one message at a time.
pub(crate) struct EventReader {
    body: Incoming,
    buffer: String,
}

impl EventReader {
    pub(crate) fn new(response: hyper::Response<Incoming>) -> EventReader {
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        EventReader {
            body: response.into_body(),
            buffer: String::new(),
        }
    }

    /// The next JSON message, skipping comments; `None` when the stream ended.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if let Some(message) = events(&event).pop() {
                    return Some(message);
                }
                continue;
            }
            let frame = bounded(self.body.frame()).await?.unwrap();
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    }
}

/// Sends a request until it is answered `200` (each refusal must be `503`), at most `attempts`
/// times, 20 ms apart.
async fn until_admitted<F>(
    attempts: usize,
    mut send: impl FnMut() -> F,
) -> Option<hyper::Response<Incoming>>
where
    F: Future<Output = hyper::Response<Incoming>>,
{
    for _ in 0..attempts {
        let response = send().await;
        if response.status() == 200 {
            return Some(response);
        }
        assert_eq!(response.status(), 503);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

/// The default options with no keep-alive within a test's time: a stream's first event is the
/// one the test waits for.
pub(crate) fn quiet() -> HttpOptions {
    HttpOptions {
        keep_alive: Duration::from_secs(3600),
        ..HttpOptions::default()
    }
}

async fn bounded<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(WAIT, future)
        .await
        .expect("the server answers in time")
}

#[tokio::test]
async fn legacy_session_from_initialize_to_delete() {
    let server = TestServer::start(HttpOptions::default()).await;
    let session = server.legacy_session("2025-11-25").await;
    assert_eq!(session.len(), 64);
    assert!(session.bytes().all(|byte| (0x21..=0x7e).contains(&byte)));
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];

    let list = server
        .post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}),
        )
        .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.content_type.as_deref(), Some("application/json"));
    assert_eq!(list.json["id"], 1);
    let uris: Vec<&str> = list.json["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"test://static-text"), "{uris:?}");

    let read = server
        .post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                    "params": {"uri": "test://template/123/data"}}),
        )
        .await;
    assert_eq!(
        read.json["result"]["contents"][0]["text"],
        r#"{"id":"123"}"#
    );

    // Progress before the response: the POST is answered with an SSE body, response last.
    let response = server
        .send(
            "POST",
            &headers,
            Some(
                &json!({"jsonrpc": "2.0", "id": 9, "method": "resources/read",
                        "params": {"uri": "test://static-text", "_meta": {"progressToken": "p"}}})
                .to_string(),
            ),
        )
        .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = bounded(response.into_body().collect())
        .await
        .unwrap()
        .to_bytes();
    let messages = events(std::str::from_utf8(&text).unwrap());
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[0]["params"]["progressToken"], "p");
    assert_eq!(messages[1]["id"], 9);

    // Unknown methods are JSON-RPC errors in a 200 on the legacy path, never a 404.
    let unknown = server
        .post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        )
        .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.json["error"]["code"], -32601);

    // A request without any session: 400.
    let orphan = server
        .post(
            &[],
            &json!({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}),
        )
        .await;
    assert_eq!(orphan.status, 400);

    let deleted = server
        .send("DELETE", &[("mcp-session-id", &session)], None)
        .await;
    assert_eq!(deleted.status(), 204);
    let after = server
        .post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
        )
        .await;
    assert_eq!(after.status, 404);
    let again = server
        .send("DELETE", &[("mcp-session-id", &session)], None)
        .await;
    assert_eq!(again.status(), 404);
}

#[tokio::test]
async fn legacy_session_without_version_header_is_2025_03_26_and_takes_batches() {
    let server = TestServer::start(HttpOptions::default()).await;
    let session = server.legacy_session("2025-03-26").await;
    let answer = server
        .post(
            &[("mcp-session-id", &session)],
            &json!([
                {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                {"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                 "params": {"uri": "test://static-text"}}
            ]),
        )
        .await;
    assert_eq!(answer.status, 200);
    let responses = answer.json.as_array().expect("one array of responses");
    assert_eq!(responses.len(), 2);
    assert_eq!(responses[0]["id"], 1);
    assert_eq!(
        responses[1]["result"]["contents"][0]["text"],
        "hello over http"
    );
}

use crate::lines::NEVER_ANSWERED;

/// A body of notifications and responses only gets `202` and no body, in either era, however
/// malformed; in a legacy batch such elements get no response either.
#[tokio::test]
async fn responses_and_notifications_get_202_and_no_body() {
    let server = TestServer::start(HttpOptions::default()).await;
    let session = server.legacy_session("2025-03-26").await;
    let legacy = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-03-26"),
    ];
    let modern = [("mcp-protocol-version", MODERN)];
    for headers in [&legacy[..], &modern[..]] {
        for body in NEVER_ANSWERED {
            let answer = Answer::read(server.send("POST", headers, Some(body)).await).await;
            assert_eq!(
                (answer.status, &answer.json),
                (202, &Value::Null),
                "{headers:?} {body}"
            );
        }
    }
    let batch = format!("[{}]", NEVER_ANSWERED.join(","));
    let answer = Answer::read(server.send("POST", &legacy, Some(&batch)).await).await;
    assert_eq!(
        (answer.status, &answer.json),
        (202, &Value::Null),
        "{batch}"
    );
    let batch = format!(
        r#"[{},{},{{"jsonrpc":"2.0","id":9,"method":"ping"}}]"#,
        NEVER_ANSWERED[2], NEVER_ANSWERED[5]
    );
    let answer = Answer::read(server.send("POST", &legacy, Some(&batch)).await).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json,
        json!([{"jsonrpc": "2.0", "id": 9, "result": {}}])
    );
}

#[tokio::test]
async fn modern_requests_are_stateless() {
    let server = TestServer::start(HttpOptions::default()).await;
    let discover = server.modern("server/discover", json!({})).await;
    assert_eq!(discover.status, 200, "{:?}", discover.json);
    assert_eq!(discover.session, None);
    let versions = discover.json["result"]["supportedVersions"]
        .as_array()
        .unwrap();
    assert!(versions.contains(&json!(MODERN)));

    let list = server.modern("resources/list", json!({})).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.json["result"]["resultType"], "complete");
    assert!(list.json["result"]["ttlMs"].is_u64());

    let read = server
        .modern("resources/read", json!({"uri": "test://static-text"}))
        .await;
    assert_eq!(read.status, 200, "{:?}", read.json);
    assert_eq!(
        read.json["result"]["contents"][0]["text"],
        "hello over http"
    );

    let missing = server
        .modern(
            "resources/read",
            json!({"uri": "test://nonexistent-resource-for-conformance-testing"}),
        )
        .await;
    assert_eq!(missing.json["error"]["code"], -32602);
    assert_eq!(
        missing.json["error"]["data"]["uri"],
        "test://nonexistent-resource-for-conformance-testing"
    );

    // GET and DELETE without a legacy session: 405.
    assert_eq!(
        server
            .send("GET", &[("accept", "text/event-stream")], None)
            .await
            .status(),
        405
    );
    assert_eq!(server.send("DELETE", &[], None).await.status(), 405);
}

/// One modern POST with these headers and body; the expected HTTP status and JSON-RPC code.
async fn check(server: &TestServer, headers: &[(&str, &str)], body: Value, expect: (u16, i64)) {
    let answer = server.post(headers, &body).await;
    assert_eq!(
        (
            answer.status,
            answer.json["error"]["code"].as_i64().unwrap_or(0)
        ),
        expect,
        "headers {headers:?}, body {body}: {:?}",
        answer.json
    );
}

/// A read in its usual shape with a modern header is read in one pass; the same body with a
/// leading space is decoded first. Both must be routed, checked and answered alike, including
/// when the headers or the `_meta` version say otherwise.
#[tokio::test]
async fn reads_read_in_one_pass_are_answered_as_decoded_ones() {
    let server = TestServer::start(HttpOptions::default()).await;
    let read = |version: &str, uri: &str| {
        let mut meta = modern_meta();
        meta["io.modelcontextprotocol/protocolVersion"] = json!(version);
        json!({"jsonrpc": "2.0", "id": 9, "method": "resources/read",
            "params": {"uri": uri, "_meta": meta}})
        .to_string()
    };
    let with_progress = |uri: &str| {
        let mut meta = modern_meta();
        meta["progressToken"] = json!(4);
        json!({"jsonrpc": "2.0", "id": 9, "method": "resources/read",
            "params": {"uri": uri, "_meta": meta}})
        .to_string()
    };
    let read_headers = |uri| {
        [
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "resources/read"),
            ("mcp-name", uri),
        ]
    };
    let (static_text, missing) = (
        read_headers("test://static-text"),
        read_headers("test://missing"),
    );
    type Headers<'a> = &'a [(&'a str, &'a str)];
    let cases: [(Headers<'_>, String, u16); 8] = [
        (
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "resources/read"),
                ("mcp-name", "test://static-text"),
            ],
            read(MODERN, "test://static-text"),
            200,
        ),
        // The header and `_meta` disagree: -32020, whatever the route.
        (
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "resources/read"),
                ("mcp-name", "test://static-text"),
            ],
            read("2025-11-25", "test://static-text"),
            400,
        ),
        (
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "resources/read"),
                ("mcp-name", "test://other"),
            ],
            read(MODERN, "test://static-text"),
            400,
        ),
        (
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "resources/read"),
            ],
            read(MODERN, "test://static-text"),
            400,
        ),
        // Not found, on the one-pass route: the modern error, status 200.
        (
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "resources/read"),
                ("mcp-name", "test://missing"),
            ],
            read(MODERN, "test://missing"),
            200,
        ),
        // A legacy header: no one-pass reading, and no session either.
        (
            &[("mcp-protocol-version", "2025-11-25")],
            read("2025-11-25", "test://static-text"),
            400,
        ),
        // Progress asked: the progress notification, then the result or the error, as SSE.
        (&static_text, with_progress("test://static-text"), 200),
        (&missing, with_progress("test://missing"), 200),
    ];
    for (headers, body, status) in cases {
        let quick = Answer::read(server.send("POST", headers, Some(&body)).await).await;
        let spaced = format!(" {body}");
        let decoded = Answer::read(server.send("POST", headers, Some(&spaced)).await).await;
        assert_eq!(quick.status, status, "{headers:?} {body}: {:?}", quick.json);
        assert_eq!(
            (
                quick.status,
                &quick.json,
                &quick.content_type,
                &quick.before
            ),
            (
                decoded.status,
                &decoded.json,
                &decoded.content_type,
                &decoded.before
            ),
            "{headers:?} {body}"
        );
        if body.contains("progressToken") {
            assert_eq!(quick.before.len(), 1, "{body}");
            assert_eq!(quick.before[0]["method"], "notifications/progress");
            assert_eq!(quick.before[0]["params"]["progressToken"], 4);
            assert_eq!(quick.content_type.as_deref(), Some("text/event-stream"));
        }
    }
}

#[tokio::test]
async fn modern_validation_errors() {
    let server = TestServer::start(HttpOptions::default()).await;
    let list = |meta: Value| json!({"jsonrpc": "2.0", "id": 7, "method": "resources/list", "params": {"_meta": meta}});
    let full = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/list"),
    ];

    // Header and body versions differ: -32020.
    check(
        &server,
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "resources/list"),
        ],
        list(modern_meta()),
        (400, -32020),
    )
    .await;
    // Mcp-Method missing: -32020.
    check(
        &server,
        &[("mcp-protocol-version", MODERN)],
        list(modern_meta()),
        (400, -32020),
    )
    .await;
    // A version nobody knows in the header: -32022.
    check(
        &server,
        &[
            ("mcp-protocol-version", "2099-01-01"),
            ("mcp-method", "resources/list"),
        ],
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/list"}),
        (400, -32022),
    )
    .await;
    // An unsupported version in both: -32022.
    let mut future_meta = modern_meta();
    future_meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    check(
        &server,
        &[
            ("mcp-protocol-version", "2099-01-01"),
            ("mcp-method", "resources/list"),
        ],
        list(future_meta),
        (400, -32022),
    )
    .await;
    // No _meta at all, modern header: -32602.
    check(
        &server,
        &full,
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/list", "params": {}}),
        (400, -32602),
    )
    .await;
    // No client capabilities: -32602.
    check(
        &server,
        &full,
        list(json!({"io.modelcontextprotocol/protocolVersion": MODERN})),
        (400, -32602),
    )
    .await;
    // Legacy-only and unknown methods: 404 with -32601.
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "unknown/method",
        "tools/list",
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method,
                          "params": {"_meta": modern_meta(), "uri": "test://static-text"}});
        check(
            &server,
            &[("mcp-protocol-version", MODERN), ("mcp-method", method)],
            body,
            (404, -32601),
        )
        .await;
    }
    // Malformed JSON: 400 with -32700.
    let response = server
        .send("POST", &full, Some("{\"jsonrpc\": \"2.0\", \"id\": "))
        .await;
    let answer = Answer::read(response).await;
    assert_eq!(
        (answer.status, answer.json["error"]["code"].clone()),
        (400, json!(-32700))
    );
}

#[tokio::test]
async fn dns_rebinding_and_origin_are_refused() {
    let server = TestServer::start(HttpOptions {
        max_body_bytes: 1024,
        ..HttpOptions::default()
    })
    .await;
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": modern_meta()}});
    let headers = |extra: (&'static str, &'static str)| {
        vec![
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "server/discover"),
            extra,
        ]
    };
    let evil_host = server
        .post(&headers(("host", "evil.example.com")), &discover)
        .await;
    assert_eq!(evil_host.status, 403);
    let evil_origin = server
        .post(&headers(("origin", "http://evil.example.com")), &discover)
        .await;
    assert_eq!(evil_origin.status, 403);
    let local_origin = server
        .post(&headers(("origin", "http://localhost:5173")), &discover)
        .await;
    assert_eq!(local_origin.status, 200);
    let port = server.addr.port().to_string();
    let localhost = format!("localhost:{port}");
    let local_host = server
        .post(
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "server/discover"),
                ("host", &localhost),
            ],
            &discover,
        )
        .await;
    assert_eq!(local_host.status, 200);

    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"x","params":{{"pad":"{}"}}}}"#,
        "a".repeat(2048)
    );
    let too_big = server.send("POST", &[], Some(&big)).await;
    assert_eq!(too_big.status(), 413);
}

/// The status code of the answer to `request`, written as it is on a fresh connection (for
/// requests a client library would not send).
async fn raw_status(server: &TestServer, request: &str) -> u16 {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = bounded(tokio::net::TcpStream::connect(server.addr))
        .await
        .unwrap();
    bounded(stream.write_all(request.as_bytes())).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0; 1024];
    while !answer.windows(2).any(|pair| pair == b"\r\n") {
        let read = bounded(stream.read(&mut buffer)).await.unwrap();
        assert!(read > 0, "the connection closed before a status line");
        answer.extend_from_slice(&buffer[..read]);
    }
    let status_line = String::from_utf8_lossy(&answer);
    status_line
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status in {status_line:?}"))
}

/// A request names one host and at most one origin: the guard reads the whole header, never
/// just its first line, and a request that names no host at all is malformed.
#[tokio::test]
async fn repeated_or_missing_host_and_origin_are_refused() {
    let server = TestServer::start(HttpOptions::default()).await;
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": modern_meta()}});
    let host = server.host();
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut headers = vec![
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "server/discover"),
        ];
        headers.extend_from_slice(extra);
        headers
    };
    let host_twice = [("host", "localhost"), ("host", "localhost")];
    assert_eq!(server.post(&with(&host_twice), &discover).await.status, 400);
    let evil_second = [("host", "localhost"), ("host", "evil.example.com")];
    assert_eq!(
        server.post(&with(&evil_second), &discover).await.status,
        400
    );
    let origin_twice = [
        ("origin", "http://localhost:5173"),
        ("origin", "http://localhost:5173"),
    ];
    assert_eq!(
        server.post(&with(&origin_twice), &discover).await.status,
        403
    );
    let evil_origin_second = [
        ("origin", "http://localhost:5173"),
        ("origin", "http://evil.example.com"),
    ];
    let refused = server.post(&with(&evil_origin_second), &discover).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.json["error"]["code"], -32600, "{:?}", refused.json);
    // One of each is served.
    let once = [("host", "localhost"), ("origin", "http://localhost:5173")];
    assert_eq!(server.post(&with(&once), &discover).await.status, 200);

    let body = discover.to_string();
    let request = |target: &str, host_line: &str| {
        format!(
            "POST {target} HTTP/1.1\r\n{host_line}content-type: application/json\r\n\
             accept: application/json, text/event-stream\r\nmcp-protocol-version: {MODERN}\r\n\
             mcp-method: server/discover\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let with_host = format!("host: {host}\r\n");
    assert_eq!(raw_status(&server, &request("/mcp", &with_host)).await, 200);
    // HTTP/1.1 without `Host` (and without an authority in the target) is malformed.
    assert_eq!(raw_status(&server, &request("/mcp", "")).await, 400);
    // A target in absolute form names its host, which the guard checks beside `Host`.
    let absolute = format!("http://{host}/mcp");
    assert_eq!(raw_status(&server, &request(&absolute, "")).await, 200);
    assert_eq!(
        raw_status(&server, &request(&absolute, &with_host)).await,
        200
    );
    let rebound = "http://evil.example.com/mcp";
    assert_eq!(
        raw_status(&server, &request(rebound, &with_host)).await,
        403
    );
}

/// The most bytes of one client value an error quotes (`mcp_types::error::ECHO_LIMIT`).
const ECHO_LIMIT: usize = 1024;

/// `text`, an error's message or `data.uri`, quotes `sent` bounded: not whole, and saying how
/// long it was.
fn quotes_bounded(text: &Value, sent: &str) {
    let text = text.as_str().expect("a string");
    assert!(
        text.len() <= 3 * ECHO_LIMIT,
        "{} bytes quoted of {}",
        text.len(),
        sent.len()
    );
    assert!(
        text.contains(&format!("(cut from {} bytes)", sent.len())),
        "{text}"
    );
}

/// An error quotes what the client sent only bounded: a huge header, URI, method or template
/// comes back cut and marked, never whole, in both eras; a URI of the usual length comes back
/// exactly as it was sent, as clients match `data.uri`.
#[tokio::test]
async fn errors_quote_what_the_client_sent_bounded() {
    let server = TestServer::start(HttpOptions {
        max_header_bytes: 4 << 20,
        ..HttpOptions::default()
    })
    .await;
    let read = |uri: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
               "params": {"uri": uri, "_meta": modern_meta()}})
    };
    let modern_read = async |name: &str, uri: &str| {
        let headers = [
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "resources/read"),
            ("mcp-name", name),
        ];
        server.post(&headers, &read(uri)).await
    };
    // A 300 KB `Mcp-Name` that disagrees with the body.
    let huge_name = format!("test://{}", "a".repeat(300_000));
    let mismatch = modern_read(&huge_name, "test://static-text").await;
    assert_eq!(mismatch.status, 400);
    assert_eq!(mismatch.json["error"]["code"], -32020);
    quotes_bounded(&mismatch.json["error"]["message"], &huge_name);
    // A 1 MB URI, not a valid one (over the engine's 8 KiB).
    let huge_uri = format!("test://{}", "b".repeat(1 << 20));
    let invalid = modern_read(&huge_uri, &huge_uri).await;
    assert_eq!(invalid.json["error"]["code"], -32602, "{}", invalid.status);
    quotes_bounded(&invalid.json["error"]["message"], &huge_uri);
    quotes_bounded(&invalid.json["error"]["data"]["uri"], &huge_uri);
    // A valid URI of 4 KB that names nothing.
    let long_uri = format!("test://missing/{}", "c".repeat(4000));
    let missing = modern_read(&long_uri, &long_uri).await;
    assert_eq!(missing.json["error"]["code"], -32602);
    quotes_bounded(&missing.json["error"]["data"]["uri"], &long_uri);
    let short = modern_read("test://missing", "test://missing").await;
    assert_eq!(short.json["error"]["data"]["uri"], "test://missing");
    // A 1 MB method name.
    let huge_method = format!("x/{}", "d".repeat(1 << 20));
    let unknown = server
        .post(
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", &huge_method),
            ],
            &json!({"jsonrpc": "2.0", "id": 1, "method": huge_method,
                    "params": {"_meta": modern_meta()}}),
        )
        .await;
    assert_eq!(unknown.status, 404);
    quotes_bounded(&unknown.json["error"]["message"], &huge_method);
    // A completion of a 1 MB template.
    let huge_template = format!("test://{{x}}{}", "e".repeat(1 << 20));
    let complete = |meta: Option<Value>| {
        let mut params = json!({"ref": {"type": "ref/resource", "uri": huge_template},
                                "argument": {"name": "x", "value": ""}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": params})
    };
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "completion/complete"),
    ];
    let unknown_template = server.post(&headers, &complete(Some(modern_meta()))).await;
    assert_eq!(unknown_template.json["error"]["code"], -32602);
    quotes_bounded(&unknown_template.json["error"]["message"], &huge_template);

    // The legacy era, in a session.
    let session = server.legacy_session("2025-11-25").await;
    let legacy = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let legacy_read = |uri: &str| json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}});
    let invalid = server.post(&legacy, &legacy_read(&huge_uri)).await;
    assert_eq!(invalid.json["error"]["code"], -32602);
    quotes_bounded(&invalid.json["error"]["message"], &huge_uri);
    quotes_bounded(&invalid.json["error"]["data"]["uri"], &huge_uri);
    let missing = server.post(&legacy, &legacy_read(&long_uri)).await;
    assert_eq!(missing.json["error"]["code"], -32002);
    quotes_bounded(&missing.json["error"]["data"]["uri"], &long_uri);
    let short = server.post(&legacy, &legacy_read("test://missing")).await;
    assert_eq!(short.json["error"]["data"]["uri"], "test://missing");
    let unknown = server
        .post(
            &legacy,
            &json!({"jsonrpc": "2.0", "id": 3, "method": huge_method}),
        )
        .await;
    assert_eq!(unknown.json["error"]["code"], -32601);
    quotes_bounded(&unknown.json["error"]["message"], &huge_method);
    let unknown_template = server.post(&legacy, &complete(None)).await;
    assert_eq!(unknown_template.json["error"]["code"], -32602);
    quotes_bounded(&unknown_template.json["error"]["message"], &huge_template);
    // A log level serde does not know, quoted by serde in its message.
    let huge_level = "f".repeat(1 << 20);
    let level = server
        .post(
            &legacy,
            &json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel",
                    "params": {"level": huge_level}}),
        )
        .await;
    assert_eq!(level.json["error"]["code"], -32602);
    let message = level.json["error"]["message"].as_str().unwrap();
    assert!(message.len() <= ECHO_LIMIT, "{} bytes", message.len());
    assert!(message.contains("(cut from "), "{message}");
}

#[tokio::test]
async fn modern_listen_acknowledges_then_streams_tagged_updates() {
    let server = TestServer::start(HttpOptions::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
    "params": {"_meta": modern_meta(), "notifications": {
        "resourceSubscriptions": ["test://watched-resource"],
        "resourcesListChanged": true,
        "toolsListChanged": true
    }}});
    let response = server
        .send(
            "POST",
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "subscriptions/listen"),
            ],
            Some(&body.to_string()),
        )
        .await;
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let mut stream = EventReader::new(response);

    let ack = stream.next().await.expect("the acknowledgment");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!(["test://watched-resource"])
    );
    assert_eq!(ack["params"]["notifications"].get("toolsListChanged"), None);

    server.server.resource_updated("test://static-text");
    server.server.resource_updated("test://watched-resource");
    let updated = stream.next().await.expect("an update");
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    assert_eq!(
        updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );

    server.server.list_changed();
    let changed = stream.next().await.expect("a list change");
    assert_eq!(changed["method"], "notifications/resources/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );

    // Shutdown: the graceful result, then the end of the stream.
    server.server.shutdown();
    let last = stream.next().await.expect("the graceful result");
    assert_eq!(last["id"], "listen-1");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    assert_eq!(stream.next().await, None);
    // And the server stops once its streams are closed.
    let mut server = server;
    let stopped = bounded(&mut server.task).await.unwrap();
    assert!(stopped.is_ok(), "{stopped:?}");
}

#[tokio::test]
async fn modern_listen_streams_are_bounded() {
    let server = TestServer::start(HttpOptions {
        max_listen_streams: 1,
        keep_alive: Duration::from_millis(20),
        ..HttpOptions::default()
    })
    .await;
    let listen = |id: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
               "params": {"_meta": modern_meta(), "notifications": {"resourcesListChanged": true}}})
        .to_string()
    };
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "subscriptions/listen"),
    ];
    let first = server.send("POST", &headers, Some(&listen("first"))).await;
    let mut first = EventReader::new(first);
    let ack = first.next().await.expect("the acknowledgment");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    let refused = server.send("POST", &headers, Some(&listen("second"))).await;
    assert_eq!(refused.status(), 503);

    // Once the client drops the first stream (seen at the next keep-alive), its place is free.
    drop(first);
    let third_listen = listen("third");
    let reopened = until_admitted(250, || server.send("POST", &headers, Some(&third_listen)));
    let mut third = EventReader::new(reopened.await.expect("a place freed by the closed stream"));
    let ack = third.next().await.expect("the acknowledgment");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "third"
    );
}

#[tokio::test]
async fn legacy_get_stream_receives_updates_after_subscribe() {
    let server = TestServer::start(HttpOptions::default()).await;
    let session = server.watching_legacy_session("2025-06-18").await;
    let get_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
        ("accept", "text/event-stream"),
    ];
    let mut stream = EventReader::new(server.send("GET", &get_headers, None).await);
    // One standalone stream per session.
    assert_eq!(server.send("GET", &get_headers, None).await.status(), 409);

    server.server.resource_updated("test://watched-resource");
    let updated = stream.next().await.expect("an update");
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    assert_eq!(updated["params"].get("_meta"), None);

    // DELETE ends the session and its stream.
    let deleted = server
        .send("DELETE", &[("mcp-session-id", &session)], None)
        .await;
    assert_eq!(deleted.status(), 204);
    assert_eq!(stream.next().await, None);
}

#[tokio::test]
async fn legacy_sessions_are_bounded_and_expire() {
    let full = TestServer::start(HttpOptions {
        max_sessions: 2,
        ..HttpOptions::default()
    })
    .await;
    let ping = |session: String| {
        let full = &full;
        async move {
            let headers = [
                ("mcp-session-id", session.as_str()),
                ("mcp-protocol-version", "2025-11-25"),
            ];
            let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
            full.post(&headers, &ping).await.status
        }
    };
    let first = full.legacy_session("2025-11-25").await;
    let third = full.legacy_session("2025-11-25").await;
    assert_eq!(ping(first.clone()).await, 200);
    // At the limit, a session used in the last minutes is never ended to make room (the unit
    // tests of the session table show one idle for longer going): a new one is refused.
    let refused = full.post(&[], &initialize_request("2025-11-25")).await;
    assert_eq!(refused.status, 503);
    assert_eq!(ping(first.clone()).await, 200);
    assert_eq!(ping(third.clone()).await, 200);
    // Nor is a session with an open GET stream: with both streaming, a new session is refused.
    let mut streams = Vec::new();
    for session in [&first, &third] {
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
            ("accept", "text/event-stream"),
        ];
        let stream = full.send("GET", &headers, None).await;
        assert_eq!(stream.status(), 200);
        streams.push(stream);
    }
    let refused = full.post(&[], &initialize_request("2025-11-25")).await;
    assert_eq!(refused.status, 503);
    assert_eq!(ping(first).await, 200);
    assert_eq!(ping(third).await, 200);

    // With no idle time allowed, the first session has expired by the time a second opens.
    let expiring = TestServer::start(HttpOptions {
        max_sessions: 1,
        session_idle_timeout: Duration::ZERO,
        ..HttpOptions::default()
    })
    .await;
    let initialize = initialize_request("2025-11-25");
    let first = expiring.post(&[], &initialize).await.session.unwrap();
    let second = expiring.post(&[], &initialize).await;
    assert_eq!(second.status, 200);
    assert_ne!(second.session.as_deref(), Some(first.as_str()));
    let gone = expiring
        .post(
            &[("mcp-session-id", &first)],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        )
        .await;
    assert_eq!(gone.status, 404);
}

#[tokio::test]
async fn legacy_request_ids_in_flight_are_not_reused() {
    let server = std::sync::Arc::new(TestServer::start(HttpOptions::default()).await);
    let session = server.legacy_session("2025-11-25").await;
    let read = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                      "params": {"uri": "test://gate/0"}});
    let first = {
        let server = std::sync::Arc::clone(&server);
        let session = session.clone();
        let read = read.clone();
        tokio::spawn(async move { server.post(&[("mcp-session-id", &session)], &read).await })
    };
    // Once the first read is in flight, the same id is refused; other ids are served meanwhile.
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let refused = bounded(async {
        loop {
            let answer = server.post(&[("mcp-session-id", &session)], &ping).await;
            if answer.status == 400 {
                return answer;
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert_eq!(refused.json["error"]["code"], -32600);
    let other = server
        .post(
            &[("mcp-session-id", &session)],
            &json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
        )
        .await;
    assert_eq!(other.json, json!({"jsonrpc": "2.0", "id": 6, "result": {}}));
    GATES[0].notify_one();
    let first = bounded(first).await.unwrap();
    assert_eq!(first.status, 200);
    assert_eq!(
        first.json["result"]["contents"][0]["text"],
        "through the gate"
    );
}

/// A legacy read is read in one pass (by hand in the compact shape, else by serde); the same
/// read after a space is decoded the general way: every answer is the same, errors and
/// unknown sessions included.
#[tokio::test]
async fn legacy_reads_in_one_pass_answer_as_decoded_ones() {
    let server = TestServer::start(HttpOptions::default()).await;
    let session = server.legacy_session("2025-11-25").await;
    let known = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let unknown = [("mcp-session-id", "no-such-session")];
    let unsupported = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2099-01-01"),
    ];
    let mut id = 0;
    for headers in [&known[..], &unknown[..], &unsupported[..], &known[..1]] {
        for uri in [
            "test://static-text",
            "test://template/7/data",
            "test://nope",
            "::",
        ] {
            for meta in ["", r#","_meta":{"progressToken":"p"}"#] {
                let mut answers = Vec::new();
                for shape in ["compact", "spaced", "leading"] {
                    id += 1;
                    let spacing = if shape == "spaced" { " " } else { "" };
                    let mut body = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":{spacing}"{uri}"{meta}}}}}"#
                    );
                    if shape == "leading" {
                        body.insert(0, ' ');
                    }
                    let answer =
                        Answer::read(server.send("POST", headers, Some(&body)).await).await;
                    let mut json = answer.json;
                    assert_eq!(json["id"], id, "{body}: {json}");
                    json["id"] = Value::Null;
                    answers.push((answer.status, answer.content_type, json, answer.before));
                }
                assert_eq!(answers[0], answers[2], "{uri}{meta} with {headers:?}");
                assert_eq!(answers[1], answers[2], "{uri}{meta} with {headers:?}");
                if headers == known && uri != "::" {
                    // The progress notification comes first, in an SSE body.
                    let progress = !meta.is_empty();
                    assert_eq!(answers[0].3.len(), usize::from(progress), "{uri}{meta}");
                }
            }
        }
    }
}

#[tokio::test]
async fn legacy_cancelled_request_lets_its_post_go() {
    let server = std::sync::Arc::new(TestServer::start(HttpOptions::default()).await);
    let session = server.legacy_session("2025-11-25").await;
    let first = {
        let server = std::sync::Arc::clone(&server);
        let session = session.clone();
        tokio::spawn(async move {
            let read = json!({"jsonrpc": "2.0", "id": 8, "method": "resources/read",
                              "params": {"uri": "test://gate/1"}});
            server.post(&[("mcp-session-id", &session)], &read).await
        })
    };
    let ping = json!({"jsonrpc": "2.0", "id": 8, "method": "ping"});
    bounded(async {
        while server
            .post(&[("mcp-session-id", &session)], &ping)
            .await
            .status
            != 400
        {
            tokio::task::yield_now().await;
        }
    })
    .await;
    let cancel = server
        .post(
            &[("mcp-session-id", &session)],
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": 8, "reason": "no longer needed"}}),
        )
        .await;
    assert_eq!(cancel.status, 202);
    // The cancelled id is free again at once, while the read still runs.
    let again = server.post(&[("mcp-session-id", &session)], &ping).await;
    assert_eq!((again.status, &again.json["id"]), (200, &json!(8)));
    GATES[1].notify_one();
    // No response for the cancelled read: its POST ends empty instead of hanging.
    let first = bounded(first).await.unwrap();
    assert_eq!((first.status, first.json), (202, Value::Null));
}

#[tokio::test]
async fn legacy_batches_are_bounded() {
    let server = TestServer::start(HttpOptions::default()).await;
    let session = server.legacy_session("2025-03-26").await;
    let batch = |len: usize| {
        let pings: Vec<Value> = (0..len)
            .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .collect();
        Value::Array(pings)
    };
    let largest = mcp_resources_server::MAX_BATCH_MESSAGES;
    let served = server
        .post(&[("mcp-session-id", &session)], &batch(largest))
        .await;
    assert_eq!(served.status, 200);
    assert_eq!(served.json.as_array().map(Vec::len), Some(largest));
    // One more: every element could be a read of the largest size, answered together.
    let refused = server
        .post(&[("mcp-session-id", &session)], &batch(largest + 1))
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json["error"]["code"], -32600, "{:?}", refused.json);
}

/// One HTTP/2 connection (prior knowledge, as `curl --http2-prior-knowledge` opens it) to a
/// test server, sending requests with the server's address as `:authority`.
struct Http2Client {
    sender: hyper::client::conn::http2::SendRequest<http_body_util::Full<hyper::body::Bytes>>,
    authority: String,
}

impl Http2Client {
    async fn connect(server: &TestServer) -> Http2Client {
        Http2Client::connect_with(server, usize::MAX, None).await
    }

    /// A connection whose first write sends at most `first` bytes, then waits a moment: the
    /// server sees only the start of the preface at first.
    async fn connect_split(server: &TestServer, first: usize) -> Http2Client {
        Http2Client::connect_with(server, first, None).await
    }

    /// A connection that grants each response stream `window` bytes at a time (hyper's client
    /// grants more as the body is read).
    async fn connect_with(server: &TestServer, first: usize, window: Option<u32>) -> Http2Client {
        let stream = bounded(tokio::net::TcpStream::connect(server.addr))
            .await
            .unwrap();
        let stream = SplitStart {
            stream,
            first: Some(first),
            pause: None,
        };
        let (sender, connection) =
            hyper::client::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                .initial_stream_window_size(window)
                .handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        Http2Client {
            sender,
            authority: server.host(),
        }
    }

    /// Sends a request on the connection; the response comes once the server has a stream
    /// free for it.
    fn send(
        &mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> impl Future<Output = hyper::Result<hyper::Response<Incoming>>> + use<> {
        let authority = headers
            .iter()
            .find(|(name, _)| *name == ":authority")
            .map_or(self.authority.as_str(), |(_, value)| value);
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(format!("http://{authority}/mcp"));
        for (name, value) in headers.iter().filter(|(name, _)| !name.starts_with(':')) {
            request = request.header(*name, *value);
        }
        if body.is_some() {
            request = request
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream");
        }
        let body = body.map(Value::to_string).unwrap_or_default();
        let request = request
            .body(http_body_util::Full::new(hyper::body::Bytes::from(body)))
            .unwrap();
        self.sender.send_request(request)
    }

    async fn answer(&mut self, headers: &[(&str, &str)], body: &Value) -> Answer {
        let response = bounded(self.send("POST", headers, Some(body)))
            .await
            .unwrap();
        Answer::read(response).await
    }
}

/// A socket whose first write sends at most `first` bytes and whose next write waits 100 ms.
struct SplitStart {
    stream: tokio::net::TcpStream,
    first: Option<usize>,
    pause: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl tokio::io::AsyncRead for SplitStart {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(context, buffer)
    }
}

impl tokio::io::AsyncWrite for SplitStart {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        bytes: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if let Some(first) = self.first {
            let end = bytes.len().min(first);
            let written = std::task::ready!(
                std::pin::Pin::new(&mut self.stream).poll_write(context, &bytes[..end])
            )?;
            self.first = None;
            if written < bytes.len() {
                self.pause = Some(Box::pin(tokio::time::sleep(Duration::from_millis(100))));
            }
            return std::task::Poll::Ready(Ok(written));
        }
        if let Some(pause) = self.pause.as_mut() {
            std::task::ready!(pause.as_mut().poll(context));
            self.pause = None;
        }
        std::pin::Pin::new(&mut self.stream).poll_write(context, bytes)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(context)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(context)
    }
}

/// The protocol is told from the first bytes (by hyper-util's builder); when they are only the
/// start of the HTTP/2 preface (or of `POST`, which shares its first letter), it reads on until
/// it can tell.
#[tokio::test]
async fn a_preface_or_a_request_split_across_writes_is_still_told_apart() {
    let server = TestServer::start(HttpOptions::default()).await;
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": "test://static-text", "_meta": modern_meta()}});
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/read"),
        ("mcp-name", "test://static-text"),
    ];
    let mut client = Http2Client::connect_split(&server, 10).await;
    let answer = client.answer(&headers, &read).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json["result"]["contents"][0]["text"],
        "hello over http"
    );

    // HTTP/1.1, its first byte alone.
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let body = read.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n\
         Mcp-Method: resources/read\r\nMcp-Name: test://static-text\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.host(),
        body.len()
    );
    let mut stream = bounded(tokio::net::TcpStream::connect(server.addr))
        .await
        .unwrap();
    stream.write_all(&request.as_bytes()[..1]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    stream.write_all(&request.as_bytes()[1..]).await.unwrap();
    let mut reply = String::new();
    bounded(stream.read_to_string(&mut reply)).await.unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("hello over http"), "{reply}");
}

/// Over HTTP/2 the connection's task writes the live streams itself; a stream the client
/// resets is let go at once (no keep-alive write needed to notice it), which cancels the listen
/// request and frees its place.
#[tokio::test]
async fn http2_a_listen_stream_the_client_resets_is_cancelled_at_once() {
    let server = TestServer::start(HttpOptions {
        max_listen_streams: 1,
        ..quiet()
    })
    .await;
    let mut client = Http2Client::connect(&server).await;
    let headers = LISTEN_HEADERS;
    let listen = watched_listen_request;
    let first = bounded(client.send("POST", &headers, Some(&listen(1))))
        .await
        .unwrap();
    let mut first = EventReader::new(first);
    assert!(first.next().await.is_some(), "the acknowledgment");
    server.server.resource_updated("test://watched-resource");
    let update = first.next().await.expect("an update");
    assert_eq!(update["params"]["uri"], "test://watched-resource");
    let refused = bounded(client.send("POST", &headers, Some(&listen(2))))
        .await
        .unwrap();
    assert_eq!(refused.status(), 503);

    // Dropping the body resets the stream.
    drop(first);
    let reopened = until_admitted(100, || {
        let sent = client.send("POST", &headers, Some(&listen(3)));
        async { bounded(sent).await.unwrap() }
    });
    let mut third = EventReader::new(reopened.await.expect("the reset stream's place, freed"));
    let ack = third.next().await.expect("the acknowledgment");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        3
    );
    server.server.resource_updated("test://watched-resource");
    let update = third.next().await.expect("an update on the new stream");
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        3
    );
}

/// A legacy GET stream served over HTTP/2 is woken through its connection's ready queue; once
/// the client resets it, the session's changes go back to the session's signal, so that the
/// session's next stream gets them wherever it is served: over HTTP/1.1, then over HTTP/2 again,
/// until DELETE ends it.
#[tokio::test]
async fn http2_a_legacy_get_stream_hands_its_sessions_changes_on_when_it_ends() {
    let server = TestServer::start(quiet()).await;
    let version = "2025-11-25";
    let session = server.watching_legacy_session(version).await;
    let get_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", version),
        ("accept", "text/event-stream"),
    ];
    let mut client = Http2Client::connect(&server).await;
    let mut over_http2 = async || {
        let get = client.send("GET", &get_headers, None);
        bounded(get).await.unwrap()
    };

    let mut stream = once_free(&mut over_http2).await;
    server.updates_reach(&mut stream, 2).await;
    // Reset by the client: the session's next stream starts once the server let it go.
    drop(stream);
    let mut stream = once_free(async || server.send("GET", &get_headers, None).await).await;
    server.updates_reach(&mut stream, 2).await;
    // And back: an HTTP/1.1 stream ends when its body is dropped.
    drop(stream);
    let mut stream = once_free(&mut over_http2).await;
    server.updates_reach(&mut stream, 1).await;
    // DELETE ends the session and its stream, woken through the ready queue too.
    let deleted = server
        .send("DELETE", &[("mcp-session-id", &session)], None)
        .await;
    assert_eq!(deleted.status(), 204);
    assert_eq!(bounded(stream.next()).await, None);
}

/// Opens a legacy session's GET stream with `open` once the session's previous stream is let
/// go (`409` until then), at most 100 times, 20 ms apart.
async fn once_free(mut open: impl AsyncFnMut() -> hyper::Response<Incoming>) -> EventReader {
    for _ in 0..100 {
        let response = open().await;
        if response.status() == 200 {
            return EventReader::new(response);
        }
        assert_eq!(response.status(), 409, "only the previous stream holds it");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the session's previous stream was never let go");
}

/// A live stream is polled for its next frame only while the client's window has room: the
/// changes of a client that does not read wait, coalesced, in the hub, rather than piling up as
/// frames; and none is lost once it reads again.
#[tokio::test]
async fn http2_a_live_stream_waits_for_the_clients_window() {
    let server = TestServer::start(quiet()).await;
    let mut client = Http2Client::connect_with(&server, usize::MAX, Some(16)).await;
    let listen = watched_listen_request(5);
    let response = bounded(client.send("POST", &LISTEN_HEADERS, Some(&listen)))
        .await
        .unwrap();
    // Five changes, each given time to be written, while the client reads nothing: the
    // acknowledgment already fills the window.
    tokio::time::sleep(Duration::from_millis(50)).await;
    for _ in 0..5 {
        server.server.resource_updated("test://watched-resource");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut stream = EventReader::new(response);
    let ack = stream.next().await.expect("the acknowledgment");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    // The frame taken before the window filled, then the other four changes as one.
    for _ in 0..2 {
        let update = stream.next().await.expect("an update");
        assert_eq!(update["params"]["uri"], "test://watched-resource");
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(300), stream.next())
            .await
            .is_err(),
        "changes were queued as frames past the client's window"
    );
    // The stream goes on as the client reads.
    server.server.resource_updated("test://watched-resource");
    let update = stream.next().await.expect("a later update");
    assert_eq!(update["params"]["uri"], "test://watched-resource");
}

#[tokio::test]
async fn http2_serves_both_eras_and_their_streams_on_one_connection() {
    let server = TestServer::start(HttpOptions {
        max_streams_per_connection: 3,
        ..HttpOptions::default()
    })
    .await;
    let mut client = Http2Client::connect(&server).await;

    // The DNS-rebinding guard reads `:authority` where HTTP/1.1 has `Host`.
    let foreign = client
        .answer(
            &[(":authority", "evil.example:80")],
            &json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}),
        )
        .await;
    assert_eq!(foreign.status, 403);

    // A legacy session, its standalone stream and a subscription.
    let version = "2025-11-25";
    let initialized = client.answer(&[], &initialize_request(version)).await;
    assert_eq!(initialized.status, 200, "{:?}", initialized.json);
    let session = initialized
        .session
        .expect("initialize sends Mcp-Session-Id");
    let session_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", version),
    ];
    let done = client
        .answer(
            &session_headers,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(done.status, 202);
    let subscribed = client
        .answer(
            &session_headers,
            &subscribe_request("test://watched-resource"),
        )
        .await;
    assert_eq!(subscribed.json["result"], json!({}));
    let get_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", version),
        ("accept", "text/event-stream"),
    ];
    let get = bounded(client.send("GET", &get_headers, None))
        .await
        .unwrap();
    let mut legacy_stream = EventReader::new(get);

    // A modern listen stream beside it.
    let modern_headers = LISTEN_HEADERS;
    let listen = watched_listen_request(7);
    let listening = bounded(client.send("POST", &modern_headers, Some(&listen)))
        .await
        .unwrap();
    let mut modern_stream = EventReader::new(listening);
    let ack = modern_stream.next().await.expect("the acknowledgment");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    // Requests still go through beside two live streams: a modern read…
    let read_headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/read"),
        ("mcp-name", "test://static-text"),
    ];
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": "test://static-text", "_meta": modern_meta()}});
    let answer = client.answer(&read_headers, &read).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json["result"]["contents"][0]["text"],
        "hello over http"
    );

    // …and one change reaches both streams.
    server.server.resource_updated("test://watched-resource");
    let legacy_update = legacy_stream.next().await.expect("a legacy update");
    assert_eq!(legacy_update["method"], "notifications/resources/updated");
    assert_eq!(legacy_update["params"]["uri"], "test://watched-resource");
    let modern_update = modern_stream.next().await.expect("a modern update");
    assert_eq!(modern_update["method"], "notifications/resources/updated");
    assert_eq!(
        modern_update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );

    // A third live stream fills the connection's three; a request past them waits for one to
    // end.
    let third = bounded(client.send("POST", &modern_headers, Some(&listen)))
        .await
        .unwrap();
    let mut third = EventReader::new(third);
    assert!(third.next().await.is_some());
    let mut waiting = Box::pin(client.send("POST", &read_headers, Some(&read)));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), &mut waiting)
            .await
            .is_err(),
        "a fourth stream was opened past max_streams_per_connection"
    );
    drop(third);
    let answer = Answer::read(bounded(waiting).await.unwrap()).await;
    assert_eq!(answer.status, 200);

    // Shutdown ends both streams (the listen one with its graceful result) and the server.
    server.server.shutdown();
    let last = modern_stream.next().await.expect("the graceful result");
    assert_eq!(last["id"], 7);
    assert_eq!(modern_stream.next().await, None);
    assert_eq!(legacy_stream.next().await, None);
    let mut server = server;
    let stopped = bounded(&mut server.task).await.unwrap();
    assert!(stopped.is_ok(), "{stopped:?}");
}

const RESOURCE: &str = "https://files.example.com/mcp";
const ISSUER: &str = "https://auth.example.com";
const SECRET: &[u8] = b"a secret of thirty-two bytes or more, shared";

/// An `Authorization` value with a token for this server from `ISSUER`, signed with `SECRET`.
pub(crate) fn bearer(subject: &str, scope: &str) -> String {
    bearer_from(ISSUER, subject, scope, 600)
}

/// [`bearer`] from `issuer`, valid for `lifetime` seconds.
fn bearer_from(issuer: &str, subject: &str, scope: &str, lifetime: u64) -> String {
    let claims = json!({
        "sub": subject, "aud": RESOURCE, "iss": issuer, "scope": scope,
        "exp": jsonwebtoken::get_current_timestamp() + lifetime,
    });
    let key = jsonwebtoken::EncodingKey::from_secret(SECRET).unwrap();
    // An access token's header (RFC 9068): `typ` is `at+jwt`.
    let header = jsonwebtoken::Header {
        typ: Some("at+jwt".to_owned()),
        ..jsonwebtoken::Header::default()
    };
    let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
    format!("Bearer {token}")
}

#[tokio::test]
async fn bearer_tokens_guard_every_request_and_bind_sessions() {
    use mcp_resources_core::policy::{ActionSet, Grantee, PatternPolicy, UriPattern};
    use mcp_resources_server::auth::{Authorization, JwtVerifier};
    const OTHER_ISSUER: &str = "https://other-auth.example.com";
    let issuers = vec![ISSUER.to_owned(), OTHER_ISSUER.to_owned()];
    let verifier = JwtVerifier::new(RESOURCE, issuers.clone())
        .with_hmac_secret(SECRET)
        .unwrap();
    let authorization = Authorization::new(RESOURCE, issuers, std::sync::Arc::new(verifier))
        .and_then(|authorization| authorization.scopes_supported(vec!["files:read".to_owned()]))
        .and_then(|authorization| authorization.required_scopes(vec!["files:read".to_owned()]))
        .unwrap();
    let options = HttpOptions {
        authorization: Some(authorization),
        ..HttpOptions::default()
    };
    // `test://static-text` is for the `secret` scope only.
    let policy = PatternPolicy::new()
        .grant(
            Grantee::Scope("secret".to_owned()),
            ActionSet::ALL,
            UriPattern::parse("test://static-text").unwrap(),
        )
        .grant(
            Grantee::Anyone,
            ActionSet::ALL,
            UriPattern::parse("test://watched-resource").unwrap(),
        );
    let server = TestServer::start_with(options.clone(), Some(std::sync::Arc::new(policy))).await;

    // The metadata document, at both well-known paths, needs no token.
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let document = Answer::read(server.send_at(path, "GET", &[], None).await).await;
        assert_eq!(document.status, 200, "{path}");
        assert_eq!(document.json["resource"], RESOURCE);
        assert_eq!(document.json["authorization_servers"][0], ISSUER);
        assert_eq!(document.json["scopes_supported"], json!(["files:read"]));
    }
    let elsewhere = server.send_at("/.well-known/other", "GET", &[], None).await;
    assert_eq!(elsewhere.status(), 404);

    // A modern read: refused without a token, with a challenge naming the document.
    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                      "params": {"uri": "test://static-text", "_meta": modern_meta()}})
    .to_string();
    let modern_headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/read"),
        ("mcp-name", "test://static-text"),
    ];
    let refused = server.send("POST", &modern_headers, Some(&read)).await;
    assert_eq!(refused.status(), 401);
    assert_eq!(
        refused.headers()["www-authenticate"],
        "Bearer resource_metadata=\"https://files.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"files:read\""
    );
    let alice = bearer("alice", "files:read secret");
    let with = |token| with_header(&modern_headers, ("authorization", token));
    let served = Answer::read(server.send("POST", &with(&alice), Some(&read)).await).await;
    assert_eq!(served.status, 200);
    assert_eq!(
        served.json["result"]["contents"][0]["text"],
        "hello over http"
    );
    let narrow = bearer("alice", "files:list");
    let forbidden = server.send("POST", &with(&narrow), Some(&read)).await;
    assert_eq!(forbidden.status(), 403);
    assert!(
        forbidden.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer error=\"insufficient_scope\"")
    );
    // Without `secret`, the policy hides the resource.
    let public = bearer("alice", "files:read");
    let hidden = Answer::read(server.send("POST", &with(&public), Some(&read)).await).await;
    assert!(hidden.json.get("error").is_some(), "{:?}", hidden.json);
    let forged = format!("{}x", bearer("alice", "files:read"));
    assert_eq!(
        server
            .send("POST", &with(&forged), Some(&read))
            .await
            .status(),
        401
    );

    // A legacy session is its opener's: another subject's token does not find it.
    let opened = server
        .post(
            &[("authorization", &alice)],
            &initialize_request("2025-11-25"),
        )
        .await;
    assert_eq!(opened.status, 200);
    let session = opened.session.expect("a session id");
    let bob = bearer("bob", "files:read");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let legacy_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let as_user = |token| with_header(&legacy_headers, ("authorization", token));
    assert_eq!(server.post(&as_user(&alice), &ping).await.status, 200);
    assert_eq!(server.post(&as_user(&bob), &ping).await.status, 404);
    assert_eq!(
        server.send("DELETE", &as_user(&bob), None).await.status(),
        404
    );
    let still = server.post(&as_user(&alice), &ping).await;
    assert_eq!(still.status, 200, "bob's DELETE ended nothing");
    // Nor does the same subject from another issuer.
    let other_alice = bearer_from(OTHER_ISSUER, "alice", "files:read secret", 600);
    assert_eq!(server.post(&as_user(&other_alice), &ping).await.status, 404);
    let bob_stream = with_header(&as_user(&bob), ("accept", "text/event-stream"));
    assert_eq!(server.send("GET", &bob_stream, None).await.status(), 404);
    // The session runs each request with the scopes of its token: without `secret`, the
    // resource is hidden; with it again, served.
    let legacy_read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
                             "params": {"uri": "test://static-text"}});
    let text = |answer: &Answer| answer.json["result"]["contents"][0]["text"].clone();
    let first = server.post(&as_user(&alice), &legacy_read).await;
    assert_eq!(text(&first), "hello over http");
    let downscoped = server.post(&as_user(&public), &legacy_read).await;
    assert!(
        downscoped.json.get("error").is_some(),
        "{:?}",
        downscoped.json
    );
    let again = server.post(&as_user(&alice), &legacy_read).await;
    assert_eq!(text(&again), "hello over http");
    let refused = server
        .send(
            "POST",
            &[],
            Some(&initialize_request("2025-11-25").to_string()),
        )
        .await;
    assert_eq!(refused.status(), 401);

    // The router asks for tokens too, and serves the document.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = server.server.router(options);
    let routed = TestServer {
        server: server.server.clone(),
        addr,
        task: tokio::spawn(async move { axum::serve(listener, router).await }),
    };
    let refused = routed.send("POST", &modern_headers, Some(&read)).await;
    assert_eq!(refused.status(), 401);
    let served = Answer::read(routed.send("POST", &with(&alice), Some(&read)).await).await;
    assert_eq!(text(&served), "hello over http");
    let metadata = "/.well-known/oauth-protected-resource/mcp";
    assert_eq!(
        routed.send_at(metadata, "GET", &[], None).await.status(),
        200
    );
}

/// The `cacheScope` of every cacheable modern result over HTTP, by method, with `extra`
/// headers: discover, both lists, a static read (read in one pass) and a template's.
async fn http_cache_scopes(server: &TestServer, extra: &[(&str, &str)]) -> Vec<(String, Value)> {
    let requests = [
        ("server/discover", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "test://static-text"})),
        ("resources/read", json!({"uri": "test://template/1/data"})),
    ];
    let mut scopes = Vec::new();
    for (method, mut params) in requests {
        params["_meta"] = modern_meta();
        let uri = params["uri"].as_str().map(str::to_owned);
        let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
        if let Some(uri) = uri.as_deref() {
            headers.push(("mcp-name", uri));
        }
        headers.extend_from_slice(extra);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let answer = server.post(&headers, &body).await;
        assert!(
            answer.json.get("result").is_some(),
            "{method}: {:?}",
            answer.json
        );
        let name = format!("{method} {}", uri.unwrap_or_default());
        scopes.push((name, answer.json["result"]["cacheScope"].clone()));
    }
    scopes
}

/// Every cacheable modern result is private when who asks decides what, or whether anything,
/// is answered: under HTTP authorization (a token's scopes decide whether a request is served
/// at all) and under a policy whose grants name subjects or scopes. Otherwise public.
#[tokio::test]
async fn authorized_or_per_principal_results_are_private() {
    use mcp_resources_core::policy::{ActionSet, Grantee, PatternPolicy, Policy, UriPattern};
    type SharedPolicy = std::sync::Arc<dyn Policy>;
    let authorized = || HttpOptions {
        authorization: Some(authorization()),
        ..HttpOptions::default()
    };
    let alice = bearer("alice", "files:read");
    let token = [("authorization", alice.as_str())];
    let everything = || UriPattern::parse("test://**").unwrap();
    let by_scope: SharedPolicy = std::sync::Arc::new(PatternPolicy::new().grant(
        Grantee::Scope("files:read".to_owned()),
        ActionSet::ALL,
        everything(),
    ));
    let by_subject: SharedPolicy = std::sync::Arc::new(
        PatternPolicy::new()
            .grant(Grantee::Anyone, ActionSet::ALL, everything())
            .grant(
                Grantee::Subject("carol".to_owned()),
                ActionSet::ALL,
                UriPattern::parse("test://carol/**").unwrap(),
            ),
    );

    // Authorization with no policy, with a policy by scope, and a policy by subject alone.
    let cases = [
        (authorized(), None, token.as_slice()),
        (authorized(), Some(by_scope), token.as_slice()),
        (HttpOptions::default(), Some(by_subject), &[][..]),
    ];
    for (case, (options, policy, headers)) in cases.into_iter().enumerate() {
        let server = TestServer::start_with(options.clone(), policy).await;
        for (method, scope) in http_cache_scopes(&server, headers).await {
            assert_eq!(scope, "private", "case {case}: {method}");
        }
        // Through the router too.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = server.server.router(options);
        let routed = TestServer {
            server: server.server.clone(),
            addr,
            task: tokio::spawn(async move { axum::serve(listener, router).await }),
        };
        for (method, scope) in http_cache_scopes(&routed, headers).await {
            assert_eq!(scope, "private", "case {case}, routed: {method}");
        }
    }
    // Anonymous, under no policy: nothing depends on who asks.
    let open = TestServer::start(HttpOptions::default()).await;
    for (method, scope) in http_cache_scopes(&open, &[]).await {
        assert_eq!(scope, "public", "{method}");
    }
}

#[tokio::test]
async fn live_streams_end_once_their_token_expires() {
    let server = TestServer::start(HttpOptions {
        authorization: Some(authorization()),
        keep_alive: Duration::from_millis(100),
        ..HttpOptions::default()
    })
    .await;
    // Valid for a second (and accepted within the minute of leeway for clock skew).
    let short = bearer_from(ISSUER, "alice", "files:read", 1);
    let headers = with_header(&LISTEN_HEADERS, ("authorization", &short));
    let body = watched_listen_request(1).to_string();
    let mut listen = EventReader::new(server.send("POST", &headers, Some(&body)).await);
    let ack = listen.next().await.expect("the acknowledgment");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let opened = server
        .post(
            &[("authorization", &short)],
            &initialize_request("2025-11-25"),
        )
        .await;
    let session = opened.session.expect("a session id");
    let get_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "text/event-stream"),
        ("authorization", short.as_str()),
    ];
    let mut get = EventReader::new(server.send("GET", &get_headers, None).await);
    // Each ends at a keep-alive after its token's `exp` (keep-alive comments in between are
    // skipped, so the whole wait is bounded).
    assert_eq!(bounded(listen.next()).await, None);
    assert_eq!(bounded(get.next()).await, None);
}

/// `headers` and one more.
fn with_header<'a>(
    headers: &[(&'a str, &'a str)],
    more: (&'a str, &'a str),
) -> Vec<(&'a str, &'a str)> {
    let mut all = headers.to_vec();
    all.push(more);
    all
}

/// What a client sees of a response: its status, its headers but `Date` (a session id only as
/// present), and its body.
async fn seen(response: hyper::Response<Incoming>) -> (u16, Vec<(String, String)>, String) {
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .filter(|(name, _)| *name != "date")
        .map(|(name, value)| {
            let value = if name == "mcp-session-id" {
                "(a session id)".to_owned()
            } else {
                value.to_str().unwrap().to_owned()
            };
            (name.to_string(), value)
        })
        .collect();
    let body = bounded(response.into_body().collect())
        .await
        .unwrap()
        .to_bytes();
    (status, headers, String::from_utf8(body.to_vec()).unwrap())
}

/// The answers to a few requests of either era, of both kinds of session header, to other
/// paths and from a disallowed origin, as [`seen`], each named.
async fn answers(server: &TestServer) -> Vec<(&'static str, (u16, Vec<(String, String)>, String))> {
    let mut answers = Vec::new();
    let get = server.send("GET", &[], None).await;
    answers.push(("GET without a session", seen(get).await));
    let initialize = initialize_request("2025-11-25").to_string();
    let opened = server.send("POST", &[], Some(&initialize)).await;
    let session = opened
        .headers()
        .get("mcp-session-id")
        .map(|id| id.to_str().unwrap().to_owned())
        .expect("a session id");
    answers.push(("initialize", seen(opened).await));
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}).to_string();
    let listed = server.send("POST", &headers, Some(&list)).await;
    answers.push(("legacy resources/list", seen(listed).await));
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": "test://static-text", "_meta": modern_meta()}})
    .to_string();
    let modern_headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/read"),
        ("mcp-name", "test://static-text"),
    ];
    let modern = server.send("POST", &modern_headers, Some(&read)).await;
    answers.push(("modern resources/read", seen(modern).await));
    let origin = [("origin", "https://evil.example")];
    let refused = server.send("POST", &origin, Some(&read)).await;
    answers.push(("a disallowed origin", seen(refused).await));
    let elsewhere = server.send_at("/elsewhere", "GET", &[], None).await;
    answers.push(("an unknown path", seen(elsewhere).await));
    let deleted = server.send("DELETE", &headers, None).await;
    answers.push(("DELETE the session", seen(deleted).await));
    let gone = server.send("POST", &headers, Some(&list)).await;
    answers.push(("the deleted session", seen(gone).await));
    let delete = server.send("DELETE", &[], None).await;
    answers.push(("DELETE without a session", seen(delete).await));
    answers
}

/// A second server of `server`'s resources: `router` served by a user's own `axum::serve`.
async fn served_by_axum(server: &TestServer, router: axum::Router) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = router.into_make_service_with_connect_info::<SocketAddr>();
    TestServer {
        server: server.server.clone(),
        addr,
        task: tokio::spawn(async move { axum::serve(listener, service).await }),
    }
}

/// One HTTP stack: what `serve_http` serves is the router, so a user's own `axum::serve` of
/// `router()` answers every request as it does, statuses, headers and bodies.
#[tokio::test]
async fn serve_http_and_the_router_served_by_axum_answer_alike() {
    let server = TestServer::start(HttpOptions::default()).await;
    let routed = served_by_axum(&server, server.server.router(HttpOptions::default())).await;
    let (ours, theirs) = (answers(&server).await, answers(&routed).await);
    assert_eq!(ours.len(), theirs.len());
    for ((name, ours), (_, theirs)) in ours.iter().zip(&theirs) {
        assert_eq!(ours, theirs, "{name}");
    }
    let statuses: Vec<u16> = ours.iter().map(|(_, (status, _, _))| *status).collect();
    assert_eq!(statuses, [405, 200, 200, 200, 403, 404, 204, 404, 405]);

    // With authorization: the metadata document at its paths, and a request without a token.
    let options = HttpOptions {
        authorization: Some(authorization()),
        ..HttpOptions::default()
    };
    let server = TestServer::start(options.clone()).await;
    let routed = served_by_axum(&server, server.server.router(options)).await;
    let metadata = "/.well-known/oauth-protected-resource/mcp";
    for (path, method, status) in [
        (metadata, "GET", 200),
        ("/.well-known/oauth-protected-resource", "GET", 200),
        (metadata, "POST", 405),
        ("/.well-known/oauth-protected-resource/other", "GET", 404),
        ("/mcp", "POST", 401),
    ] {
        let body = (method == "POST").then(|| initialize_request("2025-11-25").to_string());
        let ours = seen(server.send_at(path, method, &[], body.as_deref()).await).await;
        let theirs = seen(routed.send_at(path, method, &[], body.as_deref()).await).await;
        assert_eq!(ours.0, status, "{method} {path}: {ours:?}");
        assert_eq!(ours, theirs, "{method} {path}");
    }
}

/// Shutdown is graceful: a request in flight, over HTTP/1.1 or HTTP/2, is answered, and then
/// `serve_http` returns.
#[tokio::test]
async fn shutdown_lets_requests_in_flight_finish() {
    let server = TestServer::start(HttpOptions::default()).await;
    let gated = |gate: usize| {
        let uri = format!("test://gate/{gate}");
        let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
            "params": {"uri": uri, "_meta": modern_meta()}});
        (uri, read)
    };
    let (uri_1, read_1) = gated(2);
    let headers_1 = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/read"),
        ("mcp-name", uri_1.as_str()),
    ];
    let mut http1 = Box::pin(server.post(&headers_1, &read_1));
    let (uri_2, read_2) = gated(3);
    let headers_2 = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "resources/read"),
        ("mcp-name", uri_2.as_str()),
    ];
    let mut client = Http2Client::connect(&server).await;
    let mut http2 = Box::pin(client.send("POST", &headers_2, Some(&read_2)));
    // Both wait at their gates.
    let waiting = tokio::time::timeout(Duration::from_millis(300), async {
        tokio::join!(&mut http1, &mut http2)
    });
    assert!(waiting.await.is_err(), "a gated read was answered");
    server.server.shutdown();
    GATES[2].notify_one();
    GATES[3].notify_one();
    let text = |answer: &Answer| answer.json["result"]["contents"][0]["text"].clone();
    let answer = bounded(http1).await;
    assert_eq!(
        (answer.status, text(&answer)),
        (200, json!("through the gate"))
    );
    let answer = Answer::read(bounded(http2).await.unwrap()).await;
    assert_eq!(
        (answer.status, text(&answer)),
        (200, json!("through the gate"))
    );
    let mut server = server;
    let stopped = bounded(&mut server.task).await.unwrap();
    assert!(stopped.is_ok(), "{stopped:?}");
}

/// Paths the configuration names (the endpoint's, the metadata document's from the resource
/// URL) are served at exactly that path, whatever characters axum's routes give a meaning to:
/// a brace is no capture, a `:` or `*` segment no refusal at start.
#[tokio::test]
async fn configured_paths_are_literal_routes() {
    use mcp_resources_server::auth::{Authorization, JwtVerifier};
    for (resource, endpoint) in [
        ("https://files.example.com/{tenant}/mcp", "/{tenant}/mcp"),
        ("https://files.example.com/:tenant/mcp", "/:tenant/mcp"),
        ("https://files.example.com/*/mcp", "/*/mcp"),
    ] {
        let verifier = JwtVerifier::new(resource, vec![ISSUER.to_owned()])
            .with_hmac_secret(SECRET)
            .unwrap();
        let authorization = Authorization::new(
            resource,
            vec![ISSUER.to_owned()],
            std::sync::Arc::new(verifier),
        )
        .unwrap();
        let server = TestServer::start(HttpOptions {
            path: endpoint.to_owned(),
            authorization: Some(authorization),
            ..HttpOptions::default()
        })
        .await;
        let document = format!("/.well-known/oauth-protected-resource{endpoint}");
        let answer = Answer::read(server.send_at(&document, "GET", &[], None).await).await;
        assert_eq!(answer.status, 200, "{document}");
        assert_eq!(answer.json["resource"], resource);
        let other = "/.well-known/oauth-protected-resource/other/mcp";
        assert_eq!(
            server.send_at(other, "GET", &[], None).await.status(),
            404,
            "{resource}"
        );
        // The endpoint is there (asking for a token), and only there.
        assert_eq!(
            server.send_at(endpoint, "GET", &[], None).await.status(),
            401,
            "{endpoint}"
        );
        assert_eq!(
            server
                .send_at("/other/mcp", "GET", &[], None)
                .await
                .status(),
            404
        );
    }
}
