//! The git provider's costs, and git's own beside them, on repositories written here with `git
//! fast-import`: a read of a 1 KiB file at HEAD (against `git cat-file --batch-command`), one
//! `resources/list` page and a whole list walk in trees of 1,000 / 10,000 / 100,000 files (the
//! page must cost the same in each), the index of HEAD's files that the first list builds (once
//! per HEAD commit), and a log page of 100 commits (against `git log -100`).
//!
//! Run with `cargo bench -p mcp-resources-git --bench git`. Allocations are counted. Our side is
//! the engine over the provider, called without a tokio runtime, so that the provider's blocking
//! work runs inline on the bench's thread. Given no arguments, the bench first measures both
//! sides by CPU time, interleaved, and prints one `side-by-side NAME key=value…` line per
//! comparison (what `cargo xtask bench` reads beside divan's table): ours from the thread's CPU
//! clock; git's from the scheduler (`/proc/<pid>/schedstat` of the long-lived `cat-file`
//! process, read while it waits for input) or, for a process per answer (`git log`, `git
//! ls-tree`), from the times of the reaped children (`cutime` and `cstime` of
//! `/proc/self/stat`, clock ticks over many runs). Every git runs with the repository's own
//! configuration only, as the provider reads it. The repositories are written under the target
//! directory (`CARGO_TARGET_TMPDIR`, a couple of seconds for 100,000 files) and removed at the
//! end.
//!
//! **Layer:** a bench of the provider crate, built only by `cargo bench`. It reaches the provider
//! through its public API and the core's engine alone; it never knows the provider's modules,
//! a transport, JSON-RPC or the server, and it never writes to a repository it did not make.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use divan::{AllocProfiler, Bencher};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::Body;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_git::{GitConfig, GitProvider, RepoConfig};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

/// Files of the read repository, each [`READ_BYTES`] of text.
const READ_FILES: usize = 1_000;
const READ_BYTES: usize = 1024;
/// Commits of the log repository, one file changed in each.
const LOG_COMMITS: usize = 5_000;
/// The commits of a log page.
const LOG_PAGE: usize = 100;
/// Files per directory in every generated tree.
const PER_DIRECTORY: usize = 100;
/// The sizes of the generated trees, in files.
const TREES: [usize; 3] = [1_000, 10_000, 100_000];
/// The tree whose index build git's `ls-tree -r` is set beside.
const LARGEST_TREE: usize = TREES[2];
/// The format of the log git is compared with: what a log page holds.
const LOG_FORMAT: &str = "--format=%H%x00%an%x00%ae%x00%aI%x00%s";

fn main() {
    // Cargo passes `--bench`; anything else (a filter, `--list`, `--test`) is for divan alone.
    let plain = std::env::args()
        .skip(1)
        .all(|arg| arg == "--bench" || arg.is_empty());
    if plain {
        side_by_side();
    }
    divan::main();
    if let Some(scratch) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(scratch);
    }
}

// ---------------------------------------------------------------------------------------------
// The repositories.

/// Where the repositories are written: a fresh directory under the target directory.
static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

fn scratch() -> &'static Path {
    SCRATCH.get_or_init(|| {
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
        std::fs::create_dir_all(parent).expect("the target's tmp directory");
        tempfile::Builder::new()
            .prefix("git-bench-")
            .tempdir_in(parent)
            .expect("a scratch directory")
            .keep()
    })
}

/// `git` with the user's and the system's configuration left out, in `dir`.
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", scratch())
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY");
    command
}

/// A bare repository `name` (HEAD on `main`) made by `git fast-import` from `stream`.
fn fast_import(name: &str, stream: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    let status = git(scratch())
        .args(["init", "-q", "--bare", "-b", "main"])
        .arg(&path)
        .status()
        .expect("git runs (install it: apt-get install git)");
    assert!(status.success(), "git init {name}");
    let mut child = git(&path)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stream)
        .expect("the stream");
    assert!(child.wait().expect("git fast-import").success(), "{name}");
    path
}

/// Pseudo-random bytes, the same every run (xorshift64).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `length` bytes of text: lowercase letters in lines of 64 bytes. Random enough that
    /// fast-import stores every blob whole (no deltas), as for the files of a tree.
    fn text(&mut self, length: usize) -> Vec<u8> {
        (0..length)
            .map(|index| {
                if index % 64 == 63 {
                    b'\n'
                } else {
                    b'a' + (self.next() % 26) as u8
                }
            })
            .collect()
    }
}

/// The path of file `index` of a generated tree: [`PER_DIRECTORY`] files a directory.
fn file_path(index: usize) -> String {
    format!("d{:04}/f{index:06}.txt", index / PER_DIRECTORY)
}

fn data(stream: &mut Vec<u8>, bytes: &[u8]) {
    let _ = writeln!(Text(stream), "data {}", bytes.len());
    stream.extend_from_slice(bytes);
    stream.push(b'\n');
}

/// `fmt::Write` into a byte buffer.
struct Text<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Text<'_> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

/// One commit at `seconds` on `main` with `files` (path, contents).
fn commit<'a>(
    stream: &mut Vec<u8>,
    seconds: u64,
    message: &str,
    files: impl IntoIterator<Item = (String, &'a [u8])>,
) {
    let _ = write!(
        Text(stream),
        "commit refs/heads/main\n\
         author Ada <ada@example.com> {seconds} +0000\n\
         committer Ada <ada@example.com> {seconds} +0000\n"
    );
    data(stream, message.as_bytes());
    for (path, contents) in files {
        let _ = writeln!(Text(stream), "M 100644 inline {path}");
        data(stream, contents);
    }
}

/// A repository of one commit holding `total` files of `bytes` bytes each.
fn tree_repo(name: &str, total: usize, bytes: usize) -> PathBuf {
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15 ^ total as u64);
    let contents: Vec<Vec<u8>> = (0..total).map(|_| noise.text(bytes)).collect();
    let mut stream = Vec::with_capacity(total * (bytes + 64));
    commit(
        &mut stream,
        1_700_000_000,
        "the tree",
        contents
            .iter()
            .enumerate()
            .map(|(index, contents)| (file_path(index), contents.as_slice())),
    );
    fast_import(name, &stream)
}

/// The provider serving `path` as `name` (not watching), in an engine of its own.
fn engine(name: &str, path: &Path) -> Engine {
    let mut config = GitConfig::new([RepoConfig::new(name, path)]);
    config.watch = false;
    let provider = GitProvider::new(config).expect("the provider");
    Engine::builder(CursorKey::new([7; 32]))
        .provider(Arc::new(provider))
        .build()
        .expect("the engine")
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).expect("a valid uri")
}

/// The read repository, its engine, and its files' paths and URIs at HEAD.
struct ReadRepo {
    path: PathBuf,
    engine: Engine,
    paths: Vec<String>,
    uris: Vec<ResourceUri>,
}

fn read_repo() -> &'static ReadRepo {
    static REPO: OnceLock<ReadRepo> = OnceLock::new();
    REPO.get_or_init(|| {
        let path = tree_repo("read", READ_FILES, READ_BYTES);
        let paths: Vec<String> = (0..READ_FILES).map(file_path).collect();
        let uris = paths
            .iter()
            .map(|file| uri(&format!("git://read/tree/HEAD/{file}")))
            .collect();
        ReadRepo {
            engine: engine("read", &path),
            path,
            paths,
            uris,
        }
    })
}

/// A tree of `total` files, with an engine whose file index is built, and the cursor of the
/// page from the middle of its list.
struct TreeRepo {
    path: PathBuf,
    name: String,
    engine: Engine,
    middle: String,
}

fn tree(total: usize) -> &'static TreeRepo {
    static TREES: Mutex<Vec<(usize, &'static TreeRepo)>> = Mutex::new(Vec::new());
    let mut trees = TREES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, tree)) = trees.iter().find(|(size, _)| *size == total) {
        return tree;
    }
    let name = format!("tree-{total}");
    // Small files: the list reads their headers, never their bytes.
    let path = tree_repo(&name, total, 32);
    let engine = engine(&name, &path);
    // The first pages: the index is built, then the cursor walks to the middle.
    let anyone = Principal::anonymous();
    let mut cursor = None;
    let mut seen = 0;
    while seen < total / 2 {
        let page = pollster::block_on(engine.list_resources(&anyone, cursor.as_deref()))
            .expect("a list page");
        seen += page.items.len();
        cursor = Some(page.next_cursor.expect("more pages"));
    }
    let middle = cursor.expect("a cursor");
    let tree: &'static TreeRepo = Box::leak(Box::new(TreeRepo {
        path,
        name,
        engine,
        middle,
    }));
    trees.push((total, tree));
    tree
}

/// The log repository: [`LOG_COMMITS`] commits a minute apart, each changing one of 100
/// files; its engine and its commits, newest first.
struct LogRepo {
    path: PathBuf,
    engine: Engine,
    commits: Vec<String>,
}

fn log_repo() -> &'static LogRepo {
    static REPO: OnceLock<LogRepo> = OnceLock::new();
    REPO.get_or_init(|| {
        let mut noise = Noise(0x2545_f491_4f6c_dd1d);
        let mut stream = Vec::new();
        for index in 0..LOG_COMMITS {
            let contents = noise.text(200);
            commit(
                &mut stream,
                1_700_000_000 + 60 * index as u64,
                &format!("change {index}: file {} again\n\nWith a body.", index % 100),
                [(format!("src/file{:02}.txt", index % 100), &contents[..])],
            );
        }
        let path = fast_import("log", &stream);
        let output = git(&path)
            .args(["rev-list", "HEAD"])
            .output()
            .expect("git rev-list");
        let commits: Vec<String> = String::from_utf8(output.stdout)
            .expect("ids")
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(commits.len(), LOG_COMMITS);
        LogRepo {
            engine: engine("log", &path),
            path,
            commits,
        }
    })
}

/// The URI of the log page after the first `skipped` commits.
fn log_uri(skipped: usize) -> ResourceUri {
    match skipped {
        0 => uri(&format!("git://log/log/HEAD?limit={LOG_PAGE}")),
        _ => uri(&format!(
            "git://log/log/HEAD?after={}&limit={LOG_PAGE}",
            log_repo().commits[skipped - 1]
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Our side, with divan.

/// A read of a 1 KiB file at HEAD, round robin over the read repository's files.
#[divan::bench(args = [READ_FILES], sample_count = 2000)]
fn read_1kib_blob(bencher: Bencher<'_, '_>, files: usize) {
    let repo = read_repo();
    let anyone = Principal::anonymous();
    let mut next = 0;
    bencher.bench_local(|| {
        let uri = &repo.uris[next % files];
        next += 1;
        pollster::block_on(repo.engine.read(&anyone, black_box(uri))).expect("read")
    });
}

/// One page of 100 from the middle of the resource list, HEAD's file index already built.
#[divan::bench(args = TREES, sample_count = 1000)]
fn list_page_of_100(bencher: Bencher<'_, '_>, total: usize) {
    let tree = tree(total);
    let anyone = Principal::anonymous();
    bencher.bench_local(|| {
        let page = pollster::block_on(
            tree.engine
                .list_resources(&anyone, Some(black_box(&tree.middle))),
        )
        .expect("page");
        assert_eq!(page.items.len(), 100);
        page
    });
}

/// The first list page on a fresh provider: it builds the index of HEAD's files.
#[divan::bench(args = TREES, sample_count = 10)]
fn first_list_page(bencher: Bencher<'_, '_>, total: usize) {
    let tree = tree(total);
    let anyone = Principal::anonymous();
    bencher
        .with_inputs(|| engine(&tree.name, &tree.path))
        .bench_local_values(|engine| {
            let page = pollster::block_on(engine.list_resources(&anyone, None)).expect("page");
            assert_eq!(page.items.len(), 100);
            (engine, page)
        });
}

/// The whole resource list, page by page (the refs resource and every file).
#[divan::bench(args = TREES, sample_count = 10)]
fn list_walk(bencher: Bencher<'_, '_>, total: usize) {
    let tree = tree(total);
    let anyone = Principal::anonymous();
    bencher.bench_local(|| {
        let mut cursor: Option<String> = None;
        let mut items = 0;
        loop {
            let page = pollster::block_on(tree.engine.list_resources(&anyone, cursor.as_deref()))
                .expect("page");
            items += page.items.len();
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(items, total + 1);
        items
    });
}

/// A log page of 100 commits after the first N of the history (0: the newest).
#[divan::bench(args = [0, 1_000, 4_000], sample_count = 50)]
fn log_page_of_100(bencher: Bencher<'_, '_>, skipped: usize) {
    let repo = log_repo();
    let uri = log_uri(skipped);
    let anyone = Principal::anonymous();
    bencher.bench_local(|| {
        pollster::block_on(repo.engine.read(&anyone, black_box(&uri))).expect("log")
    });
}

// ---------------------------------------------------------------------------------------------
// Side by side with git, by CPU time.

/// Interleaved rounds of each comparison; its figures are the medians over them.
const ROUNDS: usize = 5;

/// The CPU time of this thread so far.
fn thread_cpu() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// The CPU time of the children this process has waited for (`cutime` + `cstime` of
/// `/proc/self/stat`, in clock ticks).
fn children_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The fields after the command name (in parentheses, which it may itself hold): cutime
    // and cstime are the 16th and 17th of the line, the 14th and 15th after the name.
    let mut fields = stat
        .rsplit_once(')')
        .expect("a stat line")
        .1
        .split_whitespace()
        .skip(13);
    let mut next = || fields.next().and_then(|field| field.parse::<u64>().ok());
    let ticks = next().expect("cutime") + next().expect("cstime");
    let hertz = rustix::param::clock_ticks_per_second();
    Duration::from_nanos(ticks * 1_000_000_000 / hertz)
}

/// The CPU time of process `pid` so far, every thread (the scheduler's, in nanoseconds).
fn process_cpu(pid: u32) -> Duration {
    let dir = format!("/proc/{pid}/task");
    let mut total = 0;
    for task in std::fs::read_dir(&dir).expect("the tasks") {
        let schedstat = std::fs::read_to_string(task.expect("a task").path().join("schedstat"))
            .unwrap_or_default();
        total += schedstat
            .split_whitespace()
            .next()
            .and_then(|ns| ns.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Duration::from_nanos(total)
}

/// Waits until process `pid` sleeps (waits for input), so that its CPU time is all counted.
fn wait_until_idle(pid: u32) {
    let path = format!("/proc/{pid}/stat");
    let started = Instant::now();
    loop {
        let stat = std::fs::read_to_string(&path).expect("the stat of git");
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        if state == Some('S') || started.elapsed() > Duration::from_secs(5) {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// What one side of one round took: CPU and wall time over `calls` calls.
#[derive(Clone, Copy, Default)]
struct Cost {
    cpu: Duration,
    wall: Duration,
    calls: usize,
}

impl Cost {
    fn plus(self, other: Cost) -> Cost {
        Cost {
            cpu: self.cpu + other.cpu,
            wall: self.wall + other.wall,
            calls: self.calls + other.calls,
        }
    }
}

/// Prints one `side-by-side` line: per call, each side's CPU and wall time over all its rounds
/// (totals over calls, so that clock ticks add up to a fine figure).
fn report(name: &str, counts: &[(&str, usize)], sides: &[(&str, Vec<Cost>)]) {
    let mut line = format!("side-by-side {name}");
    for (key, count) in counts {
        let _ = write!(line, " {key}={count}");
    }
    for (side, costs) in sides {
        let calls = costs.iter().map(|cost| cost.calls).sum::<usize>().max(1) as f64;
        let per_call = |total: Duration| total.as_secs_f64() * 1e6 / calls;
        let cpu = per_call(costs.iter().map(|cost| cost.cpu).sum());
        let wall = per_call(costs.iter().map(|cost| cost.wall).sum());
        let _ = write!(line, " {side}_cpu_us={cpu:.3} {side}_wall_us={wall:.3}");
    }
    println!("{line}");
}

/// Our CPU and wall time per call of `work`, `calls` times.
fn ours(calls: usize, mut work: impl FnMut(usize)) -> Cost {
    let (cpu, wall) = (thread_cpu(), Instant::now());
    for call in 0..calls {
        work(call);
    }
    Cost {
        cpu: thread_cpu() - cpu,
        wall: wall.elapsed(),
        calls,
    }
}

/// Git's CPU and wall time per run of `git args` in `repo`, `runs` times. Every run's output is
/// read through one small buffer and must be `lines` lines: kept whole, git's megabytes would
/// move this process's heap around, and the provider's next allocations with it.
fn git_runs(repo: &Path, args: &[&str], runs: usize, lines: usize) -> Cost {
    let mut buffer = vec![0; 64 * 1024];
    let (cpu, wall) = (children_cpu(), Instant::now());
    for _ in 0..runs {
        let mut child = git(repo)
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("git runs");
        let mut output = child.stdout.take().expect("piped");
        let mut count = 0;
        loop {
            let read = output.read(&mut buffer).expect("git's output");
            if read == 0 {
                break;
            }
            count += buffer[..read].iter().filter(|byte| **byte == b'\n').count();
        }
        assert!(child.wait().expect("git").success(), "git {args:?}");
        assert_eq!(count, lines, "lines of git {args:?}");
    }
    Cost {
        cpu: children_cpu() - cpu,
        wall: wall.elapsed(),
        calls: runs,
    }
}

/// A long-lived `git cat-file --batch-command --buffer` in a repository.
struct CatFile {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
}

impl CatFile {
    fn start(repo: &Path) -> CatFile {
        let mut child = git(repo)
            .args(["cat-file", "--batch-command", "--buffer"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("git cat-file");
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        CatFile {
            child,
            input,
            output,
        }
    }

    /// The contents of every object named (`HEAD:PATH`, or an id), asked all at once then
    /// flushed, each handed to `each`; git's CPU time from one idle moment to the next.
    fn contents(&mut self, objects: &[String], mut each: impl FnMut(usize, &[u8])) -> Cost {
        let pid = self.child.id();
        let mut commands = String::new();
        for object in objects {
            let _ = writeln!(commands, "contents {object}");
        }
        commands.push_str("flush\n");
        wait_until_idle(pid);
        let (cpu, wall) = (process_cpu(pid), Instant::now());
        let input = &mut self.input;
        let output = &mut self.output;
        std::thread::scope(|scope| {
            scope.spawn(|| input.write_all(commands.as_bytes()).expect("commands"));
            let mut header = Vec::new();
            let mut body = Vec::new();
            for index in 0..objects.len() {
                header.clear();
                output.read_until(b'\n', &mut header).expect("a header");
                let size: usize = std::str::from_utf8(&header)
                    .ok()
                    .and_then(|line| line.trim_end().rsplit(' ').next()?.parse().ok())
                    .unwrap_or_else(|| {
                        panic!("git cat-file said {:?}", String::from_utf8_lossy(&header))
                    });
                body.resize(size + 1, 0);
                output.read_exact(&mut body).expect("a body");
                each(index, &body[..size]);
            }
        });
        let wall = wall.elapsed();
        wait_until_idle(pid);
        Cost {
            cpu: process_cpu(pid) - cpu,
            wall,
            calls: objects.len(),
        }
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every comparison, interleaved: a round measures each side once.
fn side_by_side() {
    let started = Instant::now();
    eprintln!("side by side with git: writing the repositories");
    let read = read_repo();
    let log = log_repo();
    let largest = tree(LARGEST_TREE);
    eprintln!(
        "side by side with git: measuring (repositories written in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    side_by_side_read(read);
    side_by_side_log(log);
    side_by_side_index(largest);
    side_by_side_pages();
    eprintln!(
        "side by side with git: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A 1 KiB file at HEAD, every file of the read repository [`READ_PASSES`] times a round: ours
/// by URI; git's by `HEAD:PATH` (the same work: HEAD, the trees, the blob) and by blob id (the
/// blob alone).
fn side_by_side_read(read: &ReadRepo) {
    const READ_PASSES: usize = 5;
    let anyone = Principal::anonymous();
    let read_one = |index: usize| {
        let uri = &read.uris[index % READ_FILES];
        pollster::block_on(read.engine.read(&anyone, black_box(uri))).expect("read")
    };
    let listed = git(&read.path)
        .args(["ls-tree", "-r", "--format=%(objectname)", "HEAD"])
        .output()
        .expect("git ls-tree");
    let ids: Vec<String> = String::from_utf8(listed.stdout)
        .expect("ids")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(ids.len(), READ_FILES);
    let repeat = |names: Vec<String>| -> Vec<String> {
        (0..READ_PASSES)
            .flat_map(|_| names.iter().cloned())
            .collect()
    };
    let by_path = repeat(
        read.paths
            .iter()
            .map(|path| format!("HEAD:{path}"))
            .collect(),
    );
    let by_id = repeat(ids);
    let mut cat_file = CatFile::start(&read.path);
    // Once, unmeasured: the same bytes on both sides, both ways.
    for names in [&by_path, &by_id] {
        cat_file.contents(&names[..READ_FILES], |index, bytes| {
            let ours = read_one(index);
            let Body::Text(text) = &ours.contents[0].body else {
                panic!("a text file read as bytes");
            };
            assert_eq!(text.as_bytes(), bytes, "{}", read.paths[index]);
        });
    }
    let (mut ours_read, mut git_path, mut git_id) = (Vec::new(), Vec::new(), Vec::new());
    let whole = |_: usize, bytes: &[u8]| assert_eq!(bytes.len(), READ_BYTES);
    for _ in 0..ROUNDS {
        ours_read.push(ours(by_path.len(), |index| {
            black_box(read_one(index));
        }));
        git_path.push(cat_file.contents(&by_path, whole));
        git_id.push(cat_file.contents(&by_id, whole));
    }
    report(
        "read_1kib_blob",
        &[("files", READ_FILES), ("reads", ROUNDS * by_path.len())],
        &[
            ("ours", ours_read),
            ("git", git_path),
            ("git_by_id", git_id),
        ],
    );
}

/// A log page of 100 at HEAD beside `git log -100` (a process each); `git log -1` is git's
/// start and one commit.
fn side_by_side_log(log: &LogRepo) {
    const LOG_RUNS: usize = 100;
    let anyone = Principal::anonymous();
    let page = log_uri(0);
    let limit = format!("-{LOG_PAGE}");
    let (mut ours_log, mut git_log, mut git_one) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours_log.push(ours(LOG_RUNS, |_| {
            black_box(pollster::block_on(log.engine.read(&anyone, black_box(&page))).expect("log"));
        }));
        let args = ["log", limit.as_str(), LOG_FORMAT];
        git_log.push(git_runs(&log.path, &args, LOG_RUNS, LOG_PAGE));
        let args = ["log", "-1", LOG_FORMAT];
        git_one.push(git_runs(&log.path, &args, LOG_RUNS, 1));
    }
    report(
        "log_page_of_100",
        &[("commits", LOG_COMMITS), ("runs", ROUNDS * LOG_RUNS)],
        &[("ours", ours_log), ("git", git_log), ("git_one", git_one)],
    );
}

/// The first list page on a fresh provider, which indexes HEAD's 100,000 files, beside `git
/// ls-tree -r HEAD`, which lists them. Each provider is made before and dropped after its
/// page, unmeasured, as divan does: the index reuses the memory of the one before it.
fn side_by_side_index(largest: &TreeRepo) {
    const INDEX_RUNS: usize = 3;
    let anyone = Principal::anonymous();
    let (mut ours_index, mut git_index) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let mut cost = Cost::default();
        for _ in 0..INDEX_RUNS {
            let fresh = engine(&largest.name, &largest.path);
            cost = cost.plus(ours(1, |_| {
                let page = pollster::block_on(fresh.list_resources(&anyone, None)).expect("page");
                assert_eq!(page.items.len(), 100);
            }));
        }
        ours_index.push(cost);
        let args = ["ls-tree", "-r", "HEAD"];
        git_index.push(git_runs(&largest.path, &args, INDEX_RUNS, LARGEST_TREE));
    }
    report(
        "first_list_page",
        &[("files", LARGEST_TREE), ("runs", ROUNDS * INDEX_RUNS)],
        &[("ours", ours_index), ("git", git_index)],
    );
}

/// The steady list page of every tree, the sizes interleaved (no side by side with git, which
/// has no list): whether a page's CPU time stays flat as the tree grows.
fn side_by_side_pages() {
    const PAGES: usize = 200;
    let anyone = Principal::anonymous();
    let trees: Vec<&TreeRepo> = TREES.iter().map(|&total| tree(total)).collect();
    let mut costs = vec![Vec::new(); trees.len()];
    for _ in 0..ROUNDS {
        for (tree, costs) in trees.iter().zip(&mut costs) {
            costs.push(ours(PAGES, |_| {
                let cursor = Some(black_box(tree.middle.as_str()));
                let page =
                    pollster::block_on(tree.engine.list_resources(&anyone, cursor)).expect("page");
                assert_eq!(page.items.len(), 100);
            }));
        }
    }
    let names: Vec<String> = TREES.iter().map(|total| format!("ours_{total}")).collect();
    let sides: Vec<(&str, Vec<Cost>)> = names.iter().map(String::as_str).zip(costs).collect();
    report("list_page_of_100", &[("pages", ROUNDS * PAGES)], &sides);
}
