//! What the SQL provider serves from a real PostgreSQL server (`.ci/postgres` starts one and
//! prints `MCP_TEST_POSTGRES`): schemas with hidden and masked columns, rows of many types,
//! pages while rows are inserted, named queries bound to the principal, every write refused
//! by the server, changes heard by polling and by the documented trigger, and recovery when
//! the server drops the connections. Each test makes a database of its own.
//!
//! Without `MCP_TEST_POSTGRES` these tests say so on stderr and pass, outside CI; under
//! `CI=true` they fail.

use std::collections::BTreeSet;
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
use mcp_resources_sql::{DbConfig, NamedQuery, SqlConfig, SqlProvider};
use serde_json::{Value, json};
use tokio_postgres::{Client, NoTls};

/// A database of its own on the test server, and an owner's connection to it.
struct Database {
    url: String,
    password: Option<String>,
    owner: Client,
}

/// Connects with `url` and `password`, the connection driven by a task.
async fn connect(url: &str, password: Option<&str>) -> Client {
    let mut config: tokio_postgres::Config = url.parse().unwrap();
    if let Some(password) = password {
        config.password(password);
    }
    let (client, connection) = config.connect(NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}

/// A fresh database named after `test`, or `None` (said loudly) when no server is given.
async fn database(test: &str) -> Option<Database> {
    let Ok(url) = std::env::var("MCP_TEST_POSTGRES") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "MCP_TEST_POSTGRES is not set under CI: .ci/postgres starts a server"
        );
        eprintln!(
            "SKIPPED {test}: MCP_TEST_POSTGRES is not set (run `eval \"$(.ci/postgres)\"` first)"
        );
        return None;
    };
    let password = std::env::var("MCP_TEST_POSTGRES_PASSWORD").ok();
    let admin = connect(&url, password.as_deref()).await;
    let name = format!("mcp_{test}_{}", std::process::id());
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .await
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let (base, _) = url.rsplit_once('/').unwrap();
    let url = format!("{base}/{name}");
    let owner = connect(&url, password.as_deref()).await;
    Some(Database {
        url,
        password,
        owner,
    })
}

impl Database {
    fn config(&self) -> DbConfig {
        DbConfig::postgres("app", &self.url, self.password.clone())
    }
}

const SHOP: &str = "
    CREATE TABLE users (id bigint PRIMARY KEY, name text NOT NULL, email text, phone text,
      password_hash text, api_token text, bio text DEFAULT 'none', active boolean,
      avatar bytea, prefs jsonb, created timestamptz DEFAULT '2026-01-02 03:04:05+00');
    CREATE TABLE orders (id integer PRIMARY KEY, user_id bigint REFERENCES users(id),
      tenant text NOT NULL, total numeric(10, 2), buyer_email text);
    CREATE INDEX orders_by_user ON orders (user_id);
    CREATE TABLE tags (a text, b text, PRIMARY KEY (a, b));
    CREATE TABLE docs (slug text PRIMARY KEY, body text);
    CREATE TABLE audit_secrets (x text);
    CREATE SEQUENCE counter;
    INSERT INTO users (id, name, email, phone, password_hash, api_token, active, avatar, prefs)
      VALUES (1, 'Zhang', 'zhang@example.com', '13800138000', 'hash-one', 'tok-one', true,
              '\\x00ff', '{\"theme\": \"dark\"}'),
             (2, 'Ada', 'ada@example.com', '13900139000', 'hash-two', 'tok-two', false, NULL, NULL);
    INSERT INTO orders VALUES (1001, 1, 'acme', 9.50, 'zhang@example.com'),
      (1002, 1, 'acme', 20.00, 'zhang@example.com'), (2001, 2, 'globex', 5.00, 'ada@example.com');
    INSERT INTO tags VALUES ('x', 'y');
    INSERT INTO docs VALUES ('a/b', 'slashed'), ('plain', 'text');
    INSERT INTO audit_secrets VALUES ('never');
";

fn engine(provider: &SqlProvider) -> Engine {
    Engine::builder(CursorKey::new([6; 32]))
        .limits(Limits {
            page_size: 50.try_into().unwrap(),
            ..Limits::default()
        })
        .provider(Arc::new(provider.clone()))
        .build()
        .unwrap()
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap()
}

async fn read_as(engine: &Engine, principal: &Principal, text: &str) -> Result<Value, ReadError> {
    let read = engine.read(principal, &uri(text)).await?;
    let Body::Text(body) = &read.contents[0].body else {
        panic!("{text} is text");
    };
    Ok(serde_json::from_str(body).unwrap())
}

async fn read(engine: &Engine, text: &str) -> Result<Value, ReadError> {
    read_as(engine, &Principal::anonymous(), text).await
}

async fn listed(engine: &Engine) -> Vec<String> {
    let page = engine
        .list_resources(&Principal::anonymous(), None)
        .await
        .unwrap();
    assert!(page.next_cursor.is_none());
    page.items
        .iter()
        .map(|item| item.uri.as_str().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_tables_schemas_and_rows_leave_masked() {
    let Some(database) = database("rows").await else {
        return;
    };
    database.owner.batch_execute(SHOP).await.unwrap();
    let mut config = database.config();
    config.deny_tables = vec!["audit_*".to_owned()];
    let provider = SqlProvider::open(SqlConfig::new([config])).await.unwrap();
    let engine = engine(&provider);

    assert_eq!(
        listed(&engine).await,
        [
            "db://app/schema",
            "db://app/table/docs/schema",
            "db://app/table/orders/schema",
            "db://app/table/tags/schema",
            "db://app/table/users/schema",
        ]
    );
    let users = read(&engine, "db://app/table/users/schema").await.unwrap();
    let columns: Vec<&str> = users["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|column| column["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        columns,
        [
            "id", "name", "email", "phone", "bio", "active", "avatar", "prefs", "created"
        ]
    );
    assert_eq!(users["columns"][0]["type"], "bigint");
    assert_eq!(users["columns"][2]["masked"], true);
    assert_eq!(users["rowsKeyedBy"], "id");
    let orders = read(&engine, "db://app/table/orders/schema").await.unwrap();
    assert_eq!(
        orders["foreignKeys"],
        json!([{"columns": ["user_id"], "table": "users", "to": ["id"]}])
    );
    assert!(
        orders["indexes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|index| index["name"] == "orders_by_user")
    );
    let tags = read(&engine, "db://app/table/tags/schema").await.unwrap();
    assert_eq!(tags["rowsKeyedBy"], Value::Null);
    assert_eq!(tags["primaryKey"], json!(["a", "b"]));

    let zhang = read(&engine, "db://app/table/users/row/1").await.unwrap();
    assert_eq!(
        zhang["values"],
        json!({
            "id": 1, "name": "Zhang", "email": "z***@example.com", "phone": "138****8000",
            "bio": "none", "active": true, "avatar": {"base64": "AP8=", "size": 2},
            "prefs": "{\"theme\": \"dark\"}", "created": "2026-01-02 03:04:05+00"
        })
    );
    let slashed = read(&engine, "db://app/table/docs/row/a%2Fb")
        .await
        .unwrap();
    assert_eq!(slashed["values"]["body"], "slashed");
    let orders = read(&engine, "db://app/table/orders/rows").await.unwrap();
    assert_eq!(
        orders["rows"][0]["values"],
        json!([1001, 1, "acme", "9.50", "z***@example.com"])
    );

    // Missing rows, keys of the wrong type, a schema-only table, a denied table: not found.
    for missing in [
        "db://app/table/users/row/99",
        "db://app/table/users/row/abc",
        "db://app/table/users/row/99999999999999999999999",
        "db://app/table/tags/rows",
        "db://app/table/audit_secrets/schema",
        "db://app/table/nope/rows",
    ] {
        let error = read(&engine, missing).await.unwrap_err();
        assert!(
            matches!(error, ReadError::NotFound { .. }),
            "{missing}: {error}"
        );
    }
    let transcript = format!(
        "{} {} {}",
        read(&engine, "db://app/schema").await.unwrap(),
        read(&engine, "db://app/table/users/rows").await.unwrap(),
        read(&engine, "db://app/table/users/row/2").await.unwrap()
    );
    for secret in [
        "hash-one",
        "tok-two",
        "password_hash",
        "api_token",
        "zhang@example.com",
        "13900139000",
    ] {
        assert!(
            !transcript.contains(secret),
            "{secret} leaked: {transcript}"
        );
    }

    let keys = engine
        .complete(
            &Principal::anonymous(),
            "db://{database}/table/{table}/row/{key}",
            "key",
            "p",
            &[("database", "app"), ("table", "docs")]
                .into_iter()
                .collect::<Variables>(),
        )
        .await
        .unwrap()
        .values;
    assert_eq!(keys, ["plain"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_pages_skip_and_repeat_nothing_while_rows_are_inserted() {
    let Some(database) = database("pages").await else {
        return;
    };
    database
        .owner
        .batch_execute(
            "CREATE TABLE items (id integer PRIMARY KEY, label text);
             INSERT INTO items SELECT n * 10, 'item ' || n FROM generate_series(1, 100) n;",
        )
        .await
        .unwrap();
    let provider = SqlProvider::open(SqlConfig::new([database.config()]))
        .await
        .unwrap();
    let engine = engine(&provider);
    let mut seen = Vec::new();
    let mut next = Some("db://app/table/items/rows?limit=7".to_owned());
    let mut round = 0;
    while let Some(page) = next {
        let value = read(&engine, &page).await.unwrap();
        for row in value["rows"].as_array().unwrap() {
            seen.push(row["key"].as_str().unwrap().parse::<i64>().unwrap());
        }
        // Between pages: a row behind the walk and one far ahead of it.
        round += 1;
        database
            .owner
            .execute(
                "INSERT INTO items VALUES ($1, 'behind'), ($2, 'ahead')",
                &[&(round * 10 - 5), &(5000 + round)],
            )
            .await
            .unwrap();
        next = value["next"].as_str().map(str::to_owned);
    }
    let sorted: Vec<i64> = {
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        sorted.dedup();
        sorted
    };
    assert_eq!(sorted, seen, "in key order, each once");
    for id in (1..=100).map(|n| n * 10) {
        assert!(seen.contains(&id), "{id} was skipped");
    }
}

fn named(name: &str, uri: &str, sql: &str, params: &[&str]) -> NamedQuery {
    NamedQuery {
        name: name.to_owned(),
        uri: uri.to_owned(),
        sql: sql.to_owned(),
        params: params.iter().map(|param| (*param).to_owned()).collect(),
        one_row: true,
        complete: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_named_queries_bind_the_principal_and_every_write_is_refused() {
    let Some(database) = database("queries").await else {
        return;
    };
    database.owner.batch_execute(SHOP).await.unwrap();
    // Refused at start: stacked statements, writes, writes hidden in a CTE.
    for (sql, reason) in [
        ("SELECT 1; DELETE FROM orders", "does not prepare"),
        (
            "SELECT * FROM orders WHERE id = $1; COMMIT; DROP TABLE orders",
            "does not prepare",
        ),
        ("DELETE FROM orders WHERE id = $1", "is not read-only"),
        (
            "UPDATE orders SET total = 0 WHERE id = $1 RETURNING id",
            "is not read-only",
        ),
        (
            "WITH gone AS (DELETE FROM orders WHERE id = $1 RETURNING id) SELECT * FROM gone",
            "is not read-only",
        ),
        (
            "SELECT * FROM orders WHERE id = $1 AND tenant = $2",
            "takes 2 parameters",
        ),
        (
            "SELECT id FROM orders WHERE $1::uuid IS NOT NULL",
            "of type uuid",
        ),
        (
            "SELECT id, total FROM orders WHERE id = $1",
            "cast it to text",
        ),
    ] {
        let mut config = database.config();
        config.queries = vec![named("bad", "orders://{id}", sql, &["id"])];
        let Err(error) = SqlProvider::open(SqlConfig::new([config])).await else {
            panic!("{sql} was taken");
        };
        let error = error.to_string();
        assert!(error.contains(reason), "{sql}: {error}");
    }
    let mut config = database.config();
    config.queries = vec![
        NamedQuery {
            complete: vec![(
                "id".to_owned(),
                "SELECT id FROM orders WHERE tenant = $2 AND id::text LIKE $1 || '%' ORDER BY id"
                    .to_owned(),
            )],
            ..named(
                "order",
                "orders://tenant/{tenant}/order/{id}",
                "SELECT id, tenant, total::text AS total, buyer_email FROM orders \
                 WHERE tenant = $1 AND tenant = $2 AND id = $3",
                &["tenant", "$subject", "id:integer"],
            )
        },
        // Reads that try to write through functions: they prepare, and fail when run.
        named(
            "bump",
            "counter://{x}",
            "SELECT nextval('counter') WHERE $1::text IS NOT NULL",
            &["x"],
        ),
        named(
            "unlock",
            "unlock://{x}",
            "SELECT set_config('default_transaction_read_only', 'off', false) WHERE $1::text IS NOT NULL",
            &["x"],
        ),
        named(
            "mode",
            "mode://{x}",
            "SELECT current_setting('transaction_read_only') AS mode WHERE $1::text IS NOT NULL",
            &["x"],
        ),
    ];
    let provider = SqlProvider::open(SqlConfig::new([config])).await.unwrap();
    let engine = engine(&provider);
    let acme = Principal::subject("acme");
    let order = read_as(&engine, &acme, "orders://tenant/acme/order/1001")
        .await
        .unwrap();
    assert_eq!(
        order,
        json!({"query": "order", "values": {"id": 1001, "tenant": "acme", "total": "9.50", "buyer_email": "z***@example.com"}})
    );
    for (principal, text) in [
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
        (
            Principal::subject("acme"),
            "orders://tenant/acme/order/99999999999",
        ),
    ] {
        let error = read_as(&engine, &principal, text).await.unwrap_err();
        assert!(
            matches!(error, ReadError::NotFound { .. }),
            "{text}: {error}"
        );
    }
    let ids = engine
        .complete(
            &acme,
            "orders://tenant/{tenant}/order/{id}",
            "id",
            "10",
            &[("tenant", "acme")].into_iter().collect::<Variables>(),
        )
        .await
        .unwrap()
        .values;
    assert_eq!(ids, ["1001", "1002"]);

    assert!(read(&engine, "counter://x").await.is_err(), "nextval ran");
    // The setting a function changed is rolled back with its transaction.
    let _ = read(&engine, "unlock://x").await;
    for _ in 0..8 {
        let mode = read(&engine, "mode://x").await.unwrap();
        assert_eq!(mode["values"]["mode"], "on");
    }
    let counter: i64 = database
        .owner
        .query_one("SELECT last_value FROM counter", &[])
        .await
        .unwrap()
        .get(0);
    let called: bool = database
        .owner
        .query_one("SELECT is_called FROM counter", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!((counter, called), (1, false), "the sequence never moved");
    let count: i64 = database
        .owner
        .query_one("SELECT count(*) FROM orders", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(count, 3);
}

/// The next change of `watcher` that satisfies `wanted`, within 15 s.
async fn heard(
    watcher: &mut mcp_resources_sql::SqlWatcher,
    wanted: impl Fn(&Change) -> bool,
) -> Change {
    tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            let change = watcher.next_change().await.expect("the watcher runs");
            if wanted(&change) {
                return change;
            }
        }
    })
    .await
    .expect("the change was heard in time")
}

fn updated(expected: &str) -> impl Fn(&Change) -> bool + '_ {
    move |change| matches!(change, Change::Updated(uri) if uri.as_str() == expected)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_changes_are_heard_by_polling_and_by_the_trigger_row_by_row() {
    let Some(database) = database("changes").await else {
        return;
    };
    database.owner.batch_execute(SHOP).await.unwrap();
    // The trigger on orders, as the README tells an owner to install it.
    database
        .owner
        .batch_execute(mcp_resources_sql::NOTIFY_TRIGGER_SQL)
        .await
        .unwrap();
    database
        .owner
        .batch_execute(&mcp_resources_sql::notify_trigger("public.orders", "id"))
        .await
        .unwrap();
    let mut config = SqlConfig::new([database.config()]);
    config.poll = Duration::from_millis(100);
    let provider = SqlProvider::open(config).await.unwrap();
    let mut watcher = provider.watch().await;

    // Orders has the trigger: the row that changed is named, under its old and new keys.
    database
        .owner
        .batch_execute("UPDATE orders SET total = 1 WHERE id = 1002")
        .await
        .unwrap();
    heard(&mut watcher, updated("db://app/table/orders/row/1002")).await;
    database
        .owner
        .batch_execute("UPDATE orders SET id = 1003 WHERE id = 1002")
        .await
        .unwrap();
    let mut keys = BTreeSet::new();
    while keys.len() < 2 {
        if let Change::Updated(uri) = heard(&mut watcher, |change| {
            matches!(change, Change::Updated(uri) if uri.as_str().contains("/orders/row/"))
        })
        .await
        {
            keys.insert(uri.as_str().to_owned());
        }
    }
    assert_eq!(
        keys,
        BTreeSet::from([
            "db://app/table/orders/row/1002".to_owned(),
            "db://app/table/orders/row/1003".to_owned()
        ])
    );

    // Users has none: the statistics say that the table changed (a writer that disconnects
    // reports its counts at once).
    let writer = connect(&database.url, database.password.as_deref()).await;
    writer
        .batch_execute("UPDATE users SET bio = 'changed' WHERE id = 2")
        .await
        .unwrap();
    drop(writer);
    heard(&mut watcher, updated("db://app/table/users/rows")).await;

    // A new table is a list change.
    database
        .owner
        .batch_execute("CREATE TABLE fresh (id integer PRIMARY KEY)")
        .await
        .unwrap();
    let change = heard(&mut watcher, |change| {
        matches!(change, Change::ListChanged { .. })
    })
    .await;
    let Change::ListChanged { created, .. } = change else {
        unreachable!()
    };
    assert_eq!(created, [uri("db://app/table/fresh/schema")]);

    // The listening connection dropped: orders (with its trigger) is still polled.
    database
        .owner
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        )
        .await
        .unwrap();
    let writer = connect(&database.url, database.password.as_deref()).await;
    writer
        .batch_execute("UPDATE orders SET total = 2 WHERE id = 1001")
        .await
        .unwrap();
    drop(writer);
    heard(&mut watcher, updated("db://app/table/orders/rows")).await;

    // Dropping the watcher ends its listening connection.
    drop(watcher);
    let mut listening = 1;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        listening = database
            .owner
            .query_one(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE datname = current_database() AND query LIKE 'LISTEN%'",
                &[],
            )
            .await
            .unwrap()
            .get::<_, i64>(0);
        if listening == 0 {
            break;
        }
    }
    assert_eq!(listening, 0, "the LISTEN connection outlived its watcher");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connections_that_the_server_drops_are_opened_again() {
    let Some(database) = database("recover").await else {
        return;
    };
    database.owner.batch_execute(SHOP).await.unwrap();
    let provider = SqlProvider::open(SqlConfig::new([database.config()]))
        .await
        .unwrap();
    let engine = engine(&provider);
    assert!(read(&engine, "db://app/table/users/row/1").await.is_ok());
    for round in 0..3 {
        database
            .owner
            .batch_execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE application_name = 'mcp-resources' AND datname = current_database()",
            )
            .await
            .unwrap();
        // A request may meet a dropped connection (an error, never a hang); the next ones
        // connect again.
        let _ = tokio::time::timeout(
            Duration::from_secs(15),
            read(&engine, "db://app/table/users/row/2"),
        )
        .await
        .expect("no hang");
        let mut answered = false;
        for _ in 0..8 {
            if read(&engine, "db://app/table/users/row/2").await.is_ok() {
                answered = true;
                break;
            }
        }
        assert!(answered, "round {round}: no recovery");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_rows_never_reach_past_what_is_served() {
    let Some(database) = database("hostile").await else {
        return;
    };
    database
        .owner
        .batch_execute(
            "CREATE TABLE log (id integer PRIMARY KEY, msg text);
             CREATE TABLE log_denied () INHERITS (log);
             INSERT INTO log VALUES (1, 'public');
             INSERT INTO log_denied VALUES (2, 'denied child');
             CREATE SCHEMA elsewhere;
             CREATE TABLE parted (id integer PRIMARY KEY, v text) PARTITION BY RANGE (id);
             CREATE TABLE elsewhere.parted_a PARTITION OF parted FOR VALUES FROM (0) TO (100);
             CREATE TABLE parts (id integer PRIMARY KEY, v text) PARTITION BY RANGE (id);
             CREATE TABLE parts_a PARTITION OF parts FOR VALUES FROM (0) TO (100);
             INSERT INTO parts VALUES (1, 'in a partition');
             CREATE TABLE codes (code varchar(3) PRIMARY KEY, v text);
             INSERT INTO codes VALUES ('abc', 'three');
             CREATE TABLE accounts (id bigint PRIMARY KEY, password_hash text,
               pw_upper text GENERATED ALWAYS AS (upper(password_hash)) STORED);
             INSERT INTO accounts (id, password_hash) VALUES (1, 'hunter2');
             CREATE TABLE \"evil\nDROP TABLE codes; --\" (id integer PRIMARY KEY);
             CREATE TABLE items (id integer PRIMARY KEY, a text, b text);
             INSERT INTO items VALUES (1, 'x', 'y');",
        )
        .await
        .unwrap();
    let mut config = database.config();
    config.deny_tables = vec!["log_denied".to_owned()];
    config.queries = vec![
        named(
            "item",
            "items://{id}",
            "SELECT * FROM items WHERE id = $1",
            &["id:integer"],
        ),
        NamedQuery {
            one_row: false,
            ..named(
                "many",
                "many://{n}",
                "SELECT g AS n FROM generate_series(1, $1) g",
                &["n:integer"],
            )
        },
        NamedQuery {
            complete: vec![(
                "a".to_owned(),
                "SELECT 'zhang@example.com' AS email WHERE $1::text IS NOT NULL".to_owned(),
            )],
            ..named(
                "by_a",
                "by-a://{a}",
                "SELECT id FROM items WHERE a = $1",
                &["a"],
            )
        },
    ];
    let mut sql = SqlConfig::new([config]);
    sql.max_page_rows = 50;
    sql.page_rows = 10;
    let provider = SqlProvider::open(sql).await.unwrap();
    let engine = engine(&provider);

    // An inheriting child's rows are not the parent's; a partitioned table whose partition
    // is in another schema is not served; one whose partitions are served is.
    let log = read(&engine, "db://app/table/log/rows").await.unwrap();
    assert_eq!(log["rows"].as_array().unwrap().len(), 1, "{log}");
    assert!(read(&engine, "db://app/table/log/row/2").await.is_err());
    assert!(read(&engine, "db://app/table/parted/schema").await.is_err());
    let parts = read(&engine, "db://app/table/parts/row/1").await.unwrap();
    assert_eq!(parts["values"]["v"], "in a partition");

    // One row, one URI: a key that only casts to a row's key names nothing.
    assert!(read(&engine, "db://app/table/parts/row/01").await.is_err());
    assert!(
        read(&engine, "db://app/table/parts/row/%2B1")
            .await
            .is_err()
    );
    assert!(read(&engine, "db://app/table/codes/row/abc").await.is_ok());
    assert!(
        read(&engine, "db://app/table/codes/row/abcZZZ")
            .await
            .is_err()
    );

    // A column computed from a hidden one is hidden, and so is its expression.
    let accounts = format!(
        "{} {}",
        read(&engine, "db://app/table/accounts/schema")
            .await
            .unwrap(),
        read(&engine, "db://app/table/accounts/row/1")
            .await
            .unwrap()
    );
    for leak in ["HUNTER2", "hunter2", "pw_upper", "password"] {
        assert!(!accounts.contains(leak), "{leak}: {accounts}");
    }

    // A list query stops at the page's rows, said to be cut; completion candidates pass the
    // column rules (an email is masked).
    let many = read(&engine, "many://100000").await.unwrap();
    assert_eq!(many["rows"].as_array().unwrap().len(), 50);
    assert_eq!(many["cut"], true);
    let candidates = engine
        .complete(
            &Principal::anonymous(),
            "by-a://{a}",
            "a",
            "x",
            &Variables::default(),
        )
        .await
        .unwrap()
        .values;
    assert_eq!(candidates, ["z***@example.com"]);

    // The schema follows column changes, and a named query survives them.
    assert_eq!(
        read(&engine, "items://1").await.unwrap()["values"],
        json!({"id": 1, "a": "x", "b": "y"})
    );
    database
        .owner
        .batch_execute("ALTER TABLE items DROP COLUMN b; ALTER TABLE items RENAME COLUMN a TO a2; ALTER TABLE items ADD COLUMN c text DEFAULT 'z'")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let items = read(&engine, "db://app/table/items/row/1").await.unwrap();
    assert_eq!(items["values"], json!({"id": 1, "a2": "x", "c": "z"}));
    assert_eq!(
        read(&engine, "items://1").await.unwrap()["values"],
        json!({"id": 1, "a2": "x", "c": "z"})
    );

    // The trigger SQL names each table in a comment it cannot leave.
    let triggers = provider.notify_trigger_sql().await.unwrap();
    assert!(
        triggers.contains("evil\\nDROP TABLE codes; --"),
        "{triggers}"
    );
    database.owner.batch_execute(&triggers).await.unwrap();
    let codes: i64 = database
        .owner
        .query_one("SELECT count(*) FROM codes", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(codes, 1, "the owner's script dropped nothing");
}
