//! Live databases: a [`ChangeSource`] that polls each database and reports what changed.
//!
//! **Layer:** provider (`mcp-resources-sql`). A thread of its own asks SQLite's
//! `PRAGMA data_version` (which moves when another connection commits) every
//! [`SqlConfig::poll`](crate::SqlConfig::poll); it never knows the subscription hub, the server
//! or a protocol.
//!
//! When a database changed: [`Change::Updated`] for its schema and for every served table's
//! `rows` and `schema` resources (SQLite does not say which table a commit touched, so every
//! table is told: a subscriber re-reads and finds what changed); when the set of served tables
//! changed, [`Change::ListChanged`] with the tables' schema resources that came and went.

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use mcp_resources_core::change::{Change, ChangeSource};
use mcp_resources_core::uri::ResourceUri;

use crate::Shared;
use crate::uri::{table_uri, uri_of};

/// The changes of the served databases, as they happen. Dropping it stops the polling.
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
    version: Option<i64>,
    tables: BTreeSet<String>,
}

/// The served tables of database `index` now, `None` when its schema cannot be read (then the
/// last known set stands: a busy moment is no reason to say every table went).
fn tables_of(shared: &Shared, index: usize) -> Option<BTreeSet<String>> {
    let database = &shared.databases[index];
    match database.sqlite.schema() {
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
    pub(crate) fn start(shared: Arc<Shared>) -> SqlWatcher {
        let (sender, changes) = tokio::sync::mpsc::channel(1024);
        // Read now, so that a commit right after is seen as a change.
        let mut seen: Vec<Seen> = (0..shared.databases.len())
            .map(|index| Seen {
                version: shared.databases[index].sqlite.data_version().ok(),
                tables: tables_of(&shared, index).unwrap_or_default(),
            })
            .collect();
        let poll = shared.config.poll;
        let spawned = std::thread::Builder::new()
            .name("sql-watch".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(poll);
                    if sender.is_closed() {
                        return;
                    }
                    for (index, database) in shared.databases.iter().enumerate() {
                        let version = match database.sqlite.data_version() {
                            Ok(version) => Some(version),
                            Err(error) => {
                                tracing::warn!(database = %database.name, %error, "cannot poll the database");
                                None
                            }
                        };
                        if version.is_none() || version == seen[index].version {
                            continue;
                        }
                        let tables = tables_of(&shared, index)
                            .unwrap_or_else(|| seen[index].tables.clone());
                        let changes = compare(&database.name, &seen[index].tables, &tables);
                        seen[index] = Seen { version, tables };
                        for change in changes {
                            if sender.blocking_send(change).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start polling the databases");
        }
        SqlWatcher { changes }
    }
}

/// The changes of one database whose content changed, its tables before and after.
fn compare(database: &str, before: &BTreeSet<String>, after: &BTreeSet<String>) -> Vec<Change> {
    let parse = |uri: String| ResourceUri::parse(&uri).ok();
    let mut changes: Vec<Change> = std::iter::once(uri_of(database, "schema"))
        .chain(after.iter().flat_map(|table| {
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
