//! `cargo xtask interop`: clients that nobody here wrote, against the `mcp-resources` binary, in
//! both eras, on stdio and Streamable HTTP.
//!
//! **Layer:** tooling. It builds the binary, makes a fixture directory (`a.txt` to `d.txt`,
//! `logo.bin` holding the bytes 0 to 255, `docs/guide.md`; served two to a page), serves it over
//! HTTP on `127.0.0.1` (stdio clients start their own server), and runs, each at a pinned
//! version:
//!
//! - the MCP Inspector's CLI (npm `@modelcontextprotocol/inspector`, on Node 22 from npm): list
//!   every page, read text and blob, list templates, read a directory;
//! - its `mcpdo` (a daemon of its own, in a private directory): subscribe, then see the update
//!   when the file changes;
//! - the official Python SDK (PyPI `mcp`, 2.x and 1.x, each in a venv), through
//!   `xtask/interop/python_client.py`: every page, text, blob, a directory (2.x: the SDK has no
//!   method for it, so the script sends it as a typed request of its own), subscribe or
//!   listen;
//! - rmcp's own client, through `xtask/interop/rmcp-client` (its own workspace): the same, and
//!   a directory read.
//!
//! Each run prints one row of a results table (also written to
//! `target/interop-cache/results.md`); the command fails when a check fails or a client cannot
//! run. It never links the product crates, bounds every client run in time, and kills every
//! server and daemon it starts.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::harness::{
    ServerProcess, build_server, cache_dir, npm_install, npm_version, print_tail,
};
use crate::tidy::workspace_root;

/// The Inspector (its CLI and `mcpdo`), by exact version.
const INSPECTOR_PACKAGE: &str = "@modelcontextprotocol/inspector@2.12.0";
const INSPECTOR_VERSION: &str = "2.12.0";
/// The Python SDK versions: the latest 2.x and the last 1.x.
const PYTHON_SDKS: [&str; 2] = ["2.3.0", "1.30.0"];
/// rmcp's version, as `xtask/interop/rmcp-client/Cargo.toml` pins it.
const RMCP_VERSION: &str = "3.11.0";

/// The fixture's resources, by name.
const NAMES: [&str; 6] = ["a.txt", "b.txt", "c.txt", "d.txt", "guide.md", "logo.bin"];
/// How long one client command may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);
/// How long an update may take to reach `mcpdo` after the file changed.
const UPDATE_WAIT: Duration = Duration::from_secs(20);

const USAGE: &str = "usage: cargo xtask interop [--only inspector|mcpdo|python|rmcp]... [--release]

Builds mcp-resources and runs clients nobody here wrote against it, in both protocol eras, on
stdio and Streamable HTTP: the MCP Inspector's CLI and its mcpdo (npm, on Node 22), the official
Python SDK 2.x and 1.x (PyPI, in venvs), and rmcp's client. Prints a results table (also in
target/interop-cache/results.md) and fails if any check fails.

  --only NAME  run only these clients (repeatable)
  --release    build and run the release binary instead of the debug one";

const CLIENTS: [&str; 4] = ["inspector", "mcpdo", "python", "rmcp"];

/// One check of one run, as the client reported it.
#[derive(Debug)]
struct Check {
    name: String,
    ok: bool,
    detail: String,
}

/// One client in one era on one transport.
#[derive(Debug)]
struct Run {
    client: String,
    era: &'static str,
    transport: &'static str,
    checks: Vec<Check>,
    /// Why the client could not run (no checks then).
    problem: Option<String>,
}

impl Run {
    fn new(client: &str, era: &'static str, transport: &'static str) -> Run {
        Run {
            client: client.to_owned(),
            era,
            transport,
            checks: Vec::new(),
            problem: None,
        }
    }

    fn check(&mut self, name: &str, outcome: Result<String, String>) {
        let (ok, detail) = match outcome {
            Ok(detail) => (true, detail),
            Err(detail) => (false, detail),
        };
        self.checks.push(Check {
            name: name.to_owned(),
            ok,
            detail,
        });
    }

    fn ok(&self) -> bool {
        self.problem.is_none() && !self.checks.is_empty() && self.checks.iter().all(|c| c.ok)
    }
}

/// The eras and transports every client runs in.
const TARGETS: [(&str, &str); 4] = [
    ("legacy", "stdio"),
    ("legacy", "http"),
    ("modern", "stdio"),
    ("modern", "http"),
];

/// What every client needs: the server to start or reach, and the fixture.
struct Setup {
    binary: PathBuf,
    tree: PathBuf,
    url: String,
    cache: PathBuf,
}

impl Setup {
    /// The stdio server's command line.
    fn command(&self) -> Vec<String> {
        vec![
            self.binary.display().to_string(),
            "serve".to_owned(),
            "--page-size".to_owned(),
            "2".to_owned(),
            self.tree.display().to_string(),
        ]
    }

    fn uri(&self, name: &str) -> String {
        format!("file://{}", self.tree.join(name).display())
    }
}

pub(crate) fn run(args: &[String]) -> ExitCode {
    let mut only: Vec<&str> = Vec::new();
    let mut release = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--release" => release = true,
            "--only" => match args.next().map(String::as_str) {
                Some(name) if CLIENTS.contains(&name) => only.push(name),
                _ => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if only.is_empty() {
        only = CLIENTS.to_vec();
    }
    match run_clients(&only, release) {
        Ok(runs) => {
            let table = table(&runs);
            println!("\n{table}");
            let root = workspace_root();
            let results = cache_dir(&root, "interop-cache").join("results.md");
            let _ = fs::write(&results, &table);
            let failed = runs.iter().filter(|run| !run.ok()).count();
            if failed == 0 {
                println!("interop: {} runs, all checks passed", runs.len());
                ExitCode::SUCCESS
            } else {
                eprintln!("interop: {failed} of {} runs failed", runs.len());
                ExitCode::FAILURE
            }
        }
        Err(problem) => {
            eprintln!("interop: {problem}");
            ExitCode::FAILURE
        }
    }
}

fn run_clients(only: &[&str], release: bool) -> Result<Vec<Run>, String> {
    let started = Instant::now();
    let root = workspace_root();
    let cache = cache_dir(&root, "interop-cache");
    fs::create_dir_all(&cache)
        .map_err(|error| format!("cannot create {}: {error}", cache.display()))?;
    let binary = build_server(&root, release, "interop")?;
    let tree = make_fixture(&cache)?;
    let server_log = cache.join("server.log");
    let tree_arg = tree.as_os_str();
    let server = ServerProcess::start(
        &binary,
        &[OsStr::new("--page-size"), OsStr::new("2"), tree_arg],
        &server_log,
    )?;
    let setup = Setup {
        binary,
        url: format!("http://127.0.0.1:{}/mcp", server.port),
        tree,
        cache: cache.clone(),
    };
    println!("interop: serving {} at {}", setup.tree.display(), setup.url);
    let mut runs = Vec::new();
    let node = if only.contains(&"inspector") || only.contains(&"mcpdo") {
        let prefix = cache.join("npm");
        let package = prefix.join("node_modules/@modelcontextprotocol/inspector");
        let ready = npm_version(&package).as_deref() == Some(INSPECTOR_VERSION);
        Some((
            npm_install("interop", &prefix, &[INSPECTOR_PACKAGE], ready)?,
            prefix.join("node_modules/.bin"),
        ))
    } else {
        None
    };
    if let (true, Some((node, bin))) = (only.contains(&"inspector"), &node) {
        for (era, transport) in TARGETS {
            runs.push(inspector(&setup, node, bin, era, transport));
        }
    }
    if let (true, Some((node, bin))) = (only.contains(&"mcpdo"), &node) {
        runs.extend(mcpdo(&setup, node, bin));
    }
    if only.contains(&"python") {
        let script = root.join("xtask/interop/python_client.py");
        for sdk in PYTHON_SDKS {
            let python = python_venv(&cache, sdk)?;
            for (era, transport) in TARGETS {
                if sdk.starts_with("1.") && era == "modern" {
                    continue; // 1.x has no 2026-07-28
                }
                let mut command = Command::new(&python);
                command.arg(&script);
                let client = format!("Python SDK {sdk}");
                runs.push(driver(&setup, &client, command, era, transport));
            }
        }
    }
    if only.contains(&"rmcp") {
        let client = build_rmcp_client(&root, &cache)?;
        for (era, transport) in TARGETS {
            let name = format!("rmcp {RMCP_VERSION}");
            runs.push(driver(&setup, &name, Command::new(&client), era, transport));
        }
    }
    if let Some(problem) = server.stop() {
        print_tail("server log", &server_log);
        return Err(problem);
    }
    println!("interop: done in {} s", started.elapsed().as_secs());
    Ok(runs)
}

/// A fresh fixture directory in `cache/tree`, canonical.
fn make_fixture(cache: &Path) -> Result<PathBuf, String> {
    let tree = cache.join("tree");
    let fail =
        |error: std::io::Error| format!("cannot make the fixture {}: {error}", tree.display());
    if tree.exists() {
        fs::remove_dir_all(&tree).map_err(fail)?;
    }
    fs::create_dir_all(tree.join("docs")).map_err(fail)?;
    for (name, text) in [
        ("a.txt", "alpha\n"),
        ("b.txt", "bravo\n"),
        ("c.txt", "charlie\n"),
        ("d.txt", "delta\n"),
        ("docs/guide.md", "# Guide\n"),
    ] {
        fs::write(tree.join(name), text).map_err(fail)?;
    }
    fs::write(tree.join("logo.bin"), (0..=255).collect::<Vec<u8>>()).map_err(fail)?;
    tree.canonicalize().map_err(fail)
}

/// Runs `command` to its end (at most [`COMMAND_TIMEOUT`]), its stderr into `log`; its stdout.
fn output_of(mut command: Command, log: &Path) -> Result<String, String> {
    let stderr = fs::File::create(log)
        .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|error| format!("cannot start {:?}: {error}", command.get_program()))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (sender, output) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        let _ = sender.send(text);
    });
    match output.recv_timeout(COMMAND_TIMEOUT) {
        Ok(text) => {
            let _ = child.wait();
            Ok(text)
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(format!(
                "did not finish within {} s (its stderr: {})",
                COMMAND_TIMEOUT.as_secs(),
                log.display()
            ))
        }
    }
}

/// One Inspector CLI run: five commands, each judged from its JSON.
fn inspector(
    setup: &Setup,
    node: &Path,
    bin: &Path,
    era: &'static str,
    transport: &'static str,
) -> Run {
    let mut run = Run::new(
        &format!("Inspector CLI {INSPECTOR_VERSION}"),
        era,
        transport,
    );
    let call = |method: &str, uri: Option<String>| -> Result<Value, String> {
        let mut command = Command::new(node);
        command.arg(bin.join("mcp-inspector")).args([
            "--cli",
            "--protocol-era",
            era,
            "--format",
            "json",
            "-q",
            "--method",
            method,
        ]);
        if let Some(uri) = uri {
            command.args(["--uri", &uri]);
        }
        if transport == "http" {
            command.arg(&setup.url);
        } else {
            command.args(setup.command());
        }
        let log = setup.cache.join(format!("inspector-{era}-{transport}.log"));
        let text = output_of(command, &log)?;
        let value: Value = serde_json::from_str(text.trim())
            .map_err(|error| format!("not JSON ({error}): {}", one_line(&text)))?;
        match value.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(one_line(&value.to_string())),
        }
    };
    run.check(
        "list every page",
        call("resources/list", None).and_then(|result| names_are(&result, &NAMES)),
    );
    run.check(
        "read text",
        call("resources/read", Some(setup.uri("a.txt")))
            .and_then(|result| text_is(&result, &setup.tree.join("a.txt"))),
    );
    run.check(
        "read blob",
        call("resources/read", Some(setup.uri("logo.bin"))).and_then(|result| blob_is(&result)),
    );
    run.check(
        "list templates",
        call("resources/templates/list", None).and_then(|result| {
            let templates = result["resourceTemplates"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if templates.iter().any(|template| {
                template["uriTemplate"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("file://"))
            }) {
                Ok(format!("{} templates", templates.len()))
            } else {
                Err(one_line(&result.to_string()))
            }
        }),
    );
    run.check(
        "read a directory",
        call("resources/directory/read", Some(setup.uri("docs")))
            .and_then(|result| names_are(&result, &["guide.md"])),
    );
    run
}

/// `mcpdo` in a private daemon: for each era and transport, connect, subscribe to `a.txt`,
/// change it, and wait for the update.
fn mcpdo(setup: &Setup, node: &Path, bin: &Path) -> Vec<Run> {
    let home = setup.cache.join("mcpdo-home");
    let config = setup.cache.join("mcpdo.json");
    let mcpdo = |args: &[&str]| {
        let mut command = Command::new(node);
        command
            .arg(bin.join("mcpdo"))
            .arg("--config")
            .arg(&config)
            .args(args)
            .env("HOME", &home)
            .env("MCP_INSPECTOR_DAEMON_DIR", home.join("daemon"));
        command
    };
    let mut servers = serde_json::Map::new();
    for (era, transport) in TARGETS {
        let entry = if transport == "http" {
            json!({ "type": "http", "url": setup.url, "protocolEra": era })
        } else {
            let command = setup.command();
            json!({ "command": command[0], "args": command[1..], "protocolEra": era })
        };
        servers.insert(format!("{era}-{transport}"), entry);
    }
    let written = fs::create_dir_all(home.join("daemon"))
        .and_then(|()| fs::write(&config, json!({ "mcpServers": servers }).to_string()));
    let mut runs = Vec::new();
    for (era, transport) in TARGETS {
        let mut run = Run::new(&format!("mcpdo {INSPECTOR_VERSION}"), era, transport);
        if let Err(error) = &written {
            run.problem = Some(format!("cannot write {}: {error}", config.display()));
            runs.push(run);
            continue;
        }
        let name = format!("{era}-{transport}");
        let log = setup.cache.join(format!("mcpdo-{name}.log"));
        let connected = output_of(mcpdo(&["connect", &name]), &log);
        match connected {
            Ok(_) => run.check(
                "subscribe, see an update",
                subscribe_with(
                    mcpdo(&[
                        "--format",
                        "json",
                        "--connection",
                        &name,
                        "resources/subscribe",
                    ]),
                    setup,
                ),
            ),
            Err(problem) => run.problem = Some(format!("connect: {problem}")),
        }
        let _ = output_of(mcpdo(&["disconnect", &name]), &log);
        runs.push(run);
    }
    let _ = output_of(
        mcpdo(&["daemon", "stop"]),
        &setup.cache.join("mcpdo-stop.log"),
    );
    runs
}

/// Runs `mcpdo … resources/subscribe URI` (it prints a JSON object per event, until killed):
/// once subscribed, appends to `a.txt` and waits for the update.
fn subscribe_with(mut command: Command, setup: &Setup) -> Result<String, String> {
    let uri = setup.uri("a.txt");
    let mut child = command
        .arg(&uri)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot start mcpdo: {error}"))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let (sender, events) = mpsc::channel();
    std::thread::spawn(move || {
        for event in
            serde_json::Deserializer::from_reader(BufReader::new(stdout)).into_iter::<Value>()
        {
            let Ok(event) = event else { break };
            if sender.send(event).is_err() {
                break;
            }
        }
    });
    let outcome = (|| {
        let deadline = Instant::now() + UPDATE_WAIT;
        let mut changed = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = events
                .recv_timeout(left)
                .map_err(|_| format!("no update within {} s", UPDATE_WAIT.as_secs()))?;
            match (event["type"].as_str(), event["uri"].as_str()) {
                (Some("subscribed"), Some(subscribed)) if subscribed == uri => {
                    append(&setup.tree.join("a.txt"))?;
                    changed = Some(Instant::now());
                }
                (Some("resources/updated"), Some(updated)) if updated == uri => {
                    return match changed {
                        Some(at) => Ok(format!("told after {} ms", at.elapsed().as_millis())),
                        None => Err("an update before the subscription".to_owned()),
                    };
                }
                _ if event.get("error").is_some() => return Err(one_line(&event.to_string())),
                _ => {}
            }
        }
    })();
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

fn append(path: &Path) -> Result<(), String> {
    use std::io::Write as _;
    fs::OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut file| writeln!(file, "more"))
        .map_err(|error| format!("cannot change {}: {error}", path.display()))
}

/// A client driver that prints its checks as JSON lines (`python_client.py`, the rmcp client).
fn driver(
    setup: &Setup,
    client: &str,
    mut command: Command,
    era: &'static str,
    transport: &'static str,
) -> Run {
    let mut run = Run::new(client, era, transport);
    command.args(["--era", era, "--transport", transport, "--tree"]);
    command.arg(&setup.tree);
    if transport == "http" {
        command.args(["--url", &setup.url]);
    } else {
        command.args(["--command", &setup.command().join(" ")]);
    }
    let slug: String = client
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let log = setup.cache.join(format!("{slug}-{era}-{transport}.log"));
    match output_of(command, &log) {
        Ok(text) => {
            for line in text.lines().filter(|line| !line.trim().is_empty()) {
                match serde_json::from_str::<Value>(line) {
                    Ok(check) => run.checks.push(Check {
                        name: check["check"].as_str().unwrap_or("?").to_owned(),
                        ok: check["ok"] == json!(true),
                        detail: check["detail"].as_str().unwrap_or_default().to_owned(),
                    }),
                    Err(_) => run.check("output", Err(one_line(line))),
                }
            }
            if run.checks.is_empty() {
                run.problem = Some(format!("no checks reported; see {}", log.display()));
            }
        }
        Err(problem) => run.problem = Some(problem),
    }
    run
}

/// A venv with the Python SDK `sdk` in `cache/python-<sdk>`; its python.
fn python_venv(cache: &Path, sdk: &str) -> Result<PathBuf, String> {
    let venv = cache.join(format!("python-{sdk}"));
    let python = venv.join("bin/python");
    let installed = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned());
    if installed.as_deref() == Some(sdk) {
        println!(
            "interop: reusing the Python SDK {sdk} in {}",
            venv.display()
        );
        return Ok(python);
    }
    println!(
        "interop: installing the Python SDK {sdk} into {}",
        venv.display()
    );
    let log = cache.join(format!("pip-{sdk}.log"));
    let mut create = Command::new("python3");
    create.args(["-m", "venv", "--clear"]).arg(&venv);
    output_of(create, &log)?;
    let mut install = Command::new(&python);
    install.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]);
    install.arg(format!("mcp=={sdk}"));
    output_of(install, &log)?;
    let check = Command::new(&python)
        .args(["-c", "import mcp"])
        .status()
        .map_err(|error| format!("cannot run {}: {error}", python.display()))?;
    if check.success() {
        Ok(python)
    } else {
        print_tail("pip output", &log);
        Err(format!("the Python SDK {sdk} did not install"))
    }
}

/// Builds `xtask/interop/rmcp-client` (its own workspace and lock file) into the cache.
fn build_rmcp_client(root: &Path, cache: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = cache.join("rmcp-client");
    println!("interop: building the rmcp client");
    let status = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--locked",
            "--manifest-path",
            "xtask/interop/rmcp-client/Cargo.toml",
        ])
        .arg("--target-dir")
        .arg(&target)
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !status.success() {
        return Err(format!("building the rmcp client failed ({status})"));
    }
    Ok(target.join("debug/interop-rmcp-client"))
}

/// The resources of a list `result` are named exactly `expected` (in any order).
fn names_are(result: &Value, expected: &[&str]) -> Result<String, String> {
    let mut names: Vec<&str> = result["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|resource| resource["name"].as_str())
        .collect();
    names.sort_unstable();
    let detail = names.join(", ");
    if names == expected {
        Ok(detail)
    } else {
        Err(detail)
    }
}

/// A read `result` is one text content equal to the file at `path` now.
fn text_is(result: &Value, path: &Path) -> Result<String, String> {
    let expected = fs::read_to_string(path).map_err(|error| error.to_string())?;
    match result["contents"].as_array().map(Vec::as_slice) {
        Some([content]) if content["text"].as_str() == Some(expected.as_str()) => {
            Ok(format!("{} bytes", expected.len()))
        }
        _ => Err(one_line(&result.to_string())),
    }
}

/// A read `result` is one blob holding the bytes 0 to 255.
fn blob_is(result: &Value) -> Result<String, String> {
    let blob = match result["contents"].as_array().map(Vec::as_slice) {
        Some([content]) => content["blob"].as_str(),
        _ => None,
    };
    let bytes = blob
        .and_then(|blob| base64::engine::general_purpose::STANDARD.decode(blob).ok())
        .ok_or_else(|| one_line(&result.to_string()))?;
    if bytes == (0..=255).collect::<Vec<u8>>() {
        Ok("256 bytes".to_owned())
    } else {
        Err(format!("{} other bytes", bytes.len()))
    }
}

fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// The results as a Markdown table: one row per run, its failures named.
fn table(runs: &[Run]) -> String {
    let mut text = String::from(
        "| client | era | transport | checks | result |\n| --- | --- | --- | --- | --- |\n",
    );
    for run in runs {
        let passed = run.checks.iter().filter(|check| check.ok).count();
        let result = match &run.problem {
            Some(problem) => format!("could not run: {}", one_line(problem)),
            None if run.ok() => "pass".to_owned(),
            None => run
                .checks
                .iter()
                .filter(|check| !check.ok)
                .map(|check| format!("{}: {}", check.name, one_line(&check.detail)))
                .collect::<Vec<_>>()
                .join("; "),
        };
        let _ = writeln!(
            text,
            "| {} | {} | {} | {passed}/{} | {result} |",
            run.client,
            if run.era == "modern" {
                "2026-07-28"
            } else {
                "legacy"
            },
            run.transport,
            run.checks.len(),
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_failure() {
        let mut failing = Run::new("client", "modern", "http");
        failing.check("read text", Err("got | nothing".to_owned()));
        failing.check("read blob", Ok("256 bytes".to_owned()));
        let mut passing = Run::new("client", "legacy", "stdio");
        passing.check("read blob", Ok("256 bytes".to_owned()));
        let mut broken = Run::new("client", "legacy", "http");
        broken.problem = Some("cannot start".to_owned());
        let text = table(&[failing, passing, broken]);
        assert!(
            text.contains("| client | 2026-07-28 | http | 1/2 | read text: got | nothing |"),
            "{text}"
        );
        assert!(
            text.contains("| client | legacy | stdio | 1/1 | pass |"),
            "{text}"
        );
        assert!(
            text.contains("| legacy | http | 0/0 | could not run: cannot start |"),
            "{text}"
        );
    }

    #[test]
    fn results_are_judged_by_names_text_and_bytes() {
        let listed = json!({ "resources": [{ "name": "b" }, { "name": "a" }] });
        assert_eq!(names_are(&listed, &["a", "b"]), Ok("a, b".to_owned()));
        assert!(names_are(&listed, &["a"]).is_err());
        let blob = base64::engine::general_purpose::STANDARD.encode((0..=255).collect::<Vec<u8>>());
        assert!(blob_is(&json!({ "contents": [{ "blob": blob }] })).is_ok());
        assert!(blob_is(&json!({ "contents": [{ "blob": "AAEC" }] })).is_err());
        assert!(blob_is(&json!({ "contents": [] })).is_err());
    }
}
