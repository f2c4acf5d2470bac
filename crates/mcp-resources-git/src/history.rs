//! History: one commit with the files it changed, a page of the log, a unified diff between
//! two revisions.
//!
//! **Layer:** provider (`mcp-resources-git`). Blocking gitoxide reads that give JSON values or
//! diff text; this module never knows the engine, URIs' parsing or the watcher.
//!
//! A file whose path has a secret-looking component is named in a commit's file list and in a
//! diff (its name is no secret), marked withheld, and its contents never appear: no lines, no
//! line counts. Submodules and symlinks are left out of both. Line counts and hunks are
//! computed on lines (histogram diff); a blob with a NUL in its first 8,000 bytes is binary
//! (git's test), counted and shown as such. The unified diff has git's headers and three lines
//! of context, but no function names after `@@` and no "No newline at end of file" marks.

use std::fmt::Write as _;
use std::ops::ControlFlow;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::diff::blob::unified_diff::{ConsumeBinaryHunk, ContextSize};
use gix::diff::blob::{Algorithm, InternedInput, UnifiedDiff};
use gix::objs::tree::EntryKind;
use mcp_resources_core::secret::SecretNames;
use serde_json::{Value, json};

use crate::tree::path_served;

/// How a file changed between two trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    Added,
    Deleted,
    Modified,
    Renamed,
    Copied,
    /// A file became a symlink or the reverse, or gained or lost its executable bit only.
    TypeChanged,
}

impl ChangeKind {
    fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Modified => "modified",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Copied => "copied",
            ChangeKind::TypeChanged => "typechange",
        }
    }
}

/// One changed file.
#[derive(Clone, Debug)]
pub(crate) struct FileChange {
    pub(crate) kind: ChangeKind,
    /// Its path after the change (before it, for a deletion).
    pub(crate) path: BString,
    /// Its path before a rename or copy.
    pub(crate) old_path: Option<BString>,
    /// Its blob before and after (`None` where it did not exist, or was no file).
    pub(crate) old: Option<ObjectId>,
    pub(crate) new: Option<ObjectId>,
}

fn is_file(kind: EntryKind) -> bool {
    matches!(kind, EntryKind::Blob | EntryKind::BlobExecutable)
}

/// The files changed from the tree of `old` (the empty tree when `None`) to that of `new`,
/// renames and copies found, in tree order; only changes at or below `within` when given.
pub(crate) fn changes(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: ObjectId,
    within: Option<&[u8]>,
) -> Result<Vec<FileChange>, gix::Error> {
    let new_tree = repo.find_commit(new)?.tree()?;
    let old_tree = match old {
        Some(old) => repo.find_commit(old)?.tree()?,
        None => repo.empty_tree(),
    };
    let mut platform = old_tree.changes()?;
    platform.options(|options| {
        options
            .track_path()
            .track_rewrites(Some(gix::diff::Rewrites::default()));
    });
    let mut found = Vec::new();
    platform.for_each_to_obtain_tree(&new_tree, |change| -> Result<_, gix::Error> {
        use gix::object::tree::diff::Change;
        let (kind, path, old_path, old, new) = match change {
            Change::Addition {
                location,
                entry_mode,
                id,
                ..
            } => (
                ChangeKind::Added,
                location,
                None,
                None,
                Some((entry_mode.kind(), id.detach())),
            ),
            Change::Deletion {
                location,
                entry_mode,
                id,
                ..
            } => (
                ChangeKind::Deleted,
                location,
                None,
                Some((entry_mode.kind(), id.detach())),
                None,
            ),
            Change::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } => (
                if previous_entry_mode.kind() == entry_mode.kind() {
                    ChangeKind::Modified
                } else {
                    ChangeKind::TypeChanged
                },
                location,
                None,
                Some((previous_entry_mode.kind(), previous_id.detach())),
                Some((entry_mode.kind(), id.detach())),
            ),
            Change::Rewrite {
                source_location,
                source_entry_mode,
                source_id,
                entry_mode,
                location,
                id,
                copy,
                ..
            } => (
                if copy {
                    ChangeKind::Copied
                } else {
                    ChangeKind::Renamed
                },
                location,
                Some(source_location.to_owned()),
                Some((source_entry_mode.kind(), source_id.detach())),
                Some((entry_mode.kind(), id.detach())),
            ),
        };
        let either_is_file = old.is_some_and(|(kind, _)| is_file(kind))
            || new.is_some_and(|(kind, _)| is_file(kind));
        let inside = |path: &[u8]| {
            within.is_none_or(|within| {
                path == within
                    || (path.starts_with(within) && path.get(within.len()) == Some(&b'/'))
            })
        };
        let concerns = inside(path) || old_path.as_deref().is_some_and(|p| inside(p));
        if either_is_file && concerns {
            found.push(FileChange {
                kind,
                path: path.to_owned(),
                old_path,
                old: old.filter(|(kind, _)| is_file(*kind)).map(|(_, id)| id),
                new: new.filter(|(kind, _)| is_file(*kind)).map(|(_, id)| id),
            });
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(found)
}

/// Whether `data` is binary by git's test: a NUL in its first 8,000 bytes.
fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

fn blob_data(repo: &gix::Repository, id: Option<ObjectId>) -> Result<Vec<u8>, gix::Error> {
    match id {
        Some(id) => Ok(repo.find_blob(id)?.take_data()),
        None => Ok(Vec::new()),
    }
}

/// Lines added and removed from `old` to `new`, `None` when either is binary.
fn line_counts(old: &[u8], new: &[u8]) -> Option<(u32, u32)> {
    if is_binary(old) || is_binary(new) {
        return None;
    }
    let input = InternedInput::new(old, new);
    let diff = gix::diff::blob::diff_with_slider_heuristics(Algorithm::Histogram, &input);
    Some((diff.count_additions(), diff.count_removals()))
}

fn signature(signature: gix::actor::SignatureRef<'_>) -> Value {
    let date = signature
        .time()
        .map(|time| time.format_or_unix(gix::date::time::format::ISO8601_STRICT))
        .unwrap_or_default();
    json!({
        "name": signature.name.to_str_lossy(),
        "email": signature.email.to_str_lossy(),
        "date": date,
    })
}

/// The JSON of one commit: id, parents, author, committer, message, and the files it changed
/// against its first parent (all of them for a root commit).
pub(crate) fn commit(
    repo: &gix::Repository,
    secrets: &SecretNames,
    id: ObjectId,
) -> Result<Value, gix::Error> {
    let commit = repo.find_commit(id)?;
    let decoded = commit.decode()?;
    let parents: Vec<ObjectId> = decoded.parents().collect();
    let mut files = Vec::new();
    for change in changes(repo, parents.first().copied(), id, None)? {
        let mut file = json!({
            "path": change.path.to_str_lossy(),
            "change": change.kind.as_str(),
        });
        if let Some(old_path) = &change.old_path {
            file["oldPath"] = json!(old_path.to_str_lossy());
        }
        let withheld = !path_served(secrets, &change.path)
            || change
                .old_path
                .as_deref()
                .is_some_and(|old| !path_served(secrets, old));
        if withheld {
            file["withheld"] = json!(true);
        } else {
            let old = blob_data(repo, change.old)?;
            let new = blob_data(repo, change.new)?;
            match line_counts(&old, &new) {
                Some((additions, deletions)) => {
                    file["additions"] = json!(additions);
                    file["deletions"] = json!(deletions);
                }
                None => file["binary"] = json!(true),
            }
        }
        files.push(file);
    }
    Ok(json!({
        "id": id.to_string(),
        "parents": parents.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "author": signature(decoded.author()?),
        "committer": signature(decoded.committer()?),
        "message": decoded.message.to_str_lossy(),
        "files": files,
    }))
}

/// One page of the log.
pub(crate) struct LogPage {
    /// The commits, newest first, as JSON.
    pub(crate) commits: Vec<Value>,
    /// The last commit's id when there are more.
    pub(crate) more_after: Option<ObjectId>,
    /// Whether `after` was found (a page after an unknown commit is no page).
    pub(crate) found_after: bool,
}

/// The entry at `path` in the tree of `commit`, `None` when there is none.
fn entry_id(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &[u8],
) -> Result<Option<ObjectId>, gix::Error> {
    let tree = repo.find_commit(commit)?.tree()?;
    Ok(tree
        .lookup_entry(path.split(|byte| *byte == b'/'))?
        .map(|entry| entry.object_id()))
}

/// Up to `limit` commits reachable from `tip`, newest first by commit time, after the commit
/// `after` when given; with `path`, only commits whose entry there differs from their first
/// parent's. At most `scan_limit` commits are looked at for one page.
pub(crate) fn log(
    repo: &gix::Repository,
    tip: ObjectId,
    path: Option<&[u8]>,
    after: Option<ObjectId>,
    limit: usize,
    scan_limit: usize,
) -> Result<LogPage, gix::Error> {
    use gix::revision::walk::{CommitTimeOrder, Sorting};
    let walk = repo
        .rev_walk([tip])
        .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
        .all()?;
    let mut page = LogPage {
        commits: Vec::new(),
        more_after: None,
        found_after: after.is_none(),
    };
    for info in walk.take(scan_limit) {
        let info = info?;
        if !page.found_after {
            page.found_after = Some(info.id) == after;
            continue;
        }
        if let Some(path) = path {
            let here = entry_id(repo, info.id, path)?;
            let before = match info.parent_ids.first() {
                Some(parent) => entry_id(repo, *parent, path)?,
                None => None,
            };
            if here == before {
                continue;
            }
        }
        if page.commits.len() == limit {
            page.more_after = page
                .commits
                .last()
                .and_then(|last| last["id"].as_str())
                .and_then(|id| ObjectId::from_hex(id.as_bytes()).ok());
            break;
        }
        let commit = repo.find_commit(info.id)?;
        let decoded = commit.decode()?;
        let summary = decoded.message_summary();
        page.commits.push(json!({
            "id": info.id.to_string(),
            "parents": info.parent_ids.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "author": signature(decoded.author()?),
            "date": signature(decoded.committer()?)["date"],
            "summary": summary.to_str_lossy(),
        }));
    }
    Ok(page)
}

/// A unified diff from `base` to `head` of the files at or below `within`, at most `budget`
/// bytes; a longer one is cut at a file's or hunk's end and says so in its last line.
pub(crate) fn diff(
    repo: &gix::Repository,
    secrets: &SecretNames,
    base: ObjectId,
    head: ObjectId,
    within: Option<&[u8]>,
    budget: usize,
) -> Result<String, gix::Error> {
    let mut out = String::new();
    let changes = changes(repo, Some(base), head, within)?;
    let total = changes.len();
    for (shown, change) in changes.into_iter().enumerate() {
        let text = file_diff(repo, secrets, &change)?;
        if out.len() + text.len() > budget {
            let _ = writeln!(
                out,
                "# cut: this diff is over {budget} bytes; {} of its {total} files are shown. \
                 Narrow it with ?path=",
                shown
            );
            return Ok(out);
        }
        out.push_str(&text);
    }
    Ok(out)
}

/// The diff of one file, headers included.
fn file_diff(
    repo: &gix::Repository,
    secrets: &SecretNames,
    change: &FileChange,
) -> Result<String, gix::Error> {
    let new_path = change.path.to_str_lossy();
    let old_path = change
        .old_path
        .as_ref()
        .map_or_else(|| new_path.clone(), |old| old.to_str_lossy());
    let mut out = format!("diff --git a/{old_path} b/{new_path}\n");
    match change.kind {
        ChangeKind::Added => out.push_str("new file\n"),
        ChangeKind::Deleted => out.push_str("deleted file\n"),
        ChangeKind::Renamed => {
            let _ = write!(out, "rename from {old_path}\nrename to {new_path}\n");
        }
        ChangeKind::Copied => {
            let _ = write!(out, "copy from {old_path}\ncopy to {new_path}\n");
        }
        ChangeKind::Modified | ChangeKind::TypeChanged => {}
    }
    let withheld = !path_served(secrets, &change.path)
        || change
            .old_path
            .as_deref()
            .is_some_and(|old| !path_served(secrets, old));
    if withheld {
        out.push_str("# withheld: a secret-looking file; its contents are never served\n");
        return Ok(out);
    }
    let old = blob_data(repo, change.old)?;
    let new = blob_data(repo, change.new)?;
    if old == new {
        return Ok(out);
    }
    if is_binary(&old) || is_binary(&new) {
        let _ = writeln!(out, "Binary files a/{old_path} and b/{new_path} differ");
        return Ok(out);
    }
    let old_name = if change.old.is_some() {
        format!("a/{old_path}")
    } else {
        "/dev/null".to_owned()
    };
    let new_name = if change.new.is_some() {
        format!("b/{new_path}")
    } else {
        "/dev/null".to_owned()
    };
    let _ = write!(out, "--- {old_name}\n+++ {new_name}\n");
    let input = InternedInput::new(old.as_slice(), new.as_slice());
    let diff = gix::diff::blob::diff_with_slider_heuristics(Algorithm::Histogram, &input);
    let hunks = UnifiedDiff::new(
        &diff,
        &input,
        ConsumeBinaryHunk::new(BString::default(), "\n"),
        ContextSize::symmetrical(3),
    )
    .consume()
    // Only the sink could fail, and a byte string takes anything.
    .unwrap_or_else(|_| BString::from("# this file's hunks could not be made\n"));
    out.push_str(&hunks.to_str_lossy());
    Ok(out)
}
