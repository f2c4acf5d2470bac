//! A deployment on loopback, with real components: `redis-server` (on a Unix socket), three
//! `mcp-resources` instances serving the same directory with one cursor key and the Redis
//! feed and session store, and HAProxy in front (round robin for every request, legacy
//! sessions' included: no affinity; `/readyz` checks; the serving instance's name in
//! `x-served-by`). One focused test walks it: a list paged across instances, a legacy session
//! whose requests go round robin, a change told once to every listen stream of every instance
//! and to the session's GET stream, an instance with another key refused at start, an instance
//! killed (its stream ends, listening again lands elsewhere, the session goes on), Redis
//! stopped (streams end gracefully, instances unready, reads go on, none crashes) and started
//! again, empty (ready, changes told again; the session went with Redis' memory: `404`, and a
//! new one works). Without `redis-server` or `haproxy` the test says so loudly and passes, except
//! under `CI=true`, where it fails. Every wait is bounded.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::dechunk;

/// How long any single wait may take.
const WAIT: Duration = Duration::from_secs(20);
/// The cursor key every instance of the deployment shares (64 hexadecimal digits).
const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const KEY_VARIABLE: &str = "MCP_TEST_CLUSTER_KEY";
const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// Whether `program` can be run; said loudly when not (and a failure under `CI=true`).
fn available(program: &str, version_flag: &str) -> bool {
    let found = Command::new(program)
        .arg(version_flag)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{program} is needed under CI=true"
        );
        eprintln!("!!! {program} is not installed: the deployment test is NOT run");
    }
    found
}

/// A child process killed when dropped.
struct Process(Child);

impl Process {
    fn alive(&mut self) -> bool {
        self.0.try_wait().expect("a status").is_none()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `redis-server` on the Unix socket `socket`, ready.
fn start_redis(socket: &Path) -> Process {
    let _ = std::fs::remove_file(socket);
    let mut redis = Process(
        Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(socket)
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts"),
    );
    wait_until("redis-server listens", || {
        assert!(redis.alive(), "redis-server ended at start");
        UnixStream::connect(socket).is_ok()
    });
    redis
}

/// A free loopback port (free when drawn).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// Polls `ready` every 50 ms until it holds, for at most [`WAIT`].
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !ready() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One `mcp-resources` instance of the deployment.
struct Instance {
    process: Process,
    port: u16,
}

/// Starts an instance serving `root` with the feed on `socket`, its cursor key `key`, its
/// stderr `stderr`; its configuration file goes in `dir`.
fn spawn_instance(
    dir: &Path,
    root: &Path,
    socket: &Path,
    key: &str,
    stderr: Stdio,
) -> (Process, u16) {
    let port = free_port();
    let file = dir.join(format!("instance-{port}.toml"));
    let config = format!(
        "http = \"127.0.0.1:{port}\"\npage_size = 2\naudit_log = \"{}\"\n[cluster]\n\
         cursor_key_env = \"{KEY_VARIABLE}\"\n[feed]\nredis = \"redis+unix://{}\"\n\
         channel = \"test\"\nsettle_ms = 300\n[[sensitive]]\nname = \"secret\"\n\
         uris = [\"file:///**/f.txt\"]\nconfirm = true\n",
        dir.join(format!("audit-{port}.jsonl")).display(),
        socket.display()
    );
    std::fs::write(&file, config).expect("write the configuration");
    let child = Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
        .args(["serve", "--config"])
        .arg(&file)
        .arg(root)
        .env(KEY_VARIABLE, key)
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("the binary starts");
    (Process(child), port)
}

impl Instance {
    fn start(dir: &Path, root: &Path, socket: &Path) -> Instance {
        let (mut process, port) = spawn_instance(dir, root, socket, KEY, Stdio::inherit());
        wait_until("an instance is ready", || {
            assert!(process.alive(), "an instance ended at start");
            get(port, "/readyz").0 == 200
        });
        Instance { process, port }
    }
}

/// HAProxy in front of `ports`, named `one`, `two`, `three`: the instances ready (`/readyz`)
/// while there are any, else those alive (`/healthz`), so that reads go on when every instance
/// has lost Redis. No affinity: legacy sessions are in Redis.
fn start_haproxy(dir: &Path, ports: &[u16]) -> (Process, u16) {
    let port = free_port();
    let mut config = format!(
        "global\n  maxconn 1000\n\
         defaults\n  mode http\n  timeout connect 2s\n  timeout client 60s\n  \
         timeout server 60s\n  timeout check 2s\n  retries 3\n  option redispatch\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  use_backend ready if {{ nbsrv(ready) gt 0 }}\n  \
         default_backend alive\n"
    );
    for (backend, path) in [("ready", "/readyz"), ("alive", "/healthz")] {
        config.push_str(&format!(
            "backend {backend}\n  balance roundrobin\n  option httpchk GET {path}\n  \
             http-check expect status 200\n  default-server check inter 100ms fall 2 rise 1\n  \
             http-response set-header x-served-by %[srv_name]\n"
        ));
        for (id, (name, server)) in ["one", "two", "three"].iter().zip(ports).enumerate() {
            config.push_str(&format!(
                "  server {name} 127.0.0.1:{server} id {}\n",
                id + 1
            ));
        }
    }
    let file = dir.join("haproxy.cfg");
    std::fs::write(&file, config).expect("write haproxy.cfg");
    let mut haproxy = Process(
        Command::new("haproxy")
            .arg("-db")
            .arg("-f")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("haproxy starts"),
    );
    wait_until("haproxy serves", || {
        assert!(haproxy.alive(), "haproxy ended at start");
        get(port, "/readyz").0 == 200
    });
    (haproxy, port)
}

/// An answer: status, `x-served-by`, `mcp-session-id`, body.
struct Reply {
    status: u16,
    served_by: Option<String>,
    session: Option<String>,
    body: String,
}

impl Reply {
    /// The JSON answer (an SSE body's last message).
    fn json(&self) -> Value {
        let data = self
            .body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .next_back();
        match data {
            Some(data) => serde_json::from_str(data.trim()).expect("JSON"),
            None if self.body.is_empty() => Value::Null,
            None => serde_json::from_str(&self.body).expect("JSON"),
        }
    }
}

/// The head of an HTTP/1.1 request to `port`.
fn head(method: &str, path: &str, port: u16, headers: &[(&str, &str)], body: &str) -> String {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n\
         accept: application/json, text/event-stream\r\n"
    );
    if !body.is_empty() {
        request.push_str(&format!(
            "content-type: application/json\r\ncontent-length: {}\r\n",
            body.len()
        ));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request
}

/// Reads a response head: the status and the headers.
fn read_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("a status line");
    let status = status_line
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).expect("a header") == 0 || line.trim().is_empty() {
            return (status, headers);
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
}

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers
        .iter()
        .find_map(|(found, value)| (found == name).then(|| value.clone()))
}

/// A whole exchange on a fresh connection.
fn exchange(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return Reply {
            status: 0,
            served_by: None,
            session: None,
            body: String::new(),
        };
    };
    stream.set_read_timeout(Some(WAIT)).expect("a timeout");
    let request = head(method, path, port, headers, body) + "connection: close\r\n\r\n" + body;
    stream.write_all(request.as_bytes()).expect("send");
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    let chunked = header(&headers, "transfer-encoding").is_some_and(|value| value == "chunked");
    Reply {
        status,
        served_by: header(&headers, "x-served-by"),
        session: header(&headers, "mcp-session-id"),
        body: if chunked { dechunk(&rest) } else { rest },
    }
}

fn get(port: u16, path: &str) -> (u16, String) {
    let reply = exchange(port, "GET", path, &[], "");
    (reply.status, reply.body)
}

/// A 2026-07-28 client's `_meta`, able to answer a confirmation (elicitation).
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "cluster-test", "version": "1"}
    })
}

/// A modern request through `port`.
fn modern(port: u16, method: &str, mut params: Value) -> Reply {
    params["_meta"] = modern_meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
    if let Some(uri) = params["uri"].as_str() {
        headers.push(("mcp-name", uri));
    }
    exchange(port, "POST", "/mcp", &headers, &body.to_string())
}

/// A live SSE stream: its status, who serves it, and its messages as they come (the channel
/// disconnects when the stream ends).
struct Live {
    status: u16,
    served_by: Option<String>,
    messages: Receiver<Value>,
}

impl Live {
    fn open(port: u16, method: &str, headers: &[(&str, &str)], body: &str) -> Live {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        // Closed after the response, so that the end of the stream is the end of the input.
        let request =
            head(method, "/mcp", port, headers, body) + "connection: close\r\n\r\n" + body;
        stream.write_all(request.as_bytes()).expect("send");
        let mut reader = BufReader::new(stream);
        let (status, headers) = read_head(&mut reader);
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            for line in reader.lines() {
                let Ok(line) = line else { return };
                if let Some(data) = line.strip_prefix("data:")
                    && let Ok(message) = serde_json::from_str(data.trim())
                    && sender.send(message).is_err()
                {
                    return;
                }
            }
        });
        Live {
            status,
            served_by: header(&headers, "x-served-by"),
            messages,
        }
    }

    /// A modern listen stream on `uri` and list changes, past its acknowledgment.
    fn listen(port: u16, uri: &str) -> Live {
        let body = json!({"jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": {"_meta": modern_meta(), "notifications": {
            "resourceSubscriptions": [uri], "resourcesListChanged": true
        }}});
        let headers = [
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "subscriptions/listen"),
        ];
        let live = Live::open(port, "POST", &headers, &body.to_string());
        assert_eq!(live.status, 200);
        let ack = live.next().expect("the acknowledgment");
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        live
    }

    /// The next message; `None` when the stream ended.
    fn next(&self) -> Option<Value> {
        match self.messages.recv_timeout(WAIT) {
            Ok(message) => Some(message),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("no message in time"),
        }
    }

    /// The method (and URI) of the next message.
    fn next_is(&self, method: &str) {
        let message = self
            .next()
            .unwrap_or_else(|| panic!("ended; expected {method}"));
        assert_eq!(message["method"], method, "{message}");
    }
}

/// A legacy session through the balancer: initialize, initialized, subscribe to `uri`.
fn legacy_session(port: u16, uri: &str) -> (String, BTreeSet<String>) {
    let mut served = BTreeSet::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "cluster-test", "version": "1"}}});
    let reply = exchange(port, "POST", "/mcp", &[], &initialize.to_string());
    assert_eq!(reply.status, 200, "{}", reply.body);
    let session = reply.session.expect("a session id");
    served.extend(reply.served_by);
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", LEGACY),
    ];
    for (body, status) in [
        (
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            202,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": uri}}),
            200,
        ),
    ] {
        let reply = exchange(port, "POST", "/mcp", &headers, &body.to_string());
        assert_eq!(reply.status, status, "{}", reply.body);
        served.extend(reply.served_by);
    }
    (session, served)
}

/// The session's GET stream, through the balancer. An instance that took the session's
/// subscription up from Redis tells it once as changed (a change could have come between):
/// that message, if any, is read here.
fn legacy_stream(port: u16, session: &str) -> Live {
    let headers = [
        ("mcp-session-id", session),
        ("mcp-protocol-version", LEGACY),
        ("accept", "text/event-stream"),
    ];
    let live = Live::open(port, "GET", &headers, "");
    assert_eq!(live.status, 200);
    if let Ok(first) = live.messages.recv_timeout(Duration::from_secs(1)) {
        assert_eq!(
            first["method"], "notifications/resources/updated",
            "{first}"
        );
    }
    live
}

/// `ping`s the legacy session through the balancer; the statuses and who answered.
fn ping_session(port: u16, session: &str, count: u64) -> (Vec<u16>, BTreeSet<String>) {
    let headers = [
        ("mcp-session-id", session),
        ("mcp-protocol-version", LEGACY),
    ];
    let mut statuses = Vec::new();
    let mut served = BTreeSet::new();
    for id in 0..count {
        let ping = json!({"jsonrpc": "2.0", "id": 100 + id, "method": "ping"});
        let reply = exchange(port, "POST", "/mcp", &headers, &ping.to_string());
        statuses.push(reply.status);
        served.extend(reply.served_by);
    }
    (statuses, served)
}

/// Changes `file` so that every instance's watcher sees it.
fn touch(file: &PathBuf, text: &str) {
    std::fs::write(file, text).expect("write");
}

#[test]
fn three_instances_behind_haproxy_share_pages_changes_and_failures() {
    if !available("redis-server", "--version") || !available("haproxy", "-v") {
        return;
    }
    let temporary = tempfile::tempdir().expect("a temporary directory");
    let dir = std::fs::canonicalize(temporary.path()).expect("canonical");
    let root = dir.join("served");
    std::fs::create_dir_all(&root).expect("mkdir");
    for name in ["a", "b", "c", "d", "e", "f"] {
        std::fs::write(root.join(format!("{name}.txt")), name).expect("write");
    }
    let watched = root.join("a.txt");
    let watched_uri = format!("file://{}", watched.display());
    let socket = dir.join("redis.sock");
    let redis = start_redis(&socket);
    let mut instances: Vec<Instance> = (0..3)
        .map(|_| Instance::start(&dir, &root, &socket))
        .collect();
    let ports: Vec<u16> = instances.iter().map(|instance| instance.port).collect();
    let (_haproxy, balancer) = start_haproxy(&dir, &ports);

    // A list walked page by page, each page from the next instance: one cursor key.
    let mut listed = Vec::new();
    let mut servers = Vec::new();
    let mut params = json!({});
    loop {
        let reply = modern(balancer, "resources/list", params.clone());
        assert_eq!(reply.status, 200, "{}", reply.body);
        servers.push(reply.served_by.clone().expect("x-served-by"));
        let result = reply.json()["result"].clone();
        for item in result["resources"].as_array().expect("a page") {
            listed.push(item["uri"].as_str().expect("a uri").to_owned());
        }
        match result.get("nextCursor") {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => break,
        }
        assert!(servers.len() < 10, "the walk ends");
    }
    assert_eq!(listed.len(), 6, "{listed:?}");
    assert_eq!(servers.len(), 3, "three pages of two");
    assert!(
        servers.windows(2).all(|pair| pair[0] != pair[1]),
        "each page from another instance: {servers:?}"
    );

    // A sensitive read (`f.txt`, confirm) asked by one instance and answered to another is
    // served there, once: the replay is refused by every instance, the one that asked included.
    let secret = format!("file://{}", root.join("f.txt").display());
    let asked = modern(ports[0], "resources/read", json!({"uri": secret})).json();
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let answered = json!({"uri": secret, "requestState": asked["result"]["requestState"],
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let served = modern(ports[1], "resources/read", answered.clone()).json();
    assert_eq!(served["result"]["contents"][0]["text"], "f", "{served}");
    for port in &ports {
        let replayed = modern(*port, "resources/read", answered.clone()).json();
        assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    }

    // An instance with another cursor key does not start.
    let other_key = "ff".repeat(32);
    let (mut stranger, _) = spawn_instance(&dir, &root, &socket, &other_key, Stdio::piped());
    wait_until("the stranger stops", || !stranger.alive());
    let mut error = String::new();
    stranger
        .0
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut error)
        .expect("its error");
    assert!(
        error.contains(&format!("the cursor key in {KEY_VARIABLE} differs")),
        "{error}"
    );

    // A listen stream on each instance, and a legacy session whose requests go round robin
    // (kept in Redis: any instance serves it).
    let streams: Vec<Live> = (0..3)
        .map(|_| Live::listen(balancer, &watched_uri))
        .collect();
    let on: BTreeSet<_> = streams.iter().map(|live| live.served_by.clone()).collect();
    assert_eq!(on.len(), 3, "one stream per instance: {on:?}");
    let (session, session_servers) = legacy_session(balancer, &watched_uri);
    assert!(
        session_servers.len() >= 2,
        "several instances serve the session: {session_servers:?}"
    );
    let get_stream = legacy_stream(balancer, &session);

    // A change every instance's watcher sees is told once to every stream: the update, then
    // (a file created) the list change, with no second update between them.
    touch(&watched, "changed");
    for live in streams.iter().chain([&get_stream]) {
        live.next_is("notifications/resources/updated");
    }
    touch(&root.join("g.txt"), "new");
    for live in streams.iter().chain([&get_stream]) {
        live.next_is("notifications/resources/list_changed");
    }

    // An instance killed (not the GET stream's): its stream ends; listening again lands on
    // another instance; the session goes on through the instances left.
    let victim = streams
        .iter()
        .position(|live| live.served_by != get_stream.served_by)
        .expect("a stream off the GET stream's instance");
    let victim_name = streams[victim].served_by.clone();
    let index = ["one", "two", "three"]
        .iter()
        .position(|name| Some((*name).to_owned()) == victim_name)
        .expect("a known instance");
    drop(instances.remove(index));
    assert_eq!(streams[victim].next(), None, "its stream ended");
    let (statuses, served) = ping_session(balancer, &session, 6);
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    assert_eq!(served.len(), 2, "both instances left serve it: {served:?}");
    let again = Live::listen(balancer, &watched_uri);
    assert_ne!(again.served_by, victim_name);
    let survivors: Vec<&Live> = streams
        .iter()
        .enumerate()
        .filter(|(index, _)| *index != victim)
        .map(|(_, live)| live)
        .chain([&again])
        .collect();
    touch(&watched, "changed again");
    for live in survivors.iter().chain([&&get_stream]) {
        live.next_is("notifications/resources/updated");
    }

    // A confirmation asked for before Redis goes away.
    let asked = modern(ports[0], "resources/read", json!({"uri": secret})).json();
    let answered_later = json!({"uri": secret, "requestState": asked["result"]["requestState"],
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});

    // Redis stopped: streams end gracefully, instances are not ready, reads go on.
    drop(redis);
    for live in &survivors {
        let last = live.next().expect("the graceful result");
        assert_eq!(last["result"]["resultType"], "complete", "{last}");
        assert_eq!(live.next(), None);
    }
    assert_eq!(get_stream.next(), None, "the GET stream ended");
    for instance in &mut instances {
        assert_eq!(get(instance.port, "/readyz").0, 503);
        assert_eq!(get(instance.port, "/healthz").0, 200);
        assert!(instance.process.alive());
    }
    // Reads go on through the balancer (its instances alive, none ready).
    for _ in 0..4 {
        let read = modern(balancer, "resources/read", json!({"uri": watched_uri}));
        assert_eq!(
            read.json()["result"]["contents"][0]["text"],
            "changed again",
            "{}",
            read.body
        );
    }

    // Redis back: ready again, and changes are told again.
    let _redis = start_redis(&socket);
    for instance in &instances {
        wait_until("the instance is ready again", || {
            get(instance.port, "/readyz").0 == 200
        });
    }
    let mut after = None;
    wait_until("the balancer takes listen streams again", || {
        let reply = modern(balancer, "resources/templates/list", json!({}));
        if reply.status == 200 {
            after = Some(Live::listen(balancer, &watched_uri));
        }
        after.is_some()
    });
    let after = after.expect("a listen stream");
    // Redis came back empty: the confirmation asked before is refused (its ticket went with
    // Redis: asked anew, never served twice), and a new one is served at the first try on
    // every instance (each asked by the one before it).
    let alive: Vec<u16> = instances.iter().map(|instance| instance.port).collect();
    let refused = modern(alive[0], "resources/read", answered_later).json();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    for (asker, answerer) in alive.iter().zip(alive.iter().cycle().skip(1)) {
        let asked = modern(*asker, "resources/read", json!({"uri": secret})).json();
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        let answered = json!({"uri": secret, "requestState": asked["result"]["requestState"],
            "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
        let served = modern(*answerer, "resources/read", answered).json();
        assert_eq!(served["result"]["contents"][0]["text"], "f", "{served}");
    }
    touch(&watched, "changed once more");
    after.next_is("notifications/resources/updated");
    // Redis came back empty (no persistence here): the legacy session went with it, and
    // every instance says so (`404`: its client opens a new one, as the specification has
    // it). A new session hears changes again.
    wait_until("the session is forgotten everywhere", || {
        ping_session(balancer, &session, 2)
            .0
            .iter()
            .all(|status| *status == 404)
    });
    let (session, _) = legacy_session(balancer, &watched_uri);
    let get_stream = legacy_stream(balancer, &session);
    touch(&watched, "changed at last");
    after.next_is("notifications/resources/updated");
    get_stream.next_is("notifications/resources/updated");
    for instance in &mut instances {
        assert!(instance.process.alive());
    }
}
