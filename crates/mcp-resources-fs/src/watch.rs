//! Live updates: a `notify` watcher on every indexed directory, debounced on a tokio timer (of
//! the runtime current when the watcher starts, which must have one), keeping the index current
//! and reporting what changed.
//!
//! **Layer:** provider (`mcp-resources-fs`). This module turns raw file-system events into index
//! updates and [`Change`]s on a tokio channel (the core's seam: [`FsWatcher`] is a
//! [`ChangeSource`]); it never knows the subscription hub, a protocol
//! or a principal (the server feeds the changes to the hub).
//!
//! What the watcher does, as users see it, is written in the [parent module](super) ("Live
//! updates"). Inside: the `notify` callback only forwards events into a bounded channel and sets
//! a flag when it is full; the debouncer task collects a batch and hands it to
//! `Shared::apply` on the blocking pool, which rescans the touched paths, updates the index
//! under its lock and brings the watches in line with the directories the rescan entered.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use mcp_resources_core::change::{Change, ChangeSource};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::Shared;

/// The longest a batch of events waits after its first event, however busy the tree.
pub const MAX_BATCH_DELAY: Duration = Duration::from_secs(2);

/// How many raw events wait for the debouncer before the watcher falls back to a full rescan.
const RAW_CAPACITY: usize = 4096;

/// How many changes wait for the consumer of an [`FsWatcher`].
const CHANGE_CAPACITY: usize = 1024;

/// Past this many distinct paths in one batch, rescanning every root is cheaper.
const MAX_BATCH_PATHS: usize = 10_000;

/// Why [`FilesystemProvider::watch`](super::FilesystemProvider::watch) could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Watching was turned off in the configuration.
    #[error("watching is disabled in the filesystem configuration")]
    Disabled,
    /// The changes of this provider are already being received by an earlier watcher.
    #[error("the filesystem provider is already being watched")]
    AlreadyWatching,
    /// `watch` was called outside a tokio runtime.
    #[error("watching the filesystem needs a tokio runtime")]
    NoRuntime,
}

/// The receiving end of the provider's changes. Dropping it stops the debouncer; the index is
/// then no longer kept current.
#[derive(Debug)]
pub struct FsWatcher {
    changes: mpsc::Receiver<Change>,
    task: JoinHandle<()>,
}

impl FsWatcher {
    /// The next change, waiting for it; `None` once the watcher has stopped.
    pub async fn recv(&mut self) -> Option<Change> {
        self.changes.recv().await
    }

    /// The next change if one is ready, without waiting.
    pub fn try_recv(&mut self) -> Option<Change> {
        self.changes.try_recv().ok()
    }
}

#[async_trait]
impl ChangeSource for FsWatcher {
    async fn next_change(&mut self) -> Option<Change> {
        self.recv().await
    }
}

impl Drop for FsWatcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The `notify` watcher and the directories it watches.
pub(crate) struct WatchState {
    watcher: RecommendedWatcher,
    watched: BTreeSet<PathBuf>,
}

impl std::fmt::Debug for WatchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchState")
            .field("watched", &self.watched.len())
            .finish_non_exhaustive()
    }
}

/// Raw events waiting for the debouncer.
#[derive(Debug)]
pub(crate) struct RawEvents {
    receiver: mpsc::Receiver<notify::Result<Event>>,
    overflow: Arc<AtomicBool>,
}

/// Starts a `notify` watcher that watches nothing yet.
pub(crate) fn start() -> Result<(WatchState, RawEvents), notify::Error> {
    let (sender, receiver) = mpsc::channel(RAW_CAPACITY);
    let overflow = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&overflow);
    let watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
        // Opening, reading and closing after reading change nothing: they neither start a
        // batch nor hold one back. Every read of a served file, and every rescan of another
        // watcher of the same tree (other instances of a deployment), would otherwise make each
        // watcher rescan, and hold its changes back by a debounce more.
        if event
            .as_ref()
            .is_ok_and(|event| !changes_something(event.kind))
        {
            return;
        }
        if sender.try_send(event).is_err() {
            flag.store(true, Ordering::SeqCst);
        }
    })?;
    let state = WatchState {
        watcher,
        watched: BTreeSet::new(),
    };
    Ok((state, RawEvents { receiver, overflow }))
}

impl WatchState {
    /// Brings the watches at and below `top` in line with `directories` (what a walk of `top`
    /// entered). Returns the directories that were not watched before, and those that could
    /// not be watched (the system's limit on watches reached, most often).
    pub(crate) fn replace_below(
        &mut self,
        top: &Path,
        directories: &[PathBuf],
    ) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let fresh: BTreeSet<&PathBuf> = directories.iter().collect();
        let stale: Vec<PathBuf> = self
            .watched
            .range(top.to_path_buf()..)
            .take_while(|directory| directory.starts_with(top))
            .filter(|directory| !fresh.contains(directory))
            .cloned()
            .collect();
        // Unwatch first: a directory renamed within the tree keeps its kernel watch, which the
        // new path then takes over.
        for directory in stale {
            let _ = self.watcher.unwatch(&directory);
            self.watched.remove(&directory);
        }
        let mut added = Vec::new();
        let mut failed = Vec::new();
        for directory in directories {
            if self.watched.contains(directory) {
                continue;
            }
            match self.watcher.watch(directory, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.watched.insert(directory.clone());
                    added.push(directory.clone());
                }
                Err(error) => {
                    // Once per call, not once per directory: running out of inotify watches
                    // fails for every directory after the first.
                    if failed.is_empty() {
                        tracing::warn!(
                            directory = %directory.display(),
                            %error,
                            "directory not watched; its changes will not be seen (on Linux, \
                             raise fs.inotify.max_user_watches, for example \
                             `sysctl fs.inotify.max_user_watches=524288`)"
                        );
                    }
                    failed.push(directory.clone());
                }
            }
        }
        if failed.len() > 1 {
            tracing::warn!(directories = failed.len(), "directories not watched");
        }
        (added, failed)
    }
}

/// Whether an event of `kind` may have changed what is served: every kind but an access,
/// except closing a file written to (a write through a shared memory map is seen as nothing
/// else: an open, then that close).
fn changes_something(kind: EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Events collected for one rescan.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub(crate) paths: BTreeSet<PathBuf>,
    pub(crate) rescan_all: bool,
}

impl Batch {
    fn add(&mut self, event: notify::Result<Event>) {
        match event {
            Err(error) => {
                tracing::warn!(%error, "file watcher error; rescanning everything");
                self.rescan_all = true;
            }
            Ok(event) => {
                if event.need_rescan() {
                    self.rescan_all = true;
                }
                if !changes_something(event.kind) || self.rescan_all {
                    return;
                }
                self.paths.extend(event.paths);
                if self.paths.len() > MAX_BATCH_PATHS {
                    self.paths.clear();
                    self.rescan_all = true;
                }
            }
        }
    }
}

/// Spawns the debouncer on the current tokio runtime; without one, hands the raw events back.
pub(crate) fn spawn(
    shared: Arc<Shared>,
    raw: RawEvents,
) -> Result<FsWatcher, (WatchError, RawEvents)> {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return Err((WatchError::NoRuntime, raw));
    };
    let (sender, changes) = mpsc::channel(CHANGE_CAPACITY);
    let task = runtime.spawn(debounce(shared, raw, sender));
    Ok(FsWatcher { changes, task })
}

async fn debounce(shared: Arc<Shared>, mut raw: RawEvents, sender: mpsc::Sender<Change>) {
    loop {
        let Some(first) = raw.receiver.recv().await else {
            return;
        };
        let mut batch = Batch::default();
        batch.add(first);
        let started = Instant::now();
        while started.elapsed() < MAX_BATCH_DELAY {
            match tokio::time::timeout(shared.debounce, raw.receiver.recv()).await {
                Ok(Some(event)) => batch.add(event),
                Ok(None) | Err(_) => break,
            }
        }
        if raw.overflow.swap(false, Ordering::SeqCst) {
            tracing::debug!("file watcher events overflowed; rescanning everything");
            batch.rescan_all = true;
        }
        let worker = Arc::clone(&shared);
        let changes = match tokio::task::spawn_blocking(move || worker.apply(batch)).await {
            Ok(changes) => changes,
            Err(error) => {
                tracing::warn!(%error, "rescan failed");
                continue;
            }
        };
        for change in changes {
            if sender.send(change).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, ModifyKind};

    use super::changes_something;

    #[test]
    fn reads_change_nothing_and_a_write_closed_does() {
        for quiet in [
            AccessKind::Open(AccessMode::Any),
            AccessKind::Read,
            AccessKind::Close(AccessMode::Read),
            AccessKind::Close(AccessMode::Any),
            AccessKind::Any,
        ] {
            assert!(!changes_something(EventKind::Access(quiet)), "{quiet:?}");
        }
        for change in [
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Modify(ModifyKind::Data(DataChange::Any)),
            EventKind::Create(CreateKind::File),
            EventKind::Any,
        ] {
            assert!(changes_something(change), "{change:?}");
        }
    }
}
