//! What the git provider serves and how: the repositories, which of their refs, the limits.
//!
//! **Layer:** provider (`mcp-resources-git`). Plain values with their defaults and checks; this
//! module never opens a repository.

use std::path::PathBuf;
use std::time::Duration;

use mcp_resources_core::secret::{DEFAULT_SECRET_EXCEPTIONS, DEFAULT_SECRET_PATTERNS};

use crate::uri::is_valid_name;

/// The refs served by default: HEAD, local branches and tags.
pub const DEFAULT_REFS: &[&str] = &["HEAD", "refs/heads/*", "refs/tags/*"];

/// One repository to serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoConfig {
    /// The authority of its URIs (`git://NAME/...`): lowercase ASCII letters, digits, `.`, `_`
    /// and `-`.
    pub name: String,
    /// The repository: a work tree (its `.git` is found) or a bare repository.
    pub path: PathBuf,
    /// Which refs may be named as a revision and are listed in `git://NAME/refs`: full ref
    /// names (`HEAD`, `refs/heads/main`), a trailing `*` matching any rest
    /// (`refs/heads/*`). Default [`DEFAULT_REFS`].
    pub refs: Vec<String>,
}

impl RepoConfig {
    /// The repository at `path` named `name`, with the default refs.
    pub fn new(name: impl Into<String>, path: impl Into<PathBuf>) -> RepoConfig {
        RepoConfig {
            name: name.into(),
            path: path.into(),
            refs: DEFAULT_REFS.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    /// Whether the full ref name `name` is served.
    pub(crate) fn exposes(&self, name: &str) -> bool {
        self.refs
            .iter()
            .any(|pattern| match pattern.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => name == pattern,
            })
    }
}

/// The git provider's configuration.
#[derive(Clone, Debug)]
pub struct GitConfig {
    /// The repositories, each under its own name.
    pub repos: Vec<RepoConfig>,
    /// Secret-looking names never served at any revision (the filesystem provider's rules).
    pub secret_patterns: Vec<String>,
    /// Exceptions to them.
    pub secret_exceptions: Vec<String>,
    /// The most bytes one read of a file returns (counted as sent: base64 for binary); larger
    /// files are read in ranges. Default 8 MiB.
    pub max_read_bytes: u64,
    /// The most bytes of one diff; a longer one is cut, and says so. Default 1 MiB.
    pub max_diff_bytes: usize,
    /// Commits in a log page when the URI gives no `limit`, and the most it may ask. Defaults
    /// 50 and 500.
    pub log_page: usize,
    /// See [`GitConfig::log_page`].
    pub max_log_page: usize,
    /// The ttl of answers about a ref (a branch, a tag, `HEAD`), which can move. Default 5 s.
    pub ttl_ms: u64,
    /// The ttl of answers about a full commit id, which never change. Default one day.
    pub immutable_ttl_ms: u64,
    /// Whether [`GitProvider::watch`](crate::GitProvider::watch) follows the refs.
    pub watch: bool,
    /// How long ref changes are collected before they are looked at. Default 100 ms.
    pub debounce: Duration,
}

impl GitConfig {
    /// Serves `repos` with the defaults.
    pub fn new(repos: impl IntoIterator<Item = RepoConfig>) -> GitConfig {
        let owned = |patterns: &[&str]| patterns.iter().map(|p| (*p).to_owned()).collect();
        GitConfig {
            repos: repos.into_iter().collect(),
            secret_patterns: owned(DEFAULT_SECRET_PATTERNS),
            secret_exceptions: owned(DEFAULT_SECRET_EXCEPTIONS),
            max_read_bytes: 8 * 1024 * 1024,
            max_diff_bytes: 1024 * 1024,
            log_page: 50,
            max_log_page: 500,
            ttl_ms: 5_000,
            immutable_ttl_ms: 86_400_000,
            watch: true,
            debounce: Duration::from_millis(100),
        }
    }

    /// The first problem with this configuration: a bad or repeated name, no refs.
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut names = std::collections::BTreeSet::new();
        for repo in &self.repos {
            if !is_valid_name(&repo.name) {
                return Err(format!(
                    "repository name {:?} is not lowercase letters, digits, '.', '_' and '-' (at most 64)",
                    repo.name
                ));
            }
            if !names.insert(repo.name.as_str()) {
                return Err(format!("two repositories are named {:?}", repo.name));
            }
            if repo.refs.is_empty() {
                return Err(format!("repository {:?} serves no refs", repo.name));
            }
        }
        if self.log_page == 0 || self.max_log_page < self.log_page {
            return Err("log pages: 0 < log_page <= max_log_page".to_owned());
        }
        Ok(())
    }
}
