//! End to end over real stdio: the `mcp-resources` binary spawned on a temporary directory,
//! spoken to by a legacy and a modern client on the same pipe at the same time.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The longest wait for any one expected message.
const WAIT: Duration = Duration::from_secs(10);

/// The spawned binary with a line reader on its stdout.
pub(crate) struct Spawned {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Messages received while waiting for another one.
    unclaimed: Vec<Value>,
    /// Every line received, for failure messages and leak checks.
    transcript: Vec<String>,
}

impl Spawned {
    fn start(root: &Path, extra: &[&str]) -> Spawned {
        let mut args: Vec<&std::ffi::OsStr> = extra.iter().map(std::ffi::OsStr::new).collect();
        args.push(root.as_os_str());
        Spawned::start_with(&args)
    }

    /// `mcp-resources serve ARGS`.
    pub(crate) fn start_with(args: &[&std::ffi::OsStr]) -> Spawned {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
            .arg("serve")
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Spawned {
            stdin: child.stdin.take(),
            child,
            lines,
            unclaimed: Vec::new(),
            transcript: Vec::new(),
        }
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("the server reads its stdin");
        stdin.flush().expect("the server reads its stdin");
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// The first message (received or waiting) that `wanted` accepts.
    pub(crate) fn expect(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(index) = self.unclaimed.iter().position(&wanted) {
            return self.unclaimed.remove(index);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let message: Value = serde_json::from_str(&line).unwrap_or_else(|error| {
                        panic!("stdout line is not JSON ({error}): {line}")
                    });
                    self.transcript.push(line);
                    if wanted(&message) {
                        return message;
                    }
                    self.unclaimed.push(message);
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => panic!(
                    "no {what} within {WAIT:?}; received:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    pub(crate) fn response(&mut self, id: &Value) -> Value {
        self.expect(&format!("response to {id}"), |message| {
            message.get("id") == Some(id) && message.get("method").is_none()
        })
    }

    pub(crate) fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(&id)
    }

    pub(crate) fn notification(&mut self, method: &str) -> Value {
        self.expect(method, |message| message["method"] == method)
    }

    /// Every message not yet claimed, after receiving for `wait`.
    pub(crate) fn unclaimed_after(&mut self, wait: Duration) -> &[Value] {
        let deadline = Instant::now() + wait;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            let message: Value = serde_json::from_str(&line).expect("stdout lines are JSON");
            self.transcript.push(line);
            self.unclaimed.push(message);
        }
        &self.unclaimed
    }

    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub(crate) fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited for") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {WAIT:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `params._meta` of a modern request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "modern-test", "version": "1"}
    })
}

pub(crate) fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

/// A served tree: five text files, one binary file, a secret, an ignored file.
fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = std::fs::canonicalize(dir.path()).expect("the directory is canonical");
    for index in 0..5 {
        std::fs::write(
            root.join(format!("note-{index}.txt")),
            format!("note {index}"),
        )
        .expect("write");
    }
    std::fs::write(root.join("data.bin"), [0_u8, 1, 2, 255]).expect("write");
    std::fs::write(root.join(".env"), "API_KEY=hunter2-top-secret").expect("write");
    std::fs::write(root.join(".gitignore"), "ignored.log\n").expect("write");
    std::fs::write(root.join("ignored.log"), "hunter2-ignored").expect("write");
    (dir, root)
}

fn uri(root: &Path, name: &str) -> String {
    format!("file://{}/{name}", root.display())
}

/// A legacy 2025-06-18 session, initialized; the `initialize` response.
pub(crate) fn initialize(server: &mut Spawned) -> Value {
    let result = server.request(
        json!(1),
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "legacy-test", "version": "1"}
        }),
    );
    assert_eq!(
        result["result"]["protocolVersion"], "2025-06-18",
        "{result}"
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    result
}

/// Every URI of a paged list, following `nextCursor`, and the number of pages.
fn list_all(server: &mut Spawned, first_id: i64, modern: bool) -> (Vec<String>, usize) {
    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        if modern {
            params = with_meta(params);
        }
        let response = server.request(json!(first_id + pages), "resources/list", params);
        let result = &response["result"];
        assert!(result.is_object(), "{response}");
        assert_eq!(result.get("resultType").is_some(), modern, "{response}");
        for resource in result["resources"].as_array().expect("resources") {
            uris.push(resource["uri"].as_str().expect("uri").to_owned());
        }
        pages += 1;
        match result.get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().expect("cursor").to_owned()),
            None => return (uris, pages as usize),
        }
        assert!(pages < 20, "the list never ends");
    }
}

#[test]
fn both_eras_list_and_read_on_one_process() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &["--page-size", "2"]);
    initialize(&mut server);

    // A modern client talks on the same pipe, statelessly, beside the legacy session.
    let discover = server.request(json!("d"), "server/discover", with_meta(json!({})));
    let versions = &discover["result"]["supportedVersions"];
    assert_eq!(versions[0], "2026-07-28", "{discover}");
    assert!(versions.as_array().unwrap().contains(&json!("2025-06-18")));

    let mut expected: Vec<String> = (0..5)
        .map(|i| uri(&root, &format!("note-{i}.txt")))
        .collect();
    expected.push(uri(&root, "data.bin"));
    expected.push(uri(&root, ".gitignore"));
    expected.sort();
    for modern in [false, true] {
        let (mut uris, pages) = list_all(&mut server, if modern { 100 } else { 200 }, modern);
        uris.sort();
        assert_eq!(uris, expected, "modern: {modern}");
        assert_eq!(pages, 4, "7 resources at 2 per page, modern: {modern}");
    }

    // Text and binary reads, in both eras.
    let text_uri = uri(&root, "note-3.txt");
    let legacy = server.request(json!(10), "resources/read", json!({"uri": text_uri}));
    assert_eq!(
        legacy["result"]["contents"][0]["text"], "note 3",
        "{legacy}"
    );
    let modern = server.request(
        json!(11),
        "resources/read",
        with_meta(json!({"uri": text_uri})),
    );
    assert_eq!(
        modern["result"]["contents"][0]["text"], "note 3",
        "{modern}"
    );
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    assert!(modern["result"]["ttlMs"].is_u64(), "{modern}");
    let binary_uri = uri(&root, "data.bin");
    let legacy = server.request(json!(12), "resources/read", json!({"uri": binary_uri}));
    assert_eq!(
        legacy["result"]["contents"][0]["blob"], "AAEC/w==",
        "{legacy}"
    );
    let modern = server.request(
        json!(13),
        "resources/read",
        with_meta(json!({"uri": binary_uri})),
    );
    assert_eq!(
        modern["result"]["contents"][0]["blob"], "AAEC/w==",
        "{modern}"
    );

    // A request without `_meta` beside the legacy session is the session's: no resultType.
    let legacy = server.request(json!(14), "resources/read", json!({"uri": text_uri}));
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");

    server.close_stdin();
    assert!(server.wait_exit().success());
}

/// Every child URI of `directory`, page by page, and whether each is a directory.
fn read_directory(
    server: &mut Spawned,
    first_id: i64,
    modern: bool,
    directory: &str,
) -> Vec<(String, bool)> {
    let mut children = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0..20 {
        let mut params = json!({"uri": directory});
        if let Some(cursor) = &cursor {
            params["cursor"] = json!(cursor);
        }
        if modern {
            params = with_meta(params);
        }
        let id = json!(first_id + page);
        let response = server.request(id, "resources/directory/read", params);
        let result = &response["result"];
        assert_eq!(result.get("resultType").is_some(), modern, "{response}");
        for child in result["resources"].as_array().expect("resources") {
            let uri = child["uri"].as_str().expect("uri").to_owned();
            children.push((uri, child["mimeType"] == "inode/directory"));
        }
        match result.get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().expect("cursor").to_owned()),
            None => return children,
        }
    }
    panic!("the directory read never ends");
}

#[test]
fn both_eras_walk_directories_and_find_the_listed_files() {
    let (_dir, root) = tree();
    std::fs::create_dir_all(root.join("docs/api")).expect("mkdir");
    std::fs::write(root.join("docs/api/index.md"), "api").expect("write");
    std::fs::write(root.join("docs/guide.md"), "guide").expect("write");
    let mut server = Spawned::start(&root, &["--page-size", "2"]);
    initialize(&mut server);
    let declared = server.request(json!("d"), "server/discover", with_meta(json!({})));
    assert_eq!(
        declared["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "{declared}"
    );
    let root_uri = format!("file://{}", root.display());
    for modern in [false, true] {
        let first = if modern { 1000 } else { 2000 };
        let (mut listed, _) = list_all(&mut server, first, modern);
        listed.sort();
        let mut walked = Vec::new();
        let mut pending = vec![root_uri.clone()];
        let mut id = first + 100;
        while let Some(directory) = pending.pop() {
            for (child, is_directory) in read_directory(&mut server, id, modern, &directory) {
                if is_directory {
                    pending.push(child);
                } else {
                    walked.push(child);
                }
            }
            id += 100;
        }
        walked.sort();
        assert_eq!(walked, listed, "modern: {modern}");
        // A file and a missing path are no directories: -32602 with the URI, in both eras.
        for not_one in [uri(&root, "note-1.txt"), uri(&root, "missing")] {
            let mut params = json!({"uri": not_one});
            if modern {
                params = with_meta(params);
            }
            let refused = server.request(json!(id), "resources/directory/read", params);
            assert_eq!(refused["error"]["code"], -32602, "{refused}");
            assert_eq!(refused["error"]["data"]["uri"], json!(not_one), "{refused}");
            id += 1;
        }
    }
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn skills_are_listed_fetched_and_read_in_both_eras() {
    let (_dir, root) = tree();
    let skills = tempfile::tempdir().expect("a temporary directory");
    let skill = skills.path().join("team/notes-helper");
    std::fs::create_dir_all(skill.join("scripts")).expect("mkdir");
    let text = "---\nname: notes-helper\ndescription: Summarises notes.\n---\n# Notes\n";
    std::fs::write(skill.join("SKILL.md"), text).expect("write");
    std::fs::write(skill.join("scripts/run.sh"), "echo notes\n").expect("write");
    std::fs::create_dir_all(skills.path().join("broken")).expect("mkdir");
    std::fs::write(skills.path().join("broken/SKILL.md"), "no frontmatter").expect("write");
    let skills_dir = skills.path().to_str().expect("a UTF-8 path").to_owned();
    let mut server = Spawned::start(&root, &["--skills", &skills_dir]);
    initialize(&mut server);
    let uri = "skill://team/notes-helper/SKILL.md";
    for modern in [false, true] {
        let params = |params: Value| if modern { with_meta(params) } else { params };
        let base = if modern { 100 } else { 200 };
        let listed = server.request(json!(base), "skills/list", params(json!({})));
        let entries = listed["result"]["skills"]
            .as_array()
            .expect("skills")
            .clone();
        assert_eq!(entries.len(), 1, "the broken one is skipped: {listed}");
        assert_eq!(entries[0]["uri"], uri);
        assert_eq!(entries[0]["frontmatter"]["name"], "notes-helper");
        let files = entries[0]["resources"].as_array().expect("a manifest");
        assert_eq!(files.len(), 2, "{listed}");
        assert!(
            files.iter().all(|file| file["digest"]
                .as_str()
                .is_some_and(|digest| digest.starts_with("sha256:") && digest.len() == 71)),
            "{listed}"
        );
        // Spelled otherwise, the skill comes back under the URI asked for.
        let spelled = "skill://team/notes-helper/%53KILL.md";
        let got = server.request(
            json!(base + 1),
            "skills/get",
            params(json!({"uri": spelled})),
        );
        assert_eq!(got["result"]["skill"]["uri"], spelled, "{got}");
        let read = server.request(
            json!(base + 2),
            "resources/read",
            params(json!({"uri": uri})),
        );
        assert_eq!(read["result"]["contents"][0]["text"], text, "{read}");
        assert_eq!(
            read["result"]["contents"][0]["mimeType"], "text/markdown",
            "{read}"
        );
        let unknown = server.request(
            json!(base + 3),
            "skills/get",
            params(json!({"uri": "skill://broken/SKILL.md"})),
        );
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    }
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn traversal_and_secrets_fail_without_leaking() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    initialize(&mut server);
    let attempts = [
        uri(&root, ".env"),
        uri(&root, "ignored.log"),
        uri(&root, "../etc/passwd"),
        uri(&root, "%2e%2e/%2e%2e/etc/passwd"),
        uri(&root, "sub%2F..%2F.env"),
        format!(
            "file://{}/../{}/.env",
            root.display(),
            root.file_name().unwrap().to_string_lossy()
        ),
        "file:///etc/passwd".to_owned(),
        uri(&root, ".env?offset=0&length=10"),
    ];
    let mut id = 100;
    for attempt in &attempts {
        for modern in [false, true] {
            id += 1;
            let params = json!({"uri": attempt});
            let params = if modern { with_meta(params) } else { params };
            let response = server.request(json!(id), "resources/read", params);
            assert!(
                response.get("error").is_some(),
                "{attempt} was read: {response}"
            );
            assert!(response.get("result").is_none(), "{response}");
        }
    }
    let leaked = server
        .transcript
        .iter()
        .any(|line| line.contains("hunter2") || line.contains("root:") || line.contains("API_KEY"));
    assert!(
        !leaked,
        "secret content leaked:\n{}",
        server.transcript.join("\n")
    );
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn malformed_lines_get_errors_and_serving_goes_on() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    server.send_line("{not json");
    let parse_error = server.expect("parse error", |message| message.get("error").is_some());
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    server.send_line(r#"{"jsonrpc":"2.0","id":5}"#);
    let invalid = server.expect("invalid request", |message| message.get("error").is_some());
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    // A request without `_meta` and without a legacy session: a malformed modern request.
    let bare = server.request(json!(6), "resources/list", json!({}));
    assert_eq!(bare["error"]["code"], -32602, "{bare}");
    // Still serving, both eras.
    let modern = server.request(json!(7), "resources/list", with_meta(json!({})));
    assert!(modern["result"]["resources"].is_array(), "{modern}");
    initialize(&mut server);
    server.send_line("[1,2");
    let parse_error = server.expect("parse error", |message| message.get("error").is_some());
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    // A line longer than the limit is refused without being kept, and serving goes on.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":99,"method":"{}"}}"#,
        "x".repeat(mcp_resources_server::MAX_LINE_BYTES)
    );
    server.send_line(&huge);
    let too_long = server.expect("too-long error", |message| message.get("error").is_some());
    assert_eq!(too_long["error"]["code"], -32600, "{too_long}");
    assert!(too_long.get("id").is_none(), "{too_long}");
    let legacy = server.request(json!(8), "ping", json!({}));
    assert!(legacy["result"].is_object(), "{legacy}");
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn subscribe_and_listen_get_notified_in_both_eras() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    initialize(&mut server);
    let watched = uri(&root, "note-1.txt");
    let subscribed = server.request(json!(2), "resources/subscribe", json!({"uri": watched}));
    assert!(subscribed["result"].is_object(), "{subscribed}");

    server.send(&json!({
        "jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {"resourcesListChanged": true}}))
    }));
    let ack = server.notification("notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    assert_eq!(
        ack["params"]["notifications"]["resourcesListChanged"], true,
        "{ack}"
    );

    // Modify a subscribed file: the legacy session is told.
    std::fs::write(root.join("note-1.txt"), "note 1, edited and longer").expect("write");
    let updated = server.notification("notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], watched, "{updated}");
    assert!(updated["params"].get("_meta").is_none(), "{updated}");

    // Create a file: the listen stream is told, tagged with its id.
    std::fs::write(root.join("new.txt"), "new").expect("write");
    let tagged = server.expect("tagged list_changed", |message| {
        message["method"] == "notifications/resources/list_changed"
            && message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"
    });
    assert!(tagged.get("id").is_none(), "{tagged}");

    // End of input: the listen stream is closed gracefully, then the server exits.
    server.close_stdin();
    let result = server.response(&json!("listen-1"));
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    let cancelled = server.notification("notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], "listen-1", "{cancelled}");
    assert!(server.wait_exit().success());
}

/// One 2026-07-28 request to a fresh `serve --page-size 1 --cursor-key-env KEY ROOT` whose
/// `KEY` holds `key`; its response.
fn ask_instance(root: &Path, key: &str, request: &Value) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
        .args([
            "serve",
            "--page-size",
            "1",
            "--cursor-key-env",
            "TEST_CURSOR_KEY",
        ])
        .arg(root)
        .env("TEST_CURSOR_KEY", key)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().expect("stdin");
    writeln!(input, "{request}").expect("the server reads");
    drop(input);
    let output = child
        .wait_with_output()
        .expect("the server ends at the end of its input");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .find(|message| message["id"] == request["id"])
        .expect("a response")
}

/// Instances given the same cursor key accept each other's cursors (any instance behind a load
/// balancer serves a list's next page); another key is refused as an invalid cursor.
#[test]
fn instances_sharing_a_cursor_key_accept_each_others_cursors() {
    let (_dir, root) = tree();
    let key = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let first = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list",
        "params": with_meta(json!({}))});
    let page = ask_instance(&root, key, &first);
    let cursor = page["result"]["nextCursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let next = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list",
        "params": with_meta(json!({"cursor": cursor}))});
    let other_instance = ask_instance(&root, key, &next);
    assert_eq!(
        other_instance["result"]["resources"]
            .as_array()
            .map(Vec::len),
        Some(1),
        "{other_instance}"
    );
    assert_ne!(
        other_instance["result"]["resources"],
        page["result"]["resources"]
    );
    let other_key = ask_instance(&root, &key.replace('0', "1"), &next);
    assert_eq!(other_key["error"]["code"], -32602, "{other_key}");
}

/// With nothing watched no change is ever heard: subscriptions are neither offered nor
/// accepted, in either era.
#[test]
fn without_watchers_no_subscription_is_offered() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &["--no-watch"]);
    let init = initialize(&mut server);
    assert_eq!(
        init["result"]["capabilities"]["resources"],
        json!({}),
        "{init}"
    );
    let subscribed = server.request(
        json!(2),
        "resources/subscribe",
        json!({"uri": uri(&root, "note-1.txt")}),
    );
    assert_eq!(subscribed["error"]["code"], -32601, "{subscribed}");
    server.send(&json!({
        "jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {
            "resourcesListChanged": true,
            "resourceSubscriptions": [uri(&root, "note-1.txt")],
        }}))
    }));
    let ack = server.notification("notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"], json!({}), "{ack}");
}

#[test]
fn cancelled_listen_stream_stops() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    server.send(&json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {"resourcesListChanged": true}}))
    }));
    server.notification("notifications/subscriptions/acknowledged");
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}
    }));
    let before = server.transcript.len();
    // After the cancellation, a change produces nothing on that stream; a later request is
    // still answered, and nothing about id 9 comes before it.
    std::fs::write(root.join("later.txt"), "later").expect("write");
    let answer = server.request(json!(10), "resources/list", with_meta(json!({})));
    assert!(answer["result"].is_object(), "{answer}");
    server.close_stdin();
    assert!(server.wait_exit().success());
    while let Ok(line) = server.lines.recv_timeout(Duration::from_millis(100)) {
        server.transcript.push(line);
    }
    let about_nine = server.transcript[before..]
        .iter()
        .filter(|line| line.contains(r#""id":9"#) || line.contains(r#""subscriptionId":9"#));
    let about_nine: Vec<&String> = about_nine.collect();
    assert!(
        about_nine.is_empty(),
        "messages after the cancellation: {about_nine:?}"
    );
}

#[cfg(unix)]
#[test]
fn sigterm_closes_listen_streams_then_exits() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    server.send(&json!({
        "jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {"resourcesListChanged": true}}))
    }));
    server.notification("notifications/subscriptions/acknowledged");
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(server.child.id().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success());
    let result = server.response(&json!("l"));
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    let cancelled = server.notification("notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], "l", "{cancelled}");
    assert!(server.wait_exit().success());
}

#[test]
fn pipelined_requests_of_both_eras_are_all_answered() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    initialize(&mut server);
    let mut lines = String::new();
    for index in 0..40 {
        let params = json!({"uri": uri(&root, &format!("note-{}.txt", index % 5))});
        let params = if index % 2 == 0 {
            with_meta(params)
        } else {
            params
        };
        let request = json!({"jsonrpc": "2.0", "id": 1000 + index, "method": "resources/read", "params": params});
        lines.push_str(&request.to_string());
        lines.push('\n');
    }
    // One write: the server sees a burst of lines and answers them in any order.
    server.send_line(lines.trim_end());
    for index in 0..40 {
        let response = server.response(&json!(1000 + index));
        let text = format!("note {}", index % 5);
        assert_eq!(
            response["result"]["contents"][0]["text"], text,
            "{response}"
        );
        assert_eq!(
            response["result"].get("resultType").is_some(),
            index % 2 == 0,
            "the era follows the request: {response}"
        );
    }
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn listen_streams_are_bounded_and_their_ids_unique() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    let listen = |id: Value| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": with_meta(json!({"notifications": {"resourcesListChanged": true}}))
        })
    };
    server.send(&listen(json!(9)));
    server.notification("notifications/subscriptions/acknowledged");
    // A second request with the id of one in flight would make the first one uncancellable.
    server.send(&listen(json!(9)));
    let refused = server.response(&json!(9));
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // One stream is open; the rest up to the limit are accepted, the next one is refused.
    for id in 1..mcp_resources_server::MAX_LISTEN_STREAMS {
        server.send(&listen(json!(format!("l{id}"))));
    }
    server.send(&listen(json!("over")));
    let over = server.response(&json!("over"));
    assert_eq!(over["error"]["code"], -32600, "{over}");
    // Cancelling the first stream makes room again.
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}
    }));
    server.send(&listen(json!("again")));
    server.expect(
        "the acknowledgment of the stream that fits again",
        |message| message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "again",
    );
}

#[test]
fn legacy_batches_are_bounded() {
    let (_dir, root) = tree();
    let mut server = Spawned::start(&root, &[]);
    let result = server.request(
        json!(0),
        "initialize",
        json!({
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "batch-test", "version": "1"}
        }),
    );
    assert_eq!(
        result["result"]["protocolVersion"], "2025-03-26",
        "{result}"
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let pings: Vec<Value> = (0..=mcp_resources_server::MAX_BATCH_MESSAGES)
        .map(|id| json!({"jsonrpc": "2.0", "id": id + 1, "method": "ping"}))
        .collect();
    server.send(&Value::Array(pings));
    let refused = server.expect("the refusal of a batch over the limit", |message| {
        message.is_array() || (message["error"].is_object() && message["id"].is_null())
    });
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // Serving goes on.
    let pong = server.request(json!("after"), "ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");
}

/// The lines of a legacy session reading every note, and a modern read after it.
fn scripted_session(root: &Path) -> String {
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "scripted", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for index in 0..5 {
        lines.push(
            json!({"jsonrpc": "2.0", "id": 10 + index, "method": "resources/read",
            "params": {"uri": uri(root, &format!("note-{index}.txt"))}}),
        );
    }
    lines.push(
        json!({"jsonrpc": "2.0", "id": 20, "method": "resources/read",
        "params": with_meta(json!({"uri": uri(root, "note-4.txt")}))}),
    );
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// Checks the replies to [`scripted_session`], in any order.
fn check_scripted_replies(output: &str) {
    let replies: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).expect("every output line is JSON"))
        .collect();
    assert_eq!(replies.len(), 7, "{output}");
    let reply = |id: i64| {
        replies
            .iter()
            .find(|reply| reply["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {output}"))
    };
    assert_eq!(reply(1)["result"]["protocolVersion"], "2025-11-25");
    for index in 0..5 {
        assert_eq!(
            reply(10 + index)["result"]["contents"][0]["text"],
            format!("note {index}"),
            "{output}"
        );
    }
    assert_eq!(reply(20)["result"]["resultType"], "complete", "{output}");
}

/// Stdin and stdout that are regular files (no pipe to register): served with blocking I/O.
#[test]
fn files_as_stdin_and_stdout_are_served() {
    let (dir, root) = tree();
    let input = dir.path().join("input.jsonl");
    let output = dir.path().join("output.jsonl");
    std::fs::write(&input, scripted_session(&root)).expect("write");
    let status = Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
        .args(["serve", "--no-watch"])
        .arg(&root)
        .env("RUST_LOG", "warn")
        .stdin(std::fs::File::open(&input).expect("open"))
        .stdout(std::fs::File::create(&output).expect("create"))
        .status()
        .expect("the binary runs");
    assert!(status.success());
    check_scripted_replies(&std::fs::read_to_string(&output).expect("read"));
}

/// Stdin and stdout on Unix sockets, as Node.js clients connect them: served, and the sockets
/// left in blocking mode afterwards for whoever shares them.
#[cfg(unix)]
#[test]
fn a_unix_socket_as_stdio_is_served_and_left_blocking() {
    use std::io::Read;
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;

    let (_dir, root) = tree();
    let (mut requests, server_input) = UnixStream::pair().expect("a socket pair");
    let (mut client, server_output) = UnixStream::pair().expect("a socket pair");
    let shared = server_output.try_clone().expect("a duplicate");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
        .args(["serve", "--no-watch"])
        .arg(&root)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::from(OwnedFd::from(server_input)))
        .stdout(Stdio::from(OwnedFd::from(server_output)))
        .spawn()
        .expect("the binary starts");
    requests
        .write_all(scripted_session(&root).as_bytes())
        .expect("the server reads");
    drop(requests);
    // `shared` keeps the server's output open after it exits: read until the replies are in.
    let mut output = String::new();
    let mut buffer = [0_u8; 4096];
    let deadline = Instant::now() + WAIT;
    client
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("a timeout");
    while output.lines().count() < 7 && Instant::now() < deadline {
        match client.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => output.push_str(std::str::from_utf8(&buffer[..read]).expect("UTF-8")),
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(error) => panic!("cannot read the replies: {error}"),
        }
    }
    assert!(child.wait().expect("the server exits").success());
    check_scripted_replies(&output);

    // Non-blocking mode belongs to the open socket, shared with `shared`: a read with nothing
    // to read (the client end is open and silent) must wait for its timeout, not fail at once.
    let timeout = Duration::from_millis(300);
    shared.set_read_timeout(Some(timeout)).expect("a timeout");
    let started = Instant::now();
    let mut shared = shared;
    let read = shared.read(&mut buffer);
    assert!(
        started.elapsed() >= timeout / 2,
        "the socket was left non-blocking: {read:?} after {:?}",
        started.elapsed()
    );
}

/// Credentials planted in ordinary files never reach a client of either era, whole or in
/// ranges that cut them; near-misses come back byte for byte; `--no-redact` serves the text as
/// it is.
#[test]
fn both_eras_read_files_with_their_credentials_masked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    let password = "Xk9#mQ2$vL7pW4zR";
    let near_miss =
        "see commit 9fceb02d0ae598e95dc970b74767f19372d61af8 and lorem ipsum dolor sit amet";
    let config = format!(
        "import os\nAWS_ACCESS_KEY_ID = \"{aws}\"\nheaders = {{\"Authorization\": \"Bearer {jwt}\"}}\n# {near_miss}\n"
    );
    std::fs::write(root.join("config.py"), &config).unwrap();
    std::fs::write(
        root.join("docker-compose.yml"),
        format!("services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: \"{password}\"\n"),
    )
    .unwrap();
    let secrets = [
        aws,
        &jwt[..20],
        &jwt[40..60],
        password,
        "OSFODNN7",
        "mQ2$vL7",
    ];
    let mut server = Spawned::start(&root, &[]);
    initialize(&mut server);
    let mut id = 500;
    for modern in [false, true] {
        let mut ask = |server: &mut Spawned, uri: String| {
            id += 1;
            let params = json!({"uri": uri});
            let params = if modern { with_meta(params) } else { params };
            server.request(json!(id), "resources/read", params)
        };
        let whole = ask(&mut server, uri(&root, "config.py"));
        let text = whole["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(text.len(), config.len(), "{whole}");
        assert!(text.contains(near_miss), "{text}");
        // Ranges that start or end inside a secret.
        let at = config.find(jwt).unwrap();
        for (offset, length) in [
            (at + 5, 30),
            (at - 10, 20),
            (config.find(aws).unwrap() + 3, 6),
        ] {
            let part = ask(
                &mut server,
                format!(
                    "{}?offset={offset}&length={length}",
                    uri(&root, "config.py")
                ),
            );
            assert_eq!(
                part["result"]["contents"][0]["text"].as_str().unwrap(),
                &text[offset..offset + length],
                "{part}"
            );
        }
        ask(&mut server, uri(&root, "docker-compose.yml"));
    }
    let transcript = format!(
        "{:?}",
        server.unclaimed_after(std::time::Duration::from_millis(10))
    );
    let all = format!("{transcript} {:?}", server.transcript);
    for secret in secrets {
        assert!(!all.contains(secret), "{secret} leaked");
    }
    server.close_stdin();
    assert!(server.wait_exit().success());

    let mut open = Spawned::start(&root, &["--no-redact"]);
    initialize(&mut open);
    let whole = open.request(
        json!(1),
        "resources/read",
        json!({"uri": uri(&root, "config.py")}),
    );
    assert_eq!(whole["result"]["contents"][0]["text"], config);
    open.close_stdin();
    assert!(open.wait_exit().success());
}
