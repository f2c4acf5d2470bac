//! End to end with a SQLite database and a PostgreSQL one: the binary serving `--sql` alone, to a legacy and a
//! modern client over stdio and over Streamable HTTP; rows paged while another connection
//! inserts, sensitive columns hidden and masked everywhere, an update heard by both eras.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::{Value, json};

use crate::http::{Client, HttpServer};
use crate::stdio::{Spawned, initialize, with_meta};

fn database(dir: &Path) -> PathBuf {
    let path = dir.join("shop.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, \
               password_hash TEXT);
             INSERT INTO customers VALUES (1, 'Zhang', 'zhang@example.com', 'hash-secret-1'),
               (2, 'Ada', 'ada@example.com', 'hash-secret-2');",
        )
        .unwrap();
    path
}

fn text_of(answer: &Value) -> Value {
    let text = answer["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text answer: {answer}"));
    serde_json::from_str(text).unwrap()
}

#[test]
fn both_eras_page_rows_mask_and_hear_an_update_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let flag = format!("shop=sqlite:{}", path.display());
    let mut server = Spawned::start_with(&[OsStr::new("--sql"), OsStr::new(&flag)]);
    initialize(&mut server);
    let writer = Connection::open(&path).unwrap();
    let mut id = 100;
    for modern in [false, true] {
        let mut ask = |server: &mut Spawned, method: &str, params: Value| {
            id += 1;
            let params = if modern { with_meta(params) } else { params };
            server.request(json!(id), method, params)
        };
        let listed = ask(&mut server, "resources/list", json!({}));
        assert_eq!(
            listed["result"]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|item| item["uri"].as_str().unwrap())
                .collect::<Vec<_>>(),
            ["db://shop/schema", "db://shop/table/customers/schema"],
            "{listed}"
        );
        let row = text_of(&ask(
            &mut server,
            "resources/read",
            json!({"uri": "db://shop/table/customers/row/1"}),
        ));
        assert_eq!(
            row["values"],
            json!({"id": 1, "name": "Zhang", "email": "z***@example.com"})
        );
        // Pages of one row, a row inserted ahead between pages: every row once.
        let mut keys = Vec::new();
        let mut next = Some("db://shop/table/customers/rows?limit=1".to_owned());
        while let Some(page_uri) = next {
            let page = text_of(&ask(
                &mut server,
                "resources/read",
                json!({"uri": page_uri}),
            ));
            keys.extend(
                page["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|row| row["key"].as_str().unwrap().to_owned()),
            );
            if keys.len() == 1 {
                writer
                    .execute(
                        "INSERT INTO customers (id, name) VALUES (?1, 'late')",
                        [if modern { 11 } else { 10 }],
                    )
                    .unwrap();
            }
            next = page["next"].as_str().map(str::to_owned);
        }
        let expected: Vec<&str> = if modern {
            vec!["1", "2", "10", "11"]
        } else {
            vec!["1", "2", "10"]
        };
        assert_eq!(keys, expected);
        let completed = ask(
            &mut server,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "db://{database}/table/{table}/row/{key}"},
                   "argument": {"name": "table", "value": "c"},
                   "context": {"arguments": {"database": "shop"}}}),
        );
        assert_eq!(
            completed["result"]["completion"]["values"],
            json!(["customers"]),
            "{completed}"
        );
        let missing = ask(
            &mut server,
            "resources/read",
            json!({"uri": "db://shop/table/customers/row/x"}),
        );
        assert_eq!(
            missing["error"]["code"],
            if modern { -32602 } else { -32002 },
            "{missing}"
        );
    }
    let rows = "db://shop/table/customers/rows";
    let subscribed = server.request(json!("sub"), "resources/subscribe", json!({"uri": rows}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    server.send(&json!({
        "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {"resourceSubscriptions": [rows]}}))
    }));
    server.notification("notifications/subscriptions/acknowledged");
    writer
        .execute("UPDATE customers SET name = 'Zhang Wei' WHERE id = 1", [])
        .unwrap();
    let legacy = server.expect("legacy update", |message| {
        message["method"] == "notifications/resources/updated"
            && message["params"].get("_meta").is_none()
    });
    assert_eq!(legacy["params"]["uri"], rows);
    let modern = server.expect("tagged update", |message| {
        message["method"] == "notifications/resources/updated"
            && message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen"
    });
    assert_eq!(modern["params"]["uri"], rows);
    let transcript = server.unclaimed_after(std::time::Duration::from_millis(10));
    assert!(!format!("{transcript:?}").contains("hash-secret"));
    server.close_stdin();
    assert!(server.wait_exit().success());
}

#[test]
fn both_eras_read_a_schema_and_a_row_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let config = format!(
        "[[sql]]\nurl = \"sqlite:{}\"\nmask = [{{ column = \"name\", style = \"ends:1\" }}]\n\
         [[sql.query]]\nname = \"customer\"\nuri = \"customers://{{id}}\"\n\
         sql = \"SELECT * FROM customers WHERE id = ?1\"\nparams = [\"id:integer\"]\none_row = true\n",
        path.display()
    );
    let server = HttpServer::start_with(dir.path(), &config, &[]);
    for client in [Client::legacy(&server), Client::modern(&server)] {
        let schema = text_of(&client.request("resources/read", json!({"uri": "db://shop/schema"})));
        let text = schema.to_string();
        assert!(
            text.contains("customers") && !text.contains("password"),
            "{text}"
        );
        let row = text_of(&client.request(
            "resources/read",
            json!({"uri": "db://shop/table/customers/row/2"}),
        ));
        assert_eq!(row["values"]["name"], "A*a");
        assert_eq!(row["values"]["email"], "a***@example.com");
        let named = text_of(&client.request("resources/read", json!({"uri": "customers://1"})));
        assert_eq!(
            named,
            json!({"query": "customer", "values": {"id": 1, "name": "Z***g", "email": "z***@example.com"}})
        );
        let directory = client.request(
            "resources/directory/read",
            json!({"uri": "db://shop/table/customers"}),
        );
        assert_eq!(
            directory["result"]["resources"][0]["uri"], "db://shop/table/customers/rows",
            "{directory}"
        );
    }
}

/// Runs `sql` with `psql` against `url` (the test server's password from the environment),
/// and answers what it printed.
fn psql(url: &str, sql: &str) -> String {
    let output = std::process::Command::new("psql")
        .args([
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            url,
            "-c",
            sql,
        ])
        .env(
            "PGPASSWORD",
            std::env::var("MCP_TEST_POSTGRES_PASSWORD").unwrap_or_default(),
        )
        .output()
        .expect("psql runs (Debian's postgresql-client)");
    assert!(
        output.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A fresh database on the test server (`.ci/postgres`), or `None`, said loudly, outside CI.
fn postgres_database(test: &str) -> Option<String> {
    let Ok(url) = std::env::var("MCP_TEST_POSTGRES") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "MCP_TEST_POSTGRES is not set under CI: .ci/postgres starts a server"
        );
        eprintln!("SKIPPED {test}: MCP_TEST_POSTGRES is not set (eval \"$(.ci/postgres)\")");
        return None;
    };
    let name = format!("mcp_bin_{test}_{}", std::process::id());
    psql(
        &url,
        &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
    );
    psql(&url, &format!("CREATE DATABASE {name}"));
    let (base, _) = url.rsplit_once('/').unwrap();
    Some(format!("{base}/{name}"))
}

#[test]
fn postgres_in_both_eras_over_stdio_and_http_with_the_printed_trigger() {
    let Some(url) = postgres_database("e2e") else {
        return;
    };
    psql(
        &url,
        "CREATE TABLE customers (id integer PRIMARY KEY, tenant text, name text, email text,
           password_hash text);
         INSERT INTO customers VALUES (1, 'acme', 'Zhang', 'zhang@example.com', 'hash-secret-1'),
           (2, 'globex', 'Ada', 'ada@example.com', 'hash-secret-2');",
    );
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[[sql]]\nurl = \"{url}\"\nname = \"shop\"\npassword_env = \"MCP_TEST_POSTGRES_PASSWORD\"\n\
         [[sql.query]]\nname = \"customer\"\nuri = \"customers://{{id}}\"\n\
         sql = \"SELECT id, name, email FROM customers WHERE id = $1\"\nparams = [\"id:integer\"]\none_row = true\n"
    );
    let file = dir.path().join("pg.toml");
    std::fs::write(&file, &config).unwrap();

    // The trigger SQL the tool prints, run by the owner: changes are then heard row by row.
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
        .args(["sql-trigger", "--config"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let trigger = String::from_utf8(printed.stdout).unwrap();
    assert!(trigger.contains("ON \"public\".\"customers\""), "{trigger}");
    psql(&url, &trigger);

    let mut server = Spawned::start_with(&[OsStr::new("--config"), file.as_os_str()]);
    initialize(&mut server);
    let mut id = 100;
    for modern in [false, true] {
        let mut ask = |server: &mut Spawned, method: &str, params: Value| {
            id += 1;
            let params = if modern { with_meta(params) } else { params };
            server.request(json!(id), method, params)
        };
        let row = text_of(&ask(
            &mut server,
            "resources/read",
            json!({"uri": "db://shop/table/customers/row/1"}),
        ));
        assert_eq!(
            row["values"],
            json!({"id": 1, "tenant": "acme", "name": "Zhang", "email": "z***@example.com"})
        );
        let named = text_of(&ask(
            &mut server,
            "resources/read",
            json!({"uri": "customers://2"}),
        ));
        assert_eq!(named["values"]["email"], "a***@example.com");
        let missing = ask(
            &mut server,
            "resources/read",
            json!({"uri": "db://shop/table/customers/row/1%3BDROP%20TABLE%20customers"}),
        );
        assert_eq!(
            missing["error"]["code"],
            if modern { -32602 } else { -32002 }
        );
    }
    let row = "db://shop/table/customers/row/2";
    let subscribed = server.request(json!("sub"), "resources/subscribe", json!({"uri": row}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    server.send(&json!({
        "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": with_meta(json!({"notifications": {"resourceSubscriptions": [row]}}))
    }));
    server.notification("notifications/subscriptions/acknowledged");
    psql(&url, "UPDATE customers SET name = 'Ada L.' WHERE id = 2");
    for (what, modern) in [("legacy update", false), ("tagged update", true)] {
        let update = server.expect(what, |message| {
            message["method"] == "notifications/resources/updated"
                && message["params"].get("_meta").is_some() == modern
        });
        assert_eq!(update["params"]["uri"], row);
    }
    let transcript = server.unclaimed_after(std::time::Duration::from_millis(10));
    assert!(!format!("{transcript:?}").contains("hash-secret"));
    server.close_stdin();
    assert!(server.wait_exit().success());
    assert_eq!(
        psql(&url, "SELECT count(*) FROM customers").trim(),
        "2",
        "nothing was dropped"
    );

    let server = HttpServer::start_with(dir.path(), &config, &[]);
    for client in [Client::legacy(&server), Client::modern(&server)] {
        let schema = text_of(&client.request("resources/read", json!({"uri": "db://shop/schema"})));
        let text = schema.to_string();
        assert!(
            text.contains("customers") && !text.contains("password"),
            "{text}"
        );
        let named = text_of(&client.request("resources/read", json!({"uri": "customers://1"})));
        assert_eq!(named["values"]["email"], "z***@example.com");
    }
}
