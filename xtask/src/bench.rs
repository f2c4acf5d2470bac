//! `cargo xtask bench`: `mcp-resources` side by side with the official Rust SDK (`rmcp`) and
//! with a floor (what transport and JSON alone cost), on the same workload, in interleaved
//! rounds, with medians written to `BENCHMARKS.md` (issue 8).
//!
//! **Layer:** tooling. It builds our binary and the bench-only programs of `bench/rmcp-anchor`
//! (their own cargo workspace, never a dependency of the product) with the same [`PROFILE`]
//! (release, fat LTO, one codegen unit: what a deployment ships), writes a
//! configuration serving 1,000 text resources of 1 KiB (`mem:///r/0000`…) plus a template, and
//! the same texts as 1,000 files for the filesystem provider, starts every server as a child
//! process on loopback, and drives it with a load driver of its own: pipelined JSON lines on
//! stdio, keep-alive HTTP/1.1 connections over raw TCP (JSON or SSE replies). The fan-out of one
//! change to 10,000 streams is driven by a driver built the same way ([`fanout`]), and the
//! in-process list page is the core's own divan bench ([`pages`]). Server CPU
//! time comes from the server process's own scheduler statistics (the sum of
//! `/proc/<pid>/task/*/schedstat`, nanoseconds; its kernel share from the ticks in
//! `/proc/<pid>/task/*/stat`), peak RSS from `VmHWM` in
//! `/proc/<pid>/status`. It never links the product crates, and it kills every process it starts
//! on every exit path ([`Server`] kills on drop). Every figure it prints was measured; a run
//! whose replies are not the expected results fails the bench instead of giving a number.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::tidy::workspace_root;

mod fanout;
mod pages;
mod plan;
mod server;
mod stats;

use self::plan::{
    Era, FANOUT_STREAMS_PER_CONNECTION, FANOUT_STREAMS_TEXT, Plan, Subject, Transport, Wire,
};
use self::server::{
    Cpu, LOG_FILTER, Programs, RESOURCE_COUNT, Server, Serving, config_text, file_uri_prefix,
    peak_rss_mib, write_files,
};
use self::stats::{median, ratio};

const USAGE: &str = "usage: cargo xtask bench [--quick]

Builds mcp-resources and bench/rmcp-anchor (the rmcp anchor server, the floor and the fan-out
driver) with the `dist` profile (release with fat LTO and one codegen unit, the same for every
program), then measures resources/read at concurrency 1 and 32 on stdio and
Streamable HTTP (JSON and SSE replies, both eras, from the configuration and from the filesystem
provider), the resources/list walk, 100,000 subscriptions, the fan-out of one change to 10,000
streams (mcp-resources and two floors), and one list page out of up to 1,000,000 resources in-process (the core's divan bench),
in interleaved rounds, and writes BENCHMARKS.md.

  --quick            fewer rounds and shorter runs (a few minutes in all)
  --only TEXT        only the scenarios whose title contains TEXT (e.g. \"stdio, concurrency 32\")
  --subject TEXT     only the servers whose label contains TEXT (e.g. \"mcp-resources\")

With --only or --subject the report is printed but BENCHMARKS.md is left as it is: it always
holds a whole run.";

/// The cargo profile every benched program is built with, defined alike in the workspace's and
/// in `bench/rmcp-anchor`'s `Cargo.toml`: release with fat LTO and one codegen unit.
pub(crate) const PROFILE: &str = "dist";
/// The list page size every server uses.
const PAGE_SIZE: usize = 100;
/// How long a reply may take before the run is abandoned.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// How old the files must be before a server reads them: older than the two seconds within
/// which mcp-resources' read cache does not trust a file's metadata, so that every measured
/// read of a file is served as a user's repeated reads are.
const FILES_SETTLE: Duration = Duration::from_secs(3);
/// The subscriptions scenario: sessions, and subscriptions per session (the core's default
/// limit per subscriber is 1,000).
const SUBSCRIPTION_SESSIONS: usize = 100;
const SUBSCRIPTIONS_PER_SESSION: usize = 1_000;
/// The legacy protocol revision used on the wire.
pub(crate) const LEGACY: &str = "2025-11-25";
/// The modern protocol revision.
pub(crate) const MODERN: &str = "2026-07-28";

fn parse_options(args: &[String]) -> Result<Plan, String> {
    let mut quick = false;
    let mut only = None;
    let mut subject = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--only" => only = Some(args.next().ok_or("--only needs a value")?.clone()),
            "--subject" => subject = Some(args.next().ok_or("--subject needs a value")?.clone()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Plan {
        only,
        subject,
        ..Plan::new(quick)
    })
}

/// Runs `cargo xtask bench` with the arguments after the command name.
pub(crate) fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let plan = match parse_options(args) {
        Ok(plan) => plan,
        Err(message) => {
            eprintln!("bench: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run_plan(plan, args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Where mcp-resources takes the 1,000 resources of a read scenario from (rmcp and the floor
/// always serve them from memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    /// `[[resources]]` entries of the configuration (`mem:///r/0000`…).
    Config,
    /// 1,000 files of 1 KiB in a folder, `mcp-resources serve <dir>` (`file://…/r0000.txt`…).
    Files,
}

/// What is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Workload {
    /// `resources/read` of the 1 KiB resources, round robin, at this concurrency.
    Read { source: Source, concurrency: usize },
    /// Full `resources/list` walks with pages of 100, one request at a time.
    ListWalk,
    /// 100,000 `resources/subscribe` over 100 legacy HTTP sessions (1,000 each, the most one
    /// subscriber may hold), 32 connections; mcp-resources only.
    Subscriptions,
    /// One file rewritten under the served folder (watcher on) with 10,000 streams subscribed
    /// to it; mcp-resources only.
    FanOut { era: Era, wire: Wire },
    /// One list page out of 1,000 / 100,000 / 1,000,000 resources, in-process (the core's
    /// divan bench).
    ListPage,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Scenario {
    workload: Workload,
    transport: Transport,
}

impl Scenario {
    fn title(&self) -> String {
        match self.workload {
            Workload::Read {
                concurrency,
                source: Source::Config,
            } => format!(
                "resources/read, {}, concurrency {concurrency}",
                self.transport.label()
            ),
            Workload::Read {
                concurrency,
                source: Source::Files,
            } => format!(
                "resources/read of 1,000 files (mcp-resources: filesystem provider; rmcp and the floor: \
                 in memory), {}, concurrency {concurrency}",
                self.transport.label()
            ),
            Workload::FanOut { era, wire } => format!(
                "fan-out of one file change to {FANOUT_STREAMS_TEXT} {}, Streamable HTTP over {}",
                match era {
                    Era::Modern => "subscriptions/listen streams (modern)",
                    Era::Legacy => "legacy sessions with a GET stream and resources/subscribe",
                },
                wire.label(),
            ),
            Workload::ListPage => {
                "one resources/list page of 100 out of 1,000 / 100,000 / 1,000,000 resources, in-process".to_owned()
            }
            Workload::ListWalk => format!(
                "resources/list walk (1,000 resources, pages of {PAGE_SIZE}), {}, concurrency 1; figures per page",
                self.transport.label()
            ),
            Workload::Subscriptions => format!(
                "{} resources/subscribe over {SUBSCRIPTION_SESSIONS} legacy sessions ({} each), {}, concurrency 32; \
                 peak RSS with all of them held; figures per subscribe",
                SUBSCRIPTION_SESSIONS * SUBSCRIPTIONS_PER_SESSION,
                SUBSCRIPTIONS_PER_SESSION,
                self.transport.label()
            ),
        }
    }

    fn subjects(&self) -> Vec<Subject> {
        match self.workload {
            Workload::Subscriptions => return vec![Subject::Ours(Era::Legacy)],
            // The floors answer modern listen streams only.
            Workload::FanOut {
                era: Era::Legacy, ..
            } => return vec![Subject::Ours(Era::Legacy)],
            Workload::FanOut {
                era: Era::Modern,
                wire: Wire::Http1,
            } => return vec![Subject::Ours(Era::Modern), Subject::Floor(Era::Modern)],
            Workload::FanOut {
                era: Era::Modern,
                wire: Wire::Http2,
            } => {
                return vec![
                    Subject::Ours(Era::Modern),
                    Subject::Floor(Era::Modern),
                    Subject::FloorPerConnection,
                ];
            }
            Workload::ListPage => return Vec::new(),
            Workload::Read { .. } | Workload::ListWalk => {}
        }
        let mut subjects = vec![
            Subject::Ours(Era::Legacy),
            Subject::Rmcp(Era::Legacy),
            Subject::Ours(Era::Modern),
            Subject::Rmcp(Era::Modern),
        ];
        subjects.push(Subject::Floor(Era::Legacy));
        subjects.push(Subject::Floor(Era::Modern));
        subjects
    }
}

/// The figures of one measured run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Figures {
    requests_per_second: f64,
    p50_us: f64,
    p99_us: f64,
    cpu_us_per_request: f64,
    /// The part of that CPU time spent in the kernel, in percent.
    kernel_percent: f64,
    peak_rss_mib: f64,
}

fn run_plan(plan: Plan, args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    let target = target_dir(&root);
    let work = target.join("bench-work");
    fs::create_dir_all(work.join("empty"))
        .map_err(|error| format!("cannot create {}: {error}", work.display()))?;
    let config = work.join("resources.toml");
    fs::write(&config, config_text())
        .map_err(|error| format!("cannot write {}: {error}", config.display()))?;
    let files = work.join("files");
    write_files(&files)?;
    let files_written = Instant::now();

    eprintln!("bench: building mcp-resources (profile {PROFILE})");
    cargo_build(
        &root,
        &[
            "build",
            "--profile",
            PROFILE,
            "--package",
            "mcp-server-bin",
            "--bin",
            "mcp-resources",
        ],
        None,
    )?;
    let ours = target.join(PROFILE).join("mcp-resources");
    eprintln!("bench: building bench/rmcp-anchor (profile {PROFILE})");
    let bench_target = target.join("bench");
    let manifest = root.join("bench/rmcp-anchor/Cargo.toml");
    let manifest = manifest.to_string_lossy();
    cargo_build(
        &root,
        &["build", "--profile", PROFILE, "--manifest-path", &manifest],
        Some(&bench_target),
    )?;
    let programs = Programs {
        root: root.clone(),
        ours,
        anchor: bench_target.join(PROFILE).join("rmcp-anchor"),
        floor: bench_target.join(PROFILE).join("bench-floor"),
        fanout: bench_target.join(PROFILE).join("bench-fanout"),
        config,
        files,
        files_written,
        fanout_files: work.join("fanout-files"),
        logs: work.clone(),
    };

    let mut scenarios = all_scenarios();
    if let Some(only) = &plan.only {
        scenarios.retain(|scenario| scenario.title().contains(only.as_str()));
        if scenarios.is_empty() {
            return Err(format!("no scenario title contains {only:?}"));
        }
    }

    let started = Instant::now();
    let mut results = Results::default();
    for scenario in &scenarios {
        eprintln!("bench: {}", scenario.title());
        let wanted = |label: &str| {
            plan.subject
                .as_ref()
                .is_none_or(|wanted| label.contains(wanted.as_str()))
        };
        match scenario.workload {
            Workload::FanOut { era, wire } => {
                for round in 0..plan.fanout_rounds {
                    // Interleaved, as the request loads are.
                    for subject in scenario.subjects() {
                        if !wanted(subject.label()) {
                            continue;
                        }
                        let changes = fanout::measure(&programs, &plan, subject, era, wire)
                            .map_err(|error| {
                                format!(
                                    "{} / {} / round {}: {error}",
                                    scenario.title(),
                                    subject.label(),
                                    round + 1
                                )
                            })?;
                        results
                            .fanouts
                            .entry(*scenario)
                            .or_default()
                            .entry(subject)
                            .or_default()
                            .extend(changes);
                    }
                }
                continue;
            }
            Workload::ListPage => {
                if wanted(pages::SUBJECT) {
                    results.pages = pages::measure(&programs, &plan)
                        .map_err(|error| format!("{}: {error}", scenario.title()))?;
                }
                continue;
            }
            Workload::Read { .. } | Workload::ListWalk | Workload::Subscriptions => {}
        }
        for round in 0..plan.rounds {
            // Interleaved: every subject once per round, in the same order.
            for subject in scenario.subjects() {
                if plan
                    .subject
                    .as_ref()
                    .is_some_and(|wanted| !subject.label().contains(wanted.as_str()))
                {
                    continue;
                }
                let figures = measure(&programs, &plan, *scenario, subject).map_err(|error| {
                    format!("{} / {}: {error}", scenario.title(), subject.label())
                })?;
                eprintln!(
                    "  round {} {:<45} {:>9.0} req/s  cpu {:>7.1} µs/req ({:>3.0}% kernel)  p50 {:>8.1} µs  p99 {:>8.1} µs  rss {:>6.1} MiB",
                    round + 1,
                    subject.label(),
                    figures.requests_per_second,
                    figures.cpu_us_per_request,
                    figures.kernel_percent,
                    figures.p50_us,
                    figures.p99_us,
                    figures.peak_rss_mib
                );
                results
                    .loads
                    .entry(*scenario)
                    .or_default()
                    .entry(subject)
                    .or_default()
                    .push(figures);
            }
        }
    }

    let command = if args.is_empty() {
        "cargo xtask bench".to_owned()
    } else {
        format!("cargo xtask bench {}", args.join(" "))
    };
    let report = render_report(&plan, &command, &results, started.elapsed());
    if plan.is_partial() {
        println!("{report}");
        eprintln!("bench: a partial run (--only/--subject): BENCHMARKS.md is left as it is");
        return Ok(());
    }
    let path = root.join("BENCHMARKS.md");
    fs::write(&path, &report)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    println!("{report}");
    eprintln!("bench: wrote {}", path.display());
    Ok(())
}

/// Every scenario of a whole run, in the order they run and are reported.
fn all_scenarios() -> Vec<Scenario> {
    let mut scenarios = Vec::new();
    for source in [Source::Config, Source::Files] {
        for transport in [Transport::Stdio, Transport::Http] {
            for concurrency in [1, 32] {
                scenarios.push(Scenario {
                    workload: Workload::Read {
                        concurrency,
                        source,
                    },
                    transport,
                });
            }
        }
    }
    for concurrency in [1, 32] {
        scenarios.push(Scenario {
            workload: Workload::Read {
                concurrency,
                source: Source::Config,
            },
            transport: Transport::HttpSse,
        });
    }
    for transport in [Transport::Stdio, Transport::Http] {
        scenarios.push(Scenario {
            workload: Workload::ListWalk,
            transport,
        });
    }
    scenarios.push(Scenario {
        workload: Workload::Subscriptions,
        transport: Transport::Http,
    });
    for era in [Era::Modern, Era::Legacy] {
        for wire in [Wire::Http1, Wire::Http2] {
            scenarios.push(Scenario {
                workload: Workload::FanOut { era, wire },
                transport: Transport::Http,
            });
        }
    }
    scenarios.push(Scenario {
        workload: Workload::ListPage,
        transport: Transport::Stdio,
    });
    scenarios
}

/// Everything one invocation measured.
#[derive(Default)]
struct Results {
    /// Request loads: every run of every subject.
    loads: BTreeMap<Scenario, BTreeMap<Subject, Vec<Figures>>>,
    /// Fan-out: every change of every run, by server.
    fanouts: BTreeMap<Scenario, BTreeMap<Subject, Vec<fanout::FanOut>>>,
    /// The in-process list page, by total.
    pages: Vec<pages::Page>,
}

/// Where cargo puts what it builds: `CARGO_TARGET_DIR`, or `target` in the workspace.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

pub(crate) fn cargo_build(
    root: &Path,
    args: &[&str],
    target_dir: Option<&Path>,
) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(root).args(args);
    if let Some(dir) = target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    let status = command
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

/// Starts the subject, shakes hands, warms up, measures, and stops it.
fn measure(
    programs: &Programs,
    plan: &Plan,
    scenario: Scenario,
    subject: Subject,
) -> Result<Figures, String> {
    let (serving, uris) = match (scenario.workload, subject) {
        (
            Workload::Read {
                source: Source::Files,
                ..
            },
            Subject::Ours(_),
        ) => (
            Serving::Files {
                dir: &programs.files,
                watch: false,
            },
            Uris {
                prefix: format!("{}r", file_uri_prefix(&programs.files)?),
                suffix: ".txt",
            },
        ),
        _ => (Serving::Config, Uris::memory()),
    };
    if matches!(serving, Serving::Files { .. }) {
        std::thread::sleep(FILES_SETTLE.saturating_sub(programs.files_written.elapsed()));
    }
    let mut server = Server::start(programs, subject, scenario.transport, serving)?;
    let result = measure_started(&mut server, plan, scenario, subject, &uris);
    result.map_err(|error| format!("{error}{}", server.log_tail()))
}

fn measure_started(
    server: &mut Server,
    plan: &Plan,
    scenario: Scenario,
    subject: Subject,
    uris: &Uris,
) -> Result<Figures, String> {
    let pid = server.pid();
    let era = subject.era();
    let mut client = match scenario.transport {
        Transport::Stdio => {
            let (stdin, stdout) = server.stdio.take().ok_or("the server has no pipes")?;
            Client::Stdio(StdioClient {
                stdin: BufWriter::with_capacity(1 << 16, stdin),
                stdout,
                pid,
            })
        }
        Transport::Http | Transport::HttpSse => Client::Http(HttpClient {
            port: server.port.ok_or("the server has no port")?,
            session: None,
            sse: scenario.transport == Transport::HttpSse,
        }),
    };
    if era == Era::Legacy
        && !matches!(subject, Subject::Floor(_))
        && scenario.workload != Workload::Subscriptions
    {
        client.initialize()?;
    }
    match scenario.workload {
        Workload::Read { concurrency, .. } => {
            let count = if concurrency == 1 {
                plan.count_c1
            } else {
                plan.count_c32
            };
            let warmup = Phase {
                count: plan.warmup,
                limit: plan.run_time,
                first_id: 1_000_000,
            };
            client.read_load(era, concurrency, warmup, uris)?;
            let before = Cpu::of(pid)?;
            let measured = Phase {
                count,
                limit: plan.run_time,
                first_id: 10_000_000,
            };
            let load = client.read_load(era, concurrency, measured, uris)?;
            let used = Cpu::of(pid)?.since(before);
            Ok(load.figures(used, peak_rss_mib(pid)?))
        }
        Workload::ListWalk => {
            client.list_walks(era, 3, 1_000_000)?;
            let before = Cpu::of(pid)?;
            let load = client.list_walks(era, plan.walks, 10_000_000)?;
            let used = Cpu::of(pid)?.since(before);
            Ok(load.figures(used, peak_rss_mib(pid)?))
        }
        Workload::Subscriptions => {
            let Client::Http(client) = &client else {
                return Err("subscriptions are measured on HTTP only".to_owned());
            };
            let sessions = client.open_sessions(SUBSCRIPTION_SESSIONS)?;
            let before = Cpu::of(pid)?;
            let load = client.subscribe_load(&sessions, SUBSCRIPTIONS_PER_SESSION, 32)?;
            let used = Cpu::of(pid)?.since(before);
            Ok(load.figures(used, peak_rss_mib(pid)?))
        }
        Workload::FanOut { .. } | Workload::ListPage => {
            Err("not a request load: measured on its own".to_owned())
        }
    }
}

/// What one load phase observed.
struct Load {
    latencies: Vec<Duration>,
    elapsed: Duration,
}

impl Load {
    fn figures(&self, cpu: Cpu, peak_rss_mib: f64) -> Figures {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let quantile = |q: f64| -> f64 {
            if sorted.is_empty() {
                return 0.0;
            }
            let index = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
            sorted[index].as_secs_f64() * 1e6
        };
        let count = self.latencies.len().max(1) as f64;
        Figures {
            requests_per_second: self.latencies.len() as f64 / self.elapsed.as_secs_f64(),
            p50_us: quantile(0.50),
            p99_us: quantile(0.99),
            cpu_us_per_request: cpu.ns as f64 / 1e3 / count,
            kernel_percent: cpu.kernel_percent(),
            peak_rss_mib,
        }
    }
}

/// The JSON-RPC request body for `method` with `params` (an object's members), in `era`.
fn request_body(era: Era, id: u64, method: &str, params: &str) -> String {
    request_body_with_meta(era, id, method, params, "")
}

/// [`request_body`] with `meta` (members of `params._meta`, e.g. a progress token) added.
fn request_body_with_meta(era: Era, id: u64, method: &str, params: &str, meta: &str) -> String {
    let comma = if params.is_empty() { "" } else { "," };
    match (era, meta.is_empty()) {
        (Era::Legacy, true) => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
        }
        (Era::Legacy, false) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{comma}"_meta":{{{meta}}}}}}}"#
        ),
        (Era::Modern, _) => {
            let meta_comma = if meta.is_empty() { "" } else { "," };
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{comma}"_meta":{{{meta}{meta_comma}"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            )
        }
    }
}

/// The URIs of the 1,000 resources a read scenario goes round robin over:
/// `{prefix}{index:04}{suffix}`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Uris {
    prefix: String,
    suffix: &'static str,
}

impl Uris {
    /// `mem:///r/0000`…: the configuration's resources, rmcp's and the floor's.
    fn memory() -> Uris {
        Uris {
            prefix: "mem:///r/".to_owned(),
            suffix: "",
        }
    }

    fn at(&self, n: u64) -> String {
        format!(
            "{}{:04}{}",
            self.prefix,
            n % RESOURCE_COUNT as u64,
            self.suffix
        )
    }
}

/// One phase of a read load: at most `count` requests, at most `limit` long, ids from
/// `first_id`.
#[derive(Clone, Copy, Debug)]
struct Phase {
    count: usize,
    limit: Duration,
    first_id: u64,
}

/// Checks that a reply is a successful result with the expected content, and returns its id.
fn check_reply(body: &str, expect: &str) -> Result<u64, String> {
    let short = || body.chars().take(300).collect::<String>();
    if !body.contains("\"result\"") || !body.contains(expect) {
        return Err(format!(
            "unexpected reply (wanted a result holding {expect:?}): {}",
            short()
        ));
    }
    let at = body
        .find("\"id\":")
        .ok_or_else(|| format!("a reply without an id: {}", short()))?;
    let digits: String = body[at + 5..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .map_err(|_| format!("a reply without a numeric id: {}", short()))
}

enum Client {
    Stdio(StdioClient),
    Http(HttpClient),
}

struct StdioClient {
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    pid: u32,
}

struct HttpClient {
    port: u16,
    session: Option<String>,
    /// Reads ask for (and must get) SSE replies.
    sse: bool,
}

const INITIALIZE_PARAMS: &str = r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cargo-xtask-bench","version":"0.0.0"}"#;

impl Client {
    fn initialize(&mut self) -> Result<(), String> {
        let initialize = request_body(Era::Legacy, 0, "initialize", INITIALIZE_PARAMS);
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        match self {
            Client::Stdio(client) => {
                client.send_line(&initialize)?;
                client
                    .stdin
                    .flush()
                    .map_err(|error| format!("cannot write to the server: {error}"))?;
                let reply = client.receive_line()?;
                check_reply(&reply, "protocolVersion")?;
                client.send_line(initialized)?;
                client
                    .stdin
                    .flush()
                    .map_err(|error| format!("cannot write to the server: {error}"))
            }
            Client::Http(client) => {
                let mut connection = client.connect()?;
                let reply = connection.post(client, &initialize, "initialize", None)?;
                if reply.event_stream {
                    check_reply(sse_response(&reply.body)?, "protocolVersion")?;
                } else {
                    check_reply(&reply.body, "protocolVersion")?;
                }
                client.session = reply.session;
                let reply =
                    connection.post(client, initialized, "notifications/initialized", None)?;
                if reply.status / 100 != 2 {
                    return Err(format!(
                        "notifications/initialized answered {}",
                        reply.status
                    ));
                }
                Ok(())
            }
        }
    }

    /// The reads of `phase` over `uris` with `concurrency` in flight.
    fn read_load(
        &mut self,
        era: Era,
        concurrency: usize,
        phase: Phase,
        uris: &Uris,
    ) -> Result<Load, String> {
        match self {
            Client::Stdio(client) => client.read_load(era, concurrency, phase, uris),
            Client::Http(client) => client.read_load(era, concurrency, phase, uris),
        }
    }

    /// `walks` full list walks, one request at a time; one latency per page.
    fn list_walks(&mut self, era: Era, walks: usize, first_id: u64) -> Result<Load, String> {
        let mut connection = match self {
            Client::Http(client) => Some(client.connect()?),
            Client::Stdio(_) => None,
        };
        let mut latencies = Vec::new();
        let mut id = first_id;
        let started = Instant::now();
        for _ in 0..walks {
            let mut cursor: Option<String> = None;
            let mut seen = 0;
            loop {
                let params = cursor
                    .as_ref()
                    .map(|cursor| format!(r#""cursor":{}"#, Value::String(cursor.clone())))
                    .unwrap_or_default();
                let body = request_body(era, id, "resources/list", &params);
                id += 1;
                let sent = Instant::now();
                let reply = match (&mut *self, &mut connection) {
                    (Client::Stdio(client), _) => {
                        client.send_line(&body)?;
                        client
                            .stdin
                            .flush()
                            .map_err(|error| format!("cannot write to the server: {error}"))?;
                        client.receive_line()?
                    }
                    (Client::Http(client), Some(connection)) => {
                        connection.post(client, &body, "resources/list", None)?.body
                    }
                    (Client::Http(_), None) => return Err("no connection".to_owned()),
                };
                latencies.push(sent.elapsed());
                let value: Value = serde_json::from_str(&reply)
                    .map_err(|error| format!("a list reply is not JSON ({error})"))?;
                let result = value
                    .get("result")
                    .ok_or_else(|| format!("a list reply without a result: {value}"))?;
                seen += result
                    .get("resources")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                match result.get("nextCursor").and_then(Value::as_str) {
                    Some(next) => cursor = Some(next.to_owned()),
                    None => break,
                }
                if seen > RESOURCE_COUNT * 2 {
                    return Err("the list walk does not end".to_owned());
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
}

/// What the stdio writer tells the reader.
enum Sent {
    At(Instant),
    Done,
}

impl StdioClient {
    fn send_line(&mut self, line: &str) -> Result<(), String> {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .map_err(|error| format!("cannot write to the server: {error}"))
    }

    /// The next reply line; notifications are skipped.
    fn receive_line(&mut self) -> Result<String, String> {
        loop {
            let mut line = String::new();
            let read = self
                .stdout
                .read_line(&mut line)
                .map_err(|error| format!("cannot read from the server: {error}"))?;
            if read == 0 {
                return Err("the server closed stdout".to_owned());
            }
            if line.contains("\"id\"") {
                return Ok(line);
            }
        }
    }

    /// Pipelined reads: a writer thread keeps up to `concurrency` requests in flight, this
    /// thread reads the replies; a watchdog kills the server if a reply takes too long.
    fn read_load(
        &mut self,
        era: Era,
        concurrency: usize,
        phase: Phase,
        uris: &Uris,
    ) -> Result<Load, String> {
        let Phase {
            count,
            limit,
            first_id,
        } = phase;
        let (sent_tx, sent_rx) = mpsc::channel::<Sent>();
        let (credit_tx, credit_rx) = mpsc::channel::<()>();
        let (progress_tx, progress_rx) = mpsc::channel::<bool>();
        let pid = self.pid;
        let stdin = &mut self.stdin;
        let stdout = &mut self.stdout;
        std::thread::scope(|scope| {
            let writer = scope.spawn(move || -> Result<(), String> {
                let started = Instant::now();
                let mut in_flight = 0;
                for n in 0..count as u64 {
                    if started.elapsed() > limit {
                        break;
                    }
                    while in_flight >= concurrency {
                        if credit_rx.try_recv().is_ok() {
                            in_flight -= 1;
                            continue;
                        }
                        stdin
                            .flush()
                            .map_err(|error| format!("cannot write to the server: {error}"))?;
                        credit_rx
                            .recv()
                            .map_err(|_| "the reader stopped".to_owned())?;
                        in_flight -= 1;
                    }
                    let body = request_body(
                        era,
                        first_id + n,
                        "resources/read",
                        &format!(r#""uri":"{}""#, uris.at(n)),
                    );
                    let _ = sent_tx.send(Sent::At(Instant::now()));
                    stdin
                        .write_all(body.as_bytes())
                        .and_then(|()| stdin.write_all(b"\n"))
                        .map_err(|error| format!("cannot write to the server: {error}"))?;
                    in_flight += 1;
                }
                stdin
                    .flush()
                    .map_err(|error| format!("cannot write to the server: {error}"))?;
                let _ = sent_tx.send(Sent::Done);
                Ok(())
            });
            let watchdog = scope.spawn(move || {
                loop {
                    match progress_rx.recv_timeout(REPLY_TIMEOUT) {
                        Ok(true) => {}
                        Ok(false) | Err(mpsc::RecvTimeoutError::Disconnected) => return false,
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            // The server stalled: kill it (by its id, which we started) so that
                            // the reader sees end of file.
                            let _ = Command::new("kill")
                                .args(["-KILL", &pid.to_string()])
                                .status();
                            return true;
                        }
                    }
                }
            });
            let started = Instant::now();
            let mut sent_at: Vec<Instant> = Vec::with_capacity(count);
            let mut done = false;
            let mut latencies = Vec::with_capacity(count);
            let mut line = String::new();
            let outcome = loop {
                // Learn about everything sent so far; wait for the writer when nothing is in flight.
                while let Ok(message) = sent_rx.try_recv() {
                    match message {
                        Sent::At(at) => sent_at.push(at),
                        Sent::Done => done = true,
                    }
                }
                if latencies.len() == sent_at.len() {
                    if done {
                        break Ok(());
                    }
                    match sent_rx.recv() {
                        Ok(Sent::At(at)) => sent_at.push(at),
                        Ok(Sent::Done) => done = true,
                        // The writer ended without saying so: it failed.
                        Err(_) => break Err("the writer stopped".to_owned()),
                    }
                    continue;
                }
                line.clear();
                match stdout.read_line(&mut line) {
                    Ok(0) => break Err("the server closed stdout".to_owned()),
                    Ok(_) => {}
                    Err(error) => break Err(format!("cannot read from the server: {error}")),
                }
                if !line.contains("\"id\"") {
                    continue;
                }
                let id = match check_reply(&line, "resource ") {
                    Ok(id) => id,
                    Err(error) => break Err(error),
                };
                // The writer announces a request just before writing it, so the reply may
                // come before this thread has seen the announcement: wait for it.
                let index = id.saturating_sub(first_id) as usize;
                while sent_at.len() <= index && !done {
                    match sent_rx.recv() {
                        Ok(Sent::At(at)) => sent_at.push(at),
                        Ok(Sent::Done) | Err(_) => done = true,
                    }
                }
                let Some(at) = id
                    .checked_sub(first_id)
                    .and_then(|index| sent_at.get(index as usize))
                else {
                    break Err(format!(
                        "a reply to id {id}, which was not sent in this phase"
                    ));
                };
                latencies.push(at.elapsed());
                let _ = progress_tx.send(true);
                let _ = credit_tx.send(());
            };
            let elapsed = started.elapsed();
            let _ = progress_tx.send(false);
            drop(credit_tx);
            let killed = watchdog.join().unwrap_or(false);
            let written = writer
                .join()
                .unwrap_or_else(|_| Err("the writer panicked".to_owned()));
            if killed {
                return Err(format!(
                    "no reply within {REPLY_TIMEOUT:?}; the server was killed"
                ));
            }
            outcome?;
            written?;
            Ok(Load { latencies, elapsed })
        })
    }
}

/// An HTTP reply as the driver needs it.
struct Reply {
    status: u16,
    session: Option<String>,
    /// The body is `text/event-stream`.
    event_stream: bool,
    body: String,
}

/// The JSON-RPC response among the events of an SSE body: the one `data` that has an `id`
/// (notifications before it, such as progress, and empty priming events are passed over).
fn sse_response(body: &str) -> Result<&str, String> {
    body.split("\n\n")
        .flat_map(|event| event.lines())
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| data.contains("\"id\""))
        .ok_or_else(|| {
            format!(
                "an SSE body without a response: {}",
                body.chars().take(300).collect::<String>()
            )
        })
}

/// One keep-alive HTTP/1.1 connection.
struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    request: Vec<u8>,
}

impl HttpClient {
    fn connect(&self) -> Result<Connection, String> {
        let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))
            .map_err(|error| format!("cannot connect to 127.0.0.1:{}: {error}", self.port))?;
        let _ = stream.set_nodelay(true);
        stream
            .set_read_timeout(Some(REPLY_TIMEOUT))
            .map_err(|error| format!("cannot set a timeout: {error}"))?;
        let writer = stream
            .try_clone()
            .map_err(|error| format!("cannot clone a socket: {error}"))?;
        Ok(Connection {
            reader: BufReader::with_capacity(1 << 16, stream),
            writer,
            request: Vec::with_capacity(2048),
        })
    }

    /// Reads on `concurrency` connections, each one request at a time.
    fn read_load(
        &self,
        era: Era,
        concurrency: usize,
        phase: Phase,
        uris: &Uris,
    ) -> Result<Load, String> {
        let Phase {
            count,
            limit,
            first_id,
        } = phase;
        self.on_connections(concurrency, |connection, n, started, latencies| {
            if n >= count || started.elapsed() > limit {
                return Ok(false);
            }
            let uri = uris.at(n as u64);
            let id = first_id + n as u64;
            // An SSE reply is asked for with a progress token (see `Transport::HttpSse`).
            let progress = format!(r#""progressToken":{id}"#);
            let body = request_body_with_meta(
                era,
                id,
                "resources/read",
                &format!(r#""uri":"{uri}""#),
                if self.sse { &progress } else { "" },
            );
            connection.timed_post(
                self,
                &body,
                ("resources/read", Some(&uri)),
                "resource ",
                latencies,
            )?;
            Ok(true)
        })
    }

    /// Runs `job` on `concurrency` connections of their own, each thread taking the next
    /// number from a shared counter until `job` says it is done; the latencies of all threads
    /// together make the load.
    fn on_connections<F>(&self, concurrency: usize, job: F) -> Result<Load, String>
    where
        F: Fn(&mut Connection, usize, Instant, &mut Vec<Duration>) -> Result<bool, String> + Sync,
    {
        let next = AtomicUsize::new(0);
        let started = Instant::now();
        let per_connection: Vec<Result<Vec<Duration>, String>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..concurrency)
                .map(|_| {
                    let (next, job) = (&next, &job);
                    scope.spawn(move || -> Result<Vec<Duration>, String> {
                        let mut connection = self.connect()?;
                        let mut latencies = Vec::new();
                        while job(
                            &mut connection,
                            next.fetch_add(1, Ordering::Relaxed),
                            started,
                            &mut latencies,
                        )? {}
                        Ok(latencies)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|_| Err("a driver thread panicked".to_owned()))
                })
                .collect()
        });
        let elapsed = started.elapsed();
        let mut latencies = Vec::new();
        for result in per_connection {
            latencies.extend(result?);
        }
        Ok(Load { latencies, elapsed })
    }
}

impl HttpClient {
    /// Opens `count` legacy sessions (`initialize`, then `notifications/initialized`).
    fn open_sessions(&self, count: usize) -> Result<Vec<HttpClient>, String> {
        let mut connection = self.connect()?;
        let initialize = request_body(Era::Legacy, 0, "initialize", INITIALIZE_PARAMS);
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let mut sessions = Vec::with_capacity(count);
        for _ in 0..count {
            let reply = connection.post(self, &initialize, "initialize", None)?;
            check_reply(&reply.body, "protocolVersion")?;
            let session = HttpClient {
                port: self.port,
                session: Some(
                    reply
                        .session
                        .ok_or("initialize answered without Mcp-Session-Id")?,
                ),
                sse: false,
            };
            let reply =
                connection.post(&session, initialized, "notifications/initialized", None)?;
            if reply.status / 100 != 2 {
                return Err(format!(
                    "notifications/initialized answered {}",
                    reply.status
                ));
            }
            sessions.push(session);
        }
        Ok(sessions)
    }

    /// `per_session` subscriptions to distinct template URIs in every session, the sessions
    /// shared out over `concurrency` connections.
    fn subscribe_load(
        &self,
        sessions: &[HttpClient],
        per_session: usize,
        concurrency: usize,
    ) -> Result<Load, String> {
        self.on_connections(concurrency, |connection, index, _, latencies| {
            let Some(session) = sessions.get(index) else {
                return Ok(false);
            };
            for n in 0..per_session {
                let id = (index * per_session + n) as u64;
                let uri = format!("mem:///t/{id}");
                let body = request_body(
                    Era::Legacy,
                    id + 1,
                    "resources/subscribe",
                    &format!(r#""uri":"{uri}""#),
                );
                connection.timed_post(
                    session,
                    &body,
                    ("resources/subscribe", None),
                    "\"result\"",
                    latencies,
                )?;
            }
            Ok(true)
        })
    }
}

impl Connection {
    /// Posts `body`, records how long the reply took, and checks that it is a 200 holding
    /// `expect`.
    fn timed_post(
        &mut self,
        client: &HttpClient,
        body: &str,
        (method, name): (&str, Option<&str>),
        expect: &str,
        latencies: &mut Vec<Duration>,
    ) -> Result<(), String> {
        let sent = Instant::now();
        let reply = self.post(client, body, method, name)?;
        latencies.push(sent.elapsed());
        if reply.status != 200 {
            return Err(format!(
                "HTTP {}: {}",
                reply.status,
                reply.body.chars().take(300).collect::<String>()
            ));
        }
        if client.sse != reply.event_stream {
            return Err(format!(
                "wanted {} reply, got: {}",
                if client.sse { "an SSE" } else { "a JSON" },
                reply.body.chars().take(300).collect::<String>()
            ));
        }
        if reply.event_stream {
            check_reply(sse_response(&reply.body)?, expect).map(drop)
        } else {
            check_reply(&reply.body, expect).map(drop)
        }
    }

    fn post(
        &mut self,
        client: &HttpClient,
        body: &str,
        method: &str,
        name: Option<&str>,
    ) -> Result<Reply, String> {
        let modern = body.contains("io.modelcontextprotocol/protocolVersion");
        self.request.clear();
        let request = &mut self.request;
        let _ = write!(
            VecWriter(request),
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            client.port,
            body.len()
        );
        if modern {
            let _ = write!(
                VecWriter(request),
                "MCP-Protocol-Version: {MODERN}\r\nMcp-Method: {method}\r\n"
            );
            if let Some(name) = name {
                let _ = write!(VecWriter(request), "Mcp-Name: {name}\r\n");
            }
        } else if method != "initialize" {
            let _ = write!(VecWriter(request), "MCP-Protocol-Version: {LEGACY}\r\n");
        }
        if let Some(session) = &client.session {
            let _ = write!(VecWriter(request), "Mcp-Session-Id: {session}\r\n");
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(body.as_bytes());
        self.writer
            .write_all(request)
            .map_err(|error| format!("cannot send a request: {error}"))?;
        self.read_reply()
    }

    fn read_reply(&mut self) -> Result<Reply, String> {
        let mut line = String::new();
        let header = |line: &mut String, reader: &mut BufReader<TcpStream>| -> Result<(), String> {
            line.clear();
            match reader.read_line(line) {
                Ok(0) => Err("the server closed the connection".to_owned()),
                Ok(_) => Ok(()),
                Err(error) => Err(format!("cannot read a reply: {error}")),
            }
        };
        header(&mut line, &mut self.reader)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
        let mut length = None;
        let mut chunked = false;
        let mut session = None;
        let mut event_stream = false;
        loop {
            header(&mut line, &mut self.reader)?;
            let text = line.trim_end();
            if text.is_empty() {
                break;
            }
            let Some((name, value)) = text.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            } else if name.eq_ignore_ascii_case("mcp-session-id") {
                session = Some(value.to_owned());
            } else if name.eq_ignore_ascii_case("content-type") {
                event_stream = value.starts_with("text/event-stream");
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                header(&mut line, &mut self.reader)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| format!("a bad chunk size {line:?}"))?;
                let start = body.len();
                body.resize(start + size + 2, 0);
                self.reader
                    .read_exact(&mut body[start..])
                    .map_err(|error| format!("cannot read a reply: {error}"))?;
                body.truncate(start + size);
                if size == 0 {
                    break;
                }
            }
        } else {
            body.resize(length.unwrap_or(0), 0);
            self.reader
                .read_exact(&mut body)
                .map_err(|error| format!("cannot read a reply: {error}"))?;
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

/// `write!` into a byte vector.
struct VecWriter<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for VecWriter<'_> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

fn median_figures(runs: &[Figures]) -> Figures {
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

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                line.strip_prefix("model name")
                    .and_then(|rest| rest.split_once(':'))
                    .map(|(_, model)| model.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    format!("{cores} cores (nproc), {model}")
}

fn utc_now() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map(|text| text.trim().to_owned())
        .unwrap_or_else(|| "unknown date".to_owned())
}

/// One section for the fan-out scenarios, a row per era, wire and server.
fn render_fanouts(
    out: &mut String,
    fanouts: &BTreeMap<Scenario, BTreeMap<Subject, Vec<fanout::FanOut>>>,
) {
    let _ = writeln!(
        out,
        "## Fan-out of one file change to {} streams, Streamable HTTP on 127.0.0.1\n\n\
         mcp-resources serves 1,000 files of 1 KiB with its watcher on (`mcp-resources serve --http … <dir>`); \
         every stream subscribes to the same file: modern, one `subscriptions/listen` POST per stream with \
         `resourceSubscriptions` (an SSE stream, open once acknowledged); legacy, one session per stream \
         (`initialize`, `resources/subscribe`, then the GET SSE stream). The streams reach the server over \
         HTTP/1.1, a connection per stream, or over HTTP/2 with prior knowledge (h2c), {} streams per \
         connection (the server's default limit). \
         The driver (`bench-fanout`, profile `dist`, one tokio thread; over HTTP/2 the `h2` crate's \
         client, each connection's task reading all of its streams) \
         checks every notification (method, URI and, modern, the stream's `subscriptionId` tag; a stream's \
         later notifications by length and 64-bit hash against the last one it passed, as they are the same); \
         it rewrites the file and times, from the end of the write, the first and the last \
         notification it reads. The watcher debounces (150 ms), so write → first and write → last include that wait. \
         **change → last** is the fan-out proper (target: under 20 ms; the max over all changes in brackets): \
         from the moment the server took the change, the timestamp of the line it logs just before notifying \
         (`{}`, with `--log-level {}`), to the last notification read. \
         first → last is shorter than it wherever notifications leave in a burst at the end: over HTTP/2 a \
         connection writes once every stream of it that was woken has its frame. \
         The server runs on core 0 and the driver on core 1 (`taskset`): left to itself, the kernel runs the \
         two on one core, the reader's beside the writer's, and the time measured would be the sum of their \
         CPU times. \
         CPU is the server's for the whole change, per notification; the driver's own CPU time per change \
         is given to show whether it, rather than the server, set the pace. Peak RSS is the server's \
         `VmHWM` with every stream open. \
         rmcp is not measured: it keeps no subscriptions (its `subscribe` handler is the application's to write).\n\n\
         The floors (`bench-floor fanout` and `fanout-h2`, profile `dist`, one tokio thread) answer modern \
         listen streams only, with no protocol machinery: each POST gets the acknowledgment and then, per \
         change, its own notification (typed serde; the tags differ); the change comes from a `notify` \
         watcher with the same debounce, logged with the same line. The **bare hyper** floor is hyper's server \
         with a task per stream, woken through a `tokio::sync::watch` channel (over HTTP/1.1 each stream has \
         its connection, and mcp-resources serves it so too). The **floor with a task per connection** serves \
         HTTP/2 with the `h2` crate directly and writes every stream's notification from its connection's \
         task, as mcp-resources does over HTTP/2 (where its streams are each woken on their own and filtered \
         by their own subscriptions). \
         ÷ floor: change → last over that of the bare-hyper floor on the same wire (legacy rows too: the \
         floor's streams are modern).\n\n\
         Extra notifications: beyond one per stream and change, over all changes (counted, not timed).\n\n\
         | server | changes | streams open in s | write → first ms | write → last ms | first → last ms | change → last ms (max) | ÷ floor | CPU µs/notification | driver CPU ms/change | peak RSS MiB | extra notifications |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        FANOUT_STREAMS_TEXT,
        FANOUT_STREAMS_PER_CONNECTION,
        fanout::CHANGE_LOGGED,
        LOG_FILTER,
    );
    let change_to_last = |changes: &[fanout::FanOut]| {
        median(
            changes
                .iter()
                .map(|change| change.change_to_last_ms)
                .collect(),
        )
    };
    for (scenario, subjects) in fanouts.iter().rev() {
        let Workload::FanOut { wire, .. } = scenario.workload else {
            continue;
        };
        let floor = fanouts
            .iter()
            .find(|(other, _)| {
                other.workload
                    == Workload::FanOut {
                        era: Era::Modern,
                        wire,
                    }
            })
            .and_then(|(_, subjects)| subjects.get(&Subject::Floor(Era::Modern)))
            .map(|changes| change_to_last(changes));
        for (subject, changes) in subjects {
            let pick =
                |field: fn(&fanout::FanOut) -> f64| median(changes.iter().map(field).collect());
            let max = |field: fn(&fanout::FanOut) -> f64| {
                changes.iter().map(field).fold(f64::NAN, f64::max)
            };
            let _ = writeln!(
                out,
                "| {}, {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} ({:.1}) | {} | {:.2} | {:.1} | {:.1} | {} |",
                match subject {
                    Subject::Floor(_) => "floor (bare hyper, a task per stream, typed serde)",
                    other => other.label(),
                },
                wire.label(),
                changes.len(),
                pick(|change| change.setup_s),
                pick(|change| change.write_to_first_ms),
                pick(|change| change.write_to_last_ms),
                pick(fanout::FanOut::first_to_last_ms),
                change_to_last(changes),
                max(|change| change.change_to_last_ms),
                ratio(change_to_last(changes), floor.unwrap_or(f64::NAN)),
                pick(|change| change.cpu_us_per_notification),
                pick(|change| change.driver_cpu_ms),
                max(|change| change.peak_rss_mib),
                changes.iter().map(|change| change.extra).sum::<u64>(),
            );
        }
    }
    let unpinned = fanouts
        .values()
        .flat_map(BTreeMap::values)
        .flatten()
        .filter(|change| !change.pinned)
        .count();
    if unpinned > 0 {
        let _ = writeln!(
            out,
            "\n**{unpinned} change(s) ran unpinned** (fewer than 2 cores, or no `taskset`): there, server and \
             driver shared the cores, and change → last includes the driver's CPU time."
        );
    }
    out.push('\n');
}

fn render_report(plan: &Plan, command: &str, results: &Results, took: Duration) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Benchmarks\n");
    let _ = writeln!(
        out,
        "Generated by `{command}` (issue 8); do not edit by hand.\n\n\
         - Date: {}\n- Machine: {}\n- Build: every program with the cargo profile `{PROFILE}` (release with \
         `lto = \"fat\"`, `codegen-units = 1`), ours and the anchor's alike\n- Plan: {} rounds, interleaved (each round runs every server once, \
         a fresh process per run); medians over rounds, each column on its own. Per run: {} warm-up requests, then at most {} \
         requests (concurrency 1) / {} (concurrency 32) or {:?}, whichever ends first; {} list walks. \
         Fan-out: {} run(s) of {} changes each (a fresh server and fresh streams per run); medians over all changes.\n\
         - Took: {:.0} s\n",
        utc_now(),
        machine(),
        plan.rounds,
        plan.warmup,
        plan.count_c1,
        plan.count_c32,
        plan.run_time,
        plan.walks,
        plan.fanout_rounds,
        plan.fanout_changes,
        took.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "Workload: 1,000 static text resources of 1 KiB (`mem:///r/0000`…`mem:///r/0999`) plus the template \
         `mem:///t/{{id}}`; reads go round robin over the 1,000. mcp-resources serves them from \
         `[[resources]]` entries of its configuration (`--no-watch`, log level `warn`) or, in the scenarios \
         that say so, from 1,000 files of 1 KiB with the same bytes (`r0000.txt`…, read by their \
         `file://` URIs) through its filesystem provider (`mcp-resources serve --no-watch --no-ignore-files <dir>`; the files \
         are written when the run starts and are at least 3 s old when first read, so from its first read, in the warm-up, \
         each file is served from the server's read cache, which checks with one `lstat` per read that the file is \
         unchanged: the default, `--read-cache-bytes`); the rmcp anchor \
         (`bench/rmcp-anchor`, rmcp 3.11 from crates.io) with `stdio_pipes()` and stateless Streamable HTTP \
         with JSON responses (in the SSE scenarios `json_response = false`, its default), always from memory, on both eras (legacy: `initialize` first; modern: `_meta` on every request and \
         the `Mcp-Method`/`Mcp-Name` headers); the floor (`bench-floor`), sent each era's requests in turn (two rows), parses \
         each request into a typed serde struct (skipping a modern request's `_meta`) and serializes a typed reply with the same bytes (reads and list pages), through a bare pipe loop or a bare hyper handler \
         (in the SSE scenarios the same reply as one `data:` event). mcp-resources answers a POST with SSE only when a \
         notification precedes the response, so in the SSE scenarios every read (to every server) carries \
         `_meta.progressToken`: its reply is two events (the progress notification, then the result), rmcp's and the floor's one.\n\n\
         Columns: req/s over the measured window; p50/p99 latency seen by the driver (µs); server CPU µs per \
         request from the server's own scheduler statistics (sum of `/proc/<pid>/task/*/schedstat`); of it in \
         kernel = the share of the clock ticks charged to the server in kernel mode (`stime` against `utime` in \
         `/proc/<pid>/task/*/stat`: system calls, waking the driver, switching tasks); peak \
         RSS (`VmHWM`); CPU and RSS ratios = this server's figure / rmcp's on the same era; req/s ratio = this server's \
         req/s / the floor's on the same era (the floor sent the same request bytes: a modern request is longer, with its \
         `_meta` and, on HTTP, two more headers, which the driver writes and every server reads). The driver runs on the same 2 cores as the server, so req/s and latency \
         include contention with it; CPU per request does not.\n"
    );
    for (scenario, subjects) in &results.loads {
        let _ = writeln!(out, "## {}\n", scenario.title());
        let _ = writeln!(
            out,
            "| server | req/s | p50 µs | p99 µs | CPU µs/req | of it in kernel | peak RSS MiB | CPU ÷ rmcp | RSS ÷ rmcp | req/s ÷ floor |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        let medians: BTreeMap<Subject, Figures> = subjects
            .iter()
            .map(|(subject, runs)| (*subject, median_figures(runs)))
            .collect();
        for (subject, figures) in &medians {
            // Each server is compared with rmcp and with the floor on the same era: the same
            // request bytes.
            let rmcp = medians.get(&Subject::Rmcp(subject.era())).copied();
            let floor = medians.get(&Subject::Floor(subject.era())).copied();
            let _ = writeln!(
                out,
                "| {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0}% | {:.1} | {} | {} | {} |",
                subject.label(),
                figures.requests_per_second,
                figures.p50_us,
                figures.p99_us,
                figures.cpu_us_per_request,
                figures.kernel_percent,
                figures.peak_rss_mib,
                rmcp.map_or_else(
                    || "–".to_owned(),
                    |rmcp| ratio(figures.cpu_us_per_request, rmcp.cpu_us_per_request)
                ),
                rmcp.map_or_else(
                    || "–".to_owned(),
                    |rmcp| ratio(figures.peak_rss_mib, rmcp.peak_rss_mib)
                ),
                floor.map_or_else(
                    || "–".to_owned(),
                    |floor| ratio(figures.requests_per_second, floor.requests_per_second)
                ),
            );
        }
        out.push('\n');
    }
    if !results.fanouts.is_empty() {
        render_fanouts(&mut out, &results.fanouts);
    }
    if !results.pages.is_empty() {
        pages::render(&mut out, &results.pages);
    }
    let _ = writeln!(
        out,
        "## Not measured yet, and caveats\n\n\
         - At concurrency 1 every request wakes the sleeping server, and the reply wakes the waiting driver: most of a \
         lean server's CPU is then the kernel's (`of it in kernel`), about the same microseconds for every server, rmcp's \
         included. That bounds the CPU ratio to rmcp from below: no server does much better than the floor's ratio there.\n\
         - mcp-resources never answers a plain POST with SSE (only when a notification precedes the response), so its SSE \
         figures are with a `progressToken` on every read: two events per reply against one for rmcp and the floor.\n\
         - Fan-out times are those at which the driver read each notification; the driver runs on a core of its own \
         (the server on the other), and when the server wrote the last notification is not observable from outside. \
         change → last starts at \
         the timestamp of the server's log line (microseconds, the same wall clock as the driver's), written before the \
         hub is told. The fan-out is measured over Streamable HTTP only (not stdio, where one client holds at most 64 \
         listen streams), and over HTTP/2 with the `h2` crate's client only.\n\
         - The list walk is measured over the configuration's resources only (not over the filesystem provider, not with SSE \
         replies); the SSE scenarios serve the configuration's resources only.\n\
         - The in-process list page is the core's engine over an in-memory provider (no filesystem provider, no transport)."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        assert_eq!(parse_options(&[]), Ok(Plan::new(false)));
        assert_eq!(parse_options(&["--quick".to_owned()]), Ok(Plan::new(true)));
        assert!(parse_options(&["--fast".to_owned()]).is_err());
        let partial = parse_options(&["--only".to_owned(), "stdio".to_owned()]).expect("valid");
        assert_eq!(partial.only.as_deref(), Some("stdio"));
        assert!(partial.is_partial());
        assert!(!Plan::new(true).is_partial());
        assert!(parse_options(&["--subject".to_owned()]).is_err());
    }

    #[test]
    fn modern_requests_carry_meta() {
        let body = request_body(Era::Modern, 5, "resources/read", r#""uri":"mem:///r/0005""#);
        let value: Value = serde_json::from_str(&body).expect("valid JSON");
        assert_eq!(value["params"]["uri"], "mem:///r/0005");
        assert_eq!(
            value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN
        );
        let bare: Value = serde_json::from_str(&request_body(Era::Modern, 1, "resources/list", ""))
            .expect("valid JSON");
        assert!(bare["params"]["_meta"].is_object());
        let legacy: Value =
            serde_json::from_str(&request_body(Era::Legacy, 1, "resources/list", ""))
                .expect("valid JSON");
        assert_eq!(legacy["params"], serde_json::json!({}));
    }

    #[test]
    fn replies_are_checked() {
        assert_eq!(
            check_reply(
                r#"{"jsonrpc":"2.0","id":42,"result":{"text":"resource 0001"}}"#,
                "resource "
            ),
            Ok(42)
        );
        assert_eq!(
            check_reply(
                r#"{"result":{"text":"resource 0001"},"jsonrpc":"2.0","id": 7}"#,
                "resource "
            ),
            Ok(7)
        );
        assert!(
            check_reply(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602}}"#,
                "resource "
            )
            .is_err()
        );
    }

    #[test]
    fn scenarios_have_distinct_titles_and_only_selects_them() {
        let scenarios = all_scenarios();
        let titles: std::collections::BTreeSet<String> =
            scenarios.iter().map(Scenario::title).collect();
        assert_eq!(titles.len(), scenarios.len());
        let files = scenarios
            .iter()
            .filter(|scenario| scenario.title().contains("1,000 files"))
            .count();
        assert_eq!(files, 4);
        let fanouts = scenarios
            .iter()
            .filter(|scenario| scenario.title().contains("fan-out"))
            .count();
        assert_eq!(fanouts, 4);
        let http2 = scenarios
            .iter()
            .filter(|scenario| {
                scenario.title().contains("fan-out") && scenario.title().contains("HTTP/2")
            })
            .count();
        assert_eq!(http2, 2);
        assert_eq!(
            FANOUT_STREAMS_TEXT.replace(',', "").parse::<usize>(),
            Ok(plan::FANOUT_STREAMS)
        );
        // The floor answers the list walk as well as reads; rmcp keeps no subscriptions, and
        // the fan-out's floors answer modern listen streams, the per-connection one over
        // HTTP/2 only.
        let walk = Scenario {
            workload: Workload::ListWalk,
            transport: Transport::Stdio,
        };
        assert!(walk.subjects().contains(&Subject::Floor(Era::Legacy)));
        assert!(walk.subjects().contains(&Subject::Floor(Era::Modern)));
        let fanout = |era, wire| {
            Scenario {
                workload: Workload::FanOut { era, wire },
                transport: Transport::Http,
            }
            .subjects()
        };
        assert_eq!(
            fanout(Era::Modern, Wire::Http2),
            vec![
                Subject::Ours(Era::Modern),
                Subject::Floor(Era::Modern),
                Subject::FloorPerConnection
            ]
        );
        assert_eq!(
            fanout(Era::Modern, Wire::Http1),
            vec![Subject::Ours(Era::Modern), Subject::Floor(Era::Modern)]
        );
        assert_eq!(
            fanout(Era::Legacy, Wire::Http2),
            vec![Subject::Ours(Era::Legacy)]
        );
    }

    #[test]
    fn sse_replies_and_progress_tokens() {
        let body = ": primed\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":3,\"progress\":1}}\n\n\
                    data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"resource 0003\"}}\n\n";
        assert_eq!(
            check_reply(sse_response(body).expect("a response"), "resource "),
            Ok(3)
        );
        assert!(sse_response("data: {\"method\":\"x\"}\n\n").is_err());
        for era in [Era::Legacy, Era::Modern] {
            let body = request_body_with_meta(
                era,
                3,
                "resources/read",
                r#""uri":"mem:///r/0003""#,
                r#""progressToken":3"#,
            );
            let value: Value = serde_json::from_str(&body).expect("valid JSON");
            assert_eq!(value["params"]["_meta"]["progressToken"], 3);
            assert_eq!(value["params"]["uri"], "mem:///r/0003");
        }
    }

    #[test]
    fn file_uris_are_the_canonical_path() {
        let uris = Uris {
            prefix: "file:///tmp/files/r".to_owned(),
            suffix: ".txt",
        };
        assert_eq!(uris.at(1_007), "file:///tmp/files/r0007.txt");
        assert_eq!(Uris::memory().at(12), "mem:///r/0012");
        assert_eq!(file_uri_prefix(Path::new("/")), Ok("file:///".to_owned()));
        assert!(file_uri_prefix(Path::new("/no/such/bench/folder")).is_err());
    }
}
