//! The in-process list page of `cargo xtask bench`: one `resources/list` page of 100 out of
//! 1,000, 100,000 and 1,000,000 resources, straight on the core's engine, to show whether the
//! page cost stays flat as the total grows.
//!
//! **Layer:** tooling, part of the bench. It runs the core's own divan bench
//! (`cargo bench -p mcp-resources-core --bench pagination`, group `list_page_of_100`: an
//! in-memory provider of N resources, the page starting in the middle of the list) and reads
//! divan's table from its output; it never links the core itself.

use std::fmt::Write as _;
use std::process::Command;

use super::plan::Plan;
use super::server::Programs;
use super::stats::ratio;

/// The label of the subject, for `--subject`.
pub(super) const SUBJECT: &str = "mcp-resources-core (in-process)";
/// The divan group measured.
const GROUP: &str = "list_page_of_100";

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

/// Runs the divan bench and returns its rows for [`GROUP`].
pub(super) fn measure(programs: &Programs, plan: &Plan) -> Result<Vec<Page>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let samples = plan.page_samples.to_string();
    let log = programs.logs.join("pages-cargo.log");
    let log_file = std::fs::File::create(&log)
        .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
    eprintln!("bench: building and running the core's divan bench (release)");
    let output = Command::new(cargo)
        .current_dir(&programs.root)
        .args([
            "bench",
            "--package",
            "mcp-resources-core",
            "--bench",
            "pagination",
            "--",
            GROUP,
            "--skip",
            "policy",
            "--sample-count",
            &samples,
        ])
        .stderr(log_file)
        .output()
        .map_err(|error| format!("cannot run cargo bench: {error}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "cargo bench failed ({}); see {}\n{text}",
            output.status,
            log.display()
        ));
    }
    let pages = parse(&text);
    if pages.len() < 3 {
        return Err(format!(
            "divan's output holds {} rows of {GROUP}, wanted 3:\n{text}",
            pages.len()
        ));
    }
    for page in &pages {
        eprintln!(
            "  {:>9} resources: median {:>8.2} µs per page",
            page.total, page.median_us
        );
    }
    Ok(pages)
}

/// The rows of [`GROUP`] in divan's table: each `├─ N` or `╰─ N` line below the group's own
/// line, its columns split at `│` after the tree on the left (fastest is at the end of the first), and the allocation
/// count from the line after a following `alloc:` line.
fn parse(text: &str) -> Vec<Page> {
    let mut pages: Vec<Page> = Vec::new();
    let mut in_group = false;
    let mut counting_allocations = false;
    for line in text.lines() {
        // The tree drawn on the left, then columns split at `│`.
        let body = line.trim_start_matches(|c: char| " ├╰─│".contains(c));
        let columns: Vec<&str> = body.split('│').collect();
        let first = columns.first().copied().unwrap_or("");
        let name = first.split_whitespace().next().unwrap_or("");
        if line.starts_with("├─") || line.starts_with("╰─") {
            in_group = name == GROUP;
            counting_allocations = false;
            continue;
        }
        if !in_group {
            continue;
        }
        if name == "alloc:" {
            counting_allocations = true;
            continue;
        }
        if counting_allocations {
            counting_allocations = false;
            if let (Some(page), Some(median)) = (pages.last_mut(), columns.get(2)) {
                page.allocations = median.trim().parse().ok();
            }
            continue;
        }
        let Ok(total) = name.parse::<usize>() else {
            continue;
        };
        let fastest = first
            .split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ");
        let (Some(fastest), Some(median), Some(mean)) = (
            micros(&fastest),
            columns.get(2).and_then(|column| micros(column)),
            columns.get(3).and_then(|column| micros(column)),
        ) else {
            continue;
        };
        pages.push(Page {
            total,
            fastest_us: fastest,
            median_us: median,
            mean_us: mean,
            allocations: None,
        });
    }
    pages
}

/// A divan duration such as `12.5 µs` in microseconds.
fn micros(text: &str) -> Option<f64> {
    let mut parts = text.split_whitespace();
    let value: f64 = parts.next()?.parse().ok()?;
    let scale = match parts.next()? {
        "ps" => 1e-6,
        "ns" => 1e-3,
        "µs" | "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => return None,
    };
    Some(value * scale)
}

/// `1000000` as `1,000,000`.
fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// The section of `BENCHMARKS.md`.
pub(super) fn render(out: &mut String, pages: &[Page]) {
    let _ = writeln!(
        out,
        "## One resources/list page of 100 out of 1,000 / 100,000 / 1,000,000 resources, in-process\n\n\
         The core's divan bench (`cargo bench -p mcp-resources-core --bench pagination -- {GROUP}`): \
         an engine over one in-memory provider of N resources (metadata only), the page taken from \
         the middle of the list with a signed cursor; no transport, no JSON. The target is a flat cost.\n\n\
         | resources | fastest µs | median µs | mean µs | allocations per page | median ÷ median at 1,000 |\n\
         |---:|---:|---:|---:|---:|---:|"
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
        let pages = parse(text);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].total, 1000);
        assert_eq!(pages[0].median_us, 10.8);
        assert_eq!(pages[0].fastest_us, 10.2);
        assert_eq!(pages[0].allocations, Some(13.0));
        assert_eq!(pages[1].total, 1_000_000);
        assert_eq!(pages[1].fastest_us, 1500.0);
        assert!((pages[1].median_us - 0.9).abs() < 1e-9);
        assert_eq!(pages[1].allocations, None);
        assert_eq!(micros("3 furlongs"), None);
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(999), "999");
    }
}
