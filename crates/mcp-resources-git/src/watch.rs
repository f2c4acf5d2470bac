//! Live refs: a [`ChangeSource`] that reports what changed when a served ref moves, appears or
//! goes.
//!
//! **Layer:** provider (`mcp-resources-git`). It watches files with `notify` and reads
//! repositories with gitoxide on a thread of its own; it never knows the subscription hub, the
//! server or a protocol.
//!
//! What is watched, per repository: its git directory (`HEAD`, `packed-refs`), `refs/` below
//! it, and `worktrees/` (each linked work tree's `HEAD`). Events are collected until none comes
//! for [`GitConfig::debounce`](crate::GitConfig::debounce) (at most one second after the
//! first), then the served refs are read again and compared with the last reading:
//!
//! - a ref that moved from one commit to another: [`Change::Updated`] for each file whose blob
//!   differs between the two commits (`git://NAME/tree/REV/PATH`, and its directories), under
//!   every revision spelling that names that ref (`HEAD` when HEAD is on it, its short and full
//!   names), and for its refs, commit, log and root-tree resources. An unchanged file gets
//!   nothing.
//! - HEAD moving changes the listed files: the files added and removed come in one
//!   [`Change::ListChanged`].
//! - a ref that appeared or went: [`Change::ListChanged`] and an update of the refs resource.
//!
//! Log and diff URIs with a query are not told apart: subscribe to a plain log URI
//! (`git://NAME/log/main`) to hear about a branch.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mcp_resources_core::change::{Change, ChangeSource};
use mcp_resources_core::uri::ResourceUri;
use notify::{RecursiveMode, Watcher};

use crate::Shared;
use crate::history::{self, ChangeKind};
use crate::repo::Refs;
use crate::tree::path_served;
use crate::uri::tree_uri;

/// The longest a batch of events waits to be looked at.
const MAX_BATCH_DELAY: Duration = Duration::from_secs(1);

/// Why the refs cannot be watched.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {path}: {source}")]
pub struct WatchError {
    /// What could not be watched.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: notify::Error,
}

/// The changes of the served repositories' refs, as they happen. Dropping it stops watching.
pub struct GitWatcher {
    changes: tokio::sync::mpsc::Receiver<Change>,
    _watcher: notify::RecommendedWatcher,
}

impl std::fmt::Debug for GitWatcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("GitWatcher").finish_non_exhaustive()
    }
}

#[async_trait]
impl ChangeSource for GitWatcher {
    async fn next_change(&mut self) -> Option<Change> {
        self.changes.recv().await
    }
}

impl GitWatcher {
    pub(crate) fn start(shared: Arc<Shared>) -> Result<GitWatcher, WatchError> {
        let (events, raw) = std::sync::mpsc::channel::<PathBuf>();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event {
                    for path in event.paths {
                        let _ = events.send(path);
                    }
                }
            })
            .map_err(|source| WatchError {
                path: PathBuf::new(),
                source,
            })?;
        for repo in &shared.repos {
            let dir = &repo.git_dir;
            let watch = |watcher: &mut notify::RecommendedWatcher, path: &Path, mode| {
                watcher.watch(path, mode).map_err(|source| WatchError {
                    path: path.to_path_buf(),
                    source,
                })
            };
            watch(&mut watcher, dir, RecursiveMode::NonRecursive)?;
            for below in ["refs", "worktrees"] {
                let path = dir.join(below);
                if path.is_dir() {
                    watch(&mut watcher, &path, RecursiveMode::Recursive)?;
                }
            }
        }
        // Read before returning, so that a ref moving right after is compared with what it
        // was: a few file reads per repository.
        let mut last: Vec<Refs> = shared
            .repos
            .iter()
            .map(|repo| repo.refs(&repo.local()).unwrap_or_default())
            .collect();
        let (sender, changes) = tokio::sync::mpsc::channel(1024);
        let debounce = shared.config.debounce;
        std::thread::Builder::new()
            .name("git-watch".to_owned())
            .spawn(move || {
                while let Ok(first) = raw.recv() {
                    let mut touched = vec![first];
                    let started = Instant::now();
                    while let Ok(path) = raw.recv_timeout(debounce) {
                        touched.push(path);
                        if started.elapsed() > MAX_BATCH_DELAY {
                            break;
                        }
                    }
                    for (index, repo) in shared.repos.iter().enumerate() {
                        if !touched.iter().any(|path| is_ref_file(&repo.git_dir, path)) {
                            continue;
                        }
                        let git = repo.local();
                        let now = match repo.refs(&git) {
                            Ok(now) => now,
                            Err(error) => {
                                tracing::warn!(repository = repo.name(), %error, "refs unreadable");
                                continue;
                            }
                        };
                        let found = compare(&shared, index, &git, &last[index], &now);
                        last[index] = now;
                        for change in found {
                            if sender.blocking_send(change).is_err() {
                                return;
                            }
                        }
                    }
                }
            })
            .map_err(|source| WatchError {
                path: PathBuf::new(),
                source: notify::Error::io(source),
            })?;
        Ok(GitWatcher {
            changes,
            _watcher: watcher,
        })
    }
}

/// Whether `path` (an event's) is a ref file of the git directory `dir`.
fn is_ref_file(dir: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(dir) else {
        return false;
    };
    let mut parts = relative.components().map(|part| part.as_os_str());
    matches!(
        parts.next().and_then(|first| first.to_str()),
        Some("HEAD" | "packed-refs" | "refs" | "worktrees")
    )
}

/// Every spelling of a revision that names the served ref `name` (or `HEAD`).
fn spellings(name: &str, refs: &Refs) -> Vec<String> {
    if name == "HEAD" {
        return vec!["HEAD".to_owned()];
    }
    let mut revs = vec![name.to_owned()];
    if let Some(short) = name
        .strip_prefix("refs/heads/")
        .or_else(|| name.strip_prefix("refs/tags/"))
    {
        revs.push(short.to_owned());
    }
    if refs
        .head
        .as_ref()
        .is_some_and(|head| head.branch.as_deref() == Some(name))
    {
        revs.push("HEAD".to_owned());
    }
    revs
}

/// The changes between two readings of one repository's refs.
fn compare(
    shared: &Shared,
    index: usize,
    git: &gix::Repository,
    old: &Refs,
    new: &Refs,
) -> Vec<Change> {
    let repo = &shared.repos[index];
    let name = repo.name();
    let mut updated: BTreeSet<String> = BTreeSet::new();
    let mut list_changed = false;
    let mut created = BTreeSet::new();
    let mut removed = BTreeSet::new();
    let mut names: BTreeSet<&str> = old
        .refs
        .iter()
        .chain(&new.refs)
        .map(|r| r.name.as_str())
        .collect();
    names.insert("HEAD");
    for ref_name in names {
        let (before, after) = (old.commit_of(ref_name), new.commit_of(ref_name));
        if before == after {
            continue;
        }
        let revs = spellings(ref_name, new);
        updated.extend(crate::moved_ref_uris(name, &revs));
        let (Some(before), Some(after)) = (before, after) else {
            // A ref that appeared or went.
            list_changed = true;
            continue;
        };
        let changed = match history::changes(git, Some(before), after, None) {
            Ok(changed) => changed,
            Err(error) => {
                tracing::warn!(repository = name, error = %crate::repo::chain(&error), "ref diff failed");
                continue;
            }
        };
        for change in &changed {
            let paths = std::iter::once(&change.path).chain(change.old_path.as_ref());
            for path in paths {
                if !path_served(&shared.secrets, path) {
                    continue;
                }
                for rev in &revs {
                    updated.insert(tree_uri(name, rev, path));
                    let mut end = path.len();
                    while let Some(slash) = path[..end].iter().rposition(|byte| *byte == b'/') {
                        updated.insert(tree_uri(name, rev, &path[..slash]));
                        end = slash;
                    }
                }
            }
            if ref_name == "HEAD" {
                let listed = |path: &[u8]| tree_uri(name, "HEAD", path);
                match change.kind {
                    ChangeKind::Added | ChangeKind::Copied => {
                        created.insert(listed(&change.path));
                    }
                    ChangeKind::Deleted => {
                        removed.insert(listed(&change.path));
                    }
                    ChangeKind::Renamed => {
                        created.insert(listed(&change.path));
                        if let Some(old_path) = &change.old_path {
                            removed.insert(listed(old_path));
                        }
                    }
                    ChangeKind::Modified | ChangeKind::TypeChanged => {}
                }
            }
        }
    }
    let parse = |uris: BTreeSet<String>| -> Vec<ResourceUri> {
        uris.into_iter()
            .filter_map(|uri| ResourceUri::parse(&uri).ok())
            .collect()
    };
    let mut changes: Vec<Change> = parse(updated).into_iter().map(Change::Updated).collect();
    if list_changed || !created.is_empty() || !removed.is_empty() {
        changes.push(Change::ListChanged {
            created: parse(created),
            removed: parse(removed),
        });
    }
    tracing::debug!(repository = name, changes = changes.len(), "refs moved");
    changes
}
