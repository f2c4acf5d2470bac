//! The fan-out: one file rewritten under a folder served over Streamable HTTP with the watcher
//! on, and [`FANOUT_STREAMS`] streams subscribed to it, held and checked by the fan-out driver
//! (`bench/rmcp-anchor/src/bin/bench-fanout.rs`), which reports when the first and the last
//! notification of each change arrived. Also the fan-out's section of the report.
//!
//! **Layer:** tooling, inside [`bench`](super): it starts the server and the driver, asks for
//! the changes one at a time, and reads the server's CPU time around each and the moment it
//! logged taking each. It must never hold a stream itself. Where the machine has two cores the
//! server and the driver get one each ([`pin`]): left to itself, the kernel runs the two on one
//! core, and the time measured would be the sum of their CPU times.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::plan::{
    Era, FANOUT_STREAMS, FANOUT_STREAMS_PER_CONNECTION, Plan, Scenario, Subject, Transport, Wire,
};
use super::server::{
    Cpu, Killed, LOG_FILTER, Programs, Server, Serving, file_name, file_uri_prefix, peak_rss_mib,
    write_files,
};
use super::stats::{median, ratio, thousands};

/// The server's log line (target `mcp_resources_server::feed`, level `debug`) just before it
/// notifies a changed resource's subscribers; the floors log the same line.
const CHANGE_LOGGED: &str = "resource changed: notifying its subscribers";
/// The cores of the server and of the driver ([`pin`]).
const SERVER_CORE: usize = 0;
const DRIVER_CORE: usize = 1;

/// What one change measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct FanOut {
    /// How long opening every stream took (the same for every change of a run).
    setup_s: f64,
    /// From the end of the file write to the first and to the last notification read.
    write_to_first_ms: f64,
    write_to_last_ms: f64,
    /// From the server's log line on taking the change to the last notification read.
    change_to_last_ms: f64,
    /// The server's CPU time for the change, per notification.
    cpu_us_per_notification: f64,
    /// The server's peak RSS with every stream open.
    peak_rss_mib: f64,
    /// The driver's CPU time for the change: whether it, rather than the server, set the pace.
    driver_cpu_ms: f64,
    /// Notifications beyond one per stream for an earlier change, seen before this one.
    extra: u64,
    /// Whether the server and the driver ran on a core each ([`pin`]).
    pinned: bool,
}

/// Binds every thread of `pid` to `core` with `taskset`; fails with fewer than two cores or
/// without `taskset` (the run then goes on unpinned, and the report says so).
fn pin(pid: u32, core: usize) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 {
        return Err(format!("{cores} core(s)"));
    }
    let output = Command::new("taskset")
        .args([
            "--all-tasks",
            "--cpu-list",
            "--pid",
            &core.to_string(),
            &pid.to_string(),
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run taskset: {error}"))?;
    match output.status.success() {
        true => Ok(()),
        false => Err(format!(
            "taskset failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
    }
}

const DAY_US: f64 = 86_400e6;

/// The µs from `since_unix_us` to the server's first change logged at or after it, read from
/// the time of day of its log's timestamps (`2026-11-30T02:50:24.623425Z …`; the change comes
/// well within a minute of the write).
fn change_logged_after(log: &str, since_unix_us: f64) -> Option<f64> {
    logged_after(log, CHANGE_LOGGED, since_unix_us)
}

/// The µs from `since_unix_us` to the first line of `log` holding `text` logged at or after it
/// ([`change_logged_after`] for any line).
pub(super) fn logged_after(log: &str, text: &str, since_unix_us: f64) -> Option<f64> {
    log.lines()
        .filter(|line| line.contains(text))
        .filter_map(|line| {
            let (_, time) = line
                .split_whitespace()
                .next()?
                .strip_suffix('Z')?
                .split_once('T')?;
            let mut parts = time.splitn(3, ':').map(str::parse::<f64>);
            let (hours, minutes, seconds) = (
                parts.next()?.ok()?,
                parts.next()?.ok()?,
                parts.next()?.ok()?,
            );
            let at_us = ((hours * 60.0 + minutes) * 60.0 + seconds) * 1e6;
            Some((at_us - since_unix_us).rem_euclid(DAY_US))
        })
        .find(|after_us| *after_us < 60e6)
}

/// What the driver says of one change, in µs: the end of the write on the wall clock (since
/// the Unix epoch), from it to the first and to the last notification read; and the
/// notifications of an earlier change seen since.
pub(super) struct ChangeReport {
    pub(super) write_unix_us: f64,
    pub(super) write_to_first_us: f64,
    pub(super) write_to_last_us: f64,
    pub(super) late: u64,
}

/// The driver process and its pipes.
pub(super) struct Driver {
    child: Killed,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Driver {
    /// Starts the driver on `ports` (one, or several separated by commas), its streams
    /// subscribed to `uri`, the `file` to rewrite; returns it with the seconds its
    /// [`FANOUT_STREAMS`] streams took to open. Logs go to `fanout-driver.log`.
    pub(super) fn start(
        programs: &Programs,
        era: Era,
        wire: Wire,
        ports: &str,
        uri: &str,
        file: &std::path::Path,
    ) -> Result<Driver, String> {
        let log = programs.logs.join("fanout-driver.log");
        let log_file = std::fs::File::create(&log)
            .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
        let mut child = Command::new(&programs.fanout)
            .arg(match era {
                Era::Modern => "modern",
                Era::Legacy => "legacy",
            })
            .arg(match wire {
                Wire::Http1 => "http1".to_owned(),
                Wire::Http2 => format!("http2:{FANOUT_STREAMS_PER_CONNECTION}"),
            })
            .args([ports, &FANOUT_STREAMS.to_string(), uri])
            .arg(file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", programs.fanout.display()))?;
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let child = Killed(child);
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return Err("the fan-out driver has no pipes".to_owned());
        };
        Ok(Driver {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// Waits for every stream to open; the seconds it took.
    pub(super) fn ready(&mut self) -> Result<f64, String> {
        let ready = self.line()?;
        if ready.get("ready").and_then(Value::as_u64) != Some(FANOUT_STREAMS as u64) {
            return Err(format!("the fan-out driver is not ready: {ready}"));
        }
        Ok(ready
            .get("setup_ms")
            .and_then(Value::as_f64)
            .unwrap_or(f64::NAN)
            / 1e3)
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.0.id()
    }

    /// Asks for a change and waits until every stream was told it.
    pub(super) fn change(&mut self) -> Result<ChangeReport, String> {
        let report = self.ask("change")?;
        if report.get("received").and_then(Value::as_u64) != Some(FANOUT_STREAMS as u64) {
            return Err(format!("a change did not reach every stream: {report}"));
        }
        let micros = |field: &str| {
            report
                .get(field)
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("the fan-out driver's report has no {field}: {report}"))
        };
        Ok(ChangeReport {
            write_unix_us: micros("write_unix_us")?,
            write_to_first_us: micros("write_to_first_us")?,
            write_to_last_us: micros("write_to_last_us")?,
            late: report.get("late").and_then(Value::as_u64).unwrap_or(0),
        })
    }

    /// Sends `command`, and returns the driver's next line as JSON; `{"error":…}` is an error.
    pub(super) fn ask(&mut self, command: &str) -> Result<Value, String> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|error| format!("cannot write to the fan-out driver: {error}"))?;
        self.line()
    }

    fn line(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => return Err("the fan-out driver ended without a word".to_owned()),
            Ok(_) => {}
            Err(error) => return Err(format!("cannot read from the fan-out driver: {error}")),
        }
        let value: Value = serde_json::from_str(&line)
            .map_err(|error| format!("the fan-out driver printed {line:?} ({error})"))?;
        match value.get("error").and_then(Value::as_str) {
            Some(error) => Err(format!("the fan-out driver failed: {error}")),
            None => Ok(value),
        }
    }
}

/// One run: a fresh folder, a fresh server, fresh streams, then the plan's changes.
pub(super) fn measure(
    programs: &Programs,
    plan: &Plan,
    subject: Subject,
    era: Era,
    wire: Wire,
) -> Result<Vec<FanOut>, String> {
    let dir = &programs.fanout_files;
    write_files(dir)?;
    let serving = Serving::Files { dir, watch: true };
    let server = Server::start(programs, subject, Transport::Http, serving)?;
    measure_started(programs, plan, era, wire, &server)
        .map_err(|error| format!("{error}{}", server.log_tail()))
}

fn measure_started(
    programs: &Programs,
    plan: &Plan,
    era: Era,
    wire: Wire,
    server: &Server,
) -> Result<Vec<FanOut>, String> {
    let dir = &programs.fanout_files;
    let pid = server.pid();
    let port = server.port.ok_or("the server has no port")?;
    let pinned = pin(pid, SERVER_CORE);
    let uri = format!("{}{}", file_uri_prefix(dir)?, file_name(0));
    let mut driver = Driver::start(
        programs,
        era,
        wire,
        &port.to_string(),
        &uri,
        &dir.join(file_name(0)),
    )?;
    let pinned = pinned.and_then(|()| pin(driver.pid(), DRIVER_CORE));
    if let Err(error) = &pinned {
        eprintln!("  not pinned ({error}): server and driver share the cores");
    }
    let setup_s = driver.ready()?;
    let mut changes = Vec::with_capacity(plan.fanout_changes);
    for _ in 0..plan.fanout_changes {
        // Let the watcher settle between changes (its debounce is 150 ms).
        std::thread::sleep(Duration::from_millis(500));
        let driver_pid = driver.child.0.id();
        let (before, driver_before) = (Cpu::of(pid)?, Cpu::of(driver_pid)?);
        let report = driver.change()?;
        let (after, driver_after) = (Cpu::of(pid)?, Cpu::of(driver_pid)?);
        let write_to_last_us = report.write_to_last_us;
        let log = std::fs::read_to_string(&server.log)
            .map_err(|error| format!("cannot read the server's log: {error}"))?;
        let changed_us = change_logged_after(&log, report.write_unix_us)
            .ok_or_else(|| format!("the server's log has no {CHANGE_LOGGED:?} after the write"))?;
        let change = FanOut {
            setup_s,
            write_to_first_ms: report.write_to_first_us / 1e3,
            write_to_last_ms: write_to_last_us / 1e3,
            change_to_last_ms: (write_to_last_us - changed_us) / 1e3,
            cpu_us_per_notification: after.since(before).ns as f64 / 1e3 / FANOUT_STREAMS as f64,
            peak_rss_mib: peak_rss_mib(pid)?,
            driver_cpu_ms: driver_after.since(driver_before).ns as f64 / 1e6,
            extra: report.late,
            pinned: pinned.is_ok(),
        };
        eprintln!(
            "  change → last {:.1} ms, write → last {:.1} ms, cpu {:.2} µs/notification",
            change.change_to_last_ms, change.write_to_last_ms, change.cpu_us_per_notification
        );
        changes.push(change);
    }
    // Late notifications of the last change: let them come, then count them.
    std::thread::sleep(Duration::from_millis(500));
    let last = driver.ask("quit")?;
    if let Some(change) = changes.last_mut() {
        change.extra += last.get("late").and_then(Value::as_u64).unwrap_or(0);
    }
    Ok(changes)
}

/// The fan-out's section of the report: a row per era, wire and server, medians over changes.
pub(super) fn render(
    out: &mut String,
    fanouts: &BTreeMap<Scenario, BTreeMap<Subject, Vec<FanOut>>>,
) {
    let _ = writeln!(
        out,
        "## Fan-out of one file change to {} streams, Streamable HTTP on 127.0.0.1\n\n\
         mcp-resources serves 1,000 files with its watcher on; every stream subscribes to the same \
         file (modern: a `subscriptions/listen` POST per stream; legacy: a session per stream with \
         `resources/subscribe` and the GET SSE stream), over HTTP/1.1 or HTTP/2 (h2c). The driver \
         (`bench-fanout`, one tokio thread) checks every notification, rewrites the file and times \
         the first and the last notification it reads from the end of the write, so write → first \
         and write → last include the watcher's 150 ms debounce. **change → last** is the fan-out \
         proper (target: under 20 ms; the max over all changes in brackets): from the timestamp of \
         the server's log line on taking the change (`{CHANGE_LOGGED}`, `--log-level {LOG_FILTER}`) \
         to the last notification read. Server on core {SERVER_CORE}, driver on core {DRIVER_CORE} \
         (`taskset`). CPU is the server's per notification; driver CPU shows whether the driver set \
         the pace; peak RSS is the server's with every stream open. rmcp keeps no subscriptions.\n\n\
         The floors (`bench-floor`) serve modern listen streams only, with the same watcher and log \
         line and no protocol machinery: **bare hyper** with a task per stream, and, over HTTP/2, \
         the `h2` crate with **a task per connection** writing all of its streams, as mcp-resources \
         does. ÷ floor: change → last over the bare-hyper floor's on the same wire. Extra \
         notifications: beyond one per stream and change (counted, not timed).\n\n\
         | server | changes | streams open in s | write → first ms | write → last ms | first → last ms \
         | change → last ms (max) | ÷ floor | CPU µs/notification | driver CPU ms/change | peak RSS MiB \
         | extra notifications |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        thousands(FANOUT_STREAMS),
    );
    let change_to_last = |changes: &[FanOut]| {
        median(
            changes
                .iter()
                .map(|change| change.change_to_last_ms)
                .collect(),
        )
    };
    for (scenario, subjects) in fanouts.iter().rev() {
        let Scenario::FanOut { wire, .. } = *scenario else {
            continue;
        };
        let floor = fanouts
            .get(&Scenario::FanOut {
                era: Era::Modern,
                wire,
            })
            .and_then(|subjects| subjects.get(&Subject::Floor(Era::Modern)))
            .map_or(f64::NAN, |changes| change_to_last(changes));
        for (subject, changes) in subjects {
            let pick = |field: fn(&FanOut) -> f64| median(changes.iter().map(field).collect());
            let max =
                |field: fn(&FanOut) -> f64| changes.iter().map(field).fold(f64::NAN, f64::max);
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
                pick(|change| change.write_to_last_ms - change.write_to_first_ms),
                change_to_last(changes),
                max(|change| change.change_to_last_ms),
                ratio(change_to_last(changes), floor),
                pick(|change| change.cpu_us_per_notification),
                pick(|change| change.driver_cpu_ms),
                max(|change| change.peak_rss_mib),
                changes.iter().map(|change| change.extra).sum::<u64>(),
            );
        }
    }
    let unpinned = fanouts.values().flat_map(BTreeMap::values).flatten();
    let unpinned = unpinned.filter(|change| !change.pinned).count();
    if unpinned > 0 {
        let _ = writeln!(
            out,
            "\n**{unpinned} change(s) ran unpinned**: server and driver shared the cores, and \
             change → last includes the driver's CPU time."
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_is_the_first_logged_after_the_write() {
        let line = |time: &str| {
            format!(
                "2026-11-30T{time}Z DEBUG mcp_resources_server::feed: {CHANGE_LOGGED} uri=\"a\"\n"
            )
        };
        let log = [
            line("02:50:24.000000"),
            "2026-11-30T02:50:25.000000Z  WARN something else\n".to_owned(),
            line("02:50:26.500000"),
            line("02:50:27.000000"),
        ]
        .concat();
        // 2026-11-30T02:50:25Z is 1796007025 s after the epoch (`date -u -d … +%s`).
        let write_us = 1_796_007_025e6;
        assert_eq!(change_logged_after(&log, write_us), Some(1.5e6));
        assert_eq!(change_logged_after(&log, write_us + 2.5e6), None);
        // Across midnight: a write at 23:59:59.5, its change logged the next day.
        let midnight = 1_796_083_200e6;
        assert_eq!(
            change_logged_after(&line("00:00:00.250000"), midnight - 0.5e6),
            Some(0.75e6)
        );
        assert_eq!(
            change_logged_after("2026-11-30 02:50:24Z resource changed", write_us),
            None
        );
    }
}
