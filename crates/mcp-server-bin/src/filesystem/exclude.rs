//! What the filesystem provider never exposes: `.git/`, secret-looking files, and files ignored
//! by `.gitignore`, `.ignore` and the repository's `.git/info/exclude`.
//!
//! **Layer:** server, filesystem provider. These are pure decisions over paths plus the reading
//! of ignore files; this module never walks a tree, never reads a served file's contents and
//! never knows URIs. The walk of the index and the check of every read both call it, so a file
//! is hidden from lists exactly when it is refused to reads.
//!
//! # Ignore files
//!
//! Patterns are read with [`ignore::gitignore`], one matcher per directory holding a
//! `.gitignore` and/or an `.ignore` (the latter wins within a directory, as in ripgrep). A path is
//! judged by the matchers of its ancestors, deepest first, the first that has an opinion deciding
//! (a `!pattern` re-includes); a directory that is ignored hides everything below it. Above the
//! served root, the ignore files of the enclosing git repository (from its top down to the root's
//! parent) and its `.git/info/exclude` apply too; without an enclosing repository only the ignore
//! files inside the root count. Git's global excludes file is not read. On macOS and Windows,
//! whose file systems find a file by any case of its name, patterns match any case, as git's
//! `core.ignorecase` has them do there ([`CASE_INSENSITIVE_NAMES`]).
//!
//! A directory's matcher is parsed once and kept ([`IgnoreCache`]); every later use looks at the
//! ignore files' metadata (size, modification and change times, inode) and parses again only
//! when one of them changed, appeared or disappeared. A file changed less than
//! [`RACY_WINDOW`] ago is parsed every time, because two edits within one tick of the file
//! system's clock can leave the same metadata (git's "racy" entries). A read thus still sees an
//! ignore file edited a moment ago, without compiling its patterns again each time.
//!
//! # Secret patterns
//!
//! Globs (case-insensitive) matched against the name of every component of the path relative to
//! its root, so a directory named `.env` hides everything below it too; a pattern holding a `/` is
//! matched against the relative path instead. An exception (by default `id_*.pub`, public keys)
//! overrides a match.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The default secret-looking file names, never exposed.
pub const DEFAULT_SECRET_PATTERNS: &[&str] = &[
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "credentials*",
    "*.p12",
    "*.pfx",
    ".htpasswd",
    "*.kdbx",
];

/// The default exceptions to the secret patterns: public SSH keys.
pub const DEFAULT_SECRET_EXCEPTIONS: &[&str] = &["id_*.pub"];

/// A secret pattern or exception that is not a valid glob.
#[derive(Debug, thiserror::Error)]
#[error("secret pattern {pattern:?} is not a valid glob")]
pub struct PatternError {
    /// The offending pattern.
    pub pattern: String,
    /// Why it is invalid.
    #[source]
    pub source: globset::Error,
}

/// Compiled secret patterns and exceptions.
#[derive(Debug)]
pub(crate) struct SecretMatcher {
    names: GlobSet,
    paths: GlobSet,
    exception_names: GlobSet,
    exception_paths: GlobSet,
}

impl SecretMatcher {
    pub(crate) fn new(
        patterns: &[String],
        exceptions: &[String],
    ) -> Result<SecretMatcher, PatternError> {
        let (names, paths) = compile(patterns)?;
        let (exception_names, exception_paths) = compile(exceptions)?;
        Ok(SecretMatcher {
            names,
            paths,
            exception_names,
            exception_paths,
        })
    }

    /// Whether one component `name`, reached by the relative path `prefix` (ending in `name`),
    /// looks secret. The path is spelt with `/` only when a pattern holding one needs it.
    fn component_is_secret(&self, name: &str, prefix: &Path) -> bool {
        let slashed = || super::uri::slash_path(prefix);
        let matched =
            self.names.is_match(name) || (!self.paths.is_empty() && self.paths.is_match(slashed()));
        matched
            && !(self.exception_names.is_match(name)
                || (!self.exception_paths.is_empty() && self.exception_paths.is_match(slashed())))
    }
}

fn compile(patterns: &[String]) -> Result<(GlobSet, GlobSet), PatternError> {
    let mut names = GlobSetBuilder::new();
    let mut paths = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .case_insensitive(true)
            .build()
            .map_err(|source| PatternError {
                pattern: pattern.clone(),
                source,
            })?;
        if pattern.contains('/') {
            paths.add(glob);
        } else {
            names.add(glob);
        }
    }
    let build = |builder: GlobSetBuilder| {
        builder.build().map_err(|source| PatternError {
            pattern: patterns.join(", "),
            source,
        })
    };
    Ok((build(names)?, build(paths)?))
}

/// The ignore matcher of one directory, shared by every check that uses it.
pub(crate) type Level = Arc<Gitignore>;

/// The names of the ignore files read in every directory, in increasing precedence.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// How many directories' matchers are kept; past it the cache starts over (a tree with more
/// directories than this pays a parse for some of them again).
const IGNORE_CACHE_DIRECTORIES: usize = 65_536;

/// How recently an ignore file may have changed for its parsed form to be reused: file times
/// have the granularity of the kernel's clock tick, so an edit within the same tick as the
/// last parse would go unseen.
pub(crate) const RACY_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

/// What an ignore file looked like when it was parsed: a change to any of these means the file
/// must be read again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Inode and change time (seconds, nanoseconds), where the platform has them: a file
    /// replaced by a rename, or rewritten within the modification time's granularity, differs.
    #[cfg(unix)]
    identity: (u64, i64, i64),
    /// Changed within [`RACY_WINDOW`] of when the stamp was taken (or at an unknown time).
    racy: bool,
}

impl Stamp {
    /// The stamp of `file` if it is a regular file (following symlinks, as reading it does);
    /// racy if it changed within `window`.
    fn of(file: &Path, window: std::time::Duration) -> Option<Stamp> {
        let metadata = std::fs::metadata(file)
            .ok()
            .filter(std::fs::Metadata::is_file)?;
        Some(Stamp::from_metadata(&metadata, window))
    }

    /// The stamp of the file `metadata` describes; racy if it changed within `window` of now.
    pub(crate) fn from_metadata(
        metadata: &std::fs::Metadata,
        window: std::time::Duration,
    ) -> Stamp {
        let modified = metadata.modified().ok();
        #[cfg(unix)]
        let identity = {
            use std::os::unix::fs::MetadataExt;
            (metadata.ino(), metadata.ctime(), metadata.ctime_nsec())
        };
        #[cfg(unix)]
        let changed = u64::try_from(identity.1)
            .ok()
            .map(|seconds| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
            .max(modified);
        #[cfg(not(unix))]
        let changed = modified;
        let racy = changed.is_none_or(|changed| {
            SystemTime::now()
                .duration_since(changed)
                .map_or(true, |age| age < window)
        });
        Stamp {
            len: metadata.len(),
            modified,
            #[cfg(unix)]
            identity,
            racy,
        }
    }

    /// Whether the file changed too recently for the stamp to tell a later change.
    pub(crate) fn is_racy(&self) -> bool {
        self.racy
    }
}

/// One directory's parsed matcher and the stamps of the files it was parsed from.
#[derive(Debug)]
struct CachedLevel {
    stamps: [Option<Stamp>; IGNORE_FILES.len()],
    level: Option<Level>,
}

/// Parsed ignore matchers by directory, re-parsed when their files change.
#[derive(Debug)]
pub(crate) struct IgnoreCache {
    levels: Mutex<HashMap<PathBuf, CachedLevel>>,
    /// [`RACY_WINDOW`], shorter in tests.
    racy_window: std::time::Duration,
}

impl Default for IgnoreCache {
    fn default() -> IgnoreCache {
        IgnoreCache {
            levels: Mutex::default(),
            racy_window: RACY_WINDOW,
        }
    }
}

/// The exclusion rules of one provider.
#[derive(Debug)]
pub(crate) struct Rules {
    pub(crate) secrets: SecretMatcher,
    pub(crate) respect_ignore_files: bool,
    /// Whether ignore patterns match names whatever their case: [`CASE_INSENSITIVE_NAMES`]
    /// outside tests.
    pub(crate) ignore_case: bool,
    pub(crate) ignore_cache: IgnoreCache,
}

/// Whether this platform's file systems usually find a file by any case of its name (macOS,
/// Windows). There, as git does (`core.ignorecase`), ignore patterns match any case: a request
/// for `SECRET.TXT` must not reach a `secret.txt` that `.gitignore` hides.
pub(crate) const CASE_INSENSITIVE_NAMES: bool = cfg!(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "windows"
));

/// A builder of the matcher of ignore files read in `directory`.
fn ignore_builder(directory: &Path, ignore_case: bool) -> GitignoreBuilder {
    let mut builder = GitignoreBuilder::new(directory);
    // Never fails (it returns a `Result` for historical reasons); set before any pattern is
    // added, as it applies to the patterns added after it.
    if let Err(error) = builder.case_insensitive(ignore_case) {
        tracing::warn!(%error, "ignore patterns stay case-sensitive");
    }
    builder
}

impl Rules {
    /// Whether the last component of `relative` (a path relative to its root, whose earlier
    /// components were already checked) is `.git` or secret-looking.
    pub(crate) fn last_component_is_special(&self, relative: &Path) -> bool {
        let Some(name) = relative.file_name() else {
            return true;
        };
        let name = name.to_string_lossy();
        name.eq_ignore_ascii_case(".git") || self.secrets.component_is_secret(&name, relative)
    }

    /// Whether any component of `relative` is `.git` or secret-looking.
    pub(crate) fn any_component_is_special(&self, relative: &Path) -> bool {
        let mut prefix = PathBuf::new();
        for component in relative.components() {
            let Component::Normal(name) = component else {
                return true;
            };
            prefix.push(name);
            if self.last_component_is_special(&prefix) {
                return true;
            }
        }
        false
    }

    /// The ignore matcher of `directory` (its `.gitignore` and `.ignore`), if it has one and
    /// ignore files are respected: parsed again only if those files changed since last time.
    pub(crate) fn level(&self, directory: &Path) -> Option<Level> {
        if !self.respect_ignore_files {
            return None;
        }
        let window = self.ignore_cache.racy_window;
        let stamps = IGNORE_FILES.map(|name| Stamp::of(&directory.join(name), window));
        let mut cache = self
            .ignore_cache
            .levels
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = cache.get(directory) {
            let racy = stamps.iter().flatten().any(|stamp| stamp.racy);
            if cached.stamps == stamps && !racy {
                return cached.level.clone();
            }
        }
        // Parsed under the lock: two checks of one changed directory parse it once.
        let level = parse_level(directory, &stamps, self.ignore_case).map(Arc::new);
        if cache.len() >= IGNORE_CACHE_DIRECTORIES {
            cache.clear();
        }
        cache.insert(
            directory.to_path_buf(),
            CachedLevel {
                stamps,
                level: level.clone(),
            },
        );
        level
    }

    /// The matchers that apply above the root `root`: the enclosing git repository's
    /// `.git/info/exclude` and the ignore files from its top down to the root's parent.
    pub(crate) fn base_levels(&self, root: &Path) -> Vec<Level> {
        if !self.respect_ignore_files {
            return Vec::new();
        }
        let Some(top) = root.ancestors().find(|dir| dir.join(".git").exists()) else {
            return Vec::new();
        };
        let mut levels = Vec::new();
        let exclude = top.join(".git").join("info").join("exclude");
        if exclude.is_file() {
            let mut builder = ignore_builder(top, self.ignore_case);
            if let Some(error) = builder.add(&exclude) {
                tracing::debug!(file = %exclude.display(), %error, "part of an ignore file was skipped");
            }
            if let Ok(matcher) = builder.build() {
                levels.push(Arc::new(matcher));
            }
        }
        let mut above: Vec<&Path> = root
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(top))
            .collect();
        above.reverse();
        levels.extend(above.into_iter().filter_map(|dir| self.level(dir)));
        levels
    }
}

/// The matcher of the ignore files of `directory` that `stamps` say exist, if any.
fn parse_level(
    directory: &Path,
    stamps: &[Option<Stamp>; IGNORE_FILES.len()],
    ignore_case: bool,
) -> Option<Gitignore> {
    let mut builder = ignore_builder(directory, ignore_case);
    let mut any = false;
    for (name, stamp) in IGNORE_FILES.iter().zip(stamps) {
        if stamp.is_none() {
            continue;
        }
        any = true;
        let file = directory.join(name);
        if let Some(error) = builder.add(&file) {
            tracing::debug!(file = %file.display(), %error, "part of an ignore file was skipped");
        }
    }
    if !any {
        return None;
    }
    builder
        .build()
        .inspect_err(|error| {
            tracing::warn!(directory = %directory.display(), %error, "ignore files not usable");
        })
        .ok()
}

/// Whether the matchers `levels` (shallowest first, all of ancestors of `path`) ignore `path`.
pub(crate) fn is_ignored<'a>(
    levels: impl DoubleEndedIterator<Item = &'a Level>,
    path: &Path,
    is_dir: bool,
) -> bool {
    for level in levels.rev() {
        let matched = level.matched(path, is_dir);
        if matched.is_ignore() {
            return true;
        }
        if matched.is_whitelist() {
            return false;
        }
    }
    false
}

/// Checks a path below a root from scratch, component by component, as a read must: whether
/// `relative` (below `root`, whose matchers above it are `base`) is excluded. `last_is_dir` says
/// whether the last component is a directory. On success, returns the ignore matchers of the
/// root and of every directory down to the parent of the last component, shallowest first, for
/// a walk that continues from there.
pub(crate) fn check_relative(
    rules: &Rules,
    root: &Path,
    base: &[Level],
    relative: &Path,
    last_is_dir: bool,
) -> Option<Vec<Level>> {
    if rules.any_component_is_special(relative) {
        return None;
    }
    if !rules.respect_ignore_files && base.is_empty() {
        // No matcher anywhere: nothing is ignored, and no level is needed.
        return Some(Vec::new());
    }
    let mut levels: Vec<Level> = Vec::new();
    let mut directory = root.to_path_buf();
    levels.extend(rules.level(&directory));
    let components: Vec<Component<'_>> = relative.components().collect();
    for (index, component) in components.iter().enumerate() {
        let path = directory.join(component);
        let is_dir = index + 1 < components.len() || last_is_dir;
        if is_ignored(base.iter().chain(levels.iter()), &path, is_dir) {
            return None;
        }
        if index + 1 < components.len() {
            levels.extend(rules.level(&path));
        }
        directory = path;
    }
    Some(levels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        let patterns: Vec<String> = DEFAULT_SECRET_PATTERNS
            .iter()
            .map(|p| p.to_string())
            .collect();
        let exceptions: Vec<String> = DEFAULT_SECRET_EXCEPTIONS
            .iter()
            .map(|p| p.to_string())
            .collect();
        Rules {
            secrets: SecretMatcher::new(&patterns, &exceptions).unwrap(),
            respect_ignore_files: true,
            ignore_case: false,
            ignore_cache: IgnoreCache::default(),
        }
    }

    fn check(relative: &str, expect_special: bool) {
        assert_eq!(
            rules().any_component_is_special(Path::new(relative)),
            expect_special,
            "{relative}"
        );
    }

    #[test]
    fn patterns_with_a_slash_match_the_relative_path() {
        let rules = Rules {
            secrets: SecretMatcher::new(
                &["config/*.json".to_owned()],
                &["config/public.json".to_owned()],
            )
            .unwrap(),
            respect_ignore_files: false,
            ignore_case: false,
            ignore_cache: IgnoreCache::default(),
        };
        for (relative, special) in [
            ("config/db.json", true),
            ("config/public.json", false),
            ("other/db.json", false),
            ("db.json", false),
            ("config/deeper/db.json", false),
        ] {
            assert_eq!(
                rules.any_component_is_special(Path::new(relative)),
                special,
                "{relative}"
            );
        }
    }

    #[test]
    fn secret_and_git_paths() {
        for (relative, special) in [
            (".env", true),
            (".env.local", true),
            ("config/.ENV", true),
            ("server.pem", true),
            ("a/b/tls.key", true),
            ("id_rsa", true),
            ("id_ed25519", true),
            ("id_ed25519.pub", false),
            (".ssh/id_rsa.pub", false),
            ("credentials.json", true),
            (".netrc", true),
            ("vault.kdbx", true),
            (".git/config", true),
            ("sub/.git", true),
            (".github/workflows/x.yml", false),
            (".editorconfig", false),
            ("src/environment.rs", false),
            ("keys/readme.md", false),
        ] {
            check(relative, special);
        }
    }

    fn ignores(level: Option<&Level>, name: &str) -> bool {
        level.is_some_and(|level| level.matched(Path::new(name), false).is_ignore())
    }

    #[test]
    fn ignore_levels_are_reused_until_their_files_change() {
        let dir = tempfile::tempdir().unwrap();
        let mut rules = rules();
        rules.ignore_cache.racy_window = std::time::Duration::ZERO;
        let gitignore = dir.path().join(".gitignore");
        assert!(rules.level(dir.path()).is_none());
        std::fs::write(&gitignore, "*.log\n").unwrap();
        let first = rules.level(dir.path()).expect("a matcher");
        let again = rules.level(dir.path()).expect("a matcher");
        assert!(Arc::ptr_eq(&first, &again), "parsed once");
        assert!(ignores(Some(&first), "a.log"));
        std::fs::write(&gitignore, "*.txt\n*.md\n").unwrap();
        let changed = rules.level(dir.path()).expect("a matcher");
        assert!(!Arc::ptr_eq(&first, &changed), "parsed again");
        assert!(ignores(Some(&changed), "a.md") && !ignores(Some(&changed), "a.log"));
        std::fs::write(dir.path().join(".ignore"), "*.log\n").unwrap();
        assert!(ignores(rules.level(dir.path()).as_ref(), "a.log"));
        std::fs::remove_file(&gitignore).unwrap();
        std::fs::remove_file(dir.path().join(".ignore")).unwrap();
        assert!(rules.level(dir.path()).is_none());
    }

    #[test]
    fn ignore_patterns_match_any_case_where_names_do() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "secret.txt\nBuild/\n").unwrap();
        let sensitive = rules();
        let level = sensitive.level(dir.path());
        assert!(ignores(level.as_ref(), "secret.txt"));
        assert!(!ignores(level.as_ref(), "SECRET.TXT"));
        let insensitive = Rules {
            ignore_case: true,
            ..rules()
        };
        let level = insensitive.level(dir.path());
        assert!(ignores(level.as_ref(), "SECRET.TXT") && ignores(level.as_ref(), "secret.txt"));
        let build = level.expect("a matcher");
        assert!(build.matched(Path::new("build"), true).is_ignore());
        // The whole check a read makes, on a request spelt in another case.
        let base = insensitive.base_levels(dir.path());
        assert!(
            check_relative(
                &insensitive,
                dir.path(),
                &base,
                Path::new("Secret.Txt"),
                false
            )
            .is_none()
        );
        assert!(
            check_relative(
                &sensitive,
                dir.path(),
                &base,
                Path::new("Secret.Txt"),
                false
            )
            .is_some()
        );
    }

    #[test]
    fn an_edit_within_the_racy_window_is_seen_even_at_the_same_size() {
        let dir = tempfile::tempdir().unwrap();
        let rules = rules();
        let gitignore = dir.path().join(".gitignore");
        std::fs::write(&gitignore, "*.log\n").unwrap();
        assert!(ignores(rules.level(dir.path()).as_ref(), "a.log"));
        // Same length: where file times are coarse (one clock tick), only the racy rule
        // tells this edit from the first version.
        std::fs::write(&gitignore, "*.txt\n").unwrap();
        let level = rules.level(dir.path());
        assert!(ignores(level.as_ref(), "a.txt") && !ignores(level.as_ref(), "a.log"));
    }
}
