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
use gix::diff::blob::unified_diff::{ConsumeHunk, ContextSize, DiffLineKind, HunkHeader};
use gix::diff::blob::{Algorithm, InternedInput, UnifiedDiff};
use gix::objs::tree::EntryKind;
use mcp_resources_core::secret::SecretNames;
use serde_json::{Value, json};

use crate::tree::{self, path_served};

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
    /// Its blob and kind (plain or executable) before and after (`None` where it did not
    /// exist, or was no file).
    pub(crate) old: Option<(EntryKind, ObjectId)>,
    pub(crate) new: Option<(EntryKind, ObjectId)>,
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
                old: old.filter(|(kind, _)| is_file(*kind)),
                new: new.filter(|(kind, _)| is_file(*kind)),
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

fn blob_data(
    repo: &gix::Repository,
    side: Option<(EntryKind, ObjectId)>,
) -> Result<Vec<u8>, gix::Error> {
    match side {
        Some((_, id)) => Ok(repo.find_blob(id)?.take_data()),
        None => Ok(Vec::new()),
    }
}

/// The size of one side's blob (0 where there is none), from its header.
fn blob_size(
    repo: &gix::Repository,
    side: Option<(EntryKind, ObjectId)>,
) -> Result<u64, gix::Error> {
    match side {
        Some((_, id)) => Ok(repo.find_header(id)?.size()),
        None => Ok(0),
    }
}

/// Whether either side of `change` names a secret-looking path.
fn withheld(secrets: &SecretNames, change: &FileChange) -> bool {
    !path_served(secrets, &change.path)
        || change
            .old_path
            .as_deref()
            .is_some_and(|old| !path_served(secrets, old))
}

/// The most bytes of blobs one commit's line counts read.
const COUNT_BUDGET: u64 = 32 * 1024 * 1024;

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
/// against its first parent (all of them for a root commit): at most [`MAX_COMMIT_FILES`]
/// (`filesCut` then gives how many there are), lines counted for those whose blobs are at most
/// `max_blob` bytes (else `tooLarge`) while the blobs read stay within 32 MiB (`countsCut`
/// once they would not).
///
/// [`MAX_COMMIT_FILES`]: crate::MAX_COMMIT_FILES
pub(crate) fn commit(
    repo: &gix::Repository,
    secrets: &SecretNames,
    id: ObjectId,
    max_blob: usize,
) -> Result<Value, gix::Error> {
    let commit = repo.find_commit(id)?;
    let decoded = commit.decode()?;
    let parents: Vec<ObjectId> = decoded.parents().collect();
    let changed = changes(repo, parents.first().copied(), id, None)?;
    let mut files = Vec::new();
    let mut budget = COUNT_BUDGET;
    let mut counts_cut = false;
    for change in changed.iter().take(crate::MAX_COMMIT_FILES) {
        let mut file = json!({
            "path": change.path.to_str_lossy(),
            "change": change.kind.as_str(),
        });
        if let Some(old_path) = &change.old_path {
            file["oldPath"] = json!(old_path.to_str_lossy());
        }
        if withheld(secrets, change) {
            file["withheld"] = json!(true);
            files.push(file);
            continue;
        }
        let sizes = (blob_size(repo, change.old)?, blob_size(repo, change.new)?);
        if sizes.0.max(sizes.1) > max_blob as u64 {
            file["tooLarge"] = json!(true);
        } else if sizes.0 + sizes.1 > budget {
            counts_cut = true;
        } else {
            budget -= sizes.0 + sizes.1;
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
    let mut value = json!({
        "id": id.to_string(),
        "parents": parents.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "author": signature(decoded.author()?),
        "committer": signature(decoded.committer()?),
        "message": decoded.message.to_str_lossy(),
        "files": files,
    });
    if changed.len() > crate::MAX_COMMIT_FILES {
        value["filesCut"] = json!(changed.len());
    }
    if counts_cut {
        value["countsCut"] = json!(true);
    }
    Ok(value)
}

/// One page of the log.
pub(crate) struct LogPage {
    /// The commits, newest first, as JSON.
    pub(crate) commits: Vec<Value>,
    /// Where the next page starts, when there is one: after the last commit returned, or
    /// after the last one looked at when the scan budget ran out first.
    pub(crate) resume_after: Option<ObjectId>,
    /// Whether `after` was found (a page after an unknown commit is no page).
    pub(crate) found_after: bool,
}

/// The entry at `path` in the tree of `commit`, `None` when there is none.
fn entry_id(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &[u8],
) -> Result<Option<ObjectId>, gix::Error> {
    let tree = repo.find_commit(commit)?.tree_id()?.detach();
    Ok(tree::lookup(repo, tree, path)?.map(|(_, id)| id))
}

/// Up to `limit` commits reachable from `tip`, newest first by commit time, after the commit
/// `after` when given; with `path`, only commits whose entry there differs from their first
/// parent's. At most `scan_limit` commits are looked at for one page, those skipped before
/// `after` included; a page cut by that budget resumes after the last commit looked at.
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
        resume_after: None,
        found_after: after.is_none(),
    };
    let mut last_seen = None;
    let mut scanned = 0;
    for info in walk {
        let info = info?;
        if !page.found_after {
            page.found_after = Some(info.id) == after;
            scanned += 1;
            if scanned >= scan_limit {
                break;
            }
            continue;
        }
        if scanned >= scan_limit {
            // The budget ran out with commits left: go on after the last one looked at.
            page.resume_after = last_seen;
            break;
        }
        scanned += 1;
        if let Some(path) = path {
            let here = entry_id(repo, info.id, path)?;
            let before = match info.parent_ids.first() {
                Some(parent) => entry_id(repo, *parent, path)?,
                None => None,
            };
            if here == before {
                last_seen = Some(info.id);
                continue;
            }
        }
        if page.commits.len() == limit {
            page.resume_after = last_seen;
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
        last_seen = Some(info.id);
    }
    Ok(page)
}

/// A unified diff from `base` to `head` of the files at or below `within`, at most `budget`
/// bytes; a longer one is cut at a file's end and says so in its last line. A file whose blob
/// is larger than `budget` on either side is named, not diffed.
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
    for (shown, change) in changes.iter().enumerate() {
        let text = file_diff(repo, secrets, change, budget as u64)?;
        if out.len() + text.len() > budget {
            let _ = writeln!(
                out,
                "# cut: this diff is over {budget} bytes; {shown} of its {total} files are \
                 shown. Narrow it with ?path="
            );
            return Ok(out);
        }
        out.push_str(&text);
    }
    Ok(out)
}

/// Git's mode of a file's kind.
fn mode(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::BlobExecutable => "100755",
        _ => "100644",
    }
}

/// The diff of one file, headers included, as git writes it (no index line).
fn file_diff(
    repo: &gix::Repository,
    secrets: &SecretNames,
    change: &FileChange,
    max_blob: u64,
) -> Result<String, gix::Error> {
    let new_path = change.path.to_str_lossy();
    let old_path = change
        .old_path
        .as_ref()
        .map_or_else(|| new_path.clone(), |old| old.to_str_lossy());
    let mut out = format!("diff --git a/{old_path} b/{new_path}\n");
    match (change.old, change.new) {
        (None, Some((kind, _))) => {
            let _ = writeln!(out, "new file mode {}", mode(kind));
        }
        (Some((kind, _)), None) => {
            let _ = writeln!(out, "deleted file mode {}", mode(kind));
        }
        (Some((old, _)), Some((new, _))) if old != new => {
            let _ = write!(out, "old mode {}\nnew mode {}\n", mode(old), mode(new));
        }
        _ => {}
    }
    match change.kind {
        ChangeKind::Renamed => {
            let _ = write!(out, "rename from {old_path}\nrename to {new_path}\n");
        }
        ChangeKind::Copied => {
            let _ = write!(out, "copy from {old_path}\ncopy to {new_path}\n");
        }
        _ => {}
    }
    if withheld(secrets, change) {
        out.push_str("# withheld: a secret-looking file; its contents are never served\n");
        return Ok(out);
    }
    let sizes = (blob_size(repo, change.old)?, blob_size(repo, change.new)?);
    if sizes.0.max(sizes.1) > max_blob {
        let _ = writeln!(
            out,
            "# not shown: {} bytes before, {} after, over {max_blob} bytes",
            sizes.0, sizes.1
        );
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
        GitHunks::default(),
        ContextSize::symmetrical(3),
    )
    .consume()
    // Only the sink could fail, and a byte string takes anything.
    .unwrap_or_else(|_| BString::from("# this file's hunks could not be made\n"));
    out.push_str(&hunks.to_str_lossy());
    Ok(out)
}

/// Hunks written as git writes them: a range of one line without its `,1`, an empty range
/// starting at the line before it (`-0,0` for a new file), and `\ No newline at end of file`
/// after a last line without one.
#[derive(Default)]
struct GitHunks {
    out: BString,
}

impl ConsumeHunk for GitHunks {
    type Out = BString;

    fn consume_hunk(
        &mut self,
        header: HunkHeader,
        lines: &[(DiffLineKind, &[u8])],
    ) -> std::io::Result<()> {
        let range = |start: u32, len: u32| match len {
            0 => format!("{},0", start.saturating_sub(1)),
            1 => start.to_string(),
            _ => format!("{start},{len}"),
        };
        let head = format!(
            "@@ -{} +{} @@\n",
            range(header.before_hunk_start, header.before_hunk_len),
            range(header.after_hunk_start, header.after_hunk_len)
        );
        self.out.extend_from_slice(head.as_bytes());
        for (kind, line) in lines {
            self.out.push(match kind {
                DiffLineKind::Context => b' ',
                DiffLineKind::Add => b'+',
                DiffLineKind::Remove => b'-',
            });
            self.out.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                self.out
                    .extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        }
        Ok(())
    }

    fn finish(self) -> BString {
        self.out
    }
}
