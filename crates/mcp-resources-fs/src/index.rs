//! The sorted index of served files and directories, and the walk that fills it.
//!
//! **Layer:** provider (`mcp-resources-fs`). The index maps the canonical URI of every served file
//! to its listing metadata, in URI order, so a list page is a range query; and the URI of every
//! directory the walk entered (the roots included) to its own, so a page of one directory's
//! children is a few range queries over both maps, whatever the size of the tree
//! ([`Index::children`]). The walk visits a
//! root (or one subtree of it, when the watcher asks) through handles opened
//! [`beneath`] it, never follows or lists a symlink, lists only regular files,
//! and asks [`exclude`](super::exclude) about every entry before descending or indexing it. This
//! module never reads a file's contents and never knows the watcher or the provider trait.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_resources_core::resource::{Annotations, Resource, ResourceTemplate, Timestamp};
use mcp_resources_core::uri::ResourceUri;

use super::beneath::{self, FileStat, Kind, RootDir};
use super::exclude::{Level, Rules, check_relative, is_ignored};
use super::uri::{file_uri, slash_path};

/// The index: canonical URI to metadata, in URI order, for files and for directories. Keys are
/// looked up and ranged over as `&str` (through `Borrow<str>`).
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Every served file.
    pub(crate) files: BTreeMap<ResourceUri, FileMeta>,
    /// Every directory the walk entered: not ignored, not a symlink, below or at a root.
    pub(crate) directories: BTreeMap<ResourceUri, DirMeta>,
}

impl Index {
    /// Adds what a walk found.
    pub(crate) fn extend(&mut self, scan: Scan) {
        self.files.extend(scan.files);
        self.directories.extend(scan.listed);
    }

    /// Up to `limit` direct children of the directory `directory` (files and directories, in
    /// canonical-URI order, strictly after `after`), or `None` when it is no indexed directory.
    ///
    /// Both maps are walked from the directory's prefix with one range query per child: an
    /// entry deeper down sends its map straight past the subtree holding it (the key after
    /// `dir/sub/` is `dir/sub0`, as `0` follows `/`), so a page costs the same in a tree of any
    /// size.
    pub(crate) fn children(
        &self,
        directory: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Option<Vec<Resource>> {
        if !self.directories.contains_key(directory) {
            return None;
        }
        let prefix = format!("{directory}/");
        let start = match after {
            Some(after) if after >= prefix.as_str() => Bound::Excluded(after.to_owned()),
            _ => Bound::Included(prefix.clone()),
        };
        let mut files = Children::new(&self.files, &prefix, start.clone()).peekable();
        let mut directories = Children::new(&self.directories, &prefix, start).peekable();
        let mut children = Vec::with_capacity(limit.min(1024));
        while children.len() < limit {
            let file_first = match (files.peek(), directories.peek()) {
                (Some((file, _)), Some((directory, _))) => file.as_str() < directory.as_str(),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let child = if file_first {
                files.next().map(|(uri, meta)| meta.resource(uri))
            } else {
                directories.next().map(|(uri, meta)| meta.resource(uri))
            };
            children.extend(child);
        }
        Some(children)
    }
}

/// The direct children of one directory in one map of the index, in key order (see
/// [`Index::children`]).
struct Children<'a, V> {
    map: &'a BTreeMap<ResourceUri, V>,
    /// The directory's URI and a slash.
    prefix: &'a str,
    /// Where the next look starts.
    from: Bound<String>,
}

impl<'a, V> Children<'a, V> {
    fn new(map: &'a BTreeMap<ResourceUri, V>, prefix: &'a str, from: Bound<String>) -> Self {
        Children { map, prefix, from }
    }
}

impl<'a, V> Iterator for Children<'a, V> {
    type Item = (&'a ResourceUri, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let bound = match &self.from {
                Bound::Included(key) => Bound::Included(key.as_str()),
                Bound::Excluded(key) => Bound::Excluded(key.as_str()),
                Bound::Unbounded => Bound::Unbounded,
            };
            let (uri, value) = self.map.range::<str, _>((bound, Bound::Unbounded)).next()?;
            let rest = uri.as_str().strip_prefix(self.prefix)?;
            match rest.find('/') {
                // Below a subdirectory: past its whole subtree.
                Some(slash) => {
                    self.from = Bound::Included(format!("{}{}0", self.prefix, &rest[..slash]));
                }
                None => {
                    self.from = Bound::Excluded(uri.as_str().to_owned());
                    return Some((uri, value));
                }
            }
        }
    }
}

/// What a directory read shows about one directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DirMeta {
    /// The path relative to its root, with `/` separators (empty for a root).
    pub(crate) title: String,
    /// The directory's name.
    pub(crate) name: String,
}

impl DirMeta {
    /// The directory resource `uri` as listed.
    pub(crate) fn resource(&self, uri: &ResourceUri) -> Resource {
        let resource = Resource::directory(uri.clone(), self.name.clone());
        if self.title.is_empty() {
            resource
        } else {
            resource.with_title(self.title.clone())
        }
    }
}

/// One served root directory.
#[derive(Debug)]
pub(crate) struct Root {
    /// The canonical path.
    pub(crate) path: PathBuf,
    /// The root, opened: every path below it is resolved from this handle.
    pub(crate) dir: RootDir,
    /// Whether files with more than one hard link are refused
    /// ([`FsConfig::refuse_hard_links`](super::FsConfig::refuse_hard_links)).
    pub(crate) refuse_hard_links: bool,
    /// The encoded URI path every file below it starts with (ends in `/`).
    pub(crate) path_prefix: String,
    /// `file://` followed by `path_prefix`.
    pub(crate) uri_prefix: String,
    /// The ignore matchers that apply above the root, shallowest first.
    pub(crate) base: Vec<Level>,
    /// The ranged-read template of this root.
    pub(crate) template: ResourceTemplate,
}

/// What a list shows about one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileMeta {
    /// The path relative to its root, with `/` separators.
    pub(crate) title: String,
    /// The file name.
    pub(crate) name: String,
    pub(crate) size: u64,
    pub(crate) modified: Option<SystemTime>,
    pub(crate) mime: Option<&'static str>,
    /// Its directory could not be watched: its changes are not seen until a rescan.
    pub(crate) unwatched: bool,
}

impl FileMeta {
    /// The resource `uri` as listed.
    pub(crate) fn resource(&self, uri: &ResourceUri) -> Resource {
        let mut resource = Resource::new(uri.clone(), self.name.clone())
            .with_title(self.title.clone())
            .with_size(self.size);
        if let Some(mime) = self.mime {
            resource = resource.with_mime_type(mime);
        }
        if self.unwatched {
            resource = resource.with_description(UNWATCHED);
        }
        if let Some(modified) = self.modified {
            resource = resource.with_annotations(Annotations {
                last_modified: Some(timestamp(modified)),
                ..Annotations::default()
            });
        }
        resource
    }
}

/// The description of a file whose directory could not be watched.
pub(crate) const UNWATCHED: &str = "Not watched: the server reached the system's limit on \
    watched directories, so changes to this file are not notified and its listing may be out \
    of date (on Linux, raise fs.inotify.max_user_watches).";

/// Marks the files of `files` that lie directly in one of the directories `failed` (which
/// could not be watched) as unwatched.
pub(crate) fn mark_unwatched(files: &mut [(ResourceUri, FileMeta)], failed: &[PathBuf]) {
    if failed.is_empty() {
        return;
    }
    let failed: std::collections::HashSet<String> =
        failed.iter().map(|directory| file_uri(directory)).collect();
    for (uri, meta) in files {
        let parent = uri
            .as_str()
            .rsplit_once('/')
            .map_or("", |(parent, _)| parent);
        meta.unwatched = failed.contains(parent);
    }
}

/// The RFC 3339 UTC timestamp of a modification time, to the second.
pub(crate) fn timestamp(time: SystemTime) -> Timestamp {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_secs()).map_or(i64::MIN, |s| -s),
    };
    Timestamp::from_unix_seconds(seconds)
}

/// What a walk found: files (URI and metadata) and the directories it entered, as paths (to
/// watch) and as index entries.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub(crate) files: Vec<(ResourceUri, FileMeta)>,
    pub(crate) directories: Vec<PathBuf>,
    pub(crate) listed: Vec<(ResourceUri, DirMeta)>,
}

/// Walks `path` (the root itself or anything below it) and returns what should be in the index
/// for it: nothing when it is gone, excluded, not below `root`, or reached through a symlink.
pub(crate) fn scan_path(rules: &Rules, root: &Root, path: &Path) -> Scan {
    let mut scan = Scan::default();
    let Ok(relative) = path.strip_prefix(&root.path) else {
        return scan;
    };
    let walker = Walker { rules, root };
    if relative.as_os_str().is_empty() {
        walker.visit_directory(path, relative, &mut Vec::new(), &mut scan);
        return scan;
    }
    // The path's own kind, as its parent lists it (a symlink is not followed).
    let Some(name) = relative.file_name() else {
        return scan;
    };
    let parent = relative.parent().unwrap_or(Path::new(""));
    let Ok(Some(parent_dir)) = beneath::open_dir(&root.dir, parent) else {
        return scan;
    };
    let stat = match beneath::stat_at(&parent_dir, name) {
        Ok(Some(stat)) => stat,
        _ => return scan,
    };
    let is_dir = stat.kind == Kind::Directory;
    let Some(mut levels) = check_relative(rules, &root.path, &root.base, relative, is_dir) else {
        return scan;
    };
    match stat.kind {
        Kind::Directory => walker.visit_directory(path, relative, &mut levels, &mut scan),
        Kind::File => scan.files.extend(walker.served_file(path, relative, &stat)),
        Kind::Symlink | Kind::Other => {}
    }
    scan
}

struct Walker<'a> {
    rules: &'a Rules,
    root: &'a Root,
}

impl Walker<'_> {
    /// Lists the directory `relative` (at `path`) through a handle opened beneath the root,
    /// indexes its regular files and walks its directories; symlinks, FIFOs, sockets and
    /// devices are left out.
    fn visit_directory(
        &self,
        path: &Path,
        relative: &Path,
        levels: &mut Vec<Level>,
        scan: &mut Scan,
    ) {
        // The handle is closed before the walk goes deeper: a deep tree holds no descriptors.
        let entries = match beneath::open_dir(&self.root.dir, relative)
            .and_then(|dir| dir.map(|dir| beneath::entries(&dir)).transpose())
        {
            Ok(Some(entries)) => entries,
            Ok(None) => return,
            Err(error) => {
                tracing::debug!(path = %path.display(), %error, "directory skipped");
                return;
            }
        };
        scan.directories.push(path.to_path_buf());
        scan.listed.extend(dir_meta(path, relative));
        let pushed = match self.rules.level(path) {
            Some(level) => {
                levels.push(level);
                true
            }
            None => false,
        };
        for entry in entries {
            let child_relative = relative.join(&entry.name);
            if self.rules.last_component_is_special(&child_relative) {
                continue;
            }
            let is_dir = match entry.stat.kind {
                Kind::Directory => true,
                Kind::File => false,
                Kind::Symlink | Kind::Other => continue,
            };
            let child = path.join(&entry.name);
            if is_ignored(self.root.base.iter().chain(levels.iter()), &child, is_dir) {
                continue;
            }
            if is_dir {
                self.visit_directory(&child, &child_relative, levels, scan);
            } else {
                scan.files
                    .extend(self.served_file(&child, &child_relative, &entry.stat));
            }
        }
        if pushed {
            levels.pop();
        }
    }

    /// The index entry of the regular file at `path`, unless the root refuses it for its hard
    /// links: the one rule for files met by a walk and files named by the watcher.
    fn served_file(
        &self,
        path: &Path,
        relative: &Path,
        stat: &FileStat,
    ) -> Option<(ResourceUri, FileMeta)> {
        if self.root.refuse_hard_links && stat.links > 1 {
            tracing::debug!(path = %path.display(), "file skipped: it has other hard links");
            return None;
        }
        file_meta(path, relative, stat)
    }
}

/// The index entry of the directory at `path` (`relative` to its root).
fn dir_meta(path: &Path, relative: &Path) -> Option<(ResourceUri, DirMeta)> {
    let uri = canonical_uri(path)?;
    let name = path.file_name()?.to_string_lossy().into_owned();
    let meta = DirMeta {
        title: slash_path(relative),
        name,
    };
    Some((uri, meta))
}

/// The canonical URI of `path`, if its `file://` URI is one (a name that does not encode to a
/// canonical URI is left out, and said so).
fn canonical_uri(path: &Path) -> Option<ResourceUri> {
    let key = file_uri(path);
    match ResourceUri::parse(&key) {
        Ok(uri) if uri.as_str() == key => Some(uri),
        Ok(uri) => {
            tracing::warn!(%key, canonical = %uri, "skipped: its uri is not canonical");
            None
        }
        Err(error) => {
            tracing::debug!(path = %path.display(), %error, "skipped: no valid uri");
            None
        }
    }
}

/// The index entry of the regular file at `path` (`relative` to its root).
fn file_meta(path: &Path, relative: &Path, stat: &FileStat) -> Option<(ResourceUri, FileMeta)> {
    let uri = canonical_uri(path)?;
    let name = path.file_name()?.to_string_lossy().into_owned();
    let meta = FileMeta {
        title: slash_path(relative),
        mime: mime_guess::from_path(&name).first_raw(),
        name,
        size: stat.len,
        modified: stat.modified,
        unwatched: false,
    };
    Some((uri, meta))
}

/// Removes from `index` the file or directory `key` and everything below it (keys starting
/// with `key/`), returning what was removed.
pub(crate) fn remove_subtree(index: &mut Index, key: &str) -> Index {
    Index {
        files: remove_below(&mut index.files, key),
        directories: remove_below(&mut index.directories, key),
    }
}

/// [`remove_subtree`] in one map.
fn remove_below<V>(map: &mut BTreeMap<ResourceUri, V>, key: &str) -> BTreeMap<ResourceUri, V> {
    let mut removed = BTreeMap::new();
    if let Some((uri, value)) = map.remove_entry(key) {
        removed.insert(uri, value);
    }
    let prefix = if key.ends_with('/') {
        key.to_owned()
    } else {
        format!("{key}/")
    };
    let below: Vec<ResourceUri> = map
        .range::<str, _>((Bound::Included(prefix.as_str()), Bound::Unbounded))
        .take_while(|(uri, _)| uri.as_str().starts_with(&prefix))
        .map(|(uri, _)| uri.clone())
        .collect();
    for uri in below {
        if let Some(value) = map.remove(uri.as_str()) {
            removed.insert(uri, value);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_unwatched_directories_say_so_in_their_listing() {
        let meta = |title: &str| FileMeta {
            title: title.to_owned(),
            name: title.rsplit('/').next().unwrap().to_owned(),
            size: 1,
            modified: None,
            mime: None,
            unwatched: false,
        };
        let mut files: Vec<(ResourceUri, FileMeta)> = ["a/x.txt", "a/b/y.txt", "z.txt"]
            .iter()
            .map(|title| {
                let uri = ResourceUri::parse(&format!("file:///r/{title}")).unwrap();
                (uri, meta(title))
            })
            .collect();
        mark_unwatched(&mut files, &[PathBuf::from("/r/a")]);
        let marked: Vec<bool> = files.iter().map(|(_, meta)| meta.unwatched).collect();
        assert_eq!(
            marked,
            [true, false, false],
            "only the directory's own files"
        );
        let (uri, meta) = &files[0];
        assert_eq!(meta.resource(uri).description.as_deref(), Some(UNWATCHED));
        assert_eq!(files[2].1.resource(&files[2].0).description, None);
    }
}
