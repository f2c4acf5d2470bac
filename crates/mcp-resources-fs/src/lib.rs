//! The filesystem provider: the files under one or more directories as live, safe `file://`
//! resources.
//!
//! **Layer:** provider, a concrete [`Provider`] on the core's seams and nothing else. It does
//! blocking file-system I/O (on tokio's blocking pool when a runtime is there) and watches the
//! tree; it never knows a protocol version, JSON, the subscription hub, the server or the
//! transports. [`FilesystemProvider::watch`] gives a [`ChangeSource`](mcp_resources_core::change::ChangeSource) that
//! the server follows.
//!
//! # What is served
//!
//! Every regular file below a root (roots are canonicalized at start) is a resource whose URI is
//! the `file://` URI of its absolute path, percent-encoded minimally (RFC 8089, RFC 3986), which
//! is also its canonical [`ResourceUri`]. It is listed with its name, its path relative to the
//! root as title, its size, a MIME type guessed from the name and its modification time as the
//! `lastModified` annotation. A read returns text when the bytes are UTF-8 without NUL, and raw
//! bytes otherwise.
//!
//! Never exposed (not listed, not readable, not completed): `.git` and everything below it,
//! secret-looking files ([`DEFAULT_SECRET_PATTERNS`], configurable, a heuristic by name),
//! files ignored by `.gitignore`/`.ignore` (rules below), symlinks (to files or directories,
//! inside the root or not), FIFOs, sockets and devices. Other dotfiles (`.github/`,
//! `.editorconfig`) are served. Reads re-check everything on the request path and never trust
//! the index; a denied file and a missing one both read as `Ok(None)`.
//!
//! # Symlinks, races and hard links
//!
//! A symlink is never followed, so the URI of every file served is the URI of its canonical
//! path: a grant on a URI pattern is a grant on exactly the files below it, and a link inside
//! a granted directory cannot carry that grant to a file elsewhere. Every open goes through
//! the `beneath` module, which resolves the path beneath the root's handle atomically (`openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, or a no-follow walk where that is missing), so a
//! local writer who swaps a directory for a symlink mid-read gets a refusal, not a file from
//! outside. The walk that builds the index lists directories through the same handles.
//!
//! A hard link is the file itself, and cannot be told apart from it: a hard link inside a root
//! to a file outside it (or outside a grant) is served as what it is named. Only someone who can
//! write inside the tree can make one (and only to a file they could read). With
//! [`FsConfig::refuse_hard_links`], files with more than one link are neither listed nor read.
//!
//! # Ranged reads and routing
//!
//! Each root `R` has one template, `file://R/{+path}{?offset,length}` (listed through
//! [`Provider::templates`]). Its query expression is order-free and optional, so the template
//! matches plain file URIs too: the engine routes every `file://` URI below a root to this
//! provider (through [`Provider::claims`], a prefix check), with or without a query;
//! `file://localhost/...` and other authorities are not claimed. The provider does not use the
//! template's decoded `path` variable (it cannot tell `%2F` from `/`); it decodes the URI path
//! itself, once, and reads the query itself: only `offset` and `length` are
//! accepted, each at most once; any other query parameter makes the URI name nothing. A ranged
//! read returns exactly those bytes (cut at the end of the file), as text when they are UTF-8
//! without NUL and as bytes otherwise. The engine's own byte range, when it asks for one, is
//! applied within that part.
//!
//! A read of more than [`FsConfig::max_read_bytes`] (default 8 MiB, counted as sent: base64
//! for binary, escaped for text) fails with an invalid-params error
//! that names the template and gives an example ranged URI; keep that limit no larger than the
//! engine's.
//!
//! # Directories
//!
//! Every directory the walk entered (each root, and every directory below one that is not
//! ignored, secret-named or a symlink) is a directory resource: its `file://` URI without a
//! trailing slash, MIME type `inode/directory`, answered by [`Provider::list_directory`] with
//! its direct children (files as listed, subdirectories as directory resources) in URI order.
//! `resources/list` lists files only. A directory's children come from the index, as the list
//! does, so they change as the watcher applies changes; a directory itself causes no
//! list-changed notification.
//!
//! # Completion
//!
//! The `path` variable of a root's template is completed with the relative paths in the index
//! (of files, and of directories, which a directory read takes) that start with the typed prefix (at most [`MAX_COMPLETION_CANDIDATES`], in URI order; the
//! engine then filters them by policy and caps them). A path is proposed only when the
//! template's reserved expansion of it, canonicalized, is the file's URI, so that reading the
//! completed value reads that file. The template cannot reach, and completion leaves out, a
//! path holding:
//!
//! - `?` or `#`, which the expansion leaves as they are, so they start a query or a fragment;
//! - a literal `%` and two hexadecimal digits (`%41.txt`), which the expansion copies as a
//!   percent-encoded octet (`A.txt`); a `%` without them is encoded as `%25`, and proposed;
//! - a name that is not UTF-8 (Unix allows any bytes but `/` and NUL in one), which a
//!   completion value, a string, cannot spell: its title has U+FFFD for the bytes that are not.
//!
//! Such files are listed all the same, and stay readable by their listed URI, which
//! percent-encodes every byte of the name. `[` and `]` are proposed: the expansion leaves them
//! raw, and [`ResourceUri`] takes them as the `%5B` and `%5D` the listed URI has.
//!
//! # Ignore files and secret patterns
//!
//! Ignore patterns are read with the `ignore` crate's gitignore matcher, one per directory
//! holding a `.gitignore` and/or an `.ignore` (the latter wins within a directory). A path is
//! judged by the matchers of its ancestors, deepest first, the first with an opinion deciding
//! (`!pattern` re-includes); an ignored directory hides everything below it. Above a root, the
//! ignore files of the enclosing git repository (from its top down to the root's parent) and its
//! `.git/info/exclude` apply too; without an enclosing repository only the ignore files inside
//! the root count. Git's global excludes file is not read. Secret patterns are case-insensitive
//! globs matched against the name of every component of the path below the root (so a directory
//! named `.env` hides its contents), or against that relative path when the pattern holds a `/`;
//! exceptions ([`DEFAULT_SECRET_EXCEPTIONS`]: public SSH keys) override them.
//!
//! # Live updates
//!
//! [`FilesystemProvider::watch`] returns an [`FsWatcher`], a [`ChangeSource`](mcp_resources_core::change::ChangeSource) whose [`Change`]s
//! the server feeds to the subscription hub. How it works:
//!
//! - Every directory the walk enters is watched on its own (non-recursively), so ignored trees
//!   such as `target/` or `node_modules/`, and `.git/`, cost no watches. A directory that appears
//!   is watched when its rescan enters it, then scanned once more, so files created meanwhile
//!   are not missed.
//! - Events are debounced: collected until none arrives for [`FsConfig::debounce`] (at most
//!   [`MAX_BATCH_DELAY`] after the first), then each touched path is rescanned on the blocking
//!   pool (metadata only; a directory's subtree walked again; a vanished path drops itself and
//!   everything below it). Raw events wait in a bounded queue; when it overflows, or the
//!   platform says events were lost, the next batch rescans every root instead.
//! - A change to a `.gitignore` or `.ignore` rescans the directory holding it with the new
//!   rules: files it now ignores leave the index (reported as removed), files it stops ignoring
//!   enter it (reported as created). A rescan walks each changed subtree once, however many of
//!   its directories the events named (a renamed deep tree is walked once, not once a level). Ignore files above the root, `.git/info/exclude` and
//!   secret-pattern changes are not watched (they are read at start).
//! - A directory the system refuses to watch (on Linux, past `fs.inotify.max_user_watches`,
//!   often 8,192 or 65,536 per user; raise it with `sysctl fs.inotify.max_user_watches=524288`)
//!   is logged with that advice, and the files directly in it are listed with a description
//!   that says they are not watched, so that clients know their listing may be stale. Such a
//!   directory is watched at its next rescan if room was made.
//! - A listed file whose size or modification time changed is reported as
//!   [`Change::Updated`]; files that appeared or disappeared come in one
//!   [`Change::ListChanged`] per batch, with their URIs. Opens and reads are not changes.
//!
//! # Caching
//!
//! Answers do not depend on the principal; their ttl is [`FsConfig::ttl_ms`] (default 5 s).
//!
//! The provider keeps the contents of files it read whole, up to [`FsConfig::read_cache_bytes`]
//! (default [`DEFAULT_READ_CACHE_BYTES`]), and serves them again while the file's size, times
//! and inode are unchanged: the file is still opened beneath its root and `fstat`ed on every
//! read, but not read. Every rule above is still checked on every read, before the cache is
//! looked at. A file changed in the last two seconds is not kept (two writes within one tick of
//! the file system's clock could leave the same metadata), nor is a read of a range.

mod beneath;
mod cache;
mod exclude;
mod index;
mod read;
mod skills;
mod uri;
mod watch;

use std::collections::BTreeSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use async_trait::async_trait;
use mcp_resources_core::cache::CachePolicy;
use mcp_resources_core::change::Change;
use mcp_resources_core::provider::{
    CompletionRequest, DirectoryRequest, ListRequest, Provider, ProviderError, ReadRequest,
};
use mcp_resources_core::resource::{ByteRange, Contents, Resource, ResourceTemplate};
use mcp_resources_core::template::{TemplateError, UriTemplate, Variables};
use mcp_resources_core::uri::ResourceUri;

pub use mcp_resources_core::secret::{
    DEFAULT_SECRET_EXCEPTIONS, DEFAULT_SECRET_PATTERNS, PatternError,
};
pub use skills::{SKILL_SCHEME, SkillsProvider, SkillsWatcher};
pub use watch::{FsWatcher, MAX_BATCH_DELAY, WatchError};

/// The default budget of the read cache ([`FsConfig::read_cache_bytes`]): 8 MiB.
pub const DEFAULT_READ_CACHE_BYTES: u64 = 8 * 1024 * 1024;

use exclude::{NotNow, Rules};
use index::{Index, Root, mark_unwatched, remove_subtree, scan_path};
use mcp_resources_core::secret::SecretNames;
use uri::{encode_segment, file_uri, root_path_prefix};
use watch::{Batch, RawEvents, WatchState};

/// The most completion candidates the provider proposes for one request.
pub const MAX_COMPLETION_CANDIDATES: usize = 200;

/// The configuration of a [`FilesystemProvider`]. Every value is valid except secret patterns
/// that are not globs, which [`FilesystemProvider::new`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsConfig {
    /// The directories to serve. Canonicalized at start; a root inside another is dropped.
    pub roots: Vec<PathBuf>,
    /// Globs of secret-looking names never exposed; replace or extend
    /// [`DEFAULT_SECRET_PATTERNS`]. A pattern without `/` is matched against every component's
    /// name, one with `/` against the path relative to the root; matching ignores case.
    pub secret_patterns: Vec<String>,
    /// Globs that override a secret pattern (default [`DEFAULT_SECRET_EXCEPTIONS`]).
    pub secret_exceptions: Vec<String>,
    /// Whether `.gitignore`, `.ignore` and `.git/info/exclude` hide files. Default `true`.
    pub respect_ignore_files: bool,
    /// Whether files with more than one hard link are refused (neither listed nor read).
    /// A hard link inside a root to a file outside it, or outside a grant, cannot be told
    /// from that file; refusing every file with another link closes that door, at the price
    /// of tools that link files on purpose (some package managers' stores). Default `false`.
    pub refuse_hard_links: bool,
    /// The largest read in bytes, whole or ranged, counted as sent: base64 for binary files,
    /// JSON-escaped for text (so a binary part is at most three quarters of it raw). Default
    /// 8 MiB, so that every answer fits a 10 MiB message, the most some clients take on one
    /// stdio line.
    pub max_read_bytes: u64,
    /// Files whose indexed size is at most this many bytes are read on the task that asks
    /// (a few system calls on a local disk), so that their read is ready at its first poll;
    /// larger ones on the runtime's blocking pool, so that a long read never holds up other
    /// requests. `0` sends every read to the pool (for a slow network file system). Default
    /// 64 KiB.
    pub inline_read_bytes: u64,
    /// At most this many bytes of file bodies are kept after a read, and served again while
    /// the file's metadata is unchanged, without opening it (one `lstat` instead of five
    /// system calls; see [Caching](self#caching)). A body over an eighth of it is never kept;
    /// `0` turns the cache off. Default 8 MiB.
    pub read_cache_bytes: u64,
    /// How long answers stay fresh, in milliseconds. Default 5,000.
    pub ttl_ms: u64,
    /// Whether to watch the roots (see [`FilesystemProvider::watch`]). Default `true`.
    pub watch: bool,
    /// How long the tree must be quiet before a batch of events is applied. Default 150 ms.
    pub debounce: Duration,
}

impl FsConfig {
    /// The default configuration serving `roots`.
    pub fn new<P: Into<PathBuf>>(roots: impl IntoIterator<Item = P>) -> FsConfig {
        FsConfig {
            roots: roots.into_iter().map(Into::into).collect(),
            secret_patterns: DEFAULT_SECRET_PATTERNS
                .iter()
                .map(|&p| p.to_owned())
                .collect(),
            secret_exceptions: DEFAULT_SECRET_EXCEPTIONS
                .iter()
                .map(|&p| p.to_owned())
                .collect(),
            respect_ignore_files: true,
            refuse_hard_links: false,
            max_read_bytes: 8 * 1024 * 1024,
            inline_read_bytes: 64 * 1024,
            read_cache_bytes: DEFAULT_READ_CACHE_BYTES,
            ttl_ms: 5_000,
            watch: true,
            debounce: Duration::from_millis(150),
        }
    }
}

/// Why a [`FilesystemProvider`] could not start.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The configuration names no directory.
    #[error("no directory to serve")]
    NoRoots,
    /// A skills provider is given more than one directory.
    #[error("skills are served from one directory")]
    NotOneRoot,
    /// A root could not be canonicalized (it does not exist, or is not accessible).
    #[error("cannot serve {}", path.display())]
    Root {
        /// The root as configured.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A root is not a directory.
    #[error("cannot serve {}: not a directory", path.display())]
    NotADirectory {
        /// The root, canonicalized.
        path: PathBuf,
    },
    /// A secret pattern or exception is not a valid glob.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// The URI of a root does not make a valid template (it should always).
    #[error("cannot make the read template of {}", path.display())]
    Template {
        /// The root, canonicalized.
        path: PathBuf,
        /// The cause.
        #[source]
        source: TemplateError,
    },
    /// The file watcher could not start.
    #[error("cannot start the file watcher")]
    Watcher(#[source] notify::Error),
}

/// Serves the files under one or more directories; see the [module documentation](self).
///
/// Cheap to clone: clones share the index.
#[derive(Clone, Debug)]
pub struct FilesystemProvider {
    shared: Arc<Shared>,
}

/// The state shared by the provider, its clones and the watcher task.
#[derive(Debug)]
pub(crate) struct Shared {
    roots: Vec<Root>,
    rules: Rules,
    index: RwLock<Index>,
    max_read_bytes: u64,
    inline_read_bytes: u64,
    read_cache: cache::ReadCache,
    ttl_ms: u64,
    debounce: Duration,
    watch_state: Mutex<Option<WatchState>>,
    raw_events: Mutex<Option<RawEvents>>,
}

impl FilesystemProvider {
    /// Canonicalizes the roots, starts watching them (unless disabled) and walks them to build
    /// the index. Blocking: in async code, call it through `spawn_blocking`.
    ///
    /// # Errors
    ///
    /// An [`FsError`] naming the root or pattern that is wrong.
    pub fn new(config: FsConfig) -> Result<FilesystemProvider, FsError> {
        let rules = Rules {
            secrets: SecretNames::new(&config.secret_patterns, &config.secret_exceptions)?,
            respect_ignore_files: config.respect_ignore_files,
            ignore_case: exclude::CASE_INSENSITIVE_NAMES,
            ignore_cache: exclude::IgnoreCache::default(),
        };
        let roots = canonical_roots(&config.roots)?
            .into_iter()
            .map(|path| make_root(&rules, path, config.refuse_hard_links))
            .collect::<Result<Vec<Root>, FsError>>()?;
        let (mut watch_state, raw_events) = if config.watch {
            let (state, raw) = watch::start().map_err(FsError::Watcher)?;
            (Some(state), Some(raw))
        } else {
            (None, None)
        };
        let mut index = Index::default();
        for root in &roots {
            let mut scan = scan_path(&rules, root, &root.path);
            tracing::info!(
                root = %root.path.display(),
                files = scan.files.len(),
                directories = scan.directories.len(),
                "indexed"
            );
            if let Some(state) = watch_state.as_mut() {
                let (_, failed) = state.replace_below(&root.path, &scan.directories);
                mark_unwatched(&mut scan.files, &failed);
            }
            index.extend(scan);
        }
        Ok(FilesystemProvider {
            shared: Arc::new(Shared {
                roots,
                rules,
                index: RwLock::new(index),
                max_read_bytes: config.max_read_bytes,
                inline_read_bytes: config.inline_read_bytes,
                read_cache: cache::ReadCache::new(config.read_cache_bytes),
                ttl_ms: config.ttl_ms,
                debounce: config.debounce,
                watch_state: Mutex::new(watch_state),
                raw_events: Mutex::new(raw_events),
            }),
        })
    }

    /// Starts applying file-system changes to the index and returns the receiver of what
    /// changed. Events since [`new`](FilesystemProvider::new) are not lost: they wait (or, past
    /// a bound, turn into one full rescan). Call it once, inside a tokio runtime with its timer
    /// enabled (the debounce is timed on it; the receiver may be read from any runtime); until it
    /// is called the index stays as the start-up walk left it.
    ///
    /// # Errors
    ///
    /// A [`WatchError`] when watching is disabled, already started, or there is no runtime.
    pub fn watch(&self) -> Result<FsWatcher, WatchError> {
        let mut slot = lock(&self.shared.raw_events);
        let raw = match slot.take() {
            Some(raw) => raw,
            None if lock(&self.shared.watch_state).is_none() => return Err(WatchError::Disabled),
            None => return Err(WatchError::AlreadyWatching),
        };
        match watch::spawn(Arc::clone(&self.shared), raw) {
            Ok(watcher) => Ok(watcher),
            Err((error, raw)) => {
                *slot = Some(raw);
                Err(error)
            }
        }
    }

    /// The canonical roots served, in the order of their templates.
    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        self.shared.roots.iter().map(|root| root.path.as_path())
    }

    /// How many files the index holds.
    pub fn len(&self) -> usize {
        read_lock(&self.shared.index).files.len()
    }

    /// Whether the index holds no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn canonical_roots(configured: &[PathBuf]) -> Result<Vec<PathBuf>, FsError> {
    if configured.is_empty() {
        return Err(FsError::NoRoots);
    }
    let mut roots = Vec::with_capacity(configured.len());
    for path in configured {
        let canonical = std::fs::canonicalize(path).map_err(|source| FsError::Root {
            path: path.clone(),
            source,
        })?;
        if !canonical.is_dir() {
            return Err(FsError::NotADirectory { path: canonical });
        }
        roots.push(canonical);
    }
    roots.sort();
    roots.dedup();
    let mut kept: Vec<PathBuf> = Vec::with_capacity(roots.len());
    for root in roots {
        // Sorted, so an enclosing root comes before the roots inside it.
        if let Some(outer) = kept.iter().find(|outer| root.starts_with(outer)) {
            tracing::warn!(
                root = %root.display(),
                inside = %outer.display(),
                "root dropped: it is inside another root"
            );
            continue;
        }
        kept.push(root);
    }
    Ok(kept)
}

fn make_root(rules: &Rules, path: PathBuf, refuse_hard_links: bool) -> Result<Root, FsError> {
    let dir = beneath::RootDir::open(&path).map_err(|source| FsError::Root {
        path: path.clone(),
        source,
    })?;
    let path_prefix = root_path_prefix(&path);
    let uri_prefix = format!("file://{path_prefix}");
    let template_text = format!("{uri_prefix}{{+path}}{{?offset,length}}");
    let uri_template = UriTemplate::parse(&template_text).map_err(|source| FsError::Template {
        path: path.clone(),
        source,
    })?;
    let template = ResourceTemplate::new(uri_template, "file")
        .with_title(format!("Files under {}", path.display()))
        .with_description(format!(
            "Any served file under {}: `path` is relative to that directory; `offset` and \
             `length` (in bytes, both optional) read one part of a large file.",
            path.display()
        ));
    Ok(Root {
        base: rules.base_levels(&path),
        dir,
        refuse_hard_links,
        path,
        path_prefix,
        uri_prefix,
        template,
    })
}

/// Whether `path`, completed as the `path` variable of `root`'s template, names the file at
/// `uri`: the canonical form of the template's expansion of it is `uri`. See
/// [Completion](self#completion) for the names that it does not reach.
fn reaches(root: &Root, path: &str, uri: &ResourceUri) -> bool {
    let mut variables = Variables::new();
    variables.insert("path", path);
    let expanded = root.template.uri_template.expand(&variables);
    ResourceUri::parse(&expanded).is_ok_and(|expanded| expanded == *uri)
}

/// Up to [`MAX_COMPLETION_CANDIDATES`] of `entries` (URI and relative path, in URI order from
/// `start`) below `start` whose path starts with `prefix` and which the root's template reaches.
fn reachable<'a>(
    entries: impl Iterator<Item = (&'a ResourceUri, &'a str)>,
    start: &str,
    prefix: &str,
    root: &Root,
) -> Vec<(&'a ResourceUri, &'a str)> {
    entries
        .take_while(|(uri, _)| uri.as_str().starts_with(start))
        .filter(|(uri, title)| {
            !title.is_empty() && title.starts_with(prefix) && reaches(root, title, uri)
        })
        .take(MAX_COMPLETION_CANDIDATES)
        .collect()
}

/// `paths` without those below another of them (a subtree walk covers them), sorted.
fn topmost(mut paths: Vec<(&Root, PathBuf)>) -> Vec<(&Root, PathBuf)> {
    paths.sort_by(|a, b| a.1.cmp(&b.1));
    let mut kept: Vec<(&Root, PathBuf)> = Vec::with_capacity(paths.len());
    for (root, path) in paths {
        if kept.last().is_some_and(|(_, last)| path.starts_with(last)) {
            continue;
        }
        kept.push((root, path));
    }
    kept
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read_lock(index: &RwLock<Index>) -> std::sync::RwLockReadGuard<'_, Index> {
    index
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Applies one batch of events to the index (blocking) and returns what changed.
    pub(crate) fn apply(&self, batch: Batch) -> Vec<Change> {
        let mut targets = if batch.rescan_all {
            self.roots
                .iter()
                .map(|root| (root, root.path.clone()))
                .collect()
        } else {
            self.targets(batch.paths)
        };
        let mut created = BTreeSet::new();
        let mut removed = BTreeSet::new();
        let mut updated = BTreeSet::new();
        // New directories are scanned once more after they are watched; that converges fast,
        // and three rounds bound it.
        for _ in 0..3 {
            let mut again = Vec::new();
            for (root, path) in targets {
                let mut scan = scan_path(&self.rules, root, &path);
                // Watched before the index changes, so that its files say whether they are.
                if let Some(state) = lock(&self.watch_state).as_mut() {
                    let (added, failed) = state.replace_below(&path, &scan.directories);
                    mark_unwatched(&mut scan.files, &failed);
                    again.extend(added.into_iter().map(|directory| (root, directory)));
                }
                let key = file_uri(&path);
                {
                    let mut index = self
                        .index
                        .write()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    let mut old = remove_subtree(&mut index, &key).files;
                    index.directories.extend(scan.listed);
                    for (uri, meta) in scan.files {
                        match old.remove(uri.as_str()) {
                            None => {
                                if !removed.remove(&uri) {
                                    created.insert(uri.clone());
                                }
                            }
                            Some(before)
                                if before.size != meta.size || before.modified != meta.modified =>
                            {
                                updated.insert(uri.clone());
                            }
                            Some(_) => {}
                        }
                        index.files.insert(uri, meta);
                    }
                    for uri in old.into_keys() {
                        updated.remove(&uri);
                        if !created.remove(&uri) {
                            removed.insert(uri);
                        }
                    }
                }
            }
            if again.is_empty() {
                break;
            }
            // A directory below another one to rescan is walked with it: rescanning each new
            // directory of a renamed tree on its own would walk a deep tree once per level.
            targets = topmost(again);
        }
        let mut changes: Vec<Change> = updated.into_iter().map(Change::Updated).collect();
        if !created.is_empty() || !removed.is_empty() {
            changes.push(Change::ListChanged {
                created: created.into_iter().collect(),
                removed: removed.into_iter().collect(),
            });
        }
        tracing::debug!(changes = changes.len(), "applied file-system events");
        changes
    }

    /// The paths to rescan for a set of event paths: each under its root, none inside `.git`,
    /// an ignore file replaced by its directory, none below another.
    fn targets(&self, paths: BTreeSet<PathBuf>) -> Vec<(&Root, PathBuf)> {
        let mut wanted: Vec<(&Root, PathBuf)> = Vec::new();
        for path in paths {
            let Some(root) = self.roots.iter().find(|root| path.starts_with(&root.path)) else {
                continue;
            };
            let Ok(relative) = path.strip_prefix(&root.path) else {
                continue;
            };
            if relative.components().any(|component| {
                component
                    .as_os_str()
                    .to_string_lossy()
                    .eq_ignore_ascii_case(".git")
            }) {
                continue;
            }
            let is_ignore_file = path
                .file_name()
                .is_some_and(|name| name == ".gitignore" || name == ".ignore");
            let target = match path.parent() {
                Some(parent) if is_ignore_file => parent.to_path_buf(),
                _ => path,
            };
            wanted.push((root, target));
        }
        topmost(wanted)
    }

    /// Reads `uri` (`part` of it), where blocking is allowed.
    fn read_blocking(
        &self,
        uri: &ResourceUri,
        part: read::Part,
        indexed: Option<Indexed>,
    ) -> Result<Option<Vec<Contents>>, ProviderError> {
        match self.read_file(uri, part, indexed, true) {
            Ok(read) => read,
            Err(NotNow) => unreachable!("a read that may parse always answers"),
        }
    }

    /// Reads `uri` (`part` of it). With `may_parse` false (on the runtime's thread) it
    /// answers [`NotNow`] instead of parsing an ignore file that changed.
    fn read_file(
        &self,
        uri: &ResourceUri,
        part: read::Part,
        indexed: Option<Indexed>,
        may_parse: bool,
    ) -> Result<Result<Option<Vec<Contents>>, ProviderError>, NotNow> {
        let Some(resolved) = read::resolve(&self.rules, &self.roots, uri, may_parse)? else {
            return Ok(Ok(None));
        };
        Ok(self.read_resolved(&resolved, uri, part, indexed))
    }

    fn read_resolved(
        &self,
        resolved: &read::Resolved<'_>,
        uri: &ResourceUri,
        part: read::Part,
        indexed: Option<Indexed>,
    ) -> Result<Option<Vec<Contents>>, ProviderError> {
        let Some(opened) = read::open(resolved)? else {
            return Ok(None);
        };
        // Only whole reads are cached; the stamp is the open handle's own `fstat`.
        let cacheable = part == read::Part::Whole && self.read_cache.is_enabled();
        let path = resolved.path();
        let stamp = cacheable.then(|| self.read_cache.stamp(&opened.1));
        if let Some(contents) = stamp
            .as_ref()
            .and_then(|stamp| self.read_cache.get(&path, stamp, uri))
        {
            return Ok(Some(vec![contents]));
        }
        let mime = indexed.map(|indexed| indexed.mime);
        let contents = read::read_file(resolved, opened, uri, part, self.max_read_bytes, mime)?;
        if let Some(stamp) = stamp {
            self.read_cache.insert(&path, stamp, &contents);
        }
        Ok(Some(vec![contents]))
    }
}

/// How [`FilesystemProvider::plan_read`] goes about a read.
enum Planned {
    /// Read, or answered without reading.
    Done(Result<Option<Vec<Contents>>, ProviderError>),
    /// To read on the blocking pool.
    Pool {
        part: read::Part,
        indexed: Option<Indexed>,
    },
}

/// What the index says about a file a read asks for: hints only, never trusted for the checks.
#[derive(Clone, Copy, Debug)]
struct Indexed {
    size: u64,
    mime: Option<&'static str>,
}

impl FilesystemProvider {
    /// A read of `request` done on the calling thread when it can be: anything that is not a
    /// file (`Ok(None)`), a bad query, or a small file as indexed. The hand-off to a pool thread
    /// and back would cost more than such a read. A larger file, or one the index does not know,
    /// is left for the pool.
    fn plan_read(&self, request: &ReadRequest<'_>) -> Planned {
        if !self.claims(request.uri) {
            return Planned::Done(Ok(None));
        }
        // Query errors say nothing about the file, so they may come before the checks.
        let part = match read::parse_query(request.uri.query()) {
            Ok(Some(part)) => read::narrow(part, request.range),
            Ok(None) => return Planned::Done(Ok(None)),
            Err(error) => return Planned::Done(Err(error)),
        };
        let indexed = self.indexed(request.uri);
        let limit = self.shared.inline_read_bytes;
        if indexed.is_some_and(|indexed| limit > 0 && indexed.size <= limit) {
            // Never parses an ignore file here: that is left to the pool.
            if let Ok(read) = self.shared.read_file(request.uri, part, indexed, false) {
                return Planned::Done(read);
            }
        }
        Planned::Pool { part, indexed }
    }

    /// The index's entry for `uri` (without its range query), if it has one.
    fn indexed(&self, uri: &ResourceUri) -> Option<Indexed> {
        let whole = uri
            .as_str()
            .split_once('?')
            .map_or(uri.as_str(), |(whole, _)| whole);
        read_lock(&self.shared.index)
            .files
            .get(whole)
            .map(|meta| Indexed {
                size: meta.size,
                mime: meta.mime,
            })
    }
}

#[async_trait]
impl Provider for FilesystemProvider {
    /// `file:///a.txt?offset=O&length=L` is the range `O..O+L` of `file:///a.txt` (to its end
    /// without a length), for the engine's content rules.
    fn range_of(&self, uri: &ResourceUri) -> Option<(ResourceUri, ByteRange)> {
        read::range_of(uri)
    }

    fn claims(&self, uri: &ResourceUri) -> bool {
        let path = uri.path();
        uri.scheme() == "file"
            && uri.authority() == Some("")
            && self.shared.roots.iter().any(|root| {
                // Below a root, or the root itself (a directory resource, without its slash).
                path.starts_with(&root.path_prefix)
                    || root.path_prefix.strip_suffix('/') == Some(path)
            })
    }

    async fn list(&self, request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        let index = read_lock(&self.shared.index);
        let start = match request.after {
            Some(after) => Bound::Excluded(after),
            None => Bound::Unbounded,
        };
        Ok(index
            .files
            .range::<str, _>((start, Bound::Unbounded))
            .take(request.limit)
            .map(|(uri, meta)| meta.resource(uri))
            .collect())
    }

    async fn list_directory(
        &self,
        request: DirectoryRequest<'_>,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let index = read_lock(&self.shared.index);
        Ok(index.children(request.uri.as_str(), request.after, request.limit))
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        self.shared
            .roots
            .iter()
            .map(|root| root.template.clone())
            .collect()
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        let (part, indexed) = match self.plan_read(&request) {
            Planned::Done(read) => return read,
            Planned::Pool { part, indexed } => (part, indexed),
        };
        let shared = Arc::clone(&self.shared);
        let uri = request.uri.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => runtime
                .spawn_blocking(move || shared.read_blocking(&uri, part, indexed))
                .await
                .map_err(|error| ProviderError::new("file read task failed").with_source(error))?,
            Err(_) => shared.read_blocking(&uri, part, indexed),
        }
    }

    fn matches_templates(&self) -> bool {
        // The path is decoded from the URI by `read::resolve`, which can tell `%2F` from `/`.
        false
    }

    async fn complete(&self, request: CompletionRequest<'_>) -> Result<Vec<String>, ProviderError> {
        if request.variable != "path" {
            return Ok(Vec::new());
        }
        let Some(root) = self
            .shared
            .roots
            .iter()
            .find(|root| root.template.uri_template.as_str() == request.template.as_str())
        else {
            return Ok(Vec::new());
        };
        let encoded: Vec<String> = request
            .prefix
            .split('/')
            .map(|segment| encode_segment(segment.as_bytes()))
            .collect();
        let start = format!("{}{}", root.uri_prefix, encoded.join("/"));
        let index = read_lock(&self.shared.index);
        let range = (Bound::Included(start.as_str()), Bound::Unbounded);
        // Files and directories (the root itself aside), each in URI order, merged.
        let files = index
            .files
            .range::<str, _>(range)
            .map(|(uri, meta)| (uri, meta.title.as_str()));
        let directories = index
            .directories
            .range::<str, _>(range)
            .map(|(uri, meta)| (uri, meta.title.as_str()));
        let mut candidates = reachable(files, &start, request.prefix, root);
        candidates.extend(reachable(directories, &start, request.prefix, root));
        candidates.sort_unstable_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        Ok(candidates
            .into_iter()
            .take(MAX_COMPLETION_CANDIDATES)
            .map(|(_, title)| title.to_owned())
            .collect())
    }

    fn cache_policy(&self) -> CachePolicy {
        CachePolicy {
            ttl_ms: Some(self.shared.ttl_ms),
            per_principal: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::sync::Arc;

    use futures_util::FutureExt;
    use mcp_resources_core::policy::Principal;
    use mcp_resources_core::provider::{Provider, ReadRequest};
    use mcp_resources_core::resource::Body;
    use mcp_resources_core::uri::ResourceUri;

    use super::{FilesystemProvider, FsConfig, cache::ReadCache};

    /// A provider over `root` (not watching) whose read cache trusts recent changes, so that
    /// files written by the test are cached at once.
    fn trusting(root: &std::path::Path) -> FilesystemProvider {
        let mut config = FsConfig::new([root]);
        config.watch = false;
        let mut provider = FilesystemProvider::new(config).unwrap();
        Arc::get_mut(&mut provider.shared)
            .expect("invariant: no watcher holds the state")
            .read_cache = ReadCache::trusting_recent_changes(1024 * 1024);
        provider
    }

    /// Reads `relative` below the provider's only root: the body, or `None`.
    fn read(provider: &FilesystemProvider, relative: &str) -> Option<Body> {
        let root = provider
            .roots()
            .next()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let uri = ResourceUri::parse(&format!("file://{root}/{relative}")).unwrap();
        let principal = Principal::anonymous();
        let request = ReadRequest {
            inputs: mcp_resources_core::input::Inputs::none(),
            principal: &principal,
            uri: &uri,
            template: None,
            variables: None,
            range: None,
        };
        let contents = provider
            .read(request)
            .now_or_never()
            .expect("small files are read at once")
            .unwrap()?;
        Some(contents[0].body.clone())
    }

    fn shared(a: &Option<Body>, b: &Option<Body>) -> bool {
        match (a, b) {
            (Some(Body::Text(a)), Some(Body::Text(b))) => Arc::ptr_eq(a, b),
            (Some(Body::Bytes(a)), Some(Body::Bytes(b))) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    #[test]
    fn whole_reads_are_served_from_the_cache_until_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "first").unwrap();
        fs::write(dir.path().join("b.bin"), b"\0\x01").unwrap();
        std::os::unix::fs::symlink("a.txt", dir.path().join("link.txt")).unwrap();
        let provider = trusting(dir.path());

        let first = read(&provider, "a.txt");
        assert_eq!(first, Some(Body::Text("first".into())));
        let again = read(&provider, "a.txt");
        assert!(shared(&first, &again), "the second read is the cached body");
        let bytes = read(&provider, "b.bin");
        assert!(shared(&bytes, &read(&provider, "b.bin")));

        // A change of size (and times) is seen at once.
        fs::write(dir.path().join("a.txt"), "second!").unwrap();
        let changed = read(&provider, "a.txt");
        assert_eq!(changed, Some(Body::Text("second!".into())));
        assert!(!shared(&first, &changed));

        // Ranged reads are never cached; a symlink is never read at all.
        let ranged = read(&provider, "a.txt?offset=1&length=3");
        assert_eq!(ranged, Some(Body::Text("eco".into())));
        assert!(!shared(
            &ranged,
            &read(&provider, "a.txt?offset=1&length=3")
        ));
        assert_eq!(read(&provider, "link.txt"), None);

        // The rules are checked before the cache: a file ignored since it was cached, or
        // removed, is not found.
        fs::write(dir.path().join(".gitignore"), "a.txt\n").unwrap();
        assert_eq!(read(&provider, "a.txt"), None);
        fs::remove_file(dir.path().join("b.bin")).unwrap();
        assert_eq!(read(&provider, "b.bin"), None);
    }

    #[test]
    fn a_directory_that_cannot_be_watched_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let (mut state, _raw) = super::watch::start().unwrap();
        let present = dir.path().join("present");
        let gone = dir.path().join("gone");
        fs::create_dir(&present).unwrap();
        let (added, failed) = state.replace_below(dir.path(), &[present.clone(), gone.clone()]);
        assert_eq!(added, [present]);
        assert_eq!(failed, [gone]);
    }

    #[test]
    fn a_rescan_walks_each_subtree_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = FsConfig::new([dir.path()]);
        config.watch = false;
        let provider = FilesystemProvider::new(config).unwrap();
        let root = &provider.shared.roots[0];
        let nested: Vec<(&super::Root, std::path::PathBuf)> = ["a/b/c", "a", "a/b", "z", "a2"]
            .iter()
            .map(|relative| (root, root.path.join(relative)))
            .collect();
        let kept: Vec<std::path::PathBuf> = super::topmost(nested)
            .into_iter()
            .map(|(_, path)| path.strip_prefix(&root.path).unwrap().to_path_buf())
            .collect();
        assert_eq!(kept, ["a", "a2", "z"].map(std::path::PathBuf::from));
    }

    #[test]
    fn a_file_changed_a_moment_ago_is_read_again_each_time() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("fresh.txt"), "fresh").unwrap();
        let mut config = FsConfig::new([dir.path()]);
        config.watch = false;
        let provider = FilesystemProvider::new(config).unwrap();
        let first = read(&provider, "fresh.txt");
        assert_eq!(first, Some(Body::Text("fresh".into())));
        assert!(!shared(&first, &read(&provider, "fresh.txt")));

        let mut config = FsConfig::new([dir.path()]);
        config.watch = false;
        config.read_cache_bytes = 0;
        let mut off = FilesystemProvider::new(config).unwrap();
        Arc::get_mut(&mut off.shared).unwrap().read_cache = ReadCache::trusting_recent_changes(0);
        let first = read(&off, "fresh.txt");
        assert!(
            !shared(&first, &read(&off, "fresh.txt")),
            "a budget of 0 caches nothing"
        );
    }
}
