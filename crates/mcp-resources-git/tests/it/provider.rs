//! What the provider serves from a real repository: the list and a walk of HEAD's tree, files
//! at every kind of revision, commits, log pages, diffs, completion, cache hints, and the
//! refusals (secrets at any revision, symlinks, submodules, bad revisions and paths).

use std::collections::BTreeSet;

use mcp_resources_core::error::ReadError;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::template::Variables;

use crate::fixture::{self, children, engine, git, git_at, list, provider, read, read_json, work};

#[tokio::test]
async fn the_list_is_heads_served_files_and_a_walk_finds_the_same() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 3);
    let listed: Vec<String> = list(&engine)
        .await
        .iter()
        .map(|item| item.uri.as_str().to_owned())
        .collect();
    assert_eq!(
        listed,
        [
            "git://work/refs",
            "git://work/tree/HEAD/README.md",
            "git://work/tree/HEAD/caf%E9.txt",
            "git://work/tree/HEAD/docs/manual.md",
            "git://work/tree/HEAD/feature.txt",
            "git://work/tree/HEAD/logo.png",
            "git://work/tree/HEAD/src/lib.rs",
        ],
        "no secret, symlink or submodule; URI order"
    );
    let mut walked = BTreeSet::new();
    let mut pending = vec!["git://work/tree/HEAD".to_owned()];
    while let Some(directory) = pending.pop() {
        for child in children(&engine, &directory).await {
            if child.is_directory() {
                pending.push(child.uri.as_str().to_owned());
            } else {
                walked.insert(child.uri.as_str().to_owned());
            }
        }
    }
    let files: BTreeSet<String> = listed.into_iter().skip(1).collect();
    assert_eq!(walked, files);
    let top = children(&engine, "git://work/tree/main").await;
    let sizes: Vec<(String, Option<u64>, bool)> = top
        .iter()
        .map(|child| (child.name.clone(), child.size, child.is_directory()))
        .collect();
    assert!(
        sizes.contains(&("README.md".to_owned(), Some(12), false)),
        "{sizes:?}"
    );
    assert!(
        sizes.contains(&("docs".to_owned(), None, true)),
        "{sizes:?}"
    );
    assert!(
        !sizes
            .iter()
            .any(|(name, ..)| name == ".env" || name == "link"),
        "{sizes:?}"
    );
    assert!(
        children(&engine, "git://work/tree/main/config")
            .await
            .is_empty(),
        "a directory whose only file is secret shows nothing"
    );
}

#[tokio::test]
async fn files_are_read_at_every_kind_of_revision() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    let short = &work.second[..7];
    for (rev, readme) in [
        ("HEAD", "hello\nworld\n"),
        ("main", "hello\nworld\n"),
        ("refs%2Fheads%2Fmain", "hello\nworld\n"),
        ("feature%2Fx", "hello\n"),
        ("v1.0", "hello\n"),
        ("light", "hello\nworld\n"),
        (short, "hello\n"),
        (work.first.as_str(), "hello\n"),
    ] {
        let text = read(&engine, &format!("git://work/tree/{rev}/README.md")).await;
        assert_eq!(text.as_deref().ok(), Some(readme), "{rev}: {text:?}");
    }
    // History: the guide before its rename, the feature only on its branch.
    assert!(
        read(
            &engine,
            &format!("git://work/tree/{}/docs/guide.md", work.first)
        )
        .await
        .is_ok()
    );
    assert!(
        read(&engine, "git://work/tree/main/docs/guide.md")
            .await
            .is_err()
    );
    assert_eq!(
        read(&engine, "git://work/tree/feature%2Fx/feature.txt")
            .await
            .unwrap(),
        "a feature\n"
    );
    assert_eq!(
        read(&engine, "git://work/tree/v1.0/feature.txt").await.ok(),
        None
    );
    // Ranged reads and binary files.
    assert_eq!(
        read(&engine, "git://work/tree/main/README.md?offset=6&length=3")
            .await
            .unwrap(),
        "wor"
    );
    assert_eq!(
        read(&engine, "git://work/tree/main/logo.png")
            .await
            .unwrap(),
        "<8 bytes>"
    );
    assert_eq!(
        read(&engine, "git://work/tree/main/caf%E9.txt")
            .await
            .unwrap(),
        "latin-1 name\n"
    );
}

#[tokio::test]
async fn secrets_symlinks_submodules_and_bad_names_are_not_found_at_any_revision() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    for uri in [
        format!("git://work/tree/{}/.env", work.first),
        format!("git://work/tree/{}/.env", &work.first[..8]),
        "git://work/tree/main/.env".to_owned(),
        "git://work/tree/main/config/id_rsa".to_owned(),
        "git://work/tree/main/link".to_owned(),
        "git://work/tree/main/vendor/sub".to_owned(),
        "git://work/tree/main/missing.txt".to_owned(),
        "git://work/tree/no-such-branch/README.md".to_owned(),
        "git://work/tree/HEAD~1/README.md".to_owned(),
        "git://work/tree/0000000/README.md".to_owned(),
        "git://other/tree/main/README.md".to_owned(),
        "git://work/log/main?path=.env".to_owned(),
        "git://work/commit/nope".to_owned(),
    ] {
        let error = read(&engine, &uri).await.expect_err(&uri);
        assert!(
            matches!(
                error,
                ReadError::NotFound { .. } | ReadError::Directory { .. }
            ),
            "{uri}: {error}"
        );
        assert!(!error.to_string().contains("hunter2"), "{uri}: {error}");
    }
    // A directory is a directory, not a file.
    let error = read(&engine, "git://work/tree/main/docs")
        .await
        .unwrap_err();
    assert!(matches!(error, ReadError::Directory { .. }), "{error}");
}

#[tokio::test]
async fn commits_name_their_files_and_withhold_secret_ones() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    let commit = read_json(
        &engine,
        &format!("git://work/commit/{}", &work.second[..10]),
    )
    .await;
    assert_eq!(commit["id"], work.second.as_str());
    assert_eq!(commit["parents"], serde_json::json!([work.first]));
    assert_eq!(commit["author"]["email"], "ada@example.com");
    assert_eq!(commit["author"]["date"], "2023-11-14T22:15:00+00:00");
    assert_eq!(
        commit["message"],
        "second: rename the guide\n\nAnd add two.\n"
    );
    let files = commit["files"].as_array().unwrap();
    let by_path = |path: &str| {
        files
            .iter()
            .find(|file| file["path"] == path)
            .unwrap_or_else(|| panic!("{path} in {files:?}"))
    };
    assert_eq!(by_path("docs/manual.md")["change"], "renamed");
    assert_eq!(by_path("docs/manual.md")["oldPath"], "docs/guide.md");
    assert_eq!(by_path("src/lib.rs")["change"], "modified");
    assert_eq!(by_path("src/lib.rs")["additions"], 4);
    assert_eq!(by_path("src/lib.rs")["deletions"], 0);
    let env = by_path(".env");
    assert_eq!(env["withheld"], true);
    assert!(env.get("additions").is_none());
    assert!(!commit.to_string().contains("hunter2"));
    let root = read_json(&engine, &format!("git://work/commit/{}", work.first)).await;
    let binary = root["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|file| file["path"] == "logo.png")
        .unwrap();
    assert_eq!(binary["binary"], true);
    assert!(
        !root.to_string().contains("vendor/sub"),
        "submodules are left out"
    );
}

#[tokio::test]
async fn the_log_pages_with_continuations_and_a_moving_branch_repeats_nothing() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    let expected: Vec<String> = git(&work.path(), &["rev-list", "main"])
        .lines()
        .map(str::to_owned)
        .collect();
    let first = read_json(&engine, "git://work/log/main?limit=2").await;
    let ids = |page: &serde_json::Value| -> Vec<String> {
        page["commits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|commit| commit["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut seen = ids(&first);
    assert_eq!(seen, expected[..2]);
    assert_eq!(first["commits"][0]["summary"], "merge feature/x");
    // The branch moves between pages: the next page goes on where the first stopped.
    fixture::write(&work.path(), "late.txt", "late\n");
    git(&work.path(), &["add", "-A"]);
    git_at(&work.path(), &["commit", "-q", "-m", "late"], 1_700_000_500);
    let mut next = first["next"].as_str().map(str::to_owned);
    while let Some(uri) = next {
        let page = read_json(&engine, &uri).await;
        seen.extend(ids(&page));
        next = page["next"].as_str().map(str::to_owned);
    }
    assert_eq!(
        seen, expected,
        "every commit once, in order, none of the late one"
    );
    // A path keeps the commits that changed it.
    let readme = read_json(&engine, "git://work/log/main?path=README.md").await;
    assert_eq!(ids(&readme), [work.fourth.clone(), work.first.clone()]);
    // A continuation after a commit the branch never had is no page.
    assert!(
        read(
            &engine,
            "git://work/log/v1.0?after=1111111111111111111111111111111111111111"
        )
        .await
        .is_err()
    );
    let too_many = read(&engine, "git://work/log/main?limit=100000")
        .await
        .unwrap_err();
    assert!(too_many.to_string().contains("limit"), "{too_many}");
}

#[tokio::test]
async fn diffs_are_unified_and_never_show_a_secret() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    let diff = read(&engine, &format!("git://work/diff/{}..main", work.first))
        .await
        .unwrap();
    assert!(diff.contains("diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n hello\n+world\n"), "{diff}");
    assert!(
        diff.contains("rename from docs/guide.md\nrename to docs/manual.md\n"),
        "{diff}"
    );
    assert!(
        diff.contains("diff --git a/.env b/.env\n# withheld"),
        "{diff}"
    );
    assert!(!diff.contains("hunter2"), "{diff}");
    let only_src = read(&engine, "git://work/diff/v1.0..main?path=src")
        .await
        .unwrap();
    assert_eq!(only_src, "");
    let readme = read(&engine, "git://work/diff/v1.0..main?path=README.md")
        .await
        .unwrap();
    assert!(readme.starts_with("diff --git a/README.md"), "{readme}");
    assert!(!readme.contains("feature.txt"), "{readme}");
}

#[tokio::test]
async fn completion_proposes_names_revisions_and_paths() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    let complete = |template: &'static str,
                    variable: &'static str,
                    prefix: &'static str,
                    context: Vec<(&'static str, &'static str)>| {
        let engine = &engine;
        async move {
            let context: Variables = context.into_iter().collect();
            engine
                .complete(
                    &Principal::anonymous(),
                    template,
                    variable,
                    prefix,
                    &context,
                )
                .await
                .unwrap()
                .values
        }
    };
    let file = "git://{repo}/tree/{rev}/{+path}{?offset,length}";
    assert_eq!(complete(file, "repo", "w", vec![]).await, ["work"]);
    assert_eq!(
        complete(file, "rev", "fe", vec![("repo", "work")]).await,
        ["feature/x"]
    );
    let revs = complete(file, "rev", "", vec![("repo", "work")]).await;
    for rev in ["HEAD", "main", "v1.0", "light", "feature/x"] {
        assert!(revs.iter().any(|value| value == rev), "{rev} in {revs:?}");
    }
    assert_eq!(
        complete(
            file,
            "path",
            "src/",
            vec![("repo", "work"), ("rev", "main")]
        )
        .await,
        ["src/lib.rs"]
    );
    let top = complete(file, "path", "", vec![("repo", "work"), ("rev", "v1.0")]).await;
    assert!(top.iter().any(|value| value == "docs"), "{top:?}");
    assert!(
        !top.iter()
            .any(|value| value == ".env" || value == "feature.txt"),
        "{top:?}"
    );
}

#[tokio::test]
async fn a_full_commit_id_is_cached_long_and_a_ref_briefly() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    let ttl = |text: String| {
        let engine = &engine;
        async move {
            engine
                .read(&Principal::anonymous(), &fixture::uri(&text))
                .await
                .unwrap()
                .cache
                .ttl_ms
        }
    };
    assert_eq!(
        ttl(format!("git://work/tree/{}/README.md", work.merge)).await,
        86_400_000
    );
    assert_eq!(
        ttl(format!("git://work/commit/{}", work.merge)).await,
        86_400_000
    );
    assert_eq!(
        ttl("git://work/tree/main/README.md".to_owned()).await,
        5_000
    );
    assert_eq!(
        ttl(format!("git://work/tree/{}/README.md", &work.merge[..7])).await,
        5_000
    );
}

#[tokio::test]
async fn refs_detached_heads_bare_and_empty_repositories() {
    let work = work();
    let bare = work.dir.path().join("bare.git");
    git(
        work.dir.path(),
        &["clone", "-q", "--bare", "work", "bare.git"],
    );
    let empty = work.dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    git(&empty, &["init", "-q", "-b", "main"]);
    let detached = work.dir.path().join("detached");
    git(work.dir.path(), &["clone", "-q", "work", "detached"]);
    git(&detached, &["checkout", "-q", "--detach", &work.second]);
    let provider = provider(&[
        ("work", &work.path()),
        ("bare", &bare),
        ("empty", &empty),
        ("detached", &detached),
    ]);
    let engine = engine(&provider, 50);

    let refs = read_json(&engine, "git://work/refs").await;
    assert_eq!(refs["head"]["branch"], "refs/heads/main");
    assert_eq!(refs["head"]["commit"], work.merge.as_str());
    let tag = refs["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == "refs/tags/v1.0")
        .unwrap();
    assert_eq!(tag["commit"], work.second.as_str());
    assert!(
        tag["tag"].is_string(),
        "an annotated tag names its tag object: {tag}"
    );

    assert_eq!(
        read(&engine, "git://bare/tree/HEAD/README.md")
            .await
            .unwrap(),
        "hello\nworld\n"
    );
    let detached_refs = read_json(&engine, "git://detached/refs").await;
    assert_eq!(detached_refs["head"]["branch"], serde_json::Value::Null);
    assert_eq!(detached_refs["head"]["commit"], work.second.as_str());
    assert_eq!(
        read(&engine, "git://detached/tree/HEAD/README.md")
            .await
            .unwrap(),
        "hello\n"
    );

    let empty_refs = read_json(&engine, "git://empty/refs").await;
    assert_eq!(empty_refs, serde_json::json!({"head": null, "refs": []}));
    assert!(
        read(&engine, "git://empty/tree/HEAD/README.md")
            .await
            .is_err()
    );
    let listed: Vec<String> = list(&engine)
        .await
        .iter()
        .map(|item| item.uri.as_str().to_owned())
        .filter(|uri| uri.starts_with("git://empty/") || uri.starts_with("git://bare/"))
        .collect();
    assert_eq!(listed.first().map(String::as_str), Some("git://bare/refs"));
    assert!(listed.contains(&"git://empty/refs".to_owned()));
    assert!(!listed.iter().any(|uri| uri.starts_with("git://empty/tree")));
}

#[test]
fn a_path_that_is_no_repository_is_a_clear_start_up_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = mcp_resources_git::GitConfig::new([mcp_resources_git::RepoConfig::new(
        "nothing",
        dir.path(),
    )]);
    config.watch = false;
    let error = mcp_resources_git::GitProvider::new(config).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("\"nothing\" could not be opened"),
        "{error}"
    );
    let bad_name = mcp_resources_git::GitConfig::new([mcp_resources_git::RepoConfig::new(
        "Bad Name",
        dir.path(),
    )]);
    assert!(mcp_resources_git::GitProvider::new(bad_name).is_err());
}

#[tokio::test]
async fn a_full_id_is_the_commit_and_hidden_history_names_nothing() {
    let work = work();
    let repo = work.path();
    // A branch spelt as the first commit's id, pointing elsewhere: the id still names the
    // commit, as in git.
    git(&repo, &["branch", &work.first, &work.merge]);
    // A commit only a remote-tracking ref and the stash reach.
    fixture::write(&repo, "hidden.txt", "HIDDEN CONTENT\n");
    git(&repo, &["checkout", "-q", "-b", "tmp"]);
    git(&repo, &["add", "-A"]);
    git_at(&repo, &["commit", "-q", "-m", "hidden"], 1_700_000_900);
    let hidden = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["checkout", "-q", "main"]);
    git(
        &repo,
        &["update-ref", "refs/remotes/origin/hidden", &hidden],
    );
    git(&repo, &["branch", "-q", "-D", "tmp"]);
    // A ref file where gix would also look for a partial name.
    std::fs::create_dir_all(repo.join(".git/remotes/refs/heads")).unwrap();
    std::fs::write(
        repo.join(".git/remotes/refs/heads/ghost"),
        format!("{hidden}\n"),
    )
    .unwrap();
    let provider = provider(&[("work", &repo)]);
    let engine = engine(&provider, 50);

    assert_eq!(
        read(
            &engine,
            &format!("git://work/tree/{}/README.md", work.first)
        )
        .await
        .unwrap(),
        "hello\n",
        "the id, not the branch of that name"
    );
    for uri in [
        format!("git://work/tree/{hidden}/hidden.txt"),
        format!("git://work/tree/{}/hidden.txt", &hidden[..8]),
        "git://work/tree/ghost/hidden.txt".to_owned(),
        "git://work/tree/refs%2Fheads%2Fghost/hidden.txt".to_owned(),
        "git://work/tree/origin%2Fhidden/hidden.txt".to_owned(),
        format!("git://work/commit/{hidden}"),
    ] {
        let error = read(&engine, &uri).await.expect_err(&uri);
        assert!(
            matches!(error, ReadError::NotFound { .. }),
            "{uri}: {error}"
        );
    }
    let context: Variables = [("repo", "work")].into_iter().collect();
    let proposed = engine
        .complete(
            &Principal::anonymous(),
            "git://{repo}/tree/{rev}/{+path}{?offset,length}",
            "rev",
            &hidden[..6],
            &context,
        )
        .await
        .unwrap()
        .values;
    assert!(proposed.is_empty(), "{proposed:?}");
}

#[tokio::test]
async fn large_files_are_named_not_diffed_and_diffs_apply_with_git() {
    let work = work();
    fixture::write(&work.path(), "big.txt", "x\n".repeat(150));
    git(&work.path(), &["add", "-A"]);
    git_at(&work.path(), &["commit", "-q", "-m", "big"], 1_700_000_800);
    let big = git(&work.path(), &["rev-parse", "HEAD"]);
    let mut config = mcp_resources_git::GitConfig::new([mcp_resources_git::RepoConfig::new(
        "work",
        work.path(),
    )]);
    config.max_diff_bytes = 150;
    let small = mcp_resources_git::GitProvider::new(config).unwrap();
    let engine_small = engine(&small, 50);
    let diff = read(
        &engine_small,
        &format!("git://work/diff/{}..{big}", work.merge),
    )
    .await
    .unwrap();
    assert!(
        diff.contains("# not shown: 0 bytes before, 300 after, over 150 bytes"),
        "{diff}"
    );
    let commit = read_json(&engine_small, &format!("git://work/commit/{big}")).await;
    let file = &commit["files"][0];
    assert_eq!(file["path"], "big.txt", "{commit}");
    assert_eq!(file["tooLarge"], true, "{file}");
    assert!(file.get("additions").is_none(), "{file}");

    // What the provider writes, git applies (in reverse, to the tree at main).
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    for uri in [
        format!("git://work/diff/{}..main?path=src", work.first),
        "git://work/diff/v1.0..main?path=feature.txt".to_owned(),
        format!("git://work/diff/{}..main?path=README.md", work.first),
    ] {
        let diff = read(&engine, &uri).await.unwrap();
        assert!(!diff.is_empty(), "{uri}");
        let patch = work.dir.path().join("change.patch");
        std::fs::write(&patch, &diff).unwrap();
        git(
            &work.path(),
            &["apply", "--check", "-R", patch.to_str().unwrap()],
        );
    }
    let new_file = read(&engine, "git://work/diff/v1.0..main?path=feature.txt")
        .await
        .unwrap();
    assert!(
        new_file.contains(
            "new file mode 100644\n--- /dev/null\n+++ b/feature.txt\n@@ -0,0 +1 @@\n+a feature\n"
        ),
        "{new_file}"
    );
}

#[tokio::test]
async fn a_path_through_a_submodule_or_a_file_is_not_found_and_bad_limits_are_named() {
    let work = work();
    let provider = provider(&[("work", &work.path())]);
    let engine = engine(&provider, 50);
    for uri in [
        "git://work/tree/main/vendor/sub/x",
        "git://work/tree/main/README.md/x",
        "git://work/log/main?path=vendor/sub/x",
    ] {
        match read(&engine, uri).await {
            Err(ReadError::NotFound { .. }) => {}
            Ok(body) if uri.contains("/log/") => {
                let log: serde_json::Value = serde_json::from_str(&body).unwrap();
                assert_eq!(log["commits"], serde_json::json!([]), "{uri}");
            }
            other => panic!("{uri}: {other:?}"),
        }
    }
    let huge = read(&engine, "git://work/log/main?limit=99999999999999999999999").await;
    assert!(huge.unwrap_err().to_string().contains("limit"));
}

#[tokio::test]
async fn one_unreadable_repository_does_not_hide_the_others_from_the_list() {
    let work = work();
    let broken = work.dir.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    git(&broken, &["init", "-q", "-b", "main"]);
    fixture::write(&broken, "a.txt", "a\n");
    git(&broken, &["add", "-A"]);
    git(&broken, &["commit", "-q", "-m", "one"]);
    let tree = git(&broken, &["rev-parse", "HEAD^{tree}"]);
    let object = broken
        .join(".git/objects")
        .join(&tree[..2])
        .join(&tree[2..]);
    let mut permissions = std::fs::metadata(&object).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&object, permissions).unwrap();
    std::fs::write(&object, b"not a zlib stream").unwrap();
    let provider = provider(&[("broken", &broken), ("work", &work.path())]);
    let engine = engine(&provider, 50);
    let listed: Vec<String> = list(&engine)
        .await
        .iter()
        .map(|item| item.uri.as_str().to_owned())
        .collect();
    assert!(
        listed.contains(&"git://broken/refs".to_owned()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"git://work/tree/HEAD/README.md".to_owned()),
        "{listed:?}"
    );
    let error = read(&engine, "git://broken/tree/main/a.txt")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("could not be read"), "{error}");
}

/// The engine's content rules over git: a token committed into an ordinary file is masked in
/// the file at every revision, in ranges of it that cut the token, and in the diff that added
/// it; the rest of the diff comes back as it was.
#[tokio::test]
async fn content_rules_mask_committed_tokens_in_files_ranges_and_diffs() {
    use crate::fixture::{git, write};
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    write(&repo, "app.py", "print('hello')\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let base = git(&repo, &["rev-parse", "HEAD"]).trim().to_owned();
    let token = "glpat-Ab3dEf6hIj9kLm2nOp5q";
    let body = format!("print('hello')\nGITLAB_TOKEN = '{token}'\n");
    write(&repo, "app.py", &body);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "oops"]);
    let provider = provider(&[("repo", &repo)]);
    let engine = mcp_resources_core::engine::Engine::builder(
        mcp_resources_core::pagination::CursorKey::new([3; 32]),
    )
    .provider(std::sync::Arc::new(provider.clone()))
    .redactor(mcp_resources_core::redact::Redactor::credentials())
    .build()
    .unwrap();
    let file = read(&engine, "git://repo/tree/main/app.py").await.unwrap();
    assert_eq!(file.len(), body.len());
    assert!(
        !file.contains(token) && file.starts_with("print('hello')\n"),
        "{file}"
    );
    let at = body.find(token).unwrap();
    for (offset, length) in [(at + 4, 6), (at - 3, 8), (at + 20, 10)] {
        let part = read(
            &engine,
            &format!("git://repo/tree/main/app.py?offset={offset}&length={length}"),
        )
        .await
        .unwrap();
        assert_eq!(part, file[offset..(offset + length).min(file.len())]);
        assert!(!part.contains("Ab3d") && !part.contains("Op5q"), "{part}");
    }
    let diff = read(&engine, &format!("git://repo/diff/{base}..main"))
        .await
        .unwrap();
    assert!(!diff.contains("Ab3dEf6h"), "{diff}");
    assert!(diff.contains("+GITLAB_TOKEN = '"), "{diff}");
}

/// With content rules on, a range of a blob larger than the read limit is still served (the
/// engine's widened range is read as the blob's part, not as a whole read over the limit).
#[tokio::test]
async fn content_rules_read_ranges_of_blobs_over_the_limit() {
    use crate::fixture::{git, write};
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let big: String = (0..4000).map(|line| format!("line {line:05}\n")).collect();
    write(&repo, "big.txt", &big);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "big"]);
    let mut config =
        mcp_resources_git::GitConfig::new([mcp_resources_git::RepoConfig::new("repo", &repo)]);
    config.watch = false;
    config.max_read_bytes = 2_000 + 4 * mcp_resources_core::engine::REDACT_MARGIN;
    let provider = mcp_resources_git::GitProvider::new(config).unwrap();
    let engine = mcp_resources_core::engine::Engine::builder(
        mcp_resources_core::pagination::CursorKey::new([3; 32]),
    )
    .limits(mcp_resources_core::engine::Limits {
        max_read_bytes: 2_000,
        ..Default::default()
    })
    .provider(std::sync::Arc::new(provider))
    .redactor(mcp_resources_core::redact::Redactor::credentials())
    .build()
    .unwrap();
    let part = read(
        &engine,
        "git://repo/tree/main/big.txt?offset=30000&length=22",
    )
    .await
    .unwrap();
    assert_eq!(part, big[30000..30022]);
    assert!(
        read(&engine, "git://repo/tree/main/big.txt").await.is_err(),
        "over the limit"
    );
}
