//! Secret-looking names: the file names no provider ever exposes, whatever the grants say
//! (`.env`, private keys, credential stores, shell histories), and the matcher every provider
//! that serves named files (the filesystem, git trees at any revision) checks each path with.
//!
//! **Layer:** core. Pure decisions over slash-separated relative paths; this module never
//! reads a file, never walks a tree and never knows a URI scheme.
//!
//! Patterns are globs (case-insensitive) matched against the name of every component of a
//! path, so a directory named `.env` hides everything below it too; a pattern holding a `/` is
//! matched against the relative path instead. An exception (by default `id_*.pub`, public keys)
//! overrides a match. Each name is also matched as the editor or backup copy of another
//! ([`backup_stems`]: `key.pem~`, `.env.bak`, `#.env#`, `.id_rsa.swp`, ...). Names are a
//! heuristic: they catch the usual places of credentials, not a secret in an ordinary file.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The default secret-looking file names, never exposed. Names are a heuristic: a secret in a
/// file called `notes.txt` is served like any text. Each pattern also hides the editor and
/// backup copies of what it matches (`key.pem~`, `.env.bak`, `#.env#`, `.id_rsa.swp`, ...).
pub const DEFAULT_SECRET_PATTERNS: &[&str] = &[
    // Environment files: `.env`, `.env.local`, `.envrc`, `.env-production`, ...
    ".env*",
    // Keys and certificates with their private halves.
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.ppk",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.keytab",
    "*.asc",
    "*.gpg",
    ".gnupg",
    // Credential stores of common tools.
    "credentials*",
    "*credentials*.json",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".vault-token",
    ".htpasswd",
    ".dockercfg",
    "**/.docker/config.json",
    "**/.kube/config",
    "kubeconfig",
    "service-account*.json",
    "*.tfstate",
    "*.tfstate.*",
    ".terraformrc",
    "terraform.rc",
    "*.kdbx",
    ".password-store",
    // Shell and database histories, where typed passwords end up.
    "*_history",
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
pub struct SecretNames {
    names: GlobSet,
    paths: GlobSet,
    exception_names: GlobSet,
    exception_paths: GlobSet,
}

impl SecretNames {
    /// The matcher of `patterns` less `exceptions`.
    pub fn new(patterns: &[String], exceptions: &[String]) -> Result<SecretNames, PatternError> {
        let (names, paths) = compile(patterns)?;
        let (exception_names, exception_paths) = compile(exceptions)?;
        Ok(SecretNames {
            names,
            paths,
            exception_names,
            exception_paths,
        })
    }

    /// The matcher of the default patterns and exceptions.
    pub fn defaults() -> SecretNames {
        let owned =
            |patterns: &[&str]| patterns.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>();
        SecretNames::new(
            &owned(DEFAULT_SECRET_PATTERNS),
            &owned(DEFAULT_SECRET_EXCEPTIONS),
        )
        .expect("invariant: the default patterns are valid globs")
    }

    /// Whether one component `name`, below the slash-separated relative path `parent`
    /// (`""` at the top; built only when a pattern holding a `/` needs it), looks secret,
    /// itself or as the backup copy of a secret-looking name.
    pub fn component_is_secret(&self, name: &str, parent: impl FnOnce() -> String) -> bool {
        let mut parent = Some(parent);
        let mut parent_text: Option<String> = None;
        let mut slashed = |stem: &str| {
            let parent =
                parent_text.get_or_insert_with(|| parent.take().map_or_else(String::new, |f| f()));
            if parent.is_empty() {
                stem.to_owned()
            } else {
                format!("{parent}/{stem}")
            }
        };
        let mut matches = |names: &GlobSet, paths: &GlobSet| {
            backup_stems(name).any(|stem| {
                names.is_match(stem) || (!paths.is_empty() && paths.is_match(slashed(stem)))
            })
        };
        matches(&self.names, &self.paths) && !matches(&self.exception_names, &self.exception_paths)
    }

    /// Whether any component of the slash-separated relative path `relative` looks secret.
    pub fn path_is_secret(&self, relative: &str) -> bool {
        let mut end: usize = 0;
        relative.split('/').any(|name| {
            let parent_end = end.saturating_sub(1);
            end += name.len() + 1;
            self.component_is_secret(name, || relative[..parent_end].to_owned())
        })
    }
}

/// The suffixes editors and tools give a copy of a file: `key.pem~`, `.env.bak`,
/// `id_rsa.orig`, a Vim swap file `.id_rsa.swp`, an Emacs autosave `#.env#` or lock `.#.env`;
/// matched in any case, as the secret patterns are (`server.pem.BAK`).
const BACKUP_SUFFIXES: [&str; 8] = [
    "~", ".bak", ".orig", ".old", ".save", ".swp", ".swo", ".tmp",
];

/// `text` without `suffix` (an ASCII suffix, compared in any case), unless nothing is left.
fn strip_suffix_ignoring_case<'t>(text: &'t str, suffix: &str) -> Option<&'t str> {
    let start = text
        .len()
        .checked_sub(suffix.len())
        .filter(|start| *start > 0)?;
    let tail = text.get(start..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &text[..start])
}

/// `name` and the names it is a backup copy of, outermost first: `#.env.bak#` gives
/// `#.env.bak#`, `.env.bak` and `.env`. Bounded by the name's length.
pub fn backup_stems(name: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(name), |current: &&str| {
        let current = *current;
        if let Some(inner) = current
            .strip_prefix('#')
            .and_then(|rest| rest.strip_suffix('#'))
        {
            return Some(inner).filter(|inner| !inner.is_empty());
        }
        if let Some(inner) = current.strip_prefix(".#") {
            return Some(inner).filter(|inner| !inner.is_empty());
        }
        for suffix in BACKUP_SUFFIXES {
            if let Some(inner) = strip_suffix_ignoring_case(current, suffix) {
                // A Vim swap file is the hidden name of what it holds: `.id_rsa.swp`.
                if suffix.starts_with(".sw") {
                    if let Some(hidden) = inner.strip_prefix('.').filter(|rest| !rest.is_empty()) {
                        return Some(hidden);
                    }
                }
                return Some(inner);
            }
        }
        None
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_component_of_a_path_is_checked() {
        let names = SecretNames::defaults();
        for (relative, secret) in [
            (".env", true),
            ("deploy/.env.production", true),
            ("config/.env/inner.txt", true),
            ("keys/server.pem.bak", true),
            (".ssh/id_ed25519.pub", false),
            ("src/environment.rs", false),
            ("docs/README.md", false),
        ] {
            assert_eq!(names.path_is_secret(relative), secret, "{relative}");
        }
    }

    #[test]
    fn a_pattern_with_a_slash_sees_the_parent_path() {
        let names = SecretNames::new(&["config/*.json".to_owned()], &[]).unwrap();
        assert!(names.path_is_secret("config/db.json"));
        assert!(names.path_is_secret("config/db.json/inner"));
        assert!(!names.path_is_secret("other/config/db.json"));
        assert!(!names.path_is_secret("db.json"));
        assert!(names.component_is_secret("db.json", || "config".to_owned()));
        assert!(!names.component_is_secret("db.json", String::new));
    }
}
