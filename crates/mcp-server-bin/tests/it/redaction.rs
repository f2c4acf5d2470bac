//! The content rules' proof over Streamable HTTP: one real-format example of every credential
//! kind planted in ordinary files (several per file, on line boundaries, inside long lines), in
//! a git commit and its diff, and in SQLite rows; clients of both eras list everything and
//! read every resource, whole and in ranges that cut the secrets at every few bytes. No piece
//! of a planted secret leaves; every near-miss comes back byte for byte.

use std::path::Path;

use serde_json::{Value, json};

use crate::git::{commit, git};
use crate::http::{Client, HttpServer};

/// `(name, text holding the secret, the secret)`.
const PLANTED: &[(&str, &str, &str)] = &[
    (
        "private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98mZkQ\nZmZmZmZmQWERTYuiop\n-----END RSA PRIVATE KEY-----\n",
        "MIIEowIBAAKCAQEA7bq98mZkQ",
    ),
    (
        "aws id",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
        "AKIAIOSFODNN7EXAMPLE",
    ),
    (
        "aws secret",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "gcp key",
        "key: AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe\n",
        "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    ),
    (
        "gcp key id",
        "{\"private_key_id\": \"1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c\"}\n",
        "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c",
    ),
    (
        "azure",
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;\n",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    ),
    (
        "github",
        "GITHUB=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\n",
        "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",
    ),
    (
        "gitlab",
        "token glpat-xxxxXXXX1234yyyyZZZZ here\n",
        "glpat-xxxxXXXX1234yyyyZZZZ",
    ),
    (
        "slack",
        "SLACK=xoxb-2305150341-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx\n",
        "xoxb-2305150341-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "jwt",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "url password",
        "DATABASE_URL=postgres://app:S3cr3t-P4ss-w0rd@db.internal:5432/shop\n",
        "S3cr3t-P4ss-w0rd",
    ),
    (
        "assigned",
        "db:\n  password: \"Xk9#mQ2$vL7pW4zR\"\n",
        "Xk9#mQ2$vL7pW4zR",
    ),
];

/// Texts no rule may touch.
const NEAR_MISSES: &str = "request_id = 123e4567-e89b-12d3-a456-426614174000\n\
    commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed the docs\n\
    background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==);\n\
    Lorem ipsum dolor sit amet, consectetur adipiscing elit\n\
    password = \"${DB_PASSWORD}\"\n";

/// Pieces of each secret that must never appear: the whole and a few 8-byte slices.
fn pieces() -> Vec<String> {
    let mut pieces = Vec::new();
    for (_, _, secret) in PLANTED {
        pieces.push((*secret).to_owned());
        for start in (0..secret.len().saturating_sub(8)).step_by(6) {
            pieces.push(secret[start..start + 8].to_owned());
        }
    }
    pieces
}

/// Every planted text, several per file: on line boundaries, then inside a long line.
fn plant(root: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for (index, chunk) in PLANTED.chunks(3).enumerate() {
        let mut text = String::from("# settings\n");
        for (_, planted, _) in chunk {
            text.push_str(planted);
        }
        text.push_str(&"filler words ".repeat(40));
        for (_, planted, _) in chunk {
            text.push_str(planted.trim_end());
            text.push_str(" and more ");
        }
        text.push('\n');
        let name = format!("config-{index}.txt");
        std::fs::write(root.join(&name), text).unwrap();
        names.push(name);
    }
    std::fs::write(root.join("near.txt"), NEAR_MISSES).unwrap();
    names
}

#[test]
fn credentials_planted_in_files_git_and_rows_never_leave_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("served");
    std::fs::create_dir(&root).unwrap();
    let files = plant(&root);

    let repo = base.join("proj");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"], 0);
    let first = commit(&repo, "README.md", "hello\n", "first", 1_700_000_000);
    let planted: String = PLANTED.iter().map(|(_, text, _)| *text).collect();
    let second = commit(&repo, "deploy/keys.txt", &planted, "oops", 1_700_000_100);

    rusqlite::Connection::open(base.join("shop.db"))
        .unwrap()
        .execute_batch(&format!(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
             INSERT INTO notes VALUES (1, '{}'), (2, '{}');",
            PLANTED[6].1.replace('\'', "''"),
            PLANTED[9].1.replace('\'', "''")
        ))
        .unwrap();

    let config = format!(
        "[[git]]\npath = {:?}\nname = \"proj\"\n[[sql]]\nurl = \"sqlite:{}\"\nname = \"shop\"\n",
        repo.display().to_string(),
        base.join("shop.db").display()
    );
    let server = HttpServer::start_with(&base, &config, &[root.as_os_str()]);
    let mut answers: Vec<Value> = Vec::new();
    for client in [Client::modern(&server), Client::legacy(&server)] {
        let listed = client.list();
        assert!(
            listed.iter().any(|uri| uri.starts_with("git://proj/")),
            "{listed:?}"
        );
        let mut uris: Vec<String> = listed.into_iter().collect();
        uris.extend([
            format!("git://proj/diff/{first}..main"),
            format!("git://proj/commit/{second}"),
            "git://proj/tree/main/deploy/keys.txt".to_owned(),
            "db://shop/table/notes/rows".to_owned(),
            "db://shop/table/notes/row/1".to_owned(),
            "db://shop/table/notes/row/2".to_owned(),
        ]);
        for uri in &uris {
            let answer = client.request("resources/read", json!({"uri": uri}));
            if !uri.starts_with("file://") && !uri.ends_with("/refs") {
                assert!(answer.get("result").is_some(), "{uri}: {answer}");
            }
            answers.push(answer);
        }
        // Ranges of every planted file, starting every 13 bytes.
        for name in &files {
            let uri = format!("file://{}/{name}", root.display());
            let size = std::fs::metadata(root.join(name)).unwrap().len();
            for offset in (0..size).step_by(13) {
                let ranged = format!("{uri}?offset={offset}&length=29");
                let answer = client.request("resources/read", json!({"uri": ranged}));
                assert!(answer.get("result").is_some(), "{answer}");
                answers.push(answer);
            }
        }
        let near = client.request(
            "resources/read",
            json!({"uri": format!("file://{}/near.txt", root.display())}),
        );
        assert_eq!(near["result"]["contents"][0]["text"], NEAR_MISSES);
    }
    let all = serde_json::to_string(&answers).unwrap();
    // What was read is there, masked: the files, the diff and the rows.
    assert!(all.contains("filler words") && all.contains("deploy/keys.txt"));
    assert!(all.contains("GITHUB=****"), "the row and the files, masked");
    for piece in pieces() {
        assert!(
            !all.contains(&piece),
            "a piece of a planted secret left: {piece:?}"
        );
    }
}
