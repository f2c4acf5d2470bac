//! Benchmarks of URI templates: finding the template of a URI among 10,000, and matching and
//! expanding one template.
//!
//! Run with `cargo bench -p mcp-resources-core --bench templates`.

use divan::{Bencher, black_box};
use mcp_resources_core::template::{TemplateIndex, UriTemplate, Variables};

/// Counts allocations alongside time.
#[global_allocator]
static ALLOCATOR: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

const TEMPLATES: usize = 10_000;

fn index_of(shape: impl Fn(usize) -> String) -> TemplateIndex<usize> {
    let mut index = TemplateIndex::new();
    for number in 0..TEMPLATES {
        let template = UriTemplate::parse(&shape(number)).expect("valid template");
        index.insert(template, number);
    }
    index
}

/// `db://table{i}/{id}`: one simple variable after a distinct literal prefix.
#[divan::bench]
fn find_among_10000_db_templates(bencher: Bencher<'_, '_>) {
    let index = index_of(|number| format!("db://table{number}/{{id}}"));
    bencher.bench(|| {
        let found = index.find(black_box("db://table7321/row-42"));
        black_box(found.map(|(_, value, _)| *value))
    });
}

/// `file:///dir{i}/{+path}`: a spanning variable after a distinct literal prefix.
#[divan::bench]
fn find_among_10000_file_templates(bencher: Bencher<'_, '_>) {
    let index = index_of(|number| format!("file:///dir{number}/{{+path}}"));
    bencher.bench(|| {
        let found = index.find(black_box("file:///dir7321/src/template/matching.rs"));
        black_box(found.map(|(_, value, _)| *value))
    });
}

/// A URI that no template of the 10,000 matches.
#[divan::bench]
fn miss_among_10000_file_templates(bencher: Bencher<'_, '_>) {
    let index = index_of(|number| format!("file:///dir{number}/{{+path}}"));
    bencher.bench(|| black_box(index.find(black_box("file:///elsewhere/a/b.md")).is_none()));
}

/// Matching one template with a path and an order-free query.
#[divan::bench]
fn match_one_template(bencher: Bencher<'_, '_>) {
    let template = UriTemplate::parse("file:///{+path}{?rev,at}").expect("valid template");
    bencher
        .bench(|| template.match_uri(black_box("file:///notes/2026/todo%20list.md?at=now&rev=7")));
}

/// Expanding one template with a path and a query.
#[divan::bench]
fn expand_one_template(bencher: Bencher<'_, '_>) {
    let template = UriTemplate::parse("file:///{+path}{?rev,at}").expect("valid template");
    let mut variables = Variables::new();
    variables.insert("path", "notes/2026/todo list.md");
    variables.insert("rev", "7");
    variables.insert("at", "now");
    bencher.bench(|| template.expand(black_box(&variables)));
}
