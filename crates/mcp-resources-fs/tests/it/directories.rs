//! Directory resources of the filesystem provider: what is one (roots, entered directories, not
//! ignored, secret or symlinked ones), their children a page at a time, and a walk over them
//! that finds exactly the files the list gives, for generated trees; a large directory paged
//! while it changes.
#![cfg(unix)]

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;

use mcp_resources_core::engine::{Engine, Limits};
use mcp_resources_core::error::{DirectoryError, ReadError};
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::Resource;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_fs::{FilesystemProvider, FsConfig};
use proptest::prelude::*;
use tempfile::TempDir;

/// A root holding `files` (relative paths, directories made as needed) and empty `directories`.
fn tree(files: &[&str], directories: &[&str]) -> (TempDir, String) {
    let root = tempfile::tempdir().unwrap();
    for relative in files {
        let path = root.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, relative.as_bytes()).unwrap();
    }
    for relative in directories {
        fs::create_dir_all(root.path().join(relative)).unwrap();
    }
    let canonical = fs::canonicalize(root.path()).unwrap();
    let prefix = format!("file://{}", canonical.to_str().unwrap());
    (root, prefix)
}

fn provider(root: &Path) -> FilesystemProvider {
    let mut config = FsConfig::new([root]);
    config.watch = false;
    FilesystemProvider::new(config).unwrap()
}

fn engine(provider: &FilesystemProvider, page_size: usize) -> Engine {
    Engine::builder(CursorKey::new([9; 32]))
        .limits(Limits {
            page_size: page_size.try_into().unwrap(),
            ..Limits::default()
        })
        .provider(Arc::new(provider.clone()))
        .build()
        .unwrap()
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap()
}

/// Every child of `directory`, page by page through the engine.
async fn children(engine: &Engine, directory: &str) -> Result<Vec<Resource>, DirectoryError> {
    let principal = Principal::anonymous();
    let directory = uri(directory);
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = engine
            .list_directory(&principal, &directory, cursor.as_deref())
            .await?;
        all.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
}

/// The URIs of every file below `directory`, found by directory reads alone.
async fn walk(engine: &Engine, directory: &str) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    let mut pending = vec![directory.to_owned()];
    while let Some(directory) = pending.pop() {
        let listed = children(engine, &directory).await.unwrap();
        let uris: Vec<&str> = listed.iter().map(|child| child.uri.as_str()).collect();
        let mut sorted = uris.clone();
        sorted.sort_unstable();
        assert_eq!(uris, sorted, "the children of {directory} in URI order");
        for child in listed {
            let text = child.uri.as_str().to_owned();
            assert_eq!(
                text.rsplit_once('/').map(|(parent, _)| parent),
                Some(directory.as_str()),
                "{text} is a direct child of {directory}"
            );
            if child.is_directory() {
                pending.push(text);
            } else {
                assert!(files.insert(text), "each file once");
            }
        }
    }
    files
}

/// Every file URI the resource list gives.
async fn listed(engine: &Engine) -> BTreeSet<String> {
    let principal = Principal::anonymous();
    let mut files = BTreeSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = engine
            .list_resources(&principal, cursor.as_deref())
            .await
            .unwrap();
        files.extend(page.items.iter().map(|item| item.uri.as_str().to_owned()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return files,
        }
    }
}

#[tokio::test]
async fn roots_and_entered_directories_are_directories_and_nothing_else_is() {
    let (root, prefix) = tree(
        &[
            "README.md",
            "docs/guide.md",
            "docs/api/index.md",
            "target/out.txt",
            "config/.env/inner.txt",
            ".git/HEAD",
            ".gitignore",
        ],
        &["empty"],
    );
    fs::write(root.path().join(".gitignore"), "target/\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "outside").unwrap();
    symlink(outside.path(), root.path().join("linked")).unwrap();
    let provider = provider(root.path());
    let engine = engine(&provider, 100);

    let top: Vec<(String, bool)> = children(&engine, &prefix)
        .await
        .unwrap()
        .into_iter()
        .map(|child| (child.name.clone(), child.is_directory()))
        .collect();
    assert_eq!(
        top,
        [
            (".gitignore".to_owned(), false),
            ("README.md".to_owned(), false),
            ("config".to_owned(), true),
            ("docs".to_owned(), true),
            ("empty".to_owned(), true),
        ],
        "no ignored, secret or symlinked directory among the root's children"
    );
    let docs = children(&engine, &format!("{prefix}/docs")).await.unwrap();
    assert_eq!(docs[0].uri.as_str(), format!("{prefix}/docs/api"));
    assert_eq!(docs[0].title.as_deref(), Some("docs/api"));
    assert!(docs[1].size.is_some(), "files keep their listed metadata");
    assert!(
        children(&engine, &format!("{prefix}/empty"))
            .await
            .unwrap()
            .is_empty(),
        "an empty directory is an empty list"
    );
    assert!(
        children(&engine, &format!("{prefix}/config"))
            .await
            .unwrap()
            .is_empty(),
        "a directory whose only child is secret shows nothing"
    );
    for not_one in [
        "README.md",
        "missing",
        "target",
        "config/.env",
        ".git",
        "linked",
        "docs/",
    ] {
        let answer = children(&engine, &format!("{prefix}/{not_one}")).await;
        assert!(
            matches!(answer, Err(DirectoryError::NotADirectory { .. })),
            "{not_one}: {answer:?}"
        );
    }
    // A read of a directory says it is one; of one that is not, plain not found.
    let principal = Principal::anonymous();
    for (path, is_one) in [
        ("docs", true),
        ("empty", true),
        ("target", false),
        ("config/.env", false),
        ("linked", false),
        ("missing", false),
    ] {
        let read = engine
            .read(&principal, &uri(&format!("{prefix}/{path}")))
            .await;
        match read {
            Err(ReadError::Directory { .. }) if is_one => {}
            Err(ReadError::NotFound { .. }) if !is_one => {}
            other => panic!("{path}: {:?}", other.map(|_| "contents")),
        }
    }
}

#[tokio::test]
async fn names_that_sort_around_the_slash_keep_the_uri_order() {
    // `-` and `.` sort before `/`, `0` right after it: the subtree of `a` lies between `a.md`
    // and `a0`, and its entries must neither leak out nor hide `a0`.
    let (root, prefix) = tree(
        &["a-b", "a.md", "a/x/deep.txt", "a/y", "a0", "b"],
        &["a/x/empty"],
    );
    let engine = engine(&provider(root.path()), 2);
    let names: Vec<String> = children(&engine, &prefix)
        .await
        .unwrap()
        .into_iter()
        .map(|child| child.name)
        .collect();
    assert_eq!(names, ["a", "a-b", "a.md", "a0", "b"]);
    let walked = walk(&engine, &prefix).await;
    assert_eq!(walked, listed(&engine).await);
}

/// A generated tree: paths of up to three segments over a few names that sort around `/`.
fn paths() -> impl Strategy<Value = Vec<String>> {
    let segment = prop::sample::select(vec!["a", "a-b", "a.md", "a0", "b", "z z"]);
    let path = prop::collection::vec(segment, 1..=3).prop_map(|segments| segments.join("/"));
    prop::collection::vec(path, 0..24)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_walk_by_directory_reads_finds_exactly_the_listed_files(paths in paths()) {
        // A path that is a prefix of another is a directory; the rest are files.
        let files: Vec<&str> = paths
            .iter()
            .map(String::as_str)
            .filter(|path| !paths.iter().any(|other| other.starts_with(&format!("{path}/"))))
            .collect();
        let (root, prefix) = tree(&files, &[]);
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let engine = engine(&provider(root.path()), 3);
        let (walked, listed) = runtime.block_on(async {
            (walk(&engine, &prefix).await, listed(&engine).await)
        });
        prop_assert_eq!(walked, listed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_a_large_directory_while_it_changes_skips_and_repeats_nothing_that_stayed() {
    const FILES: usize = 10_000;
    let names: Vec<String> = (0..FILES).map(|index| format!("big/f{index:05}")).collect();
    let (root, prefix) = tree(&names.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let mut config = FsConfig::new([root.path()]);
    config.watch = true;
    let provider = FilesystemProvider::new(config).unwrap();
    let mut watcher = provider.watch().unwrap();
    // The watcher applies changes to the index whether or not they are read; they are drained.
    let drain = tokio::spawn(async move { while watcher.recv().await.is_some() {} });
    let engine = engine(&provider, 100);
    let principal = Principal::anonymous();
    let directory = uri(&format!("{prefix}/big"));
    let mut seen: Vec<String> = Vec::new();
    let mut removed = BTreeSet::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        assert!(page < 1_000, "the walk never ends");
        let items = engine
            .list_directory(&principal, &directory, cursor.as_deref())
            .await
            .unwrap();
        seen.extend(
            items
                .items
                .iter()
                .map(|child| child.uri.as_str().to_owned()),
        );
        let Some(next) = items.next_cursor else {
            break;
        };
        cursor = Some(next);
        // Every tenth page: a file behind the walk and one ahead of it go, two new ones come.
        if page % 10 == 0 {
            for index in [page * 100 / 2, (page * 100 + 5_000) % FILES] {
                let name = format!("f{index:05}");
                if fs::remove_file(root.path().join("big").join(&name)).is_ok() {
                    removed.insert(format!("{prefix}/big/{name}"));
                }
            }
            fs::write(root.path().join(format!("big/f{page:05}a")), "new").unwrap();
            fs::write(root.path().join(format!("big/g{page:05}")), "new").unwrap();
        }
    }
    drain.abort();
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "nothing repeated");
    for name in &names {
        let child = format!("{prefix}/{name}");
        assert!(
            removed.contains(&child) || unique.contains(&child),
            "{child} stayed throughout and was skipped"
        );
    }
}
