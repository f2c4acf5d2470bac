//! `cargo xtask bench`: `mcp-resources` side by side with the official Rust SDK (`rmcp`) and
//! with a floor (what transport and JSON alone cost), on the same workload, in interleaved
//! rounds, with medians written to `BENCHMARKS.md` (issue 8).
//!
//! **Layer:** tooling. It builds our binary and the programs of `bench/rmcp-anchor` (their own
//! cargo workspace, never a dependency of the product) with the same [`PROFILE`], runs every
//! server as a child process on loopback ([`server`]) and drives it from here ([`load`]); the
//! fan-out has a driver of its own ([`fanout`]), the in-process list page is the core's divan
//! bench ([`pages`]), the git provider beside the git command line is that provider's divan
//! bench ([`git`]), the SQL provider beside `rusqlite` alone is that provider's ([`sql`]), and a
//! read with the content rules on against off is the filesystem provider's ([`redaction`]).
//! Server CPU time comes from the server's own scheduler statistics in `/proc`. It builds the
//! servers only when a chosen scenario starts them. It never links the product crates, and it
//! kills every process it starts.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use crate::tidy::workspace_root;

mod deployment;
mod fanout;
mod git;
mod load;
mod pages;
mod plan;
mod redaction;
mod server;
mod sql;
mod stats;

use self::load::Figures;
use self::plan::{Plan, Scenario, Subject};
use self::server::{Programs, config_text, write_files};
use self::stats::ratio;

const USAGE: &str = "usage: cargo xtask bench [--quick] [--only TEXT]

Builds mcp-resources and bench/rmcp-anchor (the rmcp anchor, the floor and the fan-out driver)
with the `dist` profile, measures mcp-resources beside rmcp and the floor (resources/read at
concurrency 1 and 32 on stdio and Streamable HTTP, both eras; list walks; subscriptions), the
fan-out of one change to 10,000 streams, one list page out of up to 1,000,000 resources
in-process, the git provider in-process beside the git command line, and the SQL provider
in-process beside rusqlite alone, and a deployment of 3 instances with the Redis feed (needs
redis-server and haproxy), in interleaved rounds, and writes BENCHMARKS.md.

  --quick       fewer rounds and shorter runs (a few minutes in all)
  --only TEXT   only the scenarios whose title contains TEXT (e.g. \"stdio, concurrency 32\",
                \"git\", \"sql\");
                the report is printed, and BENCHMARKS.md, which holds a whole run, is left alone";

/// The cargo profile of every benched program, defined alike in the workspace's and in
/// `bench/rmcp-anchor`'s `Cargo.toml`: release with fat LTO and one codegen unit.
const PROFILE: &str = "dist";

fn parse_options(args: &[String]) -> Result<Plan, String> {
    let mut plan = Plan::new(args.iter().any(|arg| arg == "--quick"));
    let mut args = args.iter().filter(|arg| *arg != "--quick");
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--only" => plan.only = Some(args.next().ok_or("--only needs a value")?.clone()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(plan)
}

/// Runs `cargo xtask bench` with the arguments after the command name.
pub(crate) fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let result = match parse_options(args) {
        Ok(plan) => run_plan(&plan, args),
        Err(message) => {
            eprintln!("bench: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Everything one invocation measured.
#[derive(Default)]
struct Results {
    /// Request loads: every run of every server.
    loads: BTreeMap<Scenario, BTreeMap<Subject, Vec<Figures>>>,
    /// Fan-out: every change of every run.
    fanouts: BTreeMap<Scenario, BTreeMap<Subject, Vec<fanout::FanOut>>>,
    /// The in-process list page, by total.
    pages: Vec<pages::Page>,
    /// The in-process directory page, by the tree's total.
    directory_pages: Vec<pages::Page>,
    /// The git provider beside the git command line.
    git: Option<pages::BenchFigures>,
    /// The SQL provider beside rusqlite alone.
    sql: Option<pages::BenchFigures>,
    /// The content rules' bench: a 1 MiB read with them off and on.
    redaction: Option<pages::BenchFigures>,
    /// The deployment of several instances.
    deployment: Option<deployment::Deployment>,
}

fn run_plan(plan: &Plan, args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let work = target.join("bench-work");
    let config = work.join("resources.toml");
    fs::create_dir_all(work.join("empty"))
        .and_then(|()| fs::write(&config, config_text()))
        .map_err(|error| format!("cannot write the workload to {}: {error}", work.display()))?;
    let files = work.join("files");
    write_files(&files)?;
    let files_written = Instant::now();

    let mut scenarios = Scenario::all();
    if let Some(only) = &plan.only {
        scenarios.retain(|scenario| scenario.title().contains(only.as_str()));
        if scenarios.is_empty() {
            return Err(format!("no scenario title contains {only:?}"));
        }
    }
    let bench_target = target.join("bench");
    if scenarios.iter().any(|scenario| scenario.runs_servers()) {
        let manifest = root.join("bench/rmcp-anchor/Cargo.toml");
        cargo_build(
            &root,
            &["--package", "mcp-server-bin", "--bin", "mcp-resources"],
            None,
        )?;
        cargo_build(
            &root,
            &["--manifest-path", &manifest.to_string_lossy()],
            Some(&bench_target),
        )?;
    }
    let built = |dir: &Path, name: &str| dir.join(PROFILE).join(name);
    let programs = Programs {
        root: root.clone(),
        ours: built(&target, "mcp-resources"),
        anchor: built(&bench_target, "rmcp-anchor"),
        floor: built(&bench_target, "bench-floor"),
        fanout: built(&bench_target, "bench-fanout"),
        config,
        files,
        files_written,
        fanout_files: work.join("fanout-files"),
        logs: work,
    };

    let started = Instant::now();
    let mut results = Results::default();
    for scenario in scenarios {
        let title = scenario.title();
        eprintln!("bench: {title}");
        let rounds = match scenario {
            Scenario::FanOut { .. } => plan.fanout_rounds,
            Scenario::ListPage => {
                (results.pages, results.directory_pages) =
                    pages::measure(&programs, plan).map_err(|error| format!("{title}: {error}"))?;
                continue;
            }
            Scenario::Git => {
                results.git =
                    Some(git::measure(&programs).map_err(|error| format!("{title}: {error}"))?);
                continue;
            }
            Scenario::Sql => {
                results.sql =
                    Some(sql::measure(&programs).map_err(|error| format!("{title}: {error}"))?);
                continue;
            }
            Scenario::Redaction => {
                results.redaction = Some(
                    redaction::measure(&programs).map_err(|error| format!("{title}: {error}"))?,
                );
                continue;
            }
            Scenario::Deployment => {
                results.deployment = Some(
                    deployment::measure(&programs, plan)
                        .map_err(|error| format!("{title}: {error}"))?,
                );
                continue;
            }
            _ => plan.rounds,
        };
        // Interleaved: every server once per round, in the same order.
        for round in 1..=rounds {
            for subject in scenario.subjects() {
                let context =
                    |error| format!("{title} / {} / round {round}: {error}", subject.label());
                if let Scenario::FanOut { era, wire } = scenario {
                    let changes =
                        fanout::measure(&programs, plan, subject, era, wire).map_err(context)?;
                    results
                        .fanouts
                        .entry(scenario)
                        .or_default()
                        .entry(subject)
                        .or_default()
                        .extend(changes);
                    continue;
                }
                let figures = load::measure(&programs, plan, scenario, subject).map_err(context)?;
                eprintln!(
                    "  round {round} {:<62} {:>9.0} req/s  cpu {:>6.1} µs/req ({:>3.0}% kernel)  p50 {:>7.1} µs  \
                     p99 {:>7.1} µs  rss {:>5.1} MiB",
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
                    .entry(scenario)
                    .or_default()
                    .entry(subject)
                    .or_default()
                    .push(figures);
            }
        }
    }

    let command = ["cargo xtask bench".to_owned()]
        .iter()
        .chain(args)
        .cloned()
        .collect::<Vec<_>>();
    let report = render_report(plan, &command.join(" "), &results, started.elapsed());
    println!("{report}");
    if plan.only.is_some() {
        eprintln!("bench: a partial run (--only): BENCHMARKS.md is left as it is");
        return Ok(());
    }
    let path = root.join("BENCHMARKS.md");
    fs::write(&path, &report)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    eprintln!("bench: wrote {}", path.display());
    Ok(())
}

/// `cargo build --profile dist` with `args`, into `target_dir` if given.
fn cargo_build(root: &Path, args: &[&str], target_dir: Option<&Path>) -> Result<(), String> {
    eprintln!("bench: building {} (profile {PROFILE})", args[1]);
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(root)
        .args(["build", "--profile", PROFILE])
        .args(args);
    if let Some(dir) = target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("cargo build {} failed ({status})", args.join(" "))),
        Err(error) => Err(format!("cannot run cargo: {error}")),
    }
}

/// The model name of the CPU, from `/proc/cpuinfo`.
fn cpu_model() -> Option<String> {
    let text = fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|line| line.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_owned())
}

fn render_report(plan: &Plan, command: &str, results: &Results, took: Duration) -> String {
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output();
    let date = date.map_or_else(
        |_| "unknown date".into(),
        |out| String::from_utf8_lossy(&out.stdout).trim().to_owned(),
    );
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let model = cpu_model().unwrap_or_else(|| "unknown CPU".to_owned());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Benchmarks\n\n\
         Generated by `{command}` (issue 8); do not edit by hand.\n\n\
         - Date: {date}\n\
         - Machine: {cores} cores (nproc), {model}\n\
         - Build: every program with the cargo profile `{PROFILE}` (release, fat LTO, one codegen unit)\n\
         - Plan: {} rounds, interleaved (every server once a round, a fresh process each run); \
         medians over rounds, each column on its own. Per run: {} warm-up requests, then at most {} \
         requests (concurrency 1) / {} (concurrency 32) or {:?}; {} list walks. Fan-out: {} run(s) \
         of {} changes each; medians over all changes.\n\
         - Took: {:.0} s\n\n\
         Workload: 1,000 text resources of 1 KiB (`mem:///r/0000`…) and the template `mem:///t/{{id}}`, \
         read round robin. mcp-resources serves them from its configuration, or, where the title says \
         so, from 1,000 files with the same bytes through its filesystem provider (`--no-watch`; \
         files at least 3 s old, so served from its read cache). rmcp (`bench/rmcp-anchor`, rmcp 3.11, \
         `stdio_pipes()` and stateless Streamable HTTP) and the floor (`bench-floor`: a typed serde \
         parse and reply on a bare pipe loop or a bare hyper handler) serve them from memory. Legacy \
         requests follow `initialize` (not to the floor); modern ones carry `_meta` and, on HTTP, the \
         `Mcp-Method`/`Mcp-Name` headers. In the SSE scenarios every read carries \
         `_meta.progressToken`, since mcp-resources answers with SSE only when a notification precedes \
         the response: its reply is two events, the others' one.\n\n\
         Columns: req/s over the measured window; p50/p99 latency seen by the driver; server CPU per \
         request from `/proc/<pid>/task/*/schedstat`, and the kernel's share of it (`stime` against \
         `utime`); peak RSS (`VmHWM`); CPU ÷ rmcp and req/s ÷ floor on the same era (the same request \
         bytes). The driver shares the cores with the server: req/s and latency include that \
         contention, CPU per request does not.\n",
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
    for (scenario, subjects) in &results.loads {
        let _ = writeln!(
            out,
            "## {}\n\n\
             | server | req/s | p50 µs | p99 µs | CPU µs/req | of it in kernel | peak RSS MiB | CPU ÷ rmcp | req/s ÷ floor |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|",
            scenario.title()
        );
        let medians: BTreeMap<Subject, Figures> = subjects
            .iter()
            .map(|(subject, runs)| (*subject, Figures::median(runs)))
            .collect();
        for (subject, figures) in &medians {
            let other = |subject: Subject| {
                medians.get(&subject).copied().unwrap_or(Figures {
                    cpu_us_per_request: f64::NAN,
                    requests_per_second: f64::NAN,
                    ..Figures::default()
                })
            };
            let (rmcp, floor) = (
                other(Subject::Rmcp(subject.era())),
                other(Subject::Floor(subject.era())),
            );
            let _ = writeln!(
                out,
                "| {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0}% | {:.1} | {} | {} |",
                subject.label(),
                figures.requests_per_second,
                figures.p50_us,
                figures.p99_us,
                figures.cpu_us_per_request,
                figures.kernel_percent,
                figures.peak_rss_mib,
                ratio(figures.cpu_us_per_request, rmcp.cpu_us_per_request),
                ratio(figures.requests_per_second, floor.requests_per_second),
            );
        }
        out.push('\n');
    }
    if !results.fanouts.is_empty() {
        fanout::render(&mut out, &results.fanouts);
    }
    if !results.pages.is_empty() {
        pages::render(&mut out, &results.pages, &results.directory_pages);
    }
    let measured = format!("Measured by `{command}` on {date}; {cores} cores (nproc), {model}.");
    if let Some(figures) = &results.git {
        git::render(&mut out, figures, &measured);
    }
    if let Some(figures) = &results.sql {
        sql::render(&mut out, figures, &measured);
    }
    if let Some(figures) = &results.redaction {
        redaction::render(&mut out, figures, &measured);
    }
    if let Some(figures) = &results.deployment {
        deployment::render(&mut out, figures, &measured);
    }
    let _ = writeln!(
        out,
        "## Not measured yet, and caveats\n\n\
         - At concurrency 1 every request wakes the sleeping server and every reply the driver: most of \
         a lean server's CPU is then the kernel's, about the same for every server, which bounds the CPU \
         ratio to rmcp from below.\n\
         - Fan-out times are those at which the driver read each notification; when the server wrote the \
         last one is not observable from outside. The fan-out is measured over Streamable HTTP only (on \
         stdio one client holds at most 64 listen streams), over HTTP/2 with the `h2` crate's client only.\n\
         - The list walk and the SSE scenarios serve the configuration's resources only; the in-process \
         list page is the core's engine over an in-memory provider."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let args = |args: &[&str]| {
            parse_options(&args.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>())
        };
        assert_eq!(args(&[]), Ok(Plan::new(false)));
        assert_eq!(args(&["--quick"]), Ok(Plan::new(true)));
        assert!(args(&["--fast"]).is_err());
        assert!(args(&["--only"]).is_err());
        let partial = args(&["--only", "stdio", "--quick"]).expect("valid");
        assert_eq!(
            partial,
            Plan {
                only: Some("stdio".to_owned()),
                ..Plan::new(true)
            }
        );
    }

    #[test]
    fn the_report_compares_each_era_with_rmcp_and_the_floor() {
        let figures = |cpu, rps| Figures {
            cpu_us_per_request: cpu,
            requests_per_second: rps,
            ..Figures::default()
        };
        let scenario = Scenario::all()[0];
        let mut results = Results::default();
        let subjects = results.loads.entry(scenario).or_default();
        subjects.insert(
            Subject::Ours(plan::Era::Modern),
            vec![figures(2.0, 90.0), figures(3.0, 80.0), figures(9.0, 0.0)],
        );
        subjects.insert(Subject::Rmcp(plan::Era::Modern), vec![figures(12.0, 50.0)]);
        subjects.insert(Subject::Floor(plan::Era::Modern), vec![figures(2.0, 100.0)]);
        subjects.insert(Subject::Ours(plan::Era::Legacy), vec![figures(1.0, 10.0)]);
        let report = render_report(
            &Plan::new(true),
            "cargo xtask bench",
            &results,
            Duration::from_secs(1),
        );
        assert!(report.contains(&format!("## {}\n", scenario.title())));
        assert!(report.contains("| mcp-resources, modern (2026-07-28) | 80 | 0.0 | 0.0 | 3.0 | 0% | 0.0 | 0.25 | 0.80 |"), "{report}");
        assert!(
            report.contains(
                "| mcp-resources, legacy (2025-11-25) | 10 | 0.0 | 0.0 | 1.0 | 0% | 0.0 | – | – |"
            ),
            "{report}"
        );
        assert!(report.contains(
            "| rmcp 3.11, modern (2026-07-28) | 50 | 0.0 | 0.0 | 12.0 | 0% | 0.0 | 1.00 | 0.50 |"
        ));
    }
}
