//! One directory page of 100 children, the second of a 200-child directory, in trees of
//! 1,000, 10,000 and 100,000 files on disk: the filesystem provider's `Index::children` through
//! the engine, with a signed cursor. The cost must not grow with the tree.
//!
//! Run with `cargo bench -p mcp-resources-fs --bench directory`. Allocations are counted. Each
//! tree is written to a temporary directory once (100,000 empty files take a few seconds).

use std::hint::black_box;
use std::sync::Arc;

use divan::{AllocProfiler, Bencher};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_fs::{FilesystemProvider, FsConfig};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

/// The children of the paged directory.
const CHILDREN: usize = 200;

/// A tree of `total` files: `page/` with [`CHILDREN`] of them, the rest in directories of 100
/// under `rest/`; the engine over it, the directory's URI and the cursor of its second page.
fn tree(total: usize) -> (tempfile::TempDir, Engine, ResourceUri, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir(dir.path().join("page")).expect("mkdir");
    for index in 0..CHILDREN {
        std::fs::write(dir.path().join(format!("page/{index:05}")), "").expect("write");
    }
    for index in 0..total.saturating_sub(CHILDREN) {
        let sub = dir.path().join(format!("rest/{:05}", index / 100));
        if index % 100 == 0 {
            std::fs::create_dir_all(&sub).expect("mkdir");
        }
        std::fs::write(sub.join(format!("{index:07}")), "").expect("write");
    }
    let mut config = FsConfig::new([dir.path()]);
    config.watch = false;
    let provider = FilesystemProvider::new(config).expect("the provider");
    let engine = Engine::builder(CursorKey::new([5; 32]))
        .provider(Arc::new(provider))
        .build()
        .expect("the engine");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let directory = ResourceUri::parse(&format!("file://{}/page", root.display())).expect("uri");
    // The cursor after the first page: the second page holds the other 100 children.
    let first =
        pollster::block_on(engine.list_directory(&Principal::anonymous(), &directory, None))
            .expect("page");
    let cursor = first
        .next_cursor
        .expect("a directory of 200 has a second page");
    (dir, engine, directory, cursor)
}

/// One page of 100 (the default page size) of a 200-child directory, resumed by a cursor.
#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 200)]
fn directory_page_of_100(bencher: Bencher<'_, '_>, total: usize) {
    let (_dir, engine, directory, cursor) = tree(total);
    let anyone = Principal::anonymous();
    bencher.bench_local(|| {
        let page = pollster::block_on(engine.list_directory(
            &anyone,
            black_box(&directory),
            Some(black_box(&cursor)),
        ))
        .expect("page");
        assert_eq!(page.items.len(), 100);
        page
    });
}
