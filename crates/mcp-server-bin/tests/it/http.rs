//! End to end over Streamable HTTP: the `mcp-resources` binary listening on a loopback port,
//! walked by directory reads in both eras — a legacy session and stateless 2026-07-28
//! requests — under grants, and a 10,000-entry directory paged while it changes.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// The binary serving over HTTP on a free loopback port; killed on drop.
pub(crate) struct HttpServer {
    child: Child,
    pub(crate) port: u16,
}

impl HttpServer {
    /// `mcp-resources serve --config FILE ROOT`, the file holding `http` and `config`.
    fn start(root: &Path, config: &str, extra: &[&str]) -> HttpServer {
        let mut args: Vec<&OsStr> = extra.iter().map(OsStr::new).collect();
        args.push(root.as_os_str());
        HttpServer::start_with(root.parent().expect("the root has a parent"), config, &args)
    }

    /// `mcp-resources serve --config FILE ARGS`, the file (written in `dir`) holding `http`
    /// and `config`.
    pub(crate) fn start_with(dir: &Path, config: &str, args: &[&OsStr]) -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let file = dir.join(format!("http-{port}.toml"));
        std::fs::write(&file, format!("http = \"127.0.0.1:{port}\"\n{config}")).expect("write");
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
            .args(["serve", "--config"])
            .arg(&file)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline || child.try_wait().ok().flatten().is_some() {
                let _ = child.kill();
                panic!("the server did not listen on {port}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        HttpServer { child, port }
    }

    /// POSTs `body` with `headers` on a fresh connection; the status, the `Mcp-Session-Id`
    /// header and the JSON answer (an SSE body's last message).
    pub(crate) fn post(
        &self,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> (u16, Option<String>, Value) {
        let body = body.to_string();
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nconnection: close\r\n\
             content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
             content-length: {}\r\n",
            self.port,
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("a timeout");
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("an answer");
        let answer = String::from_utf8(answer).expect("UTF-8");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        let status = head[9..12].parse().expect("a status");
        let header = |wanted: &str| {
            head.lines().skip(1).find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case(wanted)
                    .then(|| value.trim().to_owned())
            })
        };
        let body = if header("transfer-encoding").is_some_and(|value| value == "chunked") {
            dechunk(body)
        } else {
            body.to_owned()
        };
        let json =
            if header("content-type").is_some_and(|value| value.starts_with("text/event-stream")) {
                body.lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .next_back()
                    .map_or(Value::Null, |data| {
                        serde_json::from_str(data.trim()).expect("JSON")
                    })
            } else if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&body).expect("JSON")
            };
        (status, header("mcp-session-id"), json)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The payload of a chunked body.
pub(crate) fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// A client of one era: a legacy session or stateless modern requests.
pub(crate) struct Client<'a> {
    server: &'a HttpServer,
    /// The legacy session's id; `None` for the modern era.
    pub(crate) session: Option<String>,
}

impl<'a> Client<'a> {
    pub(crate) fn modern(server: &'a HttpServer) -> Client<'a> {
        Client {
            server,
            session: None,
        }
    }

    pub(crate) fn legacy(server: &'a HttpServer) -> Client<'a> {
        let (status, session, answer) = server.post(
            &[],
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": {"name": "http-test", "version": "1"}}}),
        );
        assert_eq!(status, 200, "{answer}");
        let session = session.expect("initialize gives a session");
        let client = Client {
            server,
            session: Some(session),
        };
        let (status, _, _) = server.post(
            &client.headers("notifications/initialized"),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert_eq!(status, 202);
        client
    }

    fn headers<'h>(&'h self, method: &'h str) -> Vec<(&'h str, &'h str)> {
        match &self.session {
            Some(session) => vec![
                ("mcp-session-id", session.as_str()),
                ("mcp-protocol-version", LEGACY),
            ],
            None => vec![("mcp-protocol-version", MODERN), ("mcp-method", method)],
        }
    }

    /// The JSON-RPC response to `method` with `params` (the modern `_meta` added).
    pub(crate) fn request(&self, method: &str, mut params: Value) -> Value {
        let mut headers = self.headers(method);
        let uri = params["uri"].as_str().map(str::to_owned);
        if self.session.is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "1"}
            });
            if method == "resources/read" {
                headers.push(("mcp-name", uri.as_deref().expect("a uri")));
            }
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (_, _, answer) = self.server.post(&headers, &body);
        assert_eq!(
            answer["result"].get("resultType").is_some(),
            self.session.is_none() && answer.get("result").is_some(),
            "{answer}"
        );
        answer
    }

    /// Every page of a paged method, each result handed to `page` (which may change the
    /// tree between pages); the items under `key`.
    pub(crate) fn pages(
        &self,
        method: &str,
        params: &Value,
        key: &str,
        mut page: impl FnMut(usize),
    ) -> Vec<Value> {
        let mut items = Vec::new();
        let mut params = params.clone();
        for number in 0..100 {
            let answer = self.request(method, params.clone());
            let result = &answer["result"];
            items.extend(result[key].as_array().expect("a page").iter().cloned());
            page(number);
            match result.get("nextCursor") {
                Some(cursor) => params["cursor"] = cursor.clone(),
                None => return items,
            }
        }
        panic!("{method} never ends");
    }

    pub(crate) fn list(&self) -> BTreeSet<String> {
        let items = self.pages("resources/list", &json!({}), "resources", |_| {});
        items
            .iter()
            .map(|item| item["uri"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The files found by walking from `directory` with directory reads.
    pub(crate) fn walk(&self, directory: &str) -> BTreeSet<String> {
        let mut files = BTreeSet::new();
        let mut pending = vec![directory.to_owned()];
        while let Some(directory) = pending.pop() {
            let params = json!({"uri": directory});
            for child in self.pages("resources/directory/read", &params, "resources", |_| {}) {
                let uri = child["uri"].as_str().unwrap().to_owned();
                if child["mimeType"] == "inode/directory" {
                    pending.push(uri);
                } else {
                    files.insert(uri);
                }
            }
        }
        files
    }
}

#[test]
fn both_eras_walk_granted_directories_over_http() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = std::fs::canonicalize(dir.path())
        .expect("canonical")
        .join("served");
    for file in [
        "docs/guide.md",
        "docs/api/index.md",
        "docs/api/v2/types.md",
        "private/plans.md",
        "top.txt",
        "other.md",
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).expect("mkdir");
        std::fs::write(&path, file).expect("write");
    }
    std::fs::create_dir_all(root.join("docs/empty")).expect("mkdir");
    let base = format!("file://{}", root.display());
    // Everyone may see `docs` and everything in it, and the `.txt` files at the top; nothing
    // else, not even the root.
    let config =
        format!("[[grants]]\nuris = \"{base}/docs/**\"\n[[grants]]\nuris = \"{base}/*.txt\"\n");
    let server = HttpServer::start(&root, &config, &["--page-size", "2"]);
    for client in [Client::legacy(&server), Client::modern(&server)] {
        let era = if client.session.is_some() {
            "legacy"
        } else {
            "modern"
        };
        let listed = client.list();
        assert_eq!(
            listed,
            BTreeSet::from([
                format!("{base}/docs/api/index.md"),
                format!("{base}/docs/api/v2/types.md"),
                format!("{base}/docs/guide.md"),
                format!("{base}/top.txt"),
            ]),
            "{era}"
        );
        let walked = client.walk(&format!("{base}/docs"));
        let in_docs: BTreeSet<String> = listed
            .iter()
            .filter(|uri| uri.starts_with(&format!("{base}/docs/")))
            .cloned()
            .collect();
        assert_eq!(walked, in_docs, "{era}");
        let empty = client.request(
            "resources/directory/read",
            json!({"uri": format!("{base}/docs/empty")}),
        );
        assert_eq!(empty["result"]["resources"], json!([]), "{era}: {empty}");
        // The root and `private` are hidden, a file is no directory, a missing path neither:
        // -32602 with the URI, in both eras.
        for refused in [
            base.clone(),
            format!("{base}/private"),
            format!("{base}/top.txt"),
            format!("{base}/docs/missing"),
        ] {
            let answer = client.request("resources/directory/read", json!({"uri": refused}));
            assert_eq!(answer["error"]["code"], -32602, "{era}: {answer}");
            assert_eq!(
                answer["error"]["data"]["uri"],
                json!(refused),
                "{era}: {answer}"
            );
        }
        // Reading a visible directory is not found, with a hint; a hidden one is plain not
        // found, as a missing path.
        let not_found = if era == "legacy" { -32002 } else { -32602 };
        let directory = format!("{base}/docs/api");
        let hinted = client.request("resources/read", json!({"uri": directory}));
        assert_eq!(hinted["error"]["code"], not_found, "{era}: {hinted}");
        assert_eq!(
            hinted["error"]["data"]["uri"],
            json!(directory),
            "{era}: {hinted}"
        );
        let message = hinted["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("resources/directory/read"),
            "{era}: {hinted}"
        );
        for hidden in [format!("{base}/private"), format!("{base}/docs/missing")] {
            let plain = client.request("resources/read", json!({"uri": hidden}));
            assert_eq!(plain["error"]["code"], not_found, "{era}: {plain}");
            assert_eq!(
                plain["error"]["message"], "Resource not found",
                "{era}: {plain}"
            );
        }
    }
}

#[test]
fn a_10000_entry_directory_pages_while_it_changes_over_http() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = std::fs::canonicalize(dir.path())
        .expect("canonical")
        .join("served");
    let big = root.join("big");
    std::fs::create_dir_all(&big).expect("mkdir");
    for index in 0..10_000 {
        std::fs::write(big.join(format!("entry-{index:05}.txt")), "x").expect("write");
    }
    let server = HttpServer::start(&root, "", &["--page-size", "500"]);
    let directory = format!("file://{}/big", root.display());
    let uri = |name: &str| format!("{directory}/{name}");
    let before: BTreeSet<String> = (0..10_000)
        .map(|index| uri(&format!("entry-{index:05}.txt")))
        .collect();
    // Between pages: one entry removed ahead of the walk and one behind, one added on each
    // side. Entries that were there throughout must come exactly once.
    let mut removed = BTreeSet::new();
    let mut added = BTreeSet::new();
    for (round, client) in [Client::legacy(&server), Client::modern(&server)]
        .iter()
        .enumerate()
    {
        let children = client.pages(
            "resources/directory/read",
            &json!({"uri": directory}),
            "resources",
            |page| {
                for index in [9_999 - page * 7 - round * 200, page * 11 + round * 300] {
                    let name = format!("entry-{index:05}.txt");
                    if big.join(&name).exists() {
                        std::fs::remove_file(big.join(&name)).expect("remove");
                        removed.insert(uri(&name));
                    }
                }
                for name in [
                    format!("a-{round}-{page}.txt"),
                    format!("z-{round}-{page}.txt"),
                ] {
                    std::fs::write(big.join(&name), "new").expect("write");
                    added.insert(uri(&name));
                }
            },
        );
        let uris: Vec<String> = children
            .iter()
            .map(|child| child["uri"].as_str().unwrap().to_owned())
            .collect();
        let unique: BTreeSet<String> = uris.iter().cloned().collect();
        assert_eq!(
            unique.len(),
            uris.len(),
            "round {round}: an entry came twice"
        );
        assert!(
            uris.windows(2).all(|pair| pair[0] < pair[1]),
            "round {round}: out of order"
        );
        for stayed in before.iter().filter(|uri| !removed.contains(*uri)) {
            assert!(
                unique.contains(stayed),
                "round {round}: {stayed} was skipped"
            );
        }
        for extra in unique.difference(&before) {
            assert!(
                added.contains(extra),
                "round {round}: {extra} came from nowhere"
            );
        }
    }
}
