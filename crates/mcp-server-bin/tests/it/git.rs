//! End to end with git repositories: the binary serving `--git` alone, over stdio and over
//! Streamable HTTP, to a legacy and a modern client; a commit made with the `git` command line
//! while they listen.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Client, HttpServer};
use crate::stdio::{Spawned, initialize, with_meta};

/// Runs `git args` in `dir` with no user or system configuration and a fixed date; its output.
pub(crate) fn git(dir: &Path, args: &[&str], seconds: u64) -> String {
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

pub(crate) fn commit(repo: &Path, file: &str, text: &str, message: &str, seconds: u64) -> String {
    let path = repo.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    git(repo, &["add", "-A"], seconds);
    git(repo, &["commit", "-q", "-m", message], seconds);
    git(repo, &["rev-parse", "HEAD"], seconds)
}

/// A repository `proj` with three commits on `main` and an annotated tag `v1` on the first;
/// the first commit's id.
fn repository() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let repo = std::fs::canonicalize(dir.path()).unwrap().join("proj");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"], 0);
    std::fs::write(repo.join(".env"), "TOKEN=hunter2\n").unwrap();
    commit(
        &repo,
        "src/lib.rs",
        "pub fn a() {}\n",
        "first",
        1_700_000_000,
    );
    let first = git(&repo, &["rev-parse", "HEAD"], 0);
    git(&repo, &["tag", "-a", "v1", "-m", "one"], 1_700_000_001);
    commit(&repo, "docs/guide.md", "# Guide\n", "second", 1_700_000_100);
    commit(&repo, "README.md", "hello\n", "third", 1_700_000_200);
    (dir, repo, first)
}

#[test]
fn both_eras_read_walk_complete_and_hear_a_commit_over_stdio() {
    let (_dir, repo, first) = repository();
    let flag = format!("proj={}", repo.display());
    let mut server = Spawned::start_with(&[OsStr::new("--git"), OsStr::new(&flag)]);
    initialize(&mut server);
    let mut id = 10;
    let mut ask = |server: &mut Spawned, modern: bool, method: &str, params: Value| {
        id += 1;
        let params = if modern { with_meta(params) } else { params };
        server.request(json!(id), method, params)
    };
    for modern in [false, true] {
        let listed = ask(&mut server, modern, "resources/list", json!({}));
        let uris: Vec<&str> = listed["result"]["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .map(|item| item["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            [
                "git://proj/refs",
                "git://proj/tree/HEAD/README.md",
                "git://proj/tree/HEAD/docs/guide.md",
                "git://proj/tree/HEAD/src/lib.rs"
            ],
            "no files of a directory, no .env: {listed}"
        );
        for (rev, present) in [("main", true), ("v1", false), (&first[..7], false)] {
            let read = ask(
                &mut server,
                modern,
                "resources/read",
                json!({"uri": format!("git://proj/tree/{rev}/README.md")}),
            );
            assert_eq!(read.get("result").is_some(), present, "{rev}: {read}");
            let lib = ask(
                &mut server,
                modern,
                "resources/read",
                json!({"uri": format!("git://proj/tree/{rev}/src/lib.rs")}),
            );
            assert_eq!(
                lib["result"]["contents"][0]["text"], "pub fn a() {}\n",
                "{rev}: {lib}"
            );
        }
        let missing = ask(
            &mut server,
            modern,
            "resources/read",
            json!({"uri": "git://proj/tree/nope/README.md"}),
        );
        assert_eq!(
            missing["error"]["code"],
            if modern { -32602 } else { -32002 },
            "{missing}"
        );
        assert_eq!(
            missing["error"]["data"]["uri"],
            "git://proj/tree/nope/README.md"
        );
        let docs = ask(
            &mut server,
            modern,
            "resources/directory/read",
            json!({"uri": "git://proj/tree/main/docs"}),
        );
        assert_eq!(
            docs["result"]["resources"][0]["uri"], "git://proj/tree/main/docs/guide.md",
            "{docs}"
        );
        let completed = ask(
            &mut server,
            modern,
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "git://{repo}/tree/{rev}/{+path}{?offset,length}"},
                "argument": {"name": "rev", "value": "v"},
                "context": {"arguments": {"repo": "proj"}}
            }),
        );
        assert_eq!(
            completed["result"]["completion"]["values"],
            json!(["v1"]),
            "{completed}"
        );
    }

    // Both eras listen to two files; a commit changes one of them.
    let readme = "git://proj/tree/main/README.md";
    let lib = "git://proj/tree/main/src/lib.rs";
    for uri in [readme, lib] {
        let subscribed = server.request(
            json!(format!("sub {uri}")),
            "resources/subscribe",
            json!({"uri": uri}),
        );
        assert!(subscribed["result"].is_object(), "{subscribed}");
    }
    server.send(&json!({
        "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {"resourceSubscriptions": [readme, lib]}}))
    }));
    server.notification("notifications/subscriptions/acknowledged");
    commit(
        &repo,
        "README.md",
        "hello\nagain\n",
        "fourth",
        1_700_000_300,
    );
    let legacy = server.expect("legacy update", |message| {
        message["method"] == "notifications/resources/updated"
            && message["params"].get("_meta").is_none()
    });
    assert_eq!(legacy["params"]["uri"], readme, "{legacy}");
    let modern = server.expect("tagged update", |message| {
        message["method"] == "notifications/resources/updated"
            && message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen"
    });
    assert_eq!(modern["params"]["uri"], readme, "{modern}");
    let later = server.unclaimed_after(Duration::from_millis(800));
    assert!(
        !later.iter().any(|message| message["params"]["uri"] == lib),
        "an unchanged file is not updated: {later:?}"
    );
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn both_eras_page_a_moving_log_and_read_a_diff_over_http() {
    let (dir, repo, first) = repository();
    let config = format!("[[git]]\npath = \"{}\"\n", repo.display());
    let server = HttpServer::start_with(dir.path(), &config, &[]);
    for (round, client) in [Client::legacy(&server), Client::modern(&server)]
        .iter()
        .enumerate()
    {
        let era = if client.session.is_some() {
            "legacy"
        } else {
            "modern"
        };
        let page = client.request(
            "resources/read",
            json!({"uri": "git://proj/log/main?limit=2"}),
        );
        let log: Value = serde_json::from_str(
            page["result"]["contents"][0]["text"]
                .as_str()
                .expect("a log"),
        )
        .unwrap();
        let mut summaries: Vec<String> = log["commits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|commit| commit["summary"].as_str().unwrap().to_owned())
            .collect();
        // The branch moves before the next page is read.
        commit(
            &repo,
            "late.txt",
            &format!("late {round}\n"),
            &format!("late {round}"),
            1_700_001_000 + round as u64,
        );
        let next = log["next"].as_str().expect("a next page").to_owned();
        let page = client.request("resources/read", json!({"uri": next}));
        let rest: Value =
            serde_json::from_str(page["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
        summaries.extend(
            rest["commits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["summary"].as_str().unwrap().to_owned()),
        );
        let expected_head: Vec<String> = if round == 0 {
            vec!["third".into(), "second".into(), "first".into()]
        } else {
            vec![
                "late 0".into(),
                "third".into(),
                "second".into(),
                "first".into(),
            ]
        };
        assert_eq!(summaries, expected_head, "{era}");
        let diff = client.request(
            "resources/read",
            json!({"uri": format!("git://proj/diff/{first}..main?path=README.md")}),
        );
        let text = diff["result"]["contents"][0]["text"]
            .as_str()
            .expect("a diff");
        assert!(
            text.starts_with("diff --git a/README.md b/README.md\nnew file mode 100644\n"),
            "{era}: {text}"
        );
        assert_eq!(diff["result"]["contents"][0]["mimeType"], "text/x-diff");
        let tree = client.request(
            "resources/directory/read",
            json!({"uri": "git://proj/tree/v1"}),
        );
        let names: Vec<&str> = tree["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["src"], "{era}: no .env at any revision: {tree}");
        if era == "modern" {
            let cached = client.request(
                "resources/read",
                json!({"uri": format!("git://proj/commit/{first}")}),
            );
            assert_eq!(cached["result"]["ttlMs"], 86_400_000, "{cached}");
        }
    }
}
