//! One served database, whatever its engine: the same reads of SQLite (blocking, on tokio's
//! blocking pool) and of PostgreSQL (async), so that the provider never asks which.
//!
//! **Layer:** provider (`mcp-resources-sql`). It dispatches to the `sqlite` and `postgres`
//! modules; it never knows URIs, JSON or the engine of the server.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::{Bind, QueryRows, Row, Schema, Table, Value};
use crate::postgres::Postgres;
use crate::sqlite::Sqlite;

/// A served database's engine.
pub(crate) enum Engine {
    Sqlite(Arc<Sqlite>),
    Postgres(Box<Postgres>),
}

/// Why an engine failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Postgres(#[from] crate::postgres::Error),
    #[error("the blocking task failed: {0}")]
    Task(String),
}

impl Error {
    /// Whether the statement ran past its deadline and was stopped.
    pub(crate) fn is_timeout(&self) -> bool {
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(failure, _)) => {
                failure.code == rusqlite::ErrorCode::OperationInterrupted
            }
            Error::Postgres(error) => error.is_timeout(),
            _ => false,
        }
    }
}

/// Runs `work` on SQLite, on the blocking pool when a runtime is there.
async fn blocking<T: Send + 'static>(
    sqlite: &Arc<Sqlite>,
    work: impl FnOnce(&Sqlite) -> Result<T, rusqlite::Error> + Send + 'static,
) -> Result<T, Error> {
    let sqlite = Arc::clone(sqlite);
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => runtime
            .spawn_blocking(move || work(&sqlite))
            .await
            .map_err(|error| Error::Task(error.to_string()))?
            .map_err(Error::from),
        Err(_) => Ok(work(&sqlite)?),
    }
}

impl Engine {
    /// The served schema.
    pub(crate) async fn schema(&self) -> Result<Arc<Schema>, Error> {
        match self {
            Engine::Sqlite(sqlite) => blocking(sqlite, |sqlite| sqlite.schema()).await,
            Engine::Postgres(postgres) => Ok(postgres.schema().await?),
        }
    }

    /// Where the page after a row keyed `key` starts, as [`Engine::rows`] takes it back.
    pub(crate) fn cursor(&self, key: &Value) -> Option<String> {
        match self {
            Engine::Sqlite(_) => crate::sqlite::cursor_of(key),
            Engine::Postgres(_) => key.key_text(),
        }
    }

    /// Up to `limit` rows of `table` after the cursor `after`, in key order; `None` when the
    /// cursor names nothing or the table has no key.
    pub(crate) async fn rows(
        &self,
        table: &Table,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Option<Vec<Row>>, Error> {
        match self {
            Engine::Sqlite(sqlite) => {
                let (table, after) = (table.clone(), after.map(str::to_owned));
                blocking(sqlite, move |sqlite| {
                    sqlite.rows(&table, after.as_deref(), limit)
                })
                .await
            }
            Engine::Postgres(postgres) => Ok(postgres.rows(table, after, limit).await?),
        }
    }

    /// The row of `table` whose key reads as `key`.
    pub(crate) async fn row(&self, table: &Table, key: &str) -> Result<Option<Row>, Error> {
        match self {
            Engine::Sqlite(sqlite) => {
                let (table, key) = (table.clone(), key.to_owned());
                blocking(sqlite, move |sqlite| sqlite.row(&table, &key)).await
            }
            Engine::Postgres(postgres) => Ok(postgres.row(table, key).await?),
        }
    }

    /// Up to `limit` keys of `table` starting with `prefix`.
    pub(crate) async fn keys_with_prefix(
        &self,
        table: &Table,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        match self {
            Engine::Sqlite(sqlite) => {
                let (table, prefix) = (table.clone(), prefix.to_owned());
                blocking(sqlite, move |sqlite| {
                    sqlite.keys_with_prefix(&table, &prefix, limit)
                })
                .await
            }
            Engine::Postgres(postgres) => {
                Ok(postgres.keys_with_prefix(table, prefix, limit).await?)
            }
        }
    }

    /// Checks a named or completion query (see each engine's `check_query`); how many
    /// parameters it takes.
    pub(crate) async fn check_query(&self, sql: &str, counts: &[usize]) -> Result<usize, String> {
        match self {
            Engine::Sqlite(sqlite) => {
                let (sql, counts) = (sql.to_owned(), counts.to_vec());
                blocking(sqlite, move |sqlite| Ok(sqlite.check_query(&sql, &counts)))
                    .await
                    .map_err(|error| error.to_string())?
            }
            Engine::Postgres(postgres) => postgres.check_query(sql, counts).await,
        }
    }

    /// The answer of a named query; `None` when a value does not bind.
    pub(crate) async fn run_query(
        &self,
        name: &str,
        sql: &str,
        params: Vec<Bind>,
        limit: usize,
    ) -> Result<Option<QueryRows>, Error> {
        match self {
            Engine::Sqlite(sqlite) => {
                let (name, sql) = (name.to_owned(), sql.to_owned());
                blocking(sqlite, move |sqlite| {
                    sqlite.run_query(&name, &sql, &params, limit).map(Some)
                })
                .await
            }
            Engine::Postgres(postgres) => Ok(postgres.run_query(name, sql, &params, limit).await?),
        }
    }

    /// The column rules.
    pub(crate) fn rules(&self) -> &crate::config::Rules {
        match self {
            Engine::Sqlite(sqlite) => sqlite.rules(),
            Engine::Postgres(postgres) => postgres.rules(),
        }
    }

    /// The candidates of a completion query, and the name of the column they are of.
    pub(crate) async fn complete_query(
        &self,
        sql: &str,
        params: Vec<Bind>,
        limit: usize,
    ) -> Result<(String, Vec<String>), Error> {
        match self {
            Engine::Sqlite(sqlite) => {
                let sql = sql.to_owned();
                blocking(sqlite, move |sqlite| {
                    sqlite.complete_query(&sql, &params, limit)
                })
                .await
            }
            Engine::Postgres(postgres) => Ok(postgres.complete_query(sql, &params, limit).await?),
        }
    }

    /// Counters that move when data changes, by table (`*`: any table, when the engine does
    /// not say which). The watcher compares two readings.
    pub(crate) async fn activity(&self) -> Result<BTreeMap<String, i64>, Error> {
        match self {
            Engine::Sqlite(sqlite) => {
                let version = blocking(sqlite, |sqlite| sqlite.data_version()).await?;
                Ok(BTreeMap::from([("*".to_owned(), version)]))
            }
            Engine::Postgres(postgres) => Ok(postgres.activity().await?),
        }
    }
}
