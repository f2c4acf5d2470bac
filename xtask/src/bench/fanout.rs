//! The fan-out scenario of `cargo xtask bench`: one file rewritten under a folder that
//! `mcp-resources` serves over Streamable HTTP with its watcher on, and 10,000 notification
//! streams subscribed to that file (modern `subscriptions/listen` streams, or legacy sessions
//! each with a GET stream and a `resources/subscribe`), over HTTP/1.1 (a connection per stream)
//! or HTTP/2 (many streams to a connection).
//!
//! **Layer:** tooling, part of the bench. The streams are held by the fan-out driver
//! (`bench/rmcp-anchor/src/bin/bench-fanout.rs`, built in release: one single-threaded tokio
//! runtime, non-blocking sockets), which checks every notification and reports, per change,
//! when the first and the last one arrived after the write; this module starts the server and
//! the driver, asks for the changes one at a time, reads the server's CPU time around each,
//! the moment the server logged taking each change, and its peak RSS at the end. The server
//! and the driver each get a core of their own ([`pin`]) where the machine has two: otherwise
//! the kernel, seeing them talk, runs both on the core of the one that writes, and the time
//! measured is the sum of their CPU times instead of the server's. Only
//! mcp-resources and the floors (`bench-floor fanout` and `fanout-h2`, modern listen streams
//! only, logging the change as mcp-resources does) are measured: rmcp keeps no subscriptions.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::plan::{
    Era, FANOUT_STREAMS, FANOUT_STREAMS_PER_CONNECTION, Plan, Subject, Transport, Wire,
};
use super::server::{
    Programs, Server, Serving, cpu_ns, file_name, file_uri_prefix, peak_rss_mib, write_files,
};

/// What one change measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct FanOut {
    /// How long opening every stream took (the same for every change of a run).
    pub(super) setup_s: f64,
    /// From the end of the file write to the first notification read by the driver.
    pub(super) write_to_first_ms: f64,
    /// From the end of the file write to the last notification read by the driver.
    pub(super) write_to_last_ms: f64,
    /// From the moment the server took the change (its debounce over, the log line it writes
    /// before it notifies) to the last notification read by the driver: the fan-out proper.
    pub(super) change_to_last_ms: f64,
    /// Server CPU time of the change (the watcher, the hub, every stream's write) per
    /// notification.
    pub(super) cpu_us_per_notification: f64,
    /// The server's peak RSS with every stream open.
    pub(super) peak_rss_mib: f64,
    /// The driver's own CPU time for the change (reading and checking every notification), to
    /// show whether it, rather than the server, set the pace.
    pub(super) driver_cpu_ms: f64,
    /// Notifications beyond one per stream for an earlier change, seen before this one (the
    /// driver counts them, and counts only the first of each stream).
    pub(super) extra: u64,
    /// Whether the server and the driver ran on a core each ([`pin`]).
    pub(super) pinned: bool,
}

impl FanOut {
    /// From the first notification read to the last.
    pub(super) fn first_to_last_ms(&self) -> f64 {
        self.write_to_last_ms - self.write_to_first_ms
    }
}

/// The cores of the server and of the driver ([`pin`]).
const SERVER_CORE: usize = 0;
const DRIVER_CORE: usize = 1;

/// Binds every thread of process `pid`, and those it starts later, to `core`, with util-linux's
/// `taskset`. Fails where the machine has fewer than two cores or `taskset` is missing; the
/// run then goes on unpinned, and says so.
fn pin(pid: u32, core: usize) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 {
        return Err(format!("{cores} core(s)"));
    }
    let output = Command::new("taskset")
        .args(["--all-tasks", "--cpu-list", "--pid"])
        .arg(core.to_string())
        .arg(pid.to_string())
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run taskset: {error}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "taskset failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The server's log line for a changed file, written (at `debug` for the module
/// `mcp_resources_server::server`) just before it notifies the file's subscribers.
pub(super) const CHANGE_LOGGED: &str = "resource changed: notifying its subscribers";

/// When the server took its first change at or after `since_unix_us`, in µs since the Unix
/// epoch, from the timestamps of its log (`2026-11-30T02:50:24.623425Z …`).
fn change_logged_at(log: &str, since_unix_us: f64) -> Option<f64> {
    log.lines()
        .filter(|line| line.contains(CHANGE_LOGGED))
        .filter_map(|line| unix_micros(line.split_whitespace().next()?))
        .find(|at| *at >= since_unix_us)
}

/// An RFC 3339 UTC timestamp (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`) in µs since the Unix epoch.
fn unix_micros(stamp: &str) -> Option<f64> {
    let (date, time) = stamp.strip_suffix('Z')?.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let mut time = time.splitn(3, ':');
    let (hours, minutes) = (
        time.next()?.parse::<i64>().ok()?,
        time.next()?.parse::<i64>().ok()?,
    );
    let seconds = time.next()?.parse::<f64>().ok()?;
    // Days since 1970-01-01 of a proleptic Gregorian date (years counted from March, so that
    // the leap day ends a year).
    let shifted = if month <= 2 { year - 1 } else { year };
    let era = shifted.div_euclid(400);
    let year_of_era = shifted - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let whole = (days * 86_400 + hours * 3_600 + minutes * 60) as f64;
    Some((whole + seconds) * 1e6)
}

/// The driver process; killed on drop.
struct Driver {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Driver {
    /// The next line the driver prints, as JSON; an `{"error":…}` line is an error.
    fn line(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        let read = self
            .stdout
            .read_line(&mut line)
            .map_err(|error| format!("cannot read from the fan-out driver: {error}"))?;
        if read == 0 {
            return Err("the fan-out driver ended without a word".to_owned());
        }
        let value: Value = serde_json::from_str(&line)
            .map_err(|error| format!("the fan-out driver printed {line:?} ({error})"))?;
        match value.get("error").and_then(Value::as_str) {
            Some(error) => Err(format!("the fan-out driver failed: {error}")),
            None => Ok(value),
        }
    }

    fn command(&mut self, command: &str) -> Result<(), String> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|error| format!("cannot write to the fan-out driver: {error}"))
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One run: a fresh folder, a fresh server, 10,000 fresh streams, then the plan's changes.
pub(super) fn measure(
    programs: &Programs,
    plan: &Plan,
    subject: Subject,
    era: Era,
    wire: Wire,
) -> Result<Vec<FanOut>, String> {
    let dir = &programs.fanout_files;
    write_files(dir)?;
    let server = Server::start(
        programs,
        subject,
        Transport::Http,
        Serving::Files { dir, watch: true },
    )?;
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
    let file = dir.join(file_name(0));
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
        .arg(port.to_string())
        .arg(FANOUT_STREAMS.to_string())
        .arg(&uri)
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log_file)
        .spawn()
        .map_err(|error| format!("cannot start {}: {error}", programs.fanout.display()))?;
    let pinned = pinned.and_then(|()| pin(child.id(), DRIVER_CORE));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("the fan-out driver has no pipes".to_owned());
    };
    match &pinned {
        Ok(()) => eprintln!("  server on core {SERVER_CORE}, driver on core {DRIVER_CORE}"),
        Err(error) => eprintln!("  not pinned ({error}): server and driver share the cores"),
    }
    let mut driver = Driver {
        child,
        stdin,
        stdout: BufReader::new(stdout),
    };
    let ready = driver.line()?;
    if ready.get("ready").and_then(Value::as_u64) != Some(FANOUT_STREAMS as u64) {
        return Err(format!("the fan-out driver is not ready: {ready}"));
    }
    let setup_s = ready
        .get("setup_ms")
        .and_then(Value::as_f64)
        .unwrap_or(f64::NAN)
        / 1e3;
    eprintln!("  {FANOUT_STREAMS} streams open in {setup_s:.1} s");
    let mut changes = Vec::with_capacity(plan.fanout_changes);
    for change in 0..plan.fanout_changes {
        // Let the watcher settle between changes (its debounce is 150 ms).
        std::thread::sleep(Duration::from_millis(500));
        let driver_pid = driver.child.id();
        let (before, driver_before) = (cpu_ns(pid)?, cpu_ns(driver_pid)?);
        driver.command("change")?;
        let report = driver.line()?;
        let (after, driver_after) = (cpu_ns(pid)?, cpu_ns(driver_pid)?);
        if report.get("received").and_then(Value::as_u64) != Some(FANOUT_STREAMS as u64) {
            return Err(format!("a change did not reach every stream: {report}"));
        }
        let millis = |field: &str| {
            report
                .get(field)
                .and_then(Value::as_f64)
                .map(|micros| micros / 1e3)
                .ok_or_else(|| format!("the fan-out driver's report has no {field}: {report}"))
        };
        let write_to_last_ms = millis("write_to_last_us")?;
        let write_unix_us = millis("write_unix_us")? * 1e3;
        let log = std::fs::read_to_string(server.log_path())
            .map_err(|error| format!("cannot read the server's log: {error}"))?;
        let changed_unix_us = change_logged_at(&log, write_unix_us).ok_or_else(|| {
            format!("the server's log has no {CHANGE_LOGGED:?} line after the write")
        })?;
        let figures = FanOut {
            setup_s,
            write_to_first_ms: millis("write_to_first_us")?,
            write_to_last_ms,
            change_to_last_ms: write_to_last_ms - (changed_unix_us - write_unix_us) / 1e3,
            cpu_us_per_notification: (after - before) as f64 / 1e3 / FANOUT_STREAMS as f64,
            peak_rss_mib: peak_rss_mib(pid)?,
            driver_cpu_ms: (driver_after - driver_before) as f64 / 1e6,
            extra: report.get("late").and_then(Value::as_u64).unwrap_or(0),
            pinned: pinned.is_ok(),
        };
        eprintln!(
            "  change {}: write → first {:>7.1} ms, write → last {:>7.1} ms, first → last {:>7.1} ms, \
             change → last {:>7.1} ms, cpu {:>5.1} µs/notification (driver {:>6.1} ms), rss {:>6.1} MiB, late {}",
            change + 1,
            figures.write_to_first_ms,
            figures.write_to_last_ms,
            figures.first_to_last_ms(),
            figures.change_to_last_ms,
            figures.cpu_us_per_notification,
            figures.driver_cpu_ms,
            figures.peak_rss_mib,
            figures.extra
        );
        changes.push(figures);
    }
    // Late notifications of the last change: let them come, then count them.
    std::thread::sleep(Duration::from_millis(500));
    driver.command("quit")?;
    let last = driver.line()?;
    if let Some(change) = changes.last_mut() {
        change.extra += last.get("late").and_then(Value::as_u64).unwrap_or(0);
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::{change_logged_at, unix_micros};

    #[test]
    fn log_timestamps_are_read_as_unix_time() {
        assert_eq!(unix_micros("1970-01-01T00:00:00Z"), Some(0.0));
        // `date -u -d 2026-11-30T02:50:24 +%s` is 1796007024.
        assert_eq!(
            unix_micros("2026-11-30T02:50:24.623425Z"),
            Some(1_796_007_024_623_425.0)
        );
        // A leap day, and the day after it.
        assert_eq!(unix_micros("2024-02-29T00:00:00Z"), Some(1_709_164_800e6));
        assert_eq!(unix_micros("2024-03-01T00:00:00Z"), Some(1_709_251_200e6));
        assert_eq!(unix_micros("2026-11-30 02:50:24Z"), None);
        assert_eq!(unix_micros("2026-11-30T02:50:24"), None);
    }

    #[test]
    fn the_change_is_the_first_logged_after_the_write() {
        let log = "2026-11-30T02:50:24.000000Z DEBUG mcp_resources_server::server: resource changed: notifying its subscribers uri=\"a\"\n\
                   2026-11-30T02:50:25.000000Z  WARN something else\n\
                   2026-11-30T02:50:26.500000Z DEBUG mcp_resources_server::server: resource changed: notifying its subscribers uri=\"a\"\n\
                   2026-11-30T02:50:27.000000Z DEBUG mcp_resources_server::server: resource changed: notifying its subscribers uri=\"a\"\n";
        let second = unix_micros("2026-11-30T02:50:25Z").unwrap();
        assert_eq!(
            change_logged_at(log, second),
            unix_micros("2026-11-30T02:50:26.5Z")
        );
        assert_eq!(change_logged_at(log, second + 3e6), None);
    }
}
