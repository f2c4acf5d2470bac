//! `cargo xtask conformance`: the official MCP conformance suite against the `mcp-resources`
//! binary, on the legacy and the stateless wire, with a baseline of expected failures.
//!
//! **Layer:** tooling. It builds the binary, starts it on `127.0.0.1` with a fixture
//! configuration (`conformance/fixture.toml`), installs the suite
//! (`@modelcontextprotocol/conformance`) and a Node 22 runtime into `target/conformance-cache/`
//! with the machine's npm, runs one requirement set at a time against a fresh server, then
//! reads every scenario's `checks.json` and judges it against
//! `conformance/expected-failures-<revision>.yml`; then, on the same server and wire, runs the
//! Skills extension's scenarios (pending in the suite, so in no set) one by one, which must pass
//! whole. It never links the product crates: it drives
//! the binary from outside, as a client would, and it kills every server it starts on every exit
//! path (`harness::ServerProcess` kills on drop).
//!
//! The baseline files are read here rather than with a YAML crate, because the comments are
//! part of the rule: every entry must carry its reason as a comment, and only the scenarios
//! `shared/CONFORMANCE.md` lets a resources server skip may appear ([`allowed_entry`]).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};
use std::time::Duration;

use serde_json::Value;

use crate::harness::{
    ServerProcess, absolute, build_server, cache_dir, npm_install, npm_version, print_tail,
    run_bounded,
};
use crate::tidy::workspace_root;

/// The suite, by exact version (the `latest` tag still points at an older release).
const SUITE_PACKAGE: &str = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
/// The suite's version, as its `package.json` says it.
const SUITE_VERSION: &str = "0.2.0-alpha.12";

/// The Skills extension's scenarios (SEP-2640): pending in the suite, so in no requirement set;
/// run one by one on each wire, with no expected failure (a warning fails them too).
const EXTENSION_SCENARIOS: [&str; 3] = [
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];
/// The requirement sets, each run on its own wire.
const REVISIONS: &[&str] = &["2025-11-25", "2026-07-28"];

/// How long one requirement set may run.
const SUITE_TIMEOUT: Duration = Duration::from_secs(900);

const USAGE: &str = "usage: cargo xtask conformance [--requirements 2025-11-25|2026-07-28|all] \
[--fixture FILE] [--debug] [--self-test]

Builds mcp-resources, serves FILE (default conformance/fixture.toml) on 127.0.0.1, and runs the
official MCP conformance suite against it for each requirement set (default all), with
conformance/expected-failures-<revision>.yml as the baseline.

  --debug       build and run the debug binary instead of the release one
  --self-test   run against conformance/fixture-without-static-text.toml and succeed only if
                the harness reports the failure of resources-read-text";

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    revisions: Vec<&'static str>,
    fixture: Option<PathBuf>,
    release: bool,
    self_test: bool,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        revisions: REVISIONS.to_vec(),
        fixture: None,
        release: true,
        self_test: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--requirements" => {
                let value = args.next().ok_or("--requirements needs a value")?;
                options.revisions = match value.as_str() {
                    "all" => REVISIONS.to_vec(),
                    other => vec![
                        *REVISIONS
                            .iter()
                            .find(|revision| **revision == other)
                            .ok_or_else(|| {
                                format!("unknown requirement set {other:?}: expected 2025-11-25, 2026-07-28 or all")
                            })?,
                    ],
                };
            }
            "--fixture" => {
                let value = args.next().ok_or("--fixture needs a file")?;
                options.fixture = Some(PathBuf::from(value));
            }
            "--debug" => options.release = false,
            "--self-test" => options.self_test = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.self_test && options.fixture.is_some() {
        return Err("--self-test uses its own fixture; leave out --fixture".to_owned());
    }
    Ok(options)
}

/// Runs `cargo xtask conformance` with the arguments after the command name.
pub(crate) fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match parse_options(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("conformance: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run_sets(&options) {
        Ok(outcome) if options.self_test => finish_self_test(&outcome, options.revisions.len()),
        Ok(outcome) => {
            if outcome.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("conformance: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The self-test succeeds when `resources-read-text` failed unexpectedly in every requirement
/// set, and both the harness and the suite's exit status failed the run.
fn finish_self_test(outcome: &Outcome, sets: usize) -> ExitCode {
    let noticed = outcome
        .failing_scenarios
        .iter()
        .filter(|scenario| *scenario == "resources-read-text")
        .count();
    if outcome.failed > 0 && !outcome.suite_ok && noticed == sets {
        println!(
            "self-test: ok, the harness failed the run on the fixture without test://static-text \
             (resources-read-text failed unexpectedly)"
        );
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "self-test: FAILED, the harness did not notice that test://static-text is missing \
             (unexpected failures: {:?})",
            outcome.failing_scenarios
        );
        ExitCode::FAILURE
    }
}

/// The verdict of all requirement sets together.
#[derive(Debug, Default)]
struct Outcome {
    passed: usize,
    failed: usize,
    expected: usize,
    /// The scenarios that failed without being in the baseline, over all sets.
    failing_scenarios: Vec<String>,
    /// Whether the suite's own exit status agreed that nothing unexpected happened.
    suite_ok: bool,
}

impl Outcome {
    fn ok(&self) -> bool {
        self.failed == 0 && self.suite_ok
    }
}

fn run_sets(options: &Options) -> Result<Outcome, String> {
    let root = workspace_root();
    let cache = cache_dir(&root, "conformance-cache");
    fs::create_dir_all(&cache)
        .map_err(|error| format!("cannot create {}: {error}", cache.display()))?;
    let conformance_dir = root.join("conformance");
    let fixture = match (&options.fixture, options.self_test) {
        (Some(fixture), _) => absolute(fixture),
        (None, true) => conformance_dir.join("fixture-without-static-text.toml"),
        (None, false) => conformance_dir.join("fixture.toml"),
    };
    if !fixture.is_file() {
        return Err(format!("the fixture {} does not exist", fixture.display()));
    }

    // The baselines are checked before minutes are spent on a build.
    let mut baselines = BTreeMap::new();
    for revision in &options.revisions {
        let path = conformance_dir.join(format!("expected-failures-{revision}.yml"));
        let text = fs::read_to_string(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        let baseline = Baseline::parse(&text)
            .and_then(|baseline| baseline.check_allowed(revision).map(|()| baseline))
            .map_err(|problem| format!("{}: {problem}", path.display()))?;
        baselines.insert(*revision, (path, baseline));
    }

    let binary = build_server(&root, options.release, "conformance")?;
    let tools = Tools::install(&cache)?;

    let mut outcome = Outcome {
        suite_ok: true,
        ..Outcome::default()
    };
    for revision in &options.revisions {
        let (baseline_path, baseline) = &baselines[revision];
        let scored = tools.scored_scenarios(revision)?;
        let server_log = cache.join(format!("server-{revision}.log"));
        let server = ServerProcess::start(
            &binary,
            &[OsStr::new("--config"), fixture.as_os_str()],
            &server_log,
        )?;
        let results_dir = cache.join(format!("results-{revision}"));
        let suite_log = cache.join(format!("suite-{revision}.log"));
        println!(
            "conformance {revision}: running the suite against http://localhost:{}/mcp",
            server.port
        );
        let suite = tools.run_suite(
            server.port,
            revision,
            baseline_path,
            &results_dir,
            &suite_log,
        );
        let extensions = tools.run_extension_scenarios(server.port, revision, &cache);
        let server_problem = server.stop();
        let status = match suite {
            Ok(status) => status,
            Err(message) => {
                print_tail("suite output", &suite_log);
                print_tail("server log", &server_log);
                return Err(message);
            }
        };
        let results = read_results(&results_dir)?;
        let report = judge(&results, baseline, &scored);
        print_report(revision, &report);
        outcome.passed += report.count(Verdict::is_pass);
        outcome.failed += report.count(Verdict::is_failure);
        outcome.expected += report.count(|verdict| matches!(verdict, Verdict::Expected));
        outcome.failing_scenarios.extend(report.failing_scenarios());
        let suite_ok = status.success();
        if suite_ok != report.ok() {
            eprintln!(
                "conformance {revision}: the suite exited with {status} but the harness judged the \
                 run {}; see {}",
                if report.ok() { "clean" } else { "failing" },
                suite_log.display()
            );
        }
        outcome.suite_ok &= suite_ok;
        for (scenario, failing) in extensions? {
            if failing.is_empty() {
                println!("conformance {revision}: {scenario}: every check passed");
                outcome.passed += 1;
            } else {
                println!("conformance {revision}: {scenario}: FAILED {failing:?}");
                outcome.failed += 1;
                outcome.failing_scenarios.push(scenario.to_owned());
            }
        }
        if let Some(problem) = &server_problem {
            eprintln!("conformance {revision}: {problem}");
            outcome.failed += 1;
        }
        if !report.ok() || !suite_ok || server_problem.is_some() {
            print_tail("suite output", &suite_log);
            print_tail("server log", &server_log);
        }
    }
    if outcome.expected > 0 {
        println!(
            "skipped: {} scenario(s) that need tools, prompts or elicitation, expected to fail by \
             the baselines",
            outcome.expected
        );
    }
    if outcome.failed == 0 && !outcome.suite_ok {
        println!(
            "the suite reported an unexpected result that the harness did not see (see above)"
        );
    }
    println!(
        "{} passed, {} failed, {} skipped",
        outcome.passed,
        outcome.failed + usize::from(outcome.failed == 0 && !outcome.suite_ok),
        outcome.expected
    );
    Ok(outcome)
}

/// The installed suite and the Node runtime that runs it.
struct Tools {
    node: PathBuf,
    /// `node_modules/@modelcontextprotocol/conformance`.
    package: PathBuf,
}

impl Tools {
    /// Installs the suite (and, on x86-64 Linux, Node 22 from npm) into `cache/npm` unless the
    /// right versions are there already.
    fn install(cache: &Path) -> Result<Tools, String> {
        let prefix = cache.join("npm");
        let package = prefix.join("node_modules/@modelcontextprotocol/conformance");
        let ready = npm_version(&package).as_deref() == Some(SUITE_VERSION);
        let node = npm_install("conformance", &prefix, &[SUITE_PACKAGE], ready)?;
        Ok(Tools { node, package })
    }

    /// The scenarios the requirement set `revision` scores (its `server:` list); the others the
    /// suite runs are reported but do not count.
    fn scored_scenarios(&self, revision: &str) -> Result<BTreeSet<String>, String> {
        let path = self
            .package
            .join("requirements")
            .join(format!("{revision}.yaml"));
        let text = fs::read_to_string(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        let entries = yaml_list(&text, "server")?;
        if entries.is_empty() {
            return Err(format!("{} lists no server scenarios", path.display()));
        }
        Ok(entries.into_iter().map(|entry| entry.value).collect())
    }

    /// Runs one requirement set against the server on `port`; its output goes to `log`.
    fn run_suite(
        &self,
        port: u16,
        revision: &str,
        baseline: &Path,
        results_dir: &Path,
        log: &Path,
    ) -> Result<ExitStatus, String> {
        if results_dir.exists() {
            fs::remove_dir_all(results_dir)
                .map_err(|error| format!("cannot clear {}: {error}", results_dir.display()))?;
        }
        let mut command = Command::new(&self.node);
        command
            .arg(self.package.join("dist/index.js"))
            .args(["server", "--url", &format!("http://localhost:{port}/mcp")])
            .args(["--requirements", revision])
            .arg("--expected-failures")
            .arg(baseline)
            .arg("-o")
            .arg(results_dir);
        run_bounded(&mut command, log, SUITE_TIMEOUT)
    }
}

impl Tools {
    /// Runs each of [`EXTENSION_SCENARIOS`] against the server on `port`, on the wire of
    /// `revision` (the legacy one through `--spec-version 2025-11-25 --force`, as the suite
    /// skips extension scenarios there otherwise), and returns, for each, the checks that
    /// failed or warned.
    fn run_extension_scenarios(
        &self,
        port: u16,
        revision: &str,
        cache: &Path,
    ) -> Result<Vec<(&'static str, Vec<String>)>, String> {
        let mut verdicts = Vec::new();
        for scenario in EXTENSION_SCENARIOS {
            let results_dir = cache.join(format!("results-{revision}-{scenario}"));
            if results_dir.exists() {
                fs::remove_dir_all(&results_dir)
                    .map_err(|error| format!("cannot clear {}: {error}", results_dir.display()))?;
            }
            let log = cache.join(format!("suite-{revision}-{scenario}.log"));
            let mut command = Command::new(&self.node);
            command
                .arg(self.package.join("dist/index.js"))
                .args(["server", "--url", &format!("http://localhost:{port}/mcp")])
                .args(["--scenario", scenario]);
            if revision != "2026-07-28" {
                command.args(["--spec-version", revision, "--force"]);
            }
            command.arg("-o").arg(&results_dir);
            let status = run_bounded(&mut command, &log, SUITE_TIMEOUT)?;
            let results = read_results(&results_dir)?;
            let mut failing: Vec<String> = results
                .values()
                .flat_map(|checks| checks.iter())
                .filter(|(_, check)| check.status.fails())
                .map(|(id, _)| id.clone())
                .collect();
            if results.is_empty() || (failing.is_empty() && !status.success()) {
                failing.push(format!(
                    "the suite exited with {status}; see {}",
                    log.display()
                ));
            }
            verdicts.push((scenario, failing));
        }
        Ok(verdicts)
    }
}

/// One entry of a YAML list of plain scalars, with the comment on its line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ListEntry {
    value: String,
    comment: Option<String>,
    line: usize,
}

/// The entries of the top-level list `key:` of a YAML file, for the shape the baselines and the
/// suite's requirement files use: `key:` alone on a line, then `  - value  # comment` lines,
/// until the next top-level key. Mappings inside the list are refused.
fn yaml_list(text: &str, key: &str) -> Result<Vec<ListEntry>, String> {
    let mut entries = Vec::new();
    let mut inside = false;
    let mut found = false;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let (code, comment) = match raw.find(" #").or_else(|| raw.starts_with('#').then_some(0)) {
            Some(at) => (
                &raw[..at],
                Some(raw[at..].trim_start().trim_start_matches('#').trim()),
            ),
            None => (raw, None),
        };
        if code.trim().is_empty() {
            continue;
        }
        if !code.starts_with([' ', '\t', '-']) {
            inside = code.trim_end() == format!("{key}:");
            found |= inside;
            continue;
        }
        if !inside {
            continue;
        }
        let value = code
            .trim()
            .strip_prefix("- ")
            .map(str::trim)
            .ok_or_else(|| format!("line {line}: expected `- entry` under `{key}:`"))?;
        if value.is_empty() || value.contains(": ") || value.ends_with(':') {
            return Err(format!("line {line}: {value:?} is not a plain entry"));
        }
        entries.push(ListEntry {
            value: value.trim_matches(['"', '\'']).to_owned(),
            comment: comment
                .filter(|comment| !comment.is_empty())
                .map(str::to_owned),
            line,
        });
    }
    if !found {
        return Err(format!("no top-level `{key}:` list"));
    }
    Ok(entries)
}

/// An expected-failures file: whole scenarios, and single checks as `scenario:check-id`.
#[derive(Debug, Default, PartialEq, Eq)]
struct Baseline {
    scenarios: BTreeSet<String>,
    checks: BTreeMap<String, BTreeSet<String>>,
}

impl Baseline {
    /// Parses the `server:` list; every entry must carry its reason in a comment on its line.
    fn parse(text: &str) -> Result<Baseline, String> {
        let mut baseline = Baseline::default();
        for entry in yaml_list(text, "server")? {
            if entry.comment.is_none() {
                return Err(format!(
                    "line {}: the entry {:?} has no comment giving its reason",
                    entry.line, entry.value
                ));
            }
            let fresh = match entry.value.split_once(':') {
                Some((scenario, check)) => baseline
                    .checks
                    .entry(scenario.to_owned())
                    .or_default()
                    .insert(check.to_owned()),
                None => baseline.scenarios.insert(entry.value.clone()),
            };
            if !fresh {
                return Err(format!(
                    "line {}: {:?} is listed twice",
                    entry.line, entry.value
                ));
            }
        }
        if let Some(scenario) = baseline
            .checks
            .keys()
            .find(|scenario| baseline.scenarios.contains(*scenario))
        {
            return Err(format!(
                "{scenario:?} is listed both whole and by check; keep one"
            ));
        }
        Ok(baseline)
    }

    /// Every entry must be one `shared/CONFORMANCE.md` allows for `revision`.
    fn check_allowed(&self, revision: &str) -> Result<(), String> {
        let entries = self
            .scenarios
            .iter()
            .map(|scenario| (scenario.as_str(), None))
            .chain(self.checks.iter().flat_map(|(scenario, checks)| {
                checks
                    .iter()
                    .map(move |check| (scenario.as_str(), Some(check.as_str())))
            }));
        let refused: Vec<String> = entries
            .filter(|(scenario, check)| !allowed_entry(revision, scenario, *check))
            .map(|(scenario, check)| match check {
                Some(check) => format!("{scenario}:{check}"),
                None => scenario.to_owned(),
            })
            .collect();
        if refused.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "only scenarios that need tools, prompts, elicitation or tasks may be expected to \
                 fail, not {}",
                refused.join(", ")
            ))
        }
    }
}

/// Whether `scenario` (or its check `check`) may be listed as an expected failure of the
/// requirement set `revision`: the list of `shared/CONFORMANCE.md`, "Out of scope for a
/// resources server". Nothing about resources, lifecycle, sessions, stateless requests, caching,
/// subscriptions, DNS rebinding or the wire schema is here.
fn allowed_entry(revision: &str, scenario: &str, check: Option<&str>) -> bool {
    let both = scenario == "completion-complete"
        || scenario == "tools-list"
        || scenario.starts_with("tools-call-")
        || scenario == "prompts-list"
        || scenario.starts_with("prompts-get-")
        || scenario == "elicitation-sep1034-defaults"
        || scenario == "elicitation-sep1330-enums";
    if both {
        return true;
    }
    if revision != "2026-07-28" {
        return false;
    }
    const CHECKS_2026: &[(&str, &str)] = &[
        ("caching", "sep-2549-tools-list-caching-hints"),
        ("caching", "sep-2549-prompts-list-caching-hints"),
        (
            "server-stateless",
            "sep-2575-server-rejects-undeclared-capability",
        ),
        ("server-stateless", "sep-2575-missing-capability-http-400"),
        (
            "server-stateless",
            "sep-2575-http-server-no-independent-requests-on-stream",
        ),
        (
            "server-stateless",
            "sep-2575-server-no-log-without-loglevel",
        ),
    ];
    scenario == "server-sse-multiple-streams"
        || (scenario.starts_with("input-required-result-")
            && scenario != "input-required-result-unsupported-methods"
            && scenario != "input-required-result-validate-input")
        || check.is_some_and(|check| CHECKS_2026.contains(&(scenario, check)))
}

/// The status of one check, most severe last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    /// `SKIPPED`, `INFO` or anything else that is neither a pass nor a failure.
    Neutral,
    Success,
    /// `WARNING` counts as a failure against a baseline.
    Warning,
    Failure,
}

impl Status {
    fn from_wire(status: &str) -> Status {
        match status {
            "SUCCESS" => Status::Success,
            "WARNING" => Status::Warning,
            "FAILURE" => Status::Failure,
            _ => Status::Neutral,
        }
    }

    fn fails(self) -> bool {
        self >= Status::Warning
    }
}

/// One check of a scenario, its occurrences collapsed to the most severe status.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Check {
    status: Status,
    message: Option<String>,
}

/// The checks of every scenario of one run: scenario → check id → check.
type Results = BTreeMap<String, BTreeMap<String, Check>>;

/// Reads `server-<scenario>-<timestamp>/checks.json` under `dir`.
fn read_results(dir: &Path) -> Result<Results, String> {
    let mut results = Results::new();
    let entries = fs::read_dir(dir)
        .map_err(|error| format!("cannot read the results in {}: {error}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(scenario) = scenario_of_result_dir(&name) else {
            continue;
        };
        let path = entry.path().join("checks.json");
        let text = fs::read_to_string(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        let checks = parse_checks(&text).map_err(|error| format!("{}: {error}", path.display()))?;
        let merged = results.entry(scenario.to_owned()).or_default();
        for (id, check) in checks {
            merge_check(merged, id, check);
        }
    }
    Ok(results)
}

fn merge_check(checks: &mut BTreeMap<String, Check>, id: String, check: Check) {
    match checks.get_mut(&id) {
        Some(known) if known.status >= check.status => {}
        Some(known) => *known = check,
        None => {
            checks.insert(id, check);
        }
    }
}

/// The checks of one `checks.json`, each id once with its most severe status.
fn parse_checks(text: &str) -> Result<BTreeMap<String, Check>, String> {
    let value: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
    let array = value.as_array().ok_or("checks.json is not an array")?;
    let mut checks = BTreeMap::new();
    for item in array {
        let id = item["id"].as_str().ok_or("a check has no id")?;
        let status = Status::from_wire(item["status"].as_str().unwrap_or_default());
        let message = item["errorMessage"].as_str().map(str::to_owned);
        merge_check(&mut checks, id.to_owned(), Check { status, message });
    }
    Ok(checks)
}

/// `server-resources-list-2026-11-29T12-48-22-823Z` → `resources-list`.
fn scenario_of_result_dir(name: &str) -> Option<&str> {
    const STAMP: &str = "0000-00-00T00-00-00-000Z";
    let rest = name.strip_prefix("server-")?;
    let split = rest.len().checked_sub(STAMP.len() + 1)?;
    let (scenario, stamp) = (rest.get(..split)?, rest.get(split + 1..)?);
    let shaped = rest[split..].starts_with('-')
        && stamp.bytes().zip(STAMP.bytes()).all(|(byte, pattern)| {
            if pattern == b'0' {
                byte.is_ascii_digit()
            } else {
                byte == pattern
            }
        });
    (shaped && !scenario.is_empty()).then_some(scenario)
}

/// The judgement of one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// Every check passed.
    Passed,
    /// Every failing check is a baselined `scenario:check`.
    PassedWithBaselinedChecks(Vec<String>),
    /// Listed whole in the baseline, and it fails.
    Expected,
    /// Checks failed that the baseline does not list.
    Failed(Vec<String>),
    /// A baseline entry that no longer fails (or names nothing the run has): remove it.
    Stale(String),
    /// Scored, but the run has no result for it.
    Missing,
    /// Run by the suite but not scored by the requirement set; reported only.
    NotScored {
        /// Whether a check failed.
        failing: bool,
    },
}

impl Verdict {
    fn is_pass(&self) -> bool {
        matches!(
            self,
            Verdict::Passed | Verdict::PassedWithBaselinedChecks(_)
        )
    }

    fn is_failure(&self) -> bool {
        matches!(
            self,
            Verdict::Failed(_) | Verdict::Stale(_) | Verdict::Missing
        )
    }
}

/// One line of the per-scenario table.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    scenario: String,
    verdict: Verdict,
    passed_checks: usize,
    total_checks: usize,
}

/// The judgement of one requirement set.
#[derive(Debug, Default)]
struct Report {
    rows: Vec<Row>,
}

impl Report {
    fn count(&self, predicate: impl Fn(&Verdict) -> bool) -> usize {
        self.rows
            .iter()
            .filter(|row| predicate(&row.verdict))
            .count()
    }

    fn ok(&self) -> bool {
        self.count(Verdict::is_failure) == 0
    }

    fn failing_scenarios(&self) -> impl Iterator<Item = String> + '_ {
        self.rows
            .iter()
            .filter(|row| row.verdict.is_failure())
            .map(|row| row.scenario.clone())
    }
}

/// Judges the results of one run against its baseline, as the suite does: a failing check is
/// excused only by its scenario or its `scenario:check` entry; an entry whose scenario or check
/// passes is stale; a baselined check that is absent or skipped is tolerated.
fn judge(results: &Results, baseline: &Baseline, scored: &BTreeSet<String>) -> Report {
    let mut report = Report::default();
    for (scenario, checks) in results {
        let failing: Vec<&String> = checks
            .iter()
            .filter(|(_, check)| check.status.fails())
            .map(|(id, _)| id)
            .collect();
        let passed_checks = checks
            .values()
            .filter(|check| check.status == Status::Success)
            .count();
        let excused_checks = baseline.checks.get(scenario);
        let verdict = if !scored.contains(scenario) {
            Verdict::NotScored {
                failing: !failing.is_empty(),
            }
        } else if baseline.scenarios.contains(scenario) {
            if failing.is_empty() {
                Verdict::Stale("listed as an expected failure, but it passes".to_owned())
            } else {
                Verdict::Expected
            }
        } else {
            let excused = |id: &String| excused_checks.is_some_and(|set| set.contains(id));
            let unexcused: Vec<String> = failing
                .iter()
                .filter(|id| !excused(id))
                .map(|id| describe_failure(id, &checks[*id]))
                .collect();
            let stale: Vec<&String> = excused_checks
                .into_iter()
                .flatten()
                .filter(|id| {
                    checks
                        .get(*id)
                        .is_some_and(|check| check.status == Status::Success)
                })
                .collect();
            if !unexcused.is_empty() {
                Verdict::Failed(unexcused)
            } else if !stale.is_empty() {
                Verdict::Stale(format!(
                    "baselined check(s) now pass: {}",
                    stale
                        .iter()
                        .map(|id| id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            } else if failing.is_empty() {
                Verdict::Passed
            } else {
                Verdict::PassedWithBaselinedChecks(failing.into_iter().cloned().collect())
            }
        };
        report.rows.push(Row {
            scenario: scenario.clone(),
            verdict,
            passed_checks,
            total_checks: checks.len(),
        });
    }
    for scenario in scored
        .iter()
        .filter(|scenario| !results.contains_key(*scenario))
    {
        report.rows.push(Row {
            scenario: scenario.clone(),
            verdict: Verdict::Missing,
            passed_checks: 0,
            total_checks: 0,
        });
    }
    let listed = baseline.scenarios.iter().chain(baseline.checks.keys());
    for scenario in listed.filter(|scenario| !scored.contains(*scenario)) {
        report.rows.push(Row {
            scenario: scenario.clone(),
            verdict: Verdict::Stale(
                "listed in the baseline, but the requirement set does not score it".to_owned(),
            ),
            passed_checks: 0,
            total_checks: 0,
        });
    }
    report
}

fn describe_failure(id: &str, check: &Check) -> String {
    let status = if check.status == Status::Warning {
        " (warning)"
    } else {
        ""
    };
    match &check.message {
        Some(message) => format!("{id}{status}: {}", one_line(message, 160)),
        None => format!("{id}{status}"),
    }
}

fn one_line(text: &str, limit: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= limit {
        flat
    } else {
        let cut: String = flat.chars().take(limit).collect();
        format!("{cut}…")
    }
}

fn print_report(revision: &str, report: &Report) {
    let wire = if revision == "2026-07-28" {
        "stateless wire"
    } else {
        "legacy wire"
    };
    println!("\nconformance {revision} ({wire}): per-scenario results");
    let width = report
        .rows
        .iter()
        .map(|row| row.scenario.len())
        .max()
        .unwrap_or(8)
        .max(8);
    println!("  {:<width$}  {:<17}  checks", "scenario", "result");
    let mut rows: Vec<&Row> = report.rows.iter().collect();
    rows.sort_by_key(|row| {
        (
            matches!(row.verdict, Verdict::NotScored { .. }),
            row.scenario.clone(),
        )
    });
    for row in rows {
        let (label, details): (&str, Vec<String>) = match &row.verdict {
            Verdict::Passed => ("passed", Vec::new()),
            Verdict::PassedWithBaselinedChecks(ids) => (
                "passed",
                vec![format!("expected check failure(s): {}", ids.join(", "))],
            ),
            Verdict::Expected => ("expected failure", Vec::new()),
            Verdict::Failed(failures) => ("FAILED", failures.clone()),
            Verdict::Stale(why) => ("STALE BASELINE", vec![why.clone()]),
            Verdict::Missing => ("MISSING", vec!["the run has no result for it".to_owned()]),
            Verdict::NotScored { failing: false } => ("not scored: ok", Vec::new()),
            Verdict::NotScored { failing: true } => ("not scored: fails", Vec::new()),
        };
        println!(
            "  {:<width$}  {:<17}  {}/{}",
            row.scenario, label, row.passed_checks, row.total_checks
        );
        for detail in details {
            println!("  {:<width$}    - {detail}", "");
        }
    }
    println!(
        "conformance {revision}: {} passed, {} failed, {} expected failures, {} not scored",
        report.count(Verdict::is_pass),
        report.count(Verdict::is_failure),
        report.count(|verdict| matches!(verdict, Verdict::Expected)),
        report.count(|verdict| matches!(verdict, Verdict::NotScored { .. })),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn options() {
        let parsed = parse_options(&[]).expect("no arguments are valid");
        assert_eq!(parsed.revisions, REVISIONS);
        assert!(parsed.release && !parsed.self_test && parsed.fixture.is_none());
        let parsed =
            parse_options(&strings(&["--requirements", "2026-07-28", "--debug"])).expect("valid");
        assert_eq!(parsed.revisions, ["2026-07-28"]);
        assert!(!parsed.release);
        let parsed = parse_options(&strings(&["--fixture", "f.toml"])).expect("valid");
        assert_eq!(parsed.fixture, Some(PathBuf::from("f.toml")));
        for (args, expect) in [
            (
                &["--requirements", "2025-06-18"][..],
                "unknown requirement set \"2025-06-18\"",
            ),
            (&["--requirements"][..], "--requirements needs a value"),
            (&["--frobnicate"][..], "unknown argument \"--frobnicate\""),
            (
                &["--self-test", "--fixture", "x"][..],
                "--self-test uses its own fixture",
            ),
        ] {
            let error = parse_options(&strings(args)).expect_err("refused");
            assert!(error.starts_with(expect), "{args:?}: {error}");
        }
    }

    #[test]
    fn result_dir_names() {
        for (name, expect) in [
            (
                "server-resources-list-2026-11-29T12-48-22-823Z",
                Some("resources-list"),
            ),
            ("server-caching-2026-01-02T03-04-05-006Z", Some("caching")),
            ("server-x-2026-11-29T12-48-22-82Z", None),
            ("server--2026-11-29T12-48-22-823Z", None),
            ("client-initialize-2026-11-29T12-48-22-823Z", None),
            ("server-resources-list", None),
            ("server-resources-list_2026-11-29T12-48-22-823Z", None),
        ] {
            assert_eq!(scenario_of_result_dir(name), expect, "{name}");
        }
    }

    #[test]
    fn yaml_lists() {
        let text = "# head\nserver:\n  # a note\n  - a # why a\n  - 'b'\n\nclient:\n  - c\nnot_scored:\n  - scenario: d\n";
        let entries = yaml_list(text, "server").expect("valid");
        assert_eq!(
            entries,
            [
                ListEntry {
                    value: "a".into(),
                    comment: Some("why a".into()),
                    line: 4
                },
                ListEntry {
                    value: "b".into(),
                    comment: None,
                    line: 5
                },
            ]
        );
        assert_eq!(yaml_list(text, "client").expect("valid").len(), 1);
        assert!(
            yaml_list(text, "not_scored").is_err(),
            "mappings are refused"
        );
        assert!(yaml_list(text, "missing").is_err());
        assert!(yaml_list("server:\n  x\n", "server").is_err());
    }

    #[test]
    fn baselines_need_reasons_and_allowed_entries() {
        let check = |text: &str, revision: &str, expect: Result<(), &str>| {
            let result = Baseline::parse(text).and_then(|b| b.check_allowed(revision));
            match (result, expect) {
                (Ok(()), Ok(())) => {}
                (Err(error), Err(expect)) => assert!(error.contains(expect), "{text:?}: {error}"),
                (result, expect) => panic!("{text:?}: got {result:?}, expected {expect:?}"),
            }
        };
        check("server:\n  - tools-list # no tools\n", "2025-11-25", Ok(()));
        check(
            "server:\n  - tools-list\n",
            "2025-11-25",
            Err("has no comment"),
        );
        check(
            "server:\n  - tools-list #\n",
            "2025-11-25",
            Err("has no comment"),
        );
        check(
            "server:\n  - resources-list # no\n",
            "2026-07-28",
            Err("not resources-list"),
        );
        check(
            "server:\n  - server-sse-multiple-streams # r\n",
            "2025-11-25",
            Err("not server-sse"),
        );
        check(
            "server:\n  - server-sse-multiple-streams # r\n",
            "2026-07-28",
            Ok(()),
        );
        check(
            "server:\n  - caching:sep-2549-tools-list-caching-hints # r\n",
            "2026-07-28",
            Ok(()),
        );
        check(
            "server:\n  - caching # r\n",
            "2026-07-28",
            Err("not caching"),
        );
        check(
            "server:\n  - caching:ttl # r\n",
            "2026-07-28",
            Err("not caching:ttl"),
        );
        check(
            "server:\n  - input-required-result-validate-input # r\n",
            "2026-07-28",
            Err("not input-required-result-validate-input"),
        );
        check(
            "server:\n  - input-required-result-multi-round # r\n",
            "2026-07-28",
            Ok(()),
        );
        check(
            "server:\n  - tools-list # r\n  - tools-list # r\n",
            "2026-07-28",
            Err("listed twice"),
        );
        check(
            "server:\n  - tools-list # r\n  - tools-list:x # r\n",
            "2026-07-28",
            Err("both whole and by check"),
        );
    }

    #[test]
    fn the_project_baselines_follow_the_rules() {
        let dir = workspace_root().join("conformance");
        for revision in REVISIONS {
            let path = dir.join(format!("expected-failures-{revision}.yml"));
            let text = fs::read_to_string(&path).expect("the baseline exists");
            Baseline::parse(&text)
                .and_then(|baseline| baseline.check_allowed(revision))
                .unwrap_or_else(|problem| panic!("{}: {problem}", path.display()));
        }
        for fixture in ["fixture.toml", "fixture-without-static-text.toml"] {
            let text = fs::read_to_string(dir.join(fixture)).expect("the fixture exists");
            assert_eq!(
                text.contains("uri = \"test://static-text\""),
                fixture == "fixture.toml",
                "{fixture}"
            );
        }
    }

    /// A run of one scenario per line: `scenario check:STATUS ...`.
    fn results(lines: &[&str]) -> Results {
        let mut results = Results::new();
        for line in lines {
            let mut words = line.split_whitespace();
            let scenario = words.next().expect("a scenario").to_owned();
            let checks = results.entry(scenario).or_default();
            for word in words {
                let (id, status) = word.split_once(':').expect("check:STATUS");
                merge_check(
                    checks,
                    id.to_owned(),
                    Check {
                        status: Status::from_wire(status),
                        message: None,
                    },
                );
            }
        }
        results
    }

    /// Judges `run` against `baseline_text`, with `scored` scored, and compares verdicts.
    fn check(run: &[&str], baseline_text: &str, scored: &[&str], expect: &[(&str, Verdict)]) {
        let baseline = Baseline::parse(baseline_text).expect("valid baseline");
        let scored = scored.iter().map(|s| (*s).to_owned()).collect();
        let report = judge(&results(run), &baseline, &scored);
        let got: Vec<(&str, Verdict)> = report
            .rows
            .iter()
            .map(|row| (row.scenario.as_str(), row.verdict.clone()))
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn judging() {
        let none = "server:\n";
        check(
            &["a x:SUCCESS y:SUCCESS"],
            none,
            &["a"],
            &[("a", Verdict::Passed)],
        );
        check(
            &["a x:SUCCESS y:FAILURE"],
            none,
            &["a"],
            &[("a", Verdict::Failed(vec!["y".into()]))],
        );
        check(
            &["a x:WARNING"],
            none,
            &["a"],
            &[("a", Verdict::Failed(vec!["x (warning)".into()]))],
        );
        check(
            &["a x:SUCCESS x:FAILURE"],
            none,
            &["a"],
            &[("a", Verdict::Failed(vec!["x".into()]))],
        );
        check(
            &["a x:FAILURE"],
            "server:\n  - a # r\n",
            &["a"],
            &[("a", Verdict::Expected)],
        );
        check(
            &["a x:SUCCESS"],
            "server:\n  - a # r\n",
            &["a"],
            &[(
                "a",
                Verdict::Stale("listed as an expected failure, but it passes".into()),
            )],
        );
        check(
            &["a x:FAILURE y:SUCCESS"],
            "server:\n  - a:x # r\n",
            &["a"],
            &[("a", Verdict::PassedWithBaselinedChecks(vec!["x".into()]))],
        );
        check(
            &["a x:FAILURE y:FAILURE"],
            "server:\n  - a:x # r\n",
            &["a"],
            &[("a", Verdict::Failed(vec!["y".into()]))],
        );
        check(
            &["a x:SUCCESS"],
            "server:\n  - a:x # r\n",
            &["a"],
            &[("a", Verdict::Stale("baselined check(s) now pass: x".into()))],
        );
        check(
            &["a y:SUCCESS x:SKIPPED"],
            "server:\n  - a:x # r\n  - a:z # r\n",
            &["a"],
            &[("a", Verdict::Passed)],
        );
        check(
            &["a x:FAILURE", "b x:SUCCESS"],
            none,
            &["b", "c"],
            &[
                ("a", Verdict::NotScored { failing: true }),
                ("b", Verdict::Passed),
                ("c", Verdict::Missing),
            ],
        );
        check(
            &["a x:SUCCESS"],
            "server:\n  - gone # r\n",
            &["a"],
            &[
                ("a", Verdict::Passed),
                (
                    "gone",
                    Verdict::Stale(
                        "listed in the baseline, but the requirement set does not score it".into(),
                    ),
                ),
            ],
        );
    }

    #[test]
    fn checks_json() {
        let checks = parse_checks(
            r#"[{"id":"a","status":"SUCCESS"},{"id":"b","status":"FAILURE","errorMessage":"boom"},
                {"id":"a","status":"WARNING"},{"id":"c","status":"SKIPPED"}]"#,
        )
        .expect("valid");
        let statuses: Vec<(&str, Status)> = checks
            .iter()
            .map(|(id, check)| (id.as_str(), check.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("a", Status::Warning),
                ("b", Status::Failure),
                ("c", Status::Neutral)
            ]
        );
        assert_eq!(checks["b"].message.as_deref(), Some("boom"));
        assert!(parse_checks("{}").is_err());
        assert!(parse_checks(r#"[{"status":"SUCCESS"}]"#).is_err());
    }
}
