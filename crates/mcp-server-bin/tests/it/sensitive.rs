//! Sensitive resources end to end: a `[[sensitive]]` file the user must confirm, read by
//! clients of both eras over stdio and Streamable HTTP (yes serves it, no and a replayed state
//! never do, a client without elicitation gets a clear error), the audit log's lines parsed,
//! and an audit log that cannot be written refusing the reads it would record.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::time::Duration;

use serde_json::{Value, json};

use crate::bypass::{legacy_without_elicitation as legacy, spawn};
use crate::http::HttpServer;
use crate::stdio::with_meta;

const SALARY: &str = "alice,120000";

/// A served tree (`hr/salaries.csv` confirmed, `pay/runs.txt` audited, `readme.txt` neither)
/// and the configuration naming them, with the audit log `log`.
fn tree(log: &str) -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("hr")).unwrap();
    std::fs::create_dir_all(root.join("pay")).unwrap();
    std::fs::write(
        root.join("hr/salaries.csv"),
        format!("name,salary\n{SALARY}\nbob.smith@example.com,90000\n"),
    )
    .unwrap();
    std::fs::write(root.join("pay/runs.txt"), "march run").unwrap();
    std::fs::write(root.join("readme.txt"), "read me").unwrap();
    let config = format!(
        "audit_log = {log:?}\n\
         [[sensitive]]\nname = \"hr\"\nuris = [\"file://{root}/hr/**\"]\nconfirm = true\n\
         reason = \"Salaries.\"\n\
         [[sensitive]]\nname = \"pay\"\nuris = [\"file://{root}/pay/**\"]\n\
         [[redact]]\nname = \"emails\"\nkind = \"email\"\nmask = \"first:1\"\n",
        root = root.display()
    );
    (dir, root, config)
}

fn file_uri(root: &Path, name: &str) -> String {
    format!("file://{}/{name}", root.display())
}

fn audit_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each audit line is one JSON object"))
        .collect()
}

#[test]
fn a_confirmed_read_in_both_eras_over_stdio_and_its_audit_log() {
    let (dir, root, config) = tree("audit.jsonl");
    let log = dir.path().join("audit.jsonl");
    let mut server = spawn(dir.path(), &root, &config);
    let salaries = file_uri(&root, "hr/salaries.csv");

    // Legacy, with elicitation: the server asks, the client says yes.
    let init = server.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": salaries}}),
    );
    let ask = server.notification("elicitation/create");
    assert!(
        ask["params"]["message"]
            .as_str()
            .unwrap()
            .contains("Salaries.")
    );
    server.send(&json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"confirm": true}}}));
    let served = server.response(&json!(2));
    let text = served["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains(SALARY) && text.contains("b****") && !text.contains("bob.smith"));

    // A range of it asks too, and a no refuses it.
    server.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
        "params": {"uri": format!("{salaries}?offset=12&length=12")}}),
    );
    let ask = server.notification("elicitation/create");
    server.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    let refused = server.response(&json!(3));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // Modern: an input-required result, then the retry with the answer and the state.
    let first = server.request(
        json!(4),
        "resources/read",
        with_elicitation(json!({"uri": salaries})),
    );
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let retry = with_elicitation(json!({"uri": salaries, "inputResponses": yes,
        "requestState": state}));
    let served = server.request(json!(5), "resources/read", retry.clone());
    assert_eq!(served["result"]["resultType"], "complete", "{served}");
    assert!(
        served["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains(SALARY)
    );
    let replayed = server.request(json!(6), "resources/read", retry);
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    // Without elicitation: -32021.
    let refused = server.request(
        json!(7),
        "resources/read",
        with_meta(json!({"uri": salaries})),
    );
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // Audited only, and not sensitive at all.
    let pay = server.request(
        json!(8),
        "resources/read",
        json!({"uri": file_uri(&root, "pay/runs.txt")}),
    );
    assert_eq!(pay["result"]["contents"][0]["text"], "march run");
    let listed = server.request(json!(9), "resources/list", json!({}));
    assert!(listed["result"]["resources"].as_array().unwrap().len() >= 3);
    server.request(
        json!(10),
        "resources/read",
        json!({"uri": file_uri(&root, "readme.txt")}),
    );
    let subscribed = server.request(
        json!(11),
        "resources/subscribe",
        json!({"uri": file_uri(&root, "pay/runs.txt")}),
    );
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    server.close_stdin();
    assert!(server.wait_exit().success());

    let lines = audit_lines(&log);
    let seen = |action: &str, uri: &str, outcome: &str| {
        lines.iter().any(|line| {
            line["action"] == action && line["uri"] == uri && line["outcome"] == outcome
        })
    };
    let pay = file_uri(&root, "pay/runs.txt");
    assert!(seen("read", &salaries, "confirmation-asked"), "{lines:#?}");
    assert!(seen("read", &salaries, "served"));
    assert!(lines.iter().any(|line| {
        line["uri"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{salaries}?offset="))
            && line["outcome"] == "declined"
    }));
    assert!(seen("read", &salaries, "invalid-confirmation"));
    assert!(seen("read", &pay, "served"));
    assert!(seen("list", &pay, "served"));
    assert!(seen("list", &salaries, "served"));
    assert!(seen("subscribe", &pay, "served"));
    assert!(
        lines
            .iter()
            .all(|line| !line["uri"].as_str().unwrap().ends_with("readme.txt"))
    );
    let served = lines
        .iter()
        .find(|line| line["uri"] == salaries.as_str() && line["outcome"] == "served")
        .unwrap();
    assert_eq!(served["masked"]["emails"], 1, "{served}");
    assert_eq!(served["subject"], Value::Null);
    assert!(served["time"].as_str().unwrap().ends_with('Z'));
    assert!(served["bytes"].as_u64().unwrap() > 20);
    let all = std::fs::read_to_string(&log).unwrap();
    assert!(
        !all.contains(SALARY) && !all.contains("bob.smith"),
        "no contents in the log"
    );
}

/// `params` with the modern `_meta`, declaring elicitation.
fn with_elicitation(params: Value) -> Value {
    let mut params = with_meta(params);
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    params
}

#[test]
fn a_legacy_client_without_elicitation_and_a_broken_audit_log_are_refused() {
    let (dir, root, config) = tree("-");
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let refused = server.request(
        json!(2),
        "resources/read",
        json!({"uri": file_uri(&root, "hr/salaries.csv")}),
    );
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("elicitation")
    );
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
    drop(server);

    // /dev/full takes no line: the audited read fails, the others are served.
    let (dir, root, config) = tree("/dev/full");
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let failed = server.request(
        json!(3),
        "resources/read",
        json!({"uri": file_uri(&root, "pay/runs.txt")}),
    );
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("audit log")
    );
    let readme = server.request(
        json!(4),
        "resources/read",
        json!({"uri": file_uri(&root, "readme.txt")}),
    );
    assert_eq!(readme["result"]["contents"][0]["text"], "read me");
    let listed = server.request(json!(5), "resources/list", json!({}));
    assert_eq!(
        listed["error"]["code"], -32603,
        "a page with audited resources: {listed}"
    );
    let transcript = format!("{:?}", server.unclaimed_after(Duration::from_millis(10)));
    assert!(!transcript.contains("march run"), "{transcript}");
}

/// A legacy session's GET stream over raw HTTP: its `data:` messages, as they come.
fn get_stream(port: u16, session: &str) -> std::sync::mpsc::Receiver<Value> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\naccept: text/event-stream\r\n\
         mcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n"
    )
    .unwrap();
    let (sender, messages) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if let Some(data) = line.strip_prefix("data:")
                && let Ok(message) = serde_json::from_str(data.trim())
                && sender.send(message).is_err()
            {
                return;
            }
        }
    });
    messages
}

#[test]
fn a_confirmed_read_in_both_eras_over_http() {
    let (dir, root, config) = tree("audit.jsonl");
    let server = HttpServer::start_with(dir.path(), &config, &[root.as_os_str()]);
    let salaries = file_uri(&root, "hr/salaries.csv");

    // Modern.
    let modern = |id: u64, params: Value| {
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "resources/read"),
            ("mcp-name", salaries.as_str()),
        ];
        server.post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": params}),
        )
    };
    let (status, _, first) = modern(1, with_elicitation(json!({"uri": salaries})));
    assert_eq!(status, 200);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let retry = with_elicitation(json!({"uri": salaries, "inputResponses": yes,
        "requestState": first["result"]["requestState"]}));
    let (_, _, served) = modern(2, retry.clone());
    assert!(
        served["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains(SALARY)
    );
    let (_, _, replayed) = modern(3, retry);
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    let (status, _, refused) = modern(4, with_meta(json!({"uri": salaries})));
    assert_eq!((status, &refused["error"]["code"]), (400, &json!(-32021)));

    // Legacy: the elicitation comes on the session's GET stream; the yes is a POST.
    let (status, session, _) = server.post(
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}}),
    );
    assert_eq!(status, 200);
    let session = session.unwrap();
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    server.post(
        &headers,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let stream = get_stream(server.port, &session);
    std::thread::scope(|scope| {
        let read = scope.spawn(|| {
            server.post(
                &headers,
                &json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                    "params": {"uri": salaries}}),
            )
        });
        let ask = loop {
            let message = stream
                .recv_timeout(Duration::from_secs(20))
                .expect("the elicitation on the GET stream");
            if message["method"] == "elicitation/create" {
                break message;
            }
        };
        let (status, _, _) = server.post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": ask["id"],
                "result": {"action": "accept", "content": {"confirm": true}}}),
        );
        assert_eq!(status, 202);
        let (status, _, served) = read.join().unwrap();
        assert_eq!(status, 200);
        assert!(
            served["result"]["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains(SALARY),
            "{served}"
        );
    });
    let lines = audit_lines(&dir.path().join("audit.jsonl"));
    assert_eq!(
        lines
            .iter()
            .filter(|line| line["uri"] == salaries.as_str() && line["outcome"] == "served")
            .count(),
        2,
        "{lines:#?}"
    );
}
