//! `cargo xtask layout`: profiles which functions `mcp-resources` runs and writes the order its
//! linker lays them out in (`crates/mcp-server-bin/layout/symbol-order.txt`).
//!
//! **Layer:** tooling. It builds the binary with the `dist` profile, runs it under valgrind's
//! callgrind on the bench workload (start-up, then both eras on stdio and on Streamable HTTP:
//! initialize or discover, lists, reads of static and template resources, subscriptions, errors;
//! then reads of the bench's files through the filesystem provider on stdio, both eras), maps
//! every instruction run to the function holding it (`nm`), and lists those functions: first the
//! ones a read on stdio runs (in either era: the functions holding an instruction that runs once
//! per read or more, found by profiling each era's stdio session twice, the second time with
//! twice the reads), so that a request's code lies on as few pages and cache sets as it can;
//! then, profile by profile, start-up and legacy stdio, what modern stdio adds, what HTTP adds,
//! and what file reads add, each part sorted by name. The binary's build script hands the list to
//! the linker.
//! It must never be needed to build the product: a stale list only costs locality.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::bench;
use crate::tidy::workspace_root;

const USAGE: &str = "usage: cargo xtask layout

Builds mcp-resources with the `dist` profile, runs it under valgrind's callgrind on the bench
workload (stdio and Streamable HTTP, both eras; then file reads on stdio), and writes the
functions it ran (those a read on stdio runs first, then start-up and legacy stdio, what modern
stdio adds, what HTTP adds and what file reads add, each part sorted by name) to
crates/mcp-server-bin/layout/symbol-order.txt: the order the linker lays them out in (see
crates/mcp-server-bin/build.rs). Needs valgrind and nm. Code changes rename functions (closures,
generic instances, rustc's hashes; a new rustc or new dependency versions rename most): run it
again when `cargo xtask bench` says the list is out of date (it reports how much of the list the
binary still has).";

/// Where the list goes, from the workspace root.
pub(crate) const ORDER_FILE: &str = "crates/mcp-server-bin/layout/symbol-order.txt";

/// How long the server under valgrind may take to listen or to exit.
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(120);

/// Reads of static resources per era and transport: enough to run every path a read takes.
const READS: usize = 200;

pub(crate) fn run(args: &[String]) -> ExitCode {
    if !args.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    match write_order() {
        Ok(summary) => {
            println!("layout: {summary}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("layout: {error}");
            ExitCode::FAILURE
        }
    }
}

fn write_order() -> Result<String, String> {
    let root = workspace_root();
    eprintln!(
        "layout: building mcp-resources (profile {})",
        bench::PROFILE
    );
    bench::cargo_build(
        &root,
        &["build", "--profile", bench::PROFILE, "-p", "mcp-server-bin"],
        None,
    )?;
    let target = bench::target_dir(&root);
    let binary = target.join(bench::PROFILE).join("mcp-resources");
    let work = target.join("layout-work");
    fs::create_dir_all(work.join("empty"))
        .map_err(|error| format!("cannot create {}: {error}", work.display()))?;
    let config = work.join("resources.toml");
    fs::write(&config, bench::config_text())
        .map_err(|error| format!("cannot write {}: {error}", config.display()))?;
    // Written first: by the time they are read, the files are old enough for the read cache.
    let files = work.join("files");
    bench::write_files(&files)?;
    let file_prefix = bench::file_uri_prefix(&files)?;

    let with_config = [
        "--no-watch".into(),
        "--config".into(),
        config.into_os_string(),
    ];
    let mut profiles = Vec::new();
    let mut per_read = HashSet::new();
    for (era, script) in [
        ("legacy", legacy_script as fn(usize) -> String),
        ("modern", modern_script),
    ] {
        eprintln!("layout: {era} stdio under callgrind, twice");
        let out = work.join(format!("callgrind-stdio-{era}.out"));
        stdio_profile(&binary, &with_config, &script(READS), READS, &out)?;
        let twice = work.join(format!("callgrind-stdio-{era}-twice.out"));
        stdio_profile(&binary, &with_config, &script(2 * READS), 2 * READS, &twice)?;
        per_read.extend(run_per_read(&out, &twice, &binary, READS)?);
        profiles.push(out);
    }
    eprintln!("layout: Streamable HTTP (both eras) under callgrind");
    let out = work.join("callgrind-http.out");
    http_profile(&binary, &with_config, &out)?;
    profiles.push(out);
    let with_files = ["--no-watch".into(), files.into_os_string()];
    for (era, script) in file_scripts(&file_prefix) {
        eprintln!("layout: {era} file reads on stdio under callgrind");
        let out = work.join(format!("callgrind-files-{era}.out"));
        stdio_profile(&binary, &with_files, &script, READS, &out)?;
        profiles.push(out);
    }

    let symbols = Symbols::of(&binary)?;
    // Callgrind lists functions in an order of its own, which changes from run to run: each
    // profile's new functions are sorted by name (which keeps a module's functions together),
    // so that the same code gives the same list.
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    let mut unmapped = 0;
    let mut bytes = 0;
    let mut hot = Vec::new();
    for &address in &per_read {
        if let Some((name, size)) = symbols.holding(address) {
            if seen.insert(name) {
                hot.push(name);
                bytes += size;
            }
        }
    }
    hot.sort_unstable();
    let hot_functions = hot.len();
    let hot_bytes = bytes;
    order.extend(hot);
    for profile in &profiles {
        let mut found = Vec::new();
        for address in addresses_run(profile, &binary)? {
            match symbols.holding(address) {
                Some((name, size)) if seen.insert(name) => {
                    found.push(name);
                    bytes += size;
                }
                Some(_) => {}
                None => unmapped += 1,
            }
        }
        found.sort_unstable();
        order.extend(found);
    }
    if order.len() < 100 {
        return Err(format!(
            "only {} functions found in the profiles ({unmapped} addresses outside any): is the \
             binary position-independent in a way this tool does not map?",
            order.len()
        ));
    }
    let mut text = String::from(
        "# Written by `cargo xtask layout`; do not edit by hand. The functions mcp-resources runs:\n\
         # those a read on stdio runs (either era), then start-up and legacy stdio, what modern\n\
         # stdio adds, what HTTP adds and what file reads add, each part sorted by name.\n",
    );
    for name in &order {
        let _ = writeln!(text, "{name}");
    }
    let path = root.join(ORDER_FILE);
    fs::write(&path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(format!(
        "{} functions ({} KiB of code; a read on stdio runs {hot_functions} of them, {} KiB, \
         listed first) written to {ORDER_FILE}; rebuild to use it",
        order.len(),
        bytes / 1024,
        hot_bytes / 1024
    ))
}

/// What `binary` makes of the list.
pub(crate) struct Coverage {
    /// Listed functions the binary has.
    pub(crate) found: usize,
    /// Functions listed.
    pub(crate) listed: usize,
    /// Whether the ones it has sit side by side, as the linker puts them when given the list.
    pub(crate) laid_out: bool,
}

impl std::fmt::Display for Coverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Coverage {
            found,
            listed,
            laid_out,
        } = self;
        if *laid_out {
            write!(
                f,
                "mcp-resources' code laid out by `{ORDER_FILE}` ({found} of its {listed} functions found in the binary)"
            )?;
        } else {
            write!(
                f,
                "mcp-resources' code not laid out by `{ORDER_FILE}`: its {found} functions found in the binary (of {listed}) are spread over the text section (a linker other than LLD, or MCP_RESOURCES_NO_LAYOUT)"
            )?;
        }
        // Code changes rename functions (closures, generic instances, rustc's hashes): a list a
        // tenth out of date has lost a part of its effect.
        if found * 10 < listed * 9 {
            write!(f, "; the list is out of date: run `cargo xtask layout`")?;
        }
        Ok(())
    }
}

/// How many of the listed functions `binary` holds, out of how many are listed (the linker
/// skips, name by name, what the code no longer has), and whether they were laid out together.
pub(crate) fn coverage(root: &Path, binary: &Path) -> Result<Coverage, String> {
    let listed = fs::read_to_string(root.join(ORDER_FILE))
        .map_err(|error| format!("cannot read {ORDER_FILE}: {error}"))?;
    let symbols = Symbols::of(binary)?;
    let names: HashSet<&str> = listed
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .collect();
    let spans: Vec<(u64, u64)> = symbols
        .starts
        .iter()
        .filter(|(_, _, name)| names.contains(name.as_str()))
        .map(|(start, size, _)| (*start, start + size))
        .collect();
    Ok(Coverage {
        found: spans.len(),
        listed: names.len(),
        laid_out: side_by_side(&spans),
    })
}

/// Whether functions at `spans` (start, end) sit side by side: the stretch from the first to the
/// last is at most a quarter larger than the functions themselves (alignment pads them).
fn side_by_side(spans: &[(u64, u64)]) -> bool {
    let (Some(first), Some(last)) = (
        spans.iter().map(|(start, _)| *start).min(),
        spans.iter().map(|(_, end)| *end).max(),
    ) else {
        return false;
    };
    let total: u64 = spans.iter().map(|(start, end)| end - start).sum();
    (last - first) * 4 <= total * 5
}

fn valgrind(out: &Path) -> Command {
    let mut command = Command::new("valgrind");
    command.args([
        "--tool=callgrind",
        "--dump-instr=yes",
        "--compress-pos=no",
        "--compress-strings=no",
        "--quiet",
    ]);
    command.arg(format!("--callgrind-out-file={}", out.display()));
    command
}

/// Runs `mcp-resources serve` with `args` under callgrind and sends it `script` (with `reads`
/// reads of static resources or files) on its stdin one request at a time, each once the one
/// before is answered, as a client waiting for its answers does: the server then runs, for
/// every request, what waiting for the next one costs too.
fn stdio_profile(
    binary: &Path,
    args: &[OsString],
    script: &str,
    reads: usize,
    out: &Path,
) -> Result<(), String> {
    let mut child = valgrind(out)
        .arg(binary)
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot run valgrind (is it installed?): {error}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut read = 0;
    for line in script.lines() {
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|error| format!("cannot write to the server: {error}"))?;
        // Every request here is answered with one line; a notification is not answered.
        if !line.contains(r#""id":"#) {
            continue;
        }
        let mut reply = String::new();
        match stdout.read_line(&mut reply) {
            Ok(0) | Err(_) => break,
            Ok(_) => read += usize::from(reply.contains(r#""text":"resource "#)),
        }
    }
    drop(stdin);
    let status = child
        .wait()
        .map_err(|error| format!("cannot wait for valgrind: {error}"))?;
    if !status.success() || read < reads {
        return Err(format!(
            "the server under valgrind answered {read} reads of {reads} ({status})"
        ));
    }
    Ok(())
}

/// Runs `mcp-resources serve` with `args` on Streamable HTTP under callgrind, and drives it.
fn http_profile(binary: &Path, args: &[OsString], out: &Path) -> Result<(), String> {
    let port = bench::free_port()?;
    let mut child = valgrind(out)
        .arg(binary)
        .args(["serve", "--http"])
        .arg(format!("127.0.0.1:{port}"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot run valgrind (is it installed?): {error}"))?;
    let deadline = Instant::now() + VALGRIND_TIMEOUT;
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        if Instant::now() > deadline || matches!(child.try_wait(), Ok(Some(_))) {
            let _ = child.kill();
            return Err("the server under valgrind did not listen".to_owned());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let driven = drive_http(port);
    // SIGTERM: the server shuts down and callgrind writes its profile.
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let deadline = Instant::now() + VALGRIND_TIMEOUT;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err("the server under valgrind did not exit".to_owned());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    driven
}

/// The requests of both eras over HTTP, one connection each.
fn drive_http(port: u16) -> Result<(), String> {
    let reply = post(port, &[], &initialize(0))?;
    let session = header(&reply, "mcp-session-id").ok_or("no Mcp-Session-Id")?;
    let legacy = [
        ("MCP-Protocol-Version", bench::LEGACY),
        ("Mcp-Session-Id", session.as_str()),
    ];
    post(
        port,
        &legacy,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )?;
    for (id, body) in legacy_requests(1, READS).iter().enumerate() {
        let reply = post(port, &legacy, body)?;
        if id < READS && !reply.contains(r#""text":"resource "#) {
            return Err(format!("an HTTP read was not answered: {reply}"));
        }
    }
    for body in modern_requests(1, READS) {
        let method = body
            .split(r#""method":""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or("");
        let name = body
            .split(r#""uri":""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next());
        let mut headers = vec![
            ("MCP-Protocol-Version", bench::MODERN),
            ("Mcp-Method", method),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name", name));
        }
        post(port, &headers, &body)?;
    }
    Ok(())
}

fn post(port: u16, headers: &[(&str, &str)], body: &str) -> Result<String, String> {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .map_err(|error| format!("cannot connect: {error}"))?;
    stream
        .set_read_timeout(Some(VALGRIND_TIMEOUT))
        .map_err(|error| format!("cannot set a timeout: {error}"))?;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        let _ = write!(request, "{name}: {value}\r\n");
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream
        .write_all(request.as_bytes())
        .map_err(|error| format!("cannot send a request: {error}"))?;
    let mut reply = String::new();
    stream
        .read_to_string(&mut reply)
        .map_err(|error| format!("cannot read a reply: {error}"))?;
    Ok(reply)
}

fn header(reply: &str, name: &str) -> Option<String> {
    reply.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

fn initialize(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{}","capabilities":{{}},"clientInfo":{{"name":"cargo-xtask-layout","version":"0.0.0"}}}}}}"#,
        bench::LEGACY
    )
}

/// Every request of one era in a session: `reads` reads first (the server's hottest path), then
/// lists, a template read, subscriptions, completion and errors.
fn requests(first_id: u64, meta: &str, reads: usize) -> Vec<String> {
    let request = |id: u64, method: &str, params: &str| {
        let params = match (params.is_empty(), meta.is_empty()) {
            (true, true) => String::new(),
            (true, false) => format!(r#","params":{{{meta}}}"#),
            (false, true) => format!(r#","params":{{{params}}}"#),
            (false, false) => format!(r#","params":{{{params},{meta}}}"#),
        };
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}"#)
    };
    let mut all: Vec<String> = (0..reads)
        .map(|index| {
            let uri = format!(r#""uri":"mem:///r/{:04}""#, index % 1000);
            request(first_id + index as u64, "resources/read", &uri)
        })
        .collect();
    let mut id = first_id + reads as u64;
    let mut next = |method: &str, params: &str| {
        id += 1;
        all.push(request(id, method, params));
    };
    next("resources/list", "");
    next("resources/list", r#""cursor":"not a cursor""#);
    next("resources/templates/list", "");
    next("resources/read", r#""uri":"mem:///t/7""#);
    next("resources/read", r#""uri":"mem:///missing""#);
    next(
        "completion/complete",
        r#""ref":{"type":"ref/resource","uri":"mem:///t/{id}"},"argument":{"name":"id","value":"1"}"#,
    );
    next("no/such/method", "");
    next("ping", "");
    all
}

fn legacy_requests(first_id: u64, reads: usize) -> Vec<String> {
    let mut all = requests(first_id, "", reads);
    let id = first_id + all.len() as u64 + 10;
    all.push(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/subscribe","params":{{"uri":"mem:///r/0001"}}}}"#
    ));
    all.push(format!(
        r#"{{"jsonrpc":"2.0","id":{},"method":"resources/unsubscribe","params":{{"uri":"mem:///r/0001"}}}}"#,
        id + 1
    ));
    all
}

/// The `_meta` member of every modern request.
fn modern_meta() -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#,
        bench::MODERN
    )
}

fn modern_requests(first_id: u64, reads: usize) -> Vec<String> {
    let meta = modern_meta();
    let mut all = requests(first_id, &meta, reads);
    let id = first_id + all.len() as u64 + 10;
    all.push(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{{meta}}}}}"#
    ));
    all
}

fn legacy_script(reads: usize) -> String {
    let mut script = initialize(0) + "\n";
    script.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    script.push('\n');
    for request in legacy_requests(1, reads) {
        script.push_str(&request);
        script.push('\n');
    }
    script
}

fn modern_script(reads: usize) -> String {
    modern_requests(1, reads)
        .into_iter()
        .map(|request| request + "\n")
        .collect()
}

/// The scripts of file reads, legacy then modern: [`READS`] reads of the files under
/// `prefix` (a `file://` URI ending in `/`), each of the first half read twice so that the
/// read cache serves the second.
fn file_scripts(prefix: &str) -> [(&'static str, String); 2] {
    let reads = |meta: &str| -> String {
        (0..READS)
            .map(|index| {
                let meta = if meta.is_empty() {
                    String::new()
                } else {
                    format!(",{meta}")
                };
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"resources/read","params":{{"uri":"{prefix}r{:04}.txt"{meta}}}}}"#,
                    index + 1,
                    index % (READS / 2)
                ) + "\n"
            })
            .collect()
    };
    let legacy = initialize(0)
        + "\n"
        + r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        + "\n"
        + &reads("");
    [("legacy", legacy), ("modern", reads(&modern_meta()))]
}

/// The addresses of `binary`'s instructions that a callgrind profile (written with
/// `--dump-instr=yes --compress-pos=no --compress-strings=no`) counts, in the order listed.
fn addresses_run(profile: &Path, binary: &Path) -> Result<Vec<u64>, String> {
    let text = fs::read_to_string(profile)
        .map_err(|error| format!("cannot read {}: {error}", profile.display()))?;
    let name = binary.to_string_lossy();
    let mut ours = false;
    let mut addresses = Vec::new();
    for line in text.lines() {
        if let Some(object) = line.strip_prefix("ob=") {
            ours = object.trim() == name;
        } else if ours && line.starts_with("0x") {
            let address = line.split_whitespace().next().unwrap_or("");
            if let Ok(address) = u64::from_str_radix(address.trim_start_matches("0x"), 16) {
                addresses.push(address);
            }
        }
    }
    Ok(addresses)
}

/// The addresses of `binary`'s instructions that run once per read or more: run at least
/// `reads / 2` times more in the profile `twice` (of a session with `reads` more reads) than in
/// `once`. Start-up runs as often in both, however much it runs.
fn run_per_read(
    once: &Path,
    twice: &Path,
    binary: &Path,
    reads: usize,
) -> Result<HashSet<u64>, String> {
    let once = self_counts(once, binary)?;
    let twice = self_counts(twice, binary)?;
    let threshold = (reads / 2) as u64;
    Ok(twice
        .into_iter()
        .filter(|(address, count)| {
            count.saturating_sub(once.get(address).copied().unwrap_or(0)) >= threshold
        })
        .map(|(address, _)| address)
        .collect())
}

/// How many times each instruction of `binary` ran, from a callgrind profile (written with
/// `--dump-instr=yes --compress-pos=no --compress-strings=no`): the first count of each cost
/// line, leaving out the lines that follow `calls=` (what a call costs, counted in the callee).
fn self_counts(profile: &Path, binary: &Path) -> Result<HashMap<u64, u64>, String> {
    let text = fs::read_to_string(profile)
        .map_err(|error| format!("cannot read {}: {error}", profile.display()))?;
    let name = binary.to_string_lossy();
    let mut ours = false;
    let mut after_call = false;
    let mut counts = HashMap::new();
    for line in text.lines() {
        if let Some(object) = line.strip_prefix("ob=") {
            ours = object.trim() == name;
        } else if line.starts_with("calls=") {
            after_call = true;
        } else if line.starts_with("0x") {
            if std::mem::take(&mut after_call) || !ours {
                continue;
            }
            let mut fields = line.split_whitespace();
            let address = fields.next().unwrap_or("");
            // Positions `instr line`: the address, the source line, then the count.
            let count = fields.nth(1).and_then(|count| count.parse::<u64>().ok());
            if let (Ok(address), Some(count)) = (
                u64::from_str_radix(address.trim_start_matches("0x"), 16),
                count,
            ) {
                *counts.entry(address).or_insert(0) += count;
            }
        }
    }
    Ok(counts)
}

/// The functions of a binary, from `nm`: where each starts, its size and its name, by address.
struct Symbols {
    starts: Vec<(u64, u64, String)>,
}

impl Symbols {
    fn of(binary: &Path) -> Result<Symbols, String> {
        let output = Command::new("nm")
            .args(["-n", "-S", "--defined-only"])
            .arg(binary)
            .output()
            .map_err(|error| format!("cannot run nm: {error}"))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let mut starts = Vec::new();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [start, size, kind, name] = fields[..] else {
                continue;
            };
            if !kind.eq_ignore_ascii_case("t") {
                continue;
            }
            if let (Ok(start), Ok(size)) = (
                u64::from_str_radix(start, 16),
                u64::from_str_radix(size, 16),
            ) {
                starts.push((start, size, name.to_owned()));
            }
        }
        Ok(Symbols { starts })
    }

    /// The name and size of the function holding `address`.
    fn holding(&self, address: u64) -> Option<(&str, u64)> {
        let index = self
            .starts
            .partition_point(|(start, _, _)| *start <= address)
            .checked_sub(1)?;
        let (start, size, name) = &self.starts[index];
        (address < start + size).then_some((name.as_str(), *size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols() -> Symbols {
        Symbols {
            starts: vec![
                (0x1000, 0x10, "a".to_owned()),
                (0x1010, 0x20, "b".to_owned()),
                (0x1040, 0x8, "c".to_owned()),
            ],
        }
    }

    #[test]
    fn an_address_maps_to_the_function_holding_it_and_a_gap_to_none() {
        let symbols = symbols();
        assert_eq!(symbols.holding(0x1000), Some(("a", 0x10)));
        assert_eq!(symbols.holding(0x100f), Some(("a", 0x10)));
        assert_eq!(symbols.holding(0x1010), Some(("b", 0x20)));
        assert_eq!(symbols.holding(0x1030), None, "between b and c");
        assert_eq!(symbols.holding(0x1047), Some(("c", 0x8)));
        assert_eq!(symbols.holding(0x1048), None, "past the last function");
        assert_eq!(symbols.holding(0xfff), None, "before the first");
    }

    #[test]
    fn functions_are_side_by_side_when_little_but_padding_separates_them() {
        assert!(side_by_side(&[(0x1000, 0x1100), (0x1110, 0x1200)]));
        assert!(!side_by_side(&[(0x1000, 0x1100), (0x9000, 0x9100)]));
        assert!(!side_by_side(&[]));
    }

    #[test]
    fn profiles_count_only_the_binarys_own_instructions() {
        let dir = std::env::temp_dir().join(format!("xtask-layout-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let profile = dir.join("callgrind.out");
        fs::write(
            &profile,
            "ob=/usr/lib/libc.so.6\nfn=memcpy\n0x9000 4\nob=/bin/server\nfn=main\n0x1004 2\n\
             cob=/usr/lib/libc.so.6\ncfn=memcpy\ncalls=1 0x9000\n0x1008 7\nob=/usr/lib/libc.so.6\n0x9004 1\n",
        )
        .unwrap();
        let addresses = addresses_run(&profile, Path::new("/bin/server")).unwrap();
        assert_eq!(addresses, vec![0x1004, 0x1008]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn per_read_instructions_are_those_run_more_with_more_reads() {
        let dir = std::env::temp_dir().join(format!("xtask-layout-reads-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (once, twice) = (dir.join("once.out"), dir.join("twice.out"));
        // 0x1000: start-up (as often both times); 0x1004: every read; 0x1008: every tenth read;
        // the call at 0x100c costs its callee's 900 either way, counted at the callee only.
        let profile = |reads: u64| {
            format!(
                "positions: instr line\nob=/bin/server\nfn=main\n0x1000 1 5000\n0x1004 2 {}\n\
                 0x1008 3 {}\ncfn=other\ncalls=1 0x2000\n0x100c 4 {}\nob=/usr/lib/libc.so.6\n\
                 0x9000 1 {}\n",
                reads * 3,
                reads / 10,
                reads * 900,
                reads * 50
            )
        };
        fs::write(&once, profile(200)).unwrap();
        fs::write(&twice, profile(400)).unwrap();
        let server = Path::new("/bin/server");
        let per_read = run_per_read(&once, &twice, server, 200).unwrap();
        assert_eq!(per_read, HashSet::from([0x1004]));
        assert_eq!(self_counts(&once, server).unwrap().get(&0x100c), None);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_scripted_request_is_json_rpc_with_a_distinct_id() {
        let [(_, legacy_files), (_, modern_files)] = file_scripts("file:///bench/");
        for script in [
            legacy_script(READS),
            modern_script(READS),
            legacy_files,
            modern_files,
        ] {
            let mut ids = HashSet::new();
            for line in script.lines() {
                let message: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(message["jsonrpc"], "2.0", "{line}");
                if let Some(id) = message.get("id") {
                    assert!(ids.insert(id.to_string()), "a repeated id in {line}");
                }
            }
            assert!(ids.len() >= READS, "{} requests", ids.len());
        }
        let (_, modern_files) = &file_scripts("file:///bench/")[1];
        assert!(
            modern_files
                .lines()
                .all(|line| line.contains("file:///bench/r0")
                    && line.contains("io.modelcontextprotocol/protocolVersion"))
        );
        for request in modern_requests(1, READS) {
            assert!(
                request.contains("io.modelcontextprotocol/clientCapabilities"),
                "{request}"
            );
        }
    }
}
