//! The read cache: the bodies of small files read recently, served again while the file's
//! metadata says it has not changed.
//!
//! **Layer:** provider (`mcp-resources-fs`). Bookkeeping over paths and [`Stamp`]s; it never does
//! I/O, never decides whether a path may be read (the read path checks every rule before it
//! asks), and never knows URIs, the index or the engine.
//!
//! # Why and when
//!
//! A read opens the file beneath its root and `fstat`s the handle anyway (that is how the read
//! path knows what it opened), so when that metadata matches the stamp kept with a cached body,
//! the body is served without reading the file, and shared rather than copied.
//!
//! A [`Stamp`] holds the size, the modification time, the inode and the change time (to the
//! nanosecond). Writing a file changes its times, replacing it by a rename changes its inode. Two
//! writes within one tick of the file system's clock could leave every field the same, so a file
//! changed less than [`RACY_WINDOW`] before it was read is not
//! cached (git's rule for "racy" index entries). Only whole reads are cached (the read path
//! decides).
//!
//! # Bounds
//!
//! The bodies held add up to at most the budget ([`FsConfig::read_cache_bytes`]); a body larger
//! than an eighth of it is never cached. When a new body does not fit, entries are dropped in
//! the map's arbitrary order until it does: random eviction, which costs nothing to keep up and
//! degrades gently when the files read do not fit.
//!
//! [`FsConfig::read_cache_bytes`]: super::FsConfig::read_cache_bytes

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use mcp_resources_core::resource::{Body, Contents};
use mcp_resources_core::uri::ResourceUri;

use super::beneath::FileStat;
use super::exclude::{RACY_WINDOW, Stamp};

/// One cached body and what it was read with.
#[derive(Debug)]
struct Entry {
    stamp: Stamp,
    body: Body,
    mime_type: Option<String>,
}

#[derive(Debug, Default)]
struct Entries {
    /// By canonical path, as bytes: canonical paths are equal exactly when their bytes are, and
    /// bytes hash faster than a `Path`, which hashes component by component.
    by_path: HashMap<OsString, Entry, foldhash::fast::RandomState>,
    /// The bytes of all bodies held.
    bytes: u64,
}

/// Bodies of small files by canonical path; see the [module documentation](self).
#[derive(Debug)]
pub(crate) struct ReadCache {
    entries: Mutex<Entries>,
    budget: u64,
    /// [`RACY_WINDOW`], zero in tests.
    racy_window: Duration,
}

impl ReadCache {
    /// A cache holding at most `budget` bytes of bodies (`0`: none).
    pub(crate) fn new(budget: u64) -> ReadCache {
        ReadCache {
            entries: Mutex::default(),
            budget,
            racy_window: RACY_WINDOW,
        }
    }

    /// A cache that trusts a stamp however recent its file's change: for tests, which cannot
    /// wait for their files to age.
    #[cfg(test)]
    pub(crate) fn trusting_recent_changes(budget: u64) -> ReadCache {
        ReadCache {
            racy_window: Duration::ZERO,
            ..ReadCache::new(budget)
        }
    }

    /// The stamp of a file by its metadata, as this cache compares them.
    pub(crate) fn stamp(&self, stat: &FileStat) -> Stamp {
        Stamp::from_stat(stat, self.racy_window)
    }

    /// Whether anything can be cached at all.
    pub(crate) fn is_enabled(&self) -> bool {
        self.budget > 0
    }

    /// The contents of `path` for the request `uri`, when its body is cached with `stamp`.
    pub(crate) fn get(&self, path: &Path, stamp: &Stamp, uri: &ResourceUri) -> Option<Contents> {
        let (body, mime_type) = {
            let entries = self.lock();
            let entry = entries.by_path.get(path.as_os_str())?;
            if entry.stamp != *stamp {
                return None;
            }
            (entry.body.clone(), entry.mime_type.clone())
        };
        Some(Contents {
            uri: uri.clone(),
            mime_type,
            body,
        })
    }

    /// Keeps the body of `contents`, read from `path` whose metadata before the read gave
    /// `stamp`, unless the file changed too recently or the body is too large.
    pub(crate) fn insert(&self, path: &Path, stamp: Stamp, contents: &Contents) {
        let size = contents.body.len();
        if stamp.is_racy() || size > self.budget / 8 {
            return;
        }
        let mut entries = self.lock();
        let entries = &mut *entries;
        if let Some(old) = entries.by_path.remove(path.as_os_str()) {
            entries.bytes -= old.body.len();
        }
        while entries.bytes + size > self.budget {
            let Some(victim) = entries.by_path.keys().next().cloned() else {
                break;
            };
            if let Some(old) = entries.by_path.remove(&victim) {
                entries.bytes -= old.body.len();
            }
        }
        entries.bytes += size;
        entries.by_path.insert(
            path.as_os_str().to_owned(),
            Entry {
                stamp,
                body: contents.body.clone(),
                mime_type: contents.mime_type.clone(),
            },
        );
    }

    /// How many bodies and bytes are held.
    #[cfg(test)]
    fn held(&self) -> (usize, u64) {
        let entries = self.lock();
        (entries.by_path.len(), entries.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(text: &str) -> ResourceUri {
        ResourceUri::parse(text).unwrap()
    }

    /// A stamp of a real file, racy or not as asked (the window decides).
    fn stamp(file: &Path, racy: bool) -> Stamp {
        let window = if racy {
            Duration::from_secs(1_000_000_000)
        } else {
            Duration::ZERO
        };
        Stamp::from_stat(&super::super::beneath::lstat(file).unwrap(), window)
    }

    fn contents(text: &str) -> Contents {
        Contents::text(uri("file:///x"), text).with_mime_type("text/plain")
    }

    #[test]
    fn serves_a_body_while_the_stamp_holds_and_never_a_racy_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one").unwrap();
        let cache = ReadCache::new(1024);
        let calm = stamp(&file, false);
        cache.insert(&file, calm, &contents("one"));
        let hit = cache.get(&file, &calm, &uri("file:///asked")).unwrap();
        assert_eq!(hit.uri.as_str(), "file:///asked");
        assert_eq!(hit.body, Body::Text("one".into()));
        assert_eq!(hit.mime_type.as_deref(), Some("text/plain"));

        // A longer text changes the size, and the times.
        std::fs::write(&file, "three").unwrap();
        assert!(
            cache
                .get(&file, &stamp(&file, false), &uri("file:///x"))
                .is_none()
        );

        let other = dir.path().join("b.txt");
        std::fs::write(&other, "two").unwrap();
        cache.insert(&other, stamp(&other, true), &contents("two"));
        assert!(
            cache
                .get(&other, &stamp(&other, true), &uri("file:///x"))
                .is_none()
        );
        assert!(
            cache
                .get(&other, &stamp(&other, false), &uri("file:///x"))
                .is_none()
        );
    }

    #[test]
    fn stays_within_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "x").unwrap();
        let calm = stamp(&file, false);
        let cache = ReadCache::new(800);
        let body = "y".repeat(100);
        for index in 0..20 {
            cache.insert(&dir.path().join(index.to_string()), calm, &contents(&body));
            let (count, bytes) = cache.held();
            assert!(
                bytes <= 800 && bytes == count as u64 * 100,
                "{count} {bytes}"
            );
        }
        assert_eq!(cache.held(), (8, 800));
        // Too large for an eighth of the budget: not kept, nothing dropped for it.
        cache.insert(&file, calm, &contents(&"z".repeat(101)));
        assert_eq!(cache.held(), (8, 800));
        // The same path again replaces its entry.
        let again = dir.path().join("19");
        cache.insert(&again, calm, &contents("short"));
        assert_eq!(cache.held().1, 705);
        assert!(!ReadCache::new(0).is_enabled());
    }
}
