//! Trees at a revision: the entry at a path, a directory's children, a file's bytes, and the
//! index of every file of HEAD's tree that the resource list pages through.
//!
//! **Layer:** provider (`mcp-resources-git`). Blocking gitoxide reads; this module never knows
//! the engine, the watcher or JSON. It decides what is served in a tree: blobs (plain and
//! executable) and trees, never a symlink (its target is never followed, and it is not
//! served as a file), a submodule (never followed), `.git`, or anything whose path has a
//! secret-looking component.

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::objs::tree::{EntryKind, EntryRef};
use gix::traverse::tree::Visit;
use gix::traverse::tree::visit::Action;
use mcp_resources_core::secret::SecretNames;
use mcp_resources_core::uri::encode_segment;

/// What a path names in a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A file: its blob.
    File(ObjectId),
    /// A directory: its tree.
    Directory(ObjectId),
}

/// One child of a directory.
#[derive(Clone, Debug)]
pub(crate) struct Child {
    /// Its name, percent-encoded: the last segment of its URI.
    pub(crate) key: String,
    /// Its name.
    pub(crate) name: BString,
    /// What it is.
    pub(crate) entry: Entry,
}

/// Whether the path component `name` below `parent` (a `/`-separated path, `""` at the top)
/// may be served: not `.git` (in any case), not secret-looking.
pub(crate) fn component_served(secrets: &SecretNames, name: &[u8], parent: &[u8]) -> bool {
    let name = String::from_utf8_lossy(name);
    !name.eq_ignore_ascii_case(".git")
        && !secrets.component_is_secret(&name, || String::from_utf8_lossy(parent).into_owned())
}

/// Whether every component of `path` may be served.
pub(crate) fn path_served(secrets: &SecretNames, path: &[u8]) -> bool {
    let mut end: usize = 0;
    path.split(|byte| *byte == b'/').all(|name| {
        let parent = &path[..end.saturating_sub(1)];
        end += name.len() + 1;
        component_served(secrets, name, parent)
    })
}

/// The served kind of a tree entry's mode: `None` for symlinks and submodules.
fn served(kind: EntryKind, id: ObjectId) -> Option<Entry> {
    match kind {
        EntryKind::Blob | EntryKind::BlobExecutable => Some(Entry::File(id)),
        EntryKind::Tree => Some(Entry::Directory(id)),
        EntryKind::Link | EntryKind::Commit => None,
    }
}

/// What `path` names in the tree of `commit` (`""`: the root tree), `None` when nothing that
/// is served. Every component is checked.
pub(crate) fn entry_at(
    repo: &gix::Repository,
    secrets: &SecretNames,
    commit: ObjectId,
    path: &[u8],
) -> Result<Option<Entry>, gix::Error> {
    let tree_id = repo.find_commit(commit)?.tree_id()?.detach();
    if path.is_empty() {
        return Ok(Some(Entry::Directory(tree_id)));
    }
    if !path_served(secrets, path) {
        return Ok(None);
    }
    Ok(lookup(repo, tree_id, path)?.and_then(|(kind, id)| served(kind, id)))
}

/// The kind and object of the entry at `path` below the tree `tree`, `None` when there is
/// none. Only trees are entered: a path through a file, a symlink or a submodule names
/// nothing (a submodule's commit is never looked for).
pub(crate) fn lookup(
    repo: &gix::Repository,
    tree: ObjectId,
    path: &[u8],
) -> Result<Option<(EntryKind, ObjectId)>, gix::Error> {
    let mut current = tree;
    let mut names = path.split(|byte| *byte == b'/').peekable();
    while let Some(name) = names.next() {
        let tree = repo.find_tree(current)?;
        let Some(entry) = tree.find_entry(name) else {
            return Ok(None);
        };
        let (kind, id) = (entry.mode().kind(), entry.object_id());
        if names.peek().is_none() {
            return Ok(Some((kind, id)));
        }
        if kind != EntryKind::Tree {
            return Ok(None);
        }
        current = id;
    }
    Ok(None)
}

/// The served children of the tree `tree` at `path`, in the order of their encoded names
/// (their URIs' order).
pub(crate) fn children(
    repo: &gix::Repository,
    secrets: &SecretNames,
    tree: ObjectId,
    path: &[u8],
) -> Result<Vec<Child>, gix::Error> {
    let tree = repo.find_tree(tree)?;
    let mut children = Vec::new();
    for entry in tree.iter() {
        let entry = entry?;
        let name = entry.filename();
        let Some(served) = served(entry.mode().kind(), entry.object_id()) else {
            continue;
        };
        if !component_served(secrets, name, path) {
            continue;
        }
        children.push(Child {
            key: encode_segment(name),
            name: name.to_owned(),
            entry: served,
        });
    }
    children.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    Ok(children)
}

/// The size of the blob `id` in bytes, from its header (its data is not inflated).
pub(crate) fn blob_size(repo: &gix::Repository, id: ObjectId) -> Result<u64, gix::Error> {
    Ok(repo.find_header(id)?.size())
}

/// Every served file of one commit's tree, in the order of its encoded path.
#[derive(Debug)]
pub(crate) struct FileIndex {
    /// The commit indexed.
    pub(crate) commit: ObjectId,
    files: Vec<IndexedFile>,
}

/// One file of a [`FileIndex`].
#[derive(Debug)]
pub(crate) struct IndexedFile {
    /// Its encoded path: what follows the tree's URI and a `/`.
    pub(crate) key: String,
    /// Its path.
    pub(crate) path: BString,
    /// Its blob.
    pub(crate) blob: ObjectId,
}

impl FileIndex {
    /// Walks the tree of `commit`, leaving out what is not served (and never entering a
    /// secret-looking directory).
    pub(crate) fn build(
        repo: &gix::Repository,
        secrets: &SecretNames,
        commit: ObjectId,
    ) -> Result<FileIndex, gix::Error> {
        let tree = repo.find_commit(commit)?.tree()?;
        let mut collector = Collector {
            secrets,
            path: BString::default(),
            queued: std::collections::VecDeque::new(),
            files: Vec::new(),
        };
        tree.traverse().depthfirst(&mut collector)?;
        let mut files = collector.files;
        files.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        Ok(FileIndex { commit, files })
    }

    /// How many files.
    pub(crate) fn len(&self) -> usize {
        self.files.len()
    }

    /// The files whose key is greater than `after`, in order.
    pub(crate) fn after(&self, after: Option<&str>) -> &[IndexedFile] {
        let start = after.map_or(0, |after| {
            self.files
                .partition_point(|file| file.key.as_str() <= after)
        });
        &self.files[start..]
    }
}

/// The encoded form of a `/`-separated path: each segment encoded, joined by `/`.
pub(crate) fn encode_path(path: &[u8]) -> String {
    path.split(|byte| *byte == b'/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// The tree walk of [`FileIndex::build`].
struct Collector<'a> {
    secrets: &'a SecretNames,
    path: BString,
    queued: std::collections::VecDeque<BString>,
    files: Vec<IndexedFile>,
}

impl Collector<'_> {
    fn push(&mut self, name: &BStr) {
        if name.is_empty() {
            return;
        }
        if !self.path.is_empty() {
            self.path.push(b'/');
        }
        self.path.extend_from_slice(name);
    }

    /// Whether the last component of the current path may be served.
    fn last_served(&self) -> bool {
        let (parent, name) = match self.path.rfind_byte(b'/') {
            Some(slash) => (&self.path[..slash], &self.path[slash + 1..]),
            None => (&b""[..], &self.path[..]),
        };
        component_served(self.secrets, name, parent)
    }
}

impl Visit for Collector<'_> {
    fn pop_back_tracked_path_and_set_current(&mut self) {
        self.path = self.queued.pop_back().unwrap_or_default();
    }

    fn pop_front_tracked_path_and_set_current(&mut self) {
        self.path = self.queued.pop_front().unwrap_or_default();
    }

    fn push_back_tracked_path_component(&mut self, component: &BStr) {
        self.push(component);
        self.queued.push_back(self.path.clone());
    }

    fn push_path_component(&mut self, component: &BStr) {
        self.push(component);
    }

    fn pop_path_component(&mut self) {
        match self.path.rfind_byte(b'/') {
            Some(slash) => self.path.truncate(slash),
            None => self.path.clear(),
        }
    }

    fn visit_tree(&mut self, _entry: &EntryRef<'_>) -> Action {
        // A secret-looking directory is not entered at all.
        std::ops::ControlFlow::Continue(self.last_served())
    }

    fn visit_nontree(&mut self, entry: &EntryRef<'_>) -> Action {
        let kind = entry.mode.kind();
        if matches!(kind, EntryKind::Blob | EntryKind::BlobExecutable) && self.last_served() {
            self.files.push(IndexedFile {
                key: encode_path(&self.path),
                path: self.path.clone(),
                blob: entry.oid.to_owned(),
            });
        }
        std::ops::ControlFlow::Continue(true)
    }
}
