//! Repositories made for the tests with the `git` command line, with the user's and the
//! system's configuration left out and fixed dates, so that every run makes the same commits.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use mcp_resources_core::engine::Engine;
use mcp_resources_core::error::ReadError;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::{Body, Resource};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_git::{GitConfig, GitProvider, RepoConfig};
use tempfile::TempDir;

/// Runs `git args` in `dir`; its standard output. Panics, with its error output, on failure.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    git_at(dir, args, 1_700_000_000)
}

/// [`git`] with author and committer dates `seconds` after the epoch.
pub(crate) fn git_at(dir: &Path, args: &[&str], seconds: u64) -> String {
    let date = format!("@{seconds} +0000");
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .output()
        .expect("git runs (install it: apt-get install git)");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .trim_end()
        .to_owned()
}

/// Writes `contents` to `relative` below `dir`, making directories.
pub(crate) fn write(dir: &Path, relative: &str, contents: impl AsRef<[u8]>) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// A repository with a history worth serving, and the ids of its commits.
pub(crate) struct Work {
    pub(crate) dir: TempDir,
    /// `first`: the root commit; `second`: v1.0 (annotated); `fourth`: the lightweight tag `light`; `merge`: main's tip (HEAD).
    pub(crate) first: String,
    pub(crate) second: String,
    pub(crate) fourth: String,
    pub(crate) merge: String,
}

impl Work {
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.path().join("work")
    }
}

/// The root commit holds a README, a source file, a guide, a committed `.env` and a private
/// key (secrets, in history), a binary file, a file whose name is not UTF-8, a symlink and a
/// submodule; then a rename and edits, a branch `feature/x` merged back with `--no-ff`, an
/// annotated tag `v1.0` and a lightweight `light`; refs packed and objects in a pack.
pub(crate) fn work() -> Work {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("work");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    write(&repo, "README.md", "hello\n");
    write(&repo, "src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    write(
        &repo,
        "docs/guide.md",
        "# Guide\n\nStep one.\nStep two.\nStep three.\n",
    );
    write(&repo, ".env", "API_KEY=hunter2-in-history\n");
    write(&repo, "config/id_rsa", "-----BEGIN PRIVATE KEY-----\nxyz\n");
    write(&repo, "logo.png", [0x89, b'P', b'N', b'G', 0, 1, 2, 3]);
    {
        use std::os::unix::ffi::OsStrExt;
        std::fs::write(
            repo.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")),
            "latin-1 name\n",
        )
        .unwrap();
    }
    std::os::unix::fs::symlink("README.md", repo.join("link")).unwrap();
    git(&repo, &["add", "-A"]);
    // A submodule entry, without a submodule behind it.
    git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            "160000,1111111111111111111111111111111111111111,vendor/sub",
        ],
    );
    git_at(
        &repo,
        &["commit", "-q", "-m", "first: the tree"],
        1_700_000_000,
    );
    let first = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["mv", "docs/guide.md", "docs/manual.md"]);
    write(
        &repo,
        "src/lib.rs",
        "pub fn one() -> u32 {\n    1\n}\n\npub fn two() -> u32 {\n    2\n}\n",
    );
    write(&repo, ".env", "API_KEY=hunter2-rotated\n");
    git(&repo, &["add", "-A"]);
    git_at(
        &repo,
        &[
            "commit",
            "-q",
            "-m",
            "second: rename the guide\n\nAnd add two.",
        ],
        1_700_000_100,
    );
    let second = git(&repo, &["rev-parse", "HEAD"]);
    git_at(
        &repo,
        &["tag", "-a", "v1.0", "-m", "version 1.0"],
        1_700_000_150,
    );
    git(&repo, &["checkout", "-q", "-b", "feature/x"]);
    write(&repo, "feature.txt", "a feature\n");
    git(&repo, &["add", "-A"]);
    git_at(
        &repo,
        &["commit", "-q", "-m", "feature: add it"],
        1_700_000_200,
    );
    git(&repo, &["checkout", "-q", "main"]);
    write(&repo, "README.md", "hello\nworld\n");
    git(&repo, &["add", "-A"]);
    git_at(
        &repo,
        &["commit", "-q", "-m", "fourth: greet the world"],
        1_700_000_300,
    );
    let fourth = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["tag", "light"]);
    git_at(
        &repo,
        &[
            "merge",
            "-q",
            "--no-ff",
            "feature/x",
            "-m",
            "merge feature/x",
        ],
        1_700_000_400,
    );
    let merge = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["gc", "-q"]);
    Work {
        dir,
        first,
        second,
        fourth,
        merge,
    }
}

/// The provider serving `repos` (name, path), not watching.
pub(crate) fn provider(repos: &[(&str, &Path)]) -> GitProvider {
    let mut config = GitConfig::new(
        repos
            .iter()
            .map(|(name, path)| RepoConfig::new(*name, *path)),
    );
    config.watch = false;
    GitProvider::new(config).unwrap()
}

/// An engine over `provider` with pages of `page_size`.
pub(crate) fn engine(provider: &GitProvider, page_size: usize) -> Engine {
    Engine::builder(CursorKey::new([3; 32]))
        .limits(mcp_resources_core::engine::Limits {
            page_size: page_size.try_into().unwrap(),
            ..Default::default()
        })
        .provider(Arc::new(provider.clone()))
        .build()
        .unwrap()
}

pub(crate) fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap()
}

/// The text read at `uri`, or the error.
pub(crate) async fn read(engine: &Engine, text: &str) -> Result<String, ReadError> {
    let read = engine.read(&Principal::anonymous(), &uri(text)).await?;
    Ok(match &read.contents[0].body {
        Body::Text(text) => text.to_string(),
        Body::Bytes(bytes) => format!("<{} bytes>", bytes.len()),
    })
}

/// The JSON read at `uri`.
pub(crate) async fn read_json(engine: &Engine, text: &str) -> serde_json::Value {
    let body = read(engine, text)
        .await
        .unwrap_or_else(|error| panic!("{text}: {error}"));
    serde_json::from_str(&body).unwrap()
}

/// Every item of the resource list, page by page.
pub(crate) async fn list(engine: &Engine) -> Vec<Resource> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = engine
            .list_resources(&Principal::anonymous(), cursor.as_deref())
            .await
            .unwrap();
        all.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return all,
        }
    }
}

/// Every child of `directory`, page by page.
pub(crate) async fn children(engine: &Engine, directory: &str) -> Vec<Resource> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = engine
            .list_directory(&Principal::anonymous(), &uri(directory), cursor.as_deref())
            .await
            .unwrap_or_else(|error| panic!("{directory}: {error}"));
        all.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return all,
        }
    }
}
