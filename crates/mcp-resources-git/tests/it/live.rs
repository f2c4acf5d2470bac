//! Live refs: a commit made with the `git` command line while the provider watches.

use std::time::Duration;

use mcp_resources_core::change::{Change, ChangeSource};

use crate::fixture::{git, git_at, provider, work, write};

/// The changes that come until none has come for half a second (the first waited for up to
/// 20 s).
async fn changes(watcher: &mut impl ChangeSource) -> Vec<Change> {
    let mut seen = Vec::new();
    let mut wait = Duration::from_secs(20);
    while let Ok(Some(change)) = tokio::time::timeout(wait, watcher.next_change()).await {
        seen.push(change);
        wait = Duration::from_millis(500);
    }
    seen
}

fn updated(changes: &[Change]) -> Vec<&str> {
    changes
        .iter()
        .filter_map(|change| match change {
            Change::Updated(uri) => Some(uri.as_str()),
            Change::ListChanged { .. } => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_updates_the_files_it_changed_and_nothing_else() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let mut watcher = provider.watch().unwrap();

    write(&work.path(), "README.md", "hello\nworld\nagain\n");
    git(&work.path(), &["add", "-A"]);
    git_at(
        &work.path(),
        &["commit", "-q", "-m", "edit the readme"],
        1_700_001_000,
    );
    let seen = changes(&mut watcher).await;
    let uris = updated(&seen);
    for expected in [
        "git://work/tree/main/README.md",
        "git://work/tree/HEAD/README.md",
        "git://work/tree/refs%2Fheads%2Fmain/README.md",
        "git://work/refs",
        "git://work/log/main",
        "git://work/commit/HEAD",
    ] {
        assert!(uris.contains(&expected), "{expected} in {uris:?}");
    }
    assert!(
        !uris
            .iter()
            .any(|uri| uri.ends_with("src/lib.rs") || uri.contains("feature")),
        "an unchanged file, an unmoved branch: {uris:?}"
    );
    assert!(
        !seen
            .iter()
            .any(|change| matches!(change, Change::ListChanged { .. })),
        "no file came or went: {seen:?}"
    );

    write(&work.path(), "new.txt", "new\n");
    git(&work.path(), &["add", "-A"]);
    git_at(
        &work.path(),
        &["commit", "-q", "-m", "add a file"],
        1_700_001_100,
    );
    let seen = changes(&mut watcher).await;
    let listed = seen.iter().find_map(|change| match change {
        Change::ListChanged { created, removed } => Some((created.clone(), removed.clone())),
        Change::Updated(_) => None,
    });
    let (created, removed) = listed.expect("the list changed");
    assert_eq!(
        created.iter().map(|uri| uri.as_str()).collect::<Vec<_>>(),
        ["git://work/tree/HEAD/new.txt"]
    );
    assert!(removed.is_empty());

    git(&work.path(), &["branch", "topic"]);
    let seen = changes(&mut watcher).await;
    assert!(
        seen.iter()
            .any(|change| matches!(change, Change::ListChanged { .. })),
        "a new ref changes the list: {seen:?}"
    );
    assert!(updated(&seen).contains(&"git://work/refs"), "{seen:?}");
}
