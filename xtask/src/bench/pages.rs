//! The in-process pages: one `resources/list` page of 100 out of 1,000, 100,000 and 1,000,000
//! resources straight on the core's engine, and one directory page of 100 children in trees of
//! 1,000, 10,000 and 100,000 files through the filesystem provider, to show whether their cost
//! stays flat.
//!
//! **Layer:** tooling, inside [`bench`](super). It runs the crates' own divan benches (`cargo
//! bench -p mcp-resources-core --bench pagination`, group [`GROUP`]; `cargo bench -p
//! mcp-resources-fs --bench directory`, group [`DIRECTORY_GROUP`]) and reads divan's tables from
//! their output, as it does for the providers' benches ([`git`](super::git),
//! [`sql`](super::sql)), with the `side-by-side` lines those print; it never links the crates
//! itself.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use super::plan::Plan;
use super::server::Programs;
use super::stats::{ratio, thousands};

/// The divan group measured: an in-memory provider of N resources, the page from the middle.
const GROUP: &str = "list_page_of_100";

/// The divan group of the directory page: the second page of a 200-child directory in a tree
/// of N files on disk.
const DIRECTORY_GROUP: &str = "directory_page_of_100";

/// What a provider's own bench printed: its side-by-side measurements by name (each a map of
/// figures by key, such as `ours_cpu_us`) and divan's rows by group.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct BenchFigures {
    pub(super) side_by_side: BTreeMap<String, BTreeMap<String, f64>>,
    pub(super) groups: BTreeMap<String, Vec<Page>>,
}

impl BenchFigures {
    /// One figure of a measurement, NaN when the bench did not print it.
    pub(super) fn figure(&self, measurement: &str, key: &str) -> f64 {
        self.side_by_side
            .get(measurement)
            .and_then(|figures| figures.get(key))
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// divan's rows of `group`.
    pub(super) fn rows(&self, group: &str) -> &[Page] {
        self.groups.get(group).map_or(&[], Vec::as_slice)
    }
}

impl BenchFigures {
    /// The `side-by-side` lines of a provider bench's output, and divan's rows of each of
    /// `groups`.
    pub(super) fn parse(text: &str, groups: &[(&str, usize)]) -> BenchFigures {
        BenchFigures {
            side_by_side: side_by_side(text),
            groups: groups
                .iter()
                .map(|(group, _)| ((*group).to_owned(), parse(text, group)))
                .collect(),
        }
    }

    /// Runs `bench` of `package` and reads its output, which must hold each of `groups` with
    /// its number of rows and a `side-by-side` line of each of `measurements`.
    pub(super) fn measure(
        programs: &Programs,
        package: &str,
        bench: &str,
        groups: &[(&str, usize)],
        measurements: &[&str],
    ) -> Result<BenchFigures, String> {
        let text = run_bench(programs, package, bench, &[])?;
        let figures = BenchFigures::parse(&text, groups);
        for (group, rows) in groups {
            let found = figures.rows(group).len();
            if found != *rows {
                return Err(format!(
                    "divan's output holds {found} rows of {group}, wanted {rows}:\n{text}"
                ));
            }
        }
        for measurement in measurements {
            if !figures.side_by_side.contains_key(*measurement) {
                return Err(format!(
                    "the bench printed no `side-by-side {measurement}` line:\n{text}"
                ));
            }
        }
        Ok(figures)
    }
}

/// One row of divan's table: the page cost at one total.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Page {
    pub(super) total: usize,
    pub(super) fastest_us: f64,
    pub(super) median_us: f64,
    pub(super) mean_us: f64,
    /// Allocations per page (median), when divan counted them.
    pub(super) allocations: Option<f64>,
}

/// Runs both divan benches and returns their rows: the list page's, then the directory page's.
pub(super) fn measure(programs: &Programs, plan: &Plan) -> Result<(Vec<Page>, Vec<Page>), String> {
    let list = measure_group(programs, plan, "mcp-resources-core", "pagination", GROUP)?;
    let directory = measure_group(
        programs,
        plan,
        "mcp-resources-fs",
        "directory",
        DIRECTORY_GROUP,
    )?;
    Ok((list, directory))
}

/// Runs one divan bench and returns its rows for `group`.
fn measure_group(
    programs: &Programs,
    plan: &Plan,
    package: &str,
    bench: &str,
    group: &str,
) -> Result<Vec<Page>, String> {
    let samples = plan.page_samples.to_string();
    let args = [group, "--skip", "policy", "--sample-count", &samples];
    let text = run_bench(programs, package, bench, &args)?;
    let pages = parse(&text, group);
    if pages.len() < 3 {
        return Err(format!(
            "divan's output holds {} rows of {group}, wanted 3:\n{text}",
            pages.len()
        ));
    }
    Ok(pages)
}

/// Runs `cargo bench -p package --bench bench -- args` and returns what it printed on stdout;
/// cargo's own output goes to a log beside the workload.
pub(super) fn run_bench(
    programs: &Programs,
    package: &str,
    bench: &str,
    args: &[&str],
) -> Result<String, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let log = programs.logs.join(format!("pages-{bench}-cargo.log"));
    let log_file = std::fs::File::create(&log)
        .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
    let output = Command::new(cargo)
        .current_dir(&programs.root)
        .args(["bench", "-p", package, "--bench", bench, "--"])
        .args(args)
        .stderr(log_file)
        .output()
        .map_err(|error| format!("cannot run cargo bench: {error}"))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        let status = output.status;
        return Err(format!(
            "cargo bench failed ({status}); see {}\n{text}",
            log.display()
        ));
    }
    Ok(text)
}

/// The `side-by-side NAME key=value…` lines a provider's bench prints before divan's table:
/// each measurement's figures by key (a value that is no number left out).
pub(super) fn side_by_side(text: &str) -> BTreeMap<String, BTreeMap<String, f64>> {
    let mut measurements = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("side-by-side ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(name) = words.next() else { continue };
        let values = words
            .filter_map(|word| {
                let (key, value) = word.split_once('=')?;
                Some((key.to_owned(), value.parse().ok()?))
            })
            .collect();
        measurements.insert(name.to_owned(), values);
    }
    measurements
}

/// The rows of `group` in divan's table: each `├─ N` or `╰─ N` line below the group's own,
/// its columns split at `│` (fastest at the end of the first), and the allocation count from
/// the line after a following `alloc:` line.
pub(super) fn parse(text: &str, group: &str) -> Vec<Page> {
    let mut pages: Vec<Page> = Vec::new();
    let mut in_group = false;
    let mut counting_allocations = false;
    for line in text.lines() {
        let body = line.trim_start_matches(|c: char| " ├╰─│".contains(c));
        let columns: Vec<&str> = body.split('│').collect();
        let mut first = columns[0].split_whitespace();
        let name = first.next().unwrap_or("");
        if line.starts_with("├─") || line.starts_with("╰─") {
            in_group = name == group;
        } else if in_group && name == "alloc:" {
            counting_allocations = true;
            continue;
        } else if in_group && counting_allocations {
            if let (Some(page), Some(median)) = (pages.last_mut(), columns.get(2)) {
                page.allocations = median.trim().parse().ok();
            }
        } else if in_group {
            let fastest = micros(&first.collect::<Vec<_>>().join(" "));
            let median = columns.get(2).and_then(|column| micros(column));
            let mean = columns.get(3).and_then(|column| micros(column));
            if let (Ok(total), Some(fastest_us), Some(median_us), Some(mean_us)) =
                (name.parse(), fastest, median, mean)
            {
                let allocations = None;
                pages.push(Page {
                    total,
                    fastest_us,
                    median_us,
                    mean_us,
                    allocations,
                });
            }
        }
        counting_allocations = false;
    }
    pages
}

/// A divan duration such as `12.5 µs` in microseconds.
fn micros(text: &str) -> Option<f64> {
    let (value, unit) = text.trim().split_once(' ')?;
    let scale = match unit {
        "ps" => 1e-6,
        "ns" => 1e-3,
        "µs" | "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => return None,
    };
    Some(value.parse::<f64>().ok()? * scale)
}

/// The list page's and the directory page's sections of the report.
pub(super) fn render(out: &mut String, list: &[Page], directory: &[Page]) {
    let _ = writeln!(
        out,
        "## One resources/list page of 100 out of 1,000 / 100,000 / 1,000,000 resources, in-process\n\n\
         The core's divan bench (`cargo bench -p mcp-resources-core --bench pagination -- {GROUP}`): \
         an engine over an in-memory provider of N resources, the page from the middle of the list \
         with a signed cursor; no transport, no JSON. The target is a flat cost.\n"
    );
    table(out, "resources", "1,000", list);
    if !directory.is_empty() {
        let _ = writeln!(
            out,
            "## One resources/directory/read page of 100 children in trees of 1,000 / 10,000 / \
             100,000 files, in-process\n\n\
             The filesystem provider's divan bench (`cargo bench -p mcp-resources-fs --bench \
             directory -- {DIRECTORY_GROUP}`): the engine over the provider of a tree on disk, the \
             second page of a 200-child directory with a signed cursor; no transport, no JSON. The \
             target is a flat cost.\n"
        );
        table(out, "files in the tree", "1,000", directory);
    }
}

/// One table of pages, by their total (the first row's is `first`, what the last column divides
/// by).
pub(super) fn table(out: &mut String, total: &str, first: &str, pages: &[Page]) {
    let _ = writeln!(
        out,
        "| {total} | fastest µs | median µs | mean µs | allocations per page | median ÷ median at \
         {first} |\n|---:|---:|---:|---:|---:|---:|"
    );
    let base = pages.first().map_or(f64::NAN, |page| page.median_us);
    for page in pages {
        let _ = writeln!(
            out,
            "| {} | {:.2} | {:.2} | {:.2} | {} | {} |",
            thousands(page.total),
            page.fastest_us,
            page.median_us,
            page.mean_us,
            page.allocations
                .map_or_else(|| "–".to_owned(), |count| format!("{count:.0}")),
            ratio(page.median_us, base)
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divan_rows_are_read() {
        let text = "\
Timer precision: 20 ns
pagination                   fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ list_page_of_100                        │               │               │               │         │
│  ├─ 1000                   10.2 µs       │ 25.1 µs       │ 10.8 µs       │ 11.2 µs       │ 200     │ 200
│  │                         max alloc:    │               │               │               │         │
│  │                           308         │ 308           │ 308           │ 308           │         │
│  │                           70.51 KB    │ 70.51 KB      │ 70.51 KB      │ 70.51 KB      │         │
│  │                         alloc:        │               │               │               │         │
│  │                           12          │ 12            │ 13            │ 12            │         │
│  │                           1.2 KB      │ 1.2 KB        │ 1.2 KB        │ 1.2 KB        │         │
│  ╰─ 1000000                1.5 ms        │ 2 ms          │ 900 ns        │ 1.1 µs        │ 200     │ 200
╰─ other                                   │               │               │               │         │
   ╰─ 1000                   1 µs          │ 1 µs          │ 1 µs          │ 1 µs          │ 200     │ 200
";
        let pages = parse(text, GROUP);
        assert_eq!(pages.len(), 2);
        assert_eq!(
            (pages[0].total, pages[0].fastest_us, pages[0].median_us),
            (1000, 10.2, 10.8)
        );
        assert_eq!(pages[0].allocations, Some(13.0));
        assert_eq!((pages[1].total, pages[1].fastest_us), (1_000_000, 1500.0));
        assert!((pages[1].median_us - 0.9).abs() < 1e-9);
        assert_eq!(pages[1].allocations, None);
        assert_eq!(micros("3 furlongs"), None);
        let mut out = String::new();
        render(&mut out, &pages, &pages);
        assert!(out.contains("| files in the tree |"), "{out}");
        assert!(
            out.contains("| 1,000,000 | 1500.00 | 0.90 | 1.10 | – | 0.08 |"),
            "{out}"
        );
    }
}
