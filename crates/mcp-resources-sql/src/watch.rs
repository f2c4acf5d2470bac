//! Live databases: a [`ChangeSource`] that polls each database, and listens to PostgreSQL's
//! notifications, and reports what changed.
//!
//! **Layer:** provider (`mcp-resources-sql`). A task of the runtime asks each database every
//! [`SqlConfig::poll`](crate::SqlConfig::poll) what changed: SQLite's `PRAGMA data_version`
//! (which moves when another connection commits, without saying which table), PostgreSQL's
//! statistics (`pg_stat_user_tables`: rows inserted, updated and deleted, by table, a
//! partitioned table's summed). For PostgreSQL tables with the documented trigger
//! ([`NOTIFY_TRIGGER_SQL`](crate::NOTIFY_TRIGGER_SQL)) a connection of its own `LISTEN`s too,
//! and each notification names the row at once; they are polled all the same, so that a
//! change made while that connection was down is not lost. It never knows the subscription
//! hub, the server or a protocol.
//!
//! What is reported: [`Change::Updated`] for the database's schema and each changed table's
//! `rows` and `schema` resources (on SQLite every table, as SQLite does not say which); for a
//! notified row, its `row/KEY` resource and its table's `rows`; when the set of served tables
//! changed, [`Change::ListChanged`] with the tables' schema resources that came and went.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_resources_core::change::{Change, ChangeSource};
use mcp_resources_core::uri::ResourceUri;
use tokio::sync::mpsc::Sender;

use crate::engine::Engine;
use crate::uri::{row_uri, table_uri, uri_of};
use crate::{Database, Shared};

/// The changes of the served databases, as they happen. Dropping it stops the polling and
/// the listening.
pub struct SqlWatcher {
    changes: tokio::sync::mpsc::Receiver<Change>,
}

impl std::fmt::Debug for SqlWatcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("SqlWatcher").finish_non_exhaustive()
    }
}

#[async_trait]
impl ChangeSource for SqlWatcher {
    async fn next_change(&mut self) -> Option<Change> {
        self.changes.recv().await
    }
}

/// What one database looked like at the last poll.
struct Seen {
    activity: Option<BTreeMap<String, i64>>,
    tables: BTreeSet<String>,
}

/// The served tables of `database` now, `None` when its schema cannot be read (then the last
/// known set stands: a busy moment is no reason to say every table went).
async fn tables_of(database: &Database) -> Option<BTreeSet<String>> {
    match database.engine.schema().await {
        Ok(schema) => Some(
            schema
                .tables
                .iter()
                .map(|table| table.name.clone())
                .collect(),
        ),
        Err(error) => {
            tracing::warn!(database = %database.name, %error, "cannot read the schema");
            None
        }
    }
}

impl SqlWatcher {
    pub(crate) async fn start(shared: Arc<Shared>) -> SqlWatcher {
        let (sender, changes) = tokio::sync::mpsc::channel(1024);
        // Read now, so that a commit right after is seen as a change.
        let mut seen = Vec::new();
        for database in &shared.databases {
            seen.push(Seen {
                activity: database.engine.activity().await.ok(),
                tables: tables_of(database).await.unwrap_or_default(),
            });
        }
        for index in 0..shared.databases.len() {
            if matches!(shared.databases[index].engine, Engine::Postgres(_)) {
                // Listening before this returns, as polling has read its first figures: a
                // change right after is heard (or, when the first LISTEN fails, polled).
                let (listening, started) = tokio::sync::oneshot::channel();
                tokio::spawn(listen(
                    Arc::clone(&shared),
                    index,
                    sender.clone(),
                    listening,
                ));
                let _ = started.await;
            }
        }
        tokio::spawn(poll(shared, seen, sender));
        SqlWatcher { changes }
    }
}

/// Polls every database until the watcher is dropped.
async fn poll(shared: Arc<Shared>, mut seen: Vec<Seen>, sender: Sender<Change>) {
    loop {
        tokio::time::sleep(shared.config.poll).await;
        if sender.is_closed() {
            return;
        }
        for (index, database) in shared.databases.iter().enumerate() {
            let activity = match database.engine.activity().await {
                Ok(activity) => activity,
                Err(error) => {
                    tracing::warn!(database = %database.name, %error, "cannot poll the database");
                    continue;
                }
            };
            let tables = tables_of(database)
                .await
                .unwrap_or_else(|| seen[index].tables.clone());
            let before = &seen[index];
            if before.activity.as_ref() == Some(&activity) && before.tables == tables {
                continue;
            }
            let changed: BTreeSet<String> = if activity.contains_key("*") {
                tables.clone()
            } else {
                activity
                    .iter()
                    .filter(|(table, count)| {
                        before.activity.as_ref().and_then(|seen| seen.get(*table)) != Some(*count)
                    })
                    .map(|(table, _)| table.clone())
                    .chain(tables.difference(&before.tables).cloned())
                    .collect()
            };
            let changes = compare(&database.name, &before.tables, &tables, &changed);
            seen[index] = Seen {
                activity: Some(activity),
                tables,
            };
            for change in changes {
                if sender.send(change).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// The changes of one database whose tables `changed`, its tables before and after.
fn compare(
    database: &str,
    before: &BTreeSet<String>,
    after: &BTreeSet<String>,
    changed: &BTreeSet<String>,
) -> Vec<Change> {
    let parse = |uri: String| ResourceUri::parse(&uri).ok();
    let mut changes: Vec<Change> = std::iter::once(uri_of(database, "schema"))
        .chain(after.intersection(changed).flat_map(|table| {
            [
                table_uri(database, table, "rows"),
                table_uri(database, table, "schema"),
            ]
        }))
        .filter_map(parse)
        .map(Change::Updated)
        .collect();
    if before != after {
        let schema_uris = |tables: &mut dyn Iterator<Item = &String>| -> Vec<ResourceUri> {
            tables
                .filter_map(|table| parse(table_uri(database, table, "schema")))
                .collect()
        };
        changes.push(Change::ListChanged {
            created: schema_uris(&mut after.difference(before)),
            removed: schema_uris(&mut before.difference(after)),
        });
    }
    changes
}

/// Listens to the notifications of PostgreSQL database `index` until the watcher is dropped,
/// connecting again (after 1 s, then up to 30 s) when the connection ends.
async fn listen(
    shared: Arc<Shared>,
    index: usize,
    sender: Sender<Change>,
    listening: tokio::sync::oneshot::Sender<()>,
) {
    let mut listening = Some(listening);
    let database = &shared.databases[index];
    let Engine::Postgres(postgres) = &database.engine else {
        return;
    };
    let mut backoff = Duration::from_secs(1);
    while !sender.is_closed() {
        match postgres.listen_connection().await {
            Ok((client, mut connection)) => {
                let driver_sender = sender.clone();
                let driver_shared = Arc::clone(&shared);
                // The connection's messages are read by a task of their own; the client
                // lives here until it ends.
                let mut driver = tokio::spawn(async move {
                    loop {
                        let message =
                            std::future::poll_fn(|context| connection.poll_message(context)).await;
                        let payload = match message {
                            Some(Ok(tokio_postgres::AsyncMessage::Notification(note))) => {
                                note.payload().to_owned()
                            }
                            Some(Ok(_)) => continue,
                            Some(Err(error)) => {
                                tracing::warn!(%error, "the listening connection failed");
                                return;
                            }
                            None => return,
                        };
                        for change in notified(&driver_shared.databases[index], &payload).await {
                            if driver_sender.send(change).await.is_err() {
                                return;
                            }
                        }
                    }
                });
                let statement = format!("LISTEN {}", crate::postgres::CHANNEL);
                let listen = client.batch_execute(&statement);
                let listened = tokio::time::timeout(Duration::from_secs(10), listen).await;
                if let Some(listening) = listening.take() {
                    let _ = listening.send(());
                }
                match listened {
                    Ok(Ok(())) => {
                        tracing::debug!(database = %database.name, "listening for notifications");
                        backoff = Duration::from_secs(1);
                        // Until the connection ends, or the watcher is dropped.
                        tokio::select! {
                            _ = &mut driver => {}
                            () = sender.closed() => {}
                        }
                    }
                    Ok(Err(error)) => {
                        tracing::warn!(database = %database.name, %error, "cannot LISTEN");
                    }
                    Err(_) => {
                        tracing::warn!(database = %database.name, "LISTEN got no answer");
                    }
                }
                // The driver holds the connection: it ends here, whatever ended the wait.
                driver.abort();
                drop(client);
            }
            Err(error) => {
                tracing::warn!(database = %database.name, %error, "cannot connect to listen");
                if let Some(listening) = listening.take() {
                    let _ = listening.send(());
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(30));
    }
}

/// The changes a notification of the documented trigger names: `{"schema", "table", "column",
/// "key"}` (no key: the whole table, after a `TRUNCATE` or for a key too long to notify). A
/// row's URI is told only when the column is the table's served key: a hidden or masked key
/// never leaves in a URI. Any role that may connect can `NOTIFY` the channel too: a
/// notification is taken as a hint to re-read, never as data.
async fn notified(database: &Database, payload: &str) -> Vec<Change> {
    let Engine::Postgres(postgres) = &database.engine else {
        return Vec::new();
    };
    let Ok(note) = serde_json::from_str::<serde_json::Value>(payload) else {
        return Vec::new();
    };
    let (Some(schema_name), Some(table)) = (
        note.get("schema").and_then(serde_json::Value::as_str),
        note.get("table").and_then(serde_json::Value::as_str),
    ) else {
        return Vec::new();
    };
    let name = postgres.served_name(schema_name, table);
    let Ok(schema) = database.engine.schema().await else {
        return Vec::new();
    };
    // The very relation named, not another whose served name reads the same.
    let relation = format!(
        "{}.{}",
        crate::postgres::quote(schema_name),
        crate::postgres::quote(table)
    );
    let Some(served) = schema
        .table(&name)
        .filter(|served| served.relation == relation)
    else {
        return Vec::new();
    };
    let mut uris = vec![table_uri(&database.name, &name, "rows")];
    let column = note.get("column").and_then(serde_json::Value::as_str);
    match (
        note.get("key").and_then(serde_json::Value::as_str),
        &served.key,
    ) {
        (Some(key), crate::model::Key::Column { name: key_column })
            if column == Some(key_column.as_str()) =>
        {
            uris.push(row_uri(&database.name, &name, key));
        }
        (Some(_), _) => {}
        (None, _) => uris.push(uri_of(&database.name, "schema")),
    }
    uris.iter()
        .filter_map(|uri| ResourceUri::parse(uri).ok())
        .map(Change::Updated)
        .collect()
}
