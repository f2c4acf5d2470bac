//! The git provider: repositories as live, read-only `git://` resources — files and trees at
//! any revision, commits, the log a page at a time, diffs.
//!
//! **Layer:** provider, a concrete [`Provider`] on the core's seams and nothing else. It reads
//! repositories with gitoxide (pure Rust) on tokio's blocking pool when a runtime is there, and
//! watches their refs; it never knows a protocol version, the subscription hub, the server or
//! the transports. It never writes to a repository, never fetches, and never runs a hook or a
//! filter: a repository is opened with its own configuration only (no system, global or user
//! file, no environment).
//!
//! # Resources
//!
//! For a repository served as `NAME` (see [`uri`] for the exact shapes):
//!
//! - `git://NAME/refs` (JSON): HEAD (its branch, or detached) and every served ref with its
//!   commit, an annotated tag with its tag object too.
//! - `git://NAME/tree/REV/PATH`: at revision `REV`, a file is its blob (text when UTF-8 without
//!   NUL, else bytes; MIME type by name; ranged reads with `?offset=&length=` as for files) and a
//!   directory is a directory resource (`inode/directory`) whose children
//!   `resources/directory/read` lists; `git://NAME/tree/REV` is the root tree.
//! - `git://NAME/commit/REV` (JSON): id, parents, author, committer, message, and the files
//!   changed against the first parent with their change kind and line counts.
//! - `git://NAME/log/REV{?path,after,limit}` (JSON): commits reachable from `REV`, newest first
//!   by commit time, a page at a time; `next` is the URI of the next page (keyed on the last
//!   commit's id, so a page stays the same while the branch moves: new commits come before it).
//!   With `path`, only commits whose entry at that path differs from their first parent's.
//! - `git://NAME/diff/BASE..HEAD{?path}` (`text/x-diff`): a unified diff, at most
//!   [`GitConfig::max_diff_bytes`], cut at a file's end with a last line saying so.
//!
//! A revision is a full commit id (40 hexadecimal digits, before any ref of that spelling, as
//! in git), `HEAD`, a served ref by full name or short name (tags first, then branches, git's
//! order), or an unambiguous prefix of a commit id (4 to 39 hexadecimal digits). Nothing else
//! of git's revision syntax is taken. Which refs are served is the repository's
//! [`RepoConfig::refs`] (default HEAD, local branches and tags): a ref that is not served names
//! nothing, and a commit named by its id must be reachable from a served ref, so the history
//! of a remote-tracking branch, the stash or an unreferenced commit stays unreachable.
//!
//! # Bounds
//!
//! A whole read is at most [`GitConfig::max_read_bytes`]; a blob over [`MAX_BLOB_BYTES`] is
//! not served at all (a ranged read loads the blob). A diff is at most
//! [`GitConfig::max_diff_bytes`], and a file whose blob is larger than that on either side is
//! not diffed, nor are its lines counted in a commit; a commit lists at most
//! [`MAX_COMMIT_FILES`] files and counts lines in at most 32 MiB of blobs. A log page looks at
//! most at [`LOG_SCAN_LIMIT`] commits; when a path filter has not filled the page by then, the
//! page ends early with a `next` that goes on from there.
//!
//! `resources/list` lists, per repository, its refs resource and the files of HEAD's tree as
//! `git://NAME/tree/HEAD/PATH`; every other form is reached through the templates, whose
//! variables complete (repository names, revisions, paths at a revision). A missing
//! repository, revision or path is "not found" (never an empty answer).
//!
//! # What is never served
//!
//! At every revision, in trees, reads, commit file lists and diffs, the filesystem provider's
//! rules by name apply: `.git` and any path with a secret-looking component
//! ([`GitConfig::secret_patterns`], the core's
//! [`SecretNames`]). A commit or diff names such a file
//! and says it is withheld; its contents and line counts never appear. Symlinks are not served
//! (their target is never followed) and submodules are not entered. `.gitignore` does not
//! apply: what is committed is what the history holds.
//!
//! # Caching
//!
//! Answers about a revision spelt as a full commit id (in a tree, commit, log or diff URI) never
//! change: they get [`GitConfig::immutable_ttl_ms`] (one day). Answers about a ref get
//! [`GitConfig::ttl_ms`] (5 s), and are live: see [`GitWatcher`].

mod config;
mod history;
mod repo;
mod tree;
pub mod uri;
mod watch;

use std::sync::Arc;

use async_trait::async_trait;
use gix::ObjectId;
use mcp_resources_core::cache::CachePolicy;
use mcp_resources_core::provider::{
    CompletionRequest, DirectoryRequest, ListRequest, Provider, ProviderError, ReadRequest,
};
use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::secret::{PatternError, SecretNames};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;
use serde_json::json;

pub use config::{DEFAULT_REFS, GitConfig, RepoConfig};
pub use watch::{GitWatcher, WatchError};

use repo::Repo;
use tree::{Entry, FileIndex};
use uri::{Target, commit_uri, log_uri, refs_uri, tree_uri, uri_of};

/// The most candidates one completion proposes.
pub const MAX_COMPLETION_CANDIDATES: usize = 200;

/// The most commits one log page looks at, those skipped before its `after` included.
pub const LOG_SCAN_LIMIT: usize = 200_000;

/// The largest blob served, whole or in ranges: a read loads its blob whole.
pub const MAX_BLOB_BYTES: u64 = 64 * 1024 * 1024;

/// The most files one commit's JSON lists.
pub const MAX_COMMIT_FILES: usize = 5_000;

/// Why the provider could not start.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The configuration is wrong.
    #[error("git configuration: {0}")]
    Config(String),
    /// A repository could not be opened.
    #[error("repository {name:?} could not be opened: {message}")]
    Open {
        /// Its name.
        name: String,
        /// Why.
        message: String,
    },
    /// A secret pattern is no valid glob.
    #[error(transparent)]
    Pattern(#[from] PatternError),
}

/// The git provider. Cheap to clone (shared).
#[derive(Clone)]
pub struct GitProvider {
    shared: Arc<Shared>,
}

pub(crate) struct Shared {
    /// The repositories, in the order of their URIs (`git://NAME/`).
    pub(crate) repos: Vec<Repo>,
    pub(crate) secrets: SecretNames,
    pub(crate) config: GitConfig,
}

impl std::fmt::Debug for GitProvider {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("GitProvider")
            .field("repos", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl GitProvider {
    /// Opens every repository of `config`. Blocking: in async code, call it through
    /// `spawn_blocking`.
    ///
    /// # Errors
    ///
    /// A [`GitError`] naming what is wrong.
    pub fn new(config: GitConfig) -> Result<GitProvider, GitError> {
        config.check().map_err(GitError::Config)?;
        let secrets = SecretNames::new(&config.secret_patterns, &config.secret_exceptions)?;
        let mut repos = Vec::with_capacity(config.repos.len());
        for repo in &config.repos {
            let opened = Repo::open(repo.clone()).map_err(|message| GitError::Open {
                name: repo.name.clone(),
                message,
            })?;
            tracing::info!(repository = %repo.name, path = %repo.path.display(), "serving git repository");
            repos.push(opened);
        }
        repos.sort_by_key(|repo| uri_of(repo.name(), ""));
        Ok(GitProvider {
            shared: Arc::new(Shared {
                repos,
                secrets,
                config,
            }),
        })
    }

    /// The names of the served repositories, in URI order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.shared.repos.iter().map(Repo::name)
    }

    /// A [`ChangeSource`](mcp_resources_core::change::ChangeSource) that reports what changes
    /// when refs move. Reads every repository's refs once before it returns (a few small
    /// files each), so that a ref moving right after is seen as a move.
    ///
    /// # Errors
    ///
    /// A [`WatchError`] when the refs cannot be watched.
    pub fn watch(&self) -> Result<GitWatcher, WatchError> {
        GitWatcher::start(Arc::clone(&self.shared))
    }

    /// Runs `work` on the blocking pool when there is a runtime, else here.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Shared) -> Result<T, ProviderError> + Send + 'static,
    ) -> Result<T, ProviderError> {
        let shared = Arc::clone(&self.shared);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => runtime
                .spawn_blocking(move || work(&shared))
                .await
                .map_err(|error| ProviderError::new("git task failed").with_source(error))?,
            Err(_) => work(&shared),
        }
    }
}

impl Shared {
    fn repo(&self, name: &str) -> Option<&Repo> {
        self.repos.iter().find(|repo| repo.name() == name)
    }

    /// The resource of a file of a tree.
    fn file_resource(
        &self,
        git: &gix::Repository,
        repo: &Repo,
        uri: String,
        path: &[u8],
        blob: ObjectId,
    ) -> Result<Resource, ProviderError> {
        let uri = canonical(&uri)?;
        let name = path.rsplit(|byte| *byte == b'/').next().unwrap_or(path);
        let name = String::from_utf8_lossy(name).into_owned();
        let size =
            tree::blob_size(git, blob).map_err(|error| repo.failed("blob header", &error))?;
        let mime = mime_guess::from_path(&name)
            .first_raw()
            .unwrap_or("text/plain");
        Ok(Resource::new(uri, name)
            .with_title(String::from_utf8_lossy(path).into_owned())
            .with_mime_type(mime)
            .with_size(size))
    }

    fn list(&self, after: Option<&str>, limit: usize) -> Result<Vec<Resource>, ProviderError> {
        let mut items = Vec::new();
        for repo in &self.repos {
            if items.len() == limit {
                break;
            }
            let prefix = uri_of(repo.name(), "");
            let after_here = match after {
                Some(after) if after.starts_with(&prefix) => Some(after),
                // Past every URI of this repository.
                Some(after) if after > prefix.as_str() => continue,
                _ => None,
            };
            let git = repo.local();
            let refs = refs_uri(repo.name());
            if after_here.is_none_or(|after| after < refs.as_str()) {
                items.push(
                    Resource::new(canonical(&refs)?, "refs")
                        .with_title(format!("{}: HEAD, branches and tags", repo.name()))
                        .with_mime_type("application/json"),
                );
            }
            let base = format!("{}/", tree_uri(repo.name(), "HEAD", b""));
            let after_key = match after_here {
                Some(after) if after.starts_with(&base) => Some(&after[base.len()..]),
                Some(after) if after > base.as_str() => continue,
                _ => None,
            };
            if !repo.config.exposes("HEAD") {
                continue;
            }
            let Some(head) = repo.resolve(&git, "HEAD")? else {
                continue;
            };
            let index = repo.head_files(&git, head, |git, commit| {
                FileIndex::build(git, &self.secrets, commit)
                    .map_err(|error| repo.failed("HEAD's tree", &error))
            });
            // One unreadable repository does not hide the others (the failure is logged).
            let Ok(index) = index else {
                continue;
            };
            for file in index.after(after_key).iter().take(limit - items.len()) {
                items.push(self.file_resource(
                    &git,
                    repo,
                    format!("{base}{}", file.key),
                    &file.path,
                    file.blob,
                )?);
            }
        }
        Ok(items)
    }

    fn read(
        &self,
        uri: &ResourceUri,
        range: Option<mcp_resources_core::resource::ByteRange>,
    ) -> Result<Option<Vec<Contents>>, ProviderError> {
        let Some(parsed) = uri::parse(uri) else {
            return Ok(None);
        };
        let Some(repo) = self.repo(&parsed.repo) else {
            return Ok(None);
        };
        let git = repo.local();
        let failed = |what: &'static str| move |error: gix::Error| repo.failed(what, &error);
        let contents = match parsed.target {
            Target::Refs => {
                let refs = repo.refs(&git)?;
                let head = refs
                    .head
                    .as_ref()
                    .map(|head| json!({"branch": head.branch, "commit": head.commit.to_string()}));
                let entries: Vec<_> = refs
                    .refs
                    .iter()
                    .map(|entry| {
                        let mut value =
                            json!({"name": entry.name, "commit": entry.commit.to_string()});
                        if let Some(tag) = entry.tag {
                            value["tag"] = json!(tag.to_string());
                        }
                        value
                    })
                    .collect();
                json_contents(uri, &json!({"head": head, "refs": entries}))
            }
            Target::Tree {
                rev,
                path,
                range: part,
            } => {
                let Some(commit) = repo.resolve(&git, &rev)? else {
                    return Ok(None);
                };
                let entry =
                    tree::entry_at(&git, &self.secrets, commit, &path).map_err(failed("tree"))?;
                let Some(Entry::File(blob)) = entry else {
                    return Ok(None);
                };
                // The engine's range of a whole file is read as its part (a blob over the read
                // limit can be read in parts either way; a length past any file is "to the
                // end"). Within a URI's part, it is cut below.
                match (part, range) {
                    (None, Some(engine)) => {
                        let length = (engine.length < u64::MAX / 2).then_some(engine.length);
                        let contents = self.read_blob(
                            &git,
                            repo,
                            uri,
                            &path,
                            blob,
                            Some((engine.offset, length)),
                        )?;
                        return Ok(Some(vec![contents]));
                    }
                    _ => self.read_blob(&git, repo, uri, &path, blob, part)?,
                }
            }
            Target::Commit { rev } => {
                let Some(commit) = repo.resolve(&git, &rev)? else {
                    return Ok(None);
                };
                let value =
                    history::commit(&git, &self.secrets, commit, self.config.max_diff_bytes)
                        .map_err(failed("commit"))?;
                json_contents(uri, &value)
            }
            Target::Log {
                rev,
                path,
                after,
                limit,
            } => {
                let Some(tip) = repo.resolve(&git, &rev)? else {
                    return Ok(None);
                };
                if path
                    .as_deref()
                    .is_some_and(|path| !tree::path_served(&self.secrets, path))
                {
                    return Ok(None);
                }
                let after = match after {
                    Some(after) => match ObjectId::from_hex(after.as_bytes()) {
                        Ok(id) => Some(id),
                        Err(_) => return Ok(None),
                    },
                    None => None,
                };
                let limit = limit.unwrap_or(self.config.log_page);
                if limit == 0 || limit > self.config.max_log_page {
                    return Err(ProviderError::invalid_params(format!(
                        "limit {limit} is not between 1 and {}",
                        self.config.max_log_page
                    )));
                }
                let page = history::log(&git, tip, path.as_deref(), after, limit, LOG_SCAN_LIMIT)
                    .map_err(failed("log"))?;
                if !page.found_after {
                    return Ok(None);
                }
                let next = page.resume_after.map(|last| {
                    log_uri(repo.name(), &rev, path.as_deref(), &last.to_string(), limit)
                });
                json_contents(uri, &json!({"commits": page.commits, "next": next}))
            }
            Target::Diff { base, head, path } => {
                let (Some(base), Some(head)) =
                    (repo.resolve(&git, &base)?, repo.resolve(&git, &head)?)
                else {
                    return Ok(None);
                };
                let text = history::diff(
                    &git,
                    &self.secrets,
                    base,
                    head,
                    path.as_deref(),
                    self.config.max_diff_bytes,
                )
                .map_err(failed("diff"))?;
                Contents::text(uri.clone(), text).with_mime_type("text/x-diff")
            }
        };
        let contents = match range {
            None => contents,
            Some(range) => {
                let body = contents.body.slice(range).ok_or_else(|| {
                    ProviderError::invalid_params(format!(
                        "range {}+{} of {uri} cuts a character",
                        range.offset, range.length
                    ))
                })?;
                Contents { body, ..contents }
            }
        };
        Ok(Some(vec![contents]))
    }

    /// The contents of a file's blob, whole or the part `part` of it, within the read limit.
    fn read_blob(
        &self,
        git: &gix::Repository,
        repo: &Repo,
        uri: &ResourceUri,
        path: &[u8],
        blob: ObjectId,
        part: Option<(u64, Option<u64>)>,
    ) -> Result<Contents, ProviderError> {
        let limit = self.config.max_read_bytes;
        let size =
            tree::blob_size(git, blob).map_err(|error| repo.failed("blob header", &error))?;
        let whole = uri
            .as_str()
            .split('?')
            .next()
            .unwrap_or_default()
            .to_owned();
        if size > MAX_BLOB_BYTES {
            return Err(ProviderError::invalid_params(format!(
                "{whole} is {size} bytes: blobs over {MAX_BLOB_BYTES} bytes are not served"
            )));
        }
        let too_large = |size: u64| {
            ProviderError::invalid_params(format!(
                "{whole} is {size} bytes, over the read limit of {limit} bytes: read it in parts, \
                 for example {whole}?offset=0&length={}",
                (limit / 4 * 3).max(1)
            ))
        };
        let (offset, length) = match part {
            None if size > limit => return Err(too_large(size)),
            None => (0, size),
            Some((_, Some(length))) if length > limit => {
                return Err(ProviderError::invalid_params(format!(
                    "length {length} is over the read limit of {limit} bytes"
                )));
            }
            Some((offset, Some(length))) => (offset, length),
            Some((offset, None)) if size.saturating_sub(offset) > limit => {
                return Err(too_large(size.saturating_sub(offset)));
            }
            Some((offset, None)) => (offset, size),
        };
        let data = git
            .find_blob(blob)
            .map_err(|error| repo.failed("blob", &error))?
            .take_data();
        let start = usize::try_from(offset.min(size))
            .unwrap_or(usize::MAX)
            .min(data.len());
        let end = usize::try_from(offset.saturating_add(length).min(size))
            .unwrap_or(usize::MAX)
            .min(data.len());
        let bytes = data[start..end].to_vec();
        let name = path.rsplit(|byte| *byte == b'/').next().unwrap_or(path);
        let mime = mime_guess::from_path(String::from_utf8_lossy(name).as_ref()).first_raw();
        let contents = Contents::of_file(uri.clone(), bytes, mime);
        let encoded = contents.body.wire_len(limit);
        if encoded > limit {
            let raw = contents.body.len();
            let fits = (u128::from(limit) * u128::from(raw) / u128::from(encoded.max(1))) as u64;
            return Err(ProviderError::invalid_params(format!(
                "{whole}: these {raw} bytes are {encoded} bytes once encoded for the wire, over \
                 the read limit of {limit} bytes: read it in parts, for example \
                 {whole}?offset={offset}&length={}",
                fits.max(1)
            )));
        }
        Ok(contents)
    }

    fn list_directory(
        &self,
        uri: &ResourceUri,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let Some(parsed) = uri::parse(uri) else {
            return Ok(None);
        };
        let Target::Tree {
            rev,
            path,
            range: None,
        } = parsed.target
        else {
            return Ok(None);
        };
        let Some(repo) = self.repo(&parsed.repo) else {
            return Ok(None);
        };
        let git = repo.local();
        let Some(commit) = repo.resolve(&git, &rev)? else {
            return Ok(None);
        };
        let failed = |error: gix::Error| repo.failed("tree", &error);
        let Some(Entry::Directory(tree_id)) =
            tree::entry_at(&git, &self.secrets, commit, &path).map_err(failed)?
        else {
            return Ok(None);
        };
        let base = format!("{}/", uri.as_str());
        let after_key = after.and_then(|after| after.strip_prefix(base.as_str()));
        let mut items = Vec::new();
        for child in tree::children(&git, &self.secrets, tree_id, &path).map_err(failed)? {
            if items.len() == limit {
                break;
            }
            if after_key.is_some_and(|after| child.key.as_str() <= after) {
                continue;
            }
            let mut child_path = path.clone();
            if !child_path.is_empty() {
                child_path.push(b'/');
            }
            child_path.extend_from_slice(&child.name);
            let child_uri = format!("{base}{}", child.key);
            items.push(match child.entry {
                Entry::File(blob) => {
                    self.file_resource(&git, repo, child_uri, &child_path, blob)?
                }
                Entry::Directory(_) => Resource::directory(
                    canonical(&child_uri)?,
                    String::from_utf8_lossy(&child.name).into_owned(),
                )
                .with_title(String::from_utf8_lossy(&child_path).into_owned()),
            });
        }
        Ok(Some(items))
    }

    fn complete(
        &self,
        variable: &str,
        prefix: &str,
        repo_name: Option<&str>,
        rev: Option<&str>,
    ) -> Result<Vec<String>, ProviderError> {
        if variable == "repo" {
            return Ok(self
                .repos
                .iter()
                .map(Repo::name)
                .filter(|name| name.starts_with(prefix))
                .map(str::to_owned)
                .collect());
        }
        let Some(repo) = repo_name.and_then(|name| self.repo(name)) else {
            return Ok(Vec::new());
        };
        let git = repo.local();
        let mut values = Vec::new();
        match variable {
            "rev" | "base" | "head" => {
                let refs = repo.refs(&git)?;
                if refs.head.is_some() {
                    values.push("HEAD".to_owned());
                }
                for entry in &refs.refs {
                    let short = entry
                        .name
                        .strip_prefix("refs/heads/")
                        .or_else(|| entry.name.strip_prefix("refs/tags/"))
                        .unwrap_or(&entry.name);
                    values.push(short.to_owned());
                }
                values.retain(|value| value.starts_with(prefix));
                if values.is_empty() && prefix.len() >= 4 {
                    values.extend(repo.resolve(&git, prefix)?.map(|commit| commit.to_string()));
                }
            }
            "path" => {
                let Some(commit) = repo.resolve(&git, rev.unwrap_or("HEAD"))? else {
                    return Ok(Vec::new());
                };
                let (directory, rest) = prefix.rsplit_once('/').unwrap_or(("", prefix));
                let failed = |error: gix::Error| repo.failed("tree", &error);
                let entry = tree::entry_at(&git, &self.secrets, commit, directory.as_bytes())
                    .map_err(failed)?;
                let Some(Entry::Directory(tree_id)) = entry else {
                    return Ok(Vec::new());
                };
                for child in tree::children(&git, &self.secrets, tree_id, directory.as_bytes())
                    .map_err(failed)?
                {
                    let Ok(name) = std::str::from_utf8(&child.name) else {
                        continue;
                    };
                    // What the template's reserved expansion cannot give back.
                    if !name.starts_with(rest) || name.contains(['?', '#', '%']) {
                        continue;
                    }
                    values.push(if directory.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{directory}/{name}")
                    });
                }
            }
            _ => {}
        }
        values.truncate(MAX_COMPLETION_CANDIDATES);
        Ok(values)
    }
}

/// A URI this provider built, parsed; it is canonical by construction.
fn canonical(uri: &str) -> Result<ResourceUri, ProviderError> {
    ResourceUri::parse(uri)
        .map_err(|error| ProviderError::new(format!("built a bad uri {uri}")).with_source(error))
}

fn json_contents(uri: &ResourceUri, value: &serde_json::Value) -> Contents {
    Contents::text(uri.clone(), value.to_string()).with_mime_type("application/json")
}

/// Whether `rev` is a full commit id, which names one commit forever.
fn is_full_id(rev: &str) -> bool {
    rev.len() == 40 && rev.bytes().all(|byte| byte.is_ascii_hexdigit())
}

fn templates() -> Vec<ResourceTemplate> {
    let template = |text: &str, name: &str, mime: &str, description: &str| {
        ResourceTemplate::new(
            UriTemplate::parse(text).expect("invariant: the git templates are valid"),
            name,
        )
        .with_mime_type(mime)
        .with_description(description)
    };
    vec![
        template(
            "git://{repo}/refs",
            "git-refs",
            "application/json",
            "HEAD, branches and tags of a repository, with their commits",
        ),
        template(
            "git://{repo}/tree/{rev}/{+path}{?offset,length}",
            "git-file",
            "text/plain",
            "A file (or directory) at a revision: a branch, a tag, HEAD or a commit id; \
             offset and length read a part of a large file",
        ),
        template(
            "git://{repo}/commit/{rev}",
            "git-commit",
            "application/json",
            "A commit: author, committer, message and the files it changed",
        ),
        template(
            "git://{repo}/log/{rev}{?path,after,limit}",
            "git-log",
            "application/json",
            "Commits reachable from a revision, newest first, a page at a time; path keeps \
             those that changed it",
        ),
        template(
            "git://{repo}/diff/{base}..{head}{?path}",
            "git-diff",
            "text/x-diff",
            "A unified diff between two revisions, optionally of one path",
        ),
    ]
}

#[async_trait]
impl Provider for GitProvider {
    fn claims(&self, uri: &ResourceUri) -> bool {
        uri.scheme() == uri::SCHEME
            && uri
                .authority()
                .is_some_and(|name| self.shared.repo(name).is_some())
    }

    async fn list(&self, request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        let after = request.after.map(str::to_owned);
        let limit = request.limit;
        self.blocking(move |shared| shared.list(after.as_deref(), limit))
            .await
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        templates()
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        let uri = request.uri.clone();
        let range = request.range;
        self.blocking(move |shared| shared.read(&uri, range)).await
    }

    async fn list_directory(
        &self,
        request: DirectoryRequest<'_>,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let uri = request.uri.clone();
        let after = request.after.map(str::to_owned);
        let limit = request.limit;
        self.blocking(move |shared| shared.list_directory(&uri, after.as_deref(), limit))
            .await
    }

    fn matches_templates(&self) -> bool {
        // `uri::parse` takes every URI apart itself, telling `%2F` from `/`.
        false
    }

    async fn complete(&self, request: CompletionRequest<'_>) -> Result<Vec<String>, ProviderError> {
        let variable = request.variable.to_owned();
        let prefix = request.prefix.to_owned();
        let repo = request.context.get_str("repo").map(str::to_owned);
        let rev = request
            .context
            .get_str("rev")
            .or_else(|| request.context.get_str("head"))
            .map(str::to_owned);
        self.blocking(move |shared| {
            shared.complete(&variable, &prefix, repo.as_deref(), rev.as_deref())
        })
        .await
    }

    fn cache_policy(&self) -> CachePolicy {
        CachePolicy {
            ttl_ms: Some(self.shared.config.ttl_ms),
            per_principal: false,
        }
    }

    /// `git://NAME/tree/REV/PATH?offset=O&length=L` is the range `O..O+L` of the file's URI
    /// without its query (to its end without a length), for the engine's content rules.
    fn range_of(
        &self,
        uri: &ResourceUri,
    ) -> Option<(ResourceUri, mcp_resources_core::resource::ByteRange)> {
        let parsed = uri::parse(uri)?;
        let Target::Tree {
            range: Some((offset, length)),
            ..
        } = parsed.target
        else {
            return None;
        };
        let (base, _) = uri.as_str().split_once('?')?;
        Some((
            ResourceUri::parse(base).ok()?,
            mcp_resources_core::resource::ByteRange {
                offset,
                length: length.unwrap_or(u64::MAX - offset),
            },
        ))
    }

    fn cache_policy_of(&self, uri: &ResourceUri) -> Option<CachePolicy> {
        let parsed = uri::parse(uri)?;
        let immutable = match &parsed.target {
            Target::Refs => false,
            Target::Tree { rev, .. } | Target::Commit { rev } | Target::Log { rev, .. } => {
                is_full_id(rev)
            }
            Target::Diff { base, head, .. } => is_full_id(base) && is_full_id(head),
        };
        immutable.then_some(CachePolicy {
            ttl_ms: Some(self.shared.config.immutable_ttl_ms),
            per_principal: false,
        })
    }
}

/// The URIs whose answers change when the served ref `name` moves from `old` to `new` in
/// repository `repo`: used by the watcher, here beside the URI builders.
pub(crate) fn moved_ref_uris(repo: &str, revs: &[String]) -> Vec<String> {
    let mut uris = vec![refs_uri(repo)];
    for rev in revs {
        uris.push(commit_uri(repo, rev));
        uris.push(uri_of(
            repo,
            &format!(
                "log/{}",
                mcp_resources_core::uri::encode_segment(rev.as_bytes())
            ),
        ));
        uris.push(tree_uri(repo, rev, b""));
    }
    uris
}
