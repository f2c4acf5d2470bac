//! The programs under test as child processes: the workload they serve (the 1,000 resources, as
//! configuration and as files), starting a [`Server`] and killing it on drop, and what the
//! kernel says about it (CPU time, peak RSS).
//!
//! **Layer:** tooling, inside [`bench`](super), below the measurements (the request loads in
//! the parent, [`fanout`](super::fanout), [`pages`](super::pages)) that all start servers. It
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
pub(super) const RESOURCE_BYTES: usize = 1024;
/// How long a server may take to accept connections.
pub(super) const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The `[http_limits]` of the fan-out's server: its 10,000 streams come from one address (one
/// client), past the per-client defaults, and over HTTP/1.1 each has a connection.
pub(super) const HTTP_LIMITS: &str = "[http_limits]\n\
    max_connections = 20000\nmax_connections_per_peer = 20000\n\
    max_sessions = 20000\nmax_sessions_per_client = 20000\n\
    max_listen_streams = 20000\nmax_listen_streams_per_client = 20000\n";

/// The log filter the fan-out's server runs with: warnings, and
/// [`CHANGE_LOGGED`](super::fanout::CHANGE_LOGGED).
pub(super) const LOG_FILTER: &str = "warn,mcp_resources_server::server=debug";

/// The programs under test and their inputs.
pub(super) struct Programs {
    pub(super) root: PathBuf,
    pub(super) ours: PathBuf,
    pub(super) anchor: PathBuf,
    pub(super) floor: PathBuf,
    /// The fan-out driver (`bench/rmcp-anchor/src/bin/bench-fanout.rs`).
    pub(super) fanout: PathBuf,
    pub(super) config: PathBuf,
    /// The 1,000 files of the filesystem read scenarios (never changed).
    pub(super) files: PathBuf,
    /// When they were written.
    pub(super) files_written: Instant,
    /// The 1,000 files of the fan-out scenario (one of them rewritten).
    pub(super) fanout_files: PathBuf,
    pub(super) logs: PathBuf,
}

/// The text of resource `index`: 1 KiB, the same bytes the anchor and the floor serve.
pub(super) fn resource_text(index: usize) -> String {
    let mut text = format!("resource {index:04} ");
    while text.len() < RESOURCE_BYTES {
        text.push('x');
    }
    text
}

/// Writes the 1,000 files of 1 KiB (`r0000.txt`…, the texts of [`resource_text`]) into a fresh
/// `dir`.
pub(crate) fn write_files(dir: &Path) -> Result<(), String> {
    if dir.exists() {
        fs::remove_dir_all(dir)
            .map_err(|error| format!("cannot empty {}: {error}", dir.display()))?;
    }
    fs::create_dir_all(dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    for index in 0..RESOURCE_COUNT {
        let path = dir.join(file_name(index));
        fs::write(&path, resource_text(index))
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    Ok(())
}

pub(super) fn file_name(index: usize) -> String {
    format!("r{index:04}.txt")
}

/// The `file://` URI prefix under which the filesystem provider lists the files of `dir`:
/// `file://` and the canonical path (the provider canonicalizes its roots and percent-encodes
/// every byte that is not an RFC 3986 `pchar`; the bench folder is refused when its path would
/// need encoding, so that the URI is exactly the path).
pub(crate) fn file_uri_prefix(dir: &Path) -> Result<String, String> {
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
                "the bench folder {} has characters a file:// URI would encode; set CARGO_TARGET_DIR to a plain path",
                canonical.display()
            )
        })?;
    Ok(format!("file://{}/", text.trim_end_matches('/')))
}

/// The `mcp-resources` configuration of the workload: no files, 1,000 static resources and a
/// template, no watching, warnings only in the log.
pub(crate) fn config_text() -> String {
    let mut text = String::from(
        "# Written by `cargo xtask bench`: the bench workload.\n\
         paths = [\"empty\"]\nwatch = false\nlog_level = \"warn\"\npage_size = 100\n\n",
    );
    for index in 0..RESOURCE_COUNT {
        let _ = write!(
            text,
            "[[resources]]\nuri = \"mem:///r/{index:04}\"\nname = \"r{index:04}\"\nmime_type = \"text/plain\"\ntext = \"{}\"\n\n",
            resource_text(index)
        );
    }
    text.push_str("[[resources]]\nuri_template = \"mem:///t/{id}\"\nname = \"t\"\nmime_type = \"text/plain\"\ntext = \"template {id}\"\n");
    text
}

/// A server child process; killed on drop.
pub(super) struct Server {
    pub(super) child: Child,
    pub(super) port: Option<u16>,
    pub(super) stdio: Option<(ChildStdin, BufReader<ChildStdout>)>,
    pub(super) log: PathBuf,
}

/// What mcp-resources serves.
#[derive(Clone, Copy, Debug)]
pub(super) enum Serving<'a> {
    /// The configuration file of the workload (`[[resources]]` entries, no watching).
    Config,
    /// `serve <dir>`: the filesystem provider, with the watcher on or off.
    Files { dir: &'a Path, watch: bool },
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
        let mut command = match subject {
            Subject::Ours(_) => {
                let mut command = Command::new(&programs.ours);
                command.arg("serve");
                if let Some(address) = &address {
                    command.args(["--http", address]);
                }
                match serving {
                    Serving::Config => {
                        command.arg("--config").arg(&programs.config);
                    }
                    Serving::Files { dir, watch } => {
                        command.arg("--no-ignore-files");
                        if watch {
                            command.args(["--log-level", LOG_FILTER]);
                            // 10,000 streams from one address: past every per-client default.
                            let limits = dir.with_extension("limits.toml");
                            std::fs::write(&limits, HTTP_LIMITS).map_err(|error| {
                                format!("cannot write {}: {error}", limits.display())
                            })?;
                            command.arg("--config").arg(&limits);
                        } else {
                            command.args(["--log-level", "warn", "--no-watch"]);
                        }
                        command.arg(dir);
                    }
                }
                command
            }
            // The fan-out's floors, told the file that changes (the first).
            Subject::Floor(_) | Subject::FloorPerConnection
                if let (Some(address), Serving::Files { dir, watch: true }) =
                    (&address, serving) =>
            {
                let mut command = Command::new(&programs.floor);
                command
                    .arg(match subject {
                        Subject::Floor(_) => "fanout",
                        _ => "fanout-h2",
                    })
                    .arg(address)
                    .arg(dir.join(file_name(0)));
                command
            }
            Subject::Rmcp(_) | Subject::Floor(_) => {
                let program = if matches!(subject, Subject::Rmcp(_)) {
                    &programs.anchor
                } else {
                    &programs.floor
                };
                let mut command = Command::new(program);
                match (&address, transport) {
                    (Some(address), Transport::HttpSse) => command.args(["http-sse", address]),
                    (Some(address), _) => command.args(["http", address]),
                    (None, _) => command.arg("stdio"),
                };
                command
            }
            Subject::FloorPerConnection => {
                return Err("the per-connection floor serves only the fan-out".to_owned());
            }
        };
        let log = programs.logs.join("server.log");
        let file = fs::File::create(&log)
            .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
        command.stderr(file);
        match transport {
            Transport::Stdio => command.stdin(Stdio::piped()).stdout(Stdio::piped()),
            Transport::Http | Transport::HttpSse => {
                command.stdin(Stdio::null()).stdout(Stdio::null())
            }
        };
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot start {:?}: {error}", command.get_program()))?;
        let stdio = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => Some((stdin, BufReader::with_capacity(1 << 16, stdout))),
            _ => None,
        };
        let mut server = Server {
            child,
            port,
            stdio,
            log,
        };
        if let Some(port) = port {
            let deadline = Instant::now() + START_TIMEOUT;
            while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
                if let Ok(Some(status)) = server.child.try_wait() {
                    return Err(format!(
                        "the server exited before listening ({status}){}",
                        server.log_tail()
                    ));
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "the server did not listen within {START_TIMEOUT:?}{}",
                        server.log_tail()
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(server)
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(super) fn log_path(&self) -> &Path {
        &self.log
    }

    pub(super) fn log_tail(&self) -> String {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        format!("\n--- server log ({}):\n{tail}", self.log.display())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port of 127.0.0.1 that was free a moment ago.
pub(crate) fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|error| format!("cannot find a free port: {error}"))?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|error| format!("cannot find a free port: {error}"))
}

/// CPU time the process has used so far, all threads, in nanoseconds.
pub(super) fn cpu_ns(pid: u32) -> Result<u64, String> {
    let dir = format!("/proc/{pid}/task");
    let mut total = 0;
    for entry in fs::read_dir(&dir).map_err(|error| format!("cannot read {dir}: {error}"))? {
        let path = entry
            .map_err(|error| format!("cannot read {dir}: {error}"))?
            .path()
            .join("schedstat");
        // A thread may end between the listing and the read; its time is then lost, which
        // the servers measured here do not do in steady state.
        if let Ok(text) = fs::read_to_string(&path) {
            total += text
                .split_whitespace()
                .next()
                .and_then(|field| field.parse::<u64>().ok())
                .ok_or_else(|| format!("unexpected {}: {text:?}", path.display()))?;
        }
    }
    Ok(total)
}

/// The CPU time a process has used so far, all threads: exact nanoseconds from the scheduler,
/// and the clock ticks the kernel charged to user and to kernel mode (coarse, but their ratio
/// says where that time went).
#[derive(Clone, Copy, Debug)]
pub(super) struct Cpu {
    pub(super) ns: u64,
    pub(super) user_ticks: u64,
    pub(super) kernel_ticks: u64,
}

impl Cpu {
    pub(super) fn of(pid: u32) -> Result<Self, String> {
        let ns = cpu_ns(pid)?;
        let (mut user_ticks, mut kernel_ticks) = (0, 0);
        let dir = format!("/proc/{pid}/task");
        for entry in fs::read_dir(&dir).map_err(|error| format!("cannot read {dir}: {error}"))? {
            let path = entry
                .map_err(|error| format!("cannot read {dir}: {error}"))?
                .path()
                .join("stat");
            // As in `cpu_ns`: a thread that has just ended is skipped.
            let Ok(text) = fs::read_to_string(&path) else {
                continue;
            };
            let (user, kernel) = stat_ticks(&text)
                .ok_or_else(|| format!("unexpected {}: {text:?}", path.display()))?;
            user_ticks += user;
            kernel_ticks += kernel;
        }
        Ok(Self {
            ns,
            user_ticks,
            kernel_ticks,
        })
    }

    /// What was used between `earlier` and `self`.
    pub(super) fn since(self, earlier: Self) -> Self {
        Self {
            ns: self.ns.saturating_sub(earlier.ns),
            user_ticks: self.user_ticks.saturating_sub(earlier.user_ticks),
            kernel_ticks: self.kernel_ticks.saturating_sub(earlier.kernel_ticks),
        }
    }

    /// The kernel's share of the ticks, in percent (NaN when no tick was charged).
    pub(super) fn kernel_percent(self) -> f64 {
        let total = self.user_ticks + self.kernel_ticks;
        if total == 0 {
            return f64::NAN;
        }
        self.kernel_ticks as f64 * 100.0 / total as f64
    }
}

/// The user and kernel clock ticks (`utime`, `stime`) of a `/proc/<pid>/task/<tid>/stat` line.
pub(super) fn stat_ticks(text: &str) -> Option<(u64, u64)> {
    // After the command name (in parentheses, and free to hold spaces and parentheses), the
    // fields from the third on: `utime` and `stime` are the 14th and 15th (proc(5)).
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(11);
    let mut next = || fields.next()?.parse::<u64>().ok();
    Some((next()?, next()?))
}

/// The peak resident set size of the process, in MiB.
pub(super) fn peak_rss_mib(pid: u32) -> Result<f64, String> {
    let path = format!("/proc/{pid}/status");
    let text = fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    let kib = text
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .ok_or_else(|| format!("no VmHWM in {path}"))?;
    Ok(kib / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_texts_are_one_kib_and_distinct() {
        assert_eq!(resource_text(7).len(), RESOURCE_BYTES);
        assert!(resource_text(7).starts_with("resource 0007 x"));
        assert_ne!(resource_text(1), resource_text(2));
    }

    #[test]
    fn the_config_holds_every_resource_and_the_template() {
        let text = config_text();
        assert_eq!(text.matches("[[resources]]").count(), RESOURCE_COUNT + 1);
        assert!(text.contains("uri = \"mem:///r/0999\""));
        assert!(text.contains("uri_template = \"mem:///t/{id}\""));
    }

    #[test]
    fn user_and_kernel_ticks() {
        // A command name with a space and a parenthesis; utime 1234, stime 567.
        let line = "4242 (tokio (rt) 1) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 \
                    3 0 100 4096 300 18446744073709551615";
        assert_eq!(stat_ticks(line), Some((1234, 567)));
        assert_eq!(stat_ticks("4242 (short) S 1 2"), None);
        let cpu = Cpu::of(std::process::id()).expect("this process's own statistics");
        assert!(cpu.ns > 0);
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
