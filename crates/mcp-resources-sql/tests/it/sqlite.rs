//! What the SQL provider serves from a real SQLite file: the list and the directories, schemas
//! with hidden and masked columns, pages of rows while rows are inserted, rows by key, budgets,
//! completion, and changes made by another connection.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_resources_core::change::{Change, ChangeSource};
use mcp_resources_core::engine::{Engine, Limits};
use mcp_resources_core::error::ReadError;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::resource::Body;
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_sql::{DbConfig, SqlConfig, SqlProvider};
use rusqlite::Connection;
use serde_json::{Value, json};

/// A database with users (sensitive columns), orders (a foreign key, an index), tags (a
/// composite key: rows by rowid), kv (text keys, no rowid) and a denied table.
fn database(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("app.db");
    let connection = Connection::open(&path).unwrap();
    connection
        .execute_batch(
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, \
               phone TEXT, password_hash TEXT, api_token TEXT, bio TEXT DEFAULT 'none');
             CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), \
               total REAL, note TEXT);
             CREATE INDEX orders_by_user ON orders(user_id);
             CREATE TABLE tags (a TEXT, b TEXT, PRIMARY KEY (a, b));
             CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID;
             CREATE TABLE audit_secrets (x TEXT);
             INSERT INTO users (id, name, email, phone, password_hash, api_token) VALUES
               (1, 'Zhang', 'zhang@example.com', '13800138000', 'hash-one', 'tok-one'),
               (2, 'Ada', 'ada@example.com', '13900139000', 'hash-two', 'tok-two');
             INSERT INTO orders VALUES (10, 1, 9.5, 'first'), (11, 2, 20.0, 'second');
             INSERT INTO tags VALUES ('x', 'y'), ('x', 'z');
             INSERT INTO kv VALUES ('a/b', x'00ff'), ('plain', 'text');
             INSERT INTO audit_secrets VALUES ('never');",
        )
        .unwrap();
    path
}

async fn provider(path: &Path, tune: impl FnOnce(&mut SqlConfig)) -> SqlProvider {
    let mut database = DbConfig::sqlite("app", path);
    database.deny_tables = vec!["audit_*".to_owned()];
    let mut config = SqlConfig::new([database]);
    tune(&mut config);
    SqlProvider::open(config).await.unwrap()
}

fn engine(provider: &SqlProvider) -> Engine {
    Engine::builder(CursorKey::new([5; 32]))
        .limits(Limits {
            page_size: 3.try_into().unwrap(),
            ..Limits::default()
        })
        .provider(Arc::new(provider.clone()))
        .build()
        .unwrap()
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap()
}

async fn read(engine: &Engine, text: &str) -> Result<Value, ReadError> {
    let read = engine.read(&Principal::anonymous(), &uri(text)).await?;
    let Body::Text(body) = &read.contents[0].body else {
        panic!("{text} is text");
    };
    Ok(serde_json::from_str(body).unwrap())
}

async fn children(engine: &Engine, directory: &str) -> Vec<(String, bool)> {
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let page = engine
            .list_directory(&Principal::anonymous(), &uri(directory), cursor.as_deref())
            .await
            .unwrap_or_else(|error| panic!("{directory}: {error}"));
        all.extend(
            page.items
                .iter()
                .map(|item| (item.uri.as_str().to_owned(), item.is_directory())),
        );
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return all,
        }
    }
}

#[tokio::test]
async fn the_list_and_the_directories_show_served_tables_only() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(&database(dir.path()), |_| {}).await;
    let engine = engine(&provider);
    let mut listed = Vec::new();
    let mut cursor = None;
    loop {
        let page = engine
            .list_resources(&Principal::anonymous(), cursor.as_deref())
            .await
            .unwrap();
        listed.extend(page.items.iter().map(|item| item.uri.as_str().to_owned()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(
        listed,
        [
            "db://app/schema",
            "db://app/table/kv/schema",
            "db://app/table/orders/schema",
            "db://app/table/tags/schema",
            "db://app/table/users/schema",
        ]
    );
    assert_eq!(
        children(&engine, "db://app").await,
        [
            ("db://app/schema".to_owned(), false),
            ("db://app/table".to_owned(), true)
        ]
    );
    let tables: Vec<String> = children(&engine, "db://app/table")
        .await
        .into_iter()
        .map(|(uri, is_directory)| {
            assert!(is_directory);
            uri
        })
        .collect();
    assert_eq!(
        tables,
        [
            "db://app/table/kv",
            "db://app/table/orders",
            "db://app/table/tags",
            "db://app/table/users"
        ]
    );
    assert_eq!(
        children(&engine, "db://app/table/users").await,
        [
            ("db://app/table/users/rows".to_owned(), false),
            ("db://app/table/users/schema".to_owned(), false)
        ]
    );
    for missing in ["db://app/table/audit_secrets", "db://app/table/nope"] {
        let error = engine
            .list_directory(&Principal::anonymous(), &uri(missing), None)
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("not a directory"),
            "{missing}: {error}"
        );
    }
}

#[tokio::test]
async fn schemas_hide_and_flag_sensitive_columns() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(&database(dir.path()), |_| {}).await;
    let engine = engine(&provider);
    let users = read(&engine, "db://app/table/users/schema").await.unwrap();
    let columns: Vec<&str> = users["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|column| column["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["id", "name", "email", "phone", "bio"]);
    assert_eq!(users["columns"][2]["masked"], true);
    assert_eq!(users["columns"][1]["notNull"], true);
    assert_eq!(users["columns"][4]["default"], "'none'");
    assert_eq!(users["rowsKeyedBy"], "id");
    let orders = read(&engine, "db://app/table/orders/schema").await.unwrap();
    assert_eq!(
        orders["foreignKeys"],
        json!([{"columns": ["user_id"], "table": "users", "to": ["id"]}])
    );
    assert_eq!(orders["indexes"][0]["name"], "orders_by_user");
    assert_eq!(
        read(&engine, "db://app/table/tags/schema").await.unwrap()["rowsKeyedBy"],
        "rowid"
    );
    let all = read(&engine, "db://app/schema").await.unwrap();
    let text = all.to_string();
    assert!(
        !text.contains("password") && !text.contains("api_token") && !text.contains("audit"),
        "{text}"
    );
    assert!(
        read(&engine, "db://app/table/audit_secrets/schema")
            .await
            .is_err()
    );
}

#[tokio::test]
async fn rows_are_masked_keyed_and_paged_while_rows_are_inserted() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let provider = provider(&path, |_| {}).await;
    let engine = engine(&provider);
    let one = read(&engine, "db://app/table/users/row/1").await.unwrap();
    assert_eq!(
        one["values"],
        json!({"id": 1, "name": "Zhang", "email": "z***@example.com", "phone": "138****8000", "bio": "none"})
    );
    assert!(!one.to_string().contains("hash-one") && !one.to_string().contains("tok-one"));
    for missing in [
        "db://app/table/users/row/3",
        "db://app/table/users/row/abc",
        "db://app/table/nope/row/1",
    ] {
        assert!(
            matches!(
                read(&engine, missing).await,
                Err(ReadError::NotFound { .. })
            ),
            "{missing}"
        );
    }
    let kv = read(&engine, "db://app/table/kv/row/a%2Fb").await.unwrap();
    assert_eq!(kv["values"]["v"], json!({"base64": "AP8=", "size": 2}));

    // 100 more users; pages of 7, with rows inserted behind and ahead of the page between reads.
    let writer = Connection::open(&path).unwrap();
    for id in 3..=102 {
        writer
            .execute(
                "INSERT INTO users (id, name) VALUES (?1, 'user')",
                [id * 10],
            )
            .unwrap();
    }
    let before: BTreeSet<String> = std::iter::once("1".to_owned())
        .chain(std::iter::once("2".to_owned()))
        .chain((3..=102).map(|id| (id * 10).to_string()))
        .collect();
    let mut seen = Vec::new();
    let mut next = Some("db://app/table/users/rows?limit=7".to_owned());
    let mut page_number = 0;
    while let Some(page_uri) = next {
        let page = read(&engine, &page_uri).await.unwrap();
        assert_eq!(
            page["columns"],
            json!(["id", "name", "email", "phone", "bio"])
        );
        for row in page["rows"].as_array().unwrap() {
            seen.push(row["key"].as_str().unwrap().to_owned());
            assert!(!row.to_string().contains("hash"), "{row}");
        }
        page_number += 1;
        writer
            .execute(
                "INSERT INTO users (id, name) VALUES (?1, 'behind'), (?2, 'ahead')",
                [page_number * 10 + 5, 2000 + page_number],
            )
            .unwrap();
        next = page["next"].as_str().map(str::to_owned);
        assert!(page_number < 100, "the pages never end");
    }
    let unique: BTreeSet<String> = seen.iter().cloned().collect();
    assert_eq!(unique.len(), seen.len(), "a row came twice");
    assert!(
        before.is_subset(&unique),
        "a row that was there throughout was skipped"
    );
    let numbers: Vec<i64> = seen.iter().map(|key| key.parse().unwrap()).collect();
    assert!(
        numbers.windows(2).all(|pair| pair[0] < pair[1]),
        "key order"
    );

    let bad = read(&engine, "db://app/table/users/rows?limit=100000")
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("limit"), "{bad}");
    let tags = read(&engine, "db://app/table/tags/rows").await.unwrap();
    assert_eq!(tags["rows"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn budgets_cut_pages_and_values_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let writer = Connection::open(&path).unwrap();
    writer
        .execute("UPDATE users SET bio = ?1 WHERE id = 1", ["ü".repeat(100)])
        .unwrap();
    let provider = provider(&path, |config| {
        config.max_value_bytes = 11;
        config.max_answer_bytes = 400;
    })
    .await;
    let engine = engine(&provider);
    let one = read(&engine, "db://app/table/users/row/1").await.unwrap();
    assert_eq!(one["values"]["bio"], "üüüüü");
    assert_eq!(
        one["cut"],
        json!(["email", "bio"]),
        "a masked value is cut after masking"
    );
    for id in 3..50 {
        writer
            .execute(
                "INSERT INTO users (id, name) VALUES (?1, 'someone with a name')",
                [id],
            )
            .unwrap();
    }
    let page = read(&engine, "db://app/table/users/rows?limit=40")
        .await
        .unwrap();
    assert_eq!(page["cut"], true, "{page}");
    let shown = page["rows"].as_array().unwrap().len();
    assert!((1..40).contains(&shown), "{shown}");
    assert!(page["next"].as_str().unwrap().contains("after="), "{page}");
}

#[tokio::test]
async fn completion_proposes_tables_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(&database(dir.path()), |_| {}).await;
    let engine = engine(&provider);
    let complete = |variable: &'static str,
                    prefix: &'static str,
                    context: Vec<(&'static str, &'static str)>| {
        let engine = &engine;
        async move {
            let context: Variables = context.into_iter().collect();
            engine
                .complete(
                    &Principal::anonymous(),
                    "db://{database}/table/{table}/row/{key}",
                    variable,
                    prefix,
                    &context,
                )
                .await
                .unwrap()
                .values
        }
    };
    assert_eq!(complete("database", "a", vec![]).await, ["app"]);
    assert_eq!(
        complete("table", "", vec![("database", "app")]).await,
        ["kv", "orders", "tags", "users"]
    );
    assert_eq!(
        complete("table", "au", vec![("database", "app")]).await,
        Vec::<String>::new()
    );
    assert_eq!(
        complete("key", "1", vec![("database", "app"), ("table", "orders")]).await,
        ["10", "11"]
    );
    assert_eq!(
        complete("key", "p", vec![("database", "app"), ("table", "kv")]).await,
        ["plain"]
    );
}

#[tokio::test]
async fn a_file_that_is_no_database_is_a_clear_start_up_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not.db");
    std::fs::write(
        &path,
        "this is not a database, just text that is long enough to matter",
    )
    .unwrap();
    let error = SqlProvider::open(SqlConfig::new([DbConfig::sqlite("app", &path)]))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("\"app\" could not be opened"),
        "{error}"
    );
    let missing = SqlProvider::open(SqlConfig::new([DbConfig::sqlite(
        "app",
        dir.path().join("missing.db"),
    )]))
    .await;
    assert!(missing.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_by_another_connection_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let provider = provider(&path, |config| config.poll = Duration::from_millis(50)).await;
    let mut watcher = provider.watch().await;
    let writer = Connection::open(&path).unwrap();
    writer
        .execute("UPDATE orders SET note = 'changed' WHERE id = 10", [])
        .unwrap();
    let mut updated = BTreeSet::new();
    while let Ok(Some(change)) =
        tokio::time::timeout(Duration::from_secs(5), watcher.next_change()).await
    {
        if let Change::Updated(uri) = change {
            updated.insert(uri.as_str().to_owned());
        }
        if updated.contains("db://app/table/orders/rows") {
            break;
        }
    }
    assert!(
        updated.contains("db://app/table/orders/rows"),
        "{updated:?}"
    );
    writer
        .execute("CREATE TABLE fresh (id INTEGER PRIMARY KEY)", [])
        .unwrap();
    let created = loop {
        match tokio::time::timeout(Duration::from_secs(5), watcher.next_change()).await {
            Ok(Some(Change::ListChanged { created, .. })) => break created,
            Ok(Some(Change::Updated(_))) => continue,
            other => panic!("no list change: {other:?}"),
        }
    };
    assert_eq!(
        created.iter().map(ResourceUri::as_str).collect::<Vec<_>>(),
        ["db://app/table/fresh/schema"]
    );
}

/// A database built for the hostile cases: keys that are sensitive, virtual tables, keys of
/// every storage class, names that look sensitive, schema entries that name hidden columns.
fn awkward(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("awkward.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE people (national_id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO people VALUES (110101199003074534, 'Zhang');
             CREATE TABLE creds (secret_pin INTEGER PRIMARY KEY, owner TEXT);
             INSERT INTO creds VALUES (987654, 'ada');
             CREATE VIRTUAL TABLE notes USING fts5(body, password);
             INSERT INTO notes VALUES ('hello', 'hunter2');
             CREATE TABLE mixed (k PRIMARY KEY, v TEXT);
             INSERT INTO mixed VALUES (1, 'a'), (2, 'b'), (3, 'c'), ('1', 'd'), ('b&limit=1', 'e'),
               (2.5, 'f'), (NULL, 'g'), (NULL, 'h');
             CREATE TABLE tokens (id INTEGER PRIMARY KEY, label TEXT, \
               double INTEGER GENERATED ALWAYS AS (id * 2) VIRTUAL);
             INSERT INTO tokens VALUES (1, 'kept');
             CREATE TABLE users (id INTEGER PRIMARY KEY, password_hash TEXT, \
               pw_upper TEXT GENERATED ALWAYS AS (upper(password_hash)) VIRTUAL);
             CREATE INDEX users_by_pw ON users(lower(password_hash));
             CREATE TABLE refs (id INTEGER PRIMARY KEY, pw TEXT REFERENCES users(password_hash));",
        )
        .unwrap();
    path
}

#[tokio::test]
async fn sensitive_keys_virtual_tables_and_schema_names_never_leak() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(&awkward(dir.path()), |_| {}).await;
    let engine = engine(&provider);
    // A masked or hidden INTEGER PRIMARY KEY is the rowid: the table is schema-only.
    for table in ["people", "creds"] {
        let schema = read(&engine, &format!("db://app/table/{table}/schema"))
            .await
            .unwrap();
        assert_eq!(schema["rowsKeyedBy"], Value::Null, "{schema}");
        assert!(
            read(&engine, &format!("db://app/table/{table}/rows"))
                .await
                .is_err()
        );
        assert!(
            read(&engine, &format!("db://app/table/{table}/row/987654"))
                .await
                .is_err()
        );
    }
    // No virtual table, no shadow table.
    let all = read(&engine, "db://app/schema").await.unwrap().to_string();
    assert!(!all.contains("notes") && !all.contains("hunter2"), "{all}");
    // Sensitive-looking table names keep their columns; generated columns are there, but
    // not in a table with hidden columns: they could be computed from them.
    let tokens = read(&engine, "db://app/table/tokens/row/1").await.unwrap();
    assert_eq!(
        tokens["values"],
        json!({"id": 1, "label": "kept", "double": 2})
    );
    let users = read(&engine, "db://app/table/users/schema").await.unwrap();
    assert_eq!(users["columns"].as_array().unwrap().len(), 1, "{users}");
    assert!(
        users.get("indexes").is_none(),
        "an index over an expression is not shown: {users}"
    );
    let refs = read(&engine, "db://app/table/refs/schema").await.unwrap();
    assert!(
        refs.get("foreignKeys").is_none(),
        "a key into a hidden column: {refs}"
    );
}

#[tokio::test]
async fn keys_of_every_storage_class_page_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(&awkward(dir.path()), |_| {}).await;
    let engine = engine(&provider);
    let mut keys = Vec::new();
    let mut next = Some("db://app/table/mixed/rows?limit=1".to_owned());
    while let Some(page_uri) = next {
        let page = read(&engine, &page_uri)
            .await
            .unwrap_or_else(|error| panic!("{page_uri}: {error}"));
        keys.extend(
            page["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row["key"].as_str().unwrap().to_owned()),
        );
        next = page["next"].as_str().map(str::to_owned);
        assert!(keys.len() < 20, "{keys:?}");
    }
    // SQLite's order: numbers (integers and reals together), then texts; NULL keys left out.
    assert_eq!(keys, ["1", "2", "2.5", "3", "1", "b&limit=1"]);
    assert_eq!(
        read(&engine, "db://app/table/mixed/row/2.5").await.unwrap()["values"]["v"],
        "f"
    );
    assert_eq!(
        read(&engine, "db://app/table/mixed/row/b&limit=1")
            .await
            .unwrap()["values"]["v"],
        "e"
    );
    // One spelling per row, the one listed: an `&` encoded that need not be is no other name.
    assert!(matches!(
        read(&engine, "db://app/table/mixed/row/b%26limit=1").await,
        Err(ReadError::NotFound { .. })
    ));
}

/// The shop of the seeds: orders by tenant, read through named queries.
fn shop(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("shop.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, tenant TEXT, status TEXT, \
               buyer_email TEXT, card_token TEXT);
             INSERT INTO orders VALUES (1001, 'acme', 'pending', 'zhang@example.com', 'tok_1'),
               (1002, 'acme', 'shipped', 'ada@example.com', 'tok_2'),
               (2001, 'globex', 'pending', 'bob@example.com', 'tok_3');",
        )
        .unwrap();
    path
}

fn named(
    name: &str,
    uri: &str,
    sql: &str,
    params: &[&str],
    one_row: bool,
) -> mcp_resources_sql::NamedQuery {
    mcp_resources_sql::NamedQuery {
        name: name.to_owned(),
        uri: uri.to_owned(),
        sql: sql.to_owned(),
        params: params.iter().map(|param| (*param).to_owned()).collect(),
        one_row,
        complete: vec![(
            "id".to_owned(),
            "SELECT id FROM orders WHERE tenant = ?2 AND CAST(id AS TEXT) LIKE ?1 || '%'"
                .to_owned(),
        )],
    }
}

#[tokio::test]
async fn named_queries_bind_the_principal_and_mask_what_they_select() {
    let dir = tempfile::tempdir().unwrap();
    let mut database = DbConfig::sqlite("shop", shop(dir.path()));
    database.queries = vec![named(
        "order",
        "orders://tenant/{tenant}/order/{id}",
        "SELECT * FROM orders WHERE tenant = ?1 AND tenant = ?2 AND id = ?3",
        &["tenant", "$subject", "id:integer"],
        true,
    )];
    let provider = SqlProvider::open(SqlConfig::new([database])).await.unwrap();
    let engine = engine(&provider);
    let acme = Principal::subject("acme");
    let read_as = |principal: &Principal, text: &str| {
        let engine = &engine;
        let principal = principal.clone();
        let text = text.to_owned();
        async move {
            let read = engine.read(&principal, &uri(&text)).await?;
            let Body::Text(body) = &read.contents[0].body else {
                panic!("text");
            };
            Ok::<Value, ReadError>(serde_json::from_str(body).unwrap())
        }
    };
    let order = read_as(&acme, "orders://tenant/acme/order/1001")
        .await
        .unwrap();
    assert_eq!(
        order,
        json!({"query": "order", "values": {"id": 1001, "tenant": "acme", "status": "pending", "buyer_email": "z***@example.com"}})
    );
    for (principal, uri) in [
        (
            Principal::subject("acme"),
            "orders://tenant/globex/order/2001",
        ),
        (Principal::anonymous(), "orders://tenant/acme/order/1001"),
        (
            Principal::subject("acme"),
            "orders://tenant/acme/order/9999",
        ),
        (Principal::subject("acme"), "orders://tenant/acme/order/abc"),
    ] {
        let error = read_as(&principal, uri).await.unwrap_err();
        assert!(
            matches!(error, ReadError::NotFound { .. }),
            "{uri}: {error}"
        );
    }
    let mut templates = Vec::new();
    let mut cursor = None;
    loop {
        let page = engine
            .list_templates(&acme, cursor.as_deref())
            .await
            .unwrap();
        templates.extend(
            page.items
                .iter()
                .map(|template| template.uri_template.as_str().to_owned()),
        );
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert!(
        templates.contains(&"orders://tenant/{tenant}/order/{id}".to_owned()),
        "{templates:?}"
    );
    let context: Variables = [("tenant", "acme")].into_iter().collect();
    let ids = engine
        .complete(
            &acme,
            "orders://tenant/{tenant}/order/{id}",
            "id",
            "10",
            &context,
        )
        .await
        .unwrap()
        .values;
    assert_eq!(ids, ["1001", "1002"]);
}

#[tokio::test]
async fn a_named_query_that_could_write_or_stack_statements_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = shop(dir.path());
    for (sql, reason) in [
        (
            "SELECT * FROM orders WHERE id = ?1; DELETE FROM orders",
            "does not prepare",
        ),
        ("DELETE FROM orders WHERE id = ?1", "not authorized"),
        (
            "SELECT * FROM orders WHERE id = ?1 AND tenant = ?2",
            "takes 2 parameters",
        ),
    ] {
        let mut database = DbConfig::sqlite("shop", &path);
        database.queries = vec![named("bad", "orders://{id}", sql, &["id"], false)];
        let error = SqlProvider::open(SqlConfig::new([database]))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains(reason), "{sql}: {error}");
    }
    let mut database = DbConfig::sqlite("shop", &path);
    database.queries = vec![named("bad", "orders://{id}", "SELECT 1", &["nope"], false)];
    assert!(SqlProvider::open(SqlConfig::new([database])).await.is_err());
    let count: i64 = Connection::open(&path)
        .unwrap()
        .query_row("SELECT count(*) FROM orders", [], |row| row.get(0))
        .unwrap();
    assert_eq!(count, 3, "nothing was deleted");
}
