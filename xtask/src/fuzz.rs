//! `cargo xtask fuzz`: a bounded run of every fuzz target in `fuzz/` (cargo-fuzz, libFuzzer).
//!
//! **Layer:** tooling. It installs cargo-fuzz from crates.io when the machine has none, seeds
//! each target's corpus (`fuzz/corpus/<target>`, kept out of git) with the small inputs written
//! below, runs the targets one at a time for a fixed time each, with `RUSTC_BOOTSTRAP=1` so that
//! cargo-fuzz's sanitizer flags work on the stable toolchain, and reports per target how many
//! runs it made, how long it ran and the crashes it found (libFuzzer writes each to
//! `fuzz/artifacts/<target>/`). It fails when a target crashed. It never links the product
//! crates; it is too slow for CI and is not part of `.ci/run`.

use std::fs;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use crate::tidy::workspace_root;

/// The fuzz targets, in the order they run, and the seeds of their corpora.
const TARGETS: &[(&str, &[&[u8]])] = &[
    ("jsonrpc_decode", JSONRPC_SEEDS),
    ("uri", URI_SEEDS),
    ("template", TEMPLATE_SEEDS),
    ("cursor", CURSOR_SEEDS),
    ("headers", HEADER_SEEDS),
];

/// How long each target runs when `--seconds` is not given.
const DEFAULT_SECONDS: u64 = 60;

const JSONRPC_SEEDS: &[&[u8]] = &[
    br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a.md"}}"#,
    br#"{"jsonrpc":"2.0","id":"r-1","method":"resources/read","params":{"uri":"mem:///x","_meta":{"progressToken":7}}}"#,
    br#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"uri":"test://static-text"}}"#,
    br#"{ "method" : "resources/list", "jsonrpc" : "2.0", "id" : -3, "params" : {} }"#,
    br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    br#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#,
    br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},1]"#,
    br#"[]"#,
    br#"{"jsonrpc":"2.0","id":1.5,"method":"a\u0000b"}"#,
];

const URI_SEEDS: &[&[u8]] = &[
    b"file:///notes/todo.md",
    b"FILE:///Notes/./2026/../todo%2emd",
    b"https://Example.COM:443/a/%7euser/?q=%2f#frag",
    b"http://[::1]:80/x",
    b"file:///r/app/[slug]/page.tsx",
    b"urn:isbn:0451450523",
    b"mailto:a@example.com",
    b"file:///../etc/passwd",
    b"db://users/%2E%2E/x?y=%00",
    b"x:/a/b/../../c",
];

const TEMPLATE_SEEDS: &[&[u8]] = &[
    b"file:///notes/{+path}{?rev}",
    b"db://{table}/rows/{id}",
    b"db://x/{/list*}{;a,b}{.c}{#d}{&e}",
    b"file:///{name:3}/{+rest*}",
    b"\x10db://x/{a}/{b}\x02\x01v\x03w",
    b"{",
];

const CURSOR_SEEDS: &[&[u8]] = &[
    b"\x00AQAAAAAAAA",
    b"\x01\x01\x00\x00\x00\x00\x02file:///a",
    b"\x02\x01\x07\x00\x00\x00mem:///r/0001\x05\x41",
    b"\x02\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00",
];

const HEADER_SEEDS: &[&[u8]] = &[
    b"\x0flocalhost:8080\x15http://127.0.0.1:5173\x00\x00\x0a2026-07-28",
    b"\x06[::1]:\x12https://app.localhost\x01*",
    br#"evil.example.com null {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"uri":"test://static-text"}}"#,
];

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [TARGET...]

Runs each fuzz target of fuzz/ (default all: jsonrpc_decode, uri, template, cursor, headers)
for N seconds (default 60), one at a time, and reports its runs, time and crashes; fails when
one crashed. Installs cargo-fuzz with `cargo install cargo-fuzz --locked` when it is missing.";

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    seconds: u64,
    targets: Vec<String>,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        seconds: DEFAULT_SECONDS,
        targets: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let value = args.next().ok_or("--seconds needs a value")?;
                options.seconds = value
                    .parse()
                    .ok()
                    .filter(|seconds| *seconds > 0)
                    .ok_or_else(|| format!("--seconds takes a positive number, not {value:?}"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            name if TARGETS.iter().any(|(target, _)| *target == name) => {
                options.targets.push(name.to_owned());
            }
            other => return Err(format!("unknown target or option {other:?}")),
        }
    }
    if options.targets.is_empty() {
        options.targets = TARGETS.iter().map(|(name, _)| (*name).to_owned()).collect();
    }
    Ok(options)
}

/// What one target's run came to.
struct Outcome {
    target: String,
    runs: Option<u64>,
    seconds: f64,
    crashes: Vec<String>,
    failed: bool,
}

pub(crate) fn run(args: &[String]) -> ExitCode {
    let options = match parse_options(args) {
        Ok(options) => options,
        Err(error) => {
            if !error.is_empty() {
                eprintln!("fuzz: {error}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = workspace_root();
    if let Err(error) = ensure_cargo_fuzz() {
        eprintln!("fuzz: {error}");
        return ExitCode::FAILURE;
    }
    let mut outcomes = Vec::new();
    for target in &options.targets {
        match run_target(&root, target, options.seconds) {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => {
                eprintln!("fuzz: {target}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "fuzz: {:<16} {:>12} {:>9}  crashes",
        "target", "runs", "seconds"
    );
    for outcome in &outcomes {
        let runs = outcome
            .runs
            .map_or_else(|| "?".to_owned(), |runs| runs.to_string());
        let crashes = if outcome.crashes.is_empty() && !outcome.failed {
            "none".to_owned()
        } else if outcome.crashes.is_empty() {
            "failed without an artifact (see the log above)".to_owned()
        } else {
            outcome.crashes.join(", ")
        };
        println!(
            "fuzz: {:<16} {:>12} {:>9.1}  {crashes}",
            outcome.target, runs, outcome.seconds
        );
    }
    if outcomes
        .iter()
        .any(|outcome| outcome.failed || !outcome.crashes.is_empty())
    {
        eprintln!("fuzz: a target crashed; minimize with `cargo fuzz tmin TARGET ARTIFACT`");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Installs cargo-fuzz from crates.io unless `cargo fuzz` already runs.
fn ensure_cargo_fuzz() -> Result<(), String> {
    let present = Command::new("cargo")
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if present {
        return Ok(());
    }
    eprintln!("fuzz: installing cargo-fuzz (cargo install cargo-fuzz --locked)");
    let status = Command::new("cargo")
        .args(["install", "cargo-fuzz", "--locked"])
        .status()
        .map_err(|error| format!("cannot run cargo install: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo install cargo-fuzz failed: {status}"))
    }
}

/// Seeds `target`'s corpus, runs it for `seconds` and reads what libFuzzer said.
fn run_target(root: &Path, target: &str, seconds: u64) -> Result<Outcome, String> {
    let seeds = TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, seeds)| *seeds)
        .ok_or_else(|| format!("no such target {target}"))?;
    let corpus = root.join("fuzz").join("corpus").join(target);
    fs::create_dir_all(&corpus).map_err(|error| format!("cannot create {corpus:?}: {error}"))?;
    for (index, seed) in seeds.iter().enumerate() {
        let path = corpus.join(format!("seed-{index}"));
        fs::write(&path, seed).map_err(|error| format!("cannot write {path:?}: {error}"))?;
    }
    let artifacts = root.join("fuzz").join("artifacts").join(target);
    let before = artifact_names(&artifacts);
    eprintln!("fuzz: {target}: building and running for {seconds} s");
    let started = Instant::now();
    let output = Command::new("cargo")
        .current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "run", target])
        .arg(&corpus)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg("-timeout=30")
        .arg("-print_final_stats=1")
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .map_err(|error| format!("cannot run cargo fuzz: {error}"))?;
    let elapsed = started.elapsed().as_secs_f64();
    let log = String::from_utf8_lossy(&output.stderr);
    let log_path = root
        .join("fuzz")
        .join("artifacts")
        .join(format!("{target}.log"));
    if let Some(parent) = log_path.parent() {
        fs::create_dir_all(parent).map_err(|error| format!("cannot create {parent:?}: {error}"))?;
    }
    fs::write(&log_path, log.as_bytes())
        .map_err(|error| format!("cannot write {log_path:?}: {error}"))?;
    let (runs, fuzz_seconds) = final_stats(&log);
    let crashes: Vec<String> = artifact_names(&artifacts)
        .into_iter()
        .filter(|name| !before.contains(name))
        .map(|name| format!("fuzz/artifacts/{target}/{name}"))
        .collect();
    if !output.status.success() {
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        for line in tail.into_iter().rev() {
            eprintln!("fuzz: {target}: {line}");
        }
    }
    Ok(Outcome {
        target: target.to_owned(),
        runs,
        seconds: fuzz_seconds.unwrap_or(elapsed),
        crashes,
        failed: !output.status.success(),
    })
}

/// The artifacts libFuzzer has written for a target so far.
fn artifact_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The runs and seconds of libFuzzer's final stats (`stat::number_of_executed_units`,
/// `Done N runs in S second(s)`), when it printed them.
fn final_stats(log: &str) -> (Option<u64>, Option<f64>) {
    let mut runs = None;
    let mut seconds = None;
    for line in log.lines() {
        if let Some(value) = line.strip_prefix("stat::number_of_executed_units:") {
            runs = value.trim().parse().ok().or(runs);
        }
        if let Some(rest) = line.strip_prefix("Done ") {
            let mut words = rest.split_whitespace();
            let done = words.next().and_then(|word| word.parse().ok());
            let time = words.nth(2).and_then(|word| word.parse().ok());
            runs = runs.or(done);
            seconds = time.or(seconds);
        }
    }
    (runs, seconds)
}

#[cfg(test)]
mod tests {
    use super::{DEFAULT_SECONDS, Options, final_stats, parse_options};

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options() {
        let all = parse_options(&[]).unwrap();
        assert_eq!(all.seconds, DEFAULT_SECONDS);
        assert_eq!(all.targets.len(), 5);
        assert_eq!(
            parse_options(&args("--seconds 5 uri cursor")).unwrap(),
            Options {
                seconds: 5,
                targets: vec!["uri".to_owned(), "cursor".to_owned()],
            }
        );
        assert!(parse_options(&args("--seconds 0")).is_err());
        assert!(parse_options(&args("--seconds")).is_err());
        assert!(parse_options(&args("nope")).is_err());
    }

    #[test]
    fn reads_libfuzzer_stats() {
        let log = "#2\tINITED cov: 10\nDone 123456 runs in 61 second(s)\n\
                   stat::number_of_executed_units: 123457\n";
        assert_eq!(final_stats(log), (Some(123_457), Some(61.0)));
        assert_eq!(
            final_stats("==1== ERROR: libFuzzer: deadly signal\n"),
            (None, None)
        );
    }
}
