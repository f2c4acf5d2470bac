//! The stdio loop in process (`Server::serve_lines` over in-memory bytes): reads taken in one
//! pass answered exactly as decoded ones, in both eras and with both eras on one connection,
//! and a request answered at once still refused when its id is in flight. Every wait is
//! bounded; nothing is timed.

use std::time::Duration;

use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::Server;
use serde_json::{Value, json};

/// How long serving all the lines may take before the test fails.
const WAIT: Duration = Duration::from_secs(10);

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A server with one static resource and a template whose reads take a little while.
fn server() -> Server {
    builder().build().unwrap()
}

/// The builder of [`server`].
fn builder() -> mcp_resources_server::ServerBuilder {
    let text = ResourceUri::parse("test://static-text").unwrap();
    Server::builder()
        .server_info("lines-test", "1.0.0")
        .static_resource(
            Resource::new(text.clone(), "static-text").with_mime_type("text/plain"),
            vec![Contents::text(text, "hello over stdio").with_mime_type("text/plain")],
        )
        .template_fn(
            ResourceTemplate::new(UriTemplate::parse("test://slow/{n}").unwrap(), "slow"),
            |uri, _| {
                let contents = Contents::text(uri.clone(), "slowly");
                async move {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Ok(vec![contents])
                }
            },
        )
}

/// Serves `lines` to the end of the input; returns every line written.
async fn serve(lines: &[String]) -> Vec<String> {
    let input = lines
        .iter()
        .map(|line| format!("{line}\n"))
        .collect::<String>();
    let mut output = Vec::new();
    tokio::time::timeout(WAIT, server().serve_lines(input.as_bytes(), &mut output))
        .await
        .expect("served within the bound")
        .expect("no i/o error");
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn modern_read(id: i64, uri: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"{uri}",{META}}}}}"#
    )
}

fn legacy_read(id: i64, uri: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"{uri}"}}}}"#)
}

fn initialize() -> [String; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}
        }})
        .to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
    ]
}

/// A request line from its id and URI.
type Line = fn(i64, &str) -> String;

/// Each request, then the same request with a leading space (which is decoded first) and its
/// id plus 100 (the first may still be in flight).
fn in_pairs(requests: &[(Line, i64, &str)]) -> Vec<String> {
    requests
        .iter()
        .flat_map(|(make, id, uri)| [make(*id, uri), format!(" {}", make(id + 100, uri))])
        .collect()
}

/// The answers to [`in_pairs`] come in pairs that differ in their id only.
fn assert_pairs_alike(answers: &[String]) {
    assert!(answers.len() % 2 == 0, "{answers:#?}");
    let mut by_id: Vec<(i64, Value)> = answers
        .iter()
        .map(|answer| {
            let mut value: Value = serde_json::from_str(answer).unwrap();
            let id = value["id"].as_i64().expect("an integer id");
            value.as_object_mut().unwrap().remove("id");
            (id, value)
        })
        .collect();
    by_id.sort_by_key(|(id, _)| *id);
    let (usual, spaced) = by_id.split_at(answers.len() / 2);
    for ((id, quick), (spaced_id, decoded)) in usual.iter().zip(spaced) {
        assert_eq!(id + 100, *spaced_id);
        assert_eq!(quick, decoded, "id {id}");
    }
}

#[tokio::test]
async fn modern_reads_in_one_pass_are_answered_as_decoded_ones() {
    let lines = in_pairs(&[
        (modern_read, 1, "test://static-text"),
        (modern_read, 2, "test://missing"),
        (modern_read, 3, "not a uri"),
        (modern_read, 4, "test://slow/1"),
    ]);
    let answers = serve(&lines).await;
    assert_pairs_alike(&answers);
    let first: Value = serde_json::from_str(&answers[0]).unwrap();
    assert_eq!(first["id"], 1);
    assert_eq!(first["result"]["contents"][0]["text"], "hello over stdio");
    assert_eq!(first["result"]["resultType"], "complete");
}

#[tokio::test]
async fn legacy_reads_in_one_pass_are_answered_as_decoded_ones_beside_modern_ones() {
    let mut lines = initialize().to_vec();
    lines.extend(in_pairs(&[
        (legacy_read, 1, "test://static-text"),
        (legacy_read, 2, "test://missing"),
        (legacy_read, 3, "test://slow/2"),
        // A modern read on the same connection, decoded and routed by its `_meta`.
        (modern_read, 4, "test://static-text"),
    ]));
    let answers = serve(&lines).await;
    let (handshake, reads) = answers.split_first().unwrap();
    assert!(
        handshake.contains(r#""protocolVersion":"2025-11-25""#),
        "{handshake}"
    );
    assert_pairs_alike(reads);
    let answer = |id: i64| -> Value {
        reads
            .iter()
            .map(|read| serde_json::from_str::<Value>(read).unwrap())
            .find(|read| read["id"] == id)
            .unwrap()
    };
    let legacy = answer(1);
    assert_eq!(legacy["result"]["contents"][0]["text"], "hello over stdio");
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
    assert_eq!(answer(4)["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_read_answered_at_once_is_refused_while_its_id_is_in_flight() {
    let answers = serve(&[
        modern_read(7, "test://slow/3"),
        modern_read(7, "test://static-text"),
    ])
    .await;
    assert_eq!(answers.len(), 2, "{answers:#?}");
    let refusal: Value = serde_json::from_str(&answers[0]).unwrap();
    assert_eq!(refusal["id"], 7);
    assert_eq!(refusal["error"]["code"], -32600, "{refusal}");
    let slow: Value = serde_json::from_str(&answers[1]).unwrap();
    assert_eq!(slow["result"]["contents"][0]["text"], "slowly", "{slow}");
}

/// A read that asks for progress, read in one pass (and answered at once) or decoded (the
/// same line with a leading space): its final progress notification comes just before its
/// response, the same both ways, in both eras.
#[tokio::test]
async fn a_read_asking_for_progress_has_its_notification_just_before_its_response() {
    let modern = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"test://static-text","_meta":{{"progressToken":{id},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let legacy = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"test://static-text","_meta":{{"progressToken":{id}}}}}}}"#
        )
    };
    let modern_lines = [modern(1), format!(" {}", modern(2))];
    let mut legacy_lines = initialize().to_vec();
    legacy_lines.extend([legacy(1), format!(" {}", legacy(2))]);
    for (lines, skip) in [(&modern_lines[..], 0), (&legacy_lines[..], 1)] {
        let answers = serve(lines).await;
        let messages: Vec<Value> = answers[skip..]
            .iter()
            .map(|answer| serde_json::from_str(answer).unwrap())
            .collect();
        assert_eq!(messages.len(), 4, "{answers:#?}");
        for (pair, id) in messages.chunks(2).zip([1, 2]) {
            let (progress, response) = (&pair[0], &pair[1]);
            assert_eq!(progress["method"], "notifications/progress", "{progress}");
            assert_eq!(progress["params"]["progressToken"], id);
            assert_eq!(progress["params"]["progress"], 1);
            assert_eq!(response["id"], id);
            assert_eq!(
                response["result"]["contents"][0]["text"],
                "hello over stdio"
            );
        }
        let without_token = |mut value: Value| {
            value["params"]["progressToken"] = Value::Null;
            value
        };
        assert_eq!(
            without_token(messages[0].clone()),
            without_token(messages[2].clone())
        );
        assert_eq!(messages[1]["result"], messages[3]["result"]);
    }
}

/// Responses (to requests this server never made) and notifications, malformed or not (the
/// HTTP tests send them too).
pub(crate) const NEVER_ANSWERED: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    r#"{"jsonrpc":"2.0","id":3,"error":{"code":"bad"}}"#,
    r#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#,
    r#"{"jsonrpc":"2.0","result":{}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#,
    r#"{"jsonrpc":"2.0","method":7}"#,
];

#[tokio::test]
async fn responses_and_notifications_are_never_answered_in_either_era() {
    let ping = r#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#.to_owned();
    // Without a legacy session (the modern era's connection), then in one.
    let mut modern: Vec<String> = NEVER_ANSWERED
        .iter()
        .map(|line| (*line).to_owned())
        .collect();
    modern.push(modern_read(9, "test://static-text"));
    let answers = serve(&modern).await;
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert!(answers[0].contains(r#""id":9"#), "{answers:#?}");
    let mut legacy = initialize().to_vec();
    legacy.extend(NEVER_ANSWERED.iter().map(|line| (*line).to_owned()));
    legacy.push(ping);
    let answers = serve(&legacy).await;
    assert_eq!(answers.len(), 2, "{answers:#?}");
    assert_eq!(answers[1], r#"{"jsonrpc":"2.0","id":"last","result":{}}"#);
}

/// The `cacheScope` of every cacheable modern result, by method, that `server` gives on stdio:
/// discover, both lists, a static read (answered in one pass) and a template's (a query).
async fn cache_scopes(server: Server) -> Vec<(String, Value)> {
    let request = |id: i64, method: &str, extra: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{extra}{META}}}}}"#)
    };
    let lines = [
        request(1, "server/discover", ""),
        request(2, "resources/list", ""),
        request(3, "resources/templates/list", ""),
        modern_read(4, "test://static-text"),
        modern_read(5, "test://slow/1"),
    ];
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let mut output = Vec::new();
    tokio::time::timeout(WAIT, server.serve_lines(input.as_bytes(), &mut output))
        .await
        .expect("served within the bound")
        .expect("no i/o error");
    let mut answers: Vec<Value> = String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    answers.sort_by_key(|answer| answer["id"].as_i64());
    let methods = [
        "discover",
        "list",
        "templates",
        "static read",
        "template read",
    ];
    assert_eq!(answers.len(), methods.len(), "{answers:#?}");
    methods
        .iter()
        .zip(answers)
        .map(|(method, answer)| {
            assert!(answer.get("result").is_some(), "{method}: {answer}");
            ((*method).to_owned(), answer["result"]["cacheScope"].clone())
        })
        .collect()
}

/// Under a policy whose grants name subjects or scopes, who asks decides what is listed and
/// read: every cacheable result is private, so that no shared cache hands one principal's
/// answer to another. Without one, they are public.
#[tokio::test]
async fn results_are_private_when_the_policy_looks_at_the_principal() {
    use mcp_resources_core::policy::{ActionSet, Grantee, PatternPolicy, Principal, UriPattern};
    let everything = || UriPattern::parse("test://**").unwrap();
    for (grantee, principal) in [
        (
            Grantee::Subject("alice".to_owned()),
            Principal::subject("alice"),
        ),
        (
            Grantee::Scope("files:read".to_owned()),
            Principal::subject("bob").with_scope("files:read"),
        ),
    ] {
        let policy = PatternPolicy::new().grant(grantee, ActionSet::ALL, everything());
        let server = builder()
            .policy(std::sync::Arc::new(policy))
            .stdio_principal(principal)
            .build()
            .unwrap();
        for (method, scope) in cache_scopes(server).await {
            assert_eq!(scope, "private", "{method}");
        }
    }
    let open = PatternPolicy::new().grant(Grantee::Anyone, ActionSet::ALL, everything());
    let server = builder().policy(std::sync::Arc::new(open)).build().unwrap();
    for (method, scope) in cache_scopes(server).await {
        assert_eq!(scope, "public", "{method}");
    }
}
