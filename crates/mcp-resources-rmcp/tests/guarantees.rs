//! The guarantees of our own adapters, held by the bridge too, each found broken once by a
//! hostile review: a legacy session's capabilities and version are its own, not a request's;
//! the server's own requests are bounded, and an error in answer refuses the read; sessions
//! sharing one `Resources` are told only of their own subscriptions; a listen stream is
//! acknowledged with what it gets; what is not offered is not served; skills by any spelling;
//! private results for a named principal. Driven by raw JSON lines, to send what rmcp's own
//! client never would.

use std::sync::Arc;
use std::time::Duration;

use mcp_resources_core::memory::MemoryProvider;
use mcp_resources_core::policy::{Principal, UriPattern};
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::sensitive::SensitiveRule;
use mcp_resources_core::service::Offer;
use mcp_resources_core::subscription::SubscriptionLimits;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_rmcp::{Resources, serve_resources};
use mcp_resources_server::Server;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// How long a test waits for a message that should come.
const WAIT: Duration = Duration::from_secs(5);
/// How long a test waits to be sure a message does not come.
const QUIET: Duration = Duration::from_millis(500);

#[derive(Clone)]
struct Handler {
    resources: Arc<Resources>,
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(self.resources.capabilities(ServerCapabilities::default()))
    }

    serve_resources!(resources);
}

/// `mem://a`, `mem://b` and `mem://secret` (which the user must confirm).
fn server(offer: Offer, limits: SubscriptionLimits) -> Server {
    let memory = MemoryProvider::new();
    for text in ["mem://a", "mem://b", "mem://secret"] {
        let uri = ResourceUri::parse(text).unwrap();
        let name = text.trim_start_matches("mem://");
        memory.insert(
            Resource::new(uri.clone(), name),
            vec![Contents::text(uri, format!("the text of {name}"))],
        );
    }
    Server::builder()
        .provider(Arc::new(memory))
        .offer(offer)
        .subscription_limits(limits)
        .sensitive(SensitiveRule {
            name: "secret".to_owned(),
            uris: vec![UriPattern::parse("mem://secret").unwrap()],
            confirm: true,
            reason: None,
        })
        .build()
        .unwrap()
}

fn plain() -> Server {
    server(Offer::default(), SubscriptionLimits::default())
}

/// A client writing and reading JSON lines by hand.
struct Raw {
    lines: BufReader<ReadHalf<DuplexStream>>,
    out: WriteHalf<DuplexStream>,
}

impl Raw {
    fn connect(resources: &Arc<Resources>) -> Raw {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let handler = Handler {
            resources: Arc::clone(resources),
        };
        tokio::spawn(async move {
            if let Ok(running) = handler.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let (lines, out) = tokio::io::split(client_end);
        Raw {
            lines: BufReader::new(lines),
            out,
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        self.out.write_all(&line).await.unwrap();
    }

    async fn next(&mut self, wait: Duration) -> Option<Value> {
        let mut line = String::new();
        match tokio::time::timeout(wait, self.lines.read_line(&mut line)).await {
            Ok(Ok(read)) if read > 0 => Some(serde_json::from_str(&line).unwrap()),
            _ => None,
        }
    }

    /// The response to `id`, skipping anything else.
    async fn response(&mut self, id: i64) -> Value {
        loop {
            let message = self.next(WAIT).await.expect("a response in time");
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        self.response(id).await
    }

    async fn initialize(&mut self, version: &str, capabilities: Value) {
        let params = initialize_params(version, capabilities, "1");
        let answer = self.request(0, "initialize", params).await;
        assert!(answer.get("result").is_some(), "{answer}");
        self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
    }
}

/// The params of an `initialize` from client version `client`.
fn initialize_params(version: &str, capabilities: Value, client: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": { "name": "raw", "version": client },
    })
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
    })
}

fn code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error: {answer}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sessions_capabilities_and_version_are_its_own() {
    let resources = Arc::new(Resources::new(plain()));
    // No elicitation declared at initialize: a request's _meta cannot add it.
    let mut raw = Raw::connect(&resources);
    raw.initialize("2025-06-18", json!({})).await;
    let params = json!({
        "uri": "mem://secret",
        "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} } },
    });
    assert_eq!(
        code(&raw.request(1, "resources/read", params).await),
        -32600
    );
    // A 2025-03-26 session cannot be asked, whatever version a request names.
    let mut old = Raw::connect(&resources);
    old.initialize("2025-03-26", json!({ "elicitation": {} }))
        .await;
    let params = json!({
        "uri": "mem://secret",
        "_meta": { "io.modelcontextprotocol/protocolVersion": "2025-06-18" },
    });
    assert_eq!(
        code(&old.request(1, "resources/read", params).await),
        -32600
    );
    // Nor can a session's read carry the modern era's answers.
    let mut other = Raw::connect(&resources);
    other.initialize("2025-06-18", json!({})).await;
    let params = json!({
        "uri": "mem://secret",
        "inputResponses": { "confirm": { "action": "accept", "content": { "confirm": true } } },
        "requestState": "forged",
    });
    assert_eq!(
        code(&other.request(1, "resources/read", params).await),
        -32600
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_request_is_served_in_the_era_rmcp_serves_it_in() {
    let resources = Arc::new(Resources::new(plain()));
    // No session, a legacy version named: that version's codes, and no one to ask.
    let mut raw = Raw::connect(&resources);
    let mut meta = modern_meta(json!({ "elicitation": {} }));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2025-06-18");
    let missing = json!({ "uri": "mem://nothing", "_meta": meta.clone() });
    assert_eq!(
        code(&raw.request(1, "resources/read", missing).await),
        -32002
    );
    let secret = json!({ "uri": "mem://secret", "_meta": meta });
    assert_eq!(
        code(&raw.request(2, "resources/read", secret).await),
        -32600
    );
    // A legacy session's request naming 2026-07-28 is a 2026 request: it needs no session.
    let mut session = Raw::connect(&resources);
    session.initialize("2025-06-18", json!({})).await;
    let params =
        json!({ "uri": "mem://secret", "_meta": modern_meta(json!({ "elicitation": {} })) });
    let asked = session.request(1, "resources/read", params).await;
    assert_eq!(
        asked["result"]["resultType"],
        json!("input_required"),
        "{asked}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_initialize_changes_nothing() {
    let server = plain();
    let resources = Arc::new(Resources::new(server.clone()));
    let first = initialize_params("2025-06-18", json!({}), "1");
    let second = initialize_params("2025-11-25", json!({ "elicitation": {} }), "2");
    // Before notifications/initialized, and racing it, many times.
    for racing in [false, true, true, true, true, true, true, true, true, true] {
        let mut raw = Raw::connect(&resources);
        assert!(
            raw.request(0, "initialize", first.clone())
                .await
                .get("result")
                .is_some()
        );
        if racing {
            raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
                .await;
        }
        let again = raw.request(1, "initialize", second.clone()).await;
        assert_eq!(
            again["result"]["protocolVersion"],
            json!("2025-06-18"),
            "{again}"
        );
        // The session is the one it was: elicitation was not added.
        let secret = raw
            .request(2, "resources/read", json!({ "uri": "mem://secret" }))
            .await;
        assert_eq!(code(&secret), -32600, "{secret}");
    }
    // After the session started, with a subscription: it holds.
    let mut raw = Raw::connect(&resources);
    raw.initialize("2025-06-18", json!({})).await;
    let subscribed = raw
        .request(1, "resources/subscribe", json!({ "uri": "mem://a" }))
        .await;
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    assert!(
        raw.request(2, "initialize", second)
            .await
            .get("result")
            .is_some()
    );
    server.resource_updated("mem://a");
    let told = raw.next(WAIT).await.expect("the subscription holds");
    assert_eq!(told["params"]["uri"], json!("mem://a"), "{told}");
}

/// rmcp's stateless Streamable HTTP serves each request on a peer of its own with params it
/// makes up: a first initialize there is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_connections_initialize_is_answered() {
    use rmcp::model::{
        ClientCapabilities, Implementation, InitializeRequestParams, ProtocolVersion,
    };

    let resources = Arc::new(Resources::new(plain()));
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let handler = Handler { resources };
    let made_up =
        InitializeRequestParams::new(ClientCapabilities::default(), Implementation::default())
            .with_protocol_version(ProtocolVersion::V_2025_06_18);
    tokio::spawn(async move {
        let running = rmcp::service::serve_directly(handler, server_end, Some(made_up));
        let _ = running.waiting().await;
    });
    let (lines, out) = tokio::io::split(client_end);
    let mut raw = Raw {
        lines: BufReader::new(lines),
        out,
    };
    let params = initialize_params("2025-06-18", json!({}), "1");
    let answer = raw.request(0, "initialize", params).await;
    assert_eq!(
        answer["result"]["protocolVersion"],
        json!("2025-06-18"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uri_asked_twice_is_listened_to_once() {
    let server = plain();
    let resources = Arc::new(Resources::new(server.clone()));
    let mut raw = Raw::connect(&resources);
    raw.send(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})),
        "notifications": { "resourceSubscriptions": ["mem://a", "mem://a"] },
    } }),
    )
    .await;
    let acknowledged = raw.next(WAIT).await.expect("an acknowledgment");
    assert!(acknowledged.get("error").is_none(), "{acknowledged}");
    let mut told = None;
    for _ in 0..20 {
        server.resource_updated("mem://a");
        told = raw.next(QUIET / 2).await;
        if told.is_some() {
            break;
        }
    }
    let told = told.expect("mem://a is told");
    assert_eq!(
        told["params"]["uri"],
        json!("mem://a"),
        "the stream lives: {told}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sessions_reads_waiting_for_the_client_are_bounded() {
    let resources = Arc::new(Resources::new(plain()));
    let mut raw = Raw::connect(&resources);
    raw.initialize("2025-06-18", json!({ "elicitation": {} }))
        .await;
    for id in 1..=17 {
        let params = json!({ "jsonrpc": "2.0", "id": id, "method": "resources/read",
            "params": { "uri": "mem://secret" } });
        raw.send(params).await;
    }
    let (mut asked, mut refused) = (0, 0);
    while let Some(message) = raw.next(QUIET * 2).await {
        if message["method"] == json!("elicitation/create") {
            asked += 1;
        } else if message.get("error").is_some() {
            refused += 1;
        }
    }
    assert_eq!((asked, refused), (16, 1));
}

/// A session of `version` whose client declared elicitation, reading `mem://secret` as
/// request 1; the server's `elicitation/create`.
async fn asked_to_confirm(version: &str) -> (Raw, Value) {
    let mut raw = Raw::connect(&Arc::new(Resources::new(plain())));
    raw.initialize(version, json!({ "elicitation": {} })).await;
    let read = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": { "uri": "mem://secret" } });
    raw.send(read).await;
    let asked = raw.next(WAIT).await.expect("the server asks");
    assert_eq!(asked["method"], json!("elicitation/create"), "{asked}");
    (raw, asked)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_in_answer_to_the_confirmation_refuses_the_read() {
    let (mut raw, asked) = asked_to_confirm("2025-11-25").await;
    assert_eq!(
        asked["params"]["mode"],
        json!("form"),
        "2025-11-25 has modes"
    );
    raw.send(json!({ "jsonrpc": "2.0", "id": asked["id"].clone(),
        "error": { "code": -32603, "message": "no user here" } }))
        .await;
    let answer = raw.response(1).await;
    assert_eq!(code(&answer), -32602, "not confirmed: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_read_cancels_its_question() {
    let (mut raw, asked) = asked_to_confirm("2025-11-25").await;
    raw.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 1, "reason": "changed my mind" } }),
    )
    .await;
    let cancelled = raw.next(WAIT).await.expect("the question is withdrawn");
    assert_eq!(
        cancelled["method"],
        json!("notifications/cancelled"),
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], asked["id"], "{cancelled}");
    // A late answer serves nothing.
    raw.send(json!({ "jsonrpc": "2.0", "id": asked["id"].clone(),
        "result": { "action": "accept", "content": { "confirm": true } } }))
        .await;
    assert_eq!(raw.next(QUIET).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_06_18_elicitation_has_no_mode() {
    let (_raw, asked) = asked_to_confirm("2025-06-18").await;
    assert!(asked["params"].get("mode").is_none(), "{asked}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_sharing_resources_are_told_only_of_their_own_subscriptions() {
    let server = plain();
    let resources = Arc::new(Resources::new(server.clone()));
    let mut first = Raw::connect(&resources);
    first.initialize("2025-06-18", json!({})).await;
    let mut second = Raw::connect(&resources);
    second.initialize("2025-06-18", json!({})).await;
    let subscribed = second
        .request(1, "resources/subscribe", json!({ "uri": "mem://b" }))
        .await;
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    server.resource_updated("mem://b");
    let told = second.next(WAIT).await.expect("the subscriber is told");
    assert_eq!(
        told["method"],
        json!("notifications/resources/updated"),
        "{told}"
    );
    assert_eq!(told["params"]["uri"], json!("mem://b"));
    assert_eq!(
        first.next(QUIET).await,
        None,
        "the other session hears nothing"
    );
    // The first session leaves; the second keeps subscribing.
    drop(first);
    let again = second
        .request(2, "resources/subscribe", json!({ "uri": "mem://a" }))
        .await;
    assert!(again.get("result").is_some(), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_is_acknowledged_with_what_it_gets() {
    let limits = SubscriptionLimits {
        max_subscriptions_per_subscriber: 1,
    };
    let server = server(Offer::default(), limits);
    let resources = Arc::new(Resources::new(server.clone()));
    let mut raw = Raw::connect(&resources);
    raw.send(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})),
        "notifications": { "resourceSubscriptions": ["mem://a", "mem://b"] },
    } }),
    )
    .await;
    let acknowledged = raw.next(WAIT).await.expect("an acknowledgment");
    assert_eq!(
        acknowledged["params"]["notifications"]["resourceSubscriptions"],
        json!(["mem://a"]),
        "{acknowledged}"
    );
    // What it got, it hears of (the stream subscribes just after the acknowledgment).
    let mut told = None;
    for _ in 0..20 {
        server.resource_updated("mem://a");
        told = raw.next(QUIET / 2).await;
        if told.is_some() {
            break;
        }
    }
    let told = told.expect("mem://a is told");
    assert_eq!(told["params"]["uri"], json!("mem://a"), "{told}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_not_offered_is_not_served() {
    let offer = Offer {
        completions: false,
        subscribe: false,
        ..Offer::default()
    };
    let resources = Arc::new(Resources::new(server(offer, SubscriptionLimits::default())));
    let mut raw = Raw::connect(&resources);
    raw.initialize("2025-06-18", json!({})).await;
    let complete = json!({
        "ref": { "type": "ref/resource", "uri": "mem://{name}" },
        "argument": { "name": "name", "value": "" },
    });
    assert_eq!(
        code(&raw.request(1, "completion/complete", complete).await),
        -32601
    );
    let uri = json!({ "uri": "mem://a" });
    assert_eq!(
        code(&raw.request(2, "resources/subscribe", uri.clone()).await),
        -32601
    );
    assert_eq!(
        code(&raw.request(3, "resources/unsubscribe", uri).await),
        -32601
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_principals_results_are_private() {
    let resources = Resources::new(plain());
    let mut public = Raw::connect(&Arc::new(resources.clone()));
    let params = json!({ "_meta": modern_meta(json!({})) });
    let listed = public.request(1, "resources/list", params.clone()).await;
    assert_eq!(listed["result"]["cacheScope"], json!("public"), "{listed}");
    let alice = Arc::new(resources.with_principal(Principal::anonymous()));
    let mut private = Raw::connect(&alice);
    let listed = private.request(1, "resources/list", params).await;
    assert_eq!(listed["result"]["cacheScope"], json!("private"), "{listed}");
}
