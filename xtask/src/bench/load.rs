//! The request loads: reads, list walks and subscriptions, sent by a driver of std threads
//! (pipelined JSON lines on stdio; keep-alive HTTP/1.1 over raw TCP, one connection per request
//! in flight), and the [`Figures`] of one run. A reply that is not the expected result fails
//! the run instead of giving a number.
//!
//! **Layer:** tooling, inside [`bench`](super), above [`server`](super::server). It must never
//! write the report.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::process::{ChildStdin, ChildStdout, Command};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::plan::{
    Era, Plan, SUBSCRIPTION_SESSIONS, SUBSCRIPTIONS_PER_SESSION, Scenario, Source, Subject,
    Transport,
};
use super::server::{
    Cpu, Programs, RESOURCE_COUNT, Server, Serving, file_uri_prefix, peak_rss_mib,
};
use super::stats::{median, quantile};

/// The protocol revisions on the wire.
const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
/// How long a reply may take before the run is abandoned.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// How old the files must be when first read: past the two seconds in which mcp-resources'
/// read cache does not trust a file's metadata, so that reads are served as repeated reads are.
const FILES_SETTLE: Duration = Duration::from_secs(3);

/// The figures of one measured run, or the medians of several.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Figures {
    pub(super) requests_per_second: f64,
    pub(super) p50_us: f64,
    pub(super) p99_us: f64,
    pub(super) cpu_us_per_request: f64,
    /// The kernel's share of that CPU time, in percent.
    pub(super) kernel_percent: f64,
    pub(super) peak_rss_mib: f64,
}

impl Figures {
    /// Each figure's median over `runs`, on its own.
    pub(super) fn median(runs: &[Figures]) -> Figures {
        let pick = |field: fn(&Figures) -> f64| median(runs.iter().map(field).collect());
        Figures {
            requests_per_second: pick(|f| f.requests_per_second),
            p50_us: pick(|f| f.p50_us),
            p99_us: pick(|f| f.p99_us),
            cpu_us_per_request: pick(|f| f.cpu_us_per_request),
            kernel_percent: pick(|f| f.kernel_percent),
            peak_rss_mib: pick(|f| f.peak_rss_mib),
        }
    }
}

/// Starts the subject, shakes hands, warms up, measures, and stops it.
pub(super) fn measure(
    programs: &Programs,
    plan: &Plan,
    scenario: Scenario,
    subject: Subject,
) -> Result<Figures, String> {
    let files = matches!(
        scenario,
        Scenario::Read {
            source: Source::Files,
            ..
        }
    ) && matches!(subject, Subject::Ours(_));
    let (serving, uri_prefix, uri_suffix) = if files {
        std::thread::sleep(FILES_SETTLE.saturating_sub(programs.files_written.elapsed()));
        let dir = &programs.files;
        (
            Serving::Files { dir, watch: false },
            format!("{}r", file_uri_prefix(dir)?),
            ".txt",
        )
    } else {
        (Serving::Config, "mem:///r/".to_owned(), "")
    };
    let uri = |n: u64| format!("{uri_prefix}{:04}{uri_suffix}", n % RESOURCE_COUNT as u64);
    let mut server = Server::start(programs, subject, scenario.transport(), serving)?;
    let pid = server.pid();
    let era = subject.era();
    let mut client = match (scenario.transport(), server.stdio.take(), server.port) {
        (Transport::Stdio, Some((stdin, stdout)), _) => {
            let stdin = BufWriter::with_capacity(1 << 16, stdin);
            Client::Stdio { stdin, stdout, pid }
        }
        (transport, _, Some(port)) => {
            let http = Http {
                port,
                session: None,
                sse: transport == Transport::HttpSse,
            };
            Client::Http {
                connection: Connection::open(port)?,
                http,
            }
        }
        _ => return Err("the server has neither pipes nor a port".to_owned()),
    };
    let handshake = era == Era::Legacy && matches!(subject, Subject::Ours(_) | Subject::Rmcp(_));
    let run = |client: &mut Client| -> Result<Figures, String> {
        let sessions = if scenario == Scenario::Subscriptions {
            client.open_sessions()?
        } else {
            if handshake {
                client.initialize()?;
            }
            Vec::new()
        };
        // A warm-up phase, then the measured one, the CPU time read around it.
        let mut phase = |warm_up: bool| -> Result<Load, String> {
            let first_id = if warm_up { 1_000_000 } else { 10_000_000 };
            match scenario {
                Scenario::Read { concurrency, .. } => {
                    let count = match (warm_up, concurrency) {
                        (true, _) => plan.warmup,
                        (false, 1) => plan.count_c1,
                        (false, _) => plan.count_c32,
                    };
                    let phase = Phase {
                        count,
                        limit: plan.run_time,
                        first_id,
                    };
                    client.read_load(era, concurrency, phase, &uri)
                }
                Scenario::ListWalk(_) => {
                    client.list_walks(era, if warm_up { 3 } else { plan.walks }, first_id)
                }
                Scenario::Subscriptions if warm_up => Ok(Load::default()),
                Scenario::Subscriptions => client.subscribe_load(&sessions),
                Scenario::FanOut { .. }
                | Scenario::ListPage
                | Scenario::Git
                | Scenario::Sql
                | Scenario::Redaction
                | Scenario::Deployment => Err("not a request load".to_owned()),
            }
        };
        phase(true)?;
        let before = Cpu::of(pid)?;
        let load = phase(false)?;
        Ok(load.figures(Cpu::of(pid)?.since(before), peak_rss_mib(pid)?))
    };
    run(&mut client).map_err(|error| format!("{error}{}", server.log_tail()))
}

/// Modern `resources/read`s of `uri(n)` at `concurrency` over HTTP through `port` (a load
/// balancer in front of servers already started), a warm-up first; the CPU time of each of
/// `pids` over the measured phase and the number of requests measured are handed back beside
/// the figures, whose own CPU and peak RSS are those of `pids[0]`.
pub(super) fn read_through(
    port: u16,
    pids: &[u32],
    plan: &Plan,
    concurrency: usize,
    uri: &(dyn Fn(u64) -> String + Sync),
) -> Result<(Figures, Vec<Cpu>, usize), String> {
    let http = Http {
        port,
        session: None,
        sse: false,
    };
    let mut client = Client::Http {
        connection: Connection::open(port)?,
        http,
    };
    let phase = |warm_up: bool| Phase {
        count: match warm_up {
            true => plan.warmup,
            false => plan.count_c32,
        },
        limit: plan.run_time,
        first_id: if warm_up { 1_000_000 } else { 10_000_000 },
    };
    client.read_load(Era::Modern, concurrency, phase(true), uri)?;
    let before: Vec<Cpu> = pids
        .iter()
        .map(|pid| Cpu::of(*pid))
        .collect::<Result<_, _>>()?;
    let load = client.read_load(Era::Modern, concurrency, phase(false), uri)?;
    let spent: Vec<Cpu> = pids
        .iter()
        .zip(before)
        .map(|(pid, before)| Cpu::of(*pid).map(|now| now.since(before)))
        .collect::<Result<_, _>>()?;
    let first = pids.first().ok_or("no server to measure")?;
    let requests = load.latencies.len();
    let figures = load.figures(spent[0], peak_rss_mib(*first)?);
    Ok((figures, spent, requests))
}

/// What one load phase observed.
#[derive(Default)]
struct Load {
    latencies: Vec<Duration>,
    elapsed: Duration,
}

impl Load {
    fn figures(self, cpu: Cpu, peak_rss_mib: f64) -> Figures {
        let mut micros: Vec<f64> = self
            .latencies
            .iter()
            .map(|latency| latency.as_secs_f64() * 1e6)
            .collect();
        micros.sort_by(f64::total_cmp);
        Figures {
            requests_per_second: micros.len() as f64 / self.elapsed.as_secs_f64(),
            p50_us: quantile(&micros, 0.50),
            p99_us: quantile(&micros, 0.99),
            cpu_us_per_request: cpu.ns as f64 / 1e3 / micros.len().max(1) as f64,
            kernel_percent: cpu.kernel_percent(),
            peak_rss_mib,
        }
    }
}

/// One read phase: at most `count` requests, at most `limit` long, ids from `first_id`.
#[derive(Clone, Copy, Debug)]
struct Phase {
    count: usize,
    limit: Duration,
    first_id: u64,
}

/// A JSON-RPC message as the driver sends it: its body, and what the HTTP headers name.
struct Request {
    era: Era,
    /// `None` for a notification.
    id: Option<u64>,
    method: &'static str,
    /// The `uri` parameter, the modern `Mcp-Name` header.
    name: Option<String>,
    body: String,
}

impl Request {
    /// A request (a notification without `id`); a modern one carries the `_meta` of its era
    /// beside any `_meta` of `params` (such as a progress token).
    fn new(era: Era, id: Option<u64>, method: &'static str, mut params: Value) -> Request {
        if era == Era::Modern {
            let meta = &mut params["_meta"];
            meta["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
            meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        }
        let name = params.get("uri").and_then(Value::as_str).map(str::to_owned);
        let mut message = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(id) = id {
            message["id"] = json!(id);
        }
        if !params.is_null() {
            message["params"] = params;
        }
        Request {
            era,
            id,
            method,
            name,
            body: message.to_string(),
        }
    }

    fn read(era: Era, id: u64, uri: String, progress: bool) -> Request {
        let mut params = json!({ "uri": uri });
        if progress {
            params["_meta"] = json!({ "progressToken": id });
        }
        Request::new(era, Some(id), "resources/read", params)
    }
}

/// Checks that a reply is a result holding `expect`, and returns its id.
fn check_reply(body: &str, expect: &str) -> Result<u64, String> {
    let short = || body.chars().take(300).collect::<String>();
    if !body.contains("\"result\"") || !body.contains(expect) {
        return Err(format!(
            "unexpected reply (wanted a result holding {expect:?}): {}",
            short()
        ));
    }
    let (_, after) = body
        .split_once("\"id\":")
        .ok_or_else(|| format!("no id: {}", short()))?;
    let after = after.trim_start();
    let digits = after
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after.len());
    after[..digits]
        .parse()
        .map_err(|_| format!("no numeric id: {}", short()))
}

/// The JSON-RPC response among the events of an SSE body: the one `data` with an `id`.
fn sse_response(body: &str) -> Result<&str, String> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| data.contains("\"id\""))
        .ok_or_else(|| format!("an SSE body without a response: {:.300}", body))
}

/// A client of one server.
enum Client {
    Stdio {
        stdin: BufWriter<ChildStdin>,
        stdout: BufReader<ChildStdout>,
        pid: u32,
    },
    Http {
        http: Http,
        connection: Connection,
    },
}

/// Where HTTP requests go, and how.
#[derive(Clone, Debug)]
struct Http {
    port: u16,
    /// The legacy session (`Mcp-Session-Id`).
    session: Option<String>,
    /// Reads ask for, and must get, SSE replies.
    sse: bool,
}

fn write_error(error: std::io::Error) -> String {
    format!("cannot write to the server: {error}")
}

/// The next line from the server.
fn next_line(reader: &mut impl BufRead, line: &mut String) -> Result<(), String> {
    line.clear();
    match reader.read_line(line) {
        Ok(0) => Err("the server closed its end".to_owned()),
        Ok(_) => Ok(()),
        Err(error) => Err(format!("cannot read from the server: {error}")),
    }
}

/// The next line of `stdout` that holds an id (notifications are passed over).
fn reply_line(stdout: &mut impl BufRead, line: &mut String) -> Result<(), String> {
    next_line(stdout, line)?;
    while !line.contains("\"id\"") {
        next_line(stdout, line)?;
    }
    Ok(())
}

impl Client {
    /// Sends `request` and returns the JSON of its response (none for a notification).
    fn call(&mut self, request: &Request) -> Result<String, String> {
        let notification = request.id.is_none();
        match self {
            Client::Stdio { stdin, stdout, .. } => {
                writeln!(stdin, "{}", request.body)
                    .and_then(|()| stdin.flush())
                    .map_err(write_error)?;
                let mut line = String::new();
                if !notification {
                    reply_line(stdout, &mut line)?;
                }
                Ok(line)
            }
            Client::Http { http, connection } => {
                let reply = connection.post(http, request)?;
                if reply.status / 100 != 2 {
                    return Err(format!("{} answered HTTP {}", request.method, reply.status));
                }
                if reply.session.is_some() {
                    http.session = reply.session;
                }
                match (notification, reply.event_stream) {
                    (true, _) => Ok(String::new()),
                    (false, true) => sse_response(&reply.body).map(str::to_owned),
                    (false, false) => Ok(reply.body),
                }
            }
        }
    }

    /// The legacy handshake: `initialize`, then `notifications/initialized`.
    fn initialize(&mut self) -> Result<(), String> {
        let params = json!({
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": { "name": "cargo-xtask-bench", "version": "0.0.0" },
        });
        let reply = self.call(&Request::new(Era::Legacy, Some(0), "initialize", params))?;
        check_reply(&reply, "protocolVersion")?;
        let initialized = "notifications/initialized";
        self.call(&Request::new(Era::Legacy, None, initialized, Value::Null))
            .map(drop)
    }

    /// The reads of `phase`, round robin over `uri(n)`, `concurrency` in flight.
    fn read_load(
        &mut self,
        era: Era,
        concurrency: usize,
        phase: Phase,
        uri: &(dyn Fn(u64) -> String + Sync),
    ) -> Result<Load, String> {
        match self {
            Client::Stdio { stdin, stdout, pid } => {
                let request = |n: u64| Request::read(era, phase.first_id + n, uri(n), false);
                stdio_pipelined(stdin, stdout, *pid, concurrency, phase, &request)
            }
            Client::Http { http, .. } => {
                let started = Instant::now();
                on_connections(http, concurrency, |connection, n, latencies| {
                    if n >= phase.count || started.elapsed() > phase.limit {
                        return Ok(false);
                    }
                    let id = phase.first_id + n as u64;
                    let request = Request::read(era, id, uri(n as u64), http.sse);
                    connection.timed(http, &request, "resource ", latencies)?;
                    Ok(true)
                })
            }
        }
    }

    /// `walks` whole list walks, one request at a time; a latency per page.
    fn list_walks(&mut self, era: Era, walks: usize, first_id: u64) -> Result<Load, String> {
        let mut latencies = Vec::new();
        let mut id = first_id;
        let started = Instant::now();
        for _ in 0..walks {
            let (mut cursor, mut seen) = (None, 0);
            loop {
                let params = cursor
                    .take()
                    .map_or_else(|| json!({}), |cursor| json!({ "cursor": cursor }));
                id += 1;
                let sent = Instant::now();
                let reply = self.call(&Request::new(era, Some(id), "resources/list", params))?;
                latencies.push(sent.elapsed());
                let value: Value = serde_json::from_str(&reply)
                    .map_err(|error| format!("a list reply is not JSON ({error}): {reply:.300}"))?;
                let result = &value["result"];
                seen += result["resources"].as_array().map_or(0, Vec::len);
                cursor = result["nextCursor"].as_str().map(str::to_owned);
                if cursor.is_none() || seen > RESOURCE_COUNT * 2 {
                    break;
                }
            }
            if seen != RESOURCE_COUNT {
                return Err(format!(
                    "a list walk saw {seen} resources, expected {RESOURCE_COUNT}"
                ));
            }
        }
        Ok(Load {
            latencies,
            elapsed: started.elapsed(),
        })
    }

    /// Opens the legacy HTTP sessions of the subscriptions scenario.
    fn open_sessions(&mut self) -> Result<Vec<Http>, String> {
        (0..SUBSCRIPTION_SESSIONS)
            .map(|_| {
                self.initialize()?;
                let Client::Http { http, .. } = self else {
                    return Err("subscriptions are measured on HTTP only".to_owned());
                };
                let session = http
                    .session
                    .take()
                    .ok_or("initialize gave no Mcp-Session-Id")?;
                Ok(Http {
                    session: Some(session),
                    ..http.clone()
                })
            })
            .collect()
    }

    /// Subscribes each session to its own template URIs, the sessions shared out over 32
    /// connections.
    fn subscribe_load(&self, sessions: &[Http]) -> Result<Load, String> {
        let Client::Http { http, .. } = self else {
            return Err("subscriptions are measured on HTTP only".to_owned());
        };
        on_connections(http, 32, |connection, index, latencies| {
            let Some(session) = sessions.get(index) else {
                return Ok(false);
            };
            for n in 0..SUBSCRIPTIONS_PER_SESSION {
                let id = (index * SUBSCRIPTIONS_PER_SESSION + n) as u64;
                let params = json!({ "uri": format!("mem:///t/{id}") });
                let request =
                    Request::new(Era::Legacy, Some(id + 1), "resources/subscribe", params);
                connection.timed(session, &request, "\"result\"", latencies)?;
            }
            Ok(true)
        })
    }
}

/// Pipelined requests on stdio: a writer thread keeps up to `concurrency` in flight and kills
/// the server when no reply comes for [`REPLY_TIMEOUT`]; this thread reads the replies.
fn stdio_pipelined(
    stdin: &mut BufWriter<ChildStdin>,
    stdout: &mut BufReader<ChildStdout>,
    pid: u32,
    concurrency: usize,
    phase: Phase,
    request: &(dyn Fn(u64) -> Request + Sync),
) -> Result<Load, String> {
    // The writer announces each request (`Some(sent at)`) before writing it, and `None` at the end.
    let (sent_tx, sent_rx) = mpsc::channel::<Option<Instant>>();
    let (credit_tx, credit_rx) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> Result<(), String> {
            let credit = || match credit_rx.recv_timeout(REPLY_TIMEOUT) {
                Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => Ok(()),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Killed by its id (we started it): the reader then sees the end of stdout.
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .status();
                    Err(format!(
                        "no reply within {REPLY_TIMEOUT:?}; the server was killed"
                    ))
                }
            };
            let started = Instant::now();
            let mut in_flight = 0;
            for n in 0..phase.count as u64 {
                if started.elapsed() > phase.limit {
                    break;
                }
                while in_flight >= concurrency {
                    if credit_rx.try_recv().is_err() {
                        stdin.flush().map_err(write_error)?;
                        credit()?;
                    }
                    in_flight -= 1;
                }
                let _ = sent_tx.send(Some(Instant::now()));
                writeln!(stdin, "{}", request(n).body).map_err(write_error)?;
                in_flight += 1;
            }
            stdin.flush().map_err(write_error)?;
            let _ = sent_tx.send(None);
            (0..in_flight).try_for_each(|_| credit())
        });
        let started = Instant::now();
        let (mut sent_at, mut done, mut latencies) =
            (Vec::with_capacity(phase.count), false, Vec::new());
        let mut line = String::new();
        let outcome = loop {
            while let Ok(message) = sent_rx.try_recv() {
                match message {
                    Some(at) => sent_at.push(at),
                    None => done = true,
                }
            }
            if latencies.len() == sent_at.len() {
                match (done, sent_rx.recv()) {
                    (true, _) => break Ok(()),
                    (false, Ok(Some(at))) => sent_at.push(at),
                    (false, Ok(None)) => done = true,
                    (false, Err(_)) => break Err("the writer stopped".to_owned()),
                }
                continue;
            }
            if let Err(error) = reply_line(stdout, &mut line) {
                break Err(error);
            }
            let index =
                match check_reply(&line, "resource ").map(|id| id.checked_sub(phase.first_id)) {
                    Ok(Some(index)) => index as usize,
                    Ok(None) => break Err(format!("a reply to an earlier phase: {line:.300}")),
                    Err(error) => break Err(error),
                };
            // The reply may come before this thread has seen its announcement.
            while sent_at.len() <= index && !done {
                match sent_rx.recv() {
                    Ok(Some(at)) => sent_at.push(at),
                    Ok(None) | Err(_) => done = true,
                }
            }
            let Some(at) = sent_at.get(index) else {
                break Err(format!(
                    "a reply to a request not sent in this phase: {line:.300}"
                ));
            };
            latencies.push(at.elapsed());
            let _ = credit_tx.send(());
        };
        let elapsed = started.elapsed();
        drop(credit_tx);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err("the writer panicked".to_owned()));
        written.and(outcome).map(|()| Load { latencies, elapsed })
    })
}

/// Runs `job` on `concurrency` connections of their own, each thread taking the next number
/// from a shared counter until `job` says it is done.
fn on_connections<F>(http: &Http, concurrency: usize, job: F) -> Result<Load, String>
where
    F: Fn(&mut Connection, usize, &mut Vec<Duration>) -> Result<bool, String> + Sync,
{
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let per_connection: Vec<Result<Vec<Duration>, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..concurrency)
            .map(|_| {
                let (next, job) = (&next, &job);
                scope.spawn(move || -> Result<Vec<Duration>, String> {
                    let mut connection = Connection::open(http.port)?;
                    let mut latencies = Vec::new();
                    while job(
                        &mut connection,
                        next.fetch_add(1, Ordering::Relaxed),
                        &mut latencies,
                    )? {}
                    Ok(latencies)
                })
            })
            .collect();
        let panicked = || Err("a driver thread panicked".to_owned());
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|_| panicked()))
            .collect()
    });
    let elapsed = started.elapsed();
    let mut latencies = Vec::new();
    for result in per_connection {
        latencies.extend(result?);
    }
    Ok(Load { latencies, elapsed })
}

/// An HTTP reply as the driver needs it.
struct Reply {
    status: u16,
    session: Option<String>,
    /// The body is `text/event-stream`.
    event_stream: bool,
    body: String,
}

/// One keep-alive HTTP/1.1 connection.
struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    request: Vec<u8>,
}

impl Connection {
    fn open(port: u16) -> Result<Connection, String> {
        let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .map_err(|error| format!("cannot connect to 127.0.0.1:{port}: {error}"))?;
        let _ = stream.set_nodelay(true);
        stream
            .set_read_timeout(Some(REPLY_TIMEOUT))
            .and_then(|()| stream.try_clone())
            .map(|writer| Connection {
                reader: BufReader::with_capacity(1 << 16, stream),
                writer,
                request: Vec::with_capacity(2048),
            })
            .map_err(|error| format!("cannot set up a socket: {error}"))
    }

    /// Posts `request`, records how long the reply took, and checks that it is a 200 of the
    /// kind `http` asks for, holding `expect`.
    fn timed(
        &mut self,
        http: &Http,
        request: &Request,
        expect: &str,
        latencies: &mut Vec<Duration>,
    ) -> Result<(), String> {
        let sent = Instant::now();
        let reply = self.post(http, request)?;
        latencies.push(sent.elapsed());
        if reply.status != 200 || http.sse != reply.event_stream {
            let (status, sse, body) = (reply.status, reply.event_stream, &reply.body);
            return Err(format!(
                "HTTP {status} (SSE: {sse}, wanted {}): {body:.300}",
                http.sse
            ));
        }
        let body = if reply.event_stream {
            sse_response(&reply.body)?
        } else {
            &reply.body
        };
        check_reply(body, expect).map(drop)
    }

    fn post(&mut self, http: &Http, request: &Request) -> Result<Reply, String> {
        let (port, length) = (http.port, request.body.len());
        let buffer = &mut self.request;
        buffer.clear();
        let _ = write!(
            buffer,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n",
        );
        match request.era {
            Era::Modern => {
                let method = request.method;
                let _ = write!(
                    buffer,
                    "MCP-Protocol-Version: {MODERN}\r\nMcp-Method: {method}\r\n"
                );
                if let Some(name) = &request.name {
                    let _ = write!(buffer, "Mcp-Name: {name}\r\n");
                }
            }
            Era::Legacy if request.method != "initialize" => {
                let _ = write!(buffer, "MCP-Protocol-Version: {LEGACY}\r\n");
            }
            Era::Legacy => {}
        }
        if let Some(session) = &http.session {
            let _ = write!(buffer, "Mcp-Session-Id: {session}\r\n");
        }
        let _ = write!(buffer, "\r\n{}", request.body);
        self.writer
            .write_all(buffer)
            .map_err(|error| format!("cannot send a request: {error}"))?;
        self.read_reply()
    }

    fn read_reply(&mut self) -> Result<Reply, String> {
        let reader = &mut self.reader;
        let mut line = String::new();
        next_line(reader, &mut line)?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok());
        let status = status.ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
        let (mut length, mut chunked, mut session, mut event_stream) = (0, false, None, false);
        loop {
            next_line(reader, &mut line)?;
            let Some((name, value)) = line.trim_end().split_once(':') else {
                break;
            };
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().unwrap_or(0),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "mcp-session-id" => session = Some(value.to_owned()),
                "content-type" => event_stream = value.starts_with("text/event-stream"),
                _ => {}
            }
        }
        let mut body = Vec::new();
        loop {
            if chunked {
                next_line(reader, &mut line)?;
                let size = line.trim().split(';').next().unwrap_or("");
                length = usize::from_str_radix(size, 16)
                    .map_err(|_| format!("a bad chunk size {line:?}"))?;
            }
            let start = body.len();
            body.resize(start + length + if chunked { 2 } else { 0 }, 0);
            reader
                .read_exact(&mut body[start..])
                .map_err(|error| format!("cannot read a reply: {error}"))?;
            body.truncate(start + length);
            if !chunked || length == 0 {
                break;
            }
        }
        let body = String::from_utf8(body).map_err(|_| "a reply that is not UTF-8".to_owned())?;
        Ok(Reply {
            status,
            session,
            event_stream,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_carry_their_era() {
        let modern = Request::read(Era::Modern, 5, "mem:///r/0005".to_owned(), true);
        let value: Value = serde_json::from_str(&modern.body).expect("valid JSON");
        assert_eq!(
            (value["id"].as_u64(), value["params"]["uri"].as_str()),
            (Some(5), Some("mem:///r/0005"))
        );
        let meta = &value["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], MODERN);
        assert_eq!(meta["progressToken"], 5);
        assert_eq!(modern.name.as_deref(), Some("mem:///r/0005"));
        let legacy = Request::new(Era::Legacy, Some(1), "resources/list", json!({}));
        let value: Value = serde_json::from_str(&legacy.body).expect("valid JSON");
        assert_eq!(value["params"], json!({}));
        let notification =
            Request::new(Era::Legacy, None, "notifications/initialized", Value::Null);
        assert_eq!(
            serde_json::from_str::<Value>(&notification.body).expect("valid JSON"),
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
        );
    }

    #[test]
    fn replies_are_checked() {
        let read = r#"{"jsonrpc":"2.0","id":42,"result":{"text":"resource 0001"}}"#;
        assert_eq!(check_reply(read, "resource "), Ok(42));
        let spaced = r#"{"result":{"text":"resource 0001"},"jsonrpc":"2.0","id": 7}"#;
        assert_eq!(check_reply(spaced, "resource "), Ok(7));
        let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602}}"#;
        assert!(check_reply(error, "resource ").is_err());
        let sse = ": primed\n\n\
                   data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
                   data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"resource 0003\"}}\n\n";
        assert_eq!(
            check_reply(sse_response(sse).expect("a response"), "resource "),
            Ok(3)
        );
        assert!(sse_response("data: {\"method\":\"x\"}\n\n").is_err());
    }

    #[test]
    fn http_replies_are_read_whole() {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().expect("a connection");
            let mut request = Vec::new();
            while !request.ends_with(b"}") {
                let mut buffer = [0; 4096];
                let read = stream.read(&mut buffer).expect("a request");
                assert!(read > 0, "the request ended early");
                request.extend_from_slice(&buffer[..read]);
            }
            stream
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s1\r\n\
                      Transfer-Encoding: chunked\r\n\r\n5\r\ndata:\r\nB\r\n {\"id\":1}\n\n\r\n0\r\n\r\n",
                )
                .expect("a reply");
            String::from_utf8_lossy(&request).into_owned()
        });
        let http = Http {
            port,
            session: Some("s0".to_owned()),
            sse: true,
        };
        let request = Request::read(Era::Modern, 1, "mem:///r/0001".to_owned(), false);
        let reply =
            Connection::open(port).and_then(|mut connection| connection.post(&http, &request));
        let reply = reply.expect("a reply");
        assert_eq!(
            (reply.status, reply.session.as_deref(), reply.event_stream),
            (200, Some("s1"), true)
        );
        assert_eq!(sse_response(&reply.body), Ok("{\"id\":1}"));
        let sent = server.join().expect("the server thread");
        for header in [
            "Mcp-Method: resources/read\r\n",
            "Mcp-Name: mem:///r/0001\r\n",
            "Mcp-Session-Id: s0\r\n",
        ] {
            assert!(sent.contains(header), "{sent}");
        }
        assert!(sent.ends_with(&request.body));
    }
}
