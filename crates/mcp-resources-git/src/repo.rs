//! One served repository: opened read-only with its own configuration only, its refs as served,
//! and revisions resolved to commits by the rules the provider documents.
//!
//! **Layer:** provider (`mcp-resources-git`). Blocking gitoxide calls, made on tokio's blocking
//! pool by the provider; this module never knows URIs, the engine's routing or the watcher.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use gix::ObjectId;
use mcp_resources_core::provider::ProviderError;

use crate::config::RepoConfig;
use crate::tree::FileIndex;

/// A served repository.
pub(crate) struct Repo {
    pub(crate) config: RepoConfig,
    shared: gix::ThreadSafeRepository,
    /// The repository's git directory (`.git`, or the bare repository itself), whose refs
    /// the watcher follows.
    pub(crate) git_dir: PathBuf,
    /// The files of HEAD's tree, for the resource list, kept until HEAD moves.
    head_files: Mutex<Option<Arc<FileIndex>>>,
    /// The commits reachable from the served refs, kept until a ref moves.
    reachable: Mutex<Reachable>,
}

/// The commits reachable from a set of tips.
#[derive(Default)]
struct Reachable {
    /// The tips, sorted.
    tips: Vec<ObjectId>,
    commits: HashSet<ObjectId>,
}

/// The most commits of a repository's served history that ids can name.
const MAX_REACHABLE: usize = 5_000_000;

/// HEAD as served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    /// The branch HEAD is on (`refs/heads/main`), `None` when detached.
    pub(crate) branch: Option<String>,
    /// Its commit.
    pub(crate) commit: ObjectId,
}

/// One served ref.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RefEntry {
    /// Its full name, `refs/heads/main`.
    pub(crate) name: String,
    /// The commit it names (an annotated tag peeled).
    pub(crate) commit: ObjectId,
    /// The tag object, for an annotated tag.
    pub(crate) tag: Option<ObjectId>,
}

/// The served refs at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Refs {
    /// HEAD, when served and born.
    pub(crate) head: Option<Head>,
    /// Served refs naming a commit, by name.
    pub(crate) refs: Vec<RefEntry>,
}

impl Refs {
    /// The commit a served ref name (`HEAD`, a full name) points to now.
    pub(crate) fn commit_of(&self, name: &str) -> Option<ObjectId> {
        if name == "HEAD" {
            return self.head.as_ref().map(|head| head.commit);
        }
        self.refs
            .iter()
            .find(|entry| entry.name == name)
            .map(|entry| entry.commit)
    }
}

/// The message of a gitoxide error with its causes, for logs.
pub(crate) fn chain(error: &gix::Error) -> String {
    let mut text = String::new();
    for cause in error.iter_errors() {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause);
        }
    }
    text
}

impl Repo {
    /// Opens the repository of `config` (a work tree or a bare repository) with only its own
    /// configuration: no system, global or user files, no environment.
    pub(crate) fn open(config: RepoConfig) -> Result<Repo, String> {
        let shared =
            gix::ThreadSafeRepository::open_opts(&config.path, gix::open::Options::isolated())
                .map_err(|error| format!("{}: {}", config.path.display(), chain(&error)))?;
        let git_dir = shared.git_dir().to_path_buf();
        Ok(Repo {
            config,
            shared,
            git_dir,
            head_files: Mutex::new(None),
            reachable: Mutex::new(Reachable::default()),
        })
    }

    /// The repository's name.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    /// A handle for this thread.
    pub(crate) fn local(&self) -> gix::Repository {
        self.shared.to_thread_local()
    }

    /// An error reading this repository: public, naming the repository and not its path; the
    /// cause goes to the log.
    pub(crate) fn failed(&self, what: &str, error: &gix::Error) -> ProviderError {
        tracing::warn!(repository = self.name(), error = %chain(error), "{what} failed");
        ProviderError::public(format!(
            "repository {} could not be read ({what})",
            self.name()
        ))
    }

    /// The served refs, read now.
    pub(crate) fn refs(&self, repo: &gix::Repository) -> Result<Refs, ProviderError> {
        let mut refs = Refs::default();
        if self.config.exposes("HEAD") {
            let head = repo.head().map_err(|error| self.failed("HEAD", &error))?;
            if let Some(commit) = head.id().and_then(|id| peel_to_commit(repo, id)) {
                refs.head = Some(Head {
                    branch: head.referent_name().map(|name| name.as_bstr().to_string()),
                    commit,
                });
            }
        }
        let platform = repo
            .references()
            .map_err(|error| self.failed("refs", &error))?;
        let all = platform
            .all()
            .map_err(|error| self.failed("refs", &error))?;
        for reference in all {
            let Ok(reference) = reference else { continue };
            let Ok(name) = std::str::from_utf8(reference.name().as_bstr()) else {
                continue;
            };
            if !self.config.exposes(name) {
                continue;
            }
            let Some(target) = reference.try_id().map(|id| id.detach()) else {
                continue;
            };
            let Some(commit) = peel_to_commit(repo, target) else {
                continue;
            };
            refs.refs.push(RefEntry {
                name: name.to_owned(),
                commit,
                tag: (target != commit).then_some(target),
            });
        }
        refs.refs.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(refs)
    }

    /// The commit `rev` names, `None` when it names none that is served:
    ///
    /// - a full commit id (40 hexadecimal digits) names that commit, as in git, before any
    ///   ref of the same spelling;
    /// - `HEAD`, a served ref by its full name, or by its short name as a tag
    ///   (`refs/tags/REV`) then a branch (`refs/heads/REV`), git's order; only a ref stored
    ///   under exactly that name counts;
    /// - else an unambiguous prefix of a commit id (at least 4 hexadecimal digits; an
    ///   annotated tag's id names its commit).
    ///
    /// A commit named by its id must be reachable from a served ref: commits only a hidden
    /// ref (a remote-tracking branch, the stash) or nothing reaches name nothing. Nothing else
    /// of git's revision syntax (`HEAD~1`, `main@{1}`, `:/text`) is taken.
    pub(crate) fn resolve(
        &self,
        repo: &gix::Repository,
        rev: &str,
    ) -> Result<Option<ObjectId>, ProviderError> {
        let is_hex = rev.bytes().all(|b| b.is_ascii_hexdigit());
        if is_hex && rev.len() == 40 {
            return self.by_id(repo, rev);
        }
        let candidates: Vec<String> = if rev == "HEAD" {
            vec!["HEAD".to_owned()]
        } else if rev.starts_with("refs/") {
            vec![rev.to_owned()]
        } else {
            vec![format!("refs/tags/{rev}"), format!("refs/heads/{rev}")]
        };
        for name in candidates {
            if !self.config.exposes(&name) {
                continue;
            }
            if name == "HEAD" {
                let head = repo.head().map_err(|error| self.failed("HEAD", &error))?;
                return Ok(head.id().and_then(|id| peel_to_commit(repo, id)));
            }
            // A name git would refuse is no ref; a partial name gix completed elsewhere
            // (`.git/remotes/...`) is not this one.
            let Ok(Some(reference)) = repo.try_find_reference(name.as_str()) else {
                continue;
            };
            if reference.name().as_bstr() != name.as_bytes() {
                continue;
            }
            if let Some(target) = reference.try_id() {
                return Ok(peel_to_commit(repo, target.detach()));
            }
        }
        if is_hex && (4..40).contains(&rev.len()) {
            return self.by_id(repo, rev);
        }
        Ok(None)
    }

    /// The commit a hexadecimal id or prefix names, when reachable from a served ref.
    fn by_id(&self, repo: &gix::Repository, hex: &str) -> Result<Option<ObjectId>, ProviderError> {
        let Ok(prefix) = gix::hash::Prefix::from_hex(&hex.to_ascii_lowercase()) else {
            return Ok(None);
        };
        let commit = match repo.objects.lookup_prefix(prefix, None) {
            Ok(Some(Ok(id))) => peel_to_commit(repo, id),
            // Ambiguous, or nothing.
            Ok(Some(Err(()))) | Ok(None) => None,
            Err(error) => {
                tracing::warn!(repository = self.name(), %error, "object lookup failed");
                return Err(ProviderError::public(format!(
                    "repository {} could not be read (object lookup)",
                    self.name()
                )));
            }
        };
        match commit {
            Some(commit) if self.is_reachable(repo, commit)? => Ok(Some(commit)),
            _ => Ok(None),
        }
    }

    /// Whether `commit` is reachable from a served ref now. The commits reachable from the
    /// served tips are walked once per set of tips (at most [`MAX_REACHABLE`]) and kept.
    fn is_reachable(
        &self,
        repo: &gix::Repository,
        commit: ObjectId,
    ) -> Result<bool, ProviderError> {
        let refs = self.refs(repo)?;
        let mut tips: Vec<ObjectId> = refs.refs.iter().map(|entry| entry.commit).collect();
        tips.extend(refs.head.as_ref().map(|head| head.commit));
        tips.sort_unstable();
        tips.dedup();
        let mut reachable = self
            .reachable
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if reachable.tips != tips {
            let started = std::time::Instant::now();
            let mut commits = HashSet::new();
            if !tips.is_empty() {
                let walk = repo
                    .rev_walk(tips.iter().copied())
                    .all()
                    .map_err(|error| self.failed("history", &error))?;
                for info in walk.take(MAX_REACHABLE) {
                    let info = info.map_err(|error| self.failed("history", &error))?;
                    commits.insert(info.id);
                }
            }
            tracing::info!(
                repository = self.name(),
                commits = commits.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "walked the served history"
            );
            *reachable = Reachable { tips, commits };
        }
        Ok(reachable.commits.contains(&commit))
    }

    /// The index of HEAD's files at `commit`, built once per commit.
    pub(crate) fn head_files(
        &self,
        repo: &gix::Repository,
        commit: ObjectId,
        build: impl FnOnce(&gix::Repository, ObjectId) -> Result<FileIndex, ProviderError>,
    ) -> Result<Arc<FileIndex>, ProviderError> {
        let cached = self
            .head_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(index) = cached.filter(|index| index.commit == commit) {
            return Ok(index);
        }
        let started = std::time::Instant::now();
        let index = Arc::new(build(repo, commit)?);
        tracing::info!(
            repository = self.name(),
            %commit,
            files = index.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "indexed HEAD's tree"
        );
        *self
            .head_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&index));
        Ok(index)
    }
}

/// The commit `id` is, or that the tag `id` points to (through tags of tags); `None` for a
/// tree, a blob, or an object that is missing or unreadable.
pub(crate) fn peel_to_commit(repo: &gix::Repository, id: impl Into<ObjectId>) -> Option<ObjectId> {
    let object = repo.find_object(id.into()).ok()?;
    object.peel_to_commit().ok().map(|commit| commit.id)
}
