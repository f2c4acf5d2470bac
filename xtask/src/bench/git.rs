//! The git provider's section: a read of a 1 KiB file at HEAD, list pages and walks in trees of
//! 1,000 / 10,000 / 100,000 files, the index the first list builds, and a log page of 100
//! commits, each beside what the git command line spends on the same repository.
//!
//! **Layer:** tooling, inside [`bench`](super). It runs the provider's own divan bench (`cargo
//! bench -p mcp-resources-git --bench git`), which writes its repositories with `git
//! fast-import` and prints, before divan's table, one `side-by-side NAME key=value…` line per
//! comparison with git; this module reads both and renders them. It never links the provider,
//! never runs git itself and never writes a repository.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::pages::{self, BenchFigures as GitFigures, Page};
use super::server::Programs;
use super::stats::{ratio, thousands};

/// The bench's divan groups, and the rows each must have.
const GROUPS: [(&str, usize); 5] = [
    ("read_1kib_blob", 1),
    ("list_page_of_100", 3),
    ("first_list_page", 3),
    ("list_walk", 3),
    ("log_page_of_100", 3),
];

/// The interleaved measurements the bench prints: three beside git, and the steady list page of
/// each tree (`ours_N_cpu_us` for a tree of N files).
const SIDE_BY_SIDE: [&str; 4] = [
    "read_1kib_blob",
    "log_page_of_100",
    "first_list_page",
    "list_page_of_100",
];

/// Runs the git bench and reads its output.
pub(super) fn measure(programs: &Programs) -> Result<GitFigures, String> {
    GitFigures::measure(programs, "mcp-resources-git", "git", &GROUPS, &SIDE_BY_SIDE)
}

/// The git provider's section of the report; `measured` says by what command, when and where.
pub(super) fn render(out: &mut String, figures: &GitFigures, measured: &str) {
    let read_files = figures.figure("read_1kib_blob", "files");
    let commits = figures.figure("log_page_of_100", "commits");
    let indexed = figures.figure("first_list_page", "files");
    let count = |value: f64| {
        if value.is_finite() {
            thousands(value as usize)
        } else {
            "?".to_owned()
        }
    };
    let _ = writeln!(
        out,
        "## The git provider, in-process, beside the git command line\n\n\
         {measured}\n\n\
         The git provider's divan bench (`cargo bench -p mcp-resources-git --bench git`), on bare \
         repositories it writes with `git fast-import` (objects in one pack, no deltas among the \
         files, loose refs, no commit-graph): {} files of 1 KiB, 100 a directory; trees of 1,000 \
         / 10,000 / 100,000 files of 32 bytes; {} commits a minute apart, each changing one file. \
         Ours is the engine over the provider, called without a tokio runtime so that the \
         provider's blocking work runs inline: no transport, no JSON-RPC. git reads the same \
         repositories with their own configuration only, as the provider does.\n\n\
         Side by side, by CPU time per answer, totals over interleaved rounds: ours from the \
         bench thread's CPU clock; `git cat-file --batch-command --buffer` (one process, each \
         round's requests then `flush`) from its `/proc/<pid>/schedstat` between two moments it \
         waits for input; a process per answer (`git log`, `git ls-tree`) from the times of the \
         bench's reaped children (`cutime` + `cstime`). Wall time is per answer as well (git's: \
         pipelined through the one process, or from spawn to exit). The target: our CPU per read \
         within 2× of git's.\n\n\
         | what | ours CPU µs | ours wall µs | git | git CPU µs | git wall µs | ours ÷ git (CPU) |\n\
         |---|---:|---:|---|---:|---:|---:|",
        count(read_files),
        count(commits),
    );
    let rows = [
        (
            format!(
                "a 1 KiB file at HEAD (`git://NAME/tree/HEAD/PATH`), {} files round robin",
                count(read_files)
            ),
            "read_1kib_blob",
            "git",
            "`cat-file`, `contents HEAD:PATH`: HEAD, the trees and the blob, the same work",
        ),
        (
            "〃".to_owned(),
            "read_1kib_blob",
            "git_by_id",
            "`cat-file`, `contents BLOB-ID`: the blob alone",
        ),
        (
            format!(
                "a log page of 100 commits (`git://NAME/log/HEAD?limit=100`), {} commits",
                count(commits)
            ),
            "log_page_of_100",
            "git",
            "`git log -100 --format=%H%x00%an%x00%ae%x00%aI%x00%s`, a process",
        ),
        (
            "〃".to_owned(),
            "log_page_of_100",
            "git_one",
            "`git log -1` (the same format): git's start and one commit",
        ),
        (
            format!(
                "the first list page on a fresh provider: HEAD's index of {} files built, 100 listed",
                count(indexed)
            ),
            "first_list_page",
            "git",
            "`git ls-tree -r HEAD`, a process",
        ),
    ];
    for (what, comparison, side, git) in rows {
        let ours_cpu = figures.figure(comparison, "ours_cpu_us");
        let git_cpu = figures.figure(comparison, &format!("{side}_cpu_us"));
        let _ = writeln!(
            out,
            "| {what} | {:.1} | {:.1} | {git} | {:.1} | {:.1} | {} |",
            ours_cpu,
            figures.figure(comparison, "ours_wall_us"),
            git_cpu,
            figures.figure(comparison, &format!("{side}_wall_us")),
            ratio(ours_cpu, git_cpu),
        );
    }
    out.push('\n');

    let _ = writeln!(
        out,
        "divan's figures (wall time of the bench thread; allocations counted). One \
         `resources/list` page of 100 from the middle of the list, HEAD's file index already \
         built (steady state); the target is a flat cost:\n"
    );
    pages::table(
        out,
        "files in the tree",
        "1,000",
        figures.rows("list_page_of_100"),
    );
    let _ = writeln!(
        out,
        "The same page by CPU time, the trees interleaved in rounds ({} pages each; the bench \
         thread's CPU clock):\n",
        count(figures.figure("list_page_of_100", "pages"))
    );
    cpu_pages_table(out, figures);
    let _ = writeln!(
        out,
        "The whole list, page by page (the refs resource, then every file), the index built:\n"
    );
    walk_table(out, figures.rows("list_walk"));
    let _ = writeln!(
        out,
        "The first list page on a fresh provider, which builds the index of HEAD's files (once \
         per HEAD commit; cached until HEAD moves):\n"
    );
    pages::table(
        out,
        "files in the tree",
        "1,000",
        figures.rows("first_list_page"),
    );
    let _ = writeln!(
        out,
        "A log page of 100 commits after the first N (`?after=` the Nth commit's id), in {} \
         commits:\n",
        count(commits)
    );
    pages::table(
        out,
        "commits before the page",
        "0",
        figures.rows("log_page_of_100"),
    );
    let _ = writeln!(out, "A 1 KiB file at HEAD, round robin:\n");
    pages::table(
        out,
        "files in the repository",
        "1,000",
        figures.rows("read_1kib_blob"),
    );
}

/// The steady page's CPU time by the tree's size, from the `ours_N_cpu_us` figures.
fn cpu_pages_table(out: &mut String, figures: &GitFigures) {
    let _ = writeln!(
        out,
        "| files in the tree | CPU µs per page | wall µs per page | CPU ÷ CPU at the smallest \
         |\n|---:|---:|---:|---:|"
    );
    let mut sizes: Vec<usize> = figures
        .side_by_side
        .get("list_page_of_100")
        .into_iter()
        .flat_map(BTreeMap::keys)
        .filter_map(|key| {
            key.strip_prefix("ours_")?
                .strip_suffix("_cpu_us")?
                .parse()
                .ok()
        })
        .collect();
    sizes.sort_unstable();
    let cpu = |size: usize| figures.figure("list_page_of_100", &format!("ours_{size}_cpu_us"));
    let base = sizes.first().map_or(f64::NAN, |&size| cpu(size));
    for size in sizes {
        let _ = writeln!(
            out,
            "| {} | {:.2} | {:.2} | {} |",
            thousands(size),
            cpu(size),
            figures.figure("list_page_of_100", &format!("ours_{size}_wall_us")),
            ratio(cpu(size), base)
        );
    }
    out.push('\n');
}

/// The walks' table: each walk, and its cost per page (the refs resource and 100 files a page).
fn walk_table(out: &mut String, walks: &[Page]) {
    let _ = writeln!(
        out,
        "| files in the tree | pages | fastest ms | median ms | median µs per page | per page ÷ \
         per page at 1,000 |\n|---:|---:|---:|---:|---:|---:|"
    );
    let pages_of = |walk: &Page| (walk.total + 1).div_ceil(100);
    let per_page = |walk: &Page| walk.median_us / pages_of(walk) as f64;
    let base = walks.first().map_or(f64::NAN, per_page);
    for walk in walks {
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {:.2} | {:.2} | {} |",
            thousands(walk.total),
            thousands(pages_of(walk)),
            walk.fastest_us / 1000.0,
            walk.median_us / 1000.0,
            per_page(walk),
            ratio(per_page(walk), base)
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
side-by-side read_1kib_blob files=1000 reads=25000 ours_cpu_us=30.000 ours_wall_us=31.000 git_cpu_us=40.000 git_wall_us=41.000 git_by_id_cpu_us=10.000 git_by_id_wall_us=11.000
side-by-side log_page_of_100 commits=5000 runs=500 ours_cpu_us=1000.000 ours_wall_us=1001.000 git_cpu_us=2500.000 git_wall_us=3000.000
side-by-side list_page_of_100 pages=1000 ours_100000_cpu_us=66.000 ours_100000_wall_us=67.000 ours_1000_cpu_us=60.000 ours_1000_wall_us=61.000
side-by-side broken
Timer precision: 20 ns
git                  fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ list_walk                       │               │               │               │         │
│  ├─ 1000           600 µs        │ 900 µs        │ 660 µs        │ 700 µs        │ 10      │ 10
│  ╰─ 100000         80 ms         │ 90 ms         │ 80.08 ms      │ 85 ms         │ 10      │ 10
╰─ read_1kib_blob                  │               │               │               │         │
   ╰─ 1000           30 µs         │ 300 µs        │ 32 µs         │ 35 µs         │ 100     │ 100
";
        let figures = GitFigures::parse(text, &GROUPS);
        assert_eq!(figures.figure("read_1kib_blob", "git_by_id_cpu_us"), 10.0);
        assert_eq!(figures.figure("log_page_of_100", "commits"), 5000.0);
        assert!(figures.figure("first_list_page", "ours_cpu_us").is_nan());
        assert!(figures.side_by_side["broken"].is_empty());
        assert_eq!(figures.rows("list_walk").len(), 2);
        assert_eq!(figures.rows("read_1kib_blob")[0].median_us, 32.0);
        assert!(figures.rows("list_page_of_100").is_empty());

        let mut out = String::new();
        render(
            &mut out,
            &figures,
            "Measured by `cargo xtask bench --only git`.",
        );
        assert!(
            out.contains("Measured by `cargo xtask bench --only git`."),
            "{out}"
        );
        assert!(
            out.contains("| 30.0 | 31.0 | `cat-file`, `contents HEAD:PATH`"),
            "{out}"
        );
        assert!(out.contains("| 40.0 | 41.0 | 0.75 |"), "{out}");
        assert!(out.contains("| 10.0 | 11.0 | 3.00 |"), "{out}");
        assert!(out.contains("| 2500.0 | 3000.0 | 0.40 |"), "{out}");
        // A comparison the bench did not print has no ratio.
        assert!(out.contains("| NaN | NaN | – |"), "{out}");
        // 1,001 items: 11 pages at 1,000; 100,001: 1,001 pages.
        assert!(
            out.contains("| 1,000 | 11 | 0.60 | 0.66 | 60.00 | 1.00 |"),
            "{out}"
        );
        assert!(
            out.contains("| 100,000 | 1,001 | 80.00 | 80.08 | 80.00 | 1.33 |"),
            "{out}"
        );
        // Sizes in numeric order, whatever the order of their keys.
        assert!(
            out.contains("| 1,000 | 60.00 | 61.00 | 1.00 |\n| 100,000 | 66.00 | 67.00 | 1.10 |"),
            "{out}"
        );
    }
}
