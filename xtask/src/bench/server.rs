//! The programs under test as child processes: the workload they serve (1,000 resources, as
//! configuration and as files), starting a [`Server`] (killed on drop), and what the kernel says
//! about a process ([`Cpu`], peak RSS).
//!
//! **Layer:** tooling, inside [`bench`](super), below the measurements that start servers. It
//! must never drive a load, judge a reply or write the report.

use std::fmt::Write as _;
use std::fs;
use std::io::BufReader;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use super::plan::{Subject, Transport};

/// How many static resources are served, and their size.
pub(super) const RESOURCE_COUNT: usize = 1000;
const RESOURCE_BYTES: usize = 1024;
/// How long a server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// The fan-out server's `[http_limits]`: its 10,000 streams come from one client, past the
/// per-client defaults, and over HTTP/1.1 each has a connection.
const HTTP_LIMITS: &str = "[http_limits]\n\
    max_connections = 20000\nmax_connections_per_peer = 20000\n\
    max_sessions = 20000\nmax_sessions_per_client = 20000\n\
    max_listen_streams = 20000\nmax_listen_streams_per_client = 20000\n";
/// The fan-out server's log filter: warnings, and the line it logs on taking a change.
pub(super) const LOG_FILTER: &str = "warn,mcp_resources_server::feed=debug";

/// The programs under test and their inputs.
pub(super) struct Programs {
    pub(super) root: PathBuf,
    pub(super) ours: PathBuf,
    pub(super) anchor: PathBuf,
    pub(super) floor: PathBuf,
    /// The fan-out driver (`bench/rmcp-anchor/src/bin/bench-fanout.rs`).
    pub(super) fanout: PathBuf,
    pub(super) config: PathBuf,
    /// The 1,000 files of the read scenarios (never changed), and when they were written.
    pub(super) files: PathBuf,
    pub(super) files_written: Instant,
    /// The 1,000 files of the fan-out (the first one rewritten).
    pub(super) fanout_files: PathBuf,
    pub(super) logs: PathBuf,
}

/// The text of resource `index`: 1 KiB, the same bytes the anchor and the floor serve.
fn resource_text(index: usize) -> String {
    format!("{:x<RESOURCE_BYTES$}", format!("resource {index:04} "))
}

/// Writes the 1,000 files (`r0000.txt`…, the texts of [`resource_text`]) into a fresh `dir`.
pub(super) fn write_files(dir: &Path) -> Result<(), String> {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    (0..RESOURCE_COUNT).try_for_each(|index| {
        let path = dir.join(file_name(index));
        fs::write(&path, resource_text(index))
            .map_err(|error| format!("cannot write {}: {error}", path.display()))
    })
}

pub(super) fn file_name(index: usize) -> String {
    format!("r{index:04}.txt")
}

/// `file://` and the canonical path of `dir`: the prefix of its files' URIs. A path that a URI
/// would percent-encode is refused, so that the URI is exactly the path.
pub(super) fn file_uri_prefix(dir: &Path) -> Result<String, String> {
    let canonical = fs::canonicalize(dir)
        .map_err(|error| format!("cannot canonicalize {}: {error}", dir.display()))?;
    let text = canonical
        .to_str()
        .filter(|text| {
            text.bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte))
        })
        .ok_or_else(|| {
            format!(
                "the bench folder {} has characters a file:// URI would encode; set \
                 CARGO_TARGET_DIR to a plain path",
                canonical.display()
            )
        })?;
    Ok(format!("file://{}/", text.trim_end_matches('/')))
}

/// The `mcp-resources` configuration of the workload: 1,000 static resources and a template,
/// no files, no watching, warnings only in the log.
pub(super) fn config_text() -> String {
    let mut text = String::from(
        "# Written by `cargo xtask bench`: the bench workload.\n\
         paths = [\"empty\"]\nwatch = false\nlog_level = \"warn\"\npage_size = 100\n\n",
    );
    for index in 0..RESOURCE_COUNT {
        let _ = write!(
            text,
            "[[resources]]\nuri = \"mem:///r/{index:04}\"\nname = \"r{index:04}\"\n\
             mime_type = \"text/plain\"\ntext = \"{}\"\n\n",
            resource_text(index)
        );
    }
    text.push_str(
        "[[resources]]\nuri_template = \"mem:///t/{id}\"\nname = \"t\"\n\
         mime_type = \"text/plain\"\ntext = \"template {id}\"\n",
    );
    text
}

/// A child process, killed on drop.
pub(super) struct Killed(pub(super) Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A server child process; killed on drop.
pub(super) struct Server {
    pub(super) child: Killed,
    pub(super) port: Option<u16>,
    pub(super) stdio: Option<(ChildStdin, BufReader<ChildStdout>)>,
    pub(super) log: PathBuf,
}

/// What mcp-resources serves.
#[derive(Clone, Copy, Debug)]
pub(super) enum Serving<'a> {
    /// The workload's configuration file.
    Config,
    /// `serve <dir>`: the filesystem provider; with the watcher on, the fan-out's server.
    Files { dir: &'a Path, watch: bool },
    /// `serve <dir>` with the watcher on as instance `instance` of a deployment: the fan-out's
    /// limits, `config` besides (its `[cluster]` and `[feed]` tables), `env` set, and a log of
    /// its own.
    Deployment {
        dir: &'a Path,
        instance: usize,
        config: &'a str,
        env: (&'a str, &'a str),
    },
}

impl Server {
    pub(super) fn start(
        programs: &Programs,
        subject: Subject,
        transport: Transport,
        serving: Serving<'_>,
    ) -> Result<Server, String> {
        let port = match transport {
            Transport::Stdio => None,
            Transport::Http | Transport::HttpSse => Some(free_port()?),
        };
        let address = port.map(|port| format!("127.0.0.1:{port}"));
        let mut command;
        match (subject, serving) {
            (Subject::Ours(_), Serving::Config) => {
                command = ours(programs, address.as_deref());
                command.arg("--config").arg(&programs.config);
            }
            (Subject::Ours(_), Serving::Files { dir, watch }) => {
                command = ours(programs, address.as_deref());
                command.arg("--no-ignore-files");
                if watch {
                    let limits = dir.with_extension("limits.toml");
                    fs::write(&limits, HTTP_LIMITS)
                        .map_err(|error| format!("cannot write {}: {error}", limits.display()))?;
                    command.args(["--log-level", LOG_FILTER, "--config"]);
                    command.arg(&limits);
                } else {
                    command.args(["--log-level", "warn", "--no-watch"]);
                }
                command.arg(dir);
            }
            (
                Subject::Ours(_),
                Serving::Deployment {
                    dir,
                    instance,
                    config,
                    env,
                },
            ) => {
                command = ours(programs, address.as_deref());
                let file = dir.with_extension(format!("instance-{instance}.toml"));
                fs::write(&file, format!("{HTTP_LIMITS}{config}"))
                    .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
                command.args(["--no-ignore-files", "--log-level", LOG_FILTER, "--config"]);
                command.arg(&file).arg(dir).env(env.0, env.1);
            }
            // The fan-out's floors, told the file that changes.
            (Subject::Floor(_) | Subject::FloorPerConnection, Serving::Files { dir, .. }) => {
                command = Command::new(&programs.floor);
                let mode = match subject {
                    Subject::FloorPerConnection => "fanout-h2",
                    _ => "fanout",
                };
                command.args([mode, address.as_deref().unwrap_or_default()]);
                command.arg(dir.join(file_name(0)));
            }
            (Subject::Rmcp(_) | Subject::Floor(_), Serving::Config) => {
                command = Command::new(match subject {
                    Subject::Rmcp(_) => &programs.anchor,
                    _ => &programs.floor,
                });
                match (transport, &address) {
                    (Transport::HttpSse, Some(address)) => command.args(["http-sse", address]),
                    (_, Some(address)) => command.args(["http", address]),
                    (_, None) => command.arg("stdio"),
                };
            }
            _ => return Err(format!("{} does not serve this", subject.label())),
        }
        let log = programs.logs.join(match serving {
            Serving::Deployment { instance, .. } => format!("server-{instance}.log"),
            _ => "server.log".to_owned(),
        });
        let file = fs::File::create(&log)
            .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
        let pipe = || match transport {
            Transport::Stdio => Stdio::piped(),
            Transport::Http | Transport::HttpSse => Stdio::null(),
        };
        let mut child = command
            .stdin(pipe())
            .stdout(pipe())
            .stderr(file)
            .spawn()
            .map_err(|error| format!("cannot start {:?}: {error}", command.get_program()))?;
        let stdio = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => Some((stdin, BufReader::with_capacity(1 << 16, stdout))),
            _ => None,
        };
        let mut server = Server {
            child: Killed(child),
            port,
            stdio,
            log,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        while port.is_some_and(|port| TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err()) {
            if let Ok(Some(status)) = server.child.0.try_wait() {
                return Err(format!("the server exited ({status}){}", server.log_tail()));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the server did not listen within {START_TIMEOUT:?}{}",
                    server.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.0.id()
    }

    /// The last 20 lines of the server's log, to append to an error.
    pub(super) fn log_tail(&self) -> String {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        format!("\n--- server log ({}):\n{tail}", self.log.display())
    }
}

/// `mcp-resources serve`, on HTTP at `address` if there is one.
fn ours(programs: &Programs, address: Option<&str>) -> Command {
    let mut command = Command::new(&programs.ours);
    command.arg("serve");
    if let Some(address) = address {
        command.args(["--http", address]);
    }
    command
}

/// A port of 127.0.0.1 that was free a moment ago.
fn free_port() -> Result<u16, String> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|error| format!("cannot find a free port: {error}"))
}

/// The CPU time a process has used so far, all threads: nanoseconds from the scheduler
/// (`schedstat`), and the clock ticks charged to user and kernel mode (`stat`; coarse, but
/// their ratio says where the time went).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Cpu {
    pub(super) ns: u64,
    pub(super) user_ticks: u64,
    pub(super) kernel_ticks: u64,
}

impl Cpu {
    pub(super) fn of(pid: u32) -> Result<Cpu, String> {
        let dir = format!("/proc/{pid}/task");
        let mut cpu = Cpu::default();
        for entry in fs::read_dir(&dir).map_err(|error| format!("cannot read {dir}: {error}"))? {
            let task = entry
                .map_err(|error| format!("cannot read {dir}: {error}"))?
                .path();
            // A thread may end between the listing and the reads: its time is then lost, which
            // the servers measured here do not do in steady state.
            let (Ok(schedstat), Ok(stat)) = (
                fs::read_to_string(task.join("schedstat")),
                fs::read_to_string(task.join("stat")),
            ) else {
                continue;
            };
            let ns = schedstat
                .split_whitespace()
                .next()
                .and_then(|ns| ns.parse::<u64>().ok());
            let (Some(ns), Some((user, kernel))) = (ns, stat_ticks(&stat)) else {
                return Err(format!(
                    "unexpected {}: {schedstat:?} {stat:?}",
                    task.display()
                ));
            };
            cpu.ns += ns;
            cpu.user_ticks += user;
            cpu.kernel_ticks += kernel;
        }
        Ok(cpu)
    }

    /// What was used between `earlier` and `self`.
    pub(super) fn since(self, earlier: Cpu) -> Cpu {
        Cpu {
            ns: self.ns.saturating_sub(earlier.ns),
            user_ticks: self.user_ticks.saturating_sub(earlier.user_ticks),
            kernel_ticks: self.kernel_ticks.saturating_sub(earlier.kernel_ticks),
        }
    }

    /// The kernel's share of the ticks, in percent (NaN when no tick was charged).
    pub(super) fn kernel_percent(self) -> f64 {
        self.kernel_ticks as f64 * 100.0 / (self.user_ticks + self.kernel_ticks) as f64
    }
}

/// `utime` and `stime` of a `/proc/<pid>/task/<tid>/stat` line: the 14th and 15th fields, the
/// 12th and 13th after the command name (in parentheses, which it may itself hold).
fn stat_ticks(text: &str) -> Option<(u64, u64)> {
    let mut fields = text.rsplit_once(')')?.1.split_whitespace().skip(11);
    let mut next = || fields.next()?.parse().ok();
    Some((next()?, next()?))
}

/// The peak resident set size of the process (`VmHWM`), in MiB.
pub(super) fn peak_rss_mib(pid: u32) -> Result<f64, String> {
    let path = format!("/proc/{pid}/status");
    let text = fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    text.lines()
        .find_map(|line| line.strip_prefix("VmHWM:")?.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse::<f64>().ok())
        .map(|kib| kib / 1024.0)
        .ok_or_else(|| format!("no VmHWM in {path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workload() {
        assert_eq!(resource_text(7).len(), RESOURCE_BYTES);
        assert!(resource_text(7).starts_with("resource 0007 xx"));
        let text = config_text();
        assert_eq!(text.matches("[[resources]]").count(), RESOURCE_COUNT + 1);
        assert!(text.contains("uri = \"mem:///r/0999\""));
        assert!(text.contains("uri_template = \"mem:///t/{id}\""));
        assert_eq!(file_uri_prefix(Path::new("/")), Ok("file:///".to_owned()));
        assert!(file_uri_prefix(Path::new("/no/such/bench/folder")).is_err());
    }

    #[test]
    fn what_the_kernel_says() {
        // A command name with a space and a parenthesis; utime 1234, stime 567.
        let line = "4242 (tokio (rt) 1) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 \
                    3 0 100 4096 300 18446744073709551615";
        assert_eq!(stat_ticks(line), Some((1234, 567)));
        assert_eq!(stat_ticks("4242 (short) S 1 2"), None);
        let pid = std::process::id();
        assert!(Cpu::of(pid).expect("this process's own statistics").ns > 0);
        assert!(peak_rss_mib(pid).expect("this process's VmHWM") > 0.0);
        let earlier = Cpu {
            ns: 1_000,
            user_ticks: 7,
            kernel_ticks: 2,
        };
        let none = Cpu {
            ns: 1_500,
            ..earlier
        }
        .since(earlier);
        assert_eq!(none.ns, 500);
        assert!(none.kernel_percent().is_nan());
        let some = Cpu {
            ns: 2_000,
            user_ticks: 10,
            kernel_ticks: 3,
        }
        .since(earlier);
        assert_eq!(some.kernel_percent(), 25.0);
    }
}
