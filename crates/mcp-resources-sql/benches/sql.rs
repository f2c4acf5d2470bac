//! The SQL provider's costs, and SQLite's own beside them, on databases written here: a page of
//! 100 rows of a realistic table (`db://NAME/table/T/rows?limit=100`) against the same query
//! through `rusqlite` alone; the schema of a 500-table database (`db://NAME/schema`), read first
//! (introspection) and steady (cached by `schema_version`); and pages of tables of 10,000 /
//! 100,000 / 1,000,000 rows, from the start and deep in the table (after a key near the end),
//! whose CPU time, allocations and peak RSS must not grow with the table.
//!
//! Run with `cargo bench -p mcp-resources-sql --bench sql`. Allocations are counted: the Rust
//! heap's only, since SQLite allocates with `malloc` (seen in the RSS). Our side is the engine
//! over the provider, called without a tokio runtime, so that the provider's blocking work runs
//! inline on the bench's thread. Given no arguments, the bench first measures by CPU time,
//! interleaved, and prints one `side-by-side NAME key=value…` line per measurement (what `cargo
//! xtask bench` reads beside divan's table): ours and the driver's from the thread's CPU clock;
//! the peak RSS of paging from a fresh process of this bench per table (`VmHWM` of
//! `/proc/self/status`, reset through `/proc/self/clear_refs` before each phase). The databases
//! are written under the target directory (`CARGO_TARGET_TMPDIR`; 1,000,000 rows in about a
//! second, one transaction, one prepared statement) and removed at the end.
//!
//! With `MCP_TEST_POSTGRES` set (`eval "$(.ci/postgres)"` starts a server), the same page of
//! 100 is measured on PostgreSQL too, beside the same query through `tokio-postgres` alone, both
//! on one current-thread runtime so that the thread's CPU clock holds the client's whole work
//! (the server's CPU is its own process's, not counted on either side).
//!
//! **Layer:** a bench of the provider crate, built only by `cargo bench`. It reaches the provider
//! through its public API and the core's engine alone; it never knows the provider's modules or
//! the SQL they run, a transport, JSON-RPC or the server, and it never writes to a database it
//! did not make.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use divan::{AllocProfiler, Bencher};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::Body;
use mcp_resources_core::uri::{ResourceUri, encode_query_value};
use mcp_resources_sql::{DbConfig, SqlConfig, SqlProvider};
use rusqlite::{Connection, OpenFlags, params};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

/// The sizes of the paged tables, in rows.
const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];
/// The table whose page is set beside the driver's.
const COMPARED: usize = SIZES[0];
/// The rows of a page.
const PAGE: usize = 100;
/// The deep page starts after the key this far from the end (keys are 1 to N).
const DEEP_BEHIND: usize = 200;
/// The tables of the schema database.
const SCHEMA_TABLES: usize = 500;
/// The pages the memory probe walks from the start.
const FIRST_PAGES: usize = 10;
/// The deep pages the memory probe reads, one after the other.
const DEEP_READS: usize = 4;
/// The paged table: an integer key and six columns of texts, integers and reals, the email
/// masked by the provider's default rules.
const CREATE_PEOPLE: &str = "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, \
                             email TEXT, city TEXT, age INTEGER, balance REAL, created_at TEXT)";
/// The driver's pages: the same columns, in key order.
const DRIVER_FIRST: &str = "SELECT id, name, email, city, age, balance, created_at FROM people \
                            ORDER BY id LIMIT ?1";
const DRIVER_AFTER: &str = "SELECT id, name, email, city, age, balance, created_at FROM people \
                            WHERE id > ?1 ORDER BY id LIMIT ?2";
/// Set in the environment of the memory probe, a fresh process of this bench: `ROWS PATH`.
const PROBE: &str = "MCP_RESOURCES_SQL_BENCH_PROBE";

fn main() {
    if let Some(probe) = std::env::var_os(PROBE) {
        memory_probe(&probe.to_string_lossy());
        return;
    }
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
// The databases.

/// Where the databases are written: a fresh directory under the target directory.
static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

fn scratch() -> &'static Path {
    SCRATCH.get_or_init(|| {
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
        std::fs::create_dir_all(parent).expect("the target's tmp directory");
        tempfile::Builder::new()
            .prefix("sql-bench-")
            .tempdir_in(parent)
            .expect("a scratch directory")
            .keep()
    })
}

/// Pseudo-random numbers, the same every run (xorshift64).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// One of `items`.
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const FIRST_NAMES: [&str; 16] = [
    "Ada", "Zhang", "Maria", "Olu", "Ines", "Kenji", "Priya", "Lars", "Amara", "Diego", "Fatima",
    "Noah", "Mei", "Ivan", "Sofia", "Tariq",
];
const LAST_NAMES: [&str; 16] = [
    "Lovelace", "Wei", "Garcia", "Adeyemi", "Moreau", "Tanaka", "Sharma", "Nilsson", "Okafor",
    "Rossi", "Haddad", "Smith", "Chen", "Petrov", "Costa", "Rahman",
];
const CITIES: [&str; 12] = [
    "Lisbon", "Shanghai", "Lagos", "Osaka", "Pune", "Malmo", "Bogota", "Cairo", "Austin", "Turin",
    "Nairobi", "Leipzig",
];

/// A new database file `name` in the scratch directory, written fast: no syncing.
fn new_database(name: &str) -> (PathBuf, Connection) {
    let path = scratch().join(name);
    let connection = Connection::open(&path).expect("a new database");
    connection
        .pragma_update(None, "synchronous", "OFF")
        .expect("synchronous off");
    (path, connection)
}

/// A database holding `people` with `total` rows, keys 1 to `total`, in one transaction.
fn write_people(total: usize) -> PathBuf {
    let (path, mut connection) = new_database(&format!("rows-{total}.db"));
    connection.execute_batch(CREATE_PEOPLE).expect("the table");
    let transaction = connection.transaction().expect("a transaction");
    {
        let mut insert = transaction
            .prepare("INSERT INTO people VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .expect("the insert");
        let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
        let (mut name, mut email, mut created) = (String::new(), String::new(), String::new());
        for id in 1..=total as i64 {
            let (first, last) = (noise.pick(&FIRST_NAMES), noise.pick(&LAST_NAMES));
            name.clear();
            let _ = write!(name, "{first} {last}");
            email.clear();
            let _ = write!(
                email,
                "{}.{}{}@example.com",
                first.to_lowercase(),
                last.to_lowercase(),
                id % 1000
            );
            let minutes = noise.next() % (365 * 24 * 60);
            created.clear();
            let _ = write!(
                created,
                "2025-{:02}-{:02}T{:02}:{:02}:00Z",
                1 + minutes / (31 * 24 * 60) % 12,
                1 + minutes / (24 * 60) % 28,
                minutes / 60 % 24,
                minutes % 60
            );
            let age = 18 + (noise.next() % 70) as i64;
            let balance = (noise.next() % 10_000_000) as f64 / 100.0;
            insert
                .execute(params![
                    id,
                    name,
                    email,
                    noise.pick(&CITIES),
                    age,
                    balance,
                    created
                ])
                .expect("a row");
        }
    }
    transaction.commit().expect("the commit");
    path
}

/// A database of [`SCHEMA_TABLES`] tables, each with a key, a foreign key to the one before
/// it, an index on that, a default and a NOT NULL; no rows.
fn write_catalog() -> PathBuf {
    let (path, mut connection) = new_database("catalog.db");
    let transaction = connection.transaction().expect("a transaction");
    let mut script = String::new();
    for index in 0..SCHEMA_TABLES {
        let parent = index.saturating_sub(1);
        let _ = write!(
            script,
            "CREATE TABLE item_{index:03} (id INTEGER PRIMARY KEY, \
             parent_id INTEGER REFERENCES item_{parent:03}(id), name TEXT NOT NULL, \
             amount REAL DEFAULT 0, created_at TEXT);
             CREATE INDEX item_{index:03}_by_parent ON item_{index:03}(parent_id);\n"
        );
    }
    transaction.execute_batch(&script).expect("the tables");
    transaction.commit().expect("the commit");
    path
}

/// The provider serving `path` as `name`, in an engine of its own.
fn engine(name: &str, path: &Path) -> Engine {
    let provider = pollster::block_on(SqlProvider::open(SqlConfig::new([DbConfig::sqlite(
        name, path,
    )])))
    .expect("the provider");
    Engine::builder(CursorKey::new([7; 32]))
        .provider(Arc::new(provider))
        .build()
        .expect("the engine")
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).expect("a valid uri")
}

/// The text of the resource at `uri`.
fn read(engine: &Engine, uri: &ResourceUri) -> Arc<str> {
    let read = pollster::block_on(engine.read(&Principal::anonymous(), uri)).expect("read");
    match &read.contents[0].body {
        Body::Text(text) => Arc::clone(text),
        Body::Bytes(_) => panic!("{uri} is text"),
    }
}

/// A page's JSON, with its rows checked: `rows` of them, the first keyed `first_key`.
fn page_json(text: &str, rows: usize, first_key: usize) -> serde_json::Value {
    let page: serde_json::Value = serde_json::from_str(text).expect("a page is JSON");
    let found = page["rows"].as_array().expect("rows");
    assert_eq!(found.len(), rows, "{page}");
    assert_eq!(found[0]["key"], first_key.to_string(), "{page}");
    page
}

/// A table of `total` rows of people, its engine, and the URIs of its first page, of the page
/// after the middle key, and of the deep page (after the key `total - DEEP_BEHIND`).
struct RowsDb {
    total: usize,
    path: PathBuf,
    engine: Engine,
    first: ResourceUri,
    middle: ResourceUri,
    deep: ResourceUri,
}

/// The URI of the page of 100 of the database `name` after the integer key `after`.
fn page_after(name: &str, after: usize) -> ResourceUri {
    let cursor = encode_query_value(format!("i:{after}").as_bytes());
    uri(&format!(
        "db://{name}/table/people/rows?after={cursor}&limit={PAGE}"
    ))
}

fn rows_db(total: usize) -> &'static RowsDb {
    static DATABASES: Mutex<Vec<(usize, &'static RowsDb)>> = Mutex::new(Vec::new());
    let mut databases = DATABASES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, db)) = databases.iter().find(|(size, _)| *size == total) {
        return db;
    }
    let name = format!("rows-{total}");
    let path = write_people(total);
    let engine = engine(&name, &path);
    let first = uri(&format!("db://{name}/table/people/rows?limit={PAGE}"));
    let (middle, deep) = (
        page_after(&name, total / 2),
        page_after(&name, total - DEEP_BEHIND),
    );
    // Each page holds the rows it should, and says where the next one starts.
    for (page, first_key) in [
        (&first, 1),
        (&middle, total / 2 + 1),
        (&deep, total - DEEP_BEHIND + 1),
    ] {
        let json = page_json(&read(&engine, page), PAGE, first_key);
        assert!(json["next"].is_string(), "{page} has a next page");
    }
    let db: &'static RowsDb = Box::leak(Box::new(RowsDb {
        total,
        path,
        engine,
        first,
        middle,
        deep,
    }));
    databases.push((total, db));
    db
}

/// The schema database, its engine, and a connection that changes its schema.
struct Catalog {
    engine: Engine,
    schema: ResourceUri,
    writer: Mutex<Connection>,
}

impl Catalog {
    /// Changes the schema (a table made and dropped), so that the next read reads it again.
    fn bump(&self) {
        self.writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .execute_batch("CREATE TABLE bump (x); DROP TABLE bump;")
            .expect("a schema change");
    }
}

fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let path = write_catalog();
        let writer = Connection::open(&path).expect("the writer");
        writer
            .pragma_update(None, "synchronous", "OFF")
            .expect("synchronous off");
        let catalog = Catalog {
            engine: engine("catalog", &path),
            schema: uri("db://catalog/schema"),
            writer: Mutex::new(writer),
        };
        let schema: serde_json::Value =
            serde_json::from_str(&read(&catalog.engine, &catalog.schema)).expect("JSON");
        assert!(schema["tables"].as_array().is_some_and(|tables| {
            tables
                .first()
                .is_some_and(|table| table["foreignKeys"].is_array() && table["indexes"].is_array())
        }));
        catalog
    })
}

/// The driver alone on `path`: a read-only connection, as the provider opens them.
fn driver(path: &Path) -> Connection {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .expect("the driver's connection")
}

/// One typed row as a program keeps it.
type Person = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<f64>,
    Option<String>,
);

/// A page of [`PAGE`] rows through the driver alone, after `after` or from the start, every
/// value read into a typed row; `each` sees them.
fn driver_page(connection: &Connection, after: Option<i64>, mut each: impl FnMut(Person)) {
    let mut statement = connection
        .prepare_cached(if after.is_some() {
            DRIVER_AFTER
        } else {
            DRIVER_FIRST
        })
        .expect("the driver's query");
    let mut rows = match after {
        Some(after) => statement.query(params![after, PAGE as i64]),
        None => statement.query(params![PAGE as i64]),
    }
    .expect("the driver's rows");
    let mut count = 0;
    while let Some(row) = rows.next().expect("a row") {
        let person: Person = (
            row.get(0).expect("id"),
            row.get(1).expect("name"),
            row.get(2).expect("email"),
            row.get(3).expect("city"),
            row.get(4).expect("age"),
            row.get(5).expect("balance"),
            row.get(6).expect("created_at"),
        );
        each(person);
        count += 1;
    }
    assert_eq!(count, PAGE);
}

// ---------------------------------------------------------------------------------------------
// Our side, with divan.

/// The first page of 100 (`rows?limit=100`) of a table of N rows.
#[divan::bench(args = SIZES, sample_count = 1000)]
fn first_page_of_100(bencher: Bencher<'_, '_>, total: usize) {
    let db = rows_db(total);
    bencher.bench_local(|| read(&db.engine, black_box(&db.first)));
}

/// The page of 100 after the key N - 200 of a table of N rows.
#[divan::bench(args = SIZES, sample_count = 10)]
fn deep_page_of_100(bencher: Bencher<'_, '_>, total: usize) {
    let db = rows_db(total);
    bencher.bench_local(|| read(&db.engine, black_box(&db.deep)));
}

/// The first page of 100 through the driver alone, every value read.
#[divan::bench(args = [COMPARED], sample_count = 1000)]
fn driver_page_of_100(bencher: Bencher<'_, '_>, total: usize) {
    let connection = driver(&rows_db(total).path);
    bencher.bench_local(|| {
        driver_page(&connection, None, |person| {
            black_box(person);
        });
    });
}

/// The schema of every table, read again after a change of the schema: the introspection.
#[divan::bench(args = [SCHEMA_TABLES], sample_count = 20, sample_size = 1)]
fn schema_first_read(bencher: Bencher<'_, '_>, _tables: usize) {
    let catalog = catalog();
    bencher
        .with_inputs(|| catalog.bump())
        .bench_local_values(|()| read(&catalog.engine, black_box(&catalog.schema)));
}

/// The schema of every table, steady: cached by `schema_version`, rendered each read.
#[divan::bench(args = [SCHEMA_TABLES], sample_count = 200)]
fn schema_steady_read(bencher: Bencher<'_, '_>, _tables: usize) {
    let catalog = catalog();
    bencher.bench_local(|| read(&catalog.engine, black_box(&catalog.schema)));
}

// ---------------------------------------------------------------------------------------------
// By CPU time, interleaved; and the peak RSS of paging, from fresh processes.

/// Interleaved rounds of each measurement; its figures are totals over them.
const ROUNDS: usize = 5;

/// The CPU time of this thread so far.
fn thread_cpu() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
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

/// Prints one `side-by-side` line: per call, each side's CPU and wall time over all its rounds.
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

/// The CPU and wall time of `calls` calls of `work`, on this thread.
fn measure(calls: usize, mut work: impl FnMut(usize)) -> Cost {
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

/// Every measurement, interleaved within each: a round measures each side once.
fn side_by_side() {
    let started = Instant::now();
    eprintln!("sql side by side: writing the databases");
    let tables: Vec<&RowsDb> = SIZES.iter().map(|&total| rows_db(total)).collect();
    let catalog = catalog();
    eprintln!(
        "sql side by side: measuring (databases written in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    side_by_side_page(tables[0]);
    side_by_side_schema(catalog);
    side_by_side_pages(&tables);
    side_by_side_memory(&tables);
    side_by_side_postgres();
    eprintln!(
        "sql side by side: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A page of 100 beside the driver's same query: the first page, and the page after the
/// middle key (the driver's `WHERE id > ?`).
fn side_by_side_page(db: &RowsDb) {
    const CALLS: usize = 500;
    const MIDDLE_CALLS: usize = 100;
    let connection = driver(&db.path);
    // Once, unmeasured: the same rows on both sides, the email masked on ours.
    let middle = db.total / 2;
    for (ours, after) in [(&db.first, None), (&db.middle, Some(middle as i64))] {
        let page = page_json(
            &read(&db.engine, ours),
            PAGE,
            after.map_or(1, |key| key as usize + 1),
        );
        let mut index = 0;
        driver_page(&connection, after, |person| {
            let row = &page["rows"][index];
            assert_eq!(row["key"], person.0.to_string());
            assert_eq!(row["values"][1], person.1);
            let email = row["values"][2].as_str().expect("an email");
            assert!(email.contains("***@") && Some(email) != person.2.as_deref());
            index += 1;
        });
    }
    let (mut ours_first, mut driver_first) = (Vec::new(), Vec::new());
    let (mut ours_middle, mut driver_middle) = (Vec::new(), Vec::new());
    let keep = |person: Person| {
        black_box(person);
    };
    for _ in 0..ROUNDS {
        ours_first.push(measure(CALLS, |_| {
            black_box(read(&db.engine, black_box(&db.first)));
        }));
        driver_first.push(measure(CALLS, |_| driver_page(&connection, None, keep)));
        ours_middle.push(measure(MIDDLE_CALLS, |_| {
            black_box(read(&db.engine, black_box(&db.middle)));
        }));
        driver_middle.push(measure(MIDDLE_CALLS, |_| {
            driver_page(&connection, Some(middle as i64), keep);
        }));
    }
    report(
        "page_of_100",
        &[("rows", db.total), ("reads", ROUNDS * CALLS)],
        &[("ours", ours_first), ("driver", driver_first)],
    );
    report(
        "middle_page_of_100",
        &[
            ("rows", db.total),
            ("after", middle),
            ("reads", ROUNDS * MIDDLE_CALLS),
        ],
        &[("ours", ours_middle), ("driver", driver_middle)],
    );
}

/// The schema of [`SCHEMA_TABLES`] tables: the first read after a schema change (the change
/// unmeasured), and steady reads.
fn side_by_side_schema(catalog: &Catalog) {
    const FIRST_CALLS: usize = 4;
    const STEADY_CALLS: usize = 50;
    let text = read(&catalog.engine, &catalog.schema);
    let schema: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let served = schema["tables"].as_array().map_or(0, Vec::len);
    let cut = usize::from(schema["cut"] == true);
    let (mut first, mut steady) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let mut cost = Cost::default();
        for _ in 0..FIRST_CALLS {
            catalog.bump();
            cost = cost.plus(measure(1, |_| {
                black_box(read(&catalog.engine, black_box(&catalog.schema)));
            }));
        }
        first.push(cost);
        steady.push(measure(STEADY_CALLS, |_| {
            black_box(read(&catalog.engine, black_box(&catalog.schema)));
        }));
    }
    report(
        "schema",
        &[
            ("tables", SCHEMA_TABLES),
            ("rendered", served),
            ("cut", cut),
            ("bytes", text.len()),
            ("first_reads", ROUNDS * FIRST_CALLS),
            ("steady_reads", ROUNDS * STEADY_CALLS),
        ],
        &[("first", first), ("steady", steady)],
    );
}

/// The first page and the deep page of every table, the sizes interleaved: whether a page's
/// CPU time stays flat as the table grows (`ours_first_N`, `ours_deep_N`).
fn side_by_side_pages(tables: &[&RowsDb]) {
    const FIRST_CALLS: usize = 200;
    const DEEP_CALLS: usize = 3;
    let mut costs = vec![(Vec::new(), Vec::new()); tables.len()];
    for _ in 0..ROUNDS {
        for (db, (first, deep)) in tables.iter().zip(&mut costs) {
            first.push(measure(FIRST_CALLS, |_| {
                black_box(read(&db.engine, black_box(&db.first)));
            }));
            deep.push(measure(DEEP_CALLS, |_| {
                black_box(read(&db.engine, black_box(&db.deep)));
            }));
        }
    }
    let mut sides = Vec::new();
    for (db, (first, deep)) in tables.iter().zip(costs) {
        sides.push((format!("ours_first_{}", db.total), first));
        sides.push((format!("ours_deep_{}", db.total), deep));
    }
    let sides: Vec<(&str, Vec<Cost>)> = sides
        .iter()
        .map(|(name, costs)| (name.as_str(), costs.clone()))
        .collect();
    report(
        "pages",
        &[
            ("first_reads", ROUNDS * FIRST_CALLS),
            ("deep_reads", ROUNDS * DEEP_CALLS),
            ("deep_behind", DEEP_BEHIND),
        ],
        &sides,
    );
}

/// A figure of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"))
}

/// Resets the peak RSS (`VmHWM`) to the RSS now.
fn reset_peak() {
    std::fs::write("/proc/self/clear_refs", "5")
        .expect("the peak RSS reset (/proc/self/clear_refs, Linux 4.0+)");
}

/// In a fresh process (see [`PROBE`]): the provider opened on the table, then the peak RSS
/// growth of walking its first [`FIRST_PAGES`] pages by their `next`, then of reading its deep
/// page [`DEEP_READS`] times; one `probe` line on stdout.
fn memory_probe(spec: &str) {
    let (total, path) = spec.split_once(' ').expect("ROWS PATH");
    let total: usize = total.parse().expect("ROWS");
    let name = format!("rows-{total}");
    let engine = engine(&name, Path::new(path));
    // The engine's and the provider's first steps, away from the pages.
    read(&engine, &uri(&format!("db://{name}/table/people/schema")));
    let base = status_kib("VmRSS");
    reset_peak();
    let mut next = Some(format!("db://{name}/table/people/rows?limit={PAGE}"));
    for index in 0..FIRST_PAGES {
        let page = uri(&next.expect("a next page"));
        let json = page_json(&read(&engine, &page), PAGE, index * PAGE + 1);
        next = json["next"].as_str().map(str::to_owned);
    }
    let first = status_kib("VmHWM").saturating_sub(base);
    let before_deep = status_kib("VmRSS");
    reset_peak();
    let deep = page_after(&name, total - DEEP_BEHIND);
    for _ in 0..DEEP_READS {
        page_json(&read(&engine, &deep), PAGE, total - DEEP_BEHIND + 1);
    }
    let deep = status_kib("VmHWM").saturating_sub(before_deep);
    println!("probe base_kib={base} first_kib={first} deep_kib={deep}");
}

/// The peak RSS of paging each table, from [`memory_probe`] in fresh processes (the median of
/// three each): `base_N_kib` (the process with the provider open), `first_N_kib` and
/// `deep_N_kib` (the growth of each phase's peak).
fn side_by_side_memory(tables: &[&RowsDb]) {
    const RUNS: usize = 3;
    let exe = std::env::current_exe().expect("this bench");
    let mut line = format!(
        "side-by-side memory runs={RUNS} first_pages={FIRST_PAGES} deep_reads={DEEP_READS}"
    );
    for db in tables {
        let mut runs: Vec<Vec<(String, f64)>> = Vec::new();
        for _ in 0..RUNS {
            let output = Command::new(&exe)
                .env(PROBE, format!("{} {}", db.total, db.path.display()))
                .output()
                .expect("the memory probe");
            let text = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "the memory probe failed: {text}");
            let line = text
                .lines()
                .find_map(|line| line.strip_prefix("probe "))
                .expect("a probe line");
            runs.push(
                line.split_whitespace()
                    .filter_map(|word| {
                        let (key, value) = word.split_once('=')?;
                        Some((key.to_owned(), value.parse().ok()?))
                    })
                    .collect(),
            );
        }
        for (key, _) in &runs[0] {
            let mut values: Vec<f64> = runs
                .iter()
                .filter_map(|run| run.iter().find(|(name, _)| name == key).map(|(_, v)| *v))
                .collect();
            values.sort_by(f64::total_cmp);
            let median = values[values.len() / 2];
            let (what, unit) = key.split_once('_').expect("KEY_kib");
            let _ = write!(line, " {what}_{}_{unit}={median:.0}", db.total);
        }
    }
    println!("{line}");
}

/// The page of 100 on PostgreSQL beside `tokio-postgres` alone, when `MCP_TEST_POSTGRES` names
/// a server: a database of its own with the same `people` (10,000 rows), made and dropped here.
fn side_by_side_postgres() {
    const CALLS: usize = 300;
    let Ok(url) = std::env::var("MCP_TEST_POSTGRES") else {
        eprintln!("sql side by side: PostgreSQL not measured (MCP_TEST_POSTGRES is not set)");
        return;
    };
    let password = std::env::var("MCP_TEST_POSTGRES_PASSWORD").ok();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let connect = |url: &str| {
        let mut config: tokio_postgres::Config = url.parse().expect("a connection string");
        if let Some(password) = &password {
            config.password(password);
        }
        let (client, connection) = runtime
            .block_on(config.connect(tokio_postgres::NoTls))
            .expect("the test server");
        runtime.spawn(connection);
        client
    };
    let admin = connect(&url);
    let name = format!("mcp_bench_{}", std::process::id());
    for statement in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name}"),
    ] {
        runtime
            .block_on(admin.batch_execute(&statement))
            .expect("a database");
    }
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    let database_url = format!("{base}/{name}");
    let client = connect(&database_url);
    runtime
        .block_on(client.batch_execute(&format!(
            "CREATE TABLE people (id bigint PRIMARY KEY, name text NOT NULL, email text, \
             city text, age bigint, balance float8, created_at text);
             INSERT INTO people SELECT g, 'Person ' || g, 'person.' || g || '@example.com', \
             (ARRAY['Lisbon', 'Lagos', 'Osaka', 'Pune'])[1 + g % 4], 18 + g % 70, \
             (g * 7919 % 10000000) / 100.0, '2025-01-01T00:00:00Z' \
             FROM generate_series(1, {COMPARED}) g;
             ANALYZE people;"
        )))
        .expect("the rows");
    let provider = runtime
        .block_on(SqlProvider::open(SqlConfig::new([DbConfig::postgres(
            "pg",
            &database_url,
            password.clone(),
        )])))
        .expect("the provider");
    let engine = Engine::builder(CursorKey::new([7; 32]))
        .provider(Arc::new(provider))
        .build()
        .expect("the engine");
    let page = uri(&format!("db://pg/table/people/rows?limit={PAGE}"));
    let read_page = || {
        let read = runtime
            .block_on(engine.read(&Principal::anonymous(), &page))
            .expect("read");
        match &read.contents[0].body {
            Body::Text(text) => Arc::clone(text),
            Body::Bytes(_) => panic!("a page is text"),
        }
    };
    let statement = runtime
        .block_on(client.prepare(
            "SELECT id, name, email, city, age, balance, created_at FROM people \
             ORDER BY id LIMIT $1",
        ))
        .expect("the driver's query");
    let driver_page = |mut each: Box<dyn FnMut(Person) + '_>| {
        let rows = runtime
            .block_on(client.query(&statement, &[&(PAGE as i64)]))
            .expect("the driver's rows");
        assert_eq!(rows.len(), PAGE);
        for row in &rows {
            each((
                row.get(0),
                row.get(1),
                row.get(2),
                row.get(3),
                row.get(4),
                row.get(5),
                row.get(6),
            ));
        }
    };
    // Once, unmeasured: the same rows on both sides, the email masked on ours.
    let ours = page_json(&read_page(), PAGE, 1);
    let mut index = 0;
    driver_page(Box::new(|person: Person| {
        let row = &ours["rows"][index];
        assert_eq!(row["key"], person.0.to_string());
        assert_eq!(row["values"][1], person.1);
        let email = row["values"][2].as_str().expect("an email");
        assert!(email.contains("***@") && Some(email) != person.2.as_deref());
        index += 1;
    }));
    let (mut ours, mut driver) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours.push(measure(CALLS, |_| {
            black_box(read_page());
        }));
        driver.push(measure(CALLS, |_| {
            driver_page(Box::new(|person| {
                black_box(person);
            }));
        }));
    }
    report(
        "postgres_page_of_100",
        &[("rows", COMPARED), ("reads", ROUNDS * CALLS)],
        &[("ours", ours), ("driver", driver)],
    );
    drop(engine);
    drop(client);
    let _ = runtime
        .block_on(admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")));
}
