//! A deployment: [`INSTANCES`] `mcp-resources` instances serving the same 1,000 files with the
//! Redis change feed (`redis-server` on a Unix socket) and one cursor key. Two measurements:
//! the fan-out of one file change to [`FANOUT_STREAMS`] modern listen streams spread over the
//! instances (the fan-out driver, its HTTP/2 connections to the instances in turn), timed from
//! the first instance's log line on publishing the change; and `resources/read` throughput at
//! concurrency 32 through HAProxy in front of all the instances against HAProxy in front of
//! one, with every process's CPU time. Also the section of the report.
//!
//! **Layer:** tooling, inside [`bench`](super), beside [`fanout`](super::fanout) (whose driver
//! it reuses) and [`load`](super::load) (whose read load it sends through the balancer). It
//! needs `redis-server` and `haproxy` on the PATH, and kills every process it starts.

use std::fmt::Write as _;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::fanout::{Driver, logged_after};
use super::load::{Figures, read_through};
use super::plan::{Era, FANOUT_STREAMS, Plan, Subject, Transport, Wire};
use super::server::{
    Cpu, Killed, Programs, RESOURCE_COUNT, Server, Serving, file_name, file_uri_prefix, write_files,
};
use super::stats::{median, thousands};

/// How many instances the deployment has.
pub(super) const INSTANCES: usize = 3;
/// The variable holding the deployment's cursor key, and the key.
const KEY_VARIABLE: &str = "MCP_BENCH_CURSOR_KEY";
const KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
/// The instance's log line as it publishes a change its watcher saw (level `debug`, target
/// `mcp_resources_server::feed`, in the fan-out's log filter).
const PUBLISHED: &str = "publishing a change to every instance";
/// How long a helper (Redis, HAProxy) may take to start.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// One change of the deployment's fan-out.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Change {
    /// From the end of the file write to the first and the last notification read.
    write_to_first_ms: f64,
    write_to_last_ms: f64,
    /// From the first instance's log line on publishing the change to the last notification
    /// read: the feed, the settle time (20 ms) and the fan-out.
    published_to_last_ms: f64,
    /// The instances' CPU time for the change, summed, per notification.
    cpu_us_per_notification: f64,
    /// Notifications beyond one per stream for an earlier change.
    extra: u64,
}

/// One read run through the balancer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Reads {
    instances: usize,
    figures: Figures,
    /// The instances' CPU time per request, summed, and the balancer's.
    instances_cpu_us: f64,
    haproxy_cpu_us: f64,
}

/// Everything the deployment measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Deployment {
    setup_s: f64,
    changes: Vec<Change>,
    reads: Vec<Reads>,
}

/// Starts the deployment and measures both.
pub(super) fn measure(programs: &Programs, plan: &Plan) -> Result<Deployment, String> {
    let socket = programs.logs.join("redis.sock");
    let _redis = start_redis(&socket)?;
    let dir = &programs.fanout_files;
    write_files(dir)?;
    let config = format!(
        "[cluster]\ncursor_key_env = \"{KEY_VARIABLE}\"\n[feed]\nredis = \"redis+unix://{}\"\n\
         channel = \"bench\"\n",
        socket.display()
    );
    let instances = (0..INSTANCES)
        .map(|instance| {
            let serving = Serving::Deployment {
                dir,
                instance,
                config: &config,
                env: (KEY_VARIABLE, KEY),
            };
            Server::start(
                programs,
                Subject::Ours(Era::Modern),
                Transport::Http,
                serving,
            )
        })
        .collect::<Result<Vec<Server>, String>>()?;
    let logs = || {
        instances
            .iter()
            .map(|server| server.log_tail())
            .collect::<String>()
    };
    let mut deployment = Deployment::default();
    fan_out(programs, plan, dir, &instances, &mut deployment)
        .map_err(|error| format!("{error}{}", logs()))?;
    reads(programs, plan, dir, &instances, &mut deployment)
        .map_err(|error| format!("{error}{}", logs()))?;
    Ok(deployment)
}

/// `redis-server` on `socket`, answering.
fn start_redis(socket: &Path) -> Result<Killed, String> {
    let _ = std::fs::remove_file(socket);
    let mut redis = Killed(
        Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(socket)
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot start redis-server (install it): {error}"))?,
    );
    let deadline = Instant::now() + START_TIMEOUT;
    while UnixStream::connect(socket).is_err() {
        if let Ok(Some(status)) = redis.0.try_wait() {
            return Err(format!("redis-server exited ({status})"));
        }
        if Instant::now() > deadline {
            return Err("redis-server did not start".to_owned());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(redis)
}

/// HAProxy on a free port, round robin over `ports`, checking `/readyz`; answering.
fn start_haproxy(programs: &Programs, ports: &[u16]) -> Result<(Killed, u16), String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_err(|error| format!("no free port: {error}"))?
        .port();
    let mut config = format!(
        "global\n  maxconn 4000\n\
         defaults\n  mode http\n  timeout connect 2s\n  timeout client 60s\n  \
         timeout server 60s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend instances\n\
         backend instances\n  balance roundrobin\n  option httpchk GET /readyz\n  \
         http-check expect status 200\n  default-server check inter 1s\n"
    );
    for (index, backend) in ports.iter().enumerate() {
        let _ = writeln!(config, "  server instance{index} 127.0.0.1:{backend}");
    }
    let file = programs.logs.join(format!("haproxy-{}.cfg", ports.len()));
    std::fs::write(&file, config)
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    let mut haproxy = Killed(
        Command::new("haproxy")
            .args(["-db", "-f"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot start haproxy (install it): {error}"))?,
    );
    let deadline = Instant::now() + START_TIMEOUT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = haproxy.0.try_wait() {
            return Err(format!("haproxy exited ({status})"));
        }
        if Instant::now() > deadline {
            return Err("haproxy did not start".to_owned());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((haproxy, port))
}

/// The summed CPU time of `pids`.
fn cpu_of(pids: &[u32]) -> Result<u64, String> {
    pids.iter().map(|pid| Cpu::of(*pid).map(|cpu| cpu.ns)).sum()
}

fn fan_out(
    programs: &Programs,
    plan: &Plan,
    dir: &Path,
    instances: &[Server],
    deployment: &mut Deployment,
) -> Result<(), String> {
    let ports: Vec<String> = instances
        .iter()
        .map(|server| server.port.map(|port| port.to_string()))
        .collect::<Option<_>>()
        .ok_or("an instance has no port")?;
    let pids: Vec<u32> = instances.iter().map(Server::pid).collect();
    let uri = format!("{}{}", file_uri_prefix(dir)?, file_name(0));
    let mut driver = Driver::start(
        programs,
        Era::Modern,
        Wire::Http2,
        &ports.join(","),
        &uri,
        &dir.join(file_name(0)),
    )?;
    deployment.setup_s = driver.ready()?;
    let changes = plan.fanout_changes * plan.fanout_rounds;
    for _ in 0..changes {
        // Let the watchers settle between changes (their debounce is 150 ms).
        std::thread::sleep(Duration::from_millis(500));
        let before = cpu_of(&pids)?;
        let report = driver.change()?;
        let spent = cpu_of(&pids)? - before;
        let write_us = report.write_unix_us;
        let mut published_us = f64::INFINITY;
        for server in instances {
            let log = std::fs::read_to_string(&server.log)
                .map_err(|error| format!("cannot read {}: {error}", server.log.display()))?;
            if let Some(after) = logged_after(&log, PUBLISHED, write_us) {
                published_us = published_us.min(after);
            }
        }
        if !published_us.is_finite() {
            return Err(format!("no instance logged {PUBLISHED:?} after the write"));
        }
        let change = Change {
            write_to_first_ms: report.write_to_first_us / 1e3,
            write_to_last_ms: report.write_to_last_us / 1e3,
            published_to_last_ms: (report.write_to_last_us - published_us) / 1e3,
            cpu_us_per_notification: spent as f64 / 1e3 / FANOUT_STREAMS as f64,
            extra: report.late,
        };
        eprintln!(
            "  published → last {:.1} ms, write → last {:.1} ms, cpu {:.2} µs/notification",
            change.published_to_last_ms, change.write_to_last_ms, change.cpu_us_per_notification
        );
        deployment.changes.push(change);
    }
    std::thread::sleep(Duration::from_millis(500));
    let last = driver.ask("quit")?;
    if let Some(change) = deployment.changes.last_mut() {
        change.extra += last.get("late").and_then(Value::as_u64).unwrap_or(0);
    }
    Ok(())
}

fn reads(
    programs: &Programs,
    plan: &Plan,
    dir: &Path,
    instances: &[Server],
    deployment: &mut Deployment,
) -> Result<(), String> {
    // Files 1 to 999: the fan-out rewrote the first.
    let prefix = file_uri_prefix(dir)?;
    let uri = |n: u64| {
        let index = 1 + (n % (RESOURCE_COUNT as u64 - 1)) as usize;
        format!("{prefix}{}", file_name(index))
    };
    for round in 1..=plan.rounds {
        for count in [1, INSTANCES] {
            let chosen = &instances[..count];
            let ports: Vec<u16> = chosen.iter().filter_map(|server| server.port).collect();
            let (haproxy, port) = start_haproxy(programs, &ports)?;
            let mut pids: Vec<u32> = chosen.iter().map(Server::pid).collect();
            pids.push(haproxy.0.id());
            let (figures, spent, requests) = read_through(port, &pids, plan, 32, &uri)?;
            let per_request = |ns: u64| ns as f64 / 1e3 / requests.max(1) as f64;
            let instances_ns: u64 = spent[..count].iter().map(|cpu| cpu.ns).sum();
            let run = Reads {
                instances: count,
                figures,
                instances_cpu_us: per_request(instances_ns),
                haproxy_cpu_us: per_request(spent[count].ns),
            };
            eprintln!(
                "  round {round} {count} instance(s) behind haproxy {:>9.0} req/s  instances \
                 {:>6.1} µs/req  haproxy {:>6.1} µs/req  p50 {:>7.1} µs  p99 {:>7.1} µs",
                figures.requests_per_second,
                run.instances_cpu_us,
                run.haproxy_cpu_us,
                figures.p50_us,
                figures.p99_us
            );
            deployment.reads.push(run);
        }
    }
    Ok(())
}

/// The deployment's section of the report.
pub(super) fn render(out: &mut String, deployment: &Deployment, measured: &str) {
    let pick = |field: fn(&Change) -> f64| {
        median(deployment.changes.iter().map(field).collect::<Vec<_>>())
    };
    let max = |field: fn(&Change) -> f64| {
        deployment
            .changes
            .iter()
            .map(field)
            .fold(f64::NAN, f64::max)
    };
    let _ = writeln!(
        out,
        "## A deployment: {INSTANCES} instances, the Redis change feed, HAProxy\n\n\
         {measured} {INSTANCES} `mcp-resources` instances serve the same 1,000 files with their \
         watchers on, the Redis feed (`redis-server` on a Unix socket; settle time 20 ms) and one \
         cursor key. Every process shares the machine's cores (nothing is pinned).\n\n\
         Fan-out: {} modern listen streams on the first file, spread over the instances (the \
         fan-out driver's HTTP/2 connections go to them in turn), {} changes. **published → \
         last** (target: under 50 ms): from the first instance's log line on publishing the \
         change (`{PUBLISHED}`) to the last notification read; it holds the trip through Redis, \
         the settle time and the fan-out on every instance. CPU is the instances' summed per \
         notification.\n\n\
         | streams open in s | write → first ms | write → last ms | published → last ms (max) \
         | CPU µs/notification | extra notifications |\n\
         |---:|---:|---:|---:|---:|---:|\n\
         | {:.1} | {:.1} | {:.1} | {:.1} ({:.1}) | {:.2} | {} |\n",
        thousands(FANOUT_STREAMS),
        deployment.changes.len(),
        deployment.setup_s,
        pick(|change| change.write_to_first_ms),
        pick(|change| change.write_to_last_ms),
        pick(|change| change.published_to_last_ms),
        max(|change| change.published_to_last_ms),
        pick(|change| change.cpu_us_per_notification),
        deployment
            .changes
            .iter()
            .map(|change| change.extra)
            .sum::<u64>(),
    );
    let _ = writeln!(
        out,
        "Reads: modern `resources/read` of the files at concurrency 32, keep-alive HTTP/1.1, \
         through HAProxy (round robin) in front of 1 instance and of {INSTANCES}; medians over \
         rounds. CPU per request is the instances' summed, and HAProxy's.\n\n\
         | behind HAProxy | req/s | p50 µs | p99 µs | instances' CPU µs/req | HAProxy CPU µs/req |\n\
         |---|---:|---:|---:|---:|---:|"
    );
    for count in [1, INSTANCES] {
        let runs: Vec<&Reads> = deployment
            .reads
            .iter()
            .filter(|run| run.instances == count)
            .collect();
        let pick = |field: fn(&Reads) -> f64| median(runs.iter().map(|run| field(run)).collect());
        let _ = writeln!(
            out,
            "| {count} instance(s) | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} |",
            pick(|run| run.figures.requests_per_second),
            pick(|run| run.figures.p50_us),
            pick(|run| run.figures.p99_us),
            pick(|run| run.instances_cpu_us),
            pick(|run| run.haproxy_cpu_us),
        );
    }
    let _ = writeln!(
        out,
        "\nOn this machine every instance, HAProxy and the driver share the same cores, so more \
         instances cannot give more requests per second: what the table shows is the cost of \
         the balancer's hop and of spreading one load over several processes (each of which \
         then takes fewer requests per wake-up, so a request may cost it more CPU: the \
         instances' column says how much). Instances share nothing on the read path (no lock, \
         no Redis round trip): on a machine with a core or more per instance (or several \
         machines), throughput grows with the instances, each request costing about the CPU \
         the three-instance row shows, until the cores or the balancer are used up.\n"
    );
}
