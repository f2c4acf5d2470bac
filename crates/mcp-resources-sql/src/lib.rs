//! The SQL provider: databases as read-only `db://` resources — the schema, each table as a
//! directory, pages of rows in key order, one row by key — with sensitive columns hidden or
//! masked wherever a value leaves.
//!
//! **Layer:** provider, a concrete [`Provider`] on the core's seams and nothing else. It reads
//! databases — SQLite with `rusqlite` (on tokio's blocking pool when a runtime is there) and
//! PostgreSQL with `tokio-postgres` — and hears their changes; it never knows a protocol
//! version, the subscription hub, the server or the transports, and it never writes: the
//! database refuses it, not a parser (see the `sqlite` and `postgres` modules).
//!
//! # Resources
//!
//! For a database served as `NAME` (see [`uri`] for the exact shapes):
//!
//! - `db://NAME` is a directory holding `db://NAME/schema` and the directory `db://NAME/table`,
//!   which holds one directory per served table, `db://NAME/table/TABLE`, which holds
//!   `db://NAME/table/TABLE/rows` and `db://NAME/table/TABLE/schema`.
//! - `db://NAME/schema` (JSON): every served table with its columns (type, nullability,
//!   default, masked), primary key, foreign keys, indexes and row estimate (from `ANALYZE`'s
//!   statistics, when there are some), compact, at most [`SqlConfig::max_answer_bytes`]: a cut
//!   schema says so (`"cut": true`) and lists the tables left out by name.
//! - `db://NAME/table/TABLE/schema` (JSON): the same for one table.
//! - `db://NAME/table/TABLE/rows{?after,limit}` (JSON): `columns`, then `rows` as arrays in
//!   key order each with its `key`, and `next`, the URI of the page after it (keyset: stable
//!   while rows change; a row inserted behind the page is not seen, one ahead of it is). A page
//!   stops early rather than pass [`SqlConfig::max_answer_bytes`].
//! - `db://NAME/table/TABLE/row/KEY` (JSON): one row.
//!
//! A table's rows are keyed by its primary key when that is one column; else by SQLite's
//! `rowid`; a `WITHOUT ROWID` table without a one-column key is schema-only, and so is a table
//! whose key has a hidden or masked column (an `INTEGER PRIMARY KEY` is the rowid itself).
//! SQLite keys are dynamically typed: pages follow SQLite's order (numbers, then texts), the
//! `next` URI carries the last key with its type, rows whose key is NULL or a blob are left out
//! of pages, and `row/KEY` tries `KEY` as a number before a text. Only ordinary tables are
//! served: views, virtual tables and their shadow tables (an FTS index's copy of its text) are
//! not, nor tables whose name cannot be one URI segment (empty, `.`, `..`); at most 10,000
//! tables (the first by name). Each database keeps four read-only connections; a request takes
//! a free one.
//!
//! On PostgreSQL, the tables of the configured schemas (`public` by default) that the role may
//! read are served, keyed by a one-column primary key, in the key column's own order (its
//! collation for text); other tables are schema-only. A key is bound as text and cast by the
//! server to the key's type, so a key that is no such value is not found. Tables outside the
//! first schema are named `schema.table`.
//! `resources/list` lists each database's schema and each table's schema resource; rows are
//! reached through the templates. A missing database, table or row, or a key of the wrong
//! type, is not found.
//!
//! # Named queries
//!
//! A database's [`NamedQuery`]s answer URIs of their own templates (any scheme but `db:`,
//! listed among the templates) with one parameterized `SELECT`, bound to the URI's variables
//! and to the principal's subject or claims, so that "only my tenant" is part of the query (see
//! the `query` module). Each is prepared at start: one statement, read-only by SQLite's
//! judgement, its parameters counted, or the start fails naming it. Its columns pass the
//! column rules under the query's name (`order.buyer_email`), as a table's do. A one-row query
//! with no row, a variable that does not bind, or an anonymous principal for `$subject` is not
//! found; a list answers at most [`SqlConfig::max_page_rows`] rows within the answer budget,
//! `cut` when there were more. Values of a query's rows are read whole, then cut.
//!
//! # Sensitive columns
//!
//! Column rules (configured first, matched against `column` or `table.column`; then the
//! defaults [`DEFAULT_HIDDEN_COLUMNS`] and [`DEFAULT_MASKED_COLUMNS`], against the column's
//! name alone) are case-insensitive globs. A hidden column is never selected: it is absent from
//! schemas, rows, completion, and indexes or foreign keys (its own table's or another's) that
//! name it; indexes over expressions are not listed. A masked column's values leave masked
//! ([`mask`]) wherever they appear; a table whose key is hidden or masked has no rows to serve.
//! A text or blob longer than [`SqlConfig::max_value_bytes`] is read cut by SQLite itself and
//! its row says which columns were.

mod config;
mod engine;
pub mod mask;
mod model;
mod postgres;
mod query;
mod render;
mod sqlite;
pub mod uri;
mod watch;

use std::sync::Arc;

use async_trait::async_trait;
use mcp_resources_core::cache::CachePolicy;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::provider::{
    CompletionRequest, DirectoryRequest, ListRequest, Provider, ProviderError, ReadRequest,
};
use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;

pub use config::{
    ColumnAction, ColumnRule, DEFAULT_HIDDEN_COLUMNS, DEFAULT_MASKED_COLUMNS, DbConfig, Password,
    PatternError, Source, SqlConfig, holds_password, shown_url,
};
pub use mask::MaskStyle;
pub use postgres::{NOTIFY_TRIGGER_SQL, notify_trigger};
pub use query::NamedQuery;
pub use sqlite::STATEMENT_DEADLINE;
pub use watch::SqlWatcher;

use config::Rules;
use engine::Engine;
use model::{Bind, Schema};
use sqlite::Sqlite;
use uri::{Target, rows_uri, table_uri, uri_of};

/// The most candidates one completion proposes.
pub const MAX_COMPLETION_CANDIDATES: usize = 50;

/// Why the provider could not start.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// The configuration is wrong.
    #[error("sql configuration: {0}")]
    Config(String),
    /// A pattern is no valid glob.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// A database could not be opened.
    #[error("database {name:?} could not be opened: {message}")]
    Open {
        /// Its name.
        name: String,
        /// Why.
        message: String,
    },
}

/// One served database.
pub(crate) struct Database {
    pub(crate) name: String,
    pub(crate) engine: Engine,
}

impl Database {
    /// A failure of this database: public, naming it, the cause logged.
    fn failed(&self, error: &engine::Error) -> ProviderError {
        if error.is_timeout() {
            return ProviderError::public(format!(
                "database {}: the query ran past {} s and was stopped",
                self.name,
                STATEMENT_DEADLINE.as_secs()
            ));
        }
        tracing::warn!(database = %self.name, %error, "database read failed");
        ProviderError::public(format!("database {} could not be read", self.name))
    }
}

pub(crate) struct Shared {
    /// The databases, in the order of their URIs.
    pub(crate) databases: Vec<Database>,
    /// The named queries, each with its database's index.
    pub(crate) queries: Vec<(usize, query::Query)>,
    pub(crate) config: SqlConfig,
}

/// The SQL provider. Cheap to clone (shared).
#[derive(Clone)]
pub struct SqlProvider {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SqlProvider {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SqlProvider")
            .field("databases", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl SqlProvider {
    /// Opens every database of `config`, read-only, and checks its named queries.
    ///
    /// # Errors
    ///
    /// A [`SqlError`] naming what is wrong.
    pub async fn open(config: SqlConfig) -> Result<SqlProvider, SqlError> {
        let mut names = std::collections::BTreeSet::new();
        for database in &config.databases {
            if !uri::is_valid_name(&database.name) {
                return Err(SqlError::Config(format!(
                    "database name {:?} is not lowercase letters, digits, '.', '_' and '-' (at most 64)",
                    database.name
                )));
            }
            if !names.insert(database.name.clone()) {
                return Err(SqlError::Config(format!(
                    "two databases are named {:?}",
                    database.name
                )));
            }
        }
        if config.page_rows == 0 || config.max_page_rows < config.page_rows {
            return Err(SqlError::Config(
                "row pages: 0 < page_rows <= max_page_rows".to_owned(),
            ));
        }
        let mut databases = Vec::new();
        for database in &config.databases {
            let engine = open_engine(database, config.max_value_bytes).await?;
            let tables = engine
                .schema()
                .await
                .map_or(0, |schema| schema.tables.len());
            tracing::info!(database = %database.name, source = %database.source, tables, "serving database");
            databases.push(Database {
                name: database.name.clone(),
                engine,
            });
        }
        databases.sort_by_key(|database| format!("{}/", uri_of(&database.name, "")));
        let mut queries = Vec::new();
        for database in &config.databases {
            let index = databases
                .iter()
                .position(|open| open.name == database.name)
                .expect("invariant: every configured database was opened");
            for named in &database.queries {
                let mut query = query::Query::new(named.clone()).map_err(SqlError::Config)?;
                if query.template.as_str().starts_with("db:") {
                    return Err(SqlError::Config(format!(
                        "query {:?}: db: URIs are the database's own; choose another scheme",
                        named.name
                    )));
                }
                let engine = &databases[index].engine;
                engine
                    .check_query(&named.sql, &[query.params.len()])
                    .await
                    .map_err(|reason| {
                        SqlError::Config(format!("query {:?}: its sql {reason}", named.name))
                    })?;
                for (variable, sql) in &named.complete {
                    let count = engine.check_query(sql, &[1, 2]).await.map_err(|reason| {
                        SqlError::Config(format!(
                            "query {:?}: the completion of {variable:?} {reason}",
                            named.name
                        ))
                    })?;
                    query.completion_takes_subject.push(count == 2);
                }
                queries.push((index, query));
            }
        }
        Ok(SqlProvider {
            shared: Arc::new(Shared {
                databases,
                queries,
                config,
            }),
        })
    }

    /// The SQL a database owner runs so that changes to the served PostgreSQL tables are
    /// heard row by row: [`NOTIFY_TRIGGER_SQL`], then [`notify_trigger`] for each table that
    /// has rows to serve and no trigger yet. Empty when there is no such table. The provider
    /// never runs it: its connections are read-only.
    ///
    /// # Errors
    ///
    /// When a database's schema cannot be read.
    pub async fn notify_trigger_sql(&self) -> Result<String, ProviderError> {
        let mut triggers = String::new();
        for database in &self.shared.databases {
            if !matches!(database.engine, Engine::Postgres(_)) {
                continue;
            }
            let schema = self.shared.schema(database).await?;
            for table in schema.tables.iter().filter(|table| !table.notified) {
                if let model::Key::Column { name } = &table.key {
                    // A name may hold a line break: written escaped, it stays in its comment.
                    triggers.push_str(&format!(
                        "-- {}: {}\n",
                        database.name,
                        table.name.escape_default()
                    ));
                    triggers.push_str(&notify_trigger(&table.relation, name));
                }
            }
        }
        if triggers.is_empty() {
            return Ok(triggers);
        }
        Ok(format!("{NOTIFY_TRIGGER_SQL}\n{triggers}"))
    }

    /// The names of the served databases.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.shared
            .databases
            .iter()
            .map(|database| database.name.as_str())
    }

    /// A [`ChangeSource`](mcp_resources_core::change::ChangeSource) that polls every database
    /// ([`SqlConfig::poll`]) and reports what changed. Reads each database's change counter
    /// and tables once before it returns, so that a commit right after is seen as a change.
    /// A database file replaced or deleted under the server is not noticed (the open
    /// connections keep reading what they opened). Call it within a tokio runtime: the
    /// polling is a task of it.
    pub async fn watch(&self) -> SqlWatcher {
        SqlWatcher::start(Arc::clone(&self.shared)).await
    }
}

/// Opens the engine of `database`, its values read at most `value_limit` long.
async fn open_engine(database: &DbConfig, value_limit: usize) -> Result<Engine, SqlError> {
    let rules = Rules::new(database)?;
    let failed = |message: String| SqlError::Open {
        name: database.name.clone(),
        message: format!("{}: {message}", database.source),
    };
    match &database.source {
        Source::Sqlite(path) => {
            let path = path.clone();
            let open = move || Sqlite::open(&path, rules, value_limit);
            let sqlite = match tokio::runtime::Handle::try_current() {
                Ok(runtime) => runtime
                    .spawn_blocking(open)
                    .await
                    .map_err(|error| failed(error.to_string()))?,
                Err(_) => open(),
            };
            Ok(Engine::Sqlite(Arc::new(
                sqlite.map_err(|error| failed(error.to_string()))?,
            )))
        }
        Source::Postgres {
            url,
            password,
            schemas,
        } => {
            let mut config: tokio_postgres::Config = url
                .parse()
                .map_err(|error: tokio_postgres::Error| failed(error.to_string()))?;
            if config.get_password().is_some() {
                return Err(failed(
                    "the connection string holds a password: give it apart (the environment \
                     or a file), never in a URL that may be logged"
                        .to_owned(),
                ));
            }
            if let Some(password) = password {
                config.password(password.0.as_bytes());
            }
            if schemas.is_empty() {
                return Err(failed("no schema to serve".to_owned()));
            }
            let postgres = postgres::Postgres::open(config, schemas.clone(), rules, value_limit)
                .await
                .map_err(|error| failed(error.to_string()))?;
            Ok(Engine::Postgres(Box::new(postgres)))
        }
    }
}

/// A URI this provider built, parsed; canonical by construction.
fn canonical(uri: &str) -> Result<ResourceUri, ProviderError> {
    ResourceUri::parse(uri)
        .map_err(|error| ProviderError::new(format!("built a bad uri {uri}")).with_source(error))
}

fn json_resource(uri: &str, name: &str, title: String) -> Result<Resource, ProviderError> {
    Ok(Resource::new(canonical(uri)?, name)
        .with_title(title)
        .with_mime_type("application/json"))
}

impl Shared {
    fn database(&self, name: &str) -> Option<&Database> {
        self.databases.iter().find(|database| database.name == name)
    }

    async fn schema(&self, database: &Database) -> Result<Arc<Schema>, ProviderError> {
        database
            .engine
            .schema()
            .await
            .map_err(|error| database.failed(&error))
    }

    /// Every listed resource of `database`, in URI order.
    async fn listed(&self, database: &Database) -> Result<Vec<Resource>, ProviderError> {
        let schema = self.schema(database).await?;
        let mut items = vec![json_resource(
            &uri_of(&database.name, "schema"),
            "schema",
            format!("{}: every table's schema", database.name),
        )?];
        for table in &schema.tables {
            items.push(json_resource(
                &table_uri(&database.name, &table.name, "schema"),
                "schema",
                format!("{}: the table {}", database.name, table.name),
            )?);
        }
        items.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
        Ok(items)
    }

    async fn list(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Resource>, ProviderError> {
        let mut items = Vec::new();
        for database in &self.databases {
            if items.len() == limit {
                break;
            }
            let prefix = format!("{}/", uri_of(&database.name, ""));
            if after.is_some_and(|after| after > prefix.as_str() && !after.starts_with(&prefix)) {
                continue;
            }
            let listed = match self.listed(database).await {
                Ok(listed) => listed,
                // One unreadable database does not hide the others (the failure is logged).
                Err(_) => continue,
            };
            items.extend(
                listed
                    .into_iter()
                    .filter(|item| after.is_none_or(|after| item.uri.as_str() > after))
                    .take(limit - items.len()),
            );
        }
        Ok(items)
    }

    /// The named query whose template matches `uri`, with its variables.
    fn query_of(
        &self,
        uri: &ResourceUri,
    ) -> Option<(
        &Database,
        &query::Query,
        mcp_resources_core::template::Variables,
    )> {
        self.queries.iter().find_map(|(index, query)| {
            let variables = query.template.match_uri(uri.as_str())?;
            Some((&self.databases[*index], query, variables))
        })
    }

    /// The answer of the named query matching `uri`, for `principal`.
    async fn read_query(
        &self,
        uri: &ResourceUri,
        principal: &Principal,
    ) -> Result<Option<serde_json::Value>, ProviderError> {
        let Some((database, query, variables)) = self.query_of(uri) else {
            return Ok(None);
        };
        let Some(params) = query.bind(&variables, principal) else {
            return Ok(None);
        };
        let limit = if query.config.one_row {
            1
        } else {
            self.config.max_page_rows
        };
        let answer = database
            .engine
            .run_query(&query.config.name, &query.config.sql, params, limit)
            .await
            .map_err(|error| database.failed(&error))?;
        Ok(answer.and_then(|answer| render::query(&query.config, &answer, &self.config)))
    }

    async fn read(
        &self,
        uri: &ResourceUri,
        principal: &Principal,
    ) -> Result<Option<Vec<Contents>>, ProviderError> {
        if uri.scheme() != uri::SCHEME {
            let value = self.read_query(uri, principal).await?;
            return Ok(value.map(|value| {
                vec![
                    Contents::text(uri.clone(), value.to_string())
                        .with_mime_type("application/json"),
                ]
            }));
        }
        let Some(parsed) = uri::parse(uri) else {
            return Ok(None);
        };
        let Some(database) = self.database(&parsed.database) else {
            return Ok(None);
        };
        let schema = self.schema(database).await?;
        let config = &self.config;
        let value = match parsed.target {
            Target::Database | Target::Tables | Target::Table(_) => return Ok(None),
            Target::Schema => render::schema(&schema.tables, config.max_answer_bytes),
            Target::TableSchema(name) => match schema.table(&name) {
                Some(table) => render::table(table),
                None => return Ok(None),
            },
            Target::Rows {
                table,
                after,
                limit,
            } => {
                let Some(table) = schema.table(&table) else {
                    return Ok(None);
                };
                let limit = match limit {
                    None => config.page_rows,
                    Some(limit) if limit >= 1 && limit <= config.max_page_rows as u64 => {
                        limit as usize
                    }
                    Some(limit) => {
                        return Err(ProviderError::invalid_params(format!(
                            "limit {limit} is not between 1 and {}",
                            config.max_page_rows
                        )));
                    }
                };
                // One row more than the page tells whether there is a next page.
                let rows = database
                    .engine
                    .rows(table, after.as_deref(), limit + 1)
                    .await
                    .map_err(|error| database.failed(&error))?;
                let Some(rows) = rows else {
                    return Ok(None);
                };
                let text = render::rows(table, &rows, limit, config, |last| {
                    let cursor = database.engine.cursor(last)?;
                    Some(rows_uri(&database.name, &table.name, &cursor, limit as u64))
                });
                return Ok(Some(vec![
                    Contents::text(uri.clone(), text).with_mime_type("application/json"),
                ]));
            }
            Target::Row { table, key } => {
                let Some(table) = schema.table(&table) else {
                    return Ok(None);
                };
                let row = database
                    .engine
                    .row(table, &key)
                    .await
                    .map_err(|error| database.failed(&error))?;
                match row {
                    Some(row) => render::row(table, &row, config.max_value_bytes),
                    None => return Ok(None),
                }
            }
        };
        Ok(Some(vec![
            Contents::text(uri.clone(), value.to_string()).with_mime_type("application/json"),
        ]))
    }

    /// The children of a directory, in URI order.
    async fn children(&self, uri: &ResourceUri) -> Result<Option<Vec<Resource>>, ProviderError> {
        let Some(parsed) = uri::parse(uri) else {
            return Ok(None);
        };
        let Some(database) = self.database(&parsed.database) else {
            return Ok(None);
        };
        let name = &database.name;
        let mut children = match parsed.target {
            Target::Database => vec![
                json_resource(&uri_of(name, "schema"), "schema", format!("{name}: schema"))?,
                Resource::directory(canonical(&uri_of(name, "table"))?, "table")
                    .with_title(format!("{name}: tables")),
            ],
            Target::Tables => {
                let schema = self.schema(database).await?;
                let mut tables = Vec::new();
                for table in &schema.tables {
                    tables.push(
                        Resource::directory(
                            canonical(&table_uri(name, &table.name, ""))?,
                            &table.name,
                        )
                        .with_title(format!("{name}: the table {}", table.name)),
                    );
                }
                tables
            }
            Target::Table(table) => {
                let schema = self.schema(database).await?;
                if schema.table(&table).is_none() {
                    return Ok(None);
                }
                vec![
                    json_resource(
                        &table_uri(name, &table, "rows"),
                        "rows",
                        format!("{table}: rows"),
                    )?,
                    json_resource(
                        &table_uri(name, &table, "schema"),
                        "schema",
                        format!("{table}: schema"),
                    )?,
                ]
            }
            _ => return Ok(None),
        };
        children.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
        Ok(Some(children))
    }

    /// Completion of a named query's variable, by its completion query.
    async fn complete_query(
        &self,
        template: &str,
        variable: &str,
        prefix: &str,
        principal: &Principal,
    ) -> Result<Vec<String>, ProviderError> {
        let Some((index, query)) = self
            .queries
            .iter()
            .find(|(_, query)| query.template.as_str() == template)
        else {
            return Ok(Vec::new());
        };
        let Some(position) = query
            .config
            .complete
            .iter()
            .position(|(name, _)| name == variable)
        else {
            return Ok(Vec::new());
        };
        let sql = &query.config.complete[position].1;
        let database = &self.databases[*index];
        let mut params = vec![Bind::Text(prefix.to_owned())];
        if query.completion_takes_subject[position] {
            let Some(subject) = &principal.subject else {
                return Ok(Vec::new());
            };
            params.push(Bind::Text(subject.clone()));
        }
        let (column, values) = database
            .engine
            .complete_query(sql, params, MAX_COMPLETION_CANDIDATES)
            .await
            .map_err(|error| database.failed(&error))?;
        // Candidates are values leaving: the query's column rules apply to them as to its
        // answers.
        Ok(
            match database.engine.rules().column(&query.config.name, &column) {
                Some(ColumnAction::Hide) => Vec::new(),
                Some(ColumnAction::Mask(style)) => values
                    .iter()
                    .map(|value| mask::mask(value, style))
                    .collect(),
                None => values,
            },
        )
    }

    async fn complete(
        &self,
        variable: &str,
        prefix: &str,
        database: Option<&str>,
        table: Option<&str>,
    ) -> Result<Vec<String>, ProviderError> {
        if variable == "database" {
            return Ok(self
                .databases
                .iter()
                .map(|database| database.name.clone())
                .filter(|name| name.starts_with(prefix))
                .collect());
        }
        let Some(database) = database.and_then(|name| self.database(name)) else {
            return Ok(Vec::new());
        };
        let schema = self.schema(database).await?;
        match variable {
            "table" => Ok(schema
                .tables
                .iter()
                .map(|table| table.name.clone())
                .filter(|name| name.starts_with(prefix))
                .take(MAX_COMPLETION_CANDIDATES)
                .collect()),
            "key" => {
                let Some(table) = table.and_then(|name| schema.table(name)) else {
                    return Ok(Vec::new());
                };
                database
                    .engine
                    .keys_with_prefix(table, prefix, MAX_COMPLETION_CANDIDATES)
                    .await
                    .map_err(|error| database.failed(&error))
            }
            _ => Ok(Vec::new()),
        }
    }
}

fn templates(queries: &[(usize, query::Query)]) -> Vec<ResourceTemplate> {
    let template = |text: &str, name: &str, description: &str| {
        ResourceTemplate::new(
            UriTemplate::parse(text).expect("invariant: the sql templates are valid"),
            name,
        )
        .with_mime_type("application/json")
        .with_description(description)
    };
    let mut all = vec![
        template(
            "db://{database}/table/{table}/schema",
            "sql-table",
            "A table's columns, keys and indexes",
        ),
        template(
            "db://{database}/table/{table}/rows{?after,limit}",
            "sql-rows",
            "A page of a table's rows in key order; next gives the page after",
        ),
        template(
            "db://{database}/table/{table}/row/{key}",
            "sql-row",
            "One row of a table, by its key",
        ),
    ];
    for (_, query) in queries {
        all.push(
            ResourceTemplate::new(query.template.clone(), &query.config.name)
                .with_mime_type("application/json")
                .with_description(format!("The named query {}", query.config.name)),
        );
    }
    all
}

#[async_trait]
impl Provider for SqlProvider {
    fn claims(&self, uri: &ResourceUri) -> bool {
        if uri.scheme() == uri::SCHEME {
            return uri
                .authority()
                .is_some_and(|name| self.shared.database(name).is_some());
        }
        self.shared.query_of(uri).is_some()
    }

    async fn list(&self, request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        self.shared.list(request.after, request.limit).await
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        templates(&self.shared.queries)
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        let contents = self.shared.read(request.uri, request.principal).await?;
        Ok(match (contents, request.range) {
            (Some(mut contents), Some(range)) => {
                for part in &mut contents {
                    part.body = part.body.slice(range).ok_or_else(|| {
                        ProviderError::invalid_params("the range cuts a character")
                    })?;
                }
                Some(contents)
            }
            (contents, _) => contents,
        })
    }

    async fn list_directory(
        &self,
        request: DirectoryRequest<'_>,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let children = self.shared.children(request.uri).await?;
        Ok(children.map(|children| {
            children
                .into_iter()
                .filter(|child| request.after.is_none_or(|after| child.uri.as_str() > after))
                .take(request.limit)
                .collect()
        }))
    }

    fn matches_templates(&self) -> bool {
        false
    }

    async fn complete(&self, request: CompletionRequest<'_>) -> Result<Vec<String>, ProviderError> {
        let template = request.template.as_str();
        if template.starts_with("db:") {
            self.shared
                .complete(
                    request.variable,
                    request.prefix,
                    request.context.get_str("database"),
                    request.context.get_str("table"),
                )
                .await
        } else {
            self.shared
                .complete_query(
                    template,
                    request.variable,
                    request.prefix,
                    request.principal,
                )
                .await
        }
    }

    fn cache_policy(&self) -> CachePolicy {
        CachePolicy {
            ttl_ms: Some(self.shared.config.ttl_ms),
            per_principal: false,
        }
    }

    /// A named query bound to the caller's subject or claims answers each caller apart: its
    /// answers are cached per principal.
    fn cache_policy_of(&self, uri: &ResourceUri) -> Option<CachePolicy> {
        let (_, query, _) = self.shared.query_of(uri)?;
        query
            .params
            .iter()
            .any(|param| matches!(param, query::Param::Subject | query::Param::Claim(_)))
            .then(|| CachePolicy {
                ttl_ms: Some(self.shared.config.ttl_ms),
                per_principal: true,
            })
    }
}
