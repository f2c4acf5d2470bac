//! What the filesystem provider never exposes: `.git/`, secret-looking files, and files ignored
//! by `.gitignore`, `.ignore` and the repository's `.git/info/exclude`.
//!
//! **Layer:** provider (`mcp-resources-fs`). These are pure decisions over paths plus the reading
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
//! ignore files' metadata (size, modification and change times, inode) and reads them again
//! only when one of them changed, appeared or disappeared, or changed less than [`RACY_WINDOW`]
//! ago (two edits within one tick of the file system's clock can leave the same metadata: git's
//! "racy" entries). A file read again is parsed again only when its bytes changed, so touching
//! an ignore file costs a read, not a parse. Parsing happens outside the cache's lock, and on
//! the runtime's thread only for ignore files of at most 16 KiB; a read that needs a larger one
//! parsed goes to the blocking pool ([`NotNow`]).
//!
//! Ignore files are read without following a symlink and without waiting on a FIFO or device
//! in their place (such a file counts as missing, as git does not follow a symlinked
//! `.gitignore`), and at most [`MAX_IGNORE_FILE_BYTES`] (1 MiB) and [`MAX_IGNORE_PATTERNS`]
//! (10,000 patterns) of them: a larger one hides its whole directory, with a warning in the
//! log, rather than expose what it may have hidden.
//!
//! # Secret patterns
//!
//! The core's [`SecretNames`], checked on every component of a path relative to its root, as
//! on every path of every other provider.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use mcp_resources_core::secret::SecretNames;

use super::beneath::{self, FileStat, SmallFileError};

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

/// What an ignore file looked like when it was read: a change to any of these means the file
/// must be looked at again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Inode and change time, where the platform has them: a file replaced by a rename, or
    /// rewritten within the modification time's granularity, differs.
    identity: (u64, i64, i64),
    /// Changed within [`RACY_WINDOW`] of when the stamp was taken (or at an unknown time).
    racy: bool,
}

impl Stamp {
    /// The stamp of the file `stat` describes; racy if it changed within `window` of now.
    pub(crate) fn from_stat(stat: &FileStat, window: std::time::Duration) -> Stamp {
        let (_, change_seconds, _) = stat.identity;
        let changed = u64::try_from(change_seconds)
            .ok()
            .map(|seconds| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
            .max(stat.modified);
        let racy = changed.is_none_or(|changed| {
            SystemTime::now()
                .duration_since(changed)
                .map_or(true, |age| age < window)
        });
        Stamp {
            len: stat.len,
            modified: stat.modified,
            identity: stat.identity,
            racy,
        }
    }

    /// Whether the file changed too recently for the stamp to tell a later change.
    pub(crate) fn is_racy(&self) -> bool {
        self.racy
    }
}

/// One directory's parsed matcher and what the files it was parsed from looked like.
#[derive(Debug)]
struct CachedLevel {
    stamps: [Option<Stamp>; IGNORE_FILES.len()],
    /// A hash of the files' bytes: a file touched but not changed (its stamp racy or new) is
    /// not parsed again.
    content: u64,
    level: Option<Level>,
}

/// The largest ignore file read, in bytes. A larger one hides its whole directory (see
/// [Ignore files](self#ignore-files)).
pub(crate) const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// The most patterns one ignore file may hold; one with more hides its whole directory, as a
/// file over [`MAX_IGNORE_FILE_BYTES`] does. Every check of a path below it matches them all:
/// 10,000 globs with `**` take about a quarter of a millisecond per check (40,000 nearly a
/// millisecond, and a second to compile), where usual ignore files hold a few hundred.
pub(crate) const MAX_IGNORE_PATTERNS: usize = 10_000;

/// Ignore files of at most this many bytes are read and parsed on the runtime's thread when a
/// read there needs them: a few hundred patterns at most, which cost about what a small read
/// costs. Larger ones only where blocking is allowed ([`NotNow`]).
const INLINE_IGNORE_FILE_BYTES: u64 = 16 * 1024;

/// A directory's ignore files changed since they were last parsed and are larger than
/// [`INLINE_IGNORE_FILE_BYTES`], and the caller may not parse them now (it runs on the
/// runtime's thread): do the check again where blocking is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotNow;
/// Parsed ignore matchers by directory, re-parsed when their files change.
#[derive(Debug)]
pub(crate) struct IgnoreCache {
    levels: Mutex<HashMap<PathBuf, CachedLevel>>,
    /// Held while ignore files over [`INLINE_IGNORE_FILE_BYTES`] are read and parsed: many
    /// reads that need them at once take one core between them, not one each, and the ones
    /// that waited find the parse done.
    parsing: Mutex<()>,
    /// [`RACY_WINDOW`], shorter in tests.
    racy_window: std::time::Duration,
}

impl Default for IgnoreCache {
    fn default() -> IgnoreCache {
        IgnoreCache {
            levels: Mutex::default(),
            parsing: Mutex::default(),
            racy_window: RACY_WINDOW,
        }
    }
}

/// The exclusion rules of one provider.
#[derive(Debug)]
pub(crate) struct Rules {
    pub(crate) secrets: SecretNames,
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
        name.eq_ignore_ascii_case(".git")
            || self.secrets.component_is_secret(&name, || {
                relative
                    .parent()
                    .map(super::uri::slash_path)
                    .unwrap_or_default()
            })
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
    /// ignore files are respected: read and parsed again only if those files changed since
    /// last time. Blocking: it may parse.
    pub(crate) fn level(&self, directory: &Path) -> Option<Level> {
        match self.level_if(directory, true) {
            Ok(level) => level,
            Err(NotNow) => unreachable!("a check that may parse always answers"),
        }
    }

    /// As [`Rules::level`]; when `may_parse` is false, ignore files over
    /// [`INLINE_IGNORE_FILE_BYTES`] that must be read again (changed, new, or changed too
    /// recently to trust their stamps) are [`NotNow`] instead.
    pub(crate) fn level_if(
        &self,
        directory: &Path,
        may_parse: bool,
    ) -> Result<Option<Level>, NotNow> {
        if !self.respect_ignore_files {
            return Ok(None);
        }
        let window = self.ignore_cache.racy_window;
        let stamps = IGNORE_FILES.map(|name| {
            beneath::lstat(&directory.join(name))
                .ok()
                .map(|stat| Stamp::from_stat(&stat, window))
        });
        let racy = stamps.iter().flatten().any(Stamp::is_racy);
        let cached = || {
            let cache = self.lock_cache();
            match cache.get(directory) {
                Some(cached) if cached.stamps == stamps && !racy => Err(cached.level.clone()),
                Some(cached) => Ok(Some((cached.content, cached.level.clone()))),
                None => Ok(None),
            }
        };
        let mut cached_content = match cached() {
            Err(current) => return Ok(current),
            Ok(cached) => cached,
        };
        let small = stamps
            .iter()
            .flatten()
            .all(|stamp| stamp.len <= INLINE_IGNORE_FILE_BYTES);
        if !may_parse && !small {
            return Err(NotNow);
        }
        let _parsing = if small {
            None
        } else {
            let gate = self
                .ignore_cache
                .parsing
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            // Another read may have parsed these very files while this one waited.
            cached_content = match cached() {
                Err(current) => return Ok(current),
                Ok(cached) => cached,
            };
            Some(gate)
        };
        // Read and parsed without the cache's lock: a large file delays only the checks below
        // it.
        let (content, sources) = read_ignore_files(directory);
        let level = match cached_content {
            Some((cached, level)) if cached == content => level,
            _ => parse_level(directory, &sources, self.ignore_case).map(Arc::new),
        };
        let mut cache = self.lock_cache();
        if cache.len() >= IGNORE_CACHE_DIRECTORIES {
            cache.clear();
        }
        cache.insert(
            directory.to_path_buf(),
            CachedLevel {
                stamps,
                content,
                level: level.clone(),
            },
        );
        Ok(level)
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, CachedLevel>> {
        self.ignore_cache
            .levels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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
        let source = read_ignore_file(&exclude);
        if !matches!(source, Source::Missing) {
            levels.extend(parse_level(top, &[(exclude, source)], self.ignore_case).map(Arc::new));
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

/// What became of reading one ignore file.
#[derive(Debug)]
enum Source {
    Missing,
    /// Its text (bytes that are not UTF-8 replaced).
    Text(String),
    /// Over [`MAX_IGNORE_FILE_BYTES`] or [`MAX_IGNORE_PATTERNS`], or unreadable for a reason
    /// other than not being a regular file: its directory is hidden whole.
    HideAll,
}

/// Reads one ignore file, bounded and without following or waiting on anything; a symlink,
/// FIFO or device in its place counts as missing (as git does not follow a symlinked
/// `.gitignore`), logged; a file that cannot be read hides its directory.
fn read_ignore_file(path: &Path) -> Source {
    match beneath::read_small_file(path, MAX_IGNORE_FILE_BYTES) {
        Ok(None) => Source::Missing,
        Ok(Some((bytes, _))) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let patterns = text
                .lines()
                .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
                .count();
            if patterns > MAX_IGNORE_PATTERNS {
                tracing::warn!(
                    file = %path.display(),
                    patterns,
                    limit = MAX_IGNORE_PATTERNS,
                    "ignore file holds too many patterns: everything in its directory is hidden"
                );
                return Source::HideAll;
            }
            Source::Text(text)
        }
        Err(SmallFileError::TooLarge { len, limit }) => {
            tracing::warn!(
                file = %path.display(),
                len,
                limit,
                "ignore file too large to read: everything in its directory is hidden"
            );
            Source::HideAll
        }
        Err(SmallFileError::NotRegular) => {
            tracing::warn!(file = %path.display(), "ignore file skipped: not a regular file");
            Source::Missing
        }
        // Out of descriptors, no permission, an I/O error: what the file hides stays hidden.
        Err(SmallFileError::Io(error)) => {
            tracing::warn!(
                file = %path.display(),
                %error,
                "ignore file unreadable: everything in its directory is hidden"
            );
            Source::HideAll
        }
    }
}

/// Reads the ignore files of `directory`: a hash of their contents, and each as a source.
fn read_ignore_files(directory: &Path) -> (u64, Vec<(PathBuf, Source)>) {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let sources: Vec<(PathBuf, Source)> = IGNORE_FILES
        .iter()
        .map(|name| {
            let path = directory.join(name);
            let source = read_ignore_file(&path);
            match &source {
                Source::Missing => 0_u8.hash(&mut hasher),
                Source::Text(text) => (1_u8, text).hash(&mut hasher),
                Source::HideAll => 2_u8.hash(&mut hasher),
            }
            (path, source)
        })
        .collect();
    (hasher.finish(), sources)
}

/// The matcher of the ignore files `sources` (in increasing precedence) of `directory`, if
/// any of them exists.
fn parse_level(
    directory: &Path,
    sources: &[(PathBuf, Source)],
    ignore_case: bool,
) -> Option<Gitignore> {
    let mut builder = ignore_builder(directory, ignore_case);
    let mut any = false;
    for (path, source) in sources {
        let text = match source {
            Source::Missing => continue,
            Source::Text(text) => text.as_str(),
            // Everything below the directory, whatever the other file says.
            Source::HideAll => "*",
        };
        any = true;
        for line in text.lines() {
            if let Err(error) = builder.add_line(Some(path.clone()), line) {
                tracing::debug!(file = %path.display(), %error, "a line of an ignore file was skipped");
            }
        }
        if matches!(source, Source::HideAll) {
            break;
        }
    }
    if !any {
        return None;
    }
    match builder.build() {
        Ok(matcher) => Some(matcher),
        // Patterns too costly to compile (past globset's size limit) hide their directory, as
        // an oversized file does: dropping them would expose what they hide.
        Err(error) => {
            tracing::warn!(
                directory = %directory.display(),
                %error,
                "ignore files not usable: everything in their directory is hidden"
            );
            hide_everything(directory, ignore_case)
        }
    }
}

/// A matcher of `directory` that ignores everything below it.
fn hide_everything(directory: &Path, ignore_case: bool) -> Option<Gitignore> {
    let mut builder = ignore_builder(directory, ignore_case);
    builder.add_line(None, "*").ok()?;
    builder.build().ok()
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
/// a walk that continues from there. Blocking: it may parse ignore files.
pub(crate) fn check_relative(
    rules: &Rules,
    root: &Path,
    base: &[Level],
    relative: &Path,
    last_is_dir: bool,
) -> Option<Vec<Level>> {
    match check_relative_if(rules, root, base, relative, last_is_dir, true) {
        Ok(levels) => levels,
        Err(NotNow) => unreachable!("a check that may parse always answers"),
    }
}

/// As [`check_relative`]; without `may_parse`, [`NotNow`] when an ignore file on the way must
/// be read again first (see [`Rules::level_if`]).
pub(crate) fn check_relative_if(
    rules: &Rules,
    root: &Path,
    base: &[Level],
    relative: &Path,
    last_is_dir: bool,
    may_parse: bool,
) -> Result<Option<Vec<Level>>, NotNow> {
    if rules.any_component_is_special(relative) {
        return Ok(None);
    }
    if !rules.respect_ignore_files && base.is_empty() {
        // No matcher anywhere: nothing is ignored, and no level is needed.
        return Ok(Some(Vec::new()));
    }
    let mut levels: Vec<Level> = Vec::new();
    let mut directory = root.to_path_buf();
    levels.extend(rules.level_if(&directory, may_parse)?);
    let components: Vec<Component<'_>> = relative.components().collect();
    for (index, component) in components.iter().enumerate() {
        let path = directory.join(component);
        let is_dir = index + 1 < components.len() || last_is_dir;
        if is_ignored(base.iter().chain(levels.iter()), &path, is_dir) {
            return Ok(None);
        }
        if index + 1 < components.len() {
            levels.extend(rules.level_if(&path, may_parse)?);
        }
        directory = path;
    }
    Ok(Some(levels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_resources_core::secret::{DEFAULT_SECRET_EXCEPTIONS, DEFAULT_SECRET_PATTERNS};

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
            secrets: SecretNames::new(&patterns, &exceptions).unwrap(),
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
            secrets: SecretNames::new(
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
    fn ignore_files_are_bounded_and_never_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut rules = rules();
        rules.ignore_cache.racy_window = std::time::Duration::ZERO;
        // Over the limit: the directory is hidden whole, whatever the patterns say.
        let mut large = "!*\n".repeat(10);
        large.push_str(&"# padding\n".repeat((MAX_IGNORE_FILE_BYTES / 10) as usize + 1));
        std::fs::write(dir.path().join(".gitignore"), &large).unwrap();
        let level = rules.level(dir.path()).expect("a matcher");
        assert!(ignores(Some(&level), "anything.txt"));
        // So does one with too many patterns, small as it is.
        std::fs::write(
            dir.path().join(".gitignore"),
            "a\n".repeat(MAX_IGNORE_PATTERNS + 1),
        )
        .unwrap();
        let level = rules.level(dir.path()).expect("a matcher");
        assert!(ignores(Some(&level), "anything.txt"));
        std::fs::write(
            dir.path().join(".gitignore"),
            "a\n".repeat(MAX_IGNORE_PATTERNS),
        )
        .unwrap();
        let level = rules.level(dir.path()).expect("a matcher");
        assert!(ignores(Some(&level), "a") && !ignores(Some(&level), "anything.txt"));
        // A FIFO in place of an ignore file is skipped, not opened for good.
        std::fs::remove_file(dir.path().join(".gitignore")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join(".gitignore"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .unwrap();
        std::fs::write(dir.path().join(".ignore"), "*.log\n").unwrap();
        let level = rules.level(dir.path()).expect("the .ignore still counts");
        assert!(ignores(Some(&level), "a.log") && !ignores(Some(&level), "a.txt"));
    }

    #[test]
    fn an_ignore_file_touched_but_unchanged_is_not_parsed_again() {
        let dir = tempfile::tempdir().unwrap();
        let rules = rules();
        let gitignore = dir.path().join(".gitignore");
        std::fs::write(&gitignore, "*.log\n").unwrap();
        let first = rules.level(dir.path()).expect("a matcher");
        // Rewritten with the same bytes: a new stamp (and racy), the same contents.
        std::fs::write(&gitignore, "*.log\n").unwrap();
        let again = rules.level(dir.path()).expect("a matcher");
        assert!(Arc::ptr_eq(&first, &again), "not parsed again");
        // Large files wait for a thread that may block; small ones do not.
        assert!(rules.level_if(dir.path(), false).is_ok());
        std::fs::write(&gitignore, "*.tmp\n".repeat(4096)).unwrap();
        assert!(matches!(rules.level_if(dir.path(), false), Err(NotNow)));
        assert!(ignores(rules.level(dir.path()).as_ref(), "a.tmp"));
    }

    #[test]
    fn backup_copies_of_secrets_are_secrets() {
        for (relative, special) in [
            (".envrc", true),
            (".env~", true),
            (".env_local", true),
            (".env-production", true),
            ("#.env#", true),
            (".#.env", true),
            ("server.pem.bak", true),
            ("key.pem~", true),
            (".id_rsa.swp", true),
            ("id_rsa.orig", true),
            (".git-credentials", true),
            (".pgpass", true),
            (".docker/config.json", true),
            ("home/.docker/config.json", true),
            (".kube/config", true),
            (".vault-token", true),
            ("_netrc", true),
            ("putty.ppk", true),
            ("keystore.jks", true),
            (".my.cnf", true),
            (".s3cfg", true),
            (".boto", true),
            ("terraform.tfstate", true),
            ("terraform.tfstate.backup", true),
            ("service-account.json", true),
            ("private.asc", true),
            (".yarnrc.yml", true),
            (".bash_history", true),
            // Near misses stay served.
            ("docker/config.json", false),
            ("config.json", false),
            ("README.md~", false),
            ("notes.bak", false),
            ("environment.md", false),
            ("id_ed25519.pub.bak", false),
            ("#notes#", false),
            ("~", false),
        ] {
            check(relative, special);
        }
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
