//! PostgreSQL, read-only: the schema of the served tables, pages of rows in key order, one row
//! by key, key completion, named queries, the statistics the watcher polls and the
//! notifications of the documented trigger.
//!
//! **Layer:** provider (`mcp-resources-sql`). Async `tokio-postgres` calls on the runtime; this
//! module never knows URIs, JSON rendering or the engine.
//!
//! Read-only is the server's doing, not a parser's: every session starts with
//! `default_transaction_read_only = on` and a `statement_timeout` ([`STATEMENT_DEADLINE`]),
//! and every statement runs in a transaction begun `READ ONLY` and rolled back, so a function
//! that changes a setting cannot outlive it. Statements go through the extended protocol,
//! which takes one statement only (a stacked `…; COMMIT; DROP …` does not prepare). The
//! connecting role should still be one that may only `SELECT` (the README says how).
//! Identifiers come from the catalogue, quoted; values are bound, never spliced (a key is bound
//! as text and cast to its column's type by the server). No TLS: connect over a Unix socket or
//! loopback.
//!
//! Only ordinary and partitioned tables of the configured schemas that the role may `SELECT`
//! are served (not partitions, views or foreign tables), and only the columns it may read.
//! A table's rows are keyed by its primary key when that is one column; other tables are
//! schema-only (PostgreSQL has no stable row id: a `ctid` moves on update). Tables of the first
//! configured schema are named bare (`orders`), others `schema.table`.
//!
//! Each database keeps four connections, opened when first needed and again after one breaks
//! (a database that went away answers errors until it is back). Every call is bounded by a
//! client-side deadline too, so that a server that stopped answering costs a request an error,
//! never a hang.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, NoTls, Statement};

use crate::config::{ColumnAction, Rules};
use crate::model::{Bind, Column, ForeignKey, Index, Key, QueryRows, Row, Schema, Table, Value};
use crate::sqlite::STATEMENT_DEADLINE;

/// How many connections one database keeps.
const CONNECTIONS: usize = 4;

/// The most tables of one database that are served (the first by name).
const MAX_TABLES: usize = crate::sqlite::MAX_TABLES;

/// How many keys completion looks at, at most.
const COMPLETION_SCAN: i64 = 100_000;

/// How long a read schema is trusted before the catalogue is asked whether it changed.
const SCHEMA_RECHECK: Duration = Duration::from_secs(1);

/// The channel the documented trigger notifies.
pub(crate) const CHANNEL: &str = "mcp_resources";

/// The documented trigger function, for PostgreSQL tables whose changes should be heard row
/// by row: the server never installs it (its connections are read-only); a database owner
/// runs this once, then [`notify_trigger`] for each table. A table with a trigger calling it
/// is not polled: each notification names the row that changed (the key's text, as the
/// server reads it), or, after a `TRUNCATE` or for a key longer than 7,000 bytes, the table.
pub const NOTIFY_TRIGGER_SQL: &str = r#"CREATE OR REPLACE FUNCTION mcp_resources_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  old_key text;
  new_key text;
  note jsonb := jsonb_build_object('schema', TG_TABLE_SCHEMA, 'table', TG_TABLE_NAME);
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('mcp_resources', note::text);
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    EXECUTE format('SELECT ($1).%I::text', TG_ARGV[0]) INTO old_key USING OLD;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    EXECUTE format('SELECT ($1).%I::text', TG_ARGV[0]) INTO new_key USING NEW;
  END IF;
  IF old_key IS NOT NULL THEN
    PERFORM pg_notify('mcp_resources', (CASE WHEN octet_length(old_key) <= 7000
      THEN note || jsonb_build_object('key', old_key) ELSE note END)::text);
  END IF;
  IF new_key IS NOT NULL AND new_key IS DISTINCT FROM old_key THEN
    PERFORM pg_notify('mcp_resources', (CASE WHEN octet_length(new_key) <= 7000
      THEN note || jsonb_build_object('key', new_key) ELSE note END)::text);
  END IF;
  RETURN NULL;
END
$$;
"#;

/// The triggers that call [`NOTIFY_TRIGGER_SQL`]'s function for the table `relation`
/// (`public.orders`, quoted as needed) whose one-column key is `key`: one per row change, one
/// for `TRUNCATE`.
pub fn notify_trigger(relation: &str, key: &str) -> String {
    let key = key.replace('\'', "''");
    format!(
        "CREATE TRIGGER mcp_resources_notify AFTER INSERT OR UPDATE OR DELETE ON {relation}\n  \
         FOR EACH ROW EXECUTE FUNCTION mcp_resources_notify('{key}');\n\
         CREATE TRIGGER mcp_resources_notify_truncate AFTER TRUNCATE ON {relation}\n  \
         FOR EACH STATEMENT EXECUTE FUNCTION mcp_resources_notify();\n"
    )
}

/// Why PostgreSQL failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The server answered an error, or the connection failed.
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
    /// No answer within the client's deadline.
    #[error("no answer within {} s", CLIENT_DEADLINE.as_secs())]
    Deadline,
}

/// The client's own bound on one call: the server's timeout, plus time to say so.
const CLIENT_DEADLINE: Duration = Duration::from_secs(STATEMENT_DEADLINE.as_secs() * 2);

impl Error {
    /// Whether the statement ran past its deadline.
    pub(crate) fn is_timeout(&self) -> bool {
        match self {
            Error::Deadline => true,
            Error::Postgres(error) => {
                error.code() == Some(&tokio_postgres::error::SqlState::QUERY_CANCELED)
            }
        }
    }

    /// Whether the server refused a value (a key that is no number, out of range): class 22,
    /// "data exception". Such a key names no row.
    fn is_bad_value(&self) -> bool {
        matches!(self, Error::Postgres(error) if error.code().is_some_and(|code| code.code().starts_with("22")))
    }
}

/// A connection and its prepared statements.
struct Session {
    client: Client,
    statements: HashMap<String, Statement>,
}

impl Session {
    /// `sql` prepared on this connection, once.
    async fn prepare(&mut self, sql: &str) -> Result<Statement, Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).await?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// The rows of `statement` with `values`, in a read-only transaction rolled back after.
    async fn read_only(
        &mut self,
        statement: &Statement,
        values: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, Error> {
        let transaction = self
            .client
            .build_transaction()
            .read_only(true)
            .start()
            .await?;
        let rows = transaction.query(statement, values).await;
        transaction.rollback().await?;
        Ok(rows?)
    }
}

/// A served PostgreSQL database.
pub(crate) struct Postgres {
    config: tokio_postgres::Config,
    sessions: Vec<tokio::sync::Mutex<Option<Session>>>,
    next: std::sync::atomic::AtomicUsize,
    rules: Rules,
    schemas: Vec<String>,
    value_limit: usize,
    /// The schema, when it was last checked, and the catalogue's fingerprint it was read at.
    schema: Mutex<Option<(Instant, String, Arc<Schema>)>>,
}

/// `name` quoted as an SQL identifier.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Bounds `work` by the client's deadline.
async fn bounded<T>(work: impl std::future::Future<Output = Result<T, Error>>) -> Result<T, Error> {
    tokio::time::timeout(CLIENT_DEADLINE, work)
        .await
        .unwrap_or(Err(Error::Deadline))
}

/// A row of a table, as a query selects it: the key's text, then each served column read in
/// the Rust type its [`Reader`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reader {
    Integer,
    Real,
    Bool,
    Bytes,
    Text,
}

impl Reader {
    /// How a column of the type PostgreSQL names `type_name` (`pg_type.typname`) is read.
    fn of_type_name(type_name: &str) -> Reader {
        match type_name {
            "int2" | "int4" | "int8" | "oid" => Reader::Integer,
            "float4" | "float8" => Reader::Real,
            "bool" => Reader::Bool,
            "bytea" => Reader::Bytes,
            _ => Reader::Text,
        }
    }

    /// How a result column of type `ty` is read, `None` when it cannot be (a named query must
    /// cast such a column to text).
    fn of_type(ty: &Type) -> Option<Reader> {
        Some(match *ty {
            Type::INT2 | Type::INT4 | Type::INT8 => Reader::Integer,
            Type::FLOAT4 | Type::FLOAT8 => Reader::Real,
            Type::BOOL => Reader::Bool,
            Type::BYTEA => Reader::Bytes,
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => Reader::Text,
            _ => return None,
        })
    }

    /// The select expression of column `name` for this reader, texts and byte strings cut one
    /// past `limit`.
    fn select(self, name: &str, limit: usize) -> String {
        let name = quote(name);
        let limit = limit + 1;
        match self {
            Reader::Integer => format!("{name}::int8"),
            Reader::Real => format!("{name}::float8"),
            Reader::Bool => name,
            Reader::Bytes => format!("substring({name} from 1 for {limit})"),
            Reader::Text => format!("left({name}::text, {limit})"),
        }
    }

    /// The value of column `index` of `row`, read as this reader says (its type as selected,
    /// or the column's own in a named query).
    fn read(self, row: &tokio_postgres::Row, index: usize) -> Result<Value, Error> {
        let value = match self {
            Reader::Integer => match *row.columns()[index].type_() {
                Type::INT2 => row.try_get::<_, Option<i16>>(index)?.map(i64::from),
                Type::INT4 => row.try_get::<_, Option<i32>>(index)?.map(i64::from),
                _ => row.try_get::<_, Option<i64>>(index)?,
            }
            .map(Value::Integer),
            Reader::Real => match *row.columns()[index].type_() {
                Type::FLOAT4 => row.try_get::<_, Option<f32>>(index)?.map(f64::from),
                _ => row.try_get::<_, Option<f64>>(index)?,
            }
            .map(Value::Real),
            Reader::Bool => row.try_get::<_, Option<bool>>(index)?.map(Value::Bool),
            Reader::Bytes => row.try_get::<_, Option<Vec<u8>>>(index)?.map(Value::Blob),
            Reader::Text => row.try_get::<_, Option<String>>(index)?.map(Value::Text),
        };
        Ok(value.unwrap_or(Value::Null))
    }
}

/// A bound value as a parameter of type `ty` takes it; `None` when it is no such value (a
/// text that is no number for an integer parameter).
fn bound(value: &Bind, ty: &Type) -> Option<Box<dyn ToSql + Sync + Send>> {
    let text = match value {
        Bind::Text(text) => text.clone(),
        Bind::Integer(value) => value.to_string(),
        Bind::Real(value) => value.to_string(),
    };
    Some(match *ty {
        Type::INT2 => Box::new(text.parse::<i16>().ok()?),
        Type::INT4 => Box::new(text.parse::<i32>().ok()?),
        Type::INT8 => Box::new(text.parse::<i64>().ok()?),
        Type::FLOAT4 => Box::new(text.parse::<f32>().ok().filter(|value| value.is_finite())?),
        Type::FLOAT8 => Box::new(text.parse::<f64>().ok().filter(|value| value.is_finite())?),
        Type::BOOL => Box::new(text.parse::<bool>().ok()?),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => Box::new(text),
        _ => return None,
    })
}

/// Whether a parameter of type `ty` can be bound (see [`bound`]).
fn bindable(ty: &Type) -> bool {
    bound(&Bind::Text("0".to_owned()), ty).is_some()
}

/// `params` as the driver takes them.
fn refs(params: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|param| param.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

impl Postgres {
    /// The database `config` names, connected once to check that it answers; read-only
    /// sessions, values read at most `value_limit` long.
    pub(crate) async fn open(
        mut config: tokio_postgres::Config,
        schemas: Vec<String>,
        rules: Rules,
        value_limit: usize,
    ) -> Result<Postgres, Error> {
        let mut options = config.get_options().unwrap_or_default().to_owned();
        options.push_str(&format!(
            " -c default_transaction_read_only=on -c statement_timeout={} \
             -c idle_in_transaction_session_timeout={}",
            STATEMENT_DEADLINE.as_millis(),
            CLIENT_DEADLINE.as_millis()
        ));
        config.options(options.trim());
        config.application_name("mcp-resources");
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(STATEMENT_DEADLINE);
        }
        let postgres = Postgres {
            config,
            sessions: (0..CONNECTIONS)
                .map(|_| tokio::sync::Mutex::new(None))
                .collect(),
            next: std::sync::atomic::AtomicUsize::new(0),
            rules,
            schemas,
            value_limit,
            schema: Mutex::new(None),
        };
        // Connect now: a wrong address or password fails the start, not the first request.
        let first = postgres.connect().await?;
        *postgres.sessions[0].lock().await = Some(first);
        Ok(postgres)
    }

    async fn connect(&self) -> Result<Session, Error> {
        let (client, connection) = bounded(async { Ok(self.config.connect(NoTls).await?) }).await?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(%error, "a PostgreSQL connection ended");
            }
        });
        Ok(Session {
            client,
            statements: HashMap::new(),
        })
    }

    /// A new connection of its own, for LISTEN: its messages are the caller's to poll.
    pub(crate) async fn listen_connection(
        &self,
    ) -> Result<
        (
            Client,
            tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>,
        ),
        Error,
    > {
        bounded(async { Ok(self.config.connect(NoTls).await?) }).await
    }

    /// A free connection (or, when all are busy, the next to be free), connected anew when
    /// it broke.
    async fn session(&self) -> Result<tokio::sync::MutexGuard<'_, Option<Session>>, Error> {
        let first = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let count = self.sessions.len();
        let free =
            (0..count).find_map(|offset| self.sessions[(first + offset) % count].try_lock().ok());
        let mut slot = match free {
            Some(slot) => slot,
            None => self.sessions[first % count].lock().await,
        };
        if slot
            .as_ref()
            .is_none_or(|session| session.client.is_closed())
        {
            *slot = None;
            *slot = Some(self.connect().await?);
        }
        Ok(slot)
    }

    /// Runs `sql` with `params` in a read-only transaction, rolled back, under the deadlines;
    /// `Ok(None)` when a value is no value of its parameter's type. A connection that broke
    /// or did not answer in time is dropped (the next call connects anew).
    async fn query(
        &self,
        sql: &str,
        params: &[Bind],
    ) -> Result<Option<Vec<tokio_postgres::Row>>, Error> {
        let mut slot = self.session().await?;
        let session = slot.as_mut().expect("invariant: connected");
        let result = bounded(async {
            let statement = session.prepare(sql).await?;
            let mut values = Vec::with_capacity(params.len());
            for (param, ty) in params.iter().zip(statement.params()) {
                match bound(param, ty) {
                    Some(value) => values.push(value),
                    None => return Ok(None),
                }
            }
            let values = refs(&values);
            session.read_only(&statement, &values).await.map(Some)
        })
        .await;
        if matches!(result, Err(Error::Deadline)) || session.client.is_closed() {
            *slot = None;
        }
        result
    }

    /// The rows of `sql` run with `params`; a value the statement cannot take gives none.
    async fn rows_of(&self, sql: &str, params: &[Bind]) -> Result<Vec<tokio_postgres::Row>, Error> {
        Ok(self.query(sql, params).await?.unwrap_or_default())
    }

    /// The catalogue's fingerprint of the served schemas: it moves when a table, column,
    /// index, constraint or trigger comes, goes or changes.
    async fn fingerprint(&self) -> Result<String, Error> {
        let rows = self
            .rows_of(
                "SELECT md5(coalesce((SELECT string_agg(c.oid::text || ':' || c.xmin::text, ',' \
                 ORDER BY c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = ANY(string_to_array($1, ','))), '') || '/' || \
                 coalesce((SELECT string_agg(t.oid::text || ':' || t.xmin::text, ',' ORDER BY t.oid) \
                 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n \
                 ON n.oid = c.relnamespace WHERE n.nspname = ANY(string_to_array($1, ','))), ''))",
                &[Bind::Text(self.schemas.join(","))],
            )
            .await?;
        Ok(rows
            .first()
            .and_then(|row| row.try_get::<_, String>(0).ok())
            .unwrap_or_default())
    }

    /// The served schema, read again when the catalogue changed (checked at most once a
    /// second).
    pub(crate) async fn schema(&self) -> Result<Arc<Schema>, Error> {
        let cached = self
            .schema
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some((checked, _, schema)) = &cached
            && checked.elapsed() < SCHEMA_RECHECK
        {
            return Ok(Arc::clone(schema));
        }
        let fingerprint = self.fingerprint().await?;
        let schema = match cached {
            Some((_, seen, schema)) if seen == fingerprint => schema,
            _ => Arc::new(self.read_schema().await?),
        };
        *self.schema.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now(), fingerprint, Arc::clone(&schema)));
        Ok(schema)
    }

    /// The served name of `schema.table`.
    pub(crate) fn served_name(&self, schema: &str, table: &str) -> String {
        if self.schemas.first().is_some_and(|first| first == schema) {
            table.to_owned()
        } else {
            format!("{schema}.{table}")
        }
    }

    async fn read_schema(&self) -> Result<Schema, Error> {
        let schemas = Bind::Text(self.schemas.join(","));
        // (oid, schema, name, estimate, notified)
        let listed = self
            .rows_of(
                "SELECT c.oid::int8, n.nspname::text, c.relname::text, c.reltuples::float8, \
                 EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid \
                 WHERE t.tgrelid = c.oid AND p.proname = 'mcp_resources_notify' \
                 AND t.tgenabled <> 'D' AND (t.tgtype & 1) = 1) \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition \
                 AND n.nspname = ANY(string_to_array($1, ',')) \
                 AND has_table_privilege(c.oid, 'SELECT') ORDER BY n.nspname, c.relname",
                std::slice::from_ref(&schemas),
            )
            .await?;
        let mut tables: BTreeMap<i64, (String, String, Table, bool)> = BTreeMap::new();
        let mut names = std::collections::BTreeSet::new();
        for row in &listed {
            let (oid, schema, relname): (i64, String, String) =
                (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
            let name = self.served_name(&schema, &relname);
            if matches!(name.as_str(), "" | "." | "..")
                || !self.rules.serves_table(&name)
                || !names.insert(name.clone())
            {
                continue;
            }
            let estimate: f64 = row.try_get(3)?;
            let relation = format!("{}.{}", quote(&schema), quote(&relname));
            tables.insert(
                oid,
                (
                    schema,
                    relname,
                    Table {
                        relation,
                        notified: row.try_get(4)?,
                        name,
                        columns: Vec::new(),
                        primary_key: Vec::new(),
                        foreign_keys: Vec::new(),
                        indexes: Vec::new(),
                        key: Key::None,
                        row_estimate: (estimate >= 0.0).then_some(estimate as u64),
                    },
                    false,
                ),
            );
        }
        if tables.len() > MAX_TABLES {
            tracing::warn!(
                tables = tables.len(),
                served = MAX_TABLES,
                "too many tables: the first by name are served"
            );
            let mut by_name: Vec<(i64, String)> = tables
                .iter()
                .map(|(oid, (_, _, table, _))| (*oid, table.name.clone()))
                .collect();
            by_name.sort_by(|a, b| a.1.cmp(&b.1));
            for (oid, _) in by_name.into_iter().skip(MAX_TABLES) {
                tables.remove(&oid);
            }
        }
        let oids = Bind::Text(
            tables
                .keys()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(","),
        );
        let oid_list = "string_to_array($1, ',')::oid[]";
        // Columns, with their base types (a domain's) to read them by.
        let mut hidden_keys: Vec<(i64, String)> = Vec::new();
        let columns = self
            .rows_of(
                &format!(
                    "SELECT a.attrelid::int8, a.attname::text, format_type(a.atttypid, a.atttypmod), \
                     coalesce(b.typname, t.typname)::text, a.attnotnull, \
                     pg_get_expr(d.adbin, d.adrelid) \
                     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
                     LEFT JOIN pg_type b ON t.typtype = 'd' AND b.oid = t.typbasetype \
                     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
                     WHERE a.attrelid = ANY({oid_list}) AND a.attnum > 0 AND NOT a.attisdropped \
                     AND has_column_privilege(a.attrelid, a.attnum, 'SELECT') \
                     ORDER BY a.attrelid, a.attnum"
                ),
                std::slice::from_ref(&oids),
            )
            .await?;
        for row in &columns {
            let oid: i64 = row.try_get(0)?;
            let Some((_, _, table, _)) = tables.get_mut(&oid) else {
                continue;
            };
            let name: String = row.try_get(1)?;
            let action = self.rules.column(&table.name, &name);
            if matches!(action, Some(ColumnAction::Hide | ColumnAction::Mask(_))) {
                hidden_keys.push((oid, name.clone()));
            }
            if action == Some(ColumnAction::Hide) {
                continue;
            }
            table.columns.push(Column {
                name,
                decl_type: row.try_get(2)?,
                base_type: row.try_get(3)?,
                not_null: row.try_get(4)?,
                default: row.try_get(5)?,
                mask: match action {
                    Some(ColumnAction::Mask(style)) => Some(style),
                    _ => None,
                },
            });
        }
        // Indexes (the primary key among them), columns in order; an index over an
        // expression has an attribute number 0.
        let indexes = self
            .rows_of(
                &format!(
                    "SELECT i.indrelid::int8, ic.relname::text, i.indisunique, i.indisprimary, \
                     0 = ANY(i.indkey::int2[]), \
                     array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o) \
                     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) \
                     FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid \
                     WHERE i.indrelid = ANY({oid_list}) ORDER BY ic.relname"
                ),
                std::slice::from_ref(&oids),
            )
            .await?;
        for row in &indexes {
            let oid: i64 = row.try_get(0)?;
            let Some((_, _, table, _)) = tables.get_mut(&oid) else {
                continue;
            };
            let columns: Vec<String> = row.try_get(5)?;
            let expression: bool = row.try_get(4)?;
            let served = |column: &String| table.columns.iter().any(|each| &each.name == column);
            if row.try_get::<_, bool>(3)? {
                let masked_or_hidden = columns
                    .iter()
                    .any(|column| hidden_keys.iter().any(|(o, c)| *o == oid && c == column));
                table.primary_key = columns.iter().filter(|c| served(c)).cloned().collect();
                if columns.len() == 1 && !masked_or_hidden {
                    table.key = Key::Column {
                        name: columns[0].clone(),
                    };
                }
            }
            if !expression && columns.iter().all(served) {
                table.indexes.push(Index {
                    name: row.try_get(1)?,
                    columns,
                    unique: row.try_get(2)?,
                });
            }
        }
        // Foreign keys, to served tables only, naming served columns only.
        let foreign = self
            .rows_of(
                &format!(
                    "SELECT con.conrelid::int8, con.confrelid::int8, \
                     array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, o) \
                     JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o), \
                     array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, o) \
                     JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o) \
                     FROM pg_constraint con WHERE con.contype = 'f' \
                     AND con.conrelid = ANY({oid_list}) ORDER BY con.conname"
                ),
                std::slice::from_ref(&oids),
            )
            .await?;
        for row in &foreign {
            let (from, to): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
            let Some(target) = tables.get(&to).map(|(_, _, table, _)| table.clone()) else {
                continue;
            };
            let Some((_, _, table, _)) = tables.get_mut(&from) else {
                continue;
            };
            let key = ForeignKey {
                columns: row.try_get(2)?,
                table: target.name.clone(),
                to: row.try_get(3)?,
            };
            let served_in = |table: &Table, column: &String| {
                table.columns.iter().any(|each| &each.name == column)
            };
            if key.columns.iter().all(|column| served_in(table, column))
                && key.to.iter().all(|column| served_in(&target, column))
            {
                table.foreign_keys.push(key);
            }
        }
        let mut tables: Vec<Table> = tables.into_values().map(|(_, _, table, _)| table).collect();
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Schema { tables })
    }

    /// The key expression of `table`, `None` for a schema-only table.
    fn key_column(table: &Table) -> Option<String> {
        match &table.key {
            Key::Column { name } => Some(quote(name)),
            Key::RowId | Key::None => None,
        }
    }

    /// The served columns' select list and readers.
    fn select_list(&self, table: &Table) -> (String, Vec<Reader>) {
        let readers: Vec<Reader> = table
            .columns
            .iter()
            .map(|column| Reader::of_type_name(&column.base_type))
            .collect();
        let list = table
            .columns
            .iter()
            .zip(&readers)
            .enumerate()
            .map(|(index, (column, reader))| {
                // Named apart: an output column called as its input would make `ORDER BY`
                // ambiguous.
                format!(
                    ", {} AS c{index}",
                    reader.select(&column.name, self.value_limit)
                )
            })
            .collect();
        (list, readers)
    }

    fn collect_rows(rows: &[tokio_postgres::Row], readers: &[Reader]) -> Result<Vec<Row>, Error> {
        rows.iter()
            .map(|row| {
                let key: String = row.try_get(0)?;
                let values = readers
                    .iter()
                    .enumerate()
                    .map(|(index, reader)| reader.read(row, index + 1))
                    .collect::<Result<_, _>>()?;
                Ok(Row {
                    cursor: key.clone(),
                    key,
                    values,
                })
            })
            .collect()
    }

    /// Up to `limit` rows of `table` (whose relation is `relation`) after the key `after`, in
    /// key order. `None` when the table has no key.
    pub(crate) async fn rows(
        &self,
        table: &Table,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Option<Vec<Row>>, Error> {
        let Some(key) = Self::key_column(table) else {
            return Ok(None);
        };
        let Some(column) = table
            .columns
            .iter()
            .find(|column| Some(quote(&column.name)) == Some(key.clone()))
        else {
            return Ok(None);
        };
        let (list, readers) = self.select_list(table);
        let resume = if after.is_some() {
            format!("AND {key} > $1::text::{} ", column.decl_type)
        } else {
            String::new()
        };
        let sql = format!(
            "SELECT {key}::text AS k{list} FROM {} WHERE {key} IS NOT NULL {resume}\
             ORDER BY {key} LIMIT {limit}",
            table.relation
        );
        let params: Vec<Bind> = after
            .map(|after| Bind::Text(after.to_owned()))
            .into_iter()
            .collect();
        match self.rows_of(&sql, &params).await {
            Ok(rows) => Ok(Some(Self::collect_rows(&rows, &readers)?)),
            Err(error) if error.is_bad_value() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The row of `table` whose key reads as `key`, `None` when there is none or `key` is no
    /// value of the key's type.
    pub(crate) async fn row(&self, table: &Table, key: &str) -> Result<Option<Row>, Error> {
        let Some(key_column) = Self::key_column(table) else {
            return Ok(None);
        };
        let Some(column) = table
            .columns
            .iter()
            .find(|column| quote(&column.name) == key_column)
        else {
            return Ok(None);
        };
        let (list, readers) = self.select_list(table);
        let sql = format!(
            "SELECT {key_column}::text AS k{list} FROM {} WHERE {key_column} = $1::text::{}",
            table.relation, column.decl_type
        );
        match self.rows_of(&sql, &[Bind::Text(key.to_owned())]).await {
            Ok(rows) => Ok(Self::collect_rows(&rows, &readers)?.into_iter().next()),
            Err(error) if error.is_bad_value() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Up to `limit` keys of `table` whose text starts with `prefix`, in key order, among its
    /// first [`COMPLETION_SCAN`] keys.
    pub(crate) async fn keys_with_prefix(
        &self,
        table: &Table,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let Some(key) = Self::key_column(table) else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT k FROM (SELECT {key}::text AS k FROM {} WHERE {key} IS NOT NULL \
             ORDER BY {key} LIMIT {COMPLETION_SCAN}) s WHERE starts_with(k, $1) LIMIT $2",
            table.relation
        );
        let rows = self
            .rows_of(
                &sql,
                &[Bind::Text(prefix.to_owned()), Bind::Integer(limit as i64)],
            )
            .await?;
        rows.iter()
            .map(|row| Ok(row.try_get::<_, String>(0)?))
            .collect()
    }

    /// Checks a named query's (or completion query's) SQL: one statement that prepares,
    /// taking one of `counts` parameters of types that can be bound, its columns of types that
    /// can be read, and whose plan writes nothing (its `EXPLAIN`, run read-only with every
    /// parameter NULL, has no `ModifyTable` node). Returns how many parameters it takes.
    pub(crate) async fn check_query(&self, sql: &str, counts: &[usize]) -> Result<usize, String> {
        let mut slot = self
            .session()
            .await
            .map_err(|error| format!("cannot be checked: {error}"))?;
        let session = slot.as_mut().expect("invariant: connected");
        let statement = bounded(session.prepare(sql))
            .await
            .map_err(|error| format!("does not prepare: {}", detail(&error)))?;
        let count = statement.params().len();
        if !counts.contains(&count) {
            return Err(format!("takes {count} parameters, not {counts:?}"));
        }
        if let Some((index, ty)) = statement
            .params()
            .iter()
            .enumerate()
            .find(|(_, ty)| !bindable(ty))
        {
            return Err(format!(
                "has parameter ${} of type {ty}, which is bound from text, integers, reals or \
                 booleans only: cast it in the SQL (${}::text::{ty})",
                index + 1,
                index + 1
            ));
        }
        if let Some(column) = statement
            .columns()
            .iter()
            .find(|column| Reader::of_type(column.type_()).is_none())
        {
            return Err(format!(
                "answers the column {:?} of type {}: cast it to text in the SQL",
                column.name(),
                column.type_()
            ));
        }
        let explain = bounded(session.prepare(&format!("EXPLAIN (FORMAT JSON) {sql}")))
            .await
            .map_err(|error| format!("cannot be explained: {}", detail(&error)))?;
        let nulls: Vec<&(dyn ToSql + Sync)> = explain
            .params()
            .iter()
            .map(|_| &Null as &(dyn ToSql + Sync))
            .collect();
        let plan = bounded(session.read_only(&explain, &nulls))
            .await
            .map_err(|error| format!("cannot be explained: {}", detail(&error)))?;
        // The plan is `json`, whose binary form is its text. One that cannot be read is no
        // proof of a read: refused.
        let plan: serde_json::Value = plan
            .first()
            .and_then(|row| row.try_get::<_, Raw>(0).ok())
            .and_then(|raw| serde_json::from_slice(&raw.0).ok())
            .ok_or_else(|| "cannot be explained: no plan".to_owned())?;
        if writes(&plan) {
            return Err("is not read-only".to_owned());
        }
        Ok(count)
    }

    /// Runs the named query `sql` of `name` with `params`: at most `limit` rows, its hidden
    /// columns left out and its masked ones marked, by the column rules under `name`. `None`
    /// when a value is no value of its parameter's type.
    pub(crate) async fn run_query(
        &self,
        name: &str,
        sql: &str,
        params: &[Bind],
        limit: usize,
    ) -> Result<Option<QueryRows>, Error> {
        let Some(rows) = self.query(sql, params).await? else {
            return Ok(None);
        };
        let Some(first) = rows.first() else {
            return Ok(Some(QueryRows::new(name, Vec::new())));
        };
        let mut served = Vec::new();
        let mut columns = Vec::new();
        for (index, column) in first.columns().iter().enumerate() {
            let action = self.rules.column(name, column.name());
            if action == Some(ColumnAction::Hide) {
                continue;
            }
            let Some(reader) = Reader::of_type(column.type_()) else {
                continue;
            };
            served.push((index, reader));
            columns.push(Column {
                name: column.name().to_owned(),
                decl_type: String::new(),
                base_type: String::new(),
                not_null: false,
                default: None,
                mask: match action {
                    Some(ColumnAction::Mask(style)) => Some(style),
                    _ => None,
                },
            });
        }
        let mut answer = QueryRows::new(name, columns);
        for row in &rows {
            if answer.rows.len() == limit {
                answer.more = true;
                break;
            }
            answer.rows.push(
                served
                    .iter()
                    .map(|(index, reader)| reader.read(row, *index))
                    .collect::<Result<_, _>>()?,
            );
        }
        Ok(Some(answer))
    }

    /// The first column of a completion query's rows, as text, at most `limit`.
    pub(crate) async fn complete_query(
        &self,
        sql: &str,
        params: &[Bind],
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let rows = self.rows_of(sql, params).await?;
        let mut values = Vec::new();
        for row in rows.iter().take(limit) {
            let Some(reader) = Reader::of_type(row.columns()[0].type_()) else {
                break;
            };
            if let Some(text) = reader.read(row, 0)?.key_text() {
                values.push(text);
            }
        }
        Ok(values)
    }

    /// What the statistics say each served table that has no notify trigger has seen:
    /// inserted, updated and deleted rows, summed, by served name.
    pub(crate) async fn activity(&self) -> Result<BTreeMap<String, i64>, Error> {
        let schema = self.schema().await?;
        let polled: Vec<&Table> = schema
            .tables
            .iter()
            .filter(|table| !table.notified)
            .collect();
        if polled.is_empty() {
            return Ok(BTreeMap::new());
        }
        let relations = polled
            .iter()
            .map(|table| table.relation.clone())
            .collect::<Vec<_>>()
            .join(",");
        // `pg_stat_user_tables` counts a transaction's changes when it ends; each poll runs in
        // a transaction of its own, so it sees fresh figures.
        let rows = self
            .rows_of(
                "SELECT r, n FROM (SELECT '\"' || replace(schemaname, '\"', '\"\"') || '\".\"' \
                 || replace(relname, '\"', '\"\"') || '\"' AS r, \
                 (n_tup_ins + n_tup_upd + n_tup_del)::int8 AS n FROM pg_stat_user_tables) s \
                 WHERE r = ANY(string_to_array($1, ','))",
                &[Bind::Text(relations)],
            )
            .await?;
        let mut activity = BTreeMap::new();
        for row in &rows {
            let relation: String = row.try_get(0)?;
            if let Some(table) = polled.iter().find(|table| table.relation == relation) {
                activity.insert(table.name.clone(), row.try_get(1)?);
            }
        }
        Ok(activity)
    }
}

/// The server's message of `error`, with its detail when there is one.
fn detail(error: &Error) -> String {
    match error {
        Error::Postgres(error) => match error.as_db_error() {
            Some(db) => db.message().to_owned(),
            None => error.to_string(),
        },
        Error::Deadline => error.to_string(),
    }
}

/// Whether an `EXPLAIN (FORMAT JSON)` plan has a node that writes.
fn writes(plan: &serde_json::Value) -> bool {
    match plan {
        serde_json::Value::Array(items) => items.iter().any(writes),
        serde_json::Value::Object(object) => {
            object.get("Node Type").and_then(serde_json::Value::as_str) == Some("ModifyTable")
                || object.values().any(writes)
        }
        _ => false,
    }
}

/// A value of any type, as the bytes the server sent.
struct Raw(Vec<u8>);

impl<'a> tokio_postgres::types::FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// NULL, for a parameter of any type.
#[derive(Debug)]
struct Null;

impl ToSql for Null {
    fn to_sql(
        &self,
        _: &Type,
        _: &mut tokio_postgres::types::private::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        Ok(tokio_postgres::types::IsNull::Yes)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}
