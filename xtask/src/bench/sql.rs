//! The SQL provider's section: a page of 100 rows beside the same query through `rusqlite`
//! alone, the schema of 500 tables (first read and steady), and pages of tables of 10,000 /
//! 100,000 / 1,000,000 rows, from the start and deep in the table, by CPU time, allocations and
//! peak RSS.
//!
//! **Layer:** tooling, inside [`bench`](super). It runs the provider's own divan bench (`cargo
//! bench -p mcp-resources-sql --bench sql`), which writes its SQLite databases and prints, before
//! divan's table, one `side-by-side NAME key=value…` line per measurement; this module reads both
//! and renders them. It never links the provider, never opens a database and never writes one.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::pages::{self, BenchFigures as SqlFigures};
use super::server::Programs;
use super::stats::{ratio, thousands};

/// The bench's divan groups, and the rows each must have.
const GROUPS: [(&str, usize); 5] = [
    ("first_page_of_100", 3),
    ("deep_page_of_100", 3),
    ("driver_page_of_100", 1),
    ("schema_first_read", 1),
    ("schema_steady_read", 1),
];

/// The measurements the bench prints: two beside the driver, the schema, the pages of each
/// table (`ours_first_N_cpu_us`, `ours_deep_N_cpu_us`) and their peak RSS (`first_N_kib`, …).
const SIDE_BY_SIDE: [&str; 5] = [
    "page_of_100",
    "middle_page_of_100",
    "schema",
    "pages",
    "memory",
];

impl SqlFigures {
    /// The table sizes N of a measurement's keys `{prefix}N{suffix}`, in numeric order.
    fn sizes(&self, measurement: &str, prefix: &str, suffix: &str) -> Vec<usize> {
        let mut sizes: Vec<usize> = self
            .side_by_side
            .get(measurement)
            .into_iter()
            .flat_map(BTreeMap::keys)
            .filter_map(|key| key.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok())
            .collect();
        sizes.sort_unstable();
        sizes
    }
}

/// Runs the SQL bench and reads its output.
pub(super) fn measure(programs: &Programs) -> Result<SqlFigures, String> {
    SqlFigures::measure(programs, "mcp-resources-sql", "sql", &GROUPS, &SIDE_BY_SIDE)
}

/// A count as printed, `?` when the bench did not print it.
fn count(value: f64) -> String {
    if value.is_finite() {
        thousands(value as usize)
    } else {
        "?".to_owned()
    }
}

/// The SQL provider's section of the report; `measured` says by what command, when and where.
pub(super) fn render(out: &mut String, figures: &SqlFigures, measured: &str) {
    let rows = figures.figure("page_of_100", "rows");
    let _ = writeln!(
        out,
        "## The SQL provider, in-process, beside rusqlite alone\n\n\
         {measured}\n\n\
         The SQL provider's divan bench (`cargo bench -p mcp-resources-sql --bench sql`), on \
         SQLite databases it writes (each in one transaction through one prepared statement): a \
         table `people` (an `INTEGER PRIMARY KEY` `id`, then `name`, `email`, `city`, `age`, \
         `balance` and `created_at`: texts, integers and a real; `email` masked by the default \
         rules) of 10,000 / 100,000 / 1,000,000 rows, and a database of 500 tables (five \
         columns, a foreign key and an index each, no rows). Ours is the engine over the \
         provider, called without a tokio runtime so that the provider's blocking work runs \
         inline: no transport, no JSON-RPC. The driver is `rusqlite` alone on a read-only \
         connection: the same columns in key order with a `LIMIT`, every value read into a typed \
         row (`i64`, `String`, `f64`).\n\n\
         Side by side, by CPU time per page (the bench thread's CPU clock), totals over \
         interleaved rounds; wall time per page as well. The target: our CPU per page within \
         1.5× of the driver's.\n\n\
         | what | ours CPU µs | ours wall µs | the driver alone | driver CPU µs | driver wall µs | ours ÷ driver (CPU) |\n\
         |---|---:|---:|---|---:|---:|---:|"
    );
    let compared = [
        (
            format!(
                "the first page of 100 rows (`db://NAME/table/people/rows?limit=100`), {} rows",
                count(rows)
            ),
            "page_of_100",
            "`SELECT … ORDER BY id LIMIT 100`",
        ),
        (
            format!(
                "the page of 100 after the middle key (`rows?after=…&limit=100`, after {}), {} \
                 rows",
                count(figures.figure("middle_page_of_100", "after")),
                count(figures.figure("middle_page_of_100", "rows"))
            ),
            "middle_page_of_100",
            "`SELECT … WHERE id > ?1 ORDER BY id LIMIT 100`",
        ),
    ];
    let postgres = figures.side_by_side.contains_key("postgres_page_of_100");
    let compared = compared.into_iter().chain(postgres.then(|| {
        (
            format!(
                "PostgreSQL: the first page of 100 rows, {} rows (a `bigint` key; the client's \
                 CPU only)",
                count(figures.figure("postgres_page_of_100", "rows"))
            ),
            "postgres_page_of_100",
            "`tokio-postgres`: `SELECT … ORDER BY id LIMIT $1`, prepared",
        )
    }));
    for (what, measurement, driver) in compared {
        let ours_cpu = figures.figure(measurement, "ours_cpu_us");
        let driver_cpu = figures.figure(measurement, "driver_cpu_us");
        let _ = writeln!(
            out,
            "| {what} | {ours_cpu:.1} | {:.1} | {driver} | {driver_cpu:.1} | {:.1} | {} |",
            figures.figure(measurement, "ours_wall_us"),
            figures.figure(measurement, "driver_wall_us"),
            ratio(ours_cpu, driver_cpu),
        );
    }
    if postgres {
        let _ = writeln!(
            out,
            "\nOn PostgreSQL (the server `.ci/postgres` starts, on loopback), both sides run on one \
             current-thread runtime, so the bench thread's CPU clock holds the client's whole \
             work; the server's CPU is not counted on either side. Ours runs each page in a \
             `READ ONLY` transaction, rolled back (two more round trips), and casts every value \
             in the query (`left(col::text, N)`) so that the server cuts long values."
        );
    } else {
        let _ = writeln!(
            out,
            "\nPostgreSQL was not measured: `MCP_TEST_POSTGRES` was not set (`eval \"$(.ci/postgres)\"` \
             starts a server)."
        );
    }
    out.push('\n');

    schema_table(out, figures);
    cpu_pages_table(out, figures);
    memory_table(out, figures);

    let _ = writeln!(
        out,
        "divan's figures (wall time of the bench thread; the Rust heap's allocations counted, not \
         SQLite's). The first page of 100 by the table's size:\n"
    );
    pages::table(
        out,
        "rows in the table",
        "10,000",
        figures.rows("first_page_of_100"),
    );
    let _ = writeln!(
        out,
        "The deep page of 100 (after the key N − {}) by the table's size:\n",
        count(figures.figure("pages", "deep_behind"))
    );
    pages::table(
        out,
        "rows in the table",
        "10,000",
        figures.rows("deep_page_of_100"),
    );
    let _ = writeln!(out, "The driver's first page of 100, alone:\n");
    pages::table(
        out,
        "rows in the table",
        "10,000",
        figures.rows("driver_page_of_100"),
    );
    let _ = writeln!(
        out,
        "The schema of every table, the first read after a schema change (the change not \
         timed), then steady:\n"
    );
    pages::table(out, "tables", "500", figures.rows("schema_first_read"));
    pages::table(out, "tables", "500", figures.rows("schema_steady_read"));
}

/// The schema's first and steady reads by CPU time.
fn schema_table(out: &mut String, figures: &SqlFigures) {
    let figure = |key: &str| figures.figure("schema", key);
    let cut = if figure("cut") > 0.0 {
        format!(
            ", cut to {} tables by the answer's budget",
            count(figure("rendered"))
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "The schema of {} tables (`db://NAME/schema`, {} bytes of JSON{cut}), by CPU time per \
         read, the two kinds of read interleaved in rounds:\n\n\
         | read | reads | CPU µs | wall µs |\n|---|---:|---:|---:|",
        count(figure("tables")),
        count(figure("bytes")),
    );
    let reads = [
        (
            "the first after a schema change (a table made and dropped by another connection, \
             not timed): every table introspected, then rendered",
            "first",
        ),
        (
            "steady: the schema cached by `schema_version`, rendered again",
            "steady",
        ),
    ];
    for (what, side) in reads {
        let _ = writeln!(
            out,
            "| {what} | {} | {:.1} | {:.1} |",
            count(figure(&format!("{side}_reads"))),
            figure(&format!("{side}_cpu_us")),
            figure(&format!("{side}_wall_us")),
        );
    }
    out.push('\n');
}

/// The first and the deep page's CPU time by the table's size, from the `ours_first_N_cpu_us`
/// and `ours_deep_N_cpu_us` figures.
fn cpu_pages_table(out: &mut String, figures: &SqlFigures) {
    let figure = |key: String| figures.figure("pages", &key);
    let _ = writeln!(
        out,
        "Pages of 100 by the table's size, by CPU time, the tables interleaved in rounds ({} \
         first pages and {} deep pages each; the deep page is the one after the key N − {}). The \
         target is a flat cost:\n\n\
         | rows in the table | first page CPU µs | deep page CPU µs | deep ÷ first | first ÷ first \
         at the smallest | deep ÷ deep at the smallest |\n|---:|---:|---:|---:|---:|---:|",
        count(figure("first_reads".to_owned())),
        count(figure("deep_reads".to_owned())),
        count(figure("deep_behind".to_owned())),
    );
    let first = |size: usize| figure(format!("ours_first_{size}_cpu_us"));
    let deep = |size: usize| figure(format!("ours_deep_{size}_cpu_us"));
    let sizes = figures.sizes("pages", "ours_first_", "_cpu_us");
    let (first_base, deep_base) = sizes
        .first()
        .map_or((f64::NAN, f64::NAN), |&size| (first(size), deep(size)));
    for size in sizes {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.1} | {} | {} | {} |",
            thousands(size),
            first(size),
            deep(size),
            ratio(deep(size), first(size)),
            ratio(first(size), first_base),
            ratio(deep(size), deep_base),
        );
    }
    out.push('\n');
}

/// The peak RSS of paging by the table's size, from the `base_N_kib`, `first_N_kib` and
/// `deep_N_kib` figures.
fn memory_table(out: &mut String, figures: &SqlFigures) {
    let figure = |key: String| figures.figure("memory", &key);
    let _ = writeln!(
        out,
        "Peak RSS of paging, each table in a fresh process of the bench (the median of {} runs): \
         the process's RSS once the provider is open, then how far its peak (`VmHWM`, reset \
         through `/proc/self/clear_refs` before each phase) rises over the first {} pages, \
         walked by their `next`, and over {} reads of the deep page. SQLite's page cache (by \
         default at most 2 MiB per connection) is in the RSS, not in divan's allocations. The \
         target is a flat growth:\n\n\
         | rows in the table | RSS with the provider open, MiB | peak growth over the first \
         pages, KiB | peak growth over the deep page, KiB |\n|---:|---:|---:|---:|",
        count(figure("runs".to_owned())),
        count(figure("first_pages".to_owned())),
        count(figure("deep_reads".to_owned())),
    );
    for size in figures.sizes("memory", "base_", "_kib") {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.0} | {:.0} |",
            thousands(size),
            figure(format!("base_{size}_kib")) / 1024.0,
            figure(format!("first_{size}_kib")),
            figure(format!("deep_{size}_kib")),
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_by_side_lines_and_divan_rows_are_read_and_rendered() {
        let text = "\
side-by-side page_of_100 rows=10000 reads=2500 ours_cpu_us=300.000 ours_wall_us=301.000 driver_cpu_us=40.000 driver_wall_us=41.000
side-by-side schema tables=500 rendered=400 cut=1 bytes=262000 first_reads=20 steady_reads=250 first_cpu_us=30000.000 first_wall_us=30001.000 steady_cpu_us=8000.000 steady_wall_us=8001.000
side-by-side pages first_reads=1000 deep_reads=15 deep_behind=200 ours_first_100000_cpu_us=330.000 ours_first_100000_wall_us=331.000 ours_deep_100000_cpu_us=5000.000 ours_deep_100000_wall_us=5001.000 ours_first_10000_cpu_us=300.000 ours_first_10000_wall_us=301.000 ours_deep_10000_cpu_us=500.000 ours_deep_10000_wall_us=501.000
side-by-side memory runs=3 first_pages=10 deep_reads=3 base_10000_kib=6144 first_10000_kib=380 deep_10000_kib=1600 base_1000000_kib=6656 first_1000000_kib=360 deep_1000000_kib=3900
Timer precision: 20 ns
sql                    fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ deep_page_of_100                  │               │               │               │         │
│  ├─ 10000            1 ms          │ 2 ms          │ 1.2 ms        │ 1.3 ms        │ 10      │ 10
│  ╰─ 1000000          70 ms         │ 90 ms         │ 80 ms         │ 82 ms         │ 10      │ 10
╰─ schema_steady_read                │               │               │               │         │
   ╰─ 500              5 ms          │ 11 ms         │ 5.7 ms        │ 5.9 ms        │ 200     │ 200
";
        let figures = SqlFigures::parse(text, &GROUPS);
        assert_eq!(figures.figure("page_of_100", "driver_cpu_us"), 40.0);
        assert!(figures.figure("middle_page_of_100", "ours_cpu_us").is_nan());
        assert_eq!(figures.rows("deep_page_of_100").len(), 2);
        assert_eq!(figures.rows("schema_steady_read")[0].median_us, 5700.0);
        assert!(figures.rows("first_page_of_100").is_empty());
        // Sizes in numeric order, whatever the order of their keys.
        assert_eq!(
            figures.sizes("pages", "ours_first_", "_cpu_us"),
            [10_000, 100_000]
        );

        let mut out = String::new();
        render(
            &mut out,
            &figures,
            "Measured by `cargo xtask bench --only sql`.",
        );
        assert!(
            out.contains("Measured by `cargo xtask bench --only sql`."),
            "{out}"
        );
        assert!(
            out.contains(
                "| 300.0 | 301.0 | `SELECT … ORDER BY id LIMIT 100` | 40.0 | 41.0 | 7.50 |"
            ),
            "{out}"
        );
        // A measurement the bench did not print has no ratio.
        assert!(out.contains("| NaN | NaN | – |"), "{out}");
        assert!(
            out.contains("262,000 bytes of JSON, cut to 400 tables"),
            "{out}"
        );
        assert!(out.contains("| 20 | 30000.0 | 30001.0 |"), "{out}");
        assert!(
            out.contains(
                "| 10,000 | 300.0 | 500.0 | 1.67 | 1.00 | 1.00 |\n\
                 | 100,000 | 330.0 | 5000.0 | 15.15 | 1.10 | 10.00 |"
            ),
            "{out}"
        );
        assert!(
            out.contains("| 10,000 | 6.0 | 380 | 1600 |\n| 1,000,000 | 6.5 | 360 | 3900 |"),
            "{out}"
        );
        assert!(out.contains("| 1,000,000 | 70000.00 | 80000.00 |"), "{out}");
    }
}
