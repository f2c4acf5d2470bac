//! The content rules' section: a 1 MiB source-like text read whole through the engine and the
//! filesystem provider and encoded as a JSON string, with the built-in credential rules off and
//! on (the budget: on costs at most 1.5× off).
//!
//! **Layer:** tooling, inside [`bench`](super). It runs the provider's divan bench (`cargo bench
//! -p mcp-resources-fs --bench read`, whose argument is 0 for no rules, 1 for the built-in
//! ones) and renders its two rows. It never links the provider.

use std::fmt::Write as _;

use super::pages::BenchFigures;
use super::server::Programs;
use super::stats::ratio;

/// The bench's divan group and its rows (rules off, then on).
const GROUPS: [(&str, usize); 1] = [("read_1_mib", 2)];

/// Runs the bench and reads its output.
pub(super) fn measure(programs: &Programs) -> Result<BenchFigures, String> {
    BenchFigures::measure(programs, "mcp-resources-fs", "read", &GROUPS, &[])
}

/// The content rules' section of the report; `measured` says by what command, when and where.
pub(super) fn render(out: &mut String, figures: &BenchFigures, measured: &str) {
    let rows = figures.rows("read_1_mib");
    let row = |rule_sets: usize| rows.iter().find(|row| row.total == rule_sets);
    let _ = writeln!(
        out,
        "## Content rules on a 1 MiB text read, in-process\n\n\
         {measured}\n\n\
         The filesystem provider's divan bench (`cargo bench -p mcp-resources-fs --bench read`): \
         a 1 MiB source-like file (a secret assignment every thousand lines) read whole through \
         the engine, the provider's read cache off, and encoded as the JSON string a response \
         carries; with no content rules, then with the built-in credential rules. The transport, \
         the same on both sides, is left out, so the ratio is an upper bound of the server's. \
         The target: on costs at most 1.5× off.\n\n\
         | content rules | fastest µs | median µs | mean µs | ÷ off (median) |\n\
         |---|---:|---:|---:|---:|"
    );
    let off = row(0).map_or(f64::NAN, |row| row.median_us);
    for (rule_sets, label) in [(0, "off"), (1, "the built-in credential rules")] {
        match row(rule_sets) {
            Some(row) => {
                let _ = writeln!(
                    out,
                    "| {label} | {:.0} | {:.0} | {:.0} | {} |",
                    row.fastest_us,
                    row.median_us,
                    row.mean_us,
                    ratio(row.median_us, off)
                );
            }
            None => {
                let _ = writeln!(out, "| {label} | ? | ? | ? | ? |");
            }
        }
    }
    out.push('\n');
}
